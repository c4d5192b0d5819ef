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
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.controls import Controls
from sim.lab.logs import body_frames
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
    course: np.ndarray        # (N,) rad: the direction of travel (the heading when nearly still or reversing)

    @classmethod
    def of(cls, s: Simulation) -> Observation:
        n = s.n
        pos = np.asarray(s.state.position, dtype=float).reshape(n, 3)
        vel = np.asarray(s.state.velocity, dtype=float).reshape(n, 3)
        w = np.asarray(s.state.angular_velocity, dtype=float).reshape(n, 3)
        fwd = body_frames(s.state.orientation)[:, :, 0]
        heading = np.arctan2(fwd[:, 1], fwd[:, 0])
        speed = vel[:, 0] * fwd[:, 0] + vel[:, 1] * fwd[:, 1] + vel[:, 2] * fwd[:, 2]
        moving = np.hypot(vel[:, 0], vel[:, 1]) > 1.0
        # reversing: steer by the heading
        course = np.where(moving & ~(speed < 0.0), np.arctan2(vel[:, 1], vel[:, 0]), heading)
        return cls(s.time, pos[:, :2].copy(), heading, speed, w[:, 2].copy(), course)


@dataclass(frozen=True)
class SteeringReach:
    """What the steering can do, per car (arrays over the cars): wheelbase (m), the largest road-wheel angle
    (rad) and the speed (m/s) at which the steering's speed limit has halved it (0: no limit;
    sim/kernel/steering.py)."""
    wheelbase: np.ndarray
    max_angle: np.ndarray
    limit_speed: np.ndarray

    @classmethod
    def of(cls, car: Vehicle | Sequence[Vehicle]) -> SteeringReach:
        cars = [car] if isinstance(car, Vehicle) else list(car)
        return cls(np.array([c.wheelbase for c in cars], dtype=float),
                   np.array([math.radians(c.steering.max_angle_deg) for c in cars]),
                   np.array([c.steering.limit_speed for c in cars], dtype=float))

    def command(self, curvature, speed) -> np.ndarray:
        """The steering input (-1..1) whose road-wheel angle drives an arc of `curvature` (1/m) at low slip:
        delta = atan(L kappa), as a share of the largest angle at `speed` (m/s)."""
        limited = self.limit_speed > 0.0
        ratio = np.asarray(speed, dtype=float) / np.where(limited, self.limit_speed, 1.0)
        top = np.where(limited, self.max_angle / (1.0 + ratio ** 2), self.max_angle)
        return np.clip(np.arctan(self.wheelbase * np.asarray(curvature)) / np.maximum(top, 1e-6), -1.0, 1.0)


def steer_for_curvature(car: Vehicle | Sequence[Vehicle], curvature, speed) -> np.ndarray:
    """The steering input (-1..1) of each car whose road-wheel angle drives an arc of `curvature` (1/m) at
    low slip: delta = atan(L kappa), as a share of the largest angle at this speed (sim/kernel/steering.py's
    speed limit)."""
    return SteeringReach.of(car).command(curvature, speed)


@dataclass
class OpenLoop:
    """The steering input as a function of time (s) -> -1..1, or with `road_wheel` the front road wheels' mean
    angle (rad, Ackermann applied), given to the car as Controls.steer_angle: past the steering's rate limit
    and speed-dependent ratio, as a test that prescribes the road-wheel angle means it."""
    steer: Callable[[float], float]
    road_wheel: bool = False

    def __call__(self, obs: Observation) -> np.ndarray:
        return np.full(len(obs.speed), float(self.steer(obs.time)))

    @classmethod
    def step(cls, at: float, value: float, rise: float = 0.05, road_wheel: bool = False) -> OpenLoop:
        """0 until `at`, then `value`, reached in `rise` seconds (a steering robot's ramp)."""
        return cls(lambda t: value * min(1.0, max(0.0, (t - at) / rise)) if rise > 0 else (value if t >= at else 0.0),
                   road_wheel)

    @classmethod
    def ramp(cls, at: float, rate: float, most: float = 1.0) -> OpenLoop:
        """0 until `at`, then rising at `rate` per second up to `most`."""
        return cls(lambda t: math.copysign(min(abs(most), abs(rate) * max(0.0, t - at)), rate))

    @classmethod
    def sine(cls, at: float, amplitude: float, frequency: float, cycles: float = 1.0,
             road_wheel: bool = False) -> OpenLoop:
        """A sine of `amplitude` and `frequency` (Hz) from `at`, for `cycles` periods."""
        def f(t):
            x = (t - at) * frequency
            return amplitude * math.sin(2.0 * math.pi * x) if 0.0 <= x <= cycles else 0.0
        return cls(f, road_wheel)


