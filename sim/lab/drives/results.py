"""What a test drive reports: its figures (a value with its unit and, where the physics or a standard gives
one, the limits it must meet) and its telemetry log; and two results side by side."""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field

from sim.lab.logs import TelemetryLog


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    low: float | None = None          # pass limits (None: not judged)
    high: float | None = None
    source: str = ""                  # where the limit comes from

    @property
    def passed(self) -> bool | None:
        if self.low is None and self.high is None:
            return None
        if not math.isfinite(self.value):
            return False
        return (self.low is None or self.value >= self.low) and (self.high is None or self.value <= self.high)


@dataclass
class Result:
    name: str
    vehicle: str
    figures: list[Figure]
    log: TelemetryLog = field(repr=False)
    seconds: float = 0.0              # wall time the drive took

    def value(self, name: str) -> float:
        for f in self.figures:
            if f.name == name:
                return f.value
        raise KeyError(f"{self.name} has no figure {name!r}; it has {', '.join(f.name for f in self.figures)}")

    @property
    def passed(self) -> bool:
        return all(f.passed is not False for f in self.figures)

    def table(self) -> str:
        rows = [f"### {self.name} ({self.vehicle})", "", "| figure | value | unit | limit | |", "|---|---|---|---|---|"]
        for f in self.figures:
            limit = "" if f.passed is None else f"{'' if f.low is None else f'>= {f.low:g}'}" \
                f"{' and ' if f.low is not None and f.high is not None else ''}" \
                f"{'' if f.high is None else f'<= {f.high:g}'}"
            mark = "" if f.passed is None else ("ok" if f.passed else "FAIL")
            rows.append(f"| {f.name} | {f.value:.4g} | {f.unit} | {limit} | {mark} |")
        return "\n".join(rows)


def compare(before: Result, after: Result) -> list[tuple[str, float, float, float, str]]:
    """(figure, before, after, after - before, unit) for every figure both results have."""
    out = []
    for f in before.figures:
        try:
            b = after.value(f.name)
        except KeyError:
            continue
        out.append((f.name, f.value, b, b - f.value, f.unit))
    return out


def compare_table(before: Result, after: Result, labels=("before", "after")) -> str:
    rows = [f"| {before.name} | {labels[0]} | {labels[1]} | difference | unit |", "|---|---|---|---|---|"]
    for name, a, b, d, unit in compare(before, after):
        rel = f" ({100 * d / a:+.1f} %)" if a not in (0.0,) and math.isfinite(a) and math.isfinite(d) else ""
        rows.append(f"| {name} | {a:.4g} | {b:.4g} | {d:+.4g}{rel} | {unit} |")
    return "\n".join(rows)
