"""Result directories: save, load, re-run from scenario.toml, DuckDB queries."""
from __future__ import annotations

import json

import pandas as pd
import pytest

import cclab
from cclab.store import directory as store


def without_wall_time(raw: dict) -> dict:
    return {key: value for key, value in raw.items() if key != "wall_time_s"}


def test_save_then_load_round_trips(small_result, tmp_path):
    out = small_result.save(tmp_path / "run")
    loaded = store.load(out)
    assert loaded.raw == small_result.raw
    for name, table in small_result.tables().items():
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"), table)
        assert len(pd.read_csv(out / f"{name}.csv")) == len(table)
    assert json.loads((out / "system.json").read_text()) == small_result.system


def test_meta_records_how_the_result_was_made(small_result, tmp_path):
    meta = json.loads((small_result.save(tmp_path / "run") / "meta.json").read_text())
    assert meta["seed"] == 7
    assert meta["cclab_version"] == cclab.__version__
    assert meta["events"] == small_result.raw["events"]
    assert meta["created_utc"].endswith("+00:00")
    assert {"python", "platform", "wall_time_s"} <= meta.keys()


@pytest.mark.parametrize("start", [{"stagger": "1s"}, {"random": "1s"}, "0s"])
def test_scenario_toml_reruns_to_the_same_result(small_scenario, tmp_path, start):
    small_scenario["flows"][1]["start"] = start
    small_scenario["flows"][0]["stop"] = "2s"
    original = cclab.run(small_scenario)
    out = original.save(tmp_path / "run")
    rerun = cclab.run(out / "scenario.toml")
    assert without_wall_time(rerun.raw) == without_wall_time(original.raw)


def test_a_failed_save_leaves_nothing_behind(small_result, tmp_path, monkeypatch):
    def fail(result, directory):
        (directory / "flows.csv").write_text("half")
        raise OSError("disk full")

    monkeypatch.setattr(store, "_write_files", fail)
    with pytest.raises(store.StoreError, match="disk full"):
        store.save(small_result, tmp_path / "run")
    assert list(tmp_path.iterdir()) == []


def test_saving_again_replaces_the_earlier_result(small_result, small_scenario, tmp_path):
    out = small_result.save(tmp_path / "run")
    (out / "stale.txt").write_text("from before")
    other = cclab.run(small_scenario, seed=8)
    other.save(out)
    assert store.load(out).scenario["seed"] == 8
    assert not (out / "stale.txt").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_save_refuses_a_directory_that_is_not_a_result(small_result, tmp_path):
    (tmp_path / "thesis.tex").write_text("precious")
    with pytest.raises(store.StoreError, match="not a cclab result directory"):
        store.save(small_result, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["thesis.tex"]


def test_load_of_a_plain_directory_is_an_error(tmp_path):
    with pytest.raises(store.StoreError, match="not a cclab result directory"):
        store.load(tmp_path)


def test_query_one_and_many_directories(small_result, small_scenario, tmp_path):
    small_result.save(tmp_path / "a")
    cclab.run(small_scenario, **{"flows.1.count": 4}).save(tmp_path / "b")
    one = store.query(tmp_path / "a", "SELECT count(*) AS n, sum(goodput_mbps) AS g FROM flows")
    assert one["n"][0] == 5
    assert one["g"][0] == pytest.approx(small_result.system["goodput_mbps"])
    both = store.query(str(tmp_path / "*"), "SELECT filename, count(*) AS n FROM flows GROUP BY 1 ORDER BY 1")
    assert both["n"].tolist() == [5, 7]
    assert both["filename"].str.endswith("flows.parquet").all()
    with pytest.raises(store.StoreError):
        store.query(tmp_path / "nothing-here", "SELECT 1")
