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
    expect_miss: bool = False         # the drive shows this figure missing its limit on purpose (Result.expected)

    @property
    def passed(self) -> bool | None:
        """Within its limits (None: not judged)."""
        if self.low is None and self.high is None:
            return None
        if not math.isfinite(self.value):
            return False
        return (self.low is None or self.value >= self.low) and (self.high is None or self.value <= self.high)

    @property
    def failed(self) -> bool:
        """Outside its limits where the drive does not expect it to be: what `contactpatch test` exits 1 for."""
        return self.passed is False and not self.expect_miss

    @property
    def mark(self) -> str:
        """The verdict in a word or two: "", ok, FAIL, "missed, as expected" or "ok, expected to miss"."""
        if self.passed is None:
            return ""
        if self.expect_miss:
            return "ok, expected to miss" if self.passed else "missed, as expected"
        return "ok" if self.passed else "FAIL"

    def limit_text(self) -> str:
        """'>= low and <= high', either side alone, or "" when not judged."""
        sides = [f"{op} {v:g}" for op, v in ((">=", self.low), ("<=", self.high)) if v is not None]
        return " and ".join(sides)


@dataclass
class Result:
    name: str
    vehicle: str
    figures: list[Figure]
    log: TelemetryLog = field(repr=False)
    seconds: float = 0.0              # wall time the drive took
    # what the drive shows on purpose when its expect_miss figures miss their limits, e.g. "spins without
    # stability control" (sine-with-dwell-no-esp); "" for a drive that expects every figure within its limit
    expected: str = ""

    def value(self, name: str) -> float:
        for f in self.figures:
            if f.name == name:
                return f.value
        raise KeyError(f"{self.name} has no figure {name!r}; it has {', '.join(f.name for f in self.figures)}")

    @property
    def passed(self) -> bool:
        """No figure failed (a figure the drive expects to miss its limit does not fail it)."""
        return not any(f.failed for f in self.figures)

    @property
    def failures(self) -> list[Figure]:
        return [f for f in self.figures if f.failed]

    @property
    def shown(self) -> bool | None:
        """Whether the drive showed what it shows on purpose (`expected`): every figure it expects to miss its
        limit missed it. None for a drive without such figures."""
        judged = [f.passed for f in self.figures if f.expect_miss and f.passed is not None]
        return None if not judged else not any(judged)

    @property
    def outcome(self) -> str:
        """One line: "ok", the failed figures with their limits, or the expected outcome and whether it came."""
        if self.failures:
            return f"FAIL: {listed(self.failures)}"
        if self.shown is None:
            return "ok"
        shows = listed([f for f in self.figures if f.expect_miss and f.passed is not None])
        return f"{self.expected}, as expected: {shows}" if self.shown else \
            f"ok, but expected to show that it {self.expected}, and met the limits it shows that by: {shows}"

    def table(self) -> str:
        rows = [f"### {self.name} ({self.vehicle})", "", "| figure | value | unit | limit | |", "|---|---|---|---|---|"]
        for f in self.figures:
            rows.append(f"| {f.name} | {f.value:.4g} | {f.unit} | {f.limit_text()} | {f.mark} |")
        if self.shown is not None:
            rows += ["", f"outcome: {self.outcome}"]
        return "\n".join(rows)


def listed(figures: list[Figure]) -> str:
    """'name value unit (limit <= x)' of each figure, '; ' between them."""
    return "; ".join(f"{f.name} {f.value:.4g}{'' if f.unit == '-' else ' ' + f.unit} (limit {f.limit_text()})"
                     for f in figures)


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
