"""Benchmark: a sweep. `python -m sim.lab.bench_sweep [--workers 2] [--dask 2] [--batch N] [--drive steady-circle]`

The 1024 variants of the hatchback a 4 x 4 x 8 x 8 grid makes (front and rear spring rates 22-40 kN/m, front
and rear anti-roll bars 0-35 kN/m) driven through the steady circle (12 s at dt = 1/240 s: 2880 steps a car)
by the local engine, into a temporary folder, as `contactpatch sweep` does: the wall time, variant-drives per
second and car-steps per second per core; and per CPU-second the sweep's processes used (this process and
its workers: what another load on the machine does not change). With `--dask N` the same sweep then runs on
a local Dask cluster of N worker processes (`--engine dask`, the `cluster` extra), and the cluster's wall time
is given as a ratio to the local engine's of as many workers. Each wall time runs from the engine's start
(a cluster's workers started and warmed up) to its close. The car as loaded is driven first (outside the
time). Prints figures; it asserts nothing (tests never depend on wall-clock time).
"""
from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from sim.lab.bench import machine
from sim.lab.sweep.engine import local_engine
from sim.lab.sweep.run import prepare
from sim.lab.sweep.run import run_grid
from sim.lab.sweep.spec import load_sweep
from sim.model.vehicle_toml import load_vehicle

GRID = """vehicle = "hatchback"
drives = ["{drive}"]
[grid]
"front_suspension.k" = [22000.0, 28000.0, 34000.0, 40000.0]
"rear_suspension.k" = [22000.0, 28000.0, 34000.0, 40000.0]
"front_suspension.anti_roll" = [0.0, 5000.0, 10000.0, 15000.0, 20000.0, 25000.0, 30000.0, 35000.0]
"rear_suspension.anti_roll" = [0.0, 5000.0, 10000.0, 15000.0, 20000.0, 25000.0, 30000.0, 35000.0]
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[os.cpu_count() or 1],
                    help="local engines' process counts to measure (default: one per core)")
    ap.add_argument("--dask", type=int, metavar="N", help="also on a local Dask cluster of N workers")
    ap.add_argument("--batch", type=int, help="cars a batch (default: the sweep's own choice)")
    ap.add_argument("--drive", default="steady-circle")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="contactpatch-bench-sweep-") as tmp:
        path = Path(tmp) / "sweep.toml"
        path.write_text(GRID.format(drive=args.drive))
        spec = load_sweep(path)
        car = load_vehicle(spec.vehicle)
        print(f"{spec.count()} variants of {car.name} through {args.drive}")
        print(f"{'engine':>6s} {'workers':>7s} {'wall s':>8s} {'drives/s':>9s} {'car-steps/s':>12s} {'per core':>10s} "
              f"{'CPU s':>7s} {'per CPU-s':>10s} {'failed':>7s}")
        walls = {}
        for engine, workers in [("local", w) for w in args.workers] + ([("dask", args.dask)] if args.dask else []):
            table, meta = prepare(spec, car, Path(tmp) / f"out-{engine}-{workers}")
            cpu0, t0 = cpu_seconds(), time.perf_counter()
            if engine == "dask":
                from sim.lab.sweep.cluster import DaskEngine
                runner = DaskEngine(car, workers=workers)
            else:
                runner = local_engine(workers)
            prog = run_grid(spec, car, table, meta, runner, args.batch)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
            walls[engine, workers] = wall
            rate = prog.driven / wall
            steps = rate * meta["steps"]
            print(f"{engine:>6s} {workers:7d} {wall:8.1f} {rate:9.1f} {steps:12,.0f} {steps / cores:10,.0f} {cpu:7.1f} "
                  f"{prog.driven * meta['steps'] / cpu:10,.0f} {prog.failed:7d}")
        if ("dask", args.dask) in walls and ("local", args.dask) in walls:
            print(f"the Dask cluster's wall time / the local engine's ({args.dask} workers each): "
                  f"{walls['dask', args.dask] / walls['local', args.dask]:.2f}")
        print(f"load average over the last minute after the runs: {os.getloadavg()[0]:.2f} (another process's load "
              f"slows the wall time, not the per-CPU-second rate)")


def cpu_seconds() -> float:
    """User and system time of this process and of its finished children (the engine's workers, joined)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
