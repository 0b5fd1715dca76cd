#!/usr/bin/env python3
"""Record the Linux kernel reference set over Mahimahi, run by run, into bench/linux/reference.json.

    python3 bench/linux/record.py [--runs 3] [--groups main,udp,trace] [--only REGEX]
        [--output bench/linux/reference.json] [--dry-run] [--idle-cores 1.5] [--idle-wait 60]
    python3 bench/linux/record.py --summary        # a Markdown table of what is recorded

As root, on a machine set up as bench/linux/README.md says; standard library only. The runs go
one at a time (each is real time: 30 s for a main case). Each finished run is appended to the
output file at once (written to a temporary file and renamed), and a run already in the file is
skipped, so the command can be stopped and started again and carries on where it stopped.
A run that fails is noted under "failures" and tried once more; it is not counted as done.

The set, in the order it is recorded (pass k = every case's k-th run, so that every case has
one run before any has two; a run still missing comes before any case's next one):

  for k in 1..runs:
    main:  rates 12, 48, 96 Mb/s (constant, harness.py's traces) x one-way delay D = 10, 20 ms
           x buffers 0.5, 1, 2, 5, 10 BDP (BDP = rate x 2D / 12000 bits, rounded, at least 2
           packets; the same buffer on the ACK path) x flows reno, cubic, bbr, bbr+cubic,
           cubic+reno (both starting at 0); 30 s; 150 cases
    udp:   one iperf3 UDP flow at 1.5x the rate of 12 and 48 Mb/s links, D = 20, 1 BDP, 10 s
    trace: cubic alone and bbr alone over traces/markov-seed{1,2,3}.trace (make_trace.py),
           D = 20, buffer 1 BDP at the trace's mean rate, 60 s (the trace's length)

and, not in the default groups, cellular: three recorded cellular traces (traces/cellular/), the
first 30 s of each, CUBIC and BBR alone in 1 and 5 BDP at the trace's mean rate and BBR + CUBIC
in 2 BDP, 15 cases (--groups cellular --output bench/linux/cellular.json); mss: a default-MSS flow beside an iperf3 -M 536 one, 4 cases
(MSS below; --groups mss --output bench/linux/mss.json); holdout: 12 cases off that grid
(HOLDOUT below), recorded with
--groups holdout --output bench/linux/holdout.json to check the comparison outside the set it
was tuned on; coexist: 8 cases of flows sharing a link (COEXIST below; --groups coexist
--output bench/linux/coexist.json), recorded after every setting was fixed.

Before each run the machine's CPU is sampled for a second; while other work is using more than
--idle-cores cores it waits (up to --idle-wait seconds, then runs anyway). Each run records its
start load average and the CPU used by itself and by everything else during it. A run during
which other work used more than --max-others cores is "loaded": Mahimahi's timing tail is then
tens of times heavier (bench/linux/diag/FINDINGS.md), so it is a different experiment. It is
kept under "loaded_runs" (never compared by default) and the run is done again. If /dev/urandom
or /dev/zero has lost its standard mode 666 (iperf3 run as mmuser needs /dev/urandom), it is
restored, with a line in the output.
The file's layout is described in README.md ("reference.json").
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import harness  # noqa: E402

RATES = [12, 48, 96]
DELAYS = [10, 20]
BUFFERS_BDP = [0.5, 1, 2, 5, 10]
MIXES = {"reno": ["reno"], "cubic": ["cubic"], "bbr": ["bbr"], "bbr+cubic": ["bbr", "cubic"],
         "cubic+reno": ["cubic", "reno"]}
MAIN_DURATION = 30.0
UDP_RATES = [12, 48]
UDP_DELAY = 20
UDP_FACTOR = 1.5
UDP_DURATION = 10.0
TRACE_SEEDS = [1, 2, 3]
TRACE_DELAY = 20
TRACE_CCS = ["cubic", "bbr"]
TRACE_DURATION = 60.0
SCHEMA = "cclab-linux-reference/1"


def bdp_packets(rate_mbps: float, delay_ms: float) -> float:
    return rate_mbps * 1e6 * (2 * delay_ms / 1000) / (1500 * 8)


def buffer_packets(rate_mbps: float, delay_ms: float, multiple: float) -> int:
    return max(2, int(round(multiple * bdp_packets(rate_mbps, delay_ms))))


def fmt(x: float) -> str:
    return f"{x:g}"


def tcp_case(group: str, rate: float, delay: float, multiple: float, flows: list[tuple]) -> tuple[str, dict]:
    """(name, case) of TCP flows ``flows`` ((cc, start s[, mss]), ...) over a constant rate, D
    and a buffer of ``multiple`` BDP, for MAIN_DURATION; a late flow's start and a flow's own
    MSS (iperf3 -M) are in its name."""
    def one(cc: str, start: float, mss: int | None = None) -> dict:
        return {"cc": cc, "start_s": float(start), **({"mss": mss} if mss else {})}

    described = [one(*flow) for flow in flows]
    mix = "+".join(f["cc"] + (f"@{fmt(f['start_s'])}" if f["start_s"] else "") + (f"-m{f['mss']}" if "mss" in f else "")
                   for f in described)
    return (f"tcp_r{rate}_d{delay}_b{fmt(multiple)}bdp_{mix}",
            {"group": group, "link": {"rate_mbps": rate}, "delay_ms": delay,
             "bdp_pkts": round(bdp_packets(rate, delay), 3), "buffer_bdp": multiple,
             "buffer_pkts": buffer_packets(rate, delay, multiple), "duration_s": MAIN_DURATION,
             "flows": described})


def main_cases() -> dict[str, dict]:
    return dict(tcp_case("main", rate, delay, multiple, [(cc, 0.0) for cc in ccs])
                for rate in RATES for delay in DELAYS for multiple in BUFFERS_BDP for ccs in MIXES.values())


def udp_cases() -> dict[str, dict]:
    cases = {}
    for rate in UDP_RATES:
        name = f"udp_r{rate}_d{UDP_DELAY}_b1bdp_x{fmt(UDP_FACTOR)}"
        cases[name] = {"group": "udp", "link": {"rate_mbps": rate}, "delay_ms": UDP_DELAY,
                       "bdp_pkts": round(bdp_packets(rate, UDP_DELAY), 3), "buffer_bdp": 1,
                       "buffer_pkts": buffer_packets(rate, UDP_DELAY, 1), "duration_s": UDP_DURATION,
                       "udp_rate_mbps": rate * UDP_FACTOR}
    return cases


def trace_case(group: str, stem: str, path: Path, multiple: float, ccs: list[str], duration: float) -> tuple[str, dict]:
    """(name, case) of the flows ``ccs`` (all from 0) over the trace file ``path`` both ways,
    D = TRACE_DELAY, a buffer of ``multiple`` BDP at the trace's mean rate, for ``duration``."""
    mean = harness.trace_rate_mbps(path)
    digest = hashlib.sha1(path.read_bytes()).hexdigest()[:12]
    return (f"{stem}_d{TRACE_DELAY}_b{fmt(multiple)}bdp_{'+'.join(ccs)}",
            {"group": group,
             "link": {"trace": str(path.relative_to(REPO)), "trace_sha1": digest, "trace_mean_mbps": round(mean, 4)},
             "delay_ms": TRACE_DELAY, "bdp_pkts": round(bdp_packets(mean, TRACE_DELAY), 3),
             "buffer_bdp": multiple, "buffer_pkts": buffer_packets(mean, TRACE_DELAY, multiple),
             "duration_s": duration, "flows": [{"cc": cc, "start_s": 0.0} for cc in ccs]})


