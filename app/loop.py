"""The fixed-timestep loop (Glenn Fiedler, "Fix Your Timestep!"). No pygame, no clock: frame times in.

The physics always advances in whole steps of dt; what is left over becomes alpha = leftover / dt, the
blend the renderer uses between the last two physics states. The frame time is clamped (against the
spiral of death after a stall) and so is the number of steps one frame may run.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class FixedStepLoop:
    dt: float                         # s, physics step
    max_frame_time: float = 0.25      # s, longer frames are cut to this
    max_steps_per_frame: int = 60     # the most steps one frame may run (the rest is dropped)
    accumulator: float = 0.0          # s of simulated time owed to the physics

    def advance(self, frame_time: float, time_scale: float = 1.0) -> tuple[int, float]:
        """Account for one rendered frame of `frame_time` wall seconds at `time_scale` (0 = paused,
        0.1..1 slow motion). Returns (steps to run now, alpha in [0, 1))."""
        frame_time = min(max(frame_time, 0.0), self.max_frame_time)
        self.accumulator += frame_time * time_scale
        steps = int(self.accumulator / self.dt)
        if steps > self.max_steps_per_frame:
            steps = self.max_steps_per_frame
            self.accumulator = 0.0
        else:
            self.accumulator -= steps * self.dt
        return steps, self.alpha

    @property
    def alpha(self) -> float:
        return min(max(self.accumulator / self.dt, 0.0), 1.0 - 1e-12)

    def reset(self) -> None:
        self.accumulator = 0.0
