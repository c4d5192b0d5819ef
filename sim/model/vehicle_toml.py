"""Vehicle files: loading a preset or a TOML file into a checked Vehicle (`load_vehicle`; a file may start
from another with `base = ...`), listing the built-in and the user's presets, and saving (`save_vehicle`:
the file it came from with only the changed values replaced, or a fresh file with every key's unit,
description and range as a comment; written atomically)."""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass
from dataclasses import fields
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from config import CONFIG_DIR
from sim.model.checks import check_consistency
from sim.model.checks import check_value
from sim.model.checks import validate
from sim.model.files import ConfigError
from sim.model.files import atomic_write_bytes
from sim.model.files import build
from sim.model.files import data_dir
from sim.model.files import read_text
from sim.model.files import read_toml
from sim.model.files import resolve_preset
from sim.model.files import show
from sim.model.files import table
from sim.model.params import GROUP_TYPES
from sim.model.params import Vehicle

PRESET_DIR = CONFIG_DIR / "vehicles"
MAX_BASE_DEPTH = 8         # a vehicle file may start from another (base = ...) at most this deep


def vehicle_from_dict(data: dict, where: str, base: Vehicle | None = None) -> Vehicle:
    """Build a Vehicle from a TOML-shaped dict. Unknown tables and keys are errors. Without a `base` every
    table and key must be there (a file cut short is an error, not a silent default); with one, the file
    changes only what it names."""
    table(where, "the file", data)
    groups: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("name", "base"):
            if not isinstance(value, str) or not value or len(value) > 200:
                raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a non-empty text")
            continue
        if key not in GROUP_TYPES:
            raise ConfigError(f"{where}: unknown table [{key}]; known tables: {', '.join(GROUP_TYPES)}")
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a table [{key}]")
        known = {f.name: f for f in fields(GROUP_TYPES[key])}
        gkw = {}
        for fname, fval in value.items():
            if fname not in known:
                raise ConfigError(f"{where}: unknown key {key}.{fname}; known keys in [{key}]: "
                                  f"{', '.join(known)}")
            gkw[fname] = check_value(known[fname], fval, where, f"{key}.{fname}")
        groups[key] = gkw
    start = base if base is not None else Vehicle()
    changed = {g: dataclasses.replace(getattr(start, g), **gkw) for g, gkw in groups.items()}
    v = dataclasses.replace(start, **changed)
    if isinstance(data.get("name"), str):
        v = dataclasses.replace(v, name=data["name"])
    check_consistency(v, where)
    if base is None:
        for gname, gtype in GROUP_TYPES.items():
            if gname not in groups:
                raise ConfigError(f"{where}: table [{gname}] is missing; a vehicle file names every parameter "
                                  f"(or starts from another with base = \"hatchback\")")
            missing = [f.name for f in fields(gtype) if f.name not in groups[gname] and not f.metadata.get("since")]
            if missing:
                raise ConfigError(f"{where}: [{gname}] is missing {', '.join(missing)}; a vehicle file names "
                                  f"every parameter (or starts from another with base = \"hatchback\")")
    return v


def load_base(path: Path, data: dict, _depth: int = 0) -> Vehicle | None:
    """The vehicle a file starts from (its `base = "name or path"`), or None when it names every parameter.
    A relative path is taken from the file's own folder, as a preset name from config/vehicles."""
    if not isinstance(data.get("base"), str):
        return None
    if _depth >= MAX_BASE_DEPTH:
        raise ConfigError(f"{path}: base = {show(data['base'])} is not allowed; bases nest deeper than "
                          f"{MAX_BASE_DEPTH} (a file that is its own base?)")
    ref = data["base"]
    local = path.parent / ref
    return load_vehicle(local if (ref.endswith(".toml") and local.exists()) else ref, _depth + 1)


