"""Sweep plans: a base scenario, axes of values, replications, and one seed per run.

A plan is a TOML file::

    [sweep]
    name = "static-wired"
    scenario = "../static-wired.toml"   # base scenario, relative to this file (or an inline [scenario] table)
    replications = 3
    seed = 1                            # root of every derived seed
    combine = "cross"                   # how the axes combine: "cross" (every combination) or "zip"
    zip = [["flows.0.cc.alpha", "flows.0.cc.beta"]]   # axes zipped together, crossed with the rest

    [axes]                              # dotted scenario paths, as `--set` takes them
    "flows.0.count" = { from = 10, to = 100, step = 10 }    # inclusive range
    "flows.0.cc.alpha" = [0.31, 0.583, 1.0, 1.25]
    "flows.0.cc.beta" = [0.875, 0.75, 0.5, 0.25]

    [set]                               # overrides applied to the base scenario before the axes
    duration = "100s"

Every run (a point of the grid × a replication) gets the seed
``derive_seed(name, root seed, point, replication)``: a hash of the plan's name and root
seed, the point's own axis values and the replication index. Adding a value to an axis
therefore never changes the seed, and so the result, of any other run; adding a new
axis changes every point (each point then has one more parameter).
"""
from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar, Union

import tomli_w

from cclab.core import ScenarioError
from cclab.scenario import (_shown, _shown_object, apply_overrides, check_value, load_scenario, plain_copy, read_toml,
                            scenario_json, validate)

PlanSource = Union[str, PathLike, Mapping[str, Any], "Plan"]

SWEEP_KEYS = {"name", "scenario", "replications", "seed", "combine", "zip"}
# A plan is checked against this before any run is made (points × replications); every
# run's normalised scenario is kept while the plan runs.
MAX_RUNS = 100_000
# A plan's name names its results file, so it stays a plain file name.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,127}$")
TOP_LEVEL_KEYS = {"sweep", "scenario", "axes", "set"}
SEED_BITS = 53  # seeds stay exact in JSON numbers, doubles and signed 64-bit columns


@dataclass(frozen=True)
class Run:
    """One simulation of a sweep: a grid point, one replication of it, and its scenario."""

    point: dict[str, Any]  # axis path -> value
    point_index: int
    replication: int
    seed: int
    scenario: dict  # the engine's normalized scenario, seed included
    run_id: str  # hash of the normalized scenario: the same id means the same result
    # What the caller needs back with the run's measurement (a reproduction: the figure
    # points this run serves); not part of what is simulated or stored.
    context: Any = field(default=None, compare=False, repr=False)

    @property
    def scenario_json(self) -> str:
        return scenario_json(self.scenario)

    @classmethod
    def of_scenario(cls, scenario: Mapping[str, Any], point: dict[str, Any], point_index: int = 0,
                    replication: int = 0, context: Any = None) -> "Run":
        """A run of ``scenario`` as it is (its own seed), labelled with ``point``: how
        a paper reproduction's grid, which is not an axes plan, becomes runs."""
        normalized = validate(dict(scenario))
        return cls(point, point_index, replication, normalized["seed"], normalized, scenario_hash(normalized),
                   context)


