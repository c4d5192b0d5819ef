"""Standard test drives, driven by the driver model (sim/lab/driver.py), each reporting the numbers it exists
for and its telemetry log (sim/lab/logs.py):

    settle      the car left on flat ground: each wheel's load against M g b / L / 2, and the sag
    step-steer  ISO 7401 step steer at a speed: steady yaw-rate gain, response time, overshoot
    circle      ISO 4138 constant radius with a slowly rising speed: lateral limit, understeer, roll and
                body-slip gradients
    braking     full braking from 100 km/h with ABS on; braking-no-abs the same with ABS off: distance,
                mean deceleration, time with a wheel locked

`run(name, car)` gives a Result; `compare(a, b)` puts two side by side with their difference (the same
drive before and after a tuning change). `python -m sim.lab.drives` and `contactpatch test` run them from
the command line.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.driver import PathFollower
from sim.lab.driver import SpeedPI
from sim.lab.logs import TelemetryLog
from sim.lab.logs import write_parquet
from sim.model.checks import with_value
from sim.model.files import ConfigError
from sim.model.geometry import rest_com_height
from sim.model.geometry import wheel_geometry
from sim.model.params import Vehicle
from sim.model.vehicle_toml import load_vehicle
from sim.model.world import World
from sim.simulation import Simulation

DT = 1.0 / 240.0
SUBSTEPS = 2


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    low: float | None = None          # pass limits (None: not judged)
    high: float | None = None
    source: str = ""                  # where the limit comes from

    @property
    def passed(self) -> bool | None:
        if self.low is None and self.high is None:
            return None
        if not math.isfinite(self.value):
            return False
        return (self.low is None or self.value >= self.low) and (self.high is None or self.value <= self.high)


@dataclass
class Result:
    name: str
    vehicle: str
    figures: list[Figure]
    log: TelemetryLog = field(repr=False)
    seconds: float = 0.0              # wall time the drive took

    def value(self, name: str) -> float:
        for f in self.figures:
            if f.name == name:
                return f.value
        raise KeyError(f"{self.name} has no figure {name!r}; it has {', '.join(f.name for f in self.figures)}")

    @property
    def passed(self) -> bool:
        return all(f.passed is not False for f in self.figures)

    def table(self) -> str:
        rows = [f"### {self.name} ({self.vehicle})", "", "| figure | value | unit | limit | |", "|---|---|---|---|---|"]
        for f in self.figures:
            limit = "" if f.passed is None else f"{'' if f.low is None else f'>= {f.low:g}'}" \
                f"{' and ' if f.low is not None and f.high is not None else ''}" \
                f"{'' if f.high is None else f'<= {f.high:g}'}"
            mark = "" if f.passed is None else ("ok" if f.passed else "FAIL")
            rows.append(f"| {f.name} | {f.value:.4g} | {f.unit} | {limit} | {mark} |")
        return "\n".join(rows)


def compare(before: Result, after: Result) -> list[tuple[str, float, float, float, str]]:
    """(figure, before, after, after - before, unit) for every figure both results have."""
    out = []
    for f in before.figures:
        try:
            b = after.value(f.name)
        except KeyError:
            continue
        out.append((f.name, f.value, b, b - f.value, f.unit))
    return out


def compare_table(before: Result, after: Result, labels=("before", "after")) -> str:
    rows = [f"| {before.name} | {labels[0]} | {labels[1]} | difference | unit |", "|---|---|---|---|---|"]
    for name, a, b, d, unit in compare(before, after):
        rel = f" ({100 * d / a:+.1f} %)" if a not in (0.0,) and math.isfinite(a) and math.isfinite(d) else ""
        rows.append(f"| {name} | {a:.4g} | {b:.4g} | {d:+.4g}{rel} | {unit} |")
    return "\n".join(rows)


# -- helpers ------------------------------------------------------------------------------------------

def _sim(car: Vehicle, speed: float = 0.0, gear: int | None = None, substeps: int = SUBSTEPS) -> Simulation:
    s = Simulation(car, World.flat(), dt=DT, substeps=substeps)
    kw = {} if gear is None else {"gear": gear}
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=speed, **kw)
    return s


def _course(name: str, markings=()) -> World:
    """Flat ground (as World.flat()) with paint that shows the course in the app (drawing only)."""
    flat = World.flat()
    return World(name, flat.surfaces, planes=flat.planes, markings=markings)


def _circle_course(radius: float) -> World:
    from sim.model.world import Marking
    return _course(f"circle of {radius:g} m", [Marking("circle", (0.0, radius), radius, width=0.15)])


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


def _drive(s: Simulation, driver: Driver, seconds: float, log: TelemetryLog, every=None) -> None:
    for _ in range(int(round(seconds / s.dt))):
        c = driver.controls(s)
        s.step(c)
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


# -- the manoeuvres -----------------------------------------------------------------------------------

def settle(car: Vehicle, seconds: float = 3.0) -> Result:
    """Left alone on flat ground: each wheel's load against its static share M g b / L / 2 (front) and
    M g a / L / 2 (rear), and each axle's sag (compression)."""
    s = _sim(car)
    log = TelemetryLog(replayable=True)
    _drive(s, Driver(OpenLoop(lambda t: 0.0)), seconds, log)
    m = car.chassis.mass * G
    a = car.front_axle.x - car.chassis.com_x
    b = car.chassis.com_x - car.rear_axle.x
    share = [m * b / car.wheelbase / 2] * 2 + [m * a / car.wheelbase / 2] * 2
    fz = np.asarray(s.telemetry.Fz, dtype=float)
    x = np.asarray(s.telemetry.x, dtype=float)
    figs = [Figure(f"load {w}", float(fz[i]), "N", share[i] * 0.99, share[i] * 1.01, "M g b / L / 2 +- 1 %")
            for i, w in enumerate(("FL", "FR", "RL", "RR"))]
    figs += [Figure("sag front", float(x[:2].mean()) * 1000, "mm"),
             Figure("sag rear", float(x[2:].mean()) * 1000, "mm")]
    return Result("settle", car.name, figs, log)


