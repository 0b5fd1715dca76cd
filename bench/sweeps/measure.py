"""Sweep throughput and the driver's CPU time per run, as ``cclab sweep`` runs a plan.

    .venv/bin/python bench/sweeps/measure.py bench/sweeps/throughput-1s.toml --workers 2
    .venv/bin/python bench/sweeps/measure.py bench/sweeps/throughput-1s.toml --executor dask --workers 2
    .venv/bin/python bench/sweeps/measure.py bench/sweeps/throughput-1s.toml --executor dask --scheduler tcp://127.0.0.1:8786

Prints one JSON line: runs, wall time, runs/s, the driver's CPU time per run (this
process: planning, scheduling, recording; user + sys) and the workers' CPU time per run
(user + sys of every other process of the pool or cluster, read before they exit; with
a LocalCluster the Dask scheduler runs in this process and counts as the driver's), and
the machine's load average before the sweep. The driver's libraries (DuckDB, pyarrow,
the store) are imported before the clock starts: a one-time cost, not a cost per run.
The store is a fresh temporary one, removed at the end. Uses only the public API, so the
same script measures any version (``PYTHONPATH=<other checkout>/python``).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path


def cpu_of(processes) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except Exception:  # gone already
            pass
    return total


def executor(arguments):
    """The executor ``cclab sweep`` would use, or a process pool of one (``--pool``),
    started (and warmed up, where the version does) the way it starts a pool of two."""
    import contextlib
    from concurrent.futures import ProcessPoolExecutor

    try:
        from cclab.runs import executors
    except ImportError:  # a version from before the runner was split by job
        from cclab.runs import runner as executors

    if not (arguments.pool and arguments.workers == 1 and arguments.executor == "local"):
        return executors.open_executor(arguments.executor, arguments.workers, arguments.scheduler)

    @contextlib.contextmanager
    def one():
        if hasattr(executors, "warm_up"):
            executors.warm_up()
        with ProcessPoolExecutor(max_workers=1) as pool:
            pool.submit(os.getpid).result()
            yield pool

    return one()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("plan")
    parser.add_argument("--executor", default="local")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--scheduler", default=None,
                        help="an existing Dask scheduler (tcp://host:8786): the driver is then only the client "
                             "(the workers' CPU is not measured)")
    parser.add_argument("--pool", action="store_true",
                        help="with --workers 1: a process pool of one worker (default: runs in this process, "
                             "as `cclab sweep --workers 1` does)")
    arguments = parser.parse_args()

    import psutil

    from cclab.runs.plan import load_plan
    from cclab.runs.runner import run_plan

    # The driver's libraries are imported before the clock starts (a one-time cost of
    # ~0.3 s of CPU, the same for any number of runs): what is measured is per run.
    import duckdb  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import cclab.results  # noqa: F401
    import cclab.store.sweeps  # noqa: F401

    me = psutil.Process()
    load = os.getloadavg()[0]
    scratch = Path(tempfile.mkdtemp(prefix="cclab-sweep-bench-"))
    try:
        with executor(arguments) as pool:
            others = [p for p in me.children(recursive=True)]
            if arguments.executor == "dask":  # the cluster's processes are children of this one too
                others = me.children(recursive=True)
            workers_before = cpu_of(others)
            before = me.cpu_times()
            started = time.perf_counter()
            plan = load_plan(arguments.plan)
            plan.runs()  # as the CLI does: every point checked before anything runs
            outcome = run_plan(plan, pool, store=scratch / "store.duckdb")
            wall = time.perf_counter() - started
            after = me.cpu_times()
            workers_after = cpu_of(others)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    driver = (after.user - before.user) + (after.system - before.system)
    runs = outcome.ran
    print(json.dumps({
        "plan": Path(arguments.plan).name, "executor": arguments.executor + ("-pool" if arguments.pool else ""),
        "workers": arguments.workers, "code": str(Path(__import__("cclab").__file__).parent.parent),
        "runs": runs, "failed": outcome.failed, "wall_s": round(wall, 3), "runs_per_s": round(runs / wall, 2),
        "driver_cpu_ms_per_run": round(1000 * driver / runs, 3),
        "worker_cpu_ms_per_run": None if arguments.scheduler else round(1000 * (workers_after - workers_before) / runs, 3),
        "scheduler": arguments.scheduler,
        "load_before": round(load, 2),
    }), flush=True)


if __name__ == "__main__":
    main()
