"""A paper figure's files: its PNG, drawn unless the one in the output directory was
drawn from the same inputs (:func:`figure_inputs`, written into its header), and its
tables as CSV and Parquet; figures are drawn side by side on a process pool."""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Optional

import matplotlib
import pandas as pd

from cclab.papers.measure import paper_sources, source_digest
from cclab.papers.paper import Paper, Tables
from cclab.papers.registry import paper_named
from cclab.plots.canvas import png_text, read_png_text
from cclab.store.directory import write_csv


def drawing_version(paper_key: str) -> str:
    """A hash of what a paper's figures are drawn by besides their tables: cclab's
    version, the paper's package, the shared drawing code, matplotlib's version and
    its settings now (rcParams, which a matplotlibrc, a style or a notebook changes)."""
    # dict.items: the raw settings (RcParams' own lookup would resolve the backend)
    settings = sorted((key, repr(value)) for key, value in dict.items(matplotlib.rcParams) if key != "backend")
    return hashlib.sha256(repr((_drawing_code(paper_key), matplotlib.__version__, settings)).encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def _drawing_code(paper_key: str) -> str:
    plots = Path(__file__).resolve().parent.parent / "plots"
    return source_digest([*paper_sources(paper_key), *sorted(plots.glob("*.py"))]).hexdigest()


# The PNG header entry naming what a paper figure was drawn from (:func:`figure_inputs`).
INPUTS_TEXT = "cclab figure inputs"


def figure_inputs(paper_key: str, figure: Any, tables: Tables) -> Optional[str]:
    """A hash of everything a paper figure's PNG is drawn from: its tables (names,
    columns, types, values) and :func:`drawing_version`. Written into the PNG, so a
    redraw can tell a figure that would come out the same (None: tables that cannot be
    hashed; such a figure is always drawn)."""
    digest = hashlib.sha256(f"{drawing_version(paper_key)} {figure.stem}".encode())
    for name, table in tables.items():
        digest.update(repr((name, list(map(str, table.columns)), list(map(str, table.dtypes)))).encode())
        try:
            digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
        except TypeError:  # unhashable cells (lists, dicts)
            return None
    return digest.hexdigest()


@contextlib.contextmanager
def figure_pool(figures: int, jobs: Optional[int]):
    """A process pool drawing figures side by side (None: draw them here)."""
    workers = max(1, min(jobs or os.cpu_count() or 1, figures))
    if workers == 1:
        yield None
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield pool


def draw_figure(pool: Any, paper: Paper, key: Any, tables: Tables, out: Path, inputs: Optional[str], up_to_date: bool):
    """The figure's files (:func:`write_figure`), drawn in ``pool`` (a future) or here,
    or, ``up_to_date``, only its tables written (its PNG was drawn from ``inputs``)."""
    figure = paper.figures[key]
    if up_to_date:
        return write_figure(figure, tables, out, draw=False)
    if pool is None:
        return write_figure(figure, tables, out, inputs)
    return pool.submit(_draw_named, paper.key, key, tables, out, inputs)


def png_drawn_from(png: Path, inputs: str) -> bool:
    """Whether ``png`` is a whole figure drawn from ``inputs`` (its :func:`figure_inputs`)."""
    return png.is_file() and read_png_text(png).get(INPUTS_TEXT) == inputs


def _draw_named(paper_key: str, key: Any, tables: Tables, out: Path, inputs: Optional[str]) -> list[Path]:
    return write_figure(paper_named(paper_key).figures[key], tables, out, inputs)


def write_figure(figure: Any, tables: Tables, out: Path, inputs: Optional[str] = None, draw: bool = True) -> list[Path]:
    """``figure.stem``.png (drawn by ``figure.plot`` unless not ``draw``; ``inputs``, its
    :func:`figure_inputs`, written into its header) and each table as CSV + Parquet; the
    first table is the figure's data, the others get ``_<name>`` suffixes."""
    files = []
    for index, (name, table) in enumerate(tables.items()):
        stem = figure.stem if index == 0 else f"{figure.stem}_{name}"
        table.to_parquet(out / f"{stem}.parquet", index=False)
        write_csv(table, out / f"{stem}.csv")
        files += [out / f"{stem}.csv", out / f"{stem}.parquet"]
    png = out / f"{figure.stem}.png"
    if draw:
        # drawn beside and renamed: a PNG cut short (a killed run) is never taken as drawn
        partial = out / f".{figure.stem}.partial.png"
        with png_text(**({INPUTS_TEXT: inputs} if inputs else {})):
            figure.plot(tables, partial)
        os.replace(partial, png)
    return [png, *files]
