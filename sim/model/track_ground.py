"""The ground of a circuit, built from the world's own blocks: heightfields, one surface each, laid in layers.

One smooth design surface S(x, y) carries the road (its height z(s) and banking along the centre line), the
kerbs' edge, and the run-off, which leaves the road's banked plane and blends into a gentle terrain (the
centre line's heights, smoothed) within BLEND metres. Each surface (road, run-off, a kerbed stretch, a
gravel trap) gets a heightfield of its own that is S inside its region and sinks below S outside it, by
LAYER_SLOPE per metre of distance d to the region over its first two grid cells (a clean crossing at the
region's edge), then faster (LAYER_CURVE), at most LAYER_DEPTH:

    field_k(x, y) = S(x, y) [+ the kerb's crown] - sink(d_k(x, y))
    sink(d) = min(LAYER_SLOPE d + LAYER_CURVE max(d - 2 spacing, 0)^2, LAYER_DEPTH)

A layer a wheel does not stand on is then soon out of the query's reach (about 2 m below the suspension's
top), and its ray ends after the march without bisecting (a layer within reach costs 40 more heightfield
lookups a wheel a substep). It never presents a tangent plane that a sphere or disc of radius r meets first:
that needs sink(d) < r (sqrt(1 + sink'(d)^2) - 1), false for r up to 0.5 m.

A wheel's query takes the surface it meets first, the highest (sim/kernel/query.py), so each place is
covered by its own surface and the ground is S everywhere (the road and run-off grids share their
vertices, so their regions meet along the exact edge line). Where two layers meet, the bilinear
interpolation rounds the kink of the sunk layer over one cell: the ground there is at most
LAYER_SLOPE x spacing / 4 lower (1.2 cm at the default 1 m grid). The kerbs are on a finer grid
(KERB_SPACING) for their rounded crown. Only the run-off layer is drawn as a heightfield; the road, kerbs
and traps are drawn from the Track (render/track.py). A grass plane at the terrain's rim carries on past it.
"""
from __future__ import annotations

import math

import numpy as np

from sim.model.track import Track
from sim.model.track_toml import track_from_dict

LAYER_SLOPE = 0.05        # m per m: how fast a surface's layer sinks outside its region (at first)
LAYER_CURVE = 0.5         # 1/m: how much faster it sinks from two grid cells outside its region
LAYER_DEPTH = 4.0         # m: the deepest a layer sinks under the ground
FORMATION = 2.0           # m beyond the kerbs over which the road's banked plane carries on
BLEND = 20.0              # m over which the run-off then blends into the terrain
TERRAIN_SIGMA = 30.0      # m: the width of the Gaussian that smooths the centre line's heights into terrain
RIM = 30.0                # m at the edge of the ground over which the terrain comes down to the rim plane
RIM_DROP = 0.5            # m: the rim plane lies this far below the lowest point of the centre line
KERB_SPACING = 0.25       # m: the kerbs' grid
KERB_CHUNK = 25.0         # m of kerb per heightfield (a long curved kerb in one field would span a large box, and
#                           a wheel's query tests every heightfield whose box it is over)
MAX_FIELDS = 60           # a circuit's kerbs are cut longer where more heightfields would pass this (the broad
#                           phase tests the first 63 of a world only when the car is over them)
KERB_TAPER = 3.0          # m over which a kerb's crown rises at the start of a kerbed stretch and falls at its end
TILE = 32.0               # m: the grid is matched to the centre line tile by tile
COARSE = 8                # stations per segment of the coarse line a tile is first matched against


