"""The wheel's own mass (issue 30 item 3, docs/physics.md §7.2): wheel hop at sqrt((k_s + k_t) / m_u), a wheel
leaving the ground over a step, the steady-circle roll and load transfer of the standard formulas with the
unsprung mass at its own height and the tires in series with the springs. With unsprung_mass 0 the state hashes
are unchanged (tests/test_state_hash.py)."""
import math

import numpy as np
import pytest
import steady

import sim
import sim.lab.drives as M
from sim.kernel.units import GRAVITY as G
from sim.kernel.unsprung import damped_share
from sim.kernel.unsprung import trapezoid_frequency
from sim.kernel.unsprung import trapezoid_step
from sim.model.geometry import rest_com_height


def with_wheels(name: str, m_u: float, k_t: float = 250000.0, c_t: float = 0.0, **values) -> sim.Vehicle:
    """The preset with wheels of m_u kg each and tires of k_t N/m, the chassis lighter or heavier by as much as
    the wheels change (the same car, sim.total_mass, its mass split anew into sprung and unsprung), and any
    other `values` (path with __ for .)."""
    car = steady.with_wheels(sim.load_vehicle(name), m_u, k_t, c_t)
    for path, value in values.items():
        car = sim.with_value(car, path.replace("__", "."), value)
    return car


def step_world(x0: float, height: float = 0.05) -> sim.World:
    """Flat ground with a step `height` m up at x = x0, across the whole way."""
    box = sim.Box("asphalt", (x0 + 100.0, 0.0, height - 0.5), (200.0, 40.0, 1.0))
    return sim.World("step", [sim.Surface("asphalt", 1.0)], planes=[sim.Plane("asphalt")], boxes=[box])


def damped_sine(x: np.ndarray, dt: float) -> tuple[float, float]:
    """(omega_d, sigma) of x = A e^(-sigma t) cos(omega_d t + phi) + a cubic (the body's slow motion), by least
    squares over a grid: omega_d to 0.05 rad/s, sigma to 0.5 1/s."""
    t = np.arange(len(x)) * dt
    poly = np.stack([np.ones_like(t), t, t * t, t ** 3], axis=1)

    def misfit(om, sg):
        e = np.exp(-sg * t)
        basis = np.concatenate([np.stack([e * np.cos(om * t), e * np.sin(om * t)], axis=1), poly], axis=1)
        coef = np.linalg.lstsq(basis, x, rcond=None)[0]
        return float(np.sum((basis @ coef - x) ** 2))

    grid = [(misfit(om, sg), om, sg) for om in np.arange(30.0, 300.0, 1.0) for sg in np.arange(0.0, 60.0, 2.0)]
    _, om0, sg0 = min(grid)
    fine = [(misfit(om, sg), om, sg) for om in np.arange(om0 - 1.0, om0 + 1.0, 0.05)
            for sg in np.arange(max(0.0, sg0 - 2.0), sg0 + 2.0, 0.5)]
    _, om, sg = min(fine)
    return om, sg


@pytest.mark.parametrize("name, m_u, k_t", [("hatchback", 25.0, 250000.0), ("boxster_s", 35.0, 280000.0)])
def test_a_wheel_driven_onto_a_step_hops_at_the_quarter_cars_frequency(name, m_u, k_t):
    """At 20 m/s onto a 0.05 m step (2 substeps of 1/480 s): a rear wheel's travel rings at sqrt((k_s + k_t) / m_u)
    within 5 % once its tire is back on the ground (lightly damped, 500 N s/m, so that it rings), and a wheel
    leaves the ground on the way (its load 0)."""
    car = with_wheels(name, m_u, k_t, front_suspension__c=500.0, rear_suspension__c=500.0)
    dt = 1.0 / 240.0
    s = sim.Simulation(car, step_world(80.0), dt=dt, substeps=sim.DEFAULT_SUBSTEPS)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=20.0)
    travel, load = [], []
    for _ in range(int(4.8 / dt)):
        s.step(sim.Controls(throttle=0.3))
        travel.append(s.telemetry.x.copy())
        load.append(s.telemetry.Fz.copy())
    travel, load = np.array(travel), np.array(load)
    assert s.finite()
    left_ground = False
    for wheel in range(4):
        hit = next(k for k in range(int(2.0 / dt), len(load)) if load[k, wheel] - load[k - 1, wheel] > 2000.0)
        off = [k for k in range(hit, hit + 60) if load[k, wheel] == 0.0]
        left_ground = left_ground or bool(off)
        if wheel == 2:          # a rear wheel: nothing hits the car after it (a front's ring meets the rear's hit)
            start = (off[-1] if off else hit) + 3
            om, sg = damped_sine(travel[start:start + int(0.3 / dt), wheel], dt)
            formula = math.sqrt((car.rear_suspension.k + k_t) / m_u)
            assert math.hypot(om, sg) == pytest.approx(formula, rel=0.05), (om, sg, formula)
            assert 2.0 * math.pi / formula > 5 * dt                   # resolved: over five samples a period
    assert left_ground


