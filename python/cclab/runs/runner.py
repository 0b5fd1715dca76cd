"""The one way cclab runs many scenarios: on an executor, with a progress bar, each run's
error captured, optionally into a results store.

* :func:`run_many`: scenarios → results, in input order (``cclab.run_many``).
* :func:`run_stored`: runs → the results store, skipping those already stored; the
  workers write them, the driver records them (sweeps and paper reproductions; a killed
  driver resumes).
* :func:`run_plan`: a sweep plan through :func:`run_stored` (``cclab sweep``).

Executors: anything with ``submit(fn, arg)`` whose futures have ``result()`` (and
ideally ``add_done_callback``): a ``concurrent.futures`` pool, a
``dask.distributed.Client``, :class:`RayExecutor`. By name (:func:`open_executor`):
``local`` (a process pool), ``dask`` (a ``LocalCluster`` of worker processes, or an
existing scheduler), ``ray``; Dask and Ray are optional, imported only when asked for.
Without one, runs go to a process pool of ``jobs`` workers (all cores), or with
``jobs=1`` run in this process. Runs start costliest first, so the pool stays busy to
the end. A run that raises is reported as data (its one-line error): :func:`run_stored`
stores the failure and goes on (the next call retries it); :func:`run_many` raises
:class:`RunFailed` naming the run, or with ``errors="keep"`` returns the failure in its
place.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import queue
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Optional, TypeVar, Union

from cclab.errors import SweepError
from cclab.runs.plan import Plan, PlanSource, Run, load_plan

EXECUTORS = ("local", "dask", "ray")
ENGINES = ("cclab", "ns2")
DEFAULT_STORE_DIR = Path("results") / "sweeps"
# A sweep's driver records the chunks its workers finished at most this often (and at
# the end), each time in one transaction.
WRITE_EVERY_S = 1.0
# The workers' chunks of runs: at most this much work each (at the run time measured so
# far) and this many runs, with this many chunks per worker in flight. A killed sweep
# loses at most the chunks in flight: about 2 × WORK_PER_CHUNK_S of each worker's time.
WORK_PER_CHUNK_S = 2.0
# ... and at least this much (once measured): a chunk's part costs its worker a fixed
# ~10–20 ms of Parquet writing, which single-run chunks of 10-ms runs would double.
MIN_WORK_PER_CHUNK_S = 0.25
MAX_CHUNK = 200
CHUNKS_PER_WORKER = 2
# How often a cluster is asked how many workers it has.
WORKERS_EVERY_S = 2.0
Item = TypeVar("Item")


@dataclass
class SweepOutcome:
    """What one call of :func:`run_stored` (or :func:`run_plan`) did."""

    plan: Any  # the Plan or Batch recorded
    store: Path
    total: int  # distinct runs asked for
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


@dataclass(frozen=True)
class Batch:
    """A named set of runs that is not a sweep plan (a paper reproduction), as the store
    records it: ``document`` says what was run (paper, sizes, figures, seeds)."""

    name: str
    document: dict
    kind: str = "reproduction"

    @property
    def hash(self) -> str:
        return hashlib.sha256(json.dumps(self.document, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps({self.kind: self.document})


@dataclass(frozen=True)
class RunFailure:
    """A run of :func:`run_many` that failed (``errors="keep"``): its place and error."""

    index: int
    name: str
    error: str


class RunFailed(RuntimeError):
    """A run of :func:`run_many` failed (the message names it and says why)."""


def default_store_path(plan: Plan) -> Path:
    return DEFAULT_STORE_DIR / f"{plan.name}.duckdb"


def run_many(scenarios: Iterable[Any], executor: Any = None, *, jobs: Optional[int] = None,
             progress: Union[bool, str, None] = None, on_result: Optional[Callable[[int, Any], None]] = None,
             max_memory: Union[str, int, None] = None, errors: str = "raise") -> list:
    """Run many scenarios (paths, dicts); return their :class:`cclab.Result` in input order.

    Every scenario is validated first, so a bad one fails (:class:`cclab.ScenarioError`)
    before any runs. ``on_result(index, result)`` is called as each finishes.
    ``progress``: a progress bar on stderr (a string is its label). ``errors``:
    ``"raise"`` (a failed run raises :class:`RunFailed` naming it; the rest are
    cancelled) or ``"keep"`` (its :class:`RunFailure` takes its place).
    """
    from cclab.results import Result
    from cclab.scenario import load_scenario, parse_memory, scenario_json, validate

    if errors not in ("raise", "keep"):
        raise ValueError(f"errors={errors!r}: choose 'raise' or 'keep'")
    from cclab.cc import bind_objects

    # A class as a group's cc, as cclab.run takes it: bound before the pool starts, so
    # its forked workers know it (another executor's workers are told to name a file).
    loaded = [load_scenario(bind_objects(source)) for source in scenarios]
    for scenario in loaded:
        validate(scenario)
    payloads = [scenario_json(scenario) for scenario in loaded]
    results: list[Any] = [None] * len(payloads)
    work = functools.partial(simulate, max_memory=parse_memory(max_memory), keep="result")
    label = progress if isinstance(progress, str) else "runs"
    with _owned_executor(executor, jobs, len(payloads)) as pool, \
            _progress_reporter(bool(progress), label, len(payloads), 0) as report:
        for index, future in in_completion_order(pool, work, range(len(payloads)), payload=payloads.__getitem__,
                                                 cost=lambda index: estimated_cost(loaded[index])):
            reply = _reply(future)
            if reply["status"] != "ok":
                name = loaded[index].get("name", "")
                if errors == "raise":
                    raise RunFailed(f"run {index}{f' ({name})' if name else ''}: {reply['error']}")
                results[index] = RunFailure(index, name, reply["error"])
                report(f"run {index}", "error")
                continue
            results[index] = Result(json.loads(zlib.decompress(reply["result_json_zlib"])))
            report(f"run {index}", "ok")
            if on_result is not None:
                on_result(index, results[index])
    return results


def run_plan(plan: PlanSource, executor: Any = None, *, store: str | PathLike | None = None,
             jobs: Optional[int] = None, progress: bool = False,
             on_run: Optional[Callable[[Run, str], None]] = None, max_memory: Optional[int] = None) -> SweepOutcome:
    """Run every run of ``plan`` not yet in ``store`` (default ``results/sweeps/<name>.duckdb``).

    ``executor``, ``jobs``: see the module docs. ``progress``: a progress bar on stderr
    (one line per run when stderr is not a terminal). ``on_run(run, status)`` is called
    after each run is stored. ``max_memory``: bytes a run may need (default the engine's
    8 GiB); a run above it fails with its one-line error, the sweep goes on. Every run is
    validated before any starts.
    """
    plan = load_plan(plan)
    store_path = Path(store) if store is not None else default_store_path(plan)
    return run_stored(plan.runs(), plan, store_path, executor, jobs=jobs, progress=progress, on_run=on_run,
                      max_memory=max_memory)


def run_stored(runs: Sequence[Run], batch: Any, store: str | PathLike, executor: Any = None, *,
               jobs: Optional[int] = None, progress: bool = False, on_run: Optional[Callable[[Run, str], None]] = None,
               max_memory: Optional[int] = None, tables: bool = True,
               measure: Optional[Callable[[Any, Run], Any]] = None, engine: str = "cclab") -> SweepOutcome:
    """Run each of ``runs`` (deduplicated by run id) not yet stored in ``store``, recording
    ``batch`` (a :class:`Plan` or :class:`Batch`).

    The runs go to the workers in chunks (:class:`chunk_feeder`: up to a couple of
    seconds of work each, single runs at the end, so every worker stays busy to the last
    run, two chunks per worker in flight); a worker runs its chunk and writes it to the
    store's parts itself (:func:`simulate_batch`): each run's system metrics, its whole
    result and, with ``tables``, its result tables (flows, bins, ...) for SQL. The driver
    only schedules and records which parts are complete, in one transaction for the
    chunks finished since its last (every :data:`WRITE_EVERY_S`), so it stays off the
    workers' path: a run is stored once recorded, a killed sweep loses only what was not
    recorded yet, and the next call runs that again. ``on_run(run, status)`` is called
    once the run is recorded. ``measure(result, run)`` (picklable: a module-level
    function or a partial of one; ``measure.version`` names the code) gives, in the
    worker, the figure tables of each point the run serves (``run.context``): a list of
    ``{name: DataFrame}``, stored with the run (:meth:`SweepStore.measured`). ``engine``:
    which simulator runs them (:data:`ENGINES`; ``ns2`` keep their results in a store of
    their own). The store must be on storage that every worker and the driver share.
    """
    from cclab.store.sweeps import FinishedRun, SweepStore

    runs = list({run.run_id: run for run in runs}.values())
    store_path = Path(store)
    started = time.perf_counter()
    # The pool's workers start before the store opens: they must not be forked from a
    # process running DuckDB's threads.
    with _owned_executor(executor, jobs, len(runs)) as pool, SweepStore(store_path) as results:
        results.record_plan(batch)
        stored = results.stored_run_ids()
        pending = [run for run in runs if run.run_id not in stored]
        outcome = SweepOutcome(batch, store_path, total=len(runs), skipped=len(runs) - len(pending))
        plan_ref = PlanRef(batch.hash, batch.name)
        with _progress_reporter(progress, batch.name, outcome.total, outcome.skipped) as report:
            unrecorded: list[tuple[list[Run], dict[str, Any]]] = []
            seen_hosts: set[Optional[str]] = set()
            last_write = time.perf_counter()

            def write() -> None:
                nonlocal last_write
                results.record_parts(plan_ref, [(run.run_id, reply["part"], status) for chunk, reply in unrecorded
                                                for run, (status, _) in zip(chunk, reply["runs"])])
                for chunk, reply in unrecorded:
                    for run, (status, error) in zip(chunk, reply["runs"]):
                        if status == "ok":
                            outcome.succeeded += 1
                        else:
                            outcome.failed += 1
                            outcome.failures.append((run.run_id, error))
                        params = " ".join(f"{path}={value}" for path, value in run.point.items())
                        report(f"run={run.run_id} rep={run.replication} {params}", status)
                        if on_run is not None:
                            on_run(run, status)
                unrecorded.clear()
                last_write = time.perf_counter()

            try:
                work = functools.partial(simulate_batch, plan=plan_ref, parts=str(results.parts.resolve()),
                                         max_memory=max_memory, keep="tables" if tables else "system",
                                         measure=measure, engine=engine)
                completions = chunk_feeder(pool, work, pending, functools.partial(worker_count, pool),
                                           cost=lambda r: estimated_cost(r.scenario))
                for chunk, future in completions:
                    reply = _batch_reply(future, chunk)
                    completions.observe(len(chunk), reply.get("elapsed_s"))
                    if reply["status"] == "lost":  # the executor lost the chunk: its runs are failures
                        lost = [FinishedRun(run, reply, error=reply["error"]) for run in chunk]
                        reply = {"part": _write_here(results, plan_ref, lost),
                                 "runs": [("error", reply["error"])] * len(chunk)}
                    elif reply["status"] != "ok":
                        raise SweepError(reply["error"])
                    elif reply.get("host") not in seen_hosts:
                        _check_shared(results, reply)
                        seen_hosts.add(reply.get("host"))
                    unrecorded.append((chunk, reply))
                    # The workers never wait for this: each has another chunk, and
                    # writes its own runs. Recording at most every WRITE_EVERY_S keeps
                    # the driver's transactions few, whatever the number of workers.
                    if time.perf_counter() - last_write >= WRITE_EVERY_S:
                        write()
            except BrokenExecutor as error:
                write()
                raise SweepError(f"the executor broke ({error}); {outcome.ran} of {len(pending)} runs were stored, "
                                 "run the same command again to resume") from None
            finally:
                # What finished is kept whatever stopped the sweep (Ctrl-C included).
                if unrecorded:
                    write()
    outcome.wall_time_s = time.perf_counter() - started
    return outcome


@dataclass(frozen=True)
class PlanRef:
    """What the workers need to know of the plan or batch they run: its hash and name."""

    hash: str
    name: str


def _write_here(results: Any, plan: PlanRef, finished: list) -> str:
    from cclab.store.sweeps import write_part

    return write_part(results.parts, plan, finished)


def _check_shared(results: Any, reply: dict[str, Any]) -> None:
    """The first part from each worker host must be visible here: a store on a disk of
    the driver's that the workers do not share (or the other way round) stops the sweep
    at once. Network file systems may show a new file a moment late."""
    for _ in range(50):
        if results.part_is_visible(reply["part"]):
            return
        time.sleep(0.1)
    raise SweepError(f"a worker on {reply.get('host')} wrote part {reply['part']} of the store into "
                     f"{reply.get('parts')}, which this machine does not see: put the store on storage that the "
                     "driver and every worker share (the same path everywhere)")


def _reply(future: Any) -> dict[str, Any]:
    """The worker's reply; an executor that lost the run (e.g. Dask's KilledWorker) is a
    failed run, a broken pool stops everything."""
    try:
        return future.result()
    except BrokenExecutor:
        raise
    except Exception as error:
        return {"status": "error", "error": f"{type(error).__name__}: {error}", **local_provenance()}


def _batch_reply(future: Any, chunk: list[Run]) -> dict[str, Any]:
    """The worker's reply for a chunk; an executor that lost it (e.g. Dask's
    KilledWorker) makes its runs failures, a broken pool stops everything."""
    try:
        return future.result()
    except BrokenExecutor:
        raise
    except Exception as error:
        return {"status": "lost", "error": f"{type(error).__name__}: {error}", **local_provenance()}


class chunk_feeder:
    """Submit ``fn(chunk)`` for chunks of ``runs`` and yield ``(chunk, future)`` as each
    finishes, keeping :data:`CHUNKS_PER_WORKER` chunks per worker in flight (so a worker
    never waits for the driver, and a killed sweep loses at most those).

    Runs go costliest first (``cost``). A chunk is a quarter of the remaining runs' share
    of one worker (guided self-scheduling: large chunks first, small ones at the end, so
    the workers end together), at least :data:`MIN_WORK_PER_CHUNK_S` (a part's writing
    stays a small share of its chunk) and at most :data:`WORK_PER_CHUNK_S` of work at the run
    time measured so far (``elapsed_s`` of the replies; before the first reply, one run
    per chunk) and :data:`MAX_CHUNK` runs. :meth:`waiting` tells how many chunks have
    finished and not been yielded yet. Futures without ``add_done_callback`` (those that
    compute when asked, :class:`InlineExecutor`) are yielded in submission order. Leaving
    early cancels what has not started.
    """

    def __init__(self, executor: Any, fn: Callable[[list], Any], runs: Sequence[Run],
                 workers: Union[int, Callable[[], int]], cost: Optional[Callable[[Run], float]] = None):
        self._executor, self._fn = executor, fn
        # A callable is asked again every few seconds: a cluster's workers may come (or go)
        # during the sweep (dask-jobqueue jobs start when the batch system says so).
        self._count_workers = workers if callable(workers) else None
        self._workers = max(1, workers() if callable(workers) else workers)
        self._counted = time.perf_counter()
        self._runs = sorted(runs, key=cost, reverse=True) if cost is not None else list(runs)
        self._next = 0
        self._in_flight: dict[int, tuple[list, Any]] = {}
        self._order: list[int] = []  # submission order, for futures without callbacks
        self._finished: "queue.Queue[int]" = queue.Queue()
        self._callbacks: Optional[bool] = None
        self._submitted = 0
        self._measured_runs = 0
        self._measured_s = 0.0

    def chunk_size(self) -> int:
        remaining = len(self._runs) - self._next
        size = max(1, remaining // (4 * self._workers))
        if self._measured_runs:
            run_s = max(self._measured_s, 1e-9) / self._measured_runs
            size = max(size, int(MIN_WORK_PER_CHUNK_S / run_s))
            size = min(size, max(1, int(WORK_PER_CHUNK_S / run_s)))
        elif self._submitted < self._workers * CHUNKS_PER_WORKER:
            size = 1  # nothing measured yet: single runs until the first replies say how long a run takes
        return min(size, MAX_CHUNK, remaining)

    def observe(self, runs: int, elapsed_s: Optional[float]) -> None:
        """A chunk of ``runs`` took ``elapsed_s`` in its worker (the driver tells, from the reply)."""
        if elapsed_s is not None and runs:
            self._measured_runs += runs
            self._measured_s += elapsed_s

    def waiting(self) -> int:
        if not self._callbacks:
            return 0
        return self._finished.qsize()

    def _fill(self) -> None:
        if self._count_workers is not None and time.perf_counter() - self._counted >= WORKERS_EVERY_S:
            self._workers = max(1, self._count_workers())
            self._counted = time.perf_counter()
        while self._next < len(self._runs) and len(self._in_flight) < self._workers * CHUNKS_PER_WORKER:
            size = self.chunk_size()
            chunk = self._runs[self._next:self._next + size]
            self._next += size
            key = self._submitted
            self._submitted += 1
            future = submit(self._executor, self._fn, chunk)
            self._in_flight[key] = (chunk, future)
            self._order.append(key)
            if self._callbacks is None:
                self._callbacks = hasattr(future, "add_done_callback")
            if self._callbacks:
                future.add_done_callback(functools.partial(_put_index, self._finished, key))

    def __iter__(self) -> Iterator[tuple[list, Any]]:
        try:
            self._fill()
            while self._in_flight:
                key = self._finished.get() if self._callbacks else self._order[len(self._order) - len(self._in_flight)]
                chunk, future = self._in_flight.pop(key)
                yield chunk, future
                self._fill()
        finally:
            for _, future in self._in_flight.values():
                future.cancel()


def worker_count(executor: Any) -> int:
    """How many runs ``executor`` runs at once (a guess for executors it does not know)."""
    if isinstance(executor, InlineExecutor):
        return 1
    count = getattr(executor, "_max_workers", None)  # concurrent.futures pools
    if isinstance(count, int):
        return count
    with contextlib.suppress(Exception):
        if hasattr(executor, "nthreads") and hasattr(executor, "scheduler_info"):  # dask.distributed.Client
            return max(1, sum(executor.nthreads().values()))
    if isinstance(executor, RayExecutor):
        with contextlib.suppress(Exception):
            return max(1, int(executor._ray.cluster_resources().get("CPU", 1)))
    return os.cpu_count() or 1


def simulate_batch(runs: Sequence[Run], plan: PlanRef, parts: str, max_memory: Optional[int] = None,
                   keep: str = "tables", measure: Optional[Callable[[Any, Run], Any]] = None,
                   engine: str = "cclab") -> dict[str, Any]:
    """Worker entry point of a stored sweep: run each of ``runs`` (:func:`simulate`) and
    write them as one part of the store whose parts directory is ``parts``
    (:func:`cclab.store.sweeps.write_part`). Returns ``{"status": "ok", "part": id,
    "runs": [(status, error), ...]}`` in the order of ``runs``, or ``{"status":
    "store-error", "error": ...}`` when the part cannot be written; both with the
    worker's provenance."""
    from cclab.store.sweeps import FinishedRun, write_part

    started = time.perf_counter()
    finished = []
    for run in runs:
        reply = simulate(run, max_memory=max_memory, keep=keep, measure=measure, engine=engine)
        if reply["status"] == "ok":
            finished.append(FinishedRun(run, reply, reply.get("system", {}), reply.get("tables", {}),
                                        reply["result_json_zlib"], measured=reply.get("measured"),
                                        measure_version=str(getattr(measure, "version", ""))))
        else:
            finished.append(FinishedRun(run, reply, error=reply["error"]))
    provenance = local_provenance()
    try:
        part = write_part(Path(parts), plan, finished)
    except OSError as error:
        return {"status": "store-error", "parts": parts, **provenance,
                "error": f"{provenance['host']} cannot write the store's parts in {parts}: "
                         f"{error.strerror or error}"}
    return {"status": "ok", "part": part, "parts": parts, "elapsed_s": time.perf_counter() - started, **provenance,
            "runs": [("ok", None) if done.ok else ("error", done.error) for done in finished]}


