//! The TCP sender on its own, table-driven as ns-3 tests its TCB: a bare sender, hand-made
//! ACKs, and hand-computed windows, pipes, retransmissions and timers. TCP(1, 0.5) with
//! ns-2's decrease (the first reduction halves), no SYN, 1000-byte segments.
use super::*;
use crate::transport::recovery::LossRecovery;
use crate::transport::RttSums;
use crate::app::TcpApplication;
use crate::cc::{AckSample, Aimd, CongestionControl, CongestionEvent, CongestionSignal, Window};
use crate::transport::{AckInfo, Header, Outgoing, Recovery, Seq, TcpConfig};

const MS: Time = 1_000_000;

fn sender(edit: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    let mut cfg = TcpConfig { syn: false, initial_window: Some(10.0), limited_transmit: false, ..Default::default() };
    edit(&mut cfg);
    TcpSender::new(cfg, Controller::Aimd(Aimd::new(1.0, 0.5)), 0, 1000, 40)
}

/// Start the sender at t = 0; returns the sequence numbers of its first flight.
fn start(sender: &mut TcpSender) -> Vec<Seq> {
    let mut out = Vec::new();
    assert!(sender.on_timer(0, &mut out));
    seqs(&out)
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

/// Deliver one ACK at `now`; returns what the sender sent and how many were retransmissions.
fn deliver(sender: &mut TcpSender, now: Time, info: AckInfo) -> (Vec<Seq>, u64) {
    let before = sender.stats().retransmitted_packets;
    let mut out = Vec::new();
    sender.on_ack(now, &info, &mut out);
    (seqs(&out), sender.stats().retransmitted_packets - before)
}

#[test]
fn slow_start_opens_one_segment_per_ack_and_fills_the_window() {
    let mut s = sender(|cfg| cfg.initial_window = Some(4.0));
    assert_eq!(start(&mut s), vec![0, 1, 2, 3]);
    // ACK of segment 0: cwnd 4 → 5, window [1, 6): segments 4 and 5 go out.
    assert_eq!(deliver(&mut s, 100 * MS, ack(1, &[])), (vec![4, 5], 0));
    assert_eq!(s.window().cwnd, 5.0);
    assert_eq!((s.outstanding(), s.pipe()), (5, 5));
}

/// One loss (segment 0 of 10), SACK recovery (RFC 6675): the scoreboard, pipe and
/// what is sent, ACK by ACK. The receiver holds 1..k, reported as the block [1, k+1).
#[test]
fn sack_recovery_scoreboard_and_pipe() {
    let mut s = sender(|_| {});
    assert_eq!(start(&mut s), (0..10).collect::<Vec<_>>());
    // (cumulative, SACK block end, sent, retransmitted, pipe, cwnd, in recovery)
    let steps: [(Seq, Seq, &[Seq], u64, u32, f64, bool); 7] = [
        (0, 2, &[], 0, 9, 10.0, false), // 1 SACKed: pipe 10 − 1
        (0, 3, &[], 0, 8, 10.0, false),
        // third duplicate: ssthresh = cwnd/2 = 5, cwnd 5, segment 0 marked lost and
        // resent; pipe = 10 outstanding − 3 SACKed − 1 lost + 1 resent = 7 > cwnd.
        (0, 4, &[0], 1, 7, 5.0, true),
        (0, 5, &[], 0, 6, 5.0, true),
        (0, 6, &[], 0, 5, 5.0, true),
        (0, 7, &[10], 0, 5, 5.0, true), // pipe 4 < cwnd: one new segment
        // the resent 0 arrives: cumulative 7 < recovery point 10 (a partial ACK);
        // outstanding 7..=10 = 4, pipe 4: one new segment (11)
        (7, 7, &[11], 0, 5, 5.0, true),
    ];
    for (index, &(cumulative, sack_end, sent, retransmitted, pipe, cwnd, recovering)) in steps.iter().enumerate() {
        let blocks: &[(Seq, Seq)] = if sack_end > cumulative + 1 { &[(1, sack_end)] } else { &[] };
        let blocks = if cumulative > 0 { &[][..] } else { blocks };
        let (got, resent) = deliver(&mut s, (10 + index as Time) * MS, ack(cumulative, blocks));
        assert_eq!((got.as_slice(), resent), (sent, retransmitted), "step {index}");
        assert_eq!((s.pipe(), s.window().cwnd, s.in_recovery()), (pipe, cwnd, recovering), "step {index}");
    }
    assert_eq!(s.stats().fast_recoveries, 1);
    // Karn: segment 0 was the timed one and was resent, so ACK 7 gave no sample.
    assert_eq!(s.srtt_ns(), None);
    // The full ACK (≥ recovery point 10) ends recovery with cwnd = ssthresh (RFC 6582 §3.2),
    // and samples segment 10, timed since it left at 15 ms.
    deliver(&mut s, 30 * MS, ack(12, &[]));
    assert!(!s.in_recovery());
    assert_eq!((s.window().cwnd, s.window().ssthresh), (5.0, 5.0));
    assert_eq!(s.srtt_ns(), Some((15 * MS) as f64));
}

/// RFC 6675 IsLost(): a hole is lost only once DupThresh (3) segments above it are
/// SACKed; segments 0 and 2 of 10 are lost.
#[test]
fn is_lost_needs_dupthresh_sacked_segments_above() {
    let mut s = sender(|_| {});
    start(&mut s);
    let held = |end: Seq| -> Vec<(Seq, Seq)> { vec![(1, 2), (3, end)] };
    // (SACK blocks, retransmitted segments, pipe)
    let steps: [(Vec<(Seq, Seq)>, &[Seq], u32); 5] = [
        (vec![(1, 2)], &[], 9),
        (held(4), &[], 8),
        // third duplicate: 1, 3, 4 SACKed; only 0 has 3 SACKed above it → resend 0;
        // segment 2 has 2 above: not lost. pipe = 10 − 3 − 1 + 1 = 7.
        (held(5), &[0], 7),
        // 5 SACKed: 2 now has 3 above → lost; pipe = 10 − 4 − 2 + 1 = 5 = cwnd: wait.
        (held(6), &[], 5),
        // 6 SACKed: pipe 4 → resend the next lost segment, 2.
        (held(7), &[2], 5),
    ];
    for (index, (blocks, resent, pipe)) in steps.iter().enumerate() {
        let (got, count) = deliver(&mut s, (10 + index as Time) * MS, ack(0, blocks));
        assert_eq!(got.as_slice(), *resent, "step {index}");
        assert_eq!(count as usize, resent.len(), "step {index}: all retransmissions");
        assert_eq!(s.pipe(), *pipe, "step {index}");
    }
}

/// A segment marked lost that turns out to have arrived (reordering, or its resend
/// arriving): once SACKed it leaves the lost count — and the retransmitted-in-flight count
/// if it was resent — so pipe (RFC 6675 SetPipe) counts it once, as SACKed. Same losses
/// as above: 0 and 2 of 10.
#[test]
fn a_lost_segment_sacked_later_leaves_the_lost_and_resent_counts() {
    let held = |end: Seq| -> Vec<(Seq, Seq)> { vec![(1, 2), (3, end)] };
    // 2 marked lost (three SACKed above) but not resent: pipe 5 = cwnd.
    let mut s = sender(|_| {});
    start(&mut s);
    for (index, end) in [4, 5, 6].into_iter().enumerate() {
        deliver(&mut s, (10 + index as Time) * MS, ack(0, &held(end)));
    }
    assert_eq!(s.pipe(), 5);
    // The original 2 arrives late: SACK [1, 6). Outstanding 10 − SACKed 5 − lost 1 (0)
    // + resent 1 (0) = 5: still = cwnd, nothing to send, and 2 is never resent.
    assert_eq!(deliver(&mut s, 13 * MS, ack(0, &[(1, 6)])), (vec![], 0));
    assert_eq!(s.pipe(), 5);
    // 6 SACKed: pipe 4 < 5, one segment — new data (10), the only lost one (0) is in flight.
    assert_eq!(deliver(&mut s, 14 * MS, ack(0, &[(1, 7)])), (vec![10], 0));
    assert_eq!(s.pipe(), 5);

    // 2 marked lost and resent, then SACKed: 10 − 6 SACKed − 1 lost + 1 resent = 4 < 5,
    // one new segment (10).
    let mut s = sender(|_| {});
    start(&mut s);
    for (index, end) in [4, 5, 6, 7].into_iter().enumerate() {
        deliver(&mut s, (10 + index as Time) * MS, ack(0, &held(end)));
    }
    assert_eq!(s.pipe(), 5);
    assert_eq!(deliver(&mut s, 14 * MS, ack(0, &[(1, 7)])), (vec![10], 0));
    assert_eq!(s.pipe(), 5);
    // The cumulative ACK up to 7 (0 arrived) then counts nothing twice: outstanding 7..=10,
    // pipe 4 < 5 (a partial ACK: recovery point 10), one more new segment.
    assert_eq!(deliver(&mut s, 15 * MS, ack(7, &[])), (vec![11], 0));
    assert_eq!((s.outstanding(), s.pipe()), (5, 5));
}

/// NewReno (RFC 6582), segments 0 and 5 of 10 lost: cwnd inflates per duplicate, a
/// partial ACK resends the next hole and deflates, the full ACK ends recovery.
#[test]
fn newreno_partial_ack_resends_and_deflates() {
    let mut s = sender(|cfg| cfg.recovery = Recovery::Newreno);
    start(&mut s);
    // Duplicates for 1, 2, 3: recovery with ssthresh 5, cwnd 5 + 3 = 8, resend 0.
    for (index, sent) in [&[][..], &[], &[0]].iter().enumerate() {
        assert_eq!(deliver(&mut s, (10 + index as Time) * MS, ack(0, &[])).0.as_slice(), *sent);
    }
    assert_eq!((s.window().cwnd, s.window().ssthresh), (8.0, 5.0));
    // Duplicates for 4, 6, 7, 8, 9: cwnd 9 … 13; the window [0, cwnd) admits 10, 11, 12.
    let mut new = Vec::new();
    for index in 0..5 {
        new.extend(deliver(&mut s, (20 + index) * MS, ack(0, &[])).0);
    }
    assert_eq!((new, s.window().cwnd), (vec![10, 11, 12], 13.0));
    // Resent 0 arrives: ACK 5 < recover (10). Resend 5, cwnd = 13 − 5 + 1 = 9,
    // window [5, 14): 13 goes out too.
    assert_eq!(deliver(&mut s, 40 * MS, ack(5, &[])), (vec![5, 13], 1));
    assert_eq!(s.window().cwnd, 9.0);
    assert!(s.in_recovery());
    // ACK 9 still falls short of recover (everything below 10): partial again —
    // resend 9, cwnd = 9 − 4 + 1 = 6, window [9, 15) admits 14.
    assert_eq!(deliver(&mut s, 45 * MS, ack(9, &[])), (vec![9, 14], 1));
    assert_eq!(s.window().cwnd, 6.0);
    assert!(s.in_recovery());
    // ACK 10 covers all data sent before recovery: the full ACK, cwnd = ssthresh.
    deliver(&mut s, 50 * MS, ack(10, &[]));
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, 5.0);
}

