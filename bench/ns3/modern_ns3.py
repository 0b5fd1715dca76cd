#!/usr/bin/env python3
"""One run of modern_compare.py's dumbbell in ns-3.44 (pip install ns3==3.44.post0 in its own
virtualenv), printing one JSON line per seed:

    /work/ns3-venv/bin/python bench/ns3/modern_ns3.py --cc cubic --queue fifo --buffer 55 --seed 1
    ... --seed 1 2 3 --starts 0.70,0.18,0.69,0.82 0.96,0.60,0.57,0.72 0.32,0.95,0.08,0.04

N sources —100 Mb/s, 1 ms— r1 —10 Mb/s, 20 ms— r2 —100 Mb/s, 1 ms— N sinks, one BulkSend
per source, starting at the given times (modern_compare.py passes cclab's, so both
simulators start each flow at the same instant) or at uniform times in
[0, --start-window); measured from --warmup to --duration. Seeds are ns-3 run numbers
(seed 1, run N: ns-3's way to independent replications).

Set up as cclab's defaults (`cclab validate` on the scenario; "TCP defaults" in docs/guide/scenarios.md):
1000-byte segments without timestamps (1040-byte IP packets, cclab's packet_size +
header_size; the point-to-point link adds its 2-byte PPP header), SACK with RFC 6675
recovery (TcpClassicRecovery, not ns-3's default PRR), no delayed ACKs, initial window 2,
min RTO 200 ms, RTO granularity 10 ms, initial RTO 3 s, no initial ssthresh (ns-3's
default, infinite), limited transmit, 16-MiB socket buffers (window scaling on), pacing
only where the algorithm asks for it (TcpBbr).

The bottleneck's queue discipline sits only on r1's bottleneck device, whose device
queue holds one packet; every other device has its default queue disc (FqCoDel, installed
by address assignment) removed and a DropTail device queue of cclab's resolved buffer
(550 packets on the access links, the bottleneck's on r2→r1, which carries only ACKs).
cclab's `buffer` B counts the packet in transmission; a backlogged ns-3 bottleneck holds
one in transmission, one in the device queue and the rest in the disc, so the disc's
limit is B − 2 (the same total).

Queueing delay, two readings (after the warm-up):
- ``queue_delay_ms``: from entering the disc to the start of transmission on the wire
  (PhyTxBegin), over the packets whose transmission starts in the window: cclab's
  definition (`mean_queue_delay_ms`: the wait before transmission starts);
- ``sojourn_ms``: the disc's SojournTime trace (disc only; it misses the wait in the
  one-packet device queue, one transmission time, 0.83 ms, when backlogged).
Also: drops (by reason) and ECN marks at the disc, link utilisation, and the senders'
timeouts, fast recoveries and retransmissions in the window (before it, per flow:
``warmup_*``), bytes in flight at each timeout, and each flow's smallest data RTT
sample (Vegas's baseRTT).
"""
from __future__ import annotations

import argparse
import json
import sys

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--cc", required=True, choices=["cubic", "bbr", "vegas", "reno", "dctcp", "highspeed", "scalable", "bic",
                                                   "htcp", "hybla", "veno", "illinois", "yeah", "ledbat", "lp"])
parser.add_argument("--queue", required=True, choices=["fifo", "codel", "fq_codel", "pie", "step_mark"])
parser.add_argument("--buffer", type=int, required=True, help="cclab's buffer in packets (counting the one in transmission)")
parser.add_argument("--threshold", type=int, default=20, help="step_mark: cclab's K (mark above K packets, the one in transmission included)")
parser.add_argument("--seed", type=int, nargs="+", default=[1], help="one or more seeds: one JSON line each (a batch saves the 12-s import per run; results are those of separate runs)")
parser.add_argument("--duration", type=float, default=60.0)
parser.add_argument("--warmup", type=float, default=10.0)
parser.add_argument("--flows", type=int, default=4)
parser.add_argument("--start-window", type=float, default=1.0)
parser.add_argument("--starts", nargs="+", default=None,
                    help="the flows' start times, one comma-separated list per seed (default: uniform in [0, --start-window))")
parser.add_argument("--access-buffer", type=int, default=550, help="device queue of the access links (cclab: 1 BDP of 100 Mb/s x 44 ms)")
args = parser.parse_args()

