"""Small ImGui helpers the panels share: the colours that carry a meaning, wrapped coloured text, text
shortened to a width."""
from __future__ import annotations

from imgui_bundle import imgui

from sim.diagnosis import GRIP
from sim.diagnosis import LOW
from sim.diagnosis import NO_LOAD
from sim.diagnosis import SATURATED

# low use is neutral (a rolling or parked wheel is healthy); no load and saturation are the warnings
STATE_COLORS = {NO_LOAD: (0.95, 0.70, 0.30, 1.0), LOW: (0.68, 0.70, 0.74, 1.0), GRIP: (0.40, 0.85, 0.40, 1.0),
                SATURATED: (0.95, 0.35, 0.30, 1.0)}
RED = (1.0, 0.45, 0.4, 1.0)
AMBER = (0.95, 0.75, 0.30, 1.0)
GREEN = (0.40, 0.85, 0.40, 1.0)
GREY = (0.60, 0.60, 0.62, 1.0)
TABLE_FLAGS = imgui.TableFlags_.borders_inner_v | imgui.TableFlags_.row_bg     # the panels' tables


def text_wrapped_colored(color, text: str) -> None:
    imgui.push_style_color(imgui.Col_.text, color)
    imgui.text_wrapped(text)
    imgui.pop_style_color()


def fit_text(text: str, width: float) -> str:
    """`text`, shortened at a word with "..." if it is wider than `width` pixels (at least its first word)."""
    if imgui.calc_text_size(text).x <= width:
        return text
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        short = " ".join(words[:n]).rstrip(",") + "..."
        if imgui.calc_text_size(short).x <= width:
            return short
    return words[0]


def same_line_if_fits(label: str, extra: float = 0.0) -> None:
    """Put the next button (of text `label`, plus `extra` pixels) on the line of the last item while it fits
    in the window, else on the next line (a narrow panel wraps its buttons instead of cutting them)."""
    style = imgui.get_style()
    width = imgui.calc_text_size(label).x + 2 * style.frame_padding.x + extra
    right = imgui.get_cursor_screen_pos().x + imgui.get_content_region_avail().x     # (the cursor is on a new line)
    if imgui.get_item_rect_max().x + style.item_spacing.x + width <= right:
        imgui.same_line()
