"""Running a sweep: the car as loaded driven once (its figures name the table's columns and are the
reference in summary.md), the variants not yet in the folder's table packed into batches and handed to an
engine, each finished batch's rows written as it comes, then summary.md and the plots."""
from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from sim.lab.drives.suite import run
from sim.lab.logs import CHANNELS
from sim.lab.progress import progress_bar
from sim.lab.sweep.engine import Engine
from sim.lab.sweep.spec import Sweep
from sim.lab.sweep.table import Table
from sim.lab.sweep.table import fingerprint
from sim.lab.sweep.table import read_meta
from sim.lab.sweep.table import same_sweep
from sim.lab.sweep.table import write_meta
from sim.lab.sweep.work import Job
from sim.lab.sweep.work import one_line
from sim.model.files import ConfigError
from sim.model.params import Vehicle
from sim.watchdog import BlowUp

LOG_BYTES = 1e9           # a batch's telemetry logs are kept under about this many bytes (the default --batch)
MAX_BATCH = 128


@dataclass
class Progress:
    """What a run did: variants driven now, found done already, dropped (an earlier grid's), failed."""
    driven: int = 0
    resumed: int = 0
    dropped: int = 0
    failed: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    files: list[Path] = field(default_factory=list)


class Writer:
    """Writes the table as batches finish, but spends at most about 1/20 of the time writing (a large
    table takes a while); `flush()` writes whatever is not yet on disk."""

    def __init__(self, table: Table):
        self.table, self.dirty, self.next_at = table, False, 0.0

    def rows(self, rows: list[dict]) -> None:
        self.table.add(rows)
        self.dirty = True
        if time.perf_counter() >= self.next_at:
            self.flush(parquet=False)

    def flush(self, parquet: bool = False) -> None:
        t0 = time.perf_counter()
        self.table.write(parquet)
        self.dirty = False
        self.next_at = time.perf_counter() + 20.0 * (time.perf_counter() - t0)


def base_figures(car: Vehicle, drives: list[str], where: str) -> tuple[list[str], list[str], dict, int]:
    """The car as loaded driven once in each drive: the figure columns ("drive/figure"), their units, its
    values, and the longest drive's logged steps."""
    names, units, values, steps = [], [], {}, 0
    for d in drives:
        try:
            r = run(d, car)
        except (BlowUp, ConfigError) as exc:
            raise ConfigError(f"{where}: the car as loaded ({car.name}) cannot drive {d}: {one_line(exc)}") from None
        steps = max(steps, len(r.log))
        for f in r.figures:
            names.append(f"{d}/{f.name}")
            units.append(f.unit)
            values[f"{d}/{f.name}"] = float(f.value)
    return names, units, values, steps


def prepare(spec: Sweep, car: Vehicle, out: Path) -> tuple[Table, dict]:
    """The folder's table (an earlier run's rows read back) and its record (sweep.json), the car as loaded
    driven once if the folder has no record yet. ConfigError when the folder holds another sweep's rows, or
    a search names a figure its drive does not have."""
    out.mkdir(parents=True, exist_ok=True)
    new = {"sweep file": spec.path, "vehicle": car.name, "fingerprint": fingerprint(car), "drives": spec.drives,
           "parameters": spec.paths}
    old = read_meta(out)
    if old is not None:
        same_sweep(old, new, str(out))
        meta = old | {"sweep file": spec.path}
    else:
        figs, units, values, steps = base_figures(car, spec.drives, spec.path)
        meta = new | {"figures": figs, "units": units, "as loaded": values, "steps": steps}
    if spec.search and spec.search.figure not in meta["figures"]:
        drive = spec.search.figure.partition("/")[0]
        have = [f.partition("/")[2] for f in meta["figures"] if f.startswith(drive + "/")]
        raise ConfigError(f"{spec.path}: search: {spec.search.figure!r} is not a figure of {drive}; expected one of "
                          f"{', '.join(repr(h) for h in have)}")
    write_meta(out, meta)
    table = Table(out, spec.paths, [spec.parameters[p].unit for p in spec.paths], meta["figures"], meta["units"])
    table.read()
    return table, meta


def batch_size(meta: dict, todo: int, workers: int, batch: int | None) -> int:
    """`batch` as asked, or as many cars as keep a batch's logs under LOG_BYTES (the longest drive's steps x
    the log's channels x 8 bytes), at most MAX_BATCH, and small enough that every worker gets a batch."""
    if batch:
        return max(1, batch)
    by_memory = int(LOG_BYTES / (max(1, meta.get("steps", 3000)) * len(CHANNELS) * 8))
    return max(1, min(MAX_BATCH, by_memory, math.ceil(todo / max(1, workers))))


def run_grid(spec: Sweep, car: Vehicle, table: Table, meta: dict, engine: Engine, batch: int | None) -> Progress:
    """The grid and random variants not yet in `table`, driven by `engine` in batches; rows written as
    they come. Ctrl+C stops the engine and keeps every finished row (Progress.interrupted)."""
    prog = Progress()
    variants = [(f"v{i:06d}", values) for i, values in enumerate(spec.variants())]
    keys = {values for _, values in variants}
    prog.dropped = sum(1 for k in list(table.rows) if k not in keys)
    table.rows = {k: r for k, r in table.rows.items() if k in keys}
    todo = []
    for vid, values in variants:
        if values in table.rows:
            table.rows[values]["variant"] = vid
        else:
            todo.append((vid, values))
    prog.resumed = len(variants) - len(todo)
    size = batch_size(meta, len(todo), engine.workers, batch)
    for i in range(0, len(todo), size):
        engine.submit(Job(car, spec.drives, spec.paths, todo[i:i + size]))
    writer = Writer(table)
    bar = progress_bar(len(variants), prog.resumed)
    with stopping(engine, writer, bar, prog):
        for _job, rows in engine.finished():
            writer.rows(rows)
            prog.driven += len(rows)
            prog.failed += sum(1 for r in rows if r["status"] != "ok")
            bar.update(len(rows))
    return prog


@contextmanager
def stopping(engine: Engine, writer: Writer, bar, prog: Progress):
    """Around the engine's run: closed when done; on Ctrl+C stopped at once (queued and running batches
    dropped) with `prog.interrupted` set and the interrupt taken; the table written whatever happens, the
    time taken in `prog.seconds`."""
    t0 = time.perf_counter()
    try:
        yield
        engine.close()
    except KeyboardInterrupt:
        prog.interrupted = True
        engine.close(cancel=True)
    except BaseException:
        engine.close(cancel=True)
        raise
    finally:
        bar.close()
        prog.seconds = time.perf_counter() - t0
        writer.flush(parquet=True)
