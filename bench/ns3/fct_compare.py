#!/usr/bin/env python3
"""Flow completion times: cclab against ns-3.44 on one small dumbbell, flow by flow.

    .venv/bin/python bench/ns3/fct_compare.py [--cases pareto,fixed] [--seeds 1 2 3] [--json]
        [--initial-window 10] [--recovery sack|newreno] [--min-rto-ms 200] [--delayed-ack]
        [--pcap DIR] [--ns3-python /work/ns3-venv/bin/python] [--output bench/ns3/fct-reference.json]

Dumbbell: 4 source/sink pairs, each host on its own 100 Mb/s, 1 ms access link, a 10 Mb/s,
10 ms bottleneck r1→r2 (24 ms base RTT, BDP ≈ 29 packets), DropTail buffers of 50 packets
at the bottleneck and 1000 at the access links (both simulators count the packet in
transmission). TCP NewReno flows arrive as a Poisson process at load 0.5 for 20 s and the
run lasts 40 s; flow k uses pair k mod 4. Cases: Pareto sizes (mean 50 KB, shape 1.5) and
fixed 100-KB flows.

cclab runs the scenario (SCENARIO_TOML below) and its flows' start times, sizes and pairs go to
``fct_ns3.py``, which starts one ns-3 BulkSend per flow at the same instant, from the same
source to the same sink, with MaxBytes = the flow's size. Both use the same TCP settings
(the table in bench/ns3/README.md, "Flow completion times"): SACK with RFC 6675 recovery,
initial window 10, a handshake before data (cclab ``syn = true``), min RTO 200 ms, RTO clock
granularity 10 ms, initial RTO (and SYN timeout) 1 s, no delayed ACKs, 1000-byte segments
without timestamps. The options change one setting in both simulators at once
(``--recovery newreno`` is no like-for-like test: ns-3 without SACK still runs its
scoreboard on guessed SACK blocks, not RFC 6582).

Prints a Markdown table per case: completed flows, p50/p99/mean FCT, the per-flow ratio
cclab/ns-3 (median and IQR over flows completed in both), mean slowdown by size bucket
(both FCTs over cclab's ideal FCT of the flow), drops and SYN losses, then one summary
row per case and seed. ``--pcap DIR`` also keeps both simulators' captures of the
bottleneck and counts from them, per flow, who lost data and who sat silent for 150 ms
or more (waiting for a retransmission timer). Writes every flow of
both simulators to ``--output`` (default bench/ns3/fct-reference.json, merged by case and
seed; only with the default settings, otherwise give --output). A case and seed takes about
a minute (ns-3's import and run; cclab's run is under a second).
"""
from __future__ import annotations

import argparse
import json
import os
import struct
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
packet_size = "1000B"

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


def run_cclab(case: str, seed: int, args, pcap_dir: Path | None = None) -> tuple[str, dict]:
    import cclab

    text = SCENARIO_TOML.format(case=case, seed=seed, pairs=PAIRS, sizes=CASES[case], iw=args.initial_window,
                                recovery=args.recovery, min_rto=args.min_rto_ms,
                                delack="true" if args.delayed_ack else "false")
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text + ('\n[trace]\npcap = ["r1-r2"]\n' if pcap_dir else ""))
    try:
        result = cclab.run(f.name)
    finally:
        os.unlink(f.name)
    if pcap_dir:
        result.save(pcap_dir)  # pcap_dir/pcap/r1-r2.pcap
    fcts = result.fcts.reset_index(drop=True)
    bottleneck = next(link for link in result.raw["links"] if link["name"] == "r1-r2")
    flows = [{"start_s": float(row.start_s), "size_bytes": int(row.size_bytes), "pair": k % PAIRS,
              "completed": bool(row.completed), "fct_ms": None if not row.completed else float(row.fct_ms),
              "ideal_fct_ms": float(row.ideal_fct_ms)}
             for k, row in enumerate(fcts.itertuples())]
    return text, {"flows": flows, "bottleneck_drops": int(bottleneck["queue_drops"]),
                  "syn_drops": int(result.raw["conservation"]["syn_dropped"]),
                  "group": {k: (v.item() if hasattr(v, "item") else v) for k, v in result.groups.iloc[0].items()}}


def run_ns3(cclab_flows: list[dict], args, pcap_prefix: str | None = None) -> dict:
    spec = {"pairs": PAIRS, "duration_s": 40, "packet_size": 1000, **NS3_LINKS,
            "tcp": {"sack": args.recovery == "sack", "initial_window": args.initial_window,
                    "min_rto_ms": args.min_rto_ms, "initial_rto_ms": 1000, "granularity_ms": 10,
                    "delayed_ack": args.delayed_ack},
            "flows": [{k: flow[k] for k in ("start_s", "size_bytes", "pair")} for flow in cclab_flows]}
    if pcap_prefix:
        spec["pcap"] = pcap_prefix  # PREFIX-<node>-<device>.pcap; r1 is node 2·pairs
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


