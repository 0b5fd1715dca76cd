#!/usr/bin/env python3
"""ns-2.35 reference for the slowly-responsive congestion control f(k) experiment.

Bansal, Balakrishnan, Floyd, Shenker, SIGCOMM 2001, Fig. 13: 10 identical flows share
a 10 Mb/s RED bottleneck (50 ms base RTT); at t = 500 s half of them stop, and f(k) is
the bottleneck utilisation over the next k RTTs (k = 20, 200).  The scenario itself is
bench/ns2/slowcc.tcl (see its header for the keys and the measurement).

    python3 bench/ns2/slowcc_ns2.py          # 4 configs x seeds 1..5 -> slowcc_reference.json

Needs /usr/bin/ns (Debian package ns2, ns-2.35).  Run from anywhere.  With cclab
installed (the repository's .venv), each row also gets cclab's f(20)/f(200) on the same
scenario (:func:`run_cclab`; TFRC with ``profile = "ns2"``).  RED runs in packet mode
in both (``red_bytes=0``): cclab's RED counts packets, ns-2.35's default counts bytes.
"""
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
WORKERS = 2

# (label, cc, extra keys)
CONFIGS = [
    ("TCP", "tcp", {"red_bytes": 0}),
    ("TCP(1/8)", "tcp_b", {"b": 8, "red_bytes": 0}),
    ("TFRC(8) discount=0", "tfrc", {"intervals": 8, "discount": 0, "red_bytes": 0}),
    ("TFRC(8) discount=1", "tfrc", {"intervals": 8, "discount": 1, "red_bytes": 0}),
]


def command(cc, seed, **keys):
    args = [f"cc={cc}", f"seed={seed}"] + [f"{k}={v}" for k, v in keys.items()]
    return ["ns", SCRIPT] + args


