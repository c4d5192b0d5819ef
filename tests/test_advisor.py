"""Issue 28: nothing the loader and the advisor accept may blow up. Each class of refusal with its minimal
example, and what is held or bounded instead of refused (docs/physics.md §16): springs that cannot hold
the car, tire curves that push the way the tire slides, ground no car can stand on, spawns inside
something, the hull penalty and the bump stops held to what the step integrates, and the work ledger
that names the force that put energy in."""
import math
from pathlib import Path

import numpy as np
import pytest
from bodies import LIGHT_PITCH
from bodies import lift_pressure_rule
from bodies import light_body
from bodies import massless
from bodies import unheld

import sim
from app import fuzz_params
from app import fuzz_worlds
from app.session import ground_height
from sim.kernel import tables as T
from sim.model import tire_curves
from sim.model.checks import with_value

HATCH = massless(sim.load_vehicle("hatchback"))     # the massless wheels these figures were worked out on
DATA = Path(__file__).parent / "data"
# a body-collision penalty far stiffer than the step integrates: the kernel holds it (no blow-up)
PITCH_HELD = 22.0          # kg m^2: a light body (tests/bodies.py) whose 10 k bump stops the kernel must hold
STIFF_HULL = with_value(with_value(HATCH, "collision.stiffness", 1e8), "collision.damping", 1e7)


def on_its_roof(s, v=0):
    """Turn vehicle v upside down 1 m above the ground, at rest."""
    b = s.tables.body_state
    b[v, T.BS_QW:T.BS_QZ + 1] = (0.0, 1.0, 0.0, 0.0)
    b[v, T.BS_PZ] = 1.0
    b[v, T.BS_VX:T.BS_WZ + 1] = 0.0


def drives_clean(cars, world="flat", seconds=10.0, seed=1):
    """What the watchdog said of each car after `seconds` of aggressive random driving from random spots."""
    return fuzz_params.drive(list(cars), sim.load_world(world), 2, seconds, np.random.default_rng(seed))


def test_springs_that_cannot_hold_the_car_are_noted_and_the_car_rests_on_its_stops_and_hull():
    car = with_value(with_value(HATCH, "chassis.mass", 5000.0), "front_suspension.k", 1000.0)
    r = sim.advisor.report(car, 1 / 240, 2)
    # by hand: k (l0 - l_min + r) + 10 k r = 1000 (0.261 + 0.3) + 10000 x 0.3 = 3561 N against the front
    # wheels' static load m g b / L / 2
    front = 5000.0 * 9.81 * (car.chassis.com_x - car.rear_axle.x) / car.wheelbase / 2
    hold = next(i for i in r.items if i.part == "front springs holding the car")
    capacity = 1000.0 * (min(car.front_suspension.l0, car.front_suspension.l_max) - car.front_suspension.l_min
                         + car.front_tire.radius) + 10000.0 * car.front_tire.radius
    assert hold.margin == pytest.approx(capacity / front, rel=1e-9) and hold.margin < 1.0
    assert not hold.refuses and r.stable and "noted" in hold.why      # bounded: the stops and the hull hold it
    s = sim.Simulation(car, sim.World.flat())
    s.reset(position=(0.0, 0.0, sim.spawn_height(car, 0.0, 0.0, 0.0, lambda x, y: 0.0)))
    for _ in range(720):
        s.step(sim.Controls(brake=1.0))
    b, bt = s.tables.body_state[0], s.tables.body_telemetry[0]
    weight = 5000.0 * 9.81
    # at rest (Newton): the ground's push through springs, stops and hull balances the weight
    up = sum(bt[col + 2] for name, col in T.EXTERNAL_FORCES.items() if name != "gravity")
    assert np.linalg.norm(b[T.BS_VX:T.BS_VZ + 1]) < 0.01 and up == pytest.approx(weight, rel=0.01)
    assert drives_clean([car] * 4) == [""] * 4


