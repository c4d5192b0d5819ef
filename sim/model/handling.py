"""What the parameters say about the tires at zero slip and the car's steady cornering: the slip
stiffnesses the stability advisor, the stability control's single-track model and the grip diagnosis use,
and that model's understeer coefficient."""
from __future__ import annotations

import numpy as np

from sim.kernel.tables import MF61_EXTRA
from sim.kernel.tables import MF96_FIELDS
from sim.kernel.tire import TIRE_MODELS
from sim.kernel.tire.limit import load_factor
from sim.kernel.tire.mf_combined import mf_pure
from sim.kernel.units import GRAVITY
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
    """K (s^2/m) of the single-track model r = v delta / (L + K v^2): K = m (b / Cf - a / Cr) / L with the
    axles' cornering stiffnesses Cf, Cr = 2 dFy/dalpha at their static loads (stability control's model)."""
    m, L = car.chassis.mass, car.front_axle.x - car.rear_axle.x
    a = car.front_axle.x - car.chassis.com_x
    b = car.chassis.com_x - car.rear_axle.x
    cf = 2.0 * slip_stiffnesses(car.front_tire, m * gravity * b / L / 2.0)[1]
    cr = 2.0 * slip_stiffnesses(car.rear_tire, m * gravity * a / L / 2.0)[1]
    return m * (b / max(cf, 1.0) - a / max(cr, 1.0)) / L
