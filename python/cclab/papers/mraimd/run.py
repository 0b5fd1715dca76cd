"""``cclab reproduce mraimd``: run Table 1 and Figures 4–7, write data, PNGs and a summary.

Output (in ``out``): per table/figure ``<key>_<slug>.png`` and its data ``.csv`` /
``.parquet`` (one row per run; extra tables as ``<key>_<slug>_<table>.*``),
``summary.md`` (every claim, our numbers, a verdict) and ``meta.json``. Nothing is
written unless every run succeeded.
"""
from __future__ import annotations

import datetime
import json
import time
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Optional, Union

import pandas as pd

from cclab.core import ScenarioError, run_json
from cclab.core import version as core_version
from cclab.papers.claims import markdown_table, tally
from cclab.papers.framework import FigureOutcome, Outcome, verdict_preamble, concat_tables, label_tables, run_points, write_figure
from cclab.papers.mraimd.figures import FIGURES, FULL, QUICK, Point, fig7_numbers, model_windows, table1_comparison
from cclab.scenario import validate

PAPER = ("I. Psaras, M. Dianati and R. Tafazolli, \"Why Rely on Blind AIMDs? A Response-Based Approach to TCP "
         "Congestion Control\" (MR-AIMD)")


class MraimdError(ValueError):
    """Bad input to :func:`reproduce` (seed count, output directory, a scenario the engine rejects)."""


def parse_count(option: str, text: Union[str, int, None]) -> Optional[int]:
    """A whole number ≥ 1 from a command-line value (None stays None)."""
    if text is None:
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        raise MraimdError(f"{option} {text}: not a whole number") from None
    if value < 1:
        raise MraimdError(f"{option} {text}: must be at least 1")
    return value


def reproduce(out: Union[str, PathLike], quick: bool = False, seeds: Union[int, str, None] = None,
              jobs: Union[int, str, None] = None, progress: bool = True) -> Outcome:
    """Run Table 1 and Figures 4–7 and write their files to ``out``.

    ``quick``: 60 s runs, 2 seeds, 3 flow counts per figure (well under a minute on two
    cores); otherwise the paper's 200 s runs over 10–100 (Fig. 6: 5–100) flows, 5 seeds.
    """
    started = time.perf_counter()
    sizes = QUICK if quick else FULL
    count = parse_count("--seeds", seeds)
    if count is not None:
        sizes = sizes.with_seeds(count)
    jobs = parse_count("--jobs", jobs)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise MraimdError(f"--out {out}: exists and is not a directory")

    outcomes = [FigureOutcome(figure) for figure in FIGURES.values()]
    points = []
    for outcome in outcomes:
        mine = outcome.figure.points(sizes)
        try:
            validate(mine[0].scenario)
        except ScenarioError as error:
            raise MraimdError(f"{outcome.figure.title}: the engine rejects its scenario: {error}") from None
        outcome.runs = len(mine)
        points += mine
    measured = run_points(points, measure_point, jobs, progress, "mraimd")

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise MraimdError(f"--out {out}: {error.strerror}") from None
    for outcome in outcomes:
        key = outcome.figure.key
        outcome.tables = concat_tables([measured[i] for i, point in enumerate(points) if point.figure == key])
        if key == "table1":
            outcome.tables["paper_vs_cclab"] = table1_comparison(outcome.tables["runs"])
        if key == "fig7":
            outcome.tables["model"] = model_windows()
        outcome.files = write_figure(outcome.figure, outcome.tables, out)
        outcome.claims = outcome.figure.claims(outcome.tables, sizes)
    result = Outcome(out, sizes, outcomes, time.perf_counter() - started, out / "summary.md")
    result.summary.write_text(summary_markdown(result), encoding="utf-8")
    _write_meta(result, points)
    return result


def measure_point(point: Point) -> dict[str, pd.DataFrame]:
    """Worker: run one point, return its figure's tables labelled with the point's labels."""
    from cclab.results import Result

    result = Result(json.loads(run_json(json.dumps(point.scenario))))
    return label_tables(FIGURES[point.figure].measure(result, point), point.labels)


def _table1_markdown(comparison: pd.DataFrame) -> str:
    lines = ["| setting | a | flows | goodput KB/s (paper) | goodput KB/s (cclab) | retransmissions (paper) | "
             "retransmissions (cclab) | timeouts (cclab) |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in comparison.itertuples():
        paper_rtx = "–" if row.paper_retransmitted_packets != row.paper_retransmitted_packets else \
            f"{row.paper_retransmitted_packets:.0f}"
        paper_good = "–" if row.paper_goodput_kBps != row.paper_goodput_kBps else f"{row.paper_goodput_kBps:.1f}"
        lines.append(f"| {row.setting} | {row.a:g} | {row.flows} | {paper_good} | {row.goodput_kBps:.1f} | "
                     f"{paper_rtx} | {row.retransmitted_packets:.0f} | {row.timeouts:.0f} |")
    return "\n".join(lines)


def summary_markdown(outcome: Outcome) -> str:
    counts = tally(outcome.claims)
    sizes = outcome.sizes
    lines = [
        "# MR-AIMD (Psaras, Dianati & Tafazolli) reproduced with cclab", "",
        f"{PAPER}. Table 1 and Figures 4–7, `cclab reproduce mraimd{' --quick' if sizes.name == 'quick' else ''}`: "
        f"{sizes.name} sizes, seeds {', '.join(map(str, sizes.seeds))}, runs of {sizes.duration_s:g} s, "
        f"cclab {core_version()}, {outcome.wall_time_s:.0f} s wall time.", "",
        *verdict_preamble(counts, quick=sizes.name == "quick"), "",
        "Setup choices where the paper is silent (see `cclab.papers.mraimd.scenarios`): 100 Mb/s / 5 ms access links, "
        "1000-byte payloads, RED with ns-2.35's automatic thresholds and weight, the PER as Bernoulli loss at the head "
        "of the bottleneck (data direction), Table 1 without ECN, §4's AIMD both without ECN (`AIMD`, ns-2's "
        "default TCP-SACK) and with it (`AIMD+ECN`).",
    ]
    for figure_outcome in outcome.figures:
        figure = figure_outcome.figure
        lines += ["", f"## {figure.title}: {figure.caption} ({figure.section})", "",
                  f"![{figure.title}]({figure.stem}.png)", ""]
        data = ", ".join(f"`{p.name}`" for p in figure_outcome.files if p.suffix == ".csv")
        lines += [f"{figure.notes} {figure_outcome.runs} runs; data: {data}.", ""]
        if figure.key == "table1":
            lines += [_table1_markdown(figure_outcome.tables["paper_vs_cclab"]), ""]
        lines.append(markdown_table(figure_outcome.claims))
    return "\n".join(lines) + "\n"


def _write_meta(outcome: Outcome, points: Sequence[Point]) -> None:
    fig7 = next(f for f in outcome.figures if f.figure.key == "fig7")
    meta = {
        "experiment": f"mraimd: {PAPER}, Table 1 and Figures 4–7",
        "cclab_version": core_version(),
        "sizes": {key: list(value) if isinstance(value, tuple) else value for key, value in outcome.sizes.__dict__.items()},
        "wall_time_s": outcome.wall_time_s,
        "runs": len(points),
        "figure7_doubling_rtts": fig7_numbers(fig7.tables),
        "figures": {f.figure.key: {"runs": f.runs, "files": [p.name for p in f.files],
                                   "verdicts": [c.verdict for c in f.claims],
                                   "example_scenario": next(p.scenario for p in points if p.figure == f.figure.key)}
                    for f in outcome.figures},
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    (outcome.out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
