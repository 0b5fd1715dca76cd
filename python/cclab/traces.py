"""Links that follow recorded traces: reading the files a scenario names, and making
traces of one's own.

A link direction's ``rate_schedule = { kind = "mahimahi", file = "cellular.up" }``
delivers packets exactly as Mahimahi's ``mm-link`` does with that trace (one delivery
opportunity of 1504 bytes per line's millisecond; see the engine's
``net/delivery_trace.rs``); ``{ kind = "trace", file = "log.csv" }`` takes a
``time_s, rate_mbps`` log (the per-second logs many datasets publish) and delivers the
opportunities that carry it. The front end reads the file (relative to the scenario's
folder), and gives the engine its opportunities, the file's absolute path and its
SHA-256: the normalised scenario names the file and its hash, not its contents.

Generators write Mahimahi traces (one millisecond per line): a constant rate, Poisson
opportunities of a mean rate, and a Markov-modulated cellular model
(:func:`cellular`); :func:`convert_rate_log` turns a rate log into a Mahimahi trace.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Optional

from cclab.core import ScenarioError, mahimahi_opportunities, rate_log_opportunities

# Bytes one opportunity carries (mm-link's PACKET_SIZE) and one opportunity a
# millisecond's rate: a one-line trace is 12.032 Mb/s.
OPPORTUNITY_BYTES = 1504
OPPORTUNITY_MBPS = OPPORTUNITY_BYTES * 8 / 1000  # per millisecond = 12.032 Mb/s
# A trace file may be long: a 60-s trace of 1 Gb/s has 5 million lines (40 MB).
MAX_TRACE_BYTES = 1 << 30
TRACE_KINDS = {"mahimahi": ("a Mahimahi trace (one millisecond per line)", mahimahi_opportunities),
               "trace": ("a time_s, rate_mbps log", rate_log_opportunities)}


def read_opportunities(path: Path, kind: str, field: str, shown_as: str) -> tuple[list, str]:
    """The delivery opportunities of the trace file at ``path`` (``kind`` "mahimahi" or
    "trace"), as (millisecond, count) pairs, and its SHA-256; errors name ``field``, the
    file as the scenario wrote it and the line."""
    from cclab.inputs import read_text

    what, parse = TRACE_KINDS[kind]
    text = read_text(path, what, field, limit=MAX_TRACE_BYTES, shown_as=shown_as)
    try:
        runs = parse(text)
    except ScenarioError as error:
        raise ScenarioError(f"{field}: {shown_as}: {error}") from None
    return runs, hashlib.sha256(text.encode("utf-8")).hexdigest()


def _schedules(scenario: Mapping) -> Iterator[tuple[dict, str]]:
    """Every rate schedule table of a scenario dict, with its field path."""
    topology = scenario.get("topology")
    if not isinstance(topology, Mapping):
        return
    for name in ("bottleneck", "source_access", "sink_access"):
        link = topology.get(name)
        if isinstance(link, Mapping):
            for key in ("rate_schedule", "reverse_rate_schedule"):
                if isinstance(link.get(key), dict):
                    yield link[key], f"topology.{name}.{key}"
    for list_name in ("links", "hops"):
        links = topology.get(list_name)
        for k, link in enumerate(links if isinstance(links, list) else []):
            if not isinstance(link, Mapping):
                continue
            if isinstance(link.get("rate_schedule"), dict):
                yield link["rate_schedule"], f"topology.{list_name}[{k}].rate_schedule"
            reverse = link.get("reverse")
            if isinstance(reverse, Mapping) and isinstance(reverse.get("rate_schedule"), dict):
                yield reverse["rate_schedule"], f"topology.{list_name}[{k}].reverse.rate_schedule"


def resolve_trace_files(scenario: Any, folder: Optional[Path] = None) -> Any:
    """Read every trace file a scenario's links name (relative to ``folder``, the
    scenario file's, or the working directory) into the opportunities the engine takes."""
    if not isinstance(scenario, Mapping):
        return scenario
    from cclab.inputs import file_name

    for schedule, field in _schedules(scenario):
        # a kind that is no name (a list, a table) is the engine's to refuse, in one line
        is_trace = isinstance(schedule.get("kind"), str) and schedule["kind"] in TRACE_KINDS
        if is_trace and isinstance(schedule.get("lag"), dict):
            _resolve_lag_file(schedule["lag"], f"{field}.lag", folder)
        if not is_trace or "file" not in schedule:
            continue
        name = schedule["file"]
        if not isinstance(name, str) or not name:
            raise ScenarioError(f"{field}.file: {file_name(repr(name))[:60]} is not a file name")
        if "opportunities" in schedule:
            raise ScenarioError(f"{field}: give either file or opportunities, not both")
        path = Path(name)
        if not path.is_absolute():
            path = (folder or Path.cwd()) / path
        runs, sha256 = read_opportunities(path, schedule["kind"], f"{field}.file", file_name(name))
        if schedule.get("sha256") not in (None, sha256):
            raise ScenarioError(f"{field}.sha256: {file_name(name)} has changed since the scenario named it (its SHA-256 "
                                f"is {sha256[:12]}…, the scenario's {str(schedule['sha256'])[:12]}…); remove sha256 to "
                                "take the file as it is")
        schedule.update(file=str(path.absolute()), sha256=sha256, opportunities=runs)
    return scenario


# The most lag samples a file may hold, and the largest one (µs): the engine's limits.
MAX_LAG_SAMPLES = 10_000_000
MAX_LAG_US = 10_000_000


