"""The laps in the app (issue 31 item 2): kept per car setup, each with its telemetry log, the best lap's
ghost, and a lap's log saved as CSV; the HUD and the lap table drawn headless."""
import math

import numpy as np
import pytest

import sim
from app.laps import LapKeeper
from app.laps import differences
from app.session import Session
from sim.lab.track_driver import CentreLineDriver


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    angles = [2 * math.pi * k / 16 for k in range(16)]
    pts = ", ".join(f"{{ x = {35.0 * math.cos(a):.6f}, y = {35.0 * math.sin(a):.6f}"
                    f"{', sector = true' if k == 8 else ''} }}" for k, a in enumerate(angles))
    path = tmp_path_factory.mktemp("ring") / "ring.toml"
    path.write_text('name = "ring"\ngravity = 9.81\nspawn = [[35.0, -12.0, 90.0]]\n[surfaces]\nasphalt = { mu = 1.0 }\n'
                    'curb = { mu = 0.9 }\ngrass = { mu = 0.55, rolling = 0.06 }\ngravel = { mu = 0.6 }\n'
                    f'[track]\nmargin = 25.0\npoints = [{pts}]\n')
    return sim.load_world(path)


def drive(session, keeper, laps, change=None):
    """Drive the session's car by the centre-line driver until `laps` laps are done; `change(session)` is called
    after every step."""
    driver = CentreLineDriver(session.world.track, session.sim.vehicle, v_top=13.0)

    def controls(dt):
        c = driver.controls(session.sim)
        return sim.Controls(throttle=float(c.throttle[0]), brake=float(c.brake[0]), steer=float(c.steer[0]),
                            abs=True, tc=True)
    while (keeper.timer is None or len(keeper.timer.laps) < laps) and session.sim.time < 300.0:
        session.physics_step(controls)
        if change is not None:
            change(session)


def test_laps_are_kept_per_setup_with_their_logs_and_the_best_lap_is_the_ghost(ring, tmp_path, monkeypatch, gui):
    car = sim.load_vehicle("hatchback")
    session = Session(car, ring, substeps=2)
    keeper = LapKeeper(session)
    lighter = sim.with_value(car, "chassis.mass", car.chassis.mass - 100.0)

    def change(s):                                       # 5 s into the second lap the car is made lighter
        timer = keeper.timer
        if len(timer.laps) == 1 and timer.current is not None and s.sim.time - timer.current.start > 5.0:
            if s.sim.next_params() is car:
                s.sim.set_params(lighter)
    drive(session, keeper, 3, change)
    one, two, three = keeper.timer.laps
    assert (one.setup, one.valid) == (0, True)
    assert (two.setup, two.valid, two.why) == (0, False, "the setup changed during the lap")
    assert (three.setup, three.valid) == (1, True)
    assert keeper.labels == ["1: hatchback", f"2: chassis.mass {car.chassis.mass - 100.0:g}"]
    assert differences(car, lighter) == [("chassis.mass", car.chassis.mass, car.chassis.mass - 100.0)]
    # each lap's log: 60 rows a second of the lap, its inputs too
    log = keeper.logs[3]
    assert len(log) == pytest.approx(three.time * 60.0, abs=2.0)
    assert np.isfinite(log.column("throttle")).all() and log.column("speed").max() > 5.0
    # the ghost is the best lap's car at the same time into its lap: at the start of lap 4, near the line
    best = keeper.timer.best()
    assert keeper.ghost_lap is best
    pose = keeper.ghost()
    x, y = pose.position[:2]
    assert math.hypot(x - 35.0, y) < 3.0 and pose.time < 0.05
    # a lap's log saved as CSV, from the lap table's save button
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    from ui.panels.laps import LapTable
    from ui.panels.time import save_log
    table = LapTable(save_log)
    table.status = table.save_log(keeper.logs[1], "lap1")
    saved = list((tmp_path / "contactpatch" / "logs").glob("lap1-*.csv"))
    assert len(saved) == 1 and "saved" in table.status
    rows = saved[0].read_text().splitlines()
    assert rows[0].startswith("time,x,y") and len(rows) == 2 + len(keeper.logs[1])
    # laps 1 and 3 against distance: the delta is 0 at the line and the lap times' difference at the finish;
    # a lap against itself differs nowhere
    from sim.lab.laps import compare_laps
    runs = {lap.number: (keeper.logs[lap.number], lap.start, lap.time, f"lap {lap.number}") for lap in (one, three)}
    cmp = compare_laps(ring.track, runs[1], runs[3])
    assert cmp.delta[0] == 0.0 and cmp.delta[-1] == pytest.approx(three.time - one.time, abs=1e-12)
    assert np.all(np.diff(cmp.a.time) > 0.0) and cmp.a.channels["kappa"].shape == (len(cmp.distance), 4)
    same = compare_laps(ring.track, runs[3], runs[3])
    assert np.abs(same.delta).max() == 0.0
    # the speed at a distance is the log's, interpolated between the two rows either side of it
    d = cmp.distance[40]
    from sim.lab.laps import lap_distance
    dist, speed = lap_distance(keeper.logs[3], ring.track), keeper.logs[3].column("speed")
    k = int(np.searchsorted(dist, d))
    hand = speed[k - 1] + (speed[k] - speed[k - 1]) * (d - dist[k - 1]) / (dist[k] - dist[k - 1])
    assert cmp.b.channels["speed"][40] == pytest.approx(hand * 3.6, rel=1e-12)
    # the overlay with the lap table in the Time panel (two laps ticked: the comparison), the HUD's timing and
    # the map build headless
    draw_everything(session, keeper, gui)
    # a reset ends the lap in progress untimed
    session.reset_car(0)
    assert keeper.timer.current is None and keeper.ghost() is None


def draw_everything(session, keeper, gui):
    from imgui_bundle import imgui

    from app.lap_hud import lap_hud
    from sim.model.features import bounds
    from sim.model.features import features
    from ui.map import draw_map
    from ui.overlay import Overlay
    overlay = Overlay(session)
    table = overlay.panels["Time"].laps
    table.tick(1, True)
    table.tick(3, True)
    assert overlay.show["Lap comparison"] and overlay.panels["Lap comparison"].comparison()[0] is not None
    feats = features(session.world)
    assert [f.name for f in feats] == ["start/finish", "sector 2"]       # the layers are no features
    for _ in range(3):
        imgui.new_frame()
        overlay.build()
        lap_hud(keeper, (300.0, 20.0, 700.0, 500.0), ["a HUD line"])
        imgui.begin("Map")
        draw_map(feats, bounds(session.world, feats), (0.0, 0.0), 0.0, track=session.world.track)
        imgui.end()
        imgui.render()
        gui.render(imgui.get_draw_data())
