//! Queue disciplines through the engine: every kind on any link direction, the speed
//! shortcuts still exact around them, packets conserved, and each discipline doing what
//! its definition says (CoDel's sojourn near its target, PIE's delay near its target,
//! FQ-CoDel isolating a flow that ignores congestion, DCTCP's queue near the marking
//! threshold, DualPI2's two queues near their targets with Prague and CUBIC sharing).
use cclab_core::{run, RunResult, Scenario, Simulation};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"))
}

/// Run with and without the shortcuts: every result the same.
fn same_without_shortcuts(text: &str) -> RunResult {
    let fast = run(scenario(text)).unwrap();
    let slow = Simulation::new(scenario(text)).unwrap().without_shortcuts().run().unwrap();
    let strip = |mut r: RunResult| {
        r.events = 0;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(fast.clone()), strip(slow), "shortcuts changed the results");
    fast
}

fn conserved(r: &RunResult) {
    let c = &r.conservation;
    assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight, "{c:?}");
    assert_eq!(c.acks_sent, c.acks_received + c.acks_dropped + c.acks_in_flight, "{c:?}");
    assert_eq!(c.data_dropped + c.acks_dropped + c.syn_dropped, c.all_drops, "{c:?}");
    let link_drops: u64 = r.links.iter().map(|l| l.queue_drops + l.loss_drops).sum();
    assert_eq!(link_drops, c.all_drops);
    for link in &r.links {
        assert!(link.aqm_drops <= link.queue_drops, "{link:?}");
        assert!(link.departures <= link.arrivals, "{link:?}");
    }
}

/// `count` flows of `cc` (a TOML value) over a 10 Mb/s, 20-ms bottleneck with `queue`
/// and `buffer` packets, 1000-byte packets.
fn dumbbell(queue: &str, buffer: u32, cc: &str, count: u32, duration: &str, tcp: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 3
packet_size = "1000B"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = {buffer}, queue = {queue} }}
source_access = {{ rate = "100Mbps", delay = "1ms", buffer = 1000 }}
sink_access = {{ rate = "100Mbps", delay = "1ms", buffer = 1000 }}
[[flows]]
count = {count}
cc = {cc}
start = {{ stagger = "0.5s" }}
tcp = {{ {tcp} }}
"#
    )
}

const DISCIPLINES: [&str; 7] = [
    "\"droptail\"",
    "\"red\"",
    "\"codel\"",
    "\"fq_codel\"",
    "\"pie\"",
    "{ kind = \"step_mark\", threshold = 15 }",
    "\"dualpi2\"",
];

#[test]
fn every_discipline_at_the_bottleneck_keeps_the_shortcuts_exact_and_conserves_packets() {
    for queue in DISCIPLINES {
        let r = same_without_shortcuts(&dumbbell(queue, 100, "\"reno\"", 3, "8s", "ecn = true"));
        conserved(&r);
        assert!(r.system.bottleneck_utilization > 0.8, "{queue}: {:?}", r.system);
    }
}

/// Disciplines on access links, on a link fed by several, and on the ACK path, in a
/// graph with UDP cross traffic and two-way TCP: the dequeue-time links break the
/// pass-through chains around them, and the results still do not depend on shortcuts.
#[test]
fn disciplines_anywhere_in_a_graph_keep_the_shortcuts_exact() {
    let text = r#"
duration = "10s"
seed = 5
[topology]
kind = "graph"
links = [
  { from = "a", to = "r", rate = "20Mbps", delay = "2ms", buffer = 40, queue = "codel" },
  { from = "b", to = "r", rate = "20Mbps", delay = "7ms", buffer = 40, queue = "pie" },
  { from = "r", to = "s", rate = "8Mbps", delay = "10ms", buffer = 60, queue = "fq_codel" },
  { from = "s", to = "z", rate = "50Mbps", delay = "1ms", buffer = 100, queue = { kind = "step_mark", threshold = 5 } },
  { from = "c", to = "s", rate = "50Mbps", delay = "1ms", buffer = 100 },
]
[[flows]]
group = "from-a"
count = 2
from = "a"
to = "z"
tcp = { ecn = true }
[[flows]]
group = "from-b"
from = "b"
to = "z"
cc = "cubic"
[[flows]]
group = "reverse"
from = "z"
to = "a"
start = "2s"
[[flows]]
group = "udp"
transport = "udp"
from = "c"
to = "z"
app = { kind = "onoff", rate = "10Mbps", on = { exponential = "0.5s" }, off = { exponential = "1s" } }
"#;
    let r = same_without_shortcuts(text);
    conserved(&r);
    let link = |name: &str| r.links.iter().find(|l| l.name == name).unwrap();
    assert!(link("r-s").aqm_drops + link("r-s").ecn_marks > 0, "{:?}", link("r-s"));
    assert!(r.groups.iter().all(|g| g.goodput_mbps > 0.1), "{:?}", r.groups);
}

