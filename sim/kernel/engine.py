"""Engine, clutch and traction control (docs/physics.md §4.1, §4.2, §4.5).

The engine speed omegaE (rad/s) is its own state with inertia Ie. The clutch couples it to the driveline:
    T_clutch = clamp(Kc (omegaE - g omegaW), -Tcap, Tcap)
with g the signed total ratio (`sim/kernel/gearbox.py`) and omegaW the driveline speed (`sim/kernel/differential.py`).
The engine then advances omegaE += h (Te - T_clutch) / Ie, where Te already includes engine braking, and
the differentials hand g T_clutch x efficiency to the wheels. The engine speed is never forced to a
multiple of the wheel speed: a shift changes g, the clutch slips, and both speeds stay continuous.

The clutch law is evaluated with the slip at the end of the substep (backward Euler on the engine and the
driveline): the explicit form is only stable while Kc h (1/Ie + g^2 sum(share^2/Iw)) < 2, which first gear
breaks at the app's step unless Kc is small (docs/physics.md §14).
"""
from __future__ import annotations

import math

from sim.kernel.gearbox import total_ratio
from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.spin import wheel_inertia_with_tire
from sim.kernel.tables import CT_CLUTCH
from sim.kernel.tables import CT_TC
from sim.kernel.tables import CT_THROTTLE
from sim.kernel.tables import DS_GEAR
from sim.kernel.tables import DS_GEAR_TARGET
from sim.kernel.tables import DS_LAUNCH
from sim.kernel.tables import DS_OMEGA_E
from sim.kernel.tables import DS_TC
from sim.kernel.tables import MAX_CURVE
from sim.kernel.tables import NW
from sim.kernel.tables import TB_GEAR
from sim.kernel.tables import TB_RPM
from sim.kernel.tables import TB_T_CLUTCH
from sim.kernel.tables import TB_T_ENGINE
from sim.kernel.tables import TB_TC_ACTIVE
from sim.kernel.tables import VP_BLIP
from sim.kernel.tables import VP_CLUTCH_K
from sim.kernel.tables import VP_CLUTCH_T_MAX
from sim.kernel.tables import VP_CURVE_NM
from sim.kernel.tables import VP_CURVE_RPM
from sim.kernel.tables import VP_EFF
from sim.kernel.tables import VP_ENGINE_BRAKE
from sim.kernel.tables import VP_IDLE_GAIN
from sim.kernel.tables import VP_IDLE_OMEGA
from sim.kernel.tables import VP_IE
from sim.kernel.tables import VP_LAUNCH_OMEGA
from sim.kernel.tables import VP_LC_OMEGA
from sim.kernel.tables import VP_LC_ON
from sim.kernel.tables import VP_NCURVE
from sim.kernel.tables import VP_REDLINE_OMEGA
from sim.kernel.tables import VP_TC_CUT
from sim.kernel.tables import VP_TC_RESTORE
from sim.kernel.tables import VP_TC_SLIP
from sim.kernel.tables import W_FX
from sim.kernel.tables import W_KAPPA
from sim.kernel.tables import W_RHO
from sim.kernel.tables import WP_SHARE
from sim.kernel.units import RPM

TC_PROPORTIONAL = 0.5      # -: traction control's immediate cut per unit of relative excess slip
LAUNCH_PEDAL = 0.9         # -: launch control needs at least this much throttle
LAUNCH_START_SPEED = 1.0   # m/s: launch control starts only from (nearly) standing
LAUNCH_END_SPEED = 20.0    # m/s: launch control lets go above this road speed at the latest
LAUNCH_CLOSED = 0.02       # -: clutch slip, as a share of the engine speed, below which the launch is over


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
    return coefficient * omega_e * (1.0 / (2.0 * math.pi))


@leaf
def clutch_torque(kc, slip, t_cap):
    """T = clamp(Kc slip, -Tcap, Tcap); slip = omegaE - g omegaW (rad/s)."""
    return min(t_cap, max(-t_cap, kc * slip))


