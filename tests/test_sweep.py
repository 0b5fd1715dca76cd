"""Sweeps with the real parts: a process pool, a Dask LocalCluster of worker processes,
the store (Parquet parts written by the workers, a DuckDB catalog written by the
driver), a sweep killed with SIGKILL and resumed, each run stored exactly once."""
from __future__ import annotations

import json
import zlib
import os
import re
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
import tomli_w

import cclab
from cclab import core as _core
from cclab.runs.plan import load_plan
from cclab.runs.runner import run_plan
from cclab.store.sweeps import RESULT_TABLES, SweepStore, parts_directory
from conftest import run_cli, small_plan

# Values that differ from one execution to the next (timing, clock, checkout state).
VOLATILE_COLUMNS = ["wall_time_s", "finished_utc", "git_commit"]


def stored(path: Path) -> dict[str, pd.DataFrame]:
    """Every table of a results file, in a canonical row order, without volatile columns."""
    with SweepStore(path, read_only=True) as store:
        tables = {name: store.sql(f"SELECT * FROM {name}") for name in store.tables() if name != "plans"}
    canonical = {}
    for name, table in tables.items():
        if name == "results":  # whole result documents: compare them without their wall time
            documents = [json.loads(zlib.decompress(bytes(blob))) for blob in table["result_json_zlib"]]
            table = table.assign(result_json_zlib=[json.dumps({k: v for k, v in d.items() if k != "wall_time_s"},
                                                              sort_keys=True) for d in documents])
        table = table.drop(columns=[c for c in VOLATILE_COLUMNS if c in table])
        canonical[name] = table.sort_values(list(table.columns)).reset_index(drop=True)
    return canonical


def assert_same_results(first: Path, second: Path) -> None:
    a, b = stored(first), stored(second)
    assert a.keys() == b.keys()
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], obj=name)


@pytest.fixture
def pool_store(small_sweep_store) -> Path:
    """The small plan swept on a local process pool of 2 workers."""
    return small_sweep_store


def test_store_holds_every_run_with_provenance_and_complete_tables(pool_store):
    with SweepStore(pool_store, read_only=True) as store:
        runs = store.runs()
        flows = store.table("flows")
        bins = store.table("bins")
        plans = store.plans()
    assert len(runs) == 12 and runs["run_id"].is_unique and (runs["status"] == "ok").all()
    assert list(runs.columns[:3]) == ["flows.1.count", "flows.0.group", "flows.0.cc.beta"]
    assert runs["cclab_version"].eq(cclab.__version__).all()
    assert runs["git_commit"].str.fullmatch(r"[0-9a-f]{40}(\+dirty)?").all()
    assert (runs["events"] > 0).all() and runs["goodput_mbps"].between(1, 10).all()
    plan = load_plan(small_plan())
    for run in plan.runs():
        row = runs[runs["run_id"] == run.run_id].iloc[0]
        assert row["seed"] == run.seed and f"seed = {run.seed}" in row["scenario_toml"]
        assert (flows["run_id"] == run.run_id).sum() == 3 + run.point["flows.1.count"]
        assert (bins["run_id"] == run.run_id).sum() == (3 + run.point["flows.1.count"]) * 3  # 3 s of 1 s bins
    assert list(plans["name"]) == ["small"] and load_plan(__import__("tomllib").loads(plans["plan_toml"][0])) == plan


