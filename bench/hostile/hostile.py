#!/usr/bin/env python3
"""Hostile inputs against cclab, classified: how does every front door fail?

    .venv/bin/python bench/hostile/hostile.py                 # every input, table of outcomes
    .venv/bin/python bench/hostile/hostile.py --show misleading --limit 40
    .venv/bin/python bench/hostile/hostile.py --json out.json  # one record per input

Inputs (well over 1 000):
* every leaf of three normalised base scenarios (a dumbbell with three protocols, the
  graph chain with UDP cross traffic, and a graph with every queue discipline — CoDel,
  FQ-CoDel, PIE, step marking — and every modern algorithm — CUBIC, BBR, Vegas, DCTCP —
  each with all its parameters) set to each value of a hostile palette (NaN, ±inf,
  negatives, zero, huge and tiny numbers, integers past 2^63 and 2^64, wrong types,
  absurd durations and rates, bare numbers and text without units, sizes, dates, bytes,
  empty and unknown names), plus unknown keys and deleted keys, through
  ``cclab.run(dict)``;
* the cases reported in issue 13 (limits, hangs, aborts, memory) and issue 31 (cycles,
  depth, what is not a scenario, bad overrides and memory limits), through ``cclab.run``;
* command lines (odd files: a FIFO, a directory, a deep TOML, a binary file, a table
  header 1 000 deep, a 40 000-part dotted key, a byte-order mark, old Mac line endings, a
  NUL in a name; bad ``--set``; closed standard input; outputs into unwritable places)
  through ``python -m cclab``;
* sweep plans with hostile axes, zips and names through ``cclab sweep``;
* issue 41's cases (round 3): output folders that are not cclab's (their files must
  survive: a changed file is ``wrong``), ``--out .`` and long names, flow-size CDF files
  (FIFOs, devices, huge values and lines, bad rows), damaged and foreign results stores
  through ``report``, ``export``, ``reproduce --from-store`` and ``sweep``, traced links
  that do not exist, Python controllers that exit or are interrupted while made, and
  short flows piling up under ``--max-memory`` (a peak above the limit is ``wrong``).

Outcomes: ``clean`` (a one-line error naming the field, in cclab's words), ``ran``
(finished; for scenario runs packet conservation is checked, a violation is ``wrong``),
``misleading`` (an error that does not name the field, or leaks serde/Rust words, or
spans several lines), ``traceback`` (any other Python exception, or a traceback on
stderr), ``panic`` (a Rust panic reaching Python), ``abort`` (the process died), ``hang``
(no answer within the time limit).
"""
from __future__ import annotations

import argparse
import collections
import copy
import datetime
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 20.0
# Words that belong to serde, Rust or Python, not to a scenario's author.
LEAKS = re.compile(r"expected (f64|u8|u16|u32|u64|i64|usize|unit|value|a sequence|a string|a map|struct|enum|variant)"
                   r"|untagged|Bdp\(|Packets\(|invalid type|invalid value|serde|Some\(|None\b|RecursionError|"
                   r"Traceback|panicked|Exception|\bstr\b|\bint\b|\bfloat\b|NonZero")

