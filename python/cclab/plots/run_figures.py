"""Figures of one run, for notebooks and scripts; public as :mod:`cclab.plot`.

    import cclab, cclab.plot
    result = cclab.run("experiments/static-wired.toml", duration="20s", **{"trace.flows": True, "trace.queue": True})
    cclab.plot.traces(result)          # every flow's cwnd, the bottleneck queue
    cclab.plot.flows(result)           # one bar per flow: goodput (or any flows column)
    cclab.plot.queue(result)           # the bottleneck queue over time
    cclab.plot.bins(result)            # allotted goodput and fairness per bin
    figure = cclab.plot.traces(result); figure.savefig("traces.png")

Each function returns a ``matplotlib.figure.Figure`` (Jupyter shows it as the cell's
value) and never chooses or switches matplotlib's backend: the figures belong to no
pyplot registry. To draw into an axes of your own (a pyplot figure, a grid of panels),
pass ``ax=``: the functions of one panel draw there and return its figure.

Every flow is drawn. Colours follow the flow's group; labels say the group and its
protocol (``smooth · aimd(0.31, 0.875)``, ``cross · udp``): one legend entry per flow
up to :data:`LEGEND_FLOWS` flows, one per group beyond.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional

from cclab.plots import canvas

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from cclab.results import Result

__all__ = ["traces", "cwnd", "queue", "flows", "bins", "group_label", "LEGEND_FLOWS"]

# Up to this many flows each has its own legend entry; beyond, one entry per group.
LEGEND_FLOWS = 12


def group_label(group: str, protocol: Optional[str]) -> str:
    """``group · protocol``, or the one of them when they say the same thing."""
    if not protocol or protocol == group:
        return str(group)
    return f"{group} · {protocol}"


def _flow_table(result: Result):
    flows = result.flows
    protocol = flows["cc"].where(flows["cc"].notna(), flows["transport"]) if "cc" in flows else flows["transport"]
    return flows.assign(protocol=protocol, label=[group_label(g, p) for g, p in zip(flows["group"], protocol)])


def _group_colours(flows) -> dict[str, Any]:
    from matplotlib import colormaps

    palette = colormaps["tab10"].colors
    return {group: palette[index % len(palette)] for index, group in enumerate(dict.fromkeys(flows["group"]))}


def _axes(ax: Optional[Axes], figsize: tuple[float, float]):
    if ax is not None:
        return ax.figure, ax
    figure, axis = canvas.subplots(figsize=figsize)
    return figure, axis


def _laid_out(figure: Figure, ax: Optional[Axes]) -> Figure:
    """A figure of our own is laid out (labels inside it); one of the caller's is left
    to its owner."""
    if ax is None:
        figure.tight_layout()
    return figure


def _traces_of(result: Result, name: str, hint: str):
    traces = result.traces or {}
    if name not in traces:
        raise ValueError(f"this result has no {name.replace('_', ' ')} trace: run with {hint}")
    return traces[name]


def cwnd(result: Result, flow_ids: Optional[Sequence[int]] = None, *, column: str = "cwnd",
         ax: Optional[Axes] = None) -> Figure:
    """``column`` (default the congestion window, packets) of every traced flow over
    time — or of the flows ``flow_ids`` — coloured by group, labelled by group and
    protocol. Needs ``trace.flows = true``."""
    trace = _traces_of(result, "flows", "trace.flows = true (cclab run --trace)")
    if column not in trace:
        raise ValueError(f"the flow trace has no column {column!r} (columns: {', '.join(map(str, trace.columns))})")
    flows = _flow_table(result).set_index("id")
    colours = _group_colours(flows)
    figure, axis = _axes(ax, (8, 3.6))
    shown = sorted(trace["flow_id"].unique()) if flow_ids is None else list(flow_ids)
    unknown = [flow for flow in shown if flow not in flows.index]
    if unknown:
        raise ValueError(f"no flow {unknown[0]} in this result (flows 0–{len(flows) - 1})")
    per_flow = len(shown) <= LEGEND_FLOWS
    labelled: set[str] = set()
    for flow_id, rows in trace[trace["flow_id"].isin(shown)].groupby("flow_id", sort=True):
        flow = flows.loc[flow_id]
        if per_flow:
            label = f"flow {flow_id}: {flow['label']}"
        else:
            label = f"{flow['label']} ({int((flows.loc[shown, 'group'] == flow['group']).sum())} flows)"
            label = label if flow["group"] not in labelled else None
            labelled.add(flow["group"])
        canvas.steps_until(axis, rows["t_s"], rows[column], result.duration_s, color=colours[flow["group"]],
                           linewidth=0.8, alpha=0.9 if per_flow else 0.5, label=label)
    axis.set_xlim(0, result.duration_s)
    axis.set_xlabel("time (s)")
    axis.set_ylabel("cwnd (packets)" if column == "cwnd" else column)
    axis.grid(alpha=0.3)
    axis.legend(loc="upper right", fontsize="small", ncol=2 if per_flow and len(shown) > 6 else 1)
    return _laid_out(figure, ax)


def queue(result: Result, *, ax: Optional[Axes] = None) -> Figure:
    """The bottleneck queue (packets) over time, each sample held until the next, to the
    end of the run. Needs ``trace.queue = true``."""
    samples = _traces_of(result, "bottleneck_queue", "trace.queue = true (cclab run --trace)")
    figure, axis = _axes(ax, (8, 2.8))
    canvas.steps_until(axis, samples["t_s"], samples["packets"], result.duration_s, linewidth=0.8, color="black")
    axis.set_xlim(0, result.duration_s)
    axis.set_ylim(bottom=0)
    axis.set_xlabel("time (s)")
    axis.set_ylabel(f"queue at {result.raw['system'].get('bottleneck_link', 'the bottleneck')} (packets)")
    axis.grid(alpha=0.3)
    return _laid_out(figure, ax)


def traces(result: Result, flow_ids: Optional[Sequence[int]] = None) -> Figure:
    """:func:`cwnd` above :func:`queue` (each when traced), sharing the time axis."""
    available = result.traces or {}
    panels = [name for name in ("flows", "bottleneck_queue") if name in available]
    if not panels:
        raise ValueError("this result has no traces: run with trace.flows = true and trace.queue = true "
                         "(cclab run --trace)")
    figure, axes = canvas.subplots(len(panels), 1, figsize=(8, 3.4 * len(panels)), sharex=True, squeeze=False)
    for axis, panel in zip(axes[:, 0], panels):
        if panel == "flows":
            cwnd(result, flow_ids, ax=axis)
        else:
            queue(result, ax=axis)
    for axis in axes[:-1, 0]:
        axis.set_xlabel("")
    figure.tight_layout()
    return figure


def flows(result: Result, metric: str = "goodput_mbps", *, ax: Optional[Axes] = None) -> Figure:
    """One bar per flow of ``metric`` (any numeric column of ``result.flows``), coloured
    by group, with one legend entry per group (its protocol and flow count)."""
    table = _flow_table(result)
    if metric not in table:
        numeric = [c for c in table.columns if table[c].dtype.kind in "if" and c != "id"]
        raise ValueError(f"flows have no column {metric!r} (numeric columns: {', '.join(numeric)})")
    colours = _group_colours(table)
    figure, axis = _axes(ax, (max(6.0, min(14.0, 0.25 * len(table) + 3)), 3.6))
    for group, rows in table.groupby("group", sort=False):
        axis.bar(rows["id"], rows[metric].astype(float), width=0.8, color=colours[group],
                 label=f"{rows['label'].iloc[0]} ({len(rows)} flow{'s' if len(rows) != 1 else ''})")
    axis.set_xlabel("flow")
    axis.set_ylabel(METRIC_LABELS.get(metric, metric))
    if len(table) <= 40:
        axis.set_xticks(list(table["id"]))
    axis.set_xlim(-0.7, len(table) - 0.3)
    axis.grid(alpha=0.3, axis="y")
    axis.legend(fontsize="small")
    canvas.include_data(axis)
    return _laid_out(figure, ax)


def bins(result: Result) -> Figure:
    """Allotted system goodput (top) and allotted fairness (bottom) per bin (Zhang &
    Tsaoussidis §4.2), each bin drawn over its whole width."""
    system_bins = result.system_bins
    width = float(result.raw["bins"]["width_s"])
    figure, (goodput_axis, fairness_axis) = canvas.subplots(2, 1, figsize=(7, 5), sharex=True)
    canvas.bin_steps(goodput_axis, system_bins["bin_start_s"], system_bins["goodput_mbps"], width)
    goodput_axis.set_ylabel("Allotted system goodput (Mb/s)")
    canvas.bin_steps(fairness_axis, system_bins["bin_start_s"], system_bins["jain_index"], width)
    fairness_axis.set_ylabel("Allotted fairness")
    fairness_axis.set_ylim(0, 1.05)
    fairness_axis.set_xlabel("Time (s)")
    for axis in (goodput_axis, fairness_axis):
        axis.grid(alpha=0.3)
        canvas.include_data(axis)
    figure.tight_layout()
    return figure


METRIC_LABELS = {"goodput_mbps": "goodput (Mb/s)", "throughput_mbps": "throughput (Mb/s)",
                 "retransmitted_packets": "retransmitted packets", "timeouts": "timeouts",
                 "mean_rtt_ms": "mean RTT (ms)"}
