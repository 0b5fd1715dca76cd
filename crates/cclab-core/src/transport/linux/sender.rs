//! Linux's data sender (`profile = "linux"`): the sender's control block ([`Tcb`]) run by
//! Linux's rules instead of the RFCs' — a loss-recovery piece that takes whole ACKs, as
//! ns-2's Sack1 does, because Linux's order of work differs from the RFC main path:
//!
//! 1. **An ACK** (`tcp_ack`): the SACK blocks mark segments delivered (`tcp_sacktag_write_queue`,
//!    a D-SACK counting retransmissions proved needless), the cumulative ACK frees what it
//!    covers (`tcp_clean_rtx_queue`); RACK advances for every segment newly delivered;
//!    the RTT is sampled from the oldest segment the ACK newly acknowledges — or SACKs —
//!    unless it covers a retransmission (Karn), then from the timestamp echo
//!    (`tcp_ack_update_rtt`); the congestion-control module sees the ACK
//!    (`pkts_acked`); an ACK that does not simply advance snd_una in the Open state goes
//!    through the recovery state machine (`tcp_fastretrans_alert`); the timer is re-armed
//!    (a tail loss probe, else the RTO); the window moves (`tcp_cong_control`: the
//!    module's `cong_control` (BBR), Proportional Rate Reduction in CWR and Recovery,
//!    else growth per segment delivered while cwnd-limited); lost segments are resent,
//!    then new data goes out.
//! 2. **Recovery** (`tcp_fastretrans_alert`): states Open, Disorder, CWR, Recovery, Loss;
//!    recovery starts when RACK marks a segment lost (`tcp_enter_recovery`: ssthresh
//!    from the module, PRR from cwnd), ends when snd_una reaches high_seq (cwnd =
//!    ssthresh), and is undone when D-SACKs show every retransmission needless.
//! 3. **PRR** (RFC 6937, `tcp_cwnd_reduction`): in CWR and Recovery cwnd is what is in
//!    flight plus what may be sent: ssthresh/prior_cwnd of what is delivered while in
//!    flight is above ssthresh, else a slow start back up to it.
//! 4. **The retransmission timeout** (`tcp_retransmit_timer`, `tcp_enter_loss`): what is
//!    not SACKed and not sent within RACK's RTT is marked lost (the SACK scoreboard is
//!    kept), ssthresh is cut unless a recovery in this window already cut it, cwnd = in
//!    flight + 1, the first segment is resent and the RTO doubles. In Loss, F-RTO
//!    (RFC 5682, `tcp_process_loss`) sends new data on the first ACK and undoes the
//!    reduction if the next ACK acknowledges segments never resent.
//! 5. **Tail loss probe** (`tcp_schedule_loss_probe`, `tcp_send_loss_probe`): in Open and
//!    CWR, 2·SRTT (+2 ms, or +200 ms with one segment out) after the last transmission a
//!    new segment (or the last one again) goes out ignoring cwnd; a loss it repairs cuts
//!    the window (`tcp_process_tlp_ack`).
//! 6. **Sending** (`tcp_write_xmit`, module [`super::gso`]): GSO packets of
//!    min(cwnd/2, room, the GSO size) segments back to back, deferred as Linux defers;
//!    paced per packet for algorithms that pace; cwnd-limited tracking
//!    (`tcp_cwnd_validate`); a 4-MiB send buffer, refilled by the writer when two thirds empty, bounds what is outstanding.
//!
//! One timer slot holds the retransmission, the RACK reordering or the loss-probe timer,
//! as Linux's `icsk_pending`; all are jiffies timers.
use super::gso::{self, DeferCheck};
use super::rack::{was_retransmitted, Rack};
use super::{jiffy_timer, to_jiffies, ts_ms, us_delta};
use crate::cc::{AckSample, CaState, CongestionControl, CongestionEvent, CongestionSignal, Window};
use crate::sim::Time;
use crate::transport::tcb::{Tcb, LOST, RETX_IN_FLIGHT, SACKED};
use crate::transport::{AckInfo, Outbox, Recovery, Seq};

/// `tcp_reordering`: the reordering degree assumed (no reordering is seen here).
const REORDERING: u32 = 3;
/// TCP_TIMEOUT_MIN_US: added to the RACK and loss-probe timers.
const TIMEOUT_MIN: Time = 2_000_000;
/// `tcp_wmem[2]`: the send buffer, bytes.
const SEND_BUFFER_BYTES: u64 = 4 * 1024 * 1024;
/// Bytes each buffer (skb) of written data costs the send buffer beyond its payload
/// (`sk_wmem_queued` counts truesize: the sk_buff pair, its header room and shared info).
/// A buffer holds one GSO packet's worth (`tcp_xmit_size_goal`), so a segment costs
/// mss + this / segments per packet. Fitted to the kernel reference: Reno at 96 Mb/s ×
/// 40 ms × 10 BDP (9-segment packets) holds 2216 segments in flight on average, 5/6 of
/// a buffer of 4 MiB / (1448 + 1032 / 9) bytes by the writer's rule below; at 20 ms, 10 BDP
/// its slow start overshoots the 1760-segment path by about that buffer (838-1006 drops).
const SKB_OVERHEAD_BYTES: u64 = 1032;

/// What the one timer slot holds (`icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    Retransmission,
    ReorderWindow,
    LossProbe,
}

/// What to resend after the ACK (`REXMIT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rexmit {
    None,
    Lost,
    New,
}

/// What one ACK did (`FLAG_*`).
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    snd_una_advanced: bool,
    data_acked: bool,
    data_sacked: bool,
    retrans_data_acked: bool,
    orig_sack_acked: bool,
    dsack: bool,
    dsack_tlp: bool,
    ece: bool,
    lost_retrans: bool,
    set_xmit_timer: bool,
}

