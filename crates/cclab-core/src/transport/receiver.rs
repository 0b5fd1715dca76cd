//! The TCP data receiver (ns-2 `TCPSink/Sack1`, optionally `DelAck`): cumulative ACKs,
//! up to three SACK blocks (RFC 2018: the block holding the newest segment first, then
//! the most recently reported ones), delayed ACKs (RFC 5681 §4.2) and ECN echo (RFC 3168:
//! ECE on every ACK from a CE mark until CWR; ns-2's sink only on ACKs of ECN-capable
//! segments, `tcp.ns2.ecn`).
use super::{AckInfo, SackBlock, Seq, MAX_SACK_BLOCKS};
use crate::net::packet::ecn;
use crate::sim::Time;

pub struct TcpReceiver {
    rcv_nxt: Seq,
    /// Out-of-order segments held, as sorted disjoint [start, end) ranges above rcv_nxt.
    held: Vec<SackBlock>,
    /// The last ACK sent: its blocks, most recent first, lead the next ACK's.
    reported: AckInfo,
    sack: bool,
    delayed_ack: Option<Time>,
    unacked_segments: u32,
    delayed_ack_deadline: Option<Time>,
    /// A CE mark arrived and no CWR since: set ECE on every ACK.
    echo_ce: bool,
    /// ns-2's sink: ECE only on an ACK that acknowledges an ECN-capable segment (this
    /// one, or one whose ACK was delayed).
    ece_only_on_ect: bool,
    /// An ECN-capable segment arrived since the last ACK.
    ect_since_ack: bool,
    first_data: Seq,
}

/// What the receiver did with one arriving packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Receipt {
    /// Data segments newly delivered in order to the application.
    pub delivered: u32,
    pub ack: Option<AckInfo>,
}

impl TcpReceiver {
    pub fn new(sack: bool, delayed_ack: Option<Time>, first_data: Seq) -> TcpReceiver {
        TcpReceiver {
            rcv_nxt: 0,
            held: Vec::new(),
            reported: AckInfo::default(),
            sack,
            delayed_ack,
            unacked_segments: 0,
            delayed_ack_deadline: None,
            echo_ce: false,
            ece_only_on_ect: false,
            ect_since_ack: false,
            first_data,
        }
    }

    /// Echo congestion as ns-2's `TcpSink` does: only on ACKs of ECN-capable segments.
    pub fn with_ns2_ecn(mut self) -> TcpReceiver {
        self.ece_only_on_ect = true;
        self
    }

    pub fn next_expected(&self) -> Seq {
        self.rcv_nxt
    }

    pub fn delayed_ack_deadline(&self) -> Option<Time> {
        self.delayed_ack_deadline
    }

    /// A data segment arrived with the IP header's ECN bits `ecn_bits` and TCP's CWR flag.
    pub fn on_segment(&mut self, now: Time, seq: Seq, ecn_bits: u8, cwr: bool) -> Receipt {
        let mut ack = None;
        let delivered = self.on_segment_then(now, seq, ecn_bits, cwr, |a| ack = Some(a));
        Receipt { delivered, ack }
    }

    /// [`on_segment`](Self::on_segment) that hands the ACK, if one is due, to `send`
    /// and returns the segments delivered: the engine's form, in which the ACK goes
    /// straight into the packet that carries it (no receipt written and copied again).
    #[inline]
    pub fn on_segment_then(&mut self, now: Time, seq: Seq, ecn_bits: u8, cwr: bool, send: impl FnOnce(AckInfo)) -> u32 {
        if cwr {
            self.echo_ce = false;
        }
        if ecn_bits & ecn::CE != 0 {
            self.echo_ce = true;
        }
        self.ect_since_ack |= ecn_bits & ecn::ECT != 0;
        let before = self.rcv_nxt;
        let mut immediate = seq != self.rcv_nxt || !self.held.is_empty() || seq < self.first_data;
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            if let Some(&(start, end)) = self.held.first() {
                if start == self.rcv_nxt {
                    self.rcv_nxt = end;
                    self.held.remove(0);
                    immediate = true; // a hole was filled (RFC 5681 §4.2)
                }
            }
        } else if seq > self.rcv_nxt {
            self.hold(seq);
        }
        let delivered = self.rcv_nxt.max(self.first_data) - before.max(self.first_data);

