"""Slip and tire forces with the combined friction limit (spec 000: 原始力与联合附着)."""
from __future__ import annotations

import math

from sim.jit import leaf

MODEL_LINEAR, MODEL_MAGIC = 0, 1


@leaf
def slip(rho, omega, vx, vy, v_min):
    """kappa = (rho omega - vx) / max(|vx|, vMin); alpha = atan2(vy, max(|vx|, vMin)).

    rho (m), omega (rad/s), vx, vy (m/s) contact velocity along t and b, v_min (m/s)."""
    den = max(abs(vx), v_min)
    return (rho * omega - vx) / den, math.atan2(vy, den)


@leaf
def magic_formula(b, c, d, e, s):
    """D sin(C atan(B s - E (B s - atan(B s))))."""
    bs = b * s
    return d * math.sin(c * math.atan(bs - e * (bs - math.atan(bs))))


@leaf
def raw_force(model, kappa, alpha, ck, ca, bx, cx, dx, ex, by, cy, dy, ey, mu, fz):
    """(FxRaw, FyRaw) in N. Linear: (Ck kappa, -Ca alpha). Magic: D scaled by mu Fz, lateral negated."""
    if model == MODEL_MAGIC:
        return (magic_formula(bx, cx, dx * mu * fz, ex, kappa),
                -magic_formula(by, cy, dy * mu * fz, ey, alpha))
    return ck * kappa, -ca * alpha


@leaf
def combined_limit(fx_raw, fy_raw, mu, fz):
    """scale = min(1, mu Fz / |Fraw|) (1 when |Fraw| = 0), applied to both components.

    Returns (Fx, Fy, scale)."""
    mag = math.sqrt(fx_raw * fx_raw + fy_raw * fy_raw)
    s = 1.0
    if mag > 0.0:
        s = min(1.0, mu * fz / mag)
    return fx_raw * s, fy_raw * s, s
