"""The overlay headless, over time: rewind, recordings and the plots' history, the auto-pause, test drives
from the panel, and leaving with unsaved tuning (an ImGui context with a null renderer)."""
import math

import numpy as np
import pytest
from test_ui import frame
from test_ui import make

import sim
import sim.lab.drives
from sim.diagnosis import SATURATED
from ui.history import CHANNELS
from ui.widgets import STATE_COLORS


def test_rewind_to_a_recorded_grip_loss_shows_it_and_logs_nothing_new(gui):
    """Drive into a loss of grip (ABS off, hard braking while turning), drive on, scrub back to the step
    the log recorded it at: the panels' diagnosis is that step's (saturated), stepping through the
    recorded steps logs nothing, and driving on from there forgets the later log and plot history."""
    s, o = make()
    for _ in range(int(2.0 * 30)):                                         # 2 s at full throttle
        s.frame(1 / 30, lambda dt: sim.Controls(throttle=1.0))
        frame(o, gui)
    start = len(o.monitor.events)
    for _ in range(int(1.0 * 30)):                                         # 1 s of braking into a turn
        s.frame(1 / 30, lambda dt: sim.Controls(brake=1.0, steer=0.6))
        frame(o, gui)
    losses = [e for e in o.monitor.events[start:] if e.after == SATURATED]
    assert losses, "hard braking with ABS off must saturate a wheel"
    loss = losses[0]
    for _ in range(30):                                                    # and 1 s more, coasting
        s.frame(1 / 30, lambda dt: sim.Controls())
        frame(o, gui)
    logged = list(o.monitor.events)
    back = int(round((s.sim.time - loss.time) / s.sim.dt))
    s.scrub_to(back)
    frame(o, gui)
    assert s.sim.time == pytest.approx(loss.time)
    shown = o.shown()
    assert shown[loss.wheel].state == SATURATED and shown[loss.wheel].cause == loss.cause
    red = STATE_COLORS[SATURATED]
    assert o.wheel_colors()[loss.wheel] == pytest.approx(red[:3])                 # the 3D wheel's colour too
    s.request_single_step()                                                # a recorded step forward
    frame(o, gui)
    assert s.sim.time == pytest.approx(loss.time + s.sim.dt) and o.monitor.events == logged
    s.resume_from_scrub()                                                  # drive on from here
    assert all(e.time <= s.sim.time + 1e-9 for e in o.monitor.events)
    assert o.monitor.events == [e for e in logged if e.time <= s.sim.time + 1e-9]
    t, _ = o.history.series("speed")
    assert t[-1] == pytest.approx(s.sim.time)
    s.frame(1 / 30, lambda dt: sim.Controls())
    t, _ = o.history.series("speed")
    assert np.all(np.diff(t) > 0)                                          # one timeline, no abandoned future


def test_every_plot_tab_builds_with_the_derived_channels(gui):
    """Each Plots tab draws while the car turns; the derived accelerations (from the velocity, step to step,
    in the car's frame) obey Newton's second law against the forces the physics applied: sum(F) / m."""
    from render.mathx import quat_matrix
    s, o = make()
    for name in CHANNELS:
        o.panels["Plots"].channels[name] = True
    for _ in range(4 * 30):
        s.frame(1 / 30, lambda dt: sim.Controls(throttle=0.35, steer=0.3))
        frame(o, gui)
    for tab in ("Channels", "Tires", "g-g", "Steer vs lateral g"):
        o.panels["Plots"].tab_request = tab
        frame(o, gui)
        frame(o, gui)
    total = sum(np.asarray(f, dtype=float) for f in s.sim.telemetry.forces.values())
    rot = quat_matrix(s.sim.state.orientation)[:3, :3]
    expected = rot.T @ total / sim.total_mass(s.sim.vehicle) / 9.81
    _, ay = o.history.series("a lat")
    _, ax = o.history.series("a long")
    _, yaw = o.history.series("yaw rate")
    assert yaw[-1, 0] > 3.0                                            # turning left, deg/s
    assert ay[-1, 0] == pytest.approx(expected[1], rel=0.02)
    assert ax[-1, 0] == pytest.approx(expected[0], abs=0.01)


def test_force_arrows_keep_a_readable_size_from_afar():
    """The user's scale holds near the car; from afar the scale grows so that a wheel's static load is at
    least 8 % of the camera distance long, and the arrows widen by the same factor."""
    from render.arrows import on_screen_scale
    assert on_screen_scale(0.25, 5.0, 3.0) == (0.25, 1.0)             # 0.75 m >= 0.08 x 5 m
    scale, widen = on_screen_scale(0.25, 60.0, 3.0)
    assert scale * 3.0 == pytest.approx(0.08 * 60.0) and widen == pytest.approx(scale / 0.25)


