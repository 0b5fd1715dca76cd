//! Whole-engine checks: packet conservation, determinism, and scenario errors.
use cclab_core::{run, Scenario, Simulation};

fn scenario(extra_flows: &str, topology_extra: &str, duration: &str) -> Scenario {
    let text = scenario_text(extra_flows, topology_extra, duration);
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn scenario_text(extra_flows: &str, topology_extra: &str, duration: &str) -> String {
    format!(
        r#"
name = "t"
duration = "{duration}"
seed = 3
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "25ms", buffer = 30 {topology_extra} }}
source_access = {{ rate = "100Mbps", delay = "5ms" }}
sink_access = {{ rate = "10Mbps", delay = "5ms", loss = {{ model = "bernoulli", rate = 0.01 }}, reverse_loss = {{ model = "bernoulli", rate = 0.005 }} }}
{extra_flows}
"#
    )
}

const MIXED_FLOWS: &str = r#"
[[flows]]
group = "smooth"
count = 5
cc = { algorithm = "aimd", alpha = "friendly", beta = 0.875 }
start = { random = "2s" }
[[flows]]
group = "newreno-delack"
count = 4
cc = "reno"
tcp = { recovery = "newreno", delayed_ack = true }
start = { stagger = "1s" }
stop = "7s"
[[flows]]
group = "responsive"
count = 3
cc = { algorithm = "aimd", alpha = 1.25, beta = 0.25, decrease = "ns2" }
source_delay = "40ms"
"#;

#[test]
fn packets_are_conserved() {
    for duration in ["0.5s", "3s", "10s"] {
        let result = run(scenario(MIXED_FLOWS, "", duration)).unwrap();
        let c = &result.conservation;
        assert!(c.data_sent > 100, "{c:?}");
        assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight, "{duration}: {c:?}");
        assert_eq!(c.acks_sent, c.acks_received + c.acks_dropped + c.acks_in_flight, "{duration}: {c:?}");
        assert_eq!(c.data_dropped + c.acks_dropped + c.syn_dropped, c.all_drops, "every drop is counted once");
        assert!(result.system.bottleneck_drops + result.system.loss_model_drops <= c.all_drops);
        // goodput never exceeds what was delivered, nor delivery what was sent
        for f in &result.flows {
            assert!(f.delivered_packets <= f.data_packets_sent, "{f:?}");
        }
    }
}

#[test]
fn same_seed_same_result_bit_for_bit() {
    let a = serde_json::to_string(&run(scenario(MIXED_FLOWS, "", "5s")).unwrap()).unwrap();
    let b = serde_json::to_string(&run(scenario(MIXED_FLOWS, "", "5s")).unwrap()).unwrap();
    assert_eq!(a, b);
    let mut other = scenario(MIXED_FLOWS, "", "5s");
    other.seed = 4;
    let c = serde_json::to_string(&run(other).unwrap()).unwrap();
    assert_ne!(a, c, "the seed must matter with random loss and random starts");
}

#[test]
fn bins_add_up_to_goodput() {
    let result = run(scenario(MIXED_FLOWS, "", "10s")).unwrap();
    for (flow, bins) in result.flows.iter().zip(&result.bins.delivered_bytes) {
        assert_eq!(bins.len(), 10);
        let bytes: u64 = bins.iter().sum();
        let mbps = bytes as f64 * 8.0 / 10.0 / 1e6;
        assert!((mbps - flow.goodput_mbps).abs() < 1e-9, "{mbps} vs {}", flow.goodput_mbps);
    }
}

#[test]
fn stopped_flows_send_nothing_new() {
    let result = run(scenario(MIXED_FLOWS, "", "10s")).unwrap();
    for (flow, bins) in result.flows.iter().zip(&result.bins.delivered_bytes) {
        if flow.group == "newreno-delack" {
            // stop at 7 s: after the last repairs (a few RTTs) nothing more arrives
            assert_eq!(bins[9], 0, "{flow:?}");
            assert!(bins[..6].iter().sum::<u64>() > 0);
        }
    }
}