def load_vehicle(name_or_path: str | os.PathLike = "hatchback", _depth: int = 0) -> Vehicle:
    """A preset name from config/vehicles (e.g. 'hatchback', 'boxster_s') or a path to a TOML file.

    A file names every parameter, or starts from another preset or file with `base = "name or path"`
    (a relative path is taken from the file's own folder) and changes only what it names."""
    path = resolve_preset(name_or_path, PRESET_DIR, "vehicle")
    data = read_toml(path, "vehicle")
    base = load_base(path, data, _depth)
    v = build(path, "vehicle", lambda: vehicle_from_dict(data, str(path), base))
    if "name" not in data:
        v = dataclasses.replace(v, name=path.stem)
    return dataclasses.replace(v, source=str(path))


def user_vehicle_dir() -> Path:
    """Where the user's own presets are saved and found: <data dir>/vehicles (see sim.model.files.data_dir)."""
    return data_dir() / "vehicles"


@dataclass(frozen=True)
class Preset:
    """One entry of the preset list: a built-in preset (config/vehicles) or one the user saved."""
    name: str
    path: Path
    user: bool

    @property
    def label(self) -> str:
        """How a picker shows it: the user's own presets are marked, so a saved "hatchback" is not
        mistaken for the built-in one."""
        return f"{self.name} (user)" if self.user else self.name


def vehicle_presets() -> list[Preset]:
    """The built-in presets, then the user's saved ones, each sorted by name. A user folder that does
    not exist yet, or cannot be read, adds none."""
    out = [Preset(p.stem, p, False) for p in sorted(PRESET_DIR.glob("*.toml"))]
    try:
        mine = sorted(p for p in user_vehicle_dir().glob("*.toml") if not p.name.startswith(".") and p.is_file())
    except OSError:
        mine = []
    return out + [Preset(p.stem, p, True) for p in mine]


def vehicle_to_dict(v: Vehicle) -> dict:
    out: dict[str, Any] = {"name": v.name}
    for gname in GROUP_TYPES:
        group = getattr(v, gname)
        out[gname] = {f.name: (list(getattr(group, f.name)) if isinstance(getattr(group, f.name), tuple)
                               else getattr(group, f.name)) for f in fields(group)}
    return out


def format_number(x: float) -> str:
    """A float as the file shows it: Python's shortest repr, which reads back as the same double (0.6 is
    written 0.6, 150000.0 as 150000.0, 1e-05 as 1e-05: all valid TOML floats)."""
    return repr(float(x))


def toml_value(value: Any) -> str:
    """One parameter's value as TOML text."""
    if isinstance(value, str):
        return tomlkit.string(value).as_string()
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(format_number(x) for x in value) + "]"
    return format_number(value)


SAVE_WIDTH = 110           # a fresh file's comments wrap before this column
KEEP = "\x00"              # a space at which wrap_comment does not break a line


def describe_field(f: dataclasses.Field) -> str:
    """The comment a saved file puts beside a key: unit, description and what is allowed, from the
    field's metadata (the same words the tuning panel's tooltip uses)."""
    m = f.metadata
    doc = " ".join(m["doc"].split())
    if m["kind"] == "text":
        return f"{doc}; one of " + ", ".join(f'"{c}"' for c in m["choices"])
    unit = "" if m["unit"] == "-" else f"{m['unit']}: "
    span = f"{m['lo']:g}{KEEP}to{KEEP}{m['hi']:g}"              # kept on one line when wrapped
    if m["kind"] == "num":
        return f"{unit}{doc}; {span}"
    extra = ", increasing" if m["increasing"] else ""
    return f"{unit}{doc}; {m['min_len']} to {m['max_len']} values, each {span}{extra}"


def wrap_comment(text: str, column: int) -> list[str]:
    """`text` as '# ' comment lines that start at `column` and end before SAVE_WIDTH (a long word is
    not broken)."""
    room = max(SAVE_WIDTH - column - 2, 30)
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > room:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return ["# " + x.replace(KEEP, " ") for x in lines + ([line] if line else [])]


