//! Applications: what a flow's source offers its transport.
//!
//! * Over TCP: `bulk` (always data, ns-2 FTP) or `cbr` (the application writes `rate`
//!   bits per second into the socket, ns-2 CBR over TCP): [`TcpApplication`].
//! * Over UDP: `cbr` (one packet every size/rate, optionally jittered as ns-2's CBR
//!   `random_`) or `onoff` (CBR at `rate` during on periods, silent during off periods;
//!   fixed, exponential or Pareto period lengths): [`PacketSchedule`].
pub mod arrivals;
pub use arrivals::{ArrivalSpec, FlowSize, SizeDistribution};

use crate::schema::{deserialize_tagged, duration_or_table, nested_error, parse_params, unknown_variant};
use crate::sim::rng::RngStream;
use crate::sim::{Duration, Rate, Time, NS_PER_SEC};
use rand::Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Scenario form: `app = "bulk"`, `{ kind = "bulk", size = "100KB" }` (a finite flow),
/// `{ kind = "cbr", rate = "1Mbps" }` or
/// `{ kind = "onoff", rate = "6Mbps", on = "1s", off = { exponential = "1s" } }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AppSpec {
    /// Always has data (ns-2 FTP), or with `size` that many bytes (rounded up to whole
    /// packets) and then nothing: the flow completes when the sink has them all. TCP only.
    Bulk {
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<FlowSize>,
    },
    /// Constant bit rate. Over TCP it writes into the socket and the sender is limited by
    /// what has been written; over UDP it sends one packet every size × 8 / rate.
    Cbr {
        rate: Rate,
        /// UDP only: each gap is interval × (1 + U(−jitter, +jitter)); ns-2's CBR
        /// `random_ 1` is jitter = 0.5. Default 0 (exact spacing).
        #[serde(default, skip_serializing_if = "is_zero")]
        jitter: f64,
    },
    /// UDP only: CBR at `rate` while on; on and off periods alternate, starting with on.
    Onoff { rate: Rate, on: Period, off: Period },
}

impl Default for AppSpec {
    fn default() -> AppSpec {
        AppSpec::Bulk { size: None }
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

pub const APP_KINDS: &[&str] = &["bulk", "cbr", "onoff"];

impl<'de> Deserialize<'de> for AppSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Bulk {
            size: Option<FlowSize>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Cbr {
            rate: Rate,
            #[serde(default)]
            jitter: f64,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct OnOff {
            rate: Rate,
            on: Period,
            off: Period,
        }
        deserialize_tagged(
            d,
            "kind",
            "\"bulk\", { kind = \"bulk\", size = \"100KB\" }, { kind = \"cbr\", rate = \"1Mbps\" } or { kind = \"onoff\", rate = \"1Mbps\", on = \"1s\", off = \"1s\" }",
            |kind, params| match kind {
                "bulk" => parse_params::<Bulk>(params).map(|b| AppSpec::Bulk { size: b.size }),
                "cbr" => {
                    let c: Cbr = parse_params(params)?;
                    if !(c.jitter.is_finite() && (0.0..=1.0).contains(&c.jitter)) {
                        return Err(nested_error("jitter", &format!("{} is outside [0, 1]", crate::schema::Num(c.jitter))));
                    }
                    Ok(AppSpec::Cbr { rate: c.rate, jitter: c.jitter })
                }
                "onoff" => {
                    let o: OnOff = parse_params(params)?;
                    // Periods shorter than this would make the schedule spin.
                    if o.on.mean() < 1e3 {
                        return Err(nested_error("on", "must be at least 1us"));
                    }
                    Ok(AppSpec::Onoff { rate: o.rate, on: o.on, off: o.off })
                }
                other => Err(unknown_variant("kind", other, APP_KINDS)),
            },
        )
    }
}

impl AppSpec {
    /// The sending rate of a CBR or on/off source.
    pub fn rate(&self) -> Option<Rate> {
        match *self {
            AppSpec::Bulk { .. } => None,
            AppSpec::Cbr { rate, .. } | AppSpec::Onoff { rate, .. } => Some(rate),
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            AppSpec::Bulk { .. } => "bulk",
            AppSpec::Cbr { .. } => "cbr",
            AppSpec::Onoff { .. } => "onoff",
        }
    }
}

/// The length of an on or off period: fixed (`"1s"`), `{ exponential = "1s" }` (the
/// mean), or `{ pareto = "1s", shape = 1.5 }` (the mean; shape > 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period {
    Fixed(Duration),
    Exponential(Duration),
    Pareto { mean: Duration, shape: f64 },
}

impl Period {
    fn mean(&self) -> f64 {
        match *self {
            Period::Fixed(d) | Period::Exponential(d) | Period::Pareto { mean: d, .. } => d.ns() as f64,
        }
    }

