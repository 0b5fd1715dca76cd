"""One scenario through cclab's engine: its JSON in, the result's JSON out, the Python
congestion controls it names (:mod:`cclab.cc`) made in this process.

Every run of the front end goes through :func:`run_json` (``cclab.run``, ``cclab run``,
the sweep workers, the bench worker).
"""
from __future__ import annotations

TYPE_CHECKING = False  # (not imported from typing: the bench worker imports this module)

from cclab import core

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Optional


def run_json(scenario_json: str, max_memory_bytes: Optional[int] = None, memory_limit_name: Optional[str] = None,
             progress: Optional[Callable[[float, float], None]] = None) -> str:
    """Run a scenario given as JSON; the result as JSON. ``memory_limit_name`` is how the
    caller names the memory limit in messages (``max_memory``, ``--max-memory``). Groups
    with ``algorithm = "python"`` get their controllers from :mod:`cclab.cc`.

    ``progress(simulated_s, total_s)``, if given, is called a few times a second while
    the run goes on (:class:`cclab.progress.RunProgress` draws a bar). Ctrl-C stops the
    run within a fraction of a second with ``KeyboardInterrupt``; so does any exception
    ``progress`` raises, which is raised here.
    """
    controllers = None
    if '"python"' in scenario_json:
        # (cclab.cc and its imports cost 15 ms, most of a short run's start: only a
        # scenario that may name a Python controller pays them)
        from cclab.cc import controller_factory

        controllers = controller_factory()
    return core.run_json(scenario_json, max_memory_bytes, memory_limit_name, controllers, progress)