def read_lag_samples(path: Path, field: str, shown_as: str) -> tuple[list[int], str]:
    """Release-lag samples (one whole number of µs per line, ``#`` comments allowed) of
    the file at ``path``, and its SHA-256; errors name ``field``, the file and the line."""
    from cclab.inputs import data_lines, read_text, shown_value

    text = read_text(path, "release-lag samples (µs, one per line)", field, limit=MAX_TRACE_BYTES, shown_as=shown_as)
    samples = []
    for number, line in data_lines(text, f"{field}: {shown_as}"):
        if not line.isdigit() or int(line) > MAX_LAG_US:
            raise ScenarioError(f"{field}: {shown_as} line {number}: {shown_value(line)} is not a whole number of µs in "
                                f"[0, {MAX_LAG_US}]")
        samples.append(int(line))
        if len(samples) > MAX_LAG_SAMPLES:
            raise ScenarioError(f"{field}: {shown_as}: more than {MAX_LAG_SAMPLES} samples")
    if not samples:
        raise ScenarioError(f"{field}: {shown_as}: no samples (one whole number of µs per line)")
    return samples, hashlib.sha256(text.encode("utf-8")).hexdigest()


def _resolve_lag_file(lag: dict, field: str, folder: Optional[Path]) -> None:
    """A ``lag = { file = ... }`` table's samples read in, with the file's absolute path and
    SHA-256."""
    from cclab.inputs import file_name

    if "file" not in lag:
        return
    name = lag["file"]
    if not isinstance(name, str) or not name:
        raise ScenarioError(f"{field}.file: {file_name(repr(name))[:60]} is not a file name")
    if "samples_us" in lag:
        raise ScenarioError(f"{field}: give either file or samples_us, not both")
    path = Path(name)
    if not path.is_absolute():
        path = (folder or Path.cwd()) / path
    samples, sha256 = read_lag_samples(path, f"{field}.file", file_name(name))
    if lag.get("sha256") not in (None, sha256):
        raise ScenarioError(f"{field}.sha256: {file_name(name)} has changed since the scenario named it; remove sha256 "
                            "to take the file as it is")
    lag.update(file=str(path.absolute()), sha256=sha256, samples_us=samples)


# ------------------------------------------------------------------ making traces
def mahimahi_text(milliseconds: list[int]) -> str:
    """A Mahimahi trace: one millisecond per line."""
    return "".join(f"{ms}\n" for ms in milliseconds)


def constant(rate_mbps: float, duration_ms: int) -> list[int]:
    """Opportunities of a constant rate over ``duration_ms``, spread as evenly as whole
    opportunities allow (a running remainder), the last at the period's end."""
    return _from_rates([rate_mbps] * duration_ms)


def poisson(rate_mbps: float, duration_ms: int, seed: int) -> list[int]:
    """Opportunities drawn each millisecond from a Poisson law of the rate's mean
    (``seed``: numpy's PCG64 stream)."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(seed))
    counts = rng.poisson(rate_mbps / OPPORTUNITY_MBPS, size=duration_ms)
    return _from_counts(counts.tolist())


# A cellular link's states (Mb/s) and the chance of moving to each neighbour, after
# the shapes of the LTE traces Mahimahi and Pantheon publish: long stretches near a
# few rates, with drops towards outages.
CELLULAR_STATES_MBPS = (0.5, 2.0, 6.0, 12.0, 24.0, 36.0)


def cellular(duration_ms: int, seed: int, mean_dwell_ms: float = 500.0,
             states_mbps: tuple[float, ...] = CELLULAR_STATES_MBPS) -> list[int]:
    """A Markov-modulated cellular trace: the link's rate is one of ``states_mbps``,
    held for an exponential time of mean ``mean_dwell_ms``, then moving to a
    neighbouring state (up or down one, at random; two down with chance 0.1, a fade);
    each millisecond's opportunities are Poisson of the state's rate."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(seed))
    state = len(states_mbps) // 2
    rates = np.empty(duration_ms)
    at = 0
    while at < duration_ms:
        dwell = max(1, int(round(rng.exponential(mean_dwell_ms))))
        rates[at:at + dwell] = states_mbps[state]
        at += dwell
        step = -2 if rng.random() < 0.1 else (1 if rng.random() < 0.5 else -1)
        state = min(max(state + step, 0), len(states_mbps) - 1)
    counts = rng.poisson(rates / OPPORTUNITY_MBPS)
    return _from_counts(counts.tolist())


def convert_rate_log(text: str) -> list[int]:
    """The Mahimahi trace that delivers a ``time_s, rate_mbps`` log's bytes (as the
    engine takes ``kind = "trace"``)."""
    return [ms for ms, count in rate_log_opportunities(text) for _ in range(count)]


def _from_rates(rates_mbps: list[float]) -> list[int]:
    counts, owed = [], 0.0
    for rate in rates_mbps:
        owed += rate / OPPORTUNITY_MBPS
        whole = math.floor(owed + 1e-9)
        owed -= whole
        counts.append(whole)
    return _from_counts(counts)


def _from_counts(counts: list[int]) -> list[int]:
    """Millisecond lines from per-millisecond counts (millisecond k's at k + 1: mm-link
    delivers at a millisecond's end); the last millisecond always has one, so the
    trace's period is its length."""
    if not counts:
        raise ScenarioError("duration: a trace lasts at least 1 ms")
    lines = [ms + 1 for ms, count in enumerate(counts) for _ in range(int(count))]
    if not lines or lines[-1] != len(counts):
        lines.append(len(counts))
    return lines


def describe(runs: list) -> dict:
    """A trace's period, opportunities and mean rate, from its (millisecond, count) pairs."""
    period_ms = runs[-1][0]
    opportunities = sum(count for _, count in runs)
    return {"period_ms": period_ms, "opportunities": opportunities,
            "mean_rate_mbps": opportunities * OPPORTUNITY_MBPS / period_ms}