def test_a_heavy_car_on_its_bump_stops_and_a_centre_of_mass_far_to_one_side_stay_bounded():
    heavy = with_value(HATCH, "chassis.mass", 5000.0)                  # the top of the range on the hatchback's springs
    side = HATCH
    for path, value in (("chassis.com_y", 0.5), ("front_suspension.anti_roll", 5e5), ("rear_suspension.anti_roll", 5e5),
                        ("front_suspension.force_along", "axis"), ("rear_suspension.force_along", "axis")):
        side = with_value(side, path, value)
    assert sim.advisor.report(heavy, 1 / 240, 2).stable and sim.advisor.report(side, 1 / 240, 2).stable
    assert drives_clean([heavy] * 4 + [side] * 4) == [""] * 8
    assert drives_clean([heavy] * 4 + [side] * 4, "proving_ground", seed=2) == [""] * 8


def test_every_familys_default_curves_oppose_the_slip():
    for model in ("linear", "magic", "simple", "mf96", "mf61", "chaos", "avs"):
        tire = with_value(HATCH, "front_tire.model", model).front_tire
        assert tire_curves.axle_fault(tire, 3500.0) is None, model


def test_the_magic_formula_fits_are_held_to_their_slip_range():
    # MF-Tyre holds kappa to the property file's [KPUMIN, KPUMAX]: a wheel spinning at 7x the road speed gets
    # the force of one at 2x (kappa 1), for both families, pure and combined
    for model in ("mf96", "mf61"):
        tire = with_value(HATCH, "front_tire.model", model).front_tire
        at = lambda kappa, alpha, t=tire: tire_curves.forces(t, kappa, alpha, 3500.0, 0.0)   # noqa: E731
        for alpha in (0.0, 0.1):
            assert at(6.0, alpha) == at(1.0, alpha) and at(-3.0, alpha) == at(-1.0, alpha)
        assert at(0.5, 0.0) != at(1.0, 0.0)


def test_a_tire_curve_that_pushes_the_way_it_slides_is_refused_with_the_slip(monkeypatch):
    lift_pressure_rule(monkeypatch)           # the rule refuses dpi = 4/3 first; the curve check is the line behind it
    car = HATCH
    for path, value in (("front_tire.model", "mf61"), ("front_tire.pressure", 3.5e5),
                        ("front_tire.nominal_pressure", 1.5e5), ("front_tire.ppx1", -1.5), ("front_tire.ppx2", -1.5)):
        car = with_value(car, path, value)
    # by hand: Kx is scaled by 1 + ppx1 dpi + ppx2 dpi^2 = 1 - 1.5 (4/3) - 1.5 (16/9) < 0 at dpi = 4/3: the
    # slip stiffness turns negative and a locked wheel is pushed the way it slides
    dpi = (3.5e5 - 1.5e5) / 1.5e5
    assert 1.0 - 1.5 * dpi - 1.5 * dpi * dpi < 0.0
    with pytest.raises(sim.ConfigError, match=r"front_tire\.\w+: front tire curves .* longitudinal force pushes the "
                                               r"way it slides .* at kappa = -?\d"):
        sim.Simulation(car, sim.World.flat())
    found = tire_curves.axle_fault(car.front_tire, 3500.0)
    fx, _ = tire_curves.forces(car.front_tire, found[1].kappa, found[1].alpha, found[1].load, 0.0)
    assert fx * found[1].kappa < 0.0        # recomputed: a sound tire's Fx has the sign of kappa, this one's not


@pytest.mark.parametrize("plane, slope", [("slope_deg = 80.0", 80.0), ("normal = [1.0, 0.0, 0.02]", 88.9)])
def test_ground_no_car_can_stand_on_is_refused_naming_the_file(tmp_path, plane, slope):
    path = tmp_path / "tilted.toml"
    path.write_text(f'name = "tilted"\ngravity = 9.81\nspawn = [[0.0, 0.0, 0.0]]\n[surfaces]\n'
                    f'asphalt = {{ mu = 1.0 }}\n[[plane]]\nsurface = "asphalt"\npoint = [0.0, 0.0, 0.0]\n{plane}\n')
    steepest = math.degrees(math.atan(1.0))                            # mu 1: a tire of grip 1 holds 45 deg
    with pytest.raises(sim.ConfigError, match=rf"tilted\.toml: plane\[0\] is sloped {slope:.1f} deg.* at most "
                                               rf"{steepest:.1f} deg"):
        sim.load_world(path)


