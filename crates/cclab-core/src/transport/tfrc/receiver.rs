//! The TFRC receiver (RFC 5348 §5–6): detects lost and ECN-marked packets, groups them
//! into loss events, keeps the loss-interval history, measures the receive rate and
//! reports once per RTT, at once when a new loss event raises p. The `ns2` profile's
//! differences (docs/tfrc-ns2.md §3) are marked "ns-2:".
use super::equation;
use super::loss_history::LossIntervals;
use super::{Feedback, ReceiverRules, TfrcData};
use crate::sim::{Time, NS_PER_SEC};
use std::collections::VecDeque;

/// A packet as the loss detector remembers it: number, arrival and send time.
#[derive(Clone, Copy, Debug)]
struct Seen {
    seq: u32,
    arrived: Time,
    sent: Time,
}

/// Packets missing below an arrival: lost once `confirm_at` packets have arrived (the
/// NDUPACK rule, §5.1), at times interpolated between their neighbours (§5.2).
#[derive(Clone, Copy, Debug)]
struct Gap {
    before: Seen,
    after: Seen,
    confirm_at: u64,
    /// The arrival that revealed the gap: its RTT and round decide loss events (ns-2).
    rtt: Time,
    round: u32,
}

/// The current loss event: its first lost packet, that packet's (interpolated) time and
/// the sender's round then.
#[derive(Clone, Copy, Debug)]
struct LossEvent {
    seq: u32,
    at: Time,
    round: u32,
}

pub struct TfrcReceiver {
    rules: ReceiverRules,
    history: LossIntervals,
    /// The next sequence number expected (one past the highest received).
    expected: u32,
    packets_received: u64,
    last: Option<Seen>,
    gaps: VecDeque<Gap>,
    event: Option<LossEvent>,
    /// From the newest data packet: the sender's RTT and t_RTO estimates (ns; 0 = none).
    rtt: Time,
    t_rto: Time,
    last_feedback: Option<Time>,
    /// `expected` when the last report was built (ns-2 starts the open interval there
    /// after its made-up first interval).
    expected_at_feedback: u32,
    packets_since_feedback: u64,
    /// ns-2: arrival times within the last RTT, for a report sooner than an RTT after the last.
    recent_arrivals: VecDeque<Time>,
    last_arrival: Time,
    /// A report to send at once (first packet, urgent packet, new loss event).
    feedback_now: bool,
    /// ns-2 reports p0 itself right after it made up the first interval.
    made_up_rate: Option<f64>,
    last_reported_p: f64,
    pub packets_lost: u64,
    pub loss_events: u64,
    pub marked_packets: u64,
    pub feedback_sent: u64,
}

impl TfrcReceiver {
    pub fn new(rules: ReceiverRules) -> TfrcReceiver {
        let history = LossIntervals::new(rules.intervals, rules.discounting, rules.min_discount);
        TfrcReceiver {
            history: if rules.ns2 { history.at_reports() } else { history },
            rules,
            expected: 0,
            packets_received: 0,
            last: None,
            gaps: VecDeque::new(),
            event: None,
            rtt: 0,
            t_rto: 0,
            last_feedback: None,
            expected_at_feedback: 0,
            packets_since_feedback: 0,
            recent_arrivals: VecDeque::new(),
            last_arrival: 0,
            feedback_now: false,
            made_up_rate: None,
            last_reported_p: 0.0,
            packets_lost: 0,
            loss_events: 0,
            marked_packets: 0,
            feedback_sent: 0,
        }
    }

    /// Packets in the open interval I_0: from the current loss event's first to the newest.
    fn open_interval(&self) -> f64 {
        self.event.map_or(0.0, |e| self.expected.wrapping_sub(e.seq) as f64)
    }

    /// The loss event rate now (0 before the first loss event).
    pub fn loss_event_rate(&self) -> f64 {
        self.history.loss_event_rate(self.open_interval())
    }