def test_the_trapezoidal_step_keeps_an_undamped_wheels_amplitude_at_any_substep():
    """The wheel's own coordinate by the trapezoidal rule: an undamped oscillator keeps its energy and runs at
    2 atan(omega h / 2) / h (docs/physics.md §7.2), even at omega h = 10 (where an explicit step blows up)."""
    for omega_h in (0.2, 1.0, 10.0):
        h, m = 1.0 / 480.0, 25.0
        k = m * (omega_h / h) ** 2
        x, v = 0.01, 0.0
        xs = []
        for _ in range(2000):
            x, v = trapezoid_step(x, v, -k * x, k, 0.0, m, h)
            xs.append(x)
        energy = 0.5 * k * x * x + 0.5 * m * v * v
        assert energy == pytest.approx(0.5 * k * 0.01 ** 2, rel=1e-9)
        if omega_h > 1.0:
            continue                                  # a sampled sign no longer counts its turns
        turns = np.count_nonzero(np.diff(np.sign(xs)) != 0)
        assert turns / 2 / (2000 * h) == pytest.approx(trapezoid_frequency(omega_h / h, h) / (2 * math.pi), rel=0.01)


def test_a_damper_that_would_stop_the_wheel_within_a_substep_stops_it_there():
    """A mass m on a damper c alone: its velocity decays as exp(-c t / m). Where h c <= 2 m the step is the
    trapezoid's, (1 - h c / 2m) / (1 + h c / 2m) a step, within 1 % of the exponential at h c / m = 0.2; beyond, the
    trapezoid's factor turns negative (the velocity flips each substep, -0.67 at h c / m = 10, where the exponential
    leaves 4.5e-5), and the wheel's step takes the damper at the step's end as far as it stops the mass: 0."""
    h, m = 1.0 / 480.0, 4.0
    for hc_over_m in (0.2, 2.0, 10.0, 104.0):
        c = hc_over_m * m / h
        theta = damped_share(c, m, h)
        _, v = trapezoid_step(0.0, 1.0, -c * 1.0, 0.0, 2.0 * theta * c, m, h)
        if hc_over_m <= 2.0:
            assert theta == 0.5
            assert v == pytest.approx((1 - hc_over_m / 2) / (1 + hc_over_m / 2), abs=1e-12)
        else:
            assert v == pytest.approx(0.0, abs=1e-12)
        assert v >= 0.0                                                       # never flips, like the exponential
        if hc_over_m < 1.0:
            assert v == pytest.approx(math.exp(-hc_over_m), rel=0.01)
        else:
            assert abs(v - math.exp(-hc_over_m)) < math.exp(-1.0)            # both nearly at rest


def test_steady_circle_with_unsprung_mass_matches_the_formulas():
    """At 0.4 g on the 40 m circle, with wheels of their own mass (the same total mass), each axle's lateral
    load transfer and the roll gradient are the formulas' (sprung mass through the roll centres and the roll
    stiffness split with the tires in series, unsprung mass at its own height; tests/steady.py) within 3 %."""
    cars = [with_wheels("hatchback", 30.0),
            with_wheels("boxster_s", 40.0, 280000.0, front_suspension__roll_centre=0.10,
                        rear_suspension__roll_centre=0.20, front_suspension__anti_roll=20000.0),
            with_wheels("hatchback", 45.0, 150000.0, front_suspension__roll_centre=0.08,
                        rear_suspension__roll_centre=0.15)]
    for car, r in zip(cars, M.steady_circle(cars)):
        ay = r.value("lateral acceleration")
        assert ay == pytest.approx(0.4, abs=0.005)
        phi, front, rear = steady.steady_state(car, ay * G)
        assert r.value("roll gradient") == pytest.approx(math.degrees(phi) / ay, rel=0.03), car.name
        assert r.value("front lateral load transfer") == pytest.approx(front, rel=0.03), car.name
        assert r.value("rear lateral load transfer") == pytest.approx(rear, rel=0.03), car.name


