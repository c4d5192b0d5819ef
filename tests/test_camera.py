"""The chase camera fed synthetic car poses frame by frame (no window, no wall clock): it stays behind
the car's heading at its distance at any speed and in reverse, keeps the car in view in a turn, does the
same at any frame rate, and snaps to a car that jumps. Then the car's drawn shape follows its parameters."""
from __future__ import annotations

import math

import numpy as np
import pytest

from render.camera import ChaseCamera, FreeCamera, OrbitCamera, critically_damped

ASPECT = 16 / 9


def drive(cam, motion, fps: float, seconds: float, check=None):
    """Feed cam the poses motion(t) -> (position, heading angle) at fps for seconds; check(cam, pos, fwd)
    after every frame. Returns the last (position, forward)."""
    n = int(round(seconds * fps))
    for k in range(n + 1):
        t = k / fps
        pos, yaw = motion(t)
        fwd = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        cam.update(np.asarray(pos, float), fwd, 0.0 if k == 0 else 1.0 / fps)
        if check is not None:
            check(cam, np.asarray(pos, float), fwd)
    return np.asarray(pos, float), fwd


def horizontal(v) -> float:
    return float(math.hypot(v[0], v[1]))


def in_view(cam, point) -> bool:
    clip = cam.projection(ASPECT) @ cam.view() @ np.array([*point, 1.0])
    w = clip[3]
    return bool(w > 0 and abs(clip[0]) < w and abs(clip[1]) < w)


def behind_at_distance(tolerance: float):
    def check(cam, pos, fwd):
        off = cam.eye - pos
        assert np.dot(off, fwd) < 0.0, "the eye is not behind the car's heading"
        assert abs(horizontal(off) - cam.distance) < tolerance * cam.distance, horizontal(off)
    return check


def test_straight_at_80_m_s_the_eye_stays_behind_at_its_distance():
    cam = ChaseCamera()
    drive(cam, lambda t: ((80.0 * t, 0.0, 0.5), 0.0), 60, 5.0, behind_at_distance(0.15))
    # at a steady speed the pivot sits at its limit: the eye trails by exactly the slack
    assert horizontal(cam.eye - np.array([400.0, 0.0, 0.5])) == pytest.approx(cam.distance * (1 + cam.slack))


def test_reversing_the_eye_stays_behind_the_heading():
    cam = ChaseCamera()
    heading = math.radians(30.0)
    back = np.array([-math.cos(heading), -math.sin(heading), 0.0])
    drive(cam, lambda t: (np.array([5.0, -3.0, 0.5]) + back * 10.0 * t, heading), 60, 5.0, behind_at_distance(0.15))


def test_in_a_steady_circle_the_car_stays_in_view():
    radius, speed = 40.0, 20.0
    rate = speed / radius

    def motion(t):
        a = rate * t
        return (radius * math.sin(a), radius * (1.0 - math.cos(a)), 0.5), a

    def check(cam, pos, fwd):
        left = np.array([-fwd[1], fwd[0], 0.0])
        for dx in (-2.2, 2.2):                    # the corners of a car-sized box, not only its centre
            for dy in (-0.9, 0.9):
                for dz in (-0.5, 0.8):
                    assert in_view(cam, pos + dx * fwd + dy * left + (0, 0, dz))
        behind_at_distance(0.15)(cam, pos, fwd)
    cam = ChaseCamera()
    drive(cam, motion, 60, 10.0, check)
    # the angle follower trails the heading by 2 r / omega in a steady turn: the inside of the turn shows
    assert cam.yaw - rate * 10.0 == pytest.approx(-2.0 * rate / cam.yaw_rate, abs=1e-3)


@pytest.mark.parametrize("name,motion", [
    ("pull away", lambda t: ((0.1 * t * t, 0.0, 0.5 + 0.02 * math.sin(3 * t)), 0.0)),
    ("accelerating circle", lambda t: ((40.0 * math.sin((5 * t + 2.5 * t * t) / 40), 40.0 * (1 - math.cos(
        (5 * t + 2.5 * t * t) / 40)), 0.5), (5 * t + 2.5 * t * t) / 40)),
    ("slalom", lambda t: ((15.0 * t, 3.0 * math.sin(1.5 * t), 0.5), math.atan2(4.5 * math.cos(1.5 * t), 15.0))),
])
def test_the_frame_rate_does_not_change_the_camera(name, motion):
    eyes = {}
    for fps in (30, 60, 144):
        cam = ChaseCamera()
        drive(cam, motion, fps, 3.0)
        eyes[fps] = cam.eye.copy()
    assert np.linalg.norm(eyes[30] - eyes[144]) < 0.01, eyes
    assert np.linalg.norm(eyes[60] - eyes[144]) < 0.01, eyes


def nominal_eye(cam, pos, fwd):
    return pos - cam.distance * fwd + np.array([0.0, 0.0, cam.height])


def test_a_jump_snaps_the_camera_to_its_place():
    cam = ChaseCamera()
    drive(cam, lambda t: ((20.0 * t, 0.0, 0.5), 0.0), 60, 2.0)
    far = np.array([40.0 + 50.0, 0.0, 0.5])          # 50 m on, turned a quarter round, in one frame
    fwd = np.array([0.0, 1.0, 0.0])
    cam.update(far, fwd, 1 / 60)
    assert np.linalg.norm(cam.eye - nominal_eye(cam, far, fwd)) < 0.05
    # a move a car can make in a frame is not a jump: the camera follows it smoothly
    cam.update(far + (0.0, 1.0, 0.0), fwd, 1 / 60)
    assert not np.allclose(cam.eye, nominal_eye(cam, far + (0.0, 1.0, 0.0), fwd))


def test_a_spin_keeps_the_camera_within_its_largest_lag():
    cam = ChaseCamera()

    def check(cam, pos, fwd):
        assert abs(cam.yaw - math.atan2(fwd[1], fwd[0]) - 2 * math.pi * round(
            (cam.yaw - math.atan2(fwd[1], fwd[0])) / (2 * math.pi))) <= cam.max_yaw_lag + 1e-9
        assert in_view(cam, pos)
    drive(cam, lambda t: ((0.0, 0.0, 0.5), 4.0 * t), 60, 3.0, check)


def test_the_follower_step_is_exact_for_a_steadily_moving_target():
    """One step of dt equals many small ones (the target moving at the same rate), and a still target is
    approached without overshoot."""
    omega, rate = 3.0, 2.0
    x, v = critically_damped(1.0, 0.5, 0.0, rate * 0.5, 0.5, omega)
    xs, vs = 1.0, 0.5
    for k in range(500):
        xs, vs = critically_damped(xs, vs, rate * k * 0.001, rate * (k + 1) * 0.001, 0.001, omega)
    assert (x, v) == pytest.approx((xs, vs), abs=1e-9)
    x, v = 1.0, 0.0
    for _ in range(100):
        x, v = critically_damped(x, v, 0.0, 0.0, 0.05, omega)
        assert x >= 0.0


def test_orbit_and_free_cameras_still_follow_the_car():
    pos, fwd = np.array([10.0, 5.0, 0.5]), np.array([1.0, 0.0, 0.0])
    orbit = OrbitCamera()
    orbit.update(pos, fwd, 1 / 60)
    assert np.linalg.norm(orbit.eye - pos) == pytest.approx(orbit.distance)
    assert in_view(orbit, pos)
    free = FreeCamera()
    free.update(pos, fwd, 1 / 60)
    assert in_view(free, pos)
