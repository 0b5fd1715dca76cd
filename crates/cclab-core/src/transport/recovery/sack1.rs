//! ns-2.35's `Agent/TCP/Sack1` loss recovery (`tcp.ns2.sack1_recovery`), as its sources
//! have it (tcp-sack1.cc `recv`, `dupack_action`, `send_much`, `timeout`; scoreboard-rq.cc;
//! tcp.cc `send_one`, `newack`, `newtimer`). Sequence numbers are cclab's (the next
//! expected segment, one past ns-2's "last in-order segment"), so ns-2's `highest_ack_`
//! is `snd_una − 1`, its `maxseq_` is `snd_max − 1`, and `recover_` is kept one past too.
//!
//! What differs from RFC 6675 (the default recovery):
//! * a duplicate ACK counts only if its SACK blocks add to the scoreboard (`CheckUpdate`),
//!   and outside recovery the scoreboard is forgotten at every new ACK;
//! * limited transmit sends the next segment while it lies below snd_una + cwnd + dupacks
//!   (`send_one`), and nothing else is sent while duplicate ACKs are being counted;
//! * pipe is a counter: outstanding − DupThresh when recovery starts (the retransmission
//!   of the first hole is not counted), −1 per ACK, −1 more per partial ACK, +1 per
//!   segment sent; the sender sends while pipe < ⌊cwnd⌋;
//! * a hole is resent once any SACKed data lies above it (not DupThresh segments), each
//!   hole once per recovery, lowest first (`ScoreBoardRQ::GetNextRetran`);
//! * a partial ACK restarts the retransmission timer and ends any back-off; entering
//!   recovery stops RTT timing (`reset_rtx_timer(1, 0)`);
//! * `recover_` is shared by fast retransmit, timeouts and ECN reactions: after either of
//!   the latter, a third duplicate does nothing until the cumulative ACK passes what had
//!   been sent then (`bugFix_`), except straight after an ECN reaction, when it resends
//!   the first hole without cutting again; leaving recovery clears it;
//! * `last_ack_` stays where it was when recovery began until recovery ends.
use crate::sim::Time;
use crate::transport::tcb::{Sacked, Tcb};
use crate::transport::{AckInfo, Outbox, Seq};

/// What the last window reduction was for (ns-2 `last_cwnd_action_`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LastAction {
    #[default]
    None,
    Dupack,
    Timeout,
    Ecn,
}

/// ns-2's `ScoreBoardRQ`: the SACKed ranges above the cumulative ACK, as sorted disjoint
/// [start, end), and the next hole a retransmission may take.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    ranges: Vec<(Seq, Seq)>,
    total: u32,
    /// The cumulative ACK at the last update (`sack_min`).
    floor: Seq,
    /// Holes below this have been resent in this recovery (`h_seqno_`).
    next_retransmission: Seq,
}

