//! Stepping: an environment runs the engine from one monitor interval to the next and, in
//! between, reads what each agent flow's interval looked like and sets its next decision
//! (`cc = { algorithm = "agent" }`, [`crate::cc::agent`]). The agent steps the engine;
//! the engine never waits on the agent: between two calls the event loop runs in Rust,
//! with no call out per ACK.
//!
//! A step ends at a time T after every event due at T. A host is eager (it may take a
//! packet before the engine's clock reaches its arrival, see `arrive_at_host`); an agent
//! flow's two hosts are not: the last links of its routes are made ordinary links, so at
//! T its sender and sink have seen exactly what arrived by T, and an action applied at T
//! acts from T on. (Shortcuts change no result, only the event count: a stepped run with
//! no actions gives a run's results.)
use super::*;
use crate::cc::agent::Agent;
use crate::cc::Controller;

/// One monitor interval of one agent flow: what its sender sent and learnt from ACKs
/// between two calls of [`Simulation::monitor`], and its state at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct FlowInterval {
    pub flow: u32,
    /// The interval, ns (from the previous reading, or the start of the run).
    pub start: Time,
    pub end: Time,
    /// Data segments sent, retransmissions included, and retransmissions alone.
    pub sent: u64,
    pub retransmitted: u64,
    /// Segments the ACKs newly reported delivered (cumulatively or by SACK): Aurora's
    /// acknowledged packets.
    pub delivered: u64,
    /// Segments the sink delivered in order to its application (what goodput counts).
    pub received: u64,
    /// ACKs the sender accepted (duplicates included), and those with ECN-Echo.
    pub acks: u64,
    pub ece_acks: u64,
    /// RTT samples of the interval (Karn's rule) and their least, mean and latest, ns
    /// (NaN without a sample).
    pub rtt_samples: u64,
    pub rtt_min: f64,
    pub rtt_mean: f64,
    pub rtt_latest: f64,
    /// Fast retransmits, timeouts and ECN window reductions in the interval.
    pub fast_recoveries: u64,
    pub timeouts: u64,
    pub ecn_reductions: u64,
    /// At the end: the window and ssthresh (segments), segments in flight (RFC 6675
    /// pipe) and outstanding, the smoothed RTT (ns, NaN before a sample), the pacing
    /// rate (bits/s on the wire, NaN if the flow does not pace).
    pub cwnd: f64,
    pub ssthresh: f64,
    pub in_flight: u32,
    pub outstanding: u32,
    pub srtt: f64,
    pub pacing_rate: f64,
}

/// The counters of one agent flow at its last reading.
#[derive(Clone, Copy, Default)]
struct Mark {
    at: Time,
    sent: u64,
    retransmitted: u64,
    delivered: u64,
    received: u64,
    fast_recoveries: u64,
    timeouts: u64,
    ecn_reductions: u64,
}

/// A stepped simulation's own state.
#[derive(Default)]
pub(super) struct Stepping {
    /// The time the run has reached: every event due by then has happened.
    clock: Time,
    /// The agent flows, in flow order, and their marks (same order).
    agents: Vec<u32>,
    marks: Vec<Mark>,
}

