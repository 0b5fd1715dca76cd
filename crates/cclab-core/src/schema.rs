//! Generic deserialisation helpers shared by every part of the schema (scenario, links,
//! queues, loss models, congestion control, applications): tagged tables, range-checked
//! numbers, and one-line errors that name the field path and the value
//! (`flows[0].cc.beta: 1.5 is outside (0, 1)`). Nothing here knows the scenario.
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;

/// A number checked against its range while the scenario is parsed, so the error
/// names the field: `flows[0].cc.beta: 1.5 is outside (0, 1)`.
macro_rules! ranged_number {
    ($(#[$doc:meta])* $name:ident, $ok:expr, $problem:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Serialize, PartialEq)]
        pub struct $name(pub f64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = f64::deserialize(d)?;
                let ok: fn(f64) -> bool = $ok;
                if ok(v) {
                    Ok($name(v))
                } else {
                    Err(de::Error::custom(format!("{v} {}", $problem)))
                }
            }
        }
    };
}

ranged_number!(
    /// A probability in [0, 1].
    Probability, |v| (0.0..=1.0).contains(&v), "is outside [0, 1]"
);
ranged_number!(
    /// A number strictly inside (0, 1), such as the multiplicative-decrease factor β.
    OpenUnit, |v| v > 0.0 && v < 1.0, "is outside (0, 1)"
);
ranged_number!(
    /// A finite number strictly greater than zero.
    Positive, |v| v > 0.0 && v.is_finite(), "is not > 0"
);

/// Error text for a field inside a value that was re-parsed on its own (so that its
/// inner path can still be named): `\u{1}path\u{1}message`, joined by [`format_error`].
pub fn nested_error(inner_path: &str, message: &str) -> String {
    format!("\u{1}{inner_path}\u{1}{message}")
}

pub fn format_error(path: &str, message: &str) -> String {
    let mut path = path.to_string();
    let mut message = message.to_string();
    while let Some(rest) = message.strip_prefix('\u{1}') {
        let (inner, msg) = rest.split_once('\u{1}').unwrap_or(("", rest));
        if !inner.is_empty() && inner != "." {
            path = if path.is_empty() || path == "." { inner.to_string() } else { format!("{path}.{inner}") };
        }
        message = msg.to_string();
    }
    // serde adds " at line L column C" for JSON input; the path already locates the error.
    if let Some(idx) = message.find(" at line ") {
        message.truncate(idx);
    }
    if path.is_empty() || path == "." {
        message
    } else {
        format!("{path}: {message}")
    }
}

/// Parse one variant's parameters (a table without its tag), naming inner fields in
/// errors (`flows[0].cc.beta: ...`).
pub fn parse_params<T: de::DeserializeOwned>(params: serde_json::Value) -> Result<T, String> {
    deserialize_with_path(params).map_err(|e| match e.split_once(": ") {
        Some((path, msg)) if !path.contains(' ') => nested_error(path, msg),
        _ => e,
    })
}

/// Deserialize a value written either as a bare name (`"reno"`) or as a table whose
/// `tag` field names the variant (`{ algorithm = "aimd", beta = 0.875 }`);
/// `build(name, other_fields)` makes the value. One helper for every such field
/// (congestion control, loss models, applications), so they read and fail alike.
pub fn deserialize_tagged<'de, D: Deserializer<'de>, T>(
    d: D,
    tag: &'static str,
    expecting: &'static str,
    build: fn(&str, serde_json::Value) -> Result<T, String>,
) -> Result<T, D::Error> {
    struct Tagged<T> {
        tag: &'static str,
        expecting: &'static str,
        build: fn(&str, serde_json::Value) -> Result<T, String>,
    }
    impl<'de, T> de::Visitor<'de> for Tagged<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.expecting)
        }
        fn visit_str<E: de::Error>(self, name: &str) -> Result<T, E> {
            let unnested = |e: String| e.replace(&format!("\u{1}{}\u{1}", self.tag), "");
            (self.build)(name, serde_json::Value::Object(Default::default())).map_err(|e| E::custom(unnested(e)))
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut params = serde_json::Map::new();
            while let Some(key) = map.next_key::<String>()? {
                let value: serde_json::Value = map.next_value()?;
                params.insert(key, value);
            }
            let name = match params.remove(self.tag) {
                Some(serde_json::Value::String(name)) => name,
                Some(other) => return Err(de::Error::custom(nested_error(self.tag, &format!("{other} is not a name")))),
                None => return Err(de::Error::custom(nested_error(self.tag, "missing"))),
            };
            (self.build)(&name, serde_json::Value::Object(params)).map_err(de::Error::custom)
        }
    }
    d.deserialize_any(Tagged { tag, expecting, build })
}

