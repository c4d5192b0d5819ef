"""Input traces: the controls of every physics step, recorded with --record and replayed with --replay.

A recording runs as long as the app does, so its rows live in a `RowStore`: fixed-size chunks of
float64 rows, of which only the newest few stay in memory; older chunks go to an anonymous temporary
file (deleted by the system when the app ends, however it ends). Memory stays below about 8 MB whatever
the length of the drive; the rows come back exactly as they were appended.
"""
from __future__ import annotations

import json
import math
import tempfile
from dataclasses import dataclass
from dataclasses import field

import numpy as np

import sim
from sim.model import files

TRACE_FORMAT = "contactpatch-trace-2"
TRACE_COLUMNS = sim.CONTROL_COLUMNS + ("reset",)
# format 1 (before the control row was shared with Simulation.run) put reset fifth
LEGACY_COLUMNS = ("throttle", "brake", "steer", "handbrake", "reset", "clutch", "shift", "gear", "abs", "tc")
TRACE_DEFAULTS = dict(zip(sim.CONTROL_COLUMNS, sim.CONTROL_DEFAULTS), reset=0.0)
MAX_TRACE_BYTES = 256 * 1024 * 1024     # about five hours of driving at 240 steps per second


class RowStore:
    """An append-only table of float64 rows of one width with bounded memory: chunks of CHUNK rows, at
    most MEMORY_CHUNKS full ones in memory, the older ones in an anonymous temporary file."""

    CHUNK = 4096
    MEMORY_CHUNKS = 16

    def __init__(self, width: int, rows=()):
        self.width = int(width)
        self._disk = None                     # the temporary file, opened at the first spill
        self._disk_rows = 0
        self._full: list[np.ndarray] = []     # full chunks in memory, oldest first
        self._open = np.empty((self.CHUNK, self.width))
        self._fill = 0
        self.extend(rows)

    def __len__(self) -> int:
        return self._disk_rows + len(self._full) * self.CHUNK + self._fill

    def append(self, row) -> None:
        self._open[self._fill] = row
        self._fill += 1
        if self._fill == self.CHUNK:
            self._full.append(self._open)
            self._open = np.empty((self.CHUNK, self.width))
            self._fill = 0
            if len(self._full) > self.MEMORY_CHUNKS:
                self._spill(self._full.pop(0))

    def extend(self, rows) -> None:
        for r in rows:
            self.append(r)

    def _spill(self, chunk: np.ndarray) -> None:
        if self._disk is None:
            self._disk = tempfile.TemporaryFile(prefix="contactpatch-trace-")
        self._disk.seek(0, 2)
        self._disk.write(chunk.tobytes())
        self._disk_rows += len(chunk)

    def array(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Rows start..stop (as in a slice with step 1) as one (K, width) float64 array."""
        start, stop, _ = slice(start, stop).indices(len(self))
        out = np.empty((max(0, stop - start), self.width))
        k = start
        while k < stop:
            if k < self._disk_rows:
                n = min(stop, self._disk_rows) - k
                self._disk.seek(k * self.width * 8)
                out[k - start:k - start + n] = np.frombuffer(self._disk.read(n * self.width * 8)).reshape(n, self.width)
            else:
                j, at = divmod(k - self._disk_rows, self.CHUNK)
                chunk = self._full[j] if j < len(self._full) else self._open
                n = min(stop - k, self.CHUNK - at)
                out[k - start:k - start + n] = chunk[at:at + n]
            k += n
        return out

    def __getitem__(self, k):
        if isinstance(k, slice):
            if k.step not in (None, 1):
                raise ValueError("a RowStore slices with step 1 only")
            return self.array(k.start or 0, k.stop).tolist()
        n = len(self)
        if not -n <= k < n:
            raise IndexError(f"row {k} of {n}")
        k %= n
        if k >= self._disk_rows:                   # in memory: the row itself, without a copy of a slice
            j, at = divmod(k - self._disk_rows, self.CHUNK)
            return (self._full[j] if j < len(self._full) else self._open)[at].tolist()
        return self.array(k, k + 1)[0].tolist()

    def tolist(self) -> list[list[float]]:
        return self.array().tolist()

    def __eq__(self, other) -> bool:
        if isinstance(other, RowStore):
            return len(self) == len(other) and np.array_equal(self.array(), other.array())
        if isinstance(other, list):
            return self.tolist() == other
        return NotImplemented

    __hash__ = None

    def __iter__(self):
        for start in range(0, len(self), self.CHUNK):
            yield from self.array(start, start + self.CHUNK).tolist()


@dataclass
class Trace:
    """Controls per physics step, one row each in TRACE_COLUMNS order: the control row that
    `sim.Controls.from_row` and `Simulation.run` read (CONTROL_COLUMNS), then reset (1 = reset the car
    before this step). Shorter rows are completed with the defaults (no clutch, shift or gear request,
    aids off, no reset)."""
    dt: float
    substeps: int
    vehicle: str
    world: str
    rows: RowStore | list = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.rows, RowStore):
            self.rows = RowStore(len(TRACE_COLUMNS), (complete_row(r, TRACE_COLUMNS) for r in self.rows))

    def append(self, controls: sim.Controls, reset: bool) -> None:
        self.rows.append([float(x) for x in controls.row()] + [1.0 if reset else 0.0])

    def controls(self, k: int) -> sim.Controls:
        return sim.Controls.from_row(self.rows[k][:len(sim.CONTROL_COLUMNS)])

    def reset(self, k: int) -> bool:
        return self.rows[k][-1] > 0.5

    def step(self, k: int) -> tuple[bool, sim.Controls]:
        """Step k's (reset, controls), its row read once (a replay reads one a physics step)."""
        row = self.rows[k]
        return row[-1] > 0.5, sim.Controls.from_row(row[:len(sim.CONTROL_COLUMNS)])

    def control_rows(self) -> np.ndarray:
        """(K, CT_N) control rows, ready for Simulation.run (resets left out)."""
        return self.rows.array()[:, :len(sim.CONTROL_COLUMNS)].copy()

    def save(self, path) -> None:
        head = json.dumps({"format": TRACE_FORMAT, "dt": self.dt, "substeps": self.substeps, "vehicle": self.vehicle,
                           "world": self.world, "columns": list(TRACE_COLUMNS)}, separators=(",", ":"))
        parts = [head[:-1], ',"steps":[']
        for start in range(0, len(self.rows), RowStore.CHUNK):
            block = json.dumps(self.rows.array(start, start + RowStore.CHUNK).tolist(), separators=(",", ":"))
            parts.append(("," if start else "") + block[1:-1])
        parts.append("]}")
        files.atomic_write_bytes(path, "".join(parts).encode())

    @classmethod
    def load(cls, path) -> Trace:
        data = files.read_json(path, "trace", MAX_TRACE_BYTES)
        return files.build(path, "trace", lambda: cls.from_dict(data, str(path)))

    @classmethod
    def from_dict(cls, data, path: str) -> Trace:
        fmt = data.get("format") if isinstance(data, dict) else None
        if fmt not in (TRACE_FORMAT, "contactpatch-trace-1"):
            raise sim.ConfigError(f"{path}: format = {fmt!r} is not allowed; expected {TRACE_FORMAT!r} "
                                  f"(a file saved with --record)")
        columns = data.get("columns", LEGACY_COLUMNS if fmt == "contactpatch-trace-1" else TRACE_COLUMNS)
        if not isinstance(columns, list | tuple) or any(c not in TRACE_DEFAULTS for c in columns) \
                or len(set(columns)) != len(columns):
            raise sim.ConfigError(f"{path}: columns = {columns!r} is not allowed; expected distinct names from "
                                  f"{', '.join(TRACE_COLUMNS)}")
        dt, substeps = data.get("dt"), data.get("substeps")
        if isinstance(dt, bool) or not isinstance(dt, int | float) or not (math.isfinite(dt) and dt > 0.0):
            raise sim.ConfigError(f"{path}: dt = {dt!r} is not allowed; expected a positive number of seconds")
        if isinstance(substeps, bool) or not isinstance(substeps, int) or substeps < 1:
            raise sim.ConfigError(f"{path}: substeps = {substeps!r} is not allowed; expected an integer >= 1")
        rows = data.get("steps")
        if not isinstance(rows, list):
            raise sim.ConfigError(f"{path}: steps must be a list of rows [{', '.join(columns)}]")
        for k, r in enumerate(rows):
            if not (isinstance(r, list) and 1 <= len(r) <= len(columns) and all(
                    isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in r)):
                raise sim.ConfigError(f"{path}: steps[{k}] = {r!r} is not allowed; expected 1 to {len(columns)} "
                                      f"finite numbers [{', '.join(columns)}]")
        vehicle = files.string(path, "vehicle", data.get("vehicle"))
        world = files.string(path, "world", data.get("world"))
        ordered = ([dict(zip(columns, r)).get(c, TRACE_DEFAULTS[c]) for c in TRACE_COLUMNS] for r in rows)
        return cls(float(dt), substeps, vehicle, world, ordered)


def complete_row(row, columns) -> list[float]:
    """A row of the first len(row) `columns`, completed with their defaults."""
    return [float(x) for x in row] + [TRACE_DEFAULTS[c] for c in columns[len(row):]]
