//! Congestion control: one trait the TCP sender calls, one file per algorithm.
//!
//! Shape borrowed from Linux `tcp_congestion_ops` and quinn's `Controller`: an every-ACK
//! hook (`on_ack_event`, Linux `in_ack_event`: duplicates and ACKs during recovery
//! included, for rate estimators), the increase side (`on_ack`, Linux `cong_avoid`)
//! changing the window in place, the decrease side (`on_congestion`, Linux `ssthresh`)
//! *returning* the new ssthresh/cwnd, and time always passed in. Algorithms never touch
//! the engine (no timers of their own); `on_round` is an optional once-per-RTT hook.
pub mod agent;
pub mod aimd;
pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod binomial;
pub mod cubic;
pub mod dctcp;
pub mod estimators;
pub mod external;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod kernel;
pub mod ledbat;
pub mod lp;
pub mod minmax;
pub mod mraimd;
pub mod prague;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod westwood_abse;
pub mod westwood_be;
pub mod westwood_crb;
pub mod westwood_plus;
pub mod westwood_re;
pub mod yeah;

use crate::schema::{deserialize_tagged, parse_params, unknown_variant};
use crate::sim::Time;
use serde::{Deserialize, Deserializer, Serialize};

pub use aimd::{Aimd, AimdConfig};
pub use binomial::{Binomial, BinomialConfig};
pub use estimators::{BandwidthEstimator, IntervalEstimator};
pub use mraimd::{MrAimd, MrAimdConfig};
pub use westwood::Westwood;
pub use westwood_abse::WestwoodAbseConfig;
pub use westwood_be::WestwoodBeConfig;
pub use westwood_crb::WestwoodCrbConfig;
pub use westwood_plus::{WestwoodPlus, WestwoodPlusConfig};
pub use westwood_re::WestwoodReConfig;

/// The part of the transmission control block an algorithm may change (in segments).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// What an ACK told the sender, as seen by congestion control.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSample {
    pub now: Time,
    /// Segments newly acknowledged cumulatively by this ACK.
    pub segments_acked: u32,
    /// Segments newly covered by SACK blocks of this ACK.
    pub segments_sacked: u32,
    /// RTT measured from this ACK (Karn's rule applied), if any.
    pub rtt: Option<Time>,
    /// The RTO estimator's sample taken at this ACK (one timed segment per RTT), as the
    /// sender's clock counts it: exact, or ns-2's whole ticks (`t_rtt_·tcpTick_`) with
    /// `tcp.ns2.tick_clock`. (NonZero: the sample costs the ACK no extra word.)
    pub timed_rtt: Option<std::num::NonZeroU64>,
    /// The ACK carried ECN-Echo (for an L4S flow: it reported new CE marks).
    pub ece: bool,
    /// L4S flows (AccECN feedback): data segments this ACK newly reports CE-marked (the
    /// increase of the receiver's CE counter); 0 for other flows.
    pub ce_marked: u32,
    /// Segments delivered to the receiver so far (cumulative + SACKed), for rate estimators.
    pub delivered: u64,
    /// Segments in flight after this ACK.
    pub in_flight: u32,
    /// The ACK did not advance the cumulative ACK (a duplicate; it may SACK new data).
    pub duplicate: bool,
    /// The sender was in loss recovery when the ACK arrived.
    pub in_recovery: bool,
    /// The sender's smoothed RTT (RFC 6298 SRTT, ns), once it has a sample.
    pub srtt: Option<f64>,
}

