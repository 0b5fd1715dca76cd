"""The Westwood paper's figures of its estimators (§3–§4.2): Figures 2–3 and 5 (BE, RE
and ABSE estimates), 7 (ABSE's adaptive τ_k against on/off UDP), 9–10 (ACK compression
by two-way traffic) and 11 (data packet compression by cross traffic): what to run, what
to measure, how to draw it, and what the paper claims about it. Figures 7 and 11 run
with our choice of what the paper does not give (Fig. 7's on/off pattern, Fig. 11's
delays and UDP exits)."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from cclab.papers.claims import DEFAULT, FROM_ABOUT, Claim, Rule, about, compare, verdict_of
from cclab.papers.westwood import scenarios
from cclab.papers.westwood.scenarios import ABSE, BE, BE_EQ1, RE, WIRE_BYTES
from cclab.papers.westwood.shared import (
    COLORS, LINK_MARGIN, RELATIVE_MARGIN, Point, Sizes, flow_traces, sampled, time_average, to_mbps)
from cclab.plots import canvas, paper_figures


def measure_estimates(result, point: Point) -> dict[str, pd.DataFrame]:
    """Figs. 2–3, 5: each flow's time-average ERE after the warm-up, and its throughput."""
    warmup = point.labels["warmup_s"]
    rows, traces = [], []
    for flow, trace in flow_traces(result).items():
        ere = trace.assign(ere_mbps=to_mbps(trace["cc_ere_pps"]))
        goodput = float(result.flows.loc[result.flows["id"] == flow, "throughput_mbps"].iloc[0])
        rows.append({"flow": flow, "ere_mbps": time_average(ere, "ere_mbps", warmup, result.duration_s),
                     "throughput_mbps": goodput})
        if point.trace:
            traces.append(sampled(ere, ["ere_mbps", "cwnd"], 0.2, result.duration_s).assign(flow=flow))
    tables = {"runs": pd.DataFrame(rows)}
    if traces:
        tables["trace"] = pd.concat(traces, ignore_index=True)
    return tables


# ---------------------------------------------------------------- Figures 2, 3, 5: estimates
ESTIMATORS = (BE, BE_EQ1, RE, ABSE)
FAIR_SHARE = {"congestion": 2.5, "loss": 5.0}  # Mb/s: 5 Mb/s over 2 flows, or 1


def estimate_points(sizes: Sizes) -> list[Point]:
    return [Point("fig2", {"case": case, "protocol": protocol[0], "seed": seed, "warmup_s": sizes.warmup_s},
                  scenarios.estimates(protocol, case, duration_s=sizes.duration_s, seed=seed),
                  trace=seed == sizes.seeds[0])
            for case in ("congestion", "loss") for protocol in ESTIMATORS for seed in sizes.seeds]


def estimate_plot(tables, path: Path) -> None:
    trace = tables["trace"]
    figure, axes = canvas.subplots(2, 4, figsize=(19, 7), sharey="row")
    for row, case in zip(axes, ("congestion", "loss")):
        for axis, (protocol, _) in zip(row, ESTIMATORS):
            sel = trace[(trace["case"] == case) & (trace["protocol"] == protocol)]
            for flow, rows in sel.groupby("flow"):
                axis.plot(rows["t_s"], rows["ere_mbps"], linewidth=0.8, label=f"flow {flow} ERE")
            axis.axhline(FAIR_SHARE[case], color="grey", linestyle=":", label="fair share")
            where = "2 flows, congestion" if case == "congestion" else "1 flow, 1 % random errors"
            axis.set(title=f"{protocol} estimate: {where}", xlabel="time (s)", ylabel="Mb/s", ylim=(0, 8))
            axis.grid(alpha=0.3)
            axis.legend(fontsize="x-small")
    figure.suptitle("Figures 2, 3, 5: eligible-rate estimates on 5 Mb/s, 70 ms, buffer = pipe (seed 1)", fontsize=10)
    paper_figures.save(figure, path)


