#!/usr/bin/env python3
"""The order a tick's packets leave the sender in, in a mix: kernel (a run.py capture) or cclab.

    python3 tick_order.py runs/NAME                       # the kernel's sender.pcap of a mix
    .venv/bin/python bench/linux/diag/tick_order.py --cclab tcp_r12_d20_b2bdp_cubic+cubic-m536 \\
        --reference bench/linux/mss.json --seeds 1,2,3    # cclab's, on compare.py's scenario

After the first 3 s, the ACKs reaching the sender are grouped by tick (a gap over 200 µs
starts a new group: Mahimahi releases a millisecond's ACKs together) and the data sent
after each group is that tick's group. Printed per flow: packets, delay of its sends from
the tick (p10/p50/p90), its mean rank in groups holding both flows' packets (0 the first,
1 the last), the originals of segments sent again later among them ("dropped") and their
mean rank, and the ACKs reaching the sender per packet it sent; and, of the ticks carrying
both flows' ACKs, whose came first (FINDINGS.md, "One host for all flows").
"""
from __future__ import annotations

import argparse
import bisect
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
PORTS = (5401, 5402)          # run.py's first two flows
TICK_GAP_S = 200e-6
SKIP_S = 3.0


def tick_order(data: list[tuple[float, int, int]], acks: list[tuple[float, int]]) -> dict:
    """``data``: (time s, flow, seq) of data sent, ``acks``: (time s, flow) of ACKs arriving,
    both after the start-up and sorted by time."""
    sent = Counter((flow, seq) for _, flow, seq in data)
    ticks, last = [], -1.0
    for t, _ in acks:
        if t - last > TICK_GAP_S:
            ticks.append(t)
        last = t
    groups: dict[int, list] = defaultdict(list)
    for packet in data:
        i = bisect.bisect_right(ticks, packet[0]) - 1
        if i >= 0:
            groups[i].append(packet)
    delay, rank, dropped, seen = defaultdict(list), defaultdict(list), defaultdict(list), set()
    for i, group in groups.items():
        mixed = len(group) > 1 and len({flow for _, flow, _ in group}) > 1
        for k, (t, flow, seq) in enumerate(group):
            delay[flow].append(t - ticks[i])
            if mixed:
                rank[flow].append(k / (len(group) - 1))
                if sent[(flow, seq)] > 1 and (flow, seq) not in seen:
                    dropped[flow].append(k / (len(group) - 1))
            seen.add((flow, seq))
    first: Counter = Counter()
    by_tick: dict[int, list[int]] = defaultdict(list)
    for t, flow in acks:
        by_tick[bisect.bisect_right(ticks, t) - 1].append(flow)
    for flows in by_tick.values():
        if len(set(flows)) > 1:
            first[flows[0]] += 1
    mean = lambda xs: round(statistics.mean(xs), 3) if xs else None  # noqa: E731
    data_by_flow, acks_by_flow = Counter(flow for _, flow, _ in data), Counter(flow for _, flow in acks)
    per_flow = {}
    for flow in sorted(delay):
        d = statistics.quantiles(delay[flow], n=10) if len(delay[flow]) > 1 else [0.0] * 9
        per_flow[flow] = {"packets": len(delay[flow]), "delay_us_p10_p50_p90": [round(d[j] * 1e6) for j in (0, 4, 8)],
                          "mean_rank": mean(rank[flow]), "dropped": len(dropped[flow]), "dropped_mean_rank": mean(dropped[flow]),
                          "acks_per_packet": round(acks_by_flow[flow] / data_by_flow[flow], 3)}
    return {"flows": per_flow, "ticks_with_both_acks": sum(first.values()), "first_ack_by_flow": dict(first)}


def kernel(run: Path) -> dict:
    sys.path.insert(0, str(HERE))
    from pcaplib import read_tcp

    packets = list(read_tcp(run / "sender.pcap"))
    t0 = packets[0][0]
    data = [(p[0], p[4], p[5]) for p in packets if p[4] in PORTS and p[8] >= 100 and p[0] - t0 > SKIP_S]
    acks = [(p[0], p[3]) for p in packets if p[3] in PORTS and p[8] == 0 and p[0] - t0 > SKIP_S]
    return tick_order(data, acks)


def cclab_runs(case: str, reference: Path, seeds: list[int]) -> list[tuple[int, dict]]:
    import tempfile

    sys.path.insert(0, str(HERE.parent))
    import cclab
    import compare

    ref = compare.load_reference(reference)
    out = []
    with tempfile.TemporaryDirectory() as folder:
        traces = compare.TraceFiles(Path(folder))
        for sc, info in compare.case_scenarios(case, ref["cases"][case], compare.runs_by_case(ref)[case], seeds,
                                               "linux", traces, reference):
            sc["trace"]["pcap"] = [f"{compare.SENDER}-r1", f"r1-{compare.SENDER}"]
            captures = {c["name"]: c for c in cclab.run(sc).raw["traces"]["captures"]}

            def rows(name, kind):
                c = captures[name]
                return [(t / 1e9, f, s) for t, k, f, s in zip(c["t_ns"], c["kind"], c["flow"], c["seq"])
                        if k == kind and f in (0, 1) and t / 1e9 > SKIP_S]
            data = rows(f"{compare.SENDER}-r1", 0)
            acks = [(t, f) for t, f, _ in rows(f"r1-{compare.SENDER}", 1)]
            out.append((info["seed"], tick_order(sorted(data), sorted(acks))))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", nargs="?", type=Path, help="a run.py directory with sender.pcap")
    p.add_argument("--cclab", metavar="CASE", help="a case of --reference, run in cclab")
    p.add_argument("--reference", type=Path, default=HERE.parent / "mss.json")
    p.add_argument("--seeds", default="1,2,3")
    a = p.parse_args()
    if bool(a.run) == bool(a.cclab):
        p.error("give a run directory or --cclab CASE")
    if a.run:
        if not (a.run / "sender.pcap").exists():
            p.error(f"{a.run}: no sender.pcap (run.py without --no-pcap makes one)")
        results = [(str(a.run), kernel(a.run))]
    else:
        try:
            seeds = [int(s) for s in a.seeds.split(",")]
        except ValueError:
            p.error(f"--seeds {a.seeds!r}: write seeds as 1,2,3")
        results = [(f"seed {seed}", r) for seed, r in cclab_runs(a.cclab, a.reference, seeds)]
    for label, r in results:
        print(f"{label}: ticks with both flows' ACKs {r['ticks_with_both_acks']}, first ACK by flow {r['first_ack_by_flow']}")
        for flow, f in r["flows"].items():
            print(f"  flow {flow}: {f['packets']} packets, from the tick p10/p50/p90 {f['delay_us_p10_p50_p90']} µs, "
                  f"mean rank {f['mean_rank']}, dropped {f['dropped']} (mean rank {f['dropped_mean_rank']}), "
                  f"ACKs per packet {f['acks_per_packet']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