@leaf
def traction_control(v, vehicle_params, wheel_params, controls, drive_state, wheel_scratch, body_telemetry, h):
    """Traction control, a slip controller: the throttle factor (0..1) the engine's torque is scaled by.

    e = (kappa_max - tc_slip) / tc_slip, kappa_max the largest slip of a driven wheel this substep. The
    factor's integral part (DS_TC) falls at e / tc_cut per second while e > 0 and rises at
    min(1, -e) / tc_restore per second while e < 0; the factor is that part minus TC_PROPORTIONAL e for
    e > 0, so the cut starts at once and in proportion, and the torque comes back smoothly."""
    slip = vehicle_params[v, VP_TC_SLIP]
    kappa = 0.0
    for i in range(NW):
        if wheel_params[v, i, WP_SHARE] > 0.0:
            kappa = max(kappa, wheel_scratch[v, i, W_KAPPA])
    e = (kappa - slip) / slip
    on = controls[v, CT_TC] > 0.5
    integral = drive_state[v, DS_TC]
    if on and e > 0.0:
        integral = max(0.0, integral - h * e / vehicle_params[v, VP_TC_CUT])
    else:
        integral = min(1.0, integral + h * min(1.0, -e if on else 1.0) / vehicle_params[v, VP_TC_RESTORE])
    drive_state[v, DS_TC] = integral
    factor = min(1.0, max(0.0, integral - TC_PROPORTIONAL * max(0.0, e))) if on else 1.0
    body_telemetry[v, TB_TC_ACTIVE] = 1.0 if factor < 1.0 else 0.0
    return factor


@leaf
def launch_control(v, vehicle_params, drive_state, pedal, g, omega_w, v_forward):
    """(whether launch control runs this substep, whether it has just ended); DS_LAUNCH. It starts when the
    car stands (under LAUNCH_START_SPEED) in first gear and the pedal is floored, and ends once the pedal
    lifts, the gear changes, the clutch has closed (its slip under LAUNCH_CLOSED of the engine speed) or
    the car passes LAUNCH_END_SPEED; only a new standing start begins another."""
    pedal_down = pedal > LAUNCH_PEDAL and drive_state[v, DS_GEAR] == 1.0 and g > 0.0
    omega_e = drive_state[v, DS_OMEGA_E]
    if drive_state[v, DS_LAUNCH] > 0.0:
        if not pedal_down or v_forward > LAUNCH_END_SPEED or omega_e - g * omega_w < LAUNCH_CLOSED * omega_e:
            drive_state[v, DS_LAUNCH] = 0.0
            return False, True
    elif vehicle_params[v, VP_LC_ON] > 0.5 and pedal_down and abs(v_forward) < LAUNCH_START_SPEED:
        drive_state[v, DS_LAUNCH] = 1.0
    return drive_state[v, DS_LAUNCH] > 0.0, False


