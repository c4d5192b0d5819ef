"""Engine, clutch, gearbox, differentials, brakes with ABS/TC and Ackermann steering (issue 4)."""
import math

import numpy as np
import pytest

import sim
from sim.kernel import tables as L
from sim.kernel.steering import ackermann_angles
from sim.kernel.steering import steer_angles

G = 9.81


def boxster(**changes):
    car = sim.load_vehicle("boxster_s")
    for path, value in changes.items():
        car = sim.with_value(car, path.replace("__", "."), value)
    return car



def redline_speed(radius, ratio, final_drive, rpm):
    """Seed 002 (its table of speeds at the redline): road speed (m/s) at engine speed `rpm` in a gear
    without slip, r omegaW with omegaW = omegaE / (g fd)."""
    return radius * (rpm / sim.RPM) / (ratio * final_drive)

@pytest.mark.parametrize("gear, kmh", list(enumerate([65.8, 114.3, 165.4, 206.1, 246.5, 299.3], start=1)))
def test_boxster_speed_at_redline_in_each_gear(gear, kmh):
    car = boxster()
    v = redline_speed(car.rear_tire.radius, car.gearbox.ratios[gear - 1], car.gearbox.final_drive,
                      car.engine.redline_rpm)
    assert v * 3.6 == pytest.approx(kmh, abs=0.05)


def test_boxster_reaches_its_drag_limited_top_speed_in_sixth():
    # seed 002: 271.5 km/h where the 6th-gear wheel force meets 1/2 rho Cd A v^2 + 205 N rolling. The
    # seed assumes no tire slip; here the rear tires slip about 1.5 % to carry the drive force (raising
    # the engine speed onto the falling part of the curve), so the car settles near 269 km/h (the
    # manufacturer's figure the seed quotes is 266): inside 2 %, not at the idealised number.
    car = boxster(gearbox__mode="manual")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car) - 0.1), speed=250 / 3.6, gear=6)
    s.run(np.tile([1.0, 0.0, 0.0, 0.0], (240 * 150, 1)))
    v1 = np.linalg.norm(s.state.velocity)
    s.run(np.tile([1.0, 0.0, 0.0, 0.0], (240 * 5, 1)))
    v2 = np.linalg.norm(s.state.velocity)
    assert s.state.gear == 6
    assert abs(v2 - v1) / 5.0 < 0.01                      # settled: under 0.01 m/s^2
    assert v2 * 3.6 == pytest.approx(271.5, rel=0.02)


def test_engine_braking_is_74_nm_at_6000_rpm():
    car = boxster()
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=1, check_stability=False)   # one step
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), gear=0)
    s.tables.drive_state[0, L.DS_OMEGA_E] = 6000 * 2 * math.pi / 60
    s.step(sim.Controls(throttle=0.0))
    assert s.telemetry.T_engine == pytest.approx(-74.0, abs=1e-9)      # 0.74 N m per rev/s x 100 rev/s
    assert s.state.engine_omega == pytest.approx(6000 * 2 * math.pi / 60 - 74.0 / car.engine.inertia / 240,
                                                 rel=1e-12)


def launched(car, seconds=2.0, throttle=1.0, world=None, substeps=8, **reset):
    s = sim.Simulation(car, world or sim.World.flat(), dt=1 / 240, substeps=substeps)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), **reset)
    s.run(np.tile([throttle, 0.0, 0.0, 0.0], (int(seconds * 240), 1)))
    return s


@pytest.mark.parametrize("diff", ["open", "lsd"])
def test_differential_outputs_sum_to_its_input(diff):
    car = boxster(drive__rear_diff=diff, gearbox__mode="manual")
    s = launched(car, 1.5)
    g = car.gearbox.ratios[0] * car.gearbox.final_drive
    t_in = g * s.telemetry.T_clutch * car.gearbox.efficiency
    t = s.telemetry.T_drive
    assert abs(t_in) > 100.0
    assert t[2] + t[3] == pytest.approx(t_in, rel=1e-12)
    assert t[0] == t[1] == 0.0


