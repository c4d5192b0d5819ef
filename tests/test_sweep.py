"""Sweeps (issue 29): `contactpatch sweep FILE --out DIR`: each row is its variant's drive alone, bit for bit;
a rerun resumes; bad files get one line; summary.md's sensitivities are the least-squares slopes of the
written table and agree with the statics of the car."""
from __future__ import annotations

import csv
import importlib.util
import math
import re

import numpy as np
import pytest

from sim.kernel.units import GRAVITY
from sim.lab.drives.suite import run
from sim.lab.exit_codes import Exit
from sim.lab.sweep import work
from sim.lab.sweep.cli import sweep_command
from sim.model.checks import apply_sets
from sim.model.vehicle_toml import load_vehicle
from sim.watchdog import BlowUp


def sweep_file(tmp_path, body: str, name: str = "sweep.toml"):
    path = tmp_path / name
    path.write_text(body)
    return path


def read_rows(out):
    with open(out / "results.csv", newline="") as fh:
        lines = list(csv.reader(fh))
    return lines[0], lines[1], [dict(zip(lines[0], cells)) for cells in lines[2:]]


GRID_16 = """vehicle = "hatchback"
drives = ["braking"]
[grid]
"chassis.mass" = [1000.0, 1150.0, 1300.0, 1450.0]
"front_tire.grip" = [0.9, 1.0, 1.1, 1.2]
"""


def test_a_16_variant_grid_sweep_gives_each_variant_its_drive_alone_bit_for_bit(tmp_path, capsys):
    """Two worker processes, batches of 4: every row's figures are exactly those of `run` on the same car
    built with --set, in the CSV and in the Parquet file, with the units of the drive's figures."""
    out = tmp_path / "out"
    assert sweep_command([str(sweep_file(tmp_path, GRID_16)), "--out", str(out), "--workers", "2", "--batch", "4",
                          "--no-plots"]) == Exit.OK
    names, units, rows = read_rows(out)
    assert names[:3] == ["variant", "chassis.mass", "front_tire.grip"] and names[-2:] == ["status", "error"]
    assert units[:3] == ["-", "kg", "-"]
    assert len(rows) == 16 and {(float(r["chassis.mass"]), float(r["front_tire.grip"])) for r in rows} == \
        {(m, g) for m in (1000.0, 1150.0, 1300.0, 1450.0) for g in (0.9, 1.0, 1.1, 1.2)}
    base = load_vehicle("hatchback")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(out / "results.parquet")
    parquet = {name: table.column(name).to_pylist() for name in table.column_names}
    for k, row in enumerate(rows):
        alone = run("braking", apply_sets(base, [f"chassis.mass={row['chassis.mass']}",
                                                 f"front_tire.grip={row['front_tire.grip']}"]))
        assert row["status"] == "ok"
        for f in alone.figures:
            col = f"braking/{f.name}"
            assert float(row[col]) == f.value, col                 # the same bits
            assert units[names.index(col)] == f.unit
            assert parquet[col][k] == f.value
    assert table.schema.field("chassis.mass").metadata[b"unit"] == b"kg"


def counting(monkeypatch):
    """Count the cars the sweep's batches drive (the in-process engine: --workers 1)."""
    driven = []
    original = work.run_batch

    def counted(name, cars):
        driven.extend(cars)
        return original(name, cars)
    monkeypatch.setattr(work, "run_batch", counted)
    return driven


SETTLE_4 = """drives = ["settle"]
[grid]
"chassis.mass" = [1000.0, 1100.0, 1200.0, 1300.0]
"""


def test_a_rerun_drives_nothing_new_and_a_deleted_row_is_driven_again_alone(tmp_path, monkeypatch, capsys):
    path, out = sweep_file(tmp_path, SETTLE_4), tmp_path / "out"
    args = [str(path), "--out", str(out), "--workers", "1", "--no-plots"]
    driven = counting(monkeypatch)
    assert sweep_command(args) == Exit.OK
    assert len(driven) == 4
    first = (out / "results.csv").read_text()
    driven.clear()
    assert sweep_command(args) == Exit.OK
    assert driven == [] and (out / "results.csv").read_text() == first
    lines = first.splitlines()
    gone = lines.pop(4)                                 # names, units, then the rows: the third variant's
    (out / "results.csv").write_text("\n".join(lines) + "\n")
    assert sweep_command(args) == Exit.OK
    assert [c.chassis.mass for c in driven] == [float(gone.split(",")[1])]
    assert (out / "results.csv").read_text() == first


