//! Congestion control written in Python, behind the core's `CongestionControl` trait.
//!
//! The Python side (`cclab.cc`) turns each flow's `algorithm = "python"` declaration into
//! an object and says which hooks its class defines; this file only carries calls across:
//! the window as a reused mutable `Window`, each ACK as a reused `Ack`, a congestion
//! event as an `Event`, and back the window, the `(ssthresh, cwnd)` of a decrease, the
//! state and the pacing rate, each checked. A Python exception (or a value out of range)
//! ends the run: the controller records one line naming the file, line, method and flow,
//! and unwinds to the binding, which raises it as a `ScenarioError`.
use cclab_core::cc::{AckSample, CongestionControl, CongestionEvent, CongestionSignal, RateSample, Reduction, Window};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

const NS: f64 = 1e9;

/// The window an algorithm changes in place (segments).
#[pyclass(module = "cclab._core", name = "Window")]
pub struct PyWindow {
    #[pyo3(get, set)]
    cwnd: f64,
    #[pyo3(get, set)]
    ssthresh: f64,
}

#[pymethods]
impl PyWindow {
    fn __repr__(&self) -> String {
        format!("Window(cwnd={}, ssthresh={})", self.cwnd, self.ssthresh)
    }
}

/// What an ACK told the sender (`cclab-core`'s `AckSample`; times in seconds).
#[pyclass(module = "cclab._core", name = "Ack", get_all)]
#[derive(Default)]
pub struct PyAck {
    now_s: f64,
    segments_acked: u32,
    segments_sacked: u32,
    rtt_s: Option<f64>,
    ece: bool,
    delivered: u64,
    in_flight: u32,
    duplicate: bool,
    in_recovery: bool,
    srtt_s: Option<f64>,
}

impl PyAck {
    fn fill(&mut self, ack: &AckSample) {
        *self = PyAck {
            now_s: ack.now as f64 / NS,
            segments_acked: ack.segments_acked,
            segments_sacked: ack.segments_sacked,
            rtt_s: ack.rtt.map(|t| t as f64 / NS),
            ece: ack.ece,
            delivered: ack.delivered,
            in_flight: ack.in_flight,
            duplicate: ack.duplicate,
            in_recovery: ack.in_recovery,
            srtt_s: ack.srtt.map(|t| t / NS),
        };
    }
}

/// Why and when the window is cut (`signal`: "loss", "timeout" or "ecn").
#[pyclass(module = "cclab._core", name = "Event", get_all, frozen)]
pub struct PyEvent {
    now_s: f64,
    signal: &'static str,
    flight_size: u32,
    in_slow_start: bool,
    first_reduction: bool,
    integer_ssthresh: bool,
}

/// A delivery-rate sample (Linux `tcp_rate.c`; `rate` in segments/s, None if invalid).
#[pyclass(module = "cclab._core", name = "RateSample", get_all, frozen)]
pub struct PyRateSample {
    now_s: f64,
    delivered: u64,
    interval_s: f64,
    rate: Option<f64>,
    prior_delivered: u64,
    app_limited: bool,
    acked_sacked: u32,
    delivered_total: u64,
    in_flight: u32,
    rtt_s: Option<f64>,
}

/// Which optional hooks the class defines (the Python side decides: those it overrides).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hooks {
    pub on_ack_event: bool,
    pub on_recovery_end: bool,
    pub on_round: bool,
    pub on_rate_sample: bool,
    pub state: bool,
    pub pacing_rate: bool,
    pub set_seed: bool,
}

/// The first failure of any Python controller of a run (the run then unwinds).
pub type Failure = Arc<Mutex<Option<Failed>>>;

/// Why a Python controller ended its run.
pub enum Failed {
    /// An exception in a hook, or a value out of range: one line naming the place.
    Line(String),
    /// An exception that is not an error of the hook (`KeyboardInterrupt` from Ctrl-C
    /// while the hook ran): raised again as it is.
    Raise(PyErr),
}

pub struct PyController {
    object: Py<PyAny>,
    window: Py<PyWindow>,
    ack: Py<PyAck>,
    hooks: Hooks,
    wants_rate_samples: bool,
    controls_window: bool,
    paces: bool,
    label: String,
    class: String,
    flow: u32,
    failure: Failure,
}

/// Payload of the unwind that ends a run whose Python controller failed.
pub struct ControllerFailed;

