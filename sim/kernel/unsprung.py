"""The wheel's own mass (docs/physics.md §7.2): an unsprung mass m_u on its suspension axis, between the spring and
the tire's vertical spring.

    delta = a (x_q - x_w)                             the tire's deflection along n (m); x_q = l0 - l_raw the rigid
                                                      wheel's compression against the ground, x_w the wheel's own
    F_t   = max(0, k_t delta + c_t deltaDot)          the tire's load (N, 0 while the tire is not compressed)
    m_u x_w'' = F_t a - Fs - J - P + m_u (g - a_body) . (-d)     the wheel along its axis (x_w up the axis)

Fs is §7's spring, damper, bump stop and bar on the wheel's own compression, J the links' share (§7.1), P the
axle's unsprung roll couple carried by its tires. The body (packed with the wheels' mass: VP_MASS is the sprung
plus the unsprung) receives F_t n at Q less the wheel's relative inertia m_u x_w'' along -d; `unsprung_torque`
moves the wheels' weight and inertia from the centre of mass to their contacts. The wheel's coordinate is
advanced by the trapezoidal rule, linearised in its stiffness and damping, which is stable at any substep.
A wheel with WP_MU = 0 never comes here: the massless wheel of §7, bit for bit.
"""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.tables import NW
from sim.kernel.tables import W_A
from sim.kernel.tables import W_CX
from sim.kernel.tables import W_FS
from sim.kernel.tables import W_FSX
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_FZ_LINK
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_L
from sim.kernel.tables import W_LRAW
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_QX
from sim.kernel.tables import W_U_GIVE
from sim.kernel.tables import W_U_MU
from sim.kernel.tables import W_U_SHIFTX
from sim.kernel.tables import W_X
from sim.kernel.tables import W_XDOT
from sim.kernel.tables import WP_ARB
from sim.kernel.tables import WP_AY
from sim.kernel.tables import WP_C
from sim.kernel.tables import WP_C_REBOUND
from sim.kernel.tables import WP_CT
from sim.kernel.tables import WP_DX
from sim.kernel.tables import WP_GEO
from sim.kernel.tables import WP_K
from sim.kernel.tables import WP_KT
from sim.kernel.tables import WP_L0
from sim.kernel.tables import WP_LMAX
from sim.kernel.tables import WP_LMIN
from sim.kernel.tables import WP_MU
from sim.kernel.tables import WP_PARTNER
from sim.kernel.tables import WP_PRELOAD
from sim.kernel.tables import WP_R
from sim.kernel.tables import WP_SIDE
from sim.kernel.tables import WP_STOP_C
from sim.kernel.tables import WP_STOP_K
from sim.kernel.tables import WP_SUS_MODEL
from sim.kernel.tables import WS_LINK_SHARE
from sim.kernel.tables import WS_UA
from sim.kernel.tables import WS_UAX
from sim.kernel.tables import WS_UAY
from sim.kernel.tables import WS_UINIT
from sim.kernel.tables import WS_UPAIR
from sim.kernel.tables import WS_VW
from sim.kernel.tables import WS_XW
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3w
from sim.kernel.vec import quat_axis_x
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import scale
from sim.kernel.vec import set3w
from sim.kernel.vec import sub


@leaf
def trapezoid_step(x, x_dot, force, k, c, m, h):
    """One substep h of m x'' = force - k (x' - x) - c (x_dot' - x_dot) (the force linearised about the substep's
    start) by the trapezoidal rule: (x', x_dot'). Stable for any k, c >= 0 and h; an undamped oscillator keeps its
    amplitude and runs at 2 atan(omega h / 2) / h (docs/physics.md §7.2)."""
    dv = h * (force - 0.5 * h * k * x_dot) / (m + 0.5 * h * c + 0.25 * h * h * k)
    return x + h * (x_dot + 0.5 * dv), x_dot + dv


