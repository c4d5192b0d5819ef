"""The rewind's history: the last seconds of a simulation, one snapshot per physics step, in a ring that the
session scrubs through, branches from and cuts when the driving goes on from an earlier state.
"""
from __future__ import annotations

import sim


class Rewind:
    """The last `seconds` of the simulation, one snapshot per physics step (state, controls and the
    telemetry to show), in a ring."""

    def __init__(self, s: sim.Simulation, seconds: float = 30.0):
        self.cap = int(round(seconds / s.dt))
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
