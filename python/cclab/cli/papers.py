"""``cclab reproduce PAPER``: the experiments of the papers cclab validates against, each
through the one reproduction pipeline (:mod:`cclab.papers.framework`)."""

import shlex
import sys
from pathlib import Path
from typing import Annotated, Callable, List, Optional

import typer

from cclab.cli.common import USAGE_ERROR, fail, user_errors

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


def reproduce_zhang2002(
    quick: Annotated[bool, typer.Option("--quick", help="Shorter runs, fewer points and 3 seeds: the whole set "
                                                        "in about a minute.")] = False,
    figure: Figures = None,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/zhang2002"),
    seeds: Seeds = None, jobs: Jobs = None, executor: Executor = "local", workers: Workers = None,
    scheduler: Scheduler = None, store: Store = None, from_store: FromStore = None, report: Report = False,
    ns2: Ns2 = False, redraw: Redraw = False,
) -> None:
    """Zhang & Tsaoussidis 2002: Figures 2–11 (--figure 2 … 11) as PNG + CSV/Parquet, and summary.md judging each claim."""
    from cclab.papers.zhang2002.run import ZHANG2002, parse_figures

    _reproduce(ZHANG2002, parse_figures, quick, figure, out, seeds, jobs, executor, workers, scheduler, store,
               from_store, report, ns2, redraw)


def reproduce_mraimd(
    quick: Annotated[bool, typer.Option("--quick", help="60 s runs, 3 flow counts, 2 seeds: the whole set "
                                                        "in well under a minute.")] = False,
    figure: Figures = None,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/mraimd"),
    seeds: Seeds = None, jobs: Jobs = None, executor: Executor = "local", workers: Workers = None,
    scheduler: Scheduler = None, store: Store = None, from_store: FromStore = None, report: Report = False,
    ns2: Ns2 = False, redraw: Redraw = False,
) -> None:
    """MR-AIMD (Psaras, Dianati & Tafazolli): Table 1 and Figures 4–7 (--figure table1, 4 … 7) as PNG +
    CSV/Parquet, and summary.md."""
    from cclab.papers.mraimd.run import MRAIMD

    _reproduce(MRAIMD, MRAIMD.select, quick, figure, out, seeds, jobs, executor, workers, scheduler, store,
               from_store, report, ns2, redraw)


def reproduce_westwood(
    quick: Annotated[bool, typer.Option("--quick", help="40 s runs, a few points per figure, 2 seeds: the whole "
                                                        "set in about a minute.")] = False,
    figure: Figures = None,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/westwood"),
    seeds: Seeds = None, jobs: Jobs = None, executor: Executor = "local", workers: Workers = None,
    scheduler: Scheduler = None, store: Store = None, from_store: FromStore = None, report: Report = False,
    ns2: Ns2 = False, redraw: Redraw = False,
) -> None:
    """TCP Westwood BE/RE/CRB/ABSE (Wang et al., ICNP 2002): Figures 2–3, 5, 7, 9–16, 18–21 (--figure 2, 7, 9,
    11, 12, 16, 18, 19, 20, 21; a figure drawn with others, e.g. 3 with 2, selects their file) as PNG +
    CSV/Parquet, and summary.md."""
    from cclab.papers.westwood.run import WESTWOOD

    _reproduce(WESTWOOD, WESTWOOD.select, quick, figure, out, seeds, jobs, executor, workers, scheduler, store,
               from_store, report, ns2, redraw)


def reproduce_slowcc(
    quick: Annotated[bool, typer.Option("--quick", help="Five flows stop at 100 s, three values of b, three periods, "
                                                        "2 seeds: well under a minute.")] = False,
    figure: Figures = None,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/slowcc"),
    seeds: Seeds = None, jobs: Jobs = None, executor: Executor = "local", workers: Workers = None,
    scheduler: Scheduler = None, store: Store = None, from_store: FromStore = None, report: Report = False,
    ns2: Ns2 = False, redraw: Redraw = False,
) -> None:
    """Slowly-responsive congestion control (Bansal et al., SIGCOMM 2001): Figures 11–17 (--figure 11 … 17;
    11 and 12 are one file, so are 14 and 15) as PNG + CSV/Parquet, and summary.md."""
    from cclab.papers.slowcc.run import SLOWCC

    _reproduce(SLOWCC, SLOWCC.select, quick, figure, out, seeds, jobs, executor, workers, scheduler, store,
               from_store, report, ns2, redraw)


def _reproduce(paper, select: Callable, quick: bool, figure, out: Path, seeds, jobs, executor: str,
               workers: Optional[int], scheduler: Optional[str], store, from_store, report: bool, ns2: bool,
               redraw: bool) -> None:
    from cclab.papers.framework import ReproduceError, parse_count, reproduce
    from cclab.runs.runner import open_executor

    command = "cclab " + " ".join(shlex.quote(argument) for argument in sys.argv[1:])
    with user_errors():
        try:
            figures = select(figure)
            seed_count = parse_count("--seeds", seeds)
            job_count = parse_count("--jobs", jobs)
            if from_store is not None and (executor != "local" or workers or scheduler):
                raise ReproduceError("--from-store simulates nothing: --executor, --workers and --scheduler do not apply")
            if ns2 and from_store is None:
                from cclab.ns2.run import ns_binary

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
    reproduce_app.command("zhang2002")(reproduce_zhang2002)
    reproduce_app.command("mraimd")(reproduce_mraimd)
    reproduce_app.command("westwood")(reproduce_westwood)
    reproduce_app.command("slowcc")(reproduce_slowcc)
    app.add_typer(reproduce_app, name="reproduce")
