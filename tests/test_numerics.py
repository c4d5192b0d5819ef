"""The small numerical forms the body's chain uses instead of the textbook ones (issue 11, docs/physics.md
§12): they must give the textbook's numbers to within a few roundings."""
import math

import numpy as np

from sim.vec import quat_from_rotvec, quat_matrix, quat_normalize, quat_rotate, quat_rotate_inv

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
