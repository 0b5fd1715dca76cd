//! FQ-CoDel (RFC 8290; Linux net/sched/sch_fq_codel.c, read, not copied): packets are
//! hashed by flow into `flows` queues, each under its own CoDel; deficit round robin with
//! a `quantum` of bytes serves new flows (a queue that just became active) before old
//! ones (§4.2); when the whole discipline holds `limit` packets, packets are dropped from
//! the head of the queue holding the most bytes, up to 64 or until it has lost half its
//! bytes (§4.1, `fq_codel_drop`).
//!
//! The flow of a packet is its route in cclab (one per flow and direction).
use super::codel::{codel_params, CodelParams, CodelSpec, CodelState};
use super::{check_duration, Dequeued, DequeueDiscipline, DequeueSpec, DisciplineSpec, QueueItem};
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// FQ-CoDel (RFC 8290): `flows` hashed queues served by deficit round robin of
/// `quantum` bytes, each under CoDel of `target` / `interval`; `ecn` on as in Linux's
/// fq_codel (RFC 8290 §5.2.7 defaults: 1024 flows, quantum 1514 bytes, one MTU plus the
/// Ethernet header).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelSpec {
    pub target: Duration,
    pub interval: Duration,
    pub ecn: bool,
    /// Bytes served per round; written with its unit (`"1514B"`), like every size.
    #[serde(with = "crate::sim::units::bytes")]
    pub quantum: u32,
    pub flows: u32,
}

impl Default for FqCodelSpec {
    fn default() -> Self {
        let codel = CodelSpec::default();
        FqCodelSpec { target: codel.target, interval: codel.interval, ecn: true, quantum: 1514, flows: 1024 }
    }
}

impl DisciplineSpec for FqCodelSpec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_duration("target", self.target)?;
        check_duration("interval", self.interval)?;
        if !(1..=1_000_000).contains(&self.quantum) {
            return Err(("quantum", format!("{}B is not a size from 1B to 1000000B", self.quantum)));
        }
        if !(1..=65_536).contains(&self.flows) {
            return Err(("flows", format!("{} is not a number of queues from 1 to 65536", self.flows)));
        }
        Ok(())
    }
}

impl DequeueSpec for FqCodelSpec {
    type Discipline<P> = FqCodel<P>;
    fn build<P: QueueItem>(&self, limit: u32, _rng: crate::sim::rng::RngStream) -> FqCodel<P> {
        FqCodel::new(codel_params(self.target, self.interval, self.ecn), self.flows, self.quantum, limit)
    }
}

/// Packets dropped at once from the fattest queue when the limit is hit (Linux `drop_batch`).
const DROP_BATCH: usize = 64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum List {
    #[default]
    None,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct FlowQueue<P> {
    queue: VecDeque<(Time, P)>,
    bytes: u64,
    deficit: i64,
    list: List,
    codel: CodelState,
}

#[derive(Clone, Debug)]
pub struct FqCodel<P> {
    pub codel: CodelParams,
    pub quantum: u32,
    pub limit: u32,
    /// The flow queues, made when first used.
    flows: Vec<Option<Box<FlowQueue<P>>>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
}

/// The queue of flow `key` among `buckets` (a mixed hash, so neighbouring keys spread).
pub fn bucket_of(key: u32, buckets: u32) -> u32 {
    let mut z = key as u64 ^ 0x9E37_79B9_7F4A_7C15;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % buckets as u64) as u32
}

impl<P: QueueItem> FqCodel<P> {
    pub fn new(codel: CodelParams, flows: u32, quantum: u32, limit: u32) -> FqCodel<P> {
        FqCodel {
            codel,
            quantum,
            limit,
            flows: (0..flows).map(|_| None).collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
        }
    }

    fn flow(&mut self, index: u32) -> &mut FlowQueue<P> {
        self.flows[index as usize].get_or_insert_with(|| {
            Box::new(FlowQueue { queue: VecDeque::new(), bytes: 0, deficit: 0, list: List::None, codel: CodelState::default() })
        })
    }

