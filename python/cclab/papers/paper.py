"""What a paper reproduction is made of: a :class:`Paper` and its :class:`Figure` list,
the ``--figure`` names that select them, and what a reproduction gives back
(:class:`Outcome`, one :class:`FigureOutcome` per figure)."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:
    import pandas as pd

# A figure's tables by name (the first is its data; "runs", "model", ...).
Tables = dict[str, "pd.DataFrame"]


@dataclass(frozen=True)
class Figure:
    """A figure (or table) of a paper: ``points(sizes)`` gives its runs, ``measure(result,
    point)`` the tables one run contributes (computed in the worker), ``plot(tables, path)``
    draws it, ``claims(tables, sizes)`` judges what the paper says about it."""

    key: str
    title: str  # "Figure 4", "Table 1"
    slug: str
    caption: str
    section: str
    points: Callable[[Any], list]
    measure: Callable[[Any, Any], Tables]
    plot: Callable[[Tables, Path], None]
    claims: Callable[[Tables, Any], list]
    notes: str = ""

    @property
    def stem(self) -> str:
        return f"{self.key}_{self.slug}"


class ReproduceError(ValueError):
    """Bad input to a reproduction (a figure the paper has not, a bad seed count, an
    unusable output directory or store, a scenario the engine rejects, runs that failed
    or are missing from ``--from-store``): one line for the user."""


def parse_count(option: str, text: Union[str, int, None]) -> Optional[int]:
    """A whole number ≥ 1 from a command-line value (None stays None)."""
    if text is None:
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        raise ReproduceError(f"{option} {text}: not a whole number") from None
    if value < 1:
        raise ReproduceError(f"{option} {text}: must be at least 1")
    return value


@dataclass(frozen=True)
class Paper:
    """What a reproduction needs to know about one paper."""

    key: str  # "zhang2002": the command's name
    citation: str
    figures: dict  # figure key -> Figure (with points, plot, claims, stem, notes)
    sizes: dict  # "quick" / "full" -> Sizes (with name, seeds, with_seeds)
    measure: Callable[[Any, Any, Any], Tables]  # (figure, result, point) -> the tables one run contributes
    summary: Callable[["Outcome"], str]  # summary.md
    figure_title: Callable[[Any], str]  # "Figure 2", "Table 1"
    finish: Callable[[Any, Tables], Tables] = lambda figure, tables: tables  # add model/paper tables
    meta: Callable[["Outcome"], dict] = lambda outcome: {}  # extra meta.json entries
    # With --ns2, judge a figure some of whose points ns-2 cannot run (an algorithm it has
    # no agent for) on ns-2's runs of the rest and cclab's of those, saying so (Westwood:
    # ns-2 runs NewReno and UCLA's BE, not RE, CRB or ABSE).
    ns2_partial: bool = False

    def select(self, values: Optional[Iterable[Union[int, str]]]) -> list:
        """Figure keys from ``--figure`` values (every figure when none are given), in
        the paper's order. Every paper takes the same names (:meth:`figure_names`): a
        figure's number alone, ``fig19``, ``Fig. 19``, ``figure 19`` (a number of any
        figure its key covers: westwood's ``fig2`` is Figures 2, 3 and 5, so ``3``
        selects it too), a table's ``table1``, and the key itself."""
        if not values:
            return list(self.figures)
        names = self.figure_names()
        keys = []
        for value in values:
            key = names.get(figure_name(value))
            if key is None:
                raise ReproduceError(f"--figure {value}: {self.key} has no such figure; choose one of "
                                     f"{self.figure_choices()} (a figure as 19, fig19 or 'Figure 19')")
            if key not in keys:
                keys.append(key)
        return [key for key in self.figures if key in keys]

    def figure_names(self) -> dict[str, Any]:
        """Every name ``--figure`` takes (normalised by :func:`figure_name`) → figure key."""
        names: dict[str, Any] = {}
        for key, figure in self.figures.items():
            kind, numbers = figure_numbers(self.figure_title(figure))
            candidates = [figure_name(key)]
            for number in numbers:
                candidates += [f"table{number}", f"tab{number}"] if kind == "table" else \
                    [str(number), f"fig{number}", f"figure{number}", f"figs{number}", f"figures{number}"]
            for name in candidates:
                names.setdefault(name, key)
        return names

    def figure_choices(self) -> str:
        """The figures and tables ``--figure`` selects, for messages: ``table1, 4, 5, 6, 7``."""
        tables, figures = [], []
        for figure in self.figures.values():
            kind, numbers = figure_numbers(self.figure_title(figure))
            (tables if kind == "table" else figures).extend(numbers)
        return ", ".join([f"table{n}" for n in sorted(set(tables))] + [str(n) for n in sorted(set(figures))])


def figure_name(value: Union[int, str]) -> str:
    """A ``--figure`` value normalised: lower case, no spaces, dots, dashes or
    underscores, no leading zeros (``"Fig. 019"`` → ``"fig19"``)."""
    text = re.sub(r"[\s._-]+", "", str(value).strip().lower())
    return re.sub(r"(?<!\d)0+(?=\d)", "", text)


def figure_numbers(title: str) -> tuple[str, list[int]]:
    """``("figure", [2, 3, 5])`` from "Figures 2, 3, 5", ``("figure", [12, 13, 14, 15])``
    from "Figures 12–15", ``("table", [1])`` from "Table 1"."""
    kind = "table" if title.strip().lower().startswith("table") else "figure"
    numbers: list[int] = []
    for first, last in re.findall(r"(\d+)(?:\s*[–-]\s*(\d+))?", title):
        numbers += list(range(int(first), int(last or first) + 1))
    return kind, numbers


@dataclass
class Ns2Verdicts:
    """A figure's claims judged again on ns-2.35's runs of the same points (``--ns2``):
    ``claims`` in the same order as cclab's, or none and ``missing`` saying why (a point
    ns-2 cannot run, ns-2 runs that failed). ``partial``: the points ns-2 could not run
    (for a paper with :attr:`Paper.ns2_partial`) were cclab's in that judgement."""

    claims: list = field(default_factory=list)
    missing: str = ""
    runs: int = 0
    partial: str = ""


@dataclass
class FigureOutcome:
    """One reproduced figure: its measured tables, claims with verdicts, files written."""

    figure: Any
    tables: Tables = field(default_factory=dict)
    claims: list = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    runs: int = 0
    scenario: Optional[Path] = None  # one of its runs' scenario, as TOML
    ns2: Optional[Ns2Verdicts] = None  # with --ns2
    whys: list = field(default_factory=list)  # per claim, why it is not supported (None if it is)
    drawn: bool = True  # False: its PNG was up to date (drawn from the same inputs before)


@dataclass
class Outcome:
    """A whole reproduction: where it went, at which sizes, every figure's outcome."""

    paper: Paper
    out: Path
    sizes: Any
    figures: list[FigureOutcome]
    wall_time_s: float
    summary: Path
    store: Path
    runs: int = 0  # distinct runs
    simulated: int = 0  # run by this call (the rest came from the store)
    report: Optional[Path] = None
    command: str = ""
    ns2_store: Optional[Path] = None  # with --ns2: where ns-2's runs are
    ns2_simulated: int = 0  # ns-2 runs made by this call

    @property
    def claims(self) -> list:
        return [claim for figure in self.figures for claim in figure.claims]

    @property
    def drawn(self) -> int:
        """Figures drawn by this call (the others' PNGs were up to date)."""
        return sum(figure.drawn for figure in self.figures)
