"""Generate docs/reference/scenario.md from the Rust schema.

The schema has one home, the serde structs of crates/cclab-core: this script reads
their fields, types, `#[serde(...)]` attributes, doc comments and the range checks of
their `validate` functions from the Rust source, and takes every default from the engine
itself (`cclab.validate` fills defaults in). The only hand-written part is
``SECTIONS``: where each struct sits in a scenario and a minimal scenario that reaches
it. tests/test_docs.py fails when a schema struct has no section, a field has no
description, a field of any experiment file is missing from the page, or the page
is out of date.

    .venv/bin/python tools/scenario_reference.py            # rewrite the page
    .venv/bin/python tools/scenario_reference.py --check    # exit 1 if it is stale
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "cclab-core" / "src"
PAGE = ROOT / "docs" / "reference" / "scenario.md"


# --------------------------------------------------------------------------- parsing
@dataclass
class Field:
    name: str
    rust_type: str
    doc: str
    attrs: str  # the field's #[serde(...)] contents, joined

    @property
    def required(self) -> bool:
        return "default" not in self.attrs and not self.rust_type.startswith("Option<")


@dataclass
class Item:
    name: str
    file: Path
    doc: str
    attrs: str  # the item's #[serde(...)] contents
    fields: list[Field] = field(default_factory=list)
    checks: dict[str, list[str]] = field(default_factory=dict)

    @property
    def all_default(self) -> bool:  # #[serde(default)] on the struct: every field optional
        return bool(re.search(r"(^|,\s*)default(\s*,|$)", self.attrs))


def _doc(lines: list[str]) -> str:
    text = " ".join(line.strip()[3:].strip() for line in lines)
    return re.sub(r"\[`([^`]+)`\]", r"`\1`", text).strip()


def _split_fields(body: str) -> list[Field]:
    """The named fields of a struct body (or of an enum's struct variant)."""
    fields, docs, attrs = [], [], []
    depth = 0
    if "\n" not in body.strip():  # a one-line variant: `Onoff { rate: Rate, on: Period, off: Period }`
        parts, level, current = [], 0, ""
        for ch in body:
            level += ch in "<(" and 1 or ch in ">)" and -1 or 0
            if ch == "," and level == 0:
                parts.append(current)
                current = ""
            else:
                current += ch
        body = "\n".join(part.strip() + "," for part in parts + [current] if part.strip())
    for raw in body.splitlines():
        line = raw.strip()
        if depth == 0 and line.startswith("///"):
            docs.append(line)
        elif depth == 0 and line.startswith("#[serde("):
            attrs.append(line[len("#[serde("):].rstrip(")]"))
        elif depth == 0 and line.startswith("#["):
            pass
        else:
            match = re.match(r"(?:pub(?:\([^)]*\))?\s+)?(r#)?(\w+)\s*:\s*(.+?),?$", line) if depth == 0 else None
            if match:
                fields.append(Field(match.group(2), match.group(3).rstrip(","), _doc(docs), ", ".join(attrs)))
                docs, attrs = [], []
            elif depth == 0 and line and not line.startswith("//"):
                docs, attrs = [], []
            depth += line.count("{") - line.count("}")
    return fields


def _block(text: str, start: int) -> str:
    """The text between the brace at or after ``start`` and its match."""
    open_at = text.index("{", start)
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[open_at + 1:i]
    raise ValueError("unbalanced braces")


_ITEM = re.compile(
    r"((?:[ \t]*///[^\n]*\n)*)"  # doc comment
    r"[ \t]*#\[derive\(([^)]*)\)\]\s*\n"
    r"((?:[ \t]*#\[[^\n]*\]\s*\n)*)"  # further attributes
    r"[ \t]*pub (struct|enum) (\w+)(?:<[^>{]*>)?\s*([{(;])"
)
_CHECK = re.compile(r'\(\s*"([a-z_0-9.]+)",\s*(?:format!\(\s*)?"((?:[^"\\]|\\.)*)"')
# Table-driven checks: `for (field, value[, min, max]) in [("name", self.name[, MIN, MAX]), ...]
# { ... format!("message") ... }`, one message for every row.
_TABLE_CHECK = re.compile(r"for \(field, value(, min, max)?\) in \[(.*?)\]\s*\{(.*?)\n\s*\}\n", re.S)
_TABLE_ROW = re.compile(r'\(\s*"([a-z_0-9]+)",\s*self\.[a-z_0-9.]+(?:,\s*([-0-9_.e]+),\s*([-0-9_.e]+))?\s*\)')
_FORMAT = re.compile(r'format!\(\s*"((?:[^"\\]|\\.)*)"')


def _table_checks(text: str) -> list[tuple[str, str]]:
    """(field, message) of each row of the table-driven checks in `text`."""
    out = []
    for m in _TABLE_CHECK.finditer(text):
        message = _FORMAT.search(m.group(3))
        if not message:
            continue
        for name, low, high in _TABLE_ROW.findall(m.group(2)):
            text_ = message.group(1)
            if low:
                text_ = text_.replace("{min}", low.replace("_", "")).replace("{max}", high.replace("_", ""))
            out.append((name, text_))
    return out


def parse_items() -> dict[str, Item]:
    items: dict[str, Item] = {}
    for path in sorted(CORE.rglob("*.rs")):
        text = path.read_text()
        checks: dict[str, list[str]] = {}
        for name, message in _CHECK.findall(text) + _table_checks(text):
            message = re.sub(r"\{[^{}]*\}", "…", message.replace('\\"', '"'))
            if not re.match(r"… (is|are|bytes|must|makes)\b", message):
                continue  # messages that do not describe the value (cross-field rules)
            checks.setdefault(name, [])
            if message not in checks[name]:
                checks[name].append(message)
        for m in _ITEM.finditer(text):
            if "Serialize" not in m.group(2) and "Deserialize" not in m.group(2):
                continue
            serde = ", ".join(re.findall(r"#\[serde\(([^\n]*)\)\]", m.group(3)))
            item = Item(m.group(5), path, _doc(m.group(1).strip().splitlines()), serde, checks=checks)
            if m.group(4) == "struct" and m.group(6) == "{":
                item.fields = _split_fields(_block(text, m.start(6)))
            elif m.group(4) == "enum":
                body = _block(text, m.start(6))
                # struct variants: `Name { a: T, ... }` become items `Enum::Name`
                for v in re.finditer(r"((?:[ \t]*///[^\n]*\n)*)[ \t]*(\w+)\s*\{", body):
                    sub = Item(f"{item.name}::{v.group(2)}", path, _doc(v.group(1).strip().splitlines()), "")
                    sub.fields = _split_fields(_block(body, v.start(2)))
                    sub.checks = checks
                    items[sub.name] = sub
            items[item.name] = item
    return items


def registry() -> list[tuple[str, str, str]]:
    """(name, config type, doc) of every congestion-control algorithm in cc/mod.rs."""
    text = (CORE / "cc" / "mod.rs").read_text()
    body = text[text.index("algorithms! {"):]
    body = body[:body.index("\n}\n")]
    out, docs = [], []
    for line in body.splitlines()[1:]:
        line = line.strip()
        if line.startswith("///"):
            docs.append(line)
            continue
        m = re.match(r'"([^"]+)"\s*=>\s*\w+\(([\w:]+)\),', line)
        if m:
            out.append((m.group(1), m.group(2).split("::")[-1], _doc(docs)))
        docs = []
    return out


def queue_registry() -> list[tuple[str, str, str, str, Path]]:
    """(kind name, group, spec type, doc, file) of every queue discipline in the registry
    of net/qdisc/mod.rs (`disciplines!`): the group is fifo, admission or dequeue, the
    file the discipline's own (its module `qdisc::<module>`)."""
    text = (CORE / "net" / "qdisc" / "mod.rs").read_text()
    body = text[text.index("\ndisciplines! {"):]
    body = body[:body.index("\n}\n")]
    out, docs, group = [], [], ""
    for line in body.splitlines()[1:]:
        line = line.strip()
        if re.match(r"^\w+ \{$", line):
            group = line.split()[0]
        elif line.startswith("///"):
            docs.append(line)
            continue
        m = re.match(r'"([^"]+)"\s*=>\s*\w+\((\w+)::(\w+)\),', line)
        if m:
            out.append((m.group(1), group, m.group(3), _doc(docs), CORE / "net" / "qdisc" / f"{m.group(2)}.rs"))
        docs = []
    return out


# Parameters a discipline cannot be written without, for the scenario that shows its
# defaults (a discipline whose parameters all have defaults needs nothing here).
REQUIRED_QUEUE = {"step_mark": {"threshold": 20}}


def _queue(kind: str, spec: str) -> Section:
    required = REQUIRED_QUEUE.get(kind)
    title = f'`queue = {{ kind = "{kind}" }}`' if required else f'`queue = "{kind}"`'
    where = "`queue` of any link" + (f' (`queue = "{kind}"` or `{{ kind = "{kind}", ... }}`)' if not required else "")
    return Section(title, spec, where, with_link(queue={"kind": kind, **required} if required else kind),
                   ("topology", "bottleneck", "queue"))


def choices() -> dict[str, list[str]]:
    """Enum type → its names in scenarios (`named_choice!`)."""
    out = {}
    for path in CORE.rglob("*.rs"):
        for m in re.finditer(r"named_choice!\((\w+),\s*\"\w+\",\s*\[([^\]]*)\]", path.read_text()):
            out[m.group(1)] = re.findall(r'=>\s*"([^"]+)"', m.group(2))
    return out


# --------------------------------------------------------------------------- sections
DUMBBELL = {
    "kind": "dumbbell",
    "bottleneck": {"rate": "10Mbps", "delay": "20ms"},
    "source_access": {"rate": "100Mbps", "delay": "1ms"},
    "sink_access": {"rate": "100Mbps", "delay": "1ms"},
}


def probe(flow: dict | None = None, **top) -> dict:
    scenario = {"duration": "1s", "topology": DUMBBELL, "flows": [flow or {}]}
    scenario.update(top)
    return scenario


def with_link(**link) -> dict:
    topology = json.loads(json.dumps(DUMBBELL))
    topology["bottleneck"].update(link)
    return probe(topology=topology)


GRAPH = {"kind": "graph", "links": [{"from": "a", "to": "b", "rate": "10Mbps", "delay": "10ms"}]}
CHAIN = {"kind": "chain", "hops": [{"rate": "10Mbps", "delay": "10ms"}]}


@dataclass
class Section:
    title: str
    item: str  # Rust type, or Enum::Variant
    where: str  # where it is written in a scenario
    scenario: dict | None = None  # a scenario that contains it (None: no defaults shown)
    at: tuple = ()  # path of the table in the normalised scenario
    intro: str = ""


def _cc(name: str, config: str) -> Section:
    return Section(
        f'`algorithm = "{name}"`', config, f'`flows[].cc = {{ algorithm = "{name}", ... }}`',
        probe({"cc": {"algorithm": name, **(REQUIRED_CC.get(name) or {})}}), ("flows", 0, "cc"))


REQUIRED_CC = {"binomial": {"k": 0.5, "l": 0.5, "b": 0.5},
               "tcp(1/b)": {"b": 8}, "sqrt(1/b)": {"b": 8}, "python": None}

SECTIONS: list[Section] = [
    Section("Top level", "Scenario", "the file's top-level keys", probe(), ()),
    Section("`[[flows]]`", "FlowGroup", "`[[flows]]` (one table per group of identical flows)", probe(), ("flows", 0)),
    Section("`start` as a table", "StartSpec", "`flows[].start = { ... }` (or a plain time: `start = \"2s\"`)",
            probe({"start": {"stagger": "1s"}}), ("flows", 0, "start")),
    Section("`[flows.tcp]`", "TcpConfig", "`flows[].tcp` (TCP groups)", probe(), ("flows", 0, "tcp")),
    Section("`[flows.tcp.ns2]`", "Ns2Switches", "`flows[].tcp.ns2` (each ns-2.35 behaviour; unset ones follow `profile`)",
            probe(), ("flows", 0, "tcp", "ns2")),
    Section("`[flows.tfrc]`", "TfrcConfig", "`flows[].tfrc` (`transport = \"tfrc\"` groups)",
            probe({"transport": "tfrc"}), ("flows", 0, "tfrc")),
    Section('`app = { kind = "cbr" }`', "AppSpec::Cbr", "`flows[].app` (`app = \"bulk\"` is the TCP default)",
            probe({"app": {"kind": "cbr", "rate": "1Mbps"}}), ("flows", 0, "app")),
    Section('`app = { kind = "onoff" }`', "AppSpec::Onoff", "`flows[].app` (UDP only)",
            probe({"transport": "udp", "app": {"kind": "onoff", "rate": "1Mbps", "on": "1s", "off": "1s"}}),
            ("flows", 0, "app"),
            intro='`on` and `off` are each a duration (fixed) or `{ exponential = "1s" }` or '
                  '`{ pareto = "1s", shape = 1.5 }` (mean and shape).'),
    Section("`arrivals`", "ArrivalSpec", "`flows[].arrivals` (TCP groups whose flows arrive during the run)",
            probe({"arrivals": {"kind": "poisson", "load": 0.5, "sizes": {"kind": "fixed", "size": "100KB"}}}),
            ("flows", 0, "arrivals"),
            intro='`sizes` is `{ kind = "fixed", size = "100KB" }`, `{ kind = "pareto", mean = "100KB", shape = 1.2 }` '
                  'or `{ kind = "cdf", file = "web-search" }` (a CSV beside the scenario, or `points = [[size, p], ...]`); '
                  'see [short flows](../short-flows.md).'),
    Section("`[trace]`", "TraceConfig", "`[trace]`", probe(), ("trace",)),
    Section('`kind = "dumbbell"`', "Dumbbell", "`[topology]`", probe(), ("topology",),
            intro="Every flow gets its own source and sink host; the three links are all required."),
    Section("Dumbbell links", "LinkSpec", "`topology.bottleneck`, `topology.source_access`, `topology.sink_access`",
            probe(), ("topology", "bottleneck")),
    Section('`kind = "graph"`', "GraphTopology", "`[topology]`", probe({"from": "a", "to": "b"}, topology=GRAPH),
            ("topology",)),
    Section('`kind = "chain"`', "ChainTopology", "`[topology]` (nodes `n0` … `nN`)",
            probe({"from": "n0", "to": "n1"}, topology=CHAIN), ("topology",)),
    Section("Graph links and chain hops", "GraphLink", "`topology.links[]`, `topology.hops[]`",
            probe({"from": "a", "to": "b"}, topology=GRAPH), ("topology", "links", 0)),
    Section("A link's reverse direction", "LinkOverrides", "`topology.links[].reverse`, `topology.hops[].reverse`",
            None),
    Section('`kind = "wired-wireless"`', "WiredWireless", "`[topology]`",
            probe({"from": "source", "to": "mobile"}, topology={"kind": "wired-wireless"}), ("topology",)),
    Section("Wired-wireless hops", "PresetHop", "`topology.wired`, `topology.wireless`", None),
    Section('`loss = { model = "bernoulli" }`', "BernoulliLoss", "`loss` / `reverse_loss` of any link", None),
    Section('`loss = { model = "gilbert_elliott" }`', "GilbertElliottLoss", "`loss` / `reverse_loss` of any link",
            with_link(loss={"model": "gilbert_elliott", "good_to_bad": 0.01, "bad_to_good": 0.1}),
            ("topology", "bottleneck", "loss")),
    Section('`loss = { model = "handoff" }`', "HandoffLoss", "`loss` / `reverse_loss` of any link", None),
    Section('`loss = { model = "periodic" }`', "PeriodicLoss", "`loss` / `reverse_loss` of any link", None),
    Section('`rate_schedule = { kind = "square" }`', "SquareWave", "`rate_schedule` of a dumbbell or graph link", None),
    Section('`emulator = { kind = "mahimahi" }`', "EmulatorSpec", "`emulator` of a dumbbell or graph link", None,
            intro="Each direction releases its packets as one of Mahimahi's shells does: see "
                  "[trace links](../guide/trace-links.md#the-emulators-loops-emulator)."),
]

# Types that are not tables of a scenario (results, internal records) or are read
# through another struct's section.
NOT_SCENARIO_TABLES = {
    "SystemMetrics", "LinkMetrics", "GroupMetrics", "FlowMetrics", "Conservation", "Bins", "FlowTrace",
    "QueueTrace", "Traces", "Capture", "LinkTrace", "RunResult", "RedStats", "TopologyDescription",
    "LinkDescription", "FlowRoute", "FlowPlan", "FctSummary", "FctBucket", "FctTable", "DelayHistogram", "QueueDelayHistogram", "DelayColumns",
    "FlowInterval", "QueueStats",
    # transparent wrappers documented as the struct they wrap, and tagged enums whose
    # variants have their own sections
    "TcpInverseConfig", "SqrtInverseConfig", "SqrtConfig", "IiadConfig", "AppSpec", "LossSpec", "QueueSpec", "DroptailSpec",
    "Topology", "RateSchedule", "CcConfig", "PresetParams",
}


def all_sections() -> list[Section]:
    sections = list(SECTIONS)
    # a queue discipline with parameters: its section, after the topology's
    at = next(i for i, s in enumerate(sections) if s.item == "PresetHop") + 1
    queue_items = parse_items()
    sections[at:at] = [_queue(kind, spec) for kind, _, spec, _, _ in queue_registry() if queue_items[spec].fields]
    for name, config, _ in registry():
        if config in {"TcpInverseConfig", "SqrtInverseConfig"}:
            config = "InverseB"
        if config in {"SqrtConfig", "IiadConfig"}:
            config = "PresetParams"
        section = _cc(name, config)
        if REQUIRED_CC.get(name, {}) is None:
            section.scenario = None
        sections.append(section)
    return sections


# --------------------------------------------------------------------------- rendering
TYPE_WORDS = {
    "Duration": "duration",
    "Rate": "rate",
    "bool": "boolean",
    "String": "string",
    "f64": "number",
    "u32": "integer ≥ 0",
    "u64": "integer ≥ 0",
    "usize": "integer ≥ 0",
    "NonZeroU32": "integer ≥ 1",
    "NonZeroU64": "integer ≥ 1",
    "Probability": "number in [0, 1]",
    "OpenUnit": "number in (0, 1)",
    "Positive": "number > 0",
    "BufferSpec": 'packets (integer) or "Nbdp"',
    "QueueSpec": "queue (see Queues)",
    "LossSpec": "loss model (see Loss models)",
    "RateSchedule": "rate schedule",
    "EmulatorSpec": 'table (see `emulator = { kind = "mahimahi" }`)',
    "&'static str": "string",
    "CcConfig": "algorithm name or table (see Congestion control)",
    "AppSpec": '"bulk" or table (see Applications)',
    "StartSpec": "duration or table",
    "Period": "duration or table",
    "Alpha": 'number in (0, 1000] or "friendly"',
    "Topology": "table (see Topology)",
    "TcpConfig": "table",
    "TfrcConfig": "table",
    "TraceConfig": "table",
    "Ns2Switches": "table",
    "LinkSpec": "table",
    "GraphLink": "table",
    "LinkOverrides": "table",
    "PresetHop": "table",
    "FlowGroup": "table",
    "PathBuf": "path",
}
UNITS = {
    "Duration": 'with a unit: "100us", "25ms", "1.5s"',
    "Rate": 'bits per second with a unit: "64kbps", "10Mbps", "1Gbps"',
    "BufferSpec": "packets of `packet_size`",
}


def type_words(rust: str, enums: dict[str, list[str]]) -> str:
    rust = rust.strip()
    m = re.fullmatch(r"Option<(.+)>", rust)
    if m:
        return type_words(m.group(1), enums)
    m = re.fullmatch(r"Vec<(.+)>", rust)
    if m:
        return f"list of {type_words(m.group(1), enums)}"
    m = re.fullmatch(r"\((.+)\)", rust)
    if m:
        return "[" + ", ".join(type_words(t, enums) for t in m.group(1).split(",")) + "]"
    m = re.fullmatch(r"(?:[\w:]+::)?(\w+)", rust)
    name = m.group(1) if m else rust
    if name in enums:
        return " | ".join(f'"{c}"' for c in enums[name])
    return TYPE_WORDS.get(name, name)


def unit_words(rust: str) -> str:
    for name, words in UNITS.items():
        if re.search(rf"\b{name}\b", rust):
            return words
    return ""


def lookup(value, at: tuple):
    for key in at:
        value = value[key]
    return value


def shown(value) -> str:
    if value is None:
        return "unset (automatic)"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, dict) and len(json.dumps(value)) > 60:
        return "(table below)"
    text = json.dumps(value, ensure_ascii=False)
    text = re.sub(r'"(\w+)": ', r"\1 = ", text)
    return f"`{text}`"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def defaults_of(section: Section, validate) -> dict | None:
    """The engine's values for the fields the section's scenario leaves out."""
    if section.scenario is None:
        return None
    values = dict(lookup(validate(section.scenario), section.at))
    try:
        given = lookup(section.scenario, section.at)
    except (KeyError, IndexError, TypeError):
        given = {}
    for key in given if isinstance(given, dict) else ():
        values.pop(key, None)
    return values


