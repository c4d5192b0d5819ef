"""Fuzzing the two edges where users push hardest: files and parameters. `python -m app.fuzz`

    python -m app.fuzz files  [--n 1000] [--seed 1]   malformed vehicle, world, bindings, trace and layout files
    python -m app.fuzz params [--n 2000] [--seed 1]   random in-range parameter sets, 10 s of aggressive
                                                      random driving each on the proving ground

Both print counts. `files` counts how each mutated file was answered: loaded, refused with a one-line
message naming the file, or (a failure) anything else. `params` counts the sets refused up front (by a
range, a cross-field rule or the stability advisor, each with a message naming the parameter), the runs
that stayed physical, the blow-ups (a speed above MAX_SPEED or anything higher than MAX_HEIGHT) and
the runs the watchdog flagged otherwise (mostly energy gained beyond the engine's power), each also
counted among the cars that use the seed's literal suspension.force_along = "axis" on an axle: its
in-plane push is not limited by friction and feeds energy in by construction (the advisor notes it, the
watchdog names it). With force_along = "normal" the blow-ups must be 0. The tests run small seeded samples of
both (tests/test_robust.py).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import tempfile
from pathlib import Path

import numpy as np

import sim
from app.input import load_bindings
from app.session import Trace
from app.session import ground_height
from config import CONFIG_DIR
from sim.model import params as P
from ui import layout

LAYOUT = ("[Window][Tuning]\nPos=10,120\nSize=400,450\nCollapsed=0\n\n[Window][Telemetry]\nPos=860,30\n"
          "Size=410,300\nCollapsed=0\n\n[Docking][Data]\nDockSpace ID=0x8B93E3BD Window=0xA787BDB4 Pos=0,0 "
          "Size=1280,720\n")
MAX_SPEED = 120.0          # m/s: no car here goes faster
MAX_HEIGHT = 21.25         # m: 20 m above the proving ground's highest point (the 1.25 m ramp lip)
DT = 1.0 / 240.0
SUBSTEPS = 8               # finer than the app's 2 (app/__main__.py DEFAULT_SUBSTEPS)


# ------------------------------------------------------------------------------------------------------
# Files

def sources() -> dict[str, tuple[str, callable]]:
    """kind -> (a good file's text, the loader the app uses)."""
    trace = json.dumps({"format": "contactpatch-trace-2", "dt": DT, "substeps": SUBSTEPS, "vehicle": "hatchback",
                        "world": "flat", "columns": list(sim.CONTROL_COLUMNS) + ["reset"],
                        "steps": [[0.5, 0.0, 0.1, 0.0, 0.0, 0.0, 100.0, 1.0, 0.0, 0.0]] * 3}, indent=1)
    return {
        "vehicle": ((CONFIG_DIR / "vehicles" / "hatchback.toml").read_text(), sim.load_vehicle),
        "world": ((CONFIG_DIR / "worlds" / "proving_ground.toml").read_text(), sim.load_world),
        "bindings": ((CONFIG_DIR / "bindings.toml").read_text(), load_bindings),
        "trace": (trace, Trace.load),
        "layout": (LAYOUT, layout.read),
    }


def mutate(text: str, rng: random.Random) -> bytes:
    """One random, structure-aware corruption of a text file."""
    lines = text.splitlines(keepends=True)
    numbers = [m for m in re.finditer(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?(?![\w.])", text)]
    kind = rng.randrange(14)
    if kind == 0 and text:                                   # cut short anywhere
        return text[:rng.randrange(len(text))].encode()
    if kind == 1 and lines:                                  # cut at a line
        return "".join(lines[:rng.randrange(len(lines))]).encode()
    if kind == 2:                                            # a byte that is not UTF-8
        data = bytearray(text.encode())
        data.insert(rng.randrange(len(data) + 1), rng.choice([0xB0, 0xFF, 0xC3, 0x80, 0xE9]))
        return bytes(data)
    if kind == 3 and numbers:                                # a number becomes something else
        m = rng.choice(numbers)
        new = rng.choice(["1" + "0" * 400, "-1e400", "nan", "inf", '"0.5"', "true", "[1, 2]", "{}", "[]", "-0",
                          "1e-320", "0", "-5", "99999999999", "1.5", "[[1]]", "null"])
        return (text[:m.start()] + new + text[m.end():]).encode()
    if kind == 4 and lines:                                  # a line removed
        i = rng.randrange(len(lines))
        return "".join(lines[:i] + lines[i + 1:]).encode()
    if kind == 5 and lines:                                  # a line doubled
        i = rng.randrange(len(lines))
        return "".join(lines[:i + 1] + lines[i:]).encode()
    if kind == 6:                                            # a table header turned into an array of tables
        return re.sub(r"^\[(\w+)\]", r"[[\1]]", text, count=1, flags=re.M).encode()
    if kind == 7:                                            # an empty table or list
        return re.sub(r"^\[(\w+)\]\n(?:[^\[\n].*\n)*", r"[\1]\n", text, count=1, flags=re.M).encode()
    if kind == 8:                                            # deep nesting
        depth = rng.choice([50, 500, 5000])
        return (text + "\nx = " + "[" * depth + "1" + "]" * depth + "\n").encode()
    if kind == 9 and text:                                   # random bytes flipped
        data = bytearray(text.encode())
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 10:                                           # a key's value replaced by a wrong type
        return re.sub(r"^(\w+) = .*$", lambda m: f"{m.group(1)} = {rng.choice(['[1, 2]', '{a = 1}', 'true', '5'])}",
                      text, count=1, flags=re.M).encode()
    if kind == 11:                                           # whole file replaced
        return rng.choice([b"", b"\x00\x01\x02", b"[", b"{", b"5", b"[[x]]\n", b"a = 1\n",
                           "\u00b0C\n".encode("latin-1"), b'{"format": "contactpatch-trace-2"}', b"[]"])
    if kind == 12 and numbers:                               # a big heightfield or many numbers
        return (text + "\n[[heightfield]]\nsurface = \"asphalt\"\nsize = [9000.0, 9000.0]\nspacing = 0.01\n"
                ).encode()
    if kind == 13:                                           # a key renamed
        return re.sub(r"^(\w+) =", lambda m: f"{m.group(1)}x =", text, count=1, flags=re.M).encode()
    return text.encode()


def fuzz_files(n: int, seed: int, folder: Path | None = None, verbose: bool = False) -> dict[str, int]:
    """Mutate the five kinds of files n times in all; count loaded / refused / failed. A refusal must be a
    sim.ConfigError whose message is one line naming the file."""
    rng = random.Random(seed)
    counts = {"loaded": 0, "refused": 0, "failed": 0}
    kinds = sources()
    names = list(kinds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(folder or tmp)
        for k in range(n):
            kind = names[k % len(names)]
            text, loader = kinds[kind]
            data = mutate(text, rng)
            path = folder / f"fuzz{k}.{ {'trace': 'json', 'layout': 'ini'}.get(kind, 'toml')}"
            path.write_bytes(data)
            try:
                loader(path)
                counts["loaded"] += 1
            except sim.ConfigError as exc:
                msg = str(exc)
                if "\n" in msg or str(path) not in msg:
                    counts["failed"] += 1
                    if verbose:
                        print(f"bad message for {kind} #{k}: {msg!r}")
                else:
                    counts["refused"] += 1
            except Exception as exc:                       # a traceback the user would have seen
                counts["failed"] += 1
                if verbose:
                    print(f"{kind} #{k}: {type(exc).__name__}: {exc}")
    return counts


# ------------------------------------------------------------------------------------------------------
# Parameters

def random_vehicle(rng: np.random.Generator) -> sim.Vehicle:
    """Every numeric parameter drawn uniformly in its declared range and every choice at random, then the
    pairs that cross-field rules order put in order (l_min < l0 <= l_max, rear axle < centre of mass <
    front axle, idle < redline, shift down < shift up <= redline), so that what is tested is the
    stability advisor, not the ordering rules (curves and the name kept)."""
    groups = {}
    base = sim.Vehicle()
    for gname, gtype in P.GROUP_TYPES.items():
        values = {}
        for f in dataclasses.fields(gtype):
            m = f.metadata
            if m["kind"] == "num":
                values[f.name] = float(rng.uniform(m["lo"], m["hi"]))
            elif m["kind"] == "text":
                values[f.name] = str(rng.choice(m["choices"]))
        groups[gname] = dataclasses.replace(getattr(base, gname), **values)
    for axle in ("front_suspension", "rear_suspension"):
        lo, mid, hi = sorted(rng.uniform(0.01, 3.0, 3))
        groups[axle] = dataclasses.replace(groups[axle], l_min=float(lo), l0=float(mid), l_max=float(hi))
    rear, front = sorted(rng.uniform(-5.0, 5.0, 2))
    groups["front_axle"] = dataclasses.replace(groups["front_axle"], x=float(front))
    groups["rear_axle"] = dataclasses.replace(groups["rear_axle"], x=float(rear))
    groups["chassis"] = dataclasses.replace(groups["chassis"], com_x=float(rng.uniform(rear, front)))
    idle, redline = sorted(rng.uniform(500.0, 5000.0, 2))
    down, up = sorted(rng.uniform(0.0, redline, 2))
    groups["engine"] = dataclasses.replace(groups["engine"], idle_rpm=float(idle), redline_rpm=float(redline))
    groups["gearbox"] = dataclasses.replace(groups["gearbox"], shift_down_rpm=float(down),
                                            shift_up_rpm=float(max(up, 500.0)))
    return dataclasses.replace(base, name="random", **groups)


def driving(rng: np.random.Generator, steps: int, n: int) -> np.ndarray:
    """Aggressive random driving (steps, n, 9): pedals, steering and handbrake jumping every 0.25-1 s, shift
    requests now and then, aids at random."""
    out = np.zeros((steps, n, 9))
    out[..., 6] = sim.NO_GEAR
    for v in range(n):
        k = 0
        while k < steps:
            length = int(rng.uniform(0.25, 1.0) / DT)
            out[k:k + length, v, 0] = rng.choice([0.0, 0.5, 1.0, 1.0])
            out[k:k + length, v, 1] = rng.choice([0.0, 0.0, 0.5, 1.0])
            out[k:k + length, v, 2] = rng.uniform(-1.0, 1.0)
            out[k:k + length, v, 3] = rng.choice([0.0, 0.0, 0.0, 1.0])
            out[k, v, 5] = rng.choice([0, 0, 0, 1, -1])
            out[k:k + length, v, 7] = rng.choice([0.0, 1.0])
            out[k:k + length, v, 8] = rng.choice([0.0, 1.0])
            k += length
    return out


def fuzz_params(n: int, seed: int, seconds: float = 10.0, batch: int = 250, verbose: bool = False) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    world = sim.load_world("proving_ground")
    counts = {"refused_by_rules": 0, "refused_by_advisor": 0, "physical": 0, "blown_up": 0,
              "blown_up_axis_mode": 0, "watchdog_flagged": 0, "flagged_axis_mode": 0}
    cars = []
    for _ in range(n):
        car = random_vehicle(rng)
        try:
            sim.validate(car, "random")
        except sim.ConfigError:
            counts["refused_by_rules"] += 1
            continue
        try:
            sim.advisor.check(car, DT, SUBSTEPS)
        except sim.ConfigError:
            counts["refused_by_advisor"] += 1
            continue
        cars.append(car)
    steps = int(round(seconds / DT))
    for start in range(0, len(cars), batch):
        group = cars[start:start + batch]
        s = sim.Simulation(group, world, dt=DT, substeps=SUBSTEPS, n_vehicles=len(group), watchdog="flag")
        xy = rng.uniform(-40.0, 100.0, (len(group), 2))
        z = [ground_height(world, x, y) + sim.rest_com_height(car) for (x, y), car in zip(xy, group)]
        s.reset(position=np.column_stack([xy, z]), yaw=rng.uniform(0, 2 * np.pi, len(group)))
        top_speed = np.zeros(len(group))
        top_z = np.full(len(group), -np.inf)
        trace = driving(rng, steps, len(group))
        for k in range(0, steps, 24):
            s.run(trace[k:k + 24])
            with np.errstate(invalid="ignore"):
                speed = np.linalg.norm(s.state.velocity, axis=-1)
                z = np.asarray(s.state.position)[..., 2]
                top_speed = np.fmax(top_speed, np.where(np.isfinite(speed), speed, np.inf))
                top_z = np.fmax(top_z, np.where(np.isfinite(z), z, np.inf))
        bad = (top_speed > MAX_SPEED) | (top_z > MAX_HEIGHT)
        flagged = np.array([bool(h) for h in s.health]) & ~bad
        axis = np.array(["axis" in (c.front_suspension.force_along, c.rear_suspension.force_along) for c in group])
        counts["blown_up"] += int(bad.sum())
        counts["blown_up_axis_mode"] += int((bad & axis).sum())
        counts["watchdog_flagged"] += int(flagged.sum())
        counts["flagged_axis_mode"] += int((flagged & axis).sum())
        counts["physical"] += int((~bad & ~flagged).sum())
        if verbose:
            for v in np.nonzero(bad | flagged)[0]:
                r = sim.advisor.report(group[v], DT, SUBSTEPS)
                print(f"{'blow-up' if bad[v] else 'flagged'}: speed {top_speed[v]:.0f} m/s, height {top_z[v]:.0f} m; "
                      f"{s.health[v] or '-'}; worst part {r.worst.part} ({r.worst.margin:.2f}); force_along "
                      f"{group[v].front_suspension.force_along}/{group[v].rear_suspension.force_along}")
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("files", "params"))
    ap.add_argument("--n", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.what == "files":
        counts = fuzz_files(args.n or 1000, args.seed, verbose=args.verbose)
    else:
        counts = fuzz_params(args.n or 2000, args.seed, verbose=args.verbose)
    print(" ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
