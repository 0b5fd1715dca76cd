//! The modern congestion controls through the engine, against their definitions:
//! CUBIC's window follows W(t) = C(t − K)³ + W_max between losses (RFC 9438 Eq. 1), BBR
//! keeps a deep buffer nearly empty where CUBIC fills it and measures the path (btl_bw,
//! min_rtt), Vegas keeps α to β segments queued; of ns-3's catalogue, the scavengers
//! (LEDBAT, TCP-LP) yield to Reno and the high-speed controls outgrow it on a long lossy
//! path.
use cclab_core::metrics::FlowTrace;
use cclab_core::{run, RunResult, Scenario};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"))
}

/// One flow of `cc` over a `rate` bottleneck of `delay` (1-ms access links each side,
/// 1000-byte payloads in 1040-byte packets) with `buffer`, flow and queue traces on.
fn one_flow(cc: &str, rate: &str, delay: &str, buffer: &str, duration: &str) -> RunResult {
    run(scenario(&format!(
        r#"
duration = "{duration}"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "{rate}", delay = "{delay}", buffer = {buffer} }}
source_access = {{ rate = "1Gbps", delay = "1ms", buffer = 10000 }}
sink_access = {{ rate = "1Gbps", delay = "1ms", buffer = 10000 }}
[[flows]]
cc = {cc}
[trace]
flows = true
queue = true
"#
    )))
    .unwrap()
}

fn column<'a>(trace: &'a FlowTrace, name: &str) -> &'a [f64] {
    trace.columns.get(name).unwrap_or_else(|| panic!("no column {name}: {:?}", trace.columns.keys()))
}

