"""Telemetry logs: every per-wheel channel of the telemetry API, the body's motion, the inputs and the
derived channels (longitudinal and lateral g, yaw rate, body slip, roll and pitch), one row per logged
physics step, written as CSV with a units row.

The CSV has a row of channel names and then a row of units, then one row per logged step; pandas reads it
with `pd.read_csv(path, header=[0, 1])`, a spreadsheet shows both rows. Per-wheel channels are named
`<channel> <wheel>` ("Fz FL"). Rows are kept in blocks of numpy arrays, so memory grows by 8 bytes per
channel per row and nothing is formatted until the file is written.
"""
from __future__ import annotations

import io
import math
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from sim.kernel.tables import WHEEL_NAMES
from sim.kernel.units import GRAVITY as G
from sim.model.files import atomic_write_bytes

# per-wheel telemetry channels and their units (docs/physics.md, telemetry names)
WHEEL_UNITS = {"s": "m", "a": "-", "l": "m", "l_raw": "m", "x": "m", "xdot": "m/s", "Fs": "N", "Fz": "N",
               "vx": "m/s", "vy": "m/s", "kappa": "-", "alpha": "rad", "Fx_raw": "N", "Fy_raw": "N", "Fx": "N",
               "Fy": "N", "grip_scale": "-", "T_drive": "N m", "T_brake": "N m", "omega": "rad/s", "rho": "m",
               "r_eff": "m", "grounded": "0/1", "surface": "index", "shape": "index", "mu": "-", "steer": "rad",
               "abs_active": "0/1", "locked": "0/1", "dFx_dkappa": "N", "esp_brake": "N m",
               "camber": "rad", "camber_body": "rad", "toe": "rad", "Fz_link": "N"}
BODY_UNITS = {"time": "s", "x": "m", "y": "m", "z": "m", "speed": "m/s", "v_forward": "m/s", "v_lateral": "m/s",
              "a_long": "g", "a_lat": "g", "yaw": "rad", "yaw_rate": "rad/s", "beta": "rad", "roll": "rad",
              "pitch": "rad", "rpm": "rpm", "gear": "-", "T_engine": "N m", "T_clutch": "N m",
              "yaw_rate_ref": "rad/s", "esp_cut": "-"}
INPUT_UNITS = {"throttle": "-", "brake": "-", "steer_input": "-", "handbrake": "-", "clutch": "-"}
WHEEL_CHANNELS = tuple(WHEEL_UNITS)
# every channel of a log row, in order: the body's, the inputs, then each wheel channel for FL, FR, RL, RR
CHANNELS = list(BODY_UNITS) + list(INPUT_UNITS) + [f"{c} {w}" for c in WHEEL_UNITS for w in WHEEL_NAMES]
UNITS = list(BODY_UNITS.values()) + list(INPUT_UNITS.values()) + [u for u in WHEEL_UNITS.values() for _ in WHEEL_NAMES]


# the body frame from a unit quaternion (w, x, y, z) = q0..q3: entry (r, c) is BASE + 2 (q_a q_b +- q_c q_d)
# (e.g. R00 = 1 - 2 (y y + z z), R01 = 2 (x y - w z)), the products picked from the table of all q_i q_j
_FIRST = (np.array([2, 1, 1, 1, 1, 2, 1, 2, 1]), np.array([2, 2, 3, 2, 1, 3, 3, 3, 1]))
_SECOND = (np.array([3, 0, 0, 0, 3, 0, 0, 0, 2]), np.array([3, 3, 2, 3, 3, 1, 2, 1, 2]))
_SIGN = np.array([1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0])
_DIAGONAL = [0, 4, 8]


def body_frames(orientation) -> np.ndarray:
    """Each vehicle's body axes as the columns of a 3x3 matrix (N, 3, 3), from its quaternion (w, x, y, z)
    (orientation (4,) or (N, 4)): R00 = 1 - 2 (y^2 + z^2), R01 = 2 (x y - w z), ... Every entry is worked out
    by the same operations for one car or many."""
    q = np.asarray(orientation, dtype=float).reshape(-1, 4)
    products = q[:, :, None] * q[:, None, :]                       # (N, 4, 4): q_i q_j
    rot = 2.0 * (products[:, _FIRST[0], _FIRST[1]] + _SIGN * products[:, _SECOND[0], _SECOND[1]])
    rot[:, _DIAGONAL] = 1.0 - rot[:, _DIAGONAL]
    return rot.reshape(-1, 3, 3)