def simulate(job: Union[str, Run], max_memory: Optional[int] = None, keep: str = "tables",
             measure: Optional[Callable[[Any, Run], Any]] = None, engine: str = "cclab") -> dict[str, Any]:
    """Worker entry point: run one scenario (its JSON, or a :class:`Run`) in ``engine``
    (cclab, or ns-2.35 through :mod:`cclab.ns2`); never raises, reports failures as data.

    Returns ``{"status": "ok", "result_json_zlib": bytes, ...}`` with, when ``keep`` is
    ``"system"`` or ``"tables"``, the system metrics and, for ``"tables"``, the result
    tables (``{name: DataFrame}``, built here in the worker so the driver only writes
    them), and ``"measured": measure(result, run)`` when asked; or ``{"status": "error",
    "error": "..."}``. Both carry the worker's provenance (version, git commit, host).
    """
    try:
        raw = run_engine(engine, job if isinstance(job, str) else job.scenario_json, max_memory)
        reply: dict[str, Any] = {"status": "ok", "result_json_zlib": zlib.compress(raw.encode(), 1)}
        if keep in ("system", "tables"):
            from cclab.results import Result

            result = Result(json.loads(raw))
            reply["system"] = result.system
            if keep == "tables":
                reply["tables"] = result.tables()
            if measure is not None:
                reply["measured"] = measure(result, job)
        return {**reply, **local_provenance()}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # the engine's panics are BaseExceptions
        message = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
        return {"status": "error", "error": f"{type(error).__name__}: {message}", **local_provenance()}


