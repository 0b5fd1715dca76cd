#!/usr/bin/env python3
"""Hostile inputs against cclab, classified: how does every front door fail?

    .venv/bin/python bench/hostile/hostile.py                 # every input, table of outcomes
    .venv/bin/python bench/hostile/hostile.py --show misleading --limit 40
    .venv/bin/python bench/hostile/hostile.py --json out.json  # one record per input

Inputs (well over 1 000):
* every leaf of three normalised base scenarios (a dumbbell with three protocols, the
  graph chain with UDP cross traffic, and a graph with every queue discipline — CoDel,
  FQ-CoDel, PIE, step marking — and every modern algorithm — CUBIC, BBR, Vegas, DCTCP —
  each with all its parameters) set to each value of a hostile palette (NaN, ±inf,
  negatives, zero, huge and tiny numbers, integers past 2^63 and 2^64, wrong types,
  absurd durations and rates, bare numbers and text without units, sizes, dates, bytes,
  empty and unknown names), plus unknown keys and deleted keys, through
  ``cclab.run(dict)``;
* the cases reported in issue 13 (limits, hangs, aborts, memory) and issue 31 (cycles,
  depth, what is not a scenario, bad overrides and memory limits), through ``cclab.run``;
* command lines (odd files: a FIFO, a directory, a deep TOML, a binary file, a table
  header 1 000 deep, a 40 000-part dotted key, a byte-order mark, old Mac line endings, a
  NUL in a name; bad ``--set``; closed standard input; outputs into unwritable places)
  through ``python -m cclab``;
* sweep plans with hostile axes, zips and names through ``cclab sweep``;
* issue 41's cases (round 3): output folders that are not cclab's (their files must
  survive: a changed file is ``wrong``), ``--out .`` and long names, flow-size CDF files
  (FIFOs, devices, huge values and lines, bad rows), damaged and foreign results stores
  through ``report``, ``export``, ``reproduce --from-store`` and ``sweep``, traced links
  that do not exist, Python controllers that exit or are interrupted while made, and
  short flows piling up under ``--max-memory`` (a peak above the limit is ``wrong``);
* the fields of issues 37-40 (a fourth base scenario): DualPI2, TCP Prague, BBRv3 and the
  ten algorithms of ns-3.44's catalogue with every parameter, a linux-profile group paced,
  a link delivering by a Mahimahi trace with a release lag.

Outcomes: ``clean`` (a one-line error naming the field, in cclab's words), ``ran``
(finished; for scenario runs packet conservation is checked, a violation is ``wrong``),
``misleading`` (an error that does not name the field, or leaks serde/Rust words, or
spans several lines), ``traceback`` (any other Python exception, or a traceback on
stderr), ``panic`` (a Rust panic reaching Python), ``abort`` (the process died), ``hang``
(no answer within the time limit).
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

# (run as a script: its folder is on the path)
from api_inputs import scenario_inputs
from cli_inputs import cli_inputs, round3_cli_inputs

TIMEOUT_S = 20.0
# Words that belong to serde, Rust or Python, not to a scenario's author.
LEAKS = re.compile(r"expected (f64|u8|u16|u32|u64|i64|usize|unit|value|a sequence|a string|a map|struct|enum|variant)"
                   r"|untagged|Bdp\(|Packets\(|invalid type|invalid value|serde|Some\(|None\b|RecursionError|"
                   r"Traceback|panicked|Exception|\bstr\b|\bint\b|\bfloat\b|NonZero")


# ----------------------------------------------------------------------- scenario worker
def worker_main(cases_file: str, first: int, last: int, results_file: str) -> None:
    """Run cases[first:last], appending a "started" line before each and its outcome after."""
    import pickle

    import cclab

    cases = pickle.loads(Path(cases_file).read_bytes())
    with open(results_file, "a", buffering=1) as out:
        for index in range(first, last):
            out.write(json.dumps([index, "started", ""]) + "\n")
            out.write(json.dumps([index, *_run_one(cclab, cases[index])]) + "\n")


def _run_one(cclab, case) -> tuple[str, str]:
    try:
        result = cclab.run(case["scenario"], **case.get("kwargs", {}))
    except cclab.ScenarioError as error:
        if case.get("user_code"):
            return _judge_user_code_error(str(error))
        if case.get("api"):
            return _judge_api_error(str(error), case["field"])
        return _judge_error(str(error), case["field"])
    except BaseException as error:  # noqa: BLE001 - classifying everything is the point
        kind = "panic" if type(error).__name__ == "PanicException" else "traceback"
        return kind, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    c = result.raw["conservation"]
    if c["data_sent"] != c["data_received"] + c["data_dropped"] + c["data_in_flight"]:
        return "wrong", f"conservation: {c}"
    if case.get("check_early_flows"):
        early = result.flows[result.flows["group"] == "early"]
        if (early["data_packets_sent"] == 0).any():
            return "wrong", "early flows sent nothing"
    if case.get("warning") and not result.raw.get("warnings"):
        return "ran", "no warning"
    return "ran", ""


FIELD_PREFIX = re.compile(r'^(--set |axes\.|set\.)?[\w".\[\]-]+: ')


def _judge_error(message: str, field: str) -> tuple[str, str]:
    """Clean: one line, cclab's words, and it starts by naming a field (the one that was
    changed, or one the change made wrong, such as a flow naming a node that is gone)."""
    if "\n" in message.strip() or LEAKS.search(message) or not FIELD_PREFIX.match(message):
        return "misleading", message
    return "clean", message


def _judge_user_code_error(message: str) -> tuple[str, str]:
    """An error in (or about) the user's own Python congestion control: one short line
    naming the field or the user's file; the user's exception words are theirs to read."""
    if "\n" in message.strip() or len(message) > 600 or "Traceback" in message or "panicked" in message:
        return "misleading", message[:300]
    # named by field, by the user's file and line, or (a hook returned a value out of range)
    # by the class, method and flow it came from: "... (in MyCC.on_ack, flow 0)"
    if not (FIELD_PREFIX.match(message) or re.match(r"^(flow \d+: )?[^:]+\.py:\d+: ", message)
            or re.search(r" \(in \w+\.\w+, flow \d+\)$", message)):
        return "misleading", message[:300]
    return "clean", message


def _judge_api_error(message: str, field: str) -> tuple[str, str]:
    """An error of the Python API: one short line starting with what the user gave, in
    the API's words (no CLI flag, no Python exception words)."""
    if ("\n" in message or len(message) > 600 or "--set" in message or "--max-memory" in message
            or LEAKS.search(message.replace("None is not one", "")) or not message.startswith(field)):
        return "misleading", message[:300]
    return "clean", message


