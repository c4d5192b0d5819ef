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
    "scalar": ("611c4d8a9ef051e76ec7cb1bf2baf6b36235e58315f616d2915a41283c99da1a",
             "c734bbecfb384cfdc342794d2a23e67554c3e412b06e141ea7fd3c151231ec1e",
             "595c3dff5c7651c46111fca9b4d14abdcc2b611409e7b8a2d78c3d435865e3e7",
             "76f2bba6a88e32ab196b1720af4d82dabbd80442a6c4c2eb135fdfbba16321bc",
             "176fe82a0c6188e54557f99270030a8e076e61ea96f32d9d507d4f8b33dfb53c",
             "4931a8c10f1da9297178ee5d254b1a10e61b6c58ddcd0f549923dc72f7dd9657",
             "e2262958ad6163192c8ad36333cc3b3403b6c26ac13c3b6415b973538d34ee27",
             "684b5ec0cf8e95290473132eae8ec47c698ad830abceff4e8c3529c32f1cf393"),
    "avx512": ("b6ac006fe1cccd73c0601cb147d955dbcacbeb90f2087990ddef6e1a71183b74",
             "8a1105385c796931a19847a4aca0ee75431007073ce6608f8318b4433b8d1cd7",
             "0d47352a5fcbb9481daa9a19aa3fb54696026810edb762e3bd69acb68a76b8a1",
             "5f3fc07f0f775e4dd450dc6d8eb87ed884827a4c535b99481a8cf1f8df1d67bc",
             "50c6aa2ba0b80946ababbba76a91a26cb3f1043aa07fa3d863fe9b67365dee48",
             "bd99aebf86dc3f9214d717e15032a5db404af80d99c8bef0f8d45af20aacbb43",
             "2a03e74878700ff68868fd4431f74b2d7a8ebcf1d00daad5bbb1f46c51c8c00b",
             "672fc42ece849b6c90545e6ac266ac5a463771e0434200c7b51febf778586881"),
    "avx2": ("0e574059399c9d34f0e719afa2eec8187536463dca404570b725e55f671a18db",
           "8fc1ea3daa4f9e6c8c9d5d2aa0b4ec354ee6f760a8c4c2202da397608cae3d5b",
           "1ffdbecdc143c6deacf2c5a70efb22d9eeea534c6674bdb5fbd0152ac03bee75",
           "0a5dd6a4f8156c4d6d5471baa1c29115f417cd6959f01ea401f2a60734501a67",
           "b73ebb66af4cca4fdb905c7a6f8457309579a1446b6c54edfa334dde5e60236e",
           "94208b24477e0acbdba3edd2b268e45eec382189f614e031160febda35117ebd",
           "012d238c60241088829bcf3420f9e49485a14f43291632bce0c24a34e4d6e78e",
           "71dd2c5f4f637786b9cf6ffe007c2f775f685ba2dca18978377351114eb60211"),
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
