"""Figures of one run written to files (:mod:`cclab.plots.run_figures` draws them; nothing
here chooses a matplotlib backend: ``Figure.savefig`` picks the canvas from the file's
format)."""
from __future__ import annotations

from os import PathLike
from pathlib import Path

from cclab.plots import canvas, run_figures
from cclab.results import Result


def plot_bins(result: Result, path: str | PathLike) -> Path:
    """Allotted system goodput (top) and allotted fairness (bottom) per bin, paper §4.2."""
    return _save(run_figures.bins(result), path)


def plot_traces(result: Result, path: str | PathLike) -> Path:
    """Congestion window over time (the sawtooth) of every traced flow, and the
    bottleneck queue when it was traced."""
    return _save(run_figures.traces(result), path)


def _save(figure, path: str | PathLike) -> Path:
    path = Path(path)
    canvas.save(figure, path)
    return path
