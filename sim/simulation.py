"""The headless API: `Simulation` holds N vehicles in one world and steps them at a fixed dt.

    import sim
    car = sim.load_vehicle("hatchback")
    world = sim.load_world("proving_ground")
    s = sim.Simulation(car, world, dt=1/240, substeps=2, n_vehicles=1)
    s.reset(position=(0.0, 0.0, 0.5), yaw=0.0, speed=0.0)
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

import numba
import numpy as np

from sim import advisor
from sim.kernel import tables as T
from sim.kernel import watch
from sim.kernel.contact import spin_axis
from sim.kernel.control_rows import normalise_trace
from sim.kernel.gearbox import driven_radius, total_ratio
from sim.kernel.jit import announce_compile
from sim.kernel.step import run_vehicles, step_and_watch
from sim.kernel.units import RPM
from sim.kernel.vec import quat_rotate
from sim.model.checks import validate
from sim.model.geometry import WheelGeometry, wheel_geometry
from sim.model.pack import SWITCHES, apply_switches, pack_vehicle
from sim.model.params import Vehicle
from sim.model.world import World

MAX_DT = 0.05              # s: the longest fixed step (the advisor bounds it further per car)
MAX_SUBSTEPS = 1000

CONTROL_COLUMNS = ("throttle", "brake", "steer", "handbrake", "clutch", "shift", "gear", "abs", "tc", "esp")
"""The columns of a control row, in order: what `Controls.row`, `Controls.from_row` and
`Simulation.run` use, and what a recorded trace stores. gear holds NO_GEAR when no gear is requested."""
NO_GEAR = T.NO_GEAR
CONTROL_DEFAULTS = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, NO_GEAR, 0.0, 0.0, 0.0)   # no input, no gear request, aids off
assert CONTROL_COLUMNS.index("gear") == T.CT_GEAR and len(CONTROL_COLUMNS) == T.CT_N


_POOL: list = []               # the worker threads that share a batch's vehicles, made on first use


def threads() -> int:
    """How many cores a batch's vehicles are shared among: numba's thread count (the NUMBA_NUM_THREADS
    environment variable, or `numba.set_num_threads`), all cores by default."""
    return max(1, numba.get_num_threads())


def share_vehicles(kernel, args: tuple, n: int) -> None:
    """Run `kernel(*args, v0, v1)` over the vehicles 0 .. n-1, shared among `threads()` cores: the
    kernel lets go of Python's lock, and each thread takes the next of about four pieces per core as it
    finishes one (vehicles near boxes cost more than those on the flat). Each vehicle's arithmetic does
    not depend on the sharing, so the result is bit for bit the same at any thread count."""
    workers = min(threads(), n)
    if workers <= 1:
        kernel(*args, 0, n)
        return
    if not _POOL or _POOL[0]._max_workers != workers:
        from concurrent.futures import ThreadPoolExecutor
        if _POOL:
            _POOL.pop().shutdown(wait=False)
        _POOL.append(ThreadPoolExecutor(max_workers=workers, thread_name_prefix="contactpatch-batch"))
    pieces = min(n, 4 * workers)
    edges = [n * i // pieces for i in range(pieces + 1)]
    jobs = [_POOL[0].submit(kernel, *args, edges[i], edges[i + 1]) for i in range(pieces)]
    for job in jobs:
        job.result()                      # waits, and raises what a piece raised


def _finite(value) -> bool:
    """A number, or an array of numbers, all finite."""
    try:
        if type(value) is float or type(value) is int:      # the common case, without numpy
            return math.isfinite(value)
        return bool(np.all(np.isfinite(np.asarray(value, dtype=np.float64))))
    except (TypeError, ValueError, OverflowError):
        return False


def normalise_row(row: tuple) -> list:
    """`normalise_rows` for one row of CT_N plain numbers, without numpy (a replay reads one a step)."""
    for k, x in enumerate(row):
        if not math.isfinite(x):
            raise ValueError(f"control row 0: {CONTROL_COLUMNS[k]} = {x!r} is not a finite number")
    out = list(row)
    shift = out[T.CT_SHIFT]
    out[T.CT_SHIFT] = 1.0 if shift > 0.0 else -1.0 if shift < 0.0 else 0.0
    gear = float(math.trunc(out[T.CT_GEAR]))
    out[T.CT_GEAR] = NO_GEAR if gear > T.MAX_GEARS else gear
    for k in (T.CT_ABS, T.CT_TC, T.CT_ESP):
        out[k] = 1.0 if out[k] > 0.5 else 0.0
    return out


def normalise_rows(rows: np.ndarray) -> np.ndarray:
    """Control rows (..., CT_N) as every path reads them (Controls.from_row, Simulation.run, traces):
    shift as its sign, gear as a whole number (anything above MAX_GEARS means NO_GEAR, no request), the
    aids as 0 or 1. The other inputs are clamped to their ranges by the stages. A value that is not a
    finite number raises ValueError naming the step and the column."""
    rows = np.array(rows, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(rows))
    if len(bad):
        where = bad[0]
        raise ValueError(f"control row {int(where[0]) if rows.ndim > 1 else 0}: "
                         f"{CONTROL_COLUMNS[int(where[-1])]} = {rows[tuple(where)]!r} is not a finite number")
    rows[..., T.CT_SHIFT] = np.sign(rows[..., T.CT_SHIFT])
    gear = np.trunc(rows[..., T.CT_GEAR])
    rows[..., T.CT_GEAR] = np.where(gear > T.MAX_GEARS, NO_GEAR, gear)
    rows[..., T.CT_ABS] = rows[..., T.CT_ABS] > 0.5
    rows[..., T.CT_TC] = rows[..., T.CT_TC] > 0.5
    rows[..., T.CT_ESP] = rows[..., T.CT_ESP] > 0.5
    return rows


@dataclass(frozen=True)
class Controls:
    """Driver inputs for one step. Scalars apply to every vehicle; arrays of shape (N,) to each.

    throttle: 0..1 (direct drive: -1..1, negative drives backwards); brake: 0..1; steer: -1..1, positive
    turns left; handbrake: 0..1; clutch: 0..1 pedal (1 = pressed, open); shift: -1 down, 0 none, +1 up;
    gear: None or the gear wanted now (-1 reverse, 0 neutral, 1..n); abs, tc, esp: the driver aids (ABS,
    traction control, stability control)."""
    throttle: float | np.ndarray = 0.0
    brake: float | np.ndarray = 0.0
    steer: float | np.ndarray = 0.0
    handbrake: float | np.ndarray = 0.0
    clutch: float | np.ndarray = 0.0
    shift: int | np.ndarray = 0
    gear: int | None = None
    abs: bool = False
    tc: bool = False
    esp: bool = False

    def __post_init__(self):
        """Refuse what is not a finite number (a NaN steer would be full lock, a text "0.5" a surprise)."""
        for name in ("throttle", "brake", "steer", "handbrake", "clutch", "shift", "gear"):
            value = getattr(self, name)
            if value is None and name == "gear":
                continue
            if isinstance(value, (bool, str, bytes)) or not _finite(value):
                raise ValueError(f"Controls: {name} = {value!r} is not allowed; expected a finite number"
                                 + (" or None" if name == "gear" else "") + " (or an array of them)")
        row = self.row()
        # the row as plain numbers when every input is a scalar (the app's case), so packing it is one write
        object.__setattr__(self, "_scalar_row", row if all(isinstance(x, (int, float)) for x in row) else None)

    def row(self) -> tuple:
        """The values in CONTROL_COLUMNS order (scalars, or arrays for per-vehicle inputs)."""
        return (self.throttle, self.brake, self.steer, self.handbrake, self.clutch, self.shift,
                NO_GEAR if self.gear is None else self.gear, 1.0 if self.abs else 0.0, 1.0 if self.tc else 0.0,
                1.0 if self.esp else 0.0)

    @classmethod
    def from_row(cls, row) -> Controls:
        """Controls from the first len(row) of CONTROL_COLUMNS (normalised as `normalise_rows` does); the
        columns not given keep their defaults."""
        if len(row) > T.CT_N:
            raise ValueError(f"a control row has at most {T.CT_N} columns ({', '.join(CONTROL_COLUMNS)}), "
                             f"not {len(row)}")
        full = normalise_row(tuple(float(x) for x in row) + CONTROL_DEFAULTS[len(row):])
        gear = int(full[T.CT_GEAR])
        return cls(float(full[T.CT_THROTTLE]), float(full[T.CT_BRAKE]), float(full[T.CT_STEER]),
                   float(full[T.CT_HANDBRAKE]), clutch=float(full[T.CT_CLUTCH]), shift=int(full[T.CT_SHIFT]),
                   gear=None if gear == NO_GEAR else gear, abs=bool(full[T.CT_ABS]), tc=bool(full[T.CT_TC]),
                   esp=bool(full[T.CT_ESP]))

    def pack_into(self, controls: np.ndarray) -> None:
        """Write into the controls table (N, CT_N)."""
        values = self._scalar_row
        if values is not None:
            controls[:] = values
            return
        values = self.row()
        for k in range(T.CT_N):
            controls[:, k] = values[k]


_DEFAULTS = np.array(CONTROL_DEFAULTS)


def control_rows(trace, n_vehicles: int) -> np.ndarray:
    """A trace of control rows (K, C) or (K, N, C), C <= CT_N columns in CONTROL_COLUMNS order, as the
    full, normalised (K, N, CT_N) array the kernels read; the columns not given keep their defaults."""
    trace = np.asarray(trace, dtype=np.float64)
    if trace.ndim == 2:
        trace = trace[:, None, :]
    cols = trace.shape[-1]
    if cols > T.CT_N:
        raise ValueError(f"a control row has at most {T.CT_N} columns ({', '.join(CONTROL_COLUMNS)}), not {cols}")
    if trace.shape[1] not in (1, n_vehicles):
        raise ValueError(f"a control trace of shape {trace.shape} does not fit {n_vehicles} vehicles; expected "
                         f"(K, {n_vehicles}, C), (K, 1, C) or (K, C)")
    trace = np.ascontiguousarray(trace)
    out = np.empty((trace.shape[0], n_vehicles, T.CT_N))
    bad = normalise_trace(trace, _DEFAULTS, out)               # normalise_rows' rules, in one compiled pass
    if bad >= 0:
        k, c = divmod(int(bad), T.CT_N)
        column = trace[k, :, c]
        raise ValueError(f"control row {k}: {CONTROL_COLUMNS[c]} = {float(column[~np.isfinite(column)][0])!r} "
                         f"is not a finite number")
    return out


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


WATCH_EVERY = 60            # steps: Simulation.run checks at least this often
WATCH_POWER_FACTOR = 1.5    # -: the energy budget grows at this times the engine's peak power ...
WATCH_POWER_SLACK = 50e3    # W: ... plus this (moving platforms, rounding)
WATCH_ENERGY_HEIGHT = 10.0  # m: and starts with the energy of this much height (springs, a drop)
REQUIRED_MARGIN_TEXT = f"a part needs a margin of {advisor.REQUIRED_MARGIN:g}"


class BlowUp(RuntimeError):
    """The watchdog saw a state no car reaches; the message names the vehicle, what was seen and the
    stability advisor's likeliest cause."""

    def __init__(self, message: str, vehicle: int):
        super().__init__(message)
        self.vehicle = vehicle


