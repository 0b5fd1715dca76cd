#!/usr/bin/env python3
"""How much Figure 4's MR-AIMD claims depend on RED's parameters, which the paper leaves open.

    .venv/bin/python bench/mraimd/red_sensitivity.py [--seeds N]

MR-AIMD does not cut its window on an ECN mark (§3.1: a mark only slows the growth of a),
so its queue rises until RED drops, and where RED starts dropping decides its goodput and
retransmissions. The paper says "RED" and nothing more; the reproduction uses ns-2.35's
automatic thresholds and weight, gentle, max_p 0.1. This runs Figure 4's scenario
(48 Mb/s, 40 ms, one-BDP buffer, 200 s) at 10 and 100 flows under other RED settings and
prints MR-AIMD (ECN-capable) against AIMD (TCP-SACK without ECN), means over seeds.
Claim 1 (10 flows: equal goodput within 5 %) and claim 3 (100 flows: MR-AIMD retransmits
less) are judged on each row as the reproduction judges them.
"""
from __future__ import annotations

import argparse
import statistics

import cclab
from cclab.papers.mraimd.scenarios import AIMD, MRAIMD, section4

SETTINGS = {
    "ns-2.35 automatic (the reproduction's)": "red",
    "gentle off": {"kind": "red", "gentle": False},
    "max_p 0.5": {"kind": "red", "max_p": 0.5},
    "min_th 50, max_th 150 packets": {"kind": "red", "min_th": 50, "max_th": 150},
}


def measure(protocol: tuple, flows: int, queue, seeds: int) -> dict[str, float]:
    scenarios = []
    for seed in range(1, seeds + 1):
        scenario = section4(protocol, flows, seed=seed)
        scenario["topology"]["bottleneck"]["queue"] = queue
        scenarios.append(scenario)
    results = cclab.run_many(scenarios)
    return {"goodput_mbps": statistics.fmean(r.system["goodput_mbps"] for r in results),
            "retransmitted": statistics.fmean(float(r.flows["retransmitted_packets"].sum()) for r in results),
            "timeouts": statistics.fmean(float(r.flows["timeouts"].sum()) for r in results)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5, as the reproduction)")
    seeds = parser.parse_args().seeds
    print(f"Figure 4's scenario, seeds 1–{seeds}, MR-AIMD / AIMD\n")
    print("| RED | flows | goodput Mb/s | retransmissions | timeouts | claim 1 (10 flows, within 5 %) | claim 3 (100 flows, fewer retransmissions) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, queue in SETTINGS.items():
        for flows in (10, 100):
            mr, aimd = measure(MRAIMD, flows, queue, seeds), measure(AIMD, flows, queue, seeds)
            if flows == 10:
                gap = abs(mr["goodput_mbps"] - aimd["goodput_mbps"]) / aimd["goodput_mbps"]
                verdicts = f"{'holds' if gap <= 0.05 else 'fails'} ({gap:.1%} apart) | –"
            else:
                verdicts = f"– | {'holds' if mr['retransmitted'] < aimd['retransmitted'] else 'fails'}"
            print(f"| {name} | {flows} | {mr['goodput_mbps']:.2f} / {aimd['goodput_mbps']:.2f} | "
                  f"{mr['retransmitted']:.0f} / {aimd['retransmitted']:.0f} | "
                  f"{mr['timeouts']:.0f} / {aimd['timeouts']:.0f} | {verdicts} |")


if __name__ == "__main__":
    main()
