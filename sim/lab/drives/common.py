"""What the test drives share: the step they run at, cars placed on flat ground or a course with paint, the
gear for a speed, the front wheels' angle, the single-track model's yaw gain, and cars left to settle and how
far a car then moves. (Cars driven together: batch.py.)"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sim.controls import Controls
from sim.lab.drives.batch import DT
from sim.lab.drives.batch import SUBSTEPS
from sim.lab.drives.batch import Batch
from sim.lab.logs import TelemetryLog
from sim.model.geometry import tire_loads
from sim.model.handling import compliance_understeer
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation


def on_flat(car: Vehicle | Sequence[Vehicle], speed: float = 0.0, gear: int | None = None,
            substeps: int = SUBSTEPS) -> Simulation:
    """The car (or cars) on flat ground at the origin at `speed` (m/s) in `gear` (None: the reset's)."""
    n = 1 if isinstance(car, Vehicle) else len(car)
    return Batch(car, World.flat(), substeps, speed, None if gear is None else [gear] * n, log=False).sim


def course(name: str, markings=()) -> World:
    """Flat ground (as World.flat()) with paint that shows the course in the app (drawing only)."""
    flat = World.flat()
    return World(name, flat.surfaces, planes=flat.planes, markings=markings)


def circle_course(radius: float) -> World:
    from sim.model.world import Marking
    return course(f"circle of {radius:g} m", [Marking("circle", (0.0, radius), radius, width=0.15)])


def gear_for(car: Vehicle, speed: float) -> int:
    """The highest gear whose engine speed at `speed` stays above the automatic's downshift speed."""
    if car.drive.mode != "engine":
        return 1
    g = car.gearbox
    omega_w = speed / car.rear_tire.radius
    for gear in range(len(g.ratios), 0, -1):
        if omega_w * g.ratios[gear - 1] * g.final_drive * 60.0 / (2.0 * math.pi) > g.shift_down_rpm + 500.0:
            return gear
    return 1


def bicycle_yaw_gain(car: Vehicle, speed: float) -> float:
    """Steady-state yaw rate per road-wheel angle (1/s) of the single-track model with the linear tires'
    axle cornering stiffnesses C = 2 ca: r / delta = v / (L + K v^2), K = m_f / Cf - m_r / Cr, the axles'
    static masses m_f = m b / L and m_r = m a / L of the whole car (its wheels' own mass included), plus the
    axles' compliance steer (sim.model.handling.compliance_understeer)."""
    L = car.wheelbase
    mass = tire_loads(car, gravity=1.0)                  # kg per wheel
    m_f, m_r = mass[0] + mass[1], mass[2] + mass[3]
    cf, cr = 2.0 * car.front_tire.ca, 2.0 * car.rear_tire.ca
    k = m_f / cf - m_r / cr + compliance_understeer(car)
    return speed / (L + k * speed * speed)


def front_angles(log: TelemetryLog) -> np.ndarray:
    return 0.5 * (log.column("steer FL") + log.column("steer FR"))


def settled(car: Vehicle | Sequence[Vehicle], world: World, substeps: int = 8, seconds: float = 3.0,
            controls: Controls | None = None, yaw: float = 0.0, dt: float = DT) -> Simulation:
    """A car (or cars) dropped from its rest height at the origin and left `seconds` to settle with
    `controls`."""
    b = Batch(car, world, substeps, yaw=yaw, dt=dt, log=False)
    b.drive(controls or Controls(), seconds, log=False)
    return b.sim


def drift(s: Simulation, seconds: float, controls: Controls | None = None) -> float:
    """Horizontal distance (m) the centre of mass moves in `seconds` with `controls` held."""
    p0 = np.array(s.state.position, dtype=float)
    c = controls or Controls()
    for _ in range(int(round(seconds / s.dt))):
        s.step(c)
    d = np.array(s.state.position) - p0
    return float(math.hypot(d[0], d[1]))