impl Simulation {
    /// A simulation to step ([`Simulation::run_until`]) with its agent flows — the TCP
    /// flows of groups with `cc = { algorithm = "agent", ... }` — driven and observed
    /// between steps. Groups whose flows arrive during the run cannot be agents.
    pub fn for_stepping(scenario: Scenario, limits: &RunLimits) -> Result<Simulation, ScenarioError> {
        let mut agents_size: Option<(usize, u32)> = None;
        for (g, group) in scenario.flows.iter().enumerate() {
            if !(matches!(group.cc(), crate::cc::CcConfig::Agent(_)) && group.transport == crate::scenario::Transport::Tcp) {
                continue;
            }
            if group.arrivals.is_some() {
                return Err(ScenarioError(format!("flows[{g}].arrivals: an agent's flows must be there from the start (an environment steps a fixed set of flows)")));
            }
            // the interface reports one segment size (`segment_bytes`) for every agent flow
            let size = group.payload_bytes(scenario.packet_size);
            match agents_size {
                Some((first, shared)) if shared != size => {
                    return Err(ScenarioError(format!(
                        "flows[{g}].packet_size: {size}B where flows[{first}]'s agents send {shared}B; the agents of one environment share one segment size"
                    )))
                }
                None => agents_size = Some((g, size)),
                _ => {}
            }
        }
        let mut simulation = Simulation::with_limits(scenario, limits)?;
        if let Some((_, size)) = agents_size {
            simulation.agent_payload_bytes = size;
        }
        let mut agents = Vec::new();
        for flow in 0..simulation.static_flows as u32 {
            if simulation.agent(flow).is_some() {
                agents.push(flow);
                // Neither host takes packets early: make the last link of each route an
                // ordinary link (exact either way; only the event count changes).
                for endpoint in [source_of(flow), source_of(flow) + 1] {
                    let last = simulation.last_link_of(simulation.hosts[endpoint as usize].route);
                    simulation.links[last as usize].pass_through = false;
                }
            }
        }
        let marks = vec![Mark::default(); agents.len()];
        simulation.stepping = Some(Box::new(Stepping { clock: 0, agents, marks }));
        Ok(simulation)
    }

    /// The last link of the route starting at `start` in `route_links`.
    fn last_link_of(&self, start: u32) -> LinkId {
        let route = &self.route_links[start as usize..];
        let end = route.iter().position(|&link| link == ROUTE_END).expect("routes end");
        route[end - 1]
    }

    /// The agent controller of flow `flow`'s sender, if it has one.
    fn agent(&mut self, flow: u32) -> Option<&mut Agent> {
        match &mut self.hosts.get_mut(source_of(flow) as usize)?.endpoint {
            Endpoint::TcpSender(sender) => match sender.controller_mut() {
                Controller::Agent(agent) => Some(agent),
                _ => None,
            },
            _ => None,
        }
    }

    fn stepping(&self) -> &Stepping {
        self.stepping.as_deref().expect("made by Simulation::for_stepping")
    }

    /// The agent flows, in flow order (ids as in results).
    pub fn agent_flows(&self) -> &[u32] {
        &self.stepping().agents
    }

    /// The time the run has reached, ns.
    pub fn clock(&self) -> Time {
        self.stepping().clock
    }

    /// The scenario being run (normalised).
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The end of the run, ns.
    pub fn horizon(&self) -> Time {
        self.horizon
    }

    /// Payload and on-the-wire bytes of an agent flow's data segment (its group's own
    /// `packet_size`, shared by every agent group, or the scenario's).
    pub fn segment_bytes(&self) -> (u32, u32) {
        (self.agent_payload_bytes, self.agent_payload_bytes + self.scenario.header_size)
    }

    /// Run every event due by `until` (ns; at most the end of the run); returns the
    /// time reached. Running to the end this way and then [`Simulation::finish_stepped`]
    /// gives the results [`Simulation::run`] gives, unless an action changed them.
    pub fn run_until(&mut self, until: Time) -> Time {
        let until = until.min(self.horizon).max(self.clock());
        while let Some((now, event)) = self.events.pop_until(until) {
            self.dispatch(now, event);
        }
        self.stepping.as_deref_mut().expect("made by Simulation::for_stepping").clock = until;
        until
    }

