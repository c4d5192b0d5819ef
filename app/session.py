"""A driving session without any window: the simulation, the fixed-step loop, the two snapshots the
renderer blends, pause / single step / slow motion, input recording and replay, and blow-up detection.
The window (app/window.py) feeds it frame times and controls; tests drive it directly.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import sim
import sim.lab.logs
from app.loop import FixedStepLoop
from app.rewind import BranchReference
from app.rewind import Rewind
from app.rewind import reference_run
from app.trace import TRACE_COLUMNS  # noqa: F401  (where the app and tests look for them)
from app.trace import TRACE_FORMAT  # noqa: F401  (where the app and tests look for them)
from app.trace import Trace  # noqa: F401  (where the app and tests look for them)
from render.interp import Pose
from render.interp import blend
from render.interp import capture

SLOW_MOTION = (1.0, 0.5, 0.25, 0.1)
LOG_RATE = 60.0            # rows per second the app's telemetry recording keeps
LOG_MAX_MINUTES = 15.0     # the recording stops there (about 140 kB a second of driving: 125 MB)
LOG_MAX_ROWS = int(LOG_MAX_MINUTES * 60 * LOG_RATE)


@dataclass
class Companion:
    """A variant of the car (another model family) driven by the same inputs beside it, as a ghost."""
    label: str
    car: sim.Vehicle
    sim: sim.Simulation
    color: tuple[float, float, float]


COMPANION_COLORS = ((1.0, 0.92, 0.1), (0.2, 1.0, 0.95), (1.0, 0.25, 0.95))   # yellow, cyan, magenta: not red
MAX_COMPANIONS = 3          # with the car itself, four variants at once


def ground_height(world: sim.World, x: float, y: float) -> float:
    """Height of the highest supporting surface under (x, y) (0 if there is none)."""
    hit = world.ray_cast((x, y, 1000.0), (0.0, 0.0, -1.0), 2000.0)
    return float(hit.P[2]) if hit.hit else 0.0


class Session:
    SLOW_MOTION = SLOW_MOTION

    def __init__(self, vehicle: sim.Vehicle, world: sim.World, dt: float = 1 / 240,
                 substeps: int = sim.DEFAULT_SUBSTEPS, vehicle_name: str | None = None, world_name: str | None = None):
        self.sim = sim.Simulation(vehicle, world, dt=dt, substeps=substeps)
        self.world = world
        self.loop = FixedStepLoop(dt)
        self.paused = False
        self.slow_index = 0
        self.single_steps = 0
        self.blown_up = False
        self.blow_up = ""                               # the watchdog's one line when blown_up (a scripted run ends)
        self.message = ""
        self.recording: Trace | None = None
        self.replay: Trace | None = None
        self.replay_pos = 0
        self._reset_pending = False
        self.on_step: list[Callable[[], None]] = []      # called after every physics step (the overlay)
        self.on_jump: list[Callable[[], None]] = []      # the state jumped (scrub, reset, back from a blow-up)
        self.on_truncate: list[Callable[[float], None]] = []   # the future after this time is forgotten
        self.pause_reason = ""                          # why the session paused by itself ("" otherwise)
        self.telemetry_log: sim.lab.logs.TelemetryLog | None = None   # recording the telemetry while driving
        self.reference: BranchReference | None = None    # the run a branch replay departed from
        self.rewind = Rewind(self.sim, 30.0)
        self.scrub = 0                                  # steps back from the newest while inspecting the past
        self.vehicle_name = vehicle_name or vehicle.name
        self.world_name = world_name or world.name
        self.companions: list[Companion] = []           # variants driven by the same inputs (compare mode)
        self.home = (world, substeps)                   # where leave_drive goes back to
        self.watching = ""                              # the test drive being watched ("" when none)
        # told True when a replay (a trace, a branch, a watched test drive) takes the car and False when it gives
        # it back: the driver's own aids (app/input.py hand_over) are switched off either way
        self.on_hand_over: list[Callable[[bool], None]] = []
        self.replay_drives = False                      # a replay has the car (until it hands it back)
        self.reset_car(spawn_index=0)

    # -- car placement ------------------------------------------------------------------------------
    def spawn_pose(self, index: int) -> tuple[tuple[float, float, float], float]:
        x, y, yaw_deg = self.world.spawns[index % len(self.world.spawns)]
        return (x, y, self.rest_height(x, y, math.radians(yaw_deg))), math.radians(yaw_deg)

    def rest_height(self, x: float, y: float, yaw: float) -> float:
        """Where the car's centre of mass goes at (x, y) heading yaw: clear of the ground under every wheel
        and hull point (sim.spawn_height)."""
        return sim.spawn_height(self.sim.vehicle, x, y, yaw, lambda px, py: ground_height(self.world, px, py))

    def nearest_spawn(self) -> int:
        p = self.sim.state.position
        d = [math.hypot(p[0] - x, p[1] - y) for x, y, _ in self.world.spawns]
        return int(np.argmin(d))

    def reset_car(self, spawn_index: int | None = None) -> None:
        """Put the car upright and still at a spawn point (the nearest one if none is given)."""
        idx = self.nearest_spawn() if spawn_index is None else spawn_index
        pos, yaw = self.spawn_pose(idx)
        self.place(pos, yaw)

    def teleport(self, x: float, y: float, yaw: float) -> str:
        """Put the car upright and still at (x, y) on whatever surface is there, heading `yaw` (rad).
        Returns "" or why not: a trace being recorded or replayed holds only resets to spawn points."""
        if self.recording is not None or self.replaying:
            return "no teleport while a trace is recorded or replayed (R still resets to a spawn point)"
        if self.scrub:
            self.resume_from_scrub()                     # a new state: the rewound future is forgotten
        self.place((x, y, self.rest_height(x, y, yaw)), yaw)
        self.paused = False
        return ""

    def place(self, pos, yaw: float) -> None:
        self.sim.reset(position=pos, yaw=yaw)
        self.reference = None                            # a branch's reference run ends with a new start
        self.prev = self.curr = capture(self.sim)
        self.blown_up = False
        self.blow_up = ""
        self.message = ""
        self.pause_reason = ""
        self._jumped()

    def _jumped(self) -> None:
        self.sync_companions()
        for callback in getattr(self, "on_jump", ()):
            callback()

    # -- compare mode: variants driven by the same inputs --------------------------------------------
    def add_companion(self, label: str, car: sim.Vehicle) -> str:
        """Drive `car` (a variant: another model family) beside the car from now on, with the same inputs,
        starting from the car's state now. Returns "" or why not."""
        if len(self.companions) >= MAX_COMPANIONS:
            return f"at most {MAX_COMPANIONS} variants beside the car"
        if any(c.label == label for c in self.companions):
            return ""
        try:
            twin = sim.Simulation(car, self.world, dt=self.sim.dt, substeps=self.sim.substeps)
        except sim.ConfigError as exc:
            return f"{label}: {exc}"
        used = {c.color for c in self.companions}
        color = next(c for c in COMPANION_COLORS if c not in used)
        self.companions.append(Companion(label, car, twin, color))
        self.sync_companions()
        return ""

    def remove_companion(self, label: str) -> None:
        self.companions = [c for c in self.companions if c.label != label]

    def sync_companions(self) -> None:
        """Put every variant where the car is now (after a jump, and when one joins)."""
        snap = self.sim.snapshot()
        for c in getattr(self, "companions", ()):
            c.sim.set_substeps(self.sim.substeps) if c.sim.substeps != self.sim.substeps else None
            c.sim.restore(snap)
            c.sim.set_params(c.car)               # its own parameters again from the next step

    def companion_poses(self) -> list[tuple[Pose, sim.Vehicle, sim.WheelGeometry, tuple]]:
        return [(capture(c.sim), c.sim.vehicle, c.sim.wheel_geometry(), c.color) for c in self.companions]

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
        if self.scrub:
            self.resume_from_scrub()
        elif not self.blown_up:
            self.paused = not self.paused
        if not self.paused:
            self.pause_reason = ""

    def pause_for(self, reason: str) -> None:
        """Pause by the app's own decision (the grip monitor's auto-pause), saying why."""
        self.paused = True
        self.pause_reason = reason

    def cycle_slow_motion(self) -> None:
        self.slow_index = (self.slow_index + 1) % len(SLOW_MOTION)

    def request_single_step(self) -> None:
        """One physics step while paused; while inspecting the past, one recorded step forward instead
        (nothing is simulated again, so nothing is logged twice)."""
        if self.scrub:
            self.scrub_to(self.scrub - 1)
        elif self.paused and not self.blown_up:
            self.single_steps += 1

    # -- rewind ---------------------------------------------------------------------------------------
    def scrub_to(self, back: int) -> None:
        """Pause and show the state `back` steps before the newest (0 = the newest)."""
        if len(self.rewind) == 0:
            return
        back = int(min(max(back, 0), len(self.rewind) - 1))
        self.paused = True
        self.scrub = back
        self.rewind.restore(self.sim, back)
        self.prev = self.curr = capture(self.sim)
        self._jumped()

    def resume_from_scrub(self) -> None:
        """Drive on from the state being inspected: what came after it is forgotten (the rewind ring,
        and through `on_truncate` the grip log and the plots)."""
        self.rewind.truncate(self.scrub)
        self.scrub = 0
        self.paused = False
        self.pause_reason = ""
        for callback in self.on_truncate:
            callback(self.sim.time)

    # -- recording ----------------------------------------------------------------------------------
    def start_recording(self) -> None:
        self.recording = Trace(self.sim.dt, self.sim.substeps, self.vehicle_name, self.world_name)

    def start_replay(self, trace: Trace) -> None:
        if abs(trace.dt - self.sim.dt) > 1e-12 or trace.substeps != self.sim.substeps:
            raise sim.ConfigError(f"the trace was recorded at dt = {trace.dt:g} s with {trace.substeps} substeps; "
                                  f"this session runs dt = {self.sim.dt:g} s with {self.sim.substeps}")
        self.replay = trace
        self.replay_pos = 0
        self._hand_over(True)

    def _hand_over(self, to_replay: bool) -> None:
        """A replay takes the car (True) or gives it back (False), once each way: the callbacks (the input's
        hand_over) put the driver's aids off and the pedals and steering at rest."""
        if to_replay or self.replay_drives:
            self.replay_drives = to_replay
            for callback in self.on_hand_over:
                callback(to_replay)

    def forward_speed(self) -> float:
        """The car's speed along its heading (m/s): what the cruise control holds."""
        _, _, _, w, x, y, z, vx, vy, vz, _, _, _ = self.sim.state.body_list()
        # the body's x axis, the first column of R(q), in plain floats (this runs every physics step)
        return vx * (1.0 - 2.0 * (y * y + z * z)) + vy * 2.0 * (x * y + w * z) + vz * 2.0 * (x * z - w * y)

    @property
    def replaying(self) -> bool:
        return self.replay is not None and self.replay_pos < len(self.replay.rows)

    # -- branch replay -----------------------------------------------------------------------------
    def branch_replay(self) -> str:
        """From the step being inspected, drive the recorded inputs again with the parameters in use now
        (edit them while rewound first); the original run stays as the reference: its poses (the ghost
        car) and speeds, step by step. Returns "" or why not."""
        if not self.scrub:
            return "rewind to the moment to branch from first"
        if self.recording is not None or self.replaying:
            return "no branch while a trace is recorded or replayed"
        backs = range(self.scrub - 1, -1, -1)                    # the later steps, oldest first
        snaps = [self.rewind.snaps[self.rewind.index(b)] for b in backs]
        rows = [list(map(float, snap.controls[0])) + [0.0] for snap in snaps]
        scratch = sim.Simulation(self.sim.vehicle, self.world, dt=self.sim.dt, substeps=self.sim.substeps,
                                 watchdog=False, check_stability=False)
        poses, speeds, forward = [], [], []
        for snap in snaps:
            scratch.restore(snap)
            poses.append(capture(scratch))
            speeds.append(float(np.linalg.norm(scratch.state.velocity)))
            forward.append(float(np.dot(scratch.state.velocity,
                                        sim.lab.logs.body_frame(scratch.state.orientation)[:, 0])))
        start = self.sim.steps
        self.resume_from_scrub()
        self.replay = Trace(self.sim.dt, self.sim.substeps, self.vehicle_name, self.world_name, rows)
        self.replay_pos = 0
        self.reference = BranchReference(start, poses, speeds, self.sim.dt, forward)
        self._hand_over(True)
        return ""

    # -- watching a test drive ---------------------------------------------------------------------
    def watch_drive(self, result, other=None, other_label: str = "") -> str:
        """Drive a test drive's run (a sim.lab.drives Result) again here, bit for bit, in its own world: the
        recorded driver's inputs are replayed from the state after its first step, so every panel, plot and
        the rewind work on it as on a drive by hand. `other` (the same drive of other parameters) is the
        ghost car and the reference of the plots. Returns "" or why not; `leave_drive` goes back."""
        inputs = getattr(result.log, "inputs", None)
        if inputs is None:
            return f"the {result.name} run kept no inputs to watch"
        if self.recording is not None:
            return "no test drive to watch while a trace is recorded"
        start, rows = inputs.for_vehicle(result.log.vehicle)
        self.companions = []                            # they drove in the other world
        if not self.watching:
            self.home = (self.world, self.sim.substeps)
        self.sim = sim.Simulation(start.params[0], inputs.world, dt=inputs.dt, substeps=inputs.substeps)
        self.world = inputs.world
        self.loop = FixedStepLoop(inputs.dt)
        self.sim.restore(start)
        self.rewind = Rewind(self.sim, 30.0)
        self.rewind.push(self.sim)
        self.scrub = 0
        self.reference = None
        self.replay = Trace(inputs.dt, inputs.substeps, self.vehicle_name, self.world.name,
                            [list(map(float, r)) + [0.0] for r in rows])
        self.replay_pos = 0
        self.watching = result.name + (f" (ghost: {other_label})" if other is not None and other_label else "")
        if other is not None and getattr(other.log, "inputs", None) is not None:
            self.reference = reference_run(other.log, other.log.vehicle, other_label or "other run")
        self.prev = self.curr = capture(self.sim)
        self.blown_up = False
        self.blow_up = ""
        self.paused = False
        self.message = self.pause_reason = ""
        self._jumped()
        for callback in self.on_truncate:
            callback(-math.inf)
        self._hand_over(True)
        return ""

    def leave_drive(self) -> None:
        """Back from a watched test drive to the world the session started in, at its first spawn point,
        with the parameters now in use."""
        car = self.sim.next_params()
        substeps = self.home[1]
        self.companions = []
        self.sim = sim.Simulation(car, self.home[0], dt=self.sim.dt, substeps=substeps)
        self.world = self.home[0]
        self.rewind = Rewind(self.sim, 30.0)
        self.replay = None
        self._hand_over(False)
        self.scrub = 0
        self.watching = ""
        for callback in self.on_truncate:
            callback(-math.inf)
        self.reset_car(spawn_index=0)
        self.paused = False

    def ghost(self) -> Pose | None:
        """The reference run's pose at the step on show (None without a branch, or past its end)."""
        ref = getattr(self, "reference", None)
        if ref is None:
            return None
        j = self.sim.steps - ref.start - 1
        return ref.poses[j] if 0 <= j < len(ref.poses) else None

    def branch_gap(self) -> tuple[float, float, float] | None:
        """(distance m, speed difference m/s, heading difference rad) from the reference run, now."""
        g = self.ghost()
        if g is None:
            return None
        ref = self.reference
        j = self.sim.steps - ref.start - 1
        d = float(np.linalg.norm(np.asarray(self.sim.state.position) - g.position))
        dv = float(np.linalg.norm(self.sim.state.velocity)) - ref.speeds[j]
        yaw = lambda q: math.atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] ** 2 + q[3] ** 2))  # noqa: E731
        dyaw = (yaw(np.asarray(self.sim.state.orientation)) - yaw(g.orientation) + math.pi) % (2 * math.pi) - math.pi
        return d, dv, dyaw

    # -- telemetry logs ----------------------------------------------------------------------------
    def start_telemetry_log(self) -> None:
        """Record every channel at LOG_RATE rows per second from the next step (bounded: LOG_MAX_MINUTES)."""
        self.telemetry_log = sim.lab.logs.TelemetryLog(every=max(1, round(1.0 / (self.sim.dt * LOG_RATE))))
        self.recorded_log: sim.lab.logs.TelemetryLog | None = None

    def stop_telemetry_log(self) -> None:
        self.recorded_log, self.telemetry_log = self.telemetry_log, None

    def rewind_log(self, seconds: float | None = None) -> sim.lab.logs.TelemetryLog:
        """The rewind buffer's last `seconds` (all of it by default) as a telemetry log, one row per stored
        step, read from the stored states and telemetry (nothing is simulated again)."""
        n = len(self.rewind)
        if seconds is not None:
            n = min(n, int(round(seconds / self.sim.dt)))
        scratch = sim.Simulation(self.sim.vehicle, self.world, dt=self.sim.dt, substeps=self.sim.substeps,
                                 watchdog=False, check_stability=False)
        log = sim.lab.logs.TelemetryLog()
        for back in range(n - 1, -1, -1):
            snap = self.rewind.snaps[self.rewind.index(back)]
            scratch.restore(snap)
            log.add(scratch, sim.Controls.from_row(snap.controls[0]))
        return log

    # -- substeps -----------------------------------------------------------------------------------
    @property
    def substeps_locked(self) -> str:
        """Why the substeps cannot change now ("" when they can): a trace holds one substeps value."""
        if self.recording is not None:
            return f"a trace is being recorded at {self.recording.substeps} substeps"
        if self.replaying:
            return f"a trace recorded at {self.replay.substeps} substeps is being replayed"
        return ""

    def set_substeps(self, substeps: int) -> None:
        """Substeps per physics step from the next step on: ConfigError while a trace is recorded or
        replayed or when the car would be unstable (sim.advisor), ValueError out of range."""
        if self.substeps_locked:
            raise sim.ConfigError(f"substeps stay at {self.sim.substeps} while {self.substeps_locked}")
        self.sim.set_substeps(substeps)

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
            if self.paused and scale > 0.0:
                return 1.0                  # paused by a step (the grip monitor): show that very step
        return alpha

    def physics_step(self, controls_for_step: Callable[[float], sim.Controls]) -> None:
        user = controls_for_step(self.sim.dt)
        if self.replaying:
            k = self.replay_pos
            self.replay_pos += 1
            reset_flag, c = self.replay.step(k)
            if reset_flag:
                self.reset_car()
        else:
            reset_flag = self._reset_pending
            if self._reset_pending:
                self._apply_reset()
            c = user
        if self.recording is not None:
            self.recording.append(c, reset_flag)
        try:
            self.sim.step(c)
        except sim.BlowUp as exc:
            # the watchdog saw a state no car reaches: save its reproduction, pause, go back to the last sane
            # state, say why
            self.blown_up = True
            saved = self._save_blow_up(str(exc)) if len(self.rewind) else ""
            self.blow_up = f"{exc}; reproduction in {saved}" if saved else str(exc)
            self.paused = True
            if len(self.rewind):
                self.rewind.restore(self.sim, 0)             # the step before: what is drawn (curr)
                self._jumped()
            self.message = f"{str(exc)[0].upper()}{str(exc)[1:]}. Back at t = {self.sim.time:.3f} s, the last " \
                           f"sane state (the rewind bar goes further). Press R to reset the car." + \
                           (f" Reproduction: {saved}" if saved else "")
            return
        self.prev = self.curr
        self.curr = capture(self.sim)
        for comp in list(self.companions):            # the variants take the same inputs
            try:
                comp.sim.step(c)
            except sim.BlowUp as exc:
                self.companions.remove(comp)
                self.message = f"The {comp.label} variant blew up and left the comparison: {exc}"
        self.rewind.push(self.sim)
        if self.telemetry_log is not None:
            self.telemetry_log.add(self.sim, c)
            if len(self.telemetry_log) >= LOG_MAX_ROWS:
                self.message = (f"The telemetry recording stopped at its {LOG_MAX_MINUTES:g} minutes; save it "
                                f"(Time panel) and start another.")
                self.stop_telemetry_log()
        for callback in self.on_step:
            callback()
        if self.replay_drives and not self.replaying:
            self._hand_over(False)                     # the replay's last step: the car is the driver's again

    def _save_blow_up(self, message: str) -> str:
        """Save the last seconds before the blow-up and the step that blew up (app/repro.py); the folder."""
        from app import repro
        start, rows = self.rewind.chain(int(repro.SECONDS_BACK / self.sim.dt))
        try:
            return str(repro.save(self.sim, start, rows + [self.sim.snapshot().controls], message))
        except OSError as exc:
            return f"(not saved: {exc.strerror})"

    def pose(self, alpha: float) -> Pose:
        """What to draw: the state alpha of the way from the previous physics step to the last."""
        return blend(self.prev, self.curr, alpha)
