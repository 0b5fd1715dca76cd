#!/usr/bin/env python3
"""cclab against the Linux kernel's TCP over Mahimahi: the recorded reference set, case by case.

    .venv/bin/python bench/linux/compare.py [--profile linux|rfc|ns2] [--seeds 3] [--only REGEX]
        [--quick] [--reference bench/linux/reference.json] [--jobs 2] [--json OUT]
        [--markdown OUT ...]

For every case of the kernel reference (``reference.json``, recorded by ``record.py``; its
README says what each field is) that has at least one run, cclab runs the same case
``--seeds`` times (seeds 1..N, to set beside the kernel's runs) and the two are compared
on the numbers the kernel record holds, computed the same way:

- goodput: each flow's payload bytes received over the flow's duration (Mb/s), the
  receiver counting, as iperf3's does, what the sender sent until the end and what was
  still on its way then (cclab's senders stop at the end and the run goes on DRAIN_S);
  the case's goodput is the flows' sum, and in a mix each flow's share of it;
- retransmissions: segments each sender sent again (the kernel's ``tcpi_total_retrans``;
  cclab's ``retransmitted_packets``), summed over the flows;
- queueing delay on the uplink (the data direction), as mm-link logs it: a packet's
  departure tick minus its arrival millisecond, at least 1 ms; the mean over the packets
  that went through in the window (cclab counts exactly that on a trace link: of the
  packets arriving in [0, T)) and its 95th percentile (nearest rank; cclab's from the
  uplink's own histogram of those delays, ``trace.queue_delay_histogram``);
- drops at the uplink's queue, its utilisation (bytes delivered, 4 per packet counted as
  mm-link counts them, over the opportunities' 1504 bytes each), the ACK path's packets,
  in the window.

The link is Mahimahi's, to the letter: ``mm-delay D mm-link UP DOWN`` with droptail
queues of B packets (waiting packets, the one in delivery not counted) both ways is a
path sender–r1–r2–receiver whose two hosts, shared by every flow as the kernel's clients
share one shell and its servers one mm-delay, reach the bottleneck over fast, zero-delay
links; its bottleneck delivers by the same trace files (a constant rate R is R/12 lines of
``1``, written as harness.py writes them) in both directions, with zero delay, and the
one-way delay D is on the receiver's link: the data meets the link's queue and then the
delay, the ACKs the delay and then the queue, as inside Mahimahi (``--delay-at bottleneck``
puts D on the bottleneck instead; with a 1-ms trace period the two are the same).
Packets are 1448 B of payload + 52 B of headers (1500 B), ACKs 52 B; a UDP flow sends
1472-byte datagrams (1500-byte packets) at the rate iperf3 was given (payload bits).
A trace case's run k starts as far into the trace as the kernel's run k did. iperf3's control
connection puts two small packets into the uplink queue with each flow's first flight
(CONTROL_PACKETS): cclab sends two from a UDP source of its own just before each flow's first
data segment (``--no-control-packets`` leaves them out). iperf3 sends its first data five round
trips after its client starts, cclab after one: each flow starts the difference later
(``iperf3.py``; ``--no-iperf3-start``), so that on a varying trace its slow start meets
the trace where the kernel's did; where the kernel run noted when its first data arrived
(``first_full_arrival_ms``, runs recorded from 2026-11-27 on), that time decides instead.

Judged, as issue 37 asks, on the means over cclab's seeds and over the kernel's runs:
goodput within 5 %; mean queueing delay within 15 % or 3 ms; retransmissions within 30 %
or 25 packets; in a mix, each flow's share of the goodput within 0.06. The summary also judges
single runs like for like (each kernel run against the mean of its other runs, cclab's seed k
against the mean of the same runs but run k): how far the kernel's own repetitions reach. Prints a Markdown
table (the kernel's mean with its range over runs, cclab's with its range over seeds), the
cases that miss a criterion by the most, and a summary line; ``--json OUT`` writes it all,
``--markdown OUT`` writes the table into OUT (between the ``<!-- linux-compare:table -->``
markers if OUT has them, or the compact table between ``<!-- linux-compare:compact -->``
markers; a new file gets the full table; with another ``--reference``, e.g.
bench/linux/holdout.json, between ``<!-- linux-compare:holdout:table -->`` markers).
``--quick``: a handful of representative cases,
one seed (cclab runs a 30-s case in well under a second, so durations stay whole).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Optional

# The report's tables, kept beside this script (MARKERS, markers, write_markdown re-exported: the
# tests reach them as compare's).
from compare_tables import (CRITERIA, CRITERION_LABEL, MARKERS, git_commit, markers, markdown_table, number,  # noqa: F401
                            write_markdown)
# A constant rate's trace lines as the kernel side writes them, and its percentile rule.
from harness import percentile, rate_trace_lines  # noqa: F401
# iperf3's start and control packets, and the verdicts (the tests reach these as compare's too).
from iperf3 import (CONTROL_PACKETS, IPERF3_BUSY_START_S, IPERF3_PROCESS_START_S, control_flows,  # noqa: F401
                    first_data_arrivals, kernel_first_data, kernel_late_syns, start_as_iperf3)
from verdicts import judge, overlaps_kernel_runs, single_runs_meeting, summarise, summary, worst  # noqa: F401

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_REFERENCE = HERE / "reference.json"
# Mahimahi's release lag on the reference machine: data at the receiver, ACKs at the sender
# (per-millisecond series measured with pcaps beside the reference runs: bench/linux/diag).
LAG_DATA = HERE / "lag" / "data.txt"
LAG_ACK = HERE / "lag" / "ack.txt"
# Mahimahi's event loops as measured on the reference machine (bench/linux/diag/FINDINGS.md,
# 'The lag is the loops'): each timer wake 120 µs past its whole milliseconds, and in 3 % of
# milliseconds a stall of 600 µs on average.
EMULATOR = {"overshoot": "120us", "stall_probability": 0.03, "stall_mean": "600us"}
TIMINGS = ("loop", "lag", "exact")
SCHEMA = "cclab-linux-reference/1"
PROFILES = ("linux", "rfc", "ns2")

PAYLOAD_BYTES = 1448          # Linux's MSS with timestamps on a 1500-byte MTU
HEADER_BYTES = 52             # IP 20 + TCP 20 + timestamps 12
TIMESTAMP_BYTES = 12          # a flow given its own MSS (iperf3 -M M) carries M − 12 bytes
ACK_BYTES = 52
UDP_PAYLOAD_BYTES = 1472      # iperf3 -l 1472: 1500-byte IP packets
UDP_HEADER_BYTES = 28
WIRE_BYTES = 1500
OPPORTUNITY_BYTES = 1504      # one mm-link delivery opportunity
TUN_BYTES = 4                 # what mm-link counts per packet on top of the IP packet
ACCESS_RATE = "100Gbps"       # the sender's and receiver's links: 0.12 µs per packet
SENDER, RECEIVER = "sender", "receiver"   # the hosts every flow runs between
ACCESS_BUFFER = 10000
# After the case's duration the senders stop (iperf3 -t) and what they sent drains (the
# deepest queue, 3200 packets at 96 Mb/s, in 0.4 s): iperf3's receiver counts it.
DRAIN_S = 2.0
# The uplink's queueing delays are binned by the millisecond: on a trace link each is
# counted as mm-link logs it, a whole number of them.
QUEUE_DELAY_BIN = "1ms"

# --quick (and tests/test_linux_reference.py): one of each kind of case.
QUICK_CASES = ("tcp_r12_d20_b1bdp_cubic", "tcp_r48_d10_b2bdp_bbr", "tcp_r96_d20_b0.5bdp_reno",
               "tcp_r48_d20_b1bdp_bbr+cubic", "tcp_r12_d10_b5bdp_cubic+reno", "udp_r12_d20_b1bdp_x1.5",
               "trace_markov1_d20_b1bdp_cubic")


# ----------------------------------------------------------------------------- reference

def load_reference(path: Path) -> dict:
    """The kernel reference (schema cclab-linux-reference/1)."""
    data = json.loads(Path(path).read_text())
    if data.get("schema") != SCHEMA:
        raise SystemExit(f"{path}: schema {data.get('schema')!r}, expected {SCHEMA!r}")
    return data


def runs_by_case(reference: dict) -> dict[str, list[dict]]:
    """Each case's finished runs, by run number."""
    out: dict[str, list[dict]] = {}
    for run in reference.get("runs", []):
        out.setdefault(run["case"], []).append(run)
    for runs in out.values():
        runs.sort(key=lambda run: run.get("run", 0))
    return out


