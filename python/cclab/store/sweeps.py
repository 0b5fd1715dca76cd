"""The results store of sweeps and reproductions: Parquet parts written by the workers,
and a DuckDB catalog written only by the driver.

A store ``NAME.duckdb`` is that catalog plus the directory ``NAME.duckdb.parts/`` beside it
(move or copy them together; ``cclab export`` gives one Parquet file per table):

* ``NAME.duckdb.parts/<table>/<part>.parquet``: the rows a worker wrote for one batch of runs
  (a *part*), one file per table, each renamed into place once whole. Every row carries
  ``run_id`` and ``_part``.
* the catalog's ``stored`` table: run_id, part, status, plan_hash, recorded_utc — one
  row per run whose part the driver has recorded, in one transaction per batch of
  completions. A part no ``stored`` row names (a worker finished it, the driver was
  killed before recording it) is invisible and removed by the next writer; a run run
  again (a failure retried) names its new part, and the rows of its old one are
  invisible. Readers see each run exactly once, whole, or not at all.
* the catalog's ``plans`` table: plan_hash, name, plan_toml (self-contained: a sweep's
  base scenario inlined; a reproduction's paper, sizes and figures), recorded_utc, kind
  (``sweep`` or ``reproduction``).

Tables, as views of the recorded rows (``store.sql("SELECT ... FROM flows")``):

* ``runs``: one row per run — plan_hash, plan_name, point_index, params (JSON: axis path
  -> value), replication, seed, scenario_toml (the full normalized scenario), status
  (``ok`` / ``error``), error, cclab_version, git_commit, host, finished_utc, and every
  system metric (goodput_mbps, jain_index, wall_time_s, events, ...).
* ``results``: run_id, result_json_zlib — the engine's whole result document,
  zlib-compressed, from which :meth:`SweepStore.result` rebuilds the run's
  :class:`cclab.Result` (traces included). Read only when asked for.
* ``flows``, ``groups``, ``links`` (per link direction), ``bins`` (per flow and bin),
  ``system_bins`` (per bin) and, when traced, ``trace_flows`` / ``trace_bottleneck_queue`` /
  ``trace_links`` / ``trace_delay_histogram`` / ``trace_queue_delay_histogram``:
  the run's result tables (sweeps store them; reproductions do not).
* ``measured`` and ``measured.<figure>.<table>``: a reproduction's figure tables, as
  each run's worker measured them (:meth:`SweepStore.measured`), so figures are drawn
  from a few columnar reads.

Tables gain columns when the engine starts reporting new ones (parts are read by column
name). A catalog written by cclab before parts (one DuckDB file holding every table) is
read as it is, and converted to parts when a sweep writes to it again.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import time
import uuid
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pandas as pd

from cclab.errors import StoreError
from cclab.plots.html import store_html
from cclab.results import Result
from cclab.runs.plan import Plan, Run, axis_label
from cclab.scenario import scenario_toml

RESULT_TABLES = ("flows", "groups", "links", "bins", "system_bins", "trace_flows", "trace_bottleneck_queue",
                 "trace_links", "fcts", "fct_by_size", "trace_delay_histogram", "trace_queue_delay_histogram",
                 "queues")
# Columns of ``runs`` that describe a run rather than measure it.
BOOKKEEPING_COLUMNS = ("run_id", "plan_hash", "plan_name", "point_index", "params", "replication", "seed",
                       "scenario_toml", "status", "error", "cclab_version", "git_commit", "host", "finished_utc")
# Tables a catalog from before parts holds itself.
LEGACY_TABLES = ("runs", "results", *RESULT_TABLES)
MEASURED = "measured"
PART_COLUMN = "_part"
# A results store is ``NAME.duckdb`` (the catalog) and this directory beside it.
PARTS_SUFFIX = ".parts"


def parts_directory(store: str | PathLike) -> Path:
    """Where the Parquet parts of the store ``store`` (its catalog file) live."""
    store = Path(store)
    return store.with_name(store.name + PARTS_SUFFIX)


@dataclass
class FinishedRun:
    """A run as the store takes it: ``ok`` with its system metrics, result tables (as
    :attr:`Result.system` and :meth:`Result.tables` give them; may be empty), whole
    result document (zlib-compressed JSON) and, for a reproduction, ``measured`` (per
    point the run serves, its figure tables); or failed with its ``error``; and the
    worker's provenance (version, git commit, host)."""

    run: Run
    provenance: dict[str, Any]
    system: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    result_json_zlib: Optional[bytes] = None
    error: Optional[str] = None
    measured: Optional[list] = None
    measure_version: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


