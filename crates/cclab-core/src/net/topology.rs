//! Topology builders: they create the links and the source routes packets follow.
use super::link::Link;
use super::loss::LossModel;
use super::{LinkId, RouteId};
use crate::scenario::{LinkSpec, Scenario};
use super::red::{QueueSpec, Red};
use crate::sim::rng::{stream, LINK_LOSS_STREAMS, RED_STREAMS};
use crate::sim::{Duration, Time};

/// Links and routes of a built topology.
pub struct Network {
    pub links: Vec<Link>,
    pub routes: Vec<Vec<LinkId>>,
    /// The forward (data) direction of the shared bottleneck.
    pub bottleneck: LinkId,
    pub paths: Vec<FlowPath>,
}

/// Where one flow's data and ACKs go.
#[derive(Clone, Copy, Debug)]
pub struct FlowPath {
    pub data_route: RouteId,
    pub ack_route: RouteId,
    /// Two-way propagation delay of the path (no queueing, no serialisation).
    pub base_rtt: Time,
}

/// Per-flow access delays (None: the topology's own).
#[derive(Clone, Copy, Debug, Default)]
pub struct AccessDelays {
    pub source: Option<Duration>,
    pub sink: Option<Duration>,
}

impl Network {
    /// Links whose every packet goes on to a link fed by nothing else, or to its
    /// destination host: such links hand packets on at admission (see `net::link`).
    ///
    /// A route's first link is never pass-through: a host's output must wait for an
    /// event, or a single-flow path would hand packets round the loop sender → receiver
    /// → sender inside one call and the sender would see its inputs out of time order.
    /// (Each host here is one flow's endpoint, fed by that flow's last link only.)
    pub fn pass_through_links(&self) -> Vec<LinkId> {
        const HOST: LinkId = LinkId::MAX;
        // The one upstream of each link (HOST if a route starts there); None if several.
        let mut upstream: Vec<Option<Option<LinkId>>> = vec![None; self.links.len()];
        for route in &self.routes {
            for (hop, &link) in route.iter().enumerate() {
                let from = if hop == 0 { HOST } else { route[hop - 1] };
                let slot = &mut upstream[link as usize];
                *slot = match *slot {
                    None => Some(Some(from)),
                    Some(Some(prev)) if prev == from => Some(Some(prev)),
                    _ => Some(None),
                };
            }
        }
        let mut pass_through = vec![true; self.links.len()];
        for route in &self.routes {
            for (hop, &link) in route.iter().enumerate() {
                let ok = hop > 0
                    && match route.get(hop + 1) {
                        Some(&next) => upstream[next as usize] == Some(Some(link)),
                        None => true,
                    };
                pass_through[link as usize] &= ok;
            }
        }
        (0..self.links.len() as LinkId).filter(|&link| pass_through[link as usize]).collect()
    }

    fn add_link(&mut self, scenario: &Scenario, spec: &LinkSpec, delay: Duration, forward: bool) -> LinkId {
        let id = self.links.len() as LinkId;
        let loss_spec = if forward { spec.loss.as_ref() } else { spec.reverse_loss.as_ref() };
        let loss = loss_spec.map(|s| LossModel::new(s, stream(scenario.seed, LINK_LOSS_STREAMS + id as u64)));
        let mut link = Link::new(spec.rate, delay.ns(), scenario.buffer_packets(spec), loss);
        link.limit_bytes = spec.buffer_bytes.map(|b| b.get());
        if let QueueSpec::Red(red) = &spec.queue {
            let rng = stream(scenario.seed, RED_STREAMS + id as u64);
            link.red = Some(Box::new(Red::new(red, spec.rate, delay.ns(), rng)));
        }
        self.links.push(link);
        id
    }

    fn add_route(&mut self, links: Vec<LinkId>) -> RouteId {
        self.routes.push(links);
        (self.routes.len() - 1) as RouteId
    }

    /// The dumbbell: for each flow its own source and sink, N source→R1 access links,
    /// the R1→R2 bottleneck, R2→sink access links; ACKs return over the reverse
    /// directions of the same links.
    pub fn dumbbell(scenario: &Scenario, flows: &[AccessDelays]) -> Network {
        let topo = &scenario.topology;
        let mut net = Network { links: Vec::new(), routes: Vec::new(), bottleneck: 0, paths: Vec::new() };
        net.bottleneck = net.add_link(scenario, &topo.bottleneck, topo.bottleneck.delay, true);
        let bottleneck_reverse = net.add_link(scenario, &topo.bottleneck, topo.bottleneck.delay, false);
        for delays in flows {
            let source_delay = delays.source.unwrap_or(topo.source_access.delay);
            let sink_delay = delays.sink.unwrap_or(topo.sink_access.delay);
            let source_up = net.add_link(scenario, &topo.source_access, source_delay, true);
            let source_down = net.add_link(scenario, &topo.source_access, source_delay, false);
            let sink_down = net.add_link(scenario, &topo.sink_access, sink_delay, true);
            let sink_up = net.add_link(scenario, &topo.sink_access, sink_delay, false);
            let data_route = net.add_route(vec![source_up, net.bottleneck, sink_down]);
            let ack_route = net.add_route(vec![sink_up, bottleneck_reverse, source_down]);
            let base_rtt = 2 * (source_delay.ns() + topo.bottleneck.delay.ns() + sink_delay.ns());
            net.paths.push(FlowPath { data_route, ack_route, base_rtt });
        }
        net
    }
}
