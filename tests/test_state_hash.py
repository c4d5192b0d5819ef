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


# Changed deliberately by issue 9 (ground force along the contact normal, static friction for every wheel,
# the implicit wheel update, ABS and TC reading this substep's slip as slip controllers, the automatic
# judged by road speed, launch control, tires from data, rolling resistance at full size down to the
# static friction); issue 8's restructuring left the earlier
# f89b3e4e... / a8a50ec8... unchanged. Changed again by issue 11: the clutch's end-of-substep slip
# includes the engine torque and the wheels' road torque (was c4e87313... / 23ac1745...). Changed again by
# issue 15: the presets' automatic shifts up earlier with a light pedal (gearbox.shift_up_light) and blips
# the throttle on downshifts (gearbox.downshift_blip); with those at 1.0 and 0.0 the code gives the earlier
# fc28239f... / a469b850... exactly. Changed again by issue 11: static friction's solver also stops when
# a round changes no contact speed by more than 1e-10 m/s (brakes.hold_stop = "velocity"); with
# hold_stop = "impulse" the code gives the earlier f62876f3... / 3fb7e0b9... exactly (tested below).
# Changed again by issue 11, in rounding only: every rotation by a quaternion goes through its matrix
# (sim/vec.py quat_matrix), not the quaternion sandwich (was 02f4fe0d... / 1678f6b5..., and f62876f3... /
# 3fb7e0b9... with the impulse rule; the single car ends its 60 s where it did to 1e-8 m). And again, in
# rounding only: the body's rotation from its series, the normalisation by a Newton step, the inverse
# inertia by reciprocals (docs/physics.md §12; was d1ae3d9e... / 2867cbe0... and 3067cae3... / 21239fcc...).
# And again: the steering targets once a step, from the speed at its start (docs/physics.md §2; was
# 43dabf61... / ff20d55f... and b1a2ea52... / eba92945...; the single car, at 8 substeps, ends its 60 s
# 5 cm from where it did).
# The slip angles' and the Magic Formula's arc tangents, sines and cosines go to glibc's vector maths where
# this machine has it (sim/lanes.py, sim.jit.VECTOR_MATH): each kind gives its own last bits, so each has its hashes (batch,
# single, batch and single with the impulse rule). "scalar" is the maths library lane by lane (when the
# lanes came: the code before them, bit for bit).
# Changed deliberately by issue 11: the body takes the tires' lateral force mid-substep (chassis.lateral_update
# = "midpoint", docs/physics.md §12); with "explicit" the code gave the earlier hashes bit for bit (on avx512
# 8f97053c... / f8b053a8...). Then, in rounding only: the steering's angles without the turn's radius and
# their arc tangents four at once, the sines and cosines of the road-wheel angles and the camber's arc sines
# four at once (sim/steering.py, sim/contact.py, sim/step.py publish; was 9bd4ae49... / f92d2627... on
# avx512, and 8f97053c... / f8b053a8... explicit). Each kind: batch, single; batch and single with the impulse
# rule; batch and single with the explicit lateral update.
HASHES = {
    "scalar": ("14ec86061a0f6452476b57572884fa66c8a8667ef72dca23ab9fa4a256d14ee9",
               "630d4bdd90ec9e6209727ce3f41662992e071b38b4a8062300c46b5832d9f846",
               "f6001680fafb45c52ba8ded2ceea34ad9350c2b12db6de451c6c3c7126a6a31b",
               "69a24989858e340ffbbc35d171f8a0f89f6d567eca5ff07741b12ec46d271f75",
               "92def171c1874cc316349196f35a4881da8634619e7bf5e4e8adb806e7a867ee",
               "e8e722fcc4547d2f4e9b9eb3858eaca522725dbc22d758432ddbfc6944a0a36d"),
    "avx512": ("7c7cc1152287348341072d274d06f9d6f4c9e29455321124aa9ca1f89d34d7ba",
               "bfa475d9179c4f6bb180443744f40d0348f7e33698ca4e68c03ad59679766485",
               "6d0211b14009c593fd098245ccc957aa66958599d8c81b21a0caafb3c0a5a15e",
               "d8e0c5541127846e76052536729abae4a892ecb982ff90f6d8e0c93e9c2fd4b6",
               "8ca2ef4c4d0de75c289d28e2b14c464b798a0f6de50c28fa81115a98d8ddcb06",
               "ce5b7c782be6023ed3e2f24a658891d5c58c8e0c36ae735b0763655dc0e0dd36"),
    "avx2": ("b51f2b25382a12f3f72b6811e0cb2aadd7c0b06624387af2783c867d8c84fcb4",
             "2b6aa3bc9bee3ea9ebacd742dbc78f36c2f2edabdcc84768e3a6314921e3a444",
             "afe0be0d83fd2469850bd2adc4bfb7dc97b358a319a9a0fc28d039dbd78c08c4",
             "2886626262cfda30afff320e79efe76f39cb62124345039ccc873c0ebc780d25",
             "989561f6f0e0aca152a32dbf6874008536a33906c3179935a081f9f61c42e38d",
             "9b4e81d51525788a3a655a7f8b7b6eab4228ed4cf18c6db5398072ad4b9521c3"),
}
(BATCH_HASH, SINGLE_HASH, BATCH_HASH_IMPULSE_STOP, SINGLE_HASH_IMPULSE_STOP, BATCH_HASH_EXPLICIT,
 SINGLE_HASH_EXPLICIT) = HASHES[sim.jit.VECTOR_MATH]


def test_seed_000s_stop_rule_for_static_friction_gives_the_earlier_hashes(monkeypatch):
    """brakes.hold_stop = "impulse" (seed 000's rule alone) is the solver as it was, bit for bit."""
    load = sim.load_vehicle
    monkeypatch.setattr(sim, "load_vehicle", lambda name: sim.with_value(load(name), "brakes.hold_stop", "impulse"))
    monkeypatch.setattr(sys.modules[__name__], "BATCH_HASH", BATCH_HASH_IMPULSE_STOP)
    monkeypatch.setattr(sys.modules[__name__], "SINGLE_HASH", SINGLE_HASH_IMPULSE_STOP)
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
