"""Zhang & Tsaoussidis (2002), the figures of whole runs against a swept x: system
goodput over wired (Figures 2, 3) and heterogeneous networks (4), the application
success of playback (8), and friendliness: each smoothness against TCP(1, 0.5) (9–11).
What to run, what to measure, how to draw it, and what the paper claims about it."""
from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from cclab.papers.claims import DEFAULT, SUPPORTED, Claim, Rule, compare, held_count, ordered, verdict_of
from cclab.papers.zhang2002 import metrics, scenarios
from cclab.papers.zhang2002.scenarios import PROTOCOLS, protocol_label
from cclab.papers.zhang2002.shared import (
    GOODPUT_MARGIN_MBPS, LABELS, RESPONSIVE_LABEL, SMOOTH_LABEL, STANDARD_LABEL, Point, Sizes, mean_by, mean_lines,
    save, spread_note, sweep_points, values_text)
from cclab.plots import canvas


# ---------------------------------------------------------------- Figures 2 and 3 (§5.1, wired)
def measure_system(result) -> dict[str, pd.DataFrame]:
    system = result.system
    flows = result.flows
    return {"runs": pd.DataFrame([{
        "system_goodput_mbps": system["goodput_mbps"], "goodput_fairness_index": system["jain_index"],
        "bottleneck_drops": system["bottleneck_drops"], "loss_model_drops": system["loss_model_drops"],
        "timeouts": int(flows["timeouts"].sum()), "retransmitted_packets": int(flows["retransmitted_packets"].sum()),
    }])}


def wired_points(figure: int, bottleneck: str) -> Callable[[Sizes], list[Point]]:
    return lambda sizes: sweep_points(figure, sizes, lambda protocol, flows, seed: scenarios.wired(
        protocol, flows, bottleneck, sizes.duration_s, seed), sizes.flow_counts, "flows",
        labels={"bottleneck": bottleneck})


