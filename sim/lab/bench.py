"""Benchmark: microseconds per vehicle-step of the full chain. `python -m sim.lab.bench`

Prints figures; it asserts nothing (tests never depend on wall-clock time).
  N = 1    : Simulation.step() called from Python once per step (what the app does)
  N = 1024 : Simulation.run() over a control trace, per vehicle-step
on the flat world and on the proving ground, at dt = 1/240 s with 2 and 8 substeps (and, with --vs-mujoco,
the batches at 1 substep too: with the midpoint lateral update its stops, circles, launches and sine steer
follow 16 substeps to 0.3 %, `python -m sim.lab.validation`).

`--vs-mujoco` (needs the optional extra: pip install -e '.[bench]') also steps MuJoCo's model of the same
car (a free body on four slide-joint suspensions with spinning, steered cylinder wheels on a plane,
dt = 1/240 s) in the same process, interleaving blocks of both so that machine noise cancels, and prints
each figure as a ratio to MuJoCo's car step.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import sim
from sim.kernel.tables import NO_GEAR
from sim.lab.drives import gear_for


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def bench_single(car, world, substeps: int, steps: int) -> float:
    s = sim.Simulation(car, world, dt=1 / 240, substeps=substeps)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    c = sim.Controls(throttle=0.3, steer=0.1)
    for _ in range(200):
        s.step(c)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(steps):
            s.step(c)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e6


def bench_batch(car, world, substeps: int, n: int, steps: int) -> float:
    s = sim.Simulation(car, world, dt=1 / 240, substeps=substeps, n_vehicles=n)
    rng = np.random.default_rng(0)
    xy = rng.uniform(-20, 20, (n, 2))
    s.reset(position=np.column_stack([xy, np.full(n, sim.rest_com_height(car))]), yaw=rng.uniform(0, 6.28, n))
    trace = np.zeros((steps, n, 4))
    trace[..., 0] = 0.3
    trace[..., 2] = 0.1
    s.run(trace[:10])
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        s.run(trace)
        best = min(best, (time.perf_counter() - t0) / (steps * n))
    return best * 1e6


MUJOCO_CAR = """
<mujoco model="car">
  <option timestep="{dt}" integrator="implicitfast"/>
  <worldbody>
    <geom name="ground" type="plane" size="200 200 0.1" friction="1 0.005 0.0001"/>
    <body name="chassis" pos="0 0 {z}">
      <freejoint/>
      <inertial pos="0 0 0" mass="{mass}" diaginertia="{ixx} {iyy} {izz}"/>
      <geom type="box" size="1.9 0.8 0.25" contype="0" conaffinity="0"/>
      {wheels}
    </body>
  </worldbody>
  <actuator>
    <position joint="steer_fl" kp="20000"/>
    <position joint="steer_fr" kp="20000"/>
    <motor joint="spin_rl" gear="1" ctrlrange="-2000 2000"/>
    <motor joint="spin_rr" gear="1" ctrlrange="-2000 2000"/>
  </actuator>
</mujoco>
"""

MUJOCO_WHEEL = """
      <body name="{name}" pos="{x} {y} {z}">
        <inertial pos="0 0 0" mass="10" diaginertia="0.2 0.2 0.2"/>
        <joint name="susp_{name}" type="slide" axis="0 0 1" stiffness="{k}" damping="{c}" range="-0.15 0.15"/>
        {steer}
        <body name="tire_{name}">
          <joint name="spin_{name}" type="hinge" axis="0 1 0" damping="0.1"/>
          <geom type="cylinder" size="{r} 0.1" euler="90 0 0" mass="15" condim="3"/>
        </body>
      </body>"""


def mujoco_car(car, dt: float):
    """MuJoCo's model of `car`: the same mass, inertia, wheel positions, radius, springs and dampers."""
    try:
        import mujoco
    except ImportError:
        raise SystemExit("sim.lab.bench --vs-mujoco needs MuJoCo: pip install -e '.[bench]'") from None
    g = sim.wheel_geometry(car)
    wheels = []
    for i, name in enumerate(("fl", "fr", "rl", "rr")):
        sus = car.front_suspension if i < 2 else car.rear_suspension
        steer = f'<joint name="steer_{name}" type="hinge" axis="0 0 1" range="-0.6 0.6"/>' if i < 2 else ""
        ax, ay, az = g.anchor[i]
        wheels.append(MUJOCO_WHEEL.format(name=name, x=ax, y=ay, z=az - sus.l0, k=sus.k, c=sus.c,
                                          r=g.radius[i], steer=steer))
    ch = car.chassis
    xml = MUJOCO_CAR.format(dt=dt, z=sim.rest_com_height(car) + 0.05, mass=ch.mass, ixx=ch.inertia_roll,
                            iyy=ch.inertia_pitch, izz=ch.inertia_yaw, wheels="".join(wheels))
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    return mujoco, model, data


