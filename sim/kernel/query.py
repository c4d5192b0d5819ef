"""Wheel queries against the world along a suspension axis (docs/physics.md §6).

A query starts at the anchor A and runs along the unit suspension axis d. Whatever its shape, it returns
the *contact plane* it found: a point P = A + s d on that plane, where the axis meets it, and the plane's
unit normal n (facing the wheel). The contact chain (`sim/kernel/contact.py`) then places the wheel on that plane
with the shape's own support radius, exactly as the spec does for a local plane:

    ray    : the first surface hit by the line A + s d, taken as a local plane (cheap; misses curb sides)
    sphere : a sphere of radius r swept from A along d; the plane tangent at the first touching point
    disc   : the sphere sweep's contact plane, with the wheel's own disc support rEff = r sqrt(1-(n.u)^2)
             applied by the contact chain (exact on flat faces, the tangent plane at edges)

Heightfields are always queried with the ray and their local tangent plane (docs/physics.md §14).

The world tables and their columns are described in `sim/kernel/shapes.py`.

Every query returns the tuple
    (hit, s, P, n, surface, shape, v_ground)
hit: bool; s: m along d (may be negative when A is already below a plane); P: world point (3);
n: unit normal (3); surface: material index; shape: unique shape id; v_ground: surface velocity at P (3).
"""
from __future__ import annotations

import math

from sim.kernel.jit import kernel
from sim.kernel.jit import leaf
from sim.kernel.shapes import BX_BOUND
from sim.kernel.shapes import BX_ID
from sim.kernel.shapes import BX_OWNER
from sim.kernel.shapes import BX_SURF
from sim.kernel.shapes import HF_DX
from sim.kernel.shapes import HF_DY
from sim.kernel.shapes import HF_ID
from sim.kernel.shapes import HF_NX
from sim.kernel.shapes import HF_NY
from sim.kernel.shapes import HF_OFF
from sim.kernel.shapes import HF_OX
from sim.kernel.shapes import HF_OY
from sim.kernel.shapes import HF_OZ
from sim.kernel.shapes import HF_SURF
from sim.kernel.shapes import PL_ID
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
from sim.kernel.vec import add
from sim.kernel.vec import dot
from sim.kernel.vec import madd
from sim.kernel.vec import norm
from sim.kernel.vec import normalize
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import quat_rotate_inv
from sim.kernel.vec import scale
from sim.kernel.vec import sub

QUERY_RAY, QUERY_SPHERE, QUERY_DISC = 0, 1, 2
QUERY_KINDS = {"ray": QUERY_RAY, "sphere": QUERY_SPHERE, "disc": QUERY_DISC}

SWEEP_TOLERANCE = 1.0e-6   # m: a sweep stops when the gap to the surface is below this
SWEEP_ITERATIONS = 48      # conservative-advancement steps before a sweep gives up
HF_BISECTIONS = 40         # halvings of the step that crossed a heightfield (half a cell / 2^40)
FACING = -1.0e-9           # dot(n, d) must be below this for a surface to face the axis


@leaf
def axis_meets_plane(a, d, p0, n):
    """Where the line a + s d meets the plane through p0 with normal n: (faces, s). faces is False when
    the plane does not face the axis (dot(n, d) >= FACING); s (m) may be negative."""
    den = dot(n, d)
    if den > FACING:
        return False, 0.0
    return True, dot(n, sub(p0, a)) / den


@kernel
def box_closest(c, q, half, p):
    """Closest point on (or in) the box to p, the outward normal there, and the distance (0 inside).

    Inside the box the normal is that of the face with the least penetration.
    """
    pl = quat_rotate_inv(q, sub(p, c))
    cx = min(max(pl[0], -half[0]), half[0])
    cy = min(max(pl[1], -half[1]), half[1])
    cz = min(max(pl[2], -half[2]), half[2])
    d = (pl[0] - cx, pl[1] - cy, pl[2] - cz)
    dist = norm(d)
    if dist > 0.0:
        nl = (d[0] / dist, d[1] / dist, d[2] / dist)
        return add(c, quat_rotate(q, (cx, cy, cz))), quat_rotate(q, nl), dist
    _, nl, cl = least_penetrated_face(pl, half)                   # inside: out through the nearest face
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
    faces, s = axis_meets_plane(a, d, p0, n)
    if not faces:
        return False, 0.0, a, n, (0.0, 0.0, 0.0)
    return True, s, madd(a, d, s), n, (0.0, 0.0, 0.0)


