"""A batch's vehicles shared among the cores: the step kernels let go of Python's lock, and threads run
them on their own rows of the tables (`Simulation.run`)."""
from __future__ import annotations

import numba

_POOL: list = []               # the worker threads that share a batch's vehicles, made on first use


def threads() -> int:
    """How many cores a batch's vehicles are shared among: numba's thread count (the NUMBA_NUM_THREADS
    environment variable, or `numba.set_num_threads`), all cores by default."""
    return max(1, numba.get_num_threads())


def share_vehicles(kernel, args: tuple, n: int) -> None:
    """Run `kernel(*args, v0, v1)` over the vehicles 0 .. n-1, shared among `threads()` cores: the
    kernel lets go of Python's lock, and each thread takes the next of about four pieces per core as it
    finishes one (vehicles near boxes cost more than those on the flat). Each vehicle's arithmetic does
    not depend on the sharing, so the result is bit for bit the same at any thread count."""
    workers = min(threads(), n)
    if workers <= 1:
        kernel(*args, 0, n)
        return
    if not _POOL or _POOL[0]._max_workers != workers:
        from concurrent.futures import ThreadPoolExecutor
        if _POOL:
            _POOL.pop().shutdown(wait=False)
        _POOL.append(ThreadPoolExecutor(max_workers=workers, thread_name_prefix="contactpatch-batch"))
    pieces = min(n, 4 * workers)
    edges = [n * i // pieces for i in range(pieces + 1)]
    jobs = [_POOL[0].submit(kernel, *args, edges[i], edges[i + 1]) for i in range(pieces)]
    for job in jobs:
        job.result()                      # waits, and raises what a piece raised
