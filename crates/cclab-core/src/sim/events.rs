//! The event queue: a binary heap keyed by (time, insertion order), so events at the
//! same instant run in the order they were scheduled and every run is reproducible.
use super::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens when an event fires. Ids index the simulation's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// The packet at the head of this link direction reaches the far end.
    LinkArrival(u32),
    /// A flow's retransmission timer may be due.
    RetransmitTimer(u32),
    /// A flow's receiver may owe a delayed ACK.
    DelayedAckTimer(u32),
    FlowStart(u32),
    FlowStop(u32),
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(Time, u64, Event)>>,
    inserted: u64,
    popped: u64,
}

impl EventQueue {
    pub fn schedule(&mut self, at: Time, event: Event) {
        self.heap.push(Reverse((at, self.inserted, event)));
        self.inserted += 1;
    }
    /// The next event if it is due at or before `horizon`.
    pub fn pop_until(&mut self, horizon: Time) -> Option<(Time, Event)> {
        let &Reverse((at, _, _)) = self.heap.peek()?;
        if at > horizon {
            return None;
        }
        let Reverse((at, _, event)) = self.heap.pop()?;
        self.popped += 1;
        Some((at, event))
    }
    /// Events executed so far.
    pub fn executed(&self) -> u64 {
        self.popped
    }
    pub fn pending(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ties_run_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(5, Event::FlowStart(2));
        q.schedule(3, Event::FlowStart(9));
        q.schedule(5, Event::FlowStart(1));
        q.schedule(5, Event::LinkArrival(7));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(10)).collect();
        assert_eq!(
            order,
            vec![
                (3, Event::FlowStart(9)),
                (5, Event::FlowStart(2)),
                (5, Event::FlowStart(1)),
                (5, Event::LinkArrival(7))
            ]
        );
    }
}