from ns import ns  # noqa: E402  (12 s and ~650 MB: after the arguments are checked)
import cppyy  # noqa: E402
from dumbbell_ns3 import address_and_route  # noqa: E402  (beside this script)

# The probes are C++: ns-3 trace sources take ns3::Callback, and a C++ callback costs
# nothing per packet where a Python one would.
cppyy.cppdef(r"""
#include <map>
#include <vector>
#include <string>
#include <unordered_map>
namespace modernbench {
using namespace ns3;
struct Probe {
    double since = 0;                // measure from this time (s)
    std::unordered_map<uint64_t, int64_t> entered;  // packet uid -> disc enqueue time (ns)
    double waitSum = 0; uint64_t waitCount = 0;     // disc enqueue -> transmission start
    double sojournSum = 0; uint64_t sojournCount = 0;
    uint64_t drops = 0, marks = 0, deviceDrops = 0, transmitted = 0, transmittedBytes = 0;
    std::map<std::string, uint64_t> dropReasons;
    bool on() const { return Simulator::Now().GetSeconds() >= since; }
    void Enqueue(Ptr<const QueueDiscItem> item) { entered[item->GetPacket()->GetUid()] = Simulator::Now().GetNanoSeconds(); }
    void TxBegin(Ptr<const Packet> p) {
        auto it = entered.find(p->GetUid());
        if (it == entered.end()) return;
        if (on()) {
            waitSum += (Simulator::Now().GetNanoSeconds() - it->second) * 1e-9;
            ++waitCount; ++transmitted; transmittedBytes += p->GetSize();
        }
        entered.erase(it);
    }
    void Sojourn(Time t) { if (on()) { sojournSum += t.GetSeconds(); ++sojournCount; } }
    void DropBefore(Ptr<const QueueDiscItem> item, const char* reason) {
        entered.erase(item->GetPacket()->GetUid());
        if (on()) { ++drops; ++dropReasons[std::string("before enqueue: ") + reason]; }
    }
    void DropAfter(Ptr<const QueueDiscItem> item, const char* reason) {
        entered.erase(item->GetPacket()->GetUid());
        if (on()) { ++drops; ++dropReasons[std::string("after dequeue: ") + reason]; }
    }
    void Mark(Ptr<const QueueDiscItem>, const char*) { if (on()) ++marks; }
    void DeviceDrop(Ptr<const Packet>) { if (on()) ++deviceDrops; }
    // the senders' TCP: entries into loss (timeouts) and recovery, retransmissions
    uint64_t timeouts = 0, recoveries = 0, retransmissions = 0;
    std::vector<uint32_t> inFlight;   // each sender's bytes in flight, as last traced
    double inFlightAtTimeouts = 0;    // summed over timeouts, in segments (before the RTO)
    void InFlight(uint32_t flow, uint32_t, uint32_t now) { inFlight[flow] = now; }
    std::vector<uint32_t> warmupRecoveries, warmupTimeouts;  // per flow, before the window
    void CongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
        if (!on()) {
            warmupTimeouts[flow] += now == TcpSocketState::CA_LOSS;
            warmupRecoveries[flow] += now == TcpSocketState::CA_RECOVERY;
            return;
        }
        if (now == TcpSocketState::CA_LOSS) { ++timeouts; inFlightAtTimeouts += inFlight[flow] / 1000.0; }
        if (now == TcpSocketState::CA_RECOVERY) ++recoveries;
    }
    void Retransmission(Ptr<const Packet>, const TcpHeader&, const Address&, const Address&, Ptr<const TcpSocketBase>) {
        if (on()) ++retransmissions;
    }
};
// each sender's smallest RTT sample of data (Vegas's baseRTT; BBR's min RTT before expiry)
struct MinRtt {
    std::vector<double> min, at;  // the smallest sample and when it came (s)
    std::vector<uint32_t> count;
    void Sample(uint32_t flow, Time, Time rtt) {
        // the first is the handshake's (a 40-odd-byte SYN: no data serialisation), which
        // ns-3's congestion controls do not see
        if (++count[flow] == 1) return;
        if (rtt.IsStrictlyPositive() && rtt.GetSeconds() < min[flow]) {
            min[flow] = rtt.GetSeconds();
            at[flow] = Simulator::Now().GetSeconds();
        }
    }
    void Connect(uint32_t flow) {
        Config::ConnectWithoutContext("/NodeList/" + std::to_string(flow) + "/$ns3::TcpL4Protocol/SocketList/*/LastRTT",
                                      MakeCallback(&MinRtt::Sample, this).Bind(flow));
    }
};
// flow i's socket exists once its BulkSend has started (node i is its source)
void ConnectMinRtt(MinRtt* m, uint32_t flow, double start) {
    if (m->min.size() <= flow) {
        m->min.resize(flow + 1, 1e9); m->at.resize(flow + 1, -1); m->count.resize(flow + 1, 0);
    }
    Simulator::Schedule(Seconds(start + 1e-9), &MinRtt::Connect, m, flow);
}
// flow i's socket exists once its BulkSend has started (node i is its source)
void ConnectSender(Probe* probe, uint32_t flow) {
    std::string base = "/NodeList/" + std::to_string(flow) + "/$ns3::TcpL4Protocol/SocketList/*/";
    Config::ConnectWithoutContext(base + "CongState", MakeCallback(&Probe::CongState, probe).Bind(flow));
    Config::ConnectWithoutContext(base + "BytesInFlight", MakeCallback(&Probe::InFlight, probe).Bind(flow));
    Config::ConnectWithoutContext(base + "Retransmission", MakeCallback(&Probe::Retransmission, probe));
}
void ConnectSenders(Probe* probe, const std::vector<double>& starts) {
    probe->inFlight.assign(starts.size(), 0);
    probe->warmupRecoveries.assign(starts.size(), 0);
    probe->warmupTimeouts.assign(starts.size(), 0);
    for (uint32_t i = 0; i < starts.size(); ++i)
        Simulator::Schedule(Seconds(starts[i] + 1e-9), &ConnectSender, probe, i);
}
void Connect(Probe* probe, Ptr<QueueDisc> disc, Ptr<NetDevice> device) {
    disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&Probe::Enqueue, probe));
    disc->TraceConnectWithoutContext("SojournTime", MakeCallback(&Probe::Sojourn, probe));
    disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Probe::DropBefore, probe));
    disc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Probe::DropAfter, probe));
    disc->TraceConnectWithoutContext("Mark", MakeCallback(&Probe::Mark, probe));
    device->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Probe::TxBegin, probe));
    device->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&Probe::DeviceDrop, probe));
    device->TraceConnectWithoutContext("PhyTxDrop", MakeCallback(&Probe::DeviceDrop, probe));
}
}
""")

