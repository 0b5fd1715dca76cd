"""The ``cclab`` command line.

User errors (a bad scenario, a bad ``--set``, a missing file, an unusable ``--out``)
print one line ``error: <message>`` on stderr and exit with code 2, before anything is
written; a bug in cclab (a panic in its core) prints one line and exits with 1.
Warnings (legal but probably unintended settings) print ``warning: <message>`` lines on
stderr. ``--json`` prints exactly one JSON document on stdout.
"""
from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated, Iterator, List, Optional

import typer

from cclab.core import InternalError, ScenarioError, version
from cclab.errors import BenchError, StoreError, SweepError
from cclab.scenario import load_scenario, scenario_toml, validate

USAGE_ERROR = 2

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="cclab: a fast packet-level TCP congestion-control simulator.",
)
reproduce_app = typer.Typer(no_args_is_help=True, help="Reproduce the experiments of the papers cclab validates against.")
app.add_typer(reproduce_app, name="reproduce")

ScenarioFile = Annotated[Path, typer.Argument(help="Scenario TOML file.", show_default=False)]
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


def _warn(messages) -> None:
    for message in messages:
        typer.echo(f"warning: {message}", err=True)


@contextlib.contextmanager
def _user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into ``error: ...`` and exit code 2 (1 for a
    benchmark process that failed)."""
    try:
        yield
    except (ScenarioError, StoreError, SweepError) as error:
        _fail(error, USAGE_ERROR)
    except OSError as error:  # a file or directory that cannot be read or written
        where = f"{error.filename}: " if error.filename else ""
        _fail(OSError(f"{where}{error.strerror or error}"), USAGE_ERROR)
    except (BenchError, InternalError) as error:
        _fail(error, 1)


def _fail(error: Exception, code: int) -> None:
    message = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _print_json(document: object) -> None:
    sys.stdout.write((document if isinstance(document, str) else json.dumps(document)) + "\n")


def _show_version(show: bool) -> None:
    if show:
        typer.echo(f"cclab {version()}")
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                               help="Print the version and exit.")] = False,
) -> None:
    pass


@app.command()
def run(
    file: ScenarioFile,
    overrides: SetOption = None,
    as_json: JsonOption = False,
    out: Annotated[Optional[Path], typer.Option(help="Save the result tables to this directory.")] = None,
    trace: Annotated[bool, typer.Option(help="Trace every flow's cwnd/ssthresh/srtt and the bottleneck queue.")] = False,
    max_memory: MemoryOption = None,
) -> None:
    """Run a scenario and print a summary (or the full result with --json)."""
    with _user_errors():
        scenario = load_scenario(file, list(overrides or []) + (["trace.flows=true", "trace.queue=true"] if trace else []))
        validate(scenario)  # fail fast, before the pandas-based modules load
        from cclab.runs.api import run as run_scenario
        from cclab.store.directory import check_target, save

        if out is not None:
            check_target(out)
        result = run_scenario(scenario, max_memory=max_memory)
        _warn(result.warnings)
        if out is not None:
            save(result, out)
    if as_json:
        _print_json(result.to_json())
        return
    _print_summary(result)
    if out is not None:
        typer.echo(f"saved to {out}")


@app.command("validate")
def validate_command(
    file: ScenarioFile,
    overrides: SetOption = None,
    as_json: JsonOption = False,
    show_topology: Annotated[bool, typer.Option("--topology", help="Print the topology as the engine expands it "
                                                "(nodes, every link direction, each flow's route) as JSON.")] = False,
) -> None:
    """Check a scenario and print it normalized (every default filled in) as TOML."""
    with _user_errors():
        normalized = validate(file, list(overrides or []))
        from cclab.scenario import scenario_warnings

        _warn(scenario_warnings(file, list(overrides or [])))
        if show_topology:
            from cclab.scenario import topology

            _print_json(topology(file, list(overrides or [])))
            return
    if as_json:
        _print_json(normalized)
    else:
        sys.stdout.write(scenario_toml(normalized))


@reproduce_app.command("static-wired")
def reproduce_static_wired(
    quick: Annotated[bool, typer.Option("--quick", help="N ∈ {10, 20, 40}, 20 s: a check in well under a minute.")] = False,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/static-wired"),
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: one per core).")] = None,
    bottleneck: Annotated[Optional[List[str]], typer.Option("--bottleneck", help="Bottleneck rate; repeat for several "
                                                             "(10Mbps: Figure 2, 100Mbps: Figure 3).")] = None,
) -> None:
    """Zhang & Tsaoussidis 2002 §5.1: system goodput vs number of flows (Figures 2, 3)."""
    from cclab.papers.zhang2002.static_wired import static_wired

    with _user_errors():
        table = static_wired(out, quick=quick, jobs=jobs, bottleneck=bottleneck or ["10Mbps"])
    goodput = table.pivot_table(index=["bottleneck", "flows"], columns="protocol", values="system_goodput_mbps",
                                aggfunc="first", sort=False)
    _print_frame(goodput.reset_index(), "static-wired: system goodput (Mb/s)")
    typer.echo(f"wrote {out}/static_wired.parquet, .csv, .png")


@reproduce_app.command("zhang2002")
def reproduce_zhang2002(
    quick: Annotated[bool, typer.Option("--quick", help="Shorter runs, fewer points and 3 seeds: the whole set "
                                                        "in about a minute.")] = False,
    figure: Annotated[Optional[List[str]], typer.Option("--figure", metavar="N", help="Only Figure N (2–11); "
                                                        "repeat for several. Default: all.")] = None,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/zhang2002"),
    seeds: Annotated[Optional[str], typer.Option("--seeds", metavar="K", help="Seeds per point "
                                                 "(default 3 with --quick, else 5).")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: one per core).")] = None,
) -> None:
    """Zhang & Tsaoussidis 2002: Figures 2–11 as PNG + CSV/Parquet, and summary.md judging each claim."""
    from cclab.papers.zhang2002 import ReproduceError, reproduce

    with _user_errors():
        try:
            seed_count = _positive_int("--seeds", seeds) if seeds is not None else None
            outcome = reproduce(out, quick=quick, figures=figure, seeds=seed_count, jobs=jobs)
        except ReproduceError as error:
            _fail(error, USAGE_ERROR)
    _print_verdicts(outcome, lambda figure: f"Figure {figure.number:>2}")


@reproduce_app.command("mraimd")
def reproduce_mraimd(
    quick: Annotated[bool, typer.Option("--quick", help="60 s runs, 3 flow counts, 2 seeds: the whole set "
                                                        "in well under a minute.")] = False,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/mraimd"),
    seeds: Annotated[Optional[str], typer.Option("--seeds", metavar="K", help="Seeds per point "
                                                 "(default 2 with --quick, else 5).")] = None,
    jobs: Annotated[Optional[str], typer.Option("--jobs", "-j", metavar="J",
                                                help="Parallel runs (default: one per core).")] = None,
) -> None:
    """MR-AIMD (Psaras, Dianati & Tafazolli): Table 1 and Figures 4–7 as PNG + CSV/Parquet, and summary.md."""
    from cclab.papers.mraimd import MraimdError, reproduce

    with _user_errors():
        try:
            outcome = reproduce(out, quick=quick, seeds=seeds, jobs=jobs)
        except MraimdError as error:
            _fail(error, USAGE_ERROR)
    _print_verdicts(outcome, lambda figure: f"{figure.title:>9}")


def _print_verdicts(outcome, name_of) -> None:
    """One line per reproduced figure with its claims' verdicts, then where it went."""
    for figure_outcome in outcome.figures:
        verdicts = ", ".join(claim.verdict for claim in figure_outcome.claims)
        typer.echo(f"{name_of(figure_outcome.figure)}: {verdicts}")
    typer.echo(f"wrote {outcome.summary} and the figures' .png/.csv/.parquet in {outcome.wall_time_s:.0f} s")