/// ns-2 Newreno's inflation (`dupwnd_`).
fn dupwnd(s: &TcpSender) -> u32 {
    match &s.recovery {
        LossRecovery::NewReno(newreno) => newreno.dupwnd(),
        _ => panic!("not NewReno's recovery"),
    }
}

/// `ns2.newreno_recovery` with Agent/TCP/Newreno's defaults, on the loss pattern above
/// (0, 5 and 9 lost of 0..=9). The cut keeps cwnd at 5 (integer_ssthresh) and the
/// inflation apart (dupwnd 3, +1 per duplicate): the same window as RFC 6582 until the
/// first partial ACK. ACK 5 (5 segments): partial deflation takes 5 − 1 = 4 from dupwnd 8
/// → 4, window 9 → 13 goes out with the resent 5, and the timer restarts. ACK 9 (4
/// segments): dupwnd 4 is not above 4, so cwnd loses 4 − 4 = 0 and dupwnd is 1: window
/// 6 → 14 goes out; the timer does not restart (`newreno_changes1_`). The full ACK keeps
/// cwnd 5 and opens it (+1/5). Then three duplicates at the point recovery ended (10):
/// no fast retransmit (`bug_fix_`, RFC 2582's careful variant).
#[test]
fn ns2_newreno_keeps_the_inflation_apart_and_deflates_partially() {
    let mut s = sender(|cfg| {
        cfg.recovery = Recovery::Newreno;
        cfg.ns2.newreno_recovery = Some(true);
        cfg.ns2.integer_ssthresh = Some(true);
    });
    start(&mut s);
    for (index, sent) in [&[][..], &[], &[0]].iter().enumerate() {
        assert_eq!(deliver(&mut s, (10 + index as Time) * MS, ack(0, &[])).0.as_slice(), *sent);
    }
    assert_eq!((s.window().cwnd, s.window().ssthresh, dupwnd(&s)), (5.0, 5.0, 3));
    let mut new = Vec::new();
    for index in 0..5 {
        new.extend(deliver(&mut s, (20 + index) * MS, ack(0, &[])).0);
    }
    assert_eq!((new, s.window().cwnd, dupwnd(&s)), (vec![10, 11, 12], 5.0, 8));
    assert_eq!(deliver(&mut s, 40 * MS, ack(5, &[])), (vec![5, 13], 1));
    assert_eq!((s.window().cwnd, dupwnd(&s)), (5.0, 4));
    let first_partial_deadline = 40 * MS + s.tcb.rto.current();
    assert_eq!(s.timer_deadline(), Some(first_partial_deadline));
    assert_eq!(deliver(&mut s, 45 * MS, ack(9, &[])), (vec![9, 14], 1));
    assert_eq!((s.window().cwnd, dupwnd(&s)), (5.0, 1));
    assert_eq!(s.timer_deadline(), Some(first_partial_deadline), "impatient: runs on from the first partial ACK");
    deliver(&mut s, 50 * MS, ack(10, &[]));
    assert!(!s.in_recovery());
    assert_eq!((s.window().cwnd, dupwnd(&s)), (5.2, 0), "the cut window, opened by the ACK that ends recovery");
    for k in 0..3 {
        assert_eq!(deliver(&mut s, (60 + k) * MS, ack(10, &[])), (vec![], 0));
    }
    assert!(!s.in_recovery());
    assert_eq!(s.stats().fast_recoveries, 1, "no fast retransmit at the point the last one recovered to");
}

