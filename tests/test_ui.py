"""The overlay headless: an ImGui context with a null renderer, no window and no GL."""
import dataclasses
import math
import os

import numpy as np
import pytest
from bodies import LIGHT
from bodies import UNSTABLE_PATH
from bodies import UNSTABLE_VALUE
from imgui_bundle import imgui

import sim
import sim.lab.drives
from app.session import Session
from sim.diagnosis import SATURATED
from ui.history import CHANNELS
from ui.overlay import Overlay
from ui.widgets import STATE_COLORS


def frame(overlay, renderer):
    imgui.new_frame()
    overlay.build()
    imgui.render()
    renderer.render(imgui.get_draw_data())


def make():
    s = Session(sim.load_vehicle("hatchback"), sim.load_world("proving_ground"), substeps=8)
    o = Overlay(s)
    s.on_step.append(o.after_step)
    return s, o


def test_every_panel_builds_while_driving(gui):
    s, o = make()
    for _ in range(5):
        s.frame(1 / 30, lambda dt: sim.Controls(throttle=1.0, steer=0.5))
        frame(o, gui)
    dd = imgui.get_draw_data()
    assert dd.cmd_lists_count >= 6                                    # five panels and the menu bar
    t, v = o.history.series("speed")
    assert len(t) == s.sim.steps and v[-1, 0] > 0.0
    assert all(st >= 0 for st in o.monitor.states)                    # the diagnosis ran every step


def test_expanded_tuning_groups_build_an_editor_for_every_parameter(gui):
    imgui.get_io().display_size = (1280, 9000)        # tall enough that no editor is clipped away
    s, o = make()
    view = o.panels["Tuning"]
    built = []
    editor = view.field_editor
    view.field_editor = lambda car, gname, f: (built.append(f"{gname}.{f.name}"), editor(car, gname, f))
    imgui.new_frame()
    imgui.set_next_window_size((400, 8800))
    imgui.begin("Tuning")
    for gname in sim.model.params.GROUP_TYPES:
        imgui.set_next_item_open(True)
        if imgui.collapsing_header(gname):
            for f in dataclasses.fields(sim.model.params.GROUP_TYPES[gname]):
                view.field_editor(o.tuning.params, gname, f)
    imgui.end()
    imgui.render()
    gui.render(imgui.get_draw_data())
    expected = [f"{g}.{f.name}" for g, t in sim.model.params.GROUP_TYPES.items() for f in dataclasses.fields(t)]
    assert built == expected


def test_the_map_and_the_sound_handed_to_the_overlay_are_the_ones_it_shows(gui):
    """The Map panel draws with the callable the overlay was built with, and the View menu's sound items
    work on the audio it was built with (a click on "Sound" mutes it)."""
    class Audio:
        muted, volume, available, problem = False, 0.5, True, ""

    s = Session(sim.load_vehicle("hatchback"), sim.load_world("proving_ground"), substeps=8)
    drawn, audio = [], Audio()
    o = Overlay(s, map_panel=lambda: drawn.append(s.sim.time), audio=audio)
    o.bring_to_front("Map", 1)
    for _ in range(3):
        frame(o, gui)
    assert drawn
    io = imgui.get_io()
    view = imgui.calc_text_size("View")
    style = imgui.get_style()
    io.add_mouse_pos_event(style.item_spacing.x + view.x / 2, imgui.get_frame_height() / 2)
    frame(o, gui)
    io.add_mouse_button_event(0, True)
    frame(o, gui)
    io.add_mouse_button_event(0, False)
    frame(o, gui)
    assert imgui.is_popup_open("", imgui.PopupFlags_.any_popup_id)     # the View menu
    frame(o, gui)
    items = list(o.show) + ["Force arrows and grip tints"]               # the items above "Sound"
    line = imgui.get_text_line_height_with_spacing()
    y = imgui.get_frame_height() + style.window_padding.y + (len(items) + 0.5) * line + 2 * style.item_spacing.y
    io.add_mouse_pos_event(style.item_spacing.x + 20, y)
    frame(o, gui)
    io.add_mouse_button_event(0, True)
    frame(o, gui)
    io.add_mouse_button_event(0, False)
    frame(o, gui)
    assert audio.muted


def test_panels_can_be_hidden_and_shown(gui):
    s, o = make()
    for _ in range(3):                                   # the docked layout settles in the first frames
        frame(o, gui)
    full = imgui.get_draw_data().total_vtx_count
    o.show["Telemetry"] = False
    o.show["Plots"] = False
    for _ in range(2):
        frame(o, gui)
    assert imgui.get_draw_data().total_vtx_count < full
    o.visible = False
    frame(o, gui)
    assert imgui.get_draw_data().total_vtx_count == 0


