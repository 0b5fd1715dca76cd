//! One-way bulk TCP in the style of ns-2's agents (no connection set-up beyond ns-2's
//! SYN-like first packet): sender with SACK (RFC 6675) or NewReno (RFC 6582) loss
//! recovery, RFC 6298 retransmission timer, and a receiver with cumulative + SACK ACKs
//! and optional delayed ACKs.
pub mod config;
pub mod receiver;
pub mod rto;
pub mod sender;

pub use config::{Recovery, TcpConfig};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;

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
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub sack_count: u8,
    pub ece: bool,
}

impl AckInfo {
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_count as usize]
    }
}
