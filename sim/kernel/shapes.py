"""The world's packed shape tables: their columns, where a kinematic box is at time t, the face a point
inside a box leaves through, and the broad phase's shape masks.

`sim/model/world.py` fills the tables; the wheel queries (`sim/kernel/query.py`), the body collision
(`sim/kernel/collision.py`) and the broad phase (`sim/kernel/broadphase.py`) read them.

    planes  (NP, PL_N)  infinite planes
    boxes   (NB, BX_N)  oriented boxes; kinematic ones move with time t
    hf_meta (NH, HF_N)  heightfield headers; hf_z (total,) their heights, row-major per field
    surf_mu (NS, 2)     friction coefficient and extra rolling resistance coefficient of each surface
"""
from __future__ import annotations

import math

from sim.kernel.jit import kernel
from sim.kernel.jit import leaf
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import madd
from sim.kernel.vec import quat_from_rotvec
from sim.kernel.vec import quat_mul
from sim.kernel.vec import quat_rotate_inv
from sim.kernel.vec import scale
from sim.kernel.vec import sub

# plane columns: a point on the plane (m), its unit normal (facing up out of the ground), material, shape id
PL_PX, PL_PY, PL_PZ, PL_NX, PL_NY, PL_NZ, PL_SURF, PL_ID, PL_N = 0, 1, 2, 3, 4, 5, 6, 7, 8
# box columns: centre at t=0 (m), orientation at t=0 (w,x,y,z), half extents (m), material, shape id,
# owner (vehicle index whose own shape this is, -1 = world), angular velocity about the centre (rad/s,
# world), constant velocity (m/s), oscillation amplitude vector (m), oscillation period (s, 0 = none),
# bounding radius (m)
(BX_CX, BX_CY, BX_CZ, BX_QW, BX_QX, BX_QY, BX_QZ, BX_HX, BX_HY, BX_HZ, BX_SURF, BX_ID, BX_OWNER,
 BX_WX, BX_WY, BX_WZ, BX_VX, BX_VY, BX_VZ, BX_AX, BX_AY, BX_AZ, BX_PERIOD, BX_BOUND, BX_N) = range(25)
# heightfield columns: corner (m), spacing (m), counts, offset into hf_z, material, shape id
(HF_OX, HF_OY, HF_OZ, HF_DX, HF_DY, HF_NX, HF_NY, HF_OFF, HF_SURF, HF_ID, HF_N) = range(11)

# The broad phase marks the boxes and heightfields worth testing as bits of one int64 per kind; shapes
# past the first MASK_BITS are always tested. A mask of -1 selects every shape.
MASK_BITS = 63
ALL_SHAPES = -1


@leaf
def mask_end(mask, n):
    """One past the last of n shapes a loop must visit for `mask`: n when some lie past MASK_BITS (those
    are always tested), else one past the highest bit set (0 for an empty mask, n for ALL_SHAPES), so a
    vehicle with nothing in reach loops over no shape at all."""
    if n > MASK_BITS:
        return n
    end = 0
    while end < n and (mask >> end) != 0:
        end += 1
    return end


@leaf
def in_mask(mask, i):
    """True when shape i is selected by `mask` (always true past the first MASK_BITS shapes)."""
    return i >= MASK_BITS or (mask >> i) & 1 != 0


@leaf
def box_centre(boxes, i, t):
    """Centre (3) of box i at time t (s): c(t) = c0 + v t + a sin(2 pi t / T). The bounding tests need only
    this, not the orientation (a turning box costs a sine and a cosine more)."""
    c = madd((boxes[i, BX_CX], boxes[i, BX_CY], boxes[i, BX_CZ]), (boxes[i, BX_VX], boxes[i, BX_VY], boxes[i, BX_VZ]),
             t)
    period = boxes[i, BX_PERIOD]
    if period > 0.0:
        c = madd(c, (boxes[i, BX_AX], boxes[i, BX_AY], boxes[i, BX_AZ]), math.sin(2.0 * math.pi * t / period))
    return c


@kernel
def box_pose(boxes, i, t):
    """Centre (3), orientation (4) and centre velocity (3) of box i at time t (s).

    c(t) = c0 + v t + a sin(2 pi t / T);  q(t) = rot(w t) q0;  surface velocity at p: c'(t) + w x (p - c).
    """
    q0 = (boxes[i, BX_QW], boxes[i, BX_QX], boxes[i, BX_QY], boxes[i, BX_QZ])
    w = (boxes[i, BX_WX], boxes[i, BX_WY], boxes[i, BX_WZ])
    drift = (boxes[i, BX_VX], boxes[i, BX_VY], boxes[i, BX_VZ])
    amp = (boxes[i, BX_AX], boxes[i, BX_AY], boxes[i, BX_AZ])
    period = boxes[i, BX_PERIOD]
    c = box_centre(boxes, i, t)
    vc = drift
    if period > 0.0:
        ph = 2.0 * math.pi * t / period
        vc = madd(vc, amp, 2.0 * math.pi / period * math.cos(ph))
    q = q0
    if w[0] != 0.0 or w[1] != 0.0 or w[2] != 0.0:
        q = quat_mul(quat_from_rotvec(scale(w, t)), q0)
    return c, q, vc


