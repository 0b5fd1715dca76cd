"""``cclab reproduce mraimd``: run Table 1 and Figures 4–7, write data, PNGs and a summary.

Output (in ``out``): per table/figure ``<key>_<slug>.png`` and its data ``.csv`` /
``.parquet`` (one row per run; extra tables as ``<key>_<slug>_<table>.*``),
``summary.md`` (every claim, our numbers, a verdict) and ``meta.json``. Nothing is
written unless every run succeeded.
"""
from __future__ import annotations

from os import PathLike
from typing import Any, Union

import pandas as pd

from cclab.core import version as core_version
from cclab.papers import framework
from cclab.papers.claims import markdown_table, tally
from cclab.papers.paper import Outcome, Paper, ReproduceError, parse_count
from cclab.papers.summary import figure_section, ns2_preamble, verdict_preamble, why_preamble
from cclab.papers.mraimd.figures import FIGURES, FULL, QUICK, fig7_numbers, model_windows, table1_comparison

PAPER = ("I. Psaras, M. Dianati and R. Tafazolli, \"Why Rely on Blind AIMDs? A Response-Based Approach to TCP "
         "Congestion Control\" (MR-AIMD)")
MraimdError = ReproduceError  # its name before the reproductions shared one pipeline


def reproduce(out: Union[str, PathLike], quick: bool = False, seeds: Union[int, str, None] = None,
              jobs: Union[int, str, None] = None, progress: bool = True, **options: Any) -> Outcome:
    """Run Table 1 and Figures 4–7 and write their files to ``out``.

    ``quick``: 60 s runs, 2 seeds, 3 flow counts per figure (well under a minute on two
    cores); otherwise the paper's 200 s runs over 10–100 (Fig. 6: 5–100) flows, 5 seeds.
    Further options (``figures``, ``executor``, ``store``, ``from_store``, ``report``):
    :func:`cclab.papers.framework.reproduce`.
    """
    return framework.reproduce(MRAIMD, out, quick=quick, seeds=parse_count("--seeds", seeds),
                               jobs=parse_count("--jobs", jobs), progress=progress, **options)


def _finish(figure, tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Tables beside the runs: Table 1 next to the paper's numbers, Figure 7's model."""
    if figure.key == "table1":
        tables["paper_vs_cclab"] = table1_comparison(tables["runs"])
    if figure.key == "fig7":
        tables["model"] = model_windows()
    return tables


def _meta(outcome: Outcome) -> dict:
    fig7 = next((f for f in outcome.figures if f.figure.key == "fig7"), None)
    return {"figure7_doubling_rtts": fig7_numbers(fig7.tables)} if fig7 is not None else {}


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
        f"cclab {core_version()}, {outcome.wall_time_s:.0f} s wall time ({outcome.simulated} of {outcome.runs} runs "
        f"simulated now, the rest read from `{outcome.store.name}`).", "",
        *verdict_preamble(counts, quick=sizes.name == "quick", calibrated=tally(outcome.claims, calibrated=True)), *ns2_preamble(outcome), *why_preamble(outcome), "",
        "Setup choices where the paper is silent (see `cclab.papers.mraimd.scenarios`): 100 Mb/s / 5 ms access links, "
        "1000-byte payloads, RED with ns-2.35's automatic thresholds and weight, the PER as Bernoulli loss at the head "
        "of the bottleneck (data direction), Table 1 without ECN, §4's AIMD both without ECN (`AIMD`, ns-2's "
        "default TCP-SACK) and with it (`AIMD+ECN`).",
    ]
    for figure_outcome in outcome.figures:
        figure = figure_outcome.figure
        lines += figure_section(figure_outcome)
        if figure.key == "table1":
            lines += [_table1_markdown(figure_outcome.tables["paper_vs_cclab"]), ""]
        lines.append(markdown_table(figure_outcome.claims, figure_outcome.ns2, figure_outcome.whys))
    return "\n".join(lines) + "\n"


MRAIMD = Paper(
    key="mraimd", citation=PAPER, figures=FIGURES, sizes={"quick": QUICK, "full": FULL},
    measure=lambda figure, result, point: figure.measure(result, point), summary=summary_markdown,
    figure_title=lambda figure: figure.title,
    finish=_finish, meta=_meta)
