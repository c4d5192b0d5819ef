"""The laps of the session's car on a circuit: sim.timing's LapTimer fed after every physics step, each lap
kept with the car setup it was driven with, the best lap's poses (the ghost car) and each lap's telemetry
log (for saving and for comparing laps).

A setup is a set of parameters: the first one the car laps with is setup 1, and every other set the car
laps with gets the next number, labelled by what differs from setup 1. The HUD (app/lap_hud.py) and the
Time panel's lap table (ui/panels/laps.py) read what is here.
"""
from __future__ import annotations

import dataclasses

import numpy as np

import sim
import sim.lab.logs
from render.interp import Pose

LOG_RATE = 60.0            # rows per second of a lap's telemetry log
KEEP_LOGS = 12             # the newest laps keep their logs (every setup's best lap keeps its own too)
POSE = 3 + 4 + 4 + 4 + 4   # floats per pose row: position, orientation, wheel l, steer, spin angle


def differences(a, b, prefix: str = "") -> list[tuple[str, object, object]]:
    """(path, a's value, b's value) of every parameter that differs between two parameter sets."""
    out = []
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        path = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(x) and dataclasses.is_dataclass(y):
            out += differences(x, y, path + ".")
        elif x != y:
            out.append((path, x, y))
    return out


def setup_label(index: int, car, first, name: str) -> str:
    """"1: hatchback", "2: front_suspension.k 40000, ...": setup `index` (from 0) by what differs from the first."""
    if index == 0:
        return f"1: {name}"
    diff = differences(first, car)
    shown = ", ".join(f"{p} {v:g}" if isinstance(v, float) else f"{p} {v}" for p, _, v in diff[:3])
    more = f" and {len(diff) - 3} more" if len(diff) > 3 else ""
    return f"{index + 1}: {shown or name}{more}"


class LapKeeper:
    """Times the session's car whenever its world is a circuit. `timer` (None elsewhere), `setups` (the
    parameter sets lapped with, by setup number - 1), `logs` (lap number -> TelemetryLog)."""

    def __init__(self, session):
        self.session = session
        session.laps = self
        session.on_step.append(self.after_step)
        session.on_jump.append(self.jump)
        session.on_truncate.append(lambda _time: self.jump())
        self.world = None
        self.timer: sim.LapTimer | None = None
        self.setups: list = []
        self.labels: list[str] = []
        self.logs: dict[int, sim.lab.logs.TelemetryLog] = {}
        self._log: sim.lab.logs.TelemetryLog | None = None
        self._poses: list[np.ndarray] = []
        self._times: list[float] = []
        self.ghost_lap: sim.Lap | None = None
        self._ghost: tuple[np.ndarray, np.ndarray] | None = None     # (lap times (K,), poses (K, POSE))
        self._car = None
        self._worlds: dict[int, tuple] = {}                           # the laps of a world the car left

    # -- the setup in use -----------------------------------------------------------------------------
    def setup_of(self, car) -> int:
        """The setup number - 1 of parameters `car` (a new one is added)."""
        if car is self._car:
            return self._setup
        k = next((k for k, known in enumerate(self.setups) if known is car or known == car), None)
        if k is None:
            self.setups.append(car)
            k = len(self.setups) - 1
            self.labels.append(setup_label(k, car, self.setups[0], self.session.vehicle_name))
        self._car, self._setup = car, k
        return k

    # -- after every step -----------------------------------------------------------------------------
    def after_step(self) -> None:
        s = self.session
        if s.world is not self.world:
            self.switch(s.world)
        timer = self.timer
        if timer is None:
            return
        car = s.sim
        timer.setup = self.setup_of(car.vehicle)
        for event in timer.update(car.time, car.state.position, car.telemetry.surface):
            if event[0] == "start":
                self._log = sim.lab.logs.TelemetryLog(every=max(1, round(1.0 / (car.dt * LOG_RATE))))
                self._poses, self._times = [], []
            elif event[0] == "lap":
                self.finished(event[1])
        if timer.current is None:
            return
        self._times.append(car.time - timer.current.start)
        self._poses.append(pose_row(car))
        controls = None
        if (len(self._times) - 1) % self._log.every == 0:  # a step the log keeps a row of: its inputs too
            controls = sim.Controls.from_row(s.rewind.snaps[s.rewind.index(0)].controls[0])
        self._log.add(car, controls)

    def switch(self, world) -> None:
        """The session drives in another world (a watched test drive, and back): a circuit's laps are kept
        while the car is away and are there again when it comes back."""
        if self.world is not None:
            self._worlds[id(self.world)] = (self.world, self.timer, self.logs, self._ghost, self.ghost_lap)
        self.world = world
        kept = self._worlds.get(id(world))
        if kept is not None and kept[0] is world:
            _, self.timer, self.logs, self._ghost, self.ghost_lap = kept
        else:
            track = world.track
            self.timer = None if track is None else sim.LapTimer(
                track, [world.surface_index[n] for n in track.on_track_surfaces])
            self.logs, self._ghost, self.ghost_lap = {}, None, None
        if self.timer is not None:
            self.timer.jump()

    def finished(self, lap: sim.Lap) -> None:
        """A lap ended: keep its log (the newest KEEP_LOGS laps' and each setup's best's), and its poses when
        it is the best lap: the ghost of the laps to come."""
        self.logs[lap.number] = self._log
        keep = {lap_.number for lap_ in self.timer.laps[-KEEP_LOGS:]}
        keep |= {b.number for b in (self.timer.best(k) for k in range(len(self.setups))) if b is not None}
        for n in list(self.logs):
            if n not in keep:
                del self.logs[n]
        if lap.valid and self.timer.best() is lap:
            self.ghost_lap = lap
            self._ghost = (np.asarray(self._times), np.asarray(self._poses))

    def jump(self) -> None:
        """The state jumped (a reset, a teleport, a rewind): the lap in progress is not timed."""
        if self.timer is not None:
            self.timer.jump()
        self._poses, self._times, self._log = [], [], None

    # -- what is drawn ---------------------------------------------------------------------------------
    def ghost(self) -> Pose | None:
        """The best lap's car at the same time into its lap as the car is into this one (None without)."""
        timer = self.timer
        if self._ghost is None or timer is None or timer.current is None:
            return None
        times, poses = self._ghost
        into = timer.elapsed(self.session.sim.time)
        k = int(np.searchsorted(times, into))
        if k >= len(times):
            return None
        r = poses[k]
        return Pose(times[k], r[0:3], r[3:7], r[7:11], r[11:15], r[15:19], np.ones(4))

    def setup_names(self) -> list[str]:
        return self.labels


def pose_row(s) -> np.ndarray:
    """The drawable state of the car (vehicle 0), flat: position, orientation, suspension lengths, steer
    and spin angles."""
    st, tel = s.state, s.telemetry
    return np.concatenate([np.asarray(st.position, float), np.asarray(st.orientation, float), np.asarray(tel.l, float),
                           np.asarray(st.wheel_steer, float), np.asarray(st.wheel_angle, float)])

