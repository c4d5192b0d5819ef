"""Two laps compared against distance, not time (issue 31 item 3): each lap's telemetry log resampled at the
same distances along the centre line, and the time delta along the lap, so the place where time was lost
and the reason (which wheel saturated) show together.

A log row's lap distance is its station on the centre line (Track.follow from the row before), counted from
the start/finish line; the time into the lap at each distance is interpolated from the rows, with 0 s at
0 m and the lap time at the lap's length. The delta at distance d is t_b(d) - t_a(d): positive where lap b
is behind lap a.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.kernel.tables import WHEEL_NAMES
from sim.model.track import Track

STEP = 2.0           # m between the distances the laps are compared at
# what is compared: channel -> (unit shown, factor from the log's unit); per wheel: FL, FR, RL, RR
LAP_CHANNELS = {"speed": ("km/h", 3.6), "throttle": ("-", 1.0), "brake": ("-", 1.0), "steer_input": ("-", 1.0),
                "a_lat": ("g", 1.0), "a_long": ("g", 1.0)}
WHEEL_CHANNELS = {"grip use": ("-", 1.0), "kappa": ("-", 1.0), "alpha": ("deg", 57.29577951308232)}


def grip_use(log, wheel: str) -> np.ndarray:
    """|F| / (mu Fz) of one wheel, each row: 1 where its friction is all used (0 where it carries no load)."""
    fx, fy = log.column(f"Fx {wheel}"), log.column(f"Fy {wheel}")
    budget = log.column(f"mu {wheel}") * log.column(f"Fz {wheel}")
    return np.where(budget > 1.0, np.hypot(fx, fy) / np.maximum(budget, 1.0), 0.0)


def lap_distance(log, track: Track) -> np.ndarray:
    """Each row's distance (m) from the start/finish line along the centre line, non-decreasing, in
    [0, L]."""
    x, y = log.column("x"), log.column("y")
    s = np.empty(len(x))
    station = None
    for k in range(len(x)):
        if station is None:
            station = float(track.project(np.array([x[k], y[k]]))[0])
        else:
            station = track.follow(float(x[k]), float(y[k]), station, 20.0)[0]
        s[k] = station
    d = s + track.length * np.cumsum(np.concatenate([[0.0], np.diff(s) < -track.length / 2]))
    if len(d) and d[0] > track.length / 2:                  # the first row a hair behind the line
        d -= track.length
    return np.clip(np.maximum.accumulate(d), 0.0, track.length)


@dataclass
class LapTrace:
    """One lap on the comparison's distances: the time into the lap (s) and every channel (in the units of
    LAP_CHANNELS / WHEEL_CHANNELS; per wheel (K, 4))."""
    label: str
    time: np.ndarray
    channels: dict[str, np.ndarray]


def lap_trace(log, start: float, lap_time: float, track: Track, distance: np.ndarray, label: str = "") -> LapTrace:
    """Lap `log` (started at simulated `start` s, `lap_time` s long) at the distances `distance` (m)."""
    d = lap_distance(log, track)
    t = log.column("time") - start
    d_ref = np.concatenate([[0.0], d, [track.length]])
    t_ref = np.concatenate([[0.0], t, [lap_time]])
    keep = np.concatenate([[True], np.diff(d_ref) > 0.0])    # interp wants increasing distances
    d_ref, t_ref = d_ref[keep], t_ref[keep]
    channels = {}
    for name, (_, factor) in LAP_CHANNELS.items():
        v = log.column(name)
        channels[name] = np.interp(distance, d, v) * factor
    for name, (_, factor) in WHEEL_CHANNELS.items():
        cols = [grip_use(log, w) if name == "grip use" else log.column(f"{name} {w}") * factor for w in WHEEL_NAMES]
        channels[name] = np.column_stack([np.interp(distance, d, c) for c in cols])
    return LapTrace(label, np.interp(distance, d_ref, t_ref), channels)


@dataclass
class LapComparison:
    """Laps a and b at the same distances (m): `delta` = b's time minus a's (s) at each."""
    distance: np.ndarray
    a: LapTrace
    b: LapTrace

    @property
    def delta(self) -> np.ndarray:
        return self.b.time - self.a.time


def compare_laps(track: Track, a, b, step: float = STEP) -> LapComparison:
    """Compare two laps, each given as (log, lap start s, lap time s, label)."""
    distance = np.append(np.arange(0.0, track.length, step), track.length)
    return LapComparison(distance, lap_trace(a[0], a[1], a[2], track, distance, a[3]),
                         lap_trace(b[0], b[1], b[2], track, distance, b[3]))
