//! A point-to-point link direction: an optional loss model at its head (as ns-2's
//! `$ns lossmodel`: a lost packet takes no queue space or transmission time; the model
//! judges it at the time its transmission would start, so an outage also claims the
//! packets queued when it begins), a FIFO
//! DropTail queue feeding a transmitter of fixed rate, then a propagation delay.
//!
//! Because the queue is FIFO and the rate fixed, each packet's transmission start and
//! end are known when it is admitted. The link keeps every packet it holds (waiting,
//! being sent or propagating) in a ring buffer, by value, beside its timing (a second
//! ring: admission, transmission start, arrival at the far end), and the engine keeps a
//! single pending event per link: the head's arrival (as htsim's pipes do). The queue
//! length an arriving packet sees is the number of held packets whose transmission has
//! not started yet. Packets travel by value from ring to ring: no arena lookups, whose
//! cache misses dominated once many flows' packets are in flight.
//!
//! A *pass-through* link feeds only links that have no other input (the dumbbell's
//! bottleneck feeds each flow's own access link) or ends at a host. Its packets'
//! arrival times are final at admission, so the engine hands each packet on at once,
//! stamped with its future arrival time, and the link keeps only the timing it needs
//! for its own queue (no events), not the packets.
//!
//! A link whose queue discipline decides at dequeue (CoDel, FQ-CoDel: `net::qdisc`) has
//! no fixed schedule: its waiting packets are held by the discipline ([`Scheduler`]).
//! The engine sees it from [`Link::dequeues`] before offering and hands the packet to
//! [`Link::offer_deferred`] (the loss model) and [`Link::enqueue`] instead, out of the
//! FIFO links' way; the transmitter takes the next packet when it is free
//! ([`Link::transmit_next`], at the engine's transmit-complete event), and from there the
//! packet travels the ring like any other. Such a link is never pass-through, and
//! neither is a link feeding it (its arrivals must come in time order, at their time).
use super::loss::LossModel;
use super::delivery_trace::{Opportunities, Service};
use super::emulator_loop::EmulatorLoop;
use super::qdisc::red::Red;
use super::qdisc::{AdmissionAqm, AdmissionDiscipline, Arrival, DequeueAqm, DequeueDiscipline, QueueItem, Verdict};
use crate::sim::{Rate, Time};

/// Rings this large or larger shrink when a lap of them holds at most an eighth.
const MIN_SHRINKING_RING: usize = 64;

/// The timing of a held packet.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    tx_start: Time,
    arrives: Time,
}

/// A transmission start, for ns-2's order of one instant ([`Link::ns2_arrives_first`]):
/// when it started and ended, and when ns-2 would have scheduled the event that started
/// it (0: no arrival at its instant can come before it).
#[derive(Clone, Copy, Debug, Default)]
struct Start {
    tx_start: Time,
    tx_end: Time,
    sched: Time,
}

/// What a link counted that an admission does not need: drops, queueing delay, and the
/// admitted packets whose transmission ends after the horizon (departures and bytes
/// sent are the admitted ones less these).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub queue_drops: u64,
    pub loss_drops: u64,
    /// Sum over admitted packets of the time spent waiting before transmission.
    pub queueing_delay_sum: u128,
    late_departures: u64,
    late_bytes: u64,
}

/// What only some links have, apart from the state every admission reads (so a plain
/// link's admission touches two cache lines): a loss model, RED, a byte limit, a queue
/// trace, per-bin counts, a rate schedule.
#[derive(Default)]
pub struct LinkExtras {
    /// Optional limit on the bytes waiting (ns-2 DropTail with `queue-in-bytes`).
    pub limit_bytes: Option<u64>,
    pub loss: Option<LossModel>,
    pub queue_trace: Option<Vec<(Time, u32)>>,
    /// Samples the queue trace may hold (its share of the run's memory limit); past it
    /// the trace stops and `queue_trace_full` says so.
    pub queue_trace_limit: usize,
    pub queue_trace_full: bool,
    /// Per-interval counts (the bottleneck's, for utilisation and loss rate over time).
    pub bins: Option<LinkBins>,
    /// Scheduled rate changes: each packet is sent at the rate in force when its
    /// transmission starts.
    pub rate_schedule: Option<super::rate_schedule::RateSchedule>,
    /// The link delivers by a trace's opportunities (`net::delivery_trace`), where it is
    /// in it: each packet's departure is computed from them, and its `limit` counts the
    /// packets waiting, as mm-link's droptail does.
    pub opportunities: Option<Opportunities>,
    /// An emulator's event loop releases the packets (`net::emulator_loop`): mm-link's
    /// on a trace link, mm-delay's on another (its delay then in the loop, the link's
    /// own `delay` 0).
    pub emulator: Option<EmulatorLoop>,
    /// For the byte length of the waiting queue (a byte limit, RED in byte mode): the
    /// bytes admitted before each held packet, a ring beside the timing ring.
    bytes_before: Vec<u64>,
    /// An admission-time discipline (RED, PIE, step marking); it counts its own drops
    /// and marks.
    pub aqm: Option<AdmissionAqm>,
}

impl LinkExtras {
    /// Whether admissions need the queue's length in bytes.
    fn counts_bytes(&self) -> bool {
        self.limit_bytes.is_some()
            || self.aqm.as_ref().is_some_and(|aqm| aqm.counts_bytes())
            || self.bins.as_ref().is_some_and(|bins| bins.detail.is_some())
    }
}

/// Nanoseconds in a millisecond: a trace link counts arrivals in whole milliseconds.
const MS_NS: Time = 1_000_000;

