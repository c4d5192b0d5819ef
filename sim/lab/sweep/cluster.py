"""`--engine dask`: a sweep's batches as the tasks of a Dask distributed cluster (the optional `cluster` extra).

Dask, not Ray: `distributed` runs a real scheduler and workers (on loopback in this process's subprocesses, or
on other machines), installs from pip without a compiled server of its own, and its `Client.submit` /
`as_completed` are the Engine interface's `submit` / `finished` one for one. Each batch is one task,
`drive_batch(job)` (work.drive_job on the worker); a worker lost mid-run loses only the batch it held, which
the scheduler gives another worker (and `retries` more tries if the batch itself raised). Rows are handed on
once per variant whatever the retries did. With no scheduler address, a LocalCluster of this machine's cores
(one process a core, one thread each, on 127.0.0.1, no dashboard) is started and stopped with the engine.
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator
from concurrent.futures import CancelledError

import dask
import distributed
from dask.utils import parse_timedelta

from sim.lab.sweep.engine import Engine
from sim.lab.sweep.engine import EngineLost
from sim.lab.sweep.work import Job
from sim.lab.sweep.work import drive_job
from sim.lab.sweep.work import one_line
from sim.model.files import ConfigError
from sim.model.params import Vehicle

# A local cluster's workers without Dask's dashboard chores: the statistical profiler (samples the batch's thread
# every 10 ms), the system and memory monitors (every 0.5 and 0.1 s), the event loop's 20 ms tick, and the
# nanny's MALLOC_TRIM_THRESHOLD_=64 KiB (glibc returns freed memory at once). Together they cost the 2-core
# bench machine 2-4 CPU-seconds of a 1024-variant sweep (docs/benchmarks.md, issue 29).
LEAN = {"distributed.worker.profile.enabled": False, "distributed.admin.system-monitor.interval": "2s",
        "distributed.worker.memory.monitor-interval": "1s", "distributed.admin.tick.interval": "200ms",
        "distributed.nanny.pre-spawn-environ": {}}
KERNEL_THREADS = 1        # on a worker: the kernel's threads per batch (set by WarmUp: the host's cores / its tasks)


def drive_batch(job: Job) -> list[dict]:
    """A batch on a worker: work.drive_job with the kernel on this worker's share of its host's cores
    (numba's thread count belongs to the thread that runs the task)."""
    import numba
    numba.set_num_threads(max(1, min(KERNEL_THREADS, numba.config.NUMBA_NUM_THREADS)))
    return drive_job(job)


def warm_worker(car: Vehicle, threads: int) -> None:
    """A worker made ready before its first batch: the sweep's modules imported and the batch kernels loaded
    (from numba's disk cache, or compiled there) by settling the car once."""
    global KERNEL_THREADS
    KERNEL_THREADS = threads
    from sim.lab.drives.suite import run_batch
    run_batch("settle", [car])


class WarmUp(distributed.WorkerPlugin):
    """A worker plugin: every worker, those that join or are restarted later included, warms up before it
    takes a batch, off its event loop so that its heartbeats go on."""
    name = "contactpatch-warm-up"
    idempotent = False

    def __init__(self, car: Vehicle, threads: dict[str, int]):
        self.car, self.threads = car, threads

    async def setup(self, worker) -> None:
        await asyncio.to_thread(warm_worker, self.car, self.threads.get(worker.address.rpartition(":")[0], 1))


def kernel_threads(client) -> dict[str, int]:
    """Per host (the workers' address less the port): its cores / the task threads its workers run."""
    cores = client.run(os.cpu_count)
    tasks: dict[str, int] = {}
    cpus: dict[str, int] = {}
    for addr, info in client.scheduler_info(n_workers=-1)["workers"].items():
        host = addr.rpartition(":")[0]
        tasks[host] = tasks.get(host, 0) + info["nthreads"]
        cpus[host] = cores.get(addr) or 1
    return {h: max(1, cpus[h] // max(1, n)) for h, n in tasks.items()}


class DaskEngine(Engine):
    """Batches as tasks of a Dask cluster: the scheduler at `scheduler` (tcp://host:port), or a LocalCluster
    of `workers` processes (default: one a core) started here. `car` warms every worker up first."""
    name = "dask"

    def __init__(self, car: Vehicle, scheduler: str | None = None, workers: int | None = None, retries: int = 2):
        self.retries, self.cluster, self.where = retries, None, scheduler or "the local cluster"
        self.quiet = quiet_dask()
        self.pending: dict = {}
        self.seen: set[str] = set()
        self.stream = None
        if scheduler is None:
            try:
                with dask.config.set(LEAN):
                    self.cluster = distributed.LocalCluster(
                        n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                        host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
            except Exception as exc:
                self.close()
                raise ConfigError(f"--engine dask: could not start a local Dask cluster: {one_line(exc)}") from None
        try:
            self.client = distributed.Client(self.cluster or scheduler, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ConfigError(f"--scheduler {scheduler}: could not connect to a Dask scheduler there "
                              f"({one_line(exc)})") from None
        try:
            self.client.wait_for_workers(1, timeout=distributed_timeout())
        except TimeoutError:
            self.close()
            raise ConfigError(f"--scheduler {scheduler}: the scheduler has no workers (start some on each machine: "
                              f"dask worker {scheduler} --nworkers $(nproc) --nthreads 1)") from None
        try:
            self.client.register_plugin(WarmUp(car, kernel_threads(self.client)), name=WarmUp.name)
        except Exception as exc:
            self.close()
            raise ConfigError(f"{self.where}: a worker could not drive a car ({one_line(exc)}): every worker needs "
                              f"this commit installed, pip install -e '.[cluster]'") from None
        self.workers = max(1, sum(w["nthreads"] for w in
                                  self.client.scheduler_info(n_workers=-1)["workers"].values()))

    def submit(self, job: Job) -> None:
        fut = self.client.submit(drive_batch, job, pure=False, retries=self.retries)
        self.pending[fut] = job
        if self.stream is not None:
            self.stream.add(fut)

    def finished(self) -> Iterator[tuple[Job, list[dict]]]:
        while self.pending:
            self.stream = distributed.as_completed(list(self.pending), loop=self.client.loop)
            for fut in self.stream:
                job = self.pending.pop(fut)
                rows = [r for r in self.result(fut) if r["variant"] not in self.seen]
                self.seen.update(r["variant"] for r in rows)
                fut.release()
                yield job, rows
            self.stream = None

    def result(self, fut) -> list[dict]:
        """The batch's rows; EngineLost when the scheduler is gone or the batch killed every worker it got."""
        try:
            return fut.result()
        except distributed.KilledWorker:
            raise EngineLost(f"a batch's worker died {dask.config.get('distributed.scheduler.allowed-failures') + 1} "
                             f"times (out of memory? try a smaller --batch)") from None
        except (CancelledError, OSError):
            raise EngineLost(f"lost the connection to the Dask scheduler at {self.where}") from None

    def close(self, cancel: bool = False) -> None:
        """Cancel what is left (cancel: running batches are dropped, queued ones never start), close the client
        and stop a cluster of our own; then Dask's log is let speak again."""
        client, self.client = getattr(self, "client", None), None
        try:
            if client is not None:
                if cancel and self.pending:
                    client.cancel(list(self.pending), force=True)
                client.close()
            self.pending.clear()
            if self.cluster is not None:
                self.cluster.close()
                self.cluster = None
        finally:
            self.quiet()


def quiet_dask():
    """Dask's client log (a lost connection's retries and tracebacks) kept quiet while the engine runs: what
    matters reaches the sweep as an exception (EngineLost: one line). Returns what sets the level back."""
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    return lambda: log.setLevel(level)


def distributed_timeout() -> float:
    """Dask's connect timeout (distributed.comm.timeouts.connect, 30 s unless configured), in seconds."""
    return parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="s")
