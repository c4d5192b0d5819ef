"""Contact geometry and the tire frame (docs/physics.md §6): where each wheel meets the ground.

Inputs come from a query (`sim/kernel/query.py`): s (m) along the unit suspension axis d from the anchor A to
the contact plane, and the plane's unit normal n. All vectors are world-frame 3-tuples.
"""
from __future__ import annotations

import math

from sim.kernel.jit import VECTOR_MATH
from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.lanes import cos4
from sim.kernel.lanes import div4
from sim.kernel.lanes import sin4
from sim.kernel.lanes import sqrt4
from sim.kernel.linkage import path_offset
from sim.kernel.linkage import travel_angles
from sim.kernel.query import QUERY_DISC
from sim.kernel.query import cast
from sim.kernel.suspension import A_MIN  # noqa: F401  (A_MIN: world.py and broadphase.py read it here)
from sim.kernel.suspension import compression  # noqa: F401  (A_MIN: world.py and broadphase.py read it here)
from sim.kernel.tables import NW
from sim.kernel.tables import W_A
from sim.kernel.tables import W_BX
from sim.kernel.tables import W_CAMBER_BODY
from sim.kernel.tables import W_CX
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_INV_A
from sim.kernel.tables import W_L
from sim.kernel.tables import W_LRAW
from sim.kernel.tables import W_MU
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_QX
from sim.kernel.tables import W_R_EFF
from sim.kernel.tables import W_ROLL_SURF
from sim.kernel.tables import W_S
from sim.kernel.tables import W_SHAPE
from sim.kernel.tables import W_STEER
from sim.kernel.tables import W_SURFACE
from sim.kernel.tables import W_TOE
from sim.kernel.tables import W_TX
from sim.kernel.tables import W_UX
from sim.kernel.tables import W_VGX
from sim.kernel.tables import W_X
from sim.kernel.tables import WP_AX
from sim.kernel.tables import WP_CAMBER
from sim.kernel.tables import WP_CAMBER_COS
from sim.kernel.tables import WP_CAMBER_SIN
from sim.kernel.tables import WP_DX
from sim.kernel.tables import WP_GEO
from sim.kernel.tables import WP_GRIP
from sim.kernel.tables import WP_L0
from sim.kernel.tables import WP_LMAX
from sim.kernel.tables import WP_LMIN
from sim.kernel.tables import WP_QUERY
from sim.kernel.tables import WP_R
from sim.kernel.tables import WP_SIDE
from sim.kernel.tables import WS_LRAW
from sim.kernel.tables import WS_SINK
from sim.kernel.tables import WS_TRAVEL
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3w
from sim.kernel.vec import madd
from sim.kernel.vec import norm
from sim.kernel.vec import normalize
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import scale
from sim.kernel.vec import set3w
from sim.kernel.vec import sub

LANDING_REACH = 0.25  # -: a wheel meeting the ground from the air takes up at most this many radii of it at once
U_PARALLEL = 1.0e-3  # -: |u x n| below this means the axle is (nearly) along the normal: no rolling direction


@leaf
def support_radius(kind, r, n, u):
    """rEff: the wheel's reach along -n. Sphere/ray: r. Disc: r sqrt(1 - dot(n, u)^2)."""
    if kind == QUERY_DISC:
        nu = dot(n, u)
        return r * math.sqrt(max(0.0, 1.0 - nu * nu))
    return r


@leaf
def suspension_length(s, inv_a, r_eff, l_min, l_max):
    """l_raw = s - rEff / a; grounded when l_raw <= l_max; l = max(l_min, l_raw).

    s: m along d to the contact plane; inv_a = 1 / a, a = -dot(n, d) (>= A_MIN, checked by the caller);
    returns (grounded, l_raw, l). An anchor at or under the contact plane (s <= 0: the body is in the
    ground) gives no support; that contact is the body collision's (docs/physics.md §14)."""
    l_raw = s - r_eff * inv_a
    if l_raw > l_max or s <= 0.0:
        return False, l_raw, l_max
    return True, l_raw, max(l_min, l_raw)


