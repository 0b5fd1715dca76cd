"""``cclab report``: a static HTML page, checked by loading it in headless Chromium."""
from __future__ import annotations

import html

import pytest

from cclab.papers.mraimd.figures import FIGURES
from cclab.plots.report import REPORT_METRICS
from conftest import run_cli, small_plan
from headless_chromium import file_url, load_page

needs_chromium = pytest.mark.chromium


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory, small_sweep_store):
    """The report of the small plan's sweep, written by the CLI."""
    out = tmp_path_factory.mktemp("report") / "report"
    completed = run_cli("report", small_sweep_store, "-o", out)
    assert completed.returncode == 0, completed.stderr
    return out


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


@needs_chromium
def test_chromium_check_catches_a_missing_page(tmp_path):
    loaded = load_page(file_url(tmp_path / "no-such-report.html"))
    assert any("no-such-report.html" in error for error in loaded.errors), loaded.errors


# ---------------------------------------------------------------- sweep figures: bounds, ticks, grouping
def test_error_bars_never_leave_the_metrics_range():
    import pandas as pd

    from cclab.plots.report import clipped_error

    mean, low, high = pd.Series([0.98, 0.5]), pd.Series([0.90, -0.2]), pd.Series([1.06, 1.2])
    below, above = clipped_error(mean, low, high, "jain_index")
    assert list(mean + above) == pytest.approx([1.0, 1.0]) and list(mean - below) == pytest.approx([0.90, 0.0])
    below, above = clipped_error(mean, low, high, "goodput_mbps")  # no upper bound
    assert list(mean + above) == pytest.approx([1.06, 1.2]) and list(mean - below) == pytest.approx([0.90, 0.0])


def test_group_by_makes_any_axis_the_lines():
    from cclab.plots.report import figure_layout
    from cclab.runs.plan import load_plan

    plan = load_plan(small_plan())
    present = list(plan.axes)
    x, lines, panels = figure_layout(plan, present)
    assert x == ("flows.1.count",) and lines == [("flows.0.group", "flows.0.cc.beta")] and panels == []
    x, lines, panels = figure_layout(plan, present, group_by="flows.1.count")
    assert x is None and lines == [("flows.1.count",)] and panels == [("flows.0.group", "flows.0.cc.beta")]


def test_group_by_an_unknown_axis_is_a_one_line_error(small_sweep_store, tmp_path):
    completed = run_cli("report", small_sweep_store, "-o", tmp_path / "x",
                        "--group-by", "flows.9.count")
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: --group-by flows.9.count: not an axis of plan 'small'")
    assert not (tmp_path / "x").exists()


def test_group_by_redraws_the_figures(report_dir, small_sweep_store, tmp_path):
    completed = run_cli("report", small_sweep_store, "-o", tmp_path / "grouped",
                        "--group-by", "flows.1.count")
    assert completed.returncode == 0, completed.stderr
    default = (report_dir / "small-goodput_mbps.svg").read_text()
    grouped = (tmp_path / "grouped" / "small-goodput_mbps.svg").read_text()
    assert default != grouped and "flows.1.count=3" not in default  # legend entries name the grouping axis


# ---------------------------------------------------------------- paper reproductions
@pytest.fixture
def paper_report(mraimd_quick):
    out, stdout = mraimd_quick
    assert f"{out / 'report.html'}" in stdout
    return out


def test_paper_report_has_figures_claims_scenarios_and_provenance(paper_report):
    import json

    page = html.unescape((paper_report / "report.html").read_text())
    meta = json.loads((paper_report / "meta.json").read_text())
    for stem in (figure.stem for figure in FIGURES.values()):
        assert f'<img src="{stem}.png"' in page and f'href="scenarios/{stem}.toml"' in page
        assert f'href="{stem}.csv"' in page
    verdicts = [verdict for figure in meta["figures"].values() for verdict in figure["verdicts"]]
    assert page.count('<td class="verdict') == len(verdicts) > 0
    for expected in ("Provenance", "git commit", "results store", "cclab reproduce mraimd --quick", "Psaras",
                     "Table 1:", "Figure 7:", "[[flows]]"):
        assert expected in page, expected


@needs_chromium
def test_paper_report_renders_in_chromium_without_errors(paper_report):
    loaded = load_page(file_url(paper_report / "report.html"))
    assert loaded.title == "cclab reproduction: mraimd"
    assert len(loaded.images) == len(FIGURES) and all(image["loaded"] for image in loaded.images), loaded.images
    assert loaded.tables == 1 + len(FIGURES)  # provenance, one claims table per figure
    assert loaded.errors == []
