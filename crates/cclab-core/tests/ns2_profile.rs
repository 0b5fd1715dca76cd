//! `tcp.profile = "ns2"` end to end: the five ns-2 behaviours in every combination run
//! without a panic, conserve packets and are deterministic; the profile reaches every TCP
//! and TFRC group from the scenario's top-level `profile` unless a group sets its own.
use cclab_core::{run, Scenario};

/// RED + ECN, 8 Reno flows on 1 Mb/s (many marks, small windows, recoveries that end on
/// duplicate ACKs after an ECN reaction: the case that once indexed past the scoreboard).
fn red_ecn(switches: &str) -> String {
    format!(
        r#"{{"duration": "60s", "seed": 1, "packet_size": "1000B",
            "topology": {{"kind": "dumbbell",
                "bottleneck": {{"rate": "1Mbps", "delay": "20ms", "buffer": 25, "queue": {{"kind": "red", "ecn": true}}}},
                "source_access": {{"rate": "100Mbps", "delay": "5ms", "buffer": 1000}},
                "sink_access": {{"rate": "100Mbps", "delay": "5ms", "buffer": 1000}}}},
            "flows": [{{"count": 8, "cc": "reno", "start": {{"stagger": "1s"}},
                        "tcp": {{"ecn": true, "profile": "ns2", "ns2": {switches}}}}}]}}"#
    )
}

const SWITCHES: [&str; 5] = ["tick_clock", "integer_ssthresh", "go_back_n", "sack1_recovery", "ecn"];

#[test]
fn every_combination_of_switches_runs_and_conserves_packets() {
    let mut timeouts = std::collections::BTreeSet::new();
    for mask in 0u32..32 {
        let switches = SWITCHES
            .iter()
            .enumerate()
            .map(|(i, name)| format!("\"{name}\": {}", mask & (1 << i) != 0))
            .collect::<Vec<_>>()
            .join(", ");
        let text = red_ecn(&format!("{{{switches}}}"));
        let result = run(Scenario::from_json_str(&text).expect("valid")).expect("runs");
        let c = &result.conservation;
        assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight, "switches {switches}");
        assert_eq!(c.acks_sent, c.acks_received + c.acks_dropped + c.acks_in_flight, "switches {switches}");
        assert!(result.system.goodput_mbps > 0.9, "switches {switches}: {}", result.system.goodput_mbps);
        timeouts.insert(result.flows.iter().map(|f| f.timeouts.unwrap()).sum::<u64>());
    }
    assert!(timeouts.len() > 8, "the switches change what happens: {timeouts:?}");
}

#[test]
fn the_ns2_profile_is_deterministic_per_seed() {
    let text = red_ecn("{}");
    let once = serde_json::to_string(&run(Scenario::from_json_str(&text).unwrap()).unwrap()).unwrap();
    let again = serde_json::to_string(&run(Scenario::from_json_str(&text).unwrap()).unwrap()).unwrap();
    assert_eq!(once, again);
    let other = text.replace("\"seed\": 1", "\"seed\": 2");
    let other = serde_json::to_string(&run(Scenario::from_json_str(&other).unwrap()).unwrap()).unwrap();
    assert_ne!(once, other, "the seed draws each agent's clock offset");
}

#[test]
fn the_scenario_profile_reaches_groups_that_do_not_set_their_own() {
    let text = r#"{"duration": "1s", "profile": "ns2",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                     "source_access": {"rate": "100Mbps", "delay": "1ms"}, "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"cc": "reno"}, {"cc": "reno", "tcp": {"profile": "rfc"}}, {"transport": "tfrc"},
                  {"cc": "reno", "tcp": {"recovery": "newreno"}}]}"#;
    let scenario = Scenario::from_json_str(text).unwrap();
    let normalized: serde_json::Value = serde_json::from_str(&scenario.to_json()).unwrap();
    let flows = normalized["flows"].as_array().unwrap();
    assert_eq!(flows[0]["tcp"]["profile"], "ns2");
    assert_eq!(flows[0]["tcp"]["ns2"]["sack1_recovery"], true);
    assert_eq!(flows[1]["tcp"]["profile"], "rfc");
    assert_eq!(flows[1]["tcp"]["ns2"]["tick_clock"], false);
    assert_eq!(flows[2]["tfrc"]["profile"], "ns2");
    // NewReno: Sack1's recovery does not apply; the other behaviours do
    assert_eq!(flows[3]["tcp"]["ns2"]["sack1_recovery"], false);
    assert_eq!(flows[3]["tcp"]["ns2"]["go_back_n"], true);
    // and Newreno's recovery applies to NewReno only
    assert_eq!(flows[3]["tcp"]["ns2"]["newreno_recovery"], true);
    assert_eq!(flows[0]["tcp"]["ns2"]["newreno_recovery"], false);
    let error = Scenario::from_json_str(&text.replace(r#"{"cc": "reno"}, {"cc": "reno", "tcp": {"profile": "rfc"}}"#,
        r#"{"cc": "reno", "tcp": {"ns2": {"newreno_recovery": true}}}, {"cc": "reno", "tcp": {"profile": "rfc"}}"#)).unwrap_err();
    assert_eq!(error.0, "flows[0].tcp.ns2.newreno_recovery: true: Newreno's recovery needs recovery = \"newreno\"");
    let error = Scenario::from_json_str(&text.replace(r#""tcp": {"recovery": "newreno"}"#,
        r#""tcp": {"recovery": "newreno", "ns2": {"sack1_recovery": true}}"#)).unwrap_err();
    assert_eq!(error.0, "flows[3].tcp.ns2.sack1_recovery: true: Sack1's recovery needs recovery = \"sack\"");
    let error = Scenario::from_json_str(&text.replace(r#""profile": "ns2""#, r#""profile": "ns3""#)).unwrap_err();
    assert!(error.0.starts_with("profile: unknown profile \"ns3\""), "{}", error.0);
}
