//! The engine loop: it owns the event queue, the links (which carry the packets) and the
//! endpoints, and moves packets between them. It knows no protocol: endpoints are
//! sans-IO state machines ([`Endpoint`]) that take packets and timer calls and hand back
//! packets to send. Nothing here knows about Python or files.
use crate::cc::external::ExternalConfig;
use crate::cc::{CcConfig, CongestionControl, Controller};
use crate::app::{PacketSchedule, TcpApplication};
use crate::metrics::*;
use crate::net::link::Admission;
use crate::net::packet::ecn;
use crate::net::network::{build_links, pass_through_links, Stream};
use crate::net::topology::Graph;
use crate::net::{LinkId, RouteId};
use crate::scenario::{AppSpec, Scenario, ScenarioError, Transport};
use crate::sim::rng::{stream, RngStream, APP_STREAMS, ARRIVAL_STREAMS, CC_STREAMS, TCP_CLOCK_STREAMS};
use crate::sim::events::MAX_EVENT_ID;
use crate::sim::{Event, EventQueue, Time, NS_PER_SEC};
use crate::transport::tfrc::{TfrcReceiver, TfrcSender};
use crate::transport::{Endpoint, Header, Outbox, Outgoing, PacketClass, TcpReceiver, TcpSender, UdpSink, UdpSource};

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

/// The engine's [`Outbox`]: what an endpoint sends becomes a packet, counted, and is
/// offered at once to the first link of the endpoint's route. That link is never
/// pass-through (see `Network::pass_through_links`), so an offer there only queues the
/// packet (and may schedule the link's next arrival): nothing reaches another endpoint
/// during the call. The packet is written straight into the link's ring.
struct EngineOutbox<'a> {
    now: Time,
    link: &'a mut Link,
    link_id: LinkId,
    events: &'a mut EventQueue,
    counts: &'a mut Counts,
    destination: u32,
    route: u32,
    /// When ns-2 would have scheduled what is sent: the event being handled's time.
    sched: Time,
}

impl Outbox for EngineOutbox<'_> {
    #[inline(always)]
    fn send(&mut self, out: Outgoing) {
        let class = out.header.class();
        self.counts.sent[class as usize] += 1;
        let ect = if out.ect { ecn::ECT } else { 0 };
        if self.link.dequeues {
            return self.defer(out.size, out.header, ect);
        }
        match self.link.offer(self.now, out.size, out.ect, self.sched) {
            Admission::Admitted { arrives, schedule, mark_ce } => {
                debug_assert!(!self.link.pass_through, "a route's first link is never pass-through");
                let captured = self.link.captured;
                let delay = self.link.delay;
                let kept = keep_admitted(self.link, self.link_id, self.events, schedule);
                *kept = Packet {
                    destination: self.destination,
                    size: out.size,
                    route: self.route,
                    hop: 0,
                    ecn: if mark_ce { ect | ecn::CE } else { ect },
                    class,
                    header: out.header,
                };
                if captured {
                    self.counts.captures.record(self.link_id, arrives - delay, kept, kept.ecn);
                }
            }
            Admission::Dropped | Admission::Lost => self.counts.dropped[class as usize] += 1,
        }
    }
}

impl EngineOutbox<'_> {
    /// The first link decides at dequeue: queue the packet there (out of line, as FIFO
    /// links never come here).
    #[cold]
    #[inline(never)]
    fn defer(&mut self, size: u32, header: Header, ect: u8) {
        let packet = Packet {
            destination: self.destination,
            size,
            route: self.route,
            hop: 0,
            ecn: ect,
            class: header.class(),
            header,
        };
        enqueue_deferred(self.link, self.link_id, self.events, self.counts, self.now, packet);
    }
}

/// Hand a packet to a link whose discipline decides at dequeue: past its loss model,
/// queue it, start the transmitter if it is idle, count what was dropped.
#[cold]
#[inline(never)]
fn enqueue_deferred(link: &mut Link, id: LinkId, events: &mut EventQueue, counts: &mut Counts, now: Time, packet: Packet) {
    if !link.offer_deferred(now) {
        counts.dropped[packet.class as usize] += 1;
        return;
    }
    if link.enqueue(now, packet) {
        transmit_next(link, id, events, counts, now);
    }
    count_dropped(link, counts);
}

/// The transmit-complete event of a dequeue-time link: it rides the timer heap with an
/// id counted down from the top (endpoints count up from 0), so the link events, which
/// carry almost every packet, stay of one kind (`Simulation::on_timer` tells them apart).
fn dequeue_event(link: LinkId) -> Event {
    Event::Timer(MAX_EVENT_ID - link)
}

/// A dequeue-time link's transmitter is free at `now`: send the next packet, scheduling
/// when the transmitter is free again and, if the link had nothing in flight, the arrival.
fn transmit_next(link: &mut Link, id: LinkId, events: &mut EventQueue, counts: &mut Counts, now: Time) {
    let sent = link.transmit_next(now);
    if let Some(at) = sent.free_at {
        events.schedule(at, dequeue_event(id));
        if link.captured {
            let packet = *link.kept_slot();
            counts.captures.record(id, at, &packet, packet.ecn);
        }
    }
    if let Some(at) = sent.schedule_arrival {
        events.schedule(at, Event::LinkArrival(id));
    }
}

/// Count, by class, the packets a dequeue-time discipline dropped.
fn count_dropped(link: &mut Link, counts: &mut Counts) {
    if let Some(dropped) = link.dropped() {
        for packet in dropped.drain(..) {
            counts.dropped[packet.class as usize] += 1;
        }
    }
}

/// A packet admitted to a link that keeps it (not pass-through): the link's next arrival
/// is scheduled if it had nothing in flight, and the caller writes the packet into the
/// returned ring slot (built there in place, not on the stack and copied: a copy of a
/// packet just written field by field stalls).
#[inline(always)]
fn keep_admitted<'a>(link: &'a mut Link, id: LinkId, events: &mut EventQueue, schedule: Option<Time>) -> &'a mut Packet {
    if let Some(at) = schedule {
        events.schedule(at, Event::LinkArrival(id));
    }
    link.kept_slot()
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
    payload_bytes: u32,
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
}

/// A finite flow's row: its record while the run goes on, its columns (group name
/// included) and JSON on the way out.
const BYTES_PER_FCT_ROW: u64 = 200;

/// A captured packet's share of memory (its columns, and its JSON on the way out).
const BYTES_PER_CAPTURED_PACKET: u64 = 120;

