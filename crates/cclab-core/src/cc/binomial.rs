//! Binomial congestion control (Bansal & Balakrishnan, INFOCOM 2001), as used in the
//! SlowCC study (Bansal, Balakrishnan, Floyd & Shenker, SIGCOMM 2001, §2):
//!
//!   increase  w ← w + a / w^k   per RTT without loss   (a/w^(k+1) per ACK)
//!   decrease  w ← w − b · w^l   on a loss indication
//!
//! AIMD is k = 0, l = 1; `sqrt` is k = l = ½; `iiad` is k = 1, l = 0. Slow start, the
//! timeout rule and the ns-2 halving of the first cut are Reno's (see [`DecreaseStyle`]).
//!
//! **TCP-compatible a.** With k + l = 1 the window oscillates by b·w^l ≪ w, so over one
//! loss cycle the flow spends b·w^l / (a/w^k) = b·w/a RTTs near w and sends b·w²/a
//! packets, one per 1/p: w = √(a / (b·p)). TCP's mean window is √(3 / (2p)) (the
//! deterministic-loss square-root law), so the binomial control is TCP-compatible when
//! a = 3b/2. That is the default `a` of every preset here, and how SQRT(1/b) is defined:
//! decrease (1/b)·√w, increase (3/(2b))/√w per RTT. For k + l ≠ 1 the throughput does
//! not scale as 1/√p and no `a` is TCP-compatible: `a` must then be given.
//!
//! ns-2.35 runs these as `windowOption_ 6` with `k_parameter_`, `l_parameter_`,
//! `increase_num_` = a and `decrease_num_` = b; it halves instead whenever
//! `decrease_num_` is exactly 0.5, which the `ns2` decrease style does not copy.
use super::aimd::DecreaseStyle;
use super::reno::{cut, slow_start};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BinomialConfig {
    /// Increase exponent: a / w^k per RTT.
    pub k: f64,
    /// Decrease exponent: b · w^l per loss.
    pub l: f64,
    /// Increase coefficient (default: 3b/2, TCP-compatible when k + l = 1).
    #[serde(default)]
    pub a: Option<f64>,
    /// Decrease coefficient.
    pub b: f64,
    #[serde(default)]
    pub decrease: DecreaseStyle,
}

/// `{ algorithm = "sqrt" }` / `{ algorithm = "iiad" }` / `{ algorithm = "sqrt(1/b)", b = 8 }`:
/// the presets, with the parameters they allow.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PresetParams {
    #[serde(default)]
    pub a: Option<f64>,
    #[serde(default)]
    pub b: Option<f64>,
    #[serde(default)]
    pub decrease: DecreaseStyle,
}

/// The TCP-compatible increase for k + l = 1 (see the module docs).
pub fn compatible_a(b: f64) -> f64 {
    1.5 * b
}

impl BinomialConfig {
    /// SQRT: k = l = ½, b = ½ unless given.
    pub fn sqrt(p: &PresetParams) -> BinomialConfig {
        BinomialConfig { k: 0.5, l: 0.5, a: p.a, b: p.b.unwrap_or(0.5), decrease: p.decrease }
    }
    /// IIAD: k = 1, l = 0; b = 2/3 so that the compatible a is 1 (Bansal & Balakrishnan's).
    pub fn iiad(p: &PresetParams) -> BinomialConfig {
        BinomialConfig { k: 1.0, l: 0.0, a: p.a, b: p.b.unwrap_or(2.0 / 3.0), decrease: p.decrease }
    }
    /// SQRT(1/b): k = l = ½ with decrease coefficient 1/b.
    pub fn sqrt_inverse(b: f64, decrease: DecreaseStyle) -> BinomialConfig {
        BinomialConfig { k: 0.5, l: 0.5, a: None, b: 1.0 / b, decrease }
    }

