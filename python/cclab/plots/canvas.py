"""Figures without pyplot, and the axis rules every cclab figure follows.

cclab never chooses or switches matplotlib's backend: its figures are plain
``matplotlib.figure.Figure`` objects (not registered with pyplot), written to files by
``Figure.savefig`` (which picks the canvas from the file's format) or shown by Jupyter
(:class:`Figure` renders itself as PNG). A notebook's inline backend, a desktop's GUI
backend or a script's ``MPLBACKEND`` stay as the user set them.

Axis rules (:func:`finish`, called before a figure is saved):

* every plotted value lies inside the axes (a limit set by hand never hides a bar or a
  point: :func:`include_data`);
* logarithmic axes are labelled at each decade and at the plotted points, in plain
  numbers ("0.5", "60", never "6×10¹"): :func:`log_ticks`;
* figures wider than a page are laid out again in fewer columns (:func:`fit_to_page`).

Step plots of binned series draw the last bin to its end (:func:`bin_steps`).
"""
from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import Any, Optional

import numpy as np
from matplotlib.figure import Figure as _MplFigure

# The widest figure a report page shows at a readable size (its column is 1200 px; at
# 110 dpi this is 1320 px, shown at 0.9×).
PAGE_WIDTH_IN = 12.0
# A figure up to this much wider is shown a little smaller rather than laid out again.
SQUEEZE = 1.25
# Text entries :func:`save` writes into a PNG's header (:func:`png_text`).
_PNG_TEXT: ContextVar[dict] = ContextVar("png_text", default={})


class Figure(_MplFigure):
    """A matplotlib figure that Jupyter shows as a PNG without pyplot."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        return buffer.getvalue()


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: Optional[tuple[float, float]] = None, **options: Any):
    """``(figure, axes)`` as ``pyplot.subplots`` gives them, without pyplot."""
    figure = Figure(figsize=figsize)
    return figure, figure.subplots(nrows, ncols, **options)


def figure(figsize: Optional[tuple[float, float]] = None) -> Figure:
    return Figure(figsize=figsize)


def close(figure: _MplFigure) -> None:
    """Nothing to release: the figure belongs to no pyplot registry (kept so drawing code
    reads as it would with pyplot)."""


def save(figure: _MplFigure, path, dpi: int = 120) -> None:
    """Apply the axis rules, lay the figure out and write it (format from the suffix).

    The layout is measured at the resolution the file is written at, so the text extents
    it measures are the ones the drawing reuses (matplotlib caches text layout by dpi;
    laid out at the figure's default 100 dpi and written at another, every tick label
    was measured twice); and the layout is not redone at writing (``tight_layout``
    leaves a placeholder layout engine behind, for which ``savefig`` draws the whole
    figure once more without output before drawing it)."""
    figure.set_dpi(dpi)
    finish(figure)
    figure.set_layout_engine(None)
    text = _PNG_TEXT.get() if str(path).lower().endswith(".png") else {}
    figure.savefig(path, dpi=dpi, **({"metadata": text} if text else {}))


@contextlib.contextmanager
def png_text(**entries: str) -> Iterator[None]:
    """PNGs written by :func:`save` inside this block carry ``entries`` as text in their
    header (tEXt chunks, read back by :func:`read_png_text` without decoding the image)."""
    token = _PNG_TEXT.set({**_PNG_TEXT.get(), **entries})
    try:
        yield
    finally:
        _PNG_TEXT.reset(token)


# A PNG's last chunk (IEND, empty, with its CRC): a file that does not end so is cut short.
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def read_png_text(path) -> dict:
    """The text entries of a whole PNG's header; empty if the file is missing, no PNG or
    cut short (its header may be whole when its image is not)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with open(path, "rb") as file:
            file.seek(-len(_PNG_END), 2)
            if file.read() != _PNG_END:
                return {}
            file.seek(0)
            with Image.open(file) as image:
                return {key: value for key, value in image.info.items() if isinstance(value, str)}
    except (OSError, UnidentifiedImageError, ValueError):
        return {}


def finish(figure: _MplFigure, page_width_in: float = PAGE_WIDTH_IN) -> _MplFigure:
    """The axis rules of the module docs, then ``tight_layout``."""
    fit_to_page(figure, page_width_in)
    for axis in figure.axes:
        include_data(axis)
        for which in ("x", "y"):
            if getattr(axis, f"get_{which}scale")() in ("log", "symlog"):
                log_ticks(axis, which)
    figure.tight_layout()
    return figure


