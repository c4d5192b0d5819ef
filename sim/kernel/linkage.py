"""The suspension geometry (docs/physics.md §7.1): the linkage between each wheel and the body, for the wheels
whose WP_GEO is 1 (the others are the seed's wheel on an axis and skip all of this, bit for bit).

Travel z = l_static - l (m, + bump), the last substep's (WS_TRAVEL) where the contact needs it before this
substep's length is known:
    camber (the axle's turn about body x)   WP_CAMBER + WP_CAMBER_GAIN z + WP_CAMBER_ROLL (z - z_other)
    toe (the wheel's turn about body z)     WP_TOE + WP_BUMP_STEER z + WS_COMPLY (added to the steering angle)
    path (wheel centre against the axis)    x = -int A dz, y = side int T dz
each held within CAMBER_LIMIT, TOE_LIMIT, and the lines' slopes T, A, D within LINK_TAN_LIMIT.
The links carry part of the ground's load, Fz = Fs a + J (§7): their share rho = J / Fz is taken from the last
substep's contact forces, and Fz = Fs a / (1 - rho) in this one, with
    J = T F_in + D (F_x - F_brake) + A F_brake,          |rho| <= LINK_SHARE_LIMIT
with T = (h_rc + h_rc' z) / half track, F_in the tire force's inboard component, F_x its forward one (body
frame), F_brake = -T_brake / rho along t the brake's share of it, and A, D the brakes' and the drive's
side-view lines (A = WP_ANTI_B + WP_ANTI_B_SLOPE z, D likewise), -tan at the front, +tan at the rear.
"""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.tables import NW
from sim.kernel.tables import W_A
from sim.kernel.tables import W_FTX
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_KY
from sim.kernel.tables import W_L
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_RHO
from sim.kernel.tables import W_T_BRAKE
from sim.kernel.tables import W_TX
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_XDOT
from sim.kernel.tables import WP_ANTI_B
from sim.kernel.tables import WP_ANTI_B_SLOPE
from sim.kernel.tables import WP_ANTI_D
from sim.kernel.tables import WP_ANTI_D_SLOPE
from sim.kernel.tables import WP_BUMP_STEER
from sim.kernel.tables import WP_CAMBER
from sim.kernel.tables import WP_CAMBER_GAIN
from sim.kernel.tables import WP_CAMBER_ROLL
from sim.kernel.tables import WP_COMPLY
from sim.kernel.tables import WP_GEO
from sim.kernel.tables import WP_L_STATIC
from sim.kernel.tables import WP_MU
from sim.kernel.tables import WP_PARTNER
from sim.kernel.tables import WP_RC_TAN
from sim.kernel.tables import WP_RC_TAN_SLOPE
from sim.kernel.tables import WP_SIDE
from sim.kernel.tables import WP_TOE
from sim.kernel.tables import WS_COMPLY
from sim.kernel.tables import WS_LINK_CUT
from sim.kernel.tables import WS_LINK_SHARE
from sim.kernel.tables import WS_TRAVEL
from sim.kernel.tables import WS_UAX
from sim.kernel.tables import WS_UAY
from sim.kernel.vec import get3w
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import quat_rotate_inv

LINK_TAN_LIMIT = 1.0        # -: a line from the contact through its instant centre is held within 45 degrees (a
#                             slope extrapolated past a linkage's real travel)
LINK_SHARE_LIMIT = 0.8      # -: the links carry at most this share of the wheel's load (1 / the advisor's 1.25):
#                             at 1 they would lift the car on their own (sim/advisor_links.py)
CAMBER_LIMIT = 0.5236       # rad (30 deg): the camber curve is held within +-this against the body
TOE_LIMIT = 0.2618          # rad (15 deg): the toe curve likewise
COMPLY_LIMIT = 0.0524       # rad (3 deg): the compliance steer (bushings give a degree or so at the limit)


@leaf
def held(x, limit):
    """x within [-limit, limit]."""
    return max(-limit, min(limit, x))


