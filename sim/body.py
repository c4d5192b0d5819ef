"""Rigid body integration with the angular-momentum ledger (spec 000: 力与角动量汇总; seed 004).

Linear: semi-implicit Euler, v' = v + dt F / M, x' = x + dt v'.
Angular: the body's angular momentum about its centre of mass, L = (R I R^T) w, is advanced by the
torque, L' = L + dt tau, and the new angular velocity is recovered with the inertia of the new
orientation, w' = (R' I R'^T)^-1 L'. Written in the body frame this is Euler's equation
I w_dot = tau_b - w x (I w): the gyroscopic term is carried exactly, and in free flight L is conserved to
rounding (no energy creep from an explicit w x (I w) term).
The orientation turns by the exact rotation exp(w_mid dt) with w_mid = (R I R^T)^-1 L' (the new momentum
with the old inertia, the semi-implicit choice), then is renormalised.

The torque `tau` passed in is already reduced by the ledger: tau = sum (Q - com) x F - (sum dHw + dHe)/dt.
"""
from __future__ import annotations

from sim.jit import leaf
from sim.vec import madd, quat_from_rotvec, quat_mul, quat_normalize, scale, world_inertia_apply, \
    world_inertia_solve


@leaf
def integrate_body(pos, q, vel, w, force, tau, mass, inertia, dt):
    """Advance one step. pos (m), q (w,x,y,z), vel (m/s), w (rad/s), force (N), tau (N m), all world;
    mass (kg); inertia: principal moments (Ixx, Iyy, Izz) in the body frame (kg m^2); dt (s).
    Returns (pos', q', vel', w')."""
    vel_new = madd(vel, force, dt / mass)
    pos_new = madd(pos, vel_new, dt)
    l_new = madd(world_inertia_apply(q, inertia, w), tau, dt)
    w_mid = world_inertia_solve(q, inertia, l_new)
    q_new = quat_normalize(quat_mul(quat_from_rotvec(scale(w_mid, dt)), q))
    w_new = world_inertia_solve(q_new, inertia, l_new)
    return pos_new, q_new, vel_new, w_new
