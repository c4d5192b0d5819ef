"""The limit-seeking lap driver (issue 31 item 4): the minimum-curvature racing line, the limit speed from the
g-g ellipse, and the lap drive's lap times (repeatable, answering clear changes, the apex speed of a
constant-radius bend against the car's own skidpad figure)."""
import dataclasses
import math

import numpy as np
import pytest

import sim
from sim.kernel.units import GRAVITY as G
from sim.lab.drives.circles import skidpad_limit
from sim.lab.drives.lap import lap
from sim.lab.drives.lap import lap_batch
from sim.lab.lap_driver import LapDriver
from sim.lab.racing_line import Envelope
from sim.lab.racing_line import box_qp
from sim.lab.racing_line import limit_speed
from sim.lab.racing_line import racing_line
from sim.model.track_toml import track_from_dict

SURFACES = ["asphalt", "curb", "grass", "gravel"]


def stadium_points(radius=40.0, straight=120.0, step=8.0):
    """A counter-clockwise stadium: two straights joined by two constant-radius half circles (left bends)."""
    pts = []
    for x in np.arange(0.0, straight, step):                       # bottom straight, heading +x
        pts.append((x, -radius))
    for a in np.arange(-math.pi / 2, math.pi / 2, step / radius):  # right-hand end, a left bend
        pts.append((straight + radius * math.cos(a), radius * math.sin(a)))
    for x in np.arange(straight, 0.0, -step):                      # top straight, heading -x
        pts.append((x, radius))
    for a in np.arange(math.pi / 2, 3 * math.pi / 2, step / radius):
        pts.append((radius * math.cos(a), radius * math.sin(a)))
    return pts


def stadium_world(tmp_path, radius=40.0, width=8.0):
    pts = ", ".join(f"{{ x = {x:.6f}, y = {y:.6f}{', sector = true' if k in (20, 40) else ''} }}"
                    for k, (x, y) in enumerate(stadium_points(radius)))
    path = tmp_path / "stadium.toml"
    path.write_text('name = "stadium"\ngravity = 9.81\nspawn = [[0.0, -40.0, 0.0]]\n'
                    '[surfaces]\nasphalt = { mu = 1.0 }\ncurb = { mu = 0.9 }\n'
                    'grass = { mu = 0.55, rolling = 0.06 }\ngravel = { mu = 0.6 }\n'
                    f'[track]\nwidth = {width}\nkerb_radius = 0.0\nmargin = 30.0\npoints = [{pts}]\n')
    return sim.load_world(path)


def test_box_qp_meets_its_bounds_and_its_optimum():
    # min (x0 - 2)^2 + (x1 + 3)^2 within [-1, 1]^2: the corner (1, -1), where the gradient points out of the box
    x = box_qp(np.diag([2.0, 2.0]), np.array([-4.0, 6.0]), np.array([-1.0, -1.0]), np.array([1.0, 1.0]))
    assert x == pytest.approx([1.0, -1.0])
    # inside the box the unconstrained optimum H x = -g
    h = np.array([[4.0, 1.0], [1.0, 3.0]])
    x = box_qp(h, np.array([-1.0, -2.0]), np.full(2, -5.0), np.full(2, 5.0))
    assert x == pytest.approx(np.linalg.solve(h, [1.0, 2.0]))


def test_the_racing_line_stays_on_the_road_and_bends_less_than_the_centre_line():
    pts = [{"x": x, "y": y} for x, y in stadium_points(radius=40.0)]
    track, _, _ = track_from_dict("stadium", {"points": pts, "width": 16.0}, SURFACES)
    line = racing_line(track, margin=1.5)
    assert racing_line(track, margin=1.5) is line                   # cached on the track
    assert np.all(np.abs(line.offset) <= 8.0 - 1.5 + 1e-6)
    # the line uses the width: its squared curvature summed over the lap is less than the centre line's, and
    # the same car's limit lap on it is shorter
    assert np.sum(line.curvature ** 2 * line.ds) < 0.9 * np.sum(track.curvature ** 2 * track.ds)
    env = Envelope.of([sim.load_vehicle("hatchback")])
    assert np.sum(line.ds / limit_speed(line, env)[0]) < np.sum(track.ds / limit_speed(track, env)[0])


def test_the_limit_speed_is_the_cornering_limit_in_a_long_bend_and_the_ellipse_between():
    pts = [{"x": x, "y": y} for x, y in stadium_points(radius=40.0)]
    track, _, _ = track_from_dict("stadium", {"points": pts, "width": 4.0}, SURFACES)
    car = sim.load_vehicle("hatchback")
    env = Envelope.of([car])
    v = limit_speed(track, env)[0]
    # in the middle of a half circle: v^2 / R = the lateral limit (no downforce on the hatchback)
    mid = int(np.argmin(np.abs(track.s - (120.0 + 20.0 + math.pi * 40.0 / 2))))
    assert v[mid] == pytest.approx(math.sqrt(env.lateral[0] * 40.0), rel=0.01)
    # on the straight before the bend the car brakes at most at its braking limit plus drag and rolling
    dv2 = -np.diff(v ** 2) / (2.0 * track.ds)
    assert np.max(dv2) <= env.braking[0] + env.drag[0] * np.max(v) ** 2 + env.rolling[0] + 1e-9
    # more grip: faster everywhere it is not at the top speed
    more = limit_speed(track, dataclasses.replace(env, lateral=env.lateral * 1.1, braking=env.braking * 1.1,
                                                  traction=env.traction * 1.1))[0]
    assert np.all(more >= v - 1e-9) and np.sum(track.ds / more) < np.sum(track.ds / v)


