"""Why a wheel grips or not (docs/physics.md §8): each step every wheel is classified as

    NO_LOAD    airborne, or its load Fz is a sliver of its static share: there is no friction budget
    LOW        loaded, below the peak, and little asked of it (|F_raw| under LOW_UTILISATION of mu Fz):
               rolling freely or standing; a neutral state, not a warning
    GRIP       loaded, below the peak, working
    SATURATED  the combined limit scaled its force down (grip_scale < 1) or its slip is past the tire's peak

and a saturated wheel gets its cause, in this order of precedence:

    LOCKED     the wheel (nearly) stands while the ground passes under it: braked to a lock
    SPINNING   past the longitudinal peak with the tread faster than the ground: wheelspin
    OVERBRAKED past the longitudinal peak with the tread slower than the ground (not locked)
    SLIDING    past the lateral peak: the slip angle is larger than the one that gives the most side force
    COMBINED   neither slip alone is past its peak, but together they ask for more than mu Fz and the
               combined limit cut the force

A `GripMonitor` keeps a log of the changes, with the numbers that explain them, and can ask for a pause
at the first loss of grip (a wheel entering NO_LOAD or SATURATED), saying which wheel and why.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.kernel.tables import MF96_FIELDS
from sim.kernel.tables import NW
from sim.kernel.tables import WHEEL_NAMES
from sim.kernel.tire import TIRE_MODELS
from sim.kernel.tire.limit import combined_limit
from sim.kernel.tire.magic import raw_force
from sim.kernel.tire.mf96 import mf96_coefficients
from sim.kernel.tire.mf_combined import mf_pure
from sim.model.geometry import tire_loads
from sim.model.handling import mf_coefficient_block
from sim.model.params import Tire
from sim.model.params import Vehicle

NO_LOAD, LOW, GRIP, SATURATED = 0, 1, 2, 3
STATE_NAMES = ("no load", "low use", "grip", "saturated")
NO_CAUSE, LOCKED, SPINNING, OVERBRAKED, SLIDING, COMBINED = 0, 1, 2, 3, 4, 5
CAUSE_NAMES = ("", "locked", "wheelspin", "braking past the peak", "sliding sideways", "combined limit")
CAUSE_SHORT = ("", "locked", "spinning", "overbraked", "sliding", "combined")    # for narrow table cells
MIN_LOAD_SHARE = 0.02      # -: Fz below this share of the wheel's static load counts as no load
LOW_UTILISATION = 0.2      # -: |F_raw| / (mu Fz) below this is low use
LOCK_RATIO = 0.05          # -: a tread speed below this share of the ground speed is a locked wheel
MOVING = 0.5               # m/s: below this ground speed a wheel is standing (not locked, not spinning)
CUT_SCALE = 0.999          # -: a grip scale below this means the combined limit cut the force


def force_was_cut(grip_scale: float) -> bool:
    """True when the combined friction limit scaled the wheel's raw force down."""
    return grip_scale < CUT_SCALE


@functools.lru_cache(maxsize=256)
def magic_peak(b: float, c: float, e: float) -> float:
    """Slip where D sin(C atan(B s - E (B s - atan(B s)))) peaks; inf when C <= 1 (no peak).
    Memoised: it depends only on the tire's B, C, E and is asked for every wheel every step."""
    if c <= 1.0:
        return math.inf
    target = math.tan(math.pi / (2.0 * c))          # C atan(x) = pi/2
    f = lambda s: b * s - e * (b * s - math.atan(b * s)) - target  # noqa: E731
    lo, hi = 0.0, 1.0
    while f(hi) < 0.0:
        hi *= 2.0
        if hi > 1e6:
            return math.inf
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0.0 else (lo, mid)
    return 0.5 * (lo + hi)


def mf96_factors(tire: Tire, mu: float, fz: float) -> tuple[float, ...]:
    """(Bx, Cx, Dx, Ex, By, Cy, Dy, Ey) of an mf96 tire at load fz (the simulation's own function)."""
    return mf96_coefficients(np.array([getattr(tire, n) for n in MF96_FIELDS]), mu, fz, tire.nominal_load)


