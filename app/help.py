"""The help window (F1): the keys and pad buttons (from config/bindings.toml), what the grip states mean, what
each panel shows, and how rewind and branch replay work, each a page, with links to the docs that say more
(docs/overlay.md, docs/physics.md)."""
from __future__ import annotations

import webbrowser
from pathlib import Path

from imgui_bundle import imgui

from app.input import Bindings
from ui.widgets import STATE_COLORS

HELP_ORDER = ("throttle", "brake", "steer_left", "steer_right", "handbrake", "clutch", "gear_up", "gear_down",
              "abs", "tc", "esp", "steer_hold", "cruise", "reset", "pause", "step", "step_back", "slow_motion",
              "camera", "help", "overlay", "arrows", "map", "mute", "screenshot", "quit")
DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ("Keys", "Grip states", "Panels", "Rewind and branch replay")

# (state, its colour's key in STATE_COLORS, what it means)
GRIP_STATES = (
    ("no load", 0, "in the air, or its load Fz is under 2 % of its static share: it has no friction to give"),
    ("low use", 1, "loaded, below the peak, asked for less than a fifth of mu Fz: rolling freely or standing. "
                   "Neutral, not a warning"),
    ("grip", 2, "loaded, below the tire's peak, working"),
    ("saturated", 3, "the combined friction limit cut its force, or its slip is past the tire's peak; with a cause:"),
)
CAUSES = (
    ("locked", "the wheel (nearly) stands while the ground passes under it: braked to a lock"),
    ("wheelspin", "past the longitudinal peak with the tread faster than the ground"),
    ("braking past the peak", "past the longitudinal peak with the tread slower than the ground, not locked"),
    ("sliding sideways", "the slip angle is larger than the one that gives the most side force"),
    ("combined limit", "neither slip alone is past its peak, but together they ask for more than mu Fz"),
)
PANELS = (
    ("Telemetry", "every wheel's numbers at the step on show, with units; hover a row's name for what it is"),
    ("Grip", "each wheel's friction circle (radius mu Fz: hollow = raw force, filled = limited force), its "
             "state, and the log of every change: filter it by wheel and cause, click an entry to rewind to it"),
    ("Plan view", "the car from above: each wheel at its steering angle, tinted by its state, with its forces"),
    ("Plots", "channels against time, the tire curves with each wheel's operating point, the g-g diagram "
              "(equal axes: the mu circle is round) and steer against lateral g"),
    ("Tuning", "every parameter with unit, range and description; an edit takes effect at the next step; "
               "save and load presets"),
    ("Time", "pause, step back and forward, slow motion, the rewind and branch replay, telemetry logs"),
    ("Map", "the world from above: click a feature to be put in front of it"),
    ("Test drives", "the standard manoeuvres on the car as tuned now; watch a run in the window"),
    ("Sweeps", "a sweep's table and plots (Lab menu); drive any variant"),
)
REWIND = (
    "The last 30 s are kept, every physics step. Rewind with the Time panel's slider, type a time into its t "
    "field (Enter), step with B (back) and N (forward), or click an entry of the Grip panel's log. While "
    "rewound every panel shows that step exactly; nothing is simulated again.",
    "P or \"drive from here\" drives on from the step on show; what came after it is forgotten (the log and "
    "the plots too).",
    "Branch replay: rewind, change the car in the Tuning panel, press \"branch replay\". The recorded inputs "
    "drive the changed car again from there; a ghost shows the original run and the Time panel gives the "
    "gap (distance, speed, heading). With the car unchanged the gap is exactly 0.",
    "\"save rewind buffer\" writes the 30 s as CSV into logs/ of your folder.",
)


def help_rows(b: Bindings) -> list[tuple[str, str, str]]:
    """(action, keys, gamepad) for every binding, from config/bindings.toml."""
    rows = [(a.replace("_", " "), ", ".join(b.key_names.get(a, [])), ", ".join(b.pad_names.get(a, [])))
            for a in HELP_ORDER]
    rows.insert(4, ("steer (stick)", "", ", ".join(b.pad_names.get("steer", []))))
    rows.append(("pad: car / overlay", "", "leftstick (click)"))
    rows.append(("camera view", "mouse drag, wheel", ""))
    return rows