def render(validate) -> str:
    items, enums, algos = parse_items(), choices(), registry()
    out = [
        "# Scenario reference",
        "",
        "<!-- Generated by tools/scenario_reference.py from crates/cclab-core/src; do not edit by hand.",
        "     Regenerate: .venv/bin/python tools/scenario_reference.py -->",
        "",
        "Every field a scenario file (TOML), a `--set` override or a dict given to `cclab.run` may hold. "
        "Field names, types, descriptions and range checks are read from the engine's Rust schema "
        "(`crates/cclab-core/src`); defaults are what the engine fills in (`cclab validate FILE` prints "
        "a scenario with every default). A field marked **required** has no default. "
        "A value outside its range, an unknown field or a misspelt name stops the run before it "
        "starts with one line naming the field.",
        "",
        "Units: durations are written with a unit (`\"100us\"`, `\"25ms\"`, `\"1.5s\"`), rates in bits per second "
        "with a unit (`\"64kbps\"`, `\"10Mbps\"`, `\"1Gbps\"`), buffers in packets or as a multiple of the "
        "bandwidth-delay product (`\"1bdp\"`), sizes in bytes.",
        "",
        "Congestion-control algorithms (`flows[].cc`): "
        + ", ".join(f"`{name}`" for name, _, _ in algos)
        + ". `cc = \"cubic\"` is short for `cc = { algorithm = \"cubic\" }`.",
        "",
    ]
    groups = [
        ("Scenario and flows", lambda s: s.item in {"Scenario", "FlowGroup", "StartSpec", "TraceConfig"}
         or s.item.startswith("AppSpec")),
        ("Transport", lambda s: s.item in {"TcpConfig", "Ns2Switches", "TfrcConfig"}),
        ("Topology", lambda s: s.item in {"Dumbbell", "LinkSpec", "GraphTopology", "ChainTopology", "GraphLink",
                                          "LinkOverrides", "WiredWireless", "PresetHop", "SquareWave", "EmulatorSpec"}),
        ("Queues", lambda s: s.where.startswith("`queue` of any link")),
        ("Loss models", lambda s: s.item.endswith("Loss")),
        ("Congestion control", lambda s: s.where.startswith("`flows[].cc")),
    ]
    sections = all_sections()
    placed = set()
    for heading, belongs in groups:
        out += [f"## {heading}", ""]
        for section in sections:
            if not belongs(section) or id(section) in placed:
                continue
            placed.add(id(section))
            item = items[section.item]
            defaults = defaults_of(section, validate)
            out += [f"### {section.title}", "", f"Where: {section.where}."]
            if section.item.startswith("cc:") is False and item.doc:
                out += ["", item.doc]
            if section.intro:
                out += ["", section.intro]
            if not item.fields:
                out += ["", "No parameters.", ""]
                continue
            out += ["", "| field | type | unit | default | description and range |", "| --- | --- | --- | --- | --- |"]
            for f in item.fields:
                if f.attrs.strip() == "skip":  # not a scenario field (set from others)
                    continue
                name = re.search(r'rename\s*=\s*"([^"]+)"', f.attrs)
                name = name.group(1) if name else f.name
                implicit = re.search(r'default\s*=\s*"yes"', f.attrs)
                if defaults is not None and name in defaults:
                    default = shown(defaults[name])
                elif implicit:  # written out only when off (`is_true`): the default is on
                    default = "`true`"
                elif f.required and not item.all_default:
                    default = "**required**"
                else:
                    default = "unset"
                checks = item.checks.get(name, [])
                description = f.doc or ("See above." if f"`{name}`" in item.doc else "")
                if checks:
                    description += (" " if description else "") + "Refused: " + "; ".join(f"{c}" for c in checks) + "."
                out.append(
                    f"| `{name}` | {cell(type_words(f.rust_type, enums))} | {cell(unit_words(f.rust_type))} | "
                    f"{cell(default)} | {cell(description)} |"
                )
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def problems() -> list[str]:
    """What the page would get wrong: schema structs without a section, fields without a
    description."""
    items = parse_items()
    sections = all_sections()
    named = {s.item for s in sections}
    found = []
    for name, item in items.items():
        if "::" in name and name.split("::")[0] in {"AppSpec"}:
            pass
        elif name in NOT_SCENARIO_TABLES or not item.fields:
            continue
        if name not in named and not name.startswith("AppSpec::"):
            found.append(f"{name} ({item.file.relative_to(ROOT)}) has fields but no section in tools/scenario_reference.py")
    for section in sections:
        if section.item not in items:
            found.append(f"section {section.title}: no struct {section.item} in the Rust source")
            continue
        item = items[section.item]
        for f in item.fields:
            if not f.doc and f"`{f.name}`" not in item.doc and f.name not in SELF_EXPLANATORY:
                found.append(f"{section.item}.{f.name} ({items[section.item].file.relative_to(ROOT)}) has no doc comment")
    return found


