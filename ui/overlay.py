"""The ImGui overlay: per-wheel telemetry, grip diagnosis with friction circles, live tuning, time control.

It reads the simulation's telemetry and parameters and writes only new parameters (through
`Simulation.set_params`, applied at the next step boundary) and time-control requests to the session.

`Overlay` is the coordinator: it keeps what several panels share (the grip diagnosis of the step on show,
the plots' history, which panels are shown and where), feeds them after every physics step, builds the
menu bar and docks the panels around the 3D view. Each panel is a class in ui/panels/ with a `draw(w, h)`;
the tuning it edits is the ImGui-free model in ui/tuning.py.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable

from imgui_bundle import imgui

import sim
from sim.diagnosis import GripMonitor
from sim.diagnosis import WheelState
from sim.diagnosis import diagnose
from ui.history import History
from ui.layout import size_class
from ui.layout import undocked
from ui.layout import view_too_small
from ui.layout_files import LayoutFiles
from ui.panels.drives import DrivesPanel
from ui.panels.grip import GripPanel
from ui.panels.lab import lab_menu
from ui.panels.lap_compare import LapComparePanel
from ui.panels.map import MapPanel
from ui.panels.plan import PlanPanel
from ui.panels.plots import PlotsPanel
from ui.panels.sweeps import SweepsPanel
from ui.panels.telemetry import TelemetryPanel
from ui.panels.time import TimePanel
from ui.panels.tuning import TuningPanel
from ui.tuning import Tuning
from ui.widgets import STATE_COLORS

LAYOUTS = {"auto": "the default of this window's size: compact below 1700 x 950 px, wide from there",
           "compact": "fits 1280x720: grip on the right, telemetry and the map as tabs below it",
           "wide": "for 1920x1080 and larger: every panel has its own place"}
HISTORY_SECONDS = 20.0    # s of plot channels kept (the Plots panel shows up to all of them)


MIN_FIT = 64               # px: a window smaller than this on a side (minimised) keeps its size class's layout
# where a panel added after a user's layout was saved goes in it: the dock node of this panel
NEW_PANEL_HOSTS = {"Sweeps": "Plots", "Lap comparison": "Plots"}

class Overlay:
    """The panels (`panels`, by window title, and which of them are shown: `show`), what they share, and
    what the app reads back: the 3D view's rectangle (`central`), the panels' places (`layout`), the grip
    tints (`wheel_colors`) and the force arrows' settings."""

    def __init__(self, session, on_params: Callable[[sim.Vehicle], None] | None = None,
                 layout_dir: str | os.PathLike | None = None, map_panel: Callable[[], None] | None = None,
                 audio=None):
        """`layout_dir` holds the layout files, one per window size class (ui/layout_files.py; None: none are
        read or written); `map_panel` draws the map into the current window (the Map panel; None: "no map");
        `audio` is the app's sound (app.sound.Audio: its mute and volume are in the View menu; None: no sound
        items)."""
        self.session = session
        self.visible = True
        self.layout_files = LayoutFiles(layout_dir) if layout_dir else None
        self.size_kind = ""                           # the window's size class whose layout is in use
        self.check_in = 0                             # builds until a loaded layout is checked (0: none to check)
        self.notices: list[str] = []                  # what the app should tell (a layout set aside)
        self.audio = audio
        self.tuning = Tuning(session, on_params)      # the parameters as edited, the loaded preset
        self.monitor = GripMonitor()                  # the grip states step by step, their log, the auto-pause
        self._shown: tuple[int, float, list[WheelState]] | None = None     # (steps, time, diagnosis) on show
        self.history = History(HISTORY_SECONDS, session.sim.dt)            # the car's plot channels
        self.companion_histories: dict[str, History] = {}   # compare mode: each variant's plot channels
        self.arrows_on = True                         # force arrows and grip tints on the car
        self.close_popups = False                     # the app asks: close any open menu or popup
        self.layout: list[tuple] = []                 # where the last build placed each panel
        self.layout_request: str | None = "auto"      # a layout to build at the next frame (None: keep)
        self.to_dock: list[str] = []                 # panels a kept layout does not dock (ui/layout.py undocked)
        self.dockspace_id = 0
        self.central: tuple[float, float, float, float] | None = None   # the 3D view's rect, pixels
        self._front_tabs: dict[str, int] = {}            # panels to bring to the front: in how many frames
        self.show = {"Telemetry": True, "Grip": True, "Plan view": True, "Tuning": True, "Time": True, "Plots": True,
                     "Map": True, "Test drives": True, "Sweeps": False, "Lap comparison": False}
        time_panel = TimePanel(session, self.begin)
        self.drives = DrivesPanel(session, self.begin, self.tuning, time_panel)
        self.grip = GripPanel(session, self.begin, self.shown, self.monitor)
        self.sweeps = SweepsPanel(self.begin, self.tuning)
        # drawn in this order: where the map shares a node with the telemetry, the telemetry (begun later) is
        # in front
        self.panels = {"Map": MapPanel(self.begin, map_panel), "Test drives": self.drives,
                       "Telemetry": TelemetryPanel(session, self.begin, self.shown),
                       "Plan view": PlanPanel(session, self.begin, self.shown), "Grip": self.grip,
                       "Tuning": TuningPanel(self.tuning, self.begin), "Time": time_panel,
                       "Plots": PlotsPanel(session, self.begin, self.history, self.companion_histories),
                       "Sweeps": self.sweeps, "Lap comparison": LapComparePanel(session, self.begin, time_panel.laps)}
        time_panel.laps.on_compare = lambda: self.open_panel("Lap comparison")
        session.on_jump.append(self.on_jump)
        session.on_truncate.append(self.on_truncate)

    def open_panel(self, name: str) -> None:
        """Show panel `name` in front of the panels it shares a dock node with."""
        self.show[name] = True
        self.bring_to_front(name, 3)

    def open_sweep(self, path: str) -> bool:
        """Show the Sweeps panel in front with a sweep's results folder opened (False: its one-line message
        is in the panel)."""
        self.show["Sweeps"] = True
        self.bring_to_front("Sweeps", 3)
        return self.sweeps.open(path)

    def edited(self) -> bool:
        """True when the car differs from the loaded preset (unsaved tuning)."""
        return self.tuning.edited()

    @property
    def arrows(self) -> dict[str, bool]:
        """Which force arrows the 3D view draws (the Grip panel's check boxes)."""
        return self.grip.arrows

    @property
    def arrow_scale(self) -> float:
        """m of force arrow per kN (the Grip panel's slider)."""
        return self.grip.arrow_scale

    # -- per step -----------------------------------------------------------------------------------
    def shown(self) -> list[WheelState]:
        """The diagnosis of the step on show, computed from its own telemetry (so a rewind to any stored
        step shows that step's states), once per step."""
        s = self.session.sim
        key = (s.steps, s.time)
        if self._shown is None or self._shown[:2] != key:
            # the monitor already diagnosed the step it last saw; a rewound step is diagnosed anew
            done = self.monitor.last
            self._shown = (*key, done[1] if done is not None and done[0] == key else diagnose(s.vehicle, s.telemetry))
        return self._shown[2]

    def on_jump(self) -> None:
        """The state jumped (scrub, reset): the monitor takes the new states without logging a change."""
        self._shown = None
        self.monitor.sync(self.shown())
        self.history.restart()
        self.companion_histories.clear()                # the variants start again from the car's state
        self.grip.clear_trails()

    def on_truncate(self, time: float) -> None:
        """Driving on from an earlier time: the log and the plots forget what came after it."""
        self.monitor.forget_after(time)
        self.history.forget_after(time)
        for hist in self.companion_histories.values():
            hist.forget_after(time)

    def after_step(self) -> None:
        """Called after every physics step: grip diagnosis, friction-circle trails, auto-pause."""
        s = self.session.sim
        tel = s.telemetry
        if self.monitor.update(s.time, s.vehicle, tel, key=(s.steps, s.time)):
            self.session.pause_for(f"paused: {self.monitor.pause_event.headline()}")
        self.history.append(s)
        for c in self.session.companions:               # compare mode's variants, sample for sample
            hist = self.companion_histories.get(c.label)
            if hist is None:
                hist = self.companion_histories[c.label] = History(HISTORY_SECONDS, s.dt)
            hist.append(c.sim)
        self.grip.record(tel)

    # -- drawing ------------------------------------------------------------------------------------
    def build(self) -> None:
        """All panels, between imgui.new_frame() and imgui.render(), docked around the 3D view."""
        self.layout = []                             # (panel, shown, x, y, w, h) of this build (begin)
        if not self.visible:
            self.central = None
            return
        if self.close_popups:                       # Esc with a menu open: close it, do not quit
            self.close_popups = False
            imgui.internal.close_popups_except_modals()
        self.menu_bar()
        # The dockspace would paint the window background under every docked panel, which then paints its
        # own over it: twice the panels' pixels for a software rasteriser (about 40 % of the overlay's
        # fill at 1280x720). A transparent colour makes ImGui skip it; the app clears the window to
        # the style's window background instead, which is what shows in the gaps between panels.
        imgui.push_style_color(imgui.Col_.window_bg, (0.0, 0.0, 0.0, 0.0))
        self.dockspace_id = imgui.dock_space_over_viewport(0, imgui.get_main_viewport(),
                                                           imgui.DockNodeFlags_.passthru_central_node)
        imgui.pop_style_color()
        if self.layout_request:
            self.dock_layout(self.layout_request)
            self.layout_request = None
            self.to_dock = []
        for name in list(self.to_dock):             # a panel newer than the kept layout: beside its neighbour
            host = imgui.internal.find_window_by_name(NEW_PANEL_HOSTS.get(name, "Plots"))
            if host is not None and host.dock_id != 0:
                imgui.internal.dock_builder_dock_window(name, host.dock_id)
                self.to_dock.remove(name)
        for name, panel in self.panels.items():
            if self.show[name]:
                panel.draw(*imgui.get_io().display_size)
        node = imgui.internal.dock_builder_get_central_node(self.dockspace_id)
        self.central = (node.pos.x, node.pos.y, node.size.x, node.size.y) if node is not None else None
        if self.check_in:
            self.check_in -= 1
            if not self.check_in:
                self.check_loaded_layout()

    # -- layouts per window size --------------------------------------------------------------------
    def fit(self, size: tuple[float, float]) -> None:
        """The layout of the window's size class (ui/layout.py size_class): the user's own, from its file, or
        the default; called before the first frame and whenever the window changes size, outside a frame.
        The class left behind keeps its layout in its own file. A window shrunk to a sliver (minimised) keeps
        what it has."""
        kind = size_class(*size)
        if kind == self.size_kind or (self.size_kind and min(size) < MIN_FIT):
            return
        if self.size_kind:
            self.tell(self.save_layout())
        self.size_kind = kind
        saved, notice = self.layout_files.open(kind, self.docked_panels()) if self.layout_files else ("", "")
        self.tell(notice)
        if saved:
            imgui.load_ini_settings_from_memory(saved)
            self.layout_request = None
            self.to_dock = undocked(saved, NEW_PANEL_HOSTS)
            self.check_in = 2                         # the nodes have their sizes after the second build
        else:
            self.layout_request = kind

    def docked_panels(self) -> list[str]:
        """The panels a saved layout must dock (a panel newer than it is docked beside its neighbour)."""
        return [name for name in self.show if name not in NEW_PANEL_HOSTS]

    def docking_problem(self) -> str:
        """"" when what ImGui made of a loaded layout is sound: every panel shown is docked in the dockspace
        (not floating over the 3D view) and the 3D view has a sensible size for the window; else what is
        wrong."""
        ib = imgui.internal
        for name, shown in self.show.items():
            if not shown or name in self.to_dock:
                continue
            window = ib.find_window_by_name(name)
            node = window.dock_node if window is not None else None
            if node is None or ib.dock_node_get_root_node(node).id_ != self.dockspace_id:
                return f"the {name} panel is not docked"
        if self.central is None:
            return "no place for the 3D view"
        w, h = imgui.get_io().display_size
        if view_too_small(self.central[2], self.central[3], w, h):
            return f"it leaves the 3D view {self.central[2]:.0f} x {self.central[3]:.0f} px of {w:.0f} x {h:.0f}"
        return ""

    def check_loaded_layout(self) -> None:
        """A loaded layout that is not sound (docking_problem) gives way to the default, and its file is set
        aside (never saved again); a sound one may be saved from now on."""
        why = self.docking_problem()
        if why:
            self.tell(self.layout_files.reject(f"it does not fit ({why})") if self.layout_files else
                      f"the saved layout is not used: {why}")
            self.layout_request = self.size_kind or "auto"
        elif self.layout_files:
            self.layout_files.trusted = True

    def save_layout(self) -> str:
        """Write ImGui's layout into the size class's file (when it was checked or built); "" or the failure."""
        return self.layout_files.save(imgui.save_ini_settings_to_memory()) if self.layout_files else ""

    def tell(self, notice: str) -> None:
        if notice:
            print(f"contactpatch: {notice}", file=sys.stderr)
            self.notices.append(notice)

    def menu_bar(self) -> None:
        """The View menu (panels, arrows, sound, layouts), the Lab menu and the keys' reminder."""
        if imgui.begin_main_menu_bar():
            if imgui.begin_menu("View"):
                self.view_menu()
                imgui.end_menu()
            if imgui.begin_menu("Lab"):
                lab_menu(self.session, self.tuning, self.drives)
                imgui.separator()
                if imgui.menu_item("Sweeps: open a sweep's results", "", self.show["Sweeps"])[0]:
                    self.show["Sweeps"] = True
                    self.bring_to_front("Sweeps")
                if imgui.is_item_hovered():
                    imgui.set_tooltip("the table and plots of `contactpatch sweep FILE --out DIR`; drive any variant")
                imgui.end_menu()
            imgui.text_disabled("   F1 help (keys, grip states, panels, rewind)   F2 hides the panels, F3 the arrows, "
                                "M the map")
            imgui.end_main_menu_bar()

    def view_menu(self) -> None:
        """Which panels are shown, the force arrows, the sound (when the overlay has the app's) and the layouts."""
        for name in self.show:
            _, self.show[name] = imgui.menu_item(name, "", self.show[name])
        imgui.separator()
        _, self.arrows_on = imgui.menu_item("Force arrows and grip tints", "F3", self.arrows_on)
        audio = self.audio
        if audio is not None:
            _, on = imgui.menu_item("Sound", "F8", not audio.muted)
            audio.muted = not on
            if imgui.is_item_hovered():
                imgui.set_tooltip("engine, tires (a squeal as a tire nears its limit), knocks and wind" +
                                  ("" if audio.available else f"; {audio.problem}"))
            imgui.set_next_item_width(160)
            _, audio.volume = imgui.slider_float("volume", audio.volume, 0.0, 1.0, "%.2f")
        imgui.separator()
        for kind, what in LAYOUTS.items():
            if imgui.menu_item(f"Layout: {kind}", "", False)[0]:
                self.layout_request = kind
            if imgui.is_item_hovered():
                imgui.set_tooltip(what)

    def dock_layout(self, kind: str) -> None:
        """Dock the panels around the 3D view (LAYOUTS says what each is); "auto" picks by width."""
        w, h = imgui.get_main_viewport().work_size
        if w < 1.0 or h < 1.0:
            return                                  # a minimised window: nothing to lay out
        if kind == "auto":
            kind = size_class(*imgui.get_io().display_size)
        self.check_in = 0                           # the layout is ours now: nothing loaded to check
        if self.layout_files:
            self.layout_files.trusted = True
        ib = imgui.internal
        root = self.dockspace_id
        ib.dock_builder_remove_node(root)
        ib.dock_builder_add_node(root, ib.DockNodeFlagsPrivate_.dock_space | imgui.DockNodeFlags_.passthru_central_node)
        ib.dock_builder_set_node_size(root, (w, h))
        left_w, right_w, bottom_h = (320.0, 410.0, 240.0) if kind == "compact" else (420.0, 520.0, 300.0)
        left_w, right_w = min(left_w, 0.33 * w), min(right_w, 0.33 * w)  # a small window keeps a 3D view
        # Time: its rows while rewound; on a circuit the lap table too
        bottom_h, time_h = min(bottom_h, 0.35 * h), min(190.0 if self.session.world.track is None else 250.0, 0.35 * h)
        _, left, rest = ib.dock_builder_split_node_py(root, imgui.Dir.left, left_w / w)
        _, right, rest = ib.dock_builder_split_node_py(rest, imgui.Dir.right, right_w / (w - left_w))
        _, bottom, _ = ib.dock_builder_split_node_py(rest, imgui.Dir.down, bottom_h / h)
        _, left_bottom, left_top = ib.dock_builder_split_node_py(left, imgui.Dir.down, time_h / h)
        ib.dock_builder_dock_window("Tuning", left_top)
        ib.dock_builder_dock_window("Time", left_bottom)
        if kind == "compact":
            _, right_bottom, right_top = ib.dock_builder_split_node_py(right, imgui.Dir.down, 0.42)
            ib.dock_builder_dock_window("Plan view", right_top)
            ib.dock_builder_dock_window("Grip", right_top)
            ib.dock_builder_dock_window("Map", right_bottom)
            ib.dock_builder_dock_window("Test drives", right_bottom)
            ib.dock_builder_dock_window("Telemetry", right_bottom)
        else:
            _, right_bottom, right_top = ib.dock_builder_split_node_py(right, imgui.Dir.down, 0.55)
            ib.dock_builder_dock_window("Plan view", right_top)
            ib.dock_builder_dock_window("Grip", right_top)
            ib.dock_builder_dock_window("Telemetry", right_bottom)
            _, map_node, left_top = ib.dock_builder_split_node_py(left_top, imgui.Dir.down, 0.4)
            ib.dock_builder_dock_window("Map", map_node)
            ib.dock_builder_dock_window("Test drives", map_node)
            ib.dock_builder_dock_window("Tuning", left_top)
        ib.dock_builder_dock_window("Plots", bottom)
        ib.dock_builder_dock_window("Sweeps", bottom)
        ib.dock_builder_dock_window("Lap comparison", bottom)
        ib.dock_builder_finish(root)
        self.bring_to_front("Telemetry")

    def bring_to_front(self, name: str, frames: int = 2) -> None:
        """Show panel `name` in front of the panels it shares a dock node with, in `frames` frames (a
        layout just built needs a frame or two to exist)."""
        self._front_tabs[name] = frames

    def begin(self, name: str) -> bool:
        """imgui.begin with a close button that hides the panel (View menu brings it back). A panel
        whose saved position lies outside a smaller window is pulled back inside it."""
        frames = self._front_tabs.get(name)
        if frames is not None:
            if frames > 1:
                self._front_tabs[name] = frames - 1
            else:
                del self._front_tabs[name]
                imgui.set_next_window_focus()
        expanded, self.show[name] = imgui.begin(name, self.show[name])
        pos, size = imgui.get_window_pos(), imgui.get_window_size()
        self.layout.append((name, expanded, pos.x, pos.y, size.x, size.y))
        if imgui.is_window_docked():
            return expanded
        w, h = imgui.get_io().display_size
        x = min(max(pos.x, 0.0), max(w - min(size.x, w), 0.0))
        y = min(max(pos.y, 20.0), max(h - 40.0, 20.0))
        if x != pos.x or y != pos.y:
            imgui.set_window_pos((x, y))
        return expanded

    def wheel_colors(self) -> list[tuple[float, float, float]]:
        """The grip state of each wheel as its colour (rgb) for the 3D wheels' rims, treads and rings."""
        return [STATE_COLORS[w_.state][:3] for w_ in self.shown()]
