//! The engine's limits and the inputs issue 13 found wrong, each pinned: a clean one-line
//! error naming the field (or a correct run where the input is legal).
use cclab_core::{run, run_with_limits, RunLimits, Scenario};

fn dumbbell(extra_topology: &str, flows: &str, top: &str) -> String {
    format!(
        r#"duration = "1s"
{top}
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "25ms", buffer = 50 {extra_topology} }}
source_access = {{ rate = "100Mbps", delay = "5ms" }}
sink_access = {{ rate = "10Mbps", delay = "5ms" }}
{flows}"#
    )
}

fn error_of(text: &str) -> String {
    let message = match Scenario::from_toml_str(text) {
        Err(e) => e.0,
        Ok(scenario) => run(scenario).map(|_| ()).expect_err("should be refused").0,
    };
    assert!(!message.contains('\n'), "one line: {message:?}");
    message
}

#[test]
fn reported_inputs_get_errors_naming_field_value_and_limit() {
    let flow = "[[flows]]\n";
    let cases = [
        (dumbbell("", flow, "").replace("duration = \"1s\"", "duration = \"1e300s\""), "duration: \"1e300s\" is longer than 10000000s"),
        (dumbbell("", flow, "").replace("duration = \"1s\"", "duration = \"9223372036854775807ns\""), "duration: \"9223372036854775807ns\" is longer than"),
        (dumbbell("", flow, "").replace("duration = \"1s\"", "duration = \"1e999s\""), "duration: \"1e999s\" is not a finite duration"),
        (dumbbell("", flow, "bin_width = \"1ns\"").replace("duration = \"1s\"", "duration = \"100s\""), "bin_width: 1ns makes 100000000000 bins"),
        (dumbbell("", "[[flows]]\ntcp = { min_rto = \"0s\", max_rto = \"0s\" }", ""), "flows[0].tcp.max_rto: 0s is below 1ms"),
        (dumbbell("", "[[flows]]\ntcp = { min_rto = \"0s\", max_rto = \"1ns\" }", ""), "flows[0].tcp.max_rto: 1ns is below 1ms"),
        (dumbbell("", "[[flows]]\ntcp = { initial_rto = \"2e10s\" }", ""), "flows[0].tcp.initial_rto: \"2e10s\" is longer than 10000000s"),
        (dumbbell("", "[[flows]]\ntcp = { max_rto = \"1e12s\", min_rto = \"1e11s\" }", ""), "flows[0].tcp.max_rto: \"1e12s\" is longer than"),
        (dumbbell("", flow, "").replace("delay = \"25ms\"", "delay = \"18446744074s\""), "topology.bottleneck.delay: \"18446744074s\" is longer than"),
        (dumbbell("", flow, "").replace("buffer = 50", "buffer = 9223372036854775807"), "topology.bottleneck.buffer: 9223372036854775807 is above the largest buffer, 4294967295 packets"),
        (
            dumbbell("", flow, "").replace("buffer = 50", "buffer = \"1bdp\"").replace("\"25ms\"", "\"0s\"").replace("\"5ms\"", "\"0s\""),
            "topology.bottleneck.buffer: the default buffer \"1bdp\" is 0.00 packets here (10Mbps × 0s (the nominal RTT: twice the source_access, bottleneck and sink_access delays)",
        ),
        (dumbbell(", buffer_bytes = \"100B\"", flow, ""), "topology.bottleneck.buffer_bytes: 100 bytes holds no data packet (1040 bytes on the wire)"),
        (dumbbell("", "[[flows]]\ncc = { algorithm = \"aimd\", alpha = 1e300, beta = 0.5 }", ""), "flows[0].cc.alpha: 1e300 is not a number in (0, 1000]"),
        (dumbbell("", "[[flows]]\ntcp = { initial_window = 9.2e18 }", ""), "flows[0].tcp.initial_window: 9.2e18 is above max_window (1000000)"),
        (dumbbell(", queue = { kind = \"red\", target_delay_s = -1 }", flow, ""), "topology.bottleneck.queue.target_delay_s: -1 is not a number of seconds in (0, 10000000]"),
        (
            dumbbell("", flow, "").replace("delay = \"5ms\" }\n[[", "delay = \"5ms\", loss = { model = \"handoff\", period = \"1ns\" } }\n[["),
            "topology.sink_access.loss.period: 1ns is below 1ms",
        ),
        (dumbbell("", "[[flows]]\ncount = 1000001", ""), "flows: 1000001 flows in all; at most 1000000"),
        (dumbbell("", "[[flows]]\ncc = { algorithm = \"mraimd\", min_a = -1 }", ""), "flows[0].cc.min_a: -1 is not in (0, initial_a]"),
        (dumbbell("", "[[flows]]\ncount = 1.5", ""), "flows[0].count: 1.5 is not a whole number from 1 to 4294967295"),
        (dumbbell("", "[[flows]]\ntcp = { ecn = \"yes\" }", ""), "flows[0].tcp.ecn: \"yes\" is not true or false"),
        (dumbbell("", "[[flows]]\ncount = 123456789012345678901234567890", ""), "line 9, column 9: integer too large (TOML integers are 64-bit"),
        (dumbbell("", flow, "").replace("rate = \"10Mbps\"", "rate = \"11Tbps\""), "topology.bottleneck.rate: \"11Tbps\" is above 10Tbps"),
    ];
    for (text, expected) in cases {
        let message = error_of(&text);
        assert!(message.starts_with(expected), "{message:?} should start with {expected:?}");
    }
    // NaN and infinity cannot be written in TOML values cclab reads as numbers without a
    // name; in JSON they are not values at all
    let json = r#"{"duration": "1s", "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "25ms"},
        "source_access": {"rate": "10Mbps", "delay": "5ms"}, "sink_access": {"rate": "10Mbps", "delay": "5ms"}},
        "flows": [{"cc": {"algorithm": "aimd", "beta": NaN}}]}"#;
    let message = Scenario::from_json_str(json).unwrap_err().0;
    assert_eq!(message, "flows[0].cc.beta: is not a number (NaN and infinity are not allowed)");
}

