"""Vehicle parameters: frozen dataclasses grouped by subsystem, each field with a unit and a valid range.

The dataclasses are the edge format (TOML presets, the UI's editors, scripts). `sim/model/pack.py` turns them
into the struct-of-arrays tables the kernels read. Every field is declared with `num(...)`, `text(...)` or
`curve(...)`, which store the unit, the allowed range and a one-line description in the field's
metadata; `validate()` and the TOML loader read that metadata, so the range is written exactly once.

Vehicle frame (ISO 8855): x forward, y left, z up. Positions are given relative to a *reference point*:
on the centre line, midway between the axles, at the height of the suspension anchors. The rigid body
itself is integrated about the centre of mass (`chassis.com_*`).
"""
from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from config import CONFIG_DIR
from sim.kernel.tables import MAX_CURVE, MAX_GEARS, MF61_EXTRA, MF96_FIELDS
from sim.model.files import ConfigError, atomic_write_bytes, build, data_dir, read_text, read_toml, show, table

# ----------------------------------------------------------------------------------------------------
# Field declarations with unit and range

def num(default: float, unit: str, lo: float, hi: float, doc: str, since: str = ""):
    """A float parameter in [lo, hi] (inclusive) measured in `unit`. `since` names the addition that brought
    it: a file written before it may leave it out and gets the default (which changes nothing unless the
    file also chooses what the addition is for, e.g. the mf96 tire model)."""
    meta = {"kind": "num", "unit": unit, "lo": lo, "hi": hi, "doc": doc}
    if since:
        meta["since"] = since
    return field(default=float(default), metadata=meta)


def mf96(default: float, unit: str, lo: float, hi: float, doc: str):
    """A coefficient of the mf96 tire model (added after the first vehicle files: they may leave it out)."""
    return num(default, unit, lo, hi, doc, since="mf96")


SUSPENSION_MODEL_FIELDS = {"fgear": ("preload", "c_rebound", "travel_limit"), "chaos": ("c_rebound",),
                           "avs": ("avs_spring_rate", "avs_damper_rate", "avs_travel_cm", "avs_support_rate")}
MODEL_FIELDS = {"linear": ("ck", "ca", "load_sensitivity"),
                "chaos": ("ca", "load_sensitivity", "load_ratio", "chaos_lateral", "by", "cy", "dy", "ey"),
                "avs": ("dx", "dy", "load_sensitivity", "avs_slip_time", "avs_peak_angle", "avs_blend_speed"),
                "magic": ("bx", "cx", "dx", "ex", "by", "cy", "dy", "ey", "load_sensitivity"),
                "simple": ("bx", "cx", "dx", "by", "cy", "dy", "load_sensitivity"),
                "mf96": MF96_FIELDS, "mf61": MF96_FIELDS + MF61_EXTRA}


def field_used(group: type, model: str, name: str) -> bool:
    """Whether parameter `name` of a Tire or Suspension changes anything with that part's model `model` (the
    tuning panel hides the other models' parameters)."""
    table = MODEL_FIELDS if group is Tire else SUSPENSION_MODEL_FIELDS if group is Suspension else {}
    owners = [m for m, names in table.items() if name in names]
    return not owners or model in owners


def mf61(default: float, unit: str, lo: float, hi: float, doc: str):
    """A coefficient of the mf61 tire model (added after the first vehicle files: they may leave it out)."""
    return num(default, unit, lo, hi, doc, since="mf61")


def text(default: str, choices: tuple[str, ...], doc: str, since: str = ""):
    """A string parameter that must be one of `choices` (`since`: as for num)."""
    meta = {"kind": "text", "choices": choices, "doc": doc}
    if since:
        meta["since"] = since
    return field(default=default, metadata=meta)


def curve(default: tuple[float, ...], unit: str, lo: float, hi: float, doc: str, min_len: int = 1,
          max_len: int = 64, increasing: bool = False):
    """A tuple of floats, each in [lo, hi]; optionally strictly increasing."""
    return field(default=tuple(float(v) for v in default),
                 metadata={"kind": "curve", "unit": unit, "lo": lo, "hi": hi, "doc": doc,
                           "min_len": min_len, "max_len": max_len, "increasing": increasing})


# ----------------------------------------------------------------------------------------------------
# Groups

@dataclass(frozen=True)
class Chassis:
    """The sprung body as one rigid body."""
    mass: float = num(1200.0, "kg", 50.0, 50000.0, "total mass of the car (body, wheels, driver)")
    com_x: float = num(0.15, "m", -5.0, 5.0, "centre of mass ahead of the reference point")
    com_y: float = num(0.0, "m", -2.0, 2.0, "centre of mass left of the centre line")
    com_z: float = num(-0.10, "m", -2.0, 2.0, "centre of mass above the suspension anchors")
    inertia_roll: float = num(450.0, "kg m^2", 1.0, 1.0e6, "principal moment about the vehicle x axis")
    inertia_pitch: float = num(1800.0, "kg m^2", 1.0, 1.0e6, "principal moment about the vehicle y axis")
    inertia_yaw: float = num(2000.0, "kg m^2", 1.0, 1.0e6, "principal moment about the vehicle z axis")
    length: float = num(4.0, "m", 0.5, 30.0, "body length (drawing and collision hull)")
    width: float = num(1.75, "m", 0.3, 5.0, "body width (drawing and collision hull)")
    height: float = num(1.25, "m", 0.2, 5.0, "body height from floor to roof (drawing and collision hull)")
    floor_z: float = num(-0.42, "m", -3.0, 2.0, "floor height relative to the anchors (drawing and collision hull)")
    lateral_update: str = text("midpoint", ("midpoint", "explicit"),
                               "how the body takes the tires' lateral force over a substep (docs/physics.md §12): "
                               "midpoint: linearised in the contacts' sideways speed and taken halfway through the "
                               "substep's velocity change (accurate at one or two substeps); explicit: at the "
                               "substep's start, seed 004's semi-implicit Euler (its error grows with the substep)",
                               since="lateral update")


@dataclass(frozen=True)
class Axle:
    """Where an axle's two suspension anchors sit; the left wheel is at +half_track, the right at -half_track."""
    x: float = num(1.275, "m", -10.0, 10.0, "axle position ahead of the reference point")
    half_track: float = num(0.75, "m", 0.1, 3.0, "half of the track width (anchor y)")
    anchor_z: float = num(0.0, "m", -2.0, 2.0, "anchor height above the reference point")