#[test]
fn cubic_follows_its_cubic_curve_between_losses() {
    // 50 Mb/s, 104 ms base RTT, half a BDP of buffer: W_max ≈ 900 segments, K ≈ 8.8 s,
    // so the window is in CUBIC's own region (the Reno-friendly W_est grows ~50 segments
    // in K), not the TCP-friendly one.
    let r = one_flow("\"cubic\"", "50Mbps", "50ms", "300", "90s");
    let trace = &r.traces.as_ref().unwrap().flows[0];
    let (t, cwnd) = (&trace.t_s, column(trace, "cwnd"));
    let (w_max, k, w_est) = (column(trace, "cc_w_max"), column(trace, "cc_k_s"), column(trace, "cc_w_est"));
    // Epochs: each starts where K is recomputed (the first ACK after a reduction).
    let starts: Vec<usize> = (1..t.len()).filter(|&i| k[i] != k[i - 1]).collect();
    assert!(starts.len() >= 3, "{} epochs in 90 s", starts.len());
    let mut checked = 0;
    for pair in starts.windows(2) {
        let (begin, end) = (pair[0], pair[1]);
        // a cut ends the epoch: stop at the first drop of the window
        let end = (begin + 1..end).find(|&i| cwnd[i] < cwnd[i - 1] - 1.0).unwrap_or(end);
        let t0 = t[begin];
        for i in begin..end {
            let elapsed = t[i] - t0;
            if elapsed < 0.5 {
                continue; // the first RTTs: cwnd catches up with its target
            }
            let expected = 0.4 * (elapsed - k[i]).powi(3) + w_max[i];
            assert!(w_est[i] < cwnd[i], "t = {}: in the Reno-friendly region", t[i]);
            let error = (cwnd[i] - expected).abs() / w_max[i];
            assert!(error < 0.03, "t = {}: cwnd {} vs W(t) {expected} (K {}, W_max {})", t[i], cwnd[i], k[i], w_max[i]);
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked} ACKs checked");
    // β = 0.7: each epoch after a loss starts from 0.7 × the window's peak before it
    for pair in starts.windows(2) {
        let peak = cwnd[pair[0]..pair[1]].iter().cloned().fold(0.0, f64::max);
        let start = cwnd[pair[1]];
        assert!((start / peak - 0.7).abs() < 0.02, "t = {}: {start} after a peak of {peak}", t[pair[1]]);
    }
}

#[test]
fn bbr_keeps_a_deep_buffer_nearly_empty_where_cubic_fills_it() {
    // 10 Mb/s, 44 ms base RTT: a BDP of 53 packets; 10 BDP of buffer.
    let cubic = one_flow("\"cubic\"", "10Mbps", "20ms", "\"10bdp\"", "40s");
    let bbr = one_flow("\"bbr\"", "10Mbps", "20ms", "\"10bdp\"", "40s");
    let base_rtt_ms = bbr.flows[0].base_rtt_ms;
    assert!(cubic.system.mean_queue_delay_ms > 2.0 * base_rtt_ms, "CUBIC {:?}", cubic.system);
    assert!(bbr.system.mean_queue_delay_ms < 0.5 * base_rtt_ms, "BBR {:?}", bbr.system);
    assert!(bbr.system.bottleneck_utilization > 0.9, "{:?}", bbr.system);
    assert_eq!(bbr.system.bottleneck_drops, 0);
    // its model of the path: the bottleneck rate in segments/s and the base RTT
    let trace = &bbr.traces.as_ref().unwrap().flows[0];
    let btl_bw = *column(trace, "cc_btl_bw_pps").last().unwrap();
    let segments_per_s = 10e6 / (1040.0 * 8.0);
    assert!((btl_bw / segments_per_s - 1.0).abs() < 0.05, "btl_bw {btl_bw} vs {segments_per_s}");
    let min_rtt_ms = column(trace, "cc_min_rtt_s").last().unwrap() * 1e3;
    assert!(min_rtt_ms >= base_rtt_ms && min_rtt_ms < base_rtt_ms + 3.0, "min_rtt {min_rtt_ms} ms, base {base_rtt_ms}");
    // probe_rtt every 10 s: the mode (3 = probe_rtt) is entered at least three times in 40 s
    let mode = column(trace, "cc_mode");
    let probes = mode.windows(2).filter(|w| w[0] != 3.0 && w[1] == 3.0).count();
    assert!((3..=4).contains(&probes), "{probes} probe_rtt phases");
}

#[test]
fn vegas_keeps_alpha_to_beta_segments_queued() {
    let r = one_flow("\"vegas\"", "10Mbps", "20ms", "200", "40s");
    // the queue each arrival finds (the packet being sent included), once settled
    let queue = r.traces.as_ref().unwrap().bottleneck_queue.as_ref().unwrap();
    let settled: Vec<f64> = queue.t_s.iter().zip(&queue.packets).filter(|(&t, _)| t > 10.0).map(|(_, &p)| p as f64).collect();
    let queued = settled.iter().sum::<f64>() / settled.len() as f64;
    assert!((2.0..=4.0).contains(&queued), "mean queue {queued} packets, α 2, β 4");
    assert!(r.system.bottleneck_utilization > 0.95, "{:?}", r.system);
    assert_eq!(r.system.bottleneck_drops, 0);
    let trace = &r.traces.as_ref().unwrap().flows[0];
    let diff = column(trace, "cc_diff");
    let late: Vec<f64> = diff[diff.len() / 2..].to_vec();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!((2.0..=4.0).contains(&mean), "Vegas's diff averages {mean} segments");
}

/// `count` flows of `cc` (started 0.2 s apart) on a 20 Mb/s, 44 ms-RTT dumbbell with a
/// DropTail `buffer`: (bottleneck utilisation, retransmitted / data segments sent).
fn many_flows(cc: &str, count: u32, buffer: &str, seed: u64) -> (f64, f64) {
    let r = run(scenario(&format!(
        r#"
duration = "40s"
seed = {seed}
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "20Mbps", delay = "20ms", queue = "droptail", buffer = "{buffer}" }}
source_access = {{ rate = "1Gbps", delay = "1ms" }}
sink_access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
count = {count}
cc = "{cc}"
start = {{ stagger = "0.2s" }}
"#
    )))
    .unwrap();
    let sent: u64 = r.flows.iter().map(|f| f.data_packets_sent).sum();
    let resent: u64 = r.flows.iter().map(|f| f.retransmitted_packets.unwrap_or(0)).sum();
    (r.system.bottleneck_utilization, resent as f64 / sent as f64)
}

/// BBRv3's point (google/bbr v3, draft-ietf-ccwg-bbr): its in-flight bounds keep losses
/// near the 2 % loss threshold where BBR v1, which ignores loss, keeps its rate and loses
/// far more. Many flows on a shallow buffer (8 and 16 flows; 0.25 and 0.5 BDP).
#[test]
fn bbr3_retransmissions_bounded_by_its_loss_threshold_where_v1_is_not() {
    for (count, buffer) in [(8, "0.25bdp"), (8, "0.5bdp"), (16, "0.5bdp")] {
        let (v3_util, v3_retx) = many_flows("bbr3", count, buffer, 1);
        let (v1_util, v1_retx) = many_flows("bbr", count, buffer, 1);
        let label = format!("{count} flows, {buffer}: bbr3 {v3_util:.3} / {v3_retx:.4}, bbr {v1_util:.3} / {v1_retx:.4}");
        assert!(v3_retx < 3.0 * 0.02, "{label}");
        assert!(v1_retx > 0.08, "{label}");
        assert!(v1_retx > 3.0 * v3_retx, "{label}");
        assert!(v3_util > 0.9, "{label}");
    }
}

