"""A world file's [track] table: a closed circuit described by its centre line's control points, with its
width, banking, height, sectors, kerbs and gravel traps (docs/track.md). `track_from_dict` checks it with
the loader's one-line errors and returns the Track (sim/model/track.py); sim/model/track_ground.py lays
its ground.
"""
from __future__ import annotations

import math

import numpy as np

from sim.model.files import ConfigError
from sim.model.files import known_keys
from sim.model.files import number
from sim.model.files import show
from sim.model.files import table
from sim.model.track import Track
from sim.model.track import centre_line

TRACK_KEYS = ("points", "surface", "kerb_surface", "runoff_surface", "gravel_surface", "width", "bank_deg",
              "kerb_width", "kerb_height", "kerb_radius", "gravel_width", "spacing", "margin")
POINT_KEYS = ("x", "y", "z", "width", "bank_deg", "sector", "gravel")
MAX_POINTS = 2000
MAX_SECTORS = 9
MIN_LENGTH = 200.0          # m: a shorter loop is no circuit
MAX_LENGTH = 30000.0        # m: the Nordschleife is 20.8 km
MIN_POINT_GAP = 1.0         # m between neighbouring control points
CLEARANCE = 2.0             # m of ground between two stretches of track that pass near each other
KERB_LEAD = 5.0             # m: a kerb starts this far before the bend that asks for it and ends as far after
KERB_MIN = 8.0              # m: a shorter kerbed stretch is left out


def _flag(where: str, key: str, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected true or false")
    return value


def _surface(where: str, key: str, value, names) -> str:
    if value not in names:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected one of the surfaces "
                          f"{', '.join(repr(s) for s in names)}")
    return value


def track_from_dict(where: str, data, surface_names) -> tuple[Track, float, float]:
    """The Track of a [track] table, its ground's grid spacing (m) and its margin of ground (m)."""
    t = table(where, "track", data)
    known_keys(where, "track", t, TRACK_KEYS)
    names = list(surface_names)
    defaults = {"surface": "asphalt", "kerb_surface": "curb", "runoff_surface": "grass", "gravel_surface": "gravel"}
    roles = {}
    for role, key in (("road", "surface"), ("kerb", "kerb_surface"), ("runoff", "runoff_surface"),
                      ("gravel", "gravel_surface")):
        roles[role] = _surface(where, f"track.{key}", t.get(key, defaults[key]), names)
    width = number(where, "track.width", t.get("width", 12.0), 3.0, 60.0, "m")
    bank = number(where, "track.bank_deg", t.get("bank_deg", 0.0), -20.0, 20.0, "deg")
    kerb_width = number(where, "track.kerb_width", t.get("kerb_width", 1.2), 0.2, 5.0, "m")
    kerb_height = number(where, "track.kerb_height", t.get("kerb_height", 0.04), 0.0, 0.2, "m")
    kerb_radius = number(where, "track.kerb_radius", t.get("kerb_radius", 250.0), 0.0, 10000.0, "m")
    gravel_width = number(where, "track.gravel_width", t.get("gravel_width", 20.0), 1.0, 200.0, "m")
    spacing = number(where, "track.spacing", t.get("spacing", 1.0), 0.25, 4.0, "m")
    margin = number(where, "track.margin", t.get("margin", 80.0), 20.0, 1000.0, "m")
    raw = t.get("points")
    if not isinstance(raw, list) or not 4 <= len(raw) <= MAX_POINTS or not all(isinstance(p, dict) for p in raw):
        raise ConfigError(f"{where}: track.points = {show(raw)} is not allowed; expected a list of 4 to "
                          f"{MAX_POINTS} tables {{ x = ..., y = ... }} along the centre line (the first is the "
                          f"start/finish line)")
    xy, z, widths, banks, sector_at, gravel_at = [], [], [], [], [], []
    for i, p in enumerate(raw):
        key = f"track.points[{i}]"
        known_keys(where, key, p, POINT_KEYS)
        if "x" not in p or "y" not in p:
            raise ConfigError(f"{where}: {key} is missing {'x' if 'x' not in p else 'y'}; expected {{ x = ..., "
                              f"y = ... }} (m)")
        xy.append((number(where, f"{key}.x", p["x"], -1e5, 1e5, "m"),
                   number(where, f"{key}.y", p["y"], -1e5, 1e5, "m")))
        z.append(number(where, f"{key}.z", p.get("z", 0.0), -1000.0, 1000.0, "m"))
        widths.append(number(where, f"{key}.width", p.get("width", width), 3.0, 60.0, "m"))
        banks.append(number(where, f"{key}.bank_deg", p.get("bank_deg", bank), -20.0, 20.0, "deg"))
        if _flag(where, f"{key}.sector", p.get("sector", False)):
            if i == 0:
                raise ConfigError(f"{where}: {key}.sector = true is not allowed; the first point is the start/"
                                  f"finish line, where sector 1 starts anyway")
            sector_at.append(i)
        if _flag(where, f"{key}.gravel", p.get("gravel", False)):
            gravel_at.append(i)
        if i and math.dist(xy[-1], xy[-2]) < MIN_POINT_GAP:
            raise ConfigError(f"{where}: {key} is {math.dist(xy[-1], xy[-2]):.2f} m from track.points[{i - 1}]; "
                              f"expected neighbouring points at least {MIN_POINT_GAP:g} m apart")
    if math.dist(xy[0], xy[-1]) < MIN_POINT_GAP:
        raise ConfigError(f"{where}: track.points[{len(xy) - 1}] is {math.dist(xy[0], xy[-1]):.2f} m from "
                          f"track.points[0]; the line closes by itself: leave the last point out")
    if len(sector_at) + 1 > MAX_SECTORS:
        raise ConfigError(f"{where}: track.points mark {len(sector_at) + 1} sectors (sector = true); at most "
                          f"{MAX_SECTORS} are allowed")
    s, line, zz, heading, curv, w, b, length, control_s = centre_line(np.array(xy), np.array(z), np.array(widths),
                                                                       np.radians(banks))
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise ConfigError(f"{where}: track.points make a lap of {length:.0f} m; expected {MIN_LENGTH:g} to "
                          f"{MAX_LENGTH:g} m")
    pts = np.array(xy)
    ds = length / len(s)
    check_bends(where, pts, control_s, s, line, curv, w / 2.0 + kerb_width)
    check_clearance(where, s, line, w / 2.0 + kerb_width, length)
    kerbs = stretches(np.abs(curv) * kerb_radius > 1.0, ds, length) if kerb_radius > 0.0 else ()
    gravel = traps(gravel_at, control_s, s, curv, length)
    track = Track(s=s, xy=line, z=zz, heading=heading, curvature=curv, width_left=w / 2.0, width_right=w / 2.0,
                  bank=b, length=length, sectors=(0.0, *(float(control_s[i]) for i in sector_at)), kerbs=kerbs,
                  gravel=gravel, kerb_width=kerb_width, kerb_height=kerb_height, gravel_width=gravel_width,
                  surfaces=roles, control=pts, control_s=control_s)
    return track, spacing, margin


