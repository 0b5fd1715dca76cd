//! Flows that arrive during the run (`arrivals`): their slots, taken and given back,
//! and the finite flows' completion records.
use super::*;
use super::build::{human_bytes, tcp_pair};
impl Simulation {
    /// A finite flow's outcome, into its group's summary and (while kept) the rows.
    pub(super) fn record_fct(&mut self, record: FctRecord, now: Time) {
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
    pub(super) fn flow_done(&mut self, now: Time, endpoint: u32) {
        let slot = flow_of(endpoint) as usize;
        self.hosts[endpoint as usize].deliveries.goal = u64::MAX;
        let payload = self.group_payload(self.flows[slot].group);
        let flow = &mut self.flows[slot];
        let finite = flow.finite.as_mut().expect("a sink with a goal belongs to a finite flow");
        finite.done = Some(now);
        if slot >= self.static_flows {
            let record = FctRecord::new(flow.group as u32, flow.start, finite.packets * payload, Some(now - flow.start), finite.ideal);
            self.free_slots.push_back((now, slot as u32));
            self.record_fct(record, now);
        }
    }

    /// Arrivals group `k`'s next flow starts at `now`: a size drawn, the next pair's
    /// paths, a free slot (or a new one), and the arrival after it scheduled.
    pub(super) fn on_flow_arrival(&mut self, now: Time, k: usize) {
        let payload = self.group_payload(self.arrivals[k].group);
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
        let ideal = self.ideal_fct(pair.data_route, pair.reply_route, packets, payload as u32, syn);
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
        self.counts.captures.flow_payload(slot, self.hosts[source_id as usize].tag, payload);
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
    pub(super) fn retire_slot(&mut self, slot: usize) {
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
}