def test_ctrl_c_keeps_every_finished_row_and_the_rerun_drives_the_rest(tmp_path, monkeypatch, capsys):
    path, out = sweep_file(tmp_path, SETTLE_4), tmp_path / "out"
    args = [str(path), "--out", str(out), "--workers", "1", "--batch", "2", "--no-plots"]
    original, calls = work.drive_job, []

    def interrupted(job):
        calls.append(job)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(job)
    monkeypatch.setattr("sim.lab.sweep.engine.drive_job", interrupted)
    assert sweep_command(args) == Exit.INTERRUPTED
    assert "stopped (Ctrl+C)" in capsys.readouterr().err
    assert [float(r["chassis.mass"]) for r in read_rows(out)[2]] == [1000.0, 1100.0]
    monkeypatch.setattr("sim.lab.sweep.engine.drive_job", original)
    driven = counting(monkeypatch)
    assert sweep_command(args) == Exit.OK
    assert sorted(c.chassis.mass for c in driven) == [1200.0, 1300.0]
    assert len(read_rows(out)[2]) == 4


def test_a_car_that_blows_up_costs_only_its_own_row(monkeypatch):
    """The batch is driven again without the car the BlowUp names; the others' figures are their drives
    alone; the failing row keeps its figures empty and the reason in one line."""
    base = load_vehicle("hatchback")
    bad_mass = 1100.0
    original = work.run_batch

    def exploding(name, cars):
        for i, c in enumerate(cars):
            if c.chassis.mass == bad_mass:
                raise BlowUp(f"vehicle {i}: the body's energy rose by 5 MJ\nmore detail", i)
        return original(name, cars)
    monkeypatch.setattr(work, "run_batch", exploding)
    job = work.Job(base, ["settle"], ["chassis.mass"], [(f"v{k}", (m,)) for k, m in
                                                        enumerate((1000.0, 1100.0, 1200.0, 100.0))])
    rows = work.drive_job(job)
    assert [r["status"] for r in rows] == ["ok", "failed", "ok", "failed"]
    assert rows[1]["error"] == "settle: blew up: vehicle 1: the body's energy rose by 5 MJ"
    assert "settle/load FL" not in rows[1]
    # 100 kg cannot carry the preset's moments of inertia: the model refuses it before any drive
    roll = base.chassis.inertia_roll
    assert rows[3]["error"].startswith(f"refused: hatchback: chassis.inertia_roll = {roll:g} is not allowed")
    for r in (rows[0], rows[2]):
        alone = run("settle", apply_sets(base, [f"chassis.mass={r['chassis.mass']}"]))
        assert [r[f"settle/{f.name}"] for f in alone.figures] == [f.value for f in alone.figures]


