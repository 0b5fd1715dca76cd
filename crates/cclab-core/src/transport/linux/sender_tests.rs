//! The linux profile's sender on its own: hand-made ACKs, and windows, retransmissions and
//! timers computed by hand from the kernel's rules. TCP(1, 0.5) as the module (so the
//! cuts are plain halvings), no SYN, 1448-byte segments.
use crate::cc::{Aimd, CaState, Controller};
use crate::sim::Time;
use crate::transport::{AckInfo, Header, Outgoing, Seq, TcpConfig, TcpProfile, TcpSender};

const MS: Time = 1_000_000;

fn sender(initial_window: f64) -> TcpSender {
    let cfg = TcpConfig { syn: false, initial_window: Some(initial_window), profile: Some(TcpProfile::Linux), ..Default::default() };
    let mut sender = TcpSender::new(cfg, Controller::Aimd(Aimd::new(1.0, 0.5)), 0, 1500, 52);
    sender.use_linux_rules(1448);
    sender
}

fn seqs(out: &[Outgoing]) -> Vec<Seq> {
    out.iter()
        .map(|packet| match packet.header {
            Header::TcpData { seq, .. } => seq,
            other => panic!("the sender sent {other:?}"),
        })
        .collect()
}

fn ack(cumulative: Seq, blocks: &[(Seq, Seq)]) -> AckInfo {
    let mut info = AckInfo { cumulative, ..Default::default() };
    for (slot, block) in info.sack.iter_mut().zip(blocks) {
        *slot = *block;
    }
    info.sack_count = blocks.len() as u8;
    info
}

fn deliver(sender: &mut TcpSender, now: Time, info: AckInfo) -> Vec<Seq> {
    let mut out = Vec::new();
    sender.on_ack(now, &info, &mut out);
    seqs(&out)
}

fn state(sender: &TcpSender) -> CaState {
    sender.linux_state().expect("a linux sender")
}

/// With the kernel's Reno, slow start grows by the segments each ACK delivers: an ACK of
/// two takes cwnd from 10 to 12, and the four segments of room go as two GSO packets of 2.
#[test]
fn kernel_reno_grows_per_delivered_segment() {
    let cfg = TcpConfig { syn: false, profile: Some(TcpProfile::Linux), ..Default::default() };
    let reno = crate::cc::CcConfig::Reno(crate::cc::reno::RenoConfig {}).build();
    let mut s = TcpSender::new(cfg, reno, 0, 1500, 52);
    s.use_linux_rules(1448);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    assert_eq!(seqs(&out).len(), 10, "the linux profile's initial window");
    assert_eq!(deliver(&mut s, 40 * MS, ack(2, &[])), vec![10, 11, 12, 13]);
    assert_eq!(s.window().cwnd, 12.0);
}

/// The initial window of 10 leaves at once (before any RTT, GSO packets are as large as
/// the pacing rate allows). An ACK of two segments frees two and the module grows cwnd
/// (TCP(1, 0.5) here: +1 per ACK) to 11: room for 3, but GSO packets are 2 segments
/// (2·11·1448 B / 40 ms = 796 kB/s, >> 10 < one segment, at least 2), so a packet of 2
/// goes and the last segment of room waits (deferral: less than a packet, less than a
/// third of cwnd, and the next ACK is due now).
#[test]
fn initial_window_then_gso_packets_and_deferral() {
    let mut s = sender(10.0);
    let mut out = Vec::new();
    assert!(s.on_timer(0, &mut out));
    assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
    assert_eq!(deliver(&mut s, 40 * MS, ack(2, &[])), vec![10, 11]);
    assert_eq!(s.window().cwnd, 11.0);
    assert_eq!(s.pipe(), 10, "one segment of room left waiting");
    // the next ACK (of one segment) opens room 2: a full packet, sent at once
    assert_eq!(deliver(&mut s, 41 * MS, ack(3, &[])), vec![12, 13]);
}

