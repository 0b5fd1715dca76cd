//! DualPI2, the coupled dual-queue AQM of L4S (RFC 9332; Linux `net/sched/sch_dualpi2.c`,
//! read, not copied), decided at dequeue. Packets carrying the L4S identifier (ECT(1)) or
//! CE go to the L queue, the rest to the C queue. One PI controller runs every `tupdate`
//! on the larger of the two queues' head sojourn times:
//!
//! p' ← p' + α·(qdelay − target) + β·(qdelay − qdelay_old)   (RFC 9332 §2.4, A.1)
//!
//! clamped to [0, 1]. A C packet is marked (ECT) or dropped with probability p'² (two
//! independent draws, as the kernel's `dualpi2_classic_marking`); an L packet is marked
//! with the coupled probability k·p' (`coupling`, k = 2), and besides, by the L queue's
//! native step AQM, whenever it waited more than `step_threshold` (1 ms). When k·p'
//! exceeds 1 (overload) L packets are treated as classic ones: dropped with p'² and
//! otherwise marked (`drop_overload`, the kernel's default; without it they are all
//! marked and p' is held at 1/k). Nothing is marked or dropped while less than two MTUs
//! (3000 bytes) stay queued after the packet leaves.
//!
//! The scheduler is the kernel's weighted round robin with C-queue protection
//! (`c_protection`, `c_weight` = 10 %): a credit starts at MTU·(w_C − w_L); the L queue
//! goes first while the credit is ≤ 0 or the C queue is empty, each L packet sent while C
//! waits adds w_C·bytes, each C packet sent while L waits takes w_L·bytes, so both
//! backlogged share 90:10 by bytes. An arrival finding `limit` packets queued (the link's
//! `buffer`, less the one being sent) is dropped.
//!
//! The PI update is exact although it runs lazily: between two enqueues or dequeues
//! nothing changes the queues, so the head sojourn times at each update instant (multiples
//! of `tupdate` from the start, as the kernel's timer) are known when the next event
//! comes, which catches up with every update due before it.
//!
//! Deltas from the kernel: probabilities in f64 rather than 32-bit fixed point (α and β
//! default to the kernel's truncated internal values, 0.160071 and 3.197783 per second,
//! rather than RFC 9332's nominal 0.16 and 3.2); the MTU is 1500 bytes (the link knows no
//! device); no GSO splitting or memory limit (the simulator sends whole packets); only the
//! kernel's defaults for classification (ECT(1) and CE into L, no tc filters),
//! `min_qlen_step` 0 and drop at dequeue (`drop_early` off).
use super::{check_duration, Dequeued, DequeueDiscipline, DequeueSpec, DisciplineSpec, QueueItem, QueueStats};
use crate::schema::Num;
use crate::sim::rng::RngStream;
use crate::sim::{Duration, Time};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The MTU the kernel takes from the device (`psched_mtu`): the 2-MTU floor and the
/// scheduler's initial credit.
pub const DUALPI2_MTU: u32 = 1500;

/// The kernel's α and β, given as 41 and 819 (Hz·256) and scaled to 64-ns units of a
/// 32-bit probability with truncation (`dualpi2_scale_alpha_beta`): 44 and 879, i.e.
/// 44·10⁹/(64·(2³²−1)) and 879·10⁹/(64·(2³²−1)) per second.
const KERNEL_ALPHA: f64 = 44e9 / (64.0 * 4_294_967_295.0);
const KERNEL_BETA: f64 = 879e9 / (64.0 * 4_294_967_295.0);

