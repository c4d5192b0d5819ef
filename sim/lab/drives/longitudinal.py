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
from sim.lab.drives.common import DT
from sim.lab.drives.common import SUBSTEPS
from sim.lab.drives.common import drive_for
from sim.lab.drives.common import gear_for
from sim.lab.drives.common import on_flat
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.lab.logs import TelemetryLog
from sim.model.geometry import rest_com_height
from sim.model.geometry import wheel_geometry
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation


def braking(car: Vehicle, v0: float = 100.0 / 3.6, abs_on: bool = True, substeps: int = SUBSTEPS) -> Result:
    """Straight-line braking from v0 with the pedal fully down after 2 s at v0: stopping distance, mean
    deceleration, and the time any wheel was locked (turning under 5 % of its free-rolling speed). The
    distance is measured from the step the brake goes on and scaled by (v0 / v_start)^2 for the few mm/s
    the cruise's speed control misses v0 by."""
    s = on_flat(car, speed=v0, gear=gear_for(car, v0), substeps=substeps)
    log = TelemetryLog(replayable=True)
    drive_for(s, Driver(OpenLoop(lambda t: 0.0), SpeedPI(v0, kp=2.0, ki=1.0)), 2.0, log)
    p0 = np.array(s.state.position[:2], dtype=float)
    v_start = float(np.linalg.norm(s.state.velocity))
    t0 = s.time
    locked = 0
    for _ in range(int(round(30.0 / DT))):
        c = Controls(brake=1.0, abs=abs_on)
        s.step(c)
        log.add(s, c)
        tel = s.telemetry
        v = float(np.linalg.norm(s.state.velocity))
        rolling = np.abs(np.asarray(tel.omega) * np.asarray(tel.rho))
        if v > 1.0 and np.any((rolling < 0.05 * v) & (np.asarray(tel.grounded) > 0.5)):
            locked += 1
        if v < 0.1:
            break
    dist = float(np.linalg.norm(np.asarray(s.state.position[:2]) - p0)) * (v0 / v_start) ** 2
    t_stop = s.time - t0
    mu = car.front_tire.grip * car.front_tire.dx
    ideal = v0 * v0 / (2.0 * mu * G)
    figs = [Figure("stopping distance", dist, "m", None, 1.10 * ideal if abs_on else None,
                   "v^2 / (2 mu_peak g) + 10 %" if abs_on else ""),
            Figure("ideal distance v^2 / (2 mu g)", ideal, "m"),
            Figure("mean deceleration", v_start / t_stop / G if t_stop > 0 else math.nan, "g"),
            Figure("time with a wheel locked", locked * DT, "s")]
    return Result("braking" if abs_on else "braking-no-abs", car.name, figs, log)


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


def launch(car: Vehicle, aids: bool = True, substeps: int = 8, target_kmh: float = 100.0, seconds: float = 20.0,
           log: TelemetryLog | None = None) -> Launch:
    """Full throttle from rest (after 1 s to settle) with ABS and traction control on or off, for at most
    `seconds`: the time to `target_kmh` and the gear changes on the way (every step into `log`, if given)."""
    s = on_flat(car, substeps=substeps)
    drive_for(s, Driver(OpenLoop(lambda t: 0.0)), 1.0, log)
    t0 = s.time
    c = Controls(throttle=1.0, abs=aids, tc=aids)
    out = Launch(math.inf, [(0.0, int(s.state.gear))])
    for _ in range(int(round(seconds / s.dt))):
        s.step(c)
        if log is not None:
            log.add(s, c)
        gear = int(s.state.gear)
        if gear != out.shifts[-1][1]:
            out.shifts.append((s.time - t0, gear))
        if float(np.linalg.norm(s.state.velocity)) * 3.6 >= target_kmh:
            out.seconds = s.time - t0
            break
    return out


def standing_start(car: Vehicle, target_kmh: float = 100.0, aids: bool = True) -> Result:
    """Full throttle from rest (after 1 s to settle), ABS and traction control on: the time to
    `target_kmh`, the gear changes, and the largest driven-wheel slip once moving."""
    log = TelemetryLog(replayable=True)
    run = launch(car, aids, SUBSTEPS, target_kmh, 30.0, log)
    moving = log.column("speed") > 2.0
    slip = max(float(np.max(np.abs(log.column(f"kappa {w}")[moving]))) if moving.any() else 0.0
               for w in ("RL", "RR"))
    return Result("standing-start", car.name, [Figure(f"0-{target_kmh:g} km/h", run.seconds, "s"),
                                               Figure("gear changes", float(len(run.shifts) - 1), "-"),
                                               Figure("largest rear slip once moving", slip, "-")], log)


def coast_down(car: Vehicle, v0: float = 30.0, v1: float = 20.0) -> Result:
    """In neutral on flat ground from v0 to v1 (m/s): the deceleration at the middle speed against the
    resistances, (m g c_rr + 1/2 rho Cd A v^2) / (m + sum Iw / r^2): the wheels' spin inertia slows too."""
    s = on_flat(car, speed=v0, gear=0)
    log = TelemetryLog(replayable=True)
    c = Controls(gear=0)
    for _ in range(int(round(120.0 / DT))):
        s.step(c)
        log.add(s, c)
        if float(np.linalg.norm(s.state.velocity)) < v1:
            break
    v, t = log.column("speed"), log.column("time")
    mid = 0.5 * (v0 + v1)
    near = np.abs(v - mid) < 1.0
    decel = -float(np.polyfit(t[near], v[near], 1)[0]) if near.sum() > 10 else math.nan
    m = car.chassis.mass
    geo = wheel_geometry(car)
    spin = sum(tire.wheel_inertia / r ** 2 for tire, r in zip((car.front_tire, car.front_tire, car.rear_tire,
                                                              car.rear_tire), geo.radius))
    c_rr = 0.5 * (car.front_tire.rolling + car.rear_tire.rolling)
    a = car.aero
    expected = (m * G * c_rr + 0.5 * a.air_density * a.drag_coefficient * a.frontal_area * mid * mid) / (m + spin)
    return Result("coast-down", car.name, [
        Figure(f"deceleration at {mid:g} m/s", decel, "m/s^2", 0.97 * expected, 1.03 * expected,
               "(m g c_rr + drag) / (m + sum Iw / r^2) +- 3 %"),
        Figure("expected", expected, "m/s^2"),
        Figure(f"time {v0:g} -> {v1:g} m/s", float(t[-1] - t[0]), "s")], log)


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
    m = car.chassis.mass
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
