"""Property tests (hypothesis) of the Python front doors: scenario dicts and sweep plans
built from real ones with values replaced by valid, boundary and invalid ones. Every
input ends in a one-line ScenarioError in cclab's words or in a finished run whose
packets are conserved, within a time bound: never a traceback, a panic, an abort or a
hang. Inputs run in a worker process that a watchdog replaces if it dies or stalls.

`make test` runs a bounded number of examples with a fixed seed; for a long run:
``CCLAB_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/test_fuzz.py``.
"""
from __future__ import annotations

import copy
import json
import os
import re
import select
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import cclab
from conftest import REPO

EXAMPLES = int(os.environ.get("CCLAB_FUZZ_EXAMPLES", "150"))
TIMEOUT_S = 30.0
LEAKS = re.compile(r"expected (f64|u32|u64|unit|value|a boolean|a string)|invalid type|invalid value|untagged|Bdp\(|"
                   r"Traceback|panicked|PanicException|NonZero")

WORKER = r"""
import json, sys
import cclab
from cclab.runs.plan import load_plan
for line in sys.stdin:
    request = json.loads(line)
    try:
        if request["kind"] == "plan":
            plan = load_plan(request["doc"])
            reply = {"outcome": "ran", "runs": len(plan.runs())}
        else:
            result = cclab.run(request["doc"], max_memory="1GB")
            c = result.raw["conservation"]
            conserved = c["data_sent"] == c["data_received"] + c["data_dropped"] + c["data_in_flight"]
            reply = {"outcome": "ran", "conserved": conserved}
    except cclab.ScenarioError as error:
        reply = {"outcome": "error", "message": str(error)}
    except BaseException as error:
        reply = {"outcome": "exception", "message": f"{type(error).__name__}: {error}"}
    print(json.dumps(reply), flush=True)
"""


class Worker:
    """A python process answering one request per line; replaced when it dies or stalls."""

    def __init__(self):
        self.process = None

    def ask(self, request: dict) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.process.stdin.write(json.dumps(request, allow_nan=True) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT_S)
        if not ready:
            self.process.kill()
            self.process = None
            return {"outcome": "hang"}
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            self.process = None
            return {"outcome": "abort", "message": f"exit {code}"}
        return json.loads(line)

    def close(self):
        if self.process is not None:
            self.process.kill()


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


BASES = [
    cclab.validate(REPO / "experiments" / "graphs" / "chain-with-cross-traffic.toml", {"duration": "1s"}),
    cclab.validate({
        "duration": "1s",
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": "5Mbps", "delay": "20ms", "buffer": 30, "queue": {"kind": "red"}},
                     "source_access": {"rate": "50Mbps", "delay": "5ms"},
                     "sink_access": {"rate": "5Mbps", "delay": "5ms", "loss": {"model": "bernoulli", "rate": 0.01}}},
        "flows": [{"count": 3, "cc": {"algorithm": "aimd", "alpha": 0.31, "beta": 0.875}, "start": {"random": "0.2s"}},
                  {"cc": {"algorithm": "mraimd"}, "tcp": {"ecn": True}, "direction": "reverse"}],
    }),
]


def leaves(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, path + (key,))
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        for index, item in enumerate(value):
            yield from leaves(item, path + (index,))
    else:
        yield path


numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-(2**70), max_value=2**70),
                    st.sampled_from([0, 1, -1, 0.5, 1e300, 2**63 - 1, 2**64, 10**12]))
texts = st.one_of(st.sampled_from(["", "x", "0s", "1ns", "-5ms", "1e999s", "1e8s", "25ms", "10Mbps", "0Mbps",
                                   "11Tbps", "1bdp", "0bdp", "1e9bdp", "reno", "udp", "red", "none", "n0", "n9"]),
                  st.text(max_size=12))
hostile = st.one_of(numbers, texts, st.booleans(), st.just([]), st.just({}), st.none(),
                    st.lists(st.integers(min_value=-2, max_value=5), max_size=3))


@st.composite
def scenarios(draw):
    base = draw(st.sampled_from(BASES))
    scenario = copy.deepcopy(base)
    paths = [path for path in leaves(scenario) if path[0] != "name"]
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(paths))
        node = scenario
        try:
            for key in path[:-1]:
                node = node[key]
            value = draw(hostile)
            if value is None:
                node.pop(path[-1], None)
            else:
                node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed this place
    return scenario


@st.composite
def plans(draw):
    bound = st.one_of(numbers, st.integers(min_value=1, max_value=20))
    axis = st.one_of(st.fixed_dictionaries({"from": bound, "to": bound, "step": bound}),
                     st.lists(st.one_of(st.integers(min_value=1, max_value=5), hostile), max_size=4), hostile)
    path = st.sampled_from(["flows.0.count", "flows.1.count", "flows.9.count", "duration", "seed", "flows.0.cc.beta",
                            "topology.bottleneck.rate", "x"])
    sweep = {"name": draw(st.one_of(st.just("fuzz"), texts)), "scenario": str(REPO / "experiments" / "static-wired.toml")}
    if draw(st.booleans()):
        sweep["replications"] = draw(st.one_of(st.integers(min_value=1, max_value=3), numbers))
    return {"sweep": sweep, "axes": draw(st.dictionaries(path, axis, max_size=2)), "set": {"duration": "0.5s"}}


def judge(reply: dict) -> None:
    assert reply["outcome"] in ("ran", "error"), reply
    if reply["outcome"] == "error":
        message = reply["message"]
        assert "\n" not in message and not LEAKS.search(message), message
    elif "conserved" in reply:
        assert reply["conserved"], reply


@seed(20261123)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=False, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_any_scenario_errs_cleanly_or_runs_conserving_packets(worker, scenario):
    judge(worker.ask({"kind": "scenario", "doc": scenario}))


@seed(20261124)
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(plans())
def test_any_plan_errs_cleanly_or_expands(worker, plan):
    judge(worker.ask({"kind": "plan", "doc": plan}))
