//! The engine loop: it owns the event queue, the packet arena, the links and the flows,
//! and moves packets between them. Nothing here knows about Python or files.
use crate::cc::CongestionControl;
use crate::metrics::*;
use crate::net::link::Admission;
use crate::net::packet::ecn;
use crate::net::topology::{AccessDelays, Network};
use crate::net::{Link, LinkId, Packet, PacketArena, PacketId, PacketKind, RouteId};
use crate::scenario::{AppSpec, Scenario, ScenarioError};
use crate::sim::rng::{stream, FLOW_START_STREAMS};
use crate::sim::{Event, EventQueue, Time, NS_PER_SEC};
use crate::transport::sender::{Application, Transmission};
use crate::transport::{AckInfo, Recovery, TcpReceiver, TcpSender};
use rand::Rng;

struct Flow {
    group: usize,
    sender: TcpSender,
    receiver: TcpReceiver,
    data_route: RouteId,
    ack_route: RouteId,
    base_rtt: Time,
    start: Time,
    stop: Option<Time>,
    rto_timer: LazyTimer,
    delack_timer: LazyTimer,
    delivered_bins: Vec<u64>,
    /// Data segments delivered in order to the application by the end of the run.
    delivered_by_horizon: u64,
    trace: Option<FlowTrace>,
}

/// A host timer kept as a deadline the host owns; the engine keeps at most one event
/// per deadline that moves earlier and none when it moves later (TCP pushes its
/// retransmission deadline later on every ACK). A stale event finds the deadline
/// later and re-arms.
#[derive(Default)]
struct LazyTimer {
    /// The earliest pending event scheduled for this timer.
    pending: Option<Time>,
}

