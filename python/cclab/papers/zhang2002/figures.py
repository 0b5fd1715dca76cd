"""Figures 2–11 of Zhang & Tsaoussidis (2002): what to run, what to measure, how to draw
it, and what the paper claims about it.

A :class:`Figure` ties together

* ``points(sizes)``: the runs, one :class:`Point` (labels + scenario) per protocol,
  x value and seed, built by :mod:`cclab.papers.zhang2002.scenarios`;
* ``measure(result)``: the tables one run contributes (computed in the worker);
* ``plot(tables, path)``: the PNG, spread over seeds shown as a band or error bars;
* ``claims(tables, sizes)``: the paper's statements about the figure with our verdicts.

Four families share their code: goodput-like metrics against a swept x (Figures 2, 3,
4, 8), allotted metrics over time with a changing population (6, 7), one flow through
handoffs (5), and protocol pairs (9–11).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from cclab.core import duration_s, rate_bps
from cclab.papers.claims import (  # noqa: E402
    DEFAULT, FROM_PAPER, SUPPORTED, Claim, Rule, compare, held_count, ordered, verdict_of)
from cclab.papers.zhang2002 import metrics, scenarios  # noqa: E402
from cclab.papers.zhang2002.scenarios import PROTOCOLS, RESPONSIVE, SMOOTH, STANDARD, protocol_label  # noqa: E402

LABELS = [protocol_label(protocol) for protocol in PROTOCOLS]  # smoothest first
SMOOTH_LABEL, STANDARD_LABEL, RESPONSIVE_LABEL = (protocol_label(p) for p in (SMOOTH, STANDARD, RESPONSIVE))
COLORS = dict(zip(LABELS, ("tab:blue", "tab:green", "tab:orange", "tab:red")))
PAYLOAD_SHARE = scenarios.PACKET_SIZE / (scenarios.PACKET_SIZE + 40)  # goodput / link rate at best

# What counts as a real difference (claims.compare), fixed with the rules, each a small
# fraction of what it measures. Goodput: 0.5 Mb/s is 5 % of a 10 Mb/s link, 0.5 % of
# 100 Mb/s; Jain's index: 0.005 of its 0–1 range; times: half a 1-s bin.
GOODPUT_MARGIN_MBPS = 0.5
FAIRNESS_MARGIN = 0.005
TIME_MARGIN_S = 0.5


@dataclass(frozen=True)
class Sizes:
    """How big the runs are: the paper's (``FULL``) or a quick check (``QUICK``)."""

    name: str
    seeds: tuple[int, ...]
    duration_s: float  # static, wireless, playback and friendliness runs
    flow_counts: tuple[int, ...]  # Figures 2, 3, 9–11
    wireless_pers: tuple[float, ...]  # Figure 4
    playback_pers: tuple[float, ...]  # Figure 8
    dynamic_duration_s: float  # Figures 6, 7 (the population changes until 25 s)
    handoff_duration_s: float  # Figure 5

    def with_seeds(self, count: int) -> "Sizes":
        return Sizes(**{**self.__dict__, "seeds": tuple(range(1, count + 1))})


FULL = Sizes("full", seeds=(1, 2, 3, 4, 5), duration_s=100, flow_counts=tuple(range(10, 101, 10)),
             wireless_pers=(0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05),
             playback_pers=(0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.4),
             dynamic_duration_s=100, handoff_duration_s=100)
QUICK = Sizes("quick", seeds=(1, 2, 3), duration_s=30, flow_counts=(10, 30, 60, 100),
              wireless_pers=(0.0, 0.01, 0.02, 0.03, 0.05), playback_pers=(0.0, 0.005, 0.02, 0.05, 0.4),
              dynamic_duration_s=50, handoff_duration_s=50)


@dataclass(frozen=True)
class Point:
    """One run of a figure: its labels (protocol, seed, x) and its scenario."""

    figure: int
    labels: dict
    scenario: dict


@dataclass(frozen=True)
class Figure:
    number: int
    slug: str
    caption: str  # the paper's caption
    section: str
    points: Callable[[Sizes], list[Point]]
    measure: Callable[[Any], dict[str, pd.DataFrame]]
    plot: Callable[[dict[str, pd.DataFrame], Path], None]
    claims: Callable[[dict[str, pd.DataFrame], Sizes], list[Claim]]
    notes: str = ""  # how our setup differs from or interprets the paper's

    @property
    def stem(self) -> str:
        return f"fig{self.number:02d}_{self.slug}"


def _points(figure: int, sizes: Sizes, build: Callable[[tuple, Any, int], dict], xs: Sequence[Any], x_name: str,
            protocols: Sequence[tuple[float, float]] = PROTOCOLS, labels: Optional[dict] = None) -> list[Point]:
    """Every (protocol, x, seed) of a sweep, its scenario ``build(protocol, x, seed)``;
    ``labels`` (e.g. the bottleneck) are added to every point's labels."""
    return [Point(figure, {"protocol": protocol_label(protocol), x_name: x, "seed": seed, **(labels or {})},
                  build(protocol, x, seed))
            for protocol in protocols for x in xs for seed in sizes.seeds]


def _mean_by(table: pd.DataFrame, keys: Sequence[str], value: str) -> pd.Series:
    return table.groupby(list(keys), sort=False)[value].mean()


