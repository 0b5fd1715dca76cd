//! The built network: a [`Link`] for every direction of the expanded graph, and the
//! analysis of which links may hand packets on at admission (pass-through).
use super::delivery_trace::Opportunities;
use super::emulator_loop::EmulatorLoop;
use super::link::Link;
use super::loss::LossModel;
use super::qdisc::{LinkContext, QueueItem};
use super::topology::Graph;
use super::{LinkId, RouteId};
use crate::sim::rng::{stream, LINK_LAG_STREAMS, LINK_LOSS_STREAMS};

/// The loss model of link direction `id`, with its own stream (by direction id).
pub fn link_loss_model(graph: &Graph, seed: u64, id: LinkId) -> Option<LossModel> {
    let params = &graph.params[graph.links[id as usize].params as usize];
    params.loss.and_then(|spec| LossModel::new(&spec, stream(seed, LINK_LOSS_STREAMS + id as u64)))
}

/// Every direction of `graph` as a link, with its own random streams (by direction id).
pub fn build_links<P: QueueItem + Default>(graph: &Graph, seed: u64) -> Vec<Link<P>> {
    (0..graph.links.len())
        .map(|id| {
            let direction = &graph.links[id];
            let params = &graph.params[direction.params as usize];
            let delay = direction.delay.ns();
            let loss = link_loss_model(graph, seed, id as LinkId);
            // mm-delay's delay is its loop's release millisecond, not a propagation after it
            // (the loop's stalls draw on the lag's stream: a link has one or the other)
            let emulator = params.emulator.map(|spec| {
                let rng = stream(seed, LINK_LAG_STREAMS + id as u64);
                match params.delivery_trace() {
                    Some(trace) => EmulatorLoop::link(&spec, trace.clone(), rng),
                    None => EmulatorLoop::delay(&spec, delay / 1_000_000, rng),
                }
            });
            let link_delay = if emulator.is_some() { 0 } else { delay };
            let mut link = Link::new(params.rate, link_delay, direction.buffer, loss);
            if let Some(limit) = params.buffer_bytes {
                link.extras_mut().limit_bytes = Some(limit.get());
            }
            if let Some(schedule) = &params.rate_schedule {
                let x = link.extras_mut();
                x.opportunities = schedule.delivery_trace().map(|trace| {
                    let opportunities = Opportunities::new(trace.clone());
                    match schedule.release_lag() {
                        Some(lag) => opportunities.with_lag(lag.samples.clone(), stream(seed, LINK_LAG_STREAMS + id as u64)),
                        None => opportunities,
                    }
                });
                x.rate_schedule = Some(schedule.clone());
            }
            if emulator.is_some() {
                link.extras_mut().emulator = emulator;
                link.emulated = true;
            }
            let context = LinkContext { rate: params.rate, delay, buffer: direction.buffer };
            if let Some(aqm) = params.queue.admission(&context, seed, id as LinkId) {
                link.extras_mut().aqm = Some(aqm);
            }
            // The buffer counts the packet being sent: the discipline holds the rest.
            if let Some(discipline) = params.queue.dequeue(direction.buffer.saturating_sub(1).max(1), seed, id as LinkId) {
                link.set_scheduler(discipline);
            }
            link
        })
        .collect()
}

/// Packets of one route sent by endpoint `from` to endpoint `to`.
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    pub route: RouteId,
    pub from: u32,
    pub to: u32,
}

/// What feeds a link: nothing yet, exactly one upstream (a link or an endpoint), or several.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Feeders {
    None,
    One(Upstream),
    Many,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Upstream {
    Link(LinkId),
    Endpoint(u32),
}

impl Feeders {
    fn add(&mut self, upstream: Upstream) {
        *self = match *self {
            Feeders::None => Feeders::One(upstream),
            Feeders::One(only) if only == upstream => Feeders::One(only),
            _ => Feeders::Many,
        };
    }
}