/// The error for an unknown variant name, naming the tag field and the choices.
pub fn unknown_variant(tag: &str, name: &str, known: &[&str]) -> String {
    nested_error(tag, &format!("unknown {tag} {name:?}, expected one of: {}", known.join(", ")))
}

/// Deserialize `T` from any serde deserializer, naming the failing field's path.
pub fn deserialize_with_path<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<T, String>
where
    D::Error: fmt::Display,
{
    serde_path_to_error::deserialize(d).map_err(|e| {
        let path = e.path().to_string();
        format_error(&path, &e.inner().to_string())
    })
}


/// The parameters of a variant that takes none (`"droptail"`, `"none"`, `"bulk"`): any key
/// given is an error naming it.
pub fn no_params(params: serde_json::Value, variant: &str) -> Result<(), String> {
    match params.as_object().and_then(|table| table.keys().next()) {
        Some(key) => Err(nested_error(key, &format!("unknown field: {variant:?} has no parameters"))),
        None => Ok(()),
    }
}

/// `Deserialize` for an enum of plain names (`transport = "tcp"`): anything but a known
/// name is an error naming the value and the choices, e.g. `unknown transport "quic",
/// expected one of: tcp, udp` or `invalid type: integer `5`, expected one of: tcp, udp`.
/// (Serde's derive, fed by serde_json, answers a number with a bare "expected value".)
macro_rules! named_choice {
    ($ty:ty, $what:literal, [$($variant:ident => $name:literal),+ $(,)?]) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const NAMES: &[&str] = &[$($name),+];
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        write!(f, "one of: {}", NAMES.join(", "))
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$ty, E> {
                        match v {
                            $($name => Ok(<$ty>::$variant),)+
                            other => Err(E::custom(format!("unknown {} {other:?}, expected one of: {}", $what, NAMES.join(", ")))),
                        }
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}
pub(crate) use named_choice;

/// Deserialize a value written either as a duration (`"1s"`, or a number of seconds) or
/// as a table `Table`: `from_duration` and `from_table` make the value. One helper for
/// every such field (flow starts, on/off periods), so they read and fail alike.
pub fn duration_or_table<'de, D, T, Table>(
    d: D,
    expecting: &'static str,
    from_duration: fn(crate::sim::Duration) -> T,
    from_table: fn(Table) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    Table: Deserialize<'de>,
{
    use crate::sim::Duration;
    struct V<T, Table> {
        expecting: &'static str,
        from_duration: fn(Duration) -> T,
        from_table: fn(Table) -> Result<T, String>,
    }
    impl<'de, T, Table: Deserialize<'de>> de::Visitor<'de> for V<T, Table> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.expecting)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            v.parse().map(self.from_duration).map_err(E::custom)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
            Duration::deserialize(de::value::F64Deserializer::new(v)).map(self.from_duration)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
            self.visit_f64(v as f64)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
            self.visit_f64(v as f64)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            let table = Table::deserialize(de::value::MapAccessDeserializer::new(map))?;
            (self.from_table)(table).map_err(de::Error::custom)
        }
    }
    d.deserialize_any(V { expecting, from_duration, from_table })
}
