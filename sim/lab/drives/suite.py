"""The suite: every test drive by its name (`contactpatch test NAME`), `run_batch(name, cars)` (many cars in
one Simulation) and `run(name, car)`, and the limits a user sets on a drive's figures (`--limit`)."""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sim.lab.drives.bumps import curb
from sim.lab.drives.bumps import drop
from sim.lab.drives.circles import constant_radius
from sim.lab.drives.circles import steady_circle
from sim.lab.drives.fmvss126 import sine_with_dwell
from sim.lab.drives.lap import lap
from sim.lab.drives.longitudinal import braking
from sim.lab.drives.longitudinal import coast_down
from sim.lab.drives.longitudinal import standing_start
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.lab.drives.standstill import parked
from sim.lab.drives.standstill import settle
from sim.lab.drives.transients import lane_change
from sim.lab.drives.transients import step_steer
from sim.model.files import ConfigError
from sim.model.params import Vehicle

# every drive takes a list of cars (driven together in one Simulation) and gives a list of Results in order
SUITE = {"settle": settle, "step-steer": step_steer, "circle": constant_radius, "steady-circle": steady_circle,
         "braking": braking, "braking-no-abs": lambda cars: braking(cars, abs_on=False),
         "standing-start": standing_start, "coast-down": coast_down, "parked": parked, "lane-change": lane_change,
         "drop": drop, "curb": curb, "sine-with-dwell": sine_with_dwell,
         "sine-with-dwell-no-esp": lambda cars: sine_with_dwell(cars, esp=False), "lap": lap}
# drives `contactpatch test all` leaves out (minutes each): named on their own
LONG = ("lap",)


SUITE_HELP = {name: (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ") for name, fn in SUITE.items()}
SUITE_HELP["braking-no-abs"] = "the braking drive with ABS off"
SUITE_HELP["sine-with-dwell-no-esp"] = "the sine with dwell with stability control off (the same inputs)"


def run_batch(name: str, cars: Sequence[Vehicle], **options) -> list[Result]:
    """Test drive `name` of every car in `cars` (each its own parameters, any of them), driven together in
    one Simulation: one Result per car, in order, each bit for bit the car's drive alone. Result.seconds is
    the batch's wall time shared among its cars. `options` go to the drive (the lap's world=, laps=)."""
    if name not in SUITE:
        raise ConfigError(f"test drive {name!r} is not known; expected one of {', '.join(SUITE)} or all")
    cars = list(cars)
    if not cars or not all(isinstance(c, Vehicle) for c in cars):
        raise ValueError(f"run_batch({name!r}, ...): expected a non-empty sequence of Vehicles")
    t0 = time.perf_counter()
    results = SUITE[name](cars, **options)
    seconds = (time.perf_counter() - t0) / len(cars)
    for r in results:
        r.seconds = seconds
    return results


def run(name: str, car: Vehicle, **options) -> Result:
    """Test drive `name` of one car: `run_batch(name, [car], **options)[0]`."""
    return run_batch(name, [car], **options)[0]


@dataclass(frozen=True)
class Limit:
    """A pass limit the user sets on a figure: `drive` ("" for any drive that has the figure), the figure's
    name, "<=" or ">=", and the value in the figure's unit."""
    drive: str
    figure: str
    op: str
    value: float

    def __str__(self) -> str:
        return f"{self.drive + '/' if self.drive else ''}{self.figure}{self.op}{self.value:g}"


def parse_limit(text: str) -> Limit:
    """'[drive/]figure<=value' or '[drive/]figure>=value', e.g. 'braking/stopping distance<=38' (units as
    the figure's). ConfigError naming the text and what is allowed otherwise."""
    for op in ("<=", ">="):
        if op in text:
            name, _, value = text.partition(op)
            drive, _, figure = name.strip().rpartition("/")
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not math.isfinite(number) or not figure.strip():
                break
            if drive and drive.strip() not in SUITE:
                raise ConfigError(f"limit {text!r}: test drive {drive.strip()!r} is not known; expected one of "
                                  f"{', '.join(SUITE)}")
            return Limit(drive.strip(), figure.strip(), op, number)
    raise ConfigError(f"limit {text!r} is not allowed; expected '[drive/]figure<=value' or '[drive/]figure>=value' "
                      f"with a finite number, e.g. 'braking/stopping distance<=38'")


def apply_limits(result: Result, limits) -> list[Limit]:
    """Judge `result`'s figures by the user's limits (they replace the drive's own limit on that side, and a
    figure the drive expects to miss its own limit is then judged plainly by the user's); returns the limits
    that matched a figure of this drive."""
    used = []
    for lim in limits:
        if lim.drive and lim.drive != result.name:
            continue
        for i, f in enumerate(result.figures):
            if f.name == lim.figure:
                low, high = (lim.value, f.high) if lim.op == ">=" else (f.low, lim.value)
                result.figures[i] = Figure(f.name, f.value, f.unit, low, high, f"user limit {lim}")
                used.append(lim)
    return used