SMALL = {
    "name": "hostile-dumbbell", "duration": "0.5s", "seed": 7,
    "topology": {"kind": "dumbbell",
                 "bottleneck": {"rate": "10Mbps", "delay": "25ms", "buffer": 50,
                                "queue": {"kind": "red", "ecn": True}},
                 "source_access": {"rate": "100Mbps", "delay": "5ms"},
                 "sink_access": {"rate": "10Mbps", "delay": "5ms", "loss": {"model": "bernoulli", "rate": 0.01}}},
    "flows": [
        {"group": "smooth", "count": 2, "cc": {"algorithm": "aimd", "alpha": 0.31, "beta": 0.875},
         "start": {"stagger": "0.1s"}, "tcp": {"ecn": True}},
        {"group": "mr", "cc": {"algorithm": "mraimd"}, "app": {"kind": "cbr", "rate": "1Mbps"}, "stop": "0.4s"},
        {"group": "sched", "count": 2, "schedule": [["0s", 1], ["0.2s", 2]], "direction": "reverse"},
    ],
    "trace": {"flows": True, "queue": True},
}
GRAPH = {
    "name": "hostile-chain", "duration": "0.5s", "seed": 1, "header_size": 0,
    "topology": {"kind": "graph", "links": [
        {"from": "n0", "to": "n1", "rate": "20Mbps", "delay": "5ms", "buffer": 100},
        {"from": "n1", "to": "n2", "rate": "10Mbps", "delay": "5ms", "buffer": 100,
         "reverse": {"rate": "5Mbps", "loss": {"model": "gilbert_elliott", "good_to_bad": 0.01, "bad_to_good": 0.5}}},
        {"from": "n2", "to": "n3", "rate": "20Mbps", "delay": "5ms", "buffer": 100, "name": "hop3",
         "loss": {"model": "handoff", "period": "0.2s", "mean_outage": "0.05s"}},
    ]},
    "flows": [
        {"group": "tcp", "from": "n0", "to": "n3", "cc": "reno", "tcp": {"recovery": "newreno", "delayed_ack": True}},
        {"group": "onoff", "transport": "udp", "from": "n1", "to": "n2",
         "app": {"kind": "onoff", "rate": "6Mbps", "on": "0.1s", "off": {"exponential": "0.1s"}}, "start": "0.1s"},
        {"group": "cbr", "transport": "udp", "route": ["n2", "n3"], "app": {"kind": "cbr", "rate": "5Mbps", "jitter": 0.5}},
    ],
}
# Every queue discipline and every modern algorithm, each with all its parameters written
# out, so that every one of them is a leaf the palette reaches (issue 27's fields).
MODERN = {
    "name": "hostile-modern", "duration": "0.5s", "seed": 3, "packet_size": "1000B",
    "topology": {"kind": "graph", "bdp_rtt": "20ms", "links": [
        {"from": "a", "to": "b", "rate": "50Mbps", "delay": "1ms", "buffer": 200,
         "queue": {"kind": "fq_codel", "target": "5ms", "interval": "100ms", "ecn": True, "quantum": "1514B",
                   "flows": 1024},
         "reverse": {"queue": {"kind": "codel", "target": "5ms", "interval": "100ms", "ecn": False}}},
        {"from": "b", "to": "c", "rate": "10Mbps", "delay": "5ms", "buffer": 100, "buffer_bytes": "100kB",
         "queue": {"kind": "step_mark", "threshold": 20}},
        {"from": "c", "to": "d", "rate": "20Mbps", "delay": "2ms", "buffer": 100,
         "queue": {"kind": "pie", "target": "15ms", "tupdate": "15ms", "alpha": 0.125, "beta": 1.25,
                   "max_burst": "150ms", "ecn": True}},
    ]},
    "flows": [
        {"group": "cubic", "from": "a", "to": "d", "cc": {"algorithm": "cubic", "c": 0.4, "beta": 0.7,
         "fast_convergence": True, "tcp_friendliness": True, "hystart": True}},
        {"group": "bbr", "from": "a", "to": "d", "cc": {"algorithm": "bbr", "min_rtt_window": "10s",
         "probe_rtt_duration": "200ms", "cwnd_gain": 2.0}, "start": "0.05s"},
        {"group": "vegas", "from": "b", "to": "d", "cc": {"algorithm": "vegas", "alpha": 2.0, "beta": 4.0,
         "gamma": 1.0}, "stop": "0.4s"},
        {"group": "dctcp", "count": 2, "from": "a", "to": "c", "cc": {"algorithm": "dctcp", "g": 0.0625,
         "initial_alpha": 1.0}, "tcp": {"delayed_ack": True}},
    ],
}
# The fields added since (issue 31's "every other open issue"): a Python congestion
# control beside a built-in one, per-link traces and packet captures, FQ-CoDel's quantum.
PY_RENO = str(REPO / "examples" / "python_cc" / "reno.py")
INSTRUMENTED = {
    "name": "hostile-instrumented", "duration": "0.3s", "seed": 5,
    "topology": {"kind": "dumbbell",
                 "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": 50,
                                "queue": {"kind": "fq_codel", "quantum": "1514B", "flows": 64}},
                 "source_access": {"rate": "100Mbps", "delay": "1ms"},
                 "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
    "flows": [
        {"group": "py", "count": 2, "cc": {"algorithm": "python", "path": PY_RENO, "class": "Reno", "params": {}}},
        {"group": "builtin", "cc": "reno", "start": "0.05s"},
    ],
    "trace": {"links": ["r1-r2", "r2-r1"], "pcap": ["r1-r2"]},
}
# Short flows and delay statistics (issue 28): a finite flow, Poisson arrivals with
# Pareto and CDF sizes, one-way delays with a histogram.
SHORT_FLOWS = {
    "name": "hostile-short-flows", "duration": "0.3s", "seed": 9,
    "topology": {"kind": "dumbbell",
                 "bottleneck": {"rate": "10Mbps", "delay": "5ms", "buffer": 50},
                 "source_access": {"rate": "100Mbps", "delay": "1ms"},
                 "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
    "flows": [
        {"group": "finite", "app": {"kind": "bulk", "size": "20KB"}},
        {"group": "pareto", "count": 2, "start": "0.01s",
         "arrivals": {"kind": "poisson", "load": 0.5, "sizes": {"kind": "pareto", "mean": "10KB", "shape": 1.5}}},
        {"group": "cdf", "arrivals": {"kind": "poisson", "load": 0.3,
                                      "sizes": {"kind": "cdf", "points": [["1000B", 0.5], ["20KB", 1.0]]}}},
    ],
    "trace": {"delays": True, "delay_histogram": "1ms"},
}
NAN, INF = float("nan"), float("inf")
PALETTE = [NAN, INF, -INF, -1, 0, 0.5, 1e300, -1e300, 1e-300, 2**63 - 1, 2**64 + 5, 10**300, 1.5, "x", "",
           True, [], {}, "1e999s", "-5ms", "0s", "1ns", "1e12s", "nan", "0Mbps", "1e30Gbps", "1bps", "0bdp",
           "1e-9bdp", "reno", None,
           # issue 29 (units) and 31 (silently reinterpreted values)
           18, "18", "0.5bps", "0.4ns", "1.5B", "64KiB", "1000b", [[]], datetime.date(1979, 5, 27), b"bytes"]


def leaves(value, path=()):
    """Every leaf of a nested dict/list, as a tuple path (lists of scalars count as leaves)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, path + (key,))
    elif isinstance(value, list) and value and isinstance(value[0], (dict, list)) and path[-1:] != ("schedule",):
        for index, item in enumerate(value):
            yield from leaves(item, path + (index,))
    else:
        yield path


def set_path(document, path, value):
    node = document
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value


def field_name(path) -> str:
    """The error-path form of a tuple path: flows[0].cc.beta."""
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def scenario_inputs() -> list[dict]:
    import cclab

    inputs = []
    for base in (SMALL, GRAPH, MODERN, INSTRUMENTED, SHORT_FLOWS):
        normalized = cclab.validate(base)
        normalized["duration"] = base["duration"]
        for path in leaves(normalized):
            if path[0] in ("name",):
                continue
            for value in PALETTE:
                scenario = copy.deepcopy(normalized)
                set_path(scenario, path, value)
                inputs.append({"kind": "scenario", "field": field_name(path), "value": repr(value), "scenario": scenario,
                               "new": base in (INSTRUMENTED, SHORT_FLOWS), "short_flows": base is SHORT_FLOWS})
        if base is INSTRUMENTED:  # each name of a list of names, not only the whole list
            for path in [("trace", "links", 0), ("trace", "links", 1), ("trace", "pcap", 0),
                         ("flows", 0, "cc", "params", "beta")]:
                for value in PALETTE:
                    if value is None:
                        continue
                    scenario = copy.deepcopy(normalized)
                    set_path(scenario, path, value)
                    inputs.append({"kind": "scenario", "field": field_name(path), "value": repr(value), "scenario": scenario,
                                   "user_code": path[-2:] == ("params", "beta"), "new": True})
        for path in [("topology",), ("flows", 0), ("flows", 0, "tcp"), ("trace",)]:
            scenario = copy.deepcopy(normalized)
            node = scenario
            for key in path:
                node = node[key]
            node["bogus_key"] = 1
            inputs.append({"kind": "scenario", "field": field_name(path + ("bogus_key",)), "value": "1", "scenario": scenario})
    for case in issue_cases() + issue31_cases() + python_cc_cases() + round3_api_cases():
        inputs.append({"kind": "scenario", **case})
    return inputs


# Python congestion controls that misbehave in every way a hook can: each run must end in
# one line naming the file, line, method and flow (or run, where the behaviour is legal).
HOSTILE_CC = """
import math, sys

class Base:
    def __init__(self, **params):
        self.params = params
    def on_ack(self, window, ack):
        window.cwnd += 1.0 / window.cwnd
    def on_congestion(self, window, event):
        return max(window.cwnd / 2, 2.0), max(window.cwnd / 2, 2.0)

class NanCwnd(Base):
    def on_ack(self, window, ack):
        window.cwnd = math.nan
class HugeCwnd(Base):
    def on_ack(self, window, ack):
        window.cwnd = 1e308
class TextCwnd(Base):
    def on_ack(self, window, ack):
        window.cwnd = "many"
class NegativeCut(Base):
    def on_congestion(self, window, event):
        return -1.0, -1.0
class TextCut(Base):
    def on_congestion(self, window, event):
        return "half"
class NoCut(Base):
    def on_congestion(self, window, event):
        return None
class ThreeCut(Base):
    def on_congestion(self, window, event):
        return 1.0, 2.0, 3.0
class Raises(Base):
    def on_ack(self, window, ack):
        raise ValueError("a bug in the user's code")
class Exits(Base):
    def on_ack(self, window, ack):
        sys.exit(3)
class Recurses(Base):
    def on_ack(self, window, ack):
        self.on_ack(window, ack)
class BadState(Base):
    def state(self):
        return {"x": "not a number", 5: 1.0}
class NotDictState(Base):
    def state(self):
        return [1, 2, 3]
class NanState(Base):
    def state(self):
        return {"x": math.nan}
class BadPacing(Base):
    paces = True
    def pacing_rate(self):
        return -1.0
class TextPacing(Base):
    paces = True
    def pacing_rate(self):
        return "fast"
class BadSeed(Base):
    def set_seed(self, seed):
        raise RuntimeError("no seeds here")
class BadInit(Base):
    def __init__(self, **params):
        raise KeyError("beta")
class BadRound(Base):
    def on_round(self, window, now_s):
        window.ssthresh = -5.0
class BadRateSample(Base):
    wants_rate_samples = True
    def on_rate_sample(self, window, sample):
        return sample.no_such_field
class KeepsWindow(Base):
    def on_ack(self, window, ack):
        self.kept = window
        window.cwnd = min(window.cwnd + 1.0, 1e9)
class LongMessage(Base):
    def on_ack(self, window, ack):
        raise ValueError("x" * 1_000_000)
class NotCallable:
    on_ack = 5
    on_congestion = 6
"""


def python_cc_cases() -> list[dict]:
    """Misbehaving Python controllers (from a file written to a scratch folder), files
    that are not Python, and modules that fail or exit while loading."""
    folder = Path(tempfile.mkdtemp(prefix="cclab-hostile-cc-"))
    (folder / "hostile_cc.py").write_text(HOSTILE_CC)
    (folder / "syntax.py").write_text("def broken(:\n")
    (folder / "exits.py").write_text("import sys\nsys.exit(0)\n")
    (folder / "raises.py").write_text("raise RuntimeError('at import')\n")
    (folder / "binary.py").write_bytes(b"\x00\xff\xfe" * 100)
    (folder / "empty.py").write_text("")
    names = [line.split("(")[0].split()[1].rstrip(":") for line in HOSTILE_CC.splitlines() if line.startswith("class ")]
    cases = []

    def case(field, value, cc):
        scenario = copy.deepcopy(INSTRUMENTED)
        scenario["duration"] = "3s"  # long enough for losses, so on_congestion is called too
        scenario["flows"][0]["cc"] = {"algorithm": "python", **cc}
        cases.append({"field": field, "value": value, "scenario": scenario, "user_code": True, "new": True})

    for name in names:
        case("flows[0].cc", f"class {name}", {"path": str(folder / "hostile_cc.py"), "class": name})
    for file in ("syntax.py", "exits.py", "raises.py", "binary.py", "empty.py"):
        case("flows[0].cc.path", file, {"path": str(folder / file), "class": "A"})
    for path in ("", "/", "/dev/null", "/dev/zero", str(folder), "x" * 5000, "a\0b.py", "\ud800.py", "nope.py"):
        case("flows[0].cc.path", repr(path)[:40], {"path": path, "class": "A"})
    for name in ("", "9lives", "a b", "x" * 300, "__class__", "math", "sys"):
        case("flows[0].cc.class", repr(name)[:40], {"path": str(folder / "hostile_cc.py"), "class": name})
    return cases


def issue31_cases() -> list[dict]:
    """What issue 31 reported of the Python API (field: what the error should name)."""
    cyclic: dict = copy.deepcopy(SMALL)
    cyclic["flows"][0]["tcp"]["self"] = cyclic["flows"][0]["tcp"]
    looped: list = []
    looped.append(looped)
    deep: dict = {}
    node = deep
    for _ in range(300):  # (deep enough to be refused; pickling, which hands cases to workers, recurses)
        node["a"] = node = {}
    wired = {"duration": "1s", "topology": {"kind": "wired-wireless", "wired": {"rate": "10kbps"}}, "flows": [{}]}
    cases = [
        ("flows[0].tcp.self", "a cyclic table", cyclic, {}),
        ("trace[0]", "a cyclic list", SMALL, {"overrides": {"trace": looped}}),
        ("trace.a", "300 deep", {**SMALL, "trace": deep}, {}),
        ("topology.wired.buffer", "wired-wireless 10kbps", wired, {}),
        ("the scenario", "None", None, {}),
        ("the scenario", "42", 42, {}),
        ("the scenario", "a list", [SMALL], {}),
        ("the scenario", "bytes", b"x.toml", {}),
        ("overrides", "overrides=5", SMALL, {"overrides": 5}),
        ("overrides", "overrides='seed=3'", SMALL, {"overrides": "seed=3"}),
        ("max_memory", "2**80", SMALL, {"max_memory": 2**80}),
        ("max_memory", "0.5B", SMALL, {"max_memory": "0.5B"}),
        ("bad\\0name.toml", "NUL in a path", "bad\0name.toml", {}),
        ("bad\\ud800name.toml", "a lone surrogate in a path", "bad\ud800name.toml", {}),
        ("duration", "a 100 000-character value", {**SMALL, "duration": "9" * 100_000}, {}),
        ("k" * 16, "a 1 MB key", {**SMALL, "k" * 1_000_000: 1}, {}),
        ("flows[0].schedule[0]", "[[\"0s\", 1, 2]]", {**SMALL, "flows": [{"schedule": [["0s", 1, 2]]}]}, {}),
    ]
    return [{"field": field, "value": value, "scenario": scenario, "kwargs": kwargs, "api": True}
            for field, value, scenario, kwargs in cases]


class Mine:
    """A controller class given as an object (round 3: it goes with algorithm = "python")."""

    def on_ack(self, window, ack):
        window.cwnd += 1.0 / window.cwnd

    def on_congestion(self, window, event):
        return max(window.cwnd / 2, 2.0), max(window.cwnd / 2, 2.0)


def round3_api_cases() -> list[dict]:
    """Issue 41's cases of the Python API: a class beside another algorithm or a path,
    arrivals that never arrive and captures of packets no header fits (warnings)."""
    def small(**changes):
        scenario = copy.deepcopy(SMALL)
        scenario.update(changes)
        return scenario

    never = small(flows=[{"cc": "reno", "arrivals": {"kind": "poisson", "load": 0.9,
                                                     "sizes": {"kind": "fixed", "size": "1TB"}}}])
    return [
        {"field": "flows[0].cc.class", "value": "a class with algorithm reno", "api": True,
         "scenario": small(flows=[{"cc": {"algorithm": "reno", "class": Mine}}])},
        {"field": "flows[0].cc.path", "value": "a class and a path", "api": True,
         "scenario": small(flows=[{"cc": {"algorithm": "python", "class": Mine, "path": "mine.py"}}])},
        {"field": "flows[0].arrivals", "value": "1TB flows: none arrives", "scenario": never, "warning": True},
        {"field": "trace.pcap", "value": "1-byte packets, no headers", "warning": True,
         "scenario": small(header_size="0B", packet_size="1B", trace={"pcap": ["r1-r2"]})},
        {"field": "trace.pcap", "value": "100000-byte packets", "warning": True,
         "scenario": small(packet_size="100000B", trace={"pcap": ["r1-r2"]})},
    ]


def issue_cases() -> list[dict]:
    """The inputs issue 13 reports, as scenarios (field: the one an error should name)."""
    def dumbbell(**changes):
        scenario = {"duration": "1s", "topology": copy.deepcopy(SMALL["topology"]),
                    "flows": [{"cc": "reno"}]}
        scenario["topology"]["bottleneck"]["queue"] = "droptail"
        for path, value in changes.items():
            node, keys = scenario, path.split(".")
            for key in keys[:-1]:
                node = node[int(key)] if key.isdigit() else node.setdefault(key, {})
            node[keys[-1]] = value
        return scenario

    late = dumbbell(duration="2s")
    late["flows"] = [{"group": "early", "count": 2}, {"group": "late", "count": 524_300, "start": "3s"}]
    return [
        # (a legitimate run of 524 302 flows: its 690-MB result takes ~8 s to make and ~16 s for
        # Python to parse on two busy cores, over the 20-s silence that otherwise means a hang)
        {"field": "flows", "value": "524 300 late flows", "scenario": late, "check_early_flows": True, "timeout": 120},
        {"field": "duration", "value": "1e300s", "scenario": dumbbell(duration="1e300s")},
        {"field": "duration", "value": "2^63-1 ns", "scenario": dumbbell(duration=str(2**63 - 1) + "ns")},
        {"field": "bin_width", "value": "1ns", "scenario": dumbbell(duration="100s", bin_width="1ns")},
        {"field": "flows[0].tcp.max_rto", "value": "0s", "scenario": dumbbell(**{"flows.0.tcp.min_rto": "0s", "flows.0.tcp.max_rto": "0s"})},
        {"field": "flows[0].tcp.max_rto", "value": "1ns", "scenario": dumbbell(**{"flows.0.tcp.min_rto": "0s", "flows.0.tcp.max_rto": "1ns"})},
        {"field": "flows[0].tcp.initial_rto", "value": "2e10s", "scenario": dumbbell(**{"flows.0.tcp.initial_rto": "2e10s"})},
        {"field": "flows[0].tcp.max_rto", "value": "1e12s", "scenario": dumbbell(**{"flows.0.tcp.max_rto": "1e12s", "flows.0.tcp.min_rto": "1e11s"})},
        {"field": "topology.bottleneck.delay", "value": "18446744074s", "scenario": dumbbell(**{"topology.bottleneck.delay": "18446744074s"})},
        {"field": "topology.bottleneck.buffer", "value": "9223372036854775807", "scenario": dumbbell(**{"topology.bottleneck.buffer": 2**63 - 1})},
        {"field": "topology.source_access.buffer", "value": "zero delays", "scenario": dumbbell(**{"topology.source_access.delay": "0s", "topology.bottleneck.delay": "0s", "topology.sink_access.delay": "0s"})},
        {"field": "topology.bottleneck.rate", "value": "1bps", "scenario": dumbbell(**{"topology.bottleneck.rate": "1bps"})},
        {"field": "flows[0].start", "value": "after the end", "scenario": dumbbell(**{"flows.0.start": "5s"}), "warning": True},
        {"field": "topology.bottleneck.buffer_bytes", "value": "100", "scenario": dumbbell(**{"topology.bottleneck.buffer_bytes": 100})},
        {"field": "flows[0].cc.alpha", "value": "1e300", "scenario": dumbbell(**{"flows.0.cc": {"algorithm": "aimd", "alpha": 1e300, "beta": 0.5}})},
        {"field": "flows[0].tcp.initial_window", "value": "9.2e18", "scenario": dumbbell(**{"flows.0.tcp.initial_window": 9.2e18})},
        {"field": "topology.bottleneck.queue.target_delay_s", "value": "-1", "scenario": dumbbell(**{"topology.bottleneck.queue": {"kind": "red", "target_delay_s": -1}})},
        {"field": "topology.sink_access.loss.period", "value": "1ns", "scenario": dumbbell(**{"topology.sink_access.loss": {"model": "handoff", "period": "1ns"}})},
        {"field": "flows[0].count", "value": "1000001", "scenario": dumbbell(**{"flows.0.count": 1_000_001})},
    ]


# ----------------------------------------------------------------------- scenario worker
def worker_main(cases_file: str, first: int, last: int, results_file: str) -> None:
    """Run cases[first:last], appending a "started" line before each and its outcome after."""
    import pickle

    import cclab

    cases = pickle.loads(Path(cases_file).read_bytes())
    with open(results_file, "a", buffering=1) as out:
        for index in range(first, last):
            out.write(json.dumps([index, "started", ""]) + "\n")
            out.write(json.dumps([index, *_run_one(cclab, cases[index])]) + "\n")


def _run_one(cclab, case) -> tuple[str, str]:
    try:
        result = cclab.run(case["scenario"], **case.get("kwargs", {}))
    except cclab.ScenarioError as error:
        if case.get("user_code"):
            return _judge_user_code_error(str(error))
        if case.get("api"):
            return _judge_api_error(str(error), case["field"])
        return _judge_error(str(error), case["field"])
    except BaseException as error:  # noqa: BLE001 - classifying everything is the point
        kind = "panic" if type(error).__name__ == "PanicException" else "traceback"
        return kind, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    c = result.raw["conservation"]
    if c["data_sent"] != c["data_received"] + c["data_dropped"] + c["data_in_flight"]:
        return "wrong", f"conservation: {c}"
    if case.get("check_early_flows"):
        early = result.flows[result.flows["group"] == "early"]
        if (early["data_packets_sent"] == 0).any():
            return "wrong", "early flows sent nothing"
    if case.get("warning") and not result.raw.get("warnings"):
        return "ran", "no warning"
    return "ran", ""


FIELD_PREFIX = re.compile(r'^(--set |axes\.|set\.)?[\w".\[\]-]+: ')


def _judge_error(message: str, field: str) -> tuple[str, str]:
    """Clean: one line, cclab's words, and it starts by naming a field (the one that was
    changed, or one the change made wrong, such as a flow naming a node that is gone)."""
    if "\n" in message.strip() or LEAKS.search(message) or not FIELD_PREFIX.match(message):
        return "misleading", message
    return "clean", message


def _judge_user_code_error(message: str) -> tuple[str, str]:
    """An error in (or about) the user's own Python congestion control: one short line
    naming the field or the user's file; the user's exception words are theirs to read."""
    if "\n" in message.strip() or len(message) > 600 or "Traceback" in message or "panicked" in message:
        return "misleading", message[:300]
    # named by field, by the user's file and line, or (a hook returned a value out of range)
    # by the class, method and flow it came from: "... (in MyCC.on_ack, flow 0)"
    if not (FIELD_PREFIX.match(message) or re.match(r"^(flow \d+: )?[^:]+\.py:\d+: ", message)
            or re.search(r" \(in \w+\.\w+, flow \d+\)$", message)):
        return "misleading", message[:300]
    return "clean", message


def _judge_api_error(message: str, field: str) -> tuple[str, str]:
    """An error of the Python API: one short line starting with what the user gave, in
    the API's words (no CLI flag, no Python exception words)."""
    if ("\n" in message or len(message) > 600 or "--set" in message or "--max-memory" in message
            or LEAKS.search(message.replace("None is not one", "")) or not message.startswith(field)):
        return "misleading", message[:300]
    return "clean", message


