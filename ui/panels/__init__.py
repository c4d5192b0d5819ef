"""The overlay's panels, one module each. A panel is a class with `draw(w, h)` (w, h: the window's size in
pixels) that opens its window with the overlay's `begin` (which docks it, records where it went and honours
its close button) and always ends it with imgui.end(). It is handed the state it reads or edits when the
overlay (ui/overlay.py) builds it, and keeps its own."""
from __future__ import annotations

from collections.abc import Callable

from sim.diagnosis import WheelState


class StepPanel:
    """A panel that shows the step on show: the session, the overlay's begin and the step's grip diagnosis."""

    def __init__(self, session, begin: Callable[[str], bool], shown: Callable[[], list[WheelState]]):
        self.session = session
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.shown = shown                    # the diagnosis of the step on show
