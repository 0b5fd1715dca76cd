//! Network elements: packets in an arena, links with their queues and loss models, and
//! topology builders that wire links into routes.
pub mod link;
pub mod loss;
pub mod packet;
pub mod red;
pub mod topology;

pub use link::{Link, LinkStats};
pub use packet::{Packet, PacketArena, PacketId};

pub type LinkId = u32;
pub type RouteId = u32;
