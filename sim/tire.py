"""Slip and tire forces with the combined friction limit (docs/physics.md §8)."""
from __future__ import annotations

import math

from sim.aero import rolling_resistance
from sim.contact import rolling_arm
from sim.jit import leaf, stage
from sim.tables import NW, W_ALPHA, W_BX, W_CX, W_DFX, W_FRX, W_FTX, W_FX, W_FX_RAW, W_FY, W_FY_RAW, W_FZ, \
    W_GRIP_SCALE, W_GROUNDED, W_KAPPA, W_MU, W_OMEGA, W_QX, W_RHO, W_TX, W_UX, W_VGX, W_VX, W_VY, WP_BX, WP_BY, \
    WP_CA, WP_CK, WP_CX, WP_CY, WP_DXF, WP_DYF, WP_EX, WP_EY, WP_FZ0, WP_LOAD_SENS, WP_MODEL, WP_R, WP_ROLL, \
    WP_VMIN, WS_OMEGA
from sim.vec import add, cross, dot, get3w, scale, set3w, sub

MODEL_LINEAR, MODEL_MAGIC = 0, 1
LOAD_FACTOR_MIN = 0.1      # -: the load factor never drops below this (a sensitivity extrapolated far)
LOAD_RANGE_MAX = 3.0       # -: the sensitivity is not extrapolated past this many nominal loads (as FZMAX)
TIRE_MODELS = {"linear": MODEL_LINEAR, "magic": MODEL_MAGIC}


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
def magic_formula_and_slope(b, c, d, e, s):
    """The Magic Formula and its derivative d/ds, sharing the arc tangents:
    D sin(C atan(phi)) and D cos(C atan(phi)) C / (1 + phi^2) dphi/ds, with phi = B s - E (B s - atan(B s))
    and dphi/ds = B (1 - E + E / (1 + (B s)^2))."""
    bs = b * s
    phi = bs - e * (bs - math.atan(bs))
    angle = c * math.atan(phi)
    return d * math.sin(angle), d * math.cos(angle) * c / (1.0 + phi * phi) * b * (1.0 - e + e / (1.0 + bs * bs))


@leaf
def magic_formula_slope(b, c, d, e, s):
    """d/ds of D sin(C atan(B s - E (B s - atan(B s))))."""
    return magic_formula_and_slope(b, c, d, e, s)[1]


@leaf
def longitudinal_force(model, kappa, ck, bx, cx, dx, ex, mu, fz):
    """(FxRaw (N), dFxRaw/dkappa (N per unit slip)) at kappa: (Ck kappa, Ck) for the linear model, the
    Magic Formula with peak dx mu Fz and its slope."""
    if model == MODEL_MAGIC:
        return magic_formula_and_slope(bx, cx, dx * mu * fz, ex, kappa)
    return ck * kappa, ck


@leaf
def lateral_force(model, alpha, ca, by, cy, dy, ey, mu, fz):
    """FyRaw (N) at slip angle alpha (rad): -Ca alpha, or the Magic Formula with peak dy mu Fz, negated."""
    if model == MODEL_MAGIC:
        return -magic_formula(by, cy, dy * mu * fz, ey, alpha)
    return -ca * alpha


@leaf
def limited_slope(fx_raw, fy_raw, slope_raw, mu, fz):
    """dFx / dkappa after the combined limit: the raw slope while the limit does not cut, otherwise
    mu Fz Fy_raw^2 / |F_raw|^3 times it (the force slides round the friction circle)."""
    mag = math.sqrt(fx_raw * fx_raw + fy_raw * fy_raw)
    if mag <= mu * fz or mag == 0.0:
        return slope_raw
    return mu * fz * fy_raw * fy_raw / (mag * mag * mag) * slope_raw


@leaf
def load_factor(sensitivity, fz0, fz):
    """The peak friction's change with load: 1 + sensitivity (Fz - Fz0) / Fz0, kept above LOAD_FACTOR_MIN
    (tires lose friction coefficient as the load grows: sensitivity < 0). Like a tire file's FZMAX, the
    fit is not extrapolated past LOAD_RANGE_MAX Fz0: a load spike cannot multiply the friction itself."""
    return max(LOAD_FACTOR_MIN, 1.0 + sensitivity * (min(fz, LOAD_RANGE_MAX * fz0) - fz0) / fz0)


@leaf
def raw_force(model, kappa, alpha, ck, ca, bx, cx, dx, ex, by, cy, dy, ey, mu, fz):
    """(FxRaw, FyRaw) in N. Linear: (Ck kappa, -Ca alpha). Magic: D scaled by mu Fz, lateral negated."""
    return (longitudinal_force(model, kappa, ck, bx, cx, dx, ex, mu, fz)[0],
            lateral_force(model, alpha, ca, by, cy, dy, ey, mu, fz))