def select_cases(reference: dict, only: Optional[str] = None, names: Optional[Iterable[str]] = None) -> list[str]:
    """The reference's cases that have a run, in the reference's order, narrowed by ``names``
    and the regular expression ``only``."""
    recorded = runs_by_case(reference)
    chosen = [name for name in reference["cases"] if recorded.get(name)]
    if names is not None:
        wanted = set(names)
        chosen = [name for name in chosen if name in wanted]
    if only:
        pattern = re.compile(only)
        chosen = [name for name in chosen if pattern.search(name)]
    return chosen


# ----------------------------------------------------------------------------- traces

def read_trace(path: Path) -> list[int]:
    return [int(line) for line in Path(path).read_text().split()]


def rotate_trace(lines: list[int], offset_ms: int, duration_ms: Optional[int] = None) -> list[int]:
    """The trace as seen from ``offset_ms`` into it: an opportunity at ms v falls at
    v − offset (mod the period P). A file's period is its last line, which the rotation
    may leave short of P: for a run of ``duration_ms`` ≤ P, a last line at P is added
    (an opportunity at the run's end at the latest, where it cannot carry anything the run
    counts); for a longer run or none given, two periods are written, so that the run
    sees exactly the original, shifted, for at least one period."""
    period = lines[-1]
    offset = offset_ms % period
    if offset == 0:
        return list(lines)
    first = sorted((v - offset - 1) % period + 1 for v in lines)
    if first[-1] == period:
        return first
    if duration_ms is not None and duration_ms <= period:
        return first + [period]
    return first + [v + period for v in first]


