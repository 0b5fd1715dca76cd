//! CoDel, controlled delay (RFC 8289; Nichols & Jacobson 2012), decided at dequeue: a
//! packet's sojourn time is how long it waited; once every sojourn has stayed above
//! `target` for an `interval`, CoDel drops (or, for ECN-capable packets with `ecn`,
//! marks) one packet and then the next at interval/√count after it, until a sojourn falls
//! below target (§5.4, and Linux's include/net/codel_impl.h; read, not copied). A queue
//! holding no more than one MTU never counts as above target (§5.4's maxpacket).
//!
//! [`CodelState`] is the per-queue state machine, shared with FQ-CoDel; [`Codel`] is a
//! FIFO under it.
use super::{check_duration, Dequeued, DequeueDiscipline, DequeueSpec, DisciplineSpec, QueueItem};
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// CoDel (RFC 8289): `target` and `interval` as RFC 8289 §4.3–4.4 recommend for the
/// Internet (5 ms, 100 ms); `ecn` marks ECN-capable packets instead of dropping them
/// (Linux's codel default: off).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelSpec {
    pub target: Duration,
    pub interval: Duration,
    pub ecn: bool,
}

impl Default for CodelSpec {
    fn default() -> Self {
        CodelSpec { target: Duration::from_millis(5), interval: Duration::from_millis(100), ecn: false }
    }
}

impl DisciplineSpec for CodelSpec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_duration("target", self.target)?;
        check_duration("interval", self.interval)
    }
}

impl DequeueSpec for CodelSpec {
    type Discipline<P> = Codel<P>;
    fn build<P: QueueItem>(&self, limit: u32, _rng: crate::sim::rng::RngStream) -> Codel<P> {
        Codel::new(self.params(), limit)
    }
}

impl CodelSpec {
    /// The parameters in ns, with [`CODEL_MTU`].
    pub fn params(&self) -> CodelParams {
        codel_params(self.target, self.interval, self.ecn)
    }
}

/// CoDel's parameters from a scenario's durations.
pub fn codel_params(target: Duration, interval: Duration, ecn: bool) -> CodelParams {
    CodelParams { target: target.ns(), interval: interval.ns(), ecn, mtu: CODEL_MTU }
}

/// The MTU CoDel's "one packet is never too many" rule assumes (RFC 8289 §5.4's
/// maxpacket; Linux takes the device's, 1500 on Ethernet).
pub const CODEL_MTU: u32 = 1500;


/// CoDel's parameters, in ns and bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: Time,
    pub interval: Time,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// One MTU: a queue this small is never "above target".
    pub mtu: u32,
}

/// The dropping state machine of one queue (RFC 8289 §5.4 `dodequeue` / `dequeue`).
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    /// When the sojourn first went above target (0: it is not above).
    first_above_time: Time,
    dropping: bool,
    drop_next: Time,
    count: u32,
    last_count: u32,
    /// Drops (or marks) made, for the link's counts.
    pub drops: u64,
    pub marks: u64,
}

/// The control law: the next drop `interval/√count` after `t` (§5.5).
fn control_law(t: Time, interval: Time, count: u32) -> Time {
    t + (interval as f64 / (count.max(1) as f64).sqrt()) as Time
}

impl CodelState {
    /// §5.4 `dodequeue`: given the head packet's sojourn and the bytes still queued
    /// behind it, may CoDel drop it?
    fn ok_to_drop(&mut self, p: &CodelParams, now: Time, sojourn: Time, queued_bytes: u64) -> bool {
        if sojourn < p.target || queued_bytes <= p.mtu as u64 {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now + p.interval;
            return false;
        }
        now >= self.first_above_time
    }

    /// Dequeue from `queue` (items with their enqueue times) at `now`: CoDel's drops and
    /// marks, and the packet to send, if any. `queued_bytes` is kept up to date.
    pub fn dequeue<P: QueueItem>(
        &mut self,
        p: &CodelParams,
        now: Time,
        queue: &mut VecDeque<(Time, P)>,
        queued_bytes: &mut u64,
        dropped: &mut Vec<P>,
    ) -> Option<Dequeued<P>> {
        let pop = |queue: &mut VecDeque<(Time, P)>, queued_bytes: &mut u64| {
            let (at, packet) = queue.pop_front()?;
            *queued_bytes -= packet.bytes() as u64;
            Some((at, packet))
        };
        let (mut at, mut packet) = pop(queue, queued_bytes)?;
        let mut drop = self.ok_to_drop(p, now, now - at, *queued_bytes);
        if self.dropping {
            if !drop {
                self.dropping = false; // below target: leave the dropping state
            }
            while self.dropping && now >= self.drop_next {
                if p.ecn && packet.ect() {
                    self.count += 1;
                    self.marks += 1;
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return Some(Dequeued { packet, mark_ce: true, enqueued: at });
                }
                self.drops += 1;
                dropped.push(packet);
                self.count += 1;
                (at, packet) = pop(queue, queued_bytes)?;
                drop = self.ok_to_drop(p, now, now - at, *queued_bytes);
                if !drop {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                }
            }
        } else if drop {
            // Enter the dropping state: drop (or mark) this one and schedule the next.
            let mark = p.ecn && packet.ect();
            if !mark {
                self.drops += 1;
                dropped.push(packet);
            }
            self.dropping = true;
            // A recent dropping episode: start from where its count left off (§5.6).
            let delta = self.count.saturating_sub(self.last_count);
            self.count = if delta > 1 && now - self.drop_next < 16 * p.interval { delta } else { 1 };
            self.drop_next = control_law(now, p.interval, self.count);
            self.last_count = self.count;
            if mark {
                self.marks += 1;
                return Some(Dequeued { packet, mark_ce: true, enqueued: at });
            }
            (at, packet) = pop(queue, queued_bytes)?;
        }
        Some(Dequeued { packet, mark_ce: false, enqueued: at })
    }
}

