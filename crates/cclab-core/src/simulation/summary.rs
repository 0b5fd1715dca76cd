//! The run's result, table by table, from the simulation's final state.
use super::*;
impl Simulation {
    pub(super) fn summarise(mut self) -> RunResult {
        self.close_flows();
        let (flows, static_records) = self.flow_rows();
        // (after the arrived flows' records: completion statistics add in this order)
        for record in static_records {
            self.record_fct(record, self.horizon);
        }
        let groups = self.group_rows(&flows);
        let system = self.system_row(&flows);
        let links = self.link_rows();
        let conservation = self.conservation(&flows);
        let traces = self.traces();
        let warnings = self.warnings(&flows, traces.as_ref());
        let fcts = self.fct_table();
        RunResult {
            version: crate::VERSION,
            warnings,
            duration_s: self.duration_s(),
            events: self.events.executed(),
            data_packets_sent: self.data_sent_by_sources(&flows),
            system,
            groups,
            links,
            bins: self.bins(),
            flows,
            conservation,
            traces,
            fcts,
        }
    }

    fn duration_s(&self) -> f64 {
        self.horizon as f64 / NS_PER_SEC as f64
    }

    /// Mb/s of `bytes` over the run.
    fn mbps(&self, bytes: u64) -> f64 {
        bytes as f64 * 8.0 / self.duration_s() / 1e6
    }

    /// Close every flow's last delivery bin, and record what every arrived slot's last
    /// flow did (and those still running at the end).
    fn close_flows(&mut self) {
        for flow in 0..self.static_flows as u32 {
            self.close_delivery_bin(source_of(flow) + 1, self.horizon);
        }
        for slot in self.static_flows..self.flows.len() {
            self.retire_slot(slot);
            let flow = &self.flows[slot];
            let finite = flow.finite.expect("arrived flows are finite");
            if finite.done.is_none() {
                let size = finite.packets * self.group_payload(flow.group);
                let record = FctRecord::new(flow.group as u32, flow.start, size, None, finite.ideal);
                self.record_fct(record, self.horizon);
            }
        }
    }

    /// The `flows` table: one row per flow of the scenario's own (arrived flows are
    /// counted in their groups), and the completion records of its finite flows.
    fn flow_rows(&self) -> (Vec<FlowMetrics>, Vec<FctRecord>) {
        let mut flows = Vec::with_capacity(self.flows.len());
        let mut records = Vec::new();
        for (id, flow) in self.flows[..self.static_flows].iter().enumerate() {
            let sink_host = &self.hosts[source_of(id as u32) as usize + 1];
            let delivered = sink_host.deliveries.total;
            let group = &self.scenario.flows[flow.group];
            let payload = self.group_payload(flow.group);
            let mut metrics = FlowMetrics {
                id: id as u32,
                group: self.scenario.group_name(flow.group),
                transport: group.transport.name(),
                cc: None,
                goodput_mbps: self.mbps(delivered * payload),
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
                delays: sink_host.delays.as_deref().map(DelayStats::columns).unwrap_or_default(),
            };
            if let Some(finite) = flow.finite {
                let record = FctRecord::new(flow.group as u32, flow.start, finite.packets * payload, finite.done.map(|t| t - flow.start), finite.ideal);
                metrics.size_bytes = Some(record.size_bytes);
                metrics.completed = Some(finite.done.is_some());
                metrics.fct_ms = record.fct.map(|ns| ns as f64 / 1e6);
                metrics.slowdown = record.slowdown();
                records.push(record);
            }
            let source = &self.hosts[source_of(id as u32) as usize].endpoint;
            endpoint_columns(source, &sink_host.endpoint, group, &mut metrics);
            metrics.throughput_mbps = self.mbps(metrics.data_packets_sent * payload);
            flows.push(metrics);
        }
        (flows, records)
    }

