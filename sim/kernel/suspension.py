"""Suspension (docs/physics.md §7): compression, its rate, the spring-damper force and the wheel load.

    x    = max(0, l0 - l)                                       compression (m)
    xdot = (rEffDot - dot(nDot, C - Q) - vn) / a                compression rate (m/s)
    Fs   = max(0, k x + c xdot + 10 k max(0, lMin - l_raw) + F_bar)   along -d, on the body (N)
    Fz   = Fs a (/ (1 - rho), the links' share rho, with the geometry of §7.1)   the load the tire may use (N)

What the body receives (per axle, `suspension.force_along`): "normal" (default) the ground's push Fz n at
the contact, so the only force in the contact plane is the tire's friction-limited one; "axis" the
seed's literal -Fs d, whose part in the contact plane is not limited by friction (a pitched or rolled
body leans on it).
"""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.query import QUERY_DISC
from sim.kernel.tables import NW
from sim.kernel.tables import W_A
from sim.kernel.tables import W_CX
from sim.kernel.tables import W_FS
from sim.kernel.tables import W_FSX
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_FZ_LINK
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_INV_A
from sim.kernel.tables import W_LRAW
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_QX
from sim.kernel.tables import W_S
from sim.kernel.tables import W_SHAPE
from sim.kernel.tables import W_STEER
from sim.kernel.tables import W_U_SHIFTX
from sim.kernel.tables import W_UX
from sim.kernel.tables import W_VGX
from sim.kernel.tables import W_X
from sim.kernel.tables import W_XDOT
from sim.kernel.tables import WP_ALONG
from sim.kernel.tables import WP_ARB
from sim.kernel.tables import WP_C
from sim.kernel.tables import WP_C_REBOUND
from sim.kernel.tables import WP_DX
from sim.kernel.tables import WP_GEO
from sim.kernel.tables import WP_K
from sim.kernel.tables import WP_LMIN
from sim.kernel.tables import WP_MU
from sim.kernel.tables import WP_PARTNER
from sim.kernel.tables import WP_PRELOAD
from sim.kernel.tables import WP_QUERY
from sim.kernel.tables import WP_R
from sim.kernel.tables import WP_STOP_C
from sim.kernel.tables import WP_STOP_K
from sim.kernel.tables import WP_STOP_LAM
from sim.kernel.tables import WP_STOP_LAM_C
from sim.kernel.tables import WP_STOP_LAM_S
from sim.kernel.tables import WP_SUS_MODEL
from sim.kernel.tables import WS_LINK_SHARE
from sim.kernel.tables import WS_NX
from sim.kernel.tables import WS_SHAPE
from sim.kernel.tables import WS_STEER
from sim.kernel.unsprung import unsprung_place
from sim.kernel.unsprung import unsprung_wheel
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3w
from sim.kernel.vec import quat_axis_z
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import scale
from sim.kernel.vec import set3w
from sim.kernel.vec import sub

BUMP_STOP_FACTOR = 10.0   # -: bump stop stiffness = BUMP_STOP_FACTOR x k below l_min (the spec's choice)
STOP_LOAD_CAP = 0.99 * 4.0 / 1.25   # h^2 lambda_K + 2 h lambda_C the bump stops are held to (sim/advisor.py's
#                                     REQUIRED_MARGIN 1.25, just inside)
SPRING_LOAD = 4.0 / 1.25  # h^2 lambda_K + 2 h lambda_C up to which the springs and dampers run as given (the
#                           advisor's stable); beyond, they are held to SPRING_HELD_SHARE of STOP_LOAD_CAP
SPRING_HELD_SHARE = 0.8   # -: the rest is left to the bump stops
A_MIN = 0.2               # -: below this a = -dot(n, d) the hit is left to body collision (§6)
ALONG_NORMAL, ALONG_AXIS = 0, 1
FORCE_ALONG = {"normal": ALONG_NORMAL, "axis": ALONG_AXIS}
SUS_REFERENCE, SUS_FGEAR, SUS_CHAOS, SUS_AVS = 0, 1, 2, 3
SUSPENSION_MODELS = {"reference": SUS_REFERENCE, "fgear": SUS_FGEAR, "chaos": SUS_CHAOS, "avs": SUS_AVS}