def test_limited_slip_locking_torque_follows_the_clamp():
    car = boxster(drive__rear_diff="lsd", drive__lsd_stiffness=50.0, drive__lsd_max_torque=150.0,
                  gearbox__mode="manual")
    s = launched(car, 1.0)
    # force a speed difference between the rear wheels and take one substep
    s.tables.wheel_state[0, 2, L.WS_OMEGA] += 2.0
    s.tables.wheel_state[0, 3, L.WS_OMEGA] -= 1.0
    om = s.tables.wheel_state[0, :, L.WS_OMEGA].copy()
    s2 = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=1, check_stability=False)   # one substep
    s2.restore(s.snapshot())
    s2.step(sim.Controls(throttle=1.0))
    lock = s2.telemetry.diff_lock[1]
    assert lock == pytest.approx(min(150.0, max(-150.0, 50.0 * (om[2] - om[3]))))   # 150: clamped
    half = 0.5 * (s2.telemetry.T_drive[2] + s2.telemetry.T_drive[3])
    assert s2.telemetry.T_drive[2] == pytest.approx(half - lock)        # left minus
    assert s2.telemetry.T_drive[3] == pytest.approx(half + lock)        # right plus


def test_locked_differential_turns_both_wheels_together():
    car = boxster(drive__rear_diff="locked", gearbox__mode="manual")
    s = launched(car, 1.0)
    assert s.state.wheel_omega[2] == s.state.wheel_omega[3]


def test_a_shift_keeps_engine_and_wheel_speeds_continuous():
    car = sim.with_value(sim.load_vehicle("hatchback"), "gearbox.mode", "manual")
    s = launched(car, 3.0)
    assert s.state.gear == 1 and s.state.engine_rpm > 4000
    dt = 1 / 240
    # the fastest any speed may change in one step: full torque over the smallest inertia
    max_d_engine = dt * (max(car.engine.torque_nm) + car.gearbox.clutch_max_torque) / car.engine.inertia
    before_e, before_w = s.state.engine_omega, s.state.wheel_omega.copy()
    ratio_jump = (car.gearbox.ratios[0] / car.gearbox.ratios[1] - 1.0) * before_e   # what snapping would do
    s.step(sim.Controls(throttle=1.0, shift=1))
    worst_e = worst_w = 0.0
    for _ in range(240):
        e, w = s.state.engine_omega, s.state.wheel_omega.copy()
        s.step(sim.Controls(throttle=1.0))
        worst_e = max(worst_e, abs(s.state.engine_omega - e))
        worst_w = max(worst_w, np.abs(s.state.wheel_omega - w).max())
    assert s.state.gear == 2
    assert worst_e <= max_d_engine and worst_e < ratio_jump / 5
    assert worst_w < 5.0
    assert abs(s.state.engine_omega - before_e) > 0.0 and np.all(before_w > 0)


def test_reverse_drives_the_car_backwards():
    car = sim.load_vehicle("hatchback")
    s = launched(car, 3.0, gear=-1)
    fwd = sim.kernel.vec.quat_rotate(tuple(s.state.orientation), (1.0, 0.0, 0.0))
    assert np.dot(s.state.velocity, fwd) < -2.0
    assert s.telemetry.gear == -1


def test_automatic_shifts_up_through_the_gears():
    s = launched(sim.load_vehicle("hatchback"), 14.0)
    assert s.state.gear >= 3
    assert s.state.engine_rpm < sim.load_vehicle("hatchback").engine.redline_rpm


def test_ackermann_angles_of_the_spec():
    inner, outer = ackermann_angles(2.5, 1.6, 5.0)
    assert math.degrees(inner) == pytest.approx(30.8, abs=0.05)
    assert math.degrees(outer) == pytest.approx(23.3, abs=0.05)


def test_steering_input_to_road_wheel_angles():
    L_, W, top = 2.5, 1.6, math.radians(35.0)
    left, right = steer_angles(1.0, L_, W, top, 1.0, 0.0, 0.0)
    assert left == pytest.approx(top)                                  # inner wheel at the largest angle
    r_min = L_ / math.tan(top) + W / 2
    assert right == pytest.approx(math.atan(L_ / (r_min + W / 2)))     # outer wheel on the same centre
    l2, r2 = steer_angles(-1.0, L_, W, top, 1.0, 0.0, 0.0)
    assert (l2, r2) == (pytest.approx(-right), pytest.approx(-left))   # mirror image to the right
    p_l, p_r = steer_angles(0.5, L_, W, top, 0.0, 0.0, 0.0)
    assert p_l == pytest.approx(p_r)                                   # Ackermann 0: parallel
    fast_l, _ = steer_angles(1.0, L_, W, top, 1.0, 25.0, 25.0)
    assert fast_l == pytest.approx(top / 2)                            # halved at limit_speed


