//! Simulation substrate: integer time, the event queue and seeded RNG streams.
pub mod events;
pub mod rng;
pub mod units;

pub use events::{Event, EventQueue};
pub use units::{Duration, Rate, Time, NS_PER_SEC};
