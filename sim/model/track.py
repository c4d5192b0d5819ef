"""A closed circuit's centre line: arc-length stations with heading, curvature, widths, banking and height,
and the query a timer or a driver model asks of it: where on the track a point is.

The centre line runs through the control points of a world file's [track] (sim/model/track_toml.py) as a
periodic cubic spline in x, y and z, parametrised by the chord length between the points; widths and
banking blend from point to point with a smoothstep (no overshoot). It is resampled every `ds` metres of
arc length from the first point (the start/finish line, s = 0) in the order the points are given (the
direction of the lap). docs/track.md describes the format and these quantities.

Signs: the lateral offset l is positive to the left of the direction of travel; the heading is the angle of
the direction of travel from world +x (counter-clockwise, rad); the curvature is positive in a left-hand
bend; the banking is the road's roll about the direction of travel (ISO 8855: positive raises the left
edge), so the road's height at (s, l) is z(s) + tan(bank(s)) l.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

DS = 0.5                # m between the stations of the resampled centre line
HINT_WINDOW = 40.0      # m either side of a hint that a hinted query searches
TRAP_TAPER = 10.0       # m over which a gravel trap widens at its start and narrows at its end


def periodic_spline(u: np.ndarray, y: np.ndarray, period: float) -> np.ndarray:
    """Second derivatives M (n, k) of the periodic cubic spline through values y (n, k) at parameters u (n,)
    increasing, with y(u_0 + period) = y(u_0): h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} =
    6 ((y_{i+1} - y_i) / h_i - (y_i - y_{i-1}) / h_{i-1}), indices modulo n (a cyclic tridiagonal system)."""
    n = len(u)
    h = np.diff(np.append(u, u[0] + period))              # (n,) h_i = u_{i+1} - u_i
    hm = np.roll(h, 1)                                      # h_{i-1}
    a = np.zeros((n, n))
    idx = np.arange(n)
    a[idx, (idx - 1) % n] += hm
    a[idx, idx] += 2.0 * (hm + h)
    a[idx, (idx + 1) % n] += h
    dy = (np.roll(y, -1, axis=0) - y) / h[:, None]
    rhs = 6.0 * (dy - np.roll(dy, 1, axis=0))
    return np.linalg.solve(a, rhs)


def spline_eval(u: np.ndarray, y: np.ndarray, m: np.ndarray, period: float, q: np.ndarray):
    """Value, first and second derivative (each (len(q), k)) of the periodic spline (u, y, M) at q."""
    n = len(u)
    h = np.diff(np.append(u, u[0] + period))
    q = np.mod(q - u[0], period) + u[0]
    i = np.clip(np.searchsorted(u, q, side="right") - 1, 0, n - 1)
    j = (i + 1) % n
    hi = h[i][:, None]
    a = (u[i] + h[i] - q)[:, None] / hi                   # weight of y_i
    b = 1.0 - a
    yi, yj, mi, mj = y[i], y[j], m[i], m[j]
    val = a * yi + b * yj + ((a ** 3 - a) * mi + (b ** 3 - b) * mj) * hi ** 2 / 6.0
    d1 = (yj - yi) / hi + ((1.0 - 3.0 * a ** 2) * mi + (3.0 * b ** 2 - 1.0) * mj) * hi / 6.0
    d2 = a * mi + b * mj
    return val, d1, d2


def smooth_blend(u: np.ndarray, values: np.ndarray, period: float, q: np.ndarray) -> np.ndarray:
    """Each value held at its point and blended to the next point's with a smoothstep 3t^2 - 2t^3 (C1, no
    overshoot), periodic."""
    n = len(u)
    h = np.diff(np.append(u, u[0] + period))
    q = np.mod(q - u[0], period) + u[0]
    i = np.clip(np.searchsorted(u, q, side="right") - 1, 0, n - 1)
    t = np.clip((q - u[i]) / h[i], 0.0, 1.0)
    w = t * t * (3.0 - 2.0 * t)
    return values[i] * (1.0 - w) + values[(i + 1) % n] * w


def wrap_angle(a):
    """Angle(s) into [-pi, pi)."""
    return (np.asarray(a) + math.pi) % (2.0 * math.pi) - math.pi


@dataclass(frozen=True, eq=False)
class Track:
    """The centre line sampled every `ds` metres from the start/finish line (station s = k ds), the lap's
    direction. Arrays (M,) unless said; `length` is the lap's length L (m): station L is station 0 again."""
    s: np.ndarray              # m, station (arc length from the start/finish line)
    xy: np.ndarray             # (M, 2) m, the centre line
    z: np.ndarray              # m, its height
    heading: np.ndarray        # rad, direction of travel from world +x, counter-clockwise
    curvature: np.ndarray      # 1/m, positive in a left-hand bend
    width_left: np.ndarray     # m, centre line to the left edge of the road (kerbs outside it)
    width_right: np.ndarray    # m, centre line to the right edge
    bank: np.ndarray           # rad, roll of the road about the direction of travel (+: left edge up)
    length: float              # m, one lap
    sectors: tuple[float, ...] = (0.0,)          # m, station where each sector starts (the first is 0)
    kerbs: tuple[tuple[float, float], ...] = ()   # (from, to) stations (m) of the kerbed stretches
    gravel: tuple[tuple[float, float, float], ...] = ()  # (from, to, side): gravel traps beside the kerbs from
    #                                                   station to station (m), side +1 left, -1 right, 0 both
    kerb_width: float = 1.2                       # m, outside each edge
    kerb_height: float = 0.04                     # m, the crown of a kerb's rounded profile
    gravel_width: float = 20.0                    # m, outside the kerb band
    surfaces: dict = field(default_factory=dict)  # role ("road", "kerb", "runoff", "gravel") -> surface name
    control: np.ndarray | None = None             # (n, 2) m, the control points (x, y) of the file
    control_s: np.ndarray | None = None           # (n,) m, the station of each control point

    @property
    def ds(self) -> float:
        return self.length / len(self.s)

    @property
    def on_track_surfaces(self) -> tuple[str, ...]:
        """The surfaces a wheel on the track stands on (the road and the kerbs): all four wheels off them
        cut the track."""
        return tuple(dict.fromkeys(self.surfaces[k] for k in ("road", "kerb") if k in self.surfaces))

    # -- values along the line ---------------------------------------------------------------------------
    def at(self, s, name: str) -> np.ndarray:
        """Channel `name` ("x", "y", "z", "heading", "curvature", "width_left", "width_right", "bank") at
        stations s (any shape; wrapped into the lap), linearly between the samples (the heading the short
        way round)."""
        if name in ("x", "y"):
            return self.sample(s, self.xy[:, 0 if name == "x" else 1])
        return self.sample(s, getattr(self, name), angle=name == "heading")

    def sample(self, s, values: np.ndarray, angle: bool = False) -> np.ndarray:
        """Per-station `values` (M,) (of this track's stations, e.g. a speed profile) at stations s, linearly
        between the samples, periodic; `angle`: blended the short way round."""
        f = np.mod(np.asarray(s, dtype=float), self.length) / self.ds
        i = np.floor(f).astype(int) % len(self.s)
        j = (i + 1) % len(self.s)
        w = f - np.floor(f)
        step = wrap_angle(values[j] - values[i]) if angle else values[j] - values[i]
        return values[i] + w * step

    def point(self, s, l=0.0) -> np.ndarray:
        """World (x, y, z) (shape (..., 3)) at station s and lateral offset l (+ left), z on the road's banked
        plane (the ground on the road, its kerbs (below their crown) and 2 m beyond them)."""
        s, l = np.broadcast_arrays(np.asarray(s, dtype=float), np.asarray(l, dtype=float))
        h = self.at(s, "heading")
        x = self.at(s, "x") - np.sin(h) * l
        y = self.at(s, "y") + np.cos(h) * l
        z = self.at(s, "z") + np.tan(self.at(s, "bank")) * l
        return np.stack([x, y, z], axis=-1)

    def trap_width(self, s, trap) -> np.ndarray:
        """How wide (m) gravel trap `trap` (one of `gravel`: from, to, side) is at stations s: gravel_width
        inside it, rising smoothly from 0 over TRAP_TAPER at its start and falling so at its end, 0 outside."""
        s = np.asarray(s, dtype=float)
        lo, hi = trap[0], trap[1]
        u = np.clip(np.minimum(s - lo, hi - s) / TRAP_TAPER, 0.0, 1.0)
        return u * u * (3.0 - 2.0 * u) * ((s >= lo) & (s <= hi)) * self.gravel_width

    def sector_of(self, s) -> np.ndarray:
        """Index of the sector (0, 1, ...) that station(s) s lie in."""
        return np.searchsorted(np.asarray(self.sectors), np.mod(np.asarray(s, dtype=float), self.length),
                               side="right") - 1

    # -- where a point is ---------------------------------------------------------------------------------
    def project(self, points, hint=None, window: float = HINT_WINDOW):
        """Nearest point of the centre line to each of `points` ((N, 2) or (2,) m, x y): (s, l, d) arrays:
        station (m, in [0, L)), signed lateral offset (m, + left) and the distance to the line (m).

        `hint` (stations (N,), e.g. each car's last s) restricts the search to `window` metres either side of
        it: (N, 2 window / ds) segments, vectorised over the cars, and never a jump to another part of the
        track that passes near. Without a hint every segment is searched (N x M: fine for a few points)."""
        p = np.asarray(points, dtype=float)
        single = p.ndim == 1
        p = p.reshape(-1, 2)
        m = len(self.s)
        if hint is not None and len(p) == 1:                  # one car: walk from its hint
            s, l, d = self.follow(float(p[0, 0]), float(p[0, 1]), float(np.ravel(hint)[0]), window)
            return (s, l, d) if single else (np.array([s]), np.array([l]), np.array([d]))
        if hint is None:
            cand = np.broadcast_to(np.arange(m), (len(p), m))
        else:
            k = int(math.ceil(window / self.ds))
            base = np.floor(np.mod(np.asarray(hint, dtype=float).reshape(-1), self.length) / self.ds).astype(int)
            cand = (np.broadcast_to(base, (len(p),))[:, None] + np.arange(-k, k + 1)[None, :]) % m
        s, l, d = self._nearest(p, cand)
        if single:
            return float(s[0]), float(l[0]), float(d[0])
        return s, l, d

    def follow(self, x: float, y: float, hint: float, window: float = HINT_WINDOW) -> tuple[float, float, float]:
        """`project` of one point from a hint, in plain floats: from the hint's segment, step to a neighbouring
        segment while it is nearer (at most `window` metres): the nearest point of the line near the hint,
        found in a few steps when the point moved a little since."""
        lists = self.__dict__.get("_lists")
        if lists is None:
            lists = tuple(v.tolist() for v in self._segment_table())
            object.__setattr__(self, "_lists", lists)
        ax, ay, abx, aby, inv = lists
        m = len(ax)

        def foot(i):                    # (squared distance, t) to segment i
            t = min(max(((x - ax[i]) * abx[i] + (y - ay[i]) * aby[i]) * inv[i], 0.0), 1.0)
            ex, ey = x - ax[i] - t * abx[i], y - ay[i] - t * aby[i]
            return ex * ex + ey * ey, t
        i = int(hint % self.length / self.ds) % m
        d2, t = foot(i)
        for _ in range(int(window / self.ds) + 1):   # down the distance to the neighbouring segments
            back, ahead = foot((i - 1) % m), foot((i + 1) % m)
            if back[0] < d2 and back[0] <= ahead[0]:
                i, (d2, t) = (i - 1) % m, back
            elif ahead[0] < d2:
                i, (d2, t) = (i + 1) % m, ahead
            else:
                break
        d = math.sqrt(d2)
        cross = abx[i] * (y - ay[i]) - aby[i] * (x - ax[i])
        return (i + t) * self.ds % self.length, d if cross >= 0.0 else -d, d

    def _segment_table(self):
        """Each segment's start x, y, direction x, y and 1 / its squared length (M,) each, made once."""
        seg = self.__dict__.get("_segments")
        if seg is None:
            ab = np.roll(self.xy, -1, axis=0) - self.xy
            seg = (self.xy[:, 0], self.xy[:, 1], ab[:, 0], ab[:, 1], 1.0 / np.maximum((ab * ab).sum(1), 1e-12))
            object.__setattr__(self, "_segments", seg)
        return seg

    def _nearest(self, p: np.ndarray, cand: np.ndarray):
        ax, ay, abx, aby, inv = (v[cand] for v in self._segment_table())          # (N, K) each
        apx, apy = p[:, 0:1] - ax, p[:, 1:2] - ay
        t = np.clip((apx * abx + apy * aby) * inv, 0.0, 1.0)
        ex, ey = apx - t * abx, apy - t * aby
        d2 = ex * ex + ey * ey
        best = np.argmin(d2, axis=1)
        rows = np.arange(len(p))
        tb = t[rows, best]
        s = np.mod(self.s[cand[rows, best]] + tb * self.ds, self.length)
        cross = abx[rows, best] * apy[rows, best] - aby[rows, best] * apx[rows, best]
        d = np.sqrt(d2[rows, best])
        return s, np.where(cross >= 0.0, d, -d), d

    def locate(self, position, yaw, hint=None):
        """For cars at `position` ((N, 2|3) m) heading `yaw` ((N,) rad): station s (m), lateral offset l
        (m, + left of the centre line) and heading error (rad, yaw minus the track's heading, in [-pi, pi))."""
        p = np.asarray(position, dtype=float)
        p = p.reshape(-1, p.shape[-1])[:, :2]
        s, l, _ = self.project(p, hint)
        return s, l, wrap_angle(np.asarray(yaw, dtype=float).reshape(-1) - self.at(s, "heading"))

    def line(self, s: float) -> tuple[np.ndarray, np.ndarray]:
        """A timing line across the track at station s: its centre (x, y) and the unit tangent there
        (the direction a car crosses it forwards)."""
        h = float(self.at(s, "heading"))
        return np.array([float(self.at(s, "x")), float(self.at(s, "y"))]), np.array([math.cos(h), math.sin(h)])


