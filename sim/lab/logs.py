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
               "camber": "rad"}
BODY_UNITS = {"time": "s", "x": "m", "y": "m", "z": "m", "speed": "m/s", "v_forward": "m/s", "v_lateral": "m/s",
              "a_long": "g", "a_lat": "g", "yaw": "rad", "yaw_rate": "rad/s", "beta": "rad", "roll": "rad",
              "pitch": "rad", "rpm": "rpm", "gear": "-", "T_engine": "N m", "T_clutch": "N m",
              "yaw_rate_ref": "rad/s", "esp_cut": "-"}
INPUT_UNITS = {"throttle": "-", "brake": "-", "steer_input": "-", "handbrake": "-", "clutch": "-"}


def body_frame(orientation) -> np.ndarray:
    """The body's axes as the columns of a 3x3 matrix, from the quaternion (w, x, y, z)."""
    w, x, y, z = (float(v) for v in orientation)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def attitude(rot: np.ndarray) -> tuple[float, float, float]:
    """(yaw, pitch, roll) in rad of a body frame (ZYX angles; roll + is the left side up, pitch + nose down)."""
    yaw = math.atan2(rot[1, 0], rot[0, 0])
    pitch = math.asin(max(-1.0, min(1.0, -rot[2, 0])))
    roll = math.atan2(rot[2, 1], rot[2, 2])
    return yaw, pitch, roll


def body_motion(orientation, velocity, angular_velocity, v_prev, dt: float):
    """(body frame, velocity, angular velocity and acceleration in the body frame, body slip angle): the
    acceleration is the change of the world velocity since `v_prev` over `dt`, turned into the body frame
    (zero without a previous velocity); the slip angle is nan below 1 m/s, where it means nothing."""
    rot = body_frame(orientation)
    v = np.asarray(velocity, dtype=float)
    v_body = rot.T @ v
    w_body = rot.T @ np.asarray(angular_velocity, dtype=float)
    a_body = rot.T @ (v - v_prev) / dt if v_prev is not None and dt > 0.0 else np.zeros(3)
    beta = math.atan2(v_body[1], v_body[0]) if abs(v_body[0]) > 1.0 else math.nan
    return rot, v_body, w_body, a_body, beta


@dataclass
class DriveInputs:
    """What it takes to drive a logged run again bit for bit: its world, step and substeps, the state
    after its first logged step (all vehicles) and the packed controls (N, CT_N) of every step after it."""
    world: object
    dt: float
    substeps: int
    start: object                         # sim.Snapshot
    controls: list[np.ndarray]

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
        self.names: list[str] = list(BODY_UNITS) + list(INPUT_UNITS) + \
            [f"{c} {w}" for c in WHEEL_UNITS for w in WHEEL_NAMES]
        self.units = list(BODY_UNITS.values()) + list(INPUT_UNITS.values()) + \
            [u for u in WHEEL_UNITS.values() for _ in WHEEL_NAMES]
        self._blocks: list[np.ndarray] = []
        self._rows: list[np.ndarray] = []
        self._seen = 0
        self._v_prev: np.ndarray | None = None
        self._t_prev = 0.0

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
        n = self.vehicle
        pick = (lambda a: np.asarray(a)[n]) if s.n > 1 else np.asarray
        v_world = np.array(pick(s.state.velocity), dtype=float)
        if (self._seen - 1) % self.every:
            self._v_prev, self._t_prev = v_world, s.time
            return
        st, tel = s.state, s.telemetry
        rot, v_body, w_body, a_body, beta = body_motion(pick(st.orientation), v_world, pick(st.angular_velocity),
                                                        self._v_prev, s.time - self._t_prev)
        yaw, pitch, roll = attitude(rot)
        self._v_prev, self._t_prev = v_world, s.time
        pos = pick(st.position)
        row = [s.time, pos[0], pos[1], pos[2], float(np.linalg.norm(v_world)), v_body[0], v_body[1],
               a_body[0] / G, a_body[1] / G, yaw, w_body[2], beta, roll, pitch,
               float(pick(tel.rpm)), float(pick(tel.gear)), float(pick(tel.T_engine)), float(pick(tel.T_clutch)),
               float(pick(tel.yaw_rate_ref)), float(pick(tel.esp_cut))]
        if controls is None:
            row += [math.nan] * len(INPUT_UNITS)
        else:
            row += [_scalar(controls.throttle, n), _scalar(controls.brake, n), _scalar(controls.steer, n),
                    _scalar(controls.handbrake, n), _scalar(controls.clutch, n)]
        for name in WHEEL_UNITS:
            row.extend(np.asarray(getattr(tel, name), dtype=float).reshape(-1, 4)[n if s.n > 1 else 0])
        self._rows.append(np.asarray(row, dtype=float))
        if len(self._rows) >= 4096:
            self._blocks.append(np.vstack(self._rows))
            self._rows = []

    def array(self) -> np.ndarray:
        """(rows, channels) of everything logged."""
        parts = self._blocks + ([np.vstack(self._rows)] if self._rows else [])
        return np.vstack(parts) if parts else np.zeros((0, len(self.names)))

    def column(self, name: str) -> np.ndarray:
        return self.array()[:, self.names.index(name)]

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


def _scalar(value, n: int) -> float:
    a = np.asarray(value, dtype=float)
    return float(a) if a.ndim == 0 else float(a[n])
