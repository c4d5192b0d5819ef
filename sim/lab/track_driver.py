"""A driver that follows a circuit's centre line at a modest, safe pace: pure pursuit of the line for the
steering and a speed profile from the bends' curvature for the pedals. It is what scripted laps (the
timing tests, the screenshots' inputs) are driven by; it does not look for the car's limit.

Speed profile (per station, m/s): v(s) = min(v_top, sqrt(a_lat / |kappa(s)|)), with kappa the curvature
averaged over the car's length, then limited backwards so the car can brake to every later bend:
v(s) <= sqrt(v(s + ds)^2 + 2 a_brake ds). Pedals: throttle k_v (v_target - v), the brake k_b (v - v_target
- band) past a band. Every quantity is an array over the cars, so one call drives a batch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.controls import Controls
from sim.lab.driver import Observation
from sim.lab.driver import SteeringReach
from sim.model.params import Vehicle
from sim.model.track import Track
from sim.simulation import Simulation


def speed_profile(track: Track, a_lat: float, a_brake: float, v_top: float, smooth: float = 5.0) -> np.ndarray:
    """Target speed (m/s) at every station of `track`: the bends' limit sqrt(a_lat / |kappa|) (kappa
    averaged over `smooth` metres), at most v_top, lowered so the car can brake at a_brake (m/s^2) into
    every bend ahead (two passes round the lap, which is closed)."""
    n = len(track.s)
    k = max(1, int(round(smooth / track.ds)))
    kernel = np.ones(2 * k + 1) / (2 * k + 1)
    kappa = np.convolve(np.concatenate([track.curvature[-k:], track.curvature, track.curvature[:k]]), kernel, "valid")
    v = np.minimum(v_top, np.sqrt(a_lat / np.maximum(np.abs(kappa), 1e-9)))
    step = 2.0 * a_brake * track.ds
    for _ in range(2):
        for i in range(n - 1, -1, -1):
            v[i] = min(v[i], math.sqrt(v[(i + 1) % n] ** 2 + step))
    return v


@dataclass
class CentreLineDriver:
    """Drives each car of a Simulation round `track`'s centre line. `lookahead` = base + gain x speed (m)."""
    track: Track
    car: Vehicle | list[Vehicle]
    a_lat: float = 5.0          # m/s^2 the bends are taken at
    a_brake: float = 4.0        # m/s^2 the car slows down at before a bend
    v_top: float = 40.0         # m/s
    lookahead_base: float = 6.0     # m
    lookahead_gain: float = 0.5     # s (m per m/s)
    k_throttle: float = 0.5     # per m/s
    k_brake: float = 0.25       # per m/s
    band: float = 0.5           # m/s over the target before the brake comes on
    abs: bool = True
    tc: bool = True
    stations: np.ndarray | None = field(default=None, repr=False)    # (N,) m: each car's last station

    def __post_init__(self):
        self.reach = SteeringReach.of(self.car)
        self.profile = speed_profile(self.track, self.a_lat, self.a_brake, self.v_top)

    def target_speed(self, s) -> np.ndarray:
        return self.track.sample(s, self.profile)

    def controls(self, sim: Simulation) -> Controls:
        obs = Observation.of(sim)
        s, _, _ = self.track.project(obs.position, hint=self.stations)
        self.stations = s
        speed = np.abs(obs.speed)
        ahead = s + self.lookahead_base + self.lookahead_gain * speed
        rel = np.column_stack([self.track.at(ahead, "x"), self.track.at(ahead, "y")]) - obs.position
        c, sn = np.cos(obs.course), np.sin(obs.course)
        x = rel[:, 0] * c + rel[:, 1] * sn
        y = -rel[:, 0] * sn + rel[:, 1] * c
        steer = self.reach.command(2.0 * y / np.maximum(x * x + y * y, 1e-6), speed)
        error = self.target_speed(s) - obs.speed
        brake = np.clip(self.k_brake * (-error - self.band), 0.0, 1.0)
        throttle = np.where(brake > 0.0, 0.0, np.clip(self.k_throttle * error, 0.0, 1.0))
        return Controls(throttle=throttle, brake=brake, steer=steer, abs=self.abs, tc=self.tc)
