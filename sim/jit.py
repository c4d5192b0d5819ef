"""One place that decides how physics kernels are compiled.

Every kernel in `sim/` is a plain-loop Python function decorated with `@kernel`. Under numba it is
compiled once (`cache=True` keeps the machine code in `__pycache__` for later processes); with the
environment variable `NUMBA_DISABLE_JIT=1` numba hands back the Python function unchanged, so the very
same code runs as ordinary Python (slow, but useful for debugging and for checking the compiled code).
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numba

JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
SIM_DIR = Path(__file__).resolve().parent
KERNEL_CONSTANTS = ("tables.py", "units.py", "jit.py")   # read by kernels though they define none


def drop_stale_cache() -> None:
    """numba's cache checks only the source file of the cached function itself, so an edit to a helper
    in another file would leave a stale kernel in use. Keep a hash of every sim/*.py a kernel can depend
    on (the files that define kernels, and the constant tables they read) next to the cache and delete
    the cached kernels whenever it changes. Python-only modules (the API, validation, benchmark) are left
    out, so editing them does not cost a recompile."""
    cache = SIM_DIR / "__pycache__"
    digest = hashlib.sha256()
    for f in sorted(SIM_DIR.glob("*.py")):
        text = f.read_bytes()
        if f.name in KERNEL_CONSTANTS or any(d in text for d in (b"@kernel", b"@stage", b"@leaf",
                                                                   b"@allocating_kernel", b"@parallel_kernel")):
            digest.update(f.name.encode() + b"\0" + text)
    stamp = cache / "kernels.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        cache.mkdir(exist_ok=True)
        for old in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            old.unlink()
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass  # a read-only install: numba keeps its cache elsewhere and the sources cannot change


if not JIT_DISABLED:
    drop_stale_cache()


def kernel(fn):
    """Compile `fn` with numba (nopython, cached; float division by zero gives inf/nan as in numpy).
    Plain Python when NUMBA_DISABLE_JIT=1.

    Without numba's reference counting (`_nrt=False`): a kernel only reads and writes the tables it is
    given and allocates nothing, and with counting on every array argument of every call was counted up
    and down again with atomic instructions, about a third of a batch step's time (and a cache line the
    cores fought over). A kernel that must allocate is an `allocating_kernel`."""
    return numba.njit(cache=True, error_model="numpy", _nrt=False, forceinline=False)(fn)


def stage(fn):
    """A `kernel` that LLVM inlines into its caller (`forceinline`, LLVM's alwaysinline): the stages of
    `sim/step.py` substep. Each is still typed and compiled once by numba (inlining at numba's level, as
    `leaf` does, made the first compile take minutes), but the call is gone: substep no longer spells out
    every table of every stage's arguments field by field (over 1600 instructions a substep)."""
    return numba.njit(cache=True, error_model="numpy", _nrt=False, forceinline=True)(fn)


def allocating_kernel(fn):
    """Like `kernel`, with numba's reference counting, for the rare kernel that allocates arrays (the
    parking solve); call it only on the path that needs it, its array arguments are counted. (Said
    explicitly: numba's callee would otherwise inherit the caller's `_nrt=False`.)"""
    return numba.njit(cache=True, error_model="numpy", _nrt=True, forceinline=False)(fn)


def parallel_kernel(fn):
    """Like `kernel` (no reference counting either: two cores counting the same arrays fought over their
    cache line), with its `prange` loops run on every core (numba's parallel=True). Plain Python (prange is
    range) when NUMBA_DISABLE_JIT=1."""
    return numba.njit(cache=True, error_model="numpy", parallel=True, _nrt=False, forceinline=False)(fn)


def leaf(fn):
    """Compiled like `kernel`, and inlined into its callers at numba's IR level: the formulas, and the
    helpers called in a wheel loop or a solver loop, where a call would cost more than the work.

    A numba call that is not inlined costs tens of nanoseconds (every array argument travels as a
    struct). Inlining everything, stages included, made the first compile take minutes, so the stages
    (the functions that loop over the wheels, `*_stage`) are `stage`s, inlined by LLVM instead. Inlined, a leaf is compiled with
    its caller's options (no reference counting inside a `kernel`); called from Python it counts."""
    return numba.njit(cache=True, error_model="numpy", inline="always")(fn)


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
