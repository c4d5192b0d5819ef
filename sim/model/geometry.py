"""What the parameters say about where things are: the wheel mounts (`wheel_geometry`), the body's collision
points (`hull_points`), the height the car rests at (`rest_com_height`) and the static wheel loads
(`static_loads`). Body frame, relative to the centre of mass, SI units."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.kernel import tables as T
from sim.kernel.suspension import BUMP_STOP_FACTOR
from sim.kernel.units import GRAVITY
from sim.model.params import Vehicle

DRIVEN = {"rwd": (0.0, 0.0, 1.0, 1.0), "fwd": (1.0, 1.0, 0.0, 0.0), "awd": (1.0, 1.0, 1.0, 1.0)}


@dataclass(frozen=True)
class WheelGeometry:
    """Where the four wheels (FL, FR, RL, RR) hang on the body, body frame relative to the centre of mass.

    anchor (4, 3) m: suspension anchor A; axis (4, 3): unit suspension axis d (points down); radius (4,) m;
    camber (4,) rad: the axle's rotation about body x (side-signed: negative camber tilts the top inward);
    steers (4,) bool; driven (4,) bool. The wheel centre is anchor + l axis for the suspension length l."""
    anchor: np.ndarray
    axis: np.ndarray
    radius: np.ndarray
    camber: np.ndarray
    steers: np.ndarray
    driven: np.ndarray


def wheel_geometry(car: Vehicle) -> WheelGeometry:
    ch = car.chassis
    com = np.array([ch.com_x, ch.com_y, ch.com_z])
    anchor = np.zeros((T.NW, 3))
    camber = np.zeros(T.NW)
    radius = np.zeros(T.NW)
    for i in range(T.NW):
        front = i < 2
        left = i % 2 == 0
        axle = car.front_axle if front else car.rear_axle
        sus = car.front_suspension if front else car.rear_suspension
        anchor[i] = np.array([axle.x, axle.half_track if left else -axle.half_track, axle.anchor_z]) - com
        gamma = math.radians(sus.camber_deg)
        camber[i] = -gamma if left else gamma      # the left axle turns by -camber about x, the right by +camber
        radius[i] = (car.front_tire if front else car.rear_tire).radius
    axis = np.tile([0.0, 0.0, -1.0], (T.NW, 1))
    driven = np.array(DRIVEN[car.drive.layout]) > 0.0
    return WheelGeometry(anchor, axis, radius, camber, np.array([True, True, False, False]), driven)


def hull_points(car: Vehicle) -> np.ndarray:
    """The 14 body-collision points (T.NHULL, 3), body frame relative to the centre of mass (m): the floor
    between the axles (so slopes and ramps do not catch the overhangs), bumpers at a third of the body
    height, a narrower roof, and the sides at mid height."""
    ch = car.chassis
    hl, hw = ch.length / 2, ch.width / 2
    z0, z1 = ch.floor_z, ch.floor_z + ch.height
    zb = z0 + ch.height / 3
    xf, xr = car.front_axle.x, car.rear_axle.x
    pts = [(xf, hw, z0), (xf, -hw, z0), (xr, hw, z0), (xr, -hw, z0),
           (hl, hw, zb), (hl, -hw, zb), (-hl, hw, zb), (-hl, -hw, zb),
           (0.6 * hl, 0.9 * hw, z1), (0.6 * hl, -0.9 * hw, z1), (-0.6 * hl, 0.9 * hw, z1), (-0.6 * hl, -0.9 * hw, z1),
           (0.0, hw, (z0 + z1) / 2), (0.0, -hw, (z0 + z1) / 2)]
    assert len(pts) == T.NHULL
    return np.array(pts) - np.array([ch.com_x, ch.com_y, ch.com_z])


def hull_stiffness(car: Vehicle, gravity: float = GRAVITY) -> float:
    """The hull's penalty stiffness per point (N/m) the kernel starts from: collision.stiffness, or if that is
    softer, the stiffness that carries the car's whole weight on two hull points half a wheel radius deep,
    W / r_min (a 4.5 t car on the range's 1e5 N/m stood on its nose 0.26 m into the ground, deeper than its
    0.2 m wheels: the watchdog's sunk body). The step's own hold may still lower it (collision.py held_penalty)."""
    r_min = min(car.front_tire.radius, car.rear_tire.radius)
    return max(car.collision.stiffness, total_mass(car) * gravity / r_min)


def rest_com_height(car: Vehicle) -> float:
    """Height of the centre of mass above flat ground with both axles at their rest length l0 (m):
    a spawn height from which the car settles a few centimetres without a drop."""
    ch = car.chassis
    zs = []
    for axle, sus, tire in ((car.front_axle, car.front_suspension, car.front_tire),
                            (car.rear_axle, car.rear_suspension, car.rear_tire)):
        zs.append(tire.radius + min(sus.l0, sus.l_max) + ch.com_z - axle.anchor_z)
    return max(zs)


def spawn_height(car: Vehicle, x: float, y: float, yaw: float, ground) -> float:
    """The height (m) to place the centre of mass at (x, y), heading yaw (rad), upright, so that no wheel
    hangs below its rest length over the ground under its footprint (a kerb or plateau edge beside the wheel
    included) and no hull point starts inside the ground:
    ground(x, y) gives the height of the highest supporting surface there. On flat ground it is
    rest_com_height; next to a kerb, a ramp or a plateau the car is lifted clear of it (and drops onto it)."""
    c, s = math.cos(yaw), math.sin(yaw)

    def under(p) -> float:
        return ground(x + c * p[0] - s * p[1], y + s * p[0] + c * p[1])

    geometry = wheel_geometry(car)
    z = -math.inf
    for i in range(T.NW):
        sus = car.front_suspension if i < 2 else car.rear_suspension
        r = geometry.radius[i]
        ax, ay = geometry.anchor[i][0], geometry.anchor[i][1]
        # the wheel's centre clears the ground across its footprint: at a horizontal offset d from under the
        # centre, the ground at height g meets the wheel (a sphere of radius r, the disc's bound) where the
        # centre is at g + sqrt(r^2 - d^2) (an edge of a plateau beside the wheel, not only the ground under it)
        for d, bearing in SPAWN_FOOTPRINT:
            dx, dy = d * r * math.cos(bearing), d * r * math.sin(bearing)
            reach = min(sus.l0, sus.l_max) + r * math.sqrt(1.0 - d * d) - geometry.anchor[i][2]   # com above it
            z = max(z, under((ax + dx, ay + dy)) + reach)
    for p in hull_points(car):
        z = max(z, under(p) - p[2] + SPAWN_CLEARANCE)
    return z


SPAWN_CLEARANCE = 0.02      # m: a hull point starts this far above the ground under it at the least
# (share of the wheel radius, bearing rad) of the points around under a wheel's centre where spawn_height looks
# at the ground: the centre, and rings at 0.2, 0.5, 0.8 and 0.97 of the radius
SPAWN_FOOTPRINT = ((0.0, 0.0),) + tuple((d, k * math.pi / 4.0) for d in (0.2, 0.5, 0.8, 0.97) for k in range(8))


def total_mass(car: Vehicle) -> float:
    """The whole car's mass (kg): the chassis (the sprung body) and the four wheels' own unsprung_mass
    (docs/physics.md §7.2; with massless wheels, chassis.mass). The one home of this sum: the drives'
    formulas, the watchdog and the single-track model use it."""
    return car.chassis.mass + 2.0 * (car.front_suspension.unsprung_mass + car.rear_suspension.unsprung_mass)


def static_loads(car: Vehicle, gravity: float = GRAVITY) -> np.ndarray:
    """Per-wheel static load the springs carry (N): the sprung mass's M g b / L / 2 (front) and the rest / 2
    (rear), b from the chassis's centre of mass. With massless wheels also the tires' loads (tire_loads)."""
    m = car.chassis.mass * gravity
    front = m * (car.chassis.com_x - car.rear_axle.x) / car.wheelbase
    return np.array([front / 2, front / 2, (m - front) / 2, (m - front) / 2])


def tire_loads(car: Vehicle, gravity: float = GRAVITY) -> np.ndarray:
    """Per-wheel static load on the ground (N): the springs' (static_loads) and each wheel's own weight."""
    m_u = (car.front_suspension.unsprung_mass,) * 2 + (car.rear_suspension.unsprung_mass,) * 2
    return static_loads(car, gravity) + np.array(m_u) * gravity


def spring_numbers(sus) -> tuple[float, float, float, float, float]:
    """(k N/m, c N s/m, l_min m, stop_k N/m, preload N) of a Suspension as the kernel uses them: AVS' rates in
    N/mm and travel in cm converted, the bump stop 10 k (AVS: its support rate), the preload fgear's only."""
    if sus.model == "avs":
        return (sus.avs_spring_rate * 1000.0, sus.avs_damper_rate * 1000.0,
                max(0.0, min(sus.l0, sus.l_max) - sus.avs_travel_cm / 100.0), sus.avs_support_rate * 1000.0, 0.0)
    return sus.k, sus.c, sus.l_min, BUMP_STOP_FACTOR * sus.k, sus.preload if sus.model == "fgear" else 0.0


def hop_stiffness(sus) -> float:
    """k_s + k_bar + k_t (N/m): what a wheel with its own mass hops on, its spring (AVS's converted), its bar (the
    partner held still) and its tire (docs/physics.md §7.2)."""
    return spring_numbers(sus)[0] + sus.anti_roll + sus.tire_k


def hop_omega(sus) -> float:
    """The wheel's hop (rad/s) on a Suspension with an unsprung mass: sqrt(hop_stiffness / m_u); 0 for a
    massless wheel."""
    if sus.unsprung_mass <= 0.0:
        return 0.0
    return math.sqrt(hop_stiffness(sus) / sus.unsprung_mass)


def static_lengths(car: Vehicle, gravity: float = GRAVITY) -> np.ndarray:
    """Each wheel's suspension length at static ride on flat ground (4,), m: min(l0, l_max) less the static
    compression (static load - preload) / k (§7), held within [l_min, l_max]. The suspension geometry's
    travel (§7.1) is measured from here."""
    loads = static_loads(car, gravity)
    out = np.zeros(T.NW)
    for i in range(T.NW):
        sus = car.front_suspension if i < 2 else car.rear_suspension
        k, _, l_min, _, preload = spring_numbers(sus)
        out[i] = min(max(min(sus.l0, sus.l_max) - max(0.0, loads[i] - preload) / k, l_min), sus.l_max)
    return out


def ride_com_height(car: Vehicle, gravity: float = GRAVITY) -> float:
    """Height of the centre of mass above flat ground at static ride (m): above each axle's contact line
    r + l_static - anchor_z + com_z, taken between the axles at the centre of mass (h_cg of §7.1)."""
    lengths = static_lengths(car, gravity)
    ch = car.chassis
    h_f = car.front_tire.radius + lengths[0] - car.front_axle.anchor_z + ch.com_z
    h_r = car.rear_tire.radius + lengths[2] - car.rear_axle.anchor_z + ch.com_z
    a, b = car.front_axle.x - ch.com_x, ch.com_x - car.rear_axle.x
    return (b * h_f + a * h_r) / (a + b)