@dataclass
class PathFollower:
    """Pure pursuit: steer so each car's arc passes through the path point `lookahead` metres (one for all,
    or one per car) ahead on the path. The path is a circle (`center`, `radius`, counter-clockwise for a
    left turn) or a polyline (`points`, (K, 2) m). `car`: the car, or the cars of a batch in order. `trim`
    (1/(m^2 s), circles only): an integral of the distance outside the circle added to the arc's curvature, so
    a car that needs more steering than the arc's geometry (an understeering one) still holds the circle
    rather than running wide by the offset that asks for it (held within +-20 m s, as CircleDriver's)."""
    car: Vehicle | Sequence[Vehicle]
    lookahead: float | np.ndarray = 8.0
    center: tuple[float, float] | None = None
    radius: float = 0.0
    points: np.ndarray | None = None
    trim: float = 0.0

    def __post_init__(self):
        self.reach = SteeringReach.of(self.car)
        if self.points is not None:
            pts = np.asarray(self.points, dtype=float)
            seg = np.diff(pts, axis=0)
            lengths = np.sqrt(seg[:, 0] * seg[:, 0] + seg[:, 1] * seg[:, 1])
            self._polyline = (pts, seg, lengths, np.concatenate([[0.0], np.cumsum(lengths)]))

    def target(self, p: np.ndarray, heading: np.ndarray) -> np.ndarray:
        """The point (N, 2) each car at `p` (N, 2) aims at."""
        if self.center is not None:
            rel = p - np.asarray(self.center)
            ang = np.arctan2(rel[:, 1], rel[:, 0]) + self.lookahead / self.radius * np.sign(self.radius)
            r = abs(self.radius)
            return np.asarray(self.center) + np.column_stack([r * np.cos(ang), r * np.sin(ang)])
        pts, seg, lengths, cum = self._polyline
        px, py = p[:, 0], p[:, 1]
        # the nearest point on the polyline (the first segment of the nearest), then lookahead metres further
        best = np.full(len(p), math.inf)
        best_s = np.zeros(len(p))
        for j in range(len(seg)):
            t = np.clip(((px - pts[j, 0]) * seg[j, 0] + (py - pts[j, 1]) * seg[j, 1]) / max(lengths[j] ** 2, 1e-12),
                        0.0, 1.0)
            dx, dy = pts[j, 0] + t * seg[j, 0] - px, pts[j, 1] + t * seg[j, 1] - py
            d = np.sqrt(dx * dx + dy * dy)
            closer = d < best
            best = np.where(closer, d, best)
            best_s = np.where(closer, cum[j] + t * lengths[j], best_s)
        s_t = np.minimum(best_s + self.lookahead, cum[-1])
        j = np.minimum(np.searchsorted(cum, s_t, side="right") - 1, len(seg) - 1)
        t = (s_t - cum[j]) / np.maximum(lengths[j], 1e-12)
        return pts[j] + t[:, None] * seg[j]

    def __call__(self, obs: Observation) -> np.ndarray:
        tgt = self.target(obs.position, obs.heading)
        rel = tgt - obs.position
        # the target in the frame of the direction of travel (so a body slip angle does not bias the line);
        # the arc through it has curvature 2 y / d^2
        c, s = np.cos(obs.course), np.sin(obs.course)
        x = rel[:, 0] * c + rel[:, 1] * s
        y = -rel[:, 0] * s + rel[:, 1] * c
        curvature = 2.0 * y / np.maximum(x * x + y * y, 1e-6)
        if self.trim > 0.0 and self.center is not None:
            outside = np.hypot(*(obs.position - np.asarray(self.center)).T) - abs(self.radius)
            dt = obs.time - getattr(self, "_last", obs.time)
            self._last = obs.time
            self._integral = np.clip(getattr(self, "_integral", 0.0) + outside * dt, -20.0, 20.0)
            curvature = curvature + math.copysign(self.trim, self.radius) * self._integral
        return self.reach.command(curvature, np.abs(obs.speed))


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
        if getattr(self.steering, "road_wheel", False):              # a road-wheel angle (rad), not an input
            return Controls(throttle=throttle, brake=brake, steer=np.zeros(len(steer)), steer_angle=steer,
                            abs=self.abs, tc=self.tc, esp=self.esp)
        return Controls(throttle=throttle, brake=brake, steer=steer, abs=self.abs, tc=self.tc, esp=self.esp)
