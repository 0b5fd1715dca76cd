"""The Westwood paper's experiments as cclab scenarios.

What the paper fixes: ns-2, TCPW with NewReno recovery (so every protocol here runs
``recovery = "newreno"``, and cclab's ``profile = "ns2"``: ns-2.35's clock, windows and
Newreno agent), 1000-byte packets (§4.3.1: on a 1040-byte wire the 5 Mb/s, 70 ms pipe is
42 packets), the bottleneck rates and RTTs of each figure, Fig. 17's wired/wireless path,
Fig. 16's buffers (100–1600 packets, pipe = 400). BE is UCLA's ns-2 agent, which made the
paper's BE results (``westwood-be`` with ``profile = "ucla"``: Agent/TCP/WestwoodNR v1.3,
checked against that agent in ns-2.35, ``bench/ns2/westwood_ucla.md``); "BE (Eq. 1)" is
the equation as printed, shown beside it.

What it leaves open, and our choice (the summary repeats these):

* run length: 100 s (Figs. 19–21: 200 s, the join at 100 s); quick mode 40 s (Fig. 21:
  80 s, the join at 40 s);
* dumbbell access links 100 Mb/s, 1 ms each side; the bottleneck delay makes up the rest
  of the one-way delay (70 ms RTT → 33 ms);
* "buffer = pipe": 42 packets at 5 Mb/s, 84 at 10 Mb/s (rate × 70 ms / 1040 bytes);
* flows start at random times within the first second; no delayed ACKs (ns-2's TCPSink);
* the 1 % and 0.5 % "random packet error" are Bernoulli drops of data packets at the head
  of the bottleneck; Fig. 18's errors sit on the wireless hop's data direction;
* Fig. 18: one flow, each hop's buffer one bandwidth-delay product (cclab "1bdp");
* estimates are reported in Mb/s on the wire (segments/s × 1040 bytes × 8), so a fair
  share is the link rate over the flow count, as in the paper's figures.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from cclab.papers import summary


PACKET_SIZE = 1000
WIRE_BYTES = 1040
ACCESS = {"rate": "100Mbps", "delay": "1ms"}
# The TCP rules every protocol runs by: ns-2.35's (the paper's simulator).
PROFILE = "ns2"

# (label, cc): every protocol runs NewReno recovery, as the paper's TCPW did.
NEWRENO = ("NewReno", "reno")
BE = ("BE", {"algorithm": "westwood-be", "profile": "ucla"})
# BE as Eq. 1 prints it (cclab's default BE), not the agent the paper ran.
BE_EQ1 = ("BE (Eq. 1)", {"algorithm": "westwood-be"})
RE = ("RE", {"algorithm": "westwood-re"})
CRB = ("CRB", {"algorithm": "westwood-crb"})
ABSE = ("ABSE", {"algorithm": "westwood-abse"})


def pipe_packets(rate_mbps: float, rtt_s: float = 0.070) -> int:
    """The bandwidth-delay product in 1040-byte packets (5 Mb/s, 70 ms → 42)."""
    return int(rate_mbps * 1e6 * rtt_s / (WIRE_BYTES * 8))


def group(protocol: tuple, count: int, name: Optional[str] = None, **extra) -> dict:
    label, cc = protocol
    flows = {"group": name or label, "count": count, "cc": cc if isinstance(cc, str) else dict(cc),
             "tcp": {"recovery": "newreno"}, "start": {"random": "1s"}}
    flows.update(extra)
    return flows


def dumbbell(groups: list[dict], rate: str, buffer, rtt_ms: float = 70, loss: float = 0.0,
             duration_s: float = 100, seed: int = 1, trace: bool = False, name: str = "",
             profile: str = PROFILE) -> dict:
    """``groups`` over one bottleneck of ``rate`` with a ``rtt_ms`` base RTT."""
    bottleneck = {"rate": rate, "delay": f"{rtt_ms / 2 - 2:g}ms", "buffer": buffer}
    if loss:
        bottleneck["loss"] = {"model": "bernoulli", "rate": loss}
    scenario = {
        "name": name or f"westwood {'+'.join(g['group'] for g in groups)} {rate} buffer {buffer}"
                        + (f" loss {loss:g}" if loss else ""),
        "duration": f"{duration_s:g}s", "seed": seed, "packet_size": f"{PACKET_SIZE}B", "profile": profile,
        "topology": {"kind": "dumbbell", "bottleneck": bottleneck, "source_access": dict(ACCESS),
                     "sink_access": dict(ACCESS)},
        "flows": groups,
    }
    if trace:
        scenario["trace"] = {"flows": True}
    return scenario


def estimates(protocol: tuple, case: str, **kw) -> dict:
    """Figs. 2, 3, 5: 5 Mb/s, 70 ms, buffer = pipe; "congestion": 2 flows, "loss": 1 flow
    with 1 % random packet errors."""
    if case == "congestion":
        return dumbbell([group(protocol, 2)], "5Mbps", pipe_packets(5), trace=True, **kw)
    return dumbbell([group(protocol, 1)], "5Mbps", pipe_packets(5), loss=0.01, trace=True, **kw)


def single_flow_buffer(protocol: tuple, buffer: int, **kw) -> dict:
    """Figs. 12–15: one flow, 5 Mb/s, 70 ms, the buffer varied."""
    return dumbbell([group(protocol, 1)], "5Mbps", buffer, **kw)


def many_flows_buffer(protocol: tuple, buffer: int, **kw) -> dict:
    """Fig. 16: 10 flows, 45 Mb/s, 70 ms, the buffer varied (pipe = 400 packets)."""
    return dumbbell([group(protocol, 10)], "45Mbps", buffer, **kw)


def wired_wireless(protocol: tuple, loss: float, duration_s: float = 100, seed: int = 1, profile: str = PROFILE,
                   trace: bool = False) -> dict:
    """Fig. 18: one flow over Fig. 17's path, random errors on the wireless hop."""
    wireless = {"loss": {"model": "bernoulli", "rate": loss}} if loss else {}
    scenario = {
        "name": f"westwood {protocol[0]} wired-wireless loss {loss:g}", "duration": f"{duration_s:g}s",
        "seed": seed, "packet_size": f"{PACKET_SIZE}B", "profile": profile,
        "topology": {"kind": "wired-wireless", "wireless": wireless},
        "flows": [group(protocol, 1)],
    }
    if trace:
        scenario["trace"] = {"flows": True}
    return scenario