#[test]
fn scenario_errors_name_the_field() {
    let cases = [
        ("bottleneck = { rate = \"-5Mbps\"", "topology.bottleneck.rate"),
        ("cc = { algorithm = \"aimd\", beta = 1.5 }", "flows[0].cc.beta: 1.5 is outside (0, 1)"),
        ("cc = \"cubicx\"", "flows[0].cc: unknown algorithm \"cubicx\""),
        ("count = 0", "flows[0].count"),
        ("tcp = { recovry = \"sack\" }", "flows[0].tcp.recovry: unknown field"),
    ];
    for (fragment, expected) in cases {
        let text = r#"
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "25ms" }
source_access = { rate = "10Mbps", delay = "5ms" }
sink_access = { rate = "10Mbps", delay = "5ms" }
[[flows]]
"#;
        let text = if fragment.starts_with("bottleneck") {
            text.replace("bottleneck = { rate = \"10Mbps\"", fragment)
        } else {
            format!("{text}{fragment}\n")
        };
        let err = Scenario::from_toml_str(&text).unwrap_err().0;
        assert!(err.contains(expected), "{err:?} should contain {expected:?}");
        assert!(!err.contains('\n'), "one line: {err:?}");
    }
}

/// Pass-through links and eager hosts are an optimisation only: every metric must be
/// the same as with one event per hop.
#[test]
fn shortcuts_do_not_change_results() {
    let single = r#"
[[flows]]
cc = { algorithm = "aimd", alpha = 0.31, beta = 0.875 }
"#;
    for (flows, duration) in [(MIXED_FLOWS, "10s"), (single, "20s")] {
        let fast = run(scenario(flows, "", duration)).unwrap();
        let slow = Simulation::new(scenario(flows, "", duration)).unwrap().without_shortcuts().run().unwrap();
        assert!(slow.events > fast.events);
        let strip = |mut r: cclab_core::RunResult| {
            r.events = 0;
            serde_json::to_string(&r).unwrap()
        };
        assert_eq!(strip(fast), strip(slow));
    }
}

/// With `profile = "ns2"` (ns-2's order of one instant at a queue) the shortcuts stay
/// exact: a packet handed on ahead of time carries when its transmission started on the
/// link it skipped, and a link notes the transmissions it starts apart from its ring.
/// Two flows started together keep meeting transmission starts at the bottleneck.
#[test]
fn shortcuts_do_not_change_results_in_ns2_order() {
    let synchronised = "[[flows]]\ngroup = \"sync\"\ncount = 2\ncc = \"reno\"\n";
    for (flows, duration) in [(MIXED_FLOWS, "10s"), (synchronised, "5s")] {
        let text = format!("profile = \"ns2\"\n{}", scenario_text(flows, "", duration));
        let parse = || Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
        let fast = run(parse()).unwrap();
        let slow = Simulation::new(parse()).unwrap().without_shortcuts().run().unwrap();
        assert!(slow.events > fast.events);
        let strip = |mut r: cclab_core::RunResult| {
            r.events = 0;
            serde_json::to_string(&r).unwrap()
        };
        assert_eq!(strip(fast), strip(slow));
    }
}

/// An observer sees the simulated time climb to the end and changes nothing: the run it
/// watches gives the same result as an unwatched one, whatever the slice of events.
#[test]
fn an_observed_run_gives_the_same_result() {
    use cclab_core::Observed;
    let plain = serde_json::to_string(&run(scenario(MIXED_FLOWS, "", "5s")).unwrap()).unwrap();
    for every in [1, 7, 1000, cclab_core::OBSERVE_EVERY, u64::MAX] {
        let mut seen: Vec<(u64, u64)> = Vec::new();
        let mut observer = |now: u64, end: u64| {
            seen.push((now, end));
            Observed::Continue
        };
        let result = Simulation::new(scenario(MIXED_FLOWS, "", "5s")).unwrap().run_observed(every, &mut observer).unwrap().unwrap();
        assert_eq!(serde_json::to_string(&result).unwrap(), plain, "every {every}");
        assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "time only climbs");
        assert!(seen.iter().all(|&(now, end)| end == 5_000_000_000 && now <= end));
        let expected = if every == u64::MAX { 0 } else { result.events / every };
        assert!(seen.len() as u64 == expected || seen.len() as u64 + 1 == expected, "every {every}: {} calls", seen.len());
    }
}

/// An observer that says stop ends the run at once, with nothing returned.
#[test]
fn an_observer_stops_a_run() {
    use cclab_core::Observed;
    let mut calls = 0;
    let mut stop_third = |_now: u64, _end: u64| {
        calls += 1;
        if calls == 3 { Observed::Stop } else { Observed::Continue }
    };
    assert!(Simulation::new(scenario(MIXED_FLOWS, "", "5s")).unwrap().run_observed(100, &mut stop_third).is_none());
    assert_eq!(calls, 3);
}
