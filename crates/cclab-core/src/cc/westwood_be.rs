//! TCP Westwood BE (ICNP 2002 §3.1.1, Fig. 1(a)): the ERE sample is the data reported by
//! the latest ACK over the time since the previous one, d_k/Δt_k, filtered by Eq. 1 with a
//! fixed τ. Everything else is the shared Westwood rule ([`super::westwood`]).
//!
//! `profile = "ucla"` is UCLA's ns-2 agent instead, Agent/TCP/WestwoodNR v1.3
//! (`tcp-westwood-nr.cc`, 2002; read, not copied), with its ns-2 defaults (`filter_type_
//! 3`, `tau_ 1`, `fr_a_ 1`): the Tustin filter on the ACK gap with a zero sample per τ/2
//! of silence ([`BandwidthEstimator::ucla`]), cumulative ACKs capped at 2 segments with
//! its accounting, and its loss rule ([`super::westwood::LossRule::Ucla`]). The agent is
//! a NewReno one: run it with `tcp.recovery = "newreno"` (and `tcp.profile = "ns2"` for
//! ns-2's clock and windows). The paper's BE figures come from this agent: on clustered
//! ACKs its Tustin input re-weights each burst's high rate by the gap after it, the 3.2
//! Mb/s overestimate of Fig. 2, which Eq. 1 as printed does not give.
use super::estimators::{AckInput, BandwidthEstimator};
use super::westwood::{validate_cap, validate_seconds, EligibleRate, Westwood};
use crate::sim::Duration;
use serde::{Deserialize, Serialize};

/// Whose BE: the paper's Eq. 1, or UCLA's ns-2 agent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BeProfile {
    #[default]
    Paper,
    Ucla,
}

crate::schema::named_choice!(BeProfile, "profile", [Paper => "paper", Ucla => "ucla"]);

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodBeConfig {
    /// "paper" (Eq. 1 as printed, the options below) or "ucla" (Agent/TCP/WestwoodNR).
    pub profile: BeProfile,
    /// Eq. 1's τ (UCLA's ns-2 code: 1 s).
    pub tau: Duration,
    /// Feed one zero sample per whole silent period without ACKs (off by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silent_period: Option<Duration>,
    /// Filter (s_k + s_{k−1})/2 instead of s_k, the original BE filter's Tustin form.
    pub tustin: bool,
    /// Count a cumulative ACK as at most this many segments (UCLA's ns-2 code: 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cumulative_cap: Option<u32>,
}

impl Default for WestwoodBeConfig {
    fn default() -> Self {
        WestwoodBeConfig {
            profile: BeProfile::Paper,
            tau: Duration::from_secs_f64(1.0),
            silent_period: None,
            tustin: false,
            cumulative_cap: None,
        }
    }
}

impl WestwoodBeConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        validate_seconds("tau", self.tau.secs_f64())?;
        if let Some(period) = self.silent_period {
            validate_seconds("silent_period", period.secs_f64())?;
        }
        validate_cap(self.cumulative_cap)?;
        if self.profile == BeProfile::Ucla {
            let fixed = |field, value: String| {
                Err((field, format!("{value} is fixed by profile = \"ucla\" (Tustin, a zero sample per τ/2 of silence, cumulative ACKs capped at 2): leave it out")))
            };
            if self.tustin {
                return fixed("tustin", "true".into());
            }
            if let Some(period) = self.silent_period {
                return fixed("silent_period", format!("{}s", crate::schema::Num(period.secs_f64())));
            }
            if let Some(cap) = self.cumulative_cap {
                return fixed("cumulative_cap", cap.to_string());
            }
        }
        Ok(())
    }

    pub fn build(&self) -> Westwood<BandwidthEstimator> {
        if self.profile == BeProfile::Ucla {
            return Westwood::ucla("westwood-be(ucla)", BandwidthEstimator::ucla(self.tau.secs_f64()));
        }
        let estimator = BandwidthEstimator::new(
            self.tau.secs_f64(),
            self.silent_period.map(Duration::secs_f64),
            self.tustin,
        );
        Westwood::new("westwood-be", estimator, self.cumulative_cap)
    }
}

impl EligibleRate for BandwidthEstimator {
    fn on_ack(&mut self, ack: &AckInput) {
        BandwidthEstimator::on_ack(self, ack);
    }
    fn eligible_rate(&mut self, _cwnd: f64, _rtt_min: f64) -> Option<f64> {
        self.filter.current()
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ere_pps", self.filter.estimate()));
        out.push(("tau_s", self.tau));
    }
}

