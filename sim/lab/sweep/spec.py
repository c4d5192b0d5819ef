"""A sweep file (TOML): the car, the drives, and the parameters varied over a grid, uniform random draws, or
an Optuna search. Read once, checked whole before anything is driven: every refusal is a one-line
ConfigError naming the file, the key, the value and what is allowed.

    vehicle = "hatchback"                      # preset name or TOML path (relative to the sweep file)
    drives = ["steady-circle", "braking"]      # test drive names (contactpatch test --help)
    [grid]                                     # every combination of these values
    "front_suspension.anti_roll" = [0.0, 20000.0, 40000.0]
    [random]                                   # n uniform draws in each [low, high] (seeded)
    n = 64
    seed = 1
    "front_tire.grip" = [0.9, 1.1]
    [search]                                   # instead of grid and random: Optuna's ask/tell
    trials = 80
    batch = 16
    target = { "circle/understeer gradient" = 0.2 }     # or minimize / maximize = "drive/figure"
    tolerance = 0.05                           # a target: stop once a trial is within 5 % of it
    "front_suspension.anti_roll" = [0.0, 60000.0]

A grid and random draws together give every grid combination crossed with the same n draws.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import numpy as np

from sim.lab.drives.suite import SUITE
from sim.model.checks import check_value
from sim.model.checks import field_info
from sim.model.files import ConfigError
from sim.model.files import integer
from sim.model.files import known_keys
from sim.model.files import read_toml
from sim.model.files import show
from sim.model.files import string
from sim.model.files import table

MAX_VARIANTS = 100_000          # a grid past this is refused unless --max-variants allows it
TOP_KEYS = ("vehicle", "drives", "grid", "random", "search")
SEARCH_KEYS = ("trials", "batch", "seed", "target", "tolerance", "minimize", "maximize")


@dataclass(frozen=True)
class Parameter:
    """A varied parameter: its dotted path, unit, declared range and description (the model's table)."""
    path: str
    unit: str
    lo: float
    hi: float
    doc: str


@dataclass
class Search:
    """An Optuna search: `trials` in all, asked `batch` at a time; the objective is |figure - target| (a
    target) or the figure itself (minimize; maximize negated). `ranges`: {path: (low, high)}."""
    trials: int
    batch: int
    seed: int
    figure: str                          # "drive/figure"
    goal: str                            # "target", "minimize" or "maximize"
    target: float = math.nan
    tolerance: float = 0.0               # a target: stop once a trial is this close (a share of |target|)
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)


@dataclass
class Sweep:
    """A checked sweep file: the vehicle (name or resolved path), the drives, the grid's values, the random
    ranges (`n` draws, `seed`), or a search."""
    path: str
    vehicle: str
    drives: list[str]
    grid: dict[str, list[float]] = field(default_factory=dict)
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    n: int = 0
    seed: int = 0
    search: Search | None = None
    parameters: dict[str, Parameter] = field(default_factory=dict)

    @property
    def paths(self) -> list[str]:
        """The varied parameters' paths, the table's columns: the grid's, then the random draws' (or the
        search's)."""
        return list(self.grid) + list(self.ranges) + (list(self.search.ranges) if self.search else [])

    def count(self) -> int:
        """How many variants the grid and the draws make (a search: its trials)."""
        if self.search:
            return self.search.trials
        return math.prod(len(v) for v in self.grid.values()) * (self.n if self.ranges else 1)

    def variants(self) -> list[tuple[float, ...]]:
        """Every variant's values, in the order of `paths`: the grid's combinations (the first parameter
        varying slowest), each crossed with the same `n` uniform draws (numpy's PCG64 seeded with `seed`)."""
        combos = list(itertools.product(*self.grid.values()))
        if not self.ranges:
            return [tuple(float(v) for v in c) for c in combos]
        lo = np.array([r[0] for r in self.ranges.values()])
        hi = np.array([r[1] for r in self.ranges.values()])
        draws = np.random.default_rng(self.seed).uniform(lo, hi, size=(self.n, len(lo)))
        return [tuple(float(v) for v in c) + tuple(float(v) for v in d) for c in combos for d in draws]


def parameter(where: str, key: str, path: str) -> Parameter:
    """The parameter a sweep varies (a number with a unit and range; not a curve or a choice)."""
    try:
        f = field_info(path)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {key}: {exc}") from None
    m = f.metadata
    if m["kind"] != "num":
        raise ConfigError(f"{where}: {key} = {show(path)} is not allowed; a sweep varies numbers, and {path} is "
                          f"a {'choice' if m['kind'] == 'text' else 'curve'}")
    return Parameter(path, m["unit"], m["lo"], m["hi"], m["doc"])


def in_range(where: str, key: str, p: Parameter, value) -> float:
    """`value` checked against the parameter's declared range (the model's own message)."""
    return check_value(field_info(p.path), value, where, key)


def values_list(where: str, key: str, value) -> list:
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a non-empty list of numbers")
    return value


def low_high(where: str, key: str, p: Parameter, value) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected [low, high], two numbers in "
                          f"[{p.lo:g}, {p.hi:g}] {p.unit}")
    lo, hi = (in_range(where, key, p, v) for v in value)
    if not lo < hi:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected [low, high] with low below "
                          f"high")
    return lo, hi


def figure_name(where: str, key: str, value) -> str:
    """'drive/figure', the drive one of the sweep's (the figure is checked once the drive has run)."""
    text = string(where, key, value)
    drive, _, fig = text.partition("/")
    if drive not in SUITE or not fig:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected 'drive/figure' with a drive "
                          f"from {', '.join(SUITE)}, e.g. 'braking/stopping distance'")
    return text


