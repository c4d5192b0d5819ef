"""A search ([search] in a sweep file): Optuna's ask/tell in batches. Each round asks `batch` trials, drives
them as batches on the engine (one per worker), tells Optuna each figure, until `trials` are done. The
objective is |figure - target| (a target), the figure (minimize) or minus it (maximize); a variant that blew
up or was refused is told as a failed trial. A rerun with the same --out tells Optuna the finished rows first
and asks only the rest. Optuna (the optional `search` extra): TPE, seeded, with the constant liar for the
trials asked together."""
from __future__ import annotations

import math

from sim.lab.progress import progress_bar
from sim.lab.sweep.engine import Engine
from sim.lab.sweep.run import Progress
from sim.lab.sweep.run import Writer
from sim.lab.sweep.run import stopping
from sim.lab.sweep.spec import Search
from sim.lab.sweep.spec import Sweep
from sim.lab.sweep.summary import fmt
from sim.lab.sweep.summary import variant_text
from sim.lab.sweep.table import Table
from sim.lab.sweep.work import Job
from sim.model.files import ConfigError
from sim.model.params import Vehicle


def objective(s: Search, row: dict) -> float:
    """The number Optuna minimizes for a row (nan: the variant failed or the figure is not finite)."""
    value = row.get(s.figure) if row.get("status") == "ok" else None
    if value is None or not math.isfinite(value):
        return math.nan
    return abs(value - s.target) if s.goal == "target" else value if s.goal == "minimize" else -value


def close_enough(s: Search, study) -> bool:
    """A target with a tolerance: some finished trial is within it."""
    if s.goal != "target" or s.tolerance <= 0.0:
        return False
    done = [t.value for t in study.trials if t.value is not None]
    return bool(done) and min(done) <= s.tolerance * abs(s.target)


def optuna_module():
    try:
        import optuna
    except ImportError:
        raise ConfigError("a [search] needs Optuna: pip install -e '.[search]'") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def run_search(spec: Sweep, car: Vehicle, table: Table, engine: Engine, batch: int | None
               ) -> tuple[Progress, str, list[tuple[int, float]]]:
    """The search's trials not yet in `table`, asked and told in rounds; returns what was done, summary.md's
    search section and the objective of every trial (number, value) for the convergence plot."""
    optuna = optuna_module()
    s = spec.search
    dists = {p: optuna.distributions.FloatDistribution(lo, hi) for p, (lo, hi) in s.ranges.items()}
    sampler = optuna.samplers.TPESampler(seed=s.seed, multivariate=True, constant_liar=True,
                                         n_startup_trials=min(10, max(2, s.trials // 4)))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    prog = Progress()
    for i, row in enumerate(table.ordered()):          # a rerun: the finished trials first, numbered anew
        row["variant"] = f"t{i:06d}"
        value = objective(s, row)
        study.add_trial(optuna.trial.create_trial(
            params={p: row[p] for p in s.ranges}, distributions=dists,
            value=None if math.isnan(value) else value,
            state=optuna.trial.TrialState.FAIL if math.isnan(value) else optuna.trial.TrialState.COMPLETE))
    prog.resumed = len(table.rows)
    writer = Writer(table)
    bar = progress_bar(s.trials, prog.resumed, unit="trial")
    with stopping(engine, writer, bar, prog):
        while len(study.trials) < s.trials and not close_enough(s, study):
            asked = [study.ask(dists) for _ in range(min(s.batch, s.trials - len(study.trials)))]
            variants = [(f"t{t.number:06d}", tuple(float(t.params[p]) for p in spec.paths)) for t in asked]
            by_id = {vid: t for (vid, _), t in zip(variants, asked)}
            size = batch or max(1, math.ceil(len(variants) / max(1, engine.workers)))
            for i in range(0, len(variants), size):
                engine.submit(Job(car, spec.drives, spec.paths, variants[i:i + size]))
            for _job, rows in engine.finished():
                writer.rows(rows)
                for r in rows:
                    value = objective(s, r)
                    if math.isnan(value):
                        study.tell(by_id[r["variant"]], state=optuna.trial.TrialState.FAIL)
                        prog.failed += 1
                    else:
                        study.tell(by_id[r["variant"]], value)
                prog.driven += len(rows)
                bar.update(len(rows))
    history = [(r["variant"], objective(s, r)) for r in table.ordered()]
    history = [(int(vid[1:]), v) for vid, v in history if vid.startswith("t") and not math.isnan(v)]
    return prog, section(s, table), history


def objective_label(s: Search, table: Table) -> str:
    """What the convergence plot's axis shows, with its unit."""
    unit = table.figure_units[table.figures.index(s.figure)]
    what = {"target": f"|{s.figure} - {s.target:g}|", "minimize": s.figure, "maximize": f"-{s.figure}"}[s.goal]
    return f"{what} ({unit})"


def section(s: Search, table: Table) -> str:
    """summary.md's search section: the goal, the best variant and how close it came."""
    unit = table.figure_units[table.figures.index(s.figure)]
    goal = {"target": f"{s.figure} as near {s.target:g} {unit} as can be", "minimize": f"the lowest {s.figure}",
            "maximize": f"the highest {s.figure}"}[s.goal]
    scored = [(objective(s, r), r) for r in table.ordered()]
    scored = [(v, r) for v, r in scored if not math.isnan(v)]
    stop = f" (stopping within {100.0 * s.tolerance:g} % of the target)" if s.tolerance else ""
    lines = ["## Search", "", f"Optuna (TPE, seed {s.seed}), {len(table.rows)} of at most {s.trials} trials, asked "
             f"{s.batch} at a time; the goal: {goal}{stop}.", ""]
    if not scored:
        return "\n".join(lines + ["No trial finished with the figure."])
    best_value, best = min(scored, key=lambda vr: vr[0])
    value = best[s.figure]
    lines.append(f"Best: {best['variant']} ({variant_text(table, best)}): {s.figure} = {fmt(value)} {unit}")
    if s.goal == "target":
        rel = f", {100.0 * best_value / abs(s.target):.3g} % of the target" if s.target != 0.0 else ""
        lines[-1] += f", {fmt(best_value)} {unit} from the target{rel}."
    else:
        lines[-1] += "."
    return "\n".join(lines)
