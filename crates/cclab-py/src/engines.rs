//! Many simulations stepped together, for a (vector) environment: `Engines(n)` holds n
//! slots; `reset(i, scenario_json)` puts a fresh simulation of a scenario in slot i;
//! `step(actions, durations_s)` sets every agent flow's decision, runs every slot's event
//! loop for its monitor interval (in Rust, without the GIL and with no call into Python
//! per ACK), and returns each agent flow's interval as packed float64s in the order of
//! `FIELDS`. All logic is cclab-core's (`Simulation::for_stepping`, `run_until`, `act`,
//! `monitor`).
use crate::{guarded, ScenarioError};
use cclab_core::{FlowInterval, RunLimits, Scenario, Simulation};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Each agent flow's interval: these floats, in this order (times in seconds, rates in
/// bits per second on the wire, counts of segments).
const FIELDS: [&str; 21] = [
    "start_s",
    "end_s",
    "sent",
    "retransmitted",
    "delivered",
    "received",
    "acks",
    "ece_acks",
    "rtt_samples",
    "rtt_min_s",
    "rtt_mean_s",
    "rtt_latest_s",
    "fast_recoveries",
    "timeouts",
    "ecn_reductions",
    "cwnd",
    "ssthresh",
    "in_flight",
    "outstanding",
    "srtt_s",
    "pacing_rate_bps",
];

fn row(i: &FlowInterval) -> [f64; FIELDS.len()] {
    let s = |ns: f64| ns / 1e9;
    [
        s(i.start as f64),
        s(i.end as f64),
        i.sent as f64,
        i.retransmitted as f64,
        i.delivered as f64,
        i.received as f64,
        i.acks as f64,
        i.ece_acks as f64,
        i.rtt_samples as f64,
        s(i.rtt_min),
        s(i.rtt_mean),
        s(i.rtt_latest),
        i.fast_recoveries as f64,
        i.timeouts as f64,
        i.ecn_reductions as f64,
        i.cwnd,
        i.ssthresh.min(1e9),
        i.in_flight as f64,
        i.outstanding as f64,
        s(i.srtt),
        i.pacing_rate,
    ]
}

struct Slot {
    sim: Simulation,
    agents: Vec<u32>,
}

/// Simulations an environment steps (see the module docs).
#[pyclass(module = "cclab._core", name = "Engines")]
pub struct Engines {
    slots: Vec<Option<Slot>>,
}

#[pymethods]
impl Engines {
    #[new]
    fn new(count: usize) -> PyResult<Engines> {
        if count == 0 || count > 1 << 16 {
            return Err(PyValueError::new_err(format!("count: {count} is not a number of simulations from 1 to 65536")));
        }
        Ok(Engines { slots: (0..count).map(|_| None).collect() })
    }

