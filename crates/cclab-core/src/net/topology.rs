//! Topologies: the scenario's `[topology]` (a general graph or a preset) and its
//! expansion into one graph of nodes and link directions with a route for every flow.
//!
//! * `graph`: duplex links between named nodes; each direction has its own queue,
//!   buffer and loss model, and the reverse direction takes the forward one's
//!   parameters unless `reverse = { ... }` overrides them.
//! * `chain`: `hops` in a row, nodes `n0` … `nK`.
//! * `wired-wireless`: the wired/wireless path of Wang et al. (ICNP 2002, Fig. 17):
//!   `source` —wired, 45 Mb/s, 35 ms— `base_station` —wireless, 11 Mb/s, 0.01 ms—
//!   `mobile`; each hop's rate, delay, queue, buffer and loss may be overridden, and
//!   flows go from `source` to `mobile` unless they name their ends.
//! * `dumbbell`: flow i gets its own source `s<i>` and sink `d<i>`; source access links
//!   `s<i>`–`r1`, the bottleneck `r1`–`r2`, sink access links `r2`–`d<i>`. A group with
//!   `direction = "reverse"` sends from `d<i>` to `s<i>` (two-way traffic).
//!
//! Routes are shortest paths (fewest hops) unless a flow gives its own; ties go to the
//! path found first by a breadth-first search that tries each node's links in the
//! order they are listed. Replies (ACKs) take the reverse directions of the data path.
//! Link directions are numbered in the order they are listed, forward then reverse
//! (duplex link k is directions 2k and 2k+1): the numbering names each direction's
//! random streams, so it never depends on the flows.
use super::emulator_loop::EmulatorSpec;
use super::rate_schedule::RateSchedule;
use super::loss::LossSpec;
use super::qdisc::QueueSpec;
use super::{LinkId, RouteId};
use crate::schema::{deserialize_tagged, parse_params, unknown_variant};
use crate::sim::{Duration, Rate, Time};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::fmt;
use std::num::NonZeroU64;

/// The most duplex links a graph or chain may list (each is two directions).
pub const MAX_LINKS: usize = 1_000_000;

/// `[topology]`: every kind expands into the same graph (see the module docs).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Topology {
    Dumbbell(Dumbbell),
    Graph(GraphTopology),
    Chain(ChainTopology),
    #[serde(rename = "wired-wireless")]
    WiredWireless(WiredWireless),
}

pub const TOPOLOGY_KINDS: &[&str] = &["dumbbell", "graph", "chain", "wired-wireless"];

impl<'de> Deserialize<'de> for Topology {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let expecting = "a table with kind = \"dumbbell\", \"graph\", \"chain\" or \"wired-wireless\"";
        deserialize_tagged(d, "kind", expecting, |kind, params| match kind {
            "dumbbell" => parse_params(params).map(Topology::Dumbbell),
            "graph" => parse_params(params).map(Topology::Graph),
            "chain" => parse_params(params).map(Topology::Chain),
            "wired-wireless" => parse_params(params).map(Topology::WiredWireless),
            other => Err(unknown_variant("kind", other, TOPOLOGY_KINDS)),
        })
    }
}

/// The dumbbell preset (see the module docs).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// The shared link `r1`–`r2`.
    pub bottleneck: LinkSpec,
    /// Each flow's link from its source `s<i>` to `r1` (one per flow).
    pub source_access: LinkSpec,
    /// Each flow's link from `r2` to its sink `d<i>` (one per flow).
    pub sink_access: LinkSpec,
}

/// A dumbbell link, both directions; `loss` applies to the left-to-right direction
/// (source side to sink side: the data of forward flows), `reverse_loss` to the other.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Transmission rate of each direction; required unless the left-to-right
    /// direction follows a trace (`rate_schedule = { kind = "mahimahi" | "trace" }`),
    /// whose mean rate it then is. Beside a trace it is the nominal rate that "Nbdp"
    /// buffers and loads are counted in; the trace alone delivers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// One-way propagation delay of each direction.
    pub delay: Duration,
    /// Queue discipline of each direction: "droptail" (default), "red", "codel",
    /// "fq_codel", "pie" or a table naming one with its parameters.
    #[serde(default)]
    pub queue: QueueSpec,
    /// Queue limit per direction: packets (integer) or a multiple of the bandwidth-delay
    /// product ("1bdp" = this link's rate × the reference RTT, in packets of
    /// `packet_size`; see [`Topology`]). The limit counts the packet being transmitted,
    /// as ns-2's DropTail does.
    #[serde(default)]
    pub buffer: BufferSpec,
    /// Optional limit in bytes as well (ns-2 `queue-in-bytes`): an arrival is dropped if
    /// the bytes waiting plus its own would reach it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::sim::units::bytes_opt")]
    pub buffer_bytes: Option<NonZeroU64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_loss: Option<LossSpec>,
    /// Scheduled rate changes of the left-to-right direction (a square wave), or the
    /// trace it delivers by (`{ kind = "mahimahi", file = "..." }`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<RateSchedule>,
    /// The trace the right-to-left direction (the ACKs of forward flows) delivers by, as
    /// `mm-link UP DOWN` takes one per direction (default: none, its `rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_rate_schedule: Option<RateSchedule>,
    /// Each direction hands packets on as an emulator's event loop does
    /// (`{ kind = "mahimahi", overshoot = "120us" }`): a direction that follows a trace as
    /// `mm-link`'s (its delay must be 0), another as `mm-delay`'s (its delay a whole
    /// number of milliseconds), each released at the loop's wakes rather than on time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulator: Option<EmulatorSpec>,
}

/// `kind = "graph"`: duplex links between named nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphTopology {
    /// The duplex links: `{ from, to, rate, delay, ... }` each.
    pub links: Vec<GraphLink>,
    /// The link direction `system`'s bottleneck metrics describe (default: the slowest
    /// direction that carries data, the first listed among equals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<String>,
    /// The RTT that "Nbdp" buffers use (default: per link direction, the largest base
    /// RTT of the flows routed over it, either way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdp_rtt: Option<Duration>,
}

/// `kind = "chain"`: `hops[i]` joins `n<i>` to `n<i+1>`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainTopology {
    /// The links in a row: hop i joins `n<i>` to `n<i+1>`.
    pub hops: Vec<GraphLink>,
    /// The link direction `system`'s bottleneck metrics describe (default: the slowest
    /// direction that carries data, the first listed among equals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<String>,
    /// The RTT that "Nbdp" buffers use (default: per link direction, the largest base
    /// RTT of the flows routed over it, either way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdp_rtt: Option<Duration>,
}

/// `kind = "wired-wireless"` (Fig. 17 of the Westwood paper): two hops, each with the
/// paper's rate and delay unless overridden.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WiredWireless {
    /// source → base_station (default 45 Mb/s, 35 ms).
    #[serde(default)]
    pub wired: PresetHop,
    /// base_station → mobile (default 11 Mb/s, 0.01 ms).
    #[serde(default)]
    pub wireless: PresetHop,
    /// The RTT that "Nbdp" buffers use (default: per link direction, the largest base
    /// RTT of the flows routed over it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdp_rtt: Option<Duration>,
}

