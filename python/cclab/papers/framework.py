"""The one pipeline of every paper reproduction (``cclab reproduce PAPER``).

A :class:`Paper` lists its figures (each with ``points(sizes)``: one run per point,
labels + scenario; ``plot``; ``claims``) and how one run is measured. :func:`reproduce`
turns the selected figures' points into runs of the results store (default
``<out>/runs.duckdb``) through :func:`cclab.runs.runner.run_stored` — on a local pool,
Dask or Ray, skipping what is already stored, so a killed reproduction resumes where it
stopped — and then computes every figure's tables, plot and claim verdicts from the
stored results alone, which is all ``--from-store`` does. Files: per figure a PNG and
its tables as CSV + Parquet, ``summary.md``, ``claims.csv``, ``meta.json``, and with ``report`` an HTML
page (:mod:`cclab.plots.report`). No figure is written unless every run succeeded.
"""
from __future__ import annotations

import datetime
import functools
import json
import os
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Optional, Union

import pandas as pd

Tables = dict[str, pd.DataFrame]

# Every paper by the name of its command: where its :class:`Paper` lives (workers find
# it here, so what is sent to them is the name, not the paper's functions).
PAPERS = {"zhang2002": "cclab.papers.zhang2002.run:ZHANG2002", "mraimd": "cclab.papers.mraimd.run:MRAIMD",
          "westwood": "cclab.papers.westwood.run:WESTWOOD", "slowcc": "cclab.papers.slowcc.run:SLOWCC"}


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


def figure_section(outcome: "FigureOutcome") -> list[str]:
    """The start of a figure's section in a summary: heading, image, notes, data files."""
    figure = outcome.figure
    data = ", ".join(f"`{p.name}`" for p in outcome.files if p.suffix == ".csv")
    return ["", f"## {figure.title}: {figure.caption} ({figure.section})", "", f"![{figure.title}]({figure.stem}.png)",
            "", f"{figure.notes} {outcome.runs} runs; data: {data}; scenario: `scenarios/{outcome.scenario.name}`.", ""]


def paper_named(key: str) -> "Paper":
    import importlib

    module, name = PAPERS[key].split(":")
    return getattr(importlib.import_module(module), name)


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
    figure_option: str  # what --figure takes, for messages: "2–11"
    finish: Callable[[Any, Tables], Tables] = lambda figure, tables: tables  # add model/paper tables
    meta: Callable[["Outcome"], dict] = lambda outcome: {}  # extra meta.json entries

    def select(self, values: Optional[Iterable[Union[int, str]]]) -> list:
        """Figure keys from ``--figure`` values (every figure when none are given)."""
        if not values:
            return list(self.figures)
        keys = []
        by_text = {str(key).lower(): key for key in self.figures}
        for value in values:
            key = by_text.get(str(value).strip().lower())
            if key is None:
                raise ReproduceError(f"--figure {value}: {self.key} has no such figure (choose {self.figure_option})")
            if key not in keys:
                keys.append(key)
        return [key for key in self.figures if key in keys]


@dataclass
class FigureOutcome:
    """One reproduced figure: its measured tables, claims with verdicts, files written."""

    figure: Any
    tables: Tables = field(default_factory=dict)
    claims: list = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    runs: int = 0
    scenario: Optional[Path] = None  # one of its runs' scenario, as TOML


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

    @property
    def claims(self) -> list:
        return [claim for figure in self.figures for claim in figure.claims]