@leaf
def box_half_extents(boxes, i):
    return (boxes[i, BX_HX], boxes[i, BX_HY], boxes[i, BX_HZ])


@leaf
def sphere_misses_box(boxes, i, centre, radius, t):
    """True when the sphere (centre, radius m) and box i at time t do not meet: the distance from the
    centre to the box, in the box's own frame, is more than the radius. Sharper than the box's bounding
    sphere for a long, thin box (a 24 m curb's bound is 12 m)."""
    c, q, _ = box_pose(boxes, i, t)
    local = quat_rotate_inv(q, sub(centre, c))
    ex = max(0.0, abs(local[0]) - boxes[i, BX_HX])
    ey = max(0.0, abs(local[1]) - boxes[i, BX_HY])
    ez = max(0.0, abs(local[2]) - boxes[i, BX_HZ])
    return ex * ex + ey * ey + ez * ez > radius * radius


@leaf
def box_surface_velocity(boxes, i, vc, c, p):
    """Velocity (m/s) of the box's surface at world point p: c'(t) + w x (p - c)."""
    w = (boxes[i, BX_WX], boxes[i, BX_WY], boxes[i, BX_WZ])
    return add(vc, cross(w, sub(p, c)))


@leaf
def surface_catch_up(boxes, n_planes, shape, t, h, p):
    """How much faster than the surface's velocity at p at time t a point carried along by shape `shape`
    (its id: planes, then boxes, then heightfields) moves on average over [t, t + h]: (p(t + h) - p(t)) / h
    - v(p, t) (m/s), with p(t + h) = c(t + h) + rot(w h) (p - c(t)). For a turning box,
    (sin th / th - 1) w x r + h (1 - cos th) / th^2 w x (w x r) (th = |w| h, r = p - c(t)): to first order
    h / 2 w x (w x r), the centripetal pull; for an oscillating one a (sin k(t + h) - sin kt) / h - a k cos kt
    (k = 2 pi / T). Exact zeros for a plane, a heightfield and a box that keeps its velocity and does not
    turn (docs/physics.md §11)."""
    k = shape - n_planes
    if k < 0 or k >= boxes.shape[0] or int(boxes[k, BX_ID]) != shape:
        return 0.0, 0.0, 0.0
    out = (0.0, 0.0, 0.0)
    period = boxes[k, BX_PERIOD]
    if period > 0.0:
        f = 2.0 * math.pi / period
        gain = 2.0 * math.cos(f * (t + 0.5 * h)) * math.sin(0.5 * f * h) / h - f * math.cos(f * t)
        out = scale((boxes[k, BX_AX], boxes[k, BX_AY], boxes[k, BX_AZ]), gain)
    w = (boxes[k, BX_WX], boxes[k, BX_WY], boxes[k, BX_WZ])
    spin = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    if spin > 0.0:
        th = spin * h
        wr = cross(w, sub(p, box_centre(boxes, k, t)))
        half = math.sin(0.5 * th)
        out = madd(madd(out, wr, math.sin(th) / th - 1.0), cross(w, wr), 2.0 * half * half / (th * th) * h)
    return out


@leaf
def least_penetrated_face(pl, half):
    """For a point pl inside a box (box frame, half extents `half`), the face it is closest to leaving
    through: (depth (m, > 0 inside), outward unit normal, the point on that face), all in the box frame.
    Depth <= 0 on some axis means pl is not inside."""
    px = half[0] - abs(pl[0])
    py = half[1] - abs(pl[1])
    pz = half[2] - abs(pl[2])
    if px <= py and px <= pz:
        sgn = 1.0 if pl[0] >= 0.0 else -1.0
        return px, (sgn, 0.0, 0.0), (sgn * half[0], pl[1], pl[2])
    if py <= pz:
        sgn = 1.0 if pl[1] >= 0.0 else -1.0
        return py, (0.0, sgn, 0.0), (pl[0], sgn * half[1], pl[2])
    sgn = 1.0 if pl[2] >= 0.0 else -1.0
    return pz, (0.0, 0.0, sgn), (pl[0], pl[1], sgn * half[2])
