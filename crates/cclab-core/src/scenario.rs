//! The one scenario schema (serde), validated before a run. Every field has a
//! documented default; a typo, a value out of range or an unknown name is rejected with
//! a one-line message naming the field path and the value, e.g.
//! `flows[0].cc.beta: 1.5 is outside (0, 1)`.
use crate::cc::CcConfig;
use crate::schema::{duration_or_table, from_value, named_choice};
pub use crate::schema::{OpenUnit, Positive, Probability};
use crate::sim::Duration;
use crate::transport::tfrc::TfrcConfig;
use crate::transport::TcpConfig;
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;
use std::num::NonZeroU32;

/// A scenario that failed validation; the message is one line: `path: problem`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::schema::bounded(&self.0))
    }
}
impl std::error::Error for ScenarioError {}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Label of the run (results, stores, reports).
    #[serde(default = "default_name")]
    pub name: String,
    /// Simulated time; metrics are computed over [0, duration].
    pub duration: Duration,
    /// Root seed of every random stream (loss, random starts, RED, jitter, on/off
    /// periods); a run is bit-identical for a seed.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Application payload bytes per data packet (ns-2 `packetSize_`).
    #[serde(default = "default_packet_size", with = "crate::sim::units::bytes")]
    pub packet_size: NonZeroU32,
    /// TCP/IP header bytes added to each data packet on the wire (ns-2 `useHeaders_ true`: 40).
    #[serde(default = "default_header_size", with = "crate::sim::units::bytes")]
    pub header_size: u32,
    /// Bytes of a pure ACK on the wire (ns-2: 40).
    #[serde(default = "default_header_size", with = "crate::sim::units::bytes")]
    pub ack_size: NonZeroU32,
    /// Width of the per-interval bins (allotted goodput, allotted fairness).
    #[serde(default = "default_bin_width")]
    pub bin_width: Duration,
    /// The network: `kind = "dumbbell"`, `"graph"`, `"chain"` or `"wired-wireless"`.
    pub topology: Topology,
    /// The flow groups, one `[[flows]]` table each; at least one.
    pub flows: Vec<FlowGroup>,
    /// What to record beyond the result tables (off by default, free when off).
    #[serde(default)]
    pub trace: TraceConfig,
    /// Whose rules every TCP and TFRC group follows unless it says otherwise: "rfc" (the
    /// RFCs, the default), "ns2" (ns-2.35's agents: `tcp.profile`, `tfrc.profile`) or
    /// "linux" (Linux 6.x's TCP; TFRC groups follow RFC 5348).
    /// "ns2" here also orders an arrival and a transmission start at one instant as
    /// ns-2's scheduler does (docs/ns2-defaults.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::transport::TcpProfile>,
}

/// The largest data packet (payload) cclab takes, in bytes.
pub const MAX_PACKET_BYTES: u32 = 1_000_000;
/// The largest header or pure ACK, in bytes.
pub const MAX_HEADER_BYTES: u32 = 65_535;
/// At most this many per-interval bins per flow.
pub const MAX_BINS_PER_FLOW: u64 = 100_000_000;

fn default_name() -> String {
    "unnamed".into()
}
fn default_seed() -> u64 {
    1
}
fn default_packet_size() -> NonZeroU32 {
    NonZeroU32::new(1000).unwrap()
}
fn default_header_size<T: From<NonZeroU32>>() -> T {
    NonZeroU32::new(40).unwrap().into()
}
fn default_bin_width() -> Duration {
    Duration::from_millis(1000)
}
fn one() -> NonZeroU32 {
    NonZeroU32::new(1).unwrap()
}

pub use crate::net::topology::{BufferSpec, Dumbbell, GraphLink, LinkOverrides, LinkSpec, Topology};
pub use crate::net::qdisc::codel::CodelSpec;
pub use crate::net::qdisc::fq_codel::FqCodelSpec;
pub use crate::net::qdisc::pie::PieSpec;
pub use crate::net::qdisc::step_mark::StepMarkSpec;
pub use crate::net::qdisc::QueueSpec;
pub use crate::net::qdisc::red::{RedMode, RedSpec};

