"""``cclab reproduce PAPER``: the experiments of the papers cclab validates against."""

from pathlib import Path
from typing import Annotated, List, Optional

import typer

from cclab.cli.common import USAGE_ERROR, fail, print_frame, user_errors


def reproduce_static_wired(
    quick: Annotated[bool, typer.Option("--quick", help="N ∈ {10, 20, 40}, 20 s: a check in well under a minute.")] = False,
    out: Annotated[Path, typer.Option("--out", help="Output directory.")] = Path("results/static-wired"),
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: one per core).")] = None,
    bottleneck: Annotated[Optional[List[str]], typer.Option("--bottleneck", help="Bottleneck rate; repeat for several "
                                                             "(10Mbps: Figure 2, 100Mbps: Figure 3).")] = None,
) -> None:
    """Zhang & Tsaoussidis 2002 §5.1: system goodput vs number of flows (Figures 2, 3)."""
    from cclab.papers.zhang2002.static_wired import static_wired

    with user_errors():
        table = static_wired(out, quick=quick, jobs=jobs, bottleneck=bottleneck or ["10Mbps"])
    goodput = table.pivot_table(index=["bottleneck", "flows"], columns="protocol", values="system_goodput_mbps",
                                aggfunc="first", sort=False)
    print_frame(goodput.reset_index(), "static-wired: system goodput (Mb/s)")
    typer.echo(f"wrote {out}/static_wired.parquet, .csv, .png")


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

    with user_errors():
        try:
            seed_count = _positive_int("--seeds", seeds) if seeds is not None else None
            outcome = reproduce(out, quick=quick, figures=figure, seeds=seed_count, jobs=jobs)
        except ReproduceError as error:
            fail(error, USAGE_ERROR)
    _print_verdicts(outcome, lambda figure: f"Figure {figure.number:>2}")


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

    with user_errors():
        try:
            outcome = reproduce(out, quick=quick, seeds=seeds, jobs=jobs)
        except MraimdError as error:
            fail(error, USAGE_ERROR)
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


def register(app: typer.Typer) -> None:
    reproduce_app = typer.Typer(no_args_is_help=True,
                                help="Reproduce the experiments of the papers cclab validates against.")
    reproduce_app.command("static-wired")(reproduce_static_wired)
    reproduce_app.command("zhang2002")(reproduce_zhang2002)
    reproduce_app.command("mraimd")(reproduce_mraimd)
    app.add_typer(reproduce_app, name="reproduce")
