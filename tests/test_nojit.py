"""The kernels are plain Python: with NUMBA_DISABLE_JIT=1 the same code gives the same physics (a massless
wheel and one with its own mass, docs/physics.md §7.2)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

SCRIPT = textwrap.dedent("""
    import json, numpy as np, sim
    car = sim.load_vehicle("hatchback")
    world = sim.load_world("proving_ground")
    wheels = sim.with_value(sim.with_value(car, "front_suspension.unsprung_mass", 30.0),
                            "rear_suspension.unsprung_mass", 30.0)    # the second car's wheels have a mass
    s = sim.Simulation([car, wheels], world, dt=1 / 240, substeps=2, n_vehicles=2)
    z = sim.rest_com_height(car)
    s.reset(position=[(0, 0, z), (25, 12.5, z)], yaw=[0.0, 1.57], speed=[6.0, 3.0])
    k = np.arange(120)
    trace = np.stack([np.column_stack([np.full(120, 0.6), (k > 80) * 0.5, np.sin(k / 20), np.zeros(120)])] * 2, 1)
    s.run(trace)
    t = s.tables
    print(json.dumps({"body_state": t.body_state.tolist(), "drive_state": t.drive_state.tolist(),
                      "wheel_state": t.wheel_state.tolist(), "wheel_telemetry": t.wheel_telemetry.tolist()}))
""")


def run(jit_disabled: bool) -> dict:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1" if jit_disabled else "0")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_python_and_compiled_kernels_agree():
    py = run(True)
    nb = run(False)
    for key in ("body_state", "drive_state", "wheel_state", "wheel_telemetry"):
        a, b = np.array(py[key]), np.array(nb[key])
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, err_msg=key)