def test_the_advisor_knows_the_hop_and_notes_a_hop_the_step_cannot_resolve():
    """The advisor's wheel-hop item: omega = sqrt((k_s + k_bar + k_t) / m_u) against the substep, resolved (ok)
    while omega h <= 1; past it noted, not refused (the trapezoidal step is stable at any substep); none without
    an unsprung mass."""
    from sim.advisor import check
    assert not [it for it in check(with_wheels("boxster_s", 0.0), 1 / 240, 2).items if "hop" in it.part]
    car = with_wheels("boxster_s", 35.0, 280000.0)
    omega = math.sqrt((car.front_suspension.k + car.front_suspension.anti_roll + 280000.0) / 35.0)
    hop = [it for it in check(car, 1 / 240, 2).items if it.part == "front wheel hop"][0]
    assert hop.stable and hop.h_max == pytest.approx(1.0 / omega)
    assert hop.margin == pytest.approx(hop.required / (omega / 480.0))
    light = with_wheels("boxster_s", 6.0, 2.0e6)      # 93 Hz (the loader's limit is 100), omega h = 1.22
    report = check(light, 1 / 240, 2)
    hop = [it for it in report.items if it.part == "front wheel hop"][0]
    assert not hop.stable and not hop.refuses and report.stable


def test_the_tuning_tooltip_says_which_body_the_chassis_mass_is():
    from ui.tuning import sprung_note
    assert "whole car" in sprung_note(with_wheels("hatchback", 0.0), "chassis.mass")
    car = with_wheels("hatchback", 30.0)
    assert "sprung part" in sprung_note(car, "chassis.inertia_roll")
    assert "sprung part" in sprung_note(sim.load_vehicle("hatchback"), "chassis.mass")      # the preset's wheels
    assert f"{sim.total_mass(sim.load_vehicle('hatchback')):g} kg" in sprung_note(car, "chassis.mass")
    assert sprung_note(car, "front_suspension.k") == ""


def test_static_friction_holds_a_car_with_unsprung_mass_at_rest_and_on_the_turning_platform():
    """The validation table's static-friction rows with 30 kg wheels: at rest on flat ground 60 s and braked on the
    turning platform 60 s at 1 substep, each under 1 mm (the held solve counts the wheels' weight and inertia at
    their contacts; without it the car crept 6 mm and 1.5 mm)."""
    from sim.lab.validation import rest_drift
    from sim.lab.validation import turntable_drift
    car = with_wheels("hatchback", 30.0)
    assert rest_drift(car, 2) < 1e-3
    assert turntable_drift(car, 1) < 1e-3


def test_a_preset_without_the_keys_loads_and_saves_them_only_when_set(tmp_path):
    """Files written before the wheels' mass load with unsprung_mass 0 (the massless wheel); saving one adds the
    new keys only once they leave their defaults, and the file loads back as the car."""
    from sim.model import vehicle_toml
    text = (vehicle_toml.PRESET_DIR / "hatchback.toml").read_text()
    old = "\n".join(line for line in text.splitlines() if not line.startswith(("unsprung_mass", "tire_k", "tire_c")))
    source = tmp_path / "old.toml"
    source.write_text(old)
    car = sim.load_vehicle(source)
    assert car.front_suspension.unsprung_mass == 0.0 and car.rear_suspension.unsprung_mass == 0.0
    sim.save_vehicle(sim.with_value(car, "front_tire.grip", 0.6), tmp_path / "a.toml", source=source)
    assert not any(line.startswith("unsprung_mass") for line in (tmp_path / "a.toml").read_text().splitlines())
    heavy = with_wheels("hatchback", 30.0)
    sim.save_vehicle(heavy, tmp_path / "b.toml", source=source)
    assert "unsprung_mass = 30" in (tmp_path / "b.toml").read_text()
    assert sim.load_vehicle(tmp_path / "b.toml") == heavy


