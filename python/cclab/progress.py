"""A one-line progress bar for one long run: simulated time out of the run's duration.

The engine calls its progress callable a few times a second (``cclab.runs.engine.run_json(...,
progress=...)``); :class:`RunProgress` draws nothing until the run has taken
``delay_s`` of wall time (short runs stay silent), then redraws one line on its stream
and erases it when closed. Only the standard library: ``cclab run`` imports it before
the run starts.
"""
from __future__ import annotations

import shutil
import sys
import time

BAR_WIDTH = 24


class RunProgress:
    """``progress(simulated_s, total_s)``: a bar on ``stream`` (default stderr) once the
    run is older than ``delay_s`` seconds. Use as a context manager (the line is erased
    at the end, whether the run finished or was interrupted)."""

    def __init__(self, stream=None, delay_s: float = 2.0, label: str = "simulating"):
        self.stream = stream if stream is not None else sys.stderr
        self.delay_s = delay_s
        self.label = label
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, simulated_s: float, total_s: float) -> None:
        elapsed = time.monotonic() - self.started
        if elapsed < self.delay_s or total_s <= 0:
            return
        self.stream.write("\r" + self.line(simulated_s, total_s, elapsed) + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def line(self, simulated_s: float, total_s: float, elapsed_s: float) -> str:
        """``simulating ██████░░░░  42%  42 s of 100 s simulated, 3 s elapsed, ~4 s left``,
        cut to the terminal's width."""
        fraction = min(max(simulated_s / total_s, 0.0), 1.0)
        filled = int(fraction * BAR_WIDTH)
        bar = "█" * filled + "░" * (BAR_WIDTH - filled)
        left = f", ~{_seconds(elapsed_s * (1 - fraction) / fraction)} left" if fraction > 0 else ""
        text = (f"{self.label} {bar} {fraction:4.0%}  {_plain(simulated_s)} s of {_plain(total_s)} s simulated, "
                f"{_seconds(elapsed_s)} elapsed{left}")
        return text[: max(shutil.get_terminal_size((100, 20)).columns - 1, 20)]

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False

    def __enter__(self) -> "RunProgress":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _plain(value: float) -> str:
    """Simulated seconds, plainly: 42, 3.5, 0.125."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}" if value >= 1 else f"{value:.3g}"


def _seconds(value: float) -> str:
    if value >= 3600:
        return f"{int(value // 3600)} h {int(value % 3600 // 60):02d} min"
    if value >= 120:
        return f"{int(value // 60)} min {int(value % 60):02d} s"
    return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"


def on_terminal() -> bool:
    """Whether both standard output and standard error are terminals (a bar would be
    seen, and mixed into nothing a program reads)."""
    try:
        return sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed streams
        return False