pub struct LinuxRecovery {
    state: CaState,
    /// snd_nxt when the reduction (or Loss) began: recovery ends when snd_una reaches it.
    high_seq: Seq,
    prior_cwnd: u32,
    /// ssthresh to restore on undo (0: none).
    prior_ssthresh: f64,
    prr_delivered: u32,
    prr_out: u32,
    /// Undo: snd_una at the episode's start, retransmissions not yet D-SACKed, and the
    /// TSval (ms) of the episode's first retransmission.
    undo_marker: Option<Seq>,
    undo_retrans: i32,
    retrans_stamp: Option<u32>,
    frto: bool,
    /// Timeouts since snd_una last moved (`icsk_retransmits`).
    retransmits: u32,
    tlp_high_seq: Option<Seq>,
    tlp_retrans: bool,
    timer: Timer,
    rack: Rack,
    /// The minimum RTT (`tcp_min_rtt`, a 300-s window: the whole run here), µs.
    min_rtt_us: Option<i64>,
    /// Segments marked lost so far (`tp->lost`).
    lost_total: u64,
    /// cwnd validation (`tcp_cwnd_validate`).
    is_cwnd_limited: bool,
    max_packets_out: u32,
    cwnd_usage_seq: Seq,
    /// `sk_pacing_rate` for algorithms that do not set one, bytes/s.
    pacing_rate: f64,
    /// When the sender last sent (`tcp_wstamp_ns`), and last sent new data (`lsndtime`).
    last_send: Time,
    last_data_send: Time,
    /// Data segments sent (`data_segs_out`).
    segments_out: u64,
    /// The first lost segment that may still need resending.
    retx_hint: Seq,
    mss: u32,
    /// The algorithm sets cwnd itself (`cong_control`: BBR), and its own pacing rate.
    cong_control: bool,
    module_paces: bool,
    /// How far the application has written (a bulk writer blocked on the send buffer):
    /// new data goes out only below it.
    written: Seq,
}

impl LinuxRecovery {
    pub(in crate::transport) fn new(tcb: &mut Tcb, mss: u32) -> LinuxRecovery {
        let cong_control = tcb.cc.controls_window();
        let module_paces = tcb.cc.paces();
        // `sk_pacing_status`: the algorithm's own pacing (BBR), or the socket's.
        let paced = module_paces || tcb.cfg.pacing;
        if paced && tcb.pacer.is_none() {
            tcb.pacer = Some(Box::default());
        }
        tcb.cc.use_linux_rules(crate::cc::LinuxSocket { mss_bytes: mss, paced });
        let mut linux = LinuxRecovery {
            state: CaState::Open,
            high_seq: 0,
            prior_cwnd: 0,
            prior_ssthresh: 0.0,
            prr_delivered: 0,
            prr_out: 0,
            undo_marker: None,
            undo_retrans: -1,
            retrans_stamp: None,
            frto: false,
            retransmits: 0,
            tlp_high_seq: None,
            tlp_retrans: false,
            timer: Timer::Retransmission,
            rack: Rack::default(),
            min_rtt_us: None,
            lost_total: 0,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            pacing_rate: 0.0,
            last_send: 0,
            last_data_send: 0,
            segments_out: 0,
            retx_hint: 0,
            mss,
            cong_control,
            module_paces,
            written: 0,
        };
        linux.update_pacing_rate(tcb);
        if let Some(rate) = tcb.rate.as_mut() {
            rate.start_app_limited(); // `tcp_init_sock`: app_limited = ~0 until the first ACK
        }
        linux
    }

    fn cwnd(tcb: &Tcb) -> u32 {
        tcb.window.cwnd as u32
    }

    fn in_cwnd_reduction(&self) -> bool {
        matches!(self.state, CaState::Cwr | CaState::Recovery)
    }

    fn min_rtt(&self) -> Option<Time> {
        self.min_rtt_us.map(|us| us as Time * 1000)
    }

    fn srtt8_us(tcb: &mut Tcb) -> i64 {
        tcb.rto.linux().map_or(0, |rtt| rtt.srtt8_us())
    }

    fn srtt(tcb: &mut Tcb) -> Option<Time> {
        tcb.rto.srtt().map(|ns| ns as Time)
    }

    // ---- the timer slot ----

    fn arm(&mut self, tcb: &mut Tcb, now: Time, kind: Timer, after: Time) {
        self.timer = kind;
        tcb.rto_deadline = Some(jiffy_timer(now, to_jiffies(after).max(1)));
    }

    /// `tcp_rto_delta_us`: the RTO still to run, measured from the first outstanding
    /// segment's (latest) transmission.
    fn rto_delta(tcb: &Tcb, now: Time) -> i64 {
        let sent_at = tcb.seg(tcb.snd_una).sent_at;
        tcb.rto.current() as i64 - now.saturating_sub(sent_at) as i64
    }

    /// `tcp_rearm_rto`.
    fn rearm_rto(&mut self, tcb: &mut Tcb, now: Time) {
        if tcb.outstanding() == 0 {
            tcb.rto_deadline = None;
            self.timer = Timer::Retransmission;
            return;
        }
        let mut rto = tcb.rto.current();
        if matches!(self.timer, Timer::ReorderWindow | Timer::LossProbe) {
            rto = Self::rto_delta(tcb, now).max(1000) as Time;
        }
        self.arm(tcb, now, Timer::Retransmission, rto);
    }

    /// `tcp_schedule_loss_probe`: false when no probe applies.
    fn schedule_loss_probe(&mut self, tcb: &mut Tcb, now: Time, advancing_rto: bool) -> bool {
        if tcb.outstanding() == 0 || tcb.cfg.recovery != Recovery::Sack || !matches!(self.state, CaState::Open | CaState::Cwr) {
            return false;
        }
        let srtt8 = Self::srtt8_us(tcb);
        let mut timeout = if srtt8 > 0 {
            let extra = if tcb.outstanding() == 1 { tcb.cfg.min_rto.ns() } else { TIMEOUT_MIN };
            to_jiffies((srtt8 as Time >> 2) * 1000 + extra)
        } else {
            to_jiffies(1_000_000_000)
        };
        let rto_delta = if advancing_rto { tcb.rto.current() as i64 } else { Self::rto_delta(tcb, now) };
        if rto_delta > 0 {
            timeout = timeout.min(to_jiffies(rto_delta as Time));
        }
        self.timer = Timer::LossProbe;
        tcb.rto_deadline = Some(jiffy_timer(now, timeout.max(1)));
        true
    }

    /// `tcp_set_xmit_timer`.
    fn set_xmit_timer(&mut self, tcb: &mut Tcb, now: Time) {
        if !self.schedule_loss_probe(tcb, now, true) {
            self.rearm_rto(tcb, now);
        }
    }

    // ---- an ACK ----

