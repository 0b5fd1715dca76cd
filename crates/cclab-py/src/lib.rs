//! Thin PyO3 binding: scenario JSON in, result JSON out. Scenario errors become
//! `cclab._core.ScenarioError` (a ValueError); a panic in the core (a bug) becomes
//! `cclab._core.InternalError` (a RuntimeError, so `except Exception` catches it), with
//! the panic's message and place on one line. All logic lives in cclab-core.
mod engines;
mod python_cc;

use cclab_core::cc::CongestionControl;
use cclab_core::{Observed, RunLimits, Scenario, ScenarioError as CoreError, Simulation, OBSERVE_EVERY};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(cclab._core, ScenarioError, PyValueError, "A scenario failed validation.");
create_exception!(cclab._core, InternalError, PyRuntimeError, "cclab hit a bug (a panic in its core).");

thread_local! {
    /// Where and why the last panic on this thread happened (the hook records it
    /// instead of printing a backtrace to stderr).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn to_py(err: CoreError) -> PyErr {
    // (Display keeps the line readable whatever the input echoed in it)
    ScenarioError::new_err(err.to_string())
}

/// Run `work`, turning a panic into an InternalError that says where it happened.
fn guarded<T>(work: impl FnOnce() -> Result<T, CoreError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(result) => result.map_err(to_py),
        Err(_) => {
            let what = LAST_PANIC.with(|last| last.borrow_mut().take()).unwrap_or_else(|| "unknown panic".into());
            Err(InternalError::new_err(format!("internal error (a bug in cclab; please report it with the scenario): {what}")))
        }
    }
}

/// Validate a scenario given as JSON; return it normalised (every default filled in).
#[pyfunction]
fn validate_json(scenario_json: &str) -> PyResult<String> {
    guarded(|| Scenario::from_json_str(scenario_json).map(|s| s.to_json()))
}

/// The warnings (legal but probably unintended settings) of a scenario given as JSON.
#[pyfunction]
fn warnings_json(scenario_json: &str) -> PyResult<Vec<String>> {
    guarded(|| Scenario::from_json_str(scenario_json).map(|s| s.warnings().iter().map(|w| cclab_core::schema::bounded(w)).collect()))
}

/// How often, in wall time, a run stops to check for Ctrl-C (Python's signal handlers)
/// and to report progress: often enough that an interruption is seen at once, rarely
/// enough that taking the GIL costs nothing measurable.
const WATCH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);
/// Progress is reported at most this often.
const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(200);

/// What a run does between slices of events ([`cclab_core::Simulation::run_observed`]):
/// every [`WATCH_INTERVAL`] of wall time it runs Python's pending signal handlers (so
/// Ctrl-C raises `KeyboardInterrupt` and stops the run) and calls `progress(simulated_s,
/// total_s)` if given. An exception from either stops the run and is raised.
struct Watch {
    progress: Option<PyObject>,
    last_check: std::time::Instant,
    last_progress: Option<std::time::Instant>,
    error: Option<PyErr>,
}

impl Watch {
    fn new(progress: Option<PyObject>) -> Watch {
        Watch { progress, last_check: std::time::Instant::now(), last_progress: None, error: None }
    }

    /// Whether it is time to look (cheap: a clock read per slice, no GIL).
    fn due(&mut self) -> bool {
        if self.last_check.elapsed() < WATCH_INTERVAL {
            return false;
        }
        self.last_check = std::time::Instant::now();
        true
    }

    /// Check for signals and report progress (with the GIL).
    fn look(&mut self, py: Python<'_>, now: u64, end: u64) -> Observed {
        if let Err(error) = py.check_signals() {
            self.error = Some(error);
            return Observed::Stop;
        }
        if let Some(progress) = &self.progress {
            if self.last_progress.map_or(true, |at| at.elapsed() >= PROGRESS_INTERVAL) {
                self.last_progress = Some(std::time::Instant::now());
                if let Err(error) = progress.call1(py, (now as f64 / 1e9, end as f64 / 1e9)) {
                    self.error = Some(error);
                    return Observed::Stop;
                }
            }
        }
        Observed::Continue
    }

    /// The run's result, or the exception that stopped it.
    fn finish(self, outcome: Option<cclab_core::RunResult>) -> PyResult<cclab_core::RunResult> {
        outcome.ok_or_else(|| self.error.unwrap_or_else(|| PyKeyboardInterrupt::new_err("the run was stopped")))
    }
}