def trace_cases() -> dict[str, dict]:
    cases = {}
    for seed in TRACE_SEEDS:
        path = HERE / "traces" / f"markov-seed{seed}.trace"
        if not path.exists():
            raise SystemExit(f"{path} is missing: python3 bench/linux/make_trace.py --seed {seed}")
        cases.update(trace_case("trace", f"trace_markov{seed}", path, 1, [cc], TRACE_DURATION) for cc in TRACE_CCS)
    return cases


# Recorded cellular traces (traces/cellular/, from Mahimahi's source), recorded into their own
# file (cellular.json) after the comparison's settings were fixed: the first 30 s of each,
# each algorithm alone in 1 and 5 BDP at the trace's mean rate, BBR beside CUBIC in 2 BDP.
CELLULAR_TRACES = {"verizon-lte": "Verizon-LTE-short.down", "tmobile-lte": "TMobile-LTE-short.down",
                   "att-lte": "ATT-LTE-driving-2016.down"}
CELLULAR_FLOWS = [(1, ["cubic"]), (1, ["bbr"]), (5, ["cubic"]), (5, ["bbr"]), (2, ["bbr", "cubic"])]


def cellular_cases() -> dict[str, dict]:
    return dict(trace_case("cellular", f"cell_{stem}", HERE / "traces" / "cellular" / file, multiple, ccs, MAIN_DURATION)
                for stem, file in CELLULAR_TRACES.items() for multiple, ccs in CELLULAR_FLOWS)


