#!/usr/bin/env python3
"""Flow completion times: cclab against ns-3.44 on one small dumbbell, flow by flow.

    .venv/bin/python bench/ns3/fct_compare.py [--cases pareto,fixed] [--json]
        [--initial-window 10] [--recovery sack|newreno] [--min-rto-ms 200] [--delayed-ack]
        [--ns3-python /work/ns3-venv/bin/python] [--output bench/ns3/fct-reference.json]

Dumbbell: 4 source/sink pairs, each host on its own 100 Mb/s, 1 ms access link, a 10 Mb/s,
10 ms bottleneck r1→r2 (24 ms base RTT, BDP ≈ 29 packets), DropTail buffers of 50 packets
at the bottleneck and 1000 at the access links (both simulators count the packet in
transmission). TCP NewReno flows arrive as a Poisson process at load 0.5 for 20 s and the
run lasts 40 s; flow k uses pair k mod 4. Cases: Pareto sizes (mean 50 KB, shape 1.5) and
fixed 100-KB flows.

cclab runs the scenario (TCP_TOML below) and its flows' start times, sizes and pairs go to
``fct_ns3.py``, which starts one ns-3 BulkSend per flow at the same instant, from the same
source to the same sink, with MaxBytes = the flow's size. Both use the same TCP settings
(the table in bench/ns3/README.md, "Flow completion times"): SACK with RFC 6675 recovery,
initial window 10, a handshake before data (cclab ``syn = true``), min RTO 200 ms, RTO clock
granularity 10 ms, initial RTO (and SYN timeout) 1 s, no delayed ACKs, 1000-byte segments
without timestamps. The options change one setting in both simulators at once.

Prints a Markdown table per case: completed flows, p50/p99/mean FCT, the per-flow ratio
cclab/ns-3 (median and IQR over flows completed in both), mean slowdown by size bucket
(both FCTs over cclab's ideal FCT of the flow), drops and timeouts. Writes every flow of
both simulators to ``--output`` (default bench/ns3/fct-reference.json; only with the
default settings, otherwise give --output).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
NS3_PYTHON = os.environ.get("CCLAB_NS3_PYTHON", "/work/ns3-venv/bin/python")
PAIRS = 4

SCENARIO_TOML = """\
name = "fct-ns3-{case}"
duration = "40s"
seed = {seed}
packet_size = 1000

[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 50 }}
source_access = {{ rate = "100Mbps", delay = "1ms", buffer = 1000 }}
sink_access = {{ rate = "100Mbps", delay = "1ms", buffer = 1000 }}

