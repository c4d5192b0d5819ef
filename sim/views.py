"""Named, read-only views of a simulation's tables: `StateView` (what the next step starts from) and
`TelemetryView` (the last substep, by the spec's names; docs/physics.md §13). With one vehicle the views
drop the vehicle axis; they share memory with the simulation."""
from __future__ import annotations

import numpy as np

from sim.kernel import tables as T
from sim.kernel.units import RPM


class _Views:
    """Named views of a simulation's tables. They hold the tables, not the simulation: without a cycle
    between the two, a simulation dropped is freed at once, not at Python's next full collection (which
    the app runs with its start-up objects frozen, sim's included)."""

    def __init__(self, tables, n: int):
        self._tables = tables             # sim.simulation.Tables
        self._n = n

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

    @property
    def shifting_to(self):       # the gear a shift under way engages when it ends; the engaged gear without one
        d = self._tables.drive_state
        return self._v(np.where(d[:, T.DS_SHIFT_T] > 0.0, d[:, T.DS_GEAR_TARGET], d[:, T.DS_GEAR]).astype(int))


_WHEEL_SCALARS = {
    "s": T.W_S, "a": T.W_A, "l": T.W_L, "l_raw": T.W_LRAW, "x": T.W_X, "xdot": T.W_XDOT,
    "Fs": T.W_FS, "Fz": T.W_FZ, "vx": T.W_VX, "vy": T.W_VY, "kappa": T.W_KAPPA, "alpha": T.W_ALPHA,
    "Fx_raw": T.W_FX_RAW, "Fy_raw": T.W_FY_RAW, "Fx": T.W_FX, "Fy": T.W_FY,
    "grip_scale": T.W_GRIP_SCALE, "T_drive": T.W_T_DRIVE, "T_brake": T.W_T_BRAKE, "omega": T.W_OMEGA,
    "rho": T.W_RHO, "r_eff": T.W_R_EFF, "grounded": T.W_GROUNDED, "surface": T.W_SURFACE,
    "shape": T.W_SHAPE, "mu": T.W_MU, "steer": T.W_STEER, "abs_active": T.W_ABS, "locked": T.W_LOCKED,
    "dFx_dkappa": T.W_DFX, "esp_brake": T.W_ESP, "camber": T.W_GAMMA, "camber_body": T.W_CAMBER_BODY,
    "toe": T.W_TOE, "Fz_link": T.W_FZ_LINK,
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
_BODY_COLUMNS: dict[tuple[str, ...], np.ndarray] = {}    # TelemetryView.body_array's column picks, by names


class TelemetryView(_Views):
    """Telemetry of the last substep, by the spec's names (docs/physics.md §13 says what each means).

    Per wheel (4,) or (N, 4): s a l l_raw x xdot Fs Fz vx vy kappa alpha Fx_raw Fy_raw Fx Fy grip_scale
    T_drive T_brake omega rho r_eff grounded surface shape mu steer abs_active locked dFx_dkappa esp_brake
    camber camber_body toe Fz_link.
    Per wheel vectors (4, 3) or (N, 4, 3), world: Q n t b C u F_suspension F_tire F_rolling v_ground.
    Body: rpm gear T_engine T_clutch diff_lock (front, rear) tc_active esp_cut yaw_rate_ref hull_contacts hull_depth;
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

    def wheel_array(self, names: tuple[str, ...]) -> np.ndarray:
        """Per-wheel channels `names` of every vehicle in one copy: (N, len(names), 4), wheels FL FR RL RR
        (the vehicle axis is kept for one vehicle too; a log reads every channel of every car each step)."""
        cols = _LIST_COLUMNS.get(names)
        if cols is None:
            cols = _LIST_COLUMNS[names] = np.array([_WHEEL_SCALARS[name] for name in names])
        return self._tables.wheel_telemetry[:, :, cols].transpose(0, 2, 1)

    def body_array(self, names: tuple[str, ...]) -> np.ndarray:
        """Body channels `names` (the scalars above, and "gear") of every vehicle in one copy: (N, len(names))."""
        cols = _BODY_COLUMNS.get(names)
        if cols is None:
            cols = _BODY_COLUMNS[names] = np.array([T.TB_GEAR if name == "gear" else _BODY_SCALARS[name]
                                                    for name in names])
        return self._tables.body_telemetry[:, cols]

    @property
    def gear(self):
        return self._v(self._tables.body_telemetry[:, T.TB_GEAR].astype(int))

    @property
    def diff_lock(self):         # N m, (front, rear) locking torque
        return self._v(self._tables.body_telemetry[:, T.TB_LOCK_F:T.TB_LOCK_R + 1])

    @property
    def forces(self) -> dict[str, np.ndarray]:
        return {k: self._v(self._tables.body_telemetry[:, i:i + 3]) for k, i in T.EXTERNAL_FORCES.items()}
