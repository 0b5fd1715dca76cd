"""Scenario files: load TOML, apply ``--set`` overrides, hand them to the engine.

The schema lives in one place, the Rust engine (``cclab._core.validate_json``): this
module only reads files, edits the resulting dicts and converts errors to
:class:`ScenarioError`, whose message is one line naming the field and the value.
"""
from __future__ import annotations

import datetime
import json
import math
import numbers
import re
import sys
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import Any, Optional, Union

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11 (tomli is the same parser)
    import tomli as tomllib

from cclab.cc import resolve_paths
from cclab.core import ScenarioError, size_bytes, topology_json, validate_json, warnings_json
from cclab.inputs import MAX_FILE_BYTES, decode, file_name, printable, read_text
from cclab.workloads import resolve_size_files

ScenarioSource = Union[str, PathLike, Mapping[str, Any]]
Overrides = Union[Mapping[str, Any], Iterable[str], None]

# Before Python 3.14, tomllib gives the position only in the text: "... (at line 3, column 7)".
_TOML_POSITION = re.compile(r"^(?P<message>.*?)\s*\(at line (?P<line>\d+), column (?P<column>\d+)\)$")


def group_name(group: Mapping[str, Any], index: int) -> str:
    """A flow group's name in results: its ``group``, or ``group<index>`` (the core's rule,
    ``Scenario::group_name``)."""
    return group.get("group") or f"group{index}"


def load_scenario(source: ScenarioSource, overrides: Overrides = None, origin: str = "overrides") -> dict:
    """Return the scenario in ``source`` (a TOML path, ``"-"`` for standard input, or a
    dict) with ``overrides`` applied.

    ``overrides`` is either a list of ``"dotted.path=value"`` strings (the CLI's
    ``--set``), whose values are parsed as TOML values, or a mapping from dotted path to
    a Python value. A dict ``source`` is deep-copied, never modified. ``origin`` is how
    errors name the overrides (``overrides`` in Python, ``--set`` on the command line).
    """
    scenario, folder = load_unresolved(source, overrides, origin)
    return resolve_files(scenario, folder)


def load_unresolved(source: ScenarioSource, overrides: Overrides = None,
                    origin: str = "overrides") -> tuple[dict, Optional[Path]]:
    """As :func:`load_scenario`, with the files it names not yet read, and the folder
    they are read from (the scenario file's; None for the working directory)."""
    folder = None
    if isinstance(source, Mapping):
        check_value(source, "")
        scenario = plain_copy(source)
    elif isinstance(source, (str, PathLike)) and not isinstance(source, bytes) and str(source) == "-":
        scenario = read_stdin()
    elif isinstance(source, (str, PathLike)):
        scenario = read_toml(Path(source))
        folder = Path(source).parent
        if "python" in str(scenario.get("flows", "")):  # a file names its Python code beside it
            resolve_paths(scenario, folder)
    else:
        raise ScenarioError(f"the scenario: {_shown_object(source)} is not one; give a TOML file's path, "
                            f"\"-\" for standard input, or a dict")
    return apply_overrides(scenario, overrides, origin), folder


def resolve_files(scenario: dict, folder: Optional[Path] = None) -> dict:
    """Read the files a scenario names for the engine (flow-size CDFs, link traces),
    relative to ``folder`` (the scenario file's; the working directory otherwise)."""
    if '"cdf"' in str(scenario.get("flows", "")).replace("'", '"'):
        resolve_size_files(scenario, folder)
    if "'file'" in str(scenario.get("topology", "")):
        from cclab.traces import resolve_trace_files

        resolve_trace_files(scenario, folder)
    return scenario


def validate(source: ScenarioSource, overrides: Overrides = None) -> dict:
    """Return the engine's normalized scenario (every default filled in).

    Raises :class:`ScenarioError` naming the first invalid field and its value.
    """
    return json.loads(validate_json(scenario_json(load_scenario(source, overrides))))


# The memory limit a run may be given: 1 byte to 2^64 − 1 bytes (16 EiB).
MAX_MEMORY = 2**64 - 1
_MEMORY_RANGE = "from 1B to 16EiB"