def estimate_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    ere = paper_figures.mean_by(runs, ["case", "protocol"], "ere_mbps")
    throughput = paper_figures.mean_by(runs, ["case", "protocol"], "throughput_mbps")
    metric = f"time-average ERE after {sizes.warmup_s:g} s, wire Mb/s, mean over flows and seeds"

    def shown(case, protocol):
        return f"{protocol} {ere[case][protocol]:.2f} Mb/s (its throughput {throughput[case][protocol]:.2f})"

    # Under congestion each of the two flows has its own estimate: judged flow by flow
    # (a mean over flows would hide one flow's estimate far above and the other's far below).
    per_flow = runs[runs["case"] == "congestion"].groupby(["protocol", "flow"])["ere_mbps"].mean()

    def flows_about(protocol, target):
        return [about(value, target) for value in per_flow[protocol]]

    def flows_shown(protocol):
        return f"{protocol} per flow: " + ", ".join(f"flow {flow} {value:.2f}" for flow, value in per_flow[protocol].items())

    be_c = ere["congestion"]["BE"]
    be_l, re_l, abse_l = (ere["loss"][p] for p in ("BE", "RE", "ABSE"))
    over = (1 + RELATIVE_MARGIN) * FAIR_SHARE["congestion"]
    eq1 = (f"; not judged, Eq. 1 as printed (not the agent the paper ran): {shown('congestion', 'BE (Eq. 1)')} "
              f"under congestion, {shown('loss', 'BE (Eq. 1)')} with errors")
    return [
        Claim("Figure 2", "Under congestion (2 flows) BE overestimates: its estimate is about 3.2 Mb/s and above the "
                          f"2.5 Mb/s fair share by more than {RELATIVE_MARGIN:.0%}.",
              "BE has an average estimate of 3.2Mbps, which is an overestimate of the fair share (2.5Mbps) (§3.1.1)",
              verdict_of([about(be_c, 3.2), be_c > over]), shown("congestion", "BE") + eq1,
              Rule(f"BE's {metric}", f"within 2.4–4.0 Mb/s and above {over:.2f} Mb/s (two comparisons)",
                   f"{FROM_ABOUT}; “overestimate”: {DEFAULT}, 10 % of the fair share")),
        Claim("Figure 2", "Under congestion each flow's RE estimate is about the fair share, 2.5 Mb/s.",
              "RE provides a right-on-target estimate slightly oscillating around the fair share (§3.1.1)",
              verdict_of(flows_about("RE", 2.5)), flows_shown("RE") + " Mb/s; " + shown("congestion", "RE"),
              Rule(f"RE's {metric.replace('mean over flows and seeds', 'each flow, mean over seeds')}",
                   "within 1.9–3.1 Mb/s (one comparison per flow)", FROM_ABOUT)),
        Claim("Figure 3", "With 1 % random errors and one flow, RE's estimate settles at about 2.4 Mb/s, far under "
                          "the 5 Mb/s the flow is entitled to.",
              "RE estimate settles at about 2.4 Mbps, under estimating its fair share (§3.1.1; the text says Fig. 2)",
              verdict_of([about(re_l, 2.4)]), shown("loss", "RE"),
              Rule(f"RE's {metric}", "within 1.8–3.0 Mb/s (one comparison)", FROM_ABOUT)),
        Claim("Figure 3", "With 1 % random errors BE's estimate is closer to the 5 Mb/s link than RE's.",
              "BE is able to obtain a more accurate estimation when the link is under utilized (§3.1.1)",
              verdict_of([compare(be_l, re_l, LINK_MARGIN * 5.0) > 0]),
              f"{shown('loss', 'BE')}; {shown('loss', 'RE')}",
              Rule(f"BE's and RE's {metric}", "BE above RE by more than 0.25 Mb/s (one comparison)",
                   f"{DEFAULT}: 5 % of the 5 Mb/s link")),
        Claim("Figure 5", "ABSE estimates the fair share under congestion (each flow about 2.5 Mb/s) and, with random "
                          "errors, "
                          "more than RE does.",
              "we evaluate the accuracy of ABSE estimates, both in the presence of network congestion (Fig. 5(a)), "
              "and in the presence of link errors (Fig. 5(b)) (§3.1.2)",
              verdict_of(flows_about("ABSE", 2.5) + [compare(abse_l, re_l, LINK_MARGIN * 5.0) > 0]),
              f"congestion: {flows_shown('ABSE')} Mb/s; errors: {shown('loss', 'ABSE')} vs "
              f"{shown('loss', 'RE')}",
              Rule(f"ABSE's {metric} (under congestion: each flow)", "each flow within 1.9–3.1 Mb/s under "
                                       "congestion; above RE by more than 0.25 Mb/s with errors (one comparison per "
                                       "flow, and one)",
                   f"{FROM_ABOUT}; {DEFAULT}: 5 % of the link")),
    ]


