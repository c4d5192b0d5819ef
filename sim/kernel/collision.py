"""Body collision: the chassis hull against the ground, as penalty springs at a few hull points
(docs/physics.md §10).

Every contact that cannot support a wheel (a < 0.2, a rolled car, a wall) is body collision's. This is the
simplest honest version: 14 points on the body (floor between the axles, bumpers, roof, sides) each push
out of any shape they penetrate with
    Fn = max(0, k depth - c vn)                       (vn: separating speed along the normal)
    Ft = -min(mu Fn, c_t |vt|) vt/|vt|                (Coulomb friction, viscous below the limit)
with mu = surface mu x the hull's friction factor. It is an external force on the body of its own
("collision" in the telemetry); no impulses, no wheel-to-wall contact.
"""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.query import HF_SKIN
from sim.kernel.query import hf_height
from sim.kernel.query import hf_side
from sim.kernel.shapes import BX_BOUND
from sim.kernel.shapes import BX_HX
from sim.kernel.shapes import BX_HY
from sim.kernel.shapes import BX_HZ
from sim.kernel.shapes import BX_OWNER
from sim.kernel.shapes import BX_SURF
from sim.kernel.shapes import HF_SURF
from sim.kernel.shapes import MASK_BITS
from sim.kernel.shapes import PL_NX
from sim.kernel.shapes import PL_NY
from sim.kernel.shapes import PL_NZ
from sim.kernel.shapes import PL_PX
from sim.kernel.shapes import PL_PY
from sim.kernel.shapes import PL_PZ
from sim.kernel.shapes import PL_SURF
from sim.kernel.shapes import box_centre
from sim.kernel.shapes import box_half_extents
from sim.kernel.shapes import box_pose
from sim.kernel.shapes import box_surface_velocity
from sim.kernel.shapes import in_mask
from sim.kernel.shapes import least_penetrated_face
from sim.kernel.shapes import mask_end
from sim.kernel.shapes import sphere_misses_box
from sim.kernel.tables import TB_COLLISION_X
from sim.kernel.tables import TB_HULL_CONTACTS
from sim.kernel.tables import TB_HULL_DEPTH
from sim.kernel.tables import TB_WORK_GROUND
from sim.kernel.tables import VP_HULL_BX
from sim.kernel.tables import VP_HULL_BY
from sim.kernel.tables import VP_HULL_BZ
from sim.kernel.tables import VP_HULL_C
from sim.kernel.tables import VP_HULL_CT
from sim.kernel.tables import VP_HULL_CT_LIMIT
from sim.kernel.tables import VP_HULL_HX
from sim.kernel.tables import VP_HULL_HY
from sim.kernel.tables import VP_HULL_HZ
from sim.kernel.tables import VP_HULL_K
from sim.kernel.tables import VP_HULL_LAMBDA
from sim.kernel.tables import VP_HULL_MU
from sim.kernel.tables import VP_HULL_RADIUS
from sim.kernel.tables import VP_HULL_SIZE
from sim.kernel.tables import VP_IXX
from sim.kernel.tables import VP_IYY
from sim.kernel.tables import VP_IZZ
from sim.kernel.tables import VP_MASS
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import madd
from sim.kernel.vec import norm
from sim.kernel.vec import normalize
from sim.kernel.vec import quat_matrix
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import quat_rotate_inv
from sim.kernel.vec import scale
from sim.kernel.vec import set3
from sim.kernel.vec import sub

HULL_LOAD_CAP = 0.99 * 4.0 / 1.25   # h^2 k lambda + 2 h c lambda the penalty is held to: the stability limit 4
#                                     with sim/advisor.py's REQUIRED_MARGIN 1.25, just inside