def interleaved(blocks: list, rounds: int = 7) -> list[float]:
    """Each block is (callable that runs `steps` steps, steps, per): run them in turn `rounds` times and
    return each block's median time per unit (us), so a slow patch of the machine hits all of them."""
    times = [[] for _ in blocks]
    for _ in range(rounds):
        for i, (fn, per) in enumerate(blocks):
            t0 = time.perf_counter()
            fn()
            times[i].append((time.perf_counter() - t0) / per)
    return [float(np.median(t)) * 1e6 for t in times]


def batch_case(car, world, dt: float, substeps: int, n: int, k: int, speed: float = 0.0):
    """n cars at random places and headings within 20 m of the origin, and a trace of k steps of the same
    controls: from rest, throttle 0.3 and a little steer; at `speed`, in the gear for it with the throttle
    that about holds it. Run once, so the timed runs find everything compiled."""
    s = sim.Simulation(car, world, dt=dt, substeps=substeps, n_vehicles=n)
    rng = np.random.default_rng(0)
    xy = rng.uniform(-20, 20, (n, 2))
    gear = gear_for(car, speed) if speed > 0.0 else 1
    s.reset(position=np.column_stack([xy, np.full(n, sim.rest_com_height(car))]), yaw=rng.uniform(0, 6.28, n),
            speed=speed, gear=gear)
    trace = np.zeros((k, n, 7))
    trace[..., 0] = 0.25 if speed > 0.0 else 0.3
    trace[..., 2] = 0.02 if speed > 0.0 else 0.1
    trace[..., 6] = gear if speed > 0.0 else NO_GEAR
    s.run(trace)
    return s, trace


def vs_mujoco(car, steps: int, n: int) -> None:
    dt = 1 / 240
    mj, model, data = mujoco_car(car, dt)
    data.ctrl[:] = (0.1, 0.1, 300.0, 300.0)
    for _ in range(480):
        mj.mj_step(model, data)

    def mj_block():
        for _ in range(steps):
            mj.mj_step(model, data)

    blocks = [(mj_block, steps)]
    labels = ["MuJoCo car step (reference)"]
    c = sim.Controls(throttle=0.3, steer=0.1)
    for wname in ("flat", "proving_ground"):
        world = sim.load_world(wname)
        for sub in (2, 8):
            s = sim.Simulation(car, world, dt=dt, substeps=sub)
            s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
            for _ in range(200):
                s.step(c)

            def one(s=s):
                for _ in range(steps):
                    s.step(c)
            blocks.append((one, steps))
            labels.append(f"Contact Patch, 1 car, {wname}, {sub} substeps, step() from Python")
    k = max(10, steps // 100)
    for wname in ("flat", "proving_ground"):
        for sub in (1, 2, 8):
            s, trace = batch_case(car, sim.load_world(wname), dt, sub, n, k)
            blocks.append((lambda s=s, trace=trace: s.run(trace), k * n))
            labels.append(f"Contact Patch, {n} cars, {wname}, {sub} substep{'s' if sub > 1 else ''}, per car-step")
    # the same batch on one core (the threads' share of the speed-up shows against the figure above), and
    # a batch already driving: 20 m/s on the flat in the gear for that speed, a sweep's usual regime
    # (the batches above start from rest and, over the benchmark, only reach walking pace)
    import sim.batch as batch
    s, trace = batch_case(car, sim.load_world("flat"), dt, 2, n, k)

    def one_thread(s=s, trace=trace):
        threads = batch.threads
        batch.threads = lambda: 1
        try:
            s.run(trace)
        finally:
            batch.threads = threads
    blocks.append((one_thread, k * n))
    labels.append(f"Contact Patch, {n} cars, flat, 2 substeps, per car-step, one thread")
    for sub in (1, 2, 8):
        s, trace = batch_case(car, sim.load_world("flat"), dt, sub, n, k, speed=20.0)
        blocks.append((lambda s=s, trace=trace: s.run(trace), k * n))
        labels.append(f"Contact Patch, {n} cars, flat, {sub} substep{'s' if sub > 1 else ''}, at 20 m/s, per car-step")
    us = interleaved(blocks)
    ref = us[0]
    print(f"{'':72s} {'us':>8s} {'x MuJoCo':>9s}")
    for label, t in zip(labels, us):
        print(f"{label:72s} {t:8.2f} {t / ref:9.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--vs-mujoco", action="store_true", help="ratios against MuJoCo's car step (the bench extra)")
    args = ap.parse_args()
    car = sim.load_vehicle("hatchback")
    print(f"machine: {machine()}")
    if args.vs_mujoco:
        vs_mujoco(car, args.steps, args.n)
        return
    print(f"{'world':16s} {'substeps':>8s} {'N=1 us/step':>12s} {'N=' + str(args.n) + ' us/vehicle-step':>22s}")
    for wname in ("flat", "proving_ground"):
        world = sim.load_world(wname)
        for sub in (2, 8):
            one = bench_single(car, world, sub, args.steps)
            many = bench_batch(car, world, sub, args.n, max(20, args.steps // 50))
            print(f"{wname:16s} {sub:8d} {one:12.2f} {many:22.3f}")


if __name__ == "__main__":
    main()
