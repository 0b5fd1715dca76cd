"""How a sweep's workers should write their runs: one Parquet part per batch, or DuckDB
appends (the two designs issue 30 asked to compare), measured on real runs.

    .venv/bin/python bench/sweeps/writers.py [--runs 400] [--batch 10] [--repeats 3]

Simulates ``--runs`` runs of ``bench/sweeps/throughput-1s.toml`` once (their tables built
as the workers build them), then times, per batch of ``--batch`` runs:

* ``parquet``: :func:`cclab.store.sweeps.write_part` (one file per table, renamed into
  place) — what the workers do.
* ``duckdb-own-file``: each worker appends to a DuckDB file of its own (one transaction
  per batch, the connection kept open, as a long-lived worker would).
* ``duckdb-reopen``: the same, opening and closing the file per batch (a worker that
  cannot keep the file open, e.g. so that the driver may read it).
* ``duckdb-shared``: two processes appending to one DuckDB file: fails at once, DuckDB
  lets one process at a time open a file for writing.

Prints one JSON line per design: CPU ms per batch and per run (this process, all its
threads; median of the repeats).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def finished_runs(count: int):
    from cclab.runs.plan import load_plan
    from cclab.runs.workers import PlanRef, simulate
    from cclab.store.sweeps import FinishedRun

    plan = load_plan(Path(__file__).with_name("throughput-1s.toml"))
    finished = []
    for run in plan.runs()[:count]:
        reply = simulate(run, keep="tables")
        finished.append(FinishedRun(run, reply, reply["system"], reply["tables"], reply["result_json_zlib"]))
    return PlanRef(plan.hash, plan.name), finished  # what the workers are given


def duckdb_append(db, plan, batch) -> None:
    """One transaction appending every table of ``batch`` (the tables as one Parquet
    part holds them, so both designs convert the same frames)."""
    from cclab.store.sweeps import part_tables

    tables = part_tables(plan, batch, "p")
    db.execute("BEGIN TRANSACTION")
    known = {row[0] for row in db.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    for name, table in tables.items():
        db.register("incoming", table)
        if name not in known:
            db.execute(f'CREATE TABLE "{name}" AS SELECT * FROM incoming')
        else:
            db.execute(f'INSERT INTO "{name}" BY NAME SELECT * FROM incoming')
        db.unregister("incoming")
    db.execute("COMMIT")


def hold(path: str, ready, release) -> None:
    import duckdb

    db = duckdb.connect(path)
    ready.set()
    release.wait(30)
    db.close()


def main() -> None:
    import duckdb

    from cclab.store.sweeps import write_part

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    plan, finished = finished_runs(arguments.runs)
    batches = [finished[i:i + arguments.batch] for i in range(0, len(finished), arguments.batch)]

    def timed(setup, write, teardown=lambda state: None) -> float:
        times = []
        for _ in range(arguments.repeats):
            scratch = Path(tempfile.mkdtemp(prefix="cclab-writers-"))
            try:
                state = setup(scratch)
                started = time.process_time()
                for batch in batches:
                    write(state, batch)
                teardown(state)
                times.append(time.process_time() - started)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
        return statistics.median(times)

    results = {}
    results["parquet"] = timed(lambda scratch: scratch, lambda scratch, batch: write_part(scratch, plan, batch))
    results["duckdb-own-file"] = timed(lambda scratch: duckdb.connect(str(scratch / "worker.duckdb")),
                                       lambda db, batch: duckdb_append(db, plan, batch), lambda db: db.close())

    def reopen(scratch, batch):
        with duckdb.connect(str(scratch / "worker.duckdb")) as db:
            duckdb_append(db, plan, batch)

    results["duckdb-reopen"] = timed(lambda scratch: scratch, reopen)
    for name, seconds in results.items():
        print(json.dumps({"design": name, "runs": len(finished), "batch": arguments.batch,
                          "ms_per_batch": round(1000 * seconds / len(batches), 2),
                          "ms_per_run": round(1000 * seconds / len(finished), 3)}))

    scratch = Path(tempfile.mkdtemp(prefix="cclab-writers-"))
    try:
        context = multiprocessing.get_context("spawn")
        ready, release = context.Event(), context.Event()
        holder = context.Process(target=hold, args=(str(scratch / "shared.duckdb"), ready, release))
        holder.start()
        ready.wait(30)
        try:
            duckdb.connect(str(scratch / "shared.duckdb"))
            outcome = "a second writer opened the file"
        except duckdb.Error as error:
            outcome = str(error).splitlines()[0][:160]
        release.set()
        holder.join()
        print(json.dumps({"design": "duckdb-shared", "second_writer": outcome}))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
