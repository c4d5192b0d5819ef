"""The one way files come in: read, decode, parse and build, with every failure turned into a single-line
`ConfigError` that names the file, the key, the value and what is allowed.

Vehicle, world, bindings and trace files all go through `read_toml` / `read_json` and `build`: text must
be UTF-8 and at most MAX_FILE_BYTES long; a builder that meets something it did not expect (a list where
a table belongs, a number too large for a float, nesting too deep) still ends in a ConfigError naming the
file, never in a traceback. The small validators (`table`, `number`, `vector`, ...) are what builders use
to say precisely which key is wrong.
"""
from __future__ import annotations

import json
import math
import os
import re
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 16 * 1024 * 1024      # a preset, world, bindings or trace file larger than this is refused


def data_dir() -> Path:
    """The app's own folder for what the user makes (saved presets, the overlay's layout, screenshots):
    $XDG_DATA_HOME/contactpatch, or ~/.local/share/contactpatch when XDG_DATA_HOME is not set. Read anew
    on every call, so a test (or a user) can point it elsewhere."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "contactpatch"


class ConfigError(ValueError):
    """A file or a value that cannot be used; the message names file, key, value and what is allowed."""


def show(value: Any, limit: int = 60) -> str:
    """A value as it appears in a message: its repr, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def read_text(path: str | os.PathLike, kind: str, max_bytes: int = 0) -> str:
    """The file's text: UTF-8, at most max_bytes (MAX_FILE_BYTES by default)."""
    path = Path(path)
    max_bytes = max_bytes or MAX_FILE_BYTES
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise ConfigError(f"{path}: {size} bytes is too large for a {kind} file; expected at most "
                              f"{max_bytes} bytes")
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}: line {line}: byte 0x{data[exc.start]:02x} is not UTF-8 text; save the "
                          f"{kind} file as UTF-8") from None


def read_toml(path: str | os.PathLike, kind: str) -> dict:
    text = read_text(path, kind)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def read_json(path: str | os.PathLike, kind: str, max_bytes: int = 0) -> Any:
    text = read_text(path, kind, max_bytes)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid JSON: nested too deeply") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc}") from None


def build(path: str | os.PathLike, kind: str, builder: Callable[[], Any]) -> Any:
    """Run `builder()`; a failure it did not turn into a ConfigError itself still becomes one naming the
    file (the safety net under the validators: no traceback reaches the user)."""
    try:
        return builder()
    except ConfigError:
        raise
    except RecursionError:
        raise ConfigError(f"{path}: cannot be read as a {kind}: nested too deeply") from None
    except MemoryError:
        raise ConfigError(f"{path}: cannot be read as a {kind}: it asks for more memory than there is") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, ZeroDivisionError) as exc:
        raise ConfigError(f"{path}: cannot be read as a {kind}: {type(exc).__name__}: {exc}") from None


# ----------------------------------------------------------------------------------------------------
# Validators: each names where (the file), the key and the value, and what is allowed.

def table(where: str, key: str, value: Any) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a table ([{key}] or "
                          f"{key} = {{ ... }})")
    return value


def tables(where: str, key: str, value: Any) -> list[dict]:
    """An array of tables ([[key]] entries)."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected [[{key}]] tables")
    return value


def known_keys(where: str, key: str, value: dict, allowed) -> None:
    for k in value:
        if k not in allowed:
            raise ConfigError(f"{where}: unknown key {key}.{k}; known keys: {', '.join(allowed)}")


def number(where: str, key: str, value: Any, lo: float, hi: float, unit: str = "") -> float:
    bad = ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a number in [{lo:g}, {hi:g}]"
                      + (f" {unit}" if unit else ""))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad
    try:
        v = float(value)
    except OverflowError:
        raise bad from None
    if not math.isfinite(v) or not lo <= v <= hi:
        raise bad
    return v


def integer(where: str, key: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a whole number in "
                          f"[{lo}, {hi}]")
    return value


def vector(where: str, key: str, value: Any, n: int, lo: float = -1e5, hi: float = 1e5) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a list of {n} numbers")
    return tuple(number(where, f"{key}[{i}]", v, lo, hi) for i, v in enumerate(value))


def string(where: str, key: str, value: Any, max_len: int = 200) -> str:
    if not isinstance(value, str) or not value or len(value) > max_len:
        raise ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected a non-empty text of at "
                          f"most {max_len} characters")
    return value


def required(where: str, data: dict, keys, what: str) -> None:
    """A truncated file is an error: every key in `keys` must be present in `data`."""
    missing = [k for k in keys if k not in data]
    if missing:
        raise ConfigError(f"{where}: {what} is missing {', '.join(missing)}")


# ------------------------------------------------------------------------------------------------------
# Writing

TEMP_NAME = re.compile(r"^\..+\.cp-(?:[A-Za-z0-9_]{8}\.tmp|tmp\.png)$")   # atomic_write_bytes' and screenshots'
_UMASK = os.umask(0)                # read once (os.umask can only be read by setting it)
os.umask(_UMASK)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temporary file in the target folder, then rename over the target: the old file
    survives any failure (no space, no permission, a crash half-way). The file keeps its mode (a new
    one gets the usual mode under the umask)."""
    path = Path(path)
    try:
        mode = path.stat().st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.cp-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def clean_stale_temps(folder: str | os.PathLike, older_than: float = 60.0) -> list[Path]:
    """Remove what interrupted atomic writes left in `folder` (hidden `.<name>.cp-XXXXXXXX.tmp` files older
    than `older_than` seconds, so that a save in progress elsewhere is left alone). Returns the removed
    paths; a folder that cannot be read is skipped."""
    removed = []
    now = time.time()
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for p in entries:
        try:
            if TEMP_NAME.match(p.name) and p.is_file() and now - p.stat().st_mtime >= older_than:
                p.unlink()
                removed.append(p)
        except OSError:
            pass
    return removed


def resolve_preset(name_or_path: str | os.PathLike, folder: Path, kind: str) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists() or os.sep in str(name_or_path):
        if not p.exists():
            raise ConfigError(f"{p}: no such {kind} file")
        return p
    candidate = folder / f"{name_or_path}.toml"
    if not candidate.exists():
        known = ", ".join(sorted(x.stem for x in folder.glob("*.toml")))
        raise ConfigError(f"{kind} preset {str(name_or_path)!r} not found; known presets: {known}")
    return candidate
