//! TCP-Illinois (Liu, Başar & Srikant, "TCP-Illinois: a loss- and delay-based congestion
//! control algorithm for high-speed networks", VALUETOOLS 2006 / Perform. Eval. 2008), as
//! ns-3.44's TcpIllinois (read, not copied; it follows Linux's `tcp_illinois.c`). Loss
//! decides the direction, queueing delay the step: once per round trip, with da the
//! round's average RTT minus baseRTT and dm the largest RTT ever minus baseRTT (ms),
//!
//! - α (segments per RTT): `alpha_max` (10) while da ≤ d1 = dm/100 (after `theta` = 5
//!   such rounds in a row, and when da never rose above d1), else
//!   κ₁/(κ₂ + da) with κ's so that α(d1) = α_max and α(dm) = α_min (0.3):
//!   α = (dm − d1)·α_max / ((dm − d1) + (da − d1)·(α_max − α_min)/α_min);
//! - β (the fraction a loss takes off): `beta_min` (1/8) for da ≤ d2 = dm/10,
//!   `beta_max` (1/2) for da ≥ d3 = 8·dm/10, linear between;
//! - below `win_thresh` (15 segments) α = `alpha_base` (1), β = `beta_base` (1/2).
//!
//! Slow start is NewReno's; congestion avoidance counts α per segment acknowledged and
//! adds a whole segment each time the count reaches cwnd; a loss sets ssthresh = cwnd =
//! max(2, ⌊(1 − β)·cwnd⌋); a timeout also resets α and β to their base values and the
//! delay history. α starts at `alpha_max`, as ns-3 and Linux.
//!
//! Deviations from ns-3.44: its α count is an integer (`m_ackCnt += segmentsAcked·α`
//! truncates, so an α below 1 never grows the window); here it keeps the fraction, as
//! Linux. ns-3 tests `win_thresh` against cwnd in bytes (never below 15 bytes); here in
//! segments, as Linux. Delays are exact (ns-3: whole milliseconds), the RTT samples the
//! ACKs' own (ns-3 passes each ACK its smoothed RTT), the round the sender's, and the
//! cut of cwnd (ns-3: BytesInFlight).
use super::kernel::whole;
use super::reno::{cut, slow_start_leftover};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IllinoisConfig {
    /// The smallest α, at the largest delay (ns-3 `AlphaMin`: 0.3).
    pub alpha_min: f64,
    /// The largest α, at no delay (ns-3 `AlphaMax`: 10).
    pub alpha_max: f64,
    /// α below `win_thresh` and after a timeout (ns-3 `AlphaBase`: 1).
    pub alpha_base: f64,
    /// The smallest β (ns-3 `BetaMin`: 0.125).
    pub beta_min: f64,
    /// The largest β (ns-3 `BetaMax`: 0.5).
    pub beta_max: f64,
    /// β below `win_thresh` and after a timeout (ns-3 `BetaBase`: 0.5).
    pub beta_base: f64,
    /// Below this window (segments) α and β are the base values (ns-3 `WinThresh`: 15).
    pub win_thresh: u32,
    /// Rounds in a row with da ≤ d1 before α returns to α_max (ns-3 `Theta`: 5).
    pub theta: u32,
}

impl Default for IllinoisConfig {
    fn default() -> Self {
        IllinoisConfig { alpha_min: 0.3, alpha_max: 10.0, alpha_base: 1.0, beta_min: 0.125, beta_max: 0.5, beta_base: 0.5, win_thresh: 15, theta: 5 }
    }
}

