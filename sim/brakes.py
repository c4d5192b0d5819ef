"""Brakes and ABS (docs/physics.md §3): how much brake torque each wheel may apply this substep.

T_brake_max = pedal x per-axle maximum x ABS factor + handbrake x its maximum (rear wheels). ABS eases a
wheel's factor toward 0 while that wheel's slip of the last substep is below -abs_slip, and back toward 1
otherwise. The brake rule that applies the torque is the wheel's (`sim/wheel.py`).
"""
from __future__ import annotations

from sim.jit import kernel
from sim.tables import CT_ABS, CT_BRAKE, CT_HANDBRAKE, NW, VP_ABS_APPLY, VP_ABS_RELEASE, VP_ABS_SLIP, W_ABS, \
    W_T_BRAKE_MAX, WP_TBRAKE, WP_THAND, WS_ABS, WS_KAPPA


@kernel
def brake_stage(v, vehicle_params, wheel_params, controls, wheel_state, wheel_scratch, h):
    """Writes W_T_BRAKE_MAX (N m) and the ABS flag W_ABS; advances the ABS factor WS_ABS. h: substep (s)."""
    brake = min(1.0, max(0.0, controls[v, CT_BRAKE]))
    hand = min(1.0, max(0.0, controls[v, CT_HANDBRAKE]))
    abs_on = controls[v, CT_ABS] > 0.5
    for i in range(NW):
        # ABS: release (to zero in abs_release s) while the wheel's slip is below -abs_slip, re-apply
        # (to one in abs_apply s) otherwise; an airborne wheel's slip is 0, so ABS leaves it alone
        factor = wheel_state[v, i, WS_ABS]
        if abs_on and brake > 0.0 and wheel_state[v, i, WS_KAPPA] < -vehicle_params[v, VP_ABS_SLIP]:
            factor = max(0.0, factor - h / vehicle_params[v, VP_ABS_RELEASE])
        else:
            factor = min(1.0, factor + h / vehicle_params[v, VP_ABS_APPLY])
        wheel_state[v, i, WS_ABS] = factor
        wheel_scratch[v, i, W_ABS] = 1.0 if factor < 1.0 and abs_on and brake > 0.0 else 0.0
        t_brake = brake * wheel_params[v, i, WP_TBRAKE] * (factor if abs_on else 1.0)
        wheel_scratch[v, i, W_T_BRAKE_MAX] = t_brake + hand * wheel_params[v, i, WP_THAND]
