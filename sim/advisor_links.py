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
frequency and the loads it gives are the step's, not the car's): noted, not refused (nothing blows up).

The wheel is stepped with the body held still and the body then takes the wheel's reaction, m_u times its
acceleration against the body, at the wheel: a partitioned step whose exchange grows by m_u / m_eff a substep,
m_eff = 1 / (J M^-1 J^T) the body's mass as the wheel feels it along its axis (the body's translation and its
roll and pitch about the centre of mass, J = [d, r x d]). A wheel past CARRIER_RATIO of that (a light or
slender body far from its wheels; a real car's is about 0.1) grows without limit: refused."""
from __future__ import annotations

import math

import numpy as np

from sim.kernel.linkage import LINK_SHARE_LIMIT
from sim.kernel.linkage import line_at
from sim.kernel.unsprung import trapezoid_frequency
from sim.model.geometry import wheel_geometry
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


CARRIER_RATIO = 3.5     # m_u / m_eff the advisor counts as the limit (refused past it / 1.25 = 2.8). Theory says 1
#                         for an undamped exchange; the dampers and tires hold it further: of 13 random sets over
#                         0.8, only the one at 5.4 blew up (8 of 8 drives), those at 0.8 - 2.7 never did, while
#                         three built cars at 1.3 - 1.8 did in 2 - 10 of 16 (docs/physics.md §7.2, known gap)
HOP_RESOLVED = 1.0      # omega h up to which the wheel's hop counts as resolved (the trapezoid 7 % slow there)


def hop_items(car: Vehicle, h: float, item_type, required: float) -> list:
    """One item per axle with an unsprung mass: its wheel hop omega = sqrt((k_s + k_bar + k_t) / m_u) against the
    substep h, margin required HOP_RESOLVED / (omega h) (ok while omega h <= 1); bounded: noted, not refused."""
    out = []
    for axle in ("front", "rear"):
        sus = getattr(car, f"{axle}_suspension")
        if sus.unsprung_mass <= 0.0:
            continue
        omega = math.sqrt((sus.k + sus.anti_roll + sus.tire_k) / sus.unsprung_mass)
        param = f"{axle}_suspension.{'tire_k' if sus.tire_k >= sus.k else 'k'}"
        out.append(item_type(f"{axle} wheel hop", param, required * HOP_RESOLVED / (omega * h),
                             HOP_RESOLVED / omega,
                             f"omega h <= {HOP_RESOLVED:g} with the wheel's hop omega = sqrt((k_s + k_bar + k_t) / "
                             f"m_u) = {omega:.4g} rad/s ({omega / (2 * math.pi):.3g} Hz; m_u = {sus.unsprung_mass:g} "
                             f"kg, k_t = {sus.tire_k:g} N/m); the trapezoidal step is stable at any substep and runs "
                             f"it at {trapezoid_frequency(omega, h) / (2 * math.pi):.3g} Hz here (physics.md §7.2)",
                             bounded=True, required=required))
    return out


def carried_mass(car: Vehicle, contacts: np.ndarray, i: int) -> float:
    """m_eff (kg): the body's mass as wheel i feels it along its axis at its rest contact (contacts: (4, 3), body
    frame about the centre of mass), with the wheels' mass in the body's translation and yaw as the kernel packs
    them (sim/model/pack.py)."""
    ch = car.chassis
    geometry = wheel_geometry(car)
    m_u = [(car.front_suspension if k < 2 else car.rear_suspension).unsprung_mass for k in range(4)]
    izz = ch.inertia_yaw + sum(m * (a[0] ** 2 + a[1] ** 2) for m, a in zip(m_u, geometry.anchor))
    d = geometry.axis[i]
    j = np.concatenate([d, np.cross(contacts[i], d)])
    inv = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0]) / (ch.mass + sum(m_u)) + \
        np.array([0.0, 0.0, 0.0, 1.0 / ch.inertia_roll, 1.0 / ch.inertia_pitch, 1.0 / izz])
    return 1.0 / float(j @ (inv * j))


def carrier_items(car: Vehicle, contacts: np.ndarray, item_type, required: float) -> list:
    """One item per axle with an unsprung mass: the wheel against the body that carries it, margin
    CARRIER_RATIO m_eff / m_u (refused below the required margin)."""
    out = []
    for i, axle in ((0, "front"), (2, "rear")):
        m_u = getattr(car, f"{axle}_suspension").unsprung_mass
        if m_u <= 0.0:
            continue
        m_eff = min(carried_mass(car, contacts, i), carried_mass(car, contacts, i + 1))
        out.append(item_type(f"{axle} wheels' mass against the body", f"{axle}_suspension.unsprung_mass",
                             CARRIER_RATIO * m_eff / m_u, math.inf,
                             f"m_u / m_eff < {CARRIER_RATIO:g} with the wheel's m_u = {m_u:.4g} kg and the body's "
                             f"mass as the wheel feels it along its axis m_eff = {m_eff:.4g} kg (its translation, roll "
                             f"and pitch): the wheel is stepped with the body held still, and the exchange grows by "
                             f"m_u / m_eff a substep (docs/physics.md §7.2); a lighter wheel or larger "
                             f"chassis.inertia_pitch / inertia_roll fixes it", required=required))
    return out


def suspension_items(car: Vehicle, surface_mu: float, h: float, item_type, required: float,
                     contacts: np.ndarray) -> list:
    """The links' load loop per axle with geometry, and per axle with an unsprung mass its wheel hop and its mass
    against the body's."""
    return link_items(car, surface_mu, item_type, required) + hop_items(car, h, item_type, required) + \
        carrier_items(car, contacts, item_type, required)
