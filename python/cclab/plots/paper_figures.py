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


def save(figure, path: Path) -> None:
    """Write a paper figure: the axis rules of :mod:`cclab.plots.canvas` (every plotted
    value inside the axes, log axes labelled at decades and points, laid out for the
    report's page), then the file."""
    canvas.save(figure, path, dpi=110)


def mean_lines(axis, table: pd.DataFrame, x: str, y: str, hue: str = "protocol",
               colors: Optional[Mapping[str, str]] = None, **style) -> None:
    """One line per ``hue`` value: the mean of ``y`` at each ``x``, a band from min to max."""
    for name, rows in table.groupby(hue, sort=False):
        stats = rows.groupby(x)[y].agg(["mean", "min", "max"]).sort_index()
        color = colors.get(name) if colors else None
        axis.plot(stats.index, stats["mean"], marker="o", markersize=4, label=str(name), color=color, **style)
        axis.fill_between(stats.index, stats["min"], stats["max"], alpha=0.15, color=color, linewidth=0)
    axis.grid(alpha=0.3)
