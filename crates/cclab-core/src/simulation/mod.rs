//! The engine loop: it owns the event queue, the links (which carry the packets) and the
//! endpoints, and moves packets between them. It knows no protocol: endpoints are
//! sans-IO state machines ([`Endpoint`]) that take packets and timer calls and hand back
//! packets to send. Nothing here knows about Python or files.
use crate::cc::external::ExternalConfig;
use crate::cc::CongestionControl;
use crate::metrics::*;
use crate::net::link::Admission;
use crate::net::packet::ecn;
use crate::net::topology::Graph;
use crate::net::{LinkId, RouteId};
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::rng::RngStream;
use crate::sim::events::MAX_EVENT_ID;
use crate::sim::{Event, EventQueue, Time, NS_PER_SEC};
use crate::transport::{Endpoint, Header, PacketClass};

mod arrivals;
mod build;
mod outbox;
mod stepping;
mod summary;

pub use build::check_memory;
pub use stepping::FlowInterval;
use outbox::{count_dropped, enqueue_deferred, keep_admitted, transmit_next, EngineOutbox};

type Packet = crate::net::Packet<Header, PacketClass>;
type Link = crate::net::Link<Packet>;

/// One flow: a source endpoint (id 2·flow) sending data to a sink endpoint
/// (id 2·flow + 1), which answers, if it does, on the reverse path.
struct Flow {
    group: usize,
    base_rtt: Time,
    start: Time,
    stop: Option<Time>,
    delivered_bins: Vec<u64>,
    trace: Option<FlowTrace>,
    /// A finite flow (`app = { kind = "bulk", size }`, or one that arrived): its size
    /// and when its sink had it all.
    finite: Option<Finite>,
}

/// A finite flow's size and completion.
#[derive(Clone, Copy)]
struct Finite {
    packets: u64,
    /// The least time the flow can take (see `Simulation::ideal_fct`).
    ideal: Time,
    done: Option<Time>,
}

/// Packet destinations hold the endpoint id in these bits and, above them, the
/// generation of the flow slot (see [`Host::tag`]).
const ENDPOINT_MASK: u32 = MAX_EVENT_ID;
const GENERATION_SHIFT: u32 = MAX_EVENT_ID.count_ones();

/// A group whose flows arrive during the run (`arrivals`): its Poisson process and the
/// source/sink pairs (paths) its flows take in turn.
struct Arrivals {
    group: usize,
    spec: crate::app::ArrivalSpec,
    mean_gap_ns: f64,
    rng: RngStream,
    pairs: Vec<PairPath>,
    next_pair: usize,
    stop: Option<Time>,
    /// Flows started so far (their CC seeds), and arrivals refused for want of event ids.
    started: u64,
    refused: u64,
}

/// Where the flows of one source/sink pair of an arrivals group send.
#[derive(Clone, Copy)]
struct PairPath {
    data_route: RouteId,
    reply_route: RouteId,
    base_rtt: Time,
}

/// An endpoint, the engine's one timer event for it, and what the hot path needs to
/// know about it without touching its flow: the route it sends on, whether it is traced.
struct Host {
    endpoint: Endpoint,
    timer: LazyTimer,
    /// Where the route the endpoint sends on starts in `Simulation::route_links`.
    route: u32,
    /// The first link of that route, where what the endpoint sends goes (never pass-through).
    first_link: LinkId,
    traced: bool,
    /// What this host (a sink) delivered.
    deliveries: Deliveries,
    /// The generation of the flow slot this host belongs to, shifted above the endpoint
    /// bits: packets carry their destination's tag, so a packet of a flow that has ended
    /// cannot reach the flow that took its slot (0 for flows that never end).
    tag: u32,
    /// A sink's one-way delay statistics (`trace.delays`).
    delays: Option<Box<DelayStats>>,
}

