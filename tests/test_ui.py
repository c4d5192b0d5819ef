"""The overlay headless: an ImGui context with a null renderer, no window and no GL."""
import dataclasses
import os

import numpy as np
from imgui_bundle import imgui

import sim
import sim.lab.drives
from app.session import Session
from ui.overlay import Overlay


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
    assert t.load("hatchback")
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


def test_plot_lines_are_decimated_to_the_pixels_with_their_spikes():

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
