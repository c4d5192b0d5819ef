"""Broad phase (docs/physics.md §5): which boxes and heightfields a vehicle could touch this substep.

One bounding test per shape gives two bit masks (`sim/kernel/shapes.py`), shared by the wheel queries and the
body collision, so the narrow phases skip the shapes that are out of reach. Planes are always tested.

The shapes that do not move are tested with a reach widened by BROAD_MARGIN, and that mask is kept (the
`BroadCache` a step loop carries from substep to substep) while the centre of mass stays within the margin
of where it was made: until then every shape the vehicle could touch is still in it. Moving boxes are
tested every substep. A mask that keeps a shape out of reach changes no result (the narrow phases test
each shape they are given), so the kept mask gives what a new one would, bit for bit.
"""
from __future__ import annotations

import math

from sim.kernel.contact import A_MIN
from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.shapes import BX_AX
from sim.kernel.shapes import BX_AY
from sim.kernel.shapes import BX_AZ
from sim.kernel.shapes import BX_BOUND
from sim.kernel.shapes import BX_OWNER
from sim.kernel.shapes import BX_PERIOD
from sim.kernel.shapes import BX_VX
from sim.kernel.shapes import BX_VY
from sim.kernel.shapes import BX_VZ
from sim.kernel.shapes import BX_WX
from sim.kernel.shapes import BX_WY
from sim.kernel.shapes import BX_WZ
from sim.kernel.shapes import HF_DX
from sim.kernel.shapes import HF_DY
from sim.kernel.shapes import HF_NX
from sim.kernel.shapes import HF_NY
from sim.kernel.shapes import HF_OX
from sim.kernel.shapes import HF_OY
from sim.kernel.shapes import MASK_BITS
from sim.kernel.shapes import box_centre
from sim.kernel.shapes import sphere_misses_box
from sim.kernel.tables import NW
from sim.kernel.tables import VP_REACH
from sim.kernel.tables import WP_AX
from sim.kernel.tables import WP_LMAX
from sim.kernel.tables import WP_PATH_REACH
from sim.kernel.tables import WP_R
from sim.kernel.vec import dot
from sim.kernel.vec import norm
from sim.kernel.vec import sub

BROAD_MARGIN = 0.5          # m: how far the centre of mass may move before the static shapes are tested again
BROAD_KEEP = 0.99           # of the margin: a mask is used while the centre of mass is this close (rounding's
#                             slack: 5 mm, against the 1e-16 m the two distances may differ by)


@leaf
def shapes_within(boxes, hf_meta, centre, radius, t, vehicle):
    """Bit masks of the boxes and heightfields (the first MASK_BITS of each) that come within `radius` (m)
    of `centre` at time t (a box: its bounding sphere, then the box itself); the vehicle's own shapes are
    left out."""
    box_mask = 0
    for i in range(min(boxes.shape[0], MASK_BITS)):
        if int(boxes[i, BX_OWNER]) == vehicle:
            continue
        if norm(sub(centre, box_centre(boxes, i, t))) <= boxes[i, BX_BOUND] + radius and \
                not sphere_misses_box(boxes, i, centre, radius, t):          # (the box itself, not its bound)
            box_mask |= 1 << i
    return box_mask, heightfields_within(hf_meta, centre, radius)


@leaf
def heightfields_within(hf_meta, centre, radius):
    """Bit mask of the heightfields (the first MASK_BITS) whose rectangle, grown by `radius` (m) on every
    side, holds the x, y of `centre`."""
    hf_mask = 0
    for i in range(min(hf_meta.shape[0], MASK_BITS)):
        x0 = hf_meta[i, HF_OX]
        y0 = hf_meta[i, HF_OY]
        x1 = x0 + (hf_meta[i, HF_NX] - 1.0) * hf_meta[i, HF_DX]
        y1 = y0 + (hf_meta[i, HF_NY] - 1.0) * hf_meta[i, HF_DY]
        if x0 - radius <= centre[0] <= x1 + radius and y0 - radius <= centre[1] <= y1 + radius:
            hf_mask |= 1 << i
    return hf_mask


