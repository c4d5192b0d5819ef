"""The suspension geometry's numbers (docs/physics.md §7.1): what a Suspension's roll centre, anti percentages
and camber and toe curves mean per wheel, as the kernel uses them (`link_numbers`, packed by sim/model/pack.py
into the WP_GEO .. WP_PATH_REACH columns), and the curves themselves (`camber_toe`, `path_offset`), for tests
and people. Body frame, SI units; the travel z = l_static - l is positive in bump."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.kernel.linkage import CAMBER_LIMIT
from sim.kernel.linkage import TOE_LIMIT
from sim.kernel.linkage import held
from sim.kernel.linkage import line_travel
from sim.kernel.units import GRAVITY
from sim.model.geometry import ride_com_height
from sim.model.geometry import static_lengths
from sim.model.params import Suspension
from sim.model.params import Vehicle

GEOMETRY_FIELDS = ("roll_centre", "roll_centre_slope", "anti_brake", "anti_drive", "anti_slope", "toe_deg",
                   "camber_gain", "camber_roll", "bump_steer", "compliance_steer")
DRIVE_FRONT_SHARE = {"rwd": 0.0, "fwd": 1.0}     # awd: drive.centre_split
MIN_SHARE = 1.0e-6          # an axle with less of the braking or drive force than this: its anti does nothing
PATH_SAMPLES = 65           # points along the travel at which the path's reach is taken (the broad phase's)


def has_geometry(sus: Suspension) -> bool:
    """Whether any of the linkage's parameters differs from its neutral 0 (else the kernel skips it)."""
    return any(getattr(sus, name) != 0.0 for name in GEOMETRY_FIELDS)


def brake_share(car: Vehicle, front: bool) -> float:
    """The axle's share of the braking force at full pedal: its brake torque over its tire radius, against
    both axles' (0.5 each when there are no brakes)."""
    b = car.brakes
    f = b.max_torque_front / car.front_tire.radius
    r = b.max_torque_rear / car.rear_tire.radius
    if f + r <= 0.0:
        return 0.5
    return (f if front else r) / (f + r)


def drive_share(car: Vehicle, front: bool) -> float:
    """The axle's share of the drive force: the layout's (awd: the centre split)."""
    split = DRIVE_FRONT_SHARE.get(car.drive.layout, car.drive.centre_split)
    return split if front else 1.0 - split


@dataclass(frozen=True)
class LinkNumbers:
    """One wheel's packed geometry (the WP_* columns of the same names, sim/kernel/tables.py)."""
    active: bool
    side: float               # +1 left, -1 right
    l_static: float           # m
    rc_tan: float             # -: h_rc / half track
    rc_tan_slope: float       # 1/m
    anti_brake: float         # -: -tan (front) or +tan (rear) of the brakes' side-view line
    anti_brake_slope: float   # 1/m
    anti_drive: float         # -: the same for the drive
    anti_drive_slope: float   # 1/m
    camber: float             # rad: the axle's static turn about body x (side-signed, WP_CAMBER)
    camber_gain: float        # rad/m: its turn per m of travel
    camber_roll: float        # rad/m: its turn per m of travel ahead of the other wheel
    toe: float                # rad: the wheel's static turn about body z (- side x toe-in)
    bump_steer: float         # rad/m
    compliance: float         # rad/N: the turn about body z (+ left) per N of side force (body y, + left)
    path_reach: float         # m: the farthest the path takes the wheel from under its anchor


def anti_tan(percent: float, h_over_l: float, share: float) -> float:
    """tan of an axle's side-view line for an anti percentage: the links carry percent of the axle's load
    transfer h / L of its share of the force, tan = percent / 100 x (h / L) / share (0 without a share)."""
    return percent / 100.0 * h_over_l / share if share > MIN_SHARE else 0.0


