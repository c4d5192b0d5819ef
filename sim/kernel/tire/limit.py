"""What every family shares once its raw forces are known: the load sensitivity of the peak friction,
the combined friction limit (scale both components onto mu Fz) and what it does to the slopes the implicit
wheel and body updates use, and the relaxation length's lag of the lateral force (docs/physics.md §8)."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_VY
from sim.kernel.tables import WP_CA_LOAD
from sim.kernel.tables import WP_RELAX
from sim.kernel.tables import WP_SLIP_FORM
from sim.kernel.tables import WP_VMIN
from sim.kernel.tables import WS_FY_LAG
from sim.kernel.tire.slip import SLIP_FGEAR

LOAD_FACTOR_MIN = 0.1      # -: the load factor never drops below this (a sensitivity extrapolated far)
LOAD_RANGE_MAX = 3.0       # -: the sensitivity is not extrapolated past this many nominal loads (as FZMAX)


@leaf
def limited_slope(fx_raw, fy_raw, slope_raw, mu, fz):
    """dFx / dkappa after the combined limit: the raw slope while the limit does not cut, otherwise
    mu Fz Fy_raw^2 / |F_raw|^3 times it (the force slides round the friction circle)."""
    mag = math.sqrt(fx_raw * fx_raw + fy_raw * fy_raw)
    if mag <= mu * fz or mag == 0.0:
        return slope_raw
    return mu * fz * fy_raw * fy_raw / (mag * mag * mag) * slope_raw


@leaf
def lateral_damping_terms(fx_raw, fy_raw, grip_scale, slope_y, vx, vy, v_min):
    """k_y = -dFy/dvy (N s/m, >= 0) as (num, den), k_y = max(0, num / den): how much the limited lateral force
    falls per m/s of the contact's lateral speed vy, at the operating point. Fy_raw = -f(alpha) with f the
    lateral curve, slope_y = f'(alpha) and alpha = atan2(vy, V), V = max(|vx|, vMin), so dFy_raw/dvy =
    -slope_y V / (V^2 + vy^2); where the combined limit cuts (grip_scale s = mu Fz / |F_raw| < 1) it is scaled
    by mu Fz Fx_raw^2 / |F_raw|^3 = s Fx_raw^2 / |F_raw|^2 (the force slides round the friction circle). Past
    the curve's peak the slope is negative: 0 (no damping is claimed where the tire gives none). The tire
    stage divides the four wheels' at once (sim/kernel/lanes.py div4)."""
    big_v = max(abs(vx), v_min)
    num = slope_y * big_v
    den = big_v * big_v + vy * vy
    if grip_scale < 1.0:
        num = num * grip_scale * fx_raw * fx_raw
        den = den * (fx_raw * fx_raw + fy_raw * fy_raw)
    return num, den


@leaf
def load_factor(sensitivity, fz0, fz):
    """The peak friction's change with load: 1 + sensitivity (Fz - Fz0) / Fz0, kept above LOAD_FACTOR_MIN
    (tires lose friction coefficient as the load grows: sensitivity < 0). Like a tire file's FZMAX, the
    fit is not extrapolated past LOAD_RANGE_MAX Fz0: a load spike cannot multiply the friction itself."""
    return max(LOAD_FACTOR_MIN, 1.0 + sensitivity * (min(fz, LOAD_RANGE_MAX * fz0) - fz0) / fz0)


@leaf
def combined_limit(fx_raw, fy_raw, mu, fz):
    """scale = min(1, mu Fz / |Fraw|) (1 when |Fraw| = 0), applied to both components.

    Returns (Fx, Fy, scale)."""
    mag = math.sqrt(fx_raw * fx_raw + fy_raw * fy_raw)
    s = 1.0
    if mag > 0.0:
        s = min(1.0, mu * fz / mag)
    return fx_raw * s, fy_raw * s, s


