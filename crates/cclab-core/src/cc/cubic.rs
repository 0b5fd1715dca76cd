//! CUBIC (RFC 9438), with Linux's HyStart slow-start exit and fast convergence
//! (net/ipv4/tcp_cubic.c; read, not copied). Windows in segments, time in seconds.
//!
//! - Congestion avoidance follows W_cubic(t) = C·(t − K)³ + W_max (Eq. 1), t from the
//!   start of the epoch (the first ACK after a reduction), K = ∛((W_max − cwnd_epoch)/C)
//!   (Eq. 2). Each ACK moves cwnd by (target − cwnd)/cwnd toward target =
//!   W_cubic(t + RTT) held within [cwnd, 1.5·cwnd] (§4.2, RTT the smallest seen).
//! - The Reno-friendly estimate W_est starts at cwnd_epoch and grows α_cubic =
//!   3(1 − β)/(1 + β) per window of ACKs (1 once W_est ≥ W_max) (§4.3, Eq. 4); when
//!   W_cubic(t) < W_est the window is W_est.
//! - A loss or ECN-Echo: W_max = cwnd, or cwnd·(1 + β)/2 when cwnd fell short of the last
//!   W_max (fast convergence, §4.7); ssthresh = cwnd = β·cwnd (β = 0.7, §4.6), at least 2.
//! - HyStart (Linux, `hystart_detect` 3): from cwnd 16 in slow start, a round ends slow
//!   start (ssthresh = cwnd) when its ACK train lasts half the minimum RTT (ACKs ≤ 2 ms
//!   apart from the round's start), or when the smallest of its first 8 RTT samples
//!   exceeds the minimum RTT by η = clamp(RTTmin/8, 4 ms, 16 ms).
//!
//! Under the `linux` profile ([`CongestionControl::use_linux_rules`]) all of this is
//! replaced by tcp_cubic.c's integer arithmetic ([`LinuxCubic`], module `linux`).
use super::reno::{cut, slow_start};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};

mod linux;
pub use linux::{cubic_root, LinuxCubic};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

const NS: f64 = 1e9;
/// HyStart acts from this window on (Linux `hystart_low_window`).
const HYSTART_LOW_WINDOW: f64 = 16.0;
/// ACKs this close belong to one train (Linux `hystart_ack_delta_us`), seconds.
const HYSTART_ACK_DELTA: f64 = 0.002;
/// RTT samples per round the delay test reads (Linux `HYSTART_MIN_SAMPLES`).
const HYSTART_MIN_SAMPLES: u32 = 8;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C (RFC 9438: 0.4).
    pub c: f64,
    /// β_cubic, the multiplicative decrease (RFC 9438: 0.7).
    pub beta: f64,
    /// Fast convergence (§4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (§4.3).
    pub tcp_friendliness: bool,
    /// HyStart's slow-start exit (Linux default: on).
    pub hystart: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig { c: 0.4, beta: 0.7, fast_convergence: true, tcp_friendliness: true, hystart: true }
    }
}

impl Algorithm for CubicConfig {
    type Controller = Cubic;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        if !(self.c > 0.0 && self.c <= 100.0) {
            return Err(("c", format!("{} is not in (0, 100]", num(self.c))));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("{} is outside (0, 1)", num(self.beta))));
        }
        Ok(())
    }

    fn build(&self) -> Cubic {
        Cubic { config: self.clone(), ..Cubic::default() }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    config: CubicConfig,
    /// W_max and the last one (fast convergence), segments.
    pub w_max: f64,
    last_w_max: f64,
    /// The current epoch: its start (s), K (s), cwnd at its start, and W_est.
    epoch_start: Option<f64>,
    pub k: f64,
    origin: f64,
    w_est: f64,
    /// The smallest RTT seen (s).
    min_rtt: Option<f64>,
    hystart: HyStart,
    /// tcp_cubic.c's arithmetic, once the sender asks for the linux rules.
    pub linux: Option<Box<LinuxCubic>>,
}

#[derive(Clone, Debug, Default)]
struct HyStart {
    /// Slow start has been left by HyStart (or by a loss): nothing more to detect.
    done: bool,
    round_start: f64,
    last_ack: f64,
    samples: u32,
    round_min_rtt: f64,
}

impl Cubic {
    fn alpha(&self) -> f64 {
        let beta = self.config.beta;
        3.0 * (1.0 - beta) / (1.0 + beta)
    }

