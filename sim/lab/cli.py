"""The lab's command lines: `contactpatch test` (the test drives, their figures, logs and plots),
`contactpatch compare` (the model families side by side, seed 001's table) and `contactpatch sweep`
(sim/lab/sweep: many variants of a car through the drives)."""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import as_completed
from pathlib import Path

from sim.lab.arguments import Parser
from sim.lab.arguments import number
from sim.lab.arguments import whole
from sim.lab.drives.common import DT
from sim.lab.drives.results import Result
from sim.lab.drives.results import compare_table
from sim.lab.drives.results import listed
from sim.lab.drives.suite import LONG
from sim.lab.drives.suite import SUITE
from sim.lab.drives.suite import Limit
from sim.lab.drives.suite import apply_limits
from sim.lab.drives.suite import parse_limit
from sim.lab.drives.suite import run
from sim.lab.exit_codes import Exit
from sim.lab.families import COMPARE_DRIVES
from sim.lab.families import FAMILIES
from sim.lab.families import _measure_job
from sim.lab.families import step_costs
from sim.lab.families import table
from sim.lab.families import variant
from sim.lab.logs import write_parquet
from sim.lab.plots import plot
from sim.lab.progress import progress_bar
from sim.model.checks import apply_sets
from sim.model.files import ConfigError
from sim.model.vehicle_toml import load_vehicle
from sim.watchdog import BlowUp


