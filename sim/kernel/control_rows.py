"""Control rows for a batch run, normalised in one compiled pass (`Simulation.run`'s trace).

`sim.controls.normalise_rows` says what every path reads: shift as its sign, gear as a whole number
(anything above MAX_GEARS means NO_GEAR), the aids as 0 or 1, and no value that is not a finite number.
For a long trace of many vehicles numpy's way of doing that (a pass over the whole trace for each rule,
and copies for the defaults and the broadcast over the vehicles) cost about a sixth of the batch step
itself; this kernel does all of it in one pass, writing the (K, N, CT_N) table the kernels read.
"""
from __future__ import annotations

import math

import numpy as np

from sim.kernel.jit import kernel
from sim.kernel.tables import CT_ABS
from sim.kernel.tables import CT_ESP
from sim.kernel.tables import CT_GEAR
from sim.kernel.tables import CT_N
from sim.kernel.tables import CT_SHIFT
from sim.kernel.tables import CT_TC
from sim.kernel.tables import MAX_GEARS
from sim.kernel.tables import NO_GEAR


@kernel
def normalise_trace(trace, defaults, out):
    """trace (K, M, C): K steps of control rows with the first C of the CT_N columns, for M = 1 (every
    vehicle the same) or M = N vehicles; defaults (CT_N,): the other columns' values; out (K, N, CT_N).
    Returns -1, or k CT_N + c for the first value (step k, column c) that is not a finite number, in the
    order numpy's argwhere would find it (then `out` is incomplete)."""
    steps, m, cols = trace.shape
    n = out.shape[1]
    for k in range(steps):
        for v in range(n):
            src = 0 if m == 1 else v
            for c in range(CT_N):
                x = trace[k, src, c] if c < cols else defaults[c]
                if not math.isfinite(x):
                    return k * CT_N + c
                if c == CT_SHIFT:
                    x = 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0
                elif c == CT_GEAR:
                    x = np.trunc(x)
                    if x > MAX_GEARS:
                        x = NO_GEAR
                elif c == CT_ABS or c == CT_TC or c == CT_ESP:
                    x = 1.0 if x > 0.5 else 0.0
                out[k, v, c] = x
    return -1
