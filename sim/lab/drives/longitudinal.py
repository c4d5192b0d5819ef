"""Drives along a straight line: braking (with and without ABS), the standing start with its gear changes,
the coast-down and the free roll down a slope against the resistances, and the wheels at walking pace (that
their slip does not chatter)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.driver import SpeedPI
from sim.lab.drives.batch import Batch
from sim.lab.drives.batch import batched
from sim.lab.drives.batch import norm
from sim.lab.drives.batch import steps_of
from sim.lab.drives.common import DT
from sim.lab.drives.common import SUBSTEPS
from sim.lab.drives.common import gear_for
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.model.geometry import rest_com_height
from sim.model.geometry import total_mass
from sim.model.geometry import wheel_geometry
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation


@batched
def braking(cars: list[Vehicle], v0: float = 100.0 / 3.6, abs_on: bool = True,
            substeps: int = SUBSTEPS) -> list[Result]:
    """Straight-line braking from v0 with the pedal fully down after 2 s at v0: stopping distance, mean
    deceleration, and the time any wheel was locked (turning under 5 % of its free-rolling speed). The
    distance is measured from the step the brake goes on and scaled by (v0 / v_start)^2 for the few mm/s
    the cruise's speed control misses v0 by."""
    b = Batch(cars, World.flat(), substeps, v0, [gear_for(c, v0) for c in cars], steps=steps_of(8.0))
    b.drive(Driver(OpenLoop(lambda t: 0.0), SpeedPI(v0, kp=2.0, ki=1.0)), 2.0)
    p0 = b.position()[:, :2]
    v_start = b.speed()
    t0 = b.sim.time
    locked = np.zeros(b.n, dtype=int)
    p_stop, t_stop = p0.copy(), np.zeros(b.n)
    c = Controls(brake=1.0, abs=abs_on)
    for _ in range(int(round(30.0 / DT))):
        if not b.active.any():
            break
        b.step(c)
        v = b.speed()
        rolling = np.abs(b.wheels("omega") * b.wheels("rho"))
        locking = np.any((rolling < 0.05 * v[:, None]) & (b.wheels("grounded") > 0.5), axis=1)
        locked += b.active & (v > 1.0) & locking
        ending = b.active & (v < 0.1)
        p_stop[ending], t_stop[ending] = b.position()[ending, :2], b.sim.time - t0
        b.finish(ending)
    p_stop[b.active], t_stop[b.active] = b.position()[b.active, :2], b.sim.time - t0   # never stopped
    dist = norm(p_stop - p0) * (v0 / v_start) ** 2
    out = []
    for i, (car, log) in enumerate(zip(cars, b.logs())):
        mu = car.front_tire.grip * car.front_tire.dx
        ideal = v0 * v0 / (2.0 * mu * G)
        t = float(t_stop[i])
        figs = [Figure("stopping distance", float(dist[i]), "m", None, 1.10 * ideal if abs_on else None,
                       "v^2 / (2 mu_peak g) + 10 %" if abs_on else ""),
                Figure("ideal distance v^2 / (2 mu g)", ideal, "m"),
                Figure("mean deceleration", float(v_start[i]) / t / G if t > 0 else math.nan, "g"),
                Figure("time with a wheel locked", int(locked[i]) * DT, "s")]
        out.append(Result("braking" if abs_on else "braking-no-abs", car.name, figs, log))
    return out


def braking_distance(car: Vehicle, v0: float = 26.8, abs_on: bool = True, substeps: int = 8) -> float:
    """The braking drive's stopping distance (m) from v0 (m/s)."""
    return braking(car, v0, abs_on, substeps).value("stopping distance")


@dataclass
class Launch:
    seconds: float                                  # 0 to the target speed (inf when not reached)
    shifts: list[tuple[float, int]] = field(default_factory=list)   # (time, new gear), the first the start's

    @property
    def upshifts_per_gear(self) -> int:
        ups = [g for (_, g), (_, prev) in zip(self.shifts[1:], self.shifts) if g > prev]
        return max((ups.count(g) for g in set(ups)), default=0)

    @property
    def downshifts(self) -> int:
        return sum(1 for (_, g), (_, prev) in zip(self.shifts[1:], self.shifts) if g < prev)


def launches(b: Batch, aids: bool = True, target_kmh: float = 100.0, seconds: float = 20.0) -> list[Launch]:
    """The batch's cars at full throttle from rest (after 1 s to settle) with ABS and traction control on or
    off, each until it reaches `target_kmh` or for at most `seconds`: the time to it and the gear changes on
    the way."""
    b.drive(Driver(OpenLoop(lambda t: 0.0)), 1.0)
    t0 = b.sim.time
    c = Controls(throttle=1.0, abs=aids, tc=aids)
    last = b.gear()
    out = [Launch(math.inf, [(0.0, int(g))]) for g in last]
    for _ in range(int(round(seconds / b.sim.dt))):
        if not b.active.any():
            break
        b.step(c)
        gear = b.gear()
        for i in np.flatnonzero(b.active & (gear != last)):
            out[i].shifts.append((b.sim.time - t0, int(gear[i])))
        last = np.where(b.active, gear, last)
        there = b.active & (b.speed() * 3.6 >= target_kmh)
        for i in np.flatnonzero(there):
            out[i].seconds = b.sim.time - t0
        b.finish(there)
    return out


@batched
def launch(cars: list[Vehicle], aids: bool = True, substeps: int = 8, target_kmh: float = 100.0,
           seconds: float = 20.0) -> list[Launch]:
    """Full throttle from rest (after 1 s to settle) with ABS and traction control on or off, for at most
    `seconds`: the time to `target_kmh` and the gear changes on the way."""
    return launches(Batch(cars, World.flat(), substeps, log=False), aids, target_kmh, seconds)


