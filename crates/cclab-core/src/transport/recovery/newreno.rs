//! RFC 6582 NewReno loss recovery (`recovery = "newreno"`: the receiver sends no SACK
//! blocks), and ns-2.35's Newreno recovery as its parameters (`tcp.ns2.newreno_recovery`:
//! tcp-newreno.cc `recv`, `dupack_action`, `partialnewack`; tcp-reno.cc `window`; tcp.cc
//! `recv_newack_helper`, `send_much`).
//!
//! RFC 6582 §3.2 on RFC 5681 §3.2's fast retransmit and fast recovery: the third
//! duplicate (past `recover` after a timeout: the sender checks) resends the first
//! unacknowledged segment and inflates cwnd by DupThresh, each further duplicate by one;
//! a partial ACK (below recover) resends the next hole and deflates by what it
//! acknowledged, adding back one (step 3); the full ACK sets cwnd = ssthresh (step 3: the
//! sender's end of recovery). The window is what is sent: segments
//! [snd_una, snd_una + ⌊cwnd⌋).
//!
//! ns-2's Newreno keeps the inflation apart from cwnd (`dupwnd_`), so the window a cut
//! left is what remains when recovery ends, and the ACK that ends it opens the window as
//! any new ACK does; while duplicates last at most two new segments go out per ACK
//! (`send_much(0, 0, 2)`); no fast retransmit until the cumulative ACK passes the point
//! the last one recovered to (`bug_fix_`, RFC 2582's careful variant); after a timeout
//! duplicates are counted (`exitFastRetrans_`), not ignored as Sack1 ignores them. Its
//! entry inflation, partial deflation and timer restarts are the agent's Tcl defaults
//! ([`NewrenoAgent`]).
use super::RecoveryOps;
use crate::cc::{AckSample, CongestionControl};
use crate::sim::Time;
use crate::transport::tcb::Tcb;
use crate::transport::Outbox;

/// Whose Tcl defaults set `newreno_recovery`'s parameters: the congestion control
/// declares it ([`crate::cc::Algorithm::ns2_agent`]); the rules each agent's defaults
/// make are the transport's, here.
pub use crate::cc::Ns2Agent as NewrenoAgent;

