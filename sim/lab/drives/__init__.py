"""Standard test drives, driven by the driver model (sim/lab/driver.py), each reporting the numbers it exists
for (figures with units and, where the physics or a standard gives them, limits) and its telemetry log
(sim/lab/logs.py). One suite: the validation table (sim/lab/validation.py) measures with the same drives.

    standstill.py    settle (wheel loads, sag), parked (static friction on a slope), rest drift
    longitudinal.py  braking, braking-no-abs, standing-start (launch), coast-down, neutral roll, walking pace
    circles.py       circle (ISO 4138 constant radius), steady-circle, and the skidpad's second closed loop
    transients.py    step-steer (ISO 7401), lane-change (ISO 3888-1), sine steer
    fmvss126.py      sine-with-dwell (FMVSS 126) over its amplitude series, from the slowly increasing steer's A
    bumps.py         drop, curb
    lap.py           lap: laps of a circuit at the limit (sim/lab/lap_driver.py, docs/driver.md)
    suite.py         the drives by name, `run_batch(name, cars)`, `run(name, car)`, the user's limits
    batch.py         cars driven together in one Simulation (every drive is written for a batch)
    results.py       Figure, Result, `compare(a, b)` (the same drive before and after a tuning change)

`run(name, car)` gives a Result; `run_batch(name, cars)` drives N cars (any parameters each) in one
Simulation and gives each car's Result, bit for bit its drive alone (a car alone is a batch of one). Each
drive function takes one car (-> a Result) or a list of cars (-> a list). `contactpatch test` runs them from
the command line (sim/lab/cli.py).
"""
from sim.lab.drives.bumps import curb
from sim.lab.drives.bumps import drop
from sim.lab.drives.circles import constant_radius
from sim.lab.drives.circles import skidpad_limit
from sim.lab.drives.circles import steady_circle
from sim.lab.drives.common import DT
from sim.lab.drives.common import SUBSTEPS
from sim.lab.drives.common import bicycle_yaw_gain
from sim.lab.drives.common import drift
from sim.lab.drives.common import gear_for
from sim.lab.drives.common import on_flat
from sim.lab.drives.common import settled
from sim.lab.drives.fmvss126 import sine_with_dwell
from sim.lab.drives.lap import lap
from sim.lab.drives.longitudinal import braking
from sim.lab.drives.longitudinal import braking_distance
from sim.lab.drives.longitudinal import coast_down
from sim.lab.drives.longitudinal import kappa_sign_flips
from sim.lab.drives.longitudinal import launch
from sim.lab.drives.longitudinal import neutral_roll
from sim.lab.drives.longitudinal import standing_start
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.lab.drives.results import compare
from sim.lab.drives.results import compare_table
from sim.lab.drives.standstill import parked
from sim.lab.drives.standstill import parked_drift
from sim.lab.drives.standstill import rest_drift
from sim.lab.drives.standstill import settle
from sim.lab.drives.suite import SUITE
from sim.lab.drives.suite import SUITE_HELP
from sim.lab.drives.suite import Limit
from sim.lab.drives.suite import apply_limits
from sim.lab.drives.suite import parse_limit
from sim.lab.drives.suite import run
from sim.lab.drives.suite import run_batch
from sim.lab.drives.transients import lane_change
from sim.lab.drives.transients import sine_steer
from sim.lab.drives.transients import step_steer

__all__ = ["DT", "SUBSTEPS", "SUITE", "SUITE_HELP", "Figure", "Limit", "Result", "apply_limits", "bicycle_yaw_gain",
           "braking", "braking_distance", "coast_down", "compare", "compare_table", "constant_radius", "curb",
           "drift", "drop", "gear_for", "kappa_sign_flips", "lane_change", "lap", "launch", "neutral_roll", "on_flat",
           "parked", "parked_drift", "parse_limit", "rest_drift", "run", "run_batch", "settle", "settled",
           "sine_steer", "sine_with_dwell", "skidpad_limit", "standing_start", "steady_circle", "step_steer"]
