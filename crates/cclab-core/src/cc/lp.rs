//! TCP-LP (Kuzmanovic & Knightly, "TCP-LP: a distributed algorithm for low priority data
//! transfer", INFOCOM 2003), as ns-3.44's TcpLp (read, not copied; it follows Linux's
//! `tcp_lp.c`): a low-priority flow that backs off at the first sign of queueing, before
//! standard TCP sees a loss.
//!
//! - Every delay sample updates the smallest and largest delay (the largest through a
//!   reserve, so one outlier does not set it) and the smoothed delay s ← 7/8·s + 1/8·d.
//! - Early congestion: s > d_min + 15 %·(d_max − d_min). Then the window halves (to at
//!   least one segment), or falls to one segment when the last such cut is less than an
//!   inference time ago (3 × the last delay sample); the extremes restart at d_min = s,
//!   d_max = 2s.
//! - Within the inference time after a cut, congestion avoidance does not grow the
//!   window; otherwise the increase is NewReno's, and so are losses.
//!
//! Deviations from ns-3.44: the delay samples are the ACKs' RTT samples, not one-way
//! delays from TCP timestamps (ns-3 needs timestamps; without them its TcpLp is
//! NewReno), exact rather than in whole milliseconds, and the smoothing in floating
//! point; the test and the cut run on the ACKs that may grow the window (outside
//! recovery), before the increase, where ns-3 runs them at every ACK of new data. As
//! ns-3, slow start goes on within the inference time (Linux's `tcp_lp_cong_avoid`
//! holds it too).
use super::reno::{additive_increase, cut, slow_start};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// The early-congestion threshold, as a fraction of the delay range (the paper's δ).
const THRESHOLD: f64 = 0.15;
/// The inference time, in delay samples (the paper: 3 RTTs).
const INFERENCE_RTTS: u64 = 3;

/// `cc = "lp"`: no parameters (ns-3 has none).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LpConfig {}

impl Algorithm for LpConfig {
    type Controller = Lp;
    fn build(&self) -> Lp {
        Lp { owd_min: f64::INFINITY, owd_max: 0.0, owd_max_rsv: 0.0, s_owd: None, last_drop: None, inference: 0, early_cuts: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Lp {
    /// The smallest and largest delay and the largest's reserve (ns).
    pub owd_min: f64,
    pub owd_max: f64,
    owd_max_rsv: f64,
    /// The smoothed delay (ns).
    pub s_owd: Option<f64>,
    /// The last early-congestion cut.
    last_drop: Option<Time>,
    /// 3 × the last delay sample (ns).
    inference: Time,
    /// Early-congestion cuts so far, for tracing.
    early_cuts: u64,
}

impl Lp {
    fn sample(&mut self, d: f64) {
        self.owd_min = self.owd_min.min(d);
        if d > self.owd_max {
            if d > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0.0 { d } else { self.owd_max_rsv };
                self.owd_max_rsv = d;
            } else {
                self.owd_max = d;
            }
        }
        self.s_owd = Some(self.s_owd.map_or(d, |s| s + (d - s) / 8.0));
    }
}

impl CongestionControl for Lp {
    fn label(&self) -> String {
        "lp".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt.filter(|&r| r > 0) {
            self.sample(rtt as f64);
            self.inference = INFERENCE_RTTS * rtt;
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        let now = ack.now;
        let within_inference = self.last_drop.is_some_and(|t| now.saturating_sub(t) < self.inference);
        if let Some(s) = self.s_owd {
            if s > self.owd_min + THRESHOLD * (self.owd_max - self.owd_min) {
                self.owd_min = s;
                self.owd_max = 2.0 * s;
                self.owd_max_rsv = 2.0 * s;
                window.cwnd = if within_inference { 1.0 } else { (window.cwnd / 2.0).max(1.0) };
                self.last_drop = Some(now);
                self.early_cuts += 1;
            }
        }
        if window.cwnd < window.ssthresh {
            slow_start(window);
        } else if !within_inference {
            additive_increase(window, 1.0);
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        cut(window.cwnd / 2.0, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("s_owd_ms", self.s_owd.unwrap_or(0.0) / 1e6));
        out.push(("early_cuts", self.early_cuts as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn ack(now_ms: u64, rtt_ms: u64) -> AckSample {
        AckSample { now: now_ms * MS, segments_acked: 1, rtt: Some(rtt_ms * MS), ..Default::default() }
    }

    fn step(lp: &mut Lp, w: &mut Window, a: AckSample) {
        lp.on_ack_event(w, &a);
        lp.on_ack(w, &a);
    }

    /// Samples 100 then 200 ms. The first sets min = max = 100 (and the reserve); the
    /// second only moves the reserve (max stays 100), s = 100 + 100/8 = 112.5 > 100 +
    /// 15 %·0: early congestion, cwnd 20.05 (Reno's step at the first ACK) → 10.025, then
    /// Reno's 1/cwnd (no earlier cut); min 112.5, max 225. A sample at 140 ms: s = 115.94
    /// ≤ 112.5 + 15 %·112.5 = 129.4: no cut, and no growth (1 ms after the cut, within
    /// 3·140 ms). Samples at 400 ms push s above 129.4: a second cut within the inference
    /// time, to one segment (slow start then adds one, as ns-3 lets it).
    #[test]
    fn early_congestion_halves_then_drops_to_one() {
        let mut lp = LpConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 5.0 };
        step(&mut lp, &mut w, ack(0, 100));
        assert_eq!((lp.owd_min, lp.owd_max, w.cwnd), (100.0 * MS as f64, 100.0 * MS as f64, 20.05));
        step(&mut lp, &mut w, ack(1, 200));
        assert_eq!(lp.early_cuts, 1);
        assert_eq!(w.cwnd, 10.025 + 1.0 / 10.025);
        assert_eq!((lp.owd_min, lp.owd_max), (112.5 * MS as f64, 225.0 * MS as f64));
        let c = w.cwnd;
        step(&mut lp, &mut w, ack(2, 140));
        assert!((lp.s_owd.unwrap() - (112.5 + 27.5 / 8.0) * MS as f64).abs() < 1e-6);
        assert_eq!((lp.early_cuts, w.cwnd), (1, c), "no cut, no growth within the inference time");
        for t in 3..40 {
            lp.on_ack_event(&w, &ack(t, 400));
        }
        lp.on_ack(&mut w, &ack(40, 400));
        assert_eq!((lp.early_cuts, w.cwnd), (2, 2.0));
    }

    /// A steady delay never cuts; outside the inference time the increase is Reno's.
    #[test]
    fn steady_delay_is_reno() {
        let mut lp = LpConfig::default().build();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        for t in 0..10 {
            step(&mut lp, &mut w, ack(t * 100, 100));
        }
        assert_eq!(lp.early_cuts, 0);
        assert!(w.cwnd > 10.9 && w.cwnd < 11.0, "{}", w.cwnd);
    }
}