def mixed(groups: list[dict], **kw) -> dict:
    """Figs. 19–21: 10 Mb/s, 35 ms one way, buffer = pipe (84 packets)."""
    return dumbbell(groups, "10Mbps", pipe_packets(10), **kw)


def two_way(protocol: tuple, loss: float, duration_s: float = 60, seed: int = 1, reverse=(20.0, 40.0)) -> dict:
    """Figs. 9–10: one forward flow on 10 Mb/s (70 ms, buffer = pipe), one reverse flow of
    the same protocol active from 20 to 40 s; random errors (if any) on the forward data."""
    start, stop = reverse
    forward = group(protocol, 1, name="forward")
    backward = group(protocol, 1, name="reverse", direction="reverse", start=f"{start:g}s", stop=f"{stop:g}s")
    return dumbbell([forward, backward], "10Mbps", pipe_packets(10), loss=loss, duration_s=duration_s, seed=seed,
                    trace=True)


def cross_traffic(protocol: tuple, duration_s: float = 60, seed: int = 1) -> dict:
    """Fig. 11: one TCPW flow over 4 hops of 20, 10, 20, 30 Mb/s (n0 → n4); 5 Mb/s UDP CBR
    on hop 3 (n2 → n3) from 20 s and on hop 4 (n3 → n4) from 40 s. Our choices: 8.75 ms
    per hop (a 70 ms RTT, as elsewhere in the paper), one-BDP buffers, each UDP flow
    leaves the path after its hop."""
    hops = [{"rate": rate, "delay": "8.75ms"} for rate in ("20Mbps", "10Mbps", "20Mbps", "30Mbps")]
    tcp = group(protocol, 1, name="tcp", **{"from": "n0", "to": "n4"})
    udp = [{"group": f"udp hop {hop + 1}", "transport": "udp", "from": f"n{hop}", "to": f"n{hop + 1}",
            "app": {"kind": "cbr", "rate": "5Mbps"}, "start": f"{start:g}s"} for hop, start in ((2, 20.0), (3, 40.0))]
    return {"name": f"westwood {protocol[0]} 4-hop cross traffic", "duration": f"{duration_s:g}s", "seed": seed,
            "packet_size": f"{PACKET_SIZE}B", "profile": PROFILE, "topology": {"kind": "chain", "hops": hops},
            "flows": [tcp, *udp], "trace": {"flows": True}}


