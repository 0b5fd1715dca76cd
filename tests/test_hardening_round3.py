"""Issue 41 (hardening, round 3): every case the independent harness found gives one
line naming the field or file, the value and what is allowed (exit 2; ScenarioError in
the API), or runs correctly; no user file is ever removed; memory stays under
``--max-memory`` when short flows pile up."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cclab
import cclab.cc
from cclab.store import directory as store
from conftest import REPO, SMALL_SCENARIO

DUMBBELL = """name = "r3"
duration = "{duration}"
{top}
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "{rate}", delay = "10ms", buffer = "1bdp" }}
source_access = {{ rate = "10Gbps", delay = "1ms" }}
sink_access = {{ rate = "10Gbps", delay = "1ms" }}

[[flows]]
{flow}
"""


def scenario_file(folder: Path, flow: str = 'cc = "reno"', duration: str = "0.5s", rate: str = "10Mbps",
                  top: str = "", name: str = "s.toml") -> Path:
    path = folder / name
    path.write_text(DUMBBELL.format(duration=duration, rate=rate, flow=flow, top=top))
    return path


def one_line_error(completed: subprocess.CompletedProcess, code: int = 2) -> str:
    assert completed.returncode == code, (completed.returncode, completed.stderr[-2000:])
    lines = [line for line in completed.stderr.splitlines() if line.strip() and not line.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr[-2000:]
    assert "Traceback" not in completed.stderr
    return lines[0]


def tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ 1. no user file is removed
def test_a_project_folder_is_never_replaced_by_run_out_or_result_save(cli, tmp_path):
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    (project / "meta.json").write_text('{"cclab_version": "0.1.0"}')  # even one that names cclab
    (project / "result.json").write_text("{}")
    (project / "thesis.tex").write_text("precious")
    (project / "data" / "raw.csv").write_text("1,2")
    before = tree(project)
    message = one_line_error(cli("run", scenario_file(tmp_path), "--out", project))
    assert "not a cclab result directory" in message and "thesis.tex" in message
    with pytest.raises(store.StoreError, match="not a cclab result directory"):
        cclab.run(SMALL_SCENARIO, duration="0.2s").save(project)
    assert tree(project) == before


def test_a_result_folder_the_user_added_to_is_refused_naming_the_addition(cli, tmp_path):
    out = tmp_path / "out"
    assert cli("run", scenario_file(tmp_path), "--out", out).returncode == 0
    (out / "my-notes.md").write_text("mine")
    message = one_line_error(cli("run", scenario_file(tmp_path), "--out", out))
    assert "holds what cclab did not write there (my-notes.md)" in message
    assert (out / "my-notes.md").read_text() == "mine"


def test_out_dot_in_an_empty_folder_saves_there(cli, tmp_path):
    here = tmp_path / "here"
    here.mkdir()
    completed = cli("run", scenario_file(tmp_path), "--out", ".", cwd=here)
    assert completed.returncode == 0, completed.stderr
    assert cclab.Result.load(here).system["goodput_mbps"] > 0


def test_a_240_character_out_saves_and_a_256_byte_one_is_refused_before_the_run(cli, tmp_path):
    long_name = tmp_path / ("r" * 240)
    completed = cli("run", scenario_file(tmp_path), "--out", long_name)
    assert completed.returncode == 0, completed.stderr
    assert cclab.Result.load(long_name).system["goodput_mbps"] > 0
    started = time.monotonic()
    message = one_line_error(cli("run", scenario_file(tmp_path, duration="1000s"), "--out", tmp_path / ("ü" * 128)))
    assert "a folder name of 256 bytes; file names are at most 255" in message
    assert time.monotonic() - started < 30, "refused before the (long) run"


# ------------------------------------------------------------------ 2. memory
def test_tiny_flows_piling_up_stop_at_the_memory_limit_with_a_warning_first(tmp_path):
    flow = 'cc = "reno"\narrivals = { kind = "poisson", load = 0.9, sizes = { kind = "fixed", size = "1B" } }'
    path = scenario_file(tmp_path, flow, duration="10s", rate="1Gbps")
    # The peak is measured by a small launcher: a process forked from this (large) test
    # process would start from its peak (Linux keeps a process's peak across exec).
    launcher = ("import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL); "
                "_, status, usage = os.wait4(p.pid, 0); print(usage.ru_maxrss); "
                "sys.exit(os.waitstatus_to_exitcode(status))")
    completed = subprocess.run([sys.executable, "-c", launcher, sys.executable, "-m", "cclab", "run", str(path),
                                "--json", "--max-memory", "100MiB"], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("warning: flows[0].arrivals: load 0.9 counts payload only")
    assert "the wire load is at least 972 times the route's capacity" in lines[0]
    assert lines[1].startswith("error: flows[0].arrivals: ") and "memory limit of 105 MB" in lines[1]
    assert lines[1].endswith("(raise --max-memory)")
    peak = int(completed.stdout) * 1024  # (kilobytes on Linux)
    assert peak < 100 * 2**20, f"peak resident memory {peak / 2**20:.0f} MiB"


def test_the_api_names_its_own_memory_limit_and_no_arrival_is_a_warning():
    scenario = json.loads(json.dumps(SMALL_SCENARIO))
    scenario["flows"] = [{"cc": "reno", "arrivals": {"kind": "poisson", "load": 0.9,
                                                     "sizes": {"kind": "fixed", "size": "1B"}}}]
    with pytest.raises(cclab.ScenarioError, match=r"^flows\[0\].arrivals: .* \(raise max_memory\)$"):
        cclab.run(scenario, max_memory="50MB")
    scenario["flows"][0]["arrivals"]["sizes"]["size"] = "1TB"
    result = cclab.run(scenario, duration="1s")
    assert result.system["goodput_mbps"] == 0
    assert any(w.startswith("flows[0].arrivals: no flow arrived during the run") for w in result.warnings)


def test_a_moderate_load_of_large_flows_gets_no_wire_load_warning():
    scenario = json.loads(json.dumps(SMALL_SCENARIO))
    scenario["flows"] = [{"cc": "reno", "arrivals": {"kind": "poisson", "load": 0.5,
                                                     "sizes": {"kind": "fixed", "size": "100KB"}}}]
    assert not [w for w in cclab.scenario_warnings(scenario) if "wire load" in w]


# ------------------------------------------------------------------ 3. files a scenario names
CDF_FLOW = 'cc = "reno"\narrivals = { kind = "poisson", load = 0.3, sizes = { kind = "cdf", file = "sizes.csv" } }'


@pytest.mark.parametrize("content, expected", [
    ("size,p\n1000,0.5\ninf,1\n", "sizes.csv line 3: size 'inf' is not a whole number of bytes >= 0"),
    ("1000,0.5\n1e400,1\n", "sizes.csv line 2: size '1e400' is not a whole number of bytes >= 0"),
    ("# comment\n1000,0.5\n900,1\n", "sizes.csv line 3: sizes and probabilities must not decrease"),
    ("1000,0.5\n2000,nan\n", "sizes.csv line 2: probability 'nan' is outside [0, 1]"),
    ("1000,0.5\n2000,1.5\n", "sizes.csv line 2: probability 1.5 is outside [0, 1]"),
    ("1000,0.5\n2000,0.9\n", "sizes.csv: the last probability is 0.9; it must be 1"),
    ("1000,0.5\n2000000000000000,1\n", 'sizes.csv line 2: "2000000000000000B" is outside 1B to 1TB'),
    ("1,2,3\n", "sizes.csv line 1: expected size_bytes,cumulative_probability"),
    ("1," + "9" * 200_000 + "\n", "sizes.csv line 1: 200002 characters; a data line is at most 1000"),
    ("", "sizes.csv: has no size_bytes,cumulative_probability rows"),
])
def test_bad_cdf_files_name_the_file_and_line(cli, tmp_path, content, expected):
    (tmp_path / "sizes.csv").write_text(content)
    message = one_line_error(cli("run", scenario_file(tmp_path, CDF_FLOW)))
    assert message == f"error: flows[0].arrivals.sizes.file: {expected}" or \
        message.startswith(f"error: flows[0].arrivals.sizes.file: {expected}"), message
    with pytest.raises(cclab.ScenarioError, match=r"^flows\[0\]\.arrivals\.sizes\.file: sizes\.csv"):
        cclab.run(tmp_path / "s.toml")


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom", "directory", "large"])
def test_odd_cdf_files_are_refused_without_reading_them(cli, tmp_path, kind):
    target = tmp_path / "sizes.csv"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    elif kind == "large":
        with open(target, "wb") as file:
            file.truncate(65 << 20)
    else:
        target.symlink_to(kind)
    completed = cli("run", scenario_file(tmp_path, CDF_FLOW))
    message = one_line_error(completed)
    assert message.startswith("error: flows[0].arrivals.sizes.file: "), message
    expected = {"directory": "is a directory", "large": "more than the 67108864 bytes"}.get(kind, "not a regular file")
    assert expected in message


# ------------------------------------------------------------------ 4. damaged stores
@pytest.fixture(scope="module")
def sweep_store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("store")
    scenario_file(folder, duration="0.2s")
    plan = folder / "plan.toml"
    plan.write_text('[sweep]\nname = "p"\nscenario = "s.toml"\n[axes]\n"flows.0.count" = [1, 2]\n')
    completed = subprocess.run([sys.executable, "-m", "cclab", "sweep", str(plan), "--store", str(folder / "st.duckdb"),
                                "--workers", "1"], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    return folder / "st.duckdb"


def _damaged_copy(original: Path, folder: Path, how: str) -> Path:
    copy = folder / "d.duckdb"
    shutil.copy(original, copy)
    shutil.copytree(original.with_name(original.name + ".parts"), folder / "d.duckdb.parts")
    if how == "truncated catalog":
        os.truncate(copy, 1000)
    elif how == "zeroed catalog":
        copy.write_bytes(bytes(copy.stat().st_size))
    else:
        table = how.split()[-2]  # "truncated flows part", "garbage runs part"
        part = sorted((folder / "d.duckdb.parts" / table).glob("*.parquet"))[0]
        if how.startswith("truncated"):
            os.truncate(part, 100)
        else:
            part.write_bytes(os.urandom(5000))
    return copy


DAMAGE = ["truncated catalog", "zeroed catalog", "truncated flows part", "garbage runs part", "garbage results part"]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_store_is_one_line_from_report_export_and_reproduce(cli, sweep_store, tmp_path, how):
    damaged = _damaged_copy(sweep_store, tmp_path, how)
    for command in (["report", damaged, "-o", tmp_path / "r"], ["export", damaged, "-o", tmp_path / "e"],
                    ["reproduce", "mraimd", "--quick", "--from-store", damaged, "--out", tmp_path / "m"]):
        message = one_line_error(cli(*command))
        assert "d.duckdb" in message, message
        if "part" in how:
            assert "damaged (not a whole Parquet file)" in message


def test_a_sweep_resumed_on_a_damaged_part_runs_its_runs_again(cli, sweep_store, tmp_path):
    damaged = _damaged_copy(sweep_store, tmp_path, "garbage runs part")
    plan = sweep_store.parent / "plan.toml"
    completed = cli("sweep", plan, "--store", damaged, "--workers", "1")
    assert completed.returncode == 0, completed.stderr
    assert "1 already stored, 1 ran" in completed.stdout + completed.stderr
    with cclab.SweepStore(damaged, read_only=True) as results:
        assert len(results.runs()) == 2


def test_an_unrelated_duckdb_database_is_not_taken_as_a_store(cli, sweep_store, tmp_path):
    import duckdb

    other = tmp_path / "mine.duckdb"
    connection = duckdb.connect(str(other))
    connection.execute("CREATE TABLE experiments (x INTEGER)")
    connection.close()
    before = other.read_bytes()
    message = one_line_error(cli("sweep", sweep_store.parent / "plan.toml", "--store", other))
    assert "a DuckDB database that is not a cclab results store (it holds experiments)" in message
    assert other.read_bytes() == before and not (tmp_path / "mine.duckdb.parts").exists()


# ------------------------------------------------------------------ 5. refused before the run
def test_trace_link_names_are_checked_by_validate(cli, tmp_path):
    for field in ("links", "pcap"):
        path = scenario_file(tmp_path)
        path.write_text(path.read_text() + f'\n[trace]\n{field} = ["r1-r2", "bottleneck"]\n')
        message = one_line_error(cli("validate", path))
        assert message.startswith(f'error: trace.{field}[1]: no link direction is named "bottleneck"'), message
        with pytest.raises(cclab.ScenarioError, match=rf"^trace\.{field}\[1\]: "):
            cclab.validate(path)


def test_long_unicode_link_names_make_usable_capture_files(tmp_path):
    name = "リンク" * 60  # 540 bytes of UTF-8
    scenario = {"name": "pcap", "duration": "0.3s",
                "topology": {"kind": "graph", "links": [
                    {"from": "a", "to": "b", "rate": "10Mbps", "delay": "5ms", "buffer": 50, "name": name}]},
                "flows": [{"from": "a", "to": "b", "cc": "reno"}],
                "trace": {"pcap": [name]}}
    out = cclab.run(scenario).save(tmp_path / "out")
    files = list((out / "pcap").iterdir())
    assert len(files) == 1 and len(os.fsencode(files[0].name)) <= 255 and files[0].stat().st_size > 24


# ------------------------------------------------------------------ 6. silently odd
def test_pcap_of_packets_no_header_fits_is_a_warning(cli, tmp_path):
    scenario = json.loads(json.dumps(SMALL_SCENARIO))
    scenario.update(header_size="0B", packet_size="1B", trace={"pcap": ["r1-r2"]})
    warnings = cclab.scenario_warnings(scenario)
    assert any("data packets of 1 bytes on the wire are shorter than the 40 bytes" in w and "truncated-ip" in w
               for w in warnings), warnings
    scenario.update(header_size="40B", packet_size="100000B")
    assert any("data packets of 100040 bytes are longer than an IPv4 packet can be (65535 bytes)" in w
               for w in cclab.scenario_warnings(scenario))


class Mine(cclab.cc.CongestionControl):
    pass


def test_a_class_goes_with_algorithm_python_and_no_path():
    with pytest.raises(cclab.ScenarioError, match=r'^flows\.0\.cc\.class: Mine is a Python class, but algorithm is "reno"'):
        cclab.run(SMALL_SCENARIO, **{"flows.0.cc": {"algorithm": "reno", "class": Mine}})
    with pytest.raises(cclab.ScenarioError, match=r"^flows\.0\.cc\.path: give either a class object or a file"):
        cclab.run(SMALL_SCENARIO, **{"flows.0.cc": {"algorithm": "python", "class": Mine, "path": "x.py"}})
    scenario = json.loads(json.dumps(SMALL_SCENARIO))
    scenario["flows"][0]["cc"] = {"class": Mine, "path": "x.py"}
    with pytest.raises(cclab.ScenarioError, match=r"^flows\[0\]\.cc\.path: "):
        cclab.run(scenario)


def test_run_many_takes_a_class_as_run_does():
    scenario = json.loads(json.dumps(SMALL_SCENARIO))
    scenario["duration"] = "0.5s"
    scenario["flows"][0]["cc"] = Mine
    alone = cclab.run(scenario)
    for jobs in (1, 2):
        [many] = cclab.run_many([scenario], jobs=jobs)
        assert many.flows["cc"].tolist() == alone.flows["cc"].tolist()
        assert many.system["goodput_mbps"] == alone.system["goodput_mbps"]


# ------------------------------------------------------------------ 7. messages
CONTROLLERS = """
import sys, time
import cclab.cc

