"""The views trace-driven experiments are judged by: what a link direction offered and
delivered over time, and its packets' queueing delay (Mahimahi's ``mm-throughput-graph``
and ``mm-delay-graph``), and Pantheon's comparison of schemes (mean throughput against
the 95th percentile of one-way delay, the delay axis reversed: better is up and right).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from cclab.plots import canvas

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from cclab.results import Result


def link_trace_table(result: "Result", link: Optional[str] = None) -> "pd.DataFrame":
    """One traced link direction's bins (``trace.links``; default the bottleneck): time,
    capacity and delivered throughput in Mb/s, mean and largest queueing delay in ms."""
    from cclab.errors import StoreError

    traces = result.traces or {}
    links = traces.get("links")
    name = link or result.system["bottleneck_link"]
    if links is None or name not in set(links["link"]):
        raise StoreError(f"link {name!r} was not traced: add it to [trace] links = [...] and run again")
    rows = links[links["link"] == name]
    width = result.raw["bins"]["width_s"]
    return rows.assign(capacity_mbps=rows["capacity_bytes"] * 8 / width / 1e6,
                       delivered_mbps=rows["transmitted_bytes"] * 8 / width / 1e6)[
        ["t_s", "capacity_mbps", "delivered_mbps", "mean_sojourn_ms", "max_sojourn_ms"]].reset_index(drop=True)


def link_trace_figure(result: "Result", link: Optional[str] = None) -> "Figure":
    """Capacity offered and throughput delivered per bin (top), and the queueing delay
    of the packets arriving in each bin, mean and largest (bottom)."""
    table = link_trace_table(result, link)
    figure, (top, bottom) = canvas.subplots(2, 1, sharex=True, figsize=(7.0, 5.0))
    width = result.raw["bins"]["width_s"]
    canvas.bin_steps(top, table["t_s"], table["capacity_mbps"], width, label="capacity", color="0.55")
    canvas.bin_steps(top, table["t_s"], table["delivered_mbps"], width, label="delivered", color="C0")
    top.set_ylabel("Mb/s")
    top.legend(loc="upper right", frameon=False)
    canvas.bin_steps(bottom, table["t_s"], table["max_sojourn_ms"], width, label="largest", color="C3")
    canvas.bin_steps(bottom, table["t_s"], table["mean_sojourn_ms"], width, label="mean", color="C1")
    bottom.set_ylabel("queueing delay (ms)")
    bottom.set_xlabel("time (s)")
    bottom.legend(loc="upper right", frameon=False)
    top.set_title(f"{link or result.system['bottleneck_link']}: offered and delivered", fontsize="medium")
    return canvas.finish(figure)


def scheme_summary(results: "pd.DataFrame") -> "pd.DataFrame":
    """Pantheon's numbers per scheme and trace, from one row per run: ``scheme``,
    ``trace``, ``throughput_mbps`` and ``owd_p95_ms`` (the scheme's flow(s); a run's rows
    of several flows are averaged): the mean over runs of each, and the run count."""
    grouped = results.groupby(["trace", "scheme"], sort=True)
    return grouped.agg(throughput_mbps=("throughput_mbps", "mean"), owd_p95_ms=("owd_p95_ms", "mean"),
                       runs=("throughput_mbps", "size")).reset_index()


def pantheon_figure(summary: "pd.DataFrame") -> "Figure":
    """One panel per trace: each scheme's mean throughput against its 95th-percentile
    one-way delay, the delay axis reversed (better is up and to the right)."""
    traces = list(dict.fromkeys(summary["trace"]))
    figure, axes = canvas.subplots(1, len(traces), figsize=(4.2 * len(traces), 3.6), squeeze=False)
    for axis, trace in zip(axes[0], traces):
        rows = summary[summary["trace"] == trace]
        for k, row in enumerate(rows.itertuples(index=False)):
            axis.plot([row.owd_p95_ms], [row.throughput_mbps], marker="o", linestyle="", color=f"C{k % 10}", zorder=3)
            axis.annotate(row.scheme, (row.owd_p95_ms, row.throughput_mbps), textcoords="offset points",
                          xytext=(5, 4), fontsize="small")
        axis.invert_xaxis()
        axis.set_xlabel("95th percentile one-way delay (ms)")
        axis.set_title(str(trace), fontsize="medium")
        canvas.include_data(axis, margin=0.12)
    axes[0][0].set_ylabel("mean throughput (Mb/s)")
    return canvas.finish(figure)
