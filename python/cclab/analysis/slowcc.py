"""The SlowCC metrics (Bansal, Balakrishnan, Floyd, Shenker, SIGCOMM 2001), from results.

* :func:`f_k`: the bottleneck's average utilisation over the first k RTTs after a time
  (the moment the available bandwidth doubles), §4.2.3.
* :func:`smoothness`: the worst ratio of sending rates in consecutive RTTs, §4.3. The
  paper words it as "the largest ratio"; here it is min/max ≤ 1, so that a constant rate
  scores 1 and TCP(b) under periodic loss scores 1 − b (a cut from W to (1 − b)W).
* :func:`delta_fair_convergence_time`: from a maximally unfair start (one flow has the
  link, the other arrives), the time until the two flows' allocation is δ-fair:
  |x₁ − x₂| / (x₁ + x₂) ≤ δ, with rates averaged over ``window`` seconds, and stays so
  for ``hold`` seconds.
* Loss rate and throughput per bin come with every result: ``Result.bottleneck_bins``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from cclab.results import Result


def f_k(result: "Result", at_s: float, k: float, rtt_s: float) -> float:
    """Bottleneck utilisation over [at, at + k·R): bytes it transmitted ÷ what it could.

    Bins partly inside the window count in proportion (transmissions are spread evenly
    within a bin for this purpose), so any bin width works; a width that divides k·R and
    ``at`` is exact.
    """
    bins = result.bottleneck_bins
    width = float(result.raw["bins"]["width_s"])
    start, end = at_s, at_s + k * rtt_s
    if end > result.duration_s + 1e-9:
        raise ValueError(f"f({k:g}) needs the run to last until {end:g} s; it lasts {result.duration_s:g} s")
    left = bins["bin_start_s"].to_numpy()
    overlap = np.clip(np.minimum(left + width, end) - np.maximum(left, start), 0.0, None) / width
    bits = float((bins["transmitted_bytes"].to_numpy() * overlap).sum()) * 8
    capacity = result.bottleneck_rate_mbps * 1e6 * (end - start)
    return bits / capacity


def smoothness(rates: Sequence[float], per_rtt: int = 1) -> float:
    """min over consecutive RTTs of min(x_i, x_{i+1}) / max(x_i, x_{i+1}) (1 = perfectly
    smooth). ``rates`` are sending rates in consecutive intervals of 1/``per_rtt`` RTT:
    with per_rtt > 1 every RTT-long window (sliding by one interval) is compared with the
    next one, so a cut is seen whole wherever it falls (fixed RTT-long bins would split
    it between two bins and score TCP(b) above 1 − b). Pairs where both are 0 are
    skipped, a pair with one 0 scores 0."""
    x = np.asarray(rates, dtype=float)
    if per_rtt < 1:
        raise ValueError(f"per_rtt {per_rtt} is below 1")
    if per_rtt > 1:
        x = np.convolve(x, np.ones(per_rtt), mode="valid")
    if x.size < per_rtt + 1:
        raise ValueError("smoothness needs at least two RTTs of rates")
    first, second = x[:-per_rtt], x[per_rtt:]
    low, high = np.minimum(first, second), np.maximum(first, second)
    keep = high > 0
    if not keep.any():
        raise ValueError("smoothness of a flow that sent nothing")
    return float((low[keep] / high[keep]).min())


def flow_rates(result: "Result", flow_id: int, start_s: float = 0.0, end_s: float | None = None) -> np.ndarray:
    """The flow's delivered rate (Mb/s) per bin within [start, end): with bins one RTT
    wide, its rate per RTT."""
    bins = result.bins
    rows = bins[(bins["flow_id"] == flow_id) & (bins["bin_start_s"] >= start_s - 1e-9)]
    if end_s is not None:
        rows = rows[rows["bin_start_s"] < end_s - 1e-9]
    return rows["goodput_mbps"].to_numpy()


def delta_fair_convergence_time(
    result: "Result", first: int, second: int, since_s: float, delta: float = 0.1, window_s: float = 1.0, hold_s: float = 0.0
) -> float:
    """Seconds from ``since_s`` (when flow ``second`` starts against ``first``) until
    their rates, averaged over ``window_s``, are δ-fair and stay so for ``hold_s``; NaN
    if that never happens within the run."""
    if not 0 < delta < 1:
        raise ValueError(f"delta {delta} is outside (0, 1)")
    width = float(result.raw["bins"]["width_s"])
    per = max(1, int(round(window_s / width)))
    x1 = flow_rates(result, first, since_s)
    x2 = flow_rates(result, second, since_s)
    n = min(len(x1), len(x2)) // per
    if n == 0:
        return float("nan")
    a = x1[: n * per].reshape(n, per).mean(axis=1)
    b = x2[: n * per].reshape(n, per).mean(axis=1)
    total = a + b
    fair = np.where(total > 0, np.abs(a - b) / np.where(total > 0, total, 1), 1.0) <= delta
    need = int(np.ceil(hold_s / (per * width)))
    for i in range(n):
        if fair[i : i + need + 1].all() and i + need < n:
            return (i + 1) * per * width
    return float("nan")