@dataclass(frozen=True)
class Plan:
    """A parsed plan. ``dimensions`` lists the axis groups in grid order: each group is
    a tuple of axis paths that vary together (one path, or a zipped set)."""

    kind: ClassVar[str] = "sweep"  # what the results store records it as
    name: str
    base: dict
    axes: dict[str, list]
    dimensions: tuple[tuple[str, ...], ...]
    replications: int = 1
    root_seed: int = 1

    def points(self) -> list[dict[str, Any]]:
        """The grid points in order, each a dict axis path -> value."""
        groups = [[dict(zip(group, values)) for values in zip(*(self.axes[path] for path in group))]
                  for group in self.dimensions]
        return [dict(item for part in combination for item in part.items())
                for combination in itertools.product(*groups)]

    def runs(self) -> list[Run]:
        """Every run of the plan (points × replications), validated by the engine.

        Raises :class:`ScenarioError` naming the point when one is invalid, before
        anything runs. Computed once per plan (a plan is immutable).
        """
        cached = self.__dict__.get("_runs")
        if cached is not None:
            return list(cached)
        runs = []
        for point_index, point in enumerate(self.points()):
            scenario = apply_overrides(copy.deepcopy(self.base), point, origin="axes")
            try:
                # Replications differ only in their seed, which normalising does not touch:
                # one validation per point serves them all.
                point_normalized = validate(scenario)
            except ScenarioError as error:
                raise ScenarioError(f"plan {self.name!r}, point {_describe(point)}: {error}") from None
            for replication in range(self.replications):
                seed = derive_seed(self.name, self.root_seed, point, replication)
                normalized = {**point_normalized, "seed": seed}
                runs.append(Run(point, point_index, replication, seed, normalized, scenario_hash(normalized)))
        object.__setattr__(self, "_runs", tuple(runs))  # not a field: equality and hashing ignore it
        return runs

    @property
    def hash(self) -> str:
        """Hash of what the plan runs (name, base scenario, axes, zips, replications, seed)."""
        return hashlib.sha256(_canonical(_plan_document(self)).encode()).hexdigest()[:16]

    def to_toml(self) -> str:
        """The plan as a self-contained TOML document (base scenario inlined), which
        :func:`load_plan` reads back into an equal plan."""
        return tomli_w.dumps(_plan_document(self))


def derive_seed(plan_name: str, root_seed: int, point: Mapping[str, Any], replication: int) -> int:
    """The seed of one run: a hash of (plan name, root seed, point, replication)."""
    key = _canonical({"plan": plan_name, "seed": root_seed, "point": dict(point), "replication": replication})
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def scenario_hash(normalized_scenario: Mapping[str, Any]) -> str:
    """Identity of a run: the hash of its normalized scenario (which holds the seed)."""
    return hashlib.sha256(_canonical(normalized_scenario).encode()).hexdigest()[:32]


def load_plan(source: PlanSource, overrides: Mapping[str, Any] | None = None) -> Plan:
    """Read a plan from a TOML file, a dict (as the file would parse) or a :class:`Plan`.

    ``overrides`` maps ``sweep.*`` keys (``replications``, ``seed``, ``name``) to new
    values, e.g. ``{"replications": 1}`` for a quick look.
    """
    if isinstance(source, Plan):
        if not overrides:
            return source  # immutable: the same plan (and the runs it computed)
        document, base_dir = _plan_document(source), Path.cwd()
    elif isinstance(source, Mapping):
        check_value(source, "", leaves=False)  # (values are checked where they are used)
        document, base_dir = plain_copy(source), Path.cwd()
    elif not isinstance(source, (str, PathLike)):
        raise ScenarioError(f"the plan: {_shown_object(source)} is not one; give a plan TOML file's path or a dict")
    else:
        path = Path(source)
        document, base_dir = read_toml(path), path.parent
        if "sweep" not in document:
            raise ScenarioError(f"{path}: not a sweep plan (no [sweep] table)")
    if not isinstance(document.get("sweep", {}), Mapping):
        raise ScenarioError(f"sweep: {_shown(document['sweep'])} is not a table")
    if overrides:
        document.setdefault("sweep", {}).update(overrides)
    return _parse(document, base_dir)


