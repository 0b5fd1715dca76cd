"""The hostile command lines (run by :mod:`hostile`, one ``python -m cclab`` each): odd
files, bad ``--set``, closed standard input, outputs into unwritable places, sweep plans
with hostile axes, and issue 41's (round 3) folders, CDF files, stores and memory
limits."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

from api_inputs import GRAPH, REPO

def cli_inputs(scratch: Path) -> list[dict]:
    good = scratch / "good.toml"
    import tomli_w

    good.write_text(tomli_w.dumps(GRAPH))
    fifo = scratch / "fifo.toml"
    os.mkfifo(fifo)
    deep = scratch / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    binary = scratch / "binary.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    unreadable = scratch / "unreadable.toml"
    unreadable.write_text("duration = '1s'\n")
    unreadable.chmod(0)
    readonly = scratch / "readonly"
    readonly.mkdir()
    readonly.chmod(0o500)
    a_file = scratch / "a-file"
    a_file.write_text("x")
    plan = lambda body: _write(scratch, body)  # noqa: E731
    base_plan = f'[sweep]\nname = "p"\nscenario = "{good}"\n[set]\nduration = "0.1s"\n'
    cases = [
        (["run", fifo], "fifo"), (["run", scratch], "a directory"), (["run", deep], "deep TOML"),
        (["run", binary], "binary file"), (["run", unreadable], "unreadable"), (["run", scratch / "missing.toml"], "missing"),
        (["run", good, "--set", "flows"], "--set without ="), (["run", good, "--set", "flows.9.count=1"], "--set index"),
        (["run", good, "--set", "duration=nan"], "--set nan"), (["run", good, "--set", "flows.0.cc.beta=inf"], "--set inf"),
        (["run", good, "--out", a_file], "--out onto a file"), (["run", good, "--out", readonly / "x"], "--out unwritable"),
        (["run", good, "--out", "/proc/x"], "--out /proc"), (["validate", good, "--set", "=1"], "--set empty path"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = 1e11, step = 1 }\n')], "axis 1e11 points"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = 2, step = 1e-12 }\n')], "axis step 1e-12"),
        (["sweep", plan(base_plan.replace('name = "p"', 'name = "p"\nreplications = 100000000000'))], "replications 1e11"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = inf, step = 1 }\n')], "axis to inf"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = nan, step = 1 }\n')], "axis to nan"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.count" = { from = 1, to = 1e400, step = 1 }\n')], "axis to 1e400"),
        (["sweep", plan(base_plan + '[axes]\n"flows.3.count" = [1, 2]\n')], "axis path index"),
        (["sweep", plan(base_plan + '[axes]\n"flows.0.cc.beta" = [0.5, 1.5]\n'), "--store", scratch / "s1.duckdb"], "axis bad value"),
        (["sweep", plan(base_plan.replace('name = "p"', 'name = "../../escaped"')), "--workers", "1"], "plan name escapes"),
        (["sweep", plan(base_plan), "--store", readonly / "x.duckdb"], "--store unwritable"),
        (["sweep", plan(base_plan), "--store", a_file], "--store onto a non-store file"),
        (["report", a_file, "-o", scratch / "r"], "report of a non-store"),
        (["export", scratch / "missing.duckdb", "-o", scratch / "e"], "export missing store"),
    ]
    # issue 31's command lines and files, and issue 29's bare numbers
    tiny = (REPO / "experiments" / "tiny.toml").read_text()
    header = _file(scratch, "header.toml", "[" + ".".join(["a"] * 1000) + "]\n")
    dotted = _file(scratch, "dotted.toml", ".".join(["a"] * 40_000) + " = 1\n")
    marked = _file(scratch, "bom.toml", "\ufeff" + tiny)
    old_mac = _file(scratch, "cr.toml", tiny.replace("\n", "\r"))
    dated = _file(scratch, "dated.toml", tiny.replace('name = "tiny"', "name = 1979-05-27"))
    bare = _file(scratch, "bare.toml", tiny.replace('delay = "10ms"', "delay = 18"))
    many = _file(scratch, "many.toml", tiny.split("[[flows]]")[0].replace('"0.1s"', '"0.01s"')
                 + "".join(f'[[flows]]\ngroup = "g{i}"\n' for i in range(100_000)))
    tiny_file = _file(scratch, "tiny.toml", tiny)
    cases += [
        (["run", header], "a table header 1000 deep"), (["run", dotted], "a 40000-part dotted key"),
        (["run", tiny_file, "--set", ".".join(["a"] * 1000) + "=1"], "--set path 1000 deep"),
        (["run", tiny_file, "--set", "trace={" + ".".join(["a"] * 40_000) + "=1}"], "--set value with a 40000-part key"),
        (["run", marked, "--json"], "a byte-order mark"), (["run", old_mac], "CR-only line endings"),
        (["run", dated], "a date as the name"), (["run", bare], "delay = 18 in a file"),
        (["run", tiny_file, "--set", "topology.bottleneck.delay=18"], "--set delay=18"),
        (["run", tiny_file, "--set", "topology.bottleneck.rate=20"], "--set rate=20"),
        (["run", tiny_file, "--set", "packet_size=1000"], "--set packet_size=1000"),
        (["run", tiny_file, "--set", "topology.bottleneck.buffer=\"5\""], "--set buffer=\"5\""),
        (["run", tiny_file, "--set", "duration=1ns"], "duration 1ns (a warning)"),
        (["run", tiny_file, "--set", "topology.bottleneck.rate=0.5bps"], "rate 0.5bps"),
        (["run", tiny_file, "--max-memory", "1PB", "--json"], "--max-memory 1PB"),
        (["run", tiny_file, "--max-memory", "1ZB"], "--max-memory 1ZB"),
        (["run", "missing-\udcff.toml"], "a file name that is not UTF-8"),
        (["run", many, "--json"], "100000 [[flows]] tables"),
        (["sweep", plan(base_plan.replace('name = "p"', 'name = "p"\nzip = [[]]') + '[axes]\nseed = [1, 2]\n')],
         "zip = [[]]"),
    ]
    inputs = [{"kind": "cli", "field": what, "value": " ".join(map(str, args))[:200], "args": [str(a) for a in args]}
              for args, what in cases]
    inputs += [
        {"kind": "cli", "field": "CR-only on stdin", "value": "run - < cr.toml", "args": ["run", "-"],
         "stdin": old_mac.read_bytes()},
        {"kind": "cli", "field": "a byte-order mark on stdin", "value": "run - < bom.toml", "args": ["run", "-", "--json"],
         "stdin": marked.read_bytes()},
        {"kind": "cli", "field": "standard input closed", "value": "run - --json <&-", "args": ["run", "-", "--json"],
         "close_stdin": True},
    ]
    return inputs


def round3_cli_inputs(scratch: Path) -> list[dict]:
    """Issue 41's command lines. A case may carry ``keep`` (a folder whose files must be
    unchanged afterwards), ``expect`` (text the one error line must hold), ``max_rss``
    (bytes the process may peak at) or ``succeeds`` (exit 0 expected)."""
    import shutil

    import tomli_w

    folder = scratch / "round3"
    folder.mkdir()
    base = {"name": "r3", "duration": "0.3s",
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": "1bdp"},
                         "source_access": {"rate": "100Mbps", "delay": "1ms"},
                         "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"cc": "reno"}]}

    def scenario(name: str, **changes) -> Path:
        document = copy.deepcopy(base)
        document.update(changes)
        path = folder / name
        path.write_text(tomli_w.dumps(document))
        return path

    good = scenario("good.toml")
    cases: list[dict] = []

    def case(args, what, **extra):
        cases.append({"kind": "cli", "field": what, "value": " ".join(map(str, args))[:200],
                      "args": [str(a) for a in args], **extra})

    # output folders
    project = folder / "project"
    (project / "data").mkdir(parents=True)
    (project / "meta.json").write_text('{"cclab_version": "0.1.0"}')
    (project / "thesis.tex").write_text("precious")
    (project / "data" / "raw.csv").write_text("1,2")
    case(["run", good, "--out", project], "--out a project folder with a meta.json", keep=project,
         expect="not a cclab result directory")
    added = folder / "added"
    added.mkdir()
    (added / ".cclab-result").write_text(json.dumps({"format": "cclab result directory", "entries": ["flows.csv"]}))
    (added / "flows.csv").write_text("x")
    (added / "notes.txt").write_text("mine")
    case(["run", good, "--out", added], "--out a result folder the user added to", keep=added,
         expect="did not write there (notes.txt)")
    dot = folder / "dot"
    dot.mkdir()
    case(["run", good, "--out", "."], "--out . in an empty folder", cwd=dot, succeeds=True)
    case(["run", good, "--out", folder / ("o" * 240)], "a 240-character --out", succeeds=True)
    case(["run", good, "--out", folder / ("ü" * 128)], "a 256-byte --out", expect="a folder name of 256 bytes")
    # flow-size CDF files
    cdf = {"cc": "reno", "arrivals": {"kind": "poisson", "load": 0.3, "sizes": {"kind": "cdf", "file": "sizes.csv"}}}
    rows = {"inf": "1000,0.5\ninf,1\n", "1e400": "1000,0.5\n1e400,1\n", "decreasing": "1000,0.5\n900,1\n",
            "nan probability": "1000,0.5\n2000,nan\n", "last below 1": "1000,0.5\n2000,0.9\n",
            "2e15 bytes": "1000,0.5\n2000000000000000,1\n", "three columns": "1,2,3\n",
            "a 200000-character line": "1," + "9" * 200_000 + "\n", "empty": "", "not numbers": "1000,0.5\na,b\n"}
    for what, text in rows.items():
        sub = folder / f"cdf-{len(cases)}"
        sub.mkdir()
        (sub / "sizes.csv").write_text(text)
        path = sub / "s.toml"
        path.write_text(tomli_w.dumps({**base, "flows": [cdf]}))
        case(["run", path], f"CDF file: {what}", expect="flows[0].arrivals.sizes.file: sizes.csv")
    for what in ("fifo", "/dev/zero", "/dev/urandom", "a directory"):
        sub = folder / f"cdf-{len(cases)}"
        sub.mkdir()
        target = sub / "sizes.csv"
        if what == "fifo":
            os.mkfifo(target)
        elif what == "a directory":
            target.mkdir()
        else:
            target.symlink_to(what)
        path = sub / "s.toml"
        path.write_text(tomli_w.dumps({**base, "flows": [cdf]}))
        case(["run", path], f"CDF file: {what}", expect="flows[0].arrivals.sizes.file: sizes.csv")
    # stores
    plan = folder / "plan.toml"
    plan.write_text(f'[sweep]\nname = "p"\nscenario = "{good}"\n[axes]\n"flows.0.count" = [1, 2]\n')
    store = folder / "st.duckdb"
    subprocess.run([sys.executable, "-m", "cclab", "sweep", str(plan), "--store", str(store), "--workers", "1"],
                   capture_output=True, timeout=300, check=True)
    for how in ("truncated catalog", "zeroed catalog", "truncated flows part", "garbage runs part",
                "garbage results part", "garbage bins part"):
        sub = folder / f"store-{len(cases)}"
        sub.mkdir()
        damaged = sub / "d.duckdb"
        shutil.copy(store, damaged)
        shutil.copytree(store.with_name("st.duckdb.parts"), sub / "d.duckdb.parts")
        if how == "truncated catalog":
            os.truncate(damaged, 1000)
        elif how == "zeroed catalog":
            damaged.write_bytes(bytes(damaged.stat().st_size))
        else:
            part = sorted((sub / "d.duckdb.parts" / how.split()[-2]).glob("*.parquet"))[0]
            if how.startswith("truncated"):
                os.truncate(part, 100)
            else:
                part.write_bytes(os.urandom(5000))
        for command in (["report", damaged, "-o", sub / "r"], ["export", damaged, "-o", sub / "e"],
                        ["reproduce", "mraimd", "--quick", "--from-store", damaged, "--out", sub / "m"]):
            case(command, f"{command[0]}: a store with a {how}", expect="d.duckdb")
    foreign = folder / "mine.duckdb"
    import duckdb

    connection = duckdb.connect(str(foreign))
    connection.execute("CREATE TABLE experiments (x INTEGER)")
    connection.close()
    case(["sweep", plan, "--store", foreign], "--store an unrelated DuckDB database",
         expect="not a cclab results store", unchanged=foreign)
    # traced links, capture names
    for field in ("links", "pcap"):
        case(["validate", scenario(f"trace-{field}.toml", trace={field: ["r1-r2", "bottleneck"]})],
             f"trace.{field} naming a missing link", expect=f"trace.{field}[1]: no link direction is named")
    # Python controllers made badly
    (folder / "controllers.py").write_text("import sys\nimport cclab.cc\nclass Exits(cclab.cc.CongestionControl):\n"
                                           "    def __init__(self):\n        sys.exit(0)\n")
    case(["run", scenario("exits.toml", flows=[{"cc": {"algorithm": "python", "path": str(folder / "controllers.py"),
                                                       "class": "Exits"}}])],
         "sys.exit in a controller's __init__", expect="raised SystemExit: 0")
    # short flows piling up
    tiny = copy.deepcopy(base)
    tiny["duration"] = "10s"
    tiny["topology"]["bottleneck"]["rate"] = "1Gbps"
    tiny["flows"] = [{"cc": "reno", "arrivals": {"kind": "poisson", "load": 0.9, "sizes": {"kind": "fixed", "size": "1B"}}}]
    (folder / "tiny.toml").write_text(tomli_w.dumps(tiny))
    case(["run", folder / "tiny.toml", "--json", "--max-memory", "100MiB"], "1-byte flows at load 0.9 on 1 Gb/s",
         expect="memory limit of 105 MB", max_rss=100 * 2**20)
    return cases

def _file(scratch: Path, name: str, text: str) -> Path:
    path = scratch / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _write(scratch: Path, body: str) -> Path:
    path = scratch / f"plan{len(list(scratch.glob('plan*.toml')))}.toml"
    path.write_text(body)
    return path

