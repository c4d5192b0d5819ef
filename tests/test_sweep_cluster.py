"""Sweeps on a Dask cluster (issue 29 item 4): `contactpatch sweep --engine dask [--scheduler ADDRESS]` on a real
local cluster (worker processes on 127.0.0.1, started and stopped here) gives the local engine's table bit for
bit; a worker killed mid-run costs only its batch and every row is written once; a search runs on the cluster
as it does locally; an unreachable scheduler and a missing Dask each get one line."""
from __future__ import annotations

import os
import signal
import socket
import sys

import pytest

from sim.lab.exit_codes import Exit
from sim.lab.sweep import run as sweep_run
from sim.lab.sweep.cli import sweep_command

distributed = pytest.importorskip("distributed")

GRID_16 = """vehicle = "hatchback"
drives = ["braking"]
[grid]
"chassis.mass" = [1000.0, 1150.0, 1300.0, 1450.0]
"front_tire.grip" = [0.9, 1.0, 1.1, 1.2]
"""

SEARCH = """drives = ["settle"]
[search]
trials = 12
batch = 6
seed = 3
target = { "settle/load FL" = 3300.0 }
"chassis.mass" = [1000.0, 1400.0]
"""


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded worker processes on loopback, no dashboard; a client of the test's."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as lc, distributed.Client(lc) as client:
        yield lc, client


def swept(tmp_path, body: str, name: str, *options: str) -> str:
    """The sweep run into tmp_path/name with these options; its results.csv (every bit of every figure)."""
    path, out = tmp_path / "sweep.toml", tmp_path / name
    path.write_text(body)
    assert sweep_command([str(path), "--out", str(out), "--no-plots", *options]) == Exit.OK
    return (out / "results.csv").read_text()


@pytest.fixture(scope="module")
def local_16(tmp_path_factory) -> str:
    """The 16-variant grid's table from the local engine (this process)."""
    return swept(tmp_path_factory.mktemp("local"), GRID_16, "out", "--workers", "1")


def test_a_grid_on_a_two_worker_local_dask_cluster_gives_the_local_engines_table_bit_for_bit(tmp_path, local_16,
                                                                                             capsys):
    """`--engine dask` without an address: a LocalCluster of two processes is started for the sweep (batches of
    4: four tasks) and stopped after it; the CSV is the local engine's to the byte (figures to their last bit)."""
    assert swept(tmp_path, GRID_16, "dask", "--engine", "dask", "--workers", "2", "--batch", "4") == local_16
    assert "16 variants driven" in capsys.readouterr().out


def test_a_search_on_a_running_scheduler_gives_the_local_search_table(tmp_path, cluster, capsys):
    """`--engine dask --scheduler tcp://127.0.0.1:PORT` of a cluster this test started: Optuna's ask/tell in
    rounds of 6, each round's trials driven as the cluster's tasks; the trials and their figures are those
    of the same search on the local engine, to the bit."""
    pytest.importorskip("optuna")
    lc, _ = cluster
    assert lc.scheduler_address.startswith("tcp://127.0.0.1:")
    local = swept(tmp_path, SEARCH, "local", "--workers", "1")
    assert swept(tmp_path, SEARCH, "dask", "--engine", "dask", "--scheduler", lc.scheduler_address) == local
    assert len(local.splitlines()) == 2 + 12