/// PSH (`__tcp_transmit_skb`): the last segment of each GSO packet of two or more
/// carries it, a packet of one does not; nor do the rfc profile's segments.
#[test]
fn psh_ends_each_gso_packet() {
    let pushed = |out: &[Outgoing]| -> Vec<Seq> {
        out.iter().filter_map(|p| match p.header { Header::TcpData { seq, psh: true, .. } => Some(seq), _ => None }).collect()
    };
    let mut s = sender(10.0);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    assert_eq!(pushed(&out), vec![4, 9], "the initial window goes as two GSO packets of five");
    // as in initial_window_then_gso_packets_and_deferral: a packet of 2, then another
    let mut out = Vec::new();
    s.on_ack(40 * MS, &ack(2, &[]), &mut out);
    assert_eq!((seqs(&out), pushed(&out)), (vec![10, 11], vec![11]));
    // a packet cut to one segment (a window of 10 segments): no PSH
    let cfg = TcpConfig { syn: false, initial_window: Some(10.0), profile: Some(TcpProfile::Linux), max_window: 10, ..Default::default() };
    let mut capped = TcpSender::new(cfg, Controller::Aimd(Aimd::new(1.0, 0.5)), 0, 1500, 52);
    capped.use_linux_rules(1448);
    let mut out = Vec::new();
    capped.on_timer(0, &mut out);
    let mut out = Vec::new();
    capped.on_ack(40 * MS, &ack(1, &[]), &mut out);
    assert_eq!((seqs(&out), pushed(&out)), (vec![10], vec![]));
    let cfg = TcpConfig { syn: false, initial_window: Some(10.0), ..Default::default() };
    let mut rfc = TcpSender::new(cfg, Controller::Aimd(Aimd::new(1.0, 0.5)), 0, 1500, 52);
    let mut out = Vec::new();
    rfc.on_timer(0, &mut out);
    assert_eq!((seqs(&out).len(), pushed(&out)), (10, vec![]));
}

/// RACK: three segments SACKed above a hole (reordering window 0 from then on) mark it
/// lost: Recovery starts, ssthresh is half of cwnd, and PRR lets the retransmission out
/// at once (sndcnt ≥ 1 before anything was sent in recovery); one SACK alone only arms
/// the reordering timer, which marks the hole lost when it fires.
#[test]
fn rack_marks_the_hole_after_three_sacks_and_prr_resends() {
    let mut s = sender(20.0);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    assert_eq!(seqs(&out).len(), 20);
    // An RTT sample first (segment 0 at 40 ms), then segment 1 lost.
    deliver(&mut s, 40 * MS, ack(1, &[]));
    let cwnd = s.window().cwnd;
    assert_eq!(cwnd, 21.0);
    // one SACK: not yet lost (reordering window = min RTT/4 = 10 ms)
    deliver(&mut s, 41 * MS, ack(1, &[(2, 3)]));
    assert_eq!(state(&s), CaState::Disorder);
    assert!(s.timer_deadline().unwrap() <= 41 * MS + 40 * MS, "the REO timer, not the RTO");
    // two more SACKed: three above the hole, window 0: lost
    let sent = deliver(&mut s, 42 * MS, ack(1, &[(2, 5)]));
    assert_eq!(state(&s), CaState::Recovery);
    assert_eq!(s.window().ssthresh, cwnd / 2.0, "the module's cut");
    assert_eq!(sent.first(), Some(&1), "the hole is resent first");
    assert_eq!(s.stats().retransmitted_packets, 1);
    assert_eq!(s.stats().fast_recoveries, 1);
}

/// The reordering timer: a single SACK above a hole waits min RTT/4 (+2 ms, in jiffies)
/// and then the hole is lost and resent.
#[test]
fn reordering_timer_marks_the_hole_lost() {
    let mut s = sender(20.0);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    deliver(&mut s, 40 * MS, ack(1, &[]));
    deliver(&mut s, 41 * MS, ack(1, &[(2, 3)]));
    let deadline = s.timer_deadline().unwrap();
    // RACK RTT 41 ms (segment 2, sent at 0), hole sent at 0: remaining = 41 + 10 − 41
    // = 10 ms, + 2 ms = 12 ms → 3 jiffies from jiffy 10 (41 ms) → 52 ms
    assert_eq!(deadline, 52 * MS);
    let mut out = Vec::new();
    assert!(s.on_timer(deadline, &mut out));
    assert_eq!(seqs(&out).first(), Some(&1));
    assert_eq!(state(&s), CaState::Recovery);
}

