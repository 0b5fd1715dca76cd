//! RACK loss detection (RFC 8985) as Linux runs it (tcp_recovery.c: `tcp_rack_advance`,
//! `tcp_rack_detect_loss`, `tcp_rack_reo_wnd`):
//!
//! * every segment newly delivered (SACKed, or cumulatively ACKed without having been
//!   SACKed) advances RACK: its RTT becomes RACK's RTT, and if it was sent after the
//!   most recent one known delivered, it becomes that one (send time, then sequence, as
//!   the tie-break) — unless it was retransmitted and its RTT is below the minimum RTT
//!   (the ACK may be for the original);
//! * a segment not yet delivered, sent before that one, is lost once RACK's RTT plus the
//!   reordering window has passed since it was sent; a lost retransmission is found the
//!   same way; segments marked lost and not yet resent are not looked at again;
//! * the reordering window is min RTT/4 — or 0 once three segments are SACKed, or in
//!   recovery, while no reordering has been seen (none is, on a path that does not
//!   reorder) — at most SRTT;
//! * what is not yet lost but will be sets the REO timer: the longest wait, plus 2 ms.
//!
//! Segments are visited in the order they were sent (Linux's `tsorted_sent_queue`): a
//! queue of (segment, send time) appended at every transmission; entries whose segment
//! has since been delivered, resent, or found lost are skipped and dropped.
use crate::sim::Time;
use crate::transport::tcb::{Tcb, LOST, RETRANSMITTED, RETX_IN_FLIGHT, SACKED};
use crate::transport::Seq;
use std::collections::VecDeque;

/// A queue entry whose segment was found lost (dropped from the order).
const GONE: Time = Time::MAX;

#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// Send time and sequence end of the most recently sent segment known delivered.
    mstamp: Time,
    end_seq: Seq,
    /// RACK's RTT: of the last segment that advanced it, ns.
    rtt: Time,
    /// Something advanced RACK since the last detection.
    pub advanced: bool,
    /// Reordering has been seen (never here: `tp->reord_seen`).
    reord_seen: bool,
    /// Transmissions in send order, oldest first.
    sent: VecDeque<(Seq, Time)>,
}

/// What one detection found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// Segments newly marked lost.
    pub lost: u32,
    /// Of those, retransmissions found lost.
    pub lost_retransmissions: u32,
    /// The longest a not-yet-lost segment has still to wait (0: none waits), ns.
    pub reo_timeout: Time,
}