def body_frame(orientation) -> np.ndarray:
    """The body's axes as the columns of a 3x3 matrix, from the quaternion (w, x, y, z)."""
    return body_frames(orientation)[0]


def in_body(rot: np.ndarray, vector: np.ndarray, axis: int) -> np.ndarray:
    """Component `axis` (0 forward, 1 left, 2 up) of world vectors (N, 3) in the body frames rot (N, 3, 3):
    the dot product with that body axis, summed in the order x, y, z."""
    return rot[:, 0, axis] * vector[:, 0] + rot[:, 1, axis] * vector[:, 1] + rot[:, 2, axis] * vector[:, 2]


def log_rows(s, controls, v_prev: np.ndarray | None, dt: float) -> np.ndarray:
    """The log's row (channels in TelemetryLog.names' order) of every vehicle of `s` after a step: (N,
    channels). The body-frame acceleration is the change of each world velocity since `v_prev` (N, 3) over
    `dt` s (zero without a previous velocity); the body slip angle is nan below 1 m/s, where it means
    nothing; the inputs are `controls`' (nan without them). Every vehicle's row is worked out by the same
    array operations, so a car's row does not depend on the others in the batch."""
    n = s.n
    st, tel = s.state, s.telemetry
    pos = np.asarray(st.position, dtype=float).reshape(n, 3)
    v = np.asarray(st.velocity, dtype=float).reshape(n, 3)
    w = np.asarray(st.angular_velocity, dtype=float).reshape(n, 3)
    rot = body_frames(st.orientation)
    v_fwd, v_lat = in_body(rot, v, 0), in_body(rot, v, 1)
    if v_prev is not None and dt > 0.0:
        dv = v - v_prev
        a_long, a_lat = in_body(rot, dv, 0) / dt, in_body(rot, dv, 1) / dt
    else:
        a_long = a_lat = np.zeros(n)
    slipping = np.abs(v_fwd) > 1.0
    beta = np.where(slipping, np.arctan2(v_lat, v_fwd), np.nan)
    out = np.empty((n, len(CHANNELS)))
    out[:, 0] = s.time
    out[:, 1:4] = pos
    out[:, 4] = np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1] + v[:, 2] * v[:, 2])
    out[:, 5] = v_fwd
    out[:, 6] = v_lat
    out[:, 7] = a_long / G
    out[:, 8] = a_lat / G
    out[:, 9] = np.arctan2(rot[:, 1, 0], rot[:, 0, 0])                       # yaw (ZYX angles)
    out[:, 10] = in_body(rot, w, 2)                                          # yaw rate
    out[:, 11] = beta
    out[:, 12] = np.arctan2(rot[:, 2, 1], rot[:, 2, 2])                      # roll: + left side up
    out[:, 13] = np.arcsin(np.clip(-rot[:, 2, 0], -1.0, 1.0))                # pitch: + nose down
    out[:, 14:20] = tel.body_array(("rpm", "gear", "T_engine", "T_clutch", "yaw_rate_ref", "esp_cut"))
    first = len(BODY_UNITS)
    for k, name in enumerate(INPUT_UNITS):
        out[:, first + k] = math.nan if controls is None else \
            (controls.steer if name == "steer_input" else getattr(controls, name))
    out[:, first + len(INPUT_UNITS):] = tel.wheel_array(WHEEL_CHANNELS).reshape(n, -1)
    return out


@dataclass
class DriveInputs:
    """What it takes to drive a logged run again bit for bit: its world, step and substeps, the state
    after its first logged step (all vehicles) and the packed controls (N, CT_N) of every step after it
    (a list of such tables, or one (K, N, CT_N) array)."""
    world: object
    dt: float
    substeps: int
    start: object                         # sim.Snapshot
    controls: list[np.ndarray] | np.ndarray

    def for_vehicle(self, i: int):
        """(the start snapshot of vehicle i alone, its control rows (K, CT_N))."""
        rows = np.array([c[i] for c in self.controls], dtype=float).reshape(-1, self.start.controls.shape[1])
        return self.start.vehicle(i), rows


