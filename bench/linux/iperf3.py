"""iperf3 on the wire, as the kernel reference's runs show it (bench/linux/diag/FINDINGS.md):
when its client's first data segment leaves, and the control connection's packets that meet
the first flight in the queue. ``compare.py`` builds each case's cclab scenario with them."""
from __future__ import annotations

import json
import math
from typing import Optional

# iperf3's control connection: as a test starts, the client's two pure ACKs (of the server's
# TEST_START and TEST_RUNNING) enter Mahimahi's uplink queue with the first flight of data
# (bench/linux/diag/FINDINGS.md). cclab sends as many packets from a UDP source of its own,
# just before each TCP flow's first data segment reaches the bottleneck, as small as the
# kernel's (52 bytes: IP, TCP and timestamps): a 1-byte payload under the scenario's 52-byte
# header, 53 bytes, so a Mahimahi opportunity carries them with most of a data packet.
CONTROL_PACKETS = 2
CONTROL_LEAD_S = 3e-6        # how long before the first data segment they arrive
CONTROL_PAYLOAD_BYTES = 1
CONTROL_GAP_S = 1e-6         # one after the other, 1 µs apart
# ... but within the first data segment's millisecond: the kernel's client sends them and its
# first flight on the same released tick (both in one millisecond of Mahimahi's log in every
# run), and a first flight sent just after a tick (cclab's releases come a microsecond or so
# into it) would otherwise put them in the millisecond before, where they leave on their own
# opportunity and the first flight has the buffer to itself (bench/linux/diag/FINDINGS.md,
# "The control packets' millisecond").
TICK_S = 1e-3
# iperf3's start: its first data segment leaves 3.6 ms (the client process starting) and five
# round trips after the client starts (control connection's handshake, the parameter exchange,
# the stream's creation, the data connection's handshake, TEST_START and TEST_RUNNING: a sender
# pcap, bench/linux/diag/FINDINGS.md; 216-222 ms at D = 20 ms, 119-122 ms at D = 10 ms over the
# idle runs). A cclab flow sends after one, its handshake: each TCP flow starts that much later
# (``--no-iperf3-start`` starts them at once), which puts its slow start where the kernel's was
# on a varying trace.
IPERF3_PROCESS_START_S = 3.6e-3
IPERF3_ROUND_TRIPS = 5
# A client started while another flow of the run is sending starts its process later: in three
# harness runs of the holdout's BBR + CUBIC@10 s (48 Mb/s, D = 20 ms), the late client's SYN
# reached the uplink 51.6, 52.2 and 61.0 ms after its scheduled start, the first client's
# 8.0-9.6 ms after its own (Mahimahi's uplink log; bench/linux/diag/FINDINGS.md, "A flow that
# starts late"): 46 ms more on average, which the late flow's start adds to the model's
# (runs that note the late client's SYN, `late_syn_ms`, give its own start instead).
IPERF3_BUSY_START_S = 46e-3


def kernel_first_data(run: dict) -> Optional[float]:
    """When the kernel run's first data segment reached the uplink, s after its window began
    (runs recorded from 2026-11-27 on note it), or None."""
    uplink = run.get("uplink", {})
    first, t0 = (uplink.get("whole_log") or {}).get("first_full_arrival_ms"), uplink.get("t0_log_ms")
    return (first - t0) / 1000 if first is not None and t0 is not None and first >= t0 else None


def kernel_late_syns(run: dict) -> Optional[list[Optional[float]]]:
    """When each late flow's client sent its first SYN in the kernel run, s after its window
    began (None for the others; runs recorded from 2026-11-28 on note it), or None."""
    syns = run.get("uplink", {}).get("late_syn_ms")
    return [None if ms is None else ms / 1000 for ms in syns] if syns else None