/// A sink's deliveries, counted on its host and moved into its flow's bins only when a
/// bin closes: with thousands of flows a delivery then touches no memory the sink's own
/// call does not. Deliveries to a host come in time order (see `arrive_at_host`).
struct Deliveries {
    /// Application packets delivered (TCP: in order) by the end of the run.
    total: u64,
    /// The bin being filled, when it ends, and the packets delivered in it so far.
    bin: usize,
    bin_end: Time,
    in_bin: u64,
    /// A finite flow is complete when `total` reaches this (u64::MAX otherwise).
    goal: u64,
}

impl Default for Deliveries {
    fn default() -> Deliveries {
        Deliveries { total: 0, bin: 0, bin_end: 0, in_bin: 0, goal: u64::MAX }
    }
}

/// Ends each route in `Simulation::route_links` (no link has this id: event ids are
/// smaller).
const ROUTE_END: LinkId = LinkId::MAX;

fn source_of(flow: u32) -> u32 {
    2 * flow
}
fn flow_of(endpoint: u32) -> u32 {
    endpoint / 2
}

/// A host timer kept as a deadline the host owns; the engine keeps at most one event
/// per deadline that moves earlier and none when it moves later (TCP pushes its
/// retransmission deadline later on every ACK). A stale event finds the deadline
/// later and re-arms.
#[derive(Default)]
struct LazyTimer {
    /// The earliest pending event scheduled for this timer.
    pending: Option<Time>,
    /// The endpoint's deadline as of its last call (an endpoint changes only in its own
    /// calls, and the engine re-arms after each): read before a delivery without asking
    /// the endpoint again.
    deadline: Option<Time>,
}

impl LazyTimer {
    fn arm(&mut self, deadline: Option<Time>, events: &mut EventQueue, event: Event) {
        self.deadline = deadline;
        if let Some(deadline) = deadline {
            if self.pending.map_or(true, |at| at > deadline) {
                self.pending = Some(deadline);
                events.schedule(deadline, event);
            }
        }
    }
    fn fired(&mut self, now: Time) {
        if self.pending == Some(now) {
            self.pending = None;
        }
    }
}

/// Why a source acted (the `event` column of flow traces).
#[derive(Clone, Copy)]
enum Cause {
    Arrival,
    Timer,
}

