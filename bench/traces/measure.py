#!/usr/bin/env python3
"""How fast links that follow traces run, against real time and against constant-rate
links of the same mean rate.

    .venv/bin/python bench/traces/measure.py [--repeats 3] [--json]

1. Cellular: one CUBIC flow for 60 s over a 60-s trace of cclab's Markov-modulated
   cellular model (``cclab trace make cellular --seed 1``), 20-ms one-way delay, 1-BDP
   droptail at its mean rate (Mahimahi's setting): wall time, and how many times faster
   than real time.
2. Cost per packet at 1 Gb/s and 10 Gb/s: 16 CUBIC flows over a link that follows a
   constant trace of the rate (83 and 831 opportunities per millisecond, one-millisecond
   period) or is a plain link of the trace's mean rate, 10 s (1 Gb/s) and 2 s (10 Gb/s);
   wall time per packet delivered through it, and the ratio of the two. Two topologies:
   Mahimahi's own (one link between the hosts: a graph a–b, every flow from a to b) and
   a dumbbell (access links of 100 Gb/s and 1 ms each side). Flows crossing a trace take
   no shortcuts (their links see every packet as an event: see the engine's
   `event_driven_links`), so on a dumbbell a trace's packets cost the events the plain
   link's pass-through access links save.

Wall times are the engine's own (the result's ``wall_time_s``), the best of
``--repeats`` (each run is deterministic: the spread is the machine's).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import cclab
from cclab import traces

DUMBBELL = {"kind": "dumbbell", "source_access": {"rate": "100Gbps", "delay": "1ms"},
            "sink_access": {"rate": "100Gbps", "delay": "1ms"}}


def _run(scenario: dict, repeats: int) -> tuple[float, cclab.Result]:
    best, result = float("inf"), None
    for _ in range(repeats):
        result = cclab.run(scenario)
        best = min(best, result.raw["wall_time_s"])
    return best, result


def cellular(folder: Path, repeats: int) -> dict:
    trace = folder / "cellular.up"
    trace.write_text(traces.mahimahi_text(traces.cellular(60_000, seed=1)))
    runs = cclab.core.mahimahi_opportunities(trace.read_text())
    mean_mbps = traces.describe(runs)["mean_rate_mbps"]
    scenario = {"name": "cellular", "duration": "60s", "packet_size": "1448B", "header_size": "52B",
                "topology": {**DUMBBELL, "bottleneck": {"delay": "20ms", "buffer": "1bdp",
                                                          "rate_schedule": {"kind": "mahimahi", "file": str(trace)},
                                                          "reverse_rate_schedule": {"kind": "mahimahi", "opportunities": [[1, 1]]}}},
                "flows": [{"cc": "cubic"}]}
    wall, result = _run(scenario, repeats)
    return {"trace_mean_mbps": mean_mbps, "goodput_mbps": result.system["goodput_mbps"], "wall_s": wall,
            "times_real_time": 60.0 / wall, "events": result.raw["events"]}


def per_packet(rate_gbps: int, duration: str, repeats: int, topology: str) -> dict:
    per_ms = round(rate_gbps * 1e9 / (traces.OPPORTUNITY_BYTES * 8 * 1000))
    out = {}
    for kind in ("trace", "constant"):
        link = {"delay": "10ms", "buffer": "1bdp"}
        if kind == "trace":
            link["rate_schedule"] = {"kind": "mahimahi", "opportunities": [[1, per_ms]]}
        else:
            link["rate"] = f"{per_ms * traces.OPPORTUNITY_BYTES * 8 * 1000}bps"
        if topology == "dumbbell":
            network, flows, name = {**DUMBBELL, "bottleneck": link}, [{"cc": "cubic", "count": 16}], "r1-r2"
        else:
            network = {"kind": "graph", "links": [{"from": "a", "to": "b", **link}]}
            flows, name = [{"cc": "cubic", "count": 16, "from": "a", "to": "b"}], "a-b"
        scenario = {"name": f"{rate_gbps}g-{kind}", "duration": duration, "packet_size": "1448B", "header_size": "52B",
                    "topology": network, "flows": flows}
        wall, result = _run(scenario, repeats)
        packets = next(link["departures"] for link in result.raw["links"] if link["name"] == name)
        out[kind] = {"wall_s": wall, "packets": packets, "ns_per_packet": wall * 1e9 / packets,
                     "events": result.raw["events"], "utilization": result.system["bottleneck_utilization"]}
    out["ratio"] = out["trace"]["ns_per_packet"] / out["constant"]["ns_per_packet"]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        report = {"cellular_60s": cellular(Path(scratch), args.repeats)}
        for topology in ("single-link", "dumbbell"):
            report[f"1gbps {topology}"] = per_packet(1, "10s", args.repeats, topology)
            report[f"10gbps {topology}"] = per_packet(10, "2s", args.repeats, topology)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    c = report["cellular_60s"]
    print(f"60-s cellular trace (mean {c['trace_mean_mbps']:.2f} Mb/s), one CUBIC flow: {c['wall_s'] * 1e3:.1f} ms wall, "
          f"{c['times_real_time']:.0f}x real time, goodput {c['goodput_mbps']:.2f} Mb/s")
    for key in [key for key in report if "gbps" in key]:
        r = report[key]
        print(f"{key}: trace {r['trace']['ns_per_packet']:.0f} ns/packet ({r['trace']['packets']} packets), "
              f"constant {r['constant']['ns_per_packet']:.0f} ns/packet ({r['constant']['packets']} packets): "
              f"ratio {r['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