def parse_memory(value: Union[str, int, None], what: str = "max_memory") -> Union[int, None]:
    """Bytes from ``value``: a whole number of bytes, or text such as ``"16GB"``,
    ``"512MiB"`` in the engine's units (B, kB, MB, GB, TB, PB, KiB … PiB) (None: the
    engine's default of 8 GiB). A run whose estimated memory is above it is refused.
    ``what`` is how errors name the setting (``max_memory``, ``--max-memory``)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():  # bytes, as the CLI gives them
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= MAX_MEMORY:
            raise ScenarioError(f"{what}: {_shown(value)} bytes is outside the limits cclab takes, {_MEMORY_RANGE}")
        return value
    if not isinstance(value, str):
        raise ScenarioError(f"{what}: {_shown_object(value)} is not a size; give a whole number of bytes or text "
                            f"such as \"16GB\" or \"512MiB\", {_MEMORY_RANGE}")
    try:
        bytes_ = size_bytes(value)
    except ScenarioError as error:
        raise ScenarioError(f"{what}: {error}; a memory limit is {_MEMORY_RANGE}") from None
    if bytes_ < 1:
        raise ScenarioError(f"{what}: {_shown(value)} is below 1 byte; a memory limit is {_MEMORY_RANGE}")
    return bytes_


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
    """Serialize a scenario dict for the engine. What JSON cannot carry, or no field of
    a scenario takes (NaN, an infinity, an integer beyond 64 bits, a date, bytes, a
    table or list that holds itself, nesting deeper than any field), is a ScenarioError
    naming where it is, before the engine sees it (see :func:`check_value`)."""
    check_value(scenario, "")
    return json.dumps(scenario, allow_nan=False, default=_json_default)


def _json_default(value: Any) -> Any:
    """What json leaves to us among the values :func:`check_value` lets through: other
    mappings and other numbers (NumPy's, for one)."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise ScenarioError(f"{_shown_object(value)} is not a scenario value")


# No field of a scenario or a plan is nested more than a handful of tables deep: a value
# nested deeper than this is a mistake (or a table that holds itself), and is refused
# before anything recurses into it.
MAX_DEPTH = 64


def check_value(value: Any, path: str, leaves: bool = True) -> None:
    """Raise a one-line ScenarioError at the first part of ``value`` (found at ``path``
    in the scenario) that a scenario cannot hold: a type other than text, numbers,
    true/false, lists and tables with text keys; NaN or an infinity; an integer beyond
    64 bits; a date or time (TOML has them, no field takes one); nesting deeper than
    MAX_DEPTH; a table or list that contains itself. Iterative: any depth, any cycle.
    ``leaves=False`` checks the shape only (nesting, cycles, keys), as a parsed file
    needs before anything recurses into it."""
    stack: list = [(value, path, 0, False)]
    ancestors: set[int] = set()
    while stack:
        item, where, depth, leaving = stack.pop()
        if leaving:
            ancestors.discard(id(item))
            continue
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if not leaves and not isinstance(item, (Mapping, list, tuple)):
            continue
        if isinstance(item, numbers.Integral):
            if not -(2**63) <= int(item) < 2**64:
                raise ScenarioError(f"{_path(where)}: {_shown(item)} is beyond the largest number cclab takes, "
                                    f"{2**64 - 1}")
            continue
        if isinstance(item, numbers.Real):
            if not math.isfinite(item):
                raise ScenarioError(f"{_path(where)}: {float(item)!r} is not a finite number (no field takes NaN or "
                                    "infinity)")
            continue
        if isinstance(item, (datetime.date, datetime.time)):
            raise ScenarioError(f"{_path(where)}: {item.isoformat()} is a date or time; no field takes one "
                                "(write text in quotes)")
        if not isinstance(item, (Mapping, list, tuple)):
            raise ScenarioError(f"{_path(where)}: {_shown_object(item)} is not a scenario value (text, a number, "
                                "true or false, a list or a table)")
        if id(item) in ancestors:
            raise ScenarioError(f"{_path(where)}: holds itself (a table or list inside itself is no scenario)")
        if depth >= MAX_DEPTH:
            raise ScenarioError(f"{_path(where)}: nested more than {MAX_DEPTH} deep; no field of a scenario is")
        ancestors.add(id(item))
        stack.append((item, where, depth, True))
        if isinstance(item, Mapping):
            children = []
            for key, child in item.items():
                if not isinstance(key, str):
                    raise ScenarioError(f"{_path(where)}: the key {_shown_object(key)} is not text")
                children.append((child, f"{where}.{key}" if where else key, depth + 1, False))
        else:
            children = [(child, f"{where}[{index}]", depth + 1, False) for index, child in enumerate(item)]
        stack.extend(reversed(children))


def plain_copy(value: Any) -> Any:
    """A deep copy of a value that passed :func:`check_value`, with every mapping a dict
    and every tuple a list (what TOML would have given)."""
    if isinstance(value, Mapping):
        return {key: plain_copy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_copy(item) for item in value]
    return value


def _path(where: str) -> str:
    """A field path for a message: the scenario itself when empty, shortened when long."""
    if not where:
        return "the scenario"
    return where if len(where) <= 80 else f"{where[:40]}…{where[-30:]} ({len(where)} characters)"


def _shown_object(value: Any) -> str:
    """Any Python object as a message shows it: its repr, printable and shortened."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an object whose repr fails is still named
        text = f"a {type(value).__name__} object"
    return printable(text if len(text) <= 40 else f"{text[:16]}…{text[-8:]} ({len(text)} characters)")


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


def apply_overrides(scenario: dict, overrides: Overrides, origin: str = "overrides") -> dict:
    """Apply ``overrides`` to ``scenario`` in place and return it (see load_scenario).
    ``origin`` is how errors name where an override came from (``overrides``, ``--set``,
    ``axes``, ``set``)."""
    if overrides is None:
        return scenario
    if isinstance(overrides, Mapping):
        pairs = list(overrides.items())
        for path, value in pairs:
            if not isinstance(path, str):
                raise ScenarioError(f"{origin}: the key {_shown_object(path)} is not a dotted path such as "
                                    "\"flows.0.count\"")
            check_value(value, path)
    elif isinstance(overrides, (str, bytes)) or not isinstance(overrides, Iterable):
        raise ScenarioError(f"{origin}: {_shown_object(overrides)} is not a list of \"key=value\" strings or a "
                            "mapping of dotted paths to values")
    else:
        pairs = [_split_assignment(text, origin) for text in overrides]
    for path, value in pairs:
        _set_path(scenario, path, value, origin)
    return scenario


def parse_override_value(text: str) -> Any:
    """Parse ``text`` as a TOML value (``10``, ``0.5``, ``true``, ``"x"``, ``{ a = 1 }``);
    anything else (``10Mbps``, ``1s``), dates and non-finite floats stay plain strings.
    A value TOML cannot parse in reasonable time (a key of thousands of dotted parts) is
    a ScenarioError."""
    try:
        value = tomllib.loads(check_toml_text(f"value = {text}"))["value"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise ScenarioError("tables or lists nested too deeply") from None
    if isinstance(value, (datetime.date, datetime.time)):
        return text
    if isinstance(value, float) and not math.isfinite(value):
        return text
    return value


# A scenario or plan file larger than this is not one (and is not read into memory).
# The most parts a dotted key may have (`a.b.c` has three). No scenario field is nested
# more than a handful deep, and the TOML parser's time grows with the square of a key's
# parts (a 40 000-part key: minutes), so longer keys are refused before parsing.
MAX_KEY_PARTS = MAX_DEPTH
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
# (the look-behind keeps the search linear: it never restarts inside a bare key)
_LONG_DOTTED_KEY = re.compile(rf"(?<![A-Za-z0-9_-]){_KEY_PART}(?:[ \t]*\.[ \t]*{_KEY_PART}){{{MAX_KEY_PARTS},}}")
_LONE_CR = re.compile(r"\r(?!\n)")


def check_toml_text(text: str) -> str:
    """``text`` ready for the TOML parser, or a ScenarioError saying why it is not TOML
    a person meant: a byte-order mark (which some editors write) is dropped; a carriage
    return without a line feed (old Mac line endings) and a dotted key of more than
    MAX_KEY_PARTS parts are refused naming their line."""
    text = text.removeprefix("\ufeff")
    lone = _LONE_CR.search(text)
    if lone is not None:
        line = text.count("\n", 0, lone.start()) + 1
        raise ScenarioError(f"line {line}: a carriage return without a line feed; TOML lines end in LF or CRLF "
                            "(was it saved with old Mac line endings?)")
    long_key = _LONG_DOTTED_KEY.search(text)
    if long_key is not None:
        line = text.count("\n", 0, long_key.start()) + 1
        shown = long_key.group()
        raise ScenarioError(f"line {line}: a dotted key of more than {MAX_KEY_PARTS} parts "
                            f"({printable(shown[:24])}… {len(shown)} characters); no field of a scenario is nested "
                            "that deep")
    return text


def read_toml(path: Path) -> dict:
    """Parse a TOML file; a missing, unreadable, odd (a FIFO, a device, huge), unnamable
    (a NUL in its name) or malformed file is a one-line ScenarioError."""
    return parse_toml(read_text(path, "a scenario .toml file"), file_name(path))


def read_stdin() -> dict:
    """A scenario (or plan) given on standard input, as ``cclab run -`` reads it."""
    closed = ScenarioError("<stdin>: standard input is closed; give a scenario file, or pipe one in")
    if sys.stdin is None:
        raise closed
    try:
        stream = getattr(sys.stdin, "buffer", None)
        data = (stream or sys.stdin).read(MAX_FILE_BYTES + 1)
    except ValueError:  # I/O operation on closed file
        raise closed from None
    except OSError as error:
        raise ScenarioError(f"<stdin>: cannot be read ({error.strerror or error})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError(f"<stdin>: more than a scenario file's {MAX_FILE_BYTES} bytes")
    return parse_toml(decode(data, "<stdin>") if isinstance(data, bytes) else data, "<stdin>")


def parse_toml(text: str, where: str) -> dict:
    """TOML text from ``where`` (a file name, ``<stdin>``) as a dict; one-line errors,
    the same whichever way the text came."""
    try:
        document = tomllib.loads(check_toml_text(text))
    except ScenarioError as error:
        raise ScenarioError(f"{where}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{where}: {_describe_toml_error(error)}") from None
    except RecursionError:
        raise ScenarioError(f"{where}: arrays or tables nested too deeply") from None
    check_value(document, "", leaves=False)  # (values are checked where they are used, naming their field)
    return document


def _describe_toml_error(error: tomllib.TOMLDecodeError) -> str:
    if hasattr(error, "lineno"):  # Python >= 3.14 exposes the position
        return f"line {error.lineno}, column {error.colno}: {error.msg}"
    match = _TOML_POSITION.match(str(error))
    if match is None:
        return str(error)
    return f"line {match['line']}, column {match['column']}: {match['message']}"


def _split_assignment(text: Any, origin: str = "--set") -> tuple[str, Any]:
    if not isinstance(text, str):
        raise ScenarioError(f"{origin}: {_shown_object(text)} is not a \"key=value\" string")
    path, sep, value = text.partition("=")
    path = path.strip()
    if not sep or not path:
        example = "--set flows.0.count=10" if origin == "--set" else '"flows.0.count=10"'
        shown = _shown(text).strip('"') if origin == "--set" else _shown(text)
        raise ScenarioError(f"{origin} {shown}: expected KEY=VALUE, e.g. {example}")
    try:
        return path, parse_override_value(value.strip())
    except ScenarioError as error:
        raise ScenarioError(f"{_where_set(path, origin)}: {error}") from None


def _where_set(path: str, origin: str) -> str:
    shown = _path(path)
    return f"{origin} {shown}" if origin == "--set" else f'{origin}."{shown}"'


def _set_path(scenario: dict, path: str, value: Any, origin: str = "overrides") -> None:
    """Set ``scenario[a][b][0][c] = value`` for path ``a.b.0.c``; integer components
    index lists, missing tables are created."""
    keys = path.split(".")
    where_set = _where_set(path, origin)
    if any(key == "" for key in keys):
        raise ScenarioError(f"{where_set}: empty component in the dotted path")
    if len(keys) > MAX_DEPTH:
        raise ScenarioError(f"{where_set}: a path of {len(keys)} parts; no field of a scenario is nested more than "
                            f"{MAX_DEPTH} deep")
    node: Any = scenario
    for depth, key in enumerate(keys):
        is_last = depth == len(keys) - 1
        where = _path(".".join(keys[:depth]))
        if isinstance(node, list):
            if not (key.isascii() and key.isdigit()):
                shown = key if len(key) <= 40 else f"{key[:16]}…{key[-8:]} ({len(key)} characters)"
                raise ScenarioError(f"{where_set}: {where} is a list, '{printable(shown)}' is not an index")
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
