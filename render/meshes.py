"""Triangle meshes as float32 arrays of (position 3, normal 3, colour 3) per vertex."""
from __future__ import annotations

import math

import numpy as np

FACES = [((1, 0, 0), (0, 1, 0), (0, 0, 1)), ((-1, 0, 0), (0, 0, 1), (0, 1, 0)),
         ((0, 1, 0), (0, 0, 1), (1, 0, 0)), ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
         ((0, 0, 1), (1, 0, 0), (0, 1, 0)), ((0, 0, -1), (0, 1, 0), (1, 0, 0))]


def vertices(tris: list) -> np.ndarray:
    return np.array(tris, dtype="f4").reshape(-1, 9)


def cube(color=(1.0, 1.0, 1.0)) -> np.ndarray:
    """Unit cube centred on the origin (edges 1)."""
    out = []
    for n, a, b in FACES:
        n, a, b = (np.array(v, float) for v in (n, a, b))
        c = n * 0.5
        quad = [c - a / 2 - b / 2, c + a / 2 - b / 2, c + a / 2 + b / 2, c - a / 2 + b / 2]
        for i in (0, 1, 2, 0, 2, 3):
            out.append([*quad[i], *n, *color])
    return vertices(out)


def pyramid(color=(1.0, 1.0, 1.0)) -> np.ndarray:
    """An arrow head: a square base of side 1 in the plane x = 0 around the x axis, the tip at x = 1."""
    base = [np.array(p, float) for p in ((0, -0.5, -0.5), (0, 0.5, -0.5), (0, 0.5, 0.5), (0, -0.5, 0.5))]
    tip = np.array([1.0, 0.0, 0.0])
    out = []
    for a, b, c in ((base[0], base[2], base[1]), (base[0], base[3], base[2])):
        out += [[*p, -1.0, 0.0, 0.0, *color] for p in (a, b, c)]
    for k in range(4):
        a, b = base[k], base[(k + 1) % 4]
        n = np.cross(b - a, tip - a)
        n /= np.linalg.norm(n)
        out += [[*p, *n, *color] for p in (a, b, tip)]
    return vertices(out)


def quad(size: float, color) -> np.ndarray:
    """A square of side `size` in the xy plane, facing +z."""
    h = size / 2
    q = [(-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)]
    return vertices([[*q[i], 0, 0, 1, *color] for i in (0, 1, 2, 0, 2, 3)])


def ring(center, radius: float, width: float, z: float, color, segments: int = 160) -> np.ndarray:
    out = []
    r0, r1 = radius - width / 2, radius + width / 2
    for k in range(segments):
        a0 = 2 * math.pi * k / segments
        a1 = 2 * math.pi * (k + 1) / segments
        pts = [(center[0] + r * math.cos(a), center[1] + r * math.sin(a), z)
               for r, a in ((r0, a0), (r1, a0), (r1, a1), (r0, a1))]
        for i in (0, 1, 2, 0, 2, 3):
            out.append([*pts[i], 0, 0, 1, *color])
    return vertices(out)


def strip(a, b, width: float, z: float, color) -> np.ndarray:
    a, b = np.array(a, float), np.array(b, float)
    d = b - a
    n = np.array([-d[1], d[0]]) / max(np.linalg.norm(d), 1e-9) * width / 2
    pts = [(*(a - n), z), (*(b - n), z), (*(b + n), z), (*(a + n), z)]
    return vertices([[*pts[i], 0, 0, 1, *color] for i in (0, 1, 2, 0, 2, 3)])


def heightfield_tiles(origin, spacing, heights: np.ndarray, color, tile: int = 40, steps=(2, 4, 8)):
    """An indexed heightfield for drawing: vertices (nx ny, 9) and, for every tile of `tile` x `tile`
    quads and every level of detail (every step-th row and column), a run of triangle indices.
    Returns (vertices, indices, runs, boxes): runs[t][lod] = (first, count) into indices, boxes[t] = the
    tile's (min xyz, max xyz) for culling."""
    z = np.asarray(heights, float)
    nx, ny = z.shape
    xs = origin[0] + np.arange(nx) * spacing[0]
    ys = origin[1] + np.arange(ny) * spacing[1]
    gx, gy = np.gradient(z, spacing[0], spacing[1])
    nrm = np.dstack([-gx, -gy, np.ones_like(z)])
    nrm /= np.linalg.norm(nrm, axis=2, keepdims=True)
    # drawn 3 mm up: where the field is flat it would otherwise fight the ground plane under it for depth
    pos = np.dstack([*np.meshgrid(xs, ys, indexing="ij"), origin[2] + z + 0.003])
    # shaded by height (lighter crests) so that centimetre bumps read from the driver's camera
    rel = (z - z.min()) / max(float(np.ptp(z)), 1e-6)
    shade = (0.62 + 0.6 * rel[..., None]) * np.array(color)
    vertices = np.concatenate([pos, nrm, shade], axis=2).reshape(-1, 9).astype("f4")
    chunks, runs, boxes, first = [], [], [], 0
    for i0 in range(0, nx - 1, tile):
        for j0 in range(0, ny - 1, tile):
            i1, j1 = min(i0 + tile, nx - 1), min(j0 + tile, ny - 1)
            tile_runs = []
            for step in steps:
                ii = np.unique(np.r_[np.arange(i0, i1, step), i1])
                jj = np.unique(np.r_[np.arange(j0, j1, step), j1])
                a = ii[:-1, None] * ny + jj[None, :-1]
                b = ii[1:, None] * ny + jj[None, :-1]
                c = ii[1:, None] * ny + jj[None, 1:]
                d = ii[:-1, None] * ny + jj[None, 1:]
                idx = np.stack([a, b, c, a, c, d], axis=2).reshape(-1).astype("u4")
                chunks.append(idx)
                tile_runs.append((first, len(idx)))
                first += len(idx)
            runs.append(tile_runs)
            block = pos[i0:i1 + 1, j0:j1 + 1].reshape(-1, 3)
            boxes.append((block.min(axis=0), block.max(axis=0)))
    return vertices, np.concatenate(chunks), runs, boxes
