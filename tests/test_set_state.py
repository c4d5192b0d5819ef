"""Any state through the public API (issue 30 item 5): set_state, a world built in code, shape names, the
default substeps."""
import math

import numpy as np
import pytest
from bodies import massless
from bodies import without_linkage

import sim


def rotation(q):
    """R(q) for a unit quaternion (w, x, y, z), written out here (not the kernel's)."""
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def hand_momentum(car, q, w, wheel_spin, engine_omega):
    """H about the centre of mass, world (docs/physics.md §12): R I R^T w + sum Iw omega_i R u_i + Ie omegaE R x,
    u_i the axle (0, cos c_i, sin c_i) turned by its side-signed camber c_i about body x."""
    r = rotation(q)
    ch = car.chassis
    h = r @ np.diag([ch.inertia_roll, ch.inertia_pitch, ch.inertia_yaw]) @ r.T @ np.asarray(w)
    for i in range(4):
        tire, sus = (car.front_tire, car.front_suspension) if i < 2 else (car.rear_tire, car.rear_suspension)
        c = math.radians(sus.camber_deg) * (-1.0 if i % 2 == 0 else 1.0)     # left wheels FL, RL: -camber
        h = h + tire.wheel_inertia * wheel_spin[i] * (r @ np.array([0.0, math.cos(c), math.sin(c)]))
    return h + car.engine.inertia * engine_omega * (r @ np.array([1.0, 0.0, 0.0]))


@pytest.mark.parametrize("gear", [0, 2])
def test_a_car_set_spinning_in_the_air_keeps_the_angular_momentum_it_was_given(gear):
    # high above flat ground, tilted, tumbling about an axis that is no principal one, every wheel at a
    # speed of its own: no contact, and gravity has no torque about the centre of mass
    # the geometry off: in the air the wheels hang at full droop, where the camber and toe curves would turn
    # their axles away from hand_momentum's camber-only axle; massless wheels: with the preset's wheels of their own
    # mass the ledger does not close in the air (tests/test_scenarios.py, FLIGHT; docs/physics.md §7.2)
    car = sim.with_value(without_linkage(massless(sim.load_vehicle("hatchback"))), "front_suspension.camber_deg", -1.5)
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=sim.DEFAULT_SUBSTEPS)
    s.reset(position=(0.0, 0.0, 200.0))
    s.set_switches(aero=False)          # downforce acts at the axles: a torque about the centre of mass
    q = sim.yaw_pitch_roll(0.7, 0.35, -0.5)
    w = np.array([0.9, -1.4, 0.6])
    spin = np.array([60.0, -25.0, 110.0, 15.0])
    s.set_state(orientation=q, angular_velocity=w, velocity=(3.0, -1.0, 2.0), wheel_spin=spin, gear=gear)
    assert s.state.gear == gear
    omega_e = s.state.engine_omega
    if gear == 0:
        assert omega_e == pytest.approx(car.engine.idle_rpm * sim.RAD_S_PER_RPM)       # neutral: idle
    else:
        split = {"rwd": 0.0, "fwd": 1.0, "awd": car.drive.centre_split}[car.drive.layout]
        shaft = split * spin[:2].mean() + (1 - split) * spin[2:].mean()
        ratio = car.gearbox.ratios[gear - 1] * car.gearbox.final_drive
        assert omega_e == pytest.approx(max(ratio * abs(shaft), car.engine.idle_rpm * sim.RAD_S_PER_RPM), rel=1e-12)
    h0 = hand_momentum(car, q, w, spin, omega_e)
    scale = np.linalg.norm(h0)
    assert s.telemetry.H_total == pytest.approx(h0, abs=1e-12 * scale)       # the ledger of the state set
    assert np.linalg.norm(s.telemetry.H_wheels) > 0.03 * scale               # the wheels' share is no rounding
    s.run(np.zeros((int(2.0 / s.dt), 4)))                                    # 2 s of free flight, no input
    assert np.all(s.telemetry.grounded == 0.0) and s.state.position[2] > 150.0
    assert np.linalg.norm(s.telemetry.H_total - h0) / scale < 2e-9
    # and it did tumble: the body's own momentum turned, not only kept
    assert np.linalg.norm(s.telemetry.H_body - (h0 - s.telemetry.H_wheels - s.telemetry.H_engine)) < 1e-8 * scale
    assert np.linalg.norm(s.state.orientation - q) > 0.5


