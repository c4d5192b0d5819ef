"""Engine, clutch and traction control (docs/physics.md §4.1, §4.2, §4.5).

The engine speed omegaE (rad/s) is its own state with inertia Ie. The clutch couples it to the driveline:
    T_clutch = clamp(Kc (omegaE - g omegaW), -Tcap, Tcap)
with g the signed total ratio (`sim/gearbox.py`) and omegaW the driveline speed (`sim/differential.py`).
The engine then advances omegaE += h (Te - T_clutch) / Ie, where Te already includes engine braking, and
the differentials hand g T_clutch x efficiency to the wheels. The engine speed is never forced to a
multiple of the wheel speed: a shift changes g, the clutch slips, and both speeds stay continuous.

The clutch law is evaluated with the slip at the end of the substep (backward Euler on the engine and the
driveline): the explicit form is only stable while Kc h (1/Ie + g^2 sum(share^2/Iw)) < 2, which first gear
breaks at the app's step unless Kc is small (docs/physics.md §14).
"""
from __future__ import annotations

import math

from sim.jit import kernel, leaf
from sim.tables import CT_CLUTCH, CT_TC, CT_THROTTLE, DS_GEAR, DS_OMEGA_E, DS_TC, MAX_CURVE, NW, TB_GEAR, TB_RPM, \
    TB_T_CLUTCH, TB_T_ENGINE, TB_TC_ACTIVE, VP_CURVE_NM, VP_CURVE_RPM, VP_EFF, VP_ENGINE_BRAKE, VP_IDLE_GAIN, \
    VP_IDLE_OMEGA, VP_IE, VP_KC, VP_LAUNCH_OMEGA, VP_NCURVE, VP_REDLINE_OMEGA, VP_TC_CUT, VP_TC_RESTORE, \
    VP_TC_SLIP, VP_TCAP, WP_IW, WP_SHARE, WS_KAPPA
from sim.units import RPM


@leaf
def torque_curve(rpm_points, nm_points, n, rpm):
    """Full-throttle torque (N m) at `rpm`, linear between the table's points, flat outside it."""
    if rpm <= rpm_points[0]:
        return nm_points[0]
    for i in range(1, n):
        if rpm <= rpm_points[i]:
            f = (rpm - rpm_points[i - 1]) / (rpm_points[i] - rpm_points[i - 1])
            return nm_points[i - 1] + f * (nm_points[i] - nm_points[i - 1])
    return nm_points[n - 1]


@leaf
def engine_brake_torque(coefficient, omega_e):
    """Seed 002: T_eb = coefficient x engine revolutions per second (N m), against the rotation."""
    return coefficient * omega_e / (2.0 * math.pi)


@leaf
def clutch_torque(kc, slip, t_cap):
    """T = clamp(Kc slip, -Tcap, Tcap); slip = omegaE - g omegaW (rad/s)."""
    return min(t_cap, max(-t_cap, kc * slip))


@leaf
def traction_control(v, vehicle_params, wheel_params, controls, drive_state, wheel_state, body_telemetry, h):
    """Traction control's throttle factor (0..1): eased toward 0 in tc_cut s while a driven wheel's slip
    of the last substep exceeds tc_slip, back toward 1 in tc_restore s otherwise. Advances DS_TC."""
    tc = drive_state[v, DS_TC]
    spinning = False
    for i in range(NW):
        if wheel_params[v, i, WP_SHARE] > 0.0 and wheel_state[v, i, WS_KAPPA] > vehicle_params[v, VP_TC_SLIP]:
            spinning = True
    if controls[v, CT_TC] > 0.5 and spinning:
        tc = max(0.0, tc - h / vehicle_params[v, VP_TC_CUT])
    else:
        tc = min(1.0, tc + h / vehicle_params[v, VP_TC_RESTORE])
    drive_state[v, DS_TC] = tc
    body_telemetry[v, TB_TC_ACTIVE] = 1.0 if (controls[v, CT_TC] > 0.5 and tc < 1.0) else 0.0
    return tc


@kernel
def engine_stage(v, vehicle_params, wheel_params, controls, drive_state, wheel_state, body_telemetry, g, shifting,
                 omega_w, h):
    """Throttle (traction control, idle controller, rev limiter, fuel cut while shifting), engine torque,
    clutch torque and the engine speed update. g: total ratio, shifting: from the gearbox; omega_w:
    driveline speed (rad/s); h: substep (s). Returns the torque g T_clutch x efficiency (N m) the
    differentials share out."""
    omega_e = drive_state[v, DS_OMEGA_E]
    tc = traction_control(v, vehicle_params, wheel_params, controls, drive_state, wheel_state, body_telemetry, h)
    throttle = min(1.0, max(0.0, controls[v, CT_THROTTLE]))
    if controls[v, CT_TC] > 0.5:
        throttle *= tc
    # idle controller: more throttle the further the engine drops below idle
    idle = vehicle_params[v, VP_IDLE_OMEGA]
    throttle = min(1.0, throttle + max(0.0, vehicle_params[v, VP_IDLE_GAIN] * (idle - omega_e)))
    t_full = torque_curve(vehicle_params[v, VP_CURVE_RPM:VP_CURVE_RPM + MAX_CURVE],
                          vehicle_params[v, VP_CURVE_NM:VP_CURVE_NM + MAX_CURVE],
                          int(vehicle_params[v, VP_NCURVE]), omega_e * RPM)
    if omega_e >= vehicle_params[v, VP_REDLINE_OMEGA] or shifting:
        throttle = 0.0                                               # rev limiter, or a shift: fuel cut
    t_engine = throttle * t_full - (1.0 - throttle) * engine_brake_torque(vehicle_params[v, VP_ENGINE_BRAKE], omega_e)
    # clutch: the pedal, the automatic launch (closing between idle and launch speed), open while shifting
    engage = 1.0 - min(1.0, max(0.0, controls[v, CT_CLUTCH]))
    launch = (omega_e - idle) / max(vehicle_params[v, VP_LAUNCH_OMEGA] - idle, 1e-6)
    engage = min(engage, min(1.0, max(0.0, launch)))
    t_clutch = 0.0
    inertia_e = vehicle_params[v, VP_IE]
    if g != 0.0 and not shifting:
        # the clutch law with the slip taken at the end of the substep:
        # Kc_eff = Kc / (1 + Kc h (1/Ie + g^2 sum(share_i^2 / Iw_i)))
        compliance = 1.0 / inertia_e
        for i in range(NW):
            compliance += g * g * wheel_params[v, i, WP_SHARE] ** 2 / wheel_params[v, i, WP_IW]
        kc_eff = vehicle_params[v, VP_KC] / (1.0 + vehicle_params[v, VP_KC] * h * compliance)
        t_clutch = clutch_torque(kc_eff, omega_e - g * omega_w, vehicle_params[v, VP_TCAP] * engage)
    omega_next = omega_e + h * (t_engine - t_clutch) / inertia_e     # omegaE += h (Te - Tclutch) / Ie
    drive_state[v, DS_OMEGA_E] = max(0.0, omega_next)
    body_telemetry[v, TB_RPM] = drive_state[v, DS_OMEGA_E] * RPM
    body_telemetry[v, TB_GEAR] = drive_state[v, DS_GEAR]
    body_telemetry[v, TB_T_ENGINE] = t_engine
    body_telemetry[v, TB_T_CLUTCH] = t_clutch
    return g * t_clutch * vehicle_params[v, VP_EFF]
