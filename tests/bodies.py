"""Cars for the stability tests whose bodies are a rigid body's (sim/model/checks.py check_inertia): a light,
small-inertia body on the hatchback's suspension, which stiff dampers make unstable at the usual substeps."""
import dataclasses

import sim

HATCH = sim.load_vehicle("hatchback")


def light_body(car: sim.Vehicle = HATCH, pitch: float = 10.0) -> sim.Vehicle:
    """`car` with a 100 kg body of moments 50 (roll), `pitch` and 55 kg m^2 (yaw), changed at once (one at a
    time they would break the rules on the way), checked."""
    chassis = dataclasses.replace(car.chassis, mass=100.0, inertia_roll=50.0, inertia_pitch=pitch, inertia_yaw=55.0)
    return sim.validate(dataclasses.replace(car, chassis=chassis))


LIGHT = light_body()
# the edit that makes LIGHT unstable at 8 substeps (its pitch against the dampers): fixable by more substeps
UNSTABLE_PATH, UNSTABLE_VALUE = "front_suspension.c", 5.0e4
