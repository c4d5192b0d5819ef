"""4x4 matrices (row-major numpy; upload transposed for GLSL) and quaternion -> matrix."""
from __future__ import annotations

import math

import numpy as np


def translate(v) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = v
    return m


def scale(s) -> np.ndarray:
    """diag(sx, sy, sz, 1) from one factor or three."""
    m = np.eye(4)
    if np.ndim(s) == 0:
        m[0, 0] = m[1, 1] = m[2, 2] = float(s)
    else:
        m[0, 0], m[1, 1], m[2, 2] = (float(x) for x in s)
    return m


def rot_axis(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    m = np.eye(4)
    if axis == "x":
        m[1:3, 1:3] = [[c, -s], [s, c]]
    elif axis == "y":
        m[0, 0], m[0, 2], m[2, 0], m[2, 2] = c, s, -s, c
    else:
        m[0:2, 0:2] = [[c, -s], [s, c]]
    return m


def quat_matrix(q) -> np.ndarray:
    w, x, y, z = q
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return m


def pose_matrix(position, q) -> np.ndarray:
    m = quat_matrix(q)
    m[:3, 3] = position
    return m


def look_at(eye, target, up=(0.0, 0.0, 1.0)) -> np.ndarray:
    eye, target, up = (np.asarray(v, float) for v in (eye, target, up))
    f = target - eye
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    if np.linalg.norm(s) < 1e-9:
        s = np.cross(f, (0.0, 1.0, 0.0))
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def perspective(fov_y_deg: float, aspect: float, near: float, far: float) -> np.ndarray:
    f = 1.0 / math.tan(math.radians(fov_y_deg) / 2)
    m = np.zeros((4, 4))
    m[0, 0] = f / aspect
    m[1, 1] = f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


def gl(m: np.ndarray) -> bytes:
    """Bytes of a row-major numpy matrix in GLSL's column-major order."""
    return np.ascontiguousarray(m.T, dtype="f4").tobytes()


def project(vp: np.ndarray, p, width: int, height: int):
    """Pixel (x, y from the top-left) of world point p, or None behind the camera."""
    c = vp @ np.array([*p, 1.0])
    if c[3] <= 1e-9:
        return None
    ndc = c[:3] / c[3]
    return ((ndc[0] + 1) / 2 * width, (1 - ndc[1]) / 2 * height)
