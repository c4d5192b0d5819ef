"""Drives over bumps: the car dropped onto flat ground, and its left wheels over a curb."""
from __future__ import annotations

import math

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.driver import SpeedPI
from sim.lab.drives.common import DT
from sim.lab.drives.common import SUBSTEPS
from sim.lab.drives.common import drive_for
from sim.lab.drives.common import gear_for
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.lab.logs import TelemetryLog
from sim.model.geometry import rest_com_height
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation


def drop(car: Vehicle, height: float = 0.3, seconds: float = 4.0) -> Result:
    """Released level `height` metres above where it rests: the speed the body meets the ground with against
    free fall sqrt(2 g d) (d the fall of the body until the first wheel touches), the largest wheel load
    against its static share, the body's undershoot below its rest height, and the time until it stays
    within 2 mm of rest."""
    z_rest = rest_com_height(car)
    s = Simulation(car, World.flat(), dt=DT, substeps=SUBSTEPS)
    s.reset(position=(0.0, 0.0, z_rest + height))
    log = TelemetryLog(replayable=True)
    z0 = float(s.state.position[2])
    touch_speed = math.nan
    fall = math.nan
    c = Controls()
    for _ in range(int(round(seconds / DT))):
        vz, z_before = float(s.state.velocity[2]), float(s.state.position[2])
        s.step(c)
        log.add(s, c)
        if math.isnan(touch_speed) and np.any(np.asarray(s.telemetry.grounded) > 0.5):
            touch_speed, fall = -vz, z0 - z_before              # the state the step that touched began from
    z, t = log.column("z"), log.column("time")
    z_end = float(np.mean(z[-int(0.5 / DT):]))
    outside = np.flatnonzero(np.abs(z - z_end) > 0.002)
    settle_t = float(t[outside[-1]] - t[0]) if len(outside) else 0.0
    m = car.chassis.mass * G
    static = m / 4.0
    peak = max(float(np.max(log.column(f"Fz {w}"))) for w in ("FL", "FR", "RL", "RR"))
    free = math.sqrt(2.0 * G * fall) if math.isfinite(fall) else math.nan
    return Result("drop", car.name, [
        Figure("speed at the first touch", touch_speed, "m/s", 0.98 * free, 1.02 * free,
               "free fall sqrt(2 g d) +- 2 %"),
        Figure("free fall sqrt(2 g d)", free, "m/s"),
        Figure("largest wheel load / (M g / 4)", peak / static, "-"),
        Figure("undershoot below rest", (z_end - float(np.min(z))) * 1000.0, "mm"),
        Figure("settling time (2 mm)", settle_t, "s")], log)


def curb(car: Vehicle, speed_kmh: float = 30.0, height: float = 0.12) -> Result:
    """The left wheels over a curb: straight at `speed_kmh` across a `height` m step 0.5 m wide laid square
    to the path under the left wheels only. Whether each wheel kept contact, the largest load on the
    front left against its static share, and the largest roll angle (a step under one side tilts the
    body by about atan(height / track) while the springs take it)."""
    from sim.model.world import Box
    from sim.model.world import Surface
    v = speed_kmh / 3.6
    half = car.front_axle.half_track
    world = World("curb", [Surface("asphalt", 1.0, (0.35, 0.35, 0.37)), Surface("curb", 1.0, (0.8, 0.2, 0.2))],
                  planes=World.flat().planes,
                  boxes=[Box("curb", (20.0, half + 0.4, height / 2), (0.5, 1.6, height), name="curb")])
    s = Simulation(car, world, dt=DT, substeps=SUBSTEPS)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=v, gear=gear_for(car, v))
    log = TelemetryLog(replayable=True)
    drive_for(s, Driver(OpenLoop(lambda t: 0.0), SpeedPI(v, kp=0.8, ki=0.4)), 30.0 / v + 2.0, log)
    grounded = [float(np.mean(log.column(f"grounded {w}"))) for w in ("FL", "FR", "RL", "RR")]
    m = car.chassis.mass * G
    b = car.chassis.com_x - car.rear_axle.x
    static_fl = m * b / car.wheelbase / 2
    figs = [Figure(f"time in contact {w}", 100.0 * g, "%") for w, g in zip(("FL", "FR", "RL", "RR"), grounded)]
    figs += [Figure("largest FL load / static", float(np.max(log.column("Fz FL"))) / static_fl, "-"),
             Figure("largest roll", math.degrees(float(np.max(np.abs(log.column("roll"))))), "deg"),
             Figure("atan(height / track)", math.degrees(math.atan(height / (2.0 * half))), "deg")]
    return Result("curb", car.name, figs, log)
