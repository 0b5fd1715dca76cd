"""Result directories: save, load, and query them with DuckDB.

A result directory holds

* ``flows``, ``groups``, ``bins``, ``system_bins`` (and ``trace_*`` when traced) as
  both ``.parquet`` and ``.csv``;
* ``system.json`` (system metrics), ``scenario.toml`` (the normalized scenario: running
  it again gives the same result), ``result.json`` (the engine's full output, which
  :func:`load` reads back) and ``meta.json`` (versions, seed, wall time, platform, time).

:func:`save` writes into a hidden sibling directory and renames it into place at the
end, so an interrupted save never leaves a half-written result behind; the hidden
directories a killed save left (their process is gone) are removed by the next save.
"""
from __future__ import annotations

import datetime
import glob
import json
import os
import platform
import shutil
import sys
import uuid
from os import PathLike
from pathlib import Path

from typing import TYPE_CHECKING

from cclab.core import version as core_version
from cclab.errors import StoreError
from cclab.results import Result
from cclab.scenario import scenario_toml

if TYPE_CHECKING:
    import pandas as pd

META_FILE = "meta.json"
RESULT_FILE = "result.json"


def save(result: Result, directory: str | PathLike) -> Path:
    """Write ``result`` to ``directory``, replacing an earlier result there.

    Refuses to replace a non-empty directory that is not a cclab result directory.
    """
    target = Path(directory)
    _check_replaceable(target)
    staging = target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(target)
        staging.mkdir()
        _write_files(result, staging)
        _swap_into_place(staging, target)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise StoreError(f"{target}: cannot save the result ({error.strerror or error})") from error
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def check_target(directory: str | PathLike) -> None:
    """Fail now, with a one-line StoreError, if :func:`save` could not write to
    ``directory`` (so a long run is not wasted on an unusable ``--out``)."""
    target = Path(directory)
    _check_replaceable(target)
    existing = target.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise StoreError(f"{target}: cannot write there ({existing} is not a writable directory)")


def load(directory: str | PathLike) -> Result:
    """Read back a result written by :func:`save`."""
    path = Path(directory) / RESULT_FILE
    try:
        return Result.from_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(f"{directory}: not a cclab result directory (no {RESULT_FILE})") from None


def query(directory_or_glob: str | PathLike, sql: str) -> pd.DataFrame:
    """Run ``sql`` with DuckDB over the Parquet tables of one or many result directories.

    Each table (flows, groups, bins, system_bins, trace_*) is a view of the same name
    over every matching directory, with a ``filename`` column saying which file a row
    came from::

        query("results/*", "SELECT filename, sum(goodput_mbps) FROM flows GROUP BY 1")
    """
    import duckdb

    pattern = str(directory_or_glob)
    files_by_table: dict[str, list[str]] = {}
    for file in sorted(glob.glob(os.path.join(pattern, "*.parquet"))):
        files_by_table.setdefault(Path(file).stem, []).append(file)
    if not files_by_table:
        raise StoreError(f"{pattern}: no Parquet result tables found")
    connection = duckdb.connect()
    try:
        for table, files in files_by_table.items():
            listed = ", ".join("'" + file.replace("'", "''") + "'" for file in files)
            connection.execute(
                f'CREATE VIEW "{table}" AS SELECT * FROM read_parquet([{listed}], filename = true, union_by_name = true)'
            )
        return connection.execute(sql).df()
    finally:
        connection.close()


def metadata(result: Result) -> dict:
    """What a stored result records about how it was made."""
    return {
        "cclab_version": core_version(),
        "scenario_name": result.scenario.get("name"),
        "seed": result.scenario.get("seed"),
        "wall_time_s": result.raw["wall_time_s"],
        "events": result.raw["events"],
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _write_files(result: Result, directory: Path) -> None:
    for name, table in result.tables().items():
        table.to_parquet(directory / f"{name}.parquet", index=False)
        table.to_csv(directory / f"{name}.csv", index=False)
    (directory / "system.json").write_text(json.dumps(result.system, indent=2) + "\n", encoding="utf-8")
    (directory / "scenario.toml").write_text(scenario_toml(result.scenario), encoding="utf-8")
    (directory / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
    (directory / META_FILE).write_text(json.dumps(metadata(result), indent=2) + "\n", encoding="utf-8")
    if (result.raw.get("traces") or {}).get("captures"):
        from cclab.store.pcap import write_all

        write_all(result, directory)  # pcap/<link>.pcap


def _check_replaceable(target: Path) -> None:
    if not target.exists():
        return
    if not target.is_dir():
        raise StoreError(f"{target}: exists and is not a directory")
    if any(target.iterdir()) and not (target / META_FILE).exists():
        raise StoreError(f"{target}: exists and is not a cclab result directory; choose another --out")


def _remove_abandoned(target: Path) -> None:
    """Remove the staging and retired directories of earlier saves to ``target`` whose
    process no longer runs (a save that was killed)."""
    for leftover in target.parent.glob(f".{glob.escape(target.name)}.*-*.*"):
        owner = leftover.name[len(target.name) + 2:].split("-", 1)[0]
        if leftover.suffix in (".tmp", ".old") and owner.isdigit() and not _process_alive(int(owner)):
            shutil.rmtree(leftover, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _swap_into_place(staging: Path, target: Path) -> None:
    if not target.exists():
        staging.rename(target)
        return
    retired = target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.old")
    target.rename(retired)
    staging.rename(target)
    shutil.rmtree(retired, ignore_errors=True)
