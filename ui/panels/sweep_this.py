"""The Tuning panel's "sweep this" (a view of ui/quick_sweep.py): on a number field's right-click menu, and
under the field once chosen: the drive, the range and the points, the run button, and the drive's figure
against the parameter with the current value marked; a point that failed says why."""
from __future__ import annotations

import numpy as np
from imgui_bundle import imgui

from sim.lab.drives import SUITE
from sim.lab.drives import SUITE_HELP
from ui.panels.sweep_plot import figure_plot
from ui.quick_sweep import MAX_POINTS
from ui.quick_sweep import QuickSweep
from ui.sweeps import unit_label
from ui.widgets import GREY
from ui.widgets import RED
from ui.widgets import text_wrapped_colored

SHOWN_ERRORS = 4          # failed points listed under the plot (the rest counted)
PLOT_HEIGHT = 190.0


def context_menu(qs: QuickSweep, path: str, value: float) -> None:
    """The right-click menu of the number field just drawn: "sweep this"."""
    if imgui.begin_popup_context_item("sweep this menu"):
        if imgui.menu_item("sweep this...", "", qs.path == path)[0]:
            qs.choose(path, value)
        if imgui.is_item_hovered():
            imgui.set_tooltip("drive one test drive over a range of this parameter (in the background) and plot "
                              "its figures against it")
        imgui.end_popup()


def sweep_box(qs: QuickSweep, base, path: str, unit: str, current: float) -> None:
    """The setup and the plot of the sweep of `path` (drawn under its field); `base` is the car as tuned now."""
    imgui.indent(10)
    imgui.push_id("sweep this")
    top = imgui.get_cursor_screen_pos().y - imgui.get_window_pos().y
    in_view = 0.0 <= top <= imgui.get_window_height()           # the box's top shows: the user is looking at it
    imgui.separator_text("sweep this")
    if imgui.is_item_hovered():
        imgui.set_tooltip(f"{path}: one test drive at each point of the range, driven as one batch in the "
                          f"background")
    imgui.set_next_item_width(150)
    if imgui.begin_combo("drive", qs.drive):
        for name in SUITE:
            if imgui.selectable(name, name == qs.drive)[0]:
                qs.drive = name
            if imgui.is_item_hovered():
                imgui.set_tooltip(SUITE_HELP.get(name, ""))
        imgui.end_combo()
    imgui.same_line()
    if imgui.small_button("close"):
        qs.close()
    imgui.set_next_item_width(95)
    _, qs.lo = imgui.input_double("to##from", qs.lo, 0.0, 0.0, "%.6g")
    imgui.same_line()
    imgui.set_next_item_width(95)
    _, qs.hi = imgui.input_double(unit if unit not in ("", "-") else "##to", qs.hi, 0.0, 0.0, "%.6g")
    imgui.set_next_item_width(95)
    _, qs.points = imgui.input_int("points", qs.points, 1, 4)
    qs.points = max(2, min(qs.points, MAX_POINTS))
    imgui.same_line()
    busy = qs.busy
    imgui.begin_disabled(busy)
    if imgui.button("running..." if busy else "run"):
        qs.start(base)
    imgui.end_disabled()
    if qs.problem:
        text_wrapped_colored(RED, qs.problem)
    out = qs.outcome
    if out is not None and out.path == path:
        if out.names:
            imgui.set_next_item_width(-1)
            labels = [unit_label(n, u) for n, u in zip(out.names, out.units)]
            _, qs.figure = imgui.combo("##figure", min(qs.figure, len(labels) - 1), labels)
            k = qs.figure
            failed = np.array([v for v, e in zip(out.values, out.errors) if e])
            figure_plot(f"##sweep {path}", out.values, out.figures[k], unit_label(path, unit), labels[k],
                        height=PLOT_HEIGHT, failed_x=failed, current=current, line=True)
        bad = [(v, e) for v, e in zip(out.values, out.errors) if e]
        text_wrapped_colored(GREY, f"{out.drive}: {len(out.values) - len(bad)} of {len(out.values)} points "
                                   f"drove ({out.seconds:.1f} s); amber line: the value now")
        for v, e in bad[:SHOWN_ERRORS]:
            text_wrapped_colored(RED, f"{v:.6g}: {e}")
        if len(bad) > SHOWN_ERRORS:
            text_wrapped_colored(RED, f"and {len(bad) - SHOWN_ERRORS} more")
    if qs.scroll:                             # just chosen, or a new plot while in view: its bottom in view too
        below = imgui.get_cursor_screen_pos().y > imgui.get_window_pos().y + imgui.get_window_height()
        if in_view and below:
            imgui.set_scroll_here_y(1.0)
        qs.scroll = False
    imgui.pop_id()
    imgui.unindent(10)