@functools.lru_cache(maxsize=256)
def mf_peaks(tire: Tire, mu: float, fz: float) -> tuple[float, float]:
    """Where an mf61 tire's pure curves peak at load fz (zero camber, its own pressure), read off a fine
    grid (kappa to 1e-3, alpha to 0.05 deg); inf where a curve keeps rising."""
    p = mf_coefficient_block(tire)
    out = []
    for lateral, top in ((False, 1.0), (True, math.radians(30.0))):
        s = np.linspace(0.0, top, 1001)
        f = np.array([abs(mf_pure(TIRE_MODELS["mf61"], 0.0 if lateral else x, x if lateral else 0.0, p, max(mu, 1e-6),
                                  fz, tire.nominal_load, 0.0)[1 if lateral else 0]) for x in s])
        k = int(np.argmax(f))
        out.append(math.inf if k == len(s) - 1 else float(s[k]))
    return out[0], out[1]


def peak_slips(tire: Tire, mu_fz: float, fz: float | None = None) -> tuple[float, float]:
    """(kappa, alpha) at which the tire's own curve peaks. Linear model: where the raw force alone
    reaches mu Fz. mf96: its curves at load fz (the nominal load if not given; to 1 % of load)."""
    if tire.model == "magic":
        return magic_peak(tire.bx, tire.cx, tire.ex), magic_peak(tire.by, tire.cy, tire.ey)
    if tire.model == "simple":
        return magic_peak(tire.bx, tire.cx, 0.0), magic_peak(tire.by, tire.cy, 0.0)
    if tire.model == "avs":                       # the slips at which it asks for all its grip
        return 0.1, math.radians(tire.avs_peak_angle)
    if tire.model == "mf61":
        load = tire.nominal_load if fz is None or fz <= 0.0 else fz
        return mf_peaks(tire, round(mu_fz / fz if fz else 1.0, 3), math.exp(round(math.log(load) * 100.0) / 100.0))
    if tire.model == "mf96":
        load = tire.nominal_load if fz is None or fz <= 0.0 else fz
        load = math.exp(round(math.log(load) * 100.0) / 100.0)
        mu = mu_fz / fz if fz else 1.0
        bx, cx, _, ex, by, cy, _, ey = mf96_factors(tire, max(mu, 1e-6), load)
        return magic_peak(round(bx, 4), cx, round(ex, 6)), magic_peak(round(by, 4), cy, round(ey, 6))
    return mu_fz / tire.ck, mu_fz / tire.ca


_LOADS: dict[int, tuple[Vehicle, np.ndarray]] = {}


def _static_loads(car: Vehicle) -> np.ndarray:
    """tire_loads (each wheel's static load on the ground), kept per Vehicle object: looked up by identity,
    since hashing a whole frozen Vehicle each step cost more than the diagnosis itself."""
    hit = _LOADS.get(id(car))
    if hit is None or hit[0] is not car:
        if len(_LOADS) > 64:
            _LOADS.clear()
        hit = _LOADS[id(car)] = (car, tire_loads(car))
    return hit[1]


@dataclass(frozen=True)
class WheelState:
    """One wheel's diagnosis: its state, the cause when saturated, how much of mu Fz its raw force asks
    for, and a plain sentence with the numbers that explain it (`reason`)."""
    state: int
    cause: int
    use: float           # |F_raw| / (mu Fz), 0 without load
    why: object = field(default="", repr=False, compare=False)   # the sentence, or a function that writes it

    @property
    def reason(self) -> str:
        """The sentence; written when first asked for (every wheel is diagnosed every step, and few of the
        sentences are ever shown)."""
        why = self.why
        if callable(why):
            why = why()
            object.__setattr__(self, "why", why)
        return why

    @property
    def name(self) -> str:
        return STATE_NAMES[self.state] + (f": {CAUSE_NAMES[self.cause]}" if self.cause else "")