pub struct Simulation {
    /// When ns-2 would have scheduled the event being handled (for [`Link::ns2_ties`]):
    /// a packet's arrival, when its transmission started on the link it crossed; a
    /// timer, before anything else at its instant (ns-2's timers are set at least a
    /// packet time earlier).
    event_sched: Time,
    scenario: Scenario,
    horizon: Time,
    events: EventQueue,
    links: Vec<Link>,
    /// Every route's links, one route after another, each followed by [`ROUTE_END`]. A
    /// packet carries where its route starts here (see [`Host::route`]), so its next link
    /// is one load away.
    route_links: Vec<LinkId>,
    /// Nodes and link directions (for the per-link results) and the bottleneck.
    graph: Graph,
    flows: Vec<Flow>,
    hosts: Vec<Host>,
    /// Scratch space for tracing a source's state.
    trace_window: Vec<(&'static str, f64)>,
    trace_cc: Vec<(&'static str, f64)>,
    trace_key: String,
    /// Flow-trace rows the memory limit still allows; when none are left the traces stop
    /// (at this time), with a warning.
    trace_rows_left: u64,
    trace_stopped_at: Option<Time>,
    /// What to raise when the traces reach the memory limit, in the caller's words.
    raise_hint: String,
    /// The link directions `trace.links` names, in its order.
    traced_links: Vec<LinkId>,
    /// The payload of the agents' segments, which the stepping interface reports (one size
    /// for all of them, `Simulation::for_stepping`); the scenario's packet_size otherwise.
    agent_payload_bytes: u32,
    bin_width: Time,
    counts: Counts,
    /// Groups whose flows arrive over the run; their generators' timer ids count down
    /// below the dequeue-time links' (see `on_reserved_timer`).
    arrivals: Vec<Arrivals>,
    /// Slots of ended arrived flows, with when they ended, oldest first.
    free_slots: std::collections::VecDeque<(Time, u32)>,
    /// Every finite flow that ended, and (at the end) every one still running, while
    /// `trace.fcts` keeps rows and the memory limit allows (`fct_rows_left`).
    fcts: Vec<FctRecord>,
    fct_rows_left: u64,
    fct_rows_stopped_at: Option<Time>,
    /// Each group's completion-time statistics, accumulated flow by flow (fixed memory).
    fct_summaries: Vec<Option<Box<FctAccumulator>>>,
    /// Route table starts, by route id (for flows made during the run).
    route_starts: Vec<u32>,
    /// Flows 0..static_flows are the scenario's own; above are arrived flows' slots.
    static_flows: usize,
    /// Slots for arrived flows the memory limit allows: flows arriving faster than they
    /// end would otherwise take memory without bound.
    slots_allowed: usize,
    /// Why the run stopped before its end (the memory limit), in one line.
    stopped: Option<String>,
    /// The memory limit, as messages give it.
    memory_limit: u64,
    /// What the arrived flows of each arrivals group did, moved here as their slots
    /// are reused (and at the end).
    arrival_totals: Vec<ArrivalTotals>,
    /// A simulation an environment steps ([`Simulation::for_stepping`]): its clock and
    /// agent flows.
    stepping: Option<Box<stepping::Stepping>>,
}

/// What the flows of an arrivals group did, all together.
#[derive(Clone, Default)]
struct ArrivalTotals {
    delivered_packets: u64,
    data_packets_sent: u64,
    retransmitted_packets: u64,
    timeouts: u64,
    /// With `trace.delays`: the arrived flows' sinks' one-way delays, merged.
    delays: Option<Box<DelayStats>>,
}

/// Packets of each class (indexed by `PacketClass as usize`) by what became of them.
#[derive(Default)]
struct Counts {
    sent: [u64; PacketClass::COUNT],
    received: [u64; PacketClass::COUNT],
    dropped: [u64; PacketClass::COUNT],
    /// Whose arrival at their host (or next link) falls after the end of the run.
    late: [u64; PacketClass::COUNT],
    /// What the links named in `trace.pcap` transmitted.
    captures: Captures,
    /// Packets that reached a host after their flow ended and its slot went to another.
    stale: [u64; PacketClass::COUNT],
}

/// The packet captures of the links named in `trace.pcap` (those with
/// `Link::captured`), up to a number of packets the memory limit allows.
#[derive(Default)]
struct Captures {
    by_link: Vec<(LinkId, Capture)>,
    /// For each link direction, its place in `by_link` (`u32::MAX`: not captured), so that
    /// recording a packet costs one load however many links are captured.
    slot_of: Vec<u32>,
    /// Packets that may still be recorded, all captures together.
    room: usize,
    /// For each flow slot, the segment payload (bytes) of its flow and of the one before,
    /// with their generations (the tag their packets carry), set as a flow takes the slot:
    /// arriving flows of groups with their own `packet_size` share slots, and a flow's last
    /// packets may still be under way when the next one takes its slot.
    payload_of_flow: Vec<[(u32, u32); 2]>,
}

impl Captures {
    /// The flow in `slot`, whose endpoints carry `tag`, sends segments of `payload` bytes
    /// (only kept while capturing).
    pub(super) fn flow_payload(&mut self, slot: usize, tag: u32, payload: u64) {
        if self.by_link.is_empty() {
            return;
        }
        if self.payload_of_flow.len() <= slot {
            self.payload_of_flow.resize(slot + 1, [(0, 0); 2]);
        }
        let flows = &mut self.payload_of_flow[slot];
        flows[1] = flows[0];
        flows[0] = (tag >> GENERATION_SHIFT, payload as u32);
    }

    /// The segment payload of the flow in `slot` whose packets carry `generation`.
    fn payload(&self, slot: u32, generation: u32) -> u32 {
        let Some(flows) = self.payload_of_flow.get(slot as usize) else { return 0 };
        flows.iter().find(|(g, _)| *g == generation).map_or(flows[0].1, |&(_, payload)| payload)
    }

    /// Link `link` transmitted `packet` (with ECN bits `ecn`), its last bit leaving at `at`.
    #[cold]
    #[inline(never)]
    fn record(&mut self, link: LinkId, at: Time, packet: &Packet, ecn: u8) {
        let flow = flow_of(packet.destination & ENDPOINT_MASK);
        let payload = self.payload(flow, packet.destination >> GENERATION_SHIFT);
        let Some((_, capture)) = self.slot_of.get(link as usize).and_then(|&k| self.by_link.get_mut(k as usize)) else {
            return;
        };
        if self.room == 0 {
            capture.truncated = true;
            return;
        }
        self.room -= 1;
        let (kind, seq, ack, flags) = match packet.header {
            Header::TcpData { seq, syn: true, .. } => (Capture::SYN, seq, 0, 0),
            Header::TcpData { seq, cwr, psh, .. } => {
                (Capture::TCP_DATA, seq, 0, if cwr { Capture::CWR } else { 0 } | if psh { Capture::PSH } else { 0 })
            }
            Header::TcpAck(ack) => (Capture::TCP_ACK, 0, ack.cumulative, if ack.ece { Capture::ECE } else { 0 }),
            Header::Udp { seq, .. } => (Capture::UDP, seq, 0, 0),
            Header::TfrcData(data) => (Capture::TFRC_DATA, data.seq, 0, 0),
            Header::TfrcFeedback(_) => (Capture::TFRC_FEEDBACK, 0, 0, 0),
        };
        capture.t_ns.push(at);
        capture.bytes.push(packet.size);
        capture.flow.push(flow);
        capture.payload.push(payload);
        capture.kind.push(kind);
        capture.seq.push(seq);
        capture.ack.push(ack);
        capture.flags.push(flags);
        capture.ecn.push(ecn);
    }
}

/// What a run may use of the machine.
#[derive(Clone, Debug)]
pub struct RunLimits {
    /// A run whose estimated memory is larger is refused before it allocates anything.
    pub max_memory_bytes: u64,
    /// How the caller names the limit (`--max-memory` on a command line, `max_memory` in
    /// Python), so that messages say what to raise in the caller's own words.
    pub memory_limit_name: Option<String>,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits { max_memory_bytes: 8 << 30, memory_limit_name: None }
    }
}

impl RunLimits {
    /// "raise --max-memory", or "raise the memory limit" when the caller gave no name.
    fn raise_hint(&self) -> String {
        match &self.memory_limit_name {
            Some(name) => format!("raise {name}"),
            None => "raise the memory limit".into(),
        }
    }
}

/// What a run's observer answers ([`Simulation::run_observed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    Continue,
    Stop,
}

