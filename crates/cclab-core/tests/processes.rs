//! Loss processes, flow schedules and the CBR application, run through the engine.
use cclab_core::{run, RunResult, Scenario, Simulation};

fn scenario(sink_loss: &str, flows: &str, duration: &str) -> Scenario {
    let text = format!(
        r#"
duration = "{duration}"
seed = 5
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "25ms" }}
source_access = {{ rate = "100Mbps", delay = "5ms" }}
sink_access = {{ rate = "10Mbps", delay = "5ms" {sink_loss} }}
{flows}
"#
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn same_without_shortcuts(s: Scenario) -> RunResult {
    let fast = run(s.clone()).unwrap();
    let slow = Simulation::new(s).unwrap().without_shortcuts().run().unwrap();
    let strip = |mut r: RunResult| {
        r.events = 0;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(fast.clone()), strip(slow), "shortcuts changed the results");
    fast
}

#[test]
fn schedule_starts_and_stops_flows() {
    let flows = r#"
[[flows]]
group = "up"
count = 4
schedule = [["0s", 1], ["2s", 2], ["4s", 4]]
[[flows]]
group = "down"
count = 3
schedule = [["0s", 3], ["3s", 1]]
"#;
    let result = same_without_shortcuts(scenario("", flows, "8s"));
    let starts: Vec<f64> = result.flows.iter().map(|f| f.start_s).collect();
    let stops: Vec<Option<f64>> = result.flows.iter().map(|f| f.stop_s).collect();
    assert_eq!(starts, vec![0.0, 2.0, 4.0, 4.0, 0.0, 0.0, 0.0]);
    assert_eq!(stops, vec![None, None, None, None, None, Some(3.0), Some(3.0)]);
    let bins = &result.bins.delivered_bytes;
    // flows 2 and 3 deliver nothing before they start; 5 and 6 nothing once stopped
    for flow in [2, 3] {
        assert_eq!(bins[flow][..4].iter().sum::<u64>(), 0);
        assert!(bins[flow][5..].iter().sum::<u64>() > 0);
    }
    for flow in [5, 6] {
        assert!(bins[flow][..3].iter().sum::<u64>() > 0);
        assert_eq!(bins[flow][5..].iter().sum::<u64>(), 0, "stopped flows go quiet");
    }
}

#[test]
fn cbr_application_limits_the_sender_to_its_rate() {
    let flows = r#"
[[flows]]
count = 3
app = { kind = "cbr", rate = "1Mbps" }
"#;
    let result = same_without_shortcuts(scenario("", flows, "20s"));
    for flow in &result.flows {
        // 1 Mb/s of payload, less the first RTT (SYN) and the data still in flight
        assert!(flow.goodput_mbps > 0.98 && flow.goodput_mbps <= 1.0, "{flow:?}");
        assert_eq!(flow.retransmitted_packets, Some(0));
    }
    // each 1 s bin carries 125 000 bytes once running (± one packet of jitter)
    for bins in &result.bins.delivered_bytes {
        for &bytes in &bins[2..19] {
            assert!((124_000..=126_000).contains(&bytes), "{bytes}");
        }
    }
}

#[test]
fn handoff_outages_silence_the_flow_and_it_recovers() {
    let loss = r#", loss = { model = "handoff", period = "5s", mean_outage = "1s" }"#;
    let flows = r#"
[[flows]]
cc = { algorithm = "aimd", alpha = 1.25, beta = 0.25 }
"#;
    let result = same_without_shortcuts(scenario(loss, flows, "30s"));
    assert!(result.system.loss_model_drops > 0);
    let bins = &result.bins.delivered_bytes[0];
    // the first outage starts at 5 s: bin 4 is full, and the flow is back by bin 9
    assert!(bins[4] > 1_000_000, "{bins:?}");
    assert!(bins[5] < bins[4], "{bins:?}");
    assert!(bins[9] > 500_000, "{bins:?}");
}

#[test]
fn gilbert_elliott_loss_rate_matches_its_parameters() {
    let loss = r#", loss = { model = "gilbert_elliott", good_to_bad = 0.002, bad_to_good = 0.5, loss_in_bad = 1.0 }"#;
    let flows = "[[flows]]\ncount = 4\n";
    let result = same_without_shortcuts(scenario(loss, flows, "60s"));
    let c = &result.conservation;
    // every data packet reaching an R2→sink link draws once: delivered or eaten
    let through_sink = (c.data_received + result.system.loss_model_drops) as f64;
    let rate = result.system.loss_model_drops as f64 / through_sink;
    let expected = 0.002 / (0.002 + 0.5);
    assert!((rate - expected).abs() < 0.3 * expected, "{rate} vs {expected}");
}

#[test]
fn new_fields_reject_bad_input() {
    let cases = [
        (r#", loss = { model = "handoff", period = "0s" }"#, "", "topology.sink_access.loss.period: 0s is below 1ms"),
        (r#", loss = { model = "gilbert_elliott", good_to_bad = 1.5, bad_to_good = 0.1 }"#, "", "loss.good_to_bad: 1.5 is outside [0, 1]"),
        (r#", loss = { model = "burst" }"#, "", "loss.model: unknown model \"burst\""),
        (r#", loss = { model = "gilbert_elliott", bad_to_good = 0.1 }"#, "", "topology.sink_access.loss.good_to_bad: required, but missing"),
        ("", "[[flows]]\ncount = 2\nschedule = [[\"0s\", 1], [\"1s\", 3]]\n", "flows[0].count: 2 but the schedule's largest"),
        ("", "[[flows]]\ncount = 3\nschedule = [[\"0s\", 3], [\"1s\", 1], [\"2s\", 2]]\n", "stopped flows cannot restart"),
        ("", "[[flows]]\ncount = 1\nstart = \"1s\"\nschedule = [[\"0s\", 1]]\n", "either schedule or start/stop"),
        ("", "[[flows]]\ncount = 2\nschedule = [[\"2s\", 1], [\"1s\", 2]]\n", "times must increase"),
        ("", "[[flows]]\napp = { kind = \"cbr\", rate = \"-1Mbps\" }\n", "flows[0].app.rate"),
        ("", "[[flows]]\napp = \"video\"\n", "flows[0].app: unknown kind \"video\""),
    ];
    for (loss, flows, expected) in cases {
        let flows = if flows.is_empty() { "[[flows]]\n" } else { flows };
        let text = format!(
            "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = \"10Mbps\", delay = \"25ms\" }}\nsource_access = {{ rate = \"10Mbps\", delay = \"5ms\" }}\nsink_access = {{ rate = \"10Mbps\", delay = \"5ms\" {loss} }}\n{flows}"
        );
        let err = Scenario::from_toml_str(&text).unwrap_err().0;
        assert!(err.contains(expected), "{err:?} should contain {expected:?}");
    }
}
