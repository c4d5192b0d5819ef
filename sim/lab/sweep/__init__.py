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
