//! Run results: per-flow counters, per-group and system aggregates, per-interval bins
//! and opt-in traces. Everything here is plain data, serialisable as JSON.
use serde::Serialize;

mod quantiles;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SystemMetrics {
    /// Sum of flow goodputs: bytes delivered in order to the receiving applications ÷ duration.
    pub goodput_mbps: f64,
    /// Every data byte sent, retransmissions included, ÷ duration.
    pub throughput_mbps: f64,
    /// Jain's fairness index of the flow goodputs, (Σx)² / (n Σx²) (Chiu & Jain 1989).
    pub jain_index: f64,
    /// Bytes transmitted on the bottleneck (data direction) ÷ (rate × duration).
    pub bottleneck_utilization: f64,
    /// Packets dropped by the bottleneck queue (data direction).
    pub bottleneck_drops: u64,
    /// Packets eaten by loss models, all links.
    pub loss_model_drops: u64,
    /// Packets the bottleneck's queue discipline (RED, PIE, CoDel, FQ-CoDel, step
    /// marking) marked CE instead of dropping (0 for DropTail).
    pub bottleneck_ecn_marks: u64,
    /// Of the bottleneck drops, those RED made early (probabilistic or forced by the
    /// average), as opposed to a full buffer.
    pub bottleneck_red_drops: u64,
    /// Of the bottleneck drops, those any active discipline made (RED's as above, PIE's
    /// at admission, CoDel's and FQ-CoDel's at dequeue), as opposed to a full buffer.
    pub bottleneck_aqm_drops: u64,
    /// Mean time packets waited in the bottleneck queue before transmission.
    pub mean_queue_delay_ms: f64,
    /// The link direction the bottleneck metrics describe: the dumbbell's r1-r2; on a
    /// graph or chain `topology.bottleneck`, or else the slowest direction carrying data.
    pub bottleneck_link: String,
}

/// One link direction's counters over the run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkMetrics {
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_mbps: f64,
    pub delay_ms: f64,
    /// Queue limit in packets (counting the one in transmission).
    pub buffer_packets: u32,
    /// Packets offered to the link (before its loss model and queue).
    pub arrivals: u64,
    /// Packets whose transmission had ended by the end of the run.
    pub departures: u64,
    /// Dropped by the queue: a full buffer, or its discipline.
    pub queue_drops: u64,
    /// Eaten by the loss model.
    pub loss_drops: u64,
    /// Marked CE by the queue discipline instead of dropped.
    pub ecn_marks: u64,
    /// Dropped early by an active discipline (RED, PIE, CoDel, FQ-CoDel), of `queue_drops`.
    pub aqm_drops: u64,
    /// Bytes transmitted ÷ (rate × duration).
    pub utilization: f64,
    /// Mean time admitted packets waited before their transmission started.
    pub mean_queue_delay_ms: f64,
    /// A discipline with several queues (DualPI2): each one's packets, delays, marks and
    /// drops; absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<crate::net::qdisc::QueueStats>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GroupMetrics {
    pub name: String,
    /// "tcp" or "udp".
    pub transport: &'static str,
    /// The congestion control's label; null for UDP.
    pub cc: Option<String>,
    pub flows: u32,
    pub goodput_mbps: f64,
    pub throughput_mbps: f64,
    /// Groups with finite flows (a `size`, or `arrivals`): completion times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct: Option<FctSummary>,
    /// Arrivals groups with `trace.delays`: one-way delays of every data packet its
    /// arrived flows' sinks received (their flows have no rows of their own), and the
    /// mean of those flows' RFC 3550 jitters, weighted by their packets.
    #[serde(flatten)]
    pub delays: DelayColumns,
}

/// One finite flow: when it started, its size, and how long it took (None if it had not
/// completed by the end of the run). Kept compactly: an arrivals group may see millions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FctRecord {
    pub group: u32,
    pub start: u64,
    pub size_bytes: u64,
    pub fct: Option<u64>,
    pub ideal: u64,
}