@stage
def engine_stage(v, vehicle_params, wheel_params, controls, drive_state, wheel_scratch, body_telemetry, g, shifting,
                 omega_w, v_forward, h, esp_cut=1.0):
    """Throttle (traction control, idle controller, rev limiter, rev-matching while shifting), engine torque,
    clutch torque and the engine speed update. g: total ratio, shifting: from the gearbox; omega_w:
    driveline speed (rad/s); v_forward: road speed along the heading (m/s); h: substep (s). Returns the
    torque g T_clutch x efficiency (N m) the differentials share out.

    Launch control (when on): a standing start at full throttle in first gear, with the clutch still
    slipping, holds the engine at launch_control_rpm and lets traction control's factor set the clutch's
    engagement, so the torque reaching the wheels follows the slip controller directly."""
    omega_e = drive_state[v, DS_OMEGA_E]
    tc = traction_control(v, vehicle_params, wheel_params, controls, drive_state, wheel_scratch, body_telemetry, h)
    pedal = min(1.0, max(0.0, controls[v, CT_THROTTLE]))
    launching, handover = launch_control(v, vehicle_params, drive_state, pedal, g, omega_w, v_forward)
    t_full = torque_curve(vehicle_params[v, VP_CURVE_RPM:VP_CURVE_RPM + MAX_CURVE],
                          vehicle_params[v, VP_CURVE_NM:VP_CURVE_NM + MAX_CURVE],
                          int(vehicle_params[v, VP_NCURVE]), omega_e * RPM)
    if handover and t_full > 0.0:
        # launch control let go: the factor that held the clutch at tc Tcap now scales the engine's full
        # torque, so it carries over as tc Tcap / T_full and the wheels feel no step
        tc = min(1.0, tc * vehicle_params[v, VP_CLUTCH_T_MAX] / t_full)
        drive_state[v, DS_TC] = tc
    throttle = (pedal if launching else pedal * tc) * esp_cut     # esp_cut: stability control's factor
    # idle controller: more throttle the further the engine drops below idle
    idle = vehicle_params[v, VP_IDLE_OMEGA]
    throttle = min(1.0, throttle + max(0.0, vehicle_params[v, VP_IDLE_GAIN] * (idle - omega_e)))
    if shifting:
        # rev-matching: the engine heads for the speed the new gear will turn it at, on the fuel (pedal)
        # from below and with the fuel cut from above
        omega_sync = total_ratio(vehicle_params, v, int(drive_state[v, DS_GEAR_TARGET])) * omega_w
        if omega_e >= omega_sync and omega_sync > 0.0:
            throttle = 0.0                                           # (into neutral or reverse: idle)
        elif omega_sync > omega_e:
            throttle = max(throttle, vehicle_params[v, VP_BLIP])     # a downshift's blip, whatever the pedal
    limit = vehicle_params[v, VP_LC_OMEGA] if launching else vehicle_params[v, VP_REDLINE_OMEGA]
    if omega_e >= limit:
        throttle = 0.0                                               # rev limiter (launch control's): fuel cut
    t_engine = throttle * t_full - (1.0 - throttle) * engine_brake_torque(vehicle_params[v, VP_ENGINE_BRAKE], omega_e)
    # clutch: the pedal, the automatic launch (closing between idle and launch_rpm; with launch control
    # between idle and launch_control_rpm, so the engine gets there first), traction control (a slipping
    # clutch passes at most tc Tcap, so a clutch closing after a shift cannot spin the wheels), open
    # while shifting
    engage = 1.0 - min(1.0, max(0.0, controls[v, CT_CLUTCH]))
    full = vehicle_params[v, VP_LC_OMEGA] if launching else vehicle_params[v, VP_LAUNCH_OMEGA]
    engage = min(engage, min(1.0, max(0.0, (omega_e - idle) / max(full - idle, 1e-6))))
    engage = min(engage, tc)
    t_clutch = 0.0
    inv_ie = 1.0 / vehicle_params[v, VP_IE]                          # one division for three uses
    if g != 0.0 and not shifting:
        # the clutch law with the slip taken at the end of the substep (backward Euler, linearised): the
        # slip the engine and the wheels would reach without the clutch, plus the clutch's own effect
        #   slip' = slip + h (Te / Ie - g a_w) - h T_clutch (1/Ie + g^2 eff sum(share_i^2 / I_i))
        # with each driven wheel's road torque -rho Fx and its tire-stiffened inertia I_i = Iw + h rho k (as
        # the wheel update solves it); T_clutch = clamp(Kc slip'), so the slip a steady torque needs is
        # T / Kc at any substep
        kc = vehicle_params[v, VP_CLUTCH_K]
        eff = vehicle_params[v, VP_EFF]
        compliance = inv_ie
        a_w = 0.0
        for i in range(NW):
            share = wheel_params[v, i, WP_SHARE]
            if share > 0.0:
                inv_w = 1.0 / wheel_inertia_with_tire(v, i, wheel_params, wheel_scratch, h)
                compliance += g * g * eff * share * share * inv_w
                a_w -= share * wheel_scratch[v, i, W_RHO] * wheel_scratch[v, i, W_FX] * inv_w
        slip_free = omega_e - g * omega_w + h * (t_engine * inv_ie - g * a_w)
        t_max = vehicle_params[v, VP_CLUTCH_T_MAX] * engage
        t_clutch = clutch_torque(kc / (1.0 + kc * h * compliance), slip_free, t_max)
    omega_next = omega_e + h * (t_engine - t_clutch) * inv_ie         # omegaE += h (Te - Tclutch) / Ie
    drive_state[v, DS_OMEGA_E] = max(0.0, omega_next)
    body_telemetry[v, TB_RPM] = drive_state[v, DS_OMEGA_E] * RPM
    body_telemetry[v, TB_GEAR] = drive_state[v, DS_GEAR]
    body_telemetry[v, TB_T_ENGINE] = t_engine
    body_telemetry[v, TB_T_CLUTCH] = t_clutch
    return g * t_clutch * vehicle_params[v, VP_EFF]