@dataclass(frozen=True)
class Suspension:
    """A spring-damper along the suspension axis d (vertical in the body frame), per axle."""
    k: float = num(35000.0, "N/m", 100.0, 1.0e7, "spring stiffness")
    c: float = num(2500.0, "N s/m", 0.0, 1.0e6, "damping coefficient")
    l0: float = num(0.40, "m", 0.01, 3.0, "rest (unloaded) length: anchor to wheel centre")
    l_min: float = num(0.15, "m", 0.0, 3.0, "shortest length; below it a bump stop of stiffness 10 k acts")
    l_max: float = num(0.45, "m", 0.01, 3.0, "longest length; a contact beyond it means the wheel is airborne")
    anti_roll: float = num(0.0, "N/m", 0.0, 1.0e7, "anti-roll bar stiffness coupling left and right compression")
    camber_deg: float = num(0.0, "deg", -20.0, 20.0, "static camber; negative tilts the top of the wheel inward")
    query: str = text("sphere", ("ray", "sphere", "disc"),
                      "contact query: ray (local plane), sphere sweep, or wheel-shaped disc")
    force_along: str = text("normal", ("normal", "axis"),
                            "where the wheel's support acts on the body: along the contact normal (the load "
                            "Fz n, the ground's push) or along the suspension axis (-Fs d, seed 000's "
                            "literal form, which leaves a horizontal part no friction limits)")
    model: str = text("reference", ("reference", "fgear", "chaos", "avs"),
                      "suspension model: reference (seed 000: k x + c xdot, a 10 k bump stop), fgear (FGear's: "
                      "a preloaded spring, damping c while compressing and c_rebound while extending, and an "
                      "optional travel limit), chaos (Chaos': k x with c compressing and c_rebound "
                      "extending) or avs (AVS': rates in N/mm and travel in cm, with an over-compression "
                      "support past the travel); docs/models.md", since="fgear suspension")
    avs_spring_rate: float = num(35.0, "N/mm", 0.1, 1.0e4, "avs: spring rate (N per mm: k = 1000 x this N/m)",
                                 since="avs")
    avs_damper_rate: float = num(2.5, "N s/mm", 0.0, 1.0e3, "avs: damping (N s per mm: c = 1000 x this N s/m)",
                                 since="avs")
    avs_travel_cm: float = num(25.0, "cm", 1.0, 300.0, "avs: suspension travel from full extension l0 to full "
                               "compression (l_min = l0 - travel)", since="avs")
    avs_support_rate: float = num(350.0, "N/mm", 0.0, 1.0e5, "avs: the over-compression support's stiffness "
                                  "past full compression", since="avs")
    preload: float = num(0.0, "N", 0.0, 1.0e5, "fgear: spring force at full extension (the spring's preload)",
                         since="fgear suspension")
    c_rebound: float = num(2500.0, "N s/m", 0.0, 1.0e6, "fgear: damping while the suspension extends (c is the "
                           "damping while it compresses)", since="fgear suspension")
    travel_limit: str = text("off", ("off", "on"), "fgear: a travel limit that also stops the compression speed "
                             "past l_min (a critically damped stop, not only the 10 k bump spring)",
                             since="fgear suspension")