def run_engine(engine: str, scenario_json: str, max_memory: Optional[int] = None) -> str:
    """One normalised scenario's result document (JSON) from ``engine``."""
    if engine == "ns2":
        from cclab.ns2.run import run as run_ns2

        return json.dumps(run_ns2(json.loads(scenario_json)).raw)
    if engine != "cclab":
        raise ValueError(f"engine {engine!r}: choose one of {', '.join(ENGINES)}")
    from cclab.runs.engine import run_json

    return run_json(scenario_json, max_memory)


def estimated_cost(scenario: Mapping[str, Any]) -> float:
    """Rough relative cost of a run, to start the costliest first: the fastest link's
    rate × duration (packets), ×5 when traced."""
    try:
        topology = scenario.get("topology") or {}
        links = [value for value in topology.values() if isinstance(value, Mapping) and "rate" in value]
        links += [link for link in topology.get("links") or [] if isinstance(link, Mapping) and "rate" in link]
        rate = max((_rate_bps(str(link["rate"])) for link in links), default=1e8)
        traced = 5 if any((scenario.get("trace") or {}).values()) else 1
        return rate * _duration_s(str(scenario.get("duration", "10s"))) * traced
    except Exception:  # the order is only a hint; validation reports bad values
        return 0.0


def warm_up() -> None:
    """Import what a worker needs to run and store runs (pandas, pyarrow, the engine):
    done in the driver before a process pool forks, and in each Dask worker once, so no
    run pays for it."""
    import pyarrow.parquet  # noqa: F401

    import cclab.core  # noqa: F401
    import cclab.results  # noqa: F401
    import cclab.store.sweeps  # noqa: F401
    from cclab.analysis import metrics  # noqa: F401