/// DualPI2 (RFC 9332) with sch_dualpi2.c's defaults: PI² `target` 15 ms, `tupdate`
/// 16 ms, `alpha` 0.16 and `beta` 3.2 per second (the kernel's scaled values),
/// `coupling` k = 2, the L queue's `step_threshold` 1 ms, `c_weight` 10 % (C-queue
/// protection of the scheduler), `drop_overload` on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DualPi2Spec {
    /// The PI controller's target queueing delay (RFC 9332 A.1, the kernel: 15 ms).
    pub target: Duration,
    /// How often the probability is updated (RFC 9332: 16 ms; the kernel: 16 ms).
    pub tupdate: Duration,
    /// The integral gain α, per second (RFC 9332: 0.16; the kernel's 41/256 scaled:
    /// 0.160071).
    pub alpha: f64,
    /// The proportional gain β, per second (RFC 9332: 3.2; the kernel's 819/256 scaled:
    /// 3.197783).
    pub beta: f64,
    /// The coupling factor k: L packets are marked with k·p' (RFC 9332 and the kernel: 2).
    pub coupling: f64,
    /// The L queue's step: an L packet that waited longer is marked (the kernel: 1 ms;
    /// RFC 9332 suggests 1 ms too, §5.1's "L4S threshold").
    pub step_threshold: Duration,
    /// The C queue's share when both are backlogged, percent (the kernel's
    /// `c_protection`: 10).
    pub c_weight: u32,
    /// Under overload (k·p' > 1) drop L packets with p'² before marking the rest (the
    /// kernel's default); off: mark them all and hold p' at 1/k.
    pub drop_overload: bool,
}

impl Default for DualPi2Spec {
    fn default() -> Self {
        DualPi2Spec {
            target: Duration::from_millis(15),
            tupdate: Duration::from_millis(16),
            alpha: KERNEL_ALPHA,
            beta: KERNEL_BETA,
            coupling: 2.0,
            step_threshold: Duration::from_millis(1),
            c_weight: 10,
            drop_overload: true,
        }
    }
}

impl DisciplineSpec for DualPi2Spec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_duration("target", self.target)?;
        check_duration("tupdate", self.tupdate)?;
        check_duration("step_threshold", self.step_threshold)?;
        for (field, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value.is_finite() && value > 0.0 && value <= 1000.0) {
                return Err((field, format!("{} is not a gain in (0, 1000] per second", Num(value))));
            }
        }
        if !(self.coupling.is_finite() && (1.0..=255.0).contains(&self.coupling)) {
            return Err(("coupling", format!("{} is outside [1, 255] (the kernel's k is 1 to 255)", Num(self.coupling))));
        }
        if self.c_weight > 100 {
            return Err(("c_weight", format!("{} is not a percentage in [0, 100]", self.c_weight)));
        }
        Ok(())
    }
}

impl DequeueSpec for DualPi2Spec {
    type Discipline<P> = DualPi2<P>;
    fn build<P: QueueItem>(&self, limit: u32, rng: RngStream) -> DualPi2<P> {
        DualPi2::new(*self, limit, rng)
    }
}

/// One of the two queues: its packets with their enqueue times, and its counters.
#[derive(Clone, Debug)]
struct Lane<P> {
    queue: VecDeque<(Time, P)>,
    sent: u64,
    delay_sum: u128,
    delay_max: Time,
    marks: u64,
    drops: u64,
}

impl<P> Lane<P> {
    fn new() -> Lane<P> {
        Lane { queue: VecDeque::new(), sent: 0, delay_sum: 0, delay_max: 0, marks: 0, drops: 0 }
    }

    /// The head's sojourn at `now` (0 when empty).
    fn head_delay(&self, now: Time) -> Time {
        self.queue.front().map_or(0, |&(at, _)| now.saturating_sub(at))
    }

    fn stats(&self, name: &'static str) -> QueueStats {
        QueueStats {
            name,
            packets: self.sent,
            mean_delay_ms: if self.sent > 0 { self.delay_sum as f64 / self.sent as f64 / 1e6 } else { 0.0 },
            max_delay_ms: self.delay_max as f64 / 1e6,
            marks: self.marks,
            drops: self.drops,
        }
    }
}

