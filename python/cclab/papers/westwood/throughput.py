"""The Westwood paper's figures of throughput, fairness and friendliness (§4.3–§5):
Figures 12–15 (one flow, the buffer varied), 16 (10 flows, the buffer varied), 18
(wired/wireless, the error rate varied) and 19–21 (fairness, friendliness, joining
flows): what to run, what to measure, how to draw it, and what the paper claims about
it."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from cclab.papers.claims import DEFAULT, FROM_ABOUT, Claim, Rule, about, compare, held_count, verdict_of
from cclab.papers.westwood import scenarios
from cclab.papers.westwood.scenarios import ABSE, BE, CRB, NEWRENO
from cclab.papers.westwood.shared import COLORS, LINK_MARGIN, RELATIVE_MARGIN, Point, Sizes, mean_lines, measure_system
from cclab.plots import canvas, paper_figures


def measure_joining(result, point: Point) -> dict[str, pd.DataFrame]:
    """Fig. 21: per-group throughput in 2-s bins."""
    bins = result.bins.merge(result.flows[["id", "group"]].rename(columns={"id": "flow_id"}), on=["flow_id", "group"])
    bins["bin"] = (bins["bin_start_s"] // 2.0) * 2.0
    per_group = bins.groupby(["bin", "group", "flow_id"])["goodput_mbps"].mean().groupby(["bin", "group"]).mean()
    return {"runs": measure_system(result, point)["runs"],
            "bins": per_group.rename("goodput_mbps").reset_index().rename(columns={"bin": "t_s"})}


# ---------------------------------------------------------------- Figures 12–15: one flow, buffer varied
SINGLE = (NEWRENO, BE, ABSE)
PIPE_5MBPS = scenarios.pipe_packets(5)


def single_points(sizes: Sizes) -> list[Point]:
    return [Point("fig12", {"buffer": buffer, "protocol": protocol[0], "seed": seed},
                  scenarios.single_flow_buffer(protocol, buffer, duration_s=sizes.duration_s, seed=seed,
                                               trace=seed == sizes.seeds[0] and buffer in (4, 160)),
                  trace=seed == sizes.seeds[0] and buffer in (4, 160))
            for buffer in sizes.single_buffers for protocol in SINGLE for seed in sizes.seeds]


def single_plot(tables, path: Path) -> None:
    runs, trace = tables["runs"], tables.get("trace")
    figure, axes = canvas.subplots(2, 3, figsize=(16, 8))
    mean_lines(axes[0][0], runs, "buffer", "throughput_mbps")
    axes[0][0].axvline(PIPE_5MBPS, color="grey", linestyle=":", label="pipe (42)")
    axes[0][0].set(title="Fig. 12: throughput vs buffer (1 flow, 5 Mb/s)", xlabel="buffer (packets)",
                   ylabel="Mb/s", xscale="log", ylim=(0, 5.2))
    mean_lines(axes[1][0], runs, "buffer", "queue_delay_ms")
    axes[1][0].set(title="Fig. 14: mean queueing time", xlabel="buffer (packets)", ylabel="ms", xscale="log")
    for column, buffer in ((1, 4), (2, 160)):
        for row, protocol in zip((0, 1), ("NewReno", "ABSE")):
            axis = axes[row][column]
            if trace is None:
                continue
            sel = trace[(trace["buffer"] == buffer) & (trace["protocol"] == protocol)]
            axis.plot(sel["t_s"], sel["cwnd"], linewidth=0.7, label="cwnd")
            top = min(250, PIPE_5MBPS + buffer + 40)
            # ssthresh before the first loss is unbounded: not drawn (rather than cut at the top)
            axis.plot(sel["t_s"], sel["ssthresh"].where(sel["ssthresh"] <= top), linewidth=0.7, label="ssthresh")
            if "ere_packets" in sel and sel["ere_packets"].notna().any():
                axis.plot(sel["t_s"], sel["ere_packets"], linewidth=0.7, label="ERE·RTTmin")
            axis.axhline(PIPE_5MBPS, color="grey", linestyle=":", label="pipe")
            axis.set(title=f"Fig. {13 if buffer == 4 else 15}: {protocol}, buffer {buffer}", xlabel="time (s)",
                     ylabel="packets", ylim=(0, top))
            axis.grid(alpha=0.3)
            axis.legend(fontsize="x-small")
    for axis in (axes[0][0], axes[1][0]):
        axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def single_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    throughput = paper_figures.mean_by(runs, ["buffer", "protocol"], "throughput_mbps")
    delay = paper_figures.mean_by(runs, ["buffer", "protocol"], "queue_delay_ms")
    small = [b for b in sizes.single_buffers if b <= 10]
    large = [b for b in sizes.single_buffers if b >= 80]
    margin = LINK_MARGIN * 5.0
    checks = [compare(throughput[b][p], throughput[b]["NewReno"], margin) > 0 for b in small for p in ("ABSE", "BE")]
    evidence = "; ".join(f"buffer {b}: " + ", ".join(f"{p} {throughput[b][p]:.2f}" for p in ("NewReno", "BE", "ABSE"))
                         for b in small)
    pipe = min(sizes.single_buffers, key=lambda b: abs(b - PIPE_5MBPS))
    delay_checks = [delay[b]["ABSE"] < (1 - RELATIVE_MARGIN) * delay[b]["NewReno"] for b in large]
    return [
        Claim("Figure 12", "With small buffers (≤ 10 packets) ABSE and BE get more throughput than NewReno.",
              "NewReno utilization is severely degraded with small buffer capacity … TCPW ABSE and TCPW BE, on the "
              "other hand, can achieve much higher utilization despite the small buffer capacity (§4.3.1)",
              verdict_of(checks), f"{evidence} Mb/s ({held_count(checks)})",
              Rule("throughput of one flow on 5 Mb/s at each buffer ≤ 10 (mean over seeds)",
                   "ABSE and BE each above NewReno by more than 0.25 Mb/s (one comparison per buffer and protocol)",
                   f"{DEFAULT}: 5 % of the link")),
        Claim("Figure 12", "NewReno catches up when the buffer reaches the pipe size (42 packets).",
              "and finally catches up when the buffer approaches the pipe size (§4.3.1)",
              verdict_of([compare(throughput[pipe]["NewReno"], throughput[pipe]["ABSE"], margin) >= 0]),
              f"buffer {pipe}: NewReno {throughput[pipe]['NewReno']:.2f}, ABSE {throughput[pipe]['ABSE']:.2f} Mb/s",
              Rule(f"throughput at buffer {pipe}", "NewReno within 0.25 Mb/s of ABSE or above it (one comparison)",
                   f"{DEFAULT}: 5 % of the link")),
        Claim("Figure 14", f"With large buffers (≥ 80 packets) ABSE's mean queueing time is more than "
                           f"{RELATIVE_MARGIN:.0%} below NewReno's.",
              "We observe that TCPW ABSE achieves better delay performance than NewReno (§4.3.1)",
              verdict_of(delay_checks),
              "; ".join(f"buffer {b}: ABSE {delay[b]['ABSE']:.0f} ms vs NewReno {delay[b]['NewReno']:.0f} ms"
                        for b in large) + f" ({held_count(delay_checks)})",
              Rule("mean queueing time at the bottleneck at each buffer ≥ 80 (mean over seeds)",
                   "ABSE below 0.9 × NewReno (one comparison per buffer)", f"{DEFAULT}: 10 % of NewReno's")),
    ]


# ---------------------------------------------------------------- Figure 16: 10 flows, buffer varied
def many_points(sizes: Sizes) -> list[Point]:
    return [Point("fig16", {"buffer": buffer, "protocol": protocol[0], "seed": seed},
                  scenarios.many_flows_buffer(protocol, buffer, duration_s=sizes.duration_s, seed=seed))
            for buffer in sizes.many_buffers for protocol in SINGLE for seed in sizes.seeds]


def many_plot(tables, path: Path) -> None:
    runs = tables["runs"]
    figure, axes = canvas.subplots(1, 2, figsize=(11, 4.2))
    mean_lines(axes[0], runs, "buffer", "throughput_mbps")
    axes[0].set(title="Fig. 16(a): throughput, 10 flows, 45 Mb/s", xlabel="buffer (packets; pipe = 400)",
                ylabel="Mb/s", xscale="log")
    mean_lines(axes[1], runs, "buffer", "drop_rate")
    axes[1].set(title="Fig. 16(b): drop rate (buffer overflow)", xlabel="buffer (packets)", ylabel="drops / sent",
                xscale="log")
    for axis in axes:
        axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def many_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    throughput = paper_figures.mean_by(runs, ["buffer", "protocol"], "throughput_mbps")
    drops = paper_figures.mean_by(runs, ["buffer", "protocol"], "drop_rate")
    smallest = min(sizes.many_buffers)
    at = throughput[smallest]
    margin = 0.01 * 45.0
    rel = RELATIVE_MARGIN

    def more(a, b):  # a's drop rate above b's by more than 10 % of the larger
        return drops[smallest][a] > drops[smallest][b] + rel * max(drops[smallest][a], drops[smallest][b])

    abse_not_higher = [drops[b]["ABSE"] <= drops[b]["NewReno"] * (1 + rel) for b in sizes.many_buffers]
    shown = ", ".join(f"{p} {at[p]:.1f}" for p in ("NewReno", "BE", "ABSE"))
    return [
        Claim("Figure 16", f"With the smallest buffer ({smallest} packets) ABSE gets the most throughput and BE the "
                           "least.",
              "among the three protocols, TCPW ABSE achieves best utilization, while TCPW BE registers the worst "
              "performance with small buffer capacity (§4.3.2)",
              verdict_of([compare(at["ABSE"], at["NewReno"], margin) > 0, compare(at["ABSE"], at["BE"], margin) > 0,
                          compare(at["NewReno"], at["BE"], margin) > 0]),
              f"buffer {smallest}: {shown} Mb/s",
              Rule(f"throughput of 10 flows on 45 Mb/s at buffer {smallest} (mean over seeds)",
                   "ABSE > NewReno > BE and ABSE > BE, each by more than 0.45 Mb/s (three comparisons)",
                   f"{DEFAULT}: 1 % of the link")),
        Claim("Figure 16", f"With the smallest buffer BE drops more than NewReno and ABSE (by over {rel:.0%}).",
              "TCPW BE has higher drop rates than NewReno and TCPW ABSE in the small buffer case (§4.3.2)",
              verdict_of([more("BE", "NewReno"), more("BE", "ABSE")]),
              f"buffer {smallest}: " + ", ".join(f"{p} {drops[smallest][p]:.4f}" for p in ("NewReno", "BE", "ABSE")),
              Rule(f"bottleneck drops / data packets sent at buffer {smallest}",
                   "BE above each other by more than 10 % of the larger (two comparisons)",
                   f"{DEFAULT}: 10 % of the larger rate")),
        Claim("Figure 16", "ABSE's drop rate is no higher than NewReno's at any buffer.",
              "drop rate of TCPW ABSE is no higher than that of NewReno (§4.3.2)",
              verdict_of(abse_not_higher),
              "; ".join(f"{b}: ABSE {drops[b]['ABSE']:.4f} vs NewReno {drops[b]['NewReno']:.4f}"
                        for b in sizes.many_buffers) + f" ({held_count(abse_not_higher)})",
              Rule("drop rate at each buffer", "ABSE ≤ 1.1 × NewReno (one comparison per buffer)",
                   f"{DEFAULT}: “no higher” with 10 % for noise")),
    ]


# ---------------------------------------------------------------- Figure 18: wired/wireless
WIRELESS = (NEWRENO, BE, CRB, ABSE)


def wireless_points(sizes: Sizes) -> list[Point]:
    return [Point("fig18", {"error_rate": rate, "protocol": protocol[0], "seed": seed},
                  scenarios.wired_wireless(protocol, rate, duration_s=sizes.duration_s, seed=seed))
            for rate in sizes.error_rates for protocol in WIRELESS for seed in sizes.seeds]


def wireless_plot(tables, path: Path) -> None:
    runs = tables["runs"].assign(error_pct=lambda t: t["error_rate"] * 100)
    # linear from 0 to the smallest error rate, logarithmic above: every rate resolved
    smallest = float(runs.loc[runs["error_pct"] > 0, "error_pct"].min())
    figure, axes = canvas.subplots(1, 2, figsize=(11, 4.2))
    mean_lines(axes[0], runs, "error_pct", "throughput_mbps")
    axes[0].set(title="Fig. 18: throughput vs error rate (45 Mb/s wired, 11 Mb/s wireless)",
                xlabel="wireless error rate (%)", ylabel="Mb/s")
    gains = _gains(tables["runs"]).reset_index()
    for protocol, rows in gains.groupby("protocol"):
        axes[1].plot(rows["error_rate"] * 100, rows["gain"] * 100, marker="o", color=COLORS[protocol],
                     label=protocol)
    axes[1].set(title="gain over NewReno", xlabel="wireless error rate (%)", ylabel="%")
    for axis in axes:
        axis.set_xscale("symlog", linthresh=smallest, linscale=0.5)
        axis.grid(alpha=0.3)
        axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def _gains(runs: pd.DataFrame) -> pd.DataFrame:
    """Throughput gain over NewReno, (X − NewReno)/NewReno, per error rate (means over seeds)."""
    means = paper_figures.mean_by(runs, ["error_rate", "protocol"], "throughput_mbps").unstack()
    gains = means.drop(columns="NewReno").sub(means["NewReno"], axis=0).div(means["NewReno"], axis=0)
    return gains.stack().rename("gain").to_frame()


def wireless_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    throughput = paper_figures.mean_by(runs, ["error_rate", "protocol"], "throughput_mbps")
    lossy = [r for r in sizes.error_rates if r > 0]
    band = [r for r in sizes.error_rates if 0.001 <= r <= 0.01]
    gains = _gains(runs)["gain"]
    best = {p: max(gains[(r, p)] for r in band) for p in ("ABSE", "BE", "CRB")}
    above = [compare(throughput[r][p], throughput[r]["NewReno"], 0.05 * throughput[r]["NewReno"]) > 0
             for r in lossy for p in ("ABSE", "BE", "CRB")]
    return [
        Claim("Figure 18", "At every error rate above 0, ABSE, BE and CRB each get more throughput than NewReno.",
              "The results in fig. 18 show that the throughput in ABSE, BE and CRB, are higher than that in "
              "NewReno (§4.4)",
              verdict_of(above), "; ".join(f"{r:.2%}: " + ", ".join(f"{p} {throughput[r][p]:.2f}"
                                                                    for p in ("NewReno", "BE", "CRB", "ABSE"))
                                           for r in lossy) + f" Mb/s ({held_count(above)})",
              Rule("throughput of one flow on the wired/wireless path at each error rate > 0 (mean over seeds)",
                   "each TCPW above NewReno by more than 5 % of NewReno's (one comparison per rate and protocol)",
                   f"{DEFAULT}: 5 % of NewReno's throughput")),
        Claim("Figure 18", "Around 0.1–1 % errors ABSE's and BE's gain over NewReno is about 500 %.",
              "The largest improvement is obtained around 0.1% to 1% loss rate, where ABSE and BE throughput gain "
              "over NewReno is about 500% (§4.4)",
              verdict_of([about(best["ABSE"], 5.0), about(best["BE"], 5.0)]),
              f"largest gain in {', '.join(f'{r:.1%}' for r in band)}: ABSE {best['ABSE']:.0%}, BE {best['BE']:.0%}",
              Rule("largest throughput gain (X − NewReno)/NewReno over the error rates in 0.1–1 %",
                   "within 375–625 % for each (two comparisons)", FROM_ABOUT)),
        Claim("Figure 18", "CRB's largest gain in that range is about 300 %, below ABSE's.",
              "while CRB gains only 300% over NewReno (§4.4)",
              verdict_of([about(best["CRB"], 3.0), best["CRB"] < best["ABSE"] - RELATIVE_MARGIN]),
              f"CRB {best['CRB']:.0%} vs ABSE {best['ABSE']:.0%}",
              Rule("largest gain over 0.1–1 %", "CRB within 225–375 % and below ABSE by more than 10 points "
                                                "(two comparisons)", f"{FROM_ABOUT}; {DEFAULT}: 10 points")),
    ]


# ---------------------------------------------------------------- Figures 19–21: fairness, friendliness
def fairness_points(sizes: Sizes) -> list[Point]:
    return [Point("fig19", {"protocol": protocol[0], "seed": seed},
                  scenarios.mixed([scenarios.group(protocol, 10)], duration_s=sizes.duration_s, seed=seed))
            for protocol in (ABSE, NEWRENO) for seed in sizes.seeds]


def fairness_plot(tables, path: Path) -> None:
    runs = tables["runs"]
    figure, axis = canvas.subplots(figsize=(6, 4))
    jain = runs.groupby("protocol")["jain"].agg(["mean", "min", "max"])
    bars = axis.bar(jain.index, jain["mean"], color=[COLORS[p] for p in jain.index],
                    yerr=[jain["mean"] - jain["min"], jain["max"] - jain["mean"]])
    axis.bar_label(bars, fmt="%.4f", fontsize="small", padding=2)
    axis.axhline(0.9919, color=COLORS["ABSE"], linestyle=":", label="paper ABSE 0.9919")
    axis.axhline(0.9904, color=COLORS["NewReno"], linestyle="--", label="paper NewReno 0.9904")
    # from just under the lowest bar (or error bar): every protocol's index is visible
    low = min(0.9, float(jain["min"].min()) - 0.01)
    axis.set(title="Fig. 19: Jain's index, 10 flows, 10 Mb/s", ylabel="Jain index", ylim=(low, 1.0))
    axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def fairness_claims(tables, sizes) -> list[Claim]:
    jain = tables["runs"].groupby("protocol")["jain"].mean()
    return [Claim("Figure 19", "ABSE's Jain index over 10 flows is comparable to NewReno's (within 0.01) and "
                               "both are above 0.98.",
                  "The Jain's fairness index of ABSE reached 0.9919, and that of NewReno is 0.9904 (§5.1)",
                  verdict_of([abs(jain["ABSE"] - jain["NewReno"]) <= 0.01, jain["ABSE"] > 0.98,
                              jain["NewReno"] > 0.98]),
                  f"ABSE {jain['ABSE']:.4f}, NewReno {jain['NewReno']:.4f} (paper 0.9919, 0.9904)",
                  Rule("Jain's index of 10 flows' throughputs (mean over seeds)",
                       "|ABSE − NewReno| ≤ 0.01, each > 0.98 (three comparisons)",
                       f"{DEFAULT}: “comparable” within 0.01; 0.98 is 0.01 under the paper's values"))]


def friendly_points(sizes: Sizes) -> list[Point]:
    return [Point("fig20", {"newreno": k, "protocol": protocol[0], "seed": seed},
                  scenarios.mixed([scenarios.group(NEWRENO, k), scenarios.group(protocol, 10 - k)],
                                  duration_s=sizes.duration_s, seed=seed))
            for protocol in (BE, ABSE) for k in sizes.newreno_counts for seed in sizes.seeds]


def _share(runs: pd.DataFrame, protocol: str, group: str) -> pd.Series:
    """Mean per-flow throughput of ``group`` over the fair share (system throughput / 10), per k."""
    sel = runs[runs["protocol"] == protocol]
    ratio = sel[f"per_flow_mbps[{group}]"] / (sel["throughput_mbps"] / 10)
    return ratio.groupby(sel["newreno"]).mean()


def friendly_plot(tables, path: Path) -> None:
    runs = tables["runs"]
    figure, axes = canvas.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for axis, protocol in zip(axes, ("BE", "ABSE")):
        for group in ("NewReno", protocol):
            share = _share(runs, protocol, group)
            axis.plot(share.index, share.values, marker="o", color=COLORS[group], label=f"{group} per flow")
        axis.axhline(1, color="grey", linestyle=":", label="fair share")
        axis.set(title=f"Fig. 20({'a' if protocol == 'BE' else 'b'}): NewReno vs {protocol}",
                 xlabel="NewReno flows of 10", ylabel="throughput / fair share")
        axis.grid(alpha=0.3)
        axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def friendly_claims(tables, sizes) -> list[Claim]:
    runs = tables["runs"]
    be, be_nr = _share(runs, "BE", "BE"), _share(runs, "BE", "NewReno")
    abse, abse_nr = _share(runs, "ABSE", "ABSE"), _share(runs, "ABSE", "NewReno")
    band = 0.15
    unfriendly = [be[k] > 1 + RELATIVE_MARGIN for k in be.index]
    friendly = [abs(v - 1) <= band for k in abse.index for v in (abse[k], abse_nr[k])]

    def fmt(a, b, name):
        return "; ".join(f"k={k}: {name} {a[k]:.2f}, NewReno {b[k]:.2f}" for k in a.index)

    return [
        Claim("Figure 20", f"BE flows take more than their fair share (by over {RELATIVE_MARGIN:.0%}) from NewReno, "
                           "at every mix.",
              "TCPW BE achieves higher throughput than its fair share, thus it is unfriendly to NewReno (§5.2)",
              verdict_of(unfriendly), fmt(be, be_nr, "BE") + f" (per-flow throughput / fair share; "
                                                              f"{held_count(unfriendly)})",
              Rule("mean per-flow throughput over the fair share (system throughput / 10), per NewReno count k",
                   "BE above 1.1 (one comparison per k)", f"{DEFAULT}: 10 % of the fair share")),
        Claim("Figure 20", f"ABSE and NewReno flows both get their fair share (within ±{band:.0%}) at every mix.",
              "the throughput achieved by both NewReno and ABSE are very close to the fair share (§5.2)",
              verdict_of(friendly), fmt(abse, abse_nr, "ABSE") + f" ({held_count(friendly)})",
              Rule("mean per-flow throughput over the fair share, per k, for ABSE and NewReno",
                   f"within {1 - band:.2f}–{1 + band:.2f} (two comparisons per k)",
                   f"{DEFAULT}: “very close” read as ±15 %")),
    ]


def joining_points(sizes: Sizes) -> list[Point]:
    join = sizes.join_duration_s / 2
    points = []
    for newcomer in (ABSE, NEWRENO):
        for seed in sizes.seeds:
            established = scenarios.group(ABSE, 5, name="established ABSE")
            new = scenarios.group(newcomer, 5, name=f"new {newcomer[0]}", start={"at": f"{join:g}s", "random": "1s"})
            points.append(Point("fig21", {"newcomer": newcomer[0], "seed": seed},
                                scenarios.mixed([established, new], duration_s=sizes.join_duration_s, seed=seed)))
    return points


def joining_plot(tables, path: Path) -> None:
    bins = tables["bins"]
    figure, axes = canvas.subplots(1, 2, figsize=(12, 4.2), sharey=True)
    for axis, newcomer in zip(axes, ("ABSE", "NewReno")):
        sel = bins[bins["newcomer"] == newcomer].groupby(["t_s", "group"])["goodput_mbps"].mean().reset_index()
        for group, rows in sel.groupby("group"):
            axis.plot(rows["t_s"], rows["goodput_mbps"], label=group)
        axis.axhline(1.0, color="grey", linestyle=":", label="fair share after the join (≈1 Mb/s)")
        axis.set(title=f"Fig. 21({'a' if newcomer == 'ABSE' else 'b'}): new {newcomer} join 5 ABSE",
                 xlabel="time (s)", ylabel="Mb/s per flow (2-s bins)")
        axis.grid(alpha=0.3)
        axis.legend(fontsize="x-small")
    paper_figures.save(figure, path)


def joining_claims(tables, sizes) -> list[Claim]:
    bins = tables["bins"]
    join = sizes.join_duration_s / 2
    settle = join + (sizes.join_duration_s - join) / 2  # the second half of the time after the join
    later = bins[bins["t_s"] >= settle]
    checks, evidence = [], []
    for newcomer in ("ABSE", "NewReno"):
        sel = later[later["newcomer"] == newcomer].groupby("group")["goodput_mbps"].mean()
        new, old = sel[f"new {newcomer}"], sel["established ABSE"]
        checks.append(about(new / old, 1.0))
        evidence.append(f"new {newcomer} {new:.2f} vs established ABSE {old:.2f} Mb/s per flow")
    return [Claim("Figure 21", "Five flows joining five established ABSE flows get about the established flows' "
                               "per-flow throughput once settled, whether they are ABSE or NewReno.",
                  "the new connections, both ABSE and NewReno, readily acquire their fair share against the "
                  "established connections (§5.3)",
                  verdict_of(checks), "; ".join(evidence) + f" (from {settle:g} s on)",
                  Rule(f"per-flow goodput of each group from {settle:g} s (the second half after the join), "
                       "mean over seeds", "new/established within 0.75–1.25 (two comparisons)", FROM_ABOUT))]
