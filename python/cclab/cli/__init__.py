"""The ``cclab`` command line.

Exit codes: 0 success; 2 bad input (a bad scenario, plan, ``--set`` or option, a missing
file, an unusable ``--out``), reported as one line ``error: <message>`` on stderr before
anything is written; 1 a run that failed or a bug in cclab; 130 interrupted. Standard
output closed early (``cclab run --json | head -c 10``) ends the command quietly with 1. Warnings
(legal but probably unintended settings) are ``warning: <message>`` lines on stderr.
``--json`` prints exactly one JSON document on stdout.

Each command lives in the module of its job (``scenarios``, ``sweeps``, ``papers``,
``benchmark``); ``main`` imports only the module of the command it was given, so
``cclab run`` does not pay for the others' imports.
"""

import importlib
import os
import sys
from typing import Annotated, Optional, Sequence

import typer

from cclab.cli.common import INTERRUPTED, USAGE_ERROR, interrupted

# Each top-level command and the module of cclab.cli whose register() adds it.
COMMAND_MODULES = {"run": "scenarios", "validate": "scenarios", "reproduce": "papers", "sweep": "sweeps",
                   "report": "sweeps", "export": "sweeps", "bench": "benchmark",
                   "crosscheck": "ns2", "export-ns2": "ns2", "trace": "traces"}


def _show_version(show: bool) -> None:
    if show:
        from cclab.core import version

        typer.echo(f"cclab {version()}")
        raise typer.Exit()


def _main(
    show_version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                               help="Print the version and exit.")] = False,
) -> None:
    """cclab: a fast packet-level TCP congestion-control simulator."""


def build_app(modules: Optional[Sequence[str]] = None) -> typer.Typer:
    """The ``cclab`` app with the commands of ``modules`` (default: every command)."""
    app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False)
    app.callback()(_main)
    for module in dict.fromkeys(modules or COMMAND_MODULES.values()):
        importlib.import_module(f"cclab.cli.{module}").register(app)
    return app


def __getattr__(name: str):
    if name == "app":  # the whole app, for typer.testing.CliRunner and documentation tools
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(arguments: Optional[Sequence[str]] = None) -> None:
    """The ``cclab`` entry point. Click's usage errors (a missing argument, an unknown
    option or command, a value out of an option's range) become one line like every
    other user error, instead of click's framed box."""
    # click's UsageError, as typer exposes it (BadParameter is its public subclass)
    usage_error = typer.BadParameter.__bases__[0]
    arguments = list(sys.argv[1:] if arguments is None else arguments)
    completing = any(name.startswith("_CCLAB_COMPLETE") for name in os.environ)
    command = arguments[0] if arguments else None
    modules = [COMMAND_MODULES[command]] if command in COMMAND_MODULES and not completing else None
    try:
        code = build_app(modules)(args=arguments, prog_name="cclab", standalone_mode=False)
    except usage_error as error:
        where = error.ctx.command_path if error.ctx is not None else "cclab"
        message = error.format_message().strip()
        if message:  # (none when the command was given no arguments: the help is shown)
            typer.echo(f"error: {message} (see '{where} --help')", err=True)
        code = USAGE_ERROR
    except typer.Exit as exit_:
        code = exit_.exit_code
    except (typer.Abort, KeyboardInterrupt):
        code = INTERRUPTED
    if code == INTERRUPTED:  # (typer turns Ctrl-C into a silent exit code 130)
        interrupted()
    _exit(code if isinstance(code, int) else 0, immediately=modules == ["scenarios"])


def _exit(code: int, immediately: bool) -> None:
    """Exit with ``code``. ``immediately`` skips the interpreter's tear-down of every
    imported module (about 10 ms, a tenth of a short run's wall time): only for commands
    that leave nothing open (run and validate close what they write before returning)."""
    if immediately:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
