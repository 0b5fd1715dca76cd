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

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from cclab.core import ScenarioError, check_flow_sizes
from cclab.inputs import data_lines, file_name, read_text, shown_value

SHIPPED = Path(__file__).parent / "data" / "workloads"


def _shown(value: Any) -> str:
    text = file_name(repr(value))
    return text if len(text) <= 60 else f"{text[:40]}…"


def shipped_workloads() -> list[str]:
    return sorted(path.stem for path in SHIPPED.glob("*.csv"))


def read_cdf(path: Path, field: str, shown_as: str) -> list[list[Any]]:
    """The points of a CDF file, as the engine's ``points`` (sizes with a unit), checked
    by the engine's rules; an error names ``field``, the file (``shown_as``: as the
    scenario named it) and the line."""
    text = read_text(path, "a CSV of size_bytes,cumulative_probability rows", field, shown_as=shown_as)
    where = f"{field}: {shown_as}"
    points: list[list[Any]] = []
    lines: list[int] = []
    for number, line in data_lines(text, where):
        row = [cell.strip().strip('"').strip() for cell in line.split(",")]
        if len(row) != 2:
            raise ScenarioError(f"{where} line {number}: expected size_bytes,cumulative_probability, got "
                                f"{shown_value(line)}")
        try:
            size, probability = float(row[0]), float(row[1])
        except ValueError:
            if not points:
                continue  # a header row
            raise ScenarioError(f"{where} line {number}: {shown_value(line)} is not two numbers") from None
        if not (math.isfinite(size) and size >= 0 and size == int(size)):
            raise ScenarioError(f"{where} line {number}: size {shown_value(row[0])} is not a whole number of "
                                "bytes >= 0")
        if not math.isfinite(probability):
            raise ScenarioError(f"{where} line {number}: probability {shown_value(row[1])} is outside [0, 1]")
        # A flow has at least one byte: a CDF starting at (0, 0) starts at 1 byte.
        points.append([f"{max(int(size), 1)}B", probability])
        lines.append(number)
    if not points:
        raise ScenarioError(f"{where}: has no size_bytes,cumulative_probability rows")
    try:
        check_flow_sizes(json.dumps({"kind": "cdf", "points": points}))
    except ScenarioError as error:
        # "points[3][0]: ..." or "points: [3]: ..." is about the file's line of point 3
        message = str(error)
        located = re.match(r"points(?::\s*)?\[(\d+)\](?:\[\d+\])?:\s*(.*)", message)
        if located and int(located[1]) < len(lines):
            raise ScenarioError(f"{where} line {lines[int(located[1])]}: {located[2]}") from None
        raise ScenarioError(f"{where}: {message.removeprefix('points: ')}") from None
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
            raise ScenarioError(f"{field}: {_shown(name)} is not a file name (or one of {', '.join(shipped_workloads())})")
        if "points" in sizes:
            raise ScenarioError(f"{field}: give either file or points, not both")
        path = SHIPPED / f"{name}.csv" if name in shipped_workloads() else Path(name)
        if not path.is_absolute() and name not in shipped_workloads():
            path = (folder or Path.cwd()) / path
        try:
            missing = not (path.exists() or path.is_symlink())
        except (OSError, ValueError):  # a name too long, a NUL in it: read_cdf says so
            missing = False
        if missing:
            raise ScenarioError(f"{field}: {file_name(name)!r} is neither a file nor a shipped workload "
                                f"({', '.join(shipped_workloads())})")
        del sizes["file"]
        sizes["points"] = read_cdf(path, field, file_name(name))
    return scenario
