"""Cars driven together: every test drive is written once, for a batch of N cars in one Simulation (one
driver call a step for all of them, each car its own parameters); a car driven alone is a batch of one.

A car whose drive has ended (it stopped, left the circle) is held from then on (no throttle or steering, the
brake full on) while the others drive on, and its log ends with the step its drive ended on. The vehicles
do not act on one another and every per-car quantity is worked out by the same array operations for one
car or many, so each car's figures and log are bit for bit those of its drive alone.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import numpy as np

from sim.controls import Controls
from sim.lab.driver import Driver
from sim.lab.logs import BatchLog
from sim.lab.logs import TelemetryLog
from sim.model.geometry import rest_com_height
from sim.model.params import Vehicle
from sim.model.world import World
from sim.simulation import Simulation

DT = 1.0 / 240.0          # s: the step every test drive runs at
SUBSTEPS = 2


def batched(drive):
    """A drive written for a list of cars, callable with one car (-> its result) or a sequence of cars
    (-> a list of results, in order)."""
    @functools.wraps(drive)
    def either(car, *args, **kwargs):
        if isinstance(car, Vehicle):
            return drive([car], *args, **kwargs)[0]
        return drive(list(car), *args, **kwargs)
    return either


def held(controls: Controls, driving: np.ndarray) -> Controls:
    """`controls` for the cars still `driving` ((N,) bool); the others held: no throttle, no steering, the
    brake full on."""
    return dataclasses.replace(controls, throttle=np.where(driving, controls.throttle, 0.0),
                               brake=np.where(driving, controls.brake, 1.0),
                               steer=np.where(driving, controls.steer, 0.0))


class Batch:
    """N cars in one Simulation (`sim`), each placed upright at the origin at its own rest height (+ `lift`
    m), heading `yaw` (rad), moving at `speed` (m/s) in its gear (`gears`: one per car, or None for the
    reset's default); which of them still drive (`active`, (N,) bool) and, with `log`, every car's
    telemetry log (`steps`: about how many steps it will take, the log's first size)."""

    def __init__(self, cars: Vehicle | Sequence[Vehicle], world: World, substeps: int = SUBSTEPS,
                 speed: float = 0.0, gears: Sequence[int] | None = None, lift: float = 0.0, yaw: float = 0.0,
                 dt: float = DT, log: bool = True, steps: int = 1024):
        self.cars = [cars] if isinstance(cars, Vehicle) else list(cars)
        self.n = len(self.cars)
        self.sim = Simulation(self.cars, world, dt=dt, substeps=substeps, n_vehicles=self.n)
        self.sim.reset(position=[(0.0, 0.0, rest_com_height(car) + lift) for car in self.cars], yaw=yaw, speed=speed,
                       gear=1 if gears is None else [int(g) for g in gears])
        self.active = np.ones(self.n, dtype=bool)
        self.log = BatchLog(self.n, steps) if log else None

    def step(self, controls: Controls, log: bool = True) -> None:
        """One step: `controls` for the cars still driving, the others held; logged (with `log`)."""
        if not self.active.all():
            controls = held(controls, self.active)
        self.sim.step(controls)
        if log and self.log is not None:
            self.log.add(self.sim, controls, self.active)

    def finish(self, done: np.ndarray) -> None:
        """The cars `done` ((N,) bool) end their drive with the step just taken (its row is their last)."""
        self.active &= ~np.asarray(done, dtype=bool)

    def drive(self, driver: Driver | Controls, seconds: float, until=None, log: bool = True) -> None:
        """`driver` (or the same controls every step) drives for `seconds`, each car until `until(sim)` ((N,)
        bool) says it is done, the whole batch until none drives."""
        for _ in range(int(round(seconds / self.sim.dt))):
            if not self.active.any():
                break
            self.step(driver if isinstance(driver, Controls) else driver.controls(self.sim), log)
            if until is not None:
                self.finish(until(self.sim))

    # what the drives read of every car, (N, ...) arrays for one car too
    def position(self) -> np.ndarray:
        """(N, 3) m: the centres of mass (a copy)."""
        return np.array(self.sim.state.position, dtype=float).reshape(self.n, 3)

    def velocity(self) -> np.ndarray:
        """(N, 3) m/s (a copy)."""
        return np.array(self.sim.state.velocity, dtype=float).reshape(self.n, 3)

    def speed(self) -> np.ndarray:
        """(N,) m/s: the length of each velocity."""
        return norm(self.velocity())

    def gear(self) -> np.ndarray:
        """(N,) the engaged gears."""
        return np.asarray(self.sim.state.gear).reshape(self.n)

    def wheels(self, name: str) -> np.ndarray:
        """(N, 4) a per-wheel telemetry channel (a copy), wheels FL FR RL RR."""
        return np.array(getattr(self.sim.telemetry, name), dtype=float).reshape(self.n, 4)

    def logs(self, worlds: Sequence[World] | None = None) -> list[TelemetryLog]:
        """Each car's log (BatchLog.logs)."""
        return self.log.logs(worlds)


def norm(v: np.ndarray) -> np.ndarray:
    """(N,) the length of each row of v (N, 2) or (N, 3), summed in order x, y, z."""
    total = v[:, 0] * v[:, 0]
    for k in range(1, v.shape[1]):
        total = total + v[:, k] * v[:, k]
    return np.sqrt(total)


def steps_of(seconds: float, dt: float = DT) -> int:
    """The steps of `seconds` (the size a batch's logs start with)."""
    return int(round(seconds / dt)) + 1
