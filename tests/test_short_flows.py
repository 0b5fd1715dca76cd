"""Short flows from the front end: finite flows and Poisson arrivals from scenario files
and the Python API, CDF workloads read from files (shipped and the user's), the FCT
tables, and one-line errors for bad input."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cclab
from cclab.core import ScenarioError

ROOT = Path(__file__).resolve().parents[1]


def dumbbell(flows: dict, duration: str = "4s") -> dict:
    return {
        "duration": duration,
        "seed": 2,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "100Mbps", "delay": "2ms", "buffer": 100},
            "source_access": {"rate": "1Gbps", "delay": "1ms", "buffer": 1000},
            "sink_access": {"rate": "1Gbps", "delay": "1ms", "buffer": 1000},
        },
        "flows": [flows],
    }


def test_a_finite_flow_has_its_completion_time_in_the_flow_row():
    result = cclab.run(dumbbell({"app": {"kind": "bulk", "size": "250KB"}}))
    row = result.flows.iloc[0]
    assert row["size_bytes"] == 250_000 and bool(row["completed"])
    assert row["delivered_packets"] == 250
    assert row["fct_ms"] >= row["fct_ms"] / row["slowdown"] and row["slowdown"] > 1
    assert result.fcts["fct_ms"].tolist() == [row["fct_ms"]]


def test_shipped_web_search_workload_and_group_percentiles():
    scenario = dumbbell({"count": 4, "arrivals": {"kind": "poisson", "load": 0.5,
                                                   "sizes": {"kind": "cdf", "file": "web-search"}}}, "20s")
    result = cclab.run(scenario)
    fcts = result.fcts
    assert len(fcts) > 50
    completed = fcts[fcts["completed"]]
    assert (completed["slowdown"] >= 1).all()
    group = result.groups.iloc[0]
    assert group["fct_flows"] == len(fcts) == group["flows"]
    # The engine's percentiles are numpy's (linear between order statistics).
    assert group["p50_fct_ms"] == pytest.approx(np.percentile(completed["fct_ms"], 50), rel=1e-12)
    assert group["p99_fct_ms"] == pytest.approx(np.percentile(completed["fct_ms"], 99), rel=1e-12)
    by_size = result.fct_by_size
    assert by_size["flows"].sum() == len(fcts)
    small = completed[completed["size_bytes"] <= 10_000]
    if len(small):
        assert by_size.iloc[0]["p50_fct_ms"] == pytest.approx(np.percentile(small["fct_ms"], 50), rel=1e-12)
    # Sizes follow the CDF: 15 % of flows at most 10 KB, 60 % at most 200 KB (±sampling).
    sizes = fcts["size_bytes"]
    assert abs((sizes <= 200_000).mean() - 0.60) < 0.15


def test_a_cdf_file_beside_the_scenario_and_its_errors(tmp_path):
    (tmp_path / "mine.csv").write_text("# two sizes\nsize_bytes,cumulative_probability\n1000,0.5\n5000,1\n")
    text = (ROOT / "examples/short_flows/web-search.toml").read_text().replace('"web-search"', '"mine.csv"')
    text = text.replace('duration = "5s"', 'duration = "0.5s"')
    (tmp_path / "s.toml").write_text(text)
    result = cclab.run(tmp_path / "s.toml")
    assert set(result.fcts["size_bytes"]) <= {1460 * k for k in range(1, 5)}
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.arrivals\.sizes\.file: 'nope\.csv' is neither a file nor a shipped workload"):
        cclab.run(tmp_path / "s.toml", **{"flows.0.arrivals.sizes.file": "nope.csv"})
    (tmp_path / "bad.csv").write_text("1000,0.5\n900,1\n")
    # (named by the file and its line: the points are not a field the user wrote)
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.arrivals\.sizes\.file: .*bad\.csv line 2: .*must not decrease"):
        cclab.run(tmp_path / "s.toml", **{"flows.0.arrivals.sizes.file": str(tmp_path / "bad.csv")})


@pytest.mark.parametrize("override, message", [
    ("flows.0.arrivals.load=-1", "flows[0].arrivals.load: -1 is outside (0, 10]"),
    ('flows.0.arrivals.sizes={kind="pareto", mean="10KB", shape=0.5}', "flows[0].arrivals.sizes.shape: 0.5 is outside (1, 100]"),
    ('flows.0.arrivals.sizes={kind="fixed", size="10"}', "has no unit"),
    ('flows.0.transport="tfrc"', "flows[0].arrivals: arriving finite flows are TCP flows"),
])
def test_bad_arrivals_from_the_command_line_are_one_line(override, message):
    done = subprocess.run([sys.executable, "-m", "cclab", "run", str(ROOT / "examples/short_flows/web-search.toml"),
                           "--set", override, "--json"], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_example_runs_from_the_command_line_and_saves_fct_tables(tmp_path):
    done = subprocess.run([sys.executable, "-m", "cclab", "run", str(ROOT / "examples/short_flows/web-search.toml"),
                           "--set", 'duration="0.5s"', "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    saved = {path.stem for path in (tmp_path / "out").rglob("*") if path.is_file()}
    assert {"fcts", "fct_by_size"} <= saved, saved


def test_one_way_delay_columns_and_histogram():
    scenario = dumbbell({"count": 2})
    scenario["trace"] = {"delays": True, "delay_histogram": "0.5ms"}
    result = cclab.run(scenario)
    flows = result.flows
    for column in ("delay_samples", "owd_mean_ms", "owd_min_ms", "owd_max_ms", "owd_std_ms", "jitter_ms"):
        assert column in flows and flows[column].notna().all(), column
    # 4 ms of propagation at least; a 100-packet queue at 100 Mb/s adds at most 8.32 ms.
    assert (flows["owd_min_ms"] >= 4.0).all() and (flows["owd_max_ms"] <= 4.2 + 8.32).all()
    histogram = result.traces["delay_histogram"]
    totals = histogram.groupby("flow_id")["packets"].sum()
    assert totals.tolist() == flows["delay_samples"].tolist()
    with pytest.raises(ScenarioError, match=r"^trace\.delay_histogram: needs trace\.delays = true$"):
        cclab.run(dumbbell({}), **{"trace.delay_histogram": "1ms"})


def test_arrived_flows_delays_are_their_groups_with_a_group_histogram():
    scenario = dumbbell({"count": 2, "arrivals": {"kind": "poisson", "load": 0.5,
                                                  "sizes": {"kind": "fixed", "size": "20KB"}}})
    scenario["flows"].append({"group": "long", "count": 1})
    scenario["trace"] = {"delays": True, "delay_histogram": "0.5ms"}
    result = cclab.run(scenario)
    groups = result.groups.set_index("name")
    short, long_flow = groups.loc[scenario["flows"][0].get("group", "group0")], result.flows.iloc[0]
    assert short["delay_samples"] > 0 and short["owd_min_ms"] <= short["owd_mean_ms"] <= short["owd_max_ms"]
    histogram = result.traces["delay_histogram"]
    by_group = histogram[histogram["flow_id"].isna()]
    assert set(by_group["group"]) == {short.name}
    assert by_group["packets"].sum() == short["delay_samples"]
    assert histogram[histogram["flow_id"] == long_flow["id"]]["packets"].sum() == long_flow["delay_samples"]