@dataclass(frozen=True)
class Tire:
    """Wheel and tire of one axle. Forces: linear stiffness or Magic Formula, then the combined limit mu Fz."""
    model: str = text("magic", ("linear", "magic", "simple", "mf96", "mf61", "chaos", "avs"),
                      "tire force model: linear, magic (the Magic Formula scaled by mu Fz), simple (FGear's "
                      "sine-arctangent curve, the Magic Formula without E), mf96 (a 1996-style Magic Formula "
                      "with its own load dependence and combined-slip weighting), mf61 (mf96 with the MF 6.1 "
                      "camber and inflation pressure terms), chaos (Chaos-style: the wheel's torque over its "
                      "radius as the longitudinal force, the cornering stiffness ca sideways, both scaled back "
                      "onto mu Fz) or avs (AVS-style: target slips from the torque and the slip angle, followed "
                      "over time); docs/models.md")
    radius: float = num(0.30, "m", 0.05, 2.0, "unloaded radius r")
    wheel_inertia: float = num(1.2, "kg m^2", 0.01, 100.0, "spin inertia Iw of wheel, tire and brake disc")
    grip: float = num(1.0, "-", 0.0, 3.0,
                      "tire friction factor at the nominal load; effective mu = surface mu x grip x load factor")
    load_sensitivity: float = num(0.0, "-", -0.9, 0.5,
                                  "change of the peak friction per unit (Fz - nominal_load) / nominal_load: the "
                                  "load factor is 1 + load_sensitivity (Fz - Fz0) / Fz0 (tires: about -0.05 "
                                  "to -0.2)")
    nominal_load: float = num(3000.0, "N", 100.0, 1.0e5, "the load Fz0 at which the tire's grip is given")
    ck: float = num(30000.0, "N", 1.0, 1.0e7, "linear model: longitudinal slip stiffness (Fx per unit kappa)")
    ca: float = num(40000.0, "N/rad", 1.0, 1.0e7, "linear model: cornering stiffness (Fy per radian of alpha)")
    v_min: float = num(1.0, "m/s", 0.01, 20.0, "slip denominator floor vMin")
    rolling: float = num(0.015, "-", 0.0, 0.5, "rolling resistance coefficient (force = coefficient x Fz)")
    slip_form: str = text("reference", ("reference", "fgear"), "slip definitions: reference (kappa = (rho omega "
                          "- vx) / max(|vx|, v_min), alpha = atan2(vy, max(|vx|, v_min))) or fgear (kappa = (rho "
                          "omega - vx) / (|vx| + v_min) and alpha = atan(vy / (|vx| + v_min)), both clipped: |kappa| "
                          "<= 1, |alpha| <= 45 deg)", since="fgear slip")
    avs_slip_time: float = num(0.05, "s", 0.001, 2.0, "avs: time constant with which the slips follow their "
                               "targets", since="avs")
    avs_peak_angle: float = num(8.0, "deg", 0.5, 45.0, "avs: the slip angle that asks for the full lateral "
                                "grip", since="avs")
    avs_blend_speed: float = num(3.0, "m/s", 0.1, 50.0, "avs: below this speed the lateral slip target blends "
                                 "toward the sideways speed's sign response", since="avs")
    chaos_lateral: str = text("stiffness", ("stiffness", "curve"), "chaos: the lateral force from the cornering "
                              "stiffness ca (-ca alpha) or from the Magic Formula lateral curve (by, cy, dy, ey)",
                              since="chaos")
    load_ratio: float = num(1.0, "-", 0.0, 1.0, "chaos: the tire's friction load blends the suspension's load (1) "
                            "with the static load (0): Fz_tire = r Fz + (1 - r) Fz_static", since="chaos")
    relaxation_length: float = num(0.0, "m", 0.0, 5.0, "lateral relaxation length lambda: the lateral force "
                                   "follows its steady value with the time constant lambda / max(|vx|, v_min) "
                                   "(0: at once; road tires about 0.3 to 0.6 m)", since="relaxation")
    spin_update: str = text("implicit", ("implicit", "explicit"),
                            "wheel spin update: implicit in the tire force (stable at any substep count) or "
                            "the seed's explicit step (needs h rho^2 dFx/dkappa / (Iw max(|vx|, vMin)) < 2)")
    bx: float = num(8.0, "-", 0.1, 100.0, "Magic Formula longitudinal stiffness factor B")
    cx: float = num(1.6, "-", 0.1, 2.0, "Magic Formula longitudinal shape factor C (above 2 the force would "
                                        "reverse at large slip and feed energy in)")
    dx: float = num(1.0, "-", 0.0, 3.0, "Magic Formula longitudinal peak factor D (peak = D mu Fz)")
    ex: float = num(0.2, "-", -10.0, 1.0, "Magic Formula longitudinal curvature factor E")
    by: float = num(8.0, "1/rad", 0.1, 100.0, "Magic Formula lateral stiffness factor B")
    cy: float = num(1.4, "-", 0.1, 2.0, "Magic Formula lateral shape factor C (above 2 the force would reverse "
                                        "at large slip and feed energy in)")
    dy: float = num(1.0, "-", 0.0, 3.0, "Magic Formula lateral peak factor D (peak = D mu Fz)")
    ey: float = num(-0.5, "-", -10.0, 1.0, "Magic Formula lateral curvature factor E")
    # model "mf96" (docs/models.md): dfz = (Fz - Fz0) / Fz0 with Fz0 = nominal_load; mu = surface x grip
    pcx1: float = mf96(1.6, "-", 0.1, 2.0, "mf96: longitudinal shape factor Cx")
    pdx1: float = mf96(1.0, "-", 0.0, 3.0, "mf96: longitudinal peak friction at the nominal load (times mu)")
    pdx2: float = mf96(-0.1, "-", -1.0, 1.0, "mf96: change of the longitudinal peak friction per unit dfz")
    pex1: float = mf96(0.2, "-", -10.0, 1.0, "mf96: longitudinal curvature Ex at the nominal load (kept <= 1)")
    pex2: float = mf96(0.0, "-", -10.0, 10.0, "mf96: change of Ex per unit dfz")
    pkx1: float = mf96(12.8, "-", 0.1, 200.0, "mf96: longitudinal slip stiffness per unit load Kx / Fz at Fz0")
    pkx2: float = mf96(0.0, "-", -100.0, 100.0, "mf96: change of Kx / Fz per unit dfz")
    pkx3: float = mf96(0.0, "-", -5.0, 5.0, "mf96: exponent of Kx's load dependence, exp(pkx3 dfz)")
    pcy1: float = mf96(1.4, "-", 0.1, 2.0, "mf96: lateral shape factor Cy")
    pdy1: float = mf96(1.0, "-", 0.0, 3.0, "mf96: lateral peak friction at the nominal load (times mu)")
    pdy2: float = mf96(-0.1, "-", -1.0, 1.0, "mf96: change of the lateral peak friction per unit dfz")
    pey1: float = mf96(-0.5, "-", -10.0, 1.0, "mf96: lateral curvature Ey at the nominal load (kept <= 1)")
    pey2: float = mf96(0.0, "-", -10.0, 10.0, "mf96: change of Ey per unit dfz")
    pky1: float = mf96(14.0, "-", 0.1, 200.0, "mf96: largest cornering stiffness per nominal load, "
                      "Ky = pky1 Fz0 sin(2 atan(Fz / (pky2 Fz0))) (N/rad)")
    pky2: float = mf96(2.0, "-", 0.1, 20.0, "mf96: the load (in nominal loads) at which Ky peaks")
    rbx1: float = mf96(12.0, "-", 0.0, 100.0, "mf96 combined slip: how fast a slip angle takes longitudinal force")
    rbx2: float = mf96(10.0, "-", 0.0, 100.0, "mf96 combined slip: how a slip ratio weakens rbx1")
    rcx1: float = mf96(1.0, "-", 0.1, 2.0, "mf96 combined slip: shape of the longitudinal weighting")
    rby1: float = mf96(10.0, "-", 0.0, 100.0, "mf96 combined slip: how fast a slip ratio takes lateral force")
    rby2: float = mf96(10.0, "-", 0.0, 100.0, "mf96 combined slip: how a slip angle weakens rby1")
    rcy1: float = mf96(1.0, "-", 0.1, 2.0, "mf96 combined slip: shape of the lateral weighting")
    # model "mf61" (docs/models.md): the mf96 coefficients plus camber gamma (sin gamma, + top leaning left)
    # and inflation pressure dpi = (pressure - nominal_pressure) / nominal_pressure
    pdx3: float = mf61(0.0, "-", -100.0, 100.0, "mf61: longitudinal peak's fall with camber squared, (1 - pdx3 g^2)")
    pex3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: change of Ex per dfz squared")
    pex4: float = mf61(0.0, "-", -1.0, 1.0, "mf61: Ex while driving against braking, (1 - pex4 sign(kappa))")
    ppx1: float = mf61(0.0, "-", -10.0, 10.0, "mf61: longitudinal slip stiffness per unit dpi")
    ppx2: float = mf61(0.0, "-", -10.0, 10.0, "mf61: longitudinal slip stiffness per unit dpi squared")
    ppx3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: longitudinal peak friction per unit dpi")
    ppx4: float = mf61(0.0, "-", -10.0, 10.0, "mf61: longitudinal peak friction per unit dpi squared")
    pdy3: float = mf61(0.0, "-", -100.0, 100.0, "mf61: lateral peak's fall with camber squared, (1 - pdy3 g^2)")
    pey3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: Ey's asymmetry, (1 - (pey3 + pey4 g) sign(alpha_y))")
    pey4: float = mf61(0.0, "-", -100.0, 100.0, "mf61: Ey's asymmetry with camber")
    pey5: float = mf61(0.0, "-", -100.0, 100.0, "mf61: Ey's change with camber squared")
    pky3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: cornering stiffness' fall with |camber|")
    pky4: float = mf61(2.0, "-", 0.1, 10.0, "mf61: curvature of the cornering stiffness against load (2 in mf96)")
    pky5: float = mf61(0.0, "-", -100.0, 100.0, "mf61: shift of Ky's peak load with camber squared")
    pky6: float = mf61(0.0, "-", -100.0, 100.0, "mf61: camber stiffness per unit load, Fy per rad of camber / Fz "
                       "(given as a magnitude: the force leans with the wheel)")
    pky7: float = mf61(0.0, "-", -100.0, 100.0, "mf61: change of the camber stiffness per unit dfz")
    ppy1: float = mf61(0.0, "-", -10.0, 10.0, "mf61: cornering stiffness per unit dpi")
    ppy2: float = mf61(0.0, "-", -10.0, 10.0, "mf61: Ky's peak load per unit dpi")
    ppy3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: lateral peak friction per unit dpi")
    ppy4: float = mf61(0.0, "-", -10.0, 10.0, "mf61: lateral peak friction per unit dpi squared")
    ppy5: float = mf61(0.0, "-", -10.0, 10.0, "mf61: camber stiffness per unit dpi")
    pvy3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: camber's vertical shift Svy / Fz per unit sin(camber) "
                       "(a magnitude, as pky6)")
    pvy4: float = mf61(0.0, "-", -10.0, 10.0, "mf61: change of pvy3 per unit dfz")
    pressure: float = mf61(220000.0, "Pa", 50000.0, 1.0e6, "mf61: inflation pressure")
    nominal_pressure: float = mf61(220000.0, "Pa", 50000.0, 1.0e6, "mf61: the pressure the coefficients were "
                                   "measured at (NOMPRES)")


