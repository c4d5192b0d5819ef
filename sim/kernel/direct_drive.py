"""Direct drive (docs/physics.md §4.6): the stand-in for the powertrain when `drive.mode = "direct"`.

Each driven wheel gets throttle (-1..1, negative drives backwards) x its maximum torque, fading linearly to
zero as the wheel approaches `max_wheel_speed` in the driven direction (like an electric motor; without
the fade a spinning or airborne wheel would run away, and its spin momentum would tip the car). Steering
and brakes are the same as with the engine.
"""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.tables import CT_THROTTLE
from sim.kernel.tables import NW
from sim.kernel.tables import W_T_DRIVE
from sim.kernel.tables import WP_TDRIVE
from sim.kernel.tables import WP_WMAX
from sim.kernel.tables import WS_OMEGA


@leaf
def direct_drive_torque(throttle, omega, t_drive_max, omega_max):
    """T_drive (N m) = throttle T_max clamp(1 - omega_along / omega_max, 0, 1), where omega_along is the
    wheel speed (rad/s) in the direction the throttle drives."""
    th = min(1.0, max(-1.0, throttle))
    along = omega if th >= 0.0 else -omega
    fade = min(1.0, max(0.0, 1.0 - along / omega_max))
    return th * t_drive_max * fade


@stage
def direct_drive_stage(v, wheel_params, controls, wheel_state, wheel_scratch):
    """W_T_DRIVE for every wheel (zero maximum on the undriven ones)."""
    for i in range(NW):
        wheel_scratch[v, i, W_T_DRIVE] = direct_drive_torque(controls[v, CT_THROTTLE], wheel_state[v, i, WS_OMEGA],
                                                             wheel_params[v, i, WP_TDRIVE], wheel_params[v, i, WP_WMAX])
