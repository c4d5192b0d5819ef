"""The Grip panel: each wheel's friction circle with its recent trail, the grip states and their log (filtered
by wheel and cause; a click on an entry rewinds to its step), and the force arrows' settings (the 3D view
draws the arrows)."""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

from imgui_bundle import imgui

import sim
from sim.diagnosis import GripMonitor
from sim.diagnosis import WheelState
from ui.grip_log import KINDS
from ui.grip_log import WHEELS
from ui.grip_log import kept
from ui.grip_log import line
from ui.panels import StepPanel
from ui.widgets import AMBER
from ui.widgets import GREY
from ui.widgets import STATE_COLORS
from ui.widgets import fit_text
from ui.widgets import text_wrapped_colored


class GripPanel(StepPanel):
    def __init__(self, session, begin: Callable[[str], bool], shown: Callable[[], list[WheelState]],
                 monitor: GripMonitor):
        super().__init__(session, begin, shown)
        self.monitor = monitor                # the grip log and the pause on a loss of grip
        self.trails = [deque(maxlen=40) for _ in range(4)]    # each wheel's last forces over its grip budget
        self.arrows = {"suspension": True, "longitudinal": True, "lateral": True, "raw": True}
        self.arrow_scale = 0.25                               # m of arrow per kN
        self.log_wheel = 0                                    # the log's filter: an index of WHEELS (0: all)
        self.log_kind = "every entry"                         # and a kind of entry (KINDS)

    def record(self, tel) -> None:
        """Add each loaded wheel's force of this step (telemetry `tel`) to its trail."""
        for i in range(4):
            budget = tel.mu[i] * tel.Fz[i]
            if budget > 1.0:
                self.trails[i].append((tel.Fx[i] / budget, tel.Fy[i] / budget))

    def clear_trails(self) -> None:
        for trail in self.trails:
            trail.clear()

    def draw(self, w: float, h: float) -> None:
        imgui.set_next_window_pos((w - 470, 520), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((460, h - 530), imgui.Cond_.first_use_ever)
        if self.begin("Grip"):
            off = [n for n, on in self.session.sim.switches().items() if not on and n in ("friction", "suspension")]
            if off:
                text_wrapped_colored(AMBER, f"{' and '.join(off)} OFF (Lab menu): the tires make no force on the "
                                            f"ground; the states below say what their raw forces would ask")
            # the circles give way to the log in a low panel (720p: at least eight entries stay in view)
            avail = imgui.get_content_region_avail()
            size = max(48.0, min(100.0, (avail.x - 24.0) / 4.0, 0.22 * avail.y))
            dl = imgui.get_window_draw_list()
            tel = self.session.sim.telemetry
            shown = self.shown()
            origin = imgui.get_cursor_screen_pos()
            for i in range(4):
                cx = origin.x + size / 2 + i * (size + 8)
                cy = origin.y + size / 2 + 14
                st = shown[i].state
                col = imgui.get_color_u32(STATE_COLORS[st])
                r = size / 2 - 4
                dl.add_circle((cx, cy), r, col, 48, 2.0)
                dl.add_line((cx - r, cy), (cx + r, cy), imgui.get_color_u32((1, 1, 1, 0.15)))
                dl.add_line((cx, cy - r), (cx, cy + r), imgui.get_color_u32((1, 1, 1, 0.15)))
                dl.add_text((cx - r, cy - r - 14), imgui.get_color_u32((1, 1, 1, 1)), sim.WHEEL_NAMES[i])
                budget = tel.mu[i] * tel.Fz[i]
                if budget > 1.0:
                    # Fx forward is up, Fy left is left: the view from above the car
                    for k, (fx, fy) in enumerate(self.trails[i]):
                        a = 0.1 + 0.5 * k / max(len(self.trails[i]), 1)
                        dl.add_circle_filled((cx - fy * r, cy - fx * r), 1.5, imgui.get_color_u32((1, 1, 1, a)))
                    rx, ry = tel.Fx_raw[i] / budget, tel.Fy_raw[i] / budget
                    m = max(1.0, math.hypot(rx, ry) / 1.6)           # keep far raw points near the circle
                    dl.add_circle((cx - ry / m * r, cy - rx / m * r), 5.0, imgui.get_color_u32((1, 0.8, 0.3, 1)),
                                  12, 1.5)
                    dl.add_circle_filled((cx - tel.Fy[i] / budget * r, cy - tel.Fx[i] / budget * r), 4.5, col)
            imgui.dummy((4 * (size + 8), size + 20))
            if imgui.is_item_hovered():
                imgui.set_tooltip("Friction circles, radius mu Fz: hollow = raw force, filled = limited force, "
                                  "dots = the last steps' forces")
            _, self.monitor.pause_on_loss = imgui.checkbox("pause on the first loss of grip",
                                                           self.monitor.pause_on_loss)
            imgui.same_line()
            if imgui.button("force arrows..."):
                imgui.open_popup("force arrows")
            if imgui.begin_popup("force arrows"):
                self.arrow_settings()
                imgui.end_popup()
            for i, w_ in enumerate(shown):        # a line each; the sentence whole in the tooltip
                full = f"{sim.WHEEL_NAMES[i]} {w_.name}: {w_.reason}"
                imgui.text_colored(STATE_COLORS[w_.state], fit_text(full, imgui.get_content_region_avail().x))
                if imgui.is_item_hovered():
                    imgui.set_tooltip(full)
            self.log()
        imgui.end()

    def jump(self, e) -> bool:
        """Rewind to the step log entry `e` was logged at (a click on it); False when the rewind's record no
        longer holds that step."""
        back = self.session.rewind.back_of(e.time)
        if back is None:
            return False
        self.session.scrub_to(back)
        return True

    def arrow_settings(self) -> None:
        """Which force arrows the 3D view draws, and their scale."""
        imgui.text("Force arrows on the car (F3: all on or off):")
        for kind in self.arrows:
            _, self.arrows[kind] = imgui.checkbox(kind, self.arrows[kind])
        imgui.set_next_item_width(200)
        _, self.arrow_scale = imgui.slider_float("arrow scale (m per kN)", self.arrow_scale, 0.02, 1.0, "%.2f")

    def log(self) -> None:
        """The log of grip changes, newest first, filtered by wheel and kind; an entry within the rewind's
        record is a button that rewinds to its step (the panels then show that step: its states are the
        entry's)."""
        imgui.align_text_to_frame_padding()
        imgui.text("Log")
        imgui.same_line()
        imgui.set_next_item_width(imgui.calc_text_size(WHEELS[0]).x + imgui.get_frame_height() + 12.0)
        if imgui.begin_combo("##log wheel", WHEELS[self.log_wheel]):
            for k, name in enumerate(WHEELS):
                if imgui.selectable(name, k == self.log_wheel)[0]:
                    self.log_wheel = k
            imgui.end_combo()
        imgui.same_line()
        imgui.set_next_item_width(imgui.calc_text_size("braking past the peak").x + imgui.get_frame_height() + 12.0)
        if imgui.begin_combo("##log kind", self.log_kind):
            for name in KINDS:
                if imgui.selectable(name, name == self.log_kind)[0]:
                    self.log_kind = name
            imgui.end_combo()
        if imgui.is_item_hovered():
            imgui.set_tooltip("which entries the log lists: a kind of change or its cause")
        imgui.same_line()
        if imgui.button("clear"):
            self.monitor.events.clear()
        entries = kept(self.monitor.events, self.log_wheel, self.log_kind)
        s = self.session
        row = imgui.get_text_line_height_with_spacing()
        imgui.begin_child("events", (0, max(imgui.get_content_region_avail().y, 8 * row)))
        if not entries:
            imgui.text_disabled("no entry" + (" of this filter" if self.monitor.events else
                                              " yet: changes of a wheel's grip state are listed here"))
        clipper = imgui.ListClipper()
        clipper.begin(len(entries))
        while clipper.step():
            for k in range(clipper.display_start, clipper.display_end):
                e = entries[k]
                back = s.rewind.back_of(e.time)
                on_show = bool(s.scrub) and back == s.scrub
                imgui.push_style_color(imgui.Col_.text, STATE_COLORS[e.after] if back is not None else GREY)
                clicked = imgui.selectable(f"{line(e)}: {e.reason}##{k}", on_show)[0]
                imgui.pop_style_color()
                if imgui.is_item_hovered():
                    imgui.set_tooltip(f"{e.text()}\n" + ("click: rewind to this step (every panel shows it)"
                                                         if back is not None else
                                                         "older than the rewind's record: no step to go back to"))
                if clicked:
                    self.jump(e)
        clipper.end()
        imgui.end_child()
