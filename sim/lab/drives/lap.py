"""The lap drive (`contactpatch test lap --world circuit`, issue 31 item 4): the limit-seeking driver model
(sim/lab/lap_driver.py) laps a circuit, learning the car's limit lap by lap; figures of its best lap.

The cars start from rest on the racing line START metres past the start/finish line, drive an out lap
(the driver learns from it as from a timed lap), then `laps` timed laps (sim/timing.py's LapTimer, one
per car), and end. Figures:
the best valid lap (nan if none was valid), the first lap, the sector times of the best lap, its top and
lowest speed, and per wheel the time in the best lap that wheel spent at its limit (|F| >= 0.98 mu Fz).
"""
from __future__ import annotations

import math

import numpy as np

from sim.lab.drives.batch import Batch
from sim.lab.drives.batch import batched
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.lab.lap_driver import LapDriver
from sim.lab.laps import grip_use
from sim.lab.logs import TelemetryLog
from sim.lab.racing_line import Envelope
from sim.lab.racing_line import racing_line
from sim.model.checks import with_value
from sim.model.geometry import spawn_height
from sim.model.params import Vehicle
from sim.model.world import World
from sim.model.world import load_world
from sim.timing import LapTimer

START = 20.0           # m past the start/finish line the cars start from rest (an out lap before the timed laps)
MARGIN = 1.5           # m: the racing line keeps the car's centre this far inside each edge of the road
LIMIT_USE = 0.98       # |F| / (mu Fz) from which a wheel counts as at its limit
TRACK_ESP_THRESHOLD = 0.15   # rad/s: the yaw-rate error stability control lets pass on the lap, its "sport" mode
#                              (a car's own is about 0.035; the lap's driver turns it up as drivers on a track do:
#                              at the road setting it braked the inner rear through every long bend, docs/driver.md)


def track_mode(car: Vehicle) -> Vehicle:
    """`car` with stability control in its sport mode: brakes.esp_threshold at least TRACK_ESP_THRESHOLD."""
    if car.brakes.esp_threshold >= TRACK_ESP_THRESHOLD:
        return car
    return with_value(car, "brakes.esp_threshold", TRACK_ESP_THRESHOLD)


def world_of(world: World | str) -> World:
    w = load_world(world) if isinstance(world, str) else world
    if w.track is None:
        from sim.model.files import ConfigError
        raise ConfigError(f"world {w.name!r} has no [track]; the lap drive needs a circuit (e.g. --world circuit)")
    return w


def lap_batch(cars: list[Vehicle], world: World | str = "circuit", laps: int = 4, margin: float = MARGIN,
              road_mu: float | None = None):
    """Drive `cars` `laps` timed laps of `world`'s circuit, stability control in its sport mode (track_mode):
    (the batch, its driver, each car's LapTimer)."""
    cars = [track_mode(c) for c in cars]
    w = world_of(world)
    track = w.track
    line = racing_line(track, margin)
    mu = road_mu if road_mu is not None else w.surfaces[w.surface_index[track.surfaces.get("road", "asphalt")]].mu
    driver = LapDriver(line, cars, Envelope.of(cars, mu))
    s0 = START
    x, y = float(line.at(s0, "x")), float(line.at(s0, "y"))
    yaw = float(line.at(s0, "heading"))
    v0 = 0.0
    expected = (laps + 1) * line.length / 15.0 + 30.0              # s: the longest the drive may take
    b = Batch(cars, w, speed=0.0, steps=int(expected / 0.004))

    def ground(px, py):
        hit = w.ray_cast((px, py, 100.0), (0.0, 0.0, -1.0), 200.0)
        return float(hit.P[2])
    b.sim.reset(position=[(x, y, spawn_height(c, x, y, yaw, ground)) for c in cars], yaw=yaw, speed=v0,
                gear=1)
    on = [w.surface_index[n] for n in track.on_track_surfaces]
    timers = [LapTimer(track, on) for _ in cars]
    n = len(cars)
    steps = int(round(expected / b.sim.dt))
    for _ in range(steps):
        if not b.active.any():
            break
        b.step(driver.controls(b.sim))
        t = b.sim.time
        pos = np.asarray(b.sim.state.position, dtype=float).reshape(n, 3)
        surf = np.asarray(b.sim.telemetry.surface).reshape(n, 4)
        ended = np.zeros(n, dtype=bool)
        off = np.zeros(n, dtype=bool)
        times = np.full(n, math.nan)                   # s: the timed lap that ended (nan: the out lap, invalid)
        for i in range(n):
            if not b.active[i]:
                continue
            off[i] = not any(int(k) in timers[i].on_track for k in surf[i])
            for e in timers[i].update(t, pos[i], surf[i]):
                if e[0] == "lap" or (e[0] == "start" and not timers[i].laps):      # a lap, or the out lap, ended
                    ended[i] = True
                if e[0] == "lap" and e[1].valid:
                    times[i] = e[1].time
        driver.left_road(off)
        if ended.any():
            driver.learn(ended, times)
        b.finish(np.array([len(tm.laps) >= laps for tm in timers]))
    return b, driver, timers


def lap_log(log: TelemetryLog, lap_) -> TelemetryLog:
    """The rows of `log` from the step before timed lap `lap_` (sim.timing.Lap) began to the step after it
    ended: one lap's log, for sim.lab.laps.compare_laps."""
    t = log.column("time")
    first = max(0, int(np.searchsorted(t, lap_.start)) - 1)
    last = min(len(t), int(np.searchsorted(t, lap_.start + lap_.time)) + 1)
    return TelemetryLog.of_rows(log.array()[first:last])


@batched
def lap(cars: list[Vehicle], world: World | str = "circuit", laps: int = 4) -> list[Result]:
    """Laps of a circuit at the car's limit: a minimum-curvature racing line, the limit speed from the car's
    g-g envelope (forward and backward passes), tracked in closed loop and learnt over `laps` laps; the best
    lap's time, sectors, top and lowest speed and each wheel's time at its limit."""
    b, driver, timers = lap_batch(cars, world, laps)
    out = []
    for car, log, timer in zip(cars, b.logs(), timers):
        done = timer.laps
        best = timer.best()
        figs = [Figure("lap time", best.time if best else math.nan, "s"),
                Figure("first lap time", done[0].time if done else math.nan, "s"),
                Figure("valid laps", float(sum(lap_.valid for lap_ in done)), "-")]
        for k in range(3):
            figs.append(Figure(f"sector {k + 1}", best.sectors[k] if best and len(best.sectors) > k else math.nan, "s"))
        t = log.column("time")
        rows = (t >= best.start) & (t <= best.start + best.time) if best else np.zeros(len(t), dtype=bool)
        speed = log.column("speed")[rows]
        figs += [Figure("top speed", float(speed.max()) * 3.6 if rows.any() else math.nan, "km/h"),
                 Figure("lowest speed", float(speed.min()) * 3.6 if rows.any() else math.nan, "km/h")]
        dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
        for w in ("FL", "FR", "RL", "RR"):
            use = grip_use(log, w)[rows]
            figs.append(Figure(f"time at the limit {w}", float(np.sum(use >= LIMIT_USE)) * dt, "s"))
        r = Result("lap", car.name, figs, log)
        r.laps = done                                    # the timed laps (sim.timing.Lap), oldest first
        r.best = best                                    # the best valid lap (None without one)
        r.track = timer.track
        out.append(r)
    return out
