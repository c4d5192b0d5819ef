"""FMVSS 126's slowly increasing steer and its amplitude series (sim/lab/drives/fmvss126.py, docs/physics.md §17)."""
import math

import pytest

import sim
from sim.lab import drives as M
from sim.lab.drives.fmvss126 import MOST
from sim.lab.drives.fmvss126 import amplitudes
from sim.lab.drives.fmvss126 import slowly_increasing_steer

G = 9.81


@pytest.mark.parametrize("name", ["hatchback", "boxster_s"])
def test_a_held_at_80_kmh_turns_the_car_at_0_3_g(name):
    """A, read off the slow ramp where the lateral acceleration reaches 0.3 g, held as a step steer at 80 km/h:
    the steady yaw rate r gives v r / g = 0.3 g within 8 % (the ramp reads A a little late: the yaw rate lags
    the steering by the car's response time, about a tenth of a degree at 13.5 deg/s of handwheel)."""
    car = sim.load_vehicle(name)
    a = math.radians(slowly_increasing_steer(car).value("A: road-wheel angle at 0.3 g"))
    v = 80.0 / 3.6
    gain = M.step_steer(car, speed=v, road_wheel_angle=a, seconds=8.0).value("yaw-rate gain")
    assert v * gain * a / G == pytest.approx(0.3, rel=0.08)


def test_the_series_is_the_rules_multiples_up_to_270_deg_of_handwheel():
    """1.5 A to 6.5 A in steps of 0.5 A; a multiple past 270 deg of handwheel (16.875 deg of road wheel at 16:1)
    or the car's largest angle is replaced by that cap, once."""
    car = sim.load_vehicle("hatchback")                           # max_angle_deg 32 > 16.875
    assert MOST == pytest.approx(math.radians(270.0 / 16.0), rel=1e-12)
    small = [math.degrees(x) for x in amplitudes(car, math.radians(1.5))]
    assert small == pytest.approx([1.5 * m for m in (1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5)], rel=1e-12)
    large = [math.degrees(x) for x in amplitudes(car, math.radians(3.0))]
    assert large == pytest.approx([4.5, 6, 7.5, 9, 10.5, 12, 13.5, 15, 16.5, 16.875], rel=1e-12)
    tight = sim.with_value(car, "steering.max_angle_deg", 8.0)
    assert [math.degrees(x) for x in amplitudes(tight, math.radians(1.5))] == pytest.approx(
        [2.25, 3, 3.75, 4.5, 5.25, 6, 6.75, 7.5, 8.0], rel=1e-12)
