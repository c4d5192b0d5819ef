"""The Test drives panel: a drive of the suite (sim.lab.drives) run on the car as tuned now, beside the loaded
preset's run, in a worker thread; a run can be watched in the window or its log saved."""
from __future__ import annotations

import threading
from collections.abc import Callable

from imgui_bundle import imgui

import sim
from sim.lab import drives as manoeuvres
from ui.panels.time import TimePanel
from ui.tuning import Tuning
from ui.widgets import AMBER
from ui.widgets import GREEN
from ui.widgets import RED
from ui.widgets import TABLE_FLAGS
from ui.widgets import text_wrapped_colored


class DrivesPanel:
    def __init__(self, session, begin: Callable[[str], bool], tuning: Tuning, time_panel: TimePanel):
        self.session = session
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.tuning = tuning                  # the car as tuned now, and the loaded preset
        self.time_panel = time_panel          # where a saved log's message shows
        self.index = 0                        # the drive chosen, in sim.lab.drives.SUITE
        self.compare = True                   # run the loaded preset too
        self.thread: threading.Thread | None = None
        self.result = None                    # (result now, result of the loaded preset or None) or why not
        self.status = ""                      # why a drive cannot be watched ("" when it can)

    def draw(self, w: float, h: float) -> None:
        """Test drives (sim.lab.drives) of the car as tuned now, run in a worker thread (the window keeps
        drawing); with "against the loaded preset" the same drive of the preset as loaded runs too, and
        the figures are shown side by side with their difference."""
        if self.begin("Test drives"):
            names = list(manoeuvres.SUITE)
            imgui.set_next_item_width(160)
            _, self.index = imgui.combo("drive", self.index, names)
            _, self.compare = imgui.checkbox("against the loaded preset", self.compare)
            busy = self.thread is not None and self.thread.is_alive()
            imgui.begin_disabled(busy)
            if imgui.button("run" if not busy else "running..."):
                self.start(names[self.index])
            imgui.end_disabled()
            if imgui.is_item_hovered():
                imgui.set_tooltip(manoeuvres.SUITE_HELP.get(names[self.index], ""))
            result = self.result
            if isinstance(result, str):
                text_wrapped_colored(RED, result)
            elif result is not None:
                after, before = result
                imgui.same_line()
                if imgui.button("watch it"):
                    why = self.session.watch_drive(after, before, "loaded preset")
                    self.status = why or ""
                if imgui.is_item_hovered():
                    imgui.set_tooltip("Drive this run again here, step for step, in its own course: every panel, "
                                      "plot and the rewind work on it" + (", and the loaded preset's run is the "
                                      "ghost car and the plots' reference" if before else ""))
                imgui.same_line()
                if imgui.button("save its log"):
                    self.time_panel.keep_log(after.log, f"drive-{after.name}")
            if self.session.watching:
                text_wrapped_colored(AMBER, f"watching the {self.session.watching}; the driver's recorded "
                                            f"inputs drive the car, and you drive on after them")
                if imgui.button(f"back to {self.session.home[0].name}"):
                    self.session.leave_drive()
            if self.status:
                text_wrapped_colored(RED, self.status)
            if result is not None and not isinstance(result, str):
                cols = ("figure", "preset", "now", "change", "unit") if before else ("figure", "value", "unit", "")
                if imgui.begin_table("drive figures", len(cols), TABLE_FLAGS):
                    for k, c in enumerate(cols):
                        imgui.table_setup_column(c, imgui.TableColumnFlags_.width_stretch, 2.2 if k == 0 else 1.0)
                    imgui.table_headers_row()
                    rows = manoeuvres.compare(before, after) if before else \
                        [(f.name, f.value, f.unit, f.mark) for f in after.figures]
                    for row in rows:
                        imgui.table_next_row()
                        for k, cell in enumerate(row):
                            imgui.table_next_column()
                            if isinstance(cell, float):
                                imgui.text(f"{cell:+.3g}" if before and k == 3 else f"{cell:.4g}")
                            elif k == 0:
                                imgui.text_wrapped(str(cell))
                            elif k == 3 and not before and cell:          # the verdict (Figure.mark)
                                imgui.text_colored({"ok": GREEN, "FAIL": RED}.get(cell, AMBER), cell)
                            else:
                                imgui.text("" if cell is None else str(cell))
                    imgui.end_table()
                if after.shown is not None:                     # a drive that shows a failure on purpose
                    text_wrapped_colored(AMBER, f"outcome: {after.outcome}")
        imgui.end()

    def start(self, name: str) -> None:
        """Run drive `name` (and the loaded preset's, with `compare`) in a worker thread; `result` holds
        the outcome when it is done."""
        now, loaded = self.tuning.params, self.tuning.baseline
        compare = self.compare

        def work():
            try:
                after = manoeuvres.run(name, now)
                before = manoeuvres.run(name, loaded) if compare else None
                self.result = (after, before)
            except (sim.ConfigError, sim.BlowUp, ValueError) as exc:
                self.result = f"{name}: {exc}"
        self.result = None
        self.thread = threading.Thread(target=work, daemon=True)
        self.thread.start()
