"""cclab: a fast packet-level TCP congestion-control simulator.

    import cclab
    result = cclab.run("experiments/static-wired.toml", duration="10s")
    result.flows, result.groups, result.bins, result.system_bins
    cclab.run_many([scenario_a, scenario_b], executor=None)   # results in order; any executor

    cclab.sweep("experiments/sweeps/static-wired.toml")   # a sweep plan -> results/sweeps/NAME.duckdb
    with cclab.SweepStore("results/sweeps/static-wired.duckdb", read_only=True) as store:
        store.runs()                                          # one row per run, one column per axis
    cclab.plot.traces(result)                                 # matplotlib Figures (cclab.plot)

Everything but the native core is imported on first use, so ``import cclab`` is cheap
(the benchmark worker and the CLI's start-up depend on it).
"""
from cclab.core import InternalError, ScenarioError
from cclab.core import version as _core_version

__version__ = _core_version()

__all__ = ["run", "run_many", "sweep", "load_scenario", "validate", "topology", "scenario_warnings", "load_plan", "SweepStore", "Result",
           "ScenarioError", "InternalError", "__version__"]

_LAZY = {"load_scenario": "cclab.scenario", "validate": "cclab.scenario", "topology": "cclab.scenario",
         "scenario_warnings": "cclab.scenario", "run": "cclab.runs.api", "run_many": "cclab.runs.runner", "sweep": "cclab.runs.api", "Result": "cclab.results", "load_plan": "cclab.runs.plan",
         "SweepStore": "cclab.store.sweeps"}


# Modules of the public API, by the name they had before the package was grouped by job.
_LAZY_MODULES = {"stats": "cclab.analysis.stats", "plot": "cclab.plot", "cc": "cclab.cc"}


def __getattr__(name):
    if name in _LAZY_MODULES:
        import importlib

        module = importlib.import_module(_LAZY_MODULES[name])
        globals()[name] = module
        return module
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cclab' has no attribute {name!r}")
