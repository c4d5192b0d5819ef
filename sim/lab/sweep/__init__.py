"""Sweeps: a car's parameters varied over a grid, random draws or an Optuna search, each variant driven in
the test drives (sim.lab.drives.run_batch, many cars in one Simulation), one row of figures per variant.

    spec.py      the sweep file (TOML), checked whole before anything runs
    work.py      one batch: the variants' cars and their rows (a car that blows up costs only its own row)
    engine.py    where batches run: the interface, the local process pool
    cluster.py   the Dask distributed engine (--engine dask: a running scheduler, or a local cluster)
    run.py       the car as loaded, the batches, the rows written as they come, resuming a folder
    search.py    an Optuna search, asked and told in batches
    table.py     results.csv / results.parquet (units) and sweep.json (what the rows belong to)
    summary.py   summary.md: each figure's ends, its sensitivity to each parameter, a search's best
    plots.py     the PNGs
    cli.py       `contactpatch sweep FILE --out DIR`
"""
# what the app's Sweeps panel and "sweep this" use (ui/sweeps.py, ui/quick_sweep.py): read a folder back, its
# sensitivities, and one batch driven with a failing car costing only its own result
from sim.lab.sweep.spec import load_sweep
from sim.lab.sweep.summary import slopes
from sim.lab.sweep.summary import spans
from sim.lab.sweep.table import CSV
from sim.lab.sweep.table import META
from sim.lab.sweep.table import Table
from sim.lab.sweep.table import fingerprint
from sim.lab.sweep.table import read_meta
from sim.lab.sweep.work import drive_apart
from sim.lab.sweep.work import one_line

__all__ = ["CSV", "META", "Table", "drive_apart", "fingerprint", "load_sweep", "one_line", "read_meta", "slopes",
           "spans"]
