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
import time
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import Optional, Union

import pandas as pd

from cclab.core import ScenarioError, run_json
from cclab.core import version as core_version
from cclab.papers.claims import markdown_table, tally
from cclab.papers.framework import FigureOutcome, Outcome, verdict_preamble, concat_tables, label_tables, run_points, write_figure
from cclab.scenario import validate
from cclab.papers.zhang2002.figures import FIGURES, FULL, QUICK, Figure, Point, Sizes

PAPER = ("C. Zhang and V. Tsaoussidis, \"The Interrelation of TCP Responsiveness and Smoothness in Heterogeneous "
         "Networks\", ISCC 2002")


class ReproduceError(ValueError):
    """Bad input to :func:`reproduce` (a figure the paper has not, a bad seed count, an
    unusable output directory, a scenario the engine rejects): one line for the user."""


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

    measured = run_points(points, measure_point, jobs, progress, "zhang2002")

    out.mkdir(parents=True, exist_ok=True)
    for outcome in outcomes:
        outcome.tables = concat_tables([measured[index] for index, point in enumerate(points)
                                  if point.figure == outcome.figure.number])
        outcome.files = write_figure(outcome.figure, outcome.tables, out)
        outcome.claims = outcome.figure.claims(outcome.tables, sizes)
    wall_time_s = time.perf_counter() - started
    result = Outcome(out, sizes, outcomes, wall_time_s, out / "summary.md")
    result.summary.write_text(summary_markdown(result), encoding="utf-8")
    _write_meta(result, points)
    return result


def measure_point(point: Point) -> dict[str, pd.DataFrame]:
    """Worker: run one point and return its figure's tables, labelled (protocol, x, seed)."""
    from cclab.results import Result

    result = Result(json.loads(run_json(json.dumps(point.scenario))))
    tables = FIGURES[point.figure].measure(result)
    return label_tables(tables, point.labels)


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
        *verdict_preamble(counts, quick=sizes.name == "quick"),
    ]
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
