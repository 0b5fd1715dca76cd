"""What the paper reproductions' figures share in drawing (:mod:`cclab.papers`): their
file format, mean lines with min–max bands, means over seeds."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Optional

from cclab.plots import canvas
import pandas as pd  # noqa: E402


def mean_by(table: pd.DataFrame, keys: Sequence[str], value: str) -> pd.Series:
    """``value`` averaged over the rows sharing ``keys`` (over seeds, typically)."""
    return table.groupby(list(keys), sort=True)[value].mean()


def save(figure, path: Path, dpi: int = 110) -> None:
    """Write a paper figure: the axis rules of :mod:`cclab.plots.canvas` (every plotted
    value inside the axes, log axes labelled at decades and points, laid out for the
    report's page), then the file."""
    canvas.save(figure, path, dpi=dpi)


def mean_lines(axis, table: pd.DataFrame, x: str, y: str, hue: str = "protocol",
               colors: Optional[Mapping[str, str]] = None, order: Optional[Sequence[str]] = None,
               band_alpha: float = 0.15, **style) -> None:
    """One line per ``hue`` value (in the order they appear, or those of ``order`` present,
    in that order): the mean of ``y`` at each ``x``, with markers unless ``style`` says
    otherwise, and a band from min to max."""
    groups = (table.groupby(hue, sort=False) if order is None else
              ((name, rows) for name in order if not (rows := table[table[hue] == name]).empty))
    for name, rows in groups:
        stats = rows.groupby(x)[y].agg(["mean", "min", "max"]).sort_index()
        color = colors.get(name) if colors else None
        axis.plot(stats.index, stats["mean"], label=str(name), color=color, **{"marker": "o", "markersize": 4, **style})
        axis.fill_between(stats.index, stats["min"], stats["max"], alpha=band_alpha, color=color, linewidth=0)
    axis.grid(alpha=0.3)
