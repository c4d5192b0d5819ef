"""Contracts of the code's shape (issue 8): the state alone decides the future, the control row has one
codec, and the app, overlay and renderer reach the physics only through its API."""
import ast
import json
from pathlib import Path

import numpy as np
import pytest

import sim
from app.session import Session
from app.session import Trace
from sim.kernel import tables as T

ROOT = Path(__file__).resolve().parent.parent


def drive(s: sim.Simulation, steps: int, poison: bool) -> None:
    rng = np.random.default_rng(5)
    for k in range(steps):
        if poison:                                        # whatever scratch and telemetry hold, the
            s.tables.wheel_scratch[:] = np.nan            # next step must not read it
            s.tables.wheel_telemetry[:] = np.nan
            s.tables.body_telemetry[:, :T.TB_WORK_SUSPENSION] = np.nan   # (the work ledger adds up: only
            s.tables.body_telemetry[:, T.TB_TIRE_LOST + 1:] = np.nan       # the watchdog reads it)
        s.step(sim.Controls(throttle=float(rng.uniform(0, 1)), brake=float(k > 600), steer=float(np.sin(k / 40)),
                            abs=True, tc=True, handbrake=float(k > 800)))


def test_only_the_state_carries_into_the_next_step():
    car, world = sim.load_vehicle("hatchback"), sim.load_world("proving_ground")
    hashes = []
    for poison in (False, True):
        s = sim.Simulation(car, world, dt=1 / 240, substeps=4)
        s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
        drive(s, 1000, poison)
        assert s.finite()
        hashes.append(s.state_hash())
    assert hashes[0] == hashes[1]


def test_a_recorded_trace_feeds_simulation_run_directly():
    car, world = sim.load_vehicle("hatchback"), sim.load_world("proving_ground")
    session = Session(car, world, substeps=4)
    session.start_recording()
    k = 0

    def controls(dt):
        nonlocal k
        k += 1
        return sim.Controls(throttle=0.6, brake=0.8 if k > 300 else 0.0, steer=np.sin(k / 50.0), clutch=0.0,
                            gear=2 if k == 100 else None, abs=True, tc=k > 50)
    while session.sim.steps < 400:
        session.frame(1 / 60, controls)
    trace = session.recording
    assert trace.rows[0][:len(sim.CONTROL_COLUMNS)] == [float(x) for x in trace.controls(0).row()]
    s = sim.Simulation(car, world, dt=trace.dt, substeps=trace.substeps)
    s.reset(*session.spawn_pose(0))
    s.run(trace.control_rows())
    assert s.state_hash() == session.sim.state_hash()


def test_old_traces_with_reset_in_the_fifth_column_still_load(tmp_path):
    path = tmp_path / "old.json"
    path.write_text('{"format": "contactpatch-trace-1", "dt": 0.004166666666666667, "substeps": 8, '
                    '"vehicle": "hatchback", "world": "flat", "columns": ["throttle", "brake", "steer", '
                    '"handbrake", "reset", "clutch", "shift", "gear", "abs", "tc"], '
                    '"steps": [[0.5, 0, 0.1, 0, 1, 0.25, 0, 100, 1, 0], [0.5, 0, 0, 0, 0]]}')
    t = Trace.load(path)
    assert t.reset(0) and not t.reset(1)
    assert t.controls(0) == sim.Controls(throttle=0.5, steer=0.1, clutch=0.25, abs=True)
    assert t.controls(1) == sim.Controls(throttle=0.5)


def sim_imports(path: Path) -> list[str]:
    """What a module takes from `sim`: imported names and attributes reached through sim.x.y."""
    out = []
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "sim":
            out += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.startswith("sim.")]
        elif isinstance(node, ast.Attribute):
            out.append(node.attr)
    return out


# parameter metadata for the editors; grip diagnosis; reading files with clear messages; the world's named
# features (map, teleports); test drives, their driver model and telemetry logs; the model lab's families; a
# sweep's results read back and one batch of variants (the Sweeps panel, "sweep this"); two laps compared; the
# command lines' options
PUBLIC_MODULES = ("sim.model.params", "sim.model.checks", "sim.model.vehicle_toml", "sim.diagnosis", "sim.model.files",
                  "sim.model.features", "sim.lab.drives", "sim.lab.cli",
                  "sim.lab.driver", "sim.lab.logs", "sim.lab.families", "sim.lab.exit_codes", "sim.lab.sweep",
                  "sim.lab.arguments", "sim.model.tire_curves", "sim.model.geometry", "sim.lab.laps")


