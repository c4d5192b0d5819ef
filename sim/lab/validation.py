"""The whole-car validation table: the figures the physics must reproduce, measured by driving the car.

`python -m sim.lab.validation` prints a table (figure, source, target, result, pass) for both presets. Every
figure is a closed-loop drive of the real simulation with the test drives' own functions (sim/lab/drives/;
the tests call them on shorter or fewer cases), on a flat plane or a plane tilted by the slope under
test (the turntable row: flat ground with the proving ground's turntable on it), at dt = 1/240 s:

    rest_drift            a car left alone: horizontal movement in 60 s after settling      (standstill.py)
    parked_drift          parked across a slope on the handbrake: movement in 60 s          (standstill.py)
    turntable_drift       braked on a turning platform: movement on it in 60 s              (standstill.py)
    neutral_roll          free in neutral on a slope against the resistances                (longitudinal.py)
    skidpad_limit         the largest steady lateral acceleration on a circle               (circles.py)
    braking_distance      from v0 to rest, full brake (ABS on or off)                       (longitudinal.py)
    launch                0-100 km/h at full throttle with the gear changes on the way      (longitudinal.py)
    sine_steer            a 1 Hz sine steer's yaw rate (the substep counts compared)        (transients.py)
    kappa_sign_flips      walking pace: how often a wheel's slip changes sign a substep     (longitudinal.py)
"""
from __future__ import annotations

import argparse

import numpy as np

from sim.kernel.units import GRAVITY as G
from sim.lab.drives.circles import skidpad_limit
from sim.lab.drives.longitudinal import braking_distance
from sim.lab.drives.longitudinal import kappa_sign_flips
from sim.lab.drives.longitudinal import launch
from sim.lab.drives.longitudinal import neutral_roll
from sim.lab.drives.standstill import parked_drift
from sim.lab.drives.standstill import rest_drift
from sim.lab.drives.standstill import turntable_drift
from sim.lab.drives.transients import sine_steer
from sim.model.checks import with_value
from sim.model.params import Vehicle
from sim.model.vehicle_toml import load_vehicle