/// Validate and run a scenario given as JSON; return the result as JSON. A run whose
/// estimated memory exceeds `max_memory_bytes` (default 8 GiB) is refused up front;
/// `memory_limit_name` is what the caller calls that limit (`--max-memory`, `max_memory`),
/// for the messages that say to raise it. `controllers(flow_id, config_json)` makes the
/// congestion control of each flow of an `algorithm = "python"` group: it returns
/// `(object, [names of the optional hooks the object's class defines])` (`cclab.cc` does
/// this); the run then holds the GIL.
/// `progress(simulated_s, total_s)`, if given, is called a few times a second while the
/// run goes on. Ctrl-C (SIGINT, or any signal whose Python handler raises) stops the run
/// within a fraction of a second: the handler's exception (`KeyboardInterrupt`) is raised.
#[pyfunction]
#[pyo3(signature = (scenario_json, max_memory_bytes=None, memory_limit_name=None, controllers=None, progress=None))]
fn run_json(
    py: Python<'_>,
    scenario_json: &str,
    max_memory_bytes: Option<u64>,
    memory_limit_name: Option<String>,
    controllers: Option<PyObject>,
    progress: Option<PyObject>,
) -> PyResult<String> {
    let scenario = guarded(|| Scenario::from_json_str(scenario_json))?;
    let normalized = scenario.to_json();
    let mut limits = RunLimits { memory_limit_name, ..RunLimits::default() };
    if let Some(bytes) = max_memory_bytes {
        limits.max_memory_bytes = bytes;
    }
    let started = std::time::Instant::now();
    let mut watch = Watch::new(progress);
    let result = match controllers {
        None => {
            let outcome = py.allow_threads(|| {
                guarded(|| {
                    let simulation = Simulation::with_limits(scenario, &limits)?;
                    simulation
                        .run_observed(OBSERVE_EVERY, &mut |now, end| {
                            if !watch.due() {
                                return Observed::Continue;
                            }
                            Python::with_gil(|py| watch.look(py, now, end))
                        })
                        .transpose()
                })
            })?;
            watch.finish(outcome)?
        }
        Some(make) => run_with_python(py, scenario, &limits, make.bind(py), watch)?,
    };
    let wall_time_s = started.elapsed().as_secs_f64();
    // The result's JSON object with two more keys, written straight to text (a Value
    // tree in between would cost several times the result's size in memory).
    let mut text = serde_json::to_string(&result).expect("result serialises");
    debug_assert!(text.ends_with('}'));
    text.pop();
    text.push_str(",\"scenario\":");
    text.push_str(&normalized);
    text.push_str(&format!(",\"wall_time_s\":{}}}", serde_json::Value::from(wall_time_s)));
    Ok(text)
}

/// Run with Python congestion controls made by `make` (see [`run_json`]). A Python
/// exception in a hook, or a value out of range, ends the run as a `ScenarioError`
/// naming the file, line, method and flow.
fn run_with_python(
    py: Python<'_>,
    scenario: Scenario,
    limits: &RunLimits,
    make: &Bound<'_, PyAny>,
    mut watch: Watch,
) -> PyResult<cclab_core::RunResult> {
    let failure = python_cc::Failure::default();
    let mut factory = |flow: u32, config: &cclab_core::cc::external::ExternalConfig| -> Result<Box<dyn CongestionControl + Send>, String> {
        let config_json = serde_json::to_string(config).expect("a config serialises");
        // Ctrl-C while the user's module loads or the controller is made stops the run
        // as it would anywhere else (the exception raised again, not an error line).
        let line = |error: PyErr| {
            if error.is_instance_of::<PyKeyboardInterrupt>(py) {
                failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(python_cc::Failed::Raise(error));
                return String::from("interrupted");
            }
            error.value_bound(py).str().map(|s| s.to_string()).unwrap_or_else(|_| error.to_string())
        };
        let made = make.call1((flow, config_json)).map_err(line)?;
        let (object, hooks): (PyObject, Vec<String>) =
            made.extract().map_err(|_| format!("flow {flow}: the controller factory returned {made}, not (object, [hook names])"))?;
        let has = |name: &str| hooks.iter().any(|h| h == name);
        let hooks = python_cc::Hooks {
            on_ack_event: has("on_ack_event"),
            on_recovery_end: has("on_recovery_end"),
            on_round: has("on_round"),
            on_rate_sample: has("on_rate_sample"),
            state: has("state"),
            pacing_rate: has("pacing_rate"),
            set_seed: has("set_seed"),
        };
        let controller = python_cc::PyController::new(py, object, hooks, config.label(), flow, failure.clone()).map_err(line)?;
        Ok(Box::new(controller))
    };
    let run = || {
        let simulation = Simulation::with_controllers(scenario, limits, Some(&mut factory))?;
        simulation.run_observed(OBSERVE_EVERY, &mut |now, end| if watch.due() { watch.look(py, now, end) } else { Observed::Continue }).transpose()
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(outcome)) => watch.finish(outcome),
        Ok(Err(error)) => match failure.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(python_cc::Failed::Raise(interrupt)) => Err(interrupt),
            _ => Err(to_py(error)),
        },
        Err(_) => match failure.lock().unwrap_or_else(|e| e.into_inner()).take() {
            // (the user's exception message may be of any length: the line is bounded)
            Some(python_cc::Failed::Line(line)) => Err(ScenarioError::new_err(cclab_core::schema::bounded(&line))),
            Some(python_cc::Failed::Raise(error)) => Err(error),
            None => {
                let what = LAST_PANIC.with(|last| last.borrow_mut().take()).unwrap_or_else(|| "unknown panic".into());
                Err(InternalError::new_err(format!("internal error (a bug in cclab; please report it with the scenario): {what}")))
            }
        },
    }
}

