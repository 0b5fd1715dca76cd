//! The TFRC sender (RFC 5348 §4): sends packets paced at the allowed rate X, sets X from
//! each receiver report by the throughput equation (or doubles it per RTT in slow start),
//! and halves it when reports stop coming (the nofeedback timer). The `ns2` profile's
//! differences are marked "ns-2:" and listed with their source in `docs/tfrc-ns2.md`.
use super::equation;
use super::{Feedback, SenderRules, TfrcData};
use crate::sim::{Time, NS_PER_SEC};

/// t_mbi: the longest interval between packets a sender backs off to (RFC 5348 §4.3).
const T_MBI: f64 = 64.0;
/// RTT smoothing of the RFC (q, §4.3) and of ns-2 (`df_`, also its √RTT average).
const RFC_RTT_WEIGHT: f64 = 0.9;
const NS2_RTT_WEIGHT: f64 = 0.95;
/// ns-2's `InitRate_`: 300 bytes/s before the first report.
const NS2_INITIAL_RATE: f64 = 300.0;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TfrcStats {
    pub packets_sent: u64,
    pub feedback_received: u64,
    pub nofeedback_expiries: u64,
    pub rtt_samples: u64,
    pub rtt_sum: f64,
}

/// ns-2's t_RTO: a TCP RTO estimator (srtt + 4·rttvar) in whole 0.1 s ticks, with srtt
/// scaled by 8 and rttvar by 4 as TCP's integer code keeps them (tfrc.cc `update_rtt`).
#[derive(Clone, Copy, Debug, Default)]
struct TickRto {
    scaled_srtt: i64,
    scaled_rttvar: i64,
}

impl TickRto {
    const TICK: f64 = 0.1;

    /// Take a sample of `seconds`; returns t_RTO in seconds.
    fn sample(&mut self, seconds: f64) -> f64 {
        let ticks = ((seconds / Self::TICK + 0.5) as i64).max(1);
        if self.scaled_srtt == 0 {
            self.scaled_srtt = 8 * ticks;
            self.scaled_rttvar = 2 * ticks;
        } else {
            let delta = ticks - (self.scaled_srtt >> 3);
            self.scaled_srtt = (self.scaled_srtt + delta).max(1);
            self.scaled_rttvar = (self.scaled_rttvar + delta.abs() - (self.scaled_rttvar >> 2)).max(1);
        }
        ((8 * self.scaled_rttvar + self.scaled_srtt) >> 3) as f64 * Self::TICK
    }
}

pub struct TfrcSender {
    rules: SenderRules,
    /// X, the allowed rate in bytes/s.
    rate: f64,
    /// R, the smoothed RTT in s, once there is a sample.
    rtt: Option<f64>,
    t_rto: f64,
    loss_event_rate: f64,
    slow_start: bool,
    /// Receive rates reported within the last two RTTs (RFC 5348 §4.3's X_recv_set).
    receive_rates: Vec<(Time, f64)>,
    /// When X last rose (RFC: tld, the last doubling; ns-2: `last_change_`).
    last_change: Time,
    last_feedback: Option<Time>,
    nofeedback_at: Option<Time>,
    next_send: Option<Time>,
    last_send: Option<Time>,
    seq: u32,
    stop_at: Option<Time>,
    // ns-2 only:
    /// Reports received plus nofeedback expiries (`round_id`).
    round: u32,
    /// 2·X_recv of the newest report (`maxrate_`); 0 for the first report.
    receive_limit: f64,
    /// Smoothed √RTT and the newest RTT sample (`sqrtrtt_`, `rttcur_`) for `ca_` spacing.
    sqrt_rtt: f64,
    newest_rtt: f64,
    tick_rto: TickRto,
    /// Slow start's linear ramp (`slow_increase_`): the rate packets are spaced by, and
    /// its step per packet, climbing to X over the next RTT.
    ramp_rate: f64,
    ramp_step: f64,
    /// Until the next report, each packet asks the receiver to report at once
    /// (`UrgentFlag`: the first packet and those after a nofeedback expiry).
    urgent: bool,
    pub stats: TfrcStats,
}