def run_fig13(cc: str, seed: int, **keys) -> dict:
    """Run one ns-2.35 f(k) simulation and return its JSON result plus wall_s.

    cc is tcp, tcp_b (TCP(1/b), key b), tfrc (keys intervals, discount) or sqrt;
    other keys (duration, stop_at, flows, buffer, bottleneck_rate, bottleneck_delay,
    access_delay, red_bytes, tfrc_headers, ...) are passed to slowcc.tcl as key=value.
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
    """The same scenario for cclab (bench/ns2/slowcc.tcl's defaults)."""
    if cc == "tcp":
        flow = {"cc": "reno"}
    elif cc == "tcp_b":
        flow = {"cc": {"algorithm": "tcp(1/b)", "b": keys.get("b", 8)}}
    elif cc == "sqrt":
        flow = {"cc": "sqrt"}
    elif cc == "tfrc":
        flow = {"transport": "tfrc", "tfrc": {"profile": "ns2", "intervals": int(keys.get("intervals", 8)),
                                                "discounting": bool(int(keys.get("discount", 1)))}}
    else:
        raise ValueError(f"cc {cc!r}: expected tcp, tcp_b, sqrt or tfrc")
    stop = float(keys.get("stop_at", 500))
    flows = int(keys.get("flows", 10))
    group = {**flow, "count": flows // 2, "start": {"random": "5s"}}
    return {
        "name": f"slowcc-{cc}", "seed": seed, "duration": f"{keys.get('duration', 510)}s",
        "packet_size": 1000, "header_size": 0, "bin_width": "50ms",
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": "10Mbps", "delay": "15ms", "queue": "red", "buffer": int(keys.get("buffer", 125))},
                     "source_access": {"rate": "100Mbps", "delay": "5ms", "buffer": 1000},
                     "sink_access": {"rate": "100Mbps", "delay": "5ms", "buffer": 1000}},
        "flows": [{**group, "group": "stay"}, {**group, "group": "leave", "count": flows - flows // 2, "stop": f"{stop}s"}],
    }


def run_cclab(cc: str, seed: int, **keys) -> dict:
    """cclab's f(20) and f(200) on :func:`cclab_scenario`."""
    import cclab
    from cclab.analysis.slowcc import f_k

    t0 = time.perf_counter()
    result = cclab.run(cclab_scenario(cc, seed, **keys))
    stop = float(keys.get("stop_at", 500))
    return {"f20": f_k(result, stop, 20, 0.05), "f200": f_k(result, stop, 200, 0.05),
            "bottleneck_drops": result.system["bottleneck_drops"], "wall_s": round(time.perf_counter() - t0, 3)}


def mean_sd(xs):
    m = statistics.mean(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return m, sd


def main(argv):
    jobs = [(label, cc, keys, seed) for label, cc, keys in CONFIGS for seed in SEEDS]
    with ThreadPoolExecutor(max_workers=WORKERS) as ex:
        results = list(ex.map(lambda j: run_fig13(j[1], j[3], **j[2]), jobs))

    rows = []
    for (label, cc, keys, seed), res in zip(jobs, results):
        row = {"config": label}
        row.update(res)
        try:
            row["cclab"] = run_cclab(cc, seed, **keys)
        except ImportError:
            pass
        rows.append(row)

    summary = {}
    print(f"{'config':<20} {'f(20)':>16} {'f(200)':>16} {'util 400-500':>14} {'wall s':>8}")
    for label, _, _ in CONFIGS:
        rs = [r for r in rows if r["config"] == label]
        f20 = mean_sd([r["f20"] for r in rs])
        f200 = mean_sd([r["f200"] for r in rs])
        u = mean_sd([r["util_before_stop"] for r in rs])
        w = statistics.mean(r["wall_s"] for r in rs)
        summary[label] = {"f20_mean": f20[0], "f20_sd": f20[1],
                          "f200_mean": f200[0], "f200_sd": f200[1],
                          "util_400_500_mean": u[0], "wall_s_mean": w, "seeds": len(rs)}
        print(f"{label:<20} {f20[0]:>7.3f} ± {f20[1]:<6.3f} {f200[0]:>7.3f} ± {f200[1]:<6.3f} "
              f"{u[0]:>14.3f} {w:>8.2f}  ns-2")
        if all("cclab" in r for r in rs):
            c20 = mean_sd([r["cclab"]["f20"] for r in rs])
            c200 = mean_sd([r["cclab"]["f200"] for r in rs])
            cw = statistics.mean(r["cclab"]["wall_s"] for r in rs)
            summary[label]["cclab"] = {"f20_mean": c20[0], "f20_sd": c20[1], "f200_mean": c200[0], "f200_sd": c200[1],
                                       "wall_s_mean": cw}
            print(f"{'':<20} {c20[0]:>7.3f} ± {c20[1]:<6.3f} {c200[0]:>7.3f} ± {c200[1]:<6.3f} {'':>14} {cw:>8.2f}  cclab")

    ref = {
        "simulator": "ns-2.35 (/usr/bin/ns, Debian ns2 2.35+dfsg)",
        "script": SCRIPT,
        "experiment": "Bansal et al. SIGCOMM 2001 Fig. 13, f(k) after half the flows stop",
        "notes": [
            "10 flows, bottleneck 10 Mb/s 15 ms Queue/RED limit_ 125 (ns-2.35 RED "
            "defaults: gentle, automatic thresholds and q_weight; packet mode, as "
            "cclab's RED), access links 100 Mb/s 5 ms DropTail 1000; base RTT 50 ms.",
            "Data packets 1000 B on the wire (TCP useHeaders_ false; TFRC useHeaders_ "
            "false), ACKs 40 B.  Starts uniform in [0, 5) s; flows 5..9 stop at 500 s.",
            "f(k) = bottleneck departed bytes (QueueMonitor bdepartures_ on R1->R2) in "
            "[500, 500 + 0.05 k] s * 8 / (10 Mb/s * 0.05 k s).",
            "TFRC(b): Agent/TFRCSink NumSamples_ b; discount: Agent/TFRCSink discount_.",
        ],
        "summary": summary,
        "rows": rows,
    }
    with open(OUT, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.relpath(OUT, REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