@leaf
def deepest_penetration(planes, boxes, hf_meta, hf_z, p, t, vehicle, box_mask, hf_mask):
    """Depth (m, > 0 inside), outward normal, surface index and surface velocity of the deepest shape
    that contains point p at time t; depth 0 when p is outside everything. Boxes and heightfields
    outside the broad phase's masks are skipped."""
    best = 0.0
    best_n = (0.0, 0.0, 1.0)
    best_surf = -1
    best_v = (0.0, 0.0, 0.0)
    for i in range(planes.shape[0]):
        n = (planes[i, PL_NX], planes[i, PL_NY], planes[i, PL_NZ])
        depth = dot(n, sub((planes[i, PL_PX], planes[i, PL_PY], planes[i, PL_PZ]), p))
        if depth > best:
            best, best_n, best_surf, best_v = depth, n, int(planes[i, PL_SURF]), (0.0, 0.0, 0.0)
    for i in range(mask_end(box_mask, boxes.shape[0])):
        if not in_mask(box_mask, i):
            continue
        if int(boxes[i, BX_OWNER]) == vehicle:
            continue
        if norm(sub(p, box_centre(boxes, i, t))) > boxes[i, BX_BOUND]:
            continue
        c, q, vc = box_pose(boxes, i, t)
        depth, nl, _ = least_penetrated_face(quat_rotate_inv(q, sub(p, c)), box_half_extents(boxes, i))
        if depth > best:
            best, best_n, best_surf = depth, quat_rotate(q, nl), int(boxes[i, BX_SURF])
            best_v = box_surface_velocity(boxes, i, vc, c, p)
    for i in range(mask_end(hf_mask, hf_meta.shape[0])):
        if not in_mask(hf_mask, i):
            continue
        ok, z, gx, gy = hf_height(hf_meta, hf_z, i, p[0], p[1])
        if ok and z > p[2] and z - p[2] <= HF_SKIN:     # deeper: under an overhang, not inside the ground
            n = normalize((-gx, -gy, 1.0))
            depth = (z - p[2]) * n[2]
            side, sx, sy = hf_side(hf_meta, i, p[0], p[1])
            if side < depth:                            # nearer the field's side wall than its surface
                depth, n = side, (sx, sy, 0.0)
            if depth > best:
                best, best_n, best_surf, best_v = depth, n, int(hf_meta[i, HF_SURF]), (0.0, 0.0, 0.0)
    return best, best_n, best_surf, best_v


@leaf
def hull_contact_force(depth, n, mu, v_rel, k, c, c_t):
    """Penalty normal force plus regularised Coulomb friction for one hull point (N, world)."""
    vn = dot(v_rel, n)
    fn = max(0.0, k * depth - c * vn)
    vt = madd(v_rel, n, -vn)
    speed_t = norm(vt)
    f = scale(n, fn)
    if speed_t > 0.0:
        ft = min(mu * fn, c_t * speed_t)
        f = madd(f, vt, -ft / speed_t)
    return f


CLEARANCE_MARGIN = 1.0e-6  # -: of the coordinates' size; the rounding both ways of writing a height may differ by


@leaf
def clear_of_planes(planes, hull_points, vehicle_params, v, pos, q):
    """True when no hull point can be inside any plane, decided without placing the points: a point's height
    above plane i, n . (pos + R h - p0), is n . (pos - p0) + (R^T n) . h, so one rotation of each normal into
    the body frame gives every point's height. True only when the lowest is above a margin far wider than
    the rounding of either form, so a point this passes would not have been found inside by the exact test
    (`deepest_penetration`) either; nan passes nothing. The points' bounding box (packed, widened past its
    rounding) is tried first: the lowest of its corners, m . c - |m| . half, is below every point, so when
    it passes the points would too (the same answer without the loop over them, driving on the flat)."""
    for i in range(planes.shape[0]):
        n = (planes[i, PL_NX], planes[i, PL_NY], planes[i, PL_NZ])
        p0 = (planes[i, PL_PX], planes[i, PL_PY], planes[i, PL_PZ])
        m = quat_rotate_inv(q, n)
        size = 1.0 + abs(pos[0]) + abs(pos[1]) + abs(pos[2]) + abs(p0[0]) + abs(p0[1]) + abs(p0[2])
        height = dot(n, sub(pos, p0))
        box_low = m[0] * vehicle_params[v, VP_HULL_BX] + m[1] * vehicle_params[v, VP_HULL_BY] + \
            m[2] * vehicle_params[v, VP_HULL_BZ] - (abs(m[0]) * vehicle_params[v, VP_HULL_HX] +
                                                    abs(m[1]) * vehicle_params[v, VP_HULL_HY] +
                                                    abs(m[2]) * vehicle_params[v, VP_HULL_HZ])
        if height + box_low > CLEARANCE_MARGIN * (size + vehicle_params[v, VP_HULL_SIZE]):
            continue
        low = math.inf
        for k in range(hull_points.shape[1]):
            h = (hull_points[v, k, 0], hull_points[v, k, 1], hull_points[v, k, 2])
            low = min(low, dot(m, h))
            size += abs(h[0]) + abs(h[1]) + abs(h[2])
        if not height + low > CLEARANCE_MARGIN * size:
            return False
    return True


@leaf
def hull_boxes(boxes, box_mask, pos, radius, t, vehicle):
    """The broad phase's box mask without the boxes the hull's bounding sphere (centre of mass `pos`,
    `radius` m) stays clear of (the broad phase's sphere is the wheels' reach, larger than the hull's), so
    that the 14 hull points do not each place themselves in a box none of them can be inside. Nothing
    changes for the points: a point outside the sphere is outside the box."""
    mask = box_mask
    for i in range(min(boxes.shape[0], MASK_BITS)):
        if in_mask(mask, i) and int(boxes[i, BX_OWNER]) != vehicle and \
                sphere_misses_box(boxes, i, pos, radius, t):
            mask &= ~(1 << i)
    return mask


