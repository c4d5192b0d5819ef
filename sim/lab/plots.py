"""PNG plots of the test drives' key channels (`contactpatch test --plot`; needs matplotlib)."""
from __future__ import annotations

import math
from pathlib import Path

from sim.lab.drives.results import Result
from sim.model.files import ConfigError

# the channels each drive's plot shows: (x channel, [(y channel, scale, label)])
PLOTS = {"settle": ("time", [("Fz FL", 1.0, "Fz FL (N)"), ("Fz RL", 1.0, "Fz RL (N)")]),
         "step-steer": ("time", [("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)"),
                                 ("a_lat", 1.0, "lateral acceleration (g)")]),
         "circle": ("a_lat", [("steer FL", 180.0 / math.pi, "FL road-wheel angle (deg)"),
                              ("roll", 180.0 / math.pi, "roll (deg)"), ("beta", 180.0 / math.pi, "body slip (deg)")]),
         "steady-circle": ("time", [("roll", 180.0 / math.pi, "roll (deg)"), ("a_lat", 1.0, "lateral g")]),
         "braking": ("time", [("speed", 3.6, "speed (km/h)"), ("kappa FL", 1.0, "kappa FL"),
                              ("a_long", 1.0, "longitudinal g")]),
         "braking-no-abs": ("time", [("speed", 3.6, "speed (km/h)"), ("kappa FL", 1.0, "kappa FL"),
                                     ("a_long", 1.0, "longitudinal g")]),
         "standing-start": ("time", [("speed", 3.6, "speed (km/h)"), ("rpm", 1.0, "engine (rpm)"),
                                     ("kappa RL", 1.0, "kappa RL")]),
         "coast-down": ("time", [("speed", 3.6, "speed (km/h)"), ("a_long", 1.0, "longitudinal g")]),
         "parked": ("time", [("x", 1000.0, "x (mm)"), ("y", 1000.0, "y (mm)")]),
         "drop": ("time", [("z", 1.0, "body height (m)"), ("Fz FL", 1.0, "Fz FL (N)")]),
         "sine-with-dwell": ("time", [("steer FL", 180.0 / math.pi, "road-wheel angle FL (deg)"),
                                      ("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)"),
                                      ("yaw_rate_ref", 180.0 / math.pi, "asked-for yaw rate (deg/s)"),
                                      ("esp_brake RR", 1.0, "ESP brake RR (N m)")]),
         "sine-with-dwell-no-esp": ("time", [("steer FL", 180.0 / math.pi, "road-wheel angle FL (deg)"),
                                      ("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)"),
                                      ("y", 1.0, "lateral position (m)")]),
         "lap": ("time", [("speed", 3.6, "speed (km/h)"), ("throttle", 1.0, "throttle"), ("brake", 1.0, "brake")]),
         "lane-change": ("x", [("y", 1.0, "lateral position (m)"), ("a_lat", 1.0, "lateral g"),
                               ("yaw_rate", 180.0 / math.pi, "yaw rate (deg/s)")])}


def plot(results: list[Result], path, labels: list[str] | None = None) -> None:
    """A PNG of the drive's key channels, one panel each, every result overlaid (before/after); needs
    matplotlib (pip install -e '.[plots]'), raises ConfigError without it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("--plot needs matplotlib: pip install -e '.[plots]'") from None
    name = results[0].name
    if name == "lap" and all(getattr(r, "best", None) is not None for r in results):
        return plot_laps(results, path, labels, plt)
    xname, ys = PLOTS.get(name, ("time", [("speed", 1.0, "speed (m/s)")]))
    fig, axes = plt.subplots(len(ys), 1, figsize=(8, 2.4 * len(ys)), sharex=True, squeeze=False)
    for r, label in zip(results, labels or [r.vehicle for r in results]):
        x = r.log.column(xname)
        for ax, (ch, k, ylabel) in zip(axes[:, 0], ys):
            ax.plot(x, r.log.column(ch) * k, label=label, linewidth=1.0)
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel({"time": "time (s)", "a_lat": "lateral acceleration (g)"}.get(xname, xname))
    axes[0, 0].set_title(f"{name}: " + ", ".join(f"{f.name} {f.value:.3g} {f.unit}" for f in results[-1].figures[:2]))
    if len(results) > 1:
        axes[0, 0].legend()
    fig.tight_layout()
    tmp = Path(path).with_name(f".{Path(path).stem}.cp-tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)


def plot_laps(results: list[Result], path, labels, plt) -> None:
    """The lap drive's best laps against distance (sim.lab.laps.compare_laps; the first result is the
    reference): the time delta, the speed, the pedals and the most grip any wheel used."""
    from sim.lab.drives.lap import lap_log
    from sim.lab.laps import compare_laps
    labels = labels or [r.vehicle for r in results]
    track = results[0].track
    ref = results[0]
    fig, axes = plt.subplots(4, 1, figsize=(9, 8.5), sharex=True)
    for r, label in zip(results, labels):
        lap_ = r.best
        c = compare_laps(track, (lap_log(ref.log, ref.best), ref.best.start, ref.best.time, labels[0]),
                         (lap_log(r.log, lap_), lap_.start, lap_.time, label))
        b, d = c.b, c.distance
        text = f"{label}: {lap_.time:.3f} s"
        axes[0].plot(d, c.delta, linewidth=1.0, label=text)
        axes[1].plot(d, b.channels["speed"], linewidth=1.0, label=label)
        axes[2].plot(d, b.channels["throttle"] - b.channels["brake"], linewidth=1.0, label=label)
        axes[3].plot(d, b.channels["grip use"].max(axis=1), linewidth=1.0, label=label)
    for ax, ylabel in zip(axes, (f"delta to {labels[0]} (s)", "speed (km/h)", "throttle - brake",
                                 "most grip used (|F| / mu Fz)")):
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    for s in track.sectors[1:]:
        for ax in axes:
            ax.axvline(s, color="0.5", linewidth=0.8, linestyle="--")
    axes[0].legend(loc="best")
    axes[0].set_title("lap: the best laps against distance (sector lines dashed)")
    axes[-1].set_xlabel("distance from the start/finish line (m)")
    fig.tight_layout()
    tmp = Path(path).with_name(f".{Path(path).stem}.cp-tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)
