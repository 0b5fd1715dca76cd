"""The one pipeline behind every ``cclab reproduce PAPER`` and ``cclab.run_many``: runs go
through the results store, a killed reproduction resumes, ``--from-store`` redraws
without simulating, Dask gives the same figures, failures are captured per run."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import cclab
from cclab.runs.runner import RunFailed, RunFailure, run_many
from cclab.store.sweeps import SweepStore

# Figure 2 at quick sizes with one seed: 4 protocols × 4 flow counts = 16 runs of 30 s at 10 Mb/s.
FIGURE_2 = ["reproduce", "zhang2002", "--quick", "--figure", "2", "--seeds", "1"]
RUNS = 16


def cclab_command(*arguments) -> list[str]:
    return [sys.executable, "-m", "cclab", *map(str, arguments)]


def simulated_lines(stderr: str) -> list[str]:
    return re.findall(r"^\[\d+/\d+\] ok run=(\w+)", stderr, re.M)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("clean") / "out"
    completed = subprocess.run(cclab_command(*FIGURE_2, "--out", out, "--jobs", "2"), capture_output=True, text=True,
                               timeout=600)
    assert completed.returncode == 0, completed.stderr
    assert len(simulated_lines(completed.stderr)) == RUNS
    assert f"{RUNS} of {RUNS} runs simulated" in completed.stdout
    return out


def test_store_holds_every_run_and_its_whole_result(uninterrupted):
    with SweepStore(uninterrupted / "runs.duckdb", read_only=True) as store:
        runs = store.runs()
        plans = store.plans()
        assert len(runs) == RUNS and (runs["status"] == "ok").all() and runs["run_id"].is_unique
        assert list(plans["kind"]) == ["reproduction"] and list(plans["name"]) == ["zhang2002-quick"]
        assert set(runs["figure"]) == {"2"} and set(runs["flows"]) == {10, 30, 60, 100}
        row = runs.iloc[0]
        stored = store.result(row["run_id"])
    again = cclab.run(_toml(row["scenario_toml"]))
    without_wall = lambda raw: {key: value for key, value in raw.items() if key != "wall_time_s"}
    assert without_wall(stored.raw) == without_wall(again.raw)
    assert stored.system["goodput_mbps"] == row["goodput_mbps"]


def _toml(text: str) -> dict:
    import tomllib

    return tomllib.loads(text)


def test_killed_reproduction_resumes_and_recomputes_nothing_stored(uninterrupted, tmp_path):
    out = tmp_path / "out"
    driver = subprocess.Popen(cclab_command(*FIGURE_2, "--out", out, "--jobs", "2"), stderr=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, text=True)
    finished = []
    try:
        for line in driver.stderr:
            finished += simulated_lines(line)
            if finished:  # the driver reports runs as it records them (a batch a second): kill at the first
                driver.send_signal(signal.SIGKILL)
                break
    finally:
        driver.wait(timeout=60)
    assert driver.returncode == -signal.SIGKILL
    assert not (out / "summary.md").exists()  # no figure is drawn from a partial set
    with SweepStore(out / "runs.duckdb", read_only=True) as store:
        stored = store.stored_run_ids()
    # Every run the driver reported is stored. (How many more it recorded in the same
    # second depends on the machine: all 16 on a fast one. The resume below must then
    # simulate exactly the rest, possibly none; tests/test_sweep.py kills sweeps mid-way.)
    assert set(finished) <= stored

    resumed = subprocess.run(cclab_command(*FIGURE_2, "--out", out, "--jobs", "2"), capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    simulated_now = simulated_lines(resumed.stderr)
    assert len(simulated_now) == RUNS - len(stored) and not set(simulated_now) & stored
    assert f"{len(stored)} of {RUNS} runs already stored" in resumed.stderr
    pd.testing.assert_frame_equal(pd.read_csv(out / "fig02_wired_10mbps.csv"),
                                  pd.read_csv(uninterrupted / "fig02_wired_10mbps.csv"))


def test_from_store_redraws_without_simulating(uninterrupted, tmp_path):
    out = tmp_path / "redrawn"
    completed = subprocess.run(cclab_command(*FIGURE_2, "--out", out, "--from-store", uninterrupted / "runs.duckdb"),
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr
    assert simulated_lines(completed.stderr) == [] and f"0 of {RUNS} runs simulated" in completed.stdout
    assert not (out / "runs.duckdb").exists()
    pd.testing.assert_frame_equal(pd.read_csv(out / "fig02_wired_10mbps.csv"),
                                  pd.read_csv(uninterrupted / "fig02_wired_10mbps.csv"))
    verdicts = lambda path: json.loads((path / "meta.json").read_text())["figures"]["2"]["verdicts"]
    assert verdicts(out) == verdicts(uninterrupted)


def test_from_store_missing_runs_is_a_one_line_error(uninterrupted, tmp_path):
    out = tmp_path / "two-seeds"
    completed = subprocess.run(cclab_command("reproduce", "zhang2002", "--quick", "--figure", "2", "--seeds", "2",
                                             "--out", out, "--from-store", uninterrupted / "runs.duckdb"),
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: ") and "16 of 32 runs of this reproduction are not stored" \
        in completed.stderr and completed.stderr.count("\n") == 1
    assert not out.exists()


def test_dask_local_cluster_gives_identical_figures(uninterrupted, tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "dask"
    completed = subprocess.run(cclab_command(*FIGURE_2, "--out", out, "--executor", "dask", "--workers", "2",
                                             "--store", tmp_path / "dask.duckdb"),
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr
    assert len(simulated_lines(completed.stderr)) == RUNS
    assert (tmp_path / "dask.duckdb").exists() and not (out / "runs.duckdb").exists()
    pd.testing.assert_frame_equal(pd.read_csv(out / "fig02_wired_10mbps.csv"),
                                  pd.read_csv(uninterrupted / "fig02_wired_10mbps.csv"))


@pytest.mark.parametrize("arguments, message", [
    (["--executor", "spark"], "--executor spark: unknown executor (choose local, dask, ray)"),
    (["--scheduler", "tcp://x:1"], "--scheduler needs --executor dask or ray"),
    (["--from-store", "nowhere.duckdb"], "--from-store nowhere.duckdb: no such results file"),
    (["--from-store", "x.duckdb", "--store", "y.duckdb"], "--store and --from-store: give one"),
    (["--from-store", "x.duckdb", "--executor", "dask"], "--from-store simulates nothing"),
    (["--figure", "fig9"], "--figure fig9: mraimd has no such figure; choose one of table1, 4, 5, 6, 7"),
])
def test_bad_pipeline_options_are_one_line_errors(tmp_path, arguments, message):
    out = tmp_path / "out"
    completed = subprocess.run(cclab_command("reproduce", "mraimd", "--quick", "--out", out, *arguments),
                               capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith(f"error: {message}"), completed.stderr
    assert completed.stderr.count("\n") == 1
    assert not out.exists()


# ---------------------------------------------------------------- run_many
def test_run_many_keeps_order_and_matches_single_runs(small_scenario):
    scenarios = [{**small_scenario, "seed": seed, "flows": [{**small_scenario["flows"][1], "count": count}]}
                 for seed, count in ((1, 1), (2, 3), (3, 2))]
    finished = []
    results = cclab.run_many(scenarios, jobs=2, on_result=lambda index, result: finished.append(index))
    assert [len(result.flows) for result in results] == [1, 3, 2] and sorted(finished) == [0, 1, 2]
    single = cclab.run(scenarios[1])
    assert results[1].system["goodput_mbps"] == single.system["goodput_mbps"]
    assert results[1].raw["events"] == single.raw["events"]


def test_run_many_captures_each_failure(small_scenario):
    # Both scenarios are valid; the small one fits a 50 kB memory limit, the long one does not.
    small = {**small_scenario, "flows": [small_scenario["flows"][1]]}
    big = {**small, "duration": "1000s", "bin_width": "1ms"}
    kept = run_many([small, big], jobs=1, max_memory="50kB", errors="keep")
    assert isinstance(kept[0], cclab.Result) and isinstance(kept[1], RunFailure)
    assert kept[1].index == 1 and "memory" in kept[1].error
    with pytest.raises(RunFailed, match=r"^run 1 \(small\): .*memory"):
        run_many([small, big], jobs=1, max_memory="50kB")


def test_from_store_reads_measured_tables_or_measures_again_when_the_code_changed(uninterrupted, tmp_path,
                                                                                   monkeypatch):
    """Figures are drawn from the tables the workers measured and stored (columns, no
    result parsed); measured by other code, they are measured again from the stored
    results — the same figures either way."""
    from cclab.papers import framework, measure
    from cclab.papers.registry import paper_named

    paper = paper_named("zhang2002")
    store = uninterrupted / "runs.duckdb"
    parsed = []
    real = measure._measure_stored
    monkeypatch.setattr(measure, "_measure_stored", lambda *a, **k: parsed.append(len(a[1])) or real(*a, **k))
    framework.reproduce(paper, tmp_path / "columns", quick=True, figures=[2], seeds=1, from_store=store, jobs=1,
                        progress=False)
    assert parsed == []  # every table read from the store's columns
    monkeypatch.setattr(measure, "measure_version", lambda key: "other code")
    framework.reproduce(paper, tmp_path / "again", quick=True, figures=[2], seeds=1, from_store=store, jobs=1,
                        progress=False)
    assert parsed == [RUNS]
    for out in (tmp_path / "columns", tmp_path / "again"):
        pd.testing.assert_frame_equal(pd.read_csv(out / "fig02_wired_10mbps.csv"),
                                      pd.read_csv(uninterrupted / "fig02_wired_10mbps.csv"))
        pd.testing.assert_frame_equal(pd.read_parquet(out / "fig02_wired_10mbps.parquet"),
                                      pd.read_parquet(uninterrupted / "fig02_wired_10mbps.parquet"))


def test_redraw_keeps_figures_drawn_from_the_same_inputs_and_draws_the_rest(uninterrupted, tmp_path, monkeypatch):
    """A PNG carries the hash of what it was drawn from (tables, drawing code, matplotlib
    and its settings): drawing into an output whose figure is up to date keeps it (its
    tables are still written), anything else draws it again."""
    import matplotlib

    from cclab.papers import figure_files, framework
    from cclab.papers.paper import Outcome
    from cclab.papers.registry import paper_named
    from cclab.plots.canvas import read_png_text

    paper = paper_named("zhang2002")
    store, out = uninterrupted / "runs.duckdb", tmp_path / "out"
    png, csv = out / "fig02_wired_10mbps.png", out / "fig02_wired_10mbps.csv"
    plotted = []
    real = figure_files.write_figure
    monkeypatch.setattr(figure_files, "write_figure",
                        lambda *a, **k: plotted.append(k.get("draw", True)) or real(*a, **k))

    def again(**options) -> Outcome:
        plotted.clear()
        return framework.reproduce(paper, out, quick=True, figures=[2], seeds=1, from_store=store, jobs=1,
                                   progress=False, **options)

    first = again()
    assert first.drawn == 1 and plotted == [True] and png.is_file()
    drawn_from = read_png_text(png)[figure_files.INPUTS_TEXT]
    assert drawn_from == figure_files.figure_inputs("zhang2002", first.figures[0].figure, first.figures[0].tables)
    picture = png.read_bytes()
    csv.unlink()
    kept = again()
    assert kept.drawn == 0 and plotted == [False] and png.read_bytes() == picture and csv.is_file()
    assert [claim.verdict for claim in kept.claims] == [claim.verdict for claim in first.claims]
    assert again(redraw=True).drawn == 1 and plotted == [True]
    assert read_png_text(png)[figure_files.INPUTS_TEXT] == drawn_from  # same inputs, same hash
    # other tables (another seed's numbers), other settings, a cut-short file: drawn again
    tables = {name: table.copy() for name, table in first.figures[0].tables.items()}
    name = next(iter(tables))
    tables[name].iloc[0, -1] = 12345
    assert figure_files.figure_inputs("zhang2002", first.figures[0].figure, tables) != drawn_from
    with matplotlib.rc_context({"lines.linewidth": 3.0}):
        assert again().drawn == 1
    assert again().drawn == 1  # the settings are back: the last PNG was drawn with others
    png.write_bytes(picture[:len(picture) // 2])  # header and text whole, image cut short
    assert read_png_text(png) == {} and again().drawn == 1
    assert png.read_bytes() == picture and not list(out.glob(".*.partial.png"))


def test_reproduce_says_how_many_figures_were_up_to_date(uninterrupted, tmp_path):
    out = tmp_path / "out"
    command = cclab_command(*FIGURE_2, "--out", out, "--from-store", uninterrupted / "runs.duckdb")
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    forced = subprocess.run([*command, "--redraw"], capture_output=True, text=True, timeout=600)
    assert first.returncode == second.returncode == forced.returncode == 0, first.stderr + second.stderr
    assert "figures drawn" not in first.stdout and "figures drawn" not in forced.stdout
    assert "0 of 1 figures drawn (1 up to date)" in second.stdout
