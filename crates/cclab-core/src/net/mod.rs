//! Network elements: packets, links (whose rings carry them) with their queues and loss models,
//! topologies (a graph, or a preset that expands into one) and the built network.
pub mod delivery_trace;
pub mod emulator_loop;
pub mod link;
pub mod loss;
pub mod network;
pub mod packet;
pub mod qdisc;
pub mod rate_schedule;
pub mod topology;

pub use link::{Link, LinkStats};
pub use packet::Packet;

pub type LinkId = u32;
pub type RouteId = u32;