def test_a_spawn_beside_a_plateau_starts_clear_of_it():
    world = sim.load_world("proving_ground")
    x, y, yaw = 53.9, -34.2, math.radians(142.0)        # the centre just off "plateau 10", the car's corner over it
    z = sim.spawn_height(HATCH, x, y, yaw, lambda px, py: ground_height(world, px, py))
    assert ground_height(world, x, y) == 0.0 and z > sim.rest_com_height(HATCH) + 0.5
    s = sim.Simulation(HATCH, world, dt=1 / 240, substeps=2, watchdog="flag")
    s.reset(position=(x, y, z), yaw=yaw)
    s.step()
    assert s.telemetry.hull_depth == 0.0                              # nothing starts inside the plateau
    s.run(np.zeros((480, 4)))
    assert s.health == [""]


def test_bump_stops_too_stiff_for_the_step_are_held_not_refused():
    car = light_body(pitch=PITCH_HELD)     # the springs keep their margin at 2 substeps, the 10 k stops would not
    r = sim.advisor.report(car, 1 / 240, 2)
    springs = next(i for i in r.items if i.part == "suspension springs and dampers")
    stops = next(i for i in r.items if i.part == "suspension with the bump stops engaged")
    assert springs.stable and stops.bounded and stops.margin >= 1.25
    assert r.stable and any("bump stops" in n and "held" in n for n in r.notes)
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car) + 1.0))    # dropped 1 m: onto its bump stops
    s.run(np.zeros((1200, 4)))
    assert s.health == [""] and np.linalg.norm(s.state.velocity) < 0.05


def test_a_penalty_stiffer_than_the_step_is_held_not_refused():
    r = sim.advisor.report(STIFF_HULL, 1 / 240, 2)
    assert r.stable and any("collision.stiffness" in n for n in r.notes)
    s = sim.Simulation(STIFF_HULL, sim.World.flat(), dt=1 / 240, substeps=2)
    on_its_roof(s)
    s.run(np.zeros((1200, 4)))                           # 5 s on its roof: it lands and lies still
    assert s.health[0] == "" and np.linalg.norm(s.state.velocity) < 0.01




def test_the_work_ledger_accounts_for_the_energy_the_body_gains():
    """Work done on the body by each kind of force (sim/kernel/work.py) sums to its gain of kinetic and
    potential energy: full throttle from rest for 5 s, no air (so no drag), from the settled car."""
    car = with_value(HATCH, "aero.air_density", 0.0)
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    s.run(np.zeros((480, 4)))                                    # settle
    m, g = car.chassis.mass, 9.81

    def energy():
        w_body = np.asarray(s.state.angular_velocity)        # small: the roll and pitch of the launch
        inertia = np.array([car.chassis.inertia_roll, car.chassis.inertia_pitch, car.chassis.inertia_yaw])
        return 0.5 * m * np.sum(np.asarray(s.state.velocity) ** 2) + m * g * s.state.position[2] + \
            0.5 * float(np.sum(inertia * w_body ** 2))

    e0, w0 = energy(), s.tables.body_telemetry[0, T.TB_WORK_SUSPENSION:T.TB_WORK_SPIN + 1].copy()
    s.run(np.tile([1.0, 0.0, 0.0, 0.0], (1200, 1)))
    work = s.tables.body_telemetry[0, T.TB_WORK_SUSPENSION:T.TB_WORK_SPIN + 1] - w0
    gained = energy() - e0
    assert gained > 100e3                                          # J: about 30 m/s
    assert work[1] == pytest.approx(gained, rel=0.02)              # the tires did it
    assert abs(work.sum() - gained) < 0.01 * gained                # and the ledger adds up


