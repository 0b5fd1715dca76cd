"""Scenario files: load TOML, apply ``--set`` overrides, hand them to the engine.

The schema lives in one place, the Rust engine (``cclab._core.validate_json``): this
module only reads files, edits the resulting dicts and converts errors to
:class:`ScenarioError`, whose message is one line naming the field and the value.
"""
from __future__ import annotations

import copy
import datetime
import json
import math
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import Any, Optional, Union

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11 (tomli is the same parser)
    import tomli as tomllib

from cclab.core import ScenarioError, topology_json, validate_json, warnings_json

ScenarioSource = Union[str, PathLike, Mapping[str, Any]]
Overrides = Union[Mapping[str, Any], Iterable[str], None]

# Before Python 3.14, tomllib gives the position only in the text: "... (at line 3, column 7)".
_TOML_POSITION = re.compile(r"^(?P<message>.*?)\s*\(at line (?P<line>\d+), column (?P<column>\d+)\)$")


def load_scenario(source: ScenarioSource, overrides: Overrides = None) -> dict:
    """Return the scenario in ``source`` (a TOML path, ``"-"`` for standard input, or a
    dict) with ``overrides`` applied.

    ``overrides`` is either a list of ``"dotted.path=value"`` strings (the CLI's
    ``--set``), whose values are parsed as TOML values, or a mapping from dotted path to
    a Python value. A dict ``source`` is deep-copied, never modified.
    """
    scenario, folder = load_unresolved(source, overrides)
    return resolve_files(scenario, folder)


def load_unresolved(source: ScenarioSource, overrides: Overrides = None) -> tuple[dict, Optional[Path]]:
    """As :func:`load_scenario`, with the files it names not yet read, and the folder
    they are read from (the scenario file's; None for the working directory)."""
    folder = None
    if isinstance(source, Mapping):
        scenario = copy.deepcopy(dict(source))
    elif str(source) == "-":
        scenario = read_stdin()
    else:
        scenario = read_toml(Path(source))
        folder = Path(source).parent
        if "python" in str(scenario.get("flows", "")):  # a file names its Python code beside it
            from cclab.cc import resolve_paths

            resolve_paths(scenario, folder)
    return apply_overrides(scenario, overrides), folder


def resolve_files(scenario: dict, folder: Optional[Path] = None) -> dict:
    """Read the files a scenario names for the engine (flow-size CDFs), relative to
    ``folder`` (the scenario file's; the working directory otherwise)."""
    if '"cdf"' in str(scenario.get("flows", "")).replace("'", '"'):
        from cclab.workloads import resolve_size_files

        resolve_size_files(scenario, folder)
    return scenario


def validate(source: ScenarioSource, overrides: Overrides = None) -> dict:
    """Return the engine's normalized scenario (every default filled in).

    Raises :class:`ScenarioError` naming the first invalid field and its value.
    """
    return json.loads(validate_json(scenario_json(load_scenario(source, overrides))))


_SIZE = re.compile(r"^\s*(?P<number>\d+(\.\d+)?)\s*(?P<unit>B|kB|KB|KiB|MB|MiB|GB|GiB|TB|TiB)?\s*$")
_SIZE_UNITS = {None: 1, "B": 1, "kB": 10**3, "KB": 10**3, "KiB": 2**10, "MB": 10**6, "MiB": 2**20, "GB": 10**9,
               "GiB": 2**30, "TB": 10**12, "TiB": 2**40}


