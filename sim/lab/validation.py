"""Whole-car validation: the figures the physics must reproduce, measured by driving the car.

`python -m sim.lab.validation` prints a table (figure, source, target, result, pass) for both presets; the
tests call the same functions on shorter or fewer cases. Every measurement here is a closed-loop drive
of the real simulation (no shortcuts through the formulas), on a flat plane or a plane tilted by the
slope under test, at dt = 1/240 s.

    rest_drift            a car left alone: horizontal movement in 60 s after settling
    parked_drift          parked across a slope on the handbrake: movement in 60 s
    neutral_roll          free in neutral on a slope: acceleration against (m g sin - rolling - drag) / (m + sum Iw/r^2)
    skidpad_limit         the largest steady lateral acceleration on a circle (a_y = v x yaw rate)
    braking_distance      from v0 to rest, full brake (ABS on or off)
    launch                0-100 km/h at full throttle with the gear changes on the way
    kappa_sign_flips      walking pace: how often a wheel's slip changes sign from one substep to the next
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.controls import Controls
from sim.kernel.units import GRAVITY as G
from sim.lab.drives import gear_for
from sim.model.checks import with_value
from sim.model.geometry import rest_com_height
from sim.model.geometry import wheel_geometry
from sim.model.params import Vehicle
from sim.model.vehicle_toml import load_vehicle
from sim.model.world import World
from sim.simulation import Simulation

DT = 1.0 / 240.0


def settled(car: Vehicle, world: World, substeps: int = 8, seconds: float = 3.0, controls: Controls | None = None,
            yaw: float = 0.0, dt: float = DT) -> Simulation:
    """A car dropped from its rest height at the origin and left `seconds` to settle with `controls`."""
    s = Simulation(car, world, dt=dt, substeps=substeps)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), yaw=yaw)
    c = controls or Controls()
    for _ in range(int(round(seconds / dt))):
        s.step(c)
    return s


def drift(s: Simulation, seconds: float, controls: Controls | None = None) -> float:
    """Horizontal distance (m) the centre of mass moves in `seconds` with `controls` held."""
    p0 = np.array(s.state.position, dtype=float)
    c = controls or Controls()
    for _ in range(int(round(seconds / s.dt))):
        s.step(c)
    d = np.array(s.state.position) - p0
    return float(math.hypot(d[0], d[1]))


def rest_drift(car: Vehicle, substeps: int = 8, seconds: float = 60.0) -> float:
    """A car on flat ground with no input, after 3 s to settle: how far it moves in `seconds` (m)."""
    return drift(settled(car, World.flat(), substeps), seconds)


def parked_drift(car: Vehicle, slope_deg: float = 15.0, substeps: int = 8, seconds: float = 60.0) -> float:
    """Parked across a slope (the slope falls to the car's right) on the handbrake only, in neutral:
    how far it moves in `seconds` after 3 s to settle (m)."""
    hand = Controls(handbrake=1.0, gear=0)
    s = settled(car, World.flat(slope_deg=slope_deg), substeps, controls=hand, yaw=math.pi / 2)
    return drift(s, seconds, hand)


def neutral_roll(car: Vehicle, slope_deg: float = 5.0, substeps: int = 8) -> tuple[float, float]:
    """Released in neutral, no brake, facing up a slope: (measured, expected) acceleration down the slope
    (m/s^2), measured between 3 and 8 m/s (where rolling resistance has its full size). Expected:
    (m g sin(theta) - mu_r m g cos(theta) - 1/2 rho Cd A <v^2>) / (m + sum Iw / r^2): the wheels' spin
    inertia is part of what gravity accelerates; drag at the window's mean v^2."""
    s = Simulation(car, World.flat(slope_deg=slope_deg), dt=DT, substeps=substeps)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), gear=0)
    c = Controls(gear=0)
    times, speeds = [], []
    for _ in range(int(60.0 / DT)):
        s.step(c)
        v = float(np.linalg.norm(s.state.velocity))
        if 3.0 <= v <= 8.0:
            times.append(s.time)
            speeds.append(v)
        if v > 8.0:
            break
    measured = float(np.polyfit(times, speeds, 1)[0]) if len(times) > 10 else 0.0
    th = math.radians(slope_deg)
    m = car.chassis.mass
    geometry = wheel_geometry(car)
    tires = (car.front_tire, car.front_tire, car.rear_tire, car.rear_tire)
    spin = sum(t.wheel_inertia / r ** 2 for t, r in zip(tires, geometry.radius))
    mu_r = (car.front_tire.rolling + car.rear_tire.rolling) / 2.0   # both presets use one value
    drag = 0.5 * car.aero.air_density * car.aero.drag_coefficient * car.aero.frontal_area * \
        float(np.mean(np.square(speeds))) if speeds else 0.0
    expected = (m * G * math.sin(th) - mu_r * m * G * math.cos(th) - drag) / (m + spin)
    return measured, expected


