"""Presets: loading, clear messages for bad files, lossless save, atomic writes."""
import dataclasses
import os
import textwrap

import pytest

import sim
from sim.model import params as P


def write(tmp_path, name, body):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def test_presets_load_and_validate():
    hb = sim.load_vehicle("hatchback")
    bx = sim.load_vehicle("boxster_s")
    assert hb.name == "hatchback" and 1100 <= sim.total_mass(hb) <= 1300 and hb.drive.layout == "rwd"
    # seed 002's Boxster S figures
    assert sim.total_mass(bx) == 1323 + 70                       # the sprung body and the wheels
    assert bx.front_tire.radius == bx.rear_tire.radius == 0.3186
    assert bx.aero.drag_coefficient == 0.31 and bx.aero.frontal_area == 1.94
    assert bx.front_tire.rolling == 0.015
    assert bx.gearbox.ratios == (3.82, 2.20, 1.52, 1.22, 1.02, 0.84) and bx.gearbox.final_drive == 3.44
    assert bx.engine.redline_rpm == 7200
    assert dict(zip(bx.engine.torque_rpm, bx.engine.torque_nm)) == {0.0: 220.0, 1000.0: 220.0,
                                                                     4600.0: 309.2, 7200.0: 227.0}
    for w in ("flat", "proving_ground"):
        assert sim.load_world(w).name == w


@pytest.mark.parametrize("body, key, value, allowed", [
    ("[front_suspension]\nk = -5.0\n", "front_suspension.k", "-5.0", "[1000, 500000] N/m"),
    ("[front_tire]\nmodel = 'pacejka'\n", "front_tire.model", "'pacejka'", "'linear', 'magic'"),
    ("[chassis]\nmass = 'heavy'\n", "chassis.mass", "'heavy'", "[100, 5000] kg"),
    ("[engine]\ntorque_rpm = [0.0, 3000.0, 2000.0]\ntorque_nm = [1.0, 2.0, 3.0]\n", "engine.torque_rpm",
     "[0.0, 3000.0, 2000.0]", "strictly increasing"),
])
def test_bad_value_names_file_key_value_and_range(tmp_path, body, key, value, allowed):
    p = write(tmp_path, "bad.toml", body)
    with pytest.raises(sim.ConfigError) as exc:
        sim.load_vehicle(p)
    msg = str(exc.value)
    assert str(p) in msg and key in msg and value in msg and allowed in msg
    assert "\n" not in msg


def test_unknown_key_and_table_are_named(tmp_path):
    p = write(tmp_path, "typo.toml", "[front_suspension]\nstiffness = 3.0\n")
    with pytest.raises(sim.ConfigError, match=r"unknown key front_suspension\.stiffness.*known keys.*\bk\b"):
        sim.load_vehicle(p)
    p = write(tmp_path, "typo2.toml", "[suspension]\nk = 3.0\n")
    with pytest.raises(sim.ConfigError, match=r"unknown table \[suspension\]"):
        sim.load_vehicle(p)


def test_inconsistent_lengths_are_refused(tmp_path):
    p = write(tmp_path, "l.toml", "[rear_suspension]\nl_min = 0.5\nl_max = 0.4\n")
    with pytest.raises(sim.ConfigError, match=r"rear_suspension\.l_min = 0\.5 must be below"):
        sim.load_vehicle(p)


def test_broken_toml_and_missing_preset(tmp_path):
    p = write(tmp_path, "broken.toml", "[chassis\nmass = 3\n")
    with pytest.raises(sim.ConfigError, match=r"broken\.toml: not valid TOML"):
        sim.load_vehicle(p)
    with pytest.raises(sim.ConfigError, match=r"'lorry' not found; known presets: boxster_s, hatchback"):
        sim.load_vehicle("lorry")