# Cases outside the reference set's grid, recorded into their own file (holdout.json) after
# the comparison's settings were fixed on reference.json: other rates (24, 36 Mb/s), delays
# (5, 15, 40 ms), buffers (3 BDP), three flows and a flow starting late. Each is
# (rate, D, buffer multiple, [(cc, start s), ...]).
HOLDOUT = [(24, 15, 1, [("reno", 0)]), (24, 15, 1, [("cubic", 0)]), (24, 15, 1, [("bbr", 0)]),
           (24, 15, 3, [("cubic", 0)]), (24, 15, 3, [("bbr", 0)]),
           (48, 40, 1, [("cubic", 0)]), (48, 40, 1, [("bbr", 0)]), (48, 40, 1, [("bbr", 0), ("cubic", 0)]),
           (36, 5, 2, [("bbr", 0)]), (36, 5, 2, [("cubic", 0), ("reno", 0)]),
           (48, 20, 2, [("cubic", 0), ("cubic", 0), ("bbr", 0)]),
           (48, 20, 1, [("bbr", 0), ("cubic", 10)])]


def holdout_cases() -> dict[str, dict]:
    return dict(tcp_case("holdout", rate, delay, multiple, flows) for rate, delay, multiple, flows in HOLDOUT)


# Flows of two segment sizes (the second's iperf3 -M 536: 524 bytes of payload beside the
# timestamps, against 1448), recorded into mss.json: cclab's per-group packet_size against
# the kernel. (rate, D, buffer multiple, flows) as HOLDOUT's.
MSS = [(48, 20, 1, [("cubic", 0), ("cubic", 0, 536)]), (48, 20, 1, [("reno", 0), ("reno", 0, 536)]),
       (12, 20, 2, [("cubic", 0), ("cubic", 0, 536)]), (48, 20, 1, [("bbr", 0), ("bbr", 0, 536)])]


def mss_cases() -> dict[str, dict]:
    return dict(tcp_case("mss", rate, delay, multiple, flows) for rate, delay, multiple, flows in MSS)


# Flows that share a link as today's studies set them, recorded into coexist.json after the
# comparison's settings were fixed (2026-11-27) and judged without changing any: two BBR
# flows, BBR beside Reno, four CUBIC flows, three Reno, and flows joining late (CUBIC after
# CUBIC, BBR after BBR), at rates and delays the reference set does not hold. (rate, D,
# buffer multiple, flows) as HOLDOUT's.
COEXIST = [(48, 20, 2, [("bbr", 0), ("bbr", 0)]), (48, 20, 1, [("bbr", 0), ("reno", 0)]),
           (96, 10, 1, [("cubic", 0), ("cubic", 0), ("cubic", 0), ("cubic", 0)]),
           (48, 10, 1, [("reno", 0), ("reno", 0), ("reno", 0)]),
           (24, 30, 2, [("cubic", 0), ("cubic", 5)]), (60, 25, 1, [("bbr", 0), ("bbr", 8)]),
           (12, 40, 1, [("cubic", 0), ("reno", 0)]), (24, 30, 0.5, [("reno", 0)])]


