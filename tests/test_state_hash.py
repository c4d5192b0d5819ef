"""Regression guard for restructuring: 60 s of scripted driving on the proving ground must end in exactly
the same state and telemetry, bit for bit, as the code this hash was taken from (issue 8).

The hash is over named quantities read through the public API (state and telemetry views), in a fixed
order, so it does not depend on how the tables are laid out inside. It changes only when the physics
changes: a deliberate change of behaviour must say so and update the two constants below.
"""
import hashlib
import math
import sys

import numpy as np

import sim

DT = 1 / 240
SECONDS = 60.0

STATE_NAMES = ("position", "orientation", "velocity", "angular_velocity", "wheel_omega", "wheel_steer",
               "wheel_angle", "engine_omega", "gear")
WHEEL_NAMES = ("s", "a", "l", "l_raw", "x", "xdot", "Fs", "Fz", "vx", "vy", "kappa", "alpha", "Fx_raw",
               "Fy_raw", "Fx", "Fy", "grip_scale", "T_drive", "T_brake", "omega", "rho", "r_eff", "grounded",
               "surface", "shape", "mu", "steer", "Q", "n", "t", "b", "C", "u", "F_suspension", "F_tire",
               "F_rolling", "v_ground")
BODY_NAMES = ("H_body", "H_wheels", "H_engine", "H_total", "rpm", "gear", "T_engine", "T_clutch", "diff_lock",
              "tc_active", "abs_active", "hull_contacts")
FORCE_NAMES = ("gravity", "drag", "downforce", "rolling", "suspension", "tire", "collision")


def public_hash(s: sim.Simulation) -> str:
    h = hashlib.sha256()
    for name in STATE_NAMES:
        h.update(np.ascontiguousarray(getattr(s.state, name), dtype=np.float64).tobytes())
    for name in WHEEL_NAMES + BODY_NAMES:
        h.update(np.ascontiguousarray(getattr(s.telemetry, name), dtype=np.float64).tobytes())
    forces = s.telemetry.forces
    for name in FORCE_NAMES:
        h.update(np.ascontiguousarray(forces[name], dtype=np.float64).tobytes())
    return h.hexdigest()


def variants() -> list[sim.Vehicle]:
    """Four cars that between them use every stage and mode: engine auto/manual and direct drive, open,
    limited-slip and locked differentials, sphere/disc/ray queries, camber, linear and Magic Formula
    tires, an anti-roll bar."""
    hatch = sim.load_vehicle("hatchback")
    boxster = sim.load_vehicle("boxster_s")
    awd = hatch
    for path, value in (("drive.layout", "awd"), ("drive.front_diff", "lsd"), ("drive.rear_diff", "locked"),
                        ("front_suspension.query", "disc"), ("front_suspension.camber_deg", -2.0),
                        ("rear_suspension.query", "disc"), ("front_tire.model", "linear"),
                        ("gearbox.mode", "manual"), ("front_suspension.anti_roll", 20000.0)):
        awd = sim.with_value(awd, path, value)
    direct = hatch
    for path, value in (("drive.mode", "direct"), ("drive.layout", "fwd"), ("front_suspension.query", "ray"),
                        ("rear_suspension.query", "ray")):
        direct = sim.with_value(direct, path, value)
    return [hatch, boxster, awd, direct]


def program(k: int, n: int) -> np.ndarray:
    """Control rows (n, 9) for step k: throttle, brake, steer, handbrake, clutch, shift, gear, abs, tc.
    Settle, drive and steer, an ABS stop, stand on the brake and the handbrake (static friction), a
    full-throttle launch with traction control, manual shifts, reverse, neutral, the clutch pedal, coast."""
    t = k * DT
    rows = np.zeros((n, 9))
    rows[:, 6] = 100.0                                     # no gear request
    for v in range(n):
        wig = math.sin(0.7 * t + v) + 0.4 * math.sin(2.3 * t + 2 * v)
        r = rows[v]
        if t < 1.0:
            pass
        elif t < 12.0:
            r[0] = 0.6 + 0.3 * math.sin(0.9 * t + v)
            r[2] = 0.5 * wig
        elif t < 16.0:
            r[1] = 1.0
            r[2] = 0.2 * wig
            r[7] = 1.0
        elif t < 19.0:
            r[1] = 0.3
        elif t < 22.0:
            r[3] = 1.0
        elif t < 35.0:
            r[0] = 1.0
            r[2] = 0.35 * wig
            r[8] = 1.0
            if v == 2 and (abs(t - 26.0) < 0.5 * DT or abs(t - 30.0) < 0.5 * DT):
                r[5] = 1.0                                 # manual upshifts
            if v == 3 and t > 30.0:
                r[0] = -0.8                                # direct drive backwards
        elif t < 37.0:
            r[1] = 1.0
            r[7] = 1.0
        elif t < 40.0:
            r[6] = -1.0                                    # reverse
            r[0] = 0.5
            r[2] = -0.3
        elif t < 41.0:
            r[6] = 0.0                                     # neutral
            r[0] = 0.7
        elif t < 50.0:
            if t < 41.0 + DT:
                r[6] = 1.0
            r[0] = 0.5 + 0.5 * math.sin(1.3 * t + v)
            r[2] = 0.8 * wig
            r[4] = 1.0 if 42.0 <= t < 43.0 else 0.0        # clutch pedal
            r[8] = 1.0
        else:
            r[2] = 0.3 * wig
            r[1] = 0.5 if t > 57.0 else 0.0
            r[7] = 1.0
    return rows