impl FctRecord {
    pub fn new(group: u32, start: u64, size_bytes: u64, fct: Option<u64>, ideal: u64) -> FctRecord {
        FctRecord { group, start, size_bytes, fct, ideal }
    }
    /// FCT over the least time a flow of its size could take on its path (>= 1).
    pub fn slowdown(&self) -> Option<f64> {
        self.fct.map(|fct| fct as f64 / self.ideal.max(1) as f64)
    }
}

/// Flow completion times of a group's finite flows (those completed; incomplete ones
/// are counted but in no percentile). Percentiles interpolate linearly between order
/// statistics (numpy's default) while a group has completed at most 10 000 flows
/// (`percentiles_exact`); past that they come from a histogram and are within 0.1 %
/// (`Quantiles`), so memory does not grow with the run. Means are always exact.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FctSummary {
    pub flows: u64,
    pub completed: u64,
    pub percentiles_exact: bool,
    pub mean_fct_ms: Option<f64>,
    pub p50_fct_ms: Option<f64>,
    pub p99_fct_ms: Option<f64>,
    pub mean_slowdown: Option<f64>,
    pub p50_slowdown: Option<f64>,
    pub p99_slowdown: Option<f64>,
    /// The same by flow size: (0, 10KB], (10KB, 100KB], (100KB, 1MB], (1MB, 10MB], above.
    pub by_size: Vec<FctBucket>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FctBucket {
    /// "(0, 10KB]", ..., "> 10MB".
    pub sizes: &'static str,
    pub max_bytes: Option<u64>,
    pub flows: u64,
    pub completed: u64,
    pub p50_fct_ms: Option<f64>,
    pub p99_fct_ms: Option<f64>,
    pub p50_slowdown: Option<f64>,
    pub p99_slowdown: Option<f64>,
}

const SIZE_BUCKETS: [(&str, Option<u64>); 5] = [
    ("(0, 10KB]", Some(10_000)),
    ("(10KB, 100KB]", Some(100_000)),
    ("(100KB, 1MB]", Some(1_000_000)),
    ("(1MB, 10MB]", Some(10_000_000)),
    ("> 10MB", None),
];

pub use quantiles::{quantile, Quantiles};

/// Completion times of one population of finite flows (a group, or a size bucket of
/// it), accumulated flow by flow in memory that stops growing (`Quantiles`).
#[derive(Clone, Debug)]
struct FctStream {
    flows: u64,
    fct_ms: Quantiles,
    slowdown: Quantiles,
}

impl FctStream {
    fn new() -> FctStream {
        // ms × 1e6 = ns: FCTs keep 3 digits from 1 ns; slowdowns (>= 1) from 1e-6.
        FctStream { flows: 0, fct_ms: Quantiles::new(1e6), slowdown: Quantiles::new(1e6) }
    }

    fn record(&mut self, record: &FctRecord) {
        self.flows += 1;
        if let (Some(fct), Some(slowdown)) = (record.fct, record.slowdown()) {
            self.fct_ms.record(fct as f64 / 1e6);
            self.slowdown.record(slowdown);
        }
    }

    fn completed(&self) -> u64 {
        self.fct_ms.len()
    }
}

/// Accumulates a group's finite flows as they end, for its `FctSummary`: counts, means
/// and percentiles overall and by size bucket, without keeping the flows.
#[derive(Clone, Debug)]
pub struct FctAccumulator {
    all: FctStream,
    by_size: Vec<FctStream>,
}

impl Default for FctAccumulator {
    fn default() -> FctAccumulator {
        FctAccumulator { all: FctStream::new(), by_size: vec![FctStream::new(); SIZE_BUCKETS.len()] }
    }
}

impl FctAccumulator {
    pub fn record(&mut self, record: &FctRecord) {
        self.all.record(record);
        let bucket = SIZE_BUCKETS
            .iter()
            .position(|&(_, max_bytes)| max_bytes.map_or(true, |max| record.size_bytes <= max))
            .expect("the last bucket takes every size");
        self.by_size[bucket].record(record);
    }