/// A delivery-rate sample (Linux `struct rate_sample`, from
/// [`crate::transport::rate::RateSampler`]): what this ACK says the path delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// When the ACK arrived.
    pub now: Time,
    /// Segments delivered over `interval`: since the most recently sent segment this ACK
    /// delivers was sent.
    pub delivered: u64,
    /// ns; 0 when the ACK gives no valid sample (it delivered nothing, or over less than
    /// the minimum RTT: ACK compression).
    pub interval: Time,
    /// The delivered count when that segment was sent (BBR counts round trips by it).
    pub prior_delivered: u64,
    /// That segment went out while the application, not the network, held the sender back.
    pub app_limited: bool,
    /// Segments this ACK newly delivered (cumulatively or by SACK).
    pub acked_sacked: u32,
    /// The sender's delivered count after this ACK.
    pub delivered_total: u64,
    /// Segments in flight after this ACK.
    pub in_flight: u32,
    /// The ACK's RTT sample (Karn's rule applied), ns.
    pub rtt: Option<Time>,
    /// Segments newly taken for lost since the previous sample (`rs->losses`) and all so
    /// far (`tp->lost`): as the `linux` sender marks them; with the other profiles, the
    /// segments retransmitted (each resend repairs a segment the recovery or a timeout
    /// took for lost), counted when resent.
    pub losses: u32,
    pub lost_total: u64,
    /// The rest is filled by `linux`-profile senders only (zero otherwise): what was in
    /// flight before the ACK (`rs->prior_in_flight`), the sender's recovery state, and
    /// how far its next departure lies ahead of now (`tcp_wstamp_ns − now`, EDT pacing).
    pub prior_in_flight: u32,
    pub ca_state: CaState,
    pub pacing_ahead: Time,
}

/// The sender's loss-recovery state as Linux names it (`icsk_ca_state`), for algorithms
/// that act on it (BBR's `bbr_set_cwnd_to_recover_or_restore`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// Nothing odd.
    #[default]
    Open,
    /// SACKs or duplicates seen, nothing marked lost yet.
    Disorder,
    /// The window is being reduced without loss (ECN, a repaired tail loss probe).
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// What a `linux`-profile module knows of its socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxSocket {
    /// Payload bytes per segment (`mss_cache`).
    pub mss_bytes: u32,
    /// The socket paces (`sk_pacing_status` set: BBR always; others with the fq qdisc or
    /// as `tcp.pacing` says): CUBIC's HyStart does not halve its ACK-train threshold then.
    pub paced: bool,
}

/// Linux's jiffy on this machine kind (`CONFIG_HZ=250`), ns: the kernel's coarse clock
/// (CUBIC's epoch, BBR's PROBE_RTT and min-RTT stamps, TCP's timers).
pub const LINUX_JIFFY_NS: Time = 4_000_000;

impl RateSample {
    /// Segments per second, when the sample is valid.
    pub fn rate(&self) -> Option<f64> {
        (self.interval > 0).then(|| self.delivered as f64 * 1e9 / self.interval as f64)
    }
}

/// Why the sender is reducing its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionSignal {
    /// Loss detected by duplicate ACKs / SACK; fast retransmit follows.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
    /// An ACK carried ECN-Echo (no loss).
    EcnEcho,
}

/// A decrease decision: the sender applies both values, except after a timeout, when it
/// takes the ssthresh and restarts from one segment whatever `cwnd` says (RFC 5681 §3.1:
/// the common timeout rule is the sender's, not each algorithm's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reduction {
    pub ssthresh: f64,
    pub cwnd: f64,
}

/// Context for a decrease decision.
#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    pub now: Time,
    pub signal: CongestionSignal,
    /// Segments outstanding when the signal arrived.
    pub flight_size: u32,
    /// True when cwnd < ssthresh (slow start) at the time of the signal.
    pub in_slow_start: bool,
    /// True for the first reduction of the connection.
    pub first_reduction: bool,
    /// The sender cuts as ns-2 does (`tcp.ns2.integer_ssthresh`, see [`reno::cut`]).
    pub integer_ssthresh: bool,
}