def run_scenarios(inputs: list[dict], workers: int = 2) -> list[tuple[str, str]]:
    """The inputs split among worker processes; a worker that goes silent for TIMEOUT_S
    is killed (the case it was on is a hang), one that dies is an abort; either way a
    new worker takes over after that case."""
    import pickle
    import time

    outcomes: list = [None] * len(inputs)
    with tempfile.TemporaryDirectory(prefix="cclab-hostile-") as scratch:
        cases_file = Path(scratch) / "cases.pickle"
        cases_file.write_bytes(pickle.dumps(inputs))
        share = math.ceil(len(inputs) / workers)
        slices = [(k * share, min(len(inputs), (k + 1) * share)) for k in range(workers)]
        running = {}

        def launch(k: int, first: int, last: int) -> None:
            results = Path(scratch) / f"results{k}-{first}.jsonl"
            command = [sys.executable, __file__, "--worker", str(cases_file), str(first), str(last), str(results)]
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            running[k] = {"process": process, "results": results, "read": 0, "current": None, "last": last,
                          "heard": time.monotonic()}

        for k, (first, last) in enumerate(slices):
            if first < last:
                launch(k, first, last)
        while running:
            time.sleep(0.2)
            for k, worker in list(running.items()):
                lines = worker["results"].read_text().splitlines() if worker["results"].exists() else []
                for line in lines[worker["read"]:]:
                    index, status, detail = json.loads(line)
                    worker["heard"] = time.monotonic()
                    if status == "started":
                        worker["current"] = index
                    else:
                        outcomes[index] = (status, detail)
                        worker["current"] = None
                worker["read"] = len(lines)
                process, current = worker["process"], worker["current"]
                finished = process.poll() is not None
                limit = inputs[current].get("timeout", TIMEOUT_S) if current is not None else TIMEOUT_S
                silent = time.monotonic() - worker["heard"] > limit
                if not finished and not silent:
                    continue
                if not finished:
                    process.kill()
                    process.wait()
                del running[k]
                if current is not None:
                    outcomes[current] = ("hang", f"no answer in {limit:g} s") if silent and not finished \
                        else ("abort", f"worker exited with {process.returncode}")
                    if current + 1 < worker["last"]:
                        launch(k, current + 1, worker["last"])
    return [o or ("abort", "never ran") for o in outcomes]


