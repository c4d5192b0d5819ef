"""A circuit's surface for drawing: the road, its edge lines, the kerbs' red and white blocks, the gravel traps,
the start/finish line's chequers and the sector lines, as one triangle mesh in chunks along the lap.

The physics' layers of the ground (sim/model/track_ground.py) are not drawn as heightfields: each vertex here
takes the height of the ground the wheels meet there (the highest layer, bilinear as the query reads it),
LIFT above it, so what is drawn is where the car drives.
"""
from __future__ import annotations

import numpy as np

LIFT = 0.02            # m above the ground (the run-off field is drawn 3 mm up)
PAINT = 0.006          # m: lines painted on the road sit this much higher again
STEP = 1.0             # m between the mesh's cross-sections
CHUNK = 60.0           # m of lap per chunk (culled as one)
EDGE_LINE = 0.15       # m: the white line along each edge of the road
KERB_BLOCK = 2.0       # m: the length of each red or white block of a kerb
ROAD = (0.30, 0.31, 0.33)
LINE = (0.92, 0.92, 0.88)
KERB = ((0.82, 0.16, 0.14), (0.93, 0.93, 0.90))
SECTOR = (0.98, 0.80, 0.15)


def ground_heights(world, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The height of the highest heightfield layer (and plane) under each point (x, y): what the wheels meet."""
    z = np.full(np.shape(x), -np.inf)
    for p in world.planes:
        n = np.asarray(p.normal, float) / np.linalg.norm(p.normal)
        z = np.maximum(z, p.point[2] - (n[0] * (x - p.point[0]) + n[1] * (y - p.point[1])) / n[2])
    for h in world.heightfields:
        hz = np.asarray(h.heights, float)
        nx, ny = hz.shape
        fx, fy = (x - h.origin[0]) / h.spacing[0], (y - h.origin[1]) / h.spacing[1]
        inside = (fx >= 0) & (fy >= 0) & (fx <= nx - 1) & (fy <= ny - 1)
        i = np.clip(np.floor(fx).astype(int), 0, nx - 2)
        j = np.clip(np.floor(fy).astype(int), 0, ny - 2)
        u, v = np.clip(fx - i, 0, 1), np.clip(fy - j, 0, 1)
        zz = (hz[i, j] * (1 - u) * (1 - v) + hz[i + 1, j] * u * (1 - v) + hz[i, j + 1] * (1 - u) * v
              + hz[i + 1, j + 1] * u * v) + h.origin[2]
        z = np.where(inside, np.maximum(z, zz), z)
    return z


class _Builder:
    """Quads (4 corners (3,), a colour) collected per chunk, flat-shaded, indexed (4 vertices a quad)."""

    def __init__(self):
        self.chunks: dict[int, list[np.ndarray]] = {}

    def strip(self, chunk: np.ndarray, a: np.ndarray, b: np.ndarray, colors: np.ndarray) -> None:
        """Quads between two polylines a, b (K, 3) along the lap: quad k spans a[k], a[k+1], b[k+1], b[k],
        coloured colors[k] (K-1, 3), in the chunk of chunk[k]."""
        p0, p1, p2, p3 = a[:-1], a[1:], b[1:], b[:-1]
        n = np.cross(p1 - p0, p3 - p0)
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
        n *= np.where(n[:, 2:3] < 0.0, -1.0, 1.0)                     # facing up
        quads = np.stack([p0, p1, p2, p3], axis=1)                     # (K-1, 4, 3)
        rows = np.concatenate([quads, np.repeat(n[:, None], 4, 1), np.repeat(colors[:, None], 4, 1)], axis=2)
        for c in np.unique(chunk):
            self.chunks.setdefault(int(c), []).append(rows[chunk == c].reshape(-1, 9))

    def chunk(self, c: int) -> np.ndarray:
        return np.concatenate(self.chunks[c]) if c in self.chunks else np.zeros((0, 9))


QUAD = np.array([0, 1, 2, 0, 2, 3], dtype="u4")


def track_mesh(world):
    """(vertices (V, 9) f4, indices u4, runs, boxes) of `world.track`, as render.scene.TiledMesh takes them:
    per chunk of the lap, every metre with the edge lines and kerb blocks near the camera, every
    FAR_STEP metres without the lines far from it."""
    near, far = _build(world, STEP, True), _build(world, FAR_STEP, False)
    verts, idx, runs, boxes = [], [], [], []
    count = 0
    for c in sorted(near.chunks):
        run = []
        for b in (near, far):
            v = b.chunk(c)
            quads = len(v) // 4
            run.append((sum(len(i) for i in idx), 6 * quads))
            idx.append((QUAD[None, :] + 4 * np.arange(quads, dtype="u4")[:, None]).reshape(-1) + count)
            verts.append(v)
            count += len(v)
            if b is near:
                boxes.append((v[:, :3].min(axis=0), v[:, :3].max(axis=0)))
        runs.append([run[0], run[0], run[1]])
    return np.concatenate(verts).astype("f4"), np.concatenate(idx).astype("u4"), runs, boxes


FAR_STEP = 4.0         # m between the cross-sections of the far chunks


def _build(world, step: float, detail: bool) -> _Builder:
    """The quads of the track with cross-sections every `step` metres; `detail`: the edge lines and the kerbs'
    crown (else the road in one strip and the kerbs flat)."""
    t = world.track
    s = np.arange(0.0, t.length + step / 2, step)
    s[-1] = t.length
    chunk = np.minimum((s[:-1] / CHUNK).astype(int), int(t.length // CHUNK))
    b = _Builder()
    el, er = t.at(s, "width_left"), t.at(s, "width_right")

    def edge(l, paint=0.0):
        p = t.point(s, l)
        p[:, 2] = ground_heights(world, p[:, 0], p[:, 1]) + LIFT + paint
        return p

    def fill(color):
        return np.tile(np.asarray(color, float), (len(s) - 1, 1))
    # the road in four strips (its edge lines painted on the outer two), or one far away
    cuts = [-er, -er + EDGE_LINE, np.zeros_like(s), el - EDGE_LINE, el] if detail else [-er, el]
    colors = (LINE, ROAD, ROAD, LINE) if detail else (ROAD,)
    rows = [edge(c) for c in cuts]
    for k, color in enumerate(colors):
        b.strip(chunk, rows[k], rows[k + 1], fill(color))
    # kerbs: the band outside each edge, on the kerbed stretches, in blocks; their crown follows the ground
    block = (np.floor(s[:-1] / KERB_BLOCK).astype(int) % 2)[:, None]
    blocks = np.where(block == 0, np.asarray(KERB[0]), np.asarray(KERB[1]))
    for lo, hi in t.kerbs:
        k = np.flatnonzero((s >= lo) & (s <= hi))
        if len(k) < 2:
            continue
        for side, e in ((1.0, el), (-1.0, er)):
            across = [edge(side * (e + f * t.kerb_width)) for f in np.linspace(0.0, 1.0, 5 if detail else 2)]
            for a, c in zip(across[:-1], across[1:]):
                b.strip(chunk[k[:-1]], a[k], c[k], blocks[k[:-1]])
    # gravel traps beyond the kerb band, narrowing at their ends as the physics' layer does
    colour = np.asarray(world.surfaces[world.surface_index[t.surfaces["gravel"]]].color, float)
    for trap in t.gravel:
        lo, hi, side = trap
        k = np.flatnonzero((s >= lo) & (s <= hi))
        if len(k) < 2:
            continue
        width = t.trap_width(s, trap)
        for sd, e in ((1.0, el), (-1.0, er)):
            if side and side != sd:
                continue
            inner, outer = edge(sd * (e + t.kerb_width), -0.004), edge(sd * (e + t.kerb_width + width), -0.004)
            b.strip(chunk[k[:-1]], inner[k], outer[k], np.tile(colour, (len(k) - 1, 1)))
    # the start/finish line: two rows of chequers 0.75 m long; a sector line: a yellow band 0.4 m long
    for n, s_line in enumerate(t.sectors):
        length, squares = (1.5, 2) if n == 0 else (0.4, 1)
        ls = np.linspace(-float(t.at(s_line, "width_right")), float(t.at(s_line, "width_left")),
                         (17 if detail else 5) if n == 0 else 2)
        for q in range(squares):
            a = s_line - length / 2 + q * length / squares
            pair = np.array([a, a + length / squares])
            pts = []
            for l in ls:
                xy = t.point(pair, l)[:, :2]
                pts.append(np.column_stack([xy, ground_heights(world, xy[:, 0], xy[:, 1]) + LIFT + PAINT]))
            cols = np.array([(LINE if (i + q) % 2 == 0 else (0.08, 0.08, 0.09)) if n == 0 else SECTOR
                             for i in range(len(ls) - 1)], float)
            which = np.full(len(ls) - 1, chunk[min(int(s_line / step), len(chunk) - 1)])
            b.strip(which, np.stack([p[0] for p in pts]), np.stack([p[1] for p in pts]), cols)
    return b