def coexist_cases() -> dict[str, dict]:
    return dict(tcp_case("coexist", rate, delay, multiple, flows) for rate, delay, multiple, flows in COEXIST)


GROUPS = {"main": main_cases, "udp": udp_cases, "trace": trace_cases, "holdout": holdout_cases, "mss": mss_cases,
          "cellular": cellular_cases, "coexist": coexist_cases}


def plan(groups: list[str], runs: int, only: str | None) -> tuple[dict[str, dict], list[tuple[str, int]]]:
    cases: dict[str, dict] = {}
    by_group = {g: GROUPS[g]() for g in groups}
    for g in groups:
        cases.update(by_group[g])
    pattern = re.compile(only) if only else None
    order = [(name, k) for k in range(1, runs + 1) for g in groups for name in by_group[g]
             if pattern is None or pattern.search(name)]
    return cases, order


# ----------------------------------------------------------------------------- the file

def load(path: Path) -> dict:
    if path.exists():
        data = json.loads(path.read_text())
        if data.get("schema") != SCHEMA:
            raise SystemExit(f"{path}: schema {data.get('schema')!r}, expected {SCHEMA!r}")
        return data
    return {"schema": SCHEMA, "about": __doc__.split("\n\n")[0], "cases": {}, "environments": {}, "runs": [],
            "loaded_runs": [], "failures": []}


def set_loaded_apart(data: dict, max_others: float) -> int:
    """Move the runs during which other work used more than max_others cores from "runs" to
    "loaded_runs"; how many moved."""
    loaded = [r for r in data["runs"] if is_loaded(r, max_others)]
    if loaded:
        data["runs"] = [r for r in data["runs"] if not is_loaded(r, max_others)]
        data.setdefault("loaded_runs", []).extend(loaded)
    return len(loaded)


def is_loaded(run: dict, max_others: float) -> bool:
    return run.get("cpu_cores_busy", {}).get("others", 0.0) > max_others


def dump(data: dict, path: Path) -> None:
    """One line per case, environment, run and failure: compact, and each new run is a one-line diff."""
    def block(items, open_, close, keyed):
        if not items:
            return open_ + close
        lines = [(json.dumps(k) + ": " if keyed else "") + json.dumps(v, separators=(",", ":"), sort_keys=keyed)
                 for k, v in (items.items() if keyed else ((None, v) for v in items))]
        return open_ + "\n  " + ",\n  ".join(lines) + "\n " + close

    parts = [f' "schema": {json.dumps(data["schema"])}', f' "about": {json.dumps(data["about"])}',
             ' "cases": ' + block(data["cases"], "{", "}", True),
             ' "environments": ' + block(data["environments"], "{", "}", True),
             ' "runs": ' + block(data["runs"], "[", "]", False),
             ' "loaded_runs": ' + block(data.get("loaded_runs", []), "[", "]", False),
             ' "failures": ' + block(data["failures"], "[", "]", False)]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("{\n" + ",\n".join(parts) + "\n}\n")
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- CPU

def others_busy(sample_s: float = 1.0) -> float:
    """Cores busy in the last sample_s seconds (this process sleeps meanwhile)."""
    b0, _, t0 = harness.cpu_jiffies()
    time.sleep(sample_s)
    b1, _, t1 = harness.cpu_jiffies()
    return (b1 - b0) / max(t1 - t0, 1) * (os.cpu_count() or 1)


