"""The fixed-step loop and the interpolation the renderer uses."""
import math

import numpy as np
import pytest

import sim
from app.loop import FixedStepLoop
from app.session import Session
from render.interp import Pose
from render.interp import blend
from render.interp import slerp


def test_steps_and_alpha_for_given_frame_times():
    loop = FixedStepLoop(dt=0.01)
    assert loop.advance(0.025) == (2, pytest.approx(0.5))
    assert loop.advance(0.004) == (0, pytest.approx(0.9))
    steps, alpha = loop.advance(0.001)                # 0.009 + 0.001 = one whole step
    assert steps == 1 and alpha == pytest.approx(0.0, abs=1e-9)
    assert loop.advance(0.0) == (0, pytest.approx(0.0, abs=1e-9))


def test_frame_time_is_clamped_and_steps_are_bounded():
    loop = FixedStepLoop(dt=0.01, max_frame_time=0.25, max_steps_per_frame=60)
    steps, _ = loop.advance(5.0)                      # a 5 s stall counts as 0.25 s
    assert steps == 25
    tight = FixedStepLoop(dt=0.01, max_frame_time=1.0, max_steps_per_frame=10)
    steps, alpha = tight.advance(0.5)                 # 50 owed, 10 allowed: the rest is dropped
    assert steps == 10 and alpha == 0.0


def test_pause_and_slow_motion_scale_the_owed_time():
    loop = FixedStepLoop(dt=0.01)
    assert loop.advance(0.1, time_scale=0.0)[0] == 0
    assert loop.advance(0.1, time_scale=0.25)[0] == 2       # 0.025 s of simulated time


def run_at_fps(fps: int, trace: np.ndarray) -> str:
    """Drive a session with frames of about 1/fps (a fake, uneven clock) until the trace is used up;
    return the hash of the state right after its last step."""
    car = sim.load_vehicle("hatchback")
    session = Session(car, sim.load_world("proving_ground"), dt=1 / 240, substeps=4)
    k = 0
    result = {}

    def controls(dt):
        nonlocal k
        if k == len(trace):                      # asked for the step after the trace: hash the state now
            result["hash"] = session.sim.state_hash()
        row = trace[k] if k < len(trace) else (0.0, 0.0, 0.0, 0.0)
        k += 1
        return sim.Controls(*row)
    frame = 0
    while "hash" not in result:
        jitter = 1.0 + 0.2 * math.sin(frame * 0.37)
        session.frame(jitter / fps, controls)
        frame += 1
    return result["hash"]


def test_render_rate_does_not_change_the_physics():
    rng = np.random.default_rng(5)
    n = 480
    trace = np.column_stack([np.clip(rng.normal(0.6, 0.3, n), -1, 1), np.clip(rng.normal(0.0, 0.3, n), 0, 1),
                             np.sin(np.arange(n) / 40.0), np.zeros(n)])
    hashes = {fps: run_at_fps(fps, trace) for fps in (30, 60, 144)}
    assert len(set(hashes.values())) == 1, hashes


def pose(t, p, q, l, steer, angle):
    return Pose(t, np.array(p, float), np.array(q, float), np.array(l, float), np.array(steer, float),
                np.array(angle, float), np.ones(4))


def test_blend_at_zero_and_one_equals_the_snapshots():
    a = pose(1.0, (0, 0, 0.5), (1, 0, 0, 0), [0.3] * 4, [0.1] * 4, [6.2] * 4)
    q = np.array([math.cos(0.4), 0, 0, math.sin(0.4)])
    b = pose(1.1, (1, 2, 0.6), q, [0.31] * 4, [0.2] * 4, [0.1] * 4)
    for alpha, ref in ((0.0, a), (1.0, b)):
        p = blend(a, b, alpha)
        assert p.time == ref.time
        for f in ("position", "orientation", "wheel_l", "wheel_steer", "wheel_angle"):
            assert np.array_equal(getattr(p, f), getattr(ref, f)), f
    mid = blend(a, b, 0.5)
    assert mid.position == pytest.approx((0.5, 1.0, 0.55))
    # the spin angle goes the short way round through 2 pi: 6.2 -> 0.1 passes 0
    assert mid.wheel_angle[0] == pytest.approx(((6.2 + (0.1 + 2 * math.pi - 6.2) / 2)) % (2 * math.pi))


def test_slerp_stays_normalised_and_halves_the_angle():
    q0 = np.array([1.0, 0, 0, 0])
    q1 = np.array([math.cos(1.2), math.sin(1.2) * 0.6, 0, math.sin(1.2) * 0.8])
    for t in np.linspace(0, 1, 11):
        assert np.linalg.norm(slerp(q0, q1, t)) == pytest.approx(1.0, abs=1e-12)
    half = slerp(q0, q1, 0.5)
    assert half[0] == pytest.approx(math.cos(0.6))          # half of the rotation angle 2.4 rad
    assert slerp(q0, -q1, 0.5) == pytest.approx(half)        # q and -q are the same rotation
