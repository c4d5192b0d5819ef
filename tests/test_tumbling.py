"""A car that tumbles onto the ground gains no energy (issue 28; docs/physics.md §6, §7.1, §7.2, §16): two random
tunings from the parameter fuzz (tests/data/tumblers), dropped from 5 - 6.5 m at random attitudes and spins on
flat ground with nothing driving them. Before the fixes their wheels met the ground already deep inside it (a
surface taken up one wheel radius at once) and a heavy wheel was dug into the ground by its links: 26 and 4 of 32
drops tripped the watchdog."""
import math
from pathlib import Path

import numpy as np
import pytest

import sim
from sim.kernel import tables as T
from sim.kernel.collision import held_penalty
from sim.kernel.contact import LANDING_REACH
from sim.kernel.contact import landing_sink
from sim.kernel.wheel import sink_rolled

TUMBLERS = Path(__file__).parent / "data" / "tumblers"


def drops(car: sim.Vehicle, n: int = 16, seconds: float = 4.0, seed: int = 0,
          substeps: int = 2) -> tuple[sim.Simulation, np.ndarray]:
    """n copies of `car` dropped on flat ground at random attitudes, heights and spins; (the simulation, each
    copy's largest rise of its kinetic plus potential energy over its start, J)."""
    rng = np.random.default_rng(seed)
    s = sim.Simulation([car] * n, sim.load_world("flat"), dt=1 / 240, substeps=substeps, n_vehicles=n,
                       watchdog="flag", check_stability=False)
    for j in range(n):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = rng.uniform(0.0, math.pi)
        q = np.array([math.cos(angle / 2), *(math.sin(angle / 2) * axis)])
        s.set_state(j, position=(10.0 * j, 0.0, 5.0 + rng.uniform(0.0, 1.5)), orientation=q,
                    velocity=rng.normal(0.0, 2.0, 3) * (1.0, 1.0, 0.0), angular_velocity=rng.normal(0.0, 2.0, 3))
    e0 = s.watcher.energies(s.tables.body_state, s.tables.wheel_state)
    rise = np.zeros(n)
    idle = np.zeros((1, n, 9))
    idle[:, :, 6] = 100.0                                          # no gear request
    for _ in range(int(seconds * 240)):
        s.run(idle)
        rise = np.maximum(rise, s.watcher.energies(s.tables.body_state, s.tables.wheel_state) - e0)
    return s, rise


@pytest.mark.parametrize("name, massless", [("links_loop", True), ("short_wheelbase", False)])
def test_a_tumbling_car_does_not_gain_energy_from_its_wheels(name, massless):
    """links_loop with massless wheels (a 4.9 m wheelbase, the centre of mass outside the rear track, 0.9 m wheels):
    its wheels met the ground inside them; short_wheelbase (0.21 m between the axles of a 4.6 t body, links
    whose share of the load reaches its hold) dug its heavy wheels into the ground. None trips the watchdog, and
    the energy a drop ends with is within a fortieth of its start's (rounding and the hull's penalty aside)."""
    car = sim.load_vehicle(TUMBLERS / f"{name}.toml")
    if massless:
        for axle in ("front", "rear"):
            car = sim.with_value(car, f"{axle}_suspension.unsprung_mass", 0.0)
    s, rise = drops(car)
    assert not any(s.health), s.health
    start = sim.total_mass(car) * 9.81 * 5.0                       # the least potential energy of a drop
    assert np.median(rise) < start / 40.0


def test_a_heavy_wheel_landing_on_a_body_light_where_it_sits_gains_no_energy():
    """heavy_rear_wheels (seed 1's set 1329): 144 kg rear wheels 6.6 m behind the centre of mass of a body of
    1139 kg m^2 pitch, 26 kg as the wheel feels it along its axis. A landing threw the wheel up its axis and the
    body took the tire's whole torque (370 kJ in a substep); 4 of these 16 drops at 1 substep tripped the watchdog.
    Now the wheels' reaction reaches the body at their contacts with the body's turn and the wheels' travel in
    one step (§7.2, "The wheel in the body's turn"): none trips it, at 1 substep or 2."""
    car = sim.load_vehicle(TUMBLERS / "heavy_rear_wheels.toml")
    for substeps in (1, 2):
        s, _ = drops(car, substeps=substeps)
        assert not any(s.health), (substeps, s.health)