def test_steering_rate_is_limited():
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=1)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    s.step(sim.Controls(steer=1.0))
    assert s.state.wheel_steer[0] == pytest.approx(math.radians(car.steering.rate_deg_s) / 240)


def ice():
    return sim.World.flat(mu=0.1, surface="ice")


def test_abs_keeps_wheels_turning_on_ice():
    car = sim.load_vehicle("hatchback")
    results = {}
    for aid in (False, True):
        s = sim.Simulation(car, ice(), dt=1 / 240, substeps=8)
        s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=15.0, gear=0)
        locked_steps = 0
        for _ in range(240):
            s.step(sim.Controls(brake=1.0, abs=aid))
            locked_steps += int(np.any(s.state.wheel_omega < 1.0))
        results[aid] = (locked_steps, s.telemetry.abs_active.copy())
    assert results[False][0] > 200                 # without ABS the wheels lock and stay locked
    assert results[True][0] < 40                   # with it they keep turning


def test_traction_control_limits_wheelspin_on_ice():
    car = sim.load_vehicle("hatchback")
    slip = {}
    for aid in (False, True):
        s = sim.Simulation(car, ice(), dt=1 / 240, substeps=8)
        s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
        k = []
        for _ in range(480):
            s.step(sim.Controls(throttle=1.0, tc=aid))
            k.append(s.telemetry.kappa[2:].max())
        slip[aid] = float(np.mean(k[240:]))
    assert slip[False] > 1.0
    assert slip[True] < 0.5 * slip[False]


def test_direct_drive_mode_still_drives_both_ways_and_fades_at_its_speed_limit():
    car = sim.with_value(sim.load_vehicle("hatchback"), "drive.mode", "direct")
    fwd = launched(car, 2.0, throttle=1.0)
    assert fwd.state.velocity[0] > 3.0 and fwd.state.engine_omega == 0.0
    back = launched(car, 2.0, throttle=-1.0)
    assert back.state.velocity[0] < -3.0
    # in the air a driven wheel spins up to max_wheel_speed and no further
    s = sim.Simulation(car, sim.World("void", [sim.model.world.Surface("asphalt", 1.0)]), dt=1 / 240, substeps=8)
    s.reset(position=(0.0, 0.0, 50.0))
    s.run(np.tile([1.0, 0.0, 0.0, 0.0], (240 * 3, 1)))
    assert s.state.wheel_omega[2] == pytest.approx(car.drive.max_wheel_speed, rel=0.01)
    assert s.state.wheel_omega[2] <= car.drive.max_wheel_speed


@pytest.mark.parametrize("layout, front_share", [("fwd", 1.0), ("awd", 0.4), ("rwd", 0.0)])
def test_layouts_split_the_driveline_torque(layout, front_share):
    car = sim.with_value(sim.with_value(sim.load_vehicle("hatchback"), "drive.layout", layout),
                         "drive.centre_split", 0.4)
    s = launched(car, 1.0)
    t = s.telemetry.T_drive
    total = t.sum()
    assert total > 100.0
    assert t[0] + t[1] == pytest.approx(front_share * total, rel=1e-12, abs=1e-9)
    assert s.state.velocity[0] > 1.0