def claims_fig2(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    goodput = mean_by(runs, ["flows", "protocol"], "system_goodput_mbps").unstack()
    spread = (goodput.max(axis=1) - goodput.min(axis=1)) / goodput.max(axis=1)
    worst_n = int(spread.idxmax())
    tolerance = 0.05
    within = int((spread <= tolerance).sum())
    verdict = verdict_of(list(spread <= tolerance))
    return [Claim(
        2, "On a 10 Mb/s bottleneck the four protocols reach about the same system goodput at every N "
           "(within 5 % of each other), as the TCP-friendly equations project.",
        "the results on 10Mbps links comply with the projection of TCP-friendly equations (§5.1)",
        verdict,
        f"largest spread {spread.max():.1%} at N = {worst_n} ({values_text(goodput.loc[worst_n], 'Mb/s')}); "
        f"within 5 % at {within} of {len(spread)} values of N; median spread {spread.median():.1%}",
        Rule("system goodput of each protocol at each N (mean over seeds)",
             f"spread (max − min)/max ≤ {tolerance * 100:g} % at every N (one comparison per N)",
             f"{DEFAULT}: “comply with the projection” read as {tolerance * 100:g} % apart at most"))]


def claims_fig3(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    goodput = mean_by(runs, ["flows", "protocol"], "system_goodput_mbps").unstack()
    fewest = goodput.index.min()
    margin = GOODPUT_MARGIN_MBPS
    verdict, evidence = ordered(goodput.loc[fewest].to_dict(), [SMOOTH_LABEL, STANDARD_LABEL, RESPONSIVE_LABEL],
                                tolerance=margin)
    smooth_beats_responsive = [compare(goodput.loc[n, SMOOTH_LABEL], goodput.loc[n, RESPONSIVE_LABEL], margin) > 0
                               for n in goodput.index]
    by_beta = [protocol_label(p) for p in PROTOCOLS]  # β decreasing
    beta_verdicts = [ordered(goodput.loc[n].to_dict(), by_beta, margin)[0] == SUPPORTED for n in goodput.index]
    source = f"{DEFAULT}: {margin:g} Mb/s, 0.5 % of the 100 Mb/s bottleneck"
    return [
        Claim(3, f"On a 100 Mb/s bottleneck with a large fair share (N = {fewest}), the smooth TCP's goodput exceeds "
                 "standard TCP's, which exceeds the responsive TCP's (Hypothesis 3), by more than 0.5 Mb/s.",
              "when the fair-share for each flow is large, a smooth downward adjustment contributes to exploiting "
              "the system goodput better (§5.1); throughput of smooth TCP may be greater than the throughput of "
              "standard and responsive TCP (Hypothesis 3, §3)",
              verdict, f"N = {fewest}: {evidence} Mb/s",
              Rule(f"system goodput at N = {fewest} (mean over seeds)",
                   f"each adjacent pair ahead by more than {margin:g} Mb/s (2 comparisons)", source)),
        Claim(3, "At every N, system goodput is ordered by β: TCP(0.31, 0.875) > TCP(0.583, 0.75) > TCP(1, 0.5) > "
                 "TCP(1.25, 0.25) (each by more than 0.5 Mb/s).",
              "the result with 100Mbps bottleneck are supportive to our 3rd hypothesis (§5.1)",
              verdict_of(beta_verdicts),
              f"strict order at {sum(beta_verdicts)} of {len(beta_verdicts)} values of N; TCP(0.31, 0.875) > "
              f"TCP(1.25, 0.25) at {sum(smooth_beats_responsive)} of {len(goodput)}; mean over N: "
              f"{values_text(goodput.mean(), 'Mb/s')}",
              Rule("system goodput at each N (mean over seeds)",
                   f"an N holds when all 3 adjacent pairs are ahead by more than {margin:g} Mb/s (one comparison "
                   "per N)", source)),
    ]


# ---------------------------------------------------------------- Figure 4 (§5.1, wireless)
LOW_PER = 0.02  # "low" error rates: the lower half of the paper's 0–0.05


def claims_fig4(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    goodput = mean_by(runs, ["per", "protocol"], "system_goodput_mbps").unstack()
    low, high = goodput.index.min(), goodput.index.max()
    tolerance = GOODPUT_MARGIN_MBPS
    source = f"{DEFAULT}: {tolerance:g} Mb/s, 5 % of the 10 Mb/s wireless link"
    low_pers = [per for per in goodput.index if per <= LOW_PER]
    # One comparison per low PER: the smooth TCP ahead by more than the tolerance.
    smooth_ahead = [compare(goodput.loc[per, SMOOTH_LABEL], goodput.loc[per, RESPONSIVE_LABEL], tolerance) > 0
                    for per in low_pers]
    low_verdict = verdict_of(smooth_ahead)
    low_evidence = "; ".join(f"PER {per:g}: {goodput.loc[per, SMOOTH_LABEL]:.1f} "
                             f"{'>' if ahead else '≯'} {goodput.loc[per, RESPONSIVE_LABEL]:.1f}"
                             for per, ahead in zip(low_pers, smooth_ahead)) + f" ({held_count(smooth_ahead)} PERs)"
    high_verdict, high_evidence = ordered(goodput.loc[high].to_dict(), [RESPONSIVE_LABEL, SMOOTH_LABEL], tolerance)
    drop = 1 - goodput.loc[high] / goodput.loc[low]
    drop_margin = 0.01
    drop_verdict = verdict_of([compare(drop[SMOOTH_LABEL], drop[RESPONSIVE_LABEL], drop_margin) > 0])
    by_alpha = list(reversed(LABELS))  # α decreasing
    alpha_verdict, alpha_evidence = ordered(goodput.loc[high].to_dict(), by_alpha, tolerance)
    crossing = [per for per in goodput.index
                if compare(goodput.loc[per, RESPONSIVE_LABEL], goodput.loc[per, SMOOTH_LABEL], tolerance) > 0]
    return [
        Claim(4, f"At each low error rate (PER ≤ {LOW_PER:g}) the smooth TCP's goodput is higher than the responsive "
                 "TCP's (by > 0.5 Mb/s).",
              "When the error rate is low, the smooth TCP attain higher goodput (§5.1)",
              low_verdict, f"{SMOOTH_LABEL} vs {RESPONSIVE_LABEL}: {low_evidence} Mb/s",
              Rule(f"system goodput at each PER ≤ {LOW_PER:g} (mean over seeds)",
                   f"{SMOOTH_LABEL} ahead of {RESPONSIVE_LABEL} by more than {tolerance:g} Mb/s (one comparison "
                   "per PER)", f"{source}; “low” = the lower half of the paper's 0–0.05")),
        Claim(4, f"From PER {low:g} to {high:g} the smooth TCP's goodput falls by a larger fraction than the "
                 "responsive TCP's.",
              "smooth TCP's goodput performance degrades faster (§5.1)",
              drop_verdict, f"drop {SMOOTH_LABEL} {drop[SMOOTH_LABEL]:.1%} vs {RESPONSIVE_LABEL} "
                            f"{drop[RESPONSIVE_LABEL]:.1%}",
              Rule(f"goodput lost from PER {low:g} to {high:g}, as a fraction of the PER {low:g} goodput",
                   f"{SMOOTH_LABEL}'s fraction larger by more than {drop_margin * 100:g} percentage point "
                   "(one comparison)",
                   f"{DEFAULT}: one percentage point")),
        Claim(4, f"At PER {high:g} the responsive TCP outperforms the smooth TCP.",
              "responsive TCP outperforms the smooth one (§5.1)",
              high_verdict, f"{high_evidence} Mb/s; responsive ahead at PER "
                            f"{', '.join(f'{per:g}' for per in crossing) or 'none'}",
              Rule(f"system goodput at PER {high:g} (mean over seeds)",
                   f"{RESPONSIVE_LABEL} ahead of {SMOOTH_LABEL} by more than {tolerance:g} Mb/s (one comparison)",
                   source)),
        Claim(4, f"At PER {high:g} goodput follows α, not β: TCP(1.25, 0.25) > TCP(1, 0.5) > TCP(0.583, 0.75) > "
                 "TCP(0.31, 0.875).",
              "Here the choice of β doesn't make much difference, unlike the high α value of TCP(1.25, 0.25) which "
              "permits a more aggressive behavior (§5.1)",
              alpha_verdict, f"{alpha_evidence} Mb/s",
              Rule(f"system goodput at PER {high:g} (mean over seeds)",
                   f"each adjacent pair of the α order ahead by more than {tolerance:g} Mb/s (3 comparisons)",
                   source)),
    ]


# ---------------------------------------------------------------- Figure 8 (§5.3, playback)
def measure_playback(result) -> dict[str, pd.DataFrame]:
    return {"runs": pd.DataFrame([{
        "success_70_percent": metrics.application_success(result, 70.0),
        "system_goodput_mbps": result.system["goodput_mbps"],
        "timeouts": int(result.flows["timeouts"].sum()),
    }])}


def breakdown_per(success: pd.Series, fraction: float = 0.5) -> float:
    """The packet error rate at which a success-vs-PER curve (index PER) first falls below
    ``fraction`` of its value at the lowest PER, interpolated linearly; NaN if it never does."""
    curve = success.sort_index()
    level = fraction * curve.iloc[0]
    below = np.flatnonzero(curve.to_numpy() < level)
    if below.size == 0:
        return math.nan
    right = below[0]
    if right == 0:
        return float(curve.index[0])
    (x0, y0), (x1, y1) = (curve.index[right - 1], curve.iloc[right - 1]), (curve.index[right], curve.iloc[right])
    return float(x0 + (y0 - level) * (x1 - x0) / (y0 - y1))


def claims_fig8(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    success = mean_by(runs, ["per", "protocol"], "success_70_percent").unstack()
    low = success.index.min()
    tolerance = 1.0  # percentage points
    low_verdict, low_evidence = ordered(success.loc[low].to_dict(), [SMOOTH_LABEL, RESPONSIVE_LABEL], tolerance)
    breakdown = pd.Series({name: breakdown_per(success[name]) for name in LABELS})
    others = breakdown.drop(SMOOTH_LABEL)
    per_margin = 0.001
    first_to_break = bool(breakdown.notna()[SMOOTH_LABEL]) and bool((others.isna() | (others - breakdown[
        SMOOTH_LABEL] > per_margin)).all())
    return [
        Claim(8, f"At a low error rate (PER {low:g}) the smooth TCP has a higher 70 % application success "
                 "percentage than the responsive TCP (by > 1 point).",
              "When the error rate is low, smooth TCP outperforms responsive TCP (§5.3)",
              low_verdict, f"{low_evidence} %",
              Rule(f"70 % application success percentage at PER {low:g} (mean over seeds)",
                   f"{SMOOTH_LABEL} ahead of {RESPONSIVE_LABEL} by more than {tolerance:g} percentage point "
                   "(one comparison)", f"{DEFAULT}: one percentage point")),
        Claim(8, "As errors become dense, TCP(0.31, 0.875) breaks down first: its success percentage falls below half "
                 "its error-free value at a lower PER than any other protocol's (by > 0.001).",
              "when the error rate becomes dense the application success percentage of TCP(0.31, 0.875) degrades "
              "sharply (§5.3)",
              verdict_of([first_to_break]),
              "PER at half the error-free success: " + values_text(breakdown, fmt=".3f") + "; success by PER: " + "; ".join(
                  f"{per:g}: " + "/".join(f"{value:.0f}" for value in success.loc[per, LABELS])
                  for per in success.index) + " % (protocols smoothest first)",
              Rule("the PER at which the success percentage first falls below half its lowest-PER value "
                   "(linear interpolation; never = no breakdown)",
                   f"{SMOOTH_LABEL}'s lower than every other protocol's by more than {per_margin:g} (one comparison)",
                   f"{DEFAULT}: “degrades sharply” read as halving; {per_margin:g} is a fifth of the smallest PER "
                   "step, 0.005")),
    ]


# ---------------------------------------------------------------- Figures 9–11 (§5.4, friendliness)
FRIENDLINESS_BOTTLENECKS = ("10Mbps", "100Mbps")  # the paper shows 10 Mb/s, describes 100 Mb/s


def measure_pair(result) -> dict[str, pd.DataFrame]:
    groups = result.groups.set_index("name")["goodput_mbps"]
    rows = [{"group": name, "aggregated_goodput_mbps": float(goodput),
             "share": metrics.protocol_share(result, name)} for name, goodput in groups.items()]
    return {"runs": pd.DataFrame(rows)}


def pair_points(figure: int, protocol) -> Callable[[Sizes], list[Point]]:
    def points(sizes: Sizes) -> list[Point]:
        return [point for bottleneck in FRIENDLINESS_BOTTLENECKS for point in sweep_points(
            figure, sizes, lambda p, flows, seed, bottleneck=bottleneck: scenarios.friendliness(
                p, flows, bottleneck, sizes.duration_s, seed),
            sizes.flow_counts, "flows", protocols=[protocol], labels={"bottleneck": bottleneck})]
    return points


def plot_pair(protocol) -> Callable:
    label = protocol_label(protocol)

    def plot(tables: dict[str, pd.DataFrame], path: Path) -> None:
        runs = tables["runs"]
        figure, axes = canvas.subplots(1, 2, figsize=(11, 4.2))
        for axis, bottleneck in zip(axes, FRIENDLINESS_BOTTLENECKS):
            at_rate = runs[runs["bottleneck"] == bottleneck]
            mean_lines(axis, at_rate, "flows", "aggregated_goodput_mbps", hue="group",
                       order=[label, STANDARD_LABEL])
            fair = at_rate.groupby(["flows", "seed"])["aggregated_goodput_mbps"].sum().groupby("flows").mean() / 2
            axis.plot(fair.index, fair.values, color="black", linestyle="--", linewidth=0.9, label="fair share (½)")
            shown = "as in the paper" if bottleneck == "10Mbps" else "described, not shown, in the paper"
            axis.set_title(f"{bottleneck} bottleneck ({shown})", fontsize=9)
            axis.set_xlabel("Number of flows (half of each protocol)")
            axis.set_ylabel("Aggregated protocol goodput (Mb/s)")
            axis.set_ylim(bottom=0)
            axis.legend(fontsize="small")
        figure.suptitle(f"{label} competing with TCP(1, 0.5) flows ({spread_note(runs)})", fontsize=10)
        save(figure, path)

    return plot


def _pair_share(runs: pd.DataFrame, label: str, bottleneck: str) -> pd.Series:
    """Mean share of the system goodput taken by ``label``'s group, per N."""
    rows = runs[(runs["bottleneck"] == bottleneck) & (runs["group"] == label)]
    return rows.groupby("flows")["share"].mean()


def claims_pair(figure: int, protocol) -> Callable:
    label = protocol_label(protocol)
    is_smooth = protocol[1] > 0.5

    def claims(tables, sizes) -> list[Claim]:
        runs = tables["runs"]
        share = _pair_share(runs, label, "10Mbps")
        large = share[share.index >= 50] if (share.index >= 50).any() else share.tail(1)
        tolerance = 0.025  # share points: 47.5–52.5 % counts as fair
        if is_smooth:
            held = [compare(0.5, value, tolerance) > 0 for value in large]
            statement = (f"On 10 Mb/s with many flows (N ≥ {large.index.min()}), {label} is too conservative: "
                         "standard TCP takes more than half of the goodput (its share > 52.5 %).")
            quote = ("with 10 Mbps bottleneck and a large number of flows, smooth TCP appears to be too conservative, "
                     "allowing the standard TCP to consume bandwidth more aggressively, exceeding its fair share (§5.4)")
        else:
            held = [compare(value, 0.5, tolerance) > 0 for value in large]
            statement = (f"On 10 Mb/s with many flows (N ≥ {large.index.min()}), the responsive {label} takes more "
                         "than half of the goodput from standard TCP (share > 52.5 %).")
            quote = ("when smooth and responsive protocols co-exist and contention is high, the responsive protocols "
                     "may be favored (Hypothesis 2, §3; Figure 11, §5.4)")
        share_metric = "share of the system goodput taken by {}'s group, on {} (mean over seeds)"
        fair_source = f"{DEFAULT}: fair = half, give or take {tolerance * 100:g} points of share"
        first = Claim(figure, statement, quote, verdict_of(held), f"{label}'s share of the system goodput: " + _shares(share),
                      Rule(share_metric.format(label, f"10 Mb/s at each N ≥ {large.index.min()}"),
                           f"{'below' if is_smooth else 'above'} 50 % by more than {tolerance * 100:g} points "
                           "(one comparison per N)", fair_source))
        wide = _pair_share(runs, label, "100Mbps")
        fair = [abs(value - 0.5) <= 0.1 for value in wide]
        second = Claim(
            figure, f"On 100 Mb/s (not shown in the paper) {label} and standard TCP share fairly: each group's share "
                    "within 40–60 % at every N.",
            "The experiments on the 100Mbps bottleneck (not presented here due to the space limitation) demonstrate "
            "... TCP(0.31, 0.875), TCP(0.583, 0.75) and TCP(1.25, 0.25) compete fairly with standard TCP (§5.4)",
            verdict_of(fair), f"{label}'s share: " + _shares(wide),
            Rule(share_metric.format(label, "100 Mb/s at each N"), "within 40–60 % (one comparison per N)",
                 f"{DEFAULT}: “compete fairly” read as within 10 points of half"))
        return [first, second]

    return claims


def _shares(share: pd.Series) -> str:
    return ", ".join(f"N={flows} {value:.0%}" for flows, value in share.items())
