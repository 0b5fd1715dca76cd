//! MR-AIMD, multi-rate AIMD (Psaras, Dianati & Tafazolli, "Why rely on blind AIMDs?"),
//! §3.1: the additive-increase factor `a` itself does AIMD.
//!
//! * Per ACK in congestion avoidance (Eq. 1): cwnd ← cwnd + a/cwnd and
//!   a ← a + a′/cwnd, i.e. a grows by a′ per RTT, so after n RTTs
//!   aₙ = aₙ₋₁ + a′·n (Eq. 3). a starts at 1, a′ at 0.5.
//! * An ECN-marked ACK sets a′ to 0.005 and does *not* reduce cwnd.
//! * Three duplicate ACKs: a ← a − b·a with b = 0.5 (Eq. 2), plus the usual cwnd
//!   halving.
//! * A timeout resets a′ to its initial 0.5 (cwnd restarts from one segment as in TCP).
//!
//! Choices where the paper is silent, each a parameter: a′ returns to 0.5 only after a
//! timeout (`restore_rate_after_timeout_only = true`; false also restores it at each
//! triple-duplicate loss); a has a floor `min_a` (default 0.1, so a burst of losses
//! cannot freeze growth for good); the conclusions' RTT-scaled variant
//! a ← a + c·a′/cwnd is `rate_scale = c` (default 1, the plain algorithm). Slow start
//! and ssthresh handling are standard TCP's.
use super::reno::{cut, slow_start};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MrAimdConfig {
    /// Initial additive-increase factor a.
    pub initial_a: f64,
    /// Initial (and post-timeout) rate a′ at which a grows per RTT.
    pub initial_rate: f64,
    /// a′ after an ECN-marked ACK.
    pub ecn_rate: f64,
    /// Multiplicative decrease of a on a triple-duplicate loss (b of Eq. 2).
    pub a_decrease: f64,
    /// Multiplicative decrease of cwnd on loss (standard TCP: 0.5 → cwnd × 0.5).
    pub cwnd_beta: f64,
    /// Lowest value of a.
    pub min_a: f64,
    /// c of the RTT-scaled variant a ← a + c·a′/cwnd.
    pub rate_scale: f64,
    pub restore_rate_after_timeout_only: bool,
}

impl Default for MrAimdConfig {
    fn default() -> Self {
        MrAimdConfig {
            initial_a: 1.0,
            initial_rate: 0.5,
            ecn_rate: 0.005,
            a_decrease: 0.5,
            cwnd_beta: 0.5,
            min_a: 0.1,
            rate_scale: 1.0,
            restore_rate_after_timeout_only: true,
        }
    }
}

impl MrAimdConfig {
    /// Err((field, message)) for values outside their ranges.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let (a, a_max) = (self.initial_a, super::aimd::MAX_ALPHA);
        let checks: [(&'static str, f64, bool, &str); 7] = [
            ("initial_a", a, a > 0.0 && a <= a_max, "in (0, 1000]"),
            ("initial_rate", self.initial_rate, self.initial_rate >= 0.0 && self.initial_rate <= a_max, "in [0, 1000]"),
            ("ecn_rate", self.ecn_rate, self.ecn_rate >= 0.0 && self.ecn_rate <= a_max, "in [0, 1000]"),
            ("a_decrease", self.a_decrease, self.a_decrease > 0.0 && self.a_decrease < 1.0, "in (0, 1)"),
            ("cwnd_beta", self.cwnd_beta, self.cwnd_beta > 0.0 && self.cwnd_beta < 1.0, "in (0, 1)"),
            ("min_a", self.min_a, self.min_a > 0.0 && self.min_a <= a, "in (0, initial_a]"),
            ("rate_scale", self.rate_scale, self.rate_scale > 0.0 && self.rate_scale <= 1e6, "in (0, 1000000]"),
        ];
        for (field, value, ok, range) in checks {
            if !(ok && value.is_finite()) {
                return Err((field, format!("{} is not {range}", crate::schema::Num(value))));
            }
        }
        Ok(())
    }

