"""Wheel spin with the brake rule (docs/physics.md §9): the seed's explicit step and the implicit one with
the tire force linearised in the wheel speed, chosen per axle (`tire.spin_update`)."""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.tables import W_DFX
from sim.kernel.tables import W_INV_V
from sim.kernel.tables import W_RHO
from sim.kernel.tables import WP_IW
from sim.kernel.tables import WP_SPIN

SPIN_IMPLICIT, SPIN_EXPLICIT = 0, 1
SPIN_UPDATES = {"implicit": SPIN_IMPLICIT, "explicit": SPIN_EXPLICIT}


@leaf
def wheel_spin(omega, t_drive, t_brake, rho, fx, iw, h):
    """One explicit step of h seconds of the wheel's spin.

    omega* = omega + h (T_drive - rho Fx) / Iw, with the *limited* Fx (N) of this step;
    omegaNext = sign(omega*) max(0, |omega*| - h Tb / Iw): the brake (Tb >= 0, N m) acts against the
    predicted spin, stops exactly at zero and never reverses it.
    Returns (omegaNext, T_brake_actual): the brake torque actually applied, back-computed from
    (omega* - omegaNext) Iw / h (N m, signed along the spin axis; smaller than Tb when it stopped)."""
    inv = 1.0 / iw                      # one division, not three (a division costs as much as ten products)
    omega_star = omega + h * (t_drive - rho * fx) * inv
    mag = max(0.0, abs(omega_star) - h * t_brake * inv)
    omega_next = -mag if (omega_star < 0.0 and mag > 0.0) else mag
    return omega_next, (omega_star - omega_next) * iw * (1.0 / h)


@leaf
def wheel_spin_implicit(omega, t_drive, t_brake, rho, fx, k, iw, h):
    """One step of h seconds with the tire force linearised in the spin: Fx(omega') = fx + k (omega' - omega),
    k = dFx/domega (N s/rad, >= 0). Backward Euler on Iw omega' = Iw omega + h (T_drive - rho Fx(omega')) with
    the brake rule is the explicit step with the effective inertia Ie = Iw + h rho k:

        omega* = omega + h (T_drive - rho fx) / Ie,   omegaNext = sign(omega*) max(0, |omega*| - h Tb / Ie)

    Returns (omegaNext, T_brake_actual, Fx at omegaNext); with that Fx the wheel's own balance
    Iw (omegaNext - omega) / h = T_drive - rho Fx - T_brake_actual holds exactly."""
    i_eff = iw + h * rho * k
    inv = 1.0 / i_eff                   # (as wheel_spin: with k = 0 the very same operations)
    omega_star = omega + h * (t_drive - rho * fx) * inv
    mag = max(0.0, abs(omega_star) - h * t_brake * inv)
    omega_next = -mag if (omega_star < 0.0 and mag > 0.0) else mag
    return omega_next, (omega_star - omega_next) * i_eff * (1.0 / h), fx + k * (omega_next - omega)


@leaf
def tire_spin_stiffness(v, i, wheel_params, wheel_scratch):
    """k = dFx/domega = dFx/dkappa dkappa/domega (N s/rad, >= 0), kappa = (rho omega - vx) / max(|vx|, vMin)
    (the tire stage keeps 1 / max(|vx|, vMin) in W_INV_V)."""
    return max(0.0, wheel_scratch[v, i, W_DFX]) * wheel_scratch[v, i, W_RHO] * wheel_scratch[v, i, W_INV_V]


@leaf
def wheel_inertia_with_tire(v, i, wheel_params, wheel_scratch, h):
    """The inertia (kg m^2) the wheel update gives wheel i against a torque: Iw + h rho k with the implicit
    update (the tire's force grows with the spin it gains), Iw with the explicit one."""
    iw = wheel_params[v, i, WP_IW]
    if int(wheel_params[v, i, WP_SPIN]) == SPIN_IMPLICIT:
        return iw + h * wheel_scratch[v, i, W_RHO] * tire_spin_stiffness(v, i, wheel_params, wheel_scratch)
    return iw
