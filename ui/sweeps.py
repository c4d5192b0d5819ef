"""The Sweeps panel's model, free of ImGui: a sweep's results folder read back (results.csv through the
sweep's own reader, sim.lab.sweep.table.Table, and sweep.json for the car it varied), its rows sorted by
any column, each figure's sensitivity to each parameter (sim.lab.sweep.summary.slopes, as summary.md
gives it), the folders opened lately, and "drive this variant": the sweep's car with a row's parameter
values, loaded into the tuning as the Tuning panel edits it (ui/tuning.py).

Anything wrong with a folder (not a sweep's, a damaged table) is a one-line ConfigError, never a traceback.
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import numpy as np

import sim
from sim.lab.sweep import CSV
from sim.lab.sweep import META
from sim.lab.sweep import Table
from sim.lab.sweep import fingerprint
from sim.lab.sweep import load_sweep
from sim.lab.sweep import read_meta
from sim.lab.sweep import slopes
from sim.lab.sweep import spans
from sim.model.files import ConfigError
from sim.model.files import atomic_write_bytes
from sim.model.files import data_dir

RECENT_FILE = "sweeps.json"      # in the app's data folder: the folders opened lately, newest first
RECENT_MAX = 8
FIXED = ("variant", "status", "error")


def cell_text(value) -> str:
    """A table cell as the panel shows it: a number to 6 significant digits, "" for none."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.6g}"
    return str(value)


def unit_label(name: str, unit: str) -> str:
    """A name with its unit as the panels show it: "chassis.mass (kg)"; no unit for "-" (a ratio) or none."""
    return name if unit in ("", "-") else f"{name} ({unit})"


@dataclass
class SweepFolder:
    """A sweep's results read back: its table (`table.paths`, `.figures`, their units), the rows in
    variant order, each cell's text, the car it varied (None when it cannot be found: `car_note` says
    why) and the PNGs beside it."""
    folder: Path
    table: Table
    meta: dict
    rows: list[dict]
    skipped: int                                   # rows of the file left out (cut short or not numbers)
    car: sim.Vehicle | None
    car_source: str                                # what tuning.load takes to load the car ("": none)
    car_note: str
    plots: list[Path] = field(default_factory=list)
    cells: list[list[str]] = field(default_factory=list)
    _sens: dict = field(default_factory=dict)           # what is worked out once: sensitivities, columns

    @property
    def columns(self) -> list[str]:
        return ["variant"] + self.table.paths + self.table.figures + ["status"]

    @property
    def units(self) -> list[str]:
        return ["-"] + self.table.param_units + self.table.figure_units + ["-"]

    def failed(self, i: int) -> bool:
        return self.rows[i]["status"] != "ok"

    @property
    def info(self) -> str:
        """What the sweep is, in a line: the car, the drives, the rows ok and failed."""
        if "info" not in self._sens:
            failed = int(self.failed_rows.sum())
            car = self.car.name if self.car is not None else self.meta.get("vehicle", "?")
            drives = ", ".join(self.meta.get("drives", [])) or \
                ", ".join(sorted({f.split("/")[0] for f in self.table.figures}))
            self._sens["info"] = f"{car}: {drives}; {len(self.rows)} variants, {len(self.rows) - failed} ok, " \
                                 f"{failed} failed"
        return self._sens["info"]

    @property
    def failed_rows(self) -> np.ndarray:
        """Which rows failed (a bool per row), worked out once."""
        if "failed" not in self._sens:
            self._sens["failed"] = np.array([r["status"] != "ok" for r in self.rows], dtype=bool)
        return self._sens["failed"]

    def values(self, column: str) -> np.ndarray:
        """A numeric column, row by row (nan where a row has no value), worked out once."""
        key = ("values", column)
        if key not in self._sens:
            out = np.full(len(self.rows), math.nan)
            for i, r in enumerate(self.rows):
                v = r.get(column)
                if isinstance(v, float):
                    out[i] = v
            self._sens[key] = out
        return self._sens[key]

    def order(self, column: int, descending: bool = False) -> list[int]:
        """The rows' indices sorted by column `column` (an index of `columns`): numbers by value, text by
        text; rows without a value last either way; ties keep the variant order."""
        name = self.columns[column]
        if name in FIXED:
            keys = [str(r.get(name, "")) for r in self.rows]
            idx = sorted(range(len(self.rows)), key=lambda i: keys[i], reverse=descending)
            return idx
        v = self.values(name)
        finite = np.flatnonzero(np.isfinite(v))
        ranked = finite[np.argsort(-v[finite] if descending else v[finite], kind="stable")]
        return [int(i) for i in ranked] + [int(i) for i in np.flatnonzero(~np.isfinite(v))]

    def series(self, path: str, most: int = 8) -> tuple[list[tuple[str, np.ndarray]] | None, str]:
        """The rows by the values of the other parameters, for a line per combination against `path` (a grid),
        labelled by those values, and what the labels name; (None, "") when there are none or more than `most`
        combinations (random draws). Worked out once per parameter."""
        key = ("series", path)
        if key not in self._sens:
            others = [p for p in self.table.paths if p != path]
            groups: dict[tuple, list[int]] = {}
            for i, r in enumerate(self.rows):
                groups.setdefault(tuple(r[p] for p in others), []).append(i)
            if not others or not 2 <= len(groups) <= most:
                self._sens[key] = (None, "")
            else:
                units = [u for p, u in zip(self.table.paths, self.table.param_units) if p != path]
                lines = [(", ".join(f"{v:.6g}" for v in k), np.array(rows)) for k, rows in sorted(groups.items())]
                self._sens[key] = (lines, ", ".join(unit_label(p, u) for p, u in zip(others, units)))
        return self._sens[key]

    def sensitivity(self, figure: str) -> tuple[np.ndarray, np.ndarray, int]:
        """`figure`'s least-squares slope on each parameter (per unit), the change per 10 % of each
        parameter's swept range, and the rows used (summary.md's sensitivity table); worked out once."""
        if figure not in self._sens:
            s, n = slopes(self.table, figure)
            self._sens[figure] = (s, s * 0.1 * spans(self.table), n)
        return self._sens[figure]


