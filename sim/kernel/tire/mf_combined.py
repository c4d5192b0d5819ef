"""The two Magic Formula families' forces in the tire stage (mf96 and mf61, docs/models.md): the pure-slip
forces of either (mf96.py, mf61.py) weighted by mf96's combined-slip law, their slopes by central
differences, and the stage's call `mf_tire`."""
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
from sim.kernel.tire.limit import lateral_damping_terms
from sim.kernel.tire.mf61 import mf61_pure
from sim.kernel.tire.mf96 import mf96_pure
from sim.kernel.tire.mf96 import mf96_weights
from sim.kernel.tire.slip import SLIP_FGEAR

MF96_SLOPE_STEP = 1e-4     # -: half-width of the central difference of the combined Fx over kappa
# sin of the largest camber the mf61 fit is fed: MF-Tyre property files carry the inclination range they were
# measured over ([INCLINATION_ANGLE_RANGE], typically +-15 deg) and the model holds the input to it; past it the
# fit's camber terms extrapolate (a random set's lateral force turned the way the tire slid past 25 deg)
MF61_CAMBER_SIN = math.sin(math.radians(15.0))
# the largest slip ratio the mf96 and mf61 fits are fed: MF-Tyre property files carry the range of kappa they were
# measured over ([LONG_SLIP_RANGE] KPUMIN, KPUMAX, typically -1 and 1) and the model holds the input to it; past it
# a fit's terms extrapolate (random sets pushed the way the wheel spun at kappa 6, a wheel at 7x the road speed)
MF_KAPPA_MAX = 1.0


@leaf
def mf_kappa(kappa):
    """kappa held to the fits' range [-MF_KAPPA_MAX, MF_KAPPA_MAX]."""
    return max(-MF_KAPPA_MAX, min(MF_KAPPA_MAX, kappa))


@leaf
def mf_pure(model, kappa, alpha, p, mu, fz, fz0, sg):
    """mf61_pure with camber (held to +-MF61_CAMBER_SIN) and pressure, or mf96_pure (which has neither)."""
    if model == MODEL_MF61:
        return mf61_pure(kappa, alpha, p, mu, fz, fz0, max(-MF61_CAMBER_SIN, min(MF61_CAMBER_SIN, sg)))
    return mf96_pure(kappa, alpha, p, mu, fz, fz0)


@leaf
def mf96_combined_fx(model, kappa, alpha, p, mu, fz, fz0, sg):
    kappa = mf_kappa(kappa)
    return mf_pure(model, kappa, alpha, p, mu, fz, fz0, sg)[0] * mf96_weights(kappa, alpha, p)[0]


@leaf
def mf96_combined_fy(model, kappa, alpha, p, mu, fz, fz0, sg):
    kappa = mf_kappa(kappa)
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
    fx0, fy0 = mf_pure(model, mf_kappa(kappa), alpha, p, mu, fz, fz0, sg)
    if keep > 0.0:
        fy0 = fy0 + (fy_prev - fy0) * keep                 # the relaxation length's lag (raw lateral force)
    gx, gy = mf96_weights(mf_kappa(kappa), alpha, p)
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
