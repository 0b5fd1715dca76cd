"""``cclab bench``: the standard benchmark, optionally side by side with ns-2.

The scenario (experiments/standard-benchmark.toml: 100 Reno flows, 100 Mb/s links,
5/25/5 ms, one-BDP buffer, 100 s) runs in a fresh ``python -m cclab._bench_worker``
process, and ns-2 (``ns bench/ns2/dumbbell.tcl flows=N duration=D seed=S``) in another;
each one's wall time and peak RSS are measured on that process alone (``os.wait4``).

The worker (``cclab._bench_worker``) imports nothing but the native core.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import cclab
from cclab.core import rate_bps, topology_json
from cclab.errors import BenchError
from cclab.scenario import ScenarioError, load_scenario, scenario_json, validate

REPO_ROOT = Path(cclab.__file__).resolve().parents[2]
DEFAULT_SCENARIO = REPO_ROOT / "experiments" / "standard-benchmark.toml"
DEFAULT_NS2_SCRIPT = REPO_ROOT / "bench" / "ns2" / "dumbbell.tcl"
TINY_SCENARIO = REPO_ROOT / "experiments" / "tiny.toml"

# The command line's start-up targets: the tiny scenario end to end at most this much
# above a bare interpreter and under this peak memory; the standard benchmark through
# `cclab run --json` at most this many times the bench worker's wall time.
STARTUP_OVERHEAD_S = 0.15
STARTUP_PEAK_MB = 60
STARTUP_RATIO = 1.15


@dataclass
class Measured:
    """A finished child process and what it cost."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    peak_rss_bytes: int

    def last_error_line(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else f"exit code {self.returncode}"


# Runs COMMAND from a fresh, small Python process and records its wall time and rusage.
# On Linux a child's ru_maxrss starts at its parent's RSS at fork time (exec keeps the
# old high-water mark), so forking the measured program from this (possibly large)
# process would report our memory, not its own; the launcher's ~10 MB is the floor.
_LAUNCHER = """
import json, os, sys, time
report, command = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(command[0], command)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as out:
    json.dump({"wall_s": time.perf_counter() - started, "exit": os.waitstatus_to_exitcode(status),
               "maxrss": usage.ru_maxrss}, out)
"""


def measure(command: list[str], stdin: Optional[str] = None, cwd: Optional[Path] = None) -> Measured:
    """Run ``command`` to completion and measure its own wall time and peak RSS."""
    with tempfile.TemporaryDirectory(prefix="cclab-measure-") as scratch:
        report = Path(scratch) / "rusage.json"
        process = subprocess.run([sys.executable, "-S", "-c", _LAUNCHER, str(report), *command],
                                 input=stdin, capture_output=True, text=True, cwd=cwd)
        if not report.exists():
            raise BenchError(f"could not measure {command[0]}: {process.stderr.strip() or 'launcher failed'}")
        usage = json.loads(report.read_text())
    # ru_maxrss is in KiB on Linux, in bytes on macOS.
    peak_rss = usage["maxrss"] if sys.platform == "darwin" else usage["maxrss"] * 1024
    return Measured(usage["exit"], process.stdout, process.stderr, usage["wall_s"], peak_rss)


def bench(duration: float = 100, flows: int = 100, seed: int = 1, ns2: bool = True,
          scenario_path: Optional[Path] = None, ns2_script: Optional[Path] = None, repeats: int = 1) -> dict[str, Any]:
    """Run the benchmark (and ns-2 when asked, available and given a script) ``repeats``
    times, cclab and ns-2 in alternation so that a drift of the machine's speed hits both;
    return the report that ``cclab bench --json`` prints: medians (wall times, events/s,
    memory) and the median of the per-pair speed ratios, with every run listed."""
    if repeats < 1:
        raise ScenarioError(f"--repeats {repeats}: must be at least 1")
    scenario_path = Path(scenario_path or DEFAULT_SCENARIO)
    scenario = load_scenario(scenario_path, {"duration": f"{duration:g}s", "flows.0.count": flows, "seed": seed})
    validate(scenario)
    script = Path(ns2_script) if ns2_script else DEFAULT_NS2_SCRIPT
    if ns2 and ns2_script and not script.is_file():
        raise ScenarioError(f"--ns2-script {script}: no such file")
    ns2_skipped = None
    if not ns2:
        ns2_skipped = "--no-ns2"
    elif shutil.which("ns") is None or not script.is_file():
        ns2_skipped = "ns not on PATH" if shutil.which("ns") is None else f"{script} not found"
    runs: list[dict[str, Any]] = []
    ns2_runs: list[dict[str, Any]] = []
    for _ in range(repeats):
        runs.append(_run_worker(scenario))
        if ns2_skipped is None:
            ns2_runs.append(_run_ns2(script, flows, duration, seed))
    first = runs[0]
    cclab_report = {
        "wall_time_s": median([run["wall_time_s"] for run in runs]),
        "simulation_time_s": median([run["simulation_time_s"] for run in runs]),
        "events": first["events"],
        "events_per_s": median([run["events_per_s"] for run in runs]),
        "data_packets_per_s": median([run["data_packets_per_s"] for run in runs]),
        "peak_rss_mb": median([run["peak_rss_mb"] for run in runs]),
        "system_goodput_mbps": first["system_goodput_mbps"],
        "jain_index": first["jain_index"],
        "runs": runs,
    }
    report: dict[str, Any] = {
        "scenario": str(scenario_path), "flows": flows, "duration_s": first["duration_s"], "seed": seed,
        "repeats": repeats, "cclab": cclab_report, "ns2": None, "ns2_skipped": ns2_skipped, "comparison": None,
    }
    if ns2_skipped is not None:
        return report
    report["ns2"] = {"wall_time_s": median([run["wall_time_s"] for run in ns2_runs]),
                     "peak_rss_mb": median([run["peak_rss_mb"] for run in ns2_runs]),
                     "system_goodput_mbps": ns2_runs[0]["system_goodput_mbps"],
                     "jain_index": ns2_runs[0]["jain_index"], "runs": ns2_runs}
    ratios = [theirs["wall_time_s"] / ours["wall_time_s"] for ours, theirs in zip(runs, ns2_runs)]
    report["comparison"] = {
        "speed_ratio": median(ratios),
        "speed_ratios": ratios,
        "goodput_rel_diff": _relative_difference(cclab_report, report["ns2"], "system_goodput_mbps"),
        "jain_rel_diff": _relative_difference(cclab_report, report["ns2"], "jain_index"),
    }
    return report


def _run_worker(scenario: dict) -> dict[str, Any]:
    """One run of ``scenario`` in a fresh bench worker: its process's wall time and peak
    memory, its simulation's time, and what the engine counted."""
    worker = measure([sys.executable, "-m", "cclab._bench_worker"], stdin=scenario_json(scenario))
    if worker.returncode != 0:
        raise BenchError(f"cclab worker failed: {worker.last_error_line()}")
    raw = json.loads(worker.stdout)
    simulated = raw["wall_time_s"]
    return {
        "wall_time_s": worker.wall_s,
        "simulation_time_s": simulated,
        "duration_s": raw["duration_s"],
        "events": raw["events"],
        "data_packets": raw["data_packets_sent"],
        "events_per_s": raw["events"] / simulated,
        "data_packets_per_s": raw["data_packets_sent"] / simulated,
        "ns_per_data_packet": simulated * 1e9 / max(raw["data_packets_sent"], 1),
        "peak_rss_mb": worker.peak_rss_bytes / 2**20,
        "system_goodput_mbps": raw["system"]["goodput_mbps"],
        "jain_index": raw["system"]["jain_index"],
    }


# The scale ladder (`cclab bench --scale`): flows and every link's rate per rung, on the
# standard scenario's dumbbell (5/25/5 ms, one-BDP buffer, flows staggered over 1 s).
LADDER = ((100, "100Mbps"), (1000, "1Gbps"), (10000, "10Gbps"))
# ns-2 runs beside the rungs with at most this many flows (its cost grows with the flows:
# 1000 flows at 1 Gb/s for 10 s take it about a minute).
NS2_LADDER_MAX_FLOWS = 1000


def parse_rungs(text: Optional[str]) -> list[tuple[int, str]]:
    """``"100:100Mbps,1000:1Gbps"`` → [(100, "100Mbps"), (1000, "1Gbps")]; None: the ladder."""
    if text is None:
        return list(LADDER)
    rungs = []
    for part in text.split(","):
        flows, sep, rate = part.strip().partition(":")
        try:
            count = int(flows)
        except ValueError:
            count = 0
        if not sep or count < 1 or not rate.strip():
            raise ScenarioError(f"--rungs {text!r}: each rung is FLOWS:RATE, e.g. 1000:1Gbps")
        rungs.append((count, rate.strip()))
    return rungs


def scale(duration: float = 10, rungs: Optional[list[tuple[int, str]]] = None, seed: int = 1, ns2: bool = True,
          ns2_max_flows: int = NS2_LADDER_MAX_FLOWS, scenario_path: Optional[Path] = None,
          ns2_script: Optional[Path] = None, repeats: int = 1) -> dict[str, Any]:
    """The scale ladder: each rung (flows, rate of every link) run for ``duration`` s in a
    fresh worker process ``repeats`` times (medians of wall time, simulation time, events/s,
    data packets/s, ns per data packet, peak RSS; the fastest and slowest simulation
    beside them) and, up to ``ns2_max_flows`` flows, once in ns-2 beside it."""
    if repeats < 1:
        raise ScenarioError(f"--repeats {repeats}: must be at least 1")
    scenario_path = Path(scenario_path or DEFAULT_SCENARIO)
    script = Path(ns2_script) if ns2_script else DEFAULT_NS2_SCRIPT
    have_ns2 = ns2 and shutil.which("ns") is not None and script.is_file()
    report: dict[str, Any] = {"scenario": str(scenario_path), "duration_s": duration, "seed": seed, "repeats": repeats,
                              "rungs": [],
                              "ns2_skipped": None if have_ns2 else ("--no-ns2" if not ns2 else "ns not on PATH")}
    for flows, rate in rungs or LADDER:
        overrides = {"duration": f"{duration:g}s", "flows.0.count": flows, "seed": seed,
                     **{f"topology.{link}.rate": rate for link in ("bottleneck", "source_access", "sink_access")}}
        scenario = load_scenario(scenario_path, overrides)
        normalized = validate(scenario)
        try:
            runs = [_run_worker(scenario) for _ in range(repeats)]
        except BenchError as error:
            raise BenchError(f"{error} (at {flows} flows, {rate})") from None
        ours = {key: median([run[key] for run in runs]) for key in
                ("wall_time_s", "simulation_time_s", "events_per_s", "data_packets_per_s", "ns_per_data_packet",
                 "peak_rss_mb")}
        ours.update(events=runs[0]["events"], data_packets=runs[0]["data_packets"],
                    system_goodput_mbps=runs[0]["system_goodput_mbps"],
                    simulation_time_range_s=[min(r["simulation_time_s"] for r in runs),
                                             max(r["simulation_time_s"] for r in runs)])
        rung = {"flows": flows, "rate": rate, "cclab": ours, "ns2": None}
        if have_ns2 and flows <= ns2_max_flows:
            buffer = _resolved_bottleneck_buffer(normalized)
            rung["ns2"] = _run_ns2(script, flows, duration, seed, bottleneck_rate=f"{rate_bps(rate)}",
                                   access_rate=f"{rate_bps(rate)}", buffer=buffer)
            rung["speed_ratio"] = rung["ns2"]["wall_time_s"] / ours["wall_time_s"]
        report["rungs"].append(rung)
    first = report["rungs"][0]["cclab"]["ns_per_data_packet"]
    for rung in report["rungs"]:
        rung["cclab"]["cost_vs_first_rung"] = rung["cclab"]["ns_per_data_packet"] / first
    return report


def _resolved_bottleneck_buffer(scenario: dict) -> int:
    topology = json.loads(topology_json(json.dumps(scenario)))
    return next(link["buffer_packets"] for link in topology["links"] if link["name"] == topology["bottleneck"])


def print_scale(report: dict[str, Any]) -> None:
    """The ladder as a rich table, one row per rung."""
    from rich.console import Console
    from rich.table import Table

    repeats = report.get("repeats", 1)
    medians = f", medians of {repeats} runs" if repeats > 1 else ""
    table = Table(title=f"cclab bench --scale: {report['duration_s']:g} s simulated per rung, seed {report['seed']}{medians}")
    # wall: the worker process; sim: its simulation alone; ns/pkt: simulation time per data
    # packet, and that as a multiple of the first rung's
    columns = ("flows", "rate", "wall s", "sim s", "Mev/s", "Mpkt/s", "ns/pkt", "×1st", "MiB", "ns-2 s", "ns-2 MiB",
               "speed-up")
    for column in columns:
        table.add_column(column, justify="left" if column == "rate" else "right")
    for rung in report["rungs"]:
        ours, theirs = rung["cclab"], rung["ns2"]
        table.add_row(f"{rung['flows']:,}", rung["rate"], f"{ours['wall_time_s']:.2f}", f"{ours['simulation_time_s']:.2f}",
                      f"{ours['events_per_s'] / 1e6:.2f}", f"{ours['data_packets_per_s'] / 1e6:.2f}",
                      f"{ours['ns_per_data_packet']:.0f}", f"{ours['cost_vs_first_rung']:.2f}",
                      f"{ours['peak_rss_mb']:.0f}", f"{theirs['wall_time_s']:.2f}" if theirs else "–",
                      f"{theirs['peak_rss_mb']:.0f}" if theirs else "–",
                      f"{rung['speed_ratio']:.1f}×" if theirs else "–")
    console = Console()
    console.print(table)
    console.print("wall: the cclab worker process; sim: its simulation; ns/pkt: simulation time per data packet "
                  "(×1st: relative to the first rung); MiB: peak memory; speed-up: ns-2's wall time ÷ cclab's.")
    if report["ns2_skipped"]:
        console.print(f"ns-2 skipped: {report['ns2_skipped']}")


def startup(repeats: int = 7) -> dict[str, Any]:
    """Time the command line's start-up: ``python -c pass``, ``cclab run tiny.toml
    --json``, and the standard benchmark through ``cclab run --json`` beside the bench
    worker (in alternation, so drift hits both); medians over ``repeats``."""
    if repeats < 1:
        raise ScenarioError(f"--repeats {repeats}: must be at least 1")
    cclab_command = _cclab_command()
    standard_json = scenario_json(load_scenario(DEFAULT_SCENARIO))
    samples: dict[str, list[Measured]] = {"bare": [], "tiny": [], "run": [], "worker": []}
    for _ in range(repeats + 1):  # the first round warms the page cache and is dropped
        round_ = {
            "bare": measure([sys.executable, "-c", "pass"]),
            "tiny": measure([*cclab_command, "run", str(TINY_SCENARIO), "--json"]),
            "run": measure([*cclab_command, "run", str(DEFAULT_SCENARIO), "--json"]),
            "worker": measure([sys.executable, "-m", "cclab._bench_worker"], stdin=standard_json),
        }
        for name, run in round_.items():
            if run.returncode != 0:
                raise BenchError(f"{name} failed: {run.last_error_line()}")
            samples[name].append(run)
    for runs in samples.values():
        del runs[0]

    def wall(name: str) -> float:
        return median([run.wall_s for run in samples[name]])

    tiny_overhead = median([tiny.wall_s - bare.wall_s for tiny, bare in zip(samples["tiny"], samples["bare"])])
    tiny_peak = median([run.peak_rss_bytes / 2**20 for run in samples["tiny"]])
    ratio = median([run.wall_s / worker.wall_s for run, worker in zip(samples["run"], samples["worker"])])
    return {
        "repeats": repeats, "command": " ".join(cclab_command),
        "bare_python_s": wall("bare"), "tiny_run_s": wall("tiny"), "tiny_overhead_s": tiny_overhead,
        "tiny_peak_mb": tiny_peak, "standard_run_s": wall("run"), "standard_worker_s": wall("worker"),
        "standard_ratio": ratio,
        "targets": {"tiny_overhead_s": STARTUP_OVERHEAD_S, "tiny_peak_mb": STARTUP_PEAK_MB,
                    "standard_ratio": STARTUP_RATIO},
        "met": {"tiny_overhead_s": tiny_overhead < STARTUP_OVERHEAD_S, "tiny_peak_mb": tiny_peak < STARTUP_PEAK_MB,
                "standard_ratio": ratio <= STARTUP_RATIO},
    }


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _cclab_command() -> list[str]:
    """The ``cclab`` script installed beside this interpreter (what users type), else
    ``python -m cclab``."""
    script = Path(sys.executable).with_name("cclab")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cclab"]


def print_startup(report: dict[str, Any]) -> None:
    """The start-up report as a rich table, each target marked met or missed."""
    from rich.console import Console
    from rich.table import Table

    met, targets = report["met"], report["targets"]

    def verdict(key: str) -> str:
        return "met" if met[key] else "MISSED"

    table = Table(title=f"cclab start-up: medians of {report['repeats']} runs ({report['command']})")
    for column, justify in (("measure", "left"), ("value", "right"), ("target", "right"), ("", "left")):
        table.add_column(column, justify=justify)
    table.add_row("python -c pass", f"{report['bare_python_s'] * 1e3:.0f} ms", "", "")
    table.add_row("cclab run tiny.toml --json", f"{report['tiny_run_s'] * 1e3:.0f} ms", "", "")
    table.add_row("  above bare python", f"{report['tiny_overhead_s'] * 1e3:.0f} ms",
                  f"< {targets['tiny_overhead_s'] * 1e3:.0f} ms", verdict("tiny_overhead_s"))
    table.add_row("  peak memory", f"{report['tiny_peak_mb']:.1f} MiB", f"< {targets['tiny_peak_mb']} MiB",
                  verdict("tiny_peak_mb"))
    table.add_row("standard benchmark: bench worker", f"{report['standard_worker_s']:.3f} s", "", "")
    table.add_row("standard benchmark: cclab run --json", f"{report['standard_run_s']:.3f} s", "", "")
    table.add_row("  cclab run / worker", f"{report['standard_ratio']:.3f}×", f"≤ {targets['standard_ratio']:.2f}×",
                  verdict("standard_ratio"))
    Console().print(table)


def _run_ns2(script: Path, flows: int, duration: float, seed: int, **keys: Any) -> dict[str, Any]:
    """``script`` (bench/ns2/dumbbell.tcl's keys) run and measured; ``keys`` are more
    key=value arguments (bottleneck_rate, access_rate, buffer)."""
    arguments = [f"flows={flows}", f"duration={duration:g}", f"seed={seed}", *(f"{k}={v}" for k, v in keys.items())]
    with tempfile.TemporaryDirectory(prefix="cclab-ns2-") as scratch:  # ns-2 may drop trace files in its cwd
        run = measure(["ns", str(script.resolve()), *arguments], cwd=Path(scratch))
    if run.returncode != 0:
        raise BenchError(f"ns-2 failed: {run.last_error_line()}")
    summary = _last_json_line(run.stdout)
    if summary is None:
        raise BenchError(f"ns-2 printed no JSON summary line (script {script})")
    return {
        "wall_time_s": run.wall_s,
        "peak_rss_mb": run.peak_rss_bytes / 2**20,
        "system_goodput_mbps": summary["system_goodput_mbps"],
        "jain_index": summary["jain_index"],
    }


def _last_json_line(text: str) -> Optional[dict]:
    for line in reversed(text.splitlines()):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _relative_difference(ours: dict, reference: dict, key: str) -> Optional[float]:
    return (ours[key] - reference[key]) / reference[key] if reference[key] else None


def print_report(report: dict[str, Any]) -> None:
    """The report as a rich table on stdout."""
    from rich.console import Console
    from rich.table import Table

    cclab_run, ns2_run, comparison = report["cclab"], report["ns2"], report["comparison"]
    repeats = report.get("repeats", 1)
    paired = f", medians of {repeats} paired runs" if repeats > 1 else ""
    table = Table(title=f"cclab bench: {report['flows']} flows, {report['duration_s']:g} s, seed {report['seed']}{paired}")
    table.add_column("metric")
    table.add_column("cclab", justify="right")
    if ns2_run:
        table.add_column("ns-2", justify="right")
        table.add_column("cclab vs ns-2", justify="right")

    def row(label: str, ours: str, theirs: str = "", versus: str = "") -> None:
        table.add_row(label, ours, *((theirs, versus) if ns2_run else ()))

    ratio = f"{comparison['speed_ratio']:.1f}× faster" if comparison else ""
    if comparison and len(comparison["speed_ratios"]) > 1:
        ratio += f" ({min(comparison['speed_ratios']):.1f}–{max(comparison['speed_ratios']):.1f})"
    row("wall time (process)", f"{cclab_run['wall_time_s']:.2f} s",
        f"{ns2_run['wall_time_s']:.2f} s" if ns2_run else "", ratio)
    row("wall time (simulation)", f"{cclab_run['simulation_time_s']:.2f} s")
    row("events", f"{cclab_run['events']:,}")
    row("events/s", f"{cclab_run['events_per_s']:,.0f}")
    row("data packets/s", f"{cclab_run['data_packets_per_s']:,.0f}")
    row("peak memory", f"{cclab_run['peak_rss_mb']:.0f} MiB", f"{ns2_run['peak_rss_mb']:.0f} MiB" if ns2_run else "")
    for label, key, diff in (("system goodput", "system_goodput_mbps", "goodput_rel_diff"),
                             ("Jain index", "jain_index", "jain_rel_diff")):
        unit = " Mb/s" if key == "system_goodput_mbps" else ""
        row(label, f"{cclab_run[key]:.4f}{unit}", f"{ns2_run[key]:.4f}{unit}" if ns2_run else "",
            f"{comparison[diff]:+.2%}" if comparison and comparison[diff] is not None else "")
    console = Console()
    console.print(table)
    if report["ns2_skipped"]:
        console.print(f"ns-2 comparison skipped: {report['ns2_skipped']}")