def _positive_int(option: str, text: str) -> int:
    from cclab.papers.zhang2002 import ReproduceError

    try:
        value = int(text)
    except ValueError:
        raise ReproduceError(f"{option} {text}: not a whole number") from None
    if value < 1:
        raise ReproduceError(f"{option} {text}: must be at least 1")
    return value


@app.command("sweep")
def sweep_command(
    plan_file: Annotated[Path, typer.Argument(help="Sweep plan TOML file.", show_default=False)],
    executor: Annotated[str, typer.Option(help="Where runs execute: local (process pool), dask or ray.")] = "local",
    workers: Annotated[Optional[int], typer.Option("--workers", "-w", min=1,
                                                   help="Worker processes (default: one per core).")] = None,
    scheduler: Annotated[Optional[str], typer.Option(help="Address of an existing Dask scheduler "
                                                          "(tcp://host:8786) or Ray cluster.")] = None,
    store: Annotated[Optional[Path], typer.Option(help="Results file (default: results/sweeps/NAME.duckdb).")] = None,
    replications: Annotated[Optional[int], typer.Option(min=1, help="Override the plan's replications.")] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show progress on stderr.")] = True,
    max_memory: MemoryOption = None,
) -> None:
    """Run a sweep plan; runs already in the results file are skipped (re-run to resume)."""
    with _user_errors():
        from cclab.runs.plan import load_plan
        from cclab.scenario import parse_memory

        memory = parse_memory(max_memory)
        plan = load_plan(plan_file, {"replications": replications} if replications else None)
        plan.runs()  # every point is checked before an executor starts
        from cclab.runs.runner import open_executor, run_plan

        with open_executor(executor, workers, scheduler) as pool:
            try:
                outcome = run_plan(plan, pool, store=store, progress=progress, max_memory=memory)
            except KeyboardInterrupt:
                typer.echo("interrupted: every finished run is stored; run the same command again to resume", err=True)
                raise typer.Exit(130) from None
    typer.echo(f"{plan.name}: {outcome.total} runs, {outcome.skipped} already stored, {outcome.succeeded} ran, "
               f"{outcome.failed} failed, {outcome.wall_time_s:.1f} s ({outcome.runs_per_minute:.0f} runs/min) "
               f"-> {outcome.store}")
    for run_id, error in outcome.failures[:5]:
        typer.echo(f"failed run {run_id}: {error}", err=True)
    if outcome.failed:
        raise typer.Exit(1)