/// The links that may be pass-through: hand each packet on at admission, stamped with
/// its future arrival time, with no event of their own (see `net::link`). That is exact
/// only when every link and endpoint still sees its inputs in time order:
///
/// * a route's first link never is: what a host sends must wait for an event, or a
///   packet could go round sender → receiver → sender inside one call;
/// * a link is pass-through only if, on every route through it, the next link is fed
///   by this link alone (a link fed by several would see their packets in the order
///   they were handled, not the order they arrive);
/// * where a route ends at an endpoint (which then takes packets early), whatever that
///   endpoint sends must go to a link it alone feeds, for the same reason;
/// * a link whose discipline decides at dequeue (`scheduled`) never is, and nothing may
///   hand it packets early: not the link before it on a route, nor an endpoint that takes
///   packets early (its dequeue events must see every arrival due by their time).
///
/// `streams` lists every (route, sending endpoint, receiving endpoint); an endpoint
/// sends on one route at most.
pub fn pass_through_links(
    routes: &[Vec<LinkId>],
    link_count: usize,
    endpoints: usize,
    streams: &[Stream],
    scheduled: &[bool],
) -> Vec<bool> {
    let mut feeders = vec![Feeders::None; link_count];
    let mut used = vec![false; routes.len()];
    let mut first_link_of: Vec<Option<LinkId>> = vec![None; endpoints];
    for stream in streams {
        let route = &routes[stream.route as usize];
        feeders[route[0] as usize].add(Upstream::Endpoint(stream.from));
        first_link_of[stream.from as usize] = Some(route[0]);
        used[stream.route as usize] = true;
    }
    for (route, _) in routes.iter().zip(&used).filter(|(_, &used)| used) {
        for hop in route.windows(2) {
            feeders[hop[1] as usize].add(Upstream::Link(hop[0]));
        }
    }
    // An endpoint that takes packets early must be the only feeder of where it sends.
    let sole_feeder = |endpoint: u32| match first_link_of[endpoint as usize] {
        None => true,
        Some(link) => {
            feeders[link as usize] == Feeders::One(Upstream::Endpoint(endpoint)) && !scheduled[link as usize]
        }
    };
    let mut ends_ok = vec![true; routes.len()];
    for stream in streams {
        ends_ok[stream.route as usize] &= sole_feeder(stream.to);
    }
    let mut pass_through = vec![true; link_count];
    for (r, route) in routes.iter().enumerate().filter(|&(r, _)| used[r]) {
        for (hop, &link) in route.iter().enumerate() {
            let ok = hop > 0
                && !scheduled[link as usize]
                && match route.get(hop + 1) {
                    Some(&next) => feeders[next as usize] == Feeders::One(Upstream::Link(link)) && !scheduled[next as usize],
                    None => ends_ok[r],
                };
            pass_through[link as usize] &= ok;
        }
    }
    // A link no route uses has nothing to hand on; leave it an ordinary link.
    for (link, feeder) in feeders.iter().enumerate() {
        if *feeder == Feeders::None {
            pass_through[link] = false;
        }
    }
    pass_through
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(route: RouteId, from: u32, to: u32) -> Stream {
        Stream { route, from, to }
    }

    #[test]
    fn dumbbell_shape_passes_bottleneck_and_last_hops() {
        // links: 0 bottleneck, 1 its reverse; flow 0: 2 s→r1, 3 r1→s, 4 r2→d, 5 d→r2; flow 1: 6..9
        let routes = vec![vec![2, 0, 4], vec![5, 1, 3], vec![6, 0, 8], vec![9, 1, 7]];
        let streams = [stream(0, 0, 1), stream(1, 1, 0), stream(2, 2, 3), stream(3, 3, 2)];
        let pt = pass_through_links(&routes, 10, 4, &streams, &[false; 10]);
        let on: Vec<usize> = (0..10).filter(|&l| pt[l]).collect();
        assert_eq!(on, [0, 1, 3, 4, 7, 8], "bottleneck both ways and each flow's last hops");
    }

    #[test]
    fn a_link_fed_by_two_is_not_passed_through_to() {
        // chain a→b→c with a second sender entering at b: link 1 (b→c) has two feeders,
        // so link 0 may not hand packets to it early.
        let routes = vec![vec![0, 1], vec![3, 2], vec![1], vec![3]];
        let streams = [stream(0, 0, 1), stream(1, 1, 0), stream(2, 2, 3), stream(3, 3, 2)];
        let pt = pass_through_links(&routes, 4, 4, &streams, &[false; 4]);
        assert!(!pt[0] && !pt[1], "{pt:?}");
        // the ACK path c→b→a: link 2 (b→a) is fed by link 3 alone and ends at sender 0,
        // the only feeder of link 0, so it may pass through
        assert!(pt[2], "{pt:?}");
    }

    #[test]
    fn receivers_sharing_their_reply_link_are_not_fed_early() {
        // two flows a→c over one path (routes shared); both receivers at c reply on
        // link 3 (c→b): it has two endpoint feeders, so link 1 (b→c) must not be
        // pass-through, or the two receivers' replies could reach link 3 out of order.
        let routes = vec![vec![0, 1], vec![3, 2]];
        let streams = [stream(0, 0, 1), stream(1, 1, 0), stream(0, 2, 3), stream(1, 3, 2)];
        let pt = pass_through_links(&routes, 4, 4, &streams, &[false; 4]);
        assert!(!pt[1], "{pt:?}");
        assert!(!pt[2], "the senders share link 0 in the same way");
        // with one flow only, both last hops pass through
        let pt = pass_through_links(&routes, 4, 2, &streams[..2], &[false; 4]);
        assert!(pt[1] && pt[2], "{pt:?}");
    }

    #[test]
    fn a_dequeue_time_link_and_what_feeds_it_are_not_passed_through() {
        let routes = vec![vec![2, 0, 4], vec![5, 1, 3], vec![6, 0, 8], vec![9, 1, 7]];
        let streams = [stream(0, 0, 1), stream(1, 1, 0), stream(2, 2, 3), stream(3, 3, 2)];
        let mut scheduled = [false; 10];
        scheduled[0] = true; // CoDel at the bottleneck
        let pt = pass_through_links(&routes, 10, 4, &streams, &scheduled);
        let on: Vec<usize> = (0..10).filter(|&l| pt[l]).collect();
        assert_eq!(on, [1, 3, 4, 7, 8], "the bottleneck itself no longer; what follows it still");
        // CoDel on sender 0's own access link: the ACKs' last hop to sender 0 (link 3)
        // may not hand them over early, or the sender would queue onto it ahead of time
        let mut scheduled = [false; 10];
        scheduled[2] = true;
        let pt = pass_through_links(&routes, 10, 4, &streams, &scheduled);
        let on: Vec<usize> = (0..10).filter(|&l| pt[l]).collect();
        assert_eq!(on, [0, 1, 4, 7, 8], "{pt:?}");
    }
}