pub trait CongestionControl {
    /// Short label for tables: "reno", "aimd(0.31,0.875)".
    fn label(&self) -> String;
    /// Every ACK the sender accepts, before it acts on it: duplicates and ACKs during
    /// loss recovery included (Linux `in_ack_event`), with what it acknowledged, the
    /// delivered count and what is in flight. For rate estimators; the window is shown,
    /// not theirs to change here.
    fn on_ack_event(&mut self, _window: &Window, _ack: &AckSample) {}
    /// Increase side, called for each ACK that advances the cumulative ACK outside of loss
    /// recovery.
    fn on_ack(&mut self, window: &mut Window, ack: &AckSample);
    /// Decrease side: the new ssthresh and cwnd (Linux `ssthresh`; for a timeout only the
    /// ssthresh counts, see [`Reduction`]).
    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction;
    /// Loss recovery ended with a full ACK; the sender has set cwnd = ssthresh (RFC 6582
    /// §3.2 step 3). Linux `CA_EVENT_COMPLETE_CWR`: Westwood+ sets its window here.
    fn on_recovery_end(&mut self, _window: &mut Window, _now: Time) {}
    /// Optional once-per-round-trip hook (rate estimators, per-RTT tracing).
    fn on_round(&mut self, _window: &mut Window, _now: Time) {}
    /// Internal state for tracing, as (name, value) pairs.
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// The algorithm wants a delivery-rate sample at every ACK ([`Self::on_rate_sample`]);
    /// asked once, when the sender is made (only those senders keep per-segment records).
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// Every ACK's delivery-rate sample, after [`Self::on_ack_event`] (Linux
    /// `cong_control`): a model-based algorithm sets its window and pacing rate here.
    fn on_rate_sample(&mut self, _window: &mut Window, _sample: &RateSample) {}
    /// The algorithm sets the window itself from its model (Linux `cong_control`): the
    /// sender then leaves cwnd alone when recovery ends (asked once).
    fn controls_window(&self) -> bool {
        false
    }
    /// The algorithm paces its transmissions (asked once, when the sender is made).
    fn paces(&self) -> bool {
        false
    }
    /// Segments per second the sender spaces transmissions at (None: as the window allows).
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// A draw of the flow's own random stream, given once before the flow starts, for an
    /// algorithm that randomises (BBR's first gain phase).
    fn set_seed(&mut self, _seed: u64) {}