def traps(flagged, control_s, s, curvature, length: float) -> tuple[tuple[float, float, float], ...]:
    """A gravel trap from each flagged control point to the next, merged where they follow each other:
    (from, to, side) with side -1 (right) or +1 (left), the outside of the stretch's mean bend, or 0 (both
    sides) where it is nearly straight (radius over 1 km)."""
    n = len(control_s)
    spans = []
    for i in flagged:
        a, b = float(control_s[i]), float(control_s[i + 1]) if i + 1 < n else length
        if spans and abs(spans[-1][1] - a) < 1e-9:
            spans[-1] = (spans[-1][0], b)
        else:
            spans.append((a, b))
    out = []
    for a, b in spans:
        k = float(np.mean(curvature[(s >= a) & (s <= b)]))
        out.append((a, b, 0.0 if abs(k) < 1e-3 else -math.copysign(1.0, k)))
    return tuple(out)


def _nearest_point(pts: np.ndarray, p) -> int:
    return int(np.argmin(np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])))


def check_bends(where: str, pts, control_s, s, line, curvature, half) -> None:
    """No bend may be tighter than the road's half width plus the kerb: its inner edge would fold over."""
    radius = 1.0 / np.maximum(np.abs(curvature), 1e-9)
    bad = radius < half
    if bad.any():
        k = int(np.argmin(radius - half))
        i = _nearest_point(pts, line[k])
        raise ConfigError(f"{where}: track.points bend with a radius of {radius[k]:.1f} m near track.points[{i}] "
                          f"({line[k, 0]:.0f}, {line[k, 1]:.0f}) m, s = {s[k]:.0f} m; expected at least {half[k]:.1f} "
                          f"m there (half the width plus the kerb): move the points apart or smooth the bend")


def check_clearance(where: str, s, line, half, length: float) -> None:
    """Two stretches of track that pass near each other (farther apart along the lap than three times their
    width) must keep their kerbs CLEARANCE metres apart."""
    step = max(1, int(round(2.0 / (length / len(s)))))         # every 2 m
    ss, pp, hh = s[::step], line[::step], half[::step]
    d = np.hypot(pp[:, None, 0] - pp[None, :, 0], pp[:, None, 1] - pp[None, :, 1])
    apart = np.abs(ss[:, None] - ss[None, :])
    apart = np.minimum(apart, length - apart)
    need = hh[:, None] + hh[None, :] + CLEARANCE
    bad = (apart > 3.0 * need) & (d < need)
    if bad.any():
        i, j = np.unravel_index(int(np.argmax(np.where(bad, need - d, -np.inf))), d.shape)
        raise ConfigError(f"{where}: track.points bring the track within {d[i, j]:.1f} m of itself near "
                          f"({pp[i, 0]:.0f}, {pp[i, 1]:.0f}) m (s = {ss[i]:.0f} and {ss[j]:.0f} m); expected at least "
                          f"{need[i, j]:.1f} m between the centre lines there (both halves, kerbs and "
                          f"{CLEARANCE:g} m of ground)")


def stretches(mask: np.ndarray, ds: float, length: float) -> tuple[tuple[float, float], ...]:
    """The stations (from, to) (m) of the runs where `mask` (per station, periodic) holds, each grown by
    KERB_LEAD at both ends, overlapping ones merged, short ones left out; a run through the start/finish
    line is split there."""
    lead = int(math.ceil(KERB_LEAD / ds))
    m = np.asarray(mask, dtype=bool)
    grown = m.copy()
    for k in range(1, lead + 1):
        grown |= np.roll(m, k) | np.roll(m, -k)
    out = []
    n = len(grown)
    k = 0
    while k < n:
        if grown[k]:
            j = k
            while j < n and grown[j]:
                j += 1
            if (j - k) * ds >= KERB_MIN:
                out.append((k * ds, min(j * ds, length)))
            k = j
        else:
            k += 1
    return tuple(out)
