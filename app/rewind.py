"""The rewind's history: the last seconds of a simulation, one snapshot per physics step, in a ring that the
session scrubs through, branches from and cuts when the driving goes on from an earlier state.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import sim
import sim.lab.logs
from render.interp import Pose
from render.interp import capture


class Rewind:
    """The last `seconds` of the simulation, one snapshot per physics step (state, controls and the
    telemetry to show), in a ring."""

    def __init__(self, s: sim.Simulation, seconds: float = 30.0):
        self.cap = int(round(seconds / s.dt))
        self.dt = s.dt            # s: one step
        self.snaps: list[sim.Snapshot | None] = [None] * self.cap
        self.count = 0            # entries written since the last truncate (all of them if < cap)
        self.head = 0             # where the next one goes

    def push(self, s: sim.Simulation) -> None:
        self.snaps[self.head] = s.snapshot(telemetry=True)
        self.head = (self.head + 1) % self.cap
        self.count = min(self.count + 1, self.cap)

    def __len__(self) -> int:
        return self.count

    def index(self, back: int) -> int:
        """Ring slot of the entry `back` steps before the newest (0 = newest)."""
        return (self.head - 1 - back) % self.cap

    def restore(self, s: sim.Simulation, back: int) -> None:
        """Put the simulation back to the entry `back` steps before the newest."""
        s.restore(self.snaps[self.index(back)])

    def back_of(self, time: float, nearest: bool = False) -> int | None:
        """How many steps before the newest the entry of simulated `time` (s) is: the step a grip-log entry
        was logged at. None when no entry has that time (to a thousandth of a step), unless `nearest`: then
        the entry nearest to it, the oldest or the newest outside the record. The times grow from the oldest
        entry to the newest (a reset keeps the clock running), so a binary search finds it."""
        if not self.count:
            return None
        lo, hi = 0, self.count - 1                  # back: 0 the newest ... count - 1 the oldest
        while lo < hi:                              # the smallest back whose time is <= `time`
            mid = (lo + hi) // 2
            if self.snaps[self.index(mid)].time <= time:
                hi = mid
            else:
                lo = mid + 1
        candidates = [b for b in (lo - 1, lo) if 0 <= b < self.count]
        best = min(candidates, key=lambda b: abs(self.snaps[self.index(b)].time - time))
        return best if nearest or abs(self.snaps[self.index(best)].time - time) <= 1e-3 * self.dt else None

    def truncate(self, back: int) -> None:
        """Forget the `back` newest entries (driving on from an earlier state rewrites the future)."""
        back = min(back, self.count)
        self.head = (self.head - back) % self.cap
        self.count -= back

    def chain(self, most: int):
        """(the oldest of the last `most` entries with the newest's parameters, the control rows of each step
        after it in order): what runs from that entry to the newest again."""
        back, params = 0, self.snaps[self.index(0)].params
        while back + 1 < min(most, self.count) and self.snaps[self.index(back + 1)].params == params:
            back += 1
        start = self.snaps[self.index(back)]
        rows = [self.snaps[self.index(b)].controls for b in range(back - 1, -1, -1)]
        return start, rows


@dataclass
class BranchReference:
    """The run a branch replay departed from: the step it branched at and the original poses after it."""
    start: int
    poses: list[Pose]
    speeds: list[float]            # m/s
    dt: float = 0.0
    forward: list[float] | None = None   # m/s along the heading, as the speed channel plots it
    label: str = "original run"          # what the run is, in the plots' legends
    log: sim.lab.logs.TelemetryLog | None = None   # its telemetry log, when it has one (a test drive's)

    def times(self) -> np.ndarray:
        return (self.start + 1 + np.arange(len(self.poses))) * self.dt


def reference_run(log, vehicle: int = 0, label: str = "other run") -> BranchReference:
    """A logged, replayable run (sim.lab.logs.TelemetryLog(replayable=True)) as a branch reference: it is driven
    again in a scratch simulation (no watchdog) for its poses and speeds, step by step after its start."""
    inputs = log.inputs
    start, rows = inputs.for_vehicle(vehicle)
    scratch = sim.Simulation(start.params[0], inputs.world, dt=inputs.dt, substeps=inputs.substeps,
                             watchdog=False, check_stability=False)
    scratch.restore(start)
    poses, speeds, forward = [], [], []
    for row in rows:
        scratch.step(sim.Controls.from_row(row))
        poses.append(capture(scratch))
        v = scratch.state.velocity
        speeds.append(float(np.linalg.norm(v)))
        forward.append(float(np.dot(v, sim.lab.logs.body_frame(scratch.state.orientation)[:, 0])))
    return BranchReference(start.steps, poses, speeds, inputs.dt, forward, label, log)