    // The `linux` profile. Its sender calls the hooks above as Linux's `tcp_ack` calls a
    // module's: `on_ack_event` on every ACK (`pkts_acked`, with `segments_acked` the
    // segments it newly delivered, cumulatively or by SACK, and `rtt` the newest of
    // them's; through [`Self::pkts_acked`], which may change the window and forwards to
    // `on_ack_event` by default), `on_round` first when snd_una has passed the end of
    // the last round;
    // `on_ack` (`cong_avoid`) only on ACKs that advance snd_una outside recovery while
    // the window limits the sender; `on_congestion` (`ssthresh`) once per reduction, of
    // which it reads only the ssthresh (Proportional Rate Reduction moves cwnd);
    // `on_recovery_end` after cwnd = ssthresh (`CA_EVENT_COMPLETE_CWR`).
    /// The flow follows the `linux` profile: compute as the kernel's module does (told
    /// once, when the sender is made; algorithms without a kernel twin ignore it).
    fn use_linux_rules(&mut self, _linux: LinuxSocket) {}
    /// A retransmission timeout put the sender in the Loss state (`set_state(TCP_CA_Loss)`;
    /// after `on_congestion` when the timeout reduces the window, alone when it does not).
    fn on_loss_state(&mut self, _window: &mut Window, _now: Time) {}
    /// A reduction proved spurious is undone (`undo_cwnd`): the window to restore, given
    /// the one before the reduction (Reno and CUBIC: the larger of the two).
    fn undo_cwnd(&mut self, window: &Window, prior_cwnd: f64) -> f64 {
        window.cwnd.max(prior_cwnd)
    }
    /// The sender starts sending after `idle` ns with nothing in flight
    /// (`CA_EVENT_TX_START`).
    fn on_tx_start(&mut self, _window: &mut Window, _now: Time, _idle: Time) {}
    /// The fewest segments a GSO packet carries (`min_tso_segs`; None: the sysctl's 2).
    fn min_tso_segs(&self) -> Option<u32> {
        None
    }
    /// The `linux` sender's every-ACK call, in place of [`Self::on_ack_event`] (Linux
    /// `pkts_acked`, same sample): the window may change here, as CUBIC's HyStart sets
    /// ssthresh = cwnd from `cubictcp_acked`, before this ACK's `on_ack`.
    fn pkts_acked(&mut self, window: &mut Window, ack: &AckSample) {
        self.on_ack_event(window, ack);
    }
    /// Asked by the `linux` sender after each [`Self::on_rate_sample`]: the algorithm
    /// marked the flow application-limited on this ACK (BBR in PROBE_RTT:
    /// `tp->app_limited = delivered + in_flight`, or 1). The sender then marks its rate
    /// sampler so ([`crate::transport::rate::RateSampler::mark_app_limited`] with the
    /// delivered count and what is in flight after the ACK).
    fn marks_app_limited(&self) -> bool {
        false
    }
    /// The `linux` sender's delivered and lost counts (`tp->delivered`, `tp->lost`) as
    /// they stand when a timeout puts it in the Loss state (after the timeout marked
    /// segments lost), given just before [`Self::on_loss_state`]: BBR's long-term
    /// sampling reads them there (`bbr_set_state`).
    fn on_loss_totals(&mut self, _delivered: u64, _lost: u64) {}
    /// The `linux` sender's connection is established (`tcp_init_transfer`, where Linux
    /// runs the module's `init`), at `now`, before the first data segment: `rtt` is the
    /// handshake's RTT sample (`tcp_min_rtt`) and `srtt` the sender's SRTT from it (ns),
    /// if it has them. BBR starts its model here (min RTT and first pacing rate from
    /// them), CUBIC its HyStart clock; without this call they start at the first
    /// [`Self::on_tx_start`] (BBR with no min RTT yet, as Linux without a SYN RTT).
    fn on_established(&mut self, _window: &mut Window, _now: Time, _rtt: Option<Time>, _srtt: Option<f64>) {}
}

/// How an algorithm uses ECN, as it declares it ([`Algorithm::ecn`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnUse {
    /// As the flow group's `tcp.ecn` says (RFC 3168 when on).
    #[default]
    AsConfigured,
    /// ECN-capable whatever `tcp.ecn` says, its receiver echoing each segment's CE mark
    /// exactly (DCTCP, RFC 8257 §3.2).
    ExactEcho,
    /// An L4S flow (RFC 9331): data marked ECT(1), and AccECN feedback, the receiver
    /// counting CE marks on every ACK so the sender sees each one
    /// ([`AckSample::ce_marked`]); its window cut comes once per window of data with new
    /// marks (TCP Prague).
    L4s,
}

/// Whose ns-2 agent an algorithm was, as it declares it ([`Algorithm::ns2_agent`]): the
/// agent's Tcl defaults shape the ns-2 profile's NewReno recovery
/// (`tcp.ns2.newreno_recovery`; the rules themselves are the transport's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ns2Agent {
    /// ns-2.35's Agent/TCP/Newreno.
    #[default]
    Newreno,
    /// UCLA's Agent/TCP/WestwoodNR (`westwood-be` with `profile = "ucla"`).
    WestwoodNr,
}

