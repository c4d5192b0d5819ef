"""Aerodynamic drag, downforce and rolling resistance: separate external forces (docs/physics.md §8, §12;
the figures of seed 002)."""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.vec import norm
from sim.kernel.vec import scale

ROLLING_FADE_SPEED = 1.0e-4  # m/s: below it static friction can take the wheel over within one substep


@leaf
def drag_force(rho, cd, area, vel):
    """F = -1/2 rho Cd A |v| v (N), at the centre of mass; still air."""
    return scale(vel, -0.5 * rho * cd * area * norm(vel))


@leaf
def downforce(rho, cla, vx, z_body):
    """F = -1/2 rho ClA vx^2 along the body's up axis z_body (N); vx is the forward airspeed (m/s)."""
    return scale(z_body, -0.5 * rho * cla * vx * vx)


@leaf
def rolling_resistance(coefficient, fz, vx, t):
    """F = -coefficient Fz s t (N), with s = clamp(vx / ROLLING_FADE_SPEED, -1, 1): full size while the
    wheel rolls, fading to zero in the last few centimetres per second, where static friction takes the
    wheel over (sim/kernel/parking.py holds it within +-coefficient Fz h), so a stopping car is not pushed back
    and forth."""
    s = min(1.0, max(-1.0, vx * (1.0 / ROLLING_FADE_SPEED)))      # (a product: the quotient is folded)
    return scale(t, -coefficient * fz * s)