class TelemetryLog:
    """Rows of channels, one per logged step of one vehicle of a Simulation (`vehicle`), every `every`-th
    step (1: all of them)."""

    def __init__(self, every: int = 1, vehicle: int = 0, replayable: bool = False):
        if every < 1:
            raise ValueError(f"every = {every} is not allowed; expected a whole number >= 1")
        self.every = int(every)
        self.vehicle = int(vehicle)
        # with replayable=True: the world, the state after the first logged step and the controls of every
        # later step, so that the run can be driven again bit for bit (the app watches a test drive so)
        self.inputs: DriveInputs | None = None
        self._replayable = replayable
        self.names: list[str] = list(CHANNELS)
        self.units: list[str] = list(UNITS)
        self._blocks: list[np.ndarray] = []
        self._rows: list[np.ndarray] = []
        self._seen = 0
        self._v_prev: np.ndarray | None = None      # (N, 3) m/s: every vehicle's velocity at the last step seen
        self._t_prev = 0.0

    @classmethod
    def of_rows(cls, rows: np.ndarray, inputs: DriveInputs | None = None) -> TelemetryLog:
        """A finished log of one vehicle holding `rows` (K, channels) as they are (not copied), with the
        inputs that drive it again (vehicle 0 of `inputs`)."""
        log = cls()
        if len(rows):
            log._blocks.append(rows)
        log._seen = len(rows)
        log.inputs = inputs
        return log

    def __len__(self) -> int:
        return sum(len(b) for b in self._blocks) + len(self._rows)

    def restart(self) -> None:
        """The state jumped (reset, restore): the next row takes no acceleration from the previous one."""
        self._v_prev = None

    def add(self, s, controls=None) -> None:
        """Log the step just taken (call after each Simulation.step); `controls` are its inputs."""
        self._seen += 1
        if self._replayable:
            if self.inputs is None:
                self.inputs = DriveInputs(s.world, s.dt, s.substeps, s.snapshot(telemetry=True), [])
            else:
                self.inputs.controls.append(s.tables.controls.copy())
        v_world = np.array(s.state.velocity, dtype=float).reshape(s.n, 3)
        if (self._seen - 1) % self.every == 0:
            row = log_rows(s, controls, self._v_prev, s.time - self._t_prev)[self.vehicle]
            self._rows.append(row)
            if len(self._rows) >= 4096:
                self._blocks.append(np.vstack(self._rows))
                self._rows = []
        self._v_prev, self._t_prev = v_world, s.time

    def array(self) -> np.ndarray:
        """(rows, channels) of everything logged."""
        parts = self._blocks + ([np.vstack(self._rows)] if self._rows else [])
        return np.vstack(parts) if parts else np.zeros((0, len(self.names)))

    def column(self, name: str) -> np.ndarray:
        """One channel's values, a row each (a copy)."""
        k = self.names.index(name)
        parts = [b[:, k] for b in self._blocks] + ([np.array([r[k] for r in self._rows])] if self._rows else [])
        return np.concatenate(parts) if parts else np.zeros(0)

    def csv_text(self, every: int = 1) -> str:
        """The CSV: names, units, then every `every`-th logged row."""
        out = io.StringIO()
        out.write(",".join(self.names) + "\n")
        out.write(",".join(self.units) + "\n")
        np.savetxt(out, self.array()[::max(1, int(every))], delimiter=",", fmt="%.9g")
        return out.getvalue()

    def write_csv(self, path: str | os.PathLike, every: int = 1) -> None:
        """Write the CSV (every `every`-th logged row) atomically: a temp file, then a rename."""
        atomic_write_bytes(path, self.csv_text(every).encode())


class LogMemory:
    """Memory that the logs of one batch after another reuse, a block per use ("rows", "controls"): a page
    of memory costs most the first time it is written (the VM maps it then: about 3 s a GB here), and a
    batch's logs are hundreds of MB (a sweep's worker drives batch after batch, takes the figures and drops
    the Results). A block is reused only when nothing holds a view of it any more (a log still read keeps
    its rows: the next batch then gets a block of its own)."""

    def __init__(self):
        self.blocks: dict[str, np.ndarray] = {}

    def take(self, use: str, shape: tuple[int, ...]) -> np.ndarray:
        """An uninitialised array of `shape` (as np.empty), in the block kept for `use` when it is free and
        large enough, else in a new one."""
        size = math.prod(shape)
        block = self.blocks.pop(use, None)
        # free: referenced only by `block` and getrefcount's argument (every view's base is the block itself)
        if block is None or block.size < size or sys.getrefcount(block) > 2:
            block = None                                   # let a free old block go before taking the new one
            block = np.empty(size)
        self.blocks[use] = block
        return block[:size].reshape(shape)