def step_steer(car: Vehicle, speed: float = 20.0, steer: float = 0.05, at: float = 2.0,
               seconds: float = 6.0) -> Result:
    """ISO 7401 step steer: straight at `speed`, then the steering input steps to `steer` in 0.05 s. Steady
    yaw-rate gain (yaw rate per road-wheel angle, 1/s), response time (from half the steering input to
    90 % of the steady yaw rate) and overshoot of the yaw rate."""
    s = _sim(car, speed=speed, gear=gear_for(car, speed))
    log = TelemetryLog(replayable=True)
    driver = Driver(OpenLoop.step(at, steer), SpeedPI(speed))
    _drive(s, driver, seconds, log)
    t, r = log.column("time"), log.column("yaw_rate")
    late = t >= seconds - 1.0
    r_ss = float(r[late].mean())
    delta_ss = float(np.mean(_front_angles(log)[late]))
    gain = r_ss / delta_ss if delta_ss else math.nan
    t_half = at + 0.025
    reached = np.flatnonzero((t > at) & (np.abs(r) >= 0.9 * abs(r_ss)))
    response = float(t[reached[0]] - t_half) if len(reached) else math.nan
    after = t > at
    overshoot = (float(np.max(np.abs(r[after]))) / abs(r_ss) - 1.0) * 100.0 if r_ss else math.nan
    figs = [Figure("yaw-rate gain", gain, "1/s"), Figure("steady yaw rate", r_ss, "rad/s"),
            Figure("road-wheel angle", math.degrees(delta_ss), "deg"),
            Figure("response time", response, "s"), Figure("yaw-rate overshoot", overshoot, "%"),
            Figure("lateral acceleration", float(log.column("a_lat")[late].mean()), "g")]
    if car.front_tire.model == "linear" and car.rear_tire.model == "linear":
        ref = bicycle_yaw_gain(car, speed)
        figs.append(Figure("bicycle-model gain", ref, "1/s"))
        figs[0] = Figure("yaw-rate gain", gain, "1/s", 0.97 * ref, 1.03 * ref, "single-track model +- 3 %")
    return Result("step-steer", car.name, figs, log)


def _front_angles(log: TelemetryLog) -> np.ndarray:
    return 0.5 * (log.column("steer FL") + log.column("steer FR"))


