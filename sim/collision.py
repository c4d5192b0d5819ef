"""Body collision: the chassis hull against the ground, as penalty springs at a few hull points.

The spec hands every contact that cannot support a wheel (a < 0.2, a rolled car, a wall) to body
collision. This is the simplest honest version: 14 points on the body (floor between the axles,
bumpers, roof, sides) each push out of any shape they penetrate with
    Fn = max(0, k depth - c vn)                       (vn: separating speed along the normal)
    Ft = -min(mu Fn, c_t |vt|) vt/|vt|                (Coulomb friction, viscous below the limit)
with mu = surface mu x the hull's friction factor. It is an external force on the body of its own
("collision" in the telemetry); no impulses, no wheel-to-wall contact.
"""
from __future__ import annotations

import math

from sim.jit import kernel, leaf
from sim.query import BX_BOUND, BX_HX, BX_HY, BX_HZ, BX_OWNER, BX_SURF, HF_DX, HF_DY, HF_NX, HF_NY, HF_OX, \
    HF_OY, HF_SURF, PL_NX, PL_NY, PL_NZ, PL_PX, PL_PY, PL_PZ, PL_SURF, box_pose, box_surface_velocity, hf_height
from sim.vec import add, cross, dot, madd, norm, normalize, quat_rotate, quat_rotate_inv, scale, sub


@leaf
def hull_neighbours(boxes, hf_meta, centre, radius, t, vehicle):
    """Bit masks of the boxes (first 63) and heightfields (first 63) whose bounds come within `radius`
    of `centre`; shapes past the 63rd are always checked."""
    box_mask = 0
    for i in range(min(boxes.shape[0], 63)):
        if int(boxes[i, BX_OWNER]) == vehicle:
            continue
        c, q, vc = box_pose(boxes, i, t)
        if norm(sub(centre, c)) <= boxes[i, BX_BOUND] + radius:
            box_mask |= 1 << i
    hf_mask = 0
    for i in range(min(hf_meta.shape[0], 63)):
        x0 = hf_meta[i, HF_OX]
        y0 = hf_meta[i, HF_OY]
        x1 = x0 + (hf_meta[i, HF_NX] - 1.0) * hf_meta[i, HF_DX]
        y1 = y0 + (hf_meta[i, HF_NY] - 1.0) * hf_meta[i, HF_DY]
        if x0 - radius <= centre[0] <= x1 + radius and y0 - radius <= centre[1] <= y1 + radius:
            hf_mask |= 1 << i
    return box_mask, hf_mask


@leaf
def deepest_penetration(planes, boxes, hf_meta, hf_z, p, t, vehicle, box_mask, hf_mask):
    """Depth (m, > 0 inside), outward normal, surface index and surface velocity of the deepest shape
    that contains point p at time t; depth 0 when p is outside everything. Boxes and heightfields
    outside the masks of `hull_neighbours` are skipped."""
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
        if i < 63 and not (box_mask >> i) & 1:
            continue
        if int(boxes[i, BX_OWNER]) == vehicle:
            continue
        c, q, vc = box_pose(boxes, i, t)
        if norm(sub(p, c)) > boxes[i, BX_BOUND]:
            continue
        pl = quat_rotate_inv(q, sub(p, c))
        h = (boxes[i, BX_HX], boxes[i, BX_HY], boxes[i, BX_HZ])
        dx = h[0] - abs(pl[0])
        dy = h[1] - abs(pl[1])
        dz = h[2] - abs(pl[2])
        if dx <= 0.0 or dy <= 0.0 or dz <= 0.0:
            continue
        if dx <= dy and dx <= dz:
            depth = dx
            nl = (1.0 if pl[0] >= 0.0 else -1.0, 0.0, 0.0)
        elif dy <= dz:
            depth = dy
            nl = (0.0, 1.0 if pl[1] >= 0.0 else -1.0, 0.0)
        else:
            depth = dz
            nl = (0.0, 0.0, 1.0 if pl[2] >= 0.0 else -1.0)
        if depth > best:
            best, best_n, best_surf = depth, quat_rotate(q, nl), int(boxes[i, BX_SURF])
            best_v = box_surface_velocity(boxes, i, vc, c, p)
    for i in range(hf_meta.shape[0]):
        if i < 63 and not (hf_mask >> i) & 1:
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