impl TfrcSender {
    /// A sender starting at `start`, sending until `stop_at` (exclusive).
    pub fn new(rules: SenderRules, start: Time, stop_at: Option<Time>) -> TfrcSender {
        // RFC 5348 §4.2: one packet per second until a report gives an RTT; the nofeedback
        // timer at 2 s. ns-2: 300 B/s, the timer at 2s/X.
        let (rate, nofeedback) = if rules.ns2 {
            (NS2_INITIAL_RATE, 2.0 * rules.packet_bytes / NS2_INITIAL_RATE)
        } else {
            (rules.packet_bytes, 2.0)
        };
        let mut sender = TfrcSender {
            rate,
            rules,
            rtt: None,
            t_rto: 0.0,
            loss_event_rate: 0.0,
            slow_start: true,
            receive_rates: Vec::new(),
            last_change: start,
            last_feedback: None,
            nofeedback_at: Some(start + seconds_to_ns(nofeedback)),
            next_send: None,
            last_send: None,
            seq: 0,
            stop_at,
            round: 0,
            receive_limit: 0.0,
            sqrt_rtt: 1.0,
            newest_rtt: 1.0,
            tick_rto: TickRto::default(),
            ramp_rate: 0.0,
            ramp_step: 0.0,
            urgent: true,
            stats: TfrcStats::default(),
        };
        sender.next_send = sender.running(start);
        sender
    }

    fn running(&self, at: Time) -> Option<Time> {
        self.stop_at.map_or(true, |stop| at < stop).then_some(at)
    }

    /// X in bytes/s.
    pub fn allowed_rate(&self) -> f64 {
        self.rate
    }
    pub fn rtt(&self) -> Option<f64> {
        self.rtt
    }
    pub fn loss_event_rate(&self) -> f64 {
        self.loss_event_rate
    }
    /// Whether its packets are ECN-capable.
    pub fn ecn(&self) -> bool {
        self.rules.ecn
    }

    pub fn deadline(&self) -> Option<Time> {
        // Once the application has stopped nothing more is sent, and the nofeedback
        // timer has nothing left to slow down.
        self.next_send.map(|send| self.nofeedback_at.map_or(send, |nofeedback| send.min(nofeedback)))
    }

    fn s(&self) -> f64 {
        self.rules.packet_bytes
    }

    /// The gap after a packet at the current rate, in ns.
    fn interval(&mut self) -> Time {
        let spacing_rate = if !self.rules.ns2 {
            self.rate
        } else if self.slow_start && self.round > 2 && self.ramp_rate + 1e-7 < self.rate {
            // ns-2 `slow_increase_`: climb to the new rate packet by packet.
            self.ramp_rate += self.ramp_step;
            self.ramp_rate
        } else {
            // ns-2 `ca_`: spacing scaled by √(newest RTT) / (smoothed √RTT), so a growing
            // queue slows the sender before the equation does.
            self.rate * self.sqrt_rtt / self.newest_rtt.sqrt()
        };
        seconds_to_ns((self.s() / spacing_rate).max(1e-7)).max(1)
    }

    /// Send a packet now and start the next gap.
    fn send_now(&mut self, now: Time, send: &mut impl FnMut(TfrcData)) {
        send(TfrcData {
            seq: self.seq,
            round: self.round,
            sent_at: now,
            rtt: self.rtt.map_or(0, seconds_to_ns),
            t_rto: seconds_to_ns(self.t_rto),
            urgent: self.urgent,
        });
        self.seq = self.seq.wrapping_add(1);
        self.stats.packets_sent += 1;
        self.last_send = Some(now);
        let gap = self.interval();
        self.next_send = self.running(now.saturating_add(gap));
    }

    /// Send what is due and run the nofeedback timer. Returns whether anything happened.
    pub fn on_timer(&mut self, now: Time, mut send: impl FnMut(TfrcData)) -> bool {
        let mut acted = false;
        if self.next_send.is_some() && self.nofeedback_at.is_some_and(|at| at <= now) {
            self.on_nofeedback(now, &mut send);
            acted = true;
        }
        while let Some(at) = self.next_send.filter(|&at| at <= now) {
            self.send_now(at, &mut send);
            acted = true;
        }
        acted
    }

