//! Packets live in one arena and are addressed by 32-bit ids; freed slots are reused,
//! so the hot path allocates nothing once the arena has grown to the peak population.
use super::RouteId;
use crate::transport::{AckInfo, Seq};

pub type PacketId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    #[default]
    Data,
    Syn,
    Ack,
}

/// ECN bits (RFC 3168) carried by a packet.
pub mod ecn {
    pub const ECT: u8 = 1;
    pub const CE: u8 = 2;
    pub const ECE: u8 = 4;
    pub const CWR: u8 = 8;
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    pub flow: u32,
    pub kind: PacketKind,
    /// Data/SYN: the segment number. ACK: unused (see `ack`).
    pub seq: Seq,
    /// Bytes on the wire.
    pub size: u32,
    /// The route this packet follows (source routing) and its position on it.
    pub route: RouteId,
    pub hop: u16,
    pub ecn: u8,
    pub ack: AckInfo,
}

#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketArena {
    pub fn alloc(&mut self, packet: Packet) -> PacketId {
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
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
