"""Sweep plans: axes crossed and zipped, ranges, seeds derived per run, errors up front."""
from __future__ import annotations

import copy

import pytest
import tomllib

import cclab
from cclab.runs.plan import derive_seed, load_plan
from conftest import REPO, SMALL_SCENARIO


def small_plan(**sweep) -> dict:
    return {"sweep": {"name": "small", "replications": 2, **sweep}, "scenario": copy.deepcopy(SMALL_SCENARIO),
            "axes": {"flows.1.count": [1, 2, 3], "flows.0.cc.beta": [0.5, 0.875]}}


def test_axes_cross_by_default():
    points = load_plan(small_plan()).points()
    assert points == [{"flows.1.count": c, "flows.0.cc.beta": b} for c in (1, 2, 3) for b in (0.5, 0.875)]


def test_zipped_axes_vary_together_and_cross_with_the_rest():
    document = small_plan(zip=[["flows.0.cc.alpha", "flows.0.cc.beta"]])
    document["axes"] = {"flows.1.count": [1, 2], "flows.0.cc.alpha": [0.31, 1.0], "flows.0.cc.beta": [0.875, 0.5]}
    points = load_plan(document).points()
    assert [(p["flows.1.count"], p["flows.0.cc.alpha"], p["flows.0.cc.beta"]) for p in points] == [
        (1, 0.31, 0.875), (1, 1.0, 0.5), (2, 0.31, 0.875), (2, 1.0, 0.5)]
    everything_zipped = small_plan(combine="zip")
    everything_zipped["axes"] = {"flows.1.count": [1, 2], "flows.0.cc.beta": [0.5, 0.875]}
    assert load_plan(everything_zipped).points() == [{"flows.1.count": 1, "flows.0.cc.beta": 0.5},
                                                     {"flows.1.count": 2, "flows.0.cc.beta": 0.875}]


def test_ranges_are_inclusive():
    document = small_plan()
    document["axes"] = {"flows.1.count": {"from": 10, "to": 100, "step": 10},
                        "topology.bottleneck.loss.rate": {"from": 0.001, "to": 0.003, "step": 0.001}}
    plan = load_plan(document)
    assert plan.axes["flows.1.count"] == list(range(10, 101, 10))
    assert plan.axes["topology.bottleneck.loss.rate"] == [0.001, 0.002, 0.003]


def test_each_run_gets_its_own_seed_and_the_scenario_carries_it():
    runs = load_plan(small_plan()).runs()
    assert len(runs) == 12 and len({run.seed for run in runs}) == 12 and len({run.run_id for run in runs}) == 12
    for run in runs:
        assert run.scenario["seed"] == run.seed
        assert run.scenario["flows"][1]["count"] == run.point["flows.1.count"]
        assert run.seed == derive_seed("small", 1, run.point, run.replication)


def test_adding_an_axis_value_changes_no_other_run():
    before = {(tuple(r.point.items()), r.replication): (r.seed, r.run_id) for r in load_plan(small_plan()).runs()}
    extended = small_plan()
    extended["axes"]["flows.1.count"] = [1, 2, 3, 4]
    after = {(tuple(r.point.items()), r.replication): (r.seed, r.run_id) for r in load_plan(extended).runs()}
    assert len(after) == 16
    assert all(after[key] == value for key, value in before.items())
    renamed = load_plan(small_plan(name="other")).runs()  # another plan draws other seeds
    assert not {r.seed for r in renamed} & {seed for seed, _ in before.values()}


def test_plan_round_trips_through_its_toml():
    plan = load_plan(small_plan(zip=[["flows.1.count", "flows.0.cc.beta"]]) | {"axes": {
        "flows.1.count": [1, 2], "flows.0.cc.beta": [0.5, 0.875]}})
    again = load_plan(tomllib.loads(plan.to_toml()))
    assert again == plan and again.hash == plan.hash
    assert [r.run_id for r in again.runs()] == [r.run_id for r in plan.runs()]


