"""ns-3.44's TCP catalogue (issue 39): every name runs from the Python API and the command
line, and bad parameters stop the run with one line naming the field (ScenarioError in
Python, exit code 2 on the command line). The physics (scavengers yield to Reno, the
high-speed controls outgrow it on a long lossy path) is in
crates/cclab-core/tests/algorithms.rs; the hand-computed steps in each cc/*.rs file."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cclab

CATALOGUE = ["highspeed", "scalable", "bic", "htcp", "hybla", "veno", "illinois", "yeah", "ledbat", "lp"]
BIN = Path(sys.executable).parent

BASE = {
    "duration": "3s",
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": "1bdp"},
                 "source_access": {"rate": "100Mbps", "delay": "1ms"},
                 "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
}


def test_every_name_is_registered():
    for name in CATALOGUE:
        normalised = cclab.validate({**BASE, "flows": [{"cc": name}]})
        assert normalised["flows"][0]["cc"]["algorithm"] == name


@pytest.mark.parametrize("name", CATALOGUE)
def test_runs_and_traces_its_state(name):
    r = cclab.run({**BASE, "flows": [{"cc": name, "count": 2}], "trace": {"flows": True}})
    assert r.system["goodput_mbps"] > 2.0, r.system
    columns = [c for c in r.traces["flows"].columns if c.startswith("cc_")]
    assert columns, f"{name} traces no state"


BAD = [
    ({"algorithm": "scalable", "md_factor": 1.5}, "flows[0].cc.md_factor: 1.5 is outside (0, 1)"),
    ({"algorithm": "scalable", "ai_factor": 0}, "flows[0].cc.ai_factor: 0 is not a segment count"),
    ({"algorithm": "scalable", "ai_factor": -1}, "flows[0].cc.ai_factor: -1 is not a whole number"),
    ({"algorithm": "highspeed", "a": 1}, 'flows[0].cc.a: unknown field "a"'),
    ({"algorithm": "lp", "threshold": 0.2}, 'flows[0].cc.threshold: unknown field "threshold"'),
    ({"algorithm": "bic", "beta": 1.0}, "flows[0].cc.beta: 1 is outside (0, 1)"),
    ({"algorithm": "bic", "binary_search_coefficient": 1}, "flows[0].cc.binary_search_coefficient: 1 is not an integer in [2, 255]"),
    ({"algorithm": "htcp", "default_backoff": 0}, "flows[0].cc.default_backoff: 0 is outside (0, 1)"),
    ({"algorithm": "htcp", "delta_l": "0s"}, "flows[0].cc.delta_l: 0 s is not in (0, 1000] s"),
    ({"algorithm": "hybla", "reference_rtt": "0.5ms"}, "flows[0].cc.reference_rtt: 0.0005 s is not in [0.001, 100] s"),
    ({"algorithm": "veno", "beta": -1}, "flows[0].cc.beta: -1 is not a segment count in [0, 10000]"),
    ({"algorithm": "illinois", "alpha_min": 20}, "flows[0].cc.alpha_min: 20 is above alpha_max (10)"),
    ({"algorithm": "illinois", "beta_max": 1}, "flows[0].cc.beta_max: 1 is outside [0, 1)"),
    ({"algorithm": "yeah", "gamma": 0}, "flows[0].cc.gamma: 0 is not an integer in [1, 1000000]"),
    ({"algorithm": "yeah", "delta": 40}, "flows[0].cc.delta: 40 is not an integer in [0, 31]"),
    ({"algorithm": "ledbat", "target": 100}, "flows[0].cc.target: 100 has no unit"),
    ({"algorithm": "ledbat", "gain": 0}, "flows[0].cc.gain: 0 is not in (0, 100]"),
    ({"algorithm": "ledbat", "noise_filter_len": 0}, "flows[0].cc.noise_filter_len: 0 is not an integer in [1, 1000]"),
]


@pytest.mark.parametrize("cc, message", BAD, ids=[f"{cc['algorithm']}-{i}" for i, (cc, _) in enumerate(BAD)])
def test_bad_parameters_give_one_line(cc, message):
    with pytest.raises(cclab.ScenarioError) as error:
        cclab.run({**BASE, "flows": [{"cc": cc}]})
    text = str(error.value)
    assert text.startswith(message), text
    assert "\n" not in text


def test_command_line_refuses_with_exit_code_2(tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(
        'duration = "1s"\n[topology]\nkind = "dumbbell"\n'
        'bottleneck = { rate = "10Mbps", delay = "20ms" }\n'
        'source_access = { rate = "100Mbps", delay = "1ms" }\nsink_access = { rate = "100Mbps", delay = "1ms" }\n'
        '[[flows]]\ncc = { algorithm = "scalable", md_factor = 2 }\n')
    done = subprocess.run([str(BIN / "cclab"), "run", str(scenario)], capture_output=True, text=True)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "flows[0].cc.md_factor: 2 is outside (0, 1)" in lines[0], done.stderr
    assert "panicked" not in done.stderr
