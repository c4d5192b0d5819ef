"""Getting to a moment and reading it (issue 32 items 2 and 4): a grip-log entry rewinds to its step, the log
is filtered by wheel and cause, the rewind finds a typed time, B steps back, the g-g plot has equal axes and
the Time panel fits a 1280x720 window while rewound. Headless (an ImGui context, no window)."""
import dataclasses

import numpy as np
import pygame
import pytest
from imgui_bundle import imgui

import sim
from app.input import Input
from app.input import load_bindings
from app.session import Session
from sim.diagnosis import GRIP
from sim.diagnosis import LOCKED
from sim.diagnosis import LOW
from sim.diagnosis import NO_CAUSE
from sim.diagnosis import NO_LOAD
from sim.diagnosis import SATURATED
from sim.diagnosis import SLIDING
from sim.diagnosis import GripEvent
from ui.grip_log import kept
from ui.overlay import Overlay

# throttle, then braking hard while turning (the fronts saturate), then back on the throttle: the grip log
# fills with losses of grip and their recoveries
DRIVE = [(600, sim.Controls(throttle=1.0)), (120, sim.Controls(brake=1.0, steer=0.8)),
         (240, sim.Controls(throttle=0.3, steer=-0.6))]


def controls_at(step: int) -> sim.Controls:
    for n, c in DRIVE:
        if step < n:
            return c
        step -= n
    return DRIVE[-1][1]


def drive(s: Session, overlay: Overlay | None = None, renderer=None) -> None:
    """Every step of DRIVE, 1/240 s each (a frame a step, so the overlay can be built between)."""
    total = sum(n for n, _ in DRIVE)
    while s.sim.steps < total:
        s.frame(s.sim.dt, lambda dt: controls_at(s.sim.steps))
        if overlay is not None and s.sim.steps % 60 == 0:
            frame(overlay, renderer)


def frame(overlay, renderer, n: int = 1) -> None:
    for _ in range(n):
        imgui.new_frame()
        overlay.build()
        imgui.render()
        renderer.render(imgui.get_draw_data())


def make():
    s = Session(sim.load_vehicle("hatchback"), sim.load_world("flat"), substeps=2)
    o = Overlay(s)
    s.on_step.append(o.after_step)
    return s, o


def test_a_click_on_a_grip_log_entry_rewinds_to_the_step_it_was_logged_at(gui):
    s, o = make()
    drive(s, o, gui)
    losses = [e for e in o.monitor.events if e.after == SATURATED and e.time > 2.0]
    o.panels["Plots"].seconds = 1.0                         # the entry lies before the window the plots show
    assert losses, "the braking turn saturates a wheel"
    e = losses[0]
    newest = s.sim.time
    assert o.grip.jump(e)                                   # what a click on the entry does
    assert s.paused and s.scrub == round((newest - e.time) / s.sim.dt)
    assert s.sim.time == e.time
    tel = s.sim.telemetry                                   # the numbers the entry logged, exactly
    assert (float(tel.Fz[e.wheel]), float(tel.kappa[e.wheel]), float(tel.alpha[e.wheel])) == (e.fz, e.kappa, e.alpha)
    shown = o.shown()[e.wheel]                              # every panel's diagnosis is the entry's
    assert (shown.state, shown.cause) == (e.after, e.cause)
    # the state on show is the one the drive had at that step: the same inputs driven again up to it
    again = Session(sim.load_vehicle("hatchback"), sim.load_world("flat"), substeps=2)
    while again.sim.time < e.time - 0.5 * again.sim.dt:
        again.frame(again.sim.dt, lambda dt: controls_at(again.sim.steps))
    assert again.sim.steps == s.sim.steps
    assert np.array_equal(again.sim.snapshot().body_state, s.sim.snapshot().body_state)
    frame(o, gui, 3)                                        # the panels build at that step
    plots = o.panels["Plots"]                               # the channels' time axis shows that step
    t0, t1 = plots.channel_window
    assert t0 < e.time < t1 and t1 - t0 == pytest.approx(plots.seconds)
    # an entry older than the record has no step to go back to
    assert not o.grip.jump(dataclasses.replace(e, time=-1.0)) and s.sim.time == e.time


def event(t, wheel, before, after, cause=NO_CAUSE, esp=False):
    return GripEvent(t, wheel, before, after, 3000.0, 0.0, 0.0, cause, "", esp)


