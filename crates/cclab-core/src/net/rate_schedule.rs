//! Scheduled changes of a link's rate: `rate_schedule = { kind = "square", low = "5Mbps",
//! period = "1s" }` alternates the link between its `rate` and `low`, each for `period`
//! (from `start`, default 0, beginning with `rate`): the square-wave bandwidth of the
//! SlowCC study (Bansal et al. 2001, §4.2.4) made by the link itself rather than by
//! on/off cross traffic. A packet is sent at the rate in force when its transmission
//! starts.
//!
//! `rate_schedule = { kind = "mahimahi", file = "..." }` makes the link follow a recorded
//! trace of delivery opportunities instead, as Mahimahi's mm-link does
//! ([`super::delivery_trace`]); `{ kind = "trace", file = "..." }` a per-second rate log,
//! delivered as the opportunities that carry it.
use super::delivery_trace::DeliveryTrace;
use crate::schema::{deserialize_tagged, nested_error, parse_params, unknown_variant};
use crate::sim::{Duration, Rate, Time};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub enum RateSchedule {
    Square(SquareWave),
    /// Delivery opportunities of a recorded trace ([`super::delivery_trace`]).
    Trace(TraceSchedule),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SquareWave {
    /// The rate of the low half-periods (the link's `rate` is the high one).
    pub low: Rate,
    /// How long each of `rate` and `low` lasts.
    pub period: Duration,
    /// When the alternation begins, with `rate` (default 0).
    #[serde(default)]
    pub start: Duration,
}

/// `{ kind = "mahimahi", file = "..." }` (a Mahimahi packet-delivery trace: a millisecond
/// per line, one delivery opportunity each) or `{ kind = "trace", file = "..." }` (a
/// two-column `time_s, rate_mbps` log, delivered as the opportunities that carry it).
/// The front end reads the file (relative to the scenario's folder) and gives the core
/// its opportunities; the scenario keeps the file's path and its SHA-256, so a changed
/// file makes a different scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSchedule {
    /// "mahimahi" or "trace": how the file reads.
    pub kind: &'static str,
    /// The file, as the front end resolved it.
    pub file: Option<String>,
    /// Its contents' SHA-256 (hex).
    pub sha256: Option<String>,
    /// Its delivery opportunities.
    pub trace: Arc<DeliveryTrace>,
    /// `lag = { file = "..." }`: the emulator's release lag (each millisecond's packets
    /// leave late, by a draw per tick from samples measured where the trace is replayed).
    pub lag: Option<ReleaseLag>,
}

/// Lag samples (one per line, µs, as measured on the machine that replays traces: how
/// late Mahimahi's packets left after their tick); the front end reads the file.
#[derive(Clone, Debug, PartialEq)]
pub struct ReleaseLag {
    pub file: Option<String>,
    pub sha256: Option<String>,
    /// The samples, ns.
    pub samples: Arc<Vec<u64>>,
}

/// The largest lag sample taken, µs (10 s).
pub const MAX_LAG_US: u64 = 10_000_000;
/// The most lag samples taken.
pub const MAX_LAG_SAMPLES: usize = 10_000_000;

pub const SCHEDULE_KINDS: &[&str] = &["square", "mahimahi", "trace"];

