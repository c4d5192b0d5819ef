"""The session's reliability paths: a physics blow-up pauses and offers reset; recording round trip."""
import numpy as np
import pytest

import sim
from app.session import Session
from app.session import Trace


def test_blow_up_pauses_keeps_the_last_good_pose_and_reset_recovers():
    s = Session(sim.load_vehicle("hatchback"), sim.World.flat(), substeps=2)
    s.frame(0.05, lambda dt: sim.Controls(throttle=0.5))
    good = s.curr
    s.sim.state.velocity[:] = np.nan                 # what a blow-up leaves behind
    s.frame(0.05, lambda dt: sim.Controls())
    assert s.blown_up and s.paused and "Press R" in s.message
    assert s.curr is good and np.isfinite(s.pose(0.5).position).all()
    t = s.sim.time
    s.frame(0.5, lambda dt: sim.Controls())          # stays paused
    assert s.sim.time == t
    s.request_reset()
    assert not s.blown_up and not s.paused and s.sim.finite()
    s.frame(0.05, lambda dt: sim.Controls())
    assert s.sim.finite() and s.sim.time > t


def test_single_step_while_paused_and_slow_motion():
    s = Session(sim.load_vehicle("hatchback"), sim.World.flat(), substeps=2)
    s.toggle_pause()
    s.frame(1.0, lambda dt: sim.Controls())
    assert s.sim.steps == 0
    s.request_single_step()
    s.frame(0.016, lambda dt: sim.Controls())
    assert s.sim.steps == 1
    s.toggle_pause()
    s.cycle_slow_motion()
    s.cycle_slow_motion()                             # 0.25x
    s.frame(0.1, lambda dt: sim.Controls())
    assert s.sim.steps == 1 + int(0.025 * 240 + 1e-9)


def test_recorded_trace_replays_to_the_same_state(tmp_path):
    car, world = sim.load_vehicle("hatchback"), sim.load_world("proving_ground")
    a = Session(car, world, substeps=4)
    a.start_recording()
    k = 0

    def wiggle(dt):
        nonlocal k
        k += 1
        if k == 200:
            a.request_reset()
        return sim.Controls(throttle=0.7, steer=np.sin(k / 30.0))
    for _ in range(30):
        a.frame(1 / 60, wiggle)
    path = tmp_path / "t.json"
    a.recording.save(path)
    b = Session(car, world, substeps=4)
    b.start_replay(Trace.load(path))
    while b.replaying:
        b.frame(1 / 60, lambda dt: sim.Controls())
    assert b.sim.steps == a.sim.steps and b.sim.state_hash() == a.sim.state_hash()


def test_trace_from_another_step_size_is_refused(tmp_path):
    s = Session(sim.load_vehicle("hatchback"), sim.World.flat(), substeps=4)
    with pytest.raises(sim.ConfigError, match="recorded at dt"):
        s.start_replay(Trace(1 / 120, 4, "hatchback", "flat", []))
    bad = tmp_path / "x.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(sim.ConfigError, match=r"x\.json: format = 'other' is not allowed"):
        Trace.load(bad)


def test_rewind_then_replaying_the_recorded_inputs_reproduces_the_run_bit_for_bit():
    car, world = sim.load_vehicle("hatchback"), sim.load_world("proving_ground")
    s = Session(car, world, substeps=8)
    s.start_recording()
    k = 0

    def drive(dt):
        nonlocal k
        k += 1
        return sim.Controls(throttle=0.8 if k < 500 else 0.0, brake=0.0 if k < 500 else 1.0,
                            steer=0.6 * np.sin(k / 70.0), abs=True, tc=True)
    while s.sim.steps < 900:
        s.frame(1 / 60, drive)
    final = s.sim.state_hash()
    steps = s.sim.steps
    back = 400
    s.scrub_to(back)                                   # inspect the past: paused, state restored
    assert s.paused and s.sim.steps == steps - back
    rows = s.recording.rows[steps - back:steps]        # the controls the original run used from there
    s.resume_from_scrub()
    s.start_replay(Trace(s.sim.dt, s.sim.substeps, "hatchback", "proving_ground", rows))
    while s.replaying:
        s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.steps == steps
    assert s.sim.state_hash() == final


def test_rewind_keeps_the_last_thirty_seconds():
    s = Session(sim.load_vehicle("hatchback"), sim.World.flat(), substeps=1)
    s.sim.run(np.zeros((10, 4)))
    for _ in range(7300):
        s.physics_step(lambda dt: sim.Controls())
    assert len(s.rewind) == 7200 == round(30 / s.sim.dt)
    s.scrub_to(10_000)                                 # as far back as it goes
    assert s.sim.steps == 10 + 7300 - 7199


def test_compare_mode_drives_variants_with_the_same_inputs_and_resyncs_them_after_a_jump():
    """A variant that is the car itself stays bit for bit on the car (same inputs, same physics, whatever
    else is stepped beside it); another model family drifts away; a reset puts every variant back on the
    car; at most three ride along."""
    from sim.lab import families as models
    car = sim.load_vehicle("hatchback")
    s = Session(car, sim.World.flat(), substeps=2)
    assert s.add_companion("same", car) == ""
    assert s.add_companion("mf61", models.variant(car, "mf61")) == ""
    controls = lambda dt: sim.Controls(throttle=0.8, steer=0.4)  # noqa: E731
    for _ in range(120):
        s.frame(1 / 60, controls)
    same, other = s.companions
    assert same.sim.state_hash() == s.sim.state_hash() and same.sim.steps == s.sim.steps
    assert other.sim.state_hash() != s.sim.state_hash()          # another tire: 6 mm apart after 2 s
    assert np.linalg.norm(np.asarray(other.sim.state.position) - np.asarray(s.sim.state.position)) > 0.001
    assert other.sim.vehicle.front_tire.model == "mf61" and s.sim.vehicle.front_tire.model == "magic"
    s.reset_car(spawn_index=0)
    assert np.array_equal(other.sim.state.position, s.sim.state.position)
    for _ in range(30):
        s.frame(1 / 60, controls)
    assert other.sim.vehicle.front_tire.model == "mf61"        # its own parameters again after the resync
    assert s.add_companion("fgear", models.variant(car, "fgear")) == ""
    assert "at most 3" in s.add_companion("simple", models.variant(car, "simple"))
    s.remove_companion("same")
    assert [c.label for c in s.companions] == ["mf61", "fgear"]
