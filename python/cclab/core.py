"""The native engine, and the only module that imports it (``cclab._core``).

Everything else in cclab reaches the engine through here: running and validating
scenarios (JSON in, JSON out), and the rules the engine already owns and Python must not
re-code — unit parsing, the flow-schedule rule, Jain's index. Importing this module
costs the extension's load and nothing else (no pandas, no NumPy).

``run_json`` is the engine's own: a scenario with Python congestion control runs only
with the ``controllers`` factory it is given (:func:`cclab.runs.engine.run_json` gives
:mod:`cclab.cc`'s), so that this module depends on no other module of cclab.
"""
from __future__ import annotations

TYPE_CHECKING = False  # (not imported from typing, which alone costs more than the rest)

from cclab._core import (Engines, InternalError, ScenarioError, check_flow_sizes, flow_windows_json, loss_outages_json,
                         mahimahi_opportunities, rate_log_opportunities, run_json, topology_json, validate_json, version,
                         warnings_json)
from cclab._core import jain_index as _jain_index
from cclab._core import parse_duration as _parse_duration
from cclab._core import parse_rate as _parse_rate
from cclab._core import parse_size as _parse_size
from cclab._core import schedule_windows as _schedule_windows

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Optional

# json (with re, enum...) is imported where it is used: a process that only runs a
# scenario (the benchmark worker) then starts in a third of the time.

__all__ = ["Engines", "InternalError", "ScenarioError", "run_json", "validate_json", "topology_json", "warnings_json", "version",
           "duration_s", "rate_bps", "size_bytes", "schedule_windows", "jain_index", "flow_windows_json",
           "loss_outages_json"]


def duration_s(value: Any) -> float:
    """A scenario duration (``"25ms"``; a bare number is refused but 0) in seconds, by
    the engine's rules; a bad one is a ScenarioError."""
    import json

    return _parse_duration(json.dumps(value))


def rate_bps(value: Any) -> int:
    """A scenario rate (``"10Mbps"``) in bits per second."""
    import json

    return _parse_rate(json.dumps(value))


def size_bytes(value: Any) -> int:
    """A scenario size (``"1000B"``, ``"1.5kB"``, ``"64KiB"``; a bare number is refused
    but 0) in bytes."""
    import json

    return _parse_size(json.dumps(value))


def schedule_windows(schedule: Sequence[Sequence[Any]]) -> list[tuple[float, Optional[float]]]:
    """The engine's ``schedule`` rule: for ``[[time, number], ...]`` steps, when each flow
    runs, as ``(start_s, stop_s or None)``, one per flow."""
    import json

    return _schedule_windows(json.dumps([list(step) for step in schedule]))


def jain_index(values: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²), as the engine computes it: NaN for an empty
    or all-zero set (nothing allocated, no fairness to judge)."""
    return _jain_index([float(value) for value in values])