@leaf
def hull_apart_from_box(boxes, i, vehicle_params, v, pos, q, t):
    """True when the hull points' bounding box (packed in the body frame) and box i at time t are apart
    along one of box i's own axes, by more than a margin far wider than the rounding of either side: then
    no hull point is inside box i, and `deepest_penetration` would find none there either. The test of
    two boxes on the axes of one (the separating-axis test's first three): the hull box's centre in box
    i's frame against the sum of box i's half extent and the hull box's extent along that axis,
    sum_k |(R_i^T R)_jk| h_k. A car driving over a flat patch, past a curb or beside a slope skips its
    14 points."""
    c, qb, _ = box_pose(boxes, i, t)
    m = quat_matrix(q)
    mb = quat_matrix(qb)
    hb = (vehicle_params[v, VP_HULL_BX], vehicle_params[v, VP_HULL_BY], vehicle_params[v, VP_HULL_BZ])
    hh = (vehicle_params[v, VP_HULL_HX], vehicle_params[v, VP_HULL_HY], vehicle_params[v, VP_HULL_HZ])
    d = sub(add(pos, quat_rotate(q, hb)), c)                        # hull box centre from the box centre, world
    size = 1.0 + abs(pos[0]) + abs(pos[1]) + abs(pos[2]) + abs(c[0]) + abs(c[1]) + abs(c[2]) + \
        vehicle_params[v, VP_HULL_SIZE] + boxes[i, BX_HX] + boxes[i, BX_HY] + boxes[i, BX_HZ]
    margin = CLEARANCE_MARGIN * size
    half = (boxes[i, BX_HX], boxes[i, BX_HY], boxes[i, BX_HZ])
    for j in range(3):
        axis = (mb[0][j], mb[1][j], mb[2][j])                       # box i's axis j, world
        # the hull box's axes are the columns of m: (R_i^T R)_jk = axis . column k
        extent = abs(axis[0] * m[0][0] + axis[1] * m[1][0] + axis[2] * m[2][0]) * hh[0] + \
            abs(axis[0] * m[0][1] + axis[1] * m[1][1] + axis[2] * m[2][1]) * hh[1] + \
            abs(axis[0] * m[0][2] + axis[1] * m[1][2] + axis[2] * m[2][2]) * hh[2]
        if abs(dot(axis, d)) - extent > half[j] + margin:
            return True
    return False


@leaf
def hull_boxes_near(boxes, box_mask, vehicle_params, v, pos, q, t):
    """`box_mask` without the boxes the hull's bounding box is apart from (`hull_apart_from_box`)."""
    mask = box_mask
    for i in range(min(boxes.shape[0], MASK_BITS)):
        if in_mask(mask, i) and int(boxes[i, BX_OWNER]) != v and \
                hull_apart_from_box(boxes, i, vehicle_params, v, pos, q, t):
            mask &= ~(1 << i)
    return mask


@leaf
def only_planes_within(boxes, hf_meta, box_mask, hf_mask, vehicle):
    """True when the masks select no box (but the vehicle's own) and no heightfield: only planes to test."""
    for i in range(mask_end(box_mask, boxes.shape[0])):
        if in_mask(box_mask, i) and int(boxes[i, BX_OWNER]) != vehicle:
            return False
    for i in range(mask_end(hf_mask, hf_meta.shape[0])):
        if in_mask(hf_mask, i):
            return False
    return True


@leaf
def held_penalty(k, c, lam, h):
    """The penalty's (k, c) at substep h held to h^2 k lam + 2 h c lam <= HULL_LOAD_CAP for the hull's fastest
    mode (lam per unit of stiffness), unchanged (bit for bit) where they are within it. Held, the damping
    is first kept to critical for that mode (more only slows the contact and eats the room the stiffness
    needs to hold the car up), then k and c are scaled by u^2 and u, which keeps their damping ratio (a
    contact held softer must not bounce back harder): no collision.stiffness or damping can blow up."""
    load_k = h * h * k * lam
    if load_k + 2.0 * h * c * lam <= HULL_LOAD_CAP:
        return k, c
    c = min(c, 2.0 * math.sqrt(k / lam))
    load_c = 2.0 * h * c * lam
    u = 1.0
    if load_k + load_c > HULL_LOAD_CAP:
        u = (-load_c + math.sqrt(load_c * load_c + 4.0 * load_k * HULL_LOAD_CAP)) / (2.0 * load_k)
    return k * u * u, c * u


@leaf
def contact_lambda(v, vehicle_params, r_body, n_body):
    """1 / m + (r x n) . I^-1 (r x n) (1/kg): how fast a hull point at r_body (from the centre of mass, body frame)
    pushed along n_body (body frame) moves per unit of force, the body's mass and principal moments as
    integrated."""
    a = cross(r_body, n_body)
    return 1.0 / vehicle_params[v, VP_MASS] + a[0] * a[0] / vehicle_params[v, VP_IXX] \
        + a[1] * a[1] / vehicle_params[v, VP_IYY] + a[2] * a[2] / vehicle_params[v, VP_IZZ]


