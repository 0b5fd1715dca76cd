//! LEDBAT (RFC 6817, Low Extra Delay Background Transport), as ns-3.44's TcpLedbat
//! (read, not copied): a scavenger that keeps the queueing delay it adds near a target
//! and yields to standard TCP, which fills the queue past it.
//!
//! - Delays: the current delay is the smallest of the last `noise_filter_len` (4)
//!   samples; the base delay the smallest of per-minute minima over the last
//!   `base_history_len` (10) minutes (RFC 6817 §3.4.2); queuing_delay = current − base.
//! - Slow start (`slow_start`, on by default as in ns-3) is NewReno's, and only until
//!   the first congestion-avoidance step (again after the window fell to one segment).
//! - Congestion avoidance: cwnd += `gain`·off_target·acked/cwnd per ACK, off_target =
//!   (target − queuing_delay)/target (`target` 100 ms), so the window shrinks once the
//!   queue is above target; cwnd ≤ flight size + 1 segment (ALLOWED_INCREASE) and ≥
//!   `min_cwnd` (2); ssthresh follows cwnd down (ns-3: ssthresh = cwnd − 1 byte). No
//!   delay sample yet: Reno's increase, as ns-3 without one-way delays.
//! - A loss: Reno's halving.
//!
//! Deviations from ns-3.44: the delay samples are the ACKs' RTT samples, not one-way
//! delays from TCP timestamps: the same queueing delay when the ACK path has no queue.
//! (ns-3 needs timestamps for its one-way delays and, without them, runs NewReno's
//! increase throughout.) The noise filter holds `noise_filter_len` samples (ns-3's
//! buffer keeps one fewer); base minutes count from the first sample (ns-3: from the
//! simulation's start). The cap is the flight before the ACK plus one segment, as RFC
//! 6817 §2.4.2 (ns-3 leaves out the allowed increase, which holds a window of whole
//! segments where it is).
use super::reno::{additive_increase, cut, slow_start};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A base-delay minute (RFC 6817 §3.4.2).
const MINUTE: Time = 60_000_000_000;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LedbatConfig {
    /// TARGET, the queueing delay aimed at (ns-3 `TargetDelay`: 100 ms; RFC 6817: at
    /// most 100 ms).
    pub target: Duration,
    /// Minutes of base-delay history (ns-3 `BaseHistoryLen`: 10).
    pub base_history_len: u32,
    /// Samples the current delay is the smallest of (ns-3 `NoiseFilterLen`: 4).
    pub noise_filter_len: u32,
    /// GAIN (ns-3 `Gain`: 1; RFC 6817: at most 1).
    pub gain: f64,
    /// Slow start before the first congestion-avoidance step (ns-3 `SSParam`:
    /// DO_SLOWSTART).
    pub slow_start: bool,
    /// The smallest window, segments (ns-3 `MinCwnd`: 2).
    pub min_cwnd: u32,
}

impl Default for LedbatConfig {
    fn default() -> Self {
        LedbatConfig { target: Duration::from_millis(100), base_history_len: 10, noise_filter_len: 4, gain: 1.0, slow_start: true, min_cwnd: 2 }
    }
}

impl Algorithm for LedbatConfig {
    /// ns-2.35 has no LEDBAT.
    fn in_ns2(&self) -> bool {
        false
    }
    type Controller = Ledbat;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        super::westwood::validate_seconds("target", self.target.secs_f64())?;
        for (field, value, min, max) in [
            ("base_history_len", self.base_history_len, 1, 1000),
            ("noise_filter_len", self.noise_filter_len, 1, 1000),
            ("min_cwnd", self.min_cwnd, 1, 1000),
        ] {
            if !(min..=max).contains(&value) {
                return Err((field, format!("{value} is not an integer in [{min}, {max}]")));
            }
        }
        if !(self.gain > 0.0 && self.gain <= 100.0) {
            return Err(("gain", format!("{} is not in (0, 100]", crate::schema::Num(self.gain))));
        }
        Ok(())
    }

    fn build(&self) -> Ledbat {
        Ledbat { config: self.clone(), noise: VecDeque::new(), base: VecDeque::new(), minute_start: 0, can_slow_start: true, queuing_delay: 0.0 }
    }
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    config: LedbatConfig,
    /// The last delay samples (ns) and the per-minute minima.
    noise: VecDeque<Time>,
    base: VecDeque<Time>,
    /// When the newest base minute began.
    minute_start: Time,
    can_slow_start: bool,
    /// The last queuing delay computed (ms), for tracing.
    queuing_delay: f64,
}

impl Ledbat {
    fn add_sample(&mut self, now: Time, delay: Time) {
        self.noise.push_back(delay);
        if self.noise.len() > self.config.noise_filter_len as usize {
            self.noise.pop_front();
        }
        match self.base.back_mut() {
            Some(last) if now < self.minute_start + MINUTE => *last = (*last).min(delay),
            _ => {
                self.base.push_back(delay);
                self.minute_start = now;
                if self.base.len() > self.config.base_history_len as usize {
                    self.base.pop_front();
                }
            }
        }
    }

    /// current − base delay (ns), once there is a sample.
    pub fn queuing_delay(&self) -> Option<f64> {
        let current = self.noise.iter().min()?;
        let base = self.base.iter().min()?;
        Some(*current as f64 - *base as f64)
    }
}