def batch_drive_hash() -> str:
    """Four cars on the proving ground for 60 s at 4 substeps, with an edit and a reset on the way."""
    cars = variants()
    world = sim.load_world("proving_ground")
    s = sim.Simulation(cars, world, dt=DT, substeps=4, n_vehicles=len(cars))
    z = max(sim.rest_com_height(c) for c in cars)
    s.reset(position=[(5.0, 12.0, z), (50.0, 16.0, z), (30.0, -45.0, z), (-45.0, 0.0, z)],
            yaw=[0.0, 0.0, 0.0, -0.6])            # along a curb, into the bumps, up the 20 deg hill, on ice
    steps = int(round(SECONDS / DT))
    trace = np.stack([program(k, len(cars)) for k in range(steps)])
    half = steps // 3
    s.run(trace[:half])
    s.set_params(sim.with_value(cars[1], "front_suspension.k", 1.5 * cars[1].front_suspension.k), index=1)
    s.run(trace[half:2 * half])
    s.reset(position=(-25.0, -10.0, z), yaw=0.3, speed=5.0, index=3, gear=2)
    s.run(trace[2 * half:])
    assert s.finite()
    return public_hash(s)


def single_drive_hash() -> str:
    """The app's path: one car, step() with Controls every 1/240 s, 8 substeps."""
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.load_world("proving_ground"), dt=DT, substeps=8)
    s.reset(position=(-40.0, 45.0, sim.rest_com_height(car) + 0.05), yaw=-0.3)   # on the turntable
    for k in range(int(round(SECONDS / DT))):
        r = program(k, 1)[0]
        s.step(sim.Controls(throttle=r[0], brake=r[1], steer=r[2], handbrake=r[3], clutch=r[4], shift=int(r[5]),
                            gear=None if r[6] == 100.0 else int(r[6]), abs=bool(r[7]), tc=bool(r[8])))
    assert s.finite()
    return public_hash(s)


def test_scripted_batch_drive_hash():
    assert batch_drive_hash() == BATCH_HASH


def test_scripted_single_drive_hash():
    assert single_drive_hash() == SINGLE_HASH