@leaf
def damped_share(c, m, h):
    """theta, the share of the substep's velocity change a damper c takes at the step's end (0.5: the trapezoid):
    max(0.5, 1 - m / (h c)). A damper that would stop the mass m within the substep (h c > 2 m) makes the
    trapezoid's velocity flip sign each substep, its ringing undamped, and a one-sided damper (a bump stop's, a
    stiff rebound's) then pumps it; with theta the damper brings the velocity to rest in the substep instead (its
    amplification (1 - (1 - theta) h c / m) / (1 + theta h c / m) is 0 there). 0.5 below, bit for bit."""
    if h * c <= 2.0 * m:
        return 0.5
    return 1.0 - m / (h * c)


def trapezoid_frequency(omega: float, h: float) -> float:
    """The angular frequency (rad/s) at which `trapezoid_step` runs an undamped oscillator of omega (rad/s) at the
    substep h (s): 2 atan(omega h / 2) / h (1.6 % low at omega h = 0.45, 7 % at 1, a quarter at 2)."""
    return 2.0 * math.atan(0.5 * omega * h) / h


@leaf
def tire_load(k_t, c_t, delta, delta_dot):
    """F_t = max(0, k_t delta + c_t deltaDot) while the tire is compressed (delta > 0), else 0 (N)."""
    if delta <= 0.0:
        return 0.0
    return max(0.0, k_t * delta + c_t * delta_dot)


@leaf
def unsprung_place(v, i, wheel_params, q, wheel_state, wheel_scratch, k_share):
    """Wheel i with its own mass, before the suspension reads its contact: after a reset its travel starts where
    spring and tire balance (WS_UINIT), and a grounded wheel's own contact lies across the ground from where the
    contact stage put a rigid wheel (at l), by W_U_SHIFT = (l_w - l)(d + a n). The ground's push F_t n acts on the
    line through the wheel's own centre, where the tire's deflection a (x_q - x_w) is measured (`unsprung_torque`
    adds its couple shift x F_t n): applied under the rigid wheel instead, a wheel pressed far up its tilted axis
    (a body landing on its side) took a torque its tire's stored energy did not pay for (docs/physics.md §7.2).
    C moves with it (the compression rate taken there is the deflection's exactly); Q stays, where the ground's
    velocity and the tire's slip are taken. Returns the axis d (world), which `unsprung_wheel` uses too."""
    grounded = wheel_scratch[v, i, W_GROUNDED] != 0.0
    l0 = wheel_params[v, i, WP_L0]
    a = wheel_scratch[v, i, W_A] if grounded else 0.0
    if wheel_state[v, i, WS_UINIT] == 0.0:                        # after a reset: spring and tire in balance
        r = wheel_params[v, i, WP_R]
        l_min = wheel_params[v, i, WP_LMIN]
        k_t = wheel_params[v, i, WP_KT]
        x_lo = l0 - wheel_params[v, i, WP_LMAX]
        x0 = x_lo
        if grounded:
            x_q = l0 - max(wheel_scratch[v, i, W_LRAW], l_min - r)
            x0 = k_t * a * a * x_q / (k_share * wheel_params[v, i, WP_K] + k_t * a * a)
        wheel_state[v, i, WS_XW] = min(l0 - l_min + r, max(x_lo, x0))
        wheel_state[v, i, WS_VW] = 0.0
        wheel_state[v, i, WS_UINIT] = 1.0
    d = quat_rotate(q, get3w(wheel_params, v, i, WP_DX))
    shift = (0.0, 0.0, 0.0)
    if grounded:
        along = l0 - wheel_state[v, i, WS_XW] - wheel_scratch[v, i, W_L]      # l_w - l
        shift = scale(add(d, scale(get3w(wheel_scratch, v, i, W_NX), a)), along)
        set3w(wheel_scratch, v, i, W_CX, add(get3w(wheel_scratch, v, i, W_CX), shift))
    set3w(wheel_scratch, v, i, W_U_SHIFTX, shift)
    return d