#[cold]
#[inline(never)]
fn observe(observer: &mut dyn FnMut(Time, Time) -> Observed, now: Time, end: Time) -> Observed {
    observer(now, end)
}

/// Events between two calls of a run's observer that embedders use: at the engine's
/// 3–8 million events per second, a few milliseconds of work (an interruption is seen
/// well within a second, and the observer's cost is lost in the noise).
pub const OBSERVE_EVERY: u64 = 1 << 15;

impl Simulation {

    /// Turn off pass-through links and eager hosts: every hop becomes an event. The
    /// results must not change (only the event count); tests check that they don't.
    #[doc(hidden)]
    pub fn without_shortcuts(mut self) -> Simulation {
        for link in &mut self.links {
            link.pass_through = false;
        }
        self
    }

    /// Run to the end of the scenario and summarise; an error if the run had to stop
    /// before its end (arrived flows piling up past the memory limit).
    pub fn run(mut self) -> Result<RunResult, ScenarioError> {
        self.run_events();
        self.finish()
    }

    fn finish(self) -> Result<RunResult, ScenarioError> {
        match self.stopped {
            Some(why) => Err(ScenarioError(why)),
            None => Ok(self.summarise()),
        }
    }

    fn run_events(&mut self) {
        while let Some((now, event)) = self.events.pop_until(self.horizon) {
            self.dispatch(now, event);
        }
    }