def constant_radius(car: Vehicle, radius: float = 40.0, ramp_g_per_s: float = 0.004,
                    start_g: float = 0.1) -> Result:
    """ISO 4138 constant radius: a left circle of `radius` with the target lateral acceleration rising
    from `start_g` at `ramp_g_per_s`. Lateral limit: the largest 1 s mean of the path's lateral
    acceleration (speed x the turning rate of the velocity) while the car stayed within 0.5 m of the
    circle and 0.15 m/s of the target speed (as sim.lab.validation's skidpad);
    gradients of the road-wheel angle (the understeer gradient, as the radius is constant), roll and
    body slip against lateral acceleration, fitted from 0.1 g to 0.4 g or 80 % of the limit."""
    v0 = math.sqrt(start_g * G * radius)
    s = Simulation(car, _circle_course(radius), dt=DT, substeps=SUBSTEPS)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=v0, gear=gear_for(car, v0))
    # start on the circle about (0, R), heading +x at the origin: a left turn
    log = TelemetryLog(replayable=True)
    target = lambda t: math.sqrt((start_g + ramp_g_per_s * t) * G * radius)  # noqa: E731
    follow = PathFollower(car, lookahead=max(6.0, 0.4 * v0), center=(0.0, radius), radius=radius)
    speed = SpeedPI(target, kp=0.6, ki=0.4)
    window = int(round(1.0 / DT))
    held = []
    ay_last = np.zeros(window)                # v x the velocity's turning rate over the last second, a ring
    course_prev = None
    best = 0.0
    failing = 0
    while True:
        t_now = s.time
        if start_g + ramp_g_per_s * t_now > 1.6:
            break
        follow.lookahead = max(6.0, 0.4 * float(np.linalg.norm(s.state.velocity)))
        driver = Driver(follow, speed)
        c = driver.controls(s)
        s.step(c)
        log.add(s, c)
        p = np.asarray(s.state.position[:2], dtype=float)
        error = float(np.linalg.norm(p - np.array([0.0, radius]))) - radius
        v = float(np.linalg.norm(s.state.velocity))
        held.append(abs(error) < 0.5 and abs(v - target(s.time)) < 0.15)
        # the path's own lateral acceleration: speed x the turning rate of the velocity (v x yaw rate
        # counts a body that swings out, its slip angle growing, as more cornering than there is)
        vel = np.asarray(s.state.velocity[:2], dtype=float)
        course = math.atan2(vel[1], vel[0])
        turn = (course - course_prev + math.pi) % (2.0 * math.pi) - math.pi if course_prev is not None else 0.0
        course_prev = course
        ay_last[len(held) % window] = v * turn / DT
        if len(held) >= window and all(held[-window:]):
            best = max(best, float(ay_last.mean()) / G)
        failing = 0 if held[-1] or s.time < 3.0 else failing + 1     # 3 s to settle onto the circle
        if failing * DT > 1.0:
            break
    ay = log.column("speed") * log.column("yaw_rate") / G
    top = min(0.4, 0.8 * best) if best > 0 else 0.4
    fit = (ay >= 0.1) & (ay <= top) & np.array(held)
    grads = {}
    for name, series in (("understeer gradient", np.degrees(_front_angles(log))),
                         ("roll gradient", np.degrees(log.column("roll"))),
                         ("body slip gradient", np.degrees(log.column("beta")))):
        ok = fit & np.isfinite(series)
        grads[name] = float(np.polyfit(ay[ok], series[ok], 1)[0]) if ok.sum() > 50 else math.nan
    figs = [Figure("lateral limit", best, "g"),
            Figure("understeer gradient", grads["understeer gradient"], "deg/g"),
            Figure("roll gradient", grads["roll gradient"], "deg/g"),
            Figure("body slip gradient", grads["body slip gradient"], "deg/g"),
            Figure("kinematic steer angle", math.degrees(math.atan(car.wheelbase / radius)), "deg")]
    return Result("circle", car.name, figs, log)


def steady_circle(car: Vehicle | list[Vehicle], radius: float = 40.0, lateral_g: float = 0.4,
                  seconds: float = 12.0) -> Result | list[Result]:
    """A circle of `radius` held at the speed of `lateral_g`: roll angle, body slip and road-wheel angle
    there (the last 2 s), e.g. to compare the roll of two spring rates. A list of cars is driven as one
    batch (one Simulation, one driver call per step for all of them) and gives a list of Results."""
    cars = car if isinstance(car, list) else [car]
    v = math.sqrt(lateral_g * G * radius)
    s = Simulation(cars, _circle_course(radius), dt=DT, substeps=SUBSTEPS, n_vehicles=len(cars))
    z = max(rest_com_height(c) for c in cars)
    s.reset(position=[(0.0, 0.0, z)] * len(cars), speed=v, gear=gear_for(cars[0], v))
    logs = [TelemetryLog(vehicle=i, replayable=True) for i in range(len(cars))]
    driver = Driver(PathFollower(cars[0], lookahead=max(6.0, 0.4 * v), center=(0.0, radius), radius=radius),
                    SpeedPI(v, kp=0.6, ki=0.4))
    for _ in range(int(round(seconds / s.dt))):
        c = driver.controls(s)
        s.step(c)
        for log in logs:
            log.add(s, c)
    out = []
    for c, log in zip(cars, logs):
        late = log.column("time") >= seconds - 2.0
        ay = float(np.mean(log.column("speed")[late] * log.column("yaw_rate")[late])) / G
        figs = [Figure("lateral acceleration", ay, "g"),
                Figure("roll angle", math.degrees(float(np.mean(log.column("roll")[late]))), "deg"),
                Figure("body slip", math.degrees(float(np.nanmean(log.column("beta")[late]))), "deg"),
                Figure("road-wheel angle", math.degrees(float(np.mean(_front_angles(log)[late]))), "deg")]
        out.append(Result("steady-circle", c.name, figs, log))
    return out if isinstance(car, list) else out[0]


