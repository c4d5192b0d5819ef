"""World queries along a suspension axis: rays, sphere sweeps and discs against every shape kind."""
import math

import numpy as np
import pytest

import sim
from sim.model.world import Box
from sim.model.world import Heightfield
from sim.model.world import Plane
from sim.model.world import Surface
from sim.model.world import World
from sim.model.world import bumps

DOWN = (0.0, 0.0, -1.0)


def world_with(*, planes=(), boxes=(), heightfields=()):
    surfaces = [Surface("asphalt", 1.0), Surface("ice", 0.1)]
    return World("test", surfaces, planes, boxes, heightfields)


def test_ray_on_flat_plane():
    w = World.flat(mu=0.8)
    h = w.ray_cast((1.0, 2.0, 1.5), DOWN, 3.0)
    assert h.hit and h.s == pytest.approx(1.5)
    assert h.n == pytest.approx((0, 0, 1)) and h.P == pytest.approx((1, 2, 0))
    assert h.mu == 0.8 and h.v_ground == pytest.approx((0, 0, 0))


def test_ray_on_slope_plane():
    # 30 degree slope rising toward +x: z = x tan 30; from (1, 0, 2) straight down
    w = World.flat(slope_deg=30.0)
    h = w.ray_cast((1.0, 0.0, 2.0), DOWN, 5.0)
    assert h.s == pytest.approx(2.0 - math.tan(math.radians(30)))
    assert h.n == pytest.approx((-0.5, 0.0, math.cos(math.radians(30))))


def test_ray_on_box_top_and_from_inside():
    w = world_with(boxes=[Box("asphalt", (0.0, 0.0, 0.5), (2.0, 2.0, 1.0))])
    h = w.ray_cast((0.5, 0.0, 3.0), DOWN, 5.0)
    assert h.hit and h.s == pytest.approx(2.0) and h.n == pytest.approx((0, 0, 1))
    assert not w.ray_cast((0.5, 0.0, 0.5), DOWN, 5.0).hit          # starting inside: exit faces ignored
    assert not w.ray_cast((3.0, 0.0, 3.0), DOWN, 5.0).hit          # beside it


def test_ray_on_rotated_box():
    # a 10 degree slope box: the top face normal tilts toward -x
    b = Box("asphalt", (0.0, 0.0, 0.0), (10.0, 4.0, 1.0), slope_deg=10.0)
    w = world_with(boxes=[b])
    h = w.ray_cast((1.0, 0.0, 5.0), DOWN, 10.0)
    th = math.radians(10)
    assert h.n == pytest.approx((-math.sin(th), 0.0, math.cos(th)))
    # top face passes through the centre + 0.5 n: z(x) = 0.5 / cos th + x tan th
    assert h.P[2] == pytest.approx(0.5 / math.cos(th) + math.tan(th))


def test_sphere_sweep_over_curb_edge():
    # a curb with its top at 0.12 m and its edge along y at x = 0; the wheel centre 0.1 m before it
    curb = Box("asphalt", (1.0, 0.0, 0.06), (2.0, 4.0, 0.12))
    w = world_with(planes=[Plane("asphalt")], boxes=[curb])
    r = 0.3
    anchor = (-0.1, 0.0, 1.0)
    h = w.sphere_cast(anchor, DOWN, r, l_max=1.0)
    assert h.hit
    # the sphere touches the edge when its centre is sqrt(r^2 - 0.1^2) above the edge
    z_centre = 0.12 + math.sqrt(r * r - 0.01)
    a = -np.dot(h.n, DOWN)
    assert h.s - r / a == pytest.approx(1.0 - z_centre, abs=1e-5)
    assert h.n == pytest.approx(np.array([-0.1, 0.0, z_centre - 0.12]) / r, abs=1e-5)
    # a ray from the same anchor misses the curb and finds the pad
    assert w.ray_cast(anchor, DOWN, 2.0).s == pytest.approx(1.0)


