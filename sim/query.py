"""Wheel queries against the world along a suspension axis (spec 000, 查询长度与轮心).

A query starts at the anchor A and runs along the unit suspension axis d. Whatever its shape, it returns
the *contact plane* it found: a point P = A + s d on that plane, where the axis meets it, and the plane's
unit normal n (facing the wheel). The contact chain (`sim/contact.py`) then places the wheel on that plane
with the shape's own support radius, exactly as the spec does for a local plane:

    ray    : the first surface hit by the line A + s d, taken as a local plane (cheap; misses curb sides)
    sphere : a sphere of radius r swept from A along d; the plane tangent at the first touching point
    disc   : the sphere sweep's contact plane, with the wheel's own disc support rEff = r sqrt(1-(n.u)^2)
             applied by the contact chain (exact on flat faces, the tangent plane at edges)

Heightfields are always queried with the ray and their local tangent plane (the spec's 射线近似局部平面).

World tables (see `sim/world.py` for the columns):
    planes  (NP, PL_N)  infinite planes
    boxes   (NB, BX_N)  oriented boxes; kinematic ones move with time t
    hf_meta (NH, HF_N)  heightfield headers; hf_z (total,) their heights, row-major per field
    surf_mu (NS,)       friction coefficient of each surface (material)

Every query returns the tuple
    (hit, s, P, n, surface, shape, v_ground)
hit: bool; s: m along d (may be negative when A is already below a plane); P: world point (3);
n: unit normal (3); surface: material index; shape: unique shape id; v_ground: surface velocity at P (3).
"""
from __future__ import annotations

import math

from sim.jit import kernel, leaf
from sim.vec import add, cross, dot, madd, norm, normalize, quat_from_rotvec, quat_mul, quat_rotate, \
    quat_rotate_inv, scale, sub

# plane columns
PL_PX, PL_PY, PL_PZ, PL_NX, PL_NY, PL_NZ, PL_SURF, PL_ID, PL_N = 0, 1, 2, 3, 4, 5, 6, 7, 8
# box columns: centre at t=0 (m), orientation at t=0 (w,x,y,z), half extents (m), material, shape id,
# owner (vehicle index whose own shape this is, -1 = world), angular velocity about the centre (rad/s,
# world), constant velocity (m/s), oscillation amplitude vector (m), oscillation period (s, 0 = none),
# bounding radius (m)
(BX_CX, BX_CY, BX_CZ, BX_QW, BX_QX, BX_QY, BX_QZ, BX_HX, BX_HY, BX_HZ, BX_SURF, BX_ID, BX_OWNER,
 BX_WX, BX_WY, BX_WZ, BX_VX, BX_VY, BX_VZ, BX_AX, BX_AY, BX_AZ, BX_PERIOD, BX_BOUND, BX_N) = range(25)
# heightfield columns: corner (m), spacing (m), counts, offset into hf_z, material, shape id
(HF_OX, HF_OY, HF_OZ, HF_DX, HF_DY, HF_NX, HF_NY, HF_OFF, HF_SURF, HF_ID, HF_N) = range(11)

QUERY_RAY, QUERY_SPHERE, QUERY_DISC = 0, 1, 2

SWEEP_TOLERANCE = 1.0e-6   # m: a sweep stops when the gap to the surface is below this
SWEEP_ITERATIONS = 48      # conservative-advancement steps before a sweep gives up


# ---------------------------------------------------------------------------------------------------
# Kinematic boxes: pose and velocity as functions of time

@kernel
def box_pose(boxes, i, t):
    """Centre (3), orientation (4) and centre velocity (3) of box i at time t (s).

    c(t) = c0 + v t + a sin(2 pi t / T);  q(t) = rot(w t) q0;  surface velocity at p: c'(t) + w x (p - c).
    """
    c0 = (boxes[i, BX_CX], boxes[i, BX_CY], boxes[i, BX_CZ])
    q0 = (boxes[i, BX_QW], boxes[i, BX_QX], boxes[i, BX_QY], boxes[i, BX_QZ])
    w = (boxes[i, BX_WX], boxes[i, BX_WY], boxes[i, BX_WZ])
    v = (boxes[i, BX_VX], boxes[i, BX_VY], boxes[i, BX_VZ])
    amp = (boxes[i, BX_AX], boxes[i, BX_AY], boxes[i, BX_AZ])
    period = boxes[i, BX_PERIOD]
    c = madd(c0, v, t)
    vc = v
    if period > 0.0:
        ph = 2.0 * math.pi * t / period
        c = madd(c, amp, math.sin(ph))
        vc = madd(vc, amp, 2.0 * math.pi / period * math.cos(ph))
    q = q0
    if w[0] != 0.0 or w[1] != 0.0 or w[2] != 0.0:
        q = quat_mul(quat_from_rotvec(scale(w, t)), q0)
    return c, q, vc