# ---------------------------------------------------------------- writing parts
def write_part(parts: Path, plan: Any, finished: Sequence[FinishedRun]) -> str:
    """Write ``finished`` (runs of ``plan``: anything with ``hash`` and ``name``) as one
    new part under ``parts``; return its id. Each table's file is written under a
    temporary name and renamed into place, so a killed writer leaves no partial file
    (and the driver records the part only after every file is there)."""
    import pyarrow.parquet as pq

    part = f"{time.time_ns():016x}-{uuid.uuid4().hex[:12]}"
    for name, table in part_tables(plan, finished, part).items():
        directory = parts / name
        directory.mkdir(parents=True, exist_ok=True)
        temporary = directory / f".{part}.parquet.tmp"
        pq.write_table(table, temporary)
        os.replace(temporary, directory / f"{part}.parquet")
    return part


def part_tables(plan: Any, finished: Sequence[FinishedRun], part: str) -> dict[str, Any]:
    """The Arrow tables of one part: ``runs`` (every run, failed ones with their error),
    ``results`` (whole documents), each result table and each measured figure table —
    tables of several runs concatenated by column name (a column one run lacks is null
    there; an integer column stays integer)."""
    import pyarrow as pa

    tables: dict[str, Any] = {"runs": _runs_table(plan, finished)}
    documents = [(done.run.run_id, done.result_json_zlib) for done in finished
                 if done.ok and done.result_json_zlib is not None]
    if documents:
        tables["results"] = pa.table({"run_id": pa.array([run_id for run_id, _ in documents], pa.string()),
                                      "result_json_zlib": pa.array([blob for _, blob in documents], pa.binary())})
    per_table: dict[str, list] = {}
    # Frames of the same columns are concatenated before one conversion (a conversion per
    # run's frame would cost as much as the run's simulation); different columns are
    # joined by name afterwards.
    same_columns: dict[tuple[str, tuple[str, ...]], list[tuple[str, pd.DataFrame]]] = {}
    for done in finished:
        for name, frame in (done.tables if done.ok else {}).items():
            same_columns.setdefault((name, tuple(map(str, frame.columns))), []).append((done.run.run_id, frame))
    for (name, _), frames in same_columns.items():
        frame = pd.concat([frame for _, frame in frames], ignore_index=True) if len(frames) > 1 else frames[0][1]
        run_ids = np.repeat(np.array([run_id for run_id, _ in frames], dtype=object), [len(f) for _, f in frames])
        table = _arrow(frame).add_column(0, "run_id", pa.array(run_ids, pa.string()))
        per_table.setdefault(name, []).append(table)
    index_rows = []
    for done in finished:
        if not done.ok or done.measured is None:
            continue
        for point, point_tables in zip(done.run.context or [], done.measured):
            figure, key = str(point.figure), point_key(point.labels)
            index_rows.append({"run_id": done.run.run_id, "figure": figure, "point": key,
                               "version": done.measure_version, "names": json.dumps(list(point_tables))})
            for name, frame in point_tables.items():
                table = _arrow(frame, keep_pandas_metadata=True)
                table = table.add_column(0, "_point", pa.array([key] * table.num_rows, pa.string()))
                per_table.setdefault(f"{MEASURED}.{figure}.{name}", []).append(
                    _with_run_id(table, done.run.run_id, "_run_id"))
    if index_rows:
        tables[MEASURED] = pa.Table.from_pylist(index_rows)
    for name, pieces in per_table.items():
        tables[name] = pa.concat_tables(pieces, promote_options="permissive")
    return {name: _with_part(table, part) for name, table in tables.items()}


def point_key(labels: dict) -> str:
    """A figure point's identity among a run's points: its labels as canonical JSON."""
    return json.dumps(labels, sort_keys=True, default=str)