/// A preset's hop: what the scenario sets; the rest is the preset's.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetHop {
    /// The hop's rate (default: the preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// The hop's one-way delay (default: the preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// The hop's queue discipline (default "droptail").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    /// The hop's queue limit per direction: packets or "Nbdp" (default "1bdp").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferSpec>,
    /// Loss on the data direction (towards the mobile); ACKs go back loss-free unless
    /// `reverse_loss` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// Loss on the way back (towards the source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_loss: Option<LossSpec>,
}

impl PresetHop {
    fn link(&self, from: &str, to: &str, rate: Rate, delay: Duration) -> GraphLink {
        GraphLink {
            from: Some(from.into()),
            to: Some(to.into()),
            name: None,
            rate: Some(self.rate.unwrap_or(rate)),
            delay: self.delay.unwrap_or(delay),
            queue: self.queue.unwrap_or_default(),
            buffer: self.buffer.unwrap_or_default(),
            buffer_bytes: None,
            loss: self.loss,
            rate_schedule: None,
            emulator: None,
            reverse: Some(LinkOverrides { loss: Some(self.reverse_loss.unwrap_or(LossSpec::None)), ..Default::default() }),
        }
    }
}

impl WiredWireless {
    pub const SOURCE: &'static str = "source";
    pub const MOBILE: &'static str = "mobile";

    fn links(&self) -> Vec<GraphLink> {
        vec![
            self.wired.link(Self::SOURCE, "base_station", Rate(45_000_000), Duration::from_millis(35)),
            self.wireless.link("base_station", Self::MOBILE, Rate(11_000_000), Duration(10_000)),
        ]
    }
}

/// A duplex link of a graph (`from`/`to` required) or a chain's hop (no `from`/`to`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Name of the from→to direction (default "FROM-TO").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Transmission rate of the from→to direction (and of the reverse one unless
    /// `reverse` changes it); required unless the from→to direction follows a trace
    /// (`rate_schedule = { kind = "mahimahi" | "trace" }`), whose mean rate it then is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// One-way propagation delay (both directions unless `reverse` changes it).
    pub delay: Duration,
    /// Queue discipline of each direction (default "droptail").
    #[serde(default)]
    pub queue: QueueSpec,
    /// Queue limit per direction: packets, or a multiple of the bandwidth-delay product
    /// ("1bdp").
    #[serde(default)]
    pub buffer: BufferSpec,
    /// Optional limit in bytes as well: an arrival is dropped if the bytes waiting plus
    /// its own would reach it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::sim::units::bytes_opt")]
    pub buffer_bytes: Option<NonZeroU64>,
    /// Loss model at the head of the link, in both directions unless `reverse` changes
    /// it (`reverse = { loss = "none" }`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// Scheduled rate changes of the from→to direction (a square wave), or the trace it
    /// delivers by (`{ kind = "mahimahi", file = "..." }`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<RateSchedule>,
    /// Both directions hand packets on as an emulator's event loop does
    /// (`{ kind = "mahimahi", overshoot = "120us" }`): a direction that follows a trace as
    /// `mm-link`'s (its delay must be 0), another as `mm-delay`'s (its delay a whole
    /// number of milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulator: Option<EmulatorSpec>,
    /// The to→from direction's differences (its name defaults to "TO-FROM").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<LinkOverrides>,
}

/// What the reverse direction of a graph link changes; the rest is the forward one's.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverrides {
    /// Name of the to→from direction (default "TO-FROM").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Rate of the to→from direction (default: the forward one's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Delay of the to→from direction (default: the forward one's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// Queue discipline of the to→from direction (default: the forward one's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    /// Buffer of the to→from direction (default: the forward one's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferSpec>,
    /// Byte limit of the to→from direction (default: the forward one's).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::sim::units::bytes_opt")]
    pub buffer_bytes: Option<NonZeroU64>,
    /// `"none"` removes the forward direction's loss model from this direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// The trace the to→from direction delivers by (default: none; the forward
    /// direction's is not inherited). Its mean rate is this direction's unless `rate`
    /// is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<RateSchedule>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSpec {
    Packets(u32),
    Bdp(f64),
}

impl Default for BufferSpec {
    fn default() -> Self {
        BufferSpec::Bdp(1.0)
    }
}

impl Serialize for BufferSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BufferSpec::Packets(n) => s.serialize_u32(*n),
            BufferSpec::Bdp(x) => s.collect_str(&format_args!("{x}bdp")),
        }
    }
}

impl fmt::Display for BufferSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferSpec::Packets(n) => write!(f, "{n}"),
            BufferSpec::Bdp(x) => write!(f, "\"{x}bdp\""),
        }
    }
}

