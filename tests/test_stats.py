"""Means and Student-t confidence intervals across replications."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from cclab.analysis.stats import mean_ci, summarize, t_cdf, t_quantile


@pytest.mark.parametrize(("df", "expected"), [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (30, 2.0423)])
def test_t_quantile_matches_the_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-4)


def test_t_cdf_is_symmetric_and_tends_to_the_normal():
    assert t_cdf(0.0, 7) == 0.5
    assert t_cdf(-1.3, 5) == pytest.approx(1 - t_cdf(1.3, 5))
    assert t_cdf(1.959964, 2000) == pytest.approx(0.975, abs=2e-4)


def test_mean_ci_by_hand():
    n, mean, std, low, high = mean_ci([1.0, 2.0, 3.0, 4.0, float("nan")])
    assert (n, mean) == (4, 2.5)
    assert std == pytest.approx(math.sqrt(5 / 3))
    half = 3.1824 * math.sqrt(5 / 3) / 2  # t(0.975, 3) · s / √n
    assert (low, high) == pytest.approx((2.5 - half, 2.5 + half), abs=1e-3)
    assert math.isnan(mean_ci([7.0])[3]) and mean_ci([7.0])[1] == 7.0


def test_summarize_groups_by_axes_and_covers_every_numeric_metric():
    runs = pd.DataFrame({"flows": [10, 10, 20, 20, 20], "protocol": ["a"] * 5, "goodput": [1.0, 3.0, 5.0, 6.0, 7.0],
                         "drops": [0, 2, 4, 4, 4]})
    summary = summarize(runs, by=["flows", "protocol"])
    assert set(summary["metric"]) == {"goodput", "drops"}
    row = summary[(summary["flows"] == 20) & (summary["metric"] == "goodput")].iloc[0]
    assert (row["n"], row["mean"], row["std"]) == (3, 6.0, 1.0)
    assert row["ci_high"] - row["mean"] == pytest.approx(4.3027 / math.sqrt(3), abs=1e-4)
    constant = summary[(summary["flows"] == 20) & (summary["metric"] == "drops")].iloc[0]
    assert constant["ci_low"] == constant["ci_high"] == 4
