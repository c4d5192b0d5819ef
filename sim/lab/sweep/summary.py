"""summary.md: the variants at each figure's ends (or a search's best and how close it came) and each
figure's sensitivity to each parameter: the least-squares slope of the figure on all the varied parameters
at once (a plane through the finished rows; on a full grid it is each parameter's own straight-line
slope), per unit of the parameter and per 10 % of its swept range.
"""
from __future__ import annotations

import math

import numpy as np

from sim.lab.sweep.table import Table


def slopes(table: Table, figure: str) -> tuple[np.ndarray, int]:
    """The least-squares slope of `figure` on every parameter (one per path, figure unit per parameter
    unit: y = c + sum_j s_j x_j over the rows where the figure is finite) and how many rows it used; nan
    where too few rows or a parameter that does not vary."""
    x = np.array([[r[p] for p in table.paths] for r in table.ordered() if r["status"] == "ok"], dtype=float)
    y = table.column(figure)
    out = np.full(len(table.paths), math.nan)
    ok = np.isfinite(y) if len(y) else np.zeros(0, dtype=bool)
    x, y = x[ok] if len(x) else x, y[ok]
    if len(y) < 2:
        return out, len(y)
    varies = np.array([np.ptp(x[:, j]) > 0.0 for j in range(x.shape[1])])
    if not varies.any() or len(y) <= varies.sum():
        return out, len(y)
    # centred: the intercept's column does not spoil the conditioning of parameters far from zero
    xc = x[:, varies] - x[:, varies].mean(axis=0)
    coef, *_ = np.linalg.lstsq(xc, y - y.mean(), rcond=None)
    out[varies] = coef
    return out, len(y)


def spans(table: Table) -> np.ndarray:
    """Each parameter's swept range (largest - smallest value in the rows)."""
    x = np.array([[r[p] for p in table.paths] for r in table.ordered()], dtype=float).reshape(-1, len(table.paths))
    return np.ptp(x, axis=0) if len(x) else np.zeros(len(table.paths))


def fmt(v: float) -> str:
    return "" if v is None or not math.isfinite(v) else f"{v:.6g}"


def variant_text(table: Table, row: dict) -> str:
    return ", ".join(f"{p} = {row[p]:.6g}{'' if u == '-' else ' ' + u}"
                     for p, u in zip(table.paths, table.param_units))


def markdown(table: Table, title: str, base: dict[str, float], search: str = "") -> str:
    """The summary's Markdown: counts, `search` (a search's own section, already written), the ends of each
    figure, the sensitivity table."""
    rows = table.ordered()
    ok = [r for r in rows if r["status"] == "ok"]
    failed = [r for r in rows if r["status"] != "ok"]
    out = [f"# {title}", "", f"{len(rows)} variants driven: {len(ok)} ok, {len(failed)} failed.", ""]
    if search:
        out += [search, ""]
    out += ["## Each figure's lowest and highest", "",
            "| figure | unit | as loaded | lowest | its variant | highest | its variant |",
            "|---|---|---|---|---|---|---|"]
    for fig, unit in zip(table.figures, table.figure_units):
        have = [r for r in ok if math.isfinite(r.get(fig, math.nan))]
        if not have:
            out.append(f"| {fig} | {unit} | {fmt(base.get(fig, math.nan))} | | | | |")
            continue
        lo = min(have, key=lambda r: r[fig])
        hi = max(have, key=lambda r: r[fig])
        out.append(f"| {fig} | {unit} | {fmt(base.get(fig, math.nan))} | {fmt(lo[fig])} | {lo['variant']}: "
                   f"{variant_text(table, lo)} | {fmt(hi[fig])} | {hi['variant']}: {variant_text(table, hi)} |")
    span = spans(table)
    out += ["", "## Sensitivity", "",
            "The least-squares slope of each figure on all the varied parameters at once, per unit of the "
            "parameter and per 10 % of its swept range (the figure's change when the parameter moves by a tenth "
            "of the range swept here).", "",
            "| figure | parameter | slope per unit | per 10 % of the range | rows |", "|---|---|---|---|---|"]
    for fig, unit in zip(table.figures, table.figure_units):
        s, n = slopes(table, fig)
        for j, (p, pu) in enumerate(zip(table.paths, table.param_units)):
            out.append(f"| {fig} | {p} | {fmt(s[j])} {unit} per {pu} | {fmt(s[j] * 0.1 * span[j])} {unit} | {n} |")
    if failed:
        out += ["", "## Failed variants", ""]
        out += [f"- {r['variant']} ({variant_text(table, r)}): {r['error']}" for r in failed[:50]]
        if len(failed) > 50:
            out.append(f"- and {len(failed) - 50} more (results.csv's error column)")
    return "\n".join(out) + "\n"
