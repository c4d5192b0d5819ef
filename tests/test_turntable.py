"""Static friction on moving ground (docs/physics.md §11, §14 item 36; issue 30 item 6): a braked car on a
turning platform goes round with it, and the hold's target on fixed ground is what it was."""
import math

import numpy as np
import pytest

import sim
from sim.kernel.shapes import surface_catch_up
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import quat_rotate_inv
from sim.lab.drives.standstill import TURNTABLE_RADIUS
from sim.lab.drives.standstill import TURNTABLE_SPIN
from sim.lab.drives.standstill import turntable_drift
from sim.model.world import Box
from sim.model.world import Plane
from sim.model.world import Surface
from sim.model.world import World


@pytest.mark.parametrize("substeps", [1, 2])
def test_a_braked_car_on_the_turning_platform_goes_round_with_it(substeps):
    """Held to the surface's velocity at the substep's start, the body (whose position advances with its end
    velocity) slid outward by 1/2 W^2 r h^2 a substep: 45.4 mm in 60 s at 1 substep, 22.6 mm at 2 and 2.8 mm
    at 16 here (W = 0.3 rad/s, r = 4 m; the law gives 45.0, 22.5, 2.8). Held to where the surface point goes,
    it stays within a millimetre of its spot, as on fixed ground."""
    h = 1 / 240 / substeps
    assert 0.5 * TURNTABLE_SPIN ** 2 * TURNTABLE_RADIUS * h * 60.0 > 0.02     # the old law: over 2 cm
    assert turntable_drift(sim.load_vehicle("hatchback"), substeps, 60.0) < 1e-3


def world_of(box: Box) -> World:
    return World("one box", [Surface("asphalt", 1.0)], planes=[Plane("asphalt")], boxes=[box])


def carried(world: World, t: float, h: float, p) -> np.ndarray:
    """(p(t + h) - p(t)) / h - v(p, t) from the box's poses: where the box takes the point p in h seconds."""
    c0, q0, _ = world.box_pose(0, t)
    c1, q1, _ = world.box_pose(0, t + h)
    r0 = np.asarray(p) - c0
    local = quat_rotate_inv(tuple(q0), tuple(r0))
    p1 = c1 + np.asarray(quat_rotate(tuple(q1), local))
    v = world.query("ray", np.asarray(p) + (0.0, 0.0, 1.0), (0.0, 0.0, -1.0), l_max=2.0, a_min=1e-6, t=t).v_ground
    return (p1 - np.asarray(p)) / h - v


def test_the_catch_up_of_a_turning_box_is_where_its_surface_point_goes():
    """W = 0.3 rad/s, the point 4 m out on the top face: the catch-up is the centripetal pull h/2 W^2 r toward
    the axis (first order), and equals the box's own poses' (p(t + h) - p(t)) / h - v exactly (1e-9 m/s)."""
    world = world_of(Box("asphalt", (1.0, 2.0, 0.0), (14.0, 14.0, 0.1), yaw_deg=20.0, angular_velocity=(0.0, 0.0, 0.3)))
    p = (1.0 + 4.0 * math.cos(0.7), 2.0 + 4.0 * math.sin(0.7), 0.05)
    for t, h in ((0.0, 1 / 240), (3.7, 1 / 480), (11.0, 1 / 3840)):
        got = np.array(surface_catch_up(world.box_table, len(world.planes), len(world.planes), t, h, p))
        c, _, _ = world.box_pose(0, t)
        inward = (c - p) * np.array([1.0, 1.0, 0.0]) / 4.0
        assert np.dot(got, inward) == pytest.approx(0.5 * 0.3 ** 2 * 4.0 * h, rel=1e-3)
        assert np.allclose(got, carried(world, t, h, p), atol=1e-9)


def test_the_catch_up_of_an_oscillating_box_follows_its_sine():
    """0.4 m along x and 0.1 m up, 3 s: (p(t + h) - p(t)) / h - v(t) = h/2 a + h^2/6 a' + O(h^3)."""
    world = world_of(Box("asphalt", (0.0, 0.0, 0.2), (8.0, 8.0, 0.1), oscillation=(0.4, 0.0, 0.1), period=3.0))
    p = (1.0, -1.0, 0.25)
    for t in (0.0, 0.6, 2.2):
        h = 1 / 240
        got = np.array(surface_catch_up(world.box_table, 1, 1, t, h, p))
        k = 2 * math.pi / 3.0
        amp = np.array([0.4, 0.0, 0.1])
        accel, jerk = -amp * k * k * math.sin(k * t), -amp * k ** 3 * math.cos(k * t)
        assert np.allclose(got, h / 2 * accel + h * h / 6 * jerk, atol=1e-9)    # Taylor: h/2 a + h^2/6 a'
        assert np.allclose(got, carried(world, t, h, p), atol=1e-9)


def test_ground_that_does_not_turn_or_change_speed_gives_no_catch_up():
    """Planes, resting boxes, boxes at a constant velocity and heightfields: exact zeros, so the hold on
    them is what it was bit for bit (the state hashes on fixed ground, tests/test_state_hash.py)."""
    boxes = [Box("asphalt", (5.0, 0.0, 0.0), (2.0, 2.0, 1.0), yaw_deg=30.0),
             Box("asphalt", (-5.0, 0.0, 0.0), (2.0, 2.0, 1.0), velocity=(1.5, -0.5, 0.0))]
    world = World("still", [Surface("asphalt", 1.0)], planes=[Plane("asphalt")], boxes=boxes)
    for shape in (-1, 0, 1, 2, 3, 7):                # none, the plane, the boxes, past the boxes
        assert surface_catch_up(world.box_table, 1, shape, 2.5, 1 / 480, (5.0, 0.3, 0.5)) == (0.0, 0.0, 0.0)


def test_a_braked_car_on_a_sliding_platform_stays_on_its_spot():
    """A platform moving to and fro (0.5 m, 4 s): the braked car stays within a millimetre of its spot on it
    in 8 s at 1 substep."""
    box = Box("asphalt", (0.0, 0.0, 0.0), (14.0, 14.0, 0.1), oscillation=(0.5, 0.3, 0.0), period=4.0)
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, world_of(box), dt=1 / 240, substeps=1)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car) + 0.05), gear=0)
    row = sim.Controls(brake=1.0, handbrake=1.0, gear=0).row()
    s.run(np.tile(row, (720, 1)))
    start = np.array(s.state.position) - world_of(box).box_pose(0, s.time)[0]
    s.run(np.tile(row, (1920, 1)))
    end = np.array(s.state.position) - world_of(box).box_pose(0, s.time)[0]
    assert np.linalg.norm((end - start)[:2]) < 1e-3
    assert np.all(s.telemetry.locked == 1.0)
