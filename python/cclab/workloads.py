"""Flow-size distributions read from files: ``sizes = { kind = "cdf", file = ... }`` in
an ``arrivals`` table becomes ``{ kind = "cdf", points = [[size, probability], ...] }``
before the engine sees it (the engine reads no files).

``file`` is a CSV of ``size_bytes,cumulative_probability`` rows (``#`` comments and a
header row allowed), a path relative to the scenario file (or the working directory
for a scenario given as a dict), or the name of a shipped workload: ``web-search``
(DCTCP, SIGCOMM 2010) or ``data-mining`` (VL2, SIGCOMM 2009), both as pFabric
(SIGCOMM 2013) simulates them — see ``cclab/data/workloads/``.
"""
from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from cclab.core import ScenarioError

SHIPPED = Path(__file__).parent / "data" / "workloads"


def shipped_workloads() -> list[str]:
    return sorted(path.stem for path in SHIPPED.glob("*.csv"))


def read_cdf(path: Path, field: str) -> list[list[Any]]:
    """The points of a CDF file, as the engine's ``points`` (sizes with a unit)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise ScenarioError(f"{field}: cannot read {str(path)!r}: {reason}") from None
    points: list[list[Any]] = []
    rows = csv.reader(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    for number, row in enumerate(rows, 1):
        if len(row) != 2:
            raise ScenarioError(f"{field}: {path.name} row {number}: expected size_bytes,cumulative_probability, got {','.join(row)[:80]!r}")
        try:
            size, probability = float(row[0]), float(row[1])
        except ValueError:
            if number == 1:
                continue  # a header row
            raise ScenarioError(f"{field}: {path.name} row {number}: {','.join(row)[:80]!r} is not two numbers") from None
        if size != size or size < 0 or size != int(size):
            raise ScenarioError(f"{field}: {path.name} row {number}: size {row[0]!r} is not a whole number of bytes >= 0")
        # A flow has at least one byte: a CDF starting at (0, 0) starts at 1 byte.
        points.append([f"{max(int(size), 1)}B", probability])
    if not points:
        raise ScenarioError(f"{field}: {path.name} has no size_bytes,cumulative_probability rows")
    return points


def resolve_size_files(scenario: Any, folder: Optional[Path] = None) -> Any:
    """Replace every ``sizes = { kind = "cdf", file = ... }`` with its points."""
    if not isinstance(scenario, Mapping) or not isinstance(scenario.get("flows"), list):
        return scenario
    for index, group in enumerate(scenario["flows"]):
        arrivals = group.get("arrivals") if isinstance(group, Mapping) else None
        sizes = arrivals.get("sizes") if isinstance(arrivals, Mapping) else None
        if not (isinstance(sizes, dict) and sizes.get("kind") == "cdf" and "file" in sizes):
            continue
        field = f"flows[{index}].arrivals.sizes.file"
        name = sizes["file"]
        if not isinstance(name, str) or not name:
            raise ScenarioError(f"{field}: {name!r} is not a file name (or one of {', '.join(shipped_workloads())})")
        if "points" in sizes:
            raise ScenarioError(f"{field}: give either file or points, not both")
        path = SHIPPED / f"{name}.csv" if name in shipped_workloads() else Path(name)
        if not path.is_absolute() and name not in shipped_workloads():
            path = (folder or Path.cwd()) / path
        if not path.exists():
            raise ScenarioError(f"{field}: {name!r} is neither a file nor a shipped workload ({', '.join(shipped_workloads())})")
        del sizes["file"]
        sizes["points"] = read_cdf(path, field)
    return scenario
