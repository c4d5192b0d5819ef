"""Cameras: a chase camera behind the car, an orbit camera around the car, and a free camera.

Each gives (eye, target) in world coordinates. The chase camera's smoothing is stepped exactly for the
frame time, so it behaves the same at any frame rate.
"""
from __future__ import annotations

import math

import numpy as np

from render.mathx import look_at
from render.mathx import perspective


class Camera:
    name = "camera"
    fov = 60.0

    def __init__(self):
        self.eye = np.array([-8.0, 0.0, 3.0])
        self.target = np.zeros(3)

    def view(self) -> np.ndarray:
        return look_at(self.eye, self.target)

    def projection(self, aspect: float) -> np.ndarray:
        return perspective(self.fov, aspect, 0.1, 3000.0)

    def update(self, car_pos, car_fwd, frame_dt: float) -> None:
        pass

    def drag(self, dx: float, dy: float) -> None:
        pass

    def zoom(self, clicks: float) -> None:
        pass


def critically_damped(x, v, u0, u1, dt: float, omega: float):
    """One exact step of a critically damped follower x'' = omega^2 (u - x) - 2 omega x' whose target u
    moves in a straight line from u0 to u1 during the step (dt > 0). Returns (x, x') at the end.

    Exact for a target that moves at a constant rate within each step, so a motion sampled at 30 or at
    144 frames a second gives the same follower (up to how well the samples describe the motion). At a
    steady target rate s the follower trails by 2 s / omega; it never overshoots a still target."""
    s = (u1 - u0) / dt
    lag = -2.0 * s / omega                  # the steady trailing offset for this target rate
    f0 = x - u0 - lag                       # what is left to settle, and its rate
    f0_dot = v - s
    b = f0_dot + omega * f0
    decay = math.exp(-omega * dt)
    f = (f0 + b * dt) * decay
    f_dot = (f0_dot - omega * b * dt) * decay
    return u1 + lag + f, s + f_dot


