//! General networks: graph and chain topologies, UDP sources, two-way traffic, per-link
//! results, and the speed shortcuts proven exact on all of them.
use cclab_core::{run, RunResult, Scenario, Simulation};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"))
}

/// Run with and without the shortcuts (pass-through links, eager hosts): every result
/// must be the same; only the number of events may differ, and it must (the shortcuts
/// were in use).
fn same_without_shortcuts(text: &str) -> RunResult {
    let (fast, slow) = with_and_without_shortcuts(text);
    assert!(slow.events > fast.events, "no shortcut was taken: {} events both ways", fast.events);
    fast
}

fn with_and_without_shortcuts(text: &str) -> (RunResult, RunResult) {
    let fast = run(scenario(text)).unwrap();
    let slow = Simulation::new(scenario(text)).unwrap().without_shortcuts().run().unwrap();
    let strip = |mut r: RunResult| {
        r.events = 0;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(fast.clone()), strip(slow.clone()), "shortcuts changed the results");
    (fast, slow)
}

fn conserved(r: &RunResult) {
    let c = &r.conservation;
    assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight, "{c:?}");
    assert_eq!(c.acks_sent, c.acks_received + c.acks_dropped + c.acks_in_flight, "{c:?}");
    assert_eq!(c.data_dropped + c.acks_dropped + c.syn_dropped, c.all_drops, "{c:?}");
    let link_drops: u64 = r.links.iter().map(|l| l.queue_drops + l.loss_drops).sum();
    assert_eq!(link_drops, c.all_drops);
}

fn group<'a>(r: &'a RunResult, name: &str) -> &'a cclab_core::metrics::GroupMetrics {
    r.groups.iter().find(|g| g.name == name).unwrap()
}

fn link<'a>(r: &'a RunResult, name: &str) -> &'a cclab_core::metrics::LinkMetrics {
    r.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}

const CHAIN_EXAMPLE: &str = include_str!("../../../experiments/graphs/chain-with-cross-traffic.toml");

#[test]
fn chain_with_cross_traffic_runs_as_written() {
    let r = same_without_shortcuts(&CHAIN_EXAMPLE.replace("\"60s\"", "\"30s\""));
    conserved(&r);
    // on/off 6 Mb/s, 1 s on / 1 s off from 10 s: 750 packets per on period, on periods
    // starting at 10, 12, ..., 28 s, plus the one due at exactly 30 s.
    let onoff = r.flows.iter().find(|f| f.group == "udp_onoff").unwrap();
    assert_eq!(onoff.data_packets_sent, 10 * 750 + 1);
    let cbr = r.flows.iter().find(|f| f.group == "udp_cbr").unwrap();
    assert_eq!(cbr.data_packets_sent, 10 * 625 + 1, "5 Mb/s from 20 s: 625 packets per second");
    assert_eq!(cbr.lost_packets, Some(0), "hop3 has room for everyone");
    // UDP has no TCP columns, TCP no UDP ones
    assert!(onoff.cc.is_none() && onoff.timeouts.is_none() && onoff.retransmitted_packets.is_none());
    let tcp = r.flows.iter().find(|f| f.group == "tcp").unwrap();
    assert!(tcp.lost_packets.is_none() && tcp.timeouts.is_some());
    // the slowest hop is the bottleneck; the system metrics describe it
    assert_eq!(r.system.bottleneck_link, "n1-n2");
    let bottleneck = link(&r, "n1-n2");
    assert_eq!(r.system.bottleneck_drops, bottleneck.queue_drops);
    assert!(bottleneck.queue_drops > 0 && bottleneck.utilization > 0.9, "{bottleneck:?}");
    // hop3 carries the TCP flow and the CBR flow, and is named
    assert_eq!(link(&r, "hop3").from, "n2");
    assert!(link(&r, "hop3").utilization > link(&r, "n3-n4").utilization * 20.0 / 30.0);
    // the TCP flow takes what the cross traffic leaves of 10 Mb/s
    let udp_on_bottleneck = group(&r, "udp_onoff").goodput_mbps;
    assert!(group(&r, "tcp").goodput_mbps + udp_on_bottleneck > 9.0, "{:?}", r.groups);
}

