"""Congestion control written in Python.

A scenario names a class in a file::

    [[flows]]
    cc = { algorithm = "python", path = "mycc.py", class = "MyCC", params = { beta = 0.7 } }

or, from Python, the class itself: ``cclab.run({..., "flows": [{"cc": MyCC}]})`` (or
``{"algorithm": "python", "class": MyCC, "params": {...}}``). Each flow gets its own
instance, made with ``params`` as keyword arguments, and the engine calls its hooks as
it calls the built-in algorithms' (the Rust trait ``CongestionControl``, ``cc/mod.rs``)::

    class MyCC(cclab.cc.CongestionControl):      # Reno unless a hook says otherwise
        def on_ack(self, window, ack):            # a new cumulative ACK outside recovery
            window.cwnd += 1 / window.cwnd        # change the window in place (segments)
        def on_congestion(self, window, event):   # loss ("loss", "timeout") or ECN ("ecn")
            return cclab.cc.cut(window.cwnd * 0.7, event)   # (ssthresh, cwnd)

``window`` has ``cwnd`` and ``ssthresh`` (segments); ``ack`` has ``now_s``,
``segments_acked``, ``segments_sacked``, ``rtt_s`` (None without a sample), ``srtt_s``,
``ece``, ``delivered``, ``in_flight``, ``duplicate``, ``in_recovery``; ``event`` has
``now_s``, ``signal``, ``flight_size``, ``in_slow_start``, ``first_reduction``,
``integer_ssthresh``. Optional hooks, called only if the class defines them:
``on_ack_event(window, ack)`` (every ACK, duplicates included; the window is shown, not
taken back), ``on_recovery_end(window, now_s)``, ``on_round(window, now_s)`` (once per
RTT), ``state() -> dict`` (traced as ``cc_<name>``), ``set_seed(seed)`` (the flow's own
random stream: use it for any randomness, so runs stay deterministic), and with
``wants_rate_samples = True`` ``on_rate_sample(window, sample)`` (Linux ``tcp_rate.c``:
``delivered``, ``interval_s``, ``rate`` in segments/s, ``app_limited``, ...), with
``paces = True`` ``pacing_rate() -> segments/s or None``; ``controls_window = True``
keeps the sender from setting cwnd when recovery ends (BBR-like models).

An exception in a hook, or a window out of range (cwnd not in [1, 1e9], ssthresh not
positive), ends the run with one line naming the file, line, method and flow. Each hook
costs a call into Python (about a microsecond): a prototype runs tens of times slower
than a built-in algorithm, which is what it is for.
"""
from __future__ import annotations

import importlib.util
import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Optional

from cclab.core import ScenarioError

OPTIONAL_HOOKS = ("on_ack_event", "on_recovery_end", "on_round", "on_rate_sample", "state", "pacing_rate", "set_seed")
# A class given as an object (cclab.run with a class in the dict) stands in the scenario
# as this path prefix; the objects themselves stay in this process.
OBJECT_PREFIX = "<python object "
_OBJECTS: dict[str, type] = {}


class CongestionControl:
    """Reno (RFC 5681): slow start, one segment per RTT, halve on congestion. Subclass it
    and override what differs; hooks left as they are here are never called."""

    wants_rate_samples = False
    paces = False
    controls_window = False

    def on_ack(self, window, ack) -> None:
        if window.cwnd < window.ssthresh:
            window.cwnd += 1.0
        else:
            window.cwnd += 1.0 / window.cwnd

    def on_congestion(self, window, event) -> tuple[float, float]:
        return cut(window.cwnd * 0.5, event)

    def on_ack_event(self, window, ack) -> None:
        """Every ACK, before the sender acts on it (rate estimators)."""

    def on_recovery_end(self, window, now_s: float) -> None:
        """Loss recovery ended with a full ACK (cwnd has been set to ssthresh)."""

    def on_round(self, window, now_s: float) -> None:
        """Once per round trip."""

    def on_rate_sample(self, window, sample) -> None:
        """Every ACK's delivery-rate sample (with ``wants_rate_samples = True``)."""

    def state(self) -> dict[str, float]:
        """Variables to trace, as ``cc_<name>`` columns."""
        return {}

    def pacing_rate(self) -> Optional[float]:
        """Segments per second to space transmissions at (with ``paces = True``)."""
        return None

    def set_seed(self, seed: int) -> None:
        """A draw of the flow's own random stream, before the flow starts."""


MIN_SSTHRESH = 2.0


def cut(target: float, event) -> tuple[float, float]:
    """The ``(ssthresh, cwnd)`` after a cut to ``target`` segments, as the built-in
    algorithms cut (``reno::cut``): ssthresh and cwnd at least 2, or with ns-2's rule
    (``event.integer_ssthresh``) ssthresh the integer part of ``target`` (at least 2) and
    cwnd ``target`` itself (at least 1)."""
    if event.integer_ssthresh:
        return max(float(math.floor(target)), MIN_SSTHRESH), max(target, 1.0)
    ssthresh = max(target, MIN_SSTHRESH)
    return ssthresh, ssthresh


# ------------------------------------------------------------------ scenario side
def resolve_paths(scenario: dict, folder: Path) -> dict:
    """Make the relative ``path`` of each Python congestion control absolute from
    ``folder`` (the scenario file's): a scenario file names its code beside it."""
    for group in _groups(scenario):
        cc = group.get("cc")
        if isinstance(cc, dict) and cc.get("algorithm") == "python" and isinstance(cc.get("path"), str):
            path = cc["path"]
            if path and not path.startswith(OBJECT_PREFIX) and not Path(path).is_absolute():
                cc["path"] = str(folder / path)
    return scenario


