"""The ImGui overlay: per-wheel telemetry, grip diagnosis with friction circles, live tuning, time control.

It reads the simulation's telemetry and parameters and writes only new parameters (through
`Simulation.set_params`, applied at the next step boundary) and time-control requests to the session.
"""
from __future__ import annotations

import math
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import fields

import numpy as np
from imgui_bundle import imgui, implot

import sim
from sim import advisor
from sim.diagnosis import (
    CAUSE_SHORT,
    SATURATED,
    STATE_NAMES,
    GripMonitor,
    WheelState,
    diagnose,
    force_was_cut,
    tire_curve,
)
from sim.lab import drives as manoeuvres
from sim.lab import families as models
from sim.model import params as P
from sim.model.files import data_dir
from ui.history import CHANNELS, G, History, log_channel
from ui.tuning import NUMBER_FORMAT, Tuning, config_presets, home_short, same_file, short_number, typed_number
from ui.widgets import AMBER, GREEN, GREY, RED, STATE_COLORS, TABLE_FLAGS, fit_text, text_wrapped_colored

GROUP_TITLES = {"chassis": "Chassis", "front_axle": "Front axle", "rear_axle": "Rear axle",
                "front_suspension": "Suspension: front", "rear_suspension": "Suspension: rear",
                "front_tire": "Tire: front", "rear_tire": "Tire: rear", "brakes": "Brakes", "steering": "Steering",
                "drive": "Drive and differentials", "aero": "Aero", "collision": "Body collision",
                "engine": "Engine", "gearbox": "Gearbox and clutch"}
# (label, telemetry name, unit, scale for display)
ROWS = [("s", "s", "m", 1.0), ("a", "a", "-", 1.0), ("l", "l", "m", 1.0), ("x", "x", "m", 1.0),
        ("xdot", "xdot", "m/s", 1.0), ("Fs", "Fs", "N", 1.0), ("Fz", "Fz", "N", 1.0), ("vx", "vx", "m/s", 1.0),
        ("vy", "vy", "m/s", 1.0), ("kappa", "kappa", "-", 1.0), ("alpha", "alpha", "deg", 180.0 / math.pi),
        ("Fx raw", "Fx_raw", "N", 1.0), ("Fy raw", "Fy_raw", "N", 1.0), ("Fx", "Fx", "N", 1.0),
        ("Fy", "Fy", "N", 1.0), ("grip scale", "grip_scale", "-", 1.0), ("T drive", "T_drive", "N m", 1.0),
        ("T brake", "T_brake", "N m", 1.0), ("ESP brake", "esp_brake", "N m", 1.0), ("omega", "omega", "rad/s", 1.0),
        ("mu", "mu", "-", 1.0)]

# what each telemetry row is, in plain words (docs/physics.md has the formulas)
ROW_HELP = {"s": "distance from the suspension anchor to the ground along the suspension axis",
            "a": "how square the ground meets the wheel (1: flat under it)",
            "l": "suspension length", "x": "suspension compression", "xdot": "compression speed",
            "Fs": "suspension force (spring, damper, bump stop, anti-roll bar)",
            "Fz": "load: the ground's push on the tire along the contact normal",
            "vx": "contact point's speed along the tire's heading", "vy": "contact point's speed sideways",
            "kappa": "slip ratio (tread speed minus ground speed, over the ground speed)",
            "alpha": "slip angle between the tire's heading and its direction of travel",
            "Fx_raw": "longitudinal force the tire curve asks for", "Fy_raw": "lateral force the tire curve asks for",
            "Fx": "longitudinal force after the combined friction limit",
            "Fy": "lateral force after the combined friction limit, as the body took it (mid-substep)",
            "grip_scale": "how much the combined limit scaled the raw force (1: not at all)",
            "T_drive": "drive torque at the wheel", "T_brake": "brake torque applied",
            "omega": "wheel spin speed",
            "esp_brake": "brake torque stability control (F7) asks of this wheel on top of the pedal's",
            "mu": "friction coefficient: surface x tire grip x load factor"}

LAYOUTS = {"auto": "compact below 1700 px of width, wide from there",
           "compact": "fits 1280x720: grip on the right, telemetry and the map as tabs below it",
           "wide": "for 1920x1080 and larger: every panel has its own place"}
LOW_MARGIN = 2.0          # a parameter whose margin is below this gets its margin shown beside its field


def margin_color(margin: float) -> tuple[float, float, float, float]:
    return RED if margin < advisor.REQUIRED_MARGIN else AMBER if margin < LOW_MARGIN else GREEN


MIN_SPAN = {"km/h": 2.0, "rpm": 200.0, "N": 200.0, "-": 0.02, "deg": 1.0, "deg/s": 2.0, "g": 0.05}
MIN_PLOT_ROW = 80.0       # px: the least height of one unit's plot


def arrow(dl, a, b, color, thickness: float, hollow: bool = False) -> None:
    """A line from a to b (pixels) with a head at b; `hollow` outlines the head (the raw force's ghost)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    if n < 2.0:
        return
    col = imgui.get_color_u32(color)
    ux, uy = dx / n, dy / n
    head = min(10.0, 0.4 * n)
    left = (b[0] - head * ux + 0.5 * head * uy, b[1] - head * uy - 0.5 * head * ux)
    right = (b[0] - head * ux - 0.5 * head * uy, b[1] - head * uy + 0.5 * head * ux)
    dl.add_line(a, (b[0] - head * ux, b[1] - head * uy), col, thickness)
    if hollow:
        dl.add_triangle(b, left, right, col, 1.0)
    else:
        dl.add_triangle_filled(b, left, right, col)


def thin(values: np.ndarray, most: int = 400) -> np.ndarray:
    """Every k-th sample, at most `most` of them: a scatter of thousands of markers costs a software
    renderer tens of milliseconds a frame, and 400 show the same cloud."""
    k = max(1, -(-len(values) // most))
    return values[::k]


def compact_number(v: float) -> str:
    """At most 7 characters, three significant decimals where they fit: a table column stays narrow."""
    a = abs(v)
    if a >= 9999.5:
        return f"{v:.3g}"
    if a >= 99.95:
        return f"{v:.0f}"
    if a >= 9.9995:
        return f"{v:.2f}"
    return f"{v:.3f}"


def plain_name(doc: str) -> str:
    """A parameter's plain name from its description: the words before the first colon or semicolon."""
    return doc.split(":")[0].split(";")[0].strip()