/// Validate a scenario given as JSON; return its topology expanded into nodes, link
/// directions (buffers resolved) and each flow's route, as JSON.
#[pyfunction]
fn topology_json(scenario_json: &str) -> PyResult<String> {
    guarded(|| {
        let scenario = Scenario::from_json_str(scenario_json)?;
        let graph = scenario.expand_topology()?;
        Ok(serde_json::to_string(&graph.describe()).expect("topology serialises"))
    })
}

/// Validate a scenario given as JSON; return when each of its flows runs, as the engine
/// draws it (schedules, staggered and random starts, stops): a JSON list of
/// `{"id", "group", "transport", "cc", "start_s", "stop_s"}` in flow order (`cc`: the
/// protocol's label in results, null for UDP).
#[pyfunction]
fn flow_windows_json(scenario_json: &str) -> PyResult<String> {
    guarded(|| {
        let scenario = Scenario::from_json_str(scenario_json)?;
        let seconds = |ns: u64| ns as f64 / 1e9;
        let windows: Vec<serde_json::Value> = scenario
            .flow_windows()
            .iter()
            .enumerate()
            .map(|(id, plan)| {
                let group = &scenario.flows[plan.group];
                serde_json::json!({
                    "id": id,
                    "group": scenario.group_name(plan.group),
                    "transport": group.transport.name(),
                    "cc": group.label(),
                    "start_s": seconds(plan.start),
                    "stop_s": plan.stop.map(seconds),
                })
            })
            .collect();
        Ok(serde_json::Value::from(windows).to_string())
    })
}

/// Validate a scenario given as JSON; return, for each link direction in topology
/// order, the outages its handoff loss model will make before the end of the run, as
/// `[[start_s, end_s], ...]` (null for directions without one).
#[pyfunction]
fn loss_outages_json(scenario_json: &str) -> PyResult<String> {
    guarded(|| {
        let scenario = Scenario::from_json_str(scenario_json)?;
        let graph = scenario.expand_topology()?;
        let horizon = scenario.duration.ns();
        let seconds = |ns: u64| ns as f64 / 1e9;
        let outages: Vec<serde_json::Value> = (0..graph.links.len())
            .map(|id| match cclab_core::net::network::link_loss_model(&graph, scenario.seed, id as u32) {
                Some(model @ cclab_core::net::loss::LossModel::Handoff { .. }) => serde_json::Value::from(
                    model.outages(horizon).into_iter().map(|(a, b)| vec![seconds(a), seconds(b)]).collect::<Vec<_>>(),
                ),
                _ => serde_json::Value::Null,
            })
            .collect();
        Ok(serde_json::Value::from(outages).to_string())
    })
}

/// A value of a scenario's duration field (`"25ms"`, or a number of seconds), given as
/// JSON, in seconds: the engine's own rules and limits.
#[pyfunction]
fn parse_duration(value_json: &str) -> PyResult<f64> {
    guarded(|| parse_field::<cclab_core::sim::Duration>(value_json).map(|d| d.secs_f64()))
}

