//! Short flows: a finite flow's size, flow-size distributions, and Poisson arrivals of
//! flows (`arrivals = { kind = "poisson", load = 0.5, sizes = ... }` on a TCP group).
//!
//! Load is offered payload over capacity: flows arrive at λ = load · C / (8 · E[size])
//! per second, where C is the rate of the slowest link direction on the group's data
//! route (on a dumbbell, the bottleneck) and E[size] the mean of `sizes` in bytes — the
//! definition of the web-search and data-mining workloads' load in pFabric (Alizadeh et
//! al., SIGCOMM 2013) and the DCTCP/VL2 traffic models it samples.
use crate::schema::{deserialize_tagged, nested_error, parse_params, unknown_variant};
use crate::sim::rng::RngStream;
use rand::Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A size in bytes written with its unit: "100KB", "1.5MB", "64KiB", "1460B".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FlowSize(pub u64);

/// The largest flow cclab takes: 1 TB (2^32 segments of 1000 bytes would overflow the
/// sender's sequence space well before).
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000;

impl FlowSize {
    /// A size with its unit, read as every byte size of a scenario is
    /// ([`crate::sim::units::parse_bytes`]), from 1 B to [`MAX_FLOW_BYTES`].
    pub fn parse(text: &str) -> Result<FlowSize, String> {
        let bytes = crate::sim::units::parse_bytes(text)?;
        if !(1..=MAX_FLOW_BYTES).contains(&bytes) {
            return Err(format!("{} is outside 1B to 1TB", crate::schema::quoted(text)));
        }
        Ok(FlowSize(bytes))
    }
}

impl fmt::Display for FlowSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

impl Serialize for FlowSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FlowSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(text) => FlowSize::parse(&text).map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(format!(
                "{other} has no unit; a size is text such as \"100KB\" or \"1460B\""
            ))),
        }
    }
}

/// How big arriving flows are: `{ kind = "fixed", size = "100KB" }`, `{ kind = "pareto",
/// mean = "100KB", shape = 1.2 }` or `{ kind = "cdf", points = [["6KB", 0.15], ...] }`
/// (an empirical CDF: sizes with cumulative probabilities, read as ns-3/pFabric's
/// `EmpiricalRandomVariable` does — linear between points; a file of such points is
/// turned into `points` by the front end).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDistribution {
    Fixed(FlowSize),
    Pareto { mean: FlowSize, shape: f64 },
    Cdf(Vec<(FlowSize, f64)>),
}

pub const SIZE_KINDS: &[&str] = &["fixed", "pareto", "cdf"];

impl SizeDistribution {
    /// The mean size in bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDistribution::Fixed(size) => size.0 as f64,
            SizeDistribution::Pareto { mean, .. } => mean.0 as f64,
            // Piecewise linear CDF: each segment is uniform between its sizes.
            SizeDistribution::Cdf(points) => {
                let mut mean = points[0].0 .0 as f64 * points[0].1;
                for pair in points.windows(2) {
                    let ((a, pa), (b, pb)) = (pair[0], pair[1]);
                    mean += (pb - pa) * (a.0 as f64 + b.0 as f64) / 2.0;
                }
                mean
            }
        }
    }

    /// One flow size in bytes (at least 1).
    pub fn draw(&self, rng: &mut RngStream) -> u64 {
        // 1 − u lies in (0, 1]: no log or power of zero.
        let u = 1.0 - rng.gen::<f64>();
        let bytes = match self {
            SizeDistribution::Fixed(size) => return size.0,
            SizeDistribution::Pareto { mean, shape } => super::pareto_by_inversion(mean.0 as f64, *shape, u),
            SizeDistribution::Cdf(points) => {
                let p = 1.0 - u; // in [0, 1)
                match points.iter().position(|&(_, cumulative)| cumulative > p) {
                    Some(0) | None => points[0].0 .0 as f64,
                    Some(k) => {
                        let ((a, pa), (b, pb)) = (points[k - 1], points[k]);
                        a.0 as f64 + (b.0 as f64 - a.0 as f64) * (p - pa) / (pb - pa)
                    }
                }
            }
        };
        (bytes.round() as u64).clamp(1, MAX_FLOW_BYTES)
    }
}

