"""The Lab menu (the model lab): kill switches that take a part of the physics out while driving, and other
model families driven beside the car by the same inputs (compare live)."""
from __future__ import annotations

from imgui_bundle import imgui

import sim
from sim.lab import families as models
from ui.panels.drives import DrivesPanel
from ui.tuning import Tuning


def lab_menu(session, tuning: Tuning, drives: DrivesPanel) -> None:
    """Kill switches (seed 001's, for every model): parts of the physics off while driving, the
    parameters untouched."""
    s = session.sim
    imgui.text_disabled("kill switches: the physics without a part")
    on = s.switches()
    for name, what in sim.SWITCHES.items():
        clicked, value = imgui.menu_item(name.replace("_", " "), "", on[name])
        if imgui.is_item_hovered():
            imgui.set_tooltip(f"{what}; unticked: off until ticked again (the parameters are not changed)")
        if clicked:
            s.set_switches(**{name: value})
    if not all(on.values()):
        imgui.separator()
        if imgui.menu_item("everything back on", "", False)[0]:
            s.set_switches(**{name: True for name in on})
    imgui.separator()
    imgui.text_disabled("compare live: the same inputs on other models, as ghosts")
    present = {c.label: c for c in session.companions}
    for family, (what, _) in models.FAMILIES.items():
        clicked, value = imgui.menu_item(f"{family}##compare", "", family in present)
        if imgui.is_item_hovered():
            color = present[family].color if family in present else None
            imgui.set_tooltip(f"{what}: driven beside your car by the same inputs, from where it is now"
                              + ("" if color is None else " (its ghost and plot lines in this colour)"))
        if family in present:
            imgui.same_line()
            imgui.color_button(f"##c{family}", imgui.ImVec4(*present[family].color, 1.0), 0, (12, 12))
        if clicked:
            if value:
                why = session.add_companion(family, models.variant(tuning.params, family))
                drives.status = why
            else:
                session.remove_companion(family)
