"""Run a scenario in ns-2.35 and read it back as a :class:`cclab.Result`.

The result has cclab's shape (``flows``, ``groups``, ``links``, ``system``, per-bin
delivered bytes and bottleneck counters), so every table, metric and paper claim that
reads a cclab run reads the ns-2 run of the same scenario. What ns-2 does not count the
same way is left out (None) rather than guessed: events, RTT means, per-flow fast
recoveries, queueing delays. Its ``raw["simulator"]`` is ``"ns-2.35"``.

Goodput counts what the sink delivered in order: a TCP sink's ``bytes_`` (headers and the
SYN included, taken off here), a UDP LossMonitor's packets, a TFRC sink's bytes.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from collections.abc import Sequence
from typing import Any, Optional

from cclab.core import duration_s, jain_index, rate_bps
from cclab.errors import Ns2Error
from cclab.ns2.translate import Script, translate
from cclab.results import Result
from cclab.scenario import group_name

SIMULATOR = "ns-2.35"


def ns_binary() -> str:
    """The ``ns`` executable (``$CCLAB_NS`` or ``ns`` on the PATH), or an :class:`Ns2Error`."""
    name = os.environ.get("CCLAB_NS", "ns")
    path = shutil.which(name)
    if path is None:
        raise Ns2Error(f"ns-2.35 is not installed ({name!r} is not on the PATH): install it with "
                       "`apt-get install ns2`, or point CCLAB_NS at it")
    return path


def run_script(text: str, timeout_s: Optional[float] = None,
               files: Sequence[str] = ()) -> tuple[dict, float, dict[str, str]]:
    """Run an ns-2 script that prints one line of JSON; return it, the wall time and the
    text of the ``files`` it wrote (in its own scratch directory)."""
    binary = ns_binary()
    with tempfile.TemporaryDirectory(prefix="cclab-ns2-") as scratch:
        path = Path(scratch) / "scenario.tcl"
        path.write_text(text, encoding="utf-8")
        started = time.perf_counter()
        try:
            done = subprocess.run([binary, str(path)], capture_output=True, text=True, timeout=timeout_s, cwd=scratch)
        except subprocess.TimeoutExpired:
            raise Ns2Error(f"ns-2 did not finish within {timeout_s:g} s") from None
        wall = time.perf_counter() - started
        written = {name: (Path(scratch) / name).read_text(encoding="utf-8") for name in files
                   if (Path(scratch) / name).is_file()}
    # The JSON is the script's last line, but C stdio lines (UCLA's agent prints one per
    # agent) reach a pipe only when ns exits, after it.
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        why = next((line.strip() for line in done.stderr.splitlines() if line.strip()), "no output")
        raise Ns2Error(f"ns-2 failed (exit {done.returncode}): {why}")
    return json.loads(lines[-1]), wall, written


def run(scenario: dict, timeout_s: Optional[float] = None):
    """Run the normalised ``scenario`` in ns-2.35; a :class:`cclab.Result` of cclab's shape."""
    script = translate(scenario)
    output, wall, files = run_script(script.text, timeout_s, list(script.trace_files.values()))
    return Result(to_raw(script, output, wall, files))