@functools.lru_cache(maxsize=4096)
def _rate_bps(text: str) -> int:
    from cclab.core import rate_bps

    return rate_bps(text)


@functools.lru_cache(maxsize=4096)
def _duration_s(text: str) -> float:
    from cclab.core import duration_s

    return duration_s(text)


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
class in_completion_order:
    """Submit ``fn(payload(item))`` for every item (the costliest first, when ``cost``
    is given); iterating yields ``(item, future)`` as each finishes, and :meth:`waiting`
    tells how many more have finished and not been yielded yet.

    Works with any futures that have ``add_done_callback`` (concurrent.futures, Dask);
    others are awaited in submission order. Leaving early cancels what has not started.
    """

    def __init__(self, executor: Any, fn: Callable[[Any], Any], items: Iterable[Item],
                 payload: Callable[[Item], Any] = lambda item: item, cost: Optional[Callable[[Item], float]] = None):
        self._items = list(items)
        if cost is not None:
            self._items.sort(key=cost, reverse=True)  # stable: equal costs keep their order
        self._futures = [submit(executor, fn, payload(item)) for item in self._items]
        self._finished: Optional[queue.Queue] = None
        self._yielded = 0
        if all(hasattr(future, "add_done_callback") for future in self._futures):
            self._finished = queue.Queue()
            for index, future in enumerate(self._futures):
                future.add_done_callback(functools.partial(_put_index, self._finished, index))

    def waiting(self) -> int:
        if self._finished is None:  # futures that run when asked: all the rest are ready
            return len(self._futures) - self._yielded
        return self._finished.qsize()

    def __iter__(self) -> Iterator[tuple[Item, Any]]:
        try:
            for position in range(len(self._futures)):
                # Without callbacks, in submission order: the caller's future.result() waits.
                index = position if self._finished is None else self._finished.get()
                self._yielded += 1
                yield self._items[index], self._futures[index]
        finally:
            for future in self._futures:
                future.cancel()