@leaf
def relax_keep(length, vx, vy, v_min, h, along_vx, fy_held):
    """The share of the old lateral force a substep h keeps, exp(-h / tau) with tau = length / max(speed,
    v_min), speed the contact patch's over the ground sqrt(vx^2 + vy^2) (the carcass relaxes over the distance
    the patch travels, sideways too), or with along_vx seed 001's literal |vx| (tau dFy/dt + Fy = Fy_steady,
    solved exactly over the substep for a steady Fy_steady) while the held force fy_held opposes the patch's
    sideways speed vy: pushing the way it slides, a force held at |vx| near a standstill drove the car along
    (a random set's 200 kN, 76 kJ), so it relaxes at the patch's speed then (docs/models.md); 0 without a
    relaxation length."""
    if length <= 0.0:
        return 0.0
    speed = abs(vx) if along_vx and fy_held * vy <= 0.0 else math.sqrt(vx * vx + vy * vy)
    return math.exp(-h * max(speed, v_min) / length)

@leaf
def unwound(v, i, wheel_params, wheel_state, vy, fz, h):
    """The held lateral force (WS_FY_LAG, a carcass deflected sideways) unwound by the patch's own slide before the
    substep's lag: while it pushes the way the patch slides (F vy > 0) its magnitude falls by k_y |vy| h, k_y =
    C_alpha / lambda the carcass' lateral stiffness (C_alpha per N of load times fz), never past 0. Pacejka's
    deflection form, dF/dt = -k_y vy - (|vx| / lambda) F, of which the lag toward the steady force keeps the second
    term but loses the first where that force is friction-limited or vx is near 0: there a held force pushed the
    way the patch slid over lambda of travel (docs/physics.md §14 item 35). Nothing without a relaxation length."""
    length = wheel_params[v, i, WP_RELAX]
    held = wheel_state[v, i, WS_FY_LAG]
    if length > 0.0 and held * vy > 0.0:
        drop = wheel_params[v, i, WP_CA_LOAD] * fz / length * abs(vy) * h
        wheel_state[v, i, WS_FY_LAG] = math.copysign(max(0.0, abs(held) - drop), held)


@leaf
def lagged(fy_raw, fy_prev, keep):
    """The relaxation length's lag of the raw lateral force: fy_raw + (fy_prev - fy_raw) keep, with keep the
    share of the old force a substep keeps (`relax_keep`; 0 without a relaxation length)."""
    if keep > 0.0:
        return fy_raw + (fy_prev - fy_raw) * keep
    return fy_raw


@leaf
def limited_forces(v, i, wheel_params, wheel_scratch, fx_raw, fy_raw, slope_x, slope_y, mu, fz, keep):
    """A curve family's raw forces through the combined limit, in the tire stage's form (stage.py): (Fx_raw,
    Fy_raw, Fx, Fy, grip scale, dFx/dkappa after the limit, and the lateral damping k_y = factor x max(0, num
    / den) as (factor, num, den)). slope_x = dFx_raw/dkappa, slope_y = the lateral curve's slope; the damping
    is claimed with the reference slips only (FGear's are clipped), scaled by 1 - keep (the relaxation
    length's share)."""
    fx, fy, grip_scale = combined_limit(fx_raw, fy_raw, mu, fz)      # scale = min(1, mu Fz / |Fraw|)
    dfx = limited_slope(fx_raw, fy_raw, slope_x, mu, fz)             # for the implicit spin update
    ky, num, den = 0.0, 0.0, 1.0
    if wheel_params[v, i, WP_SLIP_FORM] != SLIP_FGEAR:              # for the body's implicit lateral update
        num, den = lateral_damping_terms(fx_raw, fy_raw, grip_scale, slope_y, wheel_scratch[v, i, W_VX],
                                         wheel_scratch[v, i, W_VY], wheel_params[v, i, WP_VMIN])
        ky = 1.0 - keep
    return fx_raw, fy_raw, fx, fy, grip_scale, dfx, ky, num, den
