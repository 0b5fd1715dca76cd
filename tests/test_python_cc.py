"""Congestion control written in Python (cclab.cc): Reno in Python gives the built-in
Reno's results bit for bit, under both profiles; classes run from files and as objects;
optional hooks are called (state traced, pacing, rate samples, seeds); a Python error or
a bad value ends the run in one line naming the file, line, method and flow."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import cclab
import cclab.cc
from cclab.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "python_cc" / "reno.toml"


def with_cc(cc, profile=None):
    scenario = load_scenario(EXAMPLE)
    scenario["duration"] = "20s"
    for group in scenario["flows"]:
        group["cc"] = copy.deepcopy(cc)
    if profile:
        scenario["profile"] = profile
    return scenario


def comparable(result) -> str:
    """A result without what names the algorithm (labels, its own state)."""
    raw = copy.deepcopy(result.raw)
    for key in ("wall_time_s", "scenario"):
        raw.pop(key, None)
    for row in raw["flows"] + raw["groups"]:
        row.pop("cc", None)
        row.pop("cc_state", None)
    return json.dumps(raw, sort_keys=True)


@pytest.mark.parametrize("profile", [None, "ns2"])
def test_reno_in_python_is_the_built_in_reno(profile):
    python = with_cc({"algorithm": "python", "path": str(EXAMPLE.parent / "reno.py"), "class": "Reno"}, profile)
    built_in = with_cc("reno", profile)
    ours, theirs = cclab.run(python), cclab.run(built_in)
    assert set(ours.flows["cc"]) == {"python:Reno"} and set(theirs.flows["cc"]) == {"reno"}
    assert ours.system["bottleneck_drops"] > 50, "losses happened: both decrease rules were exercised"
    assert comparable(ours) == comparable(theirs)


def test_the_example_file_runs_from_another_folder(cli, tmp_path):
    completed = cli("run", EXAMPLE, "--json", cwd=tmp_path)  # reno.py is found beside the file
    assert completed.returncode == 0, completed.stderr
    groups = {g["name"]: g for g in json.loads(completed.stdout)["groups"]}
    assert groups["python"]["cc"] == "python:Reno"
    assert abs(groups["python"]["goodput_mbps"] - groups["built-in"]["goodput_mbps"]) < 1.0


class Traced(cclab.cc.CongestionControl):
    """Reno that counts its hooks and traces the count."""

    def __init__(self, gain=1.0):
        self.gain, self.acks, self.rounds, self.seed = gain, 0, 0, None

    def on_ack(self, window, ack):
        self.acks += 1
        super().on_ack(window, ack)

    def on_round(self, window, now_s):
        self.rounds += 1

    def set_seed(self, seed):
        self.seed = seed

    def state(self):
        return {"acks": self.acks, "rounds": self.rounds, "gain": self.gain}


def small(cc, duration="5s", trace=True):
    return {
        "duration": duration, "seed": 3,
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": 50},
                     "source_access": {"rate": "100Mbps", "delay": "1ms"},
                     "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"count": 2, "cc": cc}],
        "trace": {"flows": trace},
    }


def test_a_class_object_runs_and_its_optional_hooks_are_called():
    result = cclab.run(small({"algorithm": "python", "class": Traced, "params": {"gain": 2.5}}))
    assert set(result.flows["cc"]) == {"python:Traced"}
    trace = result.traces["flows"]
    last = trace.groupby("flow_id").last()
    assert (last["cc_gain"] == 2.5).all()
    assert (last["cc_acks"] > 100).all() and (last["cc_rounds"] > 10).all()
    # the class alone works too (no params)
    assert cclab.run(small(Traced, trace=False)).system["goodput_mbps"] > 5
    # and as an override of a file's group, by keyword or mapping
    by_keyword = cclab.run(EXAMPLE, duration="2s", **{"flows.0.cc": Traced})
    by_mapping = cclab.run(EXAMPLE, overrides={"duration": "2s", "flows.0.cc": Traced})
    for result in (by_keyword, by_mapping):
        assert list(result.groups["cc"]) == ["python:Traced", "reno"]


class Paced(cclab.cc.CongestionControl):
    """A fixed window of 1000 segments, paced at 200 segments/s, counting rate samples."""

    paces = True
    wants_rate_samples = True

    def __init__(self):
        self.samples = 0

    def on_ack(self, window, ack):
        window.cwnd = 1000.0

    def on_rate_sample(self, window, sample):
        self.samples += 1
        assert sample.delivered_total >= sample.delivered >= 0

    def pacing_rate(self):
        return 200.0

    def state(self):
        return {"samples": self.samples}


def test_pacing_and_rate_samples_reach_python():
    result = cclab.run(small(Paced, duration="10s"))
    # 200 segments/s of 1000 bytes each per flow: 1.6 Mb/s of payload
    for goodput in result.flows["goodput_mbps"]:
        assert goodput == pytest.approx(1.6, rel=0.05)
    assert (result.traces["flows"].groupby("flow_id")["cc_samples"].last() > 1000).all()


class Broken(cclab.cc.CongestionControl):
    def on_ack(self, window, ack):
        if ack.now_s > 1.0:
            window.cwnd = 1 / 0  # line marked for the test: ZeroDivisionError here
        super().on_ack(window, ack)


class BadWindow(cclab.cc.CongestionControl):
    def on_ack(self, window, ack):
        window.cwnd = float("nan")


class BadCut(cclab.cc.CongestionControl):
    def on_congestion(self, window, event):
        return "half"


class Exits(cclab.cc.CongestionControl):
    def on_ack(self, window, ack):
        sys.exit(3)  # a hook that ends the program is the hook's error, not cclab's exit


@pytest.mark.parametrize("cls, needles", [
    (Broken, ["test_python_cc.py:", "ZeroDivisionError", "Broken.on_ack", "flow "]),
    (BadWindow, ["cwnd NaN", "[1, 1e9]", "BadWindow.on_ack", "flow 0"]),
    (BadCut, ["returned 'half'", "(ssthresh, cwnd)", "BadCut.on_congestion"]),
    (Exits, ["SystemExit", "Exits.on_ack", "flow "]),
])
def test_a_failing_hook_ends_the_run_in_one_line(cls, needles):
    with pytest.raises(cclab.ScenarioError) as caught:
        cclab.run(small(cls, trace=False))
    message = str(caught.value)
    assert "\n" not in message, message
    for needle in needles:
        assert needle in message, message
    if cls is Broken:  # the line named is the one that raised
        line = int(message.split("test_python_cc.py:")[1].split(":")[0])
        source = Path(__file__).read_text().splitlines()[line - 1]
        assert "1 / 0" in source


@pytest.mark.parametrize("code, cc, needles", [
    (None, {"path": "missing.py", "class": "A"}, ["cc.path", "missing.py", "no such file"]),
    ("class A:\n    pass\n", {"path": "m.py", "class": "B"}, ["cc.class", "'B'", "it defines: A"]),
    ("def broken(:\n", {"path": "m.py", "class": "A"}, ["m.py:1", "SyntaxError"]),
    ("import no_such_module_here\n", {"path": "m.py", "class": "A"}, ["m.py:1", "ModuleNotFoundError", "while loading"]),
    ("class A:\n    def __init__(self):\n        pass\n", {"path": "m.py", "class": "A", "params": {"x": 1}},
     ["cc.params", "A(**{\"x\": 1})", "TypeError"]),
    ("class A:\n    def on_ack(self, w, a):\n        pass\n", {"path": "m.py", "class": "A"},
     ["cc.class", "A has no on_congestion()"]),
    (None, {"path": "m.py", "class": "not a name"}, ["cc.class", "not a Python class name"]),
])
def test_bad_python_code_or_declaration_is_one_error_line(cli, tmp_path, code, cc, needles):
    if code is not None:
        (tmp_path / "m.py").write_text(code)
    scenario = tmp_path / "s.toml"
    declaration = ", ".join(f"{k} = {json.dumps(v) if not isinstance(v, dict) else '{ x = 1 }'}" for k, v in cc.items())
    scenario.write_text(EXAMPLE.read_text().replace('cc = { algorithm = "python", path = "reno.py", class = "Reno" }',
                                                    f'cc = {{ algorithm = "python", {declaration} }}'))
    # (run from its folder, so that the file names in the message are short: a path past 80
    # characters is shown cut, whatever the length of the machine's temporary folder)
    completed = cli("run", scenario.name, "--json", cwd=tmp_path)
    assert completed.returncode == 2, completed.stdout
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert "Traceback" not in completed.stderr


def test_the_core_alone_refuses_a_python_controller():
    """Without the front end's factory (the engine's own entry point) the scenario is
    refused, never run with something else in its place."""
    from cclab._core import run_json

    payload = json.dumps(small({"algorithm": "python", "path": "x.py", "class": "X"}))
    with pytest.raises(cclab.ScenarioError, match="runs through the Python front end"):
        run_json(payload)


def test_a_worker_process_cannot_see_a_class_object(tmp_path):
    """A class given as an object lives in its process: a sweep worker says so."""
    script = tmp_path / "w.py"
    script.write_text("import cclab, cclab.cc, json\n"
                      "from cclab.runs.engine import run_json\n"
                      f"s = {small({'algorithm': 'python', 'path': '<python object x.Y at 0x1>', 'class': 'Y'})!r}\n"
                      "try:\n    run_json(json.dumps(s))\nexcept cclab.ScenarioError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True).stdout
    assert "a class given to cclab.run in another process" in out