def decimate(t: np.ndarray, v: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """A line of at most 2 x buckets points that looks like (t, v) drawn `buckets` pixels wide: each
    bucket's lowest and highest sample, in time order, so spikes survive (thousands of segments per
    line cost a software renderer milliseconds a frame)."""
    k = len(t)
    if k <= 2 * buckets:
        return np.ascontiguousarray(t, float), np.ascontiguousarray(v, float)
    size = -(-k // buckets)
    n = -(-k // size)
    pad = n * size - k
    idx = np.arange(n * size).reshape(n, size)
    idx = np.minimum(idx, k - 1) if pad else idx
    vals = v[idx]
    lo = idx[np.arange(n), np.argmin(vals, axis=1)]
    hi = idx[np.arange(n), np.argmax(vals, axis=1)]
    pick = np.sort(np.stack([lo, hi], axis=1), axis=1).reshape(-1)
    return np.ascontiguousarray(t[pick], float), np.ascontiguousarray(v[pick], float)


class Overlay:
    def __init__(self, session, on_params: Callable[[sim.Vehicle], None] | None = None,
                 ini_path: str | os.PathLike | None = None, map_panel: Callable[[], None] | None = None,
                 audio=None):
        """`map_panel` draws the map into the current window (the Map panel; None: "no map"); `audio` is the
        app's sound (app.sound.Audio: its mute and volume are in the View menu; None: no sound items)."""
        self.session = session
        self.visible = True
        self.tuning = Tuning(session, on_params)              # the parameters as edited, the loaded preset
        self.log_status = ""                          # what the last log save did
        self.monitor = GripMonitor()
        self._shown: tuple[int, float, list[WheelState]] | None = None     # (steps, time, diagnosis) on show
        session.on_jump.append(self.on_jump)
        session.on_truncate.append(self.on_truncate)
        self.trails = [deque(maxlen=40) for _ in range(4)]
        self.arrows = {"suspension": True, "longitudinal": True, "lateral": True, "raw": True}
        self.arrow_scale = 0.25                               # m of arrow per kN
        self.history = History(20.0, session.sim.dt)
        self.channels = {name: name in ("speed", "kappa") for name in CHANNELS}
        self._curves: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}     # tire curves by (wheel, load, mu)
        self.plot_tab_request: str | None = None     # a Plots tab to bring to the front
        self.plot_seconds = 10.0                              # s shown of the 20 s kept
        self.layout: list[tuple] = []                         # where the last build placed each panel
        self._windows: dict[str, tuple] = {}                  # window_of_history's answers in this build
        self.show = {"Telemetry": True, "Grip": True, "Plan view": True, "Tuning": True, "Time": True, "Plots": True,
                     "Map": True, "Test drives": True}
        self.drive_index = 0
        self.drive_compare = True
        self.drive_thread = None
        self.drive_result = None                      # (result now, result of the loaded preset or None) or why not
        self._ref_channels = (None, {})               # (reference run, its plot channels read from its log)
        self.companion_histories: dict[str, History] = {}   # compare mode: each variant's plot channels
        self.close_popups = False                      # the app asks: close any open menu or popup
        self.drive_status = ""                        # why a drive cannot be watched ("" when it can)
        self.ini_path = str(ini_path) if ini_path else ""
        self.layout_request: str | None = "auto"      # a layout to build at the next frame (None: keep)
        self.dockspace_id = 0
        self.central: tuple[float, float, float, float] | None = None   # the 3D view's rect, pixels
        self.arrows_on = True                         # force arrows and grip tints on the car
        self.map_panel = map_panel                    # draws the map (Map panel)
        self.audio = audio
        self._front_tab: tuple[str, int] | None = None  # (panel to bring to the front, in how many frames)

    def edited(self) -> bool:
        """True when the car differs from the loaded preset (unsaved tuning)."""
        return self.tuning.edited()

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
        self.companion_histories = {}                   # the variants start again from the car's state
        for trail in self.trails:
            trail.clear()

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
                hist = self.companion_histories[c.label] = History(20.0, s.dt)
            hist.append(c.sim)
        for i in range(4):
            budget = tel.mu[i] * tel.Fz[i]
            if budget > 1.0:
                self.trails[i].append((tel.Fx[i] / budget, tel.Fy[i] / budget))

    # -- drawing ------------------------------------------------------------------------------------
    def build(self) -> None:
        """All panels, between imgui.new_frame() and imgui.render(), docked around the 3D view."""
        self._windows = {}
        self.layout = []                             # (panel, shown, x, y, w, h) of this build (begin)
        if not self.visible:
            self.central = None
            return
        if self.close_popups:                       # Esc with a menu open: close it, do not quit
            self.close_popups = False
            imgui.internal.close_popups_except_modals()
        if imgui.begin_main_menu_bar():
            if imgui.begin_menu("View"):
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
                imgui.end_menu()
            if imgui.begin_menu("Lab"):
                self.lab_menu()
                imgui.end_menu()
            imgui.text_disabled("   F2 hides the panels, F3 the arrows, M the map, F1 lists the keys")
            imgui.end_main_menu_bar()
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
        # the map first: where it shares a node with the telemetry, the telemetry (begun later) is in front
        for name, panel in (("Map", self.map_panel_window), ("Test drives", self.drives_panel),
                            ("Telemetry", self.telemetry_panel),
                            ("Plan view", self.plan_panel), ("Grip", self.grip_panel), ("Tuning", self.tuning_panel),
                            ("Time", self.time_panel), ("Plots", self.plots_panel)):
            if self.show[name]:
                panel(*imgui.get_io().display_size)
        node = imgui.internal.dock_builder_get_central_node(self.dockspace_id)
        self.central = (node.pos.x, node.pos.y, node.size.x, node.size.y) if node is not None else None

    def dock_layout(self, kind: str) -> None:
        """Dock the panels around the 3D view (LAYOUTS says what each is); "auto" picks by width."""
        w, h = imgui.get_main_viewport().work_size
        if kind == "auto":
            kind = "wide" if w >= 1700 else "compact"
        ib = imgui.internal
        root = self.dockspace_id
        ib.dock_builder_remove_node(root)
        ib.dock_builder_add_node(root, ib.DockNodeFlagsPrivate_.dock_space | imgui.DockNodeFlags_.passthru_central_node)
        ib.dock_builder_set_node_size(root, (w, h))
        left_w, right_w, bottom_h = (320.0, 410.0, 240.0) if kind == "compact" else (420.0, 520.0, 300.0)
        _, left, rest = ib.dock_builder_split_node_py(root, imgui.Dir.left, left_w / w)
        _, right, rest = ib.dock_builder_split_node_py(rest, imgui.Dir.right, right_w / (w - left_w))
        _, bottom, _ = ib.dock_builder_split_node_py(rest, imgui.Dir.down, bottom_h / h)
        _, left_bottom, left_top = ib.dock_builder_split_node_py(left, imgui.Dir.down, 150.0 / h)
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
        ib.dock_builder_finish(root)
        self.bring_to_front("Telemetry")

    def plan_panel(self, w, h):
        """The car from above, where nothing hides the forces: each wheel at its place and steering angle,
        tinted by its grip state, with the contact's velocity (blue), the raw force (hollow) and the limited
        force (solid) on one scale, its load and slip angle. x forward is up, y left is left."""
        if self.begin("Plan view"):
            s = self.session.sim
            tel, geo, shown = s.telemetry, s.wheel_geometry(), self.shown()
            avail = imgui.get_content_region_avail()
            size = max(80.0, min(avail.x, avail.y - 2 * imgui.get_text_line_height_with_spacing()))
            o = imgui.get_cursor_screen_pos()
            cx, cy = o.x + avail.x / 2, o.y + size / 2
            xs, ys, radius = geo.anchor[:, 0], geo.anchor[:, 1], geo.radius
            x_mid = 0.5 * (xs.max() + xs.min())
            span = max(xs.max() - xs.min() + 2 * radius.max(), 2 * np.abs(ys).max() + 0.6) * 1.9
            px = size / span                                               # pixels per metre

            def at(x, y):
                return cx - y * px, cy - (x - x_mid) * px

            dl = imgui.get_window_draw_list()
            body = [at(xs.max() + radius.max(), ys.max() - 0.1), at(xs.max() + radius.max(), ys.min() + 0.1),
                    at(xs.min() - radius.max(), ys.min() + 0.1), at(xs.min() - radius.max(), ys.max() - 0.1)]
            dl.add_convex_poly_filled(body, imgui.get_color_u32((1, 1, 1, 0.08)))
            budgets = tel.mu * tel.Fz
            f_ref = max(float(np.max(budgets)), float(np.max(np.hypot(tel.Fx_raw, tel.Fy_raw))), 1.0)
            f_px = 0.30 * span * px / f_ref                                # pixels per newton, all wheels
            v_px = 0.30 * span * px / max(float(np.max(np.hypot(tel.vx, tel.vy))), 5.0)
            for i in range(4):
                d = float(tel.steer[i])
                u, v = (math.cos(d), math.sin(d)), (-math.sin(d), math.cos(d))
                x, y = float(xs[i]), float(ys[i])
                p0 = at(x, y)

                def tip(a, b, scale, p0=p0, u=u, v=v):             # a along u, b along v, in pixels
                    return p0[0] - (a * u[1] + b * v[1]) * scale, p0[1] - (a * u[0] + b * v[0]) * scale
                col = STATE_COLORS[shown[i].state]
                r = float(radius[i])
                wheel = [at(x + r * u[0] + 0.1 * v[0], y + r * u[1] + 0.1 * v[1]),
                         at(x + r * u[0] - 0.1 * v[0], y + r * u[1] - 0.1 * v[1]),
                         at(x - r * u[0] - 0.1 * v[0], y - r * u[1] - 0.1 * v[1]),
                         at(x - r * u[0] + 0.1 * v[0], y - r * u[1] + 0.1 * v[1])]
                dl.add_convex_poly_filled(wheel, imgui.get_color_u32(col))
                if tel.grounded[i] > 0.5:
                    budget = float(budgets[i])
                    dl.add_circle(p0, budget * f_px, imgui.get_color_u32((*col[:3], 0.35)), 40, 1.0)
                    arrow(dl, p0, tip(float(tel.vx[i]), float(tel.vy[i]), v_px), (0.45, 0.7, 1.0, 0.9), 1.5)
                    arrow(dl, p0, tip(float(tel.Fx_raw[i]), float(tel.Fy_raw[i]), f_px), (1, 1, 1, 0.55), 1.0,
                          hollow=True)
                    arrow(dl, p0, tip(float(tel.Fx[i]), float(tel.Fy[i]), f_px), col, 3.0)
                label = (f"{sim.WHEEL_NAMES[i]} {float(tel.Fz[i]) / 1000:.2f} kN\n"
                         f"alpha {math.degrees(float(tel.alpha[i])):+.1f} deg\nkappa {float(tel.kappa[i]):+.2f}")
                ts = imgui.calc_text_size(label)
                # front wheels' figures above them, rear wheels' below, the left ones ending at the wheel and
                # the right ones starting there, kept inside the panel
                lx = p0[0] - ts.x + 8 if y > 0 else p0[0] - 8
                lx = min(max(lx, o.x), o.x + avail.x - ts.x)
                ly = p0[1] - r * px - ts.y - 4 if i < 2 else p0[1] + r * px + 4
                dl.add_text((lx, min(max(ly, o.y), o.y + size - ts.y)), imgui.get_color_u32((1, 1, 1, 0.85)), label)
            imgui.dummy((avail.x, size))
            text_wrapped_colored(GREY, f"circle: mu Fz; blue: contact velocity ({0.30 * span * px / v_px:.0f} m/s "
                                       f"long); hollow: raw force, solid: limited ({f_ref / 1000:.1f} kN long)")
        imgui.end()

    def lab_menu(self) -> None:
        """Kill switches (seed 001's, for every model): parts of the physics off while driving, the
        parameters untouched."""
        s = self.session.sim
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
        session = self.session
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
                    why = session.add_companion(family, models.variant(self.tuning.params, family))
                    self.drive_status = why
                else:
                    session.remove_companion(family)

    def drives_panel(self, w, h):
        """Test drives (sim.lab.drives) of the car as tuned now, run in a worker thread (the window keeps
        drawing); with "against the loaded preset" the same drive of the preset as loaded runs too, and
        the figures are shown side by side with their difference."""
        if self.begin("Test drives"):
            names = list(manoeuvres.SUITE)
            imgui.set_next_item_width(160)
            _, self.drive_index = imgui.combo("drive", self.drive_index, names)
            _, self.drive_compare = imgui.checkbox("against the loaded preset", self.drive_compare)
            busy = self.drive_thread is not None and self.drive_thread.is_alive()
            imgui.begin_disabled(busy)
            if imgui.button("run" if not busy else "running..."):
                self.start_drive(names[self.drive_index])
            imgui.end_disabled()
            if imgui.is_item_hovered():
                imgui.set_tooltip(manoeuvres.SUITE_HELP.get(names[self.drive_index], ""))
            result = self.drive_result
            if isinstance(result, str):
                text_wrapped_colored(RED, result)
            elif result is not None:
                after, before = result
                imgui.same_line()
                if imgui.button("watch it"):
                    why = self.session.watch_drive(after, before, "loaded preset")
                    self.drive_status = why or ""
                if imgui.is_item_hovered():
                    imgui.set_tooltip("Drive this run again here, step for step, in its own course: every panel, "
                                      "plot and the rewind work on it" + (", and the loaded preset's run is the "
                                      "ghost car and the plots' reference" if before else ""))
                imgui.same_line()
                if imgui.button("save its log"):
                    self.log_status = self.save_log(after.log, f"drive-{after.name}")
            if self.session.watching:
                text_wrapped_colored(AMBER, f"watching the {self.session.watching}; the driver's recorded "
                                            f"inputs drive the car, and you drive on after them")
                if imgui.button(f"back to {self.session.home[0].name}"):
                    self.session.leave_drive()
            if self.drive_status:
                text_wrapped_colored(RED, self.drive_status)
            if result is not None and not isinstance(result, str):
                cols = ("figure", "preset", "now", "change", "unit") if before else ("figure", "value", "unit", "")
                if imgui.begin_table("drive figures", len(cols), TABLE_FLAGS):
                    for k, c in enumerate(cols):
                        imgui.table_setup_column(c, imgui.TableColumnFlags_.width_stretch, 2.2 if k == 0 else 1.0)
                    imgui.table_headers_row()
                    rows = manoeuvres.compare(before, after) if before else \
                        [(f.name, f.value, f.unit, f.passed) for f in after.figures]
                    for row in rows:
                        imgui.table_next_row()
                        for k, cell in enumerate(row):
                            imgui.table_next_column()
                            if isinstance(cell, float):
                                imgui.text(f"{cell:+.3g}" if before and k == 3 else f"{cell:.4g}")
                            elif k == 0:
                                imgui.text_wrapped(str(cell))
                            elif cell is True or cell is False:
                                imgui.text_colored(GREEN if cell else RED, "ok" if cell else "FAIL")
                            else:
                                imgui.text("" if cell is None else str(cell))
                    imgui.end_table()
        imgui.end()

    def start_drive(self, name: str) -> None:
        import threading
        now, loaded = self.tuning.params, self.tuning.baseline
        compare = self.drive_compare

        def work():
            try:
                after = manoeuvres.run(name, now)
                before = manoeuvres.run(name, loaded) if compare else None
                self.drive_result = (after, before)
            except (sim.ConfigError, sim.BlowUp, ValueError) as exc:
                self.drive_result = f"{name}: {exc}"
        self.drive_result = None
        self.drive_thread = threading.Thread(target=work, daemon=True)
        self.drive_thread.start()

    def map_panel_window(self, w, h):
        if self.begin("Map"):
            if self.map_panel is not None:
                self.map_panel()
            else:
                imgui.text_disabled("no map")
        imgui.end()

    def bring_to_front(self, name: str, frames: int = 2) -> None:
        """Show panel `name` in front of the panels it shares a dock node with, in `frames` frames (a
        layout just built needs a frame or two to exist)."""
        self._front_tab = (name, frames)

    def begin(self, name: str) -> bool:
        """imgui.begin with a close button that hides the panel (View menu brings it back). A panel
        whose saved position lies outside a smaller window is pulled back inside it."""
        front = self._front_tab
        if front and front[0] == name:
            self._front_tab = (name, front[1] - 1) if front[1] > 1 else None
            if front[1] == 1:
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

    def telemetry_panel(self, w, h):
        imgui.set_next_window_pos((w - 470, 28), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((460, 482), imgui.Cond_.first_use_ever)
        if self.begin("Telemetry"):
            tel = self.session.sim.telemetry
            shown = self.shown()
            if imgui.begin_table("wheels", 6, TABLE_FLAGS):
                for name in ("", "FL", "FR", "RL", "RR", "unit"):
                    imgui.table_setup_column(name)
                imgui.table_headers_row()
                imgui.table_next_row()
                imgui.table_next_column()
                imgui.text("state")
                for i in range(4):
                    imgui.table_next_column()
                    w_ = shown[i]
                    imgui.text_colored(STATE_COLORS[w_.state], CAUSE_SHORT[w_.cause] or STATE_NAMES[w_.state])
                    if imgui.is_item_hovered():
                        imgui.set_tooltip(f"{w_.name}: {w_.reason}")
                imgui.table_next_column()
                car = self.session.sim.vehicle
                for row, part, usual in (("tire", "tire", "magic"), ("susp.", "suspension", "reference")):
                    imgui.table_next_row()
                    imgui.table_next_column()
                    imgui.text(row)
                    if imgui.is_item_hovered():
                        imgui.set_tooltip(f"the {part} model that made each wheel's numbers (front_{part}.model, "
                                          f"rear_{part}.model; docs/models.md)")
                    for i in range(4):
                        imgui.table_next_column()
                        model = getattr(car, f"{'front' if i < 2 else 'rear'}_{part}").model
                        shown = "ref" if model == "reference" else model
                        (imgui.text if model != usual else imgui.text_disabled)(shown)
                    imgui.table_next_column()
                for label, name, unit, k in ROWS:
                    values = getattr(tel, name)
                    imgui.table_next_row()
                    imgui.table_next_column()
                    imgui.text(label)
                    if imgui.is_item_hovered() and name in ROW_HELP:
                        imgui.set_tooltip(f"{label}: {ROW_HELP[name]} ({unit})")
                    for i in range(4):
                        imgui.table_next_column()
                        v = float(values[i]) * k
                        if tel.grounded[i] < 0.5:
                            imgui.text_disabled(compact_number(v))
                        elif name == "grip_scale" and force_was_cut(v):
                            imgui.text_colored(STATE_COLORS[SATURATED], compact_number(v))
                        else:
                            imgui.text(compact_number(v))
                    imgui.table_next_column()
                    imgui.text_disabled(unit)
                imgui.end_table()
            if self.session.sim.vehicle.drive.mode == "engine":
                imgui.text_wrapped(f"engine {float(tel.rpm):.0f} rpm   gear {int(tel.gear)}   clutch "
                                   f"{float(tel.T_clutch):.1f} N m   diff lock {tel.diff_lock[0]:.1f} / "
                                   f"{tel.diff_lock[1]:.1f} N m")
        imgui.end()

    def grip_panel(self, w, h):
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

    def tuning_panel(self, w, h):
        imgui.set_next_window_pos((10, 120), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((400, h - 270), imgui.Cond_.first_use_ever)
        if self.begin("Tuning"):
            t = self.tuning
            self.stability_section()
            imgui.separator()
            car = t.params
            self.preset_box()
            imgui.set_next_item_width(-1)                 # the whole width: a path is long
            _, t.file_path = imgui.input_text_with_hint("##file", "file to save to, or a file or preset to load",
                                                        t.file_path)
            if imgui.is_item_hovered():
                imgui.set_tooltip(f"{t.file_path}\nsave writes this file; load reads it (or a preset name)")
            if imgui.button("save"):
                t.save(t.file_path)
            imgui.same_line()
            if imgui.button("load"):
                t.load(t.file_path)
            imgui.same_line()
            if imgui.button("revert all"):
                t.revert()
            if t.status:
                imgui.text_wrapped(t.status)
            imgui.separator()
            for gname, gtype in P.GROUP_TYPES.items():
                if not imgui.collapsing_header(GROUP_TITLES.get(gname, gname)):
                    continue
                model = getattr(getattr(car, gname), "model", None)
                hidden = 0
                for f in fields(gtype):
                    if model is not None and not P.field_used(gtype, model, f.name):
                        hidden += 1
                        continue
                    self.field_editor(car, gname, f)
                if hidden:
                    imgui.text_disabled(f"({hidden} parameters of the other models hidden)")
        imgui.end()

    def preset_box(self) -> None:
        """The preset picker. Closed, it shows what is loaded (and, under it, the path of a file from
        neither preset folder); open, it lists the built-in presets and the user's saved ones."""
        t = self.tuning
        if imgui.begin_combo("preset", t.preset_label()):
            edited = t.edited()
            for p in config_presets():
                current = t.source is not None and same_file(p.path, t.source)
                clicked, _ = imgui.selectable(p.label, current)
                if imgui.is_item_hovered():
                    imgui.set_tooltip(str(p.path))
                if clicked and (edited or not current):
                    t.load(p.path)
                if current:
                    imgui.set_item_default_focus()
            imgui.end_combo()
        if t.source is not None and not t.source_folder():
            text_wrapped_colored(GREY, f"from {home_short(t.source)}")      # a file of no preset folder

    def stability_section(self) -> None:
        """The least stable part, the substeps, and every part's margin (sim.advisor)."""
        s = self.tuning.session.sim
        r = self.tuning.stability()
        w = r.worst
        imgui.text("stability:")
        imgui.same_line()
        imgui.text_colored(margin_color(w.margin), f"margin {w.margin:.3g}")
        imgui.same_line()
        imgui.text_disabled(f"(needs {advisor.REQUIRED_MARGIN:g})")
        text_wrapped_colored(GREY, f"least: {w.part}, {w.parameter}")
        if not r.stable:
            text_wrapped_colored(RED, f"unstable: {r.substeps_needed} substeps would make it stable")
        for note in r.notes:
            text_wrapped_colored(AMBER, f"note: {note}")
        locked = self.tuning.session.substeps_locked
        imgui.begin_disabled(bool(locked))
        imgui.set_next_item_width(100)
        edited, n = imgui.input_int("substeps", s.substeps, 1, 10, imgui.InputTextFlags_.enter_returns_true)
        imgui.end_disabled()
        if edited and n != s.substeps:
            self.tuning.set_substeps(n)
        imgui.same_line()
        step_text = f"h {r.h * 1e3:.3g} ms of dt {s.dt * 1e3:.3g} ms"
        if imgui.calc_text_size(step_text).x > imgui.get_content_region_avail().x:
            imgui.new_line()                    # a narrow panel: on a line of its own rather than cut short
        imgui.text_disabled(fit_text(step_text, imgui.get_content_region_avail().x))
        if locked:
            text_wrapped_colored(GREY, f"substeps fixed: {locked}")
        if self.tuning.substeps_error:
            text_wrapped_colored(RED, f"refused: {self.tuning.substeps_error}")
        if imgui.tree_node(f"every part ({len(r.items)})###every part"):
            if imgui.begin_table("margins", 3, TABLE_FLAGS):
                imgui.table_setup_column("part", imgui.TableColumnFlags_.width_stretch)
                imgui.table_setup_column("margin", imgui.TableColumnFlags_.width_fixed)
                imgui.table_setup_column("h max", imgui.TableColumnFlags_.width_fixed)
                imgui.table_headers_row()
                for item in sorted(r.items, key=lambda i: i.margin):
                    imgui.table_next_row()
                    imgui.table_next_column()
                    imgui.text_wrapped(item.part)
                    if imgui.is_item_hovered():
                        imgui.set_tooltip(f"{item.parameter}\n{item.why}")
                    imgui.table_next_column()
                    imgui.text_colored(margin_color(item.margin), f"{item.margin:7.3g}")
                    imgui.table_next_column()
                    imgui.text(f"{item.h_max * 1e3:.3g} ms")
                imgui.end_table()
            imgui.tree_pop()

    def fix_button(self, path: str) -> None:
        """Under an edit the advisor refused: take the substeps that make it stable, when allowed."""
        s = self.tuning.session.sim
        n = self.tuning.fixes[path][1]
        locked = self.tuning.session.substeps_locked
        if locked:
            text_wrapped_colored(GREY, f"\"use {n} substeps\" is unavailable: {locked}")
        else:
            if imgui.small_button(f"use {n} substeps and apply"):
                self.tuning.apply_with_substeps(path)
            if imgui.is_item_hovered():
                imgui.set_tooltip(f"substeps {s.substeps} -> {n}: about {n / s.substeps:.3g} times the physics "
                                  f"work per step")

    def field_editor(self, car, gname: str, f) -> None:
        """The editor of parameter `gname`.`f` of `car` (the parameters of this build), by its kind: a number
        field, a choice or a list; its changed mark with a revert button, its tooltip and its refusal."""
        path = f"{gname}.{f.name}"
        value = P.get_value(car, path)
        changed_mark = value != P.get_value(self.tuning.baseline, path)
        m = f.metadata
        imgui.push_id(path)
        if changed_mark:
            if imgui.small_button("x"):
                self.tuning.revert(path)
            if imgui.is_item_hovered():
                imgui.set_tooltip(f"revert to {P.get_value(self.tuning.baseline, path)!r}")
            imgui.same_line()
        # the symbol with its plain name beside it, shortened to the room there is (the tooltip has it all)
        room = imgui.get_content_region_avail().x - (130.0 if m["kind"] != "list" else 240.0) - 70.0
        label = fit_text(f"{'* ' if changed_mark else ''}{f.name}  {plain_name(m['doc'])}", room) + "###field"
        if m["kind"] == "num":
            imgui.set_next_item_width(130)
            edited, new = imgui.input_double(label, float(value), 0.0, 0.0, NUMBER_FORMAT,
                                             imgui.InputTextFlags_.enter_returns_true)
            new = typed_number(new, value) if edited else value
            if new != value:
                self.tuning.apply(path, new)
            hovered = imgui.is_item_hovered()
            imgui.same_line()
            imgui.text_disabled(m["unit"])
            hovered |= imgui.is_item_hovered()
            margin = self.tuning.margin_of(path)
            if margin is not None and margin < LOW_MARGIN:
                imgui.same_line()
                imgui.text_colored(margin_color(margin), f"{margin:.2f}")         # its margin, in the tooltip too
                hovered |= imgui.is_item_hovered()
            if hovered:
                tip = f"{f.name}: {m['doc']} ({m['unit']})\nallowed: {P.describe_allowed(f)}"
                if path in advisor.PARAMETERS:
                    tip += "\n" + self.tuning.range_tip(path, m["unit"])
                imgui.set_tooltip(tip)
        elif m["kind"] == "text":
            choices = list(m["choices"])
            imgui.set_next_item_width(130)
            edited, idx = imgui.combo(label, choices.index(value), choices)
            if edited and choices[idx] != value:
                self.tuning.apply(path, choices[idx])
        else:
            imgui.set_next_item_width(240)
            edited, txt = imgui.input_text(label, ", ".join(short_number(v) for v in value),
                                           imgui.InputTextFlags_.enter_returns_true)
            if edited:
                self.tuning.apply_list(path, txt)
        if m["kind"] != "num" and imgui.is_item_hovered():
            imgui.set_tooltip(f"{f.name}: {m['doc']}\nallowed: {P.describe_allowed(f)}")
        if path in self.tuning.errors:
            text_wrapped_colored(RED, f"refused: {self.tuning.errors[path]}")
            if path in self.tuning.fixes:
                self.fix_button(path)
        imgui.pop_id()

    def time_panel(self, w, h):
        imgui.set_next_window_pos((10, h - 140), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((400, 130), imgui.Cond_.first_use_ever)
        s = self.session
        if self.begin("Time"):
            if imgui.button("resume" if s.paused else "pause"):
                s.toggle_pause()
            imgui.same_line()
            if imgui.button("step"):
                s.request_single_step()
            imgui.same_line()
            if imgui.button("reset car"):
                s.request_reset()
            imgui.text(f"t = {s.sim.time:.3f} s   speed scale {s.time_scale:g}x")
            for i, scale in enumerate(s.SLOW_MOTION):
                if i:
                    imgui.same_line()
                if imgui.radio_button(f"{scale:g}x", s.slow_index == i):
                    s.slow_index = i
            n = len(s.rewind)
            if n > 1:
                dt = s.sim.dt
                imgui.set_next_item_width(-imgui.calc_text_size("rewind (s)").x - 12.0)
                changed, back_s = imgui.slider_float("rewind (s)", -s.scrub * dt, -(n - 1) * dt, 0.0, "%.2f")
                if changed:
                    s.scrub_to(int(round(-back_s / dt)))
                if s.scrub:
                    if imgui.button("drive from here"):
                        s.resume_from_scrub()
                    imgui.same_line()
                    if imgui.button("branch replay"):
                        self.log_status = s.branch_replay() or "replaying the recorded inputs with the " \
                            "parameters now in use; the ghost is the original run"
                    if imgui.is_item_hovered():
                        imgui.set_tooltip("edit the car first (while rewound); then the recorded inputs drive it "
                                          "again from here, and a ghost shows the original run")
                    imgui.same_line()
                    imgui.text_disabled(f"(P) {s.scrub * dt:.2f} s back")
            gap = s.branch_gap()
            if gap is not None:
                d, dv, dyaw = gap
                text_wrapped_colored(AMBER, f"vs the {s.reference.label} (the ghost): {d:.2f} m apart, speed "
                                            f"{dv * 3.6:+.1f} km/h, heading {math.degrees(dyaw):+.1f} deg")
            self.log_controls()
        imgui.end()

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
            imgui.same_line()
            if imgui.button("save recording"):
                self.log_status = self.save_log(recorded, "recording")
        imgui.same_line()
        if imgui.button("save rewind buffer") and len(s.rewind):
            self.log_status = self.save_log(s.rewind_log(), "rewind")
        if imgui.is_item_hovered():
            imgui.set_tooltip(f"the last {len(s.rewind) * s.sim.dt:.0f} s, every physics step, as CSV")
        if self.log_status:
            text_wrapped_colored(GREY, self.log_status)

    def save_log(self, log, kind: str) -> str:
        """Write `log` as CSV into the data folder's logs/; returns what happened, for the panel."""
        path = data_dir() / "logs" / time.strftime(f"{kind}-%Y%m%d-%H%M%S.csv")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            log.write_csv(path)
        except OSError as exc:
            return f"{path}: cannot write the log: {exc.strerror or exc}"
        return f"saved {len(log)} rows: {path}"

    def plots_panel(self, w, h):
        if self.begin("Plots"):
            if imgui.begin_tab_bar("plots"):
                for name, body in (("Channels", self.channel_plots), ("Tires", self.tire_plots),
                                   ("g-g", self.gg_plot), ("Steer vs lateral g", self.steer_plot)):
                    flags = imgui.TabItemFlags_.set_selected if self.plot_tab_request == name else 0
                    if imgui.begin_tab_item(name, None, flags)[0]:
                        body()
                        imgui.end_tab_item()
                self.plot_tab_request = None
                imgui.end_tab_bar()
        imgui.end()

    def window_of_history(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(t, values) of the last plot_seconds up to the newest sample; worked out once per build of the
        overlay (the y range and the line both ask)."""
        h = self.history
        key = (name, self.plot_seconds)
        hit = self._windows.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        t_all = h.times()
        out = h.series(name, float(t_all[-1]) - self.plot_seconds) if len(t_all) else h.series(name)
        self._windows[name] = (key, out)
        return out

    def channel_plots(self):
        """The chosen channels against time, one subplot per unit with linked time axes, the legends
        outside, and a cursor at the time on show when paused or rewound."""
        imgui.set_next_item_width(90)
        _, self.plot_seconds = imgui.slider_float("s shown", self.plot_seconds, 1.0, 20.0, "%.0f")
        imgui.same_line()
        if imgui.button("channels..."):
            imgui.open_popup("channels")
        if imgui.begin_popup("channels"):
            for name, (unit, _, what) in CHANNELS.items():
                _, self.channels[name] = imgui.checkbox(f"{name} ({unit})", self.channels[name])
                if imgui.is_item_hovered():
                    imgui.set_tooltip(what)
            imgui.end_popup()
        chosen = [n for n, on in self.channels.items() if on]
        imgui.same_line()
        imgui.text_disabled(", ".join(chosen) if chosen else "no channel chosen")
        units = list(dict.fromkeys(CHANNELS[n][0] for n in chosen))
        if not units:
            return
        s = self.session
        cursor = s.sim.time if (s.paused or s.scrub) else None
        t_all = self.history.times()
        t1 = float(t_all[-1]) if len(t_all) else 0.0
        flags = implot.SubplotFlags_.link_all_x | implot.SubplotFlags_.no_title
        # at least MIN_PLOT_ROW px a unit: more units than fit scroll
        avail = imgui.get_content_region_avail()
        height = max(avail.y, MIN_PLOT_ROW * len(units))
        if height > avail.y:
            imgui.begin_child("##channel rows", (0, 0))
        if implot.begin_subplots("##channels", len(units), 1, (-1, height), flags):
            buckets = max(16, int(imgui.get_content_region_avail().x))
            for unit in units:
                if implot.begin_plot(f"##{unit}"):
                    last = unit == units[-1]
                    lo, hi = self.channel_range(chosen, unit)
                    implot.setup_axes("", "ratio" if unit == "-" else unit,
                                      0 if last else implot.AxisFlags_.no_tick_labels, 0)
                    implot.setup_axis_limits(implot.ImAxis_.y1, lo, hi, implot.Cond_.always)
                    implot.setup_axis_limits(implot.ImAxis_.x1, t1 - self.plot_seconds, t1, implot.Cond_.always)
                    implot.setup_legend(implot.Location_.north_east, implot.LegendFlags_.outside)
                    for name in chosen:
                        if CHANNELS[name][0] != unit:
                            continue
                        t, v = self.window_of_history(name)
                        if len(t) < 2:
                            continue
                        for j in range(v.shape[1]):
                            label = name if v.shape[1] == 1 else f"{name} {sim.WHEEL_NAMES[j]}"
                            implot.plot_line(label, *decimate(t, v[:, j], buckets))
                    for comp in s.companions:                 # compare mode: each variant in its colour
                        hist = self.companion_histories.get(comp.label)
                        if hist is None:
                            continue
                        spec = implot.Spec()
                        spec.line_color = imgui.ImVec4(*comp.color, 1.0)
                        for name in chosen:
                            if CHANNELS[name][0] != unit:
                                continue
                            t, v = hist.series(name, t1 - self.plot_seconds)
                            keep = t >= t1 - self.plot_seconds if len(t) else t
                            if len(t) < 2 or keep.sum() < 2:
                                continue
                            for j in range(v.shape[1]):
                                label = name if v.shape[1] == 1 else f"{name} {sim.WHEEL_NAMES[j]}"
                                implot.plot_line(f"{label}, {comp.label}", *decimate(t[keep], v[keep, j], buckets),
                                                 spec=spec)
                    ref = getattr(s, "reference", None)
                    if ref is not None and ref.log is not None:
                        # a watched test drive's other run (its log): every chosen channel
                        t_ref, window = self.reference_window(ref, t1)
                        for name in chosen:
                            v = self.reference_channel(ref, name) if CHANNELS[name][0] == unit else None
                            if v is None or window.sum() < 2:
                                continue
                            for j in range(v.shape[1]):
                                label = name if v.shape[1] == 1 else f"{name} {sim.WHEEL_NAMES[j]}"
                                implot.plot_line(f"{label}, {ref.label}", *decimate(t_ref[window], v[window, j],
                                                                                     buckets))
                    elif ref is not None and ref.forward and unit == "km/h" and "speed" in chosen:
                        # a branch replay's original run, for before/after
                        implot.plot_line(f"speed, {ref.label}", ref.times(), np.asarray(ref.forward) * sim.KMH)
                    if cursor is not None:
                        implot.plot_inf_lines("##now", np.array([cursor]))
                    implot.end_plot()
            implot.end_subplots()
        if height > avail.y:
            imgui.end_child()

    def reference_channel(self, ref, name: str) -> np.ndarray | None:
        """Channel `name` of the reference run's log (read once per reference)."""
        if self._ref_channels[0] is not ref:
            self._ref_channels = (ref, {"time": ref.log.column("time")})
        cache = self._ref_channels[1]
        if name not in cache:
            cache[name] = log_channel(ref.log, name)
        return cache[name]

    def reference_window(self, ref, t1: float) -> tuple[np.ndarray, np.ndarray]:
        """(the reference run's times, which of them the plots show now)."""
        self.reference_channel(ref, "speed")
        t_ref = self._ref_channels[1]["time"]
        return t_ref, (t_ref >= t1 - self.plot_seconds) & (t_ref <= t1)

    def channel_range(self, chosen: list[str], unit: str) -> tuple[float, float]:
        """The y range of one unit's subplot: the data's (the reference run's too), but never narrower than
        MIN_SPAN of that unit, so numerical noise at rest draws as a flat line and not as a wild trace."""
        lo, hi = math.inf, -math.inf
        ref = getattr(self.session, "reference", None)
        t_all = self.history.times()
        window = self.reference_window(ref, float(t_all[-1]) if len(t_all) else 0.0)[1] \
            if ref is not None and ref.log is not None else None
        for name in chosen:
            if CHANNELS[name][0] == unit:
                _, v = self.window_of_history(name)
                if len(v) and np.isfinite(v).any():
                    lo, hi = min(lo, float(np.nanmin(v))), max(hi, float(np.nanmax(v)))
                r = self.reference_channel(ref, name) if window is not None and window.any() else None
                if r is not None and np.isfinite(r[window]).any():
                    lo, hi = min(lo, float(np.nanmin(r[window]))), max(hi, float(np.nanmax(r[window])))
        if not math.isfinite(lo):
            lo, hi = 0.0, 0.0
        span = max(hi - lo, MIN_SPAN.get(unit, 1.0))
        mid = 0.5 * (lo + hi)
        return mid - 0.55 * span, mid + 0.55 * span

    def tire_curve_cached(self, i: int, lateral: bool, span: float) -> tuple[np.ndarray, np.ndarray]:
        """Wheel i's tire curve at its current load and mu (load to 1 %), over +-span."""
        s = self.session.sim
        tel = s.telemetry
        fz, mu = float(tel.Fz[i]), float(tel.mu[i])
        key = (s.vehicle.front_tire if i < 2 else s.vehicle.rear_tire, lateral, span, round(math.log(fz) * 100),
               round(mu, 3))
        if key not in self._curves:
            if len(self._curves) > 256:
                self._curves.clear()
            slips = np.linspace(-span, span, 81)
            self._curves[key] = (np.degrees(slips) if lateral else slips, tire_curve(key[0], mu, fz, slips, lateral))
        return self._curves[key]

    def tire_plots(self):
        """Fx against kappa and Fy against alpha over their whole range, one curve per wheel at its own load,
        with each wheel's operating point (the limited force at its slip)."""
        tel = self.session.sim.telemetry
        loaded = [i for i in range(4) if tel.Fz[i] > 1.0 and tel.mu[i] > 0.0]
        if not loaded:
            imgui.text_disabled("no wheel has load: no curves")
            return
        kappa_span = max(1.0, 1.1 * float(np.max(np.abs(tel.kappa))))
        alpha_span = max(math.radians(25.0), 1.1 * float(np.max(np.abs(tel.alpha))))
        if implot.begin_subplots("##tires", 1, 2, (-1, -1), implot.SubplotFlags_.no_title):
            for lateral, ylabel, xlabel, span in ((False, "Fx (N)", "kappa", kappa_span),
                                                  (True, "Fy (N)", "alpha (deg)", alpha_span)):
                if implot.begin_plot(f"##{ylabel}"):
                    implot.setup_axes(xlabel, ylabel, implot.AxisFlags_.auto_fit, implot.AxisFlags_.auto_fit)
                    implot.setup_legend(implot.Location_.north_east, implot.LegendFlags_.outside)
                    for i in loaded:
                        xs, force = self.tire_curve_cached(i, lateral, span)
                        implot.plot_line(sim.WHEEL_NAMES[i], np.ascontiguousarray(xs), force)
                        color = implot.get_last_item_color()
                        # the wheel's operating point in its curve's colour, with no legend entry of its own
                        slip = math.degrees(tel.alpha[i]) if lateral else float(tel.kappa[i])
                        implot.plot_scatter(f"##{sim.WHEEL_NAMES[i]} now", np.array([slip]),
                                            np.array([float(tel.Fy[i] if lateral else tel.Fx[i])]),
                                            spec=implot.Spec(marker=implot.Marker_.circle, marker_size=5,
                                                             marker_fill_color=color, marker_line_color=color,
                                                             flags=implot.ItemFlags_.no_legend))
                    implot.end_plot()
            implot.end_subplots()

    def gg_plot(self):
        """Lateral against longitudinal acceleration (g) over the plotted seconds: the car's friction circle
        as driven, with the tires' peak mu for reference."""
        _, ax = self.window_of_history("a long")
        _, ay = self.window_of_history("a lat")
        car = self.session.sim.vehicle
        mu = max(car.front_tire.grip, car.rear_tire.grip)
        avail = imgui.get_content_region_avail()
        side = max(120.0, min(avail.x - 90.0, avail.y))         # square (the legend beside), so the circle is round
        if implot.begin_plot("##gg", (side, side)):
            implot.setup_axes("lateral g (+ left)", "long. g (+ fwd)")
            implot.setup_legend(implot.Location_.north_east, implot.LegendFlags_.outside)
            reach = 1.25 * max(mu, float(np.nanmax(np.abs(ax))) if len(ax) else 0.0,
                               float(np.nanmax(np.abs(ay))) if len(ay) else 0.0)
            implot.setup_axis_limits(implot.ImAxis_.x1, -reach, reach, implot.Cond_.always)
            implot.setup_axis_limits(implot.ImAxis_.y1, -reach, reach, implot.Cond_.always)
            ax, ay = thin(ax), thin(ay)
            ring = np.linspace(0.0, 2.0 * math.pi, 73)
            implot.plot_line(f"mu {mu:.2f}", mu * np.cos(ring), mu * np.sin(ring))
            if len(ax):
                implot.plot_scatter("driven", np.ascontiguousarray(ay[:, 0]), np.ascontiguousarray(ax[:, 0]),
                                    spec=implot.Spec(marker=implot.Marker_.circle, marker_size=2))
                implot.plot_scatter("now", np.array([ay[-1, 0]]), np.array([ax[-1, 0]]))
            implot.end_plot()

    def steer_plot(self):
        """The front wheels' steering angle against lateral acceleration over the plotted seconds, with the
        kinematic angle L a_y / v^2 at the current speed: above that line the car understeers."""
        _, steer = self.window_of_history("steer")
        _, ay = self.window_of_history("a lat")
        _, speed = self.window_of_history("speed")
        if implot.begin_plot("##steer", (-1, -1)):
            implot.setup_axes("lateral g (+ left)", "steer (deg)", implot.AxisFlags_.auto_fit,
                              implot.AxisFlags_.auto_fit)
            if len(steer):
                implot.plot_scatter("driven", np.ascontiguousarray(thin(ay)[:, 0]),
                                    np.ascontiguousarray(thin(steer)[:, 0]),
                                    spec=implot.Spec(marker=implot.Marker_.circle, marker_size=2))
                v = abs(float(speed[-1, 0])) / sim.KMH
                if v > 3.0:
                    span = max(0.2, float(np.nanmax(np.abs(ay[:, 0]))))
                    g_line = np.array([-span, span])
                    kin = np.degrees(self.session.sim.vehicle.wheelbase * g_line * G / (v * v))
                    implot.plot_line(f"kinematic at {v * sim.KMH:.0f} km/h", g_line, kin)
            implot.end_plot()

    def wheel_colors(self) -> list[tuple[float, float, float]]:
        """The grip state of each wheel as a tint for the 3D wheels."""
        out = []
        for w_ in self.shown():
            c = STATE_COLORS[w_.state]
            out.append((0.4 + 0.6 * c[0], 0.4 + 0.6 * c[1], 0.4 + 0.6 * c[2]))
        return out
