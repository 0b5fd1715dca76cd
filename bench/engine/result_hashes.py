"""Hash the complete results of many scenarios, to prove an engine change leaves them
bit-identical: ``python bench/engine/result_hashes.py > before.txt``, change the engine,
rebuild, run it again and ``diff`` the two files.

Every scenario file under experiments/ (sweep plans excepted) runs for two seeds, as
written and with the ns2 profile, each with flow and queue traces on; durations are cut
to at most 30 s to keep the whole set to a minute or two. The hash covers the result's
every field (flows, links, bins, traces, conservation, warnings) except the wall time and
the normalised scenario it echoes. ``--root DIR`` reads another checkout's experiments/
(to compare two builds on the same files). ``--new-field NAME`` (repeatable) leaves out a
result field the change adds, wherever it appears (or only there, for a dotted path such
as ``traces.links``), so the rest can be compared with a build that lacks it.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from cclab.core import ScenarioError, duration_s, run_json
from cclab.scenario import load_scenario, scenario_json

ROOT = Path(__file__).resolve().parents[2]
MAX_DURATION_S = 30.0


def variants(path: Path):
    for seed in (1, 2):
        for profile in (None, "ns2"):
            overrides = {"seed": seed, "trace.flows": True, "trace.queue": True}
            if profile:
                overrides["profile"] = profile
            yield f"seed={seed} profile={profile or 'default'}", overrides


def main() -> int:
    root = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else ROOT
    new_fields = {sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--new-field"}
    files = sorted(p for p in (root / "experiments").rglob("*.toml") if "sweeps" not in p.parts)
    for path in files:
        for label, overrides in variants(path):
            name = f"{path.relative_to(root)} {label}"
            try:
                scenario = load_scenario(path, overrides)
                if duration_s(scenario.get("duration", "100s")) > MAX_DURATION_S:
                    scenario["duration"] = f"{MAX_DURATION_S:g}s"
                result = json.loads(run_json(scenario_json(scenario)))
            except ScenarioError as error:
                print(f"{name}: error {error}")
                continue
            # The wall time varies; the scenario echoed back is the input (it gains the
            # defaults of every new field), not a result.
            for key in ("wall_time_s", "scenario"):
                result.pop(key, None)
            result = _without(result, new_fields)
            digest = hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()[:16]
            print(f"{name}: {digest} events={result['events']}", flush=True)
    return 0


def _without(value, fields: set[str]):
    """``value`` with every mapping's keys in ``fields`` left out, at any depth; a dotted
    field (``traces.links``) only at its path."""
    if not fields:
        return value
    for path in [f for f in fields if "." in f]:
        *parents, last = path.split(".")
        node = value
        for key in parents:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)
    fields = {f for f in fields if "." not in f}
    if isinstance(value, dict):
        return {k: _without(v, fields) for k, v in value.items() if k not in fields}
    if isinstance(value, list):
        return [_without(v, fields) for v in value]
    return value


if __name__ == "__main__":
    sys.exit(main())
