//! Scheduled changes of a link's rate: `rate_schedule = { kind = "square", low = "5Mbps",
//! period = "1s" }` alternates the link between its `rate` and `low`, each for `period`
//! (from `start`, default 0, beginning with `rate`): the square-wave bandwidth of the
//! SlowCC study (Bansal et al. 2001, §4.2.4) made by the link itself rather than by
//! on/off cross traffic. A packet is sent at the rate in force when its transmission
//! starts.
use crate::schema::{deserialize_tagged, parse_params, unknown_variant};
use crate::sim::{Duration, Rate, Time};
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RateSchedule {
    Square(SquareWave),
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

pub const SCHEDULE_KINDS: &[&str] = &["square"];

impl<'de> Deserialize<'de> for RateSchedule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_tagged(d, "kind", "{ kind = \"square\", low = \"5Mbps\", period = \"1s\" }", |kind, params| match kind {
            "square" => {
                let wave: SquareWave = parse_params(params)?;
                if wave.period < Duration::from_millis(1) {
                    return Err(crate::schema::nested_error("period", &format!("{} is below 1ms", wave.period)));
                }
                Ok(RateSchedule::Square(wave))
            }
            other => Err(unknown_variant("kind", other, SCHEDULE_KINDS)),
        })
    }
}

impl RateSchedule {
    /// The rate in force at `t` for a link whose nominal rate is `high`.
    #[inline]
    pub fn rate_at(&self, high: Rate, t: Time) -> Rate {
        match *self {
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
        }
    }

    /// Bits the link can carry over [0, horizon) (for its utilisation).
    pub fn capacity_bits(&self, high: Rate, horizon: Time) -> f64 {
        match *self {
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
        }
    }

    pub fn validate(&self, high: Rate) -> Result<(), String> {
        let RateSchedule::Square(w) = self;
        if w.low.bps() == 0 || w.low.bps() > high.bps() {
            return Err(format!("low {} must be above 0 and at most the link's rate {high}", w.low));
        }
        Ok(())
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
        assert!(square().validate(Rate(1_000_000)).unwrap_err().contains("at most the link's rate"));
    }
}
