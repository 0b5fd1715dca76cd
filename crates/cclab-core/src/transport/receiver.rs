//! The TCP data receiver (ns-2 `TCPSink/Sack1`, optionally `DelAck`): cumulative ACKs,
//! up to three SACK blocks (RFC 2018: the block holding the newest segment first, then
//! the most recently reported ones), delayed ACKs (RFC 5681 §4.2) and ECN echo (RFC 3168:
//! ECE on every ACK from a CE mark until CWR; ns-2's sink only on ACKs of ECN-capable
//! segments, `tcp.ns2.ecn`).
use super::held::hold;
use super::endpoint::SACK_BLOCK_BYTES;
use super::{AckInfo, Header, Outbox, Outgoing, SackBlock, Seq, MAX_SACK_BLOCKS};
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
    /// DCTCP's echo (RFC 8257 §3.2): ECE is the CE state of the segments acknowledged,
    /// and a change of state is ACKed at once (`echo_ce` holds the state).
    dctcp: bool,
    /// AccECN's count of CE-marked segments received (RFC 9768 r.cep; on every ACK,
    /// `ce_count`); an L4S receiver (`accecn`) sets no classic ECE.
    ce_count: u32,
    accecn: bool,
    first_data: Seq,
    /// With the linux profile, Linux's receiver does all of the above its own way.
    linux: Option<Box<super::linux::receiver::LinuxReceiver>>,
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
            dctcp: false,
            ce_count: 0,
            accecn: false,
            first_data,
            linux: None,
        }
    }

    /// Receive as Linux does (`profile = "linux"`, module [`super::linux::receiver`]).
    pub fn with_linux_rules(mut self) -> TcpReceiver {
        let mut linux = super::linux::receiver::LinuxReceiver::new(self.sack, self.first_data)
            .with_coalescing(super::linux::receiver::COALESCE_WINDOW);
        if self.dctcp {
            linux = linux.with_dctcp_echo();
        }
        if self.accecn {
            linux = linux.with_accecn();
        }
        self.linux = Some(Box::new(linux));
        self
    }

    /// Echo CE marks as DCTCP needs them (RFC 8257 §3.2).
    pub fn with_dctcp_echo(mut self) -> TcpReceiver {
        self.dctcp = true;
        self
    }

    /// Feed back as an L4S flow needs (AccECN): every CE mark counted in `ce_count`, no
    /// classic ECE.
    pub fn with_accecn(mut self) -> TcpReceiver {
        self.accecn = true;
        self
    }

    /// Echo congestion as ns-2's `TcpSink` does: only on ACKs of ECN-capable segments.
    pub fn with_ns2_ecn(mut self) -> TcpReceiver {
        self.ece_only_on_ect = true;
        self
    }

    pub fn next_expected(&self) -> Seq {
        match &self.linux {
            None => self.rcv_nxt,
            Some(linux) => linux.next_expected(),
        }
    }

    pub fn delayed_ack_deadline(&self) -> Option<Time> {
        match &self.linux {
            None => self.delayed_ack_deadline,
            Some(linux) => linux.deadline(),
        }
    }

    /// A data segment as the engine delivers it: with its send time (the TSval, for
    /// Linux's timestamps), its timestamp echo and its CWR and PSH flags.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn receive_segment(
        &mut self,
        now: Time,
        seq: Seq,
        sent_at: Time,
        tsecr: u32,
        ecn_bits: u8,
        (cwr, psh): (bool, bool),
        ack_bytes: u32,
        out: &mut impl Outbox,
    ) -> u32 {
        if let Some(linux) = self.linux.as_deref_mut() {
            return linux.receive(now, seq, super::linux::ts_ms(sent_at), tsecr, ecn_bits, (cwr, psh), ack_bytes, out);
        }
        self.receive(now, seq, ecn_bits, cwr, ack_bytes, out)
    }

    /// A data segment arrived with the IP header's ECN bits `ecn_bits` and TCP's CWR flag:
    /// what it delivered and the ACK it called for, if any.
    pub fn on_segment(&mut self, now: Time, seq: Seq, ecn_bits: u8, cwr: bool) -> Receipt {
        let mut sent = Vec::new();
        let delivered = self.receive(now, seq, ecn_bits, cwr, 0, &mut sent);
        Receipt { delivered, ack: the_ack(sent) }
    }

    /// [`on_segment`](Self::on_segment) as the engine calls it: the ACK, if one is due,
    /// goes out as a packet of `ack_bytes` (plus its SACK blocks) through `out`; returns
    /// the segments delivered. Sending from here (not returning the ACK) lets the ACK be
    /// built straight into the packet that carries it.
    #[inline]
    pub fn receive(&mut self, now: Time, seq: Seq, ecn_bits: u8, cwr: bool, ack_bytes: u32, out: &mut impl Outbox) -> u32 {
        let mut immediate = seq != self.rcv_nxt || !self.held.is_empty() || seq < self.first_data;
        self.ce_count = self.ce_count.wrapping_add((ecn_bits & ecn::CE != 0) as u32);
        if self.accecn {
            // AccECN: the count on every ACK says it all; no ECE state.
        } else if self.dctcp {
            let ce = ecn_bits & ecn::CE != 0;
            if ce != self.echo_ce {
                // The delayed ACK, if any, goes now with the state of what it covers.
                if self.unacked_segments > 0 {
                    self.send_ack(None, ack_bytes, out);
                }
                self.echo_ce = ce;
                immediate = true;
            }
        } else {
            if cwr {
                self.echo_ce = false;
            }
            if ecn_bits & ecn::CE != 0 {
                self.echo_ce = true;
            }
        }
        self.ect_since_ack |= ecn_bits & ecn::ECT != 0;
        let before = self.rcv_nxt;
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
        self.send_ack(if seq > self.rcv_nxt { Some(seq) } else { None }, ack_bytes, out);
        delivered
    }

    /// The delayed-ACK timer fired at `now`: the ACK it sent, if any.
    pub fn on_delayed_ack_timer(&mut self, now: Time) -> Option<AckInfo> {
        let mut sent = Vec::new();
        self.fire_delayed_ack(now, 0, &mut sent);
        the_ack(sent)
    }

    /// [`on_delayed_ack_timer`](Self::on_delayed_ack_timer) as the engine calls it (see
    /// [`receive`](Self::receive)); whether an ACK went out.
    pub fn fire_delayed_ack(&mut self, now: Time, ack_bytes: u32, out: &mut impl Outbox) -> bool {
        if let Some(linux) = self.linux.as_deref_mut() {
            return linux.on_timer(now, ack_bytes, out);
        }
        match self.delayed_ack_deadline {
            Some(deadline) if deadline <= now && self.unacked_segments > 0 => {
                self.send_ack(None, ack_bytes, out);
                true
            }
            Some(deadline) if deadline <= now => {
                self.delayed_ack_deadline = None;
                false
            }
            _ => false,
        }
    }

    fn hold(&mut self, seq: Seq) {
        hold(&mut self.held, seq);
    }

    fn containing(&self, seq: Seq) -> Option<SackBlock> {
        // `held` is sorted and disjoint: the first range ending above seq holds it or lies above.
        let i = self.held.partition_point(|&(_, end)| end <= seq);
        self.held.get(i).copied().filter(|&(start, _)| start <= seq)
    }

    /// Send the ACK due now. Without held segments it carries no SACK blocks and is built
    /// in registers straight into the packet (each of the two paths sends its own: an ACK
    /// that both paths returned, or handed to one shared callback, went through the stack
    /// and stalled on the copy); the blocks are chosen apart.
    #[inline]
    fn send_ack(&mut self, newest: Option<Seq>, ack_bytes: u32, out: &mut impl Outbox) {
        self.unacked_segments = 0;
        self.delayed_ack_deadline = None;
        let ece = self.echo_ce && (self.ect_since_ack || !self.ece_only_on_ect);
        let ce_count = self.ce_count;
        self.ect_since_ack = false;
        if self.sack && !self.held.is_empty() {
            return out.send(ack_packet(AckInfo { ce_count, ..self.ack_with_sack_blocks(ece, newest) }, ack_bytes));
        }
        // Only the blocks of the last ACK are read later: none.
        self.reported.sack_count = 0;
        out.send(ack_packet(AckInfo { cumulative: self.rcv_nxt, ece, ce_count, ..Default::default() }, ack_bytes))
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
            if ack.sack_count as usize == MAX_SACK_BLOCKS {
                break; // (with thousands of holes, the rest would only be compared)
            }
            add(&mut ack, block);
        }
        self.reported = ack;
        ack
    }
}