def test_the_watchdog_names_the_force_that_put_the_energy_in():
    s = unheld(sim.Simulation(LIGHT_PITCH, sim.World.flat(), dt=1 / 240, substeps=2, check_stability=False))
    s.reset(position=(0.0, 0.0, sim.rest_com_height(LIGHT_PITCH) + 0.05))
    with pytest.raises(sim.BlowUp, match="the suspension forces did"):
        s.run(np.zeros((2400, 4)))


def test_a_small_sample_of_random_worlds_is_refused_with_a_reason_or_drives():
    tally = fuzz_worlds.fuzz_worlds(12, seed=3, seconds=2.0)
    assert tally.worlds == 12 and tally.refused_by_loader + tally.refused_for_the_car + tally.drove == 12
    assert tally.drove > 0 and tally.blew_up == 0


@pytest.mark.parametrize("gravity", [0.0, sim.World.GRAVITY_MAX])
def test_a_world_at_the_loaders_gravity_bounds_drives(gravity):
    """Weightless (the loader's lower bound: a world at 0 once divided by it working out the stability
    control's understeer) and three times the Earth's: the hatchback drives 2 s of throttle and steering."""
    flat = sim.World.flat()
    world = sim.World("bound", flat.surfaces, planes=flat.planes, gravity=gravity)
    s = sim.Simulation(sim.load_vehicle("hatchback"), world, dt=1 / 240, substeps=2)
    s.reset()
    s.run(np.tile([0.8, 0.0, 0.5, 0.0], (480, 1)))
    assert s.health[0] == "" and np.all(np.isfinite(np.asarray(s.state.position, dtype=float)))


def test_a_wheel_beside_a_plateaus_edge_starts_clear_of_it():
    """A 30 cm plateau whose edge runs 5 cm outside the right rear wheel's centre (the ground under the
    centre is the floor, the tire's outer side is over the plateau): the spawn lifts the car until that
    wheel's sphere clears the edge, sqrt(r^2 - 0.05^2) above the plateau, so no spring starts past its rest
    length (a random car's started 0.7 m deep in its bump stop: 1.1 MN, a launch)."""
    flat = sim.World.flat()
    geometry = sim.model.geometry.wheel_geometry(HATCH)
    edge_y = geometry.anchor[3][1] - 0.05                   # body frame y of the plateau's edge (the car heads +x)
    world = sim.World("plateau", flat.surfaces, planes=flat.planes, boxes=[
        sim.model.world.Box(flat.surfaces[0].name, (0.0, edge_y - 5.0, 0.15), (20.0, 10.0, 0.3))])
    z = sim.spawn_height(HATCH, 0.0, 0.0, 0.0, lambda px, py: ground_height(world, px, py))
    r = geometry.radius[3]
    assert z == pytest.approx(sim.rest_com_height(HATCH) + 0.3 + math.sqrt(r * r - 0.05 ** 2) - r, abs=0.005)
    s = sim.Simulation(HATCH, world, dt=1 / 240, substeps=2, watchdog="flag")
    s.reset(position=(0.0, 0.0, z))
    s.step()
    assert s.telemetry.l_raw[3] >= HATCH.rear_suspension.l0 - 0.01            # not pressed into its spring
    s.run(np.zeros((480, 4)))
    assert s.health == [""]


def test_a_car_under_a_heightfields_overhang_is_not_inside_it():
    """A ground plane tilted down under a heightfield (a random world's): 15 m below its surface the car
    is under an overhang, not 15 m inside the ground (which launched it with megajoules)."""
    world = sim.World("overhang", [sim.model.world.Surface("asphalt", 1.0)],
                      planes=[sim.model.world.Plane("asphalt", normal=(math.sin(0.25), 0.0, math.cos(0.25)))],
                      heightfields=[sim.model.world.Heightfield("asphalt", (40.0, -20.0, 0.0), (1.0, 1.0),
                                                                np.zeros((41, 41)))])
    x = 60.0
    z = -x * math.tan(0.25) + sim.rest_com_height(HATCH)           # on the plane, 15 m under the heightfield
    s = sim.Simulation(HATCH, world, dt=1 / 240, substeps=2, watchdog="flag")
    s.reset(position=(x, 0.0, z))              # (reset lifts a car onto the highest surface: put it back)
    s.tables.body_state[0, T.BS_PZ] = z
    s.run(np.zeros((240, 4)))
    assert s.state.position[2] < -10.0                     # still on the plane, under the heightfield
    assert s.telemetry.hull_depth < 0.05 and s.health == [""]