def _runs_table(plan: Any, finished: Sequence[FinishedRun]):
    import pyarrow as pa

    now = _now()
    rows = []
    for done in finished:
        run, provenance = done.run, done.provenance
        row = {"run_id": run.run_id, "plan_hash": plan.hash, "plan_name": plan.name, "point_index": run.point_index,
               "params": json.dumps(run.point, default=str), "replication": run.replication, "seed": run.seed,
               "scenario_toml": scenario_toml(run.scenario), "status": "ok" if done.ok else "error",
               "error": done.error, "cclab_version": provenance.get("cclab_version"),
               "git_commit": provenance.get("git_commit"), "host": provenance.get("host"), "finished_utc": now}
        row.update((key, value) for key, value in done.system.items() if key not in BOOKKEEPING_COLUMNS)
        rows.append(row)
    columns = list(dict.fromkeys(column for row in rows for column in row))
    types = {"point_index": pa.int32(), "replication": pa.int32(), "seed": pa.int64()}
    arrays = {}
    for column in columns:
        values = [row.get(column) for row in rows]
        values = [json.dumps(v, sort_keys=True, default=str) if isinstance(v, (dict, list)) else v for v in values]
        if column in BOOKKEEPING_COLUMNS:
            arrays[column] = pa.array(values, types.get(column, pa.string()))
            continue
        try:
            array = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed kinds of value: keep them as text
            array = pa.array([None if v is None else str(v) for v in values], pa.string())
        # A metric missing from every run of this part: a number (as the DuckDB store typed it).
        arrays[column] = array.cast(pa.float64()) if pa.types.is_null(array.type) else array
    return pa.table(arrays)


def _arrow(frame: pd.DataFrame, keep_pandas_metadata: bool = False):
    """A DataFrame as an Arrow table; nested values (dicts, lists: e.g. a flow's final
    congestion-control state) as JSON text, whatever their keys."""
    import pyarrow as pa

    frame = _nested_as_json(frame)
    try:
        table = pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a column of mixed kinds of value: as text
        mixed = {column: frame[column].map(lambda v: v if v is None or isinstance(v, str) else str(v))
                 for column in frame.columns if frame[column].dtype == object}
        table = pa.Table.from_pandas(frame.assign(**mixed), preserve_index=False)
    return table if keep_pandas_metadata else table.replace_schema_metadata(None)


def _with_run_id(table, run_id: str, column: str = "run_id"):
    import pyarrow as pa

    return table.add_column(0, column, pa.array([run_id] * table.num_rows, pa.string()))


def _with_part(table, part: str):
    import pyarrow as pa

    return table.append_column(PART_COLUMN, pa.array([part] * table.num_rows, pa.string()))


def _nested_as_json(frame: pd.DataFrame) -> pd.DataFrame:
    nested = [column for column in frame.columns if frame[column].dtype == object
              and frame[column].map(lambda value: isinstance(value, (dict, list))).any()]
    if not nested:
        return frame
    return frame.assign(**{column: frame[column].map(lambda value: json.dumps(value, sort_keys=True, default=str)
                                                     if value is not None else None) for column in nested})


