"""``cclab sweep``, ``cclab report`` and ``cclab export``: many runs and their store."""

from pathlib import Path
from typing import Annotated, Optional

import typer

from cclab.cli.common import INTERRUPTED, RUN_FAILED, MemoryOption, interrupted, user_errors


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
    with user_errors():
        from cclab.runs.plan import load_plan
        from cclab.scenario import parse_memory

        memory = parse_memory(max_memory, "--max-memory")
        plan = load_plan(plan_file, {"replications": replications} if replications else None)
        plan.runs()  # every point is checked before an executor starts
        from cclab.runs.executors import open_executor
        from cclab.runs.runner import run_plan

        with open_executor(executor, workers, scheduler) as pool:
            try:
                outcome = run_plan(plan, pool, store=store, progress=progress, max_memory=memory)
            except KeyboardInterrupt:
                interrupted("interrupted: every run reported done is stored; run the same command again to resume")
                raise typer.Exit(INTERRUPTED) from None
    typer.echo(f"{plan.name}: {outcome.total} runs, {outcome.skipped} already stored, {outcome.succeeded} ran, "
               f"{outcome.failed} failed, {outcome.wall_time_s:.1f} s ({outcome.runs_per_minute:.0f} runs/min) "
               f"-> {outcome.store}")
    for run_id, error in outcome.failures[:5]:
        typer.echo(f"failed run {run_id}: {error}", err=True)
    if outcome.failed:
        raise typer.Exit(RUN_FAILED)


def report_command(
    results: Annotated[Path, typer.Argument(help="Results file of a sweep (.duckdb).", show_default=False)],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Output directory "
                                                "(default: RESULTS without suffix + '-report').")] = None,
    group_by: Annotated[Optional[str], typer.Option("--group-by", metavar="AXIS", help="Axis path whose values "
                                                    "become the lines of every figure (the other axes: x and "
                                                    "panels).")] = None,
) -> None:
    """Write a static HTML report of a sweep: figures, mean ± CI tables, scenario, provenance."""
    with user_errors():
        from cclab.plots.report import write_report

        page = write_report(results, out or results.with_name(results.stem + "-report"), group_by=group_by)
    typer.echo(f"wrote {page}")


def export_command(
    results: Annotated[Path, typer.Argument(help="Results file of a sweep (.duckdb).", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory for TABLE.parquet files.")],
) -> None:
    """Export every table of a sweep's results file to Parquet."""
    with user_errors():
        from cclab.store.sweeps import SweepStore

        with SweepStore(results, read_only=True) as store:
            written = store.export_parquet(out)
    typer.echo(f"wrote {len(written)} tables to {out}")


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep_command)
    app.command("report")(report_command)
    app.command("export")(export_command)
