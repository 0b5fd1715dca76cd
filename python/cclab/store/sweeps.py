"""The results store of sweeps: one DuckDB file, written only by the sweep's driver.

Tables (every row carries ``run_id``, the hash of the run's normalized scenario):

* ``plans``: plan_hash, name, plan_toml (self-contained: a sweep's base scenario
  inlined; a reproduction's paper, sizes and figures), recorded_utc, kind (``sweep`` or
  ``reproduction``).
* ``runs``: one row per run — plan_hash, plan_name, point_index, params (JSON: axis path
  -> value), replication, seed, scenario_toml (the full normalized scenario), status
  (``ok`` / ``error``), error, cclab_version, git_commit, host, wall_time_s, events,
  finished_utc, and every system metric (goodput_mbps, jain_index, ...).
* ``results``: run_id, result_json_zlib — the engine's whole result document, zlib-compressed,
  from which :meth:`SweepStore.result` rebuilds the run's :class:`cclab.Result` (traces
  included): reproductions draw their figures and judge their claims from these.
* ``flows``, ``groups``, ``links`` (per link direction), ``bins`` (per flow and bin), ``system_bins`` (per bin) and,
  when traced, ``trace_flows`` / ``trace_bottleneck_queue``: the run's result tables, for
  SQL (sweeps store them; reproductions keep only ``runs`` and ``results``).

Finished runs are written in transactions of one or more whole runs (a sweep of short
runs writes what finished in the last second together: a transaction and a table append
cost milliseconds each, whatever their size), so a killed driver leaves each run either
whole or absent. Tables gain columns when the engine starts reporting new ones.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pandas as pd

from cclab.errors import StoreError
from cclab.runs.plan import Plan, Run

RUN_COLUMNS = """
    run_id VARCHAR NOT NULL, plan_hash VARCHAR, plan_name VARCHAR, point_index INTEGER, params VARCHAR,
    replication INTEGER, seed BIGINT, scenario_toml VARCHAR, status VARCHAR NOT NULL, error VARCHAR,
    cclab_version VARCHAR, git_commit VARCHAR, host VARCHAR, finished_utc VARCHAR
"""
RESULT_TABLES = ("flows", "groups", "links", "bins", "system_bins", "trace_flows", "trace_bottleneck_queue")
# Columns of ``runs`` that describe a run rather than measure it.
BOOKKEEPING_COLUMNS = ("run_id", "plan_hash", "plan_name", "point_index", "params", "replication", "seed",
                       "scenario_toml", "status", "error", "cclab_version", "git_commit", "host", "finished_utc")


@dataclass
class FinishedRun:
    """A run as the store takes it: ``ok`` with its system metrics, result tables (as
    :attr:`Result.system` and :meth:`Result.tables` give them; may be empty) and whole
    result document (zlib-compressed JSON), or failed with its ``error``; and the
    worker's provenance (version, git commit, host)."""

    run: Run
    provenance: dict[str, Any]
    system: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    result_json_zlib: Optional[bytes] = None
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None