def centre_line(points: np.ndarray, z: np.ndarray, width: np.ndarray, bank: np.ndarray, ds: float = DS):
    """Resample the closed spline through control points (n, 2) with heights z, widths and banking (n,) at
    every `ds` m of arc length from the first point. Returns (s, xy, z, heading, curvature, width, bank,
    length, station of each control point)."""
    pts = np.asarray(points, dtype=float)
    chord = np.hypot(*(np.roll(pts, -1, axis=0) - pts).T)
    u = np.concatenate([[0.0], np.cumsum(chord[:-1])])
    period = float(chord.sum())
    y = np.column_stack([pts, z])
    m = periodic_spline(u, y, period)
    # arc length: the spline evaluated finely (10 cm of chord, at least 16 per span), summed by Simpson
    fine = np.linspace(0.0, period, max(16 * len(pts), int(period / 0.1)) + 1)
    _, d1, _ = spline_eval(u, y, m, period, fine)
    speed = np.hypot(d1[:, 0], d1[:, 1])
    seg = np.diff(fine)
    arc = np.concatenate([[0.0], np.cumsum(seg * (speed[:-1] + speed[1:]) / 2.0)])
    length = float(arc[-1])
    n = max(8, int(round(length / ds)))
    s = np.arange(n) * (length / n)
    q = np.interp(s, arc, fine)
    val, d1, d2 = spline_eval(u, y, m, period, q)
    heading = np.arctan2(d1[:, 1], d1[:, 0])
    sp = np.hypot(d1[:, 0], d1[:, 1])
    curvature = (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]) / np.maximum(sp, 1e-12) ** 3
    w = smooth_blend(u, np.asarray(width, dtype=float), period, q)
    b = smooth_blend(u, np.asarray(bank, dtype=float), period, q)
    control_s = np.interp(u, fine, arc)
    return s, val[:, :2], val[:, 2], heading, curvature, w, b, length, control_s