def link_numbers(car: Vehicle, i: int, gravity: float = GRAVITY) -> LinkNumbers:
    """Wheel i's (FL, FR, RL, RR) geometry as the kernel uses it (docs/physics.md §7.1)."""
    front, left = i < 2, i % 2 == 0
    sus = car.front_suspension if front else car.rear_suspension
    axle = car.front_axle if front else car.rear_axle
    side = 1.0 if left else -1.0
    ahead = 1.0 if front else -1.0
    gamma = math.radians(sus.camber_deg)
    camber = -gamma if left else gamma              # as sim/model/geometry.py wheel_geometry
    lengths = static_lengths(car, gravity)
    h_over_l = ride_com_height(car, gravity) / car.wheelbase
    b_share, d_share = brake_share(car, front), drive_share(car, front)
    rc_tan = sus.roll_centre / axle.half_track
    rc_slope = sus.roll_centre_slope / axle.half_track
    anti_b = -ahead * anti_tan(sus.anti_brake, h_over_l, b_share)
    anti_b_slope = -ahead * anti_tan(sus.anti_slope, h_over_l, b_share)
    reach = 0.0                        # the farthest the path goes over the travel, sampled (a margin of 1 mm)
    for z in np.linspace(lengths[i] - sus.l_max, lengths[i] - sus.l_min, PATH_SAMPLES):
        reach = max(reach, math.hypot(line_travel(anti_b, anti_b_slope, z), line_travel(rc_tan, rc_slope, z)))
    reach = reach + 1.0e-3 if reach > 0.0 else 0.0
    # an undriven axle's whole longitudinal force is reacted in its links like the brakes' (its spin's own
    # inertia torque too): its drive line is the brakes' line
    driven = d_share > MIN_SHARE
    anti_d = -ahead * anti_tan(sus.anti_drive, h_over_l, d_share) if driven else anti_b
    anti_d_slope = -ahead * anti_tan(sus.anti_slope, h_over_l, d_share) if driven else anti_b_slope
    return LinkNumbers(
        active=has_geometry(sus), side=side, l_static=float(lengths[i]), rc_tan=rc_tan, rc_tan_slope=rc_slope,
        anti_brake=anti_b, anti_brake_slope=anti_b_slope, anti_drive=anti_d, anti_drive_slope=anti_d_slope,
        camber=camber, camber_gain=-side * math.radians(sus.camber_gain),
        camber_roll=side * sus.camber_roll / (2.0 * axle.half_track),
        toe=-side * math.radians(sus.toe_deg), bump_steer=-side * math.radians(sus.bump_steer),
        compliance=-ahead * math.radians(sus.compliance_steer) / 1000.0, path_reach=reach)


def camber_toe(car: Vehicle, i: int, z: float, z_other: float = 0.0) -> tuple[float, float]:
    """Wheel i's camber against the body (rad, negative: the top inward) and toe (rad, positive: toe-in) at
    travel z (m, + bump) with the other wheel of its axle at z_other: the curves of §7.1,
    camber = camber_deg + camber_gain z - camber_roll (z - z_other) / (2 half track), toe = toe_deg + bump_steer z,
    held within +-30 and +-15 deg (sim/kernel/linkage.py CAMBER_LIMIT, TOE_LIMIT)."""
    sus = car.front_suspension if i < 2 else car.rear_suspension
    axle = car.front_axle if i < 2 else car.rear_axle
    roll = (z - z_other) / (2.0 * axle.half_track)           # rad: the body's roll over the axle, toward this wheel
    camber = math.radians(sus.camber_deg + sus.camber_gain * z) - sus.camber_roll * roll
    return held(camber, CAMBER_LIMIT), held(math.radians(sus.toe_deg + sus.bump_steer * z), TOE_LIMIT)


def path_offset(n: LinkNumbers, z: float) -> tuple[float, float]:
    """Where the wheel centre sits against the line down its anchor at travel z (m), body frame (x, y): it
    moves across the roll-centre line and the brakes' side-view line through its contact (§7.1),
    x = -int A dz, y = side int T dz, the slopes held within 45 degrees (sim/kernel/linkage.py line_travel)."""
    return -line_travel(n.anti_brake, n.anti_brake_slope, z), n.side * line_travel(n.rc_tan, n.rc_tan_slope, z)
