"""The plots' history: the last seconds of the plot channels, one sample per physics step, in a ring buffer
(`History`), the channels it offers (`CHANNELS`) and the same channels read from a telemetry log
(`log_channel`, for a test drive's other run). No ImGui here: the Plots panel (ui/panels/plots.py) draws
what this keeps."""
from __future__ import annotations

import math

import numpy as np

import sim

# name: (unit, columns, plain description); one subplot per unit, so kappa never shares an axis with rpm
CHANNELS = {"speed": ("km/h", 1, "speed along the heading"),
            "rpm": ("rpm", 1, "engine speed"),
            "Fz": ("N", 4, "each wheel's load"),
            "Fx": ("N", 4, "each tire's limited longitudinal force"),
            "Fy": ("N", 4, "each tire's limited lateral force"),
            "kappa": ("-", 4, "each wheel's slip ratio"),
            "alpha": ("deg", 4, "each wheel's slip angle"),
            "steer": ("deg", 1, "the front wheels' mean steering angle"),
            "beta": ("deg", 1, "body slip angle: between the heading and the direction of travel"),
            "yaw rate": ("deg/s", 1, "how fast the car turns about its vertical axis"),
            "a long": ("g", 1, "longitudinal acceleration in the car's frame (+ forward)"),
            "a lat": ("g", 1, "lateral acceleration in the car's frame (+ left)")}
G = sim.GRAVITY


def log_channel(log, name: str) -> np.ndarray | None:
    """A plot channel (CHANNELS, in its display unit) read from a telemetry log (sim.lab.logs), (rows, width);
    None if the log lacks it."""
    wheels = lambda c: np.column_stack([log.column(f"{c} {w}") for w in sim.WHEEL_NAMES])  # noqa: E731
    try:
        if name == "speed":
            return log.column("v_forward")[:, None] * sim.KMH
        if name in ("rpm", "a_long", "a_lat"):
            return log.column(name)[:, None]
        if name in ("a long", "a lat"):
            return log.column(name.replace(" ", "_"))[:, None]
        if name in ("Fz", "Fx", "Fy", "kappa"):
            return wheels(name)
        if name == "alpha":
            return np.degrees(wheels("alpha"))
        if name == "steer":
            return np.degrees(0.5 * (log.column("steer FL") + log.column("steer FR")))[:, None]
        if name == "beta":
            return np.degrees(log.column("beta"))[:, None]
        if name == "yaw rate":
            return np.degrees(log.column("yaw_rate"))[:, None]
    except KeyError:
        return None
    return None