impl CongestionControl for Ledbat {
    fn label(&self) -> String {
        "ledbat".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt.filter(|&r| r > 0) {
            self.add_sample(ack.now, rtt);
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        if window.cwnd <= 1.0 {
            self.can_slow_start = true;
        }
        if self.config.slow_start && self.can_slow_start && window.cwnd <= window.ssthresh {
            slow_start(window);
            return;
        }
        self.can_slow_start = false;
        let Some(queuing_delay) = self.queuing_delay() else {
            additive_increase(window, 1.0);
            return;
        };
        self.queuing_delay = queuing_delay / 1e6;
        let target = self.config.target.ns() as f64;
        let off_target = (target - queuing_delay) / target;
        let acked = ack.segments_acked as f64;
        let mut cwnd = window.cwnd + self.config.gain * off_target * acked / window.cwnd;
        cwnd = cwnd.min(ack.in_flight as f64 + acked + 1.0);
        cwnd = cwnd.max(self.config.min_cwnd as f64);
        window.cwnd = cwnd;
        if window.cwnd <= window.ssthresh {
            window.ssthresh = window.cwnd;
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        cut(window.cwnd / 2.0, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("queuing_delay_ms", self.queuing_delay));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn ack(now: Time, rtt_ms: u64, in_flight: u32) -> AckSample {
        AckSample { now, segments_acked: 1, rtt: Some(rtt_ms * MS), in_flight, ..Default::default() }
    }

    fn step(l: &mut Ledbat, w: &mut Window, a: AckSample) {
        l.on_ack_event(w, &a);
        l.on_ack(w, &a);
    }

    /// Base 40 ms (the smallest sample), target 100 ms. Current delay 65 ms (min of the
    /// last 4): off_target = (100 − 25)/100 = 0.75, cwnd 20 → 20 + 0.75/20 = 20.0375. At
    /// 190 ms: (100 − 150)/100 = −0.5 → −0.5/20 per ACK. The flight cap: 10 in flight
    /// after the ACK, 1 acked → at most 12.
    #[test]
    fn window_moves_by_off_target() {
        let mut l = LedbatConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        step(&mut l, &mut w, ack(0, 40, 100)); // first CA step (cwnd > ssthresh): base 40, current 40
        assert!((w.cwnd - (20.0 + 1.0 / 20.0)).abs() < 1e-12);
        assert!(!l.can_slow_start);
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        for rtt in [65, 70, 80, 66] {
            l.on_ack_event(&w, &ack(MS, rtt, 100));
        }
        l.on_ack(&mut w, &ack(MS, 66, 100));
        assert!((w.cwnd - 20.0375).abs() < 1e-12, "{}", w.cwnd);
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        for _ in 0..4 {
            l.on_ack_event(&w, &ack(2 * MS, 190, 100));
        }
        l.on_ack(&mut w, &ack(2 * MS, 190, 100));
        assert!((w.cwnd - (20.0 - 0.5 / 20.0)).abs() < 1e-12);
        assert_eq!(w.ssthresh, 10.0);
        // the flight cap and the floor
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        l.on_ack(&mut w, &ack(2 * MS, 40, 10));
        assert_eq!(w.cwnd, 12.0);
        let mut w = Window { cwnd: 2.0, ssthresh: 10.0 };
        l.can_slow_start = false;
        l.on_ack(&mut w, &ack(2 * MS, 190, 10));
        assert_eq!((w.cwnd, w.ssthresh), (2.0, 2.0), "min_cwnd; ssthresh follows cwnd down");
    }

    /// Slow start until the first CA step, then not again until cwnd falls to 1.
    #[test]
    fn slow_start_only_at_the_start() {
        let mut l = LedbatConfig::default().build();
        let mut w = Window { cwnd: 2.0, ssthresh: 1e9 };
        step(&mut l, &mut w, ack(0, 40, 2));
        assert_eq!(w.cwnd, 3.0);
        let mut w = Window { cwnd: 30.0, ssthresh: 20.0 };
        step(&mut l, &mut w, ack(0, 40, 30)); // CA
        let mut w2 = Window { cwnd: 5.0, ssthresh: 1e9 };
        step(&mut l, &mut w2, ack(0, 40, 5));
        assert!(w2.cwnd < 6.0, "no slow start after CA: {}", w2.cwnd);
        let mut w3 = Window { cwnd: 1.0, ssthresh: 5.0 };
        step(&mut l, &mut w3, ack(0, 40, 1));
        assert_eq!(w3.cwnd, 2.0, "after a timeout's one segment, slow start again");
    }

    /// The base history keeps per-minute minima: a minute at 40 ms then one at 60 ms —
    /// the base stays 40 for 10 minutes, then the 40-ms minute falls out.
    #[test]
    fn base_delay_is_a_minimum_over_minutes() {
        let mut l = LedbatConfig { base_history_len: 2, noise_filter_len: 1, ..Default::default() }.build();
        l.add_sample(0, 40 * MS);
        l.add_sample(MINUTE + 1, 60 * MS);
        assert_eq!(l.queuing_delay(), Some(20.0 * MS as f64));
        l.add_sample(2 * MINUTE + 2, 60 * MS);
        assert_eq!(l.queuing_delay(), Some(0.0), "the 40-ms minute left the history");
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&LedbatConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&LedbatConfig { target: Duration(0), ..Default::default() }).unwrap_err().0, "target");
        assert_eq!(Algorithm::validate(&LedbatConfig { gain: 0.0, ..Default::default() }).unwrap_err().0, "gain");
        assert_eq!(Algorithm::validate(&LedbatConfig { noise_filter_len: 0, ..Default::default() }).unwrap_err().0, "noise_filter_len");
    }
}
