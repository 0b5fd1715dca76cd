#!/usr/bin/env python3
"""Westwood+ and NewReno in cclab, ns-2.35 and ns-3.44 on one scenario (issue: Westwood
family cross-check).

    .venv/bin/python bench/ns2/westwood_compare.py [--seeds 3] [--duration 100] [--no-ns3]

Scenario: one flow, 5 Mb/s / 33 ms bottleneck with a 44-packet DropTail buffer, 100 Mb/s /
1 ms access links (70 ms base RTT), 1 % Bernoulli loss of data packets at the head of the
sink access link, 1000-byte payloads, no delayed ACKs, 100 s.

- ns-2.35: ``bench/ns2/dumbbell.tcl`` with ``recovery=newreno`` (Agent/TCP/Newreno) and
  ``recovery=linux linux_ca=westwood`` (Agent/TCP/Linux: an older copy of Linux's
  tcp_westwood.c with ns-2's glue, SACK and timestamps).
- cclab: ``reno`` and ``westwood-plus`` (and the paper's ABSE / BE for reference), NewReno
  recovery for the first two as in ns-2's Newreno agent, SACK for Westwood+ as Linux.
- ns-3.44 (``pip install ns3==3.44.post0``): TcpNewReno and TcpWestwoodPlus with ns-3's
  defaults (SACK on, its own per-RTT sampling and Tustin filter).

Prints one Markdown table (mean ± sample s.d. over seeds) and writes
``bench/ns2/westwood_reference.json``. Needs /usr/bin/ns; ns-3 is skipped when absent.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NS2_ARGS = ["flows=1", "bottleneck_rate=5Mb", "bottleneck_delay=33ms", "source_delay=1ms", "sink_delay=1ms",
            "access_rate=100Mb", "buffer=44", "sink_loss=0.01", "stagger=0"]
NS2_CASES = {"NewReno": ["recovery=newreno"], "Westwood+": ["recovery=linux", "linux_ca=westwood"]}
CCLAB_CASES = {"NewReno": ("reno", "newreno"), "Westwood+": ({"algorithm": "westwood-plus"}, "sack"),
               "Westwood+ (kernel 2.6.22)": ({"algorithm": "westwood-plus", "kernel": "2.6.22"}, "sack"),
               "ABSE (paper)": ({"algorithm": "westwood-abse"}, "newreno"),
               "BE (paper)": ({"algorithm": "westwood-be"}, "newreno")}


def run_ns2(case: str, seed: int, duration: float) -> dict:
    done = subprocess.run(["ns", str(HERE / "dumbbell.tcl"), *NS2_ARGS, *NS2_CASES[case], f"seed={seed}",
                           f"duration={duration:g}"], capture_output=True, text=True, check=True, timeout=600)
    line = next(line for line in done.stdout.splitlines() if line.startswith("{"))
    result = json.loads(line)
    return {"goodput_mbps": result["system_goodput_mbps"], "retransmitted_packets": result["retransmitted_packets"][0],
            "timeouts": result["timeouts"][0]}


def cclab_scenario(case: str, seed: int, duration: float) -> dict:
    cc, recovery = CCLAB_CASES[case]
    return {
        "name": f"westwood cross-check {case}", "duration": f"{duration:g}s", "seed": seed, "packet_size": "1000B",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "5Mbps", "delay": "33ms", "buffer": 44},
                     "source_access": {"rate": "100Mbps", "delay": "1ms", "buffer": 44},
                     "sink_access": {"rate": "100Mbps", "delay": "1ms", "buffer": 44,
                                     "loss": {"model": "bernoulli", "rate": 0.01}}},
        "flows": [{"count": 1, "cc": cc, "tcp": {"recovery": recovery}}],
    }


def run_cclab(case: str, seed: int, duration: float) -> dict:
    import cclab

    flow = cclab.run(cclab_scenario(case, seed, duration)).flows.iloc[0]
    return {"goodput_mbps": float(flow["goodput_mbps"]), "retransmitted_packets": int(flow["retransmitted_packets"]),
            "timeouts": int(flow["timeouts"])}


NS3_CLASSES = {"NewReno": "ns3::TcpNewReno", "Westwood+": "ns3::TcpWestwoodPlus"}


def run_ns3(case: str, seed: int, duration: float) -> dict:
    """The same path in ns-3.44 (in a subprocess: ns-3's bindings keep global state)."""
    done = subprocess.run([sys.executable, str(HERE / "westwood_ns3.py"), NS3_CLASSES[case], str(seed),
                           f"{duration:g}"], capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "ns-3 failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summarise(samples: list[dict]) -> dict:
    table = {}
    for metric in ("goodput_mbps", "retransmitted_packets", "timeouts"):
        values = [sample[metric] for sample in samples]
        if any(value != value for value in values):  # not measured (ns-3's counters are not read)
            table[metric] = {"mean": float("nan"), "sd": float("nan"), "values": values}
            continue
        table[metric] = {"mean": statistics.fmean(values), "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
                         "values": values}
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=100)
    parser.add_argument("--no-ns3", action="store_true")
    args = parser.parse_args()
    seeds = range(1, args.seeds + 1)
    rows: dict[tuple[str, str], dict] = {}
    if shutil.which("ns"):
        for case in NS2_CASES:
            rows[("ns-2.35", case)] = summarise([run_ns2(case, seed, args.duration) for seed in seeds])
    for case in CCLAB_CASES:
        rows[("cclab", case)] = summarise([run_cclab(case, seed, args.duration) for seed in seeds])
    if not args.no_ns3:
        try:
            for case in NS3_CLASSES:
                rows[("ns-3.44", case)] = summarise([run_ns3(case, seed, args.duration) for seed in seeds])
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print(f"ns-3 skipped: {error}", file=sys.stderr)
    print(f"| simulator | protocol | goodput Mb/s | retransmitted | timeouts |  ({len(seeds)} seeds, {args.duration:g} s)")
    print("| --- | --- | --- | --- | --- |")
    for (simulator, case), table in rows.items():
        cells = [f"{table[m]['mean']:.3f} ± {table[m]['sd']:.3f}" if m == "goodput_mbps" else
                 f"{table[m]['mean']:.1f} ± {table[m]['sd']:.1f}" for m in ("goodput_mbps", "retransmitted_packets",
                                                                            "timeouts")]
        print(f"| {simulator} | {case} | " + " | ".join(cells) + " |")
    reference = {f"{simulator} {case}": table for (simulator, case), table in rows.items()}
    (HERE / "westwood_reference.json").write_text(json.dumps(reference, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