/// The same losses with UCLA's Agent/TCP/WestwoodNR defaults: no inflation at the third
/// duplicate (dupwnd 0, then 1..5: the window never passes 10, nothing new), all of it
/// taken back at a partial ACK, and the timer restarted at each. ACK 9: window 5 from 9
/// admits 10..13, two of them per ACK while duplicates last.
#[test]
fn ns2_newreno_with_westwoodnr_parameters() {
    let mut s = sender(|cfg| {
        cfg.recovery = Recovery::Newreno;
        cfg.ns2.newreno_recovery = Some(true);
        cfg.ns2.integer_ssthresh = Some(true);
    });
    s.set_newreno_agent(NewrenoAgent::WestwoodNr);
    // These losses start at segment 0, which the agent leaves to the timeout (its start
    // rule, the next test); recovery itself is what is tested here.
    s.tcb.recover = None;
    start(&mut s);
    for index in 0..3 {
        deliver(&mut s, (10 + index) * MS, ack(0, &[]));
    }
    assert_eq!((s.window().cwnd, dupwnd(&s)), (5.0, 0));
    let mut new = Vec::new();
    for index in 0..5 {
        new.extend(deliver(&mut s, (20 + index) * MS, ack(0, &[])).0);
    }
    assert_eq!((new, dupwnd(&s)), (vec![], 5));
    assert_eq!(deliver(&mut s, 40 * MS, ack(5, &[])), (vec![5], 1));
    assert_eq!(dupwnd(&s), 0);
    assert_eq!(deliver(&mut s, 45 * MS, ack(9, &[])), (vec![9, 10, 11], 1));
    assert_eq!(s.timer_deadline(), Some(45 * MS + s.tcb.rto.current()), "restarted at every partial ACK");
    deliver(&mut s, 50 * MS, ack(10, &[]));
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, 5.2);
}

/// ns-2's agents start from `recover_ = 0` (no SYN here: segment 0 is the first packet):
/// Agent/TCP/Newreno fast-retransmits once segment 0 is ACKed (`highest_ack_ == 0`,
/// `bugfix_ss_`), UCLA's WestwoodNR only once segment 1 is (`highest_ack_ > recover_`);
/// before that, three duplicates start no recovery and the loss waits for the timeout.
#[test]
fn ns2_agents_fast_retransmit_only_past_their_first_recover() {
    for (agent, lost, recovers) in [
        (NewrenoAgent::Newreno, 0, false),
        (NewrenoAgent::Newreno, 1, true),
        (NewrenoAgent::WestwoodNr, 1, false),
        (NewrenoAgent::WestwoodNr, 2, true),
    ] {
        let mut s = sender(|cfg| {
            cfg.recovery = Recovery::Newreno;
            cfg.ns2.newreno_recovery = Some(true);
        });
        s.set_newreno_agent(agent);
        assert_eq!(start(&mut s), (0..10).collect::<Vec<Seq>>());
        if lost > 0 {
            deliver(&mut s, 5 * MS, ack(lost, &[]));
        }
        let resent: u64 = (0..3).map(|index| deliver(&mut s, (10 + index) * MS, ack(lost, &[])).1).sum();
        assert_eq!((s.in_recovery(), resent, s.stats().fast_recoveries), (recovers, recovers as u64, recovers as u64),
                   "{agent:?}, segment {lost} lost");
    }
    // RFC 6582's NewReno (no ns-2 recovery) keeps no such rule.
    let mut s = sender(|cfg| cfg.recovery = Recovery::Newreno);
    s.set_newreno_agent(NewrenoAgent::WestwoodNr);
    start(&mut s);
    for index in 0..3 {
        deliver(&mut s, (10 + index) * MS, ack(0, &[]));
    }
    assert!(s.in_recovery());
}

