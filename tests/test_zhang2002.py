"""``cclab reproduce zhang2002``: scenarios, flow schedules, §4.2 metrics on hand-computed
cases, claim checking, the scenario files, the quick reproduction and bad input."""
from __future__ import annotations

import copy
import json
import math
from types import SimpleNamespace

import pandas as pd
import pytest
import tomllib

import cclab
from cclab.analysis.metrics import success_percentage
from cclab.papers.claims import NOT_SUPPORTED, PARTLY, SUPPORTED, VERDICTS, compare, ordered, verdict_of
from cclab.papers.zhang2002 import ReproduceError, parse_figures, scenarios
from cclab.papers.zhang2002.figures import FIGURES
from cclab.papers.zhang2002.goodput import breakdown_per
from cclab.papers.zhang2002.shared import QUICK
from cclab.papers.zhang2002.metrics import (application_success, attempt_goodputs, handoff_recoveries, rebin,
                                     recovery_time)
from cclab.papers.zhang2002.scenarios import FlowWindow, schedule_windows

from conftest import REPO, SMALL_SCENARIO


# ---------------------------------------------------------------- flow schedules (§5.2)
def test_increasing_schedule_starts_each_step_and_stops_none():
    assert schedule_windows(scenarios.INCREASING_FLOWS) == [
        FlowWindow(0, 12, "0s", None), FlowWindow(12, 25, "15s", None),
        FlowWindow(25, 50, "20s", None), FlowWindow(50, 100, "25s", None)]


def test_decreasing_schedule_stops_the_highest_flows_first():
    assert schedule_windows(scenarios.DECREASING_FLOWS) == [
        FlowWindow(0, 12, "0s", None), FlowWindow(12, 25, "0s", "25s"),
        FlowWindow(25, 50, "0s", "20s"), FlowWindow(50, 100, "0s", "15s")]


def test_schedule_that_rises_then_falls():
    # flow 0 always; flow 1 from 0 s until 10 s; flows 2, 3 from 5 s until 10 s
    assert schedule_windows([("0s", 2), ("5s", 4), ("10s", 1)]) == [
        FlowWindow(0, 1, "0s", None), FlowWindow(1, 2, "0s", "10s"), FlowWindow(2, 4, "5s", "10s")]
    with pytest.raises(ValueError):
        schedule_windows([])


def test_population_groups_cover_the_schedule_with_random_phases():
    groups = scenarios.population(scenarios.SMOOTH, scenarios.DECREASING_FLOWS)
    assert [group["count"] for group in groups] == [12, 13, 25, 50]
    assert [group.get("stop") for group in groups] == [None, "25s", "20s", "15s"]
    assert all(group["start"] == {"at": "0s", "random": "1s"} for group in groups)
    assert len({group["group"] for group in groups}) == 4  # the engine wants distinct names


def test_population_matches_the_engines_schedule_field():
    """The groups we expand a schedule into start and stop the same flows at the same
    times as the engine's own `schedule` (apart from our random phase within 1 s)."""
    schedule = [["0s", 3], ["1s", 5], ["2s", 2]]
    with_schedule = copy.deepcopy(SMALL_SCENARIO)
    with_schedule["flows"] = [{"group": "g", "count": 5, "cc": "reno", "schedule": schedule}]
    engine_flows = cclab.run(with_schedule).flows.sort_values("id")

    expanded = copy.deepcopy(SMALL_SCENARIO)
    expanded["flows"] = scenarios.population(scenarios.STANDARD, [tuple(step) for step in schedule])
    ours = cclab.run(expanded).flows.sort_values("id")
    assert list(engine_flows["stop_s"].fillna(-1)) == list(ours["stop_s"].fillna(-1)) == [-1, -1, 2.0, 2.0, 2.0]
    assert list(engine_flows["start_s"]) == [0.0, 0.0, 0.0, 1.0, 1.0]
    assert (ours["start_s"] - engine_flows["start_s"].to_numpy()).between(0, 1).all()


