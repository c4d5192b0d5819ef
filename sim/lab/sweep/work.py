"""One batch of a sweep, as any engine runs it: the variants' cars built from the base car, every drive of
the sweep driven for all of them in one Simulation (`run_batch`), one row per variant.

A car whose drive blows up (sim.BlowUp) or that the stability advisor refuses does not cost the others
their rows: the batch is driven again without it (the BlowUp names the car) or split in halves (a refusal
names no index), and that car's row keeps the drive's figures empty with the one-line reason in `error`.
Every other car's figures are those of its drive alone, bit for bit, whichever batch it ends up in.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from sim.lab.drives.results import Result
from sim.lab.drives.suite import run_batch
from sim.lab.logs import LogMemory
from sim.lab.logs import reused_memory
from sim.model.checks import check_consistency
from sim.model.checks import check_value
from sim.model.checks import field_info
from sim.model.files import ConfigError
from sim.model.params import Vehicle
from sim.watchdog import BlowUp

OK = "ok"


@dataclass
class Job:
    """A batch: the base car, the drives, the varied paths and each variant's (id, values)."""
    base: Vehicle
    drives: list[str]
    paths: list[str]
    variants: list[tuple[str, tuple[float, ...]]]


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def car_of(base: Vehicle, paths: Sequence[str], values: Sequence[float]) -> Vehicle:
    """The base car with every path set to its value, each checked against its range and then the whole
    against the relations between parameters (ConfigError for a combination the model refuses, e.g. a
    mass too light for the body's moments of inertia)."""
    groups: dict[str, dict] = {}
    for p, v in zip(paths, values):
        gname, _, fname = p.partition(".")
        groups.setdefault(gname, {})[fname] = check_value(field_info(p), v, base.name, p)
    car = dataclasses.replace(base, **{g: dataclasses.replace(getattr(base, g), **changes)
                                       for g, changes in groups.items()})
    check_consistency(car, base.name)
    return car


def drive_apart(name: str, cars: list[Vehicle]) -> list[Result | str]:
    """`run_batch(name, cars)`, a car that blows up or is refused replaced by the reason (one line)."""
    if not cars:
        return []
    try:
        return list(run_batch(name, cars))
    except BlowUp as exc:
        i = exc.vehicle
        if len(cars) == 1:
            return [f"blew up: {one_line(exc)}"]
        if isinstance(i, int) and 0 <= i < len(cars):
            rest = drive_apart(name, cars[:i] + cars[i + 1:])
            return rest[:i] + [f"blew up: {one_line(exc)}"] + rest[i:]
        half = len(cars) // 2
        return drive_apart(name, cars[:half]) + drive_apart(name, cars[half:])
    except ConfigError as exc:                # the stability advisor refused a car's parameters
        if len(cars) == 1:
            return [f"refused: {one_line(exc)}"]
        half = len(cars) // 2
        return drive_apart(name, cars[:half]) + drive_apart(name, cars[half:])


MEMORY = LogMemory()      # the logs' memory, kept from batch to batch in this process (sim.lab.logs.LogMemory)


def drive_job(job: Job) -> list[dict]:
    """The rows of a batch: {"variant", each path, "status", "error", "drive/figure": value ...}; a row
    whose car could not be built or driven has status "failed" and the reasons in "error". The drives'
    logs are kept in memory reused from the batch before (only the figures leave the batch)."""
    with reused_memory(MEMORY):
        return rows_of(job)


def rows_of(job: Job) -> list[dict]:
    rows, cars = [], []
    for vid, values in job.variants:
        row = {"variant": vid, **dict(zip(job.paths, values)), "status": OK, "error": ""}
        try:
            cars.append(car_of(job.base, job.paths, values))
        except ConfigError as exc:
            row["status"], row["error"] = "failed", f"refused: {one_line(exc)}"
            cars.append(None)
        rows.append(row)
    for name in job.drives:
        which = [i for i, c in enumerate(cars) if c is not None]
        for i, out in zip(which, drive_apart(name, [cars[i] for i in which])):
            if isinstance(out, str):
                rows[i]["status"] = "failed"
                rows[i]["error"] = "; ".join(e for e in (rows[i]["error"], f"{name}: {out}") if e)
            else:
                for f in out.figures:
                    rows[i][f"{name}/{f.name}"] = float(f.value)
    return rows


def start_worker(threads: int) -> None:
    """A worker process of the local engine: Ctrl+C is the parent's to handle (it stops the pool), and the
    batch's kernel gets `threads` cores (the pool's processes share the machine's)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import numba
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