def test_a_wheel_too_light_to_be_a_cars_is_refused_naming_the_least_mass(tmp_path):
    """A random set's front wheel of 0.48 kg on k 454 584 N/m, a bar of 409 583 and a tire of 1 846 041 hops at
    sqrt(2 710 208 / 0.48386) = 2367 rad/s (377 Hz; omega h 4.9 at the app's substep) and blew up in 17 of 32
    random drives: refused by the loader, naming the key, the value and the least mass, 2 710 208 / (2 pi 100)^2
    = 6.87 kg. 0 (a massless wheel) and the presets' wheels (13 - 15 Hz) are allowed."""
    car = sim.with_value(sim.load_vehicle("hatchback"), "front_suspension.unsprung_mass", 0.0)
    for path, value in (("front_suspension.k", 454583.51), ("front_suspension.anti_roll", 409583.23),
                        ("front_suspension.tire_k", 1846041.06)):
        car = sim.with_value(car, path, value)
    assert math.sqrt(2710207.8 / 0.48386) / (2 * math.pi) == pytest.approx(376.7, abs=0.1)
    with pytest.raises(sim.ConfigError, match=r"front_suspension\.unsprung_mass = 0\.48386 is not allowed; expected 0 "
                                               r"\(a massless wheel\) or at least 6\.87 kg"):
        sim.with_value(car, "front_suspension.unsprung_mass", 0.48386)
    assert sim.with_value(car, "front_suspension.unsprung_mass", 6.9).front_suspension.unsprung_mass == 6.9
    path = tmp_path / "light.toml"
    sim.save_vehicle(car, path)
    path.write_text(path.read_text().replace("\nunsprung_mass = 0.0", "\nunsprung_mass = 0.48386", 1))
    with pytest.raises(sim.ConfigError, match=rf"{path.name}: front_suspension\.unsprung_mass = 0\.48386"):
        sim.load_vehicle(path)


@pytest.mark.parametrize("substeps", [1, 2])
def test_wheels_braked_in_the_air_pitch_the_body_with_the_wheels_mass_along(substeps):
    """In the air the wheels hang at their droop stops and turn with the body (§7.2): four wheels spinning at 60
    rad/s, braked, pass their spin momentum sum Iw omega to the body (the spin ledger, §11), which then pitches at
    sum Iw omega / (I_pitch + sum m_u x^2), the wheels' masses x ahead of and behind the centre of mass on its
    pitch (parallel axes). The angular momentum, the body's with the wheels' mass and spins, stays what it was.
    (Before the wheels' mass turned with the body, it pitched at sum Iw omega / I_pitch: 20 % faster with 60 kg
    wheels.)"""
    car = with_wheels("hatchback", 60.0, aero__drag_coefficient=0.0)      # (drag would turn it: the wheels are not
    s = sim.Simulation(car, sim.load_world("flat"), dt=1 / 240, substeps=substeps, watchdog="flag")   # dragged)
    s.set_state(position=(0.0, 0.0, 500.0), wheel_spin=60.0, gear=0)
    s.step(sim.Controls(gear=0))
    h0 = np.array(s.telemetry.H_total, dtype=float).reshape(3)
    for _ in range(240):
        s.step(sim.Controls(brake=1.0, gear=0))
    assert np.all(np.abs(np.asarray(s.telemetry.omega)) < 1e-6)                 # the wheels stopped
    wheels = [(car.front_suspension, car.front_tire, car.front_axle), (car.rear_suspension, car.rear_tire,
                                                                        car.rear_axle)]
    spin = sum(2.0 * tire.wheel_inertia * 60.0 for _, tire, _ in wheels)
    pitch = car.chassis.inertia_pitch + sum(2.0 * sus.unsprung_mass * (axle.x - car.chassis.com_x) ** 2
                                            for sus, _, axle in wheels)
    w = np.asarray(s.state.angular_velocity, dtype=float).reshape(3)
    assert abs(w[1]) == pytest.approx(spin / pitch, rel=0.01)
    assert np.allclose(np.array(s.telemetry.H_total, dtype=float).reshape(3), h0, atol=1e-6 * np.linalg.norm(h0))