@leaf
def support_fade(s, a, r):
    """How much of the suspension force the ground can take, 0..1: all of it until the anchor is within
    one wheel radius of the contact plane (s < r, the wheel deep in the body) or the suspension axis is
    within twice A_MIN of lying in it (a < 2 A_MIN); then linearly less, to none at s = 0 or a = A_MIN,
    where the body collision takes over. Without the fade the force would jump from nothing to the bump
    stop's full push where the query starts to count, and a body crossing that line would gain energy
    (docs/physics.md §14). Both factors are 1 unless s < r or a < 2 A_MIN, so the common case needs no
    division."""
    if s >= r and a >= 2.0 * A_MIN:
        return 1.0
    return max(0.0, min(1.0, s / r)) * max(0.0, min(1.0, (a - A_MIN) / A_MIN))


@leaf
def compression(l0, l):
    """x = max(0, l0 - l) (m)."""
    return max(0.0, l0 - l)


@leaf
def r_eff_rate(r, nu, nu_dot):
    """rEffDot = -r nu nuDot / sqrt(1 - nu^2) for the disc, nu = dot(n, u) (m/s)."""
    q = 1.0 - nu * nu
    if q <= 1.0e-12:
        return 0.0
    return -r * nu * nu_dot / math.sqrt(q)


@leaf
def compression_rate(inv_a, vn, r_eff_dot, n_dot, c, q_contact):
    """xdot = (rEffDot - dot(nDot, C - Q) - vn) / a, given inv_a = 1 / a (the contact stage's W_INV_A: one
    division per wheel for the length and the rate).

    vn: velocity of the wheel centre (body motion, length frozen) minus the ground velocity at Q, along n.
    With a sphere (rEffDot = 0) on a fixed plane (nDot = 0) this is the spec's xdot = -vn / a.
    The rate comes from velocities, never from differencing x, so a jump of contact (a step, a new
    surface) does not produce a damping spike; only the n history used for nDot is reset there."""
    return (r_eff_dot - dot(n_dot, sub(c, q_contact)) - vn) * inv_a


@leaf
def suspension_force(k, c, x, x_dot, l_min, l_raw, a, f_bar):
    """Fs = max(0, k x + c xdot + 10 k max(0, lMin - l_raw) + f_bar); Fz = Fs a.

    f_bar: anti-roll bar force on this wheel (N, + compresses). Returns (Fs, Fz) in N."""
    return bump_stopped_force(k, c, x, x_dot, l_min, l_raw, a, f_bar, BUMP_STOP_FACTOR * k)


@leaf
def bump_stopped_force(k, c, x, x_dot, l_min, l_raw, a, f_bar, stop_k):
    """suspension_force with the bump stop's stiffness stop_k given (10 k, or held, `held_stop_scale`)."""
    fs = max(0.0, k * x + c * x_dot + stop_k * max(0.0, l_min - l_raw) + f_bar)
    return fs, fs * a


@leaf
def held_stop_scale(lam_s, lam_c, lam_stop, h):
    """The share of the bump stops' stiffness the substep h integrates stably (1: all of it): the body's
    fastest modes per unit mass of the springs and bars (lam_s, 1/s^2), the dampers (lam_c, 1/s) and the
    bump stops (lam_stop, 1/s^2) bound h^2 (lam_s + f lam_stop) + 2 h lam_c <= STOP_LOAD_CAP. The 10 k bump
    stop is the spec's numerical choice, not a tuned part: like the hull's penalty it is held rather than
    refused (docs/physics.md §16)."""
    if lam_stop <= 0.0:
        return 1.0
    room = STOP_LOAD_CAP - h * (h * lam_s + 2.0 * lam_c)
    if room >= h * h * lam_stop:
        return 1.0
    return max(0.0, room / (h * h * lam_stop))


@leaf
def held_spring_scale(lam_s, lam_c, h):
    """(share of the springs' and bars' stiffness, share of the dampers') the substep h integrates stably: both 1
    while h^2 lam_s + 2 h lam_c <= SPRING_LOAD (the advisor's margin; the presets), else held to SPRING_HELD_SHARE
    of STOP_LOAD_CAP, the dampers first (a damper the step cannot follow overshoots: its relative speed flips each
    substep), the springs too when their own share exceeds half of it. A suspension stiffer than the step can
    follow acts as the stiffest it can; the advisor notes it (docs/physics.md §16)."""
    spring = h * h * lam_s
    damper = 2.0 * h * lam_c
    if spring + damper <= SPRING_LOAD:
        return 1.0, 1.0
    target = SPRING_HELD_SHARE * STOP_LOAD_CAP
    if spring <= 0.5 * target:
        return 1.0, (target - spring) / damper
    return 0.5 * target / spring, (min(1.0, 0.5 * target / damper) if damper > 0.0 else 1.0)