#[test]
fn results_are_bit_identical_run_to_run() {
    for queue in DISCIPLINES {
        let text = dumbbell(queue, 80, "\"cubic\"", 4, "5s", "");
        let a = serde_json::to_string(&run(scenario(&text)).unwrap()).unwrap();
        let b = serde_json::to_string(&run(scenario(&text)).unwrap()).unwrap();
        assert_eq!(a, b, "{queue}");
    }
}

/// RFC 8289 §1, §3: CoDel keeps the standing queue's sojourn time near `target` (5 ms)
/// however large the buffer, where DropTail lets loss-driven TCP fill it.
#[test]
fn codel_holds_the_sojourn_time_near_its_target() {
    let droptail = run(scenario(&dumbbell("\"droptail\"", 1000, "\"reno\"", 4, "40s", ""))).unwrap();
    let codel = run(scenario(&dumbbell("\"codel\"", 1000, "\"reno\"", 4, "40s", ""))).unwrap();
    assert!(droptail.system.mean_queue_delay_ms > 100.0, "{:?}", droptail.system);
    let delay = codel.system.mean_queue_delay_ms;
    assert!((3.0..=15.0).contains(&delay), "CoDel's mean sojourn {delay} ms, target 5 ms");
    assert!(codel.system.bottleneck_utilization > 0.9, "{:?}", codel.system);
    // a 1000-packet buffer never fills: every drop is CoDel's
    assert!(codel.system.bottleneck_aqm_drops > 0);
    assert_eq!(codel.system.bottleneck_aqm_drops, codel.system.bottleneck_drops);
    conserved(&codel);
    // with ECN, the same control law marks instead
    let marked = run(scenario(&dumbbell("{ kind = \"codel\", ecn = true }", 1000, "\"reno\"", 4, "40s", "ecn = true"))).unwrap();
    assert_eq!(marked.system.bottleneck_drops, 0, "{:?}", marked.system);
    assert!(marked.system.bottleneck_ecn_marks > 10 && marked.system.mean_queue_delay_ms < 15.0, "{:?}", marked.system);
}

/// RFC 8033 §4: PIE steers the queueing delay towards `target` (15 ms).
#[test]
fn pie_holds_the_queueing_delay_near_its_target() {
    let pie = run(scenario(&dumbbell("\"pie\"", 1000, "\"reno\"", 4, "40s", ""))).unwrap();
    let delay = pie.system.mean_queue_delay_ms;
    assert!((7.5..=30.0).contains(&delay), "PIE's mean queueing delay {delay} ms, target 15 ms");
    assert!(pie.system.bottleneck_utilization > 0.9, "{:?}", pie.system);
    assert_eq!(pie.system.bottleneck_aqm_drops, pie.system.bottleneck_drops);
    let slower = run(scenario(&dumbbell("{ kind = \"pie\", target = \"40ms\" }", 1000, "\"reno\"", 4, "40s", ""))).unwrap();
    assert!(slower.system.mean_queue_delay_ms > 1.5 * delay, "{} vs {delay}", slower.system.mean_queue_delay_ms);
}