        if let (Some(timeout), false) = (self.delayed_ack, immediate) {
            self.unacked_segments += 1;
            if self.unacked_segments < 2 {
                self.delayed_ack_deadline.get_or_insert(now.saturating_add(timeout));
                return delivered;
            }
        }
        self.send_ack(if seq > self.rcv_nxt { Some(seq) } else { None }, send);
        delivered
    }

    /// The delayed-ACK timer fired at `now`.
    pub fn on_delayed_ack_timer(&mut self, now: Time) -> Option<AckInfo> {
        match self.delayed_ack_deadline {
            Some(deadline) if deadline <= now && self.unacked_segments > 0 => {
                let mut ack = None;
                self.send_ack(None, |a| ack = Some(a));
                ack
            }
            Some(deadline) if deadline <= now => {
                self.delayed_ack_deadline = None;
                None
            }
            _ => None,
        }
    }

    fn hold(&mut self, seq: Seq) {
        // First range that ends at or after seq: it holds seq, touches it, or lies above.
        let i = self.held.partition_point(|&(_, end)| end < seq);
        match self.held.get(i).copied() {
            Some((start, end)) if start <= seq && seq < end => return, // duplicate
            Some((_, end)) if end == seq => self.held[i].1 = seq + 1,
            _ => self.held.insert(i, (seq, seq + 1)),
        }
        if i + 1 < self.held.len() && self.held[i].1 == self.held[i + 1].0 {
            self.held[i].1 = self.held[i + 1].1;
            self.held.remove(i + 1);
        }
    }

    fn containing(&self, seq: Seq) -> Option<SackBlock> {
        self.held.iter().copied().find(|&(start, end)| start <= seq && seq < end)
    }

    /// Hand the ACK due now to `send`. Without held segments it carries no SACK blocks
    /// and is built in registers straight into `send` (inlined, the engine writes it
    /// into the packet that carries it; an ACK returned from two paths would be built on
    /// the stack and copied, which stalls); the blocks are chosen apart.
    #[inline]
    fn send_ack(&mut self, newest: Option<Seq>, send: impl FnOnce(AckInfo)) {
        self.unacked_segments = 0;
        self.delayed_ack_deadline = None;
        let ece = self.echo_ce && (self.ect_since_ack || !self.ece_only_on_ect);
        self.ect_since_ack = false;
        if self.sack && !self.held.is_empty() {
            return send(self.ack_with_sack_blocks(ece, newest));
        }
        // Only the blocks of the last ACK are read later: none.
        self.reported.sack_count = 0;
        send(AckInfo { cumulative: self.rcv_nxt, ece, ..Default::default() })
    }

    /// An ACK with SACK blocks (RFC 2018 §4): the block holding the newest segment first,
    /// then those reported most recently, then the highest held ranges not yet listed.
    #[inline(never)]
    fn ack_with_sack_blocks(&mut self, ece: bool, newest: Option<Seq>) -> AckInfo {
        fn add(ack: &mut AckInfo, block: SackBlock) {
            if (ack.sack_count as usize) < MAX_SACK_BLOCKS && !ack.sack_blocks().contains(&block) {
                ack.sack[ack.sack_count as usize] = block;
                ack.sack_count += 1;
            }
        }
        let mut ack = AckInfo { cumulative: self.rcv_nxt, ece, ..Default::default() };
        if let Some(block) = newest.and_then(|seq| self.containing(seq)) {
            add(&mut ack, block);
        }
        for &(start, _) in self.reported.sack_blocks() {
            if let Some(block) = self.containing(start) {
                add(&mut ack, block);
            }
        }
        // Fill the remaining slots with the highest held ranges not yet listed.
        for &block in self.held.iter().rev() {
            add(&mut ack, block);
        }
        self.reported = ack;
        ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_and_sack_blocks() {
        let mut rx = TcpReceiver::new(true, None, 0);
        assert_eq!(rx.on_segment(0, 0, 0, false).ack.unwrap().cumulative, 1);
        // 1 lost; 2, 3 arrive; then 5 (4 lost)
        rx.on_segment(0, 2, 0, false);
        let ack = rx.on_segment(0, 3, 0, false).ack.unwrap();
        assert_eq!((ack.cumulative, ack.sack_blocks()), (1, &[(2, 4)][..]));
        let ack = rx.on_segment(0, 5, 0, false).ack.unwrap();
        assert_eq!(ack.sack_blocks(), &[(5, 6), (2, 4)][..]);
        // retransmitted 1 fills the first hole: cumulative jumps to 4
        let r = rx.on_segment(0, 1, 0, false);
        assert_eq!(r.delivered, 3);
        let ack = r.ack.unwrap();
        assert_eq!((ack.cumulative, ack.sack_blocks()), (4, &[(5, 6)][..]));
        let r = rx.on_segment(0, 4, 0, false);
        assert_eq!((r.delivered, r.ack.unwrap().cumulative, r.ack.unwrap().sack_count), (2, 6, 0));
    }

    #[test]
    fn blocks_merge_from_both_sides() {
        let mut rx = TcpReceiver::new(true, None, 0);
        for seq in [2, 6, 4, 3, 5] {
            rx.on_segment(0, seq, 0, false);
        }
        assert_eq!(rx.held, vec![(2, 7)]);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timeout() {
        let mut rx = TcpReceiver::new(true, Some(100), 0);
        assert!(rx.on_segment(0, 0, 0, false).ack.is_none());
        assert_eq!(rx.delayed_ack_deadline(), Some(100));
        assert_eq!(rx.on_segment(10, 1, 0, false).ack.unwrap().cumulative, 2);
        assert!(rx.on_segment(20, 2, 0, false).ack.is_none());
        assert_eq!(rx.on_delayed_ack_timer(120).unwrap().cumulative, 3);
        // out of order: immediate
        assert!(rx.on_segment(130, 5, 0, false).ack.is_some());
    }

    #[test]
    fn ecn_echo_until_cwr() {
        let mut rx = TcpReceiver::new(true, None, 0);
        assert!(!rx.on_segment(0, 0, 0, false).ack.unwrap().ece);
        assert!(rx.on_segment(0, 1, ecn::ECT | ecn::CE, false).ack.unwrap().ece);
        assert!(rx.on_segment(0, 2, 0, false).ack.unwrap().ece);
        assert!(!rx.on_segment(0, 3, 0, true).ack.unwrap().ece);
    }

    /// ns-2's sink: the echo holds until CWR, but rides only on ACKs of ECN-capable
    /// segments (a retransmission that is not ECN-capable is ACKed without it).
    #[test]
    fn ns2_sink_echoes_only_on_acks_of_ect_segments() {
        let mut rx = TcpReceiver::new(true, None, 0).with_ns2_ecn();
        assert!(rx.on_segment(0, 0, ecn::ECT | ecn::CE, false).ack.unwrap().ece);
        assert!(!rx.on_segment(0, 1, 0, false).ack.unwrap().ece, "not ECN-capable");
        assert!(rx.on_segment(0, 2, ecn::ECT, false).ack.unwrap().ece, "still echoing");
        assert!(!rx.on_segment(0, 3, ecn::ECT, true).ack.unwrap().ece, "CWR ends it");
        // delayed ACKs: an ECN-capable segment held since the last ACK counts
        let mut delayed = TcpReceiver::new(true, Some(100), 0).with_ns2_ecn();
        assert!(delayed.on_segment(0, 0, ecn::ECT | ecn::CE, false).ack.is_none());
        assert!(delayed.on_segment(1, 1, 0, false).ack.unwrap().ece);
    }
}
