"""Turn the frozen parameter dataclasses into the packed tables the kernels read (`sim/tables.py`), and
give the wheel mounts and the body hull to whoever draws them (`wheel_geometry`, `hull_points`)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.differential import DIFFS
from sim.params import Vehicle
from sim.query import QUERY_KINDS
from sim.tables import *  # noqa: F401,F403 (column constants)
from sim.tire import TIRE_MODELS
from sim.units import RAD_S_PER_RPM

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
    anchor = np.zeros((NW, 3))
    camber = np.zeros(NW)
    radius = np.zeros(NW)
    for i in range(NW):
        front = i < 2
        left = i % 2 == 0
        axle = car.front_axle if front else car.rear_axle
        sus = car.front_suspension if front else car.rear_suspension
        anchor[i] = np.array([axle.x, axle.half_track if left else -axle.half_track, axle.anchor_z]) - com
        gamma = math.radians(sus.camber_deg)
        camber[i] = -gamma if left else gamma      # the left axle turns by -camber about x, the right by +camber
        radius[i] = (car.front_tire if front else car.rear_tire).radius
    axis = np.tile([0.0, 0.0, -1.0], (NW, 1))
    driven = np.array(DRIVEN[car.drive.layout]) > 0.0
    return WheelGeometry(anchor, axis, radius, camber, np.array([True, True, False, False]), driven)


def hull_points(car: Vehicle) -> np.ndarray:
    """The 14 body-collision points (NHULL, 3), body frame relative to the centre of mass (m): the floor
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
    assert len(pts) == NHULL
    return np.array(pts) - np.array([ch.com_x, ch.com_y, ch.com_z])


