"""Stability control (ESP, sim/kernel/brakes.py, docs/physics.md §3.1): the asked-for yaw rate, which wheel it
brakes, and what it does in the sine with dwell and in steady straight driving."""
import math

import numpy as np
import pytest

import sim
from sim.kernel.brakes import esp_reference
from sim.kernel.brakes import esp_wheel
from sim.lab import drives as M
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.driver import SpeedPI
from sim.model.handling import understeer_coefficient


def test_the_asked_for_yaw_rate_is_the_single_track_models_within_the_grip():
    """r = v delta / (L + K v^2): 20 m/s, 0.05 rad, L 2.55 m, K 0.002 s^2/m -> 1 / 3.35 = 0.298507 rad/s,
    under the cap 0.85 x 1.0 x 9.81 / 20 = 0.416925 rad/s. At 0.15 rad it would be 0.895522: capped."""
    assert esp_reference(20.0, 0.05, 2.55, 0.002, 1.0, 9.81, 0.85) == pytest.approx(0.298507, abs=1e-6)
    assert esp_reference(20.0, 0.15, 2.55, 0.002, 1.0, 9.81, 0.85) == pytest.approx(0.416925, abs=1e-6)
    assert esp_reference(20.0, -0.15, 2.55, 0.002, 1.0, 9.81, 0.85) == pytest.approx(-0.416925, abs=1e-6)
    # K of a car on linear tires is the bicycle model's (the manoeuvres' reference gain uses the same)
    car = sim.load_vehicle("hatchback")
    for axle in ("front_tire", "rear_tire"):
        car = sim.with_value(car, f"{axle}.model", "linear")
    k = understeer_coefficient(car)
    assert 20.0 / (car.wheelbase + k * 400.0) == pytest.approx(M.bicycle_yaw_gain(car, 20.0), rel=1e-12)


@pytest.mark.parametrize("r, r_ref, wheel", [(0.4, 0.3, 1), (0.2, 0.3, 2), (-0.5, -0.3, 0), (-0.2, -0.3, 3),
                                             (0.1, -0.3, 3), (0.5, -0.2, 1)])
def test_it_brakes_the_outer_front_against_oversteer_and_the_inner_rear_against_understeer(r, r_ref, wheel):
    """Braking a right wheel (FR 1, RR 3) turns the car right, a left wheel (FL 0, RL 2) left: each choice
    turns the car toward the asked-for yaw rate."""
    assert esp_wheel(r, r_ref) == wheel
    assert (wheel in (0, 2)) == (r_ref - r > 0.0)                     # the yaw moment's sign is the error's


@pytest.mark.parametrize("name", ["hatchback", "boxster_s"])
def test_esp_keeps_the_sine_with_dwell_on_course_where_without_it_the_car_spins(name):
    """The same steering inputs with stability control on and off: off, the car spins (the yaw rate 1 s
    after the steering is still above its peak), which that drive expects (its yaw-rate figures miss
    FMVSS 126's limits as expected, and nothing fails); on, the yaw-rate error is smaller and the car meets
    FMVSS 126's 35 % and 20 % and still moves over 1.83 m sideways. Both presets as they are, understeering 1.8
    and 1.1 deg/g: over the rules' series of amplitudes (1.5 A ... 6.5 A, A the angle at 0.3 g) both spin from
    about 6 deg of road wheel; at a small fixed amplitude they came back on their own (docs/physics.md §3.1)."""
    car = sim.load_vehicle(name)
    on, off = M.sine_with_dwell(car, esp=True), M.sine_with_dwell(car, esp=False)
    assert on.passed and on.shown is None and on.outcome == "ok"
    assert off.value("yaw rate 1.0 s after the steering, share of its peak") > 100.0
    assert off.shown and off.passed and off.outcome.startswith("spins without stability control, as expected")
    assert [f.mark for f in off.figures if f.passed is not None] == ["missed, as expected"] * 2 + ["ok"]
    err = lambda r: float(np.sqrt(np.mean((r.log.column("yaw_rate") - r.log.column("yaw_rate_ref")) ** 2)))  # noqa
    assert err(on) < 0.5 * err(off)
    assert off.value("time stability control acted") == 0.0 < on.value("time stability control acted")
    assert np.all(off.log.column("esp_brake FL") == 0.0)


def test_esp_does_nothing_in_steady_straight_driving():
    car = sim.load_vehicle("hatchback")
    s = M.on_flat(car, speed=27.0, gear=M.gear_for(car, 27.0))
    driver = Driver(OpenLoop(lambda t: 0.0), SpeedPI(27.0), esp=True)
    for _ in range(2400):
        s.step(driver.controls(s))
        assert not np.any(s.telemetry.esp_brake) and float(s.telemetry.esp_cut) == 1.0
    assert abs(float(s.telemetry.yaw_rate_ref)) < math.radians(0.1)
