"""Prague and CUBIC sharing a DualPI2 bottleneck at equal RTTs: goodput of each, the
ratio, the L and C queues' mean delays and what each queue marked or dropped, over a
few rates, base RTTs, flow counts and seeds (60 s each, 1000-byte packets, a
1000-packet buffer). Prints a Markdown table (docs/algorithms-and-queues.md has one).

    .venv/bin/python bench/l4s/share.py
"""
from __future__ import annotations

import cclab

CASES = [("10Mbps", "20ms"), ("20Mbps", "10ms"), ("50Mbps", "5ms"), ("100Mbps", "20ms"), ("40Mbps", "40ms")]


def scenario(rate: str, delay: str, count: int, seed: int) -> dict:
    return {
        "duration": "60s", "seed": seed, "packet_size": "1000B",
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": rate, "delay": delay, "buffer": 1000, "queue": "dualpi2"},
                     "source_access": {"rate": "1Gbps", "delay": "1ms"},
                     "sink_access": {"rate": "1Gbps", "delay": "1ms"}},
        "flows": [{"group": "prague", "cc": "prague", "count": count},
                  {"group": "cubic", "cc": "cubic", "count": count}],
    }


def main() -> None:
    print("| bottleneck | base RTT | flows | seed | Prague Mb/s | CUBIC Mb/s | ratio | L delay ms | C delay ms "
          "| L marks | C drops | utilization |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for rate, delay in CASES:
        rtt = 2 * (float(delay.removesuffix("ms")) + 2)
        for count in (1, 2):
            for seed in (1, 2):
                r = cclab.run(scenario(rate, delay, count, seed))
                goodput = r.groups.set_index("name")["goodput_mbps"]
                q = r.queues[r.queues["link"] == r.system["bottleneck_link"]].set_index("queue")
                print(f"| {rate} | {rtt:g} ms | {count}+{count} | {seed} | {goodput['prague']:.2f} | "
                      f"{goodput['cubic']:.2f} | {goodput['prague'] / goodput['cubic']:.2f} | "
                      f"{q.loc['L', 'mean_delay_ms']:.2f} | {q.loc['C', 'mean_delay_ms']:.2f} | "
                      f"{q.loc['L', 'marks']} | {q.loc['C', 'drops']} | {r.system['bottleneck_utilization']:.3f} |")


if __name__ == "__main__":
    main()
