"""Issue 31 (hardening, round 2) and issue 29 item 2 (no bare numbers where a unit
belongs): every reported input gets exit 2 and one line naming what the user wrote (or
runs, with a warning where the result is degenerate); the Python API raises
``cclab.ScenarioError`` in its own words."""
from __future__ import annotations

import copy
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cclab
import cclab.cc
from cclab.scenario import check_value, parse_memory
from conftest import REPO, SMALL_SCENARIO

TINY = REPO / "experiments" / "tiny.toml"
TINY_TEXT = TINY.read_text()


def one_line_error(completed: subprocess.CompletedProcess) -> str:
    assert completed.returncode == 2, (completed.returncode, completed.stderr[-2000:])
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr[-2000:]
    assert len(lines[0]) < 1200, len(lines[0])
    return lines[0]


def api_error(*args, **kwargs) -> str:
    with pytest.raises(cclab.ScenarioError) as raised:
        cclab.run(*args, **kwargs)
    message = str(raised.value)
    assert "\n" not in message and len(message) < 700, message[:2000]
    for flag in ("--set", "--max-memory"):
        assert flag not in message, message
    return message


# ------------------------------------------------------------------ 1. nesting and cycles
def test_a_table_header_nested_a_thousand_deep_is_one_line(cli, tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("[" + ".".join(["a"] * 1000) + "]\n")
    message = one_line_error(cli("run", deep))
    assert "line 1: a dotted key of more than 64 parts" in message and "Traceback" not in message
    # just past what the text check lets through, the nesting check speaks
    deep.write_text(TINY_TEXT + "[" + ".".join(["a"] * 64) + "]\nb = 1\n")
    assert "nested more than 64 deep" in one_line_error(cli("run", deep))


def test_a_set_path_a_thousand_deep_is_one_line(cli):
    message = one_line_error(cli("run", TINY, "--set", ".".join(["a"] * 1000) + "=1"))
    assert message.startswith("error: --set a.a.a") and "a path of 1000 parts" in message


def test_cyclic_and_deep_values_from_python_are_scenario_errors(small_scenario):
    small_scenario["flows"][0]["tcp"] = cyclic = {}
    cyclic["self"] = cyclic
    assert api_error(small_scenario) == "flows[0].tcp.self: holds itself (a table or list inside itself is no scenario)"
    loop: list = []
    loop.append(loop)
    assert api_error(SMALL_SCENARIO, overrides={"trace": loop}).startswith("trace[0]: holds itself")
    itself: dict = {}
    itself["x"] = itself
    assert api_error(itself) == "x: holds itself (a table or list inside itself is no scenario)"
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = node = {}
    message = api_error({**SMALL_SCENARIO, "trace": deep})
    assert message.startswith("trace.a.a.a") and "nested more than 64 deep" in message
    # a value shared by two fields is not a cycle
    shared = {"rate": "10Mbps", "delay": "5ms"}
    scenario = copy.deepcopy(SMALL_SCENARIO)
    scenario["topology"]["source_access"] = scenario["topology"]["sink_access"] = shared
    check_value(scenario, "")


# ------------------------------------------------------------------ 2. quadratic parsing
def test_a_dotted_key_of_forty_thousand_parts_is_refused_at_once(cli, tmp_path):
    long_key = tmp_path / "long-key.toml"
    long_key.write_text(".".join(["a"] * 40_000) + " = 1\n")
    started = time.perf_counter()
    message = one_line_error(cli("run", long_key))
    assert time.perf_counter() - started < 10
    assert "line 1: a dotted key of more than 64 parts (a.a.a.a.a.a.a.a.a.a.a.a.… 79999 characters)" in message
    # the same in a --set value, and from Python
    inline = "{" + ".".join(["a"] * 40_000) + " = 1}"
    started = time.perf_counter()
    assert "a dotted key of more than 64 parts" in one_line_error(cli("run", TINY, "--set", f"trace={inline}"))
    assert time.perf_counter() - started < 10
    with pytest.raises(cclab.ScenarioError, match=r'^overrides."trace": line 1: a dotted key'):
        cclab.load_scenario(SMALL_SCENARIO, [f"trace={inline}"])


# ------------------------------------------------------------------ 3. standard input closed
def test_closed_standard_input_is_one_line():
    completed = subprocess.run(["sh", "-c", f'exec "{sys.executable}" -m cclab run - --json <&-'],
                               capture_output=True, text=True, timeout=60)
    assert one_line_error(completed) == "error: <stdin>: standard input is closed; give a scenario file, or pipe one in"


# ------------------------------------------------------------------ 4. preset hops named as written
def test_wired_wireless_errors_name_the_hop_the_user_wrote(cli, tmp_path):
    scenario = {"duration": "1s", "topology": {"kind": "wired-wireless", "wired": {"rate": "10kbps"}}, "flows": [{}]}
    message = api_error(scenario)
    assert message.startswith("topology.wired.buffer: the default buffer \"1bdp\" is 0.09 packets here (10kbps ×")
    scenario["topology"] = {"kind": "wired-wireless", "wireless": {"rate": "10kbps"}}
    assert api_error(scenario).startswith("topology.wireless.buffer: ")
    assert "topology[" not in api_error(scenario)


# ------------------------------------------------------------------ 5. silent acceptance
@pytest.mark.parametrize(("path", "value", "expected"), [
    ("topology.bottleneck.rate", "0.5bps", 'topology.bottleneck.rate: "0.5bps" is below 1 bit per second'),
    ("trace", [], "trace: a list is not a table"),
    ("flows.0.tcp", [], "flows[0].tcp: a list is not a table"),
    ("flows.0.tcp", ["newreno"], "flows[0].tcp: a list is not a table"),
    ("flows.0.start", [], "flows[0].start: a list is not a time"),
    ("topology.bottleneck.buffer", "5", 'topology.bottleneck.buffer: "5" is text; write a packet count without quotes '
                                        '(5) or a multiple of the BDP ("5bdp")'),
    ("topology.bottleneck.delay", "0.1ns", 'topology.bottleneck.delay: "0.1ns" is shorter than 1ns'),
])
def test_values_that_were_silently_reinterpreted_are_refused(path, value, expected):
    assert api_error(SMALL_SCENARIO, overrides={path: value}).startswith(expected)


def test_dates_are_not_names(cli, tmp_path):
    import datetime

    assert api_error(SMALL_SCENARIO, overrides={"name": datetime.date(1979, 5, 27)}) == \
        "name: 1979-05-27 is a date or time; no field takes one (write text in quotes)"
    dated = tmp_path / "dated.toml"
    dated.write_text(TINY_TEXT.replace('name = "tiny"', "name = 1979-05-27T07:32:00Z")
                     .replace("count = 1", "count = 1\ngroup = 07:32:00"))
    assert one_line_error(cli("run", dated)) == \
        "error: name: 1979-05-27T07:32:00+00:00 is a date or time; no field takes one (write text in quotes)"


@pytest.mark.parametrize(("changes", "expected"), [
    ({"duration": "1ns", "flows.0.start": "0s"}, "flows[0]: none of its 3 flows delivered any data: the 1ns run ends before a round trip "
                          "(70ms) is over"),
    ({"topology.bottleneck.delay": "1e7s", "flows.1.count": 1},
     "flows[0]: none of its 3 flows delivered any data: the 3s run ends before a round trip"),
    ({"topology.bottleneck.loss": {"model": "bernoulli", "rate": 0.999999999}},
     "flows[0]: none of its 3 flows delivered any data in the 3s run; check the delays, rates and loss on the path"),
])
def test_runs_where_nothing_arrives_warn(changes, expected):
    result = cclab.run(SMALL_SCENARIO, overrides=changes)
    assert (result.flows["goodput_mbps"] == 0).all()
    assert result.warnings and result.warnings[0].startswith(expected), result.warnings
    assert len(result.warnings) == 2 and result.warnings[1].startswith("flows[1]: ")


def test_the_command_line_prints_what_only_the_run_can_tell(cli):
    completed = cli("run", TINY, "--json", "--set", "duration=1ns")
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr.strip() == ("warning: flows[0]: its flow delivered no data: the 1ns run ends before a round "
                                        "trip (24ms) is over")
    quiet = cli("run", TINY, "--json")
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_a_zip_group_of_no_axes_is_refused(cli, tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(f'[sweep]\nname = "p"\nscenario = "{TINY}"\nzip = [[]]\n[axes]\nseed = [1, 2]\n')
    assert one_line_error(cli("sweep", plan, "--store", tmp_path / "s.duckdb")) == \
        "error: sweep.zip: [] zips no axis; a zip group lists two or more axes that vary together"
    with pytest.raises(cclab.ScenarioError, match="zips one axis"):
        cclab.load_plan({"sweep": {"name": "p", "zip": [["seed"]]}, "scenario": SMALL_SCENARIO, "axes": {"seed": [1]}})
    with pytest.raises(cclab.ScenarioError, match=r"^sweep: 5 is not a table"):
        cclab.load_plan({"sweep": 5, "scenario": SMALL_SCENARIO}, {"replications": 2})


# ------------------------------------------------------------------ 6. the Python API's own errors
@pytest.mark.parametrize(("source", "shown"), [(None, "None"), (42, "42"), ([SMALL_SCENARIO], "[{"), (b"x.toml", "b'x.toml'"),
                                                (3.5, "3.5")])
def test_what_is_not_a_scenario_is_a_scenario_error(source, shown):
    message = api_error(source)
    assert message.startswith(f"the scenario: {shown}") and "give a TOML file's path" in message
    with pytest.raises(cclab.ScenarioError):
        cclab.validate(source)


@pytest.mark.parametrize(("overrides", "expected"), [
    (5, 'overrides: 5 is not a list of "key=value" strings or a mapping of dotted paths to values'),
    ("seed=3", 'overrides: \'seed=3\' is not a list of "key=value" strings'),
    ([b"seed=3"], "overrides: b'seed=3' is not a \"key=value\" string"),
    ({1: 2}, 'overrides: the key 1 is not a dotted path such as "flows.0.count"'),
    (["flows.7.count=1"], 'overrides."flows.7.count": flows has 2 entries'),
])
def test_bad_overrides_are_named_as_the_api_names_them(overrides, expected):
    assert api_error(SMALL_SCENARIO, overrides=overrides).startswith(expected)


def test_memory_limits_in_the_api_words():
    assert api_error(SMALL_SCENARIO, max_memory=2**80) == \
        "max_memory: 1208925819614629174706176 bytes is outside the limits cclab takes, from 1B to 16EiB"
    assert api_error(SMALL_SCENARIO, max_memory=0).startswith("max_memory: 0 bytes is outside")
    assert api_error(SMALL_SCENARIO, max_memory=1.5e9).startswith("max_memory: 1500000000.0 is not a size")
    assert api_error(SMALL_SCENARIO, max_memory="0.5B").startswith('max_memory: "0.5B" is not a whole number of bytes')
    assert api_error(SMALL_SCENARIO, max_memory="100EB").startswith('max_memory: "100EB" is not a size')
    assert api_error(SMALL_SCENARIO, max_memory="1kB").endswith("above the limit of 1.00 kB (raise max_memory)")
    assert parse_memory("1PB") == 10**15 and parse_memory("4096") == 4096 and parse_memory(" 8 GiB ") == 8 * 2**30


def test_file_names_python_cannot_pass_to_the_system(cli):
    assert api_error("bad\0name.toml") == "bad\\0name.toml: not a usable file name (it holds a NUL character)"
    assert api_error("bad\ud800name.toml") == \
        "bad\\ud800name.toml: not a usable file name (it holds characters no file name can)"
    # a file name that is not UTF-8 reaches Python as surrogates: the message still prints
    completed = subprocess.run([sys.executable, "-m", "cclab", "run", b"missing-\xff.toml"], capture_output=True,
                               timeout=60)
    assert completed.returncode == 2 and completed.stderr.decode() == "error: missing-\\udcff.toml: no such file\n"


def test_sweeps_of_what_is_not_a_list_are_scenario_errors():
    with pytest.raises(cclab.ScenarioError, match="^scenarios: 42 is neither a sweep plan nor a list of scenarios$"):
        cclab.sweep(42)
    with pytest.raises(cclab.ScenarioError, match="^the scenario: 42 is not one"):
        cclab.sweep([42], jobs=1)
    with pytest.raises(cclab.ScenarioError, match="^the plan: 42 is not one"):
        cclab.load_plan(42)


# ------------------------------------------------------------------ 7. wording and bounds
def test_parser_words_and_huge_echoes(cli, tmp_path):
    assert api_error(SMALL_SCENARIO, overrides={"flows.0.schedule": [["0s", 1, 2]], "flows.0.start": "0s"}) == \
        "flows[0].schedule[0]: a list of 3 items where 2 are expected"
    message = api_error(SMALL_SCENARIO, overrides={"duration": "9" * 100_000})
    assert message == 'duration: "999999999999999…9999999" (100002 characters) has no unit; write it with a unit: s, ms, ' \
                      'us or ns (e.g. "25ms")'
    message = api_error({**SMALL_SCENARIO, "k" * 1_000_000: 1})
    assert message.startswith("kkkkkkkkkkkkkkkk…kkkkkkkk (1000000 characters): unknown field") and len(message) < 400
    keyed = tmp_path / "key.toml"
    keyed.write_text(TINY_TEXT + "\n[trace]\n" + "k" * 1_000_000 + " = 1\n")
    assert len(one_line_error(cli("run", keyed))) < 400


def test_a_byte_order_mark_is_read_past(cli, tmp_path):
    marked = tmp_path / "bom.toml"
    marked.write_text("\ufeff" + TINY_TEXT, encoding="utf-8")
    assert cli("run", marked, "--json").returncode == 0
    assert subprocess.run([sys.executable, "-m", "cclab", "run", "-", "--json"], input=marked.read_bytes(),
                          capture_output=True, timeout=60).returncode == 0


def test_carriage_returns_alone_are_refused_from_a_file_and_from_stdin_alike(cli, tmp_path):
    old_mac = tmp_path / "cr.toml"
    old_mac.write_bytes(TINY_TEXT.replace("\n", "\r").encode())
    expected = ("a carriage return without a line feed; TOML lines end in LF or CRLF (was it saved with old Mac line "
                "endings?)")
    assert one_line_error(cli("run", old_mac)) == f"error: {old_mac}: line 1: {expected}"
    piped = subprocess.run([sys.executable, "-m", "cclab", "run", "-"], input=old_mac.read_bytes(), capture_output=True,
                           timeout=60)
    assert piped.returncode == 2 and piped.stderr.decode() == f"error: <stdin>: line 1: {expected}\n"
    windows = tmp_path / "crlf.toml"
    windows.write_bytes(TINY_TEXT.replace("\n", "\r\n").encode())
    assert cli("run", windows, "--json").returncode == 0


def test_max_memory_on_the_command_line(cli):
    assert cli("run", TINY, "--json", "--max-memory", "1PB").returncode == 0
    assert one_line_error(cli("run", TINY, "--max-memory", "1ZB")).startswith(
        'error: --max-memory: "1ZB" is not a size') and "from 1B to 16EiB" in one_line_error(cli("run", TINY, "--max-memory", "1ZB"))
    assert one_line_error(cli("run", TINY, "--max-memory", "1kB")).endswith("(raise --max-memory)")


def test_a_hundred_thousand_flow_tables_cost_about_what_one_of_a_hundred_thousand_flows_costs():
    scenario = cclab.scenario.read_toml(TINY)
    scenario["duration"] = "0.01s"
    scenario["flows"] = [{"group": f"g{i}"} for i in range(100_000)]
    started = time.perf_counter()
    raw = cclab.core.run_json(cclab.scenario.scenario_json(scenario))  # (the result's 100 000 flows stay text)
    assert raw.count('"transport":"tcp","cc":"reno","flows":1,') == 100_000  # one group each
    assert time.perf_counter() - started < 20  # 28 s before, for the groups' results alone


# ------------------------------------------------------------------ issue 29: units
@pytest.mark.parametrize(("path", "value", "hint"), [
    ("topology.bottleneck.delay", 18, '18 has no unit; write "18ms" or "18s"'),
    ("topology.bottleneck.rate", 20, '20 has no unit; write "20Mbps", "20kbps" or "20bps"'),
    ("duration", 10, '10 has no unit; write "10ms" or "10s"'),
    ("packet_size", 1000, '1000 has no unit; write "1000B" (bytes) or "1000kB"'),
])
def test_a_bare_number_is_refused_with_a_hint_in_files_set_and_python(cli, tmp_path, path, value, hint):
    expected = f"{path}: {hint}"
    assert api_error(SMALL_SCENARIO, overrides={path: value}) == expected
    assert one_line_error(cli("run", TINY, "--set", f"{path}={value}")) == f"error: {expected}"
    scenario = cclab.scenario.read_toml(TINY)
    cclab.scenario.apply_overrides(scenario, {path: value})
    bare = tmp_path / "bare.toml"
    bare.write_text(cclab.scenario.scenario_toml(scenario))
    assert one_line_error(cli("run", bare)) == f"error: {expected}"


UNITS = ("s", "ms", "us", "ns", "bps", "B")


def _with_units(value, path=()):
    """Every leaf of a normalised scenario written with a unit (a duration, rate or size)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _with_units(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _with_units(item, path + (index,))
    elif isinstance(value, str) and value[:1].isdigit() and value.endswith(UNITS) and not value.endswith("bdp"):
        yield path


def test_every_field_with_a_unit_refuses_a_bare_number():
    """Every duration, rate and size of scenarios that use every kind of field (queues,
    algorithms, loss models, applications, schedules) refuses a bare number, and each is
    named by its path: nothing is read in a base unit any more."""
    bases = [
        {**SMALL_SCENARIO, "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "25ms", "buffer_bytes": "100kB", "queue": {"kind": "red"},
                           "rate_schedule": {"kind": "square", "low": "5Mbps", "period": "1s"},
                           "loss": {"model": "handoff", "period": "1s", "mean_outage": "100ms"}},
            "source_access": {"rate": "100Mbps", "delay": "5ms", "queue": "codel"},
            "sink_access": {"rate": "100Mbps", "delay": "5ms", "queue": "pie"}},
         "flows": [
             {"group": "cubic", "cc": "cubic", "stop": "2s", "source_delay": "1ms", "sink_delay": "2ms"},
             {"group": "bbr", "cc": "bbr", "start": {"at": "0.1s", "stagger": "0.5s"}},
             {"group": "vegas", "cc": "vegas", "schedule": [["0s", 1], ["1s", 0]]},
             {"group": "dctcp", "cc": "dctcp", "tcp": {"delayed_ack": True}},
             {"group": "be", "cc": {"algorithm": "westwood-be", "silent_period": "1s"}},
             {"group": "re", "cc": {"algorithm": "westwood-re", "interval": "100ms"}},
             {"group": "crb", "cc": {"algorithm": "westwood-crb", "interval": "100ms"}},
             {"group": "plus", "cc": "westwood-plus"},
             {"group": "cbr", "transport": "udp", "app": {"kind": "cbr", "rate": "1Mbps"}},
             {"group": "onoff", "transport": "udp",
              "app": {"kind": "onoff", "rate": "1Mbps", "on": "1s", "off": {"pareto": "1s", "shape": 1.5}}},
             {"group": "tfrc", "transport": "tfrc"},
         ]},
        {"duration": "3s", "topology": {"kind": "graph", "bdp_rtt": "100ms", "links": [
            {"from": "a", "to": "b", "rate": "10Mbps", "delay": "5ms", "queue": "fq_codel",
             "reverse": {"rate": "5Mbps", "delay": "6ms", "buffer_bytes": "64KiB"}}]},
         "flows": [{"from": "a", "to": "b"}]},
    ]
    fields = set()
    for base in bases:
        normalized = cclab.validate(base)
        for path in _with_units(normalized):
            scenario = copy.deepcopy(normalized)
            node = scenario
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = 3
            field = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".")
            with pytest.raises(cclab.ScenarioError) as raised:
                cclab.validate(scenario)
            assert str(raised.value).startswith(f"{field}: 3 has no unit; write \"3"), (field, str(raised.value))
            fields.add(path[-1] if isinstance(path[-1], str) else path[-2])
    # the families of fields the check went over (a new field with a unit joins them)
    assert {"duration", "bin_width", "delay", "rate", "low", "period", "mean_outage", "stop", "at", "stagger",
            "source_delay", "sink_delay", "initial_rto", "min_rto", "max_rto", "granularity", "delayed_ack_timeout",
            "min_rtt_window", "probe_rtt_duration", "tau", "silent_period", "interval", "min_sample", "target",
            "tupdate", "max_burst", "on", "pareto", "packet_size", "header_size", "ack_size", "buffer_bytes",
            "mean_packet_size", "bdp_rtt", "quantum"} <= fields, sorted(fields)


def test_zero_needs_no_unit():
    result = cclab.validate(SMALL_SCENARIO, overrides={"header_size": 0, "flows.0.start": 0})
    assert result["header_size"] == "0B" and result["flows"][0]["start"] == {"at": "0s"}


# ------------------------------------------------------------------ the fields main gained since
# (Python congestion control, trace.links, trace.pcap): the same rules, the same one line.
PY_RENO = str(REPO / "examples" / "python_cc" / "reno.py")


@pytest.mark.parametrize(("overrides", "expected"), [
    ({"trace.links": {}}, "trace.links: a table is not a list"),
    ({"trace.links": "r1-r2"}, 'trace.links: "r1-r2" is not a list'),
    ({"trace.links": ["nope"]}, 'trace.links[0]: no link direction is named "nope" (they are named "FROM-TO": r1-r2,'),
    ({"trace.links": ["r1-r2", "r1-r2"]}, 'trace.links[1]: "r1-r2" is named twice'),
    ({"trace.pcap": [5]}, "trace.pcap[0]: 5 is not text in quotes"),
    ({"trace.pcap": ["r2-r1", "nope"]}, 'trace.pcap[1]: no link direction is named "nope"'),
    ({"trace.pcap": ["x" * 100_000]}, 'trace.pcap[0]: no link direction is named "xxx'),
    ({"topology.bottleneck.queue": {"kind": "fq_codel", "quantum": 1514}},
     'topology.bottleneck.queue.quantum: 1514 has no unit; write "1514B"'),
    ({"topology.bottleneck.queue": {"kind": "fq_codel", "quantum": "1514b"}},
     'topology.bottleneck.queue.quantum: "1514b" is in bits'),
    ({"topology.bottleneck.queue": {"kind": "codel", "target": 5}},
     'topology.bottleneck.queue.target: 5 has no unit; write "5ms" or "5s"'),
    ({"flows.1.cc": {"algorithm": "python", "path": PY_RENO, "class": 5}}, "flows[1].cc.class: 5 is not text in quotes"),
    ({"flows.1.cc": {"algorithm": "python", "path": PY_RENO, "class": "Reno", "params": {"d": __import__("datetime").date(2020, 1, 1)}}},
     "flows.1.cc.params.d: 2020-01-01 is a date or time"),
])
def test_new_fields_follow_the_same_rules(overrides, expected):
    message = api_error(SMALL_SCENARIO_TRACEABLE, overrides=overrides)
    assert message.startswith(expected), message


SMALL_SCENARIO_TRACEABLE = {**SMALL_SCENARIO, "duration": "0.5s"}


def test_a_python_controller_s_errors_name_its_group(tmp_path, monkeypatch):
    """The file, class and constructor errors of a Python congestion control name the
    group as written (flows[1].cc...), not a flow number the user never wrote."""
    # (files named from their folder, so that the names in the messages are short: a path
    # past 80 characters is shown cut, whatever the length of the machine's temporary folder)
    monkeypatch.chdir(tmp_path)
    Path("broken.py").write_text("def f(:\n")
    Path("exits.py").write_text("import sys\nsys.exit(0)\n")
    cases = [
        ({"path": "missing.py", "class": "A"}, "flows[1].cc.path: ", "missing.py: no such file"),
        ({"path": ".", "class": "A"}, "flows[1].cc.path: ", "not a regular file"),
        ({"path": "broken.py", "class": "A"}, "flows[1].cc.path: ", "broken.py:1: SyntaxError"),
        ({"path": "exits.py", "class": "A"}, "flows[1].cc.path: ", "SystemExit"),
        ({"path": PY_RENO, "class": "Nope"}, "flows[1].cc.class: ", "'Nope' is not a class"),
        ({"path": PY_RENO, "class": "Reno", "params": {"x": 1}}, "flows[1].cc.params: ", "TypeError"),
    ]
    for cc, start, needle in cases:
        message = api_error(SMALL_SCENARIO_TRACEABLE, overrides={"flows.1.cc": {"algorithm": "python", **cc}})
        assert message.startswith(start) and needle in message, message


def test_a_python_controller_error_from_the_command_line_is_one_line(cli, tmp_path):
    scenario = tmp_path / "py.toml"
    scenario.write_text(TINY_TEXT + '\n[[flows]]\ngroup = "py"\ncc = { algorithm = "python", path = "gone.py", class = "A" }\n')
    line = one_line_error(cli("run", str(scenario)))
    # a path past 80 characters (a deep temporary folder) is shown cut, with its length
    assert line.startswith("error: flows[1].cc.path: "), line
    assert re.search(r"/gone\.py( \(\d+ characters\))?: no such file$", line), line


def test_every_link_traced_and_captured_costs_no_scan_per_name():
    """Names in trace.links / trace.pcap are looked up in one map: a graph of 20 000 link
    directions, every one traced and captured, is set up in well under a second (a scan
    of the graph per name made that 4 × 10^8 name comparisons)."""
    hops = 10_000
    links = [{"from": f"n{i}", "to": f"n{i + 1}", "rate": "10Mbps", "delay": "1ms"} for i in range(hops)]
    names = [f"n{i}-n{i + 1}" for i in range(hops)] + [f"n{i + 1}-n{i}" for i in range(hops)]
    scenario = {"duration": "1ms", "bin_width": "1ms", "topology": {"kind": "graph", "links": links},
                "flows": [{"from": "n0", "to": "n1"}], "trace": {"links": names, "pcap": names}}
    started = time.perf_counter()
    result = cclab.run(scenario)
    elapsed = time.perf_counter() - started
    assert len(result.raw["traces"]["links"]) == 2 * hops
    assert elapsed < 10, elapsed


def test_captures_of_links_whose_names_make_one_file_name_are_both_written(tmp_path):
    from cclab.store.pcap import write_all

    scenario = {"duration": "0.2s", "topology": {"kind": "graph", "links": [
        {"from": "a b", "to": "c", "rate": "10Mbps", "delay": "1ms"},
        {"from": "a_b", "to": "c", "rate": "10Mbps", "delay": "1ms"}]},
        "flows": [{"from": "a b", "to": "c"}, {"from": "a_b", "to": "c"}],
        "trace": {"pcap": ["a b-c", "a_b-c"]}}
    written = write_all(cclab.run(scenario), tmp_path)
    assert [p.name for p in written] == ["a_b-c.pcap", "a_b-c~2.pcap"]
    assert all(p.stat().st_size > 24 for p in written)  # each holds packets past the file header


class Huge(cclab.cc.CongestionControl):
    def on_ack(self, window, ack):
        window.cwnd = 1e308


class Loud(cclab.cc.CongestionControl):
    def on_ack(self, window, ack):
        raise ValueError("x" * 1_000_000)


def test_a_python_hook_s_bad_value_or_huge_message_stays_one_short_line():
    """A window of 1e308 is shown as 1e308 (not 309 digits); an exception message of a
    million characters is shortened, as every other message is."""
    huge = api_error({**SMALL_SCENARIO_TRACEABLE, "flows": [{"cc": Huge}]})
    assert huge.startswith("cwnd 1e308 is not a window in [1, 1e9] segments (in Huge.on_ack, flow 0)"), huge
    loud = api_error({**SMALL_SCENARIO_TRACEABLE, "flows": [{"cc": Loud}]})
    assert "ValueError: xxx" in loud and len(loud) < 700, loud[:300]
