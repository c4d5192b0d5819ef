"""Suspension geometry (issue 30 items 1 and 2, docs/physics.md §7.1): roll centres and anti-dive / anti-squat
share the load transfer between the links and the springs; camber and toe follow their curves. With every
new parameter at 0 the state hashes are unchanged (tests/test_state_hash.py)."""
import math

import numpy as np
import pytest
from steady import steady_state
from steady import with_wheels

import sim
import sim.lab.drives as M
from sim.kernel.units import GRAVITY as G
from sim.lab.drives.batch import Batch
from sim.model.geometry import ride_com_height
from sim.model.geometry import static_lengths
from sim.model.linkage import camber_toe
from sim.model.world import World


def variant(name: str | sim.Vehicle, **values) -> sim.Vehicle:
    car = sim.load_vehicle(name) if isinstance(name, str) else name
    for path, value in values.items():
        car = sim.with_value(car, path.replace("__", "."), value)
    return car


LINKAGE = ("roll_centre", "roll_centre_slope", "anti_brake", "anti_drive", "anti_slope", "toe_deg", "camber_gain",
           "camber_roll", "bump_steer", "compliance_steer")


def neutral(name: str, **values) -> sim.Vehicle:
    """The preset with the seed's wheel on an axis (every linkage parameter 0, docs/physics.md §7.1) and massless
    wheels (the same car, §7.2), then `values`."""
    zero = {f"{axle}_suspension__{key}": 0.0 for axle in ("front", "rear") for key in LINKAGE}
    return variant(with_wheels(sim.load_vehicle(name), 0.0), **{**zero, **values})


def test_steady_circle_load_transfer_and_roll_gradient_match_the_steady_state_formulas():
    """At 0.4 g on the 40 m circle each axle's lateral load transfer and the roll gradient are the formulas'
    (tests/steady.py: the sprung mass through the roll centres and the roll-stiffness split, the springs in series
    with the tires, the unsprung mass at its own height) within 3 %: both presets as shipped (their geometry and
    wheels, docs/physics.md §7.1 "The presets"), variants with raised roll centres (one with disc contacts), with
    the roll centres on the ground, with heavier wheels (the same car: the chassis lighter by as much) and with
    massless wheels (the formula without the unsprung terms)."""
    hatch, boxster = sim.load_vehicle("hatchback"), sim.load_vehicle("boxster_s")
    cars = [hatch, boxster,
            variant("hatchback", front_suspension__roll_centre=0.0, rear_suspension__roll_centre=0.0,
                    front_suspension__roll_centre_slope=0.0),
            variant("hatchback", front_suspension__roll_centre=0.08, rear_suspension__roll_centre=0.15),
            variant("boxster_s", front_suspension__roll_centre=0.10, rear_suspension__roll_centre=0.20),
            variant("hatchback", front_suspension__roll_centre=0.08, rear_suspension__roll_centre=0.15,
                    front_suspension__query="disc", rear_suspension__query="disc"),
            with_wheels(hatch, 55.0),
            with_wheels(variant("boxster_s", front_suspension__roll_centre=0.10, rear_suspension__roll_centre=0.20),
                        60.0, 200000.0),
            with_wheels(hatch, 0.0),
            with_wheels(variant("boxster_s", front_suspension__roll_centre=0.10, rear_suspension__roll_centre=0.20),
                        0.0)]
    results = M.steady_circle(cars)
    for car, r in zip(cars, results):
        ay = r.value("lateral acceleration")
        assert ay == pytest.approx(0.4, abs=0.005)
        phi, front, rear = steady_state(car, ay * G)
        assert r.value("roll gradient") == pytest.approx(math.degrees(phi) / ay, rel=0.03), car
        assert r.value("front lateral load transfer") == pytest.approx(front, rel=0.03), car
        assert r.value("rear lateral load transfer") == pytest.approx(rear, rel=0.03), car
    # roll centres 0.08 / 0.15 m against the ground's
    assert results[3].value("roll gradient") < 0.9 * results[2].value("roll gradient")
    # heavier wheels, the same car: the body, lighter, rolls less
    assert results[6].value("roll gradient") < results[0].value("roll gradient")