def doc_link(name: str, anchor: str = "", label: str = "") -> None:
    """A link to docs/`name` (opened in the system's viewer for the file), with the file's path as its tooltip."""
    path = DOCS / name
    if imgui.text_link(label or f"docs/{name}" + (f" ({anchor})" if anchor else "")):
        webbrowser.open(path.as_uri())
    if imgui.is_item_hovered():
        imgui.set_tooltip(str(path) + (f", {anchor}" if anchor else ""))


def keys_page(bindings: Bindings) -> None:
    if imgui.begin_table("bindings", 3, imgui.TableFlags_.row_bg | imgui.TableFlags_.borders_inner_v):
        for name in ("action", "keyboard", "gamepad"):
            imgui.table_setup_column(name)
        imgui.table_headers_row()
        for row in help_rows(bindings):
            imgui.table_next_row()
            for cell in row:
                imgui.table_next_column()
                imgui.text(cell)
        imgui.end_table()
    imgui.text_disabled("bindings live in config/bindings.toml")


def grip_page() -> None:
    imgui.text_wrapped("Every step each wheel is in one of four states (the colours of the Grip, Plan view and "
                       "Telemetry panels and of the wheels on the car):")
    for name, state, what in GRIP_STATES:
        imgui.text_colored(STATE_COLORS[state], name)
        imgui.same_line()
        imgui.text_wrapped(what)
    imgui.indent()
    for name, what in CAUSES:
        imgui.text_colored(STATE_COLORS[3], name)
        imgui.same_line()
        imgui.text_wrapped(what)
    imgui.unindent()
    imgui.text_wrapped("A wheel's force budget is mu Fz, the radius of its friction circle. The raw force is what "
                       "the tire curve asks for; the limited force what the ground gives. The gap between them is "
                       "the grip that is missing. Tick \"pause on the first loss of grip\" (Grip panel) to stop "
                       "at the first wheel that saturates or loses its load, with the cause.")
    doc_link("overlay.md", "grip states")
    imgui.same_line()
    doc_link("physics.md", "§8, the tire and its limit")


def panels_page() -> None:
    for name, what in PANELS:
        imgui.text_colored((0.55, 0.75, 1.0, 1.0), name)
        imgui.same_line()
        imgui.text_wrapped(what)
    imgui.text_wrapped("Each window size has its own layout: compact below 1700 x 950 px, wide above. Drag a tab "
                       "to re-dock a panel; the layout is kept for that size. View > Layout gives the default "
                       "back; View hides or shows each panel; F2 hides them all.")
    doc_link("overlay.md", "panels and layouts")
    imgui.same_line()
    doc_link("physics.md", "§13, the telemetry's names")


def rewind_page() -> None:
    for para in REWIND:
        imgui.bullet()
        imgui.text_wrapped(para)
    doc_link("overlay.md", "rewind and branch replay")


def help_window(size: tuple[int, int], bindings: Bindings, page: str | None = None) -> bool:
    """The help window (F1) near the top of a window of `size` pixels, with `page` (one of PAGES) in front
    when given; False once it is closed."""
    w, h = size
    width = min(620.0, w - 20.0)
    imgui.set_next_window_pos(((w - width) / 2, 40), imgui.Cond_.always)
    imgui.set_next_window_size_constraints((width, 0.0), (width, max(h - 50.0, 100.0)))   # as high as the page
    opened, shown = imgui.begin("Help (F1)", True, imgui.WindowFlags_.no_collapse |
                                imgui.WindowFlags_.always_auto_resize)
    if opened and imgui.begin_tab_bar("help pages"):
        for name, body in zip(PAGES, (lambda: keys_page(bindings), grip_page, panels_page, rewind_page),
                              strict=True):
            flags = imgui.TabItemFlags_.set_selected if name == page else 0
            if imgui.begin_tab_item(name, None, flags)[0]:
                body()
                imgui.end_tab_item()
        imgui.end_tab_bar()
    imgui.end()
    return shown
