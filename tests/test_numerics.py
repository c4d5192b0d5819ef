"""The small numerical forms the body's chain uses instead of the textbook ones (issue 11, docs/physics.md
§12): they must give the textbook's numbers to within a few roundings."""
import math

import numpy as np

from sim.kernel.vec import quat_from_rotvec
from sim.kernel.vec import quat_matrix
from sim.kernel.vec import quat_normalize
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import quat_rotate_inv

ULP1 = np.spacing(1.0)


def test_the_rotation_series_is_the_exact_rotation_to_rounding():
    """Below SMALL_ROTATION quat_from_rotvec sums the series of cos(a/2) and sin(a/2)/a: the same
    quaternion as the closed form, within two roundings, from a hair of an angle to the switch and past it."""
    rng = np.random.default_rng(3)
    for a in np.concatenate([np.geomspace(1e-15, 0.0999, 300), [0.1, 0.5, 2.0, 3.1]]):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        r = axis * a
        w, x, y, z = quat_from_rotvec(tuple(r))
        assert abs(w - math.cos(a / 2)) <= 2 * ULP1
        np.testing.assert_allclose((x, y, z), r * math.sin(a / 2) / a, rtol=4 * ULP1, atol=1e-300)
        assert abs(w * w + x * x + y * y + z * z - 1.0) <= 4 * ULP1


def test_a_nearly_unit_quaternion_is_normalised_as_by_the_square_root():
    """One Newton step from 1 (|q|^2 within 1e-9 of 1) and 1/sqrt (farther) both give q/|q|."""
    rng = np.random.default_rng(4)
    for offset in (0.0, 3e-16, 1e-12, 9e-10, 1e-6, 0.3, 3.0):
        q = rng.normal(size=4)
        q = q / np.linalg.norm(q) * math.sqrt(1.0 + offset)
        got = np.array(quat_normalize(tuple(q)))
        np.testing.assert_allclose(got, q / np.linalg.norm(q), rtol=0, atol=4 * ULP1)


def test_the_rotation_matrix_is_the_quaternion_sandwich():
    """R(q) v equals q v q* (computed here with the Hamilton product) and R^T undoes it."""
    rng = np.random.default_rng(5)

    def hamilton(p, q):
        return np.array([p[0] * q[0] - p[1:] @ q[1:], *(p[0] * q[1:] + q[0] * p[1:] + np.cross(p[1:], q[1:]))])

    for _ in range(200):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        v = rng.normal(size=3) * 10
        sandwich = hamilton(hamilton(q, np.array([0.0, *v])), q * [1, -1, -1, -1])[1:]
        np.testing.assert_allclose(quat_rotate(tuple(q), tuple(v)), sandwich, atol=1e-13)
        np.testing.assert_allclose(quat_rotate_inv(tuple(q), quat_rotate(tuple(q), tuple(v))), v, atol=1e-13)
        m = np.array(quat_matrix(tuple(q)))
        np.testing.assert_allclose(m @ m.T, np.eye(3), atol=1e-15)


def test_the_magic_formula_lanes_are_the_scalar_formula():
    """The four wheels' two curves evaluated at once (sim/kernel/lanes.py, compiled with this machine's vector maths)
    give the scalar formula's force and slope, lane by lane, to a few roundings; from Python, exactly."""
    from numba import njit

    from sim.kernel.lanes import magic_formula_lanes
    from sim.kernel.tire.magic import magic_formula_and_slope

    lanes = njit(lambda b, c, d, e, s: magic_formula_lanes(b, c, d, e, s))
    scalar = magic_formula_and_slope.py_func
    rng = np.random.default_rng(6)
    for _ in range(300):
        b = tuple(rng.uniform(5.0, 15.0, 8))
        c = tuple(rng.uniform(1.2, 1.9, 8))
        d = tuple(rng.uniform(0.0, 6000.0, 8))
        e = tuple(rng.uniform(-1.0, 0.6, 8))
        s = tuple(rng.normal(0.0, 0.2, 8) * rng.choice([0.01, 1.0, 10.0], 8))
        force, slope = lanes(b, c, d, e, s)
        py_force, py_slope = magic_formula_lanes.py_func(b, c, d, e, s) if hasattr(magic_formula_lanes, "py_func") \
            else magic_formula_lanes(b, c, d, e, s)
        for k in range(8):
            f0, s0 = scalar(b[k], c[k], d[k], e[k], s[k])
            assert (py_force[k], py_slope[k]) == (f0, s0)                  # plain Python: the same bits
            assert abs(force[k] - f0) <= 1e-13 * d[k] + 1e-300
            assert abs(slope[k] - s0) <= 1e-12 * d[k] * b[k] * c[k] + 1e-300


def test_the_slip_angle_lanes_are_atan2():
    """Four slip angles at once (sim/kernel/lanes.py atan2_4) are math.atan2's, to a few roundings compiled and
    exactly from Python, over the angles a tire meets and the quadrants it does not."""
    from numba import njit

    from sim.kernel.lanes import atan2_4

    lanes = njit(lambda y, x: atan2_4(y, x))
    rng = np.random.default_rng(7)
    for _ in range(500):
        y = tuple(rng.normal(0.0, 1.0, 4) * rng.choice([1e-6, 1.0, 30.0], 4))
        x = tuple(rng.uniform(-40.0, 40.0, 4))
        got = lanes(y, x)
        assert atan2_4(y, x) == tuple(math.atan2(a, b) for a, b in zip(y, x))
        for k in range(4):
            ref = math.atan2(y[k], x[k])
            assert abs(got[k] - ref) <= 4 * np.spacing(abs(ref)) + 1e-300


def test_the_vector_maths_can_be_narrowed(tmp_path):
    """CONTACTPATCH_VECTOR_MATH=scalar gives the maths library lane by lane; asking for avx2 never gives
    more than this machine has. (A cache of its own: kernels of another kind would replace the suite's.)"""
    import os
    import subprocess
    import sys
    code = "import sim.kernel.jit; print(sim.kernel.jit.VECTOR_MATH)"
    for asked, allowed in (("scalar", {"scalar"}), ("avx2", {"avx2", "scalar"})):
        env = dict(os.environ, CONTACTPATCH_VECTOR_MATH=asked, NUMBA_CACHE_DIR=str(tmp_path))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             check=True).stdout.split()[-1]
        assert out in allowed
