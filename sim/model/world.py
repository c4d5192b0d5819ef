"""The static and kinematic ground: planes, oriented boxes, heightfields and moving platforms.

A `World` is built once (from TOML or in code) and packed into the float64 tables that the query kernels
read (`sim/kernel/shapes.py` documents the columns). Every shape names a surface (material) with a friction
coefficient mu; markings (the skidpad circle) are for drawing only.

World frame: z up, metres. Angles in TOML are degrees (labelled `_deg`); inside everything is radians.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from config import CONFIG_DIR
from sim.kernel import shapes as S
from sim.kernel.contact import A_MIN
from sim.kernel.query import HF_SKIN
from sim.kernel.query import QUERY_KINDS
from sim.kernel.query import cast
from sim.kernel.units import GRAVITY
from sim.kernel.vec import quat_from_rotvec
from sim.kernel.vec import quat_mul
from sim.model.files import ConfigError
from sim.model.files import build
from sim.model.files import known_keys
from sim.model.files import number
from sim.model.files import read_toml
from sim.model.files import required
from sim.model.files import resolve_preset
from sim.model.files import show
from sim.model.files import string
from sim.model.files import table
from sim.model.files import tables
from sim.model.files import vector

WORLD_DIR = CONFIG_DIR / "worlds"

DEFAULT_COLORS = {
    "asphalt": (0.30, 0.31, 0.33), "concrete": (0.55, 0.55, 0.53), "ice": (0.78, 0.90, 0.97),
    "grass": (0.30, 0.50, 0.22), "curb": (0.80, 0.20, 0.18), "steel": (0.45, 0.47, 0.52),
    "gravel": (0.62, 0.56, 0.45),
}

GRAVITY_MAX = 30.0          # m/s^2: from weightless to three times the Earth's (a world past it is no test track)
PLATFORM_SPEED_MAX = 30.0   # m/s: the fastest a moving box's surface may move anywhere
STANDABLE_DEG = 45.0        # deg: the steepest ground plane (the steepest roads are under 20)



@dataclass(frozen=True)
class Surface:
    name: str
    mu: float                                   # friction coefficient, 0..3
    color: tuple[float, float, float] = (0.5, 0.5, 0.5)
    rolling: float = 0.0                        # rolling resistance coefficient added to the tire's own


@dataclass(frozen=True)
class Plane:
    surface: str
    point: tuple[float, float, float] = (0.0, 0.0, 0.0)   # m
    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)  # unit, facing up out of the ground
    name: str = ""


@dataclass(frozen=True)
class Box:
    """An oriented box. Kinematic when it has a velocity, an angular velocity or an oscillation."""
    surface: str
    center: tuple[float, float, float]                     # m, at t = 0
    size: tuple[float, float, float]                       # full edge lengths, m
    yaw_deg: float = 0.0                                   # about world z
    slope_deg: float = 0.0                                 # top face rises toward the box's own +x
    roll_deg: float = 0.0                                  # about the box's own x
    angular_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)  # rad/s, world, about the centre
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)          # m/s, constant drift
    oscillation: tuple[float, float, float] = (0.0, 0.0, 0.0)       # m, amplitude of a sine motion
    period: float = 0.0                                    # s, of the oscillation (0 = none)
    name: str = ""
    owner: int = -1                                        # vehicle index whose own shape this is

    @property
    def kinematic(self) -> bool:
        return any(self.angular_velocity) or any(self.velocity) or (self.period > 0 and any(self.oscillation))

    def orientation(self) -> tuple[float, float, float, float]:
        """(w, x, y, z) of Rz(yaw) Ry(-slope) Rx(roll)."""
        q = quat_from_rotvec((0.0, 0.0, math.radians(self.yaw_deg)))
        q = quat_mul(q, quat_from_rotvec((0.0, -math.radians(self.slope_deg), 0.0)))
        return quat_mul(q, quat_from_rotvec((math.radians(self.roll_deg), 0.0, 0.0)))


@dataclass(frozen=True)
class Heightfield:
    """Heights on a regular grid; x index first. Height at a grid point = origin z + heights[i][j]."""
    surface: str
    origin: tuple[float, float, float]                     # m, corner of the grid (x, y) and base height
    spacing: tuple[float, float]                           # m between grid points in x and y
    heights: np.ndarray = field(repr=False, compare=False, default=None)  # (nx, ny) m
    name: str = ""
    drawn: bool = True          # False: a layer of a circuit's ground, drawn from its Track (render/track.py)


@dataclass(frozen=True)
class Marking:
    """Paint on the ground, for drawing only."""
    kind: str                                              # "circle" or "line"
    center: tuple[float, float] = (0.0, 0.0)               # m
    radius: float = 0.0                                    # m (circle)
    end: tuple[float, float] = (0.0, 0.0)                  # m (line: from center to end)
    width: float = 0.2                                     # m
    color: tuple[float, float, float] = (0.95, 0.95, 0.9)


class Hit(NamedTuple):
    hit: bool
    s: float            # m along d from the anchor to the contact plane
    P: np.ndarray       # world point where the axis meets the contact plane
    n: np.ndarray       # unit normal facing the wheel
    mu: float           # surface friction coefficient
    v_ground: np.ndarray  # surface velocity at the contact, m/s
    surface: int        # material index (-1 none)
    shape: int          # shape id (-1 none)


STEP_RULE = (f"neighbouring points may differ by at most {HF_SKIN:g} m (the body's collision takes a point deeper "
             f"than that under the surface for under an overhang, not inside the ground: a taller step is a wall, "
             f"build it from a box)")


def largest_step(z: np.ndarray) -> tuple[float, tuple[int, int]]:
    """The largest height difference (m) between neighbouring points of a heightfield's grid z, and the
    index of the higher-indexed point of that pair."""
    dx = np.abs(np.diff(z, axis=0))
    dy = np.abs(np.diff(z, axis=1))
    if dx.max() >= dy.max():
        r, c = np.unravel_index(int(np.argmax(dx)), dx.shape)
        return float(dx[r, c]), (int(r) + 1, int(c))
    r, c = np.unravel_index(int(np.argmax(dy)), dy.shape)
    return float(dy[r, c]), (int(r), int(c) + 1)


class World:
    """Ground geometry plus its packed tables for the kernels. `World.from_dict(table, where)` builds one
    from a TOML-shaped table (what a world file holds), with the loader's checks."""

    GRAVITY_MAX = GRAVITY_MAX

    def __init__(self, name: str, surfaces: list[Surface], planes=(), boxes=(), heightfields=(),
                 markings=(), gravity: float = GRAVITY, spawns=((0.0, 0.0, 0.0),), track=None):
        self.name = name
        self.track = track                     # sim.model.track.Track of a circuit (its ground is in the fields)
        self.surfaces = list(surfaces)
        self.planes = list(planes)
        self.boxes = list(boxes)
        self.heightfields = list(heightfields)
        self.markings = list(markings)
        self.gravity = float(gravity)          # m/s^2, along -z
        self.spawns = [tuple(map(float, s)) for s in spawns]   # (x, y, yaw_deg) where R puts the car
        self.surface_index = {s.name: i for i, s in enumerate(self.surfaces)}
        for kind, shapes in (("plane", self.planes), ("box", self.boxes), ("heightfield", self.heightfields)):
            for i, shape in enumerate(shapes):
                if shape.surface not in self.surface_index:
                    raise ValueError(f"world {name!r}: {kind}[{i}].surface = {shape.surface!r} is not one of its "
                                     f"surfaces {', '.join(map(repr, self.surface_index))}")
        self.pack()

    @property
    def shape_names(self) -> list[str]:
        """Each shape's name by its id (telemetry's per-wheel `shape`, `Hit.shape`): the planes, then the
        boxes, then the heightfields, in the order given; a shape without a name is called by its kind and
        place, e.g. "plane[0]", "box[2]"."""
        return [shape.name or f"{kind}[{i}]"
                for kind, shapes in (("plane", self.planes), ("box", self.boxes), ("heightfield", self.heightfields))
                for i, shape in enumerate(shapes)]

    def shape_name(self, shape_id) -> str:
        """The name of the shape with this id (see shape_names); "" for -1 (no contact: airborne)."""
        names = self.shape_names
        if isinstance(shape_id, bool) or not float(shape_id).is_integer() or not -1 <= shape_id < len(names):
            raise ValueError(f"shape id {shape_id!r} is not allowed; expected -1 (none) or a whole number in "
                             f"[0, {len(names) - 1}]")
        return "" if shape_id == -1 else names[int(shape_id)]

    # -- construction helpers ----------------------------------------------------------------------
    @classmethod
    def flat(cls, mu: float = 1.0, slope_deg: float = 0.0, surface: str = "asphalt",
             rolling: float = 0.0) -> World:
        """An infinite plane through the origin; with a slope it rises toward +x. `rolling`: the surface's
        rolling resistance coefficient on top of the tires' own."""
        th = math.radians(slope_deg)
        color = DEFAULT_COLORS.get(surface, (0.5, 0.5, 0.5))
        name = f"flat({mu:g}, {slope_deg:g} deg" + (f", rolling {rolling:g})" if rolling else ")")
        return cls(name, [Surface(surface, float(mu), color, float(rolling))],
                   planes=[Plane(surface, (0.0, 0.0, 0.0), (-math.sin(th), 0.0, math.cos(th)))])

    def pack(self) -> None:
        """Build the float64 tables the kernels read."""
        sid = 0
        # per surface: friction coefficient, extra rolling resistance coefficient
        mu = np.array([(s.mu, s.rolling) for s in self.surfaces], dtype=np.float64).reshape(-1, 2)
        self.surf_mu = mu if len(mu) else np.zeros((1, 2))
        pl = np.zeros((len(self.planes), S.PL_N))
        for i, p in enumerate(self.planes):
            n = np.asarray(p.normal, float)
            n = n / np.linalg.norm(n)
            pl[i, S.PL_PX:S.PL_PZ + 1] = p.point
            pl[i, S.PL_NX:S.PL_NZ + 1] = n
            pl[i, S.PL_SURF] = self.surface_index[p.surface]
            pl[i, S.PL_ID] = sid
            sid += 1
        bx = np.zeros((len(self.boxes), S.BX_N))
        for i, b in enumerate(self.boxes):
            bx[i, S.BX_CX:S.BX_CZ + 1] = b.center
            bx[i, S.BX_QW:S.BX_QZ + 1] = b.orientation()
            bx[i, S.BX_HX:S.BX_HZ + 1] = np.asarray(b.size, float) / 2.0
            bx[i, S.BX_SURF] = self.surface_index[b.surface]
            bx[i, S.BX_ID] = sid
            bx[i, S.BX_OWNER] = b.owner
            bx[i, S.BX_WX:S.BX_WZ + 1] = b.angular_velocity
            bx[i, S.BX_VX:S.BX_VZ + 1] = b.velocity
            bx[i, S.BX_AX:S.BX_AZ + 1] = b.oscillation
            bx[i, S.BX_PERIOD] = b.period
            bx[i, S.BX_BOUND] = 0.5 * float(np.linalg.norm(b.size))
            sid += 1
        hm = np.zeros((len(self.heightfields), S.HF_N))
        zs = []
        off = 0
        for i, field_ in enumerate(self.heightfields):
            z = np.asarray(field_.heights, dtype=np.float64)
            hm[i, S.HF_OX:S.HF_OZ + 1] = field_.origin
            hm[i, S.HF_DX] = field_.spacing[0]
            hm[i, S.HF_DY] = field_.spacing[1]
            hm[i, S.HF_NX] = z.shape[0]
            hm[i, S.HF_NY] = z.shape[1]
            hm[i, S.HF_OFF] = off
            hm[i, S.HF_SURF] = self.surface_index[field_.surface]
            hm[i, S.HF_ID] = sid
            zs.append(z.ravel())
            off += z.size
            sid += 1
        self.plane_table = pl
        self.box_table = bx
        self.hf_table = hm
        self.hf_z = np.concatenate(zs) if zs else np.zeros(1)

    def tables(self):
        """(planes, boxes, hf_meta, hf_z, surf_mu) for the kernels."""
        return self.plane_table, self.box_table, self.hf_table, self.hf_z, self.surf_mu

    # -- queries from Python (tests, tools); the kernels call sim.kernel.query.cast directly --------------
    def query(self, kind: str, anchor, d, r: float = 0.0, l_max: float = 1.0, a_min: float = A_MIN,
              t: float = 0.0, vehicle: int = -2) -> Hit:
        """Cast along the suspension axis: kind 'ray', 'sphere' or 'disc' (disc shares the sphere's
        contact plane; its own support radius is applied by the contact chain)."""
        k = QUERY_KINDS[kind]
        a = tuple(float(x) for x in anchor)
        dd = np.asarray(d, float)
        dd = tuple(dd / np.linalg.norm(dd))
        hit, s, p, n, surf, shape, vg = cast(self.plane_table, self.box_table, self.hf_table, self.hf_z,
                                               k, a, dd, float(r), float(l_max), float(a_min), float(t),
                                               int(vehicle), S.ALL_SHAPES, S.ALL_SHAPES)
        mu = float(self.surf_mu[surf, 0]) if hit else 0.0
        return Hit(bool(hit), float(s), np.array(p), np.array(n), mu, np.array(vg), int(surf), int(shape))

    def ray_cast(self, anchor, d, max_s: float, t: float = 0.0) -> Hit:
        """Nearest surface hit by the ray within max_s (any surface facing the ray)."""
        return self.query("ray", anchor, d, r=0.0, l_max=max_s, a_min=1e-6, t=t)

    def sphere_cast(self, anchor, d, r: float, l_max: float, t: float = 0.0) -> Hit:
        return self.query("sphere", anchor, d, r=r, l_max=l_max, a_min=1e-6, t=t)

    def disc_cast(self, anchor, d, r: float, l_max: float, t: float = 0.0) -> Hit:
        return self.query("disc", anchor, d, r=r, l_max=l_max, a_min=1e-6, t=t)

    def box_pose(self, i: int, t: float):
        """Centre (3,), orientation (w, x, y, z) and centre velocity of box i at time t (for drawing)."""
        c, q, v = S.box_pose(self.box_table, i, float(t))
        return np.array(c), np.array(q), np.array(v)


