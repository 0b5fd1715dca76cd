#!/usr/bin/env python3
"""Analysis of one diagnostic run directory (runs/NAME) made by run.py.

    python3 analyze.py runs/NAME [...]      # writes runs/NAME/analysis.json and prints a summary

Q1 (CUBIC slow-start exit): HyStart nstat counters; cwnd/ssthresh series for the first 2 s
(cwnd_first2s.csv); drops from the Mahimahi uplink log in the first 1 s / 2 s after the first data
packet; ACK inter-arrival gaps in the first 1.5 s at the sender and a replay of HyStart's round /
ACK-train / delay logic (tcp_cubic.c of 6.18) on the captured ACKs.
Q2 (BBR): bw vs the link's payload rate, pacing_rate, delivery_rate, cwnd, unacked (bbr_series.csv).
Q3 (timing noise): ACK arrival phase on the 1-ms grid at the sender, inter-ACK gaps, segments
acknowledged per ACK at the receiver.
"""
import json, math, sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pcaplib import read_tcp

MSS = 1448
PORT = 5401


def q(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(p * len(xs)) - 1))]


def quant(xs, scale=1.0, nd=1):
    return {k: (round(q(xs, v) * scale, nd) if xs else None) for k, v in
            (("p50", .5), ("p90", .9), ("p99", .99), ("p99.9", .999))} | \
           {"min": round(min(xs) * scale, nd) if xs else None, "max": round(max(xs) * scale, nd) if xs else None,
            "n": len(xs)}


def nstat(path):
    out = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def mm_log(path):
    init = None
    rows = []
    for line in open(path):
        if line.startswith("#"):
            if "init timestamp" in line:
                init = int(line.split(":")[1])
            continue
        p = line.split()
        if len(p) >= 3:
            rows.append((int(p[0]), p[1], p[2:]))
    return init, rows


def data_flow(pkts):
    """The data connection: 4-tuple (client->server, dport PORT) with most payload."""
    by = Counter()
    for p in pkts:
        if p[4] == PORT:
            by[(p[1], p[2], p[3], p[4])] += p[8]
    return by.most_common(1)[0][0]


