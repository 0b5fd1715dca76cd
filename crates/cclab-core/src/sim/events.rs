//! The event queue: a binary heap keyed by (time, insertion order), so events at the
//! same instant run in the order they were scheduled and every run is reproducible.
//! Entries are packed into one u128 to keep the heap — the engine's hottest
//! structure — small and its comparisons single instructions.
use super::Time;

/// What happens when an event fires. Ids index the simulation's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet at the head of this link direction reaches the far end.
    LinkArrival(u32),
    /// This endpoint's timer may be due (its start, a retransmission, a delayed ACK,
    /// the next datagram of a UDP source...): the endpoint's own deadline decides.
    Timer(u32),
}

const ID_BITS: u32 = 23;
const KIND_BITS: u32 = 1;
const EVENT_BITS: u32 = ID_BITS + KIND_BITS;
/// Largest id an event can carry (link directions, endpoints).
pub const MAX_EVENT_ID: u32 = (1 << ID_BITS) - 1;

impl Event {
    fn encode(self) -> u64 {
        let (kind, id) = match self {
            Event::LinkArrival(id) => (0, id),
            Event::Timer(id) => (1, id),
        };
        debug_assert!(id <= MAX_EVENT_ID);
        (kind << ID_BITS | id as u64) & ((1 << EVENT_BITS) - 1)
    }
    fn decode(code: u64) -> Event {
        let id = (code & MAX_EVENT_ID as u64) as u32;
        match (code >> ID_BITS) & ((1 << KIND_BITS) - 1) {
            0 => Event::LinkArrival(id),
            _ => Event::Timer(id),
        }
    }
}

/// The pending events, in two 4-ary min-heaps of packed u128 keys:
/// (time << 64) | (insertion << 24) | event. One u128 comparison orders by time, then
/// insertion, and the next event is the lesser of the two roots, so events run in the
/// order one heap of them all would give. Link arrivals and timers are kept apart
/// because they differ in kind: links with packets in flight carry almost every event,
/// while every endpoint keeps a timer that rarely fires (a retransmission deadline).
/// With one heap, ten thousand flows' timers would make every link event sift through
/// ten thousand entries.
///
/// The event being handled stays at its heap's root until the handler's first
/// `schedule` into that heap, which overwrites it and sifts down once (most handlers
/// schedule exactly one follow-up: a link's next arrival).
#[derive(Default)]
pub struct EventQueue {
    /// Indexed by the event's kind bit: link arrivals, timers.
    heaps: [Heap; 2],
    /// The heap whose root is the event being handled (and may be overwritten).
    consumed: Option<usize>,
    inserted: u64,
    popped: u64,
}

impl EventQueue {
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) {
        let code = event.encode();
        // 40 bits of insertion order: 10^12 events before the tie-break could wrap.
        let key = (at as u128) << 64 | (self.inserted << EVENT_BITS | code) as u128;
        self.inserted += 1;
        let kind = (code >> ID_BITS) as usize;
        let heap = &mut self.heaps[kind];
        if self.consumed == Some(kind) {
            self.consumed = None;
            heap.replace_root(key);
        } else {
            heap.push(key);
        }
    }

    /// The next event if it is due at or before `horizon`.
    #[inline]
    pub fn pop_until(&mut self, horizon: Time) -> Option<(Time, Event)> {
        if let Some(kind) = self.consumed.take() {
            self.heaps[kind].pop_root();
        }
        let (kind, key) = match (self.heaps[0].root(), self.heaps[1].root()) {
            (Some(links), Some(timers)) => {
                if links < timers {
                    (0, links)
                } else {
                    (1, timers)
                }
            }
            (Some(links), None) => (0, links),
            (None, Some(timers)) => (1, timers),
            (None, None) => return None,
        };
        let at = (key >> 64) as Time;
        if at > horizon {
            return None;
        }
        self.consumed = Some(kind);
        self.popped += 1;
        Some((at, Event::decode(key as u64)))
    }

    /// Events executed so far.
    pub fn executed(&self) -> u64 {
        self.popped
    }
    pub fn pending(&self) -> usize {
        self.heaps[0].len() + self.heaps[1].len() - self.consumed.is_some() as usize
    }
}

/// A 4-ary min-heap of u128 keys.
#[derive(Default)]
struct Heap {
    keys: Vec<u128>,
}

const ARITY: usize = 4;

impl Heap {
    #[inline]
    fn root(&self) -> Option<u128> {
        self.keys.first().copied()
    }
    fn len(&self) -> usize {
        self.keys.len()
    }
    #[inline]
    fn push(&mut self, key: u128) {
        self.keys.push(key);
        self.sift_up(self.keys.len() - 1);
    }
    #[inline]
    fn replace_root(&mut self, key: u128) {
        self.keys[0] = key;
        self.sift_down(0);
    }
    #[inline]
    fn pop_root(&mut self) {
        let last = self.keys.pop().expect("a consumed root is in its heap");
        if !self.keys.is_empty() {
            self.replace_root(last);
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let key = self.keys[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.keys[parent] <= key {
                break;
            }
            self.keys[i] = self.keys[parent];
            i = parent;
        }
        self.keys[i] = key;
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let key = self.keys[i];
        let n = self.keys.len();
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            let best = if first + ARITY <= n {
                // All four children present: pick the least without data-dependent
                // branches (the comparisons are unpredictable; selects are not).
                let h = &self.keys[first..first + ARITY];
                let low = if h[1] < h[0] { 1 } else { 0 };
                let high = if h[3] < h[2] { 3 } else { 2 };
                first + if h[high] < h[low] { high } else { low }
            } else {
                (first + 1..n).fold(first, |best, child| if self.keys[child] < self.keys[best] { child } else { best })
            };
            if self.keys[best] >= key {
                break;
            }
            self.keys[i] = self.keys[best];
            i = best;
        }
        self.keys[i] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ties_run_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(5, Event::Timer(2));
        q.schedule(3, Event::Timer(9));
        q.schedule(5, Event::Timer(1));
        q.schedule(5, Event::LinkArrival(7));
        q.schedule(5, Event::Timer(MAX_EVENT_ID));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(10)).collect();
        assert_eq!(q.pending(), 0);
        assert_eq!(
            order,
            vec![
                (3, Event::Timer(9)),
                (5, Event::Timer(2)),
                (5, Event::Timer(1)),
                (5, Event::LinkArrival(7)),
                (5, Event::Timer(MAX_EVENT_ID)),
            ]
        );
    }
}

#[cfg(test)]
mod heap_tests {
    use super::*;

    /// Against a reference ordering: random schedules interleaved with pops.
    #[test]
    fn matches_a_sorted_reference() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut q = EventQueue::default();
        let mut reference: Vec<(Time, u64, Event)> = Vec::new();
        let mut now = 0;
        let mut n = 0u64;
        for _ in 0..20_000 {
            if rng.gen_bool(0.55) || reference.is_empty() {
                let at = now + rng.gen_range(0..50);
                let id = rng.gen_range(0..1000);
                let ev = if rng.gen_bool(0.3) { Event::Timer(id) } else { Event::LinkArrival(id) };
                q.schedule(at, ev);
                reference.push((at, n, ev));
                n += 1;
            } else {
                reference.sort_by_key(|&(at, n, _)| (at, n));
                let (at, _, ev) = reference.remove(0);
                assert_eq!(q.pop_until(Time::MAX), Some((at, ev)));
                now = at;
            }
        }
    }
}