# ---------------------------------------------------------------- Figure 7: adaptive τ
# The estimator of Fig. 7 (T_k the last ACK pair, τ_k adaptive, Eqs. 5–6) against the
# fixed τ of [WVSG02] at both ends of τ_k's range: the stable 1 s (BE's default) and the
# agile RTT (70 ms).
TAU_ADAPTIVE = ("ABSE τ_k", {"algorithm": "westwood-abse", "sampling": "ack_pair"})
TAU_FIXED_SLOW = ("fixed τ = 1 s", {"algorithm": "westwood-be", "tau": "1s"})
TAU_FIXED_FAST = ("fixed τ = RTT", {"algorithm": "westwood-be", "tau": "70ms"})
TAU_ESTIMATORS = (TAU_ADAPTIVE, TAU_FIXED_SLOW, TAU_FIXED_FAST)
TAU_COLORS = {TAU_ADAPTIVE[0]: "tab:red", TAU_FIXED_SLOW[0]: "tab:blue", TAU_FIXED_FAST[0]: "tab:gray"}
TAU_DURATION_S = 100.0
SETTLE_S = 5.0  # a segment's level and noise are read from this long after its change on
BAND = 0.2  # "followed": within ±20 % of the segment's level
HOLD_S = 2.0  # ... and staying there this long


def tau_points(sizes: Sizes) -> list[Point]:
    return [Point("fig7", {"estimator": protocol[0], "seed": seed},
                  scenarios.adaptive_tau(protocol, duration_s=TAU_DURATION_S, seed=seed), trace=True)
            for protocol in TAU_ESTIMATORS for seed in sizes.seeds]


def _segments(duration_s: float) -> list[tuple[float, float]]:
    """The spans between changes of the UDP load: [0, 20), [20, 40), ..."""
    edges = sorted({0.0, duration_s, *(t for start, stop, _ in scenarios.ONOFF_UDP for t in (start, stop))})
    return list(zip(edges[:-1], edges[1:]))


def measure_adaptive_tau(result, point: Point) -> dict[str, pd.DataFrame]:
    """The TCPW flow's estimate on a 0.1-s grid; per change of the UDP load, the time the
    estimate takes to come within ±20 % of the flow's new level (its mean goodput once
    settled, from 5 s after the change) and stay there 2 s; and per segment the estimate's
    noise, its coefficient of variation over the settled part."""
    forward = flow_traces(result)[0]
    grid = sampled(forward.assign(ere_mbps=to_mbps(forward["cc_ere_pps"])), ["ere_mbps"], 0.1, result.duration_s)
    bins = result.bins[result.bins["flow_id"] == 0]
    wire = WIRE_BYTES / scenarios.PACKET_SIZE
    rows = []
    for start, stop in _segments(result.duration_s):
        settled_bins = bins[(bins["bin_start_s"] >= start + SETTLE_S) & (bins["bin_start_s"] < stop)]
        level = float(settled_bins["goodput_mbps"].mean()) * wire
        settled = grid[(grid["t_s"] >= start + SETTLE_S) & (grid["t_s"] < stop)]["ere_mbps"]
        inside = (grid["ere_mbps"] - level).abs() <= BAND * level
        window = grid[(grid["t_s"] >= start) & (grid["t_s"] < stop)]
        response = stop - start  # never followed within the segment
        hold = int(round(HOLD_S / 0.1))
        flags = inside[window.index].to_numpy()
        for i in range(len(flags) - hold + 1):
            if flags[i:i + hold].all():
                response = float(window["t_s"].iloc[i]) - start
                break
        rows.append({"segment_start_s": start, "level_mbps": level, "response_s": response if start > 0 else math.nan,
                     "noise_cv": float(settled.std() / settled.mean()) if len(settled) > 1 else math.nan})
    tables = {"runs": pd.DataFrame(rows)}
    if point.trace and point.labels["seed"] == 1:
        tables["trace"] = grid
    return tables


