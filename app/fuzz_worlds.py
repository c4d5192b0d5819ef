"""Random worlds against the loader, the advisor and the watchdog (`python -m app.fuzz worlds`): the
proving ground with its numbers changed at random within what the loader allows (gravity, friction, the
ground plane's slope or normal, the boxes' slopes and motions, the bumps or random rough heights, the spawn
points). A world the
loader accepts must either be refused for the car with a reason (the advisor, at its gravity and grip) or
let the car drive 10 s of aggressive random driving from each spawn without the watchdog firing."""
from __future__ import annotations

import copy
import json
import math
import tempfile
import tomllib
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import numpy as np

import sim
from app import fuzz_params
from app.session import ground_height
from config import CONFIG_DIR


@dataclass
class WorldTally:
    worlds: int = 0
    refused_by_loader: int = 0
    refused_for_the_car: int = 0
    drove: int = 0
    blew_up: int = 0
    found: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"{self.worlds} worlds: refused by the loader {self.refused_by_loader}, refused for the car "
                f"{self.refused_for_the_car}, driven {self.drove} (of which {self.blew_up} blew up)")


def random_world(base: dict, rng: np.random.Generator) -> dict:
    """The proving ground's table with some of its numbers drawn again within the loader's ranges."""
    d = copy.deepcopy(base)
    if rng.random() < 0.5:
        d["gravity"] = float(rng.uniform(0.0, sim.World.GRAVITY_MAX))
    for st in d["surfaces"].values():
        if rng.random() < 0.3:
            st["mu"] = float(rng.uniform(0.0, 3.0))
    for p in d.get("plane", []):
        r = rng.random()
        if r < 0.3:
            p["slope_deg"] = float(rng.uniform(-80.0, 80.0))
        elif r < 0.4:
            p.pop("slope_deg", None)
            p["normal"] = [float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1)), float(rng.uniform(0.01, 1.0))]
    for b in d.get("box", []):
        if rng.random() < 0.2:
            b["slope_deg"] = float(rng.uniform(-89.0, 89.0))
            b["roll_deg"] = float(rng.uniform(-89.0, 89.0))
        if rng.random() < 0.1:
            b["angular_velocity"] = [0.0, 0.0, float(rng.uniform(-2.0, 2.0))]
        if rng.random() < 0.1:
            b["velocity"] = [float(x) for x in rng.uniform(-10.0, 10.0, 3)]
        if rng.random() < 0.1:
            b["oscillation"] = [float(x) for x in rng.uniform(-5.0, 5.0, 3)]
            b["period"] = float(rng.uniform(2.0, 100.0))
    for h in d.get("heightfield", []):
        r = rng.random()
        if r < 0.3 and "heights" not in h:
            h["bump_height"] = float(rng.uniform(-5.0, 5.0))
            h["bump_wavelength"] = float(math.exp(rng.uniform(math.log(0.1), math.log(1000.0))))
        elif r < 0.5:                               # rough ground: random heights (a step over 5 m is refused)
            spacing = float(rng.uniform(0.2, 4.0))
            h.pop("bump_height", None)
            h.pop("bump_wavelength", None)
            h.pop("size", None)
            h["spacing"] = spacing
            h["heights"] = rng.uniform(-1.0, 1.0, (int(24.0 / spacing) + 1, int(12.0 / spacing) + 1)) \
                * float(rng.uniform(0.0, 3.0))
            h["heights"] = h["heights"].tolist()
    d["spawn"] = [[float(rng.uniform(-60, 120)), float(rng.uniform(-60, 120)), float(rng.uniform(-180, 180))]
                  for _ in range(3)]
    return d


def fuzz_worlds(n: int, seed: int, seconds: float = 10.0, verbose: bool = False) -> WorldTally:
    rng = np.random.default_rng(seed)
    base = tomllib.loads((CONFIG_DIR / "worlds" / "proving_ground.toml").read_text())
    car = sim.load_vehicle("hatchback")
    tally = WorldTally()
    steps = int(round(seconds / fuzz_params.DT))
    for k in range(n):
        tally.worlds += 1
        data = random_world(base, rng)
        try:
            world = sim.World.from_dict(data, f"world{k}")
        except sim.ConfigError:
            tally.refused_by_loader += 1
            continue
        try:
            s = sim.Simulation(car, world, dt=fuzz_params.DT, substeps=sim.DEFAULT_SUBSTEPS,
                               n_vehicles=len(world.spawns), watchdog="flag")
        except sim.ConfigError as exc:
            tally.refused_for_the_car += 1
            if verbose:
                print(f"world{k}: refused: {exc}")
            continue
        pos = [(x, y, sim.spawn_height(car, x, y, math.radians(yaw_deg), ground_of(world)))
               for x, y, yaw_deg in world.spawns]
        s.reset(position=pos, yaw=[math.radians(sp[2]) for sp in world.spawns])
        trace = fuzz_params.driving(rng, steps, len(world.spawns))
        for i in range(0, steps, fuzz_params.CHUNK):
            s.run(trace[i:i + fuzz_params.CHUNK])
        tally.drove += 1
        if any(s.health):
            tally.blew_up += 1
            if verbose:
                (Path(tempfile.gettempdir()) / f"fuzz-world{k}.json").write_text(json.dumps(data))
            tally.found.append(next(h for h in s.health if h))
            if verbose:
                print(f"world{k}: {next(h for h in s.health if h)}; {describe(world)}")
    return tally


def ground_of(world):
    """ground(x, y): the height of the highest supporting surface there (sim.spawn_height's argument)."""
    return lambda x, y: ground_height(world, x, y)


def describe(world) -> str:
    """The features of a random world that can matter (for a report)."""
    moving = [b.name or f"box {i}" for i, b in enumerate(world.boxes) if b.kinematic]
    normals = [tuple(round(x, 2) for x in p.normal) for p in world.planes]
    return (f"gravity {world.gravity:.3g}, plane normals {normals}, moving boxes {moving}, "
            f"mu {[round(sf.mu, 2) for sf in world.surfaces]} (saved to the temp folder as fuzz-world<k>.json)")
