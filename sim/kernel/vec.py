"""Small vector and quaternion helpers on tuples, compiled with numba.

Vectors are 3-tuples (x, y, z) of float64 and quaternions are 4-tuples (w, x, y, z). Tuples live on the
stack inside numba code, so these helpers cost nothing per call, and the same code runs as plain Python.
`get3` / `set3` (and `get3w` / `set3w` for per-wheel tables) move a vector between a tuple and three
consecutive columns of a packed table (`sim/kernel/tables.py`).
"""
from __future__ import annotations

import math

from sim.kernel.jit import accessor
from sim.kernel.jit import leaf

NEAR_UNIT = 1e-9          # quat_normalize: |q|^2 this close to 1 takes one Newton step
SMALL_ROTATION = 0.1      # rad: quat_from_rotvec sums the series below this angle


@leaf
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@leaf
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@leaf
def scale(a, k):
    return (a[0] * k, a[1] * k, a[2] * k)


@leaf
def madd(a, b, k):
    """a + k b"""
    return (a[0] + k * b[0], a[1] + k * b[1], a[2] + k * b[2])


@leaf
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@leaf
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@leaf
def norm(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@leaf
def normalize(a):
    """Unit vector along a; the zero vector stays zero."""
    n = math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    if n == 0.0:
        return (0.0, 0.0, 0.0)
    return (a[0] / n, a[1] / n, a[2] / n)


@leaf
def quat_mul(p, q):
    """Hamilton product p q, (w, x, y, z)."""
    return (p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
            p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
            p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
            p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0])


@leaf
def quat_normalize(q):
    """q / |q|. Within NEAR_UNIT of unit length (a product of unit quaternions, off by a few roundings)
    one Newton step of 1/sqrt from 1, k = (3 - |q|^2) / 2, is 1/|q| to rounding (its error is 3/8 of the
    squared offset) and costs no square root and no division on the body's chain."""
    n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
    if abs(n2 - 1.0) < NEAR_UNIT:
        k = 1.5 - 0.5 * n2
    else:
        k = 1.0 / math.sqrt(n2)
    return (q[0] * k, q[1] * k, q[2] * k, q[3] * k)


@leaf
def quat_matrix(q):
    """The rotation matrix R(q) of a unit quaternion, as three rows. Every rotation by q goes through it:
    a stage's rotations by the substep's frozen orientation share one matrix (LLVM computes it once for
    the whole inlined substep), and each then costs 9 multiplications and 6 additions instead of the 30
    operations of the quaternion sandwich."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    return ((1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)),
            (2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)),
            (2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)))


@leaf
def quat_rotate(q, v):
    """R(q) v for a unit quaternion q."""
    m = quat_matrix(q)
    return (m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2])


@leaf
def quat_rotate_inv(q, v):
    """R(q)^T v: a world vector expressed in the body frame."""
    m = quat_matrix(q)
    return (m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
            m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
            m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2])


@leaf
def quat_axis_x(q):
    """R(q) (1, 0, 0): the body's x axis (forward) in the world."""
    m = quat_matrix(q)
    return (m[0][0], m[1][0], m[2][0])


@leaf
def quat_axis_z(q):
    """R(q) (0, 0, 1): the body's z axis (up) in the world."""
    m = quat_matrix(q)
    return (m[0][2], m[1][2], m[2][2])


@leaf
def quat_from_rotvec(r):
    """Unit quaternion of the rotation by angle |r| about axis r/|r| (exact, no small-angle error):
    (cos(a/2), sin(a/2)/a r). Below SMALL_ROTATION (a body turns some milliradians a substep) both come
    from their series in a^2, summed to the term past which they change no bit (the next is under
    3e-20 there), so the body's chain needs no square root and no call into the maths library."""
    a2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
    if a2 < SMALL_ROTATION * SMALL_ROTATION:
        x2 = 0.25 * a2                                                # (a/2)^2
        c = 1.0 + x2 * (-1.0 / 2.0 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 * (1.0 / 40320.0))))
        s = 0.5 * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 + x2 * (1.0 / 362880.0)))))
        return (c, r[0] * s, r[1] * s, r[2] * s)
    angle = math.sqrt(a2)
    s = math.sin(0.5 * angle) / angle
    return (math.cos(0.5 * angle), r[0] * s, r[1] * s, r[2] * s)