    pub fn summary(&self) -> FctSummary {
        let [p50_fct_ms, p99_fct_ms] = pair(self.all.fct_ms.quantiles(&[0.5, 0.99]));
        let [p50_slowdown, p99_slowdown] = pair(self.all.slowdown.quantiles(&[0.5, 0.99]));
        let by_size = SIZE_BUCKETS
            .iter()
            .zip(&self.by_size)
            .map(|(&(sizes, max_bytes), stream)| {
                let [p50_fct_ms, p99_fct_ms] = pair(stream.fct_ms.quantiles(&[0.5, 0.99]));
                let [p50_slowdown, p99_slowdown] = pair(stream.slowdown.quantiles(&[0.5, 0.99]));
                FctBucket {
                    sizes,
                    max_bytes,
                    flows: stream.flows,
                    completed: stream.completed(),
                    p50_fct_ms,
                    p99_fct_ms,
                    p50_slowdown,
                    p99_slowdown,
                }
            })
            .collect();
        FctSummary {
            flows: self.all.flows,
            completed: self.all.completed(),
            percentiles_exact: self.all.fct_ms.is_exact(),
            mean_fct_ms: self.all.fct_ms.mean(),
            p50_fct_ms,
            p99_fct_ms,
            mean_slowdown: self.all.slowdown.mean(),
            p50_slowdown,
            p99_slowdown,
            by_size,
        }
    }
}

fn pair(values: Vec<Option<f64>>) -> [Option<f64>; 2] {
    [values[0], values[1]]
}

impl FctSummary {
    /// The summary of these flows, in this order (a test's or a one-off's shortcut).
    pub fn of(records: &[&FctRecord]) -> FctSummary {
        let mut accumulator = FctAccumulator::default();
        for record in records {
            accumulator.record(record);
        }
        accumulator.summary()
    }
}

/// Every finite flow of the run, one column per quantity (`fct_ms` and `slowdown` null
/// for flows that had not completed).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct FctTable {
    pub group: Vec<String>,
    pub start_s: Vec<f64>,
    pub size_bytes: Vec<u64>,
    pub completed: Vec<bool>,
    pub fct_ms: Vec<Option<f64>>,
    pub ideal_fct_ms: Vec<f64>,
    pub slowdown: Vec<Option<f64>>,
}

/// One flow's results. Counters that exist for one transport only are null for the other.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowMetrics {
    pub id: u32,
    pub group: String,
    /// "tcp" or "udp".
    pub transport: &'static str,
    /// The congestion control's label; null for UDP.
    pub cc: Option<String>,
    /// Payload bytes delivered to the receiving application (TCP: in order) ÷ duration.
    pub goodput_mbps: f64,
    /// Payload bytes of every data packet sent (TCP: retransmissions included) ÷ duration.
    pub throughput_mbps: f64,
    /// TCP only.
    pub retransmitted_packets: Option<u64>,
    pub timeouts: Option<u64>,
    pub fast_recoveries: Option<u64>,
    pub data_packets_sent: u64,
    pub delivered_packets: u64,
    pub start_s: f64,
    pub stop_s: Option<f64>,
    /// Two-way propagation delay of the flow's path (no queueing, no serialisation).
    pub base_rtt_ms: f64,
    /// TCP: mean of the RTT samples the RTO estimator took (one per RTT, Karn's rule).
    pub mean_rtt_ms: Option<f64>,
    /// TCP: mean RTO (before back-off) after each of those samples: the T0 of Eq. 1.
    pub mean_rto_ms: Option<f64>,
    /// TCP: times the sender reacted to ECN-Echo.
    pub ecn_reactions: Option<u64>,
    /// TCP: the congestion controller's state at the end (`CongestionControl::state`).
    pub cc_state: std::collections::BTreeMap<String, f64>,
    /// UDP: datagrams missing below the highest one received (the sink's view of loss).
    pub lost_packets: Option<u64>,
    /// UDP: mean one-way delay of the datagrams received.
    pub mean_delay_ms: Option<f64>,
    /// Finite flows (`app = { kind = "bulk", size }`): bytes to deliver (whole packets),
    /// whether the sink had them all by the end, the completion time (start to the last
    /// byte's in-order delivery) and it over the least possible (`slowdown`, >= 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    /// With `trace.delays`: one-way delay of the data packets that reached the sink
    /// (every copy: retransmissions too), and their RFC 3550 jitter.
    #[serde(flatten)]
    pub delays: DelayColumns,
}