def max_power(car: Vehicle) -> float:
    """The most power (W) the drive can put in: the engine's peak T omega over its curve up to the
    redline, or for a direct drive T_max omega_max / 4 per driven wheel (the fade's peak)."""
    if car.drive.mode == "direct":
        driven = 2 if car.drive.layout in ("rwd", "fwd") else 4
        return driven * car.drive.max_wheel_torque * car.drive.max_wheel_speed / 4.0
    e = car.engine
    rpm = np.linspace(0.0, e.redline_rpm, 200)
    torque = np.interp(rpm, e.torque_rpm, e.torque_nm)
    return float(np.max(torque * rpm / RPM))


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


class _Views:
    """Named views of a simulation's tables. They hold the tables, not the simulation: without a cycle
    between the two, a simulation dropped is freed at once, not at Python's next full collection (which
    the app runs with its start-up objects frozen, sim's included)."""

    def __init__(self, owner: Simulation):
        self._tables = owner.tables
        self._n = owner.n

    def _v(self, a: np.ndarray) -> np.ndarray:
        return a[0] if self._n == 1 else a


class StateView(_Views):
    """Named views of the state tables."""

    @property
    def position(self):          # m, centre of mass, world (3,) or (N, 3)
        return self._v(self._tables.body_state[:, T.BS_PX:T.BS_PZ + 1])

    @property
    def orientation(self):       # unit quaternion (w, x, y, z), body -> world
        return self._v(self._tables.body_state[:, T.BS_QW:T.BS_QZ + 1])

    @property
    def velocity(self):          # m/s, world
        return self._v(self._tables.body_state[:, T.BS_VX:T.BS_VZ + 1])

    def body_list(self, vehicle: int = 0) -> list[float]:
        """One vehicle's body state as plain floats: position (3), orientation (w, x, y, z), velocity (3),
        angular velocity (3), the order of the state table (read in one go: the app reads it every step)."""
        return self._tables.body_state[vehicle].tolist()

    @property
    def angular_velocity(self):  # rad/s, world
        return self._v(self._tables.body_state[:, T.BS_WX:T.BS_WZ + 1])

    @property
    def wheel_omega(self):       # rad/s per wheel FL, FR, RL, RR; positive rolls forward
        return self._v(self._tables.wheel_state[:, :, T.WS_OMEGA])

    @property
    def wheel_steer(self):       # rad per wheel, positive turns left
        return self._v(self._tables.wheel_state[:, :, T.WS_STEER])

    @property
    def wheel_angle(self):       # rad spin angle per wheel in [0, 2 pi)
        return self._v(self._tables.wheel_state[:, :, T.WS_ANGLE])

    @property
    def engine_omega(self):      # rad/s
        return self._v(self._tables.drive_state[:, T.DS_OMEGA_E])

    @property
    def engine_rpm(self):
        return self._v(self._tables.drive_state[:, T.DS_OMEGA_E] * RPM)

    @property
    def gear(self):              # engaged gear: -1 reverse, 0 neutral, 1.. forward
        return self._v(self._tables.drive_state[:, T.DS_GEAR].astype(int))