pub use crate::net::loss::LossSpec;

/// The message for a byte count above the largest cclab takes.
fn above_largest(bytes: u32, limit: u32) -> String {
    format!("{bytes} bytes is above {limit}, the largest cclab takes")
}

/// One `[[flows]]` table: `count` identical flows, each over its own source/sink pair.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    /// Group name (default `group<i>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default = "one")]
    pub count: NonZeroU32,
    /// "tcp" (default), "udp" or "tfrc".
    #[serde(default)]
    pub transport: Transport,
    /// TCP only (default "reno"); filled in when the scenario is normalised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<CcConfig>,
    /// When the group's flows start: a time ("2s"), or `{ at, stagger }` (flow i at
    /// at + i·stagger/count), or `{ at, random }` (at + uniform [0, random)).
    #[serde(default)]
    pub start: StartSpec,
    /// When the application stops offering new data (outstanding losses are still repaired).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// TCP only (defaults: docs/ns2-defaults.md); filled in when the scenario is normalised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpConfig>,
    /// TFRC only: profile, loss intervals, discounting; filled in when normalised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tfrc: Option<TfrcConfig>,
    /// Dumbbell: per-flow override of the source access link delay (so RTTs can differ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_delay: Option<Duration>,
    /// Dumbbell: per-flow override of the sink access link delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_delay: Option<Duration>,
    /// Dumbbell: "forward" (default; data from the source side to the sink side) or
    /// "reverse" (from the sink side to the source side, for two-way traffic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// Graph and chain: the node the data leaves from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Graph and chain: the node the data goes to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Graph and chain: the nodes the data visits, `from` first and `to` last (default:
    /// a shortest path). Replies take the reverse path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Vec<String>>,
    /// Number of active flows of the group over time, as [time, number] steps
    /// (e.g. [["0s", 12], ["15s", 25]]): flow i runs from the first step whose number
    /// exceeds i until the first later step whose number is i or less. Instead of
    /// `start`/`stop`; `count` must be the largest number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<(Duration, u32)>>,
    /// What the application offers: over TCP "bulk" (infinite FTP, the default) or a
    /// CBR writer; over UDP (required) a CBR or on/off source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<AppSpec>,
    /// TCP only: flows arrive over the run instead of all running from the start —
    /// `{ kind = "poisson", load = 0.5, sizes = { kind = "pareto", mean = "100KB" } }`
    /// (see [`crate::app::arrivals`]). `count` is then the number of source/sink pairs
    /// the arriving flows take in turn; each flow ends when its sink has all its bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<crate::app::ArrivalSpec>,
    /// Payload bytes of this group's data packets instead of the scenario's `packet_size`
    /// (`header_size` rides on top, as on every data packet): small control, voice or game
    /// datagrams beside full-size TCP, or TCP flows of different segment sizes (the MSS).
    /// A UDP flow's CBR gap, TFRC's s and every goodput count these bytes. At most 1000000
    /// bytes, as the scenario's; a capture (`trace.pcap`) numbers each flow's bytes by its
    /// group's size. An environment stepping agents' flows (`algorithm = "agent"`) takes
    /// one segment size for all of them.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::sim::units::bytes_opt")]
    pub packet_size: Option<NonZeroU32>,
}

/// Which way a dumbbell flow's data goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Forward,
    Reverse,
}

named_choice!(Direction, "direction", [Forward => "forward", Reverse => "reverse"]);

/// The transport protocol of a flow group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    #[default]
    Tcp,
    Udp,
    /// TCP-Friendly Rate Control (RFC 5348): rate-based, with receiver reports.
    Tfrc,
}

named_choice!(Transport, "transport", [Tcp => "tcp", Udp => "udp", Tfrc => "tfrc"]);

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Udp => "udp",
            Transport::Tfrc => "tfrc",
        }
    }
}

pub use crate::app::AppSpec;

