//! The stepping API (`Simulation::for_stepping`, `run_until`, `act`, `monitor`) and the
//! agent controller (`cc = { algorithm = "agent" }`): stepping without actions changes no
//! result; an agent over a base algorithm is that algorithm; a held window is a window;
//! the intervals add up to the flow's totals; actions act at once.
use cclab_core::{run, FlowInterval, RunLimits, RunResult, Scenario, Simulation};

const MS: u64 = 1_000_000;

fn scenario(flows: &str, extra: &str) -> Scenario {
    let text = format!(
        r#"
name = "step"
duration = "6s"
seed = 7
{extra}
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "20Mbps", delay = "15ms", buffer = 60, loss = {{ model = "bernoulli", rate = 0.002 }} }}
source_access = {{ rate = "100Mbps", delay = "2ms" }}
sink_access = {{ rate = "100Mbps", delay = "3ms" }}
{flows}
"#
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

const MIXED: &str = r#"
[[flows]]
group = "agent"
cc = { algorithm = "agent", mode = "multiplier", base = "cubic" }
[[flows]]
group = "reno"
count = 2
cc = "reno"
start = { stagger = "300ms" }
[[flows]]
group = "bbr"
cc = "bbr"
start = "1s"
"#;

fn json(mut result: RunResult) -> String {
    result.events = 0; // shortcuts taken or not change only the event count
    serde_json::to_string(&result).unwrap()
}

/// Step through the run in `step` slices, reading each agent's interval (and, with
/// `act`, setting its decision) at each boundary; the intervals and the results.
fn stepped(scenario: Scenario, step: u64, mut act: impl FnMut(u64, &FlowInterval) -> Option<f64>) -> (Vec<FlowInterval>, RunResult) {
    let mut sim = Simulation::for_stepping(scenario, &RunLimits::default()).unwrap();
    let agents = sim.agent_flows().to_vec();
    let mut intervals = Vec::new();
    let mut t = 0;
    while t < sim.horizon() {
        t = sim.run_until(t + step);
        for &flow in &agents {
            let interval = sim.monitor(flow).unwrap();
            if t < sim.horizon() {
                if let Some(value) = act(t, &interval) {
                    sim.act(flow, value).unwrap();
                }
            }
            intervals.push(interval);
        }
    }
    (intervals, sim.finish_stepped().unwrap())
}

/// Steps of any length, read at every boundary, with the multiplier left at 1 (a = 0):
/// the results are the run's, bit for bit, under each profile.
#[test]
fn stepping_without_actions_changes_no_result() {
    for extra in ["", "profile = \"linux\"", "profile = \"ns2\""] {
        let direct = run(scenario(MIXED, extra)).unwrap();
        for step in [37 * MS, 100 * MS, 1_000 * MS] {
            let (intervals, result) = stepped(scenario(MIXED, extra), step, |_, _| Some(0.0));
            assert!(intervals.len() as u64 >= 6_000 / (step / MS));
            assert_eq!(json(result), json(direct.clone()), "{extra} step {step}");
        }
    }
}

/// An agent over a base algorithm whose multiplier is never set is that algorithm: the
/// same flows, to the last counter (all that differs is the label).
#[test]
fn an_agent_over_a_base_is_the_base() {
    for (base, extra) in [("cubic", ""), ("reno", ""), ("bbr", ""), ("vegas", ""), ("cubic", "profile = \"linux\""), ("bbr", "profile = \"linux\"")] {
        let flows = |cc: &str| format!("[[flows]]\ngroup = \"a\"\ncount = 2\ncc = {cc}\nstart = {{ stagger = \"200ms\" }}\n[[flows]]\ngroup = \"b\"\ncc = \"cubic\"\n");
        let plain = json(run(scenario(&flows(&format!("\"{base}\"")), extra)).unwrap());
        let agent_cc = format!("{{ algorithm = \"agent\", mode = \"multiplier\", base = \"{base}\" }}");
        let wrapped = json(run(scenario(&flows(&agent_cc), extra)).unwrap());
        let label = format!("agent:multiplier({base})");
        assert!(wrapped.contains(&label));
        assert_eq!(wrapped.replace(&label, base), plain, "{base} {extra}");
    }
}

