"""What the parameters say about the tires at zero slip and the car's steady cornering: the slip
stiffnesses the stability advisor, the stability control's single-track model and the grip diagnosis use,
and that model's understeer coefficient."""
from __future__ import annotations

import math

import numpy as np

from sim.kernel.tables import MF61_EXTRA
from sim.kernel.tables import MF96_FIELDS
from sim.kernel.tire import TIRE_MODELS
from sim.kernel.tire.limit import load_factor
from sim.kernel.tire.mf_combined import mf_pure
from sim.kernel.units import GRAVITY
from sim.model.geometry import tire_loads
from sim.model.params import Vehicle


def mf_coefficient_block(tire):
    """The kernel's coefficient block of an mf96 or mf61 tire (sim.model.params.Tire): MF96_FIELDS + MF61_EXTRA."""
    return np.array([getattr(tire, n) for n in MF96_FIELDS + MF61_EXTRA])


def slip_stiffnesses(tire, fz: float, surface_mu: float = 1.0) -> tuple[float, float]:
    """(dFx/dkappa, dFy/dalpha) of a tire (sim.model.params.Tire) at zero slip and load fz on a surface of
    friction surface_mu (N, N/rad): the slopes the stability advisor and the stability control's
    single-track model use."""
    mu = surface_mu * tire.grip
    if tire.model in ("mf96", "mf61"):                 # slopes of the pure curves at zero camber
        p, step = mf_coefficient_block(tire), 1e-6
        model = TIRE_MODELS[tire.model]
        fx = mf_pure(model, step, 0.0, p, mu, fz, tire.nominal_load, 0.0)[0]
        fy = mf_pure(model, 0.0, step, p, mu, fz, tire.nominal_load, 0.0)[1]
        return fx / step, -fy / step
    mu *= load_factor(tire.load_sensitivity, tire.nominal_load, fz)
    if tire.model in ("magic", "simple"):
        return tire.bx * tire.cx * tire.dx * mu * fz, tire.by * tire.cy * tire.dy * mu * fz
    return tire.ck, tire.ca


def understeer_coefficient(car: Vehicle, gravity: float = GRAVITY) -> float:
    """K (s^2/m) of the single-track model r = v delta / (L + K v^2): K = m_f / Cf - m_r / Cr with the axles'
    static masses m_f = m b / L, m_r = m a / L of the whole car (its wheels' own mass included,
    sim.model.geometry.tire_loads) and their cornering stiffnesses Cf, Cr = 2 dFy/dalpha at those static loads
    (stability control's model), plus each axle's compliance steer, c (W / g - m_u) per wheel (docs/physics.md
    §7.1). In a weightless world (gravity 0) the tires carry nothing and there is no steady turn: 0."""
    if not gravity > 0.0:
        return 0.0
    loads = tire_loads(car, gravity)
    cf = 2.0 * slip_stiffnesses(car.front_tire, float(loads[0]))[1]
    cr = 2.0 * slip_stiffnesses(car.rear_tire, float(loads[2]))[1]
    k = float(loads[0] + loads[1]) / gravity / max(cf, 1.0) - float(loads[2] + loads[3]) / gravity / max(cr, 1.0)
    return k + compliance_understeer(car, gravity)


def compliance_understeer(car: Vehicle, gravity: float = GRAVITY) -> float:
    """What the axles' compliance steer adds to K (s^2/m, docs/physics.md §7.1): each wheel turns by c times its
    side force less its own mass's, c (W / g - m_u) per unit of lateral acceleration, out of the turn at the front
    and into it at the rear (both + understeer). Weightless (gravity 0): no side force, 0."""
    if not gravity > 0.0:
        return 0.0
    loads = tire_loads(car, gravity)
    k = 0.0
    for i, sus in ((0, car.front_suspension), (2, car.rear_suspension)):
        if sus.compliance_steer != 0.0:
            k += math.radians(sus.compliance_steer) / 1000.0 * (float(loads[i]) / gravity - sus.unsprung_mass)
    return k
