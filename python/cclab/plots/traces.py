"""Figures of one run written to files (:mod:`cclab.plot` draws them; nothing here
chooses a matplotlib backend: ``Figure.savefig`` picks the canvas from the file's format)."""
from __future__ import annotations

from os import PathLike
from pathlib import Path

from cclab import plot
from cclab.plots import canvas
from cclab.results import Result


def plot_bins(result: Result, path: str | PathLike) -> Path:
    """Allotted system goodput (top) and allotted fairness (bottom) per bin, paper §4.2."""
    return _save(plot.bins(result), path)


def plot_traces(result: Result, path: str | PathLike) -> Path:
    """Congestion window over time (the sawtooth) of every traced flow, and the
    bottleneck queue when it was traced."""
    return _save(plot.traces(result), path)


def _save(figure, path: str | PathLike) -> Path:
    path = Path(path)
    canvas.save(figure, path)
    return path