@dataclass(frozen=True)
class Brakes:
    max_torque_front: float = num(1400.0, "N m", 0.0, 1.0e5, "brake torque per front wheel at full pedal")
    max_torque_rear: float = num(900.0, "N m", 0.0, 1.0e5, "brake torque per rear wheel at full pedal")
    handbrake_torque: float = num(2500.0, "N m", 0.0, 1.0e5, "handbrake torque per rear wheel")
    abs_slip: float = num(0.15, "-", 0.01, 1.0, "ABS: the braking slip -kappa it holds a wheel at")
    abs_release_time: float = num(0.05, "s", 0.001, 2.0,
                                  "ABS: time to release a wheel's brake fully at twice the target slip")
    abs_apply_time: float = num(0.1, "s", 0.001, 2.0, "ABS: time to re-apply a released brake fully")
    tc_slip: float = num(0.15, "-", 0.01, 5.0, "traction control: the driving slip kappa it holds the driven "
                         "wheels at")
    tc_cut_time: float = num(0.1, "s", 0.001, 5.0,
                             "traction control: time to cut the throttle to zero at twice the target slip")
    tc_restore_time: float = num(0.3, "s", 0.001, 5.0, "traction control: time to give the throttle back fully")
    esp_threshold: float = num(0.035, "rad/s", 0.0, 2.0, "stability control: yaw-rate error it lets pass "
                               "(between the yaw rate and the one the steering asks for)", since="esp")
    esp_gain: float = num(8000.0, "N m s/rad", 0.0, 1.0e6, "stability control: brake torque on the one wheel "
                          "it brakes per rad/s of error past the threshold", since="esp")
    esp_cut: float = num(5.0, "s/rad", 0.0, 1000.0, "stability control: throttle taken away per rad/s of error "
                         "past the threshold (1 / esp_cut rad/s takes it all)", since="esp")
    esp_mu: float = num(0.85, "-", 0.1, 2.0, "stability control: the asked-for yaw rate is kept within esp_mu x "
                        "the tires' mu x g / speed (what the grip can turn the car at)", since="esp")
    esp_min_speed: float = num(5.0, "m/s", 0.0, 100.0, "stability control: it acts only above this speed",
                               since="esp")
    hold_stop: str = text("velocity", ("velocity", "impulse"),
                          "static friction's solver (docs/physics.md §11) stops when no impulse moves more than "
                          "1e-9 N s or (velocity) no contact's speed changes by more than 1e-10 m/s; impulse: "
                          "the first rule alone, seed 000's form, in which the wheels' forces against one another "
                          "(which move no contact) creep on for up to 400 rounds a substep",
                          since="hold stop")
    hold_solver: str = text("accelerated", ("accelerated", "gradient"),
                            "static friction's solver (docs/physics.md §11): gradient is seed 000's projected "
                            "gradient; accelerated (the default) the same projections with momentum (restarted "
                            "whenever it points uphill), which reaches the same least impulses in a third of the "
                            "rounds where the contacts are badly balanced (a wheel against a curb)",
                            since="hold solver")


@dataclass(frozen=True)
class Steering:
    max_angle_deg: float = num(32.0, "deg", 0.0, 80.0, "largest road-wheel angle (the inner wheel at full lock)")
    ackermann: float = num(1.0, "-", 0.0, 1.0, "Ackermann fraction: 1 full Ackermann, 0 parallel steering")
    limit_speed: float = num(25.0, "m/s", 0.0, 200.0, "speed at which the largest angle has halved (0 = no limit)")
    rate_deg_s: float = num(360.0, "deg/s", 1.0, 5000.0, "fastest change of a road-wheel angle")


@dataclass(frozen=True)
class Drive:
    """How torque reaches the wheels: the engine through clutch, gearbox and differentials, or a direct
    drive (throttle x max_wheel_torque on each driven wheel, fading to zero at max_wheel_speed)."""
    mode: str = text("engine", ("engine", "direct"), "engine and gearbox, or direct drive")
    layout: str = text("rwd", ("rwd", "fwd", "awd"), "which wheels are driven")
    centre_split: float = num(0.4, "-", 0.0, 1.0, "awd: share of the driveline torque sent to the front axle")
    front_diff: str = text("open", ("open", "lsd", "locked"), "front differential")
    rear_diff: str = text("open", ("open", "lsd", "locked"), "rear differential")
    lsd_stiffness: float = num(40.0, "N m s/rad", 0.0, 1.0e4,
                               "limited slip: locking torque per rad/s of wheel speed difference")
    lsd_max_torque: float = num(400.0, "N m", 0.0, 1.0e5, "limited slip: largest locking torque")
    max_wheel_torque: float = num(1200.0, "N m", 0.0, 1.0e5, "direct drive: torque per driven wheel at full throttle")
    max_wheel_speed: float = num(170.0, "rad/s", 1.0, 5000.0,
                                 "direct drive: wheel speed at which the torque has faded to zero")


@dataclass(frozen=True)
class Aero:
    air_density: float = num(1.2, "kg/m^3", 0.0, 5.0, "air density rho")
    drag_coefficient: float = num(0.32, "-", 0.0, 3.0, "drag coefficient Cd")
    frontal_area: float = num(2.1, "m^2", 0.0, 20.0, "frontal area A")
    downforce_front: float = num(0.0, "m^2", 0.0, 20.0, "front lift-area product ClA (downforce = 1/2 rho ClA vx^2)")
    downforce_rear: float = num(0.0, "m^2", 0.0, 20.0, "rear lift-area product ClA")


@dataclass(frozen=True)
class Collision:
    """The body's hull against the ground (a rolled car, a wall): penalty springs at 14 hull points."""
    stiffness: float = num(1.5e5, "N/m", 1.0e3, 1.0e8, "penalty stiffness per hull point")
    damping: float = num(6.0e3, "N s/m", 0.0, 1.0e7, "damping per hull point along the normal")
    friction: float = num(0.5, "-", 0.0, 3.0, "body-on-ground friction factor (x surface mu)")
    friction_damping: float = num(2.0e4, "N s/m", 1.0, 1.0e7, "sliding-speed slope of friction below its limit")