#[test]
fn udp_one_way_delay_is_propagation_plus_transmission_when_idle() {
    let r = run(scenario(
        r#"
duration = "2s"
header_size = 0
[topology]
kind = "chain"
hops = [{ rate = "8Mbps", delay = "10ms", buffer = 10 }, { rate = "4Mbps", delay = "5ms", buffer = 10 }]
[[flows]]
transport = "udp"
from = "n0"
to = "n2"
app = { kind = "cbr", rate = "1Mbps" }
"#,
    ))
    .unwrap();
    let flow = &r.flows[0];
    // 1000 bytes: 1 ms at 8 Mb/s, 2 ms at 4 Mb/s; 10 + 5 ms of propagation
    assert!((flow.mean_delay_ms.unwrap() - 18.0).abs() < 1e-9, "{flow:?}");
    assert_eq!(flow.lost_packets, Some(0));
    // sent every 8 ms from 0 to 2 s inclusive; those sent after 1.982 s are in flight
    assert_eq!(flow.data_packets_sent, 251);
    assert_eq!(flow.delivered_packets, 248);
    assert!((flow.goodput_mbps - 248.0 * 8000.0 / 2.0 / 1e6).abs() < 1e-9);
}

/// Two long TCP flows n0→n3 and two cross flows on each hop, everyone sharing hosts: the
/// long flows cross three bottlenecks and are beaten down.
const PARKING_LOT: &str = r#"
name = "parking-lot"
duration = "30s"
seed = 4
[topology]
kind = "chain"
hops = [
  { rate = "10Mbps", delay = "10ms", buffer = 50 },
  { rate = "10Mbps", delay = "10ms", buffer = 50 },
  { rate = "10Mbps", delay = "10ms", buffer = 50 },
]
[[flows]]
group = "long"
count = 2
from = "n0"
to = "n3"
start = { stagger = "1s" }
[[flows]]
group = "cross1"
count = 2
from = "n0"
to = "n1"
start = { stagger = "1s" }
[[flows]]
group = "cross2"
count = 2
from = "n1"
to = "n2"
start = { stagger = "1s" }
[[flows]]
group = "cross3"
count = 2
from = "n2"
to = "n3"
start = { stagger = "1s" }
"#;

#[test]
fn parking_lot_beats_the_long_flows_down() {
    // Every hop here is fed by a link and by hosts, and every reply link by several
    // receivers: no link qualifies as pass-through, so both runs are one event per hop.
    let (r, slow) = with_and_without_shortcuts(PARKING_LOT);
    assert_eq!(r.events, slow.events);
    conserved(&r);
    let long = group(&r, "long").goodput_mbps / 2.0;
    for cross in ["cross1", "cross2", "cross3"] {
        let per_flow = group(&r, cross).goodput_mbps / 2.0;
        assert!(per_flow > 1.5 * long, "{cross}: {per_flow} vs long {long}");
    }
    for hop in ["n0-n1", "n1-n2", "n2-n3"] {
        assert!(link(&r, hop).utilization > 0.9, "{:?}", link(&r, hop));
        assert!(link(&r, hop).queue_drops > 0);
    }
}

#[test]
fn two_way_dumbbell_carries_data_both_ways() {
    let text = r#"
duration = "20s"
seed = 2
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "25ms", buffer = 88 }
source_access = { rate = "100Mbps", delay = "5ms", buffer = 1000 }
sink_access = { rate = "100Mbps", delay = "5ms", buffer = 1000 }
[[flows]]
group = "forward"
count = 5
start = { stagger = "1s" }
[[flows]]
group = "reverse"
count = 5
direction = "reverse"
start = { stagger = "1s" }
tcp = { delayed_ack = true }
"#;
    let r = same_without_shortcuts(text);
    conserved(&r);
    // each direction of the bottleneck carries one group's data and the other's ACKs;
    // ACKs queued behind data lower the utilisation below one-way traffic's (the ns-2
    // cross-check in bench/ns2 measures the same effect)
    for (direction, name) in [("r1-r2", "forward"), ("r2-r1", "reverse")] {
        let l = link(&r, direction);
        assert!(l.utilization > 0.6, "{l:?}");
        assert!(group(&r, name).goodput_mbps > 5.0, "{:?}", r.groups);
    }
    // a reverse flow's data goes d → r2 → r1 → s
    let reverse_flow = r.flows.iter().find(|f| f.group == "reverse").unwrap();
    let sink_side = format!("d{}", reverse_flow.id);
    assert!(link(&r, &format!("{sink_side}-r2")).departures as f64 > 0.9 * reverse_flow.data_packets_sent as f64);
}

