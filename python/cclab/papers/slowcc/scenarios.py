"""The SlowCC study's experiments (Bansal, Balakrishnan, Floyd & Shenker, SIGCOMM 2001) as
cclab scenarios.

What the paper fixes: ns-2; Fig. 13's ten identical flows on a 10 Mb/s link with a 50 ms
RTT, five of which stop at 500 s; RED; Figs. 14–16's ten flows against an on/off CBR
source with equal on and off times, the available bandwidth 15 ↔ 5 Mb/s (Fig. 16:
15 ↔ 1.5); TFRC(b) averaging b loss intervals; TCP(1/b) = TCP(4(2/b − 1/b²)/3, 1 − 1/b);
δ = 0.1 for the convergence figures.

What it leaves open, and our choice (the summary repeats these):

* 1000-byte packets with no header on the wire (ns-2's TFRC and TCP with `useHeaders_`
  off), 40-byte ACKs and reports;
* a dumbbell: bottleneck 15 ms one way, access links 100 Mb/s and 5 ms each side
  (RTT 50 ms); the bottleneck queue is RED as ns-2.35 runs it by default: byte mode
  (`bytes_`, `queue_in_bytes_`), mean packet size 500 B, automatic thresholds and weight,
  so with 1000-byte packets the thresholds are 3125 / 9375 B (10 Mb/s) and the limit of
  125 (Figs. 14–16: 15 Mb/s, 190) is 125 × 500 B = 62 500 B, about one pipe of 1000-byte
  packets (Figs. 14–16: 95 000 B); every figure's bottleneck (12, 13, 14–16, 17) uses it;
* TFRC uses cclab's `ns2` profile (ns-2.35's `Agent/TFRC` defaults), as the paper ran ns-2;
  Fig. 13 runs it with history discounting off (the paper) and on (ns-2's default);
* SQRT(1/b): binomial k = l = ½ with decrease 1/b and the TCP-compatible increase 3/(2b)
  (derivation in `crates/cclab-core/src/cc/binomial.rs`);
* flows start at random times in the first 5 s; Fig. 13's stop is at 500 s (quick: 100 s),
  f(k) counts k RTTs of the 50 ms base RTT;
* Figs. 14–16: the CBR source is UDP at 10 Mb/s (Fig. 16: 13.5 Mb/s) starting "on" at
  0 s; a run is a warm-up of whole on/off cycles (≥ 10 s) plus at least 40 s of whole
  cycles (two for the longest periods), and the controlled flows' throughput over the
  measured part is divided by the average available bandwidth (15 − CBR rate / 2);
* Fig. 17's "mildly bursty loss pattern" (the excerpt breaks off before defining it):
  one flow, 10 Mb/s bottleneck, Gilbert–Elliott losses at its head — a bad state entered
  with probability 0.002 per packet, left with probability 0.5, losing every packet in it
  (bursts of 2 on average, 0.4 % loss), for
  TFRC(8) (ns-2 profile, discounting on) and TCP(1/8); smoothness is min/max of flow 0's
  delivered bytes in consecutive 0.2-s bins over 10–30 s;
* Fig. 12: two TFRC(b) flows (discounting on) on the Fig. 13 link, the second starting
  at 20 s (quick: 10 s) when the first has the link, 100 s more; convergence is the
  δ-fair time of `cclab.analysis.slowcc`: rates averaged over 1 s, the first second in
  which they are 0.1-fair;
* seeds 1–5 (quick: 1–2); every value is the mean over seeds;
* Fig. 11 is the analytic model of `cclab.analysis.models.aimd_fair_convergence_acks`
  (our derivation: the excerpt breaks off before the paper's).
"""
from __future__ import annotations

from pathlib import Path

from cclab.papers import summary


PACKET_SIZE = 1000
RTT_S = 0.05
ACCESS = {"rate": "100Mbps", "delay": "5ms", "buffer": 1000}


def control(kind: str, b: float) -> dict:
    """The flow-group fields of one control: "tcp" (TCP(1/b)), "sqrt" (SQRT(1/b)),
    "tfrc" (TFRC(b), no discounting) or "tfrc-discount" (TFRC(b), ns-2's default)."""
    if kind == "tcp":
        return {"cc": {"algorithm": "tcp(1/b)", "b": b}}
    if kind == "sqrt":
        return {"cc": {"algorithm": "sqrt(1/b)", "b": b}}
    if kind in ("tfrc", "tfrc-discount"):
        return {"transport": "tfrc", "tfrc": {"profile": "ns2", "intervals": int(b), "discounting": kind == "tfrc-discount"}}
    raise ValueError(f"control {kind!r}")


# ns-2.35's default Queue/RED: byte mode, mean_pktsize_ 500, automatic parameters.
RED = {"kind": "red", "mode": "bytes", "mean_packet_size": "500B"}


