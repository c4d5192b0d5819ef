"""Whether a tire's force curves are dissipative: over the slip range the tire can reach and at the loads it
will see, the force must oppose the slip (docs/physics.md §16). A curve that pushes the way the tire
slides (a negative slip stiffness, a peak factor turned negative by load or pressure terms, a combined-slip
weight past 90 degrees) adds energy to the car with every metre it slides, which no step size cures.

The forces are the kernel's own (sim/kernel/tire), evaluated from Python at a grid of slips and loads with
the wheel upright; a small band around zero slip is left out (conicity legitimately pushes a rolling tire
sideways there). The wheel is looked at upright: a leaning tire's camber thrust pushes it sideways at small
slip angles (a real effect, a drift towards the curve's shifted zero), and past 15 deg of slip the kernel's
mf61 never lets it push the way the tire slides (mf61.MF61_SLIDING_ALPHA); of the random tunings whose
curves turned against the slip only with camber, none blew up once that held (docs/physics.md §16)."""
from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from sim.kernel.tire import MODEL_AVS
from sim.kernel.tire import MODEL_CHAOS
from sim.kernel.tire import MODEL_MF61
from sim.kernel.tire import MODEL_MF96
from sim.kernel.tire import TIRE_MODELS
from sim.kernel.tire.avs import avs_forces
from sim.kernel.tire.limit import load_factor
from sim.kernel.tire.magic import raw_force
from sim.kernel.tire.mf_combined import mf96_combined_fx
from sim.kernel.tire.mf_combined import mf96_combined_fy
from sim.model.handling import mf_coefficient_block
from sim.model.params import MODEL_FIELDS
from sim.model.params import Tire

SLIP_BAND = 0.02          # kappa and rad: below this slip a force along the slip is allowed (camber thrust)
FORCE_BAND = 0.1          # x mu Fz: and a force along the slip smaller than this share of the grip (a fit's
#                           extrapolation far out: the TNO set of the hatchback reverses by 9 % near 90 deg)
ZERO_SHIFT_MAX = math.radians(5.0)   # rad: a lateral zero further from zero slip than this is not a tire's camber
#                                     thrust or conicity (those shift it by a degree or two) but a fit gone wrong
LOAD_FACTORS = (0.05, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0)   # x the static load: the loads a wheel sees driving
KAPPAS = tuple(np.concatenate([np.linspace(-1.0, 1.0, 41), [1.5, 3.0, 6.0]]))   # the spinning wheel's slips too
ALPHAS_DEG = tuple(np.linspace(-88.0, 88.0, 45))
COMBINED_KAPPAS = (-1.0, -0.5, -0.15, -0.05, 0.05, 0.15, 0.5, 1.0)   # a fit's own range
COMBINED_ALPHAS_DEG = (-80.0, -50.0, -25.0, -10.0, -4.0, 4.0, 10.0, 25.0, 50.0, 80.0)


@dataclasses.dataclass(frozen=True)
class CurveFault:
    direction: str        # "longitudinal" or "lateral"
    kappa: float
    alpha: float          # rad
    load: float           # N
    camber: float         # rad
    force: float          # N, the component along the slip (positive: it pushes the way the tire slides)
    static_load: float    # N, the wheel's static load the fault was judged against

    def where(self) -> str:
        lean = f", camber {math.degrees(self.camber):.1f} deg" if self.camber else ""
        return (f"its {self.direction} force pushes the way it slides ({self.force:.0f} N at kappa = "
                f"{self.kappa:.2f}, alpha = {math.degrees(self.alpha):.1f} deg, load {self.load:.0f} N{lean})")


def forces(tire: Tire, kappa: float, alpha: float, fz: float, sg: float) -> tuple[float, float]:
    """(Fx, Fy) in N the tire family gives at these slips, load and sin(camber), on a surface of mu 1, before
    the combined friction limit (which scales both by the same positive factor and so keeps their signs)."""
    model = TIRE_MODELS[tire.model]
    mu = tire.grip
    if model in (MODEL_MF96, MODEL_MF61):
        p = mf_coefficient_block(tire)
        return (mf96_combined_fx(model, kappa, alpha, p, mu, fz, tire.nominal_load, sg),
                mf96_combined_fy(model, kappa, alpha, p, mu, fz, tire.nominal_load, sg))
    mu *= load_factor(tire.load_sensitivity, tire.nominal_load, fz)
    if model == MODEL_AVS:
        return avs_forces(kappa, alpha, fz, mu * tire.dx, mu * tire.dy)
    curve = model
    if model == MODEL_CHAOS:       # the longitudinal force is the wheel's torque; sideways ca or the curve
        curve = TIRE_MODELS["magic"] if tire.chaos_lateral == "curve" else TIRE_MODELS["linear"]
    fx, fy = raw_force(curve, kappa, alpha, tire.ck, tire.ca, tire.bx, tire.cx, tire.dx, tire.ex, tire.by, tire.cy,
                       tire.dy, tire.ey, mu, fz)
    return (0.0 if model == MODEL_CHAOS else fx), fy


def slip_points(tire: Tire) -> list[tuple[float, float]]:
    """(kappa, alpha) pairs to look at: each slip alone over its range, and for the families with a
    combined-slip law of their own (mf96, mf61), a coarse grid of both together. The fgear slip form clips
    |kappa| <= 1 and |alpha| <= 45 deg."""
    k_max, a_max = (1.0, math.radians(45.0)) if tire.slip_form == "fgear" else (math.inf, math.radians(89.0))
    kappas = [k for k in KAPPAS if abs(k) <= k_max]
    alphas = [math.radians(a) for a in ALPHAS_DEG if abs(math.radians(a)) <= a_max]
    points = [(k, 0.0) for k in kappas] + [(0.0, a) for a in alphas]
    if tire.model in ("mf96", "mf61"):
        points += [(k, math.radians(a)) for k in COMBINED_KAPPAS for a in COMBINED_ALPHAS_DEG
                   if abs(k) <= k_max and abs(math.radians(a)) <= a_max]
    return points


