//! Time in integer nanoseconds, link rates in bits per second, sizes in bytes, and their
//! text forms ("25ms", "1.5s", "100Mbps", "1000B") as used in scenario files. A bare number
//! (`delay = 18`) is refused with a hint: which unit was meant is a guess cclab does not
//! make (zero, which needs none, excepted for durations and sizes).
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
    if ns == 0.0 && value > 0.0 {
        return Err(format!("{shown} is shorter than 1ns, the clock's resolution"));
    }
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
    if value * scale < 1.0 {
        return Err(format!("{shown} is below 1 bit per second, the slowest link cclab takes"));
    }
    let bps = (value * scale).round();
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
        let shown = crate::schema::quoted(text);
        let bad = || format!("{shown} is not a duration (write e.g. \"100s\", \"25ms\", \"500us\")");
        let (value, unit) = split_number(text).ok_or_else(bad)?;
        let scale = match unit {
            "s" | "sec" => 1e9,
            "ms" => 1e6,
            "us" | "µs" => 1e3,
            "ns" => 1.0,
            "" if value == 0.0 => 1.0,
            "" => return Err(format!("{shown} has no unit; {}", duration_hint(text.trim()))),
            _ => return Err(bad()),
        };
        checked_duration(value, scale, &shown)
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
        let shown = crate::schema::quoted(text);
        let bad = || format!("{shown} is not a rate (write e.g. \"100Mbps\", \"1.5Gbps\", \"64kbps\")");
        let (value, unit) = split_number(text).ok_or_else(bad)?;
        if unit.is_empty() {
            return Err(format!("{shown} has no unit; {}", rate_hint(text.trim())));
        }
        let scale = match unit.trim_end_matches("/s").trim_end_matches("ps") {
            "b" | "bit" => 1.0,
            "k" | "kb" | "Kb" | "kbit" => 1e3,
            "M" | "Mb" | "mb" | "Mbit" => 1e6,
            "G" | "Gb" | "gb" | "Gbit" => 1e9,
            "T" | "Tb" | "tb" | "Tbit" => 1e12,
            _ => return Err(bad()),
        };
        checked_rate(value, scale, &shown)
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

/// A number short enough to repeat in a hint (a 300-digit one is not).
fn short(n: &str) -> Option<&str> {
    (n.len() <= 24).then_some(n)
}

/// What to write instead of the bare number `n` given for a duration.
fn duration_hint(n: &str) -> String {
    match short(n) {
        Some(n) => format!("write \"{n}ms\" or \"{n}s\""),
        None => "write it with a unit: s, ms, us or ns (e.g. \"25ms\")".into(),
    }
}

/// What to write instead of the bare number `n` given for a rate.
fn rate_hint(n: &str) -> String {
    match short(n) {
        Some(n) => format!("write \"{n}Mbps\", \"{n}kbps\" or \"{n}bps\""),
        None => "write it with a unit: bps, kbps, Mbps, Gbps or Tbps (e.g. \"10Mbps\")".into(),
    }
}

/// What to write instead of the bare number `n` given for a size.
fn size_hint(n: &str) -> String {
    match short(n) {
        Some(n) => format!("write \"{n}B\" (bytes) or \"{n}kB\""),
        None => "write it with a unit: B, kB, MB, GB, KiB, MiB, GiB, ... (e.g. \"1000B\")".into(),
    }
}

/// A bare number given for a duration: zero needs no unit; anything else is refused
/// naming the units that could have been meant (a negative or non-finite number is
/// refused for that first).
fn bare_duration(v: f64) -> Result<Duration, String> {
    let shown = crate::schema::Num(v).to_string();
    if !v.is_finite() || v <= 0.0 {
        return checked_duration(v, 1.0, &shown);
    }
    Err(format!("{shown} has no unit; {}", duration_hint(&shown)))
}

fn bare_rate(v: f64) -> Result<Rate, String> {
    let shown = crate::schema::Num(v).to_string();
    if !(v.is_finite() && v > 0.0) {
        checked_rate(v, 1.0, &shown)?;
    }
    Err(format!("{shown} has no unit; {}", rate_hint(&shown)))
}

/// Serde for types written as text in scenario files; a bare number is refused (see
/// the module's documentation).
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

text_serde!(Duration, "a duration such as \"25ms\"", bare_duration);
text_serde!(Rate, "a rate such as \"100Mbps\"", bare_rate);

/// The largest size cclab reads: 2^64 − 1 bytes.
const MAX_BYTES: f64 = u64::MAX as f64;

