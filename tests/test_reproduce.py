"""``cclab reproduce static-wired --quick``: the paper's §5.1 sweep, shrunk."""
from __future__ import annotations

import json

import pandas as pd

from cclab.papers.zhang2002.static_wired import PAPER_PROTOCOLS, QUICK_FLOW_COUNTS, STATIC_WIRED_COLUMNS, static_wired_scenario


def test_quick_static_wired(cli, tmp_path):
    out = tmp_path / "static-wired"
    completed = cli("reproduce", "static-wired", "--quick", "--out", out, "--jobs", "2")
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr

    table = pd.read_parquet(out / "static_wired.parquet")
    pd.testing.assert_frame_equal(pd.read_csv(out / "static_wired.csv"), table, check_dtype=False)
    assert list(table.columns) == STATIC_WIRED_COLUMNS
    assert len(table) == len(PAPER_PROTOCOLS) * len(QUICK_FLOW_COUNTS) == 12
    assert sorted(set(zip(table["alpha"], table["beta"]))) == sorted(PAPER_PROTOCOLS)
    assert sorted(set(table["flows"])) == list(QUICK_FLOW_COUNTS)
    assert set(table["bottleneck"]) == {"10Mbps"}
    # Goodput can neither exceed the 10 Mb/s bottleneck nor collapse below half of it.
    assert table["system_goodput_mbps"].between(5.0, 10.0).all(), table
    assert table["jain_index"].between(0.0, 1.0).all()
    assert (out / "static_wired.png").stat().st_size > 10_000
    assert json.loads((out / "meta.json").read_text())["points"] == 12


def test_bad_bottleneck_is_a_user_error_and_writes_nothing(cli, tmp_path):
    out = tmp_path / "static-wired"
    completed = cli("reproduce", "static-wired", "--quick", "--out", out, "--bottleneck", "fast")
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: ") and "fast" in completed.stderr
    assert len(completed.stderr.splitlines()) == 1
    assert not out.exists()


def test_scenario_is_the_papers_dumbbell():
    scenario = static_wired_scenario(0.31, 0.875, flows=30, bottleneck="100Mbps")
    topology = scenario["topology"]
    assert [topology[link]["rate"] for link in ("source_access", "bottleneck", "sink_access")] == ["100Mbps"] * 3
    assert [topology[link]["delay"] for link in ("source_access", "bottleneck", "sink_access")] == ["5ms", "25ms", "5ms"]
    assert topology["bottleneck"]["buffer"] == "1bdp"
    assert scenario["packet_size"] == 1000 and scenario["duration"] == "100s"
    assert scenario["flows"] == [{"group": "TCP(0.31, 0.875)", "count": 30,
                                  "cc": {"algorithm": "aimd", "alpha": 0.31, "beta": 0.875},
                                  "start": {"stagger": "1s"}}]
