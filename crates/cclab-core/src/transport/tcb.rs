//! The TCP sender's control block ([`Tcb`]): what every loss-recovery style shares — the
//! sequence space and the per-segment scoreboard, the window, the RTO timer (RFC 6298,
//! Karn's rule), the rate sampler, the pacer, ECN (RFC 3168, and ns-2's rules where they
//! are switched on) — with the services the sender's main path ([`super::sender`]) and the
//! recovery pieces ([`super::recovery`]) use: sending (new data, retransmissions, the
//! window), accounting for an ACK (RTT, snd_una, delivered, congestion control's hooks),
//! the window cuts, and the start and end of recovery.
use super::pacing::Pacer;
use super::rate::RateSampler;
use super::rto::RtoEstimator;
use super::{AckInfo, Header, Ns2Rules, Outbox, Outgoing, Seq, TcpConfig};
use crate::app::TcpApplication;
use crate::cc::{AckSample, CongestionControl, CongestionEvent, CongestionSignal, Controller, Window};
use crate::sim::Time;
use std::collections::VecDeque;

/// What a sender did, counted as it goes (the flow's row in results).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Data segments put on the wire, retransmissions included (SYN excluded).
    pub data_packets_sent: u64,
    pub retransmitted_packets: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    pub rtt: RttSums,
}

/// Sums for mean RTT and RTO, sampled at each RTO-estimator update.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RttSums {
    pub samples: u64,
    pub rtt_ns: f64,
    pub rto_ns: f64,
}

/// cwnd after a retransmission timeout (RFC 5681 §3.1 "loss window").
const LOSS_WINDOW: f64 = 1.0;
// A segment's flags. SACKED, LOST and RETX_IN_FLIGHT are SACK recovery's scoreboard
// (`recovery::sack` sets them through the Tcb, which keeps their counts for pipe).
/// Held by the receiver above the cumulative ACK (an ACK's SACK blocks said so).
pub(super) const SACKED: u8 = 1;
/// RFC 6675 IsLost() holds (DupThresh segments SACKed above), or marked by fast retransmit.
pub(super) const LOST: u8 = 2;
/// Sent more than once: its ACK gives no RTT sample (Karn).
pub(super) const RETRANSMITTED: u8 = 4;
/// Retransmitted during this recovery and neither ACKed nor SACKed since: counts in pipe.
pub(super) const RETX_IN_FLIGHT: u8 = 8;
/// Counted in `delivered` (when first SACKed); kept when a timeout forgets SACK
/// information, so a segment SACKed again, or ACKed, is not delivered twice.
const DELIVERED: u8 = 16;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SegmentState {
    pub(super) sent_at: Time,
    pub(super) flags: u8,
}

/// What an ACK's SACK blocks newly told the sender: segments SACKed for the first time
/// since the last timeout forgot SACK information, and how many of those had been SACKed
/// (so delivered) before it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sacked {
    pub newly: u32,
    pub resacked: u32,
}

impl Sacked {
    /// `newly` segments SACKed, none of them delivered before.
    pub fn fresh(newly: u32) -> Sacked {
        Sacked { newly, resacked: 0 }
    }
}

