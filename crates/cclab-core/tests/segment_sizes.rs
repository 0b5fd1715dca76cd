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
fn a_size_of_its_own_goes_with_any_traffic_within_bounds() {
    let err = |extra: &str| Scenario::from_toml_str(&two_sizes(1, "1s", "rfc", extra)).err().map(|e| e.to_string());
    let arrivals = "[[flows]]\ncc = \"reno\"\npacket_size = \"536B\"\narrivals = { kind = \"poisson\", load = 0.2, sizes = { kind = \"fixed\", size = \"10KB\" } }";
    let captured = format!("{arrivals}\n[trace]\npcap = [\"r1-r2\"]");
    assert_eq!(err(&captured), None, "a capture numbers each arriving flow's bytes by its own size");
    assert_eq!(err(arrivals), None, "arriving flows take a size of their own");
    let agent = "[[flows]]\ncc = { algorithm = \"agent\" }\npacket_size = \"536B\"";
    assert_eq!(err(agent), None, "an agent's group takes a size of its own (tests/stepping.rs)");
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

#[test]
fn a_capture_numbers_each_arriving_flows_bytes_by_its_own_segment() {
    // Arriving flows of 1460- and 536-byte segments share slots; the capture gives each
    // packet its flow's segment payload as the flow had it when the packet was sent: every
    // data segment is that payload plus the same header, no flow numbers a byte past its
    // 10 KB (rounded up to whole segments), and each ACK numbers bytes of its data's size.
    let text = ARRIVING_TWO_SIZES.replace("duration = \"10s\"", "duration = \"2s\"") + "[trace]\npcap = [\"r1-r2\", \"r2-r1\"]\n";
    let r = run(scenario(&text)).unwrap();
    use cclab_core::metrics::Capture;
    let captures = &r.traces.as_ref().unwrap().captures;
    let (data, acks) = (&captures[0], &captures[1]);
    let mut seen = std::collections::BTreeSet::new();
    let mut header = None;
    for k in 0..data.len() {
        if data.kind[k] != Capture::TCP_DATA {
            continue;
        }
        let payload = data.payload[k];
        seen.insert(payload);
        let own_header = data.bytes[k] - payload;
        assert_eq!(*header.get_or_insert(own_header), own_header, "packet {k}: {} bytes of {payload}", data.bytes[k]);
        let segments = if payload == 536 { 19 } else { 7 };
        // (the SYN is segment 0, data segments 1 ..= segments)
        assert!((1..=segments).contains(&data.seq[k]), "packet {k}: segment {} of a {payload}-byte flow", data.seq[k]);
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![536, 1460]);
    for k in 0..acks.len() {
        if acks.kind[k] == Capture::TCP_ACK {
            let segments = if acks.payload[k] == 536 { 19 } else { 7 };
            assert!(acks.ack[k] <= segments + 1 && [536, 1460].contains(&acks.payload[k]), "ACK {k}: {} of {}", acks.ack[k], acks.payload[k]);
        }
    }
}

/// Two groups of 10 KB flows arriving at random (0.2 of a 100 Mb/s path each), one in the
/// scenario's 1460-byte segments and one in 536-byte ones.
const ARRIVING_TWO_SIZES: &str = r#"
duration = "10s"
seed = 3
packet_size = "1460B"
profile = "linux"
[topology]
kind = "dumbbell"
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = 200 }
source_access = { rate = "1Gbps", delay = "1ms" }
sink_access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
group = "large"
cc = "cubic"
arrivals = { kind = "poisson", load = 0.2, sizes = { kind = "fixed", size = "10KB" } }
[[flows]]
group = "small"
cc = "cubic"
packet_size = "536B"
arrivals = { kind = "poisson", load = 0.2, sizes = { kind = "fixed", size = "10KB" } }
"#;

#[test]
fn arriving_flows_send_their_groups_own_segments() {
    // Two groups of 10 KB flows arriving at random, one in the scenario's 1460-byte segments
    // and one in 536-byte ones: a flow's size is rounded up to whole segments of its own
    // group (7 × 1460 = 10220, 19 × 536 = 10184 bytes) even though the two groups' flows
    // take each other's slots, and each group's goodput counts its own bytes.
    let r = run(scenario(ARRIVING_TWO_SIZES)).unwrap();
    let table = r.fcts.as_ref().unwrap();
    let mut ideal = [Vec::new(), Vec::new()];
    for k in 0..table.size_bytes.len() {
        let (own, g) = if table.group[k] == "small" { (19 * 536, 1) } else { (7 * 1460, 0) };
        assert_eq!(table.size_bytes[k], own, "flow {k} of {}", table.group[k]);
        ideal[g].push(table.ideal_fct_ms[k]);
    }
    // 0.2 × 100 Mb/s over 80 kbit flows: 250 a second in each group
    for (g, name) in ["large", "small"].iter().enumerate() {
        assert!((2000..3000).contains(&ideal[g].len()), "{name}: {} flows", ideal[g].len());
    }
    // 19 small segments take longer to serialise than 7 large ones (each with 40 bytes of header)
    let least = |v: &Vec<f64>| v.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(least(&ideal[1]) > least(&ideal[0]), "{} {}", least(&ideal[1]), least(&ideal[0]));
    // goodput: the completed flows' bytes, plus at most one flow's for each still running
    for (g, size) in [(0usize, 10220.0), (1, 10184.0)] {
        let name = if g == 0 { "large" } else { "small" };
        let of_group = |k: &usize| table.group[*k] == name;
        let completed = (0..table.size_bytes.len()).filter(of_group).filter(|&k| table.completed[k]).count() as f64;
        let running = (0..table.size_bytes.len()).filter(of_group).filter(|&k| !table.completed[k]).count() as f64;
        let delivered = r.groups[g].goodput_mbps * 10.0 / 8.0 * 1e6;
        assert!(delivered >= completed * size - 1e-3 && delivered <= (completed + running) * size + 1e-3, "{name}: {delivered} bytes, {completed} done");
    }
    let total: f64 = r.groups.iter().map(|g| g.goodput_mbps).sum();
    assert!((r.system.goodput_mbps - total).abs() < 1e-9, "{} {total}", r.system.goodput_mbps);
    let c = &r.conservation;
    assert_eq!(c.data_sent, c.data_received + c.data_dropped + c.data_in_flight);
}