def braked_from(car, speed=20.0, seconds=6.0):
    """`car` on the flat at `speed`, braked hard with the clutch open and no ABS (the wheels lock), checked
    by the watchdog but not the advisor."""
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2, watchdog="flag", check_stability=False)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=speed, gear=0)
    for _ in range(int(seconds * 240)):
        s.step(sim.Controls(brake=1.0, clutch=1.0))
    return s


def test_locked_wheels_turn_the_cars_kinetic_energy_into_the_tires_slip_loss():
    """A car stopped on locked wheels: the tires' sliding loses its kinetic energy (less what drag and rolling
    resistance take), and makes none."""
    s = braked_from(HATCH)
    kinetic = 0.5 * HATCH.chassis.mass * 20.0 ** 2
    made, lost = s.tables.body_telemetry[0, T.TB_TIRE_MADE], s.tables.body_telemetry[0, T.TB_TIRE_LOST]
    assert np.linalg.norm(s.state.velocity) < 0.01 and s.health == [""]
    assert made == 0.0 and 0.9 * kinetic < lost < kinetic


def test_a_tire_that_makes_energy_is_refused_and_named_by_the_watchdog_when_run_anyway(monkeypatch):
    """A random MF 6.1 tire (from `app.fuzz params`, seed 1, 72 % over its nominal pressure) whose longitudinal
    curve pushes forward on a locked wheel: the loader refuses its pressure; past that rule the advisor refuses
    it with the slip where it fails; run anyway, the braked car speeds up and the watchdog names the tires."""
    with pytest.raises(sim.ConfigError, match=r"energy_tire.toml: front_tire.pressure = 323612 is not allowed; "
                                               r"expected within 40% of front_tire.nominal_pressure"):
        sim.load_vehicle(str(DATA / "energy_tire.toml"))
    lift_pressure_rule(monkeypatch)
    car = sim.load_vehicle(str(DATA / "energy_tire.toml"))
    with pytest.raises(sim.ConfigError, match=r"energy_tire.toml: .*tire curves opposing the slip.*kappa = -1"):
        sim.advisor.check(car, 1 / 240, 2)
    s = braked_from(car)
    assert "tires that made" in s.health[0] and np.linalg.norm(s.state.velocity) > 20.0


def test_the_mf61_fit_is_fed_camber_within_its_measured_range():
    """MF-Tyre holds the inclination to the range its property file was measured over (+-15 deg here): a
    body rolled further feeds the fit 15 deg, where its camber terms would otherwise extrapolate."""
    from sim.kernel.tire.mf_combined import mf_pure
    tire = with_value(HATCH, "front_tire.model", "mf61").front_tire
    p = tire_curves.mf_coefficient_block(tire)

    def fy(deg):
        sg = math.sin(math.radians(deg))
        return mf_pure(tire_curves.MODEL_MF61, 0.0, -0.2, p, 1.0, 4000.0, tire.nominal_load, sg)

    assert fy(30.0) == fy(15.0) and fy(-40.0) == fy(-15.0)
    assert fy(10.0) != fy(15.0) and fy(0.0) != fy(10.0)


def test_a_blow_up_carries_the_state_and_controls_that_reproduce_it():
    s = unheld(sim.Simulation(LIGHT_PITCH, sim.World.flat(), dt=1 / 240, substeps=2, check_stability=False))
    s.reset(position=(0.0, 0.0, sim.rest_com_height(LIGHT_PITCH) + 0.05))
    with pytest.raises(sim.BlowUp) as first:
        s.run(np.zeros((2400, 4)))
    e = first.value
    assert e.snapshot is not None and e.snapshot.time < s.time
    assert len(e.controls) == round((s.time - e.snapshot.time) * 240)
    again = unheld(sim.Simulation(LIGHT_PITCH, sim.World.flat(), dt=1 / 240, substeps=2, check_stability=False))
    again.restore(e.snapshot)
    with pytest.raises(sim.BlowUp) as second:
        again.run(e.controls)
    assert str(second.value) == str(e) and again.state_hash() == s.state_hash()


