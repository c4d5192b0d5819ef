"""Eight lanes at once: the four wheels' two Magic Formula curves (longitudinal, lateral) evaluated together
(docs/physics.md §8, "How the curves are evaluated").

A lane tuple holds eight float64 values: lanes 0-3 the wheels' longitudinal curve (FL, FR, RL, RR), lanes
4-7 their lateral one. The arithmetic is written lane by lane, in the same order as the scalar formula
(`sim.kernel.tire.magic.magic_formula_and_slope`), and the arc tangents, sines and cosines go to the C library's vector
maths when this machine has it (glibc's libmvec, `_ZGVeN8v_atan` and friends: eight arc tangents in one
call, within 4 ulp), else to the scalar maths library one lane at a time, which gives exactly the scalar
formula's bits. Which one this process uses is `sim.kernel.jit.VECTOR_MATH` ("avx512", "avx2" or "scalar"; the
environment variable CONTACTPATCH_VECTOR_MATH can ask for a narrower one, for tests), chosen once at
import from the processor's features and the library's symbols. The kernels are compiled for that choice (the
cache stamp in `sim.kernel.jit` includes it); a batch and a single car give the same bits on one machine, and
two machines that pick different ones differ in the last bits, as the scalar library's own variants do.

Called from Python (tests, NUMBA_DISABLE_JIT=1) the functions run the scalar maths library lane by lane.
"""
from __future__ import annotations

import math

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.extending import overload

from sim.kernel.jit import VECTOR_MATH
from sim.kernel.jit import leaf


def _vector_call(symbol: str, width: int, nargs: int = 1):
    """An intrinsic that packs each of its `nargs` UniTuple(float64, width) arguments into an LLVM vector,
    calls `symbol` (a libmvec function of the x86-64 vector ABI: vectors in, a vector out, or an LLVM
    intrinsic such as llvm.sqrt.v4f64; "fdiv": LLVM's vector division of the two) and unpacks the
    result."""
    def codegen(context, builder, signature, args):
        from llvmlite import ir
        vec_t = ir.VectorType(ir.DoubleType(), width)
        vecs = []
        for arg in args:
            vec = ir.Constant(vec_t, ir.Undefined)
            for k in range(width):
                vec = builder.insert_element(vec, builder.extract_value(arg, k), ir.Constant(ir.IntType(32), k))
            vecs.append(vec)
        if symbol == "fdiv":
            out = builder.fdiv(vecs[0], vecs[1])
        else:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec_t, [vec_t] * len(args)), symbol)
            out = builder.call(fn, vecs)
        return context.make_tuple(builder, signature.return_type,
                                  [builder.extract_element(out, ir.Constant(ir.IntType(32), k)) for k in range(width)])

    lanes_t = types.UniTuple(types.float64, width)
    if nargs == 1:
        @intrinsic
        def call(typingctx, x):
            return lanes_t(x), codegen
    else:
        @intrinsic
        def call(typingctx, y, x):
            return lanes_t(y, x), codegen
    return call


def _vector_arith(op: str, width: int):
    """An intrinsic for IEEE division ("div", two UniTuple(float64, width) arguments) or square root ("sqrt",
    one) done on all lanes by one vector instruction. Both are correctly rounded, lane by lane, so the
    result is bit for bit the scalar operations'; the lanes only stop the divisions of the four wheels
    waiting on one another (a division takes about 13 cycles, and 17 % of a car-step went to waiting on
    them)."""
    vec = _vector_call("fdiv" if op == "div" else f"llvm.sqrt.v{width}f64", width, 2 if op == "div" else 1)
    if op == "div":
        def plain(a, b):
            return tuple(x / y for x, y in zip(a, b))
    else:
        def plain(a):
            return tuple(math.sqrt(x) for x in a)
    plain.__name__ = plain.__qualname__ = f"{op}{width}"
    if op == "div":
        @overload(plain, inline="always")
        def _impl(a, b):
            def compiled(a, b):
                return vec(a, b)
            return compiled
    else:
        @overload(plain, inline="always")
        def _impl(a):
            def compiled(a):
                return vec(a)
            return compiled
    return plain


div4 = _vector_arith("div", 4)
sqrt4 = _vector_arith("sqrt", 4)
div8 = _vector_arith("div", 8)