    /// The `groups` table: each group's flows, arrived ones included.
    fn group_rows(&self, flows: &[FlowMetrics]) -> Vec<GroupMetrics> {
        let arrived_flows: Vec<u64> = (0..self.scenario.flows.len())
            .map(|g| self.arrivals.iter().filter(|a| a.group == g).map(|a| a.started).sum())
            .collect();
        self.members_of(flows)
            .iter()
            .enumerate()
            .map(|(g, members)| {
                let group = &self.scenario.flows[g];
                let arrived = &self.arrival_totals[g];
                // arrived flows' packets, in their group's own segments
                let payload = self.group_payload(g);
                GroupMetrics {
                    name: self.scenario.group_name(g),
                    transport: group.transport.name(),
                    cc: group.label(),
                    flows: (members.len() as u64 + arrived_flows[g]).min(u32::MAX as u64) as u32,
                    goodput_mbps: members.iter().map(|m| m.goodput_mbps).sum::<f64>() + self.mbps(arrived.delivered_packets * payload),
                    throughput_mbps: members.iter().map(|m| m.throughput_mbps).sum::<f64>()
                        + self.mbps(arrived.data_packets_sent * payload),
                    fct: self.fct_summaries[g].as_ref().map(|summary| summary.summary()),
                    delays: arrived.delays.as_deref().map(DelayStats::columns).unwrap_or_default(),
                }
            })
            .collect()
    }

