"""``cclab bench``: the standard benchmark timed beside ns-2."""

from pathlib import Path
from typing import Annotated, Optional

import typer

from cclab.cli.common import JsonOption, print_json, user_errors


def bench_command(
    duration: Annotated[float, typer.Option(help="Simulated seconds.")] = 100,
    flows: Annotated[int, typer.Option(help="Number of flows.", min=1)] = 100,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 1,
    ns2: Annotated[bool, typer.Option("--ns2/--no-ns2", help="Also run ns-2 when `ns` is on PATH.")] = True,
    ns2_script: Annotated[Optional[Path], typer.Option(help="ns-2 script (default: bench/ns2/dumbbell.tcl).")] = None,
    scenario: Annotated[Optional[Path], typer.Option(help="Scenario (default: experiments/standard-benchmark.toml).")] = None,
    startup: Annotated[bool, typer.Option("--startup", help="Time the command line's start-up instead: "
                                          "the tiny scenario against a bare python, the standard benchmark "
                                          "through `cclab run --json` against the bench worker.")] = False,
    repeats: Annotated[int, typer.Option(help="With --startup: runs of each command (medians are shown).",
                                         min=1, max=100)] = 7,
    as_json: JsonOption = False,
) -> None:
    """Time the standard benchmark (100 Reno flows, 100 Mb/s dumbbell, 100 s), side by side with ns-2."""
    from cclab import bench as benchmarks

    with user_errors():
        if startup:
            report = benchmarks.startup(repeats)
        else:
            report = benchmarks.bench(duration=duration, flows=flows, seed=seed, ns2=ns2, scenario_path=scenario,
                                      ns2_script=ns2_script)
    if as_json:
        print_json(report)
    elif startup:
        benchmarks.print_startup(report)
    else:
        benchmarks.print_report(report)


def register(app: typer.Typer) -> None:
    app.command("bench")(bench_command)
