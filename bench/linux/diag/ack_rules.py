#!/usr/bin/env python3
"""Which receiver rules reproduce the kernel's ACKs: replay candidate rules on a run's captured
arrivals (runs/NAME/receiver.pcap: the data as the receiver got it, the ACKs it sent).

    python3 ack_rules.py runs/NAME [...]

For each rule, the ACKs per data segment it gives on the same arrivals, the share of the
kernel's ACKs it sends at the same point (an ACK of the same sequence number) and the share of
its ACKs the kernel also sent. The rules, as the linux profile's receiver applies them:
  coalesce:        in-order segments within 20 µs of the previous, with the same TSval, make one
                   buffer; a buffer is ACKed when more than one segment is unacknowledged
                   (`__tcp_ack_snd_check`);
  coalesce + PSH:  and a buffer holding a PSH segment is ACKed even for one segment (the
                   application reads it at once: ICSK_ACK_PUSHED, `tcp_cleanup_rbuf`);
  per segment:     no coalescing (an ACK per two segments);
  group (+ PSH):   as coalesce (+ PSH), the TSval aside: every back-to-back arrival joins, as if
                   the application read once per group (the ACK then comes from `tcp_cleanup_rbuf`:
                   the socket backlog's segments do not pass `__tcp_ack_snd_check`'s window test);
  ..., N direct:   the group's first N segments are taken one by one (the application not yet
                   holding the socket), each ACKed when more than one segment is unacknowledged.
Out-of-order arrivals end the buffer and are ACKed at once in every rule. The delayed-ACK
timer is left out (at these rates the next segment always comes first). Standard library only.
"""
import random
import struct
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pcaplib import read_tcp  # noqa: E402

MSS = 1448
WINDOW_S = 20e-6
SKIP_S = 3.0  # leave out the start (quick ACKs, slow start)


def tsval(options: bytes):
    i = 0
    while i < len(options):
        kind = options[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if kind == 8:
            return struct.unpack("!I", options[i + 2:i + 6])[0]
        i += max(2, options[i + 1])
    return None


def load(run: Path):
    packets = list(read_tcp(run / "receiver.pcap"))
    data = [p for p in packets if p[8] > 1000]
    port = Counter(p[4] for p in data).most_common(1)[0][0]
    data = [(p[0], p[5], p[8], tsval(p[9]), bool(p[7] & 0x08)) for p in packets if p[4] == port and p[8] > 1000]
    acks = [(p[0], p[6]) for p in packets if p[3] == port and p[8] == 0]
    return data, acks


def replay(data, coalesce: bool, push: bool, same_tsval: bool = True, direct: float = 0):
    """The ACK numbers the rule sends on these arrivals. A fractional ``direct`` takes one
    segment more alone in that share of the groups (drawn from a seeded stream)."""
    draws = random.Random(1)
    group_direct = int(direct)
    sent = []
    rcv_nxt = rcv_wup = None
    buffer_segments, buffer_push, previous = 0, False, None
    in_group = 0

    def end_buffer():
        nonlocal rcv_wup, buffer_segments, buffer_push
        if buffer_segments and (rcv_nxt - rcv_wup > MSS or (push and buffer_push)):
            sent.append(rcv_nxt)
            rcv_wup = rcv_nxt
        buffer_segments, buffer_push = 0, False

    for t, seq, length, ts, psh in data:
        if rcv_nxt is None:
            rcv_nxt = rcv_wup = seq
        if seq != rcv_nxt:
            end_buffer()
            rcv_nxt = max(rcv_nxt, seq + length) if seq > rcv_nxt else rcv_nxt
            sent.append(rcv_nxt)
            rcv_wup = rcv_nxt
            previous = None
            continue
        new_group = previous is None or t - previous[0] >= WINDOW_S
        in_group = 1 if new_group else in_group + 1
        if new_group:
            group_direct = int(direct) + (draws.random() < direct - int(direct))
        joins = coalesce and not new_group and (ts == previous[1] or not same_tsval) and in_group > group_direct
        if not joins:
            end_buffer()
        buffer_segments += 1
        buffer_push |= psh
        rcv_nxt = seq + length
        previous = (t, ts)
        if in_group <= group_direct and rcv_nxt - rcv_wup > MSS:
            sent.append(rcv_nxt)   # processed at once, before the application holds the socket
            rcv_wup = rcv_nxt
            buffer_segments, buffer_push = 0, False
    end_buffer()
    return sent


RULES = [
    ("per segment", dict(coalesce=False, push=False)),
    ("coalesce", dict(coalesce=True, push=False)),
    ("coalesce + PSH", dict(coalesce=True, push=True)),
    ("group", dict(coalesce=True, push=False, same_tsval=False)),
    ("group + PSH", dict(coalesce=True, push=True, same_tsval=False)),
    ("group + PSH, 1 direct", dict(coalesce=True, push=True, same_tsval=False, direct=1)),
    ("group + PSH, 2 direct", dict(coalesce=True, push=True, same_tsval=False, direct=2)),
    ("group + PSH, 1.3 direct", dict(coalesce=True, push=True, same_tsval=False, direct=1.3)),
]


def main():
    for arg in sys.argv[1:]:
        run = Path(arg)
        data, acks = load(run)
        start = data[0][0] + SKIP_S
        steady = [d for d in data if d[0] >= start]
        kernel = {a for t, a in acks if t >= start}
        first_seq = steady[0][1]
        print(f"{run.name}: {len(steady)} data segments after {SKIP_S:.0f} s, the kernel's ACKs per segment "
              f"{sum(1 for t, a in acks if t >= start) / len(steady):.3f}")
        for name, rule in RULES:
            model = {a for a in replay(data, **rule) if a > first_seq}
            both = len(model & kernel)
            print(f"  {name:24s} ACKs per segment {len(model) / len(steady):.3f}; of the kernel's ACKs sent alike "
                  f"{both / len(kernel):.0%}; of its own, the kernel's too {both / max(1, len(model)):.0%}")


if __name__ == "__main__":
    main()