impl<'de> Deserialize<'de> for BufferSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = BufferSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a packet count (e.g. 100) or a multiple of the BDP (e.g. \"1bdp\")")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<BufferSpec, E> {
                match u32::try_from(v) {
                    Ok(0) => Err(E::custom("0 packets: a buffer holds at least 1")),
                    Ok(n) => Ok(BufferSpec::Packets(n)),
                    Err(_) => Err(E::custom(format!("{v} is above the largest buffer, {} packets", u32::MAX))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<BufferSpec, E> {
                if v < 1 {
                    return Err(E::custom(format!("{v} packets: a buffer holds at least 1")));
                }
                self.visit_u64(v as u64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<BufferSpec, E> {
                if v.fract() == 0.0 && v >= 1.0 && v <= u32::MAX as f64 {
                    self.visit_u64(v as u64)
                } else if v.is_finite() && v > u32::MAX as f64 {
                    Err(E::custom(format!("{} is above the largest buffer, {} packets", crate::schema::Num(v), u32::MAX)))
                } else {
                    Err(E::custom(format!("{} is not a whole number of packets (or write \"1bdp\")", crate::schema::Num(v))))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BufferSpec, E> {
                let text = v.trim();
                if let Some(multiple) = text.strip_suffix("bdp") {
                    match multiple.trim().parse::<f64>() {
                        Ok(x) if x.is_finite() && x > 0.0 && x <= 1e6 => return Ok(BufferSpec::Bdp(x)),
                        Ok(x) if x.is_finite() && x > 1e6 => {
                            return Err(E::custom(format!("{} is more than 1000000 bandwidth-delay products", crate::schema::quoted(v))))
                        }
                        _ => {}
                    }
                } else if let Some(count) = text.strip_suffix("packets") {
                    if let Ok(n) = count.trim().parse::<u64>() {
                        return self.visit_u64(n);
                    }
                } else if text.parse::<f64>().is_ok() {
                    // Text where a number belongs: which was meant, packets or BDPs?
                    return Err(E::custom(format!(
                        "{} is text; write a packet count without quotes ({text}) or a multiple of the BDP (\"{text}bdp\")",
                        crate::schema::quoted(v)
                    )));
                }
                Err(E::custom(format!(
                    "{} is not a buffer size (write a packet count like 100, or \"1bdp\")",
                    crate::schema::quoted(v)
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// Where one group of flows runs: what the scenario's `[[flows]]` table says about it.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowEnds<'a> {
    pub count: u32,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    pub route: Option<&'a [String]>,
    /// Dumbbell only: data from the sink side to the source side.
    pub reverse: bool,
    /// Dumbbell only: per-flow access delays.
    pub source_delay: Option<Duration>,
    pub sink_delay: Option<Duration>,
}

/// An error naming the scenario field and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError {
    pub path: String,
    pub message: String,
}

fn error<T>(path: impl Into<String>, message: impl Into<String>) -> Result<T, TopologyError> {
    Err(TopologyError { path: path.into(), message: message.into() })
}

/// Parameters one or more link directions share.
#[derive(Clone, Debug)]
pub struct LinkParams {
    pub rate: Rate,
    pub queue: QueueSpec,
    pub buffer: BufferSpec,
    pub buffer_bytes: Option<NonZeroU64>,
    pub loss: Option<LossSpec>,
    pub rate_schedule: Option<RateSchedule>,
    /// An emulator's loop releases the packets ([`super::emulator_loop`]).
    pub emulator: Option<EmulatorSpec>,
    /// The scenario path of the buffer's definition, for errors.
    origin: String,
}

impl LinkParams {
    /// The trace the direction delivers by, if it follows one.
    pub fn delivery_trace(&self) -> Option<&std::sync::Arc<super::delivery_trace::DeliveryTrace>> {
        self.rate_schedule.as_ref().and_then(RateSchedule::delivery_trace)
    }
}

/// One direction of a link, as built.
#[derive(Clone, Debug)]
pub struct LinkDirection {
    pub from: u32,
    pub to: u32,
    pub delay: Duration,
    /// Index into [`Graph::params`].
    pub params: u32,
    /// Given by the scenario (the default "FROM-TO" is made when asked for).
    pub name: Option<Box<str>>,
    /// The queue limit in packets, "Nbdp" resolved.
    pub buffer: u32,
}

/// Where one flow's packets go.
#[derive(Clone, Copy, Debug)]
pub struct FlowPath {
    pub data_route: RouteId,
    /// The reverse directions of the data route's links, last first.
    pub reply_route: RouteId,
    /// Two-way propagation delay of the path (no queueing, no serialisation).
    pub base_rtt: Time,
}

/// The expanded topology: nodes, link directions, the routes flows use.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<String>,
    pub params: Vec<LinkParams>,
    pub links: Vec<LinkDirection>,
    pub routes: Vec<Vec<LinkId>>,
    pub paths: Vec<FlowPath>,
    /// The direction `system`'s bottleneck metrics describe.
    pub bottleneck: LinkId,
}

impl Graph {
    /// The link direction of that name, as results name it.
    pub fn link_id(&self, name: &str) -> Option<LinkId> {
        (0..self.links.len() as LinkId).find(|&l| self.link_name(l) == name)
    }

    pub fn link_name(&self, link: LinkId) -> String {
        let direction = &self.links[link as usize];
        match &direction.name {
            Some(name) => name.to_string(),
            None => format!("{}-{}", self.nodes[direction.from as usize], self.nodes[direction.to as usize]),
        }
    }
    pub fn rate(&self, link: LinkId) -> Rate {
        self.params[self.links[link as usize].params as usize].rate
    }

    /// The link directions `trace.links` or `trace.pcap` (`field`) names, each once, in its
    /// order, or an error naming the entry. Names are looked up in one map (a list as long as
    /// the graph must not cost a scan of the graph per entry).
    pub fn named_links(&self, field: &str, names: &[String]) -> Result<Vec<LinkId>, String> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let by_name: std::collections::HashMap<String, LinkId> =
            (0..self.links.len() as LinkId).map(|l| (self.link_name(l), l)).collect();
        let mut seen = std::collections::HashSet::with_capacity(names.len());
        let mut ids = Vec::with_capacity(names.len());
        for (k, name) in names.iter().enumerate() {
            let Some(&id) = by_name.get(name.as_str()) else {
                let known: Vec<String> = (0..self.links.len().min(8)).map(|l| self.link_name(l as LinkId)).collect();
                let more = if self.links.len() > 8 { ", ..." } else { "" };
                return Err(format!(
                    "{field}[{k}]: no link direction is named {} (they are named \"FROM-TO\": {}{more})",
                    crate::schema::quoted(name),
                    known.join(", ")
                ));
            };
            if !seen.insert(id) {
                return Err(format!("{field}[{k}]: {} is named twice", crate::schema::quoted(name)));
            }
            ids.push(id);
        }
        Ok(ids)
    }
}

/// The expanded topology as data: what a user (or a translator to another simulator)
/// needs to rebuild it. Routes list node names, `from` first.
#[derive(Clone, Debug, Serialize)]
pub struct TopologyDescription {
    pub nodes: Vec<String>,
    pub links: Vec<LinkDescription>,
    pub flows: Vec<FlowRoute>,
    pub bottleneck: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkDescription {
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate: Rate,
    pub delay: Duration,
    /// The queue limit in packets ("Nbdp" resolved), counting the one in transmission.
    pub buffer_packets: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<NonZeroU64>,
    pub queue: QueueSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<RateSchedule>,
    /// Where the scenario defines this direction (`topology.bottleneck`,
    /// `topology.links[2]`, ...), for messages about it.
    pub origin: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowRoute {
    pub id: u32,
    pub route: Vec<String>,
    pub base_rtt: Duration,
}

impl Graph {
    pub fn describe(&self) -> TopologyDescription {
        let node = |id: u32| self.nodes[id as usize].clone();
        let links = (0..self.links.len() as LinkId)
            .map(|id| {
                let direction = &self.links[id as usize];
                let params = &self.params[direction.params as usize];
                LinkDescription {
                    name: self.link_name(id),
                    from: node(direction.from),
                    to: node(direction.to),
                    rate: params.rate,
                    delay: direction.delay,
                    buffer_packets: direction.buffer,
                    buffer_bytes: params.buffer_bytes,
                    queue: params.queue,
                    loss: params.loss,
                    rate_schedule: params.rate_schedule.clone(),
                    origin: params.origin.clone(),
                }
            })
            .collect();
        let flows = self
            .paths
            .iter()
            .enumerate()
            .map(|(id, path)| {
                let route = &self.routes[path.data_route as usize];
                let mut nodes = vec![node(self.links[route[0] as usize].from)];
                nodes.extend(route.iter().map(|&link| node(self.links[link as usize].to)));
                FlowRoute { id: id as u32, route: nodes, base_rtt: Duration(path.base_rtt) }
            })
            .collect();
        TopologyDescription { nodes: self.nodes.clone(), links, flows, bottleneck: self.link_name(self.bottleneck) }
    }
}

/// A graph under construction. A general graph is `indexed`: nodes by name, links by
/// their ends, each node's links, and routes (shared by the flows that take them).
/// Presets that place every node and route themselves (the dumbbell) skip the indexes,
/// which would cost more than the rest of the build for many flows.
#[derive(Default)]
struct Builder {
    graph: Graph,
    indexed: bool,
    node_ids: HashMap<String, u32>,
    routes: HashMap<Vec<LinkId>, RouteId>,
    /// Outgoing link directions of each node, in the order listed.
    adjacency: Vec<Vec<LinkId>>,
    /// The direction from a to b, if linked.
    direction: HashMap<(u32, u32), LinkId>,
}

impl Builder {
    fn indexed() -> Builder {
        Builder { indexed: true, ..Default::default() }
    }

    /// The node named `name`, added if new (unindexed: always added).
    fn node(&mut self, name: String) -> u32 {
        let id = self.graph.nodes.len() as u32;
        if self.indexed {
            if let Some(&id) = self.node_ids.get(&name) {
                return id;
            }
            self.node_ids.insert(name.clone(), id);
            self.adjacency.push(Vec::new());
        }
        self.graph.nodes.push(name);
        id
    }

    fn params(&mut self, params: LinkParams) -> u32 {
        self.graph.params.push(params);
        (self.graph.params.len() - 1) as u32
    }

    /// Add a duplex link: returns the forward direction's id (the reverse is id + 1).
    fn duplex(&mut self, a: u32, b: u32, forward: (Duration, u32, Option<Box<str>>), reverse: (Duration, u32, Option<Box<str>>)) -> LinkId {
        let id = self.graph.links.len() as LinkId;
        for (from, to, (delay, params, name)) in [(a, b, forward), (b, a, reverse)] {
            let link = self.graph.links.len() as LinkId;
            self.graph.links.push(LinkDirection { from, to, delay, params, name, buffer: 0 });
            if self.indexed {
                self.adjacency[from as usize].push(link);
                self.direction.insert((from, to), link);
            }
        }
        id
    }

    fn route(&mut self, links: Vec<LinkId>) -> RouteId {
        let id = self.graph.routes.len() as RouteId;
        if self.indexed {
            if let Some(&known) = self.routes.get(&links) {
                return known;
            }
            self.routes.insert(links.clone(), id);
        }
        self.graph.routes.push(links);
        id
    }

    /// Record a flow over the data route `data`: its reply route and base RTT.
    fn flow(&mut self, data: Vec<LinkId>) {
        let reply: Vec<LinkId> = data.iter().rev().map(|&link| link ^ 1).collect();
        let delay = |links: &[LinkId], graph: &Graph| links.iter().map(|&l| graph.links[l as usize].delay.ns()).sum::<u64>();
        let base_rtt = delay(&data, &self.graph) + delay(&reply, &self.graph);
        let data_route = self.route(data);
        let reply_route = self.route(reply);
        self.graph.paths.push(FlowPath { data_route, reply_route, base_rtt });
    }

    fn node_id(&self, name: &str, path: &str) -> Result<u32, TopologyError> {
        match self.node_ids.get(name) {
            Some(&id) => Ok(id),
            None => {
                let mut known: Vec<&str> = self.graph.nodes.iter().map(String::as_str).collect();
                known.truncate(12);
                let more = if self.graph.nodes.len() > known.len() { ", ..." } else { "" };
                error(path, format!("unknown node {name:?}; the nodes are {}{more}", known.join(", ")))
            }
        }
    }

    /// Fewest hops from `from` to `to` (breadth first, links tried in listed order).
    fn shortest_path(&self, from: u32, to: u32) -> Option<Vec<LinkId>> {
        let mut via: Vec<Option<LinkId>> = vec![None; self.graph.nodes.len()];
        let mut seen = vec![false; self.graph.nodes.len()];
        let mut queue = std::collections::VecDeque::from([from]);
        seen[from as usize] = true;
        while let Some(node) = queue.pop_front() {
            if node == to {
                let mut path = Vec::new();
                let mut at = to;
                while let Some(link) = via[at as usize] {
                    path.push(link);
                    at = self.graph.links[link as usize].from;
                }
                path.reverse();
                return Some(path);
            }
            for &link in &self.adjacency[node as usize] {
                let next = self.graph.links[link as usize].to;
                if !seen[next as usize] {
                    seen[next as usize] = true;
                    via[next as usize] = Some(link);
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// The data path of a graph flow group: its own route, or the shortest path.
    fn group_path(&self, g: usize, ends: &FlowEnds, cache: &mut HashMap<(u32, u32), Vec<LinkId>>) -> Result<Vec<LinkId>, TopologyError> {
        let field = |name: &str| format!("flows[{g}].{name}");
        if let Some(route) = ends.route {
            if route.len() < 2 {
                return error(field("route"), format!("{route:?} needs at least two nodes"));
            }
            let nodes = route
                .iter()
                .enumerate()
                .map(|(i, name)| self.node_id(name, &format!("flows[{g}].route[{i}]")))
                .collect::<Result<Vec<u32>, _>>()?;
            if let Some(from) = ends.from.filter(|&from| from != route[0]) {
                return error(field("route"), format!("starts at {:?}, not at from = {from:?}", route[0]));
            }
            if let Some(to) = ends.to.filter(|&to| to != route[route.len() - 1]) {
                return error(field("route"), format!("ends at {:?}, not at to = {to:?}", route[route.len() - 1]));
            }
            let mut seen = std::collections::HashSet::new();
            let mut links = Vec::new();
            for (i, pair) in nodes.windows(2).enumerate() {
                if !seen.insert(pair[0]) {
                    return error(field("route"), format!("visits {:?} twice", route[i]));
                }
                match self.direction.get(&(pair[0], pair[1])) {
                    Some(&link) => links.push(link),
                    None => {
                        return error(field("route"), format!("is not a path: no link between {:?} and {:?}", route[i], route[i + 1]))
                    }
                }
            }
            if seen.contains(&nodes[nodes.len() - 1]) {
                return error(field("route"), format!("visits {:?} twice", route[route.len() - 1]));
            }
            return Ok(links);
        }
        let (Some(from_name), Some(to_name)) = (ends.from, ends.to) else {
            let missing = if ends.from.is_none() { "from" } else { "to" };
            return error(field(missing), "missing: a flow on a graph names its from and to nodes (or a route)");
        };
        let from = self.node_id(from_name, &field("from"))?;
        let to = self.node_id(to_name, &field("to"))?;
        if from == to {
            return error(field("to"), format!("{to_name:?} is the same node as from"));
        }
        if let Some(path) = cache.get(&(from, to)) {
            return Ok(path.clone());
        }
        let path = self
            .shortest_path(from, to)
            .map_or_else(|| error(field("to"), format!("node {to_name:?} cannot be reached from {from_name:?} over the topology's links")), Ok)?;
        cache.insert((from, to), path.clone());
        Ok(path)
    }

    /// Resolve every direction's buffer: "Nbdp" against `reference_rtt(direction)`, whose
    /// origin `rtt_is` names for errors.
    fn resolve_buffers(&mut self, packet_bytes: u32, rtt_is: &str, reference_rtt: impl Fn(LinkId) -> Time) -> Result<(), TopologyError> {
        for link in 0..self.graph.links.len() {
            let params = &self.graph.params[self.graph.links[link].params as usize];
            if let Some(schedule) = &params.rate_schedule {
                if let Err(message) = schedule.validate(params.rate) {
                    return error(format!("{}.rate_schedule", params.origin), message);
                }
            }
            if params.emulator.is_some() {
                let delay = self.graph.links[link].delay;
                if let Err(message) = emulated_direction(params, delay) {
                    return error(format!("{}.emulator", params.origin), message);
                }
            }
            let packets = match params.buffer {
                BufferSpec::Packets(n) => n,
                BufferSpec::Bdp(multiple) => {
                    let rtt = reference_rtt(link as LinkId);
                    let bdp_bits = params.rate.bps() as f64 * rtt as f64 / 1e9;
                    let packets = multiple * bdp_bits / (8.0 * packet_bytes as f64);
                    if packets.round() < 1.0 {
                        return error(
                            format!("{}.buffer", params.origin),
                            format!(
                                "{}{} is {packets:.2} packets here ({} × {} {rtt_is}, in {packet_bytes}-byte packets); a buffer holds at least 1",
                                if params.buffer == BufferSpec::default() { "the default buffer " } else { "" },
                                params.buffer,
                                params.rate,
                                Duration(rtt),
                            ),
                        );
                    }
                    packets.round().min(u32::MAX as f64) as u32
                }
            };
            self.graph.links[link].buffer = packets;
        }
        Ok(())
    }
}

/// Why a direction cannot have its packets released by an emulator's loop, if it cannot:
/// mm-link's (a trace) has no delay of its own, mm-delay's counts whole milliseconds,
/// and either takes packets as they arrive (no dequeue-time discipline).
fn emulated_direction(params: &LinkParams, delay: Duration) -> Result<(), String> {
    let traced = params.delivery_trace().is_some();
    if params.queue.dequeues() {
        return Err(format!("the {} queue decides at dequeue; an emulator's loop takes an admission-time queue (droptail, red, pie)", params.queue.kind()));
    }
    if traced && params.rate_schedule.as_ref().is_some_and(|s| s.release_lag().is_some()) {
        return Err("the trace has a release lag; the emulator's loop makes its own (give one or the other)".into());
    }
    if traced && delay.0 > 0 {
        return Err(format!(
            "this direction follows a trace (mm-link) and has a delay of {delay}; mm-link has none: put the delay on another link with the emulator (mm-delay)"
        ));
    }
    if !traced && delay.0 % 1_000_000 != 0 {
        return Err(format!("the delay {delay} is not a whole number of milliseconds, which mm-delay counts in"));
    }
    Ok(())
}

impl Topology {
    /// Fill in each link's omitted `rate` with its trace's mean rate (a link without a
    /// trace must give one): the normalised scenario then states every rate.
    pub fn resolve_rates(&mut self) -> Result<(), TopologyError> {
        let resolve = |rate: &mut Option<Rate>, schedule: &Option<RateSchedule>, at: String| -> Result<(), TopologyError> {
            if rate.is_none() {
                *rate = schedule.as_ref().and_then(RateSchedule::mean_rate);
            }
            match rate {
                Some(_) => Ok(()),
                None => error(
                    format!("{at}.rate"),
                    "required, but missing (or give the link a rate_schedule of kind \"mahimahi\" or \"trace\": its mean rate is then the link's)",
                ),
            }
        };
        match self {
            Topology::Dumbbell(d) => {
                resolve(&mut d.bottleneck.rate, &d.bottleneck.rate_schedule, "topology.bottleneck".into())?;
                resolve(&mut d.source_access.rate, &d.source_access.rate_schedule, "topology.source_access".into())?;
                resolve(&mut d.sink_access.rate, &d.sink_access.rate_schedule, "topology.sink_access".into())
            }
            Topology::Graph(g) => {
                for (k, link) in g.links.iter_mut().enumerate() {
                    resolve(&mut link.rate, &link.rate_schedule, format!("topology.links[{k}]"))?;
                }
                Ok(())
            }
            Topology::Chain(c) => {
                for (k, link) in c.hops.iter_mut().enumerate() {
                    resolve(&mut link.rate, &link.rate_schedule, format!("topology.hops[{k}]"))?;
                }
                Ok(())
            }
            Topology::WiredWireless(_) => Ok(()),
        }
    }

    /// Expand into the graph that every kind shares, with a path for each flow of
    /// `groups` (in order). `packet_bytes` is the scenario's payload size ("Nbdp" buffers
    /// count packets of that size), `wire_bytes` a data packet's size on the wire (no
    /// byte limit may be smaller).
    pub fn expand(&self, groups: &[FlowEnds], packet_bytes: u32, wire_bytes: u32) -> Result<Graph, TopologyError> {
        let graph = match self {
            Topology::Dumbbell(dumbbell) => dumbbell.expand(groups, packet_bytes)?,
            Topology::Graph(graph) => expand_graph(&graph.links, "topology.links", &[], true, graph.bottleneck.as_deref(), graph.bdp_rtt, groups, packet_bytes)?,
            Topology::Chain(chain) => expand_graph(&chain.hops, "topology.hops", &[], false, chain.bottleneck.as_deref(), chain.bdp_rtt, groups, packet_bytes)?,
            Topology::WiredWireless(preset) => {
                // Flows that name no ends go from the source to the mobile terminal.
                let groups: Vec<FlowEnds> = groups
                    .iter()
                    .map(|ends| match (ends.from, ends.to, ends.route) {
                        (None, None, None) => FlowEnds { from: Some(WiredWireless::SOURCE), to: Some(WiredWireless::MOBILE), ..*ends },
                        _ => *ends,
                    })
                    .collect();
                expand_graph(&preset.links(), "topology", &["wired", "wireless"], true, None, preset.bdp_rtt, &groups, packet_bytes)?
            }
        };
        for params in &graph.params {
            if let Some(limit) = params.buffer_bytes.filter(|limit| limit.get() < wire_bytes as u64) {
                return error(
                    format!("{}.buffer_bytes", params.origin),
                    format!("{limit} bytes holds no data packet ({wire_bytes} bytes on the wire)"),
                );
            }
        }
        Ok(graph)
    }

    /// The per-flow fields only a dumbbell has, and the node fields it does not have.
    pub fn is_dumbbell(&self) -> bool {
        matches!(self, Topology::Dumbbell(_))
    }
}

impl Dumbbell {
    /// Two-way propagation delay of the dumbbell without per-flow overrides.
    pub fn nominal_rtt(&self) -> Duration {
        Duration(2 * (self.source_access.delay.0 + self.bottleneck.delay.0 + self.sink_access.delay.0))
    }

    fn expand(&self, groups: &[FlowEnds], packet_bytes: u32) -> Result<Graph, TopologyError> {
        let mut b = Builder::default();
        // Left to right takes `loss`, right to left `reverse_loss`.
        let params = |b: &mut Builder, spec: &LinkSpec, origin: &str| {
            let rate = spec.rate.expect("resolved by Topology::resolve_rates");
            let make = |rate: Rate, loss: Option<LossSpec>, rate_schedule: Option<RateSchedule>| LinkParams {
                rate,
                queue: spec.queue,
                buffer: spec.buffer,
                buffer_bytes: spec.buffer_bytes,
                loss: loss.filter(|loss| !loss.is_none()),
                rate_schedule,
                emulator: spec.emulator,
                origin: origin.to_string(),
            };
            // (a reverse trace's own mean is its direction's rate)
            let reverse_rate = spec.reverse_rate_schedule.as_ref().and_then(RateSchedule::mean_rate).unwrap_or(rate);
            (
                b.params(make(rate, spec.loss, spec.rate_schedule.clone())),
                b.params(make(reverse_rate, spec.reverse_loss, spec.reverse_rate_schedule.clone())),
            )
        };
        let bottleneck = params(&mut b, &self.bottleneck, "topology.bottleneck");
        let source_access = params(&mut b, &self.source_access, "topology.source_access");
        let sink_access = params(&mut b, &self.sink_access, "topology.sink_access");
        let (r1, r2) = (b.node("r1".into()), b.node("r2".into()));
        let delay = self.bottleneck.delay;
        let forward = b.duplex(r1, r2, (delay, bottleneck.0, None), (delay, bottleneck.1, None));
        let mut flow = 0;
        for ends in groups {
            let source_delay = ends.source_delay.unwrap_or(self.source_access.delay);
            let sink_delay = ends.sink_delay.unwrap_or(self.sink_access.delay);
            for _ in 0..ends.count {
                let (s, d) = (b.node(format!("s{flow}")), b.node(format!("d{flow}")));
                let source_link = b.duplex(s, r1, (source_delay, source_access.0, None), (source_delay, source_access.1, None));
                let sink_link = b.duplex(r2, d, (sink_delay, sink_access.0, None), (sink_delay, sink_access.1, None));
                let data = if ends.reverse {
                    vec![sink_link + 1, forward + 1, source_link + 1]
                } else {
                    vec![source_link, forward, sink_link]
                };
                b.flow(data);
                flow += 1;
            }
        }
        b.graph.bottleneck = forward;
        let nominal = self.nominal_rtt().ns();
        b.resolve_buffers(packet_bytes, "(the nominal RTT: twice the source_access, bottleneck and sink_access delays)", |_| nominal)?;
        Ok(b.graph)
    }
}

/// `field` is where `links` are in the scenario: link k is `field[k]`, or
/// `field.hop_names[k]` for a preset's named hops.
#[allow(clippy::too_many_arguments)]
fn expand_graph(
    links: &[GraphLink],
    field: &str,
    hop_names: &[&str],
    named_nodes: bool,
    bottleneck: Option<&str>,
    bdp_rtt: Option<Duration>,
    groups: &[FlowEnds],
    packet_bytes: u32,
) -> Result<Graph, TopologyError> {
    if links.is_empty() {
        return error(field, "needs at least one link");
    }
    if links.len() > MAX_LINKS {
        return error(field, format!("{} links; at most {MAX_LINKS}", links.len()));
    }
    let mut b = Builder::indexed();
    let mut names: HashMap<String, String> = HashMap::new();
    for (k, link) in links.iter().enumerate() {
        let at = match hop_names.get(k) {
            Some(name) => format!("{field}.{name}"),
            None => format!("{field}[{k}]"),
        };
        let (from, to) = if named_nodes {
            match (&link.from, &link.to) {
                (Some(from), Some(to)) => (from.clone(), to.clone()),
                (None, _) => return error(format!("{at}.from"), "missing: a graph link joins two named nodes"),
                (_, None) => return error(format!("{at}.to"), "missing: a graph link joins two named nodes"),
            }
        } else {
            if link.from.is_some() || link.to.is_some() {
                let key = if link.from.is_some() { "from" } else { "to" };
                return error(format!("{at}.{key}"), "a chain's hops join n0, n1, ... in order; use kind = \"graph\" to name nodes");
            }
            (format!("n{k}"), format!("n{}", k + 1))
        };
        for (key, node) in [("from", &from), ("to", &to)] {
            if node.trim().is_empty() {
                return error(format!("{at}.{key}"), "a node name must not be empty");
            }
        }
        if from == to {
            return error(format!("{at}.to"), format!("{to:?} is the same node as from"));
        }
        let (a, z) = (b.node(from.clone()), b.node(to.clone()));
        if let Some(&other) = b.direction.get(&(a, z)) {
            return error(at, format!("a second link between {from:?} and {to:?} (the first is {field}[{}])", other / 2));
        }
        let reverse = link.reverse.clone().unwrap_or_default();
        let rate = link.rate.expect("resolved by Topology::resolve_rates");
        let forward_params = LinkParams {
            rate,
            queue: link.queue,
            buffer: link.buffer,
            buffer_bytes: link.buffer_bytes,
            loss: link.loss.filter(|loss| !loss.is_none()),
            rate_schedule: link.rate_schedule.clone(),
            emulator: link.emulator,
            origin: at.clone(),
        };
        let reverse_params = LinkParams {
            rate: reverse.rate.or_else(|| reverse.rate_schedule.as_ref().and_then(RateSchedule::mean_rate)).unwrap_or(rate),
            queue: reverse.queue.unwrap_or(link.queue),
            buffer: reverse.buffer.unwrap_or(link.buffer),
            buffer_bytes: reverse.buffer_bytes.or(link.buffer_bytes),
            loss: match reverse.loss {
                Some(loss) => Some(loss).filter(|loss| !loss.is_none()),
                None => forward_params.loss,
            },
            rate_schedule: reverse.rate_schedule.clone(),
            emulator: link.emulator,
            origin: if reverse.buffer.is_some() { format!("{at}.reverse") } else { at.clone() },
        };
        let mut direction_name = |name: Option<&String>, default: String, key: &str| -> Result<Option<Box<str>>, TopologyError> {
            let shown = name.cloned().unwrap_or(default);
            if shown.trim().is_empty() {
                return error(format!("{at}.{key}"), "a link name must not be empty");
            }
            if let Some(first) = names.insert(shown.clone(), at.clone()) {
                return error(format!("{at}.{key}"), format!("{shown:?} already names a direction of {first}"));
            }
            Ok(name.map(|n| n.clone().into_boxed_str()))
        };
        let forward_name = direction_name(link.name.as_ref(), format!("{from}-{to}"), "name")?;
        let reverse_name = direction_name(reverse.name.as_ref(), format!("{to}-{from}"), "reverse.name")?;
        let forward = b.params(forward_params);
        let backward = b.params(reverse_params);
        b.duplex(a, z, (link.delay, forward, forward_name), (reverse.delay.unwrap_or(link.delay), backward, reverse_name));
    }
    let mut cache = HashMap::new();
    for (g, ends) in groups.iter().enumerate() {
        let path = b.group_path(g, ends, &mut cache)?;
        for _ in 0..ends.count {
            b.flow(path.clone());
        }
    }
    // "Nbdp": the largest base RTT of the flows using a direction, either way.
    let longest_rtt = b.graph.paths.iter().map(|p| p.base_rtt).max().unwrap_or(0);
    let mut reference = vec![None::<Time>; b.graph.links.len()];
    for path in &b.graph.paths {
        for route in [path.data_route, path.reply_route] {
            for &link in &b.graph.routes[route as usize] {
                let slot = &mut reference[link as usize];
                *slot = Some(slot.map_or(path.base_rtt, |rtt| rtt.max(path.base_rtt)));
            }
        }
    }
    let fixed = bdp_rtt.map(|d| d.ns());
    let rtt_is = if fixed.is_some() { "(bdp_rtt)" } else { "(the longest base RTT of the flows over this link)" };
    b.resolve_buffers(packet_bytes, rtt_is, |link| fixed.unwrap_or_else(|| reference[link as usize].unwrap_or(longest_rtt)))?;
    b.graph.bottleneck = match bottleneck {
        Some(name) => match (0..b.graph.links.len() as LinkId).find(|&link| b.graph.link_name(link) == name) {
            Some(link) => link,
            None => return error("topology.bottleneck", format!("{name:?} names no link direction")),
        },
        None => {
            // The slowest direction that carries data; the first listed among equals.
            let mut carries_data = vec![false; b.graph.links.len()];
            for path in &b.graph.paths {
                for &link in &b.graph.routes[path.data_route as usize] {
                    carries_data[link as usize] = true;
                }
            }
            (0..b.graph.links.len() as LinkId)
                .filter(|&link| carries_data[link as usize])
                .min_by_key(|&link| (b.graph.rate(link), link))
                .unwrap_or(0)
        }
    };
    Ok(b.graph)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topology(text: &str) -> Topology {
        let value: toml::Value = toml::from_str(text).unwrap();
        crate::schema::deserialize_with_path(serde_json::to_value(value).unwrap()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A buffer as scenarios write it: TOML integers and floats, "Nbdp", "N packets";
    /// every refusal names what is allowed.
    #[test]
    fn buffer_sizes_are_read_as_documented() {
        #[derive(Deserialize, Debug)]
        struct Holder {
            buffer: BufferSpec,
        }
        let read = |value: &str| toml::from_str::<Holder>(&format!("buffer = {value}")).map(|h| h.buffer).map_err(|e| e.to_string());
        let taken = [
            ("1", BufferSpec::Packets(1)),
            ("88", BufferSpec::Packets(88)),
            ("4294967295", BufferSpec::Packets(u32::MAX)),
            ("100.0", BufferSpec::Packets(100)),
            ("1.0", BufferSpec::Packets(1)),
            ("\"100 packets\"", BufferSpec::Packets(100)),
            ("\"1bdp\"", BufferSpec::Bdp(1.0)),
            ("\" 0.5 bdp \"", BufferSpec::Bdp(0.5)),
            ("\"1000000bdp\"", BufferSpec::Bdp(1e6)),
        ];
        for (text, expected) in taken {
            assert_eq!(read(text), Ok(expected), "buffer = {text}");
        }
        let refused = [
            ("0", "at least 1"),
            ("-5", "at least 1"),
            ("4294967296", "above the largest buffer"),
            ("0.5", "not a whole number"),
            ("1.5", "not a whole number"),
            ("5e9", "above the largest buffer"),
            ("nan", "not a whole number"),
            ("\"0bdp\"", "not a buffer size"),
            ("\"2000000bdp\"", "more than 1000000"),
            ("\"lots\"", "not a buffer size"),
        ];
        for (text, message) in refused {
            let error = read(text).expect_err(text);
            assert!(error.contains(message), "buffer = {text}: {error}");
        }
    }

    fn ends<'a>(from: &'a str, to: &'a str, count: u32) -> FlowEnds<'a> {
        FlowEnds { count, from: Some(from), to: Some(to), ..Default::default() }
    }

    fn route_names(graph: &Graph, route: RouteId) -> Vec<String> {
        graph.routes[route as usize].iter().map(|&l| graph.link_name(l)).collect()
    }

    const DIAMOND: &str = r#"
kind = "graph"
links = [
  { from = "a", to = "b", rate = "10Mbps", delay = "1ms", buffer = 10 },
  { from = "a", to = "c", rate = "5Mbps", delay = "2ms", buffer = 10 },
  { from = "b", to = "d", rate = "10Mbps", delay = "3ms", buffer = 10, name = "bd", reverse = { delay = "4ms", name = "db" } },
  { from = "c", to = "d", rate = "10Mbps", delay = "1ms", buffer = 10 },
]
"#;

    #[test]
    fn shortest_paths_break_ties_by_listed_order() {
        let graph = topology(DIAMOND).expand(&[ends("a", "d", 2), ends("d", "a", 1)], 1000, 1040).unwrap();
        assert_eq!(graph.links.len(), 8);
        // a→b→d and a→c→d both have two hops: a's first listed link wins
        assert_eq!(route_names(&graph, graph.paths[0].data_route), ["a-b", "bd"]);
        assert_eq!(route_names(&graph, graph.paths[0].reply_route), ["db", "b-a"]);
        // flows with the same ends share their routes
        assert_eq!(graph.paths[0].data_route, graph.paths[1].data_route);
        // from d: d's first link is d–b (listed before c–d)
        assert_eq!(route_names(&graph, graph.paths[2].data_route), ["db", "b-a"]);
        // base RTT: 1 + 3 ms out, 4 + 1 ms back
        assert_eq!(graph.paths[0].base_rtt, 9_000_000);
        // the slowest direction carrying data: none is slower than 10 Mb/s on these paths
        assert_eq!(graph.link_name(graph.bottleneck), "a-b");
    }

    #[test]
    fn given_routes_and_reverse_overrides() {
        let route = ["a".to_string(), "c".to_string(), "d".to_string()];
        let group = FlowEnds { count: 1, route: Some(&route), ..Default::default() };
        let graph = topology(DIAMOND).expand(&[group], 1000, 1040).unwrap();
        assert_eq!(route_names(&graph, graph.paths[0].data_route), ["a-c", "c-d"]);
        assert_eq!(graph.link_name(graph.bottleneck), "a-c", "5 Mb/s is the slowest on the path");
        let db = (0..8).find(|&l| graph.link_name(l) == "db").unwrap();
        assert_eq!(graph.links[db as usize].delay, Duration::from_millis(4));
        assert_eq!(graph.rate(db), Rate(10_000_000), "the reverse inherits what it does not override");
    }

    #[test]
    fn bdp_buffers_use_the_longest_rtt_over_the_link() {
        let text = r#"
kind = "chain"
hops = [
  { rate = "8Mbps", delay = "10ms" },
  { rate = "8Mbps", delay = "20ms", buffer = "2bdp" },
]
"#;
        let graph = topology(text).expand(&[ends("n0", "n2", 1), ends("n1", "n2", 1)], 1000, 1040).unwrap();
        // n0→n2: RTT 60 ms, 8 Mb/s × 60 ms = 60 packets on the first hop (only that flow)
        assert_eq!(graph.links[0].buffer, 60);
        assert_eq!(graph.links[1].buffer, 60, "the reverse direction carries its ACKs");
        // second hop: both flows, the longest RTT is 60 ms; 2bdp = 120
        assert_eq!(graph.links[2].buffer, 120);
        let fixed = topology(&format!("{text}\nbdp_rtt = \"100ms\"")).expand(&[ends("n1", "n2", 1)], 1000, 1040).unwrap();
        assert_eq!(fixed.links[0].buffer, 100, "the first hop carries nothing: bdp_rtt decides");
    }

    /// The wired-wireless preset: Fig. 17's rates and delays, flows from source to mobile
    /// by default, loss on the wireless data direction only, overrides kept.
    #[test]
    fn wired_wireless_preset() {
        let text = r#"
kind = "wired-wireless"
wireless = { loss = { model = "bernoulli", rate = 0.01 }, buffer = 20 }
"#;
        let back = ["mobile".to_string(), "base_station".to_string(), "source".to_string()];
        let reverse = FlowEnds { count: 1, route: Some(&back), ..Default::default() };
        let graph = topology(text).expand(&[FlowEnds { count: 2, ..Default::default() }, reverse], 1000, 1040).unwrap();
        assert_eq!(route_names(&graph, graph.paths[0].data_route), ["source-base_station", "base_station-mobile"]);
        assert_eq!(route_names(&graph, graph.paths[2].data_route), ["mobile-base_station", "base_station-source"]);
        assert_eq!((graph.rate(0), graph.links[0].delay), (Rate(45_000_000), Duration::from_millis(35)));
        assert_eq!((graph.rate(2), graph.links[2].delay), (Rate(11_000_000), Duration(10_000)));
        assert_eq!(graph.link_name(graph.bottleneck), "base_station-mobile");
        assert_eq!(graph.paths[0].base_rtt, 2 * (35_000_000 + 10_000));
        assert_eq!(graph.links[2].buffer, 20);
        // 1bdp on the wired hop: 45 Mb/s × 70.02 ms / 8000 bits = 393.9 → 394 packets
        assert_eq!(graph.links[0].buffer, 394);
        let lossy: Vec<String> = (0..4).filter(|&l| graph.params[graph.links[l as usize].params as usize].loss.is_some()).map(|l| graph.link_name(l)).collect();
        assert_eq!(lossy, ["base_station-mobile"]);
    }

    #[test]
    fn dumbbell_numbers_links_as_before() {
        let text = r#"
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "25ms" }
source_access = { rate = "100Mbps", delay = "5ms" }
sink_access = { rate = "10Mbps", delay = "5ms" }
"#;
        let forward = FlowEnds { count: 2, ..Default::default() };
        let reverse = FlowEnds { count: 1, reverse: true, source_delay: Some(Duration::from_millis(40)), ..Default::default() };
        let graph = topology(text).expand(&[forward, reverse], 1000, 1040).unwrap();
        let names: Vec<String> = (0..graph.links.len() as LinkId).map(|l| graph.link_name(l)).collect();
        assert_eq!(&names[..6], ["r1-r2", "r2-r1", "s0-r1", "r1-s0", "r2-d0", "d0-r2"]);
        assert_eq!(route_names(&graph, graph.paths[2].data_route), ["d2-r2", "r2-r1", "r1-s2"]);
        assert_eq!(route_names(&graph, graph.paths[2].reply_route), ["s2-r1", "r1-r2", "r2-d2"]);
        assert_eq!(graph.paths[2].base_rtt, 2 * (40 + 25 + 5) * 1_000_000);
        // 1bdp of the bottleneck: 10 Mb/s × 70 ms nominal RTT = 87.5 → 88 packets
        assert_eq!(graph.links[0].buffer, 88);
    }

    #[test]
    fn bad_graphs_name_the_field_and_value() {
        let run = |links: &str, flows: &[FlowEnds]| {
            topology(&format!("kind = \"graph\"\nlinks = [{links}]")).expand(flows, 1000, 1040).unwrap_err()
        };
        let ab = r#"{ from = "a", to = "b", rate = "1Mbps", delay = "1ms", buffer = 5 }"#;
        let cd = r#"{ from = "c", to = "d", rate = "1Mbps", delay = "1ms", buffer = 5 }"#;
        let e = run(ab, &[ends("a", "x", 1)]);
        assert_eq!((e.path.as_str(), e.message.starts_with("unknown node \"x\"")), ("flows[0].to", true), "{e:?}");
        let e = run(&format!("{ab}, {cd}"), &[ends("a", "d", 1)]);
        assert_eq!(e.path, "flows[0].to");
        assert!(e.message.contains("cannot be reached from \"a\""), "{e:?}");
        let e = run(&format!("{ab}, {ab}"), &[ends("a", "b", 1)]);
        assert_eq!(e.path, "topology.links[1]");
        let e = run(&format!("{ab}, {}", ab.replace("\"a\", to = \"b\"", "\"b\", to = \"a\"")), &[ends("a", "b", 1)]);
        assert!(e.message.contains("a second link"), "{e:?}");
        let route = ["a".to_string(), "c".to_string()];
        let e = run(&format!("{ab}, {cd}"), &[FlowEnds { count: 1, route: Some(&route), ..Default::default() }]);
        assert_eq!(e.path, "flows[0].route");
        assert!(e.message.contains("no link between \"a\" and \"c\""), "{e:?}");
        // A route must start at `from` and end at `to` when those are given too.
        let route = ["a".to_string(), "b".to_string()];
        let given = |from: &'static str, to: &'static str| FlowEnds { count: 1, from: Some(from), to: Some(to), route: Some(&route), ..Default::default() };
        assert!(topology(&format!("kind = \"graph\"\nlinks = [{ab}]")).expand(&[given("a", "b")], 1000, 1040).is_ok());
        let e = run(ab, &[given("b", "b")]);
        assert_eq!((e.path.as_str(), e.message.as_str()), ("flows[0].route", "starts at \"a\", not at from = \"b\""));
        let e = run(ab, &[given("a", "a")]);
        assert_eq!((e.path.as_str(), e.message.as_str()), ("flows[0].route", "ends at \"b\", not at to = \"a\""));
        // An unknown node: the message lists the nodes (the first 12, then "...").
        let e = run(ab, &[ends("a", "x", 1)]);
        assert!(e.message.ends_with("the nodes are a, b"), "{e:?}");
        let chain: Vec<String> = (0..13).map(|i| format!(r#"{{ from = "n{i}", to = "n{}", rate = "1Mbps", delay = "1ms", buffer = 5 }}"#, i + 1)).collect();
        let e = run(&chain.join(", "), &[ends("n0", "x", 1)]);
        assert!(e.message.ends_with("n11, ..."), "{e:?}");
        let e = run(r#"{ from = "a", to = "a", rate = "1Mbps", delay = "1ms" }"#, &[]);
        assert_eq!(e.path, "topology.links[0].to");
        let e = topology(&format!("kind = \"graph\"\nbottleneck = \"zz\"\nlinks = [{ab}]")).expand(&[ends("a", "b", 1)], 1000, 1040).unwrap_err();
        assert_eq!(e.path, "topology.bottleneck");
        // the default 1bdp of a 1 Mb/s, 1 ms link is a quarter packet
        let e = run(r#"{ from = "a", to = "b", rate = "1Mbps", delay = "1ms" }"#, &[ends("a", "b", 1)]);
        assert_eq!(e.path, "topology.links[0].buffer");
        assert_eq!(e.message, "the default buffer \"1bdp\" is 0.25 packets here (1Mbps × 2ms (the longest base RTT of the flows over this link), in 1000-byte packets); a buffer holds at least 1");
    }
}