def grid_stations(track: Track, x: np.ndarray, y: np.ndarray, reach: float):
    """Station s, lateral offset l and distance d of every point (x, y) (arrays of one shape) within `reach`
    (m) of the centre line; farther points get d = inf (and s, l = 0). Tile by tile: the nearest segment of a
    coarse line (every COARSE stations) among those near the tile, then the exact one within 2 coarse
    segments of it."""
    shape = x.shape
    px, py = x.ravel(), y.ravel()
    s_out = np.zeros(px.size)
    l_out = np.zeros(px.size)
    d_out = np.full(px.size, np.inf)
    coarse = track.xy[::COARSE]
    ca, cb = coarse, np.roll(coarse, -1, axis=0)
    mid, half_len = (ca + cb) / 2.0, np.hypot(*(cb - ca).T) / 2.0
    tx = np.floor((px - px.min()) / TILE).astype(int)
    ty = np.floor((py - py.min()) / TILE).astype(int)
    key = tx * (ty.max() + 1) + ty
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order])) + 1
    for idx in np.split(order, bounds):
        qx, qy = px[idx], py[idx]
        cx, cy = (qx.min() + qx.max()) / 2.0, (qy.min() + qy.max()) / 2.0
        radius = math.hypot(qx.max() - qx.min(), qy.max() - qy.min()) / 2.0
        near = np.flatnonzero(np.hypot(mid[:, 0] - cx, mid[:, 1] - cy) <= radius + reach + half_len)
        if not len(near):
            continue
        a, b = ca[near], cb[near]
        abx, aby = (b - a).T
        apx, apy = qx[:, None] - a[:, 0], qy[:, None] - a[:, 1]
        t = np.clip((apx * abx + apy * aby) / np.maximum(abx * abx + aby * aby, 1e-12), 0.0, 1.0)
        ex, ey = apx - t * abx, apy - t * aby
        d2 = ex * ex + ey * ey
        k = np.argmin(d2, axis=1)
        rows = np.arange(len(qx))
        keep = d2[rows, k] <= (reach + COARSE * track.ds) ** 2       # (the coarse line is off by far less)
        if not keep.any():
            continue
        hint = (near[k] + t[rows, k]) * COARSE * track.ds
        p = np.column_stack([qx, qy])[keep]
        s, l, d = track.project(p, hint=hint[keep], window=COARSE * track.ds + 1.0)
        close = d <= reach
        sel = idx[keep][close]
        s_out[sel], l_out[sel], d_out[sel] = s[close], l[close], d[close]
    return s_out.reshape(shape), l_out.reshape(shape), d_out.reshape(shape)


def terrain(track: Track, x0: float, y0: float, x1: float, y1: float):
    """The terrain's height as a function of (x, y) arrays: the centre line's heights smoothed by a Gaussian
    of TERRAIN_SIGMA (computed on an 8 m grid, then bilinear), brought down to the rim plane over the
    outermost RIM metres of the box (x0, y0)-(x1, y1). Returns (height function, the rim plane's height)."""
    # below the lowest the banked road's plane reaches before it blends into the terrain
    reach = float(max(track.width_left.max(), track.width_right.max())) + track.kerb_width + FORMATION + BLEND
    rim = float((track.z - np.abs(np.tan(track.bank)) * reach).min()) - RIM_DROP
    step = 8.0
    gx = np.arange(x0, x1 + step, step)
    gy = np.arange(y0, y1 + step, step)
    k = max(1, int(round(5.0 / track.ds)))
    sx, sy, sz = track.xy[::k, 0], track.xy[::k, 1], track.z[::k]
    mean = float(track.z.mean())
    out = np.empty((len(gx), len(gy)))
    for i, x in enumerate(gx):
        w = np.exp(-((x - sx[:, None]) ** 2 + (gy[None, :] - sy[:, None]) ** 2) / (2.0 * TERRAIN_SIGMA ** 2))
        out[i] = ((w * sz[:, None]).sum(0) + 1e-6 * mean) / (w.sum(0) + 1e-6)

    def height(x, y):
        fx = np.clip((x - gx[0]) / step, 0.0, len(gx) - 1.000001)
        fy = np.clip((y - gy[0]) / step, 0.0, len(gy) - 1.000001)
        i, j = fx.astype(int), fy.astype(int)
        u, v = fx - i, fy - j
        h = (out[i, j] * (1 - u) * (1 - v) + out[i + 1, j] * u * (1 - v) + out[i, j + 1] * (1 - u) * v
             + out[i + 1, j + 1] * u * v)
        edge = np.minimum(np.minimum(x - x0, x1 - x), np.minimum(y - y0, y1 - y))
        r = np.clip(1.0 - edge / RIM, 0.0, 1.0)
        r = r * r * (3.0 - 2.0 * r)
        return h * (1.0 - r) + rim * r
    return height, rim


