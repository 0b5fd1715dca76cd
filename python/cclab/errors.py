"""Errors a user can cause besides a bad scenario (``cclab._core.ScenarioError``).

They live here, apart from the modules that raise them, so that the CLI can catch them
without importing pandas.
"""


class StoreError(Exception):
    """A result directory cannot be written or read (the message says which and why)."""


class BenchError(Exception):
    """A benchmark process failed (the message says which and how)."""


class SweepError(Exception):
    """A sweep cannot start or go on: a missing optional executor, an unreachable
    scheduler, a broken worker pool (the message says what to do)."""


class Ns2Error(Exception):
    """ns-2.35 is not installed, or a script it ran failed (the message says which)."""