@leaf
def unsprung_wheel(v, i, wheel_params, d, wheel_state, wheel_scratch, x_dot_q, k_share, c_share, stop_scale,
                   fade, gravity, h):
    """Wheel i with its own mass: its spring and tire forces, its step along the axis, and what the body receives.
    d: its axis (world, `unsprung_place`'s); x_dot_q: the rigid wheel's compression rate against the ground (§7's
    xdot, 0 airborne); k_share, c_share, stop_scale: the springs', dampers' and bump stops' held shares (§7, §16);
    fade: §7's support fade. Writes W_X W_XDOT W_L (the wheel's own), W_FS W_FZ W_FZ_LINK, vector W_FS; WS_XW WS_VW."""
    m_u = wheel_params[v, i, WP_MU]
    k_t = wheel_params[v, i, WP_KT]
    c_t = wheel_params[v, i, WP_CT]
    l0 = wheel_params[v, i, WP_L0]
    l_min = wheel_params[v, i, WP_LMIN]
    r = wheel_params[v, i, WP_R]
    k = k_share * wheel_params[v, i, WP_K]
    k_bar = k_share * wheel_params[v, i, WP_ARB]
    stop_k = stop_scale * wheel_params[v, i, WP_STOP_K]
    grounded = wheel_scratch[v, i, W_GROUNDED] != 0.0
    a = wheel_scratch[v, i, W_A] if grounded else 0.0
    # the rigid wheel's compression against the ground, its bump stop held one radius past l_min as in §7
    x_q = l0 - max(wheel_scratch[v, i, W_LRAW], l_min - r) if grounded else -1.0e9
    x_lo = l0 - wheel_params[v, i, WP_LMAX]                      # the droop stop: the wheel hangs at l_max
    x_hi = l0 - l_min + r                                         # deeper is the body collision's (§10)
    x_w = wheel_state[v, i, WS_XW]
    v_w = wheel_state[v, i, WS_VW]
    l_w = l0 - x_w
    # the tire: deflection along n and its rate, F_t = max(0, k_t delta + c_t deltaDot)
    delta = a * (x_q - x_w) if grounded else 0.0
    f_t = fade * tire_load(k_t, c_t, delta, a * (x_dot_q - v_w))
    # the spring, damper, bump stop and bar on the wheel's own compression (§7; the bar against the partner's). Only
    # the spring itself cannot pull (a coil off its seat): the damper and the bar act both ways between the body
    # and the wheel, and whether the ground pushes is the tire's max(0, ...)
    j = int(wheel_params[v, i, WP_PARTNER])
    f_bar = k_bar * (x_w - wheel_state[v, j, WS_XW])
    past = max(0.0, l_min - l_w)
    c = c_share * wheel_params[v, i, WP_C]
    c_stop = 0.0                                                  # the travel limit's damping past the bump stop
    if int(wheel_params[v, i, WP_SUS_MODEL]) != 0:               # fgear, chaos, avs: preload, rebound, the stop's c
        if v_w <= 0.0:
            c = c_share * wheel_params[v, i, WP_C_REBOUND]
        elif past > 0.0:
            c_stop = c_share * wheel_params[v, i, WP_STOP_C]
        fs = max(0.0, wheel_params[v, i, WP_PRELOAD] + k * x_w) + (c + c_stop) * v_w + stop_k * past + f_bar
    else:
        fs = max(0.0, k * x_w) + c * v_w + stop_k * past + f_bar
    f_link = f_t * wheel_state[v, i, WS_LINK_SHARE] if wheel_params[v, i, WP_GEO] != 0.0 else 0.0   # J (§7.1)
    g_d = gravity * d[2]                                          # gravity along -d: (0, 0, -g) . (-d)
    force = f_t * a - fs - f_link - wheel_state[v, i, WS_UPAIR] + m_u * (g_d - wheel_state[v, i, WS_UA])
    # trapezoidal step, linearised: the stiffness and damping the wheel feels on its axis
    k_tire, c_tire = 0.0, 0.0
    if f_t > 0.0:
        k_tire, c_tire = fade * k_t * a * a, fade * c_t * a * a
    # the ground moves on under the tire during the substep (x_q at xdot_q): its half in the trapezoid's force
    k_side = k + k_bar + (stop_k if past > 0.0 else 0.0)
    c_side = c + c_stop                                           # taken implicitly, the stop's damping too
    damped = damped_share(c_side + c_tire, m_u, h)
    x_new, v_new = trapezoid_step(x_w, v_w, force + 0.5 * h * k_tire * x_dot_q, k_side + k_tire,
                                  2.0 * damped * (c_side + c_tire), m_u, h)
    # the body's turn moves the carrier up the axis at C: the wheel feels -m_u C, its rate changes by -give C, and
    # its spring side drags mu of its mass along within the substep (unsprung_turn)
    den = m_u + damped * h * (c_side + c_tire) + 0.25 * h * h * (k_side + k_tire)
    wheel_scratch[v, i, W_U_MU] = m_u * (0.25 * h * h * k_side + damped * h * c_side) / den
    wheel_scratch[v, i, W_U_GIVE] = h * m_u / den
    if x_new <= x_lo or x_new >= x_hi:                            # a stopped wheel turns with the body, whole
        wheel_scratch[v, i, W_U_MU] = m_u
        wheel_scratch[v, i, W_U_GIVE] = 0.0
    if x_new < x_lo:                                              # the travel's ends stop the wheel dead
        x_new, v_new = x_lo, max(0.0, v_new)
    elif x_new > x_hi:
        x_new, v_new = x_hi, min(0.0, v_new)
    wheel_state[v, i, WS_XW] = x_new
    wheel_state[v, i, WS_VW] = v_new
    wheel_scratch[v, i, W_X] = x_w
    wheel_scratch[v, i, W_XDOT] = v_w
    wheel_scratch[v, i, W_L] = l_w
    wheel_scratch[v, i, W_FS] = fs
    wheel_scratch[v, i, W_FZ] = f_t
    wheel_scratch[v, i, W_FZ_LINK] = f_link
    # the body: the ground's push F_t n at Q less, along the axis, the wheel's own inertia m_u x_w'' and the tire's
    # change over the substep as the trapezoid took it (so the body receives the spring's mid-substep force, and
    # the momentum the wheel gains is the ground's; §7.2)
    dv = v_new - v_w
    along = m_u * dv / h + wheel_state[v, i, WS_UPAIR] + 0.5 * (k_tire * (x_new - x_w - h * x_dot_q) + c_tire * dv)
    set3w(wheel_scratch, v, i, W_FSX, add(scale(get3w(wheel_scratch, v, i, W_NX), f_t), scale(d, along)))


