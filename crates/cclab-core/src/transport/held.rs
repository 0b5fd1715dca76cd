//! A TCP receiver's out-of-order segments: sorted, disjoint [start, end) ranges of
//! sequence numbers, the raw material of its SACK blocks (RFC 2018). Shared by the
//! receiver of the rfc and ns2 profiles and Linux's (`transport/linux/receiver.rs`).
use crate::transport::{SackBlock, Seq};

/// Hold out-of-order segment `seq` in `held` (sorted disjoint [start, end) ranges),
/// merging ranges that come to touch; false if it was held already (a duplicate).
pub fn hold(held: &mut Vec<SackBlock>, seq: Seq) -> bool {
    // First range that ends at or after seq: it holds seq, touches it, or lies above.
    let i = held.partition_point(|&(_, end)| end < seq);
    match held.get(i).copied() {
        Some((start, end)) if start <= seq && seq < end => return false,
        Some((_, end)) if end == seq => held[i].1 = seq + 1,
        _ => held.insert(i, (seq, seq + 1)),
    }
    if i + 1 < held.len() && held[i].1 == held[i + 1].0 {
        held[i].1 = held[i + 1].1;
        held.remove(i + 1);
    }
    true
}
