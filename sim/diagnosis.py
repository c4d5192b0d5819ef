"""Why a wheel grips or not (docs/physics.md §8): each step every wheel is classified as

    NO_LOAD    airborne, or its load Fz is a sliver of its static share: there is no friction budget
    SATURATED  the combined limit scaled its force down (grip_scale < 1) or its slip is past the tire's peak
    WEAK       loaded and below the peak, but its slip is small, so its curve gives little force
               (|F_raw| under WEAK_UTILISATION of mu Fz): the tire is not being asked
    GRIP       loaded, below the peak, working

A `GripMonitor` keeps a log of the changes, with the numbers that explain them, and can ask for a pause
at the first loss of grip (a wheel entering NO_LOAD or SATURATED).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from sim.params import Tire, Vehicle
from sim.tables import NW, WHEEL_NAMES
from sim.tire import TIRE_MODELS, combined_limit, raw_force

NO_LOAD, WEAK, GRIP, SATURATED = 0, 1, 2, 3
STATE_NAMES = ("no load", "weak response", "grip", "saturated")
MIN_LOAD_SHARE = 0.02      # -: Fz below this share of the wheel's static load counts as no load
WEAK_UTILISATION = 0.2     # -: |F_raw| / (mu Fz) below this is a weak response
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


def peak_slips(tire: Tire, mu_fz: float) -> tuple[float, float]:
    """(kappa, alpha) at which the tire's own curve peaks. Linear model: where the raw force alone
    reaches mu Fz."""
    if tire.model == "magic":
        return magic_peak(tire.bx, tire.cx, tire.ex), magic_peak(tire.by, tire.cy, tire.ey)
    return mu_fz / tire.ck, mu_fz / tire.ca


def static_loads(car: Vehicle, gravity: float = 9.81) -> np.ndarray:
    """Per-wheel static load M g b / L / 2 (front) and the rest / 2 (rear), N."""
    m = car.chassis.mass * gravity
    front = m * (car.chassis.com_x - car.rear_axle.x) / car.wheelbase
    return np.array([front / 2, front / 2, (m - front) / 2, (m - front) / 2])


@functools.lru_cache(maxsize=16)
def _static_loads(car: Vehicle) -> np.ndarray:
    return static_loads(car)


def classify(car: Vehicle, grounded, fz, mu, grip_scale, kappa, alpha, fx_raw, fy_raw) -> np.ndarray:
    """The state of each of the four wheels from one step's telemetry (arrays of 4)."""
    out = np.empty(NW, dtype=int)
    loads = _static_loads(car)
    for i in range(NW):
        tire = car.front_tire if i < 2 else car.rear_tire
        budget = mu[i] * fz[i]
        if grounded[i] < 0.5 or fz[i] < MIN_LOAD_SHARE * loads[i] or budget <= 0.0:
            out[i] = NO_LOAD
            continue
        k_peak, a_peak = peak_slips(tire, budget)
        if force_was_cut(grip_scale[i]) or abs(kappa[i]) > k_peak or abs(alpha[i]) > a_peak:
            out[i] = SATURATED
        elif math.hypot(fx_raw[i], fy_raw[i]) < WEAK_UTILISATION * budget:
            out[i] = WEAK
        else:
            out[i] = GRIP
    return out


def classify_telemetry(car: Vehicle, tel) -> np.ndarray:
    """classify() on a Simulation's telemetry view (one vehicle)."""
    return classify(car, tel.grounded, tel.Fz, tel.mu, tel.grip_scale, tel.kappa, tel.alpha, tel.Fx_raw, tel.Fy_raw)


def tire_curve(tire, mu: float, fz: float, slips: np.ndarray, lateral: bool) -> np.ndarray:
    """The tire's force against slip at this load (the same functions the simulation runs), each point
    also through the combined limit on its own."""
    out = np.empty(len(slips))
    model = TIRE_MODELS[tire.model]
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

    def text(self) -> str:
        return (f"{self.time:8.3f} s  {WHEEL_NAMES[self.wheel]}  {STATE_NAMES[self.before]} -> "
                f"{STATE_NAMES[self.after]}  Fz {self.fz:7.0f} N  kappa {self.kappa:+.3f}  "
                f"alpha {math.degrees(self.alpha):+.1f} deg")


@dataclass
class GripMonitor:
    pause_on_loss: bool = False
    max_events: int = 500
    states: np.ndarray = field(default_factory=lambda: np.full(NW, -1))
    events: list[GripEvent] = field(default_factory=list)

    def update(self, time: float, car: Vehicle, tel) -> bool:
        """Classify this step; log changes; True when the caller should pause (first loss of grip)."""
        now = classify_telemetry(car, tel)
        pause = False
        for i in range(NW):
            if self.states[i] >= 0 and now[i] != self.states[i]:
                self.events.append(GripEvent(time, i, int(self.states[i]), int(now[i]), float(tel.Fz[i]),
                                             float(tel.kappa[i]), float(tel.alpha[i])))
                if self.pause_on_loss and now[i] in (NO_LOAD, SATURATED) and self.states[i] in (WEAK, GRIP):
                    pause = True
        del self.events[:-self.max_events]
        self.states = now
        return pause