/// A single BBRv3 flow fills a 1-BDP buffer's link (utilisation over 40 s, PROBE_RTT and
/// start-up included) while keeping the queue small.
#[test]
fn bbr3_single_flow_fills_the_link_with_a_small_queue() {
    let r = one_flow("\"bbr3\"", "20Mbps", "20ms", "\"1bdp\"", "40s");
    let base_rtt_ms = r.flows[0].base_rtt_ms;
    assert!(r.system.bottleneck_utilization > 0.93, "{:?}", r.system);
    assert!(r.system.mean_queue_delay_ms < 0.25 * base_rtt_ms, "{:?}", r.system);
    let trace = &r.traces.as_ref().unwrap().flows[0];
    // the model: bandwidth within 5 % of 20 Mb/s in 1040-byte packets, min RTT the path's
    let bw = *column(trace, "cc_bw_hi_pps").last().unwrap();
    assert!((bw / (20e6 / 8.0 / 1040.0) - 1.0).abs() < 0.05, "bw {bw}");
    let min_rtt_ms = 1e3 * column(trace, "cc_min_rtt_s").last().unwrap();
    assert!((min_rtt_ms - base_rtt_ms).abs() < 1.0, "min RTT {min_rtt_ms} ms, base {base_rtt_ms} ms");
}

/// BBRv3 with ECN (`ecn = true`, a min RTT under its 5 ms ECN limit) on DCTCP's step
/// marking (K = 20 packets, 100 Mb/s, 2.8 ms RTT): the CE fraction passing 50 % while
/// probing sets inflight_hi (no loss ever does here), so the flow runs at the marking
/// threshold — full link, no drops, a queue of about K. Without ECN inflight_hi stays
/// unset.
#[test]
fn bbr3_ecn_marks_bound_inflight_hi() {
    let run_with = |ecn: bool| {
        run(scenario(&format!(
            r#"
duration = "10s"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "100Mbps", delay = "1ms", buffer = 300, queue = {{ kind = "step_mark", threshold = 20 }} }}
source_access = {{ rate = "1Gbps", delay = "0.2ms" }}
sink_access = {{ rate = "1Gbps", delay = "0.2ms" }}
[[flows]]
cc = {{ algorithm = "bbr3", ecn = {ecn} }}
[trace]
flows = true
"#
        )))
        .unwrap()
    };
    let marked = run_with(true);
    let inflight_hi = *column(&marked.traces.as_ref().unwrap().flows[0], "cc_inflight_hi").last().unwrap();
    assert!(inflight_hi > 0.0 && inflight_hi < 80.0, "inflight_hi {inflight_hi}");
    assert!(marked.system.bottleneck_ecn_marks > 0 && marked.system.bottleneck_drops == 0, "{:?}", marked.system);
    assert!(marked.system.bottleneck_utilization > 0.9, "{:?}", marked.system);
    // K = 20 packets of 1040 bytes at 100 Mb/s is 1.7 ms
    assert!(marked.system.mean_queue_delay_ms < 2.5, "{:?}", marked.system);
    let unmarked = run_with(false);
    assert_eq!(unmarked.system.bottleneck_ecn_marks, 0);
    assert_eq!(*column(&unmarked.traces.as_ref().unwrap().flows[0], "cc_inflight_hi").last().unwrap(), -1.0);
}

/// Flows of the given algorithms sharing a dumbbell bottleneck (1-Gb/s, 1-ms access links,
/// 1000-byte payloads), all started at 0; `loss` a Bernoulli rate on the bottleneck.
fn shared(ccs: &[&str], rate: &str, delay: &str, buffer: u32, duration: &str, loss: Option<f64>) -> RunResult {
    let loss = loss.map_or(String::new(), |p| format!(", loss = {{ model = \"bernoulli\", rate = {p} }}"));
    let flows: String = ccs.iter().map(|cc| format!("[[flows]]\ncc = \"{cc}\"\n")).collect();
    run(scenario(&format!(
        r#"
duration = "{duration}"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "{rate}", delay = "{delay}", buffer = {buffer}{loss} }}
source_access = {{ rate = "1Gbps", delay = "1ms", buffer = 10000 }}
sink_access = {{ rate = "1Gbps", delay = "1ms", buffer = 10000 }}
{flows}"#
    )))
    .unwrap()
}