def test_a_wheel_pressed_far_up_a_tilted_axis_gains_no_energy():
    """tilted_landing (seed 5's set 1881): a 3.8 t body on 126 kg wheels, 0.47 m between its axles, links whose
    path runs up to 45 degrees across the body, and 1.94e6 N/m front tires. Landing on its side it presses a wheel
    0.3 m into its tire up an axis at 60 degrees to the ground. The ground's push acted under the rigid wheel (0.5 m
    off the wheel's own line), the bar's push was held where its partner's spring was off its seat, and the push's
    work along the links' path went unpaid: these drops rose 100 - 390 kJ above their start. Now (§7.2, "Where the
    ground pushes") no drop rises by a fortieth of the least potential energy it starts with, at 1 substep or 2."""
    car = sim.load_vehicle(TUMBLERS / "tilted_landing.toml")
    start = sim.total_mass(car) * 9.81 * 5.0
    for substeps in (1, 2):
        s, rise = drops(car, substeps=substeps)
        assert not any(s.health), (substeps, s.health)
        assert rise.max() < start / 40.0, (substeps, rise.max())


def test_a_light_wheel_on_a_stiff_bump_stop_damper_gains_no_energy():
    """light_stopped_wheels (seed 1's set 768): 3.45 kg rear wheels whose travel limit damps at 173 kN s/m (critical
    for the body's corner on its bump stop: h c / m = 104 for the wheel at 1/480 s). Taken explicitly the stop's
    damping flung the wheel off its stop at 22 m/s, and with the bar and damper acting both ways the wheel blew
    up (2 639 kJ in the fuzz's drive); these drops tripped the watchdog 3 and 10 times in 16 (the code before, 1
    and 1). Now the stop's damping is in the wheel's implicit step, a damper that would stop the wheel within a
    substep stops it there (`damped_share`), and no drop rises by a fortieth of its start."""
    car = sim.load_vehicle(TUMBLERS / "light_stopped_wheels.toml")
    start = sim.total_mass(car) * 9.81 * 5.0
    for substeps in (1, 2):
        s, rise = drops(car, seed=1, substeps=substeps)
        assert not any(s.health), (substeps, s.health)
        assert rise.max() < start / 40.0, (substeps, rise.max())


def test_a_surface_met_from_the_air_is_taken_up_at_most_a_quarter_radius_at_once():
    """A wheel of radius 0.3 m hanging at l_max = 0.5 m (its last contact: l_max) finds the ground at l_raw = 0.1 m:
    it sits LANDING_REACH r = 0.075 m into it, so 0.5 - 0.1 - 0.075 = 0.325 m of the surface waits; a nearer
    surface by less than the reach is taken as it is; a grounded wheel keeps what it has left to roll out."""
    assert LANDING_REACH == 0.25
    assert landing_sink(0.5, 0.1, 0.3, 0.0) == pytest.approx(0.325, abs=1e-12)
    assert landing_sink(0.5, 0.45, 0.3, 0.0) == 0.0
    assert landing_sink(0.3, 0.29, 0.3, 0.04) == 0.04                # rolled out slower than it comes
    # rolling: an e-fold a radian, 1 / (1 + omega h): 40 rad/s for one substep of 1/480 s keeps 1 / (1 + 1/12)
    assert sink_rolled(0.12, 40.0, 1.0 / 480.0) == pytest.approx(0.12 * 12.0 / 13.0, rel=1e-12)
    assert sink_rolled(0.12, 0.0, 1.0 / 480.0) == 0.12                 # a wheel that does not roll keeps it


def test_an_avs_wheel_is_turned_by_the_ground_only_as_fast_as_its_grip_allows():
    """The AVS family rolls its wheel with the ground (docs/models.md). Set down at 20 m/s with its wheels still, it
    may not be spun to the road's speed in one substep: the ground turns it by at most (mu Fz rho + |T_drive| +
    T_brake) h / Iw a substep. Taken at once, the wheels' spin came from nowhere and the spin ledger turned the
    body with it: a random tuning's locked rear axle, one wheel in the air, spun up from 3 to 86 rad/s in 0.1 s as
    the tumbling body turned and blew up at 1 substep."""
    car = sim.load_vehicle("hatchback")
    for axle in ("front_tire", "rear_tire"):
        car = sim.with_value(car, f"{axle}.model", "avs")
    s = sim.Simulation(car, sim.load_world("flat"), dt=1 / 240, substeps=1)
    s.set_state(position=(0.0, 0.0, sim.rest_com_height(car)), velocity=(20.0, 0.0, 0.0), wheel_spin=0.0)
    iw = np.array([car.front_tire.wheel_inertia] * 2 + [car.rear_tire.wheel_inertia] * 2)
    omega = np.zeros(4)
    for _ in range(120):
        s.step(sim.Controls())
        tel = s.telemetry
        now = np.array(tel.omega, dtype=float).reshape(-1)           # (a copy: telemetry is a live view)
        reach = (np.asarray(tel.mu).reshape(-1) * np.asarray(tel.Fz).reshape(-1) * np.asarray(tel.rho).reshape(-1)
                 + np.abs(np.asarray(tel.T_drive).reshape(-1)) + np.asarray(tel.T_brake).reshape(-1)) / 240.0 / iw
        assert np.all(np.abs(now - omega) <= reach * 1.05 + 1e-9)
        omega = now
    assert np.all(np.abs(omega * np.asarray(s.telemetry.rho).reshape(-1) - 20.0) < 1.0)   # rolling with it by then