#[test]
fn suspicious_but_legal_input_gets_a_warning() {
    let scenario = Scenario::from_toml_str(&dumbbell("", "[[flows]]\nstart = \"5s\"", "")).unwrap();
    assert_eq!(scenario.warnings(), ["flows[0].start: 5s is not before the end of the run (1s); the group sends nothing"]);
    assert_eq!(run(scenario).unwrap().warnings.len(), 1);
}

#[test]
fn memory_is_estimated_before_anything_is_allocated() {
    let text = dumbbell("", "[[flows]]\ncount = 100", "bin_width = \"1us\"").replace("duration = \"1s\"", "duration = \"100s\"");
    let scenario = Scenario::from_toml_str(&text).unwrap();
    let message = run_with_limits(scenario.clone(), &RunLimits::default()).map(|_| ()).unwrap_err().0;
    assert!(
        message.starts_with("bin_width: 1us makes 100000000 bins for each of 100 flows: the run would need about 800 GB, above the limit of 8.59 GB"),
        "{message}"
    );
    // within a raised limit the same check passes (and with a wider bin the run is small)
    assert!(cclab_core::simulation::check_memory(&scenario, 402, &RunLimits { max_memory_bytes: 1 << 40 }).is_ok());
}

/// Issue 13: with 21-bit event ids, 524 300 late flows made the ids of later links wrap
/// onto earlier ones and the two early flows sent nothing, silently.
#[test]
fn half_a_million_late_flows_leave_the_early_ones_alone() {
    let flows = "[[flows]]\ngroup = \"early\"\ncount = 2\n[[flows]]\ngroup = \"late\"\ncount = 524300\nstart = \"3s\"\n";
    let scenario = Scenario::from_toml_str(&dumbbell("", flows, "").replace("\"1s\"", "\"2s\"")).unwrap();
    let result = run(scenario).unwrap();
    for flow in result.flows.iter().filter(|f| f.group == "early") {
        assert!(flow.data_packets_sent > 500, "{flow:?}");
    }
    assert!(result.flows.iter().filter(|f| f.group == "late").all(|f| f.data_packets_sent == 0));
    assert_eq!(result.warnings.len(), 1, "the late group never starts: {:?}", result.warnings);
}

#[test]
fn traces_stop_at_the_memory_limit_with_a_warning() {
    let text = dumbbell("", "[[flows]]\ncount = 2", "[trace]\nflows = true\nqueue = true").replace("\"1s\"", "\"5s\"");
    let scenario = Scenario::from_toml_str(&text).unwrap();
    let full = run(scenario.clone()).unwrap();
    assert!(full.warnings.is_empty(), "{:?}", full.warnings);
    let rows = full.traces.as_ref().unwrap().flows.iter().map(|t| t.t_s.len()).sum::<usize>();
    // a limit leaving room for about 500 trace rows and as many queue samples
    let needed = cclab_core::simulation::check_memory(&scenario, 2 + 4 * 2, &RunLimits { max_memory_bytes: u64::MAX }).unwrap();
    let limits = RunLimits { max_memory_bytes: needed + 2 * 500 * 250 };
    let cut = run_with_limits(scenario, &limits).unwrap();
    let traces = cut.traces.as_ref().unwrap();
    assert_eq!(traces.flows.iter().map(|t| t.t_s.len()).sum::<usize>(), 500, "of {rows}");
    assert_eq!(traces.bottleneck_queue.as_ref().unwrap().t_s.len(), 1250);
    assert_eq!(cut.warnings.len(), 2, "{:?}", cut.warnings);
    assert!(cut.warnings[0].starts_with("trace.flows: stopped at "), "{:?}", cut.warnings);
    // the run itself is the same
    assert_eq!(serde_json::to_string(&cut.system).unwrap(), serde_json::to_string(&full.system).unwrap());
}
