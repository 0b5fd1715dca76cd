#!/usr/bin/env python3
"""Kernel-side ground truth from the tcp:tcp_probe trace (bt.txt, bt/cubic.bt or bt/bbr.bt) of a run.

    python3 analyze_bt.py runs/NAME [...]     # writes runs/NAME/bt_analysis.json (+ hystart_rounds.csv / bbr_ack.csv)

Each trace line is the sender's state when an incoming segment is about to be processed (the state left
by the previous ACK). Times: CLOCK_MONOTONIC ns + (realtime - monotonic) from meta.json = epoch s.
"""
import json, math, sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pcaplib import read_tcp
from analyze import quant, q, data_flow, mm_log, PORT, MSS

INF = 2147483647


def load(run, tag):
    meta = json.loads((run / "meta.json").read_text())
    off = meta["realtime_minus_monotonic_s"][0]
    rows = [l.split() for l in open(run / "bt.txt") if l.startswith(tag + " ")]
    sport = Counter(r[2] for r in rows).most_common(1)[0][0]
    rows = [[int(x) for x in r[1:]] for r in rows if r[2] == sport]
    return meta, off, int(sport), rows


def unwrap_us(ns, v):
    """A u32 µs timestamp v (tcp_mstamp) as full µs, given the event time ns (monotonic)."""
    now = ns // 1000
    return now - ((now - v) % (1 << 32))


