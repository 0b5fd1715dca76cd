//! Transports as sans-IO endpoints: each is told the time and the packets that reach it,
//! appends what it wants sent to an output vector, and exposes its next timer deadline.
//!
//! * TCP in the style of ns-2's one-way agents (no connection set-up beyond ns-2's
//!   SYN-like first packet): sender with SACK (RFC 6675) or NewReno (RFC 6582) loss
//!   recovery, RFC 6298 retransmission timer, and a receiver with cumulative + SACK ACKs
//!   and optional delayed ACKs.
//! * UDP: a source sending on an application's schedule, and a sink that counts.
//! * TFRC (RFC 5348): a rate-paced sender and a receiver that reports the loss event rate.
//!
//! [`Endpoint`] puts them behind one enum; the engine only moves packets and fires timers.
pub mod config;
pub mod endpoint;
pub mod held;
pub mod linux;
pub mod ns2;
pub mod pacing;
pub mod profile;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rto;
pub mod sender;
pub mod tcb;
pub mod tfrc;
pub mod udp;

pub use config::{Recovery, TcpConfig};
pub use ns2::Ns2Rules;
pub use profile::TcpProfile;
pub use recovery::newreno::NewrenoAgent;
pub use endpoint::{Endpoint, Outbox, Outgoing};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;
pub use tcb::{RttSums, SenderStats};
pub use udp::{UdpSink, UdpSource};

use crate::sim::Time;

/// Sequence numbers count segments (packets), as in ns-2.
pub type Seq = u32;

/// A SACK block: segments [start, end) held by the receiver above the cumulative ACK.
pub type SackBlock = (Seq, Seq);

pub const MAX_SACK_BLOCKS: usize = 3;

/// The fields of an ACK the sender acts on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckInfo {
    /// Next segment expected by the receiver (everything below has arrived).
    pub cumulative: Seq,
    /// SACK blocks; with the linux profile the first may be a D-SACK block (RFC 2883:
    /// below `cumulative`, or inside another block).
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub sack_count: u8,
    pub ece: bool,
    /// Accurate ECN (RFC 9768's r.cep, as Linux's AccECN counts it): CE-marked data
    /// segments the receiver has received so far, on every ACK (a plain 32-bit count, not
    /// the 3-bit ACE field and the option's byte counters). Only an L4S sender reads it
    /// ([`crate::cc::EcnUse::L4s`]); the classic echo is `ece`.
    pub ce_count: u32,
    /// RFC 7323 timestamps, in ms (linux profile only; 0 otherwise): the receiver's clock
    /// when it sent the ACK, and the echo of a data segment's TSval.
    pub tsval: u32,
    pub tsecr: u32,
}

impl AckInfo {
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_count as usize]
    }
}

/// What a packet carries for its endpoints; the network never looks inside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Header {
    /// A TCP data segment, or ns-2's SYN-like first packet (`syn`, no payload). `cwr`:
    /// Congestion Window Reduced (RFC 3168), tells the receiver to stop echoing ECE.
    /// `sent_at`: when it left the sender (for one-way delay statistics only).
    /// `tsecr`: RFC 7323's echo of the receiver's latest TSval, ms (linux profile only;
    /// the segment's own TSval is `sent_at` in ms). `psh`: PSH, which Linux sets on the
    /// last segment of every GSO packet of two or more (linux profile only).
    TcpData { seq: Seq, syn: bool, cwr: bool, psh: bool, sent_at: Time, tsecr: u32 },
    TcpAck(AckInfo),
    /// A UDP datagram: its number in the flow and when it left the source.
    Udp { seq: u32, sent_at: Time },
    /// A TFRC data packet and a TFRC receiver report.
    TfrcData(tfrc::TfrcData),
    TfrcFeedback(tfrc::Feedback),
}

/// How packet conservation counts a packet; usable as an index (counters are arrays
/// indexed by class, so counting takes no branch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketClass {
    /// Carries application data (TCP data segments, UDP datagrams).
    #[default]
    Data = 0,
    /// Acknowledgements and receiver feedback.
    Ack = 1,
    /// ns-2's SYN-like first packet: neither.
    Syn = 2,
}

impl PacketClass {
    pub const COUNT: usize = 3;
}

/// (The value of a packet slot no packet has filled yet.)
impl Default for Header {
    fn default() -> Header {
        Header::TcpData { seq: 0, syn: false, cwr: false, psh: false, sent_at: 0, tsecr: 0 }
    }
}

impl Header {
    #[inline]
    pub fn class(&self) -> PacketClass {
        match self {
            Header::TcpData { syn: true, .. } => PacketClass::Syn,
            Header::TcpData { .. } | Header::Udp { .. } | Header::TfrcData(_) => PacketClass::Data,
            Header::TcpAck(_) | Header::TfrcFeedback(_) => PacketClass::Ack,
        }
    }
}