@functools.lru_cache(maxsize=4096)
def lateral_zero(tire: Tire, fz: float, sg: float) -> float | None:
    """The slip angle (rad) at which the free-rolling tire's lateral force crosses zero from pushing left to
    pushing right, the crossing nearest zero slip: 0 for an upright tire without shifts, the small angle a
    camber thrust, conicity or ply steer shifts it by. None when the curve has no such crossing within
    +-88 deg (it pushes one way whatever the slip: camber thrust beyond the cornering force)."""
    grid = [math.radians(a) for a in np.linspace(-88.0, 88.0, 177)]
    fy = [forces(tire, 0.0, a, fz, sg)[1] for a in grid]
    best = None
    for a, b, fa, fb in zip(grid, grid[1:], fy, fy[1:]):
        if fa > 0.0 >= fb and (best is None or abs(a) < abs(best[0])):
            best = (a, b, fa, fb)
    if best is None:
        return None
    a, b, fa, fb = best
    for _ in range(30):                  # bisection to 1 deg / 2^30
        m = 0.5 * (a + b)
        if forces(tire, 0.0, m, fz, sg)[1] > 0.0:
            a = m
        else:
            b = m
    return 0.5 * (a + b)


@functools.lru_cache(maxsize=4096)
def own_peak(tire: Tire, fz: float, sg: float) -> float:
    """The largest force (N) the tire's pure-slip curves give at this load and sin(camber), either way: what a
    force along the slip is measured against (a curve whose pressure or load terms shrink its peak to a few
    per cent of grip x load has only its own size to go by)."""
    fx = max(abs(forces(tire, k, 0.0, fz, sg)[0]) for k in KAPPAS)
    fy = max(abs(forces(tire, 0.0, math.radians(a), fz, sg)[1]) for a in ALPHAS_DEG)
    return max(fx, fy)


def fault_at(tire: Tire, kappa: float, alpha: float, fz: float, gamma: float, static_load: float) -> CurveFault | None:
    """The fault at one slip, load and camber, or None: a force along the slip larger than FORCE_BAND of the
    grip, or of the curve's own peak where that is smaller, at the larger of this load and the static one (a
    wheel nearly off the ground pushes too weakly to matter). The lateral slip is counted from the curve's own
    zero (lateral_zero): between zero slip and a camber thrust's or conicity's shifted zero the force pushes the
    way the tire slides, but only towards the zero, where the slip settles: a drift, not a source of energy
    (docs/physics.md §16)."""
    fx, fy = forces(tire, kappa, alpha, fz, math.sin(gamma))
    load = max(fz, static_load)
    allowed = FORCE_BAND * min(max(tire.grip, 0.05) * load, own_peak(tire, round(load, 3), math.sin(gamma)))
    if abs(kappa) > SLIP_BAND and fx * math.copysign(1.0, kappa) < -allowed:
        return CurveFault("longitudinal", kappa, alpha, fz, gamma, -fx * math.copysign(1.0, kappa), static_load)
    zero = lateral_zero(tire, round(fz, 3), math.sin(gamma)) if gamma or tire.model in ("mf96", "mf61") else 0.0
    slip = alpha - (zero if zero is not None and abs(zero) <= ZERO_SHIFT_MAX else 0.0)
    if abs(slip) > SLIP_BAND and abs(alpha) > SLIP_BAND and fy * math.copysign(1.0, slip) > allowed:
        return CurveFault("lateral", kappa, alpha, fz, gamma, fy * math.copysign(1.0, slip), static_load)
    return None


@functools.lru_cache(maxsize=1024)
def curve_fault(tire: Tire, static_load: float) -> CurveFault | None:
    """The first place where the upright tire's force pushes the way it slides (None: it opposes the slip
    everywhere), at the loads LOAD_FACTORS x static_load (N)."""
    if tire.grip <= 0.0:
        return None
    points = slip_points(tire)
    for factor in LOAD_FACTORS:
        fz = max(1.0, factor * static_load)
        for kappa, alpha in points:
            fault = fault_at(tire, kappa, alpha, fz, 0.0, static_load)
            if fault is not None:
                return fault
    return None


def culprit(tire: Tire, fault: CurveFault) -> str:
    """The tire parameter whose default value removes the fault at its place (the first such, in the
    family's own order) or, when none alone does, the one whose default shrinks it most ("model" when no
    parameter of the family differs from its default)."""
    default = Tire()
    best, least = "model", fault.force
    for name in MODEL_FIELDS.get(tire.model, ()) + ("load_sensitivity", "grip", "pressure", "nominal_pressure"):
        if getattr(tire, name) == getattr(default, name):
            continue
        fixed = fault_at(dataclasses.replace(tire, **{name: getattr(default, name)}), fault.kappa, fault.alpha,
                         fault.load, fault.camber, fault.static_load)
        if fixed is None:
            return name
        if fixed.force < least:
            best, least = name, fixed.force
    return best


def axle_fault(tire: Tire, static_load: float) -> tuple[str, CurveFault] | None:
    """(the tire parameter to name, the fault) for an axle's tire at the axle's static load per wheel, or
    None when its curves oppose the slip everywhere."""
    fault = curve_fault(tire, round(float(static_load), 3))
    return None if fault is None else (culprit(tire, fault), fault)
