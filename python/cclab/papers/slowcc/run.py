"""``cclab reproduce slowcc``: the SlowCC study's figures, data, PNGs and a claim-by-claim summary."""
from __future__ import annotations

from os import PathLike
from typing import Any, Union

from cclab.core import version as core_version
from cclab.papers import framework
from cclab.papers.claims import markdown_table, tally
from cclab.papers.paper import Outcome, Paper, parse_count
from cclab.papers.summary import figure_section, ns2_preamble, verdict_preamble, why_preamble
from cclab.papers.slowcc import scenarios
from cclab.papers.slowcc.figures import FIGURES, FULL, QUICK, model_11, model_13

PAPER = ("D. Bansal, H. Balakrishnan, S. Floyd and S. Shenker, \"Dynamic Behavior of Slowly-Responsive Congestion "
         "Control Algorithms\", SIGCOMM 2001")


def reproduce(out: Union[str, PathLike], quick: bool = False, seeds: Union[int, str, None] = None,
              jobs: Union[int, str, None] = None, progress: bool = True, **options: Any) -> Outcome:
    """Run the SlowCC figures and write their files to ``out`` (quick: the stop at 100 s,
    three values of b, three periods, 2 seeds)."""
    return framework.reproduce(SLOWCC, out, quick=quick, seeds=parse_count("--seeds", seeds),
                               jobs=parse_count("--jobs", jobs), progress=progress, **options)


def finish(figure, tables):
    """Models beside the runs: f(k) for TCP(1/b) (Fig. 13), the AIMD ACK count (Fig. 11)."""
    if figure.key == "13":
        tables["model"] = model_13(sorted(tables["runs"]["b"].unique()))
    if figure.key == "12":
        tables["model"] = model_11()
    return tables


def summary_markdown(outcome: Outcome) -> str:
    counts = tally(outcome.claims)
    sizes = outcome.sizes
    quick = sizes.name == "quick"
    setup = scenarios.__doc__.split("What it leaves open, and our choice (the summary repeats these):", 1)[1].strip()
    lines = [
        "# Slowly-responsive congestion control (SIGCOMM 2001) reproduced with cclab", "",
        f"{PAPER}. Figures 11–17, `cclab reproduce slowcc{' --quick' if quick else ''}`: {sizes.name} sizes, seeds "
        f"{', '.join(map(str, sizes.seeds))}, cclab {core_version()}, {outcome.wall_time_s:.0f} s wall time "
        f"({outcome.simulated} of {outcome.runs} runs simulated now, the rest read from `{outcome.store.name}`).", "",
        *verdict_preamble(counts, quick=quick, calibrated=tally(outcome.claims, calibrated=True)), *ns2_preamble(outcome), *why_preamble(outcome), "",
        "Against ns-2.35 on Fig. 13's scenario with RED in byte mode as here (`bench/ns2/slowcc_ns2.py`, f(20) ns-2 / "
        "cclab, seeds 1–5): TCP 0.829 / 0.905 (seeds 1–20: 0.858 / 0.885), TCP(1/8) 0.757 / 0.768, TFRC(8) "
        "0.588 / 0.565 (with discounting 0.616 / 0.648), TCP(1/256) 0.510 / 0.520, TFRC(256) 0.536 / 0.542; "
        "bottleneck drops within 3 % but for TCP(1/256). In packet mode ns-2 gives TCP 0.920 and TCP(1/8) 0.805. "
        "Figs. 14–15 in ns-2.35 (the same scenarios through the translator, seeds 1–5, ns-2 / cclab): 50-ms periods "
        "TCP 0.809 / 0.811, TCP(1/8) 0.838 / 0.846, TFRC(6) 0.863 / 0.862; 200-ms 0.656 / 0.664, 0.727 / 0.738, "
        "0.692 / 0.692.", "",
        "Setup choices where the paper is silent (`cclab.papers.slowcc.scenarios`):", "", setup,
    ]
    for figure_outcome in outcome.figures:
        lines += figure_section(figure_outcome)
        lines.append(markdown_table(figure_outcome.claims, figure_outcome.ns2, figure_outcome.whys))
    return "\n".join(lines) + "\n"


SLOWCC = Paper(
    key="slowcc", citation=PAPER, figures=FIGURES, sizes={"quick": QUICK, "full": FULL},
    measure=lambda figure, result, point: figure.measure(result, point), summary=summary_markdown,
    figure_title=lambda figure: figure.title, finish=finish)