#[derive(Clone, Debug)]
pub struct DualPi2<P> {
    spec: DualPi2Spec,
    limit: u32,
    l: Lane<P>,
    c: Lane<P>,
    bytes: u64,
    /// The base probability p' (RFC 9332's p').
    pub prob: f64,
    /// The delay the last update saw, ns.
    last_qdelay: Time,
    /// The next update instant.
    next_update: Time,
    /// The scheduler's credit (≤ 0: the L queue's turn) and its reset value.
    credit: i64,
    credit_init: i64,
    /// Packets marked by the step (L queue) and by the PI probability (either queue).
    pub step_marks: u64,
    /// Arrivals dropped for room (counted in their queue's drops too).
    overflow: u64,
    rng: RngStream,
}

impl<P: QueueItem> DualPi2<P> {
    pub fn new(spec: DualPi2Spec, limit: u32, rng: RngStream) -> DualPi2<P> {
        let (wc, wl) = (spec.c_weight as i64, 100 - spec.c_weight as i64);
        let credit_init = DUALPI2_MTU as i64 * (wc - wl);
        DualPi2 {
            spec,
            limit,
            l: Lane::new(),
            c: Lane::new(),
            bytes: 0,
            prob: 0.0,
            last_qdelay: 0,
            next_update: spec.tupdate.ns().max(1),
            credit: credit_init,
            credit_init,
            step_marks: 0,
            overflow: 0,
            rng,
        }
    }

    /// One PI update with the queueing delay `qdelay` (ns): RFC 9332 A.1's
    /// `dualpi2_update`, the kernel's `calculate_probability`.
    pub fn update(&mut self, qdelay: Time) {
        let s = &self.spec;
        let error = (qdelay as f64 - s.target.ns() as f64) / 1e9;
        let change = (qdelay as f64 - self.last_qdelay as f64) / 1e9;
        self.prob = (self.prob + s.alpha * error + s.beta * change).clamp(0.0, 1.0);
        if !s.drop_overload {
            self.prob = self.prob.min(1.0 / s.coupling);
        }
        self.last_qdelay = qdelay;
    }

    /// Run the updates due by `now` (the queues unchanged since the last event).
    fn catch_up(&mut self, now: Time) {
        let tupdate = self.spec.tupdate.ns().max(1);
        while self.next_update <= now {
            let at = self.next_update;
            if self.l.queue.is_empty() && self.c.queue.is_empty() && self.prob == 0.0 && self.last_qdelay == 0 {
                // Idle and calm: every update until now leaves everything at zero.
                self.next_update = at + (now - at) / tupdate * tupdate + tupdate;
                break;
            }
            let qdelay = self.l.head_delay(at).max(self.c.head_delay(at));
            self.update(qdelay);
            self.next_update = at + tupdate;
        }
    }

    fn roll(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.gen::<f64>() < p
    }

    /// The PI² law at dequeue for a packet of the L queue (`l4s`) or the C queue:
    /// Some(true) drop, Some(false) mark, None leave it (`must_drop`).
    fn pi2_verdict(&mut self, l4s: bool, ect: bool) -> Option<bool> {
        let p = self.prob;
        let scaled = p * self.spec.coupling;
        let overload = scaled > 1.0;
        if !l4s {
            // C: p'² by two draws; dropped if not ECN-capable or under overload.
            let hit = self.roll(p) && self.roll(p);
            return hit.then_some(overload || !ect);
        }
        if overload {
            // L under overload: classic drops first, then every packet marked.
            if self.spec.drop_overload && self.roll(p) && self.roll(p) {
                return Some(true);
            }
            return ect.then_some(false);
        }
        self.roll(scaled).then_some(!ect)
    }
}

impl<P: QueueItem> DequeueDiscipline<P> for DualPi2<P> {
    fn enqueue(&mut self, now: Time, packet: P, dropped: &mut Vec<P>) {
        self.catch_up(now);
        let full = (self.l.queue.len() + self.c.queue.len()) as u32 >= self.limit;
        let lane = if packet.l4s() { &mut self.l } else { &mut self.c };
        if full {
            lane.drops += 1;
            self.overflow += 1;
            dropped.push(packet);
            return;
        }
        self.bytes += packet.bytes() as u64;
        lane.queue.push_back((now, packet));
    }

    fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>> {
        self.catch_up(now);
        loop {
            let (l_len, c_len) = (self.l.queue.len(), self.c.queue.len());
            let from_l = l_len > 0 && (c_len == 0 || self.credit <= 0);
            if l_len == 0 && c_len == 0 {
                self.credit = self.credit_init;
                return None;
            }
            let lane = if from_l { &mut self.l } else { &mut self.c };
            let (enqueued, packet) = lane.queue.pop_front().expect("non-empty");
            let bytes = packet.bytes() as u64;
            self.bytes -= bytes;
            let credit_change = match (from_l, from_l && c_len > 0, !from_l && l_len > 0) {
                (true, true, _) => self.spec.c_weight as i64 * bytes as i64,
                (false, _, true) => -((100 - self.spec.c_weight as i64) * bytes as i64),
                _ => 0,
            };
            let l4s = from_l;
            let ect = packet.ect();
            let mut mark = false;
            if self.bytes >= 2 * DUALPI2_MTU as u64 {
                match self.pi2_verdict(l4s, ect) {
                    Some(true) => {
                        let lane = if l4s { &mut self.l } else { &mut self.c };
                        lane.drops += 1;
                        dropped.push(packet);
                        continue;
                    }
                    Some(false) => mark = true,
                    None => {}
                }
            }
            let sojourn = now.saturating_sub(enqueued);
            if l4s && sojourn > self.spec.step_threshold.ns() {
                if !ect {
                    self.l.drops += 1;
                    dropped.push(packet);
                    continue;
                }
                if !mark {
                    self.step_marks += 1;
                }
                mark = true;
            }
            self.credit += credit_change;
            let lane = if l4s { &mut self.l } else { &mut self.c };
            lane.sent += 1;
            lane.delay_sum += sojourn as u128;
            lane.delay_max = lane.delay_max.max(sojourn);
            lane.marks += mark as u64;
            return Some(Dequeued { packet, mark_ce: mark, enqueued });
        }
    }

