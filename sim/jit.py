"""One place that decides how physics kernels are compiled.

Every kernel in `sim/` is a plain-loop Python function decorated with `@kernel`. Under numba it is
compiled once (`cache=True` keeps the machine code in `__pycache__` for later processes); with the
environment variable `NUMBA_DISABLE_JIT=1` numba hands back the Python function unchanged, so the very
same code runs as ordinary Python (slow, but useful for debugging and for checking the compiled code).
"""
from __future__ import annotations

import os
import sys

import numba

JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def kernel(fn):
    """Compile `fn` with numba (nopython, cached; float division by zero gives inf/nan as in numpy).
    Plain Python when NUMBA_DISABLE_JIT=1."""
    return numba.njit(cache=True, error_model="numpy")(fn)


def needs_compile(dispatcher) -> bool:
    """True when calling `dispatcher` will compile rather than load cached machine code."""
    if JIT_DISABLED or not hasattr(dispatcher, "_cache"):
        return False
    if dispatcher.signatures:
        return False
    try:
        return not dispatcher._cache._cache_file._load_index()
    except Exception:  # numba internals moved: assume the worst and announce it
        return True


def announce_compile(dispatcher, what: str) -> bool:
    """Print a console note before a first call that will compile; return whether it did."""
    if needs_compile(dispatcher):
        print(f"contactpatch: compiling {what} (first run only, takes a while; cached afterwards)...",
              file=sys.stderr, flush=True)
        return True
    return False
