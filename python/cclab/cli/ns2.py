"""``cclab crosscheck`` and ``cclab export-ns2``: a scenario in ns-2.35 beside cclab.

A scenario that uses something ns-2 cannot run is refused before anything runs (one
line naming the field, exit 2); a missing ``ns`` or an ns-2 run that fails is exit 1.
Where ns-2 runs the scenario, but not exactly as cclab does, a ``warning:`` line says so.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from cclab.cli.common import JsonOption, ScenarioFile, SetOption, print_json, user_errors, warn
from cclab.scenario import load_scenario

# Seeds a crosscheck may take: each one is a run of both simulators.
MAX_SEEDS = 1000


def crosscheck_command(
    file: ScenarioFile,
    overrides: SetOption = None,
    seeds: Annotated[int, typer.Option(help="Seeds to run: the scenario's seed and the next ones.", min=1,
                                       max=MAX_SEEDS)] = 3,
    workers: Annotated[Optional[int], typer.Option(help="Seeds run at once (default: the number of cores).",
                                                   min=1)] = None,
    out: Annotated[Optional[Path], typer.Option(help="Also write the table (crosscheck.md, .csv, .json) and the "
                                                     "ns-2 script of the first seed here.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a scenario in cclab and in ns-2.35 for several seeds; print one table comparing them."""
    from cclab.core import validate_json
    from cclab.ns2.crosscheck import crosscheck
    from cclab.ns2.run import ns_binary
    from cclab.ns2.translate import translate
    from cclab.scenario import scenario_json

    with user_errors():
        scenario = json.loads(validate_json(scenario_json(load_scenario(file, list(overrides or []), origin="--set"))))
        script = translate(scenario)  # what ns-2 cannot run is refused here
        warn(f"ns-2: {note}" for note in script.notes)
        if out is not None:
            from cclab.store.directory import check_target

            check_target(out)
        ns_binary()
        progress = None if as_json else (lambda line: typer.echo(line, err=True))
        result = crosscheck(scenario, seeds=seeds, workers=workers, progress=progress)
        if out is not None:
            _write(out, result, script.text)
    if as_json:
        print_json(result.as_dict())
    else:
        _print(result)
        if out is not None:
            typer.echo(f"saved to {out}")


def export_command(
    file: ScenarioFile,
    overrides: SetOption = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the script here instead of "
                                                   "standard output.")] = None,
) -> None:
    """Write the ns-2.35 Tcl script of a scenario (run it with `ns FILE`: one line of JSON at the end)."""
    from cclab.core import validate_json
    from cclab.ns2.translate import translate
    from cclab.scenario import scenario_json

    with user_errors():
        scenario = json.loads(validate_json(scenario_json(load_scenario(file, list(overrides or []), origin="--set"))))
        script = translate(scenario)
        warn(f"ns-2: {note}" for note in script.notes)
        if output is None:
            typer.echo(script.text, nl=False)
            return
        if output.is_dir():
            raise OSError(21, "is a directory", str(output))
        if not output.parent.is_dir():
            raise OSError(2, "no such directory", str(output.parent))
        temporary = output.with_name(f".{output.name}.tmp")
        temporary.write_text(script.text, encoding="utf-8")
        temporary.replace(output)  # whole or not at all
    typer.echo(f"wrote {output}", err=True)


def _print(result) -> None:
    from rich.console import Console
    from rich.table import Table

    from cclab.ns2.crosscheck import format_difference, with_ci

    table = Table(title=f"{result.scenario.get('name', 'scenario')}: cclab against ns-2.35, seeds "
                        f"{', '.join(map(str, result.seeds))} (mean ± 95 % CI)")
    for column in ("metric", "cclab", "ns-2.35", "difference"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for row in result.rows:
        table.add_row(f"{row.metric}{f' ({row.unit})' if row.unit == 'Mb/s' else ''}", with_ci(row.cclab),
                      with_ci(row.ns2), format_difference(row))
    console = Console()
    console.print(table)
    walls = result.wall_time_s
    console.print(f"wall time over all seeds: cclab {walls['cclab']:.2f} s, ns-2.35 {walls['ns2']:.2f} s")


def _write(directory: Path, result, script: str) -> None:
    import csv

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "crosscheck.md").write_text(result.markdown() + "\n", encoding="utf-8")
    (directory / "crosscheck.json").write_text(json.dumps(result.as_dict(), indent=2) + "\n", encoding="utf-8")
    with open(directory / "crosscheck.csv", "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["metric", "unit", "seed", "cclab", "ns2"])
        for row in result.rows:
            for seed, ours, theirs in zip(result.seeds, row.cclab, row.ns2):
                writer.writerow([row.metric, row.unit, seed, ours, theirs])
    (directory / "ns2.tcl").write_text(script, encoding="utf-8")


def register(app: typer.Typer) -> None:
    app.command("crosscheck")(crosscheck_command)
    app.command("export-ns2")(export_command)
