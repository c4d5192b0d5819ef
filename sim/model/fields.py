"""Field declarations with a unit and a valid range (`num`, `text`, `curve`, and `mf96` / `mf61` for the tire
coefficients added later): each stores its unit, range and one-line description in the dataclass field's
metadata, which validation, the TOML loader, the UI and the saved files' comments read (sim/model/params.py
declares the groups with them)."""
from __future__ import annotations

from dataclasses import field


def num(default: float, unit: str, lo: float, hi: float, doc: str, since: str = ""):
    """A float parameter in [lo, hi] (inclusive) measured in `unit`. `since` names the addition that brought
    it: a file written before it may leave it out and gets the default (which changes nothing unless the
    file also chooses what the addition is for, e.g. the mf96 tire model)."""
    meta = {"kind": "num", "unit": unit, "lo": lo, "hi": hi, "doc": doc}
    if since:
        meta["since"] = since
    return field(default=float(default), metadata=meta)


def mf96(default: float, unit: str, lo: float, hi: float, doc: str):
    """A coefficient of the mf96 tire model (added after the first vehicle files: they may leave it out)."""
    return num(default, unit, lo, hi, doc, since="mf96")


def mf61(default: float, unit: str, lo: float, hi: float, doc: str):
    """A coefficient of the mf61 tire model (added after the first vehicle files: they may leave it out)."""
    return num(default, unit, lo, hi, doc, since="mf61")


def text(default: str, choices: tuple[str, ...], doc: str, since: str = ""):
    """A string parameter that must be one of `choices` (`since`: as for num)."""
    meta = {"kind": "text", "choices": choices, "doc": doc}
    if since:
        meta["since"] = since
    return field(default=default, metadata=meta)


def curve(default: tuple[float, ...], unit: str, lo: float, hi: float, doc: str, min_len: int = 1,
          max_len: int = 64, increasing: bool = False):
    """A tuple of floats, each in [lo, hi]; optionally strictly increasing."""
    return field(default=tuple(float(v) for v in default),
                 metadata={"kind": "curve", "unit": unit, "lo": lo, "hi": hi, "doc": doc,
                           "min_len": min_len, "max_len": max_len, "increasing": increasing})