[[flows]]
count = {pairs}
cc = "reno"
stop = "20s"
tcp = {{ recovery = "{recovery}", initial_window = {iw}, syn = true, min_rto = "{min_rto}ms", granularity = "10ms", initial_rto = "1s", delayed_ack = {delack} }}
arrivals = {{ kind = "poisson", load = 0.5, sizes = {sizes} }}
"""
CASES = {
    "pareto": '{ kind = "pareto", mean = "50KB", shape = 1.5 }',
    "fixed": '{ kind = "fixed", size = "100KB" }',
}
# the links as fct_ns3.py builds them (the TOML's values)
NS3_LINKS = {"bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": 50},
             "access": {"rate": "100Mbps", "delay": "1ms", "buffer": 1000}}
BUCKETS = [(0, 10_000, "≤ 10 KB"), (10_000, 100_000, "10–100 KB"), (100_000, 1_000_000, "100 KB–1 MB"),
           (1_000_000, 10_000_000, "1–10 MB"), (10_000_000, float("inf"), "> 10 MB")]


def run_cclab(case: str, args) -> tuple[str, dict]:
    import cclab

    text = SCENARIO_TOML.format(case=case, seed=args.seed, pairs=PAIRS, sizes=CASES[case], iw=args.initial_window,
                                recovery=args.recovery, min_rto=args.min_rto_ms,
                                delack="true" if args.delayed_ack else "false")
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
    try:
        result = cclab.run(f.name)
    finally:
        os.unlink(f.name)
    fcts = result.fcts.reset_index(drop=True)
    bottleneck = next(link for link in result.raw["links"] if link["name"] == "r1-r2")
    flows = [{"start_s": float(row.start_s), "size_bytes": int(row.size_bytes), "pair": k % PAIRS,
              "completed": bool(row.completed), "fct_ms": None if not row.completed else float(row.fct_ms),
              "ideal_fct_ms": float(row.ideal_fct_ms)}
             for k, row in enumerate(fcts.itertuples())]
    return text, {"flows": flows, "bottleneck_drops": int(bottleneck["queue_drops"]),
                  "syn_drops": int(result.raw["conservation"]["syn_dropped"]),
                  "group": {k: (v.item() if hasattr(v, "item") else v) for k, v in result.groups.iloc[0].items()}}


def run_ns3(cclab_flows: list[dict], args) -> dict:
    spec = {"pairs": PAIRS, "duration_s": 40, "packet_size": 1000, **NS3_LINKS,
            "tcp": {"sack": args.recovery == "sack", "initial_window": args.initial_window,
                    "min_rto_ms": args.min_rto_ms, "initial_rto_ms": 1000, "granularity_ms": 10,
                    "delayed_ack": args.delayed_ack},
            "flows": [{k: flow[k] for k in ("start_s", "size_bytes", "pair")} for flow in cclab_flows]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        done = subprocess.run([args.ns3_python, str(HERE / "fct_ns3.py"), f.name], capture_output=True, text=True,
                              timeout=1800)
    finally:
        os.unlink(f.name)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError("ns-3 failed: " + (done.stderr.strip().splitlines() or ["no output"])[-1])
    # cling may print warnings on the same stream: read the line's first JSON value
    return json.JSONDecoder().raw_decode(lines[0])[0]


def pct(values, q):
    return float(np.percentile(values, q)) if len(values) else None


def summary(flows: list[dict], ideal: list[float]) -> dict:
    done = [f["fct_ms"] for f in flows if f["completed"]]
    slow = [f["fct_ms"] / i for f, i in zip(flows, ideal) if f["completed"]]
    by_size = {}
    for lo, hi, name in BUCKETS:
        sd = [f["fct_ms"] / i for f, i in zip(flows, ideal) if f["completed"] and lo < f["size_bytes"] <= hi]
        fc = [f["fct_ms"] for f in flows if f["completed"] and lo < f["size_bytes"] <= hi]
        if sd:
            by_size[name] = {"flows": len(sd), "mean_slowdown": float(np.mean(sd)), "p50_fct_ms": pct(fc, 50),
                             "mean_fct_ms": float(np.mean(fc))}
    return {"flows": len(flows), "completed": len(done), "p50_fct_ms": pct(done, 50), "p99_fct_ms": pct(done, 99),
            "mean_fct_ms": float(np.mean(done)), "mean_slowdown": float(np.mean(slow)), "by_size": by_size}


def compare(ours: dict, theirs: dict) -> dict:
    a, b = ours["flows"], theirs["flows"]
    assert len(a) == len(b) and all(abs(x["start_s"] - y["start_s"]) < 1e-9 for x, y in zip(a, b))
    ideal = [f["ideal_fct_ms"] for f in a]
    ratio = [x["fct_ms"] / y["fct_ms"] for x, y in zip(a, b) if x["completed"] and y["completed"]]
    return {
        "cclab": summary(a, ideal), "ns3": summary(b, ideal),
        "ratio": {"flows": len(ratio), "p25": pct(ratio, 25), "median": pct(ratio, 50), "p75": pct(ratio, 75),
                  "within_1pct": sum(abs(r - 1) <= 0.01 for r in ratio) / len(ratio),
                  "within_10pct": sum(abs(r - 1) <= 0.10 for r in ratio) / len(ratio),
                  "cclab_slower_by_100ms": sum(x["fct_ms"] - y["fct_ms"] > 100 for x, y in zip(a, b)
                                               if x["completed"] and y["completed"]),
                  "ns3_slower_by_100ms": sum(y["fct_ms"] - x["fct_ms"] > 100 for x, y in zip(a, b)
                                             if x["completed"] and y["completed"])},
        "cclab_losses": {"bottleneck_drops": ours["bottleneck_drops"], "syn_drops": ours["syn_drops"]},
        "ns3_losses": {"bottleneck_drops": theirs["bottleneck_drops"], "other_drops": theirs["other_drops"],
                       "timeouts": sum(f["timeouts"] for f in b), "retransmissions": sum(f["retransmissions"] for f in b),
                       "syn_retransmissions": sum(f["syn_retransmissions"] for f in b)},
    }


def table(case: str, c: dict) -> str:
    o, t, r = c["cclab"], c["ns3"], c["ratio"]

    def d(x, y):
        return f"{(x - y) / y * 100:+.1f} %"

    rows = [f"**{case}** ({o['flows']} flows)", "", "| | cclab | ns-3.44 | Δ |", "| --- | --- | --- | --- |",
            f"| completed | {o['completed']} | {t['completed']} | |",
            f"| p50 FCT ms | {o['p50_fct_ms']:.1f} | {t['p50_fct_ms']:.1f} | {d(o['p50_fct_ms'], t['p50_fct_ms'])} |",
            f"| p99 FCT ms | {o['p99_fct_ms']:.1f} | {t['p99_fct_ms']:.1f} | {d(o['p99_fct_ms'], t['p99_fct_ms'])} |",
            f"| mean FCT ms | {o['mean_fct_ms']:.1f} | {t['mean_fct_ms']:.1f} | {d(o['mean_fct_ms'], t['mean_fct_ms'])} |",
            f"| mean slowdown | {o['mean_slowdown']:.3f} | {t['mean_slowdown']:.3f} | {d(o['mean_slowdown'], t['mean_slowdown'])} |"]
    for name, x in o["by_size"].items():
        y = t["by_size"].get(name)
        if y:
            rows.append(f"| mean slowdown {name} ({x['flows']} / {y['flows']}) | {x['mean_slowdown']:.3f} "
                        f"| {y['mean_slowdown']:.3f} | {d(x['mean_slowdown'], y['mean_slowdown'])} |")
    rows += [f"| per-flow FCT ratio cclab / ns-3: median [IQR] | {r['median']:.4f} [{r['p25']:.4f}, {r['p75']:.4f}] | | |",
             f"| flows within 1 % / 10 % | {r['within_1pct'] * 100:.0f} % / {r['within_10pct'] * 100:.0f} % | | |",
             f"| flows > 100 ms slower than in the other | {r['cclab_slower_by_100ms']} | {r['ns3_slower_by_100ms']} | |",
             f"| bottleneck drops (SYNs) | {c['cclab_losses']['bottleneck_drops']} ({c['cclab_losses']['syn_drops']}) "
             f"| {c['ns3_losses']['bottleneck_drops']} ({c['ns3_losses']['syn_retransmissions']}) | |"]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--seed", type=int, default=1, help="cclab's seed (the arrivals and sizes)")
    parser.add_argument("--initial-window", type=int, default=10)
    parser.add_argument("--recovery", choices=["sack", "newreno"], default="sack",
                        help="sack: SACK on, RFC 6675 recovery; newreno: SACK off, RFC 6582")
    parser.add_argument("--min-rto-ms", type=int, default=200)
    parser.add_argument("--delayed-ack", action="store_true")
    parser.add_argument("--ns3-python", default=NS3_PYTHON)
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON instead of tables")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    default_setup = (args.seed, args.initial_window, args.recovery, args.min_rto_ms, args.delayed_ack) == (1, 10, "sack", 200, False)
    output = args.output or (HERE / "fct-reference.json" if default_setup else None)
    settings = {"seed": args.seed, "initial_window": args.initial_window, "recovery": args.recovery,
                "min_rto_ms": args.min_rto_ms, "delayed_ack": args.delayed_ack}
    report = {"settings": settings, "cases": {}}
    started = time.perf_counter()
    for case in [c.strip() for c in args.cases.split(",") if c.strip()]:
        text, ours = run_cclab(case, args)
        tick = time.perf_counter()
        theirs = run_ns3(ours["flows"], args)
        print(f"{case}: ns-3 {time.perf_counter() - tick:.0f} s", file=sys.stderr, flush=True)
        report["cases"][case] = {"scenario_toml": text, "comparison": compare(ours, theirs),
                                 "cclab_group": ours["group"], "cclab_flows": ours["flows"], "ns3_flows": theirs["flows"],
                                 "ns3_events": theirs["events"]}
    report["wall_s"] = time.perf_counter() - started
    if output:
        output.write_text(json.dumps(report, indent=1) + "\n")
    if args.json:
        print(json.dumps({k: (v if k != "cases" else {c: r["comparison"] for c, r in v.items()})
                          for k, v in report.items()}, indent=1))
        return 0
    print(f"settings: {settings}\n")
    for case, row in report["cases"].items():
        print(table(case, row["comparison"]) + "\n")
    print(f"Δ = (cclab − ns-3) / ns-3; slowdown = FCT / cclab's ideal FCT of the flow, in both. "
          f"Wall time {report['wall_s']:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
