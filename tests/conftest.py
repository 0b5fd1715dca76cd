"""Shared fixtures: the repository's scenarios, a small fast scenario, a CLI runner, and
what several test files read (the small sweep's store, mraimd's quick reproduction).

``make test`` runs pytest on every core (pytest-xdist, ``--dist loadfile``): the tests of
one module run in one worker, so that its module fixtures and caches are made once; what
several modules read is made once per session by whichever worker asks first
(:func:`once_per_session`)."""
from __future__ import annotations

import collections
import copy
import fcntl
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=None)
def bench_ns2_module(stem: str):
    """A script of bench/ns2 (the ns-2.35 cross-check drivers) imported as a module."""
    path = REPO / "bench" / "ns2" / f"{stem}.py"  # a missing one: FileNotFoundError on loading
    spec = importlib.util.spec_from_file_location(stem, path)
    assert spec is not None and spec.loader is not None, f"{path}: not importable"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
EXAMPLE = REPO / "experiments" / "static-wired.toml"

# A few flows on a 10 Mb/s dumbbell for 3 s: runs in milliseconds, still has losses.
SMALL_SCENARIO = {
    "name": "small",
    "duration": "3s",
    "seed": 7,
    "packet_size": "1000B",
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {"rate": "10Mbps", "delay": "25ms", "queue": "droptail", "buffer": "1bdp"},
        "source_access": {"rate": "10Mbps", "delay": "5ms"},
        "sink_access": {"rate": "10Mbps", "delay": "5ms"},
    },
    "flows": [
        {"group": "smooth", "count": 3, "cc": {"algorithm": "aimd", "alpha": 0.31, "beta": 0.875},
         "start": {"stagger": "1s"}},
        {"group": "standard", "count": 2, "cc": "reno"},
    ],
}


@pytest.fixture
def small_scenario() -> dict:
    return copy.deepcopy(SMALL_SCENARIO)


@pytest.fixture(scope="session")
def small_result():
    """SMALL_SCENARIO's result, shared by tests that only read it."""
    import cclab

    result = cclab.run(SMALL_SCENARIO)
    # What the tests sharing it rely on: every flow delivers, and the queue drops some.
    assert (result.flows["goodput_mbps"] > 0).all()
    assert result.system["bottleneck_drops"] > 0
    return result


@pytest.fixture
def example_file() -> Path:
    assert EXAMPLE.is_file(), f"{EXAMPLE}: the example scenario is missing"
    return EXAMPLE


def once_per_session(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name`` that ``make(folder)`` fills once per test session: under
    pytest-xdist the first worker to ask makes it, in the session's folder above every
    worker's, while the others wait on its lock, then read it."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".made").exists():
            shutil.rmtree(folder, ignore_errors=True)  # (what a failed attempt left)
            folder.mkdir()
            make(folder)
            (folder / ".made").touch()
    return folder


def small_plan(name: str = "small", counts=(1, 2, 3), replications: int = 2, **set_values) -> dict:
    """3 counts × 2 β (zipped with the group name) × ``replications`` runs of a few-flow dumbbell."""
    return {"sweep": {"name": name, "replications": replications, "zip": [["flows.0.group", "flows.0.cc.beta"]]},
            "scenario": copy.deepcopy(SMALL_SCENARIO), "set": set_values,
            "axes": {"flows.1.count": list(counts), "flows.0.group": ["smooth", "halving"],
                     "flows.0.cc.beta": [0.875, 0.5]}}


@pytest.fixture(scope="session")
def small_sweep_store(tmp_path_factory) -> Path:
    """The small plan swept on a local process pool of 2 workers (read only: copy it to
    change it)."""
    def sweep(folder: Path) -> None:
        from cclab.runs.runner import run_plan

        outcome = run_plan(small_plan(), store=folder / "small.duckdb", jobs=2)
        assert (outcome.total, outcome.succeeded, outcome.failed, outcome.skipped) == (12, 12, 0, 0)

    return once_per_session(tmp_path_factory, "small-sweep", sweep) / "small.duckdb"


@pytest.fixture(scope="session")
def mraimd_quick(tmp_path_factory) -> tuple[Path, str]:
    """``cclab reproduce mraimd --quick --report``: its output folder and standard output."""
    def reproduce(folder: Path) -> None:
        done = run_cli("reproduce", "mraimd", "--quick", "--report", "--out", folder / "out")
        assert done.returncode == 0, done.stderr
        (folder / "stdout.txt").write_text(done.stdout)

    folder = once_per_session(tmp_path_factory, "mraimd-quick", reproduce)
    return folder / "out", (folder / "stdout.txt").read_text()


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``cclab ARGS`` in a fresh interpreter, as a user would run it."""
    return subprocess.run([sys.executable, "-m", "cclab", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


@pytest.fixture
def cli():
    return run_cli


# ---------------------------------------------------------------- external references
# Tests marked ns2 (cross-checks against ns-2.35), chromium (report pages loaded in a
# browser), tcpdump or tcptrace (pcap files read by them) need those programs. Off CI a missing one skips its tests. Under CI
# (CI=true; .ci/run sets it and installs both, failing if it cannot) nothing is skipped,
# and the session fails unless tests of each kind were collected and passed, so CI can
# never pass without its external references.
IN_CI = os.environ.get("CI", "").lower() == "true"
EXTERNAL = {"ns2": ("ns",), "chromium": ("chromium", "chromium-browser", "google-chrome"),
            "tcpdump": ("tcpdump",), "tcptrace": ("tcptrace",)}
_external_runs: dict[str, collections.Counter] = {"collected": collections.Counter(), "passed": collections.Counter()}


def external_available(kind: str) -> bool:
    return any(shutil.which(binary) for binary in EXTERNAL[kind])


def pytest_configure(config):
    config.addinivalue_line("markers", "ns2: cross-checks that run ns-2.35 (`ns`)")
    config.addinivalue_line("markers", "chromium: tests that load a page in headless Chromium")
    config.addinivalue_line("markers", "tcpdump: tests that read a written pcap file with tcpdump")
    config.addinivalue_line("markers", "tcptrace: tests that analyse a written pcap file with tcptrace")


def pytest_collection_modifyitems(config, items):
    for item in items:
        for kind in EXTERNAL:
            if item.get_closest_marker(kind) and not external_available(kind) and not IN_CI:
                item.add_marker(pytest.mark.skip(reason=f"{kind} is not installed (.ci/run installs it)"))


def pytest_runtest_logreport(report):
    # Counted from the reports (a test skipped at collection has one too), which under
    # pytest-xdist reach the controller from every worker: it judges the whole session.
    for kind in EXTERNAL:
        if kind in report.keywords:
            if report.when == "setup":
                _external_runs["collected"][kind] += 1
            elif report.when == "call" and report.passed:
                _external_runs["passed"][kind] += 1


def _narrowed(config) -> bool:
    """Was this session asked for a subset (-k, -m, single files or tests)?"""
    return bool(config.option.keyword or config.option.markexpr
                or any(arg.endswith(".py") or "::" in arg for arg in config.args))


def pytest_sessionfinish(session, exitstatus):
    if not IN_CI or hasattr(session.config, "workerinput"):  # (an xdist worker: the controller judges)
        return
    whole_suite = not _narrowed(session.config)
    silent = [kind for kind in EXTERNAL if not _external_runs["passed"][kind]
              and (_external_runs["collected"][kind] or whole_suite)]
    if silent and session.exitstatus == 0:
        session.exitstatus = 1
    for kind in silent:
        print(f"\nCI: no {kind} test passed ({_external_runs['collected'][kind]} collected): "
              "CI must run its external references")