# Fields whose name, type and section say everything (no doc comment needed).
SELF_EXPLANATORY: set[str] = set()


# --------------------------------------------------------------------------- algorithms page
ALGORITHMS_PAGE = ROOT / "docs" / "reference" / "algorithms.md"


def _module_doc(path: Path) -> str:
    """The module's //! header as Markdown: paragraphs joined into lines, except that a
    line starting with "- " or "* " starts a list item (nested by its indentation)."""
    lines = [line[3:].rstrip() for line in path.read_text().splitlines() if line.startswith("//!")]
    paragraphs, current = [], []
    for line in lines:
        text = line.strip()
        if not text:
            if current:
                paragraphs.append("\n".join(current))
                current = []
        elif text[:2] in ("- ", "* "):
            indent = len(line) - len(line.lstrip()) - 1  # the space after //!
            current.append("    " * (max(indent, 0) // 2) + text)
        elif current:
            current[-1] += " " + text
        else:
            current.append(text)
    if current:
        paragraphs.append("\n".join(current))
    return "\n\n".join(re.sub(r"\[`([^`]+)`\]", r"`\1`", p) for p in paragraphs)


def _impl_block(trait: str, type_name: str) -> str:
    for path in CORE.rglob("*.rs"):
        text = path.read_text()
        m = re.search(rf"impl(?:<[^>]*>)? (?:\w+::)*{trait} for {type_name}\b[^{{]*\{{", text)
        if m:
            return _block(text, m.end() - 1)
    return ""


def traced_state(name: str) -> list[str] | None:
    """The state an algorithm traces (cc_<name> columns), read off a one-second traced run
    of the engine (None for algorithms that need code of their own: python)."""
    params = REQUIRED_CC.get(name, {})
    if params is None:
        return None
    import cclab

    scenario = probe({"cc": {"algorithm": name, **params}}, trace={"flows": True})
    flows = cclab.run(scenario).traces["flows"]
    return [column for column in flows.columns if column.startswith("cc_")]


def _anchor(title: str) -> str:
    """The id mkdocs' toc gives a heading."""
    text = re.sub(r"[`*]", "", title).lower()
    text = re.sub(r"[^\w\s-]", "", text).strip()
    return re.sub(r"[-\s]+", "-", text)


def render_algorithms() -> str:
    items = parse_items()
    sections = {s.item: s for s in all_sections()}
    out = [
        "# Algorithms and queues",
        "",
        "<!-- Generated by tools/scenario_reference.py from crates/cclab-core/src; do not edit by hand. -->",
        "",
        "One section per congestion-control algorithm and queue discipline: what it is (the module's "
        "own header, with its paper, RFC or equation), where its parameters are listed, and the state "
        "it traces. With `[trace] flows = true` an algorithm's state appears in the flow trace as "
        "`cc_<name>` columns. The modern algorithms and disciplines are described in more depth, with "
        "their checks and the ns-3.44 comparison, in [Modern algorithms and queues](../algorithms-and-queues.md).",
        "",
        "## Congestion control",
        "",
    ]
    for name, config, doc in registry():
        item_name = {"TcpInverseConfig": "InverseB", "SqrtInverseConfig": "InverseB",
                     "SqrtConfig": "PresetParams", "IiadConfig": "PresetParams"}.get(config, config)
        item = items[item_name]
        title = f'`algorithm = "{name}"`'
        out += [f"### `{name}`", ""]
        if doc:
            out += [doc, ""]
        if item.file.name != "mod.rs":
            out += [_module_doc(item.file), ""]
        source = item.file.relative_to(ROOT).as_posix()
        state = traced_state(name)
        out += [
            f"- Source: `{source}`",
            f"- Parameters: [{title}](scenario.md#{_anchor(sections[item_name].title if item_name in sections else title)})"
            if item.fields else "- Parameters: none",
            "- Traced state: " + ("what the class's `state` returns" if state is None
                                  else ", ".join(f"`{s}`" for s in state) if state else "none"),
            "",
        ]
    out += ["## Queue disciplines", "",
            "Decided by the FIFO's limits alone (fifo), at a packet's admission (admission: the link keeps "
            "its fast path), or at its dequeue (dequeue: the link's transmitter takes the discipline's next "
            "packet when it is free).", ""]
    for kind, group, spec, doc, file in queue_registry():
        item = items[spec]
        out += [f"### `{kind}`", "", f"{doc} Decided: {group}.", "", _module_doc(file), "",
                f"- Source: `{file.relative_to(ROOT).as_posix()}`",
                f"- Parameters: [{sections[spec].title}](scenario.md#{_anchor(sections[spec].title)})"
                if item.fields else "- Parameters: none (the link's `buffer` and `buffer_bytes`)", ""]
    out += [
        "Every discipline's per-bin queue statistics (arrivals, drops, marks, queue length, sojourn) "
        "can be traced on any link direction with `[trace] links = [\"NAME\"]`; its drops and marks "
        "are in the `links` table (`aqm_drops`, `ecn_marks`).",
        "",
    ]
    return "\n".join(out).rstrip() + "\n"


def engine_validate():
    sys.path.insert(0, str(ROOT / "python"))
    import cclab

    return cclab.validate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = parser.parse_args()
    pages = {PAGE: render(engine_validate()), ALGORITHMS_PAGE: render_algorithms()}
    if args.check:
        stale = [page for page, text in pages.items() if not page.exists() or page.read_text() != text]
        for page in stale:
            print(f"{page.relative_to(ROOT)} is out of date: run tools/scenario_reference.py", file=sys.stderr)
        return 1 if stale else 0
    for page, text in pages.items():
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(text)
    for line in problems():
        print("warning:", line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