def test_an_arrow_runs_from_the_contact_along_the_force():
    """The unit cube's -x face lands on the start and its +x face on start + vec, widths across; a
    vector of ~0 draws nothing; the batch gives each arrow what one at a time gives."""
    from render.arrows import arrow_matrices
    from render.arrows import arrow_matrix
    starts = np.array([[1.0, 2.0, 0.3], [0.0, 0.0, 0.0]])
    vecs = np.array([[0.0, 0.0, 0.8], [0.3, -0.4, 0.0]])                 # straight up (the other helper), sideways
    ms = arrow_matrices(starts, vecs, np.array([0.05, 0.09]))
    for m, p, v, w in zip(ms, starts, vecs, (0.05, 0.09)):
        assert m @ np.array([-0.5, 0, 0, 1]) == pytest.approx([*p, 1.0])
        assert m @ np.array([0.5, 0, 0, 1]) == pytest.approx([*(p + v), 1.0])
        assert np.linalg.norm(m[:3, 1]) == pytest.approx(w) and np.linalg.norm(m[:3, 2]) == pytest.approx(w)
        assert abs(m[:3, 0] @ m[:3, 1]) < 1e-12 and abs(m[:3, 0] @ m[:3, 2]) < 1e-12
        assert arrow_matrix(p, v, w) == pytest.approx(m)
    assert arrow_matrix(starts[0], np.zeros(3), 0.05) is None


def test_the_auto_pause_stops_on_the_step_that_lost_grip(gui):
    """A frame of 1/30 s holds 8 physics steps; the pause on the first loss of grip stops at the step the
    log names, not at the end of the frame, so the panels show the moment the banner describes."""
    s, o = make()
    o.monitor.pause_on_loss = True
    for _ in range(60):
        s.frame(1 / 30, lambda dt: sim.Controls(throttle=1.0))
        if s.paused:                                       # the launch may already spin a wheel
            s.toggle_pause()
    o.monitor.events.clear()
    for _ in range(60):
        s.frame(1 / 30, lambda dt: sim.Controls(brake=1.0, steer=0.6))
        frame(o, gui)
        if s.paused:
            break
    assert s.paused and o.monitor.pause_event is not None
    assert s.sim.time == pytest.approx(o.monitor.pause_event.time)
    assert s.pause_reason.endswith(o.monitor.pause_event.reason)


def test_telemetry_recording_and_the_rewind_export_write_csv_rows_per_step(gui, tmp_path, monkeypatch):
    """Recording keeps 60 rows a second of driving; the rewind export has one row per stored step, with the
    stored step's own numbers (its load and speed, read back from the snapshot, not simulated again)."""
    import csv

    from ui.panels.time import save_log
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    s, o = make()
    s.start_telemetry_log()
    for _ in range(30):                                                   # 1 s of driving at 30 frames/s
        s.frame(1 / 30, lambda dt: sim.Controls(throttle=0.5, steer=0.2))
        frame(o, gui)
    s.stop_telemetry_log()
    assert len(s.recorded_log) == 60
    log = s.rewind_log(seconds=0.5)
    assert len(log) == 120
    assert log.column("time")[-1] == pytest.approx(s.sim.time)
    assert log.column("Fz FL")[-1] == pytest.approx(float(s.sim.telemetry.Fz[0]))
    assert log.column("speed")[-1] == pytest.approx(float(np.linalg.norm(s.sim.state.velocity)))
    message = save_log(log, "rewind")
    path = tmp_path / "contactpatch" / "logs"
    files = list(path.glob("rewind-*.csv"))
    assert len(files) == 1 and str(files[0]) in message
    with open(files[0], newline="") as fh:
        assert len(list(csv.reader(fh))) == 2 + 120


def test_a_branch_replay_reproduces_the_run_and_shows_the_gap_a_change_makes(gui):
    """Rewind 1 s and branch: with the car unchanged the recorded inputs drive it bit for bit along the
    original run (the ghost), a gap of exactly 0; with less tire grip the same inputs leave a gap."""
    def drive_then_branch(change):
        s, o = make()
        for _ in range(75):
            s.frame(1 / 30, lambda dt: sim.Controls(throttle=0.8, steer=0.5))
            frame(o, gui)
        s.scrub_to(240)                                          # 1 s back
        if change:
            for axle in ("front_tire", "rear_tire"):
                s.sim.set_params(sim.with_value(s.sim.vehicle, f"{axle}.grip", 0.6))
        assert s.branch_replay() == ""
        gaps = []
        for _ in range(30):                                      # the recorded second again
            s.frame(1 / 30, lambda dt: sim.Controls())           # the user's input is ignored: it replays
            frame(o, gui)
            gaps.append(s.branch_gap())
        return gaps
    same = drive_then_branch(False)
    assert all(g == (0.0, 0.0, 0.0) for g in same if g is not None) and same[-2] is not None
    changed = drive_then_branch(True)
    assert changed[-2][0] > 0.5                                  # half a metre off the original line


