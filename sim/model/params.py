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

from dataclasses import dataclass
from dataclasses import field

from sim.kernel.tables import MAX_CURVE
from sim.kernel.tables import MAX_GEARS
from sim.kernel.tables import MF61_EXTRA
from sim.kernel.tables import MF96_FIELDS
from sim.model.fields import curve
from sim.model.fields import mf61
from sim.model.fields import mf96
from sim.model.fields import num
from sim.model.fields import text

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


# ----------------------------------------------------------------------------------------------------
# Groups

@dataclass(frozen=True)
class Chassis:
    """The sprung body as one rigid body."""
    mass: float = num(1200.0, "kg", 100.0, 5000.0, "mass of the car (body, wheels, driver) less the wheels' "
                      "unsprung_mass: with that 0 (massless wheels) the total, else the sprung part; from a kart to "
                      "a heavy SUV (a truck is not a car, its springs and tires are another range)")
    com_x: float = num(0.15, "m", -5.0, 5.0, "centre of mass ahead of the reference point")
    com_y: float = num(0.0, "m", -0.5, 0.5, "centre of mass left of the centre line")
    com_z: float = num(-0.10, "m", -1.0, 1.0, "centre of mass above the suspension anchors")
    inertia_roll: float = num(450.0, "kg m^2", 10.0, 20000.0, "principal moment about the vehicle x axis; the "
                              "three moments must be a rigid body's of this mass inside the body's box")
    inertia_pitch: float = num(1800.0, "kg m^2", 10.0, 50000.0, "principal moment about the vehicle y axis")
    inertia_yaw: float = num(2000.0, "kg m^2", 10.0, 50000.0, "principal moment about the vehicle z axis (all "
                             "three the sprung body's: wheels with an unsprung_mass add their own yaw moment)")
    length: float = num(4.0, "m", 1.0, 8.0, "body length (drawing and collision hull)")
    width: float = num(1.75, "m", 0.8, 3.0, "body width (drawing and collision hull)")
    height: float = num(1.25, "m", 0.5, 3.0, "body height from floor to roof (drawing and collision hull)")
    floor_z: float = num(-0.42, "m", -1.5, 0.5, "floor height relative to the anchors (drawing and collision hull)")
    lateral_update: str = text("midpoint", ("midpoint", "explicit"),
                               "how the body takes the tires' lateral force over a substep (docs/physics.md §12): "
                               "midpoint: linearised in the contacts' sideways speed and taken halfway through the "
                               "substep's velocity change (accurate at one or two substeps); explicit: at the "
                               "substep's start, seed 004's semi-implicit Euler (its error grows with the substep)",
                               since="lateral update")


@dataclass(frozen=True)
class Axle:
    """Where an axle's two suspension anchors sit; the left wheel is at +half_track, the right at -half_track."""
    x: float = num(1.275, "m", -4.0, 4.0, "axle position ahead of the reference point")
    half_track: float = num(0.75, "m", 0.3, 1.5, "half of the track width (anchor y)")
    anchor_z: float = num(0.0, "m", -1.0, 1.0, "anchor height above the reference point")