    /// Queue `packet` at `now`; packets dropped to make room (from the fattest queue,
    /// possibly this one) go to `dropped`.
    pub fn enqueue(&mut self, now: Time, packet: P, dropped: &mut Vec<P>) {
        let index = bucket_of(packet.flow_key(), self.flows.len() as u32);
        let quantum = self.quantum as i64;
        let bytes = packet.bytes() as u64;
        let flow = self.flow(index);
        flow.queue.push_back((now, packet));
        flow.bytes += bytes;
        let was_idle = flow.list == List::None;
        if was_idle {
            flow.list = List::New;
            flow.deficit = quantum;
        }
        if was_idle {
            self.new_flows.push_back(index);
        }
        self.len += 1;
        self.bytes += bytes;
        if self.len > self.limit as usize {
            self.drop_from_fattest(dropped);
        }
    }

    fn drop_from_fattest(&mut self, dropped: &mut Vec<P>) {
        let Some(fattest) = (0..self.flows.len()).filter(|&i| self.flows[i].is_some()).max_by_key(|&i| {
            self.flows[i].as_ref().map_or(0, |f| f.bytes)
        }) else {
            return;
        };
        let flow = self.flows[fattest].as_mut().expect("chosen among the made");
        let threshold = flow.bytes / 2;
        let mut count = 0;
        while count < DROP_BATCH && flow.bytes > threshold {
            let Some((_, packet)) = flow.queue.pop_front() else { break };
            flow.bytes -= packet.bytes() as u64;
            self.len -= 1;
            self.bytes -= packet.bytes() as u64;
            dropped.push(packet);
            count += 1;
        }
    }

