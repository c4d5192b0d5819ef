"""The Map panel's window; what is in it (ui/map.py's map of the world) the app hands to the overlay."""
from __future__ import annotations

from collections.abc import Callable

from imgui_bundle import imgui


class MapPanel:
    def __init__(self, begin: Callable[[str], bool], draw_contents: Callable[[], None] | None):
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.draw_contents = draw_contents    # draws the map into the current window; None: no map

    def draw(self, w: float, h: float) -> None:
        if self.begin("Map"):
            if self.draw_contents is not None:
                self.draw_contents()
            else:
                imgui.text_disabled("no map")
        imgui.end()
