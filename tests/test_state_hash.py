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
    "scalar": ("a946467e7cddb071ce09e43e4f1d7165989d0dd8c11390a56e82974c3ae33166",
             "3f14abf16871cf7bbbe2e1be6809cd6cabd88ec20e6f019c5c23088d81a462d3",
             "67c1334b1393f8673eccaae5d6fa6e52d36c916fdd835fb4803539e35d26cc2a",
             "ab4ea18f712eb5c10f6c7f3fbed25601cb1de2216a90226393ac380c42b4d7b0",
             "2b91cf6dd4626599d5da3de7b7cfd17829afdbc0fdee297e79cc8af6d2ea0a0c",
             "429d7d9ecac8662babc3a1d7bc72b13d079363ea06ab7949443d18a10e28fb7c",
             "afe918e0b5416b6697d78556593825f4113cc87637e972dc01fa6190ce1c3343",
             "a54307b196edbf2a96d762d9b7047f51689261778d03e33b2aa47a36d647e9af"),
    "avx512": ("16a5d84061210c0006bab17ea862e32a7e32985047ea925b8bc866c5803013a4",
             "69c883779f321a26be76ded9b76c34f5a72354e1e3c61603815f79ddcaf51bad",
             "183b1da38a8c57db1c85487de92a5d793de9b852c016b130919ee996f6a4f65c",
             "78829f2eba1bc452ffd79eec6822108fefc6bf3f8599c7918da2c3cd2150c152",
             "fbeb45dfc68b6259c13801e5a404e49b12468c18f9f1e6c71fb19360653f326b",
             "b5c9b5d71f809f6805d7d62c8507c209a7e22ebe1d9e9113320a6e3e3ce7c329",
             "69cbf84a70986232968f6e9c2669e2dc06dc1f4b7961a8ff2c1efc76712c4f6e",
             "630c703928b948352fcd9817ea14b615577969e015fa34094b90eca4deb38a20"),
    "avx2": ("56a50def5c0edb5949a13ec45dfab2f2c7644668ccd106d686ab8f1361ea2764",
           "49fb5bfd8cd84c731ec8a6a0ec63640d928b908c36b436ca87205d0497f56cd5",
           "01e1631f0c27adecdd1f714a0dfb731f1e34a92dd00061e43ab074a2c628c342",
           "50ebbd8ac37c889dd0e2c43adf9fcfdd7b5c57660263b61048d3667d4252e879",
           "3830fd7423f3f5a77f2c0fee26b54d0c9a6c0ea90b24e798008c211a57edde5f",
           "eb74d5df82e2748806390f39cef6f1edac7b1fc3c6046c7a0704c2bb950b1786",
           "1044075ad881de6fe0ce6c68146da3e94ba3faea8ed97bdb0ff3bf09d5fdd2ad",
           "3a6847a05b475caa3bdc0aec31a5a54b96a14c69d8e8bc3801701459a4c7387f"),
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
