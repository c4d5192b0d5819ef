"""Benchmark: test drives in batches. `python -m sim.lab.bench_drives [--n 1 16 64] [--alone 4]`

The steady circle (`steady-circle`, 12 s at dt = 1/240 s: 2880 steps a car) of N variants of the hatchback
(springs, anti-roll bars, mass and grip varied) driven in one batch (sim.lab.drives.run_batch): variant-drives
per second and car-steps per second, and the speed-up against driving them one by one (measured in the same
run on the first `--alone` variants, whose batch figures must equal their drives alone: it says so). Where
the batch's time goes: the physics step (Simulation.step: the kernel and its call), the driver model
(Driver.controls: the observation, pure pursuit, the speed PI), the telemetry logs (BatchLog.add) and the
rest (placing the cars, the figures). Prints figures; it asserts nothing (tests never depend on wall-clock
time).
"""
from __future__ import annotations

import argparse
import time
from contextlib import contextmanager

import numpy as np

import sim
from sim.lab.bench import machine
from sim.lab.driver import Driver
from sim.lab.drives import run
from sim.lab.drives import run_batch
from sim.lab.logs import BatchLog

DRIVE = "steady-circle"


def variants(n: int) -> list:
    """n variants of the hatchback: spring rates 0.7-1.3 times, anti-roll bars 0-30 kN/m, mass 0.9-1.2 times
    and grip 0.85-1.1 times the preset's, spread over the batch (the first is the preset itself)."""
    car = sim.load_vehicle("hatchback")
    out = [car]
    rng = np.random.default_rng(29)
    for _ in range(n - 1):
        k, roll, mass, grip = rng.uniform((0.7, 0.0, 0.9, 0.85), (1.3, 30000.0, 1.2, 1.1))
        v = car
        for key, value in (("front_suspension.k", k * car.front_suspension.k),
                           ("rear_suspension.k", k * car.rear_suspension.k),
                           ("front_suspension.anti_roll", roll), ("chassis.mass", mass * car.chassis.mass),
                           ("front_tire.grip", grip * car.front_tire.grip),
                           ("rear_tire.grip", grip * car.rear_tire.grip)):
            v = sim.with_value(v, key, float(value))
        out.append(v)
    return out


@contextmanager
def timers(places: dict):
    """Time every call of the methods `places` names ({label: (class, method name)}): yields {label: s}."""
    spent = {label: 0.0 for label in places}
    originals = {label: getattr(cls, name) for label, (cls, name) in places.items()}

    def timed(label, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - t0
        return wrapper
    for label, (cls, name) in places.items():
        setattr(cls, name, timed(label, originals[label]))
    try:
        yield spent
    finally:
        for label, (cls, name) in places.items():
            setattr(cls, name, originals[label])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1, 16, 64], help="batch sizes")
    ap.add_argument("--alone", type=int, default=4, help="variants driven one by one for the comparison")
    args = ap.parse_args()
    cars = variants(max(args.n + [args.alone]))
    print(f"machine: {machine()}, numba threads {sim.batch.threads()}")
    run(DRIVE, cars[0])                                          # compiled and warm
    t0 = time.perf_counter()
    alone = [run(DRIVE, c) for c in cars[:args.alone]]
    alone_rate = args.alone / (time.perf_counter() - t0)
    steps = len(alone[0].log)
    print(f"{DRIVE}, {steps} steps a car; one by one: {alone_rate:.2f} drives/s, {alone_rate * steps:,.0f} "
          f"car-steps/s ({args.alone} cars)")
    print(f"{'N':>6s} {'wall s':>8s} {'drives/s':>9s} {'car-steps/s':>12s} {'speed-up':>9s} {'step s':>7s} "
          f"{'driver s':>9s} {'logs s':>7s} {'rest s':>7s}  same as alone")
    places = {"step": (sim.Simulation, "step"), "driver": (Driver, "controls"), "logs": (BatchLog, "add")}
    for n in args.n:
        with timers(places) as spent:
            t0 = time.perf_counter()
            results = run_batch(DRIVE, cars[:n])
            wall = time.perf_counter() - t0
        same = all([f.value for f in a.figures] == [f.value for f in b.figures]
                   for a, b in zip(alone, results))
        rate = n / wall
        rest = wall - sum(spent.values())
        print(f"{n:6d} {wall:8.2f} {rate:9.2f} {rate * steps:12,.0f} {rate / alone_rate:9.1f} {spent['step']:7.2f} "
              f"{spent['driver']:9.2f} {spent['logs']:7.2f} {rest:7.2f}  {'yes' if same else 'NO'} "
              f"({min(n, args.alone)} cars)")
        del results


if __name__ == "__main__":
    main()