/// The sender's control block: the sequence space and its per-segment state, the window,
/// the RTO timer, the rate sampler and pacer, ECN, and the state of fast retransmit that
/// the recovery styles share (duplicate count, in recovery, RecoveryPoint); with the
/// services they use (sending, retransmitting, accounting for an ACK, cutting the window,
/// marking the scoreboard).
///
/// Laid out in the order an ACK reads it (`repr(C)`, so the compiler keeps it): the
/// sequence and recovery state, counters and flags first, then the configuration and
/// the controller (of which one algorithm's first lines are live), and what only some
/// senders use last. With thousands of flows a sender is rarely in cache when its ACK
/// comes, so the fewer lines an ACK touches, the fewer misses.
#[repr(C)]
pub(super) struct Tcb {
    pub(super) window: Window,
    pub(super) snd_una: Seq,
    pub(super) snd_nxt: Seq,
    pub(super) snd_max: Seq,
    /// First data sequence number (1 when a SYN occupies 0).
    pub(super) first_data: Seq,
    /// Per-segment state for [snd_una, snd_max).
    pub(super) board: VecDeque<SegmentState>,
    pub(super) rto_deadline: Option<Time>,
    /// The segment timed for the RTO estimator, one per RTT as ns-2 does (`rtt_seq_`).
    pub(super) rtt_probe: Option<(Seq, Time)>,
    pub(super) delivered: u64,
    pub(super) last_rtt: Option<Time>,
    /// When a CBR application will next have a segment ready (the sender is idle for
    /// want of data until then).
    pub(super) app_wakeup: Option<Time>,
    /// The application stops offering new data at this time (losses are still repaired).
    pub(super) stop_at: Option<Time>,
    /// One past the last segment a finite application writes (`app = { kind = "bulk",
    /// size }`); Seq::MAX for an application that never runs out.
    pub(super) data_end: Seq,
    pub(super) round_end: Seq,
    /// Segments flagged SACKED, LOST and RETX_IN_FLIGHT (RFC 6675 SetPipe's terms): 0
    /// but with SACK recovery.
    sacked: u32,
    lost: u32,
    retx_in_flight: u32,
    /// RFC 6675 RecoveryPoint / RFC 6582 recover, as one past the highest segment sent.
    pub(super) recovery_point: Seq,
    /// No fast retransmit until the cumulative ACK passes this (ns-2 `recover_` with
    /// `bug_fix_`): set at a timeout, and with `newreno_recovery` at a fast retransmit.
    pub(super) recover: Option<Seq>,
    pub(super) dupacks: u32,
    /// Bytes on the wire of a data segment and of the SYN-like first packet.
    pub(super) data_bytes: u32,
    pub(super) started: bool,
    pub(super) in_recovery: bool,
    /// After a timeout with `go_back_n`: duplicate ACKs are ignored until a new ACK
    /// (ns-2 `timeout_`).
    pub(super) ignoring_dupacks: bool,
    pub(super) pending_cwr: bool,
    /// With `ns2.ecn`: an ACK has carried ECN-Echo (ns-2 `ect_`), and the last ECN
    /// reaction found cwnd ≤ 1 (`ecn_backoff_`).
    pub(super) seen_ece: bool,
    pub(super) ecn_backoff: bool,
    /// Which ns-2 behaviours this sender follows (all false by default).
    pub(super) rules: Ns2Rules,
    /// The algorithm sets the window from its own model (BBR): recovery's end leaves it.
    pub(super) model_window: bool,
    pub(super) stats: SenderStats,
    pub(super) rto: RtoEstimator,
    pub(super) app: TcpApplication,
    pub(super) cfg: TcpConfig,
    pub(super) cc: Controller,
    /// When the application starts (the sender's first deadline).
    pub(super) start_at: Time,
    pub(super) started_at: Time,
    pub(super) reductions: u64,
    pub(super) ecn_recover: Seq,
    /// An L4S sender's AccECN state: the receiver's CE count on the last ACK, and how
    /// many segments the current ACK newly reports marked.
    pub(super) ce_count: u32,
    pub(super) ce_delta: u32,
    pub(super) syn_bytes: u32,
    /// With `tick_clock`: ns-2's clock is a double, so a timer due at the same instant as
    /// another event in exact arithmetic fires just before or just after it as rounding
    /// falls. This stream moves each timer expiry by ±1 ns, a coin flip per arming.
    pub(super) timer_rounding: Option<Box<crate::sim::rng::RngStream>>,
    /// Delivery-rate sampling and pacing, for the algorithms that use them.
    pub(super) rate: Option<Box<RateSampler>>,
    pub(super) pacer: Option<Box<Pacer>>,
    /// RFC 7323 TS.Recent: the receiver's TSval to echo in data segments (linux profile;
    /// 0 otherwise).
    pub(super) ts_recent: u32,
    /// SACK recovery: the last ranges of segments it marked SACKed whole (most recent
    /// first), one per block an ACK carries and one more (a receiver reports its blocks again and again, growing:
    /// their marked parts are skipped, not looked at segment by segment). Only a timeout unmarks segments, and it forgets these (last in the
    /// block: read only when an ACK carries SACK blocks).
    pub(super) sacked_ranges: [(Seq, Seq); super::MAX_SACK_BLOCKS + 1],
}

