//! TCP and TFRC groups with a segment size of their own (`flows[i].packet_size`).
use cclab_core::{run, Scenario, Simulation};

/// `per_group` Reno flows of 1460-byte and of 536-byte segments over a 100 Mb/s path
/// that random loss (1 %), not the queue, holds back.
fn two_sizes(per_group: u32, duration: &str, profile: &str, extra: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 7
packet_size = "1460B"
profile = "{profile}"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "100Mbps", delay = "20ms", buffer = 1000, loss = {{ model = "bernoulli", rate = 0.01 }} }}
source_access = {{ rate = "1Gbps", delay = "1ms" }}
sink_access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
group = "mss1460"
cc = "reno"
count = {per_group}
[[flows]]
group = "mss536"
cc = "reno"
count = {per_group}
packet_size = "536B"
{extra}
"#
    )
}

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn under_random_loss_throughput_scales_with_the_segment_size() {
    // Mathis et al. (1997): rate = MSS / RTT · √(3/2) / √p. Same RTT, same p: the ratio of
    // the two groups' goodput is the ratio of their segments, 1460 / 536 = 2.72; and each is
    // near the formula (88 ms of RTT at 1 %: 3.25 and 1.19 Mb/s a flow). Both profiles.
    for profile in ["rfc", "linux"] {
        let r = run(scenario(&two_sizes(8, "60s", profile, ""))).unwrap();
        let (big, small) = (r.groups[0].goodput_mbps, r.groups[1].goodput_mbps);
        let ratio = big / small;
        assert!((ratio / (1460.0 / 536.0) - 1.0).abs() < 0.08, "{profile}: {big} / {small} = {ratio}");
        let mathis = |mss: f64| 8.0 * mss * 1.5f64.sqrt() / 0.1 / 0.044 / 1e6 * 8.0;
        for (got, mss) in [(big, 1460.0), (small, 536.0)] {
            assert!((got / mathis(mss) - 1.0).abs() < 0.25, "{profile}: {got} against {}", mathis(mss));
        }
        // packets are conserved, and the wire carries each group's own packets: the
        // bottleneck's bytes are the two groups' data packets (header 40 bytes) plus ACKs
        let c = &r.conservation;
        assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight);
    }
}

#[test]
fn a_finite_flow_counts_its_own_segments() {
    // 1 MB in 536-byte segments is 1866 of them (1460-byte: 685); the row's size is what
    // was asked for, rounded up to whole segments of the group's own size.
    let flows = "[[flows]]\ngroup = \"short\"\ncc = \"reno\"\npacket_size = \"536B\"\napp = { kind = \"bulk\", size = \"1MB\" }";
    let text = two_sizes(1, "20s", "rfc", flows);
    let r = run(scenario(&text)).unwrap();
    let short = r.flows.iter().find(|f| f.group == "short").unwrap();
    assert_eq!(short.size_bytes, Some(1866 * 536));
    assert_eq!(short.completed, Some(true));
    // the same run twice: bit for bit, with and without the shortcuts
    let again = Simulation::new(scenario(&text)).unwrap().without_shortcuts().run().unwrap();
    assert_eq!(r.flows, again.flows);
}

#[test]
fn a_size_of_its_own_is_refused_where_it_cannot_apply() {
    let err = |extra: &str| Scenario::from_toml_str(&two_sizes(1, "1s", "rfc", extra)).err().map(|e| e.to_string());
    let arrivals = "[[flows]]\ncc = \"reno\"\npacket_size = \"536B\"\narrivals = { kind = \"poisson\", load = 0.2, sizes = { kind = \"fixed\", size = \"10KB\" } }";
    assert_eq!(err(arrivals).as_deref(), Some("flows[2].packet_size: 536B: arriving flows send the scenario's packet_size; give it there"));
    let agent = "[[flows]]\ncc = { algorithm = \"agent\" }\npacket_size = \"536B\"";
    assert_eq!(err(agent).as_deref(), Some("flows[2].packet_size: 536B: an agent's flows send the scenario's packet_size; give it there"));
    let huge = "[[flows]]\ncc = \"reno\"\npacket_size = \"2MB\"";
    assert_eq!(err(huge).as_deref(), Some("flows[2].packet_size: 2000000 bytes is above 1000000, the largest cclab takes"));
}

#[test]
fn tfrc_sends_at_the_equations_rate_for_its_own_s() {
    // RFC 5348's X = s / (R·√(2p/3) + ...): at the same loss event rate and RTT the packet
    // rate is the same, so a group of 730-byte packets gets half the goodput of one of
    // 1460-byte packets, and each counts its own bytes.
    let text = two_sizes(4, "60s", "rfc", "")
        .replace("cc = \"reno\"\ncount", "transport = \"tfrc\"\ncount")
        .replace("packet_size = \"536B\"", "packet_size = \"730B\"");
    let r = run(scenario(&text)).unwrap();
    assert!(r.flows.iter().all(|f| f.transport == "tfrc"));
    let (big, small) = (r.groups[0].goodput_mbps, r.groups[1].goodput_mbps);
    assert!((big / small / 2.0 - 1.0).abs() < 0.1, "{big} / {small}");
    for f in &r.flows {
        let payload = if f.group == "mss536" { 730.0 } else { 1460.0 };
        let counted = f.delivered_packets as f64 * payload * 8.0 / 60.0 / 1e6;
        assert!((f.goodput_mbps - counted).abs() < 1e-9, "{} {counted}", f.goodput_mbps);
    }
}
