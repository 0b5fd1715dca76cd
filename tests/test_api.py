"""The Python API: cclab.run, Result's tables, overrides, sweeps, and the §4.2 metrics."""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

import cclab
from cclab.analysis.metrics import jain_index, success_percentage
from cclab.scenario import load_scenario, parse_override_value


def without_wall_time(raw: dict) -> dict:
    return {key: value for key, value in raw.items() if key != "wall_time_s"}


@pytest.fixture
def result(small_result):
    return small_result


def test_run_returns_one_row_per_flow_and_group(result):
    assert isinstance(result.flows, pd.DataFrame)
    assert list(result.flows["id"]) == [0, 1, 2, 3, 4]
    assert list(result.flows["group"]) == ["smooth"] * 3 + ["standard"] * 2
    assert list(result.groups["name"]) == ["smooth", "standard"]
    assert list(result.groups["flows"]) == [3, 2]
    assert result.groups["goodput_mbps"].sum() == pytest.approx(result.system["goodput_mbps"])
    assert result.flows["goodput_mbps"].sum() == pytest.approx(result.system["goodput_mbps"])


def test_system_has_run_totals(result):
    for key in ("goodput_mbps", "jain_index", "bottleneck_drops", "wall_time_s", "events", "duration_s"):
        assert key in result.system
    assert result.system["events"] > 0
    assert result.scenario["seed"] == 7


def test_bins_add_up_to_each_flows_goodput(result):
    bins = result.bins
    assert list(bins.columns[:4]) == ["bin_start_s", "flow_id", "group", "delivered_bytes"]
    assert sorted(bins["bin_start_s"].unique()) == [0.0, 1.0, 2.0]  # 3 s in 1 s bins
    assert len(bins) == 5 * 3
    delivered_mbit = bins.groupby("flow_id")["delivered_bytes"].sum() * 8 / 1e6
    expected = result.flows.set_index("id")["goodput_mbps"] * result.duration_s
    pd.testing.assert_series_equal(delivered_mbit, expected, check_names=False, rtol=1e-9)
    # goodput per bin is its bytes over the bin's length (1 s)
    assert bins["goodput_mbps"].tolist() == pytest.approx((bins["delivered_bytes"] * 8 / 1e6).tolist())
    assert set(bins.loc[bins["flow_id"] == 4, "group"]) == {"standard"}


def test_system_bins_are_sums_and_jain_over_the_bin(result):
    system_bins = result.system_bins
    per_bin = result.bins.groupby("bin_start_s")["goodput_mbps"]
    assert system_bins["goodput_mbps"].tolist() == pytest.approx(per_bin.sum().tolist())
    expected_jain = [jain_index(group) for _, group in per_bin]  # every flow starts within the first second
    assert system_bins["jain_index"].tolist() == pytest.approx(expected_jain)
    assert system_bins["active_flows"].tolist() == [5, 5, 5]


def test_allotted_fairness_counts_only_active_flows(small_scenario):
    small_scenario["duration"] = "4s"
    small_scenario["flows"][0]["stop"] = "1s"        # 3 flows that leave after the first bin
    small_scenario["flows"][1]["start"] = "2500ms"   # 2 flows that join in the third bin
    result = cclab.run(small_scenario)
    assert result.flows["stop_s"].tolist()[:3] == [1.0, 1.0, 1.0]
    assert math.isnan(result.flows["stop_s"].tolist()[4])
    assert result.system_bins["active_flows"].tolist() == [3, 0, 2, 2]
    assert math.isnan(result.system_bins["jain_index"][1])


def test_keyword_overrides_top_level_and_dotted(small_scenario):
    result = cclab.run(small_scenario, seed=11, **{"flows.1.count": 4, "topology.bottleneck.rate": "5Mbps"})
    assert result.scenario["seed"] == 11
    assert len(result.flows) == 3 + 4
    assert result.scenario["topology"]["bottleneck"]["rate"] == "5Mbps"
    assert small_scenario["seed"] == 7  # the caller's dict is left alone


def test_string_overrides_and_kwargs_together(example_file):
    result = cclab.run(example_file, overrides=["duration=1s", "flows.0.count=2"], **{"flows.1.count": 1})
    assert len(result.flows) == 3
    assert result.duration_s == pytest.approx(1.0)


def test_run_is_deterministic_per_seed(small_scenario):
    small_scenario["flows"][1]["start"] = {"random": "1s"}
    first, second = cclab.run(small_scenario), cclab.run(small_scenario)
    assert without_wall_time(first.raw) == without_wall_time(second.raw)


def test_run_raises_scenario_error_for_a_bad_value(small_scenario):
    small_scenario["flows"][0]["cc"]["beta"] = 1.5
    with pytest.raises(cclab.ScenarioError, match=r"beta.*1\.5"):
        cclab.run(small_scenario)
    assert issubclass(cclab.ScenarioError, ValueError)


def test_validate_fills_in_defaults(small_scenario):
    normalized = cclab.validate(small_scenario)
    assert "bin_width" in normalized and "bin_width" not in small_scenario
    assert cclab.validate(normalized) == normalized


@pytest.mark.parametrize(
    "text, value",
    [("10", 10), ("0.5", 0.5), ("true", True), ('"x"', "x"), ("10Mbps", "10Mbps"), ("1s", "1s"),
     ("{ algorithm = \"aimd\", beta = 0.75 }", {"algorithm": "aimd", "beta": 0.75}), ("[1, 2]", [1, 2]),
     ("2024-01-01", "2024-01-01"), ("nan", "nan"), ("10 parsecs", "10 parsecs")],
)
def test_override_values_are_toml_or_plain_strings(text, value):
    assert parse_override_value(text) == value


