"""Suspension: compression, its rate, and the force it puts on the body (spec 000: 压缩速度与法向载荷)."""
from __future__ import annotations

import math

from sim.jit import leaf
from sim.vec import dot, sub

BUMP_STOP_FACTOR = 10.0   # -: bump stop stiffness = BUMP_STOP_FACTOR x k below l_min (the spec's choice)


@leaf
def compression(l0, l):
    """x = max(0, l0 - l) (m)."""
    return max(0.0, l0 - l)


@leaf
def r_eff_rate(r, h, h_dot):
    """rEffDot = -r h hDot / sqrt(1 - h^2) for the disc, h = dot(n, u) (m/s)."""
    q = 1.0 - h * h
    if q <= 1.0e-12:
        return 0.0
    return -r * h * h_dot / math.sqrt(q)


@leaf
def compression_rate(a, vn, r_eff_dot, n_dot, c, q):
    """xdot = (rEffDot - dot(nDot, C - Q) - vn) / a.

    vn: velocity of the wheel centre (body motion, length frozen) minus the ground velocity at Q, along n.
    With a sphere (rEffDot = 0) on a fixed plane (nDot = 0) this is the spec's xdot = -vn / a.
    The rate comes from velocities, never from differencing x, so a jump of contact (a step, a new
    surface) does not produce a damping spike; only the n history used for nDot is reset there."""
    return (r_eff_dot - dot(n_dot, sub(c, q)) - vn) / a


@leaf
def suspension_force(k, c, x, x_dot, l_min, l_raw, a, f_bar):
    """Fs = max(0, k x + c xdot + 10 k max(0, lMin - l_raw) + f_bar); Fz = Fs a.

    f_bar: anti-roll bar force on this wheel (N, + compresses). Returns (Fs, Fz) in N."""
    fs = max(0.0, k * x + c * x_dot + BUMP_STOP_FACTOR * k * max(0.0, l_min - l_raw) + f_bar)
    return fs, fs * a
