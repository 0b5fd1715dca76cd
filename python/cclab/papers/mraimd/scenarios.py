"""The paper's experiments as cclab scenarios.

What the paper fixes (§2, §4): a single-bottleneck dumbbell (its Figure 2), TCP-SACK,
RED at the bottleneck, 200 s runs; Table 1 on a 1 Mb/s, 20 ms bottleneck with a
25-packet buffer (wireless: 10 Mb/s plus a 0.3 packet error rate, PER); §4 on 48 Mb/s,
40 ms with a one-BDP buffer (wireless: 0.3 PER; mixed: 24 Mb/s).

What it leaves open, and our choice:

* access links: 100 Mb/s, 5 ms each side (RTT = 2·(bottleneck delay + 10 ms));
* 1000-byte payloads (+40 B headers): Table 1's 118.9 KB/s on 1 Mb/s is then 99 % of
  the 120.2 KB/s a 1 Mb/s link can carry, so KB = 1000 bytes;
* RED: ns-2.35's defaults (automatic min_th/max_th/w_q, gentle, max_p 0.1), thresholds in
  packets, marking ECN-capable packets;
* the PER sits at the head of the bottleneck, forward direction only (ns-2
  ``$ns lossmodel`` on R1→R2), Bernoulli per data packet;
* Table 1 uses standard, non-ECN TCP-SACK (ns-2's ``ecn_ 0`` default): RED drops.
  In §4 MR-AIMD is ECN-capable (it needs marks); "regular AIMD" is run both ways,
  without ECN (ns-2's default TCP-SACK) and with RFC 3168 ECN;
* flows start at random times within the first second; one-BDP buffer = rate × two-way
  propagation delay (cclab's ``buffer = "1bdp"``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from cclab.papers import summary


PACKET_SIZE = 1000
ACCESS = {"rate": "100Mbps", "delay": "5ms"}
TABLE1_AS = (0.5, 1.0, 1.5, 2.0, 5.0)
PAPER_PER = 0.3

# (label, cc, ECN-capable TCP)
MRAIMD = ("MR-AIMD", {"algorithm": "mraimd"}, True)
AIMD = ("AIMD", {"algorithm": "aimd", "alpha": 1.0, "beta": 0.5}, False)
AIMD_ECN = ("AIMD+ECN", {"algorithm": "aimd", "alpha": 1.0, "beta": 0.5}, True)
SECTION4_PROTOCOLS = (MRAIMD, AIMD, AIMD_ECN)


def tcp_a(a: float) -> tuple:
    """TCP(a, 0.5): Table 1's fixed additive increase a, standard halving, no ECN."""
    return (f"TCP(a={a:g})", {"algorithm": "aimd", "alpha": a, "beta": 0.5}, False)


def dumbbell(protocol: tuple, flows: int, rate: str, delay: str, buffer, per: float = 0.0,
             duration_s: float = 200, seed: int = 1, trace: bool = False, ssthresh: Optional[float] = None,
             name: str = "") -> dict:
    """``flows`` flows of ``protocol`` over a RED bottleneck of ``rate``/``delay``."""
    label, cc, ecn = protocol
    bottleneck = {"rate": rate, "delay": delay, "queue": "red", "buffer": buffer}
    if per:
        bottleneck["loss"] = {"model": "bernoulli", "rate": per}
    tcp = {"ecn": ecn}
    if ssthresh is not None:
        tcp["initial_ssthresh"] = ssthresh
    scenario = {
        "name": name or f"mraimd {label} N={flows} {rate} {delay}" + (f" PER={per:g}" if per else ""),
        "duration": f"{duration_s:g}s",
        "seed": seed,
        "packet_size": f"{PACKET_SIZE}B",
        "topology": {"kind": "dumbbell", "bottleneck": bottleneck, "source_access": dict(ACCESS),
                     "sink_access": dict(ACCESS)},
        "flows": [{"group": label, "count": flows, "cc": dict(cc), "tcp": tcp, "start": {"random": "1s"}}],
    }
    if trace:
        scenario["trace"] = {"flows": True}
    return scenario


def table1(a: float, flows: int, wireless: bool, per: float = PAPER_PER, **kw) -> dict:
    """Table 1: TCP(a, 0.5) on 1 Mb/s (wired) or 10 Mb/s with a PER (wireless), 20 ms, 25 packets."""
    if wireless:
        return dumbbell(tcp_a(a), flows, "10Mbps", "20ms", 25, per=per, **kw)
    return dumbbell(tcp_a(a), flows, "1Mbps", "20ms", 25, **kw)


def section4(protocol: tuple, flows: int, rate: str = "48Mbps", per: float = 0.0, **kw) -> dict:
    """§4: 40 ms bottleneck, one-BDP RED buffer: Fig. 4 (48 Mb/s), 5 (48 Mb/s + PER), 6 (24 Mb/s + PER)."""
    return dumbbell(protocol, flows, rate, "40ms", "1bdp", per=per, **kw)


def growth(protocol: tuple, duration_s: float = 10, **kw) -> dict:
    """Fig. 7: one flow leaves slow start at cwnd 20 on an empty 48 Mb/s path (as after a
    contention drop: no losses, no marks until its window nears the BDP)."""
    return dumbbell(protocol, 1, "48Mbps", "40ms", "1bdp", duration_s=duration_s, trace=True, ssthresh=20, **kw)


def paper_scenarios() -> dict[str, tuple[str, dict]]:
    """One representative scenario file per table/figure (the sweeps vary its fields)."""
    return {
        "table1_wired": ("Table 1, wired (§2.1): TCP(a, 0.5), 2 or 4 flows; the table varies flows.0.cc.alpha "
                         "(0.5, 1, 1.5, 2, 5) and flows.0.count (2, 4).", table1(1.0, 2, False)),
        "table1_wireless": ("Table 1, wireless (§2.2): as wired on 10 Mb/s with a 0.3 PER on the bottleneck.",
                            table1(1.0, 2, True)),
        "fig04_wired": ("Figure 4 (§4.1): MR-AIMD vs AIMD, 48 Mb/s, 40 ms, RED/ECN; flows.0.count 10..100; "
                        "AIMD with flows.0.cc = { algorithm = \"aimd\", alpha = 1, beta = 0.5 }.",
                        section4(MRAIMD, 10)),
        "fig05_wireless": ("Figure 5 (§4.2): as Figure 4 with a 0.3 PER on the bottleneck.",
                           section4(MRAIMD, 10, per=PAPER_PER)),
        "fig06_mixed": ("Figure 6 (§4.3): 24 Mb/s with a 0.3 PER, flows.0.count 5..100.",
                        section4(MRAIMD, 5, rate="24Mbps", per=PAPER_PER)),
        "fig07_growth": ("Figure 7 (§4.4): one MR-AIMD flow entering congestion avoidance at cwnd 20 on an "
                         "idle path; traced.", growth(MRAIMD)),
    }


def write_scenario_files(directory) -> list[Path]:
    return summary.write_scenario_files(directory, "mraimd", "Psaras, Dianati & Tafazolli, MR-AIMD", paper_scenarios())

