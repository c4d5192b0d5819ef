"""The command lines' options (`contactpatch`, `contactpatch test`, `compare`, `sweep`): an option refused ends the
command with one line naming the option, the value and what is allowed, exit status 2 (Exit.BAD_INPUT), instead
of argparse's usage block; numbers are checked against their range as they are read."""
from __future__ import annotations

import argparse
import math
import re

from sim.lab.exit_codes import Exit


class Parser(argparse.ArgumentParser):
    """argparse, with a refused option said in one line: "contactpatch: --fps 0 is not allowed; expected ..."."""

    def error(self, message: str):
        found = re.match(r"argument ([^:]+): (.*)", message)
        if found:                                       # "argument -f/--fps: x" -> "--fps x"
            message = f"{found.group(1).split('/')[-1]} {found.group(2)}"
        hint = "" if "is not allowed; expected" in message else f" ({self.prog} --help lists the options)"
        self.exit(Exit.BAD_INPUT, f"{self.prog}: {message}{hint}\n")


def whole(lo: int, hi: int | None = None, what: str = ""):
    """An argparse type: a whole number from lo to hi (no upper end with hi None) of `what` (a unit, a thing)."""
    allowed = f"a whole number{f' of {what}' if what else ''}" + \
        (f" from {lo} to {hi}" if hi is not None else f", at least {lo}" if what else f" of at least {lo}")

    def read(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = None
        if n is None or n < lo or (hi is not None and n > hi):
            raise argparse.ArgumentTypeError(f"{text} is not allowed; expected {allowed}")
        return n
    return read


def number(lo: float, hi: float = math.inf, unit: str = "", above: bool = False):
    """An argparse type: a finite number in [lo, hi] ((lo, hi] with `above`), in `unit`."""
    left = "(" if above else "["
    allowed = (f"{unit} in {left}{lo:g}, {hi:g}]" if math.isfinite(hi) else
               f"{unit} {'above' if above else 'of at least'} {lo:g}").strip()

    def read(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        if not (math.isfinite(x) and (x > lo if above else x >= lo) and x <= hi):
            raise argparse.ArgumentTypeError(f"{text} is not allowed; expected {allowed}")
        return x
    return read