def braking(car: Vehicle, v0: float = 100.0 / 3.6, abs_on: bool = True) -> Result:
    """Straight-line braking from v0 with the pedal fully down after 2 s at v0: stopping distance, mean
    deceleration, and the time any wheel was locked (turning under 5 % of its free-rolling speed)."""
    s = _sim(car, speed=v0, gear=gear_for(car, v0))
    log = TelemetryLog(replayable=True)
    _drive(s, Driver(OpenLoop(lambda t: 0.0), SpeedPI(v0, kp=2.0, ki=1.0)), 2.0, log)
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


def standing_start(car: Vehicle, target_kmh: float = 100.0, aids: bool = True) -> Result:
    """Full throttle from rest (after 1 s to settle), ABS and traction control on: the time to
    `target_kmh`, the gear changes, and the largest driven-wheel slip once moving."""
    s = _sim(car)
    log = TelemetryLog(replayable=True)
    _drive(s, Driver(OpenLoop(lambda t: 0.0)), 1.0, log)
    t0 = s.time
    reached = math.inf
    shifts = 0
    gear = int(s.state.gear)
    c = Controls(throttle=1.0, abs=aids, tc=aids)
    for _ in range(int(round(30.0 / DT))):
        s.step(c)
        log.add(s, c)
        if int(s.state.gear) != gear:
            shifts += 1
            gear = int(s.state.gear)
        if float(np.linalg.norm(s.state.velocity)) * 3.6 >= target_kmh:
            reached = s.time - t0
            break
    moving = log.column("speed") > 2.0
    slip = max(float(np.max(np.abs(log.column(f"kappa {w}")[moving]))) if moving.any() else 0.0
               for w in ("RL", "RR"))
    return Result("standing-start", car.name, [Figure(f"0-{target_kmh:g} km/h", reached, "s"),
                                               Figure("gear changes", float(shifts), "-"),
                                               Figure("largest rear slip once moving", slip, "-")], log)


def coast_down(car: Vehicle, v0: float = 30.0, v1: float = 20.0) -> Result:
    """In neutral on flat ground from v0 to v1 (m/s): the deceleration at the middle speed against the
    resistances, (m g c_rr + 1/2 rho Cd A v^2) / (m + sum Iw / r^2): the wheels' spin inertia slows too."""
    s = _sim(car, speed=v0, gear=0)
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


def parked(car: Vehicle, slope_deg: float = 15.0, seconds: float = 30.0) -> Result:
    """Parked across a slope on the handbrake, in neutral: how far it moves after settling (static
    friction holds it: nothing)."""
    s = Simulation(car, World.flat(slope_deg=slope_deg), dt=DT, substeps=SUBSTEPS)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), yaw=math.pi / 2)
    log = TelemetryLog(replayable=True)
    c = Controls(handbrake=1.0, gear=0)
    for _ in range(int(round(3.0 / DT))):
        s.step(c)
    p0 = np.array(s.state.position, dtype=float)
    for _ in range(int(round(seconds / DT))):
        s.step(c)
        log.add(s, c)
    moved = float(np.linalg.norm(np.asarray(s.state.position) - p0))
    return Result("parked", car.name, [Figure(f"movement in {seconds:g} s on {slope_deg:g} deg", moved * 1000.0, "mm",
                                              None, 1.0, "static friction: < 1 mm")], log)