def read_search(where: str, data, parameters: dict[str, Parameter]) -> Search:
    data = table(where, "search", data)
    goals = [k for k in ("target", "minimize", "maximize") if k in data]
    if len(goals) != 1:
        raise ConfigError(f"{where}: [search] needs exactly one of target = {{ \"drive/figure\" = value }}, "
                          f"minimize = \"drive/figure\" or maximize = \"drive/figure\" (it has "
                          f"{', '.join(goals) or 'none'})")
    trials = integer(where, "search.trials", data.get("trials", 80), 1, 10**9)
    batch = integer(where, "search.batch", data.get("batch", 16), 1, 4096)
    seed = integer(where, "search.seed", data.get("seed", 0), 0, 2**32 - 1)
    goal = goals[0]
    if goal == "target":
        tgt = table(where, "search.target", data["target"])
        if len(tgt) != 1:
            raise ConfigError(f"{where}: search.target = {show(tgt)} is not allowed; expected one "
                              f"\"drive/figure\" = value")
        (name, value), = tgt.items()
        figure = figure_name(where, "search.target", name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ConfigError(f"{where}: search.target.{show(name)} = {show(value)} is not allowed; expected a "
                              f"finite number in the figure's unit")
        tol = data.get("tolerance", 0.0)
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0.0 <= tol < 1.0:
            raise ConfigError(f"{where}: search.tolerance = {show(tol)} is not allowed; expected a share of the "
                              f"target in [0, 1), e.g. 0.05 to stop within 5 % of it")
        s = Search(trials, batch, seed, figure, goal, float(value), float(tol))
    else:
        if "tolerance" in data:
            raise ConfigError(f"{where}: search.tolerance is only for a target; {goal} runs every trial")
        s = Search(trials, batch, seed, figure_name(where, f"search.{goal}", data[goal]), goal)
    for path, value in data.items():
        if path in SEARCH_KEYS:
            continue
        key = f"search.{show(path)}"
        parameters[path] = parameter(where, key, path)
        s.ranges[path] = low_high(where, key, parameters[path], value)
    if not s.ranges:
        raise ConfigError(f"{where}: [search] names no parameter; expected \"group.name\" = [low, high]")
    return s


def load_sweep(path: str | Path, max_variants: int = MAX_VARIANTS) -> Sweep:
    """The sweep file at `path`, checked (ConfigError with one line naming the file, key, value and what is
    allowed). The vehicle is named here, loaded by the caller."""
    where = str(path)
    data = read_toml(path, "sweep")
    known_keys(where, "sweep", data, TOP_KEYS)
    vehicle = string(where, "vehicle", data.get("vehicle", "hatchback"))
    if vehicle.endswith(".toml") or "/" in vehicle:
        vehicle = str(Path(path).parent / vehicle) if not Path(vehicle).is_absolute() else vehicle
    drives = data.get("drives")
    if isinstance(drives, str):
        drives = [drives]
    if not isinstance(drives, list) or not drives:
        raise ConfigError(f"{where}: drives = {show(drives)} is not allowed; expected a list of test drive names "
                          f"from {', '.join(SUITE)}")
    for d in drives:
        if d not in SUITE:
            raise ConfigError(f"{where}: drives: {show(d)} is not a test drive; expected one of {', '.join(SUITE)}")
    if len(set(drives)) != len(drives):
        raise ConfigError(f"{where}: drives = {show(drives)} names a drive twice")
    s = Sweep(where, vehicle, list(drives))
    for path_, values in table(where, "grid", data.get("grid", {})).items():
        key = f"grid.{show(path_)}"
        s.parameters[path_] = p = parameter(where, key, path_)
        s.grid[path_] = [in_range(where, key, p, v) for v in values_list(where, key, values)]
        if len(set(s.grid[path_])) != len(s.grid[path_]):
            raise ConfigError(f"{where}: {key} = {show(values)} is not allowed; a value is listed twice")
    rnd = table(where, "random", data.get("random", {}))
    if rnd:
        s.n = integer(where, "random.n", rnd.get("n"), 1, 10**9)
        s.seed = integer(where, "random.seed", rnd.get("seed", 0), 0, 2**32 - 1)
        for path_, value in rnd.items():
            if path_ in ("n", "seed"):
                continue
            key = f"random.{show(path_)}"
            if path_ in s.grid:
                raise ConfigError(f"{where}: {key}: {path_} is in [grid] too; vary a parameter in one of them")
            s.parameters[path_] = p = parameter(where, key, path_)
            s.ranges[path_] = low_high(where, key, p, value)
        if not s.ranges:
            raise ConfigError(f"{where}: [random] names no parameter; expected \"group.name\" = [low, high]")
    if "search" in data:
        if s.grid or s.ranges:
            raise ConfigError(f"{where}: [search] is a sweep of its own; remove [grid] and [random] from this file "
                              f"(or sweep them in another file)")
        s.search = read_search(where, data["search"], s.parameters)
        if s.search.figure.partition("/")[0] not in s.drives:
            raise ConfigError(f"{where}: search: {show(s.search.figure)} is not a figure of this sweep's drives "
                              f"({', '.join(s.drives)}); add its drive to drives")
    if not s.paths:
        raise ConfigError(f"{where}: varies nothing; expected a [grid], [random] or [search] table with "
                          f"\"group.name\" = values, e.g. \"front_suspension.anti_roll\" = [0.0, 20000.0]")
    if s.count() > max_variants:
        sizes = " x ".join(str(len(v)) for v in s.grid.values()) + (f" x {s.n} draws" if s.ranges else "")
        raise ConfigError(f"{where}: {s.count():,} variants ({sizes}) is too many; expected at most "
                          f"{max_variants:,} (raise it with --max-variants)")
    return s