@dataclass(frozen=True)
class Suspension:
    """A spring-damper along the suspension axis d (vertical in the body frame), per axle."""
    k: float = num(35000.0, "N/m", 1000.0, 500000.0, "spring stiffness; race cars reach 2e5, and stiffer "
                                                                "with a light body needs more substeps")
    c: float = num(2500.0, "N s/m", 0.0, 50000.0, "damping coefficient; above about 2e4 a light "
                                                                "body's pitch needs more substeps")
    l0: float = num(0.40, "m", 0.05, 1.5, "rest (unloaded) length: anchor to wheel centre")
    l_min: float = num(0.15, "m", 0.0, 1.5, "shortest length; below it a bump stop of stiffness 10 k acts")
    l_max: float = num(0.45, "m", 0.05, 1.5, "longest length; a contact beyond it means the wheel is airborne")
    anti_roll: float = num(0.0, "N/m", 0.0, 500000.0, "anti-roll bar stiffness coupling left and right compression")
    camber_deg: float = num(0.0, "deg", -6.0, 6.0, "static camber; negative tilts the top of the wheel "
                                                             "inward (road cars -3 to 0, race cars to -5)")
    # the linkage (docs/physics.md §7.1), taken at static ride; all 0 is the seed's wheel on an axis, bit for bit
    roll_centre: float = num(0.0, "m", -0.2, 0.6, "roll-centre height above the ground: the tires' lateral force "
                             "reaches the body there, so F_y h / track of the load transfer goes through the links "
                             "and only the rest through the springs and the bar (0: on the ground, the seed's; road "
                             "cars about 0.03 to 0.15, rigid axles 0.3 to 0.5)", since="geometry")
    roll_centre_slope: float = num(0.0, "m/m", -4.0, 4.0, "change of the roll-centre height per m of the "
                                   "wheel's bump travel (a wishbone's or strut's drops as the body sinks: about "
                                   "-1 to -3)", since="geometry")
    anti_brake: float = num(0.0, "%", -50.0, 120.0, "anti-dive (front) or anti-lift (rear) under braking: the "
                            "share of this axle's braking load transfer its links carry at the brakes' full-pedal "
                            "balance (100: the springs see none of it)", since="geometry")
    anti_drive: float = num(0.0, "%", -50.0, 120.0, "anti-squat (rear) or anti-lift (front) under drive: the "
                            "share of this axle's drive load transfer its links carry at the drive's split (100: "
                            "the springs see none of it; an undriven axle ignores it)", since="geometry")
    anti_slope: float = num(0.0, "%/m", -300.0, 300.0, "change of both anti percentages per m of bump travel",
                            since="geometry")
    toe_deg: float = num(0.0, "deg", -3.0, 3.0, "static toe; positive toe-in (the front of the wheel turned "
                         "toward the centre line)", since="geometry")
    camber_gain: float = num(0.0, "deg/m", -100.0, 100.0, "camber change per m of the wheel's bump travel; "
                             "negative tilts the top inward as the wheel rises (wishbones about -20 to -40)",
                             since="geometry")
    camber_roll: float = num(0.0, "deg/deg", -1.0, 1.5, "camber change against the body per degree the body "
                             "rolls over this axle (the two wheels' travel difference over the track): 1 for a "
                             "rigid axle, whose wheels stay square to the road", since="geometry")
    bump_steer: float = num(0.0, "deg/m", -50.0, 50.0, "toe change per m of bump travel; positive turns the "
                            "wheel toward toe-in as it rises", since="geometry")
    compliance_steer: float = num(0.0, "deg/kN", -0.5, 0.5, "compliance steer: the wheel's turn per kN of its side "
                                  "force, as its bushings and the steering give; positive understeers (a front "
                                  "wheel turns out of the turn, a rear one into it; road cars about 0.05 to 0.3)",
                                  since="geometry")
    # the wheel's own mass (docs/physics.md §7.2); 0 is the seed's massless wheel, bit for bit
    unsprung_mass: float = num(0.0, "kg", 0.0, 150.0, "each wheel's own mass (wheel, tire, brake, hub, about half "
                               "the links) moving along the suspension axis between the spring and the tire; "
                               "chassis.mass is then the sprung part (road cars about 15 to 50 per wheel; 0: a "
                               "massless wheel, the tire as stiff as the ground; a wheel so light that it would hop "
                               "above 100 Hz on its spring, bar and tire is refused)", since="unsprung")
    tire_k: float = num(250000.0, "N/m", 20000.0, 2000000.0, "the tire's vertical stiffness between the wheel and "
                        "the ground (used with an unsprung_mass; road tires 180e3 to 300e3, race slicks to 5e5)",
                        since="unsprung")
    tire_c: float = num(150.0, "N s/m", 0.0, 10000.0, "the tire's vertical damping (used with an unsprung_mass; "
                        "about 100 to 500)", since="unsprung")
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
    avs_spring_rate: float = num(35.0, "N/mm", 1.0, 500.0, "avs: spring rate (N per mm: k = 1000 x this N/m)",
                                 since="avs")
    avs_damper_rate: float = num(2.5, "N s/mm", 0.0, 50.0, "avs: damping (N s per mm: c = 1000 x this N s/m)",
                                 since="avs")
    avs_travel_cm: float = num(25.0, "cm", 2.0, 100.0, "avs: suspension travel from full extension l0 to full "
                               "compression (l_min = l0 - travel)", since="avs")
    avs_support_rate: float = num(350.0, "N/mm", 0.0, 5000.0, "avs: the over-compression support's stiffness "
                                  "past full compression", since="avs")
    preload: float = num(0.0, "N", 0.0, 20000.0, "fgear: spring force at full extension (the spring's preload)",
                         since="fgear suspension")
    c_rebound: float = num(2500.0, "N s/m", 0.0, 50000.0, "fgear: damping while the suspension extends (c is the "
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
    radius: float = num(0.30, "m", 0.15, 1.0, "unloaded radius r")
    wheel_inertia: float = num(1.2, "kg m^2", 0.1, 30.0, "spin inertia Iw of wheel, tire and brake disc")
    grip: float = num(1.0, "-", 0.1, 2.0,
                      "tire friction factor at the nominal load; effective mu = surface mu x grip x load factor")
    load_sensitivity: float = num(0.0, "-", -0.5, 0.2,
                                  "change of the peak friction per unit (Fz - nominal_load) / nominal_load: the "
                                  "load factor is 1 + load_sensitivity (Fz - Fz0) / Fz0 (tires: about -0.05 "
                                  "to -0.2)")
    nominal_load: float = num(3000.0, "N", 1500.0, 15000.0, "the load Fz0 at which the tire's grip is given")
    ck: float = num(30000.0, "N", 1000.0, 1000000.0, "linear model: longitudinal slip stiffness (Fx per unit kappa)")
    ca: float = num(40000.0, "N/rad", 1000.0, 1000000.0, "linear model: cornering stiffness (Fy per radian of alpha)")
    v_min: float = num(1.0, "m/s", 0.1, 5.0, "slip denominator floor vMin")
    rolling: float = num(0.015, "-", 0.0, 0.1, "rolling resistance coefficient (force = coefficient x Fz)")
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
                                   "follows its steady value with the time constant lambda / max(speed, v_min), "
                                   "speed as relaxation_speed says (0: at once; road tires about 0.3 to 0.6 m)",
                                   since="relaxation")
    relaxation_speed: str = text("contact", ("contact", "vx"), "the speed at which the relaxation length is "
                                 "rolled off: contact (the contact patch's speed over the ground, sqrt(vx^2 + "
                                 "vy^2)) or vx (seed 001's literal |vx|, with which a tire sliding sideways "
                                 "near a standstill keeps its old force; once that force pushes the way the tire "
                                 "slides it relaxes at the contact's speed too)",
                                 since="relaxation speed")
    spin_update: str = text("implicit", ("implicit", "explicit"),
                            "wheel spin update: implicit in the tire force (stable at any substep count) or "
                            "the seed's explicit step (needs h rho^2 dFx/dkappa / (Iw max(|vx|, vMin)) < 2)")
    bx: float = num(8.0, "-", 1.0, 50.0, "Magic Formula longitudinal stiffness factor B")
    cx: float = num(1.6, "-", 0.1, 2.0, "Magic Formula longitudinal shape factor C (above 2 the force would "
                                        "reverse at large slip and feed energy in)")
    dx: float = num(1.0, "-", 0.1, 2.0, "Magic Formula longitudinal peak factor D (peak = D mu Fz)")
    ex: float = num(0.2, "-", -5.0, 1.0, "Magic Formula longitudinal curvature factor E")
    by: float = num(8.0, "1/rad", 1.0, 50.0, "Magic Formula lateral stiffness factor B")
    cy: float = num(1.4, "-", 0.1, 2.0, "Magic Formula lateral shape factor C (above 2 the force would reverse "
                                        "at large slip and feed energy in)")
    dy: float = num(1.0, "-", 0.1, 2.0, "Magic Formula lateral peak factor D (peak = D mu Fz)")
    ey: float = num(-0.5, "-", -5.0, 1.0, "Magic Formula lateral curvature factor E")
    # model "mf96" (docs/models.md): dfz = (Fz - Fz0) / Fz0 with Fz0 = nominal_load; mu = surface x grip
    pcx1: float = mf96(1.6, "-", 0.1, 2.0, "mf96: longitudinal shape factor Cx")
    pdx1: float = mf96(1.0, "-", 0.3, 2.0, "mf96: longitudinal peak friction at the nominal load (times mu)")
    pdx2: float = mf96(-0.1, "-", -0.3, 0.3, "mf96: change of the longitudinal peak friction per unit dfz")
    pex1: float = mf96(0.2, "-", -5.0, 1.0, "mf96: longitudinal curvature Ex at the nominal load (kept <= 1)")
    pex2: float = mf96(0.0, "-", -5.0, 5.0, "mf96: change of Ex per unit dfz")
    pkx1: float = mf96(12.8, "-", 12.0, 60.0, "mf96: longitudinal slip stiffness per unit load Kx / Fz at Fz0")
    pkx2: float = mf96(0.0, "-", -5.0, 12.0, "mf96: change of Kx / Fz per unit dfz")
    pkx3: float = mf96(0.0, "-", -2.0, 2.0, "mf96: exponent of Kx's load dependence, exp(pkx3 dfz)")
    pcy1: float = mf96(1.4, "-", 0.1, 2.0, "mf96: lateral shape factor Cy")
    pdy1: float = mf96(1.0, "-", 0.3, 2.0, "mf96: lateral peak friction at the nominal load (times mu)")
    pdy2: float = mf96(-0.1, "-", -0.3, 0.3, "mf96: change of the lateral peak friction per unit dfz")
    pey1: float = mf96(-0.5, "-", -5.0, 1.0, "mf96: lateral curvature Ey at the nominal load (kept <= 1)")
    pey2: float = mf96(0.0, "-", -5.0, 5.0, "mf96: change of Ey per unit dfz")
    pky1: float = mf96(14.0, "-", 8.0, 60.0, "mf96: largest cornering stiffness per nominal load, "
                      "Ky = pky1 Fz0 sin(2 atan(Fz / (pky2 Fz0))) (N/rad)")
    pky2: float = mf96(2.0, "-", 0.5, 10.0, "mf96: the load (in nominal loads) at which Ky peaks")
    rbx1: float = mf96(12.0, "-", 0.0, 20.0, "mf96 combined slip: how fast a slip angle takes longitudinal force")
    rbx2: float = mf96(10.0, "-", 0.0, 20.0, "mf96 combined slip: how a slip ratio weakens rbx1")
    rcx1: float = mf96(1.0, "-", 0.1, 1.1, "mf96 combined slip: shape of the longitudinal weighting "
                       "(above 1 the weight reaches 0 before 90 deg of slip angle and is held there)")
    rby1: float = mf96(10.0, "-", 0.0, 20.0, "mf96 combined slip: how fast a slip ratio takes lateral force")
    rby2: float = mf96(10.0, "-", 0.0, 20.0, "mf96 combined slip: how a slip angle weakens rby1")
    rcy1: float = mf96(1.0, "-", 0.1, 1.1, "mf96 combined slip: shape of the lateral weighting (above "
                       "1 the weight reaches 0 before the largest slip ratio and is held there)")
    # model "mf61" (docs/models.md): the mf96 coefficients plus camber gamma (sin gamma, + top leaning left)
    # and inflation pressure dpi = (pressure - nominal_pressure) / nominal_pressure
    pdx3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: longitudinal peak's fall with camber squared, (1 - pdx3 g^2)")
    pex3: float = mf61(0.0, "-", -5.0, 5.0, "mf61: change of Ex per dfz squared")
    pex4: float = mf61(0.0, "-", -1.0, 1.0, "mf61: Ex while driving against braking, (1 - pex4 sign(kappa))")
    ppx1: float = mf61(0.0, "-", -1.5, 1.5, "mf61: longitudinal slip stiffness per unit dpi")
    ppx2: float = mf61(0.0, "-", -1.5, 1.5, "mf61: longitudinal slip stiffness per unit dpi squared")
    ppx3: float = mf61(0.0, "-", -1.5, 1.5, "mf61: longitudinal peak friction per unit dpi")
    ppx4: float = mf61(0.0, "-", -1.5, 1.5, "mf61: longitudinal peak friction per unit dpi squared")
    pdy3: float = mf61(0.0, "-", -10.0, 10.0, "mf61: lateral peak's fall with camber squared, (1 - pdy3 g^2)")
    pey3: float = mf61(0.0, "-", -5.0, 5.0, "mf61: Ey's asymmetry, (1 - (pey3 + pey4 g) sign(alpha_y))")
    pey4: float = mf61(0.0, "-", -30.0, 30.0, "mf61: Ey's asymmetry with camber")
    pey5: float = mf61(0.0, "-", -30.0, 30.0, "mf61: Ey's change with camber squared")
    pky3: float = mf61(0.0, "-", -3.0, 3.0, "mf61: cornering stiffness' fall with |camber|")
    pky4: float = mf61(2.0, "-", 0.5, 2.0, "mf61: curvature of the cornering stiffness against load (2 in "
                       "mf96; above 2 the cornering stiffness turns negative at high loads)")
    pky5: float = mf61(0.0, "-", -30.0, 30.0, "mf61: shift of Ky's peak load with camber squared")
    pky6: float = mf61(0.0, "-", -2.0, 2.0, "mf61: camber stiffness per unit load, Fy per rad of camber / Fz "
                       "(given as a magnitude: the force leans with the wheel)")
    pky7: float = mf61(0.0, "-", -1.0, 1.0, "mf61: change of the camber stiffness per unit dfz")
    ppy1: float = mf61(0.0, "-", -1.5, 1.5, "mf61: cornering stiffness per unit dpi")
    ppy2: float = mf61(0.0, "-", -1.5, 1.5, "mf61: Ky's peak load per unit dpi")
    ppy3: float = mf61(0.0, "-", -1.5, 1.5, "mf61: lateral peak friction per unit dpi")
    ppy4: float = mf61(0.0, "-", -1.5, 1.5, "mf61: lateral peak friction per unit dpi squared")
    ppy5: float = mf61(0.0, "-", -1.5, 1.5, "mf61: camber stiffness per unit dpi")
    pvy3: float = mf61(0.0, "-", -0.5, 0.5, "mf61: camber's vertical shift Svy / Fz per unit sin(camber) "
                       "(a magnitude, as pky6)")
    pvy4: float = mf61(0.0, "-", -0.5, 0.5, "mf61: change of pvy3 per unit dfz")
    pressure: float = mf61(220000.0, "Pa", 150000.0, 350000.0, "mf61: inflation pressure (within 40 % of "
                           "nominal_pressure: the pressure terms are a fit about it, and further out they can turn "
                           "a stiffness or a peak negative)")
    nominal_pressure: float = mf61(220000.0, "Pa", 150000.0, 350000.0, "mf61: the pressure the coefficients were "
                                   "measured at (NOMPRES)")