class SweepStore:
    """A sweep results file. Use as a context manager; ``read_only`` for reports and
    queries (several readers may share the file, but not with a running sweep)."""

    def __init__(self, path: str | PathLike, *, read_only: bool = False):
        import duckdb

        self.path = Path(path)
        self._known_columns: Optional[dict[str, set[str]]] = None
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
        if not read_only:
            self._exec("CREATE TABLE IF NOT EXISTS plans (plan_hash VARCHAR, name VARCHAR, plan_toml VARCHAR, "
                             "recorded_utc VARCHAR, kind VARCHAR)")
            self._exec("ALTER TABLE plans ADD COLUMN IF NOT EXISTS kind VARCHAR")  # files from before kinds
            self._exec(f"CREATE TABLE IF NOT EXISTS runs ({RUN_COLUMNS})")
            self._exec("CREATE TABLE IF NOT EXISTS results (run_id VARCHAR NOT NULL, result_json_zlib BLOB)")
        elif not self._has_table("runs"):
            self._db.close()
            raise StoreError(f"{self.path}: not a cclab results file (no runs table)")

    def __enter__(self) -> "SweepStore":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def _repr_html_(self) -> str:
        """Jupyter's view: plans with their runs and axes, the first runs (HTML tables)."""
        from cclab.plots.html import store_html

        return store_html(self)

    # ------------------------------------------------------------ writing
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
        return {row[0] for row in self._db.execute("SELECT run_id FROM runs WHERE status = 'ok'").fetchall()}

    def record_runs(self, plan: Plan, finished: Sequence[FinishedRun]) -> None:
        """Store finished runs of ``plan`` in one transaction, each replacing what an
        earlier attempt left (a failed run is retried by a later sweep). Each result table
        is appended once for all of them."""
        if not finished:
            return
        with self._transaction():
            self._delete_runs([done.run.run_id for done in finished])
            rows = []
            for done in finished:
                metrics = {key: value for key, value in done.system.items() if key not in BOOKKEEPING_COLUMNS}
                status = "ok" if done.ok else "error"
                rows.append({**self._run_row(plan, done.run, status, done.error, done.provenance), **metrics})
            self._insert_rows("runs", rows)
            blobs = [[done.run.run_id, done.result_json_zlib] for done in finished
                     if done.ok and done.result_json_zlib is not None]
            if blobs:
                self._db.executemany("INSERT INTO results VALUES (?, ?)", blobs)
            # Runs whose tables have the same columns are appended together (a union of
            # different columns would turn missing integers into floats).
            appends: dict[tuple[str, tuple[str, ...]], list[tuple[str, pd.DataFrame]]] = {}
            for done in finished:
                for name, table in (done.tables if done.ok else {}).items():
                    appends.setdefault((name, tuple(map(str, table.columns))), []).append((done.run.run_id, table))
            for (name, _), tables in appends.items():
                frame = pd.concat([table for _, table in tables], ignore_index=True)
                frame.insert(0, "run_id", np.repeat([run_id for run_id, _ in tables], [len(t) for _, t in tables]))
                self._append(name, frame)

    def record_result(self, plan: Plan, run: Run, system: dict[str, Any], tables: dict[str, pd.DataFrame],
                      provenance: dict[str, Any], result_json_zlib: Optional[bytes] = None) -> None:
        """Store one successful run (see :meth:`record_runs`)."""
        self.record_runs(plan, [FinishedRun(run, provenance, system, tables, result_json_zlib)])

    def record_failure(self, plan: Plan, run: Run, error: str, provenance: dict[str, Any]) -> None:
        """Store that a run failed, with its error; a later sweep retries it."""
        self.record_runs(plan, [FinishedRun(run, provenance, error=error)])

    # ------------------------------------------------------------ reading
    def plans(self) -> pd.DataFrame:
        return self._db.execute("SELECT * FROM plans ORDER BY recorded_utc, name").df()

    def runs(self, plan_name: Optional[str] = None) -> pd.DataFrame:
        """The runs table, one column per axis (named by its path) in place of ``params``."""
        where, args = ("WHERE plan_name = ?", [plan_name]) if plan_name is not None else ("", [])
        runs = self._db.execute(f"SELECT * FROM runs {where} ORDER BY plan_name, point_index, replication",
                                args).df()
        return expand_params(runs)

    def table(self, name: str, plan_name: Optional[str] = None) -> pd.DataFrame:
        """A result table (flows, groups, bins, system_bins, ...) with each row's axis values,
        replication and seed in front."""
        if name not in RESULT_TABLES or not self._has_table(name):
            raise StoreError(f"{self.path}: no table {name!r} (tables: {', '.join(self.tables())})")
        where, args = ("AND r.plan_name = ?", [plan_name]) if plan_name is not None else ("", [])
        joined = self._db.execute(
            f"SELECT r.plan_name, r.point_index, r.params, r.replication, r.seed, t.* FROM {name} t "
            f"JOIN runs r USING (run_id) WHERE r.status = 'ok' {where} "
            "ORDER BY r.plan_name, r.point_index, r.replication", args).df()
        return expand_params(joined)

    def result(self, run_id: str):
        """The stored :class:`cclab.Result` of run ``run_id``."""
        from cclab.results import Result

        blob = self.compressed_results([run_id]).get(run_id)
        if blob is None:
            raise StoreError(f"{self.path}: no stored result for run {run_id}")
        return Result(json.loads(zlib.decompress(blob)))

    def compressed_results(self, run_ids: Iterable[str]) -> dict[str, bytes]:
        """run_id -> the stored result document, still zlib-compressed (for workers to parse)."""
        wanted = list(dict.fromkeys(run_ids))
        if not wanted or not self._has_table("results"):
            return {}
        rows = self._db.execute("SELECT run_id, result_json_zlib FROM results WHERE run_id IN "
                                "(SELECT unnest(?::VARCHAR[]))", [wanted]).fetchall()
        return {run_id: bytes(blob) for run_id, blob in rows}

    def tables(self) -> list[str]:
        return [row[0] for row in self._db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1").fetchall()]

    def sql(self, query: str, parameters: Optional[list] = None) -> pd.DataFrame:
        """Run any SQL over the store's tables."""
        return self._db.execute(query, parameters or []).df()

    def export_parquet(self, directory: str | PathLike) -> list[Path]:
        """Write every table as ``<table>.parquet`` into ``directory``."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in self.tables():
            target = out / f"{name}.parquet"
            self._exec(f"COPY {name} TO '{_sql_string(target)}' (FORMAT parquet)")
            written.append(target)
        return written

    # ------------------------------------------------------------ internals
    def _run_row(self, plan: Plan, run: Run, status: str, error: Optional[str], provenance: dict) -> dict:
        from cclab.scenario import scenario_toml

        return {
            "run_id": run.run_id, "plan_hash": plan.hash, "plan_name": plan.name, "point_index": run.point_index,
            "params": json.dumps(run.point, default=str), "replication": run.replication, "seed": run.seed,
            "scenario_toml": scenario_toml(run.scenario), "status": status, "error": error,
            "cclab_version": provenance.get("cclab_version"), "git_commit": provenance.get("git_commit"),
            "host": provenance.get("host"), "finished_utc": _now(),
        }

    def _delete_runs(self, run_ids: list[str]) -> None:
        """Remove what earlier attempts at these runs left (usually nothing: one query)."""
        earlier = self._db.execute("SELECT count(*) FROM runs WHERE run_id IN (SELECT unnest(?::VARCHAR[]))",
                                   [run_ids]).fetchall()[0][0]
        if not earlier:
            return
        for name in ("runs", "results", *RESULT_TABLES):
            if self._has_table(name):
                self._exec(f"DELETE FROM {name} WHERE run_id IN (SELECT unnest(?::VARCHAR[]))", [run_ids])

    def _append(self, name: str, frame: pd.DataFrame) -> None:
        """Insert ``frame`` into table ``name`` by column name, creating the table or
        adding the columns it lacks. Nested values (dicts, lists: e.g. a flow's final
        congestion-control state) are stored as JSON text, whatever their keys."""
        self._db.register("incoming", _nested_as_json(frame))
        try:
            known = self._columns()
            if name not in known:
                self._exec(f"CREATE TABLE {name} AS SELECT * FROM incoming")
                known[name] = set(map(str, frame.columns))
                return
            if not set(map(str, frame.columns)) <= known[name]:
                for column, column_type in self._db.execute("SELECT column_name, column_type FROM "
                                                            "(DESCRIBE SELECT * FROM incoming)").fetchall():
                    if column not in known[name]:
                        self._exec(f'ALTER TABLE {name} ADD COLUMN "{column}" {column_type}')
                        known[name].add(column)
            self._exec(f"INSERT INTO {name} BY NAME SELECT * FROM incoming")
        finally:
            self._db.unregister("incoming")

    def _insert_rows(self, name: str, rows: list[dict[str, Any]]) -> None:
        """Insert rows (column -> Python value) into the existing table ``name``, adding
        the columns it lacks (typed by their first value); statements with parameters,
        not a registered DataFrame, which costs ~15 ms per call."""
        known = self._columns()[name]
        by_columns: dict[tuple[str, ...], list[list[Any]]] = {}
        for row in rows:
            for column, value in row.items():
                if column not in known:
                    self._exec(f'ALTER TABLE {name} ADD COLUMN "{column}" {_sql_type(value)}')
                    known.add(column)
            by_columns.setdefault(tuple(row), []).append(
                [json.dumps(v, sort_keys=True, default=str) if isinstance(v, (dict, list)) else v
                 for v in row.values()])
        for columns, values in by_columns.items():
            names = ", ".join(f'"{column}"' for column in columns)
            self._db.executemany(f"INSERT INTO {name} ({names}) VALUES ({', '.join('?' * len(columns))})", values)

    def _exec(self, statement: str, parameters: Optional[list] = None) -> None:
        """Run a statement that returns no rows (DuckDB wants every result consumed)."""
        self._db.execute(statement, parameters or []).fetchall()

    def _columns(self) -> dict[str, set[str]]:
        """Table name -> column names, read once (catalog queries cost milliseconds each)."""
        if self._known_columns is None:
            self._known_columns = {}
            for table, column in self._db.execute("SELECT table_name, column_name FROM information_schema.columns "
                                                  "WHERE table_schema = 'main'").fetchall():
                self._known_columns.setdefault(table, set()).add(column)
        return self._known_columns

    def _has_table(self, name: str) -> bool:
        return name in self._columns()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN … COMMIT, or ROLLBACK when the block raises (KeyboardInterrupt included)."""
        self._exec("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self._exec("ROLLBACK")
            self._known_columns = None  # a rolled-back CREATE or ALTER did not happen
            raise
        self._exec("COMMIT")


def _nested_as_json(frame: pd.DataFrame) -> pd.DataFrame:
    nested = [column for column in frame.columns if frame[column].dtype == object
              and frame[column].map(lambda value: isinstance(value, (dict, list))).any()]
    if not nested:
        return frame
    return frame.assign(**{column: frame[column].map(lambda value: json.dumps(value, sort_keys=True, default=str)
                                                     if value is not None else None) for column in nested})


def expand_params(frame: pd.DataFrame) -> pd.DataFrame:
    """Replace the JSON ``params`` column by one column per axis path, placed first (a
    table or list value as readable text: :func:`cclab.runs.plan.axis_label`)."""
    from cclab.runs.plan import axis_label

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


def _sql_type(value: Any) -> str:
    """The column type a new metric's first value asks for (missing values: a number)."""
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "BIGINT"
    if isinstance(value, str):
        return "VARCHAR"
    if isinstance(value, (dict, list)):
        return "VARCHAR"
    return "DOUBLE"


def _sql_string(path: Path) -> str:
    return str(path).replace("'", "''")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