impl PyController {
    pub fn new(py: Python<'_>, object: Py<PyAny>, hooks: Hooks, label: String, flow: u32, failure: Failure) -> PyResult<Self> {
        let bound = object.bind(py);
        let flag = |name: &str| -> PyResult<bool> { Ok(bound.hasattr(name)? && bound.getattr(name)?.is_truthy()?) };
        let class = bound.get_type().qualname()?.to_string();
        Ok(PyController {
            wants_rate_samples: flag("wants_rate_samples")?,
            controls_window: flag("controls_window")?,
            paces: flag("paces")?,
            window: Py::new(py, PyWindow { cwnd: 0.0, ssthresh: 0.0 })?,
            ack: Py::new(py, PyAck::default())?,
            object,
            hooks,
            label,
            class,
            flow,
            failure,
        })
    }

    /// Record `what` went wrong in `method` and end the run.
    fn fail(&self, py: Python<'_>, method: &str, what: String) -> ! {
        let line = format!("{what} (in {}.{method}, flow {})", self.class, self.flow);
        let _ = py;
        self.end(Failed::Line(line))
    }

    /// Record why the run ends, unless a failure was recorded first, and unwind.
    fn end(&self, failed: Failed) -> ! {
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(failed);
        drop(slot);
        std::panic::resume_unwind(Box::new(ControllerFailed));
    }

    /// Where in the Python code `error` was raised, and what it says, in one line.
    fn describe(py: Python<'_>, error: &PyErr) -> String {
        let kind = error.get_type_bound(py).qualname().map(|q| q.to_string()).unwrap_or_else(|_| "Exception".into());
        let message = error.value_bound(py).str().map(|s| s.to_string()).unwrap_or_default();
        let message = message.lines().next().unwrap_or("").to_string();
        let place = error
            .traceback_bound(py)
            .and_then(|tb| {
                let frames = py.import_bound("traceback").ok()?.call_method1("extract_tb", (tb,)).ok()?;
                let last = frames.get_item(-1).ok()?;
                Some(format!("{}:{}: ", last.getattr("filename").ok()?, last.getattr("lineno").ok()?))
            })
            .unwrap_or_default();
        format!("{place}{kind}: {message}")
    }

    fn call<'py>(&self, py: Python<'py>, method: &str, args: impl IntoPy<Py<PyTuple>>) -> Bound<'py, PyAny> {
        match self.object.bind(py).call_method1(method, args) {
            Ok(value) => value,
            // Ctrl-C while a hook runs surfaces in the hook: not the hook's error. (A hook
            // that calls sys.exit() is: it ends the run with its one line, as at import.)
            Err(error) if error.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) => self.end(Failed::Raise(error)),
            Err(error) => self.fail(py, method, Self::describe(py, &error)),
        }
    }

    /// Put the core's window into the shared `Window`.
    fn show(&self, py: Python<'_>, window: &Window) {
        let mut shown = self.window.borrow_mut(py);
        shown.cwnd = window.cwnd;
        shown.ssthresh = window.ssthresh;
    }

    /// Take the window back, checked.
    fn take(&self, py: Python<'_>, method: &str, window: &mut Window) {
        let shown = self.window.borrow(py);
        let (cwnd, ssthresh) = (shown.cwnd, shown.ssthresh);
        drop(shown);
        *window = self.checked(py, method, cwnd, ssthresh);
    }

    fn checked(&self, py: Python<'_>, method: &str, cwnd: f64, ssthresh: f64) -> Window {
        if !(cwnd.is_finite() && (1.0..=1e9).contains(&cwnd)) {
            self.fail(py, method, format!("cwnd {} is not a window in [1, 1e9] segments", cclab_core::schema::Num(cwnd)));
        }
        if !(ssthresh.is_finite() && ssthresh > 0.0) {
            self.fail(py, method, format!("ssthresh {} is not a positive number of segments", cclab_core::schema::Num(ssthresh)));
        }
        Window { cwnd, ssthresh }
    }

    /// Call `method(window, ack)` with the core's window and this ACK shown.
    fn call_with_ack(&self, py: Python<'_>, method: &str, window: &Window, ack: &AckSample) {
        self.show(py, window);
        self.ack.borrow_mut(py).fill(ack);
        self.call(py, method, (self.window.clone_ref(py), self.ack.clone_ref(py)));
    }
}

