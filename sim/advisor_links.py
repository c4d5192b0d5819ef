"""Stability advisor, the suspension geometry's part (docs/physics.md §7.1 and §16): the load the links carry
feeds back on itself through the tire's grip.

The links carry J = T F_in + A F_x of the tire's force (T = h_rc / half track, A the side-view line's slope),
and the tire's force is at most mu Fz with Fz = Fs a + J. So J can grow by mu sqrt(T^2 + A^2) = g of
itself: below g = 1 the load settles (the kernel takes J from the last substep, a fixed-point iteration
that converges as g^n and rings where J pulls the wheel up); at g = 1 and above the links would lift the
car on their own without limit (a swing axle's jacking, which in a real car the wheel's travel stops and
this model has not got). The kernel holds J within LINK_SHARE_LIMIT = 1 / 1.25 of the wheel's load, so g
acts as at most that: noted, not refused. The margin is 1 / g over the wheel's whole travel (the slopes
held as the kernel holds them), on ground of friction surface_mu with the tire's largest load factor.

The wheels' own mass (§7.2) hops at omega = sqrt((k_s + k_bar + k_t) / m_u) (the bar's partner held still). The
kernel steps the wheel by the trapezoidal rule, stable at any substep h, which runs the hop at
2 atan(omega h / 2) / h: 1.6 % slow at omega h = 0.45, 7 % at 1. Past omega h = 1 the hop is not resolved (its
frequency and the loads it gives are the step's, not the car's): noted, not refused (nothing blows up)."""
from __future__ import annotations

import math

from sim.kernel.linkage import COMPLY_LIMIT
from sim.kernel.linkage import LINK_SHARE_LIMIT
from sim.kernel.linkage import line_at
from sim.kernel.unsprung import trapezoid_frequency
from sim.model.geometry import hop_omega
from sim.model.geometry import tire_loads
from sim.model.handling import slip_stiffnesses
from sim.model.linkage import has_geometry
from sim.model.linkage import link_numbers
from sim.model.params import Vehicle


def peak_friction(tire, surface_mu: float) -> float:
    """The largest friction coefficient the tire's combined limit gives (surface x grip x the load factor's
    largest value over 0 .. 3 Fz0, §8)."""
    ls = tire.load_sensitivity
    return surface_mu * tire.grip * max(1.0 - ls, 1.0 + 2.0 * ls)


def loop_gain(car: Vehicle, i: int, surface_mu: float = 1.0) -> tuple[float, str]:
    """(g, the parameter driving it) of wheel i: mu sqrt(T^2 + A^2) at the worse end of its travel, with A the
    steeper of the brakes' and the drive's lines."""
    n = link_numbers(car, i)
    sus = car.front_suspension if i < 2 else car.rear_suspension
    worst, lateral = 0.0, True
    for z in (n.l_static - sus.l_max, n.l_static - sus.l_min):        # the lines are straight in z: the ends
        t = abs(line_at(n.rc_tan, n.rc_tan_slope, z))
        a = max(abs(line_at(n.anti_brake, n.anti_brake_slope, z)), abs(line_at(n.anti_drive, n.anti_drive_slope, z)))
        if math.hypot(t, a) > worst:
            worst, lateral = math.hypot(t, a), t >= a
    axle = "front" if i < 2 else "rear"
    param = f"{axle}_suspension.roll_centre" if lateral else \
        f"{axle}_suspension.{'anti_brake' if abs(sus.anti_brake) >= abs(sus.anti_drive) else 'anti_drive'}"
    return peak_friction(car.front_tire if i < 2 else car.rear_tire, surface_mu) * worst, param


def link_items(car: Vehicle, surface_mu: float, item_type, required: float) -> list:
    """One item per axle whose geometry is not neutral: the links' load loop (margin 1 / g). item_type: the
    advisor's Item."""
    out = []
    for i, axle in ((0, "front"), (2, "rear")):
        if not has_geometry(getattr(car, f"{axle}_suspension")):
            continue
        g, param = loop_gain(car, i, surface_mu)
        mu = peak_friction(getattr(car, f"{axle}_tire"), surface_mu)
        out.append(item_type(f"{axle} suspension links' load", param, 1.0 / g if g > 0.0 else math.inf, math.inf,
                             f"the links carry J = T F_in + A F_x of the tire force, which is at most mu Fz with "
                             f"Fz = Fs a + J: J feeds back on itself by g = mu sqrt(T^2 + A^2) = {g:.3g} (mu = "
                             f"{mu:.3g}, the roll-centre and side-view lines' slopes at the worse end of the "
                             f"travel); the kernel holds J within {LINK_SHARE_LIMIT:g} of the wheel's load, where "
                             f"the links would otherwise lift the car without limit (docs/physics.md §7.1)",
                             bounded=True, required=required))
    return out