def run_scenarios(inputs: list[dict], workers: int = 2) -> list[tuple[str, str]]:
    """The inputs split among worker processes; a worker that goes silent for TIMEOUT_S
    is killed (the case it was on is a hang), one that dies is an abort; either way a
    new worker takes over after that case."""
    import pickle
    import time

    outcomes: list = [None] * len(inputs)
    with tempfile.TemporaryDirectory(prefix="cclab-hostile-") as scratch:
        cases_file = Path(scratch) / "cases.pickle"
        cases_file.write_bytes(pickle.dumps(inputs))
        share = math.ceil(len(inputs) / workers)
        slices = [(k * share, min(len(inputs), (k + 1) * share)) for k in range(workers)]
        running = {}

        def launch(k: int, first: int, last: int) -> None:
            results = Path(scratch) / f"results{k}-{first}.jsonl"
            command = [sys.executable, __file__, "--worker", str(cases_file), str(first), str(last), str(results)]
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            running[k] = {"process": process, "results": results, "read": 0, "current": None, "last": last,
                          "heard": time.monotonic()}

        for k, (first, last) in enumerate(slices):
            if first < last:
                launch(k, first, last)
        while running:
            time.sleep(0.2)
            for k, worker in list(running.items()):
                lines = worker["results"].read_text().splitlines() if worker["results"].exists() else []
                for line in lines[worker["read"]:]:
                    index, status, detail = json.loads(line)
                    worker["heard"] = time.monotonic()
                    if status == "started":
                        worker["current"] = index
                    else:
                        outcomes[index] = (status, detail)
                        worker["current"] = None
                worker["read"] = len(lines)
                process, current = worker["process"], worker["current"]
                finished = process.poll() is not None
                limit = inputs[current].get("timeout", TIMEOUT_S) if current is not None else TIMEOUT_S
                silent = time.monotonic() - worker["heard"] > limit
                if not finished and not silent:
                    continue
                if not finished:
                    process.kill()
                    process.wait()
                del running[k]
                if current is not None:
                    outcomes[current] = ("hang", f"no answer in {limit:g} s") if silent and not finished \
                        else ("abort", f"worker exited with {process.returncode}")
                    if current + 1 < worker["last"]:
                        launch(k, current + 1, worker["last"])
    return [o or ("abort", "never ran") for o in outcomes]



def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}



# Runs the command given as its arguments (its output to /dev/null, its errors shared) and
# prints that child's peak resident memory in KiB; exits with the child's status.
PEAK_LAUNCHER = ("import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL); "
                 "_, status, usage = os.wait4(p.pid, 0); print(usage.ru_maxrss); "
                 "sys.exit(os.waitstatus_to_exitcode(status))")