BAD_FILES = [
    ('drives = ["settle"]\n[grid]\n"chassis.mas" = [1000.0]\n',
     r"grid\.'chassis\.mas': 'chassis\.mas' is not a parameter; chassis has .*mass"),
    ('drives = ["settle"]\n[grid]\n"chassis.mass" = [1000.0, 9000.0]\n',
     r"grid\.'chassis\.mass' = 9000\.0 is not allowed; expected a number in \[100, 5000\] kg"),
    ('drives = ["settle", "brakes"]\n[grid]\n"chassis.mass" = [1000.0]\n',
     r"drives: 'brakes' is not a test drive; expected one of .*braking"),
    ('drives = ["settle"]\n[random]\nn = 4\n"front_tire.grip" = [1.1, 0.9]\n',
     r"random\.'front_tire\.grip' = \[1\.1, 0\.9\] is not allowed; expected \[low, high\] with low below high"),
    ('drives = ["settle"]\n[grid]\n"chassis.mass" = [' + ", ".join(f"{1000.0 + k}" for k in range(50)) + ']\n'
     '"front_tire.grip" = [' + ", ".join(f"{0.9 + k * 0.001}" for k in range(50)) + ']\n'
     '"rear_tire.grip" = [' + ", ".join(f"{0.9 + k * 0.001}" for k in range(50)) + ']\n',
     r"125,000 variants \(50 x 50 x 50\) is too many; expected at most 100,000 \(raise it with --max-variants\)"),
    ('drives = ["settle"]\n[search]\nminimize = "settle/load XX"\n"chassis.mass" = [1000.0, 1300.0]\n',
     r"search: 'settle/load XX' is not a figure of settle; expected one of 'load FL', 'load FR'"),
    ('drives = ["settle"]\n[search]\ntarget = { "braking/stopping distance" = 38 }\n'
     '"chassis.mass" = [1000.0, 1300.0]\n',
     r"search: 'braking/stopping distance' is not a figure of this sweep's drives \(settle\); add its drive"),
    ('drives = ["settle"]\ngird = 3\n', r"unknown key sweep\.gird; known keys: vehicle, drives, grid, random, search"),
    ('vehicle = "hatchbak"\ndrives = ["settle"]\n[grid]\n"chassis.mass" = [1000.0]\n',
     r"vehicle = 'hatchbak': vehicle preset 'hatchbak' not found; known presets: .*hatchback"),
]


@pytest.mark.parametrize("body, message", BAD_FILES, ids=["path", "range", "drive", "low-high", "too-large",
                                                          "figure", "figure-drive", "key", "vehicle"])
def test_a_bad_sweep_file_gets_one_line_naming_the_file_key_value_and_what_is_allowed(tmp_path, capsys, body,
                                                                                       message):
    path = sweep_file(tmp_path, body)
    assert sweep_command([str(path), "--out", str(tmp_path / "out"), "--workers", "1"]) == Exit.BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"contactpatch sweep: {path}: ")
    assert re.search(message, err), err


def test_a_folder_of_another_sweep_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert sweep_command([str(sweep_file(tmp_path, SETTLE_4)), "--out", str(out), "--workers", "1",
                          "--no-plots"]) == Exit.OK
    other = sweep_file(tmp_path, SETTLE_4.replace("settle", "drop"), "other.toml")
    capsys.readouterr()
    assert sweep_command([str(other), "--out", str(out), "--workers", "1"]) == Exit.BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{out}: holds the results of another sweep (drives: ['settle'] there, ['drop'] now)" in err


def summary_slopes(text: str) -> dict[tuple[str, str], tuple[float, float]]:
    """{(figure, parameter): (slope per unit, per 10 % of the range)} from summary.md's sensitivity table."""
    out = {}
    for m in re.finditer(r"^\| ([^|]+) \| ([^|]+) \| (\S+) [^|]+ \| (\S+) [^|]+ \| \d+ \|$", text, re.M):
        out[(m[1], m[2])] = (float(m[3]), float(m[4]))
    return out


def test_the_summary_sensitivities_are_the_tables_least_squares_slopes_and_the_cars_statics(tmp_path, capsys):
    """Settled wheel loads against the mass: their sum rises by g per kg (every kilogram rests on the
    wheels) and the front pair's by g b / L (the centre of mass b behind the front axle... ahead of the rear
    axle by b of the wheelbase L); each slope is numpy.polyfit's of the written rows, and per 10 % of the
    swept range (300 kg) it is 30 kg's worth."""
    out = tmp_path / "out"
    assert sweep_command([str(sweep_file(tmp_path, SETTLE_4)), "--out", str(out), "--workers", "1",
                          "--no-plots"]) == Exit.OK
    slopes = summary_slopes((out / "summary.md").read_text())
    assert len(slopes) == 6                              # six settle figures, one parameter
    _, _, rows = read_rows(out)
    mass = np.array([float(r["chassis.mass"]) for r in rows])
    loads = {w: np.array([float(r[f"settle/load {w}"]) for r in rows]) for w in ("FL", "FR", "RL", "RR")}
    for w, y in loads.items():
        per_kg, per_tenth = slopes[(f"settle/load {w}", "chassis.mass")]
        fitted = np.polyfit(mass, y, 1)[0]
        assert per_kg == pytest.approx(fitted, rel=1e-5)
        assert per_tenth == pytest.approx(fitted * 30.0, rel=1e-5)
    total = sum(slopes[(f"settle/load {w}", "chassis.mass")][0] for w in loads)
    assert total == pytest.approx(GRAVITY, rel=1e-3)
    car = load_vehicle("hatchback")
    b = car.chassis.com_x - car.rear_axle.x
    front = slopes[("settle/load FL", "chassis.mass")][0] + slopes[("settle/load FR", "chassis.mass")][0]
    assert front == pytest.approx(GRAVITY * b / car.wheelbase, rel=5e-3)