@leaf
def box_surface_velocity(boxes, i, vc, c, p):
    w = (boxes[i, BX_WX], boxes[i, BX_WY], boxes[i, BX_WZ])
    return add(vc, cross(w, sub(p, c)))


@kernel
def box_closest(c, q, h, p):
    """Closest point on (or in) the box to p, the outward normal there, and the distance (0 inside).

    Inside the box the normal is that of the face with the least penetration.
    """
    pl = quat_rotate_inv(q, sub(p, c))
    cx = min(max(pl[0], -h[0]), h[0])
    cy = min(max(pl[1], -h[1]), h[1])
    cz = min(max(pl[2], -h[2]), h[2])
    d = (pl[0] - cx, pl[1] - cy, pl[2] - cz)
    dist = norm(d)
    if dist > 0.0:
        nl = (d[0] / dist, d[1] / dist, d[2] / dist)
        return add(c, quat_rotate(q, (cx, cy, cz))), quat_rotate(q, nl), dist
    # inside: push out through the nearest face
    px = h[0] - abs(pl[0])
    py = h[1] - abs(pl[1])
    pz = h[2] - abs(pl[2])
    if px <= py and px <= pz:
        sgn = 1.0 if pl[0] >= 0.0 else -1.0
        nl = (sgn, 0.0, 0.0)
        cl = (sgn * h[0], pl[1], pl[2])
    elif py <= pz:
        sgn = 1.0 if pl[1] >= 0.0 else -1.0
        nl = (0.0, sgn, 0.0)
        cl = (pl[0], sgn * h[1], pl[2])
    else:
        sgn = 1.0 if pl[2] >= 0.0 else -1.0
        nl = (0.0, 0.0, sgn)
        cl = (pl[0], pl[1], sgn * h[2])
    return add(c, quat_rotate(q, cl)), quat_rotate(q, nl), 0.0


@leaf
def segment_misses_sphere(a, d, length, centre, radius):
    """True when the segment a + s d, s in [0, length], stays farther than `radius` from `centre`."""
    rel = sub(centre, a)
    s = min(max(dot(rel, d), 0.0), length)
    return norm(sub(rel, scale(d, s))) > radius


# ---------------------------------------------------------------------------------------------------
# Primitive queries. Each returns (hit, s, P, n, v_ground).

@leaf
def ray_plane(planes, i, a, d):
    """Line a + s d against plane i. Hit when the plane faces the ray (dot(n, d) < 0); s may be < 0."""
    p0 = (planes[i, PL_PX], planes[i, PL_PY], planes[i, PL_PZ])
    n = (planes[i, PL_NX], planes[i, PL_NY], planes[i, PL_NZ])
    den = dot(n, d)
    if den > -1.0e-9:
        return False, 0.0, a, n, (0.0, 0.0, 0.0)
    s = dot(n, sub(p0, a)) / den
    return True, s, madd(a, d, s), n, (0.0, 0.0, 0.0)


@kernel
def ray_box(boxes, i, a, d, max_s, t):
    """Slab test of the ray against box i at time t; only entering hits with 0 <= s <= max_s."""
    c, q, vc = box_pose(boxes, i, t)
    h = (boxes[i, BX_HX], boxes[i, BX_HY], boxes[i, BX_HZ])
    o = quat_rotate_inv(q, sub(a, c))
    dl = quat_rotate_inv(q, d)
    tmin = -1.0e30
    tmax = 1.0e30
    axis = -1
    sign = 0.0
    for k in range(3):
        if abs(dl[k]) < 1.0e-12:
            if o[k] < -h[k] or o[k] > h[k]:
                return False, 0.0, a, d, (0.0, 0.0, 0.0)
            continue
        t1 = (-h[k] - o[k]) / dl[k]
        t2 = (h[k] - o[k]) / dl[k]
        s_enter = min(t1, t2)
        s_exit = max(t1, t2)
        if s_enter > tmin:
            tmin = s_enter
            axis = k
            sign = -1.0 if dl[k] > 0.0 else 1.0
        tmax = min(tmax, s_exit)
    if axis < 0 or tmin > tmax or tmin < 0.0 or tmin > max_s:
        return False, 0.0, a, d, (0.0, 0.0, 0.0)
    if axis == 0:
        nl = (sign, 0.0, 0.0)
    elif axis == 1:
        nl = (0.0, sign, 0.0)
    else:
        nl = (0.0, 0.0, sign)
    p = madd(a, d, tmin)
    return True, tmin, p, quat_rotate(q, nl), box_surface_velocity(boxes, i, vc, c, p)