def parse_memory(value: Union[str, int, None], what: str = "--max-memory") -> Union[int, None]:
    """Bytes from ``value``: an integer, or text such as ``"16GB"``, ``"512MiB"`` (None: the
    engine's default of 8 GiB). A run whose estimated memory is above it is refused."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = _SIZE.match(value) if isinstance(value, str) else None
    if match is None or float(match["number"]) <= 0:
        raise ScenarioError(f"{what}: {value!r} is not a size such as 8GB, 512MiB or a number of bytes")
    return int(float(match["number"]) * _SIZE_UNITS[match["unit"]])


def scenario_warnings(source: ScenarioSource, overrides: Overrides = None) -> list[str]:
    """Legal but probably unintended settings of the scenario, one line each (a group
    that starts after the run ends, ...)."""
    return warnings_json(scenario_json(load_scenario(source, overrides)))


def topology(source: ScenarioSource, overrides: Overrides = None) -> dict:
    """The scenario's topology expanded by the engine: ``nodes``, ``links`` (every
    direction: name, from, to, rate, delay, buffer_packets with "Nbdp" resolved, queue,
    loss), ``flows`` (each flow's route as node names, and its base RTT) and the
    ``bottleneck`` link's name. Presets (dumbbell, chain) appear as the graph they
    expand into."""
    return json.loads(topology_json(scenario_json(load_scenario(source, overrides))))


def scenario_json(scenario: Mapping[str, Any]) -> str:
    """Serialize a scenario dict for the engine (TOML dates become strings). No field of
    a scenario takes NaN, an infinity or an integer beyond 64 bits (and JSON has no NaN):
    such a value is a ScenarioError naming where it is, before the engine sees it."""
    _check_representable(scenario, "")
    return json.dumps(scenario, default=str, allow_nan=False)


def _check_representable(value: Any, path: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{path}: {value!r} is not a finite number (no field takes NaN or infinity)")
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise ScenarioError(f"{path}: {_shown(value)} is beyond the largest number cclab takes, {2**64 - 1}")
    if isinstance(value, Mapping):
        for key, item in value.items():
            _check_representable(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_representable(item, f"{path}[{index}]")


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        return str(value)
    if isinstance(value, Mapping):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value


def scenario_toml(scenario: Mapping[str, Any]) -> str:
    """Render a (normalized) scenario as TOML; keys whose value is null are left out,
    which is how TOML says "not set"."""
    import tomli_w

    return tomli_w.dumps(_without_nulls(scenario))


def apply_overrides(scenario: dict, overrides: Overrides, origin: str = "--set") -> dict:
    """Apply ``overrides`` to ``scenario`` in place and return it (see load_scenario).
    ``origin`` is how errors name where an override came from (``--set``, ``axes``)."""
    if overrides is None:
        return scenario
    if isinstance(overrides, Mapping):
        pairs = [(str(path), value) for path, value in overrides.items()]
    elif isinstance(overrides, str):
        raise TypeError("overrides must be a list of 'key=value' strings or a mapping, not a str")
    else:
        pairs = [_split_assignment(text) for text in overrides]
    for path, value in pairs:
        _set_path(scenario, path, value, origin)
    return scenario


def parse_override_value(text: str) -> Any:
    """Parse ``text`` as a TOML value (``10``, ``0.5``, ``true``, ``"x"``, ``{ a = 1 }``);
    anything else (``10Mbps``, ``1s``), dates and non-finite floats stay plain strings."""
    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
    if isinstance(value, (datetime.date, datetime.time)):
        return text
    if isinstance(value, float) and not math.isfinite(value):
        return text
    return value


# A scenario or plan file larger than this is not one (and is not read into memory).
MAX_FILE_BYTES = 64 << 20


def read_toml(path: Path) -> dict:
    """Parse a TOML file; a missing, unreadable, odd (a FIFO, a device, huge) or
    malformed file is a one-line ScenarioError."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file") from None
    except OSError as error:
        raise ScenarioError(f"{path}: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ScenarioError(f"{path}: is a directory, expected a scenario .toml file")
    if not stat.S_ISREG(info.st_mode):
        raise ScenarioError(f"{path}: not a regular file (a pipe or a device?), expected a scenario .toml file")
    if info.st_size > MAX_FILE_BYTES:
        raise ScenarioError(f"{path}: {info.st_size} bytes, more than a scenario file's {MAX_FILE_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise ScenarioError(f"{path}: {error.strerror}") from None
    return parse_toml(text, str(path))


def read_stdin() -> dict:
    """A scenario (or plan) given on standard input, as ``cclab run -`` reads it."""
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError(f"<stdin>: more than a scenario file's {MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"<stdin>: not UTF-8 text ({error.reason} at byte {error.start})") from None
    return parse_toml(text, "<stdin>")


def parse_toml(text: str, where: str) -> dict:
    """TOML text from ``where`` (a file name, ``<stdin>``) as a dict; one-line errors."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{where}: {_describe_toml_error(error)}") from None
    except RecursionError:
        raise ScenarioError(f"{where}: arrays or tables nested too deeply") from None


def _describe_toml_error(error: tomllib.TOMLDecodeError) -> str:
    if hasattr(error, "lineno"):  # Python >= 3.14 exposes the position
        return f"line {error.lineno}, column {error.colno}: {error.msg}"
    match = _TOML_POSITION.match(str(error))
    if match is None:
        return str(error)
    return f"line {match['line']}, column {match['column']}: {match['message']}"


def _split_assignment(text: str) -> tuple[str, Any]:
    path, sep, value = str(text).partition("=")
    path = path.strip()
    if not sep or not path:
        raise ScenarioError(f"--set {text}: expected KEY=VALUE, e.g. --set flows.0.count=10")
    return path, parse_override_value(value.strip())


def _set_path(scenario: dict, path: str, value: Any, origin: str = "--set") -> None:
    """Set ``scenario[a][b][0][c] = value`` for path ``a.b.0.c``; integer components
    index lists, missing tables are created."""
    keys = path.split(".")
    where_set = f"--set {path}" if origin == "--set" else f'{origin}."{path}"'
    if any(key == "" for key in keys):
        raise ScenarioError(f"{where_set}: empty component in the dotted path")
    node: Any = scenario
    for depth, key in enumerate(keys):
        is_last = depth == len(keys) - 1
        where = ".".join(keys[:depth]) or "the scenario"
        if isinstance(node, list):
            if not key.isdigit():
                raise ScenarioError(f"{where_set}: {where} is a list, '{key}' is not an index")
            index = int(key)
            if index >= len(node):
                raise ScenarioError(f"{where_set}: {where} has {len(node)} entries")
            if is_last:
                node[index] = value
            else:
                node = node[index]
        elif isinstance(node, dict):
            if is_last:
                node[key] = value
            else:
                node = node.setdefault(key, {})
        else:
            raise ScenarioError(f"{where_set}: {where} is {_shown(node)}, not a table")


def _shown(value: Any) -> str:
    """A value as JSON, shortened past 40 characters (NaN and infinity bare)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
    else:
        text = json.dumps(_json_safe(value), default=str)
    return text if len(text) <= 40 else f"{text[:16]}…{text[-8:]} ({len(text)} characters)"


def _without_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value if item is not None]
    return value
