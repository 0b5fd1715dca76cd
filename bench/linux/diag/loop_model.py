"""Mahimahi's release timing as its event loops make it, replayed on a run's captured packets.

Each direction of `mm-link` and of `mm-delay` is a process looping on poll(): it wakes when a
packet arrives from its input, or when its timeout expires, counted in whole milliseconds from
its millisecond clock (mm-link: to its next delivery opportunity; mm-delay: to its first
packet's release millisecond); on each wake it hands on what is due by the current
millisecond (src/packet/packetshell.cc, src/frontend/link_queue.cc, delay_queue.cc). The timer
fires a little late: OVERSHOOT. This script replays that on a run of run.py:

- the ACK path: the server's ACKs (receiver.pcap) into mm-delay's loop, its releases into
  mm-link's downlink loop, against the ACKs' arrivals at the sender (sender.pcap);
- the data path: the client's packets (sender.pcap) wake mm-link's uplink loop, which
  releases each at its logged departure tick (up.log) at its first wake in or after it, into
  mm-delay's loop, against the data's arrivals at the receiver (receiver.pcap), per tick;

and prints how far the model's release times are from the captured ones, and how late the
captured ones come when the model misses (the loops' stalls: the process off the CPU).

    python3 loop_model.py [--overshoot-us 120] [RUN ...]   # runs/RUN folders (default: the idle set)

Standard library only, like the other diagnostics (they run as root beside the recorder).
"""
import argparse
import json
import math
import sys
from bisect import bisect_left
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import analyze as A  # noqa: E402
from pcaplib import read_tcp  # noqa: E402

IDLE_RUNS = ("idle_cubic_r48_b160", "idle_bbr_r48_b1600", "idle_cubic_r12_b20", "idle_bbr_r12_b400",
             "idle_bbr_r96_b3200")


def delay_loop(arrivals, delay_ms, overshoot, base, wake=0.0):
    """mm-delay's loop: each packet (arrival time, s) read by the loop's first wake after it
    (`wake` after it, or the timer's wake if that comes first), due at that millisecond +
    delay_ms, released at the loop's first wake in or after it. Returns the release times."""
    ms = lambda t: math.floor((t - base) * 1000.0)  # noqa: E731
    out, pending, i, n = [None] * len(arrivals), [], 0, len(arrivals)
    head, now = 0, arrivals[0] + wake
    while head < len(pending) or i < n:
        while head < len(pending) and pending[head][0] <= ms(now):
            out[pending[head][1]] = now
            head += 1
        while i < n and arrivals[i] <= now:
            pending.append((ms(now) + delay_ms, i))
            i += 1
        timer = math.inf
        if head < len(pending):  # poll(due - now's millisecond) from now
            timer = now + (pending[head][0] - ms(now)) / 1000.0 + overshoot
        now = min(timer, arrivals[i] + wake if i < n else math.inf)
    return out


def link_wakes(arrivals, overshoot, end, wake=0.0):
    """mm-link's loop with a delivery opportunity every millisecond: its wake times, `wake`
    after each arrival it was sleeping through and on its timer (1 ms + overshoot after the
    last wake)."""
    wakes, now, i, n = [], arrivals[0] + wake, 0, len(arrivals)
    while now < end:
        wakes.append(now)
        while i < n and arrivals[i] <= now:
            i += 1
        now = min(now + 1e-3 + overshoot, arrivals[i] + wake if i < n else math.inf)
    return wakes


def link_releases(arrivals, ticks, overshoot, base, wake=0.0):
    """Packets leaving mm-link at the given ticks (ms of its log): at its first wake at or
    after each tick, the loop woken by `arrivals`."""
    wakes = link_wakes(arrivals, overshoot, base + (max(ticks) + 2) / 1000.0, wake)
    out = []
    for tick in ticks:
        at = base + tick / 1000.0
        j = bisect_left(wakes, at)
        out.append(wakes[j] if j < len(wakes) else at)
    return out


def quantiles(xs, ps):
    xs = sorted(xs)
    return [xs[min(len(xs) - 1, int(p * len(xs)))] for p in ps]


