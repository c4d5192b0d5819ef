"""`contactpatch` / `python -m app`: the driving sandbox.

Until the driving window lands (issue 3) this runs a short headless demo drive on the physics core and
prints what each wheel is doing, so the install can be checked end to end.
"""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="contactpatch", description=__doc__.splitlines()[0])
    ap.add_argument("--vehicle", default="hatchback", help="preset name or TOML file (default hatchback)")
    ap.add_argument("--world", default="proving_ground", help="preset name or TOML file")
    ap.add_argument("--seconds", type=float, default=5.0, help="simulated seconds of the demo drive")
    args = ap.parse_args(argv)
    import sim
    try:
        car = sim.load_vehicle(args.vehicle)
        world = sim.load_world(args.world)
    except sim.ConfigError as exc:
        print(f"contactpatch: {exc}", file=sys.stderr)
        return 2
    s = sim.Simulation(car, world, dt=1 / 240, substeps=8)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    print(f"{car.name} on {world.name}: full throttle for {args.seconds:g} s (simulated)")
    for k in range(int(args.seconds / s.dt)):
        s.step(sim.Controls(throttle=1.0, steer=0.0))
    tel = s.telemetry
    v = s.state.velocity
    print(f"t = {s.time:.2f} s  speed = {3.6 * (v @ v) ** 0.5:.1f} km/h  position = {s.state.position.round(2)}")
    print("wheel     Fz[N]   kappa  alpha[deg]   Fx[N]    Fy[N]  grip_scale")
    import math
    for i, name in enumerate(sim.WHEEL_NAMES):
        print(f"{name:5s} {tel.Fz[i]:9.1f} {tel.kappa[i]:7.3f} {math.degrees(tel.alpha[i]):10.2f} "
              f"{tel.Fx[i]:8.1f} {tel.Fy[i]:8.1f} {tel.grip_scale[i]:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
