"""The watchdog: blow-ups caught by physics, not by NaN (docs/physics.md §16). After a step (and every
WATCH_EVERY steps of a run) the compiled check (sim/kernel/watch.py) looks at every vehicle for numbers
that are not finite, speeds or spins no car reaches, a body sunk deeper than a wheel radius, more
energy than the engine can have given it, or tires whose slip made energy (their force pushing the way
they slide). What it finds is named in `health`; in "raise" mode the first
finding of a vehicle raises `BlowUp` with the stability advisor's likeliest cause."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sim import advisor
from sim.kernel import watch
from sim.kernel.tables import TB_TIRE_LOST
from sim.kernel.tables import TB_TIRE_MADE
from sim.kernel.tables import TB_WORK_SPIN
from sim.kernel.tables import TB_WORK_SUSPENSION
from sim.kernel.tables import VP_IXX
from sim.kernel.tables import VP_IZZ
from sim.kernel.tables import WP_AX
from sim.kernel.tables import WP_DX
from sim.kernel.tables import WP_MU
from sim.kernel.units import RPM
from sim.model.geometry import total_mass
from sim.model.params import Vehicle

WATCH_EVERY = 60            # steps: Simulation.run checks at least this often
WATCH_POWER_FACTOR = 1.5    # -: the energy budget grows at this times the engine's peak power ...
WATCH_POWER_SLACK = 50e3    # W: ... plus this (moving platforms, rounding)
WATCH_ENERGY_HEIGHT = 10.0  # m: and starts with the energy of this much height (springs, a drop)
REQUIRED_MARGIN_TEXT = f"a part needs a margin of {advisor.REQUIRED_MARGIN:g}"
MODES = ("raise", "flag", False)
# the kinds of force in the work ledger (sim/kernel/work.py), in the order of TB_WORK_SUSPENSION .. TB_WORK_SPIN
WORK_KINDS = ("suspension", "tire", "parking (static friction)", "body collision", "spin ledger")


class BlowUp(RuntimeError):
    """The watchdog saw a state no car reaches; the message names the vehicle, what was seen, the force that
    put the energy in and the stability advisor's likeliest cause. From `Simulation.run`, `snapshot` (the
    last state the watchdog passed) and `controls` (the control rows run from it) reproduce it bit for bit:
    `s.restore(e.snapshot); s.run(e.controls)` in a simulation at the same dt and substeps."""

    def __init__(self, message: str, vehicle: int, snapshot=None, controls=None):
        super().__init__(message)
        self.vehicle = vehicle
        self.snapshot = snapshot
        self.controls = controls


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


class Watchdog:
    """The watch over N vehicles in a world of gravity `gravity` (m/s^2). mode: "raise" (a blow-up raises
    BlowUp), "flag" (it is noted in `health` and the run goes on), or False (no checks)."""

    def __init__(self, mode: str | bool, n: int, gravity: float):
        self.gravity = gravity
        self.health = [""] * n                     # per vehicle: what is wrong with its state ("" physical)
        self.table = np.zeros((n, watch.WT_N))     # the compiled check's table (sim/kernel/watch.py WT_*)
        self.table[:, watch.WT_DEEP_SINCE] = np.nan
        self.idle_table = np.zeros((1, watch.WT_N))   # what the step kernel gets when nothing is watched
        self.reported: set[int] = set()            # vehicles whose finding has been raised or flagged
        self.work0 = np.zeros((n, len(WORK_KINDS)))   # the work ledger at the baseline (J)
        self.sources = [""] * n                    # per vehicle: which force put the energy in ("" unknown)
        self.t_base = np.zeros(n)                  # s: when the work ledger's baseline was taken
        self.outside0 = np.zeros(n)                # J: the work from outside the car then (watch.outside_work)
        # set by set_mode, read by every step (plain attributes: step() is on the hot path)
        self.mode: str | bool = "raise"
        self.watching = True                       # mode is not False
        self.step_table = self.table               # the table the step kernel checks against
        self.set_mode(mode)

    def set_mode(self, mode: str | bool) -> None:
        """Another mode from the next check on (what is already found stays found)."""
        if mode not in MODES:
            raise ValueError(f"watchdog = {mode!r} is not allowed; expected 'raise', 'flag' or False")
        self.mode = mode
        self.watching = mode is not False
        self.step_table = self.table if self.watching else self.idle_table

    def baseline(self, idx, params: list[Vehicle], body_state: np.ndarray, wheel_state: np.ndarray,
                 vehicle_params: np.ndarray, wheel_params: np.ndarray, time: float,
                 body_telemetry: np.ndarray | None = None) -> None:
        """Energy and time the energy budget counts from for the vehicles `idx` (at a reset, a restore,
        new parameters), and the work ledger's values then; every vehicle's mass, inertia, wheel radius and
        power are taken anew."""
        w = self.table
        for v, car in enumerate(params):
            mass = total_mass(car)                                                   # §7.2
            w[v, watch.WT_MASS] = mass                          # the body's principal moments as packed (the wheels'
            w[v, watch.WT_IXX:watch.WT_IZZ + 1] = vehicle_params[v, VP_IXX:VP_IZZ + 1]   # yaw among them, §7.2)
            w[v, watch.WT_RADIUS] = min(car.front_tire.radius, car.rear_tire.radius)
            w[v, watch.WT_RATE] = WATCH_POWER_FACTOR * max_power(car) + WATCH_POWER_SLACK
            w[v, watch.WT_SLACK] = mass * self.gravity * WATCH_ENERGY_HEIGHT
            for i in range(4):                                                      # §7.2: m_u, s = A x e
                lever = np.cross(wheel_params[v, i, WP_AX:WP_AX + 3], -wheel_params[v, i, WP_DX:WP_DX + 3])
                w[v, watch.WT_WHEELS + 4 * i:watch.WT_WHEELS + 4 * i + 4] = wheel_params[v, i, WP_MU], *lever
        w[idx, watch.WT_DEEP_SINCE] = np.nan
        for v in idx:
            self.health[v] = ""
            self.sources[v] = ""
            self.reported.discard(int(v))
        self.t_base[idx] = time
        if body_telemetry is not None:
            self.work0[idx] = body_telemetry[idx, TB_WORK_SUSPENSION:TB_WORK_SPIN + 1]
            outside = [watch.outside_work(body_telemetry, v) for v in idx]
            w[idx, watch.WT_OUTSIDE0] = self.outside0[idx] = outside
            w[idx, watch.WT_MADE0] = body_telemetry[idx, TB_TIRE_MADE]
            w[idx, watch.WT_LOST0] = body_telemetry[idx, TB_TIRE_LOST]
        w[idx, watch.WT_E0] = self.energies(body_state, wheel_state)[idx]
        w[idx, watch.WT_T0] = time

    def energies(self, body_state: np.ndarray, wheel_state: np.ndarray) -> np.ndarray:
        """Kinetic (translation, body rotation and the wheels' own mass moving along their axes, §7.2) plus
        gravitational energy of each vehicle (J), from the state alone."""
        out = np.empty(len(self.health))
        watch.energies(body_state, wheel_state, self.table, self.gravity, out)
        return out

    def check(self, body_state, wheel_state, body_telemetry, time: float) -> list[str]:
        """What is wrong with each vehicle's state ("" when it is physical): non-finite numbers, speeds or
        spins no car reaches, a body deeper in the ground than a wheel radius for half a second, or more
        energy than the engine can have given it (a budget that grows at the engine's power and never
        above the energy the car had plus that growth: energy lost is not credited). Updates `health`."""
        if not self.watching:
            return self.health
        w = self.table
        if not watch.check_vehicles(body_state, wheel_state, body_telemetry, w, self.gravity, time):
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
                watch.TIRE_MADE: f"tires that made {x / 1000:.0f} kJ more by sliding than they lost (their force "
                                 f"pushed the way they slid: the tire forces put the energy in)",
            }[c]
            if c not in (watch.SUNK, watch.TIRE_MADE):
                self.sources[v] = self.source_of(v, body_telemetry, time)
        return self.health

    def source_of(self, v: int, body_telemetry: np.ndarray, time: float) -> str:
        """Which kind of force put the energy in, from the work ledger since the baseline: the one whose work
        on the body most exceeds what it may do (the tires: what the engine can have given through them;
        the others: nothing, beyond the standing slack)."""
        t = self.table[v]
        work = np.nan_to_num(body_telemetry[v, TB_WORK_SUSPENSION:TB_WORK_SPIN + 1] - self.work0[v], nan=0.0)
        allowed = np.full(len(WORK_KINDS), t[watch.WT_SLACK])
        allowed[1] += t[watch.WT_RATE] * max(0.0, time - self.t_base[v])
        outside = watch.outside_work(body_telemetry, v) - self.outside0[v]      # platforms, the steering rack
        allowed += max(0.0, float(np.nan_to_num(outside)))
        excess = work - allowed
        k = int(np.argmax(excess))
        if not excess[k] > 0.0:
            return ""
        return f"the {WORK_KINDS[k]} forces did {work[k] / 1000:.0f} kJ of work on the body"

    def react(self, health: list[str], message: Callable[[int], str]) -> None:
        """After `check`: note the vehicles newly found sick and, in "raise" mode, raise BlowUp with
        `message(v)` for the first of them."""
        if not any(health):                  # (the common case, without a pass over a batch's vehicles)
            return
        sick = [v for v, h in enumerate(health) if h and v not in self.reported]
        if not sick:
            return
        self.reported.update(sick)
        if self.mode == "raise":
            v = sick[0]
            raise BlowUp(message(v), v)


def blow_up_message(car: Vehicle, found: str, who: str, time: float, dt: float, substeps: int,
                    surface_mu: float, source: str = "", gravity: float = advisor.GRAVITY) -> str:
    """One line: what the watchdog found on a vehicle (`found`, named by `who`), which force put the energy
    in (`source`, from the work ledger) and the advisor's likeliest cause."""
    r = advisor.report(car, dt, substeps, surface_mu, gravity)
    w = r.worst
    if source:
        found = f"{found} ({source})"
    if r.stable:
        cause = (f"no part the stability advisor refuses is unstable (the least stable, the {w.part}, has a "
                 f"margin of {w.margin:.2f}), so the cause is outside its model: a bug to report (from "
                 f"Simulation.run the BlowUp carries the state and controls that reproduce it)")
    else:
        cause = (f"the least stable part is the {w.part} ({w.parameter}, margin {w.margin:.2f}; "
                 f"{REQUIRED_MARGIN_TEXT})")
    return f"{who}the physics blew up at t = {time:.3f} s: {found}; {cause}"
