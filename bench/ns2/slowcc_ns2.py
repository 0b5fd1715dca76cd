#!/usr/bin/env python3
"""ns-2.35 beside cclab on the slowly-responsive congestion control f(k) experiment.

Bansal, Balakrishnan, Floyd, Shenker, SIGCOMM 2001, Fig. 13: 10 identical flows share
a 10 Mb/s RED bottleneck (50 ms base RTT); at t = 500 s half of them stop, and f(k) is
the bottleneck utilisation over the next k RTTs (k = 20, 200).  The ns-2 scenario is
bench/ns2/slowcc.tcl (see its header for the keys and the measurement); cclab runs the
reproduction's own scenario (:func:`cclab.papers.slowcc.scenarios.time_of_plenty`) with
the bottleneck's RED in the same mode.

    .venv/bin/python bench/ns2/slowcc_ns2.py    # 6 controls x 2 RED modes x seeds 1..5
                                                # -> slowcc_reference.json + a Markdown table
                                                # (and Figs. 14-15's claim points, byte mode)
    .venv/bin/python bench/ns2/slowcc_ns2.py --table   # the table again, from the JSON
    .venv/bin/python bench/ns2/slowcc_ns2.py --seeds 20 --out /tmp/slowcc20.json   # more seeds

RED modes: "bytes" is ns-2.35's default (bytes_ / queue_in_bytes_ true, mean_pktsize_
500: the queue limit is 125 x 500 B) and cclab's ``mode = "bytes"``, which the
reproduction uses; "packets" is both in packet mode (ns-2 ``red_bytes=0``).

Seeds: cclab seed k runs ns-2 with ``seed = cclab.ns2.translate.ns2_seed(k)`` (splitmix64
mixed), as the generic translator does: ns-2's ``seed N`` with N = 1 ... 5 gives nearly
the same early draws.  (Before, slowcc.tcl got the raw seeds 1 ... 5, and its start-time
RNG had the default RNG's very stream; now it takes the next substream.)

Needs /usr/bin/ns (Debian package ns2, ns-2.35) and cclab (the repository's .venv).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join("bench", "ns2", "slowcc.tcl")
OUT = os.path.join(HERE, "slowcc_reference.json")
SEEDS = (1, 2, 3, 4, 5)
WORKERS = 2  # the machine's two cores
STOP_S = 500.0
TOLERANCE_F20 = 0.05  # cclab within this of ns-2 on the 5-seed mean f(20)

# (label, slowcc.tcl keys): the Fig. 13 controls as the reproduction has them —
# TCP = TCP(1/2) (α 1, β ½), TFRC(b) without history discounting (the paper), TFRC(8)
# with it (ns-2's default) beside.
CONFIGS = [
    ("TCP", {"cc": "tcp"}),
    ("TCP(1/8)", {"cc": "tcp_b", "b": 8}),
    ("TCP(1/256)", {"cc": "tcp_b", "b": 256}),
    ("TFRC(8)", {"cc": "tfrc", "intervals": 8, "discount": 0}),
    ("TFRC(8), discounting", {"cc": "tfrc", "intervals": 8, "discount": 1}),
    ("TFRC(256)", {"cc": "tfrc", "intervals": 256, "discount": 0}),
]
MODES = {"bytes": 1, "packets": 0}  # RED mode -> slowcc.tcl red_bytes
FIG14_PERIODS = (0.05, 0.2)  # Figs. 14–15's claims: 50-ms and 200-ms on/off periods


def ns2_seed(seed: int) -> int:
    from cclab.ns2.translate import ns2_seed as mix

    return mix(seed)


def command(cc, seed, **keys):
    args = [f"cc={cc}", f"seed={ns2_seed(seed)}"] + [f"{k}={v}" for k, v in keys.items()]
    return ["ns", SCRIPT] + args


def run_fig13(cc: str, seed: int, **keys) -> dict:
    """Run one ns-2.35 f(k) simulation for cclab seed ``seed`` (ns-2 gets
    ``ns2_seed(seed)``) and return its JSON result plus wall_s.

    cc is tcp, tcp_b (TCP(1/b), key b), tfrc (keys intervals, discount) or sqrt;
    other keys (duration, stop_at, flows, buffer, red_bytes, tfrc_headers, ...) are
    passed to slowcc.tcl as key=value.
    """
    cmd = command(cc, seed, **keys)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    if len(lines) != 1:
        raise RuntimeError(f"expected one line of JSON from {' '.join(cmd)}:\n{out.stdout}")
    res = json.loads(lines[0])
    res["wall_s"] = round(wall, 3)
    res["command"] = " ".join(cmd)
    return res


def cclab_scenario(cc: str, seed: int, **keys) -> dict:
    """The reproduction's Fig. 13 scenario for slowcc.tcl's ``cc`` and keys, its
    bottleneck RED in slowcc.tcl's mode (``red_bytes``, default 1: byte mode, mean
    packet size 500)."""
    from cclab.papers.slowcc import scenarios

    stop = float(keys.get("stop_at", STOP_S))
    if cc == "tcp":
        kind, b = "tcp", 2
    elif cc == "tcp_b":
        kind, b = "tcp", float(keys.get("b", 8))
    elif cc == "tfrc":
        kind, b = ("tfrc-discount" if int(keys.get("discount", 1)) else "tfrc"), int(keys.get("intervals", 8))
    elif cc == "sqrt":
        kind, b = "tcp", 2  # then SQRT(1/2) with slowcc.tcl's increase 1
    else:
        raise ValueError(f"cc {cc!r}: expected tcp, tcp_b, sqrt or tfrc")
    scenario = scenarios.time_of_plenty(kind, b, stop, seed)
    if cc == "sqrt":
        for group in scenario["flows"]:
            group["cc"] = "sqrt"
    scenario["duration"] = f"{float(keys.get('duration', stop + 10)):g}s"
    bottleneck = scenario["topology"]["bottleneck"]
    bottleneck["buffer"] = int(keys.get("buffer", 125))
    byte_mode = bool(int(keys.get("red_bytes", 1)))
    bottleneck["queue"] = ({"kind": "red", "mode": "bytes", "mean_packet_size": "500B"} if byte_mode
                           else {"kind": "red", "mode": "packets"})
    return scenario


def run_cclab(cc: str, seed: int, **keys) -> dict:
    """cclab's f(20), f(200), bottleneck drops and marks on :func:`cclab_scenario`."""
    import cclab
    from cclab.analysis.slowcc import f_k

    t0 = time.perf_counter()
    result = cclab.run(cclab_scenario(cc, seed, **keys))
    stop = float(keys.get("stop_at", STOP_S))
    return {"f20": f_k(result, stop, 20, 0.05), "f200": f_k(result, stop, 200, 0.05),
            "util_before_stop": f_k(result, stop - 100, 2000, 0.05),
            "bottleneck_drops": result.system["bottleneck_drops"],
            "bottleneck_marks": result.system["bottleneck_ecn_marks"],
            "wall_s": round(time.perf_counter() - t0, 3)}


