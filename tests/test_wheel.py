"""`pip install .` as a user without the source tree gets it: pip builds a wheel (maturin,
release profile), the wheel installs into a fresh virtual environment with its
dependencies, and cclab runs a scenario there from a directory outside the clone, importing
nothing from the source tree.

The build reuses the Rust artefacts of `make setup` (the same crate, profile and
features), so on a set-up clone it takes seconds to a minute; the fresh environment's
dependencies come from pip's cache after the first time.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

SCENARIO = """\
name = "from-the-wheel"
duration = "2s"

[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "10ms" }
source_access = { rate = "100Mbps", delay = "1ms" }
sink_access = { rate = "100Mbps", delay = "1ms" }

[[flows]]
count = 2
cc = "cubic"
"""


def _run(command: list, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", dist, REPO], cwd=dist)
    wheels = list(dist.glob("cclab-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_works_outside_the_source_tree(wheel: Path, tmp_path: Path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    python = venv / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", wheel], cwd=tmp_path)
    _run([python, "-m", "pip", "check"], cwd=tmp_path)

    where = _run([python, "-c", "import cclab, cclab._core; print(cclab.__file__); print(cclab._core.__file__)"],
                 cwd=tmp_path).stdout.split()
    for path in where:
        assert Path(path).resolve().is_relative_to(venv.resolve()), f"{path} is not from the installed wheel"

    (tmp_path / "scenario.toml").write_text(SCENARIO)
    result = json.loads(_run([venv / "bin" / "cclab", "run", "scenario.toml", "--json"], cwd=tmp_path).stdout)
    assert result["system"]["goodput_mbps"] > 5
    assert [g["cc"] for g in result["groups"]] == ["cubic"]
    # the Python API and the result tables (pandas, pyarrow) work there too
    _run([python, "-c", "import cclab; r = cclab.run('scenario.toml'); r.save('out'); "
          "assert len(r.flows) == 2 and (r.flows.goodput_mbps > 0).all()"], cwd=tmp_path)
    assert (tmp_path / "out" / "flows.parquet").is_file()
