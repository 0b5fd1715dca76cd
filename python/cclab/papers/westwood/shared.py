"""What every figure of the Westwood reproduction shares: the sizes of its runs (quick,
full), the point each run is, colours and margins, the measurements of traces and of
the whole system, and the mean lines the plots draw.

The figures are in :mod:`~cclab.papers.westwood.estimates` (§3–§4.2: the estimators)
and :mod:`~cclab.papers.westwood.throughput` (§4.3–§5: throughput, fairness and
friendliness), listed in :mod:`~cclab.papers.westwood.figures`.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from cclab.papers.westwood.scenarios import WIRE_BYTES
from cclab.plots import paper_figures

COLORS = {"NewReno": "tab:blue", "BE": "tab:orange", "BE (Eq. 1)": "tab:olive", "RE": "tab:green", "ABSE": "tab:red", "CRB": "tab:purple",
          "Westwood+": "tab:brown"}
# Margins fixed before the runs (each a fraction of what it is compared with).
LINK_MARGIN = 0.05  # throughput differences: 5 % of the link rate
RELATIVE_MARGIN = 0.10  # drop rates, queueing times, estimates vs throughput: 10 % of the larger


@dataclass(frozen=True)
class Sizes:
    name: str
    seeds: tuple[int, ...]
    duration_s: float
    join_duration_s: float  # Fig. 21 (the join at half of it)
    single_buffers: tuple[int, ...]
    many_buffers: tuple[int, ...]
    error_rates: tuple[float, ...]
    newreno_counts: tuple[int, ...]
    # Figs. 9–10 (two-way traffic): a run's estimate under ACK compression swings with
    # the seed (0.5 % errors: 3.6–41 Mb/s over 20 seeds), so their means take more seeds.
    two_way_seeds: tuple[int, ...] = ()

    def with_seeds(self, count: int) -> "Sizes":
        return replace(self, seeds=tuple(range(1, count + 1)), two_way_seeds=())

    @property
    def ack_compression_seeds(self) -> tuple[int, ...]:
        return self.two_way_seeds or self.seeds

    @property
    def warmup_s(self) -> float:
        return min(10.0, self.duration_s / 4)


FULL = Sizes("full", seeds=(1, 2, 3), duration_s=100, join_duration_s=200,
             single_buffers=(2, 4, 6, 8, 10, 15, 20, 30, 42, 60, 80, 120, 160),
             many_buffers=(100, 200, 400, 800, 1200, 1600),
             error_rates=(0.0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05),
             newreno_counts=(1, 2, 3, 4, 5, 6, 7, 8, 9), two_way_seeds=tuple(range(1, 21)))
QUICK = Sizes("quick", seeds=(1, 2), duration_s=40, join_duration_s=80,
              single_buffers=(4, 10, 42, 160), many_buffers=(100, 400, 1600),
              error_rates=(0.0, 0.001, 0.01, 0.05), newreno_counts=(2, 5, 8))


@dataclass(frozen=True)
class Point:
    figure: str
    labels: dict
    scenario: dict
    trace: bool = False  # keep a trace table for the plot


# ---------------------------------------------------------------- measuring
def to_mbps(segments_per_s):
    """An estimate in segments/s as Mb/s on the wire (1040-byte packets)."""
    return np.asarray(segments_per_s, dtype=float) * WIRE_BYTES * 8 / 1e6


def sampled(trace: pd.DataFrame, columns: Sequence[str], step_s: float, end_s: float) -> pd.DataFrame:
    """One flow's trace columns as they stood at every ``step_s`` (the last value before)."""
    grid = np.arange(0.0, end_s, step_s)
    index = np.searchsorted(trace["t_s"].to_numpy(), grid, side="right") - 1
    keep = index >= 0
    table = pd.DataFrame({"t_s": grid[keep]})
    for column in columns:
        table[column] = trace[column].to_numpy()[index[keep]]
    return table


def time_average(trace: pd.DataFrame, column: str, start_s: float, end_s: float) -> float:
    """The time-weighted mean of a traced column over [start, end)."""
    grid = sampled(trace, [column], 0.01, end_s)
    window = grid[grid["t_s"] >= start_s][column]
    return float(window.mean()) if len(window) else math.nan


def flow_traces(result) -> dict[int, pd.DataFrame]:
    trace = result.traces["flows"]
    return {int(flow): rows for flow, rows in trace.groupby("flow_id", sort=True)}


def measure_system(result, point: Point) -> dict[str, pd.DataFrame]:
    """Throughput, utilisation, queueing time, drops, per-group means and Jain's index."""
    system, flows = result.system, result.flows
    sent = int(flows["data_packets_sent"].sum())
    row = {"throughput_mbps": system["throughput_mbps"], "goodput_mbps": system["goodput_mbps"],
           "utilization": system["bottleneck_utilization"], "queue_delay_ms": system["mean_queue_delay_ms"],
           "bottleneck_drops": system["bottleneck_drops"],
           "drop_rate": system["bottleneck_drops"] / sent if sent else math.nan,
           "timeouts": int(flows["timeouts"].sum()), "jain": system["jain_index"]}
    for name, rows in flows.groupby("group"):
        row[f"per_flow_mbps[{name}]"] = float(rows["throughput_mbps"].mean())
    tables = {"runs": pd.DataFrame([row])}
    if point.trace and result.traces is not None:
        trace = result.traces["flows"]
        one = trace[trace["flow_id"] == trace["flow_id"].min()]
        columns = ["cwnd", "ssthresh"] + (["cc_ere_pps"] if "cc_ere_pps" in one else [])
        table = sampled(one, columns, 0.05, result.duration_s)
        if "cc_ere_pps" in table:
            table["ere_packets"] = table.pop("cc_ere_pps") * one["cc_rtt_min_s"].iloc[-1]  # ERE·RTTmin, packets
        tables["trace"] = table
    return tables


# colors=None: matplotlib's
mean_lines = functools.partial(paper_figures.mean_lines, colors=COLORS)
