//! TCP Vegas (Brakmo & Peterson, JSAC 1995), as Linux's net/ipv4/tcp_vegas.c (read, not
//! copied). Once per round trip the expected and actual rates are compared through
//! diff = cwnd·(RTT − baseRTT)/baseRTT, the segments the flow keeps queued (RTT the
//! smallest sample of the round, baseRTT the smallest ever):
//!
//! - in slow start, diff > γ (1) leaves it: cwnd = min(cwnd, cwnd·baseRTT/RTT + 1),
//!   ssthresh = min(ssthresh, cwnd − 1); otherwise slow start goes on (one per ACK);
//! - in congestion avoidance, diff > β (4): cwnd − 1 (and ssthresh with it); diff < α
//!   (2): cwnd + 1; else unchanged;
//! - a round with at most 2 RTT samples grows as Reno; cwnd stays ≥ 2.
//!
//! Losses are Reno's. Differences from Linux: the round is the sender's (the ACK that
//! passes what was outstanding when it began, `on_round`), and ssthresh is not raised to
//! ¾·cwnd after each adjustment (`tcp_current_ssthresh`), which only matters for a later
//! slow start.
use super::reno::{additive_increase, cut, slow_start};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Grow when fewer than α segments are queued (Linux: 2).
    pub alpha: f64,
    /// Shrink when more than β are (Linux: 4).
    pub beta: f64,
    /// Leave slow start when more than γ are (Linux: 1).
    pub gamma: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig { alpha: 2.0, beta: 4.0, gamma: 1.0 }
    }
}

impl Algorithm for VegasConfig {
    type Controller = Vegas;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        for (field, value) in [("alpha", self.alpha), ("beta", self.beta), ("gamma", self.gamma)] {
            if !(value >= 0.0 && value <= 10_000.0) {
                return Err((field, format!("{} is not a segment count in [0, 10000]", num(value))));
            }
        }
        if self.alpha > self.beta {
            return Err(("alpha", format!("{} is above beta ({}): Vegas needs α ≤ β", num(self.alpha), num(self.beta))));
        }
        Ok(())
    }

    fn build(&self) -> Vegas {
        Vegas { config: self.clone(), base_rtt: None, round_min_rtt: None, round_samples: 0, diff: 0.0 }
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    config: VegasConfig,
    /// The smallest RTT ever and the smallest of this round (ns), and how many samples.
    base_rtt: Option<Time>,
    round_min_rtt: Option<Time>,
    round_samples: u32,
    /// The last round's diff (segments queued), for tracing.
    diff: f64,
}

impl CongestionControl for Vegas {
    fn label(&self) -> String {
        "vegas".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |base| base.min(rtt)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |min| min.min(rtt)));
            self.round_samples += 1;
        }
    }

    fn on_ack(&mut self, window: &mut Window, _ack: &AckSample) {
        // Between adjustments only slow start moves the window (Linux: tcp_slow_start).
        if window.cwnd < window.ssthresh {
            slow_start(window);
        }
    }

    /// The once-per-RTT adjustment.
    fn on_round(&mut self, window: &mut Window, _now: Time) {
        let (samples, round_min) = (self.round_samples, self.round_min_rtt.take());
        self.round_samples = 0;
        let (Some(base), Some(rtt)) = (self.base_rtt, round_min) else { return };
        if samples <= 2 {
            if window.cwnd >= window.ssthresh {
                additive_increase(window, 1.0 * window.cwnd); // Reno: one segment this round
            }
            return;
        }
        let (base, rtt) = (base as f64, rtt as f64);
        let diff = window.cwnd * (rtt - base) / base;
        self.diff = diff;
        if window.cwnd < window.ssthresh {
            if diff > self.config.gamma {
                window.cwnd = window.cwnd.min(window.cwnd * base / rtt + 1.0);
                window.ssthresh = window.ssthresh.min(window.cwnd - 1.0);
            }
        } else if diff > self.config.beta {
            window.cwnd -= 1.0;
            window.ssthresh = window.ssthresh.min(window.cwnd - 1.0);
        } else if diff < self.config.alpha {
            window.cwnd += 1.0;
        }
        window.cwnd = window.cwnd.max(2.0);
        window.ssthresh = window.ssthresh.max(2.0);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        cut(window.cwnd / 2.0, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("base_rtt_ms", self.base_rtt.map_or(0.0, |t| t as f64 / 1e6)));
        out.push(("diff", self.diff));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtt_ack(rtt_ms: u64) -> AckSample {
        AckSample { segments_acked: 1, rtt: Some(rtt_ms * 1_000_000), ..Default::default() }
    }

    fn round(cc: &mut Vegas, w: &mut Window, rtt_ms: u64, acks: usize) {
        crate::cc::westwood::tests::round_at(cc, w, rtt_ms, acks);
    }

    /// baseRTT 100 ms; cwnd 20 in congestion avoidance. A round at 105 ms queues
    /// 20·5/100 = 1 segment < α: +1. At 125 ms, 21·25/100 = 5.25 > β: −1. At 115 ms,
    /// 20·15/100 = 3, between α and β: unchanged.
    #[test]
    fn adjusts_once_per_round_by_the_queue_it_keeps() {
        let mut vegas = VegasConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        round(&mut vegas, &mut w, 100, 5);
        assert_eq!(w.cwnd, 21.0); // diff 0 < α
        round(&mut vegas, &mut w, 105, 5);
        assert!((vegas.diff - 21.0 * 0.05).abs() < 1e-9 && w.cwnd == 22.0);
        round(&mut vegas, &mut w, 125, 5);
        assert!((vegas.diff - 22.0 * 0.25).abs() < 1e-9 && w.cwnd == 21.0);
        round(&mut vegas, &mut w, 115, 5);
        assert!((vegas.diff - 21.0 * 0.15).abs() < 1e-9 && w.cwnd == 21.0);
    }

    /// In slow start a round that queues more than γ leaves it: cwnd 32 at RTT 120 ms over
    /// a 100-ms base queues 6.4 > 1: cwnd = min(32, 32·100/120 + 1) = 27.67, ssthresh 26.67.
    #[test]
    fn leaves_slow_start_when_a_queue_builds() {
        let mut vegas = VegasConfig::default().build();
        let mut w = Window { cwnd: 27.0, ssthresh: 1e9 };
        round(&mut vegas, &mut w, 100, 5); // slow start: +5 → 32
        assert_eq!(w.cwnd, 32.0);
        for _ in 0..5 {
            vegas.on_ack_event(&w, &rtt_ack(120));
        }
        vegas.on_round(&mut w, 0);
        assert!((w.cwnd - (32.0 * 100.0 / 120.0 + 1.0)).abs() < 1e-9);
        assert!((w.ssthresh - (w.cwnd - 1.0)).abs() < 1e-9);
    }

    #[test]
    fn validate_takes_each_range_as_stated() {
        let ok = VegasConfig::default();
        assert_eq!(Algorithm::validate(&ok), Ok(()));
        let bad = VegasConfig { alpha: 5.0, ..ok.clone() };
        assert_eq!(Algorithm::validate(&bad).unwrap_err().0, "alpha");
        let nan = VegasConfig { gamma: f64::NAN, ..ok };
        assert_eq!(Algorithm::validate(&nan).unwrap_err().0, "gamma");
    }
}