    /// Run, and say how many flow slots the arrived flows needed (tests: memory follows
    /// the flows alive).
    #[doc(hidden)]
    pub fn run_and_count_slots(mut self) -> usize {
        self.run_events();
        self.flows.len() - self.static_flows
    }

    /// Run as [`Simulation::run`] does, and after every `every` events (never otherwise)
    /// ask `observer(now, end)` — the simulated time reached and the run's end, in
    /// nanoseconds — whether to go on. The embedder shows progress or checks for an
    /// interruption there (the core itself has no clock and no I/O); the observer sees
    /// nothing of the simulation's state, so a run it lets finish gives the same result as
    /// [`Simulation::run`], bit for bit. `None` when the observer said
    /// [`Observed::Stop`]: the run is abandoned, nothing of it is returned; an error as
    /// [`Simulation::run`]'s.
    pub fn run_observed(mut self, every: u64, observer: &mut dyn FnMut(Time, Time) -> Observed) -> Option<Result<RunResult, ScenarioError>> {
        let every = every.max(1);
        let mut left = every;
        // The loop of `run`, with a countdown beside it (the observer's call kept out of
        // line, so the loop inlines as `run`'s does).
        while let Some((now, event)) = self.events.pop_until(self.horizon) {
            self.dispatch(now, event);
            left -= 1;
            if left == 0 {
                left = every;
                if observe(observer, now, self.horizon) == Observed::Stop {
                    return None;
                }
            }
        }
        Some(self.finish())
    }

    #[inline(always)]
    fn dispatch(&mut self, now: Time, event: Event) {
        match event {
            Event::LinkArrival(link) => self.on_link_arrival(now, link),
            Event::Timer(endpoint) => self.on_timer(now, endpoint),
        }
    }

    /// The transmitter of a dequeue-time link falls free (out of line: FIFO links never
    /// have these events).
    #[cold]
    #[inline(never)]
    fn on_link_dequeue(&mut self, now: Time, link: LinkId) {
        let target = &mut self.links[link as usize];
        transmit_next(target, link, &mut self.events, &mut self.counts, now, true);
        count_dropped(target, &mut self.counts);
    }

    fn on_link_arrival(&mut self, now: Time, link: LinkId) {
        let target = &mut self.links[link as usize];
        let (packet, tx_start, next) = if target.emulated {
            match target.take_emulated_arrival(now) {
                Some(taken) => {
                    if target.captured {
                        self.counts.captures.record(link, now, &taken.0, taken.0.ecn);
                    }
                    taken
                }
                None => return, // superseded: the release moved
            }
        } else {
            target.take_arrival()
        };
        self.event_sched = tx_start;
        if let Some(at) = next {
            self.events.schedule(at, Event::LinkArrival(link));
        }
        let hop = packet.hop + 1;
        match self.route_links[(packet.route + hop as u32) as usize] {
            ROUTE_END => self.arrive_at_host(now, packet.ecn, &packet),
            next_link => self.offer(now, next_link, hop, packet.ecn, &packet),
        }
    }

