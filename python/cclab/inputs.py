"""Every file a user names is read here: scenario and plan files, flow-size CDFs, and
any other data file a scenario points to.

One rule for all of them (docs/input-rules.md): a regular file (not a directory, pipe
or device), at most :data:`MAX_FILE_BYTES`, UTF-8 text, lines of at most
:data:`MAX_LINE_CHARS` characters for line-oriented data; each error is one
:class:`ScenarioError` line naming the field that named the file, the file, and for
data the line.
"""
from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from cclab.core import ScenarioError

MAX_FILE_BYTES = 64 << 20
# A line of a data file (a CDF row, a trace line) is a few numbers; a longer one is not data.
MAX_LINE_CHARS = 1000


def printable(text: str) -> str:
    """``text`` with what cannot be written to a UTF-8 terminal (a lone surrogate) or
    should not be (a NUL, a newline) escaped."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text.replace("\0", "\\0").replace("\n", "\\n").replace("\r", "\\r")


def file_name(path: object) -> str:
    """A file name as a message shows it: printable, shortened past 200 characters."""
    text = printable(str(path))
    return text if len(text) <= 200 else f"{text[:120]}…{text[-60:]} ({len(text)} characters)"


def read_text(path: Path, what: str, field: Optional[str] = None, limit: int = MAX_FILE_BYTES,
              shown_as: Optional[str] = None) -> str:
    """The text of the file at ``path``, which a user gave as ``what`` (``a scenario .toml
    file``, ``a CSV of size_bytes,cumulative_probability rows``); a missing, unreadable,
    odd (a FIFO, a device, a directory, more than ``limit`` bytes), unnamable (a NUL in
    its name) or non-UTF-8 file is a one-line ScenarioError, prefixed by ``field`` when
    a field of a scenario named the file, and naming the file as ``shown_as`` (as the
    user wrote it; its path by default)."""
    name = shown_as if shown_as is not None else file_name(path)
    where = f"{field}: {name}" if field else name
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ScenarioError(f"{where}: no such file") from None
    except OSError as error:
        raise ScenarioError(f"{where}: {error.strerror}") from None
    except UnicodeEncodeError:
        raise ScenarioError(f"{where}: not a usable file name (it holds characters no file name can)") from None
    except ValueError:  # embedded null byte
        raise ScenarioError(f"{where}: not a usable file name (it holds a NUL character)") from None
    if stat.S_ISDIR(info.st_mode):
        raise ScenarioError(f"{where}: is a directory, expected {what}")
    if not stat.S_ISREG(info.st_mode):
        raise ScenarioError(f"{where}: not a regular file (a pipe or a device?), expected {what}")
    if info.st_size > limit:
        raise ScenarioError(f"{where}: {info.st_size} bytes, more than the {limit} bytes cclab reads of {what}")
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)  # (a file that grew since stat is still bounded)
    except OSError as error:
        raise ScenarioError(f"{where}: {error.strerror or error}") from None
    if len(data) > limit:
        raise ScenarioError(f"{where}: more than the {limit} bytes cclab reads of {what}")
    return decode(data, where)


def decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"{where}: not UTF-8 text ({error.reason} at byte {error.start})") from None


def data_lines(text: str, where: str) -> Iterator[tuple[int, str]]:
    """The lines of a data file that hold data, with their numbers (from 1): blank lines
    and ``#`` comments are skipped; a line longer than :data:`MAX_LINE_CHARS` is an error
    naming it (``where`` names the file)."""
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE_CHARS:
            raise ScenarioError(f"{where} line {number}: {len(line)} characters; a data line is at most "
                                f"{MAX_LINE_CHARS}")
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, stripped


def shown_value(text: str) -> str:
    """A value read from a file as a message quotes it (printable, at most 40 characters)."""
    text = printable(text)
    return repr(text if len(text) <= 40 else f"{text[:24]}…{text[-8:]}")