def _parse(document: dict, base_dir: Path) -> Plan:
    unknown = set(document) - TOP_LEVEL_KEYS
    if unknown:
        raise ScenarioError(f"plan: unknown table or key {sorted(unknown)[0]!r} (expected {sorted(TOP_LEVEL_KEYS)})")
    sweep = document.get("sweep", {})
    unknown = set(sweep) - SWEEP_KEYS
    if unknown:
        raise ScenarioError(f"sweep.{sorted(unknown)[0]}: unknown key (expected one of {sorted(SWEEP_KEYS)})")
    name = sweep.get("name")
    if not isinstance(name, str) or not name:
        raise ScenarioError("sweep.name: required, a non-empty string")
    if not NAME_PATTERN.match(name) or name in (".", ".."):
        raise ScenarioError(f"sweep.name: {name!r} may hold only letters, digits, spaces, '.', '_' and '-' "
                            "(it names the results file), and start with a letter or digit")

    base = _base_scenario(sweep.get("scenario"), document.get("scenario"), base_dir)
    if not isinstance(document.get("set", {}), Mapping):
        raise ScenarioError("set: must be a table of dotted paths and values")
    base = apply_overrides(base, document.get("set", {}), origin="set")
    if not isinstance(document.get("axes", {}), Mapping):
        raise ScenarioError("axes: must be a table of dotted paths and values")
    axes = {str(path): _axis_values(str(path), values) for path, values in document.get("axes", {}).items()}
    dimensions = _dimensions(axes, sweep.get("combine", "cross"), sweep.get("zip", []))
    replications = sweep.get("replications", 1)
    if not isinstance(replications, int) or isinstance(replications, bool) or not 1 <= replications <= MAX_RUNS:
        raise ScenarioError(f"sweep.replications: {replications!r} is not a whole number from 1 to {MAX_RUNS}")
    points = math.prod(len(axes[group[0]]) for group in dimensions) if dimensions else 1
    if points * replications > MAX_RUNS:
        raise ScenarioError(f"plan: {points} points × {replications} replications = {points * replications} runs; "
                            f"a plan may have at most {MAX_RUNS}")
    root_seed = sweep.get("seed", 1)
    if not isinstance(root_seed, int) or isinstance(root_seed, bool) or root_seed < 0:
        raise ScenarioError(f"sweep.seed: {root_seed!r} is not a non-negative integer")
    return Plan(name, base, axes, dimensions, replications, root_seed)


def _base_scenario(file: Any, inline: Any, base_dir: Path) -> dict:
    if (file is None) == (inline is None):
        raise ScenarioError("plan: give the base scenario as sweep.scenario = \"file.toml\" "
                            "or as a [scenario] table (exactly one)")
    if inline is not None:
        if not isinstance(inline, Mapping):
            raise ScenarioError("plan: [scenario] must be a table")
        return copy.deepcopy(dict(inline))
    if not isinstance(file, str):
        raise ScenarioError(f"sweep.scenario: {file!r} is not a file name")
    return load_scenario(base_dir / file)


def _axis_values(path: str, values: Any) -> list:
    if isinstance(values, Mapping):
        return _inclusive_range(path, values)
    if not isinstance(values, list) or not values:
        raise ScenarioError(f'axes."{path}": expected a non-empty list or {{ from, to, step }}, got {_shown(values)}')
    if len(values) > MAX_RUNS:
        raise ScenarioError(f'axes."{path}": {len(values)} values; a plan may have at most {MAX_RUNS} runs')
    if len({_canonical(value) for value in values}) != len(values):
        raise ScenarioError(f'axes."{path}": a value appears twice in {_shown(values)}')
    return list(values)


def _inclusive_range(path: str, spec: Mapping[str, Any]) -> list:
    where = f'axes."{path}"'
    if set(spec) != {"from", "to", "step"}:
        raise ScenarioError(f"{where}: a range is {{ from = A, to = B, step = S }}, got {_shown(dict(spec))}")
    start, stop, step = spec["from"], spec["to"], spec["step"]
    for key, value in (("from", start), ("to", stop), ("step", step)):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise ScenarioError(f"{where}: {key} = {_shown(value)} is not a finite number")
    if step <= 0:
        raise ScenarioError(f"{where}: step = {step} is not positive")
    if stop < start:
        raise ScenarioError(f"{where}: the range goes from {start} down to {stop}")
    count = (stop - start) / step + 1
    if not count <= MAX_RUNS:
        raise ScenarioError(f"{where}: from {start} to {stop} in steps of {step} is {count:.0f} points; "
                            f"a plan may have at most {MAX_RUNS} runs")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if all(isinstance(v, int) for v in (start, stop, step)):
        return [start + i * step for i in range(count)]
    return [round(start + i * step, 12) for i in range(count)]