def tau_plot(tables, path: Path) -> None:
    trace = tables["trace"]
    figure, axis = canvas.subplots(figsize=(10, 4.2))
    for name, _ in TAU_ESTIMATORS:
        sel = trace[trace["estimator"] == name]
        axis.plot(sel["t_s"], sel["ere_mbps"], linewidth=0.8, color=TAU_COLORS[name], label=f"{name} ERE")
    left = [(0.0, 5.0)]
    for start, stop, rate in scenarios.ONOFF_UDP:
        udp = float(rate.removesuffix("Mbps"))
        left += [(start, 5.0 - udp), (stop, 5.0)]
    times, levels = zip(*left)
    axis.step(list(times) + [TAU_DURATION_S], list(levels) + [levels[-1]], where="post", color="black",
              linestyle=":", label="bandwidth the UDP leaves")
    axis.set(title="Fig. 7: adaptive τ_k (T_k = the last ACK pair) vs fixed τ, on/off UDP on 5 Mb/s (seed 1)",
             xlabel="time (s)", ylabel="Mb/s", ylim=(0, 7))
    axis.grid(alpha=0.3)
    axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def tau_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    response = runs.groupby("estimator")["response_s"].mean()
    noise = runs.groupby("estimator")["noise_cv"].mean()
    adaptive, slow, fast = (name for name, _ in TAU_ESTIMATORS)
    shown = "; ".join(f"{name}: responds in {response[name]:.1f} s, noise (CV) {noise[name]:.3f}"
                      for name, _ in TAU_ESTIMATORS)
    return [Claim("Figure 7", "With the adaptive τ_k the estimate follows changes of the available bandwidth faster "
                              "than with the stable fixed τ (1 s), and oscillates less than with the agile fixed τ "
                              "(the RTT).",
                  "In comparison to the results obtained by fixed τ in [WVSG02], the estimator with adaptive τk, can "
                  "achieve faster response with less oscillations due to noise (§3.2)",
                  verdict_of([response[adaptive] < (1 - RELATIVE_MARGIN) * response[slow],
                              noise[adaptive] < (1 - RELATIVE_MARGIN) * noise[fast]]), shown,
                  Rule("time for the estimate to come within ±20 % of the flow's new level and stay 2 s, mean over the "
                       "four changes and seeds; coefficient of variation of the estimate once settled (from 5 s after "
                       "each change), mean over segments and seeds",
                       "adaptive faster than τ = 1 s, and less noisy than τ = RTT, each by more than 10 % (two "
                       "comparisons)", f"{DEFAULT}: 10 % of the fixed filter's figure; τ's two ends from §3.2 "
                                       "(τ_min = RTT) and BE's 1 s"))]


# ---------------------------------------------------------------- Figures 9–10: ACK compression
REVERSE = (20.0, 40.0)


def two_way_points(sizes: Sizes) -> list[Point]:
    duration = max(60.0, sizes.duration_s)
    return [Point("fig9", {"loss": loss, "protocol": protocol[0], "seed": seed},
                  scenarios.two_way(protocol, loss, duration_s=duration, seed=seed), trace=True)
            for loss in (0.0, 0.005) for protocol in (BE, ABSE) for seed in sizes.ack_compression_seeds]


def measure_two_way(result, point: Point) -> dict[str, pd.DataFrame]:
    """The forward flow's mean ERE and its throughput while the reverse flow runs."""
    return measure_compression(result, point, REVERSE)