@leaf
def hull_pass(v, vehicle_params, hull_points, body, planes, boxes, hf_meta, hf_z, surf_mu, t, box_mask, hf_mask,
              n_points, k_n, c_n, c_t, want_lambda):
    """The first n_points hull points against the ground with the penalty (k_n, c_n) and friction damping c_t:
    (force (N), torque about the centre of mass (N m), the moving ground's power (W), contacts, the deepest
    depth (m), and with want_lambda the sum of the contacts' `contact_lambda`, a bound on their fastest mode
    per unit of stiffness: the trace of J M^-1 J^T is at least its largest eigenvalue)."""
    pos, q, vel, w = body
    force = (0.0, 0.0, 0.0)
    tau = (0.0, 0.0, 0.0)
    ground = 0.0
    contacts = 0
    deepest = 0.0
    lam = 0.0
    for k in range(n_points):
        r_body = (hull_points[v, k, 0], hull_points[v, k, 1], hull_points[v, k, 2])
        r = quat_rotate(q, r_body)
        p = add(pos, r)
        depth, n, surf, vg = deepest_penetration(planes, boxes, hf_meta, hf_z, p, t, v, box_mask, hf_mask)
        if depth <= 0.0:
            continue
        contacts += 1
        deepest = max(deepest, depth)
        if want_lambda:
            lam += contact_lambda(v, vehicle_params, r_body, quat_rotate_inv(q, n))
        v_rel = sub(add(vel, cross(w, r)), vg)
        f = hull_contact_force(depth, n, surf_mu[surf, 0] * vehicle_params[v, VP_HULL_MU], v_rel,
                               k_n, c_n, c_t)
        force = add(force, f)
        tau = add(tau, cross(r, f))
        ground += dot(f, vg)                                          # a moving ground's push (work ledger)
    return force, tau, ground, contacts, deepest, lam


@stage
def collision_stage(v, vehicle_params, hull_points, body, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu,
                    t, box_mask, hf_mask, h):
    """Every hull point inside the ground pushes out. Returns (force (N), torque about the centre of
    mass (N m)), both world; writes the collision force and contact count to the body telemetry. h: the
    substep (s); the friction's viscous slope is held to VP_HULL_CT_LIMIT / h, what the step integrates
    stably (docs/physics.md §10)."""
    pos, q = body[0], body[1]
    c_t = min(vehicle_params[v, VP_HULL_CT], vehicle_params[v, VP_HULL_CT_LIMIT] / h)
    k_n, c_n = held_penalty(vehicle_params[v, VP_HULL_K], vehicle_params[v, VP_HULL_C],
                            vehicle_params[v, VP_HULL_LAMBDA], h)
    n_points = hull_points.shape[1]
    if box_mask != 0:
        box_mask = hull_boxes(boxes, box_mask, pos, vehicle_params[v, VP_HULL_RADIUS], t, v)
    if box_mask != 0:
        box_mask = hull_boxes_near(boxes, box_mask, vehicle_params, v, pos, q, t)
    if only_planes_within(boxes, hf_meta, box_mask, hf_mask, v) and \
            clear_of_planes(planes, hull_points, vehicle_params, v, pos, q):
        n_points = 0                                                  # the whole hull is above the ground
    lam = vehicle_params[v, VP_HULL_LAMBDA]
    held = k_n != vehicle_params[v, VP_HULL_K] or c_n != vehicle_params[v, VP_HULL_C]
    force, tau, ground, contacts, deepest, lam_now = hull_pass(v, vehicle_params, hull_points, body, planes, boxes,
                                                               hf_meta, hf_z, surf_mu, t, box_mask, hf_mask,
                                                               n_points, k_n, c_n, c_t, held)
    if held and contacts > 0 and lam_now < lam:          # held for the worst group; these contacts move slower
        k_n, c_n = held_penalty(vehicle_params[v, VP_HULL_K], vehicle_params[v, VP_HULL_C], lam_now, h)
        force, tau, ground, contacts, deepest, _ = hull_pass(v, vehicle_params, hull_points, body, planes, boxes,
                                                             hf_meta, hf_z, surf_mu, t, box_mask, hf_mask, n_points,
                                                             k_n, c_n, c_t, False)
    body_telemetry[v, TB_WORK_GROUND] += ground * h
    set3(body_telemetry, v, TB_COLLISION_X, force)
    body_telemetry[v, TB_HULL_CONTACTS] = contacts
    body_telemetry[v, TB_HULL_DEPTH] = deepest
    return force, tau