/// RFC 8290 §1: flow queueing isolates flows; a UDP flow sending 8 Mb/s into 10 Mb/s
/// starves a TCP flow behind DropTail, but gets only about its fair share under FQ-CoDel
/// (a little more: the one Reno flow, kept to a 5-ms queue, leaves some of its share idle,
/// which DRR gives the backlogged UDP queue).
#[test]
fn fq_codel_isolates_a_flow_that_ignores_congestion() {
    let text = |queue: &str| {
        format!(
            r#"
duration = "30s"
seed = 2
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = 200, queue = {queue} }}
source_access = {{ rate = "100Mbps", delay = "1ms" }}
sink_access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
group = "tcp"
[[flows]]
group = "udp"
transport = "udp"
app = {{ kind = "cbr", rate = "8Mbps" }}
"#
        )
    };
    let goodput = |r: &RunResult, group: &str| r.groups.iter().find(|g| g.name == group).unwrap().goodput_mbps;
    let fifo = run(scenario(&text("\"droptail\""))).unwrap();
    let fq = run(scenario(&text("\"fq_codel\""))).unwrap();
    assert!(goodput(&fifo, "tcp") < 2.5, "{:?}", fifo.groups);
    assert!(goodput(&fq, "tcp") > 3.5, "{:?}", fq.groups);
    assert!(goodput(&fq, "udp") < 6.0, "{:?}", fq.groups);
    // the TCP flow's own queue stays short: its RTT is near the base RTT
    let tcp = fq.flows.iter().find(|f| f.group == "tcp").unwrap();
    assert!(tcp.mean_rtt_ms.unwrap() < tcp.base_rtt_ms + 20.0, "{tcp:?}");
}

/// RFC 8257 §3: with marking above K packets, DCTCP holds the queue near K without
/// loss, at full utilisation.
#[test]
fn dctcp_keeps_the_queue_near_the_marking_threshold() {
    let threshold = 20.0;
    let r = run(scenario(&dumbbell("{ kind = \"step_mark\", threshold = 20 }", 200, "\"dctcp\"", 4, "30s", ""))).unwrap();
    assert_eq!(r.system.bottleneck_drops, 0, "{:?}", r.system);
    assert!(r.system.bottleneck_ecn_marks > 100, "{:?}", r.system);
    assert!(r.system.bottleneck_utilization > 0.95, "{:?}", r.system);
    // 1000-byte packets at 10 Mb/s: 0.8 ms each
    let queue_packets = r.system.mean_queue_delay_ms / 0.8;
    assert!((0.5 * threshold..=1.5 * threshold).contains(&queue_packets), "mean queue {queue_packets} packets, K 20");
}

#[test]
fn bad_parameters_name_the_field() {
    for (queue, needle) in [
        ("{ kind = \"codel\", target = \"0s\" }", "topology.bottleneck.queue.target"),
        ("{ kind = \"fq_codel\", quantum = 0 }", "topology.bottleneck.queue.quantum"),
        ("{ kind = \"pie\", alpha = -1 }", "topology.bottleneck.queue.alpha"),
        ("{ kind = \"step_mark\" }", "threshold"),
        ("\"codle\"", "unknown kind \"codle\""),
        ("{ kind = \"dualpi2\", coupling = 0 }", "topology.bottleneck.queue.coupling: 0 is outside [1, 255]"),
        ("{ kind = \"dualpi2\", alpha = 0 }", "topology.bottleneck.queue.alpha: 0 is not a gain in (0, 1000]"),
        ("{ kind = \"dualpi2\", beta = -3.2 }", "topology.bottleneck.queue.beta"),
        ("{ kind = \"dualpi2\", c_weight = 150 }", "topology.bottleneck.queue.c_weight: 150 is not a percentage in [0, 100]"),
        ("{ kind = \"dualpi2\", step_threshold = \"0s\" }", "topology.bottleneck.queue.step_threshold"),
        ("{ kind = \"dualpi2\", tupdate = \"16\" }", "tupdate"),
        ("{ kind = \"dualpi2\", k = 2 }", "k"),
    ] {
        let error = Scenario::from_toml_str(&dumbbell(queue, 100, "\"reno\"", 1, "1s", "")).expect_err(queue).to_string();
        assert!(error.contains(needle), "{queue}: {error}");
        assert_eq!(error.lines().count(), 1, "{error}");
    }
    for (cc, needle) in [
        ("{ algorithm = \"prague\", g = 2 }", "g: 2 is outside (0, 1]"),
        ("{ algorithm = \"prague\", rtt_target = \"0s\" }", "rtt_target"),
        ("{ algorithm = \"prague\", rtt_scaling = \"fast\" }", "rtt_scaling"),
        ("{ algorithm = \"prague\", initial_alpha = -1 }", "initial_alpha"),
    ] {
        let error = Scenario::from_toml_str(&dumbbell("\"dualpi2\"", 100, cc, 1, "1s", "")).expect_err(cc).to_string();
        assert!(error.contains(needle), "{cc}: {error}");
        assert_eq!(error.lines().count(), 1, "{error}");
    }
}

