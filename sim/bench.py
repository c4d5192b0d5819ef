"""Benchmark: microseconds per vehicle-step of the full chain. `python -m sim.bench`

Prints figures; it asserts nothing (tests never depend on wall-clock time).
  N = 1    : Simulation.step() called from Python once per step (what the app does)
  N = 1024 : Simulation.run() over a control trace, per vehicle-step
on the flat world and on the proving ground, at dt = 1/240 s with 2 and 8 substeps.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import sim


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def bench_single(car, world, substeps: int, steps: int) -> float:
    s = sim.Simulation(car, world, dt=1 / 240, substeps=substeps)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    c = sim.Controls(throttle=0.3, steer=0.1)
    for _ in range(200):
        s.step(c)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(steps):
            s.step(c)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e6


def bench_batch(car, world, substeps: int, n: int, steps: int) -> float:
    s = sim.Simulation(car, world, dt=1 / 240, substeps=substeps, n_vehicles=n)
    rng = np.random.default_rng(0)
    xy = rng.uniform(-20, 20, (n, 2))
    s.reset(position=np.column_stack([xy, np.full(n, sim.rest_com_height(car))]), yaw=rng.uniform(0, 6.28, n))
    trace = np.zeros((steps, n, 4))
    trace[..., 0] = 0.3
    trace[..., 2] = 0.1
    s.run(trace[:10])
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        s.run(trace)
        best = min(best, (time.perf_counter() - t0) / (steps * n))
    return best * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--n", type=int, default=1024)
    args = ap.parse_args()
    car = sim.load_vehicle("hatchback")
    print(f"machine: {machine()}")
    print(f"{'world':16s} {'substeps':>8s} {'N=1 us/step':>12s} {'N=' + str(args.n) + ' us/vehicle-step':>22s}")
    for wname in ("flat", "proving_ground"):
        world = sim.load_world(wname)
        for sub in (2, 8):
            one = bench_single(car, world, sub, args.steps)
            many = bench_batch(car, world, sub, args.n, max(20, args.steps // 50))
            print(f"{wname:16s} {sub:8d} {one:12.2f} {many:22.3f}")


if __name__ == "__main__":
    main()