def test_the_presets_bump_steer_adds_its_roll_steer_to_the_steering_on_a_circle():
    """Roll steer (Gillespie ch. 6): in a steady turn the outer wheel is in bump and the inner in droop, and
    each toes by bump_steer z (deg/m x m), so the axle steers by |bump_steer| (z_out - z_in) / 2; toe-out in
    bump at the front steers it out of the turn, toe-in at the rear steers the rear with the turn, and on a
    circle of fixed radius the driver adds both. At 0.4 g on the 40 m circle, both presets against themselves
    without bump steer, within 5 % (the travel z from each wheel's compression; the body's roll is the same
    within 1 %)."""
    cars = [sim.load_vehicle("hatchback"), sim.load_vehicle("boxster_s")]
    cars += [variant(c.name, front_suspension__bump_steer=0.0, rear_suspension__bump_steer=0.0) for c in cars]
    r = M.steady_circle(cars)
    for i, car in enumerate(cars[:2]):
        log = r[i].log
        late = log.column("time") >= log.column("time")[-1] - 2.0
        x = {w: float(np.mean(log.column(f"x {w}")[late])) for w in ("FL", "FR", "RL", "RR")}
        steer = (abs(car.front_suspension.bump_steer) * (x["FR"] - x["FL"]) / 2.0
                 + abs(car.rear_suspension.bump_steer) * (x["RR"] - x["RL"]) / 2.0)       # the right wheels outside
        assert r[i].value("roll angle") == pytest.approx(r[i + 2].value("roll angle"), rel=0.01)
        added = r[i].value("road-wheel angle") - r[i + 2].value("road-wheel angle")
        assert added == pytest.approx(steer, rel=0.05), car.name


def test_compliance_steer_turns_each_wheel_by_its_side_force_and_adds_to_the_steering_on_a_circle():
    """Lateral force compliance steer (Gillespie ch. 6): each wheel turns by compliance_steer (deg/kN) x the side
    force its links carry (the tire's less m_u a_y, what its own mass takes), a front wheel out of the turn and
    a rear one into it: in a left turn the front left toes in and the front right out, the rear left out and the
    rear right in. At 0.4 g on the 40 m circle, both presets with 0.3 / 0.1 deg/kN against the same cars
    without: each wheel's toe moves by that within 3 % (the forces from the telemetry), and the driver, on a
    circle of fixed radius, adds the axles' mean turn, c_f (W_f / 2 - m_u g) + c_r (W_r / 2 - m_u g) per g
    (W a wheel's weight, kN), within 10 % (docs/physics.md §7.1)."""
    base = [variant(name, front_suspension__compliance_steer=0.0, rear_suspension__compliance_steer=0.0)
            for name in ("hatchback", "boxster_s")]
    cars = base + [variant(c, front_suspension__compliance_steer=0.3, rear_suspension__compliance_steer=0.1)
                   for c in base]
    r = M.steady_circle(cars)
    sign = {"FL": 1.0, "FR": -1.0, "RL": -1.0, "RR": 1.0}            # toe-in per unit turn with the force
    for i, car in enumerate(cars[2:]):
        logs = (r[i + 2].log, r[i].log)
        late = [log.column("time") >= log.column("time")[-1] - 2.0 for log in logs]
        ay = r[i + 2].value("lateral acceleration") * G
        m_u = {"F": car.front_suspension.unsprung_mass, "R": car.rear_suspension.unsprung_mass}
        c = {"F": 0.3, "R": 0.1}
        turn = 0.0
        for w in sign:
            force = (float(np.mean(logs[0].column(f"Fy {w}")[late[0]])) - m_u[w[0]] * ay) / 1000.0    # kN
            toe = [math.degrees(float(np.mean(log.column(f"toe {w}")[rows]))) for log, rows in zip(logs, late)]
            assert toe[0] - toe[1] == pytest.approx(sign[w] * c[w[0]] * force, rel=0.03), (car.name, w)
            turn += c[w[0]] * force / 2.0
        added = r[i + 2].value("road-wheel angle") - r[i].value("road-wheel angle")
        assert added == pytest.approx(turn, rel=0.10), car.name
        loads = sim.tire_loads(car) / 1000.0                               # kN: each wheel's weight
        per_g = 0.3 * (loads[0] - m_u["F"] * G / 1000.0) + 0.1 * (loads[2] - m_u["R"] * G / 1000.0)
        assert added / r[i + 2].value("lateral acceleration") == pytest.approx(per_g, rel=0.10), car.name