def dumbbell(rate: str, buffer: int, groups: list[dict], duration_s: float, seed: int, bin_width: str = "50ms",
             loss: dict | None = None, name: str = "slowcc") -> dict:
    bottleneck = {"rate": rate, "delay": "15ms", "queue": dict(RED), "buffer": buffer}
    if loss:
        bottleneck["loss"] = loss
    return {"name": name, "duration": f"{duration_s:g}s", "seed": seed, "packet_size": f"{PACKET_SIZE}B", "header_size": "0B",
            "bin_width": bin_width,
            "topology": {"kind": "dumbbell", "bottleneck": bottleneck, "source_access": dict(ACCESS), "sink_access": dict(ACCESS)},
            "flows": groups}


def time_of_plenty(kind: str, b: float, stop_s: float, seed: int = 1) -> dict:
    """Fig. 13: ten flows of one control; five stop at ``stop_s``; the run lasts 200 RTTs more."""
    flows = control(kind, b)
    groups = [{"group": "stay", "count": 5, **flows, "start": {"random": "5s"}},
              {"group": "leave", "count": 5, **flows, "start": {"random": "5s"}, "stop": f"{stop_s:g}s"}]
    return dumbbell("10Mbps", 125, groups, stop_s + 200 * RTT_S, seed, name=f"time-of-plenty-{kind}-{b:g}")


def cycle_layout(period_s: float) -> tuple[float, float]:
    """(warm-up, measured span) for an on/off period: whole on+off cycles, ≥ 10 s and
    ≥ 40 s (at least two cycles)."""
    cycle = 2 * period_s
    warmup = cycle * max(1, -(-10 // cycle))
    span = cycle * max(2, -(-40 // cycle))
    return warmup, span


def square_wave(kind: str, b: float, period_s: float, cbr_mbps: float, seed: int = 1) -> dict:
    """Figs. 14–16: ten flows of one control against on/off CBR (on = off = ``period_s``)
    on a 15 Mb/s RED bottleneck."""
    warmup, span = cycle_layout(period_s)
    groups = [{"group": "controlled", "count": 10, **control(kind, b), "start": {"random": "5s"}},
              {"group": "cbr", "transport": "udp",
               "app": {"kind": "onoff", "rate": f"{cbr_mbps:g}Mbps", "on": f"{period_s:g}s", "off": f"{period_s:g}s"}}]
    width = "10ms" if period_s < 0.05 else "50ms"
    return dumbbell("15Mbps", 190, groups, warmup + span, seed, bin_width=width,
                    name=f"square-wave-{kind}-{b:g}-{period_s:g}s")


BURSTY_LOSS = {"model": "gilbert_elliott", "good_to_bad": 0.002, "bad_to_good": 0.5, "loss_in_bad": 1.0}


def bursty(kind: str, b: float, seed: int = 1, duration_s: float = 30) -> dict:
    """Fig. 17: one flow under mildly bursty losses (BURSTY_LOSS), 0.2-s bins."""
    groups = [{"group": "flow", **control(kind, b)}]
    return dumbbell("10Mbps", 125, groups, duration_s, seed, bin_width="200ms", loss=dict(BURSTY_LOSS),
                    name=f"bursty-{kind}-{b:g}")


def convergence(b: float, join_s: float, seed: int = 1, after_s: float = 100) -> dict:
    """Fig. 12: a TFRC(b) flow alone, a second joining at ``join_s``."""
    flows = control("tfrc-discount", b)
    groups = [{"group": "first", **flows}, {"group": "second", **flows, "start": {"at": f"{join_s:g}s"}}]
    return dumbbell("10Mbps", 125, groups, join_s + after_s, seed, bin_width="100ms", name=f"convergence-tfrc-{b:g}")


def paper_scenarios() -> dict[str, tuple[str, dict]]:
    return {
        "fig13_time_of_plenty": ("Figure 13: ten TFRC(8) flows (ns-2 profile, no discounting), 10 Mb/s, RTT 50 ms, RED; "
                                 "five stop at 500 s; f(k) is the utilisation in the k RTTs after.",
                                 time_of_plenty("tfrc", 8, 500)),
        "fig14_square_wave": ("Figures 14–15: ten TCP flows against 10 Mb/s on/off CBR (0.2 s on, 0.2 s off) on "
                              "15 Mb/s: the available bandwidth alternates 15 ↔ 5 Mb/s.", square_wave("tcp", 2, 0.2, 10)),
        "fig17_bursty": ("Figure 17: one TFRC(8) flow under mildly bursty (Gilbert–Elliott) losses, 0.2-s bins.",
                         bursty("tfrc", 8)),
    }


def write_scenario_files(directory) -> list[Path]:
    return summary.write_scenario_files(directory, "slowcc", "Bansal, Balakrishnan, Floyd & Shenker, SlowCC (SIGCOMM 2001)", paper_scenarios())
