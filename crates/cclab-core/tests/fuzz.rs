//! Property test of the scenario parser and the engine: any JSON shaped roughly like a
//! scenario — two real scenarios with leaves replaced by hostile values, keys added and
//! removed — is either rejected with one line in cclab's words or runs to the end with
//! packets conserved. Never a panic, never a hang (runs are kept small: see `runnable`).
//!
//! In `make test` 2000 cases with a fixed seed run in well under a second; for a long
//! run: `CCLAB_FUZZ_CASES=1000000 CCLAB_FUZZ_SEED=7 cargo test --release --test fuzz`.
use cclab_core::{run_with_limits, RunLimits, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{json, Value};

fn bases() -> Vec<Value> {
    vec![
        json!({
            "duration": "0.3s", "seed": 3,
            "topology": {"kind": "dumbbell",
                "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": 30, "queue": {"kind": "red", "ecn": true}},
                "source_access": {"rate": "100Mbps", "delay": "5ms"},
                "sink_access": {"rate": "10Mbps", "delay": "5ms", "loss": {"model": "bernoulli", "rate": 0.01}}},
            "flows": [
                {"count": 2, "cc": {"algorithm": "aimd", "alpha": 0.31, "beta": 0.875}, "start": {"stagger": "0.1s"},
                 "tcp": {"ecn": true, "delayed_ack": true}},
                {"cc": {"algorithm": "mraimd"}, "app": {"kind": "cbr", "rate": "1Mbps"}, "direction": "reverse"},
                {"count": 2, "schedule": [["0s", 1], ["0.1s", 2]], "tcp": {"recovery": "newreno"}}
            ],
            "trace": {"flows": true, "queue": true}
        }),
        json!({
            "duration": "0.3s", "header_size": 0,
            "topology": {"kind": "graph", "links": [
                {"from": "a", "to": "b", "rate": "20Mbps", "delay": "2ms", "buffer": 50},
                {"from": "b", "to": "c", "rate": "5Mbps", "delay": "5ms", "buffer": 20,
                 "reverse": {"loss": {"model": "gilbert_elliott", "good_to_bad": 0.01, "bad_to_good": 0.3}}},
                {"from": "c", "to": "d", "rate": "20Mbps", "delay": "1ms", "buffer": "1bdp",
                 "loss": {"model": "handoff", "period": "0.1s", "mean_outage": "0.02s"}}]},
            "flows": [
                {"from": "a", "to": "d", "cc": "reno"},
                {"transport": "udp", "from": "b", "to": "c", "start": "0.05s",
                 "app": {"kind": "onoff", "rate": "3Mbps", "on": "0.05s", "off": {"exponential": "0.05s"}}},
                {"transport": "udp", "route": ["c", "d"], "app": {"kind": "cbr", "rate": "2Mbps", "jitter": 0.5}}
            ]
        }),
        // ns-2's rules: Sack1 recovery, its clock, RED/ECN marks, small windows.
        json!({
            "duration": "2s", "seed": 5, "profile": "ns2", "packet_size": "500B",
            "topology": {"kind": "dumbbell",
                "bottleneck": {"rate": "2Mbps", "delay": "10ms", "buffer": 8, "queue": {"kind": "red", "ecn": true}},
                "source_access": {"rate": "20Mbps", "delay": "2ms"},
                "sink_access": {"rate": "20Mbps", "delay": "2ms", "loss": {"model": "bernoulli", "rate": 0.02}}},
            "flows": [
                {"count": 6, "cc": {"algorithm": "aimd", "alpha": 1.25, "beta": 0.25}, "start": {"random": "0.2s"},
                 "tcp": {"ecn": true, "ns2": {"go_back_n": false}}},
                {"count": 2, "cc": "sqrt", "tcp": {"delayed_ack": true, "recovery": "newreno"}},
                {"transport": "tfrc", "tfrc": {"ecn": true}}
            ]
        }),
        // Queue disciplines deciding at dequeue and at admission, the modern algorithms.
        json!({
            "duration": "0.5s", "seed": 9,
            "topology": {"kind": "graph", "links": [
                {"from": "a", "to": "r", "rate": "50Mbps", "delay": "1ms", "buffer": 40, "queue": {"kind": "codel", "ecn": true}},
                {"from": "b", "to": "r", "rate": "50Mbps", "delay": "3ms", "buffer": 40, "queue": {"kind": "pie", "target": "5ms"}},
                {"from": "r", "to": "s", "rate": "8Mbps", "delay": "5ms", "buffer": 30,
                 "queue": {"kind": "fq_codel", "quantum": "300B", "flows": 8},
                 "reverse": {"queue": {"kind": "step_mark", "threshold": 3}}}]},
            "flows": [
                {"from": "a", "to": "s", "count": 2, "cc": "dctcp"},
                {"from": "b", "to": "s", "cc": {"algorithm": "cubic", "hystart": false}},
                {"from": "a", "to": "s", "cc": "bbr", "start": "0.1s"},
                {"from": "s", "to": "b", "cc": "vegas", "tcp": {"ecn": true}},
                {"transport": "udp", "from": "b", "to": "s", "app": {"kind": "cbr", "rate": "4Mbps"}}
            ],
            "trace": {"flows": true, "queue": true}
        }),
        // ns-3.44's catalogue, each with its parameters written out.
        json!({
            "duration": "0.5s", "seed": 11,
            "topology": {"kind": "dumbbell",
                "bottleneck": {"rate": "20Mbps", "delay": "10ms", "buffer": 40, "loss": {"model": "bernoulli", "rate": 0.01}},
                "source_access": {"rate": "100Mbps", "delay": "1ms"},
                "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [
                {"cc": "highspeed"},
                {"cc": {"algorithm": "scalable", "ai_factor": 50, "md_factor": 0.125}},
                {"cc": {"algorithm": "bic", "beta": 0.8, "max_increment": 16, "low_window": 14, "smooth_part": 5, "binary_search_coefficient": 4}},
                {"cc": {"algorithm": "htcp", "default_backoff": 0.5, "throughput_ratio": 0.2, "delta_l": "1s"}},
                {"cc": {"algorithm": "hybla", "reference_rtt": "50ms"}, "start": "0.05s"},
                {"cc": {"algorithm": "veno", "beta": 3}},
                {"cc": {"algorithm": "illinois", "alpha_min": 0.3, "alpha_max": 10, "beta_min": 0.125, "win_thresh": 15, "theta": 5}},
                {"cc": {"algorithm": "yeah", "alpha": 80, "gamma": 1, "delta": 3, "epsilon": 1, "phy": 8, "rho": 16, "zeta": 50}},
                {"cc": {"algorithm": "ledbat", "target": "100ms", "gain": 1, "noise_filter_len": 4, "min_cwnd": 2}, "tcp": {"delayed_ack": true}},
                {"cc": "lp", "direction": "reverse"}
            ],
            "trace": {"flows": true}
        }),
    ]
}

