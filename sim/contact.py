"""Contact geometry and the tire frame (spec 000: 查询长度与轮心, 轮胎坐标).

Inputs come from a query (`sim/query.py`): s (m) along the unit suspension axis d from the anchor A to
the contact plane, and the plane's unit normal n. All vectors are world-frame 3-tuples.
"""
from __future__ import annotations

import math

from sim.jit import leaf
from sim.query import QUERY_DISC
from sim.vec import cross, dot, madd, norm, normalize, scale, sub

A_MIN = 0.2          # -: below this a = -dot(n, d) the hit is left to body collision (spec)
U_PARALLEL = 1.0e-3  # -: |u x n| below this means the axle is (nearly) along the normal: no rolling direction


@leaf
def support_radius(kind, r, n, u):
    """rEff: the wheel's reach along -n. Sphere/ray: r. Disc: r sqrt(1 - dot(n, u)^2) (spec)."""
    if kind == QUERY_DISC:
        h = dot(n, u)
        return r * math.sqrt(max(0.0, 1.0 - h * h))
    return r


@leaf
def suspension_length(s, a, r_eff, l_min, l_max):
    """l_raw = s - rEff / a; grounded when l_raw <= l_max; l = max(l_min, l_raw).

    s: m along d to the contact plane; a = -dot(n, d) (>= A_MIN, checked by the caller);
    returns (grounded, l_raw, l)."""
    l_raw = s - r_eff / a
    if l_raw > l_max:
        return False, l_raw, l_max
    return True, l_raw, max(l_min, l_raw)


@leaf
def contact_point(kind, c, n, u, r):
    """Q: sphere/ray Q = C - r n; disc Q = C - r normalize(n - dot(n, u) u) (spec)."""
    if kind == QUERY_DISC:
        h = dot(n, u)
        return madd(c, normalize(madd(n, u, -h)), -r)
    return madd(c, n, -r)


@leaf
def tire_frame(u, n):
    """t = normalize(u x n) (rolling direction), b = n x t. ok=False when u is nearly parallel to n."""
    un = cross(u, n)
    m = norm(un)
    if m < U_PARALLEL:
        return False, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    t = scale(un, 1.0 / m)
    return True, t, cross(n, t)


@leaf
def rolling_arm(u, q, c, t):
    """rho = -dot(cross(u, Q - C), t): the lever of the tread about the spin axis (m)."""
    return -dot(cross(u, sub(q, c)), t)