/// What the registry needs of an algorithm: its scenario form (the config, serde), the
/// range checks of its parameters, the controller it builds, and what it needs of the
/// sender and receiver (declared here, so that a new algorithm with the same needs is
/// one file and one registry line). An algorithm is one file with a config implementing
/// this, and one line of [`algorithms!`].
pub trait Algorithm: Serialize + serde::de::DeserializeOwned + Clone + std::fmt::Debug + PartialEq {
    type Controller: CongestionControl;
    /// Err((field, message)) for a parameter out of range.
    fn validate(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }
    fn build(&self) -> Self::Controller;
    /// How the algorithm uses ECN.
    fn ecn(&self) -> EcnUse {
        EcnUse::AsConfigured
    }
    /// The ns-2 agent whose recovery defaults it runs with in the ns-2 profile.
    fn ns2_agent(&self) -> Ns2Agent {
        Ns2Agent::Newreno
    }
    /// Whether ns-2.35 has the algorithm (an agent, or a module of its TCP-Linux). One it
    /// lacks still runs under the ns-2 profile, with ns-2's agent rules, and a scenario
    /// doing so is warned.
    fn in_ns2(&self) -> bool {
        true
    }
}

/// The config as a scenario writes it: `{ algorithm = NAME, ...its fields }`.
#[derive(Serialize)]
struct Tagged<'a, T: Serialize> {
    algorithm: &'static str,
    #[serde(flatten)]
    config: &'a T,
}

