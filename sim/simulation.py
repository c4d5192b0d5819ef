"""The headless API: `Simulation` holds N vehicles in one world and steps them at a fixed dt.

    import sim
    car = sim.load_vehicle("hatchback")
    world = sim.load_world("proving_ground")
    s = sim.Simulation(car, world, dt=1/240, substeps=sim.DEFAULT_SUBSTEPS, n_vehicles=1)
    s.reset(position=(0.0, 0.0, 0.5), yaw=0.0, speed=0.0)
    s.set_state(velocity=(10.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.2))   # any state, world frame
    s.step(sim.Controls(throttle=0.5))
    s.state.position, s.telemetry.Fz, ...

Positions and velocities are world-frame SI. With one vehicle the views drop the vehicle axis
((3,), (4,)); with N > 1 every array has a leading vehicle axis ((N, 3), (N, 4)). Views share memory with
the simulation: copy them if you keep them across steps.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim import advisor
from sim.batch import share_vehicles
from sim.controls import DEFAULT_ROW
from sim.controls import Controls
from sim.controls import control_rows
from sim.kernel import tables as T
from sim.kernel.jit import announce_compile
from sim.kernel.placement import place_vehicle
from sim.kernel.step import run_vehicles
from sim.kernel.step import step_and_watch
from sim.model.checks import validate
from sim.model.geometry import WheelGeometry
from sim.model.geometry import wheel_geometry
from sim.model.pack import SWITCHES
from sim.model.pack import apply_switches
from sim.model.pack import pack_vehicle
from sim.model.params import Vehicle
from sim.model.world import World
from sim.placing import gears_for
from sim.placing import per_vehicle
from sim.placing import vehicle_indices
from sim.placing import write_state
from sim.views import StateView
from sim.views import TelemetryView
from sim.watchdog import WATCH_EVERY
from sim.watchdog import BlowUp
from sim.watchdog import Watchdog
from sim.watchdog import blow_up_message

MAX_DT = 0.05              # s: the longest fixed step (the advisor bounds it further per car)
MAX_SUBSTEPS = 1000
DEFAULT_SUBSTEPS = 2        # the app's and a Simulation's own: the implicit wheel and clutch updates agree with
#                             16 substeps to 1 % (sim.lab.validation)



@dataclass(frozen=True)
class Snapshot:
    """Everything needed to continue a run bit for bit: time, the state tables, the controls in force
    (copies) and the parameters in use (immutable). With `telemetry=True` it also carries the last
    substep's telemetry, so that what people read can be shown again at that moment (rewind); the
    physics never needs it."""
    time: float
    steps: int
    body_state: np.ndarray
    drive_state: np.ndarray
    wheel_state: np.ndarray
    controls: np.ndarray
    params: tuple[Vehicle, ...]
    wheel_telemetry: np.ndarray | None = None
    body_telemetry: np.ndarray | None = None

    def vehicle(self, i: int) -> Snapshot:
        """The snapshot of vehicle `i` alone (to continue it in a simulation of one vehicle)."""
        cut = (lambda a: None if a is None else a[i:i + 1].copy())  # noqa: E731
        return Snapshot(self.time, self.steps, cut(self.body_state), cut(self.drive_state), cut(self.wheel_state),
                        cut(self.controls), (self.params[i],), cut(self.wheel_telemetry), cut(self.body_telemetry))


class Tables:
    """The packed arrays of N vehicles (`sim/kernel/tables.py` describes every column)."""

    def __init__(self, n: int):
        self.vehicle_params = np.zeros((n, T.VP_N))
        self.wheel_params = np.zeros((n, T.NW, T.WP_N))
        self.hull_points = np.zeros((n, T.NHULL, 3))
        self.controls = np.zeros((n, T.CT_N))
        self.body_state = np.zeros((n, T.BS_N))
        self.drive_state = np.zeros((n, T.DS_N))
        self.wheel_state = np.zeros((n, T.NW, T.WS_N))
        self.wheel_scratch = np.zeros((n, T.NW, T.W_N))
        self.wheel_telemetry = np.zeros((n, T.NW, T.W_N))      # the last substep's scratch
        self.body_telemetry = np.zeros((n, T.TB_N))

    def state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.body_state, self.drive_state, self.wheel_state


class Simulation:
    """N vehicles of the same parameters (or one set each) in one world, stepped at a fixed dt.

    Read it through `state` and `telemetry` (named views), `params` / `vehicle` / `next_params`, and
    `wheel_geometry`; keep and restore it with `snapshot` / `restore`. The packed arrays in `tables` are
    the kernels' business."""

    def __init__(self, vehicle: Vehicle | Sequence[Vehicle], world: World, dt: float = 1.0 / 240.0,
                 substeps: int = DEFAULT_SUBSTEPS, n_vehicles: int = 1, watchdog: str | bool = "raise",
                 check_stability: bool = True):
        """dt (s) in (0, MAX_DT], substeps 1..MAX_SUBSTEPS; parameters the stability advisor calls unstable
        at this step are refused (ConfigError naming the parameter and the substeps that would do), unless
        check_stability is False (to watch an instability on purpose).
        watchdog: "raise" (a blow-up raises BlowUp), "flag" (it is noted in `health` and the run goes
        on), or False (no checks)."""
        if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not (0.0 < dt <= MAX_DT):
            raise ValueError(f"dt = {dt!r} is not allowed; expected a number of seconds in (0, {MAX_DT:g}]")
        if isinstance(substeps, bool) or int(substeps) != substeps or not 1 <= substeps <= MAX_SUBSTEPS:
            raise ValueError(f"substeps = {substeps!r} is not allowed; expected a whole number in "
                             f"[1, {MAX_SUBSTEPS}]")
        if isinstance(n_vehicles, bool) or int(n_vehicles) != n_vehicles or n_vehicles < 1:
            raise ValueError(f"n_vehicles = {n_vehicles!r} is not allowed; expected an integer >= 1")
        self.watcher = Watchdog(watchdog, int(n_vehicles), world.gravity)   # blow-ups caught by physics
        self.check_stability = bool(check_stability)
        self.n = int(n_vehicles)
        self.dt = float(dt)
        self.substeps = int(substeps)
        self.world = world
        # the grippiest surface: the tires' stiffness near rest (stability advisor) scales with it
        self.surface_mu = max([sf.mu for sf in world.surfaces] + [1e-9])
        self.tables = Tables(self.n)
        self.time = 0.0
        self.steps = 0
        vehicles = [vehicle] * self.n if isinstance(vehicle, Vehicle) else list(vehicle)
        if len(vehicles) != self.n:
            raise ValueError(f"{len(vehicles)} vehicle parameter sets given for n_vehicles = {self.n}")
        self.params: list[Vehicle] = []
        self._pending: dict[int, Vehicle] = {}           # parameters asked for, used from the next step
        self._switched_off: dict[int, set[str]] = {}     # kill switches: the parts turned off, per vehicle
        checked: dict[int, object] = {}
        for i, car in enumerate(vehicles):
            if id(car) not in checked:
                validate(car, car.source or car.name)
                checked[id(car)] = advisor.check(car, dt, substeps, surface_mu=self.surface_mu,
                                                 gravity=world.gravity) if check_stability else None
            self._pack(i, car)
        self.params = vehicles
        self._geometry: dict[int, tuple[Vehicle, WheelGeometry]] = {}
        self._world_tables = world.tables()
        self._gravity = world.gravity
        self.state = StateView(self.tables, self.n)
        self.telemetry = TelemetryView(self.tables, self.n)
        self._announced = False
        self.reset()

    # ------------------------------------------------------------------------------------------------
    @property
    def vehicle(self) -> Vehicle:
        """The parameters of vehicle 0 (the app's car)."""
        return self.params[0]

    def set_params(self, vehicle: Vehicle, index: int | None = None) -> None:
        """Use new parameters from the next step on (for every vehicle, or only `index`). Parameters out
        of range, or unstable at this step (sim.advisor), are refused with a ConfigError."""
        idx = vehicle_indices(index, self.n)
        self.check_params(vehicle)
        for i in idx:
            self._pending[int(i)] = vehicle

    def check_params(self, vehicle: Vehicle) -> None:
        """What `set_params` would refuse, without using them: a ConfigError for parameters out of range, or
        unstable at this step on this world (sim.advisor)."""
        validate(vehicle, vehicle.source or vehicle.name)
        if self.check_stability:
            advisor.check(vehicle, self.dt, self.substeps, surface_mu=self.surface_mu, gravity=self.world.gravity)

    def set_substeps(self, substeps: int) -> None:
        """Take `substeps` substeps per step from the next step on (1..MAX_SUBSTEPS); refused with a
        ConfigError when some vehicle's parameters would be unstable at the new substep (sim.advisor)."""
        if isinstance(substeps, bool) or not isinstance(substeps, (int, np.integer)) \
                or not 1 <= substeps <= MAX_SUBSTEPS:
            raise ValueError(f"substeps = {substeps!r} is not allowed; expected a whole number in "
                             f"[1, {MAX_SUBSTEPS}]")
        if self.check_stability:
            for car in {id(c): c for c in [self.next_params(i) for i in range(self.n)]}.values():
                advisor.check(car, self.dt, int(substeps), surface_mu=self.surface_mu, gravity=self.world.gravity)
        self.substeps = int(substeps)

    def next_params(self, index: int = 0) -> Vehicle:
        """The parameters vehicle `index` will use from the next step on: the ones set_params asked for,
        or those in use."""
        return self._pending.get(index, self.params[index])

    def wheel_geometry(self, index: int = 0) -> WheelGeometry:
        """Where vehicle `index`'s wheels hang on its body (in use now; for drawing)."""
        car = self.params[index]
        cached = self._geometry.get(index)
        if cached is None or cached[0] is not car:
            geometry = wheel_geometry(car)
            for a in vars(geometry).values():
                a.setflags(write=False)                      # shared: nobody may change the cached copy
            cached = self._geometry[index] = (car, geometry)
        return cached[1]

    def _pack(self, i: int, car: Vehicle) -> None:
        t = self.tables
        pack_vehicle(car, t.vehicle_params[i], t.wheel_params[i], t.hull_points[i],
                     hull_friction_limit=advisor.hull_friction_limit(car),
                     hull_normal_lambda=advisor.hull_normal_mode(car)[0],
                     suspension_modes=advisor.suspension_modes(car, self.world.gravity), gravity=self.world.gravity)
        off = self._switched_off.get(i)
        if off:
            apply_switches(off, t.vehicle_params[i], t.wheel_params[i])

    def set_switches(self, index: int | None = None, **on: bool) -> None:
        """Kill switches (the model lab's, seed 001): turn parts of the physics off or on again for every
        vehicle (or only `index`), from the next step, without touching the parameters: friction,
        suspension, anti_roll, aero, rolling, drive, brakes (sim.model.pack.SWITCHES says what each covers),
        e.g. set_switches(friction=False). Unknown names raise ValueError."""
        for name in on:
            if name not in SWITCHES:
                raise ValueError(f"switch {name!r} is not known; expected one of {', '.join(SWITCHES)}")
        for i in (range(self.n) if index is None else [index]):
            off = set(self._switched_off.get(i, ()))
            for name, value in on.items():
                (off.discard if value else off.add)(name)
            self._switched_off[i] = off
            self._pack(i, self.params[i])           # pending parameters get them when they are packed

    def switches(self, index: int = 0) -> dict[str, bool]:
        """Which parts are on (True) for vehicle `index`."""
        off = self._switched_off.get(index, ())
        return {name: name not in off for name in SWITCHES}

    def switched_on(self, name: str, index: int = 0) -> bool:
        """switches(index)[name], without building the whole dict (the skid marks ask every step)."""
        if name not in SWITCHES:
            raise KeyError(name)
        return name not in self._switched_off.get(index, ())

    def _apply_pending(self) -> None:
        changed = list(self._pending)
        for i, car in self._pending.items():
            self._pack(i, car)
            self.params[i] = car
        self._pending.clear()
        if changed:
            self._watch_baseline(np.array(changed))     # new mass, power: the energy budget starts again

    def reset(self, position=(0.0, 0.0, 0.5), yaw: float | np.ndarray = 0.0,
              speed: float | np.ndarray = 0.0, index: int | None = None, gear: int | Sequence[int] = 1) -> None:
        """Place vehicles upright: centre of mass at `position` (m), heading `yaw` (rad, about z), moving
        forward at `speed` (m/s) with the wheels rolling at speed / r, in `gear` (-1 R, 0 N, 1..) with the
        engine turning at the matching speed (at least idle). Scalars or per-vehicle arrays (gear: a whole
        number or one per vehicle).

        A car placed so low that a wheel at its shortest suspension or its body would be inside the ground
        is lifted until they are not (the ground under its centre, found by a ray from above). Any other
        state (an attitude, a velocity in any direction, an angular velocity, each wheel's spin): set_state
        after the reset."""
        self._apply_pending()
        t = self.tables
        idx = vehicle_indices(index, self.n)
        gears = gears_for("reset", gear, len(idx))
        pos = per_vehicle("reset", "position", position, (len(idx), 3))
        yaw = per_vehicle("reset", "yaw", yaw, (len(idx),))
        speed = per_vehicle("reset", "speed", speed, (len(idx),))
        for k, v in enumerate(idx):
            pos[k, 2] = max(pos[k, 2], self._lowest_com(int(v), pos[k]))
        for k, v in enumerate(idx):
            place_vehicle(int(v), pos[k, 0], pos[k, 1], pos[k, 2], float(yaw[k]), float(speed[k]), gears[k],
                          t.vehicle_params, t.wheel_params, t.body_state, t.drive_state, t.wheel_state,
                          t.wheel_scratch, t.wheel_telemetry, t.body_telemetry, t.controls, DEFAULT_ROW)
        self._watch_baseline(idx)

    def set_state(self, index: int | None = None, *, position=None, orientation=None, velocity=None,
                  angular_velocity=None, wheel_spin=None, gear: int | Sequence[int] | None = None) -> None:
        """Set any part of vehicles' state (every vehicle, or only `index`); what is not given is kept.
        position (m, centre of mass), velocity (m/s) and angular_velocity (rad/s) are world-frame (3,)
        vectors; orientation a unit quaternion (w, x, y, z), body -> world (within 1e-3 of unit length it is
        normalised, further it is refused; sim.yaw_pitch_roll makes one); wheel_spin the four wheels' spin
        (rad/s, FL FR RL RR, positive rolls forward); gear -1 R, 0 N, 1.. engaged at once. Each may be one
        value for all or one per vehicle ((N, 3), (N, 4), ...). Given wheel_spin or gear, the engine turns
        at the speed the driven wheels turn it in that gear (at least idle), as after a reset.

        The car is put exactly where asked (no lift out of the ground, unlike reset); the spin momenta are
        committed for the new orientation, the telemetry's angular momenta (H_body, H_wheels, H_engine,
        H_total) show the new state at once (the rest of the telemetry is the last step's until the next),
        and the watchdog's energy budget starts again from here. Bad values raise a one-line ValueError and
        change nothing. Typical: reset(...) to place and clear the car, then set_state(...) for the motion."""
        self._apply_pending()
        self._watch_baseline(write_state(self.tables, self.n, index, position=position, orientation=orientation,
                                         velocity=velocity, angular_velocity=angular_velocity,
                                         wheel_spin=wheel_spin, gear=gear))

    def _lowest_com(self, v: int, pos: np.ndarray) -> float:
        """The lowest centre-of-mass height (m) at (x, y) with no wheel at l_min and no hull point inside
        the ground below, the car upright."""
        hit = self.world.ray_cast((float(pos[0]), float(pos[1]), float(pos[2]) + 1000.0), (0.0, 0.0, -1.0), 2000.0)
        if not hit.hit:
            return -math.inf
        car = self.params[v]
        geometry = wheel_geometry(car)
        sus = (car.front_suspension, car.front_suspension, car.rear_suspension, car.rear_suspension)
        # 2 cm above the bump stops: a wheel must meet the ground above l_min to take it up (sim/kernel/contact.py)
        reach = max(geometry.radius[i] + sus[i].l_min - geometry.anchor[i][2] for i in range(T.NW)) + 0.02
        hull = -float(np.min(self.tables.hull_points[v, :, 2]))
        return float(hit.P[2]) + max(reach, hull)

    # ------------------------------------------------------------------------------------------------
    def _announce(self) -> None:
        if not self._announced:
            announce_compile(step_and_watch, "the physics kernels")
            self._announced = True

    # ------------------------------------------------------------------------------------------------
    # The watchdog (sim/watchdog.py): blow-ups caught by physics, not by NaN

    @property
    def watchdog(self) -> str | bool:
        """"raise", "flag" or False: what a blow-up does (see __init__)."""
        return self.watcher.mode

    @watchdog.setter
    def watchdog(self, mode: str | bool) -> None:
        self.watcher.set_mode(mode)

    @property
    def health(self) -> list[str]:
        """What the watchdog last found wrong with each vehicle's state ("" when it is physical)."""
        return self.watcher.health

    def _watch_baseline(self, idx) -> None:
        """Energy and time the energy budget counts from (at a reset, a restore, new parameters)."""
        t = self.tables
        self.watcher.baseline(idx, self.params, t.body_state, t.wheel_state, t.vehicle_params, t.wheel_params,
                              self.time, t.body_telemetry)

    def check_health(self) -> list[str]:
        """What is wrong with each vehicle's state ("" when it is physical); see Watchdog.check. Updates
        `health`."""
        t = self.tables
        return self.watcher.check(t.body_state, t.wheel_state, t.body_telemetry, self.time)

    def _watch(self) -> None:
        if self.watcher.watching:
            self.watcher.react(self.check_health(), self.blow_up_message)

    def blow_up_message(self, v: int) -> str:
        """One line: what the watchdog saw on vehicle v and the advisor's likeliest cause."""
        return blow_up_message(self.params[v], self.health[v], f"vehicle {v}: " if self.n > 1 else "", self.time,
                               self.dt, self.substeps, self.surface_mu, self.watcher.sources[v], self.world.gravity)

    def step(self, controls: Controls | None = None) -> None:
        """Advance one fixed step dt (made of `substeps` substeps) with these controls (None: the
        controls of the last step again)."""
        if self._pending:
            self._apply_pending()
        t = self.tables
        if controls is not None:
            controls.pack_into(t.controls)
        if not self._announced:
            self._announce()
        planes, boxes, hf_meta, hf_z, surf_mu = self._world_tables
        watcher = self.watcher
        sick = step_and_watch(t.vehicle_params, t.wheel_params, t.hull_points, t.controls, t.body_state,
                              t.drive_state, t.wheel_state, t.wheel_scratch, t.wheel_telemetry, t.body_telemetry,
                              planes, boxes, hf_meta, hf_z, surf_mu, self._gravity, self.time, self.dt, self.substeps,
                              watcher.step_table, watcher.watching, (self.steps + 1) * self.dt)
        self.steps += 1
        self.time = self.steps * self.dt
        if sick:
            self._watch()

    def run(self, controls_trace: np.ndarray) -> None:
        """Advance len(trace) steps in one compiled call; trace (K, N, C) or (K, C) of control rows with
        the first C of CONTROL_COLUMNS (throttle, brake, steer, handbrake, clutch, shift, gear, abs, tc, esp;
        the rest keep their defaults). Same result as calling step() K times."""
        if self._pending:
            self._apply_pending()
        trace = control_rows(controls_trace, self.n)
        if not self._announced:
            self._announce()
        t = self.tables
        planes, boxes, hf_meta, hf_z, surf_mu = self._world_tables
        # with a watchdog, in pieces of WATCH_EVERY steps: a blow-up stops the run soon after it starts
        piece = WATCH_EVERY if self.watcher.watching else max(1, len(trace))
        for k in range(0, len(trace), piece):
            part = trace[k:k + piece]
            sane = self.snapshot() if self.watcher.mode == "raise" else None   # to reproduce a blow-up from
            args = (t.vehicle_params, t.wheel_params, t.hull_points, part, t.body_state, t.drive_state,
                    t.wheel_state, t.wheel_scratch, t.wheel_telemetry, t.body_telemetry, planes, boxes, hf_meta,
                    hf_z, surf_mu, self._gravity, self.time, self.dt, self.substeps)
            share_vehicles(run_vehicles, args, self.n)
            t.controls[:] = part[-1]
            self.steps += len(part)
            self.time = self.steps * self.dt
            try:
                self._watch()
            except BlowUp as exc:
                exc.snapshot, exc.controls = sane, part.copy()
                raise

    # ------------------------------------------------------------------------------------------------
    def snapshot(self, telemetry: bool = False) -> Snapshot:
        """A copy of the state (and, with telemetry=True, of what the telemetry shows now)."""
        t = self.tables
        return Snapshot(self.time, self.steps, t.body_state.copy(), t.drive_state.copy(), t.wheel_state.copy(),
                        t.controls.copy(), tuple(self.params), t.wheel_telemetry.copy() if telemetry else None,
                        t.body_telemetry.copy() if telemetry else None)

    def restore(self, snap: Snapshot) -> None:
        """Continue from a snapshot: at the same dt and substeps the next steps are bit for bit those that
        followed it (the parameters it was taken with are back in use; edits still pending apply at the
        next step; the watchdog counts from here; dt and substeps stay the simulation's own, so a snapshot
        can be continued at another substep count on purpose). Its telemetry, if
        it carries some, is shown again; otherwise the telemetry is cleared until the next step."""
        t = self.tables
        if snap.body_state.shape != t.body_state.shape:
            raise ValueError(f"a snapshot of {snap.body_state.shape[0]} vehicles cannot be restored into a "
                             f"simulation of {self.n}")
        for i, car in enumerate(snap.params):
            if car is not self.params[i]:
                self._pack(i, car)
                self.params[i] = car
        self.time = snap.time
        self.steps = snap.steps
        t.body_state[:] = snap.body_state
        t.drive_state[:] = snap.drive_state
        t.wheel_state[:] = snap.wheel_state
        t.controls[:] = snap.controls
        if snap.wheel_telemetry is not None:
            t.wheel_telemetry[:] = snap.wheel_telemetry
            t.body_telemetry[:] = snap.body_telemetry
        else:
            t.wheel_telemetry[:] = 0.0
            t.body_telemetry[:] = 0.0
        self._watch_baseline(np.arange(self.n))          # the watchdog starts over from the restored state

    def state_hash(self) -> str:
        """SHA-256 of the state tables' bytes: equal hashes mean bit-identical states."""
        return hashlib.sha256(b"".join(a.tobytes() for a in self.tables.state())).hexdigest()

    def finite(self) -> bool:
        """False if any state or telemetry value is NaN or infinite (a blow-up)."""
        t = self.tables
        return bool(all(np.isfinite(a).all() for a in (*t.state(), t.wheel_telemetry, t.body_telemetry)))