def measure_compression(result, point: Point, window: tuple[float, float]) -> dict[str, pd.DataFrame]:
    """Flow 0's mean ERE and its throughput over ``window`` (from 2 s after its start, to
    let the estimate react) and over 8 s up to it."""
    forward = flow_traces(result)[0]
    ere = forward.assign(ere_mbps=to_mbps(forward["cc_ere_pps"]))
    bins = result.bins[result.bins["flow_id"] == 0]
    start, stop = window
    during = bins[(bins["bin_start_s"] >= start + 2) & (bins["bin_start_s"] < stop)]
    before = bins[(bins["bin_start_s"] >= 8) & (bins["bin_start_s"] < start)]
    wire = WIRE_BYTES / scenarios.PACKET_SIZE  # goodput → wire Mb/s
    row = {"ere_during_mbps": time_average(ere, "ere_mbps", start + 2, stop),
           "ere_before_mbps": time_average(ere, "ere_mbps", 8, start),
           "throughput_during_mbps": float(during["goodput_mbps"].mean()) * wire,
           "throughput_before_mbps": float(before["goodput_mbps"].mean()) * wire}
    tables = {"runs": pd.DataFrame([row])}
    if point.trace and point.labels["seed"] == 1:
        tables["trace"] = sampled(ere, ["ere_mbps"], 0.2, result.duration_s).merge(
            bins.rename(columns={"bin_start_s": "t_s"})[["t_s", "goodput_mbps"]], on="t_s", how="left")
    return tables


def two_way_plot(tables, path: Path) -> None:
    trace = tables["trace"]
    figure, axes = canvas.subplots(2, 2, figsize=(12, 7), sharey=True)
    for row, loss in zip(axes, (0.0, 0.005)):
        for axis, protocol in zip(row, ("BE", "ABSE")):
            sel = trace[(trace["loss"] == loss) & (trace["protocol"] == protocol)]
            axis.plot(sel["t_s"], sel["ere_mbps"], linewidth=0.8, color=COLORS[protocol], label=f"{protocol} ERE")
            have = sel.dropna(subset=["goodput_mbps"])
            canvas.bin_steps(axis, have["t_s"], have["goodput_mbps"] * WIRE_BYTES / 1000, 1.0, color="black",
                             linewidth=0.8, label="throughput (1-s bins)")
            axis.axvspan(*REVERSE, color="grey", alpha=0.12, label="reverse flow active")
            axis.set(title=f"Fig. {9 if protocol == 'BE' else 10}({'a' if not loss else 'b'}): {protocol}, "
                           f"{'error-free' if not loss else '0.5 % errors'}", xlabel="time (s)", ylabel="Mb/s")
            axis.grid(alpha=0.3)
            axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def two_way_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    ere = paper_figures.mean_by(runs, ["loss", "protocol"], "ere_during_mbps")
    actual = paper_figures.mean_by(runs, ["loss", "protocol"], "throughput_during_mbps")
    metric = ("forward flow's time-average ERE vs its throughput while the reverse flow runs (22–40 s), wire Mb/s, "
              "mean over seeds")

    def ratio(loss, protocol):
        return ere[loss][protocol] / actual[loss][protocol]

    def shown(protocol):
        return "; ".join(f"{'error-free' if not loss else '0.5 % errors'}: ERE {ere[loss][protocol]:.2f} vs "
                         f"throughput {actual[loss][protocol]:.2f} Mb/s (×{ratio(loss, protocol):.2f})"
                         for loss in (0.0, 0.005))

    over = 1 + RELATIVE_MARGIN
    return [
        Claim("Figure 9", f"With two-way traffic BE's estimate exceeds the forward flow's throughput by more than "
                          f"{RELATIVE_MARGIN:.0%}, more so on the lossy link.",
              "The results show BE overestimate the eligible rate in the face of ACK compression. … the "
              "overestimation is especially severe when the link is lossy (§4.1)",
              verdict_of([ratio(0.0, "BE") > over, ratio(0.005, "BE") > over,
                          ratio(0.005, "BE") > ratio(0.0, "BE") + RELATIVE_MARGIN]),
              shown("BE"),
              Rule(f"BE's {metric}", "ERE/throughput above 1.1 in both cases and higher by 0.1 with errors "
                                     "(three comparisons)", f"{DEFAULT}: 10 % of the throughput")),
        Claim("Figure 10", f"ABSE's estimate stays within {RELATIVE_MARGIN:.0%}·2 of the throughput under ACK "
                           "compression, error-free and lossy.",
              "ABSE estimation method is able to sustain reasonably robust estimate against ACK compression (§4.1)",
              verdict_of([abs(ratio(loss, "ABSE") - 1) <= 2 * RELATIVE_MARGIN for loss in (0.0, 0.005)]),
              shown("ABSE"),
              Rule(f"ABSE's {metric}", "ERE/throughput within 0.8–1.2 in both cases (two comparisons)",
                   f"{DEFAULT}: “reasonably robust” read as within 20 %")),
    ]


