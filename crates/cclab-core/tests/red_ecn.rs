//! RED with ECN at the bottleneck, ECN-capable TCP, and MR-AIMD through the engine.
use cclab_core::{run, Scenario, Simulation};

fn red_scenario(cc: &str, count: u32, duration: &str, trace: bool) -> Scenario {
    let text = format!(
        r#"
duration = "{duration}"
seed = 2
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = 500, queue = {{ kind = "red", min_th = 20, max_th = 60, weight = 0.002 }} }}
source_access = {{ rate = "100Mbps", delay = "5ms", buffer = 1000 }}
sink_access = {{ rate = "100Mbps", delay = "5ms", buffer = 1000 }}
[[flows]]
count = {count}
cc = {cc}
tcp = {{ ecn = true, initial_ssthresh = 20 }}
[trace]
flows = {trace}
"#
    );
    Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn ecn_only_bottleneck_keeps_reno_loss_free_and_sawtoothing() {
    let result = run(red_scenario("\"reno\"", 1, "60s", true)).unwrap();
    let flow = &result.flows[0];
    assert_eq!(result.system.bottleneck_drops, 0, "{:?}", result.system);
    assert_eq!(flow.retransmitted_packets, Some(0));
    // one mark per sawtooth cycle: W ≈ 2 × 72-packet pipe, W/2 RTTs ≈ 4 s per cycle
    assert!(result.system.bottleneck_ecn_marks >= 10, "{:?}", result.system);
    let reactions = flow.ecn_reactions.unwrap();
    assert!(reactions >= 10 && reactions <= result.system.bottleneck_ecn_marks);
    assert!(result.system.bottleneck_utilization > 0.9, "{:?}", result.system);
    // the window still halves and regrows: count cuts after the first 5 s
    let trace = &result.traces.as_ref().unwrap().flows[0];
    let cuts = trace.columns["cwnd"]
        .windows(2)
        .zip(&trace.t_s)
        .filter(|(w, &t)| t > 5.0 && w[1] < 0.6 * w[0] && w[0] > 10.0)
        .count();
    assert!(cuts >= 10, "{cuts} window halvings");
}

#[test]
fn without_ecn_red_drops_instead() {
    let mut scenario = red_scenario("\"reno\"", 1, "60s", false);
    scenario.flows[0].tcp.as_mut().unwrap().ecn = false;
    let result = run(scenario).unwrap();
    assert_eq!(result.system.bottleneck_ecn_marks, 0);
    assert!(result.system.bottleneck_red_drops >= 10, "{:?}", result.system);
    assert!(result.flows[0].retransmitted_packets.unwrap() >= 10);
}

#[test]
fn mraimd_slows_its_increase_on_marks() {
    let result = run(red_scenario("\"mraimd\"", 4, "60s", false)).unwrap();
    for flow in &result.flows {
        assert_eq!(flow.cc.as_deref(), Some("mraimd"));
        // marks arrived, so a′ sits at the ECN rate; a was never cut below its floor
        assert_eq!(flow.cc_state["a_rate"], 0.005, "{flow:?}");
        assert!(flow.cc_state["a"] >= 0.1 && flow.cc_state["a_mean"] > 0.1, "{flow:?}");
        assert!(flow.ecn_reactions.unwrap() > 0);
    }
    assert!(result.system.bottleneck_utilization > 0.9);
}

#[test]
fn red_and_mraimd_unchanged_by_shortcuts() {
    let fast = run(red_scenario("\"mraimd\"", 3, "20s", false)).unwrap();
    let slow = Simulation::new(red_scenario("\"mraimd\"", 3, "20s", false)).unwrap().without_shortcuts().run().unwrap();
    let strip = |mut r: cclab_core::RunResult| {
        r.events = 0;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(fast), strip(slow));
}

#[test]
fn red_and_mraimd_reject_bad_input() {
    let base = red_scenario("\"reno\"", 1, "1s", false);
    let text = toml::to_string(&serde_json::to_value(&base).unwrap()).unwrap();
    let cases = [
        ("min_th = 20, max_th = 60", "min_th = 20, max_th = 10", "topology.bottleneck.queue.max_th: 10 is not above min_th 20"),
        ("weight = 0.002", "weight = 2.0", "topology.bottleneck.queue.weight: 2 is outside (0, 1]"),
        ("kind = \"red\"", "kind = \"blue\"", "topology.bottleneck.queue.kind: unknown kind \"blue\""),
        ("min_th = 20", "min_th = 20, maxp = 0.1", "queue.maxp: unknown field"),
        ("min_th = 20", "min_th = 20, mode = \"byte\"", "queue.mode: unknown mode \"byte\", expected one of: packets, bytes"),
        ("min_th = 20", "min_th = 20, mean_packet_size = 0", "queue.mean_packet_size: 0 is not a size from 1B to 4294967295B"),
        ("min_th = 20", "min_th = 20, mean_packet_size = \"1.5B\"", "queue.mean_packet_size: \"1.5B\" is not a whole number of bytes"),
    ];
    let _ = text;
    for (from, to, expected) in cases {
        let toml_text = format!(
            r#"
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "20ms", queue = {{ kind = "red", min_th = 20, max_th = 60, weight = 0.002 }} }}
source_access = {{ rate = "100Mbps", delay = "5ms" }}
sink_access = {{ rate = "100Mbps", delay = "5ms" }}
[[flows]]
"#
        )
        .replacen(from, to, 1);
        let err = Scenario::from_toml_str(&toml_text).unwrap_err().0;
        assert!(err.contains(expected), "{err:?} should contain {expected:?}");
    }
    let err = Scenario::from_toml_str(
        "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = { rate = \"10Mbps\", delay = \"2ms\" }\nsource_access = { rate = \"10Mbps\", delay = \"2ms\" }\nsink_access = { rate = \"10Mbps\", delay = \"2ms\" }\n[[flows]]\ncc = { algorithm = \"mraimd\", a_decrease = 1.5 }\n",
    )
    .unwrap_err()
    .0;
    assert!(err.contains("flows[0].cc.a_decrease: 1.5 is not in (0, 1)"), "{err}");
}
