"""Where a sweep's batches are driven: an Engine takes batches (`submit`) and hands back each batch's rows
as it finishes (`finished`), in whatever order they finish; `close` stops it (dropping what is not done
when cancelled). The local engine is a process pool over this machine's cores; the cluster engine
(cluster.py: Dask distributed's client.submit / as_completed) is another implementation of the same three methods.
"""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED
from concurrent.futures import Future
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import wait

from sim.lab.sweep.work import Job
from sim.lab.sweep.work import drive_job
from sim.lab.sweep.work import start_worker


class EngineLost(Exception):
    """The engine cannot go on (a cluster's scheduler gone, a batch that killed its workers); the message
    is one line. The finished rows are kept as for Ctrl+C."""


class Engine:
    """The interface: submit batches, take finished ones (job, rows) as they come, close."""
    name = "engine"
    workers = 1

    def submit(self, job: Job) -> None:
        raise NotImplementedError

    def finished(self) -> Iterator[tuple[Job, list[dict]]]:
        """Each submitted batch's rows as it finishes, until none is left; batches submitted meanwhile (a
        search asks for more as results come) are included."""
        raise NotImplementedError

    def close(self, cancel: bool = False) -> None:
        raise NotImplementedError


class InProcess(Engine):
    """The batches one after another in this process (one worker: no pool to start)."""
    name = "local"

    def __init__(self):
        self.queue: list[Job] = []

    def submit(self, job: Job) -> None:
        self.queue.append(job)

    def finished(self) -> Iterator[tuple[Job, list[dict]]]:
        while self.queue:
            job = self.queue.pop(0)
            yield job, drive_job(job)

    def close(self, cancel: bool = False) -> None:
        self.queue.clear()


class LocalPool(Engine):
    """A pool of `workers` processes (spawned: the parent's kernel threads are not forked), each batch's
    kernel on cores // workers threads. Ctrl+C reaches the parent only (the workers ignore it); close(cancel=
    True) drops the queued batches and ends the workers' processes, so a stop takes no longer than a
    moment whatever batch is running."""
    name = "local"

    def __init__(self, workers: int):
        self.workers = workers
        threads = max(1, (os.cpu_count() or 1) // workers)
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=start_worker, initargs=(threads,))
        self.pending: dict[Future, Job] = {}

    def submit(self, job: Job) -> None:
        self.pending[self.pool.submit(drive_job, job)] = job

    def finished(self) -> Iterator[tuple[Job, list[dict]]]:
        while self.pending:
            done, _ = wait(list(self.pending), return_when=FIRST_COMPLETED)
            for fut in done:
                job = self.pending.pop(fut)
                yield job, fut.result()

    def close(self, cancel: bool = False) -> None:
        if cancel:
            processes = list((self.pool._processes or {}).values())
            manager = self.pool._executor_manager_thread
            self.pool.shutdown(wait=False, cancel_futures=True)
            processes += [p for p in (self.pool._processes or {}).values() if p not in processes]
            for p in processes:                   # the pool's own workers, by their handles
                if p.is_alive():
                    p.terminate()
            for p in processes:                   # one still starting up on a loaded machine: killed
                p.join(timeout=5.0)
                if p.is_alive():
                    p.kill()
                    p.join()
            # the pool's management thread reaps the workers too: wait for it, so that no thread is still
            # polling them when close returns (two threads' waitpid race and one may see a dead worker alive)
            if manager is not None:
                manager.join(timeout=30.0)
        else:
            self.pool.shutdown(wait=True)
        self.pending.clear()


def local_engine(workers: int) -> Engine:
    """`--engine local`: a process pool of `workers`, or this process alone for one."""
    return InProcess() if workers <= 1 else LocalPool(workers)