def lane_change(car: Vehicle, speed_kmh: float = 60.0, offset: float = 3.5) -> Result:
    """ISO 3888-1 double lane change at a held speed: 15 m straight, over 30 m to the left by `offset`, 25 m
    there, 25 m back, then straight. The gates' widths follow the car's width w (section 1: 1.1 w + 0.25,
    section 3: w + 1, section 5: 1.3 w + 0.25, ISO 3888-1); a gate counts as hit when the centre line of
    the car strays from the gate's centre by more than (gate width - w) / 2 inside it."""
    from sim.model.world import Marking
    v = speed_kmh / 3.6
    x0 = 5.0                                                    # the first gate starts 5 m ahead
    path = np.array([(-50.0, 0.0), (x0 + 15.0, 0.0), (x0 + 45.0, offset), (x0 + 70.0, offset),
                     (x0 + 95.0, 0.0), (x0 + 250.0, 0.0)])
    w = 2.0 * max(car.front_axle.half_track, car.rear_axle.half_track) + 0.2
    gates = [("gate 1", x0, x0 + 15.0, 0.0, 1.1 * w + 0.25), ("gate 3", x0 + 45.0, x0 + 70.0, offset, w + 1.0),
             ("gate 5", x0 + 95.0, x0 + 125.0, 0.0, 1.3 * w + 0.25)]
    paint = [Marking("line", (a, c + side * width / 2), end=(b, c + side * width / 2), width=0.12,
                     color=(0.95, 0.55, 0.1)) for _, a, b, c, width in gates for side in (-1.0, 1.0)]
    s = Simulation(car, _course("ISO 3888-1 lane change", paint), dt=DT, substeps=SUBSTEPS)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=v, gear=gear_for(car, v))
    log = TelemetryLog(replayable=True)
    driver = Driver(PathFollower(car, lookahead=max(5.0, 0.5 * v), points=path), SpeedPI(v, kp=0.8, ki=0.4))
    _drive(s, driver, (x0 + 160.0) / v, log)
    x, y = log.column("x"), log.column("y")
    figs = []
    hits = 0
    for name, a, b, centre, width in gates:
        inside = (x >= a) & (x <= b)
        dev = float(np.max(np.abs(y[inside] - centre))) if inside.any() else math.nan
        room = (width - w) / 2.0
        hits += int(not dev <= room)
        figs.append(Figure(f"{name}: largest offset", dev, "m", None, room, "(gate width - car width) / 2"))
    figs += [Figure("gates hit", float(hits), "-", None, 0.0),
             Figure("largest lateral acceleration", float(np.max(np.abs(log.column("a_lat")))), "g"),
             Figure("largest yaw rate", math.degrees(float(np.max(np.abs(log.column("yaw_rate"))))), "deg/s"),
             Figure("largest body slip", math.degrees(float(np.nanmax(np.abs(log.column("beta"))))), "deg")]
    return Result("lane-change", car.name, figs, log)


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
    _drive(s, Driver(OpenLoop(lambda t: 0.0), SpeedPI(v, kp=0.8, ki=0.4)), 30.0 / v + 2.0, log)
    grounded = [float(np.mean(log.column(f"grounded {w}"))) for w in ("FL", "FR", "RL", "RR")]
    m = car.chassis.mass * G
    b = car.chassis.com_x - car.rear_axle.x
    static_fl = m * b / car.wheelbase / 2
    figs = [Figure(f"time in contact {w}", 100.0 * g, "%") for w, g in zip(("FL", "FR", "RL", "RR"), grounded)]
    figs += [Figure("largest FL load / static", float(np.max(log.column("Fz FL"))) / static_fl, "-"),
             Figure("largest roll", math.degrees(float(np.max(np.abs(log.column("roll"))))), "deg"),
             Figure("atan(height / track)", math.degrees(math.atan(height / (2.0 * half))), "deg")]
    return Result("curb", car.name, figs, log)


