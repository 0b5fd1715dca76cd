//! TCP Westwood RE (ICNP 2002 §3.1.1, Fig. 1(b)): the ERE sample is the data acknowledged
//! over the latest fixed interval T (default one smoothed RTT), Σ d_j / T, filtered by
//! Eq. 1 with a fixed τ. By default one sample per interval, over the time since the
//! previous one (`reading`: [`Reading`] in [`super::estimators`]). Everything else is the
//! shared Westwood rule.
use super::estimators::{AckInput, IntervalEstimator, IntervalMode, Reading};
use super::westwood::{validate_cap, validate_seconds, EligibleRate, Westwood};
use crate::sim::Duration;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodReConfig {
    /// The sampling interval T (default: the sender's smoothed RTT, as Fig. 2(b)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// Eq. 1's τ (1 s, as BE).
    pub tau: Duration,
    /// How Eqs. 1 and 4 are read: one sample per interval ("non_overlapping") or a
    /// trailing window re-read at every ACK ("literal").
    pub reading: Reading,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cumulative_cap: Option<u32>,
}

impl Default for WestwoodReConfig {
    fn default() -> Self {
        WestwoodReConfig {
            interval: None,
            tau: Duration::from_secs_f64(1.0),
            reading: Reading::NonOverlapping,
            cumulative_cap: None,
        }
    }
}

impl WestwoodReConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if let Some(interval) = self.interval {
            validate_seconds("interval", interval.secs_f64())?;
        }
        validate_seconds("tau", self.tau.secs_f64())?;
        validate_cap(self.cumulative_cap)
    }

    pub fn estimator(&self) -> IntervalEstimator {
        IntervalEstimator::new(
            IntervalMode::Fixed {
                interval: self.interval.map(Duration::secs_f64),
                tau: self.tau.secs_f64(),
            },
            self.reading,
        )
    }

    pub fn build(&self) -> Westwood<IntervalEstimator> {
        let label = match self.reading {
            Reading::NonOverlapping => "westwood-re",
            Reading::Literal => "westwood-re(literal)",
        };
        Westwood::new(label, self.estimator(), self.cumulative_cap)
    }
}

/// RE and ABSE alike: the filtered interval rate, with T_k and τ_k for tracing.
impl EligibleRate for IntervalEstimator {
    fn on_ack(&mut self, ack: &AckInput) {
        IntervalEstimator::on_ack(self, ack);
    }
    fn eligible_rate(&mut self, _cwnd: f64, _rtt_min: f64) -> Option<f64> {
        self.filter.current()
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ere_pps", self.filter.estimate()));
        out.push(("interval_s", self.interval));
        out.push(("tau_s", self.tau));
    }
}

impl super::Algorithm for WestwoodReConfig {
    type Controller = Westwood<IntervalEstimator>;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        WestwoodReConfig::validate(self)
    }
    fn build(&self) -> Westwood<IntervalEstimator> {
        WestwoodReConfig::build(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::ack_with_rtt;
    use crate::cc::{CongestionControl, Window};

    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut WestwoodReConfig, f64);
        let cases: [(&str, Set, &[f64], &[f64]); 3] = [
            (
                "interval",
                |c, v| c.interval = Some(Duration::from_secs_f64(v)),
                &[1e-6, 1000.0],
                &[0.0, 1000.001],
            ),
            (
                "tau",
                |c, v| c.tau = Duration::from_secs_f64(v),
                &[1e-6, 1000.0],
                &[0.0, 5000.0],
            ),
            (
                "cumulative_cap",
                |c, v| c.cumulative_cap = Some(v as u32),
                &[1.0, 1e6],
                &[0.0, 2e6],
            ),
        ];
        crate::schema::assert_field_bounds(WestwoodReConfig::validate, &cases);
    }

    /// Bursts of 5 segments every 100 ms (5 ACKs 1 ms apart): 50 segments/s on average.
    /// RE over T = SRTT = 100 ms sees 5 segments per interval → 50/s. BE's pair samples
    /// are 1000/s inside a burst, but Eq. 1 weighs each by its Δt (1 − α_k ≈ Δt_k/τ), so
    /// plain BE also converges near the average; with the Tustin input (s_k + s_{k−1})/2
    /// the burst's 1000/s enters again weighted by the 96-ms gap, and BE overestimates —
    /// the §3.1.1 effect of clustered ACKs.
    #[test]
    fn re_measures_the_average_rate_of_a_bursty_stream() {
        let mut re = WestwoodReConfig::default().build();
        let mut be = crate::cc::westwood_be::WestwoodBeConfig::default().build();
        let tustin_config = crate::cc::westwood_be::WestwoodBeConfig {
            tustin: true,
            ..Default::default()
        };
        let mut tustin = tustin_config.build();
        let w = Window {
            cwnd: 5.0,
            ssthresh: 100.0,
        };
        for burst in 0..100u64 {
            for k in 0..5u64 {
                let mut ack = ack_with_rtt(100 * burst + k, 100);
                ack.srtt = Some(100e6);
                re.on_ack_event(&w, &ack);
                be.on_ack_event(&w, &ack);
                tustin.on_ack_event(&w, &ack);
            }
        }
        let rates = [
            re.estimator.filter.estimate(),
            be.estimator.filter.estimate(),
            tustin.estimator.filter.estimate(),
        ];
        assert!((rates[0] - 50.0).abs() < 1.0, "RE {rates:?}");
        assert!((rates[1] - 50.0).abs() < 10.0, "BE {rates:?}");
        assert!(rates[2] > 2.0 * rates[0], "BE Tustin {rates:?}");
        assert_eq!(re.estimator.interval, 0.1);
    }
}