/// A retransmission timeout keeps the SACK scoreboard: the SACKed segments are not
/// resent; cwnd is what is in flight + 1; the head goes out; ssthresh is cut once.
#[test]
fn timeout_keeps_the_scoreboard_and_cuts_once() {
    let mut s = sender(10.0);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    deliver(&mut s, 40 * MS, ack(1, &[]));
    // segments 3..5 SACKed (1, 2 and 6.. outstanding, not SACKed)
    deliver(&mut s, 41 * MS, ack(1, &[(3, 5)]));
    let ssthresh_before = s.window().ssthresh;
    let deadline = s.timer_deadline().unwrap();
    let mut out = Vec::new();
    // let every timer fire until a timeout happens
    let mut now = deadline;
    while s.stats().timeouts == 0 {
        out.clear();
        s.on_timer(now, &mut out);
        now = s.timer_deadline().unwrap();
    }
    assert_eq!(state(&s), CaState::Loss);
    let resent = seqs(&out);
    assert!(!resent.contains(&3) && !resent.contains(&4), "SACKed segments are kept: {resent:?}");
    assert!(s.window().ssthresh <= ssthresh_before.min(s.window().ssthresh));
    let cut = s.window().ssthresh;
    // a second timeout in the same Loss episode with no retransmission acknowledged:
    // Linux cuts again only if icsk_retransmits is 0 — it is 1 now, so no second cut.
    let mut out = Vec::new();
    let t = s.timer_deadline().unwrap();
    s.on_timer(t, &mut out);
    assert_eq!(s.stats().timeouts, 2);
    assert_eq!(s.window().ssthresh, cut, "no second cut within the episode");
    assert_eq!(s.window().cwnd, (s.pipe() as f64).max(1.0).min(s.window().cwnd));
}

/// A tail loss probe: with no ACK for 2·SRTT + 2 ms (in jiffies) the sender sends one
/// new segment beyond cwnd.
#[test]
fn tail_loss_probe_after_two_srtt() {
    let mut s = sender(4.0);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    assert_eq!(seqs(&out), vec![0, 1, 2, 3]);
    let sent = deliver(&mut s, 40 * MS, ack(1, &[]));
    assert!(!sent.is_empty());
    // SRTT 40 ms: probe at 2·40 + 2 = 82 ms → 21 jiffies from jiffy 10 (40 ms) → 124 ms
    let deadline = s.timer_deadline().unwrap();
    assert_eq!(deadline, 124 * MS);
    let mut out = Vec::new();
    s.on_timer(deadline, &mut out);
    assert_eq!(seqs(&out).len(), 1, "one probe");
    assert_eq!(s.stats().timeouts, 0);
}

/// The 4-MiB send buffer, as a bulk writer fills it: a window far above it sends only
/// what the buffer holds (segments of 1448 bytes plus their share of a buffer's 1032-byte
/// overhead; before any RTT the buffers are of 45 segments: 4 MiB / (1448 + 22) = 2853);
/// ACKs that leave it over two thirds full bring no new data (the writer sleeps); an ACK
/// that takes it to two thirds wakes the writer, which fills it again (1423 queued is two
/// thirds of the buffer whatever the buffers' size now: 2135 segments for 2-segment ones).
#[test]
fn send_buffer_refills_when_two_thirds_empty() {
    let mut s = sender(100_000.0);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    let first = seqs(&out);
    assert_eq!(first.len(), 2853);
    assert!(deliver(&mut s, 40 * MS, ack(700, &[])).is_empty(), "2153 of 2853 still queued: over two thirds");
    let refill = deliver(&mut s, 41 * MS, ack(1430, &[]));
    assert_eq!(refill.first(), Some(&2853), "1423 queued: the writer wakes");
    assert!(s.outstanding() as u64 * 1448 <= 4 * 1024 * 1024, "never more than the buffer's bytes outstanding");
}
