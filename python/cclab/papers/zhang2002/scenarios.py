"""Scenarios of Zhang & Tsaoussidis (2002), one builder per experiment.

The testbed (§4.1, Figure 1) is a dumbbell: every flow has its own source and sink,
source access links 5 ms, the bottleneck 25 ms, sink access links 5 ms, and in most
cases bw_src = bw_bottleneck = bw_dst. "Wireless" (heterogeneous) experiments put the
error model on the sink access links (10 Mb/s, §5.1). Packets are 1000 bytes, the
bottleneck buffer is one bandwidth-delay product (DropTail), connections last 100 s.

Every builder returns a plain scenario dict (the schema of ``cclab run``); the files in
``experiments/zhang2002/`` are these dicts at the paper's sizes (see
:func:`paper_scenarios`). Seeds are replications: flows start at a uniformly random
time in the first second of their step (the paper does not say how its flows were
phased; random phases keep identical flows from running in lockstep and make runs with
different seeds independent samples), and loss processes draw from the seed.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from cclab.core import schedule_windows as schedule_rule

# (α, β) of the paper's four TCP-friendly protocols (Eq. 3, §4.1), smoothest first.
SMOOTH = (0.31, 0.875)
SMOOTHER_THAN_STANDARD = (0.583, 0.75)
STANDARD = (1.0, 0.5)
RESPONSIVE = (1.25, 0.25)
PROTOCOLS = (SMOOTH, SMOOTHER_THAN_STANDARD, STANDARD, RESPONSIVE)

PACKET_SIZE = 1000
SOURCE_DELAY, BOTTLENECK_DELAY, SINK_DELAY = "5ms", "25ms", "5ms"
WIRELESS_RATE = "10Mbps"  # §5.1: "the 10Mbps wireless links"
START_SPREAD = "1s"  # flows of one step start uniformly at random within this time

# Number of active flows over time, §5.2 (the same [time, number] form as the
# engine's group field `schedule`).
INCREASING_FLOWS = (("0s", 12), ("15s", 25), ("20s", 50), ("25s", 100))
DECREASING_FLOWS = (("0s", 100), ("15s", 50), ("20s", 25), ("25s", 12))

# §5.1 handoffs: "every 5 seconds ... exponentially distributed, with a mean of 1 second".
HANDOFF_PERIOD_S = 5.0
HANDOFF_MEAN_OUTAGE_S = 1.0

# §4.1 / §5.3: a playback application of 1 Mb/s over each TCP flow.
PLAYBACK_RATE = "1Mbps"


def protocol_label(protocol: tuple[float, float]) -> str:
    """``TCP(0.31, 0.875)``: the paper's name for TCP(α, β)."""
    alpha, beta = protocol
    return f"TCP({alpha:g}, {beta:g})"


def aimd(protocol: tuple[float, float]) -> dict:
    """The congestion control of TCP(α, β), with the engine's ns-2-style decrease (the
    paper's runs are ns-2's): β on fast retransmit, ½ on the first cut and on timeouts."""
    alpha, beta = protocol
    return {"algorithm": "aimd", "alpha": alpha, "beta": beta}


def link(rate: str, delay: str, **extra) -> dict:
    return {"rate": rate, "delay": delay, **extra}


def dumbbell(bottleneck: str, *, sink_rate: Optional[str] = None, sink_loss: Optional[dict] = None) -> dict:
    """Figure 1: source access 5 ms, bottleneck 25 ms with a one-BDP DropTail buffer,
    sink access 5 ms. Access links run at the bottleneck rate unless ``sink_rate`` makes
    the sink links a (wireless) link of their own; ``sink_loss`` is its error model."""
    sink = link(sink_rate or bottleneck, SINK_DELAY)
    if sink_loss is not None:
        sink["loss"] = sink_loss
    return {
        "kind": "dumbbell",
        "bottleneck": link(bottleneck, BOTTLENECK_DELAY, queue="droptail", buffer="1bdp"),
        "source_access": link(bottleneck, SOURCE_DELAY),
        "sink_access": sink,
    }


def bernoulli(per: float) -> Optional[dict]:
    """ns-2's Bernoulli error model with packet error rate ``per`` (None for PER 0)."""
    return {"model": "bernoulli", "rate": per} if per > 0 else None


def handoff(period_s: float = HANDOFF_PERIOD_S, mean_outage_s: float = HANDOFF_MEAN_OUTAGE_S) -> dict:
    return {"model": "handoff", "period": f"{period_s:g}s", "mean_outage": f"{mean_outage_s:g}s"}


def flow_group(protocol: tuple[float, float], count: int, *, group: Optional[str] = None, at: str = "0s",
               stop: Optional[str] = None, app: Optional[dict] = None) -> dict:
    """``count`` TCP(α, β) flows starting uniformly at random in [at, at + 1 s)."""
    flows = {
        "group": group or protocol_label(protocol),
        "count": count,
        "cc": aimd(protocol),
        "start": {"at": at, "random": START_SPREAD},
    }
    if stop is not None:
        flows["stop"] = stop
    if app is not None:
        flows["app"] = app
    return flows


