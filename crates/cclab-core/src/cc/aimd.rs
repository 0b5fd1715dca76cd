//! TCP(α, β), the general AIMD of Yang & Lam (ICNP 2000) studied by Zhang &
//! Tsaoussidis (2002): the window grows by α segments per RTT without loss and is
//! multiplied by β on a loss indication. `alpha = "friendly"` picks the TCP-friendly
//! α = 4(1 − β²)/3 (Eq. 3 of Zhang & Tsaoussidis), e.g. β = 7/8 → α ≈ 0.31.
use super::reno::{cut, increase};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};
use crate::schema::OpenUnit;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// How α is given: a number > 0, or "friendly" (Eq. 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Alpha {
    Value(f64),
    Friendly,
}

impl Serialize for Alpha {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Alpha::Value(v) => s.serialize_f64(*v),
            Alpha::Friendly => s.serialize_str("friendly"),
        }
    }
}

/// The largest α taken: 1000 segments per RTT (beyond that the window is the receiver's
/// limit from the first RTT on, which is not an AIMD any more).
pub const MAX_ALPHA: f64 = 1000.0;

impl<'de> Deserialize<'de> for Alpha {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Alpha;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number in (0, 1000] or \"friendly\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Alpha, E> {
                if v > 0.0 && v <= MAX_ALPHA {
                    Ok(Alpha::Value(v))
                } else {
                    Err(E::custom(format!("{} is not a number in (0, 1000] (segments per RTT) or \"friendly\"", crate::schema::Num(v))))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Alpha, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Alpha, E> {
                self.visit_f64(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Alpha, E> {
                match v {
                    "friendly" => Ok(Alpha::Friendly),
                    other => Err(E::custom(format!("{other:?} is not a number in (0, 1000] or \"friendly\""))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// How the decrease treats cuts that ns-2.35's `TcpAgent::slowdown` makes with ½
/// regardless of `decrease_num_`: the first cut of a connection, cuts in slow start, and
/// timeouts (ssthresh = window / 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DecreaseStyle {
    /// Every cut multiplies by β (the GAIMD model). Beware: after the first slow start
    /// overshoots (cwnd ≈ 2× what the path holds), a β near 1 barely cuts and the flow
    /// often ends in a timeout.
    Gaimd,
    /// As ns-2.35 (the simulator of all four papers), the default: ½ for the first cut,
    /// for cuts in slow start and on timeouts; β otherwise.
    #[default]
    Ns2,
}

crate::schema::named_choice!(DecreaseStyle, "decrease", [Gaimd => "gaimd", Ns2 => "ns2"]);

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AimdConfig {
    /// Additive increase per RTT, in segments (default: "friendly", Eq. 3).
    #[serde(default = "friendly")]
    pub alpha: Alpha,
    /// Multiplicative decrease factor in (0, 1) (default 0.5).
    #[serde(default = "half")]
    pub beta: OpenUnit,
    #[serde(default)]
    pub decrease: DecreaseStyle,
}

fn friendly() -> Alpha {
    Alpha::Friendly
}
fn half() -> OpenUnit {
    OpenUnit(0.5)
}

impl AimdConfig {
    pub fn alpha_value(&self) -> f64 {
        match self.alpha {
            Alpha::Value(v) => v,
            Alpha::Friendly => friendly_alpha(self.beta.0),
        }
    }
    pub fn build(&self) -> Aimd {
        let mut aimd = Aimd::new(self.alpha_value(), self.beta.0);
        aimd.decrease = self.decrease;
        aimd
    }
}

impl super::Algorithm for AimdConfig {
    type Controller = Aimd;
    fn build(&self) -> Aimd {
        AimdConfig::build(self)
    }
}

/// α = 4(1 − β²)/3 (Eq. 3).
pub fn friendly_alpha(beta: f64) -> f64 {
    4.0 * (1.0 - beta * beta) / 3.0
}

#[derive(Clone, Debug)]
pub struct Aimd {
    pub alpha: f64,
    pub beta: f64,
    pub decrease: DecreaseStyle,
    label: String,
}

impl Aimd {
    pub fn new(alpha: f64, beta: f64) -> Aimd {
        Aimd::with_label(alpha, beta, format!("aimd({},{})", round3(alpha), round3(beta)))
    }
    pub fn with_label(alpha: f64, beta: f64, label: String) -> Aimd {
        Aimd { alpha, beta, decrease: DecreaseStyle::default(), label }
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl CongestionControl for Aimd {
    fn label(&self) -> String {
        self.label.clone()
    }

    #[inline]
    fn on_ack(&mut self, window: &mut Window, _ack: &AckSample) {
        increase(window, self.alpha);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let ns2_half = self.decrease == DecreaseStyle::Ns2
            && (event.first_reduction || event.in_slow_start || event.signal == CongestionSignal::Timeout);
        let factor = if ns2_half { 0.5 } else { self.beta };
        cut(window.cwnd * factor, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("beta", self.beta));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(signal: CongestionSignal) -> CongestionEvent {
        CongestionEvent { now: 0, signal, flight_size: 40, in_slow_start: false, first_reduction: false, integer_ssthresh: false }
    }

    /// α as a scenario gives it: a number in (0, 1000] or "friendly"; anything else is
    /// refused with the range in the message (whatever the wrong type).
    #[test]
    fn alpha_is_read_as_documented() {
        let read = |text: &str| serde_json::from_str::<Alpha>(text).map_err(|e| e.to_string());
        assert_eq!(read("1000"), Ok(Alpha::Value(1000.0)));
        assert_eq!(read("0.31"), Ok(Alpha::Value(0.31)));
        assert_eq!(read("\"friendly\""), Ok(Alpha::Friendly));
        for wrong in ["0", "-1", "1000.5", "\"fast\"", "true", "[1]"] {
            let message = read(wrong).expect_err(wrong);
            assert!(message.contains("(0, 1000]"), "{wrong}: {message}");
        }
    }

    #[test]
    fn friendly_alpha_matches_paper() {
        assert!((friendly_alpha(0.875) - 0.3125).abs() < 1e-12); // the paper's 0.31
        assert!((friendly_alpha(0.5) - 1.0).abs() < 1e-12);
        assert!((friendly_alpha(0.75) - 0.5833).abs() < 1e-3);
    }

    #[test]
    fn increase_is_alpha_per_window_of_acks() {
        let mut aimd = Aimd::new(0.31, 0.875);
        let mut w = Window { cwnd: 40.0, ssthresh: 10.0 };
        // One RTT = cwnd ACKs; the growth is ~α (exactly α in the limit of large cwnd).
        let acks = w.cwnd as usize;
        for _ in 0..acks {
            aimd.on_ack(&mut w, &AckSample::default());
        }
        assert!((w.cwnd - 40.31).abs() < 0.01, "{}", w.cwnd);
    }

    #[test]
    fn decrease_returns_beta_times_window() {
        let mut aimd = Aimd::new(1.25, 0.25);
        aimd.decrease = DecreaseStyle::Gaimd;
        let w = Window { cwnd: 40.0, ssthresh: 100.0 };
        let r = aimd.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert_eq!(r, Reduction { ssthresh: 10.0, cwnd: 10.0 });
        let r = aimd.on_congestion(&w, &event(CongestionSignal::Timeout));
        assert_eq!(r.ssthresh, 10.0);
        aimd.decrease = DecreaseStyle::Ns2;
        let r = aimd.on_congestion(&w, &event(CongestionSignal::Timeout));
        assert_eq!(r.ssthresh, 20.0);
        aimd.decrease = DecreaseStyle::Gaimd;
        // never below two segments
        let r = aimd.on_congestion(&Window { cwnd: 3.0, ssthresh: 3.0 }, &event(CongestionSignal::FastRetransmit));
        assert_eq!(r.ssthresh, 2.0);
    }

    #[test]
    fn ns2_style_halves_first_cut_and_timeouts() {
        let mut aimd = Aimd::new(0.31, 0.875);
        aimd.decrease = DecreaseStyle::Ns2;
        let w = Window { cwnd: 40.0, ssthresh: 100.0 };
        let mut e = event(CongestionSignal::FastRetransmit);
        e.first_reduction = true;
        assert_eq!(aimd.on_congestion(&w, &e).ssthresh, 20.0);
        e.first_reduction = false;
        assert_eq!(aimd.on_congestion(&w, &e).ssthresh, 35.0);
        assert_eq!(aimd.on_congestion(&w, &event(CongestionSignal::Timeout)).ssthresh, 20.0);
    }
}
