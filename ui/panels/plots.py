"""The Plots panel: the chosen channels against time (the live car's, compare mode's variants' and a
reference run's), the tire curves with each wheel's operating point, the g-g diagram and steer against
lateral g. It reads the history the overlay keeps (ui/history.py)."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from imgui_bundle import imgui
from imgui_bundle import implot

import sim
from sim.diagnosis import tire_curve
from ui.history import CHANNELS
from ui.history import G
from ui.history import History
from ui.history import log_channel

MIN_SPAN = {"km/h": 2.0, "rpm": 200.0, "N": 200.0, "-": 0.02, "deg": 1.0, "deg/s": 2.0, "g": 0.05}
MIN_PLOT_ROW = 80.0       # px: the least height of one unit's plot


def thin(values: np.ndarray, most: int = 400) -> np.ndarray:
    """Every k-th sample, at most `most` of them: a scatter of thousands of markers costs a software
    renderer tens of milliseconds a frame, and 400 show the same cloud."""
    k = max(1, -(-len(values) // most))
    return values[::k]


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


class PlotsPanel:
    def __init__(self, session, begin: Callable[[str], bool], history: History,
                 companion_histories: dict[str, History]):
        self.session = session
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.history = history                # the car's plot channels, step by step
        self.companion_histories = companion_histories     # compare mode: each variant's plot channels
        self.channels = {name: name in ("speed", "kappa") for name in CHANNELS}    # the ones plotted
        self.tab_request: str | None = None   # a Plots tab to bring to the front
        self.seconds = 10.0                   # s shown of the history kept
        self.window_end: float | None = None  # the channels' window ends here (rewound further back than shown)
        self.channel_window = (0.0, 0.0)      # s: the channels' time axis in the last build
        self._windows: dict[str, tuple] = {}  # window_of_history's answers in this build
        self._ref_channels = (None, {})       # (reference run, its plot channels read from its log)
        self._curves: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}     # tire curves by (wheel, load, mu)
        # the g-g plot at its last drawing: its axes' limits (g: x min, x max, y min, y max) and its plot area (px)
        self.gg_limits: tuple[float, float, float, float] | None = None
        self.steer_limits: tuple[float, float, float, float] | None = None    # steer_plot's last axes
        self._gg_px = (2.0, 1.0)

    def draw(self, w: float, h: float) -> None:
        self._windows = {}
        if self.begin("Plots"):
            if imgui.begin_tab_bar("plots"):
                for name, body in (("Channels", self.channel_plots), ("Tires", self.tire_plots),
                                   ("g-g", self.gg_plot), ("Steer vs lateral g", self.steer_plot)):
                    flags = imgui.TabItemFlags_.set_selected if self.tab_request == name else 0
                    if imgui.begin_tab_item(name, None, flags)[0]:
                        body()
                        imgui.end_tab_item()
                self.tab_request = None
                imgui.end_tab_bar()
        imgui.end()

    def window_of_history(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(t, values) of the last `seconds` up to the newest sample (or `window_end`); worked out once per
        build of the overlay (the y range and the line both ask)."""
        h = self.history
        key = (name, self.seconds)
        hit = self._windows.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        t_all = h.times()
        if not len(t_all):
            out = h.series(name)
        else:
            end = float(t_all[-1]) if self.window_end is None else self.window_end
            key = (name, self.seconds, end)
            if hit is not None and hit[0] == key:
                return hit[1]
            t, v = h.series(name, end - self.seconds)
            out = (t, v) if self.window_end is None else (t[t <= end + 1e-9], v[t <= end + 1e-9])
        self._windows[name] = (key, out)
        return out

    def channel_plots(self):
        """The chosen channels against time, one subplot per unit with linked time axes, the legends
        outside, and a cursor at the time on show when paused or rewound."""
        imgui.set_next_item_width(90)
        _, self.seconds = imgui.slider_float("s shown", self.seconds, 1.0, 20.0, "%.0f")
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
        if cursor is not None and cursor < t1 - self.seconds:   # rewound further back than shown: the window
            t1 = self.window_end = cursor + 0.5 * self.seconds   # follows, the cursor in its middle
        self.channel_window = (t1 - self.seconds, t1)
        try:
            self.draw_channels(chosen, units, cursor, t1)
        finally:
            self.window_end = None

    def draw_channels(self, chosen: list[str], units: list[str], cursor: float | None, t1: float) -> None:
        """The subplots of channel_plots, their time axis ending at t1."""
        s = self.session
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
                    implot.setup_axis_limits(implot.ImAxis_.x1, t1 - self.seconds, t1, implot.Cond_.always)
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
                            t, v = hist.series(name, t1 - self.seconds)
                            keep = t >= t1 - self.seconds if len(t) else t
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
        return t_ref, (t_ref >= t1 - self.seconds) & (t_ref <= t1)

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
        as driven, with the tires' peak mu for reference. Equal axes (ImPlot keeps one g the same number of
        pixels across and up), so the mu circle is a circle whatever the panel's shape."""
        _, ax = self.window_of_history("a long")
        _, ay = self.window_of_history("a lat")
        car = self.session.sim.vehicle
        mu = max(car.front_tire.grip, car.rear_tire.grip)
        if implot.begin_plot("##gg", (-1, -1), implot.Flags_.equal):
            implot.setup_axes("lateral g (+ left)", "long. g (+ fwd)")
            implot.setup_legend(implot.Location_.north_east, implot.LegendFlags_.outside)
            reach = 1.25 * max(mu, float(np.nanmax(np.abs(ax))) if len(ax) else 0.0,
                               float(np.nanmax(np.abs(ay))) if len(ay) else 0.0)
            # ImPlot's equal axes give y the g per pixel of an x range set this frame (a locked y would stop
            # it): x spans +-reach, or more in a plot wider than high (last drawing's size), so that the shorter
            # side spans at least +-reach; y starts centred on 0 and keeps its centre
            pw, ph = self._gg_px
            implot.setup_axis_limits(implot.ImAxis_.x1, -reach * max(1.0, pw / ph), reach * max(1.0, pw / ph),
                                     implot.Cond_.always)
            implot.setup_axis_limits(implot.ImAxis_.y1, -reach, reach, implot.Cond_.once)
            ax, ay = thin(ax), thin(ay)
            ring = np.linspace(0.0, 2.0 * math.pi, 73)
            implot.plot_line(f"mu {mu:.2f}", mu * np.cos(ring), mu * np.sin(ring))
            if len(ax):
                implot.plot_scatter("driven", np.ascontiguousarray(ay[:, 0]), np.ascontiguousarray(ax[:, 0]),
                                    spec=implot.Spec(marker=implot.Marker_.circle, marker_size=2))
                implot.plot_scatter("now", np.array([ay[-1, 0]]), np.array([ax[-1, 0]]))
            limits, px = implot.get_plot_limits(), implot.get_plot_size()
            self._gg_px = (max(px.x, 1.0), max(px.y, 1.0))
            self.gg_limits = (limits.x.min, limits.x.max, limits.y.min, limits.y.max)
            implot.end_plot()

    def steer_plot(self):
        """The front wheels' steering angle against lateral acceleration over the plotted seconds, with the
        kinematic angle L a_y / v^2 at the current speed: above that line the car understeers."""
        _, steer = self.window_of_history("steer")
        _, ay = self.window_of_history("a lat")
        _, speed = self.window_of_history("speed")
        if implot.begin_plot("##steer", (-1, -1)):
            implot.setup_axes("lateral g (+ left)", "steer (deg)")
            # limits of at least +-0.2 g and +-0.5 deg: a car at rest fitted its rounding noise (1e-17 g)
            span = max(0.2, float(np.nanmax(np.abs(ay[:, 0])))) if len(ay) else 0.2
            v = abs(float(speed[-1, 0])) / sim.KMH if len(speed) else 0.0
            g_line = np.array([-span, span])
            kin = np.degrees(self.session.sim.vehicle.wheelbase * g_line * G / (v * v)) if v > 3.0 else None
            reach = max([0.5, float(np.nanmax(np.abs(steer[:, 0]))) if len(steer) else 0.0] +
                        ([float(abs(kin[0]))] if kin is not None else []))
            implot.setup_axis_limits(implot.ImAxis_.x1, -1.05 * span, 1.05 * span, implot.Cond_.always)
            implot.setup_axis_limits(implot.ImAxis_.y1, -1.1 * reach, 1.1 * reach, implot.Cond_.always)
            if len(steer):
                implot.plot_scatter("driven", np.ascontiguousarray(thin(ay)[:, 0]),
                                    np.ascontiguousarray(thin(steer)[:, 0]),
                                    spec=implot.Spec(marker=implot.Marker_.circle, marker_size=2))
                if kin is not None:
                    implot.plot_line(f"kinematic at {v * sim.KMH:.0f} km/h", g_line, kin)
            limits = implot.get_plot_limits()
            self.steer_limits = (limits.x.min, limits.x.max, limits.y.min, limits.y.max)
            implot.end_plot()
