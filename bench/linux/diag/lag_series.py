"""Per-millisecond release-lag series (µs) behind Mahimahi's tick, in time order: for each
tick of the steady part (from 3 s) the lag of the first packet that left at it; ticks with
no packet take the previous tick's lag less 1 ms (at least 0).

    python3 lag_series.py [RUN ...]     # runs/RUN folders of run.py (default: the idle set below)

The committed series come from runs made with the machine otherwise idle (the recorder paused,
nothing else running: load average under 0.8), as the reference set's runs are. The first
series (runs cubic_r48_b160_a, bbr_r48_b160, cubic_r12_b20_a, bbr_r12_b40) were measured with
the machine loaded (load average 4-6: compilations beside them); their stalls (3-10 % of ticks
over 3 ms on the data path, against 0.1-0.2 % idle) made cclab's BBR overestimate the link
and keep twice the kernel's queue (FINDINGS.md, "Timing noise, loaded and idle")."""
import json, sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import analyze as A
from pcaplib import read_tcp

def series(run, kind):
    run = Path(run)
    meta = json.loads((run / "meta.json").read_text())
    args = meta["args"]
    spk = list(read_tcp(run / "sender.pcap"))
    flow = A.data_flow(spk)
    cli, srv, cport = flow[0], flow[1], flow[2]
    sent = [p for p in spk if p[1] == cli and p[3] == cport and p[4] == A.PORT]
    t_first = next(p[0] for p in sent if p[8] > 0)
    init, up = A.mm_log(run / "up.log")
    _, down = A.mm_log(run / "down.log")
    if kind == "ack":
        m = A.match_lag(down, init, [p for p in spk if p[2] == cli], 0)
    else:
        rpk = list(read_tcp(run / "receiver.pcap"))
        rf = A.data_flow(rpk)
        m = A.match_lag(up, init, [p for p in rpk if p[3] == rf[2] and p[4] == A.PORT], args["delay"])
    m = [x for x in m if x[0] >= t_first + 3.0]
    first = {}
    for t, tick, lag, _ in m:
        first.setdefault(tick, lag)
    ticks = sorted(first)
    out, prev = [], 0.0
    for tick in range(ticks[0], ticks[-1] + 1):
        lag = first.get(tick)
        if lag is None:
            lag = max(0.0, prev - 1000.0)
        out.append(max(0, round(lag)))
        prev = lag
    return out

IDLE_RUNS = ("idle_cubic_r48_b160", "idle_bbr_r48_b1600", "idle_cubic_r12_b20", "idle_bbr_r12_b400")
RUNS = tuple(sys.argv[1:]) or IDLE_RUNS
for kind in ("ack", "data"):
    allv, src = [], []
    for run in RUNS:
        s = series(HERE / "runs" / run, kind)
        src.append(f"{run} ({len(s)} ms)")
        allv += s
    q = sorted(allv); pct = lambda p: q[int(p * (len(q) - 1))]
    head = (f"# Release lag behind Mahimahi's 1-ms tick, µs, one per millisecond in time order "
            f"({'ACKs at the sender: the downlink' if kind == 'ack' else 'data at the receiver: the uplink, after mm-delay'}):\n"
            f"# for each tick the lag of the first packet that left at it (ticks with none: the previous lag less 1 ms).\n"
            f"# Measured with pcaps on this machine kind between runs of the kernel reference set, the machine otherwise idle\n"
            f"# (bench/linux/README.md, 'Timing noise'; bench/linux/diag/lag_series.py),\n"
            f"# from {', '.join(src)}, steady part (from 3 s), concatenated.\n"
            f"# p50 {pct(.5)}, p90 {pct(.9)}, p99 {pct(.99)}, p99.9 {pct(.999)}, max {q[-1]}\n")
    (HERE.parent / "lag" / f"{kind}.txt").write_text(head + "".join(f"{v}\n" for v in allv))
    print(kind, len(allv), pct(.5), pct(.9), pct(.99), pct(.999), q[-1])
