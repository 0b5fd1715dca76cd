"""Shared fixtures: the repository's scenarios, a small fast scenario, and a CLI runner."""
from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "experiments" / "static-wired.toml"

# A few flows on a 10 Mb/s dumbbell for 3 s: runs in milliseconds, still has losses.
SMALL_SCENARIO = {
    "name": "small",
    "duration": "3s",
    "seed": 7,
    "packet_size": 1000,
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

    return cclab.run(SMALL_SCENARIO)


@pytest.fixture
def example_file() -> Path:
    return EXAMPLE


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``cclab ARGS`` in a fresh interpreter, as a user would run it."""
    return subprocess.run([sys.executable, "-m", "cclab", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


@pytest.fixture
def cli():
    return run_cli
