#!/usr/bin/env python3
"""General networks in ns-2.35 and cclab, side by side: a parking lot, a chain with UDP
cross traffic, and a two-way dumbbell (issue 9), through `cclab crosscheck`'s machinery
(:mod:`cclab.ns2`: the scenario translated to ns-2, run for each seed in both).

    .venv/bin/python bench/ns2/graph_compare.py            # 3 seeds -> bench/ns2/graph_reference.json
    .venv/bin/python bench/ns2/graph_compare.py --seeds 5 --case parking-lot

Metrics: per-group goodput (in-order payload delivered, Mb/s) and per-link-direction
drops, seed means. Needs /usr/bin/ns. The same table with every metric:
`cclab crosscheck experiments/graphs/<case>.toml`.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CASES = {
    "parking-lot": REPO / "experiments" / "graphs" / "parking-lot.toml",
    "chain-udp": REPO / "experiments" / "graphs" / "chain-udp.toml",
    "two-way-dumbbell": REPO / "experiments" / "graphs" / "two-way-dumbbell.toml",
}
SEEDS = (1, 2, 3)


def compare(path: Path, seeds=SEEDS, overrides: dict | None = None) -> dict:
    """Seed means of both simulators' per-group goodput and per-link drops."""
    import cclab
    from cclab.ns2.crosscheck import crosscheck

    check = crosscheck(cclab.validate(path, overrides or {}), seeds=list(seeds))
    groups = [g.get("group") or f"group{i}" for i, g in enumerate(check.scenario["flows"])]
    table: dict = {"seeds": list(seeds), "groups": {}, "drops": {}}
    for row in check.rows:
        kind, _, name = row.metric.partition(" ")
        if kind == "goodput" and name in groups:
            table["groups"][name] = {"cclab": row.cclab_mean, "ns2": row.ns2_mean}
        elif kind == "drops":
            table["drops"][name] = {"cclab": row.cclab_mean, "ns2": row.ns2_mean}
    return table


def markdown(name: str, table: dict) -> str:
    rows = [f"**{name}** ({len(table['seeds'])} seeds)", "", "| | cclab | ns-2.35 | difference |", "| --- | --- | --- | --- |"]
    for group, v in table["groups"].items():
        rows.append(f"| goodput {group} (Mb/s) | {v['cclab']:.3f} | {v['ns2']:.3f} | {_diff(v)} |")
    for link, v in table["drops"].items():
        rows.append(f"| drops {link} | {v['cclab']:.1f} | {v['ns2']:.1f} | {_diff(v)} |")
    return "\n".join(rows)


def _diff(v: dict) -> str:
    return f"{(v['cclab'] - v['ns2']) / v['ns2']:+.1%}" if v["ns2"] else "–"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--seeds", type=int, default=len(SEEDS))
    parser.add_argument("--out", type=Path, default=HERE / "graph_reference.json")
    args = parser.parse_args(argv)
    results = {}
    for name in args.case or list(CASES):
        results[name] = compare(CASES[name], seeds=tuple(range(1, args.seeds + 1)))
        print(markdown(name, results[name]), end="\n\n", flush=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
