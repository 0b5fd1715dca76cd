//! Loss processes attachable to any link direction, each with its own seeded stream.
//!
//! * Bernoulli: each packet lost independently (ns-2 ErrorModel, unit pkt).
//! * Gilbert–Elliott: a two-state (good/bad) Markov chain stepped once per packet,
//!   with its own loss probability in each state — bursty wireless errors.
//! * Handoff: every `period` the link goes down for an exponentially distributed time
//!   (mean `mean_outage`, at most `period`) and loses every packet it would send
//!   (Zhang & Tsaoussidis 2002, §5.1: "every 5 seconds … interrupted by a handoff …
//!   exponentially distributed, with a mean of 1 second").
//! * Periodic: every `every`-th packet is lost, deterministically (the "steady-state
//!   environment with a periodic packet drop rate" of the SlowCC study, §4.3, in which
//!   TFRC's rate should sit at the equation's and TCP(b)'s smoothness be 1 − b).
use crate::schema::{deserialize_tagged, parse_params, unknown_variant, Probability};
use crate::sim::rng::RngStream;
use crate::sim::{Duration, Time};
use rand::Rng;
use serde::{Deserialize, Deserializer, Serialize};

/// Scenario form: `loss = { model = "bernoulli", rate = 0.01 }` and the others.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum LossSpec {
    /// No loss model (`loss = "none"`), e.g. to take an inherited one off a direction.
    None,
    Bernoulli(BernoulliLoss),
    GilbertElliott(GilbertElliottLoss),
    Handoff(HandoffLoss),
    Periodic(PeriodicLoss),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeriodicLoss {
    /// One packet in `every` is lost: the `every`-th, 2·`every`-th, …
    pub every: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BernoulliLoss {
    /// Packet error rate.
    pub rate: Probability,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottLoss {
    /// Per-packet probability of moving from the good to the bad state.
    pub good_to_bad: Probability,
    /// Per-packet probability of moving from the bad back to the good state.
    pub bad_to_good: Probability,
    /// Loss probability in the good state (default 0).
    #[serde(default = "never")]
    pub loss_in_good: Probability,
    /// Loss probability in the bad state (default 1).
    #[serde(default = "always")]
    pub loss_in_bad: Probability,
}

fn never() -> Probability {
    Probability(0.0)
}
fn always() -> Probability {
    Probability(1.0)
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandoffLoss {
    /// Time between the starts of successive outages (default 5 s); the first starts
    /// one period into the run.
    #[serde(default = "five_seconds")]
    pub period: Duration,
    /// Mean of the exponentially distributed outage length (default 1 s).
    #[serde(default = "one_second")]
    pub mean_outage: Duration,
}

fn five_seconds() -> Duration {
    Duration::from_millis(5000)
}
fn one_second() -> Duration {
    Duration::from_millis(1000)
}

pub const LOSS_MODELS: &[&str] = &["none", "bernoulli", "gilbert_elliott", "handoff", "periodic"];

impl LossSpec {
    pub fn is_none(&self) -> bool {
        matches!(self, LossSpec::None)
    }
}

impl<'de> Deserialize<'de> for LossSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_tagged(d, "model", "a table such as { model = \"bernoulli\", rate = 0.01 }", |model, params| {
            match model {
                "none" => crate::schema::no_params(params, "none").map(|()| LossSpec::None),
                "bernoulli" => parse_params(params).map(LossSpec::Bernoulli),
                "gilbert_elliott" => parse_params(params).map(LossSpec::GilbertElliott),
                "handoff" => {
                    let spec: HandoffLoss = parse_params(params)?;
                    // Each packet steps the model through the outages since the last
                    // one: periods this short would make that millions of steps.
                    if spec.period < Duration::from_millis(1) {
                        return Err(crate::schema::nested_error("period", &format!("{} is below 1ms", spec.period)));
                    }
                    Ok(LossSpec::Handoff(spec))
                }
                "periodic" => {
                    let spec: PeriodicLoss = parse_params(params)?;
                    if spec.every < 2 {
                        return Err(crate::schema::nested_error("every", &format!("{} is below 2 (every packet lost)", spec.every)));
                    }
                    Ok(LossSpec::Periodic(spec))
                }
                other => Err(unknown_variant("model", other, LOSS_MODELS)),
            }
        })
    }
}

pub enum LossModel {
    Bernoulli { rate: f64, rng: RngStream },
    GilbertElliott { spec: GilbertElliottLoss, bad: bool, rng: RngStream },
    Handoff { period: Time, mean_outage: f64, outage: (Time, Time), rng: RngStream },
    Periodic { every: u64, count: u64 },
}

impl LossModel {
    /// The model `spec` describes (None for `"none"`).
    pub fn new(spec: &LossSpec, rng: RngStream) -> Option<LossModel> {
        Some(match *spec {
            LossSpec::None => return None,
            LossSpec::Bernoulli(b) => LossModel::Bernoulli { rate: b.rate.0, rng },
            LossSpec::GilbertElliott(spec) => LossModel::GilbertElliott { spec, bad: false, rng },
            LossSpec::Periodic(p) => LossModel::Periodic { every: p.every, count: 0 },
            LossSpec::Handoff(h) => {
                let mut model = LossModel::Handoff {
                    period: h.period.ns(),
                    mean_outage: h.mean_outage.ns() as f64,
                    outage: (0, 0),
                    rng,
                };
                model.next_outage(h.period.ns());
                model
            }
        })
    }

    /// Draw the outage starting at `start` (handoff only).
    fn next_outage(&mut self, start: Time) {
        if let LossModel::Handoff { period, mean_outage, outage, rng } = self {
            // Exponential by inversion; 1 − u lies in (0, 1].
            let length = (-*mean_outage * (1.0 - rng.gen::<f64>()).ln()).min(*period as f64) as Time;
            *outage = (start, start + length);
        }
    }

    /// The latest outage starting at or before `at`, drawing new ones as time passes.
    fn outage_at(&mut self, at: Time) -> (Time, Time) {
        loop {
            let LossModel::Handoff { period, outage, .. } = self else { return (0, 0) };
            let next = outage.0 + *period;
            if at < next {
                return *outage;
            }
            self.next_outage(next);
        }
    }

    /// The outages of a handoff model that start before `until`, as [start, end) in ns
    /// (empty for the other models): what it will do, drawn from its own stream.
    pub fn outages(mut self, until: Time) -> Vec<(Time, Time)> {
        let mut outages = Vec::new();
        let LossModel::Handoff { period, .. } = self else { return outages };
        let mut at = period;
        while at < until {
            let outage = self.outage_at(at);
            if outage.1 > outage.0 {
                outages.push(outage);
            }
            at = at.saturating_add(period);
        }
        outages
    }

    /// Decide the fate of one packet whose transmission would start at `at` (the
    /// handoff model needs the time; the others draw once per packet). Calls come in
    /// non-decreasing `at` for a given link.
    #[inline]
    pub fn drops(&mut self, at: Time) -> bool {
        match self {
            LossModel::Bernoulli { rate, rng } => *rate > 0.0 && rng.gen::<f64>() < *rate,
            LossModel::GilbertElliott { spec, bad, rng } => {
                let switch = if *bad { spec.bad_to_good.0 } else { spec.good_to_bad.0 };
                if rng.gen::<f64>() < switch {
                    *bad = !*bad;
                }
                let loss = if *bad { spec.loss_in_bad.0 } else { spec.loss_in_good.0 };
                loss > 0.0 && rng.gen::<f64>() < loss
            }
            LossModel::Handoff { .. } => {
                let (start, end) = self.outage_at(at);
                at >= start && at < end
            }
            LossModel::Periodic { every, count } => {
                *count += 1;
                *count % *every == 0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    fn model(text: &str) -> LossModel {
        let spec: LossSpec = serde_json::from_str(text).unwrap();
        LossModel::new(&spec, stream(9, 1)).unwrap()
    }

    /// A handoff period of 1 ms is the shortest taken (the message says "below 1ms").
    #[test]
    fn handoff_period_is_at_least_one_millisecond() {
        let read = |period: &str| {
            serde_json::from_str::<LossSpec>(&format!(r#"{{"model": "handoff", "period": "{period}"}}"#)).map_err(|e| e.to_string())
        };
        assert!(matches!(read("1ms"), Ok(LossSpec::Handoff(HandoffLoss { period, .. })) if period == Duration::from_millis(1)));
        let message = read("999us").expect_err("below 1 ms");
        assert!(message.contains("period") && message.contains("below 1ms"), "{message}");
    }

    #[test]
    fn periodic_loses_every_nth_packet() {
        let mut m = model(r#"{"model": "periodic", "every": 4}"#);
        let fates: Vec<bool> = (0..12).map(|_| m.drops(0)).collect();
        assert_eq!(fates, [false, false, false, true].repeat(3));
        let message = serde_json::from_str::<LossSpec>(r#"{"model": "periodic", "every": 1}"#).unwrap_err().to_string();
        assert!(message.contains("every") && message.contains("below 2"), "{message}");
    }

    #[test]
    fn bernoulli_rate() {
        let mut m = model(r#"{"model": "bernoulli", "rate": 0.05}"#);
        let lost = (0..200_000).filter(|_| m.drops(0)).count() as f64 / 200_000.0;
        assert!((lost - 0.05).abs() < 0.002, "{lost}");
    }

    #[test]
    fn gilbert_elliott_rate_and_bursts() {
        // Stationary P(bad) = g2b / (g2b + b2g) = 0.01 / 0.11; mean burst = 1 / b2g = 10.
        let mut m = model(r#"{"model": "gilbert_elliott", "good_to_bad": 0.01, "bad_to_good": 0.1}"#);
        let fates: Vec<bool> = (0..2_000_000).map(|_| m.drops(0)).collect();
        let rate = fates.iter().filter(|&&l| l).count() as f64 / fates.len() as f64;
        assert!((rate - 0.01 / 0.11).abs() < 0.005, "{rate}");
        let bursts = fates.windows(2).filter(|w| w[1] && !w[0]).count() as f64;
        let mean_burst = fates.iter().filter(|&&l| l).count() as f64 / bursts;
        assert!((mean_burst - 10.0).abs() < 0.5, "{mean_burst}");
    }

    /// `outages` lists exactly the windows in which `drops` loses packets.
    #[test]
    fn outages_are_the_windows_drops_loses_in() {
        let spec = r#"{"model": "handoff", "period": "5s", "mean_outage": "1s"}"#;
        let outages = model(spec).outages(60_000_000_000);
        assert_eq!(outages.len(), 11, "periods 1..=11 start before 60 s");
        let mut m = model(spec);
        for (k, &(start, end)) in outages.iter().enumerate() {
            assert_eq!(start, (k as u64 + 1) * 5_000_000_000);
            assert!(!m.drops(start - 1) && m.drops(start) && m.drops(end - 1) && !m.drops(end), "outage {k}");
        }
        assert!(model(r#"{"model": "bernoulli", "rate": 0.5}"#).outages(60_000_000_000).is_empty());
    }

    #[test]
    fn handoff_outages_every_period_with_exponential_length() {
        let mut m = model(r#"{"model": "handoff", "period": "5s", "mean_outage": "1s"}"#);
        let (step, per_period) = (1_000_000u64, 5000u64); // probe every 1 ms
        assert!((0..per_period).all(|k| !m.drops(k * step)), "no outage in the first period");
        let mut lengths = Vec::new();
        for period in 1..2000u64 {
            let fates: Vec<bool> = (0..per_period).map(|k| m.drops((period * per_period + k) * step)).collect();
            let lost = fates.iter().filter(|&&l| l).count();
            // one outage, at the start of the period
            assert!(fates[..lost].iter().all(|&l| l) && fates[lost..].iter().all(|&l| !l), "period {period}");
            lengths.push(lost as f64 / 1000.0);
        }
        let mean = lengths.iter().sum::<f64>() / lengths.len() as f64;
        // Exponential with mean 1 s capped at 5 s: mean = 1 − e^−5 ≈ 0.9933 s.
        assert!((mean - 0.9933).abs() < 0.05, "{mean}");
        let median = {
            lengths.sort_by(f64::total_cmp);
            lengths[lengths.len() / 2]
        };
        assert!((median - std::f64::consts::LN_2).abs() < 0.06, "{median}");
    }
}