    /// Offer a packet, at hop `hop` of its route with ECN bits `ecn_bits`, to a link at
    /// `now`; through pass-through links it goes on at once to the next link, at the
    /// (future) time it will reach it. The packet itself is not changed in transit (its
    /// hop and ECN bits travel beside it) and is copied only into the ring of the link
    /// that keeps it.
    fn offer(&mut self, mut now: Time, mut link: LinkId, mut hop: u16, mut ecn_bits: u8, packet: &Packet) {
        // when ns-2 would have scheduled this arrival (handed on: its start on the last link)
        let mut sched = self.event_sched;
        loop {
            if now > self.horizon {
                // Handed on ahead of time but due after the end: still in flight then.
                return self.count_late(packet);
            }
            let target = &mut self.links[link as usize];
            if target.dequeues {
                return self.defer(now, link, hop, ecn_bits, packet);
            }
            match target.offer(now, packet.size, ecn_bits & ecn::ECT != 0, sched) {
                Admission::Admitted { arrives, schedule, mark_ce } => {
                    if mark_ce {
                        ecn_bits |= ecn::CE;
                    }
                    // (an emulated link's release is known only when it happens: recorded then)
                    if target.captured && !target.emulated {
                        self.counts.captures.record(link, arrives - target.delay, packet, ecn_bits);
                    }
                    if !target.pass_through {
                        let kept = keep_admitted(target, link, &mut self.events, schedule);
                        *kept = *packet;
                        kept.hop = hop;
                        kept.ecn = ecn_bits;
                        return;
                    }
                    sched = target.admitted_start;
                    hop += 1;
                    match self.route_links[(packet.route + hop as u32) as usize] {
                        ROUTE_END => {
                            self.event_sched = sched;
                            return self.arrive_at_host(arrives, ecn_bits, packet);
                        }
                        next => link = next,
                    }
                    now = arrives;
                }
                Admission::Dropped | Admission::Lost => {
                    self.counts.dropped[packet.class as usize] += 1;
                    return;
                }
            }
        }
    }

    /// A dequeue-time link takes the packet at `now` (out of line: FIFO links never come here).
    #[cold]
    #[inline(never)]
    fn defer(&mut self, now: Time, link: LinkId, hop: u16, ecn_bits: u8, packet: &Packet) {
        let queued = Packet { hop, ecn: ecn_bits, ..*packet };
        enqueue_deferred(&mut self.links[link as usize], link, &mut self.events, &mut self.counts, now, queued);
    }

    /// A packet reaches its destination host at `at`.
    ///
    /// Hosts are eager: when the last link of a route is pass-through, a packet is
    /// handed to its endpoint as soon as its arrival time is known, possibly ahead of
    /// the engine's clock. That is exact because an endpoint is a function of its own
    /// inputs only: its arrivals, which come over one FIFO path and so in time order,
    /// and its own timers, which are fired first whenever they fall due before the
    /// arrival (and what it sends goes to a link only it feeds: see
    /// `Network::pass_through_links`). Arrivals after the end of the run are left
    /// undelivered (counted as in flight).
    fn arrive_at_host(&mut self, at: Time, ecn_bits: u8, packet: &Packet) {
        if at > self.horizon {
            return self.count_late(packet);
        }
        self.deliver(at, ecn_bits, packet);
    }

    /// A packet whose next step falls after the end of the run: count it in flight.
    fn count_late(&mut self, packet: &Packet) {
        self.counts.late[packet.class as usize] += 1;
    }

    fn deliver(&mut self, now: Time, ecn_bits: u8, packet: &Packet) {
        self.counts.received[packet.class as usize] += 1;
        let endpoint = packet.destination & ENDPOINT_MASK;
        // Only packets of arrived flows carry a generation (never 0: see `on_flow_arrival`).
        if packet.destination > ENDPOINT_MASK && packet.destination != endpoint | self.hosts[endpoint as usize].tag {
            return self.count_stale(packet);
        }
        if self.hosts[endpoint as usize].delays.is_some() {
            self.record_delay(now, endpoint, packet);
        }
        let sched = self.event_sched;
        self.fire_due_timers(endpoint, now);
        self.event_sched = sched; // the timers' own sends were theirs
        let (host, mut outbox) = self.endpoint_and_outbox(now, endpoint);
        let delivered = host.on_packet(now, &packet.header, ecn_bits, &mut outbox);
        if delivered > 0 {
            if now >= self.hosts[endpoint as usize].deliveries.bin_end {
                self.close_delivery_bin(endpoint, now);
            }
            let deliveries = &mut self.hosts[endpoint as usize].deliveries;
            deliveries.in_bin += delivered as u64;
            deliveries.total += delivered as u64;
            if deliveries.total >= deliveries.goal {
                self.flow_done(now, endpoint);
            }
        }
        self.after_endpoint(now, endpoint, Cause::Arrival);
    }