def test_an_edit_reaches_the_sim_at_the_next_step_and_an_invalid_one_is_refused(gui):
    s, o = make()
    t = o.tuning
    k0 = s.sim.vehicle.front_suspension.k
    assert t.apply("front_suspension.k", 50000.0) is None
    assert s.sim.vehicle.front_suspension.k == k0                     # not yet: between steps
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle.front_suspension.k == 50000.0
    assert s.sim.tables.wheel_params[0, 0, sim.kernel.tables.WP_K] == 50000.0
    why = t.apply("front_suspension.k", -3.0)
    assert "[1000, 500000] N/m" in why and "front_suspension.k" in why
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle.front_suspension.k == 50000.0                # the refused value never arrived
    frame(o, gui)                                                     # the refusal is shown, no crash
    t.revert("front_suspension.k")
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle.front_suspension.k == k0


def test_save_then_load_reproduces_the_params(gui, tmp_path):
    s, o = make()
    t = o.tuning
    t.apply("rear_tire.grip", 0.83)
    t.apply("gearbox.ratios", [3.1, 2.0, 1.3, 1.0])
    path = tmp_path / "tuned.toml"
    assert t.save(str(path))
    tuned = t.params
    t.revert()
    assert t.params != tuned
    assert t.load(str(path))
    assert t.params == tuned


def test_a_failed_save_reports_and_keeps_the_previous_file(gui, tmp_path, monkeypatch):
    s, o = make()
    t = o.tuning
    path = tmp_path / "car.toml"
    assert t.save(str(path))
    before = path.read_bytes()
    t.apply("chassis.mass", 1500.0)
    monkeypatch.setattr(os, "replace", lambda a, b: (_ for _ in ()).throw(OSError(13, "Permission denied")))
    assert not t.save(str(path))
    assert "not saved" in t.status and "Permission denied" in t.status
    assert path.read_bytes() == before


def test_pad_drives_until_the_left_stick_click_then_navigates_the_overlay(gui):
    import pygame

    from ui.backend import PygameInput
    pygame.display.init()
    try:
        gi = PygameInput()
        press = lambda b, down=True: pygame.event.Event(  # noqa: E731
            pygame.CONTROLLERBUTTONDOWN if down else pygame.CONTROLLERBUTTONUP, instance_id=0, button=b)
        trigger = pygame.event.Event(pygame.CONTROLLERAXISMOTION, instance_id=0,
                                     axis=pygame.CONTROLLER_AXIS_TRIGGERRIGHT, value=30000)
        assert not gi.handle(press(pygame.CONTROLLER_BUTTON_A))        # driving: the car gets it
        assert not gi.handle(trigger)
        assert gi.handle(press(pygame.CONTROLLER_BUTTON_LEFTSTICK)) and gi.pad_nav
        assert gi.handle(press(pygame.CONTROLLER_BUTTON_DPAD_DOWN))    # navigating: ImGui gets it
        assert gi.handle(trigger)
        s, o = make()
        for _ in range(3):                                             # ImGui takes the key events in
            frame(o, gui)
        assert imgui.get_io().config_flags & imgui.ConfigFlags_.nav_enable_gamepad
        assert gi.handle(press(pygame.CONTROLLER_BUTTON_LEFTSTICK)) and not gi.pad_nav
    finally:
        pygame.display.quit()


def test_a_panel_saved_outside_a_smaller_window_comes_back_inside(gui):
    s, o = make()
    frame(o, gui)
    imgui.new_frame()
    imgui.set_next_window_pos((2400.0, 1500.0))          # as if saved in a much larger window
    o.begin("Telemetry")
    imgui.end()
    imgui.render()
    imgui.new_frame()
    o.begin("Telemetry")
    pos = imgui.get_window_pos()
    imgui.end()
    imgui.render()
    w, h = imgui.get_io().display_size
    assert 0 <= pos.x < w and 0 <= pos.y < h


def test_driving_keys_reach_the_car_with_the_overlay_open(gui):
    """ImGui must not keep the arrow keys while the user drives (it did, with keyboard navigation)."""
    import pygame

    from ui.backend import PygameInput
    pygame.display.init()
    try:
        gi = PygameInput()
        s, o = make()
        for _ in range(3):
            frame(o, gui)
        for key in (pygame.K_UP, pygame.K_LEFT, pygame.K_SPACE):
            assert not gi.handle(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0))
            frame(o, gui)
            assert not gi.handle(pygame.event.Event(pygame.KEYUP, key=key, mod=0, unicode="", scancode=0))
    finally:
        pygame.display.quit()


def light(t):
    """The light body (tests/bodies.py LIGHT), stable at 8 substeps, whose dampers at UNSTABLE_VALUE are not."""
    t._use(LIGHT)