    pub fn a_value(&self) -> f64 {
        self.a.unwrap_or_else(|| compatible_a(self.b))
    }

    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        if !(self.k.is_finite() && (-1.0..=2.0).contains(&self.k)) {
            return Err(("k", format!("{} is outside [-1, 2]", num(self.k))));
        }
        if !(self.l.is_finite() && (0.0..=1.0).contains(&self.l)) {
            return Err(("l", format!("{} is outside [0, 1] (l > 1 would cut more than the window)", num(self.l))));
        }
        let b_max = if self.l == 1.0 { 1.0 } else { 100.0 };
        if !(self.b.is_finite() && self.b > 0.0 && self.b < b_max) {
            return Err(("b", format!("{} is outside (0, {b_max})", num(self.b))));
        }
        match self.a {
            Some(a) if !(a.is_finite() && a > 0.0 && a <= super::aimd::MAX_ALPHA) => {
                Err(("a", format!("{} is outside (0, 1000]", num(a))))
            }
            None if (self.k + self.l - 1.0).abs() > 1e-9 => Err((
                "a",
                format!("must be given when k + l = {} ≠ 1 (no increase is TCP-compatible then)", num(self.k + self.l)),
            )),
            _ => Ok(()),
        }
    }

    pub fn build(&self, label: String) -> Binomial {
        Binomial { a: self.a_value(), b: self.b, k: self.k, l: self.l, decrease: self.decrease, label }
    }

    pub fn default_label(&self) -> String {
        format!("binomial(k={},l={},a={},b={})", round3(self.k), round3(self.l), round3(self.a_value()), round3(self.b))
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[derive(Clone, Debug)]
pub struct Binomial {
    pub a: f64,
    pub b: f64,
    pub k: f64,
    pub l: f64,
    pub decrease: DecreaseStyle,
    label: String,
}

impl CongestionControl for Binomial {
    fn label(&self) -> String {
        self.label.clone()
    }

    #[inline]
    fn on_ack(&mut self, window: &mut Window, _ack: &AckSample) {
        if window.cwnd < window.ssthresh {
            slow_start(window);
        } else {
            // a / w^k per RTT, spread over the w ACKs of a round.
            window.cwnd += self.a / window.cwnd.powf(self.k + 1.0);
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let ns2_half = self.decrease == DecreaseStyle::Ns2
            && (event.first_reduction || event.in_slow_start || event.signal == CongestionSignal::Timeout);
        let w = window.cwnd;
        let reduced = if ns2_half { w / 2.0 } else { w - self.b * w.powf(self.l) };
        let mut reduction = cut(reduced, event);
        if event.integer_ssthresh && self.b == 0.5 {
            // ns-2's slowdown halves cwnd whenever decrease_num_ (1 − b) is 0.5, whatever
            // the binomial decrease gives ssthresh.
            reduction.cwnd = (w / 2.0).max(1.0);
        }
        reduction
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("a", self.a));
        out.push(("b", self.b));
    }
}

impl super::Algorithm for BinomialConfig {
    type Controller = Binomial;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        BinomialConfig::validate(self)
    }
    fn build(&self) -> Binomial {
        BinomialConfig::build(self, self.default_label())
    }
}

/// `{ algorithm = "sqrt", a, b, decrease }`: binomial k = l = ½.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(transparent)]
pub struct SqrtConfig(pub PresetParams);

impl super::Algorithm for SqrtConfig {
    type Controller = Binomial;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        BinomialConfig::sqrt(&self.0).validate()
    }
    fn build(&self) -> Binomial {
        BinomialConfig::sqrt(&self.0).build("sqrt".into())
    }
}

/// `{ algorithm = "iiad", a, b, decrease }`: binomial k = 1, l = 0.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(transparent)]
pub struct IiadConfig(pub PresetParams);