_WHEEL_SCALARS = {
    "s": T.W_S, "a": T.W_A, "l": T.W_L, "l_raw": T.W_LRAW, "x": T.W_X, "xdot": T.W_XDOT,
    "Fs": T.W_FS, "Fz": T.W_FZ, "vx": T.W_VX, "vy": T.W_VY, "kappa": T.W_KAPPA, "alpha": T.W_ALPHA,
    "Fx_raw": T.W_FX_RAW, "Fy_raw": T.W_FY_RAW, "Fx": T.W_FX, "Fy": T.W_FY,
    "grip_scale": T.W_GRIP_SCALE, "T_drive": T.W_T_DRIVE, "T_brake": T.W_T_BRAKE, "omega": T.W_OMEGA,
    "rho": T.W_RHO, "r_eff": T.W_R_EFF, "grounded": T.W_GROUNDED, "surface": T.W_SURFACE,
    "shape": T.W_SHAPE, "mu": T.W_MU, "steer": T.W_STEER, "abs_active": T.W_ABS, "locked": T.W_LOCKED,
    "dFx_dkappa": T.W_DFX, "esp_brake": T.W_ESP, "camber": T.W_GAMMA,
}
_WHEEL_VECTORS = {
    "Q": T.W_QX, "n": T.W_NX, "t": T.W_TX, "b": T.W_BX, "C": T.W_CX, "u": T.W_UX,
    "F_suspension": T.W_FSX, "F_tire": T.W_FTX, "F_rolling": T.W_FRX, "v_ground": T.W_VGX,
}
_BODY_SCALARS = {
    "rpm": T.TB_RPM, "T_engine": T.TB_T_ENGINE, "T_clutch": T.TB_T_CLUTCH, "tc_active": T.TB_TC_ACTIVE,
    "esp_cut": T.TB_ESP_CUT, "yaw_rate_ref": T.TB_YAW_REF,
    "hull_contacts": T.TB_HULL_CONTACTS, "hull_depth": T.TB_HULL_DEPTH,
}
_BODY_VECTORS = {
    "H_body": T.TB_HBODY_X, "H_wheels": T.TB_HWHEELS_X, "H_engine": T.TB_HENGINE_X, "H_total": T.TB_HTOTAL_X,
}