@leaf
def travel_angles(v, i, wheel_params, wheel_state):
    """(the axle's turn about body x, the wheel's toe turn about body z) in rad at the last substep's travel of
    wheel i and of the other wheel of its axle: the camber and toe curves (§7.1), held within their limits."""
    z = wheel_state[v, i, WS_TRAVEL]
    z_other = wheel_state[v, int(wheel_params[v, i, WP_PARTNER]), WS_TRAVEL]
    camber = wheel_params[v, i, WP_CAMBER] + wheel_params[v, i, WP_CAMBER_GAIN] * z + \
        wheel_params[v, i, WP_CAMBER_ROLL] * (z - z_other)
    return held(camber, CAMBER_LIMIT), held(wheel_params[v, i, WP_TOE] + wheel_params[v, i, WP_BUMP_STEER] * z,
                                            TOE_LIMIT) + wheel_state[v, i, WS_COMPLY]


@leaf
def line_at(t0, t1, z):
    """A line's slope at travel z, t0 + t1 z, held within LINK_TAN_LIMIT."""
    return held(t0 + t1 * z, LINK_TAN_LIMIT)


@leaf
def held_area(u):
    """The integral of held(s, LINK_TAN_LIMIT) ds from 0 to u: u^2 / 2 within the limit, c |u| - c^2 / 2 past it."""
    c = LINK_TAN_LIMIT
    if abs(u) <= c:
        return 0.5 * u * u
    return c * abs(u) - 0.5 * c * c


@leaf
def line_travel(t0, t1, z):
    """How far (m) the contact moves across a line of slope line_at(t0, t1, s) while the travel goes from 0 to
    z: the integral of the held slope, (H(t0 + t1 z) - H(t0)) / t1 with H = held_area (line_at(t0) z when
    the slope does not change)."""
    if abs(t1) * abs(z) <= 1.0e-12 * (1.0 + abs(t0)):
        return line_at(t0, 0.0, 0.0) * z
    return (held_area(t0 + t1 * z) - held_area(t0)) / t1


@leaf
def path_offset(v, i, wheel_params, z):
    """The wheel centre's offset (m, body frame) from the line down its anchor at travel z: across the
    roll-centre line and the brakes' side-view line through its contact (§7.1)."""
    a = line_travel(wheel_params[v, i, WP_ANTI_B], wheel_params[v, i, WP_ANTI_B_SLOPE], z)
    t = line_travel(wheel_params[v, i, WP_RC_TAN], wheel_params[v, i, WP_RC_TAN_SLOPE], z)
    return (-a, wheel_params[v, i, WP_SIDE] * t, 0.0)


@leaf
def path_velocity(v, i, wheel_params, wheel_state, wheel_scratch, q):
    """The contact's velocity against the body (m/s, world) as wheel i travels: the path's slopes at this
    substep's travel z times its rate z_dot (W_XDOT, + bump), d/dt path_offset = (-A, s T, 0) z_dot in the body
    frame (§7.1); zero for a wheel on an axis. It belongs in the contact's velocity (the slip and the parked
    hold) so that the tire's force pays back the work J z_dot the links' load does on the body. Where the
    kernel held the links' share (WS_LINK_CUT > 0) the slopes are cut by the same factor, so the work paid
    back is the held J's, not the links' own: a larger one is a force along the travel that no spring stores,
    and fed by the tire's grip it pumps the wheel (the links' load loop at g > 1, §16)."""
    if wheel_params[v, i, WP_GEO] == 0.0:
        return (0.0, 0.0, 0.0)
    z = wheel_params[v, i, WP_L_STATIC] - wheel_scratch[v, i, W_L]
    z_dot = wheel_scratch[v, i, W_XDOT] * (1.0 - wheel_state[v, i, WS_LINK_CUT])
    a = line_at(wheel_params[v, i, WP_ANTI_B], wheel_params[v, i, WP_ANTI_B_SLOPE], z)
    t = line_at(wheel_params[v, i, WP_RC_TAN], wheel_params[v, i, WP_RC_TAN_SLOPE], z)
    return quat_rotate(q, (-a * z_dot, wheel_params[v, i, WP_SIDE] * t * z_dot, 0.0))


@leaf
def link_load(rc_tan, anti_brake, anti_drive, f_in, f_x, f_brake):
    """J = T F_in + D (F_x - F_brake) + A F_brake (N): the load the links carry (§7.1). rc_tan T = h_rc / half
    track; anti_brake A and anti_drive D the side-view lines (-tan front, +tan rear); f_in the tire force's
    inboard component, f_x its forward one, f_brake the brake's share of f_x (N, body frame)."""
    return rc_tan * f_in + anti_drive * (f_x - f_brake) + anti_brake * f_brake