impl Scoreboard {
    /// Forget everything (`ClearScoreBoard`).
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.total = 0;
        self.next_retransmission = 0;
    }

    /// SACKed segments held.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Take in an ACK's SACK blocks above `una`; returns whether the scoreboard changed
    /// (`UpdateScoreBoard`, `CheckUpdate`): ranges the cumulative ACK passed are dropped
    /// (a change when any were held), then each block is merged in.
    pub fn update(&mut self, una: Seq, blocks: &[(Seq, Seq)]) -> bool {
        let before = self.total;
        let mut changed = false;
        if una > self.floor {
            self.floor = una;
            if !self.ranges.is_empty() {
                self.trim_below(una);
                changed = true;
            }
        }
        for &(start, end) in blocks {
            let start = start.max(una);
            if end > start {
                self.add(start, end);
            }
        }
        changed || self.total != before
    }

    /// SACKed segments below `seq` (for the delivered count when the cumulative ACK moves).
    pub fn count_below(&self, seq: Seq) -> u32 {
        self.ranges.iter().map(|&(start, end)| end.min(seq).saturating_sub(start)).sum()
    }

    fn trim_below(&mut self, una: Seq) {
        self.ranges.retain_mut(|range| {
            range.0 = range.0.max(una);
            range.1 > range.0
        });
        self.total = self.ranges.iter().map(|&(start, end)| end - start).sum();
    }

    fn add(&mut self, start: Seq, end: Seq) {
        // Ranges that overlap or touch [start, end) merge with it.
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let last = self.ranges.partition_point(|&(s, _)| s <= end);
        let (mut lo, mut hi) = (start, end);
        for &(s, e) in &self.ranges[first..last] {
            lo = lo.min(s);
            hi = hi.max(e);
        }
        self.ranges.splice(first..last, [(lo, hi)]);
        self.total = self.ranges.iter().map(|&(s, e)| e - s).sum();
    }

    /// The lowest hole at or above the next retransmission point (and `una`) that has
    /// SACKed data above it (`GetNextRetran`); None when there is none.
    pub fn next_hole(&mut self, una: Seq) -> Option<Seq> {
        let from = self.next_retransmission.max(una);
        let hole = self.ranges.iter().position(|&(_, end)| end > from).map(|i| {
            let (start, end) = self.ranges[i];
            if start > from {
                Some(from)
            } else {
                // `from` is SACKed: the hole is where its range ends, if a range lies above.
                (i + 1 < self.ranges.len()).then_some(end)
            }
        })??;
        self.next_retransmission = self.next_retransmission.max(hole);
        Some(hole)
    }

    /// `seq` was resent: no hole at or below it is resent again (`MarkRetran`).
    pub fn mark_resent(&mut self, seq: Seq) {
        if seq >= self.next_retransmission {
            self.next_retransmission = seq + 1;
        }
    }
}

/// Sack1's recovery state beside the sender's control block.
#[derive(Clone, Debug)]
pub struct Sack1Recovery {
    scoreboard: Scoreboard,
    /// ns-2 `pipe_` (may go negative).
    pub(crate) pipe: i64,
    /// One past ns-2's `last_ack_`: frozen while in recovery.
    last_ack: Seq,
    /// One past ns-2's `recover_`; 1 is its "none" (0).
    recover: Seq,
    last_action: LastAction,
}

impl Default for Sack1Recovery {
    fn default() -> Self {
        Sack1Recovery { scoreboard: Scoreboard::default(), pipe: 0, last_ack: 0, recover: 1, last_action: LastAction::None }
    }
}

