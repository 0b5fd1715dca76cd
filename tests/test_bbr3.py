"""BBRv3 (`cc = "bbr3"`) from a scenario file and the Python API: it runs, reports its
model, and refuses bad parameters with one line naming the field, the value and the range."""
from __future__ import annotations

import pytest

import cclab

SCENARIO = """
name = "bbr3"
duration = "5s"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = { rate = "20Mbps", delay = "20ms", queue = "droptail", buffer = "1bdp" }
source_access = { rate = "1Gbps", delay = "1ms" }
sink_access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
count = 2
cc = { algorithm = "bbr3", loss_thresh = 0.02, probe_wait_base = "2s" }
start = { stagger = "0.5s" }
"""


@pytest.fixture
def scenario_file(tmp_path):
    path = tmp_path / "bbr3.toml"
    path.write_text(SCENARIO)
    return path


def test_runs_from_a_scenario_file(scenario_file):
    r = cclab.run(scenario_file)
    assert list(r.flows["cc"]) == ["bbr3", "bbr3"]
    assert r.system["bottleneck_utilization"] > 0.8
    state = r.flows["cc_state"][0]
    assert {"inflight_hi", "inflight_lo", "bw_lo_pps", "bw_hi_pps", "phase", "extra_acked"} <= set(state)
    assert state["min_rtt_s"] == pytest.approx(0.044, abs=0.002)


def test_short_form_and_overrides(scenario_file):
    r = cclab.run(scenario_file, **{"flows.0.cc": "bbr3", "flows.0.count": 1})
    assert list(r.flows["cc"]) == ["bbr3"]
    # alone, its bandwidth model is the link: 20 Mb/s in 1040-byte packets
    assert r.flows["cc_state"][0]["bw_hi_pps"] == pytest.approx(20e6 / 8 / 1040, rel=0.05)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"loss_thresh": 2}, "flows[0].cc.loss_thresh: 2 is not in (0, 1)"),
        ({"beta": 0}, "flows[0].cc.beta: 0 is not in (0, 1]"),
        ({"ecn_thresh": 1.5}, "flows[0].cc.ecn_thresh: 1.5 is not in (0, 1]"),
        ({"startup_pacing_gain": 0.5}, "flows[0].cc.startup_pacing_gain: 0.5 is not in (1, 10]"),
        ({"probe_rtt_interval": "20s"}, "flows[0].cc.probe_rtt_interval: 20 is not in (0, min_rtt_window] s"),
        ({"full_loss_count": -1}, "flows[0].cc.full_loss_count:"),
        ({"loss_threshold": 0.1}, 'flows[0].cc.loss_threshold: unknown field "loss_threshold"'),
    ],
)
def test_bad_parameters_are_one_line_errors(scenario_file, params, message):
    with pytest.raises(cclab.ScenarioError) as info:
        cclab.run(scenario_file, **{"flows.0.cc": {"algorithm": "bbr3", **params}})
    text = str(info.value)
    assert text.startswith(message)
    assert "\n" not in text