def test_set_state_reads_back_exactly_and_keeps_what_is_not_given():
    s = sim.Simulation(sim.load_vehicle("boxster_s"), sim.World.flat(), n_vehicles=2)
    s.reset(position=[(0.0, 0.0, 1.0), (10.0, 0.0, 1.0)])
    before = s.snapshot()
    v, w, spin = (1.25, -3.5, 0.125), (0.1, 0.2, -0.3), (1.0, 2.0, 3.0, 4.0)
    s.set_state(1, velocity=v, angular_velocity=w, wheel_spin=spin)
    assert list(s.state.velocity[1]) == list(v) and list(s.state.angular_velocity[1]) == list(w)
    assert list(s.state.wheel_omega[1]) == list(spin)
    assert np.array_equal(s.state.position[1], before.body_state[1, :3])       # kept
    assert np.array_equal(s.state.orientation[1], before.body_state[1, 3:7])
    assert np.array_equal(s.tables.body_state[0], before.body_state[0])         # the other car untouched
    s.set_state(orientation=[(1.0, 0.0, 0.0, 0.0), sim.yaw_pitch_roll(yaw=math.pi / 2)],
                position=[(0.0, 0.0, 2.0), (5.0, 5.0, 2.0)])
    assert s.state.orientation[1] == pytest.approx((math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)), abs=1e-15)
    assert list(s.state.position[1]) == [5.0, 5.0, 2.0]
    # a nearly unit quaternion is normalised
    s.set_state(0, orientation=(0.9659, 0.0, 0.2588, 0.0))
    assert np.linalg.norm(s.state.orientation[0]) == pytest.approx(1.0, abs=1e-15)
    s.step()
    assert s.finite() and s.health == ["", ""]


def test_yaw_pitch_roll_turns_as_documented():
    r = rotation(sim.yaw_pitch_roll(yaw=0.3))
    assert r @ [1, 0, 0] == pytest.approx([math.cos(0.3), math.sin(0.3), 0.0])          # + turns left
    assert (rotation(sim.yaw_pitch_roll(pitch=0.2)) @ [1, 0, 0])[2] < 0.0                # + nose down
    assert (rotation(sim.yaw_pitch_roll(roll=0.2)) @ [0, -1, 0])[2] < 0.0                # + right side down
    r = rotation(sim.yaw_pitch_roll(0.4, 0.5, 0.6))
    expected = (rotation(sim.yaw_pitch_roll(yaw=0.4)) @ rotation(sim.yaw_pitch_roll(pitch=0.5))
                @ rotation(sim.yaw_pitch_roll(roll=0.6)))
    assert r == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("kwargs, message", [
    ({"velocity": (1.0, 2.0)}, r"set_state: velocity has shape \(2,\); expected \(3,\) or \(1, 3\)"),
    ({"angular_velocity": (0.0, math.nan, 0.0)}, "set_state: angular_velocity = .* expected finite numbers"),
    ({"orientation": (1.0, 0.0, 0.0, 0.1)}, "set_state: orientation = .* has length 1.00498756; expected a unit"),
    ({"orientation": (0.0, 0.0, 0.0, 0.0)}, "set_state: orientation = .* has length 0; expected a unit"),
    ({"wheel_spin": (1.0, 2.0, 3.0)}, r"set_state: wheel_spin has shape \(3,\); expected \(4,\)"),
    ({"gear": 1.5}, "set_state: gear = 1.5 is not allowed"),
    ({"index": 3}, r"index = 3 is not allowed; expected a vehicle index in \[0, 0\]"),
])
def test_set_state_refuses_bad_values_in_one_line_and_changes_nothing(kwargs, message):
    s = sim.Simulation(sim.load_vehicle("hatchback"), sim.World.flat())
    s.reset()
    before = s.state_hash()
    with pytest.raises(ValueError, match=message) as info:
        s.set_state(velocity=(5.0, 0.0, 0.0), **kwargs) if "velocity" not in kwargs else s.set_state(**kwargs)
    assert "\n" not in str(info.value)
    assert s.state_hash() == before


