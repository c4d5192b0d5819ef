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
import types
from pathlib import Path

import numba
from numba.core.registry import CPUDispatcher


def _import_numba_arraymath() -> None:
    """numba imports its NumPy implementations on the first compile or cache load, and that module asks at
    import whether SciPy's BLAS is there, which imports all of scipy.linalg (0.2 - 0.45 s of a 1 - 2 s
    warm start on the project machine) for the one answer it keeps: whether its inner product of
    correlate/convolve uses BLAS. No kernel here calls those, and numba's linear algebra checks for BLAS
    again when it is compiled, so the module is imported now with SciPy's BLAS hidden for that moment.
    A process that has already imported scipy.linalg keeps it as it is."""
    name = "scipy.linalg.cython_blas"
    if JIT_DISABLED or name in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.modules[name] = None                         # `import` of it raises ImportError while this stands
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if sys.modules.get(name, 0) is None:
            del sys.modules[name]

JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
KERNEL_DIR = Path(__file__).resolve().parent      # sim/kernel: every file a compiled kernel can depend on
LIBMVEC_SYMBOLS = {"avx512": ("_ZGVeN8v_atan", "_ZGVeN8v_sin", "_ZGVeN8v_cos", "_ZGVdN4vv_atan2", "_ZGVdN4v_atan",
                              "_ZGVdN4v_sin", "_ZGVdN4v_cos", "_ZGVdN4v_asin"),
                   "avx2": ("_ZGVdN4v_atan", "_ZGVdN4v_sin", "_ZGVdN4v_cos", "_ZGVdN4vv_atan2", "_ZGVdN4v_asin")}
VECTOR_CPU_FEATURES = {"avx512": "avx512f", "avx2": "avx2"}


def choose_vector_math() -> str:
    """The vector maths the kernels can use here (sim/kernel/lanes.py): the widest whose processor feature and
    glibc libmvec symbols are both present, "scalar" otherwise (other systems, older glibc, no AVX2).
    CONTACTPATCH_VECTOR_MATH=scalar|avx2|avx512 narrows the choice (it never widens past what is here).
    Loads libmvec into the process, where the compiled kernels find its functions."""
    asked = os.environ.get("CONTACTPATCH_VECTOR_MATH", "").strip().lower()
    order = ("avx512", "avx2")
    if asked == "scalar" or JIT_DISABLED:
        return "scalar"
    if asked in order:
        order = order[order.index(asked):]
    try:
        import ctypes
        import ctypes.util

        import llvmlite.binding as llb
        features = llb.get_host_cpu_features()
    except Exception:                      # no host query here: the scalar library
        return "scalar"
    try:
        path = "libmvec.so.1"              # glibc's soname (no ldconfig call on the way)
        lib = ctypes.CDLL(path)
    except OSError:
        path = ctypes.util.find_library("mvec")
        try:
            lib = ctypes.CDLL(path) if path else None
        except OSError:
            lib = None
    for name in order:
        try:
            has_cpu = bool(features[VECTOR_CPU_FEATURES[name]])
        except KeyError:
            has_cpu = False
        if lib is not None and has_cpu and all(hasattr(lib, s) for s in LIBMVEC_SYMBOLS[name]):
            try:
                llb.load_library_permanently(path)
            except Exception:              # LLVM cannot link against it: the scalar library
                return "scalar"
            return name
    return "scalar"


VECTOR_MATH = choose_vector_math()
_import_numba_arraymath()