def test_a_body_resting_on_its_roof_is_held_by_the_penalty_of_the_points_it_rests_on():
    """The hull's penalty is held to what the step integrates stably, h^2 k lam + 2 h c lam <= HULL_LOAD_CAP
    (docs/physics.md §10), with lam the fastest mode per unit of stiffness. A random tuning (tests/data/tumblers/
    far_forward_com.toml: hull points 5.2 m behind the centre of mass, 280 kg m^2 of yaw) has a worst mode, its
    side lying on a wall, of 0.267 /kg, which held its 38 MN/m penalty to 99 kN/m: upside down at 1 substep its
    roof sank 4.4 cm and, standing on its nose in the fuzz, 0.3 m into the ground (the watchdog: sunk). The four
    roof points it rests on move at sum 1/m + (r x n) . I^-1 (r x n) = 0.025 /kg, and held for them the penalty is
    1.0 MN/m: the body rests less deep than its whole weight on one of them would press it."""
    car = sim.load_vehicle(TUMBLERS / "far_forward_com.toml")
    ch = car.chassis
    s = sim.Simulation(car, sim.load_world("flat"), dt=1 / 240, substeps=1, watchdog="flag", check_stability=False)
    top = ch.floor_z + ch.height - ch.com_z
    s.set_state(position=(0.0, 0.0, top + 0.02), orientation=(0.0, 1.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0),
                angular_velocity=(0.0, 0.0, 0.0))                   # upside down, 2 cm above the ground
    for _ in range(720):
        s.step(sim.Controls(gear=0))
    roof = sim.model.geometry.hull_points(car)[8:12]
    down = np.array([0.0, 0.0, -1.0])                                # the ground's push, body frame
    lam = sum(1.0 / ch.mass + np.dot(np.cross(r, down) ** 2, 1.0 / np.array([ch.inertia_roll, ch.inertia_pitch,
                                                                                ch.inertia_yaw])) for r in roof)
    assert lam == pytest.approx(0.0254, rel=0.01)
    k, _ = held_penalty(car.collision.stiffness, car.collision.damping, lam, 1 / 240)
    depth = float(s.tables.body_telemetry[0, T.TB_HULL_DEPTH])
    assert 0.0 < depth <= sim.total_mass(car) * 9.81 / k             # 3.7 cm; before: 4.4 cm
    assert s.health[0] == ""


def test_a_hull_too_soft_for_the_cars_weight_is_raised_to_carry_it_on_two_points():
    """collision.stiffness's range starts at 1e5 N/m a point; a 4.5 t car on it, standing on two hull points (a
    random tuning, seed 1's set 129, on its nose), sank 0.26 m, deeper than its 0.2 m wheels: the watchdog's
    sunk body. The kernel starts from at least W / r_min, two points carrying the weight half a radius deep (here a
    5 t hatchback on 0.22 m wheels, which on 1e5 N/m and two points would sink 0.25 m)."""
    car = sim.with_value(sim.load_vehicle("hatchback"), "chassis.mass", 5000.0)
    for axle in ("front_tire", "rear_tire"):
        car = sim.with_value(car, f"{axle}.radius", 0.22)
    car = sim.with_value(car, "collision.stiffness", 1.0e5)
    r = min(car.front_tire.radius, car.rear_tire.radius)
    w = sim.total_mass(car) * 9.81
    assert sim.model.geometry.hull_stiffness(car, 9.81) == pytest.approx(w / r, rel=1e-12)
    assert w / (2.0 * 1.0e5) > r                                      # the setting alone: deeper than a radius
    s = sim.Simulation(car, sim.load_world("flat"), dt=1 / 240, substeps=2, check_stability=False)
    assert s.tables.vehicle_params[0, T.VP_HULL_K] == pytest.approx(w / r, rel=1e-12)
    light = sim.load_vehicle("hatchback")                             # the presets keep theirs
    assert sim.model.geometry.hull_stiffness(light, 9.81) == light.collision.stiffness