# ---------------------------------------------------------------- §4.2 metrics, hand-computed
def test_success_percentage_counts_bins_strictly_above_x_percent():
    goodput = [1.0, 0.7, 0.69, 0.71, 0.0]  # Mb/s per 1-s attempt, target 1 Mb/s
    assert success_percentage(goodput, 1.0, 70) == 40.0  # 1.0 and 0.71; exactly 70 % is not "> 70 %"
    assert success_percentage(goodput, 1.0, 0) == 80.0
    assert success_percentage(goodput, 0.5, 150) == 20.0  # only 1.0 Mb/s exceeds 0.75 Mb/s = 150 % of 0.5
    assert success_percentage(goodput, 0.5, 140) == 40.0  # 1.0 and 0.71 exceed 0.7 Mb/s = 140 % of 0.5
    assert math.isnan(success_percentage([], 1.0, 70))
    with pytest.raises(ValueError):
        success_percentage(goodput, 0.0, 70)


def fake_result(goodput_by_flow: list[list[float]], starts, stops, duration_s: float) -> SimpleNamespace:
    """A stand-in Result with 1-s bins: ``goodput_by_flow[f][b]`` in Mb/s."""
    bins = pd.DataFrame([{"bin_start_s": float(b), "flow_id": f, "goodput_mbps": value}
                         for f, row in enumerate(goodput_by_flow) for b, value in enumerate(row)])
    flows = pd.DataFrame({"id": range(len(starts)), "start_s": starts, "stop_s": stops})
    return SimpleNamespace(raw={"bins": {"width_s": 1.0}}, bins=bins, flows=flows, duration_s=duration_s)


def test_application_success_counts_only_whole_seconds_of_a_running_flow():
    # Flow 0 runs 0–4 s: attempts in bins 0..3 → 0.9, 0.8, 0.5, 0.75 → 3 of 4 exceed 0.7.
    # Flow 1 starts at 0.4 s and stops at 3 s: bin 0 is partial (no attempt); bins 1, 2 →
    # 0.72, 0.1 → 1 of 2. The run ends at 4 s. Together: 4 successes of 6 attempts.
    result = fake_result([[0.9, 0.8, 0.5, 0.75], [0.3, 0.72, 0.1, 0.0]], starts=[0.0, 0.4],
                         stops=[None, 3.0], duration_s=4.0)
    assert list(attempt_goodputs(result.bins, result.flows, 1.0, 4.0)) == [0.9, 0.8, 0.5, 0.75, 0.72, 0.1]
    assert application_success(result, 70) == pytest.approx(100 * 4 / 6)
    assert application_success(result, 0) == pytest.approx(100 * 6 / 6)
    result.raw["bins"]["width_s"] = 0.5
    with pytest.raises(ValueError, match="one second"):
        application_success(result, 70)


def test_handoff_recovery_on_a_hand_made_series():
    # 100-ms bins, 10 s, one handoff at 5 s: the link is silent 5.0–6.0 s, then the flow
    # delivers 1, 2, 3, … Mb/s per bin (capped at 9). Half of a 10 Mb/s link (5 Mb/s) is
    # reached in the bin starting at 6.4 s → 0.5 s after resumption (to the bin's end).
    times = [round(0.1 * index, 1) for index in range(100)]
    goodput = [9.0 if t < 5.0 else 0.0 if t < 6.0 else min(9.0, round(10 * (t - 6.0)) + 1.0) for t in times]
    table = handoff_recoveries(pd.DataFrame({"bin_start_s": times, "goodput_mbps": goodput}), period_s=5.0,
                               duration_s=10.0, link_mbps=10.0, level=0.5, window_s=1.0)
    assert len(table) == 1
    row = table.iloc[0]
    assert row["handoff_s"] == 5.0 and row["resumed_s"] == pytest.approx(6.0)
    assert row["recovery_s"] == pytest.approx(0.5)
    assert row["goodput_after_mbps"] == pytest.approx((sum(range(1, 10)) + 9) / 10)  # bins 6.0–6.9 s: 1..9, 9


def test_recovery_time_and_rebin():
    series = pd.DataFrame({"bin_start_s": [0.0, 1.0, 2.0, 3.0, 4.0], "fairness": [0.9, 0.3, 0.5, 0.96, 0.97]})
    assert recovery_time(series, "fairness", step_s=1.0, level=0.95) == 3.0  # bin 3–4 s ends 3 s after the step
    assert math.isnan(recovery_time(series, "fairness", step_s=1.0, level=0.99))
    fine = pd.DataFrame({"bin_start_s": [0.0, 0.5, 1.0, 1.5], "goodput_mbps": [1.0, 3.0, 5.0, 5.0]})
    assert rebin(fine, 1.0)["goodput_mbps"].tolist() == [2.0, 5.0]