@leaf
def world_inertia_apply(q, inertia_diag, w):
    """(R I R^T) w with I = diag(inertia_diag) in the body frame."""
    wb = quat_rotate_inv(q, w)
    return quat_rotate(q, (inertia_diag[0] * wb[0], inertia_diag[1] * wb[1], inertia_diag[2] * wb[2]))


@leaf
def world_inertia_solve(q, inertia_diag, moment):
    """(R I R^T)^-1 m = R I^-1 R^T m: the angular velocity of angular momentum m. (Multiplied by 1/I,
    which does not depend on the state, so no division waits on the body's chain.)"""
    inv = (1.0 / inertia_diag[0], 1.0 / inertia_diag[1], 1.0 / inertia_diag[2])
    mb = quat_rotate_inv(q, moment)
    return quat_rotate(q, (mb[0] * inv[0], mb[1] * inv[1], mb[2] * inv[2]))


@accessor
def get3(table, v, col):
    """(table[v, col], table[v, col + 1], table[v, col + 2]) of a [vehicle, column] table."""
    return (table[v, col], table[v, col + 1], table[v, col + 2])


@accessor
def get3w(table, v, wheel, col):
    """The vector in columns col..col+2 of a wheel in a [vehicle, wheel, column] table."""
    return (table[v, wheel, col], table[v, wheel, col + 1], table[v, wheel, col + 2])


@accessor
def set3(table, v, col, x):
    table[v, col] = x[0]
    table[v, col + 1] = x[1]
    table[v, col + 2] = x[2]


@accessor
def set3w(table, v, wheel, col, x):
    table[v, wheel, col] = x[0]
    table[v, wheel, col + 1] = x[1]
    table[v, wheel, col + 2] = x[2]


@leaf
def solve3(m, r):
    """x with M x = r for a 3x3 M given by rows (m00, m01, m02, m10, m11, m12, m20, m21, m22), by its adjugate."""
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = m
    c00 = m11 * m22 - m12 * m21
    c01 = m12 * m20 - m10 * m22
    c02 = m10 * m21 - m11 * m20
    inv = 1.0 / (m00 * c00 + m01 * c01 + m02 * c02)
    x0 = (c00 * r[0] + (m02 * m21 - m01 * m22) * r[1] + (m01 * m12 - m02 * m11) * r[2]) * inv
    x1 = (c01 * r[0] + (m00 * m22 - m02 * m20) * r[1] + (m02 * m10 - m00 * m12) * r[2]) * inv
    x2 = (c02 * r[0] + (m01 * m20 - m00 * m21) * r[1] + (m00 * m11 - m01 * m10) * r[2]) * inv
    return (x0, x1, x2)


@leaf
def solve_spd4(a, r):
    """x with A x = r for a symmetric positive definite 4x4 A given by its upper triangle
    a = (a00, a01, a02, a03, a11, a12, a13, a22, a23, a33): A = L D L^T with one reciprocal per pivot
    (four divisions in all, no square root: the solve is a chain, and a division is its slowest step)."""
    a00, a01, a02, a03, a11, a12, a13, a22, a23, a33 = a
    i0 = 1.0 / a00
    l10 = a01 * i0
    l20 = a02 * i0
    l30 = a03 * i0
    i1 = 1.0 / (a11 - l10 * a01)
    e21 = a12 - l10 * a02
    e31 = a13 - l10 * a03
    l21 = e21 * i1
    l31 = e31 * i1
    i2 = 1.0 / (a22 - l20 * a02 - l21 * e21)
    e32 = a23 - l20 * a03 - l21 * e31
    l32 = e32 * i2
    i3 = 1.0 / (a33 - l30 * a03 - l31 * e31 - l32 * e32)
    z0 = r[0]
    z1 = r[1] - l10 * z0
    z2 = r[2] - l20 * z0 - l21 * z1
    z3 = r[3] - l30 * z0 - l31 * z1 - l32 * z2
    x3 = z3 * i3
    x2 = z2 * i2 - l32 * x3
    x1 = z1 * i1 - l21 * x2 - l31 * x3
    x0 = z0 * i0 - l10 * x1 - l20 * x2 - l30 * x3
    return (x0, x1, x2, x3)