@dataclass
class CircleDriver:
    """Holds a circle of radius R about (0, R) (a left turn from the origin heading +x) at a target speed:
    the steering input sets the path curvature (sim/kernel/steering.py), so the command is the circle's
    curvature plus PID on the radial error; the throttle is a PI on speed."""
    radius: float
    car: Vehicle
    integral: float = 0.0
    speed_integral: float = 0.0

    def controls(self, s: Simulation, v_target: float) -> tuple[Controls, float]:
        p = np.array(s.state.position[:2])
        vel = np.array(s.state.velocity[:2])
        rel = p - np.array([0.0, self.radius])
        dist = float(np.linalg.norm(rel))
        error = dist - self.radius                               # + outside the circle
        radial_rate = float(np.dot(vel, rel / max(dist, 1e-9)))
        self.integral = float(np.clip(self.integral + error * s.dt, -20.0, 20.0))
        curvature = 1.0 / self.radius + 0.02 * error + 0.004 * self.integral + 0.02 * radial_rate
        st = self.car.steering
        speed = float(np.linalg.norm(s.state.velocity))
        top = math.radians(st.max_angle_deg)
        if st.limit_speed > 0.0:
            top /= 1.0 + (speed / st.limit_speed) ** 2
        r_min = self.car.wheelbase / math.tan(top) + self.car.front_axle.half_track
        steer = float(np.clip(curvature * r_min, -1.0, 1.0))
        dv = v_target - speed
        self.speed_integral = float(np.clip(self.speed_integral + dv * s.dt, -5.0, 5.0))
        throttle = float(np.clip(0.3 + 0.5 * dv + 0.3 * self.speed_integral, 0.0, 1.0))
        brake = float(np.clip(-0.3 * dv, 0.0, 1.0)) if dv < -1.0 else 0.0
        return Controls(throttle=throttle, brake=brake, steer=steer), error


def skidpad_limit(car: Vehicle, radius: float = 40.0, substeps: int = 8, dt: float = DT,
                  ramp_g_per_s: float = 0.004) -> float:
    """The steady skidpad limit (g): the target lateral acceleration rises slowly from 0.5 g; the result
    is the largest 1 s mean of v x yaw rate over which the car stayed within 0.5 m of the circle and
    within 0.15 m/s of the target speed, before the first second in which it could hold neither."""
    s = Simulation(car, World.flat(), dt=dt, substeps=substeps)
    v0 = math.sqrt(0.5 * G * radius)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=v0, gear=max(1, gear_for(car, v0)))
    driver = CircleDriver(radius, car)
    window = int(round(1.0 / dt))
    ay = np.zeros(window)
    held = np.zeros(window, dtype=bool)
    best = 0.0
    k = 0
    failing = 0
    while True:
        a_target = 0.5 + ramp_g_per_s * s.time
        if a_target > 1.6:
            break
        v_target = math.sqrt(a_target * G * radius)
        c, error = driver.controls(s, v_target)
        s.step(c)
        speed = float(np.linalg.norm(s.state.velocity))
        ay[k % window] = speed * float(s.state.angular_velocity[2])
        held[k % window] = abs(error) < 0.5 and abs(speed - v_target) < 0.15
        k += 1
        if k >= window and held.all():
            best = max(best, float(ay.mean()) / G)
        failing = 0 if held[(k - 1) % window] else failing + 1
        if failing * dt > 1.0:                       # lost the circle or the speed for a second: past the limit
            break
    return best


def braking_distance(car: Vehicle, v0: float = 26.8, abs_on: bool = True, substeps: int = 8,
                     dt: float = DT) -> float:
    """Distance (m) from v0 (m/s) to below 0.1 m/s with the brake pedal fully down. The car first cruises
    at v0 for 2 s (settled on its springs, speed held by a PI on the throttle); the distance is measured
    from the step the brake goes on and scaled by (v0 / v_start)^2 for the few mm/s the cruise misses by."""
    s = Simulation(car, World.flat(), dt=dt, substeps=substeps)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=v0, gear=gear_for(car, v0))
    integral = 0.0
    for _ in range(int(round(2.0 / dt))):
        error = v0 - float(np.linalg.norm(s.state.velocity))
        integral += error * dt
        s.step(Controls(throttle=float(np.clip(0.2 + 2.0 * error + 1.0 * integral, 0.0, 1.0))))
    v_start = float(np.linalg.norm(s.state.velocity))
    p0 = np.array(s.state.position, dtype=float)
    c = Controls(brake=1.0, abs=abs_on)
    for _ in range(int(round(30.0 / dt))):
        s.step(c)
        if float(np.linalg.norm(s.state.velocity)) < 0.1:
            break
    d = np.array(s.state.position) - p0
    return float(math.hypot(d[0], d[1])) * (v0 / v_start) ** 2