# The hashes change only with a deliberate change of the physics or of its rounding: CHANGELOG.md,
# "State-hash history", says each time they changed, why, and what they were before.
HASHES = {
    "scalar": ("586d6d6856b75c4fb437620409828ab107f8a933779c652ffa32d096d47c99ef",
               "46c5680cbcd7c1f7a4a9643dc9ca1a88820ded6effbd4c3937f523ad473628cc",
               "67905e248fa2744014de9169ea9905e4b651b0c77b4500cd61a8c0415f73d775",
               "17c64beab145a73df08f836b914d1d008ca73c39a4feaf8aea2f401ae6d6e5c1",
               "12a9d16a9de3fd034169ef39af83e9caa146047c97c95d827028cfcd497e3e4a",
               "2aed5e5983081815f63d9d3d1dd5eff3d3ba649b8e3173ad9c7b0a85ac15f7e3",
               "68aaf640f62c4259cef4f2425d8c939dbb119034b74edd933f0240a5adee70a2",
               "5ada9a9a236bc64a41f3965b40c8c823ba63c8d3c5ec1542b6a8b59b665eadbc"),
    "avx512": ("e5c8fab8a330b1842e97e32327e9d61b2ce97ec5478ddb1b7e133ede20bd19cc",
               "fb5ad4f17951ba007f25b07257a8f52b043194899951bf9bca1b0c232ebea2f4",
               "2d7f0cd703079c448413e70e65290066dfbd32f6db5425e15a44c2f10552be01",
               "a8f8e6332189548ce0fabcfce80337582291cf551f8221c8af1a65daf1461b19",
               "8030bafcf3e8e08732c8b87433937c2b3c477c14ba67e59ab99cc2269ac1677d",
               "0fe67348334984512c401acb1f827dd77e34333776d81a1f7d1a3a454e79fbb1",
               "4e4c36f8df2d673f9ab4a157d83c4a3e11128842aea26fcac3ab65032c8af5be",
               "e02e5d302b8e619fc7ad87b8185b7909ed3c82a82a1a62b95d5deec14b2d2dfa"),
    "avx2": ("66cb280024514561ea3c5310adc2af150cb63b50a057f0e7f5fb64fcf5460c61",
             "55604ea164990eaf58d577d312746c973f27d82d9b6edd1c6980f51a657dc302",
             "cc21815a3c37f83986433a9e1cafb34045da0dbae88e84637a68059d50e1d140",
             "8fa07503880a479102c856466359b0b7e1cab65ec9398f7034225c2470c21835",
             "24fc2506e06a1266fa4304a7af7a60cb2c61de6d8ee04b3b2101d418d5548a1e",
             "17631374fb4852f4beeb4115127eff06a0b22ef4402d66c912fc439d0d7421c6",
             "1b9fb800ebbb8cceb23ea968ccdf9e0c3f58c301c82c220d277bf54525abc14a",
             "ff84a624c4db74157b5069558efd47e3b45f43fe464be3bf4d32319b0bde545b"),
}
(BATCH_HASH, SINGLE_HASH, BATCH_HASH_IMPULSE_STOP, SINGLE_HASH_IMPULSE_STOP, BATCH_HASH_EXPLICIT,
 SINGLE_HASH_EXPLICIT, BATCH_HASH_GRADIENT, SINGLE_HASH_GRADIENT) = HASHES[sim.kernel.jit.VECTOR_MATH]


def test_seed_000s_stop_rule_for_static_friction_gives_the_earlier_hashes(monkeypatch):
    """brakes.hold_stop = "impulse" with hold_solver = "gradient" (seed 000's solver and rule alone) is the
    solver as it was, bit for bit."""
    load = sim.load_vehicle
    monkeypatch.setattr(sim, "load_vehicle", lambda name: sim.with_value(
        sim.with_value(load(name), "brakes.hold_stop", "impulse"), "brakes.hold_solver", "gradient"))
    monkeypatch.setattr(sys.modules[__name__], "BATCH_HASH", BATCH_HASH_IMPULSE_STOP)
    monkeypatch.setattr(sys.modules[__name__], "SINGLE_HASH", SINGLE_HASH_IMPULSE_STOP)
    test_scripted_batch_drive_hash()
    test_scripted_single_drive_hash()


def test_seed_000s_static_friction_solver_gives_the_earlier_hashes(monkeypatch):
    """brakes.hold_solver = "gradient" (seed 000's projected gradient, with our stop rule) gives the hashes
    from before the accelerated solver, bit for bit."""
    load = sim.load_vehicle
    monkeypatch.setattr(sim, "load_vehicle", lambda name: sim.with_value(load(name), "brakes.hold_solver", "gradient"))
    monkeypatch.setattr(sys.modules[__name__], "BATCH_HASH", BATCH_HASH_GRADIENT)
    monkeypatch.setattr(sys.modules[__name__], "SINGLE_HASH", SINGLE_HASH_GRADIENT)
    test_scripted_batch_drive_hash()
    test_scripted_single_drive_hash()


def test_the_explicit_lateral_update_gives_the_earlier_hashes(monkeypatch):
    """chassis.lateral_update = "explicit" (seed 004's semi-implicit Euler: the tires' lateral force at the
    substep's start) is the body update as it was before the midpoint form (bit for bit when it came; the
    hashes have moved since only with the rounding changes listed above HASHES)."""
    load = sim.load_vehicle
    monkeypatch.setattr(sim, "load_vehicle",
                        lambda name: sim.with_value(load(name), "chassis.lateral_update", "explicit"))
    monkeypatch.setattr(sys.modules[__name__], "BATCH_HASH", BATCH_HASH_EXPLICIT)
    monkeypatch.setattr(sys.modules[__name__], "SINGLE_HASH", SINGLE_HASH_EXPLICIT)
    test_scripted_batch_drive_hash()
    test_scripted_single_drive_hash()