@leaf
def unsprung_torque(v, wheel_params, pos, force, mass, wheel_scratch, gravity):
    """The wheels' weight and inertia moved from the centre of mass (where the packed mass puts them) to their
    contacts: sum (Q - p) x m_u (g - a), a = force / mass the body's acceleration (N m, world)."""
    acc = scale(force, 1.0 / mass)
    g_minus_a = sub((0.0, 0.0, -gravity), acc)
    tau = (0.0, 0.0, 0.0)
    for i in range(NW):
        m_u = wheel_params[v, i, WP_MU]
        if m_u > 0.0:
            tau = add(tau, cross(sub(get3w(wheel_scratch, v, i, W_QX), pos), scale(g_minus_a, m_u)))
            tau = add(tau, own_contact_couple(v, i, wheel_scratch))
    return tau


@leaf
def own_contact_couple(v, i, wheel_scratch):
    """shift x F_t n (N m, world): the ground's push on wheel i moved from the rigid wheel's Q, where the body
    stage applies it, to the wheel's own contact (`unsprung_place`)."""
    push = scale(get3w(wheel_scratch, v, i, W_NX), wheel_scratch[v, i, W_FZ])
    return cross(get3w(wheel_scratch, v, i, W_U_SHIFTX), push)


@leaf
def held_unsprung_torque(v, wheel_params, pos, q, wheel_state, wheel_scratch, gravity):
    """`unsprung_torque` for the static-friction solve, whose body acceleration is not known before it: each wheel's
    own acceleration from the last substep (WS_UAX, WS_UAY along body x and y, WS_UA up its axis, taken as body z),
    sum (Q - p) x m_u (g - a_i) (N m, world). At rest 0 acceleration; on a turning platform its centripetal one."""
    x_body = quat_axis_x(q)
    y_body = quat_rotate(q, (0.0, 1.0, 0.0))
    z_body = quat_rotate(q, (0.0, 0.0, 1.0))
    tau = (0.0, 0.0, 0.0)
    for i in range(NW):
        m_u = wheel_params[v, i, WP_MU]
        if m_u > 0.0:
            a_i = add(add(scale(x_body, wheel_state[v, i, WS_UAX]), scale(y_body, wheel_state[v, i, WS_UAY])),
                      scale(z_body, wheel_state[v, i, WS_UA]))
            g_minus_a = sub((0.0, 0.0, -gravity), a_i)
            tau = add(tau, cross(sub(get3w(wheel_scratch, v, i, W_QX), pos), scale(g_minus_a, m_u)))
            tau = add(tau, own_contact_couple(v, i, wheel_scratch))
    return tau