def test_random_draws_are_seeded_uniform_within_their_ranges_and_cross_the_grid(tmp_path):
    from sim.lab.sweep.spec import load_sweep
    path = sweep_file(tmp_path, 'drives = ["settle"]\n[grid]\n"chassis.mass" = [1000.0, 1200.0]\n'
                                '[random]\nn = 3\nseed = 7\n"front_tire.grip" = [0.9, 1.1]\n')
    s = load_sweep(path)
    v = s.variants()
    draws = np.random.default_rng(7).uniform([0.9], [1.1], size=(3, 1))[:, 0]
    assert s.paths == ["chassis.mass", "front_tire.grip"] and s.count() == 6
    assert v == [(m, float(g)) for m in (1000.0, 1200.0) for g in draws]


def test_plots_are_written_for_each_figure_and_a_heat_map_for_a_two_parameter_grid(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    body = 'drives = ["settle"]\n[grid]\n"chassis.mass" = [1000.0, 1200.0]\n"front_suspension.k" = [25000.0, 31000.0]\n'
    assert sweep_command([str(sweep_file(tmp_path, body)), "--out", str(out), "--workers", "1"]) == Exit.OK
    names = {p.name for p in out.glob("*.png")}
    assert {"settle-load-fl.png", "heatmap-settle-load-fl.png", "settle-sag-rear.png"} <= names
    assert not math.isnan(float(read_rows(out)[2][0]["settle/sag front"]))


SEARCH = """drives = ["settle"]
[search]
trials = 24
batch = 6
seed = 3
target = {{ "settle/load FL" = {target!r} }}
"chassis.mass" = [1000.0, 1400.0]
"""


def test_a_search_finds_the_mass_whose_front_wheel_load_is_asked_for_and_resumes(tmp_path, monkeypatch, capsys):
    """The front-left wheel load of the hatchback with a 1200 kg body is the target over 1000-1400 kg: Optuna
    asked 6 at a time lands within 0.5 % of the loads the range spans (400 kg x 2.74 N/kg) in 24 trials; summary.md
    names the best row of the table and its distance from the target; a rerun asks for nothing more."""
    optuna = pytest.importorskip("optuna")
    assert optuna
    target = run("settle", apply_sets(load_vehicle("hatchback"), ["chassis.mass=1200"])).value("load FL")
    path, out = sweep_file(tmp_path, SEARCH.format(target=target)), tmp_path / "out"
    args = [str(path), "--out", str(out), "--workers", "1"]
    driven = counting(monkeypatch)
    assert sweep_command(args) == Exit.OK
    assert len(driven) == 24
    _, _, rows = read_rows(out)
    assert len(rows) == 24 and all(1000.0 <= float(r["chassis.mass"]) <= 1400.0 for r in rows)
    best = min(rows, key=lambda r: abs(float(r["settle/load FL"]) - target))
    off = abs(float(best["settle/load FL"]) - target)
    assert off < 0.005 * 400.0 * 2.74          # 2.74 N/kg: g b / (2 L), the statics above
    text = (out / "summary.md").read_text()
    assert f"Best: {best['variant']} (chassis.mass = {float(best['chassis.mass']):.6g} kg)" in text
    assert f"{off:.6g} N from the target" in text
    if importlib.util.find_spec("matplotlib"):
        assert (out / "search-convergence.png").exists()
    driven.clear()
    assert sweep_command(args) == Exit.OK
    assert driven == []


@pytest.mark.slow
def test_a_search_on_the_anti_roll_split_lands_within_5_percent_of_an_understeer_gradient(tmp_path, capsys):
    """Issue 29's search: the hatchback's front and rear anti-roll bars (0-60 kN/m) for a circle-drive
    understeer gradient of 1.8 deg/g, the preset's own (1.81 with its 9 / 0 kN/m bars, so a setting inside the
    box reaches it); Optuna asked 8 at a time, at most 80 trials, stopping within 5 %."""
    pytest.importorskip("optuna")
    path = sweep_file(tmp_path, """drives = ["circle"]
[search]
trials = 80
batch = 8
seed = 1
target = { "circle/understeer gradient" = 1.8 }
tolerance = 0.05
"front_suspension.anti_roll" = [0.0, 60000.0]
"rear_suspension.anti_roll" = [0.0, 60000.0]
""")
    out = tmp_path / "out"
    assert sweep_command([str(path), "--out", str(out), "--no-plots"]) == Exit.OK
    _, _, rows = read_rows(out)
    gradients = [float(r["circle/understeer gradient"]) for r in rows if r["status"] == "ok"]
    assert len(rows) <= 80
    assert min(abs(g - 1.8) for g in gradients) <= 0.05 * 1.8


def test_a_grid_extended_by_a_value_drives_only_the_new_variants(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    path = sweep_file(tmp_path, 'drives = ["settle"]\n[grid]\n"chassis.mass" = [1000.0, 1200.0]\n')
    args = [str(path), "--out", str(out), "--workers", "1", "--no-plots"]
    assert sweep_command(args) == Exit.OK
    before = {r["chassis.mass"]: r for r in read_rows(out)[2]}
    path.write_text('drives = ["settle"]\n[grid]\n"chassis.mass" = [1000.0, 1100.0]\n')
    driven = counting(monkeypatch)
    capsys.readouterr()
    assert sweep_command(args) == Exit.OK
    assert [c.chassis.mass for c in driven] == [1100.0]
    assert "1 row of an earlier grid left out" in capsys.readouterr().out
    rows = read_rows(out)[2]
    assert [(r["variant"], r["chassis.mass"]) for r in rows] == [("v000000", "1000.0"), ("v000001", "1100.0")]
    assert rows[0] == before["1000.0"]


def test_the_local_pool_hands_back_batches_as_they_finish_and_a_cancel_ends_its_workers():
    from sim.lab.sweep.engine import LocalPool
    base = load_vehicle("hatchback")
    engine = LocalPool(2)
    jobs = [work.Job(base, ["settle"], ["chassis.mass"], [(f"v{k}", (1000.0 + 100.0 * k,))]) for k in range(3)]
    for job in jobs:
        engine.submit(job)
    finished = engine.finished()
    job, rows = next(finished)
    alone = run("settle", apply_sets(base, [f"chassis.mass={rows[0]['chassis.mass']}"]))
    assert job in jobs and rows[0]["settle/load FL"] == alone.value("load FL")
    processes = list(engine.pool._processes.values())
    engine.close(cancel=True)
    assert processes and not any(p.is_alive() for p in processes)


def test_the_logs_memory_is_reused_only_when_no_log_still_holds_it():
    from sim.lab.logs import LogMemory
    from sim.lab.logs import reused_memory
    memory = LogMemory()
    base = load_vehicle("hatchback")
    with reused_memory(memory):
        kept = run("settle", base)                          # its log is still held here
        first = memory.blocks["rows"]
        again = run("settle", base)
        assert memory.blocks["rows"] is not first          # a block of its own: the first log is intact
        assert np.array_equal(kept.log.array(), again.log.array(), equal_nan=True)   # beta: nan at rest
        del kept, again, first
        block = id(memory.blocks["rows"])                   # (holding the block itself would keep it in use)
        figures = [f.value for f in run("settle", base).figures]
        assert id(memory.blocks["rows"]) == block           # nothing held it: reused
    assert figures == [f.value for f in run("settle", base).figures]
