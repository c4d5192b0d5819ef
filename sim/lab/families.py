"""The model lab's families as named variants of one car, and `contactpatch compare`: the same test drives
on each, and seed 001's comparison table (docs/models.md).

A family is a set of parameter changes on both axles (`FAMILIES`); everything else about the car (mass,
inertia, wheelbase, radius, brakes, powertrain) stays the same, as a fair comparison needs. The table
gives per family:
- the tire forces and loads in one fixed state: Fx at kappa 0.1 and Fy at alpha 4 deg from each front
  tire's own curve at its static load, and the front and rear loads after settling;
- the circle's lateral limit (ISO 4138);
- the ABS stopping distance from 100 km/h;
- the step steer's yaw-rate gain and response time;
- contact kept over the curb (the share of the drive the front-left wheel touched);
- the drop's undershoot and settling time;
- the cost of a car step (microseconds, one car at the app's 2 substeps, the families measured in turn).
"""
from __future__ import annotations

import math

import numpy as np

from sim.model.checks import apply_sets
from sim.model.checks import with_value
from sim.model.files import ConfigError
from sim.model.params import Vehicle
from sim.model.vehicle_toml import load_vehicle

AXLES = ("front", "rear")
FAMILIES = {
    "reference": ("seed 000's chain: Magic Formula tires with the friction circle, spring-damper", {}),
    "simple": ("FGear's Simple tire: the Magic Formula without E", {"tire.model": "simple"}),
    "mf96": ("a 1996-style Magic Formula with its load dependence and combined-slip weights", {"tire.model": "mf96"}),
    "mf61": ("an MF 6.1-style Magic Formula: mf96 with camber and inflation pressure", {"tire.model": "mf61"}),
    "chaos": ("Chaos-style: torque / radius as the longitudinal force, cornering stiffness sideways, both scaled "
              "onto mu Fz; springs damped by direction", {"tire.model": "chaos", "suspension.model": "chaos",
                                                          "suspension.c_rebound": 1.5}),
    "avs": ("AVS-style: target slips from the torque and the slip angle, followed over time, the lateral "
            "shaped by a square root; the suspension in AVS' units with its over-compression support",
            {"tire.model": "avs", "suspension.model": "avs"}),
    "fgear": ("FGear: the preloaded spring with damping by direction and a travel limit, Simple tires",
              {"tire.model": "simple", "tire.slip_form": "fgear", "suspension.model": "fgear",
               "suspension.travel_limit": "on", "suspension.c_rebound": 1.5}),
    "fgear-mf96": ("FGear's suspension with its 1996 tire", {"tire.model": "mf96", "tire.slip_form": "fgear",
                                                             "suspension.model": "fgear",
                                                             "suspension.travel_limit": "on",
                                                             "suspension.c_rebound": 1.5}),
}
NOT_YET = {"avs-solid": "AVS's solid-wheel mode (a rigid-body wheel with contact friction) is not built yet"}
COMPARE_DRIVES = ("settle", "circle", "braking", "step-steer", "curb", "drop")


def variant(car: Vehicle, family: str) -> Vehicle:
    """`car` with `family`'s changes on both axles. suspension.c_rebound is given as a multiple of the axle's
    own c (the families' rebound damping follows the car's tuning)."""
    if family not in FAMILIES:
        why = f" ({NOT_YET[family]})" if family in NOT_YET else ""
        raise ConfigError(f"model {family!r} is not known{why}; expected one of {', '.join(FAMILIES)}")
    out = car
    for path, value in FAMILIES[family][1].items():
        part, key = path.split(".")
        for axle in AXLES:
            group = f"{axle}_{part}"
            if key == "c_rebound":
                value_here = value * getattr(car, group).c
            else:
                value_here = value
            out = with_value(out, f"{group}.{key}", value_here)
            if key == "model" and value == "avs" and part == "suspension":
                # the same spring, damper and travel, in AVS' own units (a fair comparison)
                sus = getattr(car, group)
                for name, v in (("avs_spring_rate", sus.k / 1000.0), ("avs_damper_rate", sus.c / 1000.0),
                                ("avs_travel_cm", (min(sus.l0, sus.l_max) - sus.l_min) * 100.0),
                                ("avs_support_rate", 10.0 * sus.k / 1000.0)):
                    out = with_value(out, f"{group}.{name}", v)
    return out


