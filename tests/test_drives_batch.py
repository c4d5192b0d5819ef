"""Test drives in batches (sim.lab.drives.run_batch): N cars of any parameters in one Simulation, each car's
figures and telemetry log bit for bit those of its drive alone, also when cars end their drives at
different steps. Short drives (the drives' own parameters), so each test drives a few seconds."""
import numpy as np

import sim
from sim.lab import drives as M


def with_values(car, **values):
    for key, value in values.items():
        car = sim.with_value(car, key.replace("__", "."), value)
    return car


def variants():
    """The hatchback, itself with stiffer springs and anti-roll bars, heavier, with less grip; the Boxster."""
    car = sim.load_vehicle("hatchback")
    stiff = with_values(car, front_suspension__k=1.5 * car.front_suspension.k,
                        front_suspension__anti_roll=30000.0, rear_suspension__anti_roll=15000.0)
    heavy = with_values(car, chassis__mass=1.3 * car.chassis.mass)
    slippery = with_values(car, front_tire__grip=0.8 * car.front_tire.grip, rear_tire__grip=0.8 * car.rear_tire.grip)
    return [car, stiff, heavy, slippery, sim.load_vehicle("boxster_s")]


def values(result) -> np.ndarray:
    return np.array([f.value for f in result.figures])


def assert_alone_equal(batch, alone):
    """Figures (==, nan where the drive alone gives nan), their names and the logs equal, row for row."""
    assert len(batch) == len(alone)
    for b, a in zip(batch, alone):
        assert b.name == a.name and b.vehicle == a.vehicle
        assert [f.name for f in b.figures] == [f.name for f in a.figures]
        assert np.array_equal(values(b), values(a), equal_nan=True)
        assert b.log.names == a.log.names
        assert np.array_equal(b.log.array(), a.log.array(), equal_nan=True)
        start_b, rows_b = b.log.inputs.for_vehicle(0)
        start_a, rows_a = a.log.inputs.for_vehicle(0)
        assert np.array_equal(rows_b, rows_a) and np.array_equal(start_b.body_state, start_a.body_state)


def test_settle_of_five_different_cars_in_one_batch_matches_each_alone():
    cars = variants()
    batch = M.settle(cars, seconds=1.0)
    assert_alone_equal(batch, [M.settle(c, seconds=1.0) for c in cars])
    heavy, car = batch[2], batch[0]
    # 1.3 times the sprung mass on the same axles, the same wheels: each wheel's static load grows as the static
    # balance's (sim.tire_loads: the body's share plus the wheel's own weight), within 2 % after 1 s
    expected = sim.tire_loads(cars[2])[0] / sim.tire_loads(cars[0])[0]
    assert abs(heavy.value("load FL") / car.value("load FL") - expected) < 0.02 * expected


def test_step_steer_with_another_tire_family_and_drive_mode_in_the_batch_matches_each_alone():
    """A car on linear tires (its figures include the single-track model's gain: another figure list) and a
    car with direct drive (gear 1 where the others take the gear for 20 m/s) drive with the presets."""
    car = sim.load_vehicle("hatchback")
    linear = with_values(car, front_tire__model="linear", rear_tire__model="linear")
    direct = with_values(car, drive__mode="direct")
    cars = [car, linear, direct, sim.load_vehicle("boxster_s")]
    kw = dict(speed=20.0, steer=0.05, at=0.5, seconds=2.5)
    batch = M.step_steer(cars, **kw)
    assert_alone_equal(batch, [M.step_steer(c, **kw) for c in cars])
    assert "bicycle-model gain" in [f.name for f in batch[1].figures]
    assert "bicycle-model gain" not in [f.name for f in batch[0].figures]


def test_steady_circle_batch_matches_each_alone_and_the_stiffer_anti_roll_rolls_less():
    cars = variants()
    batch = M.steady_circle(cars, seconds=3.0)
    assert_alone_equal(batch, [M.steady_circle(c, seconds=3.0) for c in cars])
    base, stiff = batch[0].value("roll angle"), batch[1].value("roll angle")
    assert 0.0 < stiff < 0.9 * base                   # more roll stiffness, the same load transfer: less roll


def test_braking_cars_stop_at_their_own_steps_and_each_matches_its_drive_alone():
    """The drive of each car ends the step it comes to rest (under 0.1 m/s): its log ends there while the
    others brake on, and its recorded inputs drive it alone again to the logged end, bit for bit."""
    cars = variants()
    kw = dict(v0=15.0)
    batch = M.braking(cars, **kw)
    assert_alone_equal(batch, [M.braking(c, **kw) for c in cars])
    lengths = [len(r.log) for r in batch]
    assert len(set(lengths)) > 1                      # they stopped at different steps
    for r in batch:
        speed = r.log.column("speed")
        assert speed[-1] < 0.1 <= speed[-2]           # the log's last row is the step it stopped
        start, rows = r.log.inputs.for_vehicle(0)
        s = sim.Simulation(start.params[0], r.log.inputs.world, dt=r.log.inputs.dt, substeps=r.log.inputs.substeps)
        s.restore(start)
        s.run(rows)
        assert np.array_equal(s.state.position, [r.log.column(c)[-1] for c in ("x", "y", "z")])
    # less grip: a longer stop
    assert batch[3].value("stopping distance") > batch[0].value("stopping distance")


def test_a_car_that_leaves_the_circle_early_is_held_and_the_others_still_match_their_drives_alone():
    """Constant radius with a quick ramp: the car with half the grip loses the circle seconds before the
    others; it is held while they drive on, and every car's figures and log are those of its drive alone."""
    car = sim.load_vehicle("hatchback")
    low = with_values(car, front_tire__grip=0.5 * car.front_tire.grip, rear_tire__grip=0.5 * car.rear_tire.grip)
    cars = [car, low, sim.load_vehicle("boxster_s")]
    kw = dict(start_g=0.1, ramp_g_per_s=0.05)
    batch = M.constant_radius(cars, **kw)
    assert_alone_equal(batch, [M.constant_radius(c, **kw) for c in cars])
    assert len(batch[1].log) < len(batch[0].log) - 240          # it left more than a second earlier
    assert 0.0 < batch[1].value("lateral limit") < 0.7 * batch[0].value("lateral limit")


def test_run_is_a_batch_of_one_and_the_seconds_are_shared():
    car = sim.load_vehicle("hatchback")
    one = M.run("settle", car)
    two = M.run_batch("settle", [car, car])
    assert np.array_equal(values(one), values(two[0])) and np.array_equal(values(two[0]), values(two[1]))
    assert two[0].seconds == two[1].seconds > 0.0
