//! cclab-core: a packet-level discrete-event simulator for TCP congestion-control
//! research. Pure Rust: no Python, no I/O, no wall clock, no OS entropy — the same
//! scenario and seed always give the same result, bit for bit.
pub mod app;
pub mod cc;
pub mod metrics;
pub mod net;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod simulation;
pub mod transport;

pub use metrics::RunResult;
pub use net::topology::TopologyDescription;
pub use scenario::{Scenario, ScenarioError};
pub use simulation::{run, run_with_controllers, run_with_limits, ControllerFactory, FlowInterval, Observed, RunLimits, Simulation, OBSERVE_EVERY};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