def fig14_point(label: str, kind: str, b: float, period_s: float, seed: int) -> dict:
    """One Figs. 14–15 point (the reproduction's scenario: ten flows against 10 Mb/s on/off
    CBR on 15 Mb/s byte-mode RED) in cclab and in ns-2.35 through the generic translator
    (cclab.ns2.run: the same flows, started when cclab starts them), measured as the
    reproduction measures it."""
    import cclab
    from cclab.ns2 import run as ns2
    from cclab.papers.slowcc import scenarios
    from cclab.papers.slowcc.figures import Point, measure_wave
    from cclab.scenario import validate

    scenario = validate(scenarios.square_wave(kind, b, period_s, 10, seed))
    point = Point("14", {"control": label, "period_s": period_s, "seed": seed}, scenario)
    row = {"figure": "14", "control": label, "period_s": period_s, "seed": seed}
    for simulator, run in (("cclab", cclab.run), ("ns2", ns2.run)):
        measured = measure_wave(run(scenario), point)["runs"].iloc[0]
        row[simulator] = {"utilization": float(measured["utilization"]), "drop_rate": float(measured["drop_rate"])}
    return row


def fig14_table(rows: list[dict]) -> str:
    lines = ["| on/off period | control | throughput ÷ available ns-2 / cclab | drop rate ns-2 / cclab |",
             "| --- | --- | --- | --- |"]
    for period in sorted({r["period_s"] for r in rows}):
        for label in dict.fromkeys(r["control"] for r in rows):
            rs = [r for r in rows if r["period_s"] == period and r["control"] == label]
            mean = {sim: {m: statistics.fmean(r[sim][m] for r in rs) for m in ("utilization", "drop_rate")}
                    for sim in ("ns2", "cclab")}
            lines.append(f"| {period * 1000:g} ms | {label} | {mean['ns2']['utilization']:.3f} / "
                         f"{mean['cclab']['utilization']:.3f} | {mean['ns2']['drop_rate']:.4f} / "
                         f"{mean['cclab']['drop_rate']:.4f} |")
    return "\n".join(lines)


