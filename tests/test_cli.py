"""The ``cclab`` command line, run as a user would (a fresh process per command)."""
from __future__ import annotations

import json

import pytest
import tomllib

# The example, shrunk: 2 s and 3 + 3 flows.
SHORT = ["--set", "duration=2s", "--set", "flows.0.count=3", "--set", "flows.1.count=3"]
RANDOM_START = ["--set", 'flows.0.start={ random = "1s" }', "--set", 'flows.1.start={ random = "1s" }']


def run_json(cli, example_file, *extra):
    completed = cli("run", example_file, *SHORT, *extra, "--json")
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)  # fails unless stdout is exactly one JSON document


def without_wall_time(document: dict) -> dict:
    return {key: value for key, value in document.items() if key != "wall_time_s"}


def test_example_file_runs_and_prints_a_summary(cli, example_file):
    completed = cli("run", example_file, *SHORT)
    assert completed.returncode == 0, completed.stderr
    for expected in ("goodput", "Jain index", "smooth", "standard", "aimd(0.31,0.875)", "reno"):
        assert expected in completed.stdout


def test_json_has_every_documented_key(cli, example_file):
    document = run_json(cli, example_file)
    assert {"events", "wall_time_s", "duration_s", "data_packets_sent", "scenario", "bins"} <= document.keys()
    assert {"goodput_mbps", "throughput_mbps", "jain_index", "bottleneck_utilization", "bottleneck_drops",
            "mean_queue_delay_ms"} <= document["system"].keys()
    assert [group["name"] for group in document["groups"]] == ["smooth", "standard"]
    for group in document["groups"]:
        assert {"name", "cc", "flows", "goodput_mbps"} <= group.keys()
    assert len(document["flows"]) == 6
    for flow in document["flows"]:
        assert {"id", "group", "cc", "goodput_mbps", "throughput_mbps", "retransmitted_packets", "timeouts",
                "fast_recoveries"} <= flow.keys()
    assert document["duration_s"] == pytest.approx(2.0)
    assert document["events"] > 0


def test_same_seed_gives_identical_json(cli, example_file):
    first = run_json(cli, example_file, *RANDOM_START, "--set", "seed=5")
    second = run_json(cli, example_file, *RANDOM_START, "--set", "seed=5")
    assert without_wall_time(first) == without_wall_time(second)


def test_different_seed_with_random_start_differs(cli, example_file):
    first = run_json(cli, example_file, *RANDOM_START, "--set", "seed=5")
    second = run_json(cli, example_file, *RANDOM_START, "--set", "seed=6")
    assert [f["start_s"] for f in first["flows"]] != [f["start_s"] for f in second["flows"]]
    assert first["flows"] != second["flows"]


def test_trace_flag_records_cwnd_and_queue(cli, example_file):
    traces = run_json(cli, example_file, "--trace")["traces"]
    assert traces is not None
    assert len(traces["flows"]) == 6
    assert len(traces["flows"][0]["t_s"]) == len(traces["flows"][0]["cwnd"]) > 0
    assert len(traces["bottleneck_queue"]["t_s"]) > 0


def test_out_writes_the_tables(cli, example_file, tmp_path):
    out = tmp_path / "results" / "example"
    completed = cli("run", example_file, *SHORT, "--out", out)
    assert completed.returncode == 0, completed.stderr
    for stem in ("flows", "groups", "bins", "system_bins"):
        assert (out / f"{stem}.parquet").is_file() and (out / f"{stem}.csv").is_file()
    for name in ("system.json", "scenario.toml", "meta.json", "result.json"):
        assert (out / name).is_file()
    assert sorted(path.name for path in out.parent.iterdir()) == ["example"]  # no staging left over
    assert json.loads((out / "meta.json").read_text())["seed"] == 1


def test_validate_prints_the_normalized_scenario_as_toml(cli, example_file):
    completed = cli("validate", example_file, "--set", "seed=9")
    assert completed.returncode == 0, completed.stderr
    normalized = tomllib.loads(completed.stdout)
    assert normalized["seed"] == 9
    assert "bin_width" in normalized  # a default the file does not set
    assert normalized["flows"][1]["count"] == 50