def drop_stale_cache() -> None:
    """numba's cache checks only the source file of the cached function itself, so an edit to a helper
    in another file would leave a stale kernel in use. The rule: everything a kernel can depend on lives in
    sim/kernel, so keep a hash of every .py file there next to the cache and delete the cached kernels
    (in every cache folder of sim/kernel) whenever it changes. The API, model and lab wings are left out:
    editing them does not cost a recompile. With NUMBA_CACHE_DIR set, numba keeps the kernels there (in a
    tree that mirrors the source folders' paths) and this keeps its stamp there too."""
    sources = sorted(KERNEL_DIR.rglob("*.py"))
    folders = sorted({f.parent for f in sources})
    caches = [folder / "__pycache__" for folder in folders]
    if numba.config.CACHE_DIR:
        from numba.core.caching import _CacheLocator
        caches = [Path(numba.config.CACHE_DIR) / _CacheLocator.get_suitable_cache_subpath(str(folder / "x.py"))
                  for folder in folders]
    digest = hashlib.sha256(f"vector maths: {VECTOR_MATH}\0".encode())   # kernels differ by it
    for f in sources:
        digest.update(f.relative_to(KERNEL_DIR).as_posix().encode() + b"\0" + f.read_bytes())
    stamp = caches[0] / "kernels.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for cache in caches:
            cache.mkdir(parents=True, exist_ok=True)
            for old in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                old.unlink()
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass  # a read-only install: numba keeps its cache elsewhere and the sources cannot change


if not JIT_DISABLED:
    drop_stale_cache()

# Under NUMBA_DISABLE_JIT=1 with CONTACTPATCH_RECORD_TYPES=1 (the warm-up's recorder, sim/warmup.py) every
# compiled function runs as Python and notes the numba types of the arguments it is called with, so that
# another process can compile it for those types before the compiled code that calls it gets there.
RECORDING = JIT_DISABLED and os.environ.get("CONTACTPATCH_RECORD_TYPES", "") not in ("", "0")
RECORDED: dict[tuple[str, str], list[tuple]] = {}     # (module, qualname) -> argument types, in call order


def plain(fn):
    """What a decorator gives back without numba: the function itself, or its recording wrapper."""
    if not RECORDING:
        return fn
    key = (fn.__module__, fn.__qualname__)
    calls = [0]

    def recording(*args, **kwargs):
        if not kwargs and calls[0] < 64:        # the first calls are enough to see every type
            calls[0] += 1
            try:
                sig = tuple(numba.typeof(a) for a in args)
            except ValueError:                   # a value numba has no type for: not compiled alone
                sig = None
            if sig is not None and sig not in RECORDED.setdefault(key, []):
                RECORDED[key].append(sig)
        return fn(*args, **kwargs)

    recording.__wrapped__ = fn
    recording.py_func = fn
    return recording


def kernel(fn):
    """Compile `fn` with numba (nopython, cached; float division by zero gives inf/nan as in numpy).
    Plain Python when NUMBA_DISABLE_JIT=1.

    Without numba's reference counting (`_nrt=False`): a kernel only reads and writes the tables it is
    given and allocates nothing, and with counting on every array argument of every call was counted up
    and down again with atomic instructions, about a third of a batch step's time (and a cache line the
    cores fought over). A kernel that must allocate is an `allocating_kernel`."""
    if JIT_DISABLED:
        return plain(fn)
    return numba.njit(cache=True, error_model="numpy", _nrt=False, forceinline=False)(fn)


def stage(fn):
    """A `kernel` that LLVM inlines into its caller (`forceinline`, LLVM's alwaysinline): the stages of
    `sim/kernel/step.py` substep. Each is still typed and compiled once by numba (inlining at numba's level, as
    `leaf` did once, made the first compile take minutes), but the call is gone: substep no longer spells
    out every table of every stage's arguments field by field (over 1600 instructions a substep). Like a
    `leaf` it has no wrappers of its own (see `inner`)."""
    return inner(fn, _nrt=False)


def allocating_kernel(fn):
    """Like `kernel`, with numba's reference counting, for the rare kernel that allocates arrays (the
    parking solve); call it only on the path that needs it, its array arguments are counted. (Said
    explicitly: numba's callee would otherwise inherit the caller's `_nrt=False`.)"""
    if JIT_DISABLED:
        return plain(fn)
    return numba.njit(cache=True, error_model="numpy", _nrt=True, forceinline=False)(fn)