/// A link direction holding packets of type `P` (the engine's: route, size, header).
/// Laid out so that an admission reads two cache lines (`repr(C)`, aligned): the queue's
/// state, the rings and the constants it needs first; what it seldom touches (drops,
/// the queueing-delay sum, the rate) after them. With many flows a link is rarely in
/// cache when a packet reaches it, so every line an admission touches is a miss.
#[repr(C, align(64))]
pub struct Link<P> {
    busy_until: Time,
    /// Index (counted from the first entry ever pushed) of the first held entry whose
    /// transmission has not started at the latest arrival time seen.
    waiting_from: u64,
    /// Entries ever pushed / ever popped.
    pushed: u64,
    popped: u64,
    admitted: u64,
    admitted_bytes: u64,
    /// The last transmission time computed, for `last_bytes`: packets come in few sizes,
    /// and a division per hop is a measurable share of the hot path.
    last_transmission: Time,
    pub delay: Time,
    /// The end of the run: a packet counts as transmitted (departures, bytes sent) if its
    /// transmission ends by then, which is known when it is admitted.
    pub horizon: Time,
    pub extras: Option<Box<LinkExtras>>,
    /// The held packets' timing, a ring addressed by push count: entry number n (counted
    /// from the first ever pushed) is at `n & (len − 1)`; the held ones are [popped,
    /// pushed). The counters already say where the ends are, so a plain power-of-two
    /// slice serves as the ring. A link that is not pass-through pushes every packet it
    /// admits and pops it when it arrives at the far end; a pass-through link pushes only
    /// packets that must wait for the transmitter and pops them when their transmission
    /// starts (all it needs to know is the queue), so one that rarely queues never
    /// touches its ring.
    held: Box<[Held]>,
    /// The held packets themselves, at the same places as `held` (empty on a
    /// pass-through link, which hands its packets on at once).
    packets: Box<[P]>,
    last_bytes: u32,
    /// Queue limit in packets, counting the packet being transmitted (as ns-2 DropTail);
    /// under byte-mode RED, RED's byte limit (limit × mean_packet_size) applies instead.
    pub limit: u32,
    /// Hands packets on at admission (see the module docs); never has events.
    pub pass_through: bool,
    /// Has a dequeue-time discipline: the engine offers it packets out of line
    /// ([`Link::offer_deferred`], [`Link::enqueue`]), not through `offer`.
    pub dequeues: bool,
    /// Its transmitted packets are recorded (`trace.pcap`): the engine's `Captures` has
    /// a capture for it.
    pub captured: bool,
    /// Orders an arrival and a transmission start at one instant as ns-2 does
    /// ([`Link::ns2_arrives_first`]; `profile = "ns2"` scenarios).
    pub ns2_ties: bool,
    /// An emulator's loop releases its packets (`LinkExtras::emulator`): the engine
    /// takes arrivals with [`Link::take_emulated_arrival`], which passes over events a
    /// moved release superseded.
    pub emulated: bool,
    /// The most entries held at once since the rings last wrapped round (see `end_of_lap`).
    lap_peak: u32,
    /// The transmission start of the packet last admitted.
    pub admitted_start: Time,
    /// With `ns2_ties`: the last two transmissions started by the latest arrival (the
    /// one before the last, the last), noted apart from the ring, which a pass-through
    /// link does not keep them in.
    started: [Start; 2],
    // What follows is cold.
    pub stats: LinkStats,
    pub rate: Rate,
    /// The dequeue-time discipline, if the link has one (see the module docs).
    scheduler: Option<Box<Scheduler<P>>>,
}

/// A dequeue-time discipline with the transmitter it feeds.
struct Scheduler<P> {
    discipline: DequeueAqm<P>,
    /// Packets dropped by the discipline since the engine last took them (to count them
    /// by class): refused for room, or dropped by the control law at dequeue.
    dropped: Vec<P>,
    /// Sending: the engine holds a transmit-complete event for the link.
    sending: bool,
}

/// What the transmitter of a dequeue-time link did when it fell free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// It started a packet and falls free again then (the engine's next
    /// transmit-complete event); None: nothing was waiting, it is idle.
    pub free_at: Option<Time>,
    /// The link had nothing in flight: schedule its arrival event then.
    pub schedule_arrival: Option<Time>,
}

/// What a link did in each time bin: packets offered, packets dropped (queue, RED or
/// loss model), and bytes whose transmission ended in the bin; on a traced link
/// (`trace.links`) also [`BinDetail`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkBins {
    pub width: Time,
    pub arrivals: Vec<u64>,
    pub drops: Vec<u64>,
    pub transmitted_bytes: Vec<u64>,
    pub detail: Option<Box<BinDetail>>,
}

/// A traced link's queue per bin, by each packet's arrival time: of the packets that
/// joined the queue, what they found waiting (packets and bytes, not counting the one
/// being sent); of those whose transmission started, the time they waited (sojourn) and
/// how many were marked CE.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BinDetail {
    pub queued: Vec<u64>,
    pub started: Vec<u64>,
    pub marks: Vec<u64>,
    pub sojourn_ns: Vec<u64>,
    /// The longest sojourn of a packet that arrived in the bin (what mm-delay-graph draws).
    pub max_sojourn_ns: Vec<u64>,
    pub queue_packets: Vec<u64>,
    pub queue_bytes: Vec<u64>,
    pub max_queue_packets: Vec<u32>,
    /// Every started packet's sojourn over the whole run, in bins of
    /// `sojourn_histogram_bin` (0: not kept; `trace.queue_delay_histogram`).
    pub sojourn_histogram_bin: Time,
    pub sojourn_histogram: Vec<u64>,
}

impl LinkBins {
    pub fn new(width: Time, count: usize) -> LinkBins {
        LinkBins { width, arrivals: vec![0; count], drops: vec![0; count], transmitted_bytes: vec![0; count], detail: None }
    }

    /// Keep [`BinDetail`] too.
    pub fn detailed(mut self) -> LinkBins {
        let count = self.arrivals.len();
        self.detail = Some(Box::new(BinDetail {
            queued: vec![0; count],
            started: vec![0; count],
            marks: vec![0; count],
            sojourn_ns: vec![0; count],
            max_sojourn_ns: vec![0; count],
            queue_packets: vec![0; count],
            queue_bytes: vec![0; count],
            max_queue_packets: vec![0; count],
            sojourn_histogram_bin: 0,
            sojourn_histogram: Vec::new(),
        }));
        self
    }

    /// With [`BinDetail`], also a histogram of the sojourns in bins of `bin` (> 0).
    pub fn with_sojourn_histogram(mut self, bin: Time) -> LinkBins {
        if let Some(d) = self.detail.as_mut() {
            d.sojourn_histogram_bin = bin;
        }
        self
    }

    /// A packet arriving at `arrived` joined the queue finding `waiting` packets of
    /// `bytes` ahead of it (a traced link's only).
    fn queued(&mut self, arrived: Time, waiting: u32, bytes: u64) {
        let Some(i) = self.bin(arrived) else { return };
        if let Some(d) = self.detail.as_mut() {
            d.queued[i] += 1;
            d.queue_packets[i] += waiting as u64;
            d.queue_bytes[i] += bytes;
            d.max_queue_packets[i] = d.max_queue_packets[i].max(waiting);
        }
    }

    /// A packet that arrived at `arrived` started its transmission after `sojourn`,
    /// marked CE or not.
    fn started(&mut self, arrived: Time, sojourn: Time, marked: bool) {
        let Some(i) = self.bin(arrived) else { return };
        if let Some(d) = self.detail.as_mut() {
            d.started[i] += 1;
            d.sojourn_ns[i] += sojourn;
            d.max_sojourn_ns[i] = d.max_sojourn_ns[i].max(sojourn);
            d.marks[i] += marked as u64;
            if d.sojourn_histogram_bin > 0 {
                crate::metrics::count_in_bins(&mut d.sojourn_histogram, d.sojourn_histogram_bin, sojourn);
            }
        }
    }