@leaf
def landing_sink(l_last, l_raw, r, sink):
    """How far (m, along the axis) the wheel is let sit in the surface it meets: the ground may come nearer along
    the axis by at most LANDING_REACH r in a substep (l_last: where the last substep's contact was taken up,
    l_max after a flight; l_raw: where this one's is). A nearer surface appeared inside the wheel (a tumbling body
    rolling a buried wheel out of the ground, a ray crossing an edge, a disc turning flat) rather than met it:
    a wheel falling at 30 m/s moves 6 cm in a substep of 1/480 s. Taken at once, that depth would be the
    spring's, the bump stop's and the tire's energy from nowhere; so the rest is taken up as the wheel rolls
    (`sink_rolled`, the wheel stage). sink: the last substep's, as the wheel has rolled since (0 in the air)."""
    return max(sink, l_last - l_raw - LANDING_REACH * r)


@leaf
def contact_point(kind, c, n, u, r):
    """Q: sphere/ray Q = C - r n; disc Q = C - r normalize(n - dot(n, u) u)."""
    if kind == QUERY_DISC:
        nu = dot(n, u)
        return madd(c, normalize(madd(n, u, -nu)), -r)
    return madd(c, n, -r)


@leaf
def tire_frame(u, n):
    """t = normalize(u x n) (rolling direction), b = n x t. ok=False when u is nearly parallel to n."""
    un = cross(u, n)
    m = norm(un)
    if m < U_PARALLEL:
        return False, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    t = scale(un, 1.0 / m)
    return True, t, cross(n, t)


@leaf
def rolling_arm(u, q_contact, c, t_axis):
    """rho = -dot(cross(u, Q - C), t): the lever of the tread about the spin axis (m)."""
    return -dot(cross(u, sub(q_contact, c)), t_axis)


@leaf
def spin_axis(q, camber, steer):
    """u in world: the body's +y axis turned by camber about x, then by the steering angle about z.

    Positive omega about u = +y rolls the car forward, so t = normalize(u x n) points forward."""
    cs, sn = 1.0, steer
    if steer != 0.0:
        cs, sn = math.cos(steer), math.sin(steer)
    return steered_axis(q, math.cos(camber), math.sin(camber), cs, sn)


@leaf
def steered_axis(q, cos_camber, sin_camber, cos_steer, sin_steer):
    """spin_axis with the camber's cos and sin given (packed once: WP_CAMBER_COS, WP_CAMBER_SIN) and the
    steering angle's (`steer_cos_sin`)."""
    ub = (0.0, cos_camber, sin_camber)
    cs, sn = cos_steer, sin_steer
    return quat_rotate(q, (ub[0] * cs - ub[1] * sn, ub[0] * sn + ub[1] * cs, ub[2]))


@leaf
def steer_cos_sin(v, wheel_scratch):
    """The cos and sin of the four road-wheel angles W_STEER, four at once (sim/kernel/lanes.py: libmvec's AVX2
    functions, exact at 0). With the scalar library a wheel at 0 (the rear, going straight) skips its
    calls: cos(+-0) = 1 and sin(+-0) = +-0, the library's own results."""
    st = (wheel_scratch[v, 0, W_STEER], wheel_scratch[v, 1, W_STEER], wheel_scratch[v, 2, W_STEER],
          wheel_scratch[v, 3, W_STEER])
    if VECTOR_MATH != "scalar":
        return cos4(st), sin4(st)
    c0, s0 = (1.0, st[0]) if st[0] == 0.0 else (math.cos(st[0]), math.sin(st[0]))
    c1, s1 = (1.0, st[1]) if st[1] == 0.0 else (math.cos(st[1]), math.sin(st[1]))
    c2, s2 = (1.0, st[2]) if st[2] == 0.0 else (math.cos(st[2]), math.sin(st[2]))
    c3, s3 = (1.0, st[3]) if st[3] == 0.0 else (math.cos(st[3]), math.sin(st[3]))
    return (c0, c1, c2, c3), (s0, s1, s2, s3)