def test_bench_reports_speed_and_memory(cli):
    completed = cli("bench", "--duration", "1", "--flows", "4", "--no-ns2", "--json")
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["flows"] == 4 and report["duration_s"] == pytest.approx(1.0)
    assert report["cclab"]["events"] > 0 and report["cclab"]["peak_rss_mb"] > 1
    assert report["ns2"] is None and report["ns2_skipped"] == "--no-ns2"


def test_bench_repeats_report_medians_of_every_run(cli):
    completed = cli("bench", "--duration", "0.5", "--flows", "3", "--no-ns2", "--repeats", "3", "--json")
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    runs = report["cclab"]["runs"]
    assert report["repeats"] == 3 and len(runs) == 3
    assert report["cclab"]["wall_time_s"] == sorted(run["wall_time_s"] for run in runs)[1]
    assert report["cclab"]["simulation_time_s"] == sorted(run["simulation_time_s"] for run in runs)[1]
    assert len({run["events"] for run in runs}) == 1, "the same scenario and seed: the same run"


def test_scale_ladder_times_each_rung(cli):
    completed = cli("bench", "--scale", "--rungs", "5:10Mbps,10:20Mbps", "--duration", "0.5", "--no-ns2",
                    "--repeats", "3", "--json")
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    rungs = report["rungs"]
    assert [(rung["flows"], rung["rate"]) for rung in rungs] == [(5, "10Mbps"), (10, "20Mbps")]
    assert rungs[1]["cclab"]["data_packets"] > rungs[0]["cclab"]["data_packets"] > 0
    for rung in rungs:
        ours = rung["cclab"]
        # packets are the same in every run, so the median cost per packet is the median time's
        assert ours["ns_per_data_packet"] == pytest.approx(ours["simulation_time_s"] * 1e9 / ours["data_packets"])
        low, high = ours["simulation_time_range_s"]
        assert low <= ours["simulation_time_s"] <= high
        assert ours["peak_rss_mb"] > 1 and rung["ns2"] is None
    assert rungs[0]["cclab"]["cost_vs_first_rung"] == 1.0
    assert rungs[1]["cclab"]["cost_vs_first_rung"] == pytest.approx(
        rungs[1]["cclab"]["ns_per_data_packet"] / rungs[0]["cclab"]["ns_per_data_packet"])


@pytest.mark.parametrize("rungs", ["10", "0:1Gbps", "x:1Gbps", "100:"])
def test_scale_ladder_refuses_a_malformed_rung(cli, rungs):
    completed = cli("bench", "--scale", "--rungs", rungs, "--no-ns2")
    assert completed.returncode == 2
    assert "--rungs" in completed.stderr and "FLOWS:RATE" in completed.stderr
    assert "Traceback" not in completed.stderr


@pytest.mark.ns2
def test_bench_compares_with_ns2(cli):
    completed = cli("bench", "--duration", "2", "--flows", "4", "--json")
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["ns2"]["system_goodput_mbps"] > 0
    assert report["comparison"]["speed_ratio"] == pytest.approx(report["ns2"]["wall_time_s"] /
                                                                report["cclab"]["wall_time_s"])
    # A few MB for ns-2's Tcl set-up alone: not inflated to the size of this test process.
    assert 5 < report["ns2"]["peak_rss_mb"] < 200