def run_cli(case: dict) -> tuple[str, str]:
    command = [sys.executable, "-m", "cclab", *case["args"]]
    if case.get("max_rss"):
        # The peak is read by a small launcher: a child forked from this worker would
        # start from the worker's own peak (Linux keeps a process's peak across exec).
        command = [sys.executable, "-c", PEAK_LAUNCHER, *command]
    stdin = subprocess.DEVNULL if "stdin" not in case else subprocess.PIPE
    if case.get("close_stdin"):
        command = ["sh", "-c", 'exec "$0" "$@" <&-', *command]
    kept = {path: (_tree(path) if path.is_dir() else path.read_bytes())
            for path in (case.get("keep"), case.get("unchanged")) if path is not None}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdin=stdin, stdout=out, stderr=errors,
                                   cwd=case.get("cwd", tempfile.gettempdir()))
        if case.get("stdin") is not None:
            process.stdin.write(case["stdin"])
            process.stdin.close()
        deadline = time.monotonic() + TIMEOUT_S * 3
        while True:  # os.wait4: this child's own peak memory
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                process.wait()
                return "hang", f"no answer in {TIMEOUT_S * 3:g} s"
            time.sleep(0.02)
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        completed = subprocess.CompletedProcess(command, process.returncode, b"", errors.read())
        out.seek(0)
        peak_kib = int(out.read().strip() or 0) if case.get("max_rss") else usage.ru_maxrss
    for path, before in kept.items():
        if (_tree(path) if path.is_dir() else path.read_bytes()) != before:
            return "wrong", f"{path.name} was changed"
    if case.get("max_rss") and peak_kib * 1024 > case["max_rss"]:
        return "wrong", f"peak memory {peak_kib / 1024:.0f} MiB above the limit"
    err = completed.stderr.decode("utf-8", "backslashreplace").strip()
    if case.get("succeeds") and completed.returncode != 0:
        return "wrong", f"exit {completed.returncode}: {err[-200:]}"
    if case.get("expect") and completed.returncode != 0 and case["expect"] not in err:
        return "misleading", err[-300:]
    if completed.returncode < 0 or completed.returncode in (134, 137, 139):
        return "abort", f"exit {completed.returncode}: {err.splitlines()[-1:] if err else ''}"
    if "Traceback" in err or "PanicException" in err:
        kind = "panic" if ("PanicException" in err or "panicked" in err) else "traceback"
        return kind, err.splitlines()[-1]
    if completed.returncode == 0:
        return "ran", ""
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("warning: ")]
    if len(lines) != 1 or LEAKS.search(err):
        return "misleading", " | ".join(lines)[:300]
    return "clean", lines[0]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        worker_main(argv[1], int(argv[2]), int(argv[3]), argv[4])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="append", default=[], help="print the inputs with this outcome")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--json", type=Path, help="write every input's outcome here")
    parser.add_argument("--only", choices=["scenario", "cli"], help="one kind of input only")
    parser.add_argument("--every", type=int, default=1, help="run every k-th scenario input only (a quick sample; the newest fields' inputs all run)")
    args = parser.parse_args(argv)
    records = []
    if args.only in (None, "scenario"):
        inputs = [case for k, case in enumerate(scenario_inputs()) if k % args.every == 0 or case.get("new")]
        for case, (outcome, detail) in zip(inputs, run_scenarios(inputs)):
            records.append({"kind": "scenario", "field": case["field"], "value": case["value"], "outcome": outcome,
                            "detail": detail, "short_flows": case.get("short_flows", False)})
    if args.only in (None, "cli"):
        with tempfile.TemporaryDirectory(prefix="cclab-hostile-") as scratch:
            for case in cli_inputs(Path(scratch)) + round3_cli_inputs(Path(scratch)):
                outcome, detail = run_cli(case)
                records.append({"kind": "cli", "field": case["field"], "value": case["value"], "outcome": outcome,
                                "detail": detail})
            for path in Path(scratch).rglob("*"):
                if not path.is_symlink():  # (chmod follows a link: /dev/zero would lose its rights)
                    path.chmod(0o700)
    counts = collections.Counter(record["outcome"] for record in records)
    print(f"{len(records)} inputs")
    for outcome in ("clean", "ran", "misleading", "wrong", "traceback", "panic", "abort", "hang"):
        print(f"  {outcome:11} {counts.get(outcome, 0)}")
    short = collections.Counter(record["outcome"] for record in records if record.get("short_flows"))
    if short:
        print("  of them over short flows and delays (issue 28): "
              + ", ".join(f"{outcome} {count}" for outcome, count in sorted(short.items())))
    for show in args.show:
        print(f"\n--- {show}")
        for record in [r for r in records if r["outcome"] == show][: args.limit]:
            print(textwrap.shorten(f"{record['field']} = {record['value']}: {record['detail']}", 220))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
