"""Sweeps of anything: axes whose values are tables (a protocol with its parameters) or
lists (a flow schedule) go through the plan, the runner, the store, its tables, the
statistics and the report, labelled readably."""
from __future__ import annotations

import copy

import pytest
import tomli_w

from cclab.analysis.stats import summarize
from cclab.runs.plan import axis_label, load_plan
from cclab.runs.runner import run_plan
from cclab.store.sweeps import SweepStore
from conftest import SMALL_SCENARIO, run_cli

PROTOCOLS = ["reno", {"algorithm": "westwood-plus"}, {"algorithm": "aimd", "alpha": 1, "beta": 0.5}]
SCHEDULES = [[["0s", 2]], [["0s", 1], ["1s", 2]]]
LABELS = ["reno", "westwood-plus", "aimd(alpha=1, beta=0.5)"]


def protocol_plan(name: str = "protocols") -> dict:
    scenario = copy.deepcopy(SMALL_SCENARIO)
    scenario["duration"] = "2s"
    return {"sweep": {"name": name, "replications": 2},
            "scenario": scenario,
            "axes": {"flows.1.cc": PROTOCOLS, "flows.1.schedule": SCHEDULES}}


@pytest.fixture(scope="module")
def protocol_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("tables") / "protocols.duckdb"
    outcome = run_plan(protocol_plan(), store=path, jobs=1)
    assert (outcome.total, outcome.succeeded, outcome.failed) == (12, 12, 0), outcome.failures
    return path


def test_axis_labels_are_readable_and_distinct():
    assert [axis_label(value) for value in PROTOCOLS] == LABELS
    assert axis_label([["0s", 1], ["1s", 2]]) == "[[0s, 1], [1s, 2]]"
    assert axis_label({"rate": "10Mbps", "delay": "5ms"}) == "{rate=10Mbps, delay=5ms}"
    assert axis_label({"algorithm": "python", "path": "cc.py", "params": {"beta": 0.7}}) == \
        "python(path=cc.py, params={beta=0.7})"
    assert axis_label(0.5) == 0.5 and axis_label("10Mbps") == "10Mbps" and axis_label(None) is None
    assert axis_label(True) is True and axis_label([True, 1.0]) == "[true, 1.0]"
    assert len({axis_label({"algorithm": "aimd", "beta": beta}) for beta in (0.5, 0.75)}) == 2


def test_table_valued_axes_run_and_each_point_runs_its_own_scenario():
    plan = load_plan(protocol_plan())
    runs = plan.runs()
    assert len(runs) == 12
    assert [run.scenario["flows"][1]["cc"]["algorithm"] for run in runs[::4]] == ["reno", "westwood-plus", "aimd"]
    assert len({run.seed for run in runs}) == 12


def test_store_runs_and_tables_have_one_readable_column_per_axis(protocol_store):
    with SweepStore(protocol_store, read_only=True) as store:
        runs = store.runs()
        flows = store.table("flows")
    for frame in (runs, flows):
        assert list(frame.columns[:2]) == ["flows.1.cc", "flows.1.schedule"]
        assert list(dict.fromkeys(frame["flows.1.cc"])) == LABELS
        assert set(frame["flows.1.schedule"]) == {"[[0s, 2]]", "[[0s, 1], [1s, 2]]"}
    # each flow row carries its run's protocol: the labelled group's flows ran it
    standard = flows[flows["group"] == "standard"]
    assert set(zip(standard["flows.1.cc"], standard["cc"])) >= {("reno", "reno")}
    summary = summarize(runs[runs["status"] == "ok"], by=["flows.1.cc", "flows.1.schedule"],
                        metrics=["goodput_mbps"])
    assert len(summary) == 6 and (summary["n"] == 2).all()


def test_report_of_a_table_valued_sweep(protocol_store, tmp_path):
    for extra in ([], ["--group-by", "flows.1.cc"]):
        out = tmp_path / f"report{len(extra)}"
        completed = run_cli("report", protocol_store, "--out", out, *extra)
        assert completed.returncode == 0, completed.stderr
        page = (out / "index.html").read_text()
        for label in ("westwood-plus", "aimd(alpha=1, beta=0.5)", "[[0s, 1], [1s, 2]]"):
            assert label in page, label
        assert list(out.glob("*.svg"))


def test_cli_sweep_of_a_table_valued_plan(tmp_path):
    """The plan as a user writes it: protocols swept as a list of strings and tables."""
    plan = protocol_plan("cli-protocols")
    del plan["axes"]
    plan["sweep"]["replications"] = 1
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(tomli_w.dumps(plan) + '\n[axes]\n"flows.1.cc" = ["reno", { algorithm = "westwood-plus" }]\n')
    completed = run_cli("sweep", plan_file, "--store", tmp_path / "s.duckdb", "--workers", "1")
    assert completed.returncode == 0, completed.stderr
    assert "2 runs, 0 already stored, 2 ran, 0 failed" in completed.stdout
    report = run_cli("report", tmp_path / "s.duckdb")
    assert report.returncode == 0, report.stderr