@kernel
def sphere_box(boxes, i, a, d, r, max_l, t):
    """Sphere of radius r swept from a along d (centre a + l d, l in [0, max_l]) against box i.

    Conservative advancement: the distance from the centre to a convex box changes at most as fast as
    the centre moves, so stepping l by (distance - r) never passes through the surface. The contact
    plane is the tangent plane at the touching point; s is where the axis meets that plane.
    """
    c, q, vc = box_pose(boxes, i, t)
    h = (boxes[i, BX_HX], boxes[i, BX_HY], boxes[i, BX_HZ])
    l = 0.0
    for _ in range(SWEEP_ITERATIONS):
        centre = madd(a, d, l)
        p, n, dist = box_closest(c, q, h, centre)
        gap = dist - r
        if gap <= SWEEP_TOLERANCE:
            den = dot(n, d)
            if den > -1.0e-9:
                return False, 0.0, a, n, (0.0, 0.0, 0.0)
            s = dot(n, sub(p, a)) / den
            return True, s, madd(a, d, s), n, box_surface_velocity(boxes, i, vc, c, p)
        l += gap
        if l > max_l:
            break
    return False, 0.0, a, d, (0.0, 0.0, 0.0)


@leaf
def hf_vertex_slope(hf_z, off, nx, ny, ix, iy, dx, dy):
    """Central-difference gradient (dz/dx, dz/dy) at grid vertex (ix, iy); one-sided at the border."""
    x0 = max(ix - 1, 0)
    x1 = min(ix + 1, nx - 1)
    y0 = max(iy - 1, 0)
    y1 = min(iy + 1, ny - 1)
    gx = (hf_z[off + x1 * ny + iy] - hf_z[off + x0 * ny + iy]) / ((x1 - x0) * dx)
    gy = (hf_z[off + ix * ny + y1] - hf_z[off + ix * ny + y0]) / ((y1 - y0) * dy)
    return gx, gy


@kernel
def hf_height(hf_meta, hf_z, i, x, y):
    """Height (bilinear) and slope of heightfield i at (x, y); valid=False outside its rectangle.

    The slope is the bilinear blend of per-vertex central differences, so the normal varies smoothly
    across cells (the bilinear facets' own gradient jumps at every grid line)."""
    ox = hf_meta[i, HF_OX]
    oy = hf_meta[i, HF_OY]
    dx = hf_meta[i, HF_DX]
    dy = hf_meta[i, HF_DY]
    nx = int(hf_meta[i, HF_NX])
    ny = int(hf_meta[i, HF_NY])
    off = int(hf_meta[i, HF_OFF])
    fx = (x - ox) / dx
    fy = (y - oy) / dy
    if fx < 0.0 or fy < 0.0 or fx > nx - 1 or fy > ny - 1:
        return False, 0.0, 0.0, 0.0
    ix = min(int(fx), nx - 2)
    iy = min(int(fy), ny - 2)
    u = fx - ix
    v = fy - iy
    w00 = (1 - u) * (1 - v)
    w10 = u * (1 - v)
    w01 = (1 - u) * v
    w11 = u * v
    z = hf_meta[i, HF_OZ] + w00 * hf_z[off + ix * ny + iy] + w10 * hf_z[off + (ix + 1) * ny + iy] \
        + w01 * hf_z[off + ix * ny + iy + 1] + w11 * hf_z[off + (ix + 1) * ny + iy + 1]
    g00x, g00y = hf_vertex_slope(hf_z, off, nx, ny, ix, iy, dx, dy)
    g10x, g10y = hf_vertex_slope(hf_z, off, nx, ny, ix + 1, iy, dx, dy)
    g01x, g01y = hf_vertex_slope(hf_z, off, nx, ny, ix, iy + 1, dx, dy)
    g11x, g11y = hf_vertex_slope(hf_z, off, nx, ny, ix + 1, iy + 1, dx, dy)
    gx = w00 * g00x + w10 * g10x + w01 * g01x + w11 * g11x
    gy = w00 * g00y + w10 * g10y + w01 * g01y + w11 * g11y
    return True, z, gx, gy


