"""Cars for the stability tests whose bodies are a rigid body's (sim/model/checks.py check_inertia): a light,
small-inertia body on the hatchback's suspension (its geometry off), whose dampers the kernel must hold at the
usual substeps; and
`unheld`, the kernel without that hold, for the tests of what it prevents."""
import dataclasses
import math

import sim
import sim.kernel.tables as T
from sim.model import checks

LINKAGE = ("roll_centre", "roll_centre_slope", "anti_brake", "anti_drive", "anti_slope", "toe_deg", "camber_gain",
           "camber_roll", "bump_steer", "compliance_steer")


def without_linkage(car: sim.Vehicle) -> sim.Vehicle:
    """`car` with every suspension-geometry parameter 0 (docs/physics.md §7.1): the seed's wheel on an axis, the
    model the stability figures and the stop rules' tests were worked out on. The presets have geometry."""
    for axle in ("front", "rear"):
        for key in LINKAGE:
            car = sim.with_value(car, f"{axle}_suspension.{key}", 0.0)
    return car


def massless(car: sim.Vehicle) -> sim.Vehicle:
    """`car` with massless wheels (unsprung_mass 0, docs/physics.md §7.2), the chassis the whole car's mass
    (sim.total_mass) and its moments the wheels' added (about the body's centre of mass, the wheels where they
    rest): the model the stability figures and the energy ledgers' tests were worked out on. The presets'
    wheels have a mass."""
    from sim.model.geometry import static_lengths
    ch = car.chassis
    geometry = sim.wheel_geometry(car)
    lengths = static_lengths(car)
    moments = [ch.inertia_roll, ch.inertia_pitch, ch.inertia_yaw]
    for i in range(4):                          # the wheels' own moments about the body's axes, put back in
        sus = car.front_suspension if i < 2 else car.rear_suspension
        x, y, z = geometry.anchor[i][0], geometry.anchor[i][1], geometry.anchor[i][2] - lengths[i]
        for k, r2 in enumerate((y * y + z * z, x * x + z * z, x * x + y * y)):
            moments[k] += sus.unsprung_mass * r2
    total = sim.total_mass(car)
    for axle in ("front", "rear"):
        car = sim.with_value(car, f"{axle}_suspension.unsprung_mass", 0.0)
    moments = [float(round(m)) for m in moments]          # to the kg m^2 the presets give
    chassis = dataclasses.replace(car.chassis, mass=total, inertia_roll=moments[0], inertia_pitch=moments[1],
                                  inertia_yaw=moments[2])
    return sim.validate(dataclasses.replace(car, chassis=chassis))


HATCH = without_linkage(massless(sim.load_vehicle("hatchback")))


def light_body(car: sim.Vehicle = HATCH, pitch: float = 10.0) -> sim.Vehicle:
    """`car` with a 100 kg body of moments 50 (roll), `pitch` and 55 kg m^2 (yaw), changed at once (one at a
    time they would break the rules on the way), checked."""
    chassis = dataclasses.replace(car.chassis, mass=100.0, inertia_roll=50.0, inertia_pitch=pitch, inertia_yaw=55.0)
    return sim.validate(dataclasses.replace(car, chassis=chassis))


LIGHT = light_body()
# the edit whose dampers LIGHT's pitch makes too stiff for 8 substeps: held by the kernel; more substeps run it
# as given
HELD_PATH, HELD_VALUE = "front_suspension.c", 5.0e4
# a pitch inertia too small for stiff dampers at 2 substeps: held by the kernel; `unheld`, a blow-up
LIGHT_PITCH = sim.with_value(sim.with_value(LIGHT, "front_suspension.c", 5e4), "rear_suspension.c", 5e4)


def lift_pressure_rule(monkeypatch) -> None:
    """The rule that holds an mf61 tire's pressure within checks.PRESSURE_SPAN of its nominal pressure lifted for
    one test. Within the rules no tire of any family has a curve that pushes the way it slides (issue 28: about
    12 000 random and range-corner tires found none), so the advisor's tire-curve check, the line behind the rules,
    and the Tuning panel's words for an advisor refusal no substeps fix are reached only past the rule."""
    monkeypatch.setattr(checks, "PRESSURE_SPAN", math.inf)


def pressed() -> sim.Vehicle:
    """The hatchback on mf61 front tires pumped to 3.5 bar against their 1.5 bar nominal (dpi = 4/3, past the
    pressure rule: lift_pressure_rule first); with REFUSED_PATH = REFUSED_VALUE their longitudinal slip
    stiffness turns negative (a tire that pushes the way it slides): refused, and no step fixes it."""
    car = HATCH
    for path, value in (("front_tire.model", "mf61"), ("front_tire.pressure", 3.5e5),
                        ("front_tire.nominal_pressure", 1.5e5)):
        car = sim.with_value(car, path, value)
    return car


REFUSED_PATH, REFUSED_VALUE = "front_tire.ppx1", -1.5


def unheld(s: sim.Simulation) -> sim.Simulation:
    """`s` with the kernel's hold on the springs, dampers and bump stops taken off (the body modes it holds
    them by set to none): the explicit update of the parameters as given, which the hold keeps stable."""
    s.tables.wheel_params[:, :, T.WP_STOP_LAM_S:T.WP_STOP_LAM + 1] = 0.0
    return s
