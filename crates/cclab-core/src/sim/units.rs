//! Time in integer nanoseconds, link rates in bits per second, and their text forms
//! ("25ms", "1.5s", "100Mbps") as used in scenario files.
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Simulated time in nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_SEC: u64 = 1_000_000_000;

/// The longest duration a scenario may give (any field): 10^7 s, about 115 days. Times
/// are u64 nanoseconds; with every duration this short, sums of a handful of them (a
/// run's end plus a delay plus a backed-off timer) stay far from overflowing.
pub const MAX_DURATION_NS: u64 = 10_000_000 * NS_PER_SEC;
/// The fastest link a scenario may give: 10 Tb/s (a 1250-byte packet in 1 ns).
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;

/// A duration in ns from a number of `unit`s, or why it is not one. `shown` is the value
/// as the user wrote it.
fn checked_duration(value: f64, scale: f64, shown: &dyn fmt::Display) -> Result<Duration, String> {
    if value.is_nan() || value.is_infinite() {
        return Err(format!("{shown} is not a finite duration"));
    }
    if value < 0.0 {
        return Err(format!("{shown} is negative; a duration must be >= 0"));
    }
    let ns = (value * scale).round();
    if ns > MAX_DURATION_NS as f64 {
        return Err(format!("{shown} is longer than 10000000s (115 days), the longest duration cclab takes"));
    }
    Ok(Duration(ns as u64))
}

/// A rate in b/s from a number of `unit`s, or why it is not one.
fn checked_rate(value: f64, scale: f64, shown: &dyn fmt::Display) -> Result<Rate, String> {
    if value.is_nan() || value.is_infinite() {
        return Err(format!("{shown} is not a finite rate"));
    }
    if value <= 0.0 {
        return Err(format!("{shown} is not positive; a rate must be > 0"));
    }
    let bps = (value * scale).round();
    if bps < 1.0 {
        return Err(format!("{shown} is below 1 bit per second"));
    }
    if bps > MAX_RATE_BPS as f64 {
        return Err(format!("{shown} is above 10Tbps, the fastest link cclab takes"));
    }
    Ok(Rate(bps as u64))
}

/// A non-negative span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub fn from_secs_f64(s: f64) -> Duration {
        Duration((s * NS_PER_SEC as f64).round() as u64)
    }
    pub fn from_millis(ms: u64) -> Duration {
        Duration(ms * 1_000_000)
    }
    pub fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
}

fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
        .unwrap_or(text.len());
    // "e" may start a unit only for units we don't have, so a greedy split is safe here.
    let (number, unit) = text.split_at(end);
    number.parse::<f64>().ok().map(|n| (n, unit.trim()))
}

impl std::str::FromStr for Duration {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("{text:?} is not a duration (write e.g. \"100s\", \"25ms\", \"500us\")");
        let (value, unit) = split_number(text).ok_or_else(bad)?;
        let scale = match unit {
            "s" | "sec" => 1e9,
            "ms" => 1e6,
            "us" | "µs" => 1e3,
            "ns" => 1.0,
            "" if value == 0.0 => 1.0,
            _ => return Err(bad()),
        };
        checked_duration(value, scale, &format_args!("{text:?}"))
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns == 0 {
            write!(f, "0s")
        } else if ns % 1_000_000_000 == 0 {
            write!(f, "{}s", ns / 1_000_000_000)
        } else if ns % 1_000_000 == 0 {
            write!(f, "{}ms", ns / 1_000_000)
        } else if ns % 1_000 == 0 {
            write!(f, "{}us", ns / 1_000)
        } else {
            write!(f, "{ns}ns")
        }
    }
}

/// A link rate in bits per second (always > 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialise `bytes` onto a link of this rate, rounded up to whole ns.
    pub fn transmission_time(self, bytes: u32) -> u64 {
        // u64 suffices: 2^32 bytes × 8e9 would overflow, but packets are < 2^24 bytes.
        let bits_ns = bytes as u64 * 8 * NS_PER_SEC;
        bits_ns.div_ceil(self.0)
    }
}

impl std::str::FromStr for Rate {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("{text:?} is not a rate (write e.g. \"100Mbps\", \"1.5Gbps\", \"64kbps\")");
        let (value, unit) = split_number(text).ok_or_else(bad)?;
        let scale = match unit.trim_end_matches("/s").trim_end_matches("ps") {
            "b" | "bit" => 1.0,
            "k" | "kb" | "Kb" | "kbit" => 1e3,
            "M" | "Mb" | "mb" | "Mbit" => 1e6,
            "G" | "Gb" | "gb" | "Gbit" => 1e9,
            "T" | "Tb" | "tb" | "Tbit" => 1e12,
            _ => return Err(bad()),
        };
        checked_rate(value, scale, &format_args!("{text:?}"))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bps = self.0;
        if bps % 1_000_000_000 == 0 {
            write!(f, "{}Gbps", bps / 1_000_000_000)
        } else if bps % 1_000_000 == 0 {
            write!(f, "{}Mbps", bps / 1_000_000)
        } else if bps % 1_000 == 0 {
            write!(f, "{}kbps", bps / 1_000)
        } else {
            write!(f, "{bps}bps")
        }
    }
}

/// Serde for types written as text in scenario files; a bare number is read in the
/// type's base unit (seconds for durations, bits per second for rates).
macro_rules! text_serde {
    ($ty:ty, $expecting:literal, $from_number:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        v.parse().map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        let from: fn(f64) -> Result<$ty, String> = $from_number;
                        from(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        self.visit_f64(v as f64)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_f64(v as f64)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

text_serde!(Duration, "a duration such as \"25ms\"", |v| checked_duration(v, 1e9, &format_args!("{v}")));
text_serde!(Rate, "a rate such as \"100Mbps\"", |v| checked_rate(v, 1.0, &format_args!("{v}")));

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_and_prints() {
        assert_eq!("25ms".parse::<Duration>().unwrap(), Duration(25_000_000));
        assert_eq!("1.5s".parse::<Duration>().unwrap(), Duration(1_500_000_000));
        assert_eq!("100Mbps".parse::<Rate>().unwrap(), Rate(100_000_000));
        assert_eq!("10Mb/s".parse::<Rate>().unwrap(), Rate(10_000_000));
        assert!("-5Mbps".parse::<Rate>().is_err());
        assert!("fast".parse::<Rate>().is_err());
        assert!("10 parsecs".parse::<Duration>().is_err());
        assert_eq!("1e999s".parse::<Duration>().unwrap_err(), "\"1e999s\" is not a finite duration");
        assert!("1e8s".parse::<Duration>().unwrap_err().contains("longer than 10000000s"));
        assert_eq!("10000000s".parse::<Duration>().unwrap(), Duration(MAX_DURATION_NS));
        assert!("11Tbps".parse::<Rate>().unwrap_err().contains("above 10Tbps"));
        assert_eq!("10Tbps".parse::<Rate>().unwrap(), Rate(MAX_RATE_BPS));
        assert_eq!(Duration(25_000_000).to_string(), "25ms");
        assert_eq!(Rate(100_000_000).to_string(), "100Mbps");
        // 1040 bytes at 100 Mb/s = 83.2 us
        assert_eq!(Rate(100_000_000).transmission_time(1040), 83_200);
    }
}