def test_app_ui_and_render_use_only_the_api():
    """They import from `sim` only what it exports (sim.__all__) and the public modules above, and touch
    no column constant, no packed table and no private name."""
    offenders = []
    for folder in ("app", "ui", "render"):
        for path in sorted((ROOT / folder).rglob("*.py")):                 # ui/panels/ too
            for name in sim_imports(path):
                module, _, last = name.rpartition(".")
                column = any(last.startswith(p) for p in ("VP_", "WP_", "BS_", "DS_", "WS_", "W_", "TB_", "CT_"))
                private = last.startswith("_") and not last.startswith("__") and name.startswith("sim")
                not_exported = module == "sim" and last not in sim.__all__ and f"sim.{last}" not in PUBLIC_MODULES
                other_module = name.startswith("sim.") and module not in ("sim",) + PUBLIC_MODULES \
                    and name not in PUBLIC_MODULES
                if column or private or not_exported or other_module or last in ("tables", "_pending"):
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_odd_control_values_mean_the_same_to_every_path():
    """A hand-made row with a half shift and a gear number past the gearbox: Controls.from_row (the
    replayer) and Simulation.run read it alike."""
    car, world = sim.load_vehicle("hatchback"), sim.World.flat()
    row = [0.4, 0.0, 0.1, 0.0, 0.0, 0.5, 100.4, 0.7, 0.2]
    c = sim.Controls.from_row(row)
    assert c.shift == 1 and c.gear is None and c.abs and not c.tc
    a = sim.Simulation(car, world, substeps=2)
    b = sim.Simulation(car, world, substeps=2)
    for _ in range(100):
        a.step(c)
    b.run(np.tile(row, (100, 1)))
    assert a.state_hash() == b.state_hash()


def test_a_snapshot_restores_the_parameters_it_was_taken_with():
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    s.run(np.zeros((50, 4)))
    snap = s.snapshot()
    s.run(np.tile([0.5, 0.0, 0.2, 0.0], (100, 1)))
    first = s.state_hash()
    s.set_params(sim.with_value(car, "front_suspension.k", 60000.0))
    s.run(np.zeros((10, 4)))
    s.restore(snap)
    assert s.vehicle is car
    s.run(np.tile([0.5, 0.0, 0.2, 0.0], (100, 1)))
    assert s.state_hash() == first
    other = sim.Simulation(car, sim.World.flat(), substeps=2, n_vehicles=3)
    with pytest.raises(ValueError, match="1 vehicles cannot be restored into a simulation of 3"):
        other.restore(snap)


@pytest.mark.parametrize("change, message", [
    ({"dt": float("nan")}, "not valid JSON: NaN is not a number JSON allows"),
    ({"dt": "fast"}, "dt = 'fast' is not allowed"),
    ({"vehicle": None}, "vehicle = None is not allowed"),
    ({"substeps": 8.9}, "substeps = 8.9 is not allowed"),
    ({"columns": ["throttle", "throttle"]}, "expected distinct names"),
    ({"steps": [[0.5, 0.0], [float("inf")]]}, "not valid JSON: Infinity"),
    ({"steps": [[0.5, 0.0], ["0.5"]]}, r"steps\[1\] = \['0\.5'\] is not allowed"),
    ({"steps": [[0.5, [0.0]]]}, r"steps\[0\] = \[0\.5, \[0\.0\]\] is not allowed"),
])
def test_a_bad_trace_file_is_refused_with_one_message(tmp_path, change, message):
    data = {"format": "contactpatch-trace-2", "dt": 1 / 240, "substeps": 8, "vehicle": "hatchback",
            "world": "flat", "steps": [[0.5, 0.0]]}
    data.update(change)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(sim.ConfigError, match=message):
        Trace.load(path)
    assert Trace(1 / 240, 8, "hatchback", "flat", []).control_rows().shape == (0, len(sim.CONTROL_COLUMNS))


def test_importing_sim_leaves_scipy_unimported_and_importable():
    """sim.kernel.jit imports numba's NumPy implementations with SciPy's BLAS hidden (warm start): SciPy is not
    imported on the way, and a later `import scipy.linalg` still works."""
    import subprocess
    import sys
    pytest.importorskip("scipy.linalg")
    code = ("import sys, sim\n"
            "assert 'numba.np.arraymath' in sys.modules\n"
            "assert 'scipy.linalg' not in sys.modules, 'scipy.linalg was imported'\n"
            "import scipy.linalg, scipy.linalg.cython_blas\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
