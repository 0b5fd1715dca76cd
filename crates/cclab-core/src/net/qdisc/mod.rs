//! Queue disciplines beyond DropTail and RED, in two kinds:
//!
//! - decided at admission (enqueue), like RED: `step_mark` (DCTCP's switch) and PIE
//!   ([`pie`]). They keep the link's FIFO fast path: a packet's transmission times are
//!   still known when it is admitted.
//! - decided at dequeue: CoDel ([`codel`]) and FQ-CoDel ([`fq_codel`]). A link with one
//!   holds its waiting packets in the discipline; the transmitter takes the next when it
//!   is free (a transmit-complete event), so a drop at dequeue or another flow's turn
//!   changes when the packets behind go.
//!
//! Every kind answers the same questions: what becomes of an arriving packet (admit,
//! mark, drop: [`Verdict`]), which packet goes next ([`Dequeued`]), and when it next
//! needs the clock.
pub mod codel;
pub mod fq_codel;
pub mod pie;

/// What an admission-time discipline decides for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Admit,
    /// Admit with Congestion Experienced set (the packet is ECN-capable).
    Mark,
    Drop,
}

/// A packet as a dequeue-time discipline sees it.
pub trait QueueItem: Copy {
    /// Bytes on the wire.
    fn bytes(&self) -> u32;
    /// The flow it belongs to (FQ-CoDel's hash key).
    fn flow_key(&self) -> u32;
    /// ECN-capable: may be marked instead of dropped.
    fn ect(&self) -> bool;
}

/// The packet a dequeue-time discipline sends next, and whether to mark it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequeued<P> {
    pub packet: P,
    pub mark_ce: bool,
}

/// DCTCP's marking switch (RFC 8257 §3.1): an ECN-capable packet arriving when more than
/// `threshold` packets are queued (the one being sent included) is marked; nothing is
/// dropped but by the buffer's limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepMark {
    pub threshold: u32,
}

impl StepMark {
    pub fn judge(&self, queued: u32, ect: bool) -> Verdict {
        if ect && queued > self.threshold {
            Verdict::Mark
        } else {
            Verdict::Admit
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A test packet: (flow, bytes, ECT).
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Item {
        flow: u32,
        bytes: u32,
        ect: bool,
    }

    impl Item {
        pub fn new(flow: u32, bytes: u32, ect: bool) -> Item {
            Item { flow, bytes, ect }
        }
    }

    impl QueueItem for Item {
        fn bytes(&self) -> u32 {
            self.bytes
        }
        fn flow_key(&self) -> u32 {
            self.flow
        }
        fn ect(&self) -> bool {
            self.ect
        }
    }

    #[test]
    fn step_mark_marks_ect_above_the_threshold_only() {
        let step = StepMark { threshold: 20 };
        assert_eq!(step.judge(20, true), Verdict::Admit);
        assert_eq!(step.judge(21, true), Verdict::Mark);
        assert_eq!(step.judge(100, false), Verdict::Admit);
    }
}
