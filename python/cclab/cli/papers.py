"""``cclab reproduce PAPER``: the experiments of the papers cclab validates against, each
through the one reproduction pipeline (:mod:`cclab.papers.framework`); one command per
paper of :data:`cclab.papers.registry.PAPERS`, which imports the paper only when its
command runs."""

import shlex
import sys
from pathlib import Path
from typing import Annotated, Callable, List, Optional

import typer

from cclab.cli.common import USAGE_ERROR, fail, user_errors
from cclab.ns2.run import ns_binary
from cclab.papers.paper import Paper, ReproduceError, parse_count
from cclab.papers.registry import PAPERS, PaperEntry, paper_named
from cclab.runs.executors import open_executor

Figures = Annotated[Optional[List[str]], typer.Option("--figure", metavar="N", help="Only this figure (19, fig19 or "
                                                      "'Figure 19'; table1); repeat for several. Default: all.")]
Seeds = Annotated[Optional[str], typer.Option("--seeds", metavar="K", help="Seeds per point (default: the mode's).")]
Jobs = Annotated[Optional[str], typer.Option("--jobs", "-j", metavar="J",
                                             help="Parallel runs on this machine (default: one per core).")]
Executor = Annotated[str, typer.Option("--executor", help="Where runs go: local (a process pool), dask or ray.")]
Workers = Annotated[Optional[int], typer.Option("--workers", min=1, help="Worker processes of a local pool or of a "
                                                "Dask LocalCluster / local Ray (default: one per core).")]
Scheduler = Annotated[Optional[str], typer.Option("--scheduler", metavar="ADDR", help="An existing Dask scheduler "
                                                  "(tcp://host:8786) or Ray cluster, instead of local workers.")]
Store = Annotated[Optional[Path], typer.Option("--store", help="Results store to run into and resume from "
                                               "(default OUT/runs.duckdb).")]
FromStore = Annotated[Optional[Path], typer.Option("--from-store", metavar="PATH", help="Simulate nothing: draw the "
                                                   "figures and judge the claims from the runs stored in PATH.")]
Report = Annotated[bool, typer.Option("--report", help="Also write OUT/report.html: figures, claim tables with "
                                      "verdicts, scenario files, provenance.")]
Redraw = Annotated[bool, typer.Option("--redraw", help="Draw every figure, also those whose PNG in OUT was drawn "
                                      "from the same tables by the same code and settings.")]
Ns2 = Annotated[bool, typer.Option("--ns2", help="Also run every figure ns-2.35 can run in ns-2 (into "
                                   "STORE-ns2.duckdb) and judge its claims there too: a column of ns-2's verdicts.")]


def reproduce_command(entry: PaperEntry) -> Callable[..., None]:
    """``cclab reproduce KEY``: the same options for every paper, its own help and default output."""

    def reproduce_paper(
        quick: Annotated[bool, typer.Option("--quick", help=entry.quick)] = False,
        figure: Figures = None,
        out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results") / entry.key,
        seeds: Seeds = None, jobs: Jobs = None, executor: Executor = "local", workers: Workers = None,
        scheduler: Scheduler = None, store: Store = None, from_store: FromStore = None, report: Report = False,
        ns2: Ns2 = False, redraw: Redraw = False,
    ) -> None:
        _reproduce(paper_named(entry.key), quick, figure, out, seeds, jobs, executor, workers, scheduler, store,
                   from_store, report, ns2, redraw)

    reproduce_paper.__doc__ = entry.summary
    return reproduce_paper


def _reproduce(paper: Paper, quick: bool, figure, out: Path, seeds, jobs, executor: str, workers: Optional[int],
               scheduler: Optional[str], store, from_store, report: bool, ns2: bool, redraw: bool) -> None:
    # (the pipeline brings pandas and matplotlib: imported when a reproduction runs, not for --help)
    from cclab.papers.framework import reproduce

    command = "cclab " + " ".join(shlex.quote(argument) for argument in sys.argv[1:])
    with user_errors():
        try:
            figures = paper.select(figure)
            seed_count = parse_count("--seeds", seeds)
            job_count = parse_count("--jobs", jobs)
            if from_store is not None and (executor != "local" or workers or scheduler):
                raise ReproduceError("--from-store simulates nothing: --executor, --workers and --scheduler do not apply")
            if ns2 and from_store is None:
                ns_binary()  # a missing ns-2 stops here, before anything runs
            if executor == "local" and scheduler is None:
                # our own pool, started by the runner before the store opens
                outcome = reproduce(paper, out, quick=quick, figures=figures, seeds=seed_count,
                                    jobs=workers or job_count, store=store, from_store=from_store, report=report,
                                    command=command, ns2=ns2, redraw=redraw)
            else:
                with open_executor(executor, workers, scheduler) as pool:
                    outcome = reproduce(paper, out, quick=quick, figures=figures, seeds=seed_count, executor=pool,
                                        store=store, report=report, command=command, ns2=ns2, redraw=redraw)
        except ReproduceError as error:
            fail(error, USAGE_ERROR)
    for figure_outcome in outcome.figures:
        verdicts = ", ".join(claim.verdict for claim in figure_outcome.claims)
        typer.echo(f"{paper.figure_title(figure_outcome.figure):>9}: {verdicts}")
        if figure_outcome.ns2 is not None:
            theirs = (", ".join(claim.verdict for claim in figure_outcome.ns2.claims) if figure_outcome.ns2.claims
                      else "not judged (ns-2 cannot run it)")
            typer.echo(f"{'ns-2.35':>9}: {theirs}")
    written = f"{outcome.summary}" + (f", {outcome.report}" if outcome.report else "")
    in_ns2 = f", {outcome.ns2_simulated} in ns-2.35 (store {outcome.ns2_store})" if outcome.ns2_store else ""
    kept = len(outcome.figures) - outcome.drawn
    drawn = f", {outcome.drawn} of {len(outcome.figures)} figures drawn ({kept} up to date)" if kept else ""
    typer.echo(f"wrote {written} and the figures' .png/.csv/.parquet in {outcome.wall_time_s:.0f} s "
               f"({outcome.simulated} of {outcome.runs} runs simulated{drawn}, store {outcome.store}{in_ns2})")


def register(app: typer.Typer) -> None:
    reproduce_app = typer.Typer(no_args_is_help=True,
                                help="Reproduce the experiments of the papers cclab validates against.")
    for entry in PAPERS.values():
        reproduce_app.command(entry.key)(reproduce_command(entry))
    app.add_typer(reproduce_app, name="reproduce")