/// RFC 3042: the first two duplicates each release one new segment; without limited
/// transmit they release nothing. At the third, cwnd = ssthresh = 2: with 4 and 5 out,
/// pipe = 6 − 3 SACKed − 1 lost + 1 resent = 3 and nothing more goes; without them,
/// pipe = 4 − 3 − 1 + 1 = 1 < 2 and new segment 4 follows the retransmission.
#[test]
fn limited_transmit_sends_one_new_segment_per_early_duplicate() {
    for (limited, expected) in [(true, vec![vec![4], vec![5], vec![0]]), (false, vec![vec![], vec![], vec![0, 4]])] {
        let mut s = sender(|cfg| {
            cfg.initial_window = Some(4.0);
            cfg.limited_transmit = limited;
        });
        assert_eq!(start(&mut s), vec![0, 1, 2, 3]);
        let got: Vec<Vec<Seq>> =
            (0..3).map(|index| deliver(&mut s, (10 + index) * MS, ack(0, &[(1, 2 + index as Seq)])).0).collect();
        assert_eq!(got, expected, "limited transmit {limited}");
    }
    // At most two segments beyond cwnd, however many duplicates come before recovery
    // (DupThresh 5 here): the third and fourth duplicates release nothing.
    let mut s = sender(|cfg| {
        cfg.initial_window = Some(4.0);
        cfg.limited_transmit = true;
        cfg.dupack_threshold = 5;
    });
    start(&mut s);
    let got: Vec<Vec<Seq>> =
        (0..4).map(|index| deliver(&mut s, (10 + index) * MS, ack(0, &[(1, 2 + index as Seq)])).0).collect();
    assert_eq!(got, vec![vec![4], vec![5], vec![], vec![]]);
}

/// RFC 6298 §5.5 back-off and Karn's rule: a timeout doubles the timer; the ACK of a
/// retransmitted segment gives no RTT sample and keeps the back-off; the first valid
/// sample sets SRTT = R, RTTVAR = R/2 and ends it.
#[test]
fn rto_backs_off_and_karn_ignores_retransmitted_segments() {
    let mut s = sender(|cfg| cfg.initial_window = Some(2.0));
    assert_eq!(start(&mut s), vec![0, 1]);
    let second = 1_000 * MS;
    assert_eq!(s.timer_deadline(), Some(3 * second)); // initial RTO 3 s
    let mut out = Vec::new();
    assert!(!s.on_timer(3 * second - 1, &mut out)); // not yet
    assert!(s.on_timer(3 * second, &mut out));
    assert_eq!(seqs(&out), vec![0]); // go-back-N from the first unacknowledged, cwnd 1
    assert_eq!((s.window().cwnd, s.window().ssthresh, s.stats().timeouts), (1.0, 2.0, 1));
    assert_eq!(s.timer_deadline(), Some(9 * second)); // 3 s + 2 × 3 s
    // A second expiry doubles again: 9 s + 12 s.
    out.clear();
    assert!(s.on_timer(9 * second, &mut out));
    assert_eq!(s.timer_deadline(), Some(21 * second));
    // The ACK of the resent 0: no sample (Karn), the back-off stays (×4 = 12 s).
    let now = 21 * second + 100 * MS;
    let (sent, resent) = deliver(&mut s, now, ack(1, &[]));
    assert_eq!((s.srtt_ns(), s.last_rtt()), (None, None));
    assert_eq!(s.timer_deadline(), Some(now + 12 * second));
    // cwnd 1 → 2 (slow start): window [1, 3) resends 1 (go-back-N) and sends new 2.
    assert_eq!((sent, resent), (vec![1, 2], 1));
    // Go-back-N resends are plain sends, not RFC 6675 retransmissions held in pipe.
    assert_eq!((s.outstanding(), s.pipe()), (2, 2));
    // ACK of new segment 2 (sent at `now`), 200 ms later: the first valid sample.
    let later = now + 200 * MS;
    deliver(&mut s, later, ack(3, &[]));
    assert_eq!(s.srtt_ns(), Some((200 * MS) as f64));
    // RTO = SRTT + max(G, 4·RTTVAR) = 200 + 4 × 100 ms = 600 ms, back-off ended.
    assert_eq!(s.timer_deadline(), Some(later + 600 * MS));
}