/// The registry: each line declares one algorithm — its name in scenarios, the variant
/// that carries it and its config type — and generates the scenario enum
/// ([`CcConfig`]), the statically dispatched controllers ([`Controller`], plus a boxed
/// `Custom` for user plug-ins), the name table and the parsing.
macro_rules! algorithms {
    ($($(#[doc = $doc:literal])* $name:literal => $variant:ident($config:ty),)+) => {
        /// Scenario form of an algorithm: `cc = "reno"` or `cc = { algorithm = "aimd", ... }`.
        /// The config is the factory: [`CcConfig::build`].
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $($(#[doc = $doc])* $variant($config),)+
        }

        /// The built-in algorithms, dispatched statically; `Custom` holds a user plug-in.
        pub enum Controller {
            $($variant(<$config as Algorithm>::Controller),)+
            Custom(Box<dyn CongestionControl + Send>),
        }

        pub const ALGORITHMS: &[&str] = &[$($name),+];

        impl CcConfig {
            pub fn build(&self) -> Controller {
                match self {
                    $(CcConfig::$variant(c) => Controller::$variant(Algorithm::build(c)),)+
                }
            }

            /// The algorithm's name in scenarios.
            pub fn name(&self) -> &'static str {
                match self {
                    $(CcConfig::$variant(_) => $name,)+
                }
            }

            /// How the algorithm uses ECN ([`Algorithm::ecn`]).
            pub fn ecn(&self) -> EcnUse {
                match self {
                    $(CcConfig::$variant(c) => Algorithm::ecn(c),)+
                }
            }

            /// Whether ns-2.35 has the algorithm ([`Algorithm::in_ns2`]).
            pub fn in_ns2(&self) -> bool {
                match self {
                    $(CcConfig::$variant(c) => Algorithm::in_ns2(c),)+
                }
            }

            /// Whose ns-2 agent the algorithm was ([`Algorithm::ns2_agent`]).
            pub fn ns2_agent(&self) -> Ns2Agent {
                match self {
                    $(CcConfig::$variant(c) => Algorithm::ns2_agent(c),)+
                }
            }

            fn from_parts(algorithm: &str, params: serde_json::Value) -> Result<CcConfig, String> {
                match algorithm {
                    $($name => validated::<$config>(params).map(CcConfig::$variant),)+
                    other => Err(unknown_variant("algorithm", other, ALGORITHMS)),
                }
            }
        }

        impl Serialize for CcConfig {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(CcConfig::$variant(config) => Tagged { algorithm: $name, config }.serialize(s),)+
                }
            }
        }

        impl CongestionControl for Controller {
            fn label(&self) -> String {
                match self { $(Controller::$variant(c) => c.label(),)+ Controller::Custom(c) => c.label() }
            }
            #[inline]
            fn on_ack_event(&mut self, window: &Window, ack: &AckSample) {
                match self { $(Controller::$variant(c) => c.on_ack_event(window, ack),)+ Controller::Custom(c) => c.on_ack_event(window, ack) }
            }
            #[inline]
            fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
                match self { $(Controller::$variant(c) => c.on_ack(window, ack),)+ Controller::Custom(c) => c.on_ack(window, ack) }
            }
            fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
                match self { $(Controller::$variant(c) => c.on_congestion(window, event),)+ Controller::Custom(c) => c.on_congestion(window, event) }
            }
            fn on_recovery_end(&mut self, window: &mut Window, now: Time) {
                match self { $(Controller::$variant(c) => c.on_recovery_end(window, now),)+ Controller::Custom(c) => c.on_recovery_end(window, now) }
            }
            fn on_round(&mut self, window: &mut Window, now: Time) {
                match self { $(Controller::$variant(c) => c.on_round(window, now),)+ Controller::Custom(c) => c.on_round(window, now) }
            }
            fn state(&self, out: &mut Vec<(&'static str, f64)>) {
                match self { $(Controller::$variant(c) => c.state(out),)+ Controller::Custom(c) => c.state(out) }
            }
            fn wants_rate_samples(&self) -> bool {
                match self { $(Controller::$variant(c) => c.wants_rate_samples(),)+ Controller::Custom(c) => c.wants_rate_samples() }
            }
            fn on_rate_sample(&mut self, window: &mut Window, sample: &RateSample) {
                match self { $(Controller::$variant(c) => c.on_rate_sample(window, sample),)+ Controller::Custom(c) => c.on_rate_sample(window, sample) }
            }
            fn controls_window(&self) -> bool {
                match self { $(Controller::$variant(c) => c.controls_window(),)+ Controller::Custom(c) => c.controls_window() }
            }
            fn paces(&self) -> bool {
                match self { $(Controller::$variant(c) => c.paces(),)+ Controller::Custom(c) => c.paces() }
            }
            fn pacing_rate(&self) -> Option<f64> {
                match self { $(Controller::$variant(c) => c.pacing_rate(),)+ Controller::Custom(c) => c.pacing_rate() }
            }
            fn set_seed(&mut self, seed: u64) {
                match self { $(Controller::$variant(c) => c.set_seed(seed),)+ Controller::Custom(c) => c.set_seed(seed) }
            }
            fn use_linux_rules(&mut self, linux: LinuxSocket) {
                match self { $(Controller::$variant(c) => c.use_linux_rules(linux),)+ Controller::Custom(c) => c.use_linux_rules(linux) }
            }
            fn on_loss_state(&mut self, window: &mut Window, now: Time) {
                match self { $(Controller::$variant(c) => c.on_loss_state(window, now),)+ Controller::Custom(c) => c.on_loss_state(window, now) }
            }
            fn undo_cwnd(&mut self, window: &Window, prior_cwnd: f64) -> f64 {
                match self { $(Controller::$variant(c) => c.undo_cwnd(window, prior_cwnd),)+ Controller::Custom(c) => c.undo_cwnd(window, prior_cwnd) }
            }
            fn on_tx_start(&mut self, window: &mut Window, now: Time, idle: Time) {
                match self { $(Controller::$variant(c) => c.on_tx_start(window, now, idle),)+ Controller::Custom(c) => c.on_tx_start(window, now, idle) }
            }
            fn min_tso_segs(&self) -> Option<u32> {
                match self { $(Controller::$variant(c) => c.min_tso_segs(),)+ Controller::Custom(c) => c.min_tso_segs() }
            }
            fn pkts_acked(&mut self, window: &mut Window, ack: &AckSample) {
                match self { $(Controller::$variant(c) => c.pkts_acked(window, ack),)+ Controller::Custom(c) => c.pkts_acked(window, ack) }
            }
            fn marks_app_limited(&self) -> bool {
                match self { $(Controller::$variant(c) => c.marks_app_limited(),)+ Controller::Custom(c) => c.marks_app_limited() }
            }
            fn on_loss_totals(&mut self, delivered: u64, lost: u64) {
                match self { $(Controller::$variant(c) => c.on_loss_totals(delivered, lost),)+ Controller::Custom(c) => c.on_loss_totals(delivered, lost) }
            }
            fn on_established(&mut self, window: &mut Window, now: Time, rtt: Option<Time>, srtt: Option<f64>) {
                match self { $(Controller::$variant(c) => c.on_established(window, now, rtt, srtt),)+ Controller::Custom(c) => c.on_established(window, now, rtt, srtt) }
            }
        }
    };
}

