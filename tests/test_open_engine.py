"""The modern algorithms and queue disciplines from the Python API and the command line:
each runs from a dict and from a file, traces its own state, and is refused in one line
where ns-2.35 has no equivalent. Their behaviour is tested in the Rust core
(crates/cclab-core/tests/qdiscs.rs, algorithms.rs)."""
from __future__ import annotations

import pytest

import cclab

QUEUES = ["droptail", "red", "codel", "fq_codel", "pie", {"kind": "step_mark", "threshold": 15}, "dualpi2"]
ALGORITHMS = {"cubic": ["cc_w_max", "cc_k_s"], "bbr": ["cc_mode", "cc_btl_bw_pps", "cc_min_rtt_s", "cc_pacing_rate_pps"],
              "vegas": ["cc_diff", "cc_base_rtt_ms"], "dctcp": ["cc_alpha"], "prague": ["cc_alpha", "cc_ai", "cc_round"]}


def dumbbell(queue, flows, duration="4s"):
    return {
        "duration": duration, "seed": 4,
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": 100, "queue": queue},
                     "source_access": {"rate": "100Mbps", "delay": "1ms"},
                     "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": flows,
        "trace": {"flows": True},
    }


@pytest.mark.parametrize("queue", QUEUES, ids=lambda q: q if isinstance(q, str) else q["kind"])
def test_every_queue_runs_from_a_dict_and_reports_its_drops(queue):
    r = cclab.run(dumbbell(queue, [{"count": 3, "tcp": {"ecn": True}}]))
    bottleneck = r.links.set_index("name").loc[r.system["bottleneck_link"]]
    assert r.system["goodput_mbps"] > 7.0
    assert bottleneck["aqm_drops"] == r.system["bottleneck_aqm_drops"] <= bottleneck["queue_drops"]
    assert bottleneck["ecn_marks"] == r.system["bottleneck_ecn_marks"]
    if queue == "droptail":
        assert r.system["bottleneck_aqm_drops"] == 0 and r.system["bottleneck_ecn_marks"] == 0
    else:  # every active discipline acted on three ECN-capable Reno flows in 4 s
        assert r.system["bottleneck_aqm_drops"] + r.system["bottleneck_ecn_marks"] > 0


def test_each_algorithm_traces_its_own_state():
    flows = [{"group": name, "cc": name} for name in ALGORITHMS]
    r = cclab.run(dumbbell("droptail", flows))
    trace = r.traces["flows"]
    groups = r.flows.set_index("id")["group"]
    for flow_id, rows in trace.groupby("flow_id"):
        name = groups[flow_id]
        for column in ALGORITHMS[name]:
            assert rows[column].notna().all(), (name, column)
        assert r.groups.set_index("name").loc[name, "goodput_mbps"] > 0.1, r.groups  # Vegas yields to the rest
    assert set(r.flows["cc"]) == set(ALGORITHMS)


def test_the_same_from_a_scenario_file(cli, tmp_path):
    scenario = tmp_path / "modern.toml"
    scenario.write_text("""
duration = "3s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 200, queue = { kind = "fq_codel", quantum = "1040B" } }
source_access = { rate = "100Mbps", delay = "1ms" }
sink_access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
group = "cubic"
cc = "cubic"
[[flows]]
group = "bbr"
cc = { algorithm = "bbr" }
""")
    completed = cli("run", scenario)
    assert completed.returncode == 0, completed.stderr
    assert "cubic" in completed.stdout and "bbr" in completed.stdout and "aqm_dr" in completed.stdout


@pytest.mark.parametrize("queue", ["codel", "fq_codel", "pie", '{kind="step_mark",threshold=5}'])
def test_export_ns2_refuses_a_discipline_ns2_lacks_in_one_line(cli, example_file, tmp_path, queue):
    completed = cli("export-ns2", example_file, "--set", f"topology.bottleneck.queue={queue}", "-o", tmp_path / "x.tcl")
    assert completed.returncode == 2
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and "topology.bottleneck.queue.kind" in lines[0] and "no ns-2.35 equivalent" in lines[0]
    assert not (tmp_path / "x.tcl").exists()