def reproduce(paper: Paper, out: Union[str, PathLike], *, quick: bool = False,
              figures: Optional[Iterable[Union[int, str]]] = None, seeds: Optional[int] = None,
              executor: Any = None, jobs: Optional[int] = None, store: Union[str, PathLike, None] = None,
              from_store: Union[str, PathLike, None] = None, report: bool = False, progress: bool = True,
              command: str = "") -> Outcome:
    """Run ``paper``'s selected figures (default all) through the store and write their files to ``out``.

    ``quick``: the paper's quick sizes; ``seeds``: replications per point. ``executor``:
    any executor (a Dask client, ...; default a process pool of ``jobs`` workers).
    ``store``: the results store (default ``<out>/runs.duckdb``). ``from_store``: simulate
    nothing; draw and judge from the runs in that store (every run must be there).
    ``report``: also write ``report.html``.
    """
    from cclab.runs.plan import Run
    from cclab.runs.runner import Batch, run_stored
    from cclab.scenario import scenario_toml

    started = time.perf_counter()
    keys = paper.select(figures)
    sizes = paper.sizes["quick" if quick else "full"]
    if seeds is not None:
        if seeds < 1:
            raise ReproduceError(f"--seeds {seeds}: need at least one seed")
        sizes = sizes.with_seeds(seeds)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReproduceError(f"--out {out}: exists and is not a directory")
    if from_store is not None and store is not None:
        raise ReproduceError("--store and --from-store: give one (--from-store reads the store it names)")
    store_path = Path(from_store if from_store is not None else store if store is not None else out / "runs.duckdb")
    if from_store is not None and not store_path.is_file():
        raise ReproduceError(f"--from-store {store_path}: no such results file")

    outcomes = [FigureOutcome(paper.figures[key]) for key in keys]
    points: list[tuple[FigureOutcome, Any, str]] = []  # (figure, point, run id)
    runs: dict[str, Run] = {}
    for outcome in outcomes:
        figure_points = outcome.figure.points(sizes)
        for index, point in enumerate(figure_points):
            try:
                run = Run.of_scenario(point.scenario, {"figure": str(point.figure), **point.labels}, index,
                                      context=[])
            except ValueError as error:  # the engine's ScenarioError
                raise ReproduceError(f"{paper.figure_title(outcome.figure)}: the engine rejects its scenario: "
                                     f"{error}") from None
            run = runs.setdefault(run.run_id, run)  # points of several figures may share a run
            run.context.append(point)
            points.append((outcome, point, run.run_id))
        outcome.runs = len(figure_points)

    simulated = 0
    measured: dict[str, list[Tables]] = {}
    if from_store is None:
        _prepare(out, store_path)
        batch = Batch(f"{paper.key}-{sizes.name}", {
            "paper": paper.key, "sizes": sizes.name, "seeds": list(sizes.seeds),
            "figures": [str(key) for key in keys]})
        ran = run_stored(list(runs.values()), batch, store_path, executor, jobs=jobs, progress=progress, tables=False,
                         measure=functools.partial(measure_run, paper.key))
        simulated = ran.ran
        if ran.failed:
            run_id, error = ran.failures[0]
            raise ReproduceError(f"{ran.failed} of {ran.total} runs failed (first: run {run_id}: {error}); they are "
                                 f"stored in {store_path} with their errors, and the same command retries them")
        measured = ran.measured
    missing = [run for run_id, run in runs.items() if run_id not in measured]
    if missing:  # stored before this call (a resumed reproduction, --from-store)
        measured.update(_measure_stored(paper, missing, store_path, jobs))
    by_point: dict[int, Tables] = {}
    for run_id, run in runs.items():
        for point, tables in zip(run.context, measured[run_id]):
            by_point[id(point)] = tables

    _prepare(out, None)
    scenario_dir = out / "scenarios"
    scenario_dir.mkdir(exist_ok=True)
    for outcome in outcomes:
        mine = [index for index, (owner, _, _) in enumerate(points) if owner is outcome]
        outcome.tables = paper.finish(outcome.figure, concat_tables([by_point[id(points[index][1])] for index in mine]))
        outcome.files = write_figure(outcome.figure, outcome.tables, out)
        outcome.claims = outcome.figure.claims(outcome.tables, sizes)
        outcome.scenario = scenario_dir / f"{outcome.figure.stem}.toml"
        example = points[mine[0]][1].scenario
        outcome.scenario.write_text(f"# One run of {paper.figure_title(outcome.figure)} ({paper.key}); the others "
                                    "differ in the labelled parameters and the seed.\n" + scenario_toml(example),
                                    encoding="utf-8")
    result = Outcome(paper, out, sizes, outcomes, time.perf_counter() - started, out / "summary.md", store_path,
                     runs=len(runs), simulated=simulated, command=command)
    result.summary.write_text(paper.summary(result), encoding="utf-8")
    _write_meta(result, points)
    _write_claims(result)
    if report:
        from cclab.plots.report import write_paper_report

        result.report = write_paper_report(result)
    return result


def _prepare(out: Path, store: Optional[Path]) -> None:
    """Create the output directory (and the store's), as a one-line error if impossible."""
    for directory in (out, *([store.parent] if store is not None else [])):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ReproduceError(f"{directory}: cannot create the directory ({error.strerror})") from None


def measure_run(paper_key: str, result: Any, run: Any) -> list[Tables]:
    """The tables each figure point served by ``run`` takes from its result, labelled
    (protocol, x, seed, ...). Runs where the result is: in the worker that simulated it,
    or on stored results."""
    paper = paper_named(paper_key)
    return [label_tables(paper.measure(paper.figures[point.figure], result, point), point.labels)
            for point in run.context]


def _measure_blob(paper_key: str, result_json_zlib: bytes, run: Any) -> list[Tables]:
    from cclab.results import Result

    return measure_run(paper_key, Result(json.loads(zlib.decompress(result_json_zlib))), run)


def _measure_stored(paper: Paper, runs: Sequence[Any], store_path: Path, jobs: Optional[int]) -> dict[str, list[Tables]]:
    """Measure runs from their stored results: read the compressed results first (the
    store is closed before any process is forked), then parse and measure them on a
    local process pool."""
    from concurrent.futures import ProcessPoolExecutor

    from cclab.errors import StoreError
    from cclab.store.sweeps import SweepStore

    try:
        with SweepStore(store_path, read_only=True) as store:
            blobs = store.compressed_results(run.run_id for run in runs)
    except StoreError as error:
        raise ReproduceError(str(error)) from None
    absent = [run for run in runs if run.run_id not in blobs]
    if absent:
        raise ReproduceError(f"{store_path}: {len(absent)} of {len(runs)} runs of this reproduction are not stored "
                             "(same --quick/--seeds/--figure as when it ran? without --from-store they are simulated)")
    workers = max(1, min(jobs or os.cpu_count() or 1, len(runs)))
    if workers == 1 or len(runs) < 8:
        return {run.run_id: _measure_blob(paper.key, blobs[run.run_id], run) for run in runs}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {run.run_id: pool.submit(_measure_blob, paper.key, blobs.pop(run.run_id), run) for run in runs}
        return {run_id: future.result() for run_id, future in futures.items()}


