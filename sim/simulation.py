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

import dataclasses
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from sim import layout as L
from sim.jit import announce_compile
from sim.pack import pack_vehicle
from sim.params import Vehicle, validate
from sim.step import run_batch, step_batch
from sim.world import World


@dataclass(frozen=True)
class Controls:
    """Driver inputs for one step. Scalars apply to every vehicle; arrays of shape (N,) to each.

    throttle: 0..1 (direct drive: -1..1, negative drives backwards); brake: 0..1; steer: -1..1, positive
    turns left; handbrake: 0..1; clutch: 0..1 pedal (1 = pressed, open); shift: -1 down, 0 none, +1 up;
    gear: None or the gear wanted now (-1 reverse, 0 neutral, 1..n); abs, tc: the driver aids."""
    throttle: float | np.ndarray = 0.0
    brake: float | np.ndarray = 0.0
    steer: float | np.ndarray = 0.0
    handbrake: float | np.ndarray = 0.0
    clutch: float | np.ndarray = 0.0
    shift: int | np.ndarray = 0
    gear: int | None = None
    abs: bool = False
    tc: bool = False

    def pack_into(self, ctrl: np.ndarray) -> None:
        values = (self.throttle, self.brake, self.steer, self.handbrake, self.clutch, self.shift,
                  L.NO_GEAR if self.gear is None else self.gear, 1.0 if self.abs else 0.0,
                  1.0 if self.tc else 0.0)
        if all(isinstance(x, (int, float)) for x in values):
            if ctrl.shape[0] == 1:       # the app's case: scalar writes, no numpy broadcasting
                row = ctrl[0]
                for k in range(L.CT_N):
                    row[k] = values[k]
            else:
                ctrl[:] = values
            return
        for k in range(L.CT_N):
            ctrl[:, k] = values[k]


@dataclass(frozen=True)
class Snapshot:
    """Everything needed to continue a run bit for bit: time, the state tables and the last substep's
    telemetry (ABS and traction control read the previous substep's slip), all copies."""
    time: float
    steps: int
    body: np.ndarray
    wheels: np.ndarray
    controls: np.ndarray
    wheel_telemetry: np.ndarray
    body_telemetry: np.ndarray


class _Views:
    def __init__(self, sim: "Simulation"):
        self._sim = sim

    def _v(self, a: np.ndarray) -> np.ndarray:
        return a[0] if self._sim.n == 1 else a


class StateView(_Views):
    """Named views of the state tables."""

    @property
    def position(self):          # m, centre of mass, world (3,) or (N, 3)
        return self._v(self._sim.bs[:, L.BS_PX:L.BS_PZ + 1])

    @property
    def orientation(self):       # unit quaternion (w, x, y, z), body -> world
        return self._v(self._sim.bs[:, L.BS_QW:L.BS_QZ + 1])

    @property
    def velocity(self):          # m/s, world
        return self._v(self._sim.bs[:, L.BS_VX:L.BS_VZ + 1])

    @property
    def angular_velocity(self):  # rad/s, world
        return self._v(self._sim.bs[:, L.BS_WX:L.BS_WZ + 1])

    @property
    def wheel_omega(self):       # rad/s per wheel FL, FR, RL, RR; positive rolls forward
        return self._v(self._sim.ws[:, :, L.WS_OMEGA])

    @property
    def wheel_steer(self):       # rad per wheel, positive turns left
        return self._v(self._sim.ws[:, :, L.WS_STEER])

    @property
    def wheel_angle(self):       # rad spin angle per wheel in [0, 2 pi)
        return self._v(self._sim.ws[:, :, L.WS_ANGLE])

    @property
    def engine_omega(self):      # rad/s
        return self._v(self._sim.bs[:, L.BS_OMEGA_E])

    @property
    def engine_rpm(self):
        return self._v(self._sim.bs[:, L.BS_OMEGA_E] * 60.0 / (2.0 * math.pi))

    @property
    def gear(self):              # engaged gear: -1 reverse, 0 neutral, 1.. forward
        return self._v(self._sim.bs[:, L.BS_GEAR].astype(int))


