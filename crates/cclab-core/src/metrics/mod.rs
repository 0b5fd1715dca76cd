//! Run results: per-flow counters, per-group and system aggregates, per-interval bins
//! and opt-in traces. Everything here is plain data, serialisable as JSON.
use serde::Serialize;

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
}

/// Every packet a link direction transmitted (`trace.pcap`), a column each: when its
/// transmission ended (`t_ns`), its bytes on the wire, its flow, what it is (`kind`:
/// [`Capture::TCP_DATA`] ...), its sequence number (segments; UDP and TFRC: the packet's
/// number), the cumulative ACK it carries (segments), flags ([`Capture::CWR`] ...) and
/// its ECN bits as sent on (01 ECT, 11 CE).
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
    pub utilization: Vec<f64>,
    pub mean_queue_packets: Vec<f64>,
    pub max_queue_packets: Vec<u32>,
    pub mean_queue_bytes: Vec<f64>,
    pub mean_sojourn_ms: Vec<f64>,
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
