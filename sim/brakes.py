"""Brakes and ABS (docs/physics.md §3): how much brake torque each wheel may apply this substep.

T_brake_max = pedal x per-axle maximum x ABS factor + handbrake x its maximum (rear wheels).

ABS is a slip controller per wheel, the twin of traction control (`sim/engine.py`): with the braking slip
of this substep (the tire stage runs first) e = (-kappa - abs_slip) / abs_slip, the factor's integral
part (WS_ABS) falls at e / abs_release_time per second while e > 0 and climbs back at
min(1, -e) / abs_apply_time per second otherwise; the factor is that part minus ABS_PROPORTIONAL e for
e > 0. The brake rule that applies the torque is the wheel's (`sim/wheel.py`).
"""
from __future__ import annotations

from sim.jit import stage
from sim.tables import CT_ABS, CT_BRAKE, CT_HANDBRAKE, NW, VP_ABS_APPLY, VP_ABS_RELEASE, VP_ABS_SLIP, W_ABS, W_KAPPA, \
    W_T_BRAKE_MAX, WP_TBRAKE, WP_THAND, WS_ABS

ABS_PROPORTIONAL = 0.5     # -: ABS's immediate release per unit of relative excess braking slip


@stage
def brake_stage(v, vehicle_params, wheel_params, controls, wheel_state, wheel_scratch, h):
    """Writes W_T_BRAKE_MAX (N m) and the ABS flag W_ABS; advances the ABS integral WS_ABS. h: substep (s)."""
    brake = min(1.0, max(0.0, controls[v, CT_BRAKE]))
    hand = min(1.0, max(0.0, controls[v, CT_HANDBRAKE]))
    abs_on = controls[v, CT_ABS] > 0.5 and brake > 0.0
    slip = vehicle_params[v, VP_ABS_SLIP]
    for i in range(NW):
        e = (-wheel_scratch[v, i, W_KAPPA] - slip) / slip                # an airborne wheel's slip is 0
        integral = wheel_state[v, i, WS_ABS]
        if abs_on and e > 0.0:
            integral = max(0.0, integral - h * e / vehicle_params[v, VP_ABS_RELEASE])
        else:
            integral = min(1.0, integral + h * min(1.0, -e if abs_on else 1.0) / vehicle_params[v, VP_ABS_APPLY])
        wheel_state[v, i, WS_ABS] = integral
        factor = min(1.0, max(0.0, integral - ABS_PROPORTIONAL * max(0.0, e))) if abs_on else 1.0
        wheel_scratch[v, i, W_ABS] = 1.0 if factor < 1.0 else 0.0
        t_brake = brake * wheel_params[v, i, WP_TBRAKE] * factor
        wheel_scratch[v, i, W_T_BRAKE_MAX] = t_brake + hand * wheel_params[v, i, WP_THAND]