def smoothstep(t):
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


class Ground:
    """The design surface S and each region's distance at a set of points (x, y), from their stations.

    Every layer's distance is continuous and changes by at most about a metre per metre, also where no
    wheel sees it: a sunk layer that jumped would, under a sphere's or disc's query, present a steep
    tangent plane that can reach above the ground. A band on the far side of the centre line is reached
    through it (its distance is |l| plus the band's inner edge there), and gravel traps widen and narrow
    over TRAP_TAPER at their ends (Track.trap_width)."""

    def __init__(self, track: Track, height, x: np.ndarray, y: np.ndarray, reach: float, spacing: float):
        self.track = track
        self.spacing = spacing                                       # m, of the grid x, y lie on
        self.s, self.l, self.d = grid_stations(track, x, y, reach)
        self.near = np.isfinite(self.d)
        s, l = self.s, self.l
        self.side = np.where(l >= 0.0, 1.0, -1.0)                     # +1 left of the centre line, -1 right
        self.edges = {1.0: track.at(s, "width_left"), -1.0: track.at(s, "width_right")}
        self.edge = np.where(l >= 0.0, self.edges[1.0], self.edges[-1.0])
        self.a = np.abs(l)                                           # m from the centre line, either side
        plane = track.at(s, "z") + np.tan(track.at(s, "bank")) * l
        b = smoothstep((self.a - self.edge - track.kerb_width - FORMATION) / BLEND)
        far = height(x, y)
        self.S = np.where(self.near, plane * (1.0 - b) + far * b, far)

    def within(self, spans) -> np.ndarray:
        """Whether each point's station lies in one of the (from, to) spans."""
        inside = np.zeros(self.s.shape, dtype=bool)
        for a, b, *_ in spans:
            inside |= (self.s >= a) & (self.s <= b)
        return inside & self.near

    def trap_width(self, side: float) -> np.ndarray:
        """How wide (m) the gravel beside the kerb band is on `side` at each point's station (0 where there is
        no trap on that side)."""
        out = np.zeros(self.s.shape)
        for trap in self.track.gravel:
            if trap[2] == 0.0 or trap[2] == side:
                out = np.maximum(out, self.track.trap_width(self.s, trap))
        return out

    def across(self, lo: dict, hi: dict, mine: np.ndarray | None = None) -> np.ndarray:
        """Lateral distance (m) of each point from a band lo[side] <= |l| <= hi[side] on the sides where
        `mine` (+-1 or 0 for both, per point or one number) says it lies: inside 0; on the far side of
        the centre line, through it (|l| + lo of the other side)."""
        same = np.maximum(np.maximum(np.where(self.side > 0, lo[1.0], lo[-1.0]) - self.a,
                                     self.a - np.where(self.side > 0, hi[1.0], hi[-1.0])), 0.0)
        if mine is None:
            return same
        other = self.a + np.where(self.side > 0, lo[-1.0], lo[1.0])
        return np.where((mine == 0) | (mine == self.side), same, other)

    def layer(self, distance, far: float = LAYER_DEPTH) -> np.ndarray:
        """The layer's heights: S sunk by sink(`distance` from its region) (the module's docstring); points
        beyond the reach are sunk by `far` (the run-off's: 0)."""
        beyond = np.maximum(distance - 2.0 * self.spacing, 0.0)
        sink = np.minimum(LAYER_SLOPE * distance + LAYER_CURVE * beyond * beyond, LAYER_DEPTH)
        return self.S - np.where(self.near, sink, far)

    def road(self) -> np.ndarray:
        return self.layer(np.maximum(self.a - self.edge, 0.0))

    def runoff(self) -> np.ndarray:
        """Run-off everywhere but the road, the kerbed and the gravel bands: its distance is to the nearest
        run-off: the strip beside the road where no kerb is, or beyond the kerb band and any gravel, on
        this side or (through the centre line) the other."""
        t = self.track
        kw, e = t.kerb_width, self.edges
        start = {side: e[side] + kw + self.trap_width(side) for side in (1.0, -1.0)}
        outer = np.minimum(np.maximum(np.where(self.side > 0, start[1.0], start[-1.0]) - self.a, 0.0),
                           self.a + np.where(self.side > 0, start[-1.0], start[1.0]))
        strip = self.across(e, {k: v + kw for k, v in e.items()})
        inner = np.where(self.within(t.kerbs), np.inf, strip)            # beside the road where no kerb is
        return self.layer(np.minimum(inner, outer), far=0.0)

    def kerb(self, lo: float, hi: float, span: tuple[float, float], side: float) -> np.ndarray:
        """A kerbed stretch's part from station lo to hi (inside the whole stretch `span`) on one side (+1
        left, -1 right): the kerb band's rounded crown, kerb_height sin(pi u) across it, rising and falling
        over KERB_TAPER at the stretch's ends."""
        t = self.track
        kw, e = t.kerb_width, self.edges
        lat = self.across(e, {k: v + kw for k, v in e.items()}, side)
        along = np.maximum(np.maximum(lo - self.s, self.s - hi), 0.0)
        u = np.clip((self.a - self.edge) / kw, 0.0, 1.0)
        taper = smoothstep(np.minimum(self.s - span[0], span[1] - self.s) / KERB_TAPER)
        crown = t.kerb_height * np.sin(math.pi * u) * taper * (lat == 0.0) * (along == 0.0)
        return self.layer(np.hypot(lat, along)) + crown

    def gravel(self, span: tuple[float, float, float]) -> np.ndarray:
        """A gravel trap from station span[0] to span[1] on side span[2] (+1 left, -1 right, 0 both)."""
        t = self.track
        inner = {k: v + t.kerb_width for k, v in self.edges.items()}
        width = t.trap_width(self.s, span)
        lat = self.across(inner, {k: v + width for k, v in inner.items()}, span[2])
        along = np.maximum(np.maximum(span[0] - self.s, self.s - span[1]), 0.0)
        return self.layer(np.hypot(lat, along))