@pytest.mark.parametrize("pedal", [0.3, 0.6, 1.0])
def test_the_automatic_upshift_point_rises_with_the_pedal(pedal):
    """Seed 003: upshifts held back under hard acceleration. The hatchback shifts 1 -> 2 once the engine
    passes shift_up_rpm (light + (1 - light) pedal): 6000 x (0.5 + 0.5 pedal) = 3900, 4800, 6000 rpm, but
    never before second gear would turn it above shift_down_rpm: 2500 x 3.5 / 2.1 = 4167 rpm. With traction
    control on: at full throttle in first the rear-driven hatchback is traction-limited, and its open differential
    lets one wheel spin once that wheel passes its peak (a matter of newtons), the engine then ahead of the road
    speed the automatic judges by."""
    car = sim.load_vehicle("hatchback")
    g = car.gearbox
    expected = max(g.shift_up_rpm * (g.shift_up_light + (1.0 - g.shift_up_light) * pedal),
                   g.shift_down_rpm * g.ratios[0] / g.ratios[1])
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    peak = 0.0
    for _ in range(240 * 30):
        s.step(sim.Controls(throttle=pedal, tc=True))
        if s.state.gear == 2:
            break
        peak = max(peak, float(s.state.engine_rpm))
    # the shift begins on the step the engine passes the point (one step adds < 60 rpm here); the fuel is
    # cut while the clutch is open, so the highest engine speed in first gear is the shift point
    assert s.state.gear == 2
    assert peak == pytest.approx(expected, abs=80.0)


def test_a_downshift_blips_the_throttle_up_to_the_lower_gears_speed():
    """A requested downshift with the pedal lifted: with downshift_blip the engine rises toward the lower
    gear's speed g2 omega_w while the clutch is open, so the clutch closes with a smaller jolt; without it
    the engine falls towards idle and the closing clutch has to drag it up (a lurch of engine braking)."""
    def shift_down(blip: float):
        car = sim.with_value(sim.with_value(sim.load_vehicle("hatchback"), "gearbox.mode", "manual"),
                             "gearbox.downshift_blip", blip)
        s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
        s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=20.0, gear=3)
        for _ in range(240):
            s.step(sim.Controls(throttle=0.2))
        s.step(sim.Controls(gear=2))
        rpm = []
        while s.telemetry.gear == 0 or s.state.gear == 3:
            s.step(sim.Controls())
            rpm.append(float(s.state.engine_rpm))
        g2 = car.gearbox.ratios[1] * car.gearbox.final_drive
        target = g2 * float(np.mean(s.state.wheel_omega[2:])) * 60.0 / (2 * math.pi)
        return rpm[-2], target
    blipped, target = shift_down(0.5)
    lifted, _ = shift_down(0.0)
    # third gear at 20 m/s turns the engine at 3476 rpm, second about 5000: half throttle for the 0.25 s
    # shift closes most of that gap (the engine's inertia and its own drag set how much), a lifted foot
    # lets the engine fall away from it
    assert target - blipped < 0.5 * (target - lifted)
    assert blipped > 3476.0 > lifted


def test_a_surface_rolling_resistance_adds_to_the_tires():
    """Coasting in neutral at 8 m/s on flat ground: a surface with rolling resistance 0.05 (grass, gravel)
    slows the car by 0.05 g x m / (m + sum Iw / r^2) more than clean asphalt (the wheels' spin inertia takes
    its share); on the proving ground the grass and gravel patches carry it."""
    car = sim.load_vehicle("hatchback")
    inertia = sum(t.wheel_inertia / t.radius ** 2 for t in (car.front_tire,) * 2 + (car.rear_tire,) * 2)
    expected = 0.05 * 9.81 * car.chassis.mass / (car.chassis.mass + inertia)

    def deceleration(world):
        s = sim.Simulation(car, world, dt=1 / 240, substeps=2)
        s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=8.0, gear=0)
        for _ in range(240):
            s.step(sim.Controls(gear=0))
        v0 = float(np.linalg.norm(s.state.velocity))
        for _ in range(240):
            s.step(sim.Controls(gear=0))
        return v0 - float(np.linalg.norm(s.state.velocity))
    assert deceleration(sim.World.flat(rolling=0.05)) - deceleration(sim.World.flat()) == \
        pytest.approx(expected, rel=0.03)
    pg = sim.load_world("proving_ground")
    assert {s.name: s.rolling for s in pg.surfaces}["grass"] > 0.0
    hit = pg.ray_cast((-45.0, -70.0, 5.0), (0.0, 0.0, -1.0), 10.0)
    assert pg.surfaces[hit.surface].name == "gravel"