# --------------------------------------------------------------------- user errors
# (case id, extra arguments, edit of the example file (old, new) or None, substrings the
# one-line message must contain: the field and the value)
BAD_INPUTS = [
    ("unknown top-level key", ["--set", 'colour="blue"'], None, ["colour"]),
    ("typo in a nested key", [], ('queue = "droptail"', 'queu = "droptail"'), ["queu"]),
    ("negative rate", ["--set", "topology.bottleneck.rate=-5Mbps"], None, ["bottleneck", "rate", "-5Mbps"]),
    ("rate is a word", ["--set", "topology.source_access.rate=fast"], None, ["source_access", "rate", "fast"]),
    ("beta above 1", ["--set", "flows.0.cc.beta=1.5"], None, ["beta", "1.5"]),
    ("beta zero", ["--set", "flows.0.cc.beta=0"], None, ["beta", "0"]),
    ("negative alpha", ["--set", "flows.0.cc.alpha=-1"], None, ["alpha", "-1"]),
    ("unknown algorithm", ["--set", "flows.1.cc=cubicx"], None, ["cc", "cubicx"]),
    ("duration in parsecs", ["--set", "duration=10 parsecs"], None, ["duration", "10 parsecs"]),
    ("zero flows", ["--set", "flows.1.count=0"], None, ["count", "0"]),
    ("negative buffer", ["--set", "topology.bottleneck.buffer=-3"], None, ["buffer", "-3"]),
    ("loss rate above 1", ["--set", "topology.sink_access.loss.rate=2.0"], None, ["loss", "rate", "2"]),
    ("unknown loss model", ["--set", "topology.sink_access.loss.model=gilbert"], None, ["model", "gilbert"]),
    ("unknown queue", ["--set", "topology.bottleneck.queue=red2"], None, ["queue", "red2"]),
    ("CoDel target zero", ["--set", 'topology.bottleneck.queue={kind="codel",target="0ms"}'], None,
     ["queue.target", "0s"]),
    ("CoDel interval NaN", ["--set", 'topology.bottleneck.queue={kind="codel",interval=nan}'], None,
     ["queue.interval", "nan"]),
    ("FQ-CoDel quantum negative", ["--set", 'topology.bottleneck.queue={kind="fq_codel",quantum=-1}'], None,
     ["queue.quantum", "-1"]),
    ("PIE alpha huge", ["--set", 'topology.bottleneck.queue={kind="pie",alpha=1e9}'], None, ["queue.alpha", "1000000000"]),
    ("step_mark without threshold", ["--set", 'topology.bottleneck.queue={kind="step_mark"}'], None,
     ["queue", "threshold"]),
    ("step_mark threshold a string", ["--set", 'topology.bottleneck.queue={kind="step_mark",threshold="20"}'], None,
     ["threshold", "20"]),
    ("CUBIC beta 1", ["--set", 'flows.1.cc={algorithm="cubic",beta=1}'], None, ["cc.beta", "1"]),
    ("BBR unknown field", ["--set", 'flows.1.cc={algorithm="bbr",gain=3}'], None, ["cc", "gain"]),
    ("--set path through a list", ["--set", "flows.first.count=3"], None, ["flows.first.count", "first"]),
    ("--set without a value", ["--set", "seed"], None, ["--set seed", "KEY=VALUE"]),
    ("--set into a number", ["--set", "seed.low=3"], None, ["seed.low", "1"]),
    ("--set index out of range", ["--set", "flows.5.count=3"], None, ["flows.5.count", "flows has 2 entries"]),
    ("TOML syntax error", [], ("count = 50", "count = = 50"), ["scenario.toml: line 14, column 9"]),
]


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("extra, edit, expected", [case[1:] for case in BAD_INPUTS], ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_is_one_error_line_and_exit_2(cli, example_file, tmp_path, command, extra, edit, expected):
    scenario = tmp_path / "scenario.toml"
    text = example_file.read_text()
    if edit is not None:
        assert edit[0] in text
        text = text.replace(edit[0], edit[1], 1)
    scenario.write_text(text)
    out = tmp_path / "out"
    out_option = ["--out", out, "--json"] if command == "run" else []
    completed = cli(command, scenario, *SHORT, *extra, *out_option)

    assert completed.returncode == 2, completed.stderr
    assert "Traceback" not in completed.stderr + completed.stdout
    assert completed.stdout == ""
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr
    for substring in expected:
        assert substring in lines[0]
    assert not out.exists()


def test_missing_file_is_a_user_error(cli, tmp_path):
    completed = cli("run", tmp_path / "nonexistent.toml", "--out", tmp_path / "out")
    assert completed.returncode == 2
    assert completed.stderr == f"error: {tmp_path / 'nonexistent.toml'}: no such file\n"
    assert not (tmp_path / "out").exists()


def test_failed_run_keeps_an_earlier_result(cli, example_file, tmp_path):
    out = tmp_path / "out"
    assert cli("run", example_file, *SHORT, "--out", out).returncode == 0
    before = (out / "result.json").read_text()
    failed = cli("run", example_file, *SHORT, "--set", "flows.0.cc.beta=1.5", "--out", out)
    assert failed.returncode == 2
    assert (out / "result.json").read_text() == before


def test_out_refuses_to_replace_a_directory_that_is_not_a_result(cli, example_file, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    completed = cli("run", example_file, *SHORT, "--out", tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: ") and "not a cclab result directory" in completed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
