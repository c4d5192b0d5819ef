"""What the renderer draws: a copy of the sim's drawable state, and the blend between two of them.

Positions, lengths, spin rates, camber and toe are lerped, orientations slerped, spin angles blended
the short way round.
Nothing here recomputes physics: every field is copied from the simulation's state or telemetry.
"""
from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

import numpy as np


@dataclass(frozen=True)
class Pose:
    time: float                 # s, simulated
    position: np.ndarray        # (3,) centre of mass, world
    orientation: np.ndarray     # (4,) (w, x, y, z)
    wheel_l: np.ndarray         # (4,) suspension length l, m
    wheel_steer: np.ndarray     # (4,) rad
    wheel_angle: np.ndarray     # (4,) spin angle, rad
    wheel_grounded: np.ndarray  # (4,) 0/1
    wheel_omega: np.ndarray = field(default_factory=lambda: np.zeros(4))   # (4,) spin rate, rad/s (the blur)
    # (4,) rad: the axle's turn about the body's x by the camber (left wheels -camber, right +camber, as
    # sim.WheelGeometry.camber) and its turn about z by the toe on top of the steering angle, at the
    # wheel's travel (the suspension geometry's camber and toe curves, docs/physics.md §7.1)
    wheel_camber: np.ndarray = field(default_factory=lambda: np.zeros(4))
    wheel_toe: np.ndarray = field(default_factory=lambda: np.zeros(4))


SIDE = np.array([1.0, -1.0, 1.0, -1.0])    # FL FR RL RR: +1 on the left (the telemetry's camber_body and toe
#                                           are signed per side: - top inward, + toe-in)


def capture(sim, vehicle: int = 0) -> Pose:
    """Copy vehicle `vehicle`'s drawable state out of the simulation (through its state and telemetry
    views)."""
    state, tel = sim.state, sim.telemetry

    def pick(a):
        return np.array(a if sim.n == 1 else a[vehicle], dtype=float)
    return Pose(sim.time, pick(state.position), pick(state.orientation), pick(tel.l), pick(state.wheel_steer),
                pick(state.wheel_angle), pick(tel.grounded), pick(state.wheel_omega), -SIDE * pick(tel.camber_body),
                -SIDE * pick(tel.toe))


def slerp(q0: np.ndarray, q1: np.ndarray, t: float) -> np.ndarray:
    """Spherical linear interpolation of unit quaternions, the short way; the result is unit length."""
    q0 = np.asarray(q0, float)
    q1 = np.asarray(q1, float)
    d = float(np.dot(q0, q1))
    if d < 0.0:
        q1, d = -q1, -d
    if d > 0.9995:
        q = q0 + t * (q1 - q0)
    else:
        th = np.arccos(d)
        q = (np.sin((1 - t) * th) * q0 + np.sin(t * th) * q1) / np.sin(th)
    return q / np.linalg.norm(q)


def blend_angle(a0: np.ndarray, a1: np.ndarray, t: float) -> np.ndarray:
    diff = (a1 - a0 + np.pi) % (2 * np.pi) - np.pi
    return (a0 + t * diff) % (2 * np.pi)


def blend(prev: Pose, curr: Pose, alpha: float) -> Pose:
    """The state alpha of the way from prev to curr (alpha 0 -> prev, 1 -> curr, exactly)."""
    if alpha <= 0.0:
        return prev
    if alpha >= 1.0:
        return curr
    lerp = lambda a, b: a * (1.0 - alpha) + b * alpha  # noqa: E731
    return Pose(lerp(prev.time, curr.time), lerp(prev.position, curr.position),
                slerp(prev.orientation, curr.orientation, alpha), lerp(prev.wheel_l, curr.wheel_l),
                lerp(prev.wheel_steer, curr.wheel_steer), blend_angle(prev.wheel_angle, curr.wheel_angle, alpha),
                curr.wheel_grounded, lerp(prev.wheel_omega, curr.wheel_omega),
                lerp(prev.wheel_camber, curr.wheel_camber), lerp(prev.wheel_toe, curr.wheel_toe))
