"""Contact shadows and grip rings on the ground, as render.decals rows.

The body's shadow is its floor's footprint dropped straight onto the ground under the car, darker at a
corner that is nearer the ground than at rest and lighter (and softer) where it is higher, so roll, pitch
and a jump read on the ground; each wheel casts a small dark blob under its contact patch that fades as
the wheel lifts. The grip rings circle each grounded wheel's contact in its grip state's colour: seen
from the chase camera they stick out beside the body, whatever the car's paint.
"""
from __future__ import annotations

import math

import numpy as np

from render import decals

LIFT = 0.02                # m: drawn this far above the ground (the skid marks at 20 mm, the markings at 12)
BODY_ALPHA = 0.45          # the body's shadow at rest
WHEEL_ALPHA = 0.6          # a wheel's blob on the ground
FADE_HEIGHT = 0.15         # m above its rest height over which a corner's shadow fades by 1/e
WHEEL_FADE = 0.6           # m a wheel's bottom may rise above the ground before its blob is gone
RING = (1.2, 0.74)         # outer radius (tire radii) and inner radius (share of the outer) of a grip ring


def body_shadow(rot: np.ndarray, pos: np.ndarray, floor: np.ndarray, rest_height: float,
                ground_p: np.ndarray, ground_n: np.ndarray) -> np.ndarray:
    """One row: the footprint of the body's floor corners `floor` (4, 3) body frame, in the order rear
    right, front right, front left, rear left, posed by rot (3, 3) and pos (3,), dropped onto the plane
    (ground_p, ground_n); `rest_height` (m) is the floor's height above level ground at rest."""
    world = floor @ rot.T + pos
    h = (world - ground_p) @ ground_n                         # (4,) m above the ground
    foot = world - h[:, None] * ground_n
    row = np.empty((1, decals.INSTANCE_FLOATS), dtype="f4")
    row[0, 0:3] = foot.mean(axis=0) + LIFT * ground_n
    row[0, 3:6] = (foot[1] + foot[2] - foot[0] - foot[3]) * (1.12 / 4)   # half the footprint forward, a margin
    row[0, 6:9] = (foot[2] + foot[3] - foot[0] - foot[1]) * (1.2 / 4)    # and to the left
    row[0, 9:13] = (0.0, 0.0, 0.0, BODY_ALPHA)
    lift = [float(x) - rest_height for x in h]
    row[0, 13:17] = [min(1.5, math.exp(-x / FADE_HEIGHT)) for x in lift]
    row[0, 17] = min(1.0, max(0.45, 0.45 + 0.5 * sum(lift) / 4))
    row[0, 18] = 0.0
    return row


def wheel_marks(centres, forward, radius, width, grounded, colors, contact_p, contact_n, ground_p, ground_n):
    """(shadow rows, ring rows): a dark blob under each wheel, fading as its bottom rises WHEEL_FADE above
    the ground; with `colors` ((4, 3) or None) a ring in its colour around each grounded wheel's contact.
    A grounded wheel's ground is its own contact plane (telemetry Q, n), an airborne one's the plane under
    the body. Four wheels in plain floats: numpy's per-call cost would be most of the work."""
    blobs, rings = [], []
    cp, cn = np.broadcast_to(contact_p, (4, 3)).tolist(), np.broadcast_to(contact_n, (4, 3)).tolist()
    gp, gn = np.asarray(ground_p, float).tolist(), np.asarray(ground_n, float).tolist()
    for i, ((cx, cy, cz), (fx, fy, fz)) in enumerate(zip(np.asarray(centres, float).tolist(),
                                                         np.asarray(forward, float).tolist())):
        on = float(grounded[i]) >= 0.5
        (px, py, pz), (nx, ny, nz) = (cp[i], cn[i]) if on else (gp, gn)
        h = (cx - px) * nx + (cy - py) * ny + (cz - pz) * nz             # the centre's height over the ground
        ux, uy, uz = cx - h * nx, cy - h * ny, cz - h * nz               # the point under it
        d = fx * nx + fy * ny + fz * nz                                  # forward, in the ground's plane
        fx, fy, fz = fx - d * nx, fy - d * ny, fz - d * nz
        norm = math.sqrt(fx * fx + fy * fy + fz * fz) or 1.0
        fx, fy, fz = fx / norm, fy / norm, fz / norm
        sx, sy, sz = ny * fz - nz * fy, nz * fx - nx * fz, nx * fy - ny * fx
        r = float(radius[i])
        lift = max(h - r, 0.0)
        a, b = 0.6 * r * (1.0 + lift), 0.75 * float(width[i]) * (1.0 + lift)
        alpha = WHEEL_ALPHA * min(1.0, max(0.0, 1.0 - lift / WHEEL_FADE))
        blobs.append([ux + LIFT * nx, uy + LIFT * ny, uz + LIFT * nz, fx * a, fy * a, fz * a, sx * b, sy * b, sz * b,
                      0.0, 0.0, 0.0, alpha, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
        if colors is not None and on:
            rr, up = RING[0] * r, 1.5 * LIFT
            cr, cg, cb = colors[i][:3]
            rings.append([ux + up * nx, uy + up * ny, uz + up * nz, fx * rr, fy * rr, fz * rr, sx * rr, sy * rr,
                          sz * rr, cr, cg, cb, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0, RING[1]])
    return (np.array(blobs, dtype="f4").reshape(-1, decals.INSTANCE_FLOATS),
            np.array(rings, dtype="f4").reshape(-1, decals.INSTANCE_FLOATS))
