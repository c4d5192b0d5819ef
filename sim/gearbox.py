"""Gearbox and automatic shifting (docs/physics.md §4.3).

The gearbox holds the engaged gear in drive_state. A shift (driver request or automatic) opens the clutch
and cuts the fuel for shift_time, then engages the target gear; the total ratio g is 0 meanwhile and in
neutral, negative in reverse. The automatic judges by the engine speed the wheels imply in the current
gear (the driveline speed), not by the engine's own speed, which flares while the clutch is open.
"""
from __future__ import annotations

from sim.jit import kernel, leaf
from sim.tables import CT_GEAR, CT_SHIFT, CT_THROTTLE, DS_GEAR, DS_GEAR_TARGET, DS_SHIFT_T, NO_GEAR, VP_AUTO, \
    VP_DOWN_OMEGA, VP_FINAL, VP_KICKDOWN_BELOW, VP_KICKDOWN_HEADROOM, VP_KICKDOWN_THROTTLE, VP_NGEARS, VP_RATIO, \
    VP_REVERSE, VP_SHIFT_TIME, VP_UP_OMEGA


@leaf
def total_ratio(vehicle_params, v, gear):
    """The signed total ratio g (gear x final drive) of `gear`: negative in reverse, 0 in neutral."""
    if gear == 0:
        return 0.0
    if gear < 0:
        return -vehicle_params[v, VP_REVERSE] * vehicle_params[v, VP_FINAL]
    return vehicle_params[v, VP_RATIO + gear - 1] * vehicle_params[v, VP_FINAL]


@leaf
def automatic_target(v, vehicle_params, controls, gear, omega_w):
    """The gear the automatic wants from `gear` (>= 1) at driveline speed omega_w (rad/s): up above the
    upshift speed, down below the downshift speed, and one down at (nearly) full throttle when the
    engine is slow and the lower gear keeps it below the upshift speed (kick-down)."""
    n = int(vehicle_params[v, VP_NGEARS])
    up = vehicle_params[v, VP_UP_OMEGA]
    omega_e = vehicle_params[v, VP_RATIO + gear - 1] * vehicle_params[v, VP_FINAL] * omega_w
    if omega_e > up and gear < n:
        return gear + 1
    if omega_e < vehicle_params[v, VP_DOWN_OMEGA] and gear > 1:
        return gear - 1
    if controls[v, CT_THROTTLE] > vehicle_params[v, VP_KICKDOWN_THROTTLE] and gear > 1:
        lower = omega_e * vehicle_params[v, VP_RATIO + gear - 2] / vehicle_params[v, VP_RATIO + gear - 1]
        if lower < vehicle_params[v, VP_KICKDOWN_HEADROOM] * up and omega_e < vehicle_params[v, VP_KICKDOWN_BELOW] * up:
            return gear - 1
    return gear


@kernel
def gearbox_stage(v, vehicle_params, controls, drive_state, omega_w, h):
    """Shift requests, automatic shifting and the shift timer. Returns the signed total ratio g (0 in
    neutral and while a shift has the clutch open) and whether a shift is in progress.

    omega_w: the driveline speed (rad/s, `sim/differential.py`); h: substep (s)."""
    gear = int(drive_state[v, DS_GEAR])
    n = int(vehicle_params[v, VP_NGEARS])
    if drive_state[v, DS_SHIFT_T] > 0.0:
        drive_state[v, DS_SHIFT_T] -= h
        if drive_state[v, DS_SHIFT_T] <= 0.0:
            drive_state[v, DS_SHIFT_T] = 0.0
            gear = int(drive_state[v, DS_GEAR_TARGET])
            drive_state[v, DS_GEAR] = gear
    else:
        target = gear
        request = controls[v, CT_GEAR]
        if request != NO_GEAR:
            target = int(min(n, max(-1.0, request)))
        elif controls[v, CT_SHIFT] != 0.0:
            target = int(min(n, max(-1, gear + (1 if controls[v, CT_SHIFT] > 0.0 else -1))))
        elif vehicle_params[v, VP_AUTO] > 0.5 and gear >= 1:
            target = automatic_target(v, vehicle_params, controls, gear, omega_w)
        if target != gear:
            drive_state[v, DS_GEAR_TARGET] = target
            drive_state[v, DS_SHIFT_T] = max(vehicle_params[v, VP_SHIFT_TIME], 1e-9)
    shifting = drive_state[v, DS_SHIFT_T] > 0.0
    if shifting:
        return 0.0, shifting
    return total_ratio(vehicle_params, v, gear), shifting