def scenario(name: str, topology: dict, flows: list[dict], duration_s: float, seed: int, **extra) -> dict:
    return {"name": name, "duration": f"{duration_s:g}s", "seed": seed, "packet_size": f"{PACKET_SIZE}B",
            **extra, "topology": topology, "flows": flows}


# ---------------------------------------------------------------- §5.1 static
def wired(protocol, flows: int, bottleneck: str, duration_s: float = 100, seed: int = 1) -> dict:
    """Figures 2 and 3: ``flows`` TCP(α, β) flows on a wired dumbbell."""
    return scenario(f"zhang2002 wired {protocol_label(protocol)} N={flows} {bottleneck}",
                    dumbbell(bottleneck), [flow_group(protocol, flows)], duration_s, seed)


def wireless(protocol, per: float, flows: int = 100, duration_s: float = 100, seed: int = 1,
             app: Optional[dict] = None) -> dict:
    """Figures 4 and 8: 100 flows, 100 Mb/s bottleneck, 10 Mb/s wireless sink links with
    Bernoulli packet errors at rate ``per``. ``app``: the application of every flow
    (Figure 8: a 1 Mb/s CBR source; the bottleneck is then 1 Mb/s × N, §4.1)."""
    bottleneck = f"{flows}Mbps" if app is not None else "100Mbps"
    experiment = "playback" if app is not None else "wireless"
    return scenario(f"zhang2002 {experiment} {protocol_label(protocol)} PER={per:g}",
                    dumbbell(bottleneck, sink_rate=WIRELESS_RATE, sink_loss=bernoulli(per)),
                    [flow_group(protocol, flows, app=app)], duration_s, seed)


def playback(protocol, per: float, flows: int = 100, duration_s: float = 100, seed: int = 1) -> dict:
    """Figure 8 (§5.3): Figure 4's network with a 1 Mb/s CBR application on every flow."""
    return wireless(protocol, per, flows, duration_s, seed, app={"kind": "cbr", "rate": PLAYBACK_RATE})


def handoffs(protocol, duration_s: float = 100, seed: int = 1, bin_width_s: float = 0.1) -> dict:
    """Figure 5: one flow through a 10 Mb/s wireless sink link that is down from every
    5 s for an exponentially distributed time (mean 1 s). Bins are ``bin_width_s`` so
    the recovery after each outage can be timed; the figure sums them to 1 s."""
    return scenario(f"zhang2002 handoff {protocol_label(protocol)}",
                    dumbbell("100Mbps", sink_rate=WIRELESS_RATE, sink_loss=handoff()),
                    [flow_group(protocol, 1)], duration_s, seed, bin_width=f"{bin_width_s:g}s")


# ---------------------------------------------------------------- §5.2 dynamic
@dataclass(frozen=True)
class FlowWindow:
    """Flows ``first`` … ``last - 1`` of a schedule run from ``start`` until ``stop``."""

    first: int
    last: int
    start: str
    stop: Optional[str]

    @property
    def count(self) -> int:
        return self.last - self.first


def schedule_windows(schedule: Sequence[tuple[str, int]]) -> list[FlowWindow]:
    """When each flow of a schedule runs, flows with the same window merged.

    The engine's `schedule` rule (asked of the engine itself): flow i is active from the
    first step whose number of flows exceeds i until the first later step whose number
    is i or less.
    """
    if not schedule:
        raise ValueError("a schedule needs at least one [time, number] step")
    windows: list[FlowWindow] = []
    for flow, (start_s, stop_s) in enumerate(schedule_rule(schedule)):
        start, stop = f"{start_s:g}s", (None if stop_s is None else f"{stop_s:g}s")
        if windows and (windows[-1].start, windows[-1].stop) == (start, stop):
            windows[-1] = FlowWindow(windows[-1].first, flow + 1, start, stop)
        else:
            windows.append(FlowWindow(flow, flow + 1, start, stop))
    return windows


def population(protocol, schedule: Sequence[tuple[str, int]]) -> list[dict]:
    """The ``[[flows]]`` groups of a changing population: one group per window of
    :func:`schedule_windows`, each flow starting at random in the first second of its
    step (the engine's `schedule` field starts them all at the step time exactly)."""
    label = protocol_label(protocol)
    return [flow_group(protocol, window.count, group=f"{label} #{window.first}-{window.last - 1}",
                       at=window.start, stop=window.stop)
            for window in schedule_windows(schedule)]


def dynamic(protocol, schedule: Sequence[tuple[str, int]], bottleneck: str = "100Mbps",
            duration_s: float = 100, seed: int = 1) -> dict:
    """Figures 6 and 7: TCP(α, β) flows on a wired dumbbell, their number following
    ``schedule`` (:data:`INCREASING_FLOWS`, :data:`DECREASING_FLOWS`)."""
    shape = "increasing" if schedule[-1][1] > schedule[0][1] else "decreasing"
    return scenario(f"zhang2002 {shape} N {protocol_label(protocol)} {bottleneck}",
                    dumbbell(bottleneck), population(protocol, schedule), duration_s, seed)