@dataclass(frozen=True)
class Brakes:
    max_torque_front: float = num(1400.0, "N m", 0.0, 20000.0, "brake torque per front wheel at full pedal")
    max_torque_rear: float = num(900.0, "N m", 0.0, 20000.0, "brake torque per rear wheel at full pedal")
    handbrake_torque: float = num(2500.0, "N m", 0.0, 20000.0, "handbrake torque per rear wheel")
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
    max_torque: float = num(2000.0, "N m", 200.0, 20000.0,
                            "most torque the rack turns a road wheel with about its steering axis; against more (a "
                            "spinning wheel's gyroscopic torque while the body rolls or pitches) the rack stalls "
                            "and holds the angle")


@dataclass(frozen=True)
class Drive:
    """How torque reaches the wheels: the engine through clutch, gearbox and differentials, or a direct
    drive (throttle x max_wheel_torque on each driven wheel, fading to zero at max_wheel_speed)."""
    mode: str = text("engine", ("engine", "direct"), "engine and gearbox, or direct drive")
    layout: str = text("rwd", ("rwd", "fwd", "awd"), "which wheels are driven")
    centre_split: float = num(0.4, "-", 0.0, 1.0, "awd: share of the driveline torque sent to the front axle")
    front_diff: str = text("open", ("open", "lsd", "locked"), "front differential")
    rear_diff: str = text("open", ("open", "lsd", "locked"), "rear differential")
    lsd_stiffness: float = num(40.0, "N m s/rad", 0.0, 2000.0,
                               "limited slip: locking torque per rad/s of wheel speed difference")
    lsd_max_torque: float = num(400.0, "N m", 0.0, 5000.0, "limited slip: largest locking torque")
    max_wheel_torque: float = num(1200.0, "N m", 0.0, 10000.0, "direct drive: torque per driven wheel at full throttle")
    max_wheel_speed: float = num(170.0, "rad/s", 10.0, 1000.0,
                                 "direct drive: wheel speed at which the torque has faded to zero")