def _diagnose_wheel(car: Vehicle, i: int, loads, grounded, fz, mu, grip_scale, kappa, alpha, fx_raw, fy_raw,
                    vx, omega, rho) -> WheelState:
    tire = car.front_tire if i < 2 else car.rear_tire
    budget = mu * fz
    if grounded < 0.5:
        return WheelState(NO_LOAD, NO_CAUSE, 0.0, "in the air: no load, no grip")
    if fz < MIN_LOAD_SHARE * loads[i] or budget <= 0.0:
        load = loads[i]
        return WheelState(NO_LOAD, NO_CAUSE, 0.0, lambda: f"Fz {fz:.0f} N, {100 * fz / load:.0f} % of its static "
                                                          f"load: almost no grip")
    use = math.hypot(fx_raw, fy_raw) / budget
    k_peak, a_peak = peak_slips(tire, budget, fz)
    past_long = abs(kappa) > k_peak
    past_lat = abs(alpha) > a_peak
    cut = force_was_cut(grip_scale)
    if past_long or past_lat or cut:
        tread = rho * omega
        ground = abs(vx)
        if past_long and ground > MOVING and abs(tread) < LOCK_RATIO * ground:
            cause = LOCKED
        elif past_long and abs(tread) > ground:
            cause = SPINNING
        elif past_long:
            cause = OVERBRAKED
        elif past_lat:
            cause = SLIDING
        else:
            cause = COMBINED

        def why() -> str:
            if cause == LOCKED:
                text = f"the wheel stands while the ground passes at {ground:.1f} m/s (kappa {kappa:+.2f})"
            elif cause == SPINNING:
                text = f"kappa {kappa:+.2f} past the peak {k_peak:.2f}: the tread outruns the ground"
            elif cause == OVERBRAKED:
                text = f"kappa {kappa:+.2f} past the peak {k_peak:.2f}: braked beyond the most grip"
            elif cause == SLIDING:
                text = f"alpha {math.degrees(alpha):+.1f} deg past the peak {math.degrees(a_peak):.1f} deg"
            else:
                text = (f"braking/driving and cornering together ask {use:.2f} x mu Fz: the force is cut to "
                        f"{100 * grip_scale:.0f} %")
            if cause != COMBINED and cut:
                text += f"; cut to {100 * grip_scale:.0f} %"
            return text
        return WheelState(SATURATED, cause, use, why)
    if use < LOW_UTILISATION:
        still = abs(vx) < MOVING and abs(rho * omega) < MOVING
        return WheelState(LOW, NO_CAUSE, use, lambda: ("standing" if still else "rolling freely") +
                          f", {100 * use:.0f} % of its grip asked for")
    return WheelState(GRIP, NO_CAUSE, use, lambda: f"working at {100 * use:.0f} % of its grip, below the peak")


DIAGNOSIS_CHANNELS = ("grounded", "Fz", "mu", "grip_scale", "kappa", "alpha", "Fx_raw", "Fy_raw", "vx", "omega",
                      "rho")


def diagnose(car: Vehicle, tel) -> list[WheelState]:
    """Each wheel's WheelState from a Simulation's telemetry view (one vehicle) or any object with the
    same per-wheel arrays (grounded, Fz, mu, grip_scale, kappa, alpha, Fx_raw, Fy_raw, vx, omega, rho)."""
    loads = _static_loads(car)
    if hasattr(tel, "wheel_lists"):    # a Simulation's view: the channels in one read of its table
        grounded, fz, mu, scale, kappa, alpha, fx_raw, fy_raw, vx, omega, rho = tel.wheel_lists(DIAGNOSIS_CHANNELS)
        treads = list(zip(omega, rho))
    else:
        vx = np.asarray(getattr(tel, "vx", np.zeros(NW)), dtype=float).tolist()
        omega = getattr(tel, "omega", None)
        rho = getattr(tel, "rho", None)
        # each channel read once, as plain floats
        grounded, fz, mu, scale, kappa, alpha, fx_raw, fy_raw = (
            np.asarray(getattr(tel, name), dtype=float).tolist() for name in DIAGNOSIS_CHANNELS[:8])
        if omega is not None and rho is not None:
            treads = list(zip(np.asarray(omega, dtype=float).tolist(), np.asarray(rho, dtype=float).tolist()))
        else:                          # without wheel speeds (constructed telemetry) the tread matches kappa
            treads = [(vx[i] * (1.0 + kappa[i]), 1.0) for i in range(NW)]
    return [_diagnose_wheel(car, i, loads, grounded[i], fz[i], mu[i], scale[i], kappa[i], alpha[i], fx_raw[i],
                            fy_raw[i], vx[i], *treads[i]) for i in range(NW)]