class Exits(cclab.cc.CongestionControl):
    def __init__(self):
        sys.exit(0)

class Interrupted(cclab.cc.CongestionControl):
    def __init__(self):
        raise KeyboardInterrupt
"""


def _python_cc(folder: Path, path: str, name: str) -> Path:
    return scenario_file(folder, f'cc = {{ algorithm = "python", path = "{path}", class = "{name}" }}')


def test_sys_exit_in_a_controllers_constructor_is_named(cli, tmp_path):
    (tmp_path / "m.py").write_text(CONTROLLERS)
    message = one_line_error(cli("run", _python_cc(tmp_path, "m.py", "Exits")))
    assert message == "error: flows[0].cc.params: Exits(**{}) raised SystemExit: 0"


def test_keyboard_interrupt_while_making_a_controller_is_an_interruption(cli, tmp_path):
    (tmp_path / "m.py").write_text(CONTROLLERS)
    (tmp_path / "imports.py").write_text("raise KeyboardInterrupt\n")
    for path, name in (("m.py", "Interrupted"), ("imports.py", "A")):
        completed = cli("run", _python_cc(tmp_path, path, name))
        assert completed.returncode == 130 and completed.stderr == "interrupted\n", completed.stderr


def test_ctrl_c_during_a_slow_import_exits_130(tmp_path):
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-m", "cclab", "run", str(_python_cc(tmp_path, "slow.py", "A"))],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # (the import is sleeping by then)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and stderr == "interrupted\n", stderr