def read_pcap(path: Path, simulator: str) -> dict:
    """Per flow, the (time, sequence number) of every data packet the bottleneck transmitted.
    ns-3 (PPP framing): the flow is the destination port − 10000. cclab (raw IPv4): the
    ports name a flow slot, reused as flows end, so a flow starts at its slot's SYN."""
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    link = struct.unpack("<I", data[20:24])[0]
    skip = 2 if link == 9 else 0  # DLT_PPP's 2-byte header
    flows, slot_flow, slot_data, count, at = {}, {}, {}, 0, 24
    while at + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack("<IIII", data[at:at + 16])
        packet = data[at + 16 + skip:at + 16 + caplen]
        at += 16 + caplen
        ihl = (packet[0] & 15) * 4
        total = struct.unpack(">H", packet[2:4])[0]
        tcp = packet[ihl:]
        sport, dport, seq = struct.unpack(">HHI", tcp[:8])
        offset, flags = (tcp[12] >> 4) * 4, tcp[13]
        payload = total - ihl - offset
        if simulator == "ns3":
            if dport < 10000:
                continue
            key = dport - 10000
        else:
            slot = (packet[12:16], sport)
            if flags & 0x02 and (slot not in slot_flow or slot_data[slot]):  # a new flow's SYN
                slot_flow[slot], slot_data[slot], count = count, False, count + 1
            key = slot_flow[slot]
            slot_data[slot] |= payload > 0
        if payload > 0:
            flows.setdefault(key, []).append((sec + frac * scale, seq))
    return flows


def pcap_stats(flows: dict, silence_s: float = 0.15) -> dict:
    """Flows that lost data (a segment sent below the highest sent before it) and flows
    that waited for a retransmission timer (a silence of ≥ silence_s between two of their
    data packets: a flow here never waits that long for anything else)."""
    lossy = waited = 0
    for packets in flows.values():
        highest, lost = -1, False
        for _, seq in packets:
            lost |= seq < highest
            highest = max(highest, seq)
        lossy += lost
        waited += any(b[0] - a[0] >= silence_s for a, b in zip(packets, packets[1:]))
    return {"flows": len(flows), "flows_with_losses": lossy, "flows_waiting_for_a_timer": waited}


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
    both = [(x["fct_ms"], y["fct_ms"]) for x, y in zip(a, b) if x["completed"] and y["completed"]]
    slower = [p - q for p, q in both if p - q > 100]   # cclab more than 100 ms slower
    faster = [q - p for p, q in both if q - p > 100]   # ns-3 more than 100 ms slower
    return {
        "cclab": summary(a, ideal), "ns3": summary(b, ideal),
        "ratio": {"flows": len(ratio), "p25": pct(ratio, 25), "median": pct(ratio, 50), "p75": pct(ratio, 75),
                  "within_1pct": sum(abs(r - 1) <= 0.01 for r in ratio) / len(ratio),
                  "within_10pct": sum(abs(r - 1) <= 0.10 for r in ratio) / len(ratio),
                  "cclab_slower_by_100ms": len(slower), "ns3_slower_by_100ms": len(faster),
                  "median_excess_ms_cclab_slower": pct(slower, 50), "median_excess_ms_ns3_slower": pct(faster, 50)},
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
             f"| flows > 100 ms slower than in the other (median excess ms) | {r['cclab_slower_by_100ms']} "
             f"({(r['median_excess_ms_cclab_slower'] or 0):.0f}) | {r['ns3_slower_by_100ms']} "
             f"({(r['median_excess_ms_ns3_slower'] or 0):.0f}) | |",
             f"| bottleneck drops (SYNs) | {c['cclab_losses']['bottleneck_drops']} ({c['cclab_losses']['syn_drops']}) "
             f"| {c['ns3_losses']['bottleneck_drops']} ({c['ns3_losses']['syn_retransmissions']}) | |"]
    if "bottleneck_pcap" in c:
        a, b = c["bottleneck_pcap"]["cclab"], c["bottleneck_pcap"]["ns3"]
        rows += [f"| flows that lost data (pcap) | {a['flows_with_losses']} | {b['flows_with_losses']} | |",
                 f"| flows that waited ≥ 150 ms for a timer (pcap) | {a['flows_waiting_for_a_timer']} "
                 f"| {b['flows_waiting_for_a_timer']} | |"]
    return "\n".join(rows)