def link_stiffening(car: Vehicle, i: int) -> float:
    """How much stiffer wheel i's spring, bar and damper act on the body with the links' share of its load,
    Fz = Fs a / (1 - rho): 1 / (1 - the largest share), the loop gain on a surface of friction 1 held as the
    kernel holds it (1 without geometry). The advisor's suspension modes and the kernel's holds use it."""
    sus = car.front_suspension if i < 2 else car.rear_suspension
    if not has_geometry(sus):
        return 1.0
    return 1.0 / (1.0 - min(loop_gain(car, i)[0], LINK_SHARE_LIMIT))


HOP_RESOLVED = 1.0      # omega h up to which the wheel's hop counts as resolved (the trapezoid 7 % slow there)


def hop_items(car: Vehicle, h: float, item_type, required: float) -> list:
    """One item per axle with an unsprung mass: its wheel hop omega = sqrt((k_s + k_bar + k_t) / m_u) against the
    substep h, margin required HOP_RESOLVED / (omega h) (ok while omega h <= 1); bounded: noted, not refused."""
    out = []
    for axle in ("front", "rear"):
        sus = getattr(car, f"{axle}_suspension")
        if sus.unsprung_mass <= 0.0:
            continue
        omega = hop_omega(sus)
        param = f"{axle}_suspension.{'tire_k' if sus.tire_k >= sus.k else 'k'}"
        out.append(item_type(f"{axle} wheel hop", param, required * HOP_RESOLVED / (omega * h),
                             HOP_RESOLVED / omega,
                             f"omega h <= {HOP_RESOLVED:g} with the wheel's hop omega = sqrt((k_s + k_bar + k_t) / "
                             f"m_u) = {omega:.4g} rad/s ({omega / (2 * math.pi):.3g} Hz; m_u = {sus.unsprung_mass:g} "
                             f"kg, k_t = {sus.tire_k:g} N/m); the trapezoidal step is stable at any substep and runs "
                             f"it at {trapezoid_frequency(omega, h) / (2 * math.pi):.3g} Hz here (physics.md §7.2)",
                             bounded=True, required=required))
    return out


def compliance_items(car: Vehicle, surface_mu: float, item_type, required: float) -> list:
    """One item per axle whose compliance steer turns the wheel toward its side force (the rear's understeer,
    a front's oversteer): the turn adds force, the force adds turn, a loop of gain g = |k| C_alpha (k rad/N, the
    tire's cornering stiffness at its static load on this surface). Below 1 the steer settles at 1 / (1 - g)
    of its first turn; at 1 and above it runs to the kernel's hold (COMPLY_LIMIT): bounded, noted. A turn away
    from the force settles at any gain (sim/kernel/linkage.py compliance_toward)."""
    out = []
    loads = tire_loads(car)
    for i, axle in ((0, "front"), (2, "rear")):
        c = getattr(car, f"{axle}_suspension").compliance_steer
        k = math.radians(c) / 1000.0 * (1.0 if axle == "rear" else -1.0)     # rad/N, + the turn adds force
        if k <= 0.0:
            continue
        c_alpha = surface_mu * slip_stiffnesses(getattr(car, f"{axle}_tire"), float(loads[i]))[1]
        g = k * c_alpha
        out.append(item_type(f"{axle} compliance steer", f"{axle}_suspension.compliance_steer",
                             1.0 / g if g > 0.0 else math.inf, math.inf,
                             f"the wheel turns toward its side force: g = |k| C_alpha = {g:.3g} < 1 (k = {c:g} deg/kN, "
                             f"C_alpha = {c_alpha:.4g} N/rad at the static load); past 1 the steer runs to the "
                             f"kernel's hold of {math.degrees(COMPLY_LIMIT):.0f} deg (docs/physics.md §7.1)",
                             bounded=True, required=required))
    return out


def suspension_items(car: Vehicle, surface_mu: float, h: float, item_type, required: float) -> list:
    """The links' load loop per axle with geometry, the compliance steer's loop and the wheel hop per axle with
    an unsprung mass."""
    return link_items(car, surface_mu, item_type, required) + compliance_items(car, surface_mu, item_type, required) \
        + hop_items(car, h, item_type, required)
