"""The exit statuses of `contactpatch` (the window, app/__main__.py) and of its `test` and `compare` command lines
(sim/lab/cli.py), in one table; the README's "The command line" lists them for users."""
from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0              # done; `test`: every judged figure within its limit (or missing it where the drive expects so)
    FAILED = 1          # `test`: a figure outside its limit; the window: an unexpected error (a bug) stopped the app
    BAD_INPUT = 2       # a file, trace or option refused, with a one-line message (sim.ConfigError, argparse)
    NO_WINDOW = 3       # the window: no OpenGL 3.3 window could be opened
    BLEW_UP = 4         # the physics blew up (sim.BlowUp) in a scripted run (--quit-after, --replay, --benchmark)
                        # or in a test drive
    INTERRUPTED = 130   # Ctrl+C (128 + SIGINT)
