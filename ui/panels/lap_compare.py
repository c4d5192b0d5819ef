"""The Lap comparison panel: two laps ticked in the Time panel's lap table, their channels against distance
along the lap (speed, throttle and brake, steering, lateral g, and per wheel the grip used, the slip ratio or
the slip angle) under the time delta between them (sim/lab/laps.py)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from imgui_bundle import imgui
from imgui_bundle import implot

import sim
from sim.lab.laps import WHEEL_CHANNELS
from sim.lab.laps import compare_laps
from ui.panels.laps import clock
from ui.widgets import GREY
from ui.widgets import text_wrapped_colored

A, B = (0.35, 0.7, 1.0), (1.0, 0.6, 0.2)          # lap a (the one ticked first), lap b
PEDALS = ((0.4, 0.9, 0.4), (1.0, 0.35, 0.35))     # throttle, brake
WHEEL = ((0.35, 0.7, 1.0), (1.0, 0.6, 0.2), (0.45, 0.9, 0.45), (1.0, 0.4, 0.4))
ROWS = (("delta (s)", None), ("km/h", ("speed",)), ("pedals", ("throttle", "brake")),
        ("steer", ("steer_input",)), ("lateral g", ("a_lat",)))
MIN_ROW = 90.0            # px: the least height of one plot (the panel scrolls below that)
TWO_COLUMNS = 800.0       # px of width from which the plots sit in two columns


def line(label: str, x: np.ndarray, y: np.ndarray, color, alpha: float = 1.0, weight: float = 1.5) -> None:
    spec = implot.Spec()
    spec.line_color = imgui.ImVec4(*color, alpha)
    spec.line_weight = weight
    implot.plot_line(label, np.ascontiguousarray(x, float), np.ascontiguousarray(y, float), spec=spec)


class LapComparePanel:
    def __init__(self, session, begin: Callable[[str], bool], table):
        self.session = session
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.table = table                    # the lap table (ui/panels/laps.py): the laps ticked to compare
        self.wheel_channel = "grip use"
        self._cached: tuple | None = None     # (key, LapComparison)

    def comparison(self):
        """The comparison of the two ticked laps (None, and why not, while there are not two with logs)."""
        keeper = getattr(self.session, "laps", None)
        timer = None if keeper is None else keeper.timer
        if timer is None:
            return None, "a lap comparison needs a circuit (--world circuit)"
        picked = [lap for n in self.table.compare for lap in timer.laps if lap.number == n]
        if len(picked) < 2:
            return None, "tick two laps' \"vs\" boxes in the Time panel's lap table to compare them here"
        if any(lap.number not in keeper.logs for lap in picked):
            return None, "one of the laps no longer has its log (the newest laps and each setup's best keep theirs)"
        key = (id(timer), *(lap.number for lap in picked))
        if self._cached is None or self._cached[0] != key:
            runs = [(keeper.logs[lap.number], lap.start, lap.time, f"lap {lap.number} ({clock(lap.time)})")
                    for lap in picked]
            self._cached = (key, compare_laps(timer.track, runs[0], runs[1]))
        return self._cached[1], ""

    def draw(self, w: float, h: float) -> None:
        if self.begin("Lap comparison"):
            cmp, why = self.comparison()
            if cmp is None:
                text_wrapped_colored(GREY, why)
            else:
                self.plots(cmp)
        imgui.end()

    def plots(self, cmp) -> None:
        d = cmp.distance
        total = float(cmp.delta[-1])
        imgui.text(f"{cmp.b.label} vs {cmp.a.label}: {total:+.3f} s over the lap (+: {cmp.b.label.split(' (')[0]} "
                   f"behind)")
        imgui.same_line()
        imgui.set_next_item_width(110)
        if imgui.begin_combo("##wheel channel", self.wheel_channel):
            for name in WHEEL_CHANNELS:
                if imgui.selectable(name, name == self.wheel_channel)[0]:
                    self.wheel_channel = name
            imgui.end_combo()
        avail = imgui.get_content_region_avail()
        plots = len(ROWS) + 1
        cols = 2 if avail.x >= TWO_COLUMNS else 1
        rows = -(-plots // cols)
        height = max(avail.y, rows * MIN_ROW)
        flags = implot.SubplotFlags_.link_all_x | implot.SubplotFlags_.no_title | implot.SubplotFlags_.col_major
        if not implot.begin_subplots("##laps", rows, cols, (-1, height), flags):
            return
        for k, (title, names) in enumerate((*ROWS, (self.wheel_channel, "wheels"))):
            if implot.begin_plot(f"##{title}"):
                last = k % rows == rows - 1
                implot.setup_axes("distance (m)" if last else "", title,
                                  0 if last else implot.AxisFlags_.no_tick_labels, implot.AxisFlags_.auto_fit)
                implot.setup_axis_limits(implot.ImAxis_.x1, 0.0, float(d[-1]), implot.Cond_.once)
                implot.setup_legend(implot.Location_.north_east, implot.LegendFlags_.outside)
                if names is None:
                    line("b - a", d, cmp.delta, B)
                elif names == "wheels":
                    for j, wheel in enumerate(sim.WHEEL_NAMES):
                        line(f"{wheel}, a", d, cmp.a.channels[self.wheel_channel][:, j], WHEEL[j], 0.35, 1.0)
                        line(f"{wheel}, b", d, cmp.b.channels[self.wheel_channel][:, j], WHEEL[j])
                elif len(names) == 1:
                    line("a", d, cmp.a.channels[names[0]], A, 0.8)
                    line("b", d, cmp.b.channels[names[0]], B)
                else:
                    for name, color in zip(names, PEDALS):
                        line(f"{name}, a", d, cmp.a.channels[name], color, 0.35, 1.0)
                        line(f"{name}, b", d, cmp.b.channels[name], color)
                implot.end_plot()
        implot.end_subplots()