algorithms! {
    /// Standard TCP = TCP(1, 0.5).
    "reno" => Reno(reno::RenoConfig),
    /// TCP(α, β) / GAIMD.
    "aimd" => Aimd(AimdConfig),
    /// Multi-rate AIMD (Psaras et al.).
    "mraimd" => Mraimd(MrAimdConfig),
    /// TCP Westwood family (Wang et al., ICNP 2002) and Linux's Westwood+.
    "westwood-be" => WestwoodBe(WestwoodBeConfig),
    "westwood-re" => WestwoodRe(WestwoodReConfig),
    "westwood-crb" => WestwoodCrb(WestwoodCrbConfig),
    "westwood-abse" => WestwoodAbse(WestwoodAbseConfig),
    "westwood-plus" => WestwoodPlus(WestwoodPlusConfig),
    /// Binomial controls (Bansal & Balakrishnan 2001): a/w^k up, b·w^l down.
    "binomial" => Binomial(BinomialConfig),
    /// Binomial k = l = ½.
    "sqrt" => Sqrt(binomial::SqrtConfig),
    /// Binomial k = 1, l = 0.
    "iiad" => Iiad(binomial::IiadConfig),
    /// TCP(1/b) of the SlowCC study: TCP(4(2/b − 1/b²)/3, 1 − 1/b).
    "tcp(1/b)" => TcpInverse(TcpInverseConfig),
    /// SQRT(1/b): binomial k = l = ½ with decrease 1/b and the TCP-compatible increase.
    "sqrt(1/b)" => SqrtInverse(SqrtInverseConfig),
    /// CUBIC (RFC 9438) with HyStart and fast convergence.
    "cubic" => Cubic(cubic::CubicConfig),
    /// TCP Vegas (Brakmo & Peterson 1995): α = 2, β = 4 segments queued.
    "vegas" => Vegas(vegas::VegasConfig),
    /// DCTCP (RFC 8257): ECN-capable, a cut by the smoothed marked fraction.
    "dctcp" => Dctcp(dctcp::DctcpConfig),
    /// BBR v1 (Cardwell et al. 2016, Linux tcp_bbr.c): a paced model of the path.
    "bbr" => Bbr(bbr::BbrConfig),
    /// TCP Prague (RFC 9331, L4STeam tcp_prague.c): L4S (ECT(1), AccECN), DCTCP-like.
    "prague" => Prague(prague::PragueConfig),
    /// BBRv3 (google/bbr v3, draft-ietf-ccwg-bbr): BBR with loss/ECN bounds on in-flight data.
    "bbr3" => Bbr3(bbr3::Bbr3Config),
    /// HighSpeed TCP (RFC 3649), as ns-3.44's TcpHighSpeed.
    "highspeed" => HighSpeed(highspeed::HighSpeedConfig),
    /// Scalable TCP (Kelly 2003), as ns-3.44's TcpScalable.
    "scalable" => Scalable(scalable::ScalableConfig),
    /// BIC TCP (Xu, Harfoush & Rhee 2004), as ns-3.44's TcpBic.
    "bic" => Bic(bic::BicConfig),
    /// H-TCP (Leith & Shorten 2004, draft-leith-tcp-htcp-06), as ns-3.44's TcpHtcp.
    "htcp" => Htcp(htcp::HtcpConfig),
    /// TCP Hybla (Caini & Firrincieli 2004), as ns-3.44's TcpHybla.
    "hybla" => Hybla(hybla::HyblaConfig),
    /// TCP Veno (Fu & Liew 2003), with ns-3.44's TcpVeno defaults.
    "veno" => Veno(veno::VenoConfig),
    /// TCP-Illinois (Liu, Başar & Srikant 2006), as ns-3.44's TcpIllinois.
    "illinois" => Illinois(illinois::IllinoisConfig),
    /// YeAH-TCP (Baiocchi, Castellani & Vacirca 2007), as ns-3.44's TcpYeah.
    "yeah" => Yeah(yeah::YeahConfig),
    /// LEDBAT (RFC 6817), a scavenger, as ns-3.44's TcpLedbat.
    "ledbat" => Ledbat(ledbat::LedbatConfig),
    /// TCP-LP (Kuzmanovic & Knightly 2003), a low-priority scavenger, as ns-3.44's TcpLp.
    "lp" => Lp(lp::LpConfig),
    /// Written in Python: the front end supplies each flow's controller.
    "python" => External(external::ExternalConfig),
    /// Driven by an environment between steps (cclab.gym): Aurora's rate change, Orca's
    /// multiplier on a base algorithm, a direct window or pacing rate.
    "agent" => Agent(agent::AgentConfig),
}