impl Captures {
    /// Link `link` transmitted `packet` (with ECN bits `ecn`), its last bit leaving at `at`.
    #[cold]
    #[inline(never)]
    fn record(&mut self, link: LinkId, at: Time, packet: &Packet, ecn: u8) {
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
            Header::TcpData { seq, cwr, .. } => (Capture::TCP_DATA, seq, 0, if cwr { Capture::CWR } else { 0 }),
            Header::TcpAck(ack) => (Capture::TCP_ACK, 0, ack.cumulative, if ack.ece { Capture::ECE } else { 0 }),
            Header::Udp { seq, .. } => (Capture::UDP, seq, 0, 0),
            Header::TfrcData(data) => (Capture::TFRC_DATA, data.seq, 0, 0),
            Header::TfrcFeedback(_) => (Capture::TFRC_FEEDBACK, 0, 0, 0),
        };
        capture.t_ns.push(at);
        capture.bytes.push(packet.size);
        capture.flow.push(flow_of(packet.destination & ENDPOINT_MASK));
        capture.kind.push(kind);
        capture.seq.push(seq);
        capture.ack.push(ack);
        capture.flags.push(flags);
        capture.ecn.push(ecn);
    }
}

/// A TCP sender and its sink for flow `id` (its random streams) of group `g`, starting
/// at `start`; `packets` for a finite application; `controller` when the embedder made
/// the congestion control.
fn tcp_pair(
    scenario: &Scenario,
    g: usize,
    id: u64,
    start: Time,
    stop: Option<Time>,
    packets: Option<u64>,
    controller: Option<Controller>,
) -> (Endpoint, Endpoint) {
    let group = &scenario.flows[g];
    let (data_bytes, ack_bytes) = (scenario.packet_size.get() + scenario.header_size, scenario.ack_size.get());
    let tcp = group.tcp();
    let first_data = if tcp.syn { 1 } else { 0 };
    let mut receiver = TcpReceiver::new(
        tcp.recovery == crate::transport::Recovery::Sack,
        tcp.delayed_ack.then_some(tcp.delayed_ack_timeout.ns()),
        first_data,
    );
    let rules = tcp.ns2_rules();
    if rules.ecn {
        receiver = receiver.with_ns2_ecn();
    }
    let cc = group.cc();
    if cc.dctcp_ecn() {
        receiver = receiver.with_dctcp_echo();
    }
    let mut controller = controller.unwrap_or_else(|| cc.build());
    crate::cc::CongestionControl::set_seed(&mut controller, rand::Rng::gen(&mut stream(scenario.seed, CC_STREAMS + id)));
    let mut sender = TcpSender::new(tcp, controller, start, data_bytes, ack_bytes);
    sender.set_newreno_agent(cc.ns2_agent());
    if rules.tick_clock {
        sender.set_ns2_clock(stream(scenario.seed, TCP_CLOCK_STREAMS + id));
    }
    if let Some(stop) = stop {
        sender.stop_application_at(stop);
    }
    if let Some(packets) = packets {
        sender.set_flow_segments(u32::try_from(packets).unwrap_or(u32::MAX));
    }
    if let AppSpec::Cbr { rate, .. } = group.app() {
        let bits = scenario.packet_size.get() as f64 * 8.0;
        sender.set_application(TcpApplication::Cbr { ns_per_segment: bits * 1e9 / rate.bps() as f64 });
    }
    (Endpoint::TcpSender(Box::new(sender)), Endpoint::TcpSink { receiver, ack_bytes })
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

/// Rough bytes per flow, per bin of a flow and per link direction, counting the engine's
/// state, the result, its JSON text and the Python objects `cclab.run` makes of it
/// (measured on dumbbells of 100 to 500 000 flows; traces are not counted: they grow
/// with the events, and are opt-in).
const BYTES_PER_FLOW: u64 = 4_000;
const BYTES_PER_BIN: u64 = 80;
const BYTES_PER_LINK: u64 = 1_200;
/// The engine's state for one arrived flow's slot while its flow is alive (its two
/// hosts, sender and receiver with their queues and timers), measured with Poisson
/// arrivals of 1-byte flows piling up on a 1 Gb/s link.
const BYTES_PER_ARRIVED_SLOT: u64 = 2_000;
/// A row of a flow trace and a sample of the queue trace, likewise counted to the end.
const BYTES_PER_TRACE_ROW: u64 = 250;
const BYTES_PER_QUEUE_SAMPLE: u64 = 100;

/// The memory a run will need, or an error naming what makes it too much.
pub fn check_memory(scenario: &Scenario, links: u64, limits: &RunLimits) -> Result<u64, ScenarioError> {
    let flows: u64 = scenario.flows.iter().map(|g| g.count.get() as u64).sum();
    let bins = scenario.bins_per_flow();
    // A dumbbell's links come with its flows (four directions each).
    let (flow_links, topology_links) = if scenario.topology.is_dumbbell() { (links, 0) } else { (0, links) };
    let parts = [
        ("bin_width", flows.saturating_mul(bins).saturating_mul(BYTES_PER_BIN)),
        ("flows", flows * BYTES_PER_FLOW + flow_links * BYTES_PER_LINK),
        ("topology", topology_links * BYTES_PER_LINK),
        // a traced link's bins: nine 8-byte counters per bin
        ("trace.links", (scenario.trace.links.len() as u64).saturating_mul(bins).saturating_mul(72)),
    ];
    let total = parts.iter().fold(0u64, |sum, &(_, bytes)| sum.saturating_add(bytes));
    if total <= limits.max_memory_bytes {
        return Ok(total);
    }
    let (field, _) = parts.iter().max_by_key(|&&(_, bytes)| bytes).expect("four parts");
    let why = match *field {
        "bin_width" => format!("{} makes {bins} bins for each of {flows} flows", scenario.bin_width),
        "flows" if flow_links > 0 => format!("{flows} flows ({flow_links} link directions)"),
        "flows" => format!("{flows} flows"),
        "trace.links" => format!("{} traced link directions of {bins} bins each", scenario.trace.links.len()),
        _ => format!("{links} link directions"),
    };
    Err(ScenarioError(format!(
        "{field}: {why}: the run would need about {}, above the limit of {} ({})",
        human_bytes(total),
        human_bytes(limits.max_memory_bytes),
        limits.raise_hint()
    )))
}

/// Bytes to three significant digits: 8.59 GB, 800 GB.
fn human_bytes(bytes: u64) -> String {
    let units = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    let b = bytes as f64;
    match units.iter().find(|&&(_, scale)| b >= scale) {
        None => format!("{bytes} bytes"),
        Some(&(unit, scale)) => {
            let v = b / scale;
            let decimals = if v < 10.0 { 2 } else if v < 100.0 { 1 } else { 0 };
            format!("{v:.decimals$} {unit}")
        }
    }
}

impl Simulation {
    pub fn new(scenario: Scenario) -> Result<Simulation, ScenarioError> {
        Simulation::with_limits(scenario, &RunLimits::default())
    }

    /// A simulation of `scenario` if it fits `limits` (checked before anything is built).
    pub fn with_limits(scenario: Scenario, limits: &RunLimits) -> Result<Simulation, ScenarioError> {
        Simulation::with_controllers(scenario, limits, None)
    }

    /// As [`Simulation::with_limits`], with `controllers` making the congestion control
    /// of each flow whose group declares `algorithm = "python"` (the front end's: the
    /// core holds no Python); an error from it is the scenario's, one line. Without it
    /// such a scenario is refused.
    pub fn with_controllers(
        scenario: Scenario,
        limits: &RunLimits,
        mut controllers: Option<&mut ControllerFactory<'_>>,
    ) -> Result<Simulation, ScenarioError> {
        let plans = scenario.flow_windows();
        let mut graph = scenario.expand_topology()?;
        let needed = check_memory(&scenario, graph.links.len() as u64, limits)?;
        // Traces grow with the events and cannot be foreseen: they get what the estimate
        // leaves under the limit (shared by those on: flows, queue, pcap), and stop when
        // it is spent.
        let spare = limits.max_memory_bytes - needed;
        let trace = &scenario.trace;
        let arrived_flows = scenario.flows.iter().any(|g| g.arrivals.is_some());
        let fct_rows = trace.fcts && arrived_flows;
        // (arrived flows' slots grow with the flows alive at once: they get a share too)
        let kinds = [trace.flows, trace.queue, !trace.pcap.is_empty(), fct_rows, arrived_flows].iter().filter(|&&on| on).count().max(1);
        let share = spare / kinds as u64;
        // Event ids carry a link direction, or on the timer heap an endpoint (two per
        // flow) or a dequeue-time link (counted down from the top).
        let dequeue_links = graph.links.iter().filter(|d| graph.params[d.params as usize].queue.dequeues()).count();
        let ids = (graph.links.len() as u64).max(2 * plans.len() as u64 + dequeue_links as u64);
        if ids > MAX_EVENT_ID as u64 + 1 {
            return Err(ScenarioError(format!(
                "topology: {} link directions and {} flows need {ids} event ids; at most {}",
                graph.links.len(),
                plans.len(),
                MAX_EVENT_ID as u64 + 1
            )));
        }
        let bin_width = scenario.bin_width.ns();
        let horizon = scenario.duration.ns();
        let bins = horizon.div_ceil(bin_width) as usize;
        let data_bytes = scenario.packet_size.get() + scenario.header_size;
        let ack_bytes = scenario.ack_size.get();
        // Every route's links in one table, each route ended by ROUTE_END; hosts and
        // packets name a route by where it starts there.
        let mut route_starts = Vec::with_capacity(graph.routes.len());
        let mut route_links = Vec::with_capacity(graph.routes.iter().map(|r| r.len() + 1).sum());
        for route in &graph.routes {
            route_starts.push(route_links.len() as u32);
            route_links.extend_from_slice(route);
            route_links.push(ROUTE_END);
        }
        let mut flows = Vec::with_capacity(plans.len());
        let mut hosts = Vec::with_capacity(2 * plans.len());
        let mut streams = Vec::with_capacity(2 * plans.len());
        let payload = scenario.packet_size.get();
        let mut arrivals: Vec<Arrivals> = Vec::new();
        for (plan, path) in plans.iter().zip(&graph.paths) {
            let Some(spec) = &scenario.flows[plan.group].arrivals else { continue };
            if arrivals.last().map_or(true, |a| a.group != plan.group) {
                let g = plan.group;
                arrivals.push(Arrivals {
                    group: g,
                    spec: spec.clone(),
                    mean_gap_ns: 0.0,
                    rng: stream(scenario.seed, ARRIVAL_STREAMS + g as u64),
                    pairs: Vec::new(),
                    next_pair: 0,
                    stop: plan.stop,
                    started: 0,
                    refused: 0,
                });
            }
            let pair = PairPath { data_route: path.data_route, reply_route: path.reply_route, base_rtt: path.base_rtt };
            arrivals.last_mut().expect("pushed above").pairs.push(pair);
        }
        for (plan, path) in plans.iter().zip(&graph.paths).filter(|(plan, _)| scenario.flows[plan.group].arrivals.is_none()) {
            let id = flows.len();
            let (g, start, stop) = (plan.group, plan.start, plan.stop);
            let group = &scenario.flows[g];
            let finite = match group.app() {
                AppSpec::Bulk { size: Some(size) } if group.transport == Transport::Tcp => Some(size.0.div_ceil(payload as u64)),
                _ => None,
            };
            let (source, sink) = match group.transport {
                Transport::Tcp => {
                    let controller = match (group.cc(), controllers.as_mut()) {
                        (CcConfig::External(config), Some(make)) => Some(Controller::Custom(make(id as u32, &config).map_err(|e| {
                            // The group as written: "flows[1].cc.path: ..." (a message that names
                            // no field is about the file: "flows[1].cc.path: m.py:3: ...").
                            let field = if e.starts_with("cc.") { "" } else { "cc.path: " };
                            ScenarioError(format!("flows[{g}].{field}{e}"))
                        })?)),
                        (CcConfig::External(_), None) => {
                            return Err(ScenarioError(format!(
                                "flows[{g}].cc.algorithm: \"python\" runs through the Python front end (cclab run, cclab.run), not the core alone"
                            )))
                        }
                        _ => None,
                    };
                    tcp_pair(&scenario, g, id as u64, start, stop, finite, controller)
                }
                Transport::Udp => {
                    let rng = stream(scenario.seed, APP_STREAMS + id as u64);
                    let schedule = PacketSchedule::new(&group.app(), data_bytes, start, rng)
                        .expect("validated: UDP flows have a cbr or onoff application");
                    (Endpoint::UdpSource(Box::new(UdpSource::new(schedule, stop, data_bytes))), Endpoint::UdpSink(UdpSink::default()))
                }
                Transport::Tfrc => {
                    let tfrc = group.tfrc();
                    // TFRC's s is the payload (as ns-2's packetSize_); headers ride on top.
                    let sender = TfrcSender::new(tfrc.sender_rules(payload), start, stop);
                    let receiver = TfrcReceiver::new(tfrc.receiver_rules(payload));
                    (
                        Endpoint::TfrcSender { sender: Box::new(sender), data_bytes },
                        Endpoint::TfrcReceiver { receiver: Box::new(receiver), feedback_bytes: ack_bytes },
                    )
                }
            };
            let (source_id, sink_id) = (source_of(id as u32), source_of(id as u32) + 1);
            streams.push(Stream { route: path.data_route, from: source_id, to: sink_id });
            if matches!(sink, Endpoint::TcpSink { .. } | Endpoint::TfrcReceiver { .. }) {
                streams.push(Stream { route: path.reply_route, from: sink_id, to: source_id });
            }
            // Sources with state to trace only (a UDP source has none).
            let traced = scenario.trace.flows && group.transport != Transport::Udp;
            let host = |endpoint, route: RouteId, traced| Host {
                endpoint,
                timer: LazyTimer::default(),
                route: route_starts[route as usize],
                first_link: route_links[route_starts[route as usize] as usize],
                traced,
                deliveries: Deliveries { bin_end: if bins > 1 { bin_width } else { Time::MAX }, ..Default::default() },
                tag: 0,
                delays: None,
            };
            hosts.push(host(source, path.data_route, traced));
            let mut sink_host = host(sink, path.reply_route, false);
            if scenario.trace.delays {
                sink_host.delays = Some(Box::new(DelayStats::new(scenario.trace.delay_histogram.map(|d| d.ns()))));
            }
            if let Some(packets) = finite {
                sink_host.deliveries.goal = packets;
            }
            hosts.push(sink_host);
            let trace = traced.then(|| FlowTrace { id: id as u32, ..Default::default() });
            flows.push(Flow {
                group: g,
                base_rtt: path.base_rtt,
                start,
                stop,
                delivered_bins: vec![0; bins],
                trace,
                finite: finite.map(|packets| Finite { packets, ideal: 0, done: None }),
            });
        }
        // Two stand-in flows per pair of an arrivals group, for the pass-through analysis:
        // the flows that will share the pair's routes, so that none is taken for a route's
        // only feeder.
        let mut stand_ins = hosts.len() as u32;
        for pair in arrivals.iter().flat_map(|a| &a.pairs) {
            for _ in 0..2 {
                streams.push(Stream { route: pair.data_route, from: stand_ins, to: stand_ins + 1 });
                streams.push(Stream { route: pair.reply_route, from: stand_ins + 1, to: stand_ins });
                stand_ins += 2;
            }
        }
        let routes = std::mem::take(&mut graph.routes);
        let mut links = build_links(&graph, scenario.seed);
        let scheduled: Vec<bool> = graph.links.iter().map(|d| graph.params[d.params as usize].queue.dequeues()).collect();
        let pass_through = pass_through_links(&routes, links.len(), stand_ins as usize, &streams, &scheduled);
        let ns2_ties = scenario.profile == Some(crate::transport::TcpProfile::Ns2);
        for (link, pass) in links.iter_mut().zip(pass_through) {
            link.pass_through = pass;
            link.ns2_ties = ns2_ties;
            link.horizon = horizon;
        }
        let traced_links = graph.named_links("trace.links", &scenario.trace.links).map_err(ScenarioError)?;
        for &id in &traced_links {
            links[id as usize].extras_mut().bins = Some(crate::net::link::LinkBins::new(bin_width, bins).detailed());
        }
        let mut captures = Captures::default();
        for (id, name) in graph.named_links("trace.pcap", &scenario.trace.pcap).map_err(ScenarioError)?.into_iter().zip(&scenario.trace.pcap) {
            links[id as usize].captured = true;
            captures.by_link.push((id, Capture { name: name.clone(), ..Default::default() }));
        }
        if !captures.by_link.is_empty() {
            captures.slot_of = vec![u32::MAX; links.len()];
            for (k, (id, _)) in captures.by_link.iter().enumerate() {
                captures.slot_of[*id as usize] = k as u32;
            }
            captures.room = (share / BYTES_PER_CAPTURED_PACKET) as usize;
        }
        let bottleneck = links[graph.bottleneck as usize].extras_mut();
        if bottleneck.bins.is_none() {
            bottleneck.bins = Some(crate::net::link::LinkBins::new(bin_width, bins));
        }
        if scenario.trace.queue {
            bottleneck.queue_trace = Some(Vec::new());
            bottleneck.queue_trace_limit = (share / BYTES_PER_QUEUE_SAMPLE) as usize;
        }
        let flows_len = flows.len();
        let mut simulation = Simulation {
            event_sched: 0,
            payload_bytes: scenario.packet_size.get(),
            bin_width,
            horizon,
            events: EventQueue::default(),
            links,
            route_links,
            graph,
            flows,
            hosts,
            trace_window: Vec::new(),
            trace_cc: Vec::new(),
            trace_key: String::new(),
            trace_rows_left: share / BYTES_PER_TRACE_ROW,
            trace_stopped_at: None,
            raise_hint: limits.raise_hint(),
            traced_links,
            counts: Counts { captures, ..Counts::default() },
            static_flows: flows_len,
            slots_allowed: usize::try_from(share / BYTES_PER_ARRIVED_SLOT).unwrap_or(usize::MAX),
            stopped: None,
            memory_limit: limits.max_memory_bytes,
            arrivals,
            arrival_totals: Vec::new(),
            free_slots: Default::default(),
            fcts: Vec::new(),
            // rows for the scenario's own finite flows always (the estimate counted them)
            fct_rows_left: if !trace.fcts { 0 } else if fct_rows { (share / BYTES_PER_FCT_ROW).max(flows_len as u64) } else { u64::MAX },
            fct_rows_stopped_at: None,
            fct_summaries: vec![None; scenario.flows.len()],
            route_starts,
            scenario,
        };
        simulation.arrival_totals = vec![ArrivalTotals::default(); simulation.scenario.flows.len()];
        // A finite flow's least completion time, for its slowdown.
        let static_paths = plans.iter().zip(&simulation.graph.paths).filter(|(plan, _)| simulation.scenario.flows[plan.group].arrivals.is_none());
        let ideals: Vec<Option<Time>> = static_paths
            .enumerate()
            .map(|(id, (plan, path))| {
                let syn = simulation.scenario.flows[plan.group].tcp().syn;
                simulation.flows[id].finite.map(|f| simulation.ideal_fct(path.data_route, path.reply_route, f.packets, syn))
            })
            .collect();
        for (flow, ideal) in simulation.flows.iter_mut().zip(ideals) {
            if let (Some(finite), Some(ideal)) = (flow.finite.as_mut(), ideal) {
                finite.ideal = ideal;
            }
        }
        // Arrivals: λ from the slowest link on the first pair's data route.
        for (k, arrival) in simulation.arrivals.iter_mut().enumerate() {
            let route = &simulation.route_links[simulation.route_starts[arrival.pairs[0].data_route as usize] as usize..];
            let capacity = route.iter().take_while(|&&l| l != ROUTE_END).map(|&l| simulation.links[l as usize].rate.bps()).min();
            arrival.mean_gap_ns = arrival.spec.mean_gap_ns(capacity.expect("a route has a link") as f64);
            let start = simulation.scenario.flows[arrival.group].start.at.ns();
            let first = start.saturating_add(arrival.spec.draw_gap(arrival.mean_gap_ns, &mut arrival.rng));
            let id = MAX_EVENT_ID - simulation.links.len() as u32 - k as u32;
            simulation.events.schedule(first, Event::Timer(id));
        }
        // Every source's first deadline is its start; sinks may have none yet (the
        // deadline is noted for every endpoint).
        for endpoint in 0..simulation.hosts.len() as u32 {
            simulation.arm_timer(endpoint);
        }
        Ok(simulation)
    }

    /// The least time a finite flow of `packets` can take from its start to its last
    /// packet's arrival: its first packet's store-and-forward trip along `data_route`
    /// (every link's delay and serialisation), the other packets one serialisation apart
    /// at the slowest link, and first, with the SYN-like packet, that packet's trip and
    /// its ACK's back. Serialisations are rounded down, so no flow can beat it.
    fn ideal_fct(&self, data_route: RouteId, reply_route: RouteId, packets: u64, syn: bool) -> Time {
        let data_bytes = (self.payload_bytes + self.scenario.header_size) as u64;
        let trip = |route: RouteId, bytes: u64| -> (Time, Time) {
            let start = self.route_starts[route as usize] as usize;
            let (mut total, mut slowest) = (0, 0);
            for &link in self.route_links[start..].iter().take_while(|&&l| l != ROUTE_END) {
                let link = &self.links[link as usize];
                let serialise = (bytes as u128 * 8 * NS_PER_SEC as u128 / link.rate.bps() as u128) as Time;
                total += link.delay + serialise;
                slowest = slowest.max(serialise);
            }
            (total, slowest)
        };
        let (first, slowest) = trip(data_route, data_bytes);
        let mut ideal = first + packets.saturating_sub(1) * slowest;
        if syn {
            let header = self.scenario.header_size.max(1) as u64;
            ideal += trip(data_route, header).0 + trip(reply_route, self.scenario.ack_size.get() as u64).0;
        }
        ideal
    }

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
        transmit_next(target, link, &mut self.events, &mut self.counts, now);
        count_dropped(target, &mut self.counts);
    }

    fn on_link_arrival(&mut self, now: Time, link: LinkId) {
        let (packet, tx_start, next) = self.links[link as usize].take_arrival();
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
                    if target.captured {
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

    /// A finite flow's outcome, into its group's summary and (while kept) the rows.
    fn record_fct(&mut self, record: FctRecord, now: Time) {
        self.fct_summaries[record.group as usize].get_or_insert_with(Default::default).record(&record);
        if self.fct_rows_left > 0 {
            self.fct_rows_left -= 1;
            self.fcts.push(record);
        } else if self.scenario.trace.fcts {
            self.fct_rows_stopped_at.get_or_insert(now);
        }
    }

    /// The sink `endpoint` has every packet of its finite flow at `now`. An arrived
    /// flow's slot goes to the free list (reused by a flow arriving at `now` or later).
    #[cold]
    #[inline(never)]
    fn flow_done(&mut self, now: Time, endpoint: u32) {
        let slot = flow_of(endpoint) as usize;
        self.hosts[endpoint as usize].deliveries.goal = u64::MAX;
        let flow = &mut self.flows[slot];
        let finite = flow.finite.as_mut().expect("a sink with a goal belongs to a finite flow");
        finite.done = Some(now);
        if slot >= self.static_flows {
            let record = FctRecord::new(flow.group as u32, flow.start, finite.packets * self.payload_bytes as u64, Some(now - flow.start), finite.ideal);
            self.free_slots.push_back((now, slot as u32));
            self.record_fct(record, now);
        }
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

    /// Arrivals group `k`'s next flow starts at `now`: a size drawn, the next pair's
    /// paths, a free slot (or a new one), and the arrival after it scheduled.
    fn on_flow_arrival(&mut self, now: Time, k: usize) {
        let payload = self.payload_bytes as u64;
        let arrival = &mut self.arrivals[k];
        if arrival.stop.is_some_and(|stop| now >= stop) {
            return;
        }
        let size = arrival.spec.sizes.draw(&mut arrival.rng);
        let gap = arrival.spec.draw_gap(arrival.mean_gap_ns, &mut arrival.rng);
        let pair = arrival.pairs[arrival.next_pair];
        arrival.next_pair = (arrival.next_pair + 1) % arrival.pairs.len();
        let number = arrival.started;
        let group = arrival.group;
        let generator = MAX_EVENT_ID - self.links.len() as u32 - k as u32;
        self.events.schedule(now.saturating_add(gap), Event::Timer(generator));
        let packets = size.div_ceil(payload);
        let slot = match self.free_slots.front() {
            Some(&(done, slot)) if done <= now => {
                self.free_slots.pop_front();
                self.retire_slot(slot as usize);
                slot as usize
            }
            _ => {
                // Endpoint ids must stay below the reserved timer ids.
                let lowest_reserved = MAX_EVENT_ID as usize + 1 - self.links.len() - self.arrivals.len();
                if self.hosts.len() + 2 > lowest_reserved {
                    self.arrivals[k].refused += 1;
                    return;
                }
                if self.flows.len() - self.static_flows >= self.slots_allowed {
                    return self.stop_for_memory(now, k);
                }
                self.flows.push(Flow {
                    group,
                    base_rtt: 0,
                    start: 0,
                    stop: None,
                    delivered_bins: Vec::new(),
                    trace: None,
                    finite: None,
                });
                for (route, sink) in [(pair.data_route, false), (pair.reply_route, true)] {
                    let start = self.route_starts[route as usize];
                    let delays = (sink && self.scenario.trace.delays)
                        .then(|| Box::new(DelayStats::new(self.scenario.trace.delay_histogram.map(|d| d.ns()))));
                    self.hosts.push(Host {
                        endpoint: Endpoint::UdpSink(Default::default()),
                        timer: LazyTimer::default(),
                        route: start,
                        first_link: self.route_links[start as usize],
                        traced: false,
                        deliveries: Deliveries::default(),
                        tag: 0,
                        delays,
                    });
                }
                self.flows.len() - 1
            }
        };
        self.arrivals[k].started += 1;
        // Random streams of arrived flows: ids above every scenario flow's (< 2^23).
        let stream_id = (1 << 31) | ((k as u64 & 0x7f) << 24) | (number & 0xff_ffff);
        let (source, sink) = tcp_pair(&self.scenario, group, stream_id, now, None, Some(packets), None);
        let syn = self.scenario.flows[group].tcp().syn;
        let ideal = self.ideal_fct(pair.data_route, pair.reply_route, packets, syn);
        self.flows[slot] = Flow {
            group,
            base_rtt: pair.base_rtt,
            start: now,
            stop: None,
            delivered_bins: Vec::new(),
            trace: None,
            finite: Some(Finite { packets, ideal, done: None }),
        };
        let source_id = source_of(slot as u32);
        for (endpoint, (id, route)) in [source, sink].into_iter().zip([(source_id, pair.data_route), (source_id + 1, pair.reply_route)]) {
            let start = self.route_starts[route as usize];
            let host = &mut self.hosts[id as usize];
            host.endpoint = endpoint;
            host.route = start;
            host.first_link = self.route_links[start as usize];
            // Generations run 1..=511 and round again: 0 marks flows that never end.
            host.tag = match host.tag.wrapping_add(1 << GENERATION_SHIFT) {
                0 => 1 << GENERATION_SHIFT,
                tag => tag,
            };
            // The pending timer event (if any) stays: it finds the new deadline and re-arms.
            host.timer.deadline = None;
            host.deliveries = Deliveries { bin_end: Time::MAX, goal: if id == source_id { u64::MAX } else { packets }, ..Deliveries::default() };
        }
        self.arm_timer(source_id);
        self.arm_timer(source_id + 1);
    }

    /// Arrivals group `k` needs one more slot than the memory limit allows: the run stops
    /// here (the horizon moved to the start, so the event loop ends after this event, at
    /// no cost to every other event) and returns an error naming the limit.
    #[cold]
    #[inline(never)]
    fn stop_for_memory(&mut self, now: Time, k: usize) {
        let alive = self.flows.len() - self.static_flows;
        self.stopped = Some(format!(
            "flows[{}].arrivals: {alive} arrived flows were alive at once at {:.3} s, as many as the memory limit of {} allows \
             (flows arrive faster than they end: see the warnings); the run stopped ({})",
            self.arrivals[k].group,
            now as f64 / NS_PER_SEC as f64,
            human_bytes(self.memory_limit),
            self.raise_hint
        ));
        self.horizon = 0;
    }

    /// Move what the flow in `slot` (of arrivals group `k`) did into its group's totals.
    fn retire_slot(&mut self, slot: usize) {
        let source = source_of(slot as u32) as usize;
        let totals = &mut self.arrival_totals[self.flows[slot].group];
        totals.delivered_packets += self.hosts[source + 1].deliveries.total;
        if let Endpoint::TcpSender(sender) = &self.hosts[source].endpoint {
            let stats = sender.stats();
            totals.data_packets_sent += stats.data_packets_sent;
            totals.retransmitted_packets += stats.retransmitted_packets;
            totals.timeouts += stats.timeouts;
        }
        if let Some(stats) = self.hosts[source + 1].delays.as_deref_mut() {
            let fresh = DelayStats::new(self.scenario.trace.delay_histogram.map(|d| d.ns()));
            totals.delays.get_or_insert_with(|| Box::new(fresh.clone())).merge(stats);
            *stats = fresh;
        }
    }

    /// Move a sink's deliveries in its current bin into its flow's bins and start the bin
    /// that holds `now` (the last bin also takes deliveries at exactly the horizon).
    #[cold]
    fn close_delivery_bin(&mut self, endpoint: u32, now: Time) {
        let flow = &mut self.flows[flow_of(endpoint) as usize];
        let deliveries = &mut self.hosts[endpoint as usize].deliveries;
        flow.delivered_bins[deliveries.bin] += deliveries.in_bin * self.payload_bytes as u64;
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

    fn summarise(mut self) -> RunResult {
        for flow in 0..self.static_flows as u32 {
            self.close_delivery_bin(source_of(flow) + 1, self.horizon);
        }
        // Arrived flows: what every slot's last flow did, and those still running.
        for slot in self.static_flows..self.flows.len() {
            self.retire_slot(slot);
            let flow = &self.flows[slot];
            let finite = flow.finite.expect("arrived flows are finite");
            if finite.done.is_none() {
                let size = finite.packets * self.payload_bytes as u64;
                let record = FctRecord::new(flow.group as u32, flow.start, size, None, finite.ideal);
                self.record_fct(record, self.horizon);
            }
        }
        let arrived_flows: Vec<u64> = (0..self.scenario.flows.len())
            .map(|g| self.arrivals.iter().filter(|a| a.group == g).map(|a| a.started).sum())
            .collect();
        let duration_s = self.horizon as f64 / NS_PER_SEC as f64;
        let mbps = |bytes: u64| bytes as f64 * 8.0 / duration_s / 1e6;
        let payload = self.payload_bytes as u64;
        let mut flows = Vec::with_capacity(self.flows.len());
        let mut static_records = Vec::new();
        for (id, flow) in self.flows[..self.static_flows].iter().enumerate() {
            let delivered = self.hosts[source_of(id as u32) as usize + 1].deliveries.total;
            let group = &self.scenario.flows[flow.group];
            let mut metrics = FlowMetrics {
                id: id as u32,
                group: self.scenario.group_name(flow.group),
                transport: group.transport.name(),
                cc: None,
                goodput_mbps: mbps(delivered * payload),
                throughput_mbps: 0.0,
                retransmitted_packets: None,
                timeouts: None,
                fast_recoveries: None,
                data_packets_sent: 0,
                delivered_packets: delivered,
                start_s: flow.start as f64 / NS_PER_SEC as f64,
                stop_s: flow.stop.map(|t| t as f64 / NS_PER_SEC as f64),
                base_rtt_ms: flow.base_rtt as f64 / 1e6,
                mean_rtt_ms: None,
                mean_rto_ms: None,
                ecn_reactions: None,
                cc_state: Default::default(),
                lost_packets: None,
                mean_delay_ms: None,
                size_bytes: None,
                completed: None,
                fct_ms: None,
                slowdown: None,
                delays: self.hosts[source_of(id as u32) as usize + 1].delays.as_deref().map(DelayStats::columns).unwrap_or_default(),
            };
            if let Some(finite) = flow.finite {
                let record = FctRecord::new(flow.group as u32, flow.start, finite.packets * payload, finite.done.map(|t| t - flow.start), finite.ideal);
                metrics.size_bytes = Some(record.size_bytes);
                metrics.completed = Some(finite.done.is_some());
                metrics.fct_ms = record.fct.map(|ns| ns as f64 / 1e6);
                metrics.slowdown = record.slowdown();
                static_records.push(record);
            }
            let source = &self.hosts[source_of(id as u32) as usize].endpoint;
            let sink = &self.hosts[source_of(id as u32) as usize + 1].endpoint;
            match (source, sink) {
                (Endpoint::TcpSender(sender), _) => {
                    use crate::cc::CongestionControl;
                    let stats = *sender.stats();
                    metrics.cc = Some(sender.cc().label());
                    metrics.data_packets_sent = stats.data_packets_sent;
                    metrics.retransmitted_packets = Some(stats.retransmitted_packets);
                    metrics.timeouts = Some(stats.timeouts);
                    metrics.fast_recoveries = Some(stats.fast_recoveries);
                    let rtt = stats.rtt;
                    metrics.mean_rtt_ms = (rtt.samples > 0).then(|| rtt.rtt_ns / rtt.samples as f64 / 1e6);
                    metrics.mean_rto_ms = (rtt.samples > 0).then(|| rtt.rto_ns / rtt.samples as f64 / 1e6);
                    metrics.ecn_reactions = Some(stats.ecn_reductions);
                    let mut state = Vec::new();
                    sender.cc().state(&mut state);
                    metrics.cc_state = state.into_iter().map(|(name, value)| (name.to_string(), value)).collect();
                }
                (Endpoint::UdpSource(udp), Endpoint::UdpSink(sink)) => {
                    metrics.data_packets_sent = udp.packets_sent;
                    metrics.lost_packets = Some(sink.lost());
                    metrics.mean_delay_ms = sink.mean_delay_ns().map(|ns| ns / 1e6);
                }
                (Endpoint::TfrcSender { sender, .. }, Endpoint::TfrcReceiver { receiver, .. }) => {
                    let stats = sender.stats;
                    metrics.cc = Some(group.tfrc().label());
                    metrics.data_packets_sent = stats.packets_sent;
                    metrics.lost_packets = Some(receiver.packets_lost);
                    metrics.mean_rtt_ms = (stats.rtt_samples > 0).then(|| stats.rtt_sum / stats.rtt_samples as f64 * 1e3);
                    metrics.cc_state = vec![
                        ("rate_mbps".to_string(), sender.allowed_rate() * 8.0 / 1e6),
                        ("loss_event_rate".to_string(), receiver.loss_event_rate()),
                        ("loss_events".to_string(), receiver.loss_events as f64),
                        ("feedback_received".to_string(), stats.feedback_received as f64),
                        ("nofeedback_expiries".to_string(), stats.nofeedback_expiries as f64),
                    ]
                    .into_iter()
                    .collect();
                }
                _ => unreachable!("flows pair a source with its own kind of sink"),
            }
            metrics.throughput_mbps = mbps(metrics.data_packets_sent * payload);
            flows.push(metrics);
        }
        for record in static_records {
            self.record_fct(record, self.horizon);
        }
        // Each group's flows in flow order (one pass: a scenario may have 100 000 groups).
        let mut members_of: Vec<Vec<&FlowMetrics>> = vec![Vec::new(); self.scenario.flows.len()];
        for (metrics, flow) in flows.iter().zip(&self.flows) {
            members_of[flow.group].push(metrics);
        }
        let silent = silent_flow_warnings(&self.scenario, &members_of, self.horizon);
        let groups: Vec<GroupMetrics> = members_of
            .iter()
            .enumerate()
            .map(|(g, members)| {
                let group = &self.scenario.flows[g];
                let arrived = &self.arrival_totals[g];
                GroupMetrics {
                    name: self.scenario.group_name(g),
                    transport: group.transport.name(),
                    cc: group.label(),
                    flows: (members.len() as u64 + arrived_flows[g]).min(u32::MAX as u64) as u32,
                    goodput_mbps: members.iter().map(|m| m.goodput_mbps).sum::<f64>() + mbps(arrived.delivered_packets * payload),
                    throughput_mbps: members.iter().map(|m| m.throughput_mbps).sum::<f64>()
                        + mbps(arrived.data_packets_sent * payload),
                    fct: self.fct_summaries[g].as_ref().map(|summary| summary.summary()),
                    delays: arrived.delays.as_deref().map(DelayStats::columns).unwrap_or_default(),
                }
            })
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_mbps).collect();
        let bottleneck = &self.links[self.graph.bottleneck as usize];
        let system = SystemMetrics {
            goodput_mbps: goodputs.iter().sum::<f64>() + self.arrival_totals.iter().map(|a| mbps(a.delivered_packets * payload)).sum::<f64>(),
            throughput_mbps: flows.iter().map(|f| f.throughput_mbps).sum::<f64>()
                + self.arrival_totals.iter().map(|a| mbps(a.data_packets_sent * payload)).sum::<f64>(),
            jain_index: jain_index(&goodputs),
            bottleneck_utilization: bottleneck.utilization(),
            bottleneck_drops: bottleneck.stats.queue_drops,
            loss_model_drops: self.links.iter().map(|l| l.stats.loss_drops).sum(),
            bottleneck_ecn_marks: bottleneck.ecn_marks(),
            bottleneck_red_drops: bottleneck.red().map_or(0, |r| r.stats.early_drops + r.stats.forced_drops),
            bottleneck_aqm_drops: bottleneck.aqm_drops(),
            mean_queue_delay_ms: bottleneck.mean_queue_delay_ns() / 1e6,
            bottleneck_link: self.graph.link_name(self.graph.bottleneck),
        };
        let links = self
            .links
            .iter()
            .enumerate()
            .map(|(id, link)| {
                let direction = &self.graph.links[id];
                LinkMetrics {
                    name: self.graph.link_name(id as LinkId),
                    from: self.graph.nodes[direction.from as usize].clone(),
                    to: self.graph.nodes[direction.to as usize].clone(),
                    rate_mbps: link.rate.bps() as f64 / 1e6,
                    delay_ms: link.delay as f64 / 1e6,
                    buffer_packets: link.limit,
                    arrivals: link.arrivals(),
                    departures: link.transmitted().0,
                    queue_drops: link.stats.queue_drops,
                    loss_drops: link.stats.loss_drops,
                    ecn_marks: link.ecn_marks(),
                    aqm_drops: link.aqm_drops(),
                    utilization: link.utilization(),
                    mean_queue_delay_ms: link.mean_queue_delay_ns() / 1e6,
                }
            })
            .collect();
        let mut in_flight = self.counts.late;
        for link in &self.links {
            for packet in link.in_flight().chain(link.queued()) {
                in_flight[packet.class as usize] += 1;
            }
        }
        let (data, acks, syn) = (PacketClass::Data as usize, PacketClass::Ack as usize, PacketClass::Syn as usize);
        let data_sent: u64 = flows.iter().map(|f| f.data_packets_sent).sum::<u64>()
            + self.arrival_totals.iter().map(|a| a.data_packets_sent).sum::<u64>();
        debug_assert_eq!(data_sent, self.counts.sent[data], "sources and network disagree on packets sent");
        let counts = &self.counts;
        let conservation = Conservation {
            data_sent: counts.sent[data],
            data_received: counts.received[data],
            data_dropped: counts.dropped[data],
            data_in_flight: in_flight[data],
            acks_sent: counts.sent[acks],
            acks_received: counts.received[acks],
            acks_dropped: counts.dropped[acks],
            acks_in_flight: in_flight[acks],
            syn_dropped: counts.dropped[syn],
            all_drops: self.links.iter().map(|l| l.stats.queue_drops + l.stats.loss_drops).sum(),
        };
        let captures: Vec<Capture> =
            std::mem::take(&mut self.counts.captures.by_link).into_iter().map(|(_, capture)| capture).collect();
        let bottleneck = &self.links[self.graph.bottleneck as usize];
        let trace = &self.scenario.trace;
        let delay_histograms: Vec<DelayHistogram> = match trace.delay_histogram {
            Some(bin) => (0..self.static_flows)
                .filter_map(|id| {
                    let stats = self.hosts[source_of(id as u32) as usize + 1].delays.as_deref()?;
                    Some(DelayHistogram { flow: Some(id as u32), group: None, bin_ms: bin.ns() as f64 / 1e6, counts: stats.histogram.clone() })
                })
                .chain(self.arrival_totals.iter().enumerate().filter_map(|(g, totals)| {
                    let stats = totals.delays.as_deref()?;
                    Some(DelayHistogram {
                        flow: None,
                        group: Some(self.scenario.group_name(g)),
                        bin_ms: bin.ns() as f64 / 1e6,
                        counts: stats.histogram.clone(),
                    })
                }))
                .collect(),
            None => Vec::new(),
        };
        let traces = (trace.flows || trace.queue || !trace.links.is_empty() || !trace.pcap.is_empty() || !delay_histograms.is_empty()).then(|| Traces {
            flows: self.flows.iter().filter_map(|f| f.trace.clone()).collect(),
            bottleneck_queue: bottleneck.extras.as_ref().and_then(|x| x.queue_trace.as_ref()).map(|samples| QueueTrace {
                t_s: samples.iter().map(|&(t, _)| t as f64 / NS_PER_SEC as f64).collect(),
                packets: samples.iter().map(|&(_, q)| q).collect(),
            }),
            links: trace.links.iter().zip(&self.traced_links).map(|(name, &id)| self.link_trace(name, id)).collect(),
            captures,
            delay_histograms,
        });
        let mut warnings = self.scenario.warnings();
        for arrival in self.arrivals.iter().filter(|a| a.started == 0 && a.refused == 0) {
            warnings.push(format!(
                "flows[{}].arrivals: no flow arrived during the run (the mean time between arrivals is {} s at this load \
                 and flow size); the group sent nothing",
                arrival.group,
                crate::schema::Approx(arrival.mean_gap_ns / NS_PER_SEC as f64)
            ));
        }
        for arrival in self.arrivals.iter().filter(|a| a.refused > 0) {
            warnings.push(format!(
                "flows[{}].arrivals: {} arrivals found no free flow id and were not started (too many flows at once)",
                arrival.group, arrival.refused
            ));
        }
        let fcts = (!self.fcts.is_empty()).then(|| {
            let mut table = FctTable::default();
            let mut order: Vec<&FctRecord> = self.fcts.iter().collect();
            order.sort_by_key(|r| (r.start, r.group));
            for record in order {
                table.group.push(self.scenario.group_name(record.group as usize));
                table.start_s.push(record.start as f64 / NS_PER_SEC as f64);
                table.size_bytes.push(record.size_bytes);
                table.completed.push(record.fct.is_some());
                table.fct_ms.push(record.fct.map(|ns| ns as f64 / 1e6));
                table.ideal_fct_ms.push(record.ideal as f64 / 1e6);
                table.slowdown.push(record.slowdown());
            }
            table
        });
        warnings.extend(silent);
        if let Some(at) = self.fct_rows_stopped_at {
            warnings.push(format!(
                "trace.fcts: per-flow rows stopped at {} s, at the memory limit ({}, or set trace.fcts = false: the groups' FCT summaries cover every flow either way)",
                crate::schema::Num(at as f64 / NS_PER_SEC as f64),
                self.raise_hint
            ));
        }
        if let Some(at) = self.trace_stopped_at {
            warnings.push(format!(
                "trace.flows: stopped at {} s, when the traces reached the memory limit ({}, or trace a shorter run or fewer flows)",
                crate::schema::Num(at as f64 / NS_PER_SEC as f64),
                self.raise_hint
            ));
        }
        for capture in traces.iter().flat_map(|t| &t.captures).filter(|c| c.truncated) {
            warnings.push(format!(
                "trace.pcap: {}'s capture stopped after {} packets, at the memory limit ({}, or capture a shorter run)",
                capture.name,
                capture.len(),
                self.raise_hint
            ));
        }
        if let Some(x) = bottleneck.extras.as_ref().filter(|x| x.queue_trace_full) {
            warnings.push(format!(
                "trace.queue: stopped after {} samples, at the memory limit ({}, or trace a shorter run)",
                x.queue_trace_limit,
                self.raise_hint
            ));
        }
        RunResult {
            version: crate::VERSION,
            warnings,
            duration_s,
            events: self.events.executed(),
            data_packets_sent: data_sent,
            system,
            groups,
            links,
            bins: Bins {
                width_s: self.bin_width as f64 / NS_PER_SEC as f64,
                // Moved, not copied: with many flows and long runs they are most of the result.
                delivered_bytes: self.flows[..self.static_flows].iter_mut().map(|f| std::mem::take(&mut f.delivered_bins)).collect(),
                bottleneck_arrivals: bottleneck.bins().map_or_else(Vec::new, |b| b.arrivals.clone()),
                bottleneck_drops: bottleneck.bins().map_or_else(Vec::new, |b| b.drops.clone()),
                bottleneck_transmitted_bytes: bottleneck.bins().map_or_else(Vec::new, |b| b.transmitted_bytes.clone()),
            },
            flows,
            conservation,
            traces,
            fcts,
        }
    }
}

/// A warning for each group whose flows, started before the end of the run, delivered
/// nothing at all (a run shorter than a round trip, a delay of hours, a link that loses
/// everything): the result is legal, and almost certainly not what was meant. (A few
/// flows of a group starved by the others are a result, not a mistake: no warning.)
/// Groups that start after the end have their own warning ([`Scenario::warnings`]).
fn silent_flow_warnings(scenario: &Scenario, members_of: &[Vec<&FlowMetrics>], horizon: Time) -> Vec<String> {
    let end_s = horizon as f64 / NS_PER_SEC as f64;
    let mut warnings = Vec::new();
    for (g, members) in members_of.iter().enumerate() {
        let started: Vec<&&FlowMetrics> = members.iter().filter(|m| m.start_s < end_s).collect();
        if started.is_empty() || started.iter().any(|m| m.goodput_mbps > 0.0) {
            continue;
        }
        let which = match started.len() {
            1 => "its flow".to_string(),
            n => format!("none of its {n} flows"),
        };
        // A round trip longer than what was left of the run explains it; otherwise say
        // where to look.
        let shortest_rtt_ms = started.iter().map(|m| m.base_rtt_ms).fold(f64::INFINITY, f64::min);
        let latest_start_s = started.iter().map(|m| m.start_s).fold(0.0, f64::max);
        let rtt = crate::sim::Duration((shortest_rtt_ms * 1e6).round() as u64);
        let verb = if started.len() == 1 { "delivered no data" } else { "delivered any data" };
        warnings.push(if shortest_rtt_ms / 1e3 >= end_s - latest_start_s {
            format!("flows[{g}]: {which} {verb}: the {} run ends before a round trip ({rtt}) is over", scenario.duration)
        } else {
            format!("flows[{g}]: {which} {verb} in the {} run; check the delays, rates and loss on the path", scenario.duration)
        });
    }
    warnings
}

impl Simulation {
    /// A traced link's bins as a table (`trace.links`).
    fn link_trace(&self, name: &str, id: LinkId) -> LinkTrace {
        let link = &self.links[id as usize];
        let bins = link.bins().expect("a traced link has bins");
        let detail = bins.detail.as_ref().expect("a traced link's bins are detailed");
        let width_s = bins.width as f64 / NS_PER_SEC as f64;
        let capacity_bytes = link.rate.bps() as f64 / 8.0 * width_s;
        let mean = |sum: u64, count: u64, scale: f64| if count == 0 { f64::NAN } else { sum as f64 / count as f64 * scale };
        let n = bins.arrivals.len();
        LinkTrace {
            name: name.to_string(),
            t_s: (0..n).map(|i| i as f64 * width_s).collect(),
            arrivals: bins.arrivals.clone(),
            drops: bins.drops.clone(),
            marks: detail.marks.clone(),
            transmitted_bytes: bins.transmitted_bytes.clone(),
            utilization: bins.transmitted_bytes.iter().map(|&b| b as f64 / capacity_bytes).collect(),
            mean_queue_packets: (0..n).map(|i| mean(detail.queue_packets[i], detail.queued[i], 1.0)).collect(),
            max_queue_packets: detail.max_queue_packets.clone(),
            mean_queue_bytes: (0..n).map(|i| mean(detail.queue_bytes[i], detail.queued[i], 1.0)).collect(),
            mean_sojourn_ms: (0..n).map(|i| mean(detail.sojourn_ns[i], detail.started[i], 1e-6)).collect(),
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