@leaf
def combined_limit(fx_raw, fy_raw, mu, fz):
    """scale = min(1, mu Fz / |Fraw|) (1 when |Fraw| = 0), applied to both components.

    Returns (Fx, Fy, scale)."""
    mag = math.sqrt(fx_raw * fx_raw + fy_raw * fy_raw)
    s = 1.0
    if mag > 0.0:
        s = min(1.0, mu * fz / mag)
    return fx_raw * s, fy_raw * s, s


@stage
def tire_stage(v, wheel_params, body, wheel_state, wheel_scratch):
    """Contact velocity, slip, raw tire force, combined limit and rolling resistance for each wheel.

    body: the frozen (pos, q, vel, w). Reads the contact columns, W_FZ and W_MU; writes the slip and
    force columns (an airborne wheel gets zero slip and force)."""
    pos, q, vel, w = body
    for i in range(NW):
        omega = wheel_state[v, i, WS_OMEGA]
        wheel_scratch[v, i, W_OMEGA] = omega
        if wheel_scratch[v, i, W_GROUNDED] == 0.0:
            wheel_scratch[v, i, W_VX] = 0.0
            wheel_scratch[v, i, W_VY] = 0.0
            wheel_scratch[v, i, W_KAPPA] = 0.0
            wheel_scratch[v, i, W_ALPHA] = 0.0
            wheel_scratch[v, i, W_FX_RAW] = 0.0
            wheel_scratch[v, i, W_FY_RAW] = 0.0
            wheel_scratch[v, i, W_FX] = 0.0
            wheel_scratch[v, i, W_FY] = 0.0
            wheel_scratch[v, i, W_GRIP_SCALE] = 1.0
            wheel_scratch[v, i, W_DFX] = 0.0
            wheel_scratch[v, i, W_RHO] = wheel_params[v, i, WP_R]
            set3w(wheel_scratch, v, i, W_FTX, (0.0, 0.0, 0.0))
            set3w(wheel_scratch, v, i, W_FRX, (0.0, 0.0, 0.0))
            continue
        qc = get3w(wheel_scratch, v, i, W_QX)
        c = get3w(wheel_scratch, v, i, W_CX)
        u = get3w(wheel_scratch, v, i, W_UX)
        tt = get3w(wheel_scratch, v, i, W_TX)
        bb = get3w(wheel_scratch, v, i, W_BX)
        # body velocity at Q minus ground velocity at Q, on t and b
        v_rel = sub(add(vel, cross(w, sub(qc, pos))), get3w(wheel_scratch, v, i, W_VGX))
        vx = dot(v_rel, tt)
        vy = dot(v_rel, bb)
        rho = rolling_arm(u, qc, c, tt)                                    # rho = -dot(u x (Q - C), t)
        kappa, alpha = slip(rho, omega, vx, vy, wheel_params[v, i, WP_VMIN])   # kappa, alpha with vMin
        fz = wheel_scratch[v, i, W_FZ]
        mu = wheel_scratch[v, i, W_MU] * load_factor(wheel_params[v, i, WP_LOAD_SENS], wheel_params[v, i, WP_FZ0], fz)
        wheel_scratch[v, i, W_MU] = mu                                  # surface x grip x load factor
        model = int(wheel_params[v, i, WP_MODEL])
        fx_raw, slope = longitudinal_force(model, kappa, wheel_params[v, i, WP_CK], wheel_params[v, i, WP_BX],
                                           wheel_params[v, i, WP_CX], wheel_params[v, i, WP_DXF],
                                           wheel_params[v, i, WP_EX], mu, fz)
        fy_raw = lateral_force(model, alpha, wheel_params[v, i, WP_CA], wheel_params[v, i, WP_BY],
                               wheel_params[v, i, WP_CY], wheel_params[v, i, WP_DYF], wheel_params[v, i, WP_EY], mu, fz)
        fx, fy, grip_scale = combined_limit(fx_raw, fy_raw, mu, fz)       # scale = min(1, mu Fz / |Fraw|)
        wheel_scratch[v, i, W_DFX] = limited_slope(fx_raw, fy_raw, slope, mu, fz)   # for the implicit spin
        wheel_scratch[v, i, W_VX] = vx
        wheel_scratch[v, i, W_VY] = vy
        wheel_scratch[v, i, W_RHO] = rho
        wheel_scratch[v, i, W_KAPPA] = kappa
        wheel_scratch[v, i, W_ALPHA] = alpha
        wheel_scratch[v, i, W_FX_RAW] = fx_raw
        wheel_scratch[v, i, W_FY_RAW] = fy_raw
        wheel_scratch[v, i, W_FX] = fx
        wheel_scratch[v, i, W_FY] = fy
        wheel_scratch[v, i, W_GRIP_SCALE] = grip_scale
        set3w(wheel_scratch, v, i, W_FTX, add(scale(tt, fx), scale(bb, fy)))   # Fx t + Fy b
        set3w(wheel_scratch, v, i, W_FRX, rolling_resistance(wheel_params[v, i, WP_ROLL], fz, vx, tt))
