"""The compiled physics: one file per stage of the seed-000 chain, the packed tables' column layout, the
vector and lane maths, and the JIT layer (jit.py). Imports only numpy, numba, the standard library and
itself (docs/physics.md)."""
