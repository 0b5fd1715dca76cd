"""Episodes drawn from a distribution of single-bottleneck scenarios.

:class:`ScenarioDistribution` holds ranges (bottleneck rate, base RTT, buffer, random
loss, competing flows of built-in algorithms, link traces) and draws one cclab scenario
per episode from a NumPy generator, so that ``reset(seed=...)`` fixes the episode. With
no arguments it is a sensible default: 5–100 Mb/s, 10–200 ms, ¼–4 BDP of buffer, no loss
half of the time and up to 1 % otherwise, no competing flow half of the time and one or
two CUBIC, Reno or BBR flows otherwise. Any field may be a fixed value instead of a range.
A bad field is a :class:`cclab.ScenarioError` naming it, one line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from cclab.core import ScenarioError

Range = Union[float, Sequence[float]]

# Built-in algorithms a competing flow may run (anything the engine knows works; these are
# the ones a learned controller is usually compared with).
COMPETITORS = ("cubic", "reno", "bbr", "vegas")


@dataclass
class ScenarioDistribution:
    """Ranges an episode's scenario is drawn from (uniform; rates, buffers and windows
    log-uniform). ``rate_mbps``, ``rtt_ms``, ``buffer_bdp``: a number or ``(low, high)``.
    ``loss``: the bottleneck's random (Bernoulli) loss, drawn in ``loss`` with probability
    ``loss_probability`` (0 otherwise). ``competitors``: how many competing flows (a number
    or ``(low, high)``, drawn as an integer) of ``competitor_algorithms``, each starting at
    a time drawn in ``competitor_start_s``. ``traces``: Mahimahi trace files; with
    probability ``trace_probability`` the bottleneck delivers by one of them (its rate
    then is the trace's mean). ``buffer_packets``, if given, draws the buffer in packets
    (log-uniform) instead of in BDPs. ``duration_s``: the scenario's length (an episode may end
    sooner: ``max_steps``)."""

    rate_mbps: Range = (5.0, 100.0)
    rtt_ms: Range = (10.0, 200.0)
    buffer_bdp: Range = (0.25, 4.0)
    buffer_packets: Optional[Range] = None
    loss: Range = (0.0, 0.01)
    loss_probability: float = 0.5
    competitors: Range = (0, 2)
    competitors_probability: float = 0.5
    competitor_algorithms: Sequence[str] = ("cubic", "reno", "bbr")
    competitor_start_s: Range = (0.0, 2.0)
    traces: Sequence[Union[str, Path]] = ()
    trace_probability: float = 0.0
    duration_s: float = 60.0
    packet_size: int = 1460
    profile: Optional[str] = None
    _resolved: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, low, high in (("rate_mbps", 0.01, 1e5), ("rtt_ms", 0.1, 10_000.0), ("buffer_bdp", 0.01, 1000.0),
                                ("loss", 0.0, 0.5), ("competitor_start_s", 0.0, 1e6)):
            _check_range(name, getattr(self, name), low, high)
        _check_range("competitors", self.competitors, 0, 64, integer=True)
        if self.buffer_packets is not None:
            _check_range("buffer_packets", self.buffer_packets, 1, 1e7)
        for name in ("loss_probability", "competitors_probability", "trace_probability"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
                raise ScenarioError(f"{name}: {value!r} is not a probability in [0, 1]")
        if not (isinstance(self.duration_s, (int, float)) and 0.01 <= self.duration_s <= 1e5):
            raise ScenarioError(f"duration_s: {self.duration_s!r} is not a number of seconds in [0.01, 1e5]")
        algorithms = list(self.competitor_algorithms)
        if not algorithms or any(not isinstance(a, str) or a in ("agent", "python") for a in algorithms):
            raise ScenarioError(f"competitor_algorithms: {algorithms!r} is not a list of built-in algorithm names "
                                f"such as {list(COMPETITORS)}")
        if self.trace_probability > 0 and not self.traces:
            raise ScenarioError("traces: trace_probability is above 0 but no trace file is given")
        for trace in self.traces:
            if not Path(trace).is_file():
                raise ScenarioError(f"traces: {str(trace)!r} is not a file")
        if not (isinstance(self.packet_size, int) and 100 <= self.packet_size <= 9000):
            raise ScenarioError(f"packet_size: {self.packet_size!r} is not a payload in bytes from 100 to 9000")

    @classmethod
    def from_mapping(cls, values: Any) -> "ScenarioDistribution":
        """From a dict of the fields above (unknown keys are errors naming them)."""
        if isinstance(values, ScenarioDistribution):
            return values
        if not isinstance(values, dict):
            raise ScenarioError(f"scenarios: {values!r} is not a ScenarioDistribution, a dict of its fields or a scenario")
        known = {f.name for f in fields(cls) if not f.name.startswith("_")}
        for key in values:
            if key not in known:
                raise ScenarioError(f"scenarios.{key}: unknown field; known: {', '.join(sorted(known))}")
        return cls(**values)

    def sample(self, rng, agent_cc: dict) -> dict:
        """One scenario: a dumbbell whose first flow runs ``agent_cc`` (the agent), drawn
        with ``rng`` (a ``numpy.random.Generator``)."""
        rate = _draw(rng, self.rate_mbps, log=True)
        rtt = _draw(rng, self.rtt_ms)
        buffer_bdp = _draw(rng, self.buffer_bdp, log=True)
        loss = _draw(rng, self.loss) if rng.random() < self.loss_probability else 0.0
        count = int(round(_draw(rng, self.competitors))) if rng.random() < self.competitors_probability else 0
        access_ms = min(1.0, rtt / 8)
        one_way = rtt / 2 - 2 * access_ms
        wire = self.packet_size + 40
        buffer = max(2, int(round(buffer_bdp * rate * 1e6 * rtt / 1e3 / (8 * wire))))
        if self.buffer_packets is not None:
            buffer = max(1, int(round(_draw(rng, self.buffer_packets, log=True))))
        bottleneck: dict = {"rate": f"{rate:.6g}Mbps", "delay": f"{one_way:.6g}ms", "buffer": buffer}
        if loss > 0:
            bottleneck["loss"] = {"model": "bernoulli", "rate": round(loss, 9)}
        if self.traces and rng.random() < self.trace_probability:
            trace = self.traces[int(rng.integers(len(self.traces)))]
            bottleneck.pop("rate")
            bottleneck["rate_schedule"] = {"kind": "mahimahi", "file": str(Path(trace).resolve())}
        access = {"rate": f"{max(1000.0, 10 * rate):.6g}Mbps", "delay": f"{access_ms:.6g}ms"}
        flows = [{"group": "agent", "cc": agent_cc}]
        for k in range(count):
            algorithm = self.competitor_algorithms[int(rng.integers(len(self.competitor_algorithms)))]
            start = _draw(rng, self.competitor_start_s)
            flows.append({"group": f"competitor{k}", "cc": algorithm, "start": f"{start:.6g}s"})
        scenario = {
            "name": "gym",
            "duration": f"{self.duration_s:g}s",
            "seed": int(rng.integers(2**31)),
            "packet_size": f"{self.packet_size}B",
            "topology": {"kind": "dumbbell", "bottleneck": bottleneck, "source_access": access, "sink_access": access},
            "flows": flows,
        }
        if self.profile:
            scenario["profile"] = self.profile
        return scenario

    def resolve(self, scenario: dict) -> dict:
        """The scenario with its trace file read (kept, so a trace is read once)."""
        if "rate_schedule" not in scenario["topology"]["bottleneck"]:
            return scenario
        from cclab.traces import resolve_trace_files

        key = scenario["topology"]["bottleneck"]["rate_schedule"]["file"]
        if key not in self._resolved:
            probe = {"topology": {"kind": "dumbbell", "bottleneck": {"rate_schedule": {"kind": "mahimahi", "file": key}}}}
            resolve_trace_files(probe)
            self._resolved[key] = probe["topology"]["bottleneck"]["rate_schedule"]
        scenario["topology"]["bottleneck"]["rate_schedule"] = dict(self._resolved[key])
        return scenario


def _check_range(name: str, value: Any, low: float, high: float, integer: bool = False) -> None:
    values = [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    ok = isinstance(values, (list, tuple)) and len(values) in (1, 2) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and low <= v <= high
        for v in values)
    if ok and len(values) == 2 and values[0] > values[1]:
        ok = False
    if not ok:
        kind = "an integer" if integer else "a number"
        raise ScenarioError(f"{name}: {value!r} is not {kind} in [{low:g}, {high:g}] or a (low, high) pair of them")


def _draw(rng, value: Range, log: bool = False) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    low, high = (float(value[0]), float(value[-1]))
    if low == high:
        return low
    if log and low > 0:
        return float(math.exp(rng.uniform(math.log(low), math.log(high))))
    return float(rng.uniform(low, high))