def classify(car: Vehicle, grounded, fz, mu, grip_scale, kappa, alpha, fx_raw, fy_raw) -> np.ndarray:
    """The state of each of the four wheels from one step's telemetry (arrays of 4)."""
    class View:
        pass
    v = View()
    v.grounded, v.Fz, v.mu, v.grip_scale, v.kappa, v.alpha, v.Fx_raw, v.Fy_raw = \
        grounded, fz, mu, grip_scale, kappa, alpha, fx_raw, fy_raw
    return np.array([w.state for w in diagnose(car, v)], dtype=int)


def classify_telemetry(car: Vehicle, tel) -> np.ndarray:
    """classify() on a Simulation's telemetry view (one vehicle)."""
    return np.array([w.state for w in diagnose(car, tel)], dtype=int)


def tire_curve(tire, mu: float, fz: float, slips: np.ndarray, lateral: bool) -> np.ndarray:
    """The tire's force against slip at this load (the same functions the simulation runs), each point
    also through the combined limit on its own."""
    out = np.empty(len(slips))
    model = TIRE_MODELS[tire.model]
    if tire.model in ("chaos", "avs"):
        # force-request wheels (sim/kernel/tire/chaos.py, avs.py): chaos is rigid along its rolling direction
        # (any slip is the full mu Fz) with -ca alpha sideways up to mu Fz; avs shows kappa 0.1 at a full
        # longitudinal slip and takes sqrt(alpha / its peak angle) of mu_y Fz sideways
        s_ = np.asarray(slips, dtype=float)
        if tire.model == "chaos" and lateral and tire.chaos_lateral == "curve":
            out[:] = [np.clip(raw_force(TIRE_MODELS["magic"], 0.0, a, tire.ck, tire.ca, tire.bx, tire.cx, tire.dx,
                                        tire.ex, tire.by, tire.cy, tire.dy, tire.ey, mu, fz)[1], -mu * fz, mu * fz)
                      for a in s_]
        elif tire.model == "chaos":
            out[:] = -np.clip(tire.ca * s_, -mu * fz, mu * fz) if lateral else np.sign(s_) * mu * fz
        elif lateral:
            share = np.clip(s_ / math.radians(tire.avs_peak_angle), -1.0, 1.0)
            out[:] = -np.sign(share) * np.sqrt(np.abs(share)) * mu * tire.dy * fz
        else:
            out[:] = np.clip(s_ / 0.1, -1.0, 1.0) * mu * tire.dx * fz
        return out
    if tire.model in ("mf96", "mf61"):            # its own pure-slip curve (no friction-circle cut, no camber)
        p = mf_coefficient_block(tire)
        for k, s_ in enumerate(slips):
            out[k] = mf_pure(model, 0.0, s_, p, mu, fz, tire.nominal_load, 0.0)[1] if lateral else \
                mf_pure(model, s_, 0.0, p, mu, fz, tire.nominal_load, 0.0)[0]
        return out
    for k, s_ in enumerate(slips):
        kappa, alpha = (0.0, s_) if lateral else (s_, 0.0)
        fx, fy = raw_force(model, kappa, alpha, tire.ck, tire.ca, tire.bx, tire.cx, tire.dx, tire.ex,
                           tire.by, tire.cy, tire.dy, tire.ey, mu, fz)
        fx, fy, _ = combined_limit(fx, fy, mu, fz)
        out[k] = fy if lateral else fx
    return out