def test_an_edit_the_advisor_refuses_keeps_the_old_params_and_names_the_fix(gui):
    s, o = make()
    t = o.tuning
    light(t)
    before = t.params
    r = sim.advisor.report(sim.with_value(before, UNSTABLE_PATH, UNSTABLE_VALUE), s.sim.dt, 8)
    assert not r.stable and 8 < r.substeps_needed <= 1000
    why = t.apply(UNSTABLE_PATH, UNSTABLE_VALUE)                 # refused, not raised
    assert "chassis.inertia_pitch" in why and str(r.substeps_needed) in why
    assert t.params is before and t.fixes[UNSTABLE_PATH] == (UNSTABLE_VALUE, r.substeps_needed)
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle.front_suspension.c == before.front_suspension.c and s.sim.substeps == 8
    imgui.get_io().display_size = (1280, 9000)
    imgui.new_frame()
    imgui.set_next_window_size((400, 8800))
    imgui.begin("Tuning")
    imgui.set_next_item_open(True)
    o.panels["Tuning"].stability_section()
    imgui.set_next_item_open(True)
    if imgui.collapsing_header("chassis"):
        for f in dataclasses.fields(sim.model.params.GROUP_TYPES["chassis"]):
            o.panels["Tuning"].field_editor(t.params, "chassis", f)      # the refusal and its button, no crash
    imgui.end()
    imgui.render()
    gui.render(imgui.get_draw_data())


def test_use_n_substeps_and_apply_makes_the_refused_edit_stable(gui):
    s, o = make()
    t = o.tuning
    light(t)
    t.apply(UNSTABLE_PATH, UNSTABLE_VALUE)
    n = t.fixes[UNSTABLE_PATH][1]
    assert t.apply_with_substeps(UNSTABLE_PATH) is None
    assert s.sim.substeps == n and UNSTABLE_PATH not in t.errors
    for _ in range(3):
        s.frame(1 / 60, lambda dt: sim.Controls(throttle=0.5))
    assert s.sim.vehicle.front_suspension.c == UNSTABLE_VALUE and not s.blown_up
    assert sim.advisor.report(s.sim.vehicle, s.sim.dt, n).stable
    assert not sim.advisor.report(s.sim.vehicle, s.sim.dt, n - 1).stable    # the fewest that do
    assert t.stability().stable and t.stability().substeps == n
    why = t.set_substeps(8)                                                 # back to 8: unstable again
    assert why and "chassis.inertia_pitch" in why and s.sim.substeps == n
    assert t.set_substeps(0) and s.sim.substeps == n                        # out of range


def test_the_substeps_stay_while_a_trace_is_recorded(gui):
    s, o = make()
    t = o.tuning
    light(t)
    s.start_recording()
    t.apply(UNSTABLE_PATH, UNSTABLE_VALUE)
    assert o.session.substeps_locked
    assert t.apply_with_substeps(UNSTABLE_PATH) is not None
    assert s.sim.substeps == 8 == s.recording.substeps and t.params.front_suspension.c != UNSTABLE_VALUE
    assert t.set_substeps(16) and s.sim.substeps == 8
    assert UNSTABLE_PATH in t.fixes                              # offered again once recording stops
    frame(o, gui)


def test_a_fix_needing_more_substeps_than_allowed_is_refused_and_withdrawn(gui):
    s, o = make()
    t = o.tuning
    light(t)
    t.apply(UNSTABLE_PATH, UNSTABLE_VALUE)
    n = t.fixes[UNSTABLE_PATH][1]
    assert n == sim.advisor.report(sim.with_value(t.params, UNSTABLE_PATH, UNSTABLE_VALUE), s.sim.dt, 8).substeps_needed
    t.fixes[UNSTABLE_PATH] = (UNSTABLE_VALUE, 10 ** 9)                      # as for a part no step fixes
    why = t.apply_with_substeps(UNSTABLE_PATH)
    assert why and "chassis.inertia_pitch" in why and s.sim.substeps == 8
    assert t.params.front_suspension.c != UNSTABLE_VALUE and UNSTABLE_PATH not in t.fixes


def test_load_and_revert_refused_by_the_advisor_keep_the_params(gui, tmp_path):
    s, o = make()
    t = o.tuning
    path = tmp_path / "light.toml"
    sim.save_vehicle(sim.with_value(LIGHT, UNSTABLE_PATH, UNSTABLE_VALUE), path)
    before = t.params
    assert not t.load(str(path))
    assert "not loaded" in t.status and "chassis.inertia_pitch" in t.status
    assert t.params is before and t.baseline is before
    light(t)
    t.apply(UNSTABLE_PATH, UNSTABLE_VALUE)
    t.apply_with_substeps(UNSTABLE_PATH)
    t.baseline = sim.with_value(t.params, "rear_suspension.c", UNSTABLE_VALUE)   # unstable even at the new step
    tuned = t.params
    t.revert("rear_suspension.c")
    assert t.params is tuned and "rear_suspension.c" in t.errors
    t.revert()
    assert t.params is tuned and "not reverted" in t.status


