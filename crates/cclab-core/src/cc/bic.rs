//! BIC TCP (Xu, Harfoush & Rhee, "Binary increase congestion control for fast,
//! long-distance networks", INFOCOM 2004), as ns-3.44's TcpBic (read, not copied; it
//! follows Linux's `tcp_bic.c`). Windows in whole segments.
//!
//! - Slow start is NewReno's.
//! - Congestion avoidance adds one segment once more than `cnt` segments have been
//!   acknowledged since the last one, `cnt` chosen from where cwnd stands against
//!   W_max, the window at the last loss:
//!   - below `low_window` (14): cnt = cwnd (Reno);
//!   - below W_max, dist = ⌊(W_max − cwnd)/b⌋ (b = `binary_search_coefficient`, 4):
//!     dist > `max_increment` (16): cnt = ⌊cwnd/16⌋ (additive, 16 per RTT); dist ≤ 1:
//!     cnt = ⌊cwnd·`smooth_part`/b⌋ (slow near W_max); else cnt = ⌊cwnd/dist⌋ (binary
//!     search, dist segments per RTT);
//!   - at or above W_max (max probing): below W_max + b, cnt = ⌊cwnd·smooth_part/b⌋;
//!     below W_max + 16·(b − 1), cnt = ⌊cwnd·(b − 1)/(cwnd − W_max)⌋; else ⌊cwnd/16⌋;
//!   - before any loss (W_max = 0) cnt ≤ 20 (5 % per RTT); cnt ≥ 1.
//! - A loss: W_max = cwnd, or ⌊β·cwnd⌋ when cwnd fell short of the last W_max (fast
//!   convergence); ssthresh = cwnd = max(β·cwnd, 2) (β = 0.8), or max(cwnd/2, 2) below
//!   `low_window`.
//!
//! As ns-3, fast convergence remembers β·cwnd (Linux: cwnd·(1 + β)/2) and the count
//! restarts at zero after each step (Linux keeps what is left over). Deviation: below
//! `low_window` the halving is of cwnd (ns-3: BytesInFlight).
use super::kernel::whole;
use super::reno::{cut, slow_start_leftover};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BicConfig {
    /// Fast convergence: a loss below the last W_max remembers β·cwnd (ns-3
    /// `FastConvergence`: true).
    pub fast_convergence: bool,
    /// The multiplicative decrease (ns-3 `Beta`: 0.8).
    pub beta: f64,
    /// The most segments added per RTT in the binary search (ns-3 `MaxIncr`: 16).
    pub max_increment: u32,
    /// Below this window (segments) BIC is Reno (ns-3 `LowWnd`: 14).
    pub low_window: u32,
    /// RTTs to close the last b segments to W_max (ns-3 `SmoothPart`: 5).
    pub smooth_part: u32,
    /// The binary search's divisor b (ns-3 `BinarySearchCoefficient`: 4).
    pub binary_search_coefficient: u32,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig { fast_convergence: true, beta: 0.8, max_increment: 16, low_window: 14, smooth_part: 5, binary_search_coefficient: 4 }
    }
}