@leaf
def fgear_force(k, preload, c_bump, c_rebound, stop_c, x, x_dot, l_min, l_raw, a, f_bar, stop_k):
    """FGear's spring-damper (docs/models.md): Fs = max(0, preload + k x + c xdot + stop_k p + stop_c max(0,
    xdot) [p > 0] + f_bar) with c = c_bump while compressing (xdot > 0) and c_rebound while extending,
    p = max(0, lMin - l_raw) the bump stop's compression (stop_k = 10 k; AVS' support rate), stop_c the
    travel limit's damping (0 = off). Chaos and AVS use it too. Returns (Fs, Fz) in N."""
    c = c_bump if x_dot > 0.0 else c_rebound
    past = max(0.0, l_min - l_raw)
    stop = stop_k * past + (stop_c * max(0.0, x_dot) if past > 0.0 else 0.0)
    fs = max(0.0, preload + k * x + c * x_dot + stop + f_bar)
    return fs, fs * a


@leaf
def axis_push(f, n, v_q):
    """The seed's -Fs d (force_along = "axis"), whose part along the contact plane no friction limits: that
    part is kept only while it does no positive work on the contact point moving at v_q (relative to the
    ground), so it can hold a tilted car or slow it but never push it along (docs/physics.md §7). On level
    ground d is along -n and the force is the seed's unchanged."""
    f_t = sub(f, scale(n, dot(f, n)))
    if dot(f_t, v_q) > 0.0:
        return sub(f, f_t)
    return f


@leaf
def ground_rate(v, i, wheel_params, body, wheel_state, wheel_scratch, z_body, steer_rate, inv_h):
    """xdot = (rEffDot - nDot.(C-Q) - vn) / a for grounded wheel i (m/s): the compression rate a massless wheel
    on the ground has; steer_rate: its road-wheel angle's rate (rad/s), inv_h = 1 / substep (1/s)."""
    pos, q, vel, w = body
    c = get3w(wheel_scratch, v, i, W_CX)
    qc = get3w(wheel_scratch, v, i, W_QX)
    n = get3w(wheel_scratch, v, i, W_NX)
    u = get3w(wheel_scratch, v, i, W_UX)
    vg = get3w(wheel_scratch, v, i, W_VGX)
    # vn: wheel centre velocity from body motion (length frozen) minus ground velocity at Q, along n
    vn = dot(n, sub(add(vel, cross(w, sub(c, pos))), vg))
    # nDot from the contact plane's history; reset (zero) when the contact shape changed
    n_dot = (0.0, 0.0, 0.0)
    if wheel_state[v, i, WS_SHAPE] == wheel_scratch[v, i, W_SHAPE]:
        n_dot = scale(sub(n, get3w(wheel_state, v, i, WS_NX)), inv_h)
    r_eff_dot = 0.0
    if int(wheel_params[v, i, WP_QUERY]) == QUERY_DISC:
        # uDot from body rotation and steering about the body's z axis
        u_dot = add(cross(w, u), scale(cross(z_body, u), steer_rate))
        nu = dot(n, u)
        r_eff_dot = r_eff_rate(wheel_params[v, i, WP_R], nu, dot(n_dot, u) + dot(n, u_dot))
    # xdot = (rEffDot - nDot.(C-Q) - vn) / a
    return compression_rate(wheel_scratch[v, i, W_INV_A], vn, r_eff_dot, n_dot, c, qc)


