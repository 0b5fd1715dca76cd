"""Wall time, events/s, flows/s and peak memory of a short-flow scenario at several
durations (each run in its own process, so peak memory is the run's own):

    python bench/flows/measure.py bench/flows/poisson-10g.toml --duration 10s --duration 40s

Prints one JSON line per duration: flows started and completed, p50/p99 FCT, wall time,
events/s, flows/s and the process's peak resident memory.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import cclab
start = time.perf_counter()
result = cclab.run(sys.argv[1], duration=sys.argv[2])
wall = time.perf_counter() - start
group = result.raw["groups"][0]
fct = group.get("fct") or {}
print(json.dumps({
    "duration": sys.argv[2], "flows": fct.get("flows"), "completed": fct.get("completed"),
    "p50_fct_ms": fct.get("p50_fct_ms"), "p99_fct_ms": fct.get("p99_fct_ms"),
    "goodput_mbps": round(group["goodput_mbps"], 1), "wall_s": round(wall, 2),
    "events_per_s": round(result.raw["events"] / wall), "flows_per_s": round((fct.get("flows") or 0) / wall),
    "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario")
    parser.add_argument("--duration", action="append", default=None)
    arguments = parser.parse_args()
    for duration in arguments.duration or ["10s"]:
        subprocess.run([sys.executable, "-c", CHILD, arguments.scenario, duration], check=True)


if __name__ == "__main__":
    main()