def test_a_test_drive_runs_from_the_panel_against_the_loaded_preset(gui):
    """The Test drives panel runs a drive of the car as tuned now and of the preset as loaded, in a worker
    thread, and shows both with their difference: a stiffer front spring sags less."""
    s, o = make()
    t = o.tuning
    t.apply("front_suspension.k", 2.0 * s.sim.vehicle.front_suspension.k)
    o.drives.index = list(sim.lab.drives.SUITE).index("settle")
    o.drives.compare = True
    o.drives.start("settle")
    o.drives.thread.join(timeout=120)
    after, before = o.drives.result
    rows = {name: (a, b, d) for name, a, b, d, _ in sim.lab.drives.compare(before, after)}
    a, b, d = rows["sag front"]
    assert d < 0.0 and b == pytest.approx(a / 2.0, rel=0.05)      # twice the rate, half the sag
    o.show["Test drives"] = True
    o.bring_to_front("Test drives", 1)
    for _ in range(3):
        frame(o, gui)


def test_a_watched_drive_plots_the_other_run_from_its_log_as_the_live_plots_record_it(gui):
    """Every plot channel read from a test drive's log (the ghost run's overlaid lines) equals what the
    plots record step by step when the same run is watched, and the Test drives panel builds while
    watching."""
    from ui.history import log_channel
    s, o = make()
    run = sim.lab.drives.step_steer(sim.load_vehicle("hatchback"), seconds=3.0)
    assert s.watch_drive(run, run, "same run") == ""
    o.drives.result = (run, run)
    for _ in range(120):
        s.frame(1 / 60, lambda dt: sim.Controls())
        frame(o, gui)
    t, _ = o.history.series("speed")
    rows = np.searchsorted(run.log.column("time"), t)
    assert np.allclose(run.log.column("time")[rows], t, rtol=0, atol=1e-9)
    for name in CHANNELS:
        _, live = o.history.series(name)
        logged = log_channel(run.log, name)[rows]
        assert np.allclose(live[2:], logged[2:], rtol=1e-9, atol=1e-9), name   # after the first accelerations
    assert s.branch_gap()[0] == 0.0                          # the same run: the ghost is exactly on the car


def test_the_plot_history_forgets_a_wrapped_ring_without_showing_stale_samples():
    """Leaving a watched drive (or rewinding) drops the samples after a time; once the ring has wrapped,
    the slots past the dropped samples hold older, overwritten ones that must not be shown again."""
    from ui.history import History
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    h = History(1.0, s.dt)                                        # 240 samples
    for _ in range(600):
        s.step(sim.Controls(throttle=0.5))
        h.append(s)
    t, _ = h.series("speed")
    assert len(t) == 240 and np.all(np.diff(t) > 0)
    h.forget_after(t[-1] - 0.25)                                  # a rewind: the last 60 samples go
    t2, _ = h.series("speed")
    assert len(t2) == 180 and np.array_equal(t2, t[:180])
    h.forget_after(-math.inf)                                     # a new run from t = 0: nothing is left
    assert len(h.series("speed")[0]) == 0
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    s.step(sim.Controls())
    h.append(s)
    t3, v3 = h.series("speed")
    assert len(t3) == 1 and np.isfinite(v3).all()


def test_a_plot_window_is_the_same_samples_as_the_whole_history_cut_to_it():
    """series(name, since) works out only the samples from `since` on (the plots' window): they are the
    whole history's samples at those times, for every channel, in a wrapped ring too."""
    from ui.history import History
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    h = History(1.0, s.dt)
    for k in range(400):                                          # wraps the 240-sample ring
        s.step(sim.Controls(throttle=0.6, steer=0.3 if k > 200 else 0.0))
        h.append(s)
    t_all = h.times()
    for since in (-math.inf, t_all[0], t_all[0] + 0.5 * s.dt, t_all[100], t_all[-1], t_all[-1] + 1.0):
        for name in CHANNELS:
            t, v = h.series(name)
            tw, vw = h.series(name, since)
            keep = t >= since
            assert np.array_equal(tw, t[keep]), (name, since)
            assert np.array_equal(vw, v[keep], equal_nan=True), (name, since)


def test_escape_closes_an_open_menu_first_and_asks_before_dropping_unsaved_tuning(gui):
    """Esc with the View menu open closes the menu; with the car edited and not saved, the first Esc only
    says so, the second within three seconds quits."""
    from imgui_bundle import imgui as im

    class FakeApp:
        QUIT_CONFIRM_SECONDS = 3.0

        def __init__(self, overlay):
            self.overlay, self.running, self.quit_asked, self.notices = overlay, True, -1e9, []
    from app.window import App
    s, o = make()
    t = o.tuning
    app = FakeApp(o)
    im.new_frame()
    im.open_popup("some menu")
    im.begin_popup("some menu")
    im.end_popup()
    App.request_quit(app)
    assert app.running and o.close_popups
    im.end_frame()
    frame(o, gui)                                                # the overlay closes it
    im.new_frame()
    assert not im.is_popup_open("", im.PopupFlags_.any_popup_id) and not o.close_popups
    im.end_frame()
    t.apply("front_tire.grip", 0.9 * t.params.front_tire.grip)
    App.request_quit(app)
    assert app.running and "not saved" in app.notices[-1][1]
    App.request_quit(app)
    assert not app.running
