"""Cars for the stability tests whose bodies are a rigid body's (sim/model/checks.py check_inertia): a light,
small-inertia body on the hatchback's suspension, whose dampers the kernel must hold at the usual substeps; and
`unheld`, the kernel without that hold, for the tests of what it prevents."""
import dataclasses

import sim
import sim.kernel.tables as T

HATCH = sim.load_vehicle("hatchback")


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
# a car on soft springs that hold the hatchback, and the edit after which they cannot hold the car: refused, and
# no step fixes it
SOFT = sim.validate(sim.with_value(sim.with_value(HATCH, "front_suspension.k", 1000.0), "rear_suspension.k", 1000.0))
REFUSED_PATH, REFUSED_VALUE = "chassis.mass", 2000.0


def unheld(s: sim.Simulation) -> sim.Simulation:
    """`s` with the kernel's hold on the springs, dampers and bump stops taken off (the body modes it holds
    them by set to none): the explicit update of the parameters as given, which the hold keeps stable."""
    s.tables.wheel_params[:, :, T.WP_STOP_LAM_S:T.WP_STOP_LAM + 1] = 0.0
    return s