def submit(executor: Any, fn: Callable, argument: Any) -> Any:
    """``executor.submit(fn, argument)``; to a Dask client as an impure task, which spares
    Dask hashing the argument (a chunk of whole scenarios) for a task key: ~3 ms of the
    driver's CPU per run otherwise."""
    if type(executor).__module__.startswith("distributed"):
        return executor.submit(fn, argument, pure=False)
    return executor.submit(fn, argument)


def _put_index(finished: queue.Queue, index: int, _future: Any) -> None:
    finished.put(index)


class InlineExecutor:
    """Runs each submitted call in this process when its result is asked for (``jobs=1``):
    one run at a time (a sweep stores them every :data:`WRITE_EVERY_S`)."""

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> "_Deferred":
        return _Deferred(functools.partial(fn, *args, **kwargs))


class _Deferred:
    """A future that computes on ``result()`` (no ``add_done_callback``: awaited in order)."""

    def __init__(self, call: Callable[[], Any]):
        self._call: Optional[Callable[[], Any]] = call
        self._value: Any = None

    def result(self) -> Any:
        if self._call is not None:
            self._value, self._call = self._call(), None
        return self._value

    def cancel(self) -> bool:
        self._call = None
        return True


@contextlib.contextmanager
def _owned_executor(executor: Any, jobs: Optional[int], runs: int):
    """``executor`` itself, this process (``jobs=1``), or a process pool we create and
    shut down."""
    if executor is not None:
        yield executor
        return
    if jobs == 1:
        yield InlineExecutor()
        return
    workers = max(1, min(jobs or os.cpu_count() or 1, max(runs, 1)))
    warm_up()  # the forked workers inherit what a run needs, instead of each importing it
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
            with contextlib.suppress(Exception):  # workers without cclab fail their runs, with a message
                client.run(warm_up)
            yield client
        return
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    with cluster, Client(cluster) as client:
        client.run(warm_up)
        yield client