# ----------------------------------------------------------------------------------------------------
# TOML

def _surface(where, key, value, surfaces):
    if value not in surfaces:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected one of the surfaces "
                          f"{', '.join(repr(s) for s in surfaces)}")
    return value


def bumps(size_x: float, size_y: float, spacing: float, height: float, wavelength: float) -> np.ndarray:
    """Smooth mounds: h = height * s(x) s(y), s(u) = (1 - cos(2 pi u / wavelength)) / 2, zero at edges."""
    nx = int(round(size_x / spacing)) + 1
    ny = int(round(size_y / spacing)) + 1
    x = np.arange(nx) * spacing
    y = np.arange(ny) * spacing
    sx = 0.5 - 0.5 * np.cos(2 * np.pi * x / wavelength)
    sy = 0.5 - 0.5 * np.cos(2 * np.pi * y / wavelength)
    return height * np.outer(sx, sy)


MAX_HEIGHTFIELD_POINTS = 4_000_000      # grid points over all heightfields of a world (32 MB of heights)
WORLD_KEYS = ("name", "gravity", "surfaces", "plane", "box", "heightfield", "marking", "spawn", "track")




def world_from_dict(data: dict, where: str) -> World:
    """Build a World from a TOML-shaped dict. name, gravity, [surfaces] and spawn are required (a file cut
    short is an error, not a silent default), and so is at least one plane, box or heightfield."""
    table(where, "the file", data)
    known_keys(where, "world", data, WORLD_KEYS)
    required(where, data, ("surfaces",), "the world")
    name = string(where, "name", data.get("name", Path(where).stem))
    gravity = number(where, "gravity", data.get("gravity", GRAVITY), 0.0, GRAVITY_MAX, "m/s^2")
    surfaces = []
    surface_tables = table(where, "surfaces", data["surfaces"])
    if not surface_tables:
        raise ConfigError(f"{where}: [surfaces] is empty; expected at least one surface, e.g. asphalt = {{ mu = 1.0 }}")
    for sname, st in surface_tables.items():
        key = f"surfaces.{sname}"
        table(where, key, st)
        known_keys(where, key, st, ("mu", "color", "rolling"))
        required(where, st, ("mu",), key)
        mu = number(where, f"{key}.mu", st["mu"], 0.0, 3.0)
        color = vector(where, f"{key}.color", st["color"], 3, 0.0, 1.0) if "color" in st \
            else DEFAULT_COLORS.get(sname, (0.5, 0.5, 0.5))
        rolling = number(where, f"{key}.rolling", st["rolling"], 0.0, 1.0) if "rolling" in st else 0.0
        surfaces.append(Surface(sname, mu, color, rolling))
    names = [s.name for s in surfaces]
    planes = []
    for i, p in enumerate(tables(where, "plane", data.get("plane", []))):
        key = f"plane[{i}]"
        known_keys(where, key, p, ("surface", "point", "normal", "slope_deg", "name"))
        surf = _surface(where, f"{key}.surface", p.get("surface", names[0]), names)
        point = vector(where, f"{key}.point", p.get("point", [0, 0, 0]), 3)
        if "normal" in p:
            normal = vector(where, f"{key}.normal", p["normal"], 3)
            if np.linalg.norm(normal) == 0 or normal[2] <= 0:
                raise ConfigError(f"{where}: {key}.normal = {list(normal)} is not allowed; expected a "
                                  f"non-zero vector with positive z (the ground faces up)")
        else:
            th = math.radians(number(where, f"{key}.slope_deg", p.get("slope_deg", 0.0), -80.0, 80.0, "deg"))
            normal = (-math.sin(th), 0.0, math.cos(th))
        check_standable(where, key, normal, surf, surfaces)
        planes.append(Plane(surf, point, normal, string(where, f"{key}.name", p["name"]) if "name" in p else ""))
    boxes = []
    box_keys = ("surface", "center", "size", "yaw_deg", "slope_deg", "roll_deg", "angular_velocity", "velocity",
                "oscillation", "period", "name")
    for i, b in enumerate(tables(where, "box", data.get("box", []))):
        key = f"box[{i}]"
        known_keys(where, key, b, box_keys)
        required(where, b, ("center", "size"), key)
        boxes.append(Box(
            surface=_surface(where, f"{key}.surface", b.get("surface", names[0]), names),
            center=vector(where, f"{key}.center", b["center"], 3),
            size=vector(where, f"{key}.size", b["size"], 3, 1e-3, 1e4),
            yaw_deg=number(where, f"{key}.yaw_deg", b.get("yaw_deg", 0.0), -360.0, 360.0, "deg"),
            slope_deg=number(where, f"{key}.slope_deg", b.get("slope_deg", 0.0), -89.0, 89.0, "deg"),
            roll_deg=number(where, f"{key}.roll_deg", b.get("roll_deg", 0.0), -89.0, 89.0, "deg"),
            angular_velocity=vector(where, f"{key}.angular_velocity", b.get("angular_velocity", [0, 0, 0]), 3,
                                    -20.0, 20.0),
            velocity=vector(where, f"{key}.velocity", b.get("velocity", [0, 0, 0]), 3, -100.0, 100.0),
            oscillation=vector(where, f"{key}.oscillation", b.get("oscillation", [0, 0, 0]), 3, -100.0, 100.0),
            period=number(where, f"{key}.period", b.get("period", 0.0), 0.0, 1e4, "s"),
            name=string(where, f"{key}.name", b["name"]) if "name" in b else ""))
        check_platform_speed(where, key, boxes[-1])
    fields_ = []
    points = 0
    for i, h in enumerate(tables(where, "heightfield", data.get("heightfield", []))):
        key = f"heightfield[{i}]"
        known_keys(where, key, h, ("surface", "origin", "size", "spacing", "bump_height", "bump_wavelength",
                                   "heights", "name"))
        origin = vector(where, f"{key}.origin", h.get("origin", [0, 0, 0]), 3)
        spacing = number(where, f"{key}.spacing", h.get("spacing", 0.1), 0.01, 10.0, "m")
        if "heights" in h:
            rows = h["heights"]
            if not isinstance(rows, list) or len(rows) < 2 or not all(
                    isinstance(r, list) and len(r) == len(rows[0]) >= 2 for r in rows):
                raise ConfigError(f"{where}: {key}.heights is not allowed; expected at least 2 rows of at least 2 "
                                  f"numbers each, all rows the same length (m)")
            points += len(rows) * len(rows[0])
            if points > MAX_HEIGHTFIELD_POINTS:
                raise _too_many_points(where, key)
            z = np.array([[number(where, f"{key}.heights[{r}][{c}]", x, -1e4, 1e4, "m") for c, x in enumerate(row)]
                          for r, row in enumerate(rows)])
            step, (r, c) = largest_step(z)
            if step > HF_SKIN:
                raise ConfigError(f"{where}: {key}.heights[{r}][{c}] = {show(float(z[r, c]))} is {step:.3g} m from "
                                  f"its neighbour; {STEP_RULE}")
        else:
            size = vector(where, f"{key}.size", h.get("size", [10, 10]), 2, spacing, 1e4)
            points += (int(round(size[0] / spacing)) + 1) * (int(round(size[1] / spacing)) + 1)
            if points > MAX_HEIGHTFIELD_POINTS:
                raise _too_many_points(where, key)
            height = number(where, f"{key}.bump_height", h.get("bump_height", 0.05), -5.0, 5.0, "m")
            wavelength = number(where, f"{key}.bump_wavelength", h.get("bump_wavelength", 2.0), 0.1, 1e3, "m")
            z = bumps(size[0], size[1], spacing, height, wavelength)
            step, _ = largest_step(z)
            if step > HF_SKIN:
                raise ConfigError(f"{where}: {key}.bump_height = {show(height)} (m) at bump_wavelength = "
                                  f"{show(wavelength)} and spacing = {show(spacing)} puts neighbouring points "
                                  f"{step:.3g} m apart in height; {STEP_RULE}")
        fields_.append(Heightfield(_surface(where, f"{key}.surface", h.get("surface", names[0]), names), origin,
                                   (spacing, spacing), z, string(where, f"{key}.name", h["name"]) if "name" in h
                                   else ""))
    markings = []
    for i, m in enumerate(tables(where, "marking", data.get("marking", []))):
        key = f"marking[{i}]"
        known_keys(where, key, m, ("kind", "center", "radius", "end", "width", "color"))
        kind = m.get("kind", "circle")
        if kind not in ("circle", "line"):
            raise ConfigError(f"{where}: {key}.kind = {show(kind)} is not allowed; expected 'circle' or 'line'")
        markings.append(Marking(kind, vector(where, f"{key}.center", m.get("center", [0, 0]), 2),
                                number(where, f"{key}.radius", m.get("radius", 0.0), 0.0, 1e4, "m"),
                                vector(where, f"{key}.end", m.get("end", [0, 0]), 2),
                                number(where, f"{key}.width", m.get("width", 0.2), 0.01, 10.0, "m"),
                                vector(where, f"{key}.color", m.get("color", [0.95, 0.95, 0.9]), 3, 0.0, 1.0)))
    track = None
    if "track" in data:                       # a circuit: its ground in layers (sim/model/track_ground.py)
        from sim.model.track_ground import circuit_ground
        track, layers, rim = circuit_ground(where, data["track"], [s.name for s in surfaces])
        points += sum(h.size for *_, h, _ in layers)
        if points > MAX_HEIGHTFIELD_POINTS:
            raise ConfigError(f"{where}: the track's ground needs {points} grid points with the heightfields; at "
                              f"most {MAX_HEIGHTFIELD_POINTS} are allowed; expected a coarser track.spacing or a "
                              f"smaller track.margin")
        fields_ += [Heightfield(surf, origin, (step, step), h, name, drawn)
                    for name, surf, origin, step, h, drawn in layers]
        planes.append(Plane(track.surfaces["runoff"], (0.0, 0.0, rim), name="rim"))
    # checked last, so that a wrong entry is named before a missing one
    required(where, data, ("name", "gravity", "spawn"), "the world")
    if not (planes or boxes or fields_):
        raise ConfigError(f"{where}: the world has no ground; expected at least one [[plane]], [[box]] or "
                          f"[[heightfield]]")
    spawn = data["spawn"]
    if not isinstance(spawn, list) or not spawn:
        raise ConfigError(f"{where}: spawn = {show(spawn)} is not allowed; expected a list of [x, y, yaw_deg] "
                          f"places, at least one")
    spawns = [vector(where, f"spawn[{i}]", s, 3) for i, s in enumerate(spawn)]
    if track is not None:
        from sim.model.track_ground import track_spawns
        spawns += track_spawns(track)
    return World(name, surfaces, planes, boxes, fields_, markings, gravity, spawns, track)



