"""The car's body as one low-poly mesh built from its own parameters, and the paint it is drawn in.

The size comes from the vehicle: the body's box is the collision hull's box (chassis length, width,
floor and roof height: sim.model.geometry.hull_points), narrowed where the wheels are so they stay in sight (the wheels
show steer, spin and suspension travel); the wheel arches sit around the wheels where they hang at
rest (axle positions, tire radius, the suspension's static length), so the ride height is the physics'
own. Within that box the shape is a fixed style: a lower body with a sloping bonnet and a cabin whose
windscreen starts just behind the front wheels. The paint is picked from a small palette by a checksum of
the vehicle's name, so every preset keeps its colour without a parameter for it.

Vertices are (position 3, normal 3, colour 3) in the body frame relative to the centre of mass, like
sim.wheel_geometry's anchors, so the body's pose matrix places them.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

import sim

# paints, indexed by crc32(name) % 8 (hatchback -> red, boxster_s -> yellow)
PAINTS = ((0.10, 0.42, 0.22), (0.12, 0.28, 0.66), (0.92, 0.45, 0.10), (0.86, 0.86, 0.84),
          (0.78, 0.16, 0.12), (0.93, 0.74, 0.12), (0.08, 0.55, 0.58), (0.45, 0.22, 0.58))
GLASS = (0.16, 0.20, 0.27)
UNDERSIDE = (0.12, 0.12, 0.13)
HEADLIGHT = (0.95, 0.92, 0.70)
TAILLIGHT = (0.55, 0.04, 0.04)

ARCH_CLEARANCE = 0.05         # m between the tire and its arch
WHEEL_GAP = 0.06              # m: the body's side is this far inside the wheel's centre plane


def paint(name: str) -> tuple[float, float, float]:
    """The preset's colour: stable across runs and machines (crc32, not Python's salted hash)."""
    return PAINTS[zlib.crc32(name.encode("utf-8")) % len(PAINTS)]


def tire_width(radius: float) -> float:
    """Drawn tire width (m). The parameters have no width, so it scales with the radius: 0.72 r is a
    205/60 R15 (0.205 m at r 0.30) or a 225/40 R18 (0.225 m at r 0.32) within a few millimetres."""
    return 0.72 * radius


def shape_key(car: sim.Vehicle) -> tuple:
    """Everything the body mesh is built from: the mesh is rebuilt when and only when this changes."""
    return (car.name, car.chassis, car.front_axle, car.rear_axle, car.front_suspension, car.rear_suspension,
            car.front_tire.radius, car.rear_tire.radius)


def rest_lengths(car: sim.Vehicle) -> tuple[float, float]:
    """Suspension length (m) of the front and the rear axle with the car standing still on level ground:
    l0 less the springs' static load over the spring rate, within the suspension's travel, and the tire's
    static deflection taken off (wheels with a mass, docs/physics.md §7.2: the drawn tire is not squashed, so
    its centre sits that much higher than the physics' wheel and the body rides where the physics has it)."""
    loads, on_ground = sim.static_loads(car), sim.tire_loads(car)
    out = []
    for i, sus in ((0, car.front_suspension), (2, car.rear_suspension)):
        squash = on_ground[i] / sus.tire_k if sus.unsprung_mass > 0.0 else 0.0
        out.append(float(np.clip(sus.l0 - loads[i] / sus.k, sus.l_min, sus.l_max)) - squash)
    return out[0], out[1]


@dataclass(frozen=True)
class CarShape:
    vertices: np.ndarray          # (n, 9) float32: the body mesh, body frame relative to the centre of mass
    tire_width: np.ndarray        # (4,) m, FL FR RL RR
    paint: tuple                  # rgb
    ground_z: float               # m: the level ground under the car at rest, body frame (relative to the COM)


class _Faces:
    """Collects flat polygons as triangles wound counter-clockwise seen from their outward normal (the
    scene's shader lights the back of a face as its front, so the winding must agree with the normal)."""

    def __init__(self):
        self.rows: list[list[float]] = []

    def add(self, corners, outward, color) -> None:
        pts = [np.asarray(c, float) for c in corners]
        n = np.asarray(outward, float)
        for k in range(1, len(pts) - 1):
            a, b, c = pts[0], pts[k], pts[k + 1]
            g = np.cross(b - a, c - a)
            area = float(np.linalg.norm(g))
            if area < 1e-10:
                continue                              # a sliver (a vertical step between two stations)
            if g @ n < 0:
                b, c = c, b
            nn = n / max(float(np.linalg.norm(n)), 1e-12)
            for p in (a, b, c):
                self.rows.append([*p, *nn, *color])

    def array(self) -> np.ndarray:
        return np.array(self.rows, dtype="f4").reshape(-1, 9)


def build(car: sim.Vehicle) -> CarShape:
    """The body mesh of `car` (see the module's docstring for what sets which part)."""
    ch = car.chassis
    color = paint(car.name)
    hl = ch.length / 2
    z0, h = ch.floor_z, ch.height
    z1 = z0 + h
    xf, xr = car.front_axle.x, car.rear_axle.x
    wb = max(xf - xr, 1e-3)
    l_front, l_rear = rest_lengths(car)
    rf, rr = car.front_tire.radius, car.rear_tire.radius
    # the wheels at rest (reference frame: centre line, midway between the axles, anchor height)
    axles = ((xf, car.front_axle.anchor_z - l_front, rf + ARCH_CLEARANCE),
             (xr, car.rear_axle.anchor_z - l_rear, rr + ARCH_CLEARANCE))
    # half widths at the front and the rear axle: the hull's, or inside the wheels' centre planes
    w_front = max(0.05, min(ch.width / 2, car.front_axle.half_track - WHEEL_GAP))
    w_rear = max(0.05, min(ch.width / 2, car.rear_axle.half_track - WHEEL_GAP))

    def half_width(x):
        return np.interp(x, (xr, xf), (w_rear, w_front)) if xf > xr else w_front

    belt = z0 + 0.58 * h                                    # top of the doors
    screen_base = float(np.clip(xf - 0.12 * wb, -hl + 0.2, hl - 0.1))
    top_x = (-hl, min(-hl + 0.1, screen_base), screen_base, hl)
    top_z = (belt - 0.04 * h, belt, belt, belt - 0.15 * h)   # a flat deck behind, a bonnet falling to the nose

    def top(x):
        return float(np.interp(x, top_x, top_z))

    def bottom(x):
        b = z0
        for xa, ra, sign in ((axles[0][0], axles[0][2], 1.0), (axles[1][0], axles[1][2], -1.0)):
            start = xa + sign * ra                          # bumpers lift towards the ends
            if sign * (x - start) > 0 and hl - sign * start > 1e-6:
                b = z0 + 0.1 * h * sign * (x - start) / (hl - sign * start)
        for xa, za, ra in axles:
            dx = x - xa
            if abs(dx) < ra:
                b = max(b, za + math.sqrt(ra * ra - dx * dx))
        return min(b, top(x) - 0.03)

    stations = [-hl, hl, *top_x]
    for xa, _, ra in axles:
        stations += [xa - ra, xa - ra + 1e-4, xa + ra - 1e-4, xa + ra]
        stations += list(xa + ra * np.cos(np.linspace(math.pi, 0.0, 13)))
    xs = np.unique(np.clip(stations, -hl, hl))
    bs = np.array([bottom(x) for x in xs])
    ts = np.array([top(x) for x in xs])
    ws = np.array([half_width(x) for x in xs])

    f = _Faces()
    for i in range(len(xs) - 1):
        x0, x1 = xs[i], xs[i + 1]
        for side in (1.0, -1.0):                            # the two sides
            y0, y1 = side * ws[i], side * ws[i + 1]
            f.add([(x0, y0, bs[i]), (x1, y1, bs[i + 1]), (x1, y1, ts[i + 1]), (x0, y0, ts[i])], (0, side, 0), color)
        dx, dt, db = x1 - x0, ts[i + 1] - ts[i], bs[i + 1] - bs[i]
        f.add([(x0, -ws[i], ts[i]), (x1, -ws[i + 1], ts[i + 1]), (x1, ws[i + 1], ts[i + 1]), (x0, ws[i], ts[i])],
              (-dt, 0, dx), color)
        f.add([(x0, -ws[i], bs[i]), (x1, -ws[i + 1], bs[i + 1]), (x1, ws[i + 1], bs[i + 1]), (x0, ws[i], bs[i])],
              (db, 0, -dx), UNDERSIDE)
    for x, b, t, w, sign in ((xs[-1], bs[-1], ts[-1], ws[-1], 1.0), (xs[0], bs[0], ts[0], ws[0], -1.0)):
        f.add([(x, -w, b), (x, w, b), (x, w, t), (x, -w, t)], (sign, 0, 0), color)       # nose and tail
        lamp = HEADLIGHT if sign > 0 else TAILLIGHT
        lz0, lz1 = max(b + 0.02, t - 0.13), t - 0.03
        for s in (1.0, -1.0):                               # lamps 2 mm proud of the face
            f.add([(x + sign * 0.002, s * 0.45 * w, lz0), (x + sign * 0.002, s * 0.88 * w, lz0),
                   (x + sign * 0.002, s * 0.88 * w, lz1), (x + sign * 0.002, s * 0.45 * w, lz1)],
                  (sign, 0, 0), lamp)

    # the cabin: a frustum from the doors' top to the roof (the hull's roof height)
    rear_overhang = max(hl + xr, 0.0)
    base_f, base_r = screen_base, max(-hl + 0.05, xr - 0.5 * rear_overhang)
    roof_f = base_f - 1.1 * (z1 - belt)
    roof_r = min(xr + 0.1 * wb, roof_f - 0.2)
    if roof_r < base_r + 0.05:                              # a short car: keep the roof over the base
        roof_r = base_r + 0.05
        roof_f = max(roof_f, roof_r + 0.2)
    bw_f, bw_r = 0.94 * half_width(base_f), 0.94 * half_width(base_r)
    tw_f, tw_r = 0.80 * half_width(roof_f), 0.80 * half_width(roof_r)
    lo = [(base_r, -bw_r, belt), (base_f, -bw_f, belt), (base_f, bw_f, belt), (base_r, bw_r, belt)]
    hi = [(roof_r, -tw_r, z1), (roof_f, -tw_f, z1), (roof_f, tw_f, z1), (roof_r, tw_r, z1)]
    f.add(hi, (0, 0, 1), color)                                                    # roof
    f.add([lo[1], lo[2], hi[2], hi[1]], (z1 - belt, 0, base_f - roof_f), GLASS)    # windscreen
    f.add([lo[3], lo[0], hi[0], hi[3]], (-(z1 - belt), 0, roof_r - base_r), GLASS)  # rear window
    f.add([lo[2], lo[3], hi[3], hi[2]], (0, 1, 0.3), GLASS)                        # side windows
    f.add([lo[0], lo[1], hi[1], hi[0]], (0, -1, 0.3), GLASS)

    com = np.array([ch.com_x, ch.com_y, ch.com_z])
    vertices = f.array()
    vertices[:, :3] -= com.astype("f4")
    widths = np.array([tire_width(rf)] * 2 + [tire_width(rr)] * 2)
    ground = min(za - ra + ARCH_CLEARANCE for _, za, ra in axles) - ch.com_z
    return CarShape(vertices, widths, color, float(ground))


def drawn_extents(car: sim.Vehicle, shape: CarShape | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) corner of the box around the body and the four wheels at rest, body frame
    relative to the centre of mass (m)."""
    shape = shape or build(car)
    g = sim.wheel_geometry(car)
    l_front, l_rear = rest_lengths(car)
    pts = [shape.vertices[:, :3].astype(float)]
    for i in range(4):
        c = g.anchor[i] + g.axis[i] * (l_front if i < 2 else l_rear)
        r, w = g.radius[i], shape.tire_width[i]
        pts.append(np.array([c + (sx * r, sy * w / 2, sz * r) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]))
    allp = np.concatenate(pts)
    return allp.min(axis=0), allp.max(axis=0)