impl Serialize for SizeDistribution {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        match self {
            SizeDistribution::Fixed(size) => {
                map.serialize_entry("kind", "fixed")?;
                map.serialize_entry("size", size)?;
            }
            SizeDistribution::Pareto { mean, shape } => {
                map.serialize_entry("kind", "pareto")?;
                map.serialize_entry("mean", mean)?;
                map.serialize_entry("shape", shape)?;
            }
            SizeDistribution::Cdf(points) => {
                map.serialize_entry("kind", "cdf")?;
                map.serialize_entry("points", points)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SizeDistribution {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fixed {
            size: FlowSize,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Pareto {
            mean: FlowSize,
            #[serde(default = "default_shape")]
            shape: f64,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Cdf {
            points: Vec<(FlowSize, f64)>,
        }
        deserialize_tagged(
            d,
            "kind",
            "{ kind = \"fixed\", size = \"100KB\" }, { kind = \"pareto\", mean = \"100KB\", shape = 1.2 } or { kind = \"cdf\", file = \"web-search\" }",
            |kind, params| match kind {
                "fixed" => parse_params::<Fixed>(params).map(|f| SizeDistribution::Fixed(f.size)),
                "pareto" => {
                    let p: Pareto = parse_params(params)?;
                    if !(p.shape.is_finite() && p.shape > 1.0 && p.shape <= 100.0) {
                        return Err(nested_error("shape", &format!("{} is outside (1, 100] (the mean must be finite)", crate::schema::Num(p.shape))));
                    }
                    Ok(SizeDistribution::Pareto { mean: p.mean, shape: p.shape })
                }
                "cdf" => {
                    let c: Cdf = parse_params(params)?;
                    check_cdf(&c.points).map_err(|message| nested_error("points", &message))?;
                    Ok(SizeDistribution::Cdf(c.points))
                }
                other => Err(unknown_variant("kind", other, SIZE_KINDS)),
            },
        )
    }
}

fn default_shape() -> f64 {
    1.2
}

fn check_cdf(points: &[(FlowSize, f64)]) -> Result<(), String> {
    if points.len() < 1 {
        return Err("needs at least one [size, cumulative probability] point".into());
    }
    if points.len() > 100_000 {
        return Err(format!("{} points; at most 100000", points.len()));
    }
    for (k, &(size, p)) in points.iter().enumerate() {
        if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
            return Err(format!("[{k}]: probability {} is outside [0, 1]", crate::schema::Num(p)));
        }
        if k > 0 {
            let (before, q) = points[k - 1];
            if size < before || p < q {
                return Err(format!("[{k}]: sizes and probabilities must not decrease ({before}, {q} then {size}, {p})"));
            }
        }
    }
    let last = points[points.len() - 1].1;
    if last != 1.0 {
        return Err(format!("the last probability is {}; it must be 1", crate::schema::Num(last)));
    }
    Ok(())
}

/// `arrivals = { kind = "poisson", load = 0.5, sizes = { ... } }`: flows of the group
/// start at the times of a Poisson process from the group's start to its stop.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArrivalSpec {
    /// The arrival process: "poisson" (exponential gaps with mean 1/λ).
    pub kind: &'static str,
    /// Offered load as a fraction of the capacity C of the group's data route.
    pub load: f64,
    /// Flow sizes: fixed, Pareto (mean, shape) or an empirical CDF.
    pub sizes: SizeDistribution,
}

pub const ARRIVAL_KINDS: &[&str] = &["poisson"];

impl<'de> Deserialize<'de> for ArrivalSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Poisson {
            load: f64,
            sizes: SizeDistribution,
        }
        deserialize_tagged(
            d,
            "kind",
            "{ kind = \"poisson\", load = 0.5, sizes = { kind = \"fixed\", size = \"100KB\" } }",
            |kind, params| match kind {
                "poisson" => {
                    let p: Poisson = parse_params(params)?;
                    // Above 10 the queue only grows; below 1e-6 hardly a flow arrives.
                    if !(p.load.is_finite() && p.load > 0.0 && p.load <= 10.0) {
                        return Err(nested_error("load", &format!("{} is outside (0, 10]", crate::schema::Num(p.load))));
                    }
                    Ok(ArrivalSpec { kind: "poisson", load: p.load, sizes: p.sizes })
                }
                other => Err(unknown_variant("kind", other, ARRIVAL_KINDS)),
            },
        )
    }
}

impl ArrivalSpec {
    /// Mean time between arrivals in ns for a route of `capacity_bps`.
    pub fn mean_gap_ns(&self, capacity_bps: f64) -> f64 {
        let per_second = self.load * capacity_bps / (8.0 * self.sizes.mean());
        1e9 / per_second
    }

    /// The load the flows offer on the wire, at least: `load` counts payload only, but
    /// each flow sends whole packets of `packet_bytes` (payload and headers) and first a
    /// SYN of `syn_bytes` (0 without one), so it is `load` × (E[⌈size / payload⌉] ×
    /// packet_bytes + syn_bytes) / E[size] — whatever the capacity. E[⌈size / payload⌉]
    /// is exact for fixed sizes and bounded below by max(1, E[size] / payload) otherwise.
    pub fn wire_load_at_least(&self, payload: u32, packet_bytes: u32, syn_bytes: u32) -> f64 {
        let mean = self.sizes.mean();
        let packets = match self.sizes {
            SizeDistribution::Fixed(size) => size.0.div_ceil(payload as u64) as f64,
            _ => (mean / payload as f64).max(1.0),
        };
        self.load * (packets * packet_bytes as f64 + syn_bytes as f64) / mean
    }

