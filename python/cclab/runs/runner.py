"""Running sweep plans on an executor and storing every run as it finishes.

:func:`run_plan` expands a plan into runs, skips those already in the results store,
submits the rest to an executor — anything with ``submit(fn, arg)`` whose futures have
``result()`` (and ideally ``add_done_callback``): a ``concurrent.futures`` pool, a
``dask.distributed.Client``, :class:`RayExecutor` — and writes each finished run from
this process (the driver) in one transaction. A run that raises is stored with its
error and the sweep goes on; the next sweep of the plan retries it.

Executors by name (:func:`open_executor`): ``local`` (a process pool), ``dask`` (a
``LocalCluster`` of worker processes, or an existing scheduler), ``ray``. Dask and Ray
are optional dependencies, imported only when asked for.
"""
from __future__ import annotations

import contextlib
import functools
import os
import queue
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Optional, TypeVar

from cclab.errors import SweepError
from cclab.runs.plan import Plan, PlanSource, Run, load_plan

EXECUTORS = ("local", "dask", "ray")
DEFAULT_STORE_DIR = Path("results") / "sweeps"
Item = TypeVar("Item")


@dataclass
class SweepOutcome:
    """What one call of :func:`run_plan` did."""

    plan: Plan
    store: Path
    total: int  # runs in the plan
    skipped: int  # already stored before this call
    succeeded: int = 0
    failed: int = 0
    wall_time_s: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (run_id, error)

    @property
    def ran(self) -> int:
        return self.succeeded + self.failed

    @property
    def runs_per_minute(self) -> float:
        return 60.0 * self.ran / self.wall_time_s if self.wall_time_s > 0 else float("nan")


def default_store_path(plan: Plan) -> Path:
    return DEFAULT_STORE_DIR / f"{plan.name}.duckdb"


def run_plan(plan: PlanSource, executor: Any = None, *, store: str | PathLike | None = None,
             jobs: Optional[int] = None, progress: bool = False,
             on_run: Optional[Callable[[Run, str], None]] = None, max_memory: Optional[int] = None) -> SweepOutcome:
    """Run every run of ``plan`` not yet in ``store`` (default ``results/sweeps/<name>.duckdb``).

    ``executor``: any executor (see the module docs); default a process pool of ``jobs``
    workers (all cores). ``progress``: a progress bar on stderr (one line per run when
    stderr is not a terminal). ``on_run(run, status)`` is called after each run is stored.
    ``max_memory``: bytes a run may need (default the engine's 8 GiB); a run above it
    fails with its one-line error, the sweep goes on. Every run is validated before any
    starts.
    """
    from cclab.store.sweeps import SweepStore

    plan = load_plan(plan)
    runs = list({run.run_id: run for run in plan.runs()}.values())
    store_path = Path(store) if store is not None else default_store_path(plan)
    started = time.perf_counter()
    # The pool's workers start before the store opens: they must not be forked from a
    # process running DuckDB's threads.
    with _owned_executor(executor, jobs, len(runs)) as pool, SweepStore(store_path) as results:
        results.record_plan(plan)
        stored = results.stored_run_ids()
        pending = [run for run in runs if run.run_id not in stored]
        outcome = SweepOutcome(plan, store_path, total=len(runs), skipped=len(runs) - len(pending))
        with _progress_reporter(progress, plan.name, outcome) as report:
            try:
                work = functools.partial(simulate, max_memory=max_memory)
                for run, future in in_completion_order(pool, work, pending, payload=lambda r: r.scenario_json):
                    status = _store_finished(results, plan, run, future, outcome)
                    report(run, status)
                    if on_run is not None:
                        on_run(run, status)
            except BrokenExecutor as error:
                raise SweepError(f"the executor broke ({error}); {outcome.ran} of {len(pending)} runs were stored, "
                                 "run the same sweep again to resume") from None
    outcome.wall_time_s = time.perf_counter() - started
    return outcome