/// `prague` and `cubic` flows (`count` each, classic ones with `ecn`) sharing a 20 Mb/s
/// DualPI2 bottleneck at equal RTTs (10 ms each way), 1000-byte packets, for 60 s.
fn l4s_dumbbell(count: u32, seed: u64, cubic_ecn: bool, queue: &str) -> String {
    format!(
        r#"
duration = "60s"
seed = {seed}
packet_size = "1000B"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "20Mbps", delay = "10ms", buffer = 1000, queue = {queue} }}
source_access = {{ rate = "1Gbps", delay = "1ms" }}
sink_access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
group = "prague"
count = {count}
cc = "prague"
[[flows]]
group = "cubic"
count = {count}
cc = "cubic"
tcp = {{ ecn = {cubic_ecn} }}
"#
    )
}

fn goodput(r: &RunResult, group: &str) -> f64 {
    r.groups.iter().find(|g| g.name == group).unwrap().goodput_mbps
}

/// RFC 9332 §1, §2.1: the coupling (k = 2) gives a Prague flow and a CUBIC flow about
/// equal rates at equal RTTs, while the L queue stays near the step's 1 ms and the C
/// queue near the PI² target (15 ms); Prague's packets go to L (ECT(1)), CUBIC's to C.
#[test]
fn prague_and_cubic_share_a_dualpi2_link() {
    for (count, seed) in [(1, 1), (1, 2), (2, 1)] {
        let r = same_without_shortcuts(&l4s_dumbbell(count, seed, false, "\"dualpi2\""));
        conserved(&r);
        let (prague, cubic) = (goodput(&r, "prague"), goodput(&r, "cubic"));
        assert!(prague / cubic < 2.0 && cubic / prague < 2.0, "{count}×2 flows, seed {seed}: prague {prague}, cubic {cubic}");
        assert!(r.system.bottleneck_utilization > 0.95, "{:?}", r.system);
        let link = r.links.iter().find(|l| l.name == r.system.bottleneck_link).unwrap();
        let (l, c) = (&link.queues[0], &link.queues[1]);
        assert_eq!((l.name, c.name), ("L", "C"));
        assert!(l.packets > 10_000 && c.packets > 10_000, "{:?}", link.queues);
        assert!(l.mean_delay_ms > 0.0 && l.mean_delay_ms < 1.0, "L queue {} ms", l.mean_delay_ms);
        assert!((10.0..=20.0).contains(&c.mean_delay_ms), "C queue {} ms (target 15)", c.mean_delay_ms);
        // Prague is only marked (ECN, no loss); CUBIC without ECN only dropped
        assert!(l.marks > 1000 && l.drops == 0, "{l:?}");
        assert!(c.drops > 0 && c.marks == 0, "{c:?}");
        assert_eq!(link.ecn_marks, l.marks + c.marks);
    }
}

/// Classic ECN flows through DualPI2 are marked in the C queue (RFC 3168 echo, unchanged)
/// with p'², not dropped; Prague and the ECN-capable CUBIC still share.
#[test]
fn dualpi2_marks_classic_ecn_flows_in_the_c_queue() {
    let r = run(scenario(&l4s_dumbbell(1, 1, true, "\"dualpi2\""))).unwrap();
    let link = r.links.iter().find(|l| l.name == r.system.bottleneck_link).unwrap();
    let c = &link.queues[1];
    assert!(c.marks > 20 && c.drops == 0, "{c:?}");
    let (prague, cubic) = (goodput(&r, "prague"), goodput(&r, "cubic"));
    assert!(prague / cubic < 2.0 && cubic / prague < 2.0, "prague {prague}, cubic {cubic}");
}

