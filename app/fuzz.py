"""Fuzzing the two edges where users push hardest: files and parameters. `python -m app.fuzz`

    python -m app.fuzz files  [--n 1000] [--seed 1]   malformed vehicle, world, bindings, trace and layout files
    python -m app.fuzz params [--n 2000] [--seed 1] [--substeps 2] [--spawn-speed 0]   random parameter sets, judged
                    by the rules and the advisor, each driven 10 s (refused ones too) on two worlds (app/fuzz_params.py)
    python -m app.fuzz worlds [--n 300] [--seed 1]   the proving ground with its numbers drawn again, the
                    hatchback driven 10 s from each spawn of every world the loader accepts (app/fuzz_worlds.py)

`files` counts how each mutated file was answered: loaded, refused with a one-line message naming the
file, or (a failure) anything else. `params` prints, per world, the sets refused by the rules, refused by
the advisor (and how many of those blew up when run anyway, by reason) and accepted (and how many of those
blew up). The tests run small seeded samples of both (tests/test_robust.py).
"""
from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from pathlib import Path

import sim
from app import fuzz_params
from app import fuzz_worlds
from app.input import load_bindings
from app.session import Trace
from config import CONFIG_DIR
from ui import layout

LAYOUT = ("[Window][Tuning]\nPos=10,120\nSize=400,450\nCollapsed=0\n\n[Window][Telemetry]\nPos=860,30\n"
          "Size=410,300\nCollapsed=0\n\n[Docking][Data]\nDockSpace ID=0x8B93E3BD Window=0xA787BDB4 Pos=0,0 "
          "Size=1280,720\n")
MAX_SPEED = 120.0          # m/s: no car here goes faster
MAX_HEIGHT = 21.25         # m: 20 m above the proving ground's highest point (the 1.25 m ramp lip)
DT = 1.0 / 240.0
SUBSTEPS = 8               # finer than the app's sim.DEFAULT_SUBSTEPS (2)


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("files", "params", "worlds"))
    ap.add_argument("--n", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--substeps", type=int, default=sim.DEFAULT_SUBSTEPS,
                    help="params: substeps per step (the app's sim.DEFAULT_SUBSTEPS)")
    ap.add_argument("--seconds", type=float, default=10.0, help="params: seconds of random driving a set")
    ap.add_argument("--spawn-speed", type=float, default=0.0, metavar="M/S",
                    help=f"params: start each car at a random speed up to this (0: at rest; "
                    f"{fuzz_params.SPAWN_SPEED:g} exercises the tires of cars whose engines cannot move them)")
    ap.add_argument("--world", action="append", metavar="NAME",
                    help=f"params: a world to drive on (repeat for more; default: {' and '.join(fuzz_params.WORLDS)})")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.what == "files":
        counts = fuzz_files(args.n or 1000, args.seed, verbose=args.verbose)
        print(" ".join(f"{k} {v}" for k, v in counts.items()))
    elif args.what == "worlds":
        print(fuzz_worlds.fuzz_worlds(args.n or 300, args.seed, seconds=args.seconds, verbose=args.verbose).line())
    else:
        for name in args.world or ():
            try:
                sim.load_world(name)
            except sim.ConfigError as exc:
                ap.error(str(exc))
        results = fuzz_params.fuzz_params(args.n or 2000, args.seed, seconds=args.seconds, substeps=args.substeps,
                                          verbose=args.verbose, spawn_speed=args.spawn_speed,
                                          worlds=tuple(args.world or fuzz_params.WORLDS))
        print("\n".join(fuzz_params.report_lines(results)))


if __name__ == "__main__":
    main()