def _store_finished(results, plan: Plan, run: Run, future: Any, outcome: SweepOutcome) -> str:
    try:
        reply = future.result()
    except BrokenExecutor:
        raise
    except Exception as error:  # the executor lost the run (e.g. Dask's KilledWorker)
        reply = {"status": "error", "error": f"{type(error).__name__}: {error}", **local_provenance()}
    if reply["status"] == "ok":
        results.record_result(plan, run, reply["system"], reply["tables"], reply)
        outcome.succeeded += 1
    else:
        results.record_failure(plan, run, reply["error"], reply)
        outcome.failed += 1
        outcome.failures.append((run.run_id, reply["error"]))
    return reply["status"]


def simulate(scenario_json: str, max_memory: Optional[int] = None) -> dict[str, Any]:
    """Worker entry point: run one scenario; never raises, reports failures as data.

    Returns ``{"status": "ok", "system": {...}, "tables": {name: DataFrame}, ...}`` —
    the tables are built here, in the worker, so the driver only writes them — or
    ``{"status": "error", "error": "..."}``; both with the worker's provenance (version,
    git commit, host).
    """
    from cclab.core import run_json

    try:
        from cclab.results import Result

        result = Result.from_json(run_json(scenario_json, max_memory))
        return {"status": "ok", "system": result.system, "tables": result.tables(), **local_provenance()}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # the engine's panics are BaseExceptions
        message = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
        return {"status": "error", "error": f"{type(error).__name__}: {message}", **local_provenance()}


def _exit_with_parent(parent: int) -> None:
    """Pool worker set-up: end when the driver does, however it ends (a SIGKILLed driver
    otherwise leaves its workers running, orphaned). Linux: the kernel's parent-death
    signal; elsewhere a thread that watches the parent."""
    import signal
    import threading

    try:
        import ctypes

        PR_SET_PDEATHSIG = 1
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM) == 0:
            if os.getppid() != parent:  # the driver died before the signal was set
                os._exit(1)
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="cclab-exit-with-parent").start()