def report(label, errors_us):
    """How close: the share within 100 and 300 µs, the error's quantiles, and the tail of
    captured releases later than the model (the stalls)."""
    n = len(errors_us)
    within = lambda x: sum(abs(e) < x for e in errors_us) / n  # noqa: E731
    late = lambda x: sum(e < -x for e in errors_us) / n        # noqa: E731 (model earlier than the capture)
    q = quantiles(errors_us, (0.1, 0.5, 0.9))
    print(f"  {label}: {n} ticks; model − capture p10/p50/p90 {q[0]:.0f}/{q[1]:.0f}/{q[2]:.0f} µs; "
          f"within 100 µs {100 * within(100):.0f} %, 300 µs {100 * within(300):.0f} %; "
          f"capture later by > 0.2 / 0.5 / 1 / 2 ms: {100 * late(200):.1f} / {100 * late(500):.1f} / "
          f"{100 * late(1000):.2f} / {100 * late(2000):.2f} %")


def first_per_tick(times, ticks):
    first = {}
    for t, k in zip(times, ticks):
        first.setdefault(k, t)
    return first


def run_model(run: Path, overshoot: float, wake: float = 0.0):
    args = json.loads((run / "meta.json").read_text())["args"]
    delay = args["delay"]
    spk, rpk = list(read_tcp(run / "sender.pcap")), list(read_tcp(run / "receiver.pcap"))
    flow, rflow = A.data_flow(spk), A.data_flow(rpk)
    init, up = A.mm_log(run / "up.log")
    base = init / 1000.0
    t_from = next(p[0] for p in spk if p[1] == flow[0] and p[8] > 0) + 3.0  # the steady part
    print(f"{run.name} ({args['cc']}, {args['rate']} Mb/s, D = {delay} ms), overshoot {overshoot * 1e6:.0f} µs, wake {wake * 1e6:.0f} µs")
    # the ACK path: server -> mm-delay -> mm-link downlink -> client
    server_out = [p[0] for p in rpk if p[1] == rflow[1] and p[2] == rflow[0]]
    client_in = [p[0] for p in spk if p[2] == flow[0] and p[1] == flow[1]]
    delayed = sorted(delay_loop(server_out, delay, overshoot, base, wake))
    # mm-link serves an arrival in millisecond m at the tick m + 1 (ACKs never fill it)
    ticks = [math.floor((t - base) * 1000.0) + 1 for t in delayed]
    model = link_releases(delayed, ticks, overshoot, base, wake)
    pairs = [(m, c) for m, c in zip(model, client_in) if c >= t_from]
    by_tick = first_per_tick(pairs, [math.floor((m - base) * 1000.0) for m, _ in pairs])
    report("ACKs at the sender", [(m - c) * 1e6 for m, c in by_tick.values()])
    # the data path: client -> mm-link uplink (departure ticks from its log) -> mm-delay -> server
    client_out = [p[0] for p in spk if p[1] == flow[0] and p[2] == flow[1]]
    departures = [t for t, kind, _ in up if kind == "-"]
    released = link_releases(client_out, departures, overshoot, base, wake)
    arrived = delay_loop(released, delay, overshoot, base, wake)
    model_at = first_per_tick(arrived, departures)
    captured = first_per_tick(*zip(*[(t, tick) for t, tick, _, _ in
                                     A.match_lag(up, init, [p for p in rpk if p[1] == rflow[0] and p[2] == rflow[1]], delay)]))
    ticks = sorted(k for k in set(model_at) & set(captured) if captured[k] >= t_from)
    report("data at the receiver", [(model_at[k] - captured[k]) * 1e6 for k in ticks])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", default=IDLE_RUNS, help="runs/RUN folders (default: the idle set)")
    parser.add_argument("--overshoot-us", type=float, default=120.0, help="the timer's overshoot, µs (default 120)")
    parser.add_argument("--wake-us", type=float, default=0.0,
                        help="how long a packet handed to a sleeping loop takes to wake it, µs (default 0)")
    args = parser.parse_args()
    for run in args.runs:
        run_model(HERE / "runs" / run if not Path(run).is_dir() else Path(run), args.overshoot_us * 1e-6,
                  args.wake_us * 1e-6)


if __name__ == "__main__":
    main()