/// The slowness parameter b of TCP(1/b) and SQRT(1/b): the decrease is 1/b.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InverseB {
    pub b: f64,
    #[serde(default)]
    pub decrease: aimd::DecreaseStyle,
}

impl InverseB {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.b.is_finite() && self.b > 1.0 && self.b <= 1e6) {
            return Err(("b", format!("{} is outside (1, 1e6] (the decrease is 1/b)", crate::schema::Num(self.b))));
        }
        Ok(())
    }
}

/// `{ algorithm = "tcp(1/b)", b }`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(transparent)]
pub struct TcpInverseConfig(pub InverseB);

impl Algorithm for TcpInverseConfig {
    type Controller = Aimd;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        self.0.validate()
    }
    fn build(&self) -> Aimd {
        // Yang & Lam's TCP-friendly α = 4(1 − β²)/3 with β = 1 − 1/b, i.e. 4(2/b − 1/b²)/3.
        let beta = 1.0 - 1.0 / self.0.b;
        let mut aimd = Aimd::with_label(aimd::friendly_alpha(beta), beta, format!("tcp(1/{})", crate::schema::Num(self.0.b)));
        aimd.decrease = self.0.decrease;
        aimd
    }
}

/// `{ algorithm = "sqrt(1/b)", b }`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(transparent)]
pub struct SqrtInverseConfig(pub InverseB);

impl Algorithm for SqrtInverseConfig {
    type Controller = Binomial;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        self.0.validate()
    }
    fn build(&self) -> Binomial {
        BinomialConfig::sqrt_inverse(self.0.b, self.0.decrease).build(format!("sqrt(1/{})", crate::schema::Num(self.0.b)))
    }
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::Reno(reno::RenoConfig::default())
    }
}

impl CcConfig {
    pub fn label(&self) -> String {
        self.build().label()
    }

}

/// Parse an algorithm's parameters and check their ranges; errors name the field.
fn validated<T: Algorithm>(params: serde_json::Value) -> Result<T, String> {
    let config: T = parse_params(params)?;
    config.validate().map_err(|(field, msg)| crate::schema::nested_error(field, &msg))?;
    Ok(config)
}

impl<'de> Deserialize<'de> for CcConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_tagged(
            d,
            "algorithm",
            "an algorithm name such as \"reno\", or { algorithm = \"aimd\", alpha = 0.31, beta = 0.875 }",
            CcConfig::from_parts,
        )
    }
}