_MEMORY: list[LogMemory] = []           # the memory BatchLogs take from while `reused_memory()` is on


@contextmanager
def reused_memory(memory: LogMemory):
    """Within: every new BatchLog keeps its rows and controls in `memory` (each batch's logs are valid only
    until the next BatchLog is made)."""
    _MEMORY.append(memory)
    try:
        yield memory
    finally:
        _MEMORY.remove(memory)


def _empty(use: str, shape: tuple[int, ...]) -> np.ndarray:
    return _MEMORY[-1].take(use, shape) if _MEMORY else np.empty(shape)


class BatchLog:
    """The telemetry logs of every vehicle of a Simulation, written together: one row computation a step for
    all of them (`log_rows`). A vehicle's log takes the rows of the steps it drives (`add`'s `driving`) and
    ends at the first step it does not; `logs()` gives each vehicle's log as a TelemetryLog of its own, with
    the inputs that drive that vehicle alone again bit for bit. Rows are kept step after step in one
    (capacity, N, channels) array that doubles when full; each vehicle's log is a view of its part."""

    def __init__(self, n: int, capacity: int = 1024):
        self.n = int(n)
        self.rows = np.zeros(self.n, dtype=int)       # rows logged per vehicle
        self.steps = 0                                  # steps logged
        self._data = _empty("rows", (max(1, int(capacity)), self.n, len(CHANNELS)))
        self._controls: np.ndarray | None = None        # (capacity, N, CT_N): the packed controls of each step
        self._start = None                              # (world, dt, substeps, snapshot after the first step)
        self._v_prev: np.ndarray | None = None
        self._t_prev = 0.0

    def add(self, s, controls, driving: np.ndarray) -> None:
        """Log the step just taken for the vehicles still `driving` ((N,) bool; one that stopped driving
        never logs again); `controls` are its inputs."""
        k = self.steps
        if k == len(self._data):
            self._grow()
        if self._start is None:
            self._start = (s.world, s.dt, s.substeps, s.snapshot(telemetry=True))
            self._controls = _empty("controls", (len(self._data), self.n, s.tables.controls.shape[1]))
        self._data[k] = log_rows(s, controls, self._v_prev, s.time - self._t_prev)
        self._controls[k] = s.tables.controls
        self._v_prev = np.array(s.state.velocity, dtype=float).reshape(self.n, 3)
        self._t_prev = s.time
        self.rows[driving & (self.rows == k)] += 1
        self.steps += 1

    def _grow(self) -> None:
        for name in ("_data", "_controls"):
            old = getattr(self, name)
            if old is not None:
                new = np.empty((2 * len(old),) + old.shape[1:])
                new[:self.steps] = old[:self.steps]
                setattr(self, name, new)

    def logs(self, worlds=None) -> list[TelemetryLog]:
        """Each vehicle's log (its rows, and the inputs that drive it alone again: its state after the first
        step and its controls since, in `worlds[i]` if given, else the simulation's world)."""
        out = []
        for i in range(self.n):
            inputs = None
            if self._start is not None:
                world, dt, substeps, snap = self._start
                inputs = DriveInputs(world if worlds is None else worlds[i], dt, substeps, snap.vehicle(i),
                                     self._controls[1:self.rows[i], i:i + 1])
            out.append(TelemetryLog.of_rows(self._data[:self.rows[i], i], inputs))
        return out


def write_parquet(log: TelemetryLog, path: str | os.PathLike, every: int = 1) -> None:
    """The log as Parquet (every `every`-th row), each column's unit in its field metadata ("unit"), written
    atomically. pyarrow, the optional `logs` extra: Parquet's reference implementation, which takes the
    numpy columns as they are; pandas, polars and DuckDB all read its files."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        from sim.model.files import ConfigError
        raise ConfigError("Parquet logs need pyarrow: pip install -e '.[logs]'") from None
    data = log.array()[::max(1, int(every))]
    fields = [pa.field(n, pa.float64(), metadata={"unit": u}) for n, u in zip(log.names, log.units)]
    table = pa.Table.from_arrays([pa.array(data[:, k]) for k in range(data.shape[1])], schema=pa.schema(fields))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    atomic_write_bytes(path, sink.getvalue().to_pybytes())

