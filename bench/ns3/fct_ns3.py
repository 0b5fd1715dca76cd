#!/usr/bin/env python3
"""Flow completion times in ns-3.44 (pip install ns3==3.44.post0 in its own virtualenv) for
fct_compare.py's dumbbell: one BulkSend per flow, started on a given schedule.

    /work/ns3-venv/bin/python bench/ns3/fct_ns3.py flows.json > ns3.json

``flows.json`` (fct_compare.py writes it from a cclab run) holds the set-up and the flows:

    {"pairs": 4, "duration_s": 40, "packet_size": 1000,
     "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": 50},
     "access": {"rate": "100Mbps", "delay": "1ms", "buffer": 1000},
     "tcp": {"sack": true, "initial_window": 10, "min_rto_ms": 200, "initial_rto_ms": 1000,
             "granularity_ms": 10, "delayed_ack": false},
     "flows": [{"start_s": 0.078, "size_bytes": 66000, "pair": 0}, ...],
     "pcap": "/tmp/fct"}    # optional: the bottleneck's pcaps, PREFIX-<node>-<device>.pcap

Topology: ``pairs`` sources —access— r1 —bottleneck— r2 —access— ``pairs`` sinks, each
link a point-to-point link in both directions. Flow k runs from source ``pair`` to sink
``pair`` (fct_compare.py uses cclab's rule, pair = k mod pairs): a BulkSendApplication
with MaxBytes = size_bytes and SendSize = packet_size, started at start_s (its SYN leaves
then), to its own PacketSink (port 10000 + k). Its completion time is the moment the sink
application has received size_bytes, minus start_s (a C++ callback on the sink's Rx trace).

Queues: no queue discs (the FqCoDel that address assignment installs is removed from
every device); each device's DropTail queue holds buffer − 1 packets. A point-to-point
device takes the packet it transmits out of its queue, so at most ``buffer`` packets are
at a link, the one in transmission included: cclab's buffer. (A full device queue stops
its NetDeviceQueue, and traffic control drops the next packet: the TcDrop trace.)

TCP: TcpNewReno, segments of packet_size bytes without timestamps (20 + 20 bytes of
IP/TCP headers: cclab's 40-byte header_size; the link adds a 2-byte PPP header), SACK on
or off with RFC 6675-style recovery (TcpClassicRecovery, not ns-3's default PRR), the
given initial window, min RTO, RTO clock granularity, initial RTO (RttEstimator
InitialEstimation) and SYN retransmission timeout (ConnTimeout, set to the same), one ACK
per segment unless delayed_ack, limited transmit, dupthresh 3, 16-MiB socket buffers.
Nagle is off (ns-3's default). The three-way handshake is ns-3's own.

Prints one JSON object: per-flow completion (fct_ms, null if unfinished), each flow's
timeouts (entries into CA_LOSS), fast recoveries and retransmitted segments, the SYN
retransmissions, and drops at the bottleneck (r1's traffic-control drops, with its device
queue stopped when full) and elsewhere.
"""
from __future__ import annotations

import json
import sys

if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
    sys.exit(__doc__)
spec = json.load(open(sys.argv[1]) if sys.argv[1] != "-" else sys.stdin)

from ns import ns  # noqa: E402  (about 12 s: after the input is read)
import cppyy  # noqa: E402
from dumbbell_ns3 import address_and_route  # noqa: E402  (beside this script)

cppyy.cppdef(r"""
#include <vector>
namespace fctbench {
using namespace ns3;
struct Flows {
    std::vector<uint64_t> target, received;
    std::vector<double> done;                                  // completion time (s), -1 until then
    std::vector<uint32_t> timeouts, recoveries, retransmissions, synRetx;
    uint64_t r1Drops = 0, otherDrops = 0;  // traffic control's drops at a stopped device queue
    void R1Drop(Ptr<const Packet>) { ++r1Drops; }
    void OtherDrop(Ptr<const Packet>) { ++otherDrops; }
    void Add(uint64_t bytes) {
        target.push_back(bytes); received.push_back(0); done.push_back(-1);
        timeouts.push_back(0); recoveries.push_back(0); retransmissions.push_back(0); synRetx.push_back(0);
    }
    void Rx(uint32_t flow, Ptr<const Packet> p, const Address&) {
        received[flow] += p->GetSize();
        if (done[flow] < 0 && received[flow] >= target[flow]) done[flow] = Simulator::Now().GetSeconds();
    }
    void CongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
        timeouts[flow] += now == TcpSocketState::CA_LOSS;
        recoveries[flow] += now == TcpSocketState::CA_RECOVERY;
    }
    void Retransmission(uint32_t flow, Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
                        Ptr<const TcpSocketBase>) { ++retransmissions[flow]; }
    void Tx(uint32_t flow, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
        // connected just after the first SYN left: these are retransmitted SYNs
        if (h.GetFlags() & TcpHeader::SYN) ++synRetx[flow];
    }
};
// a BulkSend's socket exists from its start (StartApplication creates and connects it)
void ConnectSender(Flows* f, Ptr<Application> app, uint32_t flow) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(DynamicCast<BulkSendApplication>(app)->GetSocket());
    s->TraceConnectWithoutContext("CongState", MakeCallback(&Flows::CongState, f).Bind(flow));
    s->TraceConnectWithoutContext("Retransmission", MakeCallback(&Flows::Retransmission, f).Bind(flow));
    s->TraceConnectWithoutContext("Tx", MakeCallback(&Flows::Tx, f).Bind(flow));
}
void Watch(Flows* f, Ptr<Application> app, uint32_t flow, double start) {
    // just after StartApplication (scheduled at start) has run, before the SYN can return
    Simulator::Schedule(Seconds(start) + NanoSeconds(1) - Simulator::Now(), &ConnectSender, f, app, flow);
}
void ConnectSink(Flows* f, Ptr<Application> sink, uint32_t flow) {
    sink->TraceConnectWithoutContext("Rx", MakeCallback(&Flows::Rx, f).Bind(flow));
}
// Without a queue disc, a full device queue stops its NetDeviceQueue and traffic control
// drops the next packet (its TcDrop trace); the device queue itself then never overflows.
bool ConnectDrops(Flows* f, Ptr<Node> node, bool r1) {
    return node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeCallback(r1 ? &Flows::R1Drop : &Flows::OtherDrop, f));
}
uint32_t Dropped(Ptr<NetDevice> device) {
    return DynamicCast<PointToPointNetDevice>(device)->GetQueue()->GetTotalDroppedPackets();
}
}
""")

