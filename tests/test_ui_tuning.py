"""The overlay's tuning panel against the stability advisor, headless: an edit the advisor refuses, the
substeps that make it stable, the summary of every part's margin (an ImGui context with a null renderer)."""
import dataclasses

from bodies import LIGHT
from bodies import UNSTABLE_PATH
from bodies import UNSTABLE_VALUE
from imgui_bundle import imgui
from test_ui import frame
from test_ui import make

import sim


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
