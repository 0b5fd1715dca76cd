#!/usr/bin/env python3
"""Fast tcp_info sampler over NETLINK_SOCK_DIAG (what `ss -tin` reads), standard library only.

    python3 tcpdiag.py --dport 5401 --interval 0.005 --out samples.jsonl [--stop-file F] [--max-s 40]

Run inside the sender's network namespace. One JSON line per matching socket per sample:
t (epoch s, CLOCK_REALTIME like tcpdump -tt), sport, state, ca_state, cwnd, ssthresh, unacked,
retrans, lost, sacked, rtt_us, min_rtt_us, pacing_rate (B/s), delivery_rate (B/s), app_limited,
bytes_acked, bytes_sent, delivered, total_retrans, and for bbr: bbr_bw (B/s), bbr_min_rtt_us,
pacing_gain, cwnd_gain (x256 scaled, as the kernel reports them).
"""
import argparse, json, os, socket, struct, time

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_DONE, NLMSG_ERROR = 3, 2
INET_DIAG_INFO, INET_DIAG_VEGASINFO, INET_DIAG_CONG, INET_DIAG_BBRINFO = 2, 3, 4, 16


def request(seq):
    ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_VEGASINFO - 1)) | (1 << (INET_DIAG_CONG - 1))
    body = struct.pack("=BBBBI", socket.AF_INET, socket.IPPROTO_TCP, ext, 0, 0xFFFFFFFF) + b"\0" * 48
    return struct.pack("=IHHII", 16 + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + body


def parse_info(b):
    u = lambda off: struct.unpack_from("=I", b, off)[0]
    q = lambda off: struct.unpack_from("=Q", b, off)[0] if len(b) >= off + 8 else None
    d = {"state": b[0], "ca_state": b[1], "app_limited": (b[7] & 1) if len(b) > 7 else None,
         "rto": u(8), "snd_mss": u(16), "unacked": u(24), "sacked": u(28), "lost": u(32), "retrans": u(36),
         "rtt_us": u(68), "rttvar_us": u(72), "ssthresh": u(76), "cwnd": u(80),
         "total_retrans": u(100), "pacing_rate": q(104), "bytes_acked": q(120),
         "min_rtt_us": u(148) if len(b) >= 152 else None, "delivery_rate": q(160),
         "delivered": u(192) if len(b) >= 196 else None, "bytes_sent": q(200)}
    return d


def sample(sock, seq, dport):
    sock.send(request(seq))
    out = []
    done = False
    while not done:
        data = sock.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            ln, typ, flags, s, pid = struct.unpack_from("=IHHII", data, off)
            if typ == NLMSG_DONE or typ == NLMSG_ERROR:
                done = True
                break
            msg = data[off + 16: off + ln]
            sp, dp = struct.unpack_from("!HH", msg, 4)
            if dp == dport:
                rec = {"sport": sp}
                a = 72
                while a + 4 <= len(msg):
                    alen, atype = struct.unpack_from("=HH", msg, a)
                    if alen < 4:
                        break
                    payload = msg[a + 4: a + alen]
                    if atype == INET_DIAG_INFO:
                        rec.update(parse_info(payload))
                    elif atype == INET_DIAG_CONG:
                        rec["cc"] = payload.split(b"\0")[0].decode()
                    elif atype == INET_DIAG_BBRINFO and len(payload) >= 20:
                        lo, hi, mrtt, pg, cg = struct.unpack_from("=IIIII", payload, 0)
                        rec.update({"bbr_bw": lo | (hi << 32), "bbr_min_rtt_us": mrtt, "pacing_gain": pg,
                                    "cwnd_gain": cg})
                    a += (alen + 3) & ~3
                out.append(rec)
            off += (ln + 3) & ~3
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dport", type=int, required=True)
    p.add_argument("--interval", type=float, default=0.005)
    p.add_argument("--out", required=True)
    p.add_argument("--stop-file")
    p.add_argument("--max-s", type=float, default=60)
    a = p.parse_args()
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
    sock.bind((0, 0))
    end = time.time() + a.max_s
    seq = 1
    nxt = time.time()
    with open(a.out, "w") as f:
        while time.time() < end:
            if a.stop_file and os.path.exists(a.stop_file):
                break
            t = time.time()
            for rec in sample(sock, seq, a.dport):
                rec["t"] = round(t, 6)
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            seq += 1
            nxt += a.interval
            delay = nxt - time.time()
            if delay > 0:
                time.sleep(delay)
            else:
                nxt = time.time()


if __name__ == "__main__":
    main()
