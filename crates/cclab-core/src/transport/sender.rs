//! The TCP data sender: windows in segments (fractional cwnd), slow start and congestion
//! avoidance through the [`CongestionControl`](crate::cc::CongestionControl) trait, fast
//! retransmit, SACK-based loss recovery (RFC 6675) or NewReno (RFC 6582), and the RFC
//! 6298 timer with Karn's rule; with `tcp.profile = "ns2"` ns-2.35 Sack1's behaviours
//! instead, each switchable (module [`super::ns2`]).
//!
//! The sender is its control block ([`Tcb`], module [`super::tcb`]: what every recovery
//! style shares — the sequence space and its scoreboard, the window, the RTO timer, the
//! rate sampler, the pacer, ECN) and its loss recovery ([`LossRecovery`], module [`super::recovery`]:
//! RFC 6675 SACK, RFC 6582 NewReno with ns-2's Newreno as a variant, ns-2's Sack1),
//! which acts on the control block as ns-3's recovery ops act on its TCB. The main path
//! ([`TcpSender::on_ack`], [`TcpSender::on_timer`], `try_send`) accounts for an ACK, lets
//! congestion control see it, hands what a duplicate, a partial ACK or the start and end
//! of recovery do to the recovery piece, and sends what the piece allows.
//!
//! The sender is sans-IO: it is told the time, appends the segments it wants sent to an
//! output vector, and exposes the deadline of its retransmission timer.
use super::recovery::{LossRecovery, RecoveryOps};
use super::rto::RtoEstimator;
use super::tcb::{SenderStats, Tcb};
use super::{AckInfo, NewrenoAgent, Outbox, TcpConfig};
use crate::app::TcpApplication;
use crate::cc::{Controller, Window};
use crate::sim::Time;

/// A TCP data sender: its loss recovery and its control block.
///
/// Laid out in the order an ACK reads it (`repr(C)`, so the compiler keeps it): the
/// recovery style's own state (a few words), then the control block's.
#[repr(C)]
pub struct TcpSender {
    recovery: LossRecovery,
    tcb: Tcb,
}

impl TcpSender {
    /// A sender whose application starts at `start_at`; segments carry `data_bytes` on
    /// the wire, the SYN-like first packet `syn_bytes`.
    pub fn new(cfg: TcpConfig, cc: Controller, start_at: Time, data_bytes: u32, syn_bytes: u32) -> TcpSender {
        TcpSender { recovery: LossRecovery::new(&cfg), tcb: Tcb::new(cfg, cc, start_at, data_bytes, syn_bytes) }
    }

    /// ns-2's clock for this agent (`tick_clock`): its offset from the RTT clock's tick
    /// boundaries (ns-2 draws `boot_time_` uniformly within a tick), and the stream that
    /// rounds its timer expiries (see `timer_rounding`).
    pub fn set_ns2_clock(&mut self, mut rng: crate::sim::rng::RngStream) {
        use rand::Rng;
        let tcb = &mut self.tcb;
        let boot_time = rng.gen_range(0..tcb.cfg.granularity().ns().max(1));
        tcb.rto = RtoEstimator::new(&tcb.cfg, boot_time);
        tcb.timer_rounding = Some(Box::new(rng));
    }

    /// Follow Linux's rules (`profile = "linux"`): Linux's ACK processing, recovery,
    /// timers and sending (module [`super::linux::sender`]); segments carry `mss_bytes`
    /// of payload.
    pub fn use_linux_rules(&mut self, mss_bytes: u32) {
        let linux = super::linux::sender::LinuxRecovery::new(&mut self.tcb, mss_bytes);
        self.recovery = LossRecovery::Linux(Box::new(linux));
    }

    /// The ns-2 agent whose Tcl defaults `newreno_recovery` follows.
    pub fn set_newreno_agent(&mut self, agent: NewrenoAgent) {
        if let Some(agent) = self.recovery.set_newreno_agent(agent) {
            self.tcb.recover = Some(agent.initial_recover());
        }
    }

    /// The application offers no new data from `at` on; outstanding losses are still
    /// repaired (as a stopped ns-2 FTP source). Kept as a time, not an event, so the
    /// sender stays a function of its own inputs.
    pub fn stop_application_at(&mut self, at: Time) {
        self.tcb.stop_at = Some(at);
    }

    /// A finite application: it writes `segments` data segments and no more (the flow
    /// ends when they are all acknowledged).
    pub fn set_flow_segments(&mut self, segments: u32) {
        self.tcb.data_end = self.tcb.first_data.saturating_add(segments);
    }

    pub fn set_application(&mut self, app: TcpApplication) {
        self.tcb.app = app;
    }