def test_a_camber_thrust_shifts_the_lateral_zero_and_the_drift_towards_it_is_allowed():
    """With camber the mf61 curve is Fy = -MF(alpha - sh) with sh = K_gamma sin(gamma) / K_y (no vertical
    shift, pressure at its nominal value): between zero slip and sh the force pushes the way the tire slides,
    but only towards sh, where the slip settles (a drift, as a cambered wheel's thrust gives), so it is not
    a fault; measured from zero slip it would be."""
    car = HATCH
    for path, value in (("front_tire.model", "mf61"), ("front_tire.pky6", 2.0), ("front_tire.pky1", 8.0),
                        ("front_tire.pky3", 0.0), ("front_tire.pvy3", 0.0), ("front_tire.pvy4", 0.0),
                        ("front_tire.pky7", 0.0), ("front_tire.pky5", 0.0)):
        car = with_value(car, path, value)
    t = car.front_tire
    fz, gamma = 3.0 * t.nominal_load, math.radians(6.0)      # K_y saturates with load, K_gamma does not
    sg = math.sin(gamma)
    # by hand: K_y = pky1 Fz0 sin(pky4 atan(Fz / (pky2 Fz0))), K_gamma = Fz pky6 (dfz = 0)
    ky = t.pky1 * t.nominal_load * math.sin(t.pky4 * math.atan(fz / (t.pky2 * t.nominal_load)))
    sh = fz * t.pky6 * sg / ky
    assert tire_curves.SLIP_BAND < sh < tire_curves.ZERO_SHIFT_MAX
    assert tire_curves.lateral_zero(t, fz, sg) == pytest.approx(sh, abs=1e-6)
    alpha = 1.1 * tire_curves.SLIP_BAND
    _, fy = tire_curves.forces(t, 0.0, alpha, fz, sg)
    assert fy > tire_curves.FORCE_BAND * t.grip * fz            # along the slip, beyond the band ...
    assert tire_curves.fault_at(t, 0.0, alpha, fz, gamma, fz) is None      # ... but towards its zero: allowed
    assert tire_curves.fault_at(t, 0.0, -alpha, fz, gamma, fz) is None


def test_a_sliding_mf61_tire_never_pushes_the_way_it_slides_whatever_its_camber():
    """Past MF61_SLIDING_ALPHA (15 deg) the whole contact patch slides and its force opposes the sliding: a
    camber thrust that outgrows the cornering force (camber stiffness growing with load, cornering stiffness
    saturating) still pushes a leaning tire sideways below it, never past it."""
    from sim.kernel.tire.mf61 import MF61_SLIDING_ALPHA
    car = HATCH
    for path, value in (("front_tire.model", "mf61"), ("front_tire.pky6", 2.0), ("front_tire.pky7", 1.0),
                        ("front_tire.pky1", 8.0)):
        car = with_value(car, path, value)
    t = car.front_tire
    fz, sg = 3.0 * t.nominal_load, math.sin(math.radians(15.0))
    below, past = MF61_SLIDING_ALPHA - math.radians(1.0), MF61_SLIDING_ALPHA + math.radians(1.0)
    assert tire_curves.forces(t, 0.0, below, fz, sg)[1] > 0.0           # the thrust wins over the slip ...
    assert tire_curves.lateral_zero(t, fz, sg) is None or tire_curves.lateral_zero(t, fz, sg) > below
    for alpha in (past, math.radians(30.0), math.radians(60.0)):
        assert tire_curves.forces(t, 0.0, alpha, fz, sg)[1] <= 0.0     # ... but not once the patch slides
        assert tire_curves.forces(t, 0.0, -alpha, fz, -sg)[1] >= 0.0
