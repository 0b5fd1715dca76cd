"""cclab and ns-2.35 on the same scenario, seed by seed (``cclab crosscheck``).

Each seed runs the scenario in both simulators (ns-2 from :mod:`cclab.ns2.translate`, so
flows start and stop at the same times and take the same routes) and reads the same
metrics from both :class:`cclab.Result`\\ s: per group goodput, Jain's index among its
flows, retransmitted packets, timeouts and ECN reactions (TCP groups); the whole
system's goodput and Jain index; per link direction its queue drops, loss-model drops
and ECN marks (a dumbbell's per-flow access links summed by kind). The table gives each
metric's mean ± 95 % confidence half-width over seeds in each simulator and the relative
difference of the means (Jain: the absolute difference).
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from cclab.core import ScenarioError, jain_index
from cclab.ns2 import run as ns2
from cclab.ns2.translate import translate
from cclab.runs.api import run as run_cclab

# Metrics compared absolutely (a difference of indices), not relative to ns-2's value.
ABSOLUTE = ("jain",)


@dataclass
class Row:
    """One metric in both simulators: values per seed, mean and CI half-width, difference."""

    metric: str
    unit: str
    cclab: list[float]
    ns2: list[float]

    @staticmethod
    def _summary(values: list[float]) -> tuple[float, float]:
        from cclab.analysis.stats import mean_ci  # (numpy and pandas: only to summarise)

        n, mean, _, low, high = mean_ci(values)
        return mean, (high - mean) if n > 1 else math.nan

    @property
    def cclab_mean(self) -> float:
        return self._summary(self.cclab)[0]

    @property
    def ns2_mean(self) -> float:
        return self._summary(self.ns2)[0]

    @property
    def absolute(self) -> bool:
        return self.metric.split()[0] in ABSOLUTE

    @property
    def difference(self) -> float:
        """cclab − ns-2, relative to ns-2 (absolute for indices); NaN where ns-2 is 0."""
        c, n = self.cclab_mean, self.ns2_mean
        if self.absolute:
            return c - n
        return (c - n) / n if n else (0.0 if c == 0 else math.nan)

    def as_dict(self) -> dict[str, Any]:
        (cm, cci), (nm, nci) = self._summary(self.cclab), self._summary(self.ns2)
        return {"metric": self.metric, "unit": self.unit, "cclab_mean": cm, "cclab_ci": cci, "ns2_mean": nm,
                "ns2_ci": nci, "difference": self.difference, "difference_kind": "absolute" if self.absolute
                else "relative", "cclab": self.cclab, "ns2": self.ns2}


@dataclass
class CrossCheck:
    scenario: dict
    seeds: list[int]
    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    wall_time_s: dict[str, float] = field(default_factory=dict)

    def row(self, metric: str) -> Row:
        return next(row for row in self.rows if row.metric == metric)

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario.get("name"), "seeds": self.seeds, "notes": self.notes,
                "wall_time_s": self.wall_time_s, "rows": [row.as_dict() for row in self.rows]}

    def markdown(self) -> str:
        lines = [f"cclab against ns-2.35 on {self.scenario.get('name', 'the scenario')!r}, seeds "
                 f"{', '.join(map(str, self.seeds))} (mean ± 95 % CI half-width)", "",
                 "| metric | cclab | ns-2.35 | difference |", "| --- | --- | --- | --- |"]
        for row in self.rows:
            lines.append(f"| {row.metric} | {with_ci(row.cclab)} | {with_ci(row.ns2)} | {format_difference(row)} |")
        return "\n".join(lines)


def with_ci(values: list[float]) -> str:
    """A mean and its 95 % CI half-width: "9.496 ± 0.019"."""
    mean, half = Row._summary(values)
    text = _number(mean, 4)
    return text if math.isnan(half) else f"{text} ± {_number(half, 2)}"


def _number(x: float, digits: int) -> str:
    if math.isnan(x):
        return "–"
    return f"{x:.0f}" if abs(x) >= 10 ** (digits - 1) else f"{x:.{digits}g}"


def format_difference(row: Row) -> str:
    d = row.difference
    if math.isnan(d):
        return "–"
    return f"{d:+.3f}" if row.absolute else f"{d:+.1%}"


def metrics(result) -> dict[str, tuple[float, str]]:
    """The compared metrics of one result (cclab's or ns-2's), by name: (value, unit)."""
    out: dict[str, tuple[float, str]] = {}
    raw = result.raw
    flows = raw["flows"]
    out["goodput all"] = (raw["system"]["goodput_mbps"], "Mb/s")
    out["jain all"] = (jain_index([f["goodput_mbps"] for f in flows]), "")
    groups = [g["name"] for g in raw["groups"]]
    for name in groups:
        members = [f for f in flows if f["group"] == name]
        out[f"goodput {name}"] = (sum(f["goodput_mbps"] for f in members), "Mb/s")
        if len(groups) > 1 and len(members) > 1:
            out[f"jain {name}"] = (jain_index([f["goodput_mbps"] for f in members]), "")
        if members and members[0]["transport"] == "tcp":
            for key, label in (("retransmitted_packets", "retransmitted"), ("timeouts", "timeouts"),
                               ("ecn_reactions", "ecn reactions")):
                out[f"{label} {name}"] = (sum(f[key] or 0 for f in members), "packets" if key[0] == "r" else "")
    dumbbell = raw["scenario"]["topology"].get("kind", "dumbbell") == "dumbbell"
    for key, links in _link_kinds(raw["links"], dumbbell).items():
        for counter, label in (("queue_drops", "drops"), ("loss_drops", "loss drops"), ("ecn_marks", "marks")):
            out[f"{label} {key}"] = (sum(link[counter] or 0 for link in links), "packets")
    return out


def _link_kinds(links: list[dict], dumbbell: bool) -> dict[str, list[dict]]:
    """Link directions by name; on a dumbbell the per-flow access links are summed by
    kind (s*-r1, r1-s*, r2-d*, d*-r2)."""
    kinds: dict[str, list[dict]] = {}
    for link in links:
        key = re.sub(r"\b([sd])\d+\b", r"\1*", link["name"]) if dumbbell else link["name"]
        kinds.setdefault(key, []).append(link)
    return kinds


def crosscheck(scenario: Mapping[str, Any], seeds: Union[int, Sequence[int]] = 3, workers: Optional[int] = None,
               progress: Optional[Callable[[str], None]] = None) -> CrossCheck:
    """Run the normalised ``scenario`` in cclab and ns-2.35 and compare them: for
    ``seeds`` seeds (the scenario's seed and the next ones), or for the seeds listed."""
    base = dict(scenario)
    seed_list = [int(base["seed"]) + k for k in range(seeds)] if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list:
        raise ScenarioError(f"--seeds {seeds}: need at least one seed")
    first = translate(base)  # refuses what ns-2 cannot run before anything runs

    def both(seed: int) -> tuple[Any, Any]:
        this = {**base, "seed": seed}
        ours = run_cclab(this)
        theirs = ns2.run(this)
        if progress:
            progress(f"seed {seed}: cclab {ours.raw['wall_time_s']:.2f} s, ns-2 {theirs.raw['wall_time_s']:.2f} s")
        return ours, theirs

    workers = max(1, min(workers or os.cpu_count() or 1, len(seed_list)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pairs = list(pool.map(both, seed_list))
    return compare_results(base, seed_list, pairs, first.notes)


def compare_results(scenario: dict, seeds: list[int], pairs: Iterable[tuple[Any, Any]],
                    notes: Optional[list[str]] = None) -> CrossCheck:
    """The comparison table of (cclab result, ns-2 result) pairs, one per seed."""
    pairs = list(pairs)
    per_seed = [(metrics(ours), metrics(theirs)) for ours, theirs in pairs]
    names = list(dict.fromkeys(name for ours, theirs in per_seed for name in (*ours, *theirs)))
    rows = []
    for name in names:
        unit = next(m[name][1] for pair in per_seed for m in pair if name in m)
        cclab_values = [ours.get(name, (math.nan,))[0] for ours, _ in per_seed]
        ns2_values = [theirs.get(name, (math.nan,))[0] for _, theirs in per_seed]
        quiet = name.split()[0] in ("drops", "loss", "marks", "ecn") and not any(cclab_values + ns2_values)
        if not quiet:
            rows.append(Row(name, unit, cclab_values, ns2_values))
    walls = {"cclab": sum(p[0].raw["wall_time_s"] for p in pairs), "ns2": sum(p[1].raw["wall_time_s"] for p in pairs)}
    return CrossCheck(scenario, seeds, rows, list(notes or []), walls)
