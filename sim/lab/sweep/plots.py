"""A sweep's PNGs (matplotlib, the optional `plots` extra): each figure against each parameter, a heat map
of each figure over a grid of exactly two parameters, and a search's convergence. Each file is written
atomically (a temp file, then a rename)."""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from sim.lab.sweep.table import Table


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


def pyplot():
    """matplotlib's pyplot on the Agg backend, or None where matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save(fig, path: Path) -> None:
    tmp = path.with_name(f".{path.stem}.cp-tmp.png")
    fig.savefig(tmp, dpi=90)
    tmp.replace(path)


def plot_all(table: Table, out: Path, grid: dict[str, list[float]], history: list[tuple[int, float]] | None = None,
             objective: str = "") -> list[Path]:
    """Write the plots; returns their paths (none without matplotlib)."""
    plt = pyplot()
    if plt is None:
        return []
    written = []
    ok = [r for r in table.ordered() if r["status"] == "ok"]
    for fig_name, unit in zip(table.figures, table.figure_units):
        y = np.array([r.get(fig_name, math.nan) for r in ok], dtype=float)
        k = len(table.paths)
        fig, axes = plt.subplots(1, k, figsize=(4.0 * k, 3.2), squeeze=False)
        for ax, p, pu in zip(axes[0], table.paths, table.param_units):
            ax.plot([r[p] for r in ok], y, ".", markersize=4)
            ax.set_xlabel(f"{p} ({pu})")
            ax.grid(True, alpha=0.3)
        axes[0, 0].set_ylabel(f"{fig_name} ({unit})")
        fig.tight_layout()
        path = out / f"{slug(fig_name)}.png"
        save(fig, path)
        plt.close(fig)
        written.append(path)
        if len(grid) == 2 and len(table.paths) == 2:
            written.append(heat_map(plt, table, out, grid, fig_name, unit))
    if history:
        fig, ax = plt.subplots(figsize=(6.0, 3.5))
        n, v = zip(*history)
        ax.plot(n, v, ".", markersize=4, label="trial")
        ax.plot(n, np.minimum.accumulate(np.array(v, dtype=float)), "-", label="best so far")
        ax.set_xlabel("trial")
        ax.set_ylabel(objective)
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = out / "search-convergence.png"
        save(fig, path)
        plt.close(fig)
        written.append(path)
    return written


def heat_map(plt, table: Table, out: Path, grid: dict[str, list[float]], fig_name: str, unit: str) -> Path:
    (pa, xa), (pb, xb) = grid.items()
    xa, xb = sorted(xa), sorted(xb)
    z = np.full((len(xb), len(xa)), math.nan)
    for r in table.ordered():
        if r["status"] == "ok":
            z[xb.index(r[pb]), xa.index(r[pa])] = r.get(fig_name, math.nan)
    fig, ax = plt.subplots(figsize=(6.0, 4.5))
    im = ax.imshow(z, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xa)), [f"{v:.4g}" for v in xa], rotation=45)
    ax.set_yticks(range(len(xb)), [f"{v:.4g}" for v in xb])
    ax.set_xlabel(f"{pa} ({table.param_units[0]})")
    ax.set_ylabel(f"{pb} ({table.param_units[1]})")
    fig.colorbar(im, ax=ax, label=f"{fig_name} ({unit})")
    fig.tight_layout()
    path = out / f"heatmap-{slug(fig_name)}.png"
    save(fig, path)
    plt.close(fig)
    return path