    /// W_cubic(t) (Eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.config.c * (t - self.k).powi(3) + self.w_max
    }

    fn start_epoch(&mut self, now: f64, cwnd: f64) {
        self.epoch_start = Some(now);
        self.origin = cwnd;
        self.w_est = cwnd;
        // Eq. 2; a window already above W_max starts on the plateau's far side
        self.k = ((self.w_max - cwnd).max(0.0) / self.config.c).cbrt();
        if self.w_max < cwnd {
            self.w_max = cwnd;
        }
    }

    fn congestion_avoidance(&mut self, window: &mut Window, now: f64, acked: f64) {
        let start = match self.epoch_start {
            Some(start) => start,
            None => {
                self.start_epoch(now, window.cwnd);
                now
            }
        };
        let rtt = self.min_rtt.unwrap_or(0.0);
        let t = now - start;
        let target = self.w_cubic(t + rtt).clamp(window.cwnd, 1.5 * window.cwnd);
        let mut next = window.cwnd + acked * (target - window.cwnd) / window.cwnd;
        if self.config.tcp_friendliness {
            let alpha = if self.w_est >= self.w_max { 1.0 } else { self.alpha() };
            self.w_est += alpha * acked / window.cwnd;
            if self.w_cubic(t) < self.w_est {
                next = next.max(self.w_est);
            }
        }
        window.cwnd = next;
    }

    /// HyStart's tests on one RTT sample `rtt` at `now` (both s), in slow start.
    fn hystart_sample(&mut self, window: &mut Window, now: f64, rtt: f64) {
        let Some(min_rtt) = self.min_rtt else { return };
        if self.hystart.done || window.cwnd < HYSTART_LOW_WINDOW {
            return;
        }
        let h = &mut self.hystart;
        // ACK train: ACKs close together since the round began, for half the minimum RTT.
        if now - h.last_ack <= HYSTART_ACK_DELTA {
            h.last_ack = now;
            if now - h.round_start > min_rtt / 2.0 {
                h.done = true;
            }
        }
        // Delay: the round's first samples all above the minimum by η.
        if !h.done && h.samples < HYSTART_MIN_SAMPLES {
            h.round_min_rtt = if h.samples == 0 { rtt } else { h.round_min_rtt.min(rtt) };
            h.samples += 1;
            if h.samples == HYSTART_MIN_SAMPLES {
                let eta = (min_rtt / 8.0).clamp(0.004, 0.016);
                if h.round_min_rtt > min_rtt + eta {
                    h.done = true;
                }
            }
        }
        if h.done {
            window.ssthresh = window.cwnd;
        }
    }
}

