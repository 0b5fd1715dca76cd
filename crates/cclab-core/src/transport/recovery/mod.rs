//! Loss recovery, apart from the sender's main path: each style is its own piece acting
//! on the sender's control block ([`Tcb`]), as ns-3's recovery ops act on its TCB.
//!
//! * [`sack`] — RFC 6675 SACK-based recovery (the default): IsLost, NextSeg, pipe.
//! * [`newreno`] — RFC 6582 NewReno, and ns-2's Newreno (`tcp.ns2.newreno_recovery`) as
//!   its parameters.
//! * [`sack1`] — ns-2.35 Sack1's recovery (`tcp.ns2.sack1_recovery`), which takes whole
//!   ACKs as `Sack1TcpAgent::recv` does.
//!
//! The first two share the sender's main path ([`RecoveryOps`]): the sender accounts for
//! each ACK and lets congestion control see it, counts duplicates, decides when fast
//! retransmit starts recovery (DupThresh, and `recover` after a timeout) and when an ACK
//! ends it (RecoveryPoint); the piece decides what the SACK blocks, a duplicate, a partial
//! ACK, the entry and the exit do, and what is sent. What they share beyond that is a
//! service of the control block (window-based sending, retransmission, the scoreboard's
//! marks, the window cut of fast retransmit, the end of recovery).
//!
//! Dispatch is static: [`LossRecovery`] is an enum matched once per ACK, and the main
//! path is compiled once per style, so no virtual call is on the per-ACK path.
pub mod newreno;
pub mod sack;
pub mod sack1;

use super::tcb::{Sacked, Tcb};
use super::{NewrenoAgent, Outbox, Recovery, SackBlock, Seq, TcpConfig};
use crate::cc::AckSample;
use crate::sim::Time;
use newreno::NewRenoRecovery;
use sack::SackRecovery;
use sack1::Sack1Recovery;

/// What a recovery style does in the sender's main path: ns-3's `TcpRecoveryOps` (enter,
/// do, exit), with SACK's scoreboard and the sending rule added. Hooks a style leaves out
/// do nothing.
pub(in crate::transport) trait RecoveryOps {
    /// An ACK's SACK blocks, before anything else: what they newly SACKed.
    #[inline]
    fn on_sack_blocks(&mut self, _tcb: &mut Tcb, _blocks: &[SackBlock]) -> Sacked {
        Sacked::default()
    }
    /// The cumulative ACK is about to pass [snd_una, `cumulative`).
    #[inline]
    fn on_cumulative(&mut self, _tcb: &Tcb, _cumulative: Seq) {}
    /// Fast retransmit: the sender has cut the window, set RecoveryPoint and restarted the
    /// timer ([`Tcb::enter_recovery`]); the piece resends.
    fn enter(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox);
    /// A duplicate ACK during recovery.
    #[inline]
    fn on_duplicate(&mut self, _tcb: &mut Tcb) {}
    /// Whether a partial ACK that covers the timed segment gives an RTT sample (ns-2's
    /// Newreno cancels the timing instead: `partialnewack`).
    #[inline]
    fn partial_ack_times_rtt(&self) -> bool {
        true
    }
    /// A partial ACK (below RecoveryPoint), accounted for; returns whether the
    /// retransmission timer restarts.
    #[inline]
    fn on_partial_ack(&mut self, _tcb: &mut Tcb, _now: Time, _sample: &AckSample, _out: &mut impl Outbox) -> bool {
        true
    }
    /// A full ACK ended recovery, after the sender set the window ([`Tcb::end_recovery`]).
    #[inline]
    fn on_exit(&mut self, _tcb: &mut Tcb, _sample: &AckSample) {}
    /// During recovery, an ACK SACKed new segments (after the sender acted on it).
    #[inline]
    fn on_sacked(&mut self, _tcb: &mut Tcb) {}
    /// Send what the window allows.
    fn send(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox);
    /// A retransmission timeout, after the sender's common rule: forget what recovery knew.
    #[inline]
    fn on_timeout(&mut self, _tcb: &mut Tcb) {}
}

/// A sender's loss recovery.
pub enum LossRecovery {
    /// RFC 6675 SACK recovery.
    Sack(SackRecovery),
    /// RFC 6582 NewReno, or ns-2's Newreno.
    NewReno(NewRenoRecovery),
    /// ns-2.35 Sack1's recovery (boxed: it is the ns-2 profile's, and larger).
    Sack1(Box<Sack1Recovery>),
    /// Linux's whole ACK processing (`profile = "linux"`, module
    /// [`crate::transport::linux::sender`]).
    Linux(Box<crate::transport::linux::sender::LinuxRecovery>),
}

impl LossRecovery {
    /// The recovery `cfg` asks for (`recovery`, and the ns-2 switches).
    pub fn new(cfg: &TcpConfig) -> LossRecovery {
        let rules = cfg.ns2_rules();
        match cfg.recovery {
            Recovery::Sack if rules.sack1_recovery => LossRecovery::Sack1(Box::default()),
            Recovery::Sack => LossRecovery::Sack(SackRecovery::default()),
            Recovery::Newreno => {
                LossRecovery::NewReno(NewRenoRecovery::new(rules.newreno_recovery.then_some(NewrenoAgent::Newreno)))
            }
        }
    }

    /// The ns-2 agent whose Tcl defaults ns-2's Newreno recovery follows; the agent when
    /// that recovery is this one's.
    pub fn set_newreno_agent(&mut self, agent: NewrenoAgent) -> Option<NewrenoAgent> {
        match self {
            LossRecovery::NewReno(newreno) => newreno.set_agent(agent),
            _ => None,
        }
    }

    /// Send what the window and the recovery allow.
    pub(in crate::transport) fn send(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        match self {
            LossRecovery::Sack(sack) => sack.send(tcb, now, out),
            LossRecovery::NewReno(newreno) => newreno.send(tcb, now, out),
            LossRecovery::Sack1(sack1) => sack1.send_much(tcb, now, out),
            LossRecovery::Linux(linux) => linux.send(tcb, now, out),
        }
    }

    /// After the sender's common timeout rule.
    pub(in crate::transport) fn on_timeout(&mut self, tcb: &mut Tcb) {
        match self {
            LossRecovery::Sack(sack) => sack.on_timeout(tcb),
            LossRecovery::NewReno(newreno) => newreno.on_timeout(tcb),
            LossRecovery::Sack1(sack1) => sack1.on_timeout(tcb),
            LossRecovery::Linux(_) => {}
        }
    }
}
