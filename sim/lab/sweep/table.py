"""A sweep's table: one row per variant, keyed by its parameter values; written as `results.csv` (names,
then units, as the drives' logs) and `results.parquet` (units in each field's metadata, pyarrow), every
write atomic (a temp file, then a rename). `sweep.json` beside them records what the rows belong to (the
car, the drives, the parameters, the figures and their units), so that a rerun resumes the same sweep and
refuses to mix in another's.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from pathlib import Path

import numpy as np

from sim.model.files import ConfigError
from sim.model.files import atomic_write_bytes
from sim.model.params import Vehicle

META = "sweep.json"
CSV = "results.csv"
PARQUET = "results.parquet"


def fingerprint(car: Vehicle) -> str:
    """A hash of every parameter of the car (not its name or file): another car is another sweep."""
    import dataclasses
    fields = {f.name: getattr(car, f.name) for f in dataclasses.fields(car) if f.name not in ("name", "source")}
    return hashlib.sha256(repr(fields).encode()).hexdigest()[:16]


def text(value) -> str:
    """A cell: a float as its shortest round-trip repr (the CSV gives back the same bits), "" for none."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


class Table:
    """The rows of a sweep in `out`: `paths` (varied parameters) with `param_units`, `figures` ("drive/figure")
    with `figure_units`; rows by key (the tuple of parameter values)."""

    def __init__(self, out: Path, paths: list[str], param_units: list[str], figures: list[str],
                 figure_units: list[str]):
        self.out = Path(out)
        self.paths, self.param_units = list(paths), list(param_units)
        self.figures, self.figure_units = list(figures), list(figure_units)
        self.rows: dict[tuple[float, ...], dict] = {}

    @property
    def columns(self) -> list[str]:
        return ["variant"] + self.paths + self.figures + ["status", "error"]

    @property
    def units(self) -> list[str]:
        return ["-"] + self.param_units + self.figure_units + ["-", "-"]

    def key(self, row: dict) -> tuple[float, ...]:
        return tuple(float(row[p]) for p in self.paths)

    def add(self, rows: list[dict]) -> None:
        for r in rows:
            self.rows[self.key(r)] = r

    def ordered(self) -> list[dict]:
        """The rows by variant id."""
        return sorted(self.rows.values(), key=lambda r: r["variant"])

    def column(self, name: str, ok_only: bool = True) -> np.ndarray:
        rows = [r for r in self.ordered() if not ok_only or r["status"] == "ok"]
        return np.array([float(r.get(name, math.nan)) for r in rows])

    # ---- files
    def csv_bytes(self) -> bytes:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        w.writerow(self.units)
        for r in self.ordered():
            w.writerow([text(r.get(c)) for c in self.columns])
        return buf.getvalue().encode()

    def write(self, parquet: bool = True) -> None:
        """results.csv (and results.parquet where pyarrow is installed), each atomically."""
        atomic_write_bytes(self.out / CSV, self.csv_bytes())
        if parquet:
            write_parquet(self, self.out / PARQUET)

    def read(self) -> int:
        """The rows of an earlier run's results.csv (none without one); returns how many. A row cut short
        (a run killed mid-write cannot leave one, but an edited file can) is left out."""
        path = self.out / CSV
        if not path.exists():
            return 0
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                lines = list(csv.reader(fh))
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise ConfigError(f"{path}: cannot read the earlier results: {exc}") from None
        if len(lines) < 2 or lines[0] != self.columns:
            raise ConfigError(f"{path}: its columns are not this sweep's; use another --out or delete the folder")
        for cells in lines[2:]:
            if len(cells) != len(self.columns):
                continue
            row = dict(zip(self.columns, cells))
            try:
                for c in self.paths + self.figures:
                    row[c] = float(row[c]) if row[c] != "" else None
            except ValueError:
                continue
            for c in self.figures:
                if row[c] is None:
                    del row[c]
            self.rows[self.key(row)] = row
        return len(self.rows)


def write_parquet(t: Table, path: Path) -> bool:
    """The table as Parquet, each column's unit in its field metadata ("unit"); False without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    rows = t.ordered()
    arrays, fields = [], []
    for name, unit in zip(t.columns, t.units):
        if name in ("variant", "status", "error"):
            arrays.append(pa.array([str(r.get(name, "")) for r in rows], pa.string()))
            fields.append(pa.field(name, pa.string(), metadata={"unit": unit}))
        else:
            values = [r.get(name) for r in rows]
            arrays.append(pa.array([math.nan if v is None else float(v) for v in values], pa.float64(),
                                   mask=np.array([v is None for v in values], dtype=bool)))
            fields.append(pa.field(name, pa.float64(), metadata={"unit": unit}))
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_arrays(arrays, schema=pa.schema(fields)), sink, compression="zstd")
    atomic_write_bytes(path, sink.getvalue().to_pybytes())
    return True


def write_meta(out: Path, meta: dict) -> None:
    atomic_write_bytes(Path(out) / META, (json.dumps(meta, indent=1) + "\n").encode())


def read_meta(out: Path) -> dict | None:
    path = Path(out) / META
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the earlier sweep's record: {exc}") from None


def same_sweep(old: dict, new: dict, where: str) -> None:
    """ConfigError in one line when the folder holds another sweep's rows (another car, other drives or
    other parameters); a grid or draws changed over the same parameters resumes (rows found again are kept)."""
    for key, what in (("fingerprint", "car"), ("drives", "drives"), ("parameters", "parameters")):
        if old.get(key) != new.get(key):
            shown = "the parameters differ" if key == "fingerprint" else f"{old.get(key)} there, {new.get(key)} now"
            raise ConfigError(f"{where}: holds the results of another sweep ({what}: {shown}); use another --out "
                              f"or delete the folder")
