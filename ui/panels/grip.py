"""The Grip panel: each wheel's friction circle with its recent trail, the grip states and their log, and
the force arrows' settings (the 3D view draws the arrows)."""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

from imgui_bundle import imgui

import sim
from sim.diagnosis import GripMonitor
from sim.diagnosis import WheelState
from ui.panels import StepPanel
from ui.widgets import AMBER
from ui.widgets import STATE_COLORS
from ui.widgets import text_wrapped_colored


class GripPanel(StepPanel):
    def __init__(self, session, begin: Callable[[str], bool], shown: Callable[[], list[WheelState]],
                 monitor: GripMonitor):
        super().__init__(session, begin, shown)
        self.monitor = monitor                # the grip log and the pause on a loss of grip
        self.trails = [deque(maxlen=40) for _ in range(4)]    # each wheel's last forces over its grip budget
        self.arrows = {"suspension": True, "longitudinal": True, "lateral": True, "raw": True}
        self.arrow_scale = 0.25                               # m of arrow per kN

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
            imgui.text_wrapped("Friction circles, radius mu Fz: hollow = raw force, filled = limited force")
            off = [n for n, on in self.session.sim.switches().items() if not on and n in ("friction", "suspension")]
            if off:
                text_wrapped_colored(AMBER, f"{' and '.join(off)} OFF (Lab menu): the tires make no force on the "
                                            f"ground; the states below say what their raw forces would ask")
            size = max(48.0, min(100.0, (imgui.get_content_region_avail().x - 24.0) / 4.0))
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
            _, self.monitor.pause_on_loss = imgui.checkbox("pause on the first loss of grip",
                                                           self.monitor.pause_on_loss)
            imgui.same_line()
            if imgui.button("clear log"):
                self.monitor.events.clear()
            for i, w_ in enumerate(shown):
                text_wrapped_colored(STATE_COLORS[w_.state], f"{sim.WHEEL_NAMES[i]} {w_.name}: {w_.reason}")
            right = imgui.get_cursor_screen_pos().x + imgui.get_content_region_avail().x
            imgui.text("Force arrows:")
            for kind in self.arrows:
                # on the same line while it fits, else on the next
                width = imgui.calc_text_size(kind).x + imgui.get_frame_height() + 2 * imgui.get_style().item_spacing.x
                if imgui.get_item_rect_max().x + width < right:
                    imgui.same_line()
                _, self.arrows[kind] = imgui.checkbox(kind, self.arrows[kind])
            imgui.set_next_item_width(200)
            _, self.arrow_scale = imgui.slider_float("arrow scale (m per kN)", self.arrow_scale, 0.02, 1.0, "%.2f")
            imgui.begin_child("events", (0, max(imgui.get_content_region_avail().y, 90.0)))
            for e in reversed(self.monitor.events[-200:]):
                text_wrapped_colored(STATE_COLORS[e.after], e.text())
            imgui.end_child()
        imgui.end()