    /// A data packet's one-way delay, into its sink's statistics.
    #[cold]
    #[inline(never)]
    fn record_delay(&mut self, now: Time, endpoint: u32, packet: &Packet) {
        let sent = match packet.header {
            Header::TcpData { syn: false, sent_at, .. } | Header::Udp { sent_at, .. } => sent_at,
            Header::TfrcData(data) => data.sent_at,
            _ => return,
        };
        if let Some(stats) = self.hosts[endpoint as usize].delays.as_deref_mut() {
            stats.record(now.saturating_sub(sent));
        }
    }

    /// A packet for a flow whose slot another flow has taken since: it arrives (it was
    /// received) and is dropped by the host, as a real host drops a segment of a closed
    /// connection.
    #[cold]
    #[inline(never)]
    fn count_stale(&mut self, packet: &Packet) {
        self.counts.stale[packet.class as usize] += 1;
    }

    /// A timer event whose id is no endpoint's: a dequeue-time link's (ids counted down
    /// from the top) or, below those, an arrivals group's next arrival.
    #[cold]
    #[inline(never)]
    fn on_reserved_timer(&mut self, now: Time, id: u32) {
        let below_top = (MAX_EVENT_ID - id) as usize;
        if below_top < self.links.len() {
            self.on_link_dequeue(now, below_top as LinkId);
        } else {
            self.on_flow_arrival(now, below_top - self.links.len());
        }
    }

    /// Payload bytes of a data segment of group `group`'s flows: its own `packet_size`, or
    /// the scenario's (arrived flows included).
    pub(super) fn group_payload(&self, group: usize) -> u64 {
        self.scenario.flows[group].payload_bytes(self.scenario.packet_size) as u64
    }

    /// Move a sink's deliveries in its current bin into its flow's bins and start the bin
    /// that holds `now` (the last bin also takes deliveries at exactly the horizon).
    #[cold]
    fn close_delivery_bin(&mut self, endpoint: u32, now: Time) {
        let payload = self.group_payload(self.flows[flow_of(endpoint) as usize].group);
        let flow = &mut self.flows[flow_of(endpoint) as usize];
        let deliveries = &mut self.hosts[endpoint as usize].deliveries;
        flow.delivered_bins[deliveries.bin] += deliveries.in_bin * payload;
        deliveries.in_bin = 0;
        let last = flow.delivered_bins.len() - 1;
        deliveries.bin = ((now / self.bin_width) as usize).min(last);
        deliveries.bin_end =
            if deliveries.bin == last { Time::MAX } else { (deliveries.bin as Time + 1) * self.bin_width };
    }

    /// An endpoint and where it sends at `now`: the first link of its route (see
    /// [`EngineOutbox`]).
    fn endpoint_and_outbox(&mut self, now: Time, endpoint: u32) -> (&mut Endpoint, EngineOutbox<'_>) {
        let host = &mut self.hosts[endpoint as usize];
        let outbox = EngineOutbox {
            now,
            link: &mut self.links[host.first_link as usize],
            link_id: host.first_link,
            events: &mut self.events,
            counts: &mut self.counts,
            destination: (endpoint ^ 1) | host.tag,
            route: host.route,
            sched: self.event_sched,
        };
        (&mut host.endpoint, outbox)
    }

    /// After an endpoint acted: keep its timer armed, trace a source.
    fn after_endpoint(&mut self, now: Time, endpoint: u32, cause: Cause) {
        self.arm_timer(endpoint);
        let host = &self.hosts[endpoint as usize];
        if host.traced && (matches!(cause, Cause::Arrival) || host.endpoint.traces_timer_actions()) {
            self.trace(now, endpoint, cause);
        }
    }

