"""Turn the frozen parameter dataclasses into the packed tables the kernels read (`sim/kernel/tables.py`),
and turn the kill switches' parts off in them (`apply_switches`)."""
from __future__ import annotations

import math

import numpy as np

from sim.kernel import tables as T
from sim.kernel.broadphase import vehicle_reach
from sim.kernel.differential import DIFFS
from sim.kernel.parking import HOLD_SOLVERS
from sim.kernel.parking import HOLD_STOPS
from sim.kernel.query import QUERY_KINDS
from sim.kernel.spin import SPIN_UPDATES
from sim.kernel.suspension import BUMP_STOP_FACTOR
from sim.kernel.suspension import FORCE_ALONG
from sim.kernel.suspension import SUSPENSION_MODELS
from sim.kernel.tables import MF61_EXTRA
from sim.kernel.tables import MF96_FIELDS
from sim.kernel.tire import TIRE_MODELS
from sim.kernel.tire.slip import SLIP_FORMS
from sim.kernel.units import RAD_S_PER_RPM
from sim.model.geometry import hull_points
from sim.model.geometry import hull_stiffness
from sim.model.geometry import spring_numbers
from sim.model.geometry import wheel_geometry
from sim.model.handling import slip_stiffnesses
from sim.model.handling import understeer_coefficient
from sim.model.linkage import LinkNumbers
from sim.model.linkage import link_numbers
from sim.model.params import Vehicle

LATERAL_THETA = {"midpoint": 0.5, "explicit": 0.0}   # chassis.lateral_update -> VP_LATERAL_THETA


def pack_hull_bounds(vehicle_row: np.ndarray, hull_rows: np.ndarray) -> None:
    """The hull points' bounding box (centre, half extents; body frame), the sum of their coordinates' sizes
    and their bounding sphere's radius into one vehicle's row: the body collision's test that the whole hull
    is above the ground (sim/kernel/collision.py clear_of_planes) starts with the box, and a box of the world is
    tested point by point only where the sphere meets it (`hull_boxes`). Both are widened by a millionth
    so that no rounding puts a point outside them."""
    lo, hi = hull_rows.min(axis=0), hull_rows.max(axis=0)
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    half = half + 1e-6 * (1.0 + np.abs(centre) + half)
    vehicle_row[T.VP_HULL_BX:T.VP_HULL_BZ + 1] = centre
    vehicle_row[T.VP_HULL_HX:T.VP_HULL_HZ + 1] = half
    vehicle_row[T.VP_HULL_SIZE] = float(np.abs(hull_rows).sum())
    radius = float(np.sqrt((hull_rows * hull_rows).sum(axis=1)).max())
    vehicle_row[T.VP_HULL_RADIUS] = radius * (1.0 + 1e-6) + 1e-6


