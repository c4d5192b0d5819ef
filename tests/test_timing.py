"""Lap timing (issue 31): crossings interpolated within a physics step, splits, invalid laps, the live delta,
laps per setup; a scripted lap driven by the car and timed against its recorded positions."""
import math

import numpy as np
import pytest

import sim
from sim.lab.track_driver import CentreLineDriver
from sim.model.track_toml import track_from_dict
from sim.timing import LapTimer

ASPHALT, CURB, GRASS = 0, 1, 2
ON = [ASPHALT] * 4


def ring(radius=100.0, n=24, sectors=(8, 16)):
    """A counter-clockwise circle from (radius, 0): its start/finish line is x = radius near y = 0."""
    pts = [{"x": radius * math.cos(2 * math.pi * k / n), "y": radius * math.sin(2 * math.pi * k / n),
            **({"sector": True} if k in sectors else {})} for k in range(n)]
    track, _, _ = track_from_dict("ring", {"points": pts}, ["asphalt", "curb", "grass", "gravel"])
    return track


def drive_round(timer, track, speed, dt, t0=0.0, s0=-5.0, laps=1.0, surfaces=None, setup=None):
    """Feed the timer positions on the centre line at constant `speed` (m/s), every dt, from station s0 for
    `laps` laps; returns the time and the station of the next step."""
    t, s = t0, s0
    while s < s0 + laps * track.length:
        if setup is not None:
            timer.setup = setup(s)
        timer.update(t, track.point(s)[:2], surfaces(s) if surfaces else ON)
        t += dt
        s += speed * dt
    return t, s


def test_a_crossing_is_interpolated_within_the_step():
    track = ring()
    timer = LapTimer(track, [ASPHALT, CURB])
    # the line at (100, 0) faces +y; the car moves 0.8 m in a 0.1 s step from y = -0.3: it crosses 0.3 / 0.8 of
    # the way through, at t = 1.0375 s
    assert timer.update(1.0, (100.0, -0.3), ON) == []
    events = timer.update(1.1, (100.0, 0.5), ON)
    assert [e[0] for e in events] == ["start"] and events[0][1].start == pytest.approx(1.0375, abs=1e-12)


def test_laps_splits_delta_and_best_lap():
    track = ring()
    timer = LapTimer(track, [ASPHALT, CURB])
    end, _ = drive_round(timer, track, 20.0, 1 / 240, laps=2.0)
    first = timer.laps[0]
    assert len(timer.laps) == 1 and first.valid and first.number == 1
    # on the chords of the polyline, 20 m/s round the lap: its length / 20 s
    assert first.time == pytest.approx(track.length / 20.0, abs=1e-3)
    assert first.sectors == pytest.approx([track.length / 60.0] * 3, abs=1e-3) and sum(first.sectors) == \
        pytest.approx(first.time, abs=1e-9)
    # the next lap 5 m/s faster from 5 m past the line: at lap distance d it is 5 / 20 + (d - 5) / 25 s into the
    # lap, and the best lap was d / 20 s into it
    timer2 = LapTimer(track, [ASPHALT, CURB])
    t, s = drive_round(timer2, track, 20.0, 1 / 240, laps=1.0 + 10.0 / track.length)
    t, s = drive_round(timer2, track, 25.0, 1 / 240, t0=t, s0=s - track.length, laps=0.5)
    d = timer2.current.distance[-1]
    assert timer2.delta(t - 1 / 240) == pytest.approx(5.0 / 20.0 + (d - 5.0) / 25.0 - d / 20.0, abs=2e-3)
    assert end > 0 and timer.best() is first


def test_cutting_the_track_and_changing_the_setup_invalidate_a_lap():
    track = ring()
    # one step with all four wheels on grass, a third of the way round
    timer = LapTimer(track, [ASPHALT, CURB])
    drive_round(timer, track, 30.0, 1 / 240, laps=2.2,
                surfaces=lambda s: [GRASS] * 4 if abs(s - 200.0) < 0.1 else ON)
    assert not timer.laps[0].valid and "cut the track at 200 m (sector 1)" == timer.laps[0].why
    assert timer.laps[1].valid and timer.best() is timer.laps[1]
    # three wheels on grass and one on a kerb is still on the track
    timer = LapTimer(track, [ASPHALT, CURB])
    drive_round(timer, track, 30.0, 1 / 240, laps=1.2, surfaces=lambda s: [GRASS, GRASS, GRASS, CURB])
    assert timer.laps[0].valid
    # laps are kept per setup; a setup changed during a lap spoils it
    timer = LapTimer(track, [ASPHALT, CURB], setup="soft")
    drive_round(timer, track, 30.0, 1 / 240, laps=3.1,
                setup=lambda s: "soft" if s < track.length + 100.0 else "stiff")
    soft, mixed, stiff = timer.laps
    assert (soft.setup, soft.valid) == ("soft", True) and (stiff.setup, stiff.valid) == ("stiff", True)
    assert not mixed.valid and mixed.why == "the setup changed during the lap"
    assert timer.best("soft") is soft and timer.best("stiff") is stiff