_LIST_COLUMNS: dict[tuple[str, ...], np.ndarray] = {}    # TelemetryView.wheel_lists' column picks, by names


class TelemetryView(_Views):
    """Telemetry of the last substep, by the spec's names (docs/physics.md §13 says what each means).

    Per wheel (4,) or (N, 4): s a l l_raw x xdot Fs Fz vx vy kappa alpha Fx_raw Fy_raw Fx Fy grip_scale
    T_drive T_brake omega rho r_eff grounded surface shape mu steer abs_active locked dFx_dkappa esp_brake
    camber.
    Per wheel vectors (4, 3) or (N, 4, 3), world: Q n t b C u F_suspension F_tire F_rolling v_ground.
    Body: rpm gear T_engine T_clutch diff_lock (front, rear) tc_active esp_cut yaw_rate_ref hull_contacts;
    `forces` (dict name -> (3,) world N: gravity drag downforce rolling suspension tire collision); the angular momenta
    about the centre of mass H_body H_wheels H_engine H_total (N m s)."""

    scalar_names = tuple(_WHEEL_SCALARS)
    vector_names = tuple(_WHEEL_VECTORS)

    def __getattr__(self, name):
        """A channel's view of the telemetry table, made on first use and kept: the tables live as long as
        the simulation, and a view shows what they hold now (the app reads some 60 channels a step, and
        making each view anew cost it 0.25 ms a frame)."""
        tables = self._tables
        if name in _WHEEL_SCALARS:
            view = self._v(tables.wheel_telemetry[:, :, _WHEEL_SCALARS[name]])
        elif name in _WHEEL_VECTORS:
            i = _WHEEL_VECTORS[name]
            view = self._v(tables.wheel_telemetry[:, :, i:i + 3])
        elif name in _BODY_SCALARS:
            view = self._v(tables.body_telemetry[:, _BODY_SCALARS[name]])
        elif name in _BODY_VECTORS:
            i = _BODY_VECTORS[name]
            view = self._v(tables.body_telemetry[:, i:i + 3])
        else:
            raise AttributeError(name)
        if isinstance(view, np.ndarray):        # (one car's body scalar is a number, read anew each time)
            self.__dict__[name] = view
        return view

    def wheel_lists(self, names: tuple[str, ...], vehicle: int = 0) -> list[list[float]]:
        """Per-wheel channels `names` of one vehicle as plain floats, one list of four per name, read from
        the table in one go (the app reads a dozen channels a step for its diagnosis, plots and marks)."""
        cols = _LIST_COLUMNS.get(names)
        if cols is None:
            cols = _LIST_COLUMNS[names] = np.array([_WHEEL_SCALARS[name] for name in names])
        return self._tables.wheel_telemetry[vehicle][:, cols].T.tolist()

    @property
    def gear(self):
        return self._v(self._tables.body_telemetry[:, T.TB_GEAR].astype(int))

    @property
    def diff_lock(self):         # N m, (front, rear) locking torque
        return self._v(self._tables.body_telemetry[:, T.TB_LOCK_F:T.TB_LOCK_R + 1])

    @property
    def forces(self) -> dict[str, np.ndarray]:
        return {k: self._v(self._tables.body_telemetry[:, i:i + 3]) for k, i in T.EXTERNAL_FORCES.items()}


