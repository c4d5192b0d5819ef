"""Gearbox and automatic shifting (docs/physics.md §4.3).

The gearbox holds the engaged gear in drive_state. A shift (driver request or automatic) opens the clutch
and cuts the fuel for shift_time, then engages the target gear; the total ratio g is 0 meanwhile and in
neutral, negative in reverse.

The automatic judges by the road as well as the engine: omega_road = g v / r is the engine speed the
car's forward speed implies in the current gear (r: the driven wheels' radius). It shifts up once the
engine is past the upshift speed and the road speed would keep it above the downshift speed in the next
gear (spinning wheels rev the engine but do not move the car, so a wheelspin launch stays in gear), down
once road and engine are both below the downshift speed, and it never shifts back the other way within
shift_hold seconds of its last shift: no hunting.
"""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.tables import CT_GEAR
from sim.kernel.tables import CT_SHIFT
from sim.kernel.tables import CT_THROTTLE
from sim.kernel.tables import DS_GEAR
from sim.kernel.tables import DS_GEAR_TARGET
from sim.kernel.tables import DS_LAST_SHIFT
from sim.kernel.tables import DS_OMEGA_E
from sim.kernel.tables import DS_SHIFT_T
from sim.kernel.tables import DS_SINCE_SHIFT
from sim.kernel.tables import NO_GEAR
from sim.kernel.tables import NW
from sim.kernel.tables import VP_AUTO
from sim.kernel.tables import VP_DOWN_OMEGA
from sim.kernel.tables import VP_FINAL
from sim.kernel.tables import VP_KICKDOWN_BELOW
from sim.kernel.tables import VP_KICKDOWN_HEADROOM
from sim.kernel.tables import VP_KICKDOWN_THROTTLE
from sim.kernel.tables import VP_NGEARS
from sim.kernel.tables import VP_RATIO
from sim.kernel.tables import VP_REVERSE
from sim.kernel.tables import VP_SHIFT_HOLD
from sim.kernel.tables import VP_SHIFT_TIME
from sim.kernel.tables import VP_UP_LIGHT
from sim.kernel.tables import VP_UP_OMEGA
from sim.kernel.tables import WP_R
from sim.kernel.tables import WP_SHARE


@leaf
def total_ratio(vehicle_params, v, gear):
    """The signed total ratio g (gear x final drive) of `gear`: negative in reverse, 0 in neutral."""
    if gear == 0:
        return 0.0
    if gear < 0:
        return -vehicle_params[v, VP_REVERSE] * vehicle_params[v, VP_FINAL]
    return vehicle_params[v, VP_RATIO + gear - 1] * vehicle_params[v, VP_FINAL]


@leaf
def driven_radius(v, wheel_params):
    """Mean radius (m) of the driven wheels (of all wheels when none is driven)."""
    total = 0.0
    count = 0
    for i in range(NW):
        if wheel_params[v, i, WP_SHARE] > 0.0:
            total += wheel_params[v, i, WP_R]
            count += 1
    if count == 0:
        for i in range(NW):
            total += wheel_params[v, i, WP_R]
        count = NW
    return total / count


@leaf
def automatic_target(v, vehicle_params, controls, drive_state, gear, omega_road):
    """The gear the automatic wants from `gear` (>= 1). omega_road: the engine speed the road speed implies
    in this gear (rad/s). Up when the engine is past the upshift speed (shift_up_light of it with the pedal
    lifted, rising with the pedal to all of it at full throttle) and the road speed would keep it
    above the downshift speed in the next gear; down when road and engine are both below the downshift
    speed, or at (nearly) full throttle with the engine slow and the lower gear keeping it below the
    upshift speed (kick-down); never back the other way within shift_hold of the last shift."""
    n = int(vehicle_params[v, VP_NGEARS])
    up = vehicle_params[v, VP_UP_OMEGA]
    # the shift point rises with the pedal: early with a light foot, held back to `up` at full throttle
    light = vehicle_params[v, VP_UP_LIGHT]
    up_now = up * (light + (1.0 - light) * min(1.0, max(0.0, controls[v, CT_THROTTLE]))) if light < 1.0 else up
    omega_e = drive_state[v, DS_OMEGA_E]
    held = drive_state[v, DS_SINCE_SHIFT] < vehicle_params[v, VP_SHIFT_HOLD]
    may_up = not (held and drive_state[v, DS_LAST_SHIFT] < 0.0)
    may_down = not (held and drive_state[v, DS_LAST_SHIFT] > 0.0)
    # up: the engine has reached the upshift speed and the road speed keeps it above the downshift speed
    # in the next gear (a wheelspin launch revs the engine without the road speed: it stays in gear)
    if may_up and gear < n and omega_e > up_now and \
            omega_road * vehicle_params[v, VP_RATIO + gear] / vehicle_params[v, VP_RATIO + gear - 1] > \
            vehicle_params[v, VP_DOWN_OMEGA]:
        return gear + 1
    if may_down and gear > 1:
        if max(omega_road, omega_e) < vehicle_params[v, VP_DOWN_OMEGA]:
            return gear - 1
        if controls[v, CT_THROTTLE] > vehicle_params[v, VP_KICKDOWN_THROTTLE]:
            lower = omega_road * vehicle_params[v, VP_RATIO + gear - 2] / vehicle_params[v, VP_RATIO + gear - 1]
            if lower < vehicle_params[v, VP_KICKDOWN_HEADROOM] * up and \
                    omega_road < vehicle_params[v, VP_KICKDOWN_BELOW] * up:
                return gear - 1
    return gear


@stage
def gearbox_stage(v, vehicle_params, wheel_params, controls, drive_state, v_forward, h):
    """Shift requests, automatic shifting and the shift timer. Returns the signed total ratio g (0 in
    neutral and while a shift has the clutch open) and whether a shift is in progress.

    v_forward: the car's speed along its heading (m/s); h: substep (s)."""
    gear = int(drive_state[v, DS_GEAR])
    n = int(vehicle_params[v, VP_NGEARS])
    drive_state[v, DS_SINCE_SHIFT] += h
    if drive_state[v, DS_SHIFT_T] > 0.0:
        drive_state[v, DS_SHIFT_T] -= h
        if drive_state[v, DS_SHIFT_T] <= 0.0:
            drive_state[v, DS_SHIFT_T] = 0.0
            target = int(drive_state[v, DS_GEAR_TARGET])
            drive_state[v, DS_LAST_SHIFT] = 1.0 if target > gear else -1.0
            drive_state[v, DS_SINCE_SHIFT] = 0.0
            gear = target
            drive_state[v, DS_GEAR] = gear
    else:
        target = gear
        request = controls[v, CT_GEAR]
        if request != NO_GEAR:
            target = int(min(n, max(-1.0, request)))
        elif controls[v, CT_SHIFT] != 0.0:
            target = int(min(n, max(-1, gear + (1 if controls[v, CT_SHIFT] > 0.0 else -1))))
        elif vehicle_params[v, VP_AUTO] > 0.5 and gear >= 1:
            omega_road = total_ratio(vehicle_params, v, gear) * v_forward / driven_radius(v, wheel_params)
            target = automatic_target(v, vehicle_params, controls, drive_state, gear, omega_road)
        if target != gear:
            drive_state[v, DS_GEAR_TARGET] = target
            drive_state[v, DS_SHIFT_T] = max(vehicle_params[v, VP_SHIFT_TIME], 1e-9)
    shifting = drive_state[v, DS_SHIFT_T] > 0.0
    if shifting:
        return 0.0, shifting
    return total_ratio(vehicle_params, v, gear), shifting