    pub(in crate::transport) fn on_ack(&mut self, tcb: &mut Tcb, now: Time, ack: &AckInfo, out: &mut impl Outbox) {
        let prior_snd_una = tcb.snd_una;
        let prior_in_flight = tcb.pipe();
        let prior_delivered = tcb.delivered;
        let prior_lost = self.lost_total;
        let mut flags = Flags { snd_una_advanced: ack.cumulative > prior_snd_una, ..Flags::default() };
        if flags.snd_una_advanced {
            self.retransmits = 0;
        }
        // RFC 7323: the receiver's clock, echoed in what is sent next.
        if ack.tsval >= tcb.ts_recent {
            tcb.ts_recent = ack.tsval;
        }
        flags.ece = ack.ece && tcb.cfg.ecn;

        // The SACK blocks (`tcp_sacktag_write_queue`).
        let mut sack_first: Option<Time> = None;
        let mut sack_last: Option<Time> = None;
        let mut newly_sacked = 0;
        let blocks = ack.sack_blocks();
        let dsack = blocks.first().is_some_and(|&(start, end)| {
            start < ack.cumulative || blocks.get(1).is_some_and(|&(s, e)| s <= start && end <= e)
        });
        for (i, &(start, end)) in blocks.iter().enumerate() {
            if i == 0 && dsack {
                self.on_dsack(tcb, prior_snd_una, start, end, &mut flags);
                continue;
            }
            for seq in start.max(tcb.snd_una)..end.min(tcb.snd_max) {
                let seg = *tcb.seg(seq);
                if seg.flags & SACKED != 0 {
                    continue;
                }
                if let Some(delivered_before) = tcb.mark_sacked(seq) {
                    if !delivered_before {
                        tcb.delivered += 1;
                    }
                }
                newly_sacked += 1;
                flags.data_sacked = true;
                let retransmitted = was_retransmitted(seg.flags);
                if !retransmitted {
                    sack_first = Some(sack_first.map_or(seg.sent_at, |t: Time| t.min(seg.sent_at)));
                    sack_last = Some(sack_last.map_or(seg.sent_at, |t: Time| t.max(seg.sent_at)));
                    if seq < self.high_seq {
                        flags.orig_sack_acked = true;
                    }
                }
                self.rack.advance(seq, seg.sent_at, retransmitted, now, self.min_rtt());
            }
        }

        // The cumulative ACK (`tcp_clean_rtx_queue`).
        let mut ack_first: Option<Time> = None;
        let mut established = false;
        let mut ack_last: Option<Time> = None;
        if flags.snd_una_advanced {
            for seq in tcb.snd_una..ack.cumulative {
                let seg = *tcb.seg(seq);
                if was_retransmitted(seg.flags) {
                    flags.retrans_data_acked = true;
                } else if seg.flags & SACKED == 0 {
                    ack_first.get_or_insert(seg.sent_at);
                    ack_last = Some(seg.sent_at);
                    if seq < self.high_seq {
                        flags.orig_sack_acked = true;
                    }
                }
                if seg.flags & SACKED == 0 {
                    self.rack.advance(seq, seg.sent_at, was_retransmitted(seg.flags), now, self.min_rtt());
                }
            }
            // (ns-2's SYN-like first packet, if any, is not data: it is not delivered, and
            // an ACK of it alone does not open the window)
            flags.data_acked = ack.cumulative > prior_snd_una.max(tcb.first_data);
            established = prior_snd_una < tcb.first_data && ack.cumulative >= tcb.first_data;
            let (count, previously_delivered, _) = tcb.advance_una(ack.cumulative);
            let syn = (prior_snd_una < tcb.first_data) as u32;
            tcb.delivered += (count - previously_delivered).saturating_sub(syn) as u64;
            flags.set_xmit_timer = true;
            if self.retx_hint < tcb.snd_una {
                self.retx_hint = tcb.snd_una;
            }
        }

        // The RTT (`tcp_ack_update_rtt`).
        let mut seq_rtt = match (ack_first, flags.retrans_data_acked) {
            (Some(sent_at), false) => Some(us_delta(now, sent_at)),
            _ => None,
        };
        let mut ca_rtt = match (ack_last, flags.retrans_data_acked) {
            (Some(sent_at), false) => Some(us_delta(now, sent_at)),
            _ => None,
        };
        if let Some(sent_at) = sack_last {
            ca_rtt = Some(us_delta(now, sent_at));
        }
        if seq_rtt.is_none() {
            seq_rtt = sack_first.map(|sent_at| us_delta(now, sent_at));
        }
        if seq_rtt.is_none() && ack.tsecr != 0 && flags.snd_una_advanced {
            // Karn: the echoed TSval times the ACK even when it covers a retransmission.
            let ms = ts_ms(now).saturating_sub(ack.tsecr).max(1) as i64;
            seq_rtt = Some(ms * 1000);
            ca_rtt = seq_rtt;
        }
        if let Some(rtt_us) = seq_rtt {
            let rtt_us = rtt_us.max(1);
            if let Some(ca) = ca_rtt {
                // FLAG_ACK_MAYBE_DELAYED: one segment, cumulatively, no SACK: a delayed ACK
                // may inflate it; such a sample does not raise the minimum's estimate.
                let maybe_delayed = flags.snd_una_advanced && tcb.snd_una - prior_snd_una == 1 && newly_sacked == 0;
                if !(maybe_delayed && self.min_rtt_us.is_some_and(|min| ca > min)) {
                    let ca = ca.max(1);
                    self.min_rtt_us = Some(self.min_rtt_us.map_or(ca, |min| min.min(ca)));
                }
            }
            let (snd_una, snd_nxt) = (tcb.snd_una, tcb.snd_max);
            if let Some(estimator) = tcb.rto.linux() {
                estimator.on_sample(rtt_us, snd_una, snd_nxt);
            }
            tcb.stats.rtt.samples += 1;
            tcb.stats.rtt.rtt_ns += (rtt_us * 1000) as f64;
            tcb.stats.rtt.rto_ns += tcb.rto.current() as f64;
            tcb.last_rtt = ca_rtt.map(|us| us as Time * 1000);
        }

        if established {
            // `tcp_init_transfer`: the module starts from the handshake's RTT.
            let (rtt, srtt) = (self.min_rtt(), tcb.rto.srtt());
            tcb.cc.on_established(&mut tcb.window, now, rtt, srtt);
        }
        // The module sees the ACK (`pkts_acked`), after the round check (HyStart's).
        let acked_sacked = (tcb.delivered - prior_delivered) as u32;
        if tcb.snd_una > tcb.round_end {
            tcb.cc.on_round(&mut tcb.window, now);
            tcb.round_end = tcb.snd_max;
        }
        let mut sample = AckSample {
            now,
            segments_acked: acked_sacked,
            segments_sacked: newly_sacked,
            rtt: ca_rtt.map(|us| us.max(1) as Time * 1000),
            timed_rtt: seq_rtt.and_then(|us| std::num::NonZeroU64::new(us as u64 * 1000)),
            ece: ack.ece,
            ce_marked: tcb.ce_delta,
            delivered: tcb.delivered,
            in_flight: tcb.pipe(),
            duplicate: !flags.snd_una_advanced,
            in_recovery: self.state == CaState::Recovery,
            srtt: tcb.rto.srtt(),
        };
        tcb.cc.pkts_acked(&mut tcb.window, &sample);

        if self.tlp_high_seq.is_some() {
            self.process_tlp_ack(tcb, now, ack.cumulative, &flags);
        }
        let mut rexmit = Rexmit::None;
        let dubious = !flags.snd_una_advanced || flags.data_sacked || flags.ece || flags.dsack || self.state != CaState::Open;
        if dubious {
            let dupack = !flags.snd_una_advanced && !flags.dsack;
            rexmit = self.fastretrans_alert(tcb, now, prior_snd_una, dupack, &mut flags);
        }
        if flags.set_xmit_timer {
            self.set_xmit_timer(tcb, now);
        }

        // The window (`tcp_cong_control`).
        let acked_sacked = (tcb.delivered - prior_delivered) as u32;
        let losses = (self.lost_total - prior_lost) as u32;
        self.rate_sample(tcb, now, ca_rtt, losses, prior_in_flight);
        if !self.cong_control {
            if self.in_cwnd_reduction() {
                self.cwnd_reduction(tcb, acked_sacked, losses, &flags);
            } else if flags.data_acked && self.cwnd_limited(tcb) {
                sample.segments_acked = acked_sacked;
                sample.in_flight = tcb.pipe();
                tcb.cc.on_ack(&mut tcb.window, &sample);
            }
            self.update_pacing_rate(tcb);
        }

        // What goes out: lost segments first, then new data (`tcp_xmit_recovery`,
        // `tcp_data_snd_check`).
        if rexmit == Rexmit::New {
            self.write_xmit(tcb, now, false, out);
            if tcb.snd_max <= self.high_seq {
                self.frto = false;
                self.retransmit_lost(tcb, now, out);
            }
        } else if rexmit == Rexmit::Lost {
            self.retransmit_lost(tcb, now, out);
        }
        self.write_xmit(tcb, now, false, out);
    }