/// The intervals tile the run and add up to the flow's totals in the results.
#[test]
fn intervals_add_up_to_the_flow_totals() {
    let (intervals, result) = stepped(scenario(MIXED, ""), 50 * MS, |_, _| None);
    let flow = &result.flows[0];
    let sum = |f: fn(&FlowInterval) -> u64| intervals.iter().map(f).sum::<u64>();
    assert_eq!(sum(|i| i.sent), flow.data_packets_sent);
    assert_eq!(sum(|i| i.retransmitted), flow.retransmitted_packets.unwrap());
    assert_eq!(sum(|i| i.received), flow.delivered_packets);
    assert_eq!(sum(|i| i.timeouts), flow.timeouts.unwrap());
    assert_eq!(sum(|i| i.fast_recoveries), flow.fast_recoveries.unwrap());
    assert!(flow.fast_recoveries.unwrap() > 0, "the random loss makes some");
    // The ACKs report what the sink received (and the SYN-like first packet), but for
    // those still on their way back at the end, and those SACKed above a hole.
    let delivered = sum(|i| i.delivered) as i64;
    assert!((delivered - flow.delivered_packets as i64).abs() <= 60, "{delivered} {}", flow.delivered_packets);
    for pair in intervals.windows(2) {
        assert_eq!(pair[0].end, pair[1].start);
        assert_eq!(pair[1].end - pair[1].start, 50 * MS);
    }
    // RTTs: at least the base RTT (2·(15 + 2 + 3) ms), min ≤ mean; the flow's srtt too.
    let sampled: Vec<_> = intervals.iter().filter(|i| i.rtt_samples > 0).collect();
    assert!(sampled.len() > intervals.len() * 4 / 5, "{} of {}: {:?}", sampled.len(), intervals.len(), intervals.iter().filter(|i| i.rtt_samples == 0).map(|i| (i.start / MS, i.timeouts, i.acks)).collect::<Vec<_>>());
    for i in &sampled {
        assert!(i.rtt_min >= 40e6 && i.rtt_min <= i.rtt_mean && i.rtt_latest >= i.rtt_min, "{i:?}");
        assert!(i.acks >= i.rtt_samples && i.cwnd >= 1.0 && i.srtt >= 40e6);
    }
}

const AGENT_ONLY: &str = r#"
[[flows]]
group = "agent"
cc = { algorithm = "agent", mode = "cwnd", cwnd = 2 }
"#;

fn lossless(flows: &str) -> Scenario {
    let text = format!(
        r#"
name = "window"
duration = "3s"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "20Mbps", delay = "15ms", buffer = 500 }}
source_access = {{ rate = "100Mbps", delay = "2ms" }}
sink_access = {{ rate = "100Mbps", delay = "3ms" }}
{flows}
"#
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// A held window of W segments, set before the start and again at every step, gives
/// exactly what Reno limited to W by the receiver's window gives on a path without
/// loss (its window opens to W at once with an initial window of W): the same
/// segments, delivered at the same times. W = 20 (below the BDP) and 120 (above it).
#[test]
fn a_held_window_is_a_window() {
    for w in [20u32, 120] {
        let reno = run(lossless(&format!("[[flows]]\ncc = \"reno\"\ntcp = {{ max_window = {w}, initial_window = {w} }}\n"))).unwrap();
        let (_, held) = stepped(lossless(AGENT_ONLY), 40 * MS, |_, _| Some(w as f64));
        let (r, h) = (&reno.flows[0], &held.flows[0]);
        assert_eq!((h.delivered_packets, h.data_packets_sent), (r.delivered_packets, r.data_packets_sent), "W = {w}");
        assert_eq!(h.goodput_mbps, r.goodput_mbps);
        assert_eq!(reno.bins, held.bins, "delivered at the same times");
        assert_eq!(h.retransmitted_packets, Some(0));
        // and W·MSS/RTT below the rate: 20 × 1000 B × 8 / 40 ms = 4 Mb/s
        if w == 20 {
            assert!((h.goodput_mbps - 4.0 * 2.92 / 3.0).abs() < 0.1, "{}", h.goodput_mbps);
        }
    }
}

/// An action that opens the window sends at once; one that shrinks it sends nothing.
#[test]
fn opening_the_window_sends_at_once() {
    let mut sim = Simulation::for_stepping(lossless(AGENT_ONLY), &RunLimits::default()).unwrap();
    sim.run_until(500 * MS);
    let before = sim.monitor(0).unwrap();
    assert_eq!((before.cwnd, before.outstanding), (2.0, 2));
    sim.act(0, 30.0).unwrap();
    let now = sim.monitor(0).unwrap();
    assert_eq!((now.start, now.end), (500 * MS, 500 * MS));
    assert_eq!((now.sent, now.outstanding, now.cwnd), (28, 30, 30.0));
    sim.act(0, 5.0).unwrap();
    assert_eq!(sim.monitor(0).unwrap().sent, 0);
}