@dataclass(frozen=True)
class Engine:
    """Torque curve, limits and rotor; seed 002 gives the Boxster S's."""
    torque_rpm: tuple[float, ...] = curve((0.0, 1000.0, 4000.0, 6500.0), "rpm", 0.0, 30000.0,
                                          "torque curve: engine speeds", min_len=2, max_len=MAX_CURVE,
                                          increasing=True)
    torque_nm: tuple[float, ...] = curve((130.0, 130.0, 180.0, 140.0), "N m", 0.0, 5000.0,
                                         "torque curve: full-throttle torque at each speed", min_len=2,
                                         max_len=MAX_CURVE)
    redline_rpm: float = num(6500.0, "rpm", 500.0, 30000.0, "rev limiter: no fuel above this")
    idle_rpm: float = num(850.0, "rpm", 0.0, 5000.0, "idle speed held by the idle controller")
    idle_gain: float = num(0.02, "1/(rad/s)", 0.0, 10.0, "idle controller: throttle per rad/s below idle")
    inertia: float = num(0.15, "kg m^2", 0.001, 10.0, "rotor inertia Ie")
    engine_brake: float = num(0.74, "N m s/rev", 0.0, 10.0, "engine braking torque per rev/s (seed 002)")
    cylinders: float = num(4.0, "-", 1.0, 16.0, "number of cylinders (the engine sound fires rpm / 60 x "
                           "cylinders / 2 times a second)", since="sound")


@dataclass(frozen=True)
class Gearbox:
    """Ratios, shifting and the clutch between engine and gearbox."""
    ratios: tuple[float, ...] = curve((3.50, 2.10, 1.40, 1.05, 0.85), "-", 0.05, 20.0,
                                      "forward gear ratios, first gear first", min_len=1, max_len=MAX_GEARS)
    reverse: float = num(3.40, "-", 0.05, 20.0, "reverse ratio (magnitude)")
    final_drive: float = num(3.90, "-", 0.1, 20.0, "final drive ratio")
    efficiency: float = num(0.92, "-", 0.1, 1.0, "gearbox and differential efficiency")
    mode: str = text("auto", ("auto", "manual"), "automatic shifting, or the driver's shift requests only")
    shift_up_rpm: float = num(6000.0, "rpm", 500.0, 30000.0,
                              "automatic: shift up once the road speed would turn the engine above this")
    shift_down_rpm: float = num(2500.0, "rpm", 0.0, 30000.0,
                                "automatic: shift down once the road speed would turn the engine below this")
    shift_time: float = num(0.25, "s", 0.0, 5.0, "the clutch is open this long during a shift")
    shift_up_light: float = num(1.0, "-", 0.1, 1.0, "automatic: with the pedal lifted it shifts up at this "
                                "fraction of shift_up_rpm; the shift point rises with the pedal to shift_up_rpm "
                                "at full throttle (upshifts held back under hard acceleration)", since="gearbox aids")
    downshift_blip: float = num(0.0, "-", 0.0, 1.0, "throttle the gearbox gives while a downshift brings the engine "
                                "up to the lower gear's speed, whatever the pedal (a throttle blip; 0: the "
                                "pedal's own)", since="gearbox aids")
    shift_hold: float = num(1.0, "s", 0.0, 10.0,
                            "automatic: after a shift it does not shift back the other way for this long")
    kickdown_throttle: float = num(0.95, "-", 0.0, 1.0,
                                   "automatic: above this throttle it may shift down a gear (kick-down)")
    kickdown_below: float = num(0.6, "-", 0.0, 1.0,
                                "kick-down only while the engine turns below this fraction of shift_up_rpm")
    kickdown_headroom: float = num(0.85, "-", 0.0, 1.0,
                                   "kick-down only if the lower gear keeps the engine below this fraction of "
                                   "shift_up_rpm")
    clutch_stiffness: float = num(300.0, "N m s/rad", 0.1, 1.0e5, "Kc: clutch torque per rad/s of slip")
    clutch_max_torque: float = num(400.0, "N m", 1.0, 1.0e5, "Tcap: largest torque the closed clutch carries")
    launch_rpm: float = num(2000.0, "rpm", 0.0, 30000.0, "automatic launch: the clutch is fully closed from here")
    launch_control: str = text("off", ("off", "on"),
                               "standing start at full throttle in first gear: hold the engine at "
                               "launch_control_rpm and let traction control set the slipping clutch's torque")
    launch_control_rpm: float = num(4000.0, "rpm", 500.0, 30000.0, "launch control: engine speed held")


@dataclass(frozen=True)
class Vehicle:
    """All parameters of one car. Per-axle groups are `front_*` and `rear_*`."""
    name: str = "hatchback"
    chassis: Chassis = field(default_factory=Chassis)
    front_axle: Axle = field(default_factory=Axle)
    rear_axle: Axle = field(default_factory=lambda: Axle(x=-1.275))
    front_suspension: Suspension = field(default_factory=Suspension)
    rear_suspension: Suspension = field(default_factory=Suspension)
    front_tire: Tire = field(default_factory=Tire)
    rear_tire: Tire = field(default_factory=Tire)
    brakes: Brakes = field(default_factory=Brakes)
    steering: Steering = field(default_factory=Steering)
    drive: Drive = field(default_factory=Drive)
    aero: Aero = field(default_factory=Aero)
    collision: Collision = field(default_factory=Collision)
    engine: Engine = field(default_factory=Engine)
    gearbox: Gearbox = field(default_factory=Gearbox)

    @property
    def wheelbase(self) -> float:
        return self.front_axle.x - self.rear_axle.x


GROUP_TYPES = {
    "chassis": Chassis, "front_axle": Axle, "rear_axle": Axle, "front_suspension": Suspension,
    "rear_suspension": Suspension, "front_tire": Tire, "rear_tire": Tire, "brakes": Brakes,
    "steering": Steering, "drive": Drive, "aero": Aero, "collision": Collision, "engine": Engine,
    "gearbox": Gearbox,
}


# ----------------------------------------------------------------------------------------------------
# Validation

def describe_allowed(f: dataclasses.Field) -> str:
    m = f.metadata
    if m["kind"] == "num":
        return f"a number in [{m['lo']:g}, {m['hi']:g}] {m['unit']}"
    if m["kind"] == "text":
        return "one of " + ", ".join(repr(c) for c in m["choices"])
    extra = ", strictly increasing" if m["increasing"] else ""
    return (f"a list of {m['min_len']} to {m['max_len']} numbers, each in [{m['lo']:g}, {m['hi']:g}] "
            f"{m['unit']}{extra}")


