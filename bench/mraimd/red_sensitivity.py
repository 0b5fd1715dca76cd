#!/usr/bin/env python3
"""How much Figure 4's MR-AIMD claims depend on RED's parameters, which the paper leaves open.

    .venv/bin/python bench/mraimd/red_sensitivity.py [--seeds N]

MR-AIMD does not cut its window on an ECN mark (§3.1: a mark only slows the growth of a),
so its queue rises until RED drops, and where RED starts dropping decides its goodput and
retransmissions. The paper says "RED" and nothing more; the reproduction uses ns-2.35's
automatic thresholds and weight, gentle, max_p 0.1. This runs Figure 4's points (48 Mb/s,
40 ms, one-BDP buffer, 200 s; MR-AIMD, AIMD, AIMD+ECN) at 10 and 100 flows under other RED
settings and judges Figure 4's claims on them with the reproduction's own rules.
"""
from __future__ import annotations

import argparse
import copy
from dataclasses import replace

import pandas as pd

import cclab
from cclab.papers.mraimd import figures

SETTINGS = {
    "ns-2.35 automatic (the reproduction's)": "red",
    "gentle off": {"kind": "red", "gentle": False},
    "max_p 0.5": {"kind": "red", "max_p": 0.5},
    "min_th 50, max_th 150 packets": {"kind": "red", "min_th": 50, "max_th": 150},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5, as the reproduction)")
    sizes = figures.FULL.with_seeds(parser.parse_args().seeds)
    figure = figures.FIGURES["fig4"]
    points = [point for point in figure.points(sizes) if point.labels["flows"] in (10, 100)]
    print(f"Figure 4's points at 10 and 100 flows, seeds 1–{len(sizes.seeds)}: verdicts by the reproduction's rules\n")
    print("| RED | goodput at 10 flows, Mb/s (MR-AIMD / AIMD / AIMD+ECN) | retransmissions at 100 flows | "
          "claim 1 (10 flows: the same goodput) | claim 3 (100 flows: fewer retransmissions) | "
          "claim 3's comparisons (vs AIMD, vs AIMD+ECN) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, queue in SETTINGS.items():
        scenarios = []
        for point in points:
            scenario = copy.deepcopy(point.scenario)
            scenario["topology"]["bottleneck"]["queue"] = queue
            scenario.pop("trace", None)
            scenarios.append(scenario)
        rows = [{**point.labels, **figure.measure(result, replace(point, trace_flow=-1))["runs"].iloc[0]}
                for point, result in zip(points, cclab.run_many(scenarios))]
        claims = figure.claims({"runs": pd.DataFrame(rows)}, sizes)
        runs = pd.DataFrame(rows).groupby(["flows", "protocol"]).mean(numeric_only=True)
        goodput = " / ".join(f"{runs.loc[(10, p), 'goodput_mbps']:.2f}" for p in ("MR-AIMD", "AIMD", "AIMD+ECN"))
        rtx = " / ".join(f"{runs.loc[(100, p), 'retransmitted_packets']:.0f}" for p in ("MR-AIMD", "AIMD", "AIMD+ECN"))
        retransmitted = runs["retransmitted_packets"].unstack()
        checks, _ = figures._vs_baselines("retransmissions", -1, retransmitted, 100,
                                          0.1 * retransmitted.loc[100].max(), ".0f")
        print(f"| {name} | {goodput} | {rtx} | {claims[0].verdict} | {claims[2].verdict} | "
              f"{', '.join('holds' if held else 'fails' for held in checks)} |")


if __name__ == "__main__":
    main()
