"""What the test drives share: the step they run at, a car placed on flat ground or on a course with paint,
the gear for a speed, a driver held for a while, the front wheels' angle, the single-track model's yaw gain,
and a car left to settle and how far it then moves."""
from __future__ import annotations

import math

import numpy as np

from sim.controls import Controls
from sim.lab.driver import Driver
from sim.lab.logs import TelemetryLog
from sim.model.geometry import rest_com_height
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation

DT = 1.0 / 240.0
SUBSTEPS = 2


def on_flat(car: Vehicle, speed: float = 0.0, gear: int | None = None, substeps: int = SUBSTEPS) -> Simulation:
    s = Simulation(car, World.flat(), dt=DT, substeps=substeps)
    kw = {} if gear is None else {"gear": gear}
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=speed, **kw)
    return s


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


def drive_for(s: Simulation, driver: Driver, seconds: float, log: TelemetryLog | None, every=None) -> None:
    """`driver` drives `s` for `seconds` (every step into `log`, if given), or until `every(s)` is true."""
    for _ in range(int(round(seconds / s.dt))):
        c = driver.controls(s)
        s.step(c)
        if log is not None:
            log.add(s, c)
        if every is not None and every(s):
            break


def front_steer_angle(s: Simulation) -> float:
    """Mean road-wheel angle of the front wheels (rad)."""
    st = np.asarray(s.telemetry.steer, dtype=float).reshape(-1, 4)[0]
    return float(0.5 * (st[0] + st[1]))


def bicycle_yaw_gain(car: Vehicle, speed: float) -> float:
    """Steady-state yaw rate per road-wheel angle (1/s) of the single-track model with the linear tires'
    axle cornering stiffnesses C = 2 ca: r / delta = v / (L + K v^2), K = m (b / Cf - a / Cr) / L."""
    m, L = car.chassis.mass, car.wheelbase
    a = car.front_axle.x - car.chassis.com_x
    b = car.chassis.com_x - car.rear_axle.x
    cf, cr = 2.0 * car.front_tire.ca, 2.0 * car.rear_tire.ca
    k = m * (b / cf - a / cr) / L
    return speed / (L + k * speed * speed)


def front_angles(log: TelemetryLog) -> np.ndarray:
    return 0.5 * (log.column("steer FL") + log.column("steer FR"))


def settled(car: Vehicle, world: World, substeps: int = 8, seconds: float = 3.0, controls: Controls | None = None,
            yaw: float = 0.0, dt: float = DT) -> Simulation:
    """A car dropped from its rest height at the origin and left `seconds` to settle with `controls`."""
    s = Simulation(car, world, dt=dt, substeps=substeps)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), yaw=yaw)
    c = controls or Controls()
    for _ in range(int(round(seconds / dt))):
        s.step(c)
    return s


def drift(s: Simulation, seconds: float, controls: Controls | None = None) -> float:
    """Horizontal distance (m) the centre of mass moves in `seconds` with `controls` held."""
    p0 = np.array(s.state.position, dtype=float)
    c = controls or Controls()
    for _ in range(int(round(seconds / s.dt))):
        s.step(c)
    d = np.array(s.state.position) - p0
    return float(math.hypot(d[0], d[1]))