tcp = spec["tcp"]
d = ns.Config.SetDefault
d("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpNewReno")))
d("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))
d("ns3::TcpSocket::SegmentSize", ns.UintegerValue(spec["packet_size"]))
d("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2 if tcp["delayed_ack"] else 1))
d("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.MilliSeconds(100)))
d("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(tcp["initial_window"]))
d("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
d("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
d("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.MilliSeconds(tcp["initial_rto_ms"])))
d("ns3::TcpSocket::DataRetries", ns.UintegerValue(1000))
d("ns3::TcpSocket::ConnCount", ns.UintegerValue(1000))
d("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
d("ns3::TcpSocketBase::Sack", ns.BooleanValue(tcp["sack"]))
d("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(tcp["min_rto_ms"])))
d("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.MilliSeconds(tcp["granularity_ms"])))
d("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(True))
d("ns3::TcpSocketBase::ReTxThreshold", ns.UintegerValue(3))
d("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.MilliSeconds(tcp["initial_rto_ms"])))

ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(1)
n = spec["pairs"]
nodes = ns.NodeContainer()
nodes.Create(2 * n + 2)
R1, R2 = 2 * n, 2 * n + 1  # sources 0..n-1, sinks n..2n-1
link = ns.PointToPointHelper()


def connect(a: int, b: int, kind: dict):
    link.SetDeviceAttribute("DataRate", ns.StringValue(kind["rate"]))
    link.SetChannelAttribute("Delay", ns.StringValue(kind["delay"]))
    # the device queue holds the waiting packets; the one on the wire is out of it
    link.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{kind['buffer'] - 1}p")))
    return link.Install(nodes.Get(a), nodes.Get(b))


sources = [connect(i, R1, spec["access"]) for i in range(n)]
bottleneck = connect(R1, R2, spec["bottleneck"])
sinks = [connect(R2, n + i, spec["access"]) for i in range(n)]
stack = ns.InternetStackHelper()
stack.Install(nodes)
sink_addresses = address_and_route(ns, sources, bottleneck, sinks)

flows = cppyy.gbl.fctbench.Flows()
flows.__python_owns__ = False

for i in range(2 * n + 2):  # on r1 only the bottleneck can fill (its other devices carry ACKs)
    if not cppyy.gbl.fctbench.ConnectDrops(flows, nodes.Get(i), i == R1):
        sys.exit("no TcDrop trace source")

for k, flow in enumerate(spec["flows"]):
    pair, port = flow["pair"], 10000 + k
    flows.Add(flow["size_bytes"])
    sender = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(sink_addresses[pair], port).ConvertTo())
    sender.SetAttribute("MaxBytes", ns.UintegerValue(flow["size_bytes"]))
    sender.SetAttribute("SendSize", ns.UintegerValue(spec["packet_size"]))
    app = sender.Install(nodes.Get(pair)).Get(0)
    app.SetStartTime(ns.Seconds(flow["start_s"]))
    cppyy.gbl.fctbench.Watch(flows, app, k, flow["start_s"])
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_app = sink.Install(nodes.Get(n + pair)).Get(0)
    sink_app.SetStartTime(ns.Seconds(0.0))
    cppyy.gbl.fctbench.ConnectSink(flows, sink_app, k)

if spec.get("pcap"):  # optional: libpcap files of the bottleneck's two devices, PREFIX-<node>-<device>.pcap
    link.EnablePcap(spec["pcap"], bottleneck, False)

ns.Simulator.Stop(ns.Seconds(spec["duration_s"]))
ns.Simulator.Run()
events = int(ns.Simulator.GetEventCount())
dropped = cppyy.gbl.fctbench.Dropped
bottleneck_drops = int(flows.r1Drops) + int(dropped(bottleneck.Get(0)))
other_drops = int(flows.otherDrops) + int(dropped(bottleneck.Get(1))) + sum(
    int(dropped(d.Get(j))) for d in sources + sinks for j in range(2))
rows = []
for k, flow in enumerate(spec["flows"]):
    done = float(flows.done[k])
    rows.append({"start_s": flow["start_s"], "size_bytes": flow["size_bytes"], "pair": flow["pair"],
                 "completed": done >= 0, "fct_ms": (done - flow["start_s"]) * 1e3 if done >= 0 else None,
                 "received_bytes": int(flows.received[k]), "timeouts": int(flows.timeouts[k]),
                 "fast_recoveries": int(flows.recoveries[k]), "retransmissions": int(flows.retransmissions[k]),
                 "syn_retransmissions": int(flows.synRetx[k])})
ns.Simulator.Destroy()
print(json.dumps({"simulator": "ns-3.44", "flows": rows, "bottleneck_drops": bottleneck_drops,
                  "other_drops": other_drops, "events": events}))
