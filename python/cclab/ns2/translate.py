"""A cclab scenario as an ns-2.35 Tcl script (``cclab export-ns2``).

The script rebuilds the scenario as cclab expands it, so the two simulators differ only
by their own behaviour:

* the topology from :func:`cclab.topology`: one ``simplex-link`` per link direction with
  its rate, delay and queue (DropTail with cclab's resolved limit, in packets or bytes;
  RED with every parameter, ECN marking as ``setbit_``), and cclab's routes installed as
  manual per-destination routes (ns-2 routes by destination: two flows that need
  different next hops towards the same node are refused);
* loss processes at the head of the link direction (``$ns lossmodel``, as cclab judges
  a packet before its queue): Bernoulli (``ErrorModel``), periodic
  (``ErrorModel/Periodic``) and handoff outages (an ``ErrorModel`` switched to lose
  everything during each outage cclab draws for the seed); square-wave link rates as
  scheduled ``bandwidth_`` changes;
* every flow started and stopped when cclab's engine starts and stops it for the same
  seed (``cclab.core.flow_windows_json``: schedules, staggered and random starts);
* TCP as ``Agent/TCP/Sack1`` + ``Agent/TCPSink/Sack1`` (``newreno``: ``Agent/TCP/Newreno``
  + ``Agent/TCPSink``; ``/DelAck`` sinks for delayed ACKs; ``westwood-be`` with
  ``profile = "ucla"``: UCLA's ``Agent/TCP/WestwoodNR``, which Debian's ns-2.35 lacks —
  a build with ``tcp-westwood-nr.cc`` added runs it, see ``bench/ns2/westwood_ucla.md``,
  and its ``current_bwe_`` is sampled every 10 ms into the flow trace as ``cc_ere_pps``), α and β as
  ``increase_num_``/``decrease_num_`` with ``windowOption_ 1``, the binomial controls as
  ``windowOption_ 6``, every TCP parameter cclab has that ns-2 has too; bulk data as FTP,
  CBR writers as ``Application/Traffic/CBR`` over the agent;
* UDP as ``Agent/UDP`` into an ``Agent/LossMonitor``: CBR (jitter 0.5 is ``random_ 1``),
  on/off with fixed periods (CBR started and stopped), with exponential or Pareto
  periods (``Application/Traffic/Exponential`` / ``Pareto``);
* TFRC as ``Agent/TFRC`` + ``Agent/TFRCSink`` (intervals, discounting, ndupack, ECN).

At the end the script prints one line of JSON: per flow its delivered counter, packets
sent, retransmissions, timeouts and ECN reactions; per link direction its queue
monitor's arrivals, departures, drops, marks and bytes, and the loss model's drops; and
the same counters sampled at every bin boundary (:mod:`cclab.ns2.run` reads it).

What has no ns-2 equivalent (an algorithm, a loss model, a parameter value) raises
:class:`Unsupported`, one line naming the field. Where ns-2 can run the scenario but not
exactly as cclab does (a SYN size, a byte-limited DropTail), the script runs and
:attr:`Script.notes` says what differs.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from cclab.core import (ScenarioError, duration_s, flow_windows_json, loss_outages_json, rate_bps, size_bytes,
                        topology_json, version)
from cclab.scenario import group_name

# ns-2's RNG seeds are 1 ... 2^31 − 2; 0 would ask it for a clock-based seed.
NS2_SEED_RANGE = 2**31 - 2

# cclab's TCP defaults that ns-2.35 has no variable for: any other value is refused.
ALGORITHMS = ("reno", "aimd", "tcp(1/b)", "binomial", "sqrt", "iiad", "sqrt(1/b)")
# How often a UCLA WestwoodNR agent's estimate is sampled into its flow trace, seconds.
ERE_SAMPLE_S = 0.01


class Unsupported(ScenarioError):
    """The scenario uses something ns-2.35 cannot run; the message names the field."""


@dataclass
class Script:
    """An ns-2.35 script for one scenario, with what the Python side needs to read its output."""

    text: str
    scenario: dict
    topology: dict
    flows: list[dict]  # per flow: id, group, transport, cc label, start_s, stop_s, wire bytes, SYN bytes
    bins: int
    bin_width_s: float
    notes: list[str] = field(default_factory=list)  # where ns-2 runs the scenario, but not as cclab does
    trace_files: dict[int, str] = field(default_factory=dict)  # flow id -> its cwnd/ssthresh trace file


def ns2_seed(seed: int) -> int:
    """The ns-2 RNG seed for a cclab seed, mixed (splitmix64) into 1 ... 2^31 − 2.

    ns-2's ``$defaultRNG seed N`` sets all six MRG32k3a components to N, and the first
    output is then about 592852·N/2^32: small consecutive seeds give nearly the same,
    nearly zero, first draws (with N = 1 … 5 a 0.2 % Bernoulli error model loses the
    first packet it judges in every run), so seeds 1, 2, 3 … are not independent runs.
    A mixed, large seed is."""
    z = (seed + 0x9E3779B97F4A7C15) % 2**64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    z ^= z >> 31
    return 1 + z % NS2_SEED_RANGE


def translate(scenario: Mapping[str, Any]) -> Script:
    """The ns-2.35 script for ``scenario`` (normalised: :func:`cclab.validate`'s output)."""
    return _Translator(dict(scenario)).script()


def _tcl_number(value: float) -> str:
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


class _Translator:
    def __init__(self, scenario: dict):
        self.scenario = scenario
        text = json.dumps(scenario)
        self.topology = json.loads(topology_json(text))
        self.windows = json.loads(flow_windows_json(text))
        self.outages = json.loads(loss_outages_json(text))
        self.duration = duration_s(scenario["duration"])
        self.width = duration_s(scenario["bin_width"])
        self.bins = max(1, math.ceil(self.duration / self.width - 1e-9))
        self.payload = size_bytes(scenario["packet_size"])
        self.header = size_bytes(scenario["header_size"])
        self.ack = size_bytes(scenario["ack_size"])
        self.nodes = {name: index for index, name in enumerate(self.topology["nodes"])}
        self.link_index = {(link["from"], link["to"]): k for k, link in enumerate(self.topology["links"])}
        self.notes: list[str] = []
        self.lines: list[str] = []
        self.flows: list[dict] = []
        self.trace_files: dict[int, str] = {}
        self.ere_sampler = False

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # ------------------------------------------------------------------ script
    def script(self) -> Script:
        scenario = self.scenario
        seed = ns2_seed(int(scenario["seed"]))
        out = self.lines
        out += [
            f"# ns-2.35 script made by cclab {version()} (cclab export-ns2) from scenario "
            f"{scenario.get('name', 'unnamed')!r}, seed {scenario['seed']}.",
            "# Run: ns THIS_FILE    (prints one line of JSON at the end of the run)",
            "set ns [new Simulator]",
            f"ns-random {seed}",
            f"$defaultRNG seed {seed}",
            "$ns rtproto Manual",
            "set null [new Agent/Null]",
        ]
        out += [f"set n({i}) [$ns node] ;# {name}" for name, i in self.nodes.items()]
        for k, link in enumerate(self.topology["links"]):
            self.link(k, link)
        self.routes()
        ere_proc = len(out)
        groups = scenario["flows"]
        group_by_name = {group_name(group, g): (g, group) for g, group in enumerate(groups)}
        for window, route in zip(self.windows, self.topology["flows"]):
            g, group = group_by_name[window["group"]]
            self.flow(window, route["route"], g, group)
        if any(flow["agent"] == "Agent/TCP/WestwoodNR" for flow in self.flows):
            out[ere_proc:ere_proc] = [
                "if {[catch {Agent/TCP/WestwoodNR info superclass}]} {",
                "    puts stderr \"this ns has no Agent/TCP/WestwoodNR: UCLA's agent is not part of ns-2.35 (see "
                "bench/ns2/westwood_ucla.md; CCLAB_NS names the ns to run)\"",
                "    exit 3",
                "}",
            ]
            ere_proc += 4
        if self.ere_sampler:
            out[ere_proc:ere_proc] = [
                "proc sample_bwe {i period bits} {",
                "    global ns src tf",
                "    puts $tf($i) \"[$ns now] 0 0 0 0 ere_ [expr {[$src($i) set current_bwe_] / $bits}]\"",
                "    puts $tf($i) \"[$ns now] 0 0 0 0 rtt_min_ [$src($i) set min_rtt_estimate]\"",
                "    $ns at [expr {[$ns now] + $period}] \"sample_bwe $i $period $bits\"",
                "}",
            ]
        self.sampling()
        notes = [f"# note: {n}" for n in self.notes]
        text = "\n".join(out[:2] + notes + out[2:]) + "\n"
        return Script(text, scenario, self.topology, self.flows, self.bins, self.width, list(self.notes),
                      dict(self.trace_files))

    # ------------------------------------------------------------------ links
    def link(self, k: int, link: dict) -> None:
        a, b = self.nodes[link["from"]], self.nodes[link["to"]]
        where = link["origin"]
        on = f"on {link['name']}"
        queue = link["queue"]
        if queue["kind"] not in ("droptail", "red"):
            raise Unsupported(f"{where}.queue.kind: {json.dumps(queue['kind'])} ({on}) has no ns-2.35 equivalent here "
                              "(cclab exports droptail and red)")
        kind = "RED" if queue["kind"] == "red" else "DropTail"
        rate = rate_bps(link["rate"])
        delay = duration_s(link["delay"])
        out = self.lines
        out += [
            f"$ns simplex-link $n({a}) $n({b}) {rate} {_tcl_number(delay)} {kind}",
            f"set q({k}) [[$ns link $n({a}) $n({b})] queue]",
        ]
        limit = int(link["buffer_packets"])
        if link.get("buffer_bytes"):
            if kind == "RED":
                raise Unsupported(f"{where}.buffer_bytes: a byte-limited RED queue ({on}) has no ns-2 equivalent "
                                  "(ns-2's RED limits bytes only in its byte mode, as limit × mean_pktsize)")
            # ns-2 DropTail in bytes: drop when waiting bytes + the packet ≥ limit_ × mean_pktsize_.
            out += [f"$q({k}) set queue_in_bytes_ true", f"$q({k}) set mean_pktsize_ 1"]
            limit = int(link["buffer_bytes"])
            self.note(f"{where} ({on}): ns-2 limits the queue in bytes only; cclab also keeps its packet limit "
                      f"({link['buffer_packets']})")
        if kind == "RED":
            self.red(k, queue, f"{where} ({on})")
        out.append(f"$ns queue-limit $n({a}) $n({b}) {limit}")
        out += [
            f"set qm({k}) [new QueueMonitor]",
            f"[$ns link $n({a}) $n({b})] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] "
            f"[new SnoopQueue/Drop] $qm({k})",
        ]
        self.loss(k, a, b, link.get("loss"), where, on)
        schedule = link.get("rate_schedule")
        if schedule:
            self.rate_schedule(a, b, rate, schedule, where, on)

    def red(self, k: int, red: dict, where: str) -> None:
        byte_mode = red.get("mode", "packets") == "bytes"
        params = {
            "bytes_": "true" if byte_mode else "false",
            "queue_in_bytes_": "true" if byte_mode else "false",
            "thresh_": red.get("min_th") or 0,  # 0: ns-2's automatic threshold, as cclab's default
            "maxthresh_": red.get("max_th") or 0,
            "linterm_": _tcl_number(1.0 / red["max_p"]),
            "q_weight_": red.get("weight") if red.get("weight") is not None else -1,
            "gentle_": "true" if red["gentle"] else "false",
            "wait_": "true" if red["wait"] else "false",
            "mean_pktsize_": size_bytes(red["mean_packet_size"]),
            "targetdelay_": _tcl_number(red["target_delay_s"]),
            "setbit_": "true" if red["ecn"] else "false",
        }
        # Byte mode needs no note: cclab's byte mode is ns-2.35's (the queue limited to
        # limit × mean_pktsize bytes, drops spread by bytes arrived, scaled by size).
        self.lines += [f"$q({k}) set {name} {value}" for name, value in params.items()]

    def loss(self, k: int, a: int, b: int, loss: Optional[dict], where: str, on: str) -> None:
        if not loss:
            return
        model = loss["model"]
        out = self.lines
        if model == "bernoulli":
            out += [f"set em({k}) [new ErrorModel]", f"$em({k}) unit pkt", f"$em({k}) set rate_ {loss['rate']}",
                    f"$em({k}) ranvar [new RandomVariable/Uniform]"]
        elif model == "handoff":
            # An error model that loses everything during each of cclab's outages (the
            # engine lists them for this seed) and nothing in between.
            out += [f"set em({k}) [new ErrorModel]", f"$em({k}) unit pkt", f"$em({k}) set rate_ 0",
                    f"$em({k}) ranvar [new RandomVariable/Uniform]"]
            for start, end in self.outages[k]:
                out += [f"$ns at {_tcl_number(start)} \"$em({k}) set rate_ 1\"",
                        f"$ns at {_tcl_number(end)} \"$em({k}) set rate_ 0\""]
            self.note(f"{where}.loss: ns-2 judges a packet when it reaches the link, cclab when its transmission "
                      "would start: packets queued when an outage begins are lost in cclab, sent in ns-2")
        elif model == "periodic":
            every = int(loss["every"])
            # ns-2's periodic model (unit pkt, default_drop_ 0) drops packet offset_, then
            # every period_-th after it: the every-th, 2·every-th, ... as cclab's.
            out += [f"set em({k}) [new ErrorModel/Periodic]", f"$em({k}) unit pkt", f"$em({k}) set period_ {every}",
                    f"$em({k}) set offset_ {every}", f"$em({k}) set burstlen_ 0"]
        else:
            raise Unsupported(f"{where}.loss.model: {json.dumps(model)} ({on}) has no ns-2 equivalent here (cclab "
                              "exports \"bernoulli\", \"periodic\" and \"handoff\" loss)")
        # The model's drops go through a drop snoop into a monitor of their own (set after
        # `lossmodel`, which points them at the link's drop snoop, among the queue's drops).
        out += [f"$ns lossmodel $em({k}) $n({a}) $n({b})", f"set lm({k}) [new QueueMonitor]",
                f"set ls({k}) [new SnoopQueue/Drop]", f"$ls({k}) set-monitor $lm({k})", f"$ls({k}) target $null",
                f"$em({k}) drop-target $ls({k})"]

    def rate_schedule(self, a: int, b: int, high: int, schedule: dict, where: str, on: str) -> None:
        if schedule["kind"] != "square":
            raise Unsupported(f"{where}.rate_schedule.kind: {json.dumps(schedule['kind'])} ({on}) has no ns-2 "
                              "equivalent")
        low = rate_bps(schedule["low"])
        period = duration_s(schedule["period"])
        t, phase = duration_s(schedule.get("start", 0)), 1
        # ns-2's LinkDelay computes each packet's transmission time from bandwidth_ when
        # the transmission starts: the rate in force then, as in cclab.
        while t + phase * period <= self.duration + 1e-12:
            at = t + phase * period
            rate = low if phase % 2 == 1 else high
            self.lines.append(f"$ns at {_tcl_number(at)} \"[[$ns link $n({a}) $n({b})] link] set bandwidth_ {rate}\"")
            phase += 1

    def routes(self) -> None:
        """cclab's route for every flow (and the reverse for its replies), as ns-2
        per-destination next hops; a node that needs two next hops towards one
        destination cannot be expressed."""
        next_hop: dict[tuple[str, str], tuple[str, int]] = {}

        def add(path: list[str], flow_id: int) -> None:
            destination = path[-1]
            for here, there in zip(path, path[1:]):
                known = next_hop.setdefault((here, destination), (there, flow_id))
                if known[0] != there:
                    raise Unsupported(f"flows: flow {flow_id} goes {here} -> {there} towards {destination}, flow "
                                      f"{known[1]} goes {here} -> {known[0]}; ns-2 routes by destination only")

        for route in self.topology["flows"]:
            add(route["route"], route["id"])
            add(list(reversed(route["route"])), route["id"])
        for (here, destination), (there, _) in next_hop.items():
            h, d, t = self.nodes[here], self.nodes[destination], self.nodes[there]
            self.lines.append(f"[$n({h}) get-module Manual] add-route [$n({d}) set address_] "
                              f"[[$ns link $n({h}) $n({t})] head]")

    # ------------------------------------------------------------------ flows
    def payload_of(self, group: dict) -> int:
        """Payload bytes of a group's data packets: its own packet_size, or the scenario's."""
        size = group.get("packet_size")
        return self.payload if size is None else size_bytes(size)

    def flow(self, window: dict, route: list[str], g: int, group: dict) -> None:
        i = int(window["id"])
        src, dst = self.nodes[route[0]], self.nodes[route[-1]]
        transport = group.get("transport", "tcp")
        payload = self.payload_of(group)
        entry = {"id": i, "group": window["group"], "transport": transport, "cc": window["cc"], "agent": None,
                 "start_s": window["start_s"], "stop_s": window["stop_s"], "wire_bytes": payload + self.header,
                 "payload_bytes": payload, "syn_bytes": 0}
        if transport == "tcp":
            self.tcp_flow(i, g, group, entry)
        elif transport == "udp":
            self.udp_flow(i, g, group)
        else:
            self.tfrc_flow(i, g, group)
        self.lines += [f"$ns attach-agent $n({src}) $src({i})", f"$ns attach-agent $n({dst}) $dst({i})",
                       f"$ns connect $src({i}) $dst({i})"]
        start, stop = window["start_s"], window["stop_s"]
        starter = "$app({i})" if transport != "tfrc" else "$src({i})"
        starter = starter.format(i=i)
        if transport == "udp" and group["app"]["kind"] == "onoff" and _fixed_onoff(group["app"]):
            self.onoff_schedule(i, group["app"], start, stop)
        else:
            if start < self.duration:
                self.lines.append(f"$ns at {_tcl_number(start)} \"{starter} start\"")
            if stop is not None and stop < self.duration:
                self.lines.append(f"$ns at {_tcl_number(stop)} \"{starter} stop\"")
        self.flows.append(entry)

    def tcp_flow(self, i: int, g: int, group: dict, entry: dict) -> None:
        tcp, cc = group["tcp"], group["cc"]
        at = f"flows[{g}]"
        newreno = tcp["recovery"] == "newreno"
        agent = "Agent/TCP/Newreno" if newreno else "Agent/TCP/Sack1"
        ucla = cc["algorithm"] == "westwood-be" and cc.get("profile") == "ucla"
        if ucla:
            if not newreno:
                raise Unsupported(f"{at}.tcp.recovery: {json.dumps(tcp['recovery'])} (UCLA's Agent/TCP/WestwoodNR is a "
                                  "NewReno agent: use recovery = \"newreno\")")
            agent = "Agent/TCP/WestwoodNR"
        entry["agent"] = agent
        sink = ("Agent/TCPSink" if newreno else "Agent/TCPSink/Sack1") + ("/DelAck" if tcp["delayed_ack"] else "")
        payload = entry["payload_bytes"]
        params: dict[str, Any] = {"fid_": i, "packetSize_": payload}
        if self.header > 0:
            params.update(useHeaders_="true", tcpip_base_hdr_size_=self.header)
        else:
            params.update(useHeaders_="false", tcpip_base_hdr_size_=self.ack)
        if tcp["syn"]:
            # ns-2's SYN is tcpip_base_hdr_size_ bytes; cclab's is an ACK's size.
            entry["syn_bytes"] = params["tcpip_base_hdr_size_"]
            if self.header > 0 and self.header != self.ack:
                self.note(f"{at}: ns-2's SYN is header_size ({self.header}) bytes, cclab's ack_size ({self.ack})")
        params.update(self.tcp_parameters(tcp, at))
        params.update(self.window_control(cc, at))
        self.lines.append(f"set src({i}) [new {agent}]")
        self.lines += [f"$src({i}) set {name} {value}" for name, value in params.items()]
        self.lines += [f"set dst({i}) [new {sink}]", f"$dst({i}) set packetSize_ {self.ack}"]
        if self.scenario.get("trace", {}).get("flows"):
            # ns-2 writes a line whenever a traced variable changes: cwnd_ and ssthresh_.
            self.trace_files[i] = f"trace-{i}.tr"
            self.lines += [f"set tf({i}) [open {self.trace_files[i]} w]", f"$src({i}) attach $tf({i})",
                           f"$src({i}) trace cwnd_", f"$src({i}) trace ssthresh_"]
            if ucla:
                # current_bwe_ (payload bits/s) is no traced variable: sample it, in segments/s.
                self.lines.append(f"sample_bwe {i} {_tcl_number(ERE_SAMPLE_S)} {8 * payload}.0")
                self.ere_sampler = True
        if tcp["delayed_ack"]:
            self.lines.append(f"$dst({i}) set interval_ {_tcl_number(duration_s(tcp['delayed_ack_timeout']))}")
        app = group["app"]
        if app["kind"] == "bulk":
            self.lines += [f"set app({i}) [new Application/FTP]", f"$app({i}) attach-agent $src({i})"]
        else:  # cbr: the application writes packetSize_ bytes at `rate`
            self.lines += [f"set app({i}) [new Application/Traffic/CBR]", f"$app({i}) attach-agent $src({i})",
                           f"$app({i}) set packetSize_ {payload}", f"$app({i}) set rate_ {rate_bps(app['rate'])}"]
            self.note(f"{at}.app: ns-2's CBR writes its first segment at the start, cclab's one interval later")

    def tcp_parameters(self, tcp: dict, at: str) -> dict[str, Any]:
        """cclab's TCP parameters as ns-2 agent variables; values ns-2 cannot take are refused."""
        if float(tcp["initial_window"]) != int(tcp["initial_window"]):
            raise Unsupported(f"{at}.tcp.initial_window: {tcp['initial_window']} (ns-2's windowInit_ is whole segments)")
        if tcp["max_backoff"] != 64:
            raise Unsupported(f"{at}.tcp.max_backoff: {tcp['max_backoff']} (ns-2.35 always backs off up to 64×)")
        if float(tcp["initial_ssthresh"]) < tcp["max_window"]:
            raise Unsupported(f"{at}.tcp.initial_ssthresh: {tcp['initial_ssthresh']} (ns-2.35 starts ssthresh_ at "
                              "the window_; its max_ssthresh_ is limited slow start, not a start value)")
        profile = tcp.get("profile", "rfc")
        if profile not in ("rfc", "ns2"):
            raise Unsupported(f"{at}.tcp.profile: {json.dumps(profile)}")
        return {
            "window_": tcp["max_window"],
            "maxcwnd_": tcp["max_window"],
            "windowInit_": int(tcp["initial_window"]),
            "rtxcur_init_": _tcl_number(duration_s(tcp["initial_rto"])),
            "minrto_": _tcl_number(duration_s(tcp["min_rto"])),
            "maxrto_": _tcl_number(duration_s(tcp["max_rto"])),
            "tcpTick_": _tcl_number(duration_s(tcp["granularity"])),
            "numdupacks_": tcp["dupack_threshold"],
            "singledup_": 1 if tcp["limited_transmit"] else 0,
            "syn_": "true" if tcp["syn"] else "false",
            "delay_growth_": "true" if tcp["syn"] else "false",
            "ecn_": 1 if tcp["ecn"] else 0,
        }

    def window_control(self, cc: dict, at: str) -> dict[str, Any]:
        """The congestion control as windowOption_ and its parameters."""
        algorithm = cc["algorithm"]
        if algorithm == "westwood-be" and cc.get("profile") == "ucla":
            # Agent/TCP/WestwoodNR's ns-2 defaults but τ: filter 3 (the paper's τ filter).
            return {"windowOption_": 1, "increase_num_": 1, "decrease_num_": 0.5, "filter_type_": 3,
                    "tau_": _tcl_number(duration_s(cc["tau"]))}
        if algorithm not in ALGORITHMS:
            raise Unsupported(f"{at}.cc.algorithm: {json.dumps(algorithm)} has no ns-2.35 Agent/TCP equivalent (cclab "
                              f"exports {', '.join(ALGORITHMS)}, and westwood-be with profile = \"ucla\" to an ns-2 "
                              "built with UCLA's agent)")
        if cc.get("decrease", "ns2") != "ns2":
            raise Unsupported(f"{at}.cc.decrease: {json.dumps(cc['decrease'])} (ns-2.35 halves on the first cut, in slow start "
                              "and after a timeout whatever decrease_num_ is: only decrease = \"ns2\" is ns-2's)")
        if algorithm == "reno":
            return {"windowOption_": 1, "increase_num_": 1, "decrease_num_": 0.5}
        if algorithm == "aimd":
            alpha = cc["alpha"]
            if alpha == "friendly":
                alpha = 4 * (1 - cc["beta"] ** 2) / 3
            return {"windowOption_": 1, "increase_num_": _tcl_number(alpha), "decrease_num_": _tcl_number(cc["beta"])}
        if algorithm == "tcp(1/b)":
            beta = 1 - 1 / cc["b"]
            return {"windowOption_": 1, "increase_num_": _tcl_number(4 * (1 - beta**2) / 3),
                    "decrease_num_": _tcl_number(beta)}
        k, l, b = _binomial(cc)
        a = cc.get("a") if cc.get("a") is not None else 1.5 * b
        if math.isclose(1 - b, 0.5):
            self.note(f"{at}.cc: ns-2.35 cuts cwnd to half when decrease_num_ (1 − b) is exactly 0.5 (ssthresh "
                      "still takes the binomial decrease); cclab applies w − b·w^l to both")
        # ns-2 windowOption_ 6: cwnd += increase_num_/cwnd^(1+k) per ACK, cut to
        # w − (1 − decrease_num_)·w^l: decrease_num_ = 1 − b.
        return {"windowOption_": 6, "k_parameter_": _tcl_number(k), "l_parameter_": _tcl_number(l),
                "increase_num_": _tcl_number(a), "decrease_num_": _tcl_number(1 - b)}

    def udp_flow(self, i: int, g: int, group: dict) -> None:
        app = group["app"]
        at = f"flows[{g}].app"
        wire = self.payload_of(group) + self.header
        rate = rate_bps(app["rate"])
        self.lines += [f"set src({i}) [new Agent/UDP]", f"$src({i}) set fid_ {i}", f"$src({i}) set packetSize_ {wire}",
                       f"set dst({i}) [new Agent/LossMonitor]"]
        if app["kind"] == "cbr" or _fixed_onoff(app):
            jitter = app.get("jitter", 0.0)
            if jitter not in (0.0, 0.5):
                raise Unsupported(f"{at}.jitter: {jitter} (ns-2's CBR jitters by ±0.5 of the interval with random_ 1, "
                                  "or not at all)")
            self.lines += [f"set app({i}) [new Application/Traffic/CBR]", f"$app({i}) set packetSize_ {wire}",
                           f"$app({i}) set rate_ {rate}", f"$app({i}) set random_ {1 if jitter else 0}"]
        else:
            on, off = app["on"], app["off"]
            kinds = {_period_kind(on), _period_kind(off)}
            if kinds == {"exponential"}:
                self.lines += [f"set app({i}) [new Application/Traffic/Exponential]"]
            elif kinds == {"pareto"} and on["shape"] == off["shape"]:
                self.lines += [f"set app({i}) [new Application/Traffic/Pareto]", f"$app({i}) set shape_ {on['shape']}"]
            else:
                raise Unsupported(f"{at}: on/off periods {on!r} and {off!r} (ns-2 has fixed, both exponential, or both "
                                  "Pareto with one shape)")
            self.lines += [f"$app({i}) set packetSize_ {wire}", f"$app({i}) set rate_ {rate}",
                           f"$app({i}) set burst_time_ {_tcl_number(duration_s(_period_mean(on)))}",
                           f"$app({i}) set idle_time_ {_tcl_number(duration_s(_period_mean(off)))}"]
            self.note(f"{at}: ns-2 draws its own on/off periods (same distributions, not the same draws)")
        self.lines.append(f"$app({i}) attach-agent $src({i})")

    def onoff_schedule(self, i: int, app: dict, start: float, stop: Optional[float]) -> None:
        end = min(stop if stop is not None else self.duration, self.duration)
        on, off = duration_s(app["on"]), duration_s(app["off"])
        t = start
        while t < end:
            self.lines += [f"$ns at {_tcl_number(t)} \"$app({i}) start\"",
                           f"$ns at {_tcl_number(min(t + on, end))} \"$app({i}) stop\""]
            t += on + off

    def tfrc_flow(self, i: int, g: int, group: dict) -> None:
        tfrc = group["tfrc"]
        at = f"flows[{g}].tfrc"
        if tfrc.get("profile", "rfc5348") != "ns2":
            self.note(f"{at}.profile: {json.dumps(tfrc.get('profile'))}: ns-2 runs its own TFRC rules, which cclab's "
                      "profile = \"ns2\" follows")
        params = {"fid_": i, "packetSize_": self.payload_of(group), "useHeaders_": "true" if self.header else "false",
                  "headersize_": self.header, "ecn_": 1 if tfrc.get("ecn") else 0}
        sink = {"packetSize_": self.ack, "NumSamples_": tfrc.get("intervals", 8),
                "discount_": 1 if tfrc.get("discounting", tfrc.get("profile") == "ns2") else 0}
        if tfrc.get("ndupack") is not None:
            sink["numPkts_"] = tfrc["ndupack"]
        elif tfrc.get("profile", "rfc5348") == "rfc5348":
            sink["numPkts_"] = 3  # the RFC's NDUPACK, cclab's default for that profile
        self.lines.append(f"set src({i}) [new Agent/TFRC]")
        self.lines += [f"$src({i}) set {name} {value}" for name, value in params.items()]
        self.lines.append(f"set dst({i}) [new Agent/TFRCSink]")
        self.lines += [f"$dst({i}) set {name} {value}" for name, value in sink.items()]

    # ------------------------------------------------------------------ output
    def sampling(self) -> None:
        """Counters at every bin boundary and, at the end, one line of JSON."""
        flows = self.flows
        kinds = " ".join(f["transport"] for f in flows)
        ids = " ".join(str(f["id"]) for f in flows)
        links = len(self.topology["links"])
        bottleneck = next(k for k, link in enumerate(self.topology["links"])
                          if link["name"] == self.topology["bottleneck"])
        self.lines += [
            "proc delivered {i kind} {",
            "    global dst",
            "    if {$kind eq \"udp\"} { return [$dst($i) set npkts_] }",
            "    return [$dst($i) set bytes_]",
            "}",
            "set samples {}",
            "array set tf {}",
            "proc sample {} {",
            f"    global samples qm lm",
            "    set row {}",
            f"    foreach i {{{ids}}} kind {{{kinds}}} {{ lappend row [delivered $i $kind] }}",
            f"    set loss 0",
            f"    if {{[info exists lm({bottleneck})]}} {{ set loss [$lm({bottleneck}) set pdrops_] }}",
            f"    lappend samples \"\\[[join $row ,],[$qm({bottleneck}) set parrivals_],"
            f"[$qm({bottleneck}) set pdrops_],$loss,[$qm({bottleneck}) set bdepartures_]\\]\"",
            "}",
        ]
        for k in range(1, self.bins):
            self.lines.append(f"$ns at {_tcl_number(k * self.width)} sample")
        tcp_fields = ("\\\"sent\\\":[$src($i) set ndatapack_],\\\"retransmitted\\\":[$src($i) set nrexmitpack_],"
                      "\\\"timeouts\\\":[$src($i) set nrexmit_],\\\"ecn\\\":[$src($i) set necnresponses_],"
                      "\\\"cuts\\\":[$src($i) set ncwndcuts_]")
        self.lines += [
            "proc finish {} {",
            "    global ns src dst qm lm samples tf",
            "    sample",
            "    foreach i [array names tf] { close $tf($i) }",
            "    set flows {}",
            f"    foreach i {{{ids}}} kind {{{kinds}}} {{",
            "        set d [delivered $i $kind]",
            "        if {$kind eq \"tcp\"} {",
            f"            lappend flows \"{{\\\"delivered\\\":$d,{tcp_fields}}}\"",
            "        } elseif {$kind eq \"udp\"} {",
            "            lappend flows \"{\\\"delivered\\\":$d,\\\"sent\\\":[expr {$d + [$dst($i) set nlost_]}],"
            "\\\"lost\\\":[$dst($i) set nlost_]}\"",
            "        } else {",
            "            lappend flows \"{\\\"delivered\\\":$d,\\\"sent\\\":[$src($i) set ndatapack_]}\"",
            "        }",
            "    }",
            "    set links {}",
            f"    for {{set k 0}} {{$k < {links}}} {{incr k}} {{",
            "        set loss 0",
            "        if {[info exists lm($k)]} { set loss [$lm($k) set pdrops_] }",
            "        lappend links \"{\\\"arrivals\\\":[$qm($k) set parrivals_],\\\"departures\\\":[$qm($k) set pdepartures_],"
            "\\\"drops\\\":[$qm($k) set pdrops_],\\\"marks\\\":[$qm($k) set pmarks_],"
            "\\\"departed_bytes\\\":[$qm($k) set bdepartures_],\\\"loss_drops\\\":$loss}\"",
            "    }",
            "    puts \"{\\\"flows\\\":\\[[join $flows ,]\\],\\\"links\\\":\\[[join $links ,]\\],"
            "\\\"samples\\\":\\[[join $samples ,]\\]}\"",
            "    flush stdout",
            "    exit 0",
            "}",
            f"$ns at {_tcl_number(self.duration)} finish",
            "$ns run",
        ]


def _binomial(cc: dict) -> tuple[float, float, float]:
    """(k, l, b) of a binomial control, as cclab's presets define them."""
    algorithm = cc["algorithm"]
    if algorithm == "binomial":
        return cc["k"], cc["l"], cc["b"]
    if algorithm == "sqrt":
        return 0.5, 0.5, cc.get("b") if cc.get("b") is not None else 0.5
    if algorithm == "iiad":
        return 1.0, 0.0, cc.get("b") if cc.get("b") is not None else 2 / 3
    return 0.5, 0.5, 1 / cc["b"]  # sqrt(1/b)


def _period_kind(period: Any) -> str:
    if isinstance(period, dict):
        return "exponential" if "exponential" in period else "pareto"
    return "fixed"


def _period_mean(period: Any) -> Any:
    if isinstance(period, dict):
        return period.get("exponential", period.get("pareto"))
    return period


def _fixed_onoff(app: dict) -> bool:
    return app["kind"] == "onoff" and _period_kind(app["on"]) == "fixed" and _period_kind(app["off"]) == "fixed"