def wait_idle(limit_cores: float, max_wait_s: float) -> tuple[float, float]:
    """(cores busy just before the run, seconds waited)."""
    start = time.time()
    busy = others_busy()
    while busy > limit_cores and time.time() - start < max_wait_s:
        time.sleep(4)
        busy = others_busy()
    return round(busy, 3), round(time.time() - start, 1)


# ----------------------------------------------------------------------------- main

def restore_devices() -> list[str]:
    """Give /dev/urandom and /dev/zero back their standard mode 666 if something took it away
    (bench/hostile/hostile.py's clean-up chmods 700 through symlinks to them); returns what it did."""
    done = []
    for device in ("/dev/urandom", "/dev/zero"):
        mode = os.stat(device).st_mode & 0o777
        if mode != 0o666:
            os.chmod(device, 0o666)
            done.append(f"{device} {mode:o} -> 666")
    return done


def summary_line(case: str, k: int, rec: dict) -> str:
    flows = " ".join(f"{f.get('cc') or 'udp'} {f.get('goodput_mbps')} Mb/s rtx {f.get('retransmits')}"
                     for f in rec.get("flows", []))
    window = rec.get("uplink", {}).get("window", {})
    qd = (window.get("queue_delay_ms") or {}).get("mean")
    return (f"{case} run {k}: {flows}; queue {qd} ms, drops {window.get('dropped_packets')}; "
            f"load {rec.get('load_avg_start', [None])[0]}, others {rec.get('cpu_cores_busy', {}).get('others')}")


