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
def linear_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg):
    """The family's forces in the tire stage's form (stage.py): Ck kappa and -Ca alpha (lagged by the
    relaxation length), limited together onto mu Fz."""
    ck, ca = wheel_params[v, i, WP_CK], wheel_params[v, i, WP_CA]
    fy_raw = lagged(-ca * alpha, wheel_state[v, i, WS_FY_LAG], keep)
    return limited_forces(v, i, wheel_params, wheel_scratch, ck * kappa, fy_raw, ck, ca, mu, fz, keep)