def test_bad_world_file_names_the_shape(tmp_path):
    p = write(tmp_path, "w.toml", """
        [surfaces]
        asphalt = { mu = 1.0 }
        [[box]]
        center = [0.0, 0.0, 0.0]
        size = [1.0, -2.0, 1.0]
        """)
    with pytest.raises(sim.ConfigError, match=r"w\.toml: box\[0\]\.size\[1\] = -2\.0 is not allowed"):
        sim.load_world(p)
    p = write(tmp_path, "w2.toml", "[surfaces]\nasphalt = { mu = 1.0 }\n[[plane]]\nsurface = 'lava'\n")
    with pytest.raises(sim.ConfigError, match=r"plane\[0\]\.surface = 'lava'.*'asphalt'"):
        sim.load_world(p)


def test_with_value_checks_the_range():
    car = sim.load_vehicle("hatchback")
    assert sim.with_value(car, "rear_tire.grip", 0.8).rear_tire.grip == 0.8
    with pytest.raises(sim.ConfigError, match=r"rear_tire\.grip = 9\.0 is not allowed"):
        sim.with_value(car, "rear_tire.grip", 9.0)


@pytest.mark.parametrize("preset", ["hatchback", "boxster_s"])
def test_save_then_load_reproduces_the_params_exactly(tmp_path, preset):
    car = sim.with_value(sim.load_vehicle(preset), "front_suspension.c", 1234.5678901234567)
    path = tmp_path / "saved.toml"
    sim.save_vehicle(car, path)
    assert sim.load_vehicle(path) == car


def test_failed_save_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "tuned.toml"
    car = sim.load_vehicle("hatchback")
    sim.save_vehicle(car, path)
    before = path.read_bytes()

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(sim.ConfigError, match=r"tuned\.toml: cannot save: No space left on device"):
        sim.save_vehicle(sim.with_value(car, "chassis.mass", 999.0), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["tuned.toml"]      # no temporary file left behind


def test_save_into_a_missing_folder_reports_the_file(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "car.toml"
    with pytest.raises(sim.ConfigError, match=r"car\.toml: cannot save"):
        sim.save_vehicle(sim.load_vehicle("hatchback"), target)


def test_every_field_declares_unit_and_range():
    for gname, gtype in P.GROUP_TYPES.items():
        for f in dataclasses.fields(gtype):
            m = f.metadata
            assert m.get("doc"), f"{gname}.{f.name} has no description"
            if m["kind"] in ("num", "curve"):
                assert m["unit"] and m["lo"] <= (f.default if m["kind"] == "num" else min(f.default)) <= m["hi"]



def test_the_proving_grounds_slopes_are_solid_to_the_ground():
    """Under every point of a tilted box's top face, down to the ground, there is box: a slope or ramp
    leaves no gap beneath it for a car to drive into from the side (a 1 m slab under a 30 degree slope
    left one 1.8 m high, where cars coming from the side wedged between the slab and the ground)."""
    import numpy as np

    from sim.kernel.vec import quat_rotate
    from sim.kernel.vec import quat_rotate_inv
    world = sim.load_world("proving_ground")
    boxes = [b for b in world.boxes if not b.kinematic]

    def inside(p, b):
        local = quat_rotate_inv(b.orientation(), tuple(np.subtract(p, b.center)))
        return all(abs(local[k]) <= b.size[k] / 2 + 1e-6 for k in range(3))

    tilted = [b for b in boxes if b.slope_deg != 0.0]
    assert len(tilted) == 7                                # three hills' two slopes each, the ramp
    for b in tilted:
        for u in np.linspace(-0.49, 0.49, 9):              # over the top face, then straight down
            for w in np.linspace(-0.49, 0.49, 5):
                top = np.add(b.center, quat_rotate(b.orientation(), (u * b.size[0], w * b.size[1], b.size[2] / 2)))
                for z in np.linspace(0.02, top[2] - 0.02, 12) if top[2] > 0.05 else ():
                    assert any(inside((top[0], top[1], z), other) for other in boxes), (b.name, top[:2], z)
