"""Slip and tire forces with the combined friction limit (docs/physics.md §8)."""
from __future__ import annotations

import math

from sim.kernel.aero import rolling_resistance
from sim.kernel.contact import rolling_arm
from sim.kernel.jit import leaf, stage
from sim.kernel.lanes import atan2_4, div4, magic_formula_lanes
from sim.kernel.tables import (
    NW,
    W_ALPHA,
    W_BX,
    W_CX,
    W_DFX,
    W_FRX,
    W_FTX,
    W_FX,
    W_FX_RAW,
    W_FY,
    W_FY_RAW,
    W_FZ,
    W_GRIP_SCALE,
    W_GROUNDED,
    W_INV_V,
    W_KAPPA,
    W_KY,
    W_KY_DEN,
    W_KY_NUM,
    W_MF_DX,
    W_MF_DY,
    W_MF_EX,
    W_MF_EY,
    W_MF_FX,
    W_MF_FY,
    W_MF_SLOPE,
    W_MF_SLOPE_Y,
    W_MU,
    W_NX,
    W_OMEGA,
    W_QX,
    W_RHO,
    W_ROLL_SURF,
    W_TX,
    W_UX,
    W_VGX,
    W_VX,
    W_VY,
    WP_BX,
    WP_BY,
    WP_CA,
    WP_CHAOS_CURVE,
    WP_CK,
    WP_CX,
    WP_CY,
    WP_DXF,
    WP_DYF,
    WP_EX,
    WP_EY,
    WP_FRICTION_ON,
    WP_FZ0,
    WP_LOAD_SENS,
    WP_MODEL,
    WP_NOMPRES,
    WP_PCX1,
    WP_R,
    WP_RELAX,
    WP_ROLL,
    WP_ROLLING_ON,
    WP_SLIP_FORM,
    WP_VMIN,
    WS_FY_LAG,
    WS_OMEGA,
    WS_SX,
    WS_SY,
)
from sim.kernel.vec import add, cross, dot, get3w, scale, set3w, sub

MODEL_LINEAR, MODEL_MAGIC, MODEL_SIMPLE, MODEL_MF96, MODEL_MF61, MODEL_CHAOS, MODEL_AVS = 0, 1, 2, 3, 4, 5, 6
LOAD_FACTOR_MIN = 0.1      # -: the load factor never drops below this (a sensitivity extrapolated far)
LOAD_RANGE_MAX = 3.0       # -: the sensitivity is not extrapolated past this many nominal loads (as FZMAX)
TIRE_MODELS = {"linear": MODEL_LINEAR, "magic": MODEL_MAGIC, "simple": MODEL_SIMPLE, "mf96": MODEL_MF96,
               "mf61": MODEL_MF61, "chaos": MODEL_CHAOS, "avs": MODEL_AVS}
SLIP_REFERENCE, SLIP_FGEAR = 0, 1
SLIP_FORMS = {"reference": SLIP_REFERENCE, "fgear": SLIP_FGEAR}
FGEAR_KAPPA_MAX = 1.0                      # -: FGear's slips are clipped at low speed ...
FGEAR_ALPHA_MAX = math.pi / 4.0            # rad: ... to these
MF_EPS = 1e-9              # N: keeps B = K / (C D) finite at zero load (K and D vanish together)
MF96_SLOPE_STEP = 1e-4     # -: half-width of the central difference of the combined Fx over kappa


@leaf
def slip(rho, omega, vx, vy, v_min):
    """kappa = (rho omega - vx) / max(|vx|, vMin); alpha = atan2(vy, max(|vx|, vMin)).

    rho (m), omega (rad/s), vx, vy (m/s) contact velocity along t and b, v_min (m/s). (The tire stage takes
    its two halves apart: `slip_ratio` per wheel, `slip_angles` for the four wheels at once.)"""
    den = max(abs(vx), v_min)
    return (rho * omega - vx) / den, math.atan2(vy, den)


@leaf
def slip_ratio(rho, omega, vx, v_min):
    """kappa = (rho omega - vx) / max(|vx|, vMin), the first half of `slip` (by the reciprocal, which the
    tire stage keeps for the wheel update: W_INV_V)."""
    return (rho * omega - vx) * (1.0 / max(abs(vx), v_min))


