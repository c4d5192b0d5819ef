"""Wheel spin with the brake rule (docs/physics.md §9), and the commit of each wheel's state."""
from __future__ import annotations

import math

from sim.differential import lock_axles
from sim.jit import kernel, leaf
from sim.tables import NW, VP_DIRECT, W_FX, W_KAPPA, W_NX, W_OMEGA_NEXT, W_RHO, W_SHAPE, W_STEER, W_T_BRAKE, \
    W_T_BRAKE_MAX, W_T_DRIVE, WP_IW, WS_ANGLE, WS_KAPPA, WS_NX, WS_OMEGA, WS_SHAPE, WS_STEER
from sim.vec import get3w, set3w

TWO_PI = 2.0 * math.pi


@leaf
def wheel_spin(omega, t_drive, t_brake, rho, fx, iw, h):
    """One explicit step of h seconds of the wheel's spin.

    omega* = omega + h (T_drive - rho Fx) / Iw, with the *limited* Fx (N) of this step;
    omegaNext = sign(omega*) max(0, |omega*| - h Tb / Iw): the brake (Tb >= 0, N m) acts against the
    predicted spin, stops exactly at zero and never reverses it.
    Returns (omegaNext, T_brake_actual): the brake torque actually applied, back-computed from
    (omega* - omegaNext) Iw / h (N m, signed along the spin axis; smaller than Tb when it stopped)."""
    omega_star = omega + h * (t_drive - rho * fx) / iw
    mag = max(0.0, abs(omega_star) - h * t_brake / iw)
    omega_next = -mag if (omega_star < 0.0 and mag > 0.0) else mag
    return omega_next, (omega_star - omega_next) * iw / h


@kernel
def wheel_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, h):
    """Spin each wheel with its limited Fx, drive torque and the brake rule (W_OMEGA_NEXT, and the brake
    torque actually applied, W_T_BRAKE); a locked differential then shares one speed between its two
    wheels. Commits the wheel state: spin, spin angle, steering angle, the contact it touched (for nDot)
    and its slip (for ABS and traction control next substep). h: substep (s)."""
    for i in range(NW):
        omega_next, t_brake = wheel_spin(wheel_state[v, i, WS_OMEGA], wheel_scratch[v, i, W_T_DRIVE],
                                         wheel_scratch[v, i, W_T_BRAKE_MAX], wheel_scratch[v, i, W_RHO],
                                         wheel_scratch[v, i, W_FX], wheel_params[v, i, WP_IW], h)
        wheel_scratch[v, i, W_T_BRAKE] = t_brake
        wheel_scratch[v, i, W_OMEGA_NEXT] = omega_next
    if vehicle_params[v, VP_DIRECT] < 0.5:
        lock_axles(v, vehicle_params, wheel_params, wheel_scratch)
    for i in range(NW):
        omega_next = wheel_scratch[v, i, W_OMEGA_NEXT]
        wheel_state[v, i, WS_OMEGA] = omega_next
        wheel_state[v, i, WS_STEER] = wheel_scratch[v, i, W_STEER]
        wheel_state[v, i, WS_ANGLE] = (wheel_state[v, i, WS_ANGLE] + omega_next * h) % TWO_PI
        wheel_state[v, i, WS_SHAPE] = wheel_scratch[v, i, W_SHAPE]
        set3w(wheel_state, v, i, WS_NX, get3w(wheel_scratch, v, i, W_NX))
        wheel_state[v, i, WS_KAPPA] = wheel_scratch[v, i, W_KAPPA]
