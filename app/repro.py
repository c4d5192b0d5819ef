"""A blow-up's reproduction (`python -m app.repro FOLDER`): when the watchdog stops the app, the session saves
the state some seconds before it and every control row from there to the step that blew up, with the world
and the step, in `<data dir>/blowups/<vehicle>-<time>/` (repro.pkl, and vehicle.toml to read or load). The
replay restores that state in a fresh Simulation and runs the same rows: bit for bit the same physics, so
the same blow-up, named the same way, for a bug report."""
from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path

import numpy as np

import sim
from sim.lab.exit_codes import Exit
from sim.model.files import data_dir

SECONDS_BACK = 10.0       # s: how much of the run before the blow-up a reproduction keeps


def save(s: sim.Simulation, start: sim.Snapshot, rows: list[np.ndarray], message: str,
         root: Path | None = None) -> Path:
    """Write the reproduction of a blow-up: from `start`, the control rows `rows` (the last the one that blew
    up) in the world and at the step of `s`. Returns its folder."""
    name = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in start.params[0].name) or "vehicle"
    folder = (root or data_dir() / "blowups") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    folder.mkdir(parents=True, exist_ok=True)
    bundle = {"format": "contactpatch-blowup-1", "message": message, "world": s.world, "dt": s.dt,
              "substeps": s.substeps, "check_stability": s.check_stability, "start": start,
              "controls": np.array(rows)}
    tmp = folder / "repro.pkl.tmp"
    tmp.write_bytes(pickle.dumps(bundle))
    tmp.replace(folder / "repro.pkl")
    sim.save_vehicle(start.params[0], folder / "vehicle.toml")
    return folder


def replay(folder: Path) -> tuple[str, float]:
    """Run a saved reproduction again: (the watchdog's message, the time it blew up at), or ("", the end time)
    when it did not blow up. ConfigError when the folder holds no reproduction."""
    path = Path(folder) / "repro.pkl"
    try:
        bundle = pickle.loads(path.read_bytes())
        assert bundle["format"] == "contactpatch-blowup-1"
    except Exception as exc:
        raise sim.ConfigError(f"{path}: not a blow-up reproduction this version wrote ({type(exc).__name__})") from None
    start = bundle["start"]
    s = sim.Simulation(list(start.params), bundle["world"], dt=bundle["dt"], substeps=bundle["substeps"],
                       n_vehicles=len(start.params), watchdog="raise", check_stability=bundle["check_stability"])
    s.restore(start)
    try:
        for row in bundle["controls"]:
            s.run(row[np.newaxis])
    except sim.BlowUp as exc:
        return str(exc), s.time
    return "", s.time


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m app.repro FOLDER (a folder under <data dir>/blowups/)", file=sys.stderr)
        return Exit.BAD_INPUT
    try:
        message, t = replay(Path(args[0]))
    except sim.ConfigError as exc:
        print(f"contactpatch repro: {exc}", file=sys.stderr)
        return Exit.BAD_INPUT
    if not message:
        print(f"contactpatch repro: ran to t = {t:.3f} s without a blow-up (a different machine or version?)")
        return Exit.OK
    print(f"contactpatch repro: reproduced at t = {t:.3f} s: {message}")
    return Exit.BLEW_UP


if __name__ == "__main__":
    sys.exit(main())