@batched
def standing_start(cars: list[Vehicle], target_kmh: float = 100.0, aids: bool = True) -> list[Result]:
    """Full throttle from rest (after 1 s to settle), ABS and traction control on: the time to
    `target_kmh`, the gear changes, and the largest driven-wheel slip once moving."""
    b = Batch(cars, World.flat(), SUBSTEPS, steps=steps_of(12.0))
    runs = launches(b, aids, target_kmh, 30.0)
    out = []
    for car, run, log in zip(cars, runs, b.logs()):
        moving = log.column("speed") > 2.0
        slip = max(float(np.max(np.abs(log.column(f"kappa {w}")[moving]))) if moving.any() else 0.0
                   for w in ("RL", "RR"))
        out.append(Result("standing-start", car.name, [Figure(f"0-{target_kmh:g} km/h", run.seconds, "s"),
                                                       Figure("gear changes", float(len(run.shifts) - 1), "-"),
                                                       Figure("largest rear slip once moving", slip, "-")], log))
    return out


@batched
def coast_down(cars: list[Vehicle], v0: float = 30.0, v1: float = 20.0) -> list[Result]:
    """In neutral on flat ground from v0 to v1 (m/s): the deceleration at the middle speed against the
    resistances, (m g c_rr + 1/2 rho Cd A v^2) / (m + sum Iw / r^2): the wheels' spin inertia slows too."""
    b = Batch(cars, World.flat(), SUBSTEPS, v0, [0] * len(cars), steps=steps_of(30.0))
    b.drive(Controls(gear=0), 120.0, until=lambda s: b.speed() < v1)
    mid = 0.5 * (v0 + v1)
    out = []
    for car, log in zip(cars, b.logs()):
        v, t = log.column("speed"), log.column("time")
        near = np.abs(v - mid) < 1.0
        decel = -float(np.polyfit(t[near], v[near], 1)[0]) if near.sum() > 10 else math.nan
        m = total_mass(car)
        geo = wheel_geometry(car)
        spin = sum(tire.wheel_inertia / r ** 2 for tire, r in zip((car.front_tire, car.front_tire, car.rear_tire,
                                                                  car.rear_tire), geo.radius))
        c_rr = 0.5 * (car.front_tire.rolling + car.rear_tire.rolling)
        a = car.aero
        expected = (m * G * c_rr + 0.5 * a.air_density * a.drag_coefficient * a.frontal_area * mid * mid) / (m + spin)
        out.append(Result("coast-down", car.name, [
            Figure(f"deceleration at {mid:g} m/s", decel, "m/s^2", 0.97 * expected, 1.03 * expected,
                   "(m g c_rr + drag) / (m + sum Iw / r^2) +- 3 %"),
            Figure("expected", expected, "m/s^2"),
            Figure(f"time {v0:g} -> {v1:g} m/s", float(t[-1] - t[0]), "s")], log))
    return out


def neutral_roll(car: Vehicle, slope_deg: float = 5.0, substeps: int = 8) -> tuple[float, float]:
    """Released in neutral, no brake, facing up a slope: (measured, expected) acceleration down the slope
    (m/s^2), measured between 3 and 8 m/s (where rolling resistance has its full size). Expected:
    (m g sin(theta) - mu_r m g cos(theta) - 1/2 rho Cd A <v^2>) / (m + sum Iw / r^2): the wheels' spin
    inertia is part of what gravity accelerates; drag at the window's mean v^2."""
    s = Simulation(car, World.flat(slope_deg=slope_deg), dt=DT, substeps=substeps)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), gear=0)
    c = Controls(gear=0)
    times, speeds = [], []
    for _ in range(int(60.0 / DT)):
        s.step(c)
        v = float(np.linalg.norm(s.state.velocity))
        if 3.0 <= v <= 8.0:
            times.append(s.time)
            speeds.append(v)
        if v > 8.0:
            break
    measured = float(np.polyfit(times, speeds, 1)[0]) if len(times) > 10 else 0.0
    th = math.radians(slope_deg)
    m = total_mass(car)
    geometry = wheel_geometry(car)
    tires = (car.front_tire, car.front_tire, car.rear_tire, car.rear_tire)
    spin = sum(t.wheel_inertia / r ** 2 for t, r in zip(tires, geometry.radius))
    mu_r = (car.front_tire.rolling + car.rear_tire.rolling) / 2.0   # both presets use one value
    drag = 0.5 * car.aero.air_density * car.aero.drag_coefficient * car.aero.frontal_area * \
        float(np.mean(np.square(speeds))) if speeds else 0.0
    expected = (m * G * math.sin(th) - mu_r * m * G * math.cos(th) - drag) / (m + spin)
    return measured, expected


def kappa_sign_flips(car: Vehicle, speed: float = 1.4, substeps: int = 2, seconds: float = 5.0) -> int:
    """At walking pace on flat ground with a light throttle: how many times any wheel's slip changes sign
    from one substep to the next (each substep is stepped on its own to see it). The stability advisor is
    not asked: this is how an unstable wheel update is seen."""
    h = DT / substeps
    s = Simulation(car, World.flat(), dt=h, substeps=1, check_stability=False, watchdog=False)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=speed)
    c = Controls(throttle=0.05)
    for _ in range(int(round(1.0 / h))):
        s.step(c)
    prev = np.array(s.telemetry.kappa, dtype=float)
    flips = 0
    for _ in range(int(round(seconds / h))):
        s.step(c)
        k = np.array(s.telemetry.kappa, dtype=float)
        flips += int(np.sum((np.sign(k) * np.sign(prev) < 0) & (np.abs(k) > 1e-6) & (np.abs(prev) > 1e-6)))
        prev = k
    return flips
