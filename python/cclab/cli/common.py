"""What every command shares: option types, the user-error convention and table printing.

User errors (a bad scenario, a bad ``--set``, a missing file, an unusable ``--out``)
print one line ``error: <message>`` on stderr and exit with code 2, before anything is
written; a run that fails, or a bug in cclab (a panic in its core), prints one line and
exits with 1.
"""

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated, Iterator, List, Optional

import typer

from cclab.core import InternalError, ScenarioError
from cclab.errors import BenchError, Ns2Error, StoreError, SweepError

OK, RUN_FAILED, USAGE_ERROR, INTERRUPTED = 0, 1, 2, 130

ScenarioFile = Annotated[Path, typer.Argument(help="Scenario TOML file (- for standard input).", show_default=False)]
SetOption = Annotated[
    Optional[List[str]],
    typer.Option("--set", "-s", metavar="KEY=VALUE",
                 help="Override a scenario value: dotted path, list indices as numbers, "
                      "TOML value (e.g. --set flows.0.count=10 --set topology.bottleneck.rate=10Mbps)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document instead of tables.")]
MemoryOption = Annotated[Optional[str], typer.Option("--max-memory", metavar="SIZE",
                                                     help="Refuse a run estimated to need more memory (e.g. 16GB; "
                                                          "default 8GiB).")]


_interruption_reported = False


def interrupted(message: str = "interrupted") -> None:
    """Say once, on stderr, that the command was interrupted (Ctrl-C: exit code 130)."""
    global _interruption_reported
    if not _interruption_reported:
        typer.echo(message, err=True)
        _interruption_reported = True


def warn(messages) -> None:
    for message in messages:
        typer.echo(f"warning: {one_line(message)}", err=True)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into ``error: ...`` and exit code 2 (1 for a
    benchmark process that failed or a bug in the core)."""
    try:
        yield
    except (ScenarioError, StoreError, SweepError) as error:
        fail(error, USAGE_ERROR)
    except OSError as error:  # a file or directory that cannot be read or written
        where = f"{error.filename}: " if error.filename else ""
        fail(OSError(f"{where}{error.strerror or error}"), USAGE_ERROR)
    except (BenchError, InternalError, Ns2Error) as error:
        fail(error, RUN_FAILED)
    except Exception as error:
        # A results store damaged past what opening it checks (a Parquet page overwritten
        # in the middle of a part): the reader's own words, on one line.
        if type(error).__module__.split(".")[0].lstrip("_") not in ("duckdb", "pyarrow"):
            raise
        fail(Exception(f"the results store cannot be read: {error}"), RUN_FAILED)


def fail(error: Exception, code: int) -> None:
    typer.echo(f"error: {one_line(str(error))}", err=True)
    raise typer.Exit(code)


def one_line(message: str, limit: int = 1000) -> str:
    """``message`` as one printable line of at most about ``limit`` characters (whatever
    a file name or a value echoed in it held: newlines, a lone surrogate, a megabyte)."""
    message = "; ".join(line.strip() for line in message.splitlines() if line.strip())
    message = message.encode("utf-8", "backslashreplace").decode("utf-8").replace("\0", "\\0")
    if len(message) > limit:
        message = f"{message[:limit * 2 // 3]}…{message[-(limit // 4):]} ({len(message)} characters in all)"
    return message


def print_json(document: object) -> None:
    sys.stdout.write((document if isinstance(document, str) else json.dumps(document)) + "\n")


def print_table(title: str, columns: list[str], rows, console=None) -> None:
    """A rich table: numbers right-aligned, floats to 4 significant digits."""
    from rich.console import Console
    from rich.table import Table

    rows = [tuple(row) for row in rows]
    table = Table(title=title)
    for index, column in enumerate(columns):
        numeric = rows and all(isinstance(row[index], (int, float)) and not isinstance(row[index], bool) for row in rows)
        table.add_column(str(column), justify="right" if numeric else "left")
    for row in rows:
        table.add_row(*(f"{value:.4g}" if isinstance(value, float) else str(value) for value in row))
    (console or Console()).print(table)


def print_frame(frame, title: str, console=None) -> None:
    """A pandas DataFrame as a rich table."""
    print_table(title, [str(c) for c in frame.columns], frame.itertuples(index=False), console)