/// A plausible value: one a scenario might well hold there (or not, by type).
fn plausible() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0.0f64..2.0).prop_map(Value::from),
        (1u64..20).prop_map(Value::from),
        (1u32..2000).prop_map(|ms| Value::from(format!("{ms}ms"))),
        (1u32..100).prop_map(|mb| Value::from(format!("{mb}Mbps"))),
        prop::sample::select(vec!["1bdp", "0.5bdp", "droptail", "red", "sack", "newreno", "bulk", "forward", "ns2", "rfc", "codel", "fq_codel", "pie", "cubic", "bbr", "vegas", "dctcp"]).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ]
}

/// A hostile value (odd numbers, odd text, wrong types), or a plausible one.
fn hostile() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => plausible(),
        1 => any::<f64>().prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => (-3i64..3).prop_map(Value::from),
        1 => prop::sample::select(vec![
            "0s", "1ns", "-1ms", "1e999s", "1e7s", "1e8s", "nan", "inf", "x", "", "0Mbps", "1bps", "11Tbps",
            "1e300Gbps", "0bdp", "1e-9bdp", "1e9bdp", "reno", "aimd", "udp", "tcp", "reverse", "red", "none",
            "friendly", "a", "b", "zz", "100", "1.5s", "10Mbps",
        ])
        .prop_map(Value::from),
        1 => Just(Value::Bool(true)),
        1 => Just(Value::Null),
        1 => Just(json!([])),
        1 => Just(json!({})),
        1 => Just(json!({"kind": "red", "min_th": -1})),
        1 => Just(json!({"kind": "fq_codel", "flows": 1, "quantum": "1B"})),
        1 => Just(json!({"kind": "step_mark", "threshold": 0})),
        1 => Just(json!(["0s", 1])),
    ]
}

/// Every leaf path of a JSON value.
fn leaf_paths(value: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                path.push(key.clone());
                leaf_paths(item, path, out);
                path.pop();
            }
        }
        Value::Array(items) if items.iter().any(|i| i.is_object()) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                leaf_paths(item, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn slot<'a>(root: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(root, |node, key| match node {
        Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
        other => &mut other[key.as_str()],
    })
}

