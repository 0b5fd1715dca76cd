"""``cclab reproduce zhang2002``: Figures 2–11 through the one reproduction pipeline
(:mod:`cclab.papers.framework`).

Output (in ``out``): per figure ``figNN_<slug>.png`` and its data ``figNN_<slug>.csv``
/ ``.parquet`` (one row per run, or per run and time bin; extra tables as
``figNN_<slug>_<table>.*``), ``scenarios/figNN_<slug>.toml`` (one run's scenario),
``summary.md`` (every claim the paper makes about each figure, our numbers and a
verdict), ``meta.json`` (sizes, seeds, versions, timing), the results store
``runs.duckdb`` and, with ``report``, ``report.html``.
"""
from __future__ import annotations

from collections.abc import Iterable
from os import PathLike
from typing import Any, Optional, Union

from cclab.core import version as core_version
from cclab.papers import framework
from cclab.papers.claims import markdown_table, tally
from cclab.papers.paper import Outcome, Paper
from cclab.papers.summary import ns2_preamble, verdict_preamble, why_preamble
from cclab.papers.zhang2002.figures import FIGURES
from cclab.papers.zhang2002.shared import FULL, QUICK

PAPER = ("C. Zhang and V. Tsaoussidis, \"The Interrelation of TCP Responsiveness and Smoothness in Heterogeneous "
         "Networks\", ISCC 2002")


def parse_figures(values: Optional[Iterable[Union[int, str]]]) -> list[int]:
    """Figure numbers from ``--figure`` values (all of 2–11 when none are given), named
    as for every paper: ``7``, ``fig7``, ``Figure 7`` (:meth:`Paper.select`)."""
    return sorted(ZHANG2002.select(values))


def reproduce(out: Union[str, PathLike], quick: bool = False, figures: Optional[Iterable[Union[int, str]]] = None,
              seeds: Optional[int] = None, jobs: Optional[int] = None, progress: bool = True, **options: Any) -> Outcome:
    """Run the selected figures (default all, 2–11) and write their files to ``out``.

    ``quick``: the :data:`QUICK` sizes (about a minute on two cores) instead of the
    paper's (:data:`FULL`: 100 s, up to 100 flows, 100 Mb/s). ``seeds``: replications
    per point (default 3 quick, 5 full). Further options (``executor``, ``store``,
    ``from_store``, ``report``): :func:`cclab.papers.framework.reproduce`.
    """
    return framework.reproduce(ZHANG2002, out, quick=quick, figures=parse_figures(figures), seeds=seeds, jobs=jobs,
                               progress=progress, **options)


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
        f"cclab {core_version()}, {outcome.wall_time_s:.0f} s wall time "
        f"({outcome.simulated} of {outcome.runs} runs simulated now, the rest read from `{outcome.store.name}`).",
        "",
        *verdict_preamble(counts, quick=sizes.name == "quick"), *ns2_preamble(outcome), *why_preamble(outcome),
    ]
    for figure_outcome in outcome.figures:
        figure = figure_outcome.figure
        lines += ["", f"## Figure {figure.number}: {figure.caption} ({figure.section})", ""]
        data = ", ".join(f"`{path.name}`" for path in figure_outcome.files if path.suffix == ".csv")
        lines += [f"![Figure {figure.number}]({figure.stem}.png)", "",
                  f"{figure.notes} {figure_outcome.runs} runs; data: {data}; scenario: "
                  f"`scenarios/{figure_outcome.scenario.name}`.", ""]
        lines.append(markdown_table(figure_outcome.claims, figure_outcome.ns2, figure_outcome.whys))
    return "\n".join(lines) + "\n"


ZHANG2002 = Paper(
    key="zhang2002", citation=PAPER, figures=FIGURES, sizes={"quick": QUICK, "full": FULL},
    measure=lambda figure, result, point: figure.measure(result), summary=summary_markdown,
    figure_title=lambda figure: f"Figure {figure.number}")