    /// The names of the floats of each agent flow's interval, in order.
    #[classattr]
    #[pyo3(name = "FIELDS")]
    fn fields() -> Vec<&'static str> {
        FIELDS.to_vec()
    }

    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// A fresh simulation of `scenario_json` in slot `index`: returns its agent flows
    /// (ids as in results), its duration in seconds and a data segment's payload and
    /// on-the-wire bytes. A bad scenario is a `ScenarioError`, one line.
    #[pyo3(signature = (index, scenario_json, max_memory_bytes=None))]
    fn reset(&mut self, py: Python<'_>, index: usize, scenario_json: &str, max_memory_bytes: Option<u64>) -> PyResult<(Vec<u32>, f64, u32, u32)> {
        let count = self.slots.len();
        let slot = self.slots.get_mut(index).ok_or_else(|| PyIndexError::new_err(format!("index: {index} is not a slot (0..{count})")))?;
        *slot = None;
        let mut limits = RunLimits { memory_limit_name: Some("max_memory".into()), ..RunLimits::default() };
        if let Some(bytes) = max_memory_bytes {
            limits.max_memory_bytes = bytes;
        }
        let sim = py.allow_threads(|| guarded(|| Simulation::for_stepping(Scenario::from_json_str(scenario_json)?, &limits)))?;
        let agents = sim.agent_flows().to_vec();
        if agents.is_empty() {
            return Err(ScenarioError::new_err("flows: no group has cc = { algorithm = \"agent\", ... }: there is no flow to step"));
        }
        let (payload, wire) = sim.segment_bytes();
        let horizon_s = sim.horizon() as f64 / 1e9;
        *slot = Some(Slot { sim, agents: agents.clone() });
        Ok((agents, horizon_s, payload, wire))
    }

    /// One step of every slot whose duration is positive: set each of its agent flows'
    /// decision (`actions`, one per agent flow of each slot in slot order, flows in
    /// order; NaN leaves a decision as it is), run its events for `durations_s[slot]`
    /// seconds (at most to its end) and read each agent flow's interval. Returns the
    /// intervals as packed float64s, `FIELDS` per agent flow, in the order of `actions`
    /// (NaN for slots not stepped). A bad action is a ValueError naming the slot and flow.
    fn step<'py>(&mut self, py: Python<'py>, actions: Vec<f64>, durations_s: Vec<f64>) -> PyResult<Bound<'py, PyBytes>> {
        if durations_s.len() != self.slots.len() {
            return Err(PyValueError::new_err(format!("durations_s: {} values for {} simulations", durations_s.len(), self.slots.len())));
        }
        let mut wanted = 0;
        for (k, slot) in self.slots.iter().enumerate() {
            match slot {
                Some(slot) => wanted += slot.agents.len(),
                None => return Err(PyValueError::new_err(format!("simulation {k} has not been reset"))),
            }
        }
        if actions.len() != wanted {
            return Err(PyValueError::new_err(format!("actions: {} values for {wanted} agent flows", actions.len())));
        }
        for (k, &d) in durations_s.iter().enumerate() {
            if !(d.is_finite() && d >= 0.0 && d <= 1e6) {
                return Err(PyValueError::new_err(format!("durations_s[{k}]: {d} is not a duration in seconds in [0, 1e6]")));
            }
        }
        if let Some(k) = actions.iter().position(|a| a.is_infinite()) {
            return Err(PyValueError::new_err(format!("actions[{k}]: {} is not a finite number", actions[k])));
        }
        let slots = &mut self.slots;
        let out = py.allow_threads(|| {
            guarded_step(|| {
                let mut out = Vec::with_capacity(wanted * FIELDS.len());
                let mut next = 0;
                for (k, (slot, &d)) in slots.iter_mut().zip(&durations_s).enumerate() {
                    let slot = slot.as_mut().expect("checked above");
                    let n = slot.agents.len();
                    let acts = &actions[next..next + n];
                    next += n;
                    if d <= 0.0 {
                        out.extend(std::iter::repeat(f64::NAN).take(n * FIELDS.len()));
                        continue;
                    }
                    let sim = &mut slot.sim;
                    if sim.clock() < sim.horizon() {
                        for (&flow, &value) in slot.agents.iter().zip(acts) {
                            if !value.is_nan() {
                                sim.act(flow, value).map_err(|e| format!("simulation {k}: {e}"))?;
                            }
                        }
                    }
                    let until = sim.clock().saturating_add((d * 1e9).round() as u64);
                    sim.run_until(until);
                    for &flow in &slot.agents {
                        let interval = sim.monitor(flow).map_err(|e| format!("simulation {k}: {e}"))?;
                        out.extend_from_slice(&row(&interval));
                    }
                }
                Ok(out)
            })
        })?;
        let bytes: Vec<u8> = out.iter().flat_map(|v| v.to_le_bytes()).collect();
        Ok(PyBytes::new_bound(py, &bytes))
    }

    /// Slot `index`'s simulated time, seconds.
    fn clock_s(&self, index: usize) -> PyResult<f64> {
        Ok(self.slot(index)?.sim.clock() as f64 / 1e9)
    }

    /// Run what is left of slot `index`'s simulation and return its results as JSON
    /// (the slot is empty afterwards).
    fn finish(&mut self, py: Python<'_>, index: usize) -> PyResult<String> {
        self.slot(index)?;
        let slot = self.slots[index].take().expect("checked");
        let normalized = slot.sim.scenario().to_json();
        let result = py.allow_threads(|| guarded(|| slot.sim.finish_stepped()))?;
        let mut text = serde_json::to_string(&result).expect("result serialises");
        text.pop();
        text.push_str(",\"scenario\":");
        text.push_str(&normalized);
        text.push('}');
        Ok(text)
    }
}

impl Engines {
    fn slot(&self, index: usize) -> PyResult<&Slot> {
        match self.slots.get(index) {
            Some(Some(slot)) => Ok(slot),
            Some(None) => Err(PyValueError::new_err(format!("simulation {index} has not been reset"))),
            None => Err(PyIndexError::new_err(format!("index: {index} is not a slot (0..{})", self.slots.len()))),
        }
    }
}

/// Run `work`; an error it returns is a ValueError, a panic an InternalError.
fn guarded_step<T>(work: impl FnOnce() -> Result<T, String>) -> PyResult<T> {
    match guarded(|| Ok(work())) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(line)) => Err(PyValueError::new_err(line)),
        Err(error) => Err(error),
    }
}
