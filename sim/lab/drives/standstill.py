"""Drives at a standstill: the car left alone on flat ground (its wheel loads and sag, and that it does not
creep), parked across a slope on the handbrake (static friction holds it), and braked on a turning platform
(static friction carries it round with the platform)."""
from __future__ import annotations

import math

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.kernel.vec import quat_rotate_inv
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.drives.batch import Batch
from sim.lab.drives.batch import batched
from sim.lab.drives.batch import norm
from sim.lab.drives.batch import steps_of
from sim.lab.drives.common import SUBSTEPS
from sim.lab.drives.common import drift
from sim.lab.drives.common import settled
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.model.geometry import tire_loads
from sim.model.params import Vehicle
from sim.model.world import Box
from sim.model.world import Surface
from sim.model.world import World
from sim.simulation import Simulation


@batched
def settle(cars: list[Vehicle], seconds: float = 3.0) -> list[Result]:
    """Left alone on flat ground: each wheel's load against its static share M g b / L / 2 (front) and
    M g a / L / 2 (rear) of the whole car (the sprung body's share and the wheel's own weight,
    sim.model.geometry.tire_loads), and each axle's sag (compression)."""
    b = Batch(cars, World.flat(), steps=steps_of(seconds))
    b.drive(Driver(OpenLoop(lambda t: 0.0)), seconds)
    fz, x = b.wheels("Fz"), b.wheels("x")
    out = []
    for i, (car, log) in enumerate(zip(cars, b.logs())):
        share = tire_loads(car, G)
        figs = [Figure(f"load {w}", float(fz[i, k]), "N", share[k] * 0.99, share[k] * 1.01, "M g b / L / 2 +- 1 %")
                for k, w in enumerate(("FL", "FR", "RL", "RR"))]
        figs += [Figure("sag front", float(x[i, :2].mean()) * 1000, "mm"),
                 Figure("sag rear", float(x[i, 2:].mean()) * 1000, "mm")]
        out.append(Result("settle", car.name, figs, log))
    return out


def rest_drift(car: Vehicle, substeps: int = 8, seconds: float = 60.0) -> float:
    """A car on flat ground with no input, after 3 s to settle: how far it moves in `seconds` (m)."""
    return drift(settled(car, World.flat(), substeps), seconds)


@batched
def parked(cars: list[Vehicle], slope_deg: float = 15.0, seconds: float = 30.0,
           substeps: int = SUBSTEPS) -> list[Result]:
    """Parked across a slope (it falls to the car's right) on the handbrake, in neutral: how far it moves in
    `seconds` after 3 s to settle (static friction holds it: nothing)."""
    hand = Controls(handbrake=1.0, gear=0)
    b = Batch(cars, World.flat(slope_deg=slope_deg), substeps, yaw=math.pi / 2, steps=steps_of(seconds))
    b.drive(hand, 3.0, log=False)
    p0 = b.position()
    b.drive(hand, seconds)
    moved = norm(b.position() - p0)
    return [Result("parked", car.name, [Figure(f"movement in {seconds:g} s on {slope_deg:g} deg",
                                               float(moved[i]) * 1000.0, "mm", None, 1.0, "static friction: < 1 mm")],
                   log) for i, (car, log) in enumerate(zip(cars, b.logs()))]


def parked_drift(car: Vehicle, slope_deg: float = 15.0, substeps: int = 8, seconds: float = 60.0) -> float:
    """The parked drive's movement (m) in `seconds`."""
    return parked(car, slope_deg, seconds, substeps).figures[0].value / 1000.0


TURNTABLE_SPIN = 0.3      # rad/s: the proving ground's turntable (config/worlds/proving_ground.toml)
TURNTABLE_RADIUS = 4.0    # m from its axis to the parked car's centre of mass


def turntable(spin: float = TURNTABLE_SPIN, radius: float = TURNTABLE_RADIUS) -> World:
    """Flat asphalt with the proving ground's turntable on it (14 m square, 0.1 m thick, steel, turning at
    `spin` rad/s about z), its axis `radius` m behind the origin (-x), where a car is placed facing away."""
    flat = World.flat()
    return World(f"turntable ({spin:g} rad/s)", flat.surfaces + [Surface("steel", 0.8)], planes=flat.planes,
                 boxes=[Box("steel", (-radius, 0.0, 0.0), (14.0, 14.0, 0.1), angular_velocity=(0.0, 0.0, spin),
                            name="turntable")])


def on_turntable(sim: Simulation) -> np.ndarray:
    """(N, 3) m: the centres of mass in the turntable's own frame (box 0 of the world), at sim's time."""
    c, q, _ = sim.world.box_pose(0, sim.time)
    pos = np.array(sim.state.position, dtype=float).reshape(-1, 3)
    return np.array([quat_rotate_inv(tuple(q), tuple(p - c)) for p in pos])


def turntable_drift(car: Vehicle, substeps: int = 2, seconds: float = 60.0, spin: float = TURNTABLE_SPIN,
                    radius: float = TURNTABLE_RADIUS) -> float:
    """Braked (foot brake and handbrake, neutral) on a turning platform, `radius` m from its axis: how far
    (m) the car moves on the platform in `seconds`, after 3 s in which the platform takes it up from rest.
    Static friction carries it round with the platform: nothing. (Held to the surface's velocity alone it
    slid outward by 1/2 W^2 r h^2 a substep, docs/physics.md §11.)"""
    b = Batch(car, turntable(spin, radius), substeps, lift=0.05, log=False)
    row = Controls(brake=1.0, handbrake=1.0, gear=0).row()
    b.sim.run(np.tile(row, (steps_of(3.0), 1)))
    p0 = on_turntable(b.sim)
    b.sim.run(np.tile(row, (steps_of(seconds), 1)))
    return float(np.linalg.norm(on_turntable(b.sim) - p0, axis=1).max())