/// RFC 3168 §6.1.2: ECE halves the window once per window of data; new data is ECT,
/// the first new segment after the reduction carries CWR; retransmissions are not ECT.
#[test]
fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
    let mut s = sender(|cfg| cfg.ecn = true);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    assert!(out.iter().all(|packet| packet.ect));
    let mut echo = ack(1, &[]);
    echo.ece = true;
    // Slow start first makes cwnd 11, then the echo: ssthresh = cwnd = 11 / 2.
    deliver(&mut s, 10 * MS, echo);
    assert_eq!((s.window().cwnd, s.window().ssthresh, s.stats().ecn_reductions), (5.5, 5.5, 1));
    echo.cumulative = 2;
    deliver(&mut s, 11 * MS, echo); // same window of data (below snd_max 10): no second cut
    assert_eq!(s.stats().ecn_reductions, 1);
    out.clear();
    s.on_ack(12 * MS, &ack(7, &[]), &mut out);
    let flags: Vec<(Seq, bool, bool)> = out
        .iter()
        .map(|packet| match packet.header {
            Header::TcpData { seq, cwr, .. } => (seq, cwr, packet.ect),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(flags, vec![(10, true, true), (11, false, true)]);
    // Echoes on ACKs of data sent before the cut (up to segment 9) are the same
    // congestion; one acknowledging data sent after it is a new one.
    echo.cumulative = 10;
    deliver(&mut s, 13 * MS, echo);
    assert_eq!(s.stats().ecn_reductions, 1);
    echo.cumulative = 11;
    deliver(&mut s, 14 * MS, echo);
    assert_eq!(s.stats().ecn_reductions, 2);
    // A timeout's retransmission is not ECN-capable.
    out.clear();
    let deadline = s.timer_deadline().unwrap();
    s.on_timer(deadline, &mut out);
    assert!(!out.is_empty() && out.iter().all(|packet| !packet.ect));
}

/// An L4S sender (AccECN): data ECT(1), retransmissions too; an ACK whose CE count
/// grew stands for ECN-Echo (one reduction per window of data), and congestion control
/// sees how many segments it newly reports marked.
#[test]
fn l4s_sender_reads_the_ce_count() {
    let mut s = sender(|cfg| {
        cfg.ecn = true;
        cfg.l4s = true;
    });
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    assert!(out.iter().all(|packet| packet.ect && packet.l4s));
    let marked = |cumulative, ce_count| AckInfo { ce_count, ..ack(cumulative, &[]) };
    deliver(&mut s, 10 * MS, marked(1, 0));
    assert_eq!((s.stats().ecn_reductions, s.tcb.ce_delta), (0, 0));
    deliver(&mut s, 11 * MS, marked(2, 2));
    assert_eq!((s.stats().ecn_reductions, s.tcb.ce_delta), (1, 2));
    let cut = s.window().cwnd;
    deliver(&mut s, 12 * MS, marked(3, 3)); // the same window of data: no second cut
    assert_eq!((s.stats().ecn_reductions, s.tcb.ce_delta), (1, 1));
    deliver(&mut s, 13 * MS, marked(4, 3)); // nothing new marked: the window grows
    assert_eq!(s.tcb.ce_delta, 0);
    assert!(s.window().cwnd > cut);
    // a classic ECN sender ignores the count
    let mut classic = sender(|cfg| cfg.ecn = true);
    classic.on_timer(0, &mut Vec::new());
    deliver(&mut classic, 10 * MS, marked(1, 5));
    assert_eq!(classic.stats().ecn_reductions, 0);
    let mut out = Vec::new();
    classic.on_ack(11 * MS, &ack(2, &[]), &mut out);
    assert!(out.iter().all(|packet| packet.ect && !packet.l4s));
}

#[test]
fn stale_and_impossible_acks_are_ignored() {
    let mut s = sender(|_| {});
    start(&mut s);
    deliver(&mut s, 10 * MS, ack(3, &[]));
    let window = (s.window().cwnd, s.outstanding(), s.pipe());
    assert_eq!(deliver(&mut s, 11 * MS, ack(2, &[])), (vec![], 0)); // below snd_una
    assert_eq!(deliver(&mut s, 12 * MS, ack(99, &[])), (vec![], 0)); // above snd_max
    assert_eq!((s.window().cwnd, s.outstanding(), s.pipe()), window);
}

#[test]
fn rtt_and_acked_segment_counters() {
    let mut s = sender(|cfg| cfg.initial_window = Some(4.0));
    start(&mut s);
    deliver(&mut s, 100 * MS, ack(1, &[])); // segment 0 left at 0
    assert_eq!((s.last_rtt(), s.acked_segments()), (Some(100 * MS), 1));
    deliver(&mut s, 130 * MS, ack(3, &[])); // the newest acknowledged, 2, left at 0 too
    assert_eq!((s.last_rtt(), s.acked_segments()), (Some(130 * MS), 3));
}

/// An ACK that fills a hole gives no RTT sample (Linux `tcp_clean_rtx_queue`): not from
/// a segment SACKed long before, nor from any ACK covering a retransmission — either
/// would time the whole recovery. The next clean ACK does.
#[test]
fn no_rtt_sample_from_an_ack_that_fills_a_hole() {
    for recovery in [Recovery::Sack, Recovery::Newreno] {
        let mut s = sender(|cfg| cfg.recovery = recovery);
        start(&mut s);
        // segment 0 lost; 1, 2, 3 arrive (SACKed with SACK): three duplicates, 0 resent
        for (k, end) in [(0, 2), (1, 3), (2, 4)] {
            let blocks: &[(Seq, Seq)] = if recovery == Recovery::Sack { &[(1, end)] } else { &[] };
            deliver(&mut s, (100 + k) * MS, ack(0, blocks));
        }
        assert_eq!(s.stats().retransmitted_packets, 1, "{recovery:?}");
        deliver(&mut s, 300 * MS, ack(4, &[])); // the resent 0 fills the hole
        assert_eq!(s.last_rtt(), None, "{recovery:?}: the fill timed the recovery");
        deliver(&mut s, 310 * MS, ack(5, &[]));
        if recovery == Recovery::Newreno {
            // ack(4) was partial: NewReno resent 4 (RFC 6582 §3.2 step 3), and so on
            assert_eq!(s.last_rtt(), None);
        } else {
            assert_eq!(s.last_rtt(), Some(310 * MS), "segment 4, sent once at 0");
        }
    }
}

/// ns-2's SYN-like first packet: alone on the wire whatever the window, not counted as
/// data, and its ACK opens the data window without growing it.
#[test]
fn syn_goes_alone_then_the_window_opens() {
    let mut s = sender(|cfg| cfg.syn = true);
    let mut out = Vec::new();
    s.on_timer(0, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].header, out[0].size), (Header::TcpData { seq: 0, syn: true, cwr: false, psh: false, sent_at: 0, tsecr: 0 }, 40));
    assert_eq!(s.stats().data_packets_sent, 0);
    let (sent, _) = deliver(&mut s, 50 * MS, ack(1, &[]));
    assert_eq!(sent, (1..=10).collect::<Vec<_>>());
    assert_eq!((s.window().cwnd, s.acked_segments(), s.stats().data_packets_sent), (10.0, 0, 10));
    deliver(&mut s, 100 * MS, ack(3, &[]));
    assert_eq!(s.acked_segments(), 2);
}

#[test]
fn max_window_caps_what_is_outstanding() {
    let mut s = sender(|cfg| cfg.max_window = 3);
    assert_eq!(start(&mut s), vec![0, 1, 2]);
    // cwnd 11 after the ACK, but only 3 may be outstanding: [1, 4) → just 3.
    assert_eq!(deliver(&mut s, 10 * MS, ack(1, &[])).0, vec![3]);
    assert_eq!(s.outstanding(), 3);
}