def test_breakdown_per_interpolates_the_half_way_point():
    curve = pd.Series([90.0, 80.0, 30.0, 0.0], index=[0.0, 0.01, 0.05, 0.1])
    assert breakdown_per(curve) == pytest.approx(0.01 + (80 - 45) / (80 - 30) * 0.04)
    assert math.isnan(breakdown_per(pd.Series([90.0, 80.0], index=[0.0, 0.1])))


# ---------------------------------------------------------------- claims
def test_claim_helpers():
    assert compare(10.0, 9.0, 0.5) == 1 and compare(9.0, 10.0, 0.5) == -1 and compare(9.8, 10.0, 0.5) == 0
    assert compare(float("nan"), 1.0, 0.1) == 0
    assert verdict_of([True, True]) == SUPPORTED
    assert verdict_of([True, True, False]) == PARTLY and verdict_of([True, False]) == NOT_SUPPORTED
    assert verdict_of([False]) == NOT_SUPPORTED
    verdict, evidence = ordered({"a": 3.0, "b": 2.0, "c": 2.1}, ["a", "b", "c"], 0.05)
    assert verdict == NOT_SUPPORTED and evidence == "a 3 > b 2 ≯ c 2.1 (1 of 2 pairs in order)"
    assert ordered({"a": 1.0, "b": 2.0}, ["a", "b"], 0.1, descending=False)[0] == SUPPORTED


# ---------------------------------------------------------------- scenarios
def test_scenarios_are_the_papers_testbed():
    for built in (scenarios.wired(scenarios.SMOOTH, 30, "100Mbps"), scenarios.wireless(scenarios.RESPONSIVE, 0.02),
                  scenarios.friendliness(scenarios.SMOOTH, 30)):
        topology = built["topology"]
        assert [topology[name]["delay"] for name in ("source_access", "bottleneck", "sink_access")] == \
            ["5ms", "25ms", "5ms"]
        assert topology["bottleneck"]["buffer"] == "1bdp" and built["packet_size"] == "1000B"
        assert built["duration"] == "100s"
    wireless = scenarios.wireless(scenarios.SMOOTH, 0.02)
    assert wireless["topology"]["sink_access"] == {"rate": "10Mbps", "delay": "5ms",
                                                   "loss": {"model": "bernoulli", "rate": 0.02}}
    assert "loss" not in scenarios.wireless(scenarios.SMOOTH, 0.0)["topology"]["sink_access"]
    playback = scenarios.playback(scenarios.SMOOTH, 0.1, flows=40)
    assert playback["topology"]["bottleneck"]["rate"] == "40Mbps"  # 1 Mb/s × N (§4.1)
    assert playback["flows"][0]["app"] == {"kind": "cbr", "rate": "1Mbps"}
    pair = scenarios.friendliness(scenarios.RESPONSIVE, 30)["flows"]
    assert [(group["count"], group["cc"]["alpha"]) for group in pair] == [(15, 1.25), (15, 1.0)]
    handoff = scenarios.handoffs(scenarios.SMOOTH)["topology"]["sink_access"]["loss"]
    assert handoff == {"model": "handoff", "period": "5s", "mean_outage": "1s"}


@pytest.mark.parametrize("stem", sorted(scenarios.paper_scenarios()))
def test_scenario_files_are_the_builders_at_the_papers_sizes(stem):
    path = REPO / "experiments" / "zhang2002" / f"{stem}.toml"
    description, built = scenarios.paper_scenarios()[stem]
    assert path.read_text(encoding="utf-8") == scenarios.scenario_file_text(description, built), \
        "regenerate with cclab.papers.zhang2002.scenarios.write_scenario_files('experiments/zhang2002')"
    assert tomllib.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(built))
    assert cclab.validate(path)["duration"] == "100s"  # the engine runs it at the paper's length