@leaf
def unsprung_after(v, wheel_params, pos, q, vel0, vel, w, wheel_state, wheel_scratch, gravity, h):
    """After the body's step: each massive wheel's carrier acceleration along -d (WS_UA, the body's at the wheel:
    its centre of mass's and the centripetal w x (w x r); the angular acceleration's alpha x r is left out: taken a
    substep late it fed back through heavy wheels on the body's rotation and blew up in the parameter fuzz),
    along body x and y (WS_UAX, WS_UAY: the links pass the tire's force less m_u times it, §7.1's J), and the
    axle's roll couple of its wheels' weight and inertia about their contacts, carried by the two tires (WS_UPAIR,
    + presses the tire): P = -side c / track, c = sum ((C - Q) x m_u (g - a_wheel)) . x_body."""
    acc = scale(sub(vel, vel0), 1.0 / h)
    x_body = quat_axis_x(q)
    y_body = quat_rotate(q, (0.0, 1.0, 0.0))
    g = (0.0, 0.0, -gravity)
    for i in range(NW):
        m_u = wheel_params[v, i, WP_MU]
        if m_u <= 0.0:
            continue
        rr = sub(get3w(wheel_scratch, v, i, W_CX), pos)
        a_i = add(acc, cross(w, cross(w, rr)))
        d = quat_rotate(q, get3w(wheel_params, v, i, WP_DX))
        wheel_state[v, i, WS_UA] = -dot(a_i, d)
        wheel_state[v, i, WS_UAX] = dot(a_i, x_body)
        wheel_state[v, i, WS_UAY] = dot(a_i, y_body)
        j = int(wheel_params[v, i, WP_PARTNER])
        track = abs(wheel_params[v, i, WP_AY] - wheel_params[v, j, WP_AY])
        pair = 0.0
        if track > 0.0 and wheel_scratch[v, i, W_FZ] > 0.0 and wheel_scratch[v, j, W_FZ] > 0.0:
            c = 0.0
            for k in (i, j):
                rk = sub(get3w(wheel_scratch, v, k, W_CX), pos)
                a_k = add(acc, cross(w, cross(w, rk)))
                lever = sub(sub(get3w(wheel_scratch, v, k, W_CX), get3w(wheel_scratch, v, k, W_QX)),
                            get3w(wheel_scratch, v, k, W_U_SHIFTX))                 # C over its own contact
                c += dot(cross(lever, scale(sub(g, a_k), wheel_params[v, k, WP_MU])), x_body)
            pair = -wheel_params[v, i, WP_SIDE] * c / track
        wheel_state[v, i, WS_UPAIR] = pair
