"""``cclab reproduce zhang2002``: run Figures 2–11, write their data, PNGs and a summary.

Output (in ``out``): per figure ``figNN_<slug>.png`` and its data ``figNN_<slug>.csv``
/ ``.parquet`` (one row per run, or per run and time bin; extra tables as
``figNN_<slug>_<table>.*``), ``summary.md`` (every claim the paper makes about each
figure, our numbers and a verdict) and ``meta.json`` (sizes, seeds, versions, timing).
Nothing is written unless every run succeeded.
"""
from __future__ import annotations

import datetime
import json
import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Optional, Union

import pandas as pd

from cclab._core import ScenarioError, run_json
from cclab._core import version as core_version
from cclab.claims import Claim, markdown_table, tally
from cclab.scenario import validate
from cclab.zhang2002.figures import FIGURES, FULL, QUICK, Figure, Point, Sizes

PAPER = ("C. Zhang and V. Tsaoussidis, \"The Interrelation of TCP Responsiveness and Smoothness in Heterogeneous "
         "Networks\", ISCC 2002")


class ReproduceError(ValueError):
    """Bad input to :func:`reproduce` (a figure the paper has not, a bad seed count, an
    unusable output directory, a scenario the engine rejects): one line for the user."""


@dataclass
class FigureOutcome:
    figure: Figure
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    runs: int = 0


@dataclass
class Outcome:
    out: Path
    sizes: Sizes
    figures: list[FigureOutcome]
    wall_time_s: float
    summary: Path

    @property
    def claims(self) -> list[Claim]:
        return [claim for figure in self.figures for claim in figure.claims]


def parse_figures(values: Optional[Iterable[Union[int, str]]]) -> list[int]:
    """Figure numbers from ``--figure`` values (all of 2–11 when none are given)."""
    if not values:
        return sorted(FIGURES)
    numbers = []
    for value in values:
        try:
            number = int(str(value).strip())
        except ValueError:
            raise ReproduceError(f"--figure {value}: not a figure number (the paper's figures 2–11)") from None
        if number not in FIGURES:
            raise ReproduceError(f"--figure {value}: the paper's reproducible figures are 2–11 "
                                 "(Figure 1 is the topology)")
        if number not in numbers:
            numbers.append(number)
    return sorted(numbers)


def check_with_engine(figure: Figure, sizes: Sizes) -> None:
    """Validate one scenario of ``figure`` before anything runs (a stale engine build
    lacking a feature fails here, with the engine's one-line reason)."""
    try:
        validate(figure.points(sizes)[0].scenario)
    except ScenarioError as error:
        raise ReproduceError(f"Figure {figure.number}: the engine rejects its scenario: {error}") from None


def reproduce(out: Union[str, PathLike], quick: bool = False, figures: Optional[Iterable[Union[int, str]]] = None,
              seeds: Optional[int] = None, jobs: Optional[int] = None, progress: bool = True) -> Outcome:
    """Run the selected figures (default all, 2–11) and write their files to ``out``.

    ``quick``: the :data:`QUICK` sizes (about a minute on two cores) instead of the
    paper's (:data:`FULL`: 100 s, up to 100 flows, 100 Mb/s). ``seeds``: replications
    per point (default 3 quick, 5 full).
    """
    started = time.perf_counter()
    numbers = parse_figures(figures)
    sizes = QUICK if quick else FULL
    if seeds is not None:
        if seeds < 1:
            raise ReproduceError(f"--seeds {seeds}: need at least one seed")
        sizes = sizes.with_seeds(seeds)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReproduceError(f"--out {out}: exists and is not a directory")

    outcomes = [FigureOutcome(FIGURES[number]) for number in numbers]
    for outcome in outcomes:
        check_with_engine(outcome.figure, sizes)
    points = [point for outcome in outcomes for point in outcome.figure.points(sizes)]
    for outcome in outcomes:
        outcome.runs = sum(point.figure == outcome.figure.number for point in points)

    measured = _run_points(points, jobs, progress)

    out.mkdir(parents=True, exist_ok=True)
    for outcome in outcomes:
        outcome.tables = _concat([measured[index] for index, point in enumerate(points)
                                  if point.figure == outcome.figure.number])
        outcome.files = _write_figure(outcome.figure, outcome.tables, out)
        outcome.claims = outcome.figure.claims(outcome.tables, sizes)
    wall_time_s = time.perf_counter() - started
    result = Outcome(out, sizes, outcomes, wall_time_s, out / "summary.md")
    result.summary.write_text(summary_markdown(result), encoding="utf-8")
    _write_meta(result, points)
    return result


