"""`contactpatch sweep FILE --out DIR`: a sweep file's variants driven over this machine's cores, the
table, summary.md and the plots written into DIR; a rerun with the same DIR drives only what is missing."""
from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from sim.lab.arguments import Parser
from sim.lab.arguments import whole
from sim.lab.exit_codes import Exit
from sim.lab.sweep.engine import Engine
from sim.lab.sweep.engine import EngineLost
from sim.lab.sweep.engine import local_engine
from sim.lab.sweep.plots import plot_all
from sim.lab.sweep.run import prepare
from sim.lab.sweep.run import run_grid
from sim.lab.sweep.spec import MAX_VARIANTS
from sim.lab.sweep.spec import load_sweep
from sim.lab.sweep.summary import markdown
from sim.model.files import ConfigError
from sim.model.files import atomic_write_bytes
from sim.model.params import Vehicle
from sim.model.vehicle_toml import load_vehicle

positive = whole(1)      # a whole number of at least 1


def parser() -> argparse.ArgumentParser:
    ap = Parser(prog="contactpatch sweep", description="Drive the variants of a sweep file "
                                 "(a grid, random draws or an Optuna search over parameters) and write the "
                                 "table (CSV, Parquet), summary.md and plots into --out.")
    ap.add_argument("file", help="the sweep file (TOML; docs/sweeps.md)")
    ap.add_argument("--out", required=True, metavar="DIR", help="the results folder (a rerun resumes it)")
    ap.add_argument("--engine", choices=("local", "dask"), default="local",
                    help="where the batches are driven: local (a process pool over this machine's cores) or dask "
                         "(the tasks of a Dask cluster: --scheduler, or a local cluster of this machine's cores)")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="--engine dask: a running Dask scheduler (tcp://host:8786); without it a local cluster is "
                         "started for the sweep and stopped after it")
    ap.add_argument("--workers", type=positive,
                    help="processes of the local engine or of the local Dask cluster (default: one per core; "
                         "with --scheduler, the cluster's workers are what it has)")
    ap.add_argument("--batch", type=positive, metavar="N",
                    help="cars driven together in one Simulation (default: up to 128, fewer for long drives so "
                         "that a batch's logs stay under about 1 GB)")
    ap.add_argument("--max-variants", type=positive, default=MAX_VARIANTS, metavar="N",
                    help=f"refuse a sweep of more variants than this (default {MAX_VARIANTS:,})")
    ap.add_argument("--no-plots", action="store_true", help="leave out the PNG plots")
    return ap


def make_engine(args: argparse.Namespace, car: Vehicle) -> Engine:
    """The engine --engine names (ConfigError: a scheduler that cannot be reached or has no workers)."""
    if args.engine == "local":
        return local_engine(args.workers or os.cpu_count() or 1)
    return dask_engine()(car, args.scheduler, args.workers)


def dask_engine():
    """The Dask engine's class (ConfigError: Dask is not installed, or --scheduler without --engine dask)."""
    try:
        from sim.lab.sweep.cluster import DaskEngine
    except ImportError:
        raise ConfigError("--engine dask needs Dask distributed: pip install -e '.[cluster]'") from None
    return DaskEngine


def sweep(args: argparse.Namespace, out: Path):
    """Check the file, drive what the folder lacks, write the summary and the plots: (progress, table,
    plots). ConfigError or OSError for what cannot be done."""
    if args.scheduler and args.engine != "dask":
        raise ConfigError("--scheduler is for --engine dask")
    if args.engine == "dask":
        dask_engine()
    spec = load_sweep(args.file, args.max_variants)
    try:
        car = load_vehicle(spec.vehicle)
    except ConfigError as exc:
        raise ConfigError(f"{spec.path}: vehicle = {spec.vehicle!r}: {exc}") from None
    table, meta = prepare(spec, car, out)
    search_text, history, label = "", None, ""
    if spec.search is not None:
        from sim.lab.sweep.search import objective_label
        from sim.lab.sweep.search import optuna_module
        from sim.lab.sweep.search import run_search
        optuna_module()
        prog, search_text, history = run_search(spec, car, table, make_engine(args, car), args.batch)
        label = objective_label(spec.search, table)
    else:
        prog = run_grid(spec, car, table, meta, make_engine(args, car), args.batch)
    title = f"Sweep {Path(spec.path).name}: {car.name}, {', '.join(spec.drives)}"
    atomic_write_bytes(out / "summary.md", markdown(table, title, meta["as loaded"], search_text).encode())
    plots = [] if args.no_plots else plot_all(table, out, spec.grid if not spec.ranges else {}, history, label)
    return prog, table, plots


def sweep_command(argv: list[str] | None = None) -> int:
    """contactpatch sweep FILE --out DIR [--workers N] [--batch N] [--max-variants N] [--no-plots]"""
    args = parser().parse_args(argv)
    out = Path(args.out)
    try:
        prog, table, plots = sweep(args, out)
    except ConfigError as exc:
        print(f"contactpatch sweep: {exc}", file=sys.stderr)
        return Exit.BAD_INPUT
    except OSError as exc:
        print(f"contactpatch sweep: {out}: cannot write there: {exc.strerror or exc}", file=sys.stderr)
        return Exit.BAD_INPUT
    except BrokenProcessPool:
        print(f"contactpatch sweep: a worker process died (out of memory? try a smaller --batch); every finished "
              f"row is kept in {out}: run the same command again to drive the rest (exit status {Exit.FAILED:d})",
              file=sys.stderr)
        return Exit.FAILED
    except EngineLost as exc:
        print(f"contactpatch sweep: {exc}; every finished row is kept in {out}: run the same command again to drive "
              f"the rest (exit status {Exit.FAILED:d})", file=sys.stderr)
        return Exit.FAILED
    except KeyboardInterrupt:                 # before the variants (the car as loaded) or after (the plots)
        print(f"contactpatch sweep: stopped (Ctrl+C); every finished row is kept in {out} (exit status "
              f"{Exit.INTERRUPTED:d})", file=sys.stderr)
        return Exit.INTERRUPTED
    total = len(table.rows)
    rate = prog.driven / prog.seconds if prog.seconds > 0 else 0.0
    parts = [f"{prog.driven} variants driven ({rate:.1f}/s over {prog.seconds:.1f} s)",
             f"{prog.resumed} found done in {out}"]
    if prog.failed:
        parts.append(f"{prog.failed} failed (the error column says why)")
    if prog.dropped:
        parts.append(f"{prog.dropped} row{'s' if prog.dropped > 1 else ''} of an earlier grid left out")
    print(f"contactpatch sweep: {', '.join(parts)}; {total} rows in {out / 'results.csv'}, summary.md"
          + (f", {len(plots)} plots" if plots else ("" if args.no_plots else " (no plots: pip install -e '.[plots]')")))
    if prog.interrupted:
        print(f"contactpatch sweep: stopped (Ctrl+C); every finished row is kept: run the same command again to "
              f"drive the rest (exit status {Exit.INTERRUPTED:d})", file=sys.stderr)
        return Exit.INTERRUPTED
    return Exit.OK