/// Aurora's rate mode paces at its rate: on a fast path without loss the flow sends and
/// delivers at the rate set, whatever the window; the next action changes it.
#[test]
fn a_rate_agent_sends_at_its_rate() {
    let flows = "[[flows]]\ncc = { algorithm = \"agent\", mode = \"rate\", rate = \"4Mbps\" }\n";
    let mut sim = Simulation::for_stepping(lossless(flows), &RunLimits::default()).unwrap();
    let (_, wire) = sim.segment_bytes();
    sim.act(0, 0.0).unwrap();
    let rate = |i: &FlowInterval| i.sent as f64 * wire as f64 * 8.0 / ((i.end - i.start) as f64 / 1e9);
    sim.run_until(500 * MS);
    sim.monitor(0).unwrap();
    sim.run_until(1_000 * MS);
    let steady = sim.monitor(0).unwrap();
    assert!((rate(&steady) - 4e6).abs() < 0.01 * 4e6, "{}", rate(&steady));
    assert_eq!(steady.pacing_rate, 4e6);
    assert!(steady.cwnd >= 1e6, "no window in rate mode");
    sim.act(0, 8.0).unwrap(); // × 1.2
    sim.run_until(1_500 * MS);
    let faster = sim.monitor(0).unwrap();
    assert!((rate(&faster) - 4.8e6).abs() < 0.01 * 4.8e6, "{}", rate(&faster));
    let delivered = faster.delivered as f64 * wire as f64 * 8.0 / 0.5;
    assert!((delivered - 4.8e6).abs() < 0.05 * 4.8e6, "{delivered}");
}

/// An agent's group may send segments of its own size: the interface reports them, and the
/// rate agent's 4 Mb/s are 4 Mb/s of them on the wire. Agents of two sizes in one
/// environment are refused (the interface reports one size).
#[test]
fn an_agents_own_segment_size_is_the_one_reported() {
    let flows = "[[flows]]\ncc = { algorithm = \"agent\", mode = \"rate\", rate = \"4Mbps\" }\npacket_size = \"536B\"\n[[flows]]\ncc = \"reno\"\nstart = \"2s\"\n";
    let mut sim = Simulation::for_stepping(lossless(flows), &RunLimits::default()).unwrap();
    let (payload, wire) = sim.segment_bytes();
    assert_eq!((payload, wire), (536, 536 + sim.scenario().header_size));
    sim.act(0, 0.0).unwrap();
    sim.run_until(500 * MS);
    sim.monitor(0).unwrap();
    sim.run_until(1_000 * MS);
    let steady = sim.monitor(0).unwrap();
    let rate = steady.sent as f64 * wire as f64 * 8.0 / ((steady.end - steady.start) as f64 / 1e9);
    assert!((rate - 4e6).abs() < 0.01 * 4e6, "{rate}");
    let two = format!("{flows}[[flows]]\ncc = {{ algorithm = \"agent\" }}\n");
    let error = Simulation::for_stepping(lossless(&two), &RunLimits::default()).err().expect("refused");
    assert_eq!(
        error.to_string(),
        "flows[2].packet_size: 1000B where flows[0]'s agents send 536B; the agents of one environment share one segment size"
    );
}

/// Same scenario, same actions: the same intervals, bit for bit.
#[test]
fn stepping_is_deterministic() {
    let policy = |t: u64, i: &FlowInterval| Some(if i.rtt_mean > 45e6 { -1.0 } else { 0.5 + (t / MS % 7) as f64 / 7.0 });
    let (a, ra) = stepped(scenario(MIXED, ""), 30 * MS, policy);
    let (b, rb) = stepped(scenario(MIXED, ""), 30 * MS, policy);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert_eq!(json(ra), json(rb));
    let (c, _) = stepped(scenario(MIXED, ""), 30 * MS, |_, _| Some(0.0));
    assert_ne!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&c).unwrap(), "the actions mattered");
}

#[test]
fn bad_steps_are_one_line_errors() {
    let mut sim = Simulation::for_stepping(scenario(MIXED, ""), &RunLimits::default()).unwrap();
    assert_eq!(sim.agent_flows(), &[0]);
    assert!(sim.act(1, 1.0).unwrap_err().contains("flow 1 is not an agent's"));
    assert!(sim.monitor(2).unwrap_err().contains("flow 2 is not an agent's"));
    assert!(sim.act(0, f64::INFINITY).unwrap_err().contains("finite"));
    assert!(sim.act(0, 100.0).unwrap_err().contains("exponent"));
    sim.run_until(u64::MAX);
    assert_eq!(sim.clock(), sim.horizon());
    assert!(sim.act(0, 0.0).unwrap_err().contains("ended"));
    let arrivals = "[[flows]]\ncc = { algorithm = \"agent\" }\narrivals = { kind = \"poisson\", load = 0.5, sizes = { kind = \"fixed\", size = \"100kB\" } }\n";
    let error = Simulation::for_stepping(scenario(arrivals, ""), &RunLimits::default()).err().expect("refused");
    assert!(error.to_string().starts_with("flows[0].arrivals:"), "{error}");
}