def drives_command(argv: list[str] | None = None) -> int:
    """contactpatch test NAME|all [--vehicle V] [--set path=value ...] [--log DIR]"""
    ap = Parser(prog="contactpatch test", description="Run standard test drives and print "
                                 "their figures (Markdown); write each drive's telemetry log as CSV.")
    ap.add_argument("name", help=f"one of {', '.join(SUITE)}, or all (all but {', '.join(LONG)})")
    ap.add_argument("--world", default="circuit", help="the lap drive's circuit: a world preset or TOML file with a "
                    "[track] (default circuit)")
    ap.add_argument("--laps", type=whole(1, what="laps"), default=4, help="the lap drive's timed laps (default 4)")
    ap.add_argument("--vehicle", default="hatchback", help="preset name or TOML file")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="change a parameter first, e.g. --set front_tire.grip=1.1 (repeatable)")
    ap.add_argument("--compare", action="store_true",
                    help="run each drive with the preset as it is and with the --set changes, side by side")
    ap.add_argument("--limit", action="append", default=[], metavar="[DRIVE/]FIGURE<=VALUE",
                    help="judge a figure by your own limit (<= or >=, in the figure's unit), e.g. --limit "
                    "'braking/stopping distance<=38' (repeatable; without DRIVE/ any drive with that figure)")
    ap.add_argument("--log", metavar="DIR", help="write each drive's telemetry log (CSV) into DIR")
    ap.add_argument("--plot", action="store_true", help="also a PNG of the key channels beside each log "
                    "(needs --log and matplotlib: pip install -e '.[plots]')")
    ap.add_argument("--log-format", choices=("csv", "parquet"), default="csv",
                    help="csv (units in the second row) or parquet (units in the field metadata; pyarrow)")
    ap.add_argument("--log-rate", type=number(0.0, 1.0 / DT, "rows per second", above=True), default=60.0, metavar="HZ",
                    help="rows per second in the log (default 60; 240 for every physics step)")
    args = ap.parse_args(argv)
    try:
        base = load_vehicle(args.vehicle)
        car = apply_sets(base, args.set)
        names = [n for n in SUITE if n not in LONG] if args.name == "all" else [args.name]
        for n in names:
            if n not in SUITE:
                raise ConfigError(f"test drive {n!r} is not known; expected one of {', '.join(SUITE)} or all")
        limits = [parse_limit(text) for text in args.limit]
        options = {}
        if "lap" in names:
            from sim.lab.drives.lap import world_of
            options["lap"] = {"world": world_of(args.world), "laps": args.laps}
    except ConfigError as exc:
        print(f"contactpatch test: {exc}", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.plot and not args.log:
        print("contactpatch test: --plot needs --log DIR (the plot is written beside the log)", file=sys.stderr)
        return Exit.BAD_INPUT
    used: set[Limit] = set()
    results = []
    for n in names:
        r = before = None
        try:
            r = run(n, car, **options.get(n, {}))
            used.update(apply_limits(r, limits))
            if args.compare:
                before = run(n, base, **options.get(n, {}))
                apply_limits(before, limits)
        except BlowUp as exc:
            which = "as loaded" if r is not None else ("with --set" if args.compare else car.name)
            print(f"contactpatch test: {n} ({which}): {exc}; the drives stop (exit status {Exit.BLEW_UP:d})",
                  file=sys.stderr)
            return Exit.BLEW_UP
        results.append(r)
        if args.compare:
            print(compare_table(before, r, ("as loaded", "with --set")))
        else:
            print(r.table())
        print(f"\n({len(r.log)} logged steps, {r.seconds:.1f} s)\n")
        if args.log:
            path = Path(args.log) / f"{n}-{car.name}.{args.log_format}"
            every = max(1, round(1.0 / (DT * args.log_rate)))
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                if args.log_format == "parquet":
                    write_parquet(r.log, path, every)
                else:
                    r.log.write_csv(path, every)
            except OSError as exc:
                print(f"contactpatch test: {path}: cannot write the log: {exc.strerror or exc}", file=sys.stderr)
                return Exit.BAD_INPUT
            except ConfigError as exc:
                print(f"contactpatch test: {exc}", file=sys.stderr)
                return Exit.BAD_INPUT
            print(f"log: {path}\n")
            if args.plot:
                png = path.with_suffix(".png")
                try:
                    plot([before, r] if args.compare else [r], png,
                         ["as loaded", "with --set"] if args.compare else None)
                except ConfigError as exc:
                    print(f"contactpatch test: {exc}", file=sys.stderr)
                    return Exit.BAD_INPUT
                print(f"plot: {png}\n")
    unused = [str(lim) for lim in limits if lim not in used]
    if unused:
        print(f"contactpatch test: no drive run here has the figure of limit {', '.join(unused)}; the figures' "
              f"names are in the tables above", file=sys.stderr)
        return Exit.BAD_INPUT
    code, line = verdict(results)
    print(line)
    return code


def verdict(results: list[Result]) -> tuple[Exit, str]:
    """The exit status of drives run and the summary line: how many drives, how many within their limits, how
    many outside as expected and how many outside their limits, with the names (and the figures) of the last
    two. A drive that shows a failure on purpose (the sine with dwell without stability control spins: its
    expect_miss figures miss their limits) counts as expected, not as a failure: Exit.FAILED only when a figure
    is outside its limit, Exit.OK otherwise."""
    failed = [r for r in results if r.failures]
    expected = [r for r in results if not r.failures and r.shown]
    within = [r for r in results if not r.failures and not r.shown]
    code = Exit.FAILED if failed else Exit.OK
    unshown = [r for r in within if r.shown is False]
    parts = [f"{len(within)} within their limits" + (" (" + "; ".join(
        f"{r.name} was expected to show that it {r.expected}, but met the limits" for r in unshown) + ")"
        if unshown else "")]
    if expected:
        parts.append(f"{len(expected)} outside as expected (" + "; ".join(f"{r.name}: {r.expected}" for r in expected)
                     + ")")
    parts.append(f"{len(failed)} outside their limits" + (" (" + "; ".join(
        f"{r.name}: {listed(r.failures)}" for r in failed) + ")" if failed else ""))
    head = f"{results[0].vehicle}: " if results else ""
    return code, f"contactpatch test: {head}{plural(len(results), 'drive')}, {', '.join(parts)}: exit status {code:d}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def sweep_command(argv: list[str] | None = None) -> int:
    """contactpatch sweep FILE --out DIR (sim/lab/sweep/cli.py)"""
    from sim.lab.sweep.cli import sweep_command as command
    return command(argv)


def compare_command(argv: list[str] | None = None) -> int:
    """contactpatch compare [--models a,b,...] [--vehicle V] [--set path=value] [--jobs N]"""
    ap = Parser(prog="contactpatch compare", description="Drive the same car on several wheel "
                                 "and tire model families and print seed 001's comparison table (Markdown).")
    ap.add_argument("--models", default=",".join(FAMILIES),
                    help=f"comma-separated families from {', '.join(FAMILIES)} (default: all)")
    ap.add_argument("--vehicle", default="hatchback", help="preset name or TOML file")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="change a parameter of the car first (every family gets it), e.g. --set chassis.mass=1300")
    ap.add_argument("--test", default="all", help=f"the drives: all ({', '.join(COMPARE_DRIVES)})")
    ap.add_argument("--jobs", type=whole(1, what="processes"), default=os.cpu_count() or 1,
                    help="processes (default: one per core)")
    args = ap.parse_args(argv)
    families = [m.strip() for m in args.models.split(",") if m.strip()]
    try:
        car = apply_sets(load_vehicle(args.vehicle), args.set)
        if args.test != "all":
            raise ConfigError(f"--test {args.test!r} is not allowed; the comparison drives all of "
                              f"{', '.join(COMPARE_DRIVES)} (--test all)")
        for f in families:
            variant(car, f)                      # names the unknown ones before anything runs
    except ConfigError as exc:
        print(f"contactpatch compare: {exc}", file=sys.stderr)
        return Exit.BAD_INPUT
    t0 = time.perf_counter()
    jobs = [(args.vehicle, args.set, f, d) for f in families for d in COMPARE_DRIVES]
    rounds = 3
    bar = progress_bar(len(jobs) + rounds * len(families), unit="run", desc="compare")
    results: dict[str, dict[str, float]] = {f: {} for f in families}
    pool = ProcessPoolExecutor(max_workers=min(args.jobs, len(jobs))) if args.jobs > 1 else None
    try:
        runs = (done.result() for done in as_completed([pool.submit(_measure_job, j) for j in jobs])) if pool \
            else map(_measure_job, jobs)
        for family, figures in runs:                  # one (family, drive) at a time, as they finish
            results[family].update(figures)
            bar.update(1)
        bar.set_postfix_str("step costs")
        for f, cost in step_costs({f: variant(car, f) for f in families}, rounds, tick=lambda: bar.update(1)).items():
            results[f]["step cost"] = cost
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        bar.close()
    print(f"### {car.name}: {len(families)} model families, the same car, dt 1/240 s, 2 substeps\n")
    print(table(results))
    print()
    for f in families:
        print(f"- {f}: {FAMILIES[f][0]}")
    from sim.lab.bench import machine
    print(f"\n({time.perf_counter() - t0:.0f} s on {machine()}; the step costs were measured one family after "
          f"another, three rounds, best of each)")
    return Exit.OK
