"""Drives at a standstill: the car left alone on flat ground (its wheel loads and sag, and that it does not
creep), and parked across a slope on the handbrake (static friction holds it)."""
from __future__ import annotations

import math

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.lab.driver import Driver
from sim.lab.driver import OpenLoop
from sim.lab.drives.common import DT
from sim.lab.drives.common import SUBSTEPS
from sim.lab.drives.common import drift
from sim.lab.drives.common import drive_for
from sim.lab.drives.common import on_flat
from sim.lab.drives.common import settled
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.lab.logs import TelemetryLog
from sim.model.params import Vehicle
from sim.model.world import World


def settle(car: Vehicle, seconds: float = 3.0) -> Result:
    """Left alone on flat ground: each wheel's load against its static share M g b / L / 2 (front) and
    M g a / L / 2 (rear), and each axle's sag (compression)."""
    s = on_flat(car)
    log = TelemetryLog(replayable=True)
    drive_for(s, Driver(OpenLoop(lambda t: 0.0)), seconds, log)
    m = car.chassis.mass * G
    a = car.front_axle.x - car.chassis.com_x
    b = car.chassis.com_x - car.rear_axle.x
    share = [m * b / car.wheelbase / 2] * 2 + [m * a / car.wheelbase / 2] * 2
    fz = np.asarray(s.telemetry.Fz, dtype=float)
    x = np.asarray(s.telemetry.x, dtype=float)
    figs = [Figure(f"load {w}", float(fz[i]), "N", share[i] * 0.99, share[i] * 1.01, "M g b / L / 2 +- 1 %")
            for i, w in enumerate(("FL", "FR", "RL", "RR"))]
    figs += [Figure("sag front", float(x[:2].mean()) * 1000, "mm"),
             Figure("sag rear", float(x[2:].mean()) * 1000, "mm")]
    return Result("settle", car.name, figs, log)


def rest_drift(car: Vehicle, substeps: int = 8, seconds: float = 60.0) -> float:
    """A car on flat ground with no input, after 3 s to settle: how far it moves in `seconds` (m)."""
    return drift(settled(car, World.flat(), substeps), seconds)


def parked(car: Vehicle, slope_deg: float = 15.0, seconds: float = 30.0, substeps: int = SUBSTEPS) -> Result:
    """Parked across a slope (it falls to the car's right) on the handbrake, in neutral: how far it moves in
    `seconds` after 3 s to settle (static friction holds it: nothing)."""
    hand = Controls(handbrake=1.0, gear=0)
    s = settled(car, World.flat(slope_deg=slope_deg), substeps, controls=hand, yaw=math.pi / 2)
    log = TelemetryLog(replayable=True)
    p0 = np.array(s.state.position, dtype=float)
    for _ in range(int(round(seconds / DT))):
        s.step(hand)
        log.add(s, hand)
    moved = float(np.linalg.norm(np.asarray(s.state.position) - p0))
    return Result("parked", car.name, [Figure(f"movement in {seconds:g} s on {slope_deg:g} deg", moved * 1000.0, "mm",
                                              None, 1.0, "static friction: < 1 mm")], log)


def parked_drift(car: Vehicle, slope_deg: float = 15.0, substeps: int = 8, seconds: float = 60.0) -> float:
    """The parked drive's movement (m) in `seconds`."""
    return parked(car, slope_deg, seconds, substeps).figures[0].value / 1000.0