impl CongestionControl for PyController {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn on_ack_event(&mut self, window: &Window, ack: &AckSample) {
        if self.hooks.on_ack_event {
            Python::with_gil(|py| self.call_with_ack(py, "on_ack_event", window, ack));
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        Python::with_gil(|py| {
            self.call_with_ack(py, "on_ack", window, ack);
            self.take(py, "on_ack", window);
        });
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        Python::with_gil(|py| {
            self.show(py, window);
            let signal = match event.signal {
                CongestionSignal::FastRetransmit => "loss",
                CongestionSignal::Timeout => "timeout",
                CongestionSignal::EcnEcho => "ecn",
            };
            let shown = PyEvent {
                now_s: event.now as f64 / NS,
                signal,
                flight_size: event.flight_size,
                in_slow_start: event.in_slow_start,
                first_reduction: event.first_reduction,
                integer_ssthresh: event.integer_ssthresh,
            };
            let event = match Py::new(py, shown) {
                Ok(event) => event,
                Err(error) => self.fail(py, "on_congestion", Self::describe(py, &error)),
            };
            let returned = self.call(py, "on_congestion", (self.window.clone_ref(py), event));
            match returned.extract::<(f64, f64)>() {
                Ok((ssthresh, cwnd)) => {
                    let window = self.checked(py, "on_congestion", cwnd, ssthresh);
                    Reduction { ssthresh: window.ssthresh, cwnd: window.cwnd }
                }
                Err(_) => self.fail(py, "on_congestion", format!("returned {}, not (ssthresh, cwnd)", shortened(&returned))),
            }
        })
    }

    fn on_recovery_end(&mut self, window: &mut Window, now: cclab_core::sim::Time) {
        if self.hooks.on_recovery_end {
            Python::with_gil(|py| {
                self.show(py, window);
                self.call(py, "on_recovery_end", (self.window.clone_ref(py), now as f64 / NS));
                self.take(py, "on_recovery_end", window);
            });
        }
    }

    fn on_round(&mut self, window: &mut Window, now: cclab_core::sim::Time) {
        if self.hooks.on_round {
            Python::with_gil(|py| {
                self.show(py, window);
                self.call(py, "on_round", (self.window.clone_ref(py), now as f64 / NS));
                self.take(py, "on_round", window);
            });
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        if !self.hooks.state {
            return;
        }
        Python::with_gil(|py| {
            let state = self.call(py, "state", ());
            let Ok(state) = state.downcast::<PyDict>() else {
                self.fail(py, "state", format!("returned {}, not a dict of numbers", shortened(&state)));
            };
            for (name, value) in state.iter() {
                match (name.extract::<String>(), value.extract::<f64>()) {
                    (Ok(name), Ok(value)) => out.push((interned(name), value)),
                    _ => self.fail(py, "state", format!("{}: {} is not a name and a number", shortened(&name), shortened(&value))),
                }
            }
        })
    }

    fn wants_rate_samples(&self) -> bool {
        self.wants_rate_samples
    }

    fn on_rate_sample(&mut self, window: &mut Window, sample: &RateSample) {
        if !self.hooks.on_rate_sample {
            return;
        }
        Python::with_gil(|py| {
            self.show(py, window);
            let shown = PyRateSample {
                now_s: sample.now as f64 / NS,
                delivered: sample.delivered,
                interval_s: sample.interval as f64 / NS,
                rate: sample.rate(),
                prior_delivered: sample.prior_delivered,
                app_limited: sample.app_limited,
                acked_sacked: sample.acked_sacked,
                delivered_total: sample.delivered_total,
                in_flight: sample.in_flight,
                rtt_s: sample.rtt.map(|t| t as f64 / NS),
            };
            let sample = match Py::new(py, shown) {
                Ok(sample) => sample,
                Err(error) => self.fail(py, "on_rate_sample", Self::describe(py, &error)),
            };
            self.call(py, "on_rate_sample", (self.window.clone_ref(py), sample));
            self.take(py, "on_rate_sample", window);
        })
    }

    fn controls_window(&self) -> bool {
        self.controls_window
    }

    fn paces(&self) -> bool {
        self.paces
    }

    fn pacing_rate(&self) -> Option<f64> {
        if !self.hooks.pacing_rate {
            return None;
        }
        Python::with_gil(|py| {
            let rate = self.call(py, "pacing_rate", ());
            if rate.is_none() {
                return None;
            }
            match rate.extract::<f64>() {
                Ok(rate) if rate.is_finite() && rate > 0.0 => Some(rate),
                _ => self.fail(py, "pacing_rate", format!("returned {}, not a positive rate in segments/s or None", shortened(&rate))),
            }
        })
    }

    fn set_seed(&mut self, seed: u64) {
        if self.hooks.set_seed {
            Python::with_gil(|py| {
                self.call(py, "set_seed", (seed,));
            });
        }
    }
}

/// A value's repr, cut to 60 characters.
fn shortened(value: &Bound<'_, PyAny>) -> String {
    let text = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// State names live as long as the process (the trait's names are `&'static str`); each
/// distinct name is kept once, however many runs use it.
fn interned(name: String) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&known) = names.get(name.as_str()) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.insert(leaked);
    leaked
}