def braking_and_driving_pitch(cars: list[sim.Vehicle]) -> tuple[np.ndarray, np.ndarray]:
    """Pitch per g (deg/g, + nose down) of each car braking at half pedal from 25 m/s, and under 0.6
    throttle in first gear from 8 m/s, once the deceleration or the acceleration has settled."""
    out = []
    for speed, gear, controls, window in ((25.0, 3, sim.Controls(brake=0.5), (1.8, 2.4)),
                                          (8.0, 1, sim.Controls(throttle=0.6), (1.2, 1.6))):
        b = Batch(cars, World.flat(), 8, speed, [gear] * len(cars), steps=steps_for(2.5))
        b.drive(sim.Controls(), 0.5 if gear == 1 else 1.0)
        b.drive(controls, window[1] - (0.5 if gear == 1 else 1.0))
        rows = []
        for log in b.logs():
            late = (log.column("time") > window[0]) & (log.column("time") < window[1])
            rows.append(math.degrees(float(np.mean(log.column("pitch")[late])))
                        / abs(float(np.mean(log.column("a_long")[late]))))
        out.append(np.array(rows))
    return out[0], out[1]


def steps_for(seconds: float) -> int:
    return int(round(seconds * 240.0)) + 1


def test_anti_dive_and_anti_squat_take_their_share_of_the_pitch_off_the_springs():
    """The springs see (1 - anti) of each axle's longitudinal load transfer m a h / L: with equal front and
    rear springs (the hatchback) the pitch per g is proportional to (1 - anti_front) + (1 - anti_rear).
    Braking: 50 % at both axles halves it, 100 % leaves the little the nominal brake balance does not cover
    (rolling resistance, the wheels' spin-down). Driving a rear-driven car: 100 % anti-squat leaves the
    front's lift alone, half; the front's anti_drive does nothing on an undriven axle."""
    cars = [neutral("hatchback"),
            neutral("hatchback", front_suspension__anti_brake=50.0, rear_suspension__anti_brake=50.0),
            neutral("hatchback", front_suspension__anti_brake=100.0, rear_suspension__anti_brake=100.0),
            neutral("hatchback", rear_suspension__anti_drive=100.0),
            neutral("hatchback", rear_suspension__anti_drive=100.0, front_suspension__anti_drive=100.0)]
    braking, driving = braking_and_driving_pitch(cars)
    assert braking[0] > 1.5 and driving[0] < -1.5                 # nose down braking, up accelerating
    assert braking[1] / braking[0] == pytest.approx(0.5, abs=0.03)
    assert abs(braking[2] / braking[0]) < 0.05
    assert driving[3] / driving[0] == pytest.approx(0.5, abs=0.03)
    assert driving[4] == pytest.approx(driving[3], rel=1e-9)


CURVES = dict(front_suspension__camber_deg=-1.0, front_suspension__camber_gain=-30.0,
              front_suspension__toe_deg=0.2, front_suspension__bump_steer=-4.0,
              rear_suspension__camber_deg=-1.5, rear_suspension__camber_roll=1.0,
              rear_suspension__toe_deg=0.3, rear_suspension__bump_steer=2.0,
              front_suspension__roll_centre=0.08, front_suspension__roll_centre_slope=-2.0,
              front_suspension__anti_brake=40.0, front_suspension__anti_slope=-100.0,
              front_suspension__compliance_steer=0.0, rear_suspension__compliance_steer=0.0)   # the curves alone