    /// W_init / R (RFC 5348 §4.2: W_init = min(4s, max(2s, 4380 bytes)); ns-2 uses RFC
    /// 3390's 4 packets for s ≤ 1095).
    fn initial_rate(&self, rtt: f64) -> f64 {
        let s = self.s();
        let window = if self.rules.ns2 {
            if s <= 1095.0 {
                4.0 * s
            } else if s < 2190.0 {
                3.0 * s
            } else {
                2.0 * s
            }
        } else {
            (4.0 * s).min((2.0 * s).max(4380.0))
        };
        window / rtt
    }

    fn equation_rate(&self, rtt: f64) -> f64 {
        if self.rules.ns2 {
            equation::ns2_throughput(self.s(), rtt, self.loss_event_rate, self.t_rto)
        } else {
            equation::throughput(self.s(), rtt, self.loss_event_rate, self.t_rto, 1.0)
        }
    }

    fn max_receive_rate(&self) -> f64 {
        self.receive_rates.iter().map(|&(_, x)| x).fold(0.0, f64::max)
    }

    /// A receiver report arrives at `now`.
    pub fn on_feedback(&mut self, now: Time, feedback: &Feedback, mut send: impl FnMut(TfrcData)) {
        self.stats.feedback_received += 1;
        let sample = (now.saturating_sub(feedback.echo_sent_at).saturating_sub(feedback.delay)) as f64 / NS_PER_SEC as f64;
        let sample = sample.max(1e-6);
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum += sample;
        let weight = if self.rules.ns2 { NS2_RTT_WEIGHT } else { RFC_RTT_WEIGHT };
        let rtt = match self.rtt {
            None => {
                self.sqrt_rtt = sample.sqrt();
                sample
            }
            Some(r) => {
                self.sqrt_rtt = weight * self.sqrt_rtt + (1.0 - weight) * sample.sqrt();
                weight * r + (1.0 - weight) * sample
            }
        };
        self.rtt = Some(rtt);
        self.newest_rtt = sample;
        self.loss_event_rate = feedback.loss_event_rate;
        if self.rules.ns2 {
            self.ns2_feedback(now, rtt, sample, feedback, &mut send);
        } else {
            self.rfc_feedback(now, rtt, feedback);
        }
        self.last_feedback = Some(now);
    }

    /// RFC 5348 §4.3.
    fn rfc_feedback(&mut self, now: Time, rtt: f64, feedback: &Feedback) {
        self.t_rto = 4.0 * rtt;
        let horizon = seconds_to_ns(2.0 * rtt);
        self.receive_rates.retain(|&(at, _)| now.saturating_sub(at) <= horizon);
        self.receive_rates.push((now, feedback.receive_rate));
        let receive_limit = 2.0 * self.max_receive_rate();
        if self.loss_event_rate > 0.0 {
            self.slow_start = false;
            self.rate = self.equation_rate(rtt).min(receive_limit).max(self.s() / T_MBI);
        } else if self.last_feedback.is_none() {
            self.rate = self.initial_rate(rtt);
            self.last_change = now;
        } else if now - self.last_change >= seconds_to_ns(rtt) {
            self.rate = (2.0 * self.rate).min(receive_limit).max(self.initial_rate(rtt));
            self.last_change = now;
        }
        self.restart_nofeedback(now, 4.0);
        // The next packet goes one new interval after the last one.
        if self.next_send.is_some() {
            let gap = self.interval();
            let next = self.last_send.map_or(now, |last| last.saturating_add(gap).max(now));
            self.next_send = self.running(next);
        }
    }