# ---------------------------------------------------------------- §5.4 friendliness
def friendliness(protocol, flows: int, bottleneck: str = "10Mbps", duration_s: float = 100, seed: int = 1) -> dict:
    """Figures 9–11: ``flows`` flows, half TCP(α, β), half standard TCP(1, 0.5)."""
    return scenario(f"zhang2002 friendliness {protocol_label(protocol)} vs TCP(1, 0.5) N={flows} {bottleneck}",
                    dumbbell(bottleneck),
                    [flow_group(protocol, flows // 2), flow_group(STANDARD, flows - flows // 2)],
                    duration_s, seed)


# ---------------------------------------------------------------- experiments/zhang2002/*.toml
def paper_scenarios() -> dict[str, tuple[str, dict]]:
    """One scenario per figure at the paper's sizes, as in ``experiments/zhang2002/``:
    file stem → (what the figure varies and which line to change, scenario)."""
    return {
        "fig02_wired_10mbps": (
            "Figure 2 (§5.1): N flows of one protocol, 10 Mb/s wired dumbbell. The figure varies flows[0].count "
            "(10..100) and flows[0].cc (the four protocols).",
            wired(SMOOTH, 50, "10Mbps")),
        "fig03_wired_100mbps": (
            "Figure 3 (§5.1): as Figure 2 on a 100 Mb/s bottleneck.",
            wired(SMOOTH, 50, "100Mbps")),
        "fig04_wireless": (
            "Figure 4 (§5.1): 100 flows, 100 Mb/s bottleneck, 10 Mb/s wireless sink links with Bernoulli packet "
            "errors. The figure varies topology.sink_access.loss.rate (0..0.05) and flows[0].cc.",
            wireless(SMOOTH, 0.02)),
        "fig05_handoff": (
            "Figure 5 (§5.1): one flow; the 10 Mb/s wireless link goes down every 5 s for an exponential time "
            "(mean 1 s). The figure shows each protocol (flows[0].cc).",
            handoffs(SMOOTH)),
        "fig06_increasing_flows": (
            "Figure 6 (§5.2): N = 12, 25, 50, 100 from 0, 15, 20, 25 s on a 100 Mb/s dumbbell (one [[flows]] table "
            "per arrival step). The figure shows each protocol (every flows[i].cc).",
            dynamic(SMOOTH, INCREASING_FLOWS)),
        "fig07_decreasing_flows": (
            "Figure 7 (§5.2): N = 100, 50, 25, 12 from 0, 15, 20, 25 s (one [[flows]] table per departure step).",
            dynamic(SMOOTH, DECREASING_FLOWS)),
        "fig08_playback": (
            "Figure 8 (§5.3): 100 flows each carrying a 1 Mb/s CBR application, bottleneck 1 Mb/s x N, 10 Mb/s "
            "wireless sink links. The figure varies topology.sink_access.loss.rate (0..0.4) and flows[0].cc.",
            playback(SMOOTH, 0.1)),
        "fig09_friendliness_smooth": (
            "Figure 9 (§5.4): half the flows TCP(0.31, 0.875), half TCP(1, 0.5), 10 Mb/s. The figure varies the "
            "two counts together (N = 10..100).",
            friendliness(SMOOTH, 50)),
        "fig10_friendliness_intermediate": (
            "Figure 10 (§5.4): half TCP(0.583, 0.75), half TCP(1, 0.5), 10 Mb/s.",
            friendliness(SMOOTHER_THAN_STANDARD, 50)),
        "fig11_friendliness_responsive": (
            "Figure 11 (§5.4): half TCP(1.25, 0.25), half TCP(1, 0.5), 10 Mb/s.",
            friendliness(RESPONSIVE, 50)),
    }


def scenario_file_text(description: str, scenario_dict: dict) -> str:
    """A scenario file: a comment header, then the scenario as TOML with every link,
    congestion control and start time on one line (so one line changes one thing)."""
    import textwrap

    header = textwrap.fill(description, 88, initial_indent="# ", subsequent_indent="# ")
    lines = [header, "# Zhang & Tsaoussidis (2002); generated by cclab.papers.zhang2002.scenarios.write_scenario_files.",
             "# Run: cclab run <this file>    All figures: cclab reproduce zhang2002", ""]
    lines += [f"{key} = {_toml_value(value)}" for key, value in scenario_dict.items()
              if key not in ("topology", "flows")]
    lines += ["", "[topology]"] + [f"{key} = {_toml_value(value)}" for key, value in scenario_dict["topology"].items()]
    for group in scenario_dict["flows"]:
        lines += ["", "[[flows]]"] + [f"{key} = {_toml_value(value)}" for key, value in group.items()]
    return "\n".join(lines) + "\n"


def _toml_value(value) -> str:
    """A TOML value, tables inline."""
    import json

    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {_toml_value(item)}" for key, item in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False)


def write_scenario_files(directory) -> list:
    """Write :func:`paper_scenarios` as ``<directory>/<stem>.toml``."""
    from pathlib import Path

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem, (description, scenario_dict) in paper_scenarios().items():
        path = directory / f"{stem}.toml"
        path.write_text(scenario_file_text(description, scenario_dict), encoding="utf-8")
        paths.append(path)
    return paths