/// A FIFO under CoDel, with a packet limit (tail drop beyond it).
#[derive(Clone, Debug)]
pub struct Codel<P> {
    pub params: CodelParams,
    pub limit: u32,
    queue: VecDeque<(Time, P)>,
    bytes: u64,
    state: CodelState,
}

impl<P: QueueItem> Codel<P> {
    pub fn new(params: CodelParams, limit: u32) -> Codel<P> {
        Codel { params, limit, queue: VecDeque::new(), bytes: 0, state: CodelState::default() }
    }

    /// Queue `packet` at `now`; Err(packet) when the queue is full (tail drop).
    pub fn enqueue(&mut self, now: Time, packet: P) -> Result<(), P> {
        if self.queue.len() >= self.limit as usize {
            return Err(packet);
        }
        self.bytes += packet.bytes() as u64;
        self.queue.push_back((now, packet));
        Ok(())
    }

    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>> {
        self.state.dequeue(&self.params, now, &mut self.queue, &mut self.bytes, dropped)
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn marks(&self) -> u64 {
        self.state.marks
    }

    /// Packets CoDel's control law dropped (not those refused for room).
    pub fn law_drops(&self) -> u64 {
        self.state.drops
    }

    pub fn packets(&self) -> impl Iterator<Item = &P> + '_ {
        self.queue.iter().map(|(_, packet)| packet)
    }
}

impl<P: QueueItem> DequeueDiscipline<P> for Codel<P> {
    fn enqueue(&mut self, now: Time, packet: P, dropped: &mut Vec<P>) {
        if let Err(refused) = Codel::enqueue(self, now, packet) {
            dropped.push(refused);
        }
    }
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>> {
        Codel::dequeue(self, now, dropped)
    }
    fn len(&self) -> usize {
        Codel::len(self)
    }
    fn bytes(&self) -> u64 {
        Codel::bytes(self)
    }
    fn law_drops(&self) -> u64 {
        Codel::law_drops(self)
    }
    fn marks(&self) -> u64 {
        Codel::marks(self)
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &P> + '_> {
        Box::new(Codel::packets(self))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Item;
    use super::*;

    const MS: Time = 1_000_000;

    fn params(ecn: bool) -> CodelParams {
        CodelParams { target: 5 * MS, interval: 100 * MS, ecn, mtu: 1500 }
    }

    /// A standing queue: 100 packets arrive at 0, one leaves per 10 ms. The departure at
    /// 10 ms is the first above target (first_above = 110 ms); at 110 ms CoDel drops one
    /// (count 1, the next due 100 ms later), then at 210 ms (count 2: next 100/√2 =
    /// 70.7 ms on, 280.7), 290 ms (count 3: +57.7, 338.4), 340 ms — each drop taking the
    /// next packet in its place.
    #[test]
    fn drops_after_an_interval_above_target_then_by_the_control_law() {
        let mut codel = Codel::new(params(false), 1000);
        for k in 0..100 {
            codel.enqueue(0, Item::new(k, 1000, false)).unwrap();
        }
        let mut dropped = Vec::new();
        let mut drop_times = Vec::new();
        let mut now = 0;
        while !codel.is_empty() {
            let before = dropped.len();
            codel.dequeue(now, &mut dropped);
            if dropped.len() > before {
                drop_times.push(now);
            }
            now += 10 * MS;
        }
        assert_eq!(&drop_times[..4], &[110 * MS, 210 * MS, 290 * MS, 340 * MS], "{drop_times:?}");
        assert!(dropped.len() >= 5);
    }

    /// With ECN, ECN-capable packets are marked where others would be dropped; a queue of
    /// one MTU never counts as above target; a short queue is left alone.
    #[test]
    fn marks_with_ecn_and_spares_short_queues() {
        let mut codel = Codel::new(params(true), 1000);
        for k in 0..40 {
            codel.enqueue(0, Item::new(k, 1000, true)).unwrap();
        }
        let mut dropped = Vec::new();
        let mut marked = 0;
        for step in 0..40 {
            if let Some(d) = codel.dequeue(step * 10 * MS, &mut dropped) {
                marked += d.mark_ce as u32;
            }
        }
        assert!(dropped.is_empty() && marked >= 3, "{marked}");
        let mut short = Codel::new(params(false), 1000);
        let mut dropped = Vec::new();
        for k in 0..50u32 {
            // one packet queued at a time, each waiting 50 ms: sojourn above target, but
            // nothing behind it
            short.enqueue(k as Time * 100 * MS, Item::new(k, 1000, false)).unwrap();
            short.dequeue(k as Time * 100 * MS + 50 * MS, &mut dropped);
        }
        assert!(dropped.is_empty());
        assert_eq!(short.enqueue(0, Item::new(0, 1, false)), Ok(()));
        let full = Codel::<Item>::new(params(false), 0).enqueue(0, Item::new(0, 1, false));
        assert!(full.is_err(), "the limit tail-drops");
    }
}