def key_lines(f: dataclasses.Field, value: Any, column: int) -> list[str]:
    """A key, its value and its comment (wrapped onto continuation lines aligned under it)."""
    head = f"{f.name} = {toml_value(value)}"
    at = max(column, len(head) + 2)
    comment = wrap_comment(describe_field(f), at)
    return [head.ljust(at) + comment[0]] + [" " * at + c for c in comment[1:]]


def group_doc(gtype: type) -> str:
    """A group's docstring in one line, or "" (a dataclass without one gets a generated signature)."""
    doc = gtype.__doc__ or ""
    return "" if doc.startswith(f"{gtype.__name__}(") else " ".join(doc.split())


def fresh_toml(v: Vehicle) -> str:
    """A new, commented vehicle file: every key with its unit, description and range beside it."""
    out = [f"# {v.name}: vehicle parameters saved by Contact Patch. Each key's comment gives its unit,",
           "# what it is and the values allowed. Vehicle frame: x forward, y left, z up; positions are",
           "# relative to the reference point (centre line, midway between the axles, at anchor height).",
           f"name = {toml_value(v.name)}"]
    for gname, gtype in GROUP_TYPES.items():
        group = getattr(v, gname)
        heads = [len(f"{f.name} = {toml_value(getattr(group, f.name))}") for f in fields(gtype)
                 if f.metadata["kind"] != "curve"]
        column = min(max(heads, default=0) + 3, 40)
        out += ["", f"[{gname}]"] + wrap_comment(group_doc(gtype), 0)
        for f in fields(gtype):
            out += key_lines(f, getattr(group, f.name), column)
    return "\n".join(out) + "\n"


def same_value(old: Any, new: Any) -> bool:
    """True when a value read from the file already equals the vehicle's (1200 and 1200.0 are the same;
    a text never equals a number)."""
    if isinstance(new, tuple):
        return isinstance(old, list) and len(old) == len(new) and all(
            not isinstance(a, (bool, str)) and isinstance(a, (int, float)) and float(a) == b for a, b in zip(old, new))
    if isinstance(new, str):
        return old == new
    return not isinstance(old, (bool, str)) and isinstance(old, (int, float)) and float(old) == new


def comment_column(tbl) -> int:
    """The column at which most of a tomlkit table's trailing comments start (0 when it has none)."""
    columns: dict[int, int] = {}
    for key, item in tbl.value.body:
        if key is None or not getattr(item, "trivia", None) or not item.trivia.comment:
            continue
        col = (len(item.trivia.indent) + len(key.as_string()) + len(key.sep) + len(item.as_string())
               + len(item.trivia.comment_ws))
        columns[col] = columns.get(col, 0) + 1
    return max(columns, key=lambda c: (columns[c], -c)) if columns else 0


def set_keeping_layout(tbl, key: str, value: Any) -> None:
    """Change one value in a tomlkit table; its comment stays where it was (at the same column when the
    new value fits before it). tomlkit writes a float as str(x), Python's shortest repr."""
    old = tbl.value.item(key)
    width = len(old.as_string()) + len(old.trivia.comment_ws)
    tbl[key] = list(value) if isinstance(value, tuple) else value
    new = tbl.value.item(key)
    if old.trivia.comment:
        new.trivia.comment_ws = " " * max(1, width - len(new.as_string()))


def add_keeping_layout(tbl, f: dataclasses.Field, value: Any) -> None:
    """Add a key the file lacks at the end of its table, with the fresh file's comment, aligned with the
    table's other comments."""
    column = comment_column(tbl) or min(len(f"{f.name} = {toml_value(value)}") + 3, 40)
    snippet = tomlkit.parse("\n".join(key_lines(f, value, column)) + "\n")
    for key, item in snippet.body:
        tbl.append(key, item)


