""""Sweep this", free of ImGui: one test drive of the car as tuned, over N values of one parameter, run as one
batch (sim.lab.drives.run_batch, through the sweep's own drive_apart, so that a variant that blows up or
is refused costs only its own point) in a worker thread while the app drives on. The Tuning panel shows
the setup and the figures against the parameter (ui/panels/sweep_this.py).
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from dataclasses import field

import numpy as np

import sim
from sim.lab.drives import SUITE
from sim.lab.sweep import drive_apart
from sim.lab.sweep import one_line
from sim.model import checks

DEFAULT_DRIVE = "step-steer"       # a quick one: under a second for nine cars here
DEFAULT_POINTS = 9
MAX_POINTS = 64


def default_range(path: str, value: float) -> tuple[float, float]:
    """+-50 % around `value`, clipped to the parameter's declared range; the declared range itself when the
    value is 0 (no +-50 % to speak of) and the range is finite."""
    m = checks.field_info(path).metadata
    lo, hi = float(m["lo"]), float(m["hi"])
    if value == 0.0:
        return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else (0.0, 1.0)
    a, b = sorted((0.5 * value, 1.5 * value))
    return max(a, lo), min(b, hi)


@dataclass
class Outcome:
    """A finished sweep: the parameter's values, each figure's name, unit and values (nan at a failed
    point), and each failed point's one-line reason ("" where it drove)."""
    path: str
    drive: str
    values: np.ndarray
    names: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    figures: list[np.ndarray] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def sweep(base: sim.Vehicle, path: str, drive: str, values) -> Outcome:
    """Drive `drive` once for every value of `path` on `base` (one batch); per point either its figures
    or why not (the value refused by the parameter's checks, the stability advisor, or a blow-up)."""
    import time
    t0 = time.perf_counter()
    values = np.asarray(values, dtype=float)
    cars, errors = [], []
    for v in values:
        try:
            cars.append(checks.with_value(base, path, float(v)))
            errors.append("")
        except sim.ConfigError as exc:
            cars.append(None)
            errors.append(f"refused: {one_line(exc)}")
    which = [i for i, c in enumerate(cars) if c is not None]
    results = dict(zip(which, drive_apart(drive, [cars[i] for i in which])))
    out = Outcome(path, drive, values)
    for i, r in results.items():
        if isinstance(r, str):
            errors[i] = r
        elif not out.names:
            out.names = [f.name for f in r.figures]
            out.units = [f.unit for f in r.figures]
    out.figures = [np.full(len(values), math.nan) for _ in out.names]
    for i, r in results.items():
        if not isinstance(r, str):
            for k, f in enumerate(r.figures):
                out.figures[k][i] = float(f.value)
    out.errors = errors
    out.seconds = time.perf_counter() - t0
    return out


class QuickSweep:
    """The Tuning panel's "sweep this": which parameter (`path`, None: none chosen), the drive, the range
    and the points; the worker thread and its `outcome` (or `problem`, one line)."""

    def __init__(self):
        self.path: str | None = None
        self.drive = DEFAULT_DRIVE
        self.lo = self.hi = 0.0
        self.points = DEFAULT_POINTS
        self.figure = 0                               # the figure plotted, an index of outcome.names
        self.thread: threading.Thread | None = None
        self.outcome: Outcome | None = None
        self.problem = ""
        self.scroll = False                           # the panel scrolls its box into view (chosen, or a new plot)

    @property
    def busy(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def choose(self, path: str, value: float) -> None:
        """Set up a sweep of `path` around `value` (the default range, the points and drive kept)."""
        if path != self.path:
            self.outcome, self.problem, self.figure = None, "", 0
        self.path = path
        self.lo, self.hi = default_range(path, float(value))
        self.scroll = True

    def close(self) -> None:
        self.path = None

    def values(self) -> np.ndarray:
        return np.linspace(self.lo, self.hi, max(2, min(int(self.points), MAX_POINTS)))

    def check(self) -> str:
        """Why the setup cannot run ("" when it can)."""
        if self.drive not in SUITE:
            return f"{self.drive!r} is not a test drive"
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)) or self.lo >= self.hi:
            return f"the range {self.lo:g} to {self.hi:g} is empty: the low end must be below the high one"
        if not 2 <= self.points <= MAX_POINTS:
            return f"{self.points} points: expected 2 to {MAX_POINTS}"
        return ""

    def start(self, base: sim.Vehicle) -> threading.Thread | None:
        """Run the sweep of the car `base` in a worker thread (None, with `problem` set, if the setup cannot
        run). The outcome replaces the last one when it is done."""
        self.problem = self.check()
        if self.problem or self.path is None or self.busy:
            return None
        path, drive, values = self.path, self.drive, self.values()

        def work():
            try:
                outcome = sweep(base, path, drive, values)
            except (sim.ConfigError, sim.BlowUp, ValueError) as exc:
                self.problem = f"{drive}: {one_line(exc)}"
                return
            if self.path == path:
                self.outcome, self.scroll = outcome, True
                if self.figure >= len(outcome.names):
                    self.figure = 0
        self.thread = threading.Thread(target=work, daemon=True, name="sweep this")
        self.thread.start()
        return self.thread
