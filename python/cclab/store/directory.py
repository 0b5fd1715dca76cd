"""Result directories: save a run's result, read it back, and query them with DuckDB.

A result directory holds

* ``flows``, ``groups``, ``bins``, ``system_bins`` (and ``trace_*`` when traced) as
  both ``.parquet`` and ``.csv``;
* ``system.json`` (system metrics), ``scenario.toml`` (the normalized scenario: running
  it again gives the same result), ``result.json`` (the engine's full output, which
  :func:`read` reads back) and ``meta.json`` (versions, seed, wall time, platform, time);
* ``.cclab-result``, the marker: the entries cclab wrote.

:func:`save` never removes what it did not write: it replaces a directory only when the
directory holds exactly what its marker lists (or is empty), and refuses any other. It
writes into a hidden staging directory first and moves the result into place at the
end, so an interrupted save never leaves a result :func:`read` accepts half-written;
the hidden directories a killed save left (their process is gone) are removed by the
next save.

A result is anything with the views of :class:`cclab.results.Result` (which saves and
loads itself through here: this module does not import it).
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
from cclab.scenario import scenario_toml
from cclab.store.pcap import write_all

if TYPE_CHECKING:
    import pandas as pd

META_FILE = "meta.json"
RESULT_FILE = "result.json"
# A result directory's marker: which entries cclab wrote there (a save replaces a
# directory only when it holds those and nothing else).
MARKER_FILE = ".cclab-result"
MARKER_FORMAT = "cclab result directory"
# The entries of a result directory besides its tables (``<table>.parquet``, ``.csv``).
FIXED_ENTRIES = {"system.json", "scenario.toml", RESULT_FILE, META_FILE, "pcap", MARKER_FILE}
# Staging and retired directories of a save: ``.cclab-save-<pid>-<random>.tmp`` / ``.old``.
STAGING_PREFIX = ".cclab-save-"
NAME_MAX = 255  # bytes in one file name (Linux, macOS and Windows file systems alike)


def save(result, directory: str | PathLike) -> Path:
    """Write ``result`` to ``directory``, replacing an earlier result there.

    A directory is replaced only when it holds what cclab wrote there and nothing else
    (its marker, :data:`MARKER_FILE`, lists the entries): anything else that is not
    empty is refused with a StoreError and left as it was.
    """
    target = _absolute(directory)
    _check_replaceable(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(target.parent)
        if target.is_dir():
            _remove_abandoned(target)
        staging = _staging(target.parent if not target.exists() else target, "tmp")
        try:
            staging.mkdir()
            _write_files(result, staging)
            _put_in_place(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    except OSError as error:
        raise StoreError(f"{target}: cannot save the result ({error.strerror or error})") from error
    return Path(directory)


def check_target(directory: str | PathLike) -> None:
    """Fail now, with a one-line StoreError, if :func:`save` could not write to
    ``directory`` (so a long run is not wasted on an unusable ``--out``)."""
    target = _absolute(directory)
    _check_replaceable(target)
    existing = target.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise StoreError(f"{target}: cannot write there ({existing} is not a writable directory)")


def read(directory: str | PathLike) -> dict:
    """The engine's document of a result written by :func:`save` (what
    :meth:`cclab.results.Result.load` makes a result of)."""
    folder = Path(directory)
    written = written_entries(folder) if folder.is_dir() else None
    if written is None or RESULT_FILE not in written:
        raise StoreError(f"{directory}: not a cclab result directory (no {MARKER_FILE} or {RESULT_FILE})")
    missing = sorted(name for name in written if not (folder / name).exists())
    if missing:
        raise StoreError(f"{directory}: an incomplete result (a save was interrupted: {_listed(missing)} missing); "
                         "save it again")
    try:
        return json.loads((folder / RESULT_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise StoreError(f"{directory}: {RESULT_FILE} cannot be read ({getattr(error, 'strerror', None) or error})") from None


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


def metadata(result) -> dict:
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


def write_csv(table: pd.DataFrame, path: str | PathLike) -> None:
    """``table`` as CSV, a cell holding a table or a list (a flow's ``cc_state``) written
    as JSON text (``{"alpha": 1.0}``), not as Python's repr of it."""
    nested = [column for column in table.columns if table[column].dtype == object
              and table[column].map(lambda value: isinstance(value, (dict, list, tuple))).any()]
    if nested:
        table = table.assign(**{column: table[column].map(
            lambda value: json.dumps(value) if isinstance(value, (dict, list, tuple)) else value) for column in nested})
    table.to_csv(path, index=False)


def _write_files(result, directory: Path) -> None:
    for name, table in result.tables().items():
        table.to_parquet(directory / f"{name}.parquet", index=False)
        write_csv(table, directory / f"{name}.csv")
    (directory / "system.json").write_text(json.dumps(result.system, indent=2) + "\n", encoding="utf-8")
    (directory / "scenario.toml").write_text(scenario_toml(result.scenario), encoding="utf-8")
    (directory / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
    (directory / META_FILE).write_text(json.dumps(metadata(result), indent=2) + "\n", encoding="utf-8")
    if (result.raw.get("traces") or {}).get("captures"):
        write_all(result, directory)  # pcap/<link>.pcap
    entries = sorted(entry.name for entry in directory.iterdir())
    marker = {"format": MARKER_FORMAT, "cclab_version": core_version(), "entries": entries}
    (directory / MARKER_FILE).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")


def _absolute(directory: str | PathLike) -> Path:
    """``directory`` as an absolute path without ``.`` or ``..`` (``--out .`` names the
    working directory, whose name a save needs), symbolic links kept."""
    return Path(os.path.abspath(os.fspath(directory)))


def _shown_name(name: str) -> str:
    text = name.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 80 else f"{text[:48]}…{text[-16:]} ({len(text)} characters)"


def written_entries(directory: Path) -> set[str] | None:
    """The entries cclab wrote to ``directory`` as its marker lists them, or None if it
    has no readable marker. A directory an earlier version of cclab saved (no marker: a
    ``meta.json`` naming a cclab version, a ``result.json``, and only the names cclab
    writes) counts as holding what it holds."""
    try:
        marker = json.loads((directory / MARKER_FILE).read_text(encoding="utf-8"))
        if isinstance(marker, dict) and marker.get("format") == MARKER_FORMAT and isinstance(marker.get("entries"), list):
            return {str(entry) for entry in marker["entries"]} | {MARKER_FILE}
        return None
    except (OSError, UnicodeDecodeError, ValueError):
        pass
    try:
        meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    names = {entry.name for entry in directory.iterdir()}
    earlier = isinstance(meta, dict) and "cclab_version" in meta and RESULT_FILE in names
    if earlier and all(_named_as_cclab_writes(name) for name in names):
        return names
    return None


def _named_as_cclab_writes(name: str) -> bool:
    stem, _, suffix = name.rpartition(".")
    return name in FIXED_ENTRIES or (suffix in ("parquet", "csv") and stem.replace("_", "").isalnum())


def _check_name_lengths(target: Path) -> None:
    for part in target.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            raise StoreError(f"{_shown_name(part)}: a folder name of {size} bytes; file names are at most {NAME_MAX}")


def _check_replaceable(target: Path) -> None:
    _check_name_lengths(target)
    if not target.exists():
        if target.is_symlink():
            raise StoreError(f"{target}: is a broken symbolic link; choose another folder")
        return
    if not target.is_dir():
        raise StoreError(f"{target}: exists and is not a directory")
    try:
        # (a save's own staging directories are cclab's, whether its process runs or not)
        present = {entry.name for entry in target.iterdir() if not entry.name.startswith(STAGING_PREFIX)}
    except OSError as error:
        raise StoreError(f"{target}: cannot be read ({error.strerror or error})") from None
    if not present:
        return
    written = written_entries(target)
    if written is None:
        # (what cclab would never write first: the files the user is about to miss)
        unlike = sorted(name for name in present if not _named_as_cclab_writes(name)) or sorted(present)
        raise StoreError(f"{target}: exists and is not a cclab result directory (it holds "
                         f"{_listed(unlike)}); choose another folder (nothing was changed)")
    foreign = sorted(present - written)
    if foreign:
        raise StoreError(f"{target}: holds what cclab did not write there ({_listed(foreign)}); choose another "
                         "folder or move them away (nothing was changed)")


def _listed(names: list[str]) -> str:
    shown = ", ".join(_shown_name(name) for name in names[:3])
    return shown if len(names) <= 3 else f"{shown} and {len(names) - 3} more"


def _staging(folder: Path, kind: str) -> Path:
    """A hidden directory in ``folder`` named for this process (so that a later save can
    tell one a killed save left), whatever the length of the target's name."""
    return folder / f"{STAGING_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}.{kind}"


def _abandoned(entry: Path) -> bool:
    """Whether ``entry`` is a staging or retired directory of a save whose process is gone."""
    name = entry.name
    if not name.startswith(STAGING_PREFIX) or not name.endswith((".tmp", ".old")):
        return False
    owner = name[len(STAGING_PREFIX):].split("-", 1)[0]
    return owner.isdigit() and not _process_alive(int(owner))


def _remove_abandoned(folder: Path) -> None:
    """Remove the staging and retired directories of earlier saves in ``folder`` whose
    process no longer runs (a save that was killed)."""
    for leftover in folder.glob(f"{glob.escape(STAGING_PREFIX)}*"):
        if _abandoned(leftover):
            shutil.rmtree(leftover, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _put_in_place(staging: Path, target: Path) -> None:
    """Make ``target`` hold what ``staging`` holds. A new target is the staging directory
    renamed (all at once). An existing one keeps its inode (it may be the working
    directory: ``--out .``): its entries move to a retired directory inside it, then the
    new ones move in, the marker first, which lists them all, so that a save killed
    half-way leaves a directory that :func:`read` refuses (an entry of the marker is
    missing) and the next save replaces."""
    if not target.exists():
        staging.rename(target)
        return
    retired = _staging(target, "old")
    retired.mkdir()
    try:
        for entry in list(target.iterdir()):
            if not entry.name.startswith(STAGING_PREFIX):
                entry.rename(retired / entry.name)
        (staging / MARKER_FILE).rename(target / MARKER_FILE)
        for entry in list(staging.iterdir()):
            entry.rename(target / entry.name)
        staging.rmdir()
    finally:
        shutil.rmtree(retired, ignore_errors=True)
