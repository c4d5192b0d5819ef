"""A driver model for test drives: it sees what a driver sees (the car's position, heading, speed and yaw
rate, never the tire forces) and gives the controls, for one car or a batch (every quantity an array over
the vehicles, so N cars are driven by one call per step).

Steering, one of:
    OpenLoop     the steering input as a function of time: hold, ramp, step, sine, sine with dwell
    PathFollower pure pursuit of a path (a circle or a polyline): the steering input that makes the
                 front axle's arc pass through the point `lookahead` metres ahead on the path
Speed: SpeedPI holds a target speed (a number, or a function of time) with the throttle, and brakes
when it is more than `brake_band` above it; or fixed pedals.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.controls import Controls
from sim.lab.logs import body_frame
from sim.model.params import Vehicle
from sim.simulation import Simulation


@dataclass
class Observation:
    """What the driver sees of each vehicle (arrays over the vehicles)."""
    time: float
    position: np.ndarray      # (N, 2) m
    heading: np.ndarray       # (N,) rad
    speed: np.ndarray         # (N,) m/s along the heading
    yaw_rate: np.ndarray      # (N,) rad/s
    course: np.ndarray        # (N,) rad: the direction of travel (the heading when nearly still)

    @classmethod
    def of(cls, s: Simulation) -> Observation:
        pos = np.asarray(s.state.position, dtype=float).reshape(-1, 3)
        quat = np.asarray(s.state.orientation, dtype=float).reshape(-1, 4)
        vel = np.asarray(s.state.velocity, dtype=float).reshape(-1, 3)
        w = np.asarray(s.state.angular_velocity, dtype=float).reshape(-1, 3)
        heading = np.empty(len(pos))
        speed = np.empty(len(pos))
        course = np.empty(len(pos))
        for k in range(len(pos)):
            fwd = body_frame(quat[k])[:, 0]
            heading[k] = math.atan2(fwd[1], fwd[0])
            speed[k] = float(vel[k] @ fwd)
            moving = math.hypot(vel[k, 0], vel[k, 1]) > 1.0
            course[k] = math.atan2(vel[k, 1], vel[k, 0]) if moving else heading[k]
            if speed[k] < 0.0 and moving:
                course[k] = heading[k]                  # reversing: steer by the heading
        return cls(s.time, pos[:, :2].copy(), heading, speed, w[:, 2].copy(), course)


def steer_for_curvature(car: Vehicle, curvature, speed) -> np.ndarray:
    """The steering input (-1..1) whose road-wheel angle drives an arc of `curvature` (1/m) at low slip:
    delta = atan(L kappa), as a share of the largest angle at this speed (sim/kernel/steering.py's speed limit)."""
    st = car.steering
    top = math.radians(st.max_angle_deg) / (1.0 + (np.asarray(speed) / st.limit_speed) ** 2) \
        if st.limit_speed > 0.0 else math.radians(st.max_angle_deg)
    return np.clip(np.arctan(car.wheelbase * np.asarray(curvature)) / np.maximum(top, 1e-6), -1.0, 1.0)


@dataclass
class OpenLoop:
    """The steering input as a function of time (s) -> -1..1."""
    steer: Callable[[float], float]

    def __call__(self, obs: Observation) -> np.ndarray:
        return np.full(len(obs.speed), float(self.steer(obs.time)))

    @classmethod
    def step(cls, at: float, value: float, rise: float = 0.05) -> OpenLoop:
        """0 until `at`, then `value`, reached in `rise` seconds (a steering robot's ramp)."""
        return cls(lambda t: value * min(1.0, max(0.0, (t - at) / rise)) if rise > 0 else (value if t >= at else 0.0))

    @classmethod
    def ramp(cls, at: float, rate: float, most: float = 1.0) -> OpenLoop:
        """0 until `at`, then rising at `rate` per second up to `most`."""
        return cls(lambda t: math.copysign(min(abs(most), abs(rate) * max(0.0, t - at)), rate))

    @classmethod
    def sine(cls, at: float, amplitude: float, frequency: float, cycles: float = 1.0) -> OpenLoop:
        """A sine of `amplitude` and `frequency` (Hz) from `at`, for `cycles` periods."""
        def f(t):
            x = (t - at) * frequency
            return amplitude * math.sin(2.0 * math.pi * x) if 0.0 <= x <= cycles else 0.0
        return cls(f)


@dataclass
class PathFollower:
    """Pure pursuit: steer so the car's arc passes through the path point `lookahead` metres ahead.
    The path is a circle (`center`, `radius`, counter-clockwise for a left turn) or a polyline."""
    car: Vehicle
    lookahead: float = 8.0
    center: tuple[float, float] | None = None
    radius: float = 0.0
    points: np.ndarray | None = None

    def target(self, p: np.ndarray, heading: np.ndarray) -> np.ndarray:
        if self.center is not None:
            rel = p - np.asarray(self.center)
            ang = np.arctan2(rel[:, 1], rel[:, 0]) + self.lookahead / self.radius * np.sign(self.radius)
            r = abs(self.radius)
            return np.asarray(self.center) + np.column_stack([r * np.cos(ang), r * np.sin(ang)])
        pts = np.asarray(self.points, dtype=float)
        out = np.empty_like(p)
        seg = np.diff(pts, axis=0)
        lengths = np.linalg.norm(seg, axis=1)
        cum = np.concatenate([[0.0], np.cumsum(lengths)])
        for k in range(len(p)):
            # the nearest point on the polyline, then lookahead metres further along it
            best, best_s = math.inf, 0.0
            for j in range(len(seg)):
                t = float(np.clip((p[k] - pts[j]) @ seg[j] / max(lengths[j] ** 2, 1e-12), 0.0, 1.0))
                d = float(np.linalg.norm(pts[j] + t * seg[j] - p[k]))
                if d < best:
                    best, best_s = d, cum[j] + t * lengths[j]
            s_t = min(best_s + self.lookahead, cum[-1])
            j = int(min(np.searchsorted(cum, s_t, side="right") - 1, len(seg) - 1))
            t = (s_t - cum[j]) / max(lengths[j], 1e-12)
            out[k] = pts[j] + t * seg[j]
        return out

    def __call__(self, obs: Observation) -> np.ndarray:
        tgt = self.target(obs.position, obs.heading)
        rel = tgt - obs.position
        # the target in the frame of the direction of travel (so a body slip angle does not bias the line);
        # the arc through it has curvature 2 y / d^2
        c, s = np.cos(obs.course), np.sin(obs.course)
        x = rel[:, 0] * c + rel[:, 1] * s
        y = -rel[:, 0] * s + rel[:, 1] * c
        curvature = 2.0 * y / np.maximum(x * x + y * y, 1e-6)
        return steer_for_curvature(self.car, curvature, np.abs(obs.speed))


@dataclass
class SpeedPI:
    """Throttle from a PI on the speed error; the brake when more than `brake_band` m/s too fast."""
    target: float | Callable[[float], float]
    kp: float = 0.5            # throttle per m/s
    ki: float = 0.3            # throttle per m/s s
    brake_gain: float = 0.3    # brake per m/s beyond the band
    brake_band: float = 1.0    # m/s
    integral: np.ndarray | None = field(default=None, repr=False)

    def speed_at(self, t: float) -> float:
        return float(self.target(t)) if callable(self.target) else float(self.target)

    def __call__(self, obs: Observation, dt: float) -> tuple[np.ndarray, np.ndarray]:
        error = self.speed_at(obs.time) - obs.speed
        if self.integral is None:
            self.integral = np.zeros_like(error)
        self.integral = np.clip(self.integral + error * dt, -3.0, 3.0)
        throttle = np.clip(self.kp * error + self.ki * self.integral, 0.0, 1.0)
        brake = np.clip(self.brake_gain * (-error - self.brake_band), 0.0, 1.0)
        throttle = np.where(brake > 0.0, 0.0, throttle)
        return throttle, brake


@dataclass
class Driver:
    """Steering plus speed: `steering(obs)` and either `speed` (SpeedPI) or fixed pedals."""
    steering: Callable[[Observation], np.ndarray]
    speed: SpeedPI | None = None
    throttle: float = 0.0
    brake: float = 0.0
    abs: bool = False
    tc: bool = False
    esp: bool = False

    def controls(self, s: Simulation) -> Controls:
        obs = Observation.of(s)
        steer = self.steering(obs)
        if self.speed is not None:
            throttle, brake = self.speed(obs, s.dt)
        else:
            throttle, brake = np.full(len(steer), self.throttle), np.full(len(steer), self.brake)
        if len(steer) == 1:
            return Controls(throttle=float(throttle[0]), brake=float(brake[0]), steer=float(steer[0]),
                            abs=self.abs, tc=self.tc, esp=self.esp)
        return Controls(throttle=throttle, brake=brake, steer=steer, abs=self.abs, tc=self.tc, esp=self.esp)