def _dimensions(axes: dict[str, list], combine: Any, zipped: Any) -> tuple[tuple[str, ...], ...]:
    if combine not in ("cross", "zip"):
        raise ScenarioError(f"sweep.combine: {combine!r} is neither \"cross\" nor \"zip\"")
    if combine == "zip":
        if zipped:
            raise ScenarioError("sweep.zip: not needed when combine = \"zip\" (every axis is zipped)")
        groups = [list(axes)] if axes else []
    else:
        if not isinstance(zipped, list) or not all(isinstance(g, list) for g in zipped):
            raise ScenarioError(f"sweep.zip: expected a list of lists of axis paths, got {_shown(zipped)}")
        for group in zipped:
            if len(group) < 2:
                raise ScenarioError(f"sweep.zip: {_shown(group)} zips {'no axis' if not group else 'one axis'}; "
                                    "a zip group lists two or more axes that vary together")
            if not all(isinstance(path, str) for path in group):
                raise ScenarioError(f"sweep.zip: {_shown(group)} is not a list of axis paths")
        groups = [list(group) for group in zipped]
        in_groups = [path for group in groups for path in group]
        for path in in_groups:
            if path not in axes:
                raise ScenarioError(f"sweep.zip: {path!r} is not an axis")
        if len(set(in_groups)) != len(in_groups):
            raise ScenarioError("sweep.zip: an axis appears in two zip groups")
        ordered = []
        for path in axes:  # keep the order of [axes]; a zip group sits where its first axis is
            group = next((g for g in groups if path in g), [path])
            if group not in ordered:
                ordered.append(group)
        groups = ordered
    for group in groups:
        lengths = {len(axes[path]) for path in group}
        if len(lengths) > 1:
            raise ScenarioError(f"sweep.zip: zipped axes {group} have different lengths "
                                f"{[len(axes[p]) for p in group]}")
    return tuple(tuple(group) for group in groups)


def _plan_document(plan: Plan) -> dict:
    """The dict form of ``plan`` (what its TOML would parse to), for re-parsing with overrides."""
    grouped = [list(group) for group in plan.dimensions if len(group) > 1]
    return {"sweep": {"name": plan.name, "replications": plan.replications, "seed": plan.root_seed, "zip": grouped},
            "scenario": copy.deepcopy(plan.base), "axes": copy.deepcopy(plan.axes)}


def axis_label(value: Any) -> Any:
    """An axis value as a table cell: a number or string as it is; a table or a list as
    short readable text (tables and lists cannot be grouped, compared or shown plainly):
    ``{ algorithm = "westwood-plus" }`` → ``westwood-plus``, ``{ algorithm = "aimd",
    alpha = 1, beta = 0.5 }`` → ``aimd(alpha=1, beta=0.5)``, ``{ rate = "10Mbps",
    delay = "5ms" }`` → ``{rate=10Mbps, delay=5ms}``, ``[["0s", 1], ["5s", 2]]`` →
    ``[[0s, 1], [5s, 2]]``. Distinct values give distinct labels."""
    if isinstance(value, Mapping):
        return _table_label(value, top=True)
    if isinstance(value, (list, tuple)):
        return _table_label(value, top=True)
    return value


def _table_label(value: Any, top: bool = False) -> str:
    if isinstance(value, Mapping):
        items = dict(value)
        name = items.pop("algorithm", None) if top and isinstance(items.get("algorithm"), str) else None
        inner = ", ".join(f"{key}={_table_label(item)}" for key, item in items.items())
        if name is not None:
            return f"{name}({inner})" if inner else name
        return f"{{{inner}}}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_table_label(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)
    return str(value)


def _describe(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{path}={json.dumps(value, default=str)}" for path, value in point.items()) or "(no axes)"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