def _lanewise(name: str, scalar):
    """The lane function `name` (atan, sin or cos) on eight lanes: plain Python applies `scalar` to each;
    compiled code calls libmvec once (avx512) or twice (avx2), or `scalar` per lane."""
    def plain(x):
        return tuple(scalar(a) for a in x)
    plain.__name__ = plain.__qualname__ = f"{name}8"

    if VECTOR_MATH == "avx512":
        wide = _vector_call(f"_ZGVeN8v_{name}", 8)

        def compiled(x):
            return wide(x)
    elif VECTOR_MATH == "avx2":
        half = _vector_call(f"_ZGVdN4v_{name}", 4)

        def compiled(x):
            a = half((x[0], x[1], x[2], x[3]))
            b = half((x[4], x[5], x[6], x[7]))
            return (a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
    else:
        def compiled(x):
            return (scalar(x[0]), scalar(x[1]), scalar(x[2]), scalar(x[3]), scalar(x[4]), scalar(x[5]),
                    scalar(x[6]), scalar(x[7]))

    @overload(plain, inline="always")
    def _impl(x):
        return compiled
    return plain


def _atan2_4():
    """atan2 on four lanes (y, x): plain Python lane by lane; compiled, libmvec's AVX2 function (with
    either vector kind) or the scalar library per lane."""
    def plain(y, x):
        return tuple(math.atan2(a, b) for a, b in zip(y, x))
    plain.__name__ = plain.__qualname__ = "atan2_4"
    if VECTOR_MATH in ("avx512", "avx2"):
        vec = _vector_call("_ZGVdN4vv_atan2", 4, nargs=2)

        def compiled(y, x):
            return vec(y, x)
    else:
        def compiled(y, x):
            return (math.atan2(y[0], x[0]), math.atan2(y[1], x[1]), math.atan2(y[2], x[2]), math.atan2(y[3], x[3]))

    @overload(plain, inline="always")
    def _impl(y, x):
        return compiled
    return plain


def _lanewise4(name: str, scalar):
    """The lane function `name` (atan, sin or cos) on four lanes: plain Python applies `scalar` to each;
    compiled code calls libmvec's AVX2 function once (with either vector kind), or `scalar` per lane."""
    def plain(x):
        return tuple(scalar(a) for a in x)
    plain.__name__ = plain.__qualname__ = f"{name}4"
    if VECTOR_MATH in ("avx512", "avx2"):
        vec = _vector_call(f"_ZGVdN4v_{name}", 4)

        def compiled(x):
            return vec(x)
    else:
        def compiled(x):
            return (scalar(x[0]), scalar(x[1]), scalar(x[2]), scalar(x[3]))

    @overload(plain, inline="always")
    def _impl(x):
        return compiled
    return plain


atan2_4 = _atan2_4()
atan4 = _lanewise4("atan", math.atan)
sin4 = _lanewise4("sin", math.sin)
cos4 = _lanewise4("cos", math.cos)
asin4 = _lanewise4("asin", math.asin)
atan8 = _lanewise("atan", math.atan)
sin8 = _lanewise("sin", math.sin)
cos8 = _lanewise("cos", math.cos)


@leaf
def mul8(a, b):
    return (a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3], a[4] * b[4], a[5] * b[5], a[6] * b[6], a[7] * b[7])


@leaf
def add8(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5], a[6] + b[6], a[7] + b[7])


@leaf
def sub8(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4], a[5] - b[5], a[6] - b[6], a[7] - b[7])


@leaf
def from_one8(k, a):
    """k - a for a scalar k."""
    return (k - a[0], k - a[1], k - a[2], k - a[3], k - a[4], k - a[5], k - a[6], k - a[7])


@leaf
def plus_one8(a):
    """1 + a."""
    return (1.0 + a[0], 1.0 + a[1], 1.0 + a[2], 1.0 + a[3], 1.0 + a[4], 1.0 + a[5], 1.0 + a[6], 1.0 + a[7])


@leaf
def magic_formula_lanes(b, c, d, e, s):
    """`sim.kernel.tire.magic.magic_formula_and_slope` on eight lanes: (D sin(C atan(phi)), its slope d/ds), with
    phi = B s - E (B s - atan(B s)); each lane's operations in the scalar formula's order."""
    bs = mul8(b, s)
    phi = sub8(bs, mul8(e, sub8(bs, atan8(bs))))
    angle = mul8(c, atan8(phi))
    force = mul8(d, sin8(angle))
    # d cos(angle) c / (1 + phi^2) * b * (1 - e + e / (1 + bs^2)), left to right as in the scalar form
    slope = mul8(mul8(div8(mul8(mul8(d, cos8(angle)), c), plus_one8(mul8(phi, phi))), b),
                 add8(from_one8(1.0, e), div8(e, plus_one8(mul8(bs, bs)))))
    return force, slope