    pub fn build(&self) -> MrAimd {
        MrAimd { cfg: self.clone(), a: self.initial_a, rate: self.initial_rate, a_sum: 0.0, rounds: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct MrAimd {
    cfg: MrAimdConfig,
    /// Additive-increase factor (segments per RTT).
    pub a: f64,
    /// a′: growth of a per RTT.
    pub rate: f64,
    a_sum: f64,
    rounds: u64,
}

impl CongestionControl for MrAimd {
    fn label(&self) -> String {
        "mraimd".into()
    }

    fn on_ack(&mut self, window: &mut Window, _ack: &AckSample) {
        if window.cwnd < window.ssthresh {
            slow_start(window);
        } else {
            // Eq. 1, both updates with the window before this ACK.
            let cwnd = window.cwnd;
            window.cwnd += self.a / cwnd;
            self.a += self.cfg.rate_scale * self.rate / cwnd;
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        match event.signal {
            CongestionSignal::EcnEcho => {
                self.rate = self.cfg.ecn_rate;
                Reduction { ssthresh: window.ssthresh, cwnd: window.cwnd }
            }
            CongestionSignal::FastRetransmit => {
                self.a = (self.a - self.cfg.a_decrease * self.a).max(self.cfg.min_a); // Eq. 2
                if !self.cfg.restore_rate_after_timeout_only {
                    self.rate = self.cfg.initial_rate;
                }
                cut(window.cwnd * self.cfg.cwnd_beta, event)
            }
            CongestionSignal::Timeout => {
                self.rate = self.cfg.initial_rate;
                cut(window.cwnd * self.cfg.cwnd_beta, event) // the sender restarts from one segment
            }
        }
    }

    fn on_round(&mut self, _window: &mut Window, _now: Time) {
        self.a_sum += self.a;
        self.rounds += 1;
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("a", self.a));
        out.push(("a_rate", self.rate));
        // The time-average of a, sampled once per round trip (Fig. 4(d) of the paper).
        out.push(("a_mean", if self.rounds == 0 { self.a } else { self.a_sum / self.rounds as f64 }));
    }
}

impl super::Algorithm for MrAimdConfig {
    type Controller = MrAimd;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        MrAimdConfig::validate(self)
    }
    fn build(&self) -> MrAimd {
        MrAimdConfig::build(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each field at the bounds its message states: closed ends accepted, open ends and
    /// just beyond rejected, naming that field (a `>` written `>=`, or `&&` written `||`,
    /// fails here).
    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut MrAimdConfig, f64);
        let nan = f64::NAN;
        let cases: [(&str, Set, &[f64], &[f64]); 7] = [
            ("initial_a", |c, v| c.initial_a = v, &[0.1, 1000.0], &[0.0, -1.0, 1000.5, nan]),
            ("initial_rate", |c, v| c.initial_rate = v, &[0.0, 1000.0], &[-0.1, 1000.5, nan, f64::INFINITY]),
            ("ecn_rate", |c, v| c.ecn_rate = v, &[0.0, 1000.0], &[-0.1, 1000.5, nan]),
            ("a_decrease", |c, v| c.a_decrease = v, &[1e-9, 0.999], &[0.0, 1.0, -0.5, nan]),
            ("cwnd_beta", |c, v| c.cwnd_beta = v, &[1e-9, 0.999], &[0.0, 1.0, 1.5, nan]),
            ("min_a", |c, v| c.min_a = v, &[1e-9, 1.0], &[0.0, -0.1, 1.01, nan]), // initial_a is 1
            ("rate_scale", |c, v| c.rate_scale = v, &[1e-9, 1e6], &[0.0, -1.0, 1e6 + 1.0, nan]),
        ];
        crate::schema::assert_field_bounds(MrAimdConfig::validate, &cases);
    }

    fn in_avoidance() -> Window {
        Window { cwnd: 20.0, ssthresh: 10.0 }
    }

    /// Eq. 3: over n round trips without loss or marks, a grows by a′ per RTT, and cwnd by
    /// the running a.
    #[test]
    fn a_follows_equation_3() {
        let mut mr = MrAimdConfig::default().build();
        let mut w = in_avoidance();
        let mut a_per_rtt = vec![mr.a];
        for _ in 0..10 {
            let acks = w.cwnd.round() as usize; // one RTT = one window of ACKs
            for _ in 0..acks {
                mr.on_ack(&mut w, &AckSample::default());
            }
            a_per_rtt.push(mr.a);
        }
        for n in 1..a_per_rtt.len() {
            let growth = a_per_rtt[n] - a_per_rtt[n - 1];
            assert!((growth - 0.5).abs() < 0.03, "RTT {n}: a grew {growth}");
        }
        assert!((a_per_rtt[10] - (1.0 + 0.5 * 10.0)).abs() < 0.3);
    }

    #[test]
    fn ecn_slows_the_rate_without_cutting_the_window() {
        let mut mr = MrAimdConfig::default().build();
        let w = in_avoidance();
        let event = CongestionEvent {
            now: 0,
            signal: CongestionSignal::EcnEcho,
            flight_size: 20,
            in_slow_start: false,
            first_reduction: false,
            integer_ssthresh: false,
        };
        assert_eq!(mr.on_congestion(&w, &event), Reduction { ssthresh: 10.0, cwnd: 20.0 });
        assert_eq!(mr.rate, 0.005);
        let loss = CongestionEvent { signal: CongestionSignal::FastRetransmit, ..event };
        mr.a = 4.0;
        assert_eq!(mr.on_congestion(&w, &loss), Reduction { ssthresh: 10.0, cwnd: 10.0 });
        assert_eq!((mr.a, mr.rate), (2.0, 0.005));
        let timeout = CongestionEvent { signal: CongestionSignal::Timeout, ..event };
        assert_eq!(mr.on_congestion(&w, &timeout).ssthresh, 10.0);
        assert_eq!(mr.rate, 0.5);
        mr.a = 0.15;
        mr.on_congestion(&w, &loss);
        assert_eq!(mr.a, 0.1, "floor");
    }
}