# ---------------------------------------------------------------- plotting helpers
def _lines_with_spread(axis, table: pd.DataFrame, x: str, y: str, hue: str = "protocol",
                       order: Sequence[str] = LABELS, markers: bool = True, colors=COLORS) -> None:
    """Mean over seeds as a line, min–max over seeds as a shaded band."""
    for name in order:
        rows = table[table[hue] == name]
        if rows.empty:
            continue
        stats = rows.groupby(x)[y].agg(["mean", "min", "max"]).sort_index()
        color = colors.get(name) if colors else None
        axis.plot(stats.index, stats["mean"], marker="o" if markers else None, markersize=4, color=color,
                  label=name, linewidth=1.4)
        axis.fill_between(stats.index, stats["min"], stats["max"], color=color, alpha=0.18, linewidth=0)
    axis.grid(alpha=0.3)


def _spread_note(table: pd.DataFrame) -> str:
    seeds = table["seed"].nunique()
    return f"line: mean of {seeds} seeds, band: min–max" if seeds > 1 else "one seed"


def _save(figure: plt.Figure, path: Path) -> None:
    figure.tight_layout()
    figure.set_layout_engine(None)  # no second layout pass in savefig (plotting.save)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _single_panel_plot(x: str, y: str, xlabel: str, ylabel: str, title: str,
                       ylim: Optional[tuple[float, float]] = None, symlog_below: Optional[float] = None) -> Callable:
    """A figure of ``y`` against ``x`` (the "runs" table), one line per protocol."""
    def plot(tables: dict[str, pd.DataFrame], path: Path) -> None:
        table = tables["runs"]
        figure, axis = plt.subplots(figsize=(7.5, 4.6))
        _lines_with_spread(axis, table, x, y)
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        axis.set_title(f"{title}\n({_spread_note(table)})", fontsize=10)
        if ylim:
            axis.set_ylim(*ylim)
        if symlog_below:  # linear up to symlog_below, logarithmic above: resolves small x
            axis.set_xscale("symlog", linthresh=symlog_below, linscale=1.5)
            axis.set_xlim(left=0)
            axis.set_xlabel(f"{xlabel} (linear below {symlog_below:g}, logarithmic above)")
            axis.set_xticks(sorted(table[x].unique()), [f"{value:g}" for value in sorted(table[x].unique())],
                            fontsize=7)
        axis.legend(fontsize="small")
        _save(figure, path)

    return plot


# ---------------------------------------------------------------- Figures 2 and 3 (§5.1, wired)
def _measure_system(result) -> dict[str, pd.DataFrame]:
    system = result.system
    flows = result.flows
    return {"runs": pd.DataFrame([{
        "system_goodput_mbps": system["goodput_mbps"], "goodput_fairness_index": system["jain_index"],
        "bottleneck_drops": system["bottleneck_drops"], "loss_model_drops": system["loss_model_drops"],
        "timeouts": int(flows["timeouts"].sum()), "retransmitted_packets": int(flows["retransmitted_packets"].sum()),
    }])}


def _wired_points(figure: int, bottleneck: str) -> Callable[[Sizes], list[Point]]:
    return lambda sizes: _points(figure, sizes, lambda protocol, flows, seed: scenarios.wired(
        protocol, flows, bottleneck, sizes.duration_s, seed), sizes.flow_counts, "flows",
        labels={"bottleneck": bottleneck})


def _claims_fig2(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    goodput = _mean_by(runs, ["flows", "protocol"], "system_goodput_mbps").unstack()
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
        f"largest spread {spread.max():.1%} at N = {worst_n} ({_row(goodput.loc[worst_n], 'Mb/s')}); "
        f"within 5 % at {within} of {len(spread)} values of N; median spread {spread.median():.1%}",
        Rule("system goodput of each protocol at each N (mean over seeds)",
             f"spread (max − min)/max ≤ {tolerance * 100:g} % at every N (one comparison per N)",
             f"{DEFAULT}: “comply with the projection” read as {tolerance * 100:g} % apart at most"))]


def _claims_fig3(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    goodput = _mean_by(runs, ["flows", "protocol"], "system_goodput_mbps").unstack()
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
              f"{_row(goodput.mean(), 'Mb/s')}",
              Rule("system goodput at each N (mean over seeds)",
                   f"an N holds when all 3 adjacent pairs are ahead by more than {margin:g} Mb/s (one comparison "
                   "per N)", source)),
    ]


def _row(values: pd.Series, unit: str = "", fmt: str = ".3g") -> str:
    return ", ".join(f"{name} {value:{fmt}}" for name, value in values.items()) + (f" {unit}" if unit else "")


# ---------------------------------------------------------------- Figure 4 (§5.1, wireless)
LOW_PER = 0.02  # "low" error rates: the lower half of the paper's 0–0.05


