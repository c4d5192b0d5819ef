"""Issue 30 item 4: a road-wheel angle input. `Controls(steer_angle=...)` sets the front wheels' mean angle at
once (no steering rate), split by Ackermann geometry: the inner and outer wheels point at one centre on the
rear axle's line, cot(outer) - cot(inner) = W / L. At walking pace the car then follows the kinematic
(bicycle) turn: yaw rate v tan(delta_bicycle) / L with the bicycle angle atan(L / R) of that centre."""
import math

import numpy as np
import pytest

import sim

HATCH = sim.load_vehicle("hatchback")


def front_angles(s):
    steer = np.asarray(s.state.wheel_steer)
    return float(steer[0]), float(steer[1])


@pytest.mark.parametrize("delta", [0.05, -0.12])
def test_the_angle_is_set_at_once_as_the_mean_of_the_two_with_ackermann_geometry(delta):
    s = sim.Simulation(HATCH, sim.World.flat())
    s.reset(position=(0.0, 0.0, sim.rest_com_height(HATCH)), speed=5.0)
    s.step(sim.Controls(steer_angle=delta))
    left, right = front_angles(s)
    assert (left + right) / 2 == pytest.approx(delta, abs=1e-12)      # the mean, in one step: no rate
    inner, outer = (left, right) if delta > 0 else (-right, -left)
    wheelbase, track = HATCH.wheelbase, 2 * HATCH.front_axle.half_track
    assert 1 / math.tan(outer) - 1 / math.tan(inner) == pytest.approx(track / wheelbase, rel=1e-9)
    s.step(sim.Controls(steer=0.0))                                   # the rack takes over again, at its rate
    assert abs(front_angles(s)[0]) < abs(left)


def test_at_walking_pace_the_car_follows_the_kinematic_turn():
    delta, speed = 0.08, 3.0
    s = sim.Simulation(HATCH, sim.World.flat())
    s.reset(position=(0.0, 0.0, sim.rest_com_height(HATCH)), speed=speed, gear=1)
    for _ in range(5 * 240):
        s.step(sim.Controls(steer_angle=delta, throttle=0.05, tc=True))
    left, right = front_angles(s)
    wheelbase, half = HATCH.wheelbase, HATCH.front_axle.half_track
    radius = wheelbase / math.tan(left) + half                        # the inner (left) wheel's centre, rear axle
    v = float(np.linalg.norm(s.state.velocity))
    yaw_rate = float(s.state.angular_velocity[2])
    # the rear axle's midpoint turns about that centre at v_rear / R; the centre of mass sits ahead of it, so
    # the body's speed is v_rear / cos(beta): yaw rate = v cos(beta) / R with tan(beta) = b / R
    b = HATCH.chassis.com_x - HATCH.rear_axle.x
    expected = v * math.cos(math.atan(b / radius)) / radius
    assert yaw_rate == pytest.approx(expected, rel=0.02)


def test_a_bad_angle_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"Controls: steer_angle = nan is not allowed; expected a finite number or "
                                          r"None"):
        sim.Controls(steer_angle=float("nan"))
    assert sim.Controls.from_row(sim.Controls(steer_angle=0.1).row()).steer_angle == 0.1
    assert sim.Controls.from_row(sim.Controls().row()).steer_angle is None


def test_the_step_steer_can_prescribe_the_road_wheel_angle():
    """ISO 7401's step steer as a road-wheel angle (the form a comparison with another model takes): the front
    wheels' mean angle is the step's 0.02 rad at 20 and at 30 m/s alike (no steering ratio or rack rate between),
    and on linear tires without roll steer the yaw-rate gain is the single-track model's v / (L + K v^2)."""
    import sim.lab.drives as M
    car = HATCH
    for axle in ("front", "rear"):
        car = sim.with_value(car, f"{axle}_tire.model", "linear")
        car = sim.with_value(car, f"{axle}_suspension.bump_steer", 0.0)
    for speed in (20.0, 30.0):
        r = M.step_steer(car, speed=speed, road_wheel_angle=0.02)
        assert r.value("road-wheel angle") == pytest.approx(math.degrees(0.02), rel=1e-9)
        assert r.value("yaw-rate gain") == pytest.approx(M.bicycle_yaw_gain(car, speed), rel=0.03)