def header(path: Path) -> tuple[list[str], list[str]]:
    """The column names and units of a results.csv (its first two rows)."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            names, units = next(reader, None), next(reader, None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    if not names or not units or len(names) != len(units) or names[:1] != ["variant"] \
            or names[-2:] != ["status", "error"]:
        raise ConfigError(f"{path}: not a sweep's table (expected the columns variant, the parameters, the "
                          f"figures, status, error, and their units in the second row)")
    return names, units


def base_car(meta: dict, folder: Path) -> tuple[sim.Vehicle | None, str, str]:
    """The car the sweep varied: the sweep file's vehicle (as `contactpatch sweep` loaded it), else the preset
    of the car's name, whichever has the parameters the sweep recorded (sweep.json's fingerprint). Returns
    (car, what tuning.load takes for it, "" or why it was not found)."""
    tried = []
    spec_path = meta.get("sweep file")
    if spec_path:
        p = Path(spec_path)
        tried.append(p if p.is_absolute() else folder / p)
        tried.append(p)
    candidates = []
    for p in tried:
        try:
            candidates.append(load_sweep(p).vehicle)
            break
        except (ConfigError, OSError):
            continue
    if meta.get("vehicle"):
        candidates.append(str(meta["vehicle"]))
    for name in candidates:
        try:
            car = sim.load_vehicle(name)
        except (ConfigError, OSError):
            continue
        if "fingerprint" not in meta or fingerprint(car) == meta["fingerprint"]:
            return car, name, ""
    return None, "", (f"the sweep's car ({meta.get('vehicle', '?')}) was not found with the parameters it had; "
                      f"a variant is driven as the loaded car with the row's values")


def open_folder(path: str | Path) -> SweepFolder:
    """Read a sweep's results folder (or its results.csv); ConfigError in one line if it is not one."""
    folder = Path(str(path).strip()).expanduser()
    if folder.name == CSV and folder.is_file():
        folder = folder.parent
    if not str(path).strip():
        raise ConfigError("no folder given: type a sweep's output folder (contactpatch sweep FILE --out DIR)")
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such folder")
    if not (folder / CSV).is_file():
        raise ConfigError(f"{folder}: not a sweep's results folder (no {CSV}; contactpatch sweep FILE --out DIR "
                          f"writes one)")
    names, units = header(folder / CSV)
    meta = read_meta(folder) or {}
    if not isinstance(meta, dict):
        raise ConfigError(f"{folder / META}: not a sweep's record")
    figures = [c for c in names[1:-2] if "/" in c]
    paths = [c for c in names[1:-2] if "/" not in c]
    if not paths or not figures or names[1:-2] != paths + figures:
        raise ConfigError(f"{folder / CSV}: not a sweep's table (the parameter columns, then the drive/figure ones)")
    table = Table(folder, paths, units[1:1 + len(paths)], figures, units[1 + len(paths):-2])
    try:
        table.read()
        with open(folder / CSV, newline="", encoding="utf-8") as fh:
            lines = sum(1 for _ in csv.reader(fh)) - 2
    except (ConfigError, OSError, csv.Error, UnicodeDecodeError) as exc:
        raise ConfigError(str(exc).splitlines()[0] if str(exc) else f"{folder / CSV}: cannot read it") from None
    rows = table.ordered()
    for r in rows:
        for f in figures:
            r.setdefault(f, None)
    car, source, note = base_car(meta, folder)
    out = SweepFolder(folder, table, meta, rows, max(0, lines - len(rows)), car, source, note,
                      sorted(folder.glob("*.png")))
    out.cells = [[cell_text(r.get(c)) for c in out.columns] for r in rows]
    return out