def summary_table(runs: dict) -> str:
    rows = ["| case, seed | flows | completed cclab / ns-3 | p50 FCT ms cclab / ns-3 (Δ) | p99 FCT ms cclab / ns-3 (Δ) "
            "| mean FCT ms cclab / ns-3 (Δ) | per-flow ratio median [IQR] | drops cclab / ns-3 |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for key, run in runs.items():
        c = run["comparison"]
        o, t, r = c["cclab"], c["ns3"], c["ratio"]

        def cell(metric):
            return f"{o[metric]:.0f} / {t[metric]:.0f} ({(o[metric] - t[metric]) / t[metric] * 100:+.1f} %)"

        rows.append(f"| {key} | {o['flows']} | {o['completed']} / {t['completed']} | {cell('p50_fct_ms')} | {cell('p99_fct_ms')} "
                    f"| {cell('mean_fct_ms')} | {r['median']:.3f} [{r['p25']:.3f}, {r['p75']:.3f}] "
                    f"| {c['cclab_losses']['bottleneck_drops']} / {c['ns3_losses']['bottleneck_drops']} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--seeds", type=int, nargs="+", default=[1], help="cclab's seeds (the arrivals and sizes)")
    parser.add_argument("--initial-window", type=int, default=10)
    parser.add_argument("--recovery", choices=["sack", "newreno"], default="sack",
                        help="sack: SACK on, RFC 6675 recovery; newreno: SACK off")
    parser.add_argument("--min-rto-ms", type=int, default=200)
    parser.add_argument("--delayed-ack", action="store_true")
    parser.add_argument("--ns3-python", default=NS3_PYTHON)
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON instead of tables")
    parser.add_argument("--pcap", type=Path, default=None,
                        help="write both simulators' bottleneck pcaps under this folder and count, per flow, "
                             "losses and waits for a retransmission timer")
    parser.add_argument("--output", type=Path, default=None,
                        help="default: bench/ns3/fct-reference.json with the default TCP settings, else none")
    args = parser.parse_args()
    settings = {"initial_window": args.initial_window, "recovery": args.recovery, "min_rto_ms": args.min_rto_ms,
                "delayed_ack": args.delayed_ack}
    default_setup = settings == {"initial_window": 10, "recovery": "sack", "min_rto_ms": 200, "delayed_ack": False}
    output = args.output or (HERE / "fct-reference.json" if default_setup else None)
    runs = {}
    started = time.perf_counter()
    for seed in args.seeds:
        for case in [c.strip() for c in args.cases.split(",") if c.strip()]:
            where = args.pcap / f"{case}-{seed}" if args.pcap else None
            text, ours = run_cclab(case, seed, args, where / "cclab" if where else None)
            tick = time.perf_counter()
            theirs = run_ns3(ours["flows"], args, str(where / "ns3") if where else None)
            print(f"{case}, seed {seed}: ns-3 {time.perf_counter() - tick:.0f} s", file=sys.stderr, flush=True)
            comparison = compare(ours, theirs)
            if where:
                comparison["bottleneck_pcap"] = {
                    "cclab": pcap_stats(read_pcap(where / "cclab" / "pcap" / "r1-r2.pcap", "cclab")),
                    "ns3": pcap_stats(read_pcap(where / f"ns3-{2 * PAIRS}-{PAIRS}.pcap", "ns3"))}
            runs[f"{case}, seed {seed}"] = {"case": case, "seed": seed, "scenario_toml": text,
                                            "comparison": comparison, "cclab_group": ours["group"],
                                            "cclab_flows": ours["flows"], "ns3_flows": theirs["flows"],
                                            "ns3_events": theirs["events"]}
    wall = time.perf_counter() - started
    if output:
        # runs are merged by case and seed into a file with the same settings
        saved = json.loads(output.read_text()) if output.exists() else {}
        kept = saved.get("runs", {}) if saved.get("settings") == settings else {}
        output.write_text(json.dumps({"settings": settings, "runs": {**kept, **runs}}, indent=1) + "\n")
    if args.json:
        print(json.dumps({"settings": settings, "wall_s": wall,
                          "runs": {key: run["comparison"] for key, run in runs.items()}}, indent=1))
        return 0
    print(f"settings: {settings}\n")
    for key, run in runs.items():
        print(table(key, run["comparison"]) + "\n")
    print(summary_table(runs) + "\n")
    print(f"Δ = (cclab − ns-3) / ns-3; slowdown = FCT / cclab's ideal FCT of the flow, in both. "
          f"Wall time {wall:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