# ------------------------------------------------------------------------------------------------------
def rows(car: Vehicle) -> list[tuple[str, str, str, str, bool]]:
    """(figure, source, target, result, passed) for one preset."""
    out = []
    for sub in (2, 4, 8):
        d = rest_drift(car, sub)
        out.append((f"at rest, flat, no input, 60 s ({sub} substeps)", "no force, no motion", "< 1 mm",
                    f"{d * 1000:.3f} mm", d < 1e-3))
    d = parked_drift(car)
    out.append(("parked across 15 deg on the handbrake, 60 s", "static friction", "< 1 mm", f"{d * 1000:.3f} mm",
                d < 1e-3))
    measured, expected = neutral_roll(car)
    out.append(("neutral on 5 deg: acceleration", "(m g sin - mu_r m g cos - drag) / (m + sum Iw/r^2)",
                f"{expected:.3f} m/s^2 +- 3 %", f"{measured:.3f} m/s^2", abs(measured / expected - 1) < 0.03))
    base = skidpad_limit(car)
    out.append(("skidpad 40 m: limit", "seed 002 (Boxster S 0.91 g)" if car.name == "boxster_s" else "-",
                "0.91 g +- 3 %" if car.name == "boxster_s" else "-", f"{base:.3f} g",
                abs(base / 0.91 - 1) < 0.03 if car.name == "boxster_s" else True))
    # a bar only moves load: bars of 60 kN/m on both axles against none. With the presets' geometry the
    # bump steer is off for this (the body's roll steers the wheels, docs/physics.md §7.1, and a stiffer bar,
    # rolling the car less, rightly steers it less), and the preset's own bars are off (a front-biased bar
    # moves load between the axles too, which a change to equal bars undoes)
    plain = car
    for axle in ("front", "rear"):
        plain = with_value(with_value(plain, f"{axle}_suspension.bump_steer", 0.0), f"{axle}_suspension.anti_roll", 0.0)
    plain_base = base if plain == car else skidpad_limit(plain)
    stiff = skidpad_limit(with_value(with_value(plain, "front_suspension.anti_roll", 60000.0),
                                     "rear_suspension.anti_roll", 60000.0))
    label = "skidpad with 60 kN/m anti-roll bars" if plain == car else \
        "skidpad: 60 kN/m anti-roll bars against none (bump steer off)"
    out.append((label, "a bar only moves load", f"<= {plain_base * 1.005:.3f} g", f"{stiff:.3f} g",
                stiff <= plain_base * 1.005))
    mu = car.front_tire.grip * car.front_tire.dx
    ideal = 26.8 ** 2 / (2 * mu * G)
    dist = braking_distance(car)
    out.append(("ABS stop from 26.8 m/s", "v^2 / (2 mu_peak g)", f"{ideal:.1f} m +- 5 %", f"{dist:.1f} m",
                abs(dist / ideal - 1) < 0.05))
    d16, s16, l16 = braking_distance(car, 25.0, substeps=16), skidpad_limit(car, substeps=16), \
        launch(car, substeps=16).seconds
    y16 = sine_steer(car, substeps=16)
    for sub in (1, 2):
        d = braking_distance(car, 25.0, substeps=sub)
        out.append((f"ABS stop from 25 m/s: {sub} vs 16 substeps", "substep independence", "within 1 %",
                    f"{d:.2f} / {d16:.2f} m", abs(d / d16 - 1) < 0.01))
        sp = skidpad_limit(car, substeps=sub)
        out.append((f"skidpad limit: {sub} vs 16 substeps", "substep independence", "within 1 %",
                    f"{sp:.3f} / {s16:.3f} g", abs(sp / s16 - 1) < 0.01))
        lt = launch(car, substeps=sub).seconds
        out.append((f"0-100 km/h, aids on: {sub} vs 16 substeps", "substep independence", "within 1 %",
                    f"{lt:.3f} / {l16:.3f} s", abs(lt / l16 - 1) < 0.01))
        dev = float(np.sqrt(np.mean((sine_steer(car, substeps=sub) - y16) ** 2) / np.mean(y16 ** 2)))
        out.append((f"1 Hz sine steer at 20 m/s, yaw rate: {sub} vs 16 substeps", "substep independence",
                    "rms within 1 %", f"{100 * dev:.2f} %", dev < 0.01))
    t16 = turntable_drift(car, substeps=16)
    for sub in (1, 2):
        d = turntable_drift(car, substeps=sub)
        out.append((f"braked on the turning platform (0.3 rad/s, 4 m out), 60 s: {sub} vs 16 substeps",
                    "static friction on moving ground", "< 1 mm", f"{d * 1000:.3f} / {t16 * 1000:.3f} mm",
                    d < 1e-3 and t16 < 1e-3))
    for sub in (1, 2):
        flips = kappa_sign_flips(car, substeps=sub)
        out.append((f"walking pace, {sub} substep{'s' if sub > 1 else ''}: kappa sign flips in 5 s",
                    "stable wheel update", "0", str(flips), flips == 0))
    if car.name == "boxster_s":
        run = launch(car)
        out.append(("0-100 km/h, aids on", "Porsche: about 5.5 s", "5.5 s +- 10 %", f"{run.seconds:.2f} s",
                    abs(run.seconds / 5.5 - 1) < 0.10))
        out.append(("launch: upshifts per gear / downshifts", "no gear hunting", "<= 1 / 0",
                    f"{run.upshifts_per_gear} / {run.downshifts}", run.upshifts_per_gear <= 1 and run.downshifts == 0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="Whole-car validation table")
    ap.add_argument("--vehicle", action="append", help="preset name or TOML file (default: both presets)")
    args = ap.parse_args()
    names = args.vehicle or ["hatchback", "boxster_s"]
    print("| vehicle | figure | source | target | result | |")
    print("|---|---|---|---|---|---|")
    for name in names:
        car = load_vehicle(name)
        for figure, source, target, result, ok in rows(car):
            print(f"| {car.name} | {figure} | {source} | {target} | {result} | {'ok' if ok else 'FAIL'} |", flush=True)


if __name__ == "__main__":
    main()
