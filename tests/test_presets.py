"""Saved presets as the user wrote them (issue 12): a save keeps the file's comments and layout and changes
only what was edited, numbers are exact, saves go to the app's data folder, and the preset box shows what
is loaded."""
import os
import tempfile
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest
from imgui_bundle import imgui

import sim
from app.session import Session
from sim.model import params as P
from sim.model import vehicle_toml
from ui.overlay import Overlay
from ui.tuning import NUMBER_FORMAT
from ui.tuning import config_presets
from ui.tuning import typed_number

PRESETS = ["hatchback", "boxster_s"]


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """The app's data folder in a temporary place (never the user's own)."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home / "contactpatch"


def make(vehicle="hatchback"):
    s = Session(sim.load_vehicle(vehicle), sim.World.flat(), substeps=8, vehicle_name=vehicle)
    return s, Overlay(s)


def comment_lines(text):
    return [line for line in text.splitlines() if line.strip().startswith("#")]


# ----------------------------------------------------------------------------------------------------
# Round trip through the file the preset came from

@pytest.mark.parametrize("preset", PRESETS)
def test_saving_an_edited_preset_keeps_every_comment_and_changes_only_that_value(tmp_path, preset):
    source = vehicle_toml.PRESET_DIR / f"{preset}.toml"
    original = source.read_text()
    car = sim.with_value(sim.load_vehicle(preset), "front_tire.grip", 0.6)
    path = tmp_path / "mine.toml"
    sim.save_vehicle(car, path, source=source)
    saved = path.read_text()
    before, after = original.splitlines(), saved.splitlines()
    assert len(after) == len(before)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(changed) == 1
    old_line, new_line = changed[0]
    assert new_line.startswith("grip = 0.6 ") and old_line.startswith("grip = ")
    assert new_line.index("#") == old_line.index("#")                   # its comment stays where it was
    assert new_line.split("#", 1)[1] == old_line.split("#", 1)[1]
    assert comment_lines(saved) == comment_lines(original)
    want = tomllib.loads(original)
    want["front_tire"]["grip"] = 0.6
    assert tomllib.loads(saved) == want
    assert sim.load_vehicle(path) == car


@pytest.mark.parametrize("preset", PRESETS)
def test_saving_an_unedited_preset_writes_the_same_bytes(tmp_path, preset):
    source = vehicle_toml.PRESET_DIR / f"{preset}.toml"
    sim.save_vehicle(sim.load_vehicle(preset), tmp_path / "same.toml", source=source)
    assert (tmp_path / "same.toml").read_bytes() == source.read_bytes()


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("from_file", [True, False])
def test_save_then_load_gives_an_equal_vehicle(tmp_path, preset, from_file):
    car = sim.load_vehicle(preset)
    for path, value in (("front_suspension.c", 1234.5678901234567), ("rear_tire.grip", 0.1 + 0.2),
                        ("gearbox.ratios", [3.1, 2.0, 1.3, 1.0]), ("engine.torque_nm", [150.0, 160.0, 190.0, 150.5]),
                        ("drive.layout", "awd"), ("aero.downforce_rear", 1e-05), ("chassis.mass", 1500)):
        car = sim.with_value(car, path, value)
    target = tmp_path / "saved.toml"
    sim.save_vehicle(car, target, source=vehicle_toml.PRESET_DIR / f"{preset}.toml" if from_file else None)
    assert sim.load_vehicle(target) == car
    text = target.read_text()
    assert "0.30000000000000004" in text and "1234.5678901234567" in text      # shortest repr, exact


def test_keys_missing_from_the_file_are_added_in_their_table(tmp_path):
    original = (vehicle_toml.PRESET_DIR / "hatchback.toml").read_text().splitlines(keepends=True)
    dropped = ("abs_slip =", "frontal_area =", "redline_rpm =")
    source = tmp_path / "short.toml"
    source.write_text("".join(line for line in original if not line.startswith(dropped)))
    car = sim.load_vehicle("hatchback")
    target = tmp_path / "full.toml"
    sim.save_vehicle(car, target, source=source)
    data = tomllib.loads(target.read_text())
    assert data["brakes"]["abs_slip"] == 0.11 and data["aero"]["frontal_area"] == 2.1
    assert data["engine"]["redline_rpm"] == 6500.0
    assert comment_lines(target.read_text()) == comment_lines(source.read_text())     # added keys: own comments
    assert sim.load_vehicle(target) == car


def test_a_file_with_a_base_stays_short_and_finds_its_base_from_another_folder(tmp_path):
    (tmp_path / "mine.toml").write_text('# my car\nname = "mine"\nbase = "hatchback"\n\n[chassis]\n'
                                        'mass = 1300   # kg, with a passenger\n')
    child = tmp_path / "child.toml"
    child.write_text('base = "mine.toml"   # the file next to this one\n\n[aero]\ndrag_coefficient = 0.3\n')
    car = sim.with_value(sim.load_vehicle(child), "front_tire.grip", 0.7)
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "elsewhere" / "child.toml"
    sim.save_vehicle(car, target, source=child)
    data = tomllib.loads(target.read_text())
    assert set(data) == {"base", "aero", "front_tire"}                 # only what differs from the base
    assert data["front_tire"] == {"grip": 0.7}
    assert sim.load_vehicle(target) == car
    sim.save_vehicle(car, tmp_path / "mine.toml", source=child)     # over its own base: a whole file instead
    assert sim.load_vehicle(tmp_path / "mine.toml") == car


def test_a_source_that_is_gone_gives_a_fresh_file_that_still_loads_equal(tmp_path):
    car = sim.with_value(sim.load_vehicle("hatchback"), "chassis.mass", 1250.0)
    target = tmp_path / "car.toml"
    sim.save_vehicle(car, target, source=tmp_path / "deleted.toml")
    assert sim.load_vehicle(target) == car


def test_a_fresh_file_comments_every_key_with_its_unit_and_range(tmp_path):
    car = sim.load_vehicle("boxster_s")
    target = tmp_path / "fresh.toml"
    sim.save_vehicle(car, target)
    lines = target.read_text().splitlines()
    assert max(len(line) for line in lines) <= 120
    for gname, gtype in P.GROUP_TYPES.items():
        start = lines.index(f"[{gname}]")
        for f in fields(gtype):
            line = next(x for x in lines[start:] if x.startswith(f"{f.name} = "))
            comment = line.split("#", 1)[1]
            m = f.metadata
            if m["kind"] in ("num", "curve") and m["unit"] != "-":
                assert comment.strip().startswith(m["unit"] + ":"), line
            if m["kind"] == "num":
                assert f"{m['lo']:g} to" in line or f"{m['lo']:g} to" in " ".join(lines[start:]), line
    assert sim.load_vehicle(target) == car


# ----------------------------------------------------------------------------------------------------
# Exact values

def type_into_field(gui, overlay, path, keys):
    """Click into one parameter's number field (keyboard focus), select its text, type `keys`, press Enter."""
    gname, _, fname = path.partition(".")
    f = next(x for x in fields(P.GROUP_TYPES[gname]) if x.name == fname)
    steps = [[], [("key", imgui.Key.mod_ctrl, True), ("key", imgui.Key.a, True)],
             [("key", imgui.Key.mod_ctrl, False), ("key", imgui.Key.a, False)], [("text", keys)],
             [("key", imgui.Key.enter, True)], [("key", imgui.Key.enter, False)], []]
    for k, events in enumerate(steps):
        io = imgui.get_io()
        for e in events:
            if e[0] == "key":
                io.add_key_event(e[1], e[2])
            else:
                io.add_input_characters_utf8(e[1])
        io.delta_time = 1 / 60
        imgui.new_frame()
        imgui.begin("Tuning")
        if k == 0:
            imgui.set_keyboard_focus_here()
        overlay.panels["Tuning"].field_editor(overlay.tuning.params, gname, f)
        imgui.end()
        imgui.render()
        gui.render(imgui.get_draw_data())