_TW_SCALARS = {
    "s": L.TW_S, "a": L.TW_A, "l": L.TW_L, "l_raw": L.TW_LRAW, "x": L.TW_X, "xdot": L.TW_XDOT,
    "Fs": L.TW_FS, "Fz": L.TW_FZ, "vx": L.TW_VX, "vy": L.TW_VY, "kappa": L.TW_KAPPA, "alpha": L.TW_ALPHA,
    "Fx_raw": L.TW_FX_RAW, "Fy_raw": L.TW_FY_RAW, "Fx": L.TW_FX, "Fy": L.TW_FY,
    "grip_scale": L.TW_GRIP_SCALE, "T_drive": L.TW_T_DRIVE, "T_brake": L.TW_T_BRAKE, "omega": L.TW_OMEGA,
    "rho": L.TW_RHO, "r_eff": L.TW_R_EFF, "grounded": L.TW_GROUNDED, "surface": L.TW_SURFACE,
    "shape": L.TW_SHAPE, "mu": L.TW_MU, "steer": L.TW_STEER,
}
_TW_VECTORS = {
    "Q": L.TW_QX, "n": L.TW_NX, "t": L.TW_TX, "b": L.TW_BX, "C": L.TW_CX, "u": L.TW_UX,
    "F_suspension": L.TW_FSX, "F_tire": L.TW_FTX, "F_rolling": L.TW_FRX, "v_ground": L.TW_VGX,
}
_TB_VECTORS = {
    "H_body": L.TB_HBODY_X, "H_wheels": L.TB_HWHEELS_X, "H_engine": L.TB_HENGINE_X,
    "H_total": L.TB_HTOTAL_X,
}


class TelemetryView(_Views):
    """Per-wheel telemetry of the last substep, by the spec's names.

    Scalars (4,) or (N, 4): s a l l_raw x xdot Fs Fz vx vy kappa alpha Fx_raw Fy_raw Fx Fy grip_scale
    T_drive T_brake omega rho r_eff grounded surface shape mu steer.
    Vectors (4, 3) or (N, 4, 3), world: Q n t b C u F_suspension F_tire F_rolling v_ground.
    Body: `forces` (dict name -> (3,) world N: gravity drag downforce rolling suspension tire collision),
    `hull_contacts` (hull points touching the ground) and the
    angular momenta about the centre of mass H_body H_wheels H_engine H_total (N m s)."""

    scalar_names = tuple(_TW_SCALARS)
    vector_names = tuple(_TW_VECTORS)

    def __getattr__(self, name):
        tw = self._sim.tw
        if name in _TW_SCALARS:
            return self._v(tw[:, :, _TW_SCALARS[name]])
        if name in _TW_VECTORS:
            i = _TW_VECTORS[name]
            return self._v(tw[:, :, i:i + 3])
        if name in _TB_VECTORS:
            i = _TB_VECTORS[name]
            return self._v(self._sim.tb[:, i:i + 3])
        raise AttributeError(name)

    @property
    def rpm(self):               # engine rpm
        return self._v(self._sim.tb[:, L.TB_RPM])

    @property
    def gear(self):
        return self._v(self._sim.tb[:, L.TB_GEAR].astype(int))

    @property
    def T_engine(self):          # N m, after throttle, limiter and engine braking
        return self._v(self._sim.tb[:, L.TB_T_ENGINE])

    @property
    def T_clutch(self):          # N m
        return self._v(self._sim.tb[:, L.TB_T_CLUTCH])

    @property
    def diff_lock(self):         # N m, (front, rear) locking torque
        return self._v(self._sim.tb[:, L.TB_LOCK_F:L.TB_LOCK_R + 1])

    @property
    def tc_active(self):
        return self._v(self._sim.tb[:, L.TB_TC_ACTIVE])

    @property
    def abs_active(self):        # per wheel
        return self._v(self._sim.tw[:, :, L.TW_ABS])

    @property
    def hull_contacts(self):
        return self._v(self._sim.tb[:, L.TB_HULL_CONTACTS])

    @property
    def forces(self) -> dict[str, np.ndarray]:
        return {k: self._v(self._sim.tb[:, i:i + 3]) for k, i in L.EXTERNAL_FORCES.items()}