    /// ns-2.35 `TfrcAgent::recv` (docs/tfrc-ns2.md §2.4).
    fn ns2_feedback(&mut self, now: Time, rtt: f64, sample: f64, feedback: &Feedback, send: &mut impl FnMut(TfrcData)) {
        self.round += 1;
        self.urgent = false;
        // The first report's receive rate is ignored.
        self.receive_limit = if self.round > 1 && feedback.receive_rate > 0.0 { 2.0 * feedback.receive_rate } else { 0.0 };
        self.t_rto = self.tick_rto.sample(sample);
        let equation = self.equation_rate(rtt);
        // Re-armed with the rate before this report's change.
        self.restart_nofeedback(now, 2.0);
        let packet_per_rtt = self.s() / rtt;
        if self.round == 1 || (self.slow_start && self.loss_event_rate == 0.0) {
            self.ns2_slow_start(now, rtt);
            if self.next_send.is_some() {
                self.send_now(now, send);
            }
        } else if self.slow_start {
            // The first loss ends slow start at the equation's rate, uncapped.
            self.slow_start = false;
            self.rate = equation;
            self.ramp_rate = equation;
        } else if equation > self.rate {
            // Additive: s/R per RTT elapsed since the last increase, at most two.
            let elapsed = (now - self.last_change) as f64 / NS_PER_SEC as f64;
            let cap = equation.min(self.receive_limit.max(packet_per_rtt));
            self.rate = (self.rate + packet_per_rtt * (elapsed / rtt).min(2.0)).min(cap);
            self.last_change = now;
        } else {
            self.rate = equation.min(self.receive_limit.max(packet_per_rtt));
        }
    }

    /// ns-2.35 `TfrcAgent::slowstart`: 4 packets per RTT for two rounds, then doubling at
    /// most once per RTT up to twice the receive rate, each step ramped over an RTT.
    fn ns2_slow_start(&mut self, now: Time, rtt: f64) {
        let initial = self.initial_rate(rtt);
        let old = self.rate;
        if self.round <= 2 {
            self.rate = self.rate.max(initial);
        } else if self.receive_limit > 0.0 {
            if self.rate < self.receive_limit && (now - self.last_change) as f64 > rtt * NS_PER_SEC as f64 {
                self.rate = (2.0 * self.rate).min(self.receive_limit).max(self.s() / rtt);
            } else if self.rate > self.receive_limit {
                self.rate = self.receive_limit / 2.0;
                self.ramp_rate = self.rate;
                self.ramp_step = 0.0;
                return;
            } else {
                return;
            }
        } else {
            self.rate = self.s() / rtt;
            return;
        }
        self.ramp_rate = old;
        self.ramp_step = (self.rate - old) / (self.rate * rtt / self.s());
        self.last_change = now;
    }

    fn restart_nofeedback(&mut self, now: Time, rtt_multiple: f64) {
        let seconds = match self.rtt {
            None => 2.0 * self.s() / self.rate,
            Some(rtt) => (rtt_multiple * rtt).max(2.0 * self.s() / self.rate),
        };
        self.nofeedback_at = Some(now + seconds_to_ns(seconds));
    }

    /// No report for a while: the receiver may be gone or the path badly congested.
    fn on_nofeedback(&mut self, now: Time, send: &mut impl FnMut(TfrcData)) {
        self.stats.nofeedback_expiries += 1;
        if self.rules.ns2 {
            // ns-2: halve X (no floor), ask for a report at once and send a packet now.
            self.rate /= 2.0;
            self.round += 1;
            self.urgent = true;
            self.restart_nofeedback(now, 2.0);
            self.send_now(now, send);
            return;
        }
        // RFC 5348 §4.4.
        let floor = self.s() / T_MBI;
        match self.rtt {
            Some(rtt) if self.loss_event_rate > 0.0 => {
                let equation = self.equation_rate(rtt);
                let receive = self.max_receive_rate();
                let limit = if equation > 2.0 * receive { receive } else { equation / 2.0 }.max(floor);
                self.receive_rates.clear();
                self.receive_rates.push((now, limit / 2.0));
                self.rate = equation.min(limit).max(floor);
            }
            // No RTT or no loss yet: halve.
            _ => self.rate = (self.rate / 2.0).max(floor),
        }
        self.restart_nofeedback(now, 4.0);
    }
}

fn seconds_to_ns(seconds: f64) -> Time {
    (seconds * NS_PER_SEC as f64).round() as Time
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_rto_settles_as_ns2_does() {
        // Any RTT under 150 ms gives 0.3 s; RTT k ≥ 2 ticks settles at k + 3 ticks.
        let mut rto = TickRto::default();
        let mut last = 0.0;
        for _ in 0..50 {
            last = rto.sample(0.05);
        }
        assert!((last - 0.3).abs() < 1e-12, "{last}");
        let mut rto = TickRto::default();
        for _ in 0..50 {
            last = rto.sample(0.4);
        }
        assert!((last - 0.7).abs() < 1e-12, "{last}");
    }
}