/// One-way delay columns of a flow row or an arrivals group's row (`trace.delays`):
/// all absent without it ([`DelayStats::columns`]).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DelayColumns {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_samples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owd_mean_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owd_min_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owd_max_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owd_std_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter_ms: Option<f64>,
    /// The 95th percentile of the one-way delays (Pantheon's delay measure; within
    /// 0.1 % once a flow has more than 10 000 samples).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owd_p95_ms: Option<f64>,
}

/// Data-packet accounting: sent = received + dropped + in flight.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Conservation {
    pub data_sent: u64,
    pub data_received: u64,
    pub data_dropped: u64,
    pub data_in_flight: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub acks_dropped: u64,
    pub acks_in_flight: u64,
    /// SYN-like first packets dropped (neither data nor ACK).
    pub syn_dropped: u64,
    /// Drops by every queue and loss model of every link, all packet kinds.
    pub all_drops: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Bins {
    pub width_s: f64,
    /// delivered_bytes[flow][bin]: bytes delivered in order to the flow's application.
    pub delivered_bytes: Vec<Vec<u64>>,
    /// The bottleneck per bin: packets offered and dropped, bytes transmitted (so its
    /// utilisation and loss rate over time).
    pub bottleneck_arrivals: Vec<u64>,
    pub bottleneck_drops: Vec<u64>,
    pub bottleneck_transmitted_bytes: Vec<u64>,
}

/// One row per action of a flow's source: `t_s`, what caused it (`event`: "arrival" of
/// a packet — an ACK for TCP — or "timer": the start, a retransmission timeout, an
/// application wake-up), then the source's own columns (TCP: cwnd, ssthresh, srtt_ms,
/// and the congestion controller's state as `cc_<variable>`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowTrace {
    pub id: u32,
    pub t_s: Vec<f64>,
    pub event: Vec<&'static str>,
    #[serde(flatten)]
    pub columns: std::collections::BTreeMap<String, Vec<f64>>,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct QueueTrace {
    pub t_s: Vec<f64>,
    pub packets: Vec<u32>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Traces {
    pub flows: Vec<FlowTrace>,
    pub bottleneck_queue: Option<QueueTrace>,
    /// One per link direction named in `trace.links`, in the order named.
    pub links: Vec<LinkTrace>,
    /// One per link direction named in `trace.pcap`, in the order named.
    pub captures: Vec<Capture>,
    /// With `trace.delay_histogram`: each flow's one-way delays, binned.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub delay_histograms: Vec<DelayHistogram>,
    /// With `trace.queue_delay_histogram`: each traced link's queueing delays, binned, in
    /// `links`' order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queue_delay_histograms: Vec<QueueDelayHistogram>,
}

/// One flow's one-way delays of data packets in bins of `bin_ms` from 0 (the last bin
/// also counts every longer delay); for an arrivals group, all its arrived flows'
/// (`group` set, `flow` absent).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DelayHistogram {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    pub bin_ms: f64,
    pub counts: Vec<u64>,
}

/// The most bins a delay histogram grows to.
pub const MAX_DELAY_BINS: usize = 100_000;

/// Count `value` in `histogram`'s bin of width `bin` (> 0), growing it as needed up to
/// [`MAX_DELAY_BINS`], whose last bin also counts every larger value.
#[inline]
pub fn count_in_bins(histogram: &mut Vec<u64>, bin: u64, value: u64) {
    let index = ((value / bin) as usize).min(MAX_DELAY_BINS - 1);
    if index >= histogram.len() {
        histogram.resize(index + 1, 0);
    }
    histogram[index] += 1;
}

/// One traced link direction's queueing delays (`trace.queue_delay_histogram`): each
/// packet's sojourn before its transmission started, as `LinkTrace::mean_sojourn_ms`
/// averages it, in bins of `bin_ms` from 0 (the last bin also counts every longer delay).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct QueueDelayHistogram {
    pub link: String,
    pub bin_ms: f64,
    pub counts: Vec<u64>,
}