class TraceFiles:
    """Trace files written for the runs, in ``folder`` (one file per content)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def write(self, stem: str, lines: list[int]) -> Path:
        text = "".join(f"{ms}\n" for ms in lines)
        path = self.folder / f"{stem}-{hashlib.sha1(text.encode()).hexdigest()[:10]}.trace"
        if not path.exists():
            path.write_text(text)
        return path

    def rate(self, rate_mbps: float) -> Path:
        return self.write(f"rate{rate_mbps:g}", rate_trace_lines(rate_mbps))

    def rotated(self, source: Path, offset_ms: int, duration_ms: Optional[int] = None) -> Path:
        lines = read_trace(source)
        if offset_ms % lines[-1] == 0:
            return Path(source)
        return self.write(f"{Path(source).stem}-at{offset_ms}", rotate_trace(lines, offset_ms, duration_ms))


def resolve_trace(link: dict, reference_path: Path) -> Path:
    """A trace case's file: the path the reference names, from this repository or from the
    one holding the reference; its SHA-1 must be the one recorded."""
    relative = Path(link["trace"])
    candidates = [REPO / relative, Path(reference_path).resolve().parent.parent.parent / relative, relative]
    for path in candidates:
        if path.is_file():
            digest = hashlib.sha1(path.read_bytes()).hexdigest()[:12]
            if link.get("trace_sha1") and digest != link["trace_sha1"]:
                raise SystemExit(f"{path}: SHA-1 {digest}, but the reference was recorded over {link['trace_sha1']}")
            return path
    raise SystemExit(f"trace {relative} not found (looked in {', '.join(str(p.parent) for p in candidates[:2])})")


def trace_offset(run: Optional[dict]) -> int:
    """How far into its trace (ms) a kernel run's flows started: the window's start in the
    log minus the time mm-link started its trace (0 without a run)."""
    uplink = (run or {}).get("uplink", {})
    t0, base = uplink.get("t0_log_ms"), uplink.get("base_timestamp_ms")
    return int(round(t0 - base)) if t0 is not None and base is not None else 0


# ----------------------------------------------------------------------------- scenario

def scenario(case: dict, seed: int, profile: str, up_trace: Path, down_trace: Optional[Path] = None, *,
             name: str = "", access_rate: str = ACCESS_RATE, delay_at: str = "receiver",
             max_window: Optional[int] = None, pacing: bool = True,
             emulator: Optional[dict] = EMULATOR, lag: Optional[tuple[Path, Path]] = None) -> dict:
    """The cclab scenario of one reference case: every flow from one sender host to one
    receiver host, as the kernel's (its iperf3 clients share the Mahimahi shell and its one
    TUN, its servers the one mm-delay behind it), over a path SENDER–r1–r2–RECEIVER whose
    bottleneck r1–r2 delivers by ``up_trace`` (data) and ``down_trace`` (ACKs; default the
    same) with droptail queues of the case's B packets each way, zero-delay host links of
    ``access_rate``, and the one-way delay D on the receiver's link (``delay_at="receiver"``:
    Mahimahi's order, data queue then delay, ACK delay then queue) or on the bottleneck.
    Sharing the hosts' links matters in mixes: a tick's ACKs reach the senders in the order
    the receiver sent them, and what they release leaves in that order (with a link per
    flow, ties went to the first flow, and to the shorter packets; FINDINGS.md, "One host
    for all flows"). As iperf3
    does, the senders stop at the case's duration T and what they sent is delivered after
    it: the run lasts DRAIN_S more. ``max_window``: each TCP flow's window cap (segments).
    ``pacing`` (linux profile): every flow paced, as the reference's are (iperf3 sets its
    algorithm after connecting under the default BBR, which leaves the socket paced:
    bench/linux/diag). Mahimahi's timing: ``emulator``, packets released as its event loops
    release them (mm-link's on the bottleneck, mm-delay's on the receiver's link),
    with these parameters (``overshoot``, ``stall_probability``, ``stall_mean``: the
    ``emulator`` of docs/guide/trace-links.md); or, with ``emulator=None``, ``lag``: a
    release lag replayed from (data, ACKs) series measured on the reference machine
    (bench/linux/lag); neither: a link exact to the tick."""
    if delay_at not in ("receiver", "bottleneck"):
        raise ValueError(f"delay_at={delay_at!r}: choose 'receiver' or 'bottleneck'")
    delay = f"{case['delay_ms']:g}ms"
    udp = "udp_rate_mbps" in case
    down_trace = down_trace or up_trace
    bottleneck = {"from": "r1", "to": "r2", "delay": delay if delay_at == "bottleneck" else "0s",
                  "buffer": int(case["buffer_pkts"]), "queue": "droptail",
                  "rate_schedule": {"kind": "mahimahi", "file": str(up_trace)},
                  "reverse": {"rate_schedule": {"kind": "mahimahi", "file": str(down_trace)}}}
    if emulator and lag:
        raise ValueError("give an emulator or a lag, not both")
    # mm-link's loops on the bottleneck, mm-delay's on the receiver's link
    looped = {"emulator": {"kind": "mahimahi", **emulator}} if emulator else {}
    if emulator:
        if delay_at != "receiver":
            raise ValueError("an emulator's loops need the delay at the receiver (mm-delay's own shell)")
        bottleneck.update(looped)
    elif lag:
        bottleneck["rate_schedule"]["lag"] = {"file": str(lag[0])}
        bottleneck["reverse"]["rate_schedule"]["lag"] = {"file": str(lag[1])}
    host_link = {"rate": access_rate, "delay": "0s", "buffer": ACCESS_BUFFER}
    if udp:
        # iperf3 -b counts payload bits; cclab's CBR rate counts the packet's bytes
        wire_rate = float(case["udp_rate_mbps"]) * WIRE_BYTES / UDP_PAYLOAD_BYTES
        flows = [{"group": "udp0", "transport": "udp", "app": {"kind": "cbr", "rate": f"{wire_rate * 1e6:.0f}bps"}}]
    else:
        flows = [{"group": f"f{i}_{flow['cc']}", "cc": flow["cc"], "start": f"{float(flow.get('start_s', 0)):g}s"}
                 for i, flow in enumerate(case["flows"])]
        for flow, recorded in zip(flows, case["flows"]):
            if recorded.get("mss"):
                # TCP_MAXSEG counts the timestamp option: the segments carry 12 bytes less
                flow["packet_size"] = f"{int(recorded['mss']) - TIMESTAMP_BYTES}B"
        for flow in flows:
            tcp = {}
            if max_window:
                tcp["max_window"] = int(max_window)
            if pacing and profile == "linux" and flow["cc"] != "bbr":
                tcp["pacing"] = True
            if tcp:
                flow["tcp"] = tcp
    duration = float(case["duration_s"])
    for flow in flows:
        flow["stop"] = f"{duration:g}s"
    return {
        "name": name or "linux reference case",
        "duration": f"{duration + DRAIN_S:g}s",
        "seed": int(seed),
        "profile": profile,
        "packet_size": f"{UDP_PAYLOAD_BYTES if udp else PAYLOAD_BYTES}B",
        "header_size": f"{UDP_HEADER_BYTES if udp else HEADER_BYTES}B",
        "ack_size": f"{ACK_BYTES}B",
        "topology": {"kind": "graph", "links": [
            {"from": SENDER, "to": "r1", **host_link}, bottleneck,
            {"from": "r2", "to": RECEIVER, **host_link, "delay": delay if delay_at == "receiver" else "0s", **looped}]},
        "flows": [{**flow, "from": SENDER, "to": RECEIVER} for flow in flows],
        "trace": {"links": ["r1-r2", "r2-r1"], "queue_delay_histogram": QUEUE_DELAY_BIN},
    }


def case_scenarios(name: str, case: dict, kernel_runs: list[dict], seeds: list[int], profile: str,
                   traces: TraceFiles, reference_path: Path, control: bool = True, iperf3_start: bool = True,
                   **options) -> list[tuple[dict, dict]]:
    """(scenario, what it ran over) for each seed of one case; ``control``: with iperf3's
    control packets, ``iperf3_start``: the flows starting as late as iperf3's do (TCP cases)."""
    out = []
    link = case["link"]
    for index, seed in enumerate(seeds):
        info: dict[str, Any] = {"seed": seed}
        # seed k is set beside kernel run k (mod the runs): the same stretch of trace, the same start
        run = kernel_runs[index % len(kernel_runs)] if kernel_runs else None
        if "rate_mbps" in link:
            up = traces.rate(float(link["rate_mbps"]))
        else:
            source = resolve_trace(link, reference_path)
            offset = trace_offset(run)
            # the flows run T from iperf3's start, within a second of the run's start
            up = traces.rotated(source, offset, int(math.ceil(float(case["duration_s"]) * 1000)) + 1000)
            info["trace_offset_ms"] = offset
        down = traces.rate(float(link["down_rate_mbps"])) if "down_rate_mbps" in link else up
        sc = scenario(case, seed, profile, up, down, name=f"{name} seed {seed}", **options)
        if iperf3_start and "flows" in case:
            recorded = kernel_first_data(run) if run else None
            late_syns = kernel_late_syns(run) if run else None
            info["start_delay_ms"] = [round(1000 * delay, 3) for delay in start_as_iperf3(sc, recorded, late_syns)]
        if control and "flows" in case:
            sc["flows"] += control_flows(first_data_arrivals(sc), HEADER_BYTES, SENDER, RECEIVER)
        out.append((sc, info))
    return out


# ----------------------------------------------------------------------------- measures

def nearest_rank(hist: dict[int, int], q: float) -> Optional[float]:
    """The q-quantile of a histogram {delay ms: packets} by the kernel side's own rule
    (harness.percentile, the reference's p95), as a float; None when empty."""
    value = percentile(hist, sum(hist.values()), q)
    return None if value is None else float(value)


def kernel_run_measures(run: dict) -> dict:
    """One kernel run's numbers (bench/linux/README.md, "reference.json")."""
    flows = run["flows"]
    goodput = [float(f["goodput_mbps"]) for f in flows]
    retrans = [f.get("retransmits") for f in flows]
    window = run["uplink"]["window"]
    delay = window.get("queue_delay_ms") or {}
    down = (run.get("downlink") or {}).get("window") or {}
    total = sum(goodput)
    return {"flow_goodput_mbps": goodput, "goodput_mbps": total,
            "shares": [g / total if total else math.nan for g in goodput],
            "flow_retransmissions": retrans,
            "retransmissions": sum(retrans) if all(r is not None for r in retrans) else None,
            "queue_delay_ms": delay.get("mean"), "queue_delay_p95_ms": delay.get("p95"),
            "drops": window.get("dropped_packets"), "utilization": window.get("utilization"),
            "uplink_packets": window.get("departures"), "ack_path_packets": down.get("departures")}


def cclab_run_measures(result, case: dict) -> dict:
    """One cclab run's numbers, defined as the kernel record's are. The run lasts the
    case's duration T and DRAIN_S more, its flows stopping at T (see ``scenario``): the
    goodput counts every byte delivered, as iperf3's receiver does; the link's numbers are
    those of the packets that arrived in [0, T) (per-second link traces)."""
    duration = float(case["duration_s"])
    case_flows = case.get("flows") or [{"start_s": 0.0}]
    # the case's own flows (iperf3's control packets come after them)
    flows = sorted(result.raw["flows"], key=lambda f: f["id"])[:len(case_flows)]
    delivered_bytes = result.raw["bins"]["delivered_bytes"]        # per flow, per bin
    goodput = [sum(delivered_bytes[i]) * 8 / (duration - float(case_flows[i].get("start_s", 0))) / 1e6
               for i in range(len(flows))]
    retrans = [f.get("retransmitted_packets") for f in flows]
    traced = {link["name"]: link for link in result.raw["traces"]["links"]}
    up_bins, down_bins = traced["r1-r2"], traced["r2-r1"]
    window = [i for i, t in enumerate(up_bins["t_s"]) if t < duration - 1e-9]

    def admitted(bins, i):
        return bins["arrivals"][i] - bins["drops"][i]

    def known(x):
        return x is not None and not (isinstance(x, float) and math.isnan(x))

    waited = [(up_bins["mean_sojourn_ms"][i], admitted(up_bins, i)) for i in window
              if known(up_bins["mean_sojourn_ms"][i]) and admitted(up_bins, i)]
    through = sum(n for _, n in waited)
    capacity = sum(up_bins["capacity_bytes"][i] for i in window)
    sent = sum(up_bins["transmitted_bytes"][i] for i in window)
    # the uplink's queueing delays over the run (whole milliseconds, as mm-link logs them)
    uplink = next(h for h in result.raw["traces"]["queue_delay_histograms"] if h["link"] == "r1-r2")
    logged = {round(k * uplink["bin_ms"]): n for k, n in enumerate(uplink["counts"]) if n}
    total = sum(goodput)
    return {"flow_goodput_mbps": goodput, "goodput_mbps": total,
            "shares": [g / total if total else math.nan for g in goodput],
            "flow_retransmissions": retrans,
            "retransmissions": sum(retrans) if all(r is not None for r in retrans) else None,
            "queue_delay_ms": sum(d * n for d, n in waited) / through if through else None,
            "queue_delay_p95_ms": nearest_rank(logged, 0.95),
            "drops": sum(up_bins["drops"][i] for i in window),
            # mm-link counts 1504 bytes for a 1500-byte packet (every uplink packet is one,
            # but for the SYNs)
            "utilization": sent * OPPORTUNITY_BYTES / WIRE_BYTES / capacity if capacity else None,
            "uplink_packets": sum(admitted(up_bins, i) for i in window),
            "ack_path_packets": sum(admitted(down_bins, i) for i in window),
            "per_second": {"delivered_mbps": [round(up_bins["transmitted_bytes"][i] * 8 / 1e6, 4) for i in window],
                           "mean_queue_delay_ms": [up_bins["mean_sojourn_ms"][i]
                                                   if known(up_bins["mean_sojourn_ms"][i]) else None for i in window]},
            "wall_time_s": float(result.raw.get("wall_time_s", 0.0))}


# ----------------------------------------------------------------------------- running

def compare(reference: dict, reference_path: Path, names: list[str], seeds: list[int], profile: str = "linux", *,
            jobs: int = 2, trace_folder: Optional[Path] = None, progress: bool = False, chunk: int = 24,
            **options) -> dict:
    """Run ``names`` (cases of ``reference``) in cclab and set them beside the kernel's runs."""
    import cclab
    from cclab.runs.executors import open_executor

    recorded = runs_by_case(reference)
    report: dict[str, Any] = {"cases": {}}
    with tempfile.TemporaryDirectory(prefix="cclab-linux-compare-") as scratch:
        traces = TraceFiles(trace_folder or Path(scratch))
        work = []
        for name in names:
            for sc, info in case_scenarios(name, reference["cases"][name], recorded[name], seeds, profile, traces,
                                           reference_path, **options):
                work.append((name, sc, info))
        measured: dict[str, list[dict]] = {name: [] for name in names}
        started = time.perf_counter()

        def run_all(executor) -> None:
            for first in range(0, len(work), chunk):
                part = work[first:first + chunk]
                results = cclab.run_many([sc for _, sc, _ in part], executor=executor, jobs=1 if executor is None else None)
                for (name, _, info), result in zip(part, results):
                    measured[name].append({**info, **cclab_run_measures(result, reference["cases"][name])})
                if progress:
                    print(f"  {min(first + chunk, len(work))}/{len(work)} runs, {time.perf_counter() - started:.0f} s",
                          file=sys.stderr, flush=True)

        if jobs > 1 and len(work) > 1:
            with open_executor("local", workers=jobs) as executor:
                run_all(executor)
        else:
            run_all(None)
        report["wall_s"] = time.perf_counter() - started
        report["runs"] = len(work)
    for name in names:
        case = reference["cases"][name]
        kernel_runs = [kernel_run_measures(run) for run in recorded[name]]
        kernel, ours = summarise(kernel_runs), summarise(measured[name])
        flows = 1 if "udp_rate_mbps" in case else len(case["flows"])
        report["cases"][name] = {"case": case, "kernel": kernel, "cclab": ours, "criteria": judge(kernel, ours, flows),
                                 "kernel_runs": kernel_runs, "cclab_runs": measured[name]}
        report["cases"][name]["single_runs"] = single_runs_meeting(report["cases"][name])
    report["summary"] = summary(report["cases"])
    return report


def jsonable(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def lag_series(folder: Optional[Path]) -> tuple[Path, Path]:
    """The (data, ACK) release-lag series: bench/linux/lag's, or those in ``folder``."""
    if folder is None:
        return LAG_DATA, LAG_ACK
    data, ack = Path(folder) / "data.txt", Path(folder) / "ack.txt"
    for path in (data, ack):
        if not path.is_file():
            raise SystemExit(f"--lag-dir: {path} is not a file (a folder with data.txt and ack.txt)")
    return data, ack


def timing_options(args, parser) -> dict:
    """The scenario's ``emulator`` and ``lag`` from --timing and its options (a one-line
    error for options that do not go with the timing or do not parse)."""
    if args.timing != "loop" and (args.emulator_loop or args.emulator_stalls or args.emulator_wake):
        parser.error("--emulator-loop, --emulator-stalls and --emulator-wake go with --timing loop")
    if args.timing != "lag" and args.lag_dir:
        parser.error("--lag-dir goes with --timing lag")
    if args.timing == "lag":
        return {"emulator": None, "lag": lag_series(args.lag_dir)}
    if args.timing == "exact":
        return {"emulator": None, "lag": None}
    spec = dict(EMULATOR)
    if args.emulator_wake:
        spec["wake_latency"] = args.emulator_wake
    if args.emulator_loop:
        spec["overshoot"] = args.emulator_loop
    if args.emulator_stalls:
        probability, _, mean = args.emulator_stalls.partition(",")
        try:
            spec["stall_probability"] = float(probability)
        except ValueError:
            parser.error(f"--emulator-stalls: {args.emulator_stalls!r}, expected P,MEAN such as 0.03,600us")
        spec["stall_mean"] = mean if spec["stall_probability"] > 0 else "0s"
    # the core judges the values (its limits, its messages), on a link of a probe scenario
    from cclab.core import ScenarioError, validate_json
    probe = {"duration": "1s", "flows": [{"from": "a", "to": "b"}],
             "topology": {"kind": "graph", "links": [{"from": "a", "to": "b", "rate": "1Mbps", "delay": "1ms",
                                                      "buffer": 10, "emulator": {"kind": "mahimahi", **spec}}]}}
    prefix = "topology.links[0].emulator."
    try:
        validate_json(json.dumps(probe))
    except ScenarioError as error:
        if not str(error).startswith(prefix):
            raise
        field, _, message = str(error).removeprefix(prefix).partition(": ")
        option = {"overshoot": "--emulator-loop", "wake_latency": "--emulator-wake"}.get(field, "--emulator-stalls")
        parser.error(f"{option}: {message}")
    return {"emulator": spec, "lag": None}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=PROFILES, default="linux", help="cclab's TCP profile (default linux)")
    parser.add_argument("--seeds", type=int, default=None, help="cclab runs seeds 1..N of each case (default 3; --quick 1)")
    parser.add_argument("--only", metavar="REGEX", help="the cases whose name matches REGEX (re.search)")
    parser.add_argument("--quick", action="store_true",
                        help=f"only {len(QUICK_CASES)} representative cases, one seed unless --seeds")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE, help="the kernel reference (reference.json)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2; 1 runs in this process)")
    parser.add_argument("--access-rate", default=ACCESS_RATE, help=f"the hosts' links' rate (default {ACCESS_RATE})")
    parser.add_argument("--delay-at", choices=("receiver", "bottleneck"), default="receiver",
                        help="where the one-way delay D sits (default receiver: Mahimahi's order)")
    parser.add_argument("--max-window", type=int, metavar="SEGMENTS",
                        help="cap each TCP flow's window (default: no cap; the linux profile's 4-MiB send buffer "
                             "holds 2100-2850 segments)")
    parser.add_argument("--no-pacing", action="store_true",
                        help="do not pace the linux profile's non-BBR flows (the reference's are paced: bench/linux/diag)")
    parser.add_argument("--no-control-packets", action="store_true",
                        help="leave out iperf3's control packets that share the queue with the first flight")
    parser.add_argument("--no-iperf3-start", action="store_true",
                        help="start cclab's flows at once instead of as late as iperf3's start (five round trips) puts "
                             "the kernel's first data")
    parser.add_argument("--timing", choices=TIMINGS, default="loop",
                        help="Mahimahi's timing: loop (default) releases packets as its event loops do; lag replays "
                             "the release lag measured on the reference machine (bench/linux/lag); exact: on the tick")
    parser.add_argument("--emulator-loop", metavar="OVERSHOOT",
                        help=f"with --timing loop: the loops' timers wake OVERSHOOT late (default {EMULATOR['overshoot']})")
    parser.add_argument("--emulator-stalls", metavar="P,MEAN",
                        help="with --timing loop: the loops stall in a share P of milliseconds, for MEAN on average "
                             f"(default {EMULATOR['stall_probability']},{EMULATOR['stall_mean']}; 0,0 none)")
    parser.add_argument("--emulator-wake", metavar="LATENCY",
                        help="with --timing loop: a packet handed to a sleeping loop wakes it LATENCY later "
                             f"(default {EMULATOR.get('wake_latency', '0s')})")
    parser.add_argument("--lag-dir", type=Path, metavar="DIR",
                        help="with --timing lag: the series DIR/data.txt and DIR/ack.txt (default bench/linux/lag)")
    parser.add_argument("--loaded", action="store_true",
                        help="compare against the kernel runs recorded while other work loaded the machine "
                             "(reference.json's loaded_runs, which the comparison otherwise leaves out)")
    parser.add_argument("--traces", type=Path, help="keep the trace files written for the runs in this folder")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the whole comparison as JSON")
    parser.add_argument("--markdown", type=Path, metavar="OUT", action="append", default=[],
                        help="write the table into OUT (between its markers; repeatable)")
    parser.add_argument("--worst", type=int, default=5, help="list this many worst cases per criterion (default 5)")
    args = parser.parse_args(argv)
    if args.seeds is not None and args.seeds < 1:
        parser.error(f"--seeds: {args.seeds}, expected 1 or more (cclab runs seeds 1..N)")
    if args.jobs < 1:
        parser.error(f"--jobs: {args.jobs}, expected 1 or more worker processes")
    timing = timing_options(args, parser)

    if not args.reference.is_file():
        parser.error(f"{args.reference}: no kernel reference there (record.py writes it; --reference PATH)")
    reference = load_reference(args.reference)
    if args.loaded:
        reference = {**reference, "runs": reference.get("loaded_runs", []), "loaded_runs": []}
    names = select_cases(reference, args.only, QUICK_CASES if args.quick else None)
    if not names:
        parser.error("no recorded case matches")
    seeds = list(range(1, (args.seeds or (1 if args.quick else 3)) + 1))
    import cclab

    report = compare(reference, args.reference, names, seeds, args.profile, jobs=max(1, args.jobs),
                     trace_folder=args.traces, progress=sys.stderr.isatty() or len(names) > 20,
                     access_rate=args.access_rate, delay_at=args.delay_at, max_window=args.max_window,
                     pacing=not args.no_pacing, **timing,
                     control=not args.no_control_packets, iperf3_start=not args.no_iperf3_start)
    kernels = {env.get("kernel") for env in reference.get("environments", {}).values()}
    report.update({"profile": args.profile, "seeds": seeds, "commit": git_commit(), "cclab_version": cclab.__version__,
                   "kernel": ", ".join(sorted(k for k in kernels if k)) or "?",
                   "reference": str(args.reference), "reference_recorded": f"{len(reference.get('runs', []))} runs" + (" (loaded)" if args.loaded else ""),
                   "access_rate": args.access_rate, "delay_at": args.delay_at, "max_window": args.max_window,
                   "pacing": not args.no_pacing, "control_packets": 0 if args.no_control_packets else CONTROL_PACKETS, "iperf3_start": not args.no_iperf3_start, "timing": args.timing,
                   "lag": str(timing["lag"][0].parent) if timing["lag"] else None, "emulator": timing["emulator"],
                   "drain_s": DRAIN_S,
                   "definitions": "see bench/linux/compare.py's docstring and docs/validation/linux.md"})
    print(markdown_table(report))
    for criterion in CRITERIA:
        missed = worst(report["cases"], criterion, args.worst)
        if missed:
            items = []
            for name, v in missed:
                if criterion == "shares":
                    items.append(f"{name} ({v['delta']:+.2f})")
                else:
                    items.append(f"{name} ({number(v['kernel'], 1)} → {number(v['cclab'], 1)})")
            print(f"Worst on {CRITERION_LABEL[criterion]}: " + "; ".join(items))
    print(f"\n{report['runs']} cclab runs in {report['wall_s']:.1f} s wall ({args.jobs} workers).")
    if args.json:
        args.json.write_text(json.dumps(jsonable(report), indent=1) + "\n")
        print(f"{args.json}: written")
    # another reference's tables go between markers of their own (linux-compare:holdout:table)
    scope = "" if args.reference.resolve() == DEFAULT_REFERENCE.resolve() else args.reference.stem
    for path in args.markdown:
        print(write_markdown(path, report, scope))
    return 0


if __name__ == "__main__":
    sys.exit(main())