@dataclass
class GripEvent:
    time: float          # s
    wheel: int
    before: int
    after: int
    fz: float            # N
    kappa: float
    alpha: float         # rad
    cause: int = NO_CAUSE
    reason: str = ""
    esp: bool = False    # not a change of grip state: stability control began braking this wheel

    def text(self) -> str:
        if self.esp:
            return f"{self.time:8.3f} s  {WHEEL_NAMES[self.wheel]}  ESP braked {WHEEL_NAMES[self.wheel]}: {self.reason}"
        after = STATE_NAMES[self.after] + (f" ({CAUSE_NAMES[self.cause]})" if self.cause else "")
        return f"{self.time:8.3f} s  {WHEEL_NAMES[self.wheel]}  {STATE_NAMES[self.before]} -> {after}: {self.reason}"

    def headline(self) -> str:
        """One line for a pause banner: which wheel, when, and why."""
        what = "lost its load" if self.after == NO_LOAD else "saturated"
        cause = f" ({CAUSE_NAMES[self.cause]})" if self.cause else ""
        return f"{WHEEL_NAMES[self.wheel]} {what}{cause} at {self.time:.3f} s: {self.reason}"


@dataclass
class GripMonitor:
    pause_on_loss: bool = False
    max_events: int = 500
    states: np.ndarray = field(default_factory=lambda: np.full(NW, -1))
    causes: np.ndarray = field(default_factory=lambda: np.zeros(NW, dtype=int))
    events: list[GripEvent] = field(default_factory=list)
    pause_event: GripEvent | None = None     # the loss that asked for the last pause
    last: tuple | None = None                # (key, diagnosis) of the last update, for whoever shows it
    esp: np.ndarray = field(default_factory=lambda: np.zeros(NW, dtype=bool))   # wheels ESP brakes now

    def update(self, time: float, car: Vehicle, tel, key=None) -> bool:
        """Classify this step; log the changes of state (with the cause and numbers at that step); True
        when the caller should pause (first loss of grip; `pause_event` says which)."""
        now = diagnose(car, tel)
        self.last = (key, now) if key is not None else None
        pause = False
        before = self.states.tolist()
        for i, w in enumerate(now):
            if before[i] >= 0 and w.state != before[i]:
                e = GripEvent(time, i, before[i], w.state, float(tel.Fz[i]), float(tel.kappa[i]),
                              float(tel.alpha[i]), w.cause, w.reason)
                self.events.append(e)
                if self.pause_on_loss and w.state in (NO_LOAD, SATURATED) and before[i] in (LOW, GRIP):
                    if not pause:
                        self.pause_event = e
                    pause = True
        if hasattr(tel, "wheel_lists"):
            esp = tel.wheel_lists(("esp_brake",))[0]
        else:
            esp = getattr(tel, "esp_brake", None)
            esp = np.asarray(esp, dtype=float).tolist() if esp is not None else [0.0] * NW
        braking = [x > 0.0 for x in esp]
        was = self.esp.tolist()
        starts = [i for i in range(NW) if braking[i] and not was[i]]
        for i in starts:
            why = "the car turned more than the steering asks (oversteer)" if i < 2 else \
                "the car turned less than the steering asks (understeer)"
            self.events.append(GripEvent(time, int(i), int(now[i].state), int(now[i].state), float(tel.Fz[i]),
                                         float(tel.kappa[i]), float(tel.alpha[i]), NO_CAUSE,
                                         f"{why}; asked-for yaw rate {math.degrees(float(tel.yaw_rate_ref)):.1f} "
                                         f"deg/s (Telemetry: ESP brake, N m)", esp=True))
        if braking != was:
            self.esp = np.array(braking, dtype=bool)
        del self.events[:-self.max_events]
        if [w.state for w in now] != before or [w.cause for w in now] != self.causes.tolist():
            self.sync(now)
        return pause

    def sync(self, now: list[WheelState]) -> None:
        """Take these as the current states without logging anything (after a jump in time)."""
        self.states = np.array([w.state for w in now], dtype=int)
        self.causes = np.array([w.cause for w in now], dtype=int)

    def forget_after(self, time: float) -> None:
        """Drop the log entries later than `time` (the future a rewind abandons)."""
        self.events = [e for e in self.events if e.time <= time + 1e-9]
        if self.pause_event is not None and self.pause_event.time > time + 1e-9:
            self.pause_event = None