def test_overrides_create_tables_and_index_lists(small_scenario):
    scenario = load_scenario(small_scenario, ["trace.flows=true", "flows.1.tcp.recovery=newreno", "seed = 3"])
    assert scenario["trace"] == {"flows": True}
    assert scenario["flows"][1]["tcp"] == {"recovery": "newreno"}
    assert scenario["seed"] == 3
    assert "trace" not in small_scenario


@pytest.mark.parametrize(
    "override, message",
    [("flows.2.count=1", 'overrides."flows.2.count": flows has 2 entries'),
     ("flows.x.count=1", 'overrides."flows.x.count": flows is a list, \'x\' is not an index'),
     ("seed.x=1", 'overrides."seed.x": seed is 7, not a table'),
     ("flows..count=1", 'overrides."flows..count": empty component in the dotted path'),
     ("=3", 'overrides "=3": expected KEY=VALUE, e.g. "flows.0.count=10"')],
)
def test_bad_override_paths(small_scenario, override, message):
    # in Python the overrides are named as the API names them; on the command line, --set
    with pytest.raises(cclab.ScenarioError) as raised:
        load_scenario(small_scenario, [override])
    assert str(raised.value) == message
    with pytest.raises(cclab.ScenarioError) as raised:
        load_scenario(small_scenario, [override], origin="--set")
    assert str(raised.value).startswith("--set ") and "overrides" not in str(raised.value)


def test_sweep_keeps_input_order_with_any_executor(small_scenario):
    scenarios = [{**small_scenario, "seed": seed, "flows": [{**small_scenario["flows"][1], "count": count}]}
                 for seed, count in ((1, 1), (2, 3), (3, 2))]
    serial = cclab.sweep(scenarios, jobs=1)
    with ThreadPoolExecutor(max_workers=3) as executor:
        threaded = cclab.sweep(scenarios, executor)
    assert [len(result.flows) for result in serial] == [1, 3, 2]
    assert [without_wall_time(r.raw) for r in threaded] == [without_wall_time(r.raw) for r in serial]


def test_sweep_validates_everything_before_running(small_scenario):
    bad = {**small_scenario, "duration": "forever"}
    finished = []
    with pytest.raises(cclab.ScenarioError, match="forever"):
        cclab.sweep([small_scenario, bad], jobs=1, on_result=lambda index, result: finished.append(index))
    assert finished == []


def test_traces_become_tables(small_scenario):
    result = cclab.run(small_scenario, trace={"flows": True, "queue": True})
    flows = result.traces["flows"]
    # the window, then the algorithm's own state (TCP(α, β): alpha, beta)
    assert list(flows.columns) == ["flow_id", "t_s", "event", "cwnd", "ssthresh", "srtt_ms", "cc_alpha", "cc_beta"]
    assert set(flows.event) == {"arrival", "timer"}
    assert (flows["cc_alpha"] > 0).all() and flows["cc_beta"].between(0, 1, inclusive="neither").all()
    assert sorted(flows["flow_id"].unique()) == [0, 1, 2, 3, 4]
    assert (flows["cwnd"] > 0).all()
    assert list(result.traces["bottleneck_queue"].columns) == ["t_s", "packets"]
    assert cclab.run(small_scenario).traces is None


# ------------------------------------------------------------- §4.2 metrics
def test_jain_index():
    assert jain_index([3, 3, 3, 3]) == pytest.approx(1.0)
    assert jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    assert jain_index([1, 2, 3]) == pytest.approx(36 / (3 * 14))
    assert math.isnan(jain_index([])) and math.isnan(jain_index([0, 0]))


def test_success_percentage_counts_bins_strictly_above_x_percent():
    # 0.7 Mb/s is exactly 70 % of 1 Mb/s: not a success ("> x%")
    assert success_percentage([0.8, 0.7, 0.71, 1.2], target_rate=1.0, x=70) == pytest.approx(75.0)
    assert success_percentage([0.8, 0.7, 0.71, 1.2], target_rate=1.0, x=0) == pytest.approx(100.0)
    assert success_percentage([0.5, 0.5], target_rate=1.0, x=50) == pytest.approx(0.0)
    with pytest.raises(ValueError):
        success_percentage([1.0], target_rate=0, x=70)


def test_plots_write_pngs(small_scenario, tmp_path):
    from cclab.plots.traces import plot_bins, plot_traces

    traced = cclab.run(small_scenario, **{"trace.flows": True, "trace.queue": True})
    assert plot_bins(traced, tmp_path / "bins.png").stat().st_size > 5_000
    assert plot_traces(traced, tmp_path / "cwnd.png").stat().st_size > 5_000
    with pytest.raises(ValueError, match="no traces"):
        plot_traces(cclab.run(small_scenario), tmp_path / "none.png")


def test_a_short_last_bin_is_rated_over_its_real_length(small_scenario):
    result = cclab.run(small_scenario, duration="2500ms")
    bins = result.bins
    assert sorted(bins["bin_start_s"].unique()) == [0.0, 1.0, 2.0]
    lengths = bins["bin_start_s"].map({0.0: 1.0, 1.0: 1.0, 2.0: 0.5})
    assert bins["goodput_mbps"].tolist() == pytest.approx((bins["delivered_bytes"] * 8 / 1e6 / lengths).tolist())
    assert (bins.loc[bins["bin_start_s"] == 2.0, "delivered_bytes"] > 0).any()
