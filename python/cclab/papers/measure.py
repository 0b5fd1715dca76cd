"""Measuring a paper's runs: the tables each figure point takes from a run's result
(:func:`measure_run`, in the worker that simulated it or on stored results), read back
from the results store (:func:`stored_measurements`), and the version of the code that
measures, stored beside them so that tables measured by other code are measured again.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from cclab.core import version
from cclab.errors import StoreError
from cclab.papers.paper import Paper, ReproduceError, Tables
from cclab.papers.registry import paper_named
from cclab.results import Result
from cclab.store.sweeps import SweepStore, point_key

# The modules of the framework every paper's tables and figures come through.
FRAMEWORK_SOURCES = ("framework.py", "paper.py", "measure.py", "figure_files.py")


def measure_run(paper_key: str, result: Any, run: Any) -> list[Tables]:
    """The tables each figure point served by ``run`` takes from its result, labelled
    (protocol, x, seed, ...). Runs where the result is: in the worker that simulated it,
    or on stored results."""
    paper = paper_named(paper_key)
    return [label_tables(paper.measure(paper.figures[point.figure], result, point), point.labels)
            for point in run.context]


class Measurement:
    """``measure(result, run)`` of a paper's runs, as the workers call it
    (:func:`measure_run`); ``version`` names the code that measures (a hash of its
    source), stored with what it measured so that a reproduction drawn later by changed
    code measures again instead of reading stale tables."""

    def __init__(self, paper_key: str):
        self.paper_key = paper_key

    def __call__(self, result: Any, run: Any) -> list[Tables]:
        return measure_run(self.paper_key, result, run)

    @property
    def version(self) -> str:
        return measure_version(self.paper_key)


@functools.lru_cache(maxsize=None)
def measure_version(paper_key: str) -> str:
    """A hash of cclab's version and of the source a paper's figure tables come from:
    its package, this framework, the result views, the analysis and the engine (its
    Python face and native module)."""
    package = Path(__file__).resolve().parent.parent
    files = [*paper_sources(paper_key), package / "results.py", package / "core.py",
             *sorted((package / "analysis").glob("*.py"))]
    files += sorted(package.glob("_core*.so")) + sorted(package.glob("_core*.pyd"))  # the engine's helpers
    return source_digest(files).hexdigest()[:16]


def paper_sources(paper_key: str) -> list[Path]:
    """A paper's package and the framework every paper shares (its measuring and drawing)."""
    papers = Path(__file__).resolve().parent
    return [*sorted((papers / paper_key).glob("*.py")), *(papers / name for name in FRAMEWORK_SOURCES)]


def source_digest(files: Sequence[Path]):
    digest = hashlib.sha256(version().encode())
    for file in files:
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest


def stored_measurements(paper: Paper, runs: Sequence[Any], store_path: Path,
                        jobs: Optional[int]) -> dict[str, list[Tables]]:
    """run_id -> per point of ``run.context``, its figure tables, from the store: read
    in columns as the workers stored them, or, for runs measured by other code (or
    stored before measurements were), measured again from their whole results."""
    try:
        with SweepStore(store_path, read_only=True) as store:
            index, tables = store.measured([run.run_id for run in runs], measure_version(paper.key))
    except StoreError as error:
        raise ReproduceError(str(error)) from None
    rows = {key: frame.groupby(["_run_id", "_point"], sort=False).indices for key, frame in tables.items()}
    measured: dict[str, list[Tables]] = {}
    again = []
    for run in runs:
        per_point = []
        for point in run.context:
            figure, key = str(point.figure), point_key(point.labels)
            names = index.get((run.run_id, figure, key))
            if names is None or any((figure, name) not in tables for name in names):
                break
            per_point.append({name: tables[(figure, name)].iloc[rows[(figure, name)].get((run.run_id, key), [])]
                              .drop(columns=["_run_id", "_point"]).reset_index(drop=True) for name in names})
        else:
            measured[run.run_id] = per_point
            continue
        again.append(run)
    if again:
        measured.update(_measure_stored(paper, again, store_path, jobs, total=len(runs)))
    return measured


def _measure_blob(paper_key: str, result_json_zlib: bytes, run: Any) -> list[Tables]:
    return measure_run(paper_key, Result(json.loads(zlib.decompress(result_json_zlib))), run)


def _measure_stored(paper: Paper, runs: Sequence[Any], store_path: Path, jobs: Optional[int],
                    total: Optional[int] = None) -> dict[str, list[Tables]]:
    """Measure runs from their stored results: read the compressed results first (the
    store is closed before any process is forked), then parse and measure them on a
    local process pool."""
    try:
        with SweepStore(store_path, read_only=True) as store:
            blobs = store.compressed_results(run.run_id for run in runs)
    except StoreError as error:
        raise ReproduceError(str(error)) from None
    absent = [run for run in runs if run.run_id not in blobs]
    if absent:
        raise ReproduceError(f"{store_path}: {len(absent)} of {total or len(runs)} runs of this reproduction are not "
                             "stored (same --quick/--seeds/--figure as when it ran? without --from-store they are simulated)")
    workers = max(1, min(jobs or os.cpu_count() or 1, len(runs)))
    if workers == 1 or len(runs) < 8:
        return {run.run_id: _measure_blob(paper.key, blobs[run.run_id], run) for run in runs}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {run.run_id: pool.submit(_measure_blob, paper.key, blobs.pop(run.run_id), run) for run in runs}
        return {run_id: future.result() for run_id, future in futures.items()}


def label_tables(tables: Tables, labels: dict) -> Tables:
    """Prefix every table with the point's labels (protocol, x, seed, ...) as columns."""
    labelled = {}
    for name, table in tables.items():
        table = table.copy()
        for position, (key, value) in enumerate(labels.items()):
            table.insert(position, key, value)
        labelled[name] = table
    return labelled


def concat_tables(per_run: list[Tables]) -> Tables:
    """One table per name across runs (a name missing from some runs is allowed)."""
    names = list(dict.fromkeys(name for tables in per_run for name in tables))
    return {name: pd.concat([t[name] for t in per_run if name in t], ignore_index=True) for name in names}
