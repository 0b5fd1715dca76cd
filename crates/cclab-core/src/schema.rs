//! Generic deserialisation helpers shared by every part of the schema (scenario, links,
//! queues, loss models, congestion control, applications): tagged tables, range-checked
//! numbers, and one-line errors that name the field path and the value
//! (`flows[0].cc.beta: 1.5 is outside (0, 1)`). Nothing here knows the scenario.
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;

/// A number as a person would write it in a message: 0.875, 1500, 1e300 (not 301
/// digits), 9.2e18.
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_finite() && v != 0.0 && (v.abs() >= 1e15 || v.abs() < 1e-6) {
            write!(f, "{v:e}")
        } else {
            write!(f, "{v}")
        }
    }
}

/// A measured or derived number as a message gives it: at least three significant
/// digits, no more decimals than that needs (8889, 972, 0.0123, 1.23e-7), not every
/// digit of the float.
pub struct Approx(pub f64);

impl fmt::Display for Approx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if !v.is_finite() || v == 0.0 {
            return write!(f, "{v}");
        }
        if v.abs() >= 1e15 || v.abs() < 1e-6 {
            return write!(f, "{v:.2e}");
        }
        let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
        write!(f, "{v:.decimals$}")
    }
}

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
                    Err(de::Error::custom(format!("{} {}", $crate::schema::Num(v), $problem)))
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
    // A missing field is named by its own path: `flows[0].to: required, but missing`.
    if let Some(field) = message.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`')) {
        path = if path.is_empty() || path == "." { field.to_string() } else { format!("{path}.{field}") };
        message = "required, but missing".to_string();
    }
    let message = in_our_words(&message);
    if path.is_empty() || path == "." {
        message
    } else if path.chars().count() > 80 {
        format!("{}: {message}", shortened(&path))
    } else {
        format!("{path}: {message}")
    }
}

/// serde's messages say what Rust expected (`invalid type: string "x", expected u32`);
/// say it as a scenario's author would (`"x" is not a whole number from 0 to
/// 4294967295`). Messages cclab wrote itself pass through unchanged.
pub fn in_our_words(message: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.rsplit_once(", expected ") {
                return format!("{} is not {}", shown_value(found), expected_in_words(expected));
            }
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        if let Some((found, wanted)) = rest.split_once(", expected a list of ") {
            return format!("a list of {found} items where {wanted} are expected");
        }
        if let Some((found, expected)) = rest.split_once(", expected ") {
            return format!("a list of {found} is not {}", expected_in_words(expected));
        }
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((field, known)) = rest.split_once("`, expected one of ") {
            return format!("unknown field {}; the fields here are {}", quoted(field), known.replace('`', ""));
        }
        if let Some((field, known)) = rest.split_once("`, expected ") {
            // serde names two fields "`a` or `b`", one as "`a`"
            let (fields, verb) = if known.contains("` or `") { ("fields", "are") } else { ("only field", "is") };
            return format!("unknown field {}; the {fields} here {verb} {}", quoted(field), known.replace('`', ""));
        }
        if let Some(field) = rest.strip_suffix("`, there are no fields") {
            return format!("unknown field {}; nothing may be given here", quoted(field));
        }
    }
    if let Some(field) = message.strip_prefix("duplicate field `").and_then(|rest| rest.strip_suffix('`')) {
        return format!("the field {} is given twice", quoted(field));
    }
    if message == "expected value" {
        // serde_json's word for a JSON value it cannot read: NaN and infinity.
        return "is not a number (NaN and infinity are not allowed)".into();
    }
    message.to_string()
}

/// How serde shows a value (`string "x"`, `integer `5``, `sequence`), as the user wrote it.
fn shown_value(found: &str) -> String {
    let quoted = |kind: &str| found.strip_prefix(kind).and_then(|v| v.strip_prefix('`')).and_then(|v| v.strip_suffix('`'));
    let text = if let Some(text) = found.strip_prefix("string ") {
        match text {
            "\"nan\"" | "\"NaN\"" => "nan".to_string(),
            "\"inf\"" | "\"-inf\"" => text.trim_matches('"').to_string(),
            _ => text.to_string(),
        }
    } else if let Some(v) = quoted("integer ").or_else(|| quoted("floating point ")).or_else(|| quoted("boolean ")) {
        v.to_string()
    } else {
        match found {
            "sequence" => "a list".to_string(),
            "map" => "a table".to_string(),
            "unit value" | "unit" => "an empty value".to_string(),
            other => other.to_string(),
        }
    };
    shortened(&text)
}

