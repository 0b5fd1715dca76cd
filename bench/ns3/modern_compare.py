#!/usr/bin/env python3
"""cclab against ns-3.44 for the newer congestion controls and queue disciplines.

    .venv/bin/python bench/ns3/modern_compare.py [--seeds 3] [--duration 60] [--warmup 10]
        [--cases cubic-1bdp,reno-pie] [--ns3-python /work/ns3-venv/bin/python] [--json]
        [--no-ns3] [--output bench/ns3/modern_reference.json]

Dumbbell: 4 flows, each from its own host over a 100 Mb/s, 1 ms access link to r1, the
10 Mb/s, 20 ms bottleneck r1→r2, and a 100 Mb/s, 1 ms link to its own sink (44 ms base
RTT); bulk transfers starting at uniform random times in the first second; 60 s, measured
after a 10-s warm-up. cclab's defaults otherwise (1000-byte payloads + 40 bytes of
headers, SACK recovery, initial window 2, no delayed ACKs, min RTO 200 ms);
``modern_ns3.py`` sets ns-3 up the same way (its docstring lists how).

Cases: cubic, bbr, vegas, reno (ns-3 TcpNewReno) over a 1-BDP DropTail FIFO (55 packets);
bbr and cubic over 10 BDP (550); dctcp with a step-marking switch (K = 20; ns-3: RED
marking on the instantaneous queue); reno under CoDel, FQ-CoDel and PIE with a 1000-packet
limit, each with cclab's default parameters; ns-3.44's catalogue (highspeed, scalable, bic,
htcp, hybla, veno, illinois, yeah, ledbat, lp: TcpHighSpeed … TcpLp) over 1 BDP, ns-3's
TcpLedbat and TcpLp with TCP timestamps (their one-way delays need them).

Each flow starts when cclab's run of that seed starts it (uniform in the first second),
in both simulators. cclab after the warm-up: goodput from the per-second bins; queueing delay, drops and
marks from the 60-s run minus a 10-s run of the same seed (a run's first 10 s do not
depend on its length: checked here on the bins). Queueing delay is the mean wait from
arrival at the bottleneck queue to the start of transmission, in both simulators
(ns-3's disc sojourn, which leaves out the one-packet device queue, is listed beside it).
The JSON also has per-flow goodputs, link utilisation, timeouts, fast recoveries,
retransmissions, and cclab's final congestion-control state per flow.

Prints one Markdown table (means over seeds; Δ = (cclab − ns-3) / ns-3) or, with --json,
the whole comparison as JSON; writes ``bench/ns3/modern_reference.json`` either way.
ns-3 runs one subprocess per case (its seeds batched: modern_ns3.py --seed 1 2 3), one at
a time; about 35–50 s per case on two shared cores (5–8 minutes for all ten).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NS3_PYTHON = os.environ.get("CCLAB_NS3_PYTHON", "/work/ns3-venv/bin/python")  # a venv with ns3==3.44.post0
FLOWS = 4

# name: (cc, cclab queue, buffer (cclab), ns-3 queue)
CASES = {
    "cubic 1bdp": ("cubic", "droptail", "1bdp", "fifo"),
    "bbr 1bdp": ("bbr", "droptail", "1bdp", "fifo"),
    "vegas 1bdp": ("vegas", "droptail", "1bdp", "fifo"),
    "reno 1bdp": ("reno", "droptail", "1bdp", "fifo"),
    "bbr 10bdp": ("bbr", "droptail", 550, "fifo"),
    "cubic 10bdp": ("cubic", "droptail", 550, "fifo"),
    "dctcp step_mark K=20": ("dctcp", {"kind": "step_mark", "threshold": 20}, "1bdp", "step_mark"),
    "reno codel": ("reno", "codel", 1000, "codel"),
    "reno fq_codel": ("reno", "fq_codel", 1000, "fq_codel"),
    "reno pie": ("reno", "pie", 1000, "pie"),
    # ns-3.44's catalogue (issue 39), 1 BDP; ns-3's TcpLedbat and TcpLp run with timestamps
    **{f"{cc} 1bdp": (cc, "droptail", "1bdp", "fifo")
       for cc in ("highspeed", "scalable", "bic", "htcp", "hybla", "veno", "illinois", "yeah", "ledbat", "lp")},
}
DEQUEUE_KINDS = {"codel", "fq_codel"}


def slug(case: str) -> str:
    return case.split(" K=")[0].replace(" ", "-")


def scenario(case: str, seed: int, duration: float) -> dict:
    cc, queue, buffer, _ = CASES[case]
    return {
        "name": f"ns-3 cross-check {case}", "duration": f"{duration:g}s", "seed": seed,
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": buffer, "queue": queue},
                     "source_access": {"rate": "100Mbps", "delay": "1ms"},
                     "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"count": FLOWS, "cc": cc, "start": {"random": "1s"}}],
    }


def resolved_buffers(case: str) -> tuple[int, int]:
    """(bottleneck, access) buffers in packets as cclab resolves them."""
    import cclab

    links = {link["name"]: link for link in cclab.topology(scenario(case, 1, 60))["links"]}
    return links["r1-r2"]["buffer_packets"], links["s0-r1"]["buffer_packets"]


def run_cclab(case: str, seed: int, duration: float, warmup: float) -> dict:
    import cclab

    queue_kind = CASES[case][1] if isinstance(CASES[case][1], str) else CASES[case][1]["kind"]
    full = cclab.run(scenario(case, seed, duration))
    head = cclab.run(scenario(case, seed, warmup))
    bins = full.bins
    # the warm-up's bins of the long run are the short run's, or the subtraction is void
    early = bins[bins["bin_start_s"] < warmup - 1e-9].sort_values(["flow_id", "bin_start_s"])
    short = head.bins.sort_values(["flow_id", "bin_start_s"])
    if early["delivered_bytes"].tolist() != short["delivered_bytes"].tolist():
        raise RuntimeError(f"{case} seed {seed}: the first {warmup:g} s differ between a {warmup:g}-s and a "
                           f"{duration:g}-s run")
    late = bins[bins["bin_start_s"] >= warmup - 1e-9]
    span = duration - warmup
    flow_goodput = (late.groupby("flow_id")["delivered_bytes"].sum() * 8 / span / 1e6).sort_index().tolist()

    def bottleneck(result) -> dict:
        return next(row for row in result.raw["links"] if row["name"] == "r1-r2")

    a, b = bottleneck(head), bottleneck(full)

    def admitted(link) -> int:
        # packets whose wait is in mean_queue_delay_ms: admitted to the FIFO, or (CoDel,
        # FQ-CoDel) taken for transmission (departures: at most one more is on the wire)
        if queue_kind in DEQUEUE_KINDS:
            return link["departures"]
        return link["arrivals"] - link["queue_drops"] - link["loss_drops"]

    waited = admitted(b) * b["mean_queue_delay_ms"] - admitted(a) * a["mean_queue_delay_ms"]
    count = admitted(b) - admitted(a)
    link_bins = full.bottleneck_bins
    busy = link_bins[link_bins["bin_start_s"] >= warmup - 1e-9]["transmitted_bytes"].sum()
    tcp = {column: int(full.flows[column].sum() - head.flows[column].sum())
           for column in ("timeouts", "fast_recoveries", "retransmitted_packets")}
    flows = full.flows.sort_values("id")
    return {"starts_s": flows["start_s"].tolist(), "flow_cc_state": [dict(state) for state in flows["cc_state"]],
            "flow_goodput_mbps": flow_goodput, "goodput_mbps": sum(flow_goodput), **tcp,
            "queue_delay_ms": waited / count, "queue_delay_whole_run_ms": b["mean_queue_delay_ms"],
            "drops": b["queue_drops"] - a["queue_drops"], "aqm_drops": b["aqm_drops"] - a["aqm_drops"],
            "marks": b["ecn_marks"] - a["ecn_marks"], "utilization": busy * 8 / (10e6 * span)}


def run_ns3(case: str, seeds: list[int], duration: float, warmup: float, python: str,
            starts: list[list[float]]) -> list[dict]:
    """The same case in ns-3.44, its seeds in one subprocess (one import of ns-3), each
    flow starting when it does in cclab's run of that seed."""
    cc, _, _, queue = CASES[case]
    bottleneck, access = resolved_buffers(case)
    command = [python, str(HERE / "modern_ns3.py"), "--cc", cc, "--queue", queue, "--buffer", str(bottleneck),
               "--access-buffer", str(access), "--duration", f"{duration:g}", "--warmup", f"{warmup:g}",
               "--flows", str(FLOWS), "--seed", *map(str, seeds),
               "--starts", *(",".join(f"{t:.9f}" for t in times) for times in starts)]
    if queue == "step_mark":
        command += ["--threshold", str(CASES[case][1]["threshold"])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or len(lines) != len(seeds):
        raise RuntimeError(f"ns-3 failed on {case}: " + (done.stderr.strip().splitlines() or ["no output"])[-1])
    # cling may print its own warnings on the same stream: read each line's first JSON value
    decoder = json.JSONDecoder()
    return [decoder.raw_decode(line)[0] for line in lines]


METRICS = ("goodput_mbps", "queue_delay_ms", "drops", "marks", "timeouts", "fast_recoveries", "retransmitted_packets")


def summarise(samples: list[dict]) -> dict:
    table = {}
    for metric in METRICS + ("sojourn_ms", "aqm_drops", "utilization"):
        values = [sample[metric] for sample in samples if metric in sample]
        if values:
            table[metric] = {"mean": statistics.fmean(values),
                             "sd": statistics.stdev(values) if len(values) > 1 else 0.0, "values": values}
    return table


def delta(ours: float, reference: float) -> float:
    return (ours - reference) / reference * 100 if reference else math.nan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--cases", default="", help="comma-separated case names or slugs (default: all): "
                        + ", ".join(slug(case) for case in CASES))
    parser.add_argument("--ns3-python", default=NS3_PYTHON)
    parser.add_argument("--no-ns3", action="store_true", help="cclab only (ns-3's columns from the saved reference)")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON instead of the table")
    parser.add_argument("--output", type=Path, default=HERE / "modern_reference.json",
                        help="where the runs are kept (merged by case; default bench/ns3/modern_reference.json)")
    args = parser.parse_args()
    wanted = [c.strip() for c in args.cases.split(",") if c.strip()]
    cases = [case for case in CASES if not wanted or case in wanted or slug(case) in wanted]
    seeds = list(range(1, args.seeds + 1))
    saved_path = args.output
    saved = json.loads(saved_path.read_text()) if saved_path.exists() else {"cases": {}}
    started = time.perf_counter()
    ns3_wall = 0.0
    report = {"seeds": seeds, "duration_s": args.duration, "warmup_s": args.warmup, "flows": FLOWS, "cases": {}}
    for case in cases:
        cclab_runs = [run_cclab(case, seed, args.duration, args.warmup) for seed in seeds]
        previous = saved["cases"].get(case, {})
        same_set_up = (saved.get("seeds") == seeds and saved.get("duration_s") == args.duration
                       and saved.get("warmup_s") == args.warmup)
        if args.no_ns3:
            ns3_runs = previous.get("ns3_runs", []) if same_set_up else []
        else:
            tick = time.perf_counter()
            ns3_runs = run_ns3(case, seeds, args.duration, args.warmup, args.ns3_python,
                               [run["starts_s"] for run in cclab_runs])
            ns3_wall += time.perf_counter() - tick
            print(f"{case}: ns-3 {time.perf_counter() - tick:.0f} s", file=sys.stderr, flush=True)
        report["cases"][case] = {"cclab": summarise(cclab_runs), "ns3": summarise(ns3_runs) if ns3_runs else {},
                                 "cclab_runs": cclab_runs, "ns3_runs": ns3_runs}
    report["wall_s"] = time.perf_counter() - started
    report["ns3_wall_s"] = ns3_wall
    if not args.no_ns3:
        merged = saved if (saved.get("seeds") == seeds and saved.get("duration_s") == args.duration
                           and saved.get("warmup_s") == args.warmup) else {}
        merged = {**merged, **{k: v for k, v in report.items() if k != "cases"},
                  "cases": {**merged.get("cases", {}), **report["cases"]}}
        saved_path.write_text(json.dumps(merged, indent=1) + "\n")
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"| case | cclab goodput Mb/s | ns-3 goodput Mb/s | Δ goodput | cclab queueing delay ms | ns-3 queueing delay ms "
          f"| Δ delay | ns-3 disc sojourn ms | cclab drops / marks | ns-3 drops / marks |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case, row in report["cases"].items():
        ours, theirs = row["cclab"], row["ns3"]

        def cell(table, metric, digits):
            return f"{table[metric]['mean']:.{digits}f} ± {table[metric]['sd']:.{digits}f}" if metric in table else "–"

        def dm(table):
            return f"{table['drops']['mean']:.0f} / {table['marks']['mean']:.0f}" if "drops" in table else "–"

        dg = f"{delta(ours['goodput_mbps']['mean'], theirs['goodput_mbps']['mean']):+.1f} %" if theirs else "–"
        dd = f"{delta(ours['queue_delay_ms']['mean'], theirs['queue_delay_ms']['mean']):+.1f} %" if theirs else "–"
        print(f"| {case} | {cell(ours, 'goodput_mbps', 3)} | {cell(theirs, 'goodput_mbps', 3)} | {dg} "
              f"| {cell(ours, 'queue_delay_ms', 2)} | {cell(theirs, 'queue_delay_ms', 2)} | {dd} "
              f"| {cell(theirs, 'sojourn_ms', 2)} | {dm(ours)} | {dm(theirs)} |")
    print(f"\n{len(seeds)} seeds, {args.duration:g} s, measured after {args.warmup:g} s; mean ± s.d. over seeds; "
          f"drops and marks at the bottleneck in the measured span; Δ = (cclab − ns-3) / ns-3. "
          f"Wall time {report['wall_s']:.0f} s (ns-3 {ns3_wall:.0f} s).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