def summary_table(data: dict) -> str:
    """Per case: runs, each flow's goodput and retransmissions, the uplink's mean and p95 queueing
    delay and drops over the window, and the largest 'others' CPU seen (mean, with min-max)."""
    by_case: dict[str, list[dict]] = {}
    for run in data["runs"]:
        by_case.setdefault(run["case"], []).append(run)

    def stat(values: list) -> str:
        values = [v for v in values if v is not None]
        if not values:
            return "-"
        mean = sum(values) / len(values)
        integers = all(isinstance(v, int) for v in values)
        text = f"{mean:.0f}" if integers or abs(mean) >= 1000 else f"{mean:.2f}"
        return text if len(values) == 1 or min(values) == max(values) else f"{text} ({min(values):.4g}–{max(values):.4g})"

    rows = ["| case | runs | goodput Mb/s per flow | retransmits per flow | mean queueing delay ms | p95 ms | drops | others' CPU (max) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in data["cases"]:
        runs = by_case.get(name, [])
        if not runs:
            continue
        flows = len(runs[0]["flows"])
        goodput = " / ".join(stat([r["flows"][i].get("goodput_mbps") for r in runs]) for i in range(flows))
        rtx = " / ".join(stat([r["flows"][i].get("retransmits") for r in runs]) for i in range(flows))
        window = [r["uplink"]["window"] for r in runs]
        rows.append(f"| {name} | {len(runs)} | {goodput} | {rtx} | {stat([w['queue_delay_ms']['mean'] for w in window])} "
                    f"| {stat([w['queue_delay_ms']['p95'] for w in window])} | {stat([w['dropped_packets'] for w in window])} "
                    f"| {max(r['cpu_cores_busy']['others'] for r in runs):.2f} |")
    return "\n".join(rows)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="runs per case (default 3)")
    p.add_argument("--groups", default="main,udp,trace", help="comma-separated: main, udp, trace, holdout, mss, cellular, coexist")
    p.add_argument("--only", help="record only the cases whose name matches this regular expression")
    p.add_argument("--output", type=Path, default=HERE / "reference.json")
    p.add_argument("--dry-run", action="store_true", help="list the runs still to do, and stop")
    p.add_argument("--idle-poll", action="store_true",
                   help="the CPUs idle by polling during each run, never halting (harness.py --idle-poll); "
                        "record into a file of its own (--output)")
    p.add_argument("--summary", action="store_true",
                   help="print a Markdown table of the recorded runs (means and min-max per case), and stop")
    p.add_argument("--idle-cores", type=float, default=0.25,
                   help="wait while more than this many cores are busy before a run (default 0.25)")
    p.add_argument("--idle-wait", type=float, default=3600.0, help="wait at most this long, s (default 3600)")
    p.add_argument("--max-others", type=float, default=0.25,
                   help="a run during which other work used more cores than this is loaded: kept apart "
                        "and done again (default 0.25)")
    args = p.parse_args()
    groups = [g for g in args.groups.split(",") if g]
    for g in groups:
        if g not in GROUPS:
            p.error(f"unknown group {g!r}")
    cases, order = plan(groups, args.runs, args.only)
    data = load(args.output)
    moved = set_loaded_apart(data, args.max_others)
    if moved and not (args.summary or args.dry_run):
        dump(data, args.output)
    if moved:
        print(f"{moved} recorded runs were loaded (other work over {args.max_others:g} cores): kept under "
              f"loaded_runs, to be done again", flush=True)
    if args.summary:
        print(summary_table(data))
        return 0
    done = {(r["case"], r["run"]) for r in data["runs"]}
    todo = [(c, k) for c, k in order if (c, k) not in done]
    # A case's next run goes before any case's run beyond it: a case whose first run was set
    # apart as loaded gets its replacement before the cases that have one get a second.
    recorded: dict[str, int] = {}
    for c, _ in done:
        recorded[c] = recorded.get(c, 0) + 1
    rank: dict[tuple[str, int], int] = {}
    for c, k in todo:
        rank[(c, k)] = recorded.get(c, 0)
        recorded[c] = recorded.get(c, 0) + 1
    todo.sort(key=lambda item: rank[item])
    print(f"{len(order)} runs planned, {len(order) - len(todo)} already recorded, {len(todo)} to do "
          f"(about {sum(cases[c]['duration_s'] + 5 for c, _ in todo) / 3600:.1f} h)", flush=True)
    if args.dry_run:
        for c, k in todo:
            print(f"  {c} run {k}")
        return 0
    if os.geteuid() != 0:
        raise SystemExit("run as root")
    for name, k in todo:
        case = cases[name]
        attempt = 0
        while attempt < 2:
            for what in restore_devices():
                print(f"restored {what}", flush=True)
            busy_before, waited = wait_idle(args.idle_cores, args.idle_wait)
            harness_case = {key: case[key] for key in ("link", "delay_ms", "buffer_pkts", "duration_s", "flows",
                                                       "udp_rate_mbps") if key in case}
            if "trace" in harness_case["link"]:
                harness_case["link"] = {"trace": str(REPO / case["link"]["trace"])}
            try:
                rec = harness.run_case(harness_case, idle_poll=args.idle_poll)
                error = None if rec.get("ok") else "run not ok: " + json.dumps(
                    {k2: rec.get(k2) for k2 in ("shell_error", "flows")})[:1500]
            except Exception:  # noqa: BLE001 - note any failure and go on
                rec, error = None, traceback.format_exc()[-1500:]
            if error is None:
                env = rec.pop("environment")
                env_id = harness.environment_id(env)
                data["environments"].setdefault(env_id, env)
                data["cases"][name] = case
                rec.pop("ok", None)
                run = {"case": name, "run": k, "env": env_id, "cpu_cores_busy_before": busy_before,
                       "idle_wait_s": waited, **rec}
                if is_loaded(run, args.max_others):
                    data.setdefault("loaded_runs", []).append(run)
                    dump(data, args.output)
                    print(summary_line(name, k, rec) + " - loaded: kept apart, done again", flush=True)
                    continue
                data["runs"].append(run)
                dump(data, args.output)
                print(summary_line(name, k, rec), flush=True)
                break
            attempt += 1
            data["failures"].append({"case": name, "run": k, "attempt": attempt,
                                     "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                     "error": error})
            dump(data, args.output)
            print(f"{name} run {k} attempt {attempt} FAILED: {error.strip().splitlines()[-1]}", flush=True)
            time.sleep(5)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
