"""Metrics of Zhang & Tsaoussidis (2002) §4.2 beyond those every result carries.

Every result already has the system goodput and goodput fairness index
(``result.system``), the aggregated protocol goodput per group (``result.groups``) and
the allotted system goodput and allotted fairness per 1-s bin (``result.system_bins``).
This module adds:

* :func:`application_success`: the x % Application Success Percentage (§4.2, Figure 8);
* :func:`protocol_share`: a protocol's aggregated goodput as a share of the system's
  (§5.4, Figures 9–11);
* :func:`handoff_recoveries`: how fast one flow regains its rate after each handoff
  outage (§5.1, Figure 5);
* :func:`recovery_time`: how long a time series takes to come back to a level after a
  step (§5.2, Figures 6 and 7).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Optional

import numpy as np
import pandas as pd

from cclab.analysis.metrics import success_percentage


def attempt_goodputs(bins: pd.DataFrame, flows: pd.DataFrame, width_s: float, duration_s: float) -> np.ndarray:
    """Goodput (Mb/s) of every playback attempt: one per flow and whole bin during which
    the flow's application ran (the bin starts at or after the flow's start and ends by
    its stop and by the end of the run). A flow's first, partial second is not an
    attempt: its playback starts one second after its connection does."""
    table = bins.merge(flows[["id", "start_s", "stop_s"]].rename(columns={"id": "flow_id"}), on="flow_id")
    ends = table["bin_start_s"] + width_s
    stops = table["stop_s"].astype(float).fillna(np.inf).clip(upper=duration_s)
    tolerance = 1e-9
    whole = (table["bin_start_s"] >= table["start_s"] - tolerance) & (ends <= stops + tolerance)
    return table.loc[whole, "goodput_mbps"].to_numpy()


def application_success(result, x_percent: float = 70.0, target_mbps: float = 1.0) -> float:
    """x % Application Success Percentage of a run, §4.2: 100 · Success / Attempts over
    every flow's one-second playback attempts, an attempt succeeding when its allotted
    goodput / targeted receiving rate (1 Mb/s) > x %. The paper's formula says ">", its
    prose "at least"; with 1000-byte packets a bin never delivers exactly x % of 125 KB
    for the x of interest, so the two agree. Needs 1-s bins (the paper's attempts)."""
    width_s = result.raw["bins"]["width_s"]
    if not math.isclose(width_s, 1.0):
        raise ValueError(f"playback attempts are one second apart; this run has {width_s} s bins")
    goodputs = attempt_goodputs(result.bins, result.flows, width_s, result.duration_s)
    return success_percentage(goodputs, target_mbps, x_percent)


def protocol_share(result, group: str) -> float:
    """Aggregated protocol goodput of ``group`` ÷ system goodput (§4.2, §5.4)."""
    groups = result.groups.set_index("name")["goodput_mbps"]
    total = float(groups.sum())
    return float(groups[group]) / total if total > 0 else math.nan


def first_time_at_or_above(times: Sequence[float], values: Sequence[float], level: float, after: float,
                           before: float = math.inf) -> float:
    """Time (relative to ``after``) of the first sample in [after, before) whose value
    reaches ``level``; NaN when none does."""
    times = np.asarray(times, dtype=float)
    values = np.asarray(values, dtype=float)
    window = (times >= after - 1e-9) & (times < before - 1e-9) & (values >= level)
    return float(times[window][0] - after) if window.any() else math.nan


def recovery_time(series: pd.DataFrame, value: str, step_s: float, level: float,
                  until_s: float = math.inf) -> float:
    """Seconds after ``step_s`` until the binned ``series`` (bin_start_s, ``value``)
    first has a whole bin at or above ``level``, looking no further than ``until_s``;
    NaN if it never does. Measured to the end of that bin, so an immediate recovery
    counts one bin width."""
    width = float(np.diff(series["bin_start_s"].to_numpy()[:2])[0]) if len(series) > 1 else 1.0
    found = first_time_at_or_above(series["bin_start_s"], series[value], level, step_s, until_s)
    return found + width if not math.isnan(found) else math.nan


def handoff_recoveries(bins: pd.DataFrame, period_s: float, duration_s: float, link_mbps: float,
                       level: float = 0.5, window_s: float = 3.0) -> pd.DataFrame:
    """One row per handoff of a one-flow run binned finely (e.g. 100 ms), §5.1/Figure 5.

    Handoff k starts at k·period. The link is back when the flow delivers again: the
    first bin with data after a bin without any ("resumed_s"; the flow's own
    retransmission timer may add to the outage). Per handoff: ``recovery_s``, the time
    from resumption to the first bin whose goodput reaches ``level`` × ``link_mbps``
    (NaN if not before the next handoff), and ``goodput_after_mbps``, the mean goodput
    over the ``window_s`` seconds after resumption (cut at the next handoff).
    """
    times = bins["bin_start_s"].to_numpy(dtype=float)
    goodput = bins["goodput_mbps"].to_numpy(dtype=float)
    width = float(times[1] - times[0])
    rows = []
    for start in np.arange(period_s, duration_s, period_s):
        end = min(start + period_s, duration_s)
        inside = (times >= start - 1e-9) & (times + width <= end + 1e-9)
        index = np.flatnonzero(inside)
        silent = index[goodput[index] == 0]
        if silent.size == 0:  # the outage was too short to empty a whole bin
            resumed = start
        else:
            delivering = index[(index > silent[0]) & (goodput[index] > 0)]
            resumed = times[delivering[0]] if delivering.size else math.nan
        if math.isnan(resumed):
            rows.append({"handoff_s": start, "resumed_s": math.nan, "recovery_s": math.nan,
                         "goodput_after_mbps": math.nan})
            continue
        after = (times >= resumed - 1e-9) & (times < min(resumed + window_s, end) - 1e-9)
        reached = first_time_at_or_above(times, goodput, level * link_mbps, resumed, end)
        rows.append({"handoff_s": start, "resumed_s": resumed,
                     "recovery_s": reached + width if not math.isnan(reached) else math.nan,
                     "goodput_after_mbps": float(goodput[after].mean()) if after.any() else math.nan})
    return pd.DataFrame(rows, columns=["handoff_s", "resumed_s", "recovery_s", "goodput_after_mbps"])


def coefficient_of_variation(values: Sequence[float]) -> float:
    """Standard deviation ÷ mean: the (lack of) smoothness of a rate series."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.std() / x.mean()) if x.size and x.mean() > 0 else math.nan


def rebin(bins: pd.DataFrame, width_s: float, value: str = "goodput_mbps",
          group_by: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """Average a finely binned rate series into bins of ``width_s`` (e.g. 100 ms → 1 s)."""
    keys = list(group_by or [])
    table = bins.assign(bin_start_s=np.floor(bins["bin_start_s"] / width_s + 1e-9) * width_s)
    return table.groupby(keys + ["bin_start_s"], as_index=False)[value].mean()
