"""Stability advisor (docs/physics.md §16): will these parameters run stably at this step?

Every part of the chain that is integrated explicitly has a stability limit that depends on the substep
h = dt / substeps. The advisor computes each one's margin from the parameters (how many times the limit
exceeds what the part asks of it; a part needs REQUIRED_MARGIN), says which parameter drives it, the
range of that parameter that stays stable, and how many substeps would make the whole car stable. It is
used by `Simulation` (refusing unstable parameters with that message), by the tuning panel (the margins,
live) and by scripts (`sim.stability`).

The body is one rigid body with velocity q = (v, w) in its own frame and mass matrix
M = diag(m, m, m, Ixx, Iyy, Izz). A spring or damper acting at point r (from the centre of mass) along a
unit direction e sees the body through J = [e, r x e] (its speed is J q), so the springs of a part sum to
a stiffness K = sum k J^T J and its dampers to C = sum c J^T J. Semi-implicit Euler on M q'' = -K x - C q'
is stable while, for its fastest mode,

    h^2 lambda_K + 2 h lambda_C < 4,      lambda = the largest eigenvalue of M^-1/2 (K or C) M^-1/2

(with no spring: h lambda_C < 2). That covers the suspension (k + 2 k_bar, c at each wheel, vertical),
with the bump stop engaged (11 k), the tires near rest (the slip's denominator floors at vMin, so a tire
acts as a damper dFy/dalpha / vMin sideways and dFx/dkappa / vMin lengthways; the sideways one is
left out where the body takes the lateral force mid-substep, `lateral_implicit`), these together, and the
body-collision penalty (k, c, and its friction damping c_t) on the hull points that can press at once.
A light body or a small moment of inertia against a long lever arm shows up as a fast mode.

Per wheel: the seed's explicit spin update, h (dFx/dkappa) / vMin (rho^2 / Iw + n / m) < 2, the wheel's
own inertia and the body's mass shared by the n wheels on that update (the implicit update has no
limit), and a limited-slip differential's coupling K (wL - wR), h K (2 / Iw) < 2.

Not every unstable part blows up. Refused: tire curves that push the way the tire slides, suspension links
whose load feeds itself (sim/advisor_links.py). Noted: springs that cannot hold the car (it sits deep on its
bump stops or hull, both bounded), a wheel hop the step cannot resolve. Held by the kernel to what the step
integrates (noted, never refused): the springs, bars and dampers, the hull's penalty and friction damping, the
10 k bump stops. Bounded, noted: the tires near rest, the explicit wheel spin (the friction limit holds their
force: a chatter of size about h mu g) and the limited-slip coupling (held by its torque cap)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.advisor_links import link_stiffening
from sim.advisor_links import suspension_items
from sim.kernel.collision import HULL_LOAD_CAP
from sim.kernel.collision import held_penalty
from sim.kernel.suspension import held_spring_scale
from sim.kernel.suspension import held_stop_scale
from sim.kernel.units import GRAVITY
from sim.model.checks import field_info
from sim.model.checks import get_value
from sim.model.checks import with_value
from sim.model.files import ConfigError
from sim.model.geometry import hull_points
from sim.model.geometry import hull_stiffness
from sim.model.geometry import static_loads
from sim.model.geometry import wheel_geometry
from sim.model.handling import slip_stiffnesses
from sim.model.pack import spring_numbers
from sim.model.params import Vehicle
from sim.model.tire_curves import axle_fault

REQUIRED_MARGIN = 1.25    # a part is called stable when its limit is this many times what it asks
SPRINGS = "suspension springs and dampers"     # the part the kernel holds when the step cannot follow it
INERTIA_NAMES = ("chassis.inertia_roll", "chassis.inertia_pitch", "chassis.inertia_yaw")


@dataclass(frozen=True)
class Item:
    part: str             # what is integrated, e.g. "suspension springs and dampers"
    parameter: str        # the parameter that drives it most, e.g. "front_suspension.k"
    margin: float         # how many times the stability limit exceeds what the part asks (>= required: ok)
    h_max: float          # the longest substep (s) at which this part is stable with the required margin
    why: str              # the formula and its numbers
    bounded: bool = False     # its force is bounded (a friction limit, a torque cap, a cap the kernel holds it
    #                           to): an instability is a chatter of bounded size, noted but not refused
    required: float = REQUIRED_MARGIN

    @property
    def stable(self) -> bool:
        return self.margin >= self.required

    @property
    def refuses(self) -> bool:
        """Unstable and unbounded: a blow-up, so the parameters are refused."""
        return not self.stable and not self.bounded


@dataclass(frozen=True)
class Report:
    dt: float
    substeps: int
    items: tuple[Item, ...]
    notes: tuple[str, ...] = ()     # choices that are stable but can feed energy in (not refused)

    @property
    def h(self) -> float:
        return self.dt / self.substeps

    @property
    def stable(self) -> bool:
        """No part would blow up (a bounded part's chatter is noted, not refused)."""
        return not any(i.refuses for i in self.items)

    @property
    def smooth(self) -> bool:
        """Every part is stable, the bounded ones too (no chatter either)."""
        return all(i.stable for i in self.items)

    @property
    def worst(self) -> Item:
        """The part that refuses with the least margin, or else the least stable part."""
        refusing = [i for i in self.items if i.refuses]
        return min(refusing or self.items, key=lambda i: i.margin / i.required)

    @property
    def substeps_needed(self) -> int:
        """The fewest substeps at this dt with which every part that could blow up is stable."""
        h_max = min([i.h_max for i in self.items if not i.bounded] + [math.inf])
        if h_max <= 0 or any(i.refuses and math.isinf(i.h_max) for i in self.items):
            return 10 ** 9          # a part no step fixes (springs that cannot hold the car, a tire curve)
        return max(1, math.ceil(self.dt / h_max - 1e-9)) if h_max < math.inf else 1

    @property
    def substeps_as_given(self) -> int:
        """The fewest substeps at this dt with which the kernel holds none of the suspension's springs, bars
        and dampers (held_spring_scale): they then act as given (1 when they already do)."""
        springs = next(i for i in self.items if i.part == SPRINGS)
        if springs.stable:
            return self.substeps
        return max(1, math.ceil(self.dt / springs.h_max - 1e-9)) if springs.h_max > 0 else 10 ** 9

    def message(self, where: str = "") -> str:
        """One line: the least stable part, its parameter and what would fix it."""
        w = self.worst
        prefix = f"{where}: " if where else ""
        if math.isinf(w.h_max):           # not a matter of the step: the part cannot work at all
            return f"{prefix}{w.parameter}: {w.part}: {w.why}; change {w.parameter}"
        fix = f"use at least {self.substeps_needed} substeps at dt = {self.dt:g} s" \
            if self.substeps_needed < 10 ** 6 else "no step fixes it"
        return (f"{prefix}{w.parameter}: {w.part}: unstable at h = {self.h:.3g} s (margin {w.margin:.2f}, "
                f"needs {w.required:g}; {w.why}); {fix}, or change {w.parameter}")


def margin_of(h: float, lam_k: float, lam_c: float) -> tuple[float, float]:
    """(margin, h_max) for h^2 lam_k + 2 h lam_c < 4: how many times 4 exceeds it, the longest h with the margin."""
    load = h * h * lam_k + 2.0 * h * lam_c
    margin = 4.0 / load if load > 0 else math.inf
    target = 4.0 / REQUIRED_MARGIN
    if lam_k > 0:
        h_max = (-2.0 * lam_c + math.sqrt(4.0 * lam_c * lam_c + 4.0 * lam_k * target)) / (2.0 * lam_k)
    else:
        h_max = target / (2.0 * lam_c) if lam_c > 0 else math.inf
    return margin, h_max


def mass_matrix(car: Vehicle) -> np.ndarray:
    ch = car.chassis
    return np.array([ch.mass, ch.mass, ch.mass, ch.inertia_roll, ch.inertia_pitch, ch.inertia_yaw])


def jacobian(r: np.ndarray, e: np.ndarray) -> np.ndarray:
    """J = [e, r x e]: the speed along e at r of the body moving with (v, w)."""
    return np.concatenate([e, np.cross(r, e)])


def fastest(masses: np.ndarray, matrix: np.ndarray) -> tuple[float, np.ndarray]:
    """The largest eigenvalue of M^-1/2 A M^-1/2 and its mode (in M^1/2 units)."""
    scale = 1.0 / np.sqrt(masses)
    values, vectors = np.linalg.eigh(matrix * np.outer(scale, scale))
    return float(values[-1]), vectors[:, -1]


def blame(mode: np.ndarray, part_parameter: str) -> str:
    """The parameter to name for a fast mode: the body's moment of inertia when the mode is mostly a
    rotation, the part's own parameter otherwise."""
    weights = mode * mode
    if weights[3:].sum() > 0.5:
        return INERTIA_NAMES[int(np.argmax(weights[3:]))]
    return part_parameter


def lateral_implicit(car: Vehicle, tire) -> bool:
    """Whether the body takes this tire's lateral force implicitly (sim/kernel/body.py lateral_implicit): with
    chassis.lateral_update = "midpoint", for the curves whose slope the tire stage knows (linear, magic,
    simple, mf96, mf61) with the reference slip form. Then the tire's sideways damping near rest has no stability
    limit (the trapezoidal rule is A-stable); the other families keep it."""
    return (car.chassis.lateral_update == "midpoint" and tire.model in ("linear", "magic", "simple", "mf96", "mf61")
            and tire.slip_form == "reference")


def tire_slopes(car: Vehicle, i: int, fz: float) -> tuple[float, float]:
    """(dFx/dkappa, dFy/dalpha) at zero slip and load fz on a surface of mu 1 (N, N/rad)."""
    return slip_stiffnesses(car.front_tire if i < 2 else car.rear_tire, fz)


FRICTION_CAP = 0.99 * 2.0 / REQUIRED_MARGIN   # h c_t lambda the hull's friction damping is held to (just inside)


def hull_mode(car: Vehicle, along_normal: bool) -> tuple[float, str, np.ndarray]:
    """The fastest mode of the hull's contacts per unit of stiffness or damping, over the groups of hull points
    that can touch the ground at once (HULL_GROUPS): (lambda (1/kg), the group, the mode). along_normal: the
    penalty pressing along each group's normal; otherwise the friction sliding in the two directions along
    the surface."""
    masses = mass_matrix(car)
    pts = hull_points(car)
    axes = np.eye(3)
    worst = None
    for group, members, axis in HULL_GROUPS:
        directions = [axis] if along_normal else [d for d in range(3) if d != axis]
        a = np.zeros((6, 6))
        for k in members:
            for d in directions:
                j = jacobian(pts[k], axes[d])
                a += np.outer(j, j)
        lam, mode = fastest(masses, a)
        if worst is None or lam > worst[0]:
            worst = (lam, group, mode)
    return worst


def hull_friction_mode(car: Vehicle) -> tuple[float, str, np.ndarray]:
    """The fastest mode of the hull's sliding friction per unit of damping (hull_mode)."""
    return hull_mode(car, along_normal=False)


def hull_friction_limit(car: Vehicle) -> float:
    """FRICTION_CAP / lambda (N s): at substep h the hull's friction damping is min(c_t, this / h), the
    sliding friction's viscous slope the step can integrate stably with the required margin (its Coulomb
    limit mu Fn is not touched). At the presets' 2 substeps it is above c_t: nothing is capped."""
    return FRICTION_CAP / hull_friction_mode(car)[0]


def hull_normal_mode(car: Vehicle) -> tuple[float, str, np.ndarray]:
    """The hull penalty's fastest mode per unit of stiffness (hull_mode; the kernel's held_penalty holds to it)."""
    return hull_mode(car, along_normal=True)


def hull_normal_held(k: float, c: float, lam: float, h: float) -> tuple[float, float]:
    """The penalty's (k, c) the kernel uses at substep h (sim/kernel/collision.py held_penalty)."""
    return tuple(float(x) for x in held_penalty(k, c, lam, h))


def rest_contacts(car: Vehicle, gravity: float = GRAVITY) -> np.ndarray:
    """The four contact points at rest (4, 3), body frame about the centre of mass: anchor + (l0 - x + r) d
    with x the static compression."""
    geometry = wheel_geometry(car)
    loads = static_loads(car, gravity)
    out = np.zeros((4, 3))
    for i in range(4):
        sus = car.front_suspension if i < 2 else car.rear_suspension
        k, _, _, _, preload = spring_numbers(sus)
        x = max(0.0, loads[i] - preload) / k
        out[i] = geometry.anchor[i] + geometry.axis[i] * (min(sus.l0, sus.l_max) - x + geometry.radius[i])
    return out


def suspension_matrices(car: Vehicle, contacts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K of the springs and bars, K of the bump stops, C of the dampers), each 6 x 6, acting vertically at
    the contact points: the springs k + 2 k_bar, the stops k_stop, the dampers c (fgear, chaos: the larger of
    c and c_rebound), as the kernel uses them (spring_numbers), over 1 - the links' largest share (§7.1)."""
    k_s, k_stop, c_s = np.zeros((6, 6)), np.zeros((6, 6)), np.zeros((6, 6))
    for i in range(4):
        sus = car.front_suspension if i < 2 else car.rear_suspension
        k, c, _, stop_k, _ = spring_numbers(sus)
        if sus.model in ("fgear", "chaos"):
            c = max(c, sus.c_rebound)
        jz = jacobian(contacts[i], np.array([0.0, 0.0, 1.0]))
        outer = np.outer(jz, jz) * link_stiffening(car, i)     # the links' share stiffens the wheel (§7.1)
        k_s += (k + 2.0 * sus.anti_roll) * outer
        k_stop += stop_k * outer
        c_s += c * outer
    return k_s, k_stop, c_s


def suspension_modes(car: Vehicle, gravity: float = GRAVITY) -> tuple[float, float, float]:
    """(lambda of the springs and bars (1/s^2), of the dampers (1/s), of the bump stops (1/s^2)) for the
    body's fastest mode: what the kernel holds the bump stops with (suspension.py held_stop_scale)."""
    masses = mass_matrix(car)
    k_s, k_stop, c_s = suspension_matrices(car, rest_contacts(car, gravity))
    return fastest(masses, k_s)[0], fastest(masses, c_s)[0], fastest(masses, k_stop)[0]


def support_items(car: Vehicle, gravity: float) -> list[Item]:
    """Per axle: can the springs hold the car at rest? The most a spring carries before the body rests on its
    hull is preload + k (l0 - l_min + r) + k_stop r (the bump stop compresses at most one wheel radius past
    l_min; deeper is the body collision's), against the static load of the more loaded wheel (the centre of
    mass's side offset included). A centre of mass outside the track tips the car over."""
    loads = static_loads(car, gravity)
    out = []
    for axle in ("front", "rear"):
        sus, tire, ax = (getattr(car, f"{axle}_{g}") for g in ("suspension", "tire", "axle"))
        share = 0.5 + car.chassis.com_y / (2.0 * ax.half_track)
        load = 2.0 * loads[0 if axle == "front" else 2] * max(share, 1.0 - share)
        k, _, l_min, stop_k, preload = spring_numbers(sus)
        r = tire.radius
        capacity = preload + k * max(0.0, min(sus.l0, sus.l_max) - l_min + r) + stop_k * r
        if not 0.0 <= share <= 1.0:
            out.append(Item("centre of mass within the track", "chassis.com_y", 0.0, math.inf,
                            f"com_y = {car.chassis.com_y:g} m lies outside the {axle} track (half track "
                            f"{ax.half_track:g} m): the car tips over at rest", bounded=True, required=1.0))
            continue
        why = (f"the {axle} springs hold at most {capacity:.0f} N a wheel (k = {k:g} N/m over "
               f"{min(sus.l0, sus.l_max) - l_min:.3g} m to l_min, then the bump stop {stop_k:g} N/m over a wheel "
               f"radius{f', preload {preload:g} N' if preload else ''}) but carry {load:.0f} N at rest: "
               f"the car sits deep on its bump stops or on its hull (noted: the stops and the hull hold it)")
        out.append(Item(f"{axle} springs holding the car", f"{axle}_suspension.k", capacity / max(load, 1e-9),
                        math.inf, why, bounded=True, required=1.0))
    return out


def tire_curve_items(car: Vehicle, gravity: float) -> list[Item]:
    """Per axle: do the tire's curves oppose the slip over the slips it reaches at the loads it sees
    (sim/model/tire_curves.py)? A curve that pushes the way the tire slides adds energy at any step."""
    loads = static_loads(car, gravity)
    out = []
    for axle, load in (("front", loads[0]), ("rear", loads[2])):
        tire = getattr(car, f"{axle}_tire")
        found = axle_fault(tire, load)
        if found is None:
            out.append(Item(f"{axle} tire curves opposing the slip", f"{axle}_tire.model", math.inf, math.inf,
                            "the force opposes the slip everywhere", required=1.0))
        else:
            name, fault = found
            out.append(Item(f"{axle} tire curves opposing the slip", f"{axle}_tire.{name}", 0.0, math.inf,
                            f"the {tire.model} tire: {fault.where()}; the force must oppose the slip (a tire "
                            f"that adds energy)", required=1.0))
    return out


# the hull points that can press on the ground at once, and along which direction (in the order of
# sim/model/geometry.py hull_points)
HULL_GROUPS = (("floor", (0, 1, 2, 3), 2), ("roof", (8, 9, 10, 11), 2), ("left side", (0, 2, 4, 6, 8, 10, 12), 1),
               ("right side", (1, 3, 5, 7, 9, 11, 13), 1), ("front bumper", (4, 5), 0), ("rear bumper", (6, 7), 0))


def report(car: Vehicle, dt: float, substeps: int, surface_mu: float = 1.0, gravity: float = GRAVITY) -> Report:
    """Every explicit part's stability margin at h = dt / substeps (on ground of friction surface_mu, in a
    world of gravity m/s^2), whether the springs hold the car and whether the tires' curves oppose the slip."""
    h = dt / substeps
    masses = mass_matrix(car)
    loads = static_loads(car, gravity)
    axes = np.eye(3)
    items: list[Item] = []
    sus = (car.front_suspension, car.front_suspension, car.rear_suspension, car.rear_suspension)
    tires = (car.front_tire, car.front_tire, car.rear_tire, car.rear_tire)
    contacts = rest_contacts(car, gravity)
    k_s, k_stop, c_s = suspension_matrices(car, contacts)
    c_t = np.zeros((6, 6))
    tire_share = np.zeros(4)
    for i in range(4):
        slope_x, slope_y = tire_slopes(car, i, loads[i])
        jx, jy = jacobian(contacts[i], axes[0]), jacobian(contacts[i], axes[1])
        if lateral_implicit(car, tires[i]):
            slope_y = 0.0                                 # the body takes it mid-substep: no explicit limit
        c_t += surface_mu / tires[i].v_min * (slope_x * np.outer(jx, jx) + slope_y * np.outer(jy, jy))
        tire_share[i] = surface_mu * (slope_x + slope_y) / tires[i].v_min
    axle = "front" if tire_share[0] >= tire_share[2] else "rear"
    lam_ks, mode_ks = fastest(masses, k_s)
    lam_cs, mode_cs = fastest(masses, c_s)
    k_share, c_share = held_spring_scale(lam_ks, lam_cs, h)              # what suspension_stage uses at h
    held = held_stop_scale(k_share * lam_ks, c_share * lam_cs, fastest(masses, k_stop)[0], h)
    lam_kb, mode_kb = fastest(masses, k_share * k_s + held * k_stop)
    lam_ct, mode_ct = fastest(masses, c_t)
    lam_all, mode_all = fastest(masses, c_share * c_s + c_t)
    stiff = "front" if sus[0].k >= sus[2].k else "rear"
    spring_param = f"{stiff}_suspension.k" if h * lam_ks >= 2.0 * lam_cs else \
        f"{'front' if sus[0].c >= sus[2].c else 'rear'}_suspension.c"
    for part, lam_k, lam_c, mode, param in (
            (SPRINGS, lam_ks, lam_cs, mode_ks if h * lam_ks >= 2.0 * lam_cs else mode_cs,
             spring_param),
            ("suspension with the bump stops engaged", lam_kb, c_share * lam_cs, mode_kb, f"{stiff}_suspension.k"),
            ("tires near rest (dampers dF/dslip / vMin)", 0.0, lam_ct, mode_ct, f"{axle}_tire.v_min"),
            ("suspension and tires together", k_share * lam_ks, lam_all, mode_all, f"{axle}_tire.v_min")):
        margin, h_max = margin_of(h, lam_k, lam_c)
        extra = f" (the bump stops held to {held:.3g} of their stiffness)" if "bump" in part and held < 1.0 else ""
        items.append(Item(part, blame(mode, param), margin, h_max,
                          f"h^2 lambda_K + 2 h lambda_C < 4 with lambda_K = {lam_k:.4g} 1/s^2, lambda_C = "
                          f"{lam_c:.4g} 1/s for the body's fastest mode{extra}", bounded=True))
    shares = [f"the {what} to {share:.3g} of their {of}" for what, share, of in
              (("springs and bars", k_share, "stiffness"), ("dampers", c_share, "damping")) if share < 1.0]
    as_given = Report(dt, substeps, tuple(items)).substeps_as_given
    springs_held = (f"held, not refused: {' and '.join(shares)} at this substep, the stiffest a {h * 1000:.3g} ms "
                    f"step follows for the body's fastest mode ({as_given} substeps run them as given)",) \
        if shares else ()
    stops_held = (f"the bump stops (10 k past l_min) are held to {held:.3g} of their stiffness at this substep: "
                  f"the stiffest a {h * 1000:.3g} ms step integrates stably with these springs and dampers",) \
        if held < 1.0 else ()
    explicit = 2 * sum(t.spin_update == "explicit" for t in (tires[0], tires[2]))
    for i, name in ((0, "front"), (2, "rear")):
        tire = tires[i]
        if tire.spin_update == "explicit":
            # a slip kappa = (rho omega - vx) / vMin answers its force through the wheel (rho^2 / Iw) and,
            # for the explicit wheels slipping together, through the body (n / m)
            slope_x = surface_mu * tire_slopes(car, i, loads[i])[0]
            per_h = slope_x / tire.v_min * (tire.radius ** 2 / tire.wheel_inertia + explicit / car.chassis.mass)
            items.append(Item(f"{name} wheel spin (explicit update)", f"{name}_tire.wheel_inertia",
                              2.0 / (h * per_h), 2.0 / (per_h * REQUIRED_MARGIN),
                              f"h (dFx/dkappa)/vMin (rho^2/Iw + n/m) < 2 with dFx/dkappa = {slope_x:.4g} N, "
                              f"Iw = {tire.wheel_inertia:g} kg m^2, n = {explicit} wheels on the explicit update "
                              f"(spin_update = \"implicit\" has no limit)", bounded=True))
        diff = car.drive.front_diff if i == 0 else car.drive.rear_diff
        if diff == "lsd" and car.drive.mode == "engine" and car.drive.lsd_stiffness > 0:
            lam = 2.0 * car.drive.lsd_stiffness / tire.wheel_inertia
            margin, h_max = margin_of(h, 0.0, lam)
            items.append(Item(f"{name} limited-slip differential", "drive.lsd_stiffness", margin, h_max,
                              f"h K (2/Iw) < 2 with K = {car.drive.lsd_stiffness:g} N m s/rad, "
                              f"Iw = {tire.wheel_inertia:g} kg m^2", bounded=True))
    col, k0 = car.collision, hull_stiffness(car, gravity)
    lam, group, mode = hull_normal_mode(car)
    k_h, c_h = hull_normal_held(k0, col.damping, lam, h)    # what collision_stage uses at this h
    margin, h_max = margin_of(h, k_h * lam, c_h * lam)
    param = "collision.stiffness" if h * col.stiffness > 2.0 * col.damping else "collision.damping"
    items.append(Item("body collision", blame(mode, param), margin, h_max,
                      f"h^2 k lambda + 2 h c lambda < 4 with k = {k_h:.4g} N/m, c = {c_h:.4g} N s/m per hull point, "
                      f"lambda = {lam:.4g} 1/kg for the {group} pressing (k and c are held to {HULL_LOAD_CAP:g} "
                      f"together)", bounded=True))
    hull_held = (f"collision.stiffness and damping ({k0:g} N/m, {col.damping:g} N s/m) are held to "
            f"{k_h:.4g} and {c_h:.4g} at this substep: the stiffest penalty a {h * 1000:.3g} ms step integrates "
            f"stably for the {group} pressing",) if k_h < k0 else ()
    items += support_items(car, gravity) + tire_curve_items(car, gravity) + \
        suspension_items(car, surface_mu, h, Item, REQUIRED_MARGIN)
    lam, group, mode = hull_friction_mode(car)
    c_t = min(col.friction_damping, FRICTION_CAP / (h * lam))       # what collision_stage uses at this h
    margin, _ = margin_of(h, 0.0, c_t * lam)
    items.append(Item("body collision friction", blame(mode, "collision.friction_damping"), margin, math.inf,
                      f"h c_t lambda < 2 with c_t = {c_t:.4g} N s/m per hull point, lambda = {lam:.4g} 1/kg for "
                      f"the {group} sliding (c_t is held to {FRICTION_CAP:g} / (h lambda))"))
    capped = (f"collision.friction_damping = {col.friction_damping:g} N s/m is held to {c_t:.4g} at this substep: "
              f"the sliding friction's slope below its Coulomb limit that a {h * 1000:.3g} ms step integrates "
              f"stably (the limit mu Fn is unchanged)",) if c_t < col.friction_damping else ()
    notes = springs_held + stops_held + hull_held + capped + tuple(
        f"{axle}_suspension.force_along = \"axis\" is the seed's literal form: the suspension force leans with "
        f"the body, and its part along the contact plane, which no friction limits, is kept only where it does no "
        f"positive work (docs/physics.md §7); \"normal\" is the ground's push alone"
        for axle in ("front", "rear") if getattr(car, f"{axle}_suspension").force_along == "axis") + tuple(
        f"{axle}_tire.relaxation_speed = \"vx\" is seed 001's literal form: sliding sideways near a standstill the "
        f"tire keeps its old force for lambda / v_min (until it pushes the way it slides); \"contact\" relaxes it"
        for axle in ("front", "rear") if getattr(car, f"{axle}_tire").relaxation_speed == "vx"
        and getattr(car, f"{axle}_tire").relaxation_length > 0.0)
    return Report(float(dt), int(substeps), tuple(items), notes)


def check(car: Vehicle, dt: float, substeps: int, where: str = "", surface_mu: float = 1.0,
          gravity: float = GRAVITY) -> Report:
    """The report, or ConfigError with its one-line message when some part would blow up."""
    r = report(car, dt, substeps, surface_mu, gravity)
    if not r.stable:
        raise ConfigError(r.message(where or car.source or car.name))
    return r


PARAMETERS = ("chassis.mass", "chassis.inertia_roll", "chassis.inertia_pitch", "chassis.inertia_yaw",
              "front_suspension.k", "front_suspension.c", "front_suspension.anti_roll",
              "rear_suspension.k", "rear_suspension.c", "rear_suspension.anti_roll",
              "front_tire.v_min", "front_tire.grip", "front_tire.wheel_inertia",
              "rear_tire.v_min", "rear_tire.grip", "rear_tire.wheel_inertia",
              "drive.lsd_stiffness", "collision.stiffness", "collision.damping", "collision.friction_damping")


def stable_range(car: Vehicle, path: str, dt: float, substeps: int, steps: int = 40,
                 surface_mu: float = 1.0) -> tuple[float, float] | None:
    """The interval of parameter `path` (inside its declared range, everything else as in `car`) in which
    nothing is refused and the kernel holds none of the springs and dampers at this step; None when no value
    is. Found by bisection from the current value (or from the most stable end when it is unstable), log scale."""
    f = field_info(path)
    lo, hi = f.metadata["lo"], f.metadata["hi"]

    def ok(value: float) -> bool:
        try:
            r = report(with_value(car, path, value), dt, substeps, surface_mu)
            return r.stable and r.substeps_as_given <= substeps
        except (ConfigError, ValueError, ZeroDivisionError):
            return False

    current = float(get_value(car, path))
    if not ok(current):
        probes = [lo, hi] + [float(v) for v in np.geomspace(max(lo, 1e-9), hi, 25)]
        good = [p for p in probes if ok(p)]
        if not good:
            return None
        current = good[0]

    def edge(inside: float, outside: float) -> float:
        if ok(outside):
            return outside
        for _ in range(steps):
            mid = math.sqrt(inside * outside) if inside > 0 and outside > 0 else 0.5 * (inside + outside)
            inside, outside = (mid, outside) if ok(mid) else (inside, mid)
        return inside

    return edge(current, lo), edge(current, hi)


def fields_of_report(r: Report) -> dict[str, float]:
    """The smallest margin per driving parameter."""
    out: dict[str, float] = {}
    for i in r.items:
        out[i.parameter] = min(out.get(i.parameter, math.inf), i.margin)
    return out

