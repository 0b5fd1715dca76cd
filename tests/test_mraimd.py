"""``cclab reproduce mraimd``: the scenario files, the Figure 7 model, the quick
reproduction (every file, the claims we measured to hold) and bad input."""
from __future__ import annotations

import json

import pandas as pd
import pytest

import cclab
from cclab.papers.claims import VERDICTS
from cclab.papers.mraimd import scenarios
from cclab.papers.mraimd.figures import FIGURES, doubling_rtts, model_windows

from conftest import REPO, run_cli


def test_scenario_files_are_the_generated_ones_and_run(tmp_path):
    written = scenarios.write_scenario_files(tmp_path)
    assert {p.name for p in written} == {p.name for p in (REPO / "experiments" / "mraimd").glob("*.toml")}
    for path in written:
        assert path.read_text() == (REPO / "experiments" / "mraimd" / path.name).read_text()
        result = cclab.run(path, duration="1s")
        assert result.system["goodput_mbps"] > 0


def test_figure7_model_numbers():
    model = model_windows()
    assert doubling_rtts(model["tcp_eq5"], model["rtt"]) == pytest.approx(20)
    # Eq. 3 as printed, a_n = a_{n-1} + 0.5 n: W_4 = 20 + 1.5 + 2.5 + 4 + 6 = 34, W_5 = 42.5
    assert model.loc[5, "mraimd_eq3_printed_0.5"] == pytest.approx(42.5)
    assert doubling_rtts(model["mraimd_eq3_printed_0.5"], model["rtt"]) == pytest.approx(4 + 6 / 8.5)
    # Eq. 1 per RTT: W_n = 20 + n + 0.25 n (n - 1) -> 37.5 at 7, 42 at 8
    assert model.loc[8, "mraimd_eq1_0.5"] == pytest.approx(42)


@pytest.fixture
def quick(mraimd_quick):
    return mraimd_quick


def test_quick_writes_every_file(quick):
    out, stdout = quick
    for figure in FIGURES.values():
        for suffix in (".png", ".csv", ".parquet"):
            assert (out / f"{figure.stem}{suffix}").stat().st_size > 0
        assert f"{figure.title}:" in stdout
    for extra in ("table1_increase_factors_paper_vs_cclab", "fig4_congested_wired_a_trace", "fig7_growth_model"):
        assert (out / f"{extra}.csv").exists() and (out / f"{extra}.parquet").exists()
    summary = (out / "summary.md").read_text()
    for figure in FIGURES.values():
        assert f"## {figure.title}" in summary and f"]({figure.stem}.png)" in summary
    meta = json.loads((out / "meta.json").read_text())
    assert meta["sizes"]["name"] == "quick" and set(meta["figures"]) == set(FIGURES)
    assert all(v in VERDICTS for f in meta["figures"].values() for v in f["verdicts"])


def test_quick_table1_wired_goodput_does_not_depend_on_a(quick):
    runs = pd.read_parquet(quick[0] / "table1_increase_factors.parquet")
    wired = runs[runs["setting"] == "wired"].groupby(["flows", "a"])["goodput_kBps"].mean()
    for flows in (2, 4):
        assert wired[flows].max() / wired[flows].min() < 1.03
        assert wired[flows].min() > 110  # of at most 120.2 KB/s on 1 Mb/s
    rtx = runs[runs["setting"] == "wired"].groupby(["flows", "a"])["retransmitted_packets"].mean()
    for flows in (2, 4):
        assert rtx[flows][5.0] > rtx[flows][1.0] > rtx[flows][0.5]


def test_quick_mraimd_beats_aimd_under_random_loss(quick):
    """Fig. 5 at the calibrated PER: MR-AIMD's a stays well above 1 and its goodput beats
    AIMD's at every N (measured: +15-25 %)."""
    runs = pd.read_parquet(quick[0] / "fig5_wireless.parquet")
    at = runs[runs["per"] == 0.1].groupby(["flows", "protocol"])[["goodput_mbps", "a_mean"]].mean().unstack()
    assert (at["goodput_mbps"]["MR-AIMD"] > 1.08 * at["goodput_mbps"]["AIMD"]).all()
    assert (at["a_mean"]["MR-AIMD"] > 1.4).all()


def test_quick_growth_doubles_faster_than_aimd(quick):
    meta = json.loads((quick[0] / "meta.json").read_text())
    numbers = meta["figure7_doubling_rtts"]
    assert 6 <= numbers["sim_mraimd"] <= 8.5  # Eq. 1's linear growth of a: ~7 RTTs (the paper: 6)
    assert 18 <= numbers["sim_aimd"] <= 22  # Eq. 5: 20


@pytest.mark.parametrize("args,message", [
    (["--seeds", "0"], "--seeds 0: must be at least 1"),
    (["--seeds", "many"], "--seeds many: not a whole number"),
    (["--jobs", "0"], "--jobs 0: must be at least 1"),
    (["--jobs", "x"], "--jobs x: not a whole number"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    done = run_cli("reproduce", "mraimd", "--quick", "--out", tmp_path / "out", *args)
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {message}"
    assert not (tmp_path / "out").exists()


def test_out_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    done = run_cli("reproduce", "mraimd", "--quick", "--out", target)
    assert done.returncode == 2 and done.stderr.strip().startswith("error: --out")