/// A CBR writer of one segment per 10 ms (the first written at 10 ms) that stops at
/// 40 ms, exactly when the fourth would be written (so it is not): the sender wakes when
/// each segment is written and sends it, then only its retransmission timer is left.
#[test]
fn cbr_application_paces_the_sender_until_it_stops() {
    let mut s = sender(|_| {});
    s.set_application(TcpApplication::Cbr { ns_per_segment: (10 * MS) as f64 });
    s.stop_application_at(40 * MS);
    let mut sent = Vec::new();
    let mut now = 0;
    for _ in 0..4 {
        let mut out = Vec::new();
        s.on_timer(now, &mut out);
        sent.push((now, seqs(&out)));
        now = s.timer_deadline().unwrap();
    }
    assert_eq!(sent, vec![(0, vec![]), (10 * MS, vec![0]), (20 * MS, vec![1]), (30 * MS, vec![2])]);
    assert_eq!(now, 10 * MS + 3_000 * MS); // no wake-up at 40 ms: the application has stopped
}

/// What congestion control is told, recorded by a plug-in that behaves as Reno.
#[derive(Default)]
struct Seen {
    every_ack: Vec<AckSample>,
    acks: Vec<AckSample>,
    rounds: Vec<Time>,
    recovery_ends: Vec<(Time, f64)>,
    events: Vec<(CongestionSignal, u32, bool, bool)>, // signal, flight size, in slow start, first reduction
}

struct Recorder(std::sync::Arc<std::sync::Mutex<Seen>>);

impl CongestionControl for Recorder {
    fn label(&self) -> String {
        "recorder".into()
    }
    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        self.0.lock().unwrap().every_ack.push(*ack);
    }
    fn on_recovery_end(&mut self, window: &mut Window, now: Time) {
        self.0.lock().unwrap().recovery_ends.push((now, window.cwnd));
        window.cwnd += 0.5; // the hook's change stands
    }
    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        self.0.lock().unwrap().acks.push(*ack);
        window.cwnd += 1.0;
    }
    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> crate::cc::Reduction {
        self.0.lock().unwrap().events.push((event.signal, event.flight_size, event.in_slow_start, event.first_reduction));
        crate::cc::Reduction { ssthresh: window.cwnd / 2.0, cwnd: window.cwnd / 2.0 }
    }
    fn on_round(&mut self, _window: &mut Window, now: Time) {
        self.0.lock().unwrap().rounds.push(now);
    }
}

#[test]
fn congestion_control_sees_each_ack_round_and_reduction() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Seen::default()));
    let cfg = TcpConfig { syn: false, initial_window: Some(4.0), limited_transmit: false, ..Default::default() };
    let mut s = TcpSender::new(cfg, Controller::Custom(Box::new(Recorder(seen.clone()))), 0, 1000, 40);
    assert_eq!(start(&mut s), vec![0, 1, 2, 3]);
    // ACK 2 at 100 ms (segments 0 and 1): newest acknowledged left at 0.
    assert_eq!(deliver(&mut s, 100 * MS, ack(2, &[])).0, vec![4, 5, 6]);
    let mut echo = ack(3, &[]);
    echo.ece = true; // ECN off: passed on, no reduction
    deliver(&mut s, 110 * MS, echo);
    // RTT statistics: one RFC 6298 sample (segment 0, 100 ms): SRTT 100, RTTVAR 50,
    // RTO = 100 + 4 × 50 = 300 ms; ACK 3 does not reach the next timed segment (4).
    assert_eq!(s.stats().rtt, RttSums { samples: 1, rtt_ns: (100 * MS) as f64, rto_ns: (300 * MS) as f64 });
    {
        let seen = seen.lock().unwrap();
        let got: Vec<(Time, u32, Option<Time>, bool, u64, u32)> = seen
            .acks
            .iter()
            .map(|a| (a.now, a.segments_acked, a.rtt, a.ece, a.delivered, a.in_flight))
            .collect();
        // in flight: what is outstanding after the ACK, before the sender adds to it
        assert_eq!(got, vec![(100 * MS, 2, Some(100 * MS), false, 2, 2), (110 * MS, 1, Some(110 * MS), true, 3, 4)]);
        assert_eq!(seen.rounds, vec![100 * MS]); // the next round ends when 7 is acknowledged
    }
    // Segment 3 lost: duplicates SACKing 4, 5, 6; the third reduces (in slow start, the
    // first reduction, 6 segments outstanding: 3–8, as ACK 3 let 7 and 8 go) and CC sees
    // no duplicate as an ACK.
    for (index, end) in [5, 6, 7].into_iter().enumerate() {
        deliver(&mut s, (120 + index as Time) * MS, ack(3, &[(4, end)]));
    }
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.events, vec![(CongestionSignal::FastRetransmit, 6, true, true)]);
        assert_eq!(seen.acks.len(), 2);
    }
    // Delivered counts each segment once, whether SACKed first or cumulatively ACKed:
    // 0–2 (3), SACKed 4–6 (6), then ACK 9 covers 3–8 of which 4–6 were counted (9). That
    // ACK ends recovery and is not passed on; the next one (10, and 11 SACKed) is: 11.
    let sent_after_recovery = deliver(&mut s, 130 * MS, ack(9, &[])).0;
    assert!(sent_after_recovery.contains(&11), "{sent_after_recovery:?}");
    deliver(&mut s, 140 * MS, ack(10, &[(11, 12)]));
    // Recovery ended at 130 ms with cwnd = ssthresh (half the 6 of the reduction) and
    // the hook's +0.5 stood; the ACK at 140 ms added 1 (Recorder's increase).
    let (ssthresh, cwnd) = (s.window().ssthresh, s.window().cwnd);
    assert_eq!((ssthresh, cwnd), (3.0, 3.0 + 0.5 + 1.0));
    // A timeout: whatever the algorithm returns as cwnd (here ssthresh), the sender
    // restarts from one segment with the algorithm's ssthresh (RFC 5681 §3.1).
    let mut out = Vec::new();
    assert!(s.on_timer(s.timer_deadline().unwrap(), &mut out));
    assert_eq!((s.window().cwnd, s.window().ssthresh), (1.0, cwnd / 2.0));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.recovery_ends, vec![(130 * MS, 3.0)]);
    assert_eq!(seen.events.last().map(|e| e.0), Some(CongestionSignal::Timeout));
    // SRTT reaches congestion control once the sender has a sample: 100 ms from the first.
    assert_eq!((seen.every_ack[0].srtt, seen.every_ack[1].srtt), (Some((100 * MS) as f64), Some((100 * MS) as f64)));
    let last = seen.acks.last().unwrap();
    assert_eq!((seen.acks.len(), last.segments_acked, last.delivered), (3, 1, 11));
    // The every-ACK hook saw all seven ACKs, duplicates and the one ending recovery
    // included, before the sender acted: (acked, SACKed, duplicate, in recovery, delivered).
    let every: Vec<(u32, u32, bool, bool, u64)> =
        seen.every_ack.iter().map(|a| (a.segments_acked, a.segments_sacked, a.duplicate, a.in_recovery, a.delivered)).collect();
    assert_eq!(
        every,
        vec![
            (2, 0, false, false, 2),
            (1, 0, false, false, 3),
            (0, 1, true, false, 4),
            (0, 1, true, false, 5),
            (0, 1, true, false, 6), // the third duplicate: recovery starts after the hook
            (6, 0, false, true, 9),
            (1, 1, false, false, 11),
        ]
    );
}