def pack_vehicle(car: Vehicle, vehicle_row: np.ndarray, wheel_rows: np.ndarray, hull_rows: np.ndarray, *,
                 hull_friction_limit: float, hull_normal_lambda: float, suspension_modes: tuple[float, float, float],
                 gravity: float) -> None:
    """Fill one vehicle's row of vehicle_params (T.VP_N,), rows of wheel_params (T.NW, T.WP_N) and hull points
    (T.NHULL, 3) from `car`. hull_friction_limit (N s/m): the most friction damping the hull's contact may
    use at the step the car will run at (the stability advisor's `hull_friction_limit`); hull_normal_lambda
    (1/kg): the hull's fastest mode per unit of penalty stiffness (the advisor's `hull_normal_mode`), to which
    the kernel holds the penalty at each substep; suspension_modes: the body's fastest modes of the springs,
    dampers and bump stops (the advisor's `suspension_modes`), with which the kernel holds the bump stops;
    gravity (m/s^2): the
    world's, for the static loads packed here."""
    hull_rows[:] = hull_points(car)
    ch = car.chassis
    d, e, g, b = car.drive, car.engine, car.gearbox, car.brakes
    if len(e.torque_rpm) > T.MAX_CURVE or len(g.ratios) > T.MAX_GEARS:    # params.py's ranges keep them within
        raise ValueError(f"{car.name}: more than {T.MAX_CURVE} torque points or {T.MAX_GEARS} gears")
    row = vehicle_row
    row[:] = 0.0
    row[T.VP_MASS] = ch.mass
    row[T.VP_IXX] = ch.inertia_roll
    row[T.VP_IYY] = ch.inertia_pitch
    row[T.VP_IZZ] = ch.inertia_yaw
    row[T.VP_RHO] = car.aero.air_density
    row[T.VP_CD] = car.aero.drag_coefficient
    row[T.VP_AREA] = car.aero.frontal_area
    row[T.VP_CLA_F] = car.aero.downforce_front
    row[T.VP_CLA_R] = car.aero.downforce_rear
    row[T.VP_XF] = car.front_axle.x - ch.com_x
    row[T.VP_XR] = car.rear_axle.x - ch.com_x
    row[T.VP_IE] = e.inertia
    row[T.VP_UEX:T.VP_UEZ + 1] = (1.0, 0.0, 0.0)          # longitudinal engine
    row[T.VP_STEER_MAX] = math.radians(car.steering.max_angle_deg)
    row[T.VP_HULL_K] = hull_stiffness(car, gravity)
    row[T.VP_HULL_C] = car.collision.damping
    row[T.VP_HULL_CT] = car.collision.friction_damping
    row[T.VP_HULL_CT_LIMIT] = hull_friction_limit
    row[T.VP_HULL_LAMBDA] = hull_normal_lambda
    pack_hull_bounds(row, hull_rows)
    row[T.VP_HULL_MU] = car.collision.friction
    row[T.VP_DIRECT] = 1.0 if d.mode == "direct" else 0.0
    row[T.VP_ENGINE_BRAKE] = e.engine_brake
    row[T.VP_IDLE_OMEGA] = e.idle_rpm * RAD_S_PER_RPM
    row[T.VP_IDLE_GAIN] = e.idle_gain
    row[T.VP_REDLINE_OMEGA] = e.redline_rpm * RAD_S_PER_RPM
    row[T.VP_NCURVE] = len(e.torque_rpm)
    row[T.VP_CURVE_RPM:T.VP_CURVE_RPM + len(e.torque_rpm)] = e.torque_rpm
    row[T.VP_CURVE_NM:T.VP_CURVE_NM + len(e.torque_nm)] = e.torque_nm
    row[T.VP_NGEARS] = len(g.ratios)
    row[T.VP_RATIO:T.VP_RATIO + len(g.ratios)] = g.ratios
    row[T.VP_REVERSE] = g.reverse
    row[T.VP_FINAL] = g.final_drive
    row[T.VP_EFF] = g.efficiency
    row[T.VP_AUTO] = 1.0 if g.mode == "auto" else 0.0
    row[T.VP_UP_OMEGA] = g.shift_up_rpm * RAD_S_PER_RPM
    row[T.VP_UP_LIGHT] = g.shift_up_light
    row[T.VP_BLIP] = g.downshift_blip
    row[T.VP_DOWN_OMEGA] = g.shift_down_rpm * RAD_S_PER_RPM
    row[T.VP_SHIFT_TIME] = g.shift_time
    row[T.VP_KICKDOWN_THROTTLE] = g.kickdown_throttle
    row[T.VP_KICKDOWN_HEADROOM] = g.kickdown_headroom
    row[T.VP_KICKDOWN_BELOW] = g.kickdown_below
    row[T.VP_SHIFT_HOLD] = g.shift_hold
    row[T.VP_LC_ON] = 1.0 if g.launch_control == "on" else 0.0
    row[T.VP_LC_OMEGA] = g.launch_control_rpm * RAD_S_PER_RPM
    row[T.VP_CLUTCH_K] = g.clutch_stiffness
    row[T.VP_CLUTCH_T_MAX] = g.clutch_max_torque
    row[T.VP_LAUNCH_OMEGA] = g.launch_rpm * RAD_S_PER_RPM
    row[T.VP_SPLIT] = {"rwd": 0.0, "fwd": 1.0, "awd": d.centre_split}[d.layout]
    row[T.VP_DIFF_F] = DIFFS[d.front_diff]
    row[T.VP_DIFF_R] = DIFFS[d.rear_diff]
    row[T.VP_LSD_K] = d.lsd_stiffness
    row[T.VP_LSD_T] = d.lsd_max_torque
    row[T.VP_WHEELBASE] = car.front_axle.x - car.rear_axle.x
    row[T.VP_TRACK_F] = 2.0 * car.front_axle.half_track
    row[T.VP_ACKERMANN] = car.steering.ackermann
    row[T.VP_STEER_LIMIT_V] = car.steering.limit_speed
    row[T.VP_STEER_RATE] = math.radians(car.steering.rate_deg_s)
    row[T.VP_STEER_TORQUE] = car.steering.max_torque
    row[T.VP_ABS_SLIP] = b.abs_slip
    row[T.VP_ABS_RELEASE] = b.abs_release_time
    row[T.VP_ABS_APPLY] = b.abs_apply_time
    row[T.VP_TC_SLIP] = b.tc_slip
    row[T.VP_TC_CUT] = b.tc_cut_time
    row[T.VP_TC_RESTORE] = b.tc_restore_time
    row[T.VP_HOLD_STOP] = HOLD_STOPS[b.hold_stop]
    row[T.VP_HOLD_SOLVER] = HOLD_SOLVERS[b.hold_solver]
    row[T.VP_LATERAL_THETA] = LATERAL_THETA[car.chassis.lateral_update]
    row[T.VP_ESP_THRESHOLD] = b.esp_threshold
    row[T.VP_ESP_GAIN] = b.esp_gain
    row[T.VP_ESP_CUT] = b.esp_cut
    row[T.VP_ESP_MU] = b.esp_mu
    row[T.VP_ESP_MIN_SPEED] = b.esp_min_speed
    row[T.VP_ESP_K] = understeer_coefficient(car, gravity)
    geometry = wheel_geometry(car)
    for i in range(T.NW):
        front = i < 2
        left = i % 2 == 0
        sus = car.front_suspension if front else car.rear_suspension
        tire = car.front_tire if front else car.rear_tire
        wheel = wheel_rows[i]
        wheel[:] = 0.0
        wheel[T.WP_AX:T.WP_AZ + 1] = geometry.anchor[i]
        wheel[T.WP_DX:T.WP_DZ + 1] = geometry.axis[i]
        wheel[T.WP_R] = tire.radius
        wheel[T.WP_L0] = sus.l0
        wheel[T.WP_LMAX] = sus.l_max
        wheel[T.WP_ARB] = sus.anti_roll
        wheel[T.WP_CAMBER] = geometry.camber[i]
        wheel[T.WP_CAMBER_COS] = math.cos(wheel[T.WP_CAMBER])       # the same libm as the kernels' math.cos
        wheel[T.WP_CAMBER_SIN] = math.sin(wheel[T.WP_CAMBER])
        wheel[T.WP_QUERY] = QUERY_KINDS[sus.query]
        wheel[T.WP_MODEL] = TIRE_MODELS[tire.model]
        wheel[T.WP_SPIN] = SPIN_UPDATES[tire.spin_update]
        wheel[T.WP_ALONG] = FORCE_ALONG[sus.force_along]
        wheel[T.WP_IW] = tire.wheel_inertia
        wheel[T.WP_GRIP] = tire.grip
        wheel[T.WP_LOAD_SENS] = tire.load_sensitivity
        wheel[T.WP_FZ0] = tire.nominal_load
        wheel[T.WP_CK] = tire.ck
        wheel[T.WP_CA] = tire.ca
        wheel[T.WP_VMIN] = tire.v_min
        wheel[T.WP_ROLL] = tire.rolling
        wheel[T.WP_BX], wheel[T.WP_CX], wheel[T.WP_DXF], wheel[T.WP_EX] = tire.bx, tire.cx, tire.dx, tire.ex
        wheel[T.WP_BY], wheel[T.WP_CY], wheel[T.WP_DYF], wheel[T.WP_EY] = tire.by, tire.cy, tire.dy, tire.ey
        for k, name in enumerate(MF96_FIELDS + MF61_EXTRA):      # one block, in this order
            wheel[T.WP_PCX1 + k] = getattr(tire, name)
        wheel[T.WP_RELAX] = tire.relaxation_length
        wheel[T.WP_RELAX_VX] = 1.0 if tire.relaxation_speed == "vx" else 0.0
        if tire.relaxation_length > 0.0:
            wheel[T.WP_CA_LOAD] = slip_stiffnesses(tire, tire.nominal_load)[1] / tire.nominal_load
        wheel[T.WP_LOAD_RATIO] = tire.load_ratio
        wheel[T.WP_SLIP_FORM] = SLIP_FORMS[tire.slip_form]
        wheel[T.WP_CHAOS_CURVE] = 1.0 if tire.chaos_lateral == "curve" else 0.0
        wheel[T.WP_AVS_TAU] = tire.avs_slip_time
        wheel[T.WP_AVS_PEAK] = math.radians(tire.avs_peak_angle)
        wheel[T.WP_AVS_BLEND] = tire.avs_blend_speed
        wheel[T.WP_FRICTION_ON] = wheel[T.WP_ROLLING_ON] = 1.0
        wheel[T.WP_SUS_MODEL] = SUSPENSION_MODELS[sus.model]
        wheel[T.WP_K], wheel[T.WP_C], wheel[T.WP_LMIN], wheel[T.WP_STOP_K], wheel[T.WP_PRELOAD] = spring_numbers(sus)
        wheel[T.WP_C_REBOUND] = wheel[T.WP_C] if sus.model == "avs" else sus.c_rebound
        wheel[T.WP_STOP_LAM_S], wheel[T.WP_STOP_LAM_C], wheel[T.WP_STOP_LAM] = suspension_modes
        # fgear's travel limit: a stop critically damped for the corner's static share of the mass
        share = (car.chassis.com_x - car.rear_axle.x if front else car.front_axle.x - car.chassis.com_x) / \
            (car.front_axle.x - car.rear_axle.x) / 2.0
        corner = car.chassis.mass * min(1.0, max(0.0, share))
        wheel[T.WP_FZ_STATIC] = corner * gravity              # the chaos tire's static load (N)
        wheel[T.WP_STOP_C] = 2.0 * math.sqrt(BUMP_STOP_FACTOR * sus.k * corner) \
            if sus.travel_limit == "on" and sus.model == "fgear" else 0.0
        wheel[T.WP_TDRIVE] = d.max_wheel_torque if geometry.driven[i] else 0.0
        wheel[T.WP_WMAX] = d.max_wheel_speed
        wheel[T.WP_TBRAKE] = b.max_torque_front if front else b.max_torque_rear
        wheel[T.WP_THAND] = 0.0 if front else b.handbrake_torque
        wheel[T.WP_STEERS] = 1.0 if geometry.steers[i] else 0.0
        front_share = row[T.VP_SPLIT]
        wheel[T.WP_SHARE] = 0.5 * (front_share if front else 1.0 - front_share)
        wheel[T.WP_PARTNER] = i + 1 if left else i - 1
        pack_links(link_numbers(car, i, gravity), wheel)
        if sus.unsprung_mass > 0.0:                           # the wheel's own mass (docs/physics.md §7.2)
            wheel[T.WP_MU], wheel[T.WP_KT], wheel[T.WP_CT] = sus.unsprung_mass, sus.tire_k, sus.tire_c
            row[T.VP_MASS_U] += sus.unsprung_mass
            row[T.VP_MASS] += sus.unsprung_mass                # the body's translation carries the wheels
            row[T.VP_IZZ] += sus.unsprung_mass * (geometry.anchor[i][0] ** 2 + geometry.anchor[i][1] ** 2)   # they yaw
    row[T.VP_REACH] = vehicle_reach(wheel_rows, hull_rows)


