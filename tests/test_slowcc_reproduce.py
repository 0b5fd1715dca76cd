"""``cclab reproduce slowcc --quick`` end to end: every file, every claim with a verdict,
measured values where the metric puts them, and the generated scenario files."""
from __future__ import annotations

import pandas as pd
import pytest

import cclab
from cclab.papers.claims import VERDICTS
from cclab.papers.slowcc import scenarios
from cclab.papers.slowcc.figures import FIGURES

from conftest import REPO, run_cli


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("slowcc")
    done = run_cli("reproduce", "slowcc", "--quick", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_quick_reproduction_writes_every_figure_and_claim(quick):
    for figure in FIGURES.values():
        assert (quick / f"{figure.stem}.png").stat().st_size > 10_000
        assert (quick / f"{figure.stem}.csv").exists()
    claims = pd.read_csv(quick / "claims.csv")
    assert len(claims) == 12 and set(claims["verdict"]) <= set(VERDICTS)
    summary = (quick / "summary.md").read_text()
    assert "Gilbert–Elliott" in summary and "discounting" in summary and summary.count("| **") == 12


def test_quick_numbers_are_where_the_metrics_put_them(quick):
    f_k = pd.read_csv(quick / "13_f_k.csv")
    tcp = f_k[(f_k["control"] == "TCP(1/b)") & (f_k["b"] == 2)]
    # Standard TCP refills a doubled link within a few RTTs; f(200) ≥ f(20) > 1/2.
    assert (tcp["f20"] > 0.8).all() and (tcp["f200"] >= tcp["f20"]).all()
    slow = f_k[f_k["b"] == 256]
    assert (slow["f20"] < 0.75).all() and (slow["f20"] > 0.5).all()
    wave = pd.read_csv(quick / "14_square_wave_15_5.csv")
    assert wave["utilization"].between(0.3, 1.05).all() and wave["drop_rate"].between(0, 0.2).all()
    convergence = pd.read_csv(quick / "12_convergence.csv")
    assert convergence["convergence_s"].dropna().between(1, 100).all()


def test_scenario_files_are_the_generated_ones_and_run(tmp_path):
    written = scenarios.write_scenario_files(tmp_path)
    assert {p.name for p in written} == {p.name for p in (REPO / "experiments" / "slowcc").glob("*.toml")}
    for path in written:
        assert path.read_text() == (REPO / "experiments" / "slowcc" / path.name).read_text()
        assert cclab.run(path, duration="3s").system["goodput_mbps"] > 0


def test_unknown_figure_is_one_line(tmp_path):
    done = run_cli("reproduce", "slowcc", "--quick", "--figure", "99", "--out", str(tmp_path / "x"))
    assert done.returncode != 0 and "no such figure" in done.stderr and "Traceback" not in done.stderr
