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

MOST_POINTS = 2000      # a scatter of more markers costs a software renderer a frame's time: thinned to this


def unit_label(name: str, unit: str) -> str:
    return name if unit in ("", "-") else f"{name} ({unit})"


def figure_plot(plot_id: str, x: np.ndarray, y: np.ndarray, xlabel: str, ylabel: str, *, height: float = -1.0,
                failed_x: np.ndarray | None = None, current: float | None = None,
                selected: tuple[float, float] | None = None, line: bool = False) -> None:
    """Scatter y against x (nan y: left out), `line` joining the points in x order; `failed_x` as red
    vertical lines, `current` as an amber one, `selected` ringed."""
    ok = np.isfinite(x) & np.isfinite(y)
    xs, ys = np.ascontiguousarray(x[ok], float), np.ascontiguousarray(y[ok], float)
    if len(xs) > MOST_POINTS:
        xs, ys = thin(xs, MOST_POINTS), thin(ys, MOST_POINTS)
    if not implot.begin_plot(plot_id, (-1, height)):
        return
    implot.setup_axes(xlabel, ylabel, implot.AxisFlags_.auto_fit, implot.AxisFlags_.auto_fit)
    implot.setup_legend(implot.Location_.north_west)
    if line and len(xs) > 1:
        order = np.argsort(xs, kind="stable")
        implot.plot_line("##joined", xs[order], ys[order])
    implot.plot_scatter("variants", xs, ys, spec=implot.Spec(marker=implot.Marker_.circle, marker_size=3))
    if failed_x is not None and len(failed_x):
        spec = implot.Spec()
        spec.line_color = imgui.ImVec4(*RED)
        implot.plot_inf_lines("failed", np.ascontiguousarray(failed_x, float), spec=spec)
    if current is not None and math.isfinite(current):
        spec = implot.Spec()
        spec.line_color = imgui.ImVec4(*AMBER)
        spec.line_weight = 2.0
        implot.plot_inf_lines("now", np.array([float(current)]), spec=spec)
    if selected is not None and all(math.isfinite(v) for v in selected):
        implot.plot_scatter("selected", np.array([selected[0]]), np.array([selected[1]]),
                            spec=implot.Spec(marker=implot.Marker_.circle, marker_size=7,
                                             marker_fill_color=imgui.ImVec4(0, 0, 0, 0)))
    implot.end_plot()
