"""Contact Patch physics core: the seed-000 wheel chain on a rigid body, compiled and batched.

`sim` imports only numpy, numba and the standard library (plus tomli-w for saving presets). It never
reads a clock, draws, or imports pygame / moderngl / imgui.
"""
from sim.params import ConfigError, Vehicle, load_vehicle, save_vehicle, validate, with_value, get_value
from sim.world import World, load_world
from sim.simulation import Controls, Simulation, Snapshot
from sim.pack import rest_com_height
from sim.layout import WHEEL_NAMES

__all__ = ["ConfigError", "Vehicle", "load_vehicle", "save_vehicle", "validate", "with_value", "get_value",
           "World", "load_world", "Controls", "Simulation", "Snapshot", "rest_com_height", "WHEEL_NAMES"]