def test_disc_shares_the_sweep_contact_plane():
    w = world_with(planes=[Plane("asphalt")])
    h = w.disc_cast((0.0, 0.0, 1.0), DOWN, 0.3, l_max=1.0)
    assert h.hit and h.s == pytest.approx(1.0) and h.n == pytest.approx((0, 0, 1))


def test_heightfield_bump_top():
    spacing, height, lam = 0.05, 0.08, 2.0
    z = bumps(4.0, 4.0, spacing, height, lam)
    hf = Heightfield("asphalt", (0.0, 0.0, 0.0), (spacing, spacing), z)
    w = world_with(heightfields=[hf])
    # the mound's top is at (lam/2, lam/2) with height `height` and a flat tangent plane
    h = w.ray_cast((1.0, 1.0, 1.0), DOWN, 2.0)
    assert h.hit and h.s == pytest.approx(1.0 - height, abs=1e-6)
    assert h.n == pytest.approx((0, 0, 1), abs=1e-6)
    # on the flank the normal leans away from the top: at x = lam/4 the slope dh/dx = height*pi/lam
    h = w.ray_cast((0.5, 1.0, 1.0), DOWN, 2.0)
    slope = height * math.pi / lam        # d/dx [h (1 - cos(2 pi x/lam))/2 * 1] at x = lam/4
    # central differences over one grid step lose (k dx)^2 / 6 = 0.4 % here (k = 2 pi / lam, dx = 0.05)
    assert h.n[0] / h.n[2] == pytest.approx(-slope, rel=(math.pi * 0.05) ** 2 / 6 * 1.1)
    assert not w.ray_cast((5.0, 1.0, 1.0), DOWN, 2.0).hit   # outside the field


def test_turntable_surface_velocity_is_v_plus_w_cross_r():
    w = world_with(boxes=[Box("asphalt", (0.0, 0.0, -0.05), (10.0, 10.0, 0.1),
                              angular_velocity=(0.0, 0.0, 0.3))])
    h = w.ray_cast((2.0, 0.0, 1.0), DOWN, 2.0, t=0.0)
    assert h.v_ground == pytest.approx((0.0, 0.6, 0.0))          # (0, 0, 0.3) x (2, 0, 0)
    # the box turns: at t = pi/2 / 0.3 a corner that was at +x, +y sits at -x, +y
    c, q, v = w.box_pose(0, math.pi / 2 / 0.3)
    rot = sim.kernel.vec.quat_rotate(tuple(q), (1.0, 0.0, 0.0))
    assert rot == pytest.approx((0.0, 1.0, 0.0), abs=1e-12)


def test_oscillating_platform_velocity():
    b = Box("asphalt", (0.0, 0.0, -0.05), (10.0, 10.0, 0.1), oscillation=(2.0, 0.0, 0.0), period=4.0)
    w = world_with(boxes=[b])
    # c(t) = 2 sin(2 pi t / 4) x; velocity 2 (2 pi / 4) cos(...)
    h = w.ray_cast((0.0, 0.0, 1.0), DOWN, 2.0, t=0.0)
    assert h.v_ground == pytest.approx((math.pi, 0.0, 0.0))
    c, _, v = w.box_pose(0, 1.0)
    assert c == pytest.approx((2.0, 0.0, -0.05)) and v == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)


def test_own_shapes_are_excluded():
    own = Box("ice", (0.0, 0.0, 0.25), (1.0, 1.0, 0.1), owner=0)
    w = world_with(planes=[Plane("asphalt")], boxes=[own])
    assert w.query("ray", (0.0, 0.0, 1.0), DOWN, l_max=2.0, vehicle=0).s == pytest.approx(1.0)
    h1 = w.query("ray", (0.0, 0.0, 1.0), DOWN, l_max=2.0, vehicle=1)
    assert h1.s == pytest.approx(0.7) and h1.mu == pytest.approx(0.1)