impl Tcb {
    pub(super) fn new(cfg: TcpConfig, cc: Controller, start_at: Time, data_bytes: u32, syn_bytes: u32) -> Tcb {
        let first_data = if cfg.syn { 1 } else { 0 };
        let rate = cc.wants_rate_samples().then(Box::default);
        let pacer = cc.paces().then(Box::default);
        Tcb {
            window: Window { cwnd: cfg.initial_window(), ssthresh: cfg.initial_ssthresh },
            rto: RtoEstimator::new(&cfg, 0),
            rules: cfg.ns2_rules(),
            model_window: cc.controls_window(),
            cfg,
            cc,
            first_data,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            board: VecDeque::new(),
            sacked: 0,
            lost: 0,
            retx_in_flight: 0,
            in_recovery: false,
            recovery_point: 0,
            recover: None,
            dupacks: 0,
            rto_deadline: None,
            app: TcpApplication::Bulk,
            app_wakeup: None,
            started_at: 0,
            start_at,
            data_bytes,
            syn_bytes,
            rtt_probe: None,
            stop_at: None,
            data_end: Seq::MAX,
            reductions: 0,
            ecn_recover: 0,
            ce_count: 0,
            ce_delta: 0,
            pending_cwr: false,
            delivered: 0,
            round_end: 0,
            started: false,
            last_rtt: None,
            ignoring_dupacks: false,
            seen_ece: false,
            ecn_backoff: false,
            timer_rounding: None,
            rate,
            pacer,
            ts_recent: 0,
            sacked_ranges: [(0, 0); super::MAX_SACK_BLOCKS + 1],
            stats: SenderStats::default(),
        }
    }

    /// The retransmission timer's expiry for a timer armed at `now`.
    fn expiry(&mut self, now: Time) -> Time {
        let at = now.saturating_add(self.rto.current());
        match self.timer_rounding.as_mut() {
            None => at,
            Some(rng) => {
                use rand::Rng;
                if rng.gen::<bool>() {
                    at.saturating_add(1)
                } else {
                    at.saturating_sub(1).max(now)
                }
            }
        }
    }

    /// When data segment `seq` has been written by the application.
    pub(super) fn written_at(&self, seq: Seq) -> Time {
        match self.app {
            TcpApplication::Bulk => 0,
            TcpApplication::Cbr { ns_per_segment } => {
                let index = seq.saturating_sub(self.first_data) as f64 + 1.0;
                self.started_at.saturating_add((index * ns_per_segment).ceil() as Time)
            }
        }
    }
    pub(super) fn outstanding(&self) -> u32 {
        self.snd_max - self.snd_una
    }

    /// RFC 6675 pipe: segments believed to be in the network.
    pub(super) fn pipe(&self) -> u32 {
        self.outstanding() - self.sacked - self.lost + self.retx_in_flight
    }

    /// Segments SACKed above snd_una.
    pub(super) fn sacked(&self) -> u32 {
        self.sacked
    }

    pub(super) fn seg(&self, seq: Seq) -> &SegmentState {
        &self.board[(seq - self.snd_una) as usize]
    }
    pub(super) fn seg_mut(&mut self, seq: Seq) -> &mut SegmentState {
        &mut self.board[(seq - self.snd_una) as usize]
    }

    fn syn_pending(&self) -> bool {
        self.snd_una < self.first_data
    }

    pub(super) fn may_send_new(&self, now: Time) -> bool {
        self.may_send_new_from(now, self.snd_max)
    }

    /// Whether new segment `seq` (snd_max, or one beyond it once those before are sent)
    /// could go out at `now`, the congestion window aside.
    pub(super) fn may_send_new_from(&self, now: Time, seq: Seq) -> bool {
        if self.stop_at.is_some_and(|stop| now >= stop) || seq >= self.data_end {
            return false;
        }
        if seq >= self.first_data && self.written_at(seq) > now {
            return false; // the application has not written this segment yet
        }
        if self.syn_pending() && seq >= self.first_data {
            return false;
        }
        seq - self.snd_una < self.cfg.max_window
    }