impl NewrenoAgent {
    /// `dupwnd_` at the third duplicate ACK.
    pub fn entry_inflation(self, dupack_threshold: u32) -> u32 {
        match self {
            NewrenoAgent::Newreno => dupack_threshold,
            NewrenoAgent::WestwoodNr => 0,
        }
    }
    /// `partial_window_deflation_`.
    pub fn partial_window_deflation(self) -> bool {
        self == NewrenoAgent::Newreno
    }
    /// `newreno_changes1_`: the timer restarts at the first partial ACK of a recovery only.
    pub fn impatient(self) -> bool {
        self == NewrenoAgent::Newreno
    }
    /// `recover` at the start (cclab's: fast retransmit once the cumulative ACK passes
    /// it; ns-2's `recover_` is one less, in its "highest ACKed" numbering). Both agents
    /// start from `recover_ = 0` and fast-retransmit only when `highest_ack_ > recover_`;
    /// Newreno's `dupack_action` also when `highest_ack_ == 0` (`bugfix_ss_`: the SYN,
    /// seqno 0, ACKed and the first data packet lost), which UCLA's WestwoodNR lacks: it
    /// waits for the timeout when its first data packet is lost.
    pub fn initial_recover(self) -> crate::transport::Seq {
        match self {
            NewrenoAgent::Newreno => 0,
            NewrenoAgent::WestwoodNr => 1,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct NewRenoRecovery {
    /// ns-2's Newreno recovery, with that agent's parameters; None: RFC 6582.
    ns2: Option<NewrenoAgent>,
    /// With ns-2's recovery: the inflation by duplicate ACKs, apart from cwnd (ns-2
    /// `dupwnd_`), and whether this recovery has had a partial ACK (`firstpartial_`).
    dupwnd: u32,
    had_partial_ack: bool,
}

impl NewRenoRecovery {
    pub fn new(ns2: Option<NewrenoAgent>) -> NewRenoRecovery {
        NewRenoRecovery { ns2, ..Default::default() }
    }

    /// The ns-2 agent whose parameters ns-2's recovery takes (RFC 6582 has none); the
    /// agent when it applies.
    pub fn set_agent(&mut self, agent: NewrenoAgent) -> Option<NewrenoAgent> {
        if let Some(ns2) = self.ns2.as_mut() {
            *ns2 = agent;
        }
        self.ns2
    }

    /// ns-2's inflation `dupwnd_` (0 with RFC 6582, whose inflation is in cwnd).
    pub fn dupwnd(&self) -> u32 {
        self.dupwnd
    }

    /// ns-2 Newreno's partial ACK (`partialnewack`): with `partial_window_deflation_` the
    /// window shrinks by what the ACK acknowledged but one, from the inflation first
    /// (leaving at least 1 there); without, the inflation goes. ns-2 keeps `dupacks_`, so
    /// the burst limit of recovery holds on.
    fn partial_ack_ns2(&mut self, tcb: &mut Tcb, agent: NewrenoAgent, acked: u32) {
        if agent.partial_window_deflation() {
            if self.dupwnd > acked {
                self.dupwnd -= acked - 1;
            } else {
                tcb.window.cwnd = (tcb.window.cwnd - (acked - self.dupwnd) as f64).max(1.0);
                self.dupwnd = 1;
            }
        } else {
            self.dupwnd = 0;
        }
        tcb.dupacks = tcb.cfg.dupack_threshold;
    }
}

impl RecoveryOps for NewRenoRecovery {
    /// RFC 5681 §3.2 step 3: inflate by DupThresh (ns-2: `dupwnd_` as the agent sets
    /// it), and resend the first unacknowledged segment.
    fn enter(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        match self.ns2 {
            Some(agent) => {
                self.dupwnd = agent.entry_inflation(tcb.cfg.dupack_threshold);
                self.had_partial_ack = false;
                // RFC 2582's careful variant: duplicates at this recovery's end are no new loss.
                tcb.recover = Some(tcb.recovery_point);
                // ns-2's dupack_action: reset_rtx_timer(1, 0) also stops RTT timing
                // (rtt_active_ = 0), so no sample spans the recovery.
                tcb.rtt_probe = None;
            }
            None => tcb.window.cwnd += tcb.cfg.dupack_threshold as f64,
        }
        let seq = tcb.snd_una;
        tcb.retransmit(now, seq, false, out);
    }

    /// ns-2's `partialnewack`: `rtt_active_ = 0` when the ACK covers the timed segment,
    /// without `rtt_update` (RFC 6582 says nothing: the RTT sample stays).
    fn partial_ack_times_rtt(&self) -> bool {
        self.ns2.is_none()
    }

    /// RFC 6582 step 4: inflate per duplicate
    fn on_duplicate(&mut self, tcb: &mut Tcb) {
        if self.ns2.is_some() {
            self.dupwnd += 1;
        } else {
            tcb.window.cwnd += 1.0;
        }
    }

    /// RFC 6582 §3.2 step 3 (partial ACK): retransmit, deflate, add back one.
    fn on_partial_ack(&mut self, tcb: &mut Tcb, now: Time, sample: &AckSample, out: &mut impl Outbox) -> bool {
        let seq = tcb.snd_una;
        tcb.retransmit(now, seq, false, out);
        match self.ns2 {
            Some(agent) => {
                self.partial_ack_ns2(tcb, agent, sample.segments_acked);
                // `newreno_changes1_`: the timer runs on from the first partial ACK
                let first = !std::mem::replace(&mut self.had_partial_ack, true);
                first || !agent.impatient()
            }
            None => {
                tcb.window.cwnd = (tcb.window.cwnd - sample.segments_acked as f64 + 1.0).max(1.0);
                true
            }
        }
    }

    fn on_exit(&mut self, tcb: &mut Tcb, sample: &AckSample) {
        self.dupwnd = 0;
        self.had_partial_ack = false;
        if self.ns2.is_some() {
            // ns-2 `recv_newack_helper`: the ACK ending recovery opens the window.
            tcb.cc.on_ack(&mut tcb.window, sample);
        }
    }

    /// The window, with ns-2's inflation dupwnd_ on ⌊cwnd⌋ and its two segments per ACK
    /// while duplicates last.
    fn send(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        let two_per_ack = self.ns2.is_some() && tcb.dupacks >= tcb.cfg.dupack_threshold;
        tcb.send_window(now, self.dupwnd, two_per_ack, out);
    }

    /// ns-2's Newreno counts duplicates after a timeout (Sack1 ignores them: `go_back_n`).
    fn on_timeout(&mut self, tcb: &mut Tcb) {
        self.dupwnd = 0;
        if self.ns2.is_some() {
            tcb.ignoring_dupacks = false;
        }
    }
}