def held_at(car: sim.Vehicle, left: str, right: str, margin: float = 0.03) -> sim.Simulation:
    """The car held still for three steps (set_state before each) with its left wheels at full "bump" (the
    anchors margin m lower than a wheel at l_min would touch) or full "droop" (margin m higher than at l_max),
    and its right wheels likewise, rolled as that needs (the hatchback: both axles' half track, l_min and
    l_max alike)."""
    sus, r, ht = car.front_suspension, car.front_tire.radius, car.front_axle.half_track
    height = {"bump": lambda c: r + sus.l_min * c - margin, "droop": lambda c: r + sus.l_max * c + margin}
    roll = 0.0                                   # + lifts the left side (about body x)
    for _ in range(50):
        roll = math.asin((height[left](math.cos(roll)) - height[right](math.cos(roll))) / (2.0 * ht))
    z_anchor = car.front_axle.anchor_z - car.chassis.com_z
    z = 0.5 * (height[left](math.cos(roll)) + height[right](math.cos(roll))) - z_anchor * math.cos(roll)
    s = sim.Simulation(car, World.flat(), dt=1.0 / 240.0, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    for _ in range(3):
        s.set_state(position=(0.0, 0.0, z), orientation=(math.cos(roll / 2), math.sin(roll / 2), 0.0, 0.0),
                    velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0))
        s.step(sim.Controls())
    return s


def test_camber_and_toe_at_full_bump_and_droop_are_the_curves_values():
    """Each wheel's camber (against the body) and toe at full droop (l_max), full bump (l_min) and with one
    side at each (the rigid rear axle's camber against the body follows the roll) equal the curves' within
    0.05 deg; the tire's frame and its camber against the ground see them (massless wheels: the wheel where a rigid
    tire puts it)."""
    car = variant(with_wheels(sim.load_vehicle("hatchback"), 0.0), **CURVES)
    l_static = static_lengths(car)
    sus = car.front_suspension                               # (the rear's l_min and l_max are the same)
    for left, right in (("droop", "droop"), ("bump", "bump"), ("bump", "droop"), ("droop", "bump")):
        tel = held_at(car, left, right).telemetry
        l = np.array([sus.l_min if end == "bump" else sus.l_max for end in (left, right, left, right)])
        assert np.allclose(tel.l, l)
        check_curves(car, tel, l_static - l)
    # the front wheel centres' path, level at full bump and droop: across the roll-centre line, y = s (T z +
    # T' z^2 / 2) with T = 0.08 / 0.75, T' = -2 / 0.75; across the brakes' side-view line, x = -(A z + A' z^2
    # / 2) with A = -0.4 (h / L) / share_b (front), A' = 1.0 (h / L) / share_b (-100 %/m)
    f = car.brakes.max_torque_front / car.front_tire.radius
    share = f / (f + car.brakes.max_torque_rear / car.rear_tire.radius)
    h_l = ride_com_height(car) / car.wheelbase / share
    for end in ("bump", "droop"):
        s = held_at(car, end, end)
        z = l_static[0] - (sus.l_min if end == "bump" else sus.l_max)
        across = 0.08 / 0.75 * z - 0.5 * 2.0 / 0.75 * z * z
        along = -(-0.4 * h_l * z + 0.5 * 1.0 * h_l * z * z)
        centre = np.array(s.telemetry.C) - np.array(s.state.position)
        a = car.front_axle
        assert centre[0, 0] == pytest.approx(a.x - car.chassis.com_x + along, abs=1e-4)
        assert centre[0, 1] == pytest.approx(a.half_track + across, abs=1e-4)
        assert centre[1, 1] == pytest.approx(-(a.half_track + across), abs=1e-4)
    t = held_at(car, "bump", "bump").telemetry
    heading = np.degrees(np.arctan2(t.t[:, 1], t.t[:, 0]))              # the tire frame's turn, body level
    side = np.array([1.0, -1.0, 1.0, -1.0])                              # (within the first substep's stir)
    assert np.allclose(heading, -side * np.degrees(t.toe), atol=1e-3)     # toe-in turns each wheel inward
    assert np.allclose(np.degrees(t.camber), side * np.degrees(t.camber_body), atol=1e-3)   # the tire's own


def check_curves(car: sim.Vehicle, tel, travel: np.ndarray) -> None:
    for i in range(4):
        camber, toe = camber_toe(car, i, float(travel[i]), float(travel[i ^ 1]))
        assert math.degrees(tel.camber_body[i]) == pytest.approx(math.degrees(camber), abs=0.05)
        assert math.degrees(tel.toe[i]) == pytest.approx(math.degrees(toe), abs=0.05)