    /// The next packet to send at `now` (CoDel's drops and marks on the way go to
    /// `dropped` and the packet's mark), or None when every queue is empty.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>> {
        loop {
            let (from_new, index) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let (quantum, codel) = (self.quantum as i64, self.codel);
            let flow = self.flows[index as usize].as_mut().expect("a listed flow is made");
            if flow.deficit <= 0 {
                // Its turn is used up: more deficit, to the end of the old list (§4.2).
                flow.deficit += quantum;
                flow.list = List::Old;
                self.pop_list(from_new);
                self.old_flows.push_back(index);
                continue;
            }
            let before = dropped.len();
            let next = flow.codel.dequeue(&codel, now, &mut flow.queue, &mut flow.bytes, dropped);
            if let Some(out) = &next {
                flow.deficit -= out.packet.bytes() as i64;
            }
            let lost: u64 = dropped[before..].iter().map(|p| p.bytes() as u64).sum();
            self.len -= dropped.len() - before;
            self.bytes -= lost;
            match next {
                Some(out) => {
                    self.len -= 1;
                    self.bytes -= out.packet.bytes() as u64;
                    return Some(out);
                }
                None => {
                    // Empty: a new flow passes through the old list once (against
                    // starvation, §4.2); an old one becomes inactive.
                    self.pop_list(from_new);
                    let to_old = from_new && !self.old_flows.is_empty();
                    if let Some(flow) = self.flows[index as usize].as_mut() {
                        flow.list = if to_old { List::Old } else { List::None };
                    }
                    if to_old {
                        self.old_flows.push_back(index);
                    }
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn marks(&self) -> u64 {
        self.flows.iter().flatten().map(|f| f.codel.marks).sum()
    }

    /// Packets the queues' CoDel dropped (not those dropped for room).
    pub fn law_drops(&self) -> u64 {
        self.flows.iter().flatten().map(|f| f.codel.drops).sum()
    }

    pub fn packets(&self) -> impl Iterator<Item = &P> + '_ {
        self.flows.iter().flatten().flat_map(|f| f.queue.iter().map(|(_, packet)| packet))
    }
}

impl<P: QueueItem> DequeueDiscipline<P> for FqCodel<P> {
    fn enqueue(&mut self, now: Time, packet: P, dropped: &mut Vec<P>) {
        FqCodel::enqueue(self, now, packet, dropped)
    }
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>> {
        FqCodel::dequeue(self, now, dropped)
    }
    fn len(&self) -> usize {
        FqCodel::len(self)
    }
    fn bytes(&self) -> u64 {
        FqCodel::bytes(self)
    }
    fn law_drops(&self) -> u64 {
        FqCodel::law_drops(self)
    }
    fn marks(&self) -> u64 {
        FqCodel::marks(self)
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &P> + '_> {
        Box::new(FqCodel::packets(self))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Item;
    use super::*;

    const MS: Time = 1_000_000;

    fn fq(limit: u32) -> FqCodel<Item> {
        FqCodel::new(CodelParams { target: 5 * MS, interval: 100 * MS, ecn: false, mtu: 1500 }, 1024, 1514, limit)
    }

    /// Two backlogged flows of 1000-byte packets (quantum 1514): DRR alternates them —
    /// a turn goes on while the deficit is positive, so 2 packets from 1514, then 1 or 2
    /// as deficits carry over — and a flow that arrives with one packet is served before
    /// the backlogged (old) ones.
    #[test]
    fn round_robin_by_bytes_and_new_flows_first() {
        let mut q = fq(10_000);
        let mut dropped = Vec::new();
        for _ in 0..20 {
            q.enqueue(0, Item::new(1, 1000, false), &mut dropped);
            q.enqueue(0, Item::new(2, 1000, false), &mut dropped);
        }
        let order: Vec<u32> = (0..12).map(|_| q.dequeue(0, &mut dropped).unwrap().packet.flow_key()).collect();
        // deficits by hand (quantum 1514, 1000-byte packets): 1514 → 514 → −486, +1514 …
        assert_eq!(order, [1, 1, 2, 2, 1, 1, 2, 2, 1, 2, 1, 1], "DRR with carried deficits");
        assert_eq!(order[..10].iter().filter(|&&f| f == 1).count(), 5, "equal shares over whole rounds");
        q.enqueue(0, Item::new(3, 100, false), &mut dropped);
        assert_eq!(q.dequeue(0, &mut dropped).unwrap().packet.flow_key(), 3, "a new flow goes first");
        assert_eq!((q.len(), dropped.len()), (28, 0));
    }

    /// Past the limit, packets go from the head of the fattest queue until it has lost
    /// half its bytes: flow 1 holds 8 packets, flow 2 one; the 10th (limit 9) drops 4 of
    /// flow 1's.
    #[test]
    fn the_limit_drops_from_the_fattest_queue() {
        let mut q = fq(9);
        let mut dropped = Vec::new();
        for _ in 0..8 {
            q.enqueue(0, Item::new(1, 1000, false), &mut dropped);
        }
        q.enqueue(0, Item::new(2, 1000, false), &mut dropped);
        assert!(dropped.is_empty());
        q.enqueue(0, Item::new(1, 1000, false), &mut dropped);
        assert_eq!(dropped.len(), 5, "9 of flow 1's 9000 bytes down to 4500 or less: 5 packets");
        assert!(dropped.iter().all(|p| p.flow_key() == 1));
        assert_eq!(q.len(), 5);
    }

    /// Each flow has its own CoDel: a standing queue in flow 1 is dropped from while a
    /// sparse flow 2 (one packet at a time) is never touched.
    #[test]
    fn codel_per_flow() {
        let mut q = fq(10_000);
        let mut dropped = Vec::new();
        for _ in 0..200 {
            q.enqueue(0, Item::new(1, 1000, false), &mut dropped);
        }
        let mut now = 0;
        for _ in 0..150 {
            q.enqueue(now, Item::new(2, 100, false), &mut dropped);
            q.dequeue(now, &mut dropped);
            q.dequeue(now, &mut dropped);
            now += 10 * MS;
        }
        assert!(!dropped.is_empty());
        assert!(dropped.iter().all(|p| p.flow_key() == 1));
        assert_eq!(bucket_of(7, 1024), bucket_of(7, 1024));
    }
}