class History:
    """The last `seconds` of the plot channels, one sample per physics step, in a ring buffer. Each step
    stores the raw numbers in one row (time, world velocity, orientation, angular velocity, the change of
    velocity since the last sample, rpm and the wheels' channels); the channels in the car's frame and in
    display units are worked out from them when a plot asks (`series`), for the samples it shows."""

    # raw row: t | v (3) | q (4) | w (3) | dv/dt (3) | rpm | Fz Fx Fy kappa alpha (4 each) | steer FL, FR
    T, V, Q, W, A, RPM, WHEELS, STEER, WIDTH = 0, 1, 4, 8, 11, 14, 15, 35, 37
    WHEEL_CHANNELS = ("Fz", "Fx", "Fy", "kappa", "alpha")

    def __init__(self, seconds: float, dt: float):
        self.cap = int(round(seconds / dt))
        self.raw = np.zeros((self.cap, self.WIDTH))
        self.t = self.raw[:, self.T]
        self.n = 0
        self.valid = 0                                # samples in the ring that are still to be shown
        self._v_prev: list | None = None             # world velocity at the last sample (for the accelerations)

    def append(self, sim_) -> None:
        tel = sim_.telemetry
        k = self.n % self.cap
        body = sim_.state.body_list()                 # position, orientation, velocity, angular velocity
        v = body[7:10]
        t = sim_.time
        if self._v_prev is not None and self.valid:
            dt = t - self.t[(self.n - 1) % self.cap]
            a = [(v[j] - self._v_prev[j]) / dt for j in range(3)] if dt > 0.0 else [0.0, 0.0, 0.0]
        else:
            a = [0.0, 0.0, 0.0]
        self._v_prev = v
        row = [t, *v, *body[3:7], *body[10:13], *a, float(tel.rpm)]
        for values in tel.wheel_lists(self.WHEEL_CHANNELS + ("steer",)):
            row += values
        self.raw[k] = row[:self.WIDTH]                # (the steering angle of the front wheels only)
        self.n += 1
        self.valid = min(self.valid + 1, self.cap)

    def restart(self) -> None:
        """The state jumped: the next sample has no previous velocity to take an acceleration from."""
        self._v_prev = None

    def forget_after(self, time: float) -> None:
        """Drop the samples later than `time` (the future a rewind abandons)."""
        m = min(self.n, self.cap, self.valid)
        idx = (np.arange(self.n - m, self.n)) % self.cap
        later = int(np.count_nonzero(self.t[idx] > time + 1e-9))
        self.n -= later
        self.valid = m - later                        # a wrapped ring's slots past them hold older samples
        self._v_prev = None

    def times(self) -> np.ndarray:
        """The samples' times in order."""
        m = min(self.n, self.cap, self.valid)
        return self.t[(np.arange(self.n - m, self.n)) % self.cap]

    def series(self, name: str, since: float = -math.inf) -> tuple[np.ndarray, np.ndarray]:
        """(times, values) in time order: the channel `name` (CHANNELS) in its display unit, (samples, width);
        only the samples at `since` s or later (the plots' window: the rest is neither copied nor turned
        into the car's frame)."""
        m = min(self.n, self.cap, self.valid)
        idx = (np.arange(self.n - m, self.n)) % self.cap
        if since > -math.inf and m:
            idx = idx[int(np.searchsorted(self.t[idx], since)):]
        rows = self.raw[idx]
        if name in self.WHEEL_CHANNELS:
            j = self.WHEELS + 4 * self.WHEEL_CHANNELS.index(name)
            values = rows[:, j:j + 4]
            return rows[:, self.T], np.degrees(values) if name == "alpha" else values
        if name == "rpm":
            return rows[:, self.T], rows[:, self.RPM:self.RPM + 1]
        if name == "steer":
            return rows[:, self.T], np.degrees(0.5 * (rows[:, self.STEER] + rows[:, self.STEER + 1]))[:, None]
        # the car's frame: x = R^T x_world with R's columns the body axes (sim.lab.logs.body_frame, per sample)
        w_, x, y, z = (rows[:, self.Q + c] for c in range(4))
        axes = np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w_ * z), 2 * (x * z - w_ * y)], -1),
                         np.stack([2 * (x * y - w_ * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w_ * x)], -1),
                         np.stack([2 * (x * z + w_ * y), 2 * (y * z - w_ * x), 1 - 2 * (x * x + y * y)], -1)], 1)

        def body(col):                                 # (samples, 3) world -> the car's frame
            return np.einsum("nij,nj->ni", axes, rows[:, col:col + 3])
        if name == "speed":
            values = body(self.V)[:, :1] * sim.KMH
        elif name == "beta":
            vb = body(self.V)
            with np.errstate(invalid="ignore", divide="ignore"):
                values = np.where(np.abs(vb[:, 0]) > 1.0, np.degrees(np.arctan2(vb[:, 1], vb[:, 0])), np.nan)[:, None]
        elif name == "yaw rate":
            values = np.degrees(body(self.W)[:, 2:3])
        elif name == "a long":
            values = body(self.A)[:, 0:1] / G
        elif name == "a lat":
            values = body(self.A)[:, 1:2] / G
        else:
            raise KeyError(name)
        return rows[:, self.T], values