def _claims_fig4(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    goodput = _mean_by(runs, ["per", "protocol"], "system_goodput_mbps").unstack()
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


# ---------------------------------------------------------------- Figure 5 (§5.1, handoffs)
def _measure_handoffs(result) -> dict[str, pd.DataFrame]:
    bins = result.bins[["bin_start_s", "goodput_mbps"]]
    link_mbps = _rate_mbps(result.scenario["topology"]["sink_access"]["rate"]) * PAYLOAD_SHARE
    handoffs = metrics.handoff_recoveries(bins, scenarios.HANDOFF_PERIOD_S, result.duration_s, link_mbps)
    trace = result.traces["flows"]
    handoffs["ssthresh_after"] = [
        _ssthresh_at(trace, resumed) for resumed in handoffs["resumed_s"]]
    allotted = metrics.rebin(bins, 1.0)
    return {"series": allotted, "handoffs": handoffs}


def _ssthresh_at(trace: pd.DataFrame, time_s: float) -> float:
    """ssthresh in force at ``time_s`` (the last traced value before it)."""
    if math.isnan(time_s):
        return math.nan
    before = trace[trace["t_s"] <= time_s]
    return float(before["ssthresh"].iloc[-1]) if len(before) else math.nan


def _rate_mbps(rate: Any) -> float:
    """A normalized scenario rate (bits/s number or "10Mbps") in Mb/s, by the engine's rules."""
    return rate_bps(rate) / 1e6


def _handoff_points(sizes: Sizes) -> list[Point]:
    points = []
    for protocol in PROTOCOLS:
        for seed in sizes.seeds:
            scenario = scenarios.handoffs(protocol, sizes.handoff_duration_s, seed)
            scenario["trace"] = {"flows": True}
            points.append(Point(5, {"protocol": protocol_label(protocol), "seed": seed}, scenario))
    return points


def _plot_handoffs(tables: dict[str, pd.DataFrame], path: Path) -> None:
    series, handoffs = tables["series"], tables["handoffs"]
    first_seed = series["seed"].min()
    figure = plt.figure(figsize=(11, 7))
    grid = figure.add_gridspec(len(LABELS), 2, width_ratios=(3, 1.3))
    axes = [figure.add_subplot(grid[row, 0]) for row in range(len(LABELS))]
    for axis, name in zip(axes, LABELS):
        one = series[(series["protocol"] == name) & (series["seed"] == first_seed)]
        axis.step(one["bin_start_s"], one["goodput_mbps"], where="post", color=COLORS[name], linewidth=1.2)
        for start in handoffs.loc[(handoffs["protocol"] == name) & (handoffs["seed"] == first_seed), "handoff_s"]:
            axis.axvline(start, color="grey", linewidth=0.6, linestyle=":")
        axis.set_ylim(0, 10.5)
        axis.set_ylabel("Mb/s")
        axis.set_title(name, fontsize=9, loc="left")
        axis.grid(alpha=0.3)
    axes[0].sharex(axes[-1])
    axes[-1].set_xlabel(f"Time (s); dotted: handoff starts (every 5 s); seed {first_seed}")
    figure.suptitle("Figure 5: allotted goodput of one flow with handoffs (exp. outages, mean 1 s), "
                    "10 Mb/s wireless link", fontsize=10)
    box_axis = figure.add_subplot(grid[:, 1])
    recovered = [handoffs.loc[handoffs["protocol"] == name, "goodput_after_mbps"].dropna() for name in LABELS]
    box = box_axis.boxplot(recovered, vert=True, patch_artist=True, widths=0.6)
    for patch, name in zip(box["boxes"], LABELS):
        patch.set_facecolor(COLORS[name])
        patch.set_alpha(0.5)
    box_axis.set_xticks(range(1, len(LABELS) + 1), [name.replace("TCP", "") for name in LABELS], rotation=30,
                        fontsize=8)
    box_axis.set_ylabel("mean goodput in the 3 s after the link returns (Mb/s)")
    box_axis.set_title(f"all handoffs, {handoffs['seed'].nunique()} seeds", fontsize=9)
    box_axis.grid(alpha=0.3)
    _save(figure, path)


def _claims_fig5(tables, sizes) -> list[Claim]:
    handoffs, series = tables["handoffs"], tables["series"]
    observed = handoffs.dropna(subset=["resumed_s"])
    cut_to_two = list(observed["ssthresh_after"] <= 2.0 + 1e-9)  # one comparison per handoff
    at_two = observed.groupby("protocol")["ssthresh_after"].apply(lambda s: float((s <= 2.0 + 1e-9).mean()))
    after = observed.groupby("protocol")["goodput_after_mbps"].mean()
    reached = observed.groupby("protocol")["recovery_s"].apply(lambda s: float(s.notna().mean()))
    median_recovery = observed.groupby("protocol")["recovery_s"].median()
    # Smoothness: variation of the 1-s allotted goodput outside outages (bins with data).
    delivering = series[series["goodput_mbps"] > 0]
    variation = delivering.groupby(["protocol", "seed"])["goodput_mbps"].apply(
        metrics.coefficient_of_variation).groupby("protocol").mean()
    regain_margin, variation_margin = 0.1, 0.02
    faster_verdict, faster_evidence = ordered(after.to_dict(), [RESPONSIVE_LABEL, STANDARD_LABEL, SMOOTH_LABEL],
                                              regain_margin)
    return [
        Claim(5, "Every handoff outage cuts the protocol's ssthresh to 2 packets (one comparison per handoff).",
              "Since the handoff period is long enough, all protocols will reduce their window size and ssthresh "
              "to 2 (§5.1)",
              verdict_of(cut_to_two),
              f"ssthresh ≤ 2 after {held_count(cut_to_two)} handoffs; by protocol: " + _row(at_two[LABELS], fmt=".0%"),
              Rule("ssthresh just after each handoff outage (every protocol, seed and handoff)",
                   "at most 2 packets (one comparison per handoff)", f"{FROM_PAPER}: “ssthresh to 2”")),
        Claim(5, "After the link returns, the responsive TCP regains its rate faster: TCP(1.25, 0.25) > TCP(1, 0.5) > "
                 "TCP(0.31, 0.875) in mean goodput over the 3 s after resumption (by > 0.1 Mb/s).",
              "After the handoff period is over, a responsive TCP recovers faster (§5.1)",
              faster_verdict, f"{faster_evidence} Mb/s; reaching half the link rate before the next handoff: "
                              f"{_row(reached[LABELS], fmt='.0%')} of handoffs, median time "
                              f"{_row(median_recovery[LABELS], 's', '.2f')}",
              Rule("mean goodput in the 3 s after the link returns (mean over handoffs and seeds)",
                   f"each adjacent pair ahead by more than {regain_margin:g} Mb/s (2 comparisons)",
                   f"{DEFAULT}: {regain_margin:g} Mb/s, 1 % of the 10 Mb/s wireless link")),
        Claim(5, "The responsive TCP's 1-s allotted goodput varies less (lower coefficient of variation outside "
                 "outages) than the smooth TCP's.",
              "a responsive TCP recovers faster and attains smoother rates (§5.1)",
              verdict_of([compare(variation[SMOOTH_LABEL], variation[RESPONSIVE_LABEL], variation_margin) > 0]),
              "coefficient of variation " + _row(variation[LABELS], fmt=".2f"),
              Rule("coefficient of variation of the 1-s allotted goodput over bins with data (mean over seeds)",
                   f"{SMOOTH_LABEL}'s higher than {RESPONSIVE_LABEL}'s by more than {variation_margin:g} (one "
                   "comparison)", f"{DEFAULT}: standard deviations apart by 2 % of the mean")),
    ]


# ---------------------------------------------------------------- Figures 6 and 7 (§5.2, dynamic)
def _measure_allotted(result) -> dict[str, pd.DataFrame]:
    return {"series": result.system_bins.rename(columns={"goodput_mbps": "allotted_goodput_mbps",
                                                         "jain_index": "allotted_fairness"})}


def _dynamic_points(figure: int, schedule) -> Callable[[Sizes], list[Point]]:
    return lambda sizes: [
        Point(figure, {"protocol": protocol_label(protocol), "seed": seed},
              scenarios.dynamic(protocol, schedule, duration_s=sizes.dynamic_duration_s, seed=seed))
        for protocol in PROTOCOLS for seed in sizes.seeds]


def _step_times(schedule) -> list[float]:
    return [duration_s(time) for time, _ in schedule[1:]]


def _plot_dynamic(value: str, ylabel: str, caption: str, schedule, ylim=None) -> Callable:
    def plot(tables: dict[str, pd.DataFrame], path: Path) -> None:
        series = tables["series"]
        figure, axis = plt.subplots(figsize=(8, 4.4))
        _lines_with_spread(axis, series.assign(bin_mid_s=series["bin_start_s"] + 0.5), "bin_mid_s", value,
                           markers=False)
        for time_s in _step_times(schedule):
            axis.axvline(time_s, color="grey", linewidth=0.7, linestyle=":")
        steps = ", ".join(f"{number} from {time}" for time, number in schedule)
        axis.set_xlabel(f"Time (s); dotted: N changes ({steps})")
        axis.set_ylabel(ylabel)
        if ylim:
            axis.set_ylim(*ylim)
        axis.set_title(f"{caption}\n({_spread_note(series)}, 1-s bins)", fontsize=10)
        axis.legend(fontsize="small", loc="lower right")
        _save(figure, path)

    return plot


def _window_mean(series: pd.DataFrame, value: str, start_s: float, end_s: float) -> pd.Series:
    """Mean over seeds and the whole bins in [start_s, end_s), per protocol."""
    inside = series[(series["bin_start_s"] >= start_s - 1e-9) & (series["bin_start_s"] + 1 <= end_s + 1e-9)]
    return inside.groupby("protocol")[value].mean().reindex(LABELS)


def _mean_recovery(series: pd.DataFrame, value: str, step_s: float, level: Callable[[str], float],
                   until_s: float) -> pd.Series:
    """Per protocol: mean over seeds of the time after ``step_s`` until ``value`` is back
    at ``level(protocol)`` (NaN counts as the whole window)."""
    times = {}
    for name in LABELS:
        per_seed = []
        for _, one in series[series["protocol"] == name].groupby("seed"):
            found = metrics.recovery_time(one, value, step_s, level(name), until_s)
            per_seed.append(until_s - step_s if math.isnan(found) else found)
        times[name] = float(np.mean(per_seed))
    return pd.Series(times)


def _climb_speeds(series: pd.DataFrame, value: str, step_s: float, dip_within_s: float = 3.0,
                  back_at: float = 0.98) -> pd.Series:
    """Per protocol, the mean over seeds of how fast ``value`` climbs back after a step
    (§5.2, "recovery speed"): from the lowest bin within ``dip_within_s`` of the step to
    the first later bin at ``back_at`` × the mean of the 3 s before the step, in units per
    second. NaN for a protocol whose runs do not dip below that level."""
    speeds = {}
    for name in LABELS:
        per_seed = []
        for _, one in series[series["protocol"] == name].groupby("seed"):
            one = one.set_index("bin_start_s")[value]
            level = back_at * one[(one.index >= step_s - 3) & (one.index < step_s)].mean()
            window = one[(one.index >= step_s) & (one.index < step_s + dip_within_s)]
            if window.empty or window.min() >= level:
                continue
            dip_at = window.idxmin()
            later = one[(one.index > dip_at) & (one.values >= level)]
            if not later.empty:
                per_seed.append((later.iloc[0] - window.min()) / (later.index[0] - dip_at))
        speeds[name] = float(np.mean(per_seed)) if per_seed else math.nan
    return pd.Series(speeds)


def _claims_fig6(tables, sizes) -> list[Claim]:
    series = tables["series"]
    end = sizes.dynamic_duration_s
    fairness = "allotted_fairness"
    before = _window_mean(series, fairness, 5, 15)
    smooth_verdict, smooth_evidence = ordered(before.to_dict(), [SMOOTH_LABEL, STANDARD_LABEL, RESPONSIVE_LABEL],
                                              FAIRNESS_MARGIN)
    fairness_source = f"{DEFAULT}: {FAIRNESS_MARGIN:g}, 0.5 % of the index's 0–1 range"
    # In the bin where flows join, the newcomers have delivered almost nothing, so Jain's
    # index drops by construction (N/(N+k) for N equal flows joined by k idle ones). The
    # second after that, every newcomer has sent for a whole second: a drop there is the
    # protocols' own, and can fail to happen.
    drops = []
    drop_text = []
    for step in _step_times(scenarios.INCREASING_FLOWS):
        last_before = _window_mean(series, fairness, step - 1, step)
        settled = _window_mean(series, fairness, step + 1, step + 2)
        drops.extend(settled < last_before)
        drop_text.append(f"t={step:g} s: " + ", ".join(
            f"{name.replace('TCP', '')} {last_before[name]:.2f}→{settled[name]:.2f}" for name in LABELS))
    level = 0.95
    recovery = _mean_recovery(series, fairness, 25, lambda name: level, end)
    recovery_verdict, recovery_evidence = ordered(recovery.to_dict(), [RESPONSIVE_LABEL, STANDARD_LABEL, SMOOTH_LABEL],
                                                  TIME_MARGIN_S, fmt=".1f", descending=False)
    late = _window_mean(series, fairness, 35, min(45, end))
    ahead_of_each = [compare(late[RESPONSIVE_LABEL], late[name], FAIRNESS_MARGIN) > 0
                     for name in LABELS if name != RESPONSIVE_LABEL]
    late_verdict = verdict_of(ahead_of_each)
    return [
        Claim(6, "With N fixed at 12 (5–15 s), smoother protocols have higher allotted fairness: TCP(0.31, 0.875) > "
                 "TCP(1, 0.5) > TCP(1.25, 0.25).",
              "[9] claims that generating smoother traffic improves allotted fairness, as confirmed in the time "
              "period from t0=0 to t1=15 in Figure 6 (§5.2)",
              smooth_verdict, f"mean 5–15 s: {smooth_evidence}",
              Rule("allotted fairness (Jain's index of 1-s goodput), mean over 5–15 s and seeds",
                   f"each adjacent pair ahead by more than {FAIRNESS_MARGIN:g} (2 comparisons)", fairness_source)),
        Claim(6, "Allotted fairness drops for every protocol when new flows join (15, 20, 25 s): the second after "
                 "the joining one (when the newcomers have sent for a whole second) is below the second before.",
              "When new flows come in, fairness drops for all protocols (§5.2)",
              verdict_of(drops),
              f"{held_count(drops)} drops (protocol × step); " + "; ".join(drop_text),
              Rule("allotted fairness in the second after the joining one vs the second before (mean over seeds)",
                   "lower (one comparison per protocol and step); the joining second itself is left out: its idle "
                   "newcomers lower Jain's index by construction", f"{FROM_PAPER}: “fairness drops”")),
        Claim(6, f"After the last arrivals (25 s) TCP(1.25, 0.25)'s fairness is back at {level} soonest.",
              "the fairness of TCP(1.25, 0.25) recovers faster (§5.2)",
              recovery_verdict,
              f"mean time from 25 s to allotted fairness ≥ {level}: {recovery_evidence} s "
              f"(never reached counts as {end - 25:g} s)",
              Rule(f"time from 25 s until allotted fairness ≥ {level} (mean over seeds; never = the rest of the run)",
                   f"each adjacent pair sooner by more than {TIME_MARGIN_S:g} s (2 comparisons)",
                   f"{DEFAULT}: half a 1-s bin; “recovered” read as an index of {level}")),
        Claim(6, f"20 s after the first arrivals (35–{min(45, end):g} s) TCP(1.25, 0.25) has the highest allotted "
                 "fairness: above each other protocol's by more than 0.005.",
              "after a 20-second period the responsive TCP displays the highest fairness (§5.2)",
              late_verdict, f"mean 35–{min(45, end):g} s: " + _row(late, fmt=".3f")
              + f" (ahead of {held_count(ahead_of_each)} others)",
              Rule(f"allotted fairness, mean over 35–{min(45, end):g} s and seeds",
                   f"{RESPONSIVE_LABEL} above each other protocol by more than {FAIRNESS_MARGIN:g} (3 comparisons)",
                   fairness_source)),
    ]


RECOVERY_CAP_S = 5.0  # the spacing of Figure 7's steps: one cap for every step


def _claims_fig7(tables, sizes) -> list[Claim]:
    series = tables["series"]
    end = sizes.dynamic_duration_s
    goodput = "allotted_goodput_mbps"
    before = _window_mean(series, goodput, 5, 15)
    goodput_margin, level_margin = 0.2, 0.05  # Mb/s: 0.2 % and 0.05 % of the 100 Mb/s bottleneck
    source = f"{DEFAULT}: {goodput_margin:g} Mb/s, 0.2 % of the 100 Mb/s bottleneck"
    beta_verdict, beta_evidence = ordered(before.to_dict(), LABELS, goodput_margin)
    dips = []
    for step in _step_times(scenarios.DECREASING_FLOWS):
        dips.append((_window_mean(series, goodput, step, step + 1), _window_mean(series, goodput, step - 3, step)))
    first_dip = dips[0][0] < dips[0][1]
    after = _window_mean(series, goodput, 15, end)
    lowest = after.idxmin()
    highest = after.idxmax()
    # Time to recover after each step: to 98 % of the 3 s before it, within one cap for
    # every step — the 5 s between steps (never recovered counts as 5 s).
    steps = _step_times(scenarios.DECREASING_FLOWS)
    recoveries = pd.DataFrame({
        step: _mean_recovery(series, goodput, step, lambda name, step=step: 0.98 * float(
            _window_mean(series, goodput, step - 3, step)[name]), step + RECOVERY_CAP_S)
        for step in steps})
    climbs = pd.DataFrame({step: _climb_speeds(series, goodput, step) for step in steps})
    # Fastest at a step: back sooner than every other protocol, by more than half a bin.
    fastest = [compare(recoveries[step].drop(RESPONSIVE_LABEL).min(), recoveries.loc[RESPONSIVE_LABEL, step],
                       TIME_MARGIN_S) > 0 for step in steps]
    smooth_slower_when_few = compare(recoveries.loc[SMOOTH_LABEL, 25.0], recoveries.loc[SMOOTH_LABEL, 15.0],
                                     TIME_MARGIN_S) > 0
    recovery_metric = (f"time after the step until the 1-s allotted goodput is back at 98 % of the 3 s before it "
                       f"(mean over seeds; never within {RECOVERY_CAP_S:g} s = {RECOVERY_CAP_S:g} s)")
    recovery_source = f"{DEFAULT}: half a 1-s bin; the cap is the {RECOVERY_CAP_S:g} s between steps"
    return [
        Claim(7, "With N fixed at 100 (5–15 s), allotted goodput rises with β: TCP(0.31, 0.875) > TCP(0.583, 0.75) > "
                 "TCP(1, 0.5) > TCP(1.25, 0.25) (by > 0.2 Mb/s each).",
              "From t0=0 to t1=15, when the number of flows is fixed, the higher the β, the higher the allotted "
              "goodput (§5.2)", beta_verdict, f"mean 5–15 s: {beta_evidence} Mb/s",
              Rule("allotted goodput, mean over 5–15 s and seeds",
                   f"each adjacent pair of the β order ahead by more than {goodput_margin:g} Mb/s (3 comparisons)",
                   source)),
        Claim(7, "When half the flows leave at 15 s, the allotted goodput of every protocol first drops (the 15–16 s "
                 "bin is below the 12–15 s mean).",
              "the goodput initially decreases for all protocols since the resource consumption suddenly drops (§5.2)",
              verdict_of(list(first_dip)),
              "12–15 s → 15–16 s: " + ", ".join(f"{name.replace('TCP', '')} {dips[0][1][name]:.1f}→"
                                                f"{dips[0][0][name]:.1f}" for name in LABELS) + " Mb/s",
              Rule("allotted goodput in the 15–16 s bin vs its mean over 12–15 s (mean over seeds)",
                   "lower (one comparison per protocol)", f"{FROM_PAPER}: “initially decreases”")),
        Claim(7, f"Once flows leave (15–{end:g} s), TCP(0.31, 0.875) has the lowest allotted goodput.",
              "it is not surprising that TCP(0.31, 0.875)'s achieves the lowest performance (§5.2)",
              verdict_of([lowest == SMOOTH_LABEL and compare(after.drop(SMOOTH_LABEL).min(), after[SMOOTH_LABEL],
                                                                level_margin) > 0]),
              f"mean 15–{end:g} s: " + _row(after, "Mb/s", ".4g"),
              Rule(f"allotted goodput, mean over 15–{end:g} s and seeds",
                   f"{SMOOTH_LABEL} below every other protocol by more than {level_margin:g} Mb/s (one comparison)",
                   f"{DEFAULT}: {level_margin:g} Mb/s, 0.05 % of the 100 Mb/s bottleneck")),
        Claim(7, f"Once flows leave (15–{end:g} s), TCP(1, 0.5) has the highest allotted goodput.",
              "TCP(1, 0.5)'s goodput is the highest (§5.2)",
              verdict_of([highest == STANDARD_LABEL and compare(after[STANDARD_LABEL], after.drop(STANDARD_LABEL).max(),
                                                                 level_margin) > 0]),
              f"highest: {highest} ({after[highest]:.4g} Mb/s)",
              Rule(f"allotted goodput, mean over 15–{end:g} s and seeds",
                   f"{STANDARD_LABEL} above every other protocol by more than {level_margin:g} Mb/s (one comparison)",
                   f"{DEFAULT}: {level_margin:g} Mb/s, 0.05 % of the 100 Mb/s bottleneck")),
        Claim(7, "After each step decrease (15, 20, 25 s), TCP(1.25, 0.25) recovers fastest: its allotted goodput is "
                 f"back at 98 % of its pre-step level (3 s mean) sooner than every other protocol's, by more than "
                 f"0.5 s (never within {RECOVERY_CAP_S:g} s counts as {RECOVERY_CAP_S:g} s).",
              "TCP(1.25, 0.25)'s recovery speed is the fastest after the step decrease of participating flows (§5.2)",
              verdict_of(fastest),
              "time to recover: " + "; ".join(
                  f"t={step:g} s: " + ", ".join(f"{name.replace('TCP', '')} {recoveries.loc[name, step]:.2f}"
                                                for name in LABELS) for step in steps)
              + f" s ({held_count(fastest)} steps); secondary, climb from the dip: " + "; ".join(
                  f"t={step:g} s: " + (", ".join(f"{name.replace('TCP', '')} {speed:.1f}" for name, speed
                                                 in climbs[step].items() if speed == speed) or "no dips")
                  for step in steps) + " Mb/s per s",
              Rule(recovery_metric, f"{RESPONSIVE_LABEL} sooner than every other protocol by more than "
                                    f"{TIME_MARGIN_S:g} s (one comparison per step)", recovery_source)),
        Claim(7, "With fewer flows the smooth TCP takes longer to use the freed bandwidth: its recovery after the "
                 f"25 s step (25→12 flows) is slower than after the 15 s step (100→50), both within {RECOVERY_CAP_S:g} s.",
              "the smaller the number of flows, the longer it takes smooth TCP to exploit the available bandwidth "
              "when the fair share step-increases (§5.2, Observation 1)",
              verdict_of([smooth_slower_when_few]),
              f"{SMOOTH_LABEL}: {recoveries.loc[SMOOTH_LABEL, 15.0]:.2f} s after 15 s, "
              f"{recoveries.loc[SMOOTH_LABEL, 25.0]:.2f} s after 25 s",
              Rule(recovery_metric, f"{SMOOTH_LABEL}'s after 25 s longer than after 15 s by more than "
                                    f"{TIME_MARGIN_S:g} s (one comparison)", recovery_source)),
    ]


# ---------------------------------------------------------------- Figure 8 (§5.3, playback)
def _measure_playback(result) -> dict[str, pd.DataFrame]:
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


def _claims_fig8(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    success = _mean_by(runs, ["per", "protocol"], "success_70_percent").unstack()
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
              "PER at half the error-free success: " + _row(breakdown, fmt=".3f") + "; success by PER: " + "; ".join(
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


def _measure_pair(result) -> dict[str, pd.DataFrame]:
    groups = result.groups.set_index("name")["goodput_mbps"]
    rows = [{"group": name, "aggregated_goodput_mbps": float(goodput),
             "share": metrics.protocol_share(result, name)} for name, goodput in groups.items()]
    return {"runs": pd.DataFrame(rows)}


def _pair_points(figure: int, protocol) -> Callable[[Sizes], list[Point]]:
    def points(sizes: Sizes) -> list[Point]:
        return [point for bottleneck in FRIENDLINESS_BOTTLENECKS for point in _points(
            figure, sizes, lambda p, flows, seed, bottleneck=bottleneck: scenarios.friendliness(
                p, flows, bottleneck, sizes.duration_s, seed),
            sizes.flow_counts, "flows", protocols=[protocol], labels={"bottleneck": bottleneck})]
    return points


def _plot_pair(protocol) -> Callable:
    label = protocol_label(protocol)

    def plot(tables: dict[str, pd.DataFrame], path: Path) -> None:
        runs = tables["runs"]
        figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for axis, bottleneck in zip(axes, FRIENDLINESS_BOTTLENECKS):
            at_rate = runs[runs["bottleneck"] == bottleneck]
            _lines_with_spread(axis, at_rate, "flows", "aggregated_goodput_mbps", hue="group",
                               order=[label, STANDARD_LABEL])
            fair = at_rate.groupby(["flows", "seed"])["aggregated_goodput_mbps"].sum().groupby("flows").mean() / 2
            axis.plot(fair.index, fair.values, color="black", linestyle="--", linewidth=0.9, label="fair share (½)")
            shown = "as in the paper" if bottleneck == "10Mbps" else "described, not shown, in the paper"
            axis.set_title(f"{bottleneck} bottleneck ({shown})", fontsize=9)
            axis.set_xlabel("Number of flows (half of each protocol)")
            axis.set_ylabel("Aggregated protocol goodput (Mb/s)")
            axis.set_ylim(bottom=0)
            axis.legend(fontsize="small")
        figure.suptitle(f"{label} competing with TCP(1, 0.5) flows ({_spread_note(runs)})", fontsize=10)
        _save(figure, path)

    return plot


def _pair_share(runs: pd.DataFrame, label: str, bottleneck: str) -> pd.Series:
    """Mean share of the system goodput taken by ``label``'s group, per N."""
    rows = runs[(runs["bottleneck"] == bottleneck) & (runs["group"] == label)]
    return rows.groupby("flows")["share"].mean()


def _claims_pair(figure: int, protocol) -> Callable:
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


# ---------------------------------------------------------------- the figures
_WIRELESS_NOTE = ("The wireless links are the sink access links (10 Mb/s, 5 ms) with a Bernoulli error model on "
                  "the data direction (§4.1); bottleneck and source links 100 Mb/s.")
_START_NOTE = "Flows start at random in their first second; seeds differ in those phases and in the loss draws."

FIGURES: dict[int, Figure] = {figure.number: figure for figure in (
    Figure(2, "wired_10mbps", "Goodput over wired network (10Mbps bottleneck link)", "§5.1",
           _wired_points(2, "10Mbps"), _measure_system,
           _single_panel_plot("flows", "system_goodput_mbps", "Number of flows", "System goodput (Mb/s)",
                              "Figure 2: goodput over wired network (10 Mb/s bottleneck)", ylim=(0, 10.5)),
           _claims_fig2, _START_NOTE),
    Figure(3, "wired_100mbps", "Goodput over wired network (100Mbps bottleneck link)", "§5.1",
           _wired_points(3, "100Mbps"), _measure_system,
           _single_panel_plot("flows", "system_goodput_mbps", "Number of flows", "System goodput (Mb/s)",
                              "Figure 3: goodput over wired network (100 Mb/s bottleneck)"),
           _claims_fig3, _START_NOTE),
    Figure(4, "wireless_per", "Goodput over heterogeneous network (100 flows, 100Mbps bottleneck, 10Mbps wireless link)",
           "§5.1",
           lambda sizes: _points(4, sizes, lambda protocol, per, seed: scenarios.wireless(
               protocol, per, 100, sizes.duration_s, seed), sizes.wireless_pers, "per"),
           _measure_system,
           _single_panel_plot("per", "system_goodput_mbps", "Packet error rate of the wireless links",
                              "System goodput (Mb/s)", "Figure 4: goodput over heterogeneous network\n"
                              "(100 flows, 100 Mb/s bottleneck, 10 Mb/s wireless links)", ylim=(0, 100)),
           _claims_fig4, _WIRELESS_NOTE),
    Figure(5, "handoff", "Allotted throughput with 1 sec. handoff (1 flow)", "§5.1",
           _handoff_points, _measure_handoffs, _plot_handoffs, _claims_fig5,
           "One flow; bottleneck and source link 100 Mb/s, the 10 Mb/s wireless sink link goes down at 5, 10, 15, "
           "… s for an exponential time (mean 1 s, at most 5 s). Recovery is timed in 100-ms bins from the first "
           "delivery after the outage (so the retransmission timer's back-off is not counted). We read the paper's "
           "\"allotted throughput\" as allotted goodput."),
    Figure(6, "increasing_flows", "Allotted fairness with increasing number of flows", "§5.2",
           _dynamic_points(6, scenarios.INCREASING_FLOWS), _measure_allotted,
           _plot_dynamic("allotted_fairness", "Allotted fairness (Jain index over active flows)",
                         "Figure 6: allotted fairness with increasing number of flows (100 Mb/s bottleneck)",
                         scenarios.INCREASING_FLOWS, ylim=(0, 1.02)),
           _claims_fig6,
           "100 Mb/s bottleneck as in the text of §5.2 (the paper's caption says 10 Mb/s). N = 12, 25, 50, 100 "
           "from 0, 15, 20, 25 s; joining flows start at random within 1 s of their step. Fairness is Jain's index "
           "over the flows active in the bin."),
    Figure(7, "decreasing_flows", "Allotted goodput with decreasing number of flows (100Mbps bottleneck link)",
           "§5.2",
           _dynamic_points(7, scenarios.DECREASING_FLOWS), _measure_allotted,
           _plot_dynamic("allotted_goodput_mbps", "Allotted system goodput (Mb/s)",
                         "Figure 7: allotted goodput with decreasing number of flows (100 Mb/s bottleneck)",
                         scenarios.DECREASING_FLOWS),
           _claims_fig7,
           "N = 100, 50, 25, 12 from 0, 15, 20, 25 s; a leaving flow stops offering new data at its step and "
           "still repairs its losses."),
    Figure(8, "playback_success", "70% application success percentage (100 flows, 100Mbps bottleneck, 10Mbps "
           "wireless link)", "§5.3",
           lambda sizes: _points(8, sizes, lambda protocol, per, seed: scenarios.playback(
               protocol, per, 100, sizes.duration_s, seed), sizes.playback_pers, "per"),
           _measure_playback,
           _single_panel_plot("per", "success_70_percent", "Packet error rate of the wireless links",
                              "70 % application success percentage (%)",
                              "Figure 8: 70 % application success percentage\n(100 flows of 1 Mb/s CBR, "
                              "100 Mb/s bottleneck, 10 Mb/s wireless links)", ylim=(0, 102), symlog_below=0.01),
           _claims_fig8,
           "Each flow carries a 1 Mb/s CBR source writing into its TCP socket; the bottleneck is 1 Mb/s × N = "
           "100 Mb/s (§4.1). An attempt is one whole second of a flow's run; it succeeds when the flow's goodput in "
           "that second exceeds 70 % of 1 Mb/s (§4.2). " + _WIRELESS_NOTE),
    Figure(9, "friendliness_smooth", "TCP (0.31, 0.875) competing with TCP (1, 0.5) flows (10Mbps bottleneck)",
           "§5.4", _pair_points(9, SMOOTH), _measure_pair, _plot_pair(SMOOTH), _claims_pair(9, SMOOTH),
           "Half the flows TCP(0.31, 0.875), half TCP(1, 0.5); also run on 100 Mb/s (right panel). " + _START_NOTE),
    Figure(10, "friendliness_intermediate", "TCP (0.583, 0.75) competing with TCP (1, 0.5) flows (10Mbps bottleneck)",
           "§5.4", _pair_points(10, scenarios.SMOOTHER_THAN_STANDARD), _measure_pair,
           _plot_pair(scenarios.SMOOTHER_THAN_STANDARD), _claims_pair(10, scenarios.SMOOTHER_THAN_STANDARD),
           "Half the flows TCP(0.583, 0.75), half TCP(1, 0.5); also run on 100 Mb/s (right panel). " + _START_NOTE),
    Figure(11, "friendliness_responsive", "TCP (1.25, 0.25) competing with TCP (1, 0.5) flows (10Mbps bottleneck)",
           "§5.4", _pair_points(11, RESPONSIVE), _measure_pair, _plot_pair(RESPONSIVE),
           _claims_pair(11, RESPONSIVE),
           "Half the flows TCP(1.25, 0.25), half TCP(1, 0.5); also run on 100 Mb/s (right panel). " + _START_NOTE),
)}