def test_dask_local_cluster_of_processes_stores_identical_results(pool_store, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        worker_pids = set(client.run(os.getpid).values())
        outcome = cclab.sweep(small_plan(), client, store=tmp_path / "dask.duckdb")
    assert outcome.succeeded == 12
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids  # really other processes
    assert_same_results(pool_store, tmp_path / "dask.duckdb")


def test_same_run_gives_the_same_numbers_on_any_executor(pool_store, tmp_path):
    with ThreadPoolExecutor(max_workers=3) as threads:
        run_plan(small_plan(), threads, store=tmp_path / "threads.duckdb")
    assert_same_results(pool_store, tmp_path / "threads.duckdb")
    with SweepStore(pool_store, read_only=True) as store:
        runs = store.runs()
    for run in load_plan(small_plan()).runs()[:3]:  # and in this process, outside any sweep
        direct = cclab.run(run.scenario)
        row = runs[runs["run_id"] == run.run_id].iloc[0]
        assert row["goodput_mbps"] == direct.system["goodput_mbps"] and row["events"] == direct.system["events"]


def test_rerun_skips_stored_runs_and_a_new_axis_value_runs_only_its_points(pool_store, tmp_path):
    path = tmp_path / "copy.duckdb"
    path.write_bytes(pool_store.read_bytes())
    shutil.copytree(parts_directory(pool_store), parts_directory(path))  # a store is its catalog and its parts
    before = stored(path)
    again = run_plan(small_plan(), store=path, jobs=1)
    assert (again.skipped, again.ran) == (12, 0)
    extended = run_plan(small_plan(counts=(1, 2, 3, 4)), store=path, jobs=1)
    assert (extended.total, extended.skipped, extended.succeeded) == (16, 12, 4)
    after = stored(path)
    old_runs = after["runs"][after["runs"]["run_id"].isin(before["runs"]["run_id"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(old_runs.drop(columns="plan_hash"), before["runs"].drop(columns="plan_hash"))


def test_failing_run_is_recorded_and_the_sweep_goes_on_then_retried(tmp_path, monkeypatch):
    plan = load_plan(small_plan())
    doomed = plan.runs()[5]
    real_run_json = _core.run_json

    def fails_for_one_seed(payload: str, *limits) -> str:
        if f'"seed": {doomed.seed}' in payload:
            raise RuntimeError("engine exploded")
        return real_run_json(payload, *limits)

    monkeypatch.setattr(_core, "run_json", fails_for_one_seed)
    with ThreadPoolExecutor(max_workers=2) as threads:  # threads share the patched engine
        outcome = run_plan(plan, threads, store=tmp_path / "s.duckdb")
    assert (outcome.succeeded, outcome.failed) == (11, 1)
    assert outcome.failures == [(doomed.run_id, "RuntimeError: engine exploded")]
    with SweepStore(tmp_path / "s.duckdb", read_only=True) as store:
        failed = store.sql("SELECT * FROM runs WHERE status = 'error'")
        assert store.sql(f"SELECT count(*) AS n FROM flows WHERE run_id = '{doomed.run_id}'")["n"][0] == 0
    assert list(failed["run_id"]) == [doomed.run_id] and failed["error"][0] == "RuntimeError: engine exploded"

    monkeypatch.setattr(_core, "run_json", real_run_json)
    retried = run_plan(plan, store=tmp_path / "s.duckdb", jobs=1)
    assert (retried.skipped, retried.succeeded) == (11, 1)
    runs = stored(tmp_path / "s.duckdb")["runs"]
    assert len(runs) == 12 and runs["run_id"].is_unique and (runs["status"] == "ok").all()


def test_killed_sweep_loses_nothing_finished_and_resumes(tmp_path):
    """SIGKILL the driver and its workers after a few runs are reported stored; every
    reported run is there, complete and once; a re-run does only the rest. The runs are
    1 Gb/s for 10 s (about 0.3 s of work each, 40 of them on 2 workers), so the kill
    lands seconds before the sweep could finish, even on a loaded machine."""
    plan_file = tmp_path / "plan.toml"
    plan_document = small_plan(name="killed", counts=tuple(range(1, 11)), duration="10s",
                               **{"topology.bottleneck.rate": "1Gbps", "topology.source_access.rate": "1Gbps",
                                  "topology.sink_access.rate": "1Gbps"})
    plan_file.write_text(tomli_w.dumps(plan_document))
    store = tmp_path / "killed.duckdb"
    command = [sys.executable, "-m", "cclab", "sweep", str(plan_file), "--store", str(store), "--workers", "2"]
    driver = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                              start_new_session=True)
    reported = []
    try:
        for line in driver.stderr:
            match = re.match(r"\[\d+/40\] ok run=(\w+)", line)
            if match:
                reported.append(match[1])
            if len(reported) == 4:
                break
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
    assert len(reported) == 4, "the sweep did not report 4 stored runs"

    runs_by_id = {run.run_id: run for run in load_plan(plan_document).runs()}
    with SweepStore(store, read_only=True) as results:
        runs = results.runs()
        flow_counts = results.sql("SELECT run_id, count(*) AS n FROM flows GROUP BY run_id")
        bin_counts = results.sql("SELECT run_id, count(*) AS n FROM bins GROUP BY run_id")
    assert set(reported) <= set(runs["run_id"])  # nothing reported finished is lost
    assert len(runs) < 40, "the sweep finished before it was killed; nothing was tested"
    assert runs["run_id"].is_unique
    for run_id, flows in zip(flow_counts["run_id"], flow_counts["n"]):  # and no half-written run
        assert flows == 3 + runs_by_id[run_id].point["flows.1.count"]
    assert dict(zip(bin_counts["run_id"], bin_counts["n"])) == {
        run_id: 10 * (3 + runs_by_id[run_id].point["flows.1.count"]) for run_id in runs["run_id"]}

    resumed = run_cli("sweep", plan_file, "--store", store, "--workers", "2", "--no-progress")
    assert resumed.returncode == 0, resumed.stderr
    assert f"40 runs, {len(runs)} already stored, {40 - len(runs)} ran, 0 failed" in resumed.stdout
    after = stored(store)
    assert len(after["runs"]) == 40 and after["runs"]["run_id"].is_unique
    assert set(after["runs"]["run_id"]) == set(runs_by_id)
    # exactly once: every run's rows once, whatever its workers wrote before the kill
    assert after["flows"].groupby("run_id").size().to_dict() == {
        run_id: 3 + run.point["flows.1.count"] for run_id, run in runs_by_id.items()}
    assert after["results"]["run_id"].is_unique and len(after["results"]) == 40
    before = runs.set_index("run_id")["finished_utc"]
    with SweepStore(store, read_only=True) as results:
        kept = results.runs().set_index("run_id")["finished_utc"]
    assert (kept[before.index] == before).all()  # the stored runs were not run again


def test_cli_sweep_and_export(tmp_path):
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(tomli_w.dumps(small_plan(replications=1)))
    store = tmp_path / "out.duckdb"
    completed = run_cli("sweep", plan_file, "--store", store, "--workers", "2")
    assert completed.returncode == 0, completed.stderr
    assert "small: 6 runs, 0 already stored, 6 ran, 0 failed" in completed.stdout
    assert len(re.findall(r"^\[\d/6\] ok run=", completed.stderr, re.M)) == 6  # one line per run off a terminal
    exported = run_cli("export", store, "--out", tmp_path / "parquet")
    assert exported.returncode == 0, exported.stderr
    assert pd.read_parquet(tmp_path / "parquet" / "runs.parquet").shape[0] == 6
    assert {p.stem for p in (tmp_path / "parquet").glob("*.parquet")} >= {"runs", "plans", *RESULT_TABLES[:4]}


@pytest.mark.parametrize(
    ("args", "message"),
    [(["sweep", "missing.toml"], "missing.toml: no such file"),
     (["sweep", "{example}"], "not a sweep plan (no [sweep] table)"),
     (["sweep", "{plan}", "--executor", "slurm"], "--executor slurm: unknown executor"),
     (["sweep", "{plan}", "--scheduler", "tcp://x:1"], "--scheduler needs --executor dask or ray"),
     (["report", "missing.duckdb"], "missing.duckdb: no such results file"),
     (["report", "{plan}"], "not a cclab results file")],
)
def test_cli_errors_are_one_line(tmp_path, example_file, args, message):
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(tomli_w.dumps(small_plan()))
    args = [arg.format(example=example_file, plan=plan_file) for arg in args]
    completed = run_cli(*args, cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith("error: ") and message in completed.stderr, completed.stderr
    assert len(completed.stderr.splitlines()) == 1


def test_nested_values_are_stored_as_json_text_whatever_their_keys(tmp_path):
    plan = load_plan(small_plan())
    first, second = plan.runs()[:2]
    with SweepStore(tmp_path / "nested.duckdb") as store:
        for run, state in ((first, {"alpha": 0.31, "beta": 0.875}), (second, {"w_max": 12.5})):
            flows = pd.DataFrame({"id": [0, 1], "cc_state": [state, {}]})
            store.record_result(plan, run, {"goodput_mbps": 1.0}, {"flows": flows}, {})
        stored_states = store.sql("SELECT cc_state FROM flows ORDER BY run_id, id")["cc_state"].tolist()
    assert sorted(stored_states) == sorted(['{"alpha": 0.31, "beta": 0.875}', "{}", '{"w_max": 12.5}', "{}"])


def test_runs_written_together_are_stored_as_runs_written_one_by_one(pool_store, tmp_path, monkeypatch):
    """The driver writes the runs waiting for it in one transaction (at least every
    WRITE_EVERY_S): the same rows, however the runs are grouped into writes."""
    from cclab.runs import runner

    monkeypatch.setattr(runner, "WRITE_EVERY_S", 1e9)
    together = run_plan(small_plan(), store=tmp_path / "together.duckdb", jobs=2)
    assert together.succeeded == 12
    assert_same_results(pool_store, tmp_path / "together.duckdb")
    monkeypatch.setattr(runner, "WRITE_EVERY_S", 0.0)
    run_plan(small_plan(), store=tmp_path / "apart.duckdb", jobs=2)
    assert_same_results(pool_store, tmp_path / "apart.duckdb")


def test_one_write_of_runs_whose_tables_differ_keeps_each_column_type(tmp_path):
    """Tables with different columns (e.g. two algorithms' state) are appended apart: an
    integer column absent from one run's table stays an integer column."""
    from cclab.store.sweeps import FinishedRun

    plan = load_plan(small_plan())
    first, second, third = plan.runs()[:3]
    finished = [FinishedRun(first, {}, {"goodput_mbps": 1.0}, {"flows": pd.DataFrame({"id": [0], "w_max": [12]})}),
                FinishedRun(second, {}, {"goodput_mbps": 2.0}, {"flows": pd.DataFrame({"id": [0, 1]})}),
                FinishedRun(third, {}, error="engine exploded")]
    with SweepStore(tmp_path / "mixed.duckdb") as store:
        store.record_runs(plan, finished)
        types = dict(store.sql("SELECT column_name, data_type FROM information_schema.columns "
                               "WHERE table_name = 'flows'").itertuples(index=False))
        flows = store.sql("SELECT run_id, id, w_max FROM flows ORDER BY run_id, id")
        runs = store.sql("SELECT run_id, status, error FROM runs")
    assert types["w_max"] == "BIGINT" and types["id"] == "BIGINT"
    assert sorted(zip(flows["run_id"], flows["id"])) == sorted([(first.run_id, 0), (second.run_id, 0),
                                                                (second.run_id, 1)])
    assert dict(zip(runs["run_id"], runs["status"])) == {first.run_id: "ok", second.run_id: "ok",
                                                         third.run_id: "error"}


def test_a_part_written_but_never_recorded_is_invisible_and_its_runs_are_stored_once(tmp_path):
    """A worker wrote its chunk, the driver died before recording it: readers do not see
    those runs, the next sweep runs them again, and each is stored exactly once (the
    orphaned part is removed)."""
    from cclab.runs.workers import PlanRef, simulate
    from cclab.store.sweeps import FinishedRun, write_part

    plan = load_plan(small_plan())
    path = tmp_path / "orphan.duckdb"
    run_plan(plan, store=path, jobs=1)  # every run stored once
    orphaned = []
    for run in plan.runs()[:3]:  # the same runs written again by a "worker" nobody recorded
        reply = simulate(run)
        orphaned.append(FinishedRun(run, reply, reply["system"], reply["tables"], reply["result_json_zlib"]))
    part = write_part(parts_directory(path), PlanRef(plan.hash, plan.name), orphaned)
    assert (parts_directory(path) / "flows" / f"{part}.parquet").is_file()
    counts = lambda tables: tables["flows"].groupby("run_id").size().to_dict()
    expected = {run.run_id: 3 + run.point["flows.1.count"] for run in plan.runs()}
    assert counts(stored(path)) == expected and len(stored(path)["runs"]) == 12

    fresh = tmp_path / "fresh.duckdb"  # and when the runs were never recorded at all
    with SweepStore(fresh) as store:
        store.record_plan(plan)
    write_part(parts_directory(fresh), PlanRef(plan.hash, plan.name), orphaned)
    with SweepStore(fresh, read_only=True) as store:
        assert store.runs().empty and store.stored_run_ids() == set()
    outcome = run_plan(plan, store=fresh, jobs=1)
    assert (outcome.skipped, outcome.succeeded) == (0, 12)
    assert counts(stored(fresh)) == expected and stored(fresh)["runs"]["run_id"].is_unique
    assert not list((parts_directory(fresh) / "flows").glob(f"{part}*"))  # the orphan is gone
    assert_same_results(path, fresh)


def test_chunks_are_single_runs_until_measured_then_a_quarter_to_two_seconds_of_work():
    from cclab.runs import scheduling

    class Immediate:
        def submit(self, fn, chunk):
            future = __import__("concurrent.futures").futures.Future()
            future.set_result(fn(chunk))
            return future

    runs = list(range(1000))
    feeder = scheduling.chunk_feeder(Immediate(), len, runs, workers=2)
    sizes = []
    for chunk, future in feeder:
        sizes.append(len(chunk))
        feeder.observe(len(chunk), 0.02 * len(chunk))  # 20 ms a run
    assert sum(sizes) == 1000 and sizes[:4] == [1, 1, 1, 1]
    assert max(sizes) == int(scheduling.WORK_PER_CHUNK_S / 0.02)
    # guided self-scheduling shrinks them towards the end, but not below a quarter
    # second of work (a part's fixed cost), but for the remainder
    smallest = int(scheduling.MIN_WORK_PER_CHUNK_S / 0.02)
    assert min(sizes[4:-1]) == smallest and sizes[-1] <= smallest
    assert sizes[4:] == sorted(sizes[4:], reverse=True)


def test_store_from_before_parts_still_reads_then_converts_when_written(tmp_path):
    """A results file written before parts (every table inside DuckDB) reads as it is;
    the next sweep into it converts it and skips what it holds."""
    import duckdb

    from cclab.runs.workers import local_provenance, simulate
    from cclab.scenario import scenario_toml

    plan = load_plan(small_plan())
    old = plan.runs()[:4]
    path = tmp_path / "old.duckdb"
    db = duckdb.connect(str(path))
    db.execute("CREATE TABLE plans (plan_hash VARCHAR, name VARCHAR, plan_toml VARCHAR, recorded_utc VARCHAR, "
               "kind VARCHAR)")
    db.execute("INSERT INTO plans VALUES (?, ?, ?, '2026-01-01T00:00:00+00:00', 'sweep')",
               [plan.hash, plan.name, plan.to_toml()])
    rows, flows, results = [], [], []
    for run in old:
        reply = simulate(run)
        rows.append({"run_id": run.run_id, "plan_hash": plan.hash, "plan_name": plan.name,
                     "point_index": run.point_index, "params": json.dumps(run.point),
                     "replication": run.replication, "seed": run.seed, "scenario_toml": scenario_toml(run.scenario),
                     "status": "ok", "error": None, **local_provenance(), "finished_utc": "2026-01-01T00:00:00+00:00",
                     "goodput_mbps": reply["system"]["goodput_mbps"], "events": reply["system"]["events"]})
        flows.append(reply["tables"]["flows"][["id", "goodput_mbps"]].assign(run_id=run.run_id))
        results.append({"run_id": run.run_id, "result_json_zlib": reply["result_json_zlib"]})
    runs_frame, flows_frame, results_frame = pd.DataFrame(rows), pd.concat(flows), pd.DataFrame(results)
    db.execute("CREATE TABLE runs AS SELECT * FROM runs_frame")
    db.execute("CREATE TABLE flows AS SELECT run_id, id, goodput_mbps FROM flows_frame")
    db.execute("CREATE TABLE results AS SELECT * FROM results_frame")
    db.close()

    with SweepStore(path, read_only=True) as store:
        assert store.legacy and store.stored_run_ids() == {run.run_id for run in old}
        assert len(store.runs()) == 4 and len(store.table("flows")) == len(flows_frame)
        assert store.result(old[0].run_id).system["goodput_mbps"] == rows[0]["goodput_mbps"]
    assert not parts_directory(path).exists()  # reading changed nothing

    outcome = run_plan(plan, store=path, jobs=1)
    assert (outcome.skipped, outcome.succeeded) == (4, 8)
    with SweepStore(path, read_only=True) as store:
        assert not store.legacy
        runs = store.runs()
        assert len(runs) == 12 and runs["run_id"].is_unique and (runs["status"] == "ok").all()
        flow_rows = store.sql("SELECT run_id, count(*) AS n FROM flows GROUP BY run_id")
        assert store.result(old[0].run_id).system["goodput_mbps"] == rows[0]["goodput_mbps"]
    assert dict(zip(flow_rows["run_id"], flow_rows["n"])) == {
        run.run_id: 3 + run.point["flows.1.count"] for run in plan.runs()}


def test_a_file_that_is_not_a_store_or_a_catalog_without_its_parts_is_a_one_line_error(pool_store, tmp_path):
    import duckdb

    from cclab.errors import StoreError

    alone = tmp_path / "alone.duckdb"
    alone.write_bytes(pool_store.read_bytes())
    with pytest.raises(StoreError, match=r"alone.duckdb: its runs are in alone.duckdb.parts/ beside it, which is "
                                         r"missing \(move or copy the two together\)$"):
        SweepStore(alone, read_only=True)

    with duckdb.connect(str(tmp_path / "other.duckdb")) as db:
        db.execute("CREATE TABLE things (x INTEGER)")
    with pytest.raises(StoreError, match=r"a DuckDB database that is not a cclab results store \(it holds things\)"):
        SweepStore(tmp_path / "other.duckdb", read_only=True)


def test_ray_executor_stores_identical_results(pool_store, tmp_path):
    """Ray is optional (``cclab[ray]``): skipped where it is not installed."""
    pytest.importorskip("ray")
    from cclab.runs.executors import open_executor

    with open_executor("ray", 2, None) as executor:
        outcome = run_plan(small_plan(), executor, store=tmp_path / "ray.duckdb")
    assert (outcome.succeeded, outcome.failed) == (12, 0)
    assert_same_results(pool_store, tmp_path / "ray.duckdb")
