"""A figure against a parameter (ImPlot), as the Sweeps panel and the Tuning panel's "sweep this" draw it:
the variants that drove as points, the failed ones as red lines at their values, the current value of the
parameter as a line, a selected variant ringed."""
from __future__ import annotations

import math

import numpy as np
from imgui_bundle import imgui
from imgui_bundle import implot

from ui.panels.plots import thin
from ui.widgets import AMBER
from ui.widgets import RED

LEGEND = "dots: the variants; amber line: the value now; red lines: variants that failed; ringed: the selected one"
MOST_POINTS = 2000      # a scatter of more markers costs a software renderer a frame's time: thinned to this


def padded(values: np.ndarray, share: float = 0.06) -> tuple[float, float]:
    """The axis range of `values` with a margin (`share` of the span each side), so that the end markers show
    whole; a single value gets +-5 % of itself (or +-1); no finite value: 0 to 1."""
    v = values[np.isfinite(values)]
    if not len(v):
        return 0.0, 1.0
    lo, hi = float(v.min()), float(v.max())
    pad = share * (hi - lo) if hi > lo else (0.05 * abs(lo) or 1.0)
    return lo - pad, hi + pad


def figure_plot(plot_id: str, x: np.ndarray, y: np.ndarray, xlabel: str, ylabel: str, *, height: float = -1.0,
                failed_x: np.ndarray | None = None, current: float | None = None,
                selected: tuple[float, float] | None = None, line: bool = False,
                series: list[tuple[str, np.ndarray]] | None = None, series_of: str = "") -> None:
    """Scatter y against x (nan y: left out), `line` joining the points in x order; or, with `series`
    ((label, row indices) each), a line through each series' points in its own colour, with a legend
    (`series_of` says what the labels are, in the tooltip); `failed_x` as red vertical lines, `current` as
    an amber one, `selected` ringed."""
    ok = np.isfinite(x) & np.isfinite(y)
    xs, ys = np.ascontiguousarray(x[ok], float), np.ascontiguousarray(y[ok], float)
    if len(xs) > MOST_POINTS:
        xs, ys, series = np.ascontiguousarray(thin(xs, MOST_POINTS)), np.ascontiguousarray(thin(ys, MOST_POINTS)), None
    if not implot.begin_plot(plot_id, (-1, height), 0 if series else implot.Flags_.no_legend):
        return
    # a short plot has no room for its y label turned on its side (the figure's name is above it)
    implot.setup_axes(xlabel, ylabel if height < 0 or height >= 150.0 else "")
    xs_all = [xs] + [np.asarray(a, float) for a in (failed_x, [current] if current is not None else None)
                     if a is not None]
    implot.setup_axis_limits(implot.ImAxis_.x1, *padded(np.concatenate(xs_all)), implot.Cond_.always)
    implot.setup_axis_limits(implot.ImAxis_.y1, *padded(ys), implot.Cond_.always)
    dots = implot.Spec(marker=implot.Marker_.circle, marker_size=3)
    if series:
        implot.setup_legend(implot.Location_.north_east, implot.LegendFlags_.outside)
        for label, rows in series:
            rows = rows[ok[rows]]
            rows = rows[np.argsort(x[rows], kind="stable")]
            implot.plot_line(label, np.ascontiguousarray(x[rows], float), np.ascontiguousarray(y[rows], float),
                             spec=dots)
    else:
        if line and len(xs) > 1:
            order = np.argsort(xs, kind="stable")
            implot.plot_line("##joined", xs[order], ys[order])
        implot.plot_scatter("variants", xs, ys, spec=dots)
    if failed_x is not None and len(failed_x):
        spec = implot.Spec()
        spec.line_color = imgui.ImVec4(*RED)
        implot.plot_inf_lines("##failed", np.ascontiguousarray(failed_x, float), spec=spec)
    if current is not None and math.isfinite(current):
        spec = implot.Spec()
        spec.line_color = imgui.ImVec4(*AMBER)
        spec.line_weight = 2.0
        implot.plot_inf_lines("##now", np.array([float(current)]), spec=spec)
    if selected is not None and all(math.isfinite(v) for v in selected):
        implot.plot_scatter("##selected", np.array([selected[0]]), np.array([selected[1]]),
                            spec=implot.Spec(marker=implot.Marker_.circle, marker_size=7,
                                             marker_fill_color=imgui.ImVec4(0, 0, 0, 0)))
    if implot.is_plot_hovered():
        imgui.set_tooltip(f"{ylabel} against {xlabel}\n{LEGEND}" + (f"\n{series_of}" if series_of else ""))
    implot.end_plot()