/// After a timeout, duplicate ACKs start no fast retransmit until the cumulative ACK
/// covers everything sent before it (RFC 6582 §3.2 step 1, ns-2's `recover_`).
#[test]
fn no_fast_retransmit_for_data_sent_before_a_timeout() {
    let mut s = sender(|cfg| cfg.initial_window = Some(4.0));
    assert_eq!(start(&mut s), vec![0, 1, 2, 3]);
    let mut out = Vec::new();
    s.on_timer(3_000 * MS, &mut out); // recover: everything below 4
    let mut now = 3_100 * MS;
    for cumulative in [1, 3, 4] {
        deliver(&mut s, now, ack(cumulative, &[]));
        now += 10 * MS;
    }
    // cwnd 1 → 2 (slow start to ssthresh 2) → 2.5 → 2.9: segments 4 and 5 are out.
    assert_eq!(s.outstanding(), 2);
    for _ in 0..3 {
        deliver(&mut s, now, ack(4, &[(5, 6)])); // ACK 4 covers 0–3, not more
        now += MS;
    }
    assert_eq!(s.stats().fast_recoveries, 0);
    deliver(&mut s, now, ack(5, &[])); // beyond recover: duplicates count again (6, 7 go out)
    for end in [7, 8, 8] {
        now += MS;
        deliver(&mut s, now, ack(5, &[(6, end)]));
    }
    assert_eq!(s.stats().fast_recoveries, 1);
}

// ---------------------------------------------------------------- tcp.profile = "ns2"
// ns-2.35 Agent/TCP/Sack1's rules (tcp-sack1.cc, scoreboard-rq.cc, tcp.cc), hand-computed,
// with ns-2's defaults: the SYN-like first packet and limited transmit.

/// Sack1's pipe counter (ns-2 `pipe_`).
fn sack1_pipe(s: &TcpSender) -> i64 {
    match &s.recovery {
        LossRecovery::Sack1(sack1) => sack1.pipe,
        _ => panic!("not Sack1's recovery"),
    }
}

/// A sender with ns-2's rules whose SYN has been ACKed at 1 ms: segments 1..=iw are out.
fn ns2_sender(initial_window: f64, edit: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    let mut s = sender(|cfg| {
        cfg.profile = Some(crate::transport::TcpProfile::Ns2);
        cfg.syn = true;
        cfg.limited_transmit = true;
        cfg.initial_window = Some(initial_window);
        edit(cfg);
    });
    assert_eq!(start(&mut s), vec![0], "the SYN goes alone");
    let (first_flight, _) = deliver(&mut s, MS, ack(1, &[]));
    assert_eq!(first_flight, (1..=initial_window as Seq).collect::<Vec<_>>());
    s
}

/// One loss (segment 1 of 1..=10): limited transmit, then Sack1's pipe counter, ACK by
/// ACK. The receiver holds 2..k, reported as [2, k+1).
#[test]
fn sack1_recovery_counts_pipe_and_resends_the_first_hole_uncounted() {
    let mut s = ns2_sender(10.0, |_| {});
    // (SACK block end, sent, pipe in recovery, cwnd)
    let steps: [(Seq, &[Seq], Option<i64>, f64); 11] = [
        // limited transmit: the next segment while it lies within snd_una + cwnd + dupacks
        (3, &[11], None, 10.0),
        (4, &[12], None, 10.0),
        // third: the first cut halves, ssthresh = ⌊10/2⌋ = 5, cwnd 5; pipe = 12
        // outstanding − 3 = 9; segment 1 resent, not counted in pipe
        (5, &[1], Some(9), 5.0),
        (6, &[], Some(8), 5.0), // −1 per ACK; sends while pipe < ⌊cwnd⌋
        (7, &[], Some(7), 5.0),
        (8, &[], Some(6), 5.0),
        (9, &[], Some(5), 5.0),
        (10, &[13], Some(5), 5.0), // pipe 4 < 5: the next new segment, pipe 5
        (11, &[14], Some(5), 5.0),
        (12, &[15], Some(5), 5.0),
        (13, &[16], Some(5), 5.0),
    ];
    for (index, &(sack_end, sent, pipe, cwnd)) in steps.iter().enumerate() {
        let (got, _) = deliver(&mut s, (10 + index as Time) * MS, ack(1, &[(2, sack_end)]));
        assert_eq!(got.as_slice(), sent, "step {index}");
        assert_eq!(s.in_recovery(), pipe.is_some(), "step {index}");
        if let Some(pipe) = pipe {
            assert_eq!((sack1_pipe(&s), s.window().cwnd), (pipe, cwnd), "step {index}");
        }
    }
    assert_eq!((s.window().ssthresh, s.stats().fast_recoveries, s.stats().retransmitted_packets), (5.0, 1, 1));
    // The resent 1 arrives: cumulative 13 reaches recover (13, what was out at the third
    // duplicate): recovery ends; the window stays at the cut and does not grow on this ACK.
    // snd_una 13 + ⌊cwnd⌋ 5 allows up to 17; 13..16 are out: 17 goes.
    let (got, _) = deliver(&mut s, 40 * MS, ack(13, &[]));
    assert!(!s.in_recovery());
    assert_eq!((got, s.window().cwnd, s.window().ssthresh), (vec![17], 5.0, 5.0));
}