@leaf
def slip_angles(v, wheel_params, wheel_scratch):
    """The second half of `slip` for the four wheels at once (sim/kernel/lanes.py atan2_4): alpha = atan2(vy,
    max(|vx|, vMin)) from W_VX and W_VY (an airborne wheel's are 0, and so its angle)."""
    sc, wp = wheel_scratch, wheel_params
    return atan2_4((sc[v, 0, W_VY], sc[v, 1, W_VY], sc[v, 2, W_VY], sc[v, 3, W_VY]),
                   (max(abs(sc[v, 0, W_VX]), wp[v, 0, WP_VMIN]), max(abs(sc[v, 1, W_VX]), wp[v, 1, WP_VMIN]),
                    max(abs(sc[v, 2, W_VX]), wp[v, 2, WP_VMIN]), max(abs(sc[v, 3, W_VX]), wp[v, 3, WP_VMIN])))


@leaf
def slip_fgear(rho, omega, vx, vy, eps):
    """FGear's slips: kappa = (rho omega - vx) / (|vx| + eps), alpha = atan(vy / (|vx| + eps)), clipped to
    +-FGEAR_KAPPA_MAX and +-FGEAR_ALPHA_MAX (its low-speed guard)."""
    den = abs(vx) + eps
    kappa = min(FGEAR_KAPPA_MAX, max(-FGEAR_KAPPA_MAX, (rho * omega - vx) / den))
    return kappa, min(FGEAR_ALPHA_MAX, max(-FGEAR_ALPHA_MAX, math.atan(vy / den)))


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
    Magic Formula with peak dx mu Fz and its slope (E = 0 for FGear's simple curve)."""
    if model == MODEL_MAGIC:
        return magic_formula_and_slope(bx, cx, dx * mu * fz, ex, kappa)
    if model == MODEL_SIMPLE:
        return magic_formula_and_slope(bx, cx, dx * mu * fz, 0.0, kappa)
    return ck * kappa, ck


@leaf
def lateral_force(model, alpha, ca, by, cy, dy, ey, mu, fz):
    """FyRaw (N) at slip angle alpha (rad): -Ca alpha, or the Magic Formula with peak dy mu Fz, negated
    (E = 0 for FGear's simple curve)."""
    if model == MODEL_MAGIC:
        return -magic_formula(by, cy, dy * mu * fz, ey, alpha)
    if model == MODEL_SIMPLE:
        return -magic_formula(by, cy, dy * mu * fz, 0.0, alpha)
    return -ca * alpha


@leaf
def mf96_coefficients(p, mu, fz, fz0):
    """The 1996-style Magic Formula's (Bx, Cx, Dx, Ex, By, Cy, Dy, Ey) at load fz (docs/models.md). p: the
    MF96_FIELDS values in order; mu scales the peaks only (a tire file's LMUX, LMUY); dfz = (Fz - Fz0) / Fz0
    is not extrapolated past LOAD_RANGE_MAX Fz0 (FZMAX). B = K / (C D): the slip stiffnesses
    Kx = Fz (pkx1 + pkx2 dfz) exp(pkx3 dfz) and Ky = pky1 Fz0 sin(2 atan(Fz / (pky2 Fz0)))."""
    dfz = (min(fz, LOAD_RANGE_MAX * fz0) - fz0) / fz0
    cx = p[0]
    dx = max(LOAD_FACTOR_MIN * p[1], p[1] + p[2] * dfz) * mu * fz
    ex = min(1.0, p[3] + p[4] * dfz)
    kx = fz * (p[5] + p[6] * dfz) * math.exp(p[7] * dfz)
    cy = p[8]
    dy = max(LOAD_FACTOR_MIN * p[9], p[9] + p[10] * dfz) * mu * fz
    ey = min(1.0, p[11] + p[12] * dfz)
    ky = p[13] * fz0 * math.sin(2.0 * math.atan(fz / (p[14] * fz0)))
    return kx / (cx * dx + MF_EPS), cx, dx, ex, ky / (cy * dy + MF_EPS), cy, dy, ey


@leaf
def mf96_pure(kappa, alpha, p, mu, fz, fz0):
    """The pure-slip forces (Fx0, Fy0) in N of the 1996-style Magic Formula, our signs (Fy0 < 0 for
    alpha > 0)."""
    bx, cx, dx, ex, by, cy, dy, ey = mf96_coefficients(p, mu, fz, fz0)
    return magic_formula(bx, cx, dx, ex, kappa), -magic_formula(by, cy, dy, ey, alpha)


@leaf
def mf96_weights(kappa, alpha, p):
    """The combined-slip weights (G_x_alpha, G_y_kappa) of the 1996-style Magic Formula (no shifts):
    G_x_alpha = cos(rcx1 atan(B alpha)), B = rbx1 cos(atan(rbx2 kappa)), and
    G_y_kappa = cos(rcy1 atan(B kappa)), B = rby1 cos(atan(rby2 alpha)); 1 at pure slip."""
    bxa = p[15] * math.cos(math.atan(p[16] * kappa))
    byk = p[18] * math.cos(math.atan(p[19] * alpha))
    return math.cos(p[17] * math.atan(bxa * alpha)), math.cos(p[20] * math.atan(byk * kappa))


@leaf
def mf61_pure(kappa, alpha, p, mu, fz, fz0, sg):
    """The pure-slip forces (Fx0, Fy0) in N of the MF 6.1-style model (docs/models.md): mf96 plus camber
    (sg = sin gamma, + the top leaning to the tire's left) and inflation pressure, our signs. p: the 46
    coefficients MF96_FIELDS + MF61_EXTRA in order."""
    dfz = (min(fz, LOAD_RANGE_MAX * fz0) - fz0) / fz0
    dpi = (p[44] - p[45]) / p[45]
    g2 = sg * sg
    cx = p[0]
    mux = max(LOAD_FACTOR_MIN * p[1], p[1] + p[2] * dfz) * (1.0 + p[26] * dpi + p[27] * dpi * dpi) * \
        max(0.0, 1.0 - p[21] * g2)
    dx = mux * mu * fz
    sign_k = 1.0 if kappa > 0.0 else -1.0 if kappa < 0.0 else 0.0
    ex = min(1.0, (p[3] + p[4] * dfz + p[22] * dfz * dfz) * (1.0 - p[23] * sign_k))
    kx = fz * (p[5] + p[6] * dfz) * math.exp(p[7] * dfz) * (1.0 + p[24] * dpi + p[25] * dpi * dpi)
    fx0 = magic_formula(kx / (cx * dx + MF_EPS), cx, dx, ex, kappa)
    cy = p[8]
    muy = max(LOAD_FACTOR_MIN * p[9], p[9] + p[10] * dfz) * (1.0 + p[39] * dpi + p[40] * dpi * dpi) * \
        max(0.0, 1.0 - p[28] * g2)
    dy = muy * mu * fz
    peak_load = max((p[14] + p[34] * g2) * (1.0 + p[38] * dpi), 1e-6) * fz0
    ky = p[13] * fz0 * (1.0 + p[37] * dpi) * max(0.0, 1.0 - p[32] * abs(sg)) * \
        math.sin(p[33] * math.atan(fz / peak_load))
    k_gamma = fz * (p[35] + p[36] * dfz) * (1.0 + p[41] * dpi)          # camber stiffness (N per rad)
    sv_gamma = fz * (p[42] + p[43] * dfz) * sg * mu                    # camber's vertical shift (N)
    sh = (k_gamma * sg - sv_gamma) / (ky + MF_EPS)                    # ... and horizontal shift (rad)
    alpha_y = alpha - sh                                              # our Fy = -F(alpha): the shift's sign
    sign_a = 1.0 if alpha_y > 0.0 else -1.0 if alpha_y < 0.0 else 0.0
    ey = min(1.0, (p[11] + p[12] * dfz) * (1.0 + p[31] * g2 - (p[29] + p[30] * sg) * sign_a))
    fy0 = -magic_formula(ky / (cy * dy + MF_EPS), cy, dy, ey, alpha_y) + sv_gamma
    return fx0, fy0


@leaf
def mf_pure(model, kappa, alpha, p, mu, fz, fz0, sg):
    """mf61_pure with camber and pressure, or mf96_pure (which has neither)."""
    if model == MODEL_MF61:
        return mf61_pure(kappa, alpha, p, mu, fz, fz0, sg)
    return mf96_pure(kappa, alpha, p, mu, fz, fz0)


@leaf
def mf96_combined_fx(model, kappa, alpha, p, mu, fz, fz0, sg):
    return mf_pure(model, kappa, alpha, p, mu, fz, fz0, sg)[0] * mf96_weights(kappa, alpha, p)[0]


@leaf
def mf96_combined_fy(model, kappa, alpha, p, mu, fz, fz0, sg):
    return mf_pure(model, kappa, alpha, p, mu, fz, fz0, sg)[1] * mf96_weights(kappa, alpha, p)[1]


@leaf
def limited_slope(fx_raw, fy_raw, slope_raw, mu, fz):
    """dFx / dkappa after the combined limit: the raw slope while the limit does not cut, otherwise
    mu Fz Fy_raw^2 / |F_raw|^3 times it (the force slides round the friction circle)."""
    mag = math.sqrt(fx_raw * fx_raw + fy_raw * fy_raw)
    if mag <= mu * fz or mag == 0.0:
        return slope_raw
    return mu * fz * fy_raw * fy_raw / (mag * mag * mag) * slope_raw


@leaf
def lateral_damping(fx_raw, fy_raw, grip_scale, slope_y, vx, vy, v_min):
    """k_y = -dFy/dvy (N s/m, >= 0): how much the limited lateral force falls per m/s of the contact's
    lateral speed vy, at the operating point. Fy_raw = -f(alpha) with f the lateral curve, slope_y = f'(alpha)
    and alpha = atan2(vy, V), V = max(|vx|, vMin), so dFy_raw/dvy = -slope_y V / (V^2 + vy^2); where the
    combined limit cuts (grip_scale s = mu Fz / |F_raw| < 1) it is scaled by mu Fz Fx_raw^2 / |F_raw|^3
    = s Fx_raw^2 / |F_raw|^2 (the force slides round the friction circle). Past the curve's peak the slope is
    negative: 0 (no damping is claimed where the tire gives none). One division."""
    num, den = lateral_damping_terms(fx_raw, fy_raw, grip_scale, slope_y, vx, vy, v_min)
    return max(0.0, num / den)


@leaf
def lateral_damping_terms(fx_raw, fy_raw, grip_scale, slope_y, vx, vy, v_min):
    """`lateral_damping` as (num, den): k_y = max(0, num / den). The tire stage divides the four wheels' at
    once (sim/kernel/lanes.py div4, the same bits)."""
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


@leaf
def relax_keep(length, vx, v_min, h):
    """The share of the old lateral force a substep h keeps, exp(-h / tau) with tau = length / max(|vx|,
    v_min) (seed 001: tau dFy/dt + Fy = Fy_steady, solved exactly over the substep for a steady Fy_steady);
    0 without a relaxation length."""
    if length <= 0.0:
        return 0.0
    return math.exp(-h * max(abs(vx), v_min) / length)


@leaf
def mf96_forces(model, wheel_params, v, i, kappa, alpha, mu, fz, keep, fy_prev, sg):
    """(Fx0, Fy0, Fx, Fy, |F| / |F0|, dFx/dkappa, dFy/dalpha) of the mf96 and mf61 models: the pure-slip
    forces are the raw ones, the combined-slip weighted ones the result (no friction-circle cut: the weights
    are the family's own combined-slip law); the slopes of the combined forces by central differences (for
    the implicit spin update and the body's implicit lateral update; the lateral one scaled by 1 - keep,
    the share the relaxation length lets through this substep). sg: sin of the camber (mf61 only)."""
    p = wheel_params[v, i, WP_PCX1:WP_NOMPRES + 1]
    fz0 = wheel_params[v, i, WP_FZ0]
    fx0, fy0 = mf_pure(model, kappa, alpha, p, mu, fz, fz0, sg)
    if keep > 0.0:
        fy0 = fy0 + (fy_prev - fy0) * keep                 # the relaxation length's lag (raw lateral force)
    gx, gy = mf96_weights(kappa, alpha, p)
    fx, fy = fx0 * gx, fy0 * gy
    raw = math.sqrt(fx0 * fx0 + fy0 * fy0)
    share = math.sqrt(fx * fx + fy * fy) / raw if raw > 0.0 else 1.0
    h = MF96_SLOPE_STEP
    dfx = (mf96_combined_fx(model, kappa + h, alpha, p, mu, fz, fz0, sg) -
           mf96_combined_fx(model, kappa - h, alpha, p, mu, fz, fz0, sg)) / (2.0 * h)
    dfy = (1.0 - keep) * (mf96_combined_fy(model, kappa, alpha + h, p, mu, fz, fz0, sg) -
                          mf96_combined_fy(model, kappa, alpha - h, p, mu, fz, fz0, sg)) / (2.0 * h)
    return fx0, fy0, fx, fy, share, dfx, dfy


@leaf
def curve_inputs(model, lateral_model, wheel_params, v, i, mu, fz):
    """(D, E) of the wheel's longitudinal and lateral Magic Formula curves this substep, D = 0 for a curve
    that is not one (linear, the force-request wheels' longitudinal, mf96 and mf61, which have their own)."""
    dx, ex, dy, ey = 0.0, 0.0, 0.0, 0.0
    if model == MODEL_MAGIC or model == MODEL_SIMPLE:
        dx = wheel_params[v, i, WP_DXF] * mu * fz
        ex = wheel_params[v, i, WP_EX] if model == MODEL_MAGIC else 0.0
    if lateral_model == MODEL_MAGIC or lateral_model == MODEL_SIMPLE:
        dy = wheel_params[v, i, WP_DYF] * mu * fz
        ey = wheel_params[v, i, WP_EY] if lateral_model == MODEL_MAGIC else 0.0
    return dx, ex, dy, ey


@leaf
def lateral_model_of(model, wheel_params, v, i):
    """The model of the wheel's lateral curve: its own, or the Magic Formula's for a chaos tire on the curve."""
    return MODEL_MAGIC if model == MODEL_CHAOS and wheel_params[v, i, WP_CHAOS_CURVE] > 0.5 else model


@leaf
def curves_of_all_wheels(v, wheel_params, wheel_scratch):
    """The four wheels' longitudinal and lateral Magic Formula curves at once (sim/kernel/lanes.py): the forces
    and the longitudinal slope into W_MF_FX, W_MF_SLOPE and W_MF_FY (the lateral D sin(...), before its
    sign). Each lane is the scalar formula's arithmetic; its B and C are the packed ones, D and E those of
    this substep (W_MF_*), s the wheel's kappa or alpha."""
    sc, wp = wheel_scratch, wheel_params
    b = (wp[v, 0, WP_BX], wp[v, 1, WP_BX], wp[v, 2, WP_BX], wp[v, 3, WP_BX],
         wp[v, 0, WP_BY], wp[v, 1, WP_BY], wp[v, 2, WP_BY], wp[v, 3, WP_BY])
    c = (wp[v, 0, WP_CX], wp[v, 1, WP_CX], wp[v, 2, WP_CX], wp[v, 3, WP_CX],
         wp[v, 0, WP_CY], wp[v, 1, WP_CY], wp[v, 2, WP_CY], wp[v, 3, WP_CY])
    d = (sc[v, 0, W_MF_DX], sc[v, 1, W_MF_DX], sc[v, 2, W_MF_DX], sc[v, 3, W_MF_DX],
         sc[v, 0, W_MF_DY], sc[v, 1, W_MF_DY], sc[v, 2, W_MF_DY], sc[v, 3, W_MF_DY])
    e = (sc[v, 0, W_MF_EX], sc[v, 1, W_MF_EX], sc[v, 2, W_MF_EX], sc[v, 3, W_MF_EX],
         sc[v, 0, W_MF_EY], sc[v, 1, W_MF_EY], sc[v, 2, W_MF_EY], sc[v, 3, W_MF_EY])
    s_ = (sc[v, 0, W_KAPPA], sc[v, 1, W_KAPPA], sc[v, 2, W_KAPPA], sc[v, 3, W_KAPPA],
          sc[v, 0, W_ALPHA], sc[v, 1, W_ALPHA], sc[v, 2, W_ALPHA], sc[v, 3, W_ALPHA])
    force, slope = magic_formula_lanes(b, c, d, e, s_)
    for i in range(NW):
        sc[v, i, W_MF_FX] = force[i]
        sc[v, i, W_MF_SLOPE] = slope[i]
        sc[v, i, W_MF_FY] = force[NW + i]
        sc[v, i, W_MF_SLOPE_Y] = slope[NW + i]


@stage
def tire_stage(v, wheel_params, body, wheel_state, wheel_scratch, h):
    """Contact velocity, slip, raw tire force, combined limit and rolling resistance for each wheel.

    body: the frozen (pos, q, vel, w). Reads the contact columns, W_FZ and W_MU; writes the slip and
    force columns (an airborne wheel gets zero slip and force). With a relaxation length the raw lateral
    force lags its steady value (WS_FY_LAG); h: substep (s). In passes: each wheel's contact velocity; the
    four slip angles at once; each wheel's slip ratio and the peak and shape of its curves; the four wheels'
    Magic Formula curves at once (sim/kernel/lanes.py); each wheel's forces."""
    pos, q, vel, w = body
    for i in range(NW):
        omega = wheel_state[v, i, WS_OMEGA]
        wheel_scratch[v, i, W_OMEGA] = omega
        wheel_scratch[v, i, W_MF_DX] = 0.0
        wheel_scratch[v, i, W_MF_EX] = 0.0
        wheel_scratch[v, i, W_MF_DY] = 0.0
        wheel_scratch[v, i, W_MF_EY] = 0.0
        wheel_scratch[v, i, W_KY] = 0.0                               # the factor of W_KY_NUM / W_KY_DEN
        wheel_scratch[v, i, W_KY_NUM] = 0.0
        wheel_scratch[v, i, W_KY_DEN] = 1.0
        if wheel_scratch[v, i, W_GROUNDED] == 0.0:
            wheel_scratch[v, i, W_VX] = 0.0
            wheel_scratch[v, i, W_INV_V] = 1.0 / max(0.0, wheel_params[v, i, WP_VMIN])   # (vx = 0)
            wheel_scratch[v, i, W_VY] = 0.0
            wheel_scratch[v, i, W_KAPPA] = 0.0
            wheel_scratch[v, i, W_ALPHA] = 0.0
            wheel_scratch[v, i, W_FX_RAW] = 0.0
            wheel_scratch[v, i, W_FY_RAW] = 0.0
            wheel_scratch[v, i, W_FX] = 0.0
            wheel_scratch[v, i, W_FY] = 0.0
            wheel_scratch[v, i, W_GRIP_SCALE] = 1.0
            wheel_scratch[v, i, W_DFX] = 0.0
            wheel_state[v, i, WS_FY_LAG] = 0.0
            wheel_state[v, i, WS_SX] = 0.0                              # avs: the slips are the contact's
            wheel_state[v, i, WS_SY] = 0.0
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
        wheel_scratch[v, i, W_VX] = vx
        wheel_scratch[v, i, W_VY] = vy
        wheel_scratch[v, i, W_RHO] = rho
    alphas = slip_angles(v, wheel_params, wheel_scratch)                 # atan2(vy, max(|vx|, vMin)), four at once
    for i in range(NW):
        if wheel_scratch[v, i, W_GROUNDED] == 0.0:
            continue
        vx, vy, rho = wheel_scratch[v, i, W_VX], wheel_scratch[v, i, W_VY], wheel_scratch[v, i, W_RHO]
        omega = wheel_scratch[v, i, W_OMEGA]
        inv_v = 1.0 / max(abs(vx), wheel_params[v, i, WP_VMIN])
        wheel_scratch[v, i, W_INV_V] = inv_v
        if wheel_params[v, i, WP_SLIP_FORM] == SLIP_FGEAR:
            kappa, alpha = slip_fgear(rho, omega, vx, vy, wheel_params[v, i, WP_VMIN])
        else:
            kappa, alpha = (rho * omega - vx) * inv_v, alphas[i]          # slip_ratio, with vMin
        wheel_scratch[v, i, W_KAPPA] = kappa
        wheel_scratch[v, i, W_ALPHA] = alpha
        model = int(wheel_params[v, i, WP_MODEL])
        if model != MODEL_MF96 and model != MODEL_MF61:   # (those two have their own load dependence)
            fz = wheel_scratch[v, i, W_FZ]
            mu = wheel_scratch[v, i, W_MU] * load_factor(wheel_params[v, i, WP_LOAD_SENS], wheel_params[v, i, WP_FZ0],
                                                         fz)
            wheel_scratch[v, i, W_MU] = mu                                  # surface x grip x load factor
            dx, ex, dy, ey = curve_inputs(model, lateral_model_of(model, wheel_params, v, i), wheel_params, v, i, mu,
                                          fz)
            wheel_scratch[v, i, W_MF_DX] = dx
            wheel_scratch[v, i, W_MF_EX] = ex
            wheel_scratch[v, i, W_MF_DY] = dy
            wheel_scratch[v, i, W_MF_EY] = ey
    curves_of_all_wheels(v, wheel_params, wheel_scratch)                 # D sin(C atan(...)), eight at once
    for i in range(NW):
        if wheel_scratch[v, i, W_GROUNDED] == 0.0:
            continue
        tt = get3w(wheel_scratch, v, i, W_TX)
        bb = get3w(wheel_scratch, v, i, W_BX)
        u = get3w(wheel_scratch, v, i, W_UX)
        vx = wheel_scratch[v, i, W_VX]
        kappa = wheel_scratch[v, i, W_KAPPA]
        alpha = wheel_scratch[v, i, W_ALPHA]
        fz = wheel_scratch[v, i, W_FZ]
        mu = wheel_scratch[v, i, W_MU]
        model = int(wheel_params[v, i, WP_MODEL])
        keep = relax_keep(wheel_params[v, i, WP_RELAX], vx, wheel_params[v, i, WP_VMIN], h)
        sg = -dot(u, get3w(wheel_scratch, v, i, W_NX))                  # sin(camber): + the top leans to b
        if model == MODEL_MF96 or model == MODEL_MF61:
            # the family's own load dependence (pdx2, pdy2) and combined-slip weighting; mu = surface x grip
            fx_raw, fy_raw, fx, fy, grip_scale, dfx, dfy = mf96_forces(model, wheel_params, v, i, kappa, alpha, mu,
                                                                       fz, keep, wheel_state[v, i, WS_FY_LAG], sg)
            wheel_scratch[v, i, W_DFX] = dfx
            if wheel_params[v, i, WP_SLIP_FORM] != SLIP_FGEAR:   # for the body's implicit lateral update
                num, den = lateral_damping_terms(fx_raw, fy_raw, 1.0, -dfy, vx, wheel_scratch[v, i, W_VY],
                                                 wheel_params[v, i, WP_VMIN])
                wheel_scratch[v, i, W_KY] = 1.0
                wheel_scratch[v, i, W_KY_NUM] = num
                wheel_scratch[v, i, W_KY_DEN] = den
        else:
            if model == MODEL_MAGIC or model == MODEL_SIMPLE:
                fx_raw, slope = wheel_scratch[v, i, W_MF_FX], wheel_scratch[v, i, W_MF_SLOPE]   # the curve's
            else:
                fx_raw, slope = longitudinal_force(model, kappa, wheel_params[v, i, WP_CK], wheel_params[v, i, WP_BX],
                                                   wheel_params[v, i, WP_CX], wheel_params[v, i, WP_DXF],
                                                   wheel_params[v, i, WP_EX], mu, fz)
            lateral_model = lateral_model_of(model, wheel_params, v, i)
            if lateral_model == MODEL_MAGIC or lateral_model == MODEL_SIMPLE:
                fy_raw = -wheel_scratch[v, i, W_MF_FY]                    # FyRaw = -D sin(C atan(...))
            else:
                fy_raw = lateral_force(lateral_model, alpha, wheel_params[v, i, WP_CA], wheel_params[v, i, WP_BY],
                                       wheel_params[v, i, WP_CY], wheel_params[v, i, WP_DYF],
                                       wheel_params[v, i, WP_EY], mu, fz)
            if keep > 0.0:
                fy_raw = fy_raw + (wheel_state[v, i, WS_FY_LAG] - fy_raw) * keep   # the relaxation length's lag
            if model == MODEL_CHAOS or model == MODEL_AVS:
                # the longitudinal force comes from the wheel's torque (sim/kernel/wheel.py chaos_wheel, avs_wheel),
                # with the combined limit; chaos takes -ca alpha sideways from here
                fx_raw, fx, fy, grip_scale = 0.0, 0.0, fy_raw, 1.0
                wheel_scratch[v, i, W_DFX] = 0.0
            else:
                fx, fy, grip_scale = combined_limit(fx_raw, fy_raw, mu, fz)   # scale = min(1, mu Fz / |Fraw|)
                wheel_scratch[v, i, W_DFX] = limited_slope(fx_raw, fy_raw, slope, mu, fz)   # for the implicit spin
                if wheel_params[v, i, WP_SLIP_FORM] != SLIP_FGEAR:   # for the body's implicit lateral update
                    slope_y = wheel_params[v, i, WP_CA]              # linear: Fy_raw = -Ca alpha
                    if lateral_model == MODEL_MAGIC or lateral_model == MODEL_SIMPLE:
                        slope_y = wheel_scratch[v, i, W_MF_SLOPE_Y]
                    num, den = lateral_damping_terms(fx_raw, fy_raw, grip_scale, slope_y, vx,
                                                     wheel_scratch[v, i, W_VY], wheel_params[v, i, WP_VMIN])
                    wheel_scratch[v, i, W_KY] = 1.0 - keep
                    wheel_scratch[v, i, W_KY_NUM] = num
                    wheel_scratch[v, i, W_KY_DEN] = den
        wheel_scratch[v, i, W_FX_RAW] = fx_raw
        wheel_scratch[v, i, W_FY_RAW] = fy_raw
        wheel_state[v, i, WS_FY_LAG] = fy_raw
        if wheel_params[v, i, WP_FRICTION_ON] == 0.0:       # kill switch: the raw forces stay on show
            fx, fy = 0.0, 0.0
            wheel_scratch[v, i, W_DFX] = 0.0
            wheel_scratch[v, i, W_KY] = 0.0
            wheel_scratch[v, i, W_KY_NUM] = 0.0
            wheel_scratch[v, i, W_KY_DEN] = 1.0
        wheel_scratch[v, i, W_FX] = fx
        wheel_scratch[v, i, W_FY] = fy
        wheel_scratch[v, i, W_GRIP_SCALE] = grip_scale
        set3w(wheel_scratch, v, i, W_FTX, add(scale(tt, fx), scale(bb, fy)))   # Fx t + Fy b
        c_rr = (wheel_params[v, i, WP_ROLL] + wheel_scratch[v, i, W_ROLL_SURF]) * wheel_params[v, i, WP_ROLLING_ON]
        set3w(wheel_scratch, v, i, W_FRX, rolling_resistance(c_rr, fz, vx, tt))
    # k_y = factor x max(0, num / den), the four wheels' divisions at once (an airborne or excluded wheel: 0 x 0)
    k = div4((wheel_scratch[v, 0, W_KY_NUM], wheel_scratch[v, 1, W_KY_NUM], wheel_scratch[v, 2, W_KY_NUM],
              wheel_scratch[v, 3, W_KY_NUM]),
             (wheel_scratch[v, 0, W_KY_DEN], wheel_scratch[v, 1, W_KY_DEN], wheel_scratch[v, 2, W_KY_DEN],
              wheel_scratch[v, 3, W_KY_DEN]))
    wheel_scratch[v, 0, W_KY] = wheel_scratch[v, 0, W_KY] * max(0.0, k[0])
    wheel_scratch[v, 1, W_KY] = wheel_scratch[v, 1, W_KY] * max(0.0, k[1])
    wheel_scratch[v, 2, W_KY] = wheel_scratch[v, 2, W_KY] * max(0.0, k[2])
    wheel_scratch[v, 3, W_KY] = wheel_scratch[v, 3, W_KY] * max(0.0, k[3])