/// The schedule rule: with `steps` of [time, number of active flows], flow i runs from
/// the first step whose number exceeds i until the first later step whose number is i or
/// less (never stopping if there is none). One window per flow, for as many flows as the
/// largest number.
pub fn schedule_windows(steps: &[(Duration, u32)]) -> Vec<FlowWindow> {
    let flows = steps.iter().map(|&(_, n)| n).max().unwrap_or(0);
    (0..flows)
        .map(|i| {
            let first = steps.iter().position(|&(_, n)| n > i).expect("the largest number exceeds every i");
            let stop = steps[first..].iter().find(|&&(_, n)| n <= i).map(|&(t, _)| t);
            FlowWindow { start: steps[first].0, stop }
        })
        .collect()
}

/// When one flow runs, as the engine computes it ([`Scenario::flow_windows`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlowPlan {
    /// Index of the flow's group in `flows`.
    pub group: usize,
    /// Start and stop of its application, in ns.
    pub start: crate::sim::Time,
    pub stop: Option<crate::sim::Time>,
}

/// When one flow of a group runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowWindow {
    pub start: Duration,
    pub stop: Option<Duration>,
}

impl FlowGroup {
    /// The congestion control of a TCP group (normalised scenarios always have one).
    pub fn cc(&self) -> CcConfig {
        self.cc.clone().unwrap_or_default()
    }
    pub fn tcp(&self) -> TcpConfig {
        self.tcp.clone().unwrap_or_default()
    }
    pub fn app(&self) -> AppSpec {
        self.app.unwrap_or_default()
    }
    pub fn tfrc(&self) -> TfrcConfig {
        self.tfrc.clone().unwrap_or_default()
    }
    /// The protocol's label in results ("reno", "aimd(0.31,0.875)", "tfrc(8)"); None for UDP.
    pub fn label(&self) -> Option<String> {
        match self.transport {
            Transport::Tcp => Some(self.cc().label()),
            Transport::Tfrc => Some(self.tfrc().label()),
            Transport::Udp => None,
        }
    }

    /// Payload bytes of the group's data packets: its own `packet_size`, or the scenario's.
    pub fn payload_bytes(&self, scenario_packet_size: NonZeroU32) -> u32 {
        self.packet_size.unwrap_or(scenario_packet_size).get()
    }