def wrap_angle(a: float) -> float:
    """a in [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


class ChaseCamera(Camera):
    """Behind and above the car, looking at it: the camera sits `distance` behind the car's heading (its
    body x axis on the ground, so also when it reverses) and `height` above it.

    Two followers soften the motion without letting the car get away:
    - the angle around the car follows the heading, critically damped (`yaw_rate`), so a turn shows the
      car's side a little; it never trails the heading by more than `max_yaw_lag`;
    - the point the camera hangs from (the pivot) follows the car, critically damped (`follow_rate`), but
      stays within `slack` x distance of it horizontally and `slack_z` vertically, so at any speed the eye
      is within that much of its nominal distance and the car keeps its size on screen.
    Both are stepped exactly for a target moving at a constant rate within a frame, so the camera does
    the same at any frame rate. A move no car makes in a frame (a reset, a rewind scrub) is a jump: the
    camera snaps to its place behind the car at once instead of flying there."""
    name = "chase"

    JUMP_SPEED = 150.0            # m/s: a car moving faster than this between two frames has jumped
    JUMP_MARGIN = 1.0             # m: plus this much (frames of no time, interpolation)

    def __init__(self, distance: float = 7.5, height: float = 2.6, look_height: float = 0.6,
                 yaw_rate: float = 4.0, follow_rate: float = 5.0, slack: float = 0.08, slack_z: float = 0.3,
                 max_yaw_lag: float = math.radians(60.0)):
        super().__init__()
        self.distance = distance          # m behind the car, horizontally
        self.height = height              # m above the car's centre of mass
        self.look_height = look_height    # m: the camera looks at this point above the centre of mass
        self.yaw_rate = yaw_rate          # rad/s: natural frequency of the angle's follower
        self.follow_rate = follow_rate    # rad/s: natural frequency of the pivot's follower
        self.slack = slack                # share of the distance the pivot may trail the car horizontally
        self.slack_z = slack_z            # m the pivot may trail the car vertically
        self.max_yaw_lag = max_yaw_lag    # rad
        self.primed = False
        self.pivot = np.zeros(3)
        self.pivot_rate = np.zeros(3)
        self.yaw = 0.0                    # rad: the camera looks along this direction (unwrapped)
        self.yaw_v = 0.0
        self.car = np.zeros(3)            # the car's position and heading (unwrapped) at the last update
        self.heading = 0.0

    def jumped(self, car_pos: np.ndarray, frame_dt: float) -> bool:
        """True when the car moved farther since the last frame than any car can in frame_dt."""
        return float(np.linalg.norm(car_pos - self.car)) > self.JUMP_SPEED * max(frame_dt, 0.0) + self.JUMP_MARGIN

    def snap(self, car_pos: np.ndarray, heading: float) -> None:
        """Put the camera at its nominal place behind the car, at rest."""
        self.pivot = car_pos.copy()
        self.pivot_rate = np.zeros(3)
        self.yaw = heading
        self.yaw_v = 0.0

    def update(self, car_pos, car_fwd, frame_dt):
        p = np.asarray(car_pos, float)
        fx, fy = float(car_fwd[0]), float(car_fwd[1])
        # the heading on the ground; a car standing on its nose or tail keeps the last one
        measured = math.atan2(fy, fx) if math.hypot(fx, fy) > 1e-3 else self.heading
        heading = self.heading + wrap_angle(measured - self.heading)      # unwrapped: no 2 pi steps
        if not self.primed or self.jumped(p, frame_dt):
            heading = measured
            self.snap(p, heading)
        elif frame_dt <= 0.0:                        # no time passed: move along with the car
            self.pivot = self.pivot + (p - self.car)
            self.yaw += heading - self.heading
        else:
            self.yaw, self.yaw_v = critically_damped(self.yaw, self.yaw_v, self.heading, heading, frame_dt,
                                                     self.yaw_rate)
            lag = self.yaw - heading
            if abs(lag) > self.max_yaw_lag:          # held at the limit, turning with the car
                self.yaw = heading + math.copysign(self.max_yaw_lag, lag)
                self.yaw_v = (heading - self.heading) / frame_dt
            self.pivot, self.pivot_rate = critically_damped(self.pivot, self.pivot_rate, self.car, p, frame_dt,
                                                            self.follow_rate)
            self.limit_pivot(p, (p - self.car) / frame_dt)
        self.car = p
        self.heading = heading
        self.primed = True
        back = np.array([math.cos(self.yaw), math.sin(self.yaw), 0.0])
        self.eye = self.pivot - back * self.distance + np.array([0.0, 0.0, self.height])
        self.target = p + np.array([0.0, 0.0, self.look_height])

    def limit_pivot(self, p: np.ndarray, car_rate: np.ndarray) -> None:
        """Keep the pivot within the slack of the car, as on a rope: at the limit it keeps no speed away
        from the car (relative to the car), only along the limit."""
        e = self.pivot - p
        rel = self.pivot_rate - car_rate
        reach = self.slack * self.distance
        eh = math.hypot(e[0], e[1])
        if eh > reach:
            out = e[:2] / eh
            e[:2] = out * reach
            rel[:2] -= out * max(float(rel[:2] @ out), 0.0)
        if abs(e[2]) > self.slack_z:
            e[2] = math.copysign(self.slack_z, e[2])
            if rel[2] * e[2] > 0.0:
                rel[2] = 0.0
        self.pivot = p + e
        self.pivot_rate = car_rate + rel

    def zoom(self, clicks):
        self.distance = float(np.clip(self.distance * (0.9 ** clicks), 3.0, 40.0))


class OrbitCamera(Camera):
    """Around the car: drag to turn, wheel to zoom."""
    name = "orbit"

    def __init__(self):
        super().__init__()
        self.yaw = math.radians(-140.0)
        self.pitch = math.radians(20.0)
        self.distance = 9.0

    def update(self, car_pos, car_fwd, frame_dt):
        self.target = np.asarray(car_pos, float)
        c = math.cos(self.pitch)
        self.eye = self.target + self.distance * np.array([c * math.cos(self.yaw), c * math.sin(self.yaw),
                                                           math.sin(self.pitch)])

    def drag(self, dx, dy):
        self.yaw -= dx * 0.008
        self.pitch = float(np.clip(self.pitch + dy * 0.008, math.radians(-5), math.radians(85)))

    def zoom(self, clicks):
        self.distance = float(np.clip(self.distance * (0.9 ** clicks), 2.0, 200.0))


class FreeCamera(Camera):
    """Anywhere: drag to look around, wheel to fly forward or back."""
    name = "free"

    def __init__(self):
        super().__init__()
        self.yaw = 0.0
        self.pitch = math.radians(-15.0)
        self.placed = False

    def forward(self) -> np.ndarray:
        c = math.cos(self.pitch)
        return np.array([c * math.cos(self.yaw), c * math.sin(self.yaw), math.sin(self.pitch)])

    def update(self, car_pos, car_fwd, frame_dt):
        if not self.placed:                       # start where the chase camera would be
            self.eye = np.asarray(car_pos, float) + np.array([-10.0, -6.0, 5.0])
            d = np.asarray(car_pos) - self.eye
            self.yaw = math.atan2(d[1], d[0])
            self.pitch = math.atan2(d[2], math.hypot(d[0], d[1]))
            self.placed = True
        self.target = self.eye + self.forward()

    def drag(self, dx, dy):
        self.yaw -= dx * 0.005
        self.pitch = float(np.clip(self.pitch - dy * 0.005, -1.5, 1.5))

    def zoom(self, clicks):
        self.eye = self.eye + self.forward() * clicks * 2.0