def test_a_lap_no_faster_than_the_best_sends_the_learning_back_to_the_best_laps_scales():
    """The learning keeps what made a lap faster: a valid lap faster than the best is remembered with the scales
    it was driven on; a slower valid lap puts those scales back and halves every bend's step; an invalid lap (nan)
    learns from its slides as the out lap does."""
    pts = [{"x": x, "y": y} for x, y in stadium_points(radius=40.0)]
    track, _, _ = track_from_dict("stadium", {"points": pts, "width": 16.0}, SURFACES)
    car = sim.load_vehicle("hatchback")
    driver = LapDriver(racing_line(track, margin=1.5), [car], Envelope.of([car]))
    one = np.array([True])
    driver.learn(one, np.array([30.0]))                      # the first timed lap: the best; no slides: bends up
    best = driver.scale.copy()
    assert driver.best_time[0] == 30.0 and np.all(driver.best_scale == 1.0) and best.max() > 1.0
    driver.learn(one, np.array([29.0]))                      # faster: remembered with the scales it drove on
    assert driver.best_time[0] == 29.0 and np.array_equal(driver.best_scale, best)
    step = driver.step.copy()
    driver.learn(one, np.array([29.5]))                      # slower: back to the best lap's scales, steps halved
    assert np.array_equal(driver.scale, best) and np.array_equal(driver.step, 0.5 * step)
    driver.learn(one, np.array([math.nan]))                  # invalid: learns (no slides: up) from the best's
    assert np.all(driver.scale >= best) and driver.scale.max() > best.max() and driver.best_time[0] == 29.0


def test_the_lap_drive_refuses_a_world_without_a_circuit(capsys):
    from sim.lab.cli import drives_command
    assert drives_command(["lap", "--world", "flat"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "contactpatch test: world 'flat' has no [track]; the lap drive needs a circuit (e.g. --world circuit)"
    with pytest.raises(SystemExit) as exc:
        drives_command(["lap", "--laps", "0"])
    assert exc.value.code == 2 and capsys.readouterr().err == \
        "contactpatch test: --laps 0 is not allowed; expected a whole number of laps, at least 1\n"


@pytest.mark.slow
def test_lap_times_repeat_to_the_millisecond_and_a_car_in_a_batch_laps_as_alone():
    """The same car twice in a batch with another car between them, and alone: the same floats."""
    car = sim.load_vehicle("hatchback")
    a, _, c = lap([car, sim.load_vehicle("boxster_s"), car], laps=2)
    alone = lap(car, laps=2)
    assert math.isfinite(a.value("lap time"))
    assert a.value("lap time") == c.value("lap time") == alone.value("lap time")
    assert [f.value for f in a.figures] == [f.value for f in c.figures] == [f.value for f in alone.figures]
    assert 50.0 < a.value("lap time") < 120.0 and sum(a.value(f"sector {k}") for k in (1, 2, 3)) == \
        pytest.approx(a.value("lap time"), abs=1e-9)


@pytest.mark.slow
def test_lap_times_answer_clear_changes():
    """More grip or power: faster; more mass: slower; the Boxster S faster than the hatchback. One batch."""
    base = sim.load_vehicle("hatchback")
    grip = dataclasses.replace(base, front_tire=dataclasses.replace(base.front_tire, grip=base.front_tire.grip * 1.2),
                               rear_tire=dataclasses.replace(base.rear_tire, grip=base.rear_tire.grip * 1.2))
    power = dataclasses.replace(base, engine=dataclasses.replace(
        base.engine, torque_nm=tuple(1.5 * t for t in base.engine.torque_nm)))
    heavy = dataclasses.replace(base, chassis=dataclasses.replace(base.chassis, mass=base.chassis.mass * 1.3))
    boxster = sim.load_vehicle("boxster_s")
    results = lap([base, grip, power, heavy, boxster], laps=3)
    t = [r.value("lap time") for r in results]
    assert all(math.isfinite(x) for x in t), t
    assert t[1] < t[0] and t[2] < t[0] and t[3] > t[0] and t[4] < t[0], t


@pytest.mark.slow
def test_the_apex_speed_of_a_constant_radius_bend_is_the_skidpad_limit(tmp_path):
    """A stadium of 40 m half circles, 4 m wide (the line can hardly leave the 40 m circle): after a few laps
    the driver's speed in the half circles is within 5 % of sqrt(mu_eff g R), mu_eff the car's own
    skidpad figure on the 40 m circle and R the radius of the path it drove there."""
    world = stadium_world(tmp_path)
    car = sim.load_vehicle("hatchback")
    b, driver, timers = lap_batch([car], world, laps=5, margin=3.0)
    best = min(timers[0].laps, key=lambda lap_: lap_.time)
    log = b.logs()[0]
    t = log.column("time")
    rows = (t >= best.start) & (t <= best.start + best.time)
    x, y, v = log.column("x")[rows], log.column("y")[rows], log.column("speed")[rows]
    # the middle third of each half circle: within 30 deg of its apex
    right = (x > 120.0) & (np.abs(np.arctan2(y, x - 120.0)) < math.radians(30.0))
    left = (x < 0.0) & (np.abs(np.arctan2(y, -x)) < math.radians(30.0))
    mu_eff = skidpad_limit(car)
    for bend, centre in ((right, (120.0, 0.0)), (left, (0.0, 0.0))):
        r_path = float(np.mean(np.hypot(x[bend] - centre[0], y[bend] - centre[1])))   # the radius it drove
        apex = float(np.mean(v[bend]))
        expected = math.sqrt(mu_eff * G * r_path)
        assert apex == pytest.approx(expected, rel=0.05), (apex, expected, mu_eff, r_path)
        assert apex < expected