def _call(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


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
        # One remote function that calls whatever it is given: ray.remote takes only plain
        # functions, and what is submitted is usually a partial (pickled with its task).
        self._remote = self._ray.remote(_call)

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        return self._remote.remote(fn, *args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._owns_runtime and self._ray.is_initialized():
            self._ray.shutdown()


# ---------------------------------------------------------------- progress
@contextlib.contextmanager
def _progress_reporter(enabled: bool, label: str, total: int, skipped: int):
    """Yield ``report(what, status)``, called once per finished run: a rich bar
    (done/total, failures, ETA) on a terminal, one line per run otherwise (batch logs,
    e.g. SLURM), nothing when disabled."""
    to_run = total - skipped
    if not enabled:
        yield lambda what, status: None
        return
    from rich.console import Console

    console = Console(stderr=True)
    if skipped:
        console.print(f"{label}: {skipped} of {total} runs already stored, {to_run} to run", highlight=False)
    done = {"runs": 0, "failed": 0}
    if not console.is_terminal:
        def report_line(what: str, status: str) -> None:
            done["runs"] += 1
            print(f"[{done['runs']}/{to_run}] {status} {what}", file=sys.stderr, flush=True)

        yield report_line
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(), TextColumn("ETA"),
               TimeRemainingColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(label, total=to_run, failed=0)

        def advance(what: str, status: str) -> None:
            done["failed"] += status != "ok"
            bar.update(task, advance=1, failed=done["failed"])

        yield advance
