#!/usr/bin/env python3
"""RED + ECN + TCP(1, 0.5): ns-2.35 (bench/ns2/red_ecn.tcl) side by side with cclab.

    .venv/bin/python bench/ns2/red_compare.py          # -> bench/ns2/red_reference.json

Same dumbbell in both: N Sack1 flows, 100 Mb/s / 5 ms access links (1000-packet
buffers), RED bottleneck in packet mode with ns-2.35's automatic thresholds and weight
(gentle_, wait_, linterm_ 10, mean_pktsize_ 500), flows started i·1 s/N apart, 100 s,
1000-byte payloads.  ECN on: RED setbit_ true / cclab queue ecn = true, and ns-2 ecn_ 1 /
cclab tcp.ecn = true.  ECN off: both drop instead of marking.  Needs /usr/bin/ns.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = "bench/ns2/red_ecn.tcl"
SEEDS = (1, 2, 3)
# (name, bottleneck rate ns-2 / cclab, delay, buffer, flow counts)
SETUPS = [("1Mbps_20ms_buf25", "1Mb", "1Mbps", "20ms", 25, (1, 2, 4, 8)),
          ("10Mbps_20ms_buf100", "10Mb", "10Mbps", "20ms", 100, (10,))]
METRICS = ("goodput_mbps", "bottleneck_drops", "bottleneck_marks", "retransmitted_packets", "timeouts",
           "ecn_reactions")


def ns2_args(rate, delay, buffer, flows, ecn, seed, duration=100):
    return [f"bottleneck_rate={rate}", f"bottleneck_delay={delay}", f"buffer={buffer}", f"flows={flows}",
            f"ecn={int(ecn)}", f"seed={seed}", f"duration={duration}"]


def run_ns2(args: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["ns", SCRIPT, *args, f"trace_file={tmp}/q.tr"], check=True, capture_output=True,
                             text=True, timeout=600).stdout
    raw = json.loads(out.strip().splitlines()[-1])
    return {"goodput_mbps": raw["system_goodput_mbps"], "bottleneck_drops": raw["bottleneck_drops"],
            "bottleneck_marks": raw["bottleneck_marks"], "retransmitted_packets": sum(raw["retransmitted_packets"]),
            "timeouts": sum(raw["timeouts"]), "ecn_reactions": sum(raw["ecn_responses"]),
            "red_min_th": raw["red_min_th"], "red_max_th": raw["red_max_th"], "red_q_weight": raw["red_q_weight"]}


def cclab_scenario(rate, delay, buffer, flows, ecn, seed, duration=100) -> dict:
    access = {"rate": "100Mbps", "delay": "5ms", "buffer": 1000}
    return {
        "name": f"red-ecn ns-2 cross-check N={flows} ecn={int(ecn)}", "duration": f"{duration}s", "seed": seed,
        "packet_size": "1000B",
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": rate, "delay": delay, "buffer": buffer,
                                    "queue": {"kind": "red", "mode": "packets", "ecn": bool(ecn)}},
                     "source_access": access, "sink_access": dict(access)},
        "flows": [{"count": flows, "cc": {"algorithm": "aimd", "alpha": 1.0, "beta": 0.5}, "tcp": {"ecn": bool(ecn)},
                   "start": {"stagger": "1s"}}],
    }


def run_cclab(scenario: dict) -> dict:
    import cclab

    result = cclab.run(scenario)
    system, flows = result.system, result.flows
    return {"goodput_mbps": system["goodput_mbps"], "bottleneck_drops": system["bottleneck_drops"],
            "bottleneck_marks": system["bottleneck_ecn_marks"],
            "retransmitted_packets": int(flows["retransmitted_packets"].sum()),
            "timeouts": int(flows["timeouts"].sum()), "ecn_reactions": int(flows["ecn_reactions"].sum())}


def cases():
    for name, ns_rate, rate, delay, buffer, counts in SETUPS:
        for flows in counts:
            for ecn in (True, False):
                yield name, ns_rate, rate, delay, buffer, flows, ecn


def main() -> None:
    jobs = [(case, seed) for case in cases() for seed in SEEDS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        ns2 = list(pool.map(lambda job: run_ns2(ns2_args(job[0][1], job[0][3], job[0][4], job[0][5], job[0][6],
                                                         job[1])), jobs))
    ours = [run_cclab(cclab_scenario(c[2], c[3], c[4], c[5], c[6], seed)) for c, seed in jobs]
    out = {
        "what": "RED (+ECN) + TCP(1, 0.5) Sack1: ns-2.35 vs cclab, means over seeds " + ", ".join(map(str, SEEDS)),
        "commands": {"ns2": f"ns {SCRIPT} bottleneck_rate=1Mb bottleneck_delay=20ms buffer=25 flows=N ecn=0|1 "
                            "seed=S duration=100",
                     "cclab": "cclab_scenario(...) in bench/ns2/red_compare.py (cclab.run)",
                     "regenerate": ".venv/bin/python bench/ns2/red_compare.py"},
        "notes": __doc__.strip().splitlines()[3:9],
        "cases": {},
    }
    for case in cases():
        name, _, _, _, _, flows, ecn = case
        mine = [i for i, (c, _) in enumerate(jobs) if c == case]
        entry = {"ns2_command": "ns " + SCRIPT + " " + " ".join(ns2_args(case[1], case[3], case[4], flows, ecn, 1))}
        for metric in METRICS:
            a = statistics.mean(ns2[i][metric] for i in mine)
            b = statistics.mean(ours[i][metric] for i in mine)
            entry[metric] = {"ns2": round(a, 4), "cclab": round(b, 4),
                             "ns2_per_seed": [ns2[i][metric] for i in mine],
                             "cclab_per_seed": [ours[i][metric] for i in mine]}
        entry["ns2_red"] = {k: ns2[mine[0]][k] for k in ("red_min_th", "red_max_th", "red_q_weight")}
        out["cases"][f"{name}/N={flows}/ecn={int(ecn)}"] = entry
    path = HERE / "red_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(path)
    print(f"{'case':34} " + " ".join(f"{m[:14]:>22}" for m in METRICS))
    for key, entry in out["cases"].items():
        print(f"{key:34} " + " ".join(f"{entry[m]['ns2']:>10.4g}/{entry[m]['cclab']:<11.4g}" for m in METRICS))


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1] / "python"))
    os.chdir(HERE.parents[1])
    main()