    /// Fill in the defaults of the group's transport, and reject what does not apply to it.
    /// `packet_bytes`: the group's data packets on the wire.
    fn normalize(&mut self, packet_bytes: u32, profile: crate::transport::TcpProfile) -> Result<(), (&'static str, String)> {
        if let Some(size) = self.packet_size {
            if size.get() > MAX_PACKET_BYTES {
                return Err(("packet_size", above_largest(size.get(), MAX_PACKET_BYTES)));
            }
        }
        if self.transport != Transport::Tcp && self.arrivals.is_some() {
            return Err(("arrivals", format!("arriving finite flows are TCP flows, not {:?}", self.transport.name())));
        }
        if self.arrivals.is_some() && self.schedule.is_some() {
            return Err(("arrivals", "give either arrivals or a schedule, not both".into()));
        }
        if self.transport != Transport::Tfrc && self.tfrc.is_some() {
            return Err(("tfrc", format!("applies to transport = \"tfrc\" only, not {:?}", self.transport.name())));
        }
        match self.transport {
            Transport::Tfrc => {
                if let Some(cc) = &self.cc {
                    return Err(("cc", format!("{:?}: TFRC sets its rate by the TCP equation, not a window algorithm", cc.label())));
                }
                if self.tcp.is_some() {
                    return Err(("tcp", "a TFRC flow has no TCP parameters (use tfrc = { ... })".into()));
                }
                if !matches!(self.app.get_or_insert(AppSpec::default()), AppSpec::Bulk { size: None }) {
                    return Err(("app", "a TFRC flow always has data to send (\"bulk\" without a size)".into()));
                }
                let tfrc = self.tfrc.get_or_insert_with(TfrcConfig::default);
                tfrc.profile.get_or_insert(match profile {
                    crate::transport::TcpProfile::Ns2 => crate::transport::tfrc::Profile::Ns2,
                    crate::transport::TcpProfile::Rfc | crate::transport::TcpProfile::Linux => crate::transport::tfrc::Profile::Rfc5348,
                });
                tfrc.validate().map_err(|(field, message)| {
                    let field = match field {
                        "intervals" => "tfrc.intervals",
                        "ndupack" => "tfrc.ndupack",
                        _ => "tfrc",
                    };
                    (field, message)
                })?;
            }
            Transport::Tcp => {
                let ecn = self.cc.get_or_insert_with(CcConfig::default).ecn();
                let tcp = self.tcp.get_or_insert_with(TcpConfig::default);
                tcp.ecn |= ecn != crate::cc::EcnUse::AsConfigured; // (DCTCP: ECN-capable by definition)
                tcp.l4s = ecn == crate::cc::EcnUse::L4s;
                tcp.normalize(profile).map_err(|(field, message)| {
                    let field = match field {
                        "ns2.sack1_recovery" => "tcp.ns2.sack1_recovery",
                        "ns2.newreno_recovery" => "tcp.ns2.newreno_recovery",
                        _ => "tcp",
                    };
                    (field, message)
                })?;
                if let Some(cc @ CcConfig::External(_)) = &self.cc {
                    if self.arrivals.is_some() {
                        return Err(("arrivals", format!("{:?}: arriving flows are made during the run; use a built-in algorithm", cc.label())));
                    }
                }
                match self.app.get_or_insert(AppSpec::default()) {
                    AppSpec::Bulk { size: Some(_) } if self.arrivals.is_some() => {
                        return Err(("app.size", "arriving flows take their sizes from arrivals.sizes".into()));
                    }
                    AppSpec::Cbr { .. } if self.arrivals.is_some() => {
                        return Err(("app", "arriving flows are finite bulk transfers; give no app".into()));
                    }
                    AppSpec::Onoff { .. } => {
                        return Err(("app", "an on/off source needs transport = \"udp\"".into()));
                    }
                    AppSpec::Cbr { jitter, .. } if *jitter > 0.0 => {
                        return Err(("app.jitter", format!("{jitter}: only UDP CBR sources jitter")));
                    }
                    _ => {}
                }
            }
            Transport::Udp => {
                if let Some(cc) = &self.cc {
                    return Err(("cc", format!("{:?}: a UDP flow has no congestion control", cc.label())));
                }
                if self.tcp.is_some() {
                    return Err(("tcp", "a UDP flow has no TCP parameters".into()));
                }
                match self.app {
                    None => {
                        return Err((
                            "app",
                            "a UDP flow needs { kind = \"cbr\", rate = ... } or { kind = \"onoff\", rate = ..., on = ..., off = ... }".into(),
                        ))
                    }
                    Some(AppSpec::Bulk { .. }) => return Err(("app", "\"bulk\" is a TCP application; UDP sends cbr or onoff".into())),
                    Some(app) => {
                        let rate = app.rate().expect("cbr and onoff have rates");
                        // One packet per nanosecond at most: the clock's resolution.
                        if (packet_bytes as f64 * 8.0 * 1e9) < rate.bps() as f64 {
                            return Err((
                                "app.rate",
                                format!("{rate} sends {packet_bytes}-byte packets more often than once per nanosecond"),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The active period of each flow under `schedule` (None without one).
    pub fn scheduled_windows(&self) -> Option<Vec<FlowWindow>> {
        self.schedule.as_deref().map(schedule_windows)
    }

    fn validate_schedule(&self) -> Result<(), (&'static str, String)> {
        let Some(steps) = &self.schedule else { return Ok(()) };
        if steps.is_empty() {
            return Err(("schedule", "needs at least one [time, number] step".into()));
        }
        if self.start != StartSpec::default() || self.stop.is_some() {
            return Err(("schedule", "give either schedule or start/stop, not both".into()));
        }
        for pair in steps.windows(2) {
            if pair[1].0 <= pair[0].0 {
                return Err(("schedule", format!("times must increase: {} then {}", pair[0].0, pair[1].0)));
            }
        }
        let peak = steps.iter().map(|&(_, n)| n).max().unwrap_or(0);
        if peak != self.count.get() {
            return Err(("count", format!("{} but the schedule's largest number of flows is {peak}", self.count)));
        }
        // A stopped flow cannot start again, so the number may rise and then fall, but
        // not rise again after falling.
        let mut fallen = false;
        for pair in steps.windows(2) {
            let ((_, before), (t, after)) = (pair[0], pair[1]);
            if after > before && fallen {
                return Err(("schedule", format!("the number rises again at {t}: stopped flows cannot restart")));
            }
            fallen |= after < before;
        }
        Ok(())
    }
}


/// When the flows of a group start: all at `at`, or flow i at `at + i × stagger / count`,
/// or at `at` + uniform [0, random).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StartSpec {
    #[serde(default)]
    pub at: Duration,
    /// Flow i of the group starts at `at` + i × stagger / count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stagger: Option<Duration>,
    /// Each flow starts at `at` + a uniform draw in [0, random) from the group's own
    /// random stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random: Option<Duration>,
}

// Hand-written so a plain time ("0s") is accepted as well as a table.
impl<'de> Deserialize<'de> for StartSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            #[serde(default)]
            at: Duration,
            stagger: Option<Duration>,
            random: Option<Duration>,
        }
        duration_or_table(
            d,
            "a time such as \"0s\", or { stagger = \"1s\" }, or { random = \"1s\" }",
            |at| StartSpec { at, ..Default::default() },
            |t: Table| {
                if t.stagger.is_some() && t.random.is_some() {
                    return Err("give either stagger or random, not both".into());
                }
                Ok(StartSpec { at: t.at, stagger: t.stagger, random: t.random })
            },
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Record cwnd, ssthresh and smoothed RTT of every flow at every ACK and loss event.
    #[serde(default)]
    pub flows: bool,
    /// Record the bottleneck queue length at every arrival.
    #[serde(default)]
    pub queue: bool,
    /// Link directions (by name, as in results) whose queue is recorded per bin:
    /// arrivals, drops, marks, bytes sent, the queue packets found, their sojourn.
    #[serde(default)]
    pub links: Vec<String>,
    /// Link directions whose every transmitted packet is recorded, for a libpcap file
    /// each (written by the front end; `Traces::captures`).
    #[serde(default)]
    pub pcap: Vec<String>,
    /// One-way delay statistics of every flow's data packets (mean, min, max, standard
    /// deviation, RFC 3550 jitter): columns `owd_*_ms` and `jitter_ms` of the flow rows.
    #[serde(default)]
    pub delays: bool,
    /// With `delays`: a histogram of each flow's one-way delays in bins of this width
    /// (at most 100000 bins; the last also counts every longer delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_histogram: Option<Duration>,
    /// With `links`: a histogram of each of those link directions' queueing delays (each
    /// packet's wait before its transmission starts; on a trace link, from its arrival
    /// millisecond, as mm-link logs it) in bins of this width (at most 100000 bins; the
    /// last also counts every longer delay). Percentiles of the queueing delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_delay_histogram: Option<Duration>,
    /// One row per finite flow (`fcts` in results: start, size, FCT, slowdown). Off,
    /// only the groups' FCT summaries are kept, so a long run of short flows holds the
    /// flows alive and nothing per flow seen. Serialised only when off, so scenarios
    /// written before it keep their identity.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub fcts: bool,
}

fn yes() -> bool {
    true
}

impl Default for TraceConfig {
    fn default() -> TraceConfig {
        TraceConfig {
            flows: false,
            queue: false,
            links: Vec::new(),
            pcap: Vec::new(),
            delays: false,
            delay_histogram: None,
            queue_delay_histogram: None,
            fcts: true,
        }
    }
}

fn is_true(value: &bool) -> bool {
    *value
}

impl Scenario {
    pub fn from_json_str(text: &str) -> Result<Scenario, ScenarioError> {
        let value = crate::schema::parse_json(text).map_err(|message| {
            // Not JSON, or a key given twice: reading it as a scenario names the field.
            let mut d = serde_json::Deserializer::from_str(text);
            match crate::schema::deserialize_with_path::<Scenario, _>(&mut d) {
                Err(located) => ScenarioError(located),
                _ => ScenarioError(message),
            }
        })?;
        let mut scenario: Scenario = from_value(&value).map_err(ScenarioError)?;
        scenario.normalize()?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Parse TOML, then validate exactly as JSON input is (one schema, one error format).
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        // A byte-order mark (some editors write one) is not part of the document.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let position = e.span().map(|span| {
                let line = text[..span.start].matches('\n').count() + 1;
                let column = span.start - text[..span.start].rfind('\n').map_or(0, |i| i + 1) + 1;
                format!("line {line}, column {column}: ")
            });
            let message = match e.message().trim() {
                "number too large to fit in target type" => {
                    "integer too large (TOML integers are 64-bit: at most 9223372036854775807)"
                }
                other => other,
            };
            ScenarioError(format!("{}{message}", position.unwrap_or_default()))
        })?;
        let value = serde_json::to_value(table).map_err(|e| ScenarioError(e.to_string()))?;
        let mut scenario: Scenario = from_value(&value).map_err(ScenarioError)?;
        scenario.normalize()?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// The scenario with every default filled in, as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serializes")
    }

    /// Fill in per-transport defaults (so the normalised scenario shows them).
    fn normalize(&mut self) -> Result<(), ScenarioError> {
        self.topology.resolve_rates().map_err(|e| ScenarioError(format!("{}: {}", e.path, e.message)))?;
        let profile = self.profile.unwrap_or_default();
        for (i, group) in self.flows.iter_mut().enumerate() {
            let packet_bytes = group.payload_bytes(self.packet_size).saturating_add(self.header_size);
            group.normalize(packet_bytes, profile).map_err(|(field, msg)| ScenarioError(format!("flows[{i}].{field}: {msg}")))?;
        }
        Ok(())
    }

    /// Checks that involve more than one field.
    fn validate(&self) -> Result<(), ScenarioError> {
        let err = |path: String, msg: String| Err(ScenarioError(format!("{path}: {msg}")));
        if self.duration == Duration::ZERO {
            return err("duration".into(), "must be > 0".into());
        }
        if self.bin_width == Duration::ZERO {
            return err("bin_width".into(), "must be > 0".into());
        }
        if self.bins_per_flow() > MAX_BINS_PER_FLOW {
            return err(
                "bin_width".into(),
                format!("{} makes {} bins of the {} run; at most {MAX_BINS_PER_FLOW} per flow", self.bin_width, self.bins_per_flow(), self.duration),
            );
        }
        for (field, value, limit) in [
            ("packet_size", self.packet_size.get(), MAX_PACKET_BYTES),
            ("header_size", self.header_size, MAX_HEADER_BYTES),
            ("ack_size", self.ack_size.get(), MAX_HEADER_BYTES),
        ] {
            if value > limit {
                return err(field.into(), above_largest(value, limit));
            }
        }
        if let Some(bin) = self.trace.delay_histogram {
            if !self.trace.delays {
                return err("trace.delay_histogram".into(), "needs trace.delays = true".into());
            }
            if bin == Duration::ZERO {
                return err("trace.delay_histogram".into(), "must be > 0".into());
            }
        }
        if let Some(bin) = self.trace.queue_delay_histogram {
            if self.trace.links.is_empty() {
                return err("trace.queue_delay_histogram".into(), "needs trace.links (the link directions whose queueing delays it bins)".into());
            }
            if bin == Duration::ZERO {
                return err("trace.queue_delay_histogram".into(), "must be > 0".into());
            }
        }
        if self.flows.is_empty() {
            return err("flows".into(), "at least one [[flows]] table is required".into());
        }
        let total: u64 = self.flows.iter().map(|g| g.count.get() as u64).sum();
        if total > 1_000_000 {
            return err("flows".into(), format!("{total} flows in all; at most 1000000 are supported"));
        }
        for (i, g) in self.flows.iter().enumerate() {
            let on_dumbbell = self.topology.is_dumbbell();
            let misplaced = if on_dumbbell {
                [("from", g.from.is_some()), ("to", g.to.is_some()), ("route", g.route.is_some())]
            } else {
                [("direction", g.direction.is_some()), ("source_delay", g.source_delay.is_some()), ("sink_delay", g.sink_delay.is_some())]
            };
            if let Some((field, _)) = misplaced.iter().find(|(_, given)| *given) {
                let why = if on_dumbbell {
                    "a dumbbell gives each flow its own hosts; from/to/route need kind = \"graph\" or \"chain\""
                } else {
                    "applies to the dumbbell only; on a graph or chain give from/to (or a route)"
                };
                return err(format!("flows[{i}].{field}"), why.into());
            }
        }
        let graph = self.expand_topology()?;
        // Traced links are named by the expanded topology: known before the run.
        graph.named_links("trace.links", &self.trace.links).map_err(ScenarioError)?;
        graph.named_links("trace.pcap", &self.trace.pcap).map_err(ScenarioError)?;
        let mut names = std::collections::HashSet::new();
        for (i, g) in self.flows.iter().enumerate() {
            let name = self.group_name(i);
            if !names.insert(name.clone()) {
                return err(format!("flows[{i}].group"), format!("{name:?} is used by two groups"));
            }
            if let Some(stop) = g.stop {
                if stop <= g.start.at {
                    return err(format!("flows[{i}].stop"), format!("{stop} is not after the start {}", g.start.at));
                }
            }
            g.tcp().validate().map_err(|(field, msg)| ScenarioError(format!("flows[{i}].tcp.{field}: {msg}")))?;
            g.validate_schedule().map_err(|(field, msg)| ScenarioError(format!("flows[{i}].{field}: {msg}")))?;
        }
        Ok(())
    }

    /// When each flow runs, in flow order (groups in order, `count` flows each): its
    /// group, start and stop (ns). The engine's one rule for it: a schedule's windows, or
    /// `start.at` plus flow i's stagger offset i·stagger/count or a uniform draw in
    /// [0, random) from the group's own random stream, and the group's `stop`.
    pub fn flow_windows(&self) -> Vec<FlowPlan> {
        use crate::sim::rng::{stream, FLOW_START_STREAMS};
        use rand::Rng;
        let mut plans = Vec::new();
        for (g, group) in self.flows.iter().enumerate() {
            let n = group.count.get();
            let mut start_rng = stream(self.seed, FLOW_START_STREAMS + g as u64);
            let scheduled = group.scheduled_windows();
            for i in 0..n {
                let (start, stop) = match &scheduled {
                    Some(windows) => (windows[i as usize].start.ns(), windows[i as usize].stop.map(|t| t.ns())),
                    None => {
                        let offset = match (group.start.stagger, group.start.random) {
                            (Some(stagger), _) => (stagger.ns() as u128 * i as u128 / n as u128) as crate::sim::Time,
                            (_, Some(random)) if random.ns() > 0 => start_rng.gen_range(0..random.ns()),
                            _ => 0,
                        };
                        (group.start.at.ns() + offset, group.stop.map(|t| t.ns()))
                    }
                };
                plans.push(FlowPlan { group: g, start, stop });
            }
        }
        plans
    }

    pub fn group_name(&self, index: usize) -> String {
        self.flows[index].group.clone().unwrap_or_else(|| format!("group{index}"))
    }

    /// Bins of `bin_width` covering the run, per flow.
    pub fn bins_per_flow(&self) -> u64 {
        self.duration.ns().div_ceil(self.bin_width.ns().max(1))
    }

    /// Legal but probably not what was meant: one line each, naming the field.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for (i, g) in self.flows.iter().enumerate() {
            let first_start = match &g.schedule {
                Some(steps) => steps.iter().find(|&&(_, n)| n > 0).map(|&(t, _)| t),
                None => Some(g.start.at),
            };
            if let Some(start) = first_start.filter(|&t| t >= self.duration) {
                let field = if g.schedule.is_some() { "schedule" } else { "start" };
                warnings.push(format!(
                    "flows[{i}].{field}: {start} is not before the end of the run ({}); the group sends nothing",
                    self.duration
                ));
            }
            if g.transport == Transport::Tcp && g.tcp().profile() == crate::transport::TcpProfile::Ns2 && !g.cc().in_ns2() {
                warnings.push(format!(
                    "flows[{i}].cc: ns-2.35 has no {name}; under profile = \"ns2\" it runs with ns-2's NewReno agent rules \
                     (Sack1's recovery, go-back-N after a timeout), which it was not built for and which can cost it most of \
                     its throughput; profile = \"rfc\" or \"linux\" suits it",
                    name = g.cc().name()
                ));
            }
            if let Some(arrivals) = &g.arrivals {
                let packet_bytes = self.packet_size.get() + self.header_size;
                let syn_bytes = if g.tcp().syn { self.ack_size.get() } else { 0 };
                let wire = arrivals.wire_load_at_least(self.packet_size.get(), packet_bytes, syn_bytes);
                if wire > 1.0 {
                    warnings.push(format!(
                        "flows[{i}].arrivals: load {} counts payload only; with whole packets of {packet_bytes} bytes on the wire \
                         (packet_size + header_size){} for flows of {} B on average, the wire load is at least {} times the \
                         route's capacity: flows arrive faster than they can end, and pile up until the run ends or reaches \
                         its memory limit",
                        crate::schema::Num(arrivals.load),
                        if syn_bytes > 0 { format!(" and a {syn_bytes}-byte SYN") } else { String::new() },
                        crate::schema::Approx(arrivals.sizes.mean()),
                        crate::schema::Approx(wire),
                    ));
                }
            }
        }
        if !self.trace.pcap.is_empty() {
            warnings.extend(self.pcap_warnings());
        }
        warnings
    }