# ---------------------------------------------------------------- the command
def test_quick_reproduction_writes_every_figure_and_the_summary(cli, tmp_path):
    out = tmp_path / "zhang2002"
    completed = cli("reproduce", "zhang2002", "--quick", "--out", out)
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    summary = (out / "summary.md").read_text(encoding="utf-8")
    meta = json.loads((out / "meta.json").read_text())
    for number, figure in FIGURES.items():
        assert f"## Figure {number}:" in summary
        assert (out / f"{figure.stem}.png").stat().st_size > 10_000
        data = pd.read_parquet(out / f"{figure.stem}.parquet")
        pd.testing.assert_frame_equal(pd.read_csv(out / f"{figure.stem}.csv"), data, check_dtype=False)
        assert sorted(data["seed"].unique()) == list(QUICK.seeds)
        verdicts = meta["figures"][str(number)]["verdicts"]
        assert verdicts and set(verdicts) <= set(VERDICTS)
        assert f"![Figure {number}]({figure.stem}.png)" in summary
    assert summary.count("| **") == sum(len(figure["verdicts"]) for figure in meta["figures"].values())
    # Every claim, with its rule, in claims.csv and in the summary's rule column.
    claims = pd.read_csv(out / "claims.csv")
    assert list(claims["verdict"]) == [v for figure in meta["figures"].values() for v in figure["verdicts"]]
    for column in ("metric", "threshold", "threshold_source"):
        assert claims[column].str.len().min() > 5, column
    for row in claims.itertuples():
        assert f"{row.metric}; {row.threshold} (threshold: {row.threshold_source})" in summary
    assert " Figure 2:" in completed.stdout


def test_figure_option_runs_only_that_figure(cli, tmp_path):
    out = tmp_path / "fig9"
    completed = cli("reproduce", "zhang2002", "--quick", "--figure", "9", "--seeds", "1", "--out", out)
    assert completed.returncode == 0, completed.stderr
    assert sorted(path.name for path in out.iterdir()) == [
        "claims.csv", "fig09_friendliness_smooth.csv", "fig09_friendliness_smooth.parquet",
        "fig09_friendliness_smooth.png", "meta.json", "runs.duckdb", "runs.duckdb.parts", "scenarios", "summary.md"]
    assert [path.name for path in (out / "scenarios").iterdir()] == ["fig09_friendliness_smooth.toml"]
    assert cclab.validate(out / "scenarios" / "fig09_friendliness_smooth.toml")["flows"][0]["count"] > 0
    data = pd.read_csv(out / "fig09_friendliness_smooth.csv")
    assert set(data["group"]) == {"TCP(0.31, 0.875)", "TCP(1, 0.5)"}
    shares = data.groupby(["bottleneck", "flows"])["share"].sum()
    assert shares.to_numpy() == pytest.approx(1.0)


@pytest.mark.parametrize("number", [5, 8])
def test_handoff_and_playback_figures(number, cli, tmp_path):
    out = tmp_path / f"fig{number}"
    completed = cli("reproduce", "zhang2002", "--quick", "--figure", str(number), "--seeds", "2", "--out", out)
    assert completed.returncode == 0, completed.stderr
    stem = FIGURES[number].stem
    data = pd.read_parquet(out / f"{stem}.parquet")
    if number == 5:
        handoffs = pd.read_parquet(out / f"{stem}_handoffs.parquet")
        # Handoffs at 5, 10, … s of a 50-s run: 9 per protocol and seed.
        assert len(handoffs) == 4 * 2 * 9
        assert data["goodput_mbps"].between(0, 10).all()  # one flow, 10 Mb/s wireless link
    else:
        assert data["success_70_percent"].between(0, 100).all()
        error_free = data[data["per"] == 0]["success_70_percent"]
        assert (error_free > 50).all()  # 1 Mb/s each over just enough bandwidth mostly succeeds
        assert (data[data["per"] == max(QUICK.playback_pers)]["success_70_percent"] < 5).all()


@pytest.mark.parametrize("arguments, message", [
    (["--figure", "1"], "--figure 1: zhang2002 has no such figure; choose one of 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"),
    (["--figure", "12"], "--figure 12:"),
    (["--figure", "two"], "--figure two: zhang2002 has no such figure"),
    (["--seeds", "0"], "--seeds 0: must be at least 1"),
    (["--seeds", "many"], "--seeds many: not a whole number"),
])
def test_bad_options_are_one_line_errors_and_write_nothing(cli, tmp_path, arguments, message):
    out = tmp_path / "out"
    completed = cli("reproduce", "zhang2002", "--quick", "--out", out, *arguments)
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"error: {message}"), completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_out_that_is_a_file_is_refused(cli, tmp_path):
    target = tmp_path / "a-file"
    target.write_text("keep me")
    completed = cli("reproduce", "zhang2002", "--quick", "--figure", "2", "--out", target)
    assert completed.returncode == 2 and "is not a directory" in completed.stderr
    assert target.read_text() == "keep me"


def test_parse_figures():
    assert parse_figures(None) == list(range(2, 12))
    assert parse_figures(["7", 3, "7"]) == [3, 7]
    with pytest.raises(ReproduceError):
        parse_figures(["0"])
