#!/usr/bin/env python3
"""Run the ns-2.35 reference cases and the ns-2 speed benchmark.

    python3 bench/ns2/run_reference.py reference   # -> bench/ns2/reference.json
    python3 bench/ns2/run_reference.py benchmark   # -> bench/ns2/benchmark.json

Needs /usr/bin/ns (Debian package ns2, ns-2.35).  Run from the repo root.
"""
import json
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = "bench/ns2/dumbbell.tcl"
PROTOCOLS = [(0.31, 0.875), (0.583, 0.75), (1.0, 0.5), (1.25, 0.25)]
TEN_MB = ["bottleneck_rate=10Mb", "access_rate=10Mb", "qmon=2"]


def command(args):
    return ["ns", SCRIPT] + list(args)


def run(args):
    out = subprocess.run(command(args), check=True, capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    assert len(lines) == 1, out.stdout
    return json.loads(lines[0])


def proto_args(a, b):
    return [f"alpha={a}", f"beta={b}"]


def reference():
    jobs = []  # (section, key, args)
    for a, b in PROTOCOLS:
        jobs.append(("a_single_flow_bdp_buffer", f"{a}/{b}",
                     ["flows=1"] + TEN_MB + ["buffer=88"] + proto_args(a, b)))
    for a, b in PROTOCOLS:
        for p in (0.001, 0.01, 0.03):
            for seed in (1, 2, 3):
                jobs.append(("b_single_flow_random_loss", f"{a}/{b}/p={p}/seed={seed}",
                             ["flows=1"] + TEN_MB + ["buffer=1000", f"sink_loss={p}",
                                                     f"seed={seed}"] + proto_args(a, b)))
    jobs.append(("c_standard_100_flows", "seed=1", ["seed=1"]))
    for a, b in PROTOCOLS:
        jobs.append(("d_10_flows_bdp_buffer", f"{a}/{b}",
                     ["flows=10"] + TEN_MB + ["buffer=88"] + proto_args(a, b)))

    with ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda j: run(j[2]), jobs))

    ref = {
        "simulator": "ns-2.35 (/usr/bin/ns, Debian ns2 2.35+dfsg)",
        "script": SCRIPT,
        "notes": [
            "All runs: 100 s, packet_size 1000 (+40 B header on the wire), "
            "Agent/TCP/Sack1 + Agent/TCPSink/Sack1 (no delayed ACK), window_ 100000, "
            "windowOption_ 1, increase_num_ = alpha, decrease_num_ = beta, "
            "delays 5/25/5 ms, other TCP parameters at ns-2.35 defaults.",
            "goodput = sink cumulative ACK (in-order data packets) * 1000 B * 8 / 100 s.",
            "sink_loss: ErrorModel (unit pkt, Uniform ranvar) at the head of the "
            "R2->sink link (ns lossmodel: before that link's queue).",
            "10 Mb/s, 1040-byte packets: the most data goodput possible is 9.615 Mb/s.",
            "10 Mb/s everywhere: the source access link S->R1 is as slow as R1->R2, so "
            "a single flow queues and drops at S->R1 (access_drops), never at R1->R2 "
            "(bottleneck_drops = 0); qmon=2 only adds counters, results are identical.",
        ],
        "cases": {},
    }
    for (section, key, args), res in zip(jobs, results):
        entry = {
            "command": " ".join(command(args)),
            "system_goodput_mbps": res["system_goodput_mbps"],
            "jain_index": res["jain_index"],
            "flow_goodput_mbps": res["flow_goodput_mbps"],
            "retransmitted_packets": sum(res["retransmitted_packets"]),
            "timeouts": sum(res["timeouts"]),
            "bottleneck_drops": res["bottleneck_drops"],
        }
        if "access_drops" in res:
            entry["access_drops"] = res["access_drops"]
        if res["flows"] > 1:
            entry["retransmitted_packets_per_flow"] = res["retransmitted_packets"]
            entry["timeouts_per_flow"] = res["timeouts"]
        ref["cases"].setdefault(section, {})[key] = entry

    # seed means for the random-loss section
    means = {}
    for key, e in ref["cases"]["b_single_flow_random_loss"].items():
        k = key.rsplit("/seed=", 1)[0]
        means.setdefault(k, []).append(e)
    ref["cases"]["b_single_flow_random_loss_mean_of_seeds_1_2_3"] = {
        k: {
            "goodput_mbps": round(statistics.mean(e["system_goodput_mbps"] for e in v), 4),
            "retransmitted_packets": round(statistics.mean(e["retransmitted_packets"] for e in v), 1),
            "timeouts": round(statistics.mean(e["timeouts"] for e in v), 1),
        }
        for k, v in means.items()
    }
    path = os.path.join(HERE, "reference.json")
    with open(path, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(path)


def timed(args):
    cmd = ["/usr/bin/time", "-v"] + command(args)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", out.stderr)
    parts = [float(x) for x in m.group(1).split(":")]
    wall = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)
    user = float(re.search(r"User time \(seconds\): (\S+)", out.stderr).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1))
    return {
        "command": "/usr/bin/time -v " + " ".join(command(args)),
        "wall_s": wall,
        "user_s": user,
        "peak_rss_kb": rss,
        "system_goodput_mbps": res["system_goodput_mbps"],
        "jain_index": res["jain_index"],
        "bottleneck_drops": res["bottleneck_drops"],
        "bottleneck_departures": res["bottleneck_departures"],
        "retransmitted_packets": sum(res["retransmitted_packets"]),
        "timeouts": sum(res["timeouts"]),
    }


def benchmark():
    runs = [timed([f"seed={s}"]) for s in (1, 2, 3)]  # sequential: timing
    setup = timed(["duration=0.0001"])
    noqmon = timed(["seed=1", "qmon=0"])
    out = {
        "scenario": "100 Sack1 flows, all links 100 Mb/s, delays 5/25/5 ms, "
                    "DropTail limit_ 875 everywhere, 100 s, alpha 1, beta 0.5",
        "machine_note": "one core of the 2-core project machine; wall times vary "
                        "by +-20% between identical runs",
        "runs": runs,
        "setup_only": setup,
        "seed1_without_queue_monitor": noqmon,
    }
    path = os.path.join(HERE, "benchmark.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(path)
    for r in runs:
        print(r["command"], r["wall_s"], r["peak_rss_kb"], r["system_goodput_mbps"], r["jain_index"])


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "reference"
    {"reference": reference, "benchmark": benchmark}[what]()
