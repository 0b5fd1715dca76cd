//! TCP Westwood ABSE, adaptive bandwidth share estimation (ICNP 2002 §3): the sampling
//! interval T_k adapts to the congestion level (Eqs. 2–4: T_min = the last ACK
//! inter-arrival when ŝ_{k−1}·RTTmin ≥ cwin, else RTT·(cwin − ŝ_{k−1}·RTTmin)/cwin) and
//! Eq. 1's τ_k to the network's instability (Eqs. 5–6). The estimator is
//! [`IntervalEstimator`] in adaptive mode; everything else is the shared Westwood rule.
//! By default a sample closes once T_k has passed since the previous one and covers all
//! that time, and τ_k comes from past samples (`reading`: [`Reading`], whose two forms
//! [`super::estimators`] states against Eqs. 1 and 4–6).
use super::estimators::{IntervalEstimator, IntervalMode, Reading};
use super::westwood::{validate_cap, Westwood};
use serde::{Deserialize, Serialize};

/// How T_k is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// Eqs. 2–3 (ABSE proper).
    #[default]
    Adaptive,
    /// T_k = the last ACK pair, τ_k still adaptive: the estimator of the paper's Fig. 7.
    AckPair,
}

crate::schema::named_choice!(Sampling, "sampling", [Adaptive => "adaptive", AckPair => "ack_pair"]);

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodAbseConfig {
    pub sampling: Sampling,
    /// Hold T_k within [T_min, RTT] (§3.1.2: "the sampling interval ranges between T_min
    /// and T_max"); off takes Eq. 2 as written.
    pub clamp_interval: bool,
    /// Eq. 5's β (the paper: 0.6).
    pub beta: f64,
    /// Eq. 6's N (the paper: 10).
    pub gain: f64,
    /// How many recent U_k give U_max (the paper: 10).
    pub instability_window: u32,
    /// How Eqs. 1 and 4–6 are read: "non_overlapping" or "literal".
    pub reading: Reading,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cumulative_cap: Option<u32>,
}

impl Default for WestwoodAbseConfig {
    fn default() -> Self {
        WestwoodAbseConfig {
            sampling: Sampling::Adaptive,
            clamp_interval: true,
            beta: 0.6,
            gain: 10.0,
            instability_window: 10,
            reading: Reading::NonOverlapping,
            cumulative_cap: None,
        }
    }
}

impl WestwoodAbseConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        if !(self.beta >= 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("{} is not in [0, 1)", num(self.beta))));
        }
        if !(self.gain >= 0.0 && self.gain <= 1000.0) {
            return Err(("gain", format!("{} is not in [0, 1000]", num(self.gain))));
        }
        if !(1..=10_000).contains(&self.instability_window) {
            return Err((
                "instability_window",
                format!("{} is not in [1, 10000]", self.instability_window),
            ));
        }
        validate_cap(self.cumulative_cap)
    }

    pub fn build(&self) -> Westwood<IntervalEstimator> {
        let mode = match self.sampling {
            Sampling::Adaptive => IntervalMode::Adaptive {
                clamp: self.clamp_interval,
            },
            Sampling::AckPair => IntervalMode::AckPair,
        };
        let mut estimator = IntervalEstimator::new(mode, self.reading);
        estimator.instability.beta = self.beta;
        estimator.instability.gain = self.gain;
        estimator.instability.window = self.instability_window as usize;
        let label = match (self.sampling, self.reading) {
            (Sampling::Adaptive, Reading::NonOverlapping) => "westwood-abse",
            (Sampling::AckPair, Reading::NonOverlapping) => "westwood-abse(ack_pair)",
            (Sampling::Adaptive, Reading::Literal) => "westwood-abse(literal)",
            (Sampling::AckPair, Reading::Literal) => "westwood-abse(ack_pair,literal)",
        };
        Westwood::new(label, estimator, self.cumulative_cap)
    }
}

impl super::Algorithm for WestwoodAbseConfig {
    type Controller = Westwood<IntervalEstimator>;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        WestwoodAbseConfig::validate(self)
    }
    fn build(&self) -> Westwood<IntervalEstimator> {
        WestwoodAbseConfig::build(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::ack_with_rtt;
    use crate::cc::{CongestionControl, Window};

    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut WestwoodAbseConfig, f64);
        let cases: [(&str, Set, &[f64], &[f64]); 4] = [
            (
                "beta",
                |c, v| c.beta = v,
                &[0.0, 0.999],
                &[1.0, -0.1, f64::NAN],
            ),
            (
                "gain",
                |c, v| c.gain = v,
                &[0.0, 1000.0],
                &[-1.0, 1000.5, f64::NAN],
            ),
            (
                "instability_window",
                |c, v| c.instability_window = v as u32,
                &[1.0, 10000.0],
                &[0.0, 10001.0],
            ),
            (
                "cumulative_cap",
                |c, v| c.cumulative_cap = Some(v as u32),
                &[1.0],
                &[0.0],
            ),
        ];
        crate::schema::assert_field_bounds(WestwoodAbseConfig::validate, &cases);
    }

    /// The parameters reach the estimator, and through the congestion-control interface
    /// a steady stream with cwnd above ŝ·RTTmin samples over T_k from Eq. 2.
    #[test]
    fn parameters_reach_the_estimator() {
        let config = WestwoodAbseConfig {
            beta: 0.5,
            gain: 4.0,
            instability_window: 3,
            ..Default::default()
        };
        let mut abse = config.build();
        assert_eq!(
            (
                abse.estimator.instability.beta,
                abse.estimator.instability.gain,
                abse.estimator.instability.window
            ),
            (0.5, 4.0, 3)
        );
        // 1 segment per 10 ms (100/s), RTT 100 ms, cwnd 20: T_k = 0.1 × (20 − 10)/20 = 0.05.
        let w = Window {
            cwnd: 20.0,
            ssthresh: 100.0,
        };
        for k in 0..400u64 {
            abse.on_ack_event(&w, &ack_with_rtt(10 * k + 3, 100));
        }
        assert!(
            (abse.estimator.filter.estimate() - 100.0).abs() < 2.0,
            "{}",
            abse.estimator.filter.estimate()
        );
        assert!(
            (abse.estimator.interval - 0.05).abs() < 0.002,
            "{}",
            abse.estimator.interval
        );
        let pair = WestwoodAbseConfig {
            sampling: Sampling::AckPair,
            ..Default::default()
        }
        .build();
        assert_eq!(pair.estimator.mode, IntervalMode::AckPair);
        assert_eq!(pair.label(), "westwood-abse(ack_pair)");
    }
}