/// A size in bytes from its text form: a number and a unit, `B` (or `byte`, `bytes`),
/// the decimal `kB` (`KB`), `MB`, `GB`, `TB`, `PB` or the binary `KiB`, `MiB`, `GiB`,
/// `TiB`, `PiB`; a whole number of bytes. `"0"` needs no unit.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let shown = crate::schema::quoted(text);
    let bad = || {
        format!("{shown} is not a size (write e.g. \"1000B\", \"1.5kB\", \"64KiB\"; units B, kB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)")
    };
    let (value, unit) = split_number(text).ok_or_else(bad)?;
    let scale: f64 = match unit {
        "B" | "byte" | "bytes" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "PB" => 1e15,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024f64.powi(3),
        "TiB" => 1024f64.powi(4),
        "PiB" => 1024f64.powi(5),
        "" if value == 0.0 => 1.0,
        "" => return Err(format!("{shown} has no unit; {}", size_hint(text.trim()))),
        "b" | "kb" | "Kb" | "Mb" | "Gb" | "bit" | "bits" => {
            return Err(format!("{shown} is in bits; a size is in bytes (B, kB, MB, ...)"))
        }
        _ => return Err(bad()),
    };
    if !value.is_finite() {
        return Err(format!("{shown} is not a finite size"));
    }
    if value < 0.0 {
        return Err(format!("{shown} is negative; a size must be >= 0"));
    }
    let bytes = value * scale;
    if bytes > MAX_BYTES {
        return Err(format!("{shown} is above 16EiB, the largest size cclab takes"));
    }
    let whole = bytes.round();
    if (bytes - whole).abs() > 1e-6 * whole.max(1.0) {
        return Err(format!("{shown} is not a whole number of bytes"));
    }
    Ok(whole as u64)
}

/// A byte count a scenario field holds (`packet_size`, `buffer_bytes`, ...), with the
/// field's range.
pub trait ByteCount: Sized + Copy {
    fn bytes(self) -> u64;
    fn from_bytes(bytes: u64, shown: &str) -> Result<Self, String>;
}

impl ByteCount for u32 {
    fn bytes(self) -> u64 {
        self as u64
    }
    fn from_bytes(bytes: u64, shown: &str) -> Result<Self, String> {
        u32::try_from(bytes).map_err(|_| format!("{shown} is not a size from 0B to {}B", u32::MAX))
    }
}

impl ByteCount for u64 {
    fn bytes(self) -> u64 {
        self
    }
    fn from_bytes(bytes: u64, _shown: &str) -> Result<Self, String> {
        Ok(bytes)
    }
}

impl ByteCount for std::num::NonZeroU32 {
    fn bytes(self) -> u64 {
        self.get() as u64
    }
    fn from_bytes(bytes: u64, shown: &str) -> Result<Self, String> {
        u32::try_from(bytes)
            .ok()
            .and_then(std::num::NonZeroU32::new)
            .ok_or_else(|| format!("{shown} is not a size from 1B to {}B", u32::MAX))
    }
}

impl ByteCount for std::num::NonZeroU64 {
    fn bytes(self) -> u64 {
        self.get()
    }
    fn from_bytes(bytes: u64, shown: &str) -> Result<Self, String> {
        std::num::NonZeroU64::new(bytes).ok_or_else(|| format!("{shown} is not a size of at least 1B"))
    }
}

/// `#[serde(with = "crate::sim::units::bytes")]` for a byte count: written `"1000B"`,
/// read from a size's text (a bare number other than 0 is refused with a hint).
pub mod bytes {
    use super::{parse_bytes, size_hint, ByteCount};
    use serde::{de, Deserializer, Serializer};
    use std::fmt;