    /// The sender's next timer: its start, retransmission or application wake-up.
    pub fn timer_deadline(&self) -> Option<Time> {
        let tcb = &self.tcb;
        if !tcb.started {
            return Some(tcb.start_at);
        }
        let deadline = match (tcb.rto_deadline, tcb.app_wakeup) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match tcb.pacer.as_ref().and_then(|pacer| pacer.wakeup) {
            Some(pace) => Some(deadline.map_or(pace, |d| d.min(pace))),
            None => deadline,
        }
    }

    pub fn window(&self) -> &Window {
        &self.tcb.window
    }
    pub fn stats(&self) -> &SenderStats {
        &self.tcb.stats
    }
    pub fn cc(&self) -> &Controller {
        &self.tcb.cc
    }
    pub fn controller_mut(&mut self) -> &mut Controller {
        &mut self.tcb.cc
    }
    /// An agent's controller with the window it sets (`cc = { algorithm = "agent" }`).
    pub fn agent_and_window(&mut self) -> Option<(&mut crate::cc::agent::Agent, &mut Window)> {
        match &mut self.tcb.cc {
            Controller::Agent(agent) => Some((agent, &mut self.tcb.window)),
            _ => None,
        }
    }
    /// Segments delivered so far, as the ACKs reported them (cumulatively or by SACK).
    pub fn delivered(&self) -> u64 {
        self.tcb.delivered
    }
    pub fn srtt_ns(&self) -> Option<f64> {
        self.tcb.rto.srtt()
    }
    pub fn last_rtt(&self) -> Option<Time> {
        self.tcb.last_rtt
    }
    /// The linux profile's recovery state (None for the other profiles).
    pub fn linux_state(&self) -> Option<crate::cc::CaState> {
        match &self.recovery {
            LossRecovery::Linux(linux) => Some(linux.state()),
            _ => None,
        }
    }
    pub fn in_recovery(&self) -> bool {
        self.tcb.in_recovery
    }
    /// Data segments acknowledged cumulatively (the SYN excluded).
    pub fn acked_segments(&self) -> u64 {
        self.tcb.snd_una.saturating_sub(self.tcb.first_data) as u64
    }
    pub fn outstanding(&self) -> u32 {
        self.tcb.outstanding()
    }
    /// RFC 6675 pipe: segments believed to be in the network.
    pub fn pipe(&self) -> u32 {
        self.tcb.pipe()
    }

    pub fn on_ack(&mut self, now: Time, ack: &AckInfo, out: &mut impl Outbox) {
        let TcpSender { recovery, tcb } = self;
        if ack.cumulative < tcb.snd_una || ack.cumulative > tcb.snd_max {
            return; // stale or corrupt
        }
        let accecn;
        let ack = if tcb.cfg.l4s {
            // AccECN: the marks this ACK newly reports; an ACK with any stands for
            // ECN-Echo in the sender's once-per-window reduction.
            tcb.ce_delta = ack.ce_count.wrapping_sub(tcb.ce_count);
            tcb.ce_count = ack.ce_count;
            accecn = AckInfo { ece: tcb.ce_delta > 0, ..*ack };
            &accecn
        } else {
            ack
        };
        match recovery {
            LossRecovery::Sack(sack) => Self::on_ack_with(tcb, sack, now, ack, out),
            LossRecovery::NewReno(newreno) => Self::on_ack_with(tcb, newreno, now, ack, out),
            LossRecovery::Sack1(sack1) => {
                sack1.on_ack(tcb, now, ack, out); // ns-2's Sack1 takes the whole ACK, and sends
                tcb.update_app_wakeup(now);
            }
            LossRecovery::Linux(linux) => {
                linux.on_ack(tcb, now, ack, out); // so does Linux's
                tcb.update_app_wakeup(now);
            }
        }
    }