    fn arm_timer_if_idle(&mut self, now: Time) {
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.expiry(now));
        }
    }

    fn emit(&mut self, now: Time, seq: Seq, retransmission: bool, psh: bool, out: &mut impl Outbox) {
        let syn = seq < self.first_data;
        if !syn {
            self.stats.data_packets_sent += 1;
            if retransmission {
                self.stats.retransmitted_packets += 1;
            }
        }
        let cwr = self.pending_cwr && !syn;
        self.pending_cwr &= !cwr;
        // RFC 3168 §6.1.5: retransmissions (and the SYN) are not ECN-capable.
        out.send(Outgoing {
            header: Header::TcpData { seq, syn, cwr, psh, sent_at: now, tsecr: self.ts_recent },
            size: if syn { self.syn_bytes } else { self.data_bytes },
            // (ns-2 marks its retransmissions ECN-capable too: `ns2.ecn`)
            // (an L4S flow's are too: AccECN allows it, and Prague's are ECT(1))
            ect: self.cfg.ecn && !syn && (!retransmission || self.rules.ecn || self.cfg.l4s),
            l4s: self.cfg.l4s && !syn,
        });
        self.arm_timer_if_idle(now);
    }

    #[inline]
    pub(super) fn send_new(&mut self, now: Time, out: &mut impl Outbox) {
        self.send_new_segment(now, false, out);
    }

    /// [`send_new`](Self::send_new), with the PSH flag `psh`.
    pub(super) fn send_new_segment(&mut self, now: Time, psh: bool, out: &mut impl Outbox) {
        let seq = self.snd_max;
        if self.rate.is_some() {
            self.rate_on_send(now, None);
        }
        self.board.push_back(SegmentState { sent_at: now, flags: 0 });
        self.snd_max += 1;
        self.snd_nxt = self.snd_max;
        if self.rtt_probe.is_none() {
            self.rtt_probe = Some((seq, now));
        }
        self.emit(now, seq, false, psh, out);
    }

    pub(super) fn retransmit(&mut self, now: Time, seq: Seq, count_in_pipe: bool, out: &mut impl Outbox) {
        if self.rate.is_some() {
            self.rate_on_send(now, Some(seq));
        }
        let seg = self.seg_mut(seq);
        seg.sent_at = now;
        let newly_in_flight = count_in_pipe && seg.flags & RETX_IN_FLIGHT == 0;
        seg.flags |= RETRANSMITTED | if count_in_pipe { RETX_IN_FLIGHT } else { 0 };
        if newly_in_flight {
            self.retx_in_flight += 1;
        }
        if matches!(self.rtt_probe, Some((probe, _)) if probe == seq) {
            self.rtt_probe = None; // Karn: an ambiguous ACK gives no sample
        }
        self.emit(now, seq, true, false, out);
    }

    /// When a CBR application will next have a segment ready, if the sender waits for it.
    pub(super) fn update_app_wakeup(&mut self, now: Time) {
        if let TcpApplication::Cbr { .. } = self.app {
            let next = self.written_at(self.snd_max);
            let running = self.stop_at.map_or(true, |stop| next < stop);
            self.app_wakeup = (next > now && running).then_some(next);
        }
    }

    /// Window-based sending (ns-2 `send_much`): segments [snd_una, snd_una + win) with win =
    /// ⌊cwnd⌋ + `inflation` (ns-2's Newreno's dupwnd_), one or two more for the first
    /// duplicates (RFC 3042 limited transmit); `two_per_ack`: no more than two segments
    /// go out (ns-2's Newreno while duplicates last).
    pub(super) fn send_window(&mut self, now: Time, inflation: u32, two_per_ack: bool, out: &mut impl Outbox) {
        let mut win = (self.window.cwnd as u32).saturating_add(inflation).min(self.cfg.max_window);
        if self.cfg.limited_transmit && !self.in_recovery && self.dupacks < self.cfg.dupack_threshold {
            win += self.dupacks.min(2); // RFC 3042
        }
        if self.syn_pending() {
            win = win.min(1);
        }
        let mut limit = self.snd_una.saturating_add(win.max(1));
        if two_per_ack {
            limit = limit.min(self.snd_nxt.saturating_add(2)); // two per ACK while duplicates last
        }
        while self.snd_nxt < limit {
            if self.snd_nxt < self.snd_max {
                // Go-back-N after a timeout; skip what the receiver reports holding
                // (ns-2 resends it too: `ns2.go_back_n`).
                let seq = self.snd_nxt;
                let resend = self.rules.go_back_n || self.seg(seq).flags & SACKED == 0;
                if resend && !self.pace_gate(now) {
                    break;
                }
                self.snd_nxt += 1;
                if resend {
                    self.retransmit(now, seq, false, out);
                }
            } else if self.may_send_new(now) {
                if !self.pace_gate(now) {
                    break;
                }
                self.send_new(now, out);
            } else {
                self.note_app_limited(now);
                break;
            }
        }
    }

    /// With pacing: may a segment leave now? If so the pacer counts it as sent (the
    /// caller sends one); if not it sets the timer for when one may.
    #[inline]
    pub(super) fn pace_gate(&mut self, now: Time) -> bool {
        self.pacer.is_none() || self.pace(now)
    }

    #[cold]
    #[inline(never)]
    fn pace(&mut self, now: Time) -> bool {
        let rate = self.cc.pacing_rate();
        let Some(pacer) = self.pacer.as_mut() else { return true };
        if !pacer.ready(now) {
            return false;
        }
        pacer.sent(now, rate);
        true
    }

    /// The rate sampler's record of a transmission: a new segment (`resent` None) or a
    /// resent one.
    #[cold]
    #[inline(never)]
    fn rate_on_send(&mut self, now: Time, resent: Option<Seq>) {
        let (delivered, idle, una) = (self.delivered, self.snd_max == self.snd_una, self.snd_una);
        if let Some(rate) = self.rate.as_mut() {
            match resent {
                None => rate.on_send_new(now, delivered, idle),
                Some(seq) => rate.on_resend((seq - una) as usize, now, delivered, false),
            }
        }
    }

    /// This ACK's rate sample, to the algorithm.
    #[cold]
    #[inline(never)]
    fn rate_sample(&mut self, sample: &AckSample) {
        if let Some(rate) = self.rate.as_mut() {
            let mut rate_sample = rate.sample(sample.now, sample.delivered, sample.in_flight, sample.rtt);
            // Losses as these recoveries know them: each retransmission repairs a segment
            // the recovery (or a timeout) took for lost.
            rate_sample.lost_total = self.stats.retransmitted_packets;
            rate_sample.losses = rate.new_losses(rate_sample.lost_total);
            self.cc.on_rate_sample(&mut self.window, &rate_sample);
        }
    }

    /// The cumulative ACK passed `count` segments: those not SACKed before are delivered.
    #[cold]
    #[inline(never)]
    fn rate_on_cumulative(&mut self, count: u32) {
        if let Some(rate) = self.rate.as_mut() {
            for (index, seg) in self.board.iter().take(count as usize).enumerate() {
                if seg.flags & SACKED == 0 {
                    rate.on_delivered(index);
                }
            }
            rate.forget_front(count as usize);
        }
    }

    /// The application, not the window, stopped the sender: rate samples taken until
    /// what is out now is delivered are app-limited (Linux `tcp_rate_check_app_limited`).
    pub(super) fn note_app_limited(&mut self, now: Time) {
        if self.rate.is_none() {
            return;
        }
        let out_of_data = self.stop_at.is_some_and(|stop| now >= stop)
            || self.snd_max >= self.data_end
            || (self.snd_max >= self.first_data && self.written_at(self.snd_max) > now);
        if out_of_data {
            let (delivered, in_flight) = (self.delivered, self.pipe());
            if let Some(rate) = self.rate.as_mut() {
                rate.mark_app_limited(delivered, in_flight);
            }
        }
    }

    /// SACK recovery marks `seq` SACKed (RFC 6675 Update()): None if it was SACKed
    /// already, else whether it had been delivered (SACKed before a timeout forgot it). A
    /// SACKed segment is delivered, neither lost nor in flight.
    #[inline]
    pub(super) fn mark_sacked(&mut self, seq: Seq) -> Option<bool> {
        let index = (seq - self.snd_una) as usize;
        let seg = &mut self.board[index];
        if seg.flags & SACKED != 0 {
            return None;
        }
        let flags = seg.flags;
        seg.flags = (flags | SACKED | DELIVERED) & !(LOST | RETX_IN_FLIGHT);
        if let Some(rate) = self.rate.as_mut() {
            rate.on_delivered(index);
        }
        self.sacked += 1;
        if flags & LOST != 0 {
            self.lost -= 1;
        }
        if flags & RETX_IN_FLIGHT != 0 {
            self.retx_in_flight -= 1;
        }
        Some(flags & DELIVERED != 0)
    }

    /// SACK recovery marks `seq` lost (unless SACKed, or marked already).
    pub(super) fn mark_lost(&mut self, seq: Seq) {
        let seg = self.seg_mut(seq);
        if seg.flags & (SACKED | LOST) == 0 {
            seg.flags |= LOST;
            self.lost += 1;
        }
    }

    /// Linux's `tcp_mark_skb_lost`: `seq` is lost (unless SACKed); a retransmission of
    /// it that was in flight is lost too (no longer counted in flight).
    pub(super) fn mark_lost_again(&mut self, seq: Seq) {
        let seg = self.seg_mut(seq);
        let flags = seg.flags;
        if flags & SACKED != 0 {
            return;
        }
        seg.flags = (flags | LOST) & !RETX_IN_FLIGHT;
        if flags & LOST == 0 {
            self.lost += 1;
        }
        if flags & RETX_IN_FLIGHT != 0 {
            self.retx_in_flight -= 1;
        }
    }

    /// Linux's undo (`tcp_undo_cwnd_reduction` with unmark_loss): no segment is lost.
    pub(super) fn unmark_lost(&mut self) {
        for seg in self.board.iter_mut() {
            seg.flags &= !LOST;
        }
        self.lost = 0;
    }

    /// Segments marked lost, and retransmissions in flight (Linux's lost_out and
    /// retrans_out).
    pub(super) fn lost(&self) -> u32 {
        self.lost
    }
    pub(super) fn retx_in_flight(&self) -> u32 {
        self.retx_in_flight
    }

    /// RFC 6675 §5.1 after a timeout: forget the SACK marks (a segment keeps whether it
    /// was resent, and whether it was delivered).
    pub(super) fn forget_sack_marks(&mut self) {
        for seg in self.board.iter_mut() {
            seg.flags &= RETRANSMITTED | DELIVERED;
        }
        self.sacked_ranges = [(0, 0); super::MAX_SACK_BLOCKS + 1];
        self.sacked = 0;
        self.lost = 0;
        self.retx_in_flight = 0;
    }

    /// Drop state for segments below `cumulative`; returns (segments, those delivered
    /// before: SACKed, now or before a timeout, and whether any was retransmitted).
    pub(super) fn advance_una(&mut self, cumulative: Seq) -> (u32, u32, bool) {
        let mut previously_sacked = 0;
        let mut flags = 0;
        let count = cumulative - self.snd_una;
        if self.rate.is_some() {
            self.rate_on_cumulative(count);
        }
        for _ in 0..count {
            let seg = self.board.pop_front().expect("acked segment is on the board");
            previously_sacked += (seg.flags & DELIVERED != 0) as u32;
            flags |= seg.flags;
            if seg.flags & SACKED != 0 {
                self.sacked -= 1;
            }
            if seg.flags & LOST != 0 {
                self.lost -= 1;
            }
            if seg.flags & RETX_IN_FLIGHT != 0 {
                self.retx_in_flight -= 1;
            }
            self.snd_una += 1;
        }
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        (count, previously_sacked, flags & RETRANSMITTED != 0)
    }

    fn congestion_event(&self, now: Time, signal: CongestionSignal) -> CongestionEvent {
        CongestionEvent {
            now,
            signal,
            flight_size: self.outstanding(),
            in_slow_start: self.window.cwnd < self.window.ssthresh,
            first_reduction: self.reductions == 0,
            integer_ssthresh: self.rules.integer_ssthresh,
        }
    }

    /// Cut the window for `signal` as the algorithm says (after a timeout the caller sets
    /// cwnd to one segment). With `ns2.ecn`, the next segment carries CWR after any cut,
    /// as ns-2's `slowdown` sets `cong_action_`.
    pub(super) fn reduce(&mut self, now: Time, signal: CongestionSignal) {
        let event = self.congestion_event(now, signal);
        let r = self.cc.on_congestion(&self.window, &event);
        self.window = Window { cwnd: r.cwnd, ssthresh: r.ssthresh };
        self.reductions += 1;
        self.pending_cwr |= self.rules.ecn;
    }

    pub(super) fn restart_timer(&mut self, now: Time) {
        self.rto_deadline = Some(self.expiry(now));
    }

    /// RFC 6298 §5.2–5.3 after a new ACK: restart while data is outstanding, else stop.
    pub(super) fn restart_or_stop_timer(&mut self, now: Time) {
        self.rto_deadline = if self.snd_una < self.snd_max { Some(self.expiry(now)) } else { None };
    }

    /// A new cumulative ACK's common part: the RTT sample (Karn), snd_una, the delivered
    /// count and the every-ACK hook; completes `sample` (the caller's [`sample`](Self::sample)
    /// of this ACK, taken before snd_una moves) for the increase — in place: a returned
    /// sample is written field by field and copied whole, which stalls — and returns
    /// whether the ACK acknowledged ns-2's SYN-like first packet. (ns-2 Sack1 may
    /// end recovery on an ACK that acknowledges nothing new: then only the hook sees it.)
    pub(super) fn advance_and_report(
        &mut self,
        now: Time,
        ack: &AckInfo,
        previously_sacked: u32,
        sacked: Sacked,
        sample: &mut AckSample,
    ) -> bool {
        let syn_acked = self.syn_pending() && ack.cumulative > self.snd_una;
        // The ACK's RTT sample, from the newest segment it acknowledges — unless that was
        // SACKed before (it reached the receiver long ago) or the ACK covers a
        // retransmission (Karn; Linux `tcp_clean_rtx_queue` takes no sample when
        // FLAG_RETRANS_DATA_ACKED): otherwise a hole filled late would time the whole
        // recovery.
        let newest_sent_at = match ack.cumulative > self.snd_una {
            true => {
                let newest = self.seg(ack.cumulative - 1);
                (newest.flags & DELIVERED == 0).then_some(newest.sent_at)
            }
            false => None,
        };
        if let Some((probe, sent_at)) = self.rtt_probe {
            if ack.cumulative > probe {
                sample.timed_rtt = std::num::NonZeroU64::new(self.rto.on_sample(sent_at, now));
                self.stats.rtt.samples += 1;
                self.stats.rtt.rtt_ns += (now - sent_at) as f64;
                self.stats.rtt.rto_ns += self.rto.current() as f64;
                self.rtt_probe = None;
            }
        }
        let (acked, board_sacked, retransmission_acked) = self.advance_una(ack.cumulative);
        if let (Some(sent_at), false) = (newest_sent_at, retransmission_acked) {
            sample.rtt = Some(now - sent_at);
            self.last_rtt = sample.rtt;
        }
        // Delivered: each segment once, when first SACKed or cumulatively ACKed.
        self.delivered += (acked - board_sacked - previously_sacked + sacked.newly - sacked.resacked) as u64;
        sample.segments_acked = acked;
        self.report_ack(sample);
        syn_acked
    }

    /// A new cumulative ACK outside recovery, or the one ending it (ns-2 `newack`, and
    /// with `open_window` `opencwnd`): snd_una and the RTT as above, the window grows
    /// (not on ns-2's ECN-Echo ACKs, `ns2.ecn`), the timer restarts.
    pub(super) fn new_ack(&mut self, now: Time, ack: &AckInfo, previously_sacked: u32, sacked: Sacked, open_window: bool) {
        let mut sample = self.sample(now, ack, sacked.newly);
        let syn_acked = self.advance_and_report(now, ack, previously_sacked, sacked, &mut sample);
        self.dupacks = 0;
        let ece_holds_window = self.rules.ecn && ack.ece && self.seen_ece;
        if open_window && !syn_acked && !ece_holds_window {
            // sample.delivered and in_flight are as report_ack filled them: nothing
            // has been sent or marked since.
            self.cc.on_ack(&mut self.window, &sample);
            if self.snd_una >= self.round_end {
                self.cc.on_round(&mut self.window, now);
                self.round_end = self.snd_max;
            }
        }
        self.note_ece(ack.ece);
        self.restart_or_stop_timer(now);
    }

    /// A duplicate ACK for the every-ACK hook, with the segments it newly SACKed.
    pub(super) fn report_duplicate(&mut self, now: Time, ack: &AckInfo, sacked: Sacked) {
        self.delivered += (sacked.newly - sacked.resacked) as u64;
        let mut sample = self.sample(now, ack, sacked.newly);
        self.report_ack(&mut sample);
    }

    pub(super) fn sample(&self, now: Time, ack: &AckInfo, newly_sacked: u32) -> AckSample {
        AckSample {
            now,
            ece: ack.ece,
            ce_marked: self.ce_delta,
            segments_sacked: newly_sacked,
            duplicate: ack.cumulative == self.snd_una,
            in_recovery: self.in_recovery,
            ..Default::default()
        }
    }

    /// ns-2 remembers an ECN-capable path once an ACK carried ECN-Echo (`ect_`), and
    /// forgets an ECN back-off at the first ACK without it (`ecn_backoff_`).
    fn note_ece(&mut self, ece: bool) {
        if self.rules.ecn {
            self.seen_ece |= ece;
            self.ecn_backoff &= ece;
        }
    }

    /// Fast retransmit starts recovery (RFC 5681 §3.2): the window is cut, RecoveryPoint
    /// set (one past the highest segment sent), and the timer restarted so the
    /// retransmission gets a full RTO (as ns-2 and Linux do; otherwise a queue near the RTO
    /// floor makes every recovery end in a timeout). The recovery piece then resends.
    pub(super) fn enter_recovery(&mut self, now: Time) {
        self.fast_retransmit_cut(now);
        self.in_recovery = true;
        self.recovery_point = self.snd_max;
        self.restart_timer(now);
    }

    /// The window cut of a fast retransmit, counted.
    pub(super) fn fast_retransmit_cut(&mut self, now: Time) {
        self.reduce(now, CongestionSignal::FastRetransmit);
        self.stats.fast_recoveries += 1;
    }

    /// Recovery ended with a full ACK: RFC 6582 §3.2 step 3 sets cwnd = ssthresh (ns-2
    /// keeps the cut window: `ns2.integer_ssthresh`); Westwood+ sets its window here.
    pub(super) fn end_recovery(&mut self, now: Time) {
        if !self.rules.integer_ssthresh && !self.model_window {
            self.window.cwnd = self.window.ssthresh;
        }
        self.cc.on_recovery_end(&mut self.window, now);
    }

    /// The next segment to send exists: a go-back-N resend, or new data the application
    /// has written.
    pub(super) fn next_segment_ready(&self, now: Time) -> bool {
        self.snd_nxt < self.snd_max || self.may_send_new(now)
    }

    /// Send snd_nxt: resend it (go-back-N after a timeout), or a new segment.
    pub(super) fn send_next(&mut self, now: Time, out: &mut impl Outbox) {
        if self.snd_nxt < self.snd_max {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            self.retransmit(now, seq, false, out);
        } else {
            self.send_new(now, out);
        }
    }

    /// The window cut for an ECN-Echo (RFC 3168 §6.1.2); with `ns2.ecn`, at cwnd ≤ 1 the
    /// second such reaction in a row backs the timer off instead (ns-2 `ecn`).
    pub(super) fn ecn_reduction(&mut self, now: Time) {
        if self.rules.ecn {
            if self.window.cwnd <= 1.0 {
                if self.ecn_backoff {
                    self.rto.back_off();
                }
                self.ecn_backoff = true;
            } else {
                self.ecn_backoff = false;
            }
        }
        self.reduce(now, CongestionSignal::EcnEcho);
        self.window.cwnd = self.window.cwnd.max(1.0);
        self.ecn_recover = self.snd_max;
        self.pending_cwr = true;
        self.stats.ecn_reductions += 1;
    }

    /// The every-ACK hook: congestion control sees the ACK's accounting before the
    /// sender acts on it (increase, recovery, reduction).
    fn report_ack(&mut self, sample: &mut AckSample) {
        sample.delivered = self.delivered;
        sample.in_flight = self.pipe();
        sample.srtt = self.rto.srtt();
        self.cc.on_ack_event(&self.window, sample);
        if self.rate.is_some() {
            self.rate_sample(sample);
        }
    }

    /// The retransmission timer expired: the common timeout rule (the caller counts the
    /// timeout, then lets the recovery forget what it knew, sends and restarts the timer).
    pub(super) fn timeout(&mut self, now: Time) {
        self.reduce(now, CongestionSignal::Timeout);
        // RFC 5681 §3.1: the loss window is one segment, whatever the algorithm.
        self.window.cwnd = LOSS_WINDOW;
        self.rto.back_off();
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        if let Some(rate) = self.rate.as_mut() {
            rate.restart();
        }
        // ns-2 (`go_back_n`): duplicates are ignored until a new ACK (ns-2's Newreno counts
        // them: its recovery says so). Resend from the first unacknowledged.
        self.ignoring_dupacks = self.rules.go_back_n;
        self.snd_nxt = self.snd_una;
        self.rtt_probe = None;
        self.rto_deadline = None;
    }
}