def label_tables(tables: Tables, labels: dict) -> Tables:
    """Prefix every table with the point's labels (protocol, x, seed, ...) as columns."""
    labelled = {}
    for name, table in tables.items():
        table = table.copy()
        for position, (key, value) in enumerate(labels.items()):
            table.insert(position, key, value)
        labelled[name] = table
    return labelled


def concat_tables(per_run: list[Tables]) -> Tables:
    """One table per name across runs (a name missing from some runs is allowed)."""
    names = list(dict.fromkeys(name for tables in per_run for name in tables))
    return {name: pd.concat([t[name] for t in per_run if name in t], ignore_index=True) for name in names}


def write_figure(figure: Any, tables: Tables, out: Path) -> list[Path]:
    """``figure.stem``.png (drawn by ``figure.plot``) and each table as CSV + Parquet;
    the first table is the figure's data, the others get ``_<name>`` suffixes."""
    files = []
    for index, (name, table) in enumerate(tables.items()):
        stem = figure.stem if index == 0 else f"{figure.stem}_{name}"
        table.to_parquet(out / f"{stem}.parquet", index=False)
        table.to_csv(out / f"{stem}.csv", index=False)
        files += [out / f"{stem}.csv", out / f"{stem}.parquet"]
    png = out / f"{figure.stem}.png"
    figure.plot(tables, png)
    return [png, *files]


def verdict_preamble(counts: dict, quick: bool, calibrated: Optional[dict] = None) -> list[str]:
    """The summary lines every reproduction shares: verdict tally (at the paper's own
    parameters, and apart at calibrated ones), and the quick-mode caveat."""
    lines = ["Verdicts at the paper's parameters: " + tally_text(counts) + "."
             + (f" At parameters we calibrated: {tally_text(calibrated)}." if calibrated and any(calibrated.values())
                else "")
             + " Supported: every comparison of the claim holds; partly: more than half do; numbers are means over "
               "seeds; each claim's rule states its metric, the threshold a difference must pass and where that "
               "threshold comes from (all claims, one row each: claims.csv)."]
    if quick:
        lines += ["", "*Quick mode: shorter runs, fewer points and seeds than the paper; verdicts here are a smoke "
                      "test, the full mode's are the reproduction.*"]
    return lines


def tally_text(counts: dict) -> str:
    return ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count) or "none"


def provenance(outcome: Outcome) -> dict:
    """Where the numbers come from: versions, the store, when and how they were made."""
    from cclab.core import version
    from cclab.runs.runner import local_provenance

    return {
        "command": outcome.command,
        "cclab_version": version(),
        "git_commit": local_provenance()["git_commit"],
        "host": local_provenance()["host"],
        "store": str(outcome.store),
        "runs": outcome.runs,
        "simulated_now": outcome.simulated,
        "wall_time_s": outcome.wall_time_s,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _write_meta(outcome: Outcome, points: Sequence[tuple]) -> None:
    paper = outcome.paper
    meta = {
        "experiment": f"{paper.key}: {paper.citation}",
        **provenance(outcome),
        "sizes": {key: list(value) if isinstance(value, tuple) else value
                  for key, value in outcome.sizes.__dict__.items()},
        **paper.meta(outcome),
        "figures": {
            _figure_key(figure.figure): {
                "runs": figure.runs,
                "files": [path.name for path in figure.files],
                "verdicts": [claim.verdict for claim in figure.claims],
                "example_scenario": next((point.scenario for owner, point, _ in points if owner is figure), None),
            } for figure in outcome.figures},
    }
    (outcome.out / "meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")


CLAIM_COLUMNS = ("figure", "claim", "statement", "paper_says", "metric", "threshold", "threshold_source", "verdict",
                 "evidence", "calibrated")


def _write_claims(outcome: Outcome) -> None:
    """claims.csv: every claim with its rule and verdict, one row each."""
    import csv

    with open(outcome.out / "claims.csv", "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(CLAIM_COLUMNS)
        for figure in outcome.figures:
            for number, claim in enumerate(figure.claims, 1):
                writer.writerow([_figure_key(figure.figure), number, claim.statement, claim.quote, claim.rule.metric,
                                 claim.rule.threshold, claim.rule.source, claim.verdict, claim.evidence,
                                 claim.calibrated])


def _figure_key(figure: Any) -> str:
    return str(getattr(figure, "number", None) or getattr(figure, "key"))
