"""The slips (docs/physics.md §8): the reference definitions kappa = (rho omega - vx) / max(|vx|, vMin) and
alpha = atan2(vy, max(|vx|, vMin)), and FGear's (`tire.slip_form = "fgear"`)."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.lanes import atan2_4
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_VY
from sim.kernel.tables import WP_VMIN

SLIP_REFERENCE, SLIP_FGEAR = 0, 1
SLIP_FORMS = {"reference": SLIP_REFERENCE, "fgear": SLIP_FGEAR}
FGEAR_KAPPA_MAX = 1.0                      # -: FGear's slips are clipped at low speed ...
FGEAR_ALPHA_MAX = math.pi / 4.0            # rad: ... to these


@leaf
def slip(rho, omega, vx, vy, v_min):
    """kappa = (rho omega - vx) / max(|vx|, vMin); alpha = atan2(vy, max(|vx|, vMin)).

    rho (m), omega (rad/s), vx, vy (m/s) contact velocity along t and b, v_min (m/s). (The tire stage takes
    its two halves apart: the slip ratio per wheel by the reciprocal it keeps for the wheel update, W_INV_V,
    and `slip_angles` for the four wheels at once.)"""
    den = max(abs(vx), v_min)
    return (rho * omega - vx) / den, math.atan2(vy, den)


@leaf
def slip_angles(v, wheel_params, wheel_scratch):
    """The second half of `slip` for the four wheels at once (sim/kernel/lanes.py atan2_4): alpha = atan2(vy,
    max(|vx|, vMin)) from W_VX and W_VY (an airborne wheel's are 0, and so its angle)."""
    sc, wp = wheel_scratch, wheel_params
    return atan2_4((sc[v, 0, W_VY], sc[v, 1, W_VY], sc[v, 2, W_VY], sc[v, 3, W_VY]),
                   (max(abs(sc[v, 0, W_VX]), wp[v, 0, WP_VMIN]), max(abs(sc[v, 1, W_VX]), wp[v, 1, WP_VMIN]),
                    max(abs(sc[v, 2, W_VX]), wp[v, 2, WP_VMIN]), max(abs(sc[v, 3, W_VX]), wp[v, 3, WP_VMIN])))


@leaf
def fgear_slip_rate(rho, omega, vx, eps):
    """dkappa / d(rho omega) of FGear's slip (s/m): 1 / (|vx| + eps) inside its clip, 0 past it (`slip_fgear`)."""
    den = abs(vx) + eps
    return 1.0 / den if abs(rho * omega - vx) < FGEAR_KAPPA_MAX * den else 0.0


@leaf
def slip_fgear(rho, omega, vx, vy, eps):
    """FGear's slips: kappa = (rho omega - vx) / (|vx| + eps), alpha = atan(vy / (|vx| + eps)), clipped to
    +-FGEAR_KAPPA_MAX and +-FGEAR_ALPHA_MAX (its low-speed guard)."""
    den = abs(vx) + eps
    kappa = min(FGEAR_KAPPA_MAX, max(-FGEAR_KAPPA_MAX, (rho * omega - vx) / den))
    return kappa, min(FGEAR_ALPHA_MAX, max(-FGEAR_ALPHA_MAX, math.atan(vy / den)))
