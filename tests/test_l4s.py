"""L4S from the Python API: `queue = "dualpi2"` and `cc = "prague"` run from a dict, their
per-queue statistics come back as a table (and are saved with the result), and bad
parameters are refused in one line. The physics is tested in the Rust core
(crates/cclab-core/tests/qdiscs.rs)."""
from __future__ import annotations

import pytest

import cclab


def dumbbell(queue, flows, duration="20s"):
    return {
        "duration": duration, "seed": 1, "packet_size": "1000B",
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": "20Mbps", "delay": "10ms", "buffer": 1000, "queue": queue},
                     "source_access": {"rate": "1Gbps", "delay": "1ms"},
                     "sink_access": {"rate": "1Gbps", "delay": "1ms"}},
        "flows": flows,
        "trace": {"flows": True},
    }


def test_prague_and_cubic_on_dualpi2_give_a_queue_table(tmp_path):
    r = cclab.run(dumbbell("dualpi2", [{"group": "prague", "cc": "prague"}, {"group": "cubic", "cc": "cubic"}]))
    goodput = r.groups.set_index("name")["goodput_mbps"]
    assert 0.5 < goodput["prague"] / goodput["cubic"] < 2.0, goodput
    assert set(r.queues["link"]) == {"r1-r2", "r2-r1"}  # both directions: the ACKs' too
    queues = r.queues[r.queues["link"] == r.system["bottleneck_link"]].set_index("queue")
    assert queues.loc["L", "mean_delay_ms"] < 1.0 and 8.0 < queues.loc["C", "mean_delay_ms"] < 25.0, queues
    assert queues.loc["L", "marks"] > 0 and queues.loc["C", "drops"] > 0
    assert "queues" not in r.links.columns  # its own table, not a column of lists
    # Prague traces its own state
    prague_rows = r.traces["flows"][r.traces["flows"]["flow_id"] == 0]
    assert prague_rows["cc_alpha"].between(0, 1).all() and prague_rows["cc_ai"].notna().all()
    saved = r.save(tmp_path / "run")
    assert any(p.name.startswith("queues") for p in saved.iterdir())
    # other disciplines have no such table
    assert cclab.run(dumbbell("pie", [{"cc": "prague"}], duration="2s")).queues is None


@pytest.mark.parametrize("queue, cc, needle", [
    ({"kind": "dualpi2", "coupling": 0}, "reno", "topology.bottleneck.queue.coupling: 0 is outside [1, 255]"),
    ({"kind": "dualpi2", "c_weight": 101}, "reno", "topology.bottleneck.queue.c_weight"),
    ({"kind": "dualpi2", "alpha": -0.16}, "reno", "topology.bottleneck.queue.alpha"),
    ({"kind": "dualpi2", "target": "0ms"}, "reno", "topology.bottleneck.queue.target"),
    ({"kind": "dualpi2", "step": "1ms"}, "reno", "step"),
    ("dualpi2", {"algorithm": "prague", "g": 0}, "g: 0 is outside (0, 1]"),
    ("dualpi2", {"algorithm": "prague", "rtt_scaling": "fast"}, "rtt_scaling"),
    ("dualpi2", {"algorithm": "prague", "rtt_target": "-1ms"}, "rtt_target"),
])
def test_bad_parameters_are_refused_in_one_line(queue, cc, needle):
    with pytest.raises(cclab.ScenarioError) as error:
        cclab.run(dumbbell(queue, [{"cc": cc}], duration="1s"))
    message = str(error.value)
    assert needle in message and len(message.splitlines()) == 1, message


def test_a_sweep_stores_the_queue_table(tmp_path):
    from cclab.runs.runner import run_plan
    from cclab.store.sweeps import SweepStore

    plan = {"sweep": {"name": "l4s", "replications": 1},
            "scenario": dumbbell("dualpi2", [{"cc": "prague"}, {"cc": "cubic"}], duration="3s"),
            "axes": {"topology.bottleneck.queue": ["dualpi2", "pie"]}}
    outcome = run_plan(plan, store=tmp_path / "l4s.duckdb", jobs=1)
    assert (outcome.total, outcome.failed) == (2, 0), outcome.failures
    with SweepStore(tmp_path / "l4s.duckdb", read_only=True) as store:
        queues = store.table("queues")
    assert set(queues["queue"]) == {"L", "C"} and len(queues) == 4  # two links of the dualpi2 run only


def test_from_a_scenario_file_the_cli_prints_the_queues(cli, tmp_path):
    scenario = tmp_path / "l4s.toml"
    scenario.write_text("""
duration = "3s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 200, queue = { kind = "dualpi2", step_threshold = "2ms" } }
source_access = { rate = "100Mbps", delay = "1ms" }
sink_access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
group = "prague"
cc = { algorithm = "prague", rtt_scaling = "none" }
[[flows]]
group = "cubic"
cc = "cubic"
""")
    completed = cli("run", scenario)
    assert completed.returncode == 0, completed.stderr
    assert "queues" in completed.stdout and "prague" in completed.stdout and "r1-r2" in completed.stdout