def sine_with_dwell(car: Vehicle, speed_kmh: float = 80.0, amplitude: float = 0.3, at: float = 2.0,
                    coast: bool = True, esp: bool = True) -> Result:
    """The sine with dwell of FMVSS 126 / UN R140 (electronic stability control): from `speed_kmh`, the
    steering input follows a 0.7 Hz sine of `amplitude` to the left, right, holds 0.5 s at the right peak,
    and returns; the throttle is released at the start. Figures: the yaw rate 1.0 s and 1.75 s after the
    steering completes, as a share of the yaw rate's peak in the opposite direction (the rules ask at
    most 35 % and 20 %: the car stops turning), and the lateral displacement 1.07 s after the steering
    starts (at least 1.83 m: it still responds). `esp`: stability control on (the rules test it on; the
    suite's sine-with-dwell-no-esp drives the same inputs with it off)."""
    f, dwell = 0.7, 0.5
    period = 1.0 / f

    def steer(t):
        x = t - at
        if x < 0.0:
            return 0.0
        if x < 0.75 * period:
            return amplitude * math.sin(2.0 * math.pi * f * x)
        if x < 0.75 * period + dwell:
            return -amplitude
        x -= dwell
        return amplitude * math.sin(2.0 * math.pi * f * x) if x < period else 0.0
    v = speed_kmh / 3.6
    s = _sim(car, speed=v, gear=gear_for(car, v))
    log = TelemetryLog(replayable=True)
    speed = SpeedPI(v, kp=0.8, ki=0.4)
    hold = Driver(OpenLoop(lambda t: 0.0), speed)
    _drive(s, hold, at, log)
    y0 = float(s.state.position[1])
    _drive(s, Driver(OpenLoop(steer), None, throttle=0.0, esp=esp), period + dwell + 3.0, log)
    t, r, y = log.column("time"), log.column("yaw_rate"), log.column("y")
    end = at + period + dwell                                   # completion of steer
    second = (t > at + 0.25 * period) & (t <= end)
    peak = float(np.min(r[second])) if second.any() else math.nan   # the right turn's peak (negative)

    def at_time(series, when):
        return float(np.interp(when, t, series))
    ratio = lambda when: 100.0 * at_time(r, when) / peak if peak else math.nan  # noqa: E731
    lateral = abs(at_time(y, at + 1.07) - y0)
    figs = [Figure("yaw rate 1.0 s after the steering, share of its peak", ratio(end + 1.0), "%", None, 35.0,
                   "FMVSS 126: <= 35 %"),
            Figure("yaw rate 1.75 s after, share of its peak", ratio(end + 1.75), "%", None, 20.0,
                   "FMVSS 126: <= 20 %"),
            Figure("lateral displacement 1.07 s after the start", lateral, "m", 1.83, None, "FMVSS 126: >= 1.83 m"),
            Figure("peak yaw rate", math.degrees(abs(peak)), "deg/s")]
    esp_log = log.column("esp_cut")
    figs.append(Figure("time stability control acted", float(np.sum(esp_log < 1.0) * DT), "s"))
    return Result("sine-with-dwell" if esp else "sine-with-dwell-no-esp", car.name, figs, log)


SUITE = {"settle": settle, "step-steer": step_steer, "circle": constant_radius, "steady-circle": steady_circle,
         "braking": braking, "braking-no-abs": lambda car: braking(car, abs_on=False),
         "standing-start": standing_start, "coast-down": coast_down, "parked": parked, "lane-change": lane_change,
         "drop": drop, "curb": curb, "sine-with-dwell": sine_with_dwell,
         "sine-with-dwell-no-esp": lambda car: sine_with_dwell(car, esp=False)}