def threaded_kernel(fn):
    """Like `kernel`, and it lets go of Python's lock while it runs (numba's nogil), so that threads can
    run it on several cores at once, each on its own rows of the tables (`Simulation.run`). (numba's own
    parallel loops cost a second compile of the whole chain, 16 s on a first run, for the same speed.)"""
    if JIT_DISABLED:
        return plain(fn)
    return numba.njit(cache=True, error_model="numpy", _nrt=False, nogil=True, forceinline=False)(fn)


def leaf(fn):
    """Compiled like `kernel` and inlined into its callers by LLVM (alwaysinline): the formulas, and the
    helpers called in a wheel loop or a solver loop, where a call would cost more than the work.

    Each leaf is typed and compiled once per signature and cached like every kernel; its callers link its
    machine-independent code and LLVM inlines it, so the machine code is the same as if it had been
    written out in place. (Inlining at numba's IR level, `inline="always"`, typed a leaf again at every
    call site: a third of the first compile.) Inlined into a `kernel` it runs with its caller's options (no
    reference counting); called from Python it runs a twin with the usual wrappers (see `inner`)."""
    return inner(fn, _nrt=False)


def allocating_leaf(fn):
    """A `leaf` that allocates arrays (the parking solver's scratch): compiled with numba's reference
    counting, so only an `allocating_kernel` may call it."""
    return inner(fn, _nrt=True)


def accessor(fn):
    """A leaf of one or two lines that many callers use with many argument types (moving a vector in or
    out of a table): inlined at numba's level, where typing it again at each call site costs less than
    compiling it once per signature."""
    if JIT_DISABLED:
        return fn
    return numba.njit(cache=True, error_model="numpy", inline="always")(fn)


def inlined_copy(fn):
    """A copy of the kernel `fn` that numba inlines at its IR level into the one caller that calls it
    (typed again there, not compiled on its own). numba links the module of every compiled function a
    function calls into its own and re-optimises and re-emits the machine code of all of it, so each
    compiled level above the whole chain makes the chain's machine code once more on a first run: substep
    under step_and_watch (`step()`) was such a level. The batch kernel still calls `fn` itself. The same
    operations, so the same bits."""
    if JIT_DISABLED:
        return fn
    return numba.njit(cache=True, error_model="numpy", inline="always")(_twin(fn.py_func, "__inlined"))


def _twin(fn, suffix="__from_python"):
    """A copy of `fn` under another qualified name, so that numba caches its compiled form apart from
    the wrapper-less original (numba's cache index is keyed by the function's name and signature, not by
    the compile options)."""
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    g.__qualname__ = fn.__qualname__ + suffix
    g.__module__ = fn.__module__
    g.__doc__ = fn.__doc__
    return g


class InnerDispatcher(CPUDispatcher):
    """A dispatcher for a function that compiled code calls: it is compiled without the CPython and cfunc
    wrappers numba otherwise builds for every function (a quarter of the first compile went into
    wrappers nobody called). Calling it from Python (tests, the packing of a vehicle) would jump into
    code with no wrapper, so a Python call goes to a twin compiled with wrappers the first time it is
    needed."""

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            options = {k: v for k, v in self.targetoptions.items()
                       if k not in ("no_cpython_wrapper", "no_cfunc_wrapper", "forceinline", "nopython")}
            options.pop("_nrt", None)   # called from Python, an argument array is reference counted
            twin = numba.njit(cache=True, **options)(_twin(self.py_func))
            self.__dict__["_python_twin"] = twin
        return twin(*args, **kwargs)


def inner(fn, **options):
    """Compile `fn` (numba, nopython, cached) as a function only compiled code calls, inlined by LLVM."""
    if JIT_DISABLED:
        return plain(fn)
    targetoptions = dict(nopython=True, error_model="numpy", forceinline=True, no_cpython_wrapper=True,
                         no_cfunc_wrapper=True)
    targetoptions.update(options)
    disp = InnerDispatcher(py_func=fn, locals={}, targetoptions=targetoptions)
    disp.enable_caching()
    return disp


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