@kernel
def ray_heightfield(hf_meta, hf_z, i, a, d, max_s):
    """March the ray in steps of half a cell, then bisect the first crossing; local tangent plane."""
    step = 0.5 * min(hf_meta[i, HF_DX], hf_meta[i, HF_DY])
    ok, z, gx, gy = hf_height(hf_meta, hf_z, i, a[0], a[1])
    if ok and a[2] <= z:
        # anchor already below the surface: report the tangent plane under it (s <= 0)
        n = normalize((-gx, -gy, 1.0))
        den = dot(n, d)
        if den > -1.0e-9:
            return False, 0.0, a, n, (0.0, 0.0, 0.0)
        s = dot(n, sub((a[0], a[1], z), a)) / den
        return True, s, madd(a, d, s), n, (0.0, 0.0, 0.0)
    s_prev = 0.0
    nsteps = int(max_s / step) + 1
    for k in range(1, nsteps + 1):
        s = min(k * step, max_s)
        p = madd(a, d, s)
        ok, z, gx, gy = hf_height(hf_meta, hf_z, i, p[0], p[1])
        if ok and p[2] <= z:
            lo = s_prev
            hi = s
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                pm = madd(a, d, mid)
                okm, zm, gxm, gym = hf_height(hf_meta, hf_z, i, pm[0], pm[1])
                if okm and pm[2] <= zm:
                    hi = mid
                else:
                    lo = mid
            p = madd(a, d, hi)
            ok, z, gx, gy = hf_height(hf_meta, hf_z, i, p[0], p[1])
            n = normalize((-gx, -gy, 1.0))
            if dot(n, d) > -1.0e-9:
                return False, 0.0, a, n, (0.0, 0.0, 0.0)
            return True, hi, p, n, (0.0, 0.0, 0.0)
        s_prev = s
    return False, 0.0, a, d, (0.0, 0.0, 0.0)


# ---------------------------------------------------------------------------------------------------
# The query over the whole world

@leaf
def cast(planes, boxes, hf_meta, hf_z, kind, a, d, r, l_max, a_min, t, vehicle, box_mask, hf_mask):
    """Query the world along the suspension axis; return the contact that supports the wheel most.

    kind: QUERY_RAY / QUERY_SPHERE / QUERY_DISC; a: anchor (3, m); d: unit axis (3); r: wheel radius (m);
    l_max: longest suspension length (m); a_min: smallest accepted a = -dot(n, d); t: time (s);
    vehicle: index of the querying vehicle (its own shapes, owner == vehicle, are skipped);
    box_mask, hf_mask: bit masks of the boxes / heightfields (first 63) worth testing (-1: all).
    The ray looks as far as s = l_max + r / a_min; sweeps look for centres up to l = l_max.
    Among candidates the one with the smallest wheel-centre length s - r/a wins (the first the wheel
    meets); for the ray the nearest hit wins. Surfaces nearly parallel to the axis (a < a_min) never
    support a wheel (spec: they belong to body collision), so they are passed over here and the query
    keeps the best supporting surface; a wheel with none is airborne.
    """
    best_hit = False
    best_key = 1.0e30
    best_s = 0.0
    best_p = a
    best_n = (0.0, 0.0, 1.0)
    best_surf = -1
    best_id = -1
    best_v = (0.0, 0.0, 0.0)
    max_s = l_max + r / a_min
    for i in range(planes.shape[0]):
        hit, s, p, n, vg = ray_plane(planes, i, a, d)
        if hit and -dot(n, d) >= a_min:
            key = s if kind == QUERY_RAY else s + r / dot(n, d)
            if s <= max_s and key < best_key:
                best_hit, best_key, best_s, best_p, best_n, best_v = True, key, s, p, n, vg
                best_surf = int(planes[i, PL_SURF])
                best_id = int(planes[i, PL_ID])
    for i in range(boxes.shape[0]):
        if (i < 63 and not (box_mask >> i) & 1) or int(boxes[i, BX_OWNER]) == vehicle:
            continue
        c, q, vc = box_pose(boxes, i, t)
        if segment_misses_sphere(a, d, max_s, c, boxes[i, BX_BOUND] + r):
            continue
        if kind == QUERY_RAY:
            hit, s, p, n, vg = ray_box(boxes, i, a, d, max_s, t)
            key = s
        else:
            hit, s, p, n, vg = sphere_box(boxes, i, a, d, r, l_max, t)
            key = s + r / dot(n, d) if hit else 0.0
        if hit and -dot(n, d) >= a_min and key < best_key:
            best_hit, best_key, best_s, best_p, best_n, best_v = True, key, s, p, n, vg
            best_surf = int(boxes[i, BX_SURF])
            best_id = int(boxes[i, BX_ID])
    for i in range(hf_meta.shape[0]):
        if i < 63 and not (hf_mask >> i) & 1:
            continue
        hit, s, p, n, vg = ray_heightfield(hf_meta, hf_z, i, a, d, max_s)
        if hit and -dot(n, d) >= a_min:
            key = s if kind == QUERY_RAY else s + r / dot(n, d)
            if key < best_key:
                best_hit, best_key, best_s, best_p, best_n, best_v = True, key, s, p, n, vg
                best_surf = int(hf_meta[i, HF_SURF])
                best_id = int(hf_meta[i, HF_ID])
    return best_hit, best_s, best_p, best_n, best_surf, best_id, best_v