# ----------------------------------------------------------------------- CLI and sweeps
def cli_inputs(scratch: Path) -> list[dict]:
    good = scratch / "good.toml"
    import tomli_w

    good.write_text(tomli_w.dumps(GRAPH))
    fifo = scratch / "fifo.toml"
    os.mkfifo(fifo)
    deep = scratch / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    binary = scratch / "binary.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    unreadable = scratch / "unreadable.toml"
    unreadable.write_text("duration = '1s'\n")
    unreadable.chmod(0)
    readonly = scratch / "readonly"
    readonly.mkdir()
    readonly.chmod(0o500)
    a_file = scratch / "a-file"
    a_file.write_text("x")
    plan = lambda body: _write(scratch, body)  # noqa: E731
    base_plan = f'[sweep]\nname = "p"\nscenario = "{good}"\n[set]\nduration = "0.1s"\n'
    cases = [
        (["run", fifo], "fifo"), (["run", scratch], "a directory"), (["run", deep], "deep TOML"),
        (["run", binary], "binary file"), (["run", unreadable], "unreadable"), (["run", scratch / "missing.toml"], "missing"),
        (["run", good, "--set", "flows"], "--set without ="), (["run", good, "--set", "flows.9.count=1"], "--set index"),
        (["run", good, "--set", "duration=nan"], "--set nan"), (["run", good, "--set", "flows.0.cc.beta=inf"], "--set inf"),
        (["run", good, "--out", a_file], "--out onto a file"), (["run", good, "--out", readonly / "x"], "--out unwritable"),
        (["run", good, "--out", "/proc/x"], "--out /proc"), (["validate", good, "--set", "=1"], "--set empty path"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = 1e11, step = 1 }\n')], "axis 1e11 points"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = 2, step = 1e-12 }\n')], "axis step 1e-12"),
        (["sweep", plan(base_plan.replace('name = "p"', 'name = "p"\nreplications = 100000000000'))], "replications 1e11"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = inf, step = 1 }\n')], "axis to inf"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = nan, step = 1 }\n')], "axis to nan"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = 1e400, step = 1 }\n')], "axis to 1e400"),
        (["sweep", plan(base_plan + '[axes]\n"flows.3.count" = [1, 2]\n')], "axis path index"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.cc.beta" = [0.5, 1.5]\n'), "--store", scratch / "s1.duckdb"], "axis bad value"),
        (["sweep", plan(base_plan.replace('name = "p"', 'name = "../../escaped"')), "--workers", "1"], "plan name escapes"),
        (["sweep", plan(base_plan), "--store", readonly / "x.duckdb"], "--store unwritable"),
        (["sweep", plan(base_plan), "--store", a_file], "--store onto a non-store file"),
        (["report", a_file, "-o", scratch / "r"], "report of a non-store"),
        (["export", scratch / "missing.duckdb", "-o", scratch / "e"], "export missing store"),
    ]
    # issue 31's command lines and files, and issue 29's bare numbers
    tiny = (REPO / "experiments" / "tiny.toml").read_text()
    header = _file(scratch, "header.toml", "[" + ".".join(["a"] * 1000) + "]\n")
    dotted = _file(scratch, "dotted.toml", ".".join(["a"] * 40_000) + " = 1\n")
    marked = _file(scratch, "bom.toml", "\ufeff" + tiny)
    old_mac = _file(scratch, "cr.toml", tiny.replace("\n", "\r"))
    dated = _file(scratch, "dated.toml", tiny.replace('name = "tiny"', "name = 1979-05-27"))
    bare = _file(scratch, "bare.toml", tiny.replace('delay = "10ms"', "delay = 18"))
    many = _file(scratch, "many.toml", tiny.split("[[flows]]")[0].replace('"0.1s"', '"0.01s"')
                 + "".join(f'[[flows]]\ngroup = "g{i}"\n' for i in range(100_000)))
    tiny_file = _file(scratch, "tiny.toml", tiny)
    cases += [
        (["run", header], "a table header 1000 deep"), (["run", dotted], "a 40000-part dotted key"),
        (["run", tiny_file, "--set", ".".join(["a"] * 1000) + "=1"], "--set path 1000 deep"),
        (["run", tiny_file, "--set", "trace={" + ".".join(["a"] * 40_000) + "=1}"], "--set value with a 40000-part key"),
        (["run", marked, "--json"], "a byte-order mark"), (["run", old_mac], "CR-only line endings"),
        (["run", dated], "a date as the name"), (["run", bare], "delay = 18 in a file"),
        (["run", tiny_file, "--set", "topology.bottleneck.delay=18"], "--set delay=18"),
        (["run", tiny_file, "--set", "topology.bottleneck.rate=20"], "--set rate=20"),
        (["run", tiny_file, "--set", "packet_size=1000"], "--set packet_size=1000"),
        (["run", tiny_file, "--set", "topology.bottleneck.buffer=\"5\""], "--set buffer=\"5\""),
        (["run", tiny_file, "--set", "duration=1ns"], "duration 1ns (a warning)"),
        (["run", tiny_file, "--set", "topology.bottleneck.rate=0.5bps"], "rate 0.5bps"),
        (["run", tiny_file, "--max-memory", "1PB", "--json"], "--max-memory 1PB"),
        (["run", tiny_file, "--max-memory", "1ZB"], "--max-memory 1ZB"),
        (["run", "missing-\udcff.toml"], "a file name that is not UTF-8"),
        (["run", many, "--json"], "100000 [[flows]] tables"),
        (["sweep", plan(base_plan.replace('name = "p"', 'name = "p"\nzip = [[]]') + '[axes]\nseed = [1, 2]\n')],
         "zip = [[]]"),
    ]
    inputs = [{"kind": "cli", "field": what, "value": " ".join(map(str, args))[:200], "args": [str(a) for a in args]}
              for args, what in cases]
    inputs += [
        {"kind": "cli", "field": "CR-only on stdin", "value": "run - < cr.toml", "args": ["run", "-"],
         "stdin": old_mac.read_bytes()},
        {"kind": "cli", "field": "a byte-order mark on stdin", "value": "run - < bom.toml", "args": ["run", "-", "--json"],
         "stdin": marked.read_bytes()},
        {"kind": "cli", "field": "standard input closed", "value": "run - --json <&-", "args": ["run", "-", "--json"],
         "close_stdin": True},
    ]
    return inputs


