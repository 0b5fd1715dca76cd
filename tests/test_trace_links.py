"""Issue 38: links that follow recorded traces, from the front end: trace files read into
the engine (the same result as the opportunities given inline), bad files refused on
one line naming the file and line, cclab's own generators and converter, the views."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cclab
from cclab import traces

SCENARIO = """name = "trace"
duration = "5s"
packet_size = "1448B"
header_size = "52B"
ack_size = "52B"
[topology]
kind = "dumbbell"
bottleneck = {{ delay = "20ms", buffer = 40, rate_schedule = {{ kind = "{kind}", file = "{file}" }}, reverse_rate_schedule = {{ kind = "mahimahi", file = "{file_down}" }} }}
source_access = {{ rate = "10Gbps", delay = "0s" }}
sink_access = {{ rate = "10Gbps", delay = "0s" }}
[[flows]]
cc = "cubic"
[trace]
links = ["r1-r2"]
delays = true
"""


def scenario(folder: Path, up: str = "up.trace", kind: str = "mahimahi", down: str = "down.trace") -> Path:
    path = folder / "s.toml"
    path.write_text(SCENARIO.format(kind=kind, file=up, file_down=down))
    return path


def one_line_error(completed: subprocess.CompletedProcess) -> str:
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in completed.stderr, completed.stderr
    return lines[0]


def test_a_trace_file_runs_as_its_opportunities_given_inline(tmp_path):
    (tmp_path / "up.trace").write_text("1\n2\n2\n3\n")  # 4 opportunities per 3 ms: 16.04 Mb/s
    (tmp_path / "down.trace").write_text("1\n")
    from_file = cclab.run(scenario(tmp_path))
    bottleneck = from_file.scenario["topology"]["bottleneck"]
    assert bottleneck["rate_schedule"]["file"] == str(tmp_path / "up.trace")
    assert len(bottleneck["rate_schedule"]["sha256"]) == 64 and "opportunities" not in bottleneck["rate_schedule"]
    assert bottleneck["rate"] == "16042667bps"  # the trace's mean (4 × 1504 × 8 bits per 3 ms), stated
    inline = cclab.load_scenario(scenario(tmp_path))
    inline["topology"]["bottleneck"]["rate_schedule"] = {"kind": "mahimahi", "opportunities": [[1, 1], [2, 2], [3, 1]]}
    inline["topology"]["bottleneck"]["reverse_rate_schedule"] = {"kind": "mahimahi", "opportunities": [[1, 1]]}
    same = cclab.run(inline)
    assert same.flows.drop(columns="cc_state").equals(from_file.flows.drop(columns="cc_state"))
    assert same.raw["links"] == from_file.raw["links"]
    # the saved scenario runs again from the file, to the same result
    out = from_file.save(tmp_path / "out")
    again = cclab.run(out / "scenario.toml")
    assert again.raw["flows"] == from_file.raw["flows"]


def test_run_many_runs_scenarios_that_name_trace_files(tmp_path):
    # run_many loads each scenario (reading its trace files) and validated it by loading
    # it again, which refused the schedules it had just filled in ("give either file or
    # opportunities, not both")
    (tmp_path / "up.trace").write_text("1\n2\n2\n3\n")
    (tmp_path / "down.trace").write_text("1\n")
    alone = cclab.run(scenario(tmp_path))
    for jobs in (1, 2):
        [many] = cclab.run_many([scenario(tmp_path)], jobs=jobs)
        assert many.raw["flows"] == alone.raw["flows"]
    as_dict = cclab.load_scenario(scenario(tmp_path))
    as_dict["topology"]["bottleneck"]["rate_schedule"] = {"kind": "mahimahi", "file": str(tmp_path / "up.trace")}
    as_dict["topology"]["bottleneck"]["reverse_rate_schedule"] = {"kind": "mahimahi", "file": str(tmp_path / "down.trace")}
    [many] = cclab.run_many([as_dict], jobs=1)
    assert many.raw["flows"] == alone.raw["flows"]


def test_a_changed_trace_file_is_refused_by_its_saved_scenario(tmp_path):
    (tmp_path / "up.trace").write_text("1\n")
    (tmp_path / "down.trace").write_text("1\n")
    out = cclab.run(scenario(tmp_path)).save(tmp_path / "out")
    (tmp_path / "up.trace").write_text("1\n1\n")
    with pytest.raises(cclab.ScenarioError, match=r"^topology\.bottleneck\.rate_schedule\.sha256: .*up\.trace has changed"):
        cclab.run(out / "scenario.toml")


@pytest.mark.parametrize("content, expected", [
    ("", "is empty: a trace has one millisecond per line"),
    ("1\n5\n3\n", "line 3: 3 comes after 5; the milliseconds must not decrease"),
    ("1\nabc\n", 'line 2: "abc" is not a whole number of milliseconds'),
    ("1\n\n2\n", "line 2: empty (every line is a millisecond)"),
    ("0\n0\n", "lasts 0 ms (its last line is 0): a trace must last a nonzero time"),
    ("1\n-2\n", 'line 2: "-2" is not a whole number of milliseconds'),
    ("1\n2.5\n", 'line 2: "2.5" is not a whole number of milliseconds'),
    ("1\n99999999999\n", "line 2: 99999999999 ms is past the longest trace cclab takes (864000000 ms, 10 days)"),
])
def test_bad_trace_files_are_one_line_naming_the_file_and_line(cli, tmp_path, content, expected):
    (tmp_path / "up.trace").write_text(content)
    (tmp_path / "down.trace").write_text("1\n")
    message = one_line_error(cli("run", scenario(tmp_path)))
    assert message == f"error: topology.bottleneck.rate_schedule.file: up.trace: {expected}", message
    with pytest.raises(cclab.ScenarioError, match=r"^topology\.bottleneck\.rate_schedule\.file: up\.trace: "):
        cclab.validate(scenario(tmp_path))


def test_missing_and_odd_trace_files_are_one_line(cli, tmp_path):
    (tmp_path / "down.trace").write_text("1\n")
    assert one_line_error(cli("run", scenario(tmp_path))) == \
        "error: topology.bottleneck.rate_schedule.file: up.trace: no such file"
    (tmp_path / "up.trace").mkdir()
    assert "up.trace: is a directory" in one_line_error(cli("run", scenario(tmp_path)))
    (tmp_path / "up.trace").rmdir()
    (tmp_path / "up.trace").symlink_to("/dev/zero")
    assert "up.trace: not a regular file" in one_line_error(cli("run", scenario(tmp_path)))
    (tmp_path / "up.trace").unlink()
    (tmp_path / "up.trace").write_bytes(b"1\n\xff\n")
    assert "up.trace: not UTF-8 text" in one_line_error(cli("run", scenario(tmp_path)))


def test_a_scenario_without_a_rate_or_a_trace_names_the_rate(tmp_path):
    document = cclab.load_scenario(tmp_path / "x.toml" if False else scenario_dict())
    del document["topology"]["bottleneck"]["rate_schedule"]
    with pytest.raises(cclab.ScenarioError, match=r"^topology\.bottleneck\.rate: required, but missing \(or give"):
        cclab.validate(document)


@pytest.mark.parametrize("kind", [[], {}, [[]], 3])
def test_a_schedule_kind_that_is_no_name_is_one_line(kind):
    # (the front end looked the kind up among the trace kinds: a TypeError for a list)
    document = scenario_dict()
    document["topology"]["bottleneck"]["rate_schedule"] = {"kind": kind, "file": "up.trace"}
    with pytest.raises(cclab.ScenarioError, match=r"^topology\.bottleneck\.rate_schedule\.kind: .* is not a name$"):
        cclab.run(document)


def scenario_dict() -> dict:
    return {"duration": "1s", "topology": {"kind": "dumbbell",
            "bottleneck": {"delay": "10ms", "rate_schedule": {"kind": "mahimahi", "opportunities": [[1, 1]]}},
            "source_access": {"rate": "100Mbps", "delay": "1ms"}, "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"cc": "reno"}]}


def test_a_rate_log_runs_as_the_trace_it_converts_to(cli, tmp_path):
    (tmp_path / "log.csv").write_text("time_s,rate_mbps\n0,12.032\n1,30\n2,2\n3,20\n")
    (tmp_path / "down.trace").write_text("1\n")
    completed = cli("trace", "convert", tmp_path / "log.csv", "-o", tmp_path / "up.trace")
    assert completed.returncode == 0, completed.stderr
    from_log = cclab.run(scenario(tmp_path, up="log.csv", kind="trace"))
    from_trace = cclab.run(scenario(tmp_path))
    assert from_log.raw["flows"] == from_trace.raw["flows"]
    lines = (tmp_path / "up.trace").read_text().split()
    assert int(lines[-1]) == 4000 and len(lines) == pytest.approx((12.032 + 30 + 2 + 20) * 1000 / 12.032, abs=1)


def test_generated_traces_are_deterministic_and_have_their_rates(cli, tmp_path):
    for kind, options in [("constant", ["--rate", "24Mbps"]), ("poisson", ["--rate", "48Mbps", "--seed", "3"]),
                          ("cellular", ["--seed", "3"])]:
        paths = []
        for copy in ("a", "b"):
            path = tmp_path / f"{kind}-{copy}.up"
            completed = cli("trace", "make", kind, *options, "--duration", "20s", "-o", path)
            assert completed.returncode == 0, completed.stderr
            paths.append(path)
        assert paths[0].read_bytes() == paths[1].read_bytes(), kind
        shown = json.loads(cli("trace", "show", paths[0], "--json").stdout)
        assert shown["period_ms"] == 20_000
        if kind == "constant":
            assert shown["mean_rate_mbps"] == pytest.approx(24, rel=1e-3)
        elif kind == "poisson":
            assert shown["mean_rate_mbps"] == pytest.approx(48, rel=0.02)
        else:
            assert shown["min_second_mbps"] < 3 < 20 < shown["max_second_mbps"]


def test_trace_command_errors_name_the_option(cli, tmp_path):
    cases = {("make", "constant", "-o", tmp_path / "x"): "--rate: a constant trace needs a rate",
             ("make", "poisson", "--rate", "nan", "-o", tmp_path / "x"): "--rate: ",
             ("make", "constant", "--rate", "10Mbps", "--duration", "-1s", "-o", tmp_path / "x"): "--duration: ",
             ("show", tmp_path / "missing.up"): "missing.up: no such file"}
    for args, expected in cases.items():
        message = one_line_error(cli("trace", *args))
        assert expected in message, message
    (tmp_path / "log.csv").write_text("0,5\n0,6\n")
    assert "log.csv: line 2: time 0 is not after" in one_line_error(cli("trace", "convert", tmp_path / "log.csv", "-o",
                                                                         tmp_path / "y"))


def test_the_trace_views_draw_what_the_tables_hold(tmp_path):
    from cclab.plots import canvas
    from cclab.plots.links import link_trace_figure, link_trace_table, pantheon_figure, scheme_summary

    (tmp_path / "up.trace").write_text(traces.mahimahi_text(traces.cellular(5000, seed=2)))
    (tmp_path / "down.trace").write_text("1\n")
    result = cclab.run(scenario(tmp_path))
    table = link_trace_table(result)
    # capacity per bin from the trace's opportunities; delivered at most that
    runs = cclab.core.mahimahi_opportunities((tmp_path / "up.trace").read_text())
    first_second = sum(count for ms, count in runs if ms < 1000) * traces.OPPORTUNITY_MBPS / 1000
    assert table["capacity_mbps"][0] == pytest.approx(first_second)
    assert (table["delivered_mbps"] <= table["capacity_mbps"] * 1.0001).all()
    figure = link_trace_figure(result)
    top = figure.axes[0]
    assert np.allclose(sorted(canvas.plotted_values(top, "y")), sorted(np.concatenate(
        [table["capacity_mbps"], table["capacity_mbps"][-1:], table["delivered_mbps"], table["delivered_mbps"][-1:]])))
    flows = result.flows.iloc[0]
    assert flows["owd_p95_ms"] >= flows["owd_mean_ms"] * 0.5 and flows["owd_p95_ms"] <= flows["owd_max_ms"]
    import pandas as pd

    summary = scheme_summary(pd.DataFrame([{"scheme": "cubic", "trace": "cell", "throughput_mbps": 4.0, "owd_p95_ms": 80.0},
                                           {"scheme": "cubic", "trace": "cell", "throughput_mbps": 6.0, "owd_p95_ms": 100.0},
                                           {"scheme": "bbr", "trace": "cell", "throughput_mbps": 5.0, "owd_p95_ms": 40.0}]))
    assert summary.set_index("scheme").loc["cubic", "throughput_mbps"] == 5.0
    axis = pantheon_figure(summary).axes[0]
    assert axis.xaxis_inverted()
    assert sorted(canvas.plotted_values(axis, "x", points_only=True)) == [40.0, 90.0]


def test_a_release_lag_delays_deliveries_by_its_series_and_is_reproducible(tmp_path):
    """`lag = { file }`: each millisecond's packets leave the emulator late by the file's
    series (µs per ms, replayed from a seeded place); the normalised scenario names the
    file and its hash; the same seed gives the same run, a lag adds to the RTT."""
    (tmp_path / "up.trace").write_text("1\n")
    (tmp_path / "down.trace").write_text("1\n")
    (tmp_path / "lag.txt").write_text("# µs\n3000\n3000\n3000\n3000\n")
    # one segment at a time: no queue, the RTT is the path's
    stop_and_wait = scenario(tmp_path).read_text().replace('cc = "cubic"', 'cc = "cubic"\ntcp = { max_window = 1, initial_window = 1 }')
    (tmp_path / "plain.toml").write_text(stop_and_wait)
    plain = cclab.run(tmp_path / "plain.toml")
    lagged_scenario = tmp_path / "lagged.toml"
    lagged_scenario.write_text(stop_and_wait.replace('file = "up.trace"', 'file = "up.trace", lag = { file = "lag.txt" }'))
    lagged = cclab.run(lagged_scenario)
    shown = lagged.scenario["topology"]["bottleneck"]["rate_schedule"]["lag"]
    assert shown["file"] == str(tmp_path / "lag.txt") and len(shown["sha256"]) == 64 and "samples_us" not in shown
    # a constant 3-ms lag on the data path: every RTT 3 ms longer (a whole number of
    # milliseconds: the ticks the segments meet are the same)
    assert lagged.flows["mean_rtt_ms"].iloc[0] == pytest.approx(plain.flows["mean_rtt_ms"].iloc[0] + 3.0, abs=1e-6)
    again = cclab.run(lagged_scenario)
    assert again.flows.drop(columns="cc_state").equals(lagged.flows.drop(columns="cc_state"))


@pytest.mark.parametrize("content, expected", [
    ("100\n-5\n", r"lag\.file: lag\.txt line 2: '-5' is not a whole number of µs in \[0, 10000000\]"),
    ("# nothing\n", r"lag\.file: lag\.txt: no samples"),
    ("1.5\n", r"line 1: '1\.5' is not a whole number"),
])
def test_bad_lag_files_are_one_line_naming_the_file_and_line(tmp_path, content, expected):
    (tmp_path / "lag.txt").write_text(content)
    document = scenario_dict()
    document["topology"]["bottleneck"]["rate_schedule"]["lag"] = {"file": "lag.txt"}
    with pytest.raises(cclab.ScenarioError, match=expected):
        traces.resolve_trace_files(document, tmp_path)