def cubic(run):
    meta, off, sport, rows = load(run, "C")
    spk = list(read_tcp(run / "sender.pcap"))
    acks = [p for p in spk if p[3] == PORT and p[4] == sport]
    sent = [p for p in spk if p[3] == sport and p[4] == PORT]
    t_first = next(p[0] for p in sent if p[8] > 0)
    ack_t = [p[0] for p in acks if p[0] >= t_first]
    res = {"run": run.name, "sport": sport, "events": len(rows),
           "sk_pacing_status": dict(Counter(r[16] for r in rows))}
    # --- slow-start exit: first finite ssthresh
    exit_ev = None
    for i, r in enumerate(rows):
        if r[3] != INF:
            prev = rows[i - 1]
            exit_ev = {"ms_after_first_data": round((r[0] / 1e9 + off - t_first) * 1000, 2), "cwnd": r[2],
                       "ssthresh": r[3], "found": r[7], "ca_state": r[14], "cwnd_before": prev[2],
                       "cause": "hystart" if (r[7] == 1 and r[14] == 0) else "loss/recovery"}
            break
    res["ssthresh_first_set"] = exit_ev
    res["max_cwnd_before_exit"] = max(r[2] for r in rows if exit_ev is None or r[0] / 1e9 + off - t_first
                                      <= exit_ev["ms_after_first_data"] / 1000)
    # the first found=1 event
    fe = next((r for r in rows if r[7] == 1), None)
    res["hystart_found"] = None if fe is None else {
        "ms_after_first_data": round((fe[0] / 1e9 + off - t_first) * 1000, 2), "cwnd": fe[2], "ssthresh": fe[3],
        "ca_state": fe[14], "curr_rtt_us": fe[12], "delay_min_us": fe[8], "sample_cnt": fe[13],
        "train_len_ms": round(((fe[11] - fe[9]) % (1 << 32)) / 1000, 3)}
    # --- rounds (round_start changes) before the exit
    rounds = []
    cur = None
    for r in rows:
        ns, _, cwnd, ssth, una, nxt, srtt, found, dmin, rs, es, la, cr, sc, cas, prate, pst = r
        t = ns / 1e9 + off
        if exit_ev and (t - t_first) * 1000 > exit_ev["ms_after_first_data"] + 1:
            break
        if rs == 0 or dmin == 0:
            continue
        if cur is None or rs != cur["_rs"]:
            rs_full = unwrap_us(ns, rs)
            cur = {"_rs": rs, "_rs_epoch": rs_full / 1e6 + off, "start_ms": round((rs_full / 1e6 + off - t_first) * 1000, 2),
                   "cwnd_at_start": cwnd, "end_seq_pkts": ((es - una) % (1 << 32)) // MSS, "events": 0}
            rounds.append(cur)
        cur["events"] += 1
        cur["cwnd_last"] = cwnd
        cur["delay_min_ms"] = round(dmin / 1000, 3)
        ack_delay = min(1000, 65536 * 4 * 1e6 / prate) if prate else 0
        thr = dmin + ack_delay
        if pst == 0:
            thr /= 2
        cur["train_threshold_ms"] = round(thr / 1000, 2)
        cur["delay_threshold_ms"] = round((dmin + min(max(dmin / 8, 4000), 16000)) / 1000, 2)
        cur["train_len_ms"] = round(((la - rs) % (1 << 32)) / 1000, 3)
        cur["_la_epoch"] = unwrap_us(ns, la) / 1e6 + off
        cur["sample_cnt"] = sc
        cur["curr_rtt_ms"] = round(cr / 1000, 2) if cr < INF else None
        cur["found"] = found
    for i, c in enumerate(rounds):
        t_end = rounds[i + 1]["_rs_epoch"] if i + 1 < len(rounds) else c["_rs_epoch"] + 0.2
        ts = [t for t in ack_t if c["_rs_epoch"] - 1e-4 <= t < t_end]
        gaps = [(b - a) * 1e6 for a, b in zip(ts, ts[1:])]
        c["acks_in_round"] = len(ts)
        c["gaps_gt2ms"] = sum(g > 2000 for g in gaps)
        c["gaps_1_2ms"] = sum(1000 < g <= 2000 for g in gaps)
        c["round_len_ms"] = round((ts[-1] - ts[0]) * 1000, 2) if len(ts) > 1 else 0
        # the gap that froze last_ack: first ACK after last_ack
        nxt = [t for t in ack_t if t > c["_la_epoch"] + 5e-6]
        c["breaking_gap_ms"] = round((nxt[0] - c["_la_epoch"]) * 1000, 3) if nxt and nxt[0] < t_end else None
        for k in ("_rs", "_rs_epoch", "_la_epoch"):
            c.pop(k)
    res["rounds"] = rounds
    with open(run / "hystart_rounds.csv", "w") as f:
        cols = list(rounds[0].keys()) if rounds else []
        f.write(",".join(cols) + "\n")
        for c in rounds:
            f.write(",".join(str(c.get(k)) for k in cols) + "\n")
    (run / "bt_analysis.json").write_text(json.dumps(res, indent=1))
    return res


def bbr(run):
    meta, off, sport, rows = load(run, "B")
    rate = meta["args"]["rate"]
    link_pps = rate // 12 * 1000
    spk = list(read_tcp(run / "sender.pcap"))
    sent = [p for p in spk if p[3] == sport and p[4] == PORT]
    t_first = next(p[0] for p in sent if p[8] > 0)
    out = []
    for r in rows:
        ns, _, cwnd, una, nxt, srtt, b0, b1, b2, mrtt, pout, prate, rdel, rint, rttc, mode, cyc, pg = r
        t = ns / 1e9 + off - t_first
        out.append({"t": round(t, 6), "cwnd": cwnd, "packets_out": pout, "bw_pps": b0 * 1e6 / (1 << 24),
                    "bw_samples_pps": [round(x * 1e6 / (1 << 24), 1) for x in (b0, b1, b2)],
                    "pacing_Bps": prate, "rs_pps": (rdel * 1e6 / rint) if rint > 0 and rdel > 0 else None,
                    "rs_delivered": rdel, "rs_interval_us": rint, "min_rtt_us": mrtt, "srtt_us": srtt,
                    "mode": mode, "cycle_idx": cyc, "pacing_gain": pg, "rtt_cnt": rttc})
    with open(run / "bbr_ack.csv", "w") as f:
        f.write("t_s,cwnd,packets_out,bw_pps,pacing_Bps,rs_pps,rs_delivered,rs_interval_us,min_rtt_us,srtt_us,mode,cycle_idx,pacing_gain\n")
        for o in out:
            f.write(",".join(str(o[k]) for k in ("t", "cwnd", "packets_out", "bw_pps", "pacing_Bps", "rs_pps", "rs_delivered",
                                                 "rs_interval_us", "min_rtt_us", "srtt_us", "mode", "cycle_idx", "pacing_gain")) + "\n")
    st = [o for o in out if o["t"] >= 3.0]
    pct = lambda x: (x / link_pps - 1) * 100
    bwp = [pct(o["bw_pps"]) for o in st]
    # time-weighted fraction: per event is fine (ACK-clocked, roughly uniform in time)
    # distinct max-filter values and how long each was held
    held = Counter()
    for a, b in zip(st, st[1:]):
        held[round(pct(a["bw_pps"]), 2)] += b["t"] - a["t"]
    tot = sum(held.values())
    rs = [pct(o["rs_pps"]) for o in st if o["rs_pps"]]
    # unique rate samples: consecutive events repeat the last sample; dedupe on (delivered, interval) changes
    uniq = []
    last = None
    for o in st:
        k = (o["rs_delivered"], o["rs_interval_us"], o["rtt_cnt"])
        if o["rs_pps"] and k != last:
            uniq.append(pct(o["rs_pps"]))
        last = k
    res = {"run": run.name, "sport": sport, "link_payload_pps": link_pps, "events_after_3s": len(st),
           "bw_over_link_pct_per_ack": quant(bwp, 1, 2),
           "bw_over_link_time_share": {k: round(v / tot, 3) for k, v in sorted(held.items(), key=lambda kv: -kv[1])[:12]},
           "time_share_bw_gt_link": round(sum(v for k, v in held.items() if k > 0.05) / tot, 3),
           "time_share_bw_gt_link_1pct": round(sum(v for k, v in held.items() if k > 1) / tot, 3),
           "rate_samples_over_link_pct": quant(uniq, 1, 2),
           "rate_samples_frac_gt_link": round(sum(u > 0.05 for u in uniq) / len(uniq), 3) if uniq else None,
           "rate_samples_frac_gt_link_2pct": round(sum(u > 2 for u in uniq) / len(uniq), 3) if uniq else None,
           "pacing_over_link_pct": quant([(o["pacing_Bps"] / (link_pps * MSS) - 1) * 100 for o in st], 1, 2),
           "modes": dict(Counter(o["mode"] for o in st)),
           "pacing_gain_time_share": {}, "inflight_vs_cwnd": {}}
    g_t = Counter()
    for a, b in zip(st, st[1:]):
        g_t[a["pacing_gain"]] += b["t"] - a["t"]
    res["pacing_gain_time_share"] = {str(k): round(v / tot, 3) for k, v in sorted(g_t.items())}
    lim = [o for o in st if o["packets_out"] >= o["cwnd"]]
    res["inflight_vs_cwnd"] = {"frac_acks_packets_out_ge_cwnd": round(len(lim) / len(st), 3),
                               "frac_ge_cwnd_minus_2": round(sum(o["packets_out"] >= o["cwnd"] - 2 for o in st) / len(st), 3),
                               "cwnd": quant([o["cwnd"] for o in st], 1, 0),
                               "packets_out": quant([o["packets_out"] for o in st], 1, 0),
                               "cwnd_minus_packets_out": quant([o["cwnd"] - o["packets_out"] for o in st], 1, 0)}
    # BDP implied by kernel's estimate vs cwnd: cwnd target = 2 * bw * min_rtt (+3 quanta)
    res["bw_times_minrtt_pkts"] = quant([o["bw_pps"] * o["min_rtt_us"] / 1e6 for o in st], 1, 1)
    res["min_rtt_us"] = quant([o["min_rtt_us"] for o in st], 1, 0)
    res["srtt_ms"] = quant([o["srtt_us"] / 1000 for o in st], 1, 2)
    # per second
    tl = []
    for s in range(0, 31):
        sub = [o for o in out if s <= o["t"] < s + 1]
        if sub:
            tl.append([s, round(max(pct(o["bw_pps"]) for o in sub), 2), round(min(pct(o["bw_pps"]) for o in sub), 2),
                       q([o["cwnd"] for o in sub], .5), q([o["packets_out"] for o in sub], .5),
                       round(q([o["srtt_us"] for o in sub], .5) / 1000, 1), dict(Counter(o["mode"] for o in sub))])
    res["per_second[s,bw%max,bw%min,cwnd_p50,inflight_p50,srtt_ms_p50,modes]"] = tl
    # the Mahimahi uplink queue per second
    init, up = mm_log(run / "up.log")
    first_arr = next(t for t, k, r in up if k == "+" and int(r[0]) > 1000)
    qd = {}
    for t, k, r in up:
        if k == "-" and int(r[0]) > 1000:
            s = (t - first_arr) // 1000
            qd.setdefault(s, []).append(int(r[1]))
    res["uplink_queue_delay_ms_per_second_mean"] = [round(sum(v) / len(v), 1) for s, v in sorted(qd.items()) if s < 31]
    after = [d for s, v in qd.items() if 3 <= s < 30 for d in v]
    res["uplink_queue_delay_ms_after_3s"] = {"mean": round(sum(after) / len(after), 2), "p50": q(after, .5),
                                             "p95": q(after, .95)}
    res["uplink_drops_after_3s"] = sum(int(r[0]) for t, k, r in up if k == "d" and t >= first_arr + 3000)
    res["uplink_drops_total"] = sum(int(r[0]) for t, k, r in up if k == "d")
    (run / "bt_analysis.json").write_text(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    for r in sys.argv[1:]:
        run = Path(r)
        meta = json.loads((run / "meta.json").read_text())
        res = cubic(run) if meta["args"].get("bt") == "cubic" else bbr(run)
        print(json.dumps(res, indent=None)[:5000])