def test_steep_surface_does_not_support_a_wheel():
    # a wall-like 85 degree slope: a = cos 85 < 0.2, so the wheel finds no support on it
    w = World.flat(slope_deg=85.0)
    assert not w.query("sphere", (0.0, 0.0, 1.0), DOWN, r=0.3, l_max=1.0).hit
    assert w.query("sphere", (0.0, 0.0, 1.0), DOWN, r=0.3, l_max=1.0, a_min=0.05).hit


def test_proving_ground_has_every_feature():
    w = sim.load_world("proving_ground")
    names = {b.name for b in w.boxes}
    for needed in ("slope 10 up", "slope 20 up", "slope 30 up", "curb", "ice", "ramp", "turntable"):
        assert needed in names
    assert any(b.kinematic for b in w.boxes)
    assert w.heightfields and any(m.kind == "circle" and m.radius == 40.0 for m in w.markings)
    ice = next(b for b in w.boxes if b.name == "ice")
    h = w.ray_cast((ice.center[0], ice.center[1], 1.0), DOWN, 2.0)
    assert h.mu == pytest.approx(0.1)
    # the 20 degree slope's surface normal is 20 degrees from vertical
    up = next(b for b in w.boxes if b.name == "slope 20 up")
    h = w.ray_cast((up.center[0], up.center[1], 10.0), DOWN, 20.0)
    assert math.degrees(math.acos(h.n[2])) == pytest.approx(20.0, abs=1e-9)


def test_the_broad_phase_passes_over_a_long_box_whose_bound_but_not_itself_is_in_reach():
    """A 24 m curb's bounding sphere has a 12 m radius: a car whose centre is 5 m beside its middle is
    inside that sphere but out of a 3 m reach of the curb itself, so the broad phase leaves the curb out;
    2.9 m beside it, in. The body collision's test with the hull's sphere answers the same way."""
    from sim.kernel.broadphase import shapes_within
    from sim.kernel.collision import hull_boxes
    curb = Box("asphalt", (0.0, 0.0, 0.06), (24.0, 0.35, 0.12))
    w = world_with(planes=[Plane("asphalt")], boxes=[curb])
    _, boxes, hf, _, _ = w.tables()
    for side, touches in ((5.0, False), (1.0, True), (2.9, True), (3.1, False)):
        centre = (0.0, 0.175 + side, 0.06)                  # at the curb's mid-height, `side` m from its face
        box_mask, _ = shapes_within(boxes, hf, centre, 3.0, 0.0, 7)
        assert bool(box_mask & 1) == touches, side
        assert bool(hull_boxes(boxes, 1, centre, 3.0, 0.0, 7) & 1) == touches, side
    # past its ends too: 2 m beyond the end, on its axis
    box_mask, _ = shapes_within(boxes, hf, (14.0, 0.0, 0.06), 1.9, 0.0, 7)
    assert box_mask == 0
    box_mask, _ = shapes_within(boxes, hf, (14.0, 0.0, 0.06), 2.1, 0.0, 7)
    assert box_mask == 1