# Fig. 7's on/off UDP (the paper: "on-off non-adaptive UDP traffic with time varying
# intensity", no pattern given; ours): (start s, stop s, CBR rate on the wire).
ONOFF_UDP = ((20.0, 40.0, "2Mbps"), (60.0, 80.0, "3.5Mbps"))


def adaptive_tau(protocol: tuple, duration_s: float = 100, seed: int = 1) -> dict:
    """Fig. 7: one TCPW flow on 5 Mb/s, 35 ms one way, buffer = pipe (42), sharing the
    bottleneck with non-adaptive UDP CBR switched on and off (:data:`ONOFF_UDP`): the
    bandwidth left to TCP steps 5 → 3 → 5 → 1.5 → 5 Mb/s."""
    udp = [{"group": f"udp {rate} {start:g}-{stop:g} s", "transport": "udp", "app": {"kind": "cbr", "rate": rate},
            "start": f"{start:g}s", "stop": f"{stop:g}s"} for start, stop, rate in ONOFF_UDP]
    return dumbbell([group(protocol, 1, name="tcp", start="0s"), *udp], "5Mbps", pipe_packets(5),
                    duration_s=duration_s, seed=seed, trace=True,
                    name=f"westwood {protocol[0]} on/off UDP cross traffic")


def paper_scenarios() -> dict[str, tuple[str, dict]]:
    return {
        "fig02_estimates": ("Figures 2, 3 and 5: two TCPW BE flows on 5 Mb/s, 70 ms, buffer = pipe (42); the figure "
                            "also runs RE and ABSE, and one flow with 1 % random errors.", estimates(BE, "congestion")),
        "fig07_adaptive_tau": ("Figure 7: ABSE's adaptive τ_k (T_k the last ACK pair) on 5 Mb/s, 70 ms, buffer = "
                               "pipe, with on/off UDP CBR: 2 Mb/s from 20 to 40 s, 3.5 Mb/s from 60 to 80 s (our "
                               "pattern: the paper gives none).",
                               adaptive_tau(("ABSE τ_k", {"algorithm": "westwood-abse", "sampling": "ack_pair"}))),
        "fig09_two_way": ("Figures 9–10: a TCPW BE flow on 10 Mb/s, a reverse BE flow from 20 to 40 s (ACK "
                          "compression).", two_way(BE, 0.0)),
        "fig11_cross_traffic": ("Figure 11: a TCPW BE flow over 4 hops (20, 10, 20, 30 Mb/s), 5 Mb/s UDP on hop 3 "
                                "from 20 s and on hop 4 from 40 s (data packet compression).", cross_traffic(BE)),
        "fig12_buffer": ("Figures 12–15: one flow, 5 Mb/s, 70 ms; the figure varies the buffer (4 here).",
                         single_flow_buffer(ABSE, 4)),
        "fig16_many_flows": ("Figure 16: 10 flows, 45 Mb/s, 70 ms; the figure varies the buffer (100–1600).",
                             many_flows_buffer(ABSE, 100)),
        "fig18_wired_wireless": ("Figure 18: one flow over the wired/wireless path (Fig. 17) with 1 % errors on "
                                 "the wireless hop; the figure varies the error rate.", wired_wireless(ABSE, 0.01)),
        "fig20_friendliness": ("Figure 20: 5 NewReno and 5 ABSE flows on 10 Mb/s, 70 ms, buffer = pipe.",
                               mixed([group(NEWRENO, 5), group(ABSE, 5)])),
    }


def write_scenario_files(directory) -> list[Path]:
    return summary.write_scenario_files(directory, "westwood", "Wang, Valla, Sanadidi & Gerla, TCP Westwood ABSE (ICNP 2002)", paper_scenarios())
