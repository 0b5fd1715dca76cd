"""The CI guard in conftest.py: under CI=true a test that needs ns-2 is never skipped,
and a session in which no such test passed fails."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

NEEDS_NS2 = '''
import shutil
import subprocess
import pytest

@pytest.mark.ns2
def test_runs_ns():
    assert subprocess.run([shutil.which("ns") or "ns", "-h"], capture_output=True).returncode is not None
'''


def run_suite(tmp_path: Path, ci: bool, with_ns: bool, test_text: str = NEEDS_NS2) -> subprocess.CompletedProcess:
    """pytest on one test file beside a copy of our conftest.py (a narrowed session: only
    the kinds of test it holds are required)."""
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text())
    (tmp_path / "test_external.py").write_text(test_text)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if with_ns:  # a stand-in `ns` on PATH
        fake = bin_dir / "ns"
        fake.write_text("#!/bin/sh\nexit 0\n")
        fake.chmod(0o755)
    environment = {key: value for key, value in os.environ.items() if key != "CI"}
    environment["PATH"] = f"{bin_dir}:/usr/bin:/bin" if with_ns else str(bin_dir)
    if ci:
        environment["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path / "test_external.py")],
                          capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=120)


def test_off_ci_a_missing_ns2_skips(tmp_path):
    completed = run_suite(tmp_path, ci=False, with_ns=False)
    assert completed.returncode == 0, completed.stdout
    assert "1 skipped" in completed.stdout


def test_under_ci_a_missing_ns2_fails(tmp_path):
    completed = run_suite(tmp_path, ci=True, with_ns=False)
    assert completed.returncode == 1, completed.stdout
    assert "1 failed" in completed.stdout


def test_under_ci_ns2_present_passes(tmp_path):
    completed = run_suite(tmp_path, ci=True, with_ns=True)
    assert completed.returncode == 0, completed.stdout
    assert "1 passed" in completed.stdout


def test_under_ci_a_session_without_a_passing_ns2_test_fails(tmp_path):
    skipped_by_hand = NEEDS_NS2.replace("@pytest.mark.ns2", "@pytest.mark.ns2\n@pytest.mark.skip(reason='by hand')")
    completed = run_suite(tmp_path, ci=True, with_ns=True, test_text=skipped_by_hand)
    assert completed.returncode == 1, completed.stdout
    assert "CI: no ns2 test passed (1 collected)" in completed.stdout


def test_ci_has_its_external_references():
    if os.environ.get("CI", "").lower() != "true":
        pytest.skip("only under CI=true (.ci/run)")
    assert shutil.which("ns") and any(shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome"))


def test_bench_ns2_module_loads_each_driver_once():
    from conftest import bench_ns2_module

    slowcc = bench_ns2_module("slowcc_ns2")
    assert slowcc is bench_ns2_module("slowcc_ns2")  # cached: one import per session
    assert callable(slowcc.run_fig13) and callable(slowcc.run_cclab)
    # The driver's cclab side builds the Fig. 13 scenario it documents.
    scenario = slowcc.cclab_scenario("tfrc", 3, intervals=6, discount=0)
    assert scenario["seed"] == 3 and scenario["flows"][1]["stop"] == "500s"
    assert scenario["flows"][0]["tfrc"] == {"profile": "ns2", "intervals": 6, "discounting": False}
    with pytest.raises(FileNotFoundError):
        bench_ns2_module("no_such_driver")
