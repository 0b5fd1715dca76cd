//! A congestion control the front end supplies: `cc = { algorithm = "python", path =
//! "mycc.py", class = "MyCC", params = { ... } }`. The core has no Python in it; it
//! validates the declaration and, when it builds the flows, asks the embedder for each
//! flow's controller (`Simulation::with_controllers`), which it drives through the same
//! [`CongestionControl`] trait as the built-in algorithms.
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use serde::{Deserialize, Serialize};

/// Longest `path` accepted (a file path, not a payload).
const MAX_PATH: usize = 4096;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExternalConfig {
    /// The Python file defining the class (relative paths: from the scenario file's
    /// folder, or the working directory for a scenario given as data).
    pub path: String,
    /// The class; one instance per flow, made with `params` as keyword arguments.
    pub class: String,
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

impl ExternalConfig {
    /// The label of its flows in results: `python:MyCC`.
    pub fn label(&self) -> String {
        format!("python:{}", self.class)
    }
}

impl Algorithm for ExternalConfig {
    type Controller = Unbuilt;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.path.is_empty() || self.path.len() > MAX_PATH || self.path.contains('\0') {
            return Err(("path", format!("{:?} is not a file path (1 to {MAX_PATH} characters, no NUL)", shortened(&self.path))));
        }
        let mut chars = self.class.chars();
        let identifier = chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
            && chars.all(|c| c == '_' || c.is_alphanumeric())
            && self.class.len() <= 200;
        if !identifier {
            return Err(("class", format!("{:?} is not a Python class name", shortened(&self.class))));
        }
        Ok(())
    }

    fn build(&self) -> Unbuilt {
        Unbuilt { label: self.label() }
    }
}

fn shortened(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// What the config builds on its own: only its label (for tables made before a run).
/// The simulation never drives it — it asks the embedder for the real controller, and
/// refuses the scenario when there is none — so its hooks are unreachable.
#[derive(Clone, Debug)]
pub struct Unbuilt {
    label: String,
}

impl CongestionControl for Unbuilt {
    fn label(&self) -> String {
        self.label.clone()
    }
    fn on_ack(&mut self, _window: &mut Window, _ack: &AckSample) {
        unreachable!("a python controller is built by the front end, never by the core");
    }
    fn on_congestion(&mut self, _window: &Window, _event: &CongestionEvent) -> Reduction {
        unreachable!("a python controller is built by the front end, never by the core");
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::CcConfig;

    fn parse(json: &str) -> Result<CcConfig, String> {
        crate::schema::deserialize_with_path::<CcConfig, _>(serde_json::from_str::<serde_json::Value>(json).unwrap())
    }

    #[test]
    fn declarations_parse_and_bad_ones_name_the_field() {
        let config = parse(r#"{"algorithm": "python", "path": "mycc.py", "class": "MyCC", "params": {"beta": 0.7}}"#).unwrap();
        let CcConfig::External(external) = &config else { panic!("{config:?}") };
        assert_eq!((external.path.as_str(), external.class.as_str(), external.params["beta"].as_f64()), ("mycc.py", "MyCC", Some(0.7)));
        assert_eq!(config.label(), "python:MyCC");
        for (json, needle) in [
            (r#"{"algorithm": "python", "class": "A"}"#, "path"),
            (r#"{"algorithm": "python", "path": "", "class": "A"}"#, "path"),
            (r#"{"algorithm": "python", "path": "a.py", "class": "my cc"}"#, "class"),
            (r#"{"algorithm": "python", "path": "a.py", "class": "9lives"}"#, "class"),
            (r#"{"algorithm": "python", "path": "a.py", "class": "A", "param": {}}"#, "param"),
            (r#"{"algorithm": "python", "path": "a.py", "class": "A", "params": 3}"#, "params"),
        ] {
            let error = parse(json).expect_err(json);
            assert!(error.contains(needle), "{json}: {error}");
        }
    }
}