SUITE_HELP = {name: (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ") for name, fn in SUITE.items()}
SUITE_HELP["braking-no-abs"] = "the braking drive with ABS off"
SUITE_HELP["sine-with-dwell-no-esp"] = "the sine with dwell with stability control off (the same inputs)"


def run(name: str, car: Vehicle) -> Result:
    if name not in SUITE:
        raise ConfigError(f"test drive {name!r} is not known; expected one of {', '.join(SUITE)} or all")
    t0 = time.perf_counter()
    r = SUITE[name](car)
    r.seconds = time.perf_counter() - t0
    return r


@dataclass(frozen=True)
class Limit:
    """A pass limit the user sets on a figure: `drive` ("" for any drive that has the figure), the figure's
    name, "<=" or ">=", and the value in the figure's unit."""
    drive: str
    figure: str
    op: str
    value: float

    def __str__(self) -> str:
        return f"{self.drive + '/' if self.drive else ''}{self.figure}{self.op}{self.value:g}"


def parse_limit(text: str) -> Limit:
    """'[drive/]figure<=value' or '[drive/]figure>=value', e.g. 'braking/stopping distance<=38' (units as
    the figure's). ConfigError naming the text and what is allowed otherwise."""
    for op in ("<=", ">="):
        if op in text:
            name, _, value = text.partition(op)
            drive, _, figure = name.strip().rpartition("/")
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not math.isfinite(number) or not figure.strip():
                break
            if drive and drive.strip() not in SUITE:
                raise ConfigError(f"limit {text!r}: test drive {drive.strip()!r} is not known; expected one of "
                                  f"{', '.join(SUITE)}")
            return Limit(drive.strip(), figure.strip(), op, number)
    raise ConfigError(f"limit {text!r} is not allowed; expected '[drive/]figure<=value' or '[drive/]figure>=value' "
                      f"with a finite number, e.g. 'braking/stopping distance<=38'")


def apply_limits(result: Result, limits) -> list[Limit]:
    """Judge `result`'s figures by the user's limits (they replace the drive's own limit on that side);
    returns the limits that matched a figure of this drive."""
    used = []
    for lim in limits:
        if lim.drive and lim.drive != result.name:
            continue
        for i, f in enumerate(result.figures):
            if f.name == lim.figure:
                low, high = (lim.value, f.high) if lim.op == ">=" else (f.low, lim.value)
                result.figures[i] = Figure(f.name, f.value, f.unit, low, high, f"user limit {lim}")
                used.append(lim)
    return used


# the channels each drive's plot shows: (x channel, [(y channel, scale, label)])
PLOTS = {"settle": ("time", [("Fz FL", 1.0, "Fz FL (N)"), ("Fz RL", 1.0, "Fz RL (N)")]),
         "step-steer": ("time", [("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)"),
                                 ("a_lat", 1.0, "lateral acceleration (g)")]),
         "circle": ("a_lat", [("steer FL", 180.0 / math.pi, "FL road-wheel angle (deg)"),
                              ("roll", 180.0 / math.pi, "roll (deg)"), ("beta", 180.0 / math.pi, "body slip (deg)")]),
         "steady-circle": ("time", [("roll", 180.0 / math.pi, "roll (deg)"), ("a_lat", 1.0, "lateral g")]),
         "braking": ("time", [("speed", 3.6, "speed (km/h)"), ("kappa FL", 1.0, "kappa FL"),
                              ("a_long", 1.0, "longitudinal g")]),
         "braking-no-abs": ("time", [("speed", 3.6, "speed (km/h)"), ("kappa FL", 1.0, "kappa FL"),
                                     ("a_long", 1.0, "longitudinal g")]),
         "standing-start": ("time", [("speed", 3.6, "speed (km/h)"), ("rpm", 1.0, "engine (rpm)"),
                                     ("kappa RL", 1.0, "kappa RL")]),
         "coast-down": ("time", [("speed", 3.6, "speed (km/h)"), ("a_long", 1.0, "longitudinal g")]),
         "parked": ("time", [("x", 1000.0, "x (mm)"), ("y", 1000.0, "y (mm)")]),
         "drop": ("time", [("z", 1.0, "body height (m)"), ("Fz FL", 1.0, "Fz FL (N)")]),
         "sine-with-dwell": ("time", [("steer_input", 1.0, "steering input"),
                                      ("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)"),
                                      ("yaw_rate_ref", 180.0 / math.pi, "asked-for yaw rate (deg/s)"),
                                      ("esp_brake RR", 1.0, "ESP brake RR (N m)")]),
         "sine-with-dwell-no-esp": ("time", [("steer_input", 1.0, "steering input"),
                                      ("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)"),
                                      ("y", 1.0, "lateral position (m)")]),
         "lane-change": ("x", [("y", 1.0, "lateral position (m)"), ("a_lat", 1.0, "lateral g"),
                               ("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)")])}


def plot(results: list[Result], path, labels: list[str] | None = None) -> None:
    """A PNG of the drive's key channels, one panel each, every result overlaid (before/after); needs
    matplotlib (pip install -e '.[plots]'), raises ConfigError without it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("--plot needs matplotlib: pip install -e '.[plots]'") from None
    name = results[0].name
    xname, ys = PLOTS.get(name, ("time", [("speed", 1.0, "speed (m/s)")]))
    fig, axes = plt.subplots(len(ys), 1, figsize=(8, 2.4 * len(ys)), sharex=True, squeeze=False)
    for r, label in zip(results, labels or [r.vehicle for r in results]):
        x = r.log.column(xname)
        for ax, (ch, k, ylabel) in zip(axes[:, 0], ys):
            ax.plot(x, r.log.column(ch) * k, label=label, linewidth=1.0)
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel({"time": "time (s)", "a_lat": "lateral acceleration (g)"}.get(xname, xname))
    axes[0, 0].set_title(f"{name}: " + ", ".join(f"{f.name} {f.value:.3g} {f.unit}" for f in results[-1].figures[:2]))
    if len(results) > 1:
        axes[0, 0].legend()
    fig.tight_layout()
    tmp = Path(path).with_name(f".{Path(path).stem}.cp-tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)


def _apply_sets(car: Vehicle, sets: list[str]) -> Vehicle:
    for item in sets:
        if "=" not in item:
            raise ConfigError(f"--set {item!r} is not allowed; expected path=value, e.g. front_tire.grip=1.1")
        path, text = item.split("=", 1)
        try:
            value: object = float(text)
        except ValueError:
            value = text
        car = with_value(car, path.strip(), value)
    return car


def cli(argv: list[str] | None = None) -> int:
    """contactpatch test NAME|all [--vehicle V] [--set path=value ...] [--log DIR]"""
    ap = argparse.ArgumentParser(prog="contactpatch test", description="Run standard test drives and print "
                                 "their figures (Markdown); write each drive's telemetry log as CSV.")
    ap.add_argument("name", help=f"one of {', '.join(SUITE)}, or all")
    ap.add_argument("--vehicle", default="hatchback", help="preset name or TOML file")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="change a parameter first, e.g. --set front_tire.grip=1.1 (repeatable)")
    ap.add_argument("--compare", action="store_true",
                    help="run each drive with the preset as it is and with the --set changes, side by side")
    ap.add_argument("--limit", action="append", default=[], metavar="[DRIVE/]FIGURE<=VALUE",
                    help="judge a figure by your own limit (<= or >=, in the figure's unit), e.g. --limit "
                    "'braking/stopping distance<=38' (repeatable; without DRIVE/ any drive with that figure)")
    ap.add_argument("--log", metavar="DIR", help="write each drive's telemetry log (CSV) into DIR")
    ap.add_argument("--plot", action="store_true", help="also a PNG of the key channels beside each log "
                    "(needs --log and matplotlib: pip install -e '.[plots]')")
    ap.add_argument("--log-format", choices=("csv", "parquet"), default="csv",
                    help="csv (units in the second row) or parquet (units in the field metadata; pyarrow)")
    ap.add_argument("--log-rate", type=float, default=60.0, metavar="HZ",
                    help="rows per second in the log (default 60; 240 for every physics step)")
    args = ap.parse_args(argv)
    try:
        base = load_vehicle(args.vehicle)
        car = _apply_sets(base, args.set)
        names = list(SUITE) if args.name == "all" else [args.name]
        for n in names:
            if n not in SUITE:
                raise ConfigError(f"test drive {n!r} is not known; expected one of {', '.join(SUITE)} or all")
        limits = [parse_limit(text) for text in args.limit]
    except ConfigError as exc:
        print(f"contactpatch test: {exc}", file=sys.stderr)
        return 2
    if args.plot and not args.log:
        print("contactpatch test: --plot needs --log DIR (the plot is written beside the log)", file=sys.stderr)
        return 2
    failed = False
    used: set[Limit] = set()
    for n in names:
        r = run(n, car)
        used.update(apply_limits(r, limits))
        before = None
        if args.compare:
            before = run(n, base)
            apply_limits(before, limits)
            print(compare_table(before, r, ("as loaded", "with --set")))
        else:
            print(r.table())
        print(f"\n({len(r.log)} logged steps, {r.seconds:.1f} s)\n")
        failed |= not r.passed
        if args.log:
            path = Path(args.log) / f"{n}-{car.name}.{args.log_format}"
            every = max(1, round(1.0 / (DT * max(args.log_rate, 1e-3))))
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                if args.log_format == "parquet":
                    write_parquet(r.log, path, every)
                else:
                    r.log.write_csv(path, every)
            except OSError as exc:
                print(f"contactpatch test: {path}: cannot write the log: {exc.strerror or exc}", file=sys.stderr)
                return 2
            except ConfigError as exc:
                print(f"contactpatch test: {exc}", file=sys.stderr)
                return 2
            print(f"log: {path}\n")
            if args.plot:
                png = path.with_suffix(".png")
                try:
                    plot([before, r] if args.compare else [r], png,
                         ["as loaded", "with --set"] if args.compare else None)
                except ConfigError as exc:
                    print(f"contactpatch test: {exc}", file=sys.stderr)
                    return 2
                print(f"plot: {png}\n")
    unused = [str(lim) for lim in limits if lim not in used]
    if unused:
        print(f"contactpatch test: no drive run here has the figure of limit {', '.join(unused)}; the figures' "
              f"names are in the tables above", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(cli())
