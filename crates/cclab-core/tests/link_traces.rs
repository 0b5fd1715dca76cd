//! `trace.links`: any link direction's queue per bin. Its columns add up to the link's
//! own totals, tracing changes nothing else, the shortcuts stay exact, and a name that
//! is not a link is one error line.
use cclab_core::metrics::LinkTrace;
use cclab_core::{run, RunResult, Scenario, Simulation};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"))
}

fn dumbbell(queue: &str, trace: &str) -> String {
    format!(
        r#"
duration = "10s"
seed = 4
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = 60, queue = {queue} }}
source_access = {{ rate = "100Mbps", delay = "1ms", buffer = 100 }}
sink_access = {{ rate = "100Mbps", delay = "1ms", buffer = 100, loss = {{ model = "bernoulli", rate = 0.001 }} }}
[[flows]]
count = 3
tcp = {{ ecn = true }}
start = {{ stagger = "0.3s" }}
[trace]
{trace}
"#
    )
}

fn traced<'a>(r: &'a RunResult, name: &str) -> &'a LinkTrace {
    r.traces.as_ref().unwrap().links.iter().find(|l| l.name == name).unwrap()
}

fn link<'a>(r: &'a RunResult, name: &str) -> &'a cclab_core::metrics::LinkMetrics {
    r.links.iter().find(|l| l.name == name).unwrap()
}

#[test]
fn a_traced_link_adds_up_to_its_totals() {
    for queue in ["\"droptail\"", "{ kind = \"red\", ecn = true }", "{ kind = \"codel\", ecn = true }", "\"fq_codel\""] {
        let r = run(scenario(&dumbbell(queue, "links = [\"r1-r2\", \"r2-d0\", \"s1-r1\"]"))).unwrap();
        for name in ["r1-r2", "r2-d0", "s1-r1"] {
            let (t, l) = (traced(&r, name), link(&r, name));
            assert_eq!(t.t_s.len(), 10, "one row per 1-s bin");
            assert_eq!(t.arrivals.iter().sum::<u64>(), l.arrivals, "{queue} {name}");
            assert_eq!(t.drops.iter().sum::<u64>(), l.queue_drops + l.loss_drops, "{queue} {name}");
            assert_eq!(t.marks.iter().sum::<u64>(), l.ecn_marks, "{queue} {name}");
            let utilization = t.utilization.iter().sum::<f64>() / t.utilization.len() as f64;
            assert!((utilization - l.utilization).abs() < 1e-9, "{queue} {name}: {utilization} vs {}", l.utilization);
            // sojourns lie between 0 and the link's largest possible wait (its buffer of
            // 1040-byte packets at its rate), and the mean over the run is near its own
            let full_ms = 100.0 * 1040.0 * 8.0 / (l.rate_mbps * 1e3);
            assert!(t.mean_sojourn_ms.iter().filter(|m| !m.is_nan()).all(|&m| (0.0..=full_ms).contains(&m)), "{queue} {name}");
            assert!(t.max_queue_packets.iter().all(|&q| q < 100));
        }
        let bottleneck = traced(&r, "r1-r2");
        let (weighted, admitted): (f64, f64) = bottleneck
            .mean_sojourn_ms
            .iter()
            .zip(&bottleneck.arrivals)
            .zip(&bottleneck.drops)
            .filter(|((m, _), _)| !m.is_nan())
            .fold((0.0, 0.0), |(w, n), ((m, &a), &d)| (w + m * (a - d) as f64, n + (a - d) as f64));
        let overall = link(&r, "r1-r2").mean_queue_delay_ms;
        assert!((weighted / admitted - overall).abs() < 0.1 * overall + 0.05, "{queue}: {} vs {overall}", weighted / admitted);
        assert!(bottleneck.mean_queue_packets.iter().any(|&q| q > 1.0), "{queue}: the bottleneck queued");
        assert!(bottleneck.mean_queue_bytes.iter().zip(&bottleneck.mean_queue_packets).all(|(b, p)| (b / 1040.0 - p).abs() < 1e-6 || p.is_nan()),
                "{queue}: every packet is 1040 bytes");
        assert!(traced(&r, "r2-d0").drops.iter().sum::<u64>() > 0, "the lossy sink link's drops are in its trace");
    }
}

#[test]
fn tracing_changes_nothing_else_and_the_shortcuts_stay_exact() {
    let plain = run(scenario(&dumbbell("\"droptail\"", ""))).unwrap();
    let text = dumbbell("\"droptail\"", "links = [\"r1-r2\", \"s0-r1\", \"r2-r1\"]");
    let fast = run(scenario(&text)).unwrap();
    let slow = Simulation::new(scenario(&text)).unwrap().without_shortcuts().run().unwrap();
    let strip = |mut r: RunResult, keep_traces: bool| {
        r.events = 0;
        if !keep_traces {
            r.traces = None;
        }
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(plain, false), strip(fast.clone(), false));
    assert_eq!(strip(fast, true), strip(slow, true));
}

#[test]
fn a_name_that_is_not_a_link_is_one_error_line() {
    for (trace, needle) in [
        ("links = [\"r1-r3\"]", "trace.links[0]: no link direction is named \"r1-r3\""),
        ("links = [\"r1-r2\", \"r1-r2\"]", "trace.links[1]: \"r1-r2\" is named twice"),
        ("links = \"r1-r2\"", "trace.links"),
    ] {
        let error = match Scenario::from_toml_str(&dumbbell("\"droptail\"", trace)) {
            Err(e) => e.to_string(),
            Ok(s) => Simulation::new(s).err().expect(trace).to_string(),
        };
        assert!(error.contains(needle), "{trace}: {error}");
        assert_eq!(error.lines().count(), 1);
    }
}

/// `trace.pcap`: every packet a link transmitted, in order, with what it carried.
#[test]
fn a_capture_holds_every_packet_the_link_sent() {
    for queue in ["\"droptail\"", "\"codel\""] {
        let text = dumbbell(queue, "pcap = [\"r1-r2\", \"r2-r1\"]");
        let r = run(scenario(&text)).unwrap();
        let captures = &r.traces.as_ref().unwrap().captures;
        let (data, acks) = (&captures[0], &captures[1]);
        assert_eq!((data.name.as_str(), acks.name.as_str()), ("r1-r2", "r2-r1"));
        let horizon = 10_000_000_000;
        for (capture, name) in [(data, "r1-r2"), (acks, "r2-r1")] {
            let sent = capture.t_ns.iter().filter(|&&t| t <= horizon).count() as u64;
            assert_eq!(sent, link(&r, name).departures, "{queue} {name}");
            assert!(capture.t_ns.windows(2).all(|w| w[0] <= w[1]), "{queue} {name}: in time order");
            assert!(!capture.truncated);
        }
        use cclab_core::metrics::Capture;
        assert!(data.kind.iter().all(|&k| k == Capture::TCP_DATA || k == Capture::SYN), "{queue}");
        assert!(acks.kind.iter().all(|&k| k == Capture::TCP_ACK), "{queue}");
        assert!(data.bytes.iter().all(|&b| b == 1040 || b == 40));
        // each flow's data: sequence numbers mostly rising (retransmissions aside), ACKs cumulative
        for flow in 0..3 {
            let seqs: Vec<u32> = (0..data.len()).filter(|&i| data.flow[i] == flow && data.kind[i] == Capture::TCP_DATA).map(|i| data.seq[i]).collect();
            let rising = seqs.windows(2).filter(|w| w[1] == w[0] + 1).count();
            assert!(rising as f64 > 0.9 * seqs.len() as f64, "{queue} flow {flow}");
            let cumulative: Vec<u32> = (0..acks.len()).filter(|&i| acks.flow[i] == flow).map(|i| acks.ack[i]).collect();
            assert!(cumulative.windows(2).all(|w| w[0] <= w[1]), "{queue} flow {flow}: cumulative ACKs never fall");
            assert!(*cumulative.last().unwrap() as usize >= seqs.len() / 2);
        }
        // the capture changes nothing else, and the shortcuts stay exact with it
        let slow = Simulation::new(scenario(&text)).unwrap().without_shortcuts().run().unwrap();
        let strip = |mut r: RunResult| {
            r.events = 0;
            serde_json::to_string(&r).unwrap()
        };
        assert_eq!(strip(r.clone()), strip(slow), "{queue}");
        let plain = run(scenario(&dumbbell(queue, ""))).unwrap();
        assert_eq!(strip(RunResult { traces: None, ..r }), strip(plain), "{queue}");
    }
}

#[test]
fn a_capture_stops_at_the_memory_limit_and_says_so() {
    let scenario = scenario(&dumbbell("\"droptail\"", "pcap = [\"r1-r2\"]"));
    // what the run needs, and room for about 5000 captured packets of the 12 000 it sends
    let links = scenario.expand_topology().unwrap().links.len() as u64;
    let needed = cclab_core::simulation::check_memory(&scenario, links, &cclab_core::RunLimits::default()).unwrap();
    let limits = cclab_core::RunLimits { max_memory_bytes: needed + 600_000, ..Default::default() };
    let r = cclab_core::run_with_limits(scenario, &limits).unwrap();
    let capture = &r.traces.as_ref().unwrap().captures[0];
    assert!(capture.truncated && !capture.is_empty());
    assert!(r.warnings.iter().any(|w| w.starts_with("trace.pcap: r1-r2's capture stopped after")), "{:?}", r.warnings);
}