@kernel
def ray_box(boxes, i, a, d, max_s, t):
    """Slab test of the ray against box i at time t; only entering hits with 0 <= s <= max_s."""
    c, q, vc = box_pose(boxes, i, t)
    half = box_half_extents(boxes, i)
    o = quat_rotate_inv(q, sub(a, c))
    dl = quat_rotate_inv(q, d)
    tmin = -1.0e30
    tmax = 1.0e30
    axis = -1
    sign = 0.0
    for k in range(3):
        if abs(dl[k]) < 1.0e-12:
            if o[k] < -half[k] or o[k] > half[k]:
                return False, 0.0, a, d, (0.0, 0.0, 0.0)
            continue
        t1 = (-half[k] - o[k]) / dl[k]
        t2 = (half[k] - o[k]) / dl[k]
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
    half = box_half_extents(boxes, i)
    l = 0.0
    for _ in range(SWEEP_ITERATIONS):
        centre = madd(a, d, l)
        p, n, dist = box_closest(c, q, half, centre)
        gap = dist - r
        if gap <= SWEEP_TOLERANCE:
            faces, s = axis_meets_plane(a, d, p, n)
            if not faces:
                return False, 0.0, a, n, (0.0, 0.0, 0.0)
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


HF_SKIN = 5.0              # m: a point deeper than this under a heightfield's surface is under an overhang of it
#                            (a tilted ground plane can run below a heightfield), not inside the ground


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
def hf_side(hf_meta, i, x, y):
    """How far (m) (x, y) lies inside heightfield i's rectangle from its nearest side, and that side's outward
    normal (nx, ny): the field is a solid block of ground under its surface, and its sides are walls
    (sim/kernel/collision.py: a hull point that comes in through a side is that far in, not as deep as the
    surface above it)."""
    ox = hf_meta[i, HF_OX]
    oy = hf_meta[i, HF_OY]
    ex = ox + (hf_meta[i, HF_NX] - 1.0) * hf_meta[i, HF_DX]
    ey = oy + (hf_meta[i, HF_NY] - 1.0) * hf_meta[i, HF_DY]
    best, nx, ny = x - ox, -1.0, 0.0
    if ex - x < best:
        best, nx, ny = ex - x, 1.0, 0.0
    if y - oy < best:
        best, nx, ny = y - oy, 0.0, -1.0
    if ey - y < best:
        best, nx, ny = ey - y, 0.0, 1.0
    return best, nx, ny


@kernel
def ray_heightfield(hf_meta, hf_z, i, a, d, max_s):
    """March the ray in steps of half a cell, then bisect the first crossing; local tangent plane."""
    step = 0.5 * min(hf_meta[i, HF_DX], hf_meta[i, HF_DY])
    ok, z, gx, gy = hf_height(hf_meta, hf_z, i, a[0], a[1])
    if ok and a[2] <= z:
        if z - a[2] > HF_SKIN:                  # far below: under an overhang of the terrain, not inside it
            return False, 0.0, a, d, (0.0, 0.0, 0.0)
        # anchor already below the surface: report the tangent plane under it (s <= 0)
        n = normalize((-gx, -gy, 1.0))
        faces, s = axis_meets_plane(a, d, (a[0], a[1], z), n)
        if not faces:
            return False, 0.0, a, n, (0.0, 0.0, 0.0)
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
            for _ in range(HF_BISECTIONS):
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
            if dot(n, d) > FACING:
                return False, 0.0, a, n, (0.0, 0.0, 0.0)
            return True, hi, p, n, (0.0, 0.0, 0.0)
        s_prev = s
    return False, 0.0, a, d, (0.0, 0.0, 0.0)