/// LEDBAT (RFC 6817) and TCP-LP exist to take only what standard TCP leaves: sharing a
/// 10-Mb/s bottleneck with a 250-ms buffer, which Reno fills far past LEDBAT's 100-ms
/// target and LP's early-congestion threshold, each gets well under a fifth of Reno's
/// goodput — while LEDBAT alone fills the link and holds the queue below its target
/// (Reno alone keeps it near 200 ms).
#[test]
fn scavengers_yield_to_reno() {
    for scavenger in ["ledbat", "lp"] {
        let r = shared(&["reno", scavenger], "10Mbps", "20ms", 300, "60s", None);
        let (reno, other) = (r.flows[0].goodput_mbps, r.flows[1].goodput_mbps);
        assert!(other < 0.2 * reno, "{scavenger} {other} Mb/s against Reno's {reno}");
        assert!(reno > 8.0, "Reno takes the link: {reno}");
    }
    let alone = shared(&["ledbat"], "10Mbps", "20ms", 300, "60s", None);
    assert!(alone.system.bottleneck_utilization > 0.9, "{:?}", alone.system);
    let delay = alone.system.mean_queue_delay_ms;
    assert!((30.0..105.0).contains(&delay), "LEDBAT alone queues {delay} ms (target 100)");
    let reno = shared(&["reno"], "10Mbps", "20ms", 300, "60s", None);
    assert!(reno.system.mean_queue_delay_ms > 150.0, "{:?}", reno.system);
}

/// The high-speed controls exist for long fat paths where Reno's one segment per RTT and
/// halving cannot fill the pipe: 100 Mb/s, 104-ms RTT (a BDP of 1250 segments, as much
/// buffer), 10⁻⁴ random loss. Reno reaches ~13 Mb/s (Mathis: 1.22/√p segments per RTT);
/// each of these gets at least the stated multiple of it. Hybla counts from ρ = 104/50 ≈ 2
/// (RTT in whole ms over 50 ms); Veno takes most of these random losses as non-congestive
/// (4/5 cut).
#[test]
fn high_speed_controls_outgrow_reno_on_a_long_lossy_path() {
    let goodput = |cc: &str| shared(&[cc], "100Mbps", "50ms", 1250, "60s", Some(1e-4)).flows[0].goodput_mbps;
    let reno = goodput("reno");
    assert!((8.0..20.0).contains(&reno), "Reno {reno} Mb/s");
    for (cc, multiple) in [("highspeed", 1.8), ("scalable", 4.0), ("bic", 2.5), ("htcp", 2.0), ("hybla", 1.5), ("veno", 1.4), ("illinois", 3.0), ("yeah", 3.0)] {
        let g = goodput(cc);
        assert!(g > multiple * reno, "{cc} {g} Mb/s, Reno {reno}: below {multiple}×");
    }
    // the scavengers are no faster than Reno here
    for cc in ["ledbat", "lp"] {
        assert!(goodput(cc) < 1.1 * reno, "{cc}");
    }
}

/// Hybla exists for long-delay (satellite) paths: a 10-Mb/s link with a 604-ms RTT
/// (ρ = 604/50 ≈ 12) and 10⁻³ random loss, the receiver's window 1500 segments (2 BDP).
/// Reno, growing one segment per 604 ms, gets ~1 Mb/s; Hybla, ρ² = 144 segments per RTT,
/// over 2.5 times that.
#[test]
fn hybla_outgrows_reno_on_a_long_delay_lossy_path() {
    let goodput = |cc: &str| {
        let r = run(scenario(&format!(
            r#"
duration = "60s"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "300ms", buffer = 750, loss = {{ model = "bernoulli", rate = 0.001 }} }}
source_access = {{ rate = "1Gbps", delay = "1ms", buffer = 10000 }}
sink_access = {{ rate = "1Gbps", delay = "1ms", buffer = 10000 }}
[[flows]]
cc = "{cc}"
tcp = {{ max_window = 1500 }}
"#
        )))
        .unwrap();
        r.flows[0].goodput_mbps
    };
    let (reno, hybla) = (goodput("reno"), goodput("hybla"));
    assert!(reno < 1.5, "Reno {reno} Mb/s");
    assert!(hybla > 2.5 * reno, "Hybla {hybla} Mb/s, Reno {reno}");
}
