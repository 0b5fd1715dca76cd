//! Packets live in one arena and are addressed by 32-bit ids; freed slots are reused
//! (last freed, first reused), so the hot path allocates nothing once the arena has
//! grown to the peak population. The network moves a packet by its route, size and ECN
//! bits only; what it carries for its endpoints is a header type `H` it never reads,
//! and a small class `C` (the endpoints' classification, kept apart from the header so
//! counting needs no look inside it).
use super::RouteId;

pub type PacketId = u32;

/// ECN bits (RFC 3168) of the IP header; TCP's own ECE and CWR flags are in its header.
pub mod ecn {
    /// ECN-capable transport: RED may mark the packet instead of dropping it.
    pub const ECT: u8 = 1;
    /// Congestion experienced: set by a marking queue.
    pub const CE: u8 = 2;
}

#[derive(Clone, Copy, Debug)]
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

pub struct PacketArena<H, C> {
    slots: Vec<Packet<H, C>>,
    free: Vec<PacketId>,
}

impl<H, C> Default for PacketArena<H, C> {
    fn default() -> Self {
        PacketArena { slots: Vec::new(), free: Vec::new() }
    }
}

impl<H, C> PacketArena<H, C> {
    pub fn alloc(&mut self, packet: Packet<H, C>) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = packet;
                id
            }
            None => {
                self.slots.push(packet);
                (self.slots.len() - 1) as PacketId
            }
        }
    }
    pub fn free(&mut self, id: PacketId) {
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet<H, C> {
        &self.slots[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet<H, C> {
        &mut self.slots[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(destination: u32) -> Packet<(), ()> {
        Packet { destination, size: 1000, route: 0, hop: 0, ecn: 0, class: (), header: () }
    }

    /// Freed slots are reused, last freed first, so the arena stays at the peak population.
    #[test]
    fn freed_slots_are_reused_last_freed_first() {
        let mut arena = PacketArena::default();
        let ids: Vec<PacketId> = (0..4).map(|d| arena.alloc(packet(d))).collect();
        assert_eq!(ids, vec![0, 1, 2, 3]);
        arena.free(1);
        arena.free(3);
        assert_eq!(arena.alloc(packet(7)), 3);
        assert_eq!(arena.alloc(packet(8)), 1);
        assert_eq!(arena.alloc(packet(9)), 4); // nothing free: the arena grows
        assert_eq!((arena.get(1).destination, arena.get(3).destination, arena.get(0).destination), (8, 7, 0));
        arena.get_mut(0).hop = 3;
        assert_eq!(arena.get(0).hop, 3);
    }
}