def test_the_kept_broad_phase_mask_holds_every_shape_a_new_one_would():
    """The broad phase keeps its static shapes' mask while the centre of mass stays within the margin of
    where it was made (sim/kernel/broadphase.py). Along a random walk past curbs, tilted boxes, a heightfield, a
    turntable and a drifting box, with jumps (a reset), the masks it gives always hold every shape the
    exact test at this position and time keeps; and it does keep them: a new static mask comes about once
    per BROAD_MARGIN of travel, not every substep."""
    from sim.kernel.broadphase import BROAD_MARGIN
    from sim.kernel.broadphase import broadphase_stage
    from sim.kernel.broadphase import fresh_broad_cache
    from sim.kernel.broadphase import shapes_within
    from sim.kernel.tables import VP_REACH
    s = sim.Simulation(sim.load_vehicle("hatchback"), sim.World.flat(), dt=1 / 240, substeps=1)
    vp = s.tables.vehicle_params
    reach = vp[0, VP_REACH]
    rng = np.random.default_rng(11)
    boxes = [Box("asphalt", (x, y, 0.06), (24.0, 0.35, 0.12), yaw_deg=yaw) for x, y, yaw in
             ((0.0, 2.0, 0.0), (0.0, 7.0, 0.0), (-6.0, -3.0, 60.0))]
    boxes += [Box("asphalt", tuple(rng.uniform(-8.0, 8.0, 3)), tuple(rng.uniform(0.2, 4.0, 3)),
                  yaw_deg=float(rng.uniform(-180, 180)), slope_deg=float(rng.uniform(-40, 40))) for _ in range(8)]
    boxes += [Box("asphalt", (4.0, -4.0, 0.0), (6.0, 6.0, 0.1), angular_velocity=(0.0, 0.0, 0.7)),
              Box("asphalt", (-9.0, 0.0, 0.5), (1.0, 1.0, 1.0), velocity=(1.5, 0.0, 0.0)),
              Box("asphalt", (0.0, -8.0, 0.5), (1.0, 1.0, 1.0), oscillation=(0.0, 3.0, 0.0), period=2.0)]
    heights = np.zeros((41, 31))
    field = Heightfield("asphalt", (2.0, 3.0, 0.0), (0.1, 0.1), heights)
    _, table, hf, _, _ = world_with(planes=[Plane("asphalt")], boxes=boxes, heightfields=[field]).tables()
    cache = fresh_broad_cache()
    pos = np.array([0.0, 0.0, 0.5])
    made = 0
    for k in range(3000):
        t = k / 240.0
        if rng.random() < 0.003:
            pos = rng.uniform(-10.0, 10.0, 3)                              # a reset elsewhere
        else:
            pos = pos + rng.normal(0.0, 0.03, 3)                           # 0.03 m a substep: 25 km/h
        centre = tuple(float(x) for x in pos)
        box_mask, hf_mask, new = broadphase_stage(0, vp, centre, table, hf, t, cache)
        made += tuple(new[:3]) != tuple(cache[:3])
        cache = new
        want_box, want_hf = shapes_within(table, hf, centre, reach, t, 0)
        assert box_mask & want_box == want_box and hf_mask & want_hf == want_hf, k
    assert 20 < made < 3000 * 0.03 / BROAD_MARGIN * 2


def test_a_loop_over_masked_shapes_ends_at_the_highest_bit():
    from sim.kernel.shapes import ALL_SHAPES
    from sim.kernel.shapes import MASK_BITS
    from sim.kernel.shapes import mask_end
    assert mask_end(0, 16) == 0
    assert mask_end(1 << 9, 16) == 10 and mask_end((1 << 9) | 1, 16) == 10
    assert mask_end(ALL_SHAPES, 16) == 16 and mask_end(ALL_SHAPES, 0) == 0
    assert mask_end(0, MASK_BITS + 1) == MASK_BITS + 1                   # shapes past the bits: all of them


