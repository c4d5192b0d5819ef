"""Wheel spin with the spec's brake rule (spec 000: 制动与反作用)."""
from __future__ import annotations

from sim.jit import leaf


@leaf
def wheel_spin(omega, t_drive, t_brake, rho, fx, iw, dt):
    """One explicit step of the wheel's spin.

    omega* = omega + dt (T_drive - rho Fx) / Iw, with the *limited* Fx (N) of this step;
    omegaNext = sign(omega*) max(0, |omega*| - dt Tb / Iw): the brake (Tb >= 0, N m) acts against the
    predicted spin, stops exactly at zero and never reverses it.
    Returns (omegaNext, T_brake_actual): the brake torque actually applied, back-computed from
    (omega* - omegaNext) Iw / dt (N m, signed along the spin axis; smaller than Tb when it stopped)."""
    omega_star = omega + dt * (t_drive - rho * fx) / iw
    mag = max(0.0, abs(omega_star) - dt * t_brake / iw)
    omega_next = -mag if (omega_star < 0.0 and mag > 0.0) else mag
    return omega_next, (omega_star - omega_next) * iw / dt