/// A value of more than 40 characters, shortened (a 300-digit number helps nobody).
pub fn shortened(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= 40 {
        return text.to_string();
    }
    let head: String = chars[..16].iter().collect();
    let tail: String = chars[chars.len() - 8..].iter().collect();
    format!("{head}…{tail} ({} characters)", chars.len())
}

/// Text as the user wrote it, in quotes, shortened past 40 characters.
pub fn quoted(text: &str) -> String {
    shortened(&format!("{text:?}"))
}

/// A message kept to one readable line whatever the input echoed in it: every unbroken
/// run of more than 80 characters (a 1-MB key in a field path, a 300-digit number) is
/// shortened, and a message still longer than 600 characters keeps its beginning (the
/// field) and its end (what is allowed).
pub fn bounded(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.chars().count() > 80 {
            // (punctuation that ends the word stays after the shortened part)
            let body = word.trim_end_matches([':', ';', ',', ')']);
            let end = &word[body.len()..];
            out.push_str(&shortened(body));
            out.push_str(end);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in message.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(if c == '\n' || c == '\r' { ' ' } else { c });
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    let chars: Vec<char> = out.chars().collect();
    if chars.len() <= 600 {
        return out;
    }
    let head: String = chars[..400].iter().collect();
    let tail: String = chars[chars.len() - 150..].iter().collect();
    format!("{head}…{tail} ({} characters in all)", chars.len())
}

/// serde's name for what a field takes, in words.
fn expected_in_words(expected: &str) -> String {
    match expected {
        "f64" | "f32" => "a number".into(),
        "u8" => "a whole number from 0 to 255".into(),
        "u16" => "a whole number from 0 to 65535".into(),
        "u32" => "a whole number from 0 to 4294967295".into(),
        "u64" | "usize" => "a whole number from 0 to 18446744073709551615".into(),
        "a nonzero u32" => "a whole number from 1 to 4294967295".into(),
        "a nonzero u64" => "a whole number from 1 to 18446744073709551615".into(),
        "i64" | "i32" => "a whole number".into(),
        "a boolean" => "true or false".into(),
        "a string" | "a borrowed string" => "text in quotes".into(),
        "a sequence" => "a list".into(),
        "a map" => "a table".into(),
        "unit" => "empty".into(),
        other if other.starts_with("struct ") || other.starts_with("enum ") => "a table".into(),
        other if other.starts_with("a tuple of size ") || other.starts_with("tuple of ") => {
            format!("a list of {}", other.rsplit(' ').next().unwrap_or("2").trim_end_matches("elements").trim())
        }
        other => other.into(),
    }
}

/// Parse one variant's parameters (a table without its tag), naming inner fields in
/// errors (`flows[0].cc.beta: ...`).
pub fn parse_params<T: de::DeserializeOwned>(params: serde_json::Value) -> Result<T, String> {
    from_value(&params).map_err(|e| match e.split_once(": ") {
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
                None if params.is_empty() => return Err(de::Error::custom(nested_error(self.tag, "missing"))),
                None => {
                    // Most often a misspelt tag: say what the table has instead.
                    let keys: Vec<String> = params.keys().map(|key| format!("{key:?}")).collect();
                    let found = format!("missing (the table has {})", keys.join(", "));
                    return Err(de::Error::custom(nested_error(self.tag, &found)));
                }
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

/// A JSON document as a [`serde_json::Value`], refusing what serde_json would let pass
/// silently: a key given twice in one table (the last would win). Errors are one line in
/// cclab's words.
pub fn parse_json(text: &str) -> Result<serde_json::Value, String> {
    struct Checked(serde_json::Value);
    impl<'de> Deserialize<'de> for Checked {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(CheckedVisitor).map(Checked)
        }
    }
    struct CheckedVisitor;
    impl<'de> de::Visitor<'de> for CheckedVisitor {
        type Value = serde_json::Value;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
            Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(serde_json::Value::Null)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(Checked(item)) = seq.next_element()? {
                items.push(item);
            }
            Ok(serde_json::Value::Array(items))
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut table = serde_json::Map::new();
            while let Some(key) = map.next_key::<String>()? {
                let Checked(value) = map.next_value()?;
                if table.contains_key(&key) {
                    return Err(de::Error::custom(format!("the key {} is given twice", quoted(&key))));
                }
                table.insert(key, value);
            }
            Ok(serde_json::Value::Object(table))
        }
    }
    let mut d = serde_json::Deserializer::from_str(text);
    let checked = Checked::deserialize(&mut d).and_then(|value| d.end().map(|()| value));
    checked.map(|Checked(value)| value).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => format_error("", &e.to_string()),
        _ if e.to_string().starts_with("recursion limit exceeded") => "tables or lists nested more than 128 deep".into(),
        _ => format!("not a JSON document: {e}"),
    })
}