def analyze(run):
    run = Path(run)
    meta = json.loads((run / "meta.json").read_text())
    args = meta["args"]
    rate_pkts_per_ms = args["rate"] // 12
    res = {"run": run.name, "args": args}
    # ------------------------------------------------------------- nstat
    nb, na = nstat(run / "nstat_before.txt"), nstat(run / "nstat_after.txt")
    keys = ["TcpExtTCPHystartTrainDetect", "TcpExtTCPHystartTrainCwnd", "TcpExtTCPHystartDelayDetect",
            "TcpExtTCPHystartDelayCwnd", "TcpRetransSegs", "TcpExtTCPLossProbes", "TcpExtTCPSackRecovery",
            "TcpExtTCPLostRetransmit", "TcpExtTCPTimeouts", "TcpExtTCPSpuriousRTOs", "TcpExtTCPDSACKRecv",
            "TcpExtTCPSACKReorder", "TcpExtTCPFastRetrans", "TcpExtDelayedACKs", "TcpInSegs", "TcpOutSegs"]
    res["nstat_delta"] = {k: na.get(k, 0) - nb.get(k, 0) for k in keys}
    # ------------------------------------------------------------- sender pcap
    spk = list(read_tcp(run / "sender.pcap"))
    flow = data_flow(spk)
    cli, srv, cport = flow[0], flow[1], flow[2]
    sent = [p for p in spk if p[1] == cli and p[3] == cport and p[4] == PORT]
    acks = [p for p in spk if p[1] == srv and p[3] == PORT and p[4] == cport]
    isn = next(p[5] for p in sent if p[7] & 2)
    t_first_data = next(p[0] for p in sent if p[8] > 0)
    res["t_first_data_epoch"] = t_first_data
    # send time of each segment end (first transmission) for RTT samples
    first_tx = {}
    for p in sent:
        if p[8] > 0:
            end = (p[5] + p[8]) & 0xffffffff
            first_tx.setdefault(end, p[0])
    retx_ends = set()
    seen = set()
    for p in sent:
        if p[8] > 0:
            end = (p[5] + p[8]) & 0xffffffff
            if end in seen:
                retx_ends.add(end)
            seen.add(end)
    # ------------------------------------------------------------- tcp_info series
    samples = [json.loads(l) for l in open(run / "tcpinfo.jsonl")]
    by_port = Counter()
    for s in samples:
        by_port[s["sport"]] = max(by_port[s["sport"]], s.get("bytes_sent") or 0)
    dsamp = [s for s in samples if s["sport"] == cport]
    res["tcpinfo_samples"] = len(dsamp)
    if len(dsamp) > 1:
        dt = [b["t"] - a["t"] for a, b in zip(dsamp, dsamp[1:])]
        res["tcpinfo_interval_ms"] = quant(dt, 1000, 2)
    # ------------------------------------------------------------- Mahimahi logs
    init, up = mm_log(run / "up.log")
    t0_log = (t_first_data * 1000.0) - init   # log ms of the first data packet's send
    first_data_arr = next(t for t, k, r in up if k == "+" and int(r[0]) > 1000)
    drops = [(t, int(r[0])) for t, k, r in up if k == "d"]
    res["uplink"] = {"first_data_arrival_log_ms": first_data_arr, "sender_first_data_log_ms": round(t0_log, 3),
                     "drops_total": sum(n for _, n in drops),
                     "drops_first_1s": sum(n for t, n in drops if first_data_arr <= t < first_data_arr + 1000),
                     "drops_first_2s": sum(n for t, n in drops if first_data_arr <= t < first_data_arr + 2000),
                     "first_drop_ms_after_first_data": (drops[0][0] - first_data_arr) if drops else None}
    dep = [(t, int(r[1])) for t, k, r in up if k == "-" and int(r[0]) > 1000]
    if dep:
        res["uplink"]["queue_delay_ms_mean_after_5s"] = round(
            sum(d for t, d in dep if t >= first_data_arr + 5000) / max(1, sum(1 for t, d in dep if t >= first_data_arr + 5000)), 2)
    # cwnd at the first drop (tcp_info sample nearest before)
    def info_at(t_epoch):
        best = None
        for s in dsamp:
            if s["t"] <= t_epoch:
                best = s
            else:
                break
        return best
    if drops:
        s = info_at((drops[0][0] + init) / 1000.0)
        res["uplink"]["cwnd_at_first_drop"] = s["cwnd"] if s else None
    # cwnd/ssthresh series for the first 2 s
    rows = []
    for s in dsamp:
        rel = s["t"] - t_first_data
        if -0.05 <= rel <= 2.0:
            rows.append((round(rel * 1000, 2), s["cwnd"], s["ssthresh"] if s["ssthresh"] < 1 << 30 else -1,
                         s["unacked"], s["ca_state"], s["rtt_us"], s["total_retrans"]))
    with open(run / "cwnd_first2s.csv", "w") as f:
        f.write("ms_after_first_data,cwnd,ssthresh(-1=inf),unacked,ca_state,srtt_us,total_retrans\n")
        for r in rows:
            f.write(",".join(map(str, r)) + "\n")
    ev = {}
    for r in rows:
        if r[2] != -1 and "ssthresh_set" not in ev:
            ev["ssthresh_set"] = {"ms": r[0], "cwnd": r[1], "ssthresh": r[2], "ca_state": r[4]}
        if r[4] != 0 and "first_non_open_ca_state" not in ev:
            ev["first_non_open_ca_state"] = {"ms": r[0], "cwnd": r[1], "ssthresh": r[2], "ca_state": r[4]}
    ev["max_cwnd_first2s"] = max((r[1] for r in rows), default=None)
    # cwnd snapshot every 100 ms
    snap = []
    for k in range(0, 21):
        c = [r for r in rows if r[0] <= k * 100]
        if c:
            snap.append((k * 100, c[-1][1], c[-1][2]))
    ev["every_100ms(ms,cwnd,ssthresh)"] = snap
    res["slow_start"] = ev
    # ------------------------------------------------------------- ACK gaps + HyStart replay (first 1.5 s)
    a15 = [p for p in acks if t_first_data <= p[0] <= t_first_data + 1.5]
    gaps = [(b[0] - a[0]) * 1e6 for a, b in zip(a15, a15[1:])]
    res["ack_gaps_first1.5s_us"] = quant(gaps, 1, 0) | {
        ">2ms": sum(g > 2000 for g in gaps), ">1.5ms": sum(g > 1500 for g in gaps),
        "1.9-2.1ms": sum(1900 < g <= 2100 for g in gaps)}
    res["hystart_replay"] = hystart_replay(sent, acks, t_first_data, first_tx, retx_ends, dsamp, isn)
    # ------------------------------------------------------------- Q3: ACK phase on the ms grid, gaps (steady part)
    steady = [p for p in acks if p[0] >= t_first_data + 3.0]
    phase = [((p[0] * 1e6) % 1000.0) for p in steady]
    res["ack_phase_us_steady"] = phase_stats(phase)
    sg = [(b[0] - a[0]) * 1e6 for a, b in zip(steady, steady[1:])]
    res["ack_gap_us_steady"] = quant(sg, 1, 0)
    res["ack_gap_hist_steady_ms"] = dict(sorted(Counter(min(int(g // 250) * 250, 5000) for g in sg).items()))
    # data departures at the sender (phase), for comparison
    dsteady = [p for p in sent if p[8] > 0 and p[0] >= t_first_data + 3.0]
    res["data_send_phase_us_steady"] = phase_stats([((p[0] * 1e6) % 1000.0) for p in dsteady])
    # ------------------------------------------------------------- Q3: lag behind Mahimahi's tick
    _, down = mm_log(run / "down.log")
    incoming = [p for p in spk if p[2] == cli]
    dl = match_lag(down, init, incoming, 0)
    res["downlink_match"] = {"captured": len(incoming), "matched": len(dl),
                             "log_departures": sum(1 for _, k, _ in down if k == "-")}
    dls = [x for x in dl if x[0] >= t_first_data + 3.0]
    res["ack_lag_behind_tick_us_steady"] = quant([x[2] for x in dls], 1, 0)
    res["ack_lag_hist_100us"] = [sum(1 for x in dls if k * 100 <= x[2] < (k + 1) * 100) for k in range(12)] + \
        [sum(1 for x in dls if x[2] >= 1200)]
    # consecutive ACKs of the data flow: gap, tick difference, jitter = gap - tick difference
    fa = [x for x in dls if x[3][3] == PORT and x[3][4] == cport]
    gap = [(b[0] - a[0]) * 1e6 for a, b in zip(fa, fa[1:])]
    tickd = [b[1] - a[1] for a, b in zip(fa, fa[1:])]
    jit = [(b[2] - a[2]) for a, b in zip(fa, fa[1:])]
    res["ack_tick_spacing_ms_hist"] = dict(sorted(Counter(tickd).items())[:12])
    res["ack_gap_minus_tick_spacing_us"] = quant(jit, 1, 0)
    res["ack_gap_gt2ms_by_tick_spacing"] = {str(k): [sum(1 for g, d in zip(gap, tickd) if d == k and g > 2000),
                                                    sum(1 for d in tickd if d == k)] for k in (0, 1, 2, 3)}
    # the uplink: data segments' arrival at the receiver vs their departure tick + D (mm-delay)
    rpk0 = list(read_tcp(run / "receiver.pcap"))
    rf0 = data_flow(rpk0)
    upkts = [p for p in rpk0 if p[3] == rf0[2] and p[4] == PORT]
    ul = match_lag(up, init, upkts, args["delay"])
    res["uplink_match"] = {"captured": len(upkts), "matched": len(ul)}
    res["data_lag_at_receiver_behind_tick_plus_D_us_steady"] = quant([x[2] for x in ul if x[0] >= t_first_data + 3.0], 1, 0)
        # ------------------------------------------------------------- receiver pcap: segments per ACK
    rpk = list(read_tcp(run / "receiver.pcap"))
    rflow = data_flow(rpk)
    rdata = [p for p in rpk if (p[1], p[2], p[3], p[4]) == rflow and p[8] > 0]
    racks = [p for p in rpk if p[1] == rflow[1] and p[2] == rflow[0] and p[3] == PORT and p[4] == rflow[2]]
    per = Counter()
    prev = None
    for p in racks:
        if prev is not None:
            d = (p[6] - prev) & 0xffffffff
            if d < 1 << 31:
                per[round(d / MSS, 2) if d % MSS else d // MSS] += 1
        prev = p[6]
    res["receiver_segments_per_ack"] = dict(sorted(per.items(), key=lambda kv: float(kv[0]))[:30])
    # data arrivals per ms at the receiver and acks per ms
    arr_ms = Counter(int(p[0] * 1000) for p in rdata if p[0] >= t_first_data + 3.0)
    res["receiver_data_per_ms_hist"] = dict(sorted(Counter(arr_ms.values()).items()))
    ack_ms = Counter(int(p[0] * 1000) for p in racks if p[0] >= t_first_data + 3.0)
    res["receiver_acks_per_ms_hist"] = dict(sorted(Counter(ack_ms.values()).items()))
    res["receiver_data_phase_us_steady"] = phase_stats([((p[0] * 1e6) % 1000.0) for p in rdata if p[0] >= t_first_data + 3.0])
    # ------------------------------------------------------------- Q2: bbr
    if args["cc"] == "bbr":
        res["bbr"] = bbr_stats(run, dsamp, t_first_data, rate_pkts_per_ms)
    # client summary
    try:
        c = json.loads((run / "client.json").read_text())
        s = c["end"]["streams"][0]["sender"]
        res["client"] = {"cc": c["end"].get("sender_tcp_congestion"), "mbps": round(s["bits_per_second"] / 1e6, 3),
                         "retransmits": s.get("retransmits"), "mean_rtt_ms": s.get("mean_rtt", 0) / 1000,
                         "min_rtt_ms": s.get("min_rtt", 0) / 1000, "max_cwnd": s.get("max_snd_cwnd")}
    except Exception as e:  # noqa
        res["client"] = {"error": str(e)}
    (run / "analysis.json").write_text(json.dumps(res, indent=1))
    return res


def phase_stats(phase):
    """Arrival phase within the 1-ms grid (µs). Offset = the circular position that minimises the spread:
    we take the phase histogram (10 µs bins), find the start of the emptiest 200-µs window and call the
    phase just after it the offset; deviation = (phase - offset) mod 1000."""
    if not phase:
        return None
    hist = Counter(int(x // 10) for x in phase)
    best, bestn = 0, None
    for s in range(100):
        n = sum(hist.get((s + k) % 100, 0) for k in range(20))
        if bestn is None or n < bestn:
            best, bestn = s, n
    # offset: the first non-empty-ish bin after the emptiest window; refine with the 0.1% quantile
    start = (best + 20) % 100 * 10
    dev = [((x - start) % 1000.0) for x in phase]
    off_fix = q(dev, 0.001)
    dev = [d - off_fix for d in dev]
    return {"offset_us": round((start + off_fix) % 1000, 1),
            "deviation_us": quant(dev, 1, 1),
            "phase_hist_100us": [sum(1 for x in phase if k * 100 <= x < (k + 1) * 100) for k in range(10)]}


def hystart_replay(sent, acks, t_first, first_tx, retx_ends, dsamp, isn, low_window=16, ack_delta=2000, init_cwnd=10):
    """Replay of 6.18 tcp_cubic.c hystart_update()/cubictcp_acked() over the captured ACK stream (sender-side
    capture times stand in for tcp_mstamp). Per ACK that acks new data with an RTT sample (newest acked
    segment sent once): delay_min = min(delay_min, rtt); if cwnd (init 10 + segments acked before this ACK:
    slow start, no loss yet) >= 16: a new round when ack > end_seq (round_start = last_ack = now,
    end_seq = snd_nxt now, curr_rtt = inf, sample_cnt = 0); ACK train: if now - last_ack <= 2 ms then
    last_ack = now and fire when now - round_start > (delay_min + 1 ms)/2 (no fq: SK_PACING_NONE;
    hystart_ack_delay() is capped at 1 ms, which it always is here); delay: curr_rtt = min(curr_rtt, rtt),
    after 8 samples fire when curr_rtt > delay_min + clamp(delay_min/8, 4, 16 ms). Stops at the first
    retransmission. Also reports where the train test WOULD fire if gaps > 2 ms did not break it."""
    snd = [(p[0], (p[5] + p[8]) & 0xffffffff) for p in sent if p[8] > 0]
    first_rtx_t = None
    hi = None
    for p in sent:
        if p[8] > 0:
            e = (p[5] + p[8]) & 0xffffffff
            if hi is not None and ((e - hi) & 0xffffffff) >= 1 << 31 or e == hi:
                first_rtx_t = p[0]
                break
            hi = e
    una = (isn + 1) & 0xffffffff
    i = 0
    snd_nxt = una
    delay_min = None
    st = {"found": None, "end_seq": una, "round_start": None, "last_ack": None, "curr_rtt": None, "cnt": 0}
    rounds = []
    cur = None
    nacked = 0
    samp_i = 0
    cw = None
    for p in acks:
        t, ack = p[0], p[6]
        if first_rtx_t is not None and t >= first_rtx_t:
            break
        while i < len(snd) and snd[i][0] <= t:
            if ((snd[i][1] - snd_nxt) & 0xffffffff) < 1 << 31:
                snd_nxt = snd[i][1]
            i += 1
        while samp_i < len(dsamp) and dsamp[samp_i]["t"] <= t:
            cw = dsamp[samp_i]
            samp_i += 1
        d = (ack - una) & 0xffffffff
        if d == 0 or d >= 1 << 31:
            if cur is not None:
                cur["non_advancing_acks"] += 1
            continue
        if not (p[7] & 0x10) or t < t_first:
            una = ack
            continue
        # cwnd before this ACK: the last tcp_info sample's cwnd + segments acked since that sample
        if cw is not None:
            if cw is not st.get("_anchor"):
                st["_anchor"], st["_since"] = cw, 0
            cwnd = cw["cwnd"] + st["_since"]
            st["_since"] += (d + MSS - 1) // MSS
        else:
            cwnd = init_cwnd + nacked
        nacked += (d + MSS - 1) // MSS
        una = ack
        rtt = (t - first_tx[ack]) * 1e6 if (ack in first_tx and ack not in retx_ends) else None
        if rtt is None:
            continue
        delay_min = rtt if delay_min is None else min(delay_min, rtt)
        if st["found"] or cwnd < low_window:
            continue
        if ((ack - st["end_seq"]) & 0xffffffff) < 1 << 31 and ack != st["end_seq"]:
            st.update(round_start=t, last_ack=t, end_seq=snd_nxt, curr_rtt=None, cnt=0)
            cur = {"start_ms": round((t - t_first) * 1000, 2), "cwnd_at_start": cwnd,
                   "tcpinfo_cwnd_at_start": cw["cwnd"] if cw else None,
                   "round_pkts": ((snd_nxt - ack) & 0xffffffff) // MSS, "acks": 0, "non_advancing_acks": 0,
                   "gaps_gt2ms": 0, "max_gap_ms": 0.0, "train_ms": 0.0, "train_broken_after_ms": None,
                   "train_broken_cwnd": None, "would_fire_without_gap_rule_cwnd": None,
                   "delay_min_ms": round(delay_min / 1000, 3), "_prev": t}
            rounds.append(cur)
        thr_train = (delay_min + 1000) / 2
        thr_delay = delay_min + min(max(delay_min / 8, 4000), 16000)
        cur["train_threshold_ms"] = round(thr_train / 1000, 2)
        cur["delay_threshold_ms"] = round(thr_delay / 1000, 2)
        cur["acks"] += 1
        g = (t - cur["_prev"]) * 1e6
        cur["_prev"] = t
        if g > ack_delta:
            cur["gaps_gt2ms"] += 1
        cur["max_gap_ms"] = max(cur["max_gap_ms"], round(g / 1000, 3))
        if (t - st["round_start"]) * 1e6 > thr_train and cur["would_fire_without_gap_rule_cwnd"] is None:
            cur["would_fire_without_gap_rule_cwnd"] = cwnd
        if (t - st["last_ack"]) * 1e6 <= ack_delta:
            st["last_ack"] = t
            cur["train_ms"] = round((t - st["round_start"]) * 1000, 3)
            if (t - st["round_start"]) * 1e6 > thr_train:
                st["found"] = ("train", cwnd, round((t - t_first) * 1000, 2))
        elif cur["train_broken_after_ms"] is None:
            cur["train_broken_after_ms"] = round((t - st["round_start"]) * 1000, 3)
            cur["train_broken_cwnd"] = cwnd
        st["curr_rtt"] = rtt if st["curr_rtt"] is None else min(st["curr_rtt"], rtt)
        if st["cnt"] < 8:
            st["cnt"] += 1
        else:
            cur["curr_rtt_ms"] = round(st["curr_rtt"] / 1000, 2)
            if st["curr_rtt"] > thr_delay and not (st["found"] and st["found"][0] == "train"):
                st["found"] = ("delay", cwnd, round((t - t_first) * 1000, 2))
        cur["cwnd_at_end"] = cwnd
        if st["found"]:
            cur["fired"] = st["found"]
    for r in rounds:
        r.pop("_prev", None)
    st.pop("_anchor", None)
    return {"first_retransmission_ms": round((first_rtx_t - t_first) * 1000, 2) if first_rtx_t else None,
            "predicted": st["found"], "rounds": rounds}


def match_lag(rows, init, pkts, extra_ms):
    """Pair each captured packet (in order) with the next departure in a Mahimahi log of the same size
    (IP length + 4); lag = capture time - (init + departure tick + extra_ms). Returns [(t, tick_ms, lag_us)]."""
    deps = [(t, int(r[0])) for t, k, r in rows if k == "-"]
    out = []
    j = 0
    for p in pkts:
        want = p[10] + 4
        k = j
        while k < len(deps) and deps[k][1] != want and k - j < 50:
            k += 1
        if k < len(deps) and deps[k][1] == want:
            out.append((p[0], deps[k][0], (p[0] - (init + deps[k][0] + extra_ms) / 1000.0) * 1e6, p))
            j = k + 1
    return out


def bbr_stats(run, dsamp, t_first, pkts_per_ms):
    link_Bps = pkts_per_ms * 1000 * MSS
    rows = []
    for s in dsamp:
        rel = s["t"] - t_first
        if s.get("bbr_bw") is None:
            continue
        rows.append({"t": round(rel, 3), "bw_Bps": s["bbr_bw"], "bw_over_link_pct": round((s["bbr_bw"] / link_Bps - 1) * 100, 3),
                     "pacing_Bps": s["pacing_rate"], "delivery_Bps": s["delivery_rate"], "cwnd": s["cwnd"],
                     "unacked": s["unacked"], "pacing_gain": s["pacing_gain"], "cwnd_gain": s["cwnd_gain"],
                     "min_rtt_us": s["bbr_min_rtt_us"], "srtt_us": s["rtt_us"], "retrans_total": s["total_retrans"],
                     "app_limited": s["app_limited"]})
    with open(run / "bbr_series.csv", "w") as f:
        cols = list(rows[0].keys())
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(str(r[c]) for c in cols) + "\n")
    st = [r for r in rows if r["t"] >= 3.0]
    over = [r["bw_over_link_pct"] for r in st]
    n = len(st)
    cw_lim = [r for r in st if r["unacked"] >= r["cwnd"]]
    near = [r for r in st if r["unacked"] >= r["cwnd"] - 2]
    gains = Counter(r["pacing_gain"] for r in st)
    res = {"link_payload_Bps": link_Bps, "samples_after_3s": n,
           "bw_over_link_pct": quant(over, 1, 2),
           "frac_bw_above_link": round(sum(o > 0 for o in over) / n, 3),
           "frac_bw_above_link_1pct": round(sum(o > 1 for o in over) / n, 3),
           "frac_bw_above_link_3pct": round(sum(o > 3 for o in over) / n, 3),
           "bw_distinct_values_pct": dict(sorted(Counter(round(o, 2) for o in over).items())[:40]),
           "frac_unacked_ge_cwnd": round(len(cw_lim) / n, 3),
           "frac_unacked_ge_cwnd_minus2": round(len(near) / n, 3),
           "cwnd": quant([r["cwnd"] for r in st], 1, 0), "unacked": quant([r["unacked"] for r in st], 1, 0),
           "pacing_over_link_pct": quant([(r["pacing_Bps"] / link_Bps - 1) * 100 for r in st], 1, 2),
           "delivery_over_link_pct": quant([(r["delivery_Bps"] / link_Bps - 1) * 100 for r in st], 1, 2),
           "pacing_gain_hist": dict(gains), "min_rtt_us": quant([r["min_rtt_us"] for r in st], 1, 0),
           "srtt_us": quant([r["srtt_us"] for r in st], 1, 0)}
    # per pacing_gain phase: unacked vs cwnd
    for g in sorted(gains):
        sub = [r for r in st if r["pacing_gain"] == g]
        res[f"gain_{g}"] = {"n": len(sub), "cwnd_p50": q([r["cwnd"] for r in sub], .5), "unacked_p50": q([r["unacked"] for r in sub], .5),
                            "frac_unacked_ge_cwnd": round(sum(r["unacked"] >= r["cwnd"] for r in sub) / len(sub), 3)}
    # 1-s timeline
    tl = []
    for k in range(0, 31):
        sub = [r for r in rows if k <= r["t"] < k + 1]
        if sub:
            tl.append({"s": k, "bw_pct_max": max(r["bw_over_link_pct"] for r in sub), "bw_pct_min": min(r["bw_over_link_pct"] for r in sub),
                       "cwnd_p50": q([r["cwnd"] for r in sub], .5), "unacked_p50": q([r["unacked"] for r in sub], .5),
                       "pacing_pct_p50": round((q([r["pacing_Bps"] for r in sub], .5) / link_Bps - 1) * 100, 2),
                       "srtt_ms_p50": q([r["srtt_us"] for r in sub], .5) / 1000})
    res["per_second"] = tl
    return res


if __name__ == "__main__":
    for r in sys.argv[1:]:
        res = analyze(r)
        print(json.dumps({k: v for k, v in res.items() if k not in ("hystart_replay",)}, indent=1)[:6000])
        hr = res["hystart_replay"]
        print("replay: first rtx", hr["first_retransmission_ms"], "predicted", hr["predicted"])
        for x in hr["rounds"][:14]:
            print(x)