def test_a_typed_number_is_stored_exactly_and_saved_as_typed(gui, tmp_path):
    s, o = make()
    t = o.tuning
    type_into_field(gui, o, "front_tire.grip", "0.6")
    assert t.params.front_tire.grip == 0.6                            # not float32's 0.6000000238418579
    assert t.save(str(tmp_path / "typed.toml"))
    assert "grip = 0.6 " in (tmp_path / "typed.toml").read_text()


def test_enter_on_an_untouched_number_field_keeps_the_precise_value():
    precise = 1234.5678901234567
    shown = float(NUMBER_FORMAT % precise)                 # what the field's text reads back as
    assert shown != precise
    assert typed_number(shown, precise) == precise
    assert typed_number(0.6, 1.063) == 0.6
    assert typed_number(1234.5, precise) == 1234.5


# ----------------------------------------------------------------------------------------------------
# Failures

def test_a_save_into_an_unwritable_folder_names_the_file(tmp_path, monkeypatch):
    folder = tmp_path / "locked"
    folder.mkdir()
    target = folder / "car.toml"
    sim.save_vehicle(sim.load_vehicle("hatchback"), target)
    before = target.read_bytes()
    os.chmod(folder, 0o555)
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*a, **kw):                                   # root ignores the folder's mode: refuse as it would
        if str(kw.get("dir")) == str(folder):
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*a, **kw)
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    car = sim.with_value(sim.load_vehicle("hatchback"), "chassis.mass", 999.0)
    try:
        with pytest.raises(sim.ConfigError, match=r"locked/car\.toml: cannot save: Permission denied"):
            sim.save_vehicle(car, target, source=vehicle_toml.PRESET_DIR / "hatchback.toml")
        s, o = make()
        t = o.tuning
        t.apply("chassis.mass", 999.0)
        assert not t.save(str(target))
        assert "not saved" in t.status and "car.toml" in t.status and "Permission denied" in t.status
    finally:
        os.chmod(folder, 0o755)
    assert target.read_bytes() == before
    assert [p.name for p in folder.iterdir()] == ["car.toml"]