    /// Set agent flow `flow`'s decision to `value` (as its mode reads it: see
    /// [`crate::cc::agent`]), from now on. If that opens its window, the sender sends
    /// what it now may at once.
    pub fn act(&mut self, flow: u32, value: f64) -> Result<(), String> {
        let now = self.clock();
        if self.stopped.is_some() || now >= self.horizon {
            return Err(format!("flow {flow}: the run has ended"));
        }
        let endpoint = source_of(flow);
        let opened = match self.hosts.get_mut(endpoint as usize).map(|host| &mut host.endpoint) {
            Some(Endpoint::TcpSender(sender)) => match sender.agent_and_window() {
                Some((agent, window)) => agent.act(window, value).map_err(|e| format!("flow {flow}: {e}"))?,
                None => return Err(format!("flow {flow} is not an agent's (cc = {{ algorithm = \"agent\" }})")),
            },
            _ => return Err(format!("flow {flow} is not an agent's (cc = {{ algorithm = \"agent\" }})")),
        };
        if opened {
            self.event_sched = 0;
            let (host, mut outbox) = self.endpoint_and_outbox(now, endpoint);
            if let Endpoint::TcpSender(sender) = host {
                sender.send_now(now, &mut outbox);
            }
            self.after_endpoint(now, endpoint, Cause::Timer);
        }
        Ok(())
    }

    /// Agent flow `flow`'s interval since the previous reading (or the start), up to the
    /// time reached; the next interval starts now.
    pub fn monitor(&mut self, flow: u32) -> Result<FlowInterval, String> {
        let Some(k) = self.stepping().agents.iter().position(|&a| a == flow) else {
            return Err(format!("flow {flow} is not an agent's (cc = {{ algorithm = \"agent\" }})"));
        };
        let now = self.clock();
        let received = self.hosts[source_of(flow) as usize + 1].deliveries.total;
        let Endpoint::TcpSender(sender) = &mut self.hosts[source_of(flow) as usize].endpoint else {
            unreachable!("agent flows are TCP")
        };
        let stats = *sender.stats();
        let mark = Mark {
            at: now,
            sent: stats.data_packets_sent,
            retransmitted: stats.retransmitted_packets,
            delivered: sender.delivered(),
            received,
            fast_recoveries: stats.fast_recoveries,
            timeouts: stats.timeouts,
            ecn_reductions: stats.ecn_reductions,
        };
        let window = *sender.window();
        let (in_flight, outstanding, srtt) = (sender.pipe(), sender.outstanding(), sender.srtt_ns().unwrap_or(f64::NAN));
        let Some((agent, _)) = sender.agent_and_window() else { unreachable!("listed as an agent") };
        let interval = agent.take_interval();
        let pacing = agent.rate_bps().unwrap_or(f64::NAN);
        let pacing = if pacing.is_nan() {
            // A paced base algorithm (multiplier over BBR, say): its rate, on the wire.
            let wire_bits = 8.0 * (self.agent_payload_bytes + self.scenario.header_size) as f64;
            agent.pacing_rate().map_or(f64::NAN, |segments| segments * wire_bits)
        } else {
            pacing
        };
        let stepping = self.stepping.as_deref_mut().expect("made by Simulation::for_stepping");
        let before = std::mem::replace(&mut stepping.marks[k], mark);
        let samples = interval.rtt_samples;
        Ok(FlowInterval {
            flow,
            start: before.at,
            end: now,
            sent: mark.sent - before.sent,
            retransmitted: mark.retransmitted - before.retransmitted,
            delivered: mark.delivered - before.delivered,
            received: mark.received - before.received,
            acks: interval.acks,
            ece_acks: interval.ece_acks,
            rtt_samples: samples,
            rtt_min: if samples > 0 { interval.rtt_min as f64 } else { f64::NAN },
            rtt_mean: if samples > 0 { interval.rtt_sum / samples as f64 } else { f64::NAN },
            rtt_latest: interval.rtt_latest.map_or(f64::NAN, |t| t as f64),
            fast_recoveries: mark.fast_recoveries - before.fast_recoveries,
            timeouts: mark.timeouts - before.timeouts,
            ecn_reductions: mark.ecn_reductions - before.ecn_reductions,
            cwnd: window.cwnd,
            ssthresh: window.ssthresh,
            in_flight,
            outstanding,
            srtt,
            pacing_rate: pacing,
        })
    }

    /// Run what is left of the run and summarise it as [`Simulation::run`] does.
    pub fn finish_stepped(mut self) -> Result<RunResult, ScenarioError> {
        self.run_until(self.horizon);
        self.finish()
    }
}