def templated_toml(v: Vehicle, template: str, base: Vehicle | None, stem: str) -> str:
    """The text of `template` (a vehicle file) with the values of `v`: its comments, key order and layout
    stay; a value that differs is replaced in place; a key the file lacks is added at the end of its
    table (for a file with a `base`, only when `v` differs from that base; a key added after the first files,
    `since`, only when it is not at its default, which a file without it loads as). `stem` is the saved file's
    name without .toml: a file without `name = ...` gets one only when the name differs from it."""
    doc = tomlkit.parse(template)
    if doc.get("name", stem) != v.name:
        doc["name"] = v.name
    for gname, gtype in GROUP_TYPES.items():
        group = getattr(v, gname)
        start = getattr(base, gname) if base is not None else None
        if gname not in doc:
            if start is not None and start == group:
                continue
            doc.append(gname, tomlkit.table())
        tbl = doc[gname]
        for f in fields(gtype):
            value = getattr(group, f.name)
            if f.name in tbl:
                if not same_value(tbl[f.name].unwrap(), value):
                    set_keeping_layout(tbl, f.name, value)
            elif (start is None or getattr(start, f.name) != value) and \
                    not (f.metadata.get("since") and value == f.default):   # a later key at its default: as loaded
                add_keeping_layout(tbl, f, value)
    return doc.as_string()


def vehicle_toml(v: Vehicle, template: str | None = None, base: Vehicle | None = None,
                 path: str | os.PathLike = "vehicle.toml") -> str:
    """`v` as the text of the vehicle file `path`: `template` (the file it was loaded from) with only the
    changed values replaced, or a fresh commented file. The templated text is read back before it is
    used; if it does not give `v` exactly (the template was edited into something else meanwhile), the
    fresh file is used instead, so loading what is saved always gives `v` back."""
    if template is not None:
        stem = Path(path).stem
        try:
            text = templated_toml(v, template, base, stem)
            data = tomllib.loads(text)
            back = vehicle_from_dict(data, str(path), base)
            if "name" not in data:
                back = dataclasses.replace(back, name=stem)
            if back == v:
                return text
        except (ConfigError, tomllib.TOMLDecodeError, tomlkit.exceptions.TOMLKitError, TypeError, ValueError,
                KeyError, AttributeError, RecursionError):
            pass
    return fresh_toml(v)


def save_vehicle(v: Vehicle, path: str | os.PathLike, source: str | os.PathLike | None = None) -> None:
    """Save `v` as TOML atomically; raises ConfigError (naming the file) if it cannot be written.

    `source` is the file `v` was loaded from (a preset in config/vehicles or the user's own): the saved
    file is that file with only the changed values replaced, so its comments, key order and layout
    stay. Without one (or when it can no longer be read) a fresh file is written with every key's unit,
    description and range as a comment. The Vehicle itself carries no file state."""
    path = Path(path)
    validate(v, str(path))
    template, base = None, None
    if source is not None:
        try:
            template, base = source_template(Path(source), path)
        except (ConfigError, tomllib.TOMLDecodeError, tomlkit.exceptions.TOMLKitError, RecursionError, OSError):
            template, base = None, None
    text = vehicle_toml(v, template, base, path)
    try:
        atomic_write_bytes(path, text.encode())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot save: {exc.strerror or exc}") from None


def source_template(source: Path, target: Path) -> tuple[str | None, Vehicle | None]:
    """The text of the file a vehicle came from, ready to be saved as `target`, and the vehicle its
    `base` names (None without one). A base that is a file next to the source is written as an absolute
    path when the target lies in another folder; a template whose base would be the target itself is not
    used (the saved file would be its own base)."""
    template = read_text(source, "vehicle")
    data = tomllib.loads(template)
    ref = data.get("base")
    if not isinstance(ref, str):
        return template, None
    base = load_base(source, data)
    local = source.parent / ref
    nearby = ref.endswith(".toml") and local.exists()
    if (local if nearby else resolve_preset(ref, PRESET_DIR, "vehicle")).resolve() == target.resolve():
        return None, None
    if nearby and (target.parent / ref).resolve() != local.resolve():
        doc = tomlkit.parse(template)
        doc["base"] = str(local.resolve())
        template = doc.as_string()
    return template, base