    /// A data packet arrives at `now`, CE-marked or not. Returns the application packets
    /// delivered (1) and a report to send at once, if any.
    pub fn on_data(&mut self, now: Time, data: &TfrcData, ce: bool) -> (u32, Option<Feedback>) {
        self.packets_received += 1;
        self.packets_since_feedback += 1;
        self.last_arrival = now;
        if data.rtt > 0 {
            self.rtt = data.rtt;
            self.t_rto = data.t_rto;
        }
        if self.rules.ns2 {
            self.recent_arrivals.push_back(now);
            while self.recent_arrivals.front().is_some_and(|&t| t + self.rtt < now) {
                self.recent_arrivals.pop_front();
            }
        }
        let seen = Seen { seq: data.seq, arrived: now, sent: data.sent_at };
        let newest = data.seq >= self.expected;
        if data.seq > self.expected {
            let before = self.last.unwrap_or(Seen { seq: self.expected.wrapping_sub(1), ..seen });
            self.gaps.push_back(Gap {
                before,
                after: seen,
                confirm_at: self.packets_received + self.rules.ndupack as u64 - 1,
                rtt: data.rtt,
                round: data.round,
            });
        }
        if newest {
            self.expected = data.seq + 1;
            self.last = Some(seen);
        }
        while self.gaps.front().is_some_and(|g| g.confirm_at <= self.packets_received) {
            let gap = self.gaps.pop_front().expect("checked");
            for seq in gap.before.seq.wrapping_add(1)..gap.after.seq {
                self.packets_lost += 1;
                // §5.2: the lost packet's nominal time, interpolated by sequence number
                // (RFC: arrival times; ns-2: send times).
                let (t0, t1) =
                    if self.rules.ns2 { (gap.before.sent, gap.after.sent) } else { (gap.before.arrived, gap.after.arrived) };
                let fraction = (seq - gap.before.seq) as f64 / (gap.after.seq - gap.before.seq) as f64;
                let at = t0 + ((t1 - t0) as f64 * fraction) as Time;
                self.register_loss(now, seq, at, gap.rtt, gap.round, data);
            }
        }
        if ce {
            self.marked_packets += 1;
            let at = if self.rules.ns2 { data.sent_at } else { now };
            self.register_loss(now, data.seq, at, data.rtt, data.round, data);
        }
        if self.last_feedback.is_none() || (self.rules.ns2 && data.urgent) {
            self.feedback_now = true; // §6.3: report on the first data packet
        }
        if self.rules.ns2 && newest && self.rtt > 0 && self.last_feedback.is_some_and(|at| now - at >= self.rtt) {
            self.feedback_now = true; // ns-2 reports on the first new packet an RTT on
        }
        let feedback = self.feedback_now.then(|| self.feedback(now));
        (1, feedback)
    }

    /// A lost or marked packet `seq` whose nominal time was `at`, revealed by a packet
    /// carrying the sender's RTT `rtt` and `round`.
    fn register_loss(&mut self, now: Time, seq: u32, at: Time, rtt: Time, round: u32, revealing: &TfrcData) {
        match self.event {
            None if self.rules.ns2 => {
                // ns-2 `adjust_history`: the first event is replaced by a made-up interval
                // 1/p0, p0 the (coarse) inverse of the equation at the receive rate; the
                // open interval starts after the last report.
                let rtt = self.rtt_seconds();
                let t_rto = self.t_rto as f64 / NS_PER_SEC as f64;
                let p0 = equation::ns2_loss_rate_for(self.receive_rate(now), self.rules.packet_bytes, rtt, t_rto);
                self.history.close((1.0 / p0).floor().max(1.0));
                self.event = Some(LossEvent { seq: self.expected_at_feedback, at: revealing.sent_at, round: revealing.round });
                self.made_up_rate = Some(p0);
                self.new_event();
            }
            None => {
                // §6.3.1: the first loss interval is made up so that the equation gives
                // the receive rate (slow start's packets are not a loss interval).
                let rtt = self.rtt_seconds();
                let p = equation::loss_rate_for(self.receive_rate(now), self.rules.packet_bytes, rtt, 4.0 * rtt, 1.0);
                self.history.close(1.0 / p);
                self.event = Some(LossEvent { seq, at, round });
                self.new_event();
            }
            Some(event) => {
                // Losses within one RTT of the event's first belong to it (ns-2 also
                // needs the sender to have acted on a report since, `PreciseLoss_`).
                let later = at > event.at + rtt;
                if later && (!self.rules.ns2 || round > event.round) {
                    self.history.close(seq.wrapping_sub(event.seq) as f64);
                    self.event = Some(LossEvent { seq, at, round });
                    self.new_event();
                }
            }
        }
    }