    /// What a capture cannot show as the wire would: packets shorter than the IPv4 and
    /// TCP headers it writes (tcpdump: "truncated-ip"), or longer than an IPv4 packet.
    fn pcap_warnings(&self) -> Vec<String> {
        const HEADERS: u32 = 40; // IPv4 (20) + TCP (20)
        const IPV4_MAX: u32 = 65_535;
        let data = self.packet_size.get() + self.header_size;
        let mut warnings = Vec::new();
        for (what, bytes) in [("data packets", data), ("ACKs", self.ack_size.get())] {
            if bytes < HEADERS {
                warnings.push(format!(
                    "trace.pcap: {what} of {bytes} bytes on the wire are shorter than the {HEADERS} bytes of IPv4 and TCP headers \
                     a capture holds; tcpdump shows them as truncated-ip (header_size and ack_size set the headers' bytes)"
                ));
            }
        }
        if data > IPV4_MAX {
            warnings.push(format!(
                "trace.pcap: data packets of {data} bytes are longer than an IPv4 packet can be ({IPV4_MAX} bytes); \
                 the capture writes their length as {IPV4_MAX}"
            ));
        }
        warnings
    }

    /// The topology expanded into its graph, with every flow's route.
    pub fn expand_topology(&self) -> Result<crate::net::topology::Graph, ScenarioError> {
        let groups: Vec<crate::net::topology::FlowEnds> = self
            .flows
            .iter()
            .map(|g| crate::net::topology::FlowEnds {
                count: g.count.get(),
                from: g.from.as_deref(),
                to: g.to.as_deref(),
                route: g.route.as_deref(),
                reverse: g.direction == Some(Direction::Reverse),
                source_delay: g.source_delay,
                sink_delay: g.sink_delay,
            })
            .collect();
        let wire_bytes = self.packet_size.get() + self.header_size;
        self.topology
            .expand(&groups, self.packet_size.get(), wire_bytes)
            .map_err(|e| ScenarioError(format!("{}: {}", e.path, e.message)))
    }
}