def _run_points(points: Sequence[Point], jobs: Optional[int], progress: bool) -> list[dict[str, pd.DataFrame]]:
    """Run every point on a process pool (largest first, so the pool stays busy) and
    return each one's measured tables, in the order of ``points``."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(points) or 1))
    order = sorted(range(len(points)), key=lambda index: -_cost(points[index].scenario))
    measured: list[Optional[dict[str, pd.DataFrame]]] = [None] * len(points)
    with ProcessPoolExecutor(max_workers=workers) as pool, _progress(progress, len(points)) as advance:
        futures = {pool.submit(measure_point, points[index]): index for index in order}
        for future in as_completed(futures):
            measured[futures[future]] = future.result()
            advance()
    return measured  # type: ignore[return-value]


def measure_point(point: Point) -> dict[str, pd.DataFrame]:
    """Worker: run one point and return its figure's tables, labelled (protocol, x, seed)."""
    from cclab.results import Result

    result = Result(json.loads(run_json(json.dumps(point.scenario))))
    tables = FIGURES[point.figure].measure(result)
    return {name: _labelled(table, point.labels) for name, table in tables.items()}


def _labelled(table: pd.DataFrame, labels: dict) -> pd.DataFrame:
    table = table.copy()
    for position, (key, value) in enumerate(labels.items()):
        table.insert(position, key, value)
    return table


def _concat(per_run: list[dict[str, pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    names = list(per_run[0])
    return {name: pd.concat([tables[name] for tables in per_run], ignore_index=True) for name in names}


def _cost(scenario: dict) -> float:
    """Rough relative cost of a run: packets offered ∝ bottleneck rate × duration."""
    rate = scenario["topology"]["bottleneck"]["rate"]
    mbps = float(str(rate).removesuffix("Mbps")) if str(rate).endswith("Mbps") else 100.0
    return mbps * float(str(scenario["duration"]).removesuffix("s"))


class _progress:
    """A rich progress bar on stderr (or nothing)."""

    def __init__(self, enabled: bool, total: int):
        self.enabled, self.total = enabled, total

    def __enter__(self):
        if not self.enabled:
            return lambda: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("zhang2002"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=Console(stderr=True))
        self.bar.__enter__()
        task = self.bar.add_task("runs", total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc):
        if self.enabled:
            self.bar.__exit__(*exc)
        return False


def _write_figure(figure: Figure, tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    files = []
    for index, (name, table) in enumerate(tables.items()):
        stem = figure.stem if index == 0 else f"{figure.stem}_{name}"
        table.to_parquet(out / f"{stem}.parquet", index=False)
        table.to_csv(out / f"{stem}.csv", index=False)
        files += [out / f"{stem}.csv", out / f"{stem}.parquet"]
    png = out / f"{figure.stem}.png"
    figure.plot(tables, png)
    return [png, *files]


def summary_markdown(outcome: Outcome) -> str:
    """The summary: per figure its picture, setup, data files and claims with verdicts."""
    counts = tally(outcome.claims)
    sizes = outcome.sizes
    lines = [
        "# Zhang & Tsaoussidis (2002) reproduced with cclab",
        "",
        f"{PAPER}. Figures 2–11, `cclab reproduce zhang2002{' --quick' if sizes.name == 'quick' else ''}`: "
        f"{sizes.name} sizes, seeds {', '.join(map(str, sizes.seeds))}, runs of {sizes.duration_s:g} s "
        f"(dynamic {sizes.dynamic_duration_s:g} s, handoff {sizes.handoff_duration_s:g} s), "
        f"cclab {core_version()}, {outcome.wall_time_s:.0f} s wall time.",
        "",
        "Verdicts: " + ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count) + ". "
        "Numbers are means over seeds; a difference counts only beyond the tolerance stated in the claim.",
    ]
    if sizes.name == "quick":
        lines += ["", "*Quick mode: shorter runs and fewer points than the paper; verdicts here are a smoke test, "
                      "the full mode's are the reproduction.*"]
    for figure_outcome in outcome.figures:
        figure = figure_outcome.figure
        lines += ["", f"## Figure {figure.number}: {figure.caption} ({figure.section})", ""]
        data = ", ".join(f"`{path.name}`" for path in figure_outcome.files if path.suffix == ".csv")
        lines += [f"![Figure {figure.number}]({figure.stem}.png)", "",
                  f"{figure.notes} {figure_outcome.runs} runs; data: {data}.", ""]
        lines.append(markdown_table(figure_outcome.claims))
    return "\n".join(lines) + "\n"


def _write_meta(outcome: Outcome, points: Sequence[Point]) -> None:
    meta = {
        "experiment": f"zhang2002: {PAPER}, Figures 2–11",
        "cclab_version": core_version(),
        "sizes": {key: list(value) if isinstance(value, tuple) else value
                  for key, value in outcome.sizes.__dict__.items()},
        "wall_time_s": outcome.wall_time_s,
        "runs": len(points),
        "figures": {
            str(figure.figure.number): {
                "runs": figure.runs,
                "files": [path.name for path in figure.files],
                "verdicts": [claim.verdict for claim in figure.claims],
                "example_scenario": next((p.scenario for p in points if p.figure == figure.figure.number), None),
            } for figure in outcome.figures},
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    (outcome.out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