class Simulation:
    """N vehicles of the same parameters (or one set each) in one world, stepped at a fixed dt.

    Read it through `state` and `telemetry` (named views), `params` / `vehicle` / `next_params`, and
    `wheel_geometry`; keep and restore it with `snapshot` / `restore`. The packed arrays in `tables` are
    the kernels' business."""

    def __init__(self, vehicle: Vehicle | Sequence[Vehicle], world: World, dt: float = 1.0 / 240.0,
                 substeps: int = 2, n_vehicles: int = 1, watchdog: str | bool = "raise", check_stability: bool = True):
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
        if watchdog not in ("raise", "flag", False):
            raise ValueError(f"watchdog = {watchdog!r} is not allowed; expected 'raise', 'flag' or False")
        self.watchdog = watchdog
        self._no_watch = np.zeros((1, watch.WT_N))        # step_and_watch's table when nothing is watched
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
        self._pending: dict[int, Vehicle] = {}
        checked: dict[int, object] = {}
        for i, car in enumerate(vehicles):
            if id(car) not in checked:
                validate(car, car.name)
                checked[id(car)] = advisor.check(car, dt, substeps, surface_mu=self.surface_mu) \
                    if check_stability else None
            self._pack(i, car)
        self.params = vehicles
        self._geometry: dict[int, tuple[Vehicle, WheelGeometry]] = {}
        self._world_tables = world.tables()
        self._gravity = world.gravity
        self.state = StateView(self)
        self.telemetry = TelemetryView(self)
        self._announced = False
        self._reported: set[int] = set()
        self.reset()

    # ------------------------------------------------------------------------------------------------
    @property
    def vehicle(self) -> Vehicle:
        """The parameters of vehicle 0 (the app's car)."""
        return self.params[0]

    def set_params(self, vehicle: Vehicle, index: int | None = None) -> None:
        """Use new parameters from the next step on (for every vehicle, or only `index`). Parameters out
        of range, or unstable at this step (sim.advisor), are refused with a ConfigError."""
        if index is not None and (isinstance(index, bool) or not isinstance(index, (int, np.integer))
                                  or not 0 <= index < self.n):
            raise ValueError(f"index = {index!r} is not allowed; expected a vehicle index in [0, {self.n - 1}] "
                             f"or None")
        validate(vehicle, vehicle.name)
        if self.check_stability:
            advisor.check(vehicle, self.dt, self.substeps, surface_mu=self.surface_mu)
        for i in (range(self.n) if index is None else [index]):
            self._pending[i] = vehicle

    def set_substeps(self, substeps: int) -> None:
        """Take `substeps` substeps per step from the next step on (1..MAX_SUBSTEPS); refused with a
        ConfigError when some vehicle's parameters would be unstable at the new substep (sim.advisor)."""
        if isinstance(substeps, bool) or not isinstance(substeps, (int, np.integer)) \
                or not 1 <= substeps <= MAX_SUBSTEPS:
            raise ValueError(f"substeps = {substeps!r} is not allowed; expected a whole number in "
                             f"[1, {MAX_SUBSTEPS}]")
        if self.check_stability:
            for car in {id(c): c for c in [self.next_params(i) for i in range(self.n)]}.values():
                advisor.check(car, self.dt, int(substeps), surface_mu=self.surface_mu)
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
                     hull_friction_limit=advisor.hull_friction_limit(car), gravity=self.world.gravity)
        off = getattr(self, "_switched_off", {}).get(i)
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
        if not hasattr(self, "_switched_off"):
            self._switched_off = {}
        for i in (range(self.n) if index is None else [index]):
            off = set(self._switched_off.get(i, ()))
            for name, value in on.items():
                (off.discard if value else off.add)(name)
            self._switched_off[i] = off
            self._pack(i, self.params[i])           # pending parameters get them when they are packed

    def switches(self, index: int = 0) -> dict[str, bool]:
        """Which parts are on (True) for vehicle `index`."""
        off = getattr(self, "_switched_off", {}).get(index, ())
        return {name: name not in off for name in SWITCHES}

    def switched_on(self, name: str, index: int = 0) -> bool:
        """switches(index)[name], without building the whole dict (the skid marks ask every step)."""
        if name not in SWITCHES:
            raise KeyError(name)
        return name not in getattr(self, "_switched_off", {}).get(index, ())

    def _apply_pending(self) -> None:
        changed = list(self._pending)
        for i, car in self._pending.items():
            self._pack(i, car)
            self.params[i] = car
        self._pending.clear()
        if changed and hasattr(self, "health"):
            self._watch_baseline(np.array(changed))     # new mass, power: the energy budget starts again

    def reset(self, position=(0.0, 0.0, 0.5), yaw: float | np.ndarray = 0.0,
              speed: float | np.ndarray = 0.0, index: int | None = None, gear: int = 1) -> None:
        """Place vehicles upright: centre of mass at `position` (m), heading `yaw` (rad, about z), moving
        forward at `speed` (m/s) with the wheels rolling at speed / r, in `gear` (-1 R, 0 N, 1..) with the
        engine turning at the matching speed (at least idle). Scalars or per-vehicle arrays.

        A car placed so low that a wheel at its shortest suspension or its body would be inside the ground
        is lifted until they are not (the ground under its centre, found by a ray from above)."""
        self._apply_pending()
        t = self.tables
        if index is not None and (isinstance(index, bool) or not isinstance(index, (int, np.integer))
                                  or not 0 <= index < self.n):
            raise ValueError(f"index = {index!r} is not allowed; expected a vehicle index in [0, {self.n - 1}] "
                             f"or None")
        if isinstance(gear, bool) or not isinstance(gear, (int, np.integer)):
            raise ValueError(f"gear = {gear!r} is not allowed; expected a whole number (-1 reverse, 0 neutral, 1..)")
        idx = np.arange(self.n) if index is None else np.array([index])
        for name, value, shape in (("position", position, (len(idx), 3)), ("yaw", yaw, (len(idx),)),
                                   ("speed", speed, (len(idx),))):
            if not _finite(value):
                raise ValueError(f"reset: {name} = {value!r} is not allowed; expected finite numbers")
            try:
                np.broadcast_to(np.asarray(value, float), shape)
            except ValueError:
                raise ValueError(f"reset: {name} has shape {np.shape(value)}; expected {shape[1:] or 'a number'} "
                                 f"or {shape}") from None
        pos = np.array(np.broadcast_to(np.asarray(position, float), (len(idx), 3)))
        yaw = np.broadcast_to(np.asarray(yaw, float), (len(idx),))
        speed = np.broadcast_to(np.asarray(speed, float), (len(idx),))
        for k, v in enumerate(idx):
            pos[k, 2] = max(pos[k, 2], self._lowest_com(int(v), pos[k]))
        for k, v in enumerate(idx):
            c, s = math.cos(yaw[k] / 2), math.sin(yaw[k] / 2)
            body, drive, wheels = t.body_state[v], t.drive_state[v], t.wheel_state[v]
            wheel_params, vehicle_params = t.wheel_params[v], t.vehicle_params[v]
            body[:] = 0.0
            body[T.BS_PX:T.BS_PZ + 1] = pos[k]
            body[T.BS_QW:T.BS_QZ + 1] = (c, 0.0, 0.0, s)
            fwd = np.array([math.cos(yaw[k]), math.sin(yaw[k]), 0.0])
            body[T.BS_VX:T.BS_VZ + 1] = fwd * speed[k]
            wheels[:] = 0.0
            wheels[:, T.WS_SHAPE] = -1.0
            q = tuple(body[T.BS_QW:T.BS_QZ + 1])
            for i in range(T.NW):
                omega = speed[k] / wheel_params[i, T.WP_R]
                wheels[i, T.WS_OMEGA] = omega
                # committed spin momentum consistent with the start, so the first step sees no jump
                u = np.array(spin_axis(q, wheel_params[i, T.WP_CAMBER], 0.0))
                wheels[i, T.WS_HX:T.WS_HZ + 1] = wheel_params[i, T.WP_IW] * omega * u
            wheels[:, T.WS_ABS] = 1.0
            n_gears = int(vehicle_params[T.VP_NGEARS])
            g_sel = int(min(max(gear, -1), n_gears))
            r_driven = driven_radius(int(v), t.wheel_params)
            ratio = total_ratio(t.vehicle_params, int(v), g_sel)
            geared = abs(ratio * speed[k] / r_driven)               # the engine speed the wheels imply
            omega_e = max(vehicle_params[T.VP_IDLE_OMEGA], geared)
            drive[:] = 0.0
            drive[T.DS_OMEGA_E] = 0.0 if vehicle_params[T.VP_DIRECT] > 0.5 else omega_e
            drive[T.DS_GEAR] = g_sel
            drive[T.DS_GEAR_TARGET] = g_sel
            drive[T.DS_TC] = 1.0
            u_engine = np.array(quat_rotate(q, tuple(vehicle_params[T.VP_UEX:T.VP_UEZ + 1])))
            drive[T.DS_HEX:T.DS_HEZ + 1] = vehicle_params[T.VP_IE] * drive[T.DS_OMEGA_E] * u_engine
            t.wheel_scratch[v] = 0.0
            t.wheel_telemetry[v] = 0.0
            t.body_telemetry[v] = 0.0
            t.controls[v] = CONTROL_DEFAULTS
        self._watch_baseline(idx)

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
    # The watchdog: blow-ups caught by physics, not by NaN

    def _watch_baseline(self, idx) -> None:
        """Energy and time the energy budget counts from (at a reset, a restore, new parameters)."""
        if not hasattr(self, "health"):
            self.health = [""] * self.n
            self._watch_table = np.zeros((self.n, watch.WT_N))
            self._watch_table[:, watch.WT_DEEP_SINCE] = np.nan
        w = self._watch_table
        for v, car in enumerate(self.params):
            ch = car.chassis
            w[v, watch.WT_MASS:watch.WT_IZZ + 1] = ch.mass, ch.inertia_roll, ch.inertia_pitch, ch.inertia_yaw
            w[v, watch.WT_RADIUS] = min(car.front_tire.radius, car.rear_tire.radius)
            w[v, watch.WT_RATE] = WATCH_POWER_FACTOR * max_power(car) + WATCH_POWER_SLACK
            w[v, watch.WT_SLACK] = ch.mass * self.world.gravity * WATCH_ENERGY_HEIGHT
        w[idx, watch.WT_DEEP_SINCE] = np.nan
        for v in idx:
            self.health[v] = ""
            self._reported.discard(int(v))
        w[idx, watch.WT_E0] = self._energy()[idx]
        w[idx, watch.WT_T0] = self.time

    def _energy(self) -> np.ndarray:
        """Kinetic (translation and body rotation) plus gravitational energy of each vehicle (J), from the
        state alone."""
        out = np.empty(self.n)
        watch.energies(self.tables.body_state, self._watch_table, self.world.gravity, out)
        return out

    def check_health(self) -> list[str]:
        """What is wrong with each vehicle's state ("" when it is physical): non-finite numbers, speeds or
        spins no car reaches, a body deeper in the ground than a wheel radius for half a second, or more
        energy than the engine can have given it (a budget that grows at the engine's power and never
        above the energy the car had plus that growth: energy lost is not credited). Updates `health`."""
        if self.watchdog is False:
            return self.health
        w = self._watch_table
        if not watch.check_vehicles(self.tables.body_state, self.tables.wheel_state, self.tables.body_telemetry, w,
                                    self.world.gravity, self.time):
            return self.health
        for v in np.flatnonzero(w[:, watch.WT_CODE]):
            if self.health[v]:
                continue
            c, x = int(w[v, watch.WT_CODE]), w[v, watch.WT_VALUE]
            self.health[v] = {
                watch.NOT_FINITE: "numbers that are not finite",
                watch.TOO_FAST: f"a speed of {x:.0f} m/s (no car reaches {watch.MAX_SPEED:g})",
                watch.SPINNING: f"a body spin of {x:.0f} rad/s (no car reaches {watch.MAX_SPIN:g})",
                watch.SUNK: f"the body {x:.2f} m inside the ground for {watch.DEEP_TIME:g} s (deeper than a wheel "
                            f"radius)",
                watch.ENERGY: f"{x / 1000:.0f} kJ more energy than the engine could have given it",
            }[c]
        return self.health

    def _watch(self) -> None:
        if self.watchdog is False:
            return
        health = self.check_health()
        if not any(health):                  # (the common case, without a pass over a batch's vehicles)
            return
        sick = [v for v, h in enumerate(health) if h and v not in self._reported]
        if not sick:
            return
        self._reported.update(sick)
        if self.watchdog == "raise":
            v = sick[0]
            raise BlowUp(self.blow_up_message(v), v)

    def blow_up_message(self, v: int) -> str:
        """One line: what the watchdog saw on vehicle v and the advisor's likeliest cause."""
        r = advisor.report(self.params[v], self.dt, self.substeps, self.surface_mu)
        w = r.worst
        if r.stable:
            cause = (f"every part the stability advisor knows is stable (the least, the {w.part}, has a margin "
                     f"of {w.margin:.2f}), so the cause is outside its model")
            car = self.params[v]
            axis = [a for a in ("front", "rear") if getattr(car, f"{a}_suspension").force_along == "axis"]
            if axis:
                names = " and ".join(f"{a}_suspension.force_along" for a in axis)
                cause += (f"; {names} = \"axis\" {'push' if len(axis) > 1 else 'pushes'} the body along the "
                          f"contact plane without a friction limit (\"normal\" does not)")
        else:
            cause = (f"the least stable part is the {w.part} ({w.parameter}, margin {w.margin:.2f}; "
                     f"{REQUIRED_MARGIN_TEXT})")
        who = f"vehicle {v}: " if self.n > 1 else ""
        return f"{who}the physics blew up at t = {self.time:.3f} s: {self.health[v]}; {cause}"

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
        watching = self.watchdog is not False and hasattr(self, "_watch_table")
        sick = step_and_watch(t.vehicle_params, t.wheel_params, t.hull_points, t.controls, t.body_state,
                              t.drive_state, t.wheel_state, t.wheel_scratch, t.wheel_telemetry, t.body_telemetry,
                              planes, boxes, hf_meta, hf_z, surf_mu, self._gravity, self.time, self.dt, self.substeps,
                              self._watch_table if watching else self._no_watch, watching, (self.steps + 1) * self.dt)
        self.steps += 1
        self.time = self.steps * self.dt
        if sick:
            self._watch()

    def run(self, controls_trace: np.ndarray) -> None:
        """Advance len(trace) steps in one compiled call; trace (K, N, C) or (K, C) of control rows with
        the first C of CONTROL_COLUMNS (throttle, brake, steer, handbrake, clutch, shift, gear, abs, tc;
        the rest keep their defaults). Same result as calling step() K times."""
        if self._pending:
            self._apply_pending()
        trace = control_rows(controls_trace, self.n)
        if not self._announced:
            self._announce()
        t = self.tables
        planes, boxes, hf_meta, hf_z, surf_mu = self._world_tables
        # with a watchdog, in pieces of WATCH_EVERY steps: a blow-up stops the run soon after it starts
        piece = WATCH_EVERY if self.watchdog is not False else max(1, len(trace))
        for k in range(0, len(trace), piece):
            part = trace[k:k + piece]
            args = (t.vehicle_params, t.wheel_params, t.hull_points, part, t.body_state, t.drive_state,
                    t.wheel_state, t.wheel_scratch, t.wheel_telemetry, t.body_telemetry, planes, boxes, hf_meta,
                    hf_z, surf_mu, self._gravity, self.time, self.dt, self.substeps)
            share_vehicles(run_vehicles, args, self.n)
            t.controls[:] = part[-1]
            self.steps += len(part)
            self.time = self.steps * self.dt
            self._watch()

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