    /// One gap between arrivals (exponential), in ns, at least 1.
    pub fn draw_gap(&self, mean_gap_ns: f64, rng: &mut RngStream) -> u64 {
        let u = 1.0 - rng.gen::<f64>();
        (-mean_gap_ns * u.ln()).min(1e15).round().max(1.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    fn sizes(text: &str) -> Result<SizeDistribution, String> {
        crate::schema::deserialize_with_path(serde_json::from_str::<serde_json::Value>(text).unwrap())
    }

    fn sample_mean(d: &SizeDistribution, n: usize) -> f64 {
        let mut rng = stream(7, 7);
        (0..n).map(|_| d.draw(&mut rng) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(FlowSize::parse("100KB"), Ok(FlowSize(100_000)));
        assert_eq!(FlowSize::parse("64KiB"), Ok(FlowSize(65_536)));
        assert_eq!(FlowSize::parse("1.5MB"), Ok(FlowSize(1_500_000)));
        assert!(FlowSize::parse("100").unwrap_err().contains("has no unit"));
        assert!(FlowSize::parse("0B").unwrap_err().contains("outside 1B to 1TB"));
        assert!(FlowSize::parse("10Mbps").unwrap_err().contains("is not a size"));
    }

    #[test]
    fn pareto_sizes_have_their_mean() {
        let d = sizes(r#"{"kind": "pareto", "mean": "100KB", "shape": 2.5}"#).unwrap();
        let mean = sample_mean(&d, 400_000);
        assert!((mean / 100_000.0 - 1.0).abs() < 0.02, "{mean}");
    }

    #[test]
    fn wire_load_counts_whole_packets_headers_and_the_syn() {
        let spec = |text: &str| ArrivalSpec { kind: "poisson", load: 0.5, sizes: sizes(text).unwrap() };
        // 1-byte flows: one 1040-byte packet and a 40-byte SYN each, for 1 byte of load
        assert_eq!(spec(r#"{"kind": "fixed", "size": "1B"}"#).wire_load_at_least(1000, 1040, 40), 0.5 * 1080.0);
        // 2500 bytes: three packets
        assert_eq!(spec(r#"{"kind": "fixed", "size": "2500B"}"#).wire_load_at_least(1000, 1040, 0), 0.5 * 3120.0 / 2500.0);
        // large flows: about the load with the headers' share
        let pareto = spec(r#"{"kind": "pareto", "mean": "1MB"}"#).wire_load_at_least(1000, 1040, 40);
        assert!((pareto - 0.5 * 1.04).abs() < 1e-4, "{pareto}");
    }

    #[test]
    fn cdf_is_linear_between_points_and_has_its_mean() {
        // Uniform on [1000, 3000] after an atom of 1/2 at 1000: mean 0.5·1000 + 0.5·2000.
        let d = sizes(r#"{"kind": "cdf", "points": [["1000B", 0.5], ["3000B", 1.0]]}"#).unwrap();
        assert_eq!(d.mean(), 1500.0);
        let mean = sample_mean(&d, 200_000);
        assert!((mean / 1500.0 - 1.0).abs() < 0.01, "{mean}");
        let mut rng = stream(1, 2);
        assert!((0..10_000).map(|_| d.draw(&mut rng)).all(|s| (1000..=3000).contains(&s)));
    }

    #[test]
    fn bad_distributions_name_the_field() {
        assert!(sizes(r#"{"kind": "cdf", "points": [["1000B", 0.5], ["900B", 1.0]]}"#).unwrap_err().contains("must not decrease"));
        assert!(sizes(r#"{"kind": "cdf", "points": [["1000B", 0.5]]}"#).unwrap_err().contains("must be 1"));
        assert!(sizes(r#"{"kind": "pareto", "mean": "1KB", "shape": 1}"#).unwrap_err().starts_with("shape: 1 is outside"));
        assert!(sizes(r#"{"kind": "lognormal"}"#).unwrap_err().contains("unknown kind \"lognormal\""));
    }

    #[test]
    fn poisson_gaps_give_the_load() {
        let spec: ArrivalSpec = crate::schema::deserialize_with_path(
            serde_json::from_str::<serde_json::Value>(r#"{"kind": "poisson", "load": 0.6, "sizes": {"kind": "fixed", "size": "100KB"}}"#)
                .unwrap(),
        )
        .unwrap();
        // 0.6 · 10 Gb/s / 800 kbit = 7500 flows/s: 133.3 µs apart on average.
        let gap = spec.mean_gap_ns(1e10);
        assert!((gap - 133_333.33).abs() < 0.1, "{gap}");
        let mut rng = stream(3, 4);
        let n = 200_000;
        let mean = (0..n).map(|_| spec.draw_gap(gap, &mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean / gap - 1.0).abs() < 0.01, "{mean}");
    }
}
