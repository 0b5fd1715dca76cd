"""What both ns-3 drivers (fct_ns3.py, modern_ns3.py) do to a dumbbell once its links
are installed: IPv4 addresses (one /24 per link, sources, bottleneck, sinks in that
order), no traffic-control discipline on any device (address assignment installs
FqCoDel everywhere; a driver adds the bottleneck's own afterwards), global routes.
Returns each sink's address. Imported by the drivers, which run in the ns-3 venv."""
from __future__ import annotations


def address_and_route(ns, sources: list, bottleneck, sinks: list) -> list:
    n = len(sources)
    address = ns.Ipv4AddressHelper()
    sink_addresses = []
    for index, devices in enumerate(sources + [bottleneck] + sinks):
        address.SetBase(ns.Ipv4Address(f"10.{index // 250}.{index % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        interfaces = address.Assign(devices)
        if index > n:
            sink_addresses.append(interfaces.GetAddress(1))
    for devices in sources + [bottleneck] + sinks:
        ns.TrafficControlHelper().Uninstall(devices)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    return sink_addresses
