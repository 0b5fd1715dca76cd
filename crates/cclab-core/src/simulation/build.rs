//! Building a simulation from a scenario: the memory it may take, its links, hosts and
//! endpoints, its arrivals generators.
use super::*;
use crate::app::{PacketSchedule, TcpApplication};
use crate::cc::{CcConfig, Controller};
use crate::net::network::{build_links, pass_through_links, Stream};
use crate::scenario::{AppSpec, Transport};
use crate::sim::rng::{stream, APP_STREAMS, ARRIVAL_STREAMS, CC_STREAMS, TCP_CLOCK_STREAMS};
use crate::transport::tfrc::{TfrcReceiver, TfrcSender};
use crate::transport::{TcpReceiver, TcpSender, UdpSink, UdpSource};

/// The generators of the groups whose flows arrive during the run, each with the
/// source/sink pairs (paths) its flows take in turn.
fn arrival_generators(scenario: &Scenario, plans: &[crate::scenario::FlowPlan], graph: &Graph) -> Vec<Arrivals> {
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
    arrivals
}

/// The source and sink endpoints of flow `id` (of `plan`'s group): a TCP pair (its
/// congestion control made by `controllers` for `algorithm = "python"`), a UDP source
/// and sink, or a TFRC sender and receiver; `finite` packets for a finite application.
fn endpoints(
    scenario: &Scenario,
    plan: &crate::scenario::FlowPlan,
    id: usize,
    finite: Option<u64>,
    controllers: Option<&mut ControllerFactory<'_>>,
) -> Result<(Endpoint, Endpoint), ScenarioError> {
    let (g, start, stop) = (plan.group, plan.start, plan.stop);
    let group = &scenario.flows[g];
    let payload = group.payload_bytes(scenario.packet_size);
    let data_bytes = payload + scenario.header_size;
    Ok(match group.transport {
        Transport::Tcp => {
            let controller = match (group.cc(), controllers) {
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
            tcp_pair(scenario, g, id as u64, start, stop, finite, controller)
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
                Endpoint::TfrcReceiver { receiver: Box::new(receiver), feedback_bytes: scenario.ack_size.get() },
            )
        }
    })
}

/// A TCP sender and its sink for flow `id` (its random streams) of group `g`, starting
/// at `start`; `packets` for a finite application; `controller` when the embedder made
/// the congestion control.
pub(super) fn tcp_pair(
    scenario: &Scenario,
    g: usize,
    id: u64,
    start: Time,
    stop: Option<Time>,
    packets: Option<u64>,
    controller: Option<Controller>,
) -> (Endpoint, Endpoint) {
    let group = &scenario.flows[g];
    let payload = group.payload_bytes(scenario.packet_size);
    let (data_bytes, ack_bytes) = (payload + scenario.header_size, scenario.ack_size.get());
    let tcp = group.tcp();
    let first_data = if tcp.syn { 1 } else { 0 };
    let mut receiver = TcpReceiver::new(
        tcp.recovery == crate::transport::Recovery::Sack,
        tcp.delayed_ack().then_some(tcp.delayed_ack_timeout().ns()),
        first_data,
    );
    let rules = tcp.ns2_rules();
    if rules.ecn {
        receiver = receiver.with_ns2_ecn();
    }
    let cc = group.cc();
    match cc.ecn() {
        crate::cc::EcnUse::ExactEcho => receiver = receiver.with_dctcp_echo(),
        crate::cc::EcnUse::L4s => receiver = receiver.with_accecn(),
        crate::cc::EcnUse::AsConfigured => {}
    }
    let linux = tcp.profile() == crate::transport::TcpProfile::Linux;
    if linux {
        receiver = receiver.with_linux_rules();
    }
    let mut controller = controller.unwrap_or_else(|| cc.build());
    if let Controller::Agent(agent) = &mut controller {
        agent.set_segment_bytes(data_bytes); // its rates are bits on the wire
    }
    crate::cc::CongestionControl::set_seed(&mut controller, rand::Rng::gen(&mut stream(scenario.seed, CC_STREAMS + id)));
    let mut sender = TcpSender::new(tcp, controller, start, data_bytes, ack_bytes);
    sender.set_newreno_agent(cc.ns2_agent());
    if linux {
        sender.use_linux_rules(payload);
    }
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
        let bits = payload as f64 * 8.0;
        sender.set_application(TcpApplication::Cbr { ns_per_segment: bits * 1e9 / rate.bps() as f64 });
    }
    (Endpoint::TcpSender(Box::new(sender)), Endpoint::TcpSink { receiver, ack_bytes })
}

/// A finite flow's row: its record while the run goes on, its columns (group name
/// included) and JSON on the way out.
pub(super) const BYTES_PER_FCT_ROW: u64 = 200;

