"""The overlay's tuning panel against the stability advisor, headless: an edit the kernel holds and the
substeps that run it as given, an edit the advisor refuses, the summary of every part's margin (an ImGui
context with a null renderer)."""
import dataclasses

from bodies import HELD_PATH
from bodies import HELD_VALUE
from bodies import LIGHT
from bodies import REFUSED_PATH
from bodies import REFUSED_VALUE
from bodies import lift_pressure_rule
from bodies import pressed
from imgui_bundle import imgui
from test_ui import frame
from test_ui import make

import sim


def light(t):
    """The light body (tests/bodies.py LIGHT), whose dampers at HELD_VALUE 8 substeps cannot follow."""
    t._use(LIGHT)


def test_an_edit_the_step_cannot_follow_is_applied_held_and_offers_the_substeps(gui):
    s, o = make()
    t = o.tuning
    light(t)
    r = sim.advisor.report(sim.with_value(t.params, HELD_PATH, HELD_VALUE), s.sim.dt, 8)
    assert r.stable and 8 < r.substeps_as_given <= 1000
    assert t.apply(HELD_PATH, HELD_VALUE) is None                    # applied: the kernel holds the dampers
    assert t.params.front_suspension.c == HELD_VALUE and t.fixes[HELD_PATH] == (HELD_VALUE, r.substeps_as_given)
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle.front_suspension.c == HELD_VALUE and s.sim.substeps == 8 and not s.blown_up
    assert any("dampers" in n for n in t.stability().notes)
    imgui.get_io().display_size = (1280, 9000)
    imgui.new_frame()
    imgui.set_next_window_size((400, 8800))
    imgui.begin("Tuning")
    imgui.set_next_item_open(True)
    o.panels["Tuning"].stability_section()
    for group in ("chassis", "front_suspension"):
        imgui.set_next_item_open(True)
        if imgui.collapsing_header(group):
            for f in dataclasses.fields(sim.model.params.GROUP_TYPES[group]):
                o.panels["Tuning"].field_editor(t.params, group, f)      # the note and its button, no crash
    imgui.end()
    imgui.render()
    gui.render(imgui.get_draw_data())


def test_use_n_substeps_runs_the_held_edit_as_given(gui):
    s, o = make()
    t = o.tuning
    light(t)
    t.apply(HELD_PATH, HELD_VALUE)
    n = t.fixes[HELD_PATH][1]
    assert t.apply_with_substeps(HELD_PATH) is None
    assert s.sim.substeps == n and HELD_PATH not in t.errors and HELD_PATH not in t.fixes
    for _ in range(3):
        s.frame(1 / 60, lambda dt: sim.Controls(throttle=0.5))
    assert s.sim.vehicle.front_suspension.c == HELD_VALUE and not s.blown_up
    springs = sim.advisor.SPRINGS
    margins = [{i.part: i.margin for i in sim.advisor.report(s.sim.vehicle, s.sim.dt, k).items}[springs]
               for k in (n - 1, n)]
    assert margins[0] < sim.advisor.REQUIRED_MARGIN <= margins[1]          # the fewest substeps that do
    assert t.stability().substeps == n
    assert t.set_substeps(8) is None and s.sim.substeps == 8                # back to 8: held again, not refused
    assert t.set_substeps(0) and s.sim.substeps == 8                        # out of range


def test_the_substeps_stay_while_a_trace_is_recorded(gui):
    s, o = make()
    t = o.tuning
    light(t)
    s.start_recording()
    t.apply(HELD_PATH, HELD_VALUE)
    assert o.session.substeps_locked
    assert t.apply_with_substeps(HELD_PATH) is not None
    assert s.sim.substeps == 8 == s.recording.substeps and t.params.front_suspension.c == HELD_VALUE
    assert t.set_substeps(16) and s.sim.substeps == 8
    assert HELD_PATH in t.fixes                                  # offered again once recording stops
    frame(o, gui)


def test_a_fix_needing_more_substeps_than_allowed_is_refused_and_withdrawn(gui):
    s, o = make()
    t = o.tuning
    light(t)
    t.apply(HELD_PATH, HELD_VALUE)
    n = t.fixes[HELD_PATH][1]
    assert n == sim.advisor.report(t.params, s.sim.dt, 8).substeps_as_given
    t.fixes[HELD_PATH] = (HELD_VALUE, 10 ** 9)                              # more than a simulation allows
    why = t.apply_with_substeps(HELD_PATH)
    assert why and "substeps" in why and s.sim.substeps == 8 and HELD_PATH not in t.fixes


def test_an_edit_the_advisor_refuses_keeps_the_params_and_offers_no_substeps(gui, monkeypatch):
    lift_pressure_rule(monkeypatch)
    s, o = make()
    t = o.tuning
    t._use(pressed())
    before = t.params
    why = t.apply(REFUSED_PATH, REFUSED_VALUE)                           # a tire that pushes the way it slides
    assert t.params is before and REFUSED_PATH not in t.fixes
    assert why == (f"{REFUSED_PATH} = {REFUSED_VALUE:g} would make the front tires push the way they slide, adding "
                   "energy to the car. Limiting part: the front tire's force curves, set by this parameter. No number "
                   "of substeps fixes this: choose another value.")
    assert "tire curves opposing the slip" in t.details[REFUSED_PATH]         # the advisor's line, for the tooltip
    frame(o, gui)


def test_load_and_revert_refused_by_the_advisor_keep_the_params(gui, tmp_path, monkeypatch):
    lift_pressure_rule(monkeypatch)
    s, o = make()
    t = o.tuning
    path = tmp_path / "heavy.toml"
    sim.save_vehicle(sim.with_value(pressed(), REFUSED_PATH, REFUSED_VALUE), path)
    before = t.params
    assert not t.load(str(path))
    assert "not loaded" in t.status and "tire curves opposing the slip" in t.status
    assert t.params == t.baseline == sim.load_vehicle("hatchback")
    assert not t.edited() and t.errors == {} and t.fixes == {}
    assert t.params is before and t.baseline is before
    t._use(pressed())
    t.baseline = sim.with_value(pressed(), REFUSED_PATH, REFUSED_VALUE)         # a baseline the advisor refuses
    tuned = t.params
    t.revert(REFUSED_PATH)
    assert t.params is tuned and REFUSED_PATH in t.errors
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
    light(t)                                  # a light body: the dampers it runs as given end inside their range
    lo, hi = t.stable_range(HELD_PATH)
    assert lo <= t.params.front_suspension.c <= hi < HELD_VALUE
    assert sim.advisor.report(sim.with_value(t.params, HELD_PATH, hi), s.sim.dt, 16).substeps_as_given <= 16
    assert sim.advisor.report(sim.with_value(t.params, HELD_PATH, hi * 1.1), s.sim.dt, 16).substeps_as_given > 16
    assert t.stable_range(HELD_PATH) == (lo, hi)                             # cached
    assert f"{hi:.4g}" in t.range_tip(HELD_PATH, "N s/m")                    # the hover tooltip builds
    frame(o, gui)
