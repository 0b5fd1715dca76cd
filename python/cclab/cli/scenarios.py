"""``cclab run`` and ``cclab validate``: one scenario.

These are the commands scripts call thousands of times, so this module imports no
pandas, pyarrow, matplotlib or duckdb: ``run --json`` prints the engine's JSON as it
comes, and the summary tables are built from it directly.
"""

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cclab.cli.common import JsonOption, MemoryOption, ScenarioFile, SetOption, print_json, print_table, user_errors, warn
from cclab.scenario import load_scenario, scenario_toml

# The summary lists at most this many link directions (all of them are in --json and --out).
LINKS_SHOWN = 12


def run(
    file: ScenarioFile,
    overrides: SetOption = None,
    as_json: JsonOption = False,
    out: Annotated[Optional[Path], typer.Option(help="Save the result tables to this directory.")] = None,
    trace: Annotated[bool, typer.Option(help="Trace every flow's cwnd/ssthresh/srtt and the bottleneck queue.")] = False,
    max_memory: MemoryOption = None,
) -> None:
    """Run a scenario (a file, or - for standard input); print a summary, or the result as JSON."""
    from cclab.core import warnings_json
    from cclab.scenario import parse_memory, scenario_json

    with user_errors():
        scenario = load_scenario(file, list(overrides or []) + (["trace.flows=true", "trace.queue=true"] if trace else []),
                                 origin="--set")
        payload = scenario_json(scenario)
        before = warnings_json(payload)  # (validates: a bad scenario stops here, before anything runs)
        warn(before)
        if out is not None:
            from cclab.store.directory import check_target

            check_target(out)
        raw = _run_with_progress(payload, parse_memory(max_memory, "--max-memory"), show=not as_json)
        # what only the run could tell (a flow that delivered nothing, traces cut short)
        warn([message for message in result_warnings(raw) if message not in before])
        if out is not None:
            from cclab.results import Result
            from cclab.store.directory import save

            save(Result.from_json(raw), out)
    if as_json:
        print_json(raw)
        return
    print_summary(json.loads(raw))
    if out is not None:
        typer.echo(f"saved to {out}")


def _run_with_progress(payload: str, max_memory, show: bool) -> str:
    """Run, with a progress bar on stderr once the run is older than two seconds, when
    ``show`` and both stdout and stderr are terminals. Ctrl-C raises KeyboardInterrupt
    (exit 130) within a fraction of a second, before anything is written."""
    from cclab.runs.engine import run_json
    from cclab.progress import RunProgress, on_terminal

    if not (show and on_terminal()):
        return run_json(payload, max_memory, "--max-memory")
    with RunProgress() as progress:
        return run_json(payload, max_memory, "--max-memory", progress)


def validate_command(
    file: ScenarioFile,
    overrides: SetOption = None,
    as_json: JsonOption = False,
    show_topology: Annotated[bool, typer.Option("--topology", help="Print the topology as the engine expands it "
                                                "(nodes, every link direction, each flow's route) as JSON.")] = False,
) -> None:
    """Check a scenario (a file, or - for stdin); print it with every default filled in."""
    from cclab.core import topology_json, validate_json, warnings_json
    from cclab.scenario import scenario_json

    with user_errors():
        # read once: standard input cannot be read twice
        payload = scenario_json(load_scenario(file, list(overrides or []), origin="--set"))
        normalized = json.loads(validate_json(payload))
        warn(warnings_json(payload))
        if show_topology:
            print_json(topology_json(payload))
            return
    if as_json:
        print_json(normalized)
    else:
        sys.stdout.write(scenario_toml(normalized))


def result_warnings(raw: str) -> list:
    """The warnings of a result document, read without parsing the rest of it (the
    engine writes them second, after the version)."""
    key = '"warnings":'
    start = raw.find(key, 0, 200)
    if start < 0:
        return json.loads(raw).get("warnings", [])
    return json.JSONDecoder().raw_decode(raw, start + len(key))[0]


def print_summary(raw: dict) -> None:
    """The result's system metrics, groups and busiest links as tables (from the engine's
    JSON: no pandas)."""
    from rich.console import Console

    system = raw["system"]
    console = Console()

    def number(value, spec: str, unit: str = "") -> str:
        return "n/a" if value is None else f"{value:{spec}}{unit}"

    arrived = sum(g["flows"] for g in raw["groups"]) - len(raw["flows"])
    title = (f"{raw['scenario'].get('name', 'scenario')}: {len(raw['flows'])} flows"
             f"{f' and {arrived:,} arrived' if arrived else ''}, "
             f"{raw['duration_s']:g} s simulated in {raw['wall_time_s']:.2f} s")
    console.print(title)
    print_table("system", ["metric", "value"], [
        ("goodput", number(system["goodput_mbps"], ".3f", " Mb/s")),
        ("throughput", number(system["throughput_mbps"], ".3f", " Mb/s")),
        ("Jain index", number(system["jain_index"], ".4f")),
        ("bottleneck link", system["bottleneck_link"]),
        ("bottleneck utilization", number(system["bottleneck_utilization"], ".1%")),
        ("bottleneck drops", number(system["bottleneck_drops"], ",")),
        ("  of them by its discipline", number(system["bottleneck_aqm_drops"], ",")),
        ("bottleneck ECN marks", number(system["bottleneck_ecn_marks"], ",")),
        ("loss-model drops", number(system["loss_model_drops"], ",")),
        ("mean queue delay", number(system["mean_queue_delay_ms"], ".2f", " ms")),
        ("events", number(raw["events"], ",")),
    ], console)
    # one protocol column: the congestion control of TCP groups, "udp" for UDP ones
    print_table("groups", ["name", "protocol", "flows", "goodput_mbps", "throughput_mbps"],
                [(g["name"], g["cc"] or g["transport"], g["flows"], g["goodput_mbps"], g["throughput_mbps"])
                 for g in raw["groups"]], console)
    finite = [g for g in raw["groups"] if g.get("fct")]
    if finite:
        print_table("flow completion times (completed flows)",
                    ["group", "flows", "completed", "p50_fct_ms", "p99_fct_ms", "p50_slowdown", "p99_slowdown"],
                    [(g["name"], g["fct"]["flows"], g["fct"]["completed"], g["fct"]["p50_fct_ms"], g["fct"]["p99_fct_ms"],
                      g["fct"]["p50_slowdown"], g["fct"]["p99_slowdown"]) for g in finite], console)
    used = [link for link in raw["links"] if link["arrivals"] > 0]
    shown = sorted(used, key=lambda link: -link["utilization"])[:LINKS_SHOWN]
    columns = ["name", "rate_mbps", "utilization", "queue_drops", "aqm_drops", "loss_drops", "ecn_marks",
               "mean_queue_delay_ms"]
    title = "links" if len(shown) == len(used) else f"the {LINKS_SHOWN} busiest of {len(used)} links in use"
    print_table(title, columns, [tuple(link[c] for c in columns) for link in shown], console)
    queues = [(link["name"], q["name"], q["packets"], q["mean_delay_ms"], q["max_delay_ms"], q["marks"], q["drops"])
              for link in shown for q in link.get("queues", []) if q["packets"] > 0]
    if queues:  # a discipline with several queues (DualPI2's L and C)
        print_table("queues", ["link", "queue", "packets", "mean_delay_ms", "max_delay_ms", "marks", "drops"],
                    queues, console)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("validate")(validate_command)