    pub fn serialize<T: ByteCount, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}B", value.bytes()))
    }

    pub fn deserialize<'de, T: ByteCount, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<T: ByteCount> de::Visitor<'_> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size such as \"1000B\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
                let bytes = parse_bytes(v).map_err(E::custom)?;
                T::from_bytes(bytes, &crate::schema::quoted(v)).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
                let shown = crate::schema::Num(v).to_string();
                if v == 0.0 {
                    return T::from_bytes(0, &shown).map_err(E::custom);
                }
                if !v.is_finite() || v < 0.0 {
                    return Err(E::custom(format!("{shown} is not a size (write e.g. \"1000B\")")));
                }
                Err(E::custom(format!("{shown} has no unit; {}", size_hint(&shown))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
                match v {
                    0 => T::from_bytes(0, "0").map_err(E::custom),
                    _ => Err(E::custom(format!("{v} has no unit; {}", size_hint(&v.to_string())))),
                }
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// [`bytes`] for an optional byte count (`None` when the field is left out or null).
pub mod bytes_opt {
    use super::ByteCount;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: ByteCount, S: Serializer>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => super::bytes::serialize(value, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, T: ByteCount, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
        struct Wrapped<T>(T);
        impl<'de, T: ByteCount> Deserialize<'de> for Wrapped<T> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                super::bytes::deserialize(d).map(Wrapped)
            }
        }
        Option::<Wrapped<T>>::deserialize(d).map(|value| value.map(|Wrapped(v)| v))
    }
}

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

    fn read<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
        crate::schema::from_value(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn bare_numbers_are_refused_with_the_units_they_could_mean() {
        assert_eq!(read::<Duration>("18").unwrap_err(), "18 has no unit; write \"18ms\" or \"18s\"");
        assert_eq!(read::<Duration>("0.5").unwrap_err(), "0.5 has no unit; write \"0.5ms\" or \"0.5s\"");
        assert_eq!(read::<Duration>("\"18\"").unwrap_err(), "\"18\" has no unit; write \"18ms\" or \"18s\"");
        assert_eq!(read::<Rate>("20").unwrap_err(), "20 has no unit; write \"20Mbps\", \"20kbps\" or \"20bps\"");
        assert_eq!(read::<Rate>("\"20\"").unwrap_err(), "\"20\" has no unit; write \"20Mbps\", \"20kbps\" or \"20bps\"");
        // zero needs no unit; a negative number is wrong whatever the unit
        assert_eq!(read::<Duration>("0").unwrap(), Duration::ZERO);
        assert_eq!(read::<Duration>("-5").unwrap_err(), "-5 is negative; a duration must be >= 0");
        assert_eq!(read::<Rate>("0").unwrap_err(), "0 is not positive; a rate must be > 0");
        #[derive(serde::Deserialize, Debug)]
        struct Sizes {
            #[serde(with = "bytes")]
            size: u32,
            #[serde(default, with = "bytes_opt")]
            limit: Option<std::num::NonZeroU64>,
        }
        assert_eq!(read::<Sizes>(r#"{"size": 1000}"#).unwrap_err(), "size: 1000 has no unit; write \"1000B\" (bytes) or \"1000kB\"");
        assert_eq!(read::<Sizes>(r#"{"size": "1000"}"#).unwrap_err(), "size: \"1000\" has no unit; write \"1000B\" (bytes) or \"1000kB\"");
        assert_eq!(read::<Sizes>(r#"{"size": 0}"#).unwrap().size, 0);
        assert_eq!(read::<Sizes>(r#"{"size": "1.5kB", "limit": "64KiB"}"#).map(|s| (s.size, s.limit.map(|l| l.get()))).unwrap(), (1500, Some(65536)));
        assert_eq!(read::<Sizes>(r#"{"size": "1B", "limit": 0}"#).unwrap_err(), "limit: 0 is not a size of at least 1B");
        assert_eq!(read::<Sizes>(r#"{"size": "1B", "limit": null}"#).unwrap().limit, None);
        assert_eq!(read::<Sizes>(r#"{"size": "5GB"}"#).unwrap_err(), "size: \"5GB\" is not a size from 0B to 4294967295B");
    }

    #[test]
    fn sizes_parse_in_bytes_and_print_back() {
        for (text, bytes) in [("1000B", 1000), ("0", 0), ("1.5kB", 1500), ("1KB", 1000), ("2MB", 2_000_000), ("8GB", 8_000_000_000),
            ("1PB", 1_000_000_000_000_000), ("512MiB", 512 << 20), ("1 KiB", 1024), ("64 bytes", 64), ("0.001kB", 1)] {
            assert_eq!(parse_bytes(text), Ok(bytes), "{text}");
        }
        for (text, problem) in [("1.5B", "is not a whole number of bytes"), ("1000b", "is in bits"), ("10Mb", "is in bits"),
            ("-1B", "is negative"), ("1e30B", "is above 16EiB"), ("lots", "is not a size"), ("5", "has no unit"), ("inf B", "is not a size")] {
            let message = parse_bytes(text).unwrap_err();
            assert!(message.contains(problem), "{text}: {message}");
        }
        let written = serde_json::to_value(Sized(std::num::NonZeroU32::new(1500).unwrap())).unwrap();
        assert_eq!(written, serde_json::json!("1500B"));
        #[derive(serde::Serialize)]
        struct Sized(#[serde(with = "bytes")] std::num::NonZeroU32);
    }

    #[test]
    fn values_below_the_resolution_are_refused_not_rounded() {
        // "0.5bps" was stored as 1 b/s, "0.4ns" as 0 (no delay at all)
        assert_eq!("0.5bps".parse::<Rate>().unwrap_err(), "\"0.5bps\" is below 1 bit per second, the slowest link cclab takes");
        assert!("1e-9bps".parse::<Rate>().unwrap_err().contains("below 1 bit per second"));
        assert_eq!("1bps".parse::<Rate>().unwrap(), Rate(1));
        assert_eq!("1.5bps".parse::<Rate>().unwrap(), Rate(2));
        assert_eq!("0.4ns".parse::<Duration>().unwrap_err(), "\"0.4ns\" is shorter than 1ns, the clock's resolution");
        assert!("1e-10s".parse::<Duration>().unwrap_err().contains("shorter than 1ns"));
        assert_eq!("0.5ns".parse::<Duration>().unwrap(), Duration(1));
        assert_eq!("0ns".parse::<Duration>().unwrap(), Duration(0));
    }

    #[test]
    fn long_values_are_shortened_in_messages() {
        let long = "x".repeat(100_000);
        let message = long.parse::<Duration>().unwrap_err();
        assert!(message.len() < 200 && message.contains("(100002 characters)"), "{message}");
        let message = parse_bytes(&format!("{long}B")).unwrap_err();
        assert!(message.len() < 300, "{message}");
    }
}
