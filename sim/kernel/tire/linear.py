"""The linear tire ("linear", seed 000's reference): Fx_raw = Ck kappa, Fy_raw = -Ca alpha, then the combined
friction limit (docs/physics.md §8)."""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.tables import WP_CA
from sim.kernel.tables import WP_CK
from sim.kernel.tables import WS_FY_LAG
from sim.kernel.tire.limit import lagged
from sim.kernel.tire.limit import limited_forces


@leaf
def linear_longitudinal(ck, kappa):
    """(Fx_raw (N), dFx_raw/dkappa) = (Ck kappa, Ck)."""
    return ck * kappa, ck


@leaf
def linear_lateral(ca, alpha):
    """Fy_raw (N) = -Ca alpha (alpha in rad)."""
    return -ca * alpha


@leaf
def linear_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg):
    """The family's forces in the tire stage's form (stage.py): Ck kappa and -Ca alpha (lagged by the
    relaxation length), limited together onto mu Fz."""
    ca = wheel_params[v, i, WP_CA]
    fx_raw, slope_x = linear_longitudinal(wheel_params[v, i, WP_CK], kappa)
    fy_raw = lagged(linear_lateral(ca, alpha), wheel_state[v, i, WS_FY_LAG], keep)
    return limited_forces(v, i, wheel_params, wheel_scratch, fx_raw, fy_raw, slope_x, ca, mu, fz, keep)