@app.command("report")
def report_command(
    results: Annotated[Path, typer.Argument(help="Results file of a sweep (.duckdb).", show_default=False)],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Output directory "
                                                "(default: RESULTS without suffix + '-report').")] = None,
) -> None:
    """Write a static HTML report of a sweep: figures, mean ± CI tables, scenario, provenance."""
    with _user_errors():
        from cclab.plots.report import write_report

        page = write_report(results, out or results.with_name(results.stem + "-report"))
    typer.echo(f"wrote {page}")


@app.command("export")
def export_command(
    results: Annotated[Path, typer.Argument(help="Results file of a sweep (.duckdb).", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory for TABLE.parquet files.")],
) -> None:
    """Export every table of a sweep's results file to Parquet."""
    with _user_errors():
        from cclab.store.sweeps import SweepStore

        with SweepStore(results, read_only=True) as store:
            written = store.export_parquet(out)
    typer.echo(f"wrote {len(written)} tables to {out}")


@app.command("bench")
def bench_command(
    duration: Annotated[float, typer.Option(help="Simulated seconds.")] = 100,
    flows: Annotated[int, typer.Option(help="Number of flows.", min=1)] = 100,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 1,
    ns2: Annotated[bool, typer.Option("--ns2/--no-ns2", help="Also run ns-2 when `ns` is on PATH.")] = True,
    ns2_script: Annotated[Optional[Path], typer.Option(help="ns-2 script (default: bench/ns2/dumbbell.tcl).")] = None,
    scenario: Annotated[Optional[Path], typer.Option(help="Scenario (default: experiments/standard-benchmark.toml).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Time the standard benchmark (100 Reno flows, 100 Mb/s dumbbell, 100 s), side by side with ns-2."""
    from cclab.bench import bench, print_report

    with _user_errors():
        report = bench(duration=duration, flows=flows, seed=seed, ns2=ns2, scenario_path=scenario, ns2_script=ns2_script)
    if as_json:
        _print_json(report)
    else:
        print_report(report)


# The summary lists at most this many link directions (all of them are in --json and --out).
LINKS_SHOWN = 12


def _print_summary(result) -> None:
    from rich.console import Console
    from rich.table import Table

    system = result.system
    overview = Table(title=f"{result.scenario.get('name', 'scenario')}: {len(result.raw['flows'])} flows, "
                           f"{result.duration_s:g} s simulated in {system['wall_time_s']:.2f} s")
    overview.add_column("system")
    overview.add_column("value", justify="right")
    for label, value in (
        ("goodput", f"{system['goodput_mbps']:.3f} Mb/s"),
        ("throughput", f"{system['throughput_mbps']:.3f} Mb/s"),
        ("Jain index", f"{system['jain_index']:.4f}"),
        ("bottleneck link", system["bottleneck_link"]),
        ("bottleneck utilization", f"{system['bottleneck_utilization']:.1%}"),
        ("bottleneck drops", f"{system['bottleneck_drops']:,}"),
        ("loss-model drops", f"{system['loss_model_drops']:,}"),
        ("mean queue delay", f"{system['mean_queue_delay_ms']:.2f} ms"),
        ("events", f"{system['events']:,}"),
    ):
        overview.add_row(label, value)
    console = Console()
    console.print(overview)
    # one protocol column: the congestion control of TCP groups, "udp" for UDP ones
    groups = result.groups.assign(protocol=result.groups["cc"].fillna(result.groups["transport"]))
    _print_frame(groups[["name", "protocol", "flows", "goodput_mbps", "throughput_mbps"]], "groups", console)
    links = result.links[result.links["arrivals"] > 0]
    shown = links.sort_values("utilization", ascending=False, kind="stable").head(LINKS_SHOWN)
    title = "links" if len(shown) == len(links) else f"the {LINKS_SHOWN} busiest of {len(links)} links in use"
    _print_frame(shown[["name", "rate_mbps", "utilization", "queue_drops", "loss_drops", "ecn_marks",
                        "mean_queue_delay_ms"]], title, console)



def _print_frame(frame, title: str, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column in frame.columns:
        table.add_column(str(column), justify="right" if frame[column].dtype.kind in "iuf" else "left")
    for values in frame.itertuples(index=False):
        table.add_row(*(f"{value:.4g}" if isinstance(value, float) else str(value) for value in values))
    (console or Console()).print(table)


def main() -> None:
    """The ``cclab`` entry point: click's usage errors (a missing argument, an unknown
    option or command, a value out of an option's range) become one line like every
    other user error, instead of click's framed box."""
    # click's UsageError, as typer ships it (typer vendors click; BadParameter is public).
    usage_error = typer.BadParameter.__bases__[0]
    try:
        code = app(standalone_mode=False)
    except usage_error as error:
        command = error.ctx.command_path if error.ctx is not None else "cclab"
        message = error.format_message().strip()
        if message:  # (none when the command was given no arguments: the help is shown)
            typer.echo(f"error: {message} (see '{command} --help')", err=True)
        code = USAGE_ERROR
    except typer.Exit as exit_:
        code = exit_.exit_code
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("interrupted", err=True)
        code = 130
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