@stage
def contact_stage(v, wheel_params, pos, q, wheel_state, wheel_scratch, planes, boxes, hf_meta, hf_z, surf_mu, t,
                  box_mask, hf_mask):
    """Query the ground along each suspension axis and place the wheel on it: s, a, l, C, Q, x, t, b, u.

    pos (m), q: the frozen body pose; only the shapes in the broad phase's masks are tested. Reads the
    road-wheel angle W_STEER of this substep and where the last one met the ground (WS_LRAW); writes
    the wheel's contact columns of wheel_scratch. A surface more than a wheel radius nearer along the
    axis than the last contact (or than l_max after a flight) is not taken up: a tire cannot roll onto
    a step higher than its radius, and such a surface (an edge swept into a ray, a wall met by a
    tumbling body) is the body collision's (docs/physics.md §14)."""
    cos_steer, sin_steer = steer_cos_sin(v, wheel_scratch)
    for i in range(NW):
        kind = int(wheel_params[v, i, WP_QUERY])
        r = wheel_params[v, i, WP_R]
        l_min = wheel_params[v, i, WP_LMIN]
        l_max = wheel_params[v, i, WP_LMAX]
        anchor_b = get3w(wheel_params, v, i, WP_AX)
        side = wheel_params[v, i, WP_SIDE]
        if wheel_params[v, i, WP_GEO] != 0.0:                                 # the linkage (§7.1), at last travel
            anchor_b = add(anchor_b, path_offset(v, i, wheel_params, wheel_state[v, i, WS_TRAVEL]))
            camber, toe = travel_angles(v, i, wheel_params, wheel_state)
            yaw = wheel_scratch[v, i, W_STEER] + toe
            u = steered_axis(q, math.cos(camber), math.sin(camber), math.cos(yaw), math.sin(yaw))
            wheel_scratch[v, i, W_CAMBER_BODY] = -side * camber
            wheel_scratch[v, i, W_TOE] = -side * toe
        else:
            u = steered_axis(q, wheel_params[v, i, WP_CAMBER_COS], wheel_params[v, i, WP_CAMBER_SIN], cos_steer[i],
                             sin_steer[i])                                    # after steer, camber
            wheel_scratch[v, i, W_CAMBER_BODY] = -side * wheel_params[v, i, WP_CAMBER]
            wheel_scratch[v, i, W_TOE] = 0.0
        anchor = add(pos, quat_rotate(q, anchor_b))                           # A, world
        d = quat_rotate(q, get3w(wheel_params, v, i, WP_DX))                  # unit axis, world, points down
        hit, s, p, n, surf, shape, vg = cast(planes, boxes, hf_meta, hf_z, kind, anchor, d, r, l_max,
                                             A_MIN, t, v, box_mask, hf_mask)
        a = -dot(n, d)                                                        # a = -dot(n, d)
        grounded = hit and a >= A_MIN
        l_raw = l_max
        l = l_max
        r_eff = r
        if grounded:
            r_eff = support_radius(kind, r, n, u)                             # sphere r; disc r sqrt(1-(n.u)^2)
            inv_a = 1.0 / a                                                   # (the suspension's rate too)
            wheel_scratch[v, i, W_INV_A] = inv_a
            grounded, l_raw, l = suspension_length(s, inv_a, r_eff, l_min, l_max)   # l_raw = s - rEff/a
            if grounded and wheel_state[v, i, WS_LRAW] - l_raw > r:
                grounded = False                                          # a wall, not a surface to roll onto
                l_raw = l_max
                l = l_max
            if grounded:
                sink = landing_sink(wheel_state[v, i, WS_LRAW], l_raw, r, wheel_state[v, i, WS_SINK])
                wheel_state[v, i, WS_SINK] = sink
                if sink > 0.0:                                            # the surface where the wheel can be
                    s += sink
                    grounded, l_raw, l = suspension_length(s, inv_a, r_eff, l_min, l_max)
        # the tire frame t = (u x n) / |u x n| waits for the four wheels' lengths (one vector square root and
        # division for all four, sim/kernel/lanes.py: the same bits as `tire_frame` wheel by wheel); until then
        # W_TX holds u x n and W_BX its squared length (1 for a wheel with no frame to find)
        un = cross(u, n) if grounded else (0.0, 0.0, 0.0)
        wheel_scratch[v, i, W_S] = s
        wheel_scratch[v, i, W_A] = a
        wheel_scratch[v, i, W_L] = l
        wheel_scratch[v, i, W_LRAW] = l_raw
        wheel_scratch[v, i, W_R_EFF] = r_eff
        wheel_scratch[v, i, W_GROUNDED] = 1.0 if grounded else 0.0
        wheel_scratch[v, i, W_SURFACE] = surf
        wheel_scratch[v, i, W_SHAPE] = shape
        set3w(wheel_scratch, v, i, W_NX, n)
        set3w(wheel_scratch, v, i, W_CX, madd(anchor, d, l))                  # C = A + l d
        set3w(wheel_scratch, v, i, W_UX, u)
        set3w(wheel_scratch, v, i, W_VGX, vg)
        set3w(wheel_scratch, v, i, W_TX, un)
        wheel_scratch[v, i, W_BX] = dot(un, un) if grounded else 1.0
        wheel_scratch[v, i, W_BX + 1] = d[0]                                  # (d, for the airborne wheel's n)
        wheel_scratch[v, i, W_BX + 2] = d[1]
        wheel_scratch[v, i, W_QX] = d[2]
    m = sqrt4((wheel_scratch[v, 0, W_BX], wheel_scratch[v, 1, W_BX], wheel_scratch[v, 2, W_BX],
               wheel_scratch[v, 3, W_BX]))                                    # |u x n|
    inv_m = div4((1.0, 1.0, 1.0, 1.0), m)
    for i in range(NW):
        kind = int(wheel_params[v, i, WP_QUERY])
        r = wheel_params[v, i, WP_R]
        grounded = wheel_scratch[v, i, W_GROUNDED] > 0.0
        n = get3w(wheel_scratch, v, i, W_NX)
        c = get3w(wheel_scratch, v, i, W_CX)
        d = (wheel_scratch[v, i, W_BX + 1], wheel_scratch[v, i, W_BX + 2], wheel_scratch[v, i, W_QX])
        tt = (1.0, 0.0, 0.0)
        bb = (0.0, 1.0, 0.0)
        if grounded:
            if m[i] < U_PARALLEL:                                             # tire_frame's "not ok"
                grounded = False
            else:
                tt = scale(get3w(wheel_scratch, v, i, W_TX), inv_m[i])        # t = u x n / |u x n|, b = n x t
                bb = cross(n, tt)
        if grounded:
            qc = contact_point(kind, c, n, get3w(wheel_scratch, v, i, W_UX), r)   # Q per shape
            surf = int(wheel_scratch[v, i, W_SURFACE])
        else:
            qc = madd(c, d, r)
            surf = -1
            wheel_scratch[v, i, W_S] = 0.0
            wheel_scratch[v, i, W_A] = 0.0
            wheel_scratch[v, i, W_SURFACE] = -1
            wheel_scratch[v, i, W_SHAPE] = -1
            wheel_scratch[v, i, W_GROUNDED] = 0.0
            set3w(wheel_scratch, v, i, W_NX, scale(d, -1.0))
            set3w(wheel_scratch, v, i, W_VGX, (0.0, 0.0, 0.0))
        wheel_scratch[v, i, W_X] = compression(wheel_params[v, i, WP_L0], wheel_scratch[v, i, W_L]) if grounded \
            else 0.0                                                          # max(0, l0 - l)
        wheel_scratch[v, i, W_MU] = surf_mu[surf, 0] * wheel_params[v, i, WP_GRIP] if grounded else 0.0
        wheel_scratch[v, i, W_ROLL_SURF] = surf_mu[surf, 1] if grounded else 0.0
        set3w(wheel_scratch, v, i, W_QX, qc)
        set3w(wheel_scratch, v, i, W_TX, tt)
        set3w(wheel_scratch, v, i, W_BX, bb)
