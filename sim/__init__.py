"""Contact Patch physics core: the seed-000 wheel chain on a rigid body, compiled and batched.

`sim` imports only numpy, numba and the standard library (plus tomlkit for saving presets, and the
`config` package for finding the presets). It never reads a clock, draws, or imports pygame / moderngl /
imgui. Three wings below the API here (imports run lab -> API -> model -> kernel, tests/test_layers.py):

    sim/kernel/   the compiled stages, the packed tables, the maths and the jit layer
    sim/model/    the parameter schema, its checks, vehicle and world files, geometry, packing
    sim/lab/      the driver model, the test drives, validation, model families, command lines, bench

The API: Simulation (simulation.py) with its controls, views, watchdog and batch threads, the stability
advisor, the grip diagnosis and the warm-up.
"""
from sim import advisor
from sim import warmup
from sim.controls import CONTROL_COLUMNS
from sim.controls import CONTROL_DEFAULTS
from sim.controls import NO_GEAR
from sim.controls import NO_STEER_ANGLE
from sim.controls import Controls
from sim.kernel.steering import approach as _approach
from sim.kernel.tables import WHEEL_NAMES
from sim.kernel.units import GRAVITY
from sim.kernel.units import KMH
from sim.kernel.units import RAD_S_PER_RPM
from sim.kernel.units import RPM
from sim.model.checks import get_value
from sim.model.checks import validate
from sim.model.checks import with_value
from sim.model.files import ConfigError
from sim.model.files import atomic_write_bytes
from sim.model.geometry import WheelGeometry
from sim.model.geometry import rest_com_height
from sim.model.geometry import spawn_height
from sim.model.geometry import static_loads
from sim.model.geometry import tire_loads
from sim.model.geometry import total_mass
from sim.model.geometry import wheel_geometry
from sim.model.pack import SWITCHES
from sim.model.params import Vehicle
from sim.model.vehicle_toml import load_vehicle
from sim.model.vehicle_toml import save_vehicle
from sim.model.world import Box
from sim.model.world import Heightfield
from sim.model.world import Marking
from sim.model.world import Plane
from sim.model.world import Surface
from sim.model.world import World
from sim.model.world import bumps
from sim.model.world import load_world
from sim.placing import yaw_pitch_roll
from sim.simulation import DEFAULT_SUBSTEPS
from sim.simulation import MAX_DT
from sim.simulation import MAX_SUBSTEPS
from sim.simulation import Simulation
from sim.simulation import Snapshot
from sim.timing import Lap
from sim.timing import LapTimer
from sim.watchdog import BlowUp

stability = advisor.report     # sim.stability(car, dt, substeps): the stability advisor's report
approach = getattr(_approach, "py_func", _approach)   # the rate limit as plain Python (from Python, a call into
#                                                      compiled code costs more than the three lines)

__all__ = ["ConfigError", "Vehicle", "load_vehicle", "save_vehicle", "validate", "with_value", "get_value",
           "atomic_write_bytes", "approach", "advisor", "warmup", "BlowUp", "stability", "MAX_DT", "MAX_SUBSTEPS",
           "World", "load_world", "Surface", "Plane", "Box", "Heightfield", "Marking", "bumps", "DEFAULT_SUBSTEPS",
           "yaw_pitch_roll", "CONTROL_COLUMNS", "CONTROL_DEFAULTS", "NO_GEAR", "NO_STEER_ANGLE", "Controls",
           "Simulation", "Snapshot", "WheelGeometry", "rest_com_height",
           "spawn_height", "wheel_geometry", "WHEEL_NAMES", "RPM", "RAD_S_PER_RPM",
           "KMH", "GRAVITY", "SWITCHES", "static_loads", "tire_loads", "total_mass", "Lap", "LapTimer"]
