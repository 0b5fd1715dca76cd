#!/usr/bin/env python3
"""UCLA's original TCP Westwood agent in ns-2.35, as the reference for cclab's
``westwood-be`` with ``profile = "ucla"`` (``bench/ns2/westwood_ucla.md`` says what the
agent is and what an ns-2 binary must contain to run it).

    CCLAB_NS=/path/to/ns-with-westwoodnr .venv/bin/python bench/ns2/westwood_ucla_reference.py [--seeds 5]

Runs, with WestwoodNR and with ns-2's NewReno agent, the Westwood reproduction's own
scenarios (``cclab.papers.westwood.scenarios``, 100 s, NewReno recovery, cclab's
``tcp.profile = "ns2"`` recorded for the cclab side): the Fig. 2 case (2 flows, 5 Mb/s,
70 ms, buffer 42), the 1 %-loss case (1 flow, same link) and the Fig. 18 wired-wireless
error-rate sweep, each for every seed, through ``cclab.ns2.run`` (the same translation as
``cclab crosscheck``). Writes ``bench/ns2/westwood_ucla_reference.json``: per case the
normalised scenario, per seed each flow's goodput, time-average estimate after 10 s
(WestwoodNR's ``current_bwe_`` sampled every 10 ms), timeouts and retransmissions, and
the means; prints one Markdown table. ``tests/test_westwood_ucla.py`` runs cclab on the
recorded scenarios and compares.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "westwood_ucla_reference.json"
WARMUP_S = 10.0
UCLA = ("BE (UCLA)", {"algorithm": "westwood-be", "profile": "ucla"})
ERROR_RATES = (0.0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05)
AGENT = ("ns-2.35 (hbatmit/ns2.35 at f95482f, a clean 2.35 import) with UCLA's tcp/tcp-westwood-nr.{cc,h} "
         "(v1.3, 2002/06/21, from tomky/ns2-11n) and its Tcl defaults (filter_type_ 3, tau_ 1, fr_a_ 1, "
         "min_rtt_estimate 10000)")


def cases(duration_s: float) -> list[dict]:
    """(key, protocol, scenario builder) for every reference case."""
    from cclab.papers.westwood import scenarios

    out = []
    for protocol in (UCLA, scenarios.NEWRENO):
        out.append({"key": "fig2 congestion", "protocol": protocol[0],
                    "build": lambda seed, p=protocol: scenarios.estimates(p, "congestion", duration_s=duration_s,
                                                                           seed=seed, profile="ns2")})
        out.append({"key": "fig3 1% loss", "protocol": protocol[0],
                    "build": lambda seed, p=protocol: scenarios.estimates(p, "loss", duration_s=duration_s, seed=seed,
                                                                           profile="ns2")})
        for rate in ERROR_RATES:
            out.append({"key": f"fig18 wired-wireless {rate:g}", "protocol": protocol[0], "error_rate": rate,
                        "build": lambda seed, p=protocol, r=rate: scenarios.wired_wireless(
                            p, r, duration_s=duration_s, seed=seed, profile="ns2", trace=True)})
    return out


def measure(result) -> dict:
    """Per flow: goodput, the time-average estimate after the warm-up (None without one),
    timeouts, retransmissions."""
    from cclab.papers.westwood.shared import time_average, to_mbps

    flows = result.flows.sort_values("id")
    ere = []
    traces = result.traces["flows"] if result.traces is not None else None
    for flow_id in flows["id"]:
        if traces is None or "cc_ere_pps" not in traces:
            ere.append(None)
            continue
        trace = traces[traces["flow_id"] == flow_id]
        trace = trace.assign(ere_mbps=to_mbps(trace["cc_ere_pps"]))
        ere.append(time_average(trace, "ere_mbps", WARMUP_S, result.duration_s))
    return {"goodput_mbps": [float(x) for x in flows["goodput_mbps"]], "ere_mbps": ere,
            "timeouts": [int(x) for x in flows["timeouts"]],
            "retransmitted": [int(x) for x in flows["retransmitted_packets"]]}


def means(runs: list[dict]) -> dict:
    """Means over seeds and flows (the estimate only where there is one)."""
    out = {}
    for metric in ("goodput_mbps", "ere_mbps", "timeouts", "retransmitted"):
        values = [v for run in runs for v in run[metric] if v is not None]
        out[metric] = statistics.fmean(values) if values else None
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=100)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    import cclab
    from cclab.core import version as core_version
    from cclab.ns2.run import ns_binary, run as run_ns2

    binary = ns_binary()
    seeds = list(range(1, args.seeds + 1))
    started = time.perf_counter()
    work = []
    for case in cases(args.duration):
        case["scenario"] = cclab.validate(case["build"](1))
        work += [(case, seed) for seed in seeds]

    def one(item):
        case, seed = item
        return run_ns2(cclab.validate(case["build"](seed)))

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, work))
    for (case, seed), result in zip(work, results):
        case.setdefault("runs", []).append({"seed": seed, **measure(result)})

    table = []
    for case in cases(args.duration):
        done = next(c for c in {id(c): c for c, _ in work}.values()
                    if c["key"] == case["key"] and c["protocol"] == case["protocol"])
        table.append({"key": done["key"], "protocol": done["protocol"], "error_rate": done.get("error_rate"),
                      "scenario": done["scenario"], "runs": done["runs"], "mean": means(done["runs"])})
    document = {
        "made_by": f"CCLAB_NS={shlex.quote(binary)} .venv/bin/python bench/ns2/westwood_ucla_reference.py "
                   f"--seeds {args.seeds} --duration {args.duration:g}",
        "simulator": AGENT, "seeds": seeds, "warmup_s": WARMUP_S, "cclab": core_version(),
        "wall_time_s": round(time.perf_counter() - started, 1), "cases": table,
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"| case | protocol | goodput Mb/s per flow | estimate Mb/s | timeouts | retransmitted |  "
          f"({len(seeds)} seeds, {args.duration:g} s, {document['wall_time_s']:.0f} s wall)")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in table:
        m = row["mean"]
        ere = f"{m['ere_mbps']:.3f}" if m["ere_mbps"] is not None else "–"
        print(f"| {row['key']} | {row['protocol']} | {m['goodput_mbps']:.3f} | {ere} | {m['timeouts']:.1f} | "
              f"{m['retransmitted']:.1f} |")
    print(f"wrote {OUT.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