def to_raw(script: Script, output: dict, wall_time_s: float, files: Optional[dict[str, str]] = None) -> dict[str, Any]:
    """ns-2's counters (the script's JSON line) and trace files as a cclab result document."""
    scenario = script.scenario
    duration = duration_s(scenario["duration"])
    mbps = lambda packets, flow: packets * flow["payload_bytes"] * 8 / duration / 1e6  # noqa: E731
    groups_by_name = {group_name(g, i): g for i, g in enumerate(scenario["flows"])}

    def packets(flow: dict, counter: float) -> int:
        """Data packets in a delivered counter (bytes for TCP and TFRC, packets for UDP)."""
        if flow["transport"] == "udp":
            return int(counter)
        if flow["transport"] == "tcp" and counter >= flow["syn_bytes"]:
            counter -= flow["syn_bytes"]
        return int(counter // flow["wire_bytes"])

    flows = []
    for flow, measured, route in zip(script.flows, output["flows"], script.topology["flows"]):
        delivered = packets(flow, measured["delivered"])
        sent = int(measured.get("sent", 0))
        if flow["transport"] == "tcp" and flow["syn_bytes"] and sent > 0:
            sent -= 1  # ndatapack_ counts the SYN; cclab's data_packets_sent does not
        row = {
            "id": flow["id"], "group": flow["group"], "transport": flow["transport"], "cc": flow["cc"],
            "goodput_mbps": mbps(delivered, flow), "throughput_mbps": mbps(sent, flow), "retransmitted_packets": None,
            "timeouts": None, "fast_recoveries": None, "data_packets_sent": sent, "delivered_packets": delivered,
            "start_s": flow["start_s"], "stop_s": flow["stop_s"],
            "base_rtt_ms": duration_s(route["base_rtt"]) * 1e3, "mean_rtt_ms": None, "mean_rto_ms": None,
            "ecn_reactions": None, "cc_state": {}, "lost_packets": None, "mean_delay_ms": None,
        }
        if flow["transport"] == "tcp":
            row.update(retransmitted_packets=int(measured["retransmitted"]), timeouts=int(measured["timeouts"]),
                       ecn_reactions=int(measured["ecn"]), cc_state={"cwnd_cuts": float(measured["cuts"])})
        elif flow["transport"] == "udp":
            row["lost_packets"] = int(measured["lost"])
        flows.append(row)

    groups = []
    for name, group in groups_by_name.items():
        members = [f for f in flows if f["group"] == name]
        label = next((f["cc"] for f in script.flows if f["group"] == name), None)
        groups.append({"name": name, "transport": group.get("transport", "tcp"), "cc": label,
                       "flows": len(members), "goodput_mbps": sum(f["goodput_mbps"] for f in members),
                       "throughput_mbps": sum(f["throughput_mbps"] for f in members)})

    links = []
    for link, measured in zip(script.topology["links"], output["links"]):
        rate = rate_bps(link["rate"])
        capacity_bits = _capacity_bits(rate, link.get("rate_schedule"), duration)
        links.append({
            "name": link["name"], "from": link["from"], "to": link["to"], "rate_mbps": rate / 1e6,
            "delay_ms": duration_s(link["delay"]) * 1e3, "buffer_packets": link["buffer_packets"],
            # the loss model sits before the queue monitor: its packets arrived at the link too
            "arrivals": measured["arrivals"] + measured["loss_drops"], "departures": measured["departures"],
            "queue_drops": measured["drops"], "loss_drops": measured["loss_drops"], "ecn_marks": measured["marks"],
            "aqm_drops": None,
            "utilization": measured["departed_bytes"] * 8 / capacity_bits if capacity_bits else None,
            "mean_queue_delay_ms": None,
        })
    bottleneck = next(link for link in links if link["name"] == script.topology["bottleneck"])
    goodputs = [f["goodput_mbps"] for f in flows]

    # Cumulative counters at each bin's end → per-bin counts.
    samples = output["samples"]
    n = len(script.flows)
    previous = [0] * (n + 4)
    delivered_bins: list[list[int]] = [[] for _ in range(n)]
    arrivals, drops, sent_bytes = [], [], []
    for row in samples:
        for i, flow in enumerate(script.flows):
            now, before = packets(flow, row[i]), packets(flow, previous[i])
            delivered_bins[i].append((now - before) * flow["payload_bytes"])
        arrivals.append(row[n] + row[n + 2] - previous[n] - previous[n + 2])
        drops.append(row[n + 1] + row[n + 2] - previous[n + 1] - previous[n + 2])
        sent_bytes.append(row[n + 3] - previous[n + 3])
        previous = row

    return {
        "simulator": SIMULATOR,
        "version": None,
        "warnings": [f"ns-2: {note}" for note in script.notes],
        "duration_s": duration,
        "events": None,
        "data_packets_sent": sum(f["data_packets_sent"] for f in flows),
        "wall_time_s": wall_time_s,
        "system": {
            "goodput_mbps": sum(goodputs),
            "throughput_mbps": sum(f["throughput_mbps"] for f in flows),
            "jain_index": jain_index(goodputs),
            "bottleneck_utilization": bottleneck["utilization"],
            "bottleneck_drops": bottleneck["queue_drops"],
            "loss_model_drops": sum(link["loss_drops"] for link in links),
            "bottleneck_ecn_marks": bottleneck["ecn_marks"],
            "bottleneck_red_drops": None,
            "bottleneck_aqm_drops": None,
            "mean_queue_delay_ms": None,
            "bottleneck_link": bottleneck["name"],
        },
        "groups": groups,
        "links": links,
        "bins": {"width_s": script.bin_width_s, "delivered_bytes": delivered_bins, "bottleneck_arrivals": arrivals,
                 "bottleneck_drops": drops, "bottleneck_transmitted_bytes": sent_bytes},
        "flows": flows,
        "conservation": None,
        "traces": _traces(script, files or {}),
        "scenario": scenario,
    }


def _traces(script: Script, files: dict[str, str]) -> Optional[dict[str, Any]]:
    """Flow traces from ns-2's variable traces: a row at every change of cwnd_ or
    ssthresh_, with both values in force then (cclab's rows come at every ACK; ns-2
    records no SRTT here), and for UCLA's agent every sample of its estimate (``cc_ere_pps``,
    segments/s) and of its smallest RTT (``cc_rtt_min_s``, s; the ssthresh rule's RTTmin)."""
    if not script.trace_files:
        return None
    flows = []
    for flow_id, name in script.trace_files.items():
        rows: dict[str, list] = {"t_s": [], "event": [], "cwnd": [], "ssthresh": [], "cc_ere_pps": [], "cc_rtt_min_s": []}
        current = {"cwnd_": float("nan"), "ssthresh_": float("nan"), "ere_": float("nan"), "rtt_min_": float("nan")}
        for line in files.get(name, "").splitlines():
            fields = line.split()
            if len(fields) < 7 or fields[5] not in current:
                continue
            current[fields[5]] = float(fields[6])
            rows["t_s"].append(float(fields[0]))
            rows["event"].append("sample" if fields[5] in ("ere_", "rtt_min_") else "change")
            rows["cwnd"].append(current["cwnd_"])
            rows["ssthresh"].append(current["ssthresh_"])
            rows["cc_ere_pps"].append(current["ere_"])
            rows["cc_rtt_min_s"].append(current["rtt_min_"])
        if all(math.isnan(value) for value in rows["cc_ere_pps"]):
            del rows["cc_ere_pps"], rows["cc_rtt_min_s"]  # no estimate sampled: not a UCLA agent
        flows.append({"id": flow_id, **rows})
    return {"flows": flows, "bottleneck_queue": None}


def _capacity_bits(rate: int, schedule: Optional[dict], duration: float) -> float:
    if not schedule:
        return rate * duration
    low, period = rate_bps(schedule["low"]), duration_s(schedule["period"])
    start = min(duration_s(schedule.get("start", 0)), duration)
    bits, t, phase = rate * start, start, 0
    while t < duration:
        span = min(period, duration - t)
        bits += (rate if phase % 2 == 0 else low) * span
        t, phase = t + period, phase + 1
    return bits