@dataclass(frozen=True)
class Aero:
    air_density: float = num(1.2, "kg/m^3", 0.0, 5.0, "air density rho")
    drag_coefficient: float = num(0.32, "-", 0.0, 3.0, "drag coefficient Cd")
    frontal_area: float = num(2.1, "m^2", 0.0, 10.0, "frontal area A")
    downforce_front: float = num(0.0, "m^2", 0.0, 10.0, "front lift-area product ClA (downforce = 1/2 rho ClA vx^2)")
    downforce_rear: float = num(0.0, "m^2", 0.0, 10.0, "rear lift-area product ClA")


@dataclass(frozen=True)
class Collision:
    """The body's hull against the ground (a rolled car, a wall): penalty springs at 14 hull points."""
    stiffness: float = num(1.5e5, "N/m", 100000.0, 100000000.0,
                           "penalty stiffness per hull point; one softer than the car's weight over its smaller wheel "
                           "radius (two points carrying it half a radius deep) is raised to that, and one too stiff "
                           "for the step is held")
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
    inertia: float = num(0.15, "kg m^2", 0.01, 2.0, "rotor inertia Ie")
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
    clutch_stiffness: float = num(300.0, "N m s/rad", 1.0, 10000.0, "Kc: clutch torque per rad/s of slip")
    clutch_max_torque: float = num(400.0, "N m", 10.0, 10000.0, "Tcap: largest torque the closed clutch carries")
    launch_rpm: float = num(2000.0, "rpm", 0.0, 30000.0, "automatic launch: the clutch is fully closed from here")
    launch_control: str = text("off", ("off", "on"),
                               "standing start at full throttle in first gear: hold the engine at "
                               "launch_control_rpm and let traction control set the slipping clutch's torque")
    launch_control_rpm: float = num(4000.0, "rpm", 500.0, 30000.0, "launch control: engine speed held")


@dataclass(frozen=True)
class Vehicle:
    """All parameters of one car. Per-axle groups are `front_*` and `rear_*`."""
    name: str = "hatchback"
    # the file it was loaded from ("" when built in code): refusals name it (not a parameter: not compared)
    source: str = field(default="", compare=False, repr=False)
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