impl<'de> Deserialize<'de> for RateSchedule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct TraceFields {
            #[serde(default)]
            file: Option<String>,
            #[serde(default)]
            sha256: Option<String>,
            #[serde(default)]
            opportunities: Option<Vec<(u64, u32)>>,
            #[serde(default)]
            lag: Option<LagFields>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct LagFields {
            #[serde(default)]
            file: Option<String>,
            #[serde(default)]
            sha256: Option<String>,
            #[serde(default)]
            samples_us: Option<Vec<u64>>,
        }
        deserialize_tagged(
            d,
            "kind",
            "{ kind = \"square\", low = \"5Mbps\", period = \"1s\" } or { kind = \"mahimahi\", file = \"cellular.up\" }",
            |kind, params| match kind {
                "square" => {
                    let wave: SquareWave = parse_params(params)?;
                    if wave.period < Duration::from_millis(1) {
                        return Err(nested_error("period", &format!("{} is below 1ms", wave.period)));
                    }
                    Ok(RateSchedule::Square(wave))
                }
                "mahimahi" | "trace" => {
                    let fields: TraceFields = parse_params(params)?;
                    let Some(runs) = fields.opportunities else {
                        let field = if fields.file.is_some() { "file" } else { "opportunities" };
                        return Err(nested_error(
                            field,
                            "the core takes a trace as opportunities = [[millisecond, count], ...]; its file is read by \
                             the front end (cclab run, cclab.run), which fills them in",
                        ));
                    };
                    let trace = DeliveryTrace::new(&runs).map_err(|message| match message.split_once("]: ") {
                        // "[k]: ..." is about entry k
                        Some((index, rest)) if message.starts_with('[') => nested_error(&format!("opportunities{index}]"), rest),
                        _ => nested_error("opportunities", &message),
                    })?;
                    let kind = if kind == "mahimahi" { "mahimahi" } else { "trace" };
                    let lag = match fields.lag {
                        None => None,
                        Some(lag) => {
                            let Some(samples) = lag.samples_us else {
                                return Err(nested_error(
                                    "lag.samples_us",
                                    "the core takes lag samples as samples_us = [µs, ...]; a lag file is read by the front end \
                                     (cclab run, cclab.run), which fills them in",
                                ));
                            };
                            if samples.is_empty() || samples.len() > MAX_LAG_SAMPLES {
                                return Err(nested_error("lag.samples_us", &format!("{} samples: give 1 to {MAX_LAG_SAMPLES}", samples.len())));
                            }
                            if let Some((k, big)) = samples.iter().enumerate().find(|(_, &us)| us > MAX_LAG_US) {
                                return Err(nested_error(&format!("lag.samples_us[{k}]"), &format!("{big} µs is above {MAX_LAG_US} µs (10 s)")));
                            }
                            let samples = Arc::new(samples.iter().map(|us| us * 1000).collect());
                            Some(ReleaseLag { file: lag.file, sha256: lag.sha256, samples })
                        }
                    };
                    Ok(RateSchedule::Trace(TraceSchedule { kind, file: fields.file, sha256: fields.sha256, trace: Arc::new(trace), lag }))
                }
                other => Err(unknown_variant("kind", other, SCHEDULE_KINDS)),
            },
        )
    }
}

impl Serialize for RateSchedule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        match self {
            RateSchedule::Square(wave) => {
                map.serialize_entry("kind", "square")?;
                map.serialize_entry("low", &wave.low)?;
                map.serialize_entry("period", &wave.period)?;
                map.serialize_entry("start", &wave.start)?;
            }
            // A trace from a file is named by the file (and its hash), not repeated.
            RateSchedule::Trace(t) => {
                map.serialize_entry("kind", t.kind)?;
                if let Some(file) = &t.file {
                    map.serialize_entry("file", file)?;
                }
                if let Some(sha256) = &t.sha256 {
                    map.serialize_entry("sha256", sha256)?;
                }
                if t.file.is_none() {
                    map.serialize_entry("opportunities", t.trace.runs())?;
                }
                if let Some(lag) = &t.lag {
                    #[derive(Serialize)]
                    struct Shown<'a> {
                        #[serde(skip_serializing_if = "Option::is_none")]
                        file: &'a Option<String>,
                        #[serde(skip_serializing_if = "Option::is_none")]
                        sha256: &'a Option<String>,
                        #[serde(skip_serializing_if = "Option::is_none")]
                        samples_us: Option<Vec<u64>>,
                    }
                    let samples_us = lag.file.is_none().then(|| lag.samples.iter().map(|ns| ns / 1000).collect());
                    map.serialize_entry("lag", &Shown { file: &lag.file, sha256: &lag.sha256, samples_us })?;
                }
            }
        }
        map.end()
    }
}

impl RateSchedule {
    /// The rate in force at `t` for a link whose nominal rate is `high` (a trace link's
    /// packets are served by its opportunities instead: its nominal rate, the trace's
    /// mean, stands).
    #[inline]
    pub fn rate_at(&self, high: Rate, t: Time) -> Rate {
        match self {
            RateSchedule::Square(w) => {
                if t < w.start.ns() {
                    return high;
                }
                let phase = (t - w.start.ns()) / w.period.ns();
                if phase % 2 == 0 {
                    high
                } else {
                    w.low
                }
            }
            RateSchedule::Trace(_) => high,
        }
    }

