"""Turn the frozen parameter dataclasses into the packed tables the kernels read (`sim/layout.py`)."""
from __future__ import annotations

import math

import numpy as np

from sim.layout import *  # noqa: F401,F403
from sim.params import Vehicle
from sim.query import QUERY_DISC, QUERY_RAY, QUERY_SPHERE
from sim.tire import MODEL_LINEAR, MODEL_MAGIC

QUERY_KINDS = {"ray": QUERY_RAY, "sphere": QUERY_SPHERE, "disc": QUERY_DISC}
TIRE_MODELS = {"linear": MODEL_LINEAR, "magic": MODEL_MAGIC}
DRIVEN = {"rwd": (0.0, 0.0, 1.0, 1.0), "fwd": (1.0, 1.0, 0.0, 0.0), "awd": (1.0, 1.0, 1.0, 1.0)}
DIFFS = {"open": 0.0, "lsd": 1.0, "locked": 2.0}


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


def pack_vehicle(car: Vehicle, vp_row: np.ndarray, wp_rows: np.ndarray, hull_rows: np.ndarray) -> None:
    """Fill one vehicle's row of vp (VP_N,), rows of wp (4, WP_N) and hull points (NHULL, 3) from `car`."""
    hull_rows[:] = hull_points(car)
    ch = car.chassis
    com = np.array([ch.com_x, ch.com_y, ch.com_z])
    vp_row[:] = 0.0
    vp_row[VP_MASS] = ch.mass
    vp_row[VP_IXX] = ch.inertia_roll
    vp_row[VP_IYY] = ch.inertia_pitch
    vp_row[VP_IZZ] = ch.inertia_yaw
    vp_row[VP_RHO] = car.aero.air_density
    vp_row[VP_CD] = car.aero.drag_coefficient
    vp_row[VP_AREA] = car.aero.frontal_area
    vp_row[VP_CLA_F] = car.aero.downforce_front
    vp_row[VP_CLA_R] = car.aero.downforce_rear
    vp_row[VP_XF] = car.front_axle.x - ch.com_x
    vp_row[VP_XR] = car.rear_axle.x - ch.com_x
    vp_row[VP_IE] = car.engine.inertia
    vp_row[VP_UEX:VP_UEZ + 1] = (1.0, 0.0, 0.0)       # longitudinal engine
    vp_row[VP_STEER_MAX] = math.radians(car.steering.max_angle_deg)
    vp_row[VP_HULL_K] = car.collision.stiffness
    vp_row[VP_HULL_C] = car.collision.damping
    vp_row[VP_HULL_CT] = car.collision.friction_damping
    vp_row[VP_HULL_MU] = car.collision.friction
    d, e, g = car.drive, car.engine, car.gearbox
    rpm = 2.0 * math.pi / 60.0                        # rad/s per rpm
    vp_row[VP_DIRECT] = 1.0 if d.mode == "direct" else 0.0
    vp_row[VP_ENGINE_BRAKE] = e.engine_brake
    vp_row[VP_IDLE_OMEGA] = e.idle_rpm * rpm
    vp_row[VP_IDLE_GAIN] = e.idle_gain
    vp_row[VP_REDLINE_OMEGA] = e.redline_rpm * rpm
    vp_row[VP_NCURVE] = len(e.torque_rpm)
    vp_row[VP_CURVE_RPM:VP_CURVE_RPM + len(e.torque_rpm)] = e.torque_rpm
    vp_row[VP_CURVE_NM:VP_CURVE_NM + len(e.torque_nm)] = e.torque_nm
    vp_row[VP_NGEARS] = len(g.ratios)
    vp_row[VP_RATIO:VP_RATIO + len(g.ratios)] = g.ratios
    vp_row[VP_REVERSE] = g.reverse
    vp_row[VP_FINAL] = g.final_drive
    vp_row[VP_EFF] = g.efficiency
    vp_row[VP_AUTO] = 1.0 if g.mode == "auto" else 0.0
    vp_row[VP_UP_OMEGA] = g.shift_up_rpm * rpm
    vp_row[VP_DOWN_OMEGA] = g.shift_down_rpm * rpm
    vp_row[VP_SHIFT_TIME] = g.shift_time
    vp_row[VP_KC] = g.clutch_stiffness
    vp_row[VP_TCAP] = g.clutch_max_torque
    vp_row[VP_LAUNCH_OMEGA] = g.launch_rpm * rpm
    vp_row[VP_SPLIT] = {"rwd": 0.0, "fwd": 1.0, "awd": d.centre_split}[d.layout]
    vp_row[VP_DIFF_F] = DIFFS[d.front_diff]
    vp_row[VP_DIFF_R] = DIFFS[d.rear_diff]
    vp_row[VP_LSD_K] = d.lsd_stiffness
    vp_row[VP_LSD_T] = d.lsd_max_torque
    vp_row[VP_WHEELBASE] = car.front_axle.x - car.rear_axle.x
    vp_row[VP_TRACK_F] = 2.0 * car.front_axle.half_track
    vp_row[VP_ACKERMANN] = car.steering.ackermann
    vp_row[VP_STEER_LIMIT_V] = car.steering.limit_speed
    vp_row[VP_STEER_RATE] = math.radians(car.steering.rate_deg_s)
    vp_row[VP_ABS_SLIP] = car.brakes.abs_slip
    vp_row[VP_TC_SLIP] = car.brakes.tc_slip
    driven = DRIVEN[car.drive.layout]
    for i in range(NW):
        front = i < 2
        left = i % 2 == 0
        axle = car.front_axle if front else car.rear_axle
        sus = car.front_suspension if front else car.rear_suspension
        tire = car.front_tire if front else car.rear_tire
        row = wp_rows[i]
        row[:] = 0.0
        row[WP_AX:WP_AZ + 1] = np.array([axle.x, axle.half_track if left else -axle.half_track,
                                         axle.anchor_z]) - com
        row[WP_DX:WP_DZ + 1] = (0.0, 0.0, -1.0)
        row[WP_R] = tire.radius
        row[WP_L0] = sus.l0
        row[WP_LMIN] = sus.l_min
        row[WP_LMAX] = sus.l_max
        row[WP_K] = sus.k
        row[WP_C] = sus.c
        row[WP_ARB] = sus.anti_roll
        # negative camber tilts the top inward: the left axle turns by -camber about x, the right by +camber
        gamma = math.radians(sus.camber_deg)
        row[WP_CAMBER] = -gamma if left else gamma
        row[WP_QUERY] = QUERY_KINDS[sus.query]
        row[WP_MODEL] = TIRE_MODELS[tire.model]
        row[WP_IW] = tire.wheel_inertia
        row[WP_GRIP] = tire.grip
        row[WP_CK] = tire.ck
        row[WP_CA] = tire.ca
        row[WP_VMIN] = tire.v_min
        row[WP_ROLL] = tire.rolling
        row[WP_BX], row[WP_CX], row[WP_DXF], row[WP_EX] = tire.bx, tire.cx, tire.dx, tire.ex
        row[WP_BY], row[WP_CY], row[WP_DYF], row[WP_EY] = tire.by, tire.cy, tire.dy, tire.ey
        row[WP_TDRIVE] = car.drive.max_wheel_torque * driven[i]
        row[WP_WMAX] = car.drive.max_wheel_speed
        row[WP_TBRAKE] = car.brakes.max_torque_front if front else car.brakes.max_torque_rear
        row[WP_THAND] = 0.0 if front else car.brakes.handbrake_torque
        row[WP_STEERS] = 1.0 if front else 0.0
        front_share = vp_row[VP_SPLIT]
        row[WP_SHARE] = 0.5 * (front_share if front else 1.0 - front_share)
        row[WP_PARTNER] = i + 1 if left else i - 1


def rest_com_height(car: Vehicle) -> float:
    """Height of the centre of mass above flat ground with both axles at their rest length l0 (m):
    a spawn height from which the car settles a few centimetres without a drop."""
    ch = car.chassis
    zs = []
    for axle, sus, tire in ((car.front_axle, car.front_suspension, car.front_tire),
                            (car.rear_axle, car.rear_suspension, car.rear_tire)):
        zs.append(tire.radius + min(sus.l0, sus.l_max) + ch.com_z - axle.anchor_z)
    return max(zs)
