//! Loss recovery, apart from the sender's main path: each style is its own piece acting
//! on the sender's control block ([`Tcb`](super::sender::Tcb)), as ns-3's recovery ops act
//! on its TCB.
//!
//! * [`sack1`] — ns-2.35 Sack1's recovery (`tcp.ns2.sack1_recovery`): it takes whole
//!   ACKs, as `Sack1TcpAgent::recv` does.
//!
//! Dispatch is static: [`LossRecovery`] is an enum, so no virtual call is on the per-ACK
//! path.
pub mod sack1;

use super::TcpConfig;
use sack1::Sack1Recovery;

/// A sender's loss recovery.
pub enum LossRecovery {
    /// RFC 6675 SACK recovery or RFC 6582 NewReno, in the sender's main path.
    Rfc,
    /// ns-2.35 Sack1's recovery (boxed: the ns-2 profile's, and larger than the others).
    Sack1(Box<Sack1Recovery>),
}

impl LossRecovery {
    pub fn new(cfg: &TcpConfig) -> LossRecovery {
        if cfg.ns2_rules().sack1_recovery {
            LossRecovery::Sack1(Box::default())
        } else {
            LossRecovery::Rfc
        }
    }
}
