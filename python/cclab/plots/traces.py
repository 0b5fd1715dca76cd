"""Figures of one run (allotted goodput and fairness per bin, window and queue traces),
drawn with matplotlib's Agg backend."""
from __future__ import annotations

from os import PathLike
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from cclab.results import Result  # noqa: E402


def plot_bins(result: Result, path: str | PathLike) -> Path:
    """Allotted system goodput (top) and allotted fairness (bottom) per bin, paper §4.2."""
    system_bins = result.system_bins
    figure, (goodput_axis, fairness_axis) = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    goodput_axis.step(system_bins["bin_start_s"], system_bins["goodput_mbps"], where="post")
    goodput_axis.set_ylabel("Allotted system goodput (Mb/s)")
    fairness_axis.step(system_bins["bin_start_s"], system_bins["jain_index"], where="post")
    fairness_axis.set_ylabel("Allotted fairness")
    fairness_axis.set_ylim(0, 1.05)
    fairness_axis.set_xlabel("Time (s)")
    for axis in (goodput_axis, fairness_axis):
        axis.grid(alpha=0.3)
    return _save(figure, path)


def plot_traces(result: Result, path: str | PathLike, flows: int = 4) -> Path:
    """Congestion window over time (the sawtooth) of the first ``flows`` traced flows,
    and the bottleneck queue when it was traced."""
    traces = result.traces
    if traces is None:
        raise ValueError("this result has no traces: run with [trace] flows = true (or cclab run --trace)")
    panels = [name for name in ("flows", "bottleneck_queue") if name in traces]
    figure, axes = plt.subplots(len(panels), 1, figsize=(7, 2.8 * len(panels)), sharex=True, squeeze=False)
    for axis, panel in zip(axes[:, 0], panels):
        if panel == "flows":
            flow_traces = traces["flows"]
            for flow_id in sorted(flow_traces["flow_id"].unique())[:flows]:
                one = flow_traces[flow_traces["flow_id"] == flow_id]
                axis.plot(one["t_s"], one["cwnd"], label=f"flow {flow_id}", linewidth=0.8)
            axis.set_ylabel("cwnd (packets)")
            axis.legend(loc="upper right", fontsize="small")
        else:
            queue = traces["bottleneck_queue"]
            axis.step(queue["t_s"], queue["packets"], where="post", linewidth=0.8)
            axis.set_ylabel("Bottleneck queue (packets)")
        axis.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("Time (s)")
    return _save(figure, path)


def _save(figure: plt.Figure, path: str | PathLike) -> Path:
    path = Path(path)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
