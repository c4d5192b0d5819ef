"""Setting any state of a vehicle (`sim.Simulation.set_state`), for a script that starts an experiment from
a given motion: position, orientation, velocity, angular velocity, each wheel's spin and the gear. Also the
orientation helper `yaw_pitch_roll`.

Every array is world frame SI, like the views of `sim.Simulation.state`.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sim.controls import all_finite
from sim.kernel import tables as T
from sim.kernel.placement import NO_GEAR_CHANGE
from sim.kernel.placement import set_vehicle_state

QUATERNION_TOLERANCE = 1e-3     # |q| may differ from 1 by this much (rounding, a hand-typed cos and sin) and is
#                                 normalised; further from 1 it is refused (a mistake, not rounding)


def yaw_pitch_roll(yaw: float = 0.0, pitch: float = 0.0, roll: float = 0.0) -> np.ndarray:
    """The unit quaternion (w, x, y, z), body -> world, of a heading `yaw` about world z (+ turns left),
    then `pitch` about the body's y (+ nose down: y points left, right-hand rule) and `roll` about the
    body's x (+ right side down), all in radians: q = Rz(yaw) Ry(pitch) Rx(roll)."""
    for name, value in (("yaw", yaw), ("pitch", pitch), ("roll", roll)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
                or not math.isfinite(value):
            raise ValueError(f"yaw_pitch_roll: {name} = {value!r} is not allowed; expected a finite number of radians")
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    return np.array([cy * cp * cr + sy * sp * sr, cy * cp * sr - sy * sp * cr,
                     cy * sp * cr + sy * cp * sr, sy * cp * cr - cy * sp * sr])


def vehicle_indices(index, n: int) -> np.ndarray:
    """The vehicles `index` names: all of them for None, else the one index (ValueError otherwise)."""
    if index is not None and (isinstance(index, bool) or not isinstance(index, (int, np.integer))
                              or not 0 <= index < n):
        raise ValueError(f"index = {index!r} is not allowed; expected a vehicle index in [0, {n - 1}] or None")
    return np.arange(n) if index is None else np.array([index])


def per_vehicle(call: str, name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    """`value` as finite float64 numbers broadcast to `shape` ((vehicles,) + one vehicle's shape); a
    one-line ValueError naming `call` and `name` otherwise."""
    if not all_finite(value):
        raise ValueError(f"{call}: {name} = {value!r} is not allowed; expected finite numbers")
    try:
        return np.array(np.broadcast_to(np.asarray(value, float), shape))
    except ValueError:
        raise ValueError(f"{call}: {name} has shape {np.shape(value)}; expected {shape[1:] or 'a number'} "
                         f"or {shape}") from None


def gears_for(call: str, gear, count: int) -> list:
    """One whole-number gear for each of `count` vehicles from a number or a sequence (ValueError
    otherwise)."""
    gears = [gear] * count if isinstance(gear, (int, np.integer)) else \
        list(gear) if isinstance(gear, (Sequence, np.ndarray)) and len(gear) == count else [None]
    if any(isinstance(g, bool) or not isinstance(g, (int, np.integer)) for g in gears):
        raise ValueError(f"{call}: gear = {gear!r} is not allowed; expected a whole number (-1 reverse, 0 neutral, "
                         f"1..) or one for each of the {count} vehicles")
    return [int(min(max(g, -1), T.MAX_GEARS)) for g in gears]   # (the kernel clamps to the car's gearbox)


def unit_quaternions(orientation, count: int) -> np.ndarray:
    """(count, 4) unit quaternions from one (4,) or one per vehicle: within QUATERNION_TOLERANCE of unit
    length they are normalised; further from it they are refused (a typo, not rounding)."""
    q = per_vehicle("set_state", "orientation", orientation, (count, 4))
    norm = np.linalg.norm(q, axis=1)
    if np.any(np.abs(norm - 1.0) > QUATERNION_TOLERANCE):
        raise ValueError(f"set_state: orientation = {orientation!r} has length {norm.max():.9g}; expected a unit "
                         f"quaternion (w, x, y, z) within {QUATERNION_TOLERANCE:g} (sim.yaw_pitch_roll makes one)")
    return q / norm[:, None]


def write_state(tables, n: int, index=None, *, position=None, orientation=None, velocity=None,
                angular_velocity=None, wheel_spin=None, gear=None) -> np.ndarray:
    """`sim.Simulation.set_state`'s work on its tables (of n vehicles); every argument is checked before
    anything is written. Returns the indices of the vehicles set."""
    idx = vehicle_indices(index, n)
    count = len(idx)
    body = {}
    if position is not None:
        body[T.BS_PX] = per_vehicle("set_state", "position", position, (count, 3))
    if orientation is not None:
        body[T.BS_QW] = unit_quaternions(orientation, count)
    if velocity is not None:
        body[T.BS_VX] = per_vehicle("set_state", "velocity", velocity, (count, 3))
    if angular_velocity is not None:
        body[T.BS_WX] = per_vehicle("set_state", "angular_velocity", angular_velocity, (count, 3))
    spin = None if wheel_spin is None else per_vehicle("set_state", "wheel_spin", wheel_spin, (count, T.NW))
    gears = [NO_GEAR_CHANGE] * count if gear is None else gears_for("set_state", gear, count)
    for column, values in body.items():
        tables.body_state[idx, column:column + values.shape[1]] = values
    if spin is not None:
        tables.wheel_state[idx, :, T.WS_OMEGA] = spin
    for k, v in enumerate(idx):
        set_vehicle_state(int(v), gears[k], spin is not None or gear is not None, tables.vehicle_params,
                          tables.wheel_params, tables.body_state, tables.drive_state, tables.wheel_state,
                          tables.body_telemetry)
    return idx