/// `tcp_rack_sent_after`: sent later, or at the same time with a higher sequence end.
fn sent_after(t1: Time, t2: Time, seq1: Seq, seq2: Seq) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// A segment went out at `now` (new or resent).
    pub fn on_transmit(&mut self, seq: Seq, now: Time) {
        self.sent.push_back((seq, now));
    }

    /// `tcp_rack_advance`: segment `seq`, sent at `sent_at`, was delivered at `now`.
    pub fn advance(&mut self, seq: Seq, sent_at: Time, retransmitted: bool, now: Time, min_rtt: Option<Time>) {
        let rtt = now.saturating_sub(sent_at);
        if retransmitted && min_rtt.is_some_and(|min| rtt < min) {
            return; // perhaps the original's ACK: ambiguous
        }
        self.advanced = true;
        self.rtt = rtt;
        if sent_after(sent_at, self.mstamp, seq + 1, self.end_seq) {
            self.mstamp = sent_at;
            self.end_seq = seq + 1;
        }
    }

    /// RACK's RTT, ns (0 before any delivery).
    pub fn rtt(&self) -> Time {
        self.rtt
    }

    /// `tcp_rack_reo_wnd`.
    pub fn reo_wnd(&self, in_recovery: bool, sacked: u32, reordering: u32, min_rtt: Option<Time>, srtt: Option<Time>) -> Time {
        if !self.reord_seen && (in_recovery || sacked >= reordering) {
            return 0;
        }
        let window = min_rtt.unwrap_or(0) / 4;
        srtt.map_or(window, |srtt| window.min(srtt))
    }

    /// `tcp_rack_skb_timeout`: how long segment sent at `sent_at` has still to wait (≤ 0:
    /// lost), ns.
    pub fn timeout(&self, sent_at: Time, reo_wnd: Time, now: Time) -> i64 {
        self.rtt as i64 + reo_wnd as i64 - now.saturating_sub(sent_at) as i64
    }

    /// `tcp_rack_detect_loss`: mark lost what RACK says is lost.
    pub(in crate::transport) fn detect_loss(&mut self, tcb: &mut Tcb, now: Time, reo_wnd: Time) -> Detection {
        let mut found = Detection::default();
        // Entries at the front that no longer stand for a segment in flight go first.
        while let Some(&(seq, at)) = self.sent.front() {
            if live(tcb, seq, at) {
                break;
            }
            self.sent.pop_front();
        }
        for index in 0..self.sent.len() {
            let (seq, at) = self.sent[index];
            if !live(tcb, seq, at) {
                continue;
            }
            let flags = tcb.seg(seq).flags;
            if flags & LOST != 0 && flags & RETX_IN_FLIGHT == 0 {
                continue; // marked lost, not yet resent
            }
            if !sent_after(self.mstamp, at, self.end_seq, seq + 1) {
                break;
            }
            let remaining = self.timeout(at, reo_wnd, now);
            if remaining <= 0 {
                found.lost += 1;
                if flags & RETX_IN_FLIGHT != 0 {
                    found.lost_retransmissions += 1;
                }
                tcb.mark_lost_again(seq);
                self.sent[index].1 = GONE;
            } else {
                found.reo_timeout = found.reo_timeout.max(remaining as Time);
            }
        }
        found
    }

    /// Forget the transmissions (the sender's state was reset).
    pub fn clear(&mut self) {
        self.sent.clear();
    }
}

/// An entry stands for a segment still outstanding, not SACKed, last sent at `at`.
fn live(tcb: &Tcb, seq: Seq, at: Time) -> bool {
    at != GONE && seq >= tcb.snd_una && seq < tcb.snd_max && {
        let seg = tcb.seg(seq);
        seg.sent_at == at && seg.flags & SACKED == 0
    }
}

/// Whether a segment's flags say it was ever retransmitted.
pub fn was_retransmitted(flags: u8) -> bool {
    flags & RETRANSMITTED != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn advance_keeps_the_latest_sent_and_skips_ambiguous_retransmissions() {
        let mut rack = Rack::default();
        rack.advance(5, 10 * MS, false, 50 * MS, None);
        assert_eq!((rack.mstamp, rack.end_seq, rack.rtt), (10 * MS, 6, 40 * MS));
        rack.advance(3, 8 * MS, false, 51 * MS, None); // sent earlier: RTT taken, mstamp kept
        assert_eq!((rack.mstamp, rack.rtt), (10 * MS, 43 * MS));
        rack.advance(7, 10 * MS, false, 52 * MS, None); // same time, higher seq wins
        assert_eq!(rack.end_seq, 8);
        rack.advance(2, 45 * MS, true, 53 * MS, Some(40 * MS)); // 8 ms < min RTT: ambiguous
        assert_eq!((rack.mstamp, rack.rtt), (10 * MS, 42 * MS));
    }

    #[test]
    fn reordering_window() {
        let rack = Rack::default();
        assert_eq!(rack.reo_wnd(false, 1, 3, Some(40 * MS), Some(50 * MS)), 10 * MS);
        assert_eq!(rack.reo_wnd(false, 3, 3, Some(40 * MS), Some(50 * MS)), 0, "three SACKed");
        assert_eq!(rack.reo_wnd(true, 0, 3, Some(40 * MS), Some(50 * MS)), 0, "in recovery");
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(40 * MS), Some(8 * MS)), 8 * MS, "at most SRTT");
        assert_eq!(rack.timeout(0, 10 * MS, 45 * MS), -35 * MS as i64, "RACK RTT 0 + 10 ms − 45 ms waited");
    }
}