@stage
def suspension_stage(v, wheel_params, body, wheel_state, wheel_scratch, gravity, h):
    """Compression rate, suspension force Fs, load Fz = Fs a and the force on the body for each wheel; the anti-roll
    bar couples the two wheels of an axle. body: the frozen (pos, q, vel, w); gravity (m/s^2); h: substep (s).
    A wheel with its own mass (WP_MU > 0) is sim/kernel/unsprung.py's.
    Reads the contact columns and this substep's road-wheel angle; writes W_XDOT, W_FS, W_FZ, W_FSX."""
    pos, q, vel, w = body
    z_body = quat_axis_z(q)
    inv_h = 1.0 / h
    lam_s, lam_c = wheel_params[v, 0, WP_STOP_LAM_S], wheel_params[v, 0, WP_STOP_LAM_C]
    k_share, c_share = held_spring_scale(lam_s, lam_c, h)
    stop_scale = held_stop_scale(k_share * lam_s, c_share * lam_c, wheel_params[v, 0, WP_STOP_LAM], h)
    for i in range(NW):
        steer_rate = (wheel_scratch[v, i, W_STEER] - wheel_state[v, i, WS_STEER]) * inv_h
        wheel_scratch[v, i, W_FZ_LINK] = 0.0
        grounded = wheel_scratch[v, i, W_GROUNDED] != 0.0
        if wheel_params[v, i, WP_MU] > 0.0:                       # the wheel's own mass (§7.2)
            x_dot_q, fade = 0.0, 0.0
            d = unsprung_place(v, i, wheel_params, q, wheel_state, wheel_scratch, k_share)   # its own contact, axis
            if grounded:
                x_dot_q = ground_rate(v, i, wheel_params, body, wheel_state, wheel_scratch, z_body, steer_rate, inv_h)
                fade = support_fade(wheel_scratch[v, i, W_S], wheel_scratch[v, i, W_A], wheel_params[v, i, WP_R])
            unsprung_wheel(v, i, wheel_params, d, wheel_state, wheel_scratch, x_dot_q, k_share, c_share, stop_scale,
                           fade, gravity, h)
            continue
        set3w(wheel_scratch, v, i, W_U_SHIFTX, (0.0, 0.0, 0.0))     # a massless wheel's contact is the rigid one
        if not grounded:
            wheel_scratch[v, i, W_XDOT] = 0.0
            wheel_scratch[v, i, W_FS] = 0.0
            wheel_scratch[v, i, W_FZ] = 0.0
            set3w(wheel_scratch, v, i, W_FSX, (0.0, 0.0, 0.0))
            continue
        a = wheel_scratch[v, i, W_A]
        qc = get3w(wheel_scratch, v, i, W_QX)
        n = get3w(wheel_scratch, v, i, W_NX)
        vg = get3w(wheel_scratch, v, i, W_VGX)
        x_dot = ground_rate(v, i, wheel_params, body, wheel_state, wheel_scratch, z_body, steer_rate, inv_h)
        j = int(wheel_params[v, i, WP_PARTNER])
        # k_bar (x_i - x_j), held with the springs
        f_bar = k_share * wheel_params[v, i, WP_ARB] * (wheel_scratch[v, i, W_X] - wheel_scratch[v, j, W_X])
        # the bump stop compresses at most one wheel radius past l_min; deeper is the body collision's
        l_raw = max(wheel_scratch[v, i, W_LRAW], wheel_params[v, i, WP_LMIN] - wheel_params[v, i, WP_R])
        if int(wheel_params[v, i, WP_SUS_MODEL]) != SUS_REFERENCE:    # fgear; chaos (packed: no preload, no stop)
            fs, fz = fgear_force(k_share * wheel_params[v, i, WP_K], wheel_params[v, i, WP_PRELOAD],
                                 c_share * wheel_params[v, i, WP_C], c_share * wheel_params[v, i, WP_C_REBOUND],
                                 c_share * wheel_params[v, i, WP_STOP_C],
                                 wheel_scratch[v, i, W_X], x_dot, wheel_params[v, i, WP_LMIN], l_raw, a, f_bar,
                                 wheel_params[v, i, WP_STOP_K] * stop_scale)
        else:
            fs, fz = bump_stopped_force(k_share * wheel_params[v, i, WP_K], c_share * wheel_params[v, i, WP_C],
                                        wheel_scratch[v, i, W_X],
                                        x_dot, wheel_params[v, i, WP_LMIN], l_raw, a, f_bar,
                                        wheel_params[v, i, WP_STOP_K] * stop_scale)
        fade = support_fade(wheel_scratch[v, i, W_S], a, wheel_params[v, i, WP_R])
        if wheel_params[v, i, WP_GEO] != 0.0:                     # Fz = Fs a + J, J = rho Fz: the links' share
            f_links = fz * wheel_state[v, i, WS_LINK_SHARE] / (1.0 - wheel_state[v, i, WS_LINK_SHARE])   # (§7.1)
            fz += f_links
            wheel_scratch[v, i, W_FZ_LINK] = f_links * fade
        fs *= fade
        fz *= fade
        wheel_scratch[v, i, W_XDOT] = x_dot
        wheel_scratch[v, i, W_FS] = fs
        wheel_scratch[v, i, W_FZ] = fz
        if int(wheel_params[v, i, WP_ALONG]) == ALONG_NORMAL:
            set3w(wheel_scratch, v, i, W_FSX, scale(n, fz))             # the ground's push Fz n
        else:
            d = quat_rotate(q, get3w(wheel_params, v, i, WP_DX))
            f_axis = axis_push(scale(d, -fs), n, sub(add(vel, cross(w, sub(qc, pos))), vg))
            if wheel_params[v, i, WP_GEO] != 0.0:                 # the links' share along the normal
                f_axis = add(f_axis, scale(n, wheel_scratch[v, i, W_FZ_LINK]))
            set3w(wheel_scratch, v, i, W_FSX, f_axis)
