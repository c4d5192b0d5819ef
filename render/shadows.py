"""Contact shadows and grip rings on the ground, as render.decals rows.

The body's shadow is its floor's footprint dropped straight onto the ground under the car, darker at a
corner that is nearer the ground than at rest and lighter (and softer) where it is higher, so roll, pitch
and a jump read on the ground; each wheel casts a small dark blob under its contact patch that fades as
the wheel lifts. The grip rings circle each grounded wheel's contact in its grip state's colour: seen
from the chase camera they stick out beside the body, whatever the car's paint.
"""
from __future__ import annotations

import numpy as np

from render import decals

LIFT = 0.02                # m: drawn this far above the ground (the skid marks at 20 mm, the markings at 12)
BODY_ALPHA = 0.45          # the body's shadow at rest
WHEEL_ALPHA = 0.6          # a wheel's blob on the ground
FADE_HEIGHT = 0.15         # m above its rest height over which a corner's shadow fades by 1/e
WHEEL_FADE = 0.6           # m a wheel's bottom may rise above the ground before its blob is gone
RING = (1.2, 0.74)         # outer radius (tire radii) and inner radius (share of the outer) of a grip ring


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise a x b of (n, 3) arrays (np.cross costs some 15 us a call; this a few)."""
    return np.stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1], a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                     a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]], axis=1)


def plane_axes(n: np.ndarray, forward: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors in the planes of normals n (n, 3): along `forward` (n, 3) projected into each, and
    across (n x that)."""
    f = forward - (forward * n).sum(axis=1, keepdims=True) * n
    norm = np.sqrt((f * f).sum(axis=1, keepdims=True))
    f = np.where(norm > 1e-6, f / np.maximum(norm, 1e-9), np.array([1.0, 0.0, 0.0]))
    return f, cross(n, f)


def body_shadow(rot: np.ndarray, pos: np.ndarray, floor: np.ndarray, rest_height: float,
                ground_p: np.ndarray, ground_n: np.ndarray) -> np.ndarray:
    """One row: the footprint of the body's floor corners `floor` (4, 3) body frame, in the order rear
    right, front right, front left, rear left, posed by rot (3, 3) and pos (3,), dropped onto the plane
    (ground_p, ground_n); `rest_height` (m) is the floor's height above level ground at rest."""
    world = floor @ rot.T + pos
    h = (world - ground_p) @ ground_n                         # (4,) m above the ground
    foot = world - h[:, None] * ground_n
    centre = foot.mean(axis=0) + LIFT * ground_n
    u = (foot[1] + foot[2] - foot[0] - foot[3]) / 4           # half the footprint, forward
    v = (foot[2] + foot[3] - foot[0] - foot[1]) / 4           # and to the left
    corners = np.clip(np.exp(-(h - rest_height) / FADE_HEIGHT), 0.0, 1.5)
    soft = float(np.clip(0.45 + 0.5 * (h.mean() - rest_height), 0.45, 1.0))
    return decals.rows(centre, u * 1.12, v * 1.2, (0.0, 0.0, 0.0, BODY_ALPHA), corners[None], soft=soft)


def wheel_grounds(centres, grounded, contact_p, contact_n, ground_p, ground_n):
    """(points under each wheel centre (4, 3), ground normals (4, 3), heights of the centres (4,)): a
    grounded wheel's own contact plane (telemetry Q, n), an airborne one's the ground under the body."""
    g = np.asarray(grounded, float)[:, None] >= 0.5
    p = np.where(g, contact_p, ground_p)
    n = np.where(g, contact_n, ground_n)
    h = ((centres - p) * n).sum(axis=1)
    return centres - h[:, None] * n, n, h


def wheel_marks(centres, forward, radius, width, grounded, colors, contact_p, contact_n, ground_p, ground_n):
    """(shadow rows, ring rows): a dark blob under each wheel, fading as its bottom rises WHEEL_FADE above
    the ground; with `colors` ((4, 3) or None) a ring in its colour around each grounded wheel's contact."""
    foot, n, h = wheel_grounds(centres, grounded, contact_p, contact_n, ground_p, ground_n)
    radius = np.asarray(radius, float)
    lift = np.maximum(h - radius, 0.0)
    f, s = plane_axes(n, forward)
    rgba = np.zeros((len(h), 4))
    rgba[:, 3] = WHEEL_ALPHA * np.clip(1.0 - lift / WHEEL_FADE, 0.0, 1.0)
    grow = (1.0 + lift)[:, None]
    blobs = decals.rows(foot + LIFT * n, f * (0.6 * radius)[:, None] * grow,
                        s * (0.75 * np.asarray(width, float))[:, None] * grow, rgba)
    keep = np.asarray(grounded, float) >= 0.5
    if colors is None or not keep.any():
        return blobs, np.empty((0, decals.INSTANCE_FLOATS), dtype="f4")
    r = (RING[0] * radius)[:, None]
    rgba = np.ones((len(h), 4))
    rgba[:, :3] = colors
    rgba[:, 3] = 0.9
    return blobs, decals.rows(foot + 1.5 * LIFT * n, f * r, s * r, rgba, ring=RING[1])[keep]
