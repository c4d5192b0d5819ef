"""Direct drive: the stand-in for the powertrain (issue 4 replaces it with engine, clutch, gears, diffs).

throttle (-1..1, negative drives backwards) x the per-wheel maximum on the driven wheels, fading linearly
to zero as the wheel approaches `max_wheel_speed` in the driven direction (like an electric motor; without
it a spinning or airborne wheel would run away, and its spin momentum would tip the car); brake (0..1) x
the per-wheel brake maximum on all wheels; handbrake (0..1) x its maximum on the rear wheels; steer
(-1..1, positive turns left) x the maximum road-wheel angle on the steered wheels (parallel steering).
"""
from __future__ import annotations

from sim.jit import leaf


@leaf
def direct_drive(throttle, brake, steer, handbrake, omega, t_drive_max, omega_max, t_brake_max, t_hand_max,
                 steers, steer_max):
    """Returns (T_drive (N m), T_brake magnitude (N m, >= 0), road-wheel angle (rad)) for one wheel.

    T_drive = throttle T_max (1 - omega_along / omega_max) clamped to [0, 1] for the fade, where
    omega_along is the wheel speed (rad/s) in the direction the throttle drives."""
    th = min(1.0, max(-1.0, throttle))
    br = min(1.0, max(0.0, brake))
    hb = min(1.0, max(0.0, handbrake))
    st = min(1.0, max(-1.0, steer))
    along = omega if th >= 0.0 else -omega
    fade = min(1.0, max(0.0, 1.0 - along / omega_max))
    return th * t_drive_max * fade, br * t_brake_max + hb * t_hand_max, st * steer_max * steers