def round3_cli_inputs(scratch: Path) -> list[dict]:
    """Issue 41's command lines. A case may carry ``keep`` (a folder whose files must be
    unchanged afterwards), ``expect`` (text the one error line must hold), ``max_rss``
    (bytes the process may peak at) or ``succeeds`` (exit 0 expected)."""
    import shutil

    import tomli_w

    folder = scratch / "round3"
    folder.mkdir()
    base = {"name": "r3", "duration": "0.3s",
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": "1bdp"},
                         "source_access": {"rate": "100Mbps", "delay": "1ms"},
                         "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"cc": "reno"}]}

    def scenario(name: str, **changes) -> Path:
        document = copy.deepcopy(base)
        document.update(changes)
        path = folder / name
        path.write_text(tomli_w.dumps(document))
        return path

    good = scenario("good.toml")
    cases: list[dict] = []

    def case(args, what, **extra):
        cases.append({"kind": "cli", "field": what, "value": " ".join(map(str, args))[:200],
                      "args": [str(a) for a in args], **extra})

    # output folders
    project = folder / "project"
    (project / "data").mkdir(parents=True)
    (project / "meta.json").write_text('{"cclab_version": "0.1.0"}')
    (project / "thesis.tex").write_text("precious")
    (project / "data" / "raw.csv").write_text("1,2")
    case(["run", good, "--out", project], "--out a project folder with a meta.json", keep=project,
         expect="not a cclab result directory")
    added = folder / "added"
    added.mkdir()
    (added / ".cclab-result").write_text(json.dumps({"format": "cclab result directory", "entries": ["flows.csv"]}))
    (added / "flows.csv").write_text("x")
    (added / "notes.txt").write_text("mine")
    case(["run", good, "--out", added], "--out a result folder the user added to", keep=added,
         expect="did not write there (notes.txt)")
    dot = folder / "dot"
    dot.mkdir()
    case(["run", good, "--out", "."], "--out . in an empty folder", cwd=dot, succeeds=True)
    case(["run", good, "--out", folder / ("o" * 240)], "a 240-character --out", succeeds=True)
    case(["run", good, "--out", folder / ("ü" * 128)], "a 256-byte --out", expect="a folder name of 256 bytes")
    # flow-size CDF files
    cdf = {"cc": "reno", "arrivals": {"kind": "poisson", "load": 0.3, "sizes": {"kind": "cdf", "file": "sizes.csv"}}}
    rows = {"inf": "1000,0.5\ninf,1\n", "1e400": "1000,0.5\n1e400,1\n", "decreasing": "1000,0.5\n900,1\n",
            "nan probability": "1000,0.5\n2000,nan\n", "last below 1": "1000,0.5\n2000,0.9\n",
            "2e15 bytes": "1000,0.5\n2000000000000000,1\n", "three columns": "1,2,3\n",
            "a 200000-character line": "1," + "9" * 200_000 + "\n", "empty": "", "not numbers": "1000,0.5\na,b\n"}
    for what, text in rows.items():
        sub = folder / f"cdf-{len(cases)}"
        sub.mkdir()
        (sub / "sizes.csv").write_text(text)
        path = sub / "s.toml"
        path.write_text(tomli_w.dumps({**base, "flows": [cdf]}))
        case(["run", path], f"CDF file: {what}", expect="flows[0].arrivals.sizes.file: sizes.csv")
    for what in ("fifo", "/dev/zero", "/dev/urandom", "a directory"):
        sub = folder / f"cdf-{len(cases)}"
        sub.mkdir()
        target = sub / "sizes.csv"
        if what == "fifo":
            os.mkfifo(target)
        elif what == "a directory":
            target.mkdir()
        else:
            target.symlink_to(what)
        path = sub / "s.toml"
        path.write_text(tomli_w.dumps({**base, "flows": [cdf]}))
        case(["run", path], f"CDF file: {what}", expect="flows[0].arrivals.sizes.file: sizes.csv")
    # stores
    plan = folder / "plan.toml"
    plan.write_text(f'[sweep]\nname = "p"\nscenario = "{good}"\n[axes]\n"flows.0.count" = [1, 2]\n')
    store = folder / "st.duckdb"
    subprocess.run([sys.executable, "-m", "cclab", "sweep", str(plan), "--store", str(store), "--workers", "1"],
                   capture_output=True, timeout=300, check=True)
    for how in ("truncated catalog", "zeroed catalog", "truncated flows part", "garbage runs part",
                "garbage results part", "garbage bins part"):
        sub = folder / f"store-{len(cases)}"
        sub.mkdir()
        damaged = sub / "d.duckdb"
        shutil.copy(store, damaged)
        shutil.copytree(store.with_name("st.duckdb.parts"), sub / "d.duckdb.parts")
        if how == "truncated catalog":
            os.truncate(damaged, 1000)
        elif how == "zeroed catalog":
            damaged.write_bytes(bytes(damaged.stat().st_size))
        else:
            part = sorted((sub / "d.duckdb.parts" / how.split()[-2]).glob("*.parquet"))[0]
            if how.startswith("truncated"):
                os.truncate(part, 100)
            else:
                part.write_bytes(os.urandom(5000))
        for command in (["report", damaged, "-o", sub / "r"], ["export", damaged, "-o", sub / "e"],
                        ["reproduce", "mraimd", "--quick", "--from-store", damaged, "--out", sub / "m"]):
            case(command, f"{command[0]}: a store with a {how}", expect="d.duckdb")
    foreign = folder / "mine.duckdb"
    import duckdb

    connection = duckdb.connect(str(foreign))
    connection.execute("CREATE TABLE experiments (x INTEGER)")
    connection.close()
    case(["sweep", plan, "--store", foreign], "--store an unrelated DuckDB database",
         expect="not a cclab results store", unchanged=foreign)
    # traced links, capture names
    for field in ("links", "pcap"):
        case(["validate", scenario(f"trace-{field}.toml", trace={field: ["r1-r2", "bottleneck"]})],
             f"trace.{field} naming a missing link", expect=f"trace.{field}[1]: no link direction is named")
    # Python controllers made badly
    (folder / "controllers.py").write_text("import sys\nimport cclab.cc\nclass Exits(cclab.cc.CongestionControl):\n"
                                           "    def __init__(self):\n        sys.exit(0)\n")
    case(["run", scenario("exits.toml", flows=[{"cc": {"algorithm": "python", "path": str(folder / "controllers.py"),
                                                       "class": "Exits"}}])],
         "sys.exit in a controller's __init__", expect="raised SystemExit: 0")
    # short flows piling up
    tiny = copy.deepcopy(base)
    tiny["duration"] = "10s"
    tiny["topology"]["bottleneck"]["rate"] = "1Gbps"
    tiny["flows"] = [{"cc": "reno", "arrivals": {"kind": "poisson", "load": 0.9, "sizes": {"kind": "fixed", "size": "1B"}}}]
    (folder / "tiny.toml").write_text(tomli_w.dumps(tiny))
    case(["run", folder / "tiny.toml", "--json", "--max-memory", "100MiB"], "1-byte flows at load 0.9 on 1 Gb/s",
         expect="memory limit of 105 MB", max_rss=100 * 2**20)
    return cases


def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _file(scratch: Path, name: str, text: str) -> Path:
    path = scratch / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _write(scratch: Path, body: str) -> Path:
    path = scratch / f"plan{len(list(scratch.glob('plan*.toml')))}.toml"
    path.write_text(body)
    return path


def run_cli(case: dict) -> tuple[str, str]:
    command = [sys.executable, "-m", "cclab", *case["args"]]
    stdin = subprocess.DEVNULL if "stdin" not in case else subprocess.PIPE
    if case.get("close_stdin"):
        command = ["sh", "-c", 'exec "$0" "$@" <&-', *command]
    kept = {path: (_tree(path) if path.is_dir() else path.read_bytes())
            for path in (case.get("keep"), case.get("unchanged")) if path is not None}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdin=stdin, stdout=out, stderr=errors,
                                   cwd=case.get("cwd", tempfile.gettempdir()))
        if case.get("stdin") is not None:
            process.stdin.write(case["stdin"])
            process.stdin.close()
        deadline = time.monotonic() + TIMEOUT_S * 3
        while True:  # os.wait4: this child's own peak memory
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                process.wait()
                return "hang", f"no answer in {TIMEOUT_S * 3:g} s"
            time.sleep(0.02)
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        completed = subprocess.CompletedProcess(command, process.returncode, b"", errors.read())
    for path, before in kept.items():
        if (_tree(path) if path.is_dir() else path.read_bytes()) != before:
            return "wrong", f"{path.name} was changed"
    if case.get("max_rss") and usage.ru_maxrss * 1024 > case["max_rss"]:
        return "wrong", f"peak memory {usage.ru_maxrss / 1024:.0f} MiB above the limit"
    err = completed.stderr.decode("utf-8", "backslashreplace").strip()
    if case.get("succeeds") and completed.returncode != 0:
        return "wrong", f"exit {completed.returncode}: {err[-200:]}"
    if case.get("expect") and completed.returncode != 0 and case["expect"] not in err:
        return "misleading", err[-300:]
    if completed.returncode < 0 or completed.returncode in (134, 137, 139):
        return "abort", f"exit {completed.returncode}: {err.splitlines()[-1:] if err else ''}"
    if "Traceback" in err or "PanicException" in err:
        kind = "panic" if ("PanicException" in err or "panicked" in err) else "traceback"
        return kind, err.splitlines()[-1]
    if completed.returncode == 0:
        return "ran", ""
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("warning: ")]
    if len(lines) != 1 or LEAKS.search(err):
        return "misleading", " | ".join(lines)[:300]
    return "clean", lines[0]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        worker_main(argv[1], int(argv[2]), int(argv[3]), argv[4])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="append", default=[], help="print the inputs with this outcome")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--json", type=Path, help="write every input's outcome here")
    parser.add_argument("--only", choices=["scenario", "cli"], help="one kind of input only")
    parser.add_argument("--every", type=int, default=1, help="run every k-th scenario input only (a quick sample; the newest fields' inputs all run)")
    args = parser.parse_args(argv)
    records = []
    if args.only in (None, "scenario"):
        inputs = [case for k, case in enumerate(scenario_inputs()) if k % args.every == 0 or case.get("new")]
        for case, (outcome, detail) in zip(inputs, run_scenarios(inputs)):
            records.append({"kind": "scenario", "field": case["field"], "value": case["value"], "outcome": outcome,
                            "detail": detail, "short_flows": case.get("short_flows", False)})
    if args.only in (None, "cli"):
        with tempfile.TemporaryDirectory(prefix="cclab-hostile-") as scratch:
            for case in cli_inputs(Path(scratch)) + round3_cli_inputs(Path(scratch)):
                outcome, detail = run_cli(case)
                records.append({"kind": "cli", "field": case["field"], "value": case["value"], "outcome": outcome,
                                "detail": detail})
            for path in Path(scratch).rglob("*"):
                if not path.is_symlink():  # (chmod follows a link: /dev/zero would lose its rights)
                    path.chmod(0o700)
    counts = collections.Counter(record["outcome"] for record in records)
    print(f"{len(records)} inputs")
    for outcome in ("clean", "ran", "misleading", "wrong", "traceback", "panic", "abort", "hang"):
        print(f"  {outcome:11} {counts.get(outcome, 0)}")
    short = collections.Counter(record["outcome"] for record in records if record.get("short_flows"))
    if short:
        print("  of them over short flows and delays (issue 28): "
              + ", ".join(f"{outcome} {count}" for outcome, count in sorted(short.items())))
    for show in args.show:
        print(f"\n--- {show}")
        for record in [r for r in records if r["outcome"] == show][: args.limit]:
            print(textwrap.shorten(f"{record['field']} = {record['value']}: {record['detail']}", 220))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
