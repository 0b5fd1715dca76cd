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
//! * §5 step (C): during recovery, while cwnd − pipe ≥ 1 segment, NextSeg(): rule 1 (the
//!   lowest lost segment not yet resent), else rule 2 (new data), else rule 3 (the
//!   lowest unSACKed segment below the highest SACKed one, not resent yet, though fewer
//!   than DupThresh segments above it are SACKed: a finite flow's tail), else rule 4
//!   (once per recovery, a rescue retransmission of the highest unSACKed segment, not
//!   counted in pipe); outside recovery the window (with RFC 3042's limited transmit);
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
    /// One past the highest segment any SACK block covered (RFC 6675's highest octet
    /// SACKed, for NextSeg() rule 3).
    high_sacked: Seq,
    /// NextSeg() rule 3 has found nothing to resend below this one.
    rule3_scan: Seq,
    /// RFC 6675 RescueRxt: the RecoveryPoint of the recovery that made its rescue
    /// retransmission (rule 4 makes one per recovery).
    rescue_rxt: Option<Seq>,
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

    /// RFC 6675 NextSeg() rule 3: the lowest segment meeting IsLost()'s criteria (1.a)
    /// and (1.b) — not resent, below the highest SACKed segment — whether or not (1.c)
    /// DupThresh segments above it are SACKed. Segments below `lost_scan` are SACKed or
    /// lost (rule 1's); the scan only moves up within a recovery.
    fn next_unsacked_below_sacked(&mut self, tcb: &Tcb) -> Option<Seq> {
        self.rule3_scan = self.rule3_scan.max(self.lost_scan).max(tcb.snd_una);
        while self.rule3_scan < self.high_sacked.min(tcb.snd_max) {
            if tcb.seg(self.rule3_scan).flags & (SACKED | LOST | RETX_IN_FLIGHT) == 0 {
                return Some(self.rule3_scan);
            }
            self.rule3_scan += 1;
        }
        None
    }

    /// RFC 6675 NextSeg() rule 4: once per recovery (while snd_una has not passed the
    /// RecoveryPoint of the last rescue), the highest outstanding unSACKed segment.
    fn rescue(&self, tcb: &Tcb) -> Option<Seq> {
        if self.rescue_rxt.is_some_and(|rescue| tcb.snd_una <= rescue) {
            return None;
        }
        (tcb.snd_una..tcb.snd_max).rev().find(|&seq| tcb.seg(seq).flags & SACKED == 0)
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
            self.high_sacked = self.high_sacked.max(to);
            // Segments of a range marked whole before are marked still: skip those ranges.
            let marked = tcb.sacked_ranges;
            let mut seq = from;
            while seq < to {
                if let Some(above) = marked.iter().filter(|&&(a, b)| a <= seq && seq < b).map(|&(_, b)| b).max() {
                    seq = above;
                    continue;
                }
                let stop = marked.iter().filter(|&&(a, b)| a > seq && a < b).map(|&(a, _)| a).min().map_or(to, |a| a.min(to));
                for seq in seq..stop {
                    let Some(delivered_before) = tcb.mark_sacked(seq) else { continue };
                    sacked.newly += 1;
                    sacked.resacked += delivered_before as u32;
                    if seq < self.lost_scan {
                        self.sacked_below_lost_scan += 1;
                    }
                }
                seq = stop;
            }
            if from < to {
                // Most recent first: in place of a range it overlaps, else of the least
                // recently reported.
                let k = (0..marked.len()).find(|&k| marked[k].0 < to && from < marked[k].1).unwrap_or(marked.len() - 1);
                tcb.sacked_ranges.copy_within(0..k, 1);
                tcb.sacked_ranges[0] = (from, to);
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
        self.rule3_scan = seq;
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
            } else if let Some(seq) = self.next_unsacked_below_sacked(tcb) {
                if !tcb.pace_gate(now) {
                    break;
                }
                tcb.retransmit(now, seq, true, out);
            } else if let Some(seq) = self.rescue(tcb) {
                if !tcb.pace_gate(now) {
                    break;
                }
                // RFC 6675 rule 4: HighRxt is not updated, and the segment stays counted
                // in pipe once (as sent), not twice.
                tcb.retransmit(now, seq, false, out);
                self.rescue_rxt = Some(tcb.recovery_point);
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
        self.high_sacked = tcb.snd_una;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{Outgoing, TcpConfig};

    /// The skipped ranges change nothing: blocks that grow, merge, repeat and move, over
    /// thousands of segments and through timeouts, mark exactly the segments a plain
    /// segment-by-segment pass marks, and count the same newly SACKed segments.
    #[test]
    fn skipping_marked_ranges_marks_as_a_plain_pass_does() {
        let cfg = TcpConfig { syn: false, ..TcpConfig::default() };
        let mut tcb = Tcb::new(cfg, crate::cc::CcConfig::default().build(), 0, 1040, 40);
        let mut out: Vec<Outgoing> = Vec::new();
        for _ in 0..3000 {
            tcb.send_new(0, &mut out);
        }
        let mut recovery = SackRecovery::default();
        let mut truth = vec![false; 3000];
        let mut state = 12345u64;
        let mut draw = |n: u32| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % n as u64) as u32
        };
        let mut held: Vec<(u32, u32)> = Vec::new();
        let mut reported: Vec<(u32, u32)> = Vec::new();
        for step in 0..20_000 {
            // the receiver's holdings grow by a segment somewhere (mostly at the top)
            let seq = if draw(8) == 0 { draw(3000) } else { 1000 + (step % 2000) as u32 };
            crate::transport::held::hold(&mut held, seq);
            // as a receiver reports: the block with the newest segment, then those it
            // reported last, then at times another it holds
            let newest = *held.iter().find(|&&(a, b)| a <= seq && seq < b).expect("held");
            let mut blocks = vec![newest];
            for block in reported.iter().chain(std::iter::once(&held[draw(held.len() as u32) as usize])) {
                let current = *held.iter().find(|&&(a, b)| a <= block.0 && block.0 < b).expect("held");
                if blocks.len() < 3 && !blocks.contains(&current) {
                    blocks.push(current);
                }
            }
            reported = blocks.clone();
            let sacked = recovery.on_sack_blocks(&mut tcb, &blocks);
            let mut newly = 0;
            for &(a, b) in &blocks {
                for s in a..b {
                    newly += !std::mem::replace(&mut truth[s as usize], true) as u32;
                }
            }
            assert_eq!(sacked.newly, newly, "step {step}");
            if step % 5000 == 4999 {
                recovery.on_timeout(&mut tcb); // forgets every mark
                truth.iter_mut().for_each(|t| *t = false);
            }
        }
        for (seq, &t) in truth.iter().enumerate() {
            assert_eq!(tcb.seg(seq as u32).flags & SACKED != 0, t, "segment {seq}");
        }
    }
}