def pack_links(n: LinkNumbers, wheel: np.ndarray) -> None:
    """One wheel's suspension geometry (docs/physics.md §7.1) into its row: WP_SIDE always, the rest only when
    some of it acts (WP_GEO 1); a neutral wheel keeps zeros and the kernel skips it."""
    wheel[T.WP_SIDE] = n.side
    if not n.active:
        return
    wheel[T.WP_GEO] = 1.0
    wheel[T.WP_L_STATIC] = n.l_static
    wheel[T.WP_RC_TAN], wheel[T.WP_RC_TAN_SLOPE] = n.rc_tan, n.rc_tan_slope
    wheel[T.WP_ANTI_B], wheel[T.WP_ANTI_B_SLOPE] = n.anti_brake, n.anti_brake_slope
    wheel[T.WP_ANTI_D], wheel[T.WP_ANTI_D_SLOPE] = n.anti_drive, n.anti_drive_slope
    wheel[T.WP_CAMBER_GAIN], wheel[T.WP_CAMBER_ROLL] = n.camber_gain, n.camber_roll
    wheel[T.WP_TOE], wheel[T.WP_BUMP_STEER] = n.toe, n.bump_steer
    wheel[T.WP_COMPLY] = n.compliance
    wheel[T.WP_PATH_REACH] = n.path_reach