def test_the_advisor_notes_links_whose_load_feeds_itself_and_the_kernel_holds_them():
    """The links carry J = T F_in + A F_x of a tire force of at most mu Fz, Fz = Fs a + J: J feeds itself by
    g = mu sqrt(T^2 + A^2). The hatchback's tire gives at most mu = grip (1 - load_sensitivity) = 1.063 x
    1.055; a 0.08 m front roll centre on a 0.75 m half track is T = 0.1067, margin 1 / g = 8.36. A 0.6 m
    roll centre with grip 1.5 (g = 1.27 > 1: the links would lift the car on their own) is noted, not
    refused, and held: a hard slalom stays finite with the watchdog quiet. Neutral geometry: no such item."""
    mu = 1.063 * (1.0 + 0.055)
    car = neutral("hatchback", front_suspension__roll_centre=0.08)
    items = {i.part: i for i in sim.stability(car, 1.0 / 240.0, 2).items}
    assert items["front suspension links' load"].margin == pytest.approx(1.0 / (mu * 0.08 / 0.75), rel=1e-9)
    assert "rear suspension links' load" not in items
    assert not any("links" in i.part for i in sim.stability(neutral("hatchback"), 1.0 / 240.0, 2).items)
    steep = neutral("hatchback", front_suspension__roll_centre=0.6, rear_suspension__roll_centre=0.6,
                    front_tire__grip=1.5, rear_tire__grip=1.5)
    report = sim.stability(steep, 1.0 / 240.0, 2)
    link = next(i for i in report.items if i.part == "front suspension links' load")
    assert link.margin == pytest.approx(1.0 / (1.5 * 1.055 * 0.8), rel=1e-9) and not link.stable
    assert report.stable and not link.refuses
    s = sim.Simulation(steep, World.flat(), dt=1.0 / 240.0, substeps=2, watchdog="flag")
    s.reset(position=(0.0, 0.0, sim.rest_com_height(steep)), speed=20.0, gear=2)
    for k in range(240 * 5):
        s.step(sim.Controls(throttle=0.5, steer=math.sin(3.0 * k / 240.0)))
    assert s.finite() and not any(s.health)
    assert np.all(np.abs(s.telemetry.Fz_link) <= 0.8 / 0.2 * s.telemetry.Fs * s.telemetry.a + 1e-6)


def test_the_advisor_notes_a_rear_compliance_steer_that_feeds_itself_and_the_kernel_holds_it():
    """A rear wheel turning into its side force (+ compliance_steer at the rear) adds force, which adds turn: a
    loop of gain |k| C_alpha (k in rad/N, C_alpha the tire's cornering stiffness at its static load). Its margin
    is 1 / g by hand from the tire's stiffness; at 0.5 deg/kN on a tire 3 times as stiff g > 1: noted, not
    refused, and a hard slalom stays finite, the watchdog quiet and every toe within the static toe, the bump
    steer and the 3 deg hold. A front wheel turning out of its force makes no such loop: no item."""
    from sim.model.handling import slip_stiffnesses
    car = neutral("hatchback", rear_suspension__compliance_steer=0.2, front_suspension__compliance_steer=0.3)
    items = {i.part: i for i in sim.stability(car, 1.0 / 240.0, 2).items}
    c_alpha = slip_stiffnesses(car.rear_tire, float(sim.tire_loads(car)[2]))[1]
    k = math.radians(0.2) / 1000.0
    assert items["rear compliance steer"].margin == pytest.approx(1.0 / (k * c_alpha), rel=1e-9)
    assert "front compliance steer" not in items
    stiff = neutral("hatchback", rear_suspension__compliance_steer=0.5, rear_tire__by=3.0 * car.rear_tire.by)
    report = sim.stability(stiff, 1.0 / 240.0, 2)
    loop = next(i for i in report.items if i.part == "rear compliance steer")
    assert not loop.stable and report.stable and not loop.refuses
    s = sim.Simulation(stiff, World.flat(), dt=1.0 / 240.0, substeps=2, watchdog="flag")
    s.reset(position=(0.0, 0.0, sim.rest_com_height(stiff)), speed=20.0, gear=2)
    for k in range(240 * 5):
        s.step(sim.Controls(throttle=0.5, steer=math.sin(3.0 * k / 240.0)))
        assert np.all(np.abs(np.degrees(s.telemetry.toe)) <= 3.0 + 1e-9)
    assert s.finite() and not any(s.health)