    fn len(&self) -> usize {
        self.l.queue.len() + self.c.queue.len()
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn law_drops(&self) -> u64 {
        self.l.drops + self.c.drops - self.overflow
    }
    fn marks(&self) -> u64 {
        self.l.marks + self.c.marks
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &P> + '_> {
        Box::new(self.l.queue.iter().chain(self.c.queue.iter()).map(|(_, p)| p))
    }
    fn queue_stats(&self) -> Vec<QueueStats> {
        vec![self.l.stats("L"), self.c.stats("C")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    const MS: Time = 1_000_000;

    /// A test packet: 1500 bytes, its ECN as the L4S identifier / ECT.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct Pkt {
        id: u32,
        ect: bool,
        l4s: bool,
        ce: bool,
    }

    impl QueueItem for Pkt {
        fn bytes(&self) -> u32 {
            1500
        }
        fn flow_key(&self) -> u32 {
            self.id
        }
        fn ect(&self) -> bool {
            self.ect
        }
        fn mark_ce(&mut self) {
            self.ce = true;
        }
        fn l4s(&self) -> bool {
            self.l4s
        }
    }

    fn dualpi2(spec: DualPi2Spec) -> DualPi2<Pkt> {
        DualPi2::new(spec, 1000, stream(1, 1))
    }

    /// RFC 9332 A.1 by hand with α 0.16, β 3.2 per second and target 15 ms: from p' = 0,
    /// a 20-ms queue (the last 0) gives 0.16·0.005 + 3.2·0.020 = 0.0648; then 18 ms gives
    /// 0.0648 + 0.16·0.003 + 3.2·(−0.002) = 0.05888; an empty queue 0.05888 + 0.16·(−0.015)
    /// + 3.2·(−0.018) < 0, so 0. The kernel's defaults are its scaled 41/256 and 819/256.
    #[test]
    fn pi_update_by_hand() {
        let mut q = dualpi2(DualPi2Spec { alpha: 0.16, beta: 3.2, ..Default::default() });
        q.update(20 * MS);
        assert!((q.prob - 0.0648).abs() < 1e-12, "{}", q.prob);
        q.update(18 * MS);
        assert!((q.prob - 0.05888).abs() < 1e-12, "{}", q.prob);
        q.update(0);
        assert_eq!(q.prob, 0.0);
        let spec = DualPi2Spec::default();
        assert!((spec.alpha - 0.16007).abs() < 1e-5 && (spec.beta - 3.19778).abs() < 1e-5, "{} {}", spec.alpha, spec.beta);
        // without drop_overload p' stops at 1/k
        let mut capped = dualpi2(DualPi2Spec { drop_overload: false, ..Default::default() });
        for _ in 0..100 {
            capped.update(500 * MS);
        }
        assert_eq!(capped.prob, 0.5);
    }

    /// The updates run on the tupdate grid, with the head's sojourn at each instant: a
    /// packet queued at 0 and left alone is 16 ms old at the first update and 32 at the
    /// second, as the lazy catch-up at 40 ms computes.
    #[test]
    fn lazy_updates_see_the_sojourn_at_each_instant() {
        let spec = DualPi2Spec { alpha: 0.16, beta: 3.2, ..Default::default() };
        let mut q = dualpi2(spec);
        let mut dropped = Vec::new();
        q.enqueue(0, Pkt::default(), &mut dropped);
        q.enqueue(40 * MS, Pkt::default(), &mut dropped);
        let mut by_hand = dualpi2(spec);
        by_hand.update(16 * MS);
        by_hand.update(32 * MS);
        assert_eq!(q.prob, by_hand.prob);
        assert!(q.prob > 0.0);
    }

    /// ECT(1) (and CE) go to the L queue, the rest to C; with both backlogged the
    /// scheduler sends 9 L packets for each C one (c_weight 10 %); an L packet that
    /// waited over 1 ms is marked (the step), a C one is not.
    #[test]
    fn classification_scheduler_and_step() {
        let mut q = dualpi2(DualPi2Spec::default());
        let mut dropped = Vec::new();
        for id in 0..100 {
            q.enqueue(0, Pkt { id, ect: true, l4s: id % 2 == 0, ce: false }, &mut dropped);
        }
        let mut order = Vec::new();
        for _ in 0..40 {
            let d = q.dequeue(2 * MS, &mut dropped).unwrap();
            order.push(d.packet.l4s);
            assert_eq!(d.mark_ce, d.packet.l4s, "the step marks L packets older than 1 ms only");
        }
        assert_eq!(order.iter().filter(|&&l| !l).count(), 4, "{order:?}");
        assert!(order[..9].iter().all(|&l| l) && !order[9]);
        assert!(dropped.is_empty());
        let stats = q.queue_stats();
        assert_eq!((stats[0].name, stats[0].packets, stats[0].marks), ("L", 36, 36));
        assert_eq!((stats[1].name, stats[1].packets, stats[1].marks), ("C", 4, 0));
        assert_eq!(q.step_marks, 36);
    }

    /// With p' = 0.3 (k·p' = 0.6): L packets are marked with 60 %, C packets with
    /// p'² = 9 %, not-ECT C packets dropped with 9 % (the first of four 1500-byte packets
    /// dequeued: 4500 bytes stay, over the two-MTU floor).
    #[test]
    fn coupled_probabilities() {
        let n = 20_000;
        let mut dropped = Vec::new();
        let mut q = dualpi2(DualPi2Spec { step_threshold: Duration::from_millis(1000), ..Default::default() });
        let (mut l, mut c, mut cd) = (0u32, 0u32, 0u32);
        for _ in 0..n {
            q.prob = 0.3;
            for id in 0..4 {
                q.enqueue(0, Pkt { id, ect: true, l4s: true, ce: false }, &mut dropped);
            }
            l += q.dequeue(0, &mut dropped).unwrap().mark_ce as u32;
            while q.dequeue(0, &mut dropped).is_some() {}
            for id in 0..4 {
                q.enqueue(0, Pkt { id, ect: id != 3, l4s: false, ce: false }, &mut dropped);
            }
            c += q.dequeue(0, &mut dropped).unwrap().mark_ce as u32;
            while q.dequeue(0, &mut dropped).is_some() {}
            q.prob = 0.3;
            for id in 0..4 {
                q.enqueue(0, Pkt { id, ect: false, l4s: false, ce: false }, &mut dropped);
            }
            let before = dropped.len();
            q.dequeue(0, &mut dropped);
            cd += (dropped.len() > before) as u32;
            while q.dequeue(0, &mut dropped).is_some() {}
        }
        let frac = |x: u32| x as f64 / n as f64;
        assert!((frac(l) - 0.6).abs() < 0.02, "L marks {}", frac(l));
        assert!((frac(c) - 0.09).abs() < 0.01, "C marks {}", frac(c));
        assert!((frac(cd) - 0.09).abs() < 0.01, "C drops {}", frac(cd));
    }

    /// Overload (k·p' > 1): L packets are dropped with p'² and the rest marked; without
    /// `drop_overload` p' never passes 1/k, so L packets are marked with k·p' ≤ 1 and
    /// never dropped.
    #[test]
    fn overload_drops_l_packets_with_the_classic_probability() {
        let n = 20_000;
        let mut dropped = Vec::new();
        let mut q = dualpi2(DualPi2Spec { step_threshold: Duration::from_millis(1000), ..Default::default() });
        let (mut marks, mut drops) = (0u32, 0u32);
        for _ in 0..n {
            q.prob = 0.7; // k·p' = 1.4; p'² = 0.49
            for id in 0..4 {
                q.enqueue(0, Pkt { id, ect: true, l4s: true, ce: false }, &mut dropped);
            }
            let before = dropped.len();
            let first = q.dequeue(0, &mut dropped).unwrap();
            if dropped.len() > before {
                drops += 1;
            } else {
                marks += first.mark_ce as u32;
            }
            while q.dequeue(0, &mut dropped).is_some() {}
        }
        let frac = |x: u32| x as f64 / n as f64;
        assert!((frac(drops) - 0.49).abs() < 0.02, "drops {}", frac(drops));
        assert_eq!(drops + marks, n, "every L packet not dropped is marked");
        let mut held = dualpi2(DualPi2Spec { drop_overload: false, ..Default::default() });
        held.update(1000 * MS);
        assert_eq!(held.prob, 0.5);
        assert_eq!(held.pi2_verdict(true, true), Some(false), "k·p' = 1: always marked, never dropped");
    }

    /// An arrival finding `limit` packets queued is dropped, and counted in its queue.
    #[test]
    fn overflow_drops_the_arrival() {
        let mut q: DualPi2<Pkt> = DualPi2::new(DualPi2Spec::default(), 3, stream(1, 1));
        let mut dropped = Vec::new();
        for id in 0..5 {
            q.enqueue(0, Pkt { id, ect: true, l4s: true, ce: false }, &mut dropped);
        }
        assert_eq!((q.len(), dropped.len(), q.law_drops()), (3, 2, 0));
        assert_eq!(q.queue_stats()[0].drops, 2);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        for (spec, field) in [
            (DualPi2Spec { alpha: 0.0, ..Default::default() }, "alpha"),
            (DualPi2Spec { beta: f64::NAN, ..Default::default() }, "beta"),
            (DualPi2Spec { coupling: 0.5, ..Default::default() }, "coupling"),
            (DualPi2Spec { c_weight: 101, ..Default::default() }, "c_weight"),
            (DualPi2Spec { target: Duration::from_millis(0), ..Default::default() }, "target"),
            (DualPi2Spec { step_threshold: Duration::from_millis(0), ..Default::default() }, "step_threshold"),
        ] {
            assert_eq!(spec.validate().unwrap_err().0, field);
        }
    }
}