/// Without the L4S identifier nothing reaches the L queue: a DCTCP flow (ECT(0), exact
/// echo) is a classic flow to DualPI2, and Prague on a single-queue AQM is marked there.
#[test]
fn only_l4s_packets_use_the_l_queue() {
    let text = dumbbell("\"dualpi2\"", 1000, "\"dctcp\"", 2, "20s", "");
    let r = run(scenario(&text)).unwrap();
    let link = r.links.iter().find(|l| l.name == r.system.bottleneck_link).unwrap();
    assert_eq!(link.queues[0].packets, 0, "{:?}", link.queues);
    assert!(link.queues[1].marks > 0, "{:?}", link.queues);
    let pie = run(scenario(&dumbbell("{ kind = \"pie\", ecn = true }", 1000, "\"prague\"", 2, "20s", ""))).unwrap();
    assert!(pie.system.bottleneck_ecn_marks > 0 && pie.system.bottleneck_utilization > 0.9, "{:?}", pie.system);
    assert!(link.queues.len() == 2 && pie.links.iter().all(|l| l.queues.is_empty()));
}

/// tcp_prague.c's classic-ECN fallback (`ecn_fallback`): in a single classic ECN queue
/// (PIE marking, 15 ms) Prague's small cuts take most of the link from an ECN CUBIC flow;
/// with the fallback it detects the classic queue (the RTT's variation and standing
/// queue) and cuts as a classic flow, so they share. On DualPI2 it detects nothing: the
/// run is the same with it or without.
#[test]
fn prague_falls_back_to_classic_ecn_in_a_single_queue() {
    let text = |queue: &str, fallback: bool| {
        l4s_dumbbell(1, 1, true, queue).replace("cc = \"prague\"", &format!("cc = {{ algorithm = \"prague\", ecn_fallback = {fallback} }}"))
    };
    let pie = "{ kind = \"pie\", ecn = true }";
    let plain = run(scenario(&text(pie, false))).unwrap();
    assert!(goodput(&plain, "prague") > 4.0 * goodput(&plain, "cubic"), "{:?}", plain.groups);
    let fallback = run(scenario(&text(pie, true))).unwrap();
    let (prague, cubic) = (goodput(&fallback, "prague"), goodput(&fallback, "cubic"));
    assert!(prague / cubic < 1.5 && cubic / prague < 1.5, "prague {prague}, cubic {cubic}");
    // (the flow's traced state has the score, 0, besides)
    let strip = |r: RunResult| serde_json::to_string(&(r.system, r.groups, r.links, r.events)).unwrap();
    let dual = |fallback| run(scenario(&text("\"dualpi2\"", fallback))).unwrap();
    assert_eq!(strip(dual(false)), strip(dual(true)));
}

/// tcp_prague.c's RTT independence (`rtt_scaling = "rate"`, target 25 ms): two Prague
/// flows with base RTTs of 4 and 40 ms through one DualPI2 L queue. Without it the short
/// flow takes almost everything (DCTCP-like growth of one segment per RTT); with it, the
/// short flow grows as if its RTT were 25 ms and the long one keeps a fair part.
#[test]
fn prague_rtt_independence_narrows_the_rtt_unfairness() {
    let text = |scaling: &str| {
        format!(
            r#"
duration = "120s"
seed = 1
packet_size = "1000B"
[topology]
kind = "graph"
links = [
  {{ from = "a", to = "r", rate = "1Gbps", delay = "1ms" }},
  {{ from = "b", to = "r", rate = "1Gbps", delay = "19ms" }},
  {{ from = "r", to = "s", rate = "40Mbps", delay = "1ms", buffer = 2000, queue = "dualpi2" }},
]
[[flows]]
group = "short"
from = "a"
to = "s"
cc = {{ algorithm = "prague", rtt_scaling = "{scaling}" }}
[[flows]]
group = "long"
from = "b"
to = "s"
cc = {{ algorithm = "prague", rtt_scaling = "{scaling}" }}
"#
        )
    };
    let ratio = |r: &RunResult| goodput(r, "short") / goodput(r, "long");
    let none = run(scenario(&text("none"))).unwrap();
    let rate = run(scenario(&text("rate"))).unwrap();
    assert_eq!(none.flows.iter().map(|f| f.base_rtt_ms).collect::<Vec<_>>(), vec![4.0, 40.0]);
    assert!(ratio(&none) > 10.0, "without RTT independence: {}", ratio(&none));
    assert!(ratio(&rate) < 4.0 && ratio(&rate) > 1.0, "with it: {}", ratio(&rate));
    assert!(rate.system.bottleneck_utilization > 0.95 && none.system.bottleneck_utilization > 0.95);
}