    fn detailed_bins(extras: &mut Option<Box<LinkExtras>>) -> Option<&mut LinkBins> {
        extras.as_mut().and_then(|x| x.bins.as_mut()).filter(|b| b.detail.is_some())
    }
    /// The bin of time `t`; None past the last (the run's end).
    fn bin(&self, t: Time) -> Option<usize> {
        let i = (t / self.width) as usize;
        (i < self.arrivals.len()).then_some(i)
    }
    fn arrival(&mut self, t: Time) {
        if let Some(i) = self.bin(t) {
            self.arrivals[i] += 1;
        }
    }
    fn dropped(&mut self, t: Time) {
        if let Some(i) = self.bin(t) {
            self.drops[i] += 1;
        }
    }
    fn transmitted(&mut self, end: Time, bytes: u32) {
        // A transmission ending exactly at the horizon belongs to the last bin.
        let (i, count) = ((end / self.width) as usize, self.arrivals.len());
        if i < count {
            self.transmitted_bytes[i] += bytes as u64;
        } else if i == count && end == count as Time * self.width && count > 0 {
            self.transmitted_bytes[count - 1] += bytes as u64;
        }
    }
}

/// What happened to a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Admitted; the packet reaches the far end at `arrives`. If `schedule` is set the
    /// link had nothing in flight and the engine must schedule its arrival event then.
    Admitted { arrives: Time, schedule: Option<Time>, mark_ce: bool },
    /// The queue was full, or RED dropped it.
    Dropped,
    /// The loss model ate it.
    Lost,
}

impl<P: QueueItem + Default> Link<P> {
    pub fn new(rate: Rate, delay: Time, limit: u32, loss: Option<LossModel>) -> Link<P> {
        let mut link = Link {
            busy_until: 0,
            waiting_from: 0,
            pushed: 0,
            popped: 0,
            admitted: 0,
            admitted_bytes: 0,
            last_transmission: 0,
            delay,
            horizon: Time::MAX,
            extras: None,
            // Small to start (most links of a big topology hold few packets); doubles as needed.
            held: vec![Held::default(); 4].into_boxed_slice(),
            packets: Box::new([]),
            last_bytes: 0,
            limit,
            pass_through: false,
            lap_peak: 0,
            stats: LinkStats::default(),
            rate,
            dequeues: false,
            captured: false,
            ns2_ties: false,
            emulated: false,
            admitted_start: 0,
            started: [Start::default(); 2],
            scheduler: None,
        };
        if loss.is_some() {
            link.extras_mut().loss = loss;
        }
        link
    }

    /// The link's extras, created on first use. (Set a byte limit or RED before the
    /// first admission: the byte ring starts with them.)
    pub fn extras_mut(&mut self) -> &mut LinkExtras {
        self.extras.get_or_insert_with(|| Box::new(LinkExtras { queue_trace_limit: usize::MAX, ..Default::default() }))
    }

    pub fn red(&self) -> Option<&Red> {
        match self.extras.as_ref()?.aqm.as_ref()? {
            AdmissionAqm::Red(red) => Some(red),
            _ => None,
        }
    }

    pub fn bins(&self) -> Option<&LinkBins> {
        self.extras.as_ref().and_then(|x| x.bins.as_ref())
    }

    fn ring_mask(&self) -> u64 {
        self.held.len() as u64 - 1
    }

    /// Packet number `n` (counted from the first ever admitted), which must be held.
    #[inline]
    fn held_at(&self, n: u64) -> &Held {
        &self.held[(n & self.ring_mask()) as usize]
    }

    fn held_count(&self) -> u64 {
        self.pushed - self.popped
    }

    fn front(&self) -> Option<&Held> {
        (self.held_count() > 0).then(|| self.held_at(self.popped))
    }

    /// Hold entry number `pushed` (its packet, if kept, is written by the caller).
    #[inline]
    fn push(&mut self, held: Held) {
        if self.held_count() == self.held.len() as u64 {
            self.resize(2 * self.held.len()); // full
        }
        let slot = (self.pushed & self.ring_mask()) as usize;
        self.held[slot] = held;
        if let Some(x) = self.extras.as_mut().filter(|x| x.counts_bytes()) {
            if x.bytes_before.len() != self.held.len() {
                x.bytes_before = vec![0; self.held.len()]; // the first push (set up before it)
            }
            x.bytes_before[slot] = self.admitted_bytes;
        }
        self.pushed += 1;
        self.lap_peak = self.lap_peak.max(self.held_count() as u32);
        if self.pushed & self.ring_mask() == 0 {
            self.end_of_lap();
        }
    }

    /// The rings wrapped round: if a whole lap held at most an eighth of them, they
    /// shrink to a quarter. A ring grown for one burst (a slow start) would otherwise
    /// keep its size for the rest of the run, and its packets would go round all of it,
    /// each slot cold again when its turn comes (and a long run's memory would creep
    /// up with the largest burst seen).
    #[cold]
    fn end_of_lap(&mut self) {
        let size = self.held.len();
        if size >= MIN_SHRINKING_RING && self.lap_peak as usize * 8 <= size {
            self.resize(size / 4);
        }
        self.lap_peak = self.held_count() as u32;
    }

    /// Move the rings to `size` slots (a power of two holding every held entry), each
    /// held entry at its number's place in the new rings.
    #[cold]
    fn resize(&mut self, size: usize) {
        debug_assert!(size.is_power_of_two() && size as u64 >= self.held_count());
        let (old_mask, mask) = (self.ring_mask(), size as u64 - 1);
        let mut held = vec![Held::default(); size];
        let mut packets = vec![P::default(); if self.packets.is_empty() { 0 } else { size }];
        for n in self.popped..self.pushed {
            held[(n & mask) as usize] = *self.held_at(n);
            if !packets.is_empty() {
                packets[(n & mask) as usize] = self.packets[(n & old_mask) as usize];
            }
        }
        if let Some(x) = self.extras.as_mut().filter(|x| !x.bytes_before.is_empty()) {
            let mut bytes_before = vec![0; size];
            for n in self.popped..self.pushed {
                bytes_before[(n & mask) as usize] = x.bytes_before[(n & old_mask) as usize];
            }
            x.bytes_before = bytes_before;
        }
        self.held = held.into_boxed_slice();
        self.packets = packets.into_boxed_slice();
    }

    /// The ring slot of the packet just admitted, for the caller to fill: a link that is
    /// not pass-through keeps its packets until they arrive at the far end. (Filled in
    /// place, the packet is not built on the stack and copied again.)
    #[inline(always)]
    pub fn kept_slot(&mut self) -> &mut P {
        debug_assert!(!self.pass_through && self.pushed > 0);
        if self.packets.len() != self.held.len() {
            self.packets = vec![P::default(); self.held.len()].into_boxed_slice();
        }
        let slot = ((self.pushed - 1) & self.ring_mask()) as usize;
        &mut self.packets[slot]
    }

    /// Packets waiting for the transmitter at time `now` (not counting the one being sent).
    #[inline(always)]
    fn waiting_at(&mut self, now: Time) -> u32 {
        if self.ns2_ties {
            self.advance_starts::<true>(now)
        } else {
            self.advance_starts::<false>(now)
        }
    }

