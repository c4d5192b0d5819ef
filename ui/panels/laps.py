"""The Time panel's lap table (on a circuit): every timed lap with its sector splits, grouped by the car setup
it was driven with (so a change and its lap time sit side by side), the best of each setup against the first
setup's, and a button that saves a lap's telemetry log as CSV."""
from __future__ import annotations

import math

from imgui_bundle import imgui

from ui.widgets import GREY
from ui.widgets import text_wrapped_colored

GREEN = (0.35, 0.95, 0.45, 1.0)
RED = (1.0, 0.45, 0.4, 1.0)
BEST = (0.85, 0.6, 1.0, 1.0)


def clock(seconds: float) -> str:
    """1:41.876, or 48.213 under a minute; "-" for nan."""
    if not math.isfinite(seconds):
        return "-"
    m, s = divmod(seconds, 60.0)
    return f"{int(m)}:{s:06.3f}" if m else f"{s:.3f}"


class LapTable:
    """Draws a LapKeeper's laps (app/laps.py: `timer`, `labels`, `logs`) into the current window."""

    def __init__(self, save_log):
        self.save_log = save_log               # (log, kind) -> what happened (ui/panels/time.py save_log)
        self.status = ""
        self.compare: list[int] = []           # lap numbers ticked for the lap comparison (at most two)
        self.on_compare = None                 # called when two laps are ticked (the overlay shows the panel)

    def draw(self, keeper) -> None:
        timer = None if keeper is None else keeper.timer
        if timer is None:
            return
        if not imgui.collapsing_header(f"Laps ({len(timer.laps)})###laps", imgui.TreeNodeFlags_.default_open):
            return
        if not timer.laps:
            text_wrapped_colored(GREY, "Cross the start/finish line to start a lap; all four wheels off the road and "
                                       "kerbs (grass, gravel) make a lap invalid.")
            return
        overall = timer.best()
        first_best = timer.best(0)
        n = len(timer.track.sectors)
        flags = imgui.TableFlags_.row_bg | imgui.TableFlags_.borders_inner_v | imgui.TableFlags_.sizing_fixed_fit
        for setup, label in enumerate(keeper.labels):
            laps = [lap for lap in timer.laps if lap.setup == setup]
            if not laps:
                continue
            best = timer.best(setup)
            gap = ""
            if best is not None and first_best is not None and setup:
                gap = f" ({best.time - first_best.time:+.3f} s on setup 1)"
            imgui.text_colored(BEST if best is overall and best is not None else (1, 1, 1, 1),
                               f"setup {label}: best {clock(best.time) if best else '-'}{gap}")
            if imgui.begin_table(f"laps of setup {setup}", 3 + n, flags):
                for name in ("#", "time", *(f"S{k + 1}" for k in range(n)), "vs"):
                    imgui.table_setup_column(name)
                imgui.table_headers_row()
                for lap in reversed(laps):
                    self.row(keeper, lap, overall, n)
                imgui.end_table()
        if self.status:
            text_wrapped_colored(GREY, self.status)

    def tick(self, number: int, on: bool) -> None:
        """Tick or untick a lap for the comparison: at most two, the oldest tick goes first."""
        self.compare = [n for n in self.compare if n != number] + ([number] if on else [])
        self.compare = self.compare[-2:]
        if len(self.compare) == 2 and on and self.on_compare is not None:
            self.on_compare()

    def row(self, keeper, lap, overall, n: int) -> None:
        imgui.table_next_row()
        imgui.table_next_column()
        dim = None if lap.valid else GREY
        imgui.text_colored(BEST if lap is overall else dim or (1, 1, 1, 1), f"{lap.number}")
        imgui.table_next_column()
        imgui.text_colored(dim or (1, 1, 1, 1), clock(lap.time) + ("" if lap.valid else " x"))
        if not lap.valid and imgui.is_item_hovered():
            imgui.set_tooltip(f"invalid: {lap.why}")
        for k in range(n):
            imgui.table_next_column()
            if k >= len(lap.sectors):
                continue
            ref = overall.sectors[k] if overall is not None else math.nan
            d = lap.sectors[k] - ref
            color = dim or (GREEN if d < -5e-4 else RED if d > 5e-4 else (1, 1, 1, 1))
            imgui.text_colored(color, f"{lap.sectors[k]:.3f}")
            if imgui.is_item_hovered() and math.isfinite(d):
                imgui.set_tooltip(f"{d:+.3f} s on the best lap's sector {k + 1}")
        imgui.table_next_column()
        log = keeper.logs.get(lap.number)
        if log is not None:
            ticked = lap.number in self.compare
            if imgui.checkbox(f"##vs{lap.number}", ticked)[0]:
                self.tick(lap.number, not ticked)
            if imgui.is_item_hovered():
                imgui.set_tooltip("compare with another ticked lap against distance (Lap comparison panel)")
            imgui.same_line(0.0, 4.0)
            if imgui.small_button(f"csv##{lap.number}"):
                self.status = self.save_log(log, f"lap{lap.number}")
            if imgui.is_item_hovered():
                imgui.set_tooltip("save this lap's telemetry (60 rows a second) as CSV")