impl Sack1Recovery {
    /// Sack1TcpAgent::recv for an ACK within [snd_una, snd_max].
    pub(in crate::transport) fn on_ack(&mut self, tcb: &mut Tcb, now: Time, ack: &AckInfo, out: &mut impl Outbox) {
        if tcb.cfg.ecn && ack.ece {
            self.ecn_response(tcb, now, ack.cumulative);
        }
        let valid = ack.cumulative >= self.last_ack;
        if !tcb.in_recovery {
            if ack.cumulative > self.last_ack {
                let previously_sacked = self.scoreboard.count_below(ack.cumulative);
                tcb.new_ack(now, ack, previously_sacked, Sacked::default(), true);
                self.last_ack = ack.cumulative;
                tcb.ignoring_dupacks = false;
                self.scoreboard.clear();
            } else if ack.cumulative == self.last_ack && !tcb.ignoring_dupacks {
                let before = self.scoreboard.total();
                let changed = self.scoreboard.update(tcb.snd_una, ack.sack_blocks());
                tcb.report_duplicate(now, ack, Sacked::fresh(self.scoreboard.total().saturating_sub(before)));
                if changed {
                    tcb.dupacks += 1;
                    if tcb.dupacks == tcb.cfg.dupack_threshold {
                        self.dupack_action(tcb, now, out);
                    } else if tcb.dupacks < tcb.cfg.dupack_threshold && tcb.cfg.limited_transmit {
                        Self::send_one(tcb, now, out);
                    }
                }
            }
            if valid && tcb.dupacks == 0 {
                self.send_much(tcb, now, out);
            }
            return;
        }
        self.pipe -= 1;
        if ack.cumulative >= self.recover {
            // Recovery is over (newack, without opening the window); after an ECN reaction
            // `recover_` can be snd_una itself, and a duplicate ends it.
            self.recover = 1;
            tcb.in_recovery = false;
            let previously_sacked = self.scoreboard.count_below(ack.cumulative);
            tcb.new_ack(now, ack, previously_sacked, Sacked::default(), false);
            self.last_ack = ack.cumulative;
            tcb.end_recovery(now);
            tcb.ignoring_dupacks = false;
            self.scoreboard.clear();
        } else if ack.cumulative > tcb.snd_una {
            // A partial ACK: snd_una moves, last_ack_ does not.
            let previously_sacked = self.scoreboard.count_below(ack.cumulative);
            let before = self.scoreboard.total();
            self.scoreboard.update(ack.cumulative, ack.sack_blocks());
            let newly_sacked = (self.scoreboard.total() + previously_sacked).saturating_sub(before);
            let mut sample = tcb.sample(now, ack, newly_sacked);
            tcb.advance_and_report(now, ack, previously_sacked, Sacked::fresh(newly_sacked), &mut sample);
            self.pipe -= 1;
            // newtimer(), and the back-off ends (t_backoff_ = 1)
            tcb.rto.end_backoff();
            tcb.restart_timer(now);
        } else if !tcb.ignoring_dupacks {
            let before = self.scoreboard.total();
            if self.scoreboard.update(tcb.snd_una, ack.sack_blocks()) && tcb.dupacks > 0 {
                tcb.dupacks += 1;
            }
            tcb.report_duplicate(now, ack, Sacked::fresh(self.scoreboard.total().saturating_sub(before)));
        }
        if valid {
            self.send_much(tcb, now, out);
        }
    }

    /// The third counted duplicate (`Sack1TcpAgent::dupack_action`).
    fn dupack_action(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        // Fast retransmit is allowed past `recover_`, or for a loss of the first segment.
        let recovered = tcb.snd_una > self.recover || tcb.snd_una == tcb.first_data.max(1);
        if !recovered {
            if tcb.cfg.ecn && self.last_action == LastAction::Ecn {
                // The window was already cut for this loss's congestion: resend, no cut.
                self.last_action = LastAction::Dupack;
                self.start_recovery(tcb, now, out);
            }
            return; // bugFix_: one fast retransmit per window
        }
        self.recover = tcb.snd_max;
        self.last_action = LastAction::Dupack;
        tcb.fast_retransmit_cut(now);
        self.start_recovery(tcb, now, out);
    }

    /// Recovery starts: pipe, timer (restarted, RTT timing stopped), the first hole resent.
    fn start_recovery(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        self.pipe = tcb.outstanding() as i64 - tcb.cfg.dupack_threshold as i64;
        tcb.restart_timer(now);
        tcb.rtt_probe = None;
        tcb.in_recovery = true;
        let first = self.last_ack;
        self.scoreboard.mark_resent(first);
        tcb.retransmit(now, first, false, out);
    }

