"""The Time panel: pause, single steps, reset, slow motion, the rewind slider with its branch replay, and
recording and saving telemetry logs."""
from __future__ import annotations

import math
import time
from collections.abc import Callable

from imgui_bundle import imgui

from sim.model.files import data_dir
from ui.panels.laps import LapTable
from ui.widgets import AMBER
from ui.widgets import GREY
from ui.widgets import fit_text
from ui.widgets import same_line_if_fits
from ui.widgets import text_wrapped_colored


def tip(text: str) -> None:
    """A tooltip for the item just drawn."""
    if imgui.is_item_hovered():
        imgui.set_tooltip(text)


def save_log(log, kind: str) -> str:
    """Write `log` as CSV into the data folder's logs/; returns what happened, for the panel."""
    path = data_dir() / "logs" / time.strftime(f"{kind}-%Y%m%d-%H%M%S.csv")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        log.write_csv(path)
    except OSError as exc:
        return f"{path}: cannot write the log: {exc.strerror or exc}"
    return f"saved {len(log)} rows: {path}"


class TimePanel:
    def __init__(self, session, begin: Callable[[str], bool]):
        self.session = session
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.log_status = ""                  # what the last log save (or branch replay) did
        self.laps = LapTable(save_log)        # on a circuit: the laps (app/laps.py's session.laps)

    def keep_log(self, log, kind: str) -> None:
        """Save `log` (save_log) and show what happened under the log buttons."""
        self.log_status = save_log(log, kind)

    def draw(self, w: float, h: float) -> None:
        imgui.set_next_window_pos((10, h - 140), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((400, 130), imgui.Cond_.first_use_ever)
        s = self.session
        if self.begin("Time"):
            self.laps.draw(getattr(s, "laps", None))
            if imgui.button("resume" if s.paused else "pause"):
                s.toggle_pause()
            tip("P")
            imgui.same_line()
            if imgui.button("step back") and len(s.rewind) > 1:
                s.scrub_to(s.scrub + 1)
            tip("B: one recorded step back (pauses)")
            imgui.same_line()
            if imgui.button("step"):
                s.request_single_step()
            tip("N: one physics step while paused; while rewound, one recorded step forward")
            imgui.same_line()
            if imgui.button("reset car"):
                s.request_reset()
            tip("R")
            self.time_field()
            n = len(s.rewind)
            if n > 1:
                dt = s.sim.dt
                imgui.set_next_item_width(-imgui.calc_text_size("rewind (s)").x - 12.0)
                changed, back_s = imgui.slider_float("rewind (s)", -s.scrub * dt, -(n - 1) * dt, 0.0, "%.2f")
                if changed:
                    s.scrub_to(int(round(-back_s / dt)))
                tip("drag to rewind (Ctrl+click to type); the log entries of the Grip panel rewind to their step")
                if s.scrub:
                    if imgui.button("drive from here"):
                        s.resume_from_scrub()
                    tip("P: drive on from this step; what came after it is forgotten")
                    imgui.same_line()
                    if imgui.button("branch replay"):
                        self.log_status = s.branch_replay() or "replaying the recorded inputs with the " \
                            "parameters now in use; the ghost is the original run"
                    tip("edit the car first (while rewound); then the recorded inputs drive it again from here, "
                        "and a ghost shows the original run")
            gap = s.branch_gap()
            if gap is not None:
                d, dv, dyaw = gap
                text_wrapped_colored(AMBER, f"vs the {s.reference.label} (the ghost): {d:.2f} m apart, speed "
                                            f"{dv * 3.6:+.1f} km/h, heading {math.degrees(dyaw):+.1f} deg")
            self.log_controls()
        imgui.end()

    def time_field(self) -> None:
        """The time on show, typed (Enter rewinds to the recorded step nearest to it) or stepped with its
        - and + (one physics step); and the speed of time."""
        s = self.session
        imgui.align_text_to_frame_padding()
        imgui.text("t")
        imgui.same_line()
        imgui.set_next_item_width(150)
        changed, t = imgui.input_float("s##t on show", s.sim.time, s.sim.dt, 0.1, "%.3f",
                                       imgui.InputTextFlags_.enter_returns_true)
        if changed and len(s.rewind) > 1 and math.isfinite(t):
            back = s.rewind.back_of(t, nearest=True)
            if back != s.scrub:
                s.scrub_to(back)
        tip(f"type a time within the last {len(s.rewind) * s.sim.dt:.0f} s and press Enter to rewind to it; "
            f"- and + step one physics step ({s.sim.dt * 1000:.2f} ms), Ctrl for 0.1 s")
        imgui.same_line()
        imgui.set_next_item_width(imgui.calc_text_size("0.25x").x + imgui.get_frame_height() + 12.0)
        if imgui.begin_combo("speed", f"{s.time_scale:g}x"):
            for i, scale in enumerate(s.SLOW_MOTION):
                if imgui.selectable(f"{scale:g}x", s.slow_index == i)[0]:
                    s.slow_index = i
            imgui.end_combo()
        tip("slow motion (T cycles it)")

    def log_controls(self) -> None:
        """Record the telemetry while driving (bounded) and save it, or save the rewind buffer, as CSV."""
        s = self.session
        if s.telemetry_log is None:
            if imgui.button("record telemetry"):
                s.start_telemetry_log()
        else:
            seconds = len(s.telemetry_log) * s.telemetry_log.every * s.sim.dt
            if imgui.button(f"stop recording ({seconds:.0f} s)"):
                s.stop_telemetry_log()
        recorded = getattr(s, "recorded_log", None)
        if recorded is not None and len(recorded):
            same_line_if_fits("save recording")
            if imgui.button("save recording"):
                self.keep_log(recorded, "recording")
        same_line_if_fits("save rewind buffer")
        if imgui.button("save rewind buffer") and len(s.rewind):
            self.keep_log(s.rewind_log(), "rewind")
        if imgui.is_item_hovered():
            imgui.set_tooltip(f"the last {len(s.rewind) * s.sim.dt:.0f} s, every physics step, as CSV")
        if self.log_status:                        # one line (the panel is low at 720p); all of it on hover
            imgui.text_colored(GREY, fit_text(self.log_status, imgui.get_content_region_avail().x))
            tip(self.log_status)
