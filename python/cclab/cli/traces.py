"""``cclab trace``: make, convert and describe link traces (Mahimahi's format: one
delivery opportunity per line's millisecond)."""

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from cclab.cli.common import JsonOption, print_json, user_errors

trace_app = typer.Typer(no_args_is_help=True, help="Make, convert and describe link traces (Mahimahi's format).")


class Kind(str, Enum):
    constant = "constant"
    poisson = "poisson"
    cellular = "cellular"


Output = Annotated[Path, typer.Option("--out", "-o", help="The trace file to write.", show_default=False)]


@trace_app.command("make")
def make_command(
    kind: Annotated[Kind, typer.Argument(help="constant (even opportunities at a rate), poisson (Poisson "
                                               "opportunities of a mean rate) or cellular (a Markov-modulated model).")],
    out: Output,
    rate: Annotated[Optional[str], typer.Option(help="Rate of constant and poisson traces (e.g. 24Mbps).")] = None,
    duration: Annotated[str, typer.Option(help="The trace's period (it repeats from its end).")] = "60s",
    seed: Annotated[int, typer.Option(min=0, help="Random seed of poisson and cellular traces.")] = 1,
    mean_dwell: Annotated[str, typer.Option(help="Cellular: mean time in each rate state.")] = "500ms",
) -> None:
    """Write a Mahimahi trace (one millisecond per line) made by cclab's generators."""
    from cclab import traces
    from cclab.core import ScenarioError, duration_s, rate_bps

    with user_errors():
        period_ms = round(_seconds("--duration", duration, duration_s) * 1000)
        if not 1 <= period_ms <= 864_000_000:
            raise ScenarioError(f"--duration: {duration} is not from 1ms to 10 days")
        if kind in (Kind.constant, Kind.poisson):
            if rate is None:
                raise ScenarioError(f"--rate: a {kind.value} trace needs a rate (e.g. --rate 24Mbps)")
            mbps = _rate("--rate", rate, rate_bps) / 1e6
            lines = traces.constant(mbps, period_ms) if kind == Kind.constant else traces.poisson(mbps, period_ms, seed)
        else:
            if rate is not None:
                raise ScenarioError("--rate: a cellular trace's rates are its model's states; leave --rate out")
            dwell_ms = _seconds("--mean-dwell", mean_dwell, duration_s) * 1000
            if not dwell_ms >= 1:
                raise ScenarioError(f"--mean-dwell: {mean_dwell} is below 1ms")
            lines = traces.cellular(period_ms, seed, mean_dwell_ms=dwell_ms)
        _write(out, traces.mahimahi_text(lines))
        summary = traces.describe(_runs(lines))
    typer.echo(f"wrote {out}: {summary['opportunities']} opportunities over {summary['period_ms']} ms, "
               f"mean {summary['mean_rate_mbps']:.3f} Mb/s", err=True)


@trace_app.command("convert")
def convert_command(
    log: Annotated[Path, typer.Argument(help="A time_s, rate_mbps log (comma or blank separated).", show_default=False)],
    out: Output,
) -> None:
    """Write the Mahimahi trace that delivers a per-second (or any interval) rate log."""
    from cclab import traces
    from cclab.inputs import file_name, read_text

    with user_errors():
        text = read_text(log, "a time_s, rate_mbps log", limit=traces.MAX_TRACE_BYTES)
        try:
            lines = traces.convert_rate_log(text)
        except Exception as error:
            from cclab.core import ScenarioError

            if isinstance(error, ScenarioError):
                raise ScenarioError(f"{file_name(log)}: {error}") from None
            raise
        _write(out, traces.mahimahi_text(lines))
    typer.echo(f"wrote {out}: {len(lines)} opportunities", err=True)


@trace_app.command("show")
def show_command(
    trace: Annotated[Path, typer.Argument(help="A Mahimahi trace file.", show_default=False)],
    as_json: JsonOption = False,
) -> None:
    """Describe a Mahimahi trace: its period, opportunities and mean rate, and its rate per second."""
    from cclab import traces
    from cclab.inputs import file_name

    with user_errors():
        runs, sha256 = traces.read_opportunities(trace, "mahimahi", "trace", file_name(trace))
        summary = traces.describe(runs)
        per_second: dict[int, int] = {}
        for ms, count in runs:
            per_second[(ms - 1) // 1000] = per_second.get((ms - 1) // 1000, 0) + count
        rates = [per_second.get(s, 0) * traces.OPPORTUNITY_MBPS / 1000 for s in range(-(-summary["period_ms"] // 1000))]
    document = {**summary, "sha256": sha256, "min_second_mbps": min(rates), "max_second_mbps": max(rates)}
    if as_json:
        print_json(document)
        return
    typer.echo(f"{trace}: period {summary['period_ms']} ms, {summary['opportunities']} opportunities, "
               f"mean {summary['mean_rate_mbps']:.3f} Mb/s (per second {min(rates):.2f} to {max(rates):.2f} Mb/s)")


def _seconds(option: str, value: str, parse) -> float:
    from cclab.core import ScenarioError

    try:
        return parse(value)
    except ScenarioError as error:
        raise ScenarioError(f"{option}: {error}") from None


def _rate(option: str, value: str, parse) -> float:
    from cclab.core import ScenarioError

    try:
        bps = parse(value)
    except ScenarioError as error:
        raise ScenarioError(f"{option}: {error}") from None
    if bps <= 0:
        raise ScenarioError(f"{option}: {value} is not above 0")
    return bps


def _runs(lines: list[int]) -> list[tuple[int, int]]:
    runs: list[list[int]] = []
    for ms in lines:
        if runs and runs[-1][0] == ms:
            runs[-1][1] += 1
        else:
            runs.append([ms, 1])
    return [(ms, count) for ms, count in runs]


def _write(out: Path, text: str) -> None:
    """Write whole or not at all (a temporary file beside, renamed)."""
    if out.is_dir():
        raise OSError(21, "is a directory", str(out))
    temporary = out.with_name(f".{out.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(out)


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app, name="trace")