    /// Sack1TcpAgent::send_much: holes first, then the next segment (new data, or the
    /// go-back-N resend after a timeout), while the window or pipe allows.
    pub(in crate::transport) fn send_much(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        let max_window = tcb.cfg.max_window;
        let win = (tcb.window.cwnd.min(max_window as f64) as u32).max(0);
        loop {
            let open = if tcb.in_recovery {
                self.pipe < tcb.window.cwnd as i64
            } else {
                tcb.snd_nxt < self.last_ack.saturating_add(win)
            };
            if !open {
                break;
            }
            match self.scoreboard.next_hole(tcb.snd_una) {
                None => {
                    let room = if tcb.in_recovery { max_window } else { win };
                    if tcb.snd_nxt >= tcb.snd_una.saturating_add(room) || !tcb.next_segment_ready(now) {
                        break;
                    }
                    tcb.send_next(now, out);
                }
                Some(hole) if self.recover > 1 && hole < tcb.snd_una.saturating_add(max_window) => {
                    self.scoreboard.mark_resent(hole);
                    tcb.retransmit(now, hole, false, out);
                    tcb.snd_nxt = tcb.snd_nxt.max(hole + 1);
                }
                Some(_) => break,
            }
            self.pipe += 1;
        }
    }

    /// Limited transmit (`send_one`): the next segment, if it lies below
    /// snd_una + cwnd + dupacks.
    fn send_one(tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        let ahead = (tcb.snd_nxt + 1 - tcb.snd_una) as f64;
        if tcb.snd_nxt < tcb.snd_una.saturating_add(tcb.cfg.max_window)
            && ahead <= tcb.window.cwnd + tcb.dupacks as f64
            && tcb.next_segment_ready(now)
        {
            tcb.send_next(now, out);
        }
    }

    /// Sack1TcpAgent::timeout's own part (the sender applies the common timeout rule).
    pub(in crate::transport) fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.last_ack = self.last_ack.max(tcb.snd_una);
        self.recover = tcb.snd_max;
        self.scoreboard.clear();
        self.last_action = LastAction::Timeout;
    }

    /// TcpAgent::ecn: once per window (past `recover_`, or after a timeout).
    fn ecn_response(&mut self, tcb: &mut Tcb, now: Time, cumulative: Seq) {
        if cumulative > self.recover || self.last_action == LastAction::Timeout {
            self.recover = tcb.snd_max;
            self.last_action = LastAction::Ecn;
            tcb.ecn_reduction(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Scoreboard;

    #[test]
    fn scoreboard_merges_blocks_and_reports_changes() {
        let mut board = Scoreboard::default();
        assert!(board.update(1, &[(3, 5)]));
        assert!(!board.update(1, &[(3, 5)]), "the same block again: nothing new");
        assert!(board.update(1, &[(5, 6), (8, 9)]));
        assert_eq!((board.ranges.clone(), board.total()), (vec![(3, 6), (8, 9)], 4));
        // the cumulative ACK passes 4: ranges below it go, and that is a change
        assert!(board.update(4, &[]));
        assert_eq!((board.ranges.clone(), board.total(), board.count_below(9)), (vec![(4, 6), (8, 9)], 3, 3));
        assert!(board.update(4, &[(6, 8)]));
        assert_eq!(board.ranges, vec![(4, 9)]);
        board.clear();
        assert!(board.ranges.is_empty() && board.total() == 0);
    }

    /// ScoreBoardRQ::GetNextRetran: holes with SACKed data above, lowest first, once each.
    #[test]
    fn holes_need_sacked_data_above_and_go_once() {
        let mut board = Scoreboard::default();
        board.update(1, &[(3, 4), (6, 8)]); // holes: 1, 2 (below 3), 4, 5 (below 6); none above 8
        let mut resent = Vec::new();
        while let Some(hole) = board.next_hole(1) {
            board.mark_resent(hole);
            resent.push(hole);
        }
        assert_eq!(resent, vec![1, 2, 4, 5]);
        // a new block above opens the hole at 8 (and only it)
        board.update(1, &[(9, 10)]);
        assert_eq!(board.next_hole(1), Some(8));
        // without marking, the same hole is offered again
        assert_eq!(board.next_hole(1), Some(8));
        board.clear();
        board.update(1, &[(2, 3)]);
        assert_eq!(board.next_hole(1), Some(1), "a cleared board starts again from the first hole");
        assert_eq!(board.next_hole(5), None, "nothing SACKed above 5");
    }
}