impl super::Algorithm for WestwoodBeConfig {
    type Controller = Westwood<super::estimators::BandwidthEstimator>;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        WestwoodBeConfig::validate(self)
    }
    fn build(&self) -> Westwood<super::estimators::BandwidthEstimator> {
        WestwoodBeConfig::build(self)
    }
    /// UCLA's agent (`profile = "ucla"`) was Agent/TCP/WestwoodNR.
    fn ns2_agent(&self) -> super::Ns2Agent {
        match self.profile {
            BeProfile::Ucla => super::Ns2Agent::WestwoodNr,
            BeProfile::Paper => super::Ns2Agent::Newreno,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::{ack_with_rtt, event};
    use crate::cc::{AckSample, CongestionControl, CongestionSignal, Window};

    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut WestwoodBeConfig, f64);
        let cases: [(&str, Set, &[f64], &[f64]); 3] = [
            (
                "tau",
                |c, v| c.tau = Duration::from_secs_f64(v),
                &[1e-6, 1000.0],
                &[0.0, 1000.001],
            ),
            (
                "silent_period",
                |c, v| c.silent_period = Some(Duration::from_secs_f64(v)),
                &[0.001, 1000.0],
                &[0.0, 2000.0],
            ),
            (
                "cumulative_cap",
                |c, v| c.cumulative_cap = Some(v as u32),
                &[1.0, 1e6],
                &[0.0, 1e6 + 1.0],
            ),
        ];
        crate::schema::assert_field_bounds(WestwoodBeConfig::validate, &cases);
        // profile = "ucla" fixes the filter: the paper profile's options are refused.
        let ucla = WestwoodBeConfig { profile: BeProfile::Ucla, ..Default::default() };
        assert_eq!(ucla.validate(), Ok(()));
        for (field, config) in [
            ("tustin", WestwoodBeConfig { tustin: true, ..ucla.clone() }),
            ("silent_period", WestwoodBeConfig { silent_period: Some(Duration::from_millis(500)), ..ucla.clone() }),
            ("cumulative_cap", WestwoodBeConfig { cumulative_cap: Some(2), ..ucla.clone() }),
        ] {
            let (name, message) = config.validate().unwrap_err();
            assert_eq!(name, field);
            assert!(message.contains("profile = \"ucla\""), "{message}");
        }
    }

    /// The UCLA profile through the congestion-control interface: ACKs of one segment
    /// every 10 ms with an RTO sample of 70 ms: the Tustin estimate from 0 reaches the
    /// 100 segments/s (within 0.1 % after 20 s, τ = 1 s); a cumulative ACK of 5 segments
    /// counts 2 (the cap); at a loss ssthresh = ⌊100 × 0.07⌋ = 7 (the paper profile: 7.0x).
    #[test]
    fn ucla_profile_estimates_and_truncates() {
        let mut ucla = WestwoodBeConfig { profile: BeProfile::Ucla, ..Default::default() }.build();
        assert_eq!(ucla.label(), "westwood-be(ucla)");
        let w = Window { cwnd: 30.0, ssthresh: 100.0 };
        for k in 1..=2000u64 {
            let timed_rtt = std::num::NonZeroU64::new(if k == 1 { 70_000_000 } else { 0 });
            ucla.on_ack_event(&w, &AckSample { now: 10_000_000 * k, segments_acked: 1, timed_rtt, ..Default::default() });
        }
        let ere = ucla.estimator.filter.estimate();
        assert!((ere - 100.0).abs() < 0.1, "{ere}");
        let before = ucla.estimator.filter.estimate();
        ucla.on_ack_event(&w, &AckSample { now: 20_010_000_000, segments_acked: 5, ..Default::default() });
        // Tustin: (2 / 0.01 + 100) / 2 enters with weight 2Δ/(2τ + Δ).
        let alpha = 1.99 / 2.01;
        let expected = alpha * before + (1.0 - alpha) * (200.0 + 100.0) / 2.0;
        assert!((ucla.estimator.filter.estimate() - expected).abs() < 1e-9);
        let r = ucla.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert_eq!(r.ssthresh, (expected * 0.07).trunc());
    }

    /// Through the congestion-control interface: ACKs of one segment every 10 ms (100
    /// segments/s) with RTTs of 80 ms; a duplicate counts one segment, the cumulative ACK
    /// after it the rest. At the loss, ssthresh = 100 × 0.08 = 8 segments.
    #[test]
    fn estimate_from_the_ack_stream_sets_ssthresh() {
        let mut be = WestwoodBeConfig::default().build();
        let w = Window {
            cwnd: 30.0,
            ssthresh: 100.0,
        };
        for k in 0..200u64 {
            be.on_ack_event(&w, &ack_with_rtt(10 * k, 80));
        }
        let ere = be.estimator.filter.estimate();
        assert!((ere - 100.0).abs() < 1e-6, "{ere}");
        // A duplicate 10 ms later (1 segment) and a cumulative ACK of 3 segments 10 ms after
        // it (credited 3 − 1 = 2, i.e. 200/s): the estimate moves towards 200 once.
        be.on_ack_event(
            &w,
            &AckSample {
                now: 2_000_000_000,
                duplicate: true,
                ..Default::default()
            },
        );
        be.on_ack_event(
            &w,
            &AckSample {
                now: 2_010_000_000,
                segments_acked: 3,
                ..Default::default()
            },
        );
        let alpha = (2.0 - 0.01) / (2.0 + 0.01);
        let expected = alpha * 100.0 + (1.0 - alpha) * 200.0;
        assert!((be.estimator.filter.estimate() - expected).abs() < 1e-9);
        let r = be.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert!((r.ssthresh - expected * 0.08).abs() < 1e-9, "{r:?}");
        let mut state = Vec::new();
        be.state(&mut state);
        assert_eq!(state[0].0, "ere_pps");
        assert!((state[0].1 - expected).abs() < 1e-9);
    }
}
