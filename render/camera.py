"""Cameras: a smooth chase camera, an orbit camera around the car, and a free camera.

Each gives (eye, target) in world coordinates; smoothing uses rates per second with the frame time.
"""
from __future__ import annotations

import math

import numpy as np

from render.mathx import look_at, perspective


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


class ChaseCamera(Camera):
    """Behind and above the car, following its heading with exponential smoothing."""
    name = "chase"

    def __init__(self, distance: float = 7.5, height: float = 2.6, rate: float = 4.0):
        super().__init__()
        self.distance = distance      # m behind the car
        self.height = height          # m above the car's centre of mass
        self.rate = rate              # 1/s: how fast the camera catches up
        self.primed = False

    def update(self, car_pos, car_fwd, frame_dt):
        fwd = np.array([car_fwd[0], car_fwd[1], 0.0])
        n = np.linalg.norm(fwd)
        fwd = fwd / n if n > 1e-6 else np.array([1.0, 0.0, 0.0])
        desired = np.asarray(car_pos) - fwd * self.distance + np.array([0.0, 0.0, self.height])
        target = np.asarray(car_pos) + np.array([0.0, 0.0, 0.6])
        k = 1.0 if not self.primed else 1.0 - math.exp(-self.rate * max(frame_dt, 0.0))
        self.eye = self.eye + (desired - self.eye) * k
        self.target = target
        self.primed = True

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