    /// One period length in ns.
    fn draw(&self, rng: &mut RngStream) -> Time {
        // 1 − u lies in (0, 1]: no log of zero, no division by zero.
        let u = 1.0 - rng.gen::<f64>();
        let length = match *self {
            Period::Fixed(d) => return d.ns(),
            Period::Exponential(mean) => -(mean.ns() as f64) * u.ln(),
            Period::Pareto { mean, shape } => pareto_by_inversion(mean.ns() as f64, shape, u),
        };
        // Cap absurd draws at 10^6 s so time arithmetic cannot overflow.
        length.min(1e15).round() as Time
    }
}

impl Serialize for Period {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Period::Fixed(d) => d.serialize(s),
            Period::Exponential(d) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("exponential", d)?;
                map.end()
            }
            Period::Pareto { mean, shape } => {
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("pareto", mean)?;
                map.serialize_entry("shape", shape)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Period {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            exponential: Option<Duration>,
            pareto: Option<Duration>,
            shape: Option<f64>,
        }
        duration_or_table(
            d,
            "a duration such as \"1s\", { exponential = \"1s\" } or { pareto = \"1s\", shape = 1.5 }",
            Period::Fixed,
            |t: Table| match (t.exponential, t.pareto, t.shape) {
                (Some(mean), None, None) => Ok(Period::Exponential(mean)),
                (None, Some(mean), shape) => {
                    let shape = shape.unwrap_or(1.5);
                    if !(shape.is_finite() && shape > 1.0) {
                        return Err(format!("shape {shape} is not > 1 (the mean must be finite)"));
                    }
                    Ok(Period::Pareto { mean, shape })
                }
                (Some(_), Some(_), _) => Err("give either exponential or pareto, not both".into()),
                (Some(_), None, Some(_)) => Err("shape applies to pareto periods only".into()),
                (None, None, _) => Err("give { exponential = \"1s\" } or { pareto = \"1s\", shape = 1.5 }".into()),
            },
        )
    }
}

/// A Pareto draw of mean `mean` and shape `shape` (> 1) from `u` in (0, 1], by
/// inversion with scale x_m = mean (shape − 1) / shape (on/off periods, flow sizes).
pub(crate) fn pareto_by_inversion(mean: f64, shape: f64, u: f64) -> f64 {
    mean * (shape - 1.0) / shape / u.powf(1.0 / shape)
}

/// What the application above a TCP sender offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TcpApplication {
    /// Always data to send.
    Bulk,
    /// A constant-bit-rate writer: one segment every `ns_per_segment` from the start.
    Cbr { ns_per_segment: f64 },
}

/// When a UDP source sends its packets: a sequence of send times, drawn lazily.
pub struct PacketSchedule {
    /// Gap between packets while sending, in ns (not rounded, so rates stay exact).
    interval: f64,
    jitter: f64,
    on: Option<(Period, Period)>,
    rng: RngStream,
    /// Packets sent since `origin`: packet k goes at origin + ⌈k · interval⌉ when exact.
    origin: Time,
    index: u64,
    /// The end of the current on period (on/off only).
    on_until: Time,
}

impl PacketSchedule {
    /// The schedule of a CBR or on/off source sending `packet_bytes` on the wire at
    /// `spec`'s rate, starting at `start`. None for `bulk` (not a UDP application).
    pub fn new(spec: &AppSpec, packet_bytes: u32, start: Time, mut rng: RngStream) -> Option<PacketSchedule> {
        let rate = spec.rate()?;
        let interval = packet_bytes as f64 * 8.0 * NS_PER_SEC as f64 / rate.bps() as f64;
        let (jitter, on) = match *spec {
            AppSpec::Cbr { jitter, .. } => (jitter, None),
            AppSpec::Onoff { on, off, .. } => (0.0, Some((on, off))),
            AppSpec::Bulk { .. } => return None,
        };
        let on_until = on.map_or(Time::MAX, |(on, _)| start.saturating_add(on.draw(&mut rng).max(1)));
        Some(PacketSchedule { interval, jitter, on, rng, origin: start, index: 0, on_until })
    }

    /// The first send time.
    pub fn first(&self) -> Time {
        self.origin
    }