WORLD_TOML = """
name = "small"
gravity = 9.81
spawn = [[0, 0, 0]]

[surfaces]
asphalt = { mu = 1.0 }
steel = { mu = 0.8, rolling = 0.01 }

[[plane]]
surface = "asphalt"
name = "ground"
normal = [0, 0, 1]           # (without it the loader's slope 0 gives the normal's x as -0.0)

[[box]]
name = "turntable"
surface = "steel"
center = [20, 0, -0.4]
size = [8, 8, 1]
angular_velocity = [0, 0, 0.5]

[[box]]
surface = "asphalt"
center = [0, 30, 0]
size = [4, 4, 0.2]
oscillation = [0, 0, 0.1]
period = 2.0

[[heightfield]]
name = "bumps"
origin = [-20, -5, 0]
spacing = 0.5
size = [10, 10]
bump_height = 0.05
bump_wavelength = 2.0
"""


def code_world():
    surfaces = [sim.Surface("asphalt", 1.0, (0.30, 0.31, 0.33)), sim.Surface("steel", 0.8, (0.45, 0.47, 0.52), 0.01)]
    return sim.World("small", surfaces,
                     planes=[sim.Plane("asphalt", name="ground")],
                     boxes=[sim.Box("steel", (20.0, 0.0, -0.4), (8.0, 8.0, 1.0), angular_velocity=(0.0, 0.0, 0.5),
                                    name="turntable"),
                            sim.Box("asphalt", (0.0, 30.0, 0.0), (4.0, 4.0, 0.2), oscillation=(0.0, 0.0, 0.1),
                                    period=2.0)],
                     heightfields=[sim.Heightfield("asphalt", (-20.0, -5.0, 0.0), (0.5, 0.5),
                                                   sim.bumps(10.0, 10.0, 0.5, 0.05, 2.0), name="bumps")],
                     gravity=9.81, spawns=[(0.0, 0.0, 0.0)])


def test_a_world_built_in_code_is_the_toml_world_bit_for_bit(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(WORLD_TOML)
    from_file, in_code = sim.load_world(path), code_world()
    for a, b in zip(from_file.tables(), in_code.tables()):
        assert a.shape == b.shape and a.tobytes() == b.tobytes()
    assert from_file.surfaces == in_code.surfaces and from_file.gravity == in_code.gravity
    hashes = []
    for world in (from_file, in_code):
        s = sim.Simulation(sim.load_vehicle("hatchback"), world)
        s.reset(position=(20.0, 0.0, 0.6), speed=1.0)                # on the turning platform
        s.run(np.tile([0.2, 0.0, 0.3, 0.0], (480, 1)))
        hashes.append(s.state_hash())
        names = {world.shape_name(i) for i in s.telemetry.shape}
    assert hashes[0] == hashes[1]
    assert names == {"turntable"}                                     # telemetry's ids by name


def test_shape_names_follow_the_packing_order():
    world = code_world()
    assert world.shape_names == ["ground", "turntable", "box[1]", "bumps"]
    assert world.shape_name(-1) == "" and world.shape_name(2.0) == "box[1]"
    hit = world.ray_cast((-15.0, 0.0, 5.0), (0.0, 0.0, -1.0), 10.0)
    assert world.shape_name(hit.shape) == "bumps"
    with pytest.raises(ValueError, match=r"shape id 4 is not allowed; expected -1 \(none\) or a whole number in"):
        world.shape_name(4)
    with pytest.raises(ValueError, match="box\\[0\\].surface = 'mud' is not one of its surfaces 'asphalt'"):
        sim.World("w", [sim.Surface("asphalt", 1.0)], boxes=[sim.Box("mud", (0, 0, 0), (1, 1, 1))])


def test_the_default_substeps_is_one_public_constant():
    import inspect

    import app.session
    assert sim.DEFAULT_SUBSTEPS == 2
    assert inspect.signature(sim.Simulation).parameters["substeps"].default == sim.DEFAULT_SUBSTEPS
    assert inspect.signature(app.session.Session).parameters["substeps"].default == sim.DEFAULT_SUBSTEPS