/// One-way delays of the data packets reaching a sink (`trace.delays`): moments, extremes,
/// the interarrival jitter of RFC 3550 §6.4.1 (J += (|D| − J)/16, D the change in transit
/// time between consecutive packets), and optionally a histogram.
#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    pub count: u64,
    sum: f64,
    sum_sq: f64,
    min: u64,
    max: u64,
    jitter: f64,
    last: Option<u64>,
    bin: u64,
    pub histogram: Vec<u64>,
    /// For the 95th percentile (Pantheon's delay measure), in ms.
    quantiles: Option<quantiles::Quantiles>,
}

impl DelayStats {
    pub fn new(histogram_bin: Option<u64>) -> DelayStats {
        DelayStats { min: u64::MAX, bin: histogram_bin.unwrap_or(0), quantiles: Some(quantiles::Quantiles::new(1e3)), ..Default::default() }
    }

    pub fn record(&mut self, delay: u64) {
        self.count += 1;
        if let Some(q) = self.quantiles.as_mut() {
            q.record(delay as f64 / 1e6);
        }
        let d = delay as f64;
        self.sum += d;
        self.sum_sq += d * d;
        self.min = self.min.min(delay);
        self.max = self.max.max(delay);
        if let Some(last) = self.last {
            self.jitter += ((delay as f64 - last as f64).abs() - self.jitter) / 16.0;
        }
        self.last = Some(delay);
        if self.bin > 0 {
            count_in_bins(&mut self.histogram, self.bin, delay);
        }
    }

    /// Add another stream's statistics (an arrived flow's, into its group's): counts,
    /// sums, extremes and histogram add; the jitter becomes the mean of the streams'
    /// jitters weighted by their samples (RFC 3550 jitter is one stream's).
    pub fn merge(&mut self, other: &DelayStats) {
        if other.count == 0 {
            return;
        }
        let total = (self.count + other.count) as f64;
        self.jitter = (self.jitter * self.count as f64 + other.jitter * other.count as f64) / total;
        self.count += other.count;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if self.histogram.len() < other.histogram.len() {
            self.histogram.resize(other.histogram.len(), 0);
        }
        for (mine, theirs) in self.histogram.iter_mut().zip(&other.histogram) {
            *mine += theirs;
        }
        match (self.quantiles.as_mut(), other.quantiles.as_ref()) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, Some(theirs)) => self.quantiles = Some(theirs.clone()),
            _ => {}
        }
    }

    /// The row's columns: the sample count, and the rest once there is a sample.
    pub fn columns(&self) -> DelayColumns {
        let summary = self.summary_ms();
        let pick = |f: fn((f64, f64, f64, f64, f64)) -> f64| summary.map(f);
        DelayColumns {
            delay_samples: Some(self.count),
            owd_mean_ms: pick(|s| s.0),
            owd_min_ms: pick(|s| s.1),
            owd_max_ms: pick(|s| s.2),
            owd_std_ms: pick(|s| s.3),
            jitter_ms: pick(|s| s.4),
            owd_p95_ms: self.quantiles.as_ref().and_then(|q| q.quantiles(&[0.95])[0]),
        }
    }

    /// (mean, min, max, standard deviation, jitter) in ms; None without a sample.
    pub fn summary_ms(&self) -> Option<(f64, f64, f64, f64, f64)> {
        (self.count > 0).then(|| {
            let n = self.count as f64;
            let mean = self.sum / n;
            let variance = (self.sum_sq / n - mean * mean).max(0.0);
            (mean / 1e6, self.min as f64 / 1e6, self.max as f64 / 1e6, variance.sqrt() / 1e6, self.jitter / 1e6)
        })
    }
}

