"""The one way cclab runs many scenarios: on an executor, with a progress bar, each run's
error captured, optionally into a results store.

* :func:`run_many`: scenarios → results, in input order (``cclab.run_many``).
* :func:`run_stored`: runs → the results store, skipping those already stored; the
  workers write them, the driver records them (sweeps and paper reproductions; a killed
  driver resumes).
* :func:`run_plan`: a sweep plan through :func:`run_stored` (``cclab sweep``).

Executors (:mod:`cclab.runs.executors`): anything with ``submit(fn, arg)`` whose futures
have ``result()``: a ``concurrent.futures`` pool, a ``dask.distributed.Client``, a
``RayExecutor``, or by name ``local``, ``dask``, ``ray``. Without one, runs go to a
process pool of ``jobs`` workers (all cores), or with ``jobs=1`` run in this process.
Runs start costliest first, so the pool stays busy to the end
(:mod:`cclab.runs.scheduling`); what a worker does with them is
:mod:`cclab.runs.workers`. A run that raises is reported as data (its one-line error): :func:`run_stored`
stores the failure and goes on (the next call retries it); :func:`run_many` raises
:class:`RunFailed` naming the run, or with ``errors="keep"`` returns the failure in its
place.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import BrokenExecutor
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Optional, Union

from cclab.cc import bind_objects
from cclab.errors import SweepError
from cclab.results import Result
from cclab.runs.executors import owned_executor, worker_count
from cclab.runs.plan import Plan, PlanSource, Run, load_plan
from cclab.runs.scheduling import chunk_feeder, estimated_cost, in_completion_order
from cclab.runs.workers import PlanRef, local_provenance, simulate, simulate_batch
from cclab.core import validate_json
from cclab.scenario import load_scenario, parse_memory, scenario_json

DEFAULT_STORE_DIR = Path("results") / "sweeps"
# A sweep's driver records the chunks its workers finished at most this often (and at
# the end), each time in one transaction.
WRITE_EVERY_S = 1.0


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
    if errors not in ("raise", "keep"):
        raise ValueError(f"errors={errors!r}: choose 'raise' or 'keep'")
    # A class as a group's cc, as cclab.run takes it: bound before the pool starts, so
    # its forked workers know it (another executor's workers are told to name a file).
    loaded = [load_scenario(bind_objects(source)) for source in scenarios]
    payloads = [scenario_json(scenario) for scenario in loaded]
    # validated as loaded: loading again would read the trace files a second time into
    # schedules that already hold their opportunities (refused: file and opportunities)
    for payload in payloads:
        validate_json(payload)
    results: list[Any] = [None] * len(payloads)
    work = functools.partial(simulate, max_memory=parse_memory(max_memory), keep="result")
    label = progress if isinstance(progress, str) else "runs"
    with owned_executor(executor, jobs, len(payloads)) as pool, \
            progress_reporter(bool(progress), label, len(payloads), 0) as report:
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
    # (the store brings pandas, pyarrow and DuckDB: imported by a sweep, not by run_many)
    from cclab.store.sweeps import FinishedRun, SweepStore

    runs = list({run.run_id: run for run in runs}.values())
    store_path = Path(store)
    started = time.perf_counter()
    # The pool's workers start before the store opens: they must not be forked from a
    # process running DuckDB's threads.
    with owned_executor(executor, jobs, len(runs)) as pool, SweepStore(store_path) as results:
        results.record_plan(batch)
        stored = results.stored_run_ids()
        pending = [run for run in runs if run.run_id not in stored]
        outcome = SweepOutcome(batch, store_path, total=len(runs), skipped=len(runs) - len(pending))
        plan_ref = PlanRef(batch.hash, batch.name)
        with progress_reporter(progress, batch.name, outcome.total, outcome.skipped) as report:
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


def _write_here(results: Any, plan: PlanRef, finished: list) -> str:
    from cclab.store.sweeps import write_part  # (pandas and pyarrow, as in run_stored)

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


# ---------------------------------------------------------------- progress
@contextlib.contextmanager
def progress_reporter(enabled: bool, label: str, total: int, skipped: int):
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
