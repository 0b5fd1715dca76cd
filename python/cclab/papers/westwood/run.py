"""``cclab reproduce westwood``: the TCP Westwood ABSE paper's figures, data, PNGs and a
claim-by-claim summary.

Output (in ``out``): per figure ``<key>_<slug>.png`` and its data ``.csv`` /
``.parquet``, ``summary.md``, ``claims.csv`` and ``meta.json``. Nothing is written
unless every run succeeded.
"""
from __future__ import annotations

from os import PathLike
from typing import Any, Union

from cclab.core import version as core_version
from cclab.papers import framework
from cclab.papers.claims import markdown_table, tally
from cclab.papers.paper import Outcome, Paper, parse_count
from cclab.papers.summary import figure_section, ns2_preamble, verdict_preamble, why_preamble
from cclab.papers.westwood import scenarios
from cclab.papers.westwood.figures import FIGURES
from cclab.papers.westwood.shared import FULL, QUICK

PAPER = ("R. Wang, M. Valla, M. Y. Sanadidi and M. Gerla, \"Adaptive Bandwidth Share Estimation in TCP "
         "Westwood\", ICNP 2002")


def reproduce(out: Union[str, PathLike], quick: bool = False, seeds: Union[int, str, None] = None,
              jobs: Union[int, str, None] = None, progress: bool = True, **options: Any) -> Outcome:
    """Run the Westwood figures and write their files to ``out``.

    ``quick``: 40-s runs (Fig. 21: 80 s), 2 seeds, a few buffers / error rates / mixes per
    figure (about a minute on two cores); otherwise 100-s runs (Fig. 21: 200 s), 3 seeds
    (Figs. 9–10: 20, their estimate swings with the seed; ``seeds`` sets every figure's).
    Further options (``figures``, ``executor``, ``store``, ``from_store``, ``report``):
    :func:`cclab.papers.framework.reproduce`.
    """
    return framework.reproduce(WESTWOOD, out, quick=quick, seeds=parse_count("--seeds", seeds),
                               jobs=parse_count("--jobs", jobs), progress=progress, **options)


def summary_markdown(outcome: Outcome) -> str:
    counts = tally(outcome.claims)
    sizes = outcome.sizes
    quick = sizes.name == "quick"
    setup = scenarios.__doc__.split("What it leaves open, and our choice (the summary repeats these):", 1)[1].strip()
    lines = [
        "# TCP Westwood BE / RE / CRB / ABSE (ICNP 2002) reproduced with cclab", "",
        f"{PAPER}. Figures 2–3, 5, 7, 9–16, 18–21, `cclab reproduce westwood{' --quick' if quick else ''}`: "
        f"{sizes.name} sizes, seeds {', '.join(map(str, sizes.seeds))}"
        + (f" (Figs. 9–10: {len(sizes.two_way_seeds)}, their estimate swings with the seed)" if sizes.two_way_seeds
           else "") + f", runs of {sizes.duration_s:g} s, "
        f"cclab {core_version()}, {outcome.wall_time_s:.0f} s wall time ({outcome.simulated} of {outcome.runs} runs "
        f"simulated now, the rest read from `{outcome.store.name}`).", "",
        *verdict_preamble(counts, quick=quick, calibrated=tally(outcome.claims, calibrated=True)), *ns2_preamble(outcome), *why_preamble(outcome), "",
        "Every protocol runs NewReno loss recovery, as the paper's TCPW did, by ns-2.35's TCP rules "
        "(`profile = \"ns2\"`: its clock, windows and Newreno agent); NewReno is cclab's `reno` with "
        "`tcp.recovery = \"newreno\"`. BE is UCLA's ns-2 agent (`westwood-be` with `profile = \"ucla\"`, "
        "Agent/TCP/WestwoodNR v1.3), which made the paper's BE figures; cclab's copy matches that agent run in "
        "ns-2.35 within 5 % of goodput and estimate (`bench/ns2/westwood_ucla.md`). RE and ABSE read Eqs. 1 and "
        "4–6 with one sample per interval and τ_k from past samples (`reading = \"non_overlapping\"`).", "",
        "Setup choices where the paper is silent (`cclab.papers.westwood.scenarios`):", "", setup,
    ]
    for figure_outcome in outcome.figures:
        lines += figure_section(figure_outcome)
        lines.append(markdown_table(figure_outcome.claims, figure_outcome.ns2, figure_outcome.whys))
    return "\n".join(lines) + "\n"


WESTWOOD = Paper(
    key="westwood", citation=PAPER, figures=FIGURES, sizes={"quick": QUICK, "full": FULL},
    measure=lambda figure, result, point: figure.measure(result, point), summary=summary_markdown,
    figure_title=lambda figure: figure.title,
    ns2_partial=True)
