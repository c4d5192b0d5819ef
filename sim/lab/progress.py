"""The progress bar of the lab's long commands (`contactpatch sweep`, `contactpatch compare`): tqdm on stderr
(done, rate, time left), silent when stderr is not a terminal, so a log or a pipe gets only the results."""
from __future__ import annotations

import sys


def progress_bar(total: int, initial: int = 0, unit: str = "variant", desc: str = "sweep"):
    """tqdm's bar on stderr (`unit`s done of `total`, rate, time left); silent when stderr is not a terminal."""
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit=unit, desc=desc, file=sys.stderr, disable=None,
                smoothing=0.1, dynamic_ncols=True)
