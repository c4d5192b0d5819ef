"""Broad phase (docs/physics.md §5): which boxes and heightfields a vehicle could touch this substep.

One bounding test per shape gives two bit masks (`sim/shapes.py`), shared by the wheel queries and the
body collision, so the narrow phases skip the shapes that are out of reach. Planes are always tested.
"""
from __future__ import annotations

import math

from sim.contact import A_MIN
from sim.jit import leaf, stage
from sim.shapes import BX_BOUND, BX_OWNER, HF_DX, HF_DY, HF_NX, HF_NY, HF_OX, HF_OY, MASK_BITS, box_centre, \
    sphere_misses_box
from sim.tables import NW, VP_REACH, WP_AX, WP_LMAX, WP_R
from sim.vec import norm, sub


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
    hf_mask = 0
    for i in range(min(hf_meta.shape[0], MASK_BITS)):
        x0 = hf_meta[i, HF_OX]
        y0 = hf_meta[i, HF_OY]
        x1 = x0 + (hf_meta[i, HF_NX] - 1.0) * hf_meta[i, HF_DX]
        y1 = y0 + (hf_meta[i, HF_NY] - 1.0) * hf_meta[i, HF_DY]
        if x0 - radius <= centre[0] <= x1 + radius and y0 - radius <= centre[1] <= y1 + radius:
            hf_mask |= 1 << i
    return box_mask, hf_mask


def vehicle_reach(wheel_rows, hull_rows) -> float:
    """The broad phase's radius for one vehicle (m), packed once into VP_REACH: the farthest a suspension
    sweep (anchor + l_max + r (1 + 1/A_MIN)) or a hull point gets from the centre of mass. wheel_rows
    (NW, WP_N), hull_rows (NHULL, 3). Plain Python with the kernels' arithmetic (sim.vec.norm), so the
    figure is the one a kernel would compute, bit for bit."""
    reach = 0.0
    for i in range(NW):
        ax, ay, az = float(wheel_rows[i, WP_AX]), float(wheel_rows[i, WP_AX + 1]), float(wheel_rows[i, WP_AX + 2])
        reach = max(reach, math.sqrt(ax * ax + ay * ay + az * az) + float(wheel_rows[i, WP_LMAX])
                    + float(wheel_rows[i, WP_R]) * (1.0 + 1.0 / A_MIN))
    for k in range(hull_rows.shape[0]):
        x, y, z = float(hull_rows[k, 0]), float(hull_rows[k, 1]), float(hull_rows[k, 2])
        reach = max(reach, math.sqrt(x * x + y * y + z * z))
    return reach


@stage
def broadphase_stage(v, vehicle_params, pos, boxes, hf_meta, t):
    """The masks for vehicle v at centre-of-mass position `pos` (m) within its reach VP_REACH."""
    return shapes_within(boxes, hf_meta, pos, vehicle_params[v, VP_REACH], t, v)
