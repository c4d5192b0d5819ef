"""The 1996-style Magic Formula ("mf96", docs/models.md): pure slip with load dependence, combined slip by
the family's own weights (no friction-circle cut), and the combined forces' slopes. Its pure slip with camber
and pressure is mf61.py's; the combined law here serves both."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_VY
from sim.kernel.tables import WP_FZ0
from sim.kernel.tables import WP_NOMPRES
from sim.kernel.tables import WP_PCX1
from sim.kernel.tables import WP_SLIP_FORM
from sim.kernel.tables import WP_VMIN
from sim.kernel.tables import WS_FY_LAG
from sim.kernel.tire import MODEL_MF61
from sim.kernel.tire.limit import LOAD_FACTOR_MIN
from sim.kernel.tire.limit import LOAD_RANGE_MAX
from sim.kernel.tire.limit import lateral_damping_terms
from sim.kernel.tire.magic import MF_EPS
from sim.kernel.tire.magic import magic_formula
from sim.kernel.tire.mf61 import mf61_pure
from sim.kernel.tire.slip import SLIP_FGEAR

MF96_SLOPE_STEP = 1e-4     # -: half-width of the central difference of the combined Fx over kappa


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
def mf_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg):
    """The mf96 and mf61 families' forces in the tire stage's form (stage.py): their own load dependence
    (pdx2, pdy2) and combined-slip weighting, mu = surface x grip; the lateral damping from the combined
    force's slope (reference slips only)."""
    fx_raw, fy_raw, fx, fy, grip_scale, dfx, dfy = mf96_forces(model, wheel_params, v, i, kappa, alpha, mu, fz, keep,
                                                               wheel_state[v, i, WS_FY_LAG], sg)
    ky, num, den = 0.0, 0.0, 1.0
    if wheel_params[v, i, WP_SLIP_FORM] != SLIP_FGEAR:              # for the body's implicit lateral update
        num, den = lateral_damping_terms(fx_raw, fy_raw, 1.0, -dfy, wheel_scratch[v, i, W_VX],
                                         wheel_scratch[v, i, W_VY], wheel_params[v, i, WP_VMIN])
        ky = 1.0
    return fx_raw, fy_raw, fx, fy, grip_scale, dfx, ky, num, den
