"""The wheels' own mass in the body's turn (docs/physics.md §7.2, "The wheel in the body's turn").

A wheel of its own mass m_u slides on its axis e = -d at the anchor A (from the centre of mass, body frame). The
body's turn w moves that line up the axis at s . w, s = A x e, so the wheel's velocity up its axis is
u = s . w + x_w' (x_w' its own rate along the axis, WS_VW). Its momentum m_u u along e has the moment m_u u s about
the centre of mass, and the body and its wheels keep L = I w + sum m_u u s (their energy w.I w / 2 + sum m_u u^2
/ 2) between them. The wheel was stepped along its axis with the body held still (sim/kernel/unsprung.py, its
trapezoid step giving its rate's change per m/s^2 of its carrier's acceleration, W_U_GIVE, and how much of its
mass its spring side drags along within the substep, W_U_MU: all of it at a travel's end, little when a stiff
tire holds it). Here the body's angular acceleration alpha and the wheels' carriers' C = s . alpha are taken in
one implicit step:

    (I + sum mu s s^T + h J) alpha = tau - G(w),   G(w) = w x (I w) + w x sum m_u u s,   J = dG/dw

(the second term of G: the wheels' own momentum turning with the body), the wheels' rates change by -give C, and
the body's linear motion is left as it is (the wheels' share of the turn moves them about the centre of mass, not
it; their travel's change under it is a tenth of a hop's and is left out).
"""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.tables import NW
from sim.kernel.tables import W_U_GIVE
from sim.kernel.tables import W_U_MU
from sim.kernel.tables import WP_AX
from sim.kernel.tables import WP_DX
from sim.kernel.tables import WP_L0
from sim.kernel.tables import WP_LMAX
from sim.kernel.tables import WP_LMIN
from sim.kernel.tables import WP_MU
from sim.kernel.tables import WP_R
from sim.kernel.tables import WS_VW
from sim.kernel.tables import WS_XW
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3w
from sim.kernel.vec import madd
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import quat_rotate_inv
from sim.kernel.vec import scale
from sim.kernel.vec import solve3
from sim.kernel.vec import sub


@leaf
def unsprung_lever(v, i, wheel_params):
    """s = A x e for wheel i (m, body frame): the body's turn w moves its axis' line up e = -d at s . w."""
    return cross(get3w(wheel_params, v, i, WP_AX), scale(get3w(wheel_params, v, i, WP_DX), -1.0))


@leaf
def add_outer(sym, s, k):
    """sym + k s s^T for a symmetric 3x3 given by its upper triangle (a00, a01, a02, a11, a12, a22)."""
    return (sym[0] + k * s[0] * s[0], sym[1] + k * s[0] * s[1], sym[2] + k * s[0] * s[2],
            sym[3] + k * s[1] * s[1], sym[4] + k * s[1] * s[2], sym[5] + k * s[2] * s[2])


@leaf
def wheels_momentum(v, wheel_params, wheel_state, wb):
    """sum m_u u s (N m s, body frame), u = s . w + x_w' each wheel's velocity up its axis; wb: w in the body frame."""
    out = (0.0, 0.0, 0.0)
    for i in range(NW):
        m_u = wheel_params[v, i, WP_MU]
        if m_u > 0.0:
            s = unsprung_lever(v, i, wheel_params)
            out = madd(out, s, m_u * (dot(s, wb) + wheel_state[v, i, WS_VW]))
    return out


