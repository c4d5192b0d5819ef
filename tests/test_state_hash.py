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
    "scalar": ("74fbf07970184c26ba3457da99c10fdeff7ed5a98c452429d01dd1e075710644",
               "3368bed46df5e28f0e47a805ec340fa1d2afacbf5e408850a61e7b25b00888de",
               "d9687c7382116cd1177787802fc29664c39a74aff9c2d563da7d0015357d078c",
               "20af4f5b6e8b552f8f7b4b3c4a65203ad2465ab6cb0efcf3b463ab232ed9fbd9",
               "bc90381d713fa56e83f6a514d5d033b6e4c1bced09935d51ca1869ea7417cb8c",
               "18008ae019cb80c075d35186c04cb2a265d4fb98761e24c63877933349adac68",
               "e9ed432600c7e690a20a725ad713fb58f0a118482ee534de7fec4aedbfe7a9d7",
               "218144ce7f5647ea5639c2850e00d634381ef4c5a610c0f9aa26aa4cabb36603"),
    "avx512": ("4aaa3889ec397cdf3b5ad2951063be712f2c308fa040ebc65d53ce2977197aba",
               "0181cd5187a9ffa434c667e4d9db1f19cfb0ff4c0422fcbf4b1609b609eb5388",
               "42be570c2234f4550d84442960df0797318fffe3d867b80ae11b0e9f251d0f09",
               "890537827c65e1e7e2d80f45d1198e82aa6bbcfd245a88aa9ebf470c45c1152d",
               "032c1f150dae89650877acbb617e8f23c030b7454a684ec30e37f000dd1ddccd",
               "b583acf403e0038b98a7a15888c311c27eaa6c673cf4d9935f11cd4e5d77c775",
               "a93aaccf5e8d7791b72d85e3ba22708798c9841b7e83c1bbd9d7075691d0c652",
               "78ae4264d115dde235cb7ac18414c3da5df31552066c2303ae0bab577727435c"),
    "avx2": ("54331d22058d9c4581a429f6f6919b303455976d9cad734d00c6a127151ab2f0",
             "ce3d6fc424c491e32392171fb7dc931e84ec1552585bf374dcfade34af506b33",
             "a2324c115d75e42b1259d1e4fe87328a32914de0cb545e6069f612d6c671bbd0",
             "f6a8233c993667bad71b5deb36b809af43d41cb0432312e1857abe7b3830ba44",
             "1772e46e11ee76a90770ca32209377b095bd4d5e582aab339e00ebe09cacde56",
             "d889b742cf8045cf5443456c810b4a2a70032ef877b1f5fe9e505a1bb3269162",
             "71cd735323e0ce600f845b3c4cd13d5512965c1fdeb8b491f973e67307510722",
             "89686cdf940540dc452c813a4d0fdcb95662f127528448582f177f552b17330e"),
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
