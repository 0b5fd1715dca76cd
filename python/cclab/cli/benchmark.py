"""``cclab bench``: the standard benchmark timed beside ns-2."""

from pathlib import Path
from typing import Annotated, Optional

import typer

from cclab.cli.common import JsonOption, print_json, user_errors


def bench_command(
    duration: Annotated[Optional[float], typer.Option(help="Simulated seconds (default 100; with --scale, 10 per "
                                                            "rung).", min=0.001, max=1e6)] = None,
    flows: Annotated[int, typer.Option(help="Number of flows.", min=1)] = 100,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 1,
    ns2: Annotated[bool, typer.Option("--ns2/--no-ns2", help="Also run ns-2 when `ns` is on PATH.")] = True,
    ns2_script: Annotated[Optional[Path], typer.Option(help="ns-2 script (default: bench/ns2/dumbbell.tcl).")] = None,
    scenario: Annotated[Optional[Path], typer.Option(help="Scenario (default: experiments/standard-benchmark.toml).")] = None,
    startup: Annotated[bool, typer.Option("--startup", help="Time the command line's start-up instead: "
                                          "the tiny scenario against a bare python, the standard benchmark "
                                          "through `cclab run --json` against the bench worker.")] = False,
    repeats: Annotated[Optional[int], typer.Option(help="Runs of each command, medians shown: cclab and ns-2 "
                                                   "in alternation, the speed-up the median of the pairs' "
                                                   "(default 1; with --startup 7; with --scale ns-2 runs once "
                                                   "per rung).", min=1, max=100)] = None,
    scale: Annotated[bool, typer.Option("--scale", help="Time the scale ladder instead: 100 flows on 100 Mb/s, "
                                        "1000 on 1 Gb/s, 10 000 on 10 Gb/s (--duration s each; default 10), ns-2 "
                                        "beside the rungs it finishes in reasonable time.")] = False,
    rungs: Annotated[Optional[str], typer.Option(help="With --scale: the rungs as FLOWS:RATE,... "
                                                      "(e.g. 10000:10Gbps).")] = None,
    ns2_max_flows: Annotated[int, typer.Option(help="With --scale: run ns-2 on rungs of at most this many flows.",
                                               min=0)] = 1000,
    as_json: JsonOption = False,
) -> None:
    """Time the standard benchmark (100 Reno flows, 100 Mb/s dumbbell, 100 s), side by side with ns-2."""
    from cclab import bench as benchmarks

    with user_errors():
        if scale:
            report = benchmarks.scale(duration=duration or 10, rungs=benchmarks.parse_rungs(rungs),
                                      seed=seed, ns2=ns2, ns2_max_flows=ns2_max_flows, scenario_path=scenario,
                                      ns2_script=ns2_script, repeats=repeats or 1)
        elif startup:
            report = benchmarks.startup(repeats or 7)
        else:
            report = benchmarks.bench(duration=duration or 100, flows=flows, seed=seed, ns2=ns2, scenario_path=scenario,
                                      ns2_script=ns2_script, repeats=repeats or 1)
    if as_json:
        print_json(report)
    elif scale:
        benchmarks.print_scale(report)
    elif startup:
        benchmarks.print_startup(report)
    else:
        benchmarks.print_report(report)


def register(app: typer.Typer) -> None:
    app.command("bench")(bench_command)
