"""Drives on a circle: ISO 4138's constant radius with a rising speed (the lateral limit and the gradients),
a circle held at one lateral acceleration, and the skidpad limit by a second, independent closed loop (the
circle's check)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.lab.driver import Driver
from sim.lab.driver import PathFollower
from sim.lab.driver import SpeedPI
from sim.lab.drives.batch import Batch
from sim.lab.drives.batch import batched
from sim.lab.drives.batch import norm
from sim.lab.drives.batch import steps_of
from sim.lab.drives.common import DT
from sim.lab.drives.common import circle_course
from sim.lab.drives.common import front_angles
from sim.lab.drives.common import gear_for
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.model.geometry import rest_com_height
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation

TRIM = 0.004    # 1/(m^2 s): the circle drivers' integral of the distance outside the circle (PathFollower.trim)


@batched
def constant_radius(cars: list[Vehicle], radius: float = 40.0, ramp_g_per_s: float = 0.004,
                    start_g: float = 0.1) -> list[Result]:
    """ISO 4138 constant radius: a left circle of `radius` with the target lateral acceleration rising
    from `start_g` at `ramp_g_per_s`. Lateral limit: the largest 1 s mean of the path's lateral
    acceleration (speed x the turning rate of the velocity) while the car stayed within 0.5 m of the
    circle and 0.15 m/s of the target speed (as sim.lab.validation's skidpad);
    gradients of the road-wheel angle (the understeer gradient, as the radius is constant), roll and
    body slip against lateral acceleration, fitted from 0.1 g to 0.4 g or 80 % of the limit. A car's drive
    ends after a second in which it held neither the circle nor the speed (3 s to settle onto it first)."""
    v0 = math.sqrt(start_g * G * radius)
    # start on the circle about (0, R), heading +x at the origin: a left turn
    b = Batch(cars, circle_course(radius), speed=v0, gears=[gear_for(c, v0) for c in cars], steps=steps_of(60.0))
    n = b.n
    target = lambda t: math.sqrt((start_g + ramp_g_per_s * t) * G * radius)  # noqa: E731
    follow = PathFollower(cars, lookahead=max(6.0, 0.4 * v0), center=(0.0, radius), radius=radius, trim=TRIM)
    driver = Driver(follow, SpeedPI(target, kp=0.6, ki=0.4))
    window = int(round(1.0 / DT))
    held = []                                  # (N,) bool a step: on the circle and at the target speed
    ay_last = np.zeros((n, window))            # v x the velocity's turning rate over the last second, a ring
    course_prev = None
    best = np.zeros(n)
    run = np.zeros(n, dtype=int)               # steps held in a row
    failing = np.zeros(n, dtype=int)
    while b.active.any():
        if start_g + ramp_g_per_s * b.sim.time > 1.6:
            break
        follow.lookahead = np.maximum(6.0, 0.4 * b.speed())
        b.step(driver.controls(b.sim))
        p, vel = b.position(), b.velocity()
        error = norm(p[:, :2] - np.array([0.0, radius])) - radius
        v = norm(vel)
        held.append((np.abs(error) < 0.5) & (np.abs(v - target(b.sim.time)) < 0.15))
        # the path's own lateral acceleration: speed x the turning rate of the velocity (v x yaw rate
        # counts a body that swings out, its slip angle growing, as more cornering than there is)
        course = np.arctan2(vel[:, 1], vel[:, 0])
        turn = np.mod(course - course_prev + math.pi, 2.0 * math.pi) - math.pi if course_prev is not None \
            else np.zeros(n)
        course_prev = course
        ay_last[:, len(held) % window] = v * turn / DT
        run = np.where(held[-1], run + 1, 0)
        full = np.flatnonzero(b.active & (run >= window))
        if len(full):
            best[full] = np.maximum(best[full], ay_last[full].mean(axis=1) / G)
        failing = np.where(held[-1] | (b.sim.time < 3.0), 0, failing + 1)     # 3 s to settle onto the circle
        b.finish(failing * DT > 1.0)
    held_steps = np.array(held)
    out = []
    for i, (car, log) in enumerate(zip(cars, b.logs())):
        ay = log.column("speed") * log.column("yaw_rate") / G
        top = min(0.4, 0.8 * float(best[i])) if best[i] > 0 else 0.4
        fit = (ay >= 0.1) & (ay <= top) & held_steps[:len(log), i]
        grads = {}
        for name, series in (("understeer gradient", np.degrees(front_angles(log))),
                             ("roll gradient", np.degrees(log.column("roll"))),
                             ("body slip gradient", np.degrees(log.column("beta")))):
            ok = fit & np.isfinite(series)
            grads[name] = float(np.polyfit(ay[ok], series[ok], 1)[0]) if ok.sum() > 50 else math.nan
        figs = [Figure("lateral limit", float(best[i]), "g"),
                Figure("understeer gradient", grads["understeer gradient"], "deg/g"),
                Figure("roll gradient", grads["roll gradient"], "deg/g"),
                Figure("body slip gradient", grads["body slip gradient"], "deg/g"),
                Figure("kinematic steer angle", math.degrees(math.atan(car.wheelbase / radius)), "deg")]
        out.append(Result("circle", car.name, figs, log))
    return out


@batched
def steady_circle(cars: list[Vehicle], radius: float = 40.0, lateral_g: float = 0.4,
                  seconds: float = 12.0) -> list[Result]:
    """A circle of `radius` held at the speed of `lateral_g` (a left turn): roll angle, body slip and
    road-wheel angle there (the last 2 s), e.g. to compare the roll of two spring rates; the roll gradient
    (roll angle / lateral acceleration) and each axle's lateral load transfer, (Fz outer - Fz inner) / 2,
    with the front axle's share of it (docs/physics.md §7.1 gives the steady-state formulas)."""
    v = math.sqrt(lateral_g * G * radius)
    b = Batch(cars, circle_course(radius), speed=v, gears=[gear_for(c, v) for c in cars], steps=steps_of(seconds))
    b.drive(Driver(PathFollower(cars, lookahead=max(6.0, 0.4 * v), center=(0.0, radius), radius=radius, trim=TRIM),
                   SpeedPI(v, kp=0.6, ki=0.4)), seconds)
    out = []
    for car, log in zip(cars, b.logs()):
        late = log.column("time") >= seconds - 2.0
        ay = float(np.mean(log.column("speed")[late] * log.column("yaw_rate")[late])) / G
        roll = math.degrees(float(np.mean(log.column("roll")[late])))
        fz = {w: float(np.mean(log.column(f"Fz {w}")[late])) for w in ("FL", "FR", "RL", "RR")}
        front, rear = 0.5 * (fz["FR"] - fz["FL"]), 0.5 * (fz["RR"] - fz["RL"])     # the right wheels are outside
        moment_f, moment_r = 2.0 * front * car.front_axle.half_track, 2.0 * rear * car.rear_axle.half_track
        figs = [Figure("lateral acceleration", ay, "g"),
                Figure("roll angle", roll, "deg"),
                Figure("body slip", math.degrees(float(np.nanmean(log.column("beta")[late]))), "deg"),
                Figure("road-wheel angle", math.degrees(float(np.mean(front_angles(log)[late]))), "deg"),
                Figure("roll gradient", roll / ay if ay > 0.0 else math.nan, "deg/g"),
                Figure("front lateral load transfer", front, "N"),
                Figure("rear lateral load transfer", rear, "N"),
                Figure("front share of the load transfer", 100.0 * moment_f / (moment_f + moment_r)
                       if moment_f + moment_r > 0.0 else math.nan, "%")]
        out.append(Result("steady-circle", car.name, figs, log))
    return out


@dataclass
class CircleDriver:
    """Holds a circle of radius R about (0, R) (a left turn from the origin heading +x) at a target speed:
    the steering input sets the path curvature (sim/kernel/steering.py), so the command is the circle's
    curvature plus PID on the radial error; the throttle is a PI on speed."""
    radius: float
    car: Vehicle
    integral: float = 0.0
    speed_integral: float = 0.0

    def controls(self, s: Simulation, v_target: float) -> tuple[Controls, float]:
        p = np.array(s.state.position[:2])
        vel = np.array(s.state.velocity[:2])
        rel = p - np.array([0.0, self.radius])
        dist = float(np.linalg.norm(rel))
        error = dist - self.radius                               # + outside the circle
        radial_rate = float(np.dot(vel, rel / max(dist, 1e-9)))
        self.integral = float(np.clip(self.integral + error * s.dt, -20.0, 20.0))
        curvature = 1.0 / self.radius + 0.02 * error + 0.004 * self.integral + 0.02 * radial_rate
        st = self.car.steering
        speed = float(np.linalg.norm(s.state.velocity))
        top = math.radians(st.max_angle_deg)
        if st.limit_speed > 0.0:
            top /= 1.0 + (speed / st.limit_speed) ** 2
        r_min = self.car.wheelbase / math.tan(top) + self.car.front_axle.half_track
        steer = float(np.clip(curvature * r_min, -1.0, 1.0))
        dv = v_target - speed
        self.speed_integral = float(np.clip(self.speed_integral + dv * s.dt, -5.0, 5.0))
        throttle = float(np.clip(0.3 + 0.5 * dv + 0.3 * self.speed_integral, 0.0, 1.0))
        brake = float(np.clip(-0.3 * dv, 0.0, 1.0)) if dv < -1.0 else 0.0
        return Controls(throttle=throttle, brake=brake, steer=steer), error


def skidpad_limit(car: Vehicle, radius: float = 40.0, substeps: int = 8, dt: float = DT,
                  ramp_g_per_s: float = 0.004) -> float:
    """The steady skidpad limit (g): the target lateral acceleration rises slowly from 0.5 g; the result
    is the largest 1 s mean of v x yaw rate over which the car stayed within 0.5 m of the circle and
    within 0.15 m/s of the target speed, before the first second in which it could hold neither."""
    s = Simulation(car, World.flat(), dt=dt, substeps=substeps)
    v0 = math.sqrt(0.5 * G * radius)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=v0, gear=max(1, gear_for(car, v0)))
    driver = CircleDriver(radius, car)
    window = int(round(1.0 / dt))
    ay = np.zeros(window)
    held = np.zeros(window, dtype=bool)
    best = 0.0
    k = 0
    failing = 0
    while True:
        a_target = 0.5 + ramp_g_per_s * s.time
        if a_target > 1.6:
            break
        v_target = math.sqrt(a_target * G * radius)
        c, error = driver.controls(s, v_target)
        s.step(c)
        speed = float(np.linalg.norm(s.state.velocity))
        ay[k % window] = speed * float(s.state.angular_velocity[2])
        held[k % window] = abs(error) < 0.5 and abs(speed - v_target) < 0.15
        k += 1
        if k >= window and held.all():
            best = max(best, float(ay.mean()) / G)
        failing = 0 if held[(k - 1) % window] else failing + 1
        if failing * dt > 1.0:                       # lost the circle or the speed for a second: past the limit
            break
    return best