def test_the_stability_summary_follows_the_params_and_substeps(gui):
    s, o = make()
    t = o.tuning
    frame(o, gui)
    r = t.stability()
    assert t.stability() is r                                               # cached between frames
    expected = sim.advisor.report(t.params, s.sim.dt, 8)
    assert r.stable and r.worst.margin == expected.worst.margin
    t.apply("front_suspension.k", 50000.0)
    r2 = t.stability()
    assert r2 is not r and r2.items == sim.advisor.report(t.params, s.sim.dt, 8).items
    assert t.set_substeps(16) is None and t.stability().h == s.sim.dt / 16
    light(t)                                  # a light body: its dampers' stable range ends inside theirs
    lo, hi = t.stable_range(UNSTABLE_PATH)
    assert lo <= t.params.front_suspension.c <= hi < UNSTABLE_VALUE
    assert sim.advisor.report(sim.with_value(t.params, UNSTABLE_PATH, hi), s.sim.dt, 16).stable
    assert not sim.advisor.report(sim.with_value(t.params, UNSTABLE_PATH, hi * 1.1), s.sim.dt, 16).stable
    assert t.stable_range(UNSTABLE_PATH) == (lo, hi)                         # cached
    assert f"{hi:.4g}" in t.range_tip(UNSTABLE_PATH, "N s/m")                # the hover tooltip builds
    frame(o, gui)


def test_plot_lines_are_decimated_to_the_pixels_with_their_spikes():
    import numpy as np

    from ui.panels.plots import decimate
    t = np.arange(4801) / 240.0
    v = np.sin(3.0 * t)
    v[1234], v[3000] = 5.0, -4.0
    td, vd = decimate(t, v, 120)
    assert len(td) <= 240 and np.all(np.diff(td) >= 0)
    assert vd.max() == 5.0 and vd.min() == -4.0                     # the extremes survive
    assert np.array_equal(decimate(t[:100], v[:100], 120)[1], v[:100])   # short lines untouched


def test_typing_into_a_field_while_a_driving_key_is_held_gets_the_typed_value(gui):
    """Steering held (Left) while the user clicks a field and types 0.6: the field gets "0.6" (the held
    arrow key once repeated into the field and moved the cursor: "06."), and the car lets go."""
    import pygame

    from app.input import Input
    from ui.backend import PygameInput
    pygame.display.init()
    try:
        gi, car_input = PygameInput(), Input()
        io = imgui.get_io()
        text = ["1.0"]

        def ui_frame(focus=False):
            io.delta_time = 1 / 60
            car_input.typing(io.want_text_input)
            imgui.new_frame()
            imgui.begin("field")
            if focus:
                imgui.set_keyboard_focus_here()
            _, text[0] = imgui.input_text("grip", text[0])
            imgui.end()
            imgui.render()
            gui.render(imgui.get_draw_data())

        def send(event):
            if not gi.handle(event):                       # what the window does with each event
                car_input.handle(event)

        def key(k, down):
            return pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=k, mod=0, unicode="",
                                      scancode=0)
        ui_frame()
        send(key(pygame.K_LEFT, True))                     # steering left, held from here on
        assert "steer_left" in car_input.held
        ui_frame(focus=True)                               # the user clicks into the field
        ui_frame()
        ui_frame()
        assert io.want_text_input
        ui_frame()                                         # the next frame starts with the field active
        assert "steer_left" not in car_input.held          # the car let go when the field took the keys
        send(key(pygame.K_a, True))                        # select all, then type over it
        for k in (pygame.K_LCTRL,):
            send(key(k, True))
        io.add_key_event(imgui.Key.mod_ctrl, True)
        ui_frame()
        send(key(pygame.K_a, False))
        send(key(pygame.K_LCTRL, False))
        io.add_key_event(imgui.Key.mod_ctrl, False)
        for ch in "0.6":
            send(pygame.event.Event(pygame.TEXTINPUT, text=ch))
            for _ in range(20):                            # a third of a second per character: key repeat
                ui_frame()
        assert text[0] == "0.6"
        send(key(pygame.K_LEFT, False))                    # the release reaches both sides
        assert "steer_left" not in car_input.held
    finally:
        pygame.display.quit()


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
    assert o.wheel_colors()[loss.wheel] == pytest.approx([0.4 + 0.6 * c for c in red[:3]])   # the 3D tint too
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
    expected = rot.T @ total / s.sim.vehicle.chassis.mass / 9.81
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