impl LazyTimer {
    fn arm(&mut self, deadline: Option<Time>, events: &mut EventQueue, event: Event) {
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

pub struct Simulation {
    scenario: Scenario,
    horizon: Time,
    events: EventQueue,
    packets: PacketArena,
    links: Vec<Link>,
    routes: Vec<Vec<LinkId>>,
    bottleneck: LinkId,
    flows: Vec<Flow>,
    outbox: Vec<Transmission>,
    /// Scratch space for tracing congestion-control state.
    cc_state: Vec<(&'static str, f64)>,
    payload_bytes: u32,
    data_wire_bytes: u32,
    ack_bytes: u32,
    bin_width: Time,
    counts: Counts,
}

#[derive(Default)]
struct Counts {
    data_sent: u64,
    data_received: u64,
    /// Packets whose arrival at their host falls after the end of the run.
    data_late: u64,
    acks_late: u64,
    acks_sent: u64,
    acks_received: u64,
    data_dropped: u64,
    acks_dropped: u64,
    syn_dropped: u64,
}

/// Extra ACK bytes per SACK block (ns-2 TCPSink/Sack1: 8).
const SACK_BLOCK_BYTES: u32 = 8;

impl Simulation {
    pub fn new(scenario: Scenario) -> Result<Simulation, ScenarioError> {
        let mut plans = Vec::new();
        let mut delays = Vec::new();
        for (g, group) in scenario.flows.iter().enumerate() {
            let n = group.count.get();
            let mut start_rng = stream(scenario.seed, FLOW_START_STREAMS + g as u64);
            let scheduled = group.scheduled_windows();
            for i in 0..n {
                let (start, stop) = match &scheduled {
                    Some(windows) => (windows[i as usize].start.ns(), windows[i as usize].stop.map(|t| t.ns())),
                    None => {
                        let offset = match (group.start.stagger, group.start.random) {
                            (Some(stagger), _) => (stagger.ns() as u128 * i as u128 / n as u128) as Time,
                            (_, Some(random)) if random.ns() > 0 => start_rng.gen_range(0..random.ns()),
                            _ => 0,
                        };
                        (group.start.at.ns() + offset, group.stop.map(|t| t.ns()))
                    }
                };
                plans.push((g, start, stop));
                delays.push(AccessDelays { source: group.source_delay, sink: group.sink_delay });
            }
        }
        let network = Network::dumbbell(&scenario, &delays);
        let bin_width = scenario.bin_width.ns();
        let horizon = scenario.duration.ns();
        let bins = horizon.div_ceil(bin_width) as usize;
        let mut flows = Vec::with_capacity(plans.len());
        for (id, ((g, start, stop), path)) in plans.into_iter().zip(&network.paths).enumerate() {
            let group = &scenario.flows[g];
            let tcp = group.tcp.clone();
            let first_data = if tcp.syn { 1 } else { 0 };
            let receiver = TcpReceiver::new(
                tcp.recovery == Recovery::Sack,
                tcp.delayed_ack.then_some(tcp.delayed_ack_timeout.ns()),
                first_data,
            );
            let trace = scenario.trace.flows.then(|| FlowTrace { id: id as u32, ..Default::default() });
            let mut sender = TcpSender::new(tcp, group.cc.build());
            if let Some(stop) = stop {
                sender.stop_application_at(stop);
            }
            if let AppSpec::Cbr { rate } = group.app {
                let bits = scenario.packet_size.get() as f64 * 8.0;
                sender.set_application(Application::Cbr { ns_per_segment: bits * 1e9 / rate.bps() as f64 });
            }
            flows.push(Flow {
                group: g,
                sender,
                receiver,
                data_route: path.data_route,
                ack_route: path.ack_route,
                base_rtt: path.base_rtt,
                start,
                stop,
                rto_timer: LazyTimer::default(),
                delack_timer: LazyTimer::default(),
                delivered_bins: vec![0; bins],
                delivered_by_horizon: 0,
                trace,
            });
        }
        let pass_through = network.pass_through_links();
        let mut links = network.links;
        for link in pass_through {
            links[link as usize].pass_through = true;
        }
        if scenario.trace.queue {
            links[network.bottleneck as usize].queue_trace = Some(Vec::new());
        }
        let mut events = EventQueue::default();
        for (id, flow) in flows.iter().enumerate() {
            events.schedule(flow.start, Event::FlowStart(id as u32));
        }
        Ok(Simulation {
            payload_bytes: scenario.packet_size.get(),
            data_wire_bytes: scenario.packet_size.get() + scenario.header_size,
            ack_bytes: scenario.ack_size.get(),
            bin_width,
            horizon,
            events,
            packets: PacketArena::default(),
            links,
            routes: network.routes,
            bottleneck: network.bottleneck,
            flows,
            outbox: Vec::new(),
            cc_state: Vec::new(),
            counts: Counts::default(),
            scenario,
        })
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

    /// Run to the end of the scenario and summarise.
    pub fn run(mut self) -> RunResult {
        while let Some((now, event)) = self.events.pop_until(self.horizon) {
            match event {
                Event::LinkArrival(link) => self.on_link_arrival(now, link),
                Event::RetransmitTimer(flow) => self.on_retransmit_timer(now, flow),
                Event::DelayedAckTimer(flow) => self.on_delayed_ack_timer(now, flow),
                Event::FlowStart(flow) => {
                    self.flows[flow as usize].sender.start(now, &mut self.outbox);
                    self.after_sender(now, flow);
                }
            }
        }
        self.summarise()
    }

    fn on_link_arrival(&mut self, now: Time, link: LinkId) {
        let (id, next) = self.links[link as usize].take_arrival();
        if let Some(at) = next {
            self.events.schedule(at, Event::LinkArrival(link));
        }
        let packet = self.packets.get_mut(id);
        packet.hop += 1;
        let route = &self.routes[packet.route as usize];
        if (packet.hop as usize) < route.len() {
            let next_link = route[packet.hop as usize];
            self.offer(now, next_link, id);
        } else {
            self.arrive_at_host(now, id);
        }
    }

    /// Offer a packet to a link at `now`; through pass-through links it goes on at once
    /// to the next link, at the (future) time it will reach it.
    fn offer(&mut self, mut now: Time, mut link: LinkId, id: PacketId) {
        loop {
            if now > self.horizon {
                // Handed on ahead of time but due after the end: still in flight then.
                return self.count_late(id);
            }
            let packet = self.packets.get(id);
            let (size, ect) = (packet.size, packet.ecn & ecn::ECT != 0);
            match self.links[link as usize].offer(now, id, size, ect) {
                Admission::Admitted { arrives, schedule, mark_ce } => {
                    if mark_ce {
                        self.packets.get_mut(id).ecn |= ecn::CE;
                    }
                    if let Some(at) = schedule {
                        self.events.schedule(at, Event::LinkArrival(link));
                    }
                    if !self.links[link as usize].pass_through {
                        return;
                    }
                    let packet = self.packets.get_mut(id);
                    packet.hop += 1;
                    match self.routes[packet.route as usize].get(packet.hop as usize) {
                        Some(&next) => link = next,
                        None => return self.arrive_at_host(arrives, id),
                    }
                    now = arrives;
                }
                Admission::Dropped | Admission::Lost => {
                    match self.packets.get(id).kind {
                        PacketKind::Ack => self.counts.acks_dropped += 1,
                        PacketKind::Data => self.counts.data_dropped += 1,
                        PacketKind::Syn => self.counts.syn_dropped += 1,
                    }
                    self.packets.free(id);
                    return;
                }
            }
        }
    }

    /// A packet reaches its destination host at `at`.
    ///
    /// Hosts are eager: the last link of a route is pass-through, so a packet is handed
    /// to its host as soon as its arrival time is known, possibly ahead of the engine's
    /// clock. That is exact because a host is a function of its own inputs only: its
    /// arrivals, which come over one FIFO path and so in time order, and its own timers,
    /// which are fired first whenever they fall due before the arrival. Arrivals after
    /// the end of the run are left undelivered (counted as in flight).
    fn arrive_at_host(&mut self, at: Time, id: PacketId) {
        if at > self.horizon {
            return self.count_late(id);
        }
        self.deliver(at, id);
    }

    /// A packet whose next step falls after the end of the run: count it in flight.
    fn count_late(&mut self, id: PacketId) {
        match self.packets.get(id).kind {
            PacketKind::Data => self.counts.data_late += 1,
            PacketKind::Ack => self.counts.acks_late += 1,
            PacketKind::Syn => {}
        }
        self.packets.free(id);
    }

    fn deliver(&mut self, now: Time, id: PacketId) {
        let packet = *self.packets.get(id);
        let f = packet.flow;
        match packet.kind {
            PacketKind::Data | PacketKind::Syn => {
                self.counts.data_received += (packet.kind == PacketKind::Data) as u64;
                self.fire_due_delayed_ack(f, now);
                let flow = &mut self.flows[f as usize];
                let receipt = flow.receiver.on_segment(
                    now,
                    packet.seq,
                    packet.ecn & ecn::CE != 0,
                    packet.ecn & ecn::CWR != 0,
                );
                if receipt.delivered > 0 {
                    // The last bin also takes deliveries at exactly the horizon.
                    let bin = ((now / self.bin_width) as usize).min(flow.delivered_bins.len() - 1);
                    flow.delivered_bins[bin] += receipt.delivered as u64 * self.payload_bytes as u64;
                    flow.delivered_by_horizon += receipt.delivered as u64;
                }
                match receipt.ack {
                    // The data packet's slot becomes the ACK: no allocation.
                    Some(ack) => self.send_ack(now, f, id, ack),
                    None => self.packets.free(id),
                }
                self.ensure_delack_timer(f);
            }
            PacketKind::Ack => {
                self.packets.free(id);
                self.counts.acks_received += 1;
                self.fire_due_retransmit_timer(f, now);
                self.flows[f as usize].sender.on_ack(now, &packet.ack, &mut self.outbox);
                self.after_sender(now, f);
            }
        }
    }

    fn send_ack(&mut self, now: Time, flow: u32, id: PacketId, ack: AckInfo) {
        let route = self.flows[flow as usize].ack_route;
        *self.packets.get_mut(id) = Packet {
            flow,
            kind: PacketKind::Ack,
            seq: ack.cumulative,
            size: self.ack_bytes + SACK_BLOCK_BYTES * ack.sack_count as u32,
            route,
            hop: 0,
            ecn: if ack.ece { ecn::ECE } else { 0 },
            ack,
        };
        self.counts.acks_sent += 1;
        let first = self.routes[route as usize][0];
        self.offer(now, first, id);
    }

    /// Put the sender's queued transmissions on the wire, keep its timer armed, trace.
    fn after_sender(&mut self, now: Time, f: u32) {
        let mut outbox = std::mem::take(&mut self.outbox);
        let route = self.flows[f as usize].data_route;
        let first = self.routes[route as usize][0];
        for tx in outbox.drain(..) {
            let size = if tx.syn { self.ack_bytes } else { self.data_wire_bytes };
            self.counts.data_sent += !tx.syn as u64;
            let mut bits = if tx.ect { ecn::ECT } else { 0 };
            if tx.cwr {
                bits |= ecn::CWR;
            }
            let id = self.packets.alloc(Packet {
                flow: f,
                kind: if tx.syn { PacketKind::Syn } else { PacketKind::Data },
                seq: tx.seq,
                size,
                route,
                hop: 0,
                ecn: bits,
                ack: AckInfo::default(),
            });
            self.offer(now, first, id);
        }
        self.outbox = outbox;
        self.arm_retransmit_timer(f);
        let flow = &mut self.flows[f as usize];
        if let Some(trace) = flow.trace.as_mut() {
            trace.t_s.push(now as f64 / NS_PER_SEC as f64);
            trace.cwnd.push(flow.sender.window.cwnd);
            trace.ssthresh.push(flow.sender.window.ssthresh.min(1e9));
            trace.srtt_ms.push(flow.sender.srtt_ns().unwrap_or(f64::NAN) / 1e6);
            self.cc_state.clear();
            flow.sender.cc.state(&mut self.cc_state);
            for &(name, value) in &self.cc_state {
                trace.cc_state.entry(format!("cc_{name}")).or_default().push(value);
            }
        }
    }

    fn arm_retransmit_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.rto_timer.arm(flow.sender.timer_deadline(), &mut self.events, Event::RetransmitTimer(f));
    }

    fn on_retransmit_timer(&mut self, now: Time, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.rto_timer.fired(now);
        if flow.sender.on_timer(now, &mut self.outbox) {
            self.after_sender(now, f);
        } else {
            self.arm_retransmit_timer(f);
        }
    }

    /// Before an early-delivered ACK at `before`: expire the timer if it falls due first.
    fn fire_due_retransmit_timer(&mut self, f: u32, before: Time) {
        while let Some(deadline) = self.flows[f as usize].sender.timer_deadline().filter(|&d| d < before) {
            self.flows[f as usize].sender.on_timer(deadline, &mut self.outbox);
            self.after_sender(deadline, f);
        }
    }

    /// Before an early-delivered segment at `before`: send a delayed ACK falling due first.
    fn fire_due_delayed_ack(&mut self, f: u32, before: Time) {
        if let Some(deadline) = self.flows[f as usize].receiver.delayed_ack_deadline().filter(|&d| d < before) {
            self.send_delayed_ack(deadline, f);
        }
    }

    fn ensure_delack_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.delack_timer.arm(flow.receiver.delayed_ack_deadline(), &mut self.events, Event::DelayedAckTimer(f));
    }

    fn on_delayed_ack_timer(&mut self, now: Time, f: u32) {
        self.flows[f as usize].delack_timer.fired(now);
        self.send_delayed_ack(now, f);
        self.ensure_delack_timer(f);
    }

    fn send_delayed_ack(&mut self, now: Time, f: u32) {
        if let Some(ack) = self.flows[f as usize].receiver.on_delayed_ack_timer(now) {
            let id = self.packets.alloc(Packet::default());
            self.send_ack(now, f, id, ack);
        }
    }

    fn summarise(self) -> RunResult {
        let duration_s = self.horizon as f64 / NS_PER_SEC as f64;
        let mbps = |bytes: u64| bytes as f64 * 8.0 / duration_s / 1e6;
        let payload = self.payload_bytes as u64;
        let mut flows = Vec::with_capacity(self.flows.len());
        for (id, flow) in self.flows.iter().enumerate() {
            let stats = flow.sender.stats;
            let delivered = flow.delivered_by_horizon;
            flows.push(FlowMetrics {
                id: id as u32,
                group: self.scenario.group_name(flow.group),
                cc: flow.sender.cc.label(),
                goodput_mbps: mbps(delivered * payload),
                throughput_mbps: mbps(stats.data_packets_sent * payload),
                retransmitted_packets: stats.retransmitted_packets,
                timeouts: stats.timeouts,
                fast_recoveries: stats.fast_recoveries,
                data_packets_sent: stats.data_packets_sent,
                delivered_packets: delivered,
                start_s: flow.start as f64 / NS_PER_SEC as f64,
                stop_s: flow.stop.map(|t| t as f64 / NS_PER_SEC as f64),
                base_rtt_ms: flow.base_rtt as f64 / 1e6,
                mean_rtt_ms: (stats.rtt.samples > 0).then(|| stats.rtt.rtt_ns / stats.rtt.samples as f64 / 1e6),
                mean_rto_ms: (stats.rtt.samples > 0).then(|| stats.rtt.rto_ns / stats.rtt.samples as f64 / 1e6),
                ecn_reactions: stats.ecn_reductions,
                cc_state: {
                    let mut state = Vec::new();
                    flow.sender.cc.state(&mut state);
                    state.into_iter().map(|(name, value)| (name.to_string(), value)).collect()
                },
            });
        }
        let groups = (0..self.scenario.flows.len())
            .map(|g| {
                let members: Vec<&FlowMetrics> =
                    flows.iter().zip(&self.flows).filter(|(_, f)| f.group == g).map(|(m, _)| m).collect();
                GroupMetrics {
                    name: self.scenario.group_name(g),
                    cc: self.scenario.flows[g].cc.label(),
                    flows: members.len() as u32,
                    goodput_mbps: members.iter().map(|m| m.goodput_mbps).sum(),
                    throughput_mbps: members.iter().map(|m| m.throughput_mbps).sum(),
                }
            })
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_mbps).collect();
        let bottleneck = &self.links[self.bottleneck as usize];
        let bottleneck_bytes = bottleneck.stats.bytes_sent + bottleneck.transmitted_bytes_held(self.horizon);
        let system = SystemMetrics {
            goodput_mbps: goodputs.iter().sum(),
            throughput_mbps: flows.iter().map(|f| f.throughput_mbps).sum(),
            jain_index: jain_index(&goodputs),
            bottleneck_utilization: bottleneck_bytes as f64 * 8.0 / (bottleneck.rate.bps() as f64 * duration_s),
            bottleneck_drops: bottleneck.stats.queue_drops,
            loss_model_drops: self.links.iter().map(|l| l.stats.loss_drops).sum(),
            bottleneck_ecn_marks: bottleneck.red.as_ref().map_or(0, |r| r.stats.marks),
            bottleneck_red_drops: bottleneck.red.as_ref().map_or(0, |r| r.stats.early_drops + r.stats.forced_drops),
            mean_queue_delay_ms: if bottleneck.stats.admitted == 0 {
                0.0
            } else {
                bottleneck.stats.queueing_delay_sum as f64 / bottleneck.stats.admitted as f64 / 1e6
            },
        };
        let (mut data_in_flight, mut acks_in_flight) = (0, 0);
        for link in &self.links {
            for id in link.in_flight() {
                match self.packets.get(id).kind {
                    PacketKind::Ack => acks_in_flight += 1,
                    PacketKind::Data => data_in_flight += 1,
                    PacketKind::Syn => {}
                }
            }
        }
        let data_sent: u64 = flows.iter().map(|f| f.data_packets_sent).sum();
        debug_assert_eq!(data_sent, self.counts.data_sent, "sender and network disagree on packets sent");
        let conservation = Conservation {
            data_sent: self.counts.data_sent,
            data_received: self.counts.data_received,
            data_dropped: self.counts.data_dropped,
            data_in_flight: data_in_flight + self.counts.data_late,
            acks_sent: self.counts.acks_sent,
            acks_received: self.counts.acks_received,
            acks_dropped: self.counts.acks_dropped,
            acks_in_flight: acks_in_flight + self.counts.acks_late,
            syn_dropped: self.counts.syn_dropped,
            all_drops: self.links.iter().map(|l| l.stats.queue_drops + l.stats.loss_drops).sum(),
        };
        let traces = (self.scenario.trace.flows || self.scenario.trace.queue).then(|| Traces {
            flows: self.flows.iter().filter_map(|f| f.trace.clone()).collect(),
            bottleneck_queue: bottleneck.queue_trace.as_ref().map(|samples| QueueTrace {
                t_s: samples.iter().map(|&(t, _)| t as f64 / NS_PER_SEC as f64).collect(),
                packets: samples.iter().map(|&(_, q)| q).collect(),
            }),
        });
        RunResult {
            version: crate::VERSION,
            duration_s,
            events: self.events.executed(),
            data_packets_sent: data_sent,
            system,
            groups,
            bins: Bins {
                width_s: self.bin_width as f64 / NS_PER_SEC as f64,
                delivered_bytes: self.flows.iter().map(|f| f.delivered_bins.clone()).collect(),
            },
            flows,
            conservation,
            traces,
        }
    }
}

/// Validate and run a scenario.
pub fn run(scenario: Scenario) -> Result<RunResult, ScenarioError> {
    Ok(Simulation::new(scenario)?.run())
}