def fixed_state(car: Vehicle) -> dict[str, float]:
    """The front tire's Fx at kappa 0.1 and Fy at alpha 4 deg, each on its own (pure slip) at the front
    wheels' static load on a surface of mu 1 (N)."""
    from sim.diagnosis import tire_curve
    from sim.kernel.tire.limit import load_factor
    from sim.model.geometry import tire_loads
    fz = float(tire_loads(car)[0])
    t = car.front_tire
    # the mu the simulation would use there: surface (1) x grip, times the load factor except for mf96,
    # whose load dependence is its own
    mu = t.grip * (1.0 if t.model in ("mf96", "mf61") else load_factor(t.load_sensitivity, t.nominal_load, fz))
    fx = float(tire_curve(car.front_tire, mu, fz, np.array([0.1]), False)[0])
    fy = float(tire_curve(car.front_tire, mu, fz, np.array([math.radians(4.0)]), True)[0])
    return {"Fx at kappa 0.1": fx, "Fy at alpha 4 deg": abs(fy), "static load front": fz}


def step_costs(cars: dict[str, Vehicle], rounds: int = 3, steps: int = 1000, tick=None) -> dict[str, float]:
    """Microseconds per car step of each car at the app's settings (flat ground, dt 1/240 s, 2 substeps),
    measured in turn, `rounds` times round, best of all (so machine noise touches every family alike);
    `tick()` after each measurement (a progress bar)."""
    from sim.lab.bench import bench_single
    from sim.model.world import World
    best = {name: math.inf for name in cars}
    for _ in range(rounds):
        for name, car in cars.items():
            best[name] = min(best[name], bench_single(car, World.flat(), 2, steps))
            if tick is not None:
                tick()
    return best


def measure_drive(car: Vehicle, family: str, drive: str) -> dict[str, float]:
    """The table's figures for `family` on `car` that one of COMPARE_DRIVES gives (settle: the fixed state's
    too): each a job of its own, so `contactpatch compare` spreads them over its processes and counts them."""
    from sim.lab import drives as M
    v = variant(car, family)
    r = M.run(drive, v)
    if drive == "settle":
        return {**fixed_state(v), "load front (settled)": r.value("load FL"), "load rear (settled)": r.value("load RL")}
    if drive == "circle":
        return {"circle limit": r.value("lateral limit")}
    if drive == "braking":
        return {"braking distance": r.value("stopping distance")}
    if drive == "step-steer":
        return {"yaw-rate gain": r.value("yaw-rate gain"), "response time": r.value("response time")}
    if drive == "curb":
        return {"curb contact FL": r.value("time in contact FL")}
    if drive == "drop":
        return {"drop undershoot": r.value("undershoot below rest"), "drop settling": r.value("settling time (2 mm)")}
    raise ConfigError(f"compare: drive {drive!r} is not one of {', '.join(COMPARE_DRIVES)}")


def measure(car: Vehicle, family: str) -> dict[str, float]:
    """Every figure of the table for `family` on `car`."""
    out: dict[str, float] = {}
    for drive in COMPARE_DRIVES:
        out.update(measure_drive(car, family, drive))
    return out


COLUMNS = (("Fx at kappa 0.1", "N", "{:.0f}"), ("Fy at alpha 4 deg", "N", "{:.0f}"),
           ("load front (settled)", "N", "{:.0f}"), ("load rear (settled)", "N", "{:.0f}"),
           ("circle limit", "g", "{:.3f}"), ("braking distance", "m", "{:.2f}"),
           ("yaw-rate gain", "1/s", "{:.2f}"), ("response time", "s", "{:.3f}"),
           ("curb contact FL", "%", "{:.1f}"), ("drop undershoot", "mm", "{:.1f}"),
           ("drop settling", "s", "{:.2f}"), ("step cost", "us", "{:.1f}"))


def table(results: dict[str, dict[str, float]]) -> str:
    head = "| model | " + " | ".join(f"{name} ({unit})" for name, unit, _ in COLUMNS) + " |"
    rows = [head, "|---" * (len(COLUMNS) + 1) + "|"]
    for family, figures in results.items():
        cells = [fmt.format(figures[name]) if math.isfinite(figures.get(name, math.nan)) else "-"
                 for name, _, fmt in COLUMNS]
        rows.append(f"| {family} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _measure_job(args):
    """One (family, drive) of `contactpatch compare` in a worker process: (family, its figures from that drive)."""
    vehicle, sets, family, drive = args
    return family, measure_drive(apply_sets(load_vehicle(vehicle), sets), family, drive)