@leaf
def compliance_toward(k, f_side, now, stiffness):
    """The compliance steer (rad, + left) for the next substep: toward k f_side (k rad/N, f_side the side force the
    bushings carry, N), by the step 1 / (1 + |k| stiffness) of a Newton iteration on delta = k F(delta), the
    tire's force answering a turn by dF/d delta = stiffness (N/rad, its lateral slope times the rolling speed).
    A turn that lessens the force (k < 0, the front's understeer) settles in one step at any stiffness; one
    that adds to it converges while |k| stiffness < 1. Held within COMPLY_LIMIT (§7.1)."""
    return held(now + (k * f_side - now) / (1.0 + abs(k) * stiffness), COMPLY_LIMIT)


@stage
def link_stage(v, wheel_params, q, wheel_state, wheel_scratch):
    """After the body stage: each geometry wheel's travel this substep (WS_TRAVEL) and the share of its load the
    links carry in the next, rho = J / Fz (WS_LINK_SHARE), from this substep's final contact forces (after the
    parking solve and the midpoint lateral update) and load. The share, not J itself, is carried over: the
    next substep's load Fz = Fs a / (1 - rho) then follows its spring at once (a J one substep old would act
    as a spring one substep late, which feeds the bounce). q: the substep's frozen orientation.
    Reads W_L W_GROUNDED W_FZ W_FTX W_TX W_T_BRAKE W_RHO."""
    for i in range(NW):
        if wheel_params[v, i, WP_GEO] == 0.0:
            continue
        z = wheel_params[v, i, WP_L_STATIC] - wheel_scratch[v, i, W_L]
        wheel_state[v, i, WS_TRAVEL] = z
        share = 0.0
        cut = 0.0
        comply = 0.0                                     # off the ground the wheel carries no side force
        fz = wheel_scratch[v, i, W_FZ]
        if wheel_scratch[v, i, W_GROUNDED] != 0.0 and fz > 0.0:
            f = quat_rotate_inv(q, get3w(wheel_scratch, v, i, W_FTX))         # the tire force, body frame
            m_u = wheel_params[v, i, WP_MU]
            t_x = quat_rotate_inv(q, get3w(wheel_scratch, v, i, W_TX))[0]
            f_brake = -wheel_scratch[v, i, W_T_BRAKE] / wheel_scratch[v, i, W_RHO] * t_x
            f_in, f_x = -wheel_params[v, i, WP_SIDE] * f[1], f[0]
            if m_u > 0.0:                                # less what the wheel's own mass takes (§7.2), and the
                f = (f[0] - m_u * wheel_state[v, i, WS_UAX], f[1] - m_u * wheel_state[v, i, WS_UAY], f[2])
                n = quat_rotate_inv(q, get3w(wheel_scratch, v, i, W_NX))      # ground's push along the path: its
                f_in = -wheel_params[v, i, WP_SIDE] * (f[1] + fz * n[1])     # side part on the roll-centre line,
                f_x = f[0] + fz * n[0]                                        # its body-x part on the contact's
                f_brake += fz * n[0]                                          # (with the brake's)
            jack = link_load(line_at(wheel_params[v, i, WP_RC_TAN], wheel_params[v, i, WP_RC_TAN_SLOPE], z),
                             line_at(wheel_params[v, i, WP_ANTI_B], wheel_params[v, i, WP_ANTI_B_SLOPE], z),
                             line_at(wheel_params[v, i, WP_ANTI_D], wheel_params[v, i, WP_ANTI_D_SLOPE], z),
                             f_in, f_x, f_brake)
            limit = LINK_SHARE_LIMIT
            if m_u > 0.0:                                # a wheel of its own mass: the links' J = rho F_t against
                limit *= wheel_scratch[v, i, W_A]        # the tire's F_t a up its axis: rho > a digs it in (§7.2)
            own = jack / fz
            share = held(own, limit)
            if share != own:                             # held: the path's slopes answer for the held J
                cut = 1.0 - share / own
            k = wheel_params[v, i, WP_COMPLY]
            if k != 0.0:
                comply = compliance_toward(k, f[1], wheel_state[v, i, WS_COMPLY],
                                           wheel_scratch[v, i, W_KY] * abs(wheel_scratch[v, i, W_VX]))
        wheel_state[v, i, WS_LINK_SHARE] = share
        wheel_state[v, i, WS_LINK_CUT] = cut
        wheel_state[v, i, WS_COMPLY] = comply
