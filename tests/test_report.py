"""``cclab report``: a static HTML page, checked by loading it in headless Chromium."""
from __future__ import annotations

import html

import pytest

from cclab.plots.report import REPORT_METRICS
from cclab.runs.runner import run_plan
from conftest import run_cli
from headless_chromium import chromium_binary, file_url, load_page
from test_sweep import small_plan

needs_chromium = pytest.mark.skipif(chromium_binary() is None,
                                    reason="chromium is not installed (apt-get install chromium; .ci/run does)")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """The report of the small plan's sweep, written by the CLI."""
    base = tmp_path_factory.mktemp("report")
    run_plan(small_plan(), store=base / "small.duckdb", jobs=2)
    completed = run_cli("report", base / "small.duckdb", "-o", base / "report")
    assert completed.returncode == 0, completed.stderr
    return base / "report"


def test_report_has_figures_tables_scenario_and_provenance(report_dir):
    page = html.unescape((report_dir / "index.html").read_text())
    figures = sorted(path.name for path in report_dir.glob("*.svg"))
    assert figures == sorted(f"small-{metric}.svg" for metric in REPORT_METRICS)
    for figure in figures:
        assert f'<img src="{figure}"' in page
    for expected in ("Provenance", "git commit", "Mean ± 95 % confidence half-width", "[sweep]",
                     'name = "small"', "Scenario of the first run", "smooth", "halving"):
        assert expected in page
    assert page.count("<tr>") > 6  # 6 points + provenance rows


@needs_chromium
def test_report_renders_in_chromium_without_errors(report_dir):
    loaded = load_page(file_url(report_dir / "index.html"))
    assert loaded.title == "cclab sweep report: small.duckdb"
    assert len(loaded.images) == len(REPORT_METRICS) and all(image["loaded"] for image in loaded.images), loaded.images
    assert loaded.tables == 2 and loaded.text_length > 1000
    assert loaded.errors == []


@needs_chromium
def test_chromium_check_catches_a_missing_figure(report_dir, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    for path in report_dir.iterdir():
        if path.name != "small-jain_index.svg":
            (broken / path.name).write_bytes(path.read_bytes())
    loaded = load_page(file_url(broken / "index.html"))
    assert [image["src"] for image in loaded.images if not image["loaded"]] == ["small-jain_index.svg"]
    assert any("small-jain_index.svg" in error for error in loaded.errors)