/// Deserialize `T` from a parsed scenario value (JSON or TOML), strictly (see [`Strict`]),
/// naming the failing field's path.
pub fn from_value<T: de::DeserializeOwned>(value: &serde_json::Value) -> Result<T, String> {
    deserialize_with_path(Strict(value))
}

/// A deserializer over a parsed [`serde_json::Value`] that is serde_json's own but for
/// what it lets pass silently in a scenario: a list where a table is expected (serde's
/// derive reads `tcp = []` as every default, `tcp = ["newreno"]` as its first field), a
/// list of the wrong length where a fixed-length one is expected (`["0s", 1, 2]` for a
/// `[time, number]` step), and a TOML date or time (a table only serde sees).
pub struct Strict<'a>(pub &'a serde_json::Value);

/// The key under which the toml crate hands a date or time to serde.
const TOML_DATETIME: &str = "$__toml_private_datetime";

struct ListOf(usize);

impl de::Expected for ListOf {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a list of {}", self.0)
    }
}

impl<'de> Deserializer<'de> for Strict<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        use serde_json::Value;
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => visitor.visit_u64(u),
                (None, Some(i)) => visitor.visit_i64(i),
                _ => visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => {
                let mut seq = StrictSeq(items.iter());
                let value = visitor.visit_seq(&mut seq)?;
                match seq.0.len() {
                    0 => Ok(value),
                    _ => Err(de::Error::invalid_length(items.len(), &"fewer items")),
                }
            }
            Value::Object(table) => {
                if let (1, Some(Value::String(when))) = (table.len(), table.get(TOML_DATETIME)) {
                    return Err(de::Error::custom(format!(
                        "{when} is a TOML date or time; no field takes one (write text in quotes)"
                    )));
                }
                let mut map = StrictMap { entries: table.iter(), value: None };
                visitor.visit_map(&mut map)
            }
        }
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            serde_json::Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            serde_json::Value::Array(_) => Err(de::Error::invalid_type(de::Unexpected::Seq, &visitor)),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple<V: de::Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            serde_json::Value::Array(items) if items.len() != len => Err(de::Error::invalid_length(items.len(), &ListOf(len))),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple_struct<V: de::Visitor<'de>>(self, _name: &'static str, len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_ignored_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq map identifier
    }
}

struct StrictSeq<'a>(std::slice::Iter<'a, serde_json::Value>);

impl<'de> de::SeqAccess<'de> for StrictSeq<'de> {
    type Error = serde_json::Error;
    fn next_element_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error> {
        self.0.next().map(|item| seed.deserialize(Strict(item))).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct StrictMap<'a> {
    entries: serde_json::map::Iter<'a>,
    value: Option<&'a serde_json::Value>,
}

impl<'de> de::MapAccess<'de> for StrictMap<'de> {
    type Error = serde_json::Error;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(key)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let value = self.value.take().ok_or_else(|| de::Error::custom("a value without its key"))?;
        seed.deserialize(Strict(value))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
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