    /// Bits the link can carry over [0, horizon) (for its utilisation).
    pub fn capacity_bits(&self, high: Rate, horizon: Time) -> f64 {
        match self {
            RateSchedule::Square(w) => {
                let (start, period) = (w.start.ns().min(horizon), w.period.ns());
                let mut bits = high.bps() as f64 * start as f64 / 1e9;
                let span = horizon - start;
                let (whole, rest) = (span / (2 * period), span % (2 * period));
                let high_ns = whole * period + rest.min(period);
                let low_ns = whole * period + rest.saturating_sub(period);
                bits += (high.bps() as f64 * high_ns as f64 + w.low.bps() as f64 * low_ns as f64) / 1e9;
                bits
            }
            RateSchedule::Trace(t) => t.trace.capacity_bits(horizon),
        }
    }

    /// The delivery trace, if the schedule is one.
    pub fn delivery_trace(&self) -> Option<&Arc<DeliveryTrace>> {
        match self {
            RateSchedule::Trace(t) => Some(&t.trace),
            RateSchedule::Square(_) => None,
        }
    }

    /// The trace's release lag, if it has one.
    pub fn release_lag(&self) -> Option<&ReleaseLag> {
        match self {
            RateSchedule::Trace(t) => t.lag.as_ref(),
            RateSchedule::Square(_) => None,
        }
    }

    /// The link's nominal rate when the scenario gives none: a trace's mean.
    pub fn mean_rate(&self) -> Option<Rate> {
        self.delivery_trace().map(|trace| Rate(trace.mean_rate_bps().round().max(1.0) as u64))
    }

    pub fn validate(&self, high: Rate) -> Result<(), String> {
        match self {
            RateSchedule::Square(w) if w.low.bps() == 0 || w.low.bps() > high.bps() => {
                Err(format!("low {} must be above 0 and at most the link's rate {high}", w.low))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> RateSchedule {
        serde_json::from_str(r#"{"kind": "square", "low": "5Mbps", "period": "1s", "start": "2s"}"#).unwrap()
    }

    #[test]
    fn square_wave_alternates_after_its_start() {
        let (s, high) = (square(), Rate(15_000_000));
        let at = |seconds: f64| s.rate_at(high, (seconds * 1e9) as Time).bps();
        assert_eq!([at(0.5), at(2.5), at(3.0), at(3.999), at(4.0), at(5.5)], [15e6 as u64, 15e6 as u64, 5e6 as u64, 5e6 as u64, 15e6 as u64, 5e6 as u64]);
        // 0–2 s high, then 2–3 high, 3–4 low, 4–5 high, 5–5.5 low: 4 s high, 1.5 s low.
        assert_eq!(s.capacity_bits(high, 5_500_000_000), 15e6 * 4.0 + 5e6 * 1.5);
    }

    #[test]
    fn bad_schedules_name_the_field() {
        let err = |text: &str| serde_json::from_str::<RateSchedule>(text).unwrap_err().to_string();
        assert!(err(r#"{"kind": "square", "low": "5Mbps", "period": "10us"}"#).contains("period"));
        assert!(err(r#"{"kind": "sine", "low": "5Mbps", "period": "1s"}"#).contains("unknown kind \"sine\""));
        let missing = err(r#"{"kind": "mahimahi", "file": "x.up"}"#);
        assert!(missing.contains("file") && missing.contains("the core takes a trace as opportunities"), "{missing}");
        let order = err(r#"{"kind": "mahimahi", "opportunities": [[3, 1], [2, 1]]}"#);
        assert!(order.contains("opportunities[1]") && order.contains("2 ms comes after 3 ms"), "{order}");
        let zero = err(r#"{"kind": "mahimahi", "opportunities": [[0, 1]]}"#);
        assert!(zero.contains("opportunities") && zero.contains("lasts 0 ms"), "{zero}");
        assert!(square().validate(Rate(1_000_000)).unwrap_err().contains("at most the link's rate"));
    }
}
