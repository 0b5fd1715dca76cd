"""Machinery shared by the paper reproductions (``cclab reproduce zhang2002``,
``cclab reproduce mraimd``): run a figure's points on a process pool, label and merge
their tables, write each figure's PNG and data files."""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import pandas as pd

Tables = dict[str, pd.DataFrame]


@dataclass
class FigureOutcome:
    """One reproduced figure: its measured tables, claims with verdicts, files written."""

    figure: Any
    tables: Tables = field(default_factory=dict)
    claims: list = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    runs: int = 0


@dataclass
class Outcome:
    """A whole reproduction: where it went, at which sizes, every figure's outcome."""

    out: Path
    sizes: Any
    figures: list[FigureOutcome]
    wall_time_s: float
    summary: Path

    @property
    def claims(self) -> list:
        return [claim for figure in self.figures for claim in figure.claims]


def estimated_cost(scenario: dict) -> float:
    """Rough relative cost of a run: packets ∝ bottleneck rate × duration, traces ×5."""
    from cclab.core import duration_s, rate_bps

    rate = rate_bps(scenario["topology"]["bottleneck"]["rate"]) if "bottleneck" in scenario["topology"] else 1e8
    traced = 5 if any((scenario.get("trace") or {}).values()) else 1
    return rate * duration_s(scenario["duration"]) * traced


def run_points(points: Sequence[Any], measure: Callable[[Any], Tables], jobs: Optional[int], progress: bool,
               label: str) -> list[Tables]:
    """Run ``measure(point)`` for every point on a process pool, costliest first so the
    pool stays busy; return the tables in the order of ``points``."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(points) or 1))
    order = sorted(range(len(points)), key=lambda index: -estimated_cost(points[index].scenario))
    measured: list[Optional[Tables]] = [None] * len(points)
    with ProcessPoolExecutor(max_workers=workers) as pool, progress_bar(label, progress, len(points)) as advance:
        futures = {pool.submit(measure, points[index]): index for index in order}
        for future in as_completed(futures):
            measured[futures[future]] = future.result()
            advance()
    return measured  # type: ignore[return-value]


def label_tables(tables: Tables, labels: dict) -> Tables:
    """Prefix every table with the point's labels (protocol, x, seed, ...) as columns."""
    labelled = {}
    for name, table in tables.items():
        table = table.copy()
        for position, (key, value) in enumerate(labels.items()):
            table.insert(position, key, value)
        labelled[name] = table
    return labelled


def concat_tables(per_run: list[Tables]) -> Tables:
    """One table per name across runs (a name missing from some runs is allowed)."""
    names = list(dict.fromkeys(name for tables in per_run for name in tables))
    return {name: pd.concat([t[name] for t in per_run if name in t], ignore_index=True) for name in names}


@contextmanager
def progress_bar(label: str, enabled: bool, total: int):
    """A rich progress bar on stderr; yields the function that advances it."""
    if not enabled:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True)) as bar:
        task = bar.add_task("runs", total=total)
        yield lambda: bar.advance(task)


def write_figure(figure: Any, tables: Tables, out: Path) -> list[Path]:
    """``figure.stem``.png (drawn by ``figure.plot``) and each table as CSV + Parquet;
    the first table is the figure's data, the others get ``_<name>`` suffixes."""
    files = []
    for index, (name, table) in enumerate(tables.items()):
        stem = figure.stem if index == 0 else f"{figure.stem}_{name}"
        table.to_parquet(out / f"{stem}.parquet", index=False)
        table.to_csv(out / f"{stem}.csv", index=False)
        files += [out / f"{stem}.csv", out / f"{stem}.parquet"]
    png = out / f"{figure.stem}.png"
    figure.plot(tables, png)
    return [png, *files]


def verdict_preamble(counts: dict, quick: bool) -> list[str]:
    """The summary lines every reproduction shares: verdict tally, and the quick-mode caveat."""
    lines = ["Verdicts: " + ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count) + ". "
             "Numbers are means over seeds; a difference counts only beyond the tolerance stated in the claim."]
    if quick:
        lines += ["", "*Quick mode: shorter runs, fewer points and seeds than the paper; verdicts here are a smoke "
                      "test, the full mode's are the reproduction.*"]
    return lines