    /// The main path of an ACK (RFC 5681 with RFC 6675 or RFC 6582 recovery, and ns-2's
    /// timeout and ECN rules where those are switched on): account for it and let
    /// congestion control see it, hand what a partial ACK, a duplicate or the start of
    /// recovery does to `recovery`, send. (One copy per recovery style: no dispatch inside.)
    fn on_ack_with<R: RecoveryOps>(tcb: &mut Tcb, recovery: &mut R, now: Time, ack: &AckInfo, out: &mut impl Outbox) {
        let advances = ack.cumulative > tcb.snd_una;
        if tcb.ignoring_dupacks && !advances {
            return; // ns-2 after a timeout: duplicates and their SACK blocks are ignored
        }
        tcb.ignoring_dupacks = false;
        // The SACK blocks onto the scoreboard (SACK recovery's: none with NewReno).
        let sacked = recovery.on_sack_blocks(tcb, ack.sack_blocks());
        if advances {
            recovery.on_cumulative(tcb, ack.cumulative);
            if !tcb.in_recovery {
                // Account for it, congestion control's every-ACK hook and increase, the timer.
                tcb.new_ack(now, ack, 0, sacked, true);
            } else {
                // Account for it (congestion control's every-ACK hook), then the recovery's
                // exit at a full ACK (RecoveryPoint reached) or its partial-ACK rule.
                let mut sample = tcb.sample(now, ack, sacked.newly);
                if ack.cumulative < tcb.recovery_point && !recovery.partial_ack_times_rtt() {
                    if matches!(tcb.rtt_probe, Some((probe, _)) if ack.cumulative > probe) {
                        tcb.rtt_probe = None;
                    }
                }
                tcb.advance_and_report(now, ack, 0, sacked, &mut sample);
                tcb.dupacks = 0;
                let restart_timer = if ack.cumulative >= tcb.recovery_point {
                    tcb.in_recovery = false;
                    tcb.end_recovery(now);
                    recovery.on_exit(tcb, &sample);
                    true
                } else {
                    recovery.on_partial_ack(tcb, now, &sample, out)
                };
                if restart_timer {
                    tcb.restart_or_stop_timer(now);
                }
            }
        } else if tcb.snd_una < tcb.snd_max {
            // A duplicate: congestion control sees it; during recovery the recovery's rule,
            // else fast retransmit at DupThresh (RFC 5681 §3.2; after a timeout only once the
            // cumulative ACK passes `recover`, RFC 6582 §3.2 step 1).
            tcb.report_duplicate(now, ack, sacked);
            tcb.dupacks += 1;
            if tcb.in_recovery {
                recovery.on_duplicate(tcb);
            } else if tcb.dupacks == tcb.cfg.dupack_threshold
                && tcb.recover.map_or(true, |recover| ack.cumulative > recover)
            {
                tcb.enter_recovery(now);
                recovery.enter(tcb, now, out);
            }
        }

        if tcb.cfg.ecn && ack.ece && !tcb.in_recovery && tcb.snd_una > tcb.ecn_recover {
            // RFC 3168 §6.1.2: react to ECE at most once per window of data.
            tcb.ecn_reduction(now);
        }
        if tcb.in_recovery && sacked.newly > 0 {
            recovery.on_sacked(tcb); // SACK: IsLost() may hold for more segments now
        }
        // Send what the window and the recovery allow.
        if tcb.started {
            recovery.send(tcb, now, out);
            tcb.update_app_wakeup(now);
        }
    }

    /// Send at `now` what the window, the recovery and the application allow: after the
    /// window was changed from outside the sender's own calls (an agent's action).
    pub fn send_now(&mut self, now: Time, out: &mut impl Outbox) {
        self.try_send(now, out);
    }

    /// Send whatever the window, the recovery and the application allow.
    fn try_send(&mut self, now: Time, out: &mut impl Outbox) {
        let TcpSender { recovery, tcb } = self;
        if tcb.started {
            recovery.send(tcb, now, out);
            tcb.update_app_wakeup(now);
        }
    }

    /// A timer may have expired at `now` (the engine's timer events can be stale: the
    /// deadlines decide). Returns whether one did.
    pub fn on_timer(&mut self, now: Time, out: &mut impl Outbox) -> bool {
        let tcb = &mut self.tcb;
        if !tcb.started {
            if now < tcb.start_at {
                return false;
            }
            tcb.started = true;
            tcb.started_at = now;
            self.try_send(now, out);
            return true;
        }
        let mut app_due = tcb.app_wakeup.is_some_and(|t| t <= now);
        if app_due {
            tcb.app_wakeup = None;
        }
        if let Some(pacer) = tcb.pacer.as_mut() {
            if pacer.wakeup.is_some_and(|t| t <= now) {
                pacer.wakeup = None;
                app_due = true;
            }
        }
        if !tcb.rto_deadline.is_some_and(|t| t <= now) {
            if app_due {
                self.try_send(now, out);
            }
            return app_due;
        }
        if let LossRecovery::Linux(linux) = &mut self.recovery {
            linux.on_timer(tcb, now, out); // one slot: RTO, RACK's or the loss probe's
            tcb.update_app_wakeup(now);
            return true;
        }
        tcb.stats.timeouts += 1;
        tcb.timeout(now);
        self.recovery.on_timeout(tcb);
        self.try_send(now, out);
        self.tcb.restart_timer(now);
        true
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
