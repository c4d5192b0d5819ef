"""The named features of a world (boxes and heightfields with a name, a circuit's timing lines), for the map,
the labels in the 3D view and the teleport menu: where each lies, its footprint, and a place to start a run at
it (12 m before its near end, facing along it, so the car drives onto it)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.model.world import World

APPROACH = 12.0          # m before a feature's near end where a teleport puts the car


@dataclass(frozen=True)
class Feature:
    name: str
    kind: str                                   # "box", "heightfield" or "line" (a circuit's timing line)
    corners: tuple[tuple[float, float], ...]    # footprint (x, y) m, counter-clockwise
    top: tuple[float, float, float]             # m: the middle of its top, for a label
    approach: tuple[float, float, float]        # x, y (m), yaw (rad): where a teleport puts the car
    color: tuple[float, float, float]


def features(world: World) -> list[Feature]:
    out = []
    colors = {s.name: s.color for s in world.surfaces}
    for b in world.boxes:
        if not b.name or b.owner >= 0:
            continue
        yaw = math.radians(b.yaw_deg)
        ax, ay = math.cos(yaw), math.sin(yaw)
        hx, hy = b.size[0] / 2, b.size[1] / 2
        cx, cy, cz = b.center
        corners = tuple((cx + sx * hx * ax - sy * hy * ay, cy + sx * hx * ay + sy * hy * ax)
                        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)))
        top = (cx, cy, cz + b.size[2] / 2)
        approach = (cx - (hx + APPROACH) * ax, cy - (hx + APPROACH) * ay, yaw)
        out.append(Feature(b.name, "box", corners, top, approach, colors.get(b.surface, (0.5, 0.5, 0.5))))
    for h in world.heightfields:
        if not h.name or (world.track is not None and is_track_layer(h.name)):
            continue
        nx, ny = np.asarray(h.heights).shape
        x0, y0, z0 = h.origin
        x1, y1 = x0 + (nx - 1) * h.spacing[0], y0 + (ny - 1) * h.spacing[1]
        corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
        top = ((x0 + x1) / 2, (y0 + y1) / 2, z0 + float(np.max(h.heights)))
        out.append(Feature(h.name, "heightfield", corners, top, (x0 - APPROACH, (y0 + y1) / 2, 0.0),
                           colors.get(h.surface, (0.5, 0.5, 0.5))))
    if world.track is not None:
        out += track_lines(world)
    return out


def is_track_layer(name: str) -> bool:
    """Whether a heightfield of a circuit world is a layer of its ground (sim/model/track_ground.py)."""
    return name in ("track", "run-off") or name.startswith(("kerb ", "gravel trap "))


def track_lines(world: World) -> list[Feature]:
    """A circuit's start/finish and sector lines as features: a strip across the road and its kerbs, with
    the approach APPROACH metres before it on the centre line, facing along the lap."""
    t = world.track
    out = []
    for k, s in enumerate(t.sectors):
        x, y = float(t.at(s, "x")), float(t.at(s, "y"))
        h = float(t.at(s, "heading"))
        c, sn = math.cos(h), math.sin(h)
        half = float(max(t.at(s, "width_left"), t.at(s, "width_right"))) + t.kerb_width
        corners = tuple((x + a * c - b * sn, y + a * sn + b * c) for a, b in ((-1.5, -half), (1.5, -half),
                                                                              (1.5, half), (-1.5, half)))
        back = s - APPROACH
        approach = (float(t.at(back, "x")), float(t.at(back, "y")), float(t.at(back, "heading")))
        name = "start/finish" if k == 0 else f"sector {k + 1}"
        color = (0.95, 0.95, 0.92) if k == 0 else (0.98, 0.80, 0.15)
        out.append(Feature(name, "line", corners, (x, y, float(t.at(s, "z"))), approach, color))
    return out


def bounds(world: World, feats: list[Feature]) -> tuple[float, float, float, float]:
    """(x_min, y_min, x_max, y_max) m around every feature, spawn and marking, with a margin."""
    xs = [x for f in feats for x, _ in f.corners] + [s[0] for s in world.spawns]
    ys = [y for f in feats for _, y in f.corners] + [s[1] for s in world.spawns]
    if world.track is not None:
        xs += [float(world.track.xy[:, 0].min()), float(world.track.xy[:, 0].max())]
        ys += [float(world.track.xy[:, 1].min()), float(world.track.xy[:, 1].max())]
    for m in world.markings:
        r = m.radius if m.kind == "circle" else 0.0
        xs += [m.center[0] - r, m.center[0] + r]
        ys += [m.center[1] - r, m.center[1] + r]
    if not xs:
        return -50.0, -50.0, 50.0, 50.0
    pad = 10.0
    return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad
