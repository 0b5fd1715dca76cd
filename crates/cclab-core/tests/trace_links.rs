//! Links that follow Mahimahi traces (`rate_schedule = { kind = "mahimahi", ... }`):
//! hand-computed deliveries over whole runs, both directions, mm-link's droptail and
//! delay accounting, and the shortcuts (no event per hop) exact around trace links.
use cclab_core::{run, RunResult, Scenario, Simulation};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"))
}

fn link<'a>(r: &'a RunResult, name: &str) -> &'a cclab_core::metrics::LinkMetrics {
    r.links.iter().find(|l| l.name == name).unwrap()
}

/// One graph link a–b delivering by `forward` (and `reverse`, if any: its table), with a
/// flow of `flow` (TOML fields); 1500-byte UDP packets on the wire (1472 + 28).
fn graph(forward: &str, reverse: &str, buffer: u32, flow: &str) -> String {
    format!(
        r#"
duration = "10s"
packet_size = "1472B"
header_size = "28B"
[topology]
kind = "graph"
links = [{{ from = "a", to = "b", delay = "10ms", buffer = {buffer}, rate_schedule = {{ kind = "mahimahi", opportunities = {forward} }}{reverse} }}]
[[flows]]
{flow}
"#
    )
}

#[test]
fn udp_above_capacity_takes_every_opportunity() {
    // One opportunity a millisecond (12.032 Mb/s); 1500 + 4 bytes fill one each. The
    // first packet arrives at 0 and leaves at 1 ms; the last one to arrive within the
    // run leaves at 9990 ms (10 ms of propagation before the end): 9990 packets.
    let text = graph("[[1, 1]]", "", 1000, "transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"cbr\", rate = \"20Mbps\" }");
    let r = run(scenario(&text)).unwrap();
    assert_eq!(r.flows[0].delivered_packets, 9990);
    let forward = link(&r, "a-b");
    assert_eq!(forward.rate_mbps, 12.032, "the trace's mean rate is the link's");
    assert!((forward.utilization - 1500.0 / 1504.0).abs() < 1e-3, "{}", forward.utilization);
    // 16 667 sent (20 Mb/s of 1500 bytes for 10 s): 9990 delivered; at the end 10 in
    // transit (leaving 9991 … 10 000 ms) and 999 waiting (a full buffer of 1000 less the
    // one whose opportunity, 10 000 ms, has come); the rest dropped
    assert_eq!(forward.arrivals, 16_667);
    assert_eq!(forward.queue_drops, 16_667 - 9990 - 10 - 999);
}

#[test]
fn mm_link_droptail_counts_waiting_packets_and_the_delay_as_it_logs_it() {
    // A burst of 5 packets at t = 0 (CBR far above capacity for 4 µs), buffer 3: packet
    // 1 is not yet in transit when the others arrive (its opportunity is at 1 ms), so 3
    // wait besides it?  mm-link queues all until its first opportunity: the queue holds
    // at most 3, the 4th and 5th arrivals are dropped.
    let flow = "transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"cbr\", rate = \"3Gbps\" }\nstop = \"0.000018s\"";
    let r = run(scenario(&graph("[[1, 1]]", "", 3, flow))).unwrap();
    let forward = link(&r, "a-b");
    assert_eq!((forward.arrivals, forward.queue_drops), (5, 2), "{forward:?}");
    // the three left at 1, 2 and 3 ms, each counted from its arrival millisecond (0)
    assert!((forward.mean_queue_delay_ms - 2.0).abs() < 1e-9, "{}", forward.mean_queue_delay_ms);
    // A packet every 2 ms arriving on the millisecond leaves at the next one: 1 ms each,
    // as mm-link logs it; starting half a millisecond later changes nothing.
    for start in ["0s", "0.5ms"] {
        let flow = format!("transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\napp = {{ kind = \"cbr\", rate = \"6Mbps\" }}\nstart = \"{start}\"");
        let r = run(scenario(&graph("[[1, 1]]", "", 100, &flow))).unwrap();
        assert!((link(&r, "a-b").mean_queue_delay_ms - 1.0).abs() < 1e-9, "start {start}");
    }
}

#[test]
fn both_directions_follow_their_own_trace() {
    // Forward: one opportunity a millisecond; reverse: one every 5 ms. A UDP flow b → a
    // above capacity gets one packet through per 5 ms: those leaving at 5, 10, …, 9990 ms.
    let reverse = ", reverse = { rate_schedule = { kind = \"mahimahi\", opportunities = [[5, 1]] } }";
    let flow = "transport = \"udp\"\nfrom = \"b\"\nto = \"a\"\napp = { kind = \"cbr\", rate = \"20Mbps\" }";
    let r = run(scenario(&graph("[[1, 1]]", reverse, 1000, flow))).unwrap();
    assert_eq!(r.flows[0].delivered_packets, 9990 / 5);
    assert!((link(&r, "b-a").rate_mbps - 12.032 / 5.0).abs() < 1e-9);
    // without a reverse trace, the reverse direction is a constant-rate link at the
    // forward trace's mean rate
    let r = run(scenario(&graph("[[1, 1]]", "", 1000, flow))).unwrap();
    assert_eq!(link(&r, "b-a").rate_mbps, 12.032);
}

/// A cellular-like trace: 12 Mb/s for a second, 36 Mb/s for half a second, an outage of
/// 200 ms, 2 opportunities every 3 ms for the rest of 2 s.
fn cellular() -> String {
    let mut runs = Vec::new();
    runs.extend((1..=1000).map(|ms| format!("[{ms}, 1]")));
    runs.extend((1001..=1500).map(|ms| format!("[{ms}, 3]")));
    runs.extend((1703..=2000).step_by(3).map(|ms| format!("[{ms}, 2]")));
    format!("[{}]", runs.join(", "))
}

#[test]
fn tcp_over_a_trace_with_the_ack_path_on_its_own_trace() {
    // CUBIC and BBR over the cellular-like trace, ACKs over a constant one: packets
    // conserved, the shortcuts exact, the link near its capacity.
    let text = format!(
        r#"
duration = "20s"
seed = 3
[topology]
kind = "dumbbell"
bottleneck = {{ delay = "20ms", buffer = 60, rate_schedule = {{ kind = "mahimahi", opportunities = {} }}, reverse_rate_schedule = {{ kind = "mahimahi", opportunities = [[1, 1]] }} }}
source_access = {{ rate = "100Mbps", delay = "1ms" }}
sink_access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
count = 2
cc = "cubic"
[[flows]]
cc = "bbr"
start = "1s"
"#,
        cellular()
    );
    let fast = run(scenario(&text)).unwrap();
    let slow = Simulation::new(scenario(&text)).unwrap().without_shortcuts().run().unwrap();
    assert_eq!(fast.flows, slow.flows, "the shortcuts are exact around trace links");
    assert_eq!(fast.links, slow.links);
    let c = &fast.conservation;
    assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight);
    let bottleneck = link(&fast, "r1-r2");
    assert!(bottleneck.utilization > 0.5 && bottleneck.utilization <= 1.0, "{}", bottleneck.utilization);
}

#[test]
fn the_shortcuts_stay_exact_when_a_trace_delivers_several_packets_a_millisecond() {
    // Several opportunities a millisecond and four flows: packets of different flows
    // leave at one instant, their ACKs meet on the way back, and retransmission timers
    // (set an RTO after a send at an ACK's arrival, the millisecond grid) fall due at
    // the instant ACKs arrive. The links of flows crossing a trace take every packet by
    // events, so such ties are ordered as the event queue orders them in both.
    for opportunities in ["[[1, 2]]", "[[1, 7]]", "[[3, 5], [4, 1]]"] {
        let text = format!(
            r#"
duration = "20s"
seed = 3
[topology]
kind = "dumbbell"
bottleneck = {{ delay = "20ms", buffer = 60, rate_schedule = {{ kind = "mahimahi", opportunities = {opportunities} }} }}
source_access = {{ rate = "100Mbps", delay = "1ms" }}
sink_access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
count = 3
cc = "reno"
[[flows]]
cc = "bbr"
start = "2s"
"#
        );
        let fast = run(scenario(&text)).unwrap();
        let slow = Simulation::new(scenario(&text)).unwrap().without_shortcuts().run().unwrap();
        assert_eq!(fast.flows, slow.flows, "{opportunities}");
        assert_eq!(fast.links, slow.links, "{opportunities}");
    }
}


/// Two graph links a–b–c as `mm-link` (one opportunity a millisecond, no delay) inside
/// `mm-delay 10`, both with `emulator` (TOML table, or none), and a UDP flow a → c of
/// 1500-byte packets every millisecond from 0.3 ms for half a second.
fn emulated(emulator: &str) -> String {
    let with = if emulator.is_empty() { String::new() } else { format!(", emulator = {emulator}") };
    format!(
        r#"
duration = "1s"
packet_size = "1472B"
header_size = "28B"
[topology]
kind = "graph"
links = [{{ from = "a", to = "b", delay = "0s", buffer = 100, rate_schedule = {{ kind = "mahimahi", opportunities = [[1, 1]] }}{with} }},
         {{ from = "b", to = "c", delay = "10ms", rate = "1Gbps", buffer = 100{with} }}]
[trace]
delays = true
pcap = ["a-b", "b-c"]
[[flows]]
transport = "udp"
from = "a"
to = "c"
app = {{ kind = "cbr", rate = "12Mbps" }}
start = "0.3ms"
stop = "0.5s"
"#
    )
}

/// When each packet a link direction captured left it, ms.
fn released(r: &RunResult, name: &str) -> Vec<f64> {
    let captures = &r.traces.as_ref().unwrap().captures;
    captures.iter().find(|c| c.name == name).unwrap().t_ns.iter().map(|&t| t as f64 / 1e6).collect()
}

#[test]
fn an_emulators_loop_releases_a_tick_when_the_next_packet_wakes_it() {
    // Without the emulator packet k (sent at k + 0.3 ms) leaves mm-link at the tick
    // k + 1 and, 12 µs and 10 ms later, reaches c: 10.712 ms. With it, mm-link's loop
    // would sleep 1 ms + 100 µs from each arrival, but the next packet (k + 1.3) wakes it
    // first, and the tick's packet leaves then, 0.3 ms late; mm-delay (due in the
    // arrival's millisecond + 10) is woken the same way by the packet after: 11.012 ms.
    let exact = run(scenario(&emulated(""))).unwrap();
    let looped = run(scenario(&emulated("{ kind = \"mahimahi\", overshoot = \"100us\" }"))).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let (min, max) = (exact.flows[0].delays.owd_min_ms.unwrap(), exact.flows[0].delays.owd_max_ms.unwrap());
    assert!(close(min, 10.712) && close(max, 10.712), "{min} {max}");
    let (link_out, delay_out) = (released(&looped, "a-b"), released(&looped, "b-c"));
    assert_eq!((link_out.len(), delay_out.len()), (500, 500));
    for k in 0..499 {
        assert!(close(link_out[k], k as f64 + 1.3), "packet {k} left mm-link at {}", link_out[k]);
    }
    // the last has no packet after it: the timer releases it, 100 µs past 1 ms of sleep
    assert!(close(link_out[499], 500.4));
    for k in 0..489 {
        assert!(close(delay_out[k] - (k as f64 + 0.3), 11.012), "packet {k} reached c at {}", delay_out[k]);
    }
    // The last eleven are due after the last arrival (500.412, which releases the first): each of mm-delay's timer wakes falls
    // 100 µs later in its millisecond than the one before (501.512, 502.612, ...) until
    // one passes the next millisecond, which then leaves with it (507.012 twice).
    let tail: Vec<f64> = delay_out[489..].iter().map(|t| (t * 1000.0).round() / 1000.0).collect();
    assert_eq!(tail, [500.412, 501.512, 502.612, 503.712, 504.812, 505.912, 507.012, 507.012, 508.112, 509.212, 510.312]);
    assert_eq!(looped.flows[0].delivered_packets, exact.flows[0].delivered_packets, "all delivered either way");
    // the queueing delay is still counted as mm-link logs it
    assert!(close(link(&looped, "a-b").mean_queue_delay_ms, 1.0));
    // mm-delay's loop applies the 10 ms, and the link still reports the 10 ms it was given
    assert_eq!((link(&looped, "b-c").delay_ms, link(&exact, "b-c").delay_ms), (10.0, 10.0));
}

#[test]
fn a_links_queueing_delays_are_binned_as_mm_link_logs_them() {
    // The burst of five into a buffer of 3 (above): three leave at 1, 2 and 3 ms, each
    // counted from its arrival millisecond, so 1, 2 and 3 ms in bins of half a ms.
    let flow = "transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"cbr\", rate = \"3Gbps\" }\nstop = \"0.000018s\"";
    let traced = graph("[[1, 1]]", "", 3, flow) + "[trace]\nlinks = [\"a-b\"]\nqueue_delay_histogram = \"0.5ms\"\n";
    let r = run(scenario(&traced)).unwrap();
    let histograms = &r.traces.as_ref().unwrap().queue_delay_histograms;
    assert_eq!(histograms.len(), 1);
    assert_eq!((histograms[0].link.as_str(), histograms[0].bin_ms), ("a-b", 0.5));
    assert_eq!(histograms[0].counts, [0, 0, 1, 0, 1, 0, 1]);
    // A flood over a second through one opportunity a millisecond: every packet that went
    // through is in the histogram, at a whole millisecond, and its mean is the link's.
    let flood = "transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"cbr\", rate = \"18Mbps\" }";
    let traced = graph("[[1, 1]]", "", 40, flood) + "[trace]\nlinks = [\"a-b\"]\nqueue_delay_histogram = \"0.1ms\"\n";
    let r = run(scenario(&traced)).unwrap();
    let traces = r.traces.as_ref().unwrap();
    let counts = &traces.queue_delay_histograms[0].counts;
    let forward = link(&r, "a-b");
    // (by arrival within the run, as the link's bins count them)
    let bins = &traces.links[0];
    assert_eq!(counts.iter().sum::<u64>(), bins.arrivals.iter().zip(&bins.drops).map(|(a, d)| a - d).sum::<u64>());
    assert!(counts.iter().enumerate().all(|(k, &n)| n == 0 || k % 10 == 0), "not whole milliseconds");
    // admitted behind the 39 others waiting (40 waiting is full) and the one in delivery
    assert_eq!(counts.iter().rposition(|&n| n > 0), Some(400), "leaves at the 40th tick after its millisecond");
    let mean = counts.iter().enumerate().map(|(k, &n)| k as f64 * 0.1 * n as f64).sum::<f64>() / counts.iter().sum::<u64>() as f64;
    let started = bins.arrivals.iter().zip(&bins.drops).map(|(a, d)| (a - d) as f64);
    let binned: f64 = bins.mean_sojourn_ms.iter().zip(started).filter(|(_, n)| *n > 0.0).map(|(m, n)| m * n).sum();
    assert!((mean - binned / counts.iter().sum::<u64>() as f64).abs() < 1e-9, "{mean} {binned}");
    assert!((mean - forward.mean_queue_delay_ms).abs() < 1e-3, "{mean} {}", forward.mean_queue_delay_ms);
    // without trace.links there is nothing to bin; a zero width bins nothing
    for (trace, message) in [
        ("queue_delay_histogram = \"1ms\"", "trace.queue_delay_histogram: needs trace.links"),
        ("links = [\"a-b\"]\nqueue_delay_histogram = \"0s\"", "trace.queue_delay_histogram: must be > 0"),
    ] {
        let text = graph("[[1, 1]]", "", 40, flood) + "[trace]\n" + trace + "\n";
        let error = Scenario::from_toml_str(&text).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.starts_with(message), "{error}");
    }
}

#[test]
fn a_wake_latency_delays_each_loops_read_of_the_packet_that_wakes_it() {
    // As above, but each loop reads a packet 50 µs after it is handed over (its vCPU
    // woken from halt): mm-link reads packet k at k + 0.35 ms (before its timer, due at
    // k + 0.45) and releases tick k's packet then; mm-delay reads it 50 µs after it
    // arrives (k + 1.362), due at k + 11, released when packet k + 10 wakes the loop:
    // 11.112 ms after it was sent, the two loops' latencies added to 11.012.
    let emulator = "{ kind = \"mahimahi\", overshoot = \"100us\", wake_latency = \"50us\" }";
    let looped = run(scenario(&emulated(emulator))).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let (link_out, delay_out) = (released(&looped, "a-b"), released(&looped, "b-c"));
    assert_eq!((link_out.len(), delay_out.len()), (500, 500));
    for k in 0..499 {
        assert!(close(link_out[k], k as f64 + 1.35), "packet {k} left mm-link at {}", link_out[k]);
    }
    for k in 0..489 {
        assert!(close(delay_out[k] - (k as f64 + 0.3), 11.112), "packet {k} reached c at {}", delay_out[k]);
    }
    // read (and stamped) in the millisecond it arrived: mm-link's log is unchanged
    assert!(close(link(&looped, "a-b").mean_queue_delay_ms, 1.0));
}

#[test]
fn stalls_change_the_timing_by_seed_and_tcp_conserves_packets() {
    // CUBIC and BBR through emulated loops with stalls: packets conserved, the same seed
    // the same run, another seed another.
    let text = |seed: u32| {
        format!(
            r#"
duration = "10s"
seed = {seed}
[topology]
kind = "dumbbell"
bottleneck = {{ delay = "0s", buffer = 80, rate_schedule = {{ kind = "mahimahi", opportunities = [[1, 4]] }}, reverse_rate_schedule = {{ kind = "mahimahi", opportunities = [[1, 4]] }}, emulator = {{ kind = "mahimahi", overshoot = "120us", stall_probability = 0.08, stall_mean = "600us", wake_latency = "30us" }} }}
source_access = {{ rate = "1Gbps", delay = "0s" }}
sink_access = {{ rate = "1Gbps", delay = "10ms", emulator = {{ kind = "mahimahi", overshoot = "120us", stall_probability = 0.08, stall_mean = "600us" }} }}
[[flows]]
cc = "cubic"
[[flows]]
cc = "bbr"
start = "0.5s"
"#
        )
    };
    let a = run(scenario(&text(1))).unwrap();
    let again = Simulation::new(scenario(&text(1))).unwrap().without_shortcuts().run().unwrap();
    let other = run(scenario(&text(2))).unwrap();
    assert_eq!(a.flows, again.flows, "the same seed, the same run (and the shortcuts exact)");
    assert_ne!(a.flows, other.flows, "the stalls are drawn from the seed");
    for r in [&a, &other] {
        let c = &r.conservation;
        assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight);
        let bottleneck = link(r, "r1-r2");
        assert!(bottleneck.utilization > 0.8 && bottleneck.utilization <= 1.0, "{}", bottleneck.utilization);
    }
}

#[test]
fn an_emulator_where_its_loop_cannot_run_is_refused() {
    let err = |text: String| Scenario::from_toml_str(&text).and_then(|s| Simulation::new(s).map(|_| ())).unwrap_err().to_string();
    let emulator = "{ kind = \"mahimahi\", overshoot = \"100us\" }";
    // mm-link has no delay of its own
    let text = emulated(emulator).replace("delay = \"0s\", buffer = 100, rate_schedule", "delay = \"5ms\", buffer = 100, rate_schedule");
    assert!(err(text).starts_with("topology.links[0].emulator: this direction follows a trace (mm-link) and has a delay of 5ms"));
    // mm-delay counts whole milliseconds
    let text = emulated(emulator).replace("delay = \"10ms\"", "delay = \"10.5ms\"");
    assert!(err(text).contains("topology.links[1].emulator: the delay 10500us is not a whole number of milliseconds"));
    // a dequeue-time queue
    let text = emulated(emulator).replace("rate = \"1Gbps\", buffer = 100", "rate = \"1Gbps\", queue = \"codel\", buffer = 100");
    assert!(err(text).contains("topology.links[1].emulator: the codel queue decides at dequeue"));
    // and not with a replayed lag
    let text = emulated(emulator).replace("opportunities = [[1, 1]] }", "opportunities = [[1, 1]], lag = { samples_us = [100] } }");
    assert!(err(text).contains("topology.links[0].emulator: the trace has a release lag"));
    // an unknown emulator, a typo
    assert!(err(emulated("{ kind = \"ns3\" }")).contains("ns3"));
    assert!(err(emulated("{ kind = \"mahimahi\", overshot = \"1us\" }")).contains("overshot"));
}

#[test]
fn small_datagrams_share_an_opportunity_as_mm_links_bytes_do() {
    // A UDP flow of its own 24-byte payloads (52 bytes on the wire with the 28-byte
    // header, 56 in mm-link's count with the tunnel's 4) above capacity: each 1504-byte
    // opportunity carries 26.86 of them, a packet split across two as mm-link splits it.
    // Opportunities at 1 … 9990 ms reach b within the run: 9990 × 1504 / 56 = 268 302.9.
    let flow = "transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\npacket_size = \"24B\"\napp = { kind = \"cbr\", rate = \"20Mbps\" }";
    let r = run(scenario(&graph("[[1, 1]]", "", 100_000, flow))).unwrap();
    let delivered = r.flows[0].delivered_packets;
    assert!((268_302..=268_303).contains(&delivered), "{delivered}");
    // the CBR gap is the flow's own packet on the wire: 20 Mb/s of 52-byte packets
    assert_eq!(link(&r, "a-b").arrivals, 480_770);
    // goodput counts the flow's own payload
    let goodput = delivered as f64 * 24.0 * 8.0 / 10.0 / 1e6;
    assert!((r.flows[0].goodput_mbps - goodput).abs() < 1e-9, "{} against {goodput}", r.flows[0].goodput_mbps);
    // the scenario's packet_size (1472) is still every other flow's: a full-size flow
    // beside it gets one opportunity each
    let full = "transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\napp = { kind = \"cbr\", rate = \"20Mbps\" }";
    let r = run(scenario(&graph("[[1, 1]]", "", 1000, full))).unwrap();
    assert_eq!(r.flows[0].delivered_packets, 9990);
}

#[test]
fn a_udp_size_of_its_own_is_checked() {
    for (flow, message) in [
        ("transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\npacket_size = \"2MB\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }", "flows[0].packet_size: 2000000 bytes is above 1000000, the largest cclab takes"),
    ] {
        let err = Scenario::from_toml_str(&graph("[[1, 1]]", "", 100, flow)).err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some(message));
    }
    let zero = "transport = \"udp\"\nfrom = \"a\"\nto = \"b\"\npacket_size = \"0B\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }";
    let err = Scenario::from_toml_str(&graph("[[1, 1]]", "", 100, zero)).err().unwrap().to_string();
    assert!(err.contains("packet_size") && err.contains('0'), "{err}");
}