@leaf
def unsprung_turn(v, wheel_params, wheel_state, wheel_scratch, q, w, inertia, tau, h):
    """The body's turn and the wheels' carriers in one implicit step (module docstring). w: the body's angular
    velocity (world) at the substep's start, inertia its principal moments, tau the torque on it (N m, world)
    with each wheel's reaction to its own step. Returns (tau, I_int) for the body's step (I_int its principal
    moments); updates WS_XW, WS_VW by the carriers' acceleration."""
    i0, i1, i2 = inertia[0], inertia[1], inertia[2]
    wb = quat_rotate_inv(q, w)
    a = (i0, 0.0, 0.0, i1, 0.0, i2)                                    # I + sum mu s s^T
    m = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)                                 # sum m_u s s^T
    for i in range(NW):
        m_u = wheel_params[v, i, WP_MU]
        if m_u > 0.0:
            s = unsprung_lever(v, i, wheel_params)
            a = add_outer(a, s, wheel_scratch[v, i, W_U_MU])
            m = add_outer(m, s, m_u)
    a00, a01, a02, a11, a12, a22 = a
    m00, m01, m02, m11, m12, m22 = m
    mom = wheels_momentum(v, wheel_params, wheel_state, wb)            # sum m_u u s, at the start
    # the body's step integrates I_int = I + diag(sum mu s s^T) and its own w x (I_int w) exactly (a tumbling body's
    # wheels hang at their stops, all their mass dragged: it then turns as they do); the rest of G,
    # G_rem = w x (D w + m0), D = I + sum m_u s s^T - I_int, m0 = sum m_u x_w' s, is taken at the substep's end,
    # G_rem(w + h alpha) = G_rem + h J alpha, J = [w]x D - [D w + m0]x
    n0, n1, n2 = a00, a11, a22
    ln = (n0 * wb[0], n1 * wb[1], n2 * wb[2])
    c00, c01, c02 = i0 + m00 - n0, m01, m02
    c10, c11, c12 = m01, i1 + m11 - n1, m12
    c20, c21, c22 = m02, m12, i2 + m22 - n2
    b = sub(mom, (m00 * wb[0] + m01 * wb[1] + m02 * wb[2], m01 * wb[0] + m11 * wb[1] + m12 * wb[2],
                  m02 * wb[0] + m12 * wb[1] + m22 * wb[2]))                      # m0
    b = add(b, (c00 * wb[0] + c01 * wb[1] + c02 * wb[2], c10 * wb[0] + c11 * wb[1] + c12 * wb[2],
                c20 * wb[0] + c21 * wb[1] + c22 * wb[2]))                        # D w + m0
    g = add(cross(wb, b), cross(wb, ln))
    j00 = -wb[2] * c10 + wb[1] * c20
    j01 = -wb[2] * c11 + wb[1] * c21 + b[2]
    j02 = -wb[2] * c12 + wb[1] * c22 - b[1]
    j10 = wb[2] * c00 - wb[0] * c20 - b[2]
    j11 = wb[2] * c01 - wb[0] * c21
    j12 = wb[2] * c02 - wb[0] * c22 + b[0]
    j20 = -wb[1] * c00 + wb[0] * c10 + b[1]
    j21 = -wb[1] * c01 + wb[0] * c11 - b[0]
    j22 = -wb[1] * c02 + wb[0] * c12
    tau_b = quat_rotate_inv(q, tau)
    alpha = solve3((a00 + h * j00, a01 + h * j01, a02 + h * j02, a01 + h * j10, a11 + h * j11, a12 + h * j12,
                    a02 + h * j20, a12 + h * j21, a22 + h * j22), sub(tau_b, g))
    # the torque that makes the step (I_int, its own w x I_int w) turn at alpha
    tau = add(tau, quat_rotate(q, sub(add((n0 * alpha[0], n1 * alpha[1], n2 * alpha[2]), cross(wb, ln)), tau_b)))
    for i in range(NW):
        m_u = wheel_params[v, i, WP_MU]
        if m_u > 0.0:
            carrier = dot(unsprung_lever(v, i, wheel_params), alpha)
            dv = -wheel_scratch[v, i, W_U_GIVE] * carrier
            l0 = wheel_params[v, i, WP_L0]
            x_lo = l0 - wheel_params[v, i, WP_LMAX]
            x_hi = l0 - wheel_params[v, i, WP_LMIN] + wheel_params[v, i, WP_R]
            wheel_state[v, i, WS_XW] = min(x_hi, max(x_lo, wheel_state[v, i, WS_XW] + 0.5 * h * dv))
            wheel_state[v, i, WS_VW] += dv
    return tau, (n0, n1, n2)
