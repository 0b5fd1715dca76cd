"""The hostile inputs given to ``cclab.run`` (run by :mod:`hostile` in worker
processes): every leaf of three base scenarios set to each value of a hostile palette,
unknown and deleted keys, misbehaving Python congestion controls, and the cases of
issues 13, 31 and 41 (round 3) that go through the Python API."""
from __future__ import annotations

import copy
import datetime
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

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
# Issues 37-40's fields: DualPI2, TCP Prague (L4S), BBRv3 and ns-3.44's catalogue (their
# parameters written out by normalising), a linux-profile group paced, and a link that
# delivers by a Mahimahi trace with a release lag.
MAHIMAHI_TRACE = str(REPO / "bench" / "linux" / "traces" / "markov-seed1.trace")
RELEASE_LAG = str(REPO / "bench" / "linux" / "lag" / "ack.txt")
CATALOGUE = ("highspeed", "scalable", "bic", "htcp", "hybla", "veno", "illinois", "yeah", "ledbat", "lp")
FRONTIER = {
    "name": "hostile-frontier", "duration": "0.3s", "seed": 11, "packet_size": "1000B",
    "topology": {"kind": "graph", "links": [
        {"from": "a", "to": "b", "rate": "50Mbps", "delay": "1ms", "buffer": 200, "queue": {"kind": "dualpi2"}},
        {"from": "b", "to": "c", "delay": "5ms", "buffer": 100,
         "rate_schedule": {"kind": "mahimahi", "file": MAHIMAHI_TRACE, "lag": {"file": RELEASE_LAG}}},
    ]},
    "flows": [
        {"group": "prague", "from": "a", "to": "c", "cc": "prague"},
        {"group": "bbr3", "from": "a", "to": "c", "cc": "bbr3", "start": "0.02s"},
        {"group": "linux", "from": "a", "to": "c", "cc": "cubic", "tcp": {"profile": "linux", "pacing": True}},
        *({"group": name, "from": "a", "to": "b", "cc": name, "start": "0.01s"} for name in CATALOGUE),
    ],
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
    for base in (SMALL, GRAPH, MODERN, INSTRUMENTED, SHORT_FLOWS, FRONTIER):
        normalized = cclab.validate(base)
        normalized["duration"] = base["duration"]
        for path in leaves(normalized):
            if path[0] in ("name",):
                continue
            for value in PALETTE:
                scenario = copy.deepcopy(normalized)
                set_path(scenario, path, value)
                inputs.append({"kind": "scenario", "field": field_name(path), "value": repr(value), "scenario": scenario,
                               "new": base in (INSTRUMENTED, SHORT_FLOWS, FRONTIER), "short_flows": base is SHORT_FLOWS})
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