# ---------------------------------------------------------------- data inside the axes
def plotted_values(axis, which: str, points_only: bool = False) -> np.ndarray:
    """Every finite value the axis draws along ``which`` ("x" or "y") in data
    coordinates: line points (a horizontal reference line's y too), bar extents,
    error-bar ends, bands, scatter points. ``points_only``: the values marked as points
    (lines with markers, bars, scatter), not every vertex of a curve."""
    from matplotlib.collections import PathCollection
    from matplotlib.patches import Rectangle

    index = 0 if which == "x" else 1
    values: list[np.ndarray] = []
    for line in axis.get_lines():
        data = np.asarray(line.get_xydata(), dtype=float)
        if points_only and line.get_marker() in (None, "", " ", "None", "none"):
            continue
        if line.get_visible() and data.size and _in_data(line, axis, which):
            values.append(data[:, index])
    for patch in axis.patches:
        if isinstance(patch, Rectangle) and patch.get_visible() and _in_data(patch, axis, which):
            # a bar's value is its end away from its base (a bar axis may start above 0)
            x, y, w, h = patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()
            values.append(np.array([x, x + w] if which == "x" else [y + h], dtype=float))
    for collection in axis.collections:
        if not collection.get_visible() or not _in_data(collection, axis, which):
            continue
        if isinstance(collection, PathCollection):  # scatter: the points are offsets
            offsets = np.asarray(collection.get_offsets(), dtype=float)
            if offsets.size:
                values.append(offsets[:, index])
            continue
        if points_only:
            continue
        for path in collection.get_paths():  # error bars, bands
            if len(path.vertices):
                values.append(np.asarray(path.vertices, dtype=float)[:, index])
    if not values:
        return np.array([])
    flat = np.concatenate([np.ravel(v) for v in values])
    return flat[np.isfinite(flat)]


def _in_data(artist, axis, which: str) -> bool:
    """Whether the artist's ``which`` coordinate is in data units (an axhline's y is,
    its x is a fraction of the axes)."""
    # a patch's own transform puts its unit box in place; its data transform is the axes'
    transform = artist.get_data_transform() if hasattr(artist, "get_data_transform") else artist.get_transform()
    if transform == axis.transData:
        return True
    blended = axis.get_yaxis_transform() if which == "y" else axis.get_xaxis_transform()
    return transform == blended


def include_data(axis, margin: float = 0.03) -> None:
    """Widen the limits so every plotted value lies inside, with a small margin;
    limits that already hold every value are left as they are."""
    for which in ("y", "x"):
        values = plotted_values(axis, which)
        scale = getattr(axis, f"get_{which}scale")()
        if scale == "log":
            values = values[values > 0]
        if not values.size:
            continue
        low, high = sorted(getattr(axis, f"get_{which}lim")())
        lowest, highest = float(values.min()), float(values.max())
        if lowest >= low and highest <= high:
            continue
        if scale == "log":
            new_low, new_high = min(low, lowest / 10 ** margin), max(high, highest * 10 ** margin)
        else:
            span = (max(highest, high) - min(lowest, low)) or abs(highest) or 1.0
            new_low = lowest - margin * span if lowest < low else low
            new_high = highest + margin * span if highest > high else high
        inverted = getattr(axis, f"{which}axis_inverted")()
        getattr(axis, f"set_{which}lim")(*((new_high, new_low) if inverted else (new_low, new_high)))


# ---------------------------------------------------------------- logarithmic axes
def plain_number(value: float) -> str:
    """A tick label in plain notation: 0, 0.001, 0.5, 60, 1000 (powers only past a
    million or below 0.0001)."""
    if value == 0:
        return "0"
    if abs(value) >= 1e6 or abs(value) < 1e-4:
        return f"{value:.3g}"
    return f"{value:.6g}"