    /// A D-SACK block [start, end): retransmissions it shows needless count towards undo.
    fn on_dsack(&mut self, tcb: &mut Tcb, prior_snd_una: Seq, start: Seq, end: Seq, flags: &mut Flags) {
        flags.dsack = true;
        let segments = end.saturating_sub(start);
        tcb.delivered += segments as u64; // D-SACKed duplicates count as delivered
        if self.tlp_retrans && self.tlp_high_seq.is_some_and(|high| end >= high) {
            flags.dsack_tlp = true;
        }
        for seq in start..end {
            let below = seq < prior_snd_una;
            let retransmitted = below || (seq < tcb.snd_max && was_retransmitted(tcb.seg(seq).flags));
            if retransmitted && self.undo_marker.is_some_and(|marker| seq + 1 > marker) && self.undo_retrans > 0 {
                self.undo_retrans -= 1;
            }
        }
    }

    /// `tcp_process_tlp_ack`.
    fn process_tlp_ack(&mut self, tcb: &mut Tcb, now: Time, ack: Seq, flags: &Flags) {
        let Some(high) = self.tlp_high_seq else { return };
        if ack < high {
            return;
        }
        if !self.tlp_retrans || flags.dsack_tlp {
            self.tlp_high_seq = None; // new data probed, or the probe was needless
        } else if ack > high {
            // The probe repaired a loss: reduce the window, at once.
            self.init_cwnd_reduction(tcb, now, CongestionSignal::FastRetransmit);
            self.state = CaState::Cwr;
            self.end_cwnd_reduction(tcb, now);
            self.try_keep_open(tcb);
        } else if !flags.snd_una_advanced && !flags.data_sacked {
            self.tlp_high_seq = None;
        }
    }

    /// `tcp_fastretrans_alert`.
    fn fastretrans_alert(&mut self, tcb: &mut Tcb, now: Time, prior_snd_una: Seq, dupack: bool, flags: &mut Flags) -> Rexmit {
        if flags.ece {
            self.prior_ssthresh = 0.0;
        }
        // D. The end of a reduction.
        if self.state == CaState::Open {
            self.retrans_stamp = None;
        } else if tcb.snd_una >= self.high_seq {
            match self.state {
                CaState::Cwr if tcb.snd_una != self.high_seq => {
                    self.end_cwnd_reduction(tcb, now);
                    self.state = CaState::Open;
                }
                CaState::Recovery => {
                    if self.try_undo_recovery(tcb, now) {
                        return Rexmit::None;
                    }
                    self.end_cwnd_reduction(tcb, now);
                }
                _ => {}
            }
        }
        // E. By state.
        match self.state {
            CaState::Recovery => {
                if flags.snd_una_advanced && self.try_undo_partial(tcb, now, prior_snd_una) {
                    return Rexmit::None;
                }
                if self.try_undo_dsack(tcb, now) {
                    self.try_to_open(tcb, now, flags);
                }
                self.identify_packet_loss(tcb, now, flags);
                if self.state != CaState::Recovery {
                    if tcb.lost() == 0 {
                        return Rexmit::None;
                    }
                    self.enter_recovery(tcb, now, flags.ece);
                }
            }
            CaState::Loss => {
                let rexmit = self.process_loss(tcb, now, dupack, flags);
                if rexmit != Rexmit::Lost {
                    return rexmit;
                }
                self.identify_packet_loss(tcb, now, flags);
                if !(self.state == CaState::Open || flags.lost_retrans) {
                    return Rexmit::Lost;
                }
                return self.open_or_recover(tcb, now, flags);
            }
            _ => return self.open_or_recover(tcb, now, flags),
        }
        Rexmit::Lost
    }

    /// The default arm of `tcp_fastretrans_alert`: D-SACK undo, RACK, then recovery if
    /// something is lost, else Open or Disorder.
    fn open_or_recover(&mut self, tcb: &mut Tcb, now: Time, flags: &mut Flags) -> Rexmit {
        if self.state <= CaState::Disorder {
            self.try_undo_dsack(tcb, now);
        }
        self.identify_packet_loss(tcb, now, flags);
        if tcb.lost() == 0 {
            self.try_to_open(tcb, now, flags);
            return Rexmit::None;
        }
        self.enter_recovery(tcb, now, flags.ece);
        Rexmit::Lost
    }