def check_value(f: dataclasses.Field, value: Any, where: str, key: str) -> Any:
    """Return `value` converted to the field's type, or raise ConfigError naming where, key and value."""
    m = f.metadata
    bad = ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected {describe_allowed(f)}")
    if m["kind"] == "num":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not finite_float(value):
            raise bad
        v = float(value)
        if v < m["lo"] or v > m["hi"]:
            raise bad
        return v
    if m["kind"] == "text":
        if not isinstance(value, str) or value not in m["choices"]:
            raise bad
        return value
    if not isinstance(value, (list, tuple)) or not (m["min_len"] <= len(value) <= m["max_len"]):
        raise bad
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not finite_float(v):
            raise bad
        if float(v) < m["lo"] or float(v) > m["hi"]:
            raise bad
        out.append(float(v))
    if m["increasing"] and any(b <= a for a, b in zip(out, out[1:])):
        raise bad
    return tuple(out)


def finite_float(value) -> bool:
    """True when `value` converts to a finite float (a 400-digit integer does not)."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def check_consistency(v: Vehicle, where: str) -> None:
    """Relations between fields that single ranges cannot express."""
    for axle in ("front", "rear"):
        s: Suspension = getattr(v, f"{axle}_suspension")
        if not (s.l_min < s.l_max):
            raise ConfigError(f"{where}: {axle}_suspension.l_min = {s.l_min:g} must be below "
                              f"{axle}_suspension.l_max = {s.l_max:g} m")
        if not (s.l_min < s.l0 <= s.l_max):
            raise ConfigError(f"{where}: {axle}_suspension.l0 = {s.l0:g} is not allowed; the rest length must lie "
                              f"in ({s.l_min:g}, {s.l_max:g}] m, between l_min and l_max")
    if v.front_axle.x <= v.rear_axle.x:
        raise ConfigError(f"{where}: front_axle.x = {v.front_axle.x:g} must be ahead of "
                          f"rear_axle.x = {v.rear_axle.x:g} m")
    if not v.rear_axle.x < v.chassis.com_x < v.front_axle.x:
        raise ConfigError(f"{where}: chassis.com_x = {v.chassis.com_x:g} is not allowed; the centre of mass must "
                          f"lie between the axles ({v.rear_axle.x:g}, {v.front_axle.x:g}) m")
    if v.gearbox.shift_up_rpm > v.engine.redline_rpm:
        raise ConfigError(f"{where}: gearbox.shift_up_rpm = {v.gearbox.shift_up_rpm:g} is not allowed; expected "
                          f"at most engine.redline_rpm = {v.engine.redline_rpm:g} rpm (the engine cannot reach it)")
    if v.gearbox.shift_down_rpm >= v.gearbox.shift_up_rpm:
        raise ConfigError(f"{where}: gearbox.shift_down_rpm = {v.gearbox.shift_down_rpm:g} must be below "
                          f"gearbox.shift_up_rpm = {v.gearbox.shift_up_rpm:g} rpm")
    light_rpm = v.gearbox.shift_up_light * v.gearbox.shift_up_rpm
    if light_rpm <= v.gearbox.shift_down_rpm:
        raise ConfigError(f"{where}: gearbox.shift_up_light = {v.gearbox.shift_up_light:g} is not allowed; "
                          f"with the pedal lifted the upshift point {light_rpm:g} rpm must stay above "
                          f"gearbox.shift_down_rpm = {v.gearbox.shift_down_rpm:g} rpm")
    if v.engine.idle_rpm >= v.engine.redline_rpm:
        raise ConfigError(f"{where}: engine.idle_rpm = {v.engine.idle_rpm:g} must be below "
                          f"engine.redline_rpm = {v.engine.redline_rpm:g} rpm")
    if len(v.engine.torque_rpm) != len(v.engine.torque_nm):
        raise ConfigError(f"{where}: engine.torque_rpm has {len(v.engine.torque_rpm)} points but "
                          f"engine.torque_nm has {len(v.engine.torque_nm)}; they must match")


def validate(v: Vehicle, where: str = "vehicle") -> Vehicle:
    """Check every field of `v` against its range; raise ConfigError with the first problem."""
    for gname, gtype in GROUP_TYPES.items():
        group = getattr(v, gname)
        for f in fields(gtype):
            check_value(f, getattr(group, f.name), where, f"{gname}.{f.name}")
    check_consistency(v, where)
    return v


def field_info(path: str) -> dataclasses.Field:
    """The dataclass field for a dotted path such as 'front_suspension.k' (ConfigError naming the groups
    or the group's parameters when there is none)."""
    gname, _, fname = str(path).partition(".")
    if gname not in GROUP_TYPES:
        raise ConfigError(f"{path!r} is not a parameter; expected <group>.<name> with a group from "
                          f"{', '.join(GROUP_TYPES)}")
    for f in fields(GROUP_TYPES[gname]):
        if f.name == fname:
            return f
    raise ConfigError(f"{path!r} is not a parameter; {gname} has "
                      f"{', '.join(f.name for f in fields(GROUP_TYPES[gname]))}")


def get_value(v: Vehicle, path: str) -> Any:
    """The value of one parameter (ConfigError for a path that names none)."""
    field_info(path)
    gname, _, fname = path.partition(".")
    return getattr(getattr(v, gname), fname)


def with_value(v: Vehicle, path: str, value: Any) -> Vehicle:
    """A copy of `v` with one field changed, checked against its range (ConfigError if not allowed)."""
    f = field_info(path)
    value = check_value(f, value, v.name, path)
    gname, _, fname = path.partition(".")
    new = dataclasses.replace(v, **{gname: dataclasses.replace(getattr(v, gname), **{fname: value})})
    check_consistency(new, v.name)
    return new


# ----------------------------------------------------------------------------------------------------
# TOML

PRESET_DIR = CONFIG_DIR / "vehicles"


def resolve_preset(name_or_path: str | os.PathLike, folder: Path, kind: str) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists() or os.sep in str(name_or_path):
        if not p.exists():
            raise ConfigError(f"{p}: no such {kind} file")
        return p
    candidate = folder / f"{name_or_path}.toml"
    if not candidate.exists():
        known = ", ".join(sorted(x.stem for x in folder.glob("*.toml")))
        raise ConfigError(f"{kind} preset {str(name_or_path)!r} not found; known presets: {known}")
    return candidate


MAX_BASE_DEPTH = 8         # a vehicle file may start from another (base = ...) at most this deep


def vehicle_from_dict(data: dict, where: str, base: Vehicle | None = None) -> Vehicle:
    """Build a Vehicle from a TOML-shaped dict. Unknown tables and keys are errors. Without a `base` every
    table and key must be there (a file cut short is an error, not a silent default); with one, the file
    changes only what it names."""
    table(where, "the file", data)
    groups: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("name", "base"):
            if not isinstance(value, str) or not value or len(value) > 200:
                raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a non-empty text")
            continue
        if key not in GROUP_TYPES:
            raise ConfigError(f"{where}: unknown table [{key}]; known tables: {', '.join(GROUP_TYPES)}")
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a table [{key}]")
        known = {f.name: f for f in fields(GROUP_TYPES[key])}
        gkw = {}
        for fname, fval in value.items():
            if fname not in known:
                raise ConfigError(f"{where}: unknown key {key}.{fname}; known keys in [{key}]: "
                                  f"{', '.join(known)}")
            gkw[fname] = check_value(known[fname], fval, where, f"{key}.{fname}")
        groups[key] = gkw
    start = base if base is not None else Vehicle()
    changed = {g: dataclasses.replace(getattr(start, g), **gkw) for g, gkw in groups.items()}
    v = dataclasses.replace(start, **changed)
    if isinstance(data.get("name"), str):
        v = dataclasses.replace(v, name=data["name"])
    check_consistency(v, where)
    if base is None:
        for gname, gtype in GROUP_TYPES.items():
            if gname not in groups:
                raise ConfigError(f"{where}: table [{gname}] is missing; a vehicle file names every parameter "
                                  f"(or starts from another with base = \"hatchback\")")
            missing = [f.name for f in fields(gtype) if f.name not in groups[gname] and not f.metadata.get("since")]
            if missing:
                raise ConfigError(f"{where}: [{gname}] is missing {', '.join(missing)}; a vehicle file names "
                                  f"every parameter (or starts from another with base = \"hatchback\")")
    return v


def load_base(path: Path, data: dict, _depth: int = 0) -> Vehicle | None:
    """The vehicle a file starts from (its `base = "name or path"`), or None when it names every parameter.
    A relative path is taken from the file's own folder, as a preset name from config/vehicles."""
    if not isinstance(data.get("base"), str):
        return None
    if _depth >= MAX_BASE_DEPTH:
        raise ConfigError(f"{path}: base = {show(data['base'])} is not allowed; bases nest deeper than "
                          f"{MAX_BASE_DEPTH} (a file that is its own base?)")
    ref = data["base"]
    local = path.parent / ref
    return load_vehicle(local if (ref.endswith(".toml") and local.exists()) else ref, _depth + 1)


def load_vehicle(name_or_path: str | os.PathLike = "hatchback", _depth: int = 0) -> Vehicle:
    """A preset name from config/vehicles (e.g. 'hatchback', 'boxster_s') or a path to a TOML file.

    A file names every parameter, or starts from another preset or file with `base = "name or path"`
    (a relative path is taken from the file's own folder) and changes only what it names."""
    path = resolve_preset(name_or_path, PRESET_DIR, "vehicle")
    data = read_toml(path, "vehicle")
    base = load_base(path, data, _depth)
    v = build(path, "vehicle", lambda: vehicle_from_dict(data, str(path), base))
    if "name" not in data:
        v = dataclasses.replace(v, name=path.stem)
    return v


# ----------------------------------------------------------------------------------------------------
# Saved presets: where they go, how they are listed, and how they are written

def user_vehicle_dir() -> Path:
    """Where the user's own presets are saved and found: <data dir>/vehicles (see sim.model.files.data_dir)."""
    return data_dir() / "vehicles"


@dataclass(frozen=True)
class Preset:
    """One entry of the preset list: a built-in preset (config/vehicles) or one the user saved."""
    name: str
    path: Path
    user: bool

    @property
    def label(self) -> str:
        """How a picker shows it: the user's own presets are marked, so a saved "hatchback" is not
        mistaken for the built-in one."""
        return f"{self.name} (user)" if self.user else self.name


def vehicle_presets() -> list[Preset]:
    """The built-in presets, then the user's saved ones, each sorted by name. A user folder that does
    not exist yet, or cannot be read, adds none."""
    out = [Preset(p.stem, p, False) for p in sorted(PRESET_DIR.glob("*.toml"))]
    try:
        mine = sorted(p for p in user_vehicle_dir().glob("*.toml") if not p.name.startswith(".") and p.is_file())
    except OSError:
        mine = []
    return out + [Preset(p.stem, p, True) for p in mine]


def vehicle_to_dict(v: Vehicle) -> dict:
    out: dict[str, Any] = {"name": v.name}
    for gname in GROUP_TYPES:
        group = getattr(v, gname)
        out[gname] = {f.name: (list(getattr(group, f.name)) if isinstance(getattr(group, f.name), tuple)
                               else getattr(group, f.name)) for f in fields(group)}
    return out


def format_number(x: float) -> str:
    """A float as the file shows it: Python's shortest repr, which reads back as the same double (0.6 is
    written 0.6, 150000.0 as 150000.0, 1e-05 as 1e-05: all valid TOML floats)."""
    return repr(float(x))


def toml_value(value: Any) -> str:
    """One parameter's value as TOML text."""
    if isinstance(value, str):
        return tomlkit.string(value).as_string()
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(format_number(x) for x in value) + "]"
    return format_number(value)


SAVE_WIDTH = 110           # a fresh file's comments wrap before this column
KEEP = "\x00"              # a space at which wrap_comment does not break a line


def describe_field(f: dataclasses.Field) -> str:
    """The comment a saved file puts beside a key: unit, description and what is allowed, from the
    field's metadata (the same words the tuning panel's tooltip uses)."""
    m = f.metadata
    doc = " ".join(m["doc"].split())
    if m["kind"] == "text":
        return f"{doc}; one of " + ", ".join(f'"{c}"' for c in m["choices"])
    unit = "" if m["unit"] == "-" else f"{m['unit']}: "
    span = f"{m['lo']:g}{KEEP}to{KEEP}{m['hi']:g}"              # kept on one line when wrapped
    if m["kind"] == "num":
        return f"{unit}{doc}; {span}"
    extra = ", increasing" if m["increasing"] else ""
    return f"{unit}{doc}; {m['min_len']} to {m['max_len']} values, each {span}{extra}"


def wrap_comment(text: str, column: int) -> list[str]:
    """`text` as '# ' comment lines that start at `column` and end before SAVE_WIDTH (a long word is
    not broken)."""
    room = max(SAVE_WIDTH - column - 2, 30)
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > room:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return ["# " + x.replace(KEEP, " ") for x in lines + ([line] if line else [])]


def key_lines(f: dataclasses.Field, value: Any, column: int) -> list[str]:
    """A key, its value and its comment (wrapped onto continuation lines aligned under it)."""
    head = f"{f.name} = {toml_value(value)}"
    at = max(column, len(head) + 2)
    comment = wrap_comment(describe_field(f), at)
    return [head.ljust(at) + comment[0]] + [" " * at + c for c in comment[1:]]


def group_doc(gtype: type) -> str:
    """A group's docstring in one line, or "" (a dataclass without one gets a generated signature)."""
    doc = gtype.__doc__ or ""
    return "" if doc.startswith(f"{gtype.__name__}(") else " ".join(doc.split())


def fresh_toml(v: Vehicle) -> str:
    """A new, commented vehicle file: every key with its unit, description and range beside it."""
    out = [f"# {v.name}: vehicle parameters saved by Contact Patch. Each key's comment gives its unit,",
           "# what it is and the values allowed. Vehicle frame: x forward, y left, z up; positions are",
           "# relative to the reference point (centre line, midway between the axles, at anchor height).",
           f"name = {toml_value(v.name)}"]
    for gname, gtype in GROUP_TYPES.items():
        group = getattr(v, gname)
        heads = [len(f"{f.name} = {toml_value(getattr(group, f.name))}") for f in fields(gtype)
                 if f.metadata["kind"] != "curve"]
        column = min(max(heads, default=0) + 3, 40)
        out += ["", f"[{gname}]"] + wrap_comment(group_doc(gtype), 0)
        for f in fields(gtype):
            out += key_lines(f, getattr(group, f.name), column)
    return "\n".join(out) + "\n"


def same_value(old: Any, new: Any) -> bool:
    """True when a value read from the file already equals the vehicle's (1200 and 1200.0 are the same;
    a text never equals a number)."""
    if isinstance(new, tuple):
        return isinstance(old, list) and len(old) == len(new) and all(
            not isinstance(a, (bool, str)) and isinstance(a, (int, float)) and float(a) == b for a, b in zip(old, new))
    if isinstance(new, str):
        return old == new
    return not isinstance(old, (bool, str)) and isinstance(old, (int, float)) and float(old) == new


def comment_column(tbl) -> int:
    """The column at which most of a tomlkit table's trailing comments start (0 when it has none)."""
    columns: dict[int, int] = {}
    for key, item in tbl.value.body:
        if key is None or not getattr(item, "trivia", None) or not item.trivia.comment:
            continue
        col = (len(item.trivia.indent) + len(key.as_string()) + len(key.sep) + len(item.as_string())
               + len(item.trivia.comment_ws))
        columns[col] = columns.get(col, 0) + 1
    return max(columns, key=lambda c: (columns[c], -c)) if columns else 0


def set_keeping_layout(tbl, key: str, value: Any) -> None:
    """Change one value in a tomlkit table; its comment stays where it was (at the same column when the
    new value fits before it). tomlkit writes a float as str(x), Python's shortest repr."""
    old = tbl.value.item(key)
    width = len(old.as_string()) + len(old.trivia.comment_ws)
    tbl[key] = list(value) if isinstance(value, tuple) else value
    new = tbl.value.item(key)
    if old.trivia.comment:
        new.trivia.comment_ws = " " * max(1, width - len(new.as_string()))


def add_keeping_layout(tbl, f: dataclasses.Field, value: Any) -> None:
    """Add a key the file lacks at the end of its table, with the fresh file's comment, aligned with the
    table's other comments."""
    column = comment_column(tbl) or min(len(f"{f.name} = {toml_value(value)}") + 3, 40)
    snippet = tomlkit.parse("\n".join(key_lines(f, value, column)) + "\n")
    for key, item in snippet.body:
        tbl.append(key, item)


def templated_toml(v: Vehicle, template: str, base: Vehicle | None, stem: str) -> str:
    """The text of `template` (a vehicle file) with the values of `v`: its comments, key order and layout
    stay; a value that differs is replaced in place; a key the file lacks is added at the end of its
    table (for a file with a `base`, only when `v` differs from that base). `stem` is the saved file's
    name without .toml: a file without `name = ...` gets one only when the name differs from it."""
    doc = tomlkit.parse(template)
    if doc.get("name", stem) != v.name:
        doc["name"] = v.name
    for gname, gtype in GROUP_TYPES.items():
        group = getattr(v, gname)
        start = getattr(base, gname) if base is not None else None
        if gname not in doc:
            if start is not None and start == group:
                continue
            doc.append(gname, tomlkit.table())
        tbl = doc[gname]
        for f in fields(gtype):
            value = getattr(group, f.name)
            if f.name in tbl:
                if not same_value(tbl[f.name].unwrap(), value):
                    set_keeping_layout(tbl, f.name, value)
            elif start is None or getattr(start, f.name) != value:
                add_keeping_layout(tbl, f, value)
    return doc.as_string()


def vehicle_toml(v: Vehicle, template: str | None = None, base: Vehicle | None = None,
                 path: str | os.PathLike = "vehicle.toml") -> str:
    """`v` as the text of the vehicle file `path`: `template` (the file it was loaded from) with only the
    changed values replaced, or a fresh commented file. The templated text is read back before it is
    used; if it does not give `v` exactly (the template was edited into something else meanwhile), the
    fresh file is used instead, so loading what is saved always gives `v` back."""
    if template is not None:
        stem = Path(path).stem
        try:
            text = templated_toml(v, template, base, stem)
            data = tomllib.loads(text)
            back = vehicle_from_dict(data, str(path), base)
            if "name" not in data:
                back = dataclasses.replace(back, name=stem)
            if back == v:
                return text
        except (ConfigError, tomllib.TOMLDecodeError, tomlkit.exceptions.TOMLKitError, TypeError, ValueError,
                KeyError, AttributeError, RecursionError):
            pass
    return fresh_toml(v)


def save_vehicle(v: Vehicle, path: str | os.PathLike, source: str | os.PathLike | None = None) -> None:
    """Save `v` as TOML atomically; raises ConfigError (naming the file) if it cannot be written.

    `source` is the file `v` was loaded from (a preset in config/vehicles or the user's own): the saved
    file is that file with only the changed values replaced, so its comments, key order and layout
    stay. Without one (or when it can no longer be read) a fresh file is written with every key's unit,
    description and range as a comment. The Vehicle itself carries no file state."""
    path = Path(path)
    validate(v, str(path))
    template, base = None, None
    if source is not None:
        try:
            template, base = source_template(Path(source), path)
        except (ConfigError, tomllib.TOMLDecodeError, tomlkit.exceptions.TOMLKitError, RecursionError, OSError):
            template, base = None, None
    text = vehicle_toml(v, template, base, path)
    try:
        atomic_write_bytes(path, text.encode())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot save: {exc.strerror or exc}") from None


def source_template(source: Path, target: Path) -> tuple[str | None, Vehicle | None]:
    """The text of the file a vehicle came from, ready to be saved as `target`, and the vehicle its
    `base` names (None without one). A base that is a file next to the source is written as an absolute
    path when the target lies in another folder; a template whose base would be the target itself is not
    used (the saved file would be its own base)."""
    template = read_text(source, "vehicle")
    data = tomllib.loads(template)
    ref = data.get("base")
    if not isinstance(ref, str):
        return template, None
    base = load_base(source, data)
    local = source.parent / ref
    nearby = ref.endswith(".toml") and local.exists()
    if (local if nearby else resolve_preset(ref, PRESET_DIR, "vehicle")).resolve() == target.resolve():
        return None, None
    if nearby and (target.parent / ref).resolve() != local.resolve():
        doc = tomlkit.parse(template)
        doc["base"] = str(local.resolve())
        template = doc.as_string()
    return template, base