/// Test helper for config validators that answer Err((field, message)): each case sets
/// one field of a default config; the `accepted` values must validate, the `rejected`
/// ones must be refused naming that field.
#[cfg(test)]
pub(crate) fn assert_field_bounds<T: Default>(
    validate: impl Fn(&T) -> Result<(), (&'static str, String)>,
    cases: &[(&str, fn(&mut T, f64), &[f64], &[f64])],
) {
    for &(field, set, accepted, rejected) in cases {
        for &value in accepted {
            let mut config = T::default();
            set(&mut config, value);
            assert_eq!(validate(&config), Ok(()), "{field} = {value}");
        }
        for &value in rejected {
            let mut config = T::default();
            set(&mut config, value);
            assert_eq!(validate(&config).map_err(|(name, _)| name), Err(field), "{field} = {value}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Debug, Default, PartialEq)]
    #[serde(deny_unknown_fields, default)]
    struct Table {
        flag: bool,
        steps: Vec<(String, u32)>,
        name: String,
    }

    fn read(json: &str) -> Result<Table, String> {
        from_value(&parse_json(json)?)
    }

    #[test]
    fn unknown_fields_name_the_ones_allowed_in_plain_words() {
        assert_eq!(in_our_words("unknown field `lod`, expected `load` or `sizes`"),
                   "unknown field \"lod\"; the fields here are load or sizes");
        assert_eq!(in_our_words("unknown field `sise`, expected `size`"), "unknown field \"sise\"; the only field here is size");
    }

    #[test]
    fn a_list_is_not_a_table() {
        // serde's derive reads [] as a table of defaults, [true] as its first field
        assert_eq!(read("[]").unwrap_err(), "a list is not a table");
        assert_eq!(read("[true]").unwrap_err(), "a list is not a table");
        assert_eq!(read("{}").unwrap(), Table::default());
    }

    #[test]
    fn a_fixed_length_list_of_the_wrong_length_is_named() {
        let message = read(r#"{"steps": [["0s", 1, 2]]}"#).unwrap_err();
        assert_eq!(message, "steps[0]: a list of 3 items where 2 are expected");
        assert_eq!(read(r#"{"steps": [["0s"]]}"#).unwrap_err(), "steps[0]: a list of 1 items where 2 are expected");
        assert_eq!(read(r#"{"steps": [["0s", 1]]}"#).unwrap().steps, [("0s".to_string(), 1)]);
    }

    #[test]
    fn a_toml_date_is_refused_where_text_is_expected() {
        let value = serde_json::to_value(toml::from_str::<toml::Table>("name = 1979-05-27T07:32:00Z").unwrap()).unwrap();
        let message = from_value::<Table>(&value).unwrap_err();
        assert_eq!(message, "name: 1979-05-27T07:32:00Z is a TOML date or time; no field takes one (write text in quotes)");
    }

    #[test]
    fn a_key_given_twice_is_refused() {
        assert_eq!(parse_json(r#"{"flag": true, "flag": false}"#).unwrap_err(), "the key \"flag\" is given twice");
        assert!(parse_json("{} x").unwrap_err().starts_with("not a JSON document: trailing characters"));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(parse_json(&deep).unwrap_err(), "tables or lists nested more than 128 deep");
    }

    #[test]
    fn messages_stay_one_readable_line() {
        let key = "k".repeat(1_000_000);
        let message = bounded(&format!("{key}: unknown field \"{key}\"; the fields here are a, b"));
        assert!(message.len() < 200, "{} characters", message.len());
        assert!(message.ends_with("; the fields here are a, b"), "{message}");
        assert!(message.starts_with("kkkkkkkkkkkkkkkk…kkkkkkkk (1000000 characters): unknown field"), "{message}");
        let spaced = format!("value: \"{}\" is not a duration", "a ".repeat(100_000));
        let message = bounded(&spaced);
        assert!(message.chars().count() < 700 && message.ends_with("is not a duration (200027 characters in all)"), "{message}");
        assert_eq!(bounded("a\nb"), "a b");
        assert_eq!(bounded("short: fine"), "short: fine");
        assert_eq!(quoted("x"), "\"x\"");
        assert!(quoted(&"y".repeat(100)).ends_with("(102 characters)"));
    }
}