    /// `tcp_identify_packet_loss` / `tcp_rack_mark_lost`.
    fn identify_packet_loss(&mut self, tcb: &mut Tcb, now: Time, flags: &mut Flags) {
        if tcb.outstanding() == 0 || !self.rack.advanced {
            return;
        }
        self.rack.advanced = false;
        let prior_retrans = tcb.retx_in_flight();
        let timeout = self.detect_loss(tcb, now);
        if timeout > 0 {
            self.arm(tcb, now, Timer::ReorderWindow, timeout + TIMEOUT_MIN);
            flags.set_xmit_timer = false;
        }
        if tcb.retx_in_flight() < prior_retrans {
            flags.lost_retrans = true;
        }
    }

    /// RACK's detection with the current reordering window; the REO wait (0: none).
    fn detect_loss(&mut self, tcb: &mut Tcb, now: Time) -> Time {
        let in_recovery = self.state >= CaState::Recovery;
        let srtt = Self::srtt(tcb);
        let reo_wnd = self.rack.reo_wnd(in_recovery, tcb.sacked(), REORDERING, self.min_rtt(), srtt);
        let found = self.rack.detect_loss(tcb, now, reo_wnd);
        if found.lost > 0 {
            self.lost_total += found.lost as u64;
            self.retx_hint = tcb.snd_una;
        }
        found.reo_timeout
    }

    /// `tcp_try_to_open`, `tcp_try_keep_open`.
    fn try_to_open(&mut self, tcb: &mut Tcb, now: Time, flags: &Flags) {
        if !self.any_retrans_done(tcb) {
            self.retrans_stamp = None;
        }
        if flags.ece {
            self.enter_cwr(tcb, now);
        }
        if self.state != CaState::Cwr {
            self.try_keep_open(tcb);
        }
    }

    fn try_keep_open(&mut self, tcb: &mut Tcb) {
        let state = if tcb.sacked() + tcb.lost() > 0 || self.any_retrans_done(tcb) { CaState::Disorder } else { CaState::Open };
        if self.state != state {
            self.state = state;
            self.high_seq = tcb.snd_max;
        }
    }

    /// `tcp_any_retrans_done`.
    fn any_retrans_done(&self, tcb: &Tcb) -> bool {
        tcb.retx_in_flight() > 0 || (tcb.outstanding() > 0 && was_retransmitted(tcb.seg(tcb.snd_una).flags))
    }

    /// `tcp_enter_cwr` (an ECN echo).
    fn enter_cwr(&mut self, tcb: &mut Tcb, now: Time) {
        self.prior_ssthresh = 0.0;
        if self.state < CaState::Cwr {
            self.undo_marker = None;
            self.init_cwnd_reduction(tcb, now, CongestionSignal::EcnEcho);
            self.state = CaState::Cwr;
            tcb.stats.ecn_reductions += 1;
        }
    }

    /// `tcp_enter_recovery`.
    fn enter_recovery(&mut self, tcb: &mut Tcb, now: Time, ece: bool) {
        if !self.any_retrans_done(tcb) {
            self.retrans_stamp = None;
        }
        self.prior_ssthresh = 0.0;
        self.init_undo(tcb);
        if !self.in_cwnd_reduction() {
            if !ece {
                self.prior_ssthresh = self.current_ssthresh(tcb);
            }
            self.init_cwnd_reduction(tcb, now, CongestionSignal::FastRetransmit);
        }
        self.state = CaState::Recovery;
        tcb.stats.fast_recoveries += 1;
    }

    /// `tcp_current_ssthresh`: ssthresh, or ¾ of cwnd if that is more (in a reduction:
    /// the ssthresh).
    fn current_ssthresh(&self, tcb: &Tcb) -> f64 {
        if self.in_cwnd_reduction() {
            tcb.window.ssthresh
        } else {
            let cwnd = Self::cwnd(tcb);
            tcb.window.ssthresh.max(((cwnd >> 1) + (cwnd >> 2)) as f64)
        }
    }

    fn init_undo(&mut self, tcb: &Tcb) {
        self.undo_marker = Some(tcb.snd_una);
        self.undo_retrans = tcb.retx_in_flight() as i32 + (self.tlp_high_seq.is_some() && self.tlp_retrans) as i32;
        if self.undo_retrans == 0 {
            self.undo_retrans = -1;
        }
    }

    /// The module's ssthresh for `signal` (`icsk_ca_ops->ssthresh`).
    fn module_ssthresh(&mut self, tcb: &mut Tcb, now: Time, signal: CongestionSignal) -> f64 {
        let event = CongestionEvent {
            now,
            signal,
            flight_size: tcb.outstanding(),
            in_slow_start: tcb.window.cwnd < tcb.window.ssthresh,
            first_reduction: tcb.reductions == 0,
            integer_ssthresh: false,
        };
        tcb.reductions += 1;
        let reduction = tcb.cc.on_congestion(&tcb.window, &event);
        reduction.ssthresh
    }

    /// `tcp_init_cwnd_reduction`.
    fn init_cwnd_reduction(&mut self, tcb: &mut Tcb, now: Time, signal: CongestionSignal) {
        self.high_seq = tcb.snd_max;
        self.tlp_high_seq = None;
        self.prior_cwnd = Self::cwnd(tcb);
        self.prr_delivered = 0;
        self.prr_out = 0;
        tcb.window.ssthresh = self.module_ssthresh(tcb, now, signal);
        tcb.pending_cwr |= tcb.cfg.ecn;
    }

    /// `tcp_cwnd_reduction` (RFC 6937).
    fn cwnd_reduction(&mut self, tcb: &mut Tcb, newly_acked_sacked: u32, newly_lost: u32, flags: &Flags) {
        if newly_acked_sacked == 0 || self.prior_cwnd == 0 {
            return;
        }
        self.prr_delivered += newly_acked_sacked;
        let ssthresh = tcb.window.ssthresh as i64;
        let in_flight = tcb.pipe() as i64;
        let delta = ssthresh - in_flight;
        let mut sndcnt = if delta < 0 {
            // Proportional: ssthresh/prior_cwnd of what has been delivered.
            let dividend = ssthresh as u64 * self.prr_delivered as u64 + self.prior_cwnd as u64 - 1;
            (dividend / self.prior_cwnd as u64) as i64 - self.prr_out as i64
        } else {
            // Slow start back up to ssthresh.
            let mut count = (self.prr_delivered as i64 - self.prr_out as i64).max(newly_acked_sacked as i64);
            if flags.snd_una_advanced && newly_lost == 0 {
                count += 1;
            }
            count.min(delta)
        };
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        tcb.window.cwnd = (in_flight + sndcnt).max(1) as f64;
    }

    /// `tcp_end_cwnd_reduction`.
    fn end_cwnd_reduction(&mut self, tcb: &mut Tcb, now: Time) {
        if self.cong_control {
            return;
        }
        if tcb.window.ssthresh < 1e9 && (self.state == CaState::Cwr || self.undo_marker.is_some()) {
            tcb.window.cwnd = tcb.window.ssthresh.floor().max(1.0);
        }
        tcb.cc.on_recovery_end(&mut tcb.window, now);
    }