CLASSES = {"cubic": "ns3::TcpCubic", "bbr": "ns3::TcpBbr", "vegas": "ns3::TcpVegas", "reno": "ns3::TcpNewReno",
           "dctcp": "ns3::TcpDctcp", "highspeed": "ns3::TcpHighSpeed", "scalable": "ns3::TcpScalable", "bic": "ns3::TcpBic",
           "htcp": "ns3::TcpHtcp", "hybla": "ns3::TcpHybla", "veno": "ns3::TcpVeno", "illinois": "ns3::TcpIllinois",
           "yeah": "ns3::TcpYeah", "ledbat": "ns3::TcpLedbat", "lp": "ns3::TcpLp"}
# TcpLedbat and TcpLp measure one-way delays from TCP timestamps (without them they run
# NewReno's increase throughout): their runs carry timestamps, 12 more bytes a packet.
TIMESTAMPS = args.cc in ("ledbat", "lp")

d = ns.Config.SetDefault
d("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(CLASSES[args.cc])))
d("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))
d("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1000))
d("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
d("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
d("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
d("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
d("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(3)))
d("ns3::TcpSocket::DataRetries", ns.UintegerValue(1000))
d("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(TIMESTAMPS))
d("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
d("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))
d("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.MilliSeconds(10)))
d("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(True))
d("ns3::TcpSocketBase::ReTxThreshold", ns.UintegerValue(3))
d("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(3)))


def run(seed: int, given_starts: list[float] | None) -> dict:
    """One run; in a batch each starts from the state a fresh process has."""
    # ns-3's documented way to get independent replications: one seed, run number varied
    # (with run 1 fixed, seeds 1 and 2 give related streams: u₂ = 2u₁ mod 1 here).
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    ns.RngSeedManager.ResetNextStreamIndex()
    ns.Ipv4AddressGenerator.Reset()
    n = args.flows
    nodes = ns.NodeContainer()
    nodes.Create(2 * n + 2)
    R1, R2 = 2 * n, 2 * n + 1  # sources 0..n-1, sinks n..2n-1
    link = ns.PointToPointHelper()

    def connect(a, b, rate, delay, queue_packets):
        link.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        link.SetChannelAttribute("Delay", ns.StringValue(delay))
        link.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{queue_packets}p")))
        return link.Install(nodes.Get(a), nodes.Get(b))

    sources = [connect(i, R1, "100Mbps", "1ms", args.access_buffer) for i in range(n)]
    bottleneck = connect(R1, R2, "10Mbps", "20ms", args.buffer)
    sinks = [connect(R2, n + i, "100Mbps", "1ms", args.access_buffer) for i in range(n)]
    # r1's bottleneck device: a one-packet device queue, so the disc holds the queue
    bottleneck.Get(0).GetQueue().SetMaxSize(ns.QueueSize("1p"))

    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    # Address assignment installs FqCoDel on every device: none anywhere...
    sink_addresses = address_and_route(ns, sources, bottleneck, sinks)

    # ...but the bottleneck's discipline on r1 → r2.
    limit = args.buffer - 2
    tch = ns.TrafficControlHelper()
    root = tch.SetRootQueueDisc
    if args.queue == "fifo":
        root("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")))
    elif args.queue == "codel":
        # cclab: RFC 8289 target 5 ms, interval 100 ms, ECN off, limit in packets, MTU 1500
        # as maxpacket. ns-3: MaxSize in bytes by default (1500 × 1000), MinBytes 1500.
        root("ns3::CoDelQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")),
             "Target", ns.StringValue("5ms"), "Interval", ns.StringValue("100ms"), "UseEcn", ns.BooleanValue(False),
             "MinBytes", ns.UintegerValue(1500), "UseL4s", ns.BooleanValue(False))
    elif args.queue == "fq_codel":
        # cclab: 1024 flows, quantum 1514, ECN on (the flows are not ECN-capable), target/interval
        # 5/100 ms. ns-3 takes the quantum from the device MTU + header unless it is set.
        root("ns3::FqCoDelQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")),
             "Flows", ns.UintegerValue(1024), "Target", ns.StringValue("5ms"), "Interval", ns.StringValue("100ms"),
             "UseEcn", ns.BooleanValue(True), "UseL4s", ns.BooleanValue(False))
    elif args.queue == "pie":
        # cclab: RFC 8033 target 15 ms, tupdate 15 ms, α 0.125, β 1.25, burst 150 ms, ECN off.
        root("ns3::PieQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")),
             "QueueDelayReference", ns.TimeValue(ns.MilliSeconds(15)), "Tupdate", ns.TimeValue(ns.MilliSeconds(15)),
             "A", ns.DoubleValue(0.125), "B", ns.DoubleValue(1.25), "MaxBurstAllowance", ns.TimeValue(ns.MilliSeconds(150)),
             "UseEcn", ns.BooleanValue(False), "MeanPktSize", ns.UintegerValue(1040),
             "UseDequeueRateEstimator", ns.BooleanValue(False), "UseDerandomization", ns.BooleanValue(False),
             "UseCapDropAdjustment", ns.BooleanValue(True))
    else:  # step_mark: DCTCP's switch as RED on the instantaneous queue, marking, never dropping early
        # cclab marks an ECN-capable arrival finding more than K packets (the one in
        # transmission included); RED here sees only the disc (K − 1 packets more: the one in
        # the device queue and the one on the wire), and marks at qAvg ≥ MaxTh: MinTh = MaxTh
        # = K − 1. Gentle off: with ns-3's default (Gentle on) MinTh = MaxTh is a ramp of
        # probabilistic marks up to 2·MaxTh, not a step.
        k = args.threshold - 1
        root("ns3::RedQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")),
             "UseEcn", ns.BooleanValue(True), "UseHardDrop", ns.BooleanValue(False), "Gentle", ns.BooleanValue(False),
             "MinTh", ns.DoubleValue(k), "MaxTh", ns.DoubleValue(k), "QW", ns.DoubleValue(1.0),
             "MeanPktSize", ns.UintegerValue(1040), "LinkBandwidth", ns.DataRateValue(ns.DataRate("10Mbps")),
             "LinkDelay", ns.TimeValue(ns.MilliSeconds(20)))
    discs = tch.Install(bottleneck.Get(0))
    disc = discs.Get(0)
    if args.queue == "fq_codel":
        disc.SetQuantum(1514)

    probe = cppyy.gbl.modernbench.Probe()
    probe.__python_owns__ = False
    probe.since = args.warmup
    cppyy.gbl.modernbench.Connect(probe, disc, bottleneck.Get(0))

    port = 5000
    start = ns.CreateObject[ns.UniformRandomVariable]()
    start.SetStream(1)
    sink_apps = []
    starts = []
    for i in range(n):
        sender = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(sink_addresses[i], port).ConvertTo())
        sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
        sender.SetAttribute("SendSize", ns.UintegerValue(1000))
        at = given_starts[i] if given_starts else start.GetValue(0.0, args.start_window)
        starts.append(at)
        sender.Install(nodes.Get(i)).Start(ns.Seconds(at))
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        apps = sink.Install(nodes.Get(n + i))
        apps.Start(ns.Seconds(0.0))
        sink_apps.append(ns.DynamicCast[ns.PacketSink](apps.Get(0)))

    # the senders' TCP state and each one's smallest RTT sample (LastRTT), from its start
    start_vector = cppyy.gbl.std.vector["double"](starts)
    cppyy.gbl.modernbench.ConnectSenders(probe, start_vector)
    min_rtt = cppyy.gbl.modernbench.MinRtt()
    min_rtt.__python_owns__ = False
    for i, at in enumerate(starts):
        cppyy.gbl.modernbench.ConnectMinRtt(min_rtt, i, at)

    # Run to the end of the warm-up, read the sinks, run on.
    ns.Simulator.Stop(ns.Seconds(args.warmup))
    ns.Simulator.Run()
    before = [sink.GetTotalRx() for sink in sink_apps]
    ns.Simulator.Stop(ns.Seconds(args.duration - args.warmup))
    ns.Simulator.Run()
    after = [sink.GetTotalRx() for sink in sink_apps]
    events = ns.Simulator.GetEventCount()
    stats = disc.GetStats()
    whole_run = {"dropped": int(stats.nTotalDroppedPackets), "marked": int(stats.nTotalMarkedPackets)}
    ns.Simulator.Destroy()

    span = args.duration - args.warmup
    goodputs = [(b - a) * 8 / span / 1e6 for a, b in zip(before, after)]
    return {
        "simulator": "ns-3.44", "cc": args.cc, "queue": args.queue, "buffer": args.buffer, "seed": seed,
        "duration_s": args.duration, "warmup_s": args.warmup, "starts_s": starts,
        "flow_goodput_mbps": goodputs, "goodput_mbps": sum(goodputs),
        "queue_delay_ms": probe.waitSum / probe.waitCount * 1e3 if probe.waitCount else 0.0,
        "sojourn_ms": probe.sojournSum / probe.sojournCount * 1e3 if probe.sojournCount else 0.0,
        "transmitted": int(probe.transmitted),
        # wire bytes (the 2-byte PPP header included) over the bottleneck's capacity
        "utilization": probe.transmittedBytes * 8 / (10e6 * span),
        "drops": int(probe.drops), "drop_reasons": {str(k): int(v) for k, v in probe.dropReasons},
        "marks": int(probe.marks), "device_drops": int(probe.deviceDrops),
        "timeouts": int(probe.timeouts), "fast_recoveries": int(probe.recoveries),
        "retransmitted_packets": int(probe.retransmissions),
        "warmup_fast_recoveries": [int(x) for x in probe.warmupRecoveries],
        "warmup_timeouts": [int(x) for x in probe.warmupTimeouts],
        "in_flight_at_timeout": probe.inFlightAtTimeouts / probe.timeouts if probe.timeouts else 0.0,
        "min_rtt_ms": [float(x) * 1e3 for x in min_rtt.min], "min_rtt_at_s": [float(x) for x in min_rtt.at],
        "disc_stats_whole_run": whole_run,
        "events": int(events),
    }


if args.starts and len(args.starts) != len(args.seed):
    sys.exit("--starts needs one list per seed")
for index, seed in enumerate(args.seed):
    given = [float(x) for x in args.starts[index].split(",")] if args.starts else None
    if given and len(given) != args.flows:
        sys.exit(f"--starts: {len(given)} times for {args.flows} flows")
    print(json.dumps(run(seed, given)), flush=True)