class Simulation:
    """N vehicles of the same parameters (or one set each) in one world, stepped at a fixed dt."""

    def __init__(self, vehicle: Vehicle | Sequence[Vehicle], world: World, dt: float = 1.0 / 240.0,
                 substeps: int = 2, n_vehicles: int = 1):
        if not (dt > 0.0 and math.isfinite(dt)):
            raise ValueError(f"dt = {dt!r} is not allowed; expected a positive number of seconds")
        if int(substeps) != substeps or substeps < 1:
            raise ValueError(f"substeps = {substeps!r} is not allowed; expected an integer >= 1")
        if int(n_vehicles) != n_vehicles or n_vehicles < 1:
            raise ValueError(f"n_vehicles = {n_vehicles!r} is not allowed; expected an integer >= 1")
        self.n = int(n_vehicles)
        self.dt = float(dt)
        self.substeps = int(substeps)
        self.world = world
        self.vp = np.zeros((self.n, L.VP_N))
        self.wp = np.zeros((self.n, L.NW, L.WP_N))
        self.hull = np.zeros((self.n, L.NHULL, 3))
        self.bs = np.zeros((self.n, L.BS_N))
        self.ws = np.zeros((self.n, L.NW, L.WS_N))
        self.tw = np.zeros((self.n, L.NW, L.TW_N))
        self.tb = np.zeros((self.n, L.TB_N))
        self.ctrl = np.zeros((self.n, L.CT_N))
        self.time = 0.0
        self.steps = 0
        self.params: list[Vehicle] = []
        self._pending: dict[int, Vehicle] = {}
        vehicles = [vehicle] * self.n if isinstance(vehicle, Vehicle) else list(vehicle)
        if len(vehicles) != self.n:
            raise ValueError(f"{len(vehicles)} vehicle parameter sets given for n_vehicles = {self.n}")
        for i, car in enumerate(vehicles):
            validate(car, car.name)
            pack_vehicle(car, self.vp[i], self.wp[i], self.hull[i])
        self.params = vehicles
        self._tables = world.tables()
        self._gravity = world.gravity
        self.state = StateView(self)
        self.telemetry = TelemetryView(self)
        self._announced = False
        self.reset()

    # ------------------------------------------------------------------------------------------------
    @property
    def vehicle(self) -> Vehicle:
        """The parameters of vehicle 0 (the app's car)."""
        return self.params[0]

    def set_params(self, vehicle: Vehicle, index: int | None = None) -> None:
        """Use new parameters from the next step on (for every vehicle, or only `index`)."""
        validate(vehicle, vehicle.name)
        for i in (range(self.n) if index is None else [index]):
            self._pending[i] = vehicle

    def _apply_pending(self) -> None:
        for i, car in self._pending.items():
            pack_vehicle(car, self.vp[i], self.wp[i], self.hull[i])
            self.params[i] = car
        self._pending.clear()

    def reset(self, position=(0.0, 0.0, 0.5), yaw: float | np.ndarray = 0.0,
              speed: float | np.ndarray = 0.0, index: int | None = None, gear: int = 1) -> None:
        """Place vehicles upright: centre of mass at `position` (m), heading `yaw` (rad, about z), moving
        forward at `speed` (m/s) with the wheels rolling at speed / r, in `gear` (-1 R, 0 N, 1..) with the
        engine turning at the matching speed (at least idle). Scalars or per-vehicle arrays."""
        self._apply_pending()
        idx = np.arange(self.n) if index is None else np.array([index])
        pos = np.broadcast_to(np.asarray(position, float), (len(idx), 3))
        yaw = np.broadcast_to(np.asarray(yaw, float), (len(idx),))
        speed = np.broadcast_to(np.asarray(speed, float), (len(idx),))
        for k, v in enumerate(idx):
            c, s = math.cos(yaw[k] / 2), math.sin(yaw[k] / 2)
            self.bs[v] = 0.0
            self.bs[v, L.BS_PX:L.BS_PZ + 1] = pos[k]
            self.bs[v, L.BS_QW:L.BS_QZ + 1] = (c, 0.0, 0.0, s)
            fwd = np.array([math.cos(yaw[k]), math.sin(yaw[k]), 0.0])
            self.bs[v, L.BS_VX:L.BS_VZ + 1] = fwd * speed[k]
            left = np.array([-math.sin(yaw[k]), math.cos(yaw[k]), 0.0])
            self.ws[v] = 0.0
            self.ws[v, :, L.WS_SHAPE] = -1.0
            for i in range(L.NW):
                omega = speed[k] / self.wp[v, i, L.WP_R]
                self.ws[v, i, L.WS_OMEGA] = omega
                # committed spin momentum consistent with the start, so the first step sees no jump
                cam = self.wp[v, i, L.WP_CAMBER]
                u = left * math.cos(cam) + np.array([0.0, 0.0, 1.0]) * math.sin(cam)
                self.ws[v, i, L.WS_HX:L.WS_HZ + 1] = self.wp[v, i, L.WP_IW] * omega * u
            self.ws[v, :, L.WS_ABS] = 1.0
            vp = self.vp[v]
            n_gears = int(vp[L.VP_NGEARS])
            g_sel = int(min(max(gear, -1), n_gears))
            ratio = 0.0 if g_sel == 0 else (-vp[L.VP_REVERSE] if g_sel < 0 else vp[L.VP_RATIO + g_sel - 1])
            r_driven = float(np.mean(self.wp[v, :, L.WP_R]))
            omega_e = max(vp[L.VP_IDLE_OMEGA], abs(ratio * vp[L.VP_FINAL] * speed[k] / r_driven))
            self.bs[v, L.BS_OMEGA_E] = 0.0 if vp[L.VP_DIRECT] > 0.5 else omega_e
            self.bs[v, L.BS_GEAR] = g_sel
            self.bs[v, L.BS_GEAR_TARGET] = g_sel
            self.bs[v, L.BS_TC] = 1.0
            u_engine = vp[L.VP_UEX:L.VP_UEZ + 1]
            rot = np.array([[math.cos(yaw[k]), -math.sin(yaw[k]), 0.0], [math.sin(yaw[k]), math.cos(yaw[k]), 0.0],
                            [0.0, 0.0, 1.0]])
            self.bs[v, L.BS_HEX:L.BS_HEZ + 1] = vp[L.VP_IE] * self.bs[v, L.BS_OMEGA_E] * (rot @ u_engine)
            self.tw[v] = 0.0
            self.tb[v] = 0.0
            self.ctrl[v] = 0.0
            self.ctrl[v, L.CT_GEAR] = L.NO_GEAR

    # ------------------------------------------------------------------------------------------------
    def _announce(self) -> None:
        if not self._announced:
            announce_compile(step_batch, "the physics kernels")
            self._announced = True

    def step(self, controls: Controls | None = None) -> None:
        """Advance one fixed step dt (made of `substeps` substeps) with these controls."""
        if self._pending:
            self._apply_pending()
        if controls is not None:
            controls.pack_into(self.ctrl)
        if not self._announced:
            self._announce()
        planes, boxes, hf_meta, hf_z, surf_mu = self._tables
        step_batch(self.vp, self.wp, self.hull, self.ctrl, self.bs, self.ws, self.tw, self.tb, planes, boxes, hf_meta,
                   hf_z, surf_mu, self._gravity, self.time, self.dt, self.substeps)
        self.steps += 1
        self.time = self.steps * self.dt

    def run(self, controls_trace: np.ndarray) -> None:
        """Advance len(trace) steps in one compiled call; trace (K, N, C) or (K, C) with the columns of
        sim.layout CT_* per step (throttle, brake, steer, handbrake, clutch, shift, gear, abs, tc); the
        first C are given, the rest keep their defaults. Same result as calling step() K times."""
        if self._pending:
            self._apply_pending()
        trace = np.asarray(controls_trace, dtype=np.float64)
        if trace.ndim == 2:
            trace = trace[:, None, :]
        cols = trace.shape[-1]
        if cols < L.CT_N:                 # the columns not given keep their defaults (no request, aids off)
            full = np.zeros(trace.shape[:-1] + (L.CT_N,))
            full[..., L.CT_GEAR] = L.NO_GEAR
            full[..., :cols] = trace
            trace = full
        trace = np.ascontiguousarray(np.broadcast_to(trace, (trace.shape[0], self.n, L.CT_N)))
        if not self._announced:
            self._announce()
        planes, boxes, hf_meta, hf_z, surf_mu = self._tables
        run_batch(self.vp, self.wp, self.hull, trace, self.bs, self.ws, self.tw, self.tb, planes, boxes, hf_meta, hf_z,
                  surf_mu, self._gravity, self.time, self.dt, self.substeps)
        if len(trace):
            self.ctrl[:] = trace[-1]
        self.steps += len(trace)
        self.time = self.steps * self.dt

    # ------------------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        return Snapshot(self.time, self.steps, self.bs.copy(), self.ws.copy(), self.ctrl.copy(), self.tw.copy(),
                        self.tb.copy())

    def restore(self, snap: Snapshot) -> None:
        self.time = snap.time
        self.steps = snap.steps
        self.bs[:] = snap.body
        self.ws[:] = snap.wheels
        self.ctrl[:] = snap.controls
        self.tw[:] = snap.wheel_telemetry
        self.tb[:] = snap.body_telemetry

    def state_hash(self) -> str:
        """SHA-256 of the state tables' bytes (and the telemetry the next step reads): equal hashes
        mean bit-identical states."""
        import hashlib
        return hashlib.sha256(self.bs.tobytes() + self.ws.tobytes() + self.tw.tobytes()).hexdigest()

    def finite(self) -> bool:
        """False if any state or telemetry value is NaN or infinite (a blow-up)."""
        return bool(np.isfinite(self.bs).all() and np.isfinite(self.ws).all() and np.isfinite(self.tw).all()
                    and np.isfinite(self.tb).all())
