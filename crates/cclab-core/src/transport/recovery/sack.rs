//! RFC 6675 SACK-based loss recovery (`recovery = "sack"`, the default), on the sender's
//! per-segment scoreboard (flags SACKED, LOST, RETX_IN_FLIGHT; the control block keeps
//! their counts, so pipe = outstanding − SACKed − lost + retransmitted in flight):
//!
//! * Update(): an ACK's SACK blocks mark segments SACKed (a segment SACKed again after a
//!   timeout forgot it is not delivered twice);
//! * IsLost(): a segment is lost once DupThresh segments above it are SACKed, kept as a
//!   forward scan (`lost_scan`), one per recovery;
//! * fast retransmit: the first unacknowledged segment is marked lost and resent,
//!   counted in pipe;
//! * §5 step (C): during recovery, while cwnd − pipe ≥ 1 segment, NextSeg() rule 1 (the
//!   lowest lost segment not yet resent), else new data; outside recovery the window
//!   (with RFC 3042's limited transmit);
//! * a partial ACK only restarts the timer; recovery ends at RecoveryPoint;
//! * §5.1: a timeout forgets SACK information.
use super::RecoveryOps;
use crate::transport::tcb::{Sacked, Tcb, LOST, RETX_IN_FLIGHT, SACKED};
use crate::transport::{Outbox, SackBlock, Seq};
use crate::sim::Time;

#[derive(Clone, Debug, Default)]
pub struct SackRecovery {
    /// IsLost() has been evaluated for [snd_una, lost_scan); SACKed segments in that range.
    lost_scan: Seq,
    sacked_below_lost_scan: u32,
    /// No lost segment below this one still needs retransmitting.
    retx_scan: Seq,
}

impl SackRecovery {
    /// RFC 6675 NextSeg() rule 1: the lowest lost segment not yet retransmitted.
    fn next_lost(&mut self, tcb: &Tcb) -> Option<Seq> {
        self.retx_scan = self.retx_scan.max(tcb.snd_una);
        while self.retx_scan < self.lost_scan {
            let flags = tcb.seg(self.retx_scan).flags;
            if flags & LOST != 0 && flags & (SACKED | RETX_IN_FLIGHT) == 0 {
                return Some(self.retx_scan);
            }
            self.retx_scan += 1;
        }
        None
    }

    /// RFC 6675 IsLost(): a segment is lost once DupThresh segments above it are SACKed.
    /// SACKed-above counts only fall as the scan moves up, so the lost holes form a
    /// prefix and one forward scan per recovery suffices.
    fn update_lost_marks(&mut self, tcb: &mut Tcb) {
        let threshold = tcb.cfg.dupack_threshold;
        while self.lost_scan < tcb.snd_max {
            let is_sacked = tcb.seg(self.lost_scan).flags & SACKED != 0;
            let sacked_above = tcb.sacked() - self.sacked_below_lost_scan - is_sacked as u32;
            if sacked_above < threshold {
                break;
            }
            if !is_sacked {
                tcb.mark_lost(self.lost_scan);
            }
            self.sacked_below_lost_scan += is_sacked as u32;
            self.lost_scan += 1;
        }
    }
}

impl RecoveryOps for SackRecovery {
    /// Update(): mark what the blocks hold within [snd_una, snd_max).
    fn on_sack_blocks(&mut self, tcb: &mut Tcb, blocks: &[SackBlock]) -> Sacked {
        let mut sacked = Sacked::default();
        for &(start, end) in blocks {
            let from = start.max(tcb.snd_una);
            let to = end.min(tcb.snd_max);
            for seq in from..to {
                let Some(delivered_before) = tcb.mark_sacked(seq) else { continue };
                sacked.newly += 1;
                sacked.resacked += delivered_before as u32;
                if seq < self.lost_scan {
                    self.sacked_below_lost_scan += 1;
                }
            }
        }
        sacked
    }

    /// The scan follows snd_una.
    #[inline]
    fn on_cumulative(&mut self, tcb: &Tcb, cumulative: Seq) {
        if self.lost_scan < cumulative {
            self.lost_scan = cumulative;
            self.sacked_below_lost_scan = 0;
        } else if self.sacked_below_lost_scan > 0 {
            let passed = (tcb.snd_una..cumulative).filter(|&seq| tcb.seg(seq).flags & SACKED != 0).count();
            self.sacked_below_lost_scan -= passed as u32;
        }
    }

    /// The first unacknowledged segment is lost (as IsLost() may find more) and resent.
    fn enter(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        let seq = tcb.snd_una;
        tcb.mark_lost(seq);
        self.lost_scan = seq;
        self.sacked_below_lost_scan = 0;
        self.retx_scan = seq;
        self.update_lost_marks(tcb);
        self.lost_scan = self.lost_scan.max(seq + 1);
        tcb.retransmit(now, seq, true, out);
    }

    fn on_sacked(&mut self, tcb: &mut Tcb) {
        self.update_lost_marks(tcb);
    }

    fn send(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        if !tcb.in_recovery {
            tcb.send_window(now, 0, false, out);
            return;
        }
        // RFC 6675 §5 step (C): while cwnd − pipe ≥ 1 segment, send NextSeg().
        while tcb.pipe() as f64 + 1.0 <= tcb.window.cwnd {
            if let Some(seq) = self.next_lost(tcb) {
                if !tcb.pace_gate(now) {
                    break;
                }
                tcb.retransmit(now, seq, true, out);
            } else if tcb.may_send_new(now) {
                if !tcb.pace_gate(now) {
                    break;
                }
                tcb.send_new(now, out);
            } else {
                tcb.note_app_limited(now);
                break;
            }
        }
    }

    /// RFC 6675 §5.1: forget SACK information.
    fn on_timeout(&mut self, tcb: &mut Tcb) {
        tcb.forget_sack_marks();
        self.lost_scan = tcb.snd_una;
        self.sacked_below_lost_scan = 0;
    }
}
