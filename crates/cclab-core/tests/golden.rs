//! Golden outputs: every scenario in `tests/golden/*.toml` must reproduce the result
//! recorded next to it (`NAME.json`), bit for bit. The recorded documents pin the
//! engine's behaviour across redesigns; fields added later are allowed (the recorded
//! document must be contained in the new one), changed values are not. `events` (an
//! engine implementation detail, not a result) and `version` are not compared.
//!
//! To record a new scenario (never to paper over a changed result):
//! `CCLAB_BLESS=1 cargo test --release --test golden`, then review the new files.
use serde_json::Value;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

fn result_document(scenario: &Path) -> Value {
    let text = std::fs::read_to_string(scenario).unwrap();
    let scenario = cclab_core::Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{}: {e}", scenario.display()));
    let mut doc = serde_json::to_value(cclab_core::run(scenario).unwrap()).unwrap();
    let object = doc.as_object_mut().unwrap();
    object.remove("events");
    object.remove("version");
    doc
}

/// The first place where `recorded` is not contained in `actual`, as a path.
fn first_difference(path: &str, recorded: &Value, actual: &Value) -> Option<String> {
    match (recorded, actual) {
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(key, value)| match b.get(key) {
            Some(other) => first_difference(&format!("{path}.{key}"), value, other),
            None => Some(format!("{path}.{key}: missing")),
        }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(i, (x, y))| first_difference(&format!("{path}[{i}]"), x, y))
        }
        (Value::Array(a), Value::Array(b)) => Some(format!("{path}: {} items, recorded {}", b.len(), a.len())),
        _ if recorded == actual => None,
        _ => Some(format!("{path}: {actual} (recorded {recorded})")),
    }
}

#[test]
fn results_match_the_recorded_ones() {
    let bless = std::env::var_os("CCLAB_BLESS").is_some();
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 6, "golden scenarios missing: {scenarios:?}");
    let mut failures = Vec::new();
    for scenario in &scenarios {
        let recorded_path = scenario.with_extension("json");
        let actual = result_document(scenario);
        if bless && !recorded_path.exists() {
            std::fs::write(&recorded_path, serde_json::to_string(&actual).unwrap() + "\n").unwrap();
            continue;
        }
        let text = std::fs::read_to_string(&recorded_path)
            .unwrap_or_else(|_| panic!("{} has no recorded result; see the module docs", scenario.display()));
        let recorded: Value = serde_json::from_str(&text).unwrap();
        if let Some(difference) = first_difference("", &recorded, &actual) {
            failures.push(format!("{}: {difference}", scenario.file_name().unwrap().to_string_lossy()));
        }
    }
    assert!(failures.is_empty(), "results changed:\n{}", failures.join("\n"));
}

#[test]
fn containment_check_catches_changes() {
    let recorded: Value = serde_json::json!({"a": [1.0, {"b": 2}], "c": "x"});
    let grown: Value = serde_json::json!({"a": [1.0, {"b": 2, "new": 3}], "c": "x", "d": null});
    assert_eq!(first_difference("", &recorded, &grown), None);
    let changed: Value = serde_json::json!({"a": [1.0, {"b": 2.0000001}], "c": "x"});
    assert_eq!(first_difference("", &recorded, &changed).unwrap(), ".a[1].b: 2.0000001 (recorded 2)");
    let shorter: Value = serde_json::json!({"a": [1.0], "c": "x"});
    assert!(first_difference("", &recorded, &shorter).is_some());
}
