"""BBR v1, BBRv3 and CUBIC on the dumbbell of ``dumbbell.toml`` (50 Mb/s, RTT 44 ms):
1 and 8 flows, DropTail buffers of 0.25, 0.5, 1 and 4 BDP, seeds 1-3. Prints one row per
case: goodput (Mb/s, all flows), mean queueing delay at the bottleneck (ms) and the
retransmission rate (retransmitted / data segments sent), each the mean over the seeds.

    .venv/bin/python bench/bbr3/compare.py [--seeds N] [--duration 60s] [--profile linux]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import cclab

HERE = Path(__file__).resolve().parent


def measure(cc: str, flows: int, buffer: str, seed: int, duration: str, profile: str | None) -> tuple[float, float, float]:
    overrides = {"flows.0.cc": cc, "flows.0.count": flows, "topology.bottleneck.buffer": buffer}
    if profile:
        overrides["profile"] = profile
    r = cclab.run(HERE / "dumbbell.toml", seed=seed, duration=duration, **overrides)
    sent = r.flows["data_packets_sent"].sum()
    retx = r.flows["retransmitted_packets"].sum()
    return r.system["goodput_mbps"], r.system["mean_queue_delay_ms"], retx / max(sent, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--duration", default="60s")
    parser.add_argument("--profile", default=None, help="rfc (the default), ns2 or linux")
    args = parser.parse_args()
    print("| flows | buffer | cc | goodput (Mb/s) | queueing delay (ms) | retransmissions |")
    print("| --- | --- | --- | --- | --- | --- |")
    for flows in (1, 8):
        for buffer in ("0.25bdp", "0.5bdp", "1bdp", "4bdp"):
            for cc in ("bbr", "bbr3", "cubic"):
                runs = [measure(cc, flows, buffer, seed, args.duration, args.profile) for seed in range(1, args.seeds + 1)]
                goodput, delay, retx = (sum(x) / len(runs) for x in zip(*runs))
                print(f"| {flows} | {buffer} | {cc} | {goodput:.2f} | {delay:.2f} | {100 * retx:.2f} % |", flush=True)


if __name__ == "__main__":
    main()