impl super::Algorithm for IiadConfig {
    type Controller = Binomial;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        BinomialConfig::iiad(&self.0).validate()
    }
    fn build(&self) -> Binomial {
        BinomialConfig::iiad(&self.0).build("iiad".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn avoidance(cfg: &BinomialConfig) -> Binomial {
        let mut c = cfg.clone();
        c.decrease = DecreaseStyle::Gaimd;
        c.build("t".into())
    }

    fn event() -> CongestionEvent {
        CongestionEvent { now: 0, signal: CongestionSignal::FastRetransmit, flight_size: 100, in_slow_start: false, first_reduction: false, integer_ssthresh: false }
    }

    #[test]
    fn sqrt_increase_and_decrease_follow_the_powers() {
        // SQRT(1/2): a = 0.75, b = 0.5. At w = 100: one RTT (100 ACKs) adds ≈ 0.75/10,
        // a loss takes 0.5·10 = 5.
        let mut c = avoidance(&BinomialConfig::sqrt(&PresetParams::default()));
        assert_eq!(c.a, 0.75);
        let mut w = Window { cwnd: 100.0, ssthresh: 1.0 };
        for _ in 0..100 {
            c.on_ack(&mut w, &AckSample::default());
        }
        assert!((w.cwnd - 100.075).abs() < 1e-4, "{}", w.cwnd);
        let r = c.on_congestion(&Window { cwnd: 100.0, ssthresh: 1.0 }, &event());
        assert_eq!(r.ssthresh, 95.0);
    }

    #[test]
    fn iiad_adds_a_over_w_and_removes_b() {
        let mut c = avoidance(&BinomialConfig::iiad(&PresetParams::default()));
        assert!((c.a - 1.0).abs() < 1e-12);
        let mut w = Window { cwnd: 50.0, ssthresh: 1.0 };
        for _ in 0..50 {
            c.on_ack(&mut w, &AckSample::default());
        }
        assert!((w.cwnd - 50.02).abs() < 1e-3, "{}", w.cwnd); // a/w = 1/50 per RTT
        let r = c.on_congestion(&Window { cwnd: 50.0, ssthresh: 1.0 }, &event());
        assert!((r.ssthresh - (50.0 - 2.0 / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn aimd_is_the_k0_l1_case() {
        let cfg = BinomialConfig { k: 0.0, l: 1.0, a: Some(1.0), b: 0.5, decrease: DecreaseStyle::Gaimd };
        let mut c = cfg.build("aimd".into());
        let mut w = Window { cwnd: 20.0, ssthresh: 1.0 };
        c.on_ack(&mut w, &AckSample::default());
        assert!((w.cwnd - 20.05).abs() < 1e-12);
        assert_eq!(c.on_congestion(&Window { cwnd: 20.0, ssthresh: 1.0 }, &event()).ssthresh, 10.0);
    }

    #[test]
    fn sqrt_inverse_b_is_tcp_compatible_by_the_square_root_law() {
        // w = sqrt(a/(b p)) must equal TCP's sqrt(3/(2p)) for every b.
        for b in [2.0, 8.0, 64.0, 256.0] {
            let cfg = BinomialConfig::sqrt_inverse(b, DecreaseStyle::Gaimd);
            assert!((cfg.a_value() / cfg.b - 1.5).abs() < 1e-12);
        }
    }

    #[test]
    fn ns2_style_halves_the_first_cut() {
        let mut c = BinomialConfig::sqrt(&PresetParams::default()).build("sqrt".into());
        let mut e = event();
        e.first_reduction = true;
        assert_eq!(c.on_congestion(&Window { cwnd: 100.0, ssthresh: 1.0 }, &e).ssthresh, 50.0);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let base = BinomialConfig { k: 0.5, l: 0.5, a: None, b: 0.5, decrease: DecreaseStyle::Ns2 };
        let field = |c: BinomialConfig| c.validate().unwrap_err().0;
        assert_eq!(field(BinomialConfig { k: f64::NAN, ..base.clone() }), "k");
        assert_eq!(field(BinomialConfig { l: 1.5, ..base.clone() }), "l");
        assert_eq!(field(BinomialConfig { b: 0.0, ..base.clone() }), "b");
        assert_eq!(field(BinomialConfig { l: 1.0, k: 0.0, b: 1.0, ..base.clone() }), "b");
        assert_eq!(field(BinomialConfig { a: Some(-1.0), ..base.clone() }), "a");
        assert_eq!(field(BinomialConfig { k: 1.0, l: 1.0, ..base.clone() }), "a");
        assert!(base.validate().is_ok());
    }
}