@functools.lru_cache(maxsize=1)
def local_provenance() -> dict[str, Optional[str]]:
    """cclab version, git commit of the source tree (``+dirty`` when it has local changes;
    None outside a git checkout) and host name of this process."""
    from cclab.core import version

    source = Path(__file__).resolve().parent
    commit = None
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        head = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
        if head.returncode == 0:
            dirty = subprocess.run(["git", "-C", str(source), "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=10).stdout.strip()
            commit = head.stdout.strip() + ("+dirty" if dirty else "")
    return {"cclab_version": version(), "git_commit": commit, "host": socket.gethostname()}


# ---------------------------------------------------------------- executors
def in_completion_order(executor: Any, fn: Callable[[Any], Any], items: Iterable[Item],
                        payload: Callable[[Item], Any] = lambda item: item) -> Iterator[tuple[Item, Any]]:
    """Submit ``fn(payload(item))`` for every item; yield ``(item, future)`` as each finishes.

    Works with any futures that have ``add_done_callback`` (concurrent.futures, Dask);
    others are awaited in submission order. Leaving early cancels what has not started.
    """
    items = list(items)
    futures = [executor.submit(fn, payload(item)) for item in items]
    try:
        if not all(hasattr(future, "add_done_callback") for future in futures):
            yield from zip(items, futures)  # the caller's future.result() waits
            return
        finished: queue.Queue = queue.Queue()
        for index, future in enumerate(futures):
            future.add_done_callback(functools.partial(_put_index, finished, index))
        for _ in futures:
            index = finished.get()
            yield items[index], futures[index]
    finally:
        for future in futures:
            future.cancel()


def _put_index(finished: queue.Queue, index: int, _future: Any) -> None:
    finished.put(index)


@contextlib.contextmanager
def _owned_executor(executor: Any, jobs: Optional[int], runs: int):
    """``executor`` itself, or a process pool we create and shut down."""
    if executor is not None:
        yield executor
        return
    workers = max(1, min(jobs or os.cpu_count() or 1, max(runs, 1)))
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_exit_with_parent, initargs=(os.getpid(),))
    try:
        pool.submit(os.getpid).result()  # starts the workers now (all of them, with fork)
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def open_executor(name: str, workers: Optional[int] = None, scheduler: Optional[str] = None) -> Iterator[Any]:
    """An executor by name, shut down on exit.

    * ``local``: a process pool of ``workers`` processes (default: one per core).
    * ``dask``: a client of the scheduler at ``scheduler`` (e.g. ``tcp://host:8786``, a
      cluster started by ``dask scheduler`` / ``dask worker`` or dask-jobqueue on SLURM),
      or without one a ``LocalCluster`` of ``workers`` single-threaded worker processes.
    * ``ray``: :class:`RayExecutor` on the Ray cluster at ``scheduler`` (or a local one).
    """
    if name == "local":
        if scheduler is not None:
            raise SweepError("--scheduler needs --executor dask or ray")
        with _owned_executor(None, workers, runs=workers or os.cpu_count() or 1) as pool:
            yield pool
    elif name == "dask":
        with _dask_client(workers, scheduler) as client:
            yield client
    elif name == "ray":
        executor = RayExecutor(address=scheduler, num_cpus=workers)
        try:
            yield executor
        finally:
            executor.shutdown()
    else:
        raise SweepError(f"--executor {name}: unknown executor (choose {', '.join(EXECUTORS)})")


@contextlib.contextmanager
def _dask_client(workers: Optional[int], scheduler: Optional[str]):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise SweepError("--executor dask needs dask.distributed: pip install 'cclab[dask]'") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except OSError as error:
            raise SweepError(f"--scheduler {scheduler}: cannot connect ({error})") from None
        with client:
            yield client
        return
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    with cluster, Client(cluster) as client:
        yield client


class RayExecutor(Executor):
    """A ``concurrent.futures.Executor`` over Ray tasks (``pip install 'cclab[ray]'``)."""

    def __init__(self, address: Optional[str] = None, num_cpus: Optional[int] = None):
        try:
            import ray
        except ImportError:
            raise SweepError("--executor ray needs ray: pip install 'cclab[ray]'") from None
        self._ray = ray
        self._owns_runtime = not ray.is_initialized()
        if self._owns_runtime:
            ray.init(address=address, num_cpus=None if address else num_cpus, log_to_driver=False)
        self._remote = {}

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = self._ray.remote(fn)
        return remote.remote(*args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._owns_runtime and self._ray.is_initialized():
            self._ray.shutdown()


# ---------------------------------------------------------------- progress
@contextlib.contextmanager
def _progress_reporter(enabled: bool, label: str, outcome: SweepOutcome):
    """Yield ``report(run, status)``: a rich bar (done/total, failures, ETA) on a terminal,
    one line per run otherwise (batch logs, e.g. SLURM), nothing when disabled."""
    total = outcome.total - outcome.skipped
    if not enabled:
        yield lambda run, status: None
        return
    from rich.console import Console

    console = Console(stderr=True)
    if outcome.skipped:
        console.print(f"{label}: {outcome.skipped} of {outcome.total} runs already stored, {total} to run",
                      highlight=False)
    if not console.is_terminal:
        def report_line(run: Run, status: str) -> None:
            params = " ".join(f"{path}={value}" for path, value in run.point.items())
            print(f"[{outcome.ran}/{total}] {status} run={run.run_id} rep={run.replication} {params}",
                  file=sys.stderr, flush=True)

        yield report_line
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(), TextColumn("ETA"),
               TimeRemainingColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(label, total=total, failed=0)
        yield lambda run, status: bar.update(task, advance=1, failed=outcome.failed)