@pytest.mark.parametrize(
    ("change", "message"),
    [({"sweep": {"replications": 2}}, "sweep.name: required"),
     ({"sweep": {"name": "x", "replications": 0}}, "sweep.replications: 0 is not a whole number from 1 to 100000"),
     ({"sweep": {"name": "x", "replications": 10**11}}, "sweep.replications: 100000000000 is not a whole number from 1"),
     ({"sweep": {"name": "../../escaped"}}, "sweep.name: '../../escaped' may hold only letters"),
     ({"sweep": {"name": "x", "combine": "product"}}, "sweep.combine: 'product'"),
     ({"sweep": {"name": "x", "zip": [["flows.1.count", "nope"]]}}, "sweep.zip: 'nope' is not an axis"),
     ({"sweep": {"name": "x", "combine": "zip"}}, "different lengths"),
     ({"sweep": {"name": "x", "typo": 1}}, "sweep.typo: unknown key"),
     ({"axes": {"flows.1.count": []}}, 'axes."flows.1.count": expected a non-empty list'),
     ({"axes": {"flows.1.count": {"from": 5, "to": 1, "step": 1}}}, "range goes from 5 down to 1"),
     ({"axes": {"flows.1.count": [1, 1]}}, "a value appears twice"),
     ({"axes": {"flows.1.count": {"from": 1, "to": 1e11, "step": 1}}},
      'axes."flows.1.count": from 1 to 100000000000.0 in steps of 1 is 100000000000 points; a plan may have at most'),
     ({"axes": {"flows.1.count": {"from": 1, "to": 2, "step": 1e-12}}}, "is 1000000000001 points"),
     ({"axes": {"flows.1.count": {"from": 1, "to": float("inf"), "step": 1}}}, "to = inf is not a finite number"),
     ({"axes": {"flows.1.count": {"from": 1, "to": float("nan"), "step": 1}}}, "to = nan is not a finite number"),
     ({"axes": {"flows.9.count": [1, 2]}}, 'axes."flows.9.count": flows has 2 entries'),
     ({"axes": {"flows.0.cc.beta": [0.5, 1.5]}}, "point flows.0.cc.beta=1.5: flows[0].cc.beta: 1.5 is outside (0, 1)")],
)
def test_bad_plans_fail_with_one_line_naming_the_field(change, message):
    document = small_plan()
    for key, value in change.items():
        document[key] = value
    with pytest.raises(cclab.ScenarioError) as raised:
        load_plan(document).runs()
    assert message in str(raised.value) and "\n" not in str(raised.value)


def paper_wired_scenario(alpha: float, beta: float, flows: int, bottleneck: str) -> dict:
    """Zhang & Tsaoussidis §5.1 as written out by hand: the paper's dumbbell, starts 1 s apart."""
    link = {"rate": bottleneck}
    return {"name": "x", "duration": "100s", "packet_size": "1000B",
            "topology": {"kind": "dumbbell",
                         "bottleneck": {**link, "delay": "25ms", "queue": "droptail", "buffer": "1bdp"},
                         "source_access": {**link, "delay": "5ms"}, "sink_access": {**link, "delay": "5ms"}},
            "flows": [{"group": f"TCP({alpha:g}, {beta:g})", "count": flows,
                       "cc": {"algorithm": "aimd", "alpha": alpha, "beta": beta}, "start": {"stagger": "1s"}}]}


def test_static_wired_plan_is_the_papers_grid():
    plan = load_plan(REPO / "experiments" / "sweeps" / "static-wired.toml")
    runs = plan.runs()
    assert len(plan.points()) == 4 * 10 * 2 and plan.replications == 3 and len(runs) == 240
    point = {"topology.bottleneck.rate": "100Mbps", "flows.0.cc.alpha": 0.583, "flows.0.count": 30}
    run = next(r for r in runs if all(r.point[k] == v for k, v in point.items()) and r.replication == 0)
    expected = cclab.validate(paper_wired_scenario(0.583, 0.75, 30, "100Mbps") | {"seed": run.seed})
    assert run.scenario | {"name": expected["name"]} == expected
