"""Brakes and ABS (docs/physics.md §3): how much brake torque each wheel may apply this substep.

T_brake_max = pedal x per-axle maximum x ABS factor + handbrake x its maximum (rear wheels).

ABS is a slip controller per wheel, the twin of traction control (`sim/kernel/engine.py`): with the braking slip
of this substep (the tire stage runs first) e = (-kappa - abs_slip) / abs_slip, the factor's integral
part (WS_ABS) falls at e / abs_release_time per second while e > 0 and climbs back at
min(1, -e) / abs_apply_time per second otherwise; the factor is that part minus ABS_PROPORTIONAL e for
e > 0. The brake rule that applies the torque is the wheel's (`sim/kernel/spin.py`).

Stability control (ESP, docs/physics.md §3.1) compares the yaw rate r with the one the steering asks for,
the single-track model's r_ref = v delta / (L + K v^2) kept within esp_mu mu g / v. Past a threshold it
brakes one wheel: the outer front when the car turns more than asked (oversteer), the inner rear when it
turns less (understeer), with esp_gain x the excess error, and cuts the throttle by esp_cut x the excess.
It keeps no state of its own.
"""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.tables import CT_ABS
from sim.kernel.tables import CT_BRAKE
from sim.kernel.tables import CT_ESP
from sim.kernel.tables import CT_HANDBRAKE
from sim.kernel.tables import NW
from sim.kernel.tables import TB_ESP_CUT
from sim.kernel.tables import TB_YAW_REF
from sim.kernel.tables import VP_ABS_APPLY
from sim.kernel.tables import VP_ABS_RELEASE
from sim.kernel.tables import VP_ABS_SLIP
from sim.kernel.tables import VP_ESP_CUT
from sim.kernel.tables import VP_ESP_GAIN
from sim.kernel.tables import VP_ESP_K
from sim.kernel.tables import VP_ESP_MIN_SPEED
from sim.kernel.tables import VP_ESP_MU
from sim.kernel.tables import VP_ESP_THRESHOLD
from sim.kernel.tables import VP_WHEELBASE
from sim.kernel.tables import W_ABS
from sim.kernel.tables import W_ESP
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_KAPPA
from sim.kernel.tables import W_MU
from sim.kernel.tables import W_STEER
from sim.kernel.tables import W_T_BRAKE_MAX
from sim.kernel.tables import WP_STEERS
from sim.kernel.tables import WP_TBRAKE
from sim.kernel.tables import WP_THAND
from sim.kernel.tables import WS_ABS
from sim.kernel.vec import dot
from sim.kernel.vec import quat_axis_z

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


@leaf
def esp_reference(v_forward, delta, wheelbase, k_us, mu, gravity, mu_share):
    """The yaw rate the steering asks for (rad/s): r = v delta / (L + K v^2) (the single-track model with
    understeer coefficient K), kept within mu_share mu g / |v| (what the grip can turn the car at)."""
    r = v_forward * delta / (wheelbase + k_us * v_forward * v_forward)
    cap = mu_share * mu * gravity / max(abs(v_forward), 1e-3)
    return min(cap, max(-cap, r))


@leaf
def esp_wheel(r, r_ref):
    """The wheel to brake (FL 0, FR 1, RL 2, RR 3): turning more than asked (|r| > |r_ref|, oversteer) the
    outer front of the way the car turns, less (understeer) the inner rear of the way the steering asks.
    Braking a right wheel turns the car right (a negative yaw moment), a left wheel left."""
    if abs(r) > abs(r_ref):
        return 1 if r > 0.0 else 0
    return 2 if r_ref > 0.0 else 3


@stage
def esp_stage(v, vehicle_params, wheel_params, controls, q, w, v_forward, wheel_scratch, body_telemetry, gravity):
    """Stability control after the brakes: adds its brake torque to one wheel's W_T_BRAKE_MAX (W_ESP says
    how much), records the asked-for yaw rate and the throttle factor (TB_YAW_REF, TB_ESP_CUT) and returns
    the factor (1: no cut) for the engine."""
    steer, steered, mu, grounded = 0.0, 0, 0.0, 0
    for i in range(NW):
        wheel_scratch[v, i, W_ESP] = 0.0
        if wheel_params[v, i, WP_STEERS] > 0.5:
            steer += wheel_scratch[v, i, W_STEER]
            steered += 1
        if wheel_scratch[v, i, W_GROUNDED] > 0.5:
            mu += wheel_scratch[v, i, W_MU]
            grounded += 1
    delta = steer / steered if steered else 0.0
    mu = mu / grounded if grounded else 1.0
    r = dot(w, quat_axis_z(q))                       # yaw rate about the body's z axis
    r_ref = esp_reference(v_forward, delta, vehicle_params[v, VP_WHEELBASE], vehicle_params[v, VP_ESP_K], mu,
                          gravity, vehicle_params[v, VP_ESP_MU])
    body_telemetry[v, TB_YAW_REF] = r_ref
    body_telemetry[v, TB_ESP_CUT] = 1.0
    if controls[v, CT_ESP] < 0.5 or v_forward < vehicle_params[v, VP_ESP_MIN_SPEED] or grounded == 0:
        return 1.0
    excess = abs(r - r_ref) - vehicle_params[v, VP_ESP_THRESHOLD]
    if excess <= 0.0:
        return 1.0
    i = esp_wheel(r, r_ref)
    torque = min(vehicle_params[v, VP_ESP_GAIN] * excess, wheel_params[v, i, WP_TBRAKE])
    wheel_scratch[v, i, W_T_BRAKE_MAX] += torque
    wheel_scratch[v, i, W_ESP] = torque
    cut = max(0.0, 1.0 - vehicle_params[v, VP_ESP_CUT] * excess)
    body_telemetry[v, TB_ESP_CUT] = cut
    return cut