def start_as_iperf3(sc: dict, recorded: Optional[float] = None,
                    late_syns: Optional[list[Optional[float]]] = None) -> list[float]:
    """Start each TCP flow of ``sc`` as late as iperf3's start puts its first data segment
    (IPERF3_ROUND_TRIPS round trips and IPERF3_PROCESS_START_S after the client starts;
    cclab's first data leaves after its handshake, one round trip, measured in a short
    pre-run; a flow starting behind a queue has its round trips lengthened by it, as the
    kernel's iperf3 does, and one starting after another's data flows also its process start,
    by IPERF3_BUSY_START_S): the flows run as long as before, the scenario as much longer.
    ``recorded``: when the kernel run's first data arrived (s from its start), which then
    moves all the flows' starts by as much as the model missed it by. ``late_syns``: when a
    late flow's client sent its first SYN in the kernel run (s from its start; None where not
    known), which then sets that flow's process start instead of the model's.
    Returns each flow's delay, s."""
    seconds = lambda text: float(text.rstrip("s"))
    firsts = first_data_arrivals(sc)
    starts = [seconds(flow["start"]) for flow in sc["flows"]]
    # a client started after the first one's data flows starts its process later
    busy = [IPERF3_BUSY_START_S if start > min(firsts) else 0.0 for start in starts]
    delays = [IPERF3_PROCESS_START_S + extra + (IPERF3_ROUND_TRIPS - 1) * (first - start)
              for first, start, extra in zip(firsts, starts, busy)]
    if recorded is not None:
        missed = recorded - min(first + delay for first, delay in zip(firsts, delays))
        delays = [max(0.0, delay + missed) for delay in delays]
    for i, syn in enumerate(late_syns or []):
        if syn is not None and i < len(delays) and syn >= starts[i]:
            delays[i] = (syn - starts[i]) + (IPERF3_ROUND_TRIPS - 1) * (firsts[i] - starts[i])
    for flow, start, delay in zip(sc["flows"], starts, delays):
        flow["start"] = f"{start + delay:.9f}s"
        flow["stop"] = f"{seconds(flow['stop']) + delay:.9f}s"
    sc["duration"] = f"{seconds(sc['duration']) + max(delays):.9f}s"
    return delays


def control_flows(first_data: list[float], header_bytes: int, sender: str, receiver: str) -> list[dict]:
    """iperf3's control packets (CONTROL_PACKETS per TCP flow, from a UDP source after the
    TCP flows, CONTROL_PAYLOAD_BYTES each under the scenario's ``header_bytes``), arriving just
    before each flow's first data segment (``first_data``, s) and in its millisecond (TICK_S),
    between the flows' hosts."""
    wire_bits = 8 * (CONTROL_PAYLOAD_BYTES + header_bytes)
    flows = []
    for i, first in enumerate(first_data):
        since_tick = max(0.0, first - math.floor(first / TICK_S + 1e-9) * TICK_S)
        if since_tick >= CONTROL_LEAD_S:
            start, gap = first - CONTROL_LEAD_S, CONTROL_GAP_S
        else:  # spread evenly between the tick and the first data segment
            gap = max(since_tick / (CONTROL_PACKETS + 1), 1e-9)
            start = first - CONTROL_PACKETS * gap
        flows.append({"group": f"control{i}", "transport": "udp", "from": sender, "to": receiver,
                      "packet_size": f"{CONTROL_PAYLOAD_BYTES}B",
                      "app": {"kind": "cbr", "rate": f"{round(wire_bits / gap)}bps"},
                      "start": f"{max(0.0, start):.9f}s", "stop": f"{max(0.0, start) + (CONTROL_PACKETS - 0.5) * gap:.9f}s"})
    return flows


def first_data_arrivals(sc: dict) -> list[float]:
    """When each flow's first data segment left its sender, in s (the sender's link takes
    0.12 µs): a short run of the scenario (to 2 s after the last flow's start), captured on
    the link out of the sender (every flow's, in a graph from one host)."""
    import cclab

    count = len(sc["flows"])
    probe = json.loads(json.dumps(sc))
    last_start = max(float(flow.get("start", "0s").rstrip("s")) for flow in sc["flows"])
    probe["duration"] = f"{last_start + 2:.9f}s"
    sender = sc["flows"][0]["from"]
    out = next(link for link in sc["topology"]["links"] if link["from"] == sender)
    probe["trace"] = {"pcap": [f"{sender}-{out['to']}"]}
    capture = cclab.run(probe).raw["traces"]["captures"][0]
    firsts = []
    for i in range(count):
        sent = [t for t, kind, flow in zip(capture["t_ns"], capture["kind"], capture["flow"])
                if kind == 0 and flow == i]   # this flow's TCP data
        if not sent:
            raise RuntimeError(f"{sc['name']}: flow {i} sent no data in the 2 s after its start")
        firsts.append(sent[0] / 1e9)
    return firsts