def bind_objects(scenario: Any) -> Any:
    """A scenario dict whose ``cc`` values may be classes: each becomes ``{algorithm =
    "python", path = "<python object ...>", class = ...}``, the class kept in this process
    for the run. Anything else is returned as it is."""
    if not isinstance(scenario, Mapping) or not any(_holds_class(g.get("cc")) for g in _groups(scenario)):
        return scenario
    scenario = dict(scenario)
    scenario["flows"] = [dict(group) if isinstance(group, Mapping) else group for group in scenario["flows"]]
    for index, group in enumerate(scenario["flows"]):
        if isinstance(group, dict):
            group["cc"] = bind_value(group.get("cc"), f"flows[{index}].cc")
    return scenario


def bind_value(cc: Any, field: str = "cc") -> Any:
    """A ``cc`` value with a class in it (the class, or a table whose ``class`` is one) as
    its declaration, the class kept in this process; any other value as it is. A class
    goes with ``algorithm = "python"`` (or none) and no ``path``: anything else is a
    one-line ScenarioError naming ``field``."""
    if isinstance(cc, type):
        cc = {"algorithm": "python", "class": cc}
    if not (isinstance(cc, Mapping) and isinstance(cc.get("class"), type)):
        return cc
    cls = cc["class"]
    algorithm = cc.get("algorithm", "python")
    if algorithm != "python":
        raise ScenarioError(f"{field}.class: {cls.__name__} is a Python class, but algorithm is "
                            f"{_short(algorithm)}; a class goes with algorithm = \"python\" (or give the class "
                            "alone as cc)")
    if "path" in cc:
        raise ScenarioError(f"{field}.path: give either a class object or a file (path = \"mycc.py\" with "
                            "class = \"Name\"), not both")
    token = f"{OBJECT_PREFIX}{cls.__module__}.{cls.__qualname__} at {id(cls):#x}>"
    _OBJECTS[token] = cls
    return {**cc, "algorithm": "python", "path": token, "class": cls.__name__}


def _holds_class(cc: Any) -> bool:
    return isinstance(cc, type) or (isinstance(cc, Mapping) and isinstance(cc.get("class"), type))


def _groups(scenario: Mapping) -> list:
    flows = scenario.get("flows")
    return [g for g in flows if isinstance(g, dict)] if isinstance(flows, list) else []


# ------------------------------------------------------------------ engine side
def controller_factory() -> Callable[[int, str], tuple[Any, list[str]]]:
    """The ``controllers`` argument of the engine's ``run_json``: for flow ``flow_id`` and
    its group's declaration (JSON), a new instance and the optional hooks it defines.
    Each file is loaded once per run."""
    classes: dict[tuple[str, str], type] = {}

    def make(flow_id: int, config_json: str) -> tuple[Any, list[str]]:
        config = json.loads(config_json)
        key = (config["path"], config["class"])
        if key not in classes:
            classes[key] = _load_class(*key)
        cls = classes[key]
        try:
            instance = cls(**config.get("params", {}))
        except (Exception, SystemExit) as error:  # the user's constructor: any exception (or exit) is theirs to read
            raise ScenarioError(f"cc.params: {cls.__name__}(**{_short(config.get('params', {}))}) "
                                f"raised {type(error).__name__}: {_first_line(error)}") from None
        for required in ("on_ack", "on_congestion"):
            if not callable(getattr(instance, required, None)):
                raise ScenarioError(f"cc.class: {cls.__name__} has no {required}() method "
                                    "(subclass cclab.cc.CongestionControl for Reno's)")
        return instance, _hooks(instance)

    return make


def _hooks(instance: Any) -> list[str]:
    cls = type(instance)
    if isinstance(instance, CongestionControl):
        return [name for name in OPTIONAL_HOOKS if getattr(cls, name) is not getattr(CongestionControl, name)]
    return [name for name in OPTIONAL_HOOKS if callable(getattr(instance, name, None))]


def _load_class(path: str, name: str) -> type:
    if path.startswith(OBJECT_PREFIX):
        try:
            return _OBJECTS[path]
        except KeyError:
            raise ScenarioError(f"cc.path: {path} is a class given to cclab.run in another process; "
                                "name a file (path = \"mycc.py\") to run it elsewhere") from None
    file = Path(path)
    if not file.is_file():
        missing = not (file.exists() or file.is_symlink())
        raise ScenarioError(f"cc.path: {path}: {'no such file' if missing else 'not a regular file (a Python file is)'}")
    module_name = f"cclab_cc_{abs(hash(str(file.resolve()))):x}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise ScenarioError(f"cc.path: {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # (dataclasses and pickling look modules up here)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        raise ScenarioError(f"{path}:{error.lineno}: SyntaxError: {error.msg}") from None
    except (Exception, SystemExit) as error:  # the user's module: any exception (or exit) is theirs to read
        raise ScenarioError(f"{path}{_where(error)}: {type(error).__name__}: {_first_line(error)} "
                            "(while loading it)") from None
    cls = getattr(module, name, None)
    if not isinstance(cls, type):
        defined = sorted(k for k, v in vars(module).items() if isinstance(v, type) and v.__module__ == module_name)
        raise ScenarioError(f"cc.class: {name!r} is not a class in {path} "
                            f"(it defines: {', '.join(defined) or 'no classes'})")
    return cls


def _where(error: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    return f":{frames[-1].lineno}" if frames else ""


def _first_line(error: BaseException) -> str:
    return (str(error).splitlines() or [""])[0][:200]


def _short(value: Any) -> str:
    text = json.dumps(value, default=repr)
    return text if len(text) <= 60 else text[:60] + "…"