/// Many sources into one router, out over one link to several sinks on one host, with
/// UDP cross traffic entering mid-path: links fed by several others, hosts shared.
#[test]
fn shortcuts_are_exact_with_shared_hosts_and_merging_links() {
    let text = r#"
duration = "15s"
seed = 11
[topology]
kind = "graph"
links = [
  { from = "a", to = "r", rate = "20Mbps", delay = "2ms", buffer = 40 },
  { from = "b", to = "r", rate = "20Mbps", delay = "7ms", buffer = 40 },
  { from = "r", to = "s", rate = "8Mbps", delay = "10ms", buffer = 30, loss = { model = "bernoulli", rate = 0.002 } },
  { from = "s", to = "z", rate = "50Mbps", delay = "1ms", buffer = 100 },
  { from = "c", to = "s", rate = "50Mbps", delay = "1ms", buffer = 100 },
]
[[flows]]
group = "from-a"
count = 3
from = "a"
to = "z"
start = { random = "1s" }
[[flows]]
group = "from-b"
count = 2
from = "b"
to = "z"
cc = { algorithm = "aimd", alpha = 0.31, beta = 0.875 }
tcp = { recovery = "newreno", delayed_ack = true }
[[flows]]
group = "reverse-to-a"
from = "z"
to = "a"
start = "3s"
[[flows]]
group = "udp"
transport = "udp"
from = "c"
to = "z"
app = { kind = "onoff", rate = "10Mbps", on = { exponential = "0.5s" }, off = { exponential = "1s" } }
[[flows]]
group = "udp-through"
transport = "udp"
route = ["a", "r", "s"]
app = { kind = "cbr", rate = "1Mbps", jitter = 0.5 }
"#;
    let r = same_without_shortcuts(text);
    conserved(&r);
    assert_eq!(r.system.bottleneck_link, "r-s");
    assert!(link(&r, "r-s").loss_drops > 0);
    assert!(group(&r, "udp").goodput_mbps > 1.0 && group(&r, "reverse-to-a").goodput_mbps > 1.0, "{:?}", r.groups);
}

#[test]
fn a_graph_written_like_the_dumbbell_gives_the_same_results() {
    let dumbbell = include_str!("golden/standard_short.toml");
    let flows = 100;
    let mut graph = String::from(
        "name = \"golden-standard\"\nduration = \"10s\"\nseed = 1\npacket_size = \"1000B\"\n[topology]\nkind = \"graph\"\nlinks = [\n  { from = \"r1\", to = \"r2\", rate = \"100Mbps\", delay = \"25ms\", buffer = \"1bdp\" },\n",
    );
    for i in 0..flows {
        graph += &format!("  {{ from = \"s{i}\", to = \"r1\", rate = \"100Mbps\", delay = \"5ms\" }},\n");
        graph += &format!("  {{ from = \"r2\", to = \"d{i}\", rate = \"100Mbps\", delay = \"5ms\" }},\n");
    }
    graph += "]\n";
    for i in 0..flows {
        let start = i as f64 / flows as f64;
        graph += &format!("[[flows]]\ngroup = \"f{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\ncc = \"reno\"\nstart = \"{start}s\"\n");
    }
    let as_graph = run(scenario(&graph)).unwrap();
    let as_dumbbell = run(scenario(dumbbell)).unwrap();
    assert_eq!(as_graph.events, as_dumbbell.events);
    assert_eq!(serde_json::to_string(&as_graph.system).unwrap(), serde_json::to_string(&as_dumbbell.system).unwrap());
    assert_eq!(serde_json::to_string(&as_graph.links).unwrap(), serde_json::to_string(&as_dumbbell.links).unwrap());
    assert_eq!(as_graph.bins, as_dumbbell.bins);
    assert_eq!(as_graph.conservation, as_dumbbell.conservation);
    for (a, b) in as_graph.flows.iter().zip(&as_dumbbell.flows) {
        assert_eq!((a.goodput_mbps, a.timeouts, a.retransmitted_packets), (b.goodput_mbps, b.timeouts, b.retransmitted_packets));
    }
}