def vehicle_reach(wheel_rows, hull_rows) -> float:
    """The broad phase's radius for one vehicle (m), packed once into VP_REACH: the farthest a suspension
    sweep (anchor + l_max + r (1 + 1/A_MIN), plus the farthest the geometry's path moves the wheel, §7.1) or
    a hull point gets from the centre of mass. wheel_rows (NW, WP_N), hull_rows (NHULL, 3). Plain Python with
    the kernels' arithmetic (sim.kernel.vec.norm), so the figure is the one a kernel would compute, bit for bit."""
    reach = 0.0
    for i in range(NW):
        ax, ay, az = float(wheel_rows[i, WP_AX]), float(wheel_rows[i, WP_AX + 1]), float(wheel_rows[i, WP_AX + 2])
        reach = max(reach, math.sqrt(ax * ax + ay * ay + az * az) + float(wheel_rows[i, WP_LMAX])
                    + float(wheel_rows[i, WP_R]) * (1.0 + 1.0 / A_MIN) + float(wheel_rows[i, WP_PATH_REACH]))
    for k in range(hull_rows.shape[0]):
        x, y, z = float(hull_rows[k, 0]), float(hull_rows[k, 1]), float(hull_rows[k, 2])
        reach = max(reach, math.sqrt(x * x + y * y + z * z))
    return reach


@leaf
def moves(boxes, i):
    """True when box i is kinematic: it turns, drifts or oscillates (sim/kernel/shapes.py box_pose)."""
    return boxes[i, BX_WX] != 0.0 or boxes[i, BX_WY] != 0.0 or boxes[i, BX_WZ] != 0.0 or \
        boxes[i, BX_VX] != 0.0 or boxes[i, BX_VY] != 0.0 or boxes[i, BX_VZ] != 0.0 or \
        (boxes[i, BX_PERIOD] > 0.0 and (boxes[i, BX_AX] != 0.0 or boxes[i, BX_AY] != 0.0 or boxes[i, BX_AZ] != 0.0))


@leaf
def static_shapes_within(boxes, hf_meta, centre, radius, vehicle):
    """`shapes_within` for the shapes that do not move (a static box is where it is at any time), and the
    bit mask of the moving boxes, left for `moving_boxes_within`: (static box mask, moving box mask,
    heightfield mask)."""
    box_mask = 0
    moving = 0
    for i in range(min(boxes.shape[0], MASK_BITS)):
        if int(boxes[i, BX_OWNER]) == vehicle:
            continue
        if moves(boxes, i):
            moving |= 1 << i
            continue
        if norm(sub(centre, box_centre(boxes, i, 0.0))) <= boxes[i, BX_BOUND] + radius and \
                not sphere_misses_box(boxes, i, centre, radius, 0.0):
            box_mask |= 1 << i
    return box_mask, moving, heightfields_within(hf_meta, centre, radius)


@leaf
def moving_boxes_within(boxes, moving, centre, radius, t):
    """The boxes of the mask `moving` that come within `radius` (m) of `centre` at time t."""
    box_mask = 0
    i = 0
    rest = moving
    while rest != 0:
        if rest & 1 != 0 and norm(sub(centre, box_centre(boxes, i, t))) <= boxes[i, BX_BOUND] + radius and \
                not sphere_misses_box(boxes, i, centre, radius, t):
            box_mask |= 1 << i
        rest >>= 1
        i += 1
    return box_mask


@leaf
def fresh_broad_cache():
    """A BroadCache with no mask in it yet: (x, y, z where the static mask was made (m), static box mask,
    moving box mask, heightfield mask)."""
    return math.inf, math.inf, math.inf, 0, 0, 0


@stage
def broadphase_stage(v, vehicle_params, pos, boxes, hf_meta, t, cache):
    """The masks for vehicle v at centre-of-mass position `pos` (m) within its reach VP_REACH, at time t:
    (box mask, heightfield mask, the BroadCache for the next substep). The static shapes' masks in `cache`
    are used while `pos` is within BROAD_KEEP x BROAD_MARGIN of where they were made (a new vehicle, a
    reset or a jump of the body makes new ones); moving boxes are tested now."""
    reach = vehicle_params[v, VP_REACH]
    moved = sub(pos, (cache[0], cache[1], cache[2]))
    if not dot(moved, moved) <= (BROAD_KEEP * BROAD_MARGIN) ** 2:           # (nan or inf: make new ones)
        static_mask, moving, hf_mask = static_shapes_within(boxes, hf_meta, pos, reach + BROAD_MARGIN, v)
        cache = (pos[0], pos[1], pos[2], static_mask, moving, hf_mask)
    box_mask = cache[3]
    if cache[4] != 0:
        box_mask |= moving_boxes_within(boxes, cache[4], pos, reach, t)
    return box_mask, cache[5], cache