def test_the_grip_log_filters_by_wheel_and_by_cause():
    log = [event(1.0, 0, GRIP, SATURATED, LOCKED), event(1.1, 1, GRIP, SATURATED, SLIDING),
           event(1.2, 0, SATURATED, GRIP), event(1.3, 2, LOW, NO_LOAD), event(1.4, 3, GRIP, GRIP, esp=True),
           event(1.5, 1, GRIP, LOW), event(1.6, 0, LOW, SATURATED, LOCKED)]
    times = lambda es: [e.time for e in es]                                     # noqa: E731
    assert times(kept(log)) == [1.6, 1.5, 1.4, 1.3, 1.2, 1.1, 1.0]             # newest first
    assert times(kept(log, wheel=1)) == [1.6, 1.2, 1.0]                        # FL
    assert times(kept(log, kind="locked")) == [1.6, 1.0]
    assert times(kept(log, wheel=2, kind="sliding sideways")) == [1.1]         # FR
    assert times(kept(log, wheel=1, kind="sliding sideways")) == []
    assert times(kept(log, kind="losses of grip")) == [1.6, 1.3, 1.1, 1.0]
    assert times(kept(log, kind="no load")) == [1.3]
    assert times(kept(log, kind="grip back")) == [1.2]
    assert times(kept(log, kind="ESP braking")) == [1.4]
    assert times(kept(log, most=2)) == [1.6, 1.5]


def test_the_rewind_finds_a_typed_time_and_b_steps_back():
    s = Session(sim.load_vehicle("hatchback"), sim.load_world("flat"), substeps=2)
    for _ in range(240):
        s.frame(s.sim.dt, lambda dt: sim.Controls(throttle=0.5))
    dt, newest = s.sim.dt, s.sim.time
    assert s.rewind.back_of(newest) == 0 and s.rewind.back_of(newest - 100 * dt) == 100
    assert s.rewind.back_of(newest - 100.4 * dt) is None                       # between two steps
    assert s.rewind.back_of(newest - 100.4 * dt, nearest=True) == 100
    assert s.rewind.back_of(-5.0, nearest=True) == len(s.rewind) - 1           # before the record: its oldest
    assert s.rewind.back_of(newest + 5.0, nearest=True) == 0
    b = load_bindings()
    assert b.key_names["step_back"] == ["b"] and b.pad_names["step_back"] == ["dpleft"]
    keys = Input(b)
    assert keys.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_b, mod=0)) == ["step_back"]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_g_g_plot_has_equal_axes_and_its_mu_circle_fits(gui, size):
    s, o = make()
    imgui.get_io().display_size = size
    plots = o.panels["Plots"]
    for k in range(8):
        s.frame(1 / 30, lambda dt: sim.Controls(throttle=1.0, steer=0.5))
        plots.tab_request = "g-g" if k < 2 else None
        frame(o, gui)
    x0, x1, y0, y1 = plots.gg_limits
    pw, ph = plots._gg_px
    assert (x1 - x0) / pw == pytest.approx((y1 - y0) / ph, rel=1e-6)         # g per pixel, across and up
    mu = max(s.sim.vehicle.front_tire.grip, s.sim.vehicle.rear_tire.grip)
    assert x0 == pytest.approx(-x1) and y0 == pytest.approx(-y1)               # centred on 0 g
    assert min(x1, y1) >= 1.25 * mu - 1e-9                                     # the whole mu circle in view


def test_the_steer_plot_of_a_car_at_rest_shows_a_readable_range(gui):
    """At rest the lateral acceleration is rounding noise (1e-17 g): the axes keep +-0.2 g and +-0.5 deg
    instead of fitting it."""
    s, o = make()
    plots = o.panels["Plots"]
    for k in range(8):
        s.frame(1 / 30, lambda dt: sim.Controls())
        plots.tab_request = "Steer vs lateral g" if k < 2 else None
        frame(o, gui)
    x0, x1, y0, y1 = plots.steer_limits
    assert x0 <= -0.2 and x1 >= 0.2 and y0 <= -0.5 and y1 >= 0.5


def test_the_time_panel_fits_1280x720_while_rewound_and_recording(gui):
    s, o = make()
    for _ in range(240):
        s.frame(s.sim.dt, lambda dt: sim.Controls(throttle=0.5))
    frame(o, gui, 3)
    s.scrub_to(120)
    s.start_telemetry_log()
    o.panels["Time"].log_status = "saved 7200 rows: /home/someone/.local/share/contactpatch/logs/rewind.csv"
    frame(o, gui, 3)
    time = imgui.internal.find_window_by_name("Time")
    assert time.scroll_max.y == 0.0 and time.scroll_max.x == 0.0, (time.scroll_max, time.size)