    /// `tcp_may_undo`: every retransmission D-SACKed, or the ACK echoes a timestamp older
    /// than the first retransmission (it acknowledges an original).
    fn may_undo(&self, tsecr_before_retransmission: bool) -> bool {
        self.undo_marker.is_some() && (self.undo_retrans == 0 || tsecr_before_retransmission)
    }

    /// `tcp_undo_cwnd_reduction`.
    fn undo_cwnd_reduction(&mut self, tcb: &mut Tcb, unmark_loss: bool) {
        if unmark_loss {
            tcb.unmark_lost();
        }
        if self.prior_ssthresh > 0.0 {
            let cwnd = tcb.cc.undo_cwnd(&tcb.window, self.prior_cwnd as f64);
            tcb.window.cwnd = cwnd.floor().max(1.0);
            if self.prior_ssthresh > tcb.window.ssthresh {
                tcb.window.ssthresh = self.prior_ssthresh;
            }
        }
        self.undo_marker = None;
        self.rack.advanced = true;
    }

    /// `tcp_try_undo_recovery`: true while the state holds (never for SACK here).
    fn try_undo_recovery(&mut self, tcb: &mut Tcb, _now: Time) -> bool {
        if self.may_undo(false) {
            self.undo_cwnd_reduction(tcb, false);
        }
        self.state = CaState::Open;
        false
    }

    /// `tcp_try_undo_dsack`: every retransmission of the episode was needless.
    fn try_undo_dsack(&mut self, tcb: &mut Tcb, _now: Time) -> bool {
        if self.undo_marker.is_some() && self.undo_retrans == 0 {
            self.undo_cwnd_reduction(tcb, false);
            return true;
        }
        false
    }

    /// `tcp_try_undo_partial` needs timestamps older than the first retransmission;
    /// echoes here are taken per ACK, so this is the D-SACK case only.
    fn try_undo_partial(&mut self, tcb: &mut Tcb, now: Time, _prior_snd_una: Seq) -> bool {
        if self.undo_marker.is_some() && self.undo_retrans == 0 && tcb.retx_in_flight() == 0 {
            self.undo_cwnd_reduction(tcb, true);
            self.try_keep_open(tcb);
            let _ = now;
            return true;
        }
        false
    }

    /// `tcp_process_loss` with F-RTO (RFC 5682).
    fn process_loss(&mut self, tcb: &mut Tcb, now: Time, dupack: bool, flags: &Flags) -> Rexmit {
        let recovered = tcb.snd_una >= self.high_seq;
        if flags.snd_una_advanced && self.try_undo_loss(tcb, false) {
            return Rexmit::None;
        }
        if self.frto {
            // Step 3.b: originals (never resent) acknowledged: the timeout was spurious.
            if flags.orig_sack_acked && self.try_undo_loss(tcb, true) {
                return Rexmit::None;
            }
            if tcb.snd_max > self.high_seq {
                if flags.data_sacked || dupack {
                    self.frto = false; // Step 3.a: the loss was real
                }
            } else if flags.snd_una_advanced && !recovered {
                self.high_seq = tcb.snd_max;
                // Step 2.b: send new data first.
                if tcb.may_send_new(now) {
                    return Rexmit::New;
                }
                self.frto = false;
            }
        }
        if recovered {
            self.try_undo_recovery(tcb, now);
            return Rexmit::None;
        }
        Rexmit::Lost
    }

    /// `tcp_try_undo_loss`.
    fn try_undo_loss(&mut self, tcb: &mut Tcb, frto_undo: bool) -> bool {
        if frto_undo || self.may_undo(false) {
            self.undo_cwnd_reduction(tcb, true);
            self.retransmits = 0;
            self.state = CaState::Open;
            self.retx_hint = tcb.snd_una;
            return true;
        }
        false
    }