def mean_sd(xs):
    xs = list(xs)
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def summarise(rows: list[dict]) -> dict:
    """Per mode and control: 5-seed mean ± sd of f(20), f(200), drops and marks in each
    simulator, and whether cclab's f(20) is within TOLERANCE_F20 of ns-2's."""
    summary: dict = {}
    for mode in MODES:
        for label, _ in CONFIGS:
            rs = [r for r in rows if r["mode"] == mode and r["config"] == label]
            if not rs:
                continue
            entry = {"seeds": len(rs)}
            for simulator, get in (("ns2", lambda r: r["ns2"]), ("cclab", lambda r: r["cclab"])):
                entry[simulator] = {f"{metric}_{stat}": value
                                    for metric in ("f20", "f200", "util_before_stop", "bottleneck_drops",
                                                   "bottleneck_marks")
                                    for stat, value in zip(("mean", "sd"), mean_sd(get(r)[metric] for r in rs))}
                entry[simulator]["wall_s_mean"] = statistics.fmean(get(r)["wall_s"] for r in rs)
            entry["f20_difference"] = entry["cclab"]["f20_mean"] - entry["ns2"]["f20_mean"]
            entry["f20_within_tolerance"] = abs(entry["f20_difference"]) <= TOLERANCE_F20
            summary.setdefault(mode, {})[label] = entry
    return summary