/// Every packet a link direction transmitted (`trace.pcap`), a column each: when its
/// transmission ended (`t_ns`), its bytes on the wire, its flow, what it is (`kind`:
/// [`Capture::TCP_DATA`] ...), its sequence number (segments; UDP and TFRC: the packet's
/// number), the cumulative ACK it carries (segments), flags ([`Capture::CWR`] ...), its
/// ECN bits as sent on (01 ECT, 11 CE) and its flow's segment payload (`payload`, bytes:
/// what TCP numbers its bytes by; the flow's group's, which a slot's arriving flows of
/// different groups do not share).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Capture {
    pub name: String,
    pub t_ns: Vec<u64>,
    pub bytes: Vec<u32>,
    pub flow: Vec<u32>,
    pub kind: Vec<u8>,
    pub seq: Vec<u32>,
    pub ack: Vec<u32>,
    pub flags: Vec<u8>,
    pub ecn: Vec<u8>,
    pub payload: Vec<u32>,
    /// The capture stopped at the memory limit (its packets after that are not in it).
    pub truncated: bool,
}

impl Capture {
    pub const TCP_DATA: u8 = 0;
    pub const TCP_ACK: u8 = 1;
    pub const UDP: u8 = 2;
    pub const TFRC_DATA: u8 = 3;
    pub const TFRC_FEEDBACK: u8 = 4;
    /// ns-2's SYN-like first packet.
    pub const SYN: u8 = 5;
    pub const CWR: u8 = 1;
    pub const ECE: u8 = 2;
    pub const PSH: u8 = 4;

    pub fn len(&self) -> usize {
        self.t_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_ns.is_empty()
    }
}

/// A traced link direction per bin (`trace.links`), by the arrival time of each packet:
/// the bin's start (`t_s`), packets offered (`arrivals`), dropped (`drops`: a full
/// buffer, the discipline or the loss model) and marked CE (`marks`), bytes whose
/// transmission ended in the bin and the utilisation they make, and of the packets that
/// joined the queue the mean and largest number of packets (and mean bytes) they found
/// waiting, not counting the one being sent, and their mean sojourn before transmission
/// (null for a bin where none started).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LinkTrace {
    pub name: String,
    pub t_s: Vec<f64>,
    pub arrivals: Vec<u64>,
    pub drops: Vec<u64>,
    pub marks: Vec<u64>,
    pub transmitted_bytes: Vec<u64>,
    /// Bytes the link could carry in the bin (its rate's, or its schedule's: a trace's
    /// opportunities, what mm-throughput-graph draws as capacity).
    pub capacity_bytes: Vec<f64>,
    pub utilization: Vec<f64>,
    pub mean_queue_packets: Vec<f64>,
    pub max_queue_packets: Vec<u32>,
    pub mean_queue_bytes: Vec<f64>,
    pub mean_sojourn_ms: Vec<f64>,
    /// The longest sojourn of a packet that arrived in the bin (NaN: none started).
    pub max_sojourn_ms: Vec<f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunResult {
    pub version: &'static str,
    /// Legal but probably unintended parts of the scenario, one line each.
    pub warnings: Vec<String>,
    pub duration_s: f64,
    /// Scheduler events executed.
    pub events: u64,
    pub data_packets_sent: u64,
    pub system: SystemMetrics,
    pub groups: Vec<GroupMetrics>,
    /// Every link direction, in the topology's order (forward then reverse per link).
    pub links: Vec<LinkMetrics>,
    pub flows: Vec<FlowMetrics>,
    pub bins: Bins,
    pub conservation: Conservation,
    pub traces: Option<Traces>,
    /// Every finite flow (scenario flows with a size, and arrived flows), when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fcts: Option<FctTable>,
}

/// Jain's fairness index (Σx)² / (n·Σx²), in [1/n, 1]; NaN (null in JSON) for an empty
/// or all-zero set: nothing was allocated, so there is no fairness to judge. The Python
/// side uses this very function (`cclab.core.jain_index`).
pub fn jain_index(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let sum_sq: f64 = values.iter().map(|x| x * x).sum();
    if sum_sq == 0.0 {
        f64::NAN
    } else {
        sum * sum / (values.len() as f64 * sum_sq)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn jain() {
        assert_eq!(super::jain_index(&[1.0, 1.0, 1.0]), 1.0);
        assert!((super::jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!(super::jain_index(&[0.0, 0.0]).is_nan() && super::jain_index(&[]).is_nan());
    }
}