    #[inline(always)]
    fn arm_timer(&mut self, endpoint: u32) {
        let host = &mut self.hosts[endpoint as usize];
        host.timer.arm(host.endpoint.deadline(), &mut self.events, Event::Timer(endpoint));
    }

    fn on_timer(&mut self, now: Time, endpoint: u32) {
        if endpoint as usize >= self.hosts.len() {
            return self.on_reserved_timer(now, endpoint);
        }
        self.hosts[endpoint as usize].timer.fired(now);
        if !self.fire_timer(now, endpoint) {
            self.arm_timer(endpoint);
        }
    }

    /// Call the endpoint's timer at `now`; if it acted, send and re-arm as after any action.
    fn fire_timer(&mut self, now: Time, endpoint: u32) -> bool {
        self.event_sched = 0;
        let (host, mut outbox) = self.endpoint_and_outbox(now, endpoint);
        let acted = host.on_timer(now, &mut outbox);
        if acted {
            self.after_endpoint(now, endpoint, Cause::Timer);
        }
        acted
    }

    /// Before an early-delivered packet at `before`: fire the endpoint's timers that
    /// fall due first, at their own times.
    fn fire_due_timers(&mut self, endpoint: u32, before: Time) {
        while let Some(deadline) = self.hosts[endpoint as usize].timer.deadline.filter(|&d| d < before) {
            if !self.fire_timer(deadline, endpoint) {
                self.arm_timer(endpoint);
            }
        }
    }

    fn trace(&mut self, now: Time, endpoint: u32, cause: Cause) {
        if self.trace_rows_left == 0 {
            self.trace_stopped_at.get_or_insert(now);
            return;
        }
        self.trace_rows_left -= 1;
        self.trace_window.clear();
        self.trace_cc.clear();
        self.hosts[endpoint as usize].endpoint.trace(&mut self.trace_window, &mut self.trace_cc);
        let trace = self.flows[flow_of(endpoint) as usize].trace.as_mut().expect("checked by the caller");
        trace.t_s.push(now as f64 / NS_PER_SEC as f64);
        trace.event.push(match cause {
            Cause::Arrival => "arrival",
            Cause::Timer => "timer",
        });
        let key = &mut self.trace_key;
        let columns = self.trace_window.iter().map(|&(name, value)| (name, "", value));
        for (name, prefix, value) in columns.chain(self.trace_cc.iter().map(|&(name, value)| (name, "cc_", value))) {
            key.clear();
            key.push_str(prefix);
            key.push_str(name);
            match trace.columns.get_mut(key.as_str()) {
                Some(column) => column.push(value),
                None => {
                    trace.columns.insert(key.clone(), vec![value]);
                }
            }
        }
    }

}

/// Validate and run a scenario.
pub fn run(scenario: Scenario) -> Result<RunResult, ScenarioError> {
    run_with_limits(scenario, &RunLimits::default())
}

/// Validate and run a scenario within `limits`.
pub fn run_with_limits(scenario: Scenario, limits: &RunLimits) -> Result<RunResult, ScenarioError> {
    Simulation::with_limits(scenario, limits)?.run()
}

/// Makes the congestion control of flow `id` (numbered as in results) from its group's
/// `algorithm = "python"` declaration, or says in one line why it cannot.
pub type ControllerFactory<'a> = dyn FnMut(u32, &ExternalConfig) -> Result<Box<dyn CongestionControl + Send>, String> + 'a;

/// Validate and run a scenario within `limits`, `controllers` making the flows' external
/// congestion controls ([`Simulation::with_controllers`]).
pub fn run_with_controllers(
    scenario: Scenario,
    limits: &RunLimits,
    controllers: &mut ControllerFactory<'_>,
) -> Result<RunResult, ScenarioError> {
    Simulation::with_controllers(scenario, limits, Some(controllers))?.run()
}