/// A value of a scenario's rate field (`"10Mbps"`, or bits per second), given as JSON, in
/// bits per second.
#[pyfunction]
fn parse_rate(value_json: &str) -> PyResult<u64> {
    guarded(|| parse_field::<cclab_core::sim::Rate>(value_json).map(|r| r.bps()))
}

/// A size (`"1000B"`, `"8GB"`, `"512MiB"`), given as JSON, in bytes: the engine's units
/// for every byte count of a scenario, and for the memory limit.
#[pyfunction]
fn parse_size(value_json: &str) -> PyResult<u64> {
    guarded(|| parse_field::<SizeField>(value_json).map(|size| size.0))
}

/// Check a flow-size distribution given as JSON (`{"kind": "cdf", "points": [...]}`)
/// by the engine's rules, so that a front end reading one from a file can name the
/// file's line for an error at `points[k]`.
#[pyfunction]
fn check_flow_sizes(sizes_json: &str) -> PyResult<()> {
    guarded(|| parse_field::<cclab_core::app::arrivals::SizeDistribution>(sizes_json).map(|_| ()))
}

/// The delivery opportunities of a Mahimahi trace's text, as (millisecond, count)
/// pairs, by the engine's reading of mm-link's format; an error names the line.
#[pyfunction]
fn mahimahi_opportunities(text: &str) -> PyResult<Vec<(u64, u32)>> {
    cclab_core::net::delivery_trace::parse_mahimahi(text).map_err(ScenarioError::new_err)
}

/// The delivery opportunities that carry a `time_s, rate_mbps` log's text, as
/// (millisecond, count) pairs; an error names the line.
#[pyfunction]
fn rate_log_opportunities(text: &str) -> PyResult<Vec<(u64, u32)>> {
    cclab_core::net::delivery_trace::opportunities_of_rate_log(text).map_err(ScenarioError::new_err)
}

/// A byte count as a scenario's size fields read it (a bare number refused but 0).
#[derive(serde::Deserialize)]
struct SizeField(#[serde(with = "cclab_core::sim::units::bytes")] u64);

/// The engine's schedule rule: for `[[time, number], ...]` (JSON), when each flow runs,
/// as (start_s, stop_s or None).
#[pyfunction]
fn schedule_windows(schedule_json: &str) -> PyResult<Vec<(f64, Option<f64>)>> {
    guarded(|| {
        let steps: Vec<(cclab_core::sim::Duration, u32)> = parse_field(schedule_json)?;
        let windows = cclab_core::scenario::schedule_windows(&steps);
        Ok(windows.iter().map(|w| (w.start.secs_f64(), w.stop.map(|t| t.secs_f64()))).collect())
    })
}

/// Jain's fairness index, as the engine computes it (NaN for an empty or all-zero set).
#[pyfunction]
fn jain_index(values: Vec<f64>) -> f64 {
    cclab_core::metrics::jain_index(&values)
}

fn parse_field<T: serde::de::DeserializeOwned>(value_json: &str) -> Result<T, CoreError> {
    let value: serde_json::Value = serde_json::from_str(value_json).map_err(|e| CoreError(e.to_string()))?;
    cclab_core::schema::from_value(&value).map_err(CoreError)
}

#[pyfunction]
fn version() -> &'static str {
    cclab_core::VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Record panics for `guarded` instead of printing them (one line reaches the user).
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let line = format!("{}{place}", message.lines().next().unwrap_or(""));
        LAST_PANIC.with(|last| *last.borrow_mut() = Some(line));
    }));
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type_bound::<InternalError>())?;
    m.add_class::<engines::Engines>()?;
    m.add_class::<python_cc::PyWindow>()?;
    m.add_class::<python_cc::PyAck>()?;
    m.add_class::<python_cc::PyEvent>()?;
    m.add_class::<python_cc::PyRateSample>()?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(warnings_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(topology_json, m)?)?;
    m.add_function(wrap_pyfunction!(flow_windows_json, m)?)?;
    m.add_function(wrap_pyfunction!(loss_outages_json, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    for function in [
        wrap_pyfunction!(parse_duration, m)?,
        wrap_pyfunction!(parse_rate, m)?,
        wrap_pyfunction!(parse_size, m)?,
        wrap_pyfunction!(check_flow_sizes, m)?,
        wrap_pyfunction!(mahimahi_opportunities, m)?,
        wrap_pyfunction!(rate_log_opportunities, m)?,
        wrap_pyfunction!(schedule_windows, m)?,
        wrap_pyfunction!(jain_index, m)?,
    ] {
        m.add_function(function)?;
    }
    Ok(())
}
