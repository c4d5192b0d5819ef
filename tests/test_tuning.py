"""The tuning model (ui/tuning.py) on its own, without ImGui: what an edit does to the car the simulation
steps next, which values are refused and what the message says, the marks of what differs from the loaded
preset, revert, and what save writes and load reads back. The expected facts come from the parameter schema
(sim.model.params: each field's kind, range and unit), the stability advisor and the files."""
import math
import subprocess
import sys
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest
from bodies import HELD_PATH
from bodies import HELD_VALUE
from bodies import LIGHT

import sim
from app.session import Session
from sim.model import checks
from sim.model import params as P
from sim.model import vehicle_toml
from ui.tuning import Tuning
from ui.tuning import short_number

ROOT = Path(__file__).resolve().parent.parent


def make(vehicle="hatchback"):
    s = Session(sim.load_vehicle(vehicle), sim.World.flat(), substeps=8, vehicle_name=vehicle)
    return s, Tuning(s)


def schema(kind: str) -> list[tuple[str, object]]:
    """(path, field) of every parameter of one kind ("num", "text" or "curve")."""
    return [(f"{g}.{f.name}", f) for g, t in P.GROUP_TYPES.items() for f in fields(t) if f.metadata["kind"] == kind]


def test_the_model_needs_no_imgui():
    code = ("import sys\nimport ui.tuning\n"
            "assert 'imgui_bundle' not in sys.modules, 'ui.tuning imported ImGui'\nprint('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_number_outside_its_range_is_refused_naming_key_value_and_range():
    """For every number parameter, a value past either end of its range is refused, the car is kept, and
    the message names the key, the value and the allowed range with its unit (not the car's name first)."""
    s, t = make()
    before = t.params
    for path, f in schema("num"):
        m = f.metadata
        for value in (m["hi"] + max(1.0, abs(m["hi"])), m["lo"] - max(1.0, abs(m["lo"])), math.nan):
            why = t.apply(path, value)
            assert why is not None and t.errors[path] == why, path
            assert why.startswith(f"{path} = {value!r} is not allowed"), why
            assert f"[{m['lo']:g}, {m['hi']:g}] {m['unit']}" in why, why
            assert t.params is before
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle == before                                      # nothing refused reached the car


def test_the_ends_of_a_range_are_allowed():
    """The ranges are inclusive: a number at either end is never refused for its range (it may still be
    refused for a relation between parameters or by the stability advisor, with another message)."""
    s, t = make()
    for path, f in schema("num"):
        m = f.metadata
        for value in (m["lo"], m["hi"]):
            why = t.apply(path, value)
            assert why is None or f"[{m['lo']:g}, {m['hi']:g}]" not in why, why
            t.revert()


def test_an_accepted_edit_reaches_the_next_step_is_marked_and_reverts():
    s, t = make()
    told = []
    t.on_params = told.append
    grip = s.sim.vehicle.front_tire.grip
    assert not t.edited() and t.preset_label() == "hatchback"
    assert t.apply("front_tire.grip", 0.9) is None
    assert t.params.front_tire.grip == 0.9 and told == [t.params]
    assert s.sim.vehicle.front_tire.grip == grip                        # between steps: not yet
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle.front_tire.grip == 0.9
    assert t.edited() and t.preset_label() == "hatchback (edited)"
    t.revert("front_tire.grip")
    assert t.params.front_tire.grip == grip and not t.edited() and t.preset_label() == "hatchback"


def test_a_choice_outside_its_list_is_refused_naming_the_choices():
    s, t = make()
    before = t.params
    for path, f in schema("text"):
        why = t.apply(path, "nonsense")
        assert why.startswith(f"{path} = 'nonsense' is not allowed") and t.params is before
        assert all(repr(c) in why for c in f.metadata["choices"]), why
    assert t.apply("drive.layout", "awd") is None and t.params.drive.layout == "awd"


def test_a_list_is_read_as_typed_and_a_bad_one_is_refused():
    s, t = make()
    assert t.apply_list("gearbox.ratios", "3.1; 2.0, 1.3,1.0") is None
    assert t.params.gearbox.ratios == (3.1, 2.0, 1.3, 1.0)
    tuned = t.params
    assert "is not a list of numbers" in t.apply_list("gearbox.ratios", "3.1, two")
    increasing = [p for p, f in schema("curve") if f.metadata["increasing"]]
    assert increasing
    for path in increasing:
        values = checks.get_value(t.params, path)
        why = t.apply_list(path, ", ".join(short_number(v) for v in reversed(values)))
        assert "strictly increasing" in why and path in why
    gear = checks.field_info("gearbox.ratios").metadata
    why = t.apply("gearbox.ratios", [1.0] * (gear["max_len"] + 1))
    assert f"{gear['min_len']} to {gear['max_len']} numbers" in why
    assert t.params is tuned and "gearbox.ratios" in t.errors


@pytest.mark.parametrize("preset", ["hatchback", "boxster_s"])
def test_every_list_as_its_field_shows_it_reads_back_unchanged(preset):
    """The text a list field shows (short_number) is read back to the very same numbers: an edit of one
    number never rounds the others."""
    s, t = make(preset)
    for path, _ in schema("curve"):
        assert t.apply_list(path, ", ".join(short_number(v) for v in checks.get_value(t.params, path))) is None
    assert t.params == t.baseline and not t.edited()


def test_revert_all_restores_the_loaded_preset_and_clears_the_refusals():
    s, t = make()
    t.apply("chassis.mass", 1400.0)
    t.apply("drive.layout", "fwd")
    t.apply("front_suspension.k", -1.0)
    assert t.edited() and "front_suspension.k" in t.errors
    t.revert()
    assert t.params == t.baseline == sim.load_vehicle("hatchback")
    assert not t.edited() and t.errors == {} and t.fixes == {}


def test_an_edit_the_step_cannot_follow_is_held_with_the_substeps_that_run_it_as_given():
    s, t = make()
    t._use(LIGHT)                                   # a light body, its dampers followed at 8 substeps
    needed = sim.advisor.report(sim.with_value(t.params, HELD_PATH, HELD_VALUE), s.sim.dt, 8).substeps_as_given
    assert needed > 8
    assert t.apply(HELD_PATH, HELD_VALUE) is None and t.params.front_suspension.c == HELD_VALUE
    assert t.fixes[HELD_PATH] == (HELD_VALUE, needed)
    assert t.apply_with_substeps(HELD_PATH) is None
    assert s.sim.substeps == needed and t.params.front_suspension.c == HELD_VALUE
    assert not any("the dampers to" in n for n in t.stability().notes)      # (the bump stops may still be held)


def test_the_stable_ranges_lie_inside_the_allowed_ones_and_say_where_they_meet():
    s, t = make()
    for path in sim.advisor.PARAMETERS:
        m = checks.field_info(path).metadata
        lo, hi = t.stable_range(path)
        assert m["lo"] <= lo <= checks.get_value(t.params, path) <= hi <= m["hi"], path
        tip = t.range_tip(path, m["unit"])
        assert f"{lo:.4g}" in tip and f"{hi:.4g}" in tip and m["unit"] in tip
        assert ("(allowed min)" in tip) == (lo == m["lo"]) and ("(allowed max)" in tip) == (hi == m["hi"]), tip


def test_save_writes_only_the_edits_into_the_preset_file_and_load_reads_them_back(tmp_path):
    s, t = make()
    t.apply("front_tire.grip", 0.9)
    t.apply("gearbox.ratios", [3.1, 2.0, 1.3, 1.0])
    tuned = t.params
    path = tmp_path / "mine.toml"
    assert t.save(str(path)) and str(path) in t.status
    source = (vehicle_toml.PRESET_DIR / "hatchback.toml").read_text()
    saved = path.read_text()
    data = tomllib.loads(saved)
    assert data["front_tire"]["grip"] == 0.9 and data["gearbox"]["ratios"] == [3.1, 2.0, 1.3, 1.0]
    changed = [(a, b) for a, b in zip(source.splitlines(), saved.splitlines()) if a != b]
    assert len(saved.splitlines()) == len(source.splitlines()) and len(changed) == 2   # comments and layout kept
    # the saved file is the loaded preset now: named without "(edited)", nothing marked changed, nothing to revert
    assert t.preset_label() == "mine.toml" and not t.edited() and t.baseline == tuned
    t.revert()
    assert t.params == tuned
    assert t.load("hatchback") and t.params != tuned
    assert t.load(str(path)) and str(path.resolve()) in t.status
    assert t.params == tuned and t.baseline == tuned and not t.edited()
    assert t.source == path.resolve() and Path(t.file_path).expanduser() == path.resolve()
    assert t.preset_label() == "mine.toml"


def test_a_car_from_no_file_is_saved_whole_and_loads_back_equal(tmp_path):
    car = sim.with_value(sim.load_vehicle("boxster_s"), "chassis.mass", 1400.0)
    s = Session(car, sim.World.flat(), substeps=8)
    t = Tuning(s)
    assert t.source is None and t.preset_label() == car.name
    path = tmp_path / "built.toml"
    assert t.save(str(path))
    data = tomllib.loads(path.read_text())
    assert set(P.GROUP_TYPES) <= set(data) and data["chassis"]["mass"] == 1400.0
    assert sim.load_vehicle(path) == car


def test_a_failed_load_keeps_the_car_and_the_preset(tmp_path):
    s, t = make()
    t.apply("front_tire.grip", 0.9)
    tuned, baseline = t.params, t.baseline
    missing = tmp_path / "missing.toml"
    assert not t.load(str(missing))
    assert t.status.startswith("not loaded") and "missing.toml" in t.status
    assert t.params is tuned and t.baseline is baseline and t.preset_label() == "hatchback (edited)"
