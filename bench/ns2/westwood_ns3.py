#!/usr/bin/env python3
"""One run of westwood_compare.py's scenario in ns-3.44 (pip install ns3==3.44.post0):

    python bench/ns2/westwood_ns3.py ns3::TcpWestwoodPlus SEED DURATION

source —100 Mb/s, 1 ms— r1 —5 Mb/s, 33 ms, 44-packet DropTail— r2 —100 Mb/s, 1 ms— sink,
1 % of packets dropped by a RateErrorModel on the sink's receiving device (data only:
the ACKs go the other way), 1000-byte segments, ns-3's TCP defaults otherwise (SACK,
timestamps, delayed ACKs off here to match the others). Prints one JSON line.
"""
import json
import sys

from ns import ns

tcp_class, seed, duration = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ns.RngSeedManager.SetSeed(seed)
ns.RngSeedManager.SetRun(1)
ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(tcp_class))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1000))
ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))

nodes = ns.NodeContainer()
nodes.Create(4)  # source, r1, r2, sink
link = ns.PointToPointHelper()


def connect(a, b, rate, delay, queue_packets):
    link.SetDeviceAttribute("DataRate", ns.StringValue(rate))
    link.SetChannelAttribute("Delay", ns.StringValue(delay))
    link.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{queue_packets}p")))
    return link.Install(nodes.Get(a), nodes.Get(b))


access = connect(0, 1, "100Mbps", "1ms", 44)
bottleneck = connect(1, 2, "5Mbps", "33ms", 44)
egress = connect(2, 3, "100Mbps", "1ms", 44)
stack = ns.InternetStackHelper()
stack.Install(nodes)
address = ns.Ipv4AddressHelper()
interfaces = []
for index, devices in enumerate((access, bottleneck, egress)):
    address.SetBase(ns.Ipv4Address(f"10.0.{index}.0"), ns.Ipv4Mask("255.255.255.0"))
    interfaces.append(address.Assign(devices))
# No traffic-control queue in front of the device queues (address assignment installs
# one): the 44-packet DropTail device queue is the only buffer, as in ns-2 and cclab.
for devices in (access, bottleneck, egress):
    ns.TrafficControlHelper().Uninstall(devices)
ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

errors = ns.CreateObject[ns.RateErrorModel]()
errors.SetAttribute("ErrorRate", ns.DoubleValue(0.01))
errors.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
egress.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(errors))

port = 5000
sink_address = ns.InetSocketAddress(interfaces[2].GetAddress(1), port)
sender = ns.BulkSendHelper("ns3::TcpSocketFactory", sink_address.ConvertTo())
sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
sender.Install(nodes.Get(0)).Start(ns.Seconds(0.0))
sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
sink_apps = sink_helper.Install(nodes.Get(3))
sink_apps.Start(ns.Seconds(0.0))
ns.Simulator.Stop(ns.Seconds(duration))
ns.Simulator.Run()
received = ns.DynamicCast[ns.PacketSink](sink_apps.Get(0)).GetTotalRx()
ns.Simulator.Destroy()
print(json.dumps({"goodput_mbps": received * 8 / duration / 1e6, "retransmitted_packets": float("nan"),
                  "timeouts": float("nan")}))
