"""Running scenarios: one at a time (:func:`run`), many (:func:`run_many`, from the runner) or a
sweep plan (:func:`sweep`)."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor
from os import PathLike
from typing import Any, Optional, Union

from cclab.cc import bind_objects, bind_value
from cclab.core import ScenarioError
from cclab.progress import RunProgress
from cclab.runs.engine import run_json
from cclab.results import Result
from cclab.runs.plan import Plan, PlanSource
from cclab.runs.runner import SweepOutcome, run_many, run_plan
from cclab.scenario import (Overrides, ScenarioSource, _shown_object, apply_overrides, load_scenario, load_unresolved,
                            parse_memory, resolve_files, scenario_json)


def run(source: ScenarioSource, *, overrides: Overrides = None, max_memory: Union[str, int, None] = None,
        progress: Union[bool, Callable[[float, float], None], None] = None, **settings: Any) -> Result:
    """Run the scenario in ``source`` (TOML path or dict) and return its :class:`Result`.

    ``overrides`` takes ``"key=value"`` strings or a mapping; keyword arguments are more
    overrides, top-level or dotted: ``run("x.toml", seed=2, **{"flows.0.count": 10})``.
    ``max_memory`` ("16GB", bytes; default 8 GiB): a run estimated to need more is refused
    before it starts, with a :class:`ScenarioError` naming what makes it big. A flow
    group's ``cc`` may be a Python class (:mod:`cclab.cc`).

    ``progress``: ``True`` draws a bar on stderr once the run is older than two seconds
    (simulated time out of the duration); a callable is called as ``progress(simulated_s,
    total_s)`` a few times a second. Ctrl-C stops the run within a fraction of a second
    and raises ``KeyboardInterrupt``.
    """
    source = bind_objects(source)
    if isinstance(overrides, Mapping):
        overrides = {key: bind_value(value, key) for key, value in overrides.items()}
    settings = {key: bind_value(value, key) for key, value in settings.items()}
    scenario, folder = load_unresolved(source, overrides)
    scenario = resolve_files(apply_overrides(scenario, settings), folder)
    payload, memory = scenario_json(scenario), parse_memory(max_memory)
    if progress is True:
        with RunProgress() as bar:
            return Result(json.loads(run_json(payload, memory, "max_memory", bar)))
    return Result(json.loads(run_json(payload, memory, "max_memory", progress or None)))


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
    * A list of scenarios: :func:`run_many` — their results in input order.

    Both go through the one runner (:mod:`cclab.runs.runner`): ``executor`` is any
    executor (a ``concurrent.futures`` pool, a ``dask.distributed.Client``, ...); without
    one a process pool of ``jobs`` workers (``jobs=1``: in this process).
    """
    if isinstance(scenarios, (str, PathLike, Mapping, Plan)):
        return run_plan(scenarios, executor, store=store, jobs=jobs, progress=bool(progress))
    if isinstance(scenarios, bytes) or not isinstance(scenarios, Iterable):
        raise ScenarioError(f"scenarios: {_shown_object(scenarios)} is neither a sweep plan nor a list of scenarios")
    return run_many(scenarios, executor, jobs=jobs, on_result=on_result, progress=progress)
