"""Zhang & Tsaoussidis (2002), the figures over time: allotted goodput through handoffs
(Figure 5) and allotted fairness and goodput while the population grows or shrinks
(6, 7). What to run, what to measure, how to draw it, and what the paper claims about
it."""
from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cclab.core import duration_s, rate_bps
from cclab.papers.claims import DEFAULT, FROM_PAPER, Claim, Rule, compare, held_count, ordered, verdict_of
from cclab.papers.zhang2002 import metrics, scenarios
from cclab.papers.zhang2002.scenarios import PROTOCOLS, protocol_label
from cclab.papers.zhang2002.shared import (
    COLORS, FAIRNESS_MARGIN, LABELS, PAYLOAD_SHARE, RESPONSIVE_LABEL, SMOOTH_LABEL, STANDARD_LABEL, TIME_MARGIN_S,
    Point, Sizes, mean_lines, save, spread_note, values_text)
from cclab.plots import canvas


# ---------------------------------------------------------------- Figure 5 (§5.1, handoffs)
def measure_handoffs(result) -> dict[str, pd.DataFrame]:
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


def handoff_points(sizes: Sizes) -> list[Point]:
    points = []
    for protocol in PROTOCOLS:
        for seed in sizes.seeds:
            scenario = scenarios.handoffs(protocol, sizes.handoff_duration_s, seed)
            scenario["trace"] = {"flows": True}
            points.append(Point(5, {"protocol": protocol_label(protocol), "seed": seed}, scenario))
    return points


def plot_handoffs(tables: dict[str, pd.DataFrame], path: Path) -> None:
    series, handoffs = tables["series"], tables["handoffs"]
    first_seed = series["seed"].min()
    figure = canvas.figure(figsize=(11, 7))
    grid = figure.add_gridspec(len(LABELS), 2, width_ratios=(3, 1.3))
    axes = [figure.add_subplot(grid[row, 0]) for row in range(len(LABELS))]
    for axis, name in zip(axes, LABELS):
        one = series[(series["protocol"] == name) & (series["seed"] == first_seed)]
        canvas.bin_steps(axis, one["bin_start_s"], one["goodput_mbps"], color=COLORS[name], linewidth=1.2)
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
    save(figure, path)


def claims_fig5(tables, sizes) -> list[Claim]:
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
              f"ssthresh ≤ 2 after {held_count(cut_to_two)} handoffs; by protocol: " + values_text(at_two[LABELS], fmt=".0%"),
              Rule("ssthresh just after each handoff outage (every protocol, seed and handoff)",
                   "at most 2 packets (one comparison per handoff)", f"{FROM_PAPER}: “ssthresh to 2”")),
        Claim(5, "After the link returns, the responsive TCP regains its rate faster: TCP(1.25, 0.25) > TCP(1, 0.5) > "
                 "TCP(0.31, 0.875) in mean goodput over the 3 s after resumption (by > 0.1 Mb/s).",
              "After the handoff period is over, a responsive TCP recovers faster (§5.1)",
              faster_verdict, f"{faster_evidence} Mb/s; reaching half the link rate before the next handoff: "
                              f"{values_text(reached[LABELS], fmt='.0%')} of handoffs, median time "
                              f"{values_text(median_recovery[LABELS], 's', '.2f')}",
              Rule("mean goodput in the 3 s after the link returns (mean over handoffs and seeds)",
                   f"each adjacent pair ahead by more than {regain_margin:g} Mb/s (2 comparisons)",
                   f"{DEFAULT}: {regain_margin:g} Mb/s, 1 % of the 10 Mb/s wireless link")),
        Claim(5, "The responsive TCP's 1-s allotted goodput varies less (lower coefficient of variation outside "
                 "outages) than the smooth TCP's.",
              "a responsive TCP recovers faster and attains smoother rates (§5.1)",
              verdict_of([compare(variation[SMOOTH_LABEL], variation[RESPONSIVE_LABEL], variation_margin) > 0]),
              "coefficient of variation " + values_text(variation[LABELS], fmt=".2f"),
              Rule("coefficient of variation of the 1-s allotted goodput over bins with data (mean over seeds)",
                   f"{SMOOTH_LABEL}'s higher than {RESPONSIVE_LABEL}'s by more than {variation_margin:g} (one "
                   "comparison)", f"{DEFAULT}: standard deviations apart by 2 % of the mean")),
    ]


# ---------------------------------------------------------------- Figures 6 and 7 (§5.2, dynamic)
def measure_allotted(result) -> dict[str, pd.DataFrame]:
    return {"series": result.system_bins.rename(columns={"goodput_mbps": "allotted_goodput_mbps",
                                                         "jain_index": "allotted_fairness"})}


def dynamic_points(figure: int, schedule) -> Callable[[Sizes], list[Point]]:
    return lambda sizes: [
        Point(figure, {"protocol": protocol_label(protocol), "seed": seed},
              scenarios.dynamic(protocol, schedule, duration_s=sizes.dynamic_duration_s, seed=seed))
        for protocol in PROTOCOLS for seed in sizes.seeds]


def _step_times(schedule) -> list[float]:
    return [duration_s(time) for time, _ in schedule[1:]]


def plot_dynamic(value: str, ylabel: str, caption: str, schedule, ylim=None) -> Callable:
    def plot(tables: dict[str, pd.DataFrame], path: Path) -> None:
        series = tables["series"]
        figure, axis = canvas.subplots(figsize=(8, 4.4))
        mean_lines(axis, series.assign(bin_mid_s=series["bin_start_s"] + 0.5), "bin_mid_s", value,
                   markers=False)
        for time_s in _step_times(schedule):
            axis.axvline(time_s, color="grey", linewidth=0.7, linestyle=":")
        steps = ", ".join(f"{number} from {time}" for time, number in schedule)
        axis.set_xlabel(f"Time (s); dotted: N changes ({steps})")
        axis.set_ylabel(ylabel)
        if ylim:
            axis.set_ylim(*ylim)
        axis.set_title(f"{caption}\n({spread_note(series)}, 1-s bins)", fontsize=10)
        axis.legend(fontsize="small", loc="lower right")
        save(figure, path)

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


def claims_fig6(tables, sizes) -> list[Claim]:
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
              late_verdict, f"mean 35–{min(45, end):g} s: " + values_text(late, fmt=".3f")
              + f" (ahead of {held_count(ahead_of_each)} others)",
              Rule(f"allotted fairness, mean over 35–{min(45, end):g} s and seeds",
                   f"{RESPONSIVE_LABEL} above each other protocol by more than {FAIRNESS_MARGIN:g} (3 comparisons)",
                   fairness_source)),
    ]


RECOVERY_CAP_S = 5.0  # the spacing of Figure 7's steps: one cap for every step


def claims_fig7(tables, sizes) -> list[Claim]:
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
              f"mean 15–{end:g} s: " + values_text(after, "Mb/s", ".4g"),
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
