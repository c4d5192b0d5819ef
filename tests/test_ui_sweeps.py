"""Sweeps in the app (issue 29 item 5), headless: the Sweeps panel on a folder written by a real (tiny) sweep,
its rows sorted by a column, "drive this variant", a folder that is not a sweep's; and the Tuning panel's
"sweep this", whose points are run_batch's figures of the same cars, bit for bit."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from imgui_bundle import imgui
from test_ui import frame
from test_ui import make

import sim
import ui.panels.sweep_this
from sim.lab.drives.suite import run_batch
from sim.lab.exit_codes import Exit
from sim.lab.sweep.cli import sweep_command
from sim.lab.sweep.work import car_of
from sim.model import checks
from ui.quick_sweep import default_range

JOIN_SECONDS = 300.0      # a generous bound on a worker thread (a cold numba cache compiles first)

GRID = """vehicle = "{vehicle}"
drives = ["braking"]
[grid]
"chassis.mass" = [100.0, 1300.0, 1150.0]
"front_tire.grip" = [0.9, 1.1]
"""


def run_sweep(tmp_path, vehicle: str = "hatchback"):
    """A real sweep of 6 variants (two of them refused: 100 kg is too light for the body's inertia)."""
    spec = tmp_path / "grid.toml"
    spec.write_text(GRID.format(vehicle=vehicle))
    out = tmp_path / "out"
    assert sweep_command([str(spec), "--out", str(out), "--workers", "1", "--no-plots"]) == Exit.OK
    return out


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    return run_sweep(tmp_path_factory.mktemp("sweep"))


def opened(sweep_dir):
    s, o = make()
    assert o.open_sweep(str(sweep_dir)) and o.sweeps.message == ""
    assert o.show["Sweeps"]
    return s, o


def test_the_sweeps_panel_shows_a_sweeps_rows_with_the_units_in_the_headers(gui, sweep_dir, monkeypatch):
    headers, drawn = [], []
    setup, selectable = imgui.table_setup_column, imgui.selectable
    monkeypatch.setattr(imgui, "table_setup_column", lambda label, *a: (headers.append(label), setup(label, *a))[1])
    monkeypatch.setattr(imgui, "selectable", lambda label, *a: (drawn.append(label), selectable(label, *a))[1])
    imgui.get_io().display_size = (1920, 1080)
    s, o = opened(sweep_dir)
    for _ in range(4):
        frame(o, gui)
    sw = o.sweeps.sweep
    assert sw.columns == ["variant", "chassis.mass", "front_tire.grip", "braking/stopping distance",
                          "braking/ideal distance v^2 / (2 mu g)", "braking/mean deceleration",
                          "braking/time with a wheel locked", "status"]
    assert sw.units == ["-", "kg", "-", "m", "m", "g", "s", "-"]
    assert {"chassis.\nmass (kg)", "front_tire.\ngrip", "braking/\nstopping distance (m)"} <= set(headers)
    rows = [d.split("##")[0] for d in drawn if d.startswith("v0000")]
    assert sorted(set(rows)) == [f"v{k:06d}" for k in range(6)]
    failed = [r["variant"] for i, r in enumerate(sw.rows) if sw.failed(i)]
    assert failed == ["v000000", "v000001"] and all("refused" in sw.rows[i]["error"] for i in range(2))
    assert sw.cells[2][1] == "1300" and sw.cells[0][3] == "" and sw.skipped == 0
    assert sw.car == sim.load_vehicle("hatchback") and sw.car_note == ""
    o.sweeps.tab_request = "Plot"
    for _ in range(2):
        frame(o, gui)                                    # the plot and the sensitivity table build
    slope, per_tenth, n = sw.sensitivity("braking/stopping distance")
    assert n == 4 and np.isfinite(slope).all()


def test_sorting_by_a_column_orders_the_rows_by_its_values(gui, sweep_dir, monkeypatch):
    s, o = opened(sweep_dir)
    sw = o.sweeps.sweep
    col = sw.columns.index("braking/stopping distance")
    d = sw.values("braking/stopping distance")
    up, down = sw.order(col), sw.order(col, descending=True)
    assert list(d[up[:4]]) == sorted(d[np.isfinite(d)])
    assert all(np.diff(d[down[:4]]) <= 0) and sorted(up[4:]) == sorted(down[4:]) == [0, 1]   # no value: last
    status = sw.columns.index("status")
    assert sw.order(status) == [0, 1, 2, 3, 4, 5] and sw.order(status, True) == [2, 3, 4, 5, 0, 1]   # as text
    # a click on the header, as ImGui's sort specs hand it to the panel: the rows are drawn in that order
    headers_row = imgui.table_headers_row

    def sort_by_distance():
        headers_row()
        imgui.internal.table_set_column_sort_direction(col, imgui.SortDirection.descending, False)
    drawn = []
    selectable = imgui.selectable
    o.show = {name: name == "Sweeps" for name in o.show}          # the one table the sort is set on
    monkeypatch.setattr(imgui, "table_headers_row", sort_by_distance)
    monkeypatch.setattr(imgui, "selectable", lambda label, *a: (drawn.append(label), selectable(label, *a))[1])
    for _ in range(3):
        drawn.clear()
        frame(o, gui)
    assert o.sweeps.order == down
    assert [label.split("##")[0] for label in drawn if label.startswith("v0000")] == \
        [sw.rows[i]["variant"] for i in down]


def test_drive_this_variant_gives_the_tuning_the_rows_values_with_the_preset_as_baseline(gui, sweep_dir):
    s, o = opened(sweep_dir)
    t = o.tuning
    t.apply("rear_suspension.k", 31000.0)                # an edit of the user's: the variant replaces it
    sw = o.sweeps.sweep
    i = next(i for i, r in enumerate(sw.rows) if (r["chassis.mass"], r["front_tire.grip"]) == (1300.0, 1.1))
    o.sweeps.selected = i
    frame(o, gui)
    status = o.sweeps.drive_selected()
    assert "refused" not in status and sw.rows[i]["variant"] in status
    base = sim.load_vehicle("hatchback")
    assert t.baseline == base and t.params == car_of(base, ["chassis.mass", "front_tire.grip"], [1300.0, 1.1])
    assert t.params.rear_suspension.k == base.rear_suspension.k and t.edited()
    assert t.preset_label() == "hatchback (edited)" and t.errors == {}
    s.frame(1 / 60, lambda dt: sim.Controls())
    assert s.sim.vehicle.chassis.mass == 1300.0 and s.sim.vehicle.front_tire.grip == 1.1
    frame(o, gui)


def test_a_variant_of_another_car_loads_that_car_as_the_preset(gui, tmp_path):
    """A sweep of a car from a file (not the one loaded): the file becomes the preset, the row its edits."""
    car = sim.with_value(sim.load_vehicle("hatchback"), "rear_suspension.k", 29000.0)
    sim.save_vehicle(car, tmp_path / "mine.toml")
    out = run_sweep(tmp_path, vehicle="mine.toml")
    s, o = opened(out)
    sw = o.sweeps.sweep
    assert sw.car == sim.load_vehicle(tmp_path / "mine.toml") and sw.car_note == ""
    o.sweeps.selected = 2
    o.sweeps.drive_selected()
    t = o.tuning
    assert t.baseline == sw.car and t.source == (tmp_path / "mine.toml").resolve()
    assert t.params == car_of(sw.car, sw.table.paths, [sw.rows[2][p] for p in sw.table.paths])


@pytest.mark.parametrize("make_folder, words", [
    (lambda p: p / "missing", "no such folder"),
    (lambda p: p, "not a sweep's results folder"),
    (lambda p: (p / "results.csv").write_text("a,b\n1,2\n") and p, "not a sweep's table"),
    (lambda p: (p / "results.csv").write_bytes(b"\xff\xfe\x00garbage") and p, "cannot read it"),
    (lambda p: (p / "results.csv").write_text("variant,x,status,error\n-,m,-,-\n") and p, "not a sweep's table"),
])
def test_a_folder_that_is_not_a_sweeps_gives_one_line_in_the_panel(gui, tmp_path, make_folder, words):
    s, o = make()
    folder = make_folder(tmp_path)
    assert not o.open_sweep(str(folder))
    msg = o.sweeps.message
    assert words in msg and "\n" not in msg and str(folder.name) in msg
    for _ in range(2):
        frame(o, gui)                                    # the panel shows it, nothing raised


def test_damaged_rows_are_left_out_and_counted(gui, sweep_dir, tmp_path):
    text = (sweep_dir / "results.csv").read_text().splitlines()
    (tmp_path / "results.csv").write_text("\n".join(text[:3] + ["v000009,1300.0,oops,1,2,3,4,ok,", "v00001"]
                                                    + text[3:]) + "\n")
    s, o = make()
    assert o.open_sweep(str(tmp_path))
    sw = o.sweeps.sweep
    assert len(sw.rows) == 6 and sw.skipped == 2 and sw.car_note           # no sweep.json: the car is unknown
    frame(o, gui)


def test_sweep_this_gives_run_batchs_figures_bit_for_bit_and_marks_the_current_value(gui, monkeypatch):
    s, o = make()
    t, view = o.tuning, o.panels["Tuning"]
    qs = view.sweep
    path = "front_suspension.k"
    k = t.params.front_suspension.k
    qs.choose(path, k)
    assert (qs.lo, qs.hi) == default_range(path, k) == (0.5 * k, 1.5 * k) and qs.points == 9
    assert qs.drive == "step-steer"
    thread = qs.start(t.params)
    thread.join(JOIN_SECONDS)
    assert not thread.is_alive() and qs.problem == ""
    out = qs.outcome
    values = np.linspace(0.5 * k, 1.5 * k, 9)
    alone = run_batch("step-steer", [checks.with_value(t.params, path, v) for v in values])
    assert np.array_equal(out.values, values) and out.errors == [""] * 9
    assert out.names == [f.name for f in alone[0].figures]
    for j, name in enumerate(out.names):
        assert out.figures[j].tolist() == [r.figures[j].value for r in alone], name
    plotted = []
    monkeypatch.setattr(ui.panels.sweep_this, "figure_plot", lambda *a, **kw: plotted.append((a, kw)))
    imgui.new_frame()
    imgui.begin("Tuning")
    f = next(f for f in dataclasses.fields(sim.model.params.GROUP_TYPES["front_suspension"]) if f.name == "k")
    view.field_editor(t.params, "front_suspension", f)
    imgui.end()
    imgui.render()
    (args, kw), = plotted
    assert kw["current"] == k and args[1] is out.values and args[2] is out.figures[0]


def test_sweep_this_shows_a_refused_point_by_itself(gui):
    s, o = make()
    t, qs = o.tuning, o.panels["Tuning"].sweep
    qs.choose("chassis.mass", t.params.chassis.mass)
    qs.drive, qs.lo, qs.hi, qs.points = "braking", 100.0, 1300.0, 3                 # 100 kg: refused
    qs.start(t.params).join(JOIN_SECONDS)
    out = qs.outcome
    assert out.errors[0].startswith("refused") and all(e == "" for e in out.errors[1:])
    assert math.isnan(out.figures[0][0])
    alone = run_batch("braking", [checks.with_value(t.params, "chassis.mass", v) for v in (700.0, 1300.0)])
    assert [out.figures[0][1], out.figures[0][2]] == [r.figures[0].value for r in alone]
    qs.lo = qs.hi
    assert qs.start(t.params) is None and "empty" in qs.problem
    frame(o, gui)


def test_the_last_folder_opened_is_remembered_and_listed(gui, sweep_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    s, o = make()
    assert o.sweeps.path == "" and o.sweeps.recent == []
    assert o.open_sweep(str(sweep_dir))
    s2, o2 = make()                                         # the next start of the app
    assert o2.sweeps.path == str(sweep_dir.resolve()) and o2.sweeps.recent == [str(sweep_dir.resolve())]
    assert o2.sweeps.nearby() == [str(sweep_dir.resolve())]                  # the sweep folders beside it
    frame(o2, gui)
