"""Drives over bumps: the car dropped onto flat ground, and its left wheels over a curb."""
from __future__ import annotations

import math

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.driver import SpeedPI
from sim.lab.drives.batch import Batch
from sim.lab.drives.batch import batched
from sim.lab.drives.batch import steps_of
from sim.lab.drives.common import DT
from sim.lab.drives.common import gear_for
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.model.geometry import tire_loads
from sim.model.geometry import total_mass
from sim.model.params import Vehicle
from sim.model.world import World


@batched
def drop(cars: list[Vehicle], height: float = 0.3, seconds: float = 4.0) -> list[Result]:
    """Released level `height` metres above where it rests: the speed the body meets the ground with against
    free fall sqrt(2 g d) (d the fall of the body until the first wheel touches), the largest wheel load
    against its static share, the body's undershoot below its rest height, and the time until it stays
    within 2 mm of rest."""
    b = Batch(cars, World.flat(), lift=height, steps=steps_of(seconds))
    z0 = b.position()[:, 2]
    touch_speed = np.full(b.n, math.nan)
    fall = np.full(b.n, math.nan)
    c = Controls()
    for _ in range(int(round(seconds / DT))):
        vz, z_before = b.velocity()[:, 2], b.position()[:, 2]
        b.step(c)
        first = np.isnan(touch_speed) & np.any(b.wheels("grounded") > 0.5, axis=1)
        # the state the step that touched began from
        touch_speed, fall = np.where(first, -vz, touch_speed), np.where(first, z0 - z_before, fall)
    out = []
    for i, (car, log) in enumerate(zip(cars, b.logs())):
        z, t = log.column("z"), log.column("time")
        z_end = float(np.mean(z[-int(0.5 / DT):]))
        outside = np.flatnonzero(np.abs(z - z_end) > 0.002)
        settle_t = float(t[outside[-1]] - t[0]) if len(outside) else 0.0
        static = total_mass(car) * G / 4.0
        peak = max(float(np.max(log.column(f"Fz {w}"))) for w in ("FL", "FR", "RL", "RR"))
        free = math.sqrt(2.0 * G * float(fall[i])) if math.isfinite(fall[i]) else math.nan
        out.append(Result("drop", car.name, [
            Figure("speed at the first touch", float(touch_speed[i]), "m/s", 0.98 * free, 1.02 * free,
                   "free fall sqrt(2 g d) +- 2 %"),
            Figure("free fall sqrt(2 g d)", free, "m/s"),
            Figure("largest wheel load / (M g / 4)", peak / static, "-"),
            Figure("undershoot below rest", (z_end - float(np.min(z))) * 1000.0, "mm"),
            Figure("settling time (2 mm)", settle_t, "s")], log))
    return out


def curb_course(half_track: float, height: float) -> World:
    """Flat ground with a curb `height` m high and 0.5 m wide at x = 20 m, laid under the left wheels of a
    car of front half track `half_track` (m) driving along the x axis."""
    from sim.model.world import Box
    from sim.model.world import Surface
    return World("curb", [Surface("asphalt", 1.0, (0.35, 0.35, 0.37)), Surface("curb", 1.0, (0.8, 0.2, 0.2))],
                 planes=World.flat().planes,
                 boxes=[Box("curb", (20.0, half_track + 0.4, height / 2), (0.5, 1.6, height), name="curb")])


@batched
def curb(cars: list[Vehicle], speed_kmh: float = 30.0, height: float = 0.12) -> list[Result]:
    """The left wheels over a curb: straight at `speed_kmh` across a `height` m step 0.5 m wide laid square
    to the path under the left wheels only. Whether each wheel kept contact, the largest load on the
    front left against its static share, and the largest roll angle (a step under one side tilts the
    body by about atan(height / track) while the springs take it). The curb lies where each car's left
    wheels run: cars of one front track drive as one batch, each track its own."""
    out: list[Result | None] = [None] * len(cars)
    tracks: dict[float, list[int]] = {}
    for i, car in enumerate(cars):
        tracks.setdefault(car.front_axle.half_track, []).append(i)
    for half, idx in tracks.items():
        for i, r in zip(idx, curb_batch([cars[i] for i in idx], half, speed_kmh, height)):
            out[i] = r
    return out


def curb_batch(cars: list[Vehicle], half: float, speed_kmh: float, height: float) -> list[Result]:
    """The curb drive of cars whose front half track is `half` (m)."""
    v = speed_kmh / 3.6
    seconds = 30.0 / v + 2.0
    b = Batch(cars, curb_course(half, height), speed=v, gears=[gear_for(c, v) for c in cars],
              steps=steps_of(seconds))
    b.drive(Driver(OpenLoop(lambda t: 0.0), SpeedPI(v, kp=0.8, ki=0.4)), seconds)
    out = []
    for car, log in zip(cars, b.logs()):
        grounded = [float(np.mean(log.column(f"grounded {w}"))) for w in ("FL", "FR", "RL", "RR")]
        static_fl = float(tire_loads(car, G)[0])
        figs = [Figure(f"time in contact {w}", 100.0 * g, "%") for w, g in zip(("FL", "FR", "RL", "RR"), grounded)]
        figs += [Figure("largest FL load / static", float(np.max(log.column("Fz FL"))) / static_fl, "-"),
                 Figure("largest roll", math.degrees(float(np.max(np.abs(log.column("roll"))))), "deg"),
                 Figure("atan(height / track)", math.degrees(math.atan(height / (2.0 * half))), "deg")]
        out.append(Result("curb", car.name, figs, log))
    return out