# ---------------------------------------------------------------- Figure 11: data packet compression
CROSS = (40.0, 60.0)  # both UDP flows on


def cross_points(sizes: Sizes) -> list[Point]:
    duration = max(60.0, sizes.duration_s)
    return [Point("fig11", {"protocol": protocol[0], "seed": seed},
                  scenarios.cross_traffic(protocol, duration_s=duration, seed=seed), trace=True)
            for protocol in (BE, ABSE) for seed in sizes.seeds]


def measure_cross(result, point: Point) -> dict[str, pd.DataFrame]:
    return measure_compression(result, point, (CROSS[0], result.duration_s))


def cross_plot(tables, path: Path) -> None:
    trace = tables["trace"]
    figure, axes = canvas.subplots(1, 2, figsize=(12, 4), sharey=True)
    for axis, protocol in zip(axes, ("BE", "ABSE")):
        sel = trace[trace["protocol"] == protocol]
        axis.plot(sel["t_s"], sel["ere_mbps"], linewidth=0.8, color=COLORS[protocol], label=f"{protocol} ERE")
        have = sel.dropna(subset=["goodput_mbps"])
        canvas.bin_steps(axis, have["t_s"], have["goodput_mbps"] * WIRE_BYTES / 1000, 1.0, color="black",
                         linewidth=0.8, label="throughput (1-s bins)")
        for start in (20, 40):
            axis.axvline(start, color="grey", linestyle=":")
        axis.set(title=f"Fig. 11({'a' if protocol == 'BE' else 'b'}): {protocol}, UDP on hop 3 from 20 s, hop 4 "
                       "from 40 s", xlabel="time (s)", ylabel="Mb/s")
        axis.grid(alpha=0.3)
        axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def cross_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    ere = runs.groupby("protocol")["ere_during_mbps"].mean()
    actual = runs.groupby("protocol")["throughput_during_mbps"].mean()
    ratio = ere / actual
    metric = "the TCPW flow's time-average ERE vs its throughput with both UDP flows on (42 s to the end), wire Mb/s"

    def shown(protocol):
        return f"{protocol}: ERE {ere[protocol]:.2f} vs throughput {actual[protocol]:.2f} Mb/s (×{ratio[protocol]:.2f})"

    return [
        Claim("Figure 11", f"With cross traffic after the bottleneck, BE's estimate exceeds the flow's throughput by "
                           f"more than {RELATIVE_MARGIN:.0%}, and ABSE's stays within 20 % of it.",
              "BE overestimates the available bandwidth due to the same reasons as in ACK compression, while ABSE "
              "maintains an accurate estimation despite of the cross traffic (§4.2)",
              verdict_of([ratio["BE"] > 1 + RELATIVE_MARGIN, abs(ratio["ABSE"] - 1) <= 2 * RELATIVE_MARGIN]),
              f"{shown('BE')}; {shown('ABSE')}",
              Rule(metric, "BE's ratio above 1.1; ABSE's within 0.8–1.2 (two comparisons)",
                   f"{DEFAULT}: 10 % of the throughput; “accurate” read as within 20 %")),
    ]
