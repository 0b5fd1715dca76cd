#!/usr/bin/env python3
"""General networks in ns-2.35 and cclab, side by side: a parking lot, a chain with UDP
cross traffic, and a two-way dumbbell (issue 9).

    .venv/bin/python bench/ns2/graph_compare.py            # 3 seeds -> bench/ns2/graph_reference.json
    .venv/bin/python bench/ns2/graph_compare.py --seeds 5 --case parking-lot

Each case is a cclab scenario file under experiments/graphs/. The ns-2 script is made
from the scenario as cclab expands it (`cclab.topology`): one `simplex-link` per link
direction with its rate, delay and DropTail limit, a QueueMonitor on each; TCP flows as
Agent/TCP/Sack1 (or Newreno) + TCPSink/Sack1 (or DelAck) with FTP, `windowOption_ 1`,
`increase_num_` = α and `decrease_num_` = β; UDP flows as Agent/UDP +
Application/Traffic/CBR (`random_ 1` for jitter 0.5) into an Agent/LossMonitor, on/off
sources as CBR started and stopped at the on/off boundaries. Every flow starts and stops
at the times cclab drew for the same seed, so the two runs differ only by the
simulators. ns-2 routes by hop count on its own: the cases are trees, where the path is
unique. What the translator does not cover (RED, loss models other than Bernoulli,
TCP parameters other than recovery and delayed ACKs, random on/off periods) is refused
with a message naming the field.

Metrics: per-group goodput (in-order payload delivered, Mb/s) and per-link-direction
drops, seed means. Needs /usr/bin/ns.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CASES = {
    "parking-lot": REPO / "experiments" / "graphs" / "parking-lot.toml",
    "chain-udp": REPO / "experiments" / "graphs" / "chain-udp.toml",
    "two-way-dumbbell": REPO / "experiments" / "graphs" / "two-way-dumbbell.toml",
}
SEEDS = (1, 2, 3)
TCP_HEADER = 40  # ns-2 useHeaders_ true: tcpip_base_hdr_size_


class Unsupported(ValueError):
    """The scenario uses something this translator does not map to ns-2."""


def _seconds(text) -> float:
    from cclab.core import duration_s

    return duration_s(text)


def _bps(text) -> float:
    from cclab.core import rate_bps

    return float(rate_bps(text))


def to_tcl(scenario: dict, topology: dict, flows: list[dict], duration_s: float) -> str:
    """An ns-2.35 script for ``scenario`` (normalised), whose expanded ``topology`` and
    per-flow start/stop times (``flows``: cclab's flows table) are given. The script
    prints one line of JSON at the end."""
    if scenario["header_size"] != TCP_HEADER or scenario["ack_size"] != TCP_HEADER:
        raise Unsupported("header_size and ack_size must be 40 (ns-2's useHeaders_ true)")
    packet_size = scenario["packet_size"]
    node_index = {name: i for i, name in enumerate(topology["nodes"])}
    lines = [
        "set ns [new Simulator]",
        f"ns-random {scenario['seed']}",
        f"$defaultRNG seed {scenario['seed']}",
        f"Agent/TCP set packetSize_ {packet_size}",
        "Agent/TCP set window_ 100000",
        "Agent/TCP set maxcwnd_ 100000",
        "Agent/TCP set windowOption_ 1",
        "set nullAgent [new Agent/Null]",
    ]
    lines += [f"set n({i}) [$ns node]" for i in range(len(topology["nodes"]))]
    for k, link in enumerate(topology["links"]):
        if link["queue"]["kind"] != "droptail":
            raise Unsupported(f"link {link['name']}: queue {link['queue']['kind']!r} (only droptail)")
        if link.get("buffer_bytes"):
            raise Unsupported(f"link {link['name']}: buffer_bytes")
        a, b = node_index[link["from"]], node_index[link["to"]]
        lines += [
            f"$ns simplex-link $n({a}) $n({b}) {_bps(link['rate']):.0f} {_seconds(link['delay']):.9f} DropTail",
            f"$ns queue-limit $n({a}) $n({b}) {link['buffer_packets']}",
            f"set qm({k}) [new QueueMonitor]",
            f"[$ns link $n({a}) $n({b})] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] "
            f"[new SnoopQueue/Drop] $qm({k})",
        ]
        loss = link.get("loss")
        if loss:
            if loss["model"] != "bernoulli":
                raise Unsupported(f"link {link['name']}: loss model {loss['model']!r} (only bernoulli)")
            lines += [
                f"set em({k}) [new ErrorModel]", f"$em({k}) unit pkt", f"$em({k}) set rate_ {loss['rate']}",
                f"$em({k}) ranvar [new RandomVariable/Uniform]", f"$em({k}) drop-target $nullAgent",
                f"$ns lossmodel $em({k}) $n({a}) $n({b})",
            ]
    group_of = {group.get("group") or f"group{g}": group for g, group in enumerate(scenario["flows"])}
    kinds = []
    for flow, route in zip(flows, topology["flows"]):
        group = group_of[flow["group"]]
        i, src, dst = flow["id"], node_index[route["route"][0]], node_index[route["route"][-1]]
        start, stop = flow["start_s"], flow["stop_s"]
        if group.get("transport", "tcp") == "tcp":
            kinds.append("tcp")
            lines += _tcp_flow(i, src, dst, group, start, stop, flow["group"])
        else:
            kinds.append("udp")
            lines += _udp_flow(i, src, dst, group, start, stop, duration_s, packet_size + scenario["header_size"])
    lines += _finish(kinds, len(topology["links"]), packet_size, duration_s)
    return "\n".join(lines) + "\n"


def _tcp_flow(i: int, src: int, dst: int, group: dict, start: float, stop, name: str) -> list[str]:
    tcp = group.get("tcp", {})
    defaults = {"initial_window": 2.0, "max_window": 1_000_000, "initial_ssthresh": 1e9, "initial_rto": "3s",
                "min_rto": "200ms", "max_rto": "60s", "granularity": "10ms", "max_backoff": 64,
                "dupack_threshold": 3, "limited_transmit": True, "syn": True, "delayed_ack_timeout": "100ms",
                "ecn": False}
    for key, default in defaults.items():
        if key in tcp and tcp[key] != default:
            raise Unsupported(f"group {name!r}: tcp.{key} = {tcp[key]!r} (only ns-2's default {default!r})")
    cc = group.get("cc", {"algorithm": "reno"})
    if cc["algorithm"] == "reno":
        alpha, beta = 1.0, 0.5
    elif cc["algorithm"] == "aimd" and cc.get("decrease", "ns2") == "ns2":
        alpha, beta = cc["alpha"], cc["beta"]
    else:
        raise Unsupported(f"group {name!r}: cc {cc['algorithm']!r} (only reno and aimd with ns-2 decrease)")
    if group.get("app", {"kind": "bulk"})["kind"] != "bulk":
        raise Unsupported(f"group {name!r}: app over TCP (only bulk)")
    newreno = tcp.get("recovery", "sack") == "newreno"
    delack = tcp.get("delayed_ack", False)
    agent = "Agent/TCP/Newreno" if newreno else "Agent/TCP/Sack1"
    sink = ("Agent/TCPSink" if newreno else "Agent/TCPSink/Sack1") + ("/DelAck" if delack else "")
    lines = [
        f"set src({i}) [new {agent}]", f"$src({i}) set fid_ {i}",
        f"$src({i}) set increase_num_ {alpha}", f"$src({i}) set decrease_num_ {beta}",
        f"set dst({i}) [new {sink}]",
        f"$ns attach-agent $n({src}) $src({i})", f"$ns attach-agent $n({dst}) $dst({i})",
        f"$ns connect $src({i}) $dst({i})",
        f"set app({i}) [new Application/FTP]", f"$app({i}) attach-agent $src({i})",
        f"$ns at {start!r} \"$app({i}) start\"",
    ]
    if stop is not None:
        lines.append(f"$ns at {stop!r} \"$app({i}) stop\"")
    return lines


def _udp_flow(i: int, src: int, dst: int, group: dict, start: float, stop, duration_s: float,
              wire_bytes: int) -> list[str]:
    app = group["app"]
    lines = [
        f"set src({i}) [new Agent/UDP]", f"$src({i}) set packetSize_ {wire_bytes}",
        f"set dst({i}) [new Agent/LossMonitor]",
        f"$ns attach-agent $n({src}) $src({i})", f"$ns attach-agent $n({dst}) $dst({i})",
        f"$ns connect $src({i}) $dst({i})",
        f"set app({i}) [new Application/Traffic/CBR]", f"$app({i}) set packetSize_ {wire_bytes}",
        f"$app({i}) set rate_ {_bps(app['rate']):.0f}", f"$app({i}) attach-agent $src({i})",
    ]
    jitter = app.get("jitter", 0.0)
    if jitter not in (0.0, 0.5):
        raise Unsupported(f"group {group.get('group')!r}: app.jitter {jitter} (ns-2 CBR random_ is 0 or 0.5)")
    lines.append(f"$app({i}) set random_ {1 if jitter else 0}")
    end = min(stop if stop is not None else duration_s, duration_s)
    if app["kind"] == "cbr":
        periods = [(start, end)]
    else:
        on, off = app["on"], app["off"]
        if isinstance(on, dict) or isinstance(off, dict):
            raise Unsupported(f"group {group.get('group')!r}: random on/off periods")
        periods, t = [], start
        while t < end:
            periods.append((t, min(t + _seconds(on), end)))
            t += _seconds(on) + _seconds(off)
    for begin, finish in periods:
        lines += [f"$ns at {begin!r} \"$app({i}) start\"", f"$ns at {finish!r} \"$app({i}) stop\""]
    return lines


def _finish(kinds: list[str], links: int, packet_size: int, duration_s: float) -> list[str]:
    return [
        "proc finish {} {",
        "    global ns src dst qm",
        f"    set hdr {TCP_HEADER}",
        "    set flows {}",
        f"    foreach i {{{' '.join(str(i) for i in range(len(kinds)))}}} kind {{{' '.join(kinds)}}} {{",
        "        if {$kind eq \"tcp\"} {",
        "            set b [$dst($i) set bytes_]",
        f"            if {{$b >= $hdr}} {{ set k [expr {{($b - $hdr) / ({packet_size} + $hdr)}}] }} else {{ set k 0 }}",
        "            lappend flows \"{\\\"id\\\":$i,\\\"delivered\\\":$k,\\\"sent\\\":[$src($i) set ndatapack_],"
        "\\\"retransmitted\\\":[$src($i) set nrexmitpack_],\\\"timeouts\\\":[$src($i) set nrexmit_]}\"",
        "        } else {",
        "            lappend flows \"{\\\"id\\\":$i,\\\"delivered\\\":[$dst($i) set npkts_],"
        "\\\"lost\\\":[$dst($i) set nlost_]}\"",
        "        }",
        "    }",
        "    set links {}",
        f"    for {{set k 0}} {{$k < {links}}} {{incr k}} {{",
        "        lappend links \"{\\\"drops\\\":[$qm($k) set pdrops_],\\\"departures\\\":[$qm($k) set pdepartures_],"
        "\\\"arrivals\\\":[$qm($k) set parrivals_]}\"",
        "    }",
        "    puts \"{\\\"flows\\\":\\[[join $flows ,]\\],\\\"links\\\":\\[[join $links ,]\\]}\"",
        "    flush stdout",
        "    exit 0",
        "}",
        f"$ns at {duration_s!r} finish",
        "$ns run",
    ]


def run_cclab(scenario: dict) -> dict:
    import cclab

    return cclab.run(scenario).raw


def run_ns2(tcl: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="cclab-ns2-") as scratch:
        script = Path(scratch) / "scenario.tcl"
        script.write_text(tcl)
        out = subprocess.run(["ns", str(script)], capture_output=True, text=True, timeout=1200, cwd=scratch)
    if out.returncode != 0:
        raise RuntimeError(f"ns-2 failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def one_seed(path: Path, seed: int, overrides: dict | None = None) -> dict:
    """Both simulators on the case in ``path`` for one seed: per-group goodput and
    per-link drops of each."""
    import cclab

    scenario = cclab.validate(path, {"seed": seed, **(overrides or {})})
    ours = run_cclab(scenario)
    topology = cclab.topology(scenario)
    duration_s = ours["duration_s"]
    theirs = run_ns2(to_tcl(scenario, topology, ours["flows"], duration_s))
    payload_mbps = scenario["packet_size"] * 8 / duration_s / 1e6
    groups_ns2: dict[str, float] = {}
    for flow, measured in zip(ours["flows"], theirs["flows"]):
        groups_ns2[flow["group"]] = groups_ns2.get(flow["group"], 0.0) + measured["delivered"] * payload_mbps
    return {
        "cclab": {"groups": {g["name"]: g["goodput_mbps"] for g in ours["groups"]},
                  "drops": {link["name"]: link["queue_drops"] for link in ours["links"]}},
        "ns2": {"groups": groups_ns2,
                "drops": {link["name"]: measured["drops"] for link, measured in zip(ours["links"], theirs["links"])}},
    }


def compare(path: Path, seeds=SEEDS, overrides: dict | None = None) -> dict:
    """Seed means of both simulators' per-group goodput and per-link drops."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda seed: one_seed(path, seed, overrides), seeds))
    table: dict = {"seeds": list(seeds), "groups": {}, "drops": {}}
    for metric in ("groups", "drops"):
        for key in runs[0]["cclab"][metric]:
            table[metric][key] = {sim: statistics.mean(run[sim][metric][key] for run in runs) for sim in ("cclab", "ns2")}
    # links that drop nothing in either simulator say nothing
    table["drops"] = {k: v for k, v in table["drops"].items() if v["cclab"] or v["ns2"]}
    return table


def markdown(name: str, table: dict) -> str:
    rows = [f"**{name}** ({len(table['seeds'])} seeds)", "", "| | cclab | ns-2.35 | difference |", "| --- | --- | --- | --- |"]
    for group, v in table["groups"].items():
        rows.append(f"| goodput {group} (Mb/s) | {v['cclab']:.3f} | {v['ns2']:.3f} | {_diff(v)} |")
    for link, v in table["drops"].items():
        rows.append(f"| drops {link} | {v['cclab']:.1f} | {v['ns2']:.1f} | {_diff(v)} |")
    return "\n".join(rows)


def _diff(v: dict) -> str:
    return f"{(v['cclab'] - v['ns2']) / v['ns2']:+.1%}" if v["ns2"] else "–"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--seeds", type=int, default=len(SEEDS))
    parser.add_argument("--out", type=Path, default=HERE / "graph_reference.json")
    args = parser.parse_args(argv)
    results = {}
    for name in args.case or list(CASES):
        results[name] = compare(CASES[name], seeds=tuple(range(1, args.seeds + 1)))
        print(markdown(name, results[name]), end="\n\n", flush=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