def log_ticks(axis, which: str = "x", values: Optional[Sequence[float]] = None) -> list[float]:
    """Label a log (or symlog) axis at each decade in its range and at the plotted
    points (``values``, default the points drawn along it: markers, bars, scatter — not
    every vertex of a curve), in plain numbers, without
    minor labels; 0 too on a symlog axis that reaches it. Labels that would overlap are
    thinned, decades kept first. Returns the ticks."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    scale_axis = axis.xaxis if which == "x" else axis.yaxis
    low, high = sorted(getattr(axis, f"get_{which}lim")())
    symlog = getattr(axis, f"get_{which}scale")() == "symlog"
    data = np.asarray(values if values is not None else plotted_values(axis, which, points_only=True), dtype=float)
    data = data[np.isfinite(data) & (data >= low) & (data <= high)]
    positive = data[data > 0]
    smallest = positive.min() if positive.size else (low if low > 0 else None)
    ticks: set[float] = set(float(v) for v in (data if symlog else positive))
    # decades: all in range on a log axis; on a symlog axis those above its linear part
    bottom = (smallest if symlog else low) if smallest is not None else None
    if bottom is not None and bottom > 0 and high > 0:
        for exponent in range(math.floor(math.log10(bottom)), math.ceil(math.log10(high)) + 1):
            if low <= 10.0 ** exponent <= high and 10.0 ** exponent >= bottom / 1.001:
                ticks.add(10.0 ** exponent)
    if symlog and low <= 0 <= high:
        ticks.add(0.0)
    if len([t for t in ticks if t > 0]) < 2 and high > 0:  # less than a decade, no points: 1-2-5 steps
        bottom = max(low, smallest or high / 1e3, 1e-300)
        ticks.update(m * 10.0 ** k for k in range(math.floor(math.log10(bottom)), math.ceil(math.log10(high)) + 1)
                     for m in (1, 2, 5) if bottom <= m * 10.0 ** k <= high)
    kept = _thin(sorted(ticks), axis, which)
    scale_axis.set_major_locator(FixedLocator(kept))
    scale_axis.set_major_formatter(FuncFormatter(lambda value, _position: plain_number(value)))
    scale_axis.set_minor_formatter(NullFormatter())
    return kept


def _thin(ticks: list[float], axis, which: str) -> list[float]:
    """The ticks whose labels do not overlap, decades (and 0) placed first."""
    if len(ticks) <= 1:
        return ticks
    scale = (axis.xaxis if which == "x" else axis.yaxis).get_transform()
    low, high = sorted(getattr(axis, f"get_{which}lim")())
    start, stop = scale.transform([low, high])
    box = axis.get_position()
    width_in, height_in = axis.figure.get_size_inches()
    length_pt = (box.width * width_in if which == "x" else box.height * height_in) * 72

    def place(value: float) -> float:  # points along the axis
        return float((scale.transform([value])[0] - start) / (stop - start) * length_pt)

    def extent(value: float) -> float:  # the label's size along the axis, in points
        return len(plain_number(value)) * 6.5 + 6 if which == "x" else 14

    def is_decade(value: float) -> bool:
        return value == 0 or abs(math.log10(abs(value)) - round(math.log10(abs(value)))) < 1e-9

    kept: list[float] = []
    for value in sorted(ticks, key=lambda v: (not is_decade(v), v)):
        if all(abs(place(value) - place(other)) >= (extent(value) + extent(other)) / 2 for other in kept):
            kept.append(value)
    return sorted(kept)


# ---------------------------------------------------------------- binned series
def bin_steps(axis, starts: Sequence[float], values: Sequence[float], width: Optional[float] = None, **style: Any):
    """A step plot of per-bin values, each bin drawn from its start to its end (the last
    one too: ``step(where="post")`` alone stops at the last bin's start). ``width``:
    the bins' width (default: the spacing of ``starts``)."""
    starts = np.asarray(starts, dtype=float)
    values = np.asarray(values, dtype=float)
    if not len(starts):
        return axis.plot([], [], **style)
    if width is None:
        width = float(np.median(np.diff(starts))) if len(starts) > 1 else 1.0
    edges = np.append(starts, starts[-1] + width)
    return axis.step(edges, np.append(values, values[-1]), where="post", **style)


def steps_until(axis, times: Sequence[float], values: Sequence[float], end: float, **style: Any):
    """A step plot of a sampled series (each value holds until the next sample), drawn
    on to ``end`` (the run's end) after the last sample."""
    times = np.asarray(times, dtype=float)
    values = np.asarray(values, dtype=float)
    if len(times) and end > times[-1]:
        times, values = np.append(times, end), np.append(values, values[-1])
    return axis.step(times, values, where="post", **style)


# ---------------------------------------------------------------- wide figures
def fit_to_page(figure: _MplFigure, page_width_in: float = PAGE_WIDTH_IN) -> bool:
    """Lay a grid of panels wider than ``page_width_in`` (by more than :data:`SQUEEZE`)
    out again in fewer columns
    (each row of the old grid becomes as many rows as it needs; a panel keeps its
    size), so the figure reads at page width. True when it was changed. Figures whose
    panels are not on one regular grid are left as they are."""
    from matplotlib.gridspec import GridSpec

    width, height = figure.get_size_inches()
    if width <= page_width_in * SQUEEZE:
        return False
    placed = []
    grid = None
    for axis in figure.axes:
        spec = axis.get_subplotspec() if hasattr(axis, "get_subplotspec") else None
        if spec is None:
            return False
        if grid is None:
            grid = spec.get_gridspec()
        if spec.get_gridspec() is not grid or spec.rowspan.stop - spec.rowspan.start != 1 \
                or spec.colspan.stop - spec.colspan.start != 1:
            return False
        placed.append((spec.rowspan.start, spec.colspan.start, axis))
    if grid is None:
        return False
    rows, columns = grid.get_geometry()
    panel_width = width / columns
    fitting = max(1, int(page_width_in // panel_width))
    if fitting >= columns:
        return False
    rows_per_row = math.ceil(columns / fitting)
    new_grid = GridSpec(rows * rows_per_row, fitting, figure=figure)
    for row, column, axis in placed:
        axis.set_subplotspec(new_grid[row * rows_per_row + column // fitting, column % fitting])
        # shared axes hide inner tick labels; in the new grid every panel shows its own
        axis.tick_params(labelleft=True, labelbottom=True)
    figure.set_size_inches(panel_width * fitting, height / rows * rows * rows_per_row)
    return True
