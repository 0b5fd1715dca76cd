"""Shared fixtures: the repository's scenarios, a small fast scenario, and a CLI runner."""
from __future__ import annotations

import collections
import copy
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
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


def pytest_collection_finish(session):
    for item in session.items:
        for kind in EXTERNAL:
            if item.get_closest_marker(kind):
                _external_runs["collected"][kind] += 1


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed:
        for kind in EXTERNAL:
            if kind in report.keywords:
                _external_runs["passed"][kind] += 1


def _narrowed(config) -> bool:
    """Was this session asked for a subset (-k, -m, single files or tests)?"""
    return bool(config.option.keyword or config.option.markexpr
                or any(arg.endswith(".py") or "::" in arg for arg in config.args))


def pytest_sessionfinish(session, exitstatus):
    if not IN_CI:
        return
    whole_suite = not _narrowed(session.config)
    silent = [kind for kind in EXTERNAL if not _external_runs["passed"][kind]
              and (_external_runs["collected"][kind] or whole_suite)]
    if silent and session.exitstatus == 0:
        session.exitstatus = 1
    for kind in silent:
        print(f"\nCI: no {kind} test passed ({_external_runs['collected'][kind]} collected): "
              "CI must run its external references")