def pack_vehicle(car: Vehicle, vehicle_row: np.ndarray, wheel_rows: np.ndarray, hull_rows: np.ndarray) -> None:
    """Fill one vehicle's row of vehicle_params (VP_N,), rows of wheel_params (NW, WP_N) and hull points
    (NHULL, 3) from `car`."""
    hull_rows[:] = hull_points(car)
    ch = car.chassis
    d, e, g, b = car.drive, car.engine, car.gearbox, car.brakes
    if len(e.torque_rpm) > MAX_CURVE or len(g.ratios) > MAX_GEARS:    # params.py's ranges keep them within
        raise ValueError(f"{car.name}: more than {MAX_CURVE} torque points or {MAX_GEARS} gears")
    row = vehicle_row
    row[:] = 0.0
    row[VP_MASS] = ch.mass
    row[VP_IXX] = ch.inertia_roll
    row[VP_IYY] = ch.inertia_pitch
    row[VP_IZZ] = ch.inertia_yaw
    row[VP_RHO] = car.aero.air_density
    row[VP_CD] = car.aero.drag_coefficient
    row[VP_AREA] = car.aero.frontal_area
    row[VP_CLA_F] = car.aero.downforce_front
    row[VP_CLA_R] = car.aero.downforce_rear
    row[VP_XF] = car.front_axle.x - ch.com_x
    row[VP_XR] = car.rear_axle.x - ch.com_x
    row[VP_IE] = e.inertia
    row[VP_UEX:VP_UEZ + 1] = (1.0, 0.0, 0.0)          # longitudinal engine
    row[VP_STEER_MAX] = math.radians(car.steering.max_angle_deg)
    row[VP_HULL_K] = car.collision.stiffness
    row[VP_HULL_C] = car.collision.damping
    row[VP_HULL_CT] = car.collision.friction_damping
    row[VP_HULL_MU] = car.collision.friction
    row[VP_DIRECT] = 1.0 if d.mode == "direct" else 0.0
    row[VP_ENGINE_BRAKE] = e.engine_brake
    row[VP_IDLE_OMEGA] = e.idle_rpm * RAD_S_PER_RPM
    row[VP_IDLE_GAIN] = e.idle_gain
    row[VP_REDLINE_OMEGA] = e.redline_rpm * RAD_S_PER_RPM
    row[VP_NCURVE] = len(e.torque_rpm)
    row[VP_CURVE_RPM:VP_CURVE_RPM + len(e.torque_rpm)] = e.torque_rpm
    row[VP_CURVE_NM:VP_CURVE_NM + len(e.torque_nm)] = e.torque_nm
    row[VP_NGEARS] = len(g.ratios)
    row[VP_RATIO:VP_RATIO + len(g.ratios)] = g.ratios
    row[VP_REVERSE] = g.reverse
    row[VP_FINAL] = g.final_drive
    row[VP_EFF] = g.efficiency
    row[VP_AUTO] = 1.0 if g.mode == "auto" else 0.0
    row[VP_UP_OMEGA] = g.shift_up_rpm * RAD_S_PER_RPM
    row[VP_DOWN_OMEGA] = g.shift_down_rpm * RAD_S_PER_RPM
    row[VP_SHIFT_TIME] = g.shift_time
    row[VP_KICKDOWN_THROTTLE] = g.kickdown_throttle
    row[VP_KICKDOWN_LOWER] = g.kickdown_headroom
    row[VP_KICKDOWN_BELOW] = g.kickdown_below
    row[VP_KC] = g.clutch_stiffness
    row[VP_TCAP] = g.clutch_max_torque
    row[VP_LAUNCH_OMEGA] = g.launch_rpm * RAD_S_PER_RPM
    row[VP_SPLIT] = {"rwd": 0.0, "fwd": 1.0, "awd": d.centre_split}[d.layout]
    row[VP_DIFF_F] = DIFFS[d.front_diff]
    row[VP_DIFF_R] = DIFFS[d.rear_diff]
    row[VP_LSD_K] = d.lsd_stiffness
    row[VP_LSD_T] = d.lsd_max_torque
    row[VP_WHEELBASE] = car.front_axle.x - car.rear_axle.x
    row[VP_TRACK_F] = 2.0 * car.front_axle.half_track
    row[VP_ACKERMANN] = car.steering.ackermann
    row[VP_STEER_LIMIT_V] = car.steering.limit_speed
    row[VP_STEER_RATE] = math.radians(car.steering.rate_deg_s)
    row[VP_ABS_SLIP] = b.abs_slip
    row[VP_ABS_RELEASE] = b.abs_release_time
    row[VP_ABS_APPLY] = b.abs_apply_time
    row[VP_TC_SLIP] = b.tc_slip
    row[VP_TC_CUT] = b.tc_cut_time
    row[VP_TC_RESTORE] = b.tc_restore_time
    geometry = wheel_geometry(car)
    for i in range(NW):
        front = i < 2
        left = i % 2 == 0
        sus = car.front_suspension if front else car.rear_suspension
        tire = car.front_tire if front else car.rear_tire
        wheel = wheel_rows[i]
        wheel[:] = 0.0
        wheel[WP_AX:WP_AZ + 1] = geometry.anchor[i]
        wheel[WP_DX:WP_DZ + 1] = geometry.axis[i]
        wheel[WP_R] = tire.radius
        wheel[WP_L0] = sus.l0
        wheel[WP_LMIN] = sus.l_min
        wheel[WP_LMAX] = sus.l_max
        wheel[WP_K] = sus.k
        wheel[WP_C] = sus.c
        wheel[WP_ARB] = sus.anti_roll
        wheel[WP_CAMBER] = geometry.camber[i]
        wheel[WP_QUERY] = QUERY_KINDS[sus.query]
        wheel[WP_MODEL] = TIRE_MODELS[tire.model]
        wheel[WP_IW] = tire.wheel_inertia
        wheel[WP_GRIP] = tire.grip
        wheel[WP_CK] = tire.ck
        wheel[WP_CA] = tire.ca
        wheel[WP_VMIN] = tire.v_min
        wheel[WP_ROLL] = tire.rolling
        wheel[WP_BX], wheel[WP_CX], wheel[WP_DXF], wheel[WP_EX] = tire.bx, tire.cx, tire.dx, tire.ex
        wheel[WP_BY], wheel[WP_CY], wheel[WP_DYF], wheel[WP_EY] = tire.by, tire.cy, tire.dy, tire.ey
        wheel[WP_TDRIVE] = d.max_wheel_torque if geometry.driven[i] else 0.0
        wheel[WP_WMAX] = d.max_wheel_speed
        wheel[WP_TBRAKE] = b.max_torque_front if front else b.max_torque_rear
        wheel[WP_THAND] = 0.0 if front else b.handbrake_torque
        wheel[WP_STEERS] = 1.0 if geometry.steers[i] else 0.0
        front_share = row[VP_SPLIT]
        wheel[WP_SHARE] = 0.5 * (front_share if front else 1.0 - front_share)
        wheel[WP_PARTNER] = i + 1 if left else i - 1


def rest_com_height(car: Vehicle) -> float:
    """Height of the centre of mass above flat ground with both axles at their rest length l0 (m):
    a spawn height from which the car settles a few centimetres without a drop."""
    ch = car.chassis
    zs = []
    for axle, sus, tire in ((car.front_axle, car.front_suspension, car.front_tire),
                            (car.rear_axle, car.rear_suspension, car.rear_tire)):
        zs.append(tire.radius + min(sus.l0, sus.l_max) + ch.com_z - axle.anchor_z)
    return max(zs)