def test_the_hull_box_pretest_never_passes_over_a_box_a_hull_point_is_in():
    """`hull_apart_from_box` (the hull points' bounding box against a box, on the box's axes) says "apart"
    only where no hull point is inside the box, for boxes turned any way and the body in any attitude; and
    it does say so where it saves the work: the car standing on a 0.1 m patch, or beside a curb."""
    from sim.kernel.collision import deepest_penetration
    from sim.kernel.collision import hull_apart_from_box
    from sim.kernel.vec import quat_from_rotvec
    from sim.kernel.vec import quat_rotate
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=1)
    vp, hull = s.tables.vehicle_params, s.tables.hull_points
    z = sim.rest_com_height(car)
    patch = Box("asphalt", (0.0, 0.0, -0.048), (30.0, 20.0, 0.1))
    curb = Box("asphalt", (0.0, 1.2, 0.06), (24.0, 0.35, 0.12))
    rng = np.random.default_rng(5)
    boxes = [patch, curb] + [Box("asphalt", tuple(rng.uniform(-2.0, 2.0, 3)), tuple(rng.uniform(0.2, 3.0, 3)),
                                 yaw_deg=float(rng.uniform(-180, 180)), slope_deg=float(rng.uniform(-60, 60)),
                                 roll_deg=float(rng.uniform(-60, 60))) for _ in range(12)]
    _, table, hf, _, _ = world_with(boxes=boxes).tables()
    upright = (1.0, 0.0, 0.0, 0.0)
    assert hull_apart_from_box(table, 0, vp, 0, (0.0, 0.0, z), upright, 0.0)          # on the patch
    assert hull_apart_from_box(table, 1, vp, 0, (0.0, 0.0, z), upright, 0.0)          # beside the curb
    apart = inside = 0
    for _ in range(300):
        pos = tuple(rng.uniform(-2.5, 2.5, 3))
        q = quat_from_rotvec(tuple(rng.uniform(-2.0, 2.0, 3)))
        for i in range(len(boxes)):
            if not hull_apart_from_box(table, i, vp, 0, pos, q, 0.0):
                continue
            apart += 1
            for k in range(hull.shape[1]):
                p = tuple(np.add(pos, quat_rotate(q, tuple(hull[0, k]))))
                depth = deepest_penetration(np.zeros((0, 8)), table, hf, np.zeros(0), p, 0.0, 0, 1 << i, 0)[0]
                inside += depth > 0.0
    assert apart > 500 and inside == 0


def test_a_heightfields_side_is_a_wall_that_gives_no_energy():
    """A plateau 1 m high (a heightfield, 10 m square) on flat ground: the hatchback coasts into its side at 8
    m/s. Its tires cannot roll up a step taller than their radius, so the body meets the side, and a hull
    point that comes in through it is as far in as it is past the side, pushed back out horizontally (the
    field is a solid block under its surface). Before, such a point was as deep as the surface above it, 1 m
    at once, and the body was flung up: the hull's work was energy from nowhere. Now it never does positive
    work beyond rounding, and the car's energy never rises above its start."""
    flat = world_with(planes=[Plane("asphalt", (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))])
    plateau = Heightfield("asphalt", (5.0, -5.0, 0.0), (0.5, 0.5), np.full((21, 21), 1.0))
    world = World("plateau", flat.surfaces, flat.planes, heightfields=[plateau])
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, world, dt=1 / 240, substeps=2, watchdog="flag")
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=8.0)
    e0 = s.watcher.energies(s.tables.body_state, s.tables.wheel_state)[0]
    top = e0
    for _ in range(360):
        s.step(sim.Controls(gear=0))
        top = max(top, s.watcher.energies(s.tables.body_state, s.tables.wheel_state)[0])
    assert np.asarray(s.state.position, dtype=float).reshape(3)[0] < 5.0 + 0.2   # stopped at the side
    assert top <= e0 + 1.0                                                      # J: nothing from nowhere
    assert s.health[0] == ""


@pytest.mark.parametrize("step, accepted", [(5.0, True), (5.5, False)])
def test_the_loader_refuses_a_heightfield_step_taller_than_the_collisions_skin(step, accepted):
    """A grid step taller than HF_SKIN (5 m) is refused with the point, its height and the rule: the body's
    collision takes a point deeper than that under the surface for under an overhang."""
    data = {"name": "step", "gravity": 9.81, "surfaces": {"asphalt": {"mu": 1.0}},
            "heightfield": [{"surface": "asphalt", "spacing": 1.0, "heights": [[0.0, 0.0], [0.0, step]]}],
            "spawn": [[0.0, 0.0, 0.0]]}
    if accepted:
        World.from_dict(data, "step.toml")
    else:
        with pytest.raises(sim.ConfigError, match=r"step.toml: heightfield\[0\]\.heights\[1\]\[1\] = 5.5 is 5.5 m "
                                                  r"from its neighbour; neighbouring points may differ by at most 5 m"):
            World.from_dict(data, "step.toml")
