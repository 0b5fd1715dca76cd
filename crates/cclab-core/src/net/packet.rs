//! A packet as the network moves it: by value, from link ring to link ring (see
//! `link`), by its route, size and ECN bits only; what it carries for its endpoints is a
//! header type `H` it never reads, and a small class `C` (the endpoints' classification,
//! kept apart from the header so counting needs no look inside it).
use super::RouteId;

/// ECN bits (RFC 3168) of the IP header; TCP's own ECE and CWR flags are in its header.
pub mod ecn {
    /// ECN-capable transport: RED may mark the packet instead of dropping it.
    pub const ECT: u8 = 1;
    /// Congestion experienced: set by a marking queue.
    pub const CE: u8 = 2;
    /// With ECT: the L4S identifier, ECT(1) rather than ECT(0) (RFC 9331); DualPI2's L
    /// queue takes these packets (and CE ones).
    pub const ECT1: u8 = 4;
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet<H, C> {
    /// The endpoint this packet is for.
    pub destination: u32,
    /// Bytes on the wire.
    pub size: u32,
    /// The route this packet follows (source routing) and its position on it.
    pub route: RouteId,
    pub hop: u16,
    pub ecn: u8,
    pub class: C,
    pub header: H,
}

/// The network's packet as a queue discipline sees it: FQ-CoDel's flow is the packet's
/// destination endpoint (one per flow and direction).
impl<H: Copy, C: Copy> super::qdisc::QueueItem for Packet<H, C> {
    #[inline]
    fn bytes(&self) -> u32 {
        self.size
    }
    #[inline]
    fn flow_key(&self) -> u32 {
        self.destination
    }
    #[inline]
    fn ect(&self) -> bool {
        self.ecn & ecn::ECT != 0
    }
    #[inline]
    fn mark_ce(&mut self) {
        self.ecn |= ecn::CE;
    }
    #[inline]
    fn l4s(&self) -> bool {
        self.ecn & (ecn::ECT1 | ecn::CE) != 0
    }
}