    /// Move `waiting_from` past the packets whose transmission has started by `now`;
    /// with `NOTE`, note each start for ns-2's order of one instant.
    #[inline(always)]
    fn advance_starts<const NOTE: bool>(&mut self, now: Time) -> u32 {
        while self.waiting_from < self.pushed {
            let held = *self.held_at(self.waiting_from);
            if held.tx_start > now {
                break;
            }
            if NOTE {
                let last = self.started[1];
                if held.tx_start != last.tx_start {
                    // it waited: the previous transmission's end (its `intr_`) started it
                    let tx_end = held.arrives.saturating_sub(self.delay);
                    self.started = [last, Start { tx_start: held.tx_start, tx_end, sched: last.tx_start }];
                } // else: started at its own arrival, noted then
            }
            self.waiting_from += 1;
        }
        if self.pass_through {
            self.popped = self.waiting_from; // started: a pass-through link keeps no more of it
        }
        (self.pushed - self.waiting_from) as u32
    }

    /// Whether, at an arrival at `now` when the next packet's transmission starts at that
    /// same instant, ns-2 would run the arrival first and so find that packet still
    /// waiting (a full DropTail queue then drops the arrival, where cclab's order has
    /// already freed the place). ns-2's scheduler runs the events of one instant in the
    /// order they were scheduled; the next transmission starts in the event the link
    /// scheduled when the finishing packet's transmission started (LinkDelay::recv:
    /// `intr_` at the end of the transmission), the arrival in the event scheduled when
    /// its own transmission started upstream (`sched`, from the engine).
    #[inline]
    fn ns2_arrives_first(&self, now: Time, sched: Time) -> bool {
        let starting = self.started[1];
        starting.tx_start == now && sched < starting.sched
    }

    /// With `ns2_ties`: a packet admitted at `now` starts at once. If the link's last
    /// transmission ends exactly now, ns-2 starts it in whichever of two events runs
    /// last, its arrival or the link's resume (scheduled at that transmission's start);
    /// a link idle before cannot tie with the arrival (0).
    #[inline]
    fn note_start_on_arrival(&mut self, now: Time, tx_end: Time, arrival_sched: Time) {
        let last = self.started[1];
        let sched = if last.tx_end == now { arrival_sched.max(last.tx_start) } else { 0 };
        self.started = [last, Start { tx_start: now, tx_end, sched }];
    }

    /// Offer a packet of `bytes` at time `now`; if it is admitted on a link that is not
    /// pass-through, the caller then writes it into [`kept_slot`](Link::kept_slot).
    /// `sched`: when ns-2 would have scheduled this arrival's event (read with
    /// `ns2_ties` only).
    #[inline(always)]
    pub fn offer(&mut self, now: Time, bytes: u32, ect: bool, sched: Time) -> Admission {
        if let Some(x) = self.extras.as_mut() {
            if let Some(bins) = x.bins.as_mut() {
                bins.arrival(now);
            }
            // A loss model judges the packet at the time its transmission would start.
            if let Some(model) = x.loss.as_mut() {
                if model.drops(self.busy_until.max(now)) {
                    self.stats.loss_drops += 1;
                    self.count_drop(now);
                    return Admission::Lost;
                }
            }
        }
        let mut waiting = self.waiting_at(now);
        if self.ns2_ties && self.ns2_arrives_first(now, sched) {
            waiting += 1;
        }
        let busy = self.busy_until > now;
        let mut mark_ce = false;
        // RED in byte mode limits the bytes waiting itself (ns-2: limit × mean_pktsize).
        let mut packet_limit = true;
        if self.extras.is_some() {
            let x = self.extras.as_mut().expect("checked");
            if let Some(trace) = x.queue_trace.as_mut() {
                if trace.len() < x.queue_trace_limit {
                    trace.push((now, waiting + busy as u32));
                } else {
                    x.queue_trace_full = true;
                }
            }
            // RED (or PIE, step marking) first: RED's average counts every arrival, as in
            // ns-2's REDQueue::enque.
            if x.aqm.is_some() {
                match self.discipline_verdict(now, waiting, busy, bytes, ect) {
                    (Verdict::Admit, limit) => packet_limit = limit,
                    (Verdict::Mark, limit) => {
                        mark_ce = true;
                        packet_limit = limit;
                    }
                    (Verdict::Drop, _) => return self.drop_arrival(now),
                }
            }
            if self.follows_trace() {
                return self.admit_on_trace(now, waiting, bytes, packet_limit, mark_ce);
            }
        }
        // ns-2 DropTail: drop if (queue length + 1) >= limit, the queue excluding the
        // packet in transmission.
        if busy && waiting + 1 >= self.limit && packet_limit {
            return self.drop_arrival(now);
        }
        let tx_start = self.busy_until.max(now);
        let mut transmission = self.last_transmission;
        if self.extras.is_some() || self.last_bytes != bytes {
            match self.admission_extras(now, busy, waiting, bytes, tx_start, mark_ce) {
                Ok(time) => transmission = time,
                Err(dropped) => return dropped,
            }
        }
        // Saturating: a slow link flooded for long could push its busy time past u64;
        // a saturated time is simply "after the end of any run".
        let tx_end = tx_start.saturating_add(transmission);
        if self.emulated {
            // mm-delay: the packet reaches the loop as its transmission ends
            let emulator = self.emulator_mut();
            let read = emulator.reads_at(tx_end);
            let due = emulator.delay_due(read);
            return self.admit_emulated(now, read, tx_start, tx_end, due, tx_start - now, bytes, mark_ce);
        }
        self.admitted(now, tx_start, tx_end, tx_end, tx_start - now, bytes, mark_ce, sched)
    }