impl Algorithm for IllinoisConfig {
    type Controller = Illinois;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        for (field, value) in [("alpha_min", self.alpha_min), ("alpha_max", self.alpha_max), ("alpha_base", self.alpha_base)] {
            if !(value > 0.0 && value <= 1000.0) {
                return Err((field, format!("{} is not in (0, 1000] (segments per RTT)", num(value))));
            }
        }
        if self.alpha_min > self.alpha_max {
            return Err(("alpha_min", format!("{} is above alpha_max ({})", num(self.alpha_min), num(self.alpha_max))));
        }
        for (field, value) in [("beta_min", self.beta_min), ("beta_max", self.beta_max), ("beta_base", self.beta_base)] {
            if !(value >= 0.0 && value < 1.0) {
                return Err((field, format!("{} is outside [0, 1) (the fraction a loss takes off)", num(value))));
            }
        }
        if self.beta_min > self.beta_max {
            return Err(("beta_min", format!("{} is above beta_max ({})", num(self.beta_min), num(self.beta_max))));
        }
        if self.win_thresh > 1_000_000 {
            return Err(("win_thresh", format!("{} is not a segment count in [0, 1000000]", self.win_thresh)));
        }
        if !(1..=1000).contains(&self.theta) {
            return Err(("theta", format!("{} is not a round count in [1, 1000]", self.theta)));
        }
        Ok(())
    }

    fn build(&self) -> Illinois {
        Illinois {
            alpha: self.alpha_max,
            beta: self.beta_base,
            config: self.clone(),
            base_rtt: None,
            max_rtt: 0,
            sum_rtt: 0,
            cnt_rtt: 0,
            rtt_above: false,
            rtt_low: 0,
            ack_cnt: 0.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Illinois {
    config: IllinoisConfig,
    pub alpha: f64,
    pub beta: f64,
    /// The smallest and largest RTT ever (ns); the round's sum and count.
    base_rtt: Option<Time>,
    max_rtt: Time,
    sum_rtt: Time,
    cnt_rtt: u64,
    /// da has risen above d1 since α last returned to α_max; rounds in a row at da ≤ d1.
    rtt_above: bool,
    rtt_low: u32,
    /// α-weighted segments acknowledged toward the next whole segment.
    ack_cnt: f64,
}

impl Illinois {
    /// α and β from da and dm (ms), as ns-3's `CalculateAlpha` / `CalculateBeta`.
    fn recalc(&mut self, da: f64, dm: f64) {
        let c = &self.config;
        let d1 = dm / 100.0;
        if da <= d1 {
            if !self.rtt_above {
                self.alpha = c.alpha_max;
            }
            self.rtt_low += 1;
            if self.rtt_low >= c.theta {
                self.rtt_low = 0;
                self.rtt_above = false;
                self.alpha = c.alpha_max;
            }
        } else {
            self.rtt_above = true;
            let (dm1, da1) = (dm - d1, da - d1);
            self.alpha = dm1 * c.alpha_max / (dm1 + da1 * (c.alpha_max - c.alpha_min) / c.alpha_min);
        }
        let (d2, d3) = (dm / 10.0, 8.0 * dm / 10.0);
        self.beta = if da <= d2 {
            c.beta_min
        } else if da < d3 {
            (c.beta_min * d3 - c.beta_max * d2 + (c.beta_max - c.beta_min) * da) / (d3 - d2)
        } else {
            c.beta_max
        };
    }

    fn reset_round(&mut self) {
        self.sum_rtt = 0;
        self.cnt_rtt = 0;
    }
}

impl CongestionControl for Illinois {
    fn label(&self) -> String {
        "illinois".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt.filter(|&r| r > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.max_rtt = self.max_rtt.max(rtt);
            self.sum_rtt += rtt;
            self.cnt_rtt += 1;
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        if window.cwnd < window.ssthresh {
            slow_start_leftover(window, ack.segments_acked);
            return;
        }
        let old = whole(window.cwnd).max(1);
        let mut w = old;
        self.ack_cnt += ack.segments_acked as f64 * self.alpha;
        while self.ack_cnt >= w as f64 {
            self.ack_cnt -= w as f64;
            w += 1;
        }
        if w != old {
            window.cwnd = w as f64;
        }
    }

    fn on_round(&mut self, window: &mut Window, _now: Time) {
        if whole(window.cwnd) < self.config.win_thresh {
            self.alpha = self.config.alpha_base;
            self.beta = self.config.beta_base;
        } else if let (Some(base), true) = (self.base_rtt, self.cnt_rtt > 0) {
            let ms = |t: f64| t / 1e6;
            let da = ms(self.sum_rtt as f64 / self.cnt_rtt as f64 - base as f64);
            let dm = ms((self.max_rtt - base) as f64);
            self.recalc(da, dm);
        }
        self.reset_round();
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let r = cut((whole(window.cwnd) as f64 * (1.0 - self.beta)).floor(), event);
        if event.signal == CongestionSignal::Timeout {
            self.alpha = self.config.alpha_base;
            self.beta = self.config.beta_base;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.reset_round();
        }
        r
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("beta", self.beta));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;

    /// dm = 100 ms (d1 1, d2 10, d3 80). da = 0.5: α_max, β_min. da = 50: α =
    /// 99·10/(99 + 49·9.7/0.3) = 990/1683.33 = 0.5881; β = (0.125·80 − 0.5·10 + 0.375·50)/70
    /// = 23.75/70 = 0.3393. da = 90: β_max; α = 990/(99 + 89·9.7/0.3) = 0.3326.
    #[test]
    fn alpha_and_beta_from_delay() {
        let mut il = IllinoisConfig::default().build();
        il.recalc(0.5, 100.0);
        assert_eq!((il.alpha, il.beta), (10.0, 0.125));
        let mut il = IllinoisConfig::default().build();
        il.recalc(50.0, 100.0);
        assert!((il.alpha - 990.0 / (99.0 + 49.0 * 9.7 / 0.3)).abs() < 1e-12);
        assert!((il.alpha - 0.5881).abs() < 1e-4);
        assert!((il.beta - 23.75 / 70.0).abs() < 1e-12);
        il.recalc(90.0, 100.0);
        assert_eq!(il.beta, 0.5);
        assert!((il.alpha - 990.0 / (99.0 + 89.0 * 9.7 / 0.3)).abs() < 1e-12);
        assert!((il.alpha - 0.3326).abs() < 1e-4);
        // back at low delay: α stays low (the delay rose) until θ = 5 low rounds
        for round in 1..=4 {
            il.recalc(0.5, 100.0);
            assert!(il.alpha < 1.0, "round {round}");
        }
        il.recalc(0.5, 100.0);
        assert_eq!(il.alpha, 10.0);
    }

    /// Per-round update from samples: base 100 ms, max 200 ms, a round averaging 150 ms
    /// (da 50, dm 100) at cwnd 20 gives the α, β above; at cwnd 10 the base values.
    /// Increase: α 0.5881 per ACK at cwnd 20 → the 35th ACK adds a segment (34·0.5881 =
    /// 19.99, 35·0.5881 = 20.58), fraction kept.
    #[test]
    fn per_round_update_and_increase() {
        let mut il = IllinoisConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        for rtt in [100u64, 200] {
            il.on_ack_event(&w, &AckSample { rtt: Some(rtt * 1_000_000), ..Default::default() });
        }
        il.on_round(&mut w, 0);
        assert!((il.alpha - 0.5881).abs() < 1e-4 && (il.beta - 23.75 / 70.0).abs() < 1e-12);
        let a = AckSample { segments_acked: 1, ..Default::default() };
        for _ in 0..34 {
            il.on_ack(&mut w, &a);
        }
        assert_eq!(w.cwnd, 20.0);
        il.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 21.0);
        assert!((il.ack_cnt - (35.0 * il.alpha - 20.0)).abs() < 1e-9);
        let mut small = Window { cwnd: 10.0, ssthresh: 5.0 };
        il.on_ack_event(&small, &AckSample { rtt: Some(150_000_000), ..Default::default() });
        il.on_round(&mut small, 0);
        assert_eq!((il.alpha, il.beta), (1.0, 0.5));
    }

    /// The cut keeps ⌊(1 − β)·cwnd⌋: β 1/8 at 100 → 87; a timeout resets α, β.
    #[test]
    fn cut_and_timeout_reset() {
        let mut il = IllinoisConfig::default().build();
        il.recalc(0.5, 100.0);
        let r = il.on_congestion(&Window { cwnd: 100.0, ssthresh: 1e9 }, &event(CongestionSignal::FastRetransmit));
        assert_eq!(r.cwnd, 87.0);
        il.on_congestion(&Window { cwnd: 100.0, ssthresh: 1e9 }, &event(CongestionSignal::Timeout));
        assert_eq!((il.alpha, il.beta), (1.0, 0.5));
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&IllinoisConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&IllinoisConfig { alpha_min: 20.0, ..Default::default() }).unwrap_err().0, "alpha_min");
        assert_eq!(Algorithm::validate(&IllinoisConfig { beta_max: 1.0, ..Default::default() }).unwrap_err().0, "beta_max");
        assert_eq!(Algorithm::validate(&IllinoisConfig { theta: 0, ..Default::default() }).unwrap_err().0, "theta");
    }
}
