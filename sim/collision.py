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

from sim.jit import kernel, leaf
from sim.shapes import BX_BOUND, BX_OWNER, BX_SURF, HF_SURF, PL_NX, PL_NY, PL_NZ, PL_PX, PL_PY, PL_PZ, PL_SURF, \
    box_half_extents, box_pose, box_surface_velocity, in_mask, least_penetrated_face
from sim.query import hf_height
from sim.tables import TB_COLLISION_X, TB_HULL_CONTACTS, TB_HULL_DEPTH, VP_HULL_C, VP_HULL_CT, VP_HULL_K, VP_HULL_MU
from sim.vec import add, cross, dot, madd, norm, normalize, quat_rotate, quat_rotate_inv, scale, set3, sub


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
    for i in range(boxes.shape[0]):
        if not in_mask(box_mask, i):
            continue
        if int(boxes[i, BX_OWNER]) == vehicle:
            continue
        c, q, vc = box_pose(boxes, i, t)
        if norm(sub(p, c)) > boxes[i, BX_BOUND]:
            continue
        depth, nl, _ = least_penetrated_face(quat_rotate_inv(q, sub(p, c)), box_half_extents(boxes, i))
        if depth > best:
            best, best_n, best_surf = depth, quat_rotate(q, nl), int(boxes[i, BX_SURF])
            best_v = box_surface_velocity(boxes, i, vc, c, p)
    for i in range(hf_meta.shape[0]):
        if not in_mask(hf_mask, i):
            continue
        ok, z, gx, gy = hf_height(hf_meta, hf_z, i, p[0], p[1])
        if ok and z > p[2]:
            n = normalize((-gx, -gy, 1.0))
            depth = (z - p[2]) * n[2]
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


@kernel
def collision_stage(v, vehicle_params, hull_points, body, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu,
                    t, box_mask, hf_mask):
    """Every hull point inside the ground pushes out. Returns (force (N), torque about the centre of
    mass (N m)), both world; writes the collision force and contact count to the body telemetry."""
    pos, q, vel, w = body
    force = (0.0, 0.0, 0.0)
    tau = (0.0, 0.0, 0.0)
    contacts = 0
    deepest = 0.0
    for k in range(hull_points.shape[1]):
        r = quat_rotate(q, (hull_points[v, k, 0], hull_points[v, k, 1], hull_points[v, k, 2]))
        p = add(pos, r)
        depth, n, surf, vg = deepest_penetration(planes, boxes, hf_meta, hf_z, p, t, v, box_mask, hf_mask)
        if depth <= 0.0:
            continue
        contacts += 1
        deepest = max(deepest, depth)
        v_rel = sub(add(vel, cross(w, r)), vg)
        f = hull_contact_force(depth, n, surf_mu[surf] * vehicle_params[v, VP_HULL_MU], v_rel,
                               vehicle_params[v, VP_HULL_K], vehicle_params[v, VP_HULL_C],
                               vehicle_params[v, VP_HULL_CT])
        force = add(force, f)
        tau = add(tau, cross(r, f))
    set3(body_telemetry, v, TB_COLLISION_X, force)
    body_telemetry[v, TB_HULL_CONTACTS] = contacts
    body_telemetry[v, TB_HULL_DEPTH] = deepest
    return force, tau