/// ScoreBoardRQ's rule: a hole goes once any SACKed data lies above it (RFC 6675 waits
/// for DupThresh segments): 1 and 9 lost of 1..=10, only 10 SACKed above 9.
#[test]
fn sack1_resends_a_hole_with_one_sacked_segment_above() {
    let mut s = ns2_sender(10.0, |_| {});
    deliver(&mut s, 10 * MS, ack(1, &[(2, 3)])); // limited transmit: 11
    deliver(&mut s, 11 * MS, ack(1, &[(2, 4)])); // 12
    let (got, _) = deliver(&mut s, 12 * MS, ack(1, &[(2, 5)]));
    assert_eq!(got, vec![1], "fast retransmit of the first hole");
    for (k, end) in [6, 7, 8, 9].into_iter().enumerate() {
        let (got, _) = deliver(&mut s, (13 + k as Time) * MS, ack(1, &[(2, end)]));
        assert!(got.is_empty(), "pipe {} ≥ cwnd", sack1_pipe(&s));
    }
    // 10 SACKed: pipe 4 < 5, and hole 9 (one SACKed segment above it) goes before new data
    let (got, resent) = deliver(&mut s, 20 * MS, ack(1, &[(10, 11), (2, 9)]));
    assert_eq!((got, resent), (vec![9], 1));
    // the next opening: no hole left below SACKed data, new data
    let (got, resent) = deliver(&mut s, 21 * MS, ack(1, &[(10, 12), (2, 9)]));
    assert_eq!((got, resent), (vec![13], 0));
}

/// A duplicate counts only if its SACK blocks say something new (CheckUpdate); a partial
/// ACK takes pipe down twice and restarts the timer.
#[test]
fn sack1_counts_only_informative_duplicates_and_handles_partial_acks() {
    let mut s = ns2_sender(10.0, |_| {});
    let (got, _) = deliver(&mut s, 10 * MS, ack(1, &[(2, 3)]));
    assert_eq!(got, vec![11]);
    let (got, _) = deliver(&mut s, 11 * MS, ack(1, &[(2, 3)])); // nothing new: not counted
    assert!(got.is_empty());
    assert_eq!(s.tcb.dupacks, 1);
    deliver(&mut s, 12 * MS, ack(1, &[(2, 4)])); // 12
    let (got, _) = deliver(&mut s, 13 * MS, ack(1, &[(2, 5), (7, 8)])); // 6 lost too
    assert_eq!(got, vec![1]);
    assert_eq!(sack1_pipe(&s), 9);
    // the resent 1 arrives: cumulative 6 (2..5 held) is below recover (13): a partial
    // ACK. pipe 9 − 1 − 1 = 7: nothing sent; the timer restarts.
    let (got, _) = deliver(&mut s, 20 * MS, ack(6, &[(7, 8)]));
    assert!(got.is_empty() && s.in_recovery());
    assert_eq!(sack1_pipe(&s), 7);
    assert_eq!(s.timer_deadline(), Some(20 * MS + s.tcb.rto.current()));
}

/// After a timeout (go_back_n): duplicates and their SACK blocks are ignored until the
/// cumulative ACK moves; go-back-N resends from snd_una; a third duplicate before the ACK
/// passes what was out at the timeout does nothing (bugFix_), and sends nothing.
#[test]
fn ns2_timeout_goes_back_n_and_ignores_duplicates_until_a_new_ack() {
    let mut s = ns2_sender(4.0, |_| {}); // 1..=4 out
    let mut out = Vec::new();
    let deadline = s.timer_deadline().unwrap();
    assert!(s.on_timer(deadline, &mut out));
    assert_eq!(seqs(&out), vec![1], "cwnd 1: the first unacknowledged again");
    assert_eq!((s.window().cwnd, s.window().ssthresh), (1.0, 2.0), "ssthresh ⌊4/2⌋");
    for k in 0..4 {
        let (got, _) = deliver(&mut s, deadline + k * MS, ack(1, &[(2, 4)]));
        assert!(got.is_empty());
    }
    assert_eq!(s.tcb.dupacks, 0, "ignored, not counted");
    // 1 arrives; 2 and 3 were held: cumulative 4. Slow start: cwnd 2; go-back-N goes on
    // at 4 (sent before, not held), then 5 (new)
    let (got, _) = deliver(&mut s, deadline + 10 * MS, ack(4, &[]));
    assert_eq!((got, s.window().cwnd), (vec![4, 5], 2.0));
    let (got, _) = deliver(&mut s, deadline + 20 * MS, ack(4, &[(5, 6)])); // limited transmit
    assert_eq!(got, vec![6]);
    let (got, _) = deliver(&mut s, deadline + 21 * MS, ack(4, &[(5, 7)]));
    assert_eq!(got, vec![7]);
    // third: snd_una 4 has not passed what was out at the timeout (1..=4): nothing
    let (got, _) = deliver(&mut s, deadline + 22 * MS, ack(4, &[(5, 8)]));
    assert!(got.is_empty() && !s.in_recovery());
    assert_eq!(s.stats().fast_recoveries, 0);
}

/// integer_ssthresh alone (with RFC 6675 recovery): a cut from cwnd 3 leaves ssthresh 2
/// and cwnd 1.5, and the end of recovery does not raise cwnd to ssthresh.
#[test]
fn ns2_cut_can_leave_less_than_two_segments() {
    let mut s = sender(|cfg| {
        cfg.initial_window = Some(3.0);
        cfg.limited_transmit = true;
        cfg.ns2.integer_ssthresh = Some(true);
    });
    start(&mut s); // 0, 1, 2; 0 lost
    deliver(&mut s, 10 * MS, ack(0, &[(1, 2)])); // limited transmit: 3
    deliver(&mut s, 11 * MS, ack(0, &[(1, 3)])); // 4
    deliver(&mut s, 12 * MS, ack(0, &[(1, 4)])); // third: cut
    assert!(s.in_recovery());
    assert_eq!((s.window().cwnd, s.window().ssthresh), (1.5, 2.0));
    deliver(&mut s, 30 * MS, ack(5, &[]));
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, 1.5, "not raised to ssthresh");
}