    fn new_event(&mut self) {
        self.loss_events += 1;
        // §6.1: a new loss event that raises p is reported at once (ns-2: any new one).
        if self.rules.ns2 || self.loss_event_rate() > self.last_reported_p {
            self.feedback_now = true;
        }
    }

    fn rtt_seconds(&self) -> f64 {
        // Before the sender has an estimate, assume the 0.5 s RFC 6298 uses for none.
        if self.rtt > 0 {
            self.rtt as f64 / NS_PER_SEC as f64
        } else {
            0.5
        }
    }

    /// X_recv in bytes/s: what arrived since the last report over the time since (ns-2:
    /// if less than an RTT has passed, what arrived within the last RTT over the RTT;
    /// with nothing to go on, one packet per second).
    fn receive_rate(&self, now: Time) -> f64 {
        let s = self.rules.packet_bytes;
        let since = self.last_feedback.map(|at| now.saturating_sub(at)).unwrap_or(0);
        if self.rules.ns2 {
            if self.rtt > 0 && self.last_feedback.is_some() && since >= self.rtt {
                return self.packets_since_feedback as f64 * s / (since as f64 / NS_PER_SEC as f64);
            }
            if self.rtt > 0 && !self.recent_arrivals.is_empty() {
                return self.recent_arrivals.len() as f64 * s / self.rtt_seconds();
            }
            return s;
        }
        if since == 0 {
            return s / self.rtt_seconds().max(1.0);
        }
        self.packets_since_feedback as f64 * s / (since as f64 / NS_PER_SEC as f64)
    }

    fn feedback(&mut self, now: Time) -> Feedback {
        let open = self.open_interval();
        self.history.report(open);
        let p = self.made_up_rate.take().unwrap_or_else(|| self.history.loss_event_rate(open));
        let newest = self.last.expect("a report follows a data packet");
        let feedback = Feedback {
            echo_sent_at: newest.sent,
            delay: now - newest.arrived,
            receive_rate: self.receive_rate(now),
            loss_event_rate: p,
        };
        self.last_reported_p = p;
        self.last_feedback = Some(now);
        self.expected_at_feedback = self.expected;
        self.packets_since_feedback = 0;
        self.feedback_now = false;
        self.feedback_sent += 1;
        feedback
    }

    /// The report timer: one RTT after the last report if data came since (ns-2: 1.5 RTT,
    /// a fallback for when no new packet triggers one).
    pub fn deadline(&self) -> Option<Time> {
        let last = self.last_feedback?;
        if self.rtt == 0 || self.last_arrival < last || (self.last_arrival == last && !self.rules.ns2) {
            return None;
        }
        let wait = if self.rules.ns2 { self.rtt + self.rtt / 2 } else { self.rtt };
        Some(last + wait)
    }

    /// The report timer may be due at `now`.
    pub fn on_timer(&mut self, now: Time) -> Option<Feedback> {
        match self.deadline() {
            Some(at) if at <= now => Some(self.feedback(now)),
            _ => None,
        }
    }
}
