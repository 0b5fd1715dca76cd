"""Issue 13: every input a hostile user tried gets one clean line (or runs correctly),
files and processes are handled, and nothing hangs, aborts or shows a traceback."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cclab
from cclab.scenario import parse_memory
from conftest import REPO, SMALL_SCENARIO

GRAPH = REPO / "experiments" / "graphs" / "chain-with-cross-traffic.toml"


def one_line_error(completed: subprocess.CompletedProcess, code: int = 2) -> str:
    assert completed.returncode == code, (completed.returncode, completed.stderr)
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr
    assert "Traceback" not in completed.stderr
    return lines[0]


# ------------------------------------------------------------------ scenario values
@pytest.mark.parametrize(("path", "value", "expected"), [
    (("flows", 0, "cc"), {"algorithm": "aimd", "beta": float("nan")}, "flows[0].cc.beta: nan is not a finite number"),
    (("duration",), float("inf"), "duration: inf is not a finite number"),
    (("seed",), 2**70, "seed: 1180591620717411303424 is beyond the largest number cclab takes"),
    (("flows", 0, "count"), 10**300, "flows[0].count: 1000000000000000…00000000 (301 characters) is beyond"),
    (("duration",), "1e999s", 'duration: "1e999s" is not a finite duration'),
    (("flows", 0, "tcp"), {"syn": "-5ms"}, 'flows[0].tcp.syn: "-5ms" is not true or false'),
    (("packet_size",), 0.5, 'packet_size: 0.5 has no unit; write "0.5B" (bytes) or "0.5kB"'),
    (("packet_size",), "1.5B", 'packet_size: "1.5B" is not a whole number of bytes'),
    (("topology", "bottleneck", "buffer"), 2**63 - 1, "is above the largest buffer, 4294967295 packets"),
])
def test_values_are_named_as_written(small_scenario, path, value, expected):
    node = small_scenario
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(cclab.ScenarioError) as raised:
        cclab.run(small_scenario)
    message = str(raised.value)
    assert expected in message and "\n" not in message, message
    for word in ("expected f64", "u32", "invalid type", "expected value"):
        assert word not in message


def test_memory_limit_names_the_field_and_can_be_raised(small_scenario):
    small_scenario.update(duration="100s", bin_width="1ms")
    with pytest.raises(cclab.ScenarioError, match=r"^bin_width: 1ms makes 100000 bins for each of 5 flows: the run "
                                                  r"would need about 40.0 MB, above the limit of 10.0 MB "
                                                  r"\(raise max_memory\)$"):
        cclab.run(small_scenario, max_memory="10MB")
    assert parse_memory("16GB") == 16 * 10**9 and parse_memory("512MiB") == 512 * 2**20 and parse_memory(4096) == 4096
    with pytest.raises(cclab.ScenarioError, match="^max_memory: \"lots\" is not a size"):
        parse_memory("lots")


def test_warnings_reach_the_result_and_the_cli(small_scenario, cli, tmp_path):
    small_scenario["flows"][1]["start"] = "10s"
    result = cclab.run(small_scenario)
    assert result.warnings == ["flows[1].start: 10s is not before the end of the run (3s); the group sends nothing"]
    scenario = tmp_path / "late.toml"
    scenario.write_text(cclab.scenario.scenario_toml(small_scenario))
    completed = cli("run", scenario, "--json")
    assert completed.returncode == 0 and completed.stderr.strip() == f"warning: {result.warnings[0]}"


def test_internal_errors_are_ordinary_exceptions():
    assert issubclass(cclab.InternalError, Exception) and issubclass(cclab.InternalError, RuntimeError)
    assert issubclass(cclab.ScenarioError, ValueError)


# ------------------------------------------------------------------ files
def test_odd_scenario_files_are_one_line_errors(cli, tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    assert "not a regular file" in one_line_error(cli("run", fifo))
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nested too deeply" in one_line_error(cli("run", deep))
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)))
    assert "not UTF-8 text" in one_line_error(cli("run", binary))
    assert "is a directory" in one_line_error(cli("run", tmp_path))


@pytest.mark.skipif(os.geteuid() == 0 and not Path("/proc/self").exists(), reason="needs /proc")
def test_outputs_into_unusable_places_are_one_line_errors(cli, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    assert "exists and is not a directory" in one_line_error(cli("run", GRAPH, "--set", "duration=25s", "--out", a_file))
    # (as root every directory looks writable, so /proc may refuse only when written to)
    assert "/proc/cclab-out: " in one_line_error(cli("run", GRAPH, "--set", "duration=25s", "--out", "/proc/cclab-out"))
    plan = tmp_path / "plan.toml"
    plan.write_text(f'[sweep]\nname = "p"\nscenario = "{GRAPH}"\n[set]\nduration = "0.2s"\n')
    assert one_line_error(cli("sweep", plan, "--store", a_file))
    assert one_line_error(cli("sweep", plan, "--store", "/proc/cclab.duckdb"))
    assert one_line_error(cli("report", a_file, "-o", tmp_path / "r"))
    assert one_line_error(cli("export", tmp_path / "missing.duckdb", "-o", tmp_path / "e"))


def test_abandoned_staging_directories_are_removed_by_the_next_save(tmp_path):
    dead = tmp_path / ".cclab-save-999999999-deadbeef.tmp"
    dead.mkdir()
    live = tmp_path / f".cclab-save-{os.getpid()}-cafebabe.tmp"  # a save still running in this process
    live.mkdir()
    cclab.run(SMALL_SCENARIO, duration="0.5s").save(tmp_path / "out")
    assert not dead.exists() and live.exists() and (tmp_path / "out" / "meta.json").exists()


# ------------------------------------------------------------------ sweeps
def test_plan_limits_are_checked_before_anything_is_made(cli, tmp_path):
    base = f'[sweep]\nname = "p"\nscenario = "{GRAPH}"\n'
    cases = {
        '[axes]\n"flows.0.count" = { from = 1, to = 1e11, step = 1 }\n': "is 100000000000 points",
        '[axes]\n"flows.0.count" = { from = 1, to = 2, step = 1e-12 }\n': "is 1000000000001 points",
        '[axes]\n"flows.0.count" = { from = 1, to = inf, step = 1 }\n': "to = inf is not a finite number",
        '[axes]\n"flows.0.count" = { from = 1, to = nan, step = 1 }\n': "to = nan is not a finite number",
        '[axes]\n"flows.3.count" = [1, 2]\n': 'axes."flows.3.count": flows has 3 entries',
    }
    for body, expected in cases.items():
        plan = tmp_path / "plan.toml"
        plan.write_text(base + body)
        started = time.perf_counter()
        assert expected in one_line_error(cli("sweep", plan, "--store", tmp_path / "s.duckdb"))
        assert time.perf_counter() - started < 30
    plan.write_text(base.replace('name = "p"', 'name = "p"\nreplications = 100000000000'))
    assert "sweep.replications: 100000000000 is not a whole number from 1 to 100000" in one_line_error(cli("sweep", plan))
    plan.write_text(base.replace('name = "p"', 'name = "../../escaped"'))
    assert "sweep.name: '../../escaped' may hold only" in one_line_error(cli("sweep", plan))


def _children(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_pool_workers_end_when_the_driver_is_killed(tmp_path):
    plan = tmp_path / "slow.toml"
    plan.write_text(f'[sweep]\nname = "slow"\nscenario = "{REPO / "experiments" / "standard-benchmark.toml"}"\n'
                    'replications = 20\n[set]\nduration = "30s"\n')
    driver = subprocess.Popen([sys.executable, "-m", "cclab", "sweep", str(plan), "--workers", "2", "--no-progress",
                               "--store", str(tmp_path / "s.duckdb")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while len(workers := _children(driver.pid)) < 2 and time.time() < deadline:
            time.sleep(0.2)
        assert len(workers) >= 2, "the pool did not start"
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    deadline = time.time() + 15
    while any(_alive(pid) for pid in workers) and time.time() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers), "orphaned pool workers"


def test_usage_errors_are_one_line(cli, tmp_path):
    assert "No such command 'frobnicate'" in one_line_error(cli("frobnicate"))
    assert "Missing argument 'FILE'" in one_line_error(cli("run"))
    assert "--workers" in one_line_error(cli("sweep", "plan.toml", "--workers", "0"))
    assert "line 1, column 3: Expected '='" in one_line_error(cli("run", REPO / "tests" / "conftest.py"))
    no_duration = tmp_path / "x.toml"
    no_duration.write_text('name = "x"\n')
    assert one_line_error(cli("run", no_duration)) == "error: duration: required, but missing"
