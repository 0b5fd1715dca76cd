"""What a worker does with a run: simulate it in an engine (:func:`simulate`: cclab's, or
ns-2.35 through :mod:`cclab.ns2`), never raising, its failure reported as data; for a
stored sweep, simulate a chunk and write it as one part of the store
(:func:`simulate_batch`). Every reply carries the worker's provenance
(:func:`local_provenance`)."""
from __future__ import annotations

import contextlib
import functools
import json
import socket
import subprocess
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from cclab.core import version
from cclab.ns2.run import run as run_ns2
from cclab.results import Result
from cclab.runs.engine import run_json
from cclab.runs.plan import Run

ENGINES = ("cclab", "ns2")


@dataclass(frozen=True)
class PlanRef:
    """What the workers need to know of the plan or batch they run: its hash and name."""

    hash: str
    name: str


def simulate_batch(runs: Sequence[Run], plan: PlanRef, parts: str, max_memory: Optional[int] = None,
                   keep: str = "tables", measure: Optional[Callable[[Any, Run], Any]] = None,
                   engine: str = "cclab") -> dict[str, Any]:
    """Worker entry point of a stored sweep: run each of ``runs`` (:func:`simulate`) and
    write them as one part of the store whose parts directory is ``parts``
    (:func:`cclab.store.sweeps.write_part`). Returns ``{"status": "ok", "part": id,
    "runs": [(status, error), ...]}`` in the order of ``runs``, or ``{"status":
    "store-error", "error": ...}`` when the part cannot be written; both with the
    worker's provenance."""
    # (the store's parts are written with pandas and pyarrow: imported by a worker that writes one)
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
        return json.dumps(run_ns2(json.loads(scenario_json)).raw)
    if engine != "cclab":
        raise ValueError(f"engine {engine!r}: choose one of {', '.join(ENGINES)}")
    return run_json(scenario_json, max_memory)


@functools.lru_cache(maxsize=1)
def local_provenance() -> dict[str, Optional[str]]:
    """cclab version, git commit of the source tree (``+dirty`` when it has local changes;
    None outside a git checkout) and host name of this process."""
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