    /// A packet admitted at `now` whose transmission starts at `tx_start` and ends at
    /// `tx_end`, leaving the link at `leaves` (`tx_end`, or later on a trace link with a
    /// release lag), having waited `queued` (as the link's statistics count it).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn admitted(&mut self, now: Time, tx_start: Time, tx_end: Time, leaves: Time, queued: Time, bytes: u32, mark_ce: bool, sched: Time) -> Admission {
        self.busy_until = tx_end;
        self.admitted += 1;
        let arrives = leaves.saturating_add(self.delay);
        if tx_end > self.horizon {
            self.stats.late_departures += 1;
            self.stats.late_bytes += bytes as u64;
        }
        let waits = tx_start > now;
        if queued > 0 {
            self.stats.queueing_delay_sum += queued as u128;
        }
        if self.ns2_ties && !waits {
            self.note_start_on_arrival(now, tx_end, sched);
        }
        if waits || !self.pass_through {
            self.push(Held { tx_start, arrives });
        }
        self.admitted_start = tx_start;
        self.admitted_bytes += bytes as u64;
        let schedule = if !self.pass_through && self.held_count() == 1 { Some(arrives) } else { None };
        Admission::Admitted { arrives, schedule, mark_ce }
    }

    /// Admission on a link that delivers by a trace: mm-link's droptail (at most `limit`
    /// packets waiting, the one in transit not counted), then the packet's service from
    /// the opportunities after its arrival millisecond. Its queueing delay is counted as
    /// mm-link logs it: from its arrival millisecond to its departure.
    #[inline(never)]
    fn admit_on_trace(&mut self, now: Time, waiting: u32, bytes: u32, packet_limit: bool, mark_ce: bool) -> Admission {
        if waiting >= self.limit && packet_limit {
            return self.drop_arrival(now);
        }
        let counts_bytes = self.extras.as_ref().is_some_and(|x| x.counts_bytes());
        let waiting_bytes = if counts_bytes { self.waiting_bytes(waiting) } else { 0 };
        let x = self.extras.as_mut().expect("a trace link has extras");
        if x.limit_bytes.is_some_and(|limit| waiting_bytes + bytes as u64 >= limit) {
            return self.drop_arrival(now);
        }
        let emulated = x.emulator.is_some();
        // mm-link reads (and stamps) the packet when its loop wakes for it
        let read = x.emulator.as_mut().map_or(now, |emulator| emulator.reads_at(now));
        let opportunities = x.opportunities.as_mut().expect("checked");
        let Service { start, end } = opportunities.serve(read, bytes, false);
        let leaves = if emulated { end } else { opportunities.release(end) };
        let queued = end - read / MS_NS * MS_NS;
        if let Some(bins) = x.bins.as_mut() {
            if bins.detail.is_some() {
                bins.queued(now, waiting, waiting_bytes);
                bins.started(now, queued, mark_ce);
            }
            bins.transmitted(end, bytes);
        }
        if emulated {
            return self.admit_emulated(now, read, start, end, end / MS_NS, queued, bytes, mark_ce);
        }
        self.admitted(now, start, end, leaves, queued, bytes, mark_ce, 0)
    }

    /// Admission where an emulator's loop releases the packets (`net::emulator_loop`):
    /// the packet reaches the loop at `wake` and wakes it, which may move the release of
    /// the first packet held (then scheduled again: the engine passes over the superseded
    /// event); it is held until the loop's first wake in its `due` millisecond or after.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn admit_emulated(&mut self, now: Time, wake: Time, tx_start: Time, tx_end: Time, due: u64, queued: Time, bytes: u32, mark_ce: bool) -> Admission {
        let emulator = self.emulator_mut();
        emulator.wake(wake);
        let moved = emulator.first_release();
        emulator.hold(due);
        // The first held packet's release is scheduled; the others' are found when their
        // turn comes (from the wakes then), so theirs is only a placeholder: their tick.
        let release = match moved {
            None => emulator.release(due),
            Some(_) => due.saturating_mul(MS_NS),
        };
        let reschedule = moved.filter(|&at| self.set_front_arrives(at));
        match self.admitted(now, tx_start, tx_end, release, queued, bytes, mark_ce, 0) {
            Admission::Admitted { arrives, schedule, mark_ce } => Admission::Admitted { arrives, schedule: schedule.or(reschedule), mark_ce },
            other => other,
        }
    }

    /// The parts of an admission only some links need (a byte limit, scheduled rates,
    /// per-bin counts) and a packet size other than the last one's: the drop (as an
    /// `Err`) or the transmission time.
    #[inline(never)]
    fn admission_extras(
        &mut self,
        now: Time,
        busy: bool,
        waiting: u32,
        bytes: u32,
        tx_start: Time,
        mark_ce: bool,
    ) -> Result<Time, Admission> {
        if let Some(limit) = self.extras.as_ref().and_then(|x| x.limit_bytes) {
            if busy && self.waiting_bytes(waiting) + bytes as u64 >= limit {
                return Err(self.drop_arrival(now));
            }
        }
        if self.extras.as_ref().is_some_and(|x| x.bins.as_ref().is_some_and(|b| b.detail.is_some())) {
            let queued_bytes = self.waiting_bytes(waiting);
            let bins = LinkBins::detailed_bins(&mut self.extras).expect("checked");
            bins.queued(now, waiting, queued_bytes);
            bins.started(now, tx_start - now, mark_ce);
        }
        Ok(self.transmission_time(bytes, tx_start))
    }

    /// How long sending `bytes` takes from `tx_start` (at the rate in force then, if the
    /// link's rate is scheduled), counted in the per-bin transmitted bytes.
    #[inline(always)]
    fn transmission_time(&mut self, bytes: u32, tx_start: Time) -> Time {
        let transmission = match self.extras.as_ref().and_then(|x| x.rate_schedule.as_ref()) {
            None => {
                if self.last_bytes != bytes {
                    self.last_bytes = bytes;
                    self.last_transmission = self.rate.transmission_time(bytes);
                }
                self.last_transmission
            }
            Some(schedule) => schedule.rate_at(self.rate, tx_start).transmission_time(bytes),
        };
        if let Some(bins) = self.extras.as_mut().and_then(|x| x.bins.as_mut()) {
            bins.transmitted(tx_start.saturating_add(transmission), bytes);
        }
        transmission
    }

    /// The queue (or RED) refuses the arriving packet.
    fn drop_arrival(&mut self, now: Time) -> Admission {
        self.stats.queue_drops += 1;
        self.count_drop(now);
        Admission::Dropped
    }

    #[inline]
    fn count_drop(&mut self, now: Time) {
        if let Some(bins) = self.extras.as_mut().and_then(|x| x.bins.as_mut()) {
            bins.dropped(now);
        }
    }

    /// Bytes of the `waiting` packets that have not started transmission (on a link that
    /// counts bytes: see [`LinkExtras::counts_bytes`]).
    fn waiting_bytes(&self, waiting: u32) -> u64 {
        match self.extras.as_ref() {
            Some(x) if waiting > 0 => self.admitted_bytes - x.bytes_before[(self.waiting_from & self.ring_mask()) as usize],
            _ => 0,
        }
    }

    /// The verdict of the link's admission-time discipline (RED, PIE, step marking) on
    /// an arrival, and whether the packet limit still applies (RED in byte mode applies
    /// its own, in bytes); out of line, to keep the common path short.
    #[inline(never)]
    fn discipline_verdict(&mut self, now: Time, waiting: u32, busy: bool, bytes: u32, ect: bool) -> (Verdict, bool) {
        let counts_bytes = self.extras.as_ref().and_then(|x| x.aqm.as_ref()).expect("checked").counts_bytes();
        let waiting_bytes = if counts_bytes { self.waiting_bytes(waiting) } else { 0 };
        let arrival = Arrival { now, busy_until: self.busy_until, waiting, waiting_bytes, busy, bytes, ect };
        let aqm = self.extras.as_mut().and_then(|x| x.aqm.as_mut()).expect("checked");
        (aqm.judge(&arrival), aqm.packet_limit())
    }

    fn remove_head(&mut self) -> Held {
        assert!(self.held_count() > 0, "a held packet");
        let head = *self.held_at(self.popped);
        self.popped += 1;
        if self.waiting_from < self.popped {
            self.waiting_from = self.popped;
        }
        head
    }

    /// The head packet reaches the far end now. Returns it, when its transmission
    /// started, and the time of the next arrival to schedule, if any.
    #[inline]
    pub fn take_arrival(&mut self) -> (P, Time, Option<Time>) {
        let packet = self.packets[(self.popped & self.ring_mask()) as usize];
        let tx_start = self.remove_head().tx_start;
        // With many flows a link's rings are rarely in cache when its next packet
        // arrives: fetch the next arrival's entries now, while this one is handled (its
        // packet here, its timing at the next call's `front`).
        let next = (self.popped & self.ring_mask()) as usize;
        crate::sim::prefetch(&self.packets[next]);
        crate::sim::prefetch(&self.held[(self.popped.wrapping_add(1) & self.ring_mask()) as usize]);
        (packet, tx_start, self.front().map(|h| h.arrives))
    }

    /// On a link whose emulator's loop releases the packets: the head packet reaches the
    /// far end now, if its release is now (None: the event was superseded, an arrival
    /// having moved the release). Returns as [`Link::take_arrival`], the next release
    /// found from the loop's wake now.
    pub fn take_emulated_arrival(&mut self, now: Time) -> Option<(P, Time, Option<Time>)> {
        if self.front().map_or(true, |head| head.arrives > now) {
            return None;
        }
        let (packet, tx_start, _) = self.take_arrival();
        let emulator = self.emulator_mut();
        emulator.handed_on();
        emulator.wake(now);
        let next = emulator.first_release();
        if let Some(at) = next {
            self.set_front_arrives(at);
        }
        Some((packet, tx_start, next))
    }

    fn emulator_mut(&mut self) -> &mut EmulatorLoop {
        self.extras.as_mut().and_then(|x| x.emulator.as_mut()).expect("an emulated link has an emulator")
    }

    /// The first held packet now reaches the far end at `at`: whether that moved it.
    fn set_front_arrives(&mut self, at: Time) -> bool {
        let slot = (self.popped & self.ring_mask()) as usize;
        let moved = self.held[slot].arrives != at;
        self.held[slot].arrives = at;
        moved
    }

    /// Give the link a dequeue-time discipline (before its first packet): the engine then
    /// offers packets with [`Link::offer_deferred`] and [`Link::enqueue`].
    pub fn set_scheduler(&mut self, discipline: DequeueAqm<P>) {
        self.extras_mut();
        self.dequeues = true;
        self.scheduler = Some(Box::new(Scheduler { discipline, dropped: Vec::new(), sending: false }));
    }

    /// A packet offered to a dequeue-time link at `now` (counted in the bins' arrivals):
    /// false if the loss model takes it (judged when the transmitter is next free, or
    /// now), true if it goes on to [`Link::enqueue`].
    pub fn offer_deferred(&mut self, now: Time) -> bool {
        let x = self.extras.as_mut().expect("a dequeue-time link has extras");
        if let Some(bins) = x.bins.as_mut() {
            bins.arrival(now);
        }
        if let Some(model) = x.loss.as_mut() {
            if model.drops(self.busy_until.max(now)) {
                self.stats.loss_drops += 1;
                self.count_drop(now);
                return false;
            }
        }
        true
    }

    /// Queue a packet [`Link::offer_deferred`] let through, at `now` (the engine's clock: nothing upstream
    /// hands packets on ahead of it). Drops, of it or of others for room, are left in
    /// [`Link::dropped`]. True when the transmitter is idle: the caller then calls
    /// [`Link::transmit_next`] at once.
    pub fn enqueue(&mut self, now: Time, packet: P) -> bool {
        let bytes = packet.bytes() as u64;
        let scheduler = self.scheduler.as_mut().expect("only a link with a scheduler defers");
        let (waiting, sending) = (scheduler.discipline.len() as u32, scheduler.sending);
        let before = scheduler.dropped.len();
        let x = self.extras.as_mut().expect("a deferring link has extras");
        if let Some(trace) = x.queue_trace.as_mut() {
            if trace.len() < x.queue_trace_limit {
                trace.push((now, waiting + sending as u32));
            } else {
                x.queue_trace_full = true;
            }
        }
        if sending && x.limit_bytes.is_some_and(|limit| scheduler.discipline.bytes() + bytes >= limit) {
            scheduler.dropped.push(packet);
        } else {
            if let Some(bins) = x.bins.as_mut() {
                bins.queued(now, waiting, scheduler.discipline.bytes());
            }
            scheduler.discipline.enqueue(now, packet, &mut scheduler.dropped);
        }
        let dropped = scheduler.dropped.len() - before;
        for _ in 0..dropped {
            self.drop_arrival(now);
        }
        !sending
    }

    /// The transmitter falls free at `now`: the discipline picks the next packet (its
    /// drops on the way left in [`Link::dropped`]), which is sent and then travels the
    /// ring like any other.
    /// `freed`: the transmitter fell free now (the last packet left now), as opposed to
    /// starting on an arrival at an idle link (a trace link then may not use what was
    /// left of the opportunity of the arrival's millisecond).
    pub fn transmit_next(&mut self, now: Time, freed: bool) -> Transmit {
        let scheduler = self.scheduler.as_mut().expect("only a link with a scheduler transmits on events");
        let before = scheduler.dropped.len();
        let next = scheduler.discipline.dequeue(now, &mut scheduler.dropped);
        scheduler.sending = next.is_some();
        let dropped = scheduler.dropped.len() - before;
        for _ in 0..dropped {
            self.drop_arrival(now);
        }
        let Some(next) = next else {
            return Transmit { free_at: None, schedule_arrival: None };
        };
        let mut packet = next.packet;
        if next.mark_ce {
            packet.mark_ce();
        }
        let bytes = packet.bytes();
        let (tx_end, leaves, queued) = match self.extras.as_mut().and_then(|x| x.opportunities.as_mut()) {
            // a trace link: served from the opportunities (taken as the last packet left,
            // it may use what that one left of its opportunity)
            Some(opportunities) => {
                let end = opportunities.serve(now, bytes, freed).end;
                let leaves = opportunities.release(end);
                if let Some(bins) = self.extras.as_mut().and_then(|x| x.bins.as_mut()) {
                    bins.transmitted(end, bytes);
                }
                (end, leaves, end - next.enqueued / MS_NS * MS_NS)
            }
            None => {
                let end = now.saturating_add(self.transmission_time(bytes, now));
                (end, end, now - next.enqueued)
            }
        };
        self.busy_until = tx_end;
        self.admitted += 1;
        self.admitted_bytes += bytes as u64;
        if tx_end > self.horizon {
            self.stats.late_departures += 1;
            self.stats.late_bytes += bytes as u64;
        }
        self.stats.queueing_delay_sum += queued as u128;
        if let Some(bins) = LinkBins::detailed_bins(&mut self.extras) {
            bins.started(next.enqueued, queued, next.mark_ce);
        }
        let arrives = leaves.saturating_add(self.delay);
        self.push(Held { tx_start: now, arrives });
        *self.kept_slot() = packet;
        Transmit { free_at: Some(tx_end), schedule_arrival: (self.held_count() == 1).then_some(arrives) }
    }

    /// Packets the dequeue-time discipline dropped since the engine last emptied this
    /// (None for other links).
    pub fn dropped(&mut self) -> Option<&mut Vec<P>> {
        self.scheduler.as_mut().map(|s| &mut s.dropped)
    }

    /// Packets waiting in a dequeue-time discipline.
    pub fn queued(&self) -> Box<dyn Iterator<Item = &P> + '_> {
        match self.scheduler.as_ref() {
            Some(s) => s.discipline.packets(),
            None => Box::new(std::iter::empty()),
        }
    }

    /// Packets marked CE, by RED or another discipline.
    pub fn ecn_marks(&self) -> u64 {
        let aqm = self.extras.as_ref().and_then(|x| x.aqm.as_ref());
        aqm.map_or(0, |aqm| aqm.marks()) + self.scheduler.as_ref().map_or(0, |s| s.discipline.marks())
    }

    /// Statistics of the discipline's internal queues (DualPI2's L and C), if it has several.
    pub fn queue_stats(&self) -> Vec<super::qdisc::QueueStats> {
        self.scheduler.as_ref().map_or_else(Vec::new, |s| s.discipline.queue_stats())
    }

    /// Packets an active queue discipline dropped early (RED's early and forced drops,
    /// PIE's, CoDel's at dequeue), as opposed to a full buffer.
    pub fn aqm_drops(&self) -> u64 {
        let aqm = self.extras.as_ref().and_then(|x| x.aqm.as_ref());
        aqm.map_or(0, |aqm| aqm.drops()) + self.scheduler.as_ref().map_or(0, |s| s.discipline.law_drops())
    }

    /// Packets this link holds (queued, in transmission or propagating); none for a
    /// pass-through link, whose packets are already held downstream.
    pub fn in_flight(&self) -> impl Iterator<Item = &P> + '_ {
        let held = if self.pass_through || self.packets.is_empty() { 0..0 } else { self.popped..self.pushed };
        held.map(|n| &self.packets[(n & self.ring_mask()) as usize])
    }

    /// Packets offered: admitted, dropped by the queue (or its discipline), lost, or
    /// still waiting in a dequeue-time discipline (admitted when their transmission starts).
    pub fn arrivals(&self) -> u64 {
        let waiting = self.scheduler.as_ref().map_or(0, |s| s.discipline.len() as u64);
        self.admitted + self.stats.queue_drops + self.stats.loss_drops + waiting
    }

    /// Packets and bytes whose transmission ends by the horizon (counted at admission,
    /// including those still propagating at the end).
    pub fn transmitted(&self) -> (u64, u64) {
        (self.admitted - self.stats.late_departures, self.admitted_bytes - self.stats.late_bytes)
    }

    /// Whether the link delivers by a trace's opportunities.
    pub fn follows_trace(&self) -> bool {
        self.extras.as_ref().is_some_and(|x| x.opportunities.is_some())
    }

    /// Transmitted bytes ÷ what the link could carry up to the horizon.
    pub fn utilization(&self) -> f64 {
        self.transmitted().1 as f64 * 8.0 / self.capacity_bits_until(self.horizon)
    }

    /// Bits the link can carry over [0, `until`): at its rate, or by its schedule (a
    /// square wave's rates, a trace's opportunities).
    pub fn capacity_bits_until(&self, until: Time) -> f64 {
        match self.extras.as_ref().and_then(|x| x.rate_schedule.as_ref()) {
            None => self.rate.bps() as f64 * until as f64 / 1e9,
            Some(schedule) => schedule.capacity_bits(self.rate, until),
        }
    }

    /// Whether the link's capacity changes over time (a square wave, a trace).
    pub fn is_scheduled(&self) -> bool {
        self.extras.as_ref().is_some_and(|x| x.rate_schedule.is_some())
    }

    /// Mean queueing delay of admitted packets, in ns.
    pub fn mean_queue_delay_ns(&self) -> f64 {
        if self.admitted == 0 {
            0.0
        } else {
            self.stats.queueing_delay_sum as f64 / self.admitted as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test packets are numbers: 1000 bytes each, their own flow, ECN-capable when odd.
    impl QueueItem for u32 {
        fn bytes(&self) -> u32 {
            1000
        }
        fn flow_key(&self) -> u32 {
            *self
        }
        fn ect(&self) -> bool {
            self % 2 == 1
        }
        fn mark_ce(&mut self) {
            *self |= 1 << 31;
        }
    }

    /// Offer packet `id` and keep it if admitted.
    fn offer(link: &mut Link<u32>, now: Time, id: u32, bytes: u32) -> Admission {
        offer_scheduled(link, now, id, bytes, 0)
    }

    /// [`offer`], its event scheduled at `sched` (for ns-2's order of one instant).
    fn offer_scheduled(link: &mut Link<u32>, now: Time, id: u32, bytes: u32, sched: Time) -> Admission {
        let admission = link.offer(now, bytes, false, sched);
        if let Admission::Admitted { .. } = admission {
            *link.kept_slot() = id;
        }
        admission
    }

    #[test]
    fn droptail_limit_counts_packet_in_transmission() {
        // 8 Mb/s: a 1000-byte packet takes 1 ms.
        let mut link: Link<u32> = Link::new(Rate(8_000_000), 5_000_000, 3, None);
        let mut admitted = 0;
        for id in 0..10 {
            if let Admission::Admitted { .. } = offer(&mut link, 0, id, 1000) {
                admitted += 1;
            }
        }
        // one in transmission + limit-1 waiting
        assert_eq!(admitted, 3);
        assert_eq!(link.stats.queue_drops, 7);
        // at t = 1 ms the first has left the transmitter: one more fits
        assert!(matches!(offer(&mut link, 1_000_000, 10, 1000), Admission::Admitted { schedule: None, .. }));
        assert_eq!(offer(&mut link, 1_000_000, 11, 1000), Admission::Dropped);
    }

    /// At t = 11 ms the first packet's transmission (from 10 ms) ends and the next one's
    /// starts. An arrival at that instant finds a place in cclab's order (the start
    /// first); in ns-2's (`ns2_ties`) only if its event was scheduled after the one
    /// starting that transmission, i.e. its own transmission upstream started after the
    /// first packet's here: not at 5 ms, yes at 10.5 ms. Arrivals at other instants,
    /// and a packet starting now on a link that was idle, are not ties.
    #[test]
    fn an_arrival_at_a_transmission_start_is_ordered_as_in_ns2() {
        const MS: Time = 1_000_000;
        for (ns2_ties, sched, admitted) in [(false, 5 * MS, true), (true, 5 * MS, false), (true, 10 * MS + MS / 2, true)] {
            let mut link: Link<u32> = Link::new(Rate(8_000_000), 5 * MS, 3, None);
            link.ns2_ties = ns2_ties;
            for id in 0..3 {
                assert!(matches!(offer(&mut link, 10 * MS, id, 1000), Admission::Admitted { .. }));
            }
            let got = offer_scheduled(&mut link, 11 * MS, 3, 1000, sched);
            assert_eq!(matches!(got, Admission::Admitted { .. }), admitted, "ns2_ties {ns2_ties}, scheduled at {sched}");
            let after = offer(&mut link, 11 * MS + 1, 4, 1000);
            assert_eq!(matches!(after, Admission::Admitted { .. }), !admitted, "just after it, the place is free if the tie left it");
        }
        let mut link: Link<u32> = Link::new(Rate(8_000_000), 5 * MS, 2, None);
        link.ns2_ties = true;
        assert!(matches!(offer(&mut link, 0, 0, 1000), Admission::Admitted { .. }));
        assert!(matches!(offer(&mut link, 3 * MS, 1, 1000), Admission::Admitted { .. })); // idle: starts now
        assert!(matches!(offer(&mut link, 3 * MS, 2, 1000), Admission::Admitted { .. }), "not behind a waiting one");
    }

    /// RED in byte mode limits the bytes waiting to limit × mean_packet_size (ns-2.35's
    /// `qlim_ · mean_pktsize_`, compared with the bytes waiting before the arrival), not
    /// the packets; packet mode keeps the DropTail packet limit. (ns-2.35, a burst of 200
    /// into Queue/RED with limit_ 10 and thresholds out of reach: byte mode admits 6 of
    /// 1000 B and 126 of 40 B, as here; packet mode 11, one more than cclab's 10.)
    #[test]
    fn byte_mode_red_limits_bytes_not_packets() {
        use crate::net::qdisc::red::{RedMode, RedSpec};
        use crate::sim::rng::stream;
        // thresholds far above the limit: no early drops, only the limit acts
        let spec = |mode| RedSpec { min_th: Some(1e6), max_th: Some(2e6), mode, ..RedSpec::default() };
        let burst = |mode, bytes: u32| {
            let mut link: Link<u32> = Link::new(Rate(8_000_000), 0, 10, None);
            link.extras_mut().aqm = Some(AdmissionAqm::Red(Red::new(&spec(mode), link.rate, 0, 10, stream(1, 1))));
            (0..200).filter(|&id| matches!(offer(&mut link, 0, id, bytes), Admission::Admitted { .. })).count()
        };
        // 10 × 500 = 5000 B: one in transmission, then 0, 1000, …, 4000 B found waiting
        // are admitted (5 packets), 5000 is not
        assert_eq!(burst(RedMode::Bytes, 1000), 6);
        // 40-byte packets: 125 wait (4960 B found by the last), 5000 B refuses the next
        assert_eq!(burst(RedMode::Bytes, 40), 126);
        // packet mode: the DropTail limit, 10 with the one in transmission
        assert_eq!(burst(RedMode::Packets, 1000), 10);
        assert_eq!(burst(RedMode::Packets, 40), 10);
    }

    #[test]
    fn byte_limit_counts_waiting_bytes() {
        let mut link: Link<u32> = Link::new(Rate(8_000_000), 0, 100, None);
        link.extras_mut().limit_bytes = Some(2500);
        // one in transmission, then 1000 + 1000 waiting; a third 1000 would reach 3000
        let fates: Vec<bool> = (0..4).map(|id| matches!(offer(&mut link, 0, id, 1000), Admission::Admitted { .. })).collect();
        assert_eq!(fates, vec![true, true, true, false]);
        assert!(matches!(offer(&mut link, 0, 9, 400), Admission::Admitted { .. }), "2000 + 400 < 2500");
    }

    #[test]
    fn ring_keeps_order_across_wrap_and_growth() {
        // 8 Mb/s, no delay: packet k (admitted at 0) arrives at (k + 1) ms.
        let mut link: Link<u32> = Link::new(Rate(8_000_000), 0, 1000, None);
        for id in 0..10 {
            offer(&mut link, 0, id, 1000);
        }
        for id in 0..7 {
            assert_eq!(link.take_arrival().0, id);
        }
        // 40 more while the ring's start has moved: it wraps, then grows twice
        for id in 10..50 {
            offer(&mut link, 0, id, 1000);
        }
        assert_eq!(link.in_flight().copied().collect::<Vec<_>>(), (7..50).collect::<Vec<_>>());
        for id in 7..50 {
            let (packet, _, next) = link.take_arrival();
            assert_eq!(packet, id);
            assert_eq!(next, (id < 49).then_some((id as u64 + 2) * 1_000_000));
        }
        assert_eq!(link.transmitted().0, 50);
    }

    #[test]
    fn rings_shrink_after_a_quiet_lap_and_keep_order() {
        // 8 Mb/s, no delay: a 1000-byte packet takes 1 ms.
        let mut link: Link<u32> = Link::new(Rate(8_000_000), 0, 1000, None);
        for id in 0..100 {
            offer(&mut link, 0, id, 1000);
        }
        assert_eq!(link.held.len(), 128, "grown for the burst");
        for id in 0..100 {
            assert_eq!(link.take_arrival().0, id);
        }
        // Then one packet at a time: after a lap of 128 pushes holding at most one, the
        // rings shrink to a quarter (32), and no further (rings under 64 slots stay).
        let mut now = 1_000_000_000;
        for id in 100..400 {
            offer(&mut link, now, id, 1000);
            let (packet, _, next) = link.take_arrival();
            assert_eq!((packet, next), (id, None));
            now += 2_000_000;
        }
        assert_eq!(link.held.len(), 32);
        assert_eq!(link.packets.len(), 32);
        // A burst straddling the shrunk ring's wrap still comes out in order.
        for id in 400..450 {
            offer(&mut link, now, id, 1000);
        }
        assert!(link.held.len() >= 64);
        let order: Vec<u32> = (400..450).map(|_| link.take_arrival().0).collect();
        assert_eq!(order, (400..450).collect::<Vec<_>>());
        assert_eq!(link.transmitted().0, 450);
    }

    #[test]
    fn arrivals_are_serialisation_plus_delay() {
        let mut link: Link<u32> = Link::new(Rate(8_000_000), 5_000_000, 100, None);
        assert_eq!(offer(&mut link, 0, 0, 1000), Admission::Admitted { arrives: 6_000_000, schedule: Some(6_000_000), mark_ce: false });
        assert_eq!(offer(&mut link, 0, 1, 1000), Admission::Admitted { arrives: 7_000_000, schedule: None, mark_ce: false });
        let (p, _, next) = link.take_arrival();
        assert_eq!((p, next), (0, Some(7_000_000)));
        assert_eq!(link.stats.queueing_delay_sum, 1_000_000);
    }
}