@dataclass
class Launch:
    seconds: float                                  # 0 to 100 km/h (inf when not reached in 20 s)
    shifts: list[tuple[float, int]] = field(default_factory=list)   # (time, new gear)

    @property
    def upshifts_per_gear(self) -> int:
        ups = [g for (_, g), (_, prev) in zip(self.shifts[1:], self.shifts) if g > prev]
        return max((ups.count(g) for g in set(ups)), default=0)

    @property
    def downshifts(self) -> int:
        return sum(1 for (_, g), (_, prev) in zip(self.shifts[1:], self.shifts) if g < prev)


def launch(car: Vehicle, aids: bool = True, substeps: int = 8, target_kmh: float = 100.0) -> Launch:
    """Full throttle from rest (after 1 s to settle) with ABS and traction control on or off."""
    s = settled(car, World.flat(), substeps, seconds=1.0)
    t0 = s.time
    c = Controls(throttle=1.0, abs=aids, tc=aids)
    out = Launch(math.inf, [(0.0, int(s.state.gear))])
    for _ in range(int(round(20.0 / s.dt))):
        s.step(c)
        gear = int(s.state.gear)
        if gear != out.shifts[-1][1]:
            out.shifts.append((s.time - t0, gear))
        if float(np.linalg.norm(s.state.velocity)) * 3.6 >= target_kmh:
            out.seconds = s.time - t0
            break
    return out


def kappa_sign_flips(car: Vehicle, speed: float = 1.4, substeps: int = 2, seconds: float = 5.0) -> int:
    """At walking pace on flat ground with a light throttle: how many times any wheel's slip changes sign
    from one substep to the next (each substep is stepped on its own to see it). The stability advisor is
    not asked: this is how an unstable wheel update is seen."""
    h = DT / substeps
    s = Simulation(car, World.flat(), dt=h, substeps=1, check_stability=False, watchdog=False)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=speed)
    c = Controls(throttle=0.05)
    for _ in range(int(round(1.0 / h))):
        s.step(c)
    prev = np.array(s.telemetry.kappa, dtype=float)
    flips = 0
    for _ in range(int(round(seconds / h))):
        s.step(c)
        k = np.array(s.telemetry.kappa, dtype=float)
        flips += int(np.sum((np.sign(k) * np.sign(prev) < 0) & (np.abs(k) > 1e-6) & (np.abs(prev) > 1e-6)))
        prev = k
    return flips


def sine_steer(car: Vehicle, substeps: int = 2, amplitude: float = 0.15, speed: float = 20.0,
               check_stability: bool = True) -> np.ndarray:
    """Open loop at `speed` in the gear for it: a 1 Hz sine of `amplitude` on the steering input for 2 s
    (0.15: in the tires' linear range), then 1 s straight; the yaw rate (rad/s) of every step."""
    s = Simulation(car, World.flat(), dt=DT, substeps=substeps, check_stability=check_stability)
    gear = gear_for(car, speed)
    s.reset(position=(0.0, 0.0, rest_com_height(car)), speed=speed, gear=gear)
    out = np.empty(int(round(3.0 / DT)))
    for k in range(len(out)):
        t = k * DT
        s.step(Controls(throttle=0.25, steer=amplitude * math.sin(2.0 * math.pi * t) if t < 2.0 else 0.0, gear=gear))
        out[k] = s.state.angular_velocity[2]
    return out


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
    stiff = skidpad_limit(with_value(with_value(car, "front_suspension.anti_roll", 60000.0),
                                     "rear_suspension.anti_roll", 60000.0))
    out.append(("skidpad 40 m: limit", "seed 002 (Boxster S 0.91 g)" if car.name == "boxster_s" else "-",
                "0.91 g +- 3 %" if car.name == "boxster_s" else "-", f"{base:.3f} g",
                abs(base / 0.91 - 1) < 0.03 if car.name == "boxster_s" else True))
    out.append(("skidpad with 60 kN/m anti-roll bars", "a bar only moves load", f"<= {base * 1.005:.3f} g",
                f"{stiff:.3f} g", stiff <= base * 1.005))
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
