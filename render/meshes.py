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


def wheel(segments: int = 24) -> np.ndarray:
    """A unit wheel around the y axis (radius 1, width 1): a tread of alternating shades so the spin
    shows, and side faces with a light spoke bar across them."""
    out = []
    tread = ((0.10, 0.10, 0.11), (0.20, 0.20, 0.21))
    for k in range(segments):
        a0 = 2 * math.pi * k / segments
        a1 = 2 * math.pi * (k + 1) / segments
        p0 = (math.sin(a0), math.cos(a0))
        p1 = (math.sin(a1), math.cos(a1))
        col = tread[k % 2]
        # tread quad (x = sin, z = cos), normals radial
        q = [(p0[0], -0.5, p0[1]), (p1[0], -0.5, p1[1]), (p1[0], 0.5, p1[1]), (p0[0], 0.5, p0[1])]
        ns = [(p0[0], 0, p0[1]), (p1[0], 0, p1[1]), (p1[0], 0, p1[1]), (p0[0], 0, p0[1])]
        for i in (0, 2, 1, 0, 3, 2):
            out.append([*q[i], *ns[i], *col])
        for side in (-0.5, 0.5):
            spoke = (k % (segments // 2)) in (0, segments // 2 - 1)
            rim = (0.82, 0.82, 0.78) if spoke else (0.45, 0.46, 0.48)
            hub = (0.75, 0.75, 0.72) if spoke else (0.30, 0.31, 0.33)
            tri = [(0.0, side, 0.0), (p0[0] * 0.75, side, p0[1] * 0.75), (p1[0] * 0.75, side, p1[1] * 0.75)]
            order = (0, 1, 2) if side > 0 else (0, 2, 1)
            for i in order:
                out.append([*tri[i], 0, 1 if side > 0 else -1, 0, *hub])
            ring = [(p0[0] * 0.75, side, p0[1] * 0.75), (p0[0], side, p0[1]), (p1[0], side, p1[1]),
                    (p1[0] * 0.75, side, p1[1] * 0.75)]
            for i in ((0, 1, 2, 0, 2, 3) if side > 0 else (0, 2, 1, 0, 3, 2)):
                out.append([*ring[i], 0, 1 if side > 0 else -1, 0, *rim])
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
