"""The experiments of Zhang & Tsaoussidis (2002), reproduced with cclab.

:func:`static_wired` is §5.1 (Figures 2 and 3): a dumbbell with
bw_bottleneck = bw_src = bw_dst, delays 5 ms (source) / 25 ms (bottleneck) / 5 ms (sink),
a one-BDP DropTail buffer, 1000-byte packets, 100 s, N = 10, 20, …, 100 flows of one
protocol, for each of TCP(0.31, 0.875), TCP(0.583, 0.75), TCP(1, 0.5), TCP(1.25, 0.25).
"""
from __future__ import annotations

import datetime
import json
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from os import PathLike
from pathlib import Path
from typing import Optional, Union

import pandas as pd

from cclab.core import version as core_version
from cclab.runs.api import sweep
from cclab.plots.traces import plot_static_wired
from cclab.results import Result

# (α, β) of the paper's four TCP-friendly protocols (Eq. 3), smoothest first.
PAPER_PROTOCOLS = ((0.31, 0.875), (0.583, 0.75), (1.0, 0.5), (1.25, 0.25))
PAPER_FLOW_COUNTS = tuple(range(10, 101, 10))
QUICK_FLOW_COUNTS = (10, 20, 40)
STATIC_WIRED_COLUMNS = [
    "protocol", "alpha", "beta", "bottleneck", "flows", "seed",
    "system_goodput_mbps", "jain_index", "bottleneck_drops", "retransmitted_packets", "timeouts",
]


def protocol_label(alpha: float, beta: float) -> str:
    return f"TCP({alpha:g}, {beta:g})"


def static_wired_scenario(alpha: float, beta: float, flows: int, bottleneck: str = "10Mbps",
                          duration: str = "100s", seed: int = 1) -> dict:
    """One point of §5.1: ``flows`` TCP(α, β) flows on the paper's dumbbell."""
    return {
        "name": f"static-wired {protocol_label(alpha, beta)} N={flows} {bottleneck}",
        "duration": duration,
        "seed": seed,
        "packet_size": 1000,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": bottleneck, "delay": "25ms", "queue": "droptail", "buffer": "1bdp"},
            "source_access": {"rate": bottleneck, "delay": "5ms"},
            "sink_access": {"rate": bottleneck, "delay": "5ms"},
        },
        "flows": [{
            "group": protocol_label(alpha, beta),
            "count": flows,
            "cc": {"algorithm": "aimd", "alpha": alpha, "beta": beta},
            "start": {"stagger": "1s"},
        }],
    }


def static_wired(out_dir: Union[str, PathLike], quick: bool = False, jobs: Optional[int] = None,
                 bottleneck: Union[str, Sequence[str]] = "10Mbps", *, seed: int = 1,
                 executor: Optional[Executor] = None, progress: bool = True) -> pd.DataFrame:
    """Run §5.1 and write static_wired.{parquet,csv,png} and meta.json to ``out_dir``.

    ``quick``: N ∈ {10, 20, 40} and 20 s instead of N = 10…100 and 100 s. ``bottleneck``
    is one rate or several ("10Mbps" for Figure 2, "100Mbps" for Figure 3). Points run
    in parallel on ``executor`` (default: a process pool of ``jobs`` workers). Nothing
    is written unless every point ran.
    """
    bottlenecks = [bottleneck] if isinstance(bottleneck, str) else list(bottleneck)
    flow_counts = QUICK_FLOW_COUNTS if quick else PAPER_FLOW_COUNTS
    duration = "20s" if quick else "100s"
    points = [(alpha, beta, rate, flows) for rate in bottlenecks for alpha, beta in PAPER_PROTOCOLS
              for flows in flow_counts]
    scenarios = [static_wired_scenario(alpha, beta, flows, rate, duration, seed) for alpha, beta, rate, flows in points]

    started = time.perf_counter()
    results = sweep(scenarios, executor, jobs=jobs, progress="static-wired" if progress else None)
    table = pd.DataFrame(
        [_static_wired_row(point, seed, result) for point, result in zip(points, results)],
        columns=STATIC_WIRED_COLUMNS,
    )

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table.to_parquet(out / "static_wired.parquet", index=False)
    table.to_csv(out / "static_wired.csv", index=False)
    plot_static_wired(table, out / "static_wired.png")
    meta = {
        "experiment": "static-wired (Zhang & Tsaoussidis 2002, §5.1, Figures 2 and 3)",
        "cclab_version": core_version(),
        "quick": quick,
        "bottlenecks": bottlenecks,
        "flow_counts": list(flow_counts),
        "protocols": [list(protocol) for protocol in PAPER_PROTOCOLS],
        "seed": seed,
        "points": len(points),
        "wall_time_s": time.perf_counter() - started,
        "example_scenario": scenarios[0],
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return table


def _static_wired_row(point: tuple, seed: int, result: Result) -> dict:
    alpha, beta, bottleneck, flows = point
    return {
        "protocol": protocol_label(alpha, beta), "alpha": alpha, "beta": beta, "bottleneck": bottleneck,
        "flows": flows, "seed": seed,
        "system_goodput_mbps": result.system["goodput_mbps"],
        "jain_index": result.system["jain_index"],
        "bottleneck_drops": result.system["bottleneck_drops"],
        "retransmitted_packets": int(result.flows["retransmitted_packets"].sum()),
        "timeouts": int(result.flows["timeouts"].sum()),
    }
