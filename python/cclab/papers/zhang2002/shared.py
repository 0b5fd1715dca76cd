"""What every figure of the Zhang & Tsaoussidis (2002) reproduction shares: the sizes of
its runs (quick, full), protocol labels, colours and margins, the points of a swept
figure, and how the figures draw means over seeds. The figures are in
:mod:`~cclab.papers.zhang2002.goodput` and :mod:`~cclab.papers.zhang2002.over_time`,
listed in :mod:`~cclab.papers.zhang2002.figures`.

A :class:`Figure` ties together

* ``points(sizes)``: the runs, one :class:`Point` (labels + scenario) per protocol,
  x value and seed, built by :mod:`cclab.papers.zhang2002.scenarios`;
* ``measure(result)``: the tables one run contributes (computed in the worker);
* ``plot(tables, path)``: the PNG, spread over seeds shown as a band or error bars;
* ``claims(tables, sizes)``: the paper's statements about the figure with our verdicts.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from cclab.papers.claims import Claim
from cclab.papers.zhang2002 import scenarios
from cclab.papers.zhang2002.scenarios import PROTOCOLS, RESPONSIVE, SMOOTH, STANDARD, protocol_label
from cclab.plots import canvas, paper_figures

LABELS = [protocol_label(protocol) for protocol in PROTOCOLS]  # smoothest first
SMOOTH_LABEL, STANDARD_LABEL, RESPONSIVE_LABEL = (protocol_label(p) for p in (SMOOTH, STANDARD, RESPONSIVE))
COLORS = dict(zip(LABELS, ("tab:blue", "tab:green", "tab:orange", "tab:red")))
PAYLOAD_SHARE = scenarios.PACKET_SIZE / (scenarios.PACKET_SIZE + 40)  # goodput / link rate at best

# What counts as a real difference (claims.compare), fixed with the rules, each a small
# fraction of what it measures. Goodput: 0.5 Mb/s is 5 % of a 10 Mb/s link, 0.5 % of
# 100 Mb/s; Jain's index: 0.005 of its 0–1 range; times: half a 1-s bin.
GOODPUT_MARGIN_MBPS = 0.5
FAIRNESS_MARGIN = 0.005
TIME_MARGIN_S = 0.5


@dataclass(frozen=True)
class Sizes:
    """How big the runs are: the paper's (``FULL``) or a quick check (``QUICK``)."""

    name: str
    seeds: tuple[int, ...]
    duration_s: float  # static, wireless, playback and friendliness runs
    flow_counts: tuple[int, ...]  # Figures 2, 3, 9–11
    wireless_pers: tuple[float, ...]  # Figure 4
    playback_pers: tuple[float, ...]  # Figure 8
    dynamic_duration_s: float  # Figures 6, 7 (the population changes until 25 s)
    handoff_duration_s: float  # Figure 5

    def with_seeds(self, count: int) -> "Sizes":
        return Sizes(**{**self.__dict__, "seeds": tuple(range(1, count + 1))})


FULL = Sizes("full", seeds=(1, 2, 3, 4, 5), duration_s=100, flow_counts=tuple(range(10, 101, 10)),
             wireless_pers=(0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05),
             playback_pers=(0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.4),
             dynamic_duration_s=100, handoff_duration_s=100)
QUICK = Sizes("quick", seeds=(1, 2, 3), duration_s=30, flow_counts=(10, 30, 60, 100),
              wireless_pers=(0.0, 0.01, 0.02, 0.03, 0.05), playback_pers=(0.0, 0.005, 0.02, 0.05, 0.4),
              dynamic_duration_s=50, handoff_duration_s=50)


@dataclass(frozen=True)
class Point:
    """One run of a figure: its labels (protocol, seed, x) and its scenario."""

    figure: int
    labels: dict
    scenario: dict


@dataclass(frozen=True)
class Figure:
    number: int
    slug: str
    caption: str  # the paper's caption
    section: str
    points: Callable[[Sizes], list[Point]]
    measure: Callable[[Any], dict[str, pd.DataFrame]]
    plot: Callable[[dict[str, pd.DataFrame], Path], None]
    claims: Callable[[dict[str, pd.DataFrame], Sizes], list[Claim]]
    notes: str = ""  # how our setup differs from or interprets the paper's

    @property
    def stem(self) -> str:
        return f"fig{self.number:02d}_{self.slug}"


def sweep_points(figure: int, sizes: Sizes, build: Callable[[tuple, Any, int], dict], xs: Sequence[Any], x_name: str,
                 protocols: Sequence[tuple[float, float]] = PROTOCOLS, labels: Optional[dict] = None) -> list[Point]:
    """Every (protocol, x, seed) of a sweep, its scenario ``build(protocol, x, seed)``;
    ``labels`` (e.g. the bottleneck) are added to every point's labels."""
    return [Point(figure, {"protocol": protocol_label(protocol), x_name: x, "seed": seed, **(labels or {})},
                  build(protocol, x, seed))
            for protocol in protocols for x in xs for seed in sizes.seeds]


def mean_by(table: pd.DataFrame, keys: Sequence[str], value: str) -> pd.Series:
    return table.groupby(list(keys), sort=False)[value].mean()


def values_text(values: pd.Series, unit: str = "", fmt: str = ".3g") -> str:
    """``name value, ...`` of a Series (a claim's evidence)."""
    return ", ".join(f"{name} {value:{fmt}}" for name, value in values.items()) + (f" {unit}" if unit else "")


# ---------------------------------------------------------------- drawing
def mean_lines(axis, table: pd.DataFrame, x: str, y: str, hue: str = "protocol", order: Sequence[str] = LABELS,
               markers: bool = True) -> None:
    """Mean over seeds as a line, min–max over seeds as a shaded band."""
    paper_figures.mean_lines(axis, table, x, y, hue=hue, colors=COLORS, order=order, band_alpha=0.18, linewidth=1.4,
                             **({} if markers else {"marker": None}))


def spread_note(table: pd.DataFrame) -> str:
    seeds = table["seed"].nunique()
    return f"line: mean of {seeds} seeds, band: min–max" if seeds > 1 else "one seed"


def save(figure: canvas.Figure, path: Path) -> None:
    paper_figures.save(figure, path, dpi=120)


def single_panel_plot(x: str, y: str, xlabel: str, ylabel: str, title: str,
                      ylim: Optional[tuple[float, float]] = None, symlog_below: Optional[float] = None) -> Callable:
    """A figure of ``y`` against ``x`` (the "runs" table), one line per protocol."""
    def plot(tables: dict[str, pd.DataFrame], path: Path) -> None:
        table = tables["runs"]
        figure, axis = canvas.subplots(figsize=(7.5, 4.6))
        mean_lines(axis, table, x, y)
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        axis.set_title(f"{title}\n({spread_note(table)})", fontsize=10)
        if ylim:
            axis.set_ylim(*ylim)
        if symlog_below:  # linear up to symlog_below, logarithmic above: resolves small x
            axis.set_xscale("symlog", linthresh=symlog_below, linscale=1.5)
            axis.set_xlim(left=0)
            axis.set_xlabel(f"{xlabel} (linear below {symlog_below:g}, logarithmic above)")
            axis.set_xticks(sorted(table[x].unique()), [f"{value:g}" for value in sorted(table[x].unique())],
                            fontsize=7)
        axis.legend(fontsize="small")
        save(figure, path)

    return plot