def drive_variant(tuning, sweep: SweepFolder, row: dict) -> str:
    """Make the car as tuned the sweep's car with `row`'s parameter values: the sweep's car is loaded as
    the preset (the reference for the changed marks) unless it is the one loaded already, then each value
    is applied as a Tuning panel edit. Returns what happened, in one line."""
    if sweep.car is not None and sweep.car != tuning.baseline:
        if not tuning.load(sweep.car_source):
            return tuning.status
    else:
        tuning.revert()
    refused = [f"{p}: {why}" for p in sweep.table.paths
               if (why := tuning.apply(p, float(row[p]))) is not None]
    what = f"{row['variant']} loaded" + ("" if not sweep.car_note else " on the loaded car")
    if refused:
        return f"{what}, but refused {'; '.join(refused)}"
    return f"{what}: {', '.join(f'{p} = {float(row[p]):.6g}' for p in sweep.table.paths)}"


# ---- the folders opened lately
def recent_folders() -> list[str]:
    """The sweep folders opened lately, newest first (from the app's data folder; [] if none or unreadable)."""
    try:
        data = json.loads((data_dir() / RECENT_FILE).read_text(encoding="utf-8"))
        return [str(p) for p in data.get("recent", []) if isinstance(p, str)][:RECENT_MAX]
    except (OSError, ValueError, AttributeError):
        return []


def remember(folder: str | Path) -> list[str]:
    """Put `folder` first in the recent list and save it; returns the new list (saving is best effort)."""
    folder = str(Path(folder).expanduser().resolve())
    recent = [folder] + [p for p in recent_folders() if p != folder]
    recent = recent[:RECENT_MAX]
    try:
        data_dir().mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(data_dir() / RECENT_FILE, (json.dumps({"recent": recent}, indent=1) + "\n").encode())
    except OSError:
        pass
    return recent


def sweep_folders_in(folder: Path, most: int = 20) -> list[str]:
    """The sweep output folders directly inside `folder` (those with a sweep.json and a results.csv)."""
    try:
        found = [p for p in folder.iterdir() if (p / META).is_file() and (p / CSV).is_file()]
    except OSError:
        return []
    return [str(p) for p in sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)[:most]]
