"""Result directories: save, load, re-run from scenario.toml, DuckDB queries."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import cclab
from cclab.store import directory as store


def without_wall_time(raw: dict) -> dict:
    return {key: value for key, value in raw.items() if key != "wall_time_s"}


def test_save_then_load_round_trips(small_result, tmp_path):
    out = small_result.save(tmp_path / "run")
    loaded = cclab.Result.load(out)
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
    other = cclab.run(small_scenario, seed=8)
    other.save(out)
    assert cclab.Result.load(out).scenario["seed"] == 8
    assert [p.name for p in tmp_path.iterdir()] == ["run"]
    assert sorted(p.name for p in out.iterdir()) == sorted(json.loads((out / ".cclab-result").read_text())["entries"]
                                                            + [".cclab-result"])


def test_a_result_directory_with_a_file_added_is_not_replaced(small_result, small_scenario, tmp_path):
    out = small_result.save(tmp_path / "run")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(store.StoreError, match=r"holds what cclab did not write there \(notes.txt\)"):
        cclab.run(small_scenario, seed=8).save(out)
    assert (out / "notes.txt").read_text() == "mine" and cclab.Result.load(out).scenario["seed"] == 7


def test_a_folder_with_a_meta_json_of_its_own_is_never_replaced(small_result, cli, tmp_path):
    """Issue 41, case 1: a project folder holding a meta.json was replaced whole."""
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    (project / "meta.json").write_text('{"author": "me"}')
    (project / "thesis.tex").write_text("precious")
    (project / "data" / "raw.csv").write_text("1,2")
    with pytest.raises(store.StoreError, match="not a cclab result directory"):
        small_result.save(project)
    scenario = tmp_path / "s.toml"
    scenario.write_text(cclab.scenario.scenario_toml(small_result.scenario))
    completed = cli("run", scenario, "--out", project)
    assert completed.returncode == 2 and "not a cclab result directory" in completed.stderr
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr
    assert (project / "thesis.tex").read_text() == "precious" and (project / "data" / "raw.csv").read_text() == "1,2"
    assert json.loads((project / "meta.json").read_text()) == {"author": "me"}
    # even with only cclab's names in it, a meta.json that is not cclab's makes it someone else's
    (project / "thesis.tex").unlink()
    (project / "data" / "raw.csv").unlink()
    (project / "data").rmdir()
    (project / "result.json").write_text("{}")
    with pytest.raises(store.StoreError, match="not a cclab result directory"):
        small_result.save(project)


def test_out_dot_saves_into_the_working_folder_and_keeps_it(small_result, cli, tmp_path):
    """Issue 41, case 4: --out . failed after the run (the result lost)."""
    scenario = tmp_path / "s.toml"
    scenario.write_text(cclab.scenario.scenario_toml(small_result.scenario))
    here = tmp_path / "here"
    here.mkdir()
    inode = here.stat().st_ino
    for _ in range(2):  # a new result, then one replacing it in place
        completed = cli("run", scenario, "--out", ".", cwd=here)
        assert completed.returncode == 0, completed.stderr
    assert here.stat().st_ino == inode, "the working folder itself is kept"
    assert cclab.Result.load(here).raw["scenario"] == small_result.scenario
    assert not [p for p in here.iterdir() if p.name.startswith(".cclab-save-")]


def test_a_save_killed_half_way_is_refused_by_load_and_replaced_by_the_next(small_result, tmp_path, monkeypatch):
    out = small_result.save(tmp_path / "run")
    moves = []
    original = Path.rename

    def rename(self, target):
        moves.append(self)
        if len(moves) == 20:  # the old entries have moved out, the marker and some new ones in
            raise KeyboardInterrupt
        return original(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        small_result.save(out)
    monkeypatch.undo()
    with pytest.raises(store.StoreError, match="incomplete result"):
        cclab.Result.load(out)
    small_result.save(out)
    assert cclab.Result.load(out).raw == small_result.raw


def test_a_long_out_name_is_refused_before_the_run(small_result, cli, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(cclab.scenario.scenario_toml(small_result.scenario))
    completed = cli("run", scenario, "--out", tmp_path / ("é" * 200))
    assert completed.returncode == 2 and "a folder name of 400 bytes" in completed.stderr
    assert completed.stdout == ""  # refused before the run
    longest = tmp_path / ("a" * 255)  # the longest name a file system allows is usable
    small_result.save(longest)
    assert cclab.Result.load(longest).raw == small_result.raw


def test_save_refuses_a_directory_that_is_not_a_result(small_result, tmp_path):
    (tmp_path / "thesis.tex").write_text("precious")
    with pytest.raises(store.StoreError, match="not a cclab result directory"):
        store.save(small_result, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["thesis.tex"]


def test_load_of_a_plain_directory_is_an_error(tmp_path):
    with pytest.raises(store.StoreError, match="not a cclab result directory"):
        cclab.Result.load(tmp_path)


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
