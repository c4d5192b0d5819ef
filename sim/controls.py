"""The driver's inputs: `Controls` for one step, and the control row (CONTROL_COLUMNS) every path reads
the same way (`Controls.from_row`, `Simulation.run`'s traces, recorded traces): one codec per concept."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.kernel import tables as T
from sim.kernel.control_rows import normalise_trace

CONTROL_COLUMNS = ("throttle", "brake", "steer", "handbrake", "clutch", "shift", "gear", "abs", "tc", "esp",
                   "steer_angle")
"""The columns of a control row, in order: what `Controls.row`, `Controls.from_row` and
`Simulation.run` use, and what a recorded trace stores. gear holds NO_GEAR when no gear is requested."""
NO_GEAR = T.NO_GEAR
NO_STEER_ANGLE = T.NO_STEER_ANGLE
# no input, no gear request, aids off, no road-wheel angle (the steer input acts)
CONTROL_DEFAULTS = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, NO_GEAR, 0.0, 0.0, 0.0, NO_STEER_ANGLE)
assert CONTROL_COLUMNS.index("gear") == T.CT_GEAR and len(CONTROL_COLUMNS) == T.CT_N


def all_finite(value) -> bool:
    """A number, or an array of numbers, all finite."""
    try:
        if type(value) is float or type(value) is int:      # the common case, without numpy
            return math.isfinite(value)
        return bool(np.all(np.isfinite(np.asarray(value, dtype=np.float64))))
    except (TypeError, ValueError, OverflowError):
        return False


def normalise_row(row: tuple) -> list:
    """`normalise_rows` for one row of CT_N plain numbers, without numpy (a replay reads one a step)."""
    for k, x in enumerate(row):
        if not math.isfinite(x):
            raise ValueError(f"control row 0: {CONTROL_COLUMNS[k]} = {x!r} is not a finite number")
    out = list(row)
    shift = out[T.CT_SHIFT]
    out[T.CT_SHIFT] = 1.0 if shift > 0.0 else -1.0 if shift < 0.0 else 0.0
    gear = float(math.trunc(out[T.CT_GEAR]))
    out[T.CT_GEAR] = NO_GEAR if gear > T.MAX_GEARS else gear
    for k in (T.CT_ABS, T.CT_TC, T.CT_ESP):
        out[k] = 1.0 if out[k] > 0.5 else 0.0
    return out


def normalise_rows(rows: np.ndarray) -> np.ndarray:
    """Control rows (..., CT_N) as every path reads them (Controls.from_row, Simulation.run, traces):
    shift as its sign, gear as a whole number (anything above MAX_GEARS means NO_GEAR, no request), the
    aids as 0 or 1. The other inputs are clamped to their ranges by the stages. A value that is not a
    finite number raises ValueError naming the step and the column."""
    rows = np.array(rows, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(rows))
    if len(bad):
        where = bad[0]
        raise ValueError(f"control row {int(where[0]) if rows.ndim > 1 else 0}: "
                         f"{CONTROL_COLUMNS[int(where[-1])]} = {rows[tuple(where)]!r} is not a finite number")
    rows[..., T.CT_SHIFT] = np.sign(rows[..., T.CT_SHIFT])
    gear = np.trunc(rows[..., T.CT_GEAR])
    rows[..., T.CT_GEAR] = np.where(gear > T.MAX_GEARS, NO_GEAR, gear)
    rows[..., T.CT_ABS] = rows[..., T.CT_ABS] > 0.5
    rows[..., T.CT_TC] = rows[..., T.CT_TC] > 0.5
    rows[..., T.CT_ESP] = rows[..., T.CT_ESP] > 0.5
    return rows


@dataclass(frozen=True)
class Controls:
    """Driver inputs for one step. Scalars apply to every vehicle; arrays of shape (N,) to each.

    throttle: 0..1 (direct drive: -1..1, negative drives backwards); brake: 0..1; steer: -1..1, positive
    turns left; handbrake: 0..1; clutch: 0..1 pedal (1 = pressed, open); shift: -1 down, 0 none, +1 up;
    gear: None or the gear wanted now (-1 reverse, 0 neutral, 1..n); abs, tc, esp: the driver aids (ABS,
    traction control, stability control); steer_angle: None, or the front road wheels' mean angle in rad
    (positive left), Ackermann applied, set at once (no steering rate) in place of `steer`, within the lock
    (for scripts, test drives and comparisons with other models)."""
    throttle: float | np.ndarray = 0.0
    brake: float | np.ndarray = 0.0
    steer: float | np.ndarray = 0.0
    handbrake: float | np.ndarray = 0.0
    clutch: float | np.ndarray = 0.0
    shift: int | np.ndarray = 0
    gear: int | None = None
    abs: bool = False
    tc: bool = False
    esp: bool = False
    steer_angle: float | np.ndarray | None = None

    def __post_init__(self):
        """Refuse what is not a finite number (a NaN steer would be full lock, a text "0.5" a surprise)."""
        for name in ("throttle", "brake", "steer", "handbrake", "clutch", "shift", "gear", "steer_angle"):
            value = getattr(self, name)
            optional = name in ("gear", "steer_angle")
            if value is None and optional:
                continue
            if isinstance(value, (bool, str, bytes)) or not all_finite(value):
                raise ValueError(f"Controls: {name} = {value!r} is not allowed; expected a finite number"
                                 + (" or None" if optional else "") + " (or an array of them)")
        row = self.row()
        # the row as plain numbers when every input is a scalar (the app's case), so packing it is one write
        object.__setattr__(self, "_scalar_row", row if all(isinstance(x, (int, float)) for x in row) else None)

    def row(self) -> tuple:
        """The values in CONTROL_COLUMNS order (scalars, or arrays for per-vehicle inputs)."""
        return (self.throttle, self.brake, self.steer, self.handbrake, self.clutch, self.shift,
                NO_GEAR if self.gear is None else self.gear, 1.0 if self.abs else 0.0, 1.0 if self.tc else 0.0,
                1.0 if self.esp else 0.0, NO_STEER_ANGLE if self.steer_angle is None else self.steer_angle)

    @classmethod
    def from_row(cls, row) -> Controls:
        """Controls from the first len(row) of CONTROL_COLUMNS (normalised as `normalise_rows` does); the
        columns not given keep their defaults."""
        if len(row) > T.CT_N:
            raise ValueError(f"a control row has at most {T.CT_N} columns ({', '.join(CONTROL_COLUMNS)}), "
                             f"not {len(row)}")
        full = normalise_row(tuple(float(x) for x in row) + CONTROL_DEFAULTS[len(row):])
        gear = int(full[T.CT_GEAR])
        return cls(float(full[T.CT_THROTTLE]), float(full[T.CT_BRAKE]), float(full[T.CT_STEER]),
                   float(full[T.CT_HANDBRAKE]), clutch=float(full[T.CT_CLUTCH]), shift=int(full[T.CT_SHIFT]),
                   gear=None if gear == NO_GEAR else gear, abs=bool(full[T.CT_ABS]), tc=bool(full[T.CT_TC]),
                   esp=bool(full[T.CT_ESP]), steer_angle=None if abs(full[T.CT_STEER_ANGLE]) >= NO_STEER_ANGLE
                   else float(full[T.CT_STEER_ANGLE]))

    def pack_into(self, controls: np.ndarray) -> None:
        """Write into the controls table (N, CT_N)."""
        values = self._scalar_row
        if values is not None:
            controls[:] = values
            return
        values = self.row()
        for k in range(T.CT_N):
            controls[:, k] = values[k]


DEFAULT_ROW = np.array(CONTROL_DEFAULTS)


def control_rows(trace, n_vehicles: int) -> np.ndarray:
    """A trace of control rows (K, C) or (K, N, C), C <= CT_N columns in CONTROL_COLUMNS order, as the
    full, normalised (K, N, CT_N) array the kernels read; the columns not given keep their defaults."""
    trace = np.asarray(trace, dtype=np.float64)
    if trace.ndim == 2:
        trace = trace[:, None, :]
    cols = trace.shape[-1]
    if cols > T.CT_N:
        raise ValueError(f"a control row has at most {T.CT_N} columns ({', '.join(CONTROL_COLUMNS)}), not {cols}")
    if trace.shape[1] not in (1, n_vehicles):
        raise ValueError(f"a control trace of shape {trace.shape} does not fit {n_vehicles} vehicles; expected "
                         f"(K, {n_vehicles}, C), (K, 1, C) or (K, C)")
    trace = np.ascontiguousarray(trace)
    out = np.empty((trace.shape[0], n_vehicles, T.CT_N))
    bad = normalise_trace(trace, DEFAULT_ROW, out)               # normalise_rows' rules, in one compiled pass
    if bad >= 0:
        k, c = divmod(int(bad), T.CT_N)
        column = trace[k, :, c]
        raise ValueError(f"control row {k}: {CONTROL_COLUMNS[c]} = {float(column[~np.isfinite(column)][0])!r} "
                         f"is not a finite number")
    return out