SWITCHES = {"friction": "the tires' forces on the ground (they still turn and are loaded)",
            "suspension": "the springs, dampers and bump stops (the body rests on its hull)",
            "anti_roll": "the anti-roll bars", "aero": "drag and downforce",
            "rolling": "rolling resistance (the tires' and the ground's)",
            "drive": "the drive: the clutch carries nothing (direct drive: no wheel torque)",
            "brakes": "the brakes and the handbrake (and so ABS and stability control)"}


def apply_switches(off, vehicle_row: np.ndarray, wheel_rows: np.ndarray) -> None:
    """Turn the parts named in `off` (names of SWITCHES) off in one vehicle's packed rows (after
    pack_vehicle). The parameters themselves are untouched: switching back on is a new pack."""
    for name in off:
        if name == "friction":
            wheel_rows[:, T.WP_FRICTION_ON] = 0.0
        elif name == "rolling":
            wheel_rows[:, T.WP_ROLLING_ON] = 0.0
        elif name == "suspension":          # (wheels with a mass as the massless ones: no wheel on a spring)
            for col in (T.WP_K, T.WP_C, T.WP_ARB, T.WP_PRELOAD, T.WP_C_REBOUND, T.WP_STOP_C, T.WP_STOP_K, T.WP_MU):
                wheel_rows[:, col] = 0.0
        elif name == "anti_roll":
            wheel_rows[:, T.WP_ARB] = 0.0
        elif name == "aero":
            vehicle_row[T.VP_CD] = vehicle_row[T.VP_CLA_F] = vehicle_row[T.VP_CLA_R] = 0.0
        elif name == "drive":
            vehicle_row[T.VP_CLUTCH_T_MAX] = 0.0
            wheel_rows[:, T.WP_TDRIVE] = 0.0
        elif name == "brakes":
            wheel_rows[:, T.WP_TBRAKE] = 0.0
            wheel_rows[:, T.WP_THAND] = 0.0
        else:
            raise ValueError(f"switch {name!r} is not known; expected one of {', '.join(SWITCHES)}")


