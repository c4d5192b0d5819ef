"""Drives of steering transients: ISO 7401's step steer, ISO 3888-1's double lane change and an open-loop sine
steer (the substep counts compared); FMVSS 126's sine with dwell is in fmvss126.py."""
from __future__ import annotations

import math

import numpy as np

from sim.controls import Controls
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.driver import PathFollower
from sim.lab.driver import SpeedPI
from sim.lab.drives.batch import Batch
from sim.lab.drives.batch import batched
from sim.lab.drives.batch import steps_of
from sim.lab.drives.common import DT
from sim.lab.drives.common import bicycle_yaw_gain
from sim.lab.drives.common import course
from sim.lab.drives.common import front_angles
from sim.lab.drives.common import gear_for
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.model.geometry import rest_com_height
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation


@batched
def step_steer(cars: list[Vehicle], speed: float = 20.0, steer: float = 0.05, at: float = 2.0,
               seconds: float = 6.0, road_wheel_angle: float | None = None) -> list[Result]:
    """ISO 7401 step steer: straight at `speed`, then the steering input steps to `steer` in 0.05 s, or with
    `road_wheel_angle` (rad) the front road wheels' mean angle steps to it (Controls.steer_angle: no rack rate
    limit, the same angle at every speed). Steady yaw-rate gain (yaw rate per road-wheel angle, 1/s), response
    time (from half the steering input to 90 % of the steady yaw rate) and overshoot of the yaw rate."""
    b = Batch(cars, World.flat(), speed=speed, gears=[gear_for(c, speed) for c in cars], steps=steps_of(seconds))
    wheel = road_wheel_angle is not None
    b.drive(Driver(OpenLoop.step(at, road_wheel_angle if wheel else steer, road_wheel=wheel), SpeedPI(speed)),
            seconds)
    out = []
    for car, log in zip(cars, b.logs()):
        t, r = log.column("time"), log.column("yaw_rate")
        late = t >= seconds - 1.0
        r_ss = float(r[late].mean())
        delta_ss = float(np.mean(front_angles(log)[late]))
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
        out.append(Result("step-steer", car.name, figs, log))
    return out


def lane_change_course(car: Vehicle, offset: float, x0: float):
    """ISO 3888-1's gates for `car` (name, start x, end x, centre y, width; m), its width w (m) and the course
    with the gates painted."""
    from sim.model.world import Marking
    w = 2.0 * max(car.front_axle.half_track, car.rear_axle.half_track) + 0.2
    gates = [("gate 1", x0, x0 + 15.0, 0.0, 1.1 * w + 0.25), ("gate 3", x0 + 45.0, x0 + 70.0, offset, w + 1.0),
             ("gate 5", x0 + 95.0, x0 + 125.0, 0.0, 1.3 * w + 0.25)]
    paint = [Marking("line", (a, c + side * width / 2), end=(b, c + side * width / 2), width=0.12,
                     color=(0.95, 0.55, 0.1)) for _, a, b, c, width in gates for side in (-1.0, 1.0)]
    return gates, w, course("ISO 3888-1 lane change", paint)


@batched
def lane_change(cars: list[Vehicle], speed_kmh: float = 60.0, offset: float = 3.5) -> list[Result]:
    """ISO 3888-1 double lane change at a held speed: 15 m straight, over 30 m to the left by `offset`, 25 m
    there, 25 m back, then straight. The gates' widths follow the car's width w (section 1: 1.1 w + 0.25,
    section 3: w + 1, section 5: 1.3 w + 0.25, ISO 3888-1); a gate counts as hit when the centre line of
    the car strays from the gate's centre by more than (gate width - w) / 2 inside it. (The gates are paint:
    the cars of a batch drive on one ground, each log keeps its car's own course.)"""
    v = speed_kmh / 3.6
    x0 = 5.0                                                    # the first gate starts 5 m ahead
    path = np.array([(-50.0, 0.0), (x0 + 15.0, 0.0), (x0 + 45.0, offset), (x0 + 70.0, offset),
                     (x0 + 95.0, 0.0), (x0 + 250.0, 0.0)])
    courses = [lane_change_course(car, offset, x0) for car in cars]
    seconds = (x0 + 160.0) / v
    b = Batch(cars, courses[0][2], speed=v, gears=[gear_for(c, v) for c in cars], steps=steps_of(seconds))
    driver = Driver(PathFollower(cars, lookahead=max(5.0, 0.5 * v), points=path), SpeedPI(v, kp=0.8, ki=0.4))
    b.drive(driver, seconds)
    out = []
    for car, (gates, w, _), log in zip(cars, courses, b.logs([world for _, _, world in courses])):
        x, y = log.column("x"), log.column("y")
        figs = []
        hits = 0
        for name, a, end, centre, width in gates:
            inside = (x >= a) & (x <= end)
            dev = float(np.max(np.abs(y[inside] - centre))) if inside.any() else math.nan
            room = (width - w) / 2.0
            hits += int(not dev <= room)
            figs.append(Figure(f"{name}: largest offset", dev, "m", None, room, "(gate width - car width) / 2"))
        figs += [Figure("gates hit", float(hits), "-", None, 0.0),
                 Figure("largest lateral acceleration", float(np.max(np.abs(log.column("a_lat")))), "g"),
                 Figure("largest yaw rate", math.degrees(float(np.max(np.abs(log.column("yaw_rate"))))), "deg/s"),
                 Figure("largest body slip", math.degrees(float(np.nanmax(np.abs(log.column("beta"))))), "deg")]
        out.append(Result("lane-change", car.name, figs, log))
    return out


def sine_steer(car: Vehicle, substeps: int = 2, amplitude: float = 0.15, speed: float = 20.0,
               check_stability: bool = True) -> np.ndarray:
    """Open loop at `speed` in the gear for it: a 1 Hz sine of `amplitude` on the steering input for 2 s
    (0.15: in the tires' linear range), then 1 s straight; the yaw rate (rad/s) of every step."""
    s = Simulation(car, World.flat(), dt=DT, substeps=substeps, check_stability=check_stability)
    gear = gear_for(car, speed)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=speed, gear=gear)
    out = np.empty(int(round(3.0 / DT)))
    for k in range(len(out)):
        t = k * DT
        s.step(Controls(throttle=0.25, steer=amplitude * math.sin(2.0 * math.pi * t) if t < 2.0 else 0.0, gear=gear))
        out[k] = s.state.angular_velocity[2]
    return out