/// An ACK as the packet that carries it: `ack_bytes` plus each SACK block's (ns-2
/// TCPSink/Sack1).
#[inline(always)]
fn ack_packet(ack: AckInfo, ack_bytes: u32) -> Outgoing {
    Outgoing { header: Header::TcpAck(ack), size: ack_bytes + SACK_BLOCK_BYTES * ack.sack_count as u32, ect: false, l4s: false }
}

/// The ACK among packets a receiver sent (it sends one at most per call).
fn the_ack(sent: Vec<Outgoing>) -> Option<AckInfo> {
    sent.into_iter().find_map(|out| match out.header {
        Header::TcpAck(ack) => Some(ack),
        _ => None,
    })
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

    /// AccECN (an L4S flow's receiver): every CE mark counted on the ACKs, also the
    /// marks of segments whose ACK was delayed; no classic ECE. A classic receiver counts
    /// too but echoes as RFC 3168 says.
    #[test]
    fn accecn_counts_every_ce_mark() {
        let mut rx = TcpReceiver::new(true, Some(100), 0).with_accecn();
        let ce = ecn::ECT | ecn::ECT1 | ecn::CE;
        assert!(rx.on_segment(0, 0, ce, false).ack.is_none());
        let ack = rx.on_segment(1, 1, ce, false).ack.unwrap();
        assert_eq!((ack.cumulative, ack.ce_count, ack.ece), (2, 2, false));
        assert!(rx.on_segment(2, 2, ecn::ECT | ecn::ECT1, false).ack.is_none());
        let ack = rx.on_segment(3, 3, ce, false).ack.unwrap();
        assert_eq!((ack.ce_count, ack.ece), (3, false));
        let mut classic = TcpReceiver::new(true, None, 0);
        let ack = classic.on_segment(0, 0, ecn::ECT | ecn::CE, false).ack.unwrap();
        assert_eq!((ack.ce_count, ack.ece), (1, true));
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