def test_a_save_failing_half_way_leaves_the_old_file_whole(tmp_path, monkeypatch):
    target = tmp_path / "car.toml"
    sim.save_vehicle(sim.load_vehicle("boxster_s"), target, source=vehicle_toml.PRESET_DIR / "boxster_s.toml")
    before = target.read_bytes()

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", broken_fsync)
    car = sim.with_value(sim.load_vehicle("boxster_s"), "front_tire.grip", 0.6)
    with pytest.raises(sim.ConfigError, match=r"car\.toml: cannot save: No space left on device"):
        sim.save_vehicle(car, target, source=target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["car.toml"]


def test_a_data_folder_that_cannot_be_made_is_reported(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder would go")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    s, o = make()
    t = o.tuning
    assert not t.save(t.default_save_path())
    assert t.status.startswith("not saved: ") and "hatchback.toml" in t.status
    assert not t.save("   ")
    assert "no file name" in t.status


# ----------------------------------------------------------------------------------------------------
# Where saves go, what the preset box lists and shows

def test_the_default_save_path_is_in_the_data_folder(data_home):
    s, o = make("boxster_s")
    t = o.tuning
    assert Path(t.file_path).expanduser() == data_home / "vehicles" / "boxster_s.toml"
    assert t.save(t.file_path)
    assert sim.load_vehicle(data_home / "vehicles" / "boxster_s.toml") == t.params


def test_a_saved_user_preset_is_listed_beside_the_built_in_ones(data_home):
    s, o = make()
    t = o.tuning
    t.apply("rear_tire.grip", 0.9)
    assert t.save(str(data_home / "vehicles" / "hatchback.toml"))
    presets = config_presets()
    assert [(p.name, p.user) for p in presets] == [("boxster_s", False), ("hatchback", False), ("hatchback", True)]
    mine = presets[2]
    assert mine.label == "hatchback (user)" and mine.path == data_home / "vehicles" / "hatchback.toml"
    assert t.load(mine.path)
    assert t.params.rear_tire.grip == 0.9
    assert t.preset_label() == "hatchback (user)"
    assert Path(t.file_path).expanduser() == mine.path               # the user's own file is saved back


def test_the_preset_box_shows_what_is_loaded_and_when_it_was_edited(gui, data_home, tmp_path):
    s, o = make()
    t = o.tuning
    assert t.preset_label() == "hatchback"
    assert t.load("boxster_s")
    assert t.preset_label() == "boxster_s"
    assert Path(t.file_path).expanduser() == data_home / "vehicles" / "boxster_s.toml"
    t.apply("front_tire.grip", 0.8)
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert t.preset_label() == "boxster_s (edited)"
    t.revert("front_tire.grip")
    assert t.preset_label() == "boxster_s"
    elsewhere = tmp_path / "track day.toml"
    sim.save_vehicle(sim.with_value(t.params, "chassis.mass", 1400.0), elsewhere)
    assert t.load(str(elsewhere))
    assert t.preset_label() == "track day.toml" and t.source == elsewhere.resolve()
    assert Path(t.file_path).expanduser() == elsewhere.resolve()
    t.apply("chassis.mass", 1410.0)
    assert t.preset_label() == "track day.toml (edited)"
    assert not t.load(str(tmp_path / "missing.toml"))
    assert t.preset_label() == "track day.toml (edited)"                # a failed load changes nothing
    imgui.new_frame()
    o.build()                                                          # the panel draws with a file loaded
    imgui.render()
    gui.render(imgui.get_draw_data())
