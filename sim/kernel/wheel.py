"""Wheel spin with the brake rule (docs/physics.md §9), and the commit of each wheel's state.

Two updates, chosen per axle (`tire.spin_update`):
    explicit  the seed's step with the tire force of the substep's start; stable only while
              h rho^2 (dFx/dkappa) / (Iw max(|vx|, vMin)) < 2
    implicit  the tire force linearised in the wheel speed, Fx(omega') = Fx + k (omega' - omega) with
              k = dFx/domega = (dFx/dkappa) rho / max(|vx|, vMin) >= 0, and the spin solved with it:
              the wheel meets the tire's own force at the end of the substep, at any substep count.
"""
from __future__ import annotations

import math

from sim.kernel.differential import lock_axles
from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.spin import SPIN_IMPLICIT
from sim.kernel.spin import tire_spin_stiffness
from sim.kernel.spin import wheel_spin
from sim.kernel.spin import wheel_spin_implicit
from sim.kernel.tables import NW
from sim.kernel.tables import VP_DIRECT
from sim.kernel.tables import W_BX
from sim.kernel.tables import W_FTX
from sim.kernel.tables import W_FX
from sim.kernel.tables import W_FY
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_LRAW
from sim.kernel.tables import W_MU
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_OMEGA_NEXT
from sim.kernel.tables import W_RHO
from sim.kernel.tables import W_SHAPE
from sim.kernel.tables import W_STEER
from sim.kernel.tables import W_T_BRAKE
from sim.kernel.tables import W_T_BRAKE_MAX
from sim.kernel.tables import W_T_DRIVE
from sim.kernel.tables import W_TX
from sim.kernel.tables import WP_IW
from sim.kernel.tables import WP_LMAX
from sim.kernel.tables import WP_MODEL
from sim.kernel.tables import WP_SPIN
from sim.kernel.tables import WS_ANGLE
from sim.kernel.tables import WS_LRAW
from sim.kernel.tables import WS_NX
from sim.kernel.tables import WS_OMEGA
from sim.kernel.tables import WS_SHAPE
from sim.kernel.tables import WS_SINK
from sim.kernel.tables import WS_STEER
from sim.kernel.tire import MODEL_AVS
from sim.kernel.tire import MODEL_CHAOS
from sim.kernel.tire.avs import avs_wheel
from sim.kernel.tire.chaos import chaos_wheel
from sim.kernel.vec import add
from sim.kernel.vec import get3w
from sim.kernel.vec import scale
from sim.kernel.vec import set3w

TWO_PI = 2.0 * math.pi


@leaf
def sink_rolled(sink, omega, h):
    """What is left (m) of how far a wheel sits in a surface it met from the air (sim/kernel/contact.py
    landing_sink) after it rolls |omega| h rad: sink / (1 + |omega| h), an e-fold a radian (the way a tire rolls
    up onto a step, over about a radius); a wheel that does not roll keeps it."""
    return sink / (1.0 + abs(omega) * h)


@leaf
def wrap_angle(x):
    """x % TWO_PI, in [0, 2 pi). An angle already inside (0, 2 pi), nearly always the case, is returned as it
    is (the remainder would give exactly x) without the call to fmod; 0, -0, negatives, 2 pi and beyond,
    inf and nan take the remainder itself."""
    if 0.0 < x < TWO_PI:
        return x
    return x % TWO_PI


@stage
def wheel_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, h):
    """Spin each wheel with its limited Fx, drive torque and the brake rule (W_OMEGA_NEXT, and the brake
    torque actually applied, W_T_BRAKE); with the implicit update the tire force becomes the one at the
    new speed (W_FX, W_FTX). A locked differential then shares one speed between its two wheels. Commits
    the wheel state: spin, spin angle, steering angle and the contact it touched (for nDot). h: substep (s)."""
    for i in range(NW):
        model = int(wheel_params[v, i, WP_MODEL])
        omega = wheel_state[v, i, WS_OMEGA]
        t_drive = wheel_scratch[v, i, W_T_DRIVE]
        t_brake_max = wheel_scratch[v, i, W_T_BRAKE_MAX]
        rho = wheel_scratch[v, i, W_RHO]
        fx = wheel_scratch[v, i, W_FX]
        iw = wheel_params[v, i, WP_IW]
        if model == MODEL_CHAOS and wheel_scratch[v, i, W_GROUNDED] > 0.0:
            omega_next, t_brake = chaos_wheel(v, i, wheel_params, wheel_scratch, omega, t_drive, t_brake_max, rho,
                                              iw, h)
        elif model == MODEL_AVS and wheel_scratch[v, i, W_GROUNDED] > 0.0:
            omega_next, t_brake = avs_wheel(v, i, wheel_params, wheel_state, wheel_scratch, omega, t_drive,
                                            t_brake_max, rho, iw, h)
        elif int(wheel_params[v, i, WP_SPIN]) == SPIN_IMPLICIT:
            k = tire_spin_stiffness(v, i, wheel_params, wheel_scratch)
            omega_next, t_brake, fx_end = wheel_spin_implicit(omega, t_drive, t_brake_max, rho, fx, k, iw, h)
            # the linearisation may not leave the friction budget: a force cut back to it is saturated
            # (no slope), and the explicit step with it is exact
            budget = wheel_scratch[v, i, W_MU] * wheel_scratch[v, i, W_FZ]
            fy = wheel_scratch[v, i, W_FY]
            fx_max = math.sqrt(max(0.0, budget * budget - fy * fy))
            if abs(fx_end) > fx_max:
                fx_end = fx_max if fx_end > 0.0 else -fx_max
                omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx_end, iw, h)
            wheel_scratch[v, i, W_FX] = fx_end
            set3w(wheel_scratch, v, i, W_FTX, add(scale(get3w(wheel_scratch, v, i, W_TX), fx_end),
                                                  scale(get3w(wheel_scratch, v, i, W_BX), fy)))
        else:
            omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx, iw, h)
        wheel_scratch[v, i, W_T_BRAKE] = t_brake
        wheel_scratch[v, i, W_OMEGA_NEXT] = omega_next
    if vehicle_params[v, VP_DIRECT] < 0.5:
        lock_axles(v, vehicle_params, wheel_params, wheel_scratch)
    for i in range(NW):
        omega_next = wheel_scratch[v, i, W_OMEGA_NEXT]
        wheel_state[v, i, WS_OMEGA] = omega_next
        wheel_state[v, i, WS_STEER] = wheel_scratch[v, i, W_STEER]
        wheel_state[v, i, WS_ANGLE] = wrap_angle(wheel_state[v, i, WS_ANGLE] + omega_next * h)   # mod 2 pi
        wheel_state[v, i, WS_SHAPE] = wheel_scratch[v, i, W_SHAPE]
        wheel_state[v, i, WS_LRAW] = wheel_scratch[v, i, W_LRAW] if wheel_scratch[v, i, W_GROUNDED] > 0.0 \
            else wheel_params[v, i, WP_LMAX]
        wheel_state[v, i, WS_SINK] = sink_rolled(wheel_state[v, i, WS_SINK], omega_next, h) \
            if wheel_scratch[v, i, W_GROUNDED] > 0.0 else 0.0
        set3w(wheel_state, v, i, WS_NX, get3w(wheel_scratch, v, i, W_NX))
