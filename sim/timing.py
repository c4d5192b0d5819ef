"""Lap timing on a circuit (docs/track.md): line crossings interpolated within a physics step, laps and
sector splits, laps invalidated by cutting the track, the best lap and the live delta to it.

Pure: fed the simulated time, the car's position and the surface under each wheel after every step; it
reads no clock and draws nothing. Lines: the start/finish line at station 0 and one line where each
further sector starts, each straight across the track, perpendicular to the centre line there.

A crossing between two steps: with c the line's centre and t the track's direction there, the signed
distances of the car's centre of mass before and after the step are d0 = (p0 - c).t and d1 = (p1 - c).t;
it crossed forwards when d0 < 0 <= d1, at the fraction f = d0 / (d0 - d1) of the step, so at

    t_cross = t0 + f (t1 - t0)

(linear motion within the step: the error is of order a h^2 / 8 / v, 0.1 us at 1 g, 1/240 s and 30 m/s).
It counts only when the car's station is within LINE_WINDOW of the line's (a stretch of track that passes
near the line's extension does not cross it). A lap runs from one forward crossing of the start/finish line
to the next with every sector line crossed in order between; crossing a line backwards takes its split
back; a jump of the state (a reset, a rewind) ends the lap in progress untimed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.model.track import Track

LINE_WINDOW = 30.0        # m of station either side of a line within which a crossing counts
STEP_WINDOW = 12.0        # m either side of the last station searched for the car's station after a step


@dataclass
class Lap:
    """One timed lap: its number in the session, the setup it was driven with (the caller's key), the time
    its start line was crossed, its sector times (s) and lap time (s, nan while it runs), whether it counts
    (`valid`) and why not, and its trace: lap distance (m) and lap time (s) at every step."""
    number: int
    setup: object
    start: float
    sectors: list[float] = field(default_factory=list)
    time: float = math.nan
    valid: bool = True
    why: str = ""
    distance: list[float] = field(default_factory=list, repr=False)
    elapsed: list[float] = field(default_factory=list, repr=False)

    def invalidate(self, why: str) -> None:
        if self.valid:
            self.valid, self.why = False, why

    def reference(self) -> tuple[np.ndarray, np.ndarray]:
        """(distance (m), lap time (s)), the distance made non-decreasing (a car that rolls back a little
        does not make time run backwards), from 0 s at 0 m to the lap time at the lap's length."""
        cached = self.__dict__.get("_reference")
        if cached is not None and cached[0] == len(self.distance):
            return cached[1]
        d = np.maximum.accumulate(np.asarray(self.distance, dtype=float))
        out = np.concatenate([[0.0], d]), np.concatenate([[0.0], np.asarray(self.elapsed, dtype=float)])
        self._reference = (len(self.distance), out)          # a finished lap's is read every frame
        return out


class LapTimer:
    """Times the laps of one car on `track`. `on_track`: the surface indices that are track (the road and the
    kerbs); a step with no wheel on any of them cuts the track and invalidates the lap. `setup` is the caller's
    key of the car setup in use (compared with ==): a lap whose setup changes before it ends does not count."""

    def __init__(self, track: Track, on_track, setup: object = None):
        self.track = track
        self.on_track = frozenset(int(i) for i in on_track)
        self.setup = setup
        # each line's centre (x, y) and the track's direction there, as plain floats (they are read every step)
        self.lines = [(float(c[0]), float(c[1]), float(d[0]), float(d[1]))
                      for c, d in (track.line(s) for s in track.sectors)]
        self.laps: list[Lap] = []              # completed laps, oldest first
        self.current: Lap | None = None        # the lap being driven (None: not timed, e.g. the out lap)
        self.next_line = 0                     # the line the lap in progress crosses next (0: the finish)
        self._p: tuple | None = None           # the last step's position (x, y) and time
        self._t = 0.0
        self.station: float | None = None      # the car's station at the last step (m)

    # -- what the panels show ---------------------------------------------------------------------------
    @property
    def last(self) -> Lap | None:
        return self.laps[-1] if self.laps else None

    def best(self, setup: object = ...) -> Lap | None:
        """The fastest valid lap (of `setup` when given)."""
        ok = [lap for lap in self.laps if lap.valid and (setup is ... or lap.setup == setup)]
        return min(ok, key=lambda lap: lap.time) if ok else None

    def elapsed(self, time: float) -> float:
        """Time (s) into the lap in progress at simulated `time` (nan without one)."""
        return time - self.current.start if self.current is not None else math.nan

    def lap_distance(self) -> float:
        """Distance (m) along the centre line from the start/finish line to the car, at the last step."""
        return math.nan if self.station is None else self.station % self.track.length

    def delta(self, time: float) -> float:
        """The live delta (s): time into the lap in progress minus the best lap's time at the same lap
        distance; negative is ahead. nan without both a lap in progress and a best lap."""
        best = self.best()
        if self.current is None or best is None or not self.current.distance:
            return math.nan
        d, t = best.reference()
        return self.elapsed(time) - float(np.interp(self.current.distance[-1], d, t))

    # -- feeding it -------------------------------------------------------------------------------------
    def jump(self) -> None:
        """The car's state jumped (a reset, a teleport, a rewind): the lap in progress ends untimed."""
        self.current = None
        self.next_line = 0
        self._p = None
        self.station = None

    def update(self, time: float, position, surfaces=None) -> list[tuple]:
        """After a physics step at simulated `time` (s): the car's centre of mass `position` (x, y[, z]) and the
        surface index under each wheel (-1 airborne). Returns what happened, in order: ("sector", lap, k)
        when sector k (0-based) of `lap` was completed, ("lap", lap) when a lap was, ("start", lap) when one
        began."""
        p = (float(position[0]), float(position[1]))
        if self.station is None:
            self.station, _, _ = self.track.project(np.array(p))
        else:                                   # a step moves a car far less than the window
            self.station, _, _ = self.track.follow(p[0], p[1], self.station, STEP_WINDOW)
        events = []
        if self._p is not None:
            events = self._crossings(self._p, self._t, p, time)
        lap = self.current
        if lap is not None:
            if surfaces is not None and not any(int(w) in self.on_track for w in surfaces):
                lap.invalidate(f"cut the track at {self.lap_distance():.0f} m (sector "
                               f"{int(self.track.sector_of(self.station)) + 1})")
            if lap.setup != self.setup:
                lap.invalidate("the setup changed during the lap")
            d = self.lap_distance()
            if d > 0.75 * self.track.length and (not lap.distance or lap.distance[-1] < 0.25 * self.track.length):
                d = 0.0                     # just after the start, a hair behind the line's station
            lap.distance.append(d)
            lap.elapsed.append(time - lap.start)
        self._p, self._t = p, time
        return events

    def _crossings(self, p0, t0: float, p1, t1: float) -> list[tuple]:
        events = []
        for k, (cx, cy, tx, ty) in enumerate(self.lines):
            d0 = (p0[0] - cx) * tx + (p0[1] - cy) * ty
            d1 = (p1[0] - cx) * tx + (p1[1] - cy) * ty
            ahead = (self.station - self.track.sectors[k] + self.track.length / 2) % self.track.length \
                - self.track.length / 2
            if abs(ahead) > LINE_WINDOW or d0 == d1:
                continue
            f = d0 / (d0 - d1)
            when = t0 + f * (t1 - t0)
            if d0 < 0.0 <= d1:
                events += self._forward(k, when)
            elif d1 < 0.0 <= d0:
                self._backward(k)
        return events

    def _forward(self, k: int, when: float) -> list[tuple]:
        """Line k crossed forwards at `when`: the next split of the lap in progress (the finish ends it and
        starts the next), or, for the start/finish line out of turn (the out lap, a shortcut), a new lap."""
        lap, n = self.current, len(self.lines)
        events = []
        if lap is not None and k == self.next_line:
            lap.sectors.append(when - lap.start - sum(lap.sectors))
            events.append(("sector", lap, len(lap.sectors) - 1))
            if k != 0:
                self.next_line = (k + 1) % n
                return events
            lap.time = when - lap.start
            lap.distance.append(self.track.length)
            lap.elapsed.append(lap.time)
            self.laps.append(lap)
            events.append(("lap", lap))
        elif k != 0:
            return events
        self.current = Lap(len(self.laps) + 1, self.setup, when)
        self.next_line = 1 % n
        events.append(("start", self.current))
        return events

    def _backward(self, k: int) -> None:
        """Line k crossed backwards: the split it gave is taken back (just after the start: no lap)."""
        lap = self.current
        if lap is None:
            return
        if k == 0 and not lap.sectors:
            self.current = None
            self.next_line = 0
        elif lap.sectors and (self.next_line - 1) % len(self.lines) == k:
            lap.sectors.pop()
            self.next_line = k