def markdown_table(summary: dict) -> str:
    """ns-2 vs cclab, byte mode then packet mode: means over seeds (± sd for f(20));
    ✗ marks an f(20) difference beyond TOLERANCE_F20."""
    lines = ["| RED mode | control | f(20) ns-2 | f(20) cclab | Δ | f(200) ns-2 / cclab | utilisation 400–500 s ns-2 / cclab "
             "| bottleneck drops ns-2 / cclab | marks |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for mode in MODES:
        for label, entry in summary.get(mode, {}).items():
            n, c = entry["ns2"], entry["cclab"]
            flag = "" if entry["f20_within_tolerance"] else " ✗"
            lines.append(f"| {mode} | {label} | {n['f20_mean']:.3f} ± {n['f20_sd']:.3f} | {c['f20_mean']:.3f} ± "
                         f"{c['f20_sd']:.3f} | {entry['f20_difference']:+.3f}{flag} | {n['f200_mean']:.3f} / "
                         f"{c['f200_mean']:.3f} | {n['util_before_stop_mean']:.4f} / {c['util_before_stop_mean']:.4f} | "
                         f"{n['bottleneck_drops_mean']:.0f} / {c['bottleneck_drops_mean']:.0f} | "
                         f"{n['bottleneck_marks_mean']:.0f} / {c['bottleneck_marks_mean']:.0f} |")
    return "\n".join(lines)


def option(argv, name, default):
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv):
    out = option(argv, "--out", OUT)
    if "--table" in argv:
        with open(out) as f:
            reference = json.load(f)
        print(markdown_table(reference["summary"]))
        if "fig14_rows" in reference:
            print()
            print(fig14_table(reference["fig14_rows"]))
        return 0
    seeds = tuple(range(1, int(option(argv, "--seeds", len(SEEDS))) + 1))
    jobs = [(mode, label, keys, seed) for mode in MODES for label, keys in CONFIGS for seed in seeds]

    def ns2(job):
        mode, _, keys, seed = job
        keys = {k: v for k, v in keys.items() if k != "cc"}
        return run_fig13(job[2]["cc"], seed, red_bytes=MODES[mode], **keys)

    with ThreadPoolExecutor(max_workers=WORKERS) as ex:
        ns2_results = list(ex.map(ns2, jobs))
    rows = []
    for (mode, label, keys, seed), ns2_result in zip(jobs, ns2_results):
        cclab_keys = {k: v for k, v in keys.items() if k != "cc"}
        rows.append({"mode": mode, "config": label, "seed": seed, "ns2_seed": ns2_seed(seed), "ns2": ns2_result,
                     "cclab": run_cclab(keys["cc"], seed, red_bytes=MODES[mode], **cclab_keys)})
    summary = summarise(rows)
    table = markdown_table(summary)
    # Figs. 14–15 at the periods of their claims 1–2, byte-mode RED as the reproduction.
    from cclab.papers.slowcc.figures import WAVE_CONTROLS

    wave_jobs = [(label, kind, b, period, seed) for period in FIG14_PERIODS for label, kind, b in WAVE_CONTROLS
                 for seed in seeds]
    with ThreadPoolExecutor(max_workers=WORKERS) as ex:
        wave_rows = list(ex.map(lambda job: fig14_point(*job), wave_jobs))
    wave_table = fig14_table(wave_rows)
    from cclab.core import version

    ref = {
        "simulator": "ns-2.35 (/usr/bin/ns, Debian ns2 2.35+dfsg)",
        "cclab": version(),
        "script": SCRIPT,
        "command": " ".join([".venv/bin/python bench/ns2/slowcc_ns2.py", *argv]),
        "seeds": list(seeds),
        "experiment": "Bansal et al. SIGCOMM 2001 Fig. 13, f(k) after half the flows stop",
        "notes": [
            "10 flows, bottleneck 10 Mb/s 15 ms Queue/RED limit_ 125, ns-2.35 RED defaults (gentle, automatic "
            "thresholds and q_weight); mode 'bytes': bytes_/queue_in_bytes_ true, mean_pktsize_ 500 (ns-2.35's "
            "default; the limit is 62500 B) and cclab mode = \"bytes\", mean_packet_size 500; mode 'packets': both in "
            "packet mode. Access links 100 Mb/s 5 ms DropTail 1000; base RTT 50 ms.",
            "Data packets 1000 B on the wire (TCP and TFRC useHeaders_ false), ACKs 40 B. Starts uniform in [0, 5) s "
            "(each simulator its own draws); flows 5..9 stop at 500 s.",
            "cclab runs cclab.papers.slowcc.scenarios.time_of_plenty (TCP = TCP(1/2)) with the mode set; ns-2 gets "
            "seed ns2_seed(k) (cclab.ns2.translate, splitmix64) for cclab seed k.",
            "util_before_stop: the bottleneck's utilisation over [400, 500) s. "
            "f(k) = bottleneck departed bytes in [500, 500 + 0.05 k] s * 8 / (10 Mb/s * 0.05 k s). Drops and marks: "
            "the bottleneck's over the whole run (no ECN: both simulators mark nothing).",
            f"f20_within_tolerance: |cclab - ns-2| <= {TOLERANCE_F20} on the mean f(20) over seeds.",
            "fig14_rows: Figs. 14-15's points at 50-ms and 200-ms on/off periods (the reproduction's scenarios, "
            "byte-mode RED), ns-2 through cclab.ns2.run (the generic translator), measured as the reproduction does.",
        ],
        "summary": summary,
        "table": table,
        "rows": rows,
        "fig14_table": wave_table,
        "fig14_rows": wave_rows,
    }
    with open(out, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(table)
    print()
    print(wave_table)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
