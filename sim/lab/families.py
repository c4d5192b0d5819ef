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
    from sim.model.geometry import static_loads
    fz = float(static_loads(car)[0])
    t = car.front_tire
    # the mu the simulation would use there: surface (1) x grip, times the load factor except for mf96,
    # whose load dependence is its own
    mu = t.grip * (1.0 if t.model in ("mf96", "mf61") else load_factor(t.load_sensitivity, t.nominal_load, fz))
    fx = float(tire_curve(car.front_tire, mu, fz, np.array([0.1]), False)[0])
    fy = float(tire_curve(car.front_tire, mu, fz, np.array([math.radians(4.0)]), True)[0])
    return {"Fx at kappa 0.1": fx, "Fy at alpha 4 deg": abs(fy), "static load front": fz}


def step_costs(cars: dict[str, Vehicle], rounds: int = 3, steps: int = 1000) -> dict[str, float]:
    """Microseconds per car step of each car at the app's settings (flat ground, dt 1/240 s, 2 substeps),
    measured in turn, `rounds` times round, best of all (so machine noise touches every family alike)."""
    from sim.lab.bench import bench_single
    from sim.model.world import World
    best = {name: math.inf for name in cars}
    for _ in range(rounds):
        for name, car in cars.items():
            best[name] = min(best[name], bench_single(car, World.flat(), 2, steps))
    return best


def measure(car: Vehicle, family: str) -> dict[str, float]:
    """Every figure of the table for `family` on `car`."""
    from sim.lab import drives as M
    v = variant(car, family)
    out = fixed_state(v)
    settle = M.run("settle", v)
    out["load front (settled)"] = settle.value("load FL")
    out["load rear (settled)"] = settle.value("load RL")
    out["circle limit"] = M.run("circle", v).value("lateral limit")
    out["braking distance"] = M.run("braking", v).value("stopping distance")
    step = M.run("step-steer", v)
    out["yaw-rate gain"] = step.value("yaw-rate gain")
    out["response time"] = step.value("response time")
    out["curb contact FL"] = M.run("curb", v).value("time in contact FL")
    drop = M.run("drop", v)
    out["drop undershoot"] = drop.value("undershoot below rest")
    out["drop settling"] = drop.value("settling time (2 mm)")
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
    vehicle, sets, family = args
    return family, measure(apply_sets(load_vehicle(vehicle), sets), family)