    /// The send time after the packet sent at `sent` (skipping off periods).
    pub fn next(&mut self, sent: Time) -> Time {
        let mut at = if self.jitter > 0.0 {
            let factor = 1.0 + self.jitter * (2.0 * self.rng.gen::<f64>() - 1.0);
            sent.saturating_add((self.interval * factor).round().max(1.0) as Time)
        } else {
            self.index += 1;
            self.origin.saturating_add((self.index as f64 * self.interval).ceil() as Time)
        };
        if let Some((on, off)) = self.on {
            // Past the end of the on period: the next one starts after an off period. On
            // periods last at least 1 ns, so each turn of the loop moves time forward.
            while at >= self.on_until && at < Time::MAX {
                let next_on = self.on_until.saturating_add(off.draw(&mut self.rng));
                self.on_until = next_on.saturating_add(on.draw(&mut self.rng).max(1));
                self.origin = next_on;
                self.index = 0;
                at = next_on;
            }
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    fn spec(text: &str) -> AppSpec {
        crate::schema::deserialize_with_path(serde_json::from_str::<serde_json::Value>(text).unwrap()).unwrap()
    }

    fn send_times(spec: &AppSpec, bytes: u32, until: Time) -> Vec<Time> {
        let mut schedule = PacketSchedule::new(spec, bytes, 0, stream(1, 1)).unwrap();
        let mut times = Vec::new();
        let mut t = schedule.first();
        while t < until {
            times.push(t);
            t = schedule.next(t);
        }
        times
    }

    #[test]
    fn cbr_spacing_is_exact_over_long_runs() {
        // 1000 bytes at 6 Mb/s: 1.3333 ms apart; 750 packets per second exactly.
        let times = send_times(&spec(r#"{"kind": "cbr", "rate": "6Mbps"}"#), 1000, 10 * NS_PER_SEC);
        assert_eq!(times.len(), 7500);
        assert_eq!(times[3], 4_000_000);
        assert_eq!(times[750], NS_PER_SEC);
    }

    #[test]
    fn onoff_fixed_periods_alternate() {
        let times = send_times(&spec(r#"{"kind": "onoff", "rate": "6Mbps", "on": "1s", "off": "1s"}"#), 1000, 4 * NS_PER_SEC);
        // on [0, 1 s) and [2 s, 3 s): 750 packets each; none in the off periods
        assert_eq!(times.len(), 1500);
        assert!(times.iter().all(|&t| t < NS_PER_SEC || (2 * NS_PER_SEC..3 * NS_PER_SEC).contains(&t)));
        assert_eq!(times[750], 2 * NS_PER_SEC);
    }

    #[test]
    fn onoff_exponential_periods_have_their_means() {
        let spec = spec(r#"{"kind": "onoff", "rate": "8Mbps", "on": {"exponential": "0.5s"}, "off": {"exponential": "1.5s"}}"#);
        // 1000 bytes at 8 Mb/s = 1 ms apart; long-run share of time on = 0.5 / 2.
        let horizon = 4000 * NS_PER_SEC;
        let sent = send_times(&spec, 1000, horizon).len() as f64;
        let on_fraction = sent * 1e6 / horizon as f64;
        assert!((on_fraction - 0.25).abs() < 0.01, "{on_fraction}");
    }

    #[test]
    fn pareto_period_mean() {
        let period = Period::Pareto { mean: Duration::from_millis(1000), shape: 2.5 };
        let mut rng = stream(3, 3);
        let n = 200_000;
        let mean = (0..n).map(|_| period.draw(&mut rng) as f64).sum::<f64>() / n as f64 / 1e9;
        assert!((mean - 1.0).abs() < 0.03, "{mean}");
    }

    #[test]
    fn jitter_keeps_the_mean_rate() {
        let times = send_times(&spec(r#"{"kind": "cbr", "rate": "8Mbps", "jitter": 0.5}"#), 1000, 100 * NS_PER_SEC);
        assert!((times.len() as f64 - 100_000.0).abs() < 500.0, "{}", times.len());
        let gaps: Vec<Time> = times.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|&g| (500_000..=1_500_000).contains(&g)));
        assert!(gaps.iter().any(|&g| g < 600_000) && gaps.iter().any(|&g| g > 1_400_000));
    }

    #[test]
    fn bad_applications_name_the_field() {
        let err = |text: &str| {
            crate::schema::deserialize_with_path::<AppSpec, _>(serde_json::from_str::<serde_json::Value>(text).unwrap())
                .unwrap_err()
        };
        assert_eq!(err(r#"{"kind": "cbr", "rate": "1Mbps", "jitter": 2}"#), "jitter: 2 is outside [0, 1]");
        assert!(err(r#"{"kind": "onoff", "rate": "1Mbps", "on": "0s", "off": "1s"}"#).starts_with("on: must be at least 1us"));
        assert!(err(r#"{"kind": "onoff", "rate": "1Mbps", "on": {"pareto": "1s", "shape": 0.5}, "off": "1s"}"#)
            .contains("shape 0.5 is not > 1"));
        assert!(err(r#"{"kind": "poisson", "rate": "1Mbps"}"#).contains("unknown kind \"poisson\""));
    }
}