def span_box(track: Track, lo: float, hi: float, l_lo: float, l_hi: float, pad: float, sides=(-1.0, 1.0)):
    """The (x0, y0, x1, y1) box around the stations lo..hi at lateral offsets l_lo..l_hi on `sides` (+1 left,
    -1 right), grown by pad."""
    ss = np.arange(lo, hi + 0.5, 0.5)
    pts = [track.point(ss, sign * off)[:, :2] for sign in sides for off in (l_lo, l_hi)]
    pts = np.concatenate(pts)
    return pts[:, 0].min() - pad, pts[:, 1].min() - pad, pts[:, 0].max() + pad, pts[:, 1].max() + pad


def snapped_grid(box, spacing: float):
    """Grid points (x (nx,), y (ny,)) covering box on multiples of `spacing`."""
    x0, y0, x1, y1 = box
    ix0, iy0 = math.floor(x0 / spacing), math.floor(y0 / spacing)
    ix1, iy1 = math.ceil(x1 / spacing), math.ceil(y1 / spacing)
    return np.arange(ix0, ix1 + 1) * spacing, np.arange(iy0, iy1 + 1) * spacing


def build_ground(track: Track, spacing: float, margin: float):
    """The circuit's layers: [(name, surface, origin (x, y, z), spacing, heights (nx, ny), drawn)], and the
    rim plane's height. The run-off layer (drawn) covers the track's box grown by `margin`."""
    t = track
    wmax = float(max(t.width_left.max(), t.width_right.max()))
    wmin = float(min(t.width_left.min(), t.width_right.min()))
    outer = wmax + t.kerb_width + t.gravel_width + 2.0
    reach = wmax + t.kerb_width + FORMATION + BLEND + t.gravel_width
    lo, hi = t.xy.min(axis=0) - margin, t.xy.max(axis=0) + margin
    height, rim = terrain(t, lo[0], lo[1], hi[0], hi[1])
    xs, ys = snapped_grid((lo[0], lo[1], hi[0], hi[1]), spacing)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    g = Ground(t, height, gx, gy, reach, spacing)
    origin = (float(xs[0]), float(ys[0]), 0.0)
    road, kerb, runoff, gravel = (t.surfaces[k] for k in ("road", "kerb", "runoff", "gravel"))
    layers = [("track", road, origin, spacing, g.road(), False),
              ("run-off", runoff, origin, spacing, g.runoff(), True)]
    for n, span in enumerate(t.gravel):
        sides = (span[2],) if span[2] else (-1.0, 1.0)
        xs_, ys_ = snapped_grid(span_box(t, span[0] - 2.0, span[1] + 2.0, 0.0, outer, 2.0 * spacing, sides), spacing)
        gx_, gy_ = np.meshgrid(xs_, ys_, indexing="ij")
        gg = Ground(t, height, gx_, gy_, reach, spacing)
        layers.append((f"gravel trap {n + 1}", gravel, (float(xs_[0]), float(ys_[0]), 0.0), spacing,
                       gg.gravel(span), False))
    k = 0
    room = max(MAX_FIELDS - len(layers), 2 * len(t.kerbs))           # kerb fields, two sides of each piece
    chunk = max(KERB_CHUNK, 2.0 * sum(b - a for a, b in t.kerbs) / max(room - 2 * len(t.kerbs), 1))
    for span in t.kerbs:
        pieces = max(1, int(math.ceil((span[1] - span[0]) / chunk)))
        cuts = np.linspace(span[0], span[1], pieces + 1)
        for a, b in zip(cuts[:-1], cuts[1:]):
            for side in (1.0, -1.0):
                box = span_box(t, a - 1.0, b + 1.0, wmin - 1.0, wmax + t.kerb_width + 1.0, 1.0, (side,))
                xs_, ys_ = snapped_grid(box, KERB_SPACING)
                gx_, gy_ = np.meshgrid(xs_, ys_, indexing="ij")
                heights = Ground(t, height, gx_, gy_, reach, KERB_SPACING).kerb(a, b, span, side)
                k += 1
                layers.append((f"kerb {k}", kerb, (float(xs_[0]), float(ys_[0]), 0.0), KERB_SPACING, heights, False))
    return layers, rim


def circuit_ground(where: str, data, surface_names):
    """The Track of a [track] table, its ground's layers (build_ground's) and the rim plane's height."""
    track, spacing, margin = track_from_dict(where, data, surface_names)
    layers, rim = build_ground(track, spacing, margin)
    return track, layers, rim


TRACK_SPAWN_EVERY = 250.0     # m along a circuit between the places R puts the car back (facing the lap's way)


def track_spawns(track) -> list[tuple[float, float, float]]:
    """Spawn points on the centre line every TRACK_SPAWN_EVERY metres from the start/finish line."""
    out = []
    for s in np.arange(0.0, track.length - TRACK_SPAWN_EVERY / 2, TRACK_SPAWN_EVERY):
        out.append((float(track.at(s, "x")), float(track.at(s, "y")), math.degrees(float(track.at(s, "heading")))))
    return out
