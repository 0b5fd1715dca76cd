"""Statistics across replications: means and Student-t confidence intervals.

:func:`summarize` turns a sweep's runs (one row per run) into one row per grid point and
metric with n, mean, standard deviation and the confidence interval of the mean.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Optional

import numpy as np
import pandas as pd

SUMMARY_COLUMNS = ["metric", "n", "mean", "std", "ci_low", "ci_high"]


def t_cdf(t: float, df: int) -> float:
    """P(T ≤ t) for Student's t with integer ``df`` ≥ 1 degrees of freedom (exact finite
    series, Abramowitz & Stegun 26.7.3 and 26.7.4)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be ≥ 1, got {df}")
    theta = math.atan(abs(t) / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 1:
        term, total = math.cos(theta), 0.0  # cos θ, (2/3) cos³ θ, (2·4)/(3·5) cos⁵ θ, ...
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= cos2 * (2 * k) / (2 * k + 1)
        inside = 2 / math.pi * (theta + sin * total)  # P(|T| ≤ |t|)
    else:
        term, total = 1.0, 0.0  # 1, (1/2) cos² θ, (1·3)/(2·4) cos⁴ θ, ...
        for k in range(1, df // 2 + 1):
            total += term
            term *= cos2 * (2 * k - 1) / (2 * k)
        inside = sin * total
    return 0.5 + math.copysign(inside / 2, t)


def t_quantile(probability: float, df: int) -> float:
    """The ``probability`` quantile of Student's t with ``df`` degrees of freedom
    (bisection on :func:`t_cdf`; ``t_quantile(0.975, 4)`` ≈ 2.776)."""
    if not 0 < probability < 1:
        raise ValueError(f"probability must be in (0, 1), got {probability}")
    if probability < 0.5:
        return -t_quantile(1 - probability, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < probability:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if t_cdf(middle, df) < probability:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[int, float, float, float, float]:
    """(n, mean, sample std, ci_low, ci_high) of ``values`` (NaNs ignored); the interval is
    the Student-t interval of the mean, NaN with fewer than two values."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return 0, math.nan, math.nan, math.nan, math.nan
    mean = float(x.mean())
    if n == 1:
        return 1, mean, math.nan, math.nan, math.nan
    std = float(x.std(ddof=1))
    half_width = t_quantile(0.5 + confidence / 2, n - 1) * std / math.sqrt(n)
    return n, mean, std, mean - half_width, mean + half_width


def summarize(runs: pd.DataFrame, by: Sequence[str], metrics: Optional[Sequence[str]] = None,
              confidence: float = 0.95) -> pd.DataFrame:
    """One row per group of ``by`` (e.g. the axis columns) and metric: n, mean, std,
    ci_low, ci_high. ``metrics`` defaults to every numeric column not in ``by``."""
    if metrics is None:
        metrics = [c for c in runs.columns if c not in by and pd.api.types.is_numeric_dtype(runs[c])
                   and not pd.api.types.is_bool_dtype(runs[c])]
    rows = []
    grouped = runs.groupby(list(by), sort=False, dropna=False) if by else [((), runs)]
    for key, group in grouped:
        key = key if isinstance(key, tuple) else (key,)
        for metric in metrics:
            rows.append((*key, metric, *mean_ci(group[metric], confidence)))
    return pd.DataFrame(rows, columns=[*by, *SUMMARY_COLUMNS])