#[test]
fn bad_networks_and_flows_get_one_line_naming_the_field() {
    let base = |links: &str, flows: &str| {
        format!("duration = \"1s\"\n[topology]\nkind = \"graph\"\nlinks = [{links}]\n{flows}")
    };
    let ab = r#"{ from = "a", to = "b", rate = "10Mbps", delay = "5ms", buffer = 10 }"#;
    let cd = r#"{ from = "c", to = "d", rate = "10Mbps", delay = "5ms", buffer = 10 }"#;
    let flow = |extra: &str| format!("[[flows]]\n{extra}\n");
    let cases = [
        (base(ab, &flow("from = \"a\"\nto = \"q\"")), "flows[0].to: unknown node \"q\""),
        (base(&format!("{ab}, {cd}"), &flow("from = \"a\"\nto = \"d\"")), "flows[0].to: node \"d\" cannot be reached from \"a\""),
        (base(&format!("{ab}, {cd}"), &flow("route = [\"a\", \"d\"]")), "flows[0].route: is not a path: no link between \"a\" and \"d\""),
        (base(&format!("{ab}, {ab}"), &flow("from = \"a\"\nto = \"b\"")), "topology.links[1]: a second link between \"a\" and \"b\""),
        (base(&ab.replace("10Mbps", "0Mbps"), &flow("from = \"a\"\nto = \"b\"")), "topology.links[0].rate: \"0Mbps\" is not positive"),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\ntransport = \"udp\"\ncc = \"reno\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }")), "flows[0].cc: \"reno\": a UDP flow has no congestion control"),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\ntransport = \"udp\"")), "flows[0].app: a UDP flow needs"),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\ndirection = \"reverse\"")), "flows[0].direction: applies to the dumbbell only"),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\ntransport = \"quic\"")), "flows[0].transport: unknown transport \"quic\", expected one of: tcp, udp"),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\napp = { kind = \"onoff\", rate = \"1Mbps\", on = \"1s\", off = \"1s\" }")), "flows[0].app: an on/off source needs transport = \"udp\""),
        (base(ab, &flow("to = \"b\"")), "flows[0].from: missing"),
        (base(ab, &flow("from = \"a\"\nto = \"a\"")), "flows[0].to: \"a\" is the same node as from"),
        (base(&ab.replace("\"b\"", "\"a\""), &flow("")), "topology.links[0].to: \"a\" is the same node as from"),
        (
            "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = { rate = \"10Mbps\", delay = \"5ms\" }\nsource_access = { rate = \"10Mbps\", delay = \"5ms\" }\nsink_access = { rate = \"10Mbps\", delay = \"5ms\" }\n[[flows]]\nfrom = \"s0\"\n".to_string(),
            "flows[0].from: a dumbbell gives each flow its own hosts",
        ),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\ntransport = \"udp\"\napp = { kind = \"cbr\", rate = \"9Tbps\" }")), "flows[0].app.rate: 9000Gbps sends 1040-byte packets more often than once per nanosecond"),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\ntransport = \"udp\"\napp = { kind = \"cbr\", rate = \"1e15bps\" }")), "flows[0].app.rate: \"1e15bps\" is above 10Tbps, the fastest link cclab takes"),
        ("duration = \"1s\"\n[topology]\nkind = \"ring\"\n[[flows]]\n".to_string(), "topology.kind: unknown kind \"ring\", expected one of: dumbbell, graph, chain"),
        (base(ab, &flow("from = \"a\"\nto = \"b\"\ntransport = 5")), "flows[0].transport: 5 is not one of: tcp, udp"),
        (base(&ab.replace("buffer = 10", "buffer = 10, loss = { model = \"none\", rate = 1 }"), &flow("from = \"a\"\nto = \"b\"")), "topology.links[0].loss.rate: unknown field: \"none\" has no parameters"),
    ];
    for (text, expected) in cases {
        let err = Scenario::from_toml_str(&text).map(|_| ()).unwrap_err().0;
        assert!(err.starts_with(expected), "{err:?} should start with {expected:?}");
        assert!(!err.contains('\n'), "one line: {err:?}");
    }
}