# ---------------------------------------------------------------------------------------------------
# The query over the whole world

@leaf
def meeting_key(kind, s, r, n, d):
    """How far along the axis the wheel meets a surface, to pick the first one: the ray's s, or the
    sweep's wheel-centre length s - r / a = s + r / dot(n, d) (m)."""
    if kind == QUERY_RAY:
        return s
    return s + r / dot(n, d)


@leaf
def met_first(best, hit, s, p, n, vg, surface, shape, kind, r, d, a_min, s_limit):
    """best: (key, s, P, n, v_ground, surface, shape) of the supporting surface the wheel meets first so
    far. A hit replaces it when it can support the wheel (a = -dot(n, d) >= a_min), lies within s_limit
    (m) and is met first (smaller `meeting_key`)."""
    if hit and -dot(n, d) >= a_min and s <= s_limit:
        key = meeting_key(kind, s, r, n, d)
        if key < best[0]:
            return (key, s, p, n, vg, surface, shape)
    return best


@leaf
def cast(planes, boxes, hf_meta, hf_z, kind, a, d, r, l_max, a_min, t, vehicle, box_mask, hf_mask):
    """Query the world along the suspension axis; return the contact that supports the wheel most.

    kind: QUERY_RAY / QUERY_SPHERE / QUERY_DISC; a: anchor (3, m); d: unit axis (3); r: wheel radius (m);
    l_max: longest suspension length (m); a_min: smallest accepted a = -dot(n, d); t: time (s);
    vehicle: index of the querying vehicle (its own shapes, owner == vehicle, are skipped);
    box_mask, hf_mask: the broad phase's masks of the boxes / heightfields worth testing (sim/kernel/shapes.py).
    The ray looks as far as s = l_max + r / a_min; sweeps look for centres up to l = l_max.
    Among candidates the one with the smallest wheel-centre length s - r/a wins (the first the wheel
    meets); for the ray the nearest hit wins. Surfaces nearly parallel to the axis (a < a_min) never
    support a wheel (they belong to body collision, docs/physics.md §6), so they are passed over here and
    the query keeps the best supporting surface; a wheel with none is airborne.
    """
    max_s = l_max + r * (1.0 / a_min)                 # (a_min is a constant: one multiplication)
    best = (1.0e30, 0.0, a, (0.0, 0.0, 1.0), (0.0, 0.0, 0.0), -1, -1)   # key, s, P, n, v_ground, surface, shape
    for i in range(planes.shape[0]):
        hit, s, p, n, vg = ray_plane(planes, i, a, d)
        best = met_first(best, hit, s, p, n, vg, int(planes[i, PL_SURF]), int(planes[i, PL_ID]), kind, r, d,
                         a_min, max_s)
    for i in range(mask_end(box_mask, boxes.shape[0])):
        if not in_mask(box_mask, i) or int(boxes[i, BX_OWNER]) == vehicle:
            continue
        if segment_misses_sphere(a, d, max_s, box_centre(boxes, i, t), boxes[i, BX_BOUND] + r):
            continue
        if kind == QUERY_RAY:
            hit, s, p, n, vg = ray_box(boxes, i, a, d, max_s, t)
        else:
            hit, s, p, n, vg = sphere_box(boxes, i, a, d, r, l_max, t)
        best = met_first(best, hit, s, p, n, vg, int(boxes[i, BX_SURF]), int(boxes[i, BX_ID]), kind, r, d, a_min,
                         math.inf)
    for i in range(mask_end(hf_mask, hf_meta.shape[0])):
        if not in_mask(hf_mask, i):
            continue
        hit, s, p, n, vg = ray_heightfield(hf_meta, hf_z, i, a, d, max_s)
        best = met_first(best, hit, s, p, n, vg, int(hf_meta[i, HF_SURF]), int(hf_meta[i, HF_ID]), kind, r, d,
                         a_min, math.inf)
    key, s, p, n, vg, surf, shape = best
    return shape >= 0, s, p, n, surf, shape, vg
