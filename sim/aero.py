"""Aerodynamic drag, downforce and rolling resistance: separate external forces (docs/physics.md §8, §12;
the figures of seed 002)."""
from __future__ import annotations

from sim.jit import leaf
from sim.vec import norm, scale


@leaf
def drag_force(rho, cd, area, vel):
    """F = -1/2 rho Cd A |v| v (N), at the centre of mass; still air."""
    return scale(vel, -0.5 * rho * cd * area * norm(vel))


@leaf
def downforce(rho, cla, vx, z_body):
    """F = -1/2 rho ClA vx^2 along the body's up axis z_body (N); vx is the forward airspeed (m/s)."""
    return scale(z_body, -0.5 * rho * cla * vx * vx)


@leaf
def rolling_resistance(coefficient, fz, vx, v_min, t):
    """F = -coefficient Fz s t (N), with s = clamp(vx / vMin, -1, 1): full size above vMin, fading
    linearly to zero at rest so a parked car is not pushed back and forth."""
    s = min(1.0, max(-1.0, vx / v_min))
    return scale(t, -coefficient * fz * s)