# ---------------------------------------------------------------- the store
class SweepStore:
    """A results store (catalog + parts). Use as a context manager. One writer at a
    time (the driver of a sweep or reproduction: it records plans and completed parts);
    ``read_only`` for reports and queries (several readers may share the store, but not
    with a running sweep)."""

    def __init__(self, path: str | PathLike, *, read_only: bool = False):
        import duckdb

        self.path = Path(path)
        self.parts = parts_directory(self.path)
        self.read_only = read_only
        self._views: dict[str, str] = {}  # view name -> directory it reads
        if read_only and not self.path.exists():
            raise StoreError(f"{self.path}: no such results file")
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as error:
            first_line = str(error).splitlines()[0]
            if "lock" in first_line.lower():
                raise StoreError(f"{self.path}: in use by another process (a sweep still running?)") from None
            raise StoreError(f"{self.path}: not a cclab results file or unreadable ({first_line})") from None
        catalog = self._catalog_tables()
        foreign = sorted(catalog - set(LEGACY_TABLES) - {"plans", "stored"})
        if foreign and not catalog & {"plans", "stored", "runs"}:
            self._db.close()
            raise StoreError(f"{self.path}: a DuckDB database that is not a cclab results store (it holds "
                             f"{', '.join(foreign[:3])}{' ...' if len(foreign) > 3 else ''}); choose another file, "
                             "nothing was changed")
        self.legacy = "stored" not in catalog and "runs" in catalog
        if read_only:
            if "stored" not in catalog and "runs" not in catalog:
                self._db.close()
                raise StoreError(f"{self.path}: not a cclab results file (no runs table)")
            if "stored" in catalog and not self.parts.is_dir() and \
                    self._db.execute("SELECT count(*) FROM stored").fetchall()[0][0]:
                self._db.close()
                raise StoreError(f"{self.path}: its runs are in {self.parts.name}/ beside it, which is missing "
                                 "(move or copy the two together)")
            damaged = self._damaged_parts()
            if damaged:
                self._db.close()
                part, file = damaged[0]
                raise StoreError(f"{file}: damaged (not a whole Parquet file); {len(damaged)} damaged part file(s) in "
                                 f"{self.parts.name}/: resume the sweep (or reproduction) with this store to run their "
                                 "runs again")
            return
        self._exec("CREATE TABLE IF NOT EXISTS plans (plan_hash VARCHAR, name VARCHAR, plan_toml VARCHAR, "
                   "recorded_utc VARCHAR, kind VARCHAR)")
        self._exec("ALTER TABLE plans ADD COLUMN IF NOT EXISTS kind VARCHAR")  # files from before kinds
        if self.legacy:
            self._convert_legacy(catalog)
        self._exec("CREATE TABLE IF NOT EXISTS stored (run_id VARCHAR NOT NULL, part VARCHAR NOT NULL, "
                   "status VARCHAR NOT NULL, plan_hash VARCHAR, recorded_utc VARCHAR)")
        self._forget_missing_parts(damaged={part for part, _ in self._damaged_parts()})
        self._recorded = {row[0] for row in self._db.execute("SELECT run_id FROM stored").fetchall()}
        self._remove_unrecorded_parts()

    def __enter__(self) -> "SweepStore":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def _repr_html_(self) -> str:
        """Jupyter's view: plans with their runs and axes, the first runs (HTML tables)."""
        return store_html(self)

    # ------------------------------------------------------------ writing (the driver)
    def record_plan(self, plan: Plan) -> None:
        """Remember ``plan`` — a sweep :class:`Plan` or any batch with ``name``, ``hash``,
        ``kind`` and ``to_toml()`` — once per distinct plan."""
        with self._transaction():
            known = self._db.execute("SELECT count(*) FROM plans WHERE plan_hash = ?", [plan.hash]).fetchall()[0][0]
            if not known:
                self._exec("INSERT INTO plans (plan_hash, name, plan_toml, recorded_utc, kind) VALUES (?, ?, ?, ?, ?)",
                           [plan.hash, plan.name, plan.to_toml(), _now(), plan.kind])

    def stored_run_ids(self) -> set[str]:
        """Ids of the runs that finished successfully (a re-run skips them)."""
        table = "runs" if self.legacy else "stored"
        return {row[0] for row in self._db.execute(f"SELECT run_id FROM {table} WHERE status = 'ok'").fetchall()}

    def record_parts(self, plan: Any, completed: Sequence[tuple[str, str, str]]) -> None:
        """Record, in one transaction, runs whose rows are in parts already written:
        ``(run_id, part, status)`` each, replacing what an earlier attempt of the run
        recorded (its old rows become invisible)."""
        if not completed:
            return
        run_ids = [run_id for run_id, _, _ in completed]
        with self._transaction():
            if not self._recorded.isdisjoint(run_ids):
                self._exec("DELETE FROM stored WHERE run_id IN (SELECT unnest(?::VARCHAR[]))", [run_ids])
            self._exec("INSERT INTO stored SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), "
                       "?, ?", [run_ids, [part for _, part, _ in completed], [status for _, _, status in completed],
                                plan.hash, _now()])
        self._recorded.update(run_ids)

    def record_runs(self, plan: Plan, finished: Sequence[FinishedRun]) -> None:
        """Write finished runs of ``plan`` as a part from this process and record them
        (what the workers and the driver of a sweep do apart)."""
        if not finished:
            return
        part = write_part(self.parts, plan, finished)
        self.record_parts(plan, [(done.run.run_id, part, "ok" if done.ok else "error") for done in finished])

    def record_result(self, plan: Plan, run: Run, system: dict[str, Any], tables: dict[str, pd.DataFrame],
                      provenance: dict[str, Any], result_json_zlib: Optional[bytes] = None) -> None:
        """Store one successful run (see :meth:`record_runs`)."""
        self.record_runs(plan, [FinishedRun(run, provenance, system, tables, result_json_zlib)])

    def record_failure(self, plan: Plan, run: Run, error: str, provenance: dict[str, Any]) -> None:
        """Store that a run failed, with its error; a later sweep retries it."""
        self.record_runs(plan, [FinishedRun(run, provenance, error=error)])

    def part_is_visible(self, part: str) -> bool:
        """Whether the part a worker says it wrote is there for this process to read (it
        is not when the workers write to storage the driver does not share)."""
        return (self.parts / "runs" / f"{part}.parquet").is_file()

    # ------------------------------------------------------------ reading
    def plans(self) -> pd.DataFrame:
        return self._db.execute("SELECT * FROM plans ORDER BY recorded_utc, name").df()

    def runs(self, plan_name: Optional[str] = None) -> pd.DataFrame:
        """The runs table, one column per axis (named by its path) in place of ``params``."""
        self._refresh_views()
        where, args = ("WHERE plan_name = ?", [plan_name]) if plan_name is not None else ("", [])
        if "runs" not in self._data_tables():
            return expand_params(pd.DataFrame(columns=list(BOOKKEEPING_COLUMNS)))
        runs = self._db.execute(f"SELECT * FROM runs {where} ORDER BY plan_name, point_index, replication",
                                args).df()
        return expand_params(runs)

    def table(self, name: str, plan_name: Optional[str] = None) -> pd.DataFrame:
        """A result table (flows, groups, bins, system_bins, ...) with each row's axis values,
        replication and seed in front."""
        self._refresh_views()
        if name not in RESULT_TABLES or name not in self._data_tables():
            raise StoreError(f"{self.path}: no table {name!r} (tables: {', '.join(self.tables())})")
        where, args = ("AND r.plan_name = ?", [plan_name]) if plan_name is not None else ("", [])
        joined = self._db.execute(
            f"SELECT r.plan_name, r.point_index, r.params, r.replication, r.seed, t.* FROM {name} t "
            f"JOIN runs r USING (run_id) WHERE r.status = 'ok' {where} "
            "ORDER BY r.plan_name, r.point_index, r.replication", args).df()
        return expand_params(joined)

    def result(self, run_id: str):
        """The stored :class:`cclab.Result` of run ``run_id`` (its whole document)."""
        blob = self.compressed_results([run_id]).get(run_id)
        if blob is None:
            raise StoreError(f"{self.path}: no stored result for run {run_id}")
        return Result(json.loads(zlib.decompress(blob)))

    def compressed_results(self, run_ids: Iterable[str]) -> dict[str, bytes]:
        """run_id -> the stored result document, still zlib-compressed (for workers to parse)."""
        self._refresh_views()
        wanted = list(dict.fromkeys(run_ids))
        if not wanted or "results" not in self._data_tables():
            return {}
        rows = self._db.execute("SELECT run_id, result_json_zlib FROM results WHERE run_id IN "
                                "(SELECT unnest(?::VARCHAR[]))", [wanted]).fetchall()
        return {run_id: bytes(blob) for run_id, blob in rows}

    def measured(self, run_ids: Iterable[str], version: str) -> tuple[dict[tuple[str, str, str], list[str]],
                                                                       dict[tuple[str, str], pd.DataFrame]]:
        """A reproduction's figure tables as the workers measured them with code of
        ``version``, for the runs ``run_ids``: ``(index, tables)`` where ``index`` maps
        (run_id, figure, point key) to the names of the tables that point gave, and
        ``tables`` maps (figure, name) to every such row (columns _run_id and _point
        first). Points measured by other code are absent (measure them again)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        wanted = list(dict.fromkeys(run_ids))
        if self.legacy or not wanted or not (self.parts / MEASURED).is_dir():
            return {}, {}
        parts = dict(self._db.execute("SELECT run_id, part FROM stored WHERE status = 'ok' AND run_id IN "
                                      "(SELECT unnest(?::VARCHAR[]))", [wanted]).fetchall())
        files = sorted(set(parts.values()))

        def read(directory: Path):
            pieces = [pq.read_table(path) for path in (directory / f"{part}.parquet" for part in files)
                      if path.is_file()]
            if not pieces:
                return None
            table = pa.concat_tables(pieces, promote_options="permissive") if len(pieces) > 1 else pieces[0]
            # only the rows of the part each run is recorded in
            runs = table.column("run_id" if "run_id" in table.column_names else "_run_id").to_pylist()
            keep = pa.array([parts.get(run_id) == part for run_id, part in
                             zip(runs, table.column(PART_COLUMN).to_pylist())])
            return table.filter(keep).drop_columns([PART_COLUMN])

        index_table = read(self.parts / MEASURED)
        if index_table is None:
            return {}, {}
        index = {(row["run_id"], row["figure"], row["point"]): json.loads(row["names"])
                 for row in index_table.to_pylist() if row["version"] == version}
        figures = {figure for _, figure, _ in index}
        tables: dict[tuple[str, str], pd.DataFrame] = {}
        for directory in sorted(self.parts.glob(f"{MEASURED}.*")):
            _, figure, name = directory.name.split(".", 2)
            if figure not in figures:
                continue
            table = read(directory)
            if table is not None:
                tables[(figure, name)] = table.to_pandas()
        return index, tables

    def tables(self) -> list[str]:
        """The tables a query can name: plans and every data table stored so far."""
        self._refresh_views()
        return sorted(["plans", *self._data_tables()])

    def sql(self, query: str, parameters: Optional[list] = None) -> pd.DataFrame:
        """Run any SQL over the store's tables."""
        self._refresh_views()
        return self._db.execute(query, parameters or []).df()

    def export_parquet(self, directory: str | PathLike) -> list[Path]:
        """Write every table as ``<table>.parquet`` into ``directory``."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in self.tables():
            target = out / f"{name}.parquet"
            self._exec(f'COPY (SELECT * FROM "{name}") TO \'{_sql_string(target)}\' (FORMAT parquet)')
            written.append(target)
        return written

    # ------------------------------------------------------------ internals
    def _data_tables(self) -> list[str]:
        if self.legacy:
            return [name for name in LEGACY_TABLES if name in self._catalog_tables()]
        return [name for name in self._views if not name.startswith(f"{MEASURED}.")]

    def _refresh_views(self) -> None:
        """A view per table that has parts: its rows in the parts the catalog records
        (each run's own part; rows of parts not recorded are not there)."""
        if self.legacy or not self.parts.is_dir():
            return
        for directory in self.parts.iterdir():
            name = directory.name
            if name in self._views or not directory.is_dir() or name == MEASURED or name.startswith(f"{MEASURED}."):
                continue
            if not any(directory.glob("*.parquet")):
                continue
            files = _sql_string(directory / "*.parquet")
            self._exec(f'CREATE OR REPLACE TEMP VIEW "{name}" AS SELECT t.* EXCLUDE ({PART_COLUMN}) FROM '
                       f"read_parquet('{files}', union_by_name = true) t SEMI JOIN stored s "
                       f"ON t.run_id = s.run_id AND t.{PART_COLUMN} = s.part")
            self._views[name] = str(directory)

    def _forget_missing_parts(self, damaged: set[str]) -> None:
        """Runs recorded in parts that are not on disk (a catalog copied without its
        parts directory) or are damaged are not stored: they run again (and the damaged
        files are removed with the unrecorded ones)."""
        recorded = [row[0] for row in self._db.execute("SELECT DISTINCT part FROM stored").fetchall()]
        missing = [part for part in recorded
                   if part in damaged or not (self.parts / "runs" / f"{part}.parquet").is_file()]
        if missing:
            with self._transaction():
                self._exec("DELETE FROM stored WHERE part IN (SELECT unnest(?::VARCHAR[]))", [missing])

    def _damaged_parts(self) -> list[tuple[str, Path]]:
        """(part, file) of every recorded part's file that is not a whole Parquet file
        (truncated, zeroed, overwritten: it neither starts nor ends with Parquet's magic
        bytes), checked without parsing it."""
        if self.legacy or not self.parts.is_dir():
            return []
        recorded = {row[0] for row in self._db.execute("SELECT DISTINCT part FROM stored").fetchall()}
        damaged = []
        for directory in sorted(self.parts.iterdir()):
            if not directory.is_dir():
                continue
            for file in sorted(directory.glob("*.parquet")):
                if file.stem in recorded and not _whole_parquet(file):
                    damaged.append((file.stem, file))
        return damaged

    def _remove_unrecorded_parts(self) -> None:
        """Remove the files of parts no run is recorded in (a batch the driver never
        recorded, attempts superseded by a later one) and abandoned temporary files.
        Only the writer does this, before any worker of its own writes."""
        if not self.parts.is_dir():
            return
        recorded = {row[0] for row in self._db.execute("SELECT DISTINCT part FROM stored").fetchall()}
        for directory in self.parts.iterdir():
            if not directory.is_dir():
                continue
            for file in directory.iterdir():
                if file.name.endswith(".tmp") or (file.suffix == ".parquet" and file.stem not in recorded):
                    with contextlib.suppress(OSError):
                        file.unlink()

    def _convert_legacy(self, catalog: set[str]) -> None:
        """A store written before parts: its tables become one part, ``legacy``, that the
        catalog records; then they are dropped from the catalog. Done again from the
        start if interrupted (the files are rewritten, the catalog changes in one
        transaction)."""
        present = [name for name in LEGACY_TABLES if name in catalog]
        for name in present:
            directory = self.parts / name
            directory.mkdir(parents=True, exist_ok=True)
            temporary = directory / ".legacy.parquet.tmp"
            self._exec(f"COPY (SELECT *, 'legacy' AS {PART_COLUMN} FROM {name}) TO '{_sql_string(temporary)}' "
                       "(FORMAT parquet)")
            os.replace(temporary, directory / "legacy.parquet")
        with self._transaction():
            self._exec("CREATE TABLE stored AS SELECT run_id, 'legacy' AS part, status, plan_hash, "
                       "finished_utc AS recorded_utc FROM runs")
            for name in present:
                self._exec(f"DROP TABLE {name}")
        self.legacy = False

    def _catalog_tables(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT table_name FROM information_schema.tables WHERE "
                                                   "table_schema = 'main' AND table_type = 'BASE TABLE'").fetchall()}

    def _exec(self, statement: str, parameters: Optional[list] = None) -> None:
        """Run a statement that returns no rows (DuckDB wants every result consumed)."""
        self._db.execute(statement, parameters or []).fetchall()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN … COMMIT, or ROLLBACK when the block raises (KeyboardInterrupt included)."""
        self._exec("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self._exec("ROLLBACK")
            raise
        self._exec("COMMIT")


def expand_params(frame: pd.DataFrame) -> pd.DataFrame:
    """Replace the JSON ``params`` column by one column per axis path, placed first (a
    table or list value as readable text: :func:`cclab.runs.plan.axis_label`)."""
    if "params" not in frame:
        return frame
    points = [json.loads(text) if isinstance(text, str) else {} for text in frame["params"]]
    axes: list[str] = list(dict.fromkeys(path for point in points for path in point))
    expanded = pd.DataFrame({path: [axis_label(point.get(path)) for point in points] for path in axes},
                            index=frame.index)
    rest = frame.drop(columns="params")
    return pd.concat([expanded, rest.drop(columns=[c for c in axes if c in rest])], axis=1)


def axis_columns(frame: pd.DataFrame) -> list[str]:
    """The axis columns of a frame from :meth:`SweepStore.runs` or :meth:`SweepStore.table`
    (those in front of plan_name)."""
    columns = list(frame.columns)
    return columns[: columns.index("plan_name")] if "plan_name" in columns else []


def _whole_parquet(file: Path) -> bool:
    """Whether ``file`` starts and ends with Parquet's magic bytes (a file cut short, or
    overwritten, does not)."""
    try:
        with open(file, "rb") as handle:
            head = handle.read(4)
            handle.seek(0, os.SEEK_END)
            if handle.tell() < 12:
                return False
            handle.seek(-4, os.SEEK_END)
            return head == b"PAR1" and handle.read(4) == b"PAR1"
    except OSError:
        return False


def _sql_string(path: Path) -> str:
    return str(path).replace("'", "''")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
