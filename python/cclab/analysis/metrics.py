"""Performance metrics of Zhang & Tsaoussidis (2002), §4.2.

* System goodput: the sum of the goodput of all flows.
* Goodput fairness index: Jain's index over the flows' goodput (Chiu & Jain [2]).
* Allotted system goodput / allotted fairness: the same two, per time bin (1 s).
* x% Application Success Percentage: the share of bins in which a flow received more
  than x% of its targeted receiving rate.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


from cclab.core import jain_index  # noqa: E402,F401  (the engine's, re-exported: one definition)


def bin_goodput(delivered_bytes: Sequence[Sequence[int]], width_s: float, duration_s: float) -> pd.DataFrame:
    """Per-flow, per-bin goodput as a long table.

    ``delivered_bytes[f][b]`` is what flow ``f`` delivered in order to its application
    during bin ``b``. Columns: bin_start_s, flow_id, delivered_bytes, goodput_mbps. The
    last bin may be shorter than ``width_s`` (when the duration is not a multiple of it);
    its goodput is taken over its real length.
    """
    delivered = np.asarray(delivered_bytes, dtype=float)
    if delivered.ndim != 2:  # no flow of its own (a group of arriving flows only)
        delivered = np.zeros((0, int(np.ceil(duration_s / width_s))))
    flow_count, bin_count = delivered.shape
    starts = np.arange(bin_count) * width_s
    lengths = np.minimum(width_s, duration_s - starts)
    return pd.DataFrame(
        {
            "bin_start_s": np.tile(starts, flow_count),
            "flow_id": np.repeat(np.arange(flow_count), bin_count),
            "delivered_bytes": delivered.ravel().astype(np.int64),
            "goodput_mbps": (delivered * 8 / lengths / 1e6).ravel(),
        }
    )


def allotted(bins: pd.DataFrame, flows: pd.DataFrame, width_s: float) -> pd.DataFrame:
    """Allotted system goodput and allotted fairness per bin (paper §4.2).

    ``bins`` has bin_start_s, flow_id, goodput_mbps; ``flows`` has id, start_s, stop_s
    (NaN or None: runs to the end). Fairness is Jain's index over the flows active in
    the bin: started before the bin ends and not stopped by the time it starts.
    """
    # Arrays, not a merge and a groupby: a sweep computes this for every run, and for
    # short runs the pandas machinery cost ten times the simulation.
    where = pd.Index(flows["id"].to_numpy()).get_indexer(bins["flow_id"].to_numpy())
    known = where >= 0
    start = np.full(len(bins), np.nan)  # a flow not in ``flows`` is never active
    start[known] = flows["start_s"].to_numpy(dtype=float)[where[known]]
    stop = np.full(len(bins), np.inf)
    stop[known] = flows["stop_s"].astype(float).fillna(np.inf).to_numpy()[where[known]]
    bin_start = bins["bin_start_s"].to_numpy(dtype=float)
    goodput = bins["goodput_mbps"].to_numpy(dtype=float)
    active = (start < bin_start + width_s) & (stop > bin_start)
    starts, which = np.unique(bin_start, return_inverse=True)
    order = np.argsort(which, kind="stable")  # each bin's rows in their table order
    ends = np.cumsum(np.bincount(which, minlength=len(starts)))
    rows = []
    for bin_start_s, begin, end in zip(starts, np.concatenate(([0], ends[:-1])), ends):
        in_bin = order[begin:end]
        rows.append(
            {
                "bin_start_s": float(bin_start_s),
                "goodput_mbps": float(goodput[in_bin].sum()),
                "active_flows": int(active[in_bin].sum()),
                "jain_index": jain_index(goodput[in_bin][active[in_bin]]),
            }
        )
    return pd.DataFrame(rows, columns=["bin_start_s", "goodput_mbps", "active_flows", "jain_index"])


def success_percentage(bin_goodput: Sequence[float], target_rate: float, x: float) -> float:
    """x% Application Success Percentage = 100 · Success / Attempts (paper §4.2).

    An attempt (one bin) succeeds when allotted goodput / target_rate > x %. ``x`` is in
    percent (70 for the paper's Figure 8); ``bin_goodput`` and ``target_rate`` share a
    unit (e.g. Mbps, target 1 Mbps).
    """
    if target_rate <= 0:
        raise ValueError(f"target_rate must be positive, got {target_rate}")
    goodput = np.asarray(bin_goodput, dtype=float)
    if goodput.size == 0:
        return float("nan")
    successes = np.count_nonzero(goodput / target_rate > x / 100.0)
    return 100.0 * successes / goodput.size
