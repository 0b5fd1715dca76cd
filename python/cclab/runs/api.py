"""Running scenarios: one at a time (:func:`run`), many in parallel or a sweep plan (:func:`sweep`)."""
from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from os import PathLike
from typing import Any, Optional, Union

from cclab.core import run_json
from cclab.results import Result
from cclab.runs.plan import Plan, PlanSource
from cclab.scenario import (Overrides, ScenarioSource, apply_overrides, load_scenario, parse_memory, scenario_json,
                            validate)
from cclab.runs.runner import SweepOutcome, in_completion_order, run_plan


def run(source: ScenarioSource, *, overrides: Overrides = None, max_memory: Union[str, int, None] = None,
        **settings: Any) -> Result:
    """Run the scenario in ``source`` (TOML path or dict) and return its :class:`Result`.

    ``overrides`` takes ``"key=value"`` strings or a mapping; keyword arguments are more
    overrides, top-level or dotted: ``run("x.toml", seed=2, **{"flows.0.count": 10})``.
    ``max_memory`` ("16GB", bytes; default 8 GiB): a run estimated to need more is refused
    before it starts, with a :class:`ScenarioError` naming what makes it big.
    """
    scenario = apply_overrides(load_scenario(source, overrides), settings)
    return Result(json.loads(run_json(scenario_json(scenario), parse_memory(max_memory))))


def sweep(
    scenarios: Union[PlanSource, Iterable[ScenarioSource]],
    executor: Optional[Executor] = None,
    *,
    jobs: Optional[int] = None,
    on_result: Optional[Callable[[int, Result], None]] = None,
    progress: Optional[str] = None,
    store: Union[str, PathLike, None] = None,
) -> Union[list[Result], SweepOutcome]:
    """Run a sweep plan, or many scenarios in parallel.

    * A plan (a plan TOML path, a dict with a ``[sweep]`` table, a :class:`cclab.runs.plan.Plan`):
      runs what is not yet in the results store ``store`` and returns a
      :class:`cclab.runs.runner.SweepOutcome`; see :func:`cclab.runs.runner.run_plan`. ``progress``
      (any true value) shows a progress bar.
    * A list of scenarios: returns their results in input order. Every scenario is
      validated first, so a bad one fails before any work starts. ``on_result(index,
      result)`` is called as each run finishes; ``progress`` is the label of a progress
      bar on stderr (None: no bar).

    Runs go to ``executor``: anything with ``submit(fn, arg)`` returning a future with
    ``.result()`` fits — a ``concurrent.futures`` pool or a ``dask.distributed.Client``.
    Without one, a process pool of ``jobs`` workers is used (``jobs=1`` for a list: in
    this process).
    """
    if isinstance(scenarios, (str, PathLike, Mapping, Plan)):
        return run_plan(scenarios, executor, store=store, jobs=jobs, progress=bool(progress))
    loaded = [load_scenario(source) for source in scenarios]
    for scenario in loaded:
        validate(scenario)
    payloads = [scenario_json(scenario) for scenario in loaded]
    with _progress_bar(progress, len(payloads), on_result) as report:
        if executor is None and jobs == 1:
            return [_finished(index, _run_payload(payload), report) for index, payload in enumerate(payloads)]
        if executor is None:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                return _collect(pool, payloads, report)
        return _collect(executor, payloads, report)


@contextlib.contextmanager
def _progress_bar(label: Optional[str], total: int, on_result: Optional[Callable[[int, Result], None]]):
    """Yield the callback for finished runs: ``on_result``, plus advancing a bar if asked."""
    if label is None:
        yield on_result
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True)) as bar:
        task = bar.add_task(label, total=total)

        def advance(index: int, result: Result) -> None:
            bar.advance(task)
            if on_result is not None:
                on_result(index, result)

        yield advance


def _collect(executor: Any, payloads: list[str], on_result: Optional[Callable[[int, Result], None]]) -> list[Result]:
    results: list[Optional[Result]] = [None] * len(payloads)
    for index, future in in_completion_order(executor, _run_payload, range(len(payloads)), payload=payloads.__getitem__):
        results[index] = _finished(index, future.result(), on_result)
    return results  # type: ignore[return-value]


def _run_payload(payload: str) -> str:
    """Worker entry point (a plain module-level function, so any executor can pickle it)."""
    return run_json(payload)


def _finished(index: int, raw_json: str, on_result: Optional[Callable[[int, Result], None]]) -> Result:
    result = Result(json.loads(raw_json))
    if on_result is not None:
        on_result(index, result)
    return result
