"""The one pipeline of every paper reproduction (``cclab reproduce PAPER``).

A :class:`~cclab.papers.paper.Paper` lists its figures (each with ``points(sizes)``: one
run per point, labels + scenario; ``plot``; ``claims``) and how one run is measured
(:mod:`cclab.papers.measure`). :func:`reproduce`
turns the selected figures' points into runs of the results store (default
``<out>/runs.duckdb``) through :func:`cclab.runs.runner.run_stored` — on a local pool,
Dask or Ray, skipping what is already stored, so a killed reproduction resumes where it
stopped — and then computes every figure's tables, plot and claim verdicts from the
stored results alone, which is all ``--from-store`` does. Files: per figure a PNG and
its tables as CSV + Parquet (:mod:`cclab.papers.figure_files`), ``summary.md``,
``claims.csv``, ``meta.json`` (:mod:`cclab.papers.summary`), and with ``report`` an HTML
page (:mod:`cclab.papers.report`). No figure is written unless every run succeeded.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import Any, Optional, Union

from cclab.ns2.translate import Unsupported, translate
from cclab.papers.claims import explain
from cclab.papers.figure_files import draw_figure, figure_inputs, figure_pool, png_drawn_from
from cclab.papers.measure import Measurement, concat_tables, stored_measurements
from cclab.papers.paper import FigureOutcome, Ns2Verdicts, Outcome, Paper, ReproduceError, Tables
from cclab.papers.report import write_paper_report
from cclab.papers.summary import figure_key, write_claims, write_meta
from cclab.runs.plan import Run
from cclab.runs.runner import Batch, run_stored
from cclab.scenario import scenario_toml


def reproduce(paper: Paper, out: Union[str, PathLike], *, quick: bool = False,
              figures: Optional[Iterable[Union[int, str]]] = None, seeds: Optional[int] = None,
              executor: Any = None, jobs: Optional[int] = None, store: Union[str, PathLike, None] = None,
              from_store: Union[str, PathLike, None] = None, report: bool = False, progress: bool = True,
              command: str = "", ns2: bool = False, redraw: bool = False) -> Outcome:
    """Run ``paper``'s selected figures (default all) through the store and write their files to ``out``.

    ``quick``: the paper's quick sizes; ``seeds``: replications per point. ``executor``:
    any executor (a Dask client, ...; default a process pool of ``jobs`` workers).
    ``store``: the results store (default ``<out>/runs.duckdb``). ``from_store``: simulate
    nothing; draw and judge from the runs in that store (every run must be there).
    ``report``: also write ``report.html``. ``ns2``: also run every figure whose points
    ns-2.35 can run in ns-2 (results in ``<store>-ns2.duckdb``) and judge its claims on
    those runs too: the summary's "ns-2.35" column. A figure whose PNG in ``out`` was
    drawn from the same tables by the same code and settings (:func:`figure_inputs`) is
    not drawn again unless ``redraw``.
    """
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
    if from_store is None:
        _prepare(out, store_path)
        batch = Batch(f"{paper.key}-{sizes.name}", {
            "paper": paper.key, "sizes": sizes.name, "seeds": list(sizes.seeds),
            "figures": [str(key) for key in keys]})
        ran = run_stored(list(runs.values()), batch, store_path, executor, jobs=jobs, progress=progress, tables=False,
                         measure=Measurement(paper.key))
        simulated = ran.ran
        if ran.failed:
            run_id, error = ran.failures[0]
            raise ReproduceError(f"{ran.failed} of {ran.total} runs failed (first: run {run_id}: {error}); they are "
                                 f"stored in {store_path} with their errors, and the same command retries them")
    # Every figure table comes from the store: as the workers measured them (a few
    # columnar reads), or measured again from the stored results where the code changed.
    measured = stored_measurements(paper, list(runs.values()), store_path, jobs)
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
    inputs = [figure_inputs(paper.key, outcome.figure, outcome.tables) for outcome in outcomes]
    for outcome, drawn_from in zip(outcomes, inputs):
        outcome.drawn = redraw or drawn_from is None or not png_drawn_from(out / f"{outcome.figure.stem}.png", drawn_from)
    with figure_pool(sum(outcome.drawn for outcome in outcomes), jobs) as pool:
        drawn = [draw_figure(pool, paper, key, outcome.tables, out, drawn_from, not outcome.drawn)
                 for key, outcome, drawn_from in zip(keys, outcomes, inputs)]
        for outcome in outcomes:  # judged while the figures are drawn
            outcome.claims = outcome.figure.claims(outcome.tables, sizes)
            outcome.scenario = scenario_dir / f"{outcome.figure.stem}.toml"
            example = next(point for owner, point, _ in points if owner is outcome).scenario
            outcome.scenario.write_text(f"# One run of {paper.figure_title(outcome.figure)} ({paper.key}); the "
                                        "others differ in the labelled parameters and the seed.\n"
                                        + scenario_toml(example), encoding="utf-8")
        for outcome, files in zip(outcomes, drawn):
            outcome.files = files.result() if hasattr(files, "result") else files
    ns2_store, ns2_simulated = None, 0
    if ns2:
        ns2_store = store_path.with_name(f"{store_path.stem}-ns2{store_path.suffix}")
        ns2_simulated = _judge_in_ns2(paper, sizes, outcomes, points, runs, ns2_store, from_store is not None,
                                      executor, jobs, progress, by_point)
    recorded = recorded_ns2_verdicts(paper.key)
    for outcome in outcomes:
        key = figure_key(outcome.figure)
        theirs = outcome.ns2.claims if outcome.ns2 is not None and outcome.ns2.claims else [None] * len(outcome.claims)
        partial = outcome.ns2.partial if outcome.ns2 is not None else ""
        outcome.whys = [explain(claim, their, recorded.get((key, number, claim.statement)), partial)
                        for number, (claim, their) in enumerate(zip(outcome.claims, theirs), 1)]
    result = Outcome(paper, out, sizes, outcomes, time.perf_counter() - started, out / "summary.md", store_path,
                     runs=len(runs), simulated=simulated, command=command, ns2_store=ns2_store,
                     ns2_simulated=ns2_simulated)
    result.summary.write_text(paper.summary(result), encoding="utf-8")
    write_meta(result, points)
    write_claims(result)
    if report:
        result.report = write_paper_report(result)
    return result


def _judge_in_ns2(paper: Paper, sizes: Any, outcomes: list[FigureOutcome], points: list[tuple], runs: dict,
                  store_path: Path, from_store: bool, executor: Any, jobs: Optional[int], progress: bool,
                  cclab_tables: dict) -> int:
    """Run in ns-2.35 the points of every figure it can run entirely (through the store at
    ``store_path``, like cclab's runs), measure them as cclab's are and judge the
    figure's claims on them; a figure with a point ns-2 cannot run gets the reason
    instead (or, for a paper with :attr:`Paper.ns2_partial`, is judged with cclab's
    tables of those points, ``cclab_tables`` by point). Returns the ns-2 runs made now."""
    chosen: dict[str, Any] = {}
    cclab_only: set[str] = set()  # run ids ns-2 cannot run, judged on cclab's tables
    for outcome in outcomes:
        mine = [(point, run_id) for owner, point, run_id in points if owner is outcome]
        outcome.ns2 = Ns2Verdicts(runs=len(mine))
        refused: dict[str, str] = {}
        for point, run_id in mine:
            try:
                translate(runs[run_id].scenario)
            except Unsupported as error:
                refused.setdefault(run_id, str(error))
                if not paper.ns2_partial:
                    break
        if refused and (not paper.ns2_partial or len(refused) == len({run_id for _, run_id in mine})):
            outcome.ns2.missing = f"ns-2.35 cannot run it: {next(iter(refused.values()))}"
            continue
        if refused:
            cclab_only.update(refused)
            what = sorted({match for error in refused.values() for match in re.findall(r'cc\.algorithm: "([^"]+)"', error)})
            outcome.ns2.partial = (f"{len(refused)} of {len({run_id for _, run_id in mine})} runs are cclab's: ns-2.35 "
                                   + (f"has no agent for {', '.join(what)}" if what else
                                      f"cannot run them ({next(iter(refused.values()))})"))
        chosen.update((run_id, runs[run_id]) for _, run_id in mine if run_id not in refused)
    measured: dict[str, list[Tables]] = {}
    made = 0
    failed: dict[str, str] = {}
    if chosen and not from_store:
        _prepare(store_path.parent, store_path)
        batch = Batch(f"{paper.key}-{sizes.name}-ns2", {
            "paper": paper.key, "sizes": sizes.name, "seeds": list(sizes.seeds), "simulator": "ns-2.35",
            "figures": [figure_key(outcome.figure) for outcome in outcomes if not outcome.ns2.missing]})
        ran = run_stored(list(chosen.values()), batch, store_path, executor, jobs=jobs, progress=progress,
                         tables=False, measure=Measurement(paper.key), engine="ns2")
        made = ran.ran
        failed = dict(ran.failures)
    stored = [run for run_id, run in chosen.items() if run_id not in failed]
    if stored:
        measured.update(stored_measurements(paper, stored, store_path, jobs))
    for outcome in outcomes:
        if outcome.ns2.missing:
            continue
        mine = [(point, run_id) for owner, point, run_id in points if owner is outcome]
        broken = [run_id for _, run_id in mine if run_id in failed]
        if broken:
            outcome.ns2.missing = (f"{len(broken)} of its ns-2.35 runs failed (first: {failed[broken[0]]}); the same "
                                   "command retries them")
            continue
        served: dict[int, Tables] = {}
        for run_id in dict.fromkeys(run_id for _, run_id in mine):
            if run_id in cclab_only:
                served.update((id(point), cclab_tables[id(point)]) for point in runs[run_id].context)
                continue
            for point, tables in zip(runs[run_id].context, measured[run_id]):
                served[id(point)] = tables
        tables = paper.finish(outcome.figure, concat_tables([served[id(point)] for point, _ in mine]))
        outcome.ns2.claims = outcome.figure.claims(tables, sizes)
    return made


def recorded_ns2_verdicts(paper_key: str) -> dict[tuple, dict]:
    """ns-2.35's verdicts on a paper's claims recorded from a full ``reproduce PAPER
    --ns2`` (``papers/<paper>/ns2_verdicts.json``, made by ``bench/ns2/record_verdicts.py``),
    by (figure, claim number, statement): a claim whose wording changed since is not
    matched. Empty when none was recorded."""
    path = Path(__file__).resolve().parent / paper_key / "ns2_verdicts.json"
    if not path.is_file():
        return {}
    document = json.loads(path.read_text(encoding="utf-8"))
    return {(row["figure"], int(row["claim"]), row["statement"]): {**row, "command": document["command"]}
            for row in document["claims"] if row.get("verdict")}


def _prepare(out: Path, store: Optional[Path]) -> None:
    """Create the output directory (and the store's), as a one-line error if impossible."""
    for directory in (out, *([store.parent] if store is not None else [])):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ReproduceError(f"{directory}: cannot create the directory ({error.strerror})") from None
