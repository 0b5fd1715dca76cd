//! Thin PyO3 binding: scenario JSON in, result JSON out, scenario errors become
//! `cclab._core.ScenarioError` (a ValueError). All logic lives in cclab-core.
use cclab_core::{Scenario, ScenarioError as CoreError};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(cclab._core, ScenarioError, PyValueError, "A scenario failed validation.");

fn to_py(err: CoreError) -> PyErr {
    ScenarioError::new_err(err.0)
}

/// Validate a scenario given as JSON; return it normalised (every default filled in).
#[pyfunction]
fn validate_json(scenario_json: &str) -> PyResult<String> {
    Scenario::from_json_str(scenario_json).map(|s| s.to_json()).map_err(to_py)
}

/// Validate and run a scenario given as JSON; return the result as JSON.
#[pyfunction]
fn run_json(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let scenario = Scenario::from_json_str(scenario_json).map_err(to_py)?;
    let normalized: serde_json::Value = serde_json::from_str(&scenario.to_json()).expect("valid JSON");
    let started = std::time::Instant::now();
    let result = py.allow_threads(|| cclab_core::run(scenario)).map_err(to_py)?;
    let wall_time_s = started.elapsed().as_secs_f64();
    let mut doc = serde_json::to_value(&result).expect("result serialises");
    let object = doc.as_object_mut().expect("result is an object");
    object.insert("scenario".into(), normalized);
    object.insert("wall_time_s".into(), wall_time_s.into());
    Ok(serde_json::to_string(&doc).expect("result serialises"))
}

/// Validate a scenario given as JSON; return its topology expanded into nodes, link
/// directions (buffers resolved) and each flow's route, as JSON.
#[pyfunction]
fn topology_json(scenario_json: &str) -> PyResult<String> {
    let scenario = Scenario::from_json_str(scenario_json).map_err(to_py)?;
    let graph = scenario.expand_topology().map_err(to_py)?;
    Ok(serde_json::to_string(&graph.describe()).expect("topology serialises"))
}

#[pyfunction]
fn version() -> &'static str {
    cclab_core::VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(topology_json, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