/// Apply up to three edits: replace a leaf, delete it, or add an unknown key beside it.
fn mutate(base: &Value, edits: &[(usize, u8, Value)]) -> Value {
    let mut doc = base.clone();
    for (choice, action, value) in edits {
        let mut paths = Vec::new();
        leaf_paths(&doc, &mut Vec::new(), &mut paths);
        let path = &paths[choice % paths.len()];
        match action % 4 {
            0 | 1 => *slot(&mut doc, path) = value.clone(),
            2 => {
                let (last, parent) = path.split_last().unwrap();
                if let Value::Object(map) = slot(&mut doc, parent) {
                    map.remove(last);
                }
            }
            _ => {
                let parent = &path[..path.len() - 1];
                if let Value::Object(map) = slot(&mut doc, parent) {
                    map.insert("bogus".into(), value.clone());
                }
            }
        }
    }
    doc
}

/// Small enough to run in a test: few flows, short, not a torrent of packets.
fn runnable(scenario: &Scenario) -> bool {
    let flows: u64 = scenario.flows.iter().map(|g| g.count.get() as u64).sum();
    let Ok(graph) = scenario.expand_topology() else { return false };
    let fastest = (0..graph.links.len() as u32).map(|l| graph.rate(l).bps()).max().unwrap_or(0);
    let packets = fastest as f64 * scenario.duration.secs_f64() / 8.0 / scenario.packet_size.get() as f64;
    flows <= 50 && scenario.duration.secs_f64() <= 5.0 && packets <= 2e5 && scenario.bins_per_flow() <= 100_000
}

const SERDE_WORDS: &[&str] = &["invalid type", "invalid value", "expected f64", "expected u32", "expected u64",
    "expected a boolean", "expected a string", "expected unit", "untagged", "Bdp(", "Packets(", "Some(", "NonZero"];

static REJECTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static RAN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static TOO_BIG: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count(counter: &std::sync::atomic::AtomicUsize) {
    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

fn check(doc: &Value) -> Result<(), TestCaseError> {
    let text = doc.to_string();
    let parsed = std::panic::catch_unwind(|| Scenario::from_json_str(&text));
    let parsed = parsed.map_err(|_| TestCaseError::fail(format!("the parser panicked on {text}")))?;
    match parsed {
        Err(error) => {
            count(&REJECTED);
            let message = error.0;
            prop_assert!(!message.contains('\n'), "several lines: {message:?}");
            for word in SERDE_WORDS {
                prop_assert!(!message.contains(word), "{word:?} in {message:?}");
            }
        }
        Ok(scenario) if runnable(&scenario) => {
            count(&RAN);
            let limits = RunLimits { max_memory_bytes: 1 << 30, memory_limit_name: None };
            let result = std::panic::catch_unwind(|| run_with_limits(scenario, &limits));
            let result = result.map_err(|_| TestCaseError::fail(format!("the engine panicked on {text}")))?;
            if let Ok(result) = result {
                let c = &result.conservation;
                prop_assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight, "{}", text);
                prop_assert_eq!(c.acks_sent, c.acks_received + c.acks_dropped + c.acks_in_flight, "{}", text);
            }
        }
        Ok(_) => count(&TOO_BIG),
    }
    Ok(())
}

#[test]
fn any_scenario_is_rejected_cleanly_or_runs_conserving_packets() {
    let setting = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let cases = setting("CCLAB_FUZZ_CASES", 2000) as u32;
    let seed = setting("CCLAB_FUZZ_SEED", 13);
    let config = Config { cases, rng_seed: RngSeed::Fixed(seed), failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let bases = bases();
    let strategy = (0..bases.len(), prop::collection::vec((any::<usize>(), any::<u8>(), hostile()), 0..3));
    runner
        .run(&strategy, |(base, edits)| check(&mutate(&bases[base], &edits)))
        .unwrap();
    let load = |c: &std::sync::atomic::AtomicUsize| c.load(std::sync::atomic::Ordering::Relaxed);
    let (rejected, ran, too_big) = (load(&REJECTED), load(&RAN), load(&TOO_BIG));
    eprintln!("{cases} cases: {rejected} rejected, {ran} ran, {too_big} valid but too big to run here");
    // the mutations must exercise both sides
    assert!(rejected > cases as usize / 10 && ran > cases as usize / 10, "{rejected} rejected, {ran} ran");
}