def test_ctrl_c_on_the_cluster_keeps_the_finished_rows_and_the_rerun_drives_the_rest(tmp_path, cluster, local_16,
                                                                                     monkeypatch, capsys):
    """Ctrl+C as the second batch's rows come in: the batches left are cancelled on the cluster, the first
    batch's rows are in the table (exit 130); the same command again drives the rest there."""
    lc, _ = cluster
    original, calls = sweep_run.Writer.rows, []

    def interrupted(self, rows):
        calls.append(rows)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, rows)
    monkeypatch.setattr(sweep_run.Writer, "rows", interrupted)
    path, out = tmp_path / "sweep.toml", tmp_path / "dask"
    path.write_text(GRID_16)
    args = [str(path), "--out", str(out), "--no-plots", "--engine", "dask", "--scheduler", lc.scheduler_address,
            "--batch", "2"]
    assert sweep_command(args) == Exit.INTERRUPTED
    assert len((out / "results.csv").read_text().splitlines()) == 2 + 2
    monkeypatch.setattr(sweep_run.Writer, "rows", original)
    assert sweep_command(args) == Exit.OK
    assert "14 variants driven" in capsys.readouterr().out
    assert (out / "results.csv").read_text() == local_16


def test_a_worker_killed_mid_run_costs_only_its_batch_and_every_row_is_written_once(tmp_path, cluster, local_16,
                                                                                   monkeypatch, capsys):
    """Once the first batch's rows are in, a worker still holding a batch is killed (SIGKILL): its batch goes
    to another worker, the nanny starts a new worker, and the table is the local engine's, each variant once."""
    lc, client = cluster
    before = client.run(os.getpid)
    killed = []
    original = sweep_run.Writer.rows

    def rows_then_kill(self, rows):
        if not killed:
            busy = [w for w, keys in client.processing().items() if keys]       # holding a batch now
            killed.append(before[busy[0]])
            os.kill(killed[0], signal.SIGKILL)
        return original(self, rows)
    monkeypatch.setattr(sweep_run.Writer, "rows", rows_then_kill)
    table = swept(tmp_path, GRID_16, "dask", "--engine", "dask", "--scheduler", lc.scheduler_address, "--batch", "2")
    assert killed and table == local_16
    ids = [line.split(",")[0] for line in table.splitlines()[2:]]
    assert len(ids) == len(set(ids)) == 16
    client.wait_for_workers(2, timeout=60)
    assert killed[0] not in client.run(os.getpid).values()


def test_a_batch_reported_twice_hands_on_its_rows_once(cluster):
    """What a batch retried after it had reported would do: the engine passes each variant's row on once."""
    from sim.lab.sweep.cluster import DaskEngine
    from sim.lab.sweep.work import Job
    from sim.model.vehicle_toml import load_vehicle
    car = load_vehicle("hatchback")
    engine = DaskEngine(car, cluster[0].scheduler_address)
    job = Job(car, ["settle"], ["chassis.mass"], [("v0", (1000.0,)), ("v1", (1100.0,))])
    engine.submit(job)
    engine.submit(job)
    try:
        got = [r["variant"] for _, rows in engine.finished() for r in rows]
    finally:
        engine.close()
    assert sorted(got) == ["v0", "v1"]


def test_an_unreachable_scheduler_is_one_line_naming_the_address(tmp_path, capsys):
    """A loopback port nothing listens on (one the system just gave out and took back); Dask's connect
    timeout set to 1 s for the test (30 s unless configured)."""
    import dask
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    path = tmp_path / "sweep.toml"
    path.write_text(GRID_16)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code = sweep_command([str(path), "--out", str(tmp_path / "out"), "--engine", "dask", "--scheduler", address])
    err = capsys.readouterr().err
    assert code == Exit.BAD_INPUT
    assert err.startswith(f"contactpatch sweep: --scheduler {address}: could not connect") and \
        err.count("\n") == 1, err


def test_without_dask_the_engine_says_which_extra_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)         # `import distributed` raises ImportError
    monkeypatch.delitem(sys.modules, "sim.lab.sweep.cluster", raising=False)
    path = tmp_path / "sweep.toml"
    path.write_text(GRID_16)
    assert sweep_command([str(path), "--out", str(tmp_path / "out"), "--engine", "dask"]) == Exit.BAD_INPUT
    assert capsys.readouterr().err == ("contactpatch sweep: --engine dask needs Dask distributed: "
                                       "pip install -e '.[cluster]'\n")
