"""The steering rack against a spinning wheel (docs/physics.md §2 "The rack's torque"): turning a wheel whose
spin momentum H = Iw omega turns with a rolling body takes the torque H p cos(delta) about the steering axis
(p: the body's roll rate), and the rack does that torque times the angle's change of work on the car. Up to
`steering.max_torque` it does; against more it stalls and holds the angle."""
from __future__ import annotations

import numpy as np
import pytest

import sim
from sim.kernel import tables as T
from sim.model.world import World

SPIN = 300.0            # rad/s: the wheels' spin
ROLL = 2.0              # rad/s: the body's roll rate
IW = 1.0                # kg m^2: each wheel's spin inertia (H = 300 N m s, H p = 600 N m)


def rolling_car(max_torque: float, substeps: int = 2) -> sim.Simulation:
    """The hatchback with massless wheels of IW spinning at SPIN, weightless far above the ground, drag off,
    in neutral, its body rolling at ROLL about its own x axis."""
    car = sim.with_value(sim.load_vehicle("hatchback"), "steering.max_torque", max_torque)
    for key, value in (("front_tire.wheel_inertia", IW), ("rear_tire.wheel_inertia", IW),
                       ("front_suspension.unsprung_mass", 0.0), ("rear_suspension.unsprung_mass", 0.0),
                       ("aero.drag_coefficient", 0.0), ("steering.rate_deg_s", 90.0)):
        car = sim.with_value(car, key, value)
    flat = sim.load_world("flat")
    world = World(flat.name, flat.surfaces, flat.planes, gravity=0.0)
    s = sim.Simulation(car, world, dt=1 / 240, substeps=substeps, watchdog="flag")
    s.set_state(position=(0.0, 0.0, 100.0), velocity=(0.0, 0.0, 0.0), angular_velocity=(ROLL, 0.0, 0.0),
                wheel_spin=SPIN, gear=0)
    return s


def rotational_energy(s: sim.Simulation) -> float:
    """The body's rotational kinetic energy (J): w . I w / 2 in the body frame (massless wheels)."""
    c = s.params[0].chassis
    q = np.asarray(s.state.orientation, dtype=float).reshape(4)
    w = np.asarray(s.state.angular_velocity, dtype=float).reshape(3)
    qw, qx, qy, qz = q
    r = np.array([[1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)],
                  [2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)],
                  [2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)]])
    wb = r.T @ w                                                     # body -> world is r
    return 0.5 * float(np.dot(wb * np.array([c.inertia_roll, c.inertia_pitch, c.inertia_yaw]), wb))


@pytest.mark.parametrize("substeps", [2, 4])
def test_the_rack_pays_for_the_energy_the_turned_spin_gives_the_body(substeps):
    """With a rack strong enough (H p = 600 N m < 20 000), the front wheels steer to the left lock and back
    at 90 deg/s; the body's rotational energy changes by exactly the work the rack did (the wheels' spin
    energy stays), and that work is of the size H p d(delta): a steering forced at any torque would be
    energy from nowhere, which the watchdog now counts as the driver's. (3 %: the body's rotation step itself
    drifts by about 1 % of that in the same run without steering, the rack's torque is taken at the substep's
    start.)"""
    s = rolling_car(20000.0, substeps)
    e0 = rotational_energy(s)
    for steer in (1.0,) * 120 + (-1.0,) * 60:
        s.step(sim.Controls(steer=steer, gear=0))
    work = float(s.tables.body_telemetry[0, T.TB_WORK_RACK])
    gained = rotational_energy(s) - e0
    assert abs(work) > 100.0                                        # the rack did work of that size
    assert gained == pytest.approx(work, rel=0.03)
    assert np.allclose(np.asarray(s.telemetry.omega, dtype=float), SPIN)   # the spin energy stays
    assert s.health[0] == ""


def test_a_weak_rack_stalls_only_against_the_gyroscope():
    """With a rack of 200 N m against H p = 600 N m: steering left (with the gyroscope's torque against it)
    the front wheels stay straight; steering right (the torque helping, the rack taking energy out) they
    turn at the steering rate. The rack never puts energy in."""
    s = rolling_car(200.0)
    e0 = rotational_energy(s)
    for _ in range(24):
        s.step(sim.Controls(steer=1.0, gear=0))
    assert np.allclose(np.asarray(s.telemetry.steer, dtype=float), 0.0)
    for _ in range(24):
        s.step(sim.Controls(steer=-1.0, gear=0))
    steer = np.asarray(s.telemetry.steer, dtype=float).reshape(4)
    assert steer[0] == pytest.approx(-np.radians(90.0) * 0.1, rel=0.01)    # 0.1 s at 90 deg/s
    assert float(s.tables.body_telemetry[0, T.TB_WORK_RACK]) <= 0.0
    assert rotational_energy(s) <= e0 * (1 + 1e-9)
