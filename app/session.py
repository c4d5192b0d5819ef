"""A driving session without any window: the simulation, the fixed-step loop, the two snapshots the
renderer blends, pause / single step / slow motion, input recording and replay, and blow-up detection.
The window (app/window.py) feeds it frame times and controls; tests drive it directly.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

import sim
from app.loop import FixedStepLoop
from render.interp import Pose, blend, capture
from sim.params import atomic_write_bytes

TRACE_FORMAT = "contactpatch-trace-1"
SLOW_MOTION = (1.0, 0.5, 0.25, 0.1)


@dataclass
class Trace:
    """Controls per physics step: rows of (throttle, brake, steer, handbrake, reset-before-this-step)."""
    dt: float
    substeps: int
    vehicle: str
    world: str
    rows: list[list[float]] = field(default_factory=list)

    def save(self, path: str | Path) -> None:
        data = {"format": TRACE_FORMAT, "dt": self.dt, "substeps": self.substeps, "vehicle": self.vehicle,
                "world": self.world, "columns": ["throttle", "brake", "steer", "handbrake", "reset"],
                "steps": self.rows}
        atomic_write_bytes(path, json.dumps(data, separators=(",", ":")).encode())

    @classmethod
    def load(cls, path: str | Path) -> "Trace":
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise sim.ConfigError(f"{path}: cannot read the input trace: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != TRACE_FORMAT:
            raise sim.ConfigError(f"{path}: format = {data.get('format') if isinstance(data, dict) else None!r} "
                                  f"is not allowed; expected {TRACE_FORMAT!r} (a file saved with --record)")
        rows = data.get("steps")
        if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == 5 for r in rows):
            raise sim.ConfigError(f"{path}: steps must be a list of [throttle, brake, steer, handbrake, reset]")
        return cls(float(data["dt"]), int(data["substeps"]), str(data["vehicle"]), str(data["world"]), rows)


def ground_height(world: sim.World, x: float, y: float) -> float:
    """Height of the highest supporting surface under (x, y) (0 if there is none)."""
    hit = world.ray_cast((x, y, 1000.0), (0.0, 0.0, -1.0), 2000.0)
    return float(hit.P[2]) if hit.hit else 0.0


class Session:
    SLOW_MOTION = SLOW_MOTION

    def __init__(self, vehicle: sim.Vehicle, world: sim.World, dt: float = 1 / 240, substeps: int = 8,
                 vehicle_name: str | None = None, world_name: str | None = None):
        self.sim = sim.Simulation(vehicle, world, dt=dt, substeps=substeps)
        self.world = world
        self.loop = FixedStepLoop(dt)
        self.paused = False
        self.slow_index = 0
        self.single_steps = 0
        self.blown_up = False
        self.message = ""
        self.recording: Trace | None = None
        self.replay: Trace | None = None
        self.replay_pos = 0
        self._reset_pending = False
        self.on_step: list[Callable[[], None]] = []      # called after every physics step (the overlay)
        self.vehicle_name = vehicle_name or vehicle.name
        self.world_name = world_name or world.name
        self.reset_car(spawn_index=0)

    # -- car placement ------------------------------------------------------------------------------
    def spawn_pose(self, index: int) -> tuple[tuple[float, float, float], float]:
        x, y, yaw_deg = self.world.spawns[index % len(self.world.spawns)]
        z = ground_height(self.world, x, y) + sim.rest_com_height(self.sim.vehicle)
        return (x, y, z), math.radians(yaw_deg)

    def nearest_spawn(self) -> int:
        p = self.sim.state.position
        d = [math.hypot(p[0] - x, p[1] - y) for x, y, _ in self.world.spawns]
        return int(np.argmin(d))

    def reset_car(self, spawn_index: int | None = None) -> None:
        """Put the car upright and still at a spawn point (the nearest one if none is given)."""
        idx = self.nearest_spawn() if spawn_index is None else spawn_index
        pos, yaw = self.spawn_pose(idx)
        self.sim.reset(position=pos, yaw=yaw)
        self.prev = self.curr = capture(self.sim)
        self.blown_up = False
        self.message = ""

    def request_reset(self) -> None:
        """Reset before the next physics step (so a recording can replay it at the same step)."""
        self._reset_pending = True
        if self.paused:
            self._apply_reset()

    def _apply_reset(self) -> None:
        self._reset_pending = False
        self.reset_car()
        if self.blown_up or self.paused:
            self.paused = False

    # -- time control -------------------------------------------------------------------------------
    @property
    def time_scale(self) -> float:
        return SLOW_MOTION[self.slow_index]

    def toggle_pause(self) -> None:
        if not self.blown_up:
            self.paused = not self.paused

    def cycle_slow_motion(self) -> None:
        self.slow_index = (self.slow_index + 1) % len(SLOW_MOTION)

    def request_single_step(self) -> None:
        if self.paused and not self.blown_up:
            self.single_steps += 1

    # -- recording ----------------------------------------------------------------------------------
    def start_recording(self) -> None:
        self.recording = Trace(self.sim.dt, self.sim.substeps, self.vehicle_name, self.world_name)

    def start_replay(self, trace: Trace) -> None:
        if abs(trace.dt - self.sim.dt) > 1e-12 or trace.substeps != self.sim.substeps:
            raise sim.ConfigError(f"the trace was recorded at dt = {trace.dt:g} s with {trace.substeps} substeps; "
                                  f"this session runs dt = {self.sim.dt:g} s with {self.sim.substeps}")
        self.replay = trace
        self.replay_pos = 0

    @property
    def replaying(self) -> bool:
        return self.replay is not None and self.replay_pos < len(self.replay.rows)

    # -- the frame ----------------------------------------------------------------------------------
    def frame(self, frame_time: float, controls_for_step: Callable[[float], sim.Controls]) -> float:
        """Advance by one rendered frame of `frame_time` wall seconds; return alpha for the renderer.

        `controls_for_step(dt)` is called once per physics step (the input ramps live there); during a
        replay the trace's controls are used instead."""
        scale = 0.0 if (self.paused or self.blown_up) else self.time_scale
        steps, alpha = self.loop.advance(frame_time, scale)
        if self.single_steps and self.paused:
            steps, alpha = self.single_steps, 1.0
            self.single_steps = 0
        for _ in range(steps):
            self.physics_step(controls_for_step)
            if self.blown_up:
                return 1.0
        return alpha

    def physics_step(self, controls_for_step: Callable[[float], sim.Controls]) -> None:
        user = controls_for_step(self.sim.dt)
        if self.replaying:
            row = self.replay.rows[self.replay_pos]
            self.replay_pos += 1
            if row[4]:
                self.reset_car()
            c = sim.Controls(float(row[0]), float(row[1]), float(row[2]), float(row[3]))
            reset_flag = bool(row[4])
        else:
            reset_flag = self._reset_pending
            if self._reset_pending:
                self._apply_reset()
            c = user
        if self.recording is not None:
            self.recording.rows.append([c.throttle, c.brake, c.steer, c.handbrake, 1 if reset_flag else 0])
        self.sim.step(c)
        if not self.sim.finite():
            self.blown_up = True
            self.paused = True
            self.message = (f"The physics blew up (NaN or infinity) at t = {self.sim.time:.3f} s. "
                            f"Press R to reset the car.")
            return
        self.prev = self.curr
        self.curr = capture(self.sim)
        for callback in self.on_step:
            callback()

    def pose(self, alpha: float) -> Pose:
        """What to draw: the state alpha of the way from the previous physics step to the last."""
        return blend(self.prev, self.curr, alpha)