def test_backwards_over_a_line_takes_its_split_back_and_a_jump_ends_the_lap():
    track = ring()
    timer = LapTimer(track, [ASPHALT, CURB])
    t, _ = drive_round(timer, track, 20.0, 0.01, laps=track.sectors[1] / track.length + 0.01)
    assert len(timer.current.sectors) == 1
    for s in np.arange(track.sectors[1] + 5.0, track.sectors[1] - 5.0, -0.2):     # reversing over the line
        timer.update(t, track.point(s)[:2], ON)
        t += 0.01
    assert timer.current.sectors == []
    t, _ = drive_round(timer, track, 20.0, 0.01, t0=t, s0=track.sectors[1] - 5.0,
                    laps=1.0 - track.sectors[1] / track.length + 0.01)
    assert len(timer.laps) == 1 and len(timer.laps[0].sectors) == 3
    timer.jump()                                                   # a reset: the lap in progress is not timed
    assert timer.current is None
    drive_round(timer, track, 20.0, 0.01, t0=t, s0=40.0, laps=0.95)
    assert len(timer.laps) == 1 and timer.current is not None and timer.current.number == 2


def scripted_lap(world, car, substeps, until_laps=1, limit=400.0, a_lat=5.0):
    """Drive `car` round `world`'s track from its first spawn with the centre-line driver; returns the
    timer, the recorded (time, x, y) of every step, and the events."""
    s = sim.Simulation(car, world, dt=1 / 240, substeps=substeps)
    x, y, yaw = world.spawns[0]
    ground = lambda px, py: float(world.ray_cast((px, py, 100.0), (0, 0, -1), 200.0).P[2])   # noqa: E731
    s.reset(position=(x, y, sim.spawn_height(car, x, y, math.radians(yaw), ground)), yaw=math.radians(yaw))
    driver = CentreLineDriver(world.track, car, a_lat=a_lat)
    timer = LapTimer(world.track, [world.surface_index[n] for n in world.track.on_track_surfaces])
    rows = [(s.time, *np.asarray(s.state.position)[:2])]
    while len(timer.laps) < until_laps and s.time < limit:
        s.step(driver.controls(s))                               # the watchdog raises on a blow-up
        rows.append((s.time, *np.asarray(s.state.position)[:2]))
        timer.update(s.time, s.state.position, s.telemetry.surface)
    return timer, np.array(rows)


def hand_crossing(rows, c, t_hat):
    """The first forward crossing of the line through c facing t_hat: the recorded steps either side of it,
    and the time interpolated between them: t0 + dt (c - p0).t / (p1 - p0).t."""
    d = (rows[:, 1:] - c) @ t_hat
    k = int(np.flatnonzero((d[:-1] < 0.0) & (d[1:] >= 0.0))[0])
    return rows[k, 0] + (rows[k + 1, 0] - rows[k, 0]) * (-d[k]) / (d[k + 1] - d[k])


def test_a_driven_lap_is_timed_from_the_recorded_positions(tmp_path):
    """The car drives a 500 m ring (its own ground, kerbs and run-off) by the centre-line driver; every line
    crossing the timer gave is the hand interpolation of the two recorded positions either side of it."""
    angles = [2 * math.pi * k / 24 for k in range(24)]
    pts = ", ".join(f"{{ x = {80.0 * math.cos(a):.6f}, y = {80.0 * math.sin(a):.6f}"
                    f"{', sector = true' if k in (8, 16) else ''} }}" for k, a in enumerate(angles))
    path = tmp_path / "ring.toml"
    path.write_text('name = "ring"\ngravity = 9.81\nspawn = [[80.0, -20.0, 90.0]]\n[surfaces]\nasphalt = { mu = 1.0 }\n'
                    'curb = { mu = 0.9 }\ngrass = { mu = 0.55, rolling = 0.06 }\ngravel = { mu = 0.6 }\n'
                    f'[track]\nmargin = 30.0\npoints = [{pts}]\n')
    world = sim.load_world(path)
    timer, rows = scripted_lap(world, sim.load_vehicle("hatchback"), 2)
    lap = timer.laps[0]
    assert lap.valid, lap.why
    # the start/finish line: x = 80 m, crossed towards +y (on the line, the ring runs north)
    start = hand_crossing(rows, np.array([80.0, 0.0]), np.array([0.0, 1.0]))
    assert lap.start == pytest.approx(start, abs=1e-9)
    second = rows[rows[:, 0] > start + 1.0]
    finish = hand_crossing(second, np.array([80.0, 0.0]), np.array([0.0, 1.0]))
    assert lap.time == pytest.approx(finish - start, abs=1e-9)
    # the sector lines, a third and two thirds of the way round, facing along the track there
    t = world.track
    for k, s_line in enumerate(t.sectors[1:], start=1):
        h = float(t.at(s_line, "heading"))
        centre = np.array([t.at(s_line, "x"), t.at(s_line, "y")])
        when = hand_crossing(rows, centre, np.array([math.cos(h), math.sin(h)]))
        assert sum(lap.sectors[:k]) == pytest.approx(when - start, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("substeps", [1, 2])
def test_the_circuit_drives_a_clean_lap_at_one_and_two_substeps(substeps):
    """A lap of the circuit on the centre line, at 1 and 2 substeps: no blow-up (the watchdog raises), every
    wheel on the road or a kerb, the lap valid. The bends at 4 m/s^2: the pure-pursuit driver has no integral
    term and runs wide on the understeering hatchback (2 deg/g) at 5."""
    world = sim.load_world("circuit")
    timer, rows = scripted_lap(world, sim.load_vehicle("hatchback"), substeps, a_lat=4.0)
    lap = timer.laps[0]
    assert lap.valid and 60.0 < lap.time < 150.0 and len(lap.sectors) == 3