/// A captured packet's share of memory (its columns, and its JSON on the way out).
pub(super) const BYTES_PER_CAPTURED_PACKET: u64 = 128;

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
pub(super) fn human_bytes(bytes: u64) -> String {
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

/// What the memory limit leaves, beyond the estimate, to each of what grows with the
/// events and cannot be foreseen: flow, queue and packet traces, completion rows, and the
/// slots of flows alive at once. Each gets an equal share and stops when it is spent.
fn memory_share(scenario: &Scenario, spare: u64) -> u64 {
    let trace = &scenario.trace;
    let arrived_flows = scenario.flows.iter().any(|g| g.arrivals.is_some());
    let fct_rows = trace.fcts && arrived_flows;
    let kinds = [trace.flows, trace.queue, !trace.pcap.is_empty(), fct_rows, arrived_flows].iter().filter(|&&on| on).count().max(1);
    spare / kinds as u64
}

/// Event ids carry a link direction, or on the timer heap an endpoint (two per flow) or a
/// dequeue-time link (counted down from the top): there must be enough.
fn check_event_ids(graph: &Graph, flows: usize) -> Result<(), ScenarioError> {
    let dequeue_links = graph.links.iter().filter(|d| graph.params[d.params as usize].queue.dequeues()).count();
    let ids = (graph.links.len() as u64).max(2 * flows as u64 + dequeue_links as u64);
    if ids > MAX_EVENT_ID as u64 + 1 {
        return Err(ScenarioError(format!(
            "topology: {} link directions and {flows} flows need {ids} event ids; at most {}",
            graph.links.len(),
            MAX_EVENT_ID as u64 + 1
        )));
    }
    Ok(())
}

/// The links that must see every packet through events, not take the shortcuts
/// (`Network::pass_through_links`' "scheduled"): those with a dequeue-time discipline,
/// and every link a flow crossing a trace link sends or is answered on. A trace delivers
/// on a millisecond grid: several packets leave it at one instant, their answers come
/// back on the grid, and a sender's retransmission timer (an RTO after a send at an
/// answer's arrival) falls due at the instant an answer arrives. At such ties the
/// shortcuts' order (a packet handed on early goes before a timer due at its own
/// instant) is not the event queue's (by when each was scheduled).
fn event_driven_links(graph: &Graph, routes: &[Vec<LinkId>]) -> Vec<bool> {
    let params = |link: LinkId| &graph.params[graph.links[link as usize].params as usize];
    let traced = |route: RouteId| routes[route as usize].iter().any(|&link| params(link).delivery_trace().is_some());
    // (a link whose emulator releases packets by its loop must see each arrival at its time)
    let mut driven: Vec<bool> = (0..graph.links.len() as LinkId).map(|link| params(link).queue.dequeues() || params(link).emulator.is_some()).collect();
    for path in &graph.paths {
        if traced(path.data_route) || traced(path.reply_route) {
            for &link in routes[path.data_route as usize].iter().chain(&routes[path.reply_route as usize]) {
                driven[link as usize] = true;
            }
        }
    }
    driven
}

/// Every route's links in one table, each route ended by ROUTE_END, and where each route
/// starts there (hosts and packets name a route by it).
fn route_table(routes: &[Vec<LinkId>]) -> (Vec<u32>, Vec<LinkId>) {
    let mut route_starts = Vec::with_capacity(routes.len());
    let mut route_links = Vec::with_capacity(routes.iter().map(|r| r.len() + 1).sum());
    for route in routes {
        route_starts.push(route_links.len() as u32);
        route_links.extend_from_slice(route);
        route_links.push(ROUTE_END);
    }
    (route_starts, route_links)
}

/// The instruments a scenario asks for on its links: detailed bins on `trace.links`,
/// captures on `trace.pcap` (within `share` of memory), the bottleneck's bins and queue
/// trace. Returns the traced links, in `trace.links` order, and the captures.
fn instrument_links(links: &mut [Link], graph: &Graph, scenario: &Scenario, bins: usize, share: u64) -> Result<(Vec<LinkId>, Captures), ScenarioError> {
    let bin_width = scenario.bin_width.ns();
    let traced_links = graph.named_links("trace.links", &scenario.trace.links).map_err(ScenarioError)?;
    let sojourn_bin = scenario.trace.queue_delay_histogram.map_or(0, |bin| bin.ns());
    for &id in &traced_links {
        let traced = crate::net::link::LinkBins::new(bin_width, bins).detailed().with_sojourn_histogram(sojourn_bin);
        links[id as usize].extras_mut().bins = Some(traced);
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
    Ok((traced_links, captures))
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
        let share = memory_share(&scenario, limits.max_memory_bytes - needed);
        check_event_ids(&graph, plans.len())?;
        let trace = &scenario.trace;
        let fct_rows = trace.fcts && scenario.flows.iter().any(|g| g.arrivals.is_some());
        let bin_width = scenario.bin_width.ns();
        let horizon = scenario.duration.ns();
        let bins = horizon.div_ceil(bin_width) as usize;
        let (route_starts, route_links) = route_table(&graph.routes);
        let mut flows = Vec::with_capacity(plans.len());
        let mut hosts = Vec::with_capacity(2 * plans.len());
        let mut streams = Vec::with_capacity(2 * plans.len());
        let arrivals = arrival_generators(&scenario, &plans, &graph);
        for (plan, path) in plans.iter().zip(&graph.paths).filter(|(plan, _)| scenario.flows[plan.group].arrivals.is_none()) {
            let id = flows.len();
            let (g, start, stop) = (plan.group, plan.start, plan.stop);
            let group = &scenario.flows[g];
            let finite = match group.app() {
                AppSpec::Bulk { size: Some(size) } if group.transport == Transport::Tcp => {
                    Some(size.0.div_ceil(group.payload_bytes(scenario.packet_size) as u64))
                }
                _ => None,
            };
            let (source, sink) = endpoints(&scenario, plan, id, finite, controllers.as_deref_mut())?;
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
        let scheduled = event_driven_links(&graph, &routes);
        let pass_through = pass_through_links(&routes, links.len(), stand_ins as usize, &streams, &scheduled);
        let ns2_ties = scenario.profile == Some(crate::transport::TcpProfile::Ns2);
        for (link, pass) in links.iter_mut().zip(pass_through) {
            link.pass_through = pass;
            link.ns2_ties = ns2_ties;
            link.horizon = horizon;
        }
        let (traced_links, captures) = instrument_links(&mut links, &graph, &scenario, bins, share)?;
        let flows_len = flows.len();
        let mut simulation = Simulation {
            event_sched: 0,
            agent_payload_bytes: scenario.packet_size.get(),
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
            stepping: None,
        };
        simulation.arrival_totals = vec![ArrivalTotals::default(); simulation.scenario.flows.len()];
        for slot in 0..flows_len {
            let payload = simulation.group_payload(simulation.flows[slot].group);
            simulation.counts.captures.flow_payload(slot, 0, payload);
        }
        simulation.schedule_starts(&plans);
        Ok(simulation)
    }

    /// Before the run: each finite flow's least completion time (for its slowdown), each
    /// arrivals group's rate and first arrival, every endpoint's first deadline.
    fn schedule_starts(&mut self, plans: &[crate::scenario::FlowPlan]) {
        // A finite flow's least completion time, for its slowdown.
        let static_paths = plans.iter().zip(&self.graph.paths).filter(|(plan, _)| self.scenario.flows[plan.group].arrivals.is_none());
        let ideals: Vec<Option<Time>> = static_paths
            .enumerate()
            .map(|(id, (plan, path))| {
                let group = &self.scenario.flows[plan.group];
                let (syn, payload) = (group.tcp().syn, group.payload_bytes(self.scenario.packet_size));
                self.flows[id].finite.map(|f| self.ideal_fct(path.data_route, path.reply_route, f.packets, payload, syn))
            })
            .collect();
        for (flow, ideal) in self.flows.iter_mut().zip(ideals) {
            if let (Some(finite), Some(ideal)) = (flow.finite.as_mut(), ideal) {
                finite.ideal = ideal;
            }
        }
        // Arrivals: λ from the slowest link on the first pair's data route.
        for (k, arrival) in self.arrivals.iter_mut().enumerate() {
            let route = &self.route_links[self.route_starts[arrival.pairs[0].data_route as usize] as usize..];
            let capacity = route.iter().take_while(|&&l| l != ROUTE_END).map(|&l| self.links[l as usize].rate.bps()).min();
            arrival.mean_gap_ns = arrival.spec.mean_gap_ns(capacity.expect("a route has a link") as f64);
            let start = self.scenario.flows[arrival.group].start.at.ns();
            let first = start.saturating_add(arrival.spec.draw_gap(arrival.mean_gap_ns, &mut arrival.rng));
            let id = MAX_EVENT_ID - self.links.len() as u32 - k as u32;
            self.events.schedule(first, Event::Timer(id));
        }
        // Every source's first deadline is its start; sinks may have none yet (the
        // deadline is noted for every endpoint).
        for endpoint in 0..self.hosts.len() as u32 {
            self.arm_timer(endpoint);
        }
    }

    /// The least time a finite flow of `packets` of `payload` bytes can take from its start to its last
    /// packet's arrival: its first packet's store-and-forward trip along `data_route`
    /// (every link's delay and serialisation), the other packets one serialisation apart
    /// at the slowest link, and first, with the SYN-like packet, that packet's trip and
    /// its ACK's back. Serialisations are rounded down, so no flow can beat it.
    pub(super) fn ideal_fct(&self, data_route: RouteId, reply_route: RouteId, packets: u64, payload: u32, syn: bool) -> Time {
        let data_bytes = (payload + self.scenario.header_size) as u64;
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
}