    /// Each group's flows in flow order (one pass: a scenario may have 100 000 groups).
    fn members_of<'a>(&self, flows: &'a [FlowMetrics]) -> Vec<Vec<&'a FlowMetrics>> {
        let mut members_of: Vec<Vec<&FlowMetrics>> = vec![Vec::new(); self.scenario.flows.len()];
        for (metrics, flow) in flows.iter().zip(&self.flows) {
            members_of[flow.group].push(metrics);
        }
        members_of
    }

    /// The `system` row: totals and the bottleneck's counters.
    fn system_row(&self, flows: &[FlowMetrics]) -> SystemMetrics {
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_mbps).collect();
        let arrived_mbps = |packets: fn(&ArrivalTotals) -> u64| {
            self.arrival_totals.iter().enumerate().map(|(g, a)| self.mbps(packets(a) * self.group_payload(g))).sum::<f64>()
        };
        let bottleneck = &self.links[self.graph.bottleneck as usize];
        SystemMetrics {
            goodput_mbps: goodputs.iter().sum::<f64>() + arrived_mbps(|a| a.delivered_packets),
            throughput_mbps: flows.iter().map(|f| f.throughput_mbps).sum::<f64>()
                + arrived_mbps(|a| a.data_packets_sent),
            jain_index: jain_index(&goodputs),
            bottleneck_utilization: bottleneck.utilization(),
            bottleneck_drops: bottleneck.stats.queue_drops,
            loss_model_drops: self.links.iter().map(|l| l.stats.loss_drops).sum(),
            bottleneck_ecn_marks: bottleneck.ecn_marks(),
            bottleneck_red_drops: bottleneck.red().map_or(0, |r| r.stats.early_drops + r.stats.forced_drops),
            bottleneck_aqm_drops: bottleneck.aqm_drops(),
            mean_queue_delay_ms: bottleneck.mean_queue_delay_ns() / 1e6,
            bottleneck_link: self.graph.link_name(self.graph.bottleneck),
        }
    }

    /// The `links` table: one row per link direction.
    fn link_rows(&self) -> Vec<LinkMetrics> {
        self.links
            .iter()
            .enumerate()
            .map(|(id, link)| {
                let direction = &self.graph.links[id];
                LinkMetrics {
                    name: self.graph.link_name(id as LinkId),
                    from: self.graph.nodes[direction.from as usize].clone(),
                    to: self.graph.nodes[direction.to as usize].clone(),
                    rate_mbps: link.rate.bps() as f64 / 1e6,
                    // the delay set (an emulator's loop applies it where the link's own is 0)
                    delay_ms: direction.delay.ns() as f64 / 1e6,
                    buffer_packets: link.limit,
                    arrivals: link.arrivals(),
                    departures: link.transmitted().0,
                    queue_drops: link.stats.queue_drops,
                    loss_drops: link.stats.loss_drops,
                    ecn_marks: link.ecn_marks(),
                    aqm_drops: link.aqm_drops(),
                    utilization: link.utilization(),
                    mean_queue_delay_ms: link.mean_queue_delay_ns() / 1e6,
                    queues: link.queue_stats(),
                }
            })
            .collect()
    }

    /// Packet conservation: every packet sent was received, dropped or is in flight.
    fn conservation(&self, flows: &[FlowMetrics]) -> Conservation {
        let mut in_flight = self.counts.late;
        for link in &self.links {
            for packet in link.in_flight().chain(link.queued()) {
                in_flight[packet.class as usize] += 1;
            }
        }
        let (data, acks, syn) = (PacketClass::Data as usize, PacketClass::Ack as usize, PacketClass::Syn as usize);
        debug_assert_eq!(self.data_sent_by_sources(flows), self.counts.sent[data], "sources and network disagree on packets sent");
        let counts = &self.counts;
        Conservation {
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
        }
    }

    /// Data packets sent, as the sources count them.
    fn data_sent_by_sources(&self, flows: &[FlowMetrics]) -> u64 {
        flows.iter().map(|f| f.data_packets_sent).sum::<u64>() + self.arrival_totals.iter().map(|a| a.data_packets_sent).sum::<u64>()
    }

    /// The traces asked for (flows, the bottleneck's queue, links, captures, delay
    /// histograms), or None.
    fn traces(&mut self) -> Option<Traces> {
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
        let queue_delay_histograms: Vec<QueueDelayHistogram> = match trace.queue_delay_histogram {
            Some(bin) => trace
                .links
                .iter()
                .zip(&self.traced_links)
                .map(|(name, &id)| {
                    let detail = self.links[id as usize].bins().and_then(|b| b.detail.as_ref()).expect("a traced link's bins are detailed");
                    QueueDelayHistogram { link: name.clone(), bin_ms: bin.ns() as f64 / 1e6, counts: detail.sojourn_histogram.clone() }
                })
                .collect(),
            None => Vec::new(),
        };
        (trace.flows || trace.queue || !trace.links.is_empty() || !trace.pcap.is_empty() || !delay_histograms.is_empty()).then(|| Traces {
            flows: self.flows.iter().filter_map(|f| f.trace.clone()).collect(),
            bottleneck_queue: bottleneck.extras.as_ref().and_then(|x| x.queue_trace.as_ref()).map(|samples| QueueTrace {
                t_s: samples.iter().map(|&(t, _)| t as f64 / NS_PER_SEC as f64).collect(),
                packets: samples.iter().map(|&(_, q)| q).collect(),
            }),
            links: trace.links.iter().zip(&self.traced_links).map(|(name, &id)| self.link_trace(name, id)).collect(),
            captures,
            delay_histograms,
            queue_delay_histograms,
        })
    }

    /// The run's warnings: the scenario's, then what only the run could tell.
    fn warnings(&self, flows: &[FlowMetrics], traces: Option<&Traces>) -> Vec<String> {
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
        warnings.extend(silent_flow_warnings(&self.scenario, &self.members_of(flows), self.horizon));
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
        let bottleneck = &self.links[self.graph.bottleneck as usize];
        if let Some(x) = bottleneck.extras.as_ref().filter(|x| x.queue_trace_full) {
            warnings.push(format!(
                "trace.queue: stopped after {} samples, at the memory limit ({}, or trace a shorter run)",
                x.queue_trace_limit,
                self.raise_hint
            ));
        }
        warnings
    }

    /// The `fcts` table: the finite flows' records kept, by start time.
    fn fct_table(&self) -> Option<FctTable> {
        (!self.fcts.is_empty()).then(|| {
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
        })
    }

    /// The per-bin tables: each flow's deliveries (moved, not copied: with many flows and
    /// long runs they are most of the result) and the bottleneck's counters.
    fn bins(&mut self) -> Bins {
        let bottleneck = &self.links[self.graph.bottleneck as usize];
        Bins {
            width_s: self.bin_width as f64 / NS_PER_SEC as f64,
            delivered_bytes: self.flows[..self.static_flows].iter_mut().map(|f| std::mem::take(&mut f.delivered_bins)).collect(),
            bottleneck_arrivals: bottleneck.bins().map_or_else(Vec::new, |b| b.arrivals.clone()),
            bottleneck_drops: bottleneck.bins().map_or_else(Vec::new, |b| b.drops.clone()),
            bottleneck_transmitted_bytes: bottleneck.bins().map_or_else(Vec::new, |b| b.transmitted_bytes.clone()),
        }
    }

    /// A traced link's bins as a table (`trace.links`).
    fn link_trace(&self, name: &str, id: LinkId) -> LinkTrace {
        let link = &self.links[id as usize];
        let bins = link.bins().expect("a traced link has bins");
        let detail = bins.detail.as_ref().expect("a traced link's bins are detailed");
        let width_s = bins.width as f64 / NS_PER_SEC as f64;
        let mean = |sum: u64, count: u64, scale: f64| if count == 0 { f64::NAN } else { sum as f64 / count as f64 * scale };
        let n = bins.arrivals.len();
        let capacity_bytes: Vec<f64> = (0..n)
            .map(|i| match link.is_scheduled() {
                false => link.rate.bps() as f64 / 8.0 * width_s,
                true => {
                    let (start, end) = (i as Time * bins.width, ((i + 1) as Time * bins.width).min(self.horizon));
                    (link.capacity_bits_until(end) - link.capacity_bits_until(start)) / 8.0
                }
            })
            .collect();
        LinkTrace {
            name: name.to_string(),
            t_s: (0..n).map(|i| i as f64 * width_s).collect(),
            arrivals: bins.arrivals.clone(),
            drops: bins.drops.clone(),
            marks: detail.marks.clone(),
            transmitted_bytes: bins.transmitted_bytes.clone(),
            utilization: bins.transmitted_bytes.iter().zip(&capacity_bytes).map(|(&b, &c)| b as f64 / c).collect(),
            capacity_bytes,
            mean_queue_packets: (0..n).map(|i| mean(detail.queue_packets[i], detail.queued[i], 1.0)).collect(),
            max_queue_packets: detail.max_queue_packets.clone(),
            mean_queue_bytes: (0..n).map(|i| mean(detail.queue_bytes[i], detail.queued[i], 1.0)).collect(),
            mean_sojourn_ms: (0..n).map(|i| mean(detail.sojourn_ns[i], detail.started[i], 1e-6)).collect(),
            max_sojourn_ms: (0..n).map(|i| if detail.started[i] == 0 { f64::NAN } else { detail.max_sojourn_ns[i] as f64 / 1e6 }).collect(),
        }
    }
}

/// A warning for each group whose flows, started before the end of the run, delivered
/// nothing at all (a run shorter than a round trip, a delay of hours, a link that loses
/// everything): the result is legal, and almost certainly not what was meant. (A few
/// flows of a group starved by the others are a result, not a mistake: no warning.)
/// Groups that start after the end have their own warning ([`Scenario::warnings`]).
/// A flow row's columns that its endpoints know: a TCP sender's counters and its
/// congestion control's label and state, a UDP sink's losses and delays, TFRC's rate and
/// loss event rate.
fn endpoint_columns(source: &Endpoint, sink: &Endpoint, group: &crate::scenario::FlowGroup, metrics: &mut FlowMetrics) {
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
}

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