impl Algorithm for BicConfig {
    type Controller = Bic;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("{} is outside (0, 1)", crate::schema::Num(self.beta))));
        }
        for (field, value, min, max) in [
            ("max_increment", self.max_increment, 1, 100_000),
            ("low_window", self.low_window, 0, 100_000),
            ("smooth_part", self.smooth_part, 1, 1_000),
            ("binary_search_coefficient", self.binary_search_coefficient, 2, 255),
        ] {
            if !(min..=max).contains(&value) {
                return Err((field, format!("{value} is not an integer in [{min}, {max}]")));
            }
        }
        Ok(())
    }

    fn build(&self) -> Bic {
        Bic { config: self.clone(), cwnd_cnt: 0, last_max_cwnd: 0, cnt: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Bic {
    config: BicConfig,
    /// Segments acknowledged since the last step.
    cwnd_cnt: u32,
    /// W_max (segments; 0 before the first loss).
    pub last_max_cwnd: u32,
    /// The last `cnt` chosen, for tracing.
    cnt: u32,
}

impl Bic {
    /// ns-3 `TcpBic::Update`: segments to acknowledge per one-segment step at `cwnd`.
    pub fn update(&self, cwnd: u32) -> u32 {
        let c = &self.config;
        let (b, max_incr, smooth) = (c.binary_search_coefficient, c.max_increment, c.smooth_part);
        let w_max = self.last_max_cwnd;
        if cwnd < c.low_window {
            return cwnd.max(1);
        }
        let mut cnt = if cwnd < w_max {
            let dist = (w_max - cwnd) / b;
            if dist > max_incr {
                cwnd / max_incr
            } else if dist <= 1 {
                cwnd * smooth / b
            } else {
                cwnd / dist
            }
        } else if cwnd < w_max + b {
            cwnd * smooth / b
        } else if cwnd < w_max + max_incr * (b - 1) {
            cwnd * (b - 1) / (cwnd - w_max)
        } else {
            cwnd / max_incr
        };
        if w_max == 0 {
            cnt = cnt.min(20);
        }
        cnt.max(1)
    }
}

impl CongestionControl for Bic {
    fn label(&self) -> String {
        "bic".into()
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        let left = slow_start_leftover(window, ack.segments_acked);
        if window.cwnd >= window.ssthresh && left > 0 {
            self.cwnd_cnt += left;
            self.cnt = self.update(whole(window.cwnd));
            if self.cwnd_cnt > self.cnt {
                window.cwnd = whole(window.cwnd) as f64 + 1.0;
                self.cwnd_cnt = 0;
            }
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let cwnd = whole(window.cwnd);
        let beta = self.config.beta;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.config.fast_convergence { (beta * cwnd as f64) as u32 } else { cwnd };
        if cwnd < self.config.low_window {
            cut(cwnd as f64 / 2.0, event)
        } else {
            cut((cwnd as f64 * beta).floor(), event)
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("w_max", self.last_max_cwnd as f64));
        out.push(("cnt", self.cnt as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::CongestionSignal;

    /// `cnt` at each region, W_max = 100 (b 4, max_incr 16, smooth 5):
    /// 10 (< 14) → 10; 20: dist ⌊80/4⌋ = 20 > 16 → ⌊20/16⌋ = 1; 60: dist 10 → 6;
    /// 97: dist 0 → ⌊97·5/4⌋ = 121; 102 (< 104) → ⌊102·5/4⌋ = 127; 110 (< 148):
    /// ⌊110·3/10⌋ = 33; 200 → ⌊200/16⌋ = 12. Before any loss (W_max 0) every window is
    /// in max probing: 60 ≥ 48 → ⌊60/16⌋ = 3; 30 and 14 → ⌊w·3/w⌋ = 3 (cap 20 not hit).
    #[test]
    fn cnt_by_region() {
        let mut bic = BicConfig::default().build();
        bic.last_max_cwnd = 100;
        for (cwnd, cnt) in [(10, 10), (20, 1), (60, 6), (97, 121), (102, 127), (110, 33), (200, 12)] {
            assert_eq!(bic.update(cwnd), cnt, "cwnd {cwnd}");
        }
        bic.last_max_cwnd = 0;
        for (cwnd, cnt) in [(60, 3), (30, 3), (14, 3)] {
            assert_eq!(bic.update(cwnd), cnt, "cwnd {cwnd}, no loss yet");
        }
    }

    /// One step once more than cnt segments are acknowledged: at 60 below W_max 100, cnt 6,
    /// so the 7th ACK adds a segment and restarts the count.
    #[test]
    fn steps_after_more_than_cnt_acks() {
        let mut bic = BicConfig::default().build();
        bic.last_max_cwnd = 100;
        let mut w = Window { cwnd: 60.0, ssthresh: 10.0 };
        for _ in 0..6 {
            bic.on_ack(&mut w, &AckSample { segments_acked: 1, ..Default::default() });
        }
        assert_eq!(w.cwnd, 60.0);
        bic.on_ack(&mut w, &AckSample { segments_acked: 1, ..Default::default() });
        assert_eq!((w.cwnd, bic.cwnd_cnt), (61.0, 0));
    }

    /// Loss at 100: W_max 100, cwnd 80; again at 90 (< 100): W_max ⌊0.8·90⌋ = 72, cwnd
    /// 72; below low_window, 10 → 5; without fast convergence W_max = cwnd.
    #[test]
    fn loss_sets_w_max_and_cuts_by_beta() {
        let mut bic = BicConfig::default().build();
        let fr = event(CongestionSignal::FastRetransmit);
        let r = bic.on_congestion(&Window { cwnd: 100.0, ssthresh: 1e9 }, &fr);
        assert_eq!((bic.last_max_cwnd, r.cwnd, r.ssthresh), (100, 80.0, 80.0));
        let r = bic.on_congestion(&Window { cwnd: 90.0, ssthresh: 80.0 }, &fr);
        assert_eq!((bic.last_max_cwnd, r.cwnd), (72, 72.0));
        let r = bic.on_congestion(&Window { cwnd: 10.0, ssthresh: 80.0 }, &fr);
        assert_eq!((bic.last_max_cwnd, r.cwnd), (8, 5.0));
        let mut plain = BicConfig { fast_convergence: false, ..Default::default() }.build();
        plain.last_max_cwnd = 100;
        plain.on_congestion(&Window { cwnd: 90.0, ssthresh: 80.0 }, &fr);
        assert_eq!(plain.last_max_cwnd, 90);
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&BicConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&BicConfig { beta: 1.5, ..Default::default() }).unwrap_err().0, "beta");
        assert_eq!(Algorithm::validate(&BicConfig { binary_search_coefficient: 1, ..Default::default() }).unwrap_err().0, "binary_search_coefficient");
        assert_eq!(Algorithm::validate(&BicConfig { max_increment: 0, ..Default::default() }).unwrap_err().0, "max_increment");
    }
}