def check_platform_speed(where: str, key: str, box: Box) -> None:
    """A moving box's surface may move at most PLATFORM_SPEED_MAX anywhere: its velocity, plus its spin times
    its half-diagonal, plus its oscillation's peak speed (amplitude x 2 pi / period). A faster platform hits
    a car harder than the hull's penalty contact can take (docs/physics.md §10)."""
    v = float(np.linalg.norm(box.velocity))
    v += float(np.linalg.norm(box.angular_velocity)) * 0.5 * float(np.linalg.norm(box.size))
    if box.period > 0.0:
        v += float(np.linalg.norm(box.oscillation)) * 2.0 * math.pi / box.period
    if v > PLATFORM_SPEED_MAX:
        raise ConfigError(f"{where}: {key} moves its surface at up to {v:.0f} m/s (velocity, spin x half-diagonal, "
                          f"oscillation); at most {PLATFORM_SPEED_MAX:g} m/s is allowed")


def check_standable(where: str, key: str, normal, surface: str, surfaces: list[Surface]) -> None:
    """A ground plane must be one a car can stand on: tan(slope) at most the surface's mu (a tire of grip 1)
    and no steeper than STANDABLE_DEG whatever the friction; a steeper plane (a wall laid as ground, a
    normal almost horizontal) is refused, naming the file, the key and the steepest slope allowed there.
    (On steeper ground every car slides and tumbles down to crash at speeds no test track has.)"""
    n = np.asarray(normal, float)
    slope = math.degrees(math.acos(min(1.0, n[2] / np.linalg.norm(n))))
    mu = next(s.mu for s in surfaces if s.name == surface)
    steepest = min(STANDABLE_DEG, math.degrees(math.atan(mu)))
    if slope > steepest + 1e-9:
        raise ConfigError(f"{where}: {key} is sloped {slope:.1f} deg, steeper than a car can stand on: on "
                          f"{surface} (mu {mu:g}) a tire holds at most {steepest:.1f} deg (and no ground may be "
                          f"steeper than {STANDABLE_DEG:g} deg); expected a flatter plane (a wall is a [[box]])")


def _too_many_points(where: str, key: str) -> ConfigError:
    return ConfigError(f"{where}: {key} makes the heightfields larger than {MAX_HEIGHTFIELD_POINTS} grid points "
                       f"in all; expected a coarser spacing or a smaller size")


def load_world(name_or_path: str | os.PathLike = "proving_ground") -> World:
    """A preset from config/worlds ('flat', 'proving_ground') or a path to a TOML file."""
    path = resolve_preset(name_or_path, WORLD_DIR, "world")
    data = read_toml(path, "world")
    return build(path, "world", lambda: world_from_dict(data, str(path)))


World.from_dict = staticmethod(world_from_dict)