    /// `tcp_may_raise_cwnd`'s partner inside the modules: `tcp_is_cwnd_limited`.
    fn cwnd_limited(&self, tcb: &Tcb) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        tcb.window.cwnd < tcb.window.ssthresh && (Self::cwnd(tcb) as u64) < 2 * self.max_packets_out as u64
    }

    /// `tcp_cwnd_validate`.
    fn cwnd_validate(&mut self, tcb: &Tcb, is_cwnd_limited: bool) {
        let packets_out = tcb.outstanding();
        if tcb.snd_una >= self.cwnd_usage_seq || is_cwnd_limited || (!self.is_cwnd_limited && packets_out > self.max_packets_out) {
            self.is_cwnd_limited = is_cwnd_limited;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = tcb.snd_max;
        }
    }

    /// `tcp_update_pacing_rate` (algorithms that set their own rate are left alone).
    fn update_pacing_rate(&mut self, tcb: &mut Tcb) {
        if self.module_paces {
            return;
        }
        let srtt8 = Self::srtt8_us(tcb);
        self.pacing_rate = gso::pacing_rate(Self::cwnd(tcb), tcb.window.ssthresh, tcb.outstanding(), srtt8, self.mss);
    }

    /// The rate sample (`tcp_rate_gen`) to the module (`cong_control`, BBR).
    fn rate_sample(&mut self, tcb: &mut Tcb, now: Time, ca_rtt: Option<i64>, losses: u32, prior_in_flight: u32) {
        let (delivered, in_flight) = (tcb.delivered, tcb.pipe());
        let pacing_ahead = tcb.pacer.as_ref().map_or(0, |p| p.next_send().saturating_sub(now));
        let Some(rate) = tcb.rate.as_mut() else { return };
        let mut rs = rate.sample(now, delivered, in_flight, ca_rtt.map(|us| us.max(1) as Time * 1000));
        rs.losses = losses;
        rs.lost_total = self.lost_total;
        rs.prior_in_flight = prior_in_flight;
        rs.ca_state = self.state;
        rs.pacing_ahead = pacing_ahead;
        tcb.cc.on_rate_sample(&mut tcb.window, &rs);
        if tcb.cc.marks_app_limited() {
            // BBR in PROBE_RTT: samples are app-limited until what is out is delivered.
            let in_flight = tcb.pipe();
            if let Some(rate) = tcb.rate.as_mut() {
                rate.mark_app_limited(delivered, in_flight);
            }
        }
    }

    // ---- timers ----

    /// The timer slot fired at `now`.
    pub(in crate::transport) fn on_timer(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        tcb.rto_deadline = None;
        match self.timer {
            Timer::Retransmission => self.retransmit_timer(tcb, now, out),
            Timer::ReorderWindow => self.reo_timeout(tcb, now, out),
            Timer::LossProbe => self.send_loss_probe(tcb, now, out),
        }
    }

    /// `tcp_retransmit_timer`.
    fn retransmit_timer(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        if tcb.outstanding() == 0 {
            return;
        }
        tcb.stats.timeouts += 1;
        self.enter_loss(tcb, now);
        self.retransmits += 1;
        let head = tcb.snd_una;
        self.transmit(tcb, now, Some(head), 1, out);
        tcb.rto.back_off();
        self.arm(tcb, now, Timer::Retransmission, tcb.rto.current());
    }

    /// `tcp_enter_loss` and `tcp_timeout_mark_lost`.
    fn enter_loss(&mut self, tcb: &mut Tcb, now: Time) {
        let new_recovery = self.state < CaState::Recovery;
        // Mark lost what is neither SACKed nor sent within RACK's RTT (the head always).
        let rack_rtt = self.rack.rtt();
        let mut marked = 0;
        for seq in tcb.snd_una..tcb.snd_max {
            let seg = *tcb.seg(seq);
            if seg.flags & SACKED != 0 {
                continue;
            }
            if seq != tcb.snd_una && (rack_rtt as i64 - now.saturating_sub(seg.sent_at) as i64) > 0 {
                continue; // recently sent: not lost yet
            }
            if seg.flags & LOST == 0 || seg.flags & RETX_IN_FLIGHT != 0 {
                marked += 1; // a lost retransmission counts as a loss too (`tp->lost`)
                tcb.mark_lost_again(seq);
            }
        }
        self.lost_total += marked;
        self.retx_hint = tcb.snd_una;
        // Cut ssthresh unless this window was cut already.
        if self.state <= CaState::Disorder || self.high_seq <= tcb.snd_una || (self.state == CaState::Loss && self.retransmits == 0) {
            self.prior_ssthresh = self.current_ssthresh(tcb);
            self.prior_cwnd = Self::cwnd(tcb);
            tcb.window.ssthresh = self.module_ssthresh(tcb, now, CongestionSignal::Timeout);
            self.init_undo(tcb);
        }
        tcb.window.cwnd = (tcb.pipe() + 1) as f64;
        self.state = CaState::Loss;
        tcb.cc.on_loss_totals(tcb.delivered, self.lost_total);
        tcb.cc.on_loss_state(&mut tcb.window, now);
        tcb.round_end = tcb.snd_max; // the module's round restarts (CUBIC's Loss reset)
        self.high_seq = tcb.snd_max;
        self.tlp_high_seq = None;
        tcb.pending_cwr |= tcb.cfg.ecn;
        self.frto = new_recovery || self.retransmits > 0;
        if let Some(rate) = tcb.rate.as_mut() {
            rate.restart();
        }
    }

    /// `tcp_rack_reo_timeout`.
    fn reo_timeout(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        let prior_in_flight = tcb.pipe();
        let lost_before = self.lost_total;
        self.detect_loss(tcb, now);
        if tcb.pipe() != prior_in_flight {
            if self.state != CaState::Recovery {
                self.enter_recovery(tcb, now, false);
                if !self.cong_control {
                    let flags = Flags::default();
                    self.cwnd_reduction(tcb, 1, (self.lost_total - lost_before) as u32, &flags);
                }
            }
            self.retransmit_lost(tcb, now, out);
        }
        if self.timer != Timer::Retransmission {
            self.rearm_rto(tcb, now);
        }
    }

    /// `tcp_send_loss_probe`.
    fn send_loss_probe(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        if self.tlp_high_seq.is_none() && tcb.outstanding() > 0 {
            self.tlp_retrans = false;
            let before = tcb.snd_max;
            if tcb.may_send_new(now) {
                self.write_xmit(tcb, now, true, out);
            }
            let probed = if tcb.snd_max > before {
                true
            } else {
                let last = tcb.snd_max - 1;
                if tcb.seg(last).flags & SACKED == 0 {
                    self.transmit(tcb, now, Some(last), 1, out);
                    self.tlp_retrans = true;
                    true
                } else {
                    false
                }
            };
            if probed {
                self.tlp_high_seq = Some(tcb.snd_max);
                self.timer = Timer::Retransmission; // the RTO restarts from now
            }
        }
        self.rearm_rto(tcb, now);
    }

    // ---- sending ----

    /// Send what the window allows: lost segments, then new data (the sender's start,
    /// application and pacing wake-ups).
    pub(in crate::transport) fn send(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        if tcb.lost() > tcb.retx_in_flight() {
            self.retransmit_lost(tcb, now, out);
        }
        self.write_xmit(tcb, now, false, out);
    }

    /// Paced and not yet due (`tcp_pacing_check`): the pacer's timer is set.
    fn pacing_blocks(tcb: &mut Tcb, now: Time) -> bool {
        match tcb.pacer.as_mut() {
            Some(pacer) => !pacer.ready(now),
            None => false,
        }
    }

    /// One GSO packet of `segments` leaves at `now`: lost segment `resend`, or new data.
    fn transmit(&mut self, tcb: &mut Tcb, now: Time, resend: Option<Seq>, segments: u32, out: &mut impl Outbox) -> u32 {
        let mut sent = 0;
        match resend {
            Some(seq) => {
                if self.retrans_stamp.is_none() {
                    self.retrans_stamp = Some(ts_ms(now));
                }
                tcb.retransmit(now, seq, true, out);
                self.rack.on_transmit(seq, now);
                if self.undo_retrans < 0 {
                    self.undo_retrans = 0;
                }
                self.undo_retrans += 1;
                sent = 1;
            }
            None => {
                let prior_packets = tcb.outstanding();
                if tcb.pipe() == 0 {
                    let idle = now.saturating_sub(self.last_data_send);
                    tcb.cc.on_tx_start(&mut tcb.window, now, idle);
                }
                while sent < segments && tcb.may_send_new(now) {
                    let seq = tcb.snd_max;
                    // `__tcp_transmit_skb`: the last segment of a GSO packet of two or
                    // more carries PSH (for GRO at the receiver to flush at once).
                    let last = sent + 1 == segments || !tcb.may_send_new_from(now, seq + 1);
                    tcb.send_new_segment(now, last && sent > 0, out);
                    self.rack.on_transmit(seq, now);
                    sent += 1;
                }
                self.last_data_send = now;
                if sent > 0 && (prior_packets == 0 || self.timer == Timer::LossProbe) {
                    self.rearm_rto(tcb, now);
                }
            }
        }
        self.segments_out += sent as u64;
        let previous = self.last_send;
        self.last_send = previous.max(now);
        let rate = self.pacing_segments(tcb);
        if let Some(pacer) = tcb.pacer.as_mut() {
            let next = gso::next_departure(now, pacer.next_send(), sent, rate, self.segments_out);
            pacer.set_next_send(next);
        }
        sent
    }

    /// The pacing rate, segments per second (`sk_pacing_rate` / mss): the algorithm's
    /// own (BBR), else `tcp_update_pacing_rate`'s.
    fn pacing_segments(&self, tcb: &Tcb) -> f64 {
        if self.module_paces {
            tcb.cc.pacing_rate().unwrap_or(0.0)
        } else {
            self.pacing_rate / self.mss as f64
        }
    }

    /// Segments per GSO packet now (`tcp_tso_segs`).
    fn tso_segs(&self, tcb: &Tcb) -> u32 {
        let rate = self.pacing_segments(tcb) * self.mss as f64;
        let min_tso = tcb.cc.min_tso_segs().unwrap_or(gso::MIN_TSO_SEGS);
        gso::tso_segs(rate, self.mss, min_tso, self.min_rtt_us.map(|us| us as u64))
    }

    /// `tcp_xmit_retransmit_queue`: resend lost segments while cwnd allows.
    fn retransmit_lost(&mut self, tcb: &mut Tcb, now: Time, out: &mut impl Outbox) {
        if tcb.outstanding() == 0 {
            return;
        }
        let mut rearm = false;
        let mut seq = self.retx_hint.max(tcb.snd_una);
        while seq < tcb.snd_max {
            if tcb.retx_in_flight() >= tcb.lost() {
                break;
            }
            if Self::pacing_blocks(tcb, now) {
                break;
            }
            if tcb.pipe() >= Self::cwnd(tcb) {
                break;
            }
            let flags = tcb.seg(seq).flags;
            if flags & LOST == 0 || flags & (SACKED | RETX_IN_FLIGHT) != 0 {
                seq += 1;
                continue;
            }
            self.transmit(tcb, now, Some(seq), 1, out);
            if self.in_cwnd_reduction() {
                self.prr_out += 1;
            }
            if seq == tcb.snd_una && self.timer != Timer::ReorderWindow {
                rearm = true;
            }
            seq += 1;
        }
        self.retx_hint = seq;
        if rearm {
            self.arm(tcb, now, Timer::Retransmission, tcb.rto.current());
        }
    }

    /// The send buffer, segments: `tcp_wmem[2]` over what a segment costs when written
    /// in buffers of `segments_per_buffer`.
    fn send_buffer_segments(&self, segments_per_buffer: u32) -> u32 {
        let cost = self.mss as u64 + SKB_OVERHEAD_BYTES / segments_per_buffer.max(1) as u64;
        (SEND_BUFFER_BYTES / cost).max(1) as u32
    }

    /// A bulk writer blocked on a full send buffer is woken once what the buffer holds
    /// (unacknowledged and unsent) is at most two thirds of it (`sk_stream_write_space`:
    /// free space ≥ half of what is queued), and fills it again.
    fn refill_send_buffer(&mut self, tcb: &Tcb, segments_per_buffer: u32) {
        let buffer = self.send_buffer_segments(segments_per_buffer);
        let queued = self.written.saturating_sub(tcb.snd_una);
        if 3 * queued as u64 <= 2 * buffer as u64 {
            self.written = tcb.snd_una + buffer;
        }
    }

    /// `tcp_write_xmit`: new data in GSO packets while cwnd, the send buffer, deferral
    /// and pacing allow; `probe`: one packet ignoring cwnd (a tail loss probe).
    fn write_xmit(&mut self, tcb: &mut Tcb, now: Time, probe: bool, out: &mut impl Outbox) {
        let max_segs = self.tso_segs(tcb);
        let mut sent = 0;
        let mut cwnd_limited = false;
        self.refill_send_buffer(tcb, max_segs);
        loop {
            if !tcb.may_send_new(now) {
                tcb.note_app_limited(now);
                break;
            }
            if Self::pacing_blocks(tcb, now) {
                break;
            }
            let in_flight = tcb.pipe();
            let cwnd = Self::cwnd(tcb);
            let mut quota = if in_flight >= cwnd { 0 } else { (cwnd / 2).max(1).min(cwnd - in_flight) };
            if quota == 0 {
                if !probe {
                    cwnd_limited = true;
                    break;
                }
                quota = 1;
            }
            quota = quota.min(max_segs);
            let window_room = tcb.cfg.max_window.saturating_sub(tcb.outstanding()).min(self.written.saturating_sub(tcb.snd_max));
            if window_room == 0 {
                break;
            }
            quota = quota.min(window_room);
            // A bulk application has more than one segment queued: GSO may wait.
            let queued_more = tcb.data_end.saturating_sub(tcb.snd_max) > 1 && tcb.written_at(tcb.snd_max + 1) <= now;
            if queued_more && !probe && quota > 0 {
                let head_sent_at = (tcb.outstanding() > 0).then(|| tcb.seg(tcb.snd_una).sent_at);
                // `tcp_wstamp_ns`: the last departure, or with pacing the next one's slot
                let last_send = tcb.pacer.as_ref().map_or(self.last_send, |pacer| pacer.next_send().max(self.last_send));
                let check = DeferCheck {
                    now,
                    last_send,
                    room: cwnd - in_flight,
                    cwnd,
                    max_segs,
                    head_sent_at,
                    srtt8_us: Self::srtt8_us(tcb),
                    recovering: self.state >= CaState::Recovery,
                };
                if in_flight < cwnd && gso::should_defer(&check) {
                    cwnd_limited = true;
                    break;
                }
            }
            let n = self.transmit(tcb, now, None, quota, out);
            if n == 0 {
                break;
            }
            sent += n;
            if probe {
                break;
            }
        }
        cwnd_limited |= tcb.pipe() >= Self::cwnd(tcb);
        if sent > 0 || cwnd_limited {
            self.cwnd_validate(tcb, cwnd_limited);
        }
        if sent > 0 {
            if self.in_cwnd_reduction() {
                self.prr_out += sent;
            }
            if !probe {
                self.schedule_loss_probe(tcb, now, false);
            }
        }
    }

    /// The recovery state, for tests and traces.
    pub fn state(&self) -> CaState {
        self.state
    }
}

/// A window as Linux keeps it: whole segments.
pub fn whole(window: &mut Window) {
    window.cwnd = window.cwnd.floor().max(1.0);
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
