"""Issue 37's verdicts: the criteria judged on the means of the kernel's runs and cclab's
seeds, the summary over cases, and single runs judged like for like (``compare.py``)."""
from __future__ import annotations

import math
import statistics
from typing import Any, Optional

from compare_tables import CRITERIA

# The criteria of issue 37.
GOODPUT_TOLERANCE = 0.05
DELAY_TOLERANCE, DELAY_FLOOR_MS = 0.15, 3.0
RETRANS_TOLERANCE, RETRANS_FLOOR = 0.30, 25
SHARE_TOLERANCE = 0.06


SCALARS = ("goodput_mbps", "retransmissions", "queue_delay_ms", "queue_delay_p95_ms", "drops", "utilization",
           "uplink_packets", "ack_path_packets")
LISTS = ("flow_goodput_mbps", "shares", "flow_retransmissions")


def summarise(samples: list[dict]) -> dict:
    """Mean, min, max and the values of each number over runs (or seeds); per-flow lists
    element by element."""
    out: dict[str, Any] = {"runs": len(samples)}
    for key in SCALARS:
        values = [s[key] for s in samples if s.get(key) is not None]
        out[key] = ({"mean": statistics.fmean(values), "min": min(values), "max": max(values), "values": values}
                    if values else None)
    for key in LISTS:
        columns = list(zip(*[s[key] for s in samples])) if samples else []
        out[key] = [statistics.fmean(c) if all(v is not None for v in c) else None for c in columns]
    return out


# The measure each criterion judges (shares aside).
MEASURE_OF = {"goodput": "goodput_mbps", "queue_delay": "queue_delay_ms", "retransmissions": "retransmissions"}


def judge(kernel: dict, ours: dict, flows: int) -> dict:
    """Issue 37's criteria on the means: {criterion: {ok, kernel, cclab, delta, limit}};
    ok is None where a criterion does not apply (a UDP flow's retransmissions, shares of
    a single flow)."""
    def mean(table, key):
        return table[key]["mean"] if table.get(key) else None

    verdict = {}
    for criterion, tolerance, floor in (("goodput", GOODPUT_TOLERANCE, 0.0),
                                        ("queue_delay", DELAY_TOLERANCE, DELAY_FLOOR_MS),
                                        ("retransmissions", RETRANS_TOLERANCE, RETRANS_FLOOR)):
        k, c = mean(kernel, MEASURE_OF[criterion]), mean(ours, MEASURE_OF[criterion])
        if k is None or c is None:
            verdict[criterion] = {"ok": None}
            continue
        limit = max(tolerance * abs(k), floor)
        verdict[criterion] = {"ok": abs(c - k) <= limit, "kernel": k, "cclab": c, "delta": c - k, "limit": limit,
                              "relative": (c - k) / k if k else math.nan}
    if flows > 1 and kernel.get("shares") and ours.get("shares"):
        gaps = [c - k for k, c in zip(kernel["shares"], ours["shares"])]
        worst = max(gaps, key=abs)
        verdict["shares"] = {"ok": abs(worst) <= SHARE_TOLERANCE, "kernel": kernel["shares"], "cclab": ours["shares"],
                             "delta": worst, "limit": SHARE_TOLERANCE}
    else:
        verdict["shares"] = {"ok": None}
    verdict["passes"] = all(v["ok"] is not False for v in verdict.values())
    return verdict


def overlaps_kernel_runs(case: dict, criterion: str) -> Optional[bool]:
    """Whether the range of cclab's seeds meets the range of the kernel's own runs (for shares:
    for every flow), for a case with two kernel runs or more; None with fewer."""
    if case["kernel"]["runs"] < 2:
        return None

    def meet(kernel: list, ours: list) -> bool:
        return min(ours) <= max(kernel) and min(kernel) <= max(ours)

    if criterion == "shares":
        kernel_runs, cclab_runs = [run["shares"] for run in case["kernel_runs"]], [run["shares"] for run in case["cclab_runs"]]
        return all(meet([r[i] for r in kernel_runs], [r[i] for r in cclab_runs]) for i in range(len(kernel_runs[0])))
    key = MEASURE_OF[criterion]
    return meet(case["kernel"][key]["values"], case["cclab"][key]["values"])


def single_runs_meeting(case: dict) -> Optional[dict]:
    """For a case the kernel ran twice or more: how many of its runs meet the criteria
    against the mean of its other runs, and how many of cclab's seeds against the mean of
    the same runs (seed k: all but run k mod n; the same judge, one run in cclab's place).
    Like for like: how far the kernel's own repetitions reach, beside cclab's seeds. None
    with fewer runs."""
    runs = case["kernel_runs"]
    if len(runs) < 2:
        return None
    flows = len(runs[0]["flow_goodput_mbps"])

    def passes(k: int, single: dict) -> bool:   # against the mean of the kernel's runs but run k
        k %= len(runs)
        return judge(summarise(runs[:k] + runs[k + 1:]), summarise([single]), flows)["passes"]

    kernel = [passes(k, run) for k, run in enumerate(runs)]
    ours = [passes(k, seed) for k, seed in enumerate(case["cclab_runs"])]
    return {"kernel": [sum(kernel), len(kernel)], "cclab": [sum(ours), len(ours)]}


def summary(cases: dict) -> dict:
    out: dict[str, Any] = {"cases": len(cases), "passing_all": sum(1 for c in cases.values() if c["criteria"]["passes"])}
    for criterion in CRITERIA:
        judged = [c["criteria"][criterion]["ok"] for c in cases.values() if c["criteria"][criterion]["ok"] is not None]
        out[criterion] = {"pass": sum(judged), "judged": len(judged)}
    # A miss where cclab's seeds and the kernel's runs overlap is one the kernel's own spread reaches.
    spread = [overlaps_kernel_runs(c, criterion) for c in cases.values() for criterion in CRITERIA
              if c["criteria"][criterion]["ok"] is False]
    out["misses"] = {"count": len(spread), "with_repeated_kernel_runs": sum(v is not None for v in spread),
                     "overlapping_kernel_runs": sum(v is True for v in spread)}
    singles = [c["single_runs"] for c in cases.values() if c.get("single_runs")]
    out["single_runs"] = {who: [sum(s[who][0] for s in singles), sum(s[who][1] for s in singles)]
                          for who in ("kernel", "cclab")} | {"cases": len(singles)}
    return out


def worst(cases: dict, criterion: str, count: int = 5) -> list[tuple[str, dict]]:
    """The cases that miss ``criterion`` by the most (by how many times the tolerance)."""
    missed = [(name, c["criteria"][criterion]) for name, c in cases.items() if c["criteria"][criterion]["ok"] is False]
    missed.sort(key=lambda item: -abs(item[1]["delta"]) / item[1]["limit"])
    return missed[:count]