impl CongestionControl for Cubic {
    fn label(&self) -> String {
        "cubic".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if self.linux.is_some() {
            return; // the linux sender calls pkts_acked
        }
        if let Some(rtt) = ack.rtt {
            let rtt = rtt as f64 / NS;
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |min| min.min(rtt)));
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        if let Some(linux) = self.linux.as_deref_mut() {
            return linux.cong_avoid(window, ack.segments_acked, ack.now);
        }
        let now = ack.now as f64 / NS;
        let acked = ack.segments_acked.max(1) as f64;
        if window.cwnd < window.ssthresh {
            if self.config.hystart {
                if let Some(rtt) = ack.rtt {
                    self.hystart_sample(window, now, rtt as f64 / NS);
                }
            }
            if window.cwnd < window.ssthresh {
                slow_start(window);
                return;
            }
        }
        self.congestion_avoidance(window, now, acked);
    }

    fn on_round(&mut self, _window: &mut Window, now: Time) {
        if let Some(linux) = self.linux.as_deref_mut() {
            return linux.round();
        }
        let now = now as f64 / NS;
        let h = &mut self.hystart;
        h.round_start = now;
        h.last_ack = now;
        h.samples = 0;
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        if let Some(linux) = self.linux.as_deref_mut() {
            let ssthresh = linux.ssthresh(window) as f64;
            return Reduction { ssthresh, cwnd: ssthresh };
        }
        let cwnd = window.cwnd;
        self.epoch_start = None;
        self.hystart.done = true;
        if self.config.fast_convergence && cwnd < self.last_w_max {
            self.last_w_max = cwnd;
            self.w_max = cwnd * (1.0 + self.config.beta) / 2.0;
        } else {
            self.last_w_max = cwnd;
            self.w_max = cwnd;
        }
        cut(cwnd * self.config.beta, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        if let Some(linux) = self.linux.as_deref() {
            return linux.state(out);
        }
        out.push(("w_max", self.w_max));
        out.push(("k_s", self.k));
        out.push(("w_est", self.w_est));
    }

    fn use_linux_rules(&mut self, socket: super::LinuxSocket) {
        self.linux = Some(Box::new(LinuxCubic::new(&self.config, socket.paced)));
    }

    fn pkts_acked(&mut self, window: &mut Window, ack: &AckSample) {
        match self.linux.as_deref_mut() {
            Some(linux) => linux.pkts_acked(window, ack),
            None => self.on_ack_event(window, ack),
        }
    }

    fn on_loss_state(&mut self, _window: &mut Window, now: Time) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.loss_state(now);
        }
    }

    fn on_tx_start(&mut self, _window: &mut Window, now: Time, idle: Time) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.tx_start(now, idle);
        }
    }

    fn on_established(&mut self, _window: &mut Window, now: Time, _rtt: Option<Time>, _srtt: Option<f64>) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.init(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::CongestionSignal;

    fn ack_at(now_s: f64, rtt_ms: Option<u64>) -> AckSample {
        AckSample { now: (now_s * NS) as Time, segments_acked: 1, rtt: rtt_ms.map(|ms| ms * 1_000_000), ..Default::default() }
    }

    /// A loss at cwnd 100: W_max 100, cwnd 70, K = ∛(30/0.4) = 4.217 s. With a 100-ms RTT
    /// the window then follows W_cubic(t + RTT): concave up to W_max near t = K, convex
    /// after. Fed one ACK per segment per RTT, the window at each whole second stays
    /// within 1 segment of W_cubic(t + RTT) (the per-ACK steps lag by under one RTT).
    #[test]
    fn the_window_follows_the_cubic_curve() {
        let mut cubic = CubicConfig { tcp_friendliness: false, ..CubicConfig::default() }.build();
        let mut w = Window { cwnd: 100.0, ssthresh: 1e9 };
        cubic.on_ack_event(&w, &ack_at(0.0, Some(100)));
        let r = cubic.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert_eq!((r.cwnd, r.ssthresh, cubic.w_max), (70.0, 70.0, 100.0));
        w = Window { cwnd: r.cwnd, ssthresh: r.ssthresh };
        let mut t = 1.0;
        let mut checked = 0;
        while t < 8.0 {
            let acks = w.cwnd.floor() as usize;
            for i in 0..acks {
                cubic.on_ack(&mut w, &ack_at(t + 0.1 * i as f64 / acks as f64, None));
            }
            t += 0.1;
            if (t.fract() < 1e-6 || t.fract() > 1.0 - 1e-6) && t > 1.5 {
                let expected = cubic.w_cubic(t - 1.0 + 0.1);
                assert!((w.cwnd - expected).abs() < 1.0 + 0.02 * expected, "t {t}: {} vs {expected}", w.cwnd);
                checked += 1;
            }
        }
        assert!(checked >= 5);
        assert!((cubic.k - (30.0f64 / 0.4).cbrt()).abs() < 1e-9);
        // after K the window passes W_max and grows faster
        assert!(w.cwnd > cubic.w_max + 5.0, "{}", w.cwnd);
    }

    /// Fast convergence: a second loss below the last W_max remembers (1 + β)/2 of it.
    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut cubic = CubicConfig::default().build();
        cubic.on_congestion(&Window { cwnd: 100.0, ssthresh: 1e9 }, &event(CongestionSignal::FastRetransmit));
        cubic.on_congestion(&Window { cwnd: 80.0, ssthresh: 70.0 }, &event(CongestionSignal::FastRetransmit));
        assert!((cubic.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9);
        cubic.on_congestion(&Window { cwnd: 90.0, ssthresh: 56.0 }, &event(CongestionSignal::FastRetransmit));
        assert_eq!(cubic.w_max, 90.0);
    }

    /// HyStart's delay test: a round whose first 8 RTT samples are 10 ms over a 40-ms
    /// minimum (η = clamp(5 ms, 4, 16) = 5 ms) ends slow start with ssthresh = cwnd.
    #[test]
    fn hystart_leaves_slow_start_on_rising_delay() {
        let mut cubic = CubicConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 1e9 };
        cubic.on_ack_event(&w, &ack_at(0.0, Some(40)));
        cubic.on_round(&mut w, (0.1 * NS) as Time);
        for k in 0..8 {
            let a = ack_at(0.1 + 0.003 * k as f64, Some(50));
            cubic.on_ack_event(&w, &a);
            cubic.on_ack(&mut w, &a);
        }
        assert!(w.ssthresh < 1e9 && (w.cwnd - w.ssthresh).abs() < 1.0, "left slow start: {w:?}");
        // the same round with 42-ms samples (under η) stays in slow start
        let mut calm = CubicConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 1e9 };
        calm.on_ack_event(&w, &ack_at(0.0, Some(40)));
        calm.on_round(&mut w, (0.1 * NS) as Time);
        for k in 0..8 {
            calm.on_ack(&mut w, &ack_at(0.1 + 0.003 * k as f64, Some(42)));
        }
        assert_eq!(w.ssthresh, 1e9);
    }

    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut CubicConfig, f64);
        let cases: [(&str, Set, &[f64], &[f64]); 2] = [
            ("c", |c, v| c.c = v, &[0.01, 100.0], &[0.0, -1.0, f64::NAN, 101.0]),
            ("beta", |c, v| c.beta = v, &[0.01, 0.99], &[0.0, 1.0, f64::NAN]),
        ];
        crate::schema::assert_field_bounds(|c: &CubicConfig| Algorithm::validate(c), &cases);
    }
}
