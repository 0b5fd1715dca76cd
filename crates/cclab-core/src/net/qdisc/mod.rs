//! Queue disciplines: what a link does with the packets waiting for its transmitter.
//! Every discipline answers what becomes of an arriving packet (admit, mark, drop:
//! [`Verdict`]) and which packet goes next; they come in three kinds:
//!
//! - the plain FIFO (`droptail`): the link's packet (and byte) limit alone;
//! - decided at admission ([`AdmissionDiscipline`]): RED ([`red`]), PIE ([`pie`], whose
//!   periodic update runs lazily on arrivals) and `step_mark` ([`step_mark`], DCTCP's
//!   switch). The queue stays a FIFO of fixed rate, so a packet's transmission times are
//!   known when it is admitted: these links keep the link's fast path and its
//!   pass-through shortcut (`net::link`).
//! - decided at dequeue ([`DequeueDiscipline`]): CoDel ([`codel`]) and FQ-CoDel
//!   ([`fq_codel`]). A link with one holds its waiting packets in the discipline; the
//!   transmitter takes the next when it is free (the engine's transmit-complete event),
//!   so a drop at dequeue or another flow's turn changes when the packets behind go.
//!
//! A scenario names one per link direction: [`QueueSpec`]. The link's `buffer` is the
//! limit for every kind, counting the packet being sent (as ns-2's DropTail): a
//! dequeue-time discipline holds at most `buffer − 1` waiting.
//!
//! A discipline is one file — its spec (the scenario form: serde, with the range checks
//! of [`DisciplineSpec`]) and what it builds for a link ([`AdmissionSpec`] or
//! [`DequeueSpec`]) — and one line of the registry ([`disciplines!`], at the end of this
//! file), which generates [`QueueSpec`], its parsing and the statically dispatched
//! [`AdmissionAqm`] and [`DequeueAqm`].
pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod step_mark;

use crate::net::LinkId;
use crate::schema::{deserialize_tagged, nested_error, parse_params, unknown_variant};
use crate::sim::rng::{stream, RngStream, AQM_STREAMS};
use crate::sim::{Duration, Rate, Time};
use serde::{Deserialize, Deserializer, Serialize};

/// A queue discipline's scenario form: `queue = { kind = NAME, ...its fields }`.
pub trait DisciplineSpec: Serialize + serde::de::DeserializeOwned + Clone + Copy + std::fmt::Debug + PartialEq {
    /// The spec from its table's fields (all but `kind`); errors name the field.
    fn parse(params: serde_json::Value) -> Result<Self, String> {
        parse_params(params)
    }
    /// Err((field, message)) for a parameter out of range.
    fn validate(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }
}

/// What an admission-time discipline is built for: its link direction.
#[derive(Clone, Copy, Debug)]
pub struct LinkContext {
    pub rate: Rate,
    /// Propagation delay, ns.
    pub delay: Time,
    /// The packet limit, counting the packet being sent.
    pub buffer: u32,
}

/// A discipline decided at admission: its spec builds it for a link.
pub trait AdmissionSpec: DisciplineSpec {
    type Discipline: AdmissionDiscipline;
    /// The family of random streams the discipline draws from (one per link direction).
    const STREAMS: u64 = AQM_STREAMS;
    fn build(&self, link: &LinkContext, rng: RngStream) -> Self::Discipline;
}

/// A discipline decided at dequeue: its spec builds it holding at most `limit` packets,
/// with its own random stream (one per link direction; unused by the deterministic ones).
pub trait DequeueSpec: DisciplineSpec {
    /// The discipline holding packets of type `P` (a [`DequeueDiscipline<P>`] for every
    /// `P: QueueItem`).
    type Discipline<P>;
    fn build<P: QueueItem>(&self, limit: u32, rng: RngStream) -> Self::Discipline<P>;
}

/// A positive duration no longer than a day (a discipline's timescale).
pub fn check_duration(field: &'static str, value: Duration) -> Result<(), (&'static str, String)> {
    if value.ns() == 0 || value.ns() > 86_400_000_000_000 {
        return Err((field, format!("{value} is not a duration in (0s, 86400s]")));
    }
    Ok(())
}

/// What an admission-time discipline decides for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Admit,
    /// Admit with Congestion Experienced set (the packet is ECN-capable).
    Mark,
    Drop,
}

/// An arriving packet and the FIFO it finds, as an admission-time discipline sees them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Arrival {
    pub now: Time,
    /// When the transmitter is free of everything admitted so far.
    pub busy_until: Time,
    /// Packets waiting (not counting the one being sent).
    pub waiting: u32,
    /// Bytes of the packets waiting (only for a discipline that counts bytes:
    /// [`AdmissionDiscipline::counts_bytes`]; 0 otherwise).
    pub waiting_bytes: u64,
    /// A packet is being sent.
    pub busy: bool,
    /// The arriving packet's bytes on the wire.
    pub bytes: u32,
    /// The arriving packet is ECN-capable.
    pub ect: bool,
}

/// A discipline decided at admission, over a FIFO of fixed rate. It counts what it
/// drops and marks itself (the link counts every drop in its queue drops too).
pub trait AdmissionDiscipline {
    fn judge(&mut self, arrival: &Arrival) -> Verdict;
    /// Whether [`Self::judge`] reads [`Arrival::waiting_bytes`].
    fn counts_bytes(&self) -> bool {
        false
    }
    /// Whether the link's packet limit applies too (RED in byte mode limits the bytes
    /// waiting itself).
    fn packet_limit(&self) -> bool {
        true
    }
    /// Packets it marked CE.
    fn marks(&self) -> u64;
    /// Packets it dropped by its law (early), as opposed to its buffer being full.
    fn drops(&self) -> u64;
}

/// A discipline decided at dequeue: it holds the waiting packets.
pub trait DequeueDiscipline<P: QueueItem> {
    /// Queue `packet` at `now`; packets dropped to make room (it, or others) go to `dropped`.
    fn enqueue(&mut self, now: Time, packet: P, dropped: &mut Vec<P>);
    /// The next packet to send at `now`; packets dropped on the way go to `dropped`.
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>>;
    /// Packets and bytes waiting.
    fn len(&self) -> usize;
    fn bytes(&self) -> u64;
    /// Packets dropped at dequeue (by the discipline's law, not for room) and marked.
    fn law_drops(&self) -> u64;
    fn marks(&self) -> u64;
    /// The waiting packets, in no particular order.
    fn packets(&self) -> Box<dyn Iterator<Item = &P> + '_>;
    /// Statistics of its internal queues, for a discipline with several (DualPI2's L and
    /// C queues); none by default.
    fn queue_stats(&self) -> Vec<QueueStats> {
        Vec::new()
    }
}

/// One internal queue of a discipline, over the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueueStats {
    /// The queue's name ("L", "C").
    pub name: &'static str,
    /// Packets sent from it.
    pub packets: u64,
    /// Mean time its sent packets waited, ms.
    pub mean_delay_ms: f64,
    /// The largest such wait, ms.
    pub max_delay_ms: f64,
    /// Packets it marked CE, and dropped (by its law or for room).
    pub marks: u64,
    pub drops: u64,
}

/// A packet as a discipline sees it.
pub trait QueueItem: Copy {
    /// Bytes on the wire.
    fn bytes(&self) -> u32;
    /// The flow it belongs to (FQ-CoDel's hash key).
    fn flow_key(&self) -> u32;
    /// ECN-capable: may be marked instead of dropped.
    fn ect(&self) -> bool;
    /// Set Congestion Experienced.
    fn mark_ce(&mut self);
    /// Carries the L4S identifier (ECT(1), RFC 9331) or CE: DualPI2's L queue takes it.
    fn l4s(&self) -> bool {
        false
    }
}

/// The packet a dequeue-time discipline sends next, whether to mark it, and when it
/// was queued (for the link's queueing delay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequeued<P> {
    pub packet: P,
    pub mark_ce: bool,
    pub enqueued: Time,
}

/// A spec as a scenario writes it: `{ kind = NAME, ...its fields }`.
#[derive(Serialize)]
struct Tagged<'a, T: Serialize> {
    kind: &'static str,
    #[serde(flatten)]
    spec: &'a T,
}

/// The registry: one line per discipline — its name in scenarios, the variant that
/// carries it and its spec type — in the group of its kind (`fifo`, `admission`,
/// `dequeue`). It generates the scenario enum [`QueueSpec`] (the first `fifo` line is
/// the default), its parsing and serialisation, the name table [`KINDS`], and the
/// statically dispatched [`AdmissionAqm`] and [`DequeueAqm`].
macro_rules! disciplines {
    (
        fifo { $($(#[doc = $fdoc:literal])* $fname:literal => $fvariant:ident($fspec:ty),)+ }
        admission { $($(#[doc = $adoc:literal])* $aname:literal => $avariant:ident($aspec:ty),)+ }
        dequeue { $($(#[doc = $ddoc:literal])* $dname:literal => $dvariant:ident($dspec:ty),)+ }
    ) => {
        /// `queue = "droptail"` (default), `"red"`, `"codel"`, ..., or a table naming one
        /// with its parameters: `{ kind = "codel", target = "5ms" }`.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum QueueSpec {
            $($(#[doc = $fdoc])* $fvariant($fspec),)+
            $($(#[doc = $adoc])* $avariant($aspec),)+
            $($(#[doc = $ddoc])* $dvariant($dspec),)+
        }

        /// Every discipline's name in scenarios.
        pub const KINDS: &[&str] = &[$($fname,)+ $($aname,)+ $($dname,)+];

        impl QueueSpec {
            /// The discipline's name in scenarios.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(QueueSpec::$fvariant(_) => $fname,)+
                    $(QueueSpec::$avariant(_) => $aname,)+
                    $(QueueSpec::$dvariant(_) => $dname,)+
                }
            }

            /// Whether the discipline decides at dequeue (the link needs transmit-complete events).
            pub fn dequeues(&self) -> bool {
                match self {
                    $(QueueSpec::$dvariant(_) => true,)+
                    _ => false,
                }
            }

            /// The admission-time discipline of link direction `link` (its own random
            /// stream from `seed`), if the spec is one.
            pub fn admission(&self, context: &LinkContext, seed: u64, link: LinkId) -> Option<AdmissionAqm> {
                match self {
                    $(QueueSpec::$avariant(spec) => Some(AdmissionAqm::$avariant(AdmissionSpec::build(
                        spec,
                        context,
                        stream(seed, <$aspec as AdmissionSpec>::STREAMS + link as u64),
                    ))),)+
                    _ => None,
                }
            }

            /// The dequeue-time discipline of link direction `link`, holding at most
            /// `limit` packets (its own random stream from `seed`), if the spec is one.
            pub fn dequeue<P: QueueItem>(&self, limit: u32, seed: u64, link: LinkId) -> Option<DequeueAqm<P>> {
                match self {
                    $(QueueSpec::$dvariant(spec) => Some(DequeueAqm::$dvariant(DequeueSpec::build(spec, limit, stream(seed, AQM_STREAMS + link as u64)))),)+
                    _ => None,
                }
            }

            fn from_parts(kind: &str, params: serde_json::Value) -> Result<QueueSpec, String> {
                match kind {
                    $($fname => checked::<$fspec>(params).map(QueueSpec::$fvariant),)+
                    $($aname => checked::<$aspec>(params).map(QueueSpec::$avariant),)+
                    $($dname => checked::<$dspec>(params).map(QueueSpec::$dvariant),)+
                    other => Err(unknown_variant("kind", other, KINDS)),
                }
            }
        }

        impl Default for QueueSpec {
            fn default() -> Self {
                disciplines!(@first_fifo $($fvariant($fspec))+)
            }
        }

        impl Serialize for QueueSpec {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(QueueSpec::$fvariant(spec) => Tagged { kind: $fname, spec }.serialize(s),)+
                    $(QueueSpec::$avariant(spec) => Tagged { kind: $aname, spec }.serialize(s),)+
                    $(QueueSpec::$dvariant(spec) => Tagged { kind: $dname, spec }.serialize(s),)+
                }
            }
        }

        /// The admission-time disciplines, statically dispatched.
        #[derive(Clone, Debug)]
        pub enum AdmissionAqm {
            $($avariant(<$aspec as AdmissionSpec>::Discipline),)+
        }

        impl AdmissionDiscipline for AdmissionAqm {
            #[inline]
            fn judge(&mut self, arrival: &Arrival) -> Verdict {
                match self { $(AdmissionAqm::$avariant(d) => AdmissionDiscipline::judge(d, arrival),)+ }
            }
            fn counts_bytes(&self) -> bool {
                match self { $(AdmissionAqm::$avariant(d) => AdmissionDiscipline::counts_bytes(d),)+ }
            }
            fn packet_limit(&self) -> bool {
                match self { $(AdmissionAqm::$avariant(d) => AdmissionDiscipline::packet_limit(d),)+ }
            }
            fn marks(&self) -> u64 {
                match self { $(AdmissionAqm::$avariant(d) => AdmissionDiscipline::marks(d),)+ }
            }
            fn drops(&self) -> u64 {
                match self { $(AdmissionAqm::$avariant(d) => AdmissionDiscipline::drops(d),)+ }
            }
        }

        /// The dequeue-time disciplines, statically dispatched.
        #[derive(Clone, Debug)]
        pub enum DequeueAqm<P> {
            $($dvariant(<$dspec as DequeueSpec>::Discipline<P>),)+
        }

        impl<P: QueueItem> DequeueDiscipline<P> for DequeueAqm<P> {
            fn enqueue(&mut self, now: Time, packet: P, dropped: &mut Vec<P>) {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::enqueue(q, now, packet, dropped),)+ }
            }
            fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>> {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::dequeue(q, now, dropped),)+ }
            }
            fn len(&self) -> usize {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::len(q),)+ }
            }
            fn bytes(&self) -> u64 {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::bytes(q),)+ }
            }
            fn law_drops(&self) -> u64 {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::law_drops(q),)+ }
            }
            fn marks(&self) -> u64 {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::marks(q),)+ }
            }
            fn packets(&self) -> Box<dyn Iterator<Item = &P> + '_> {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::packets(q),)+ }
            }
            fn queue_stats(&self) -> Vec<QueueStats> {
                match self { $(DequeueAqm::$dvariant(q) => DequeueDiscipline::queue_stats(q),)+ }
            }
        }
    };
    (@first_fifo $variant:ident($spec:ty) $($rest:tt)*) => {
        QueueSpec::$variant(<$spec>::default())
    };
}

/// Parse a discipline's parameters and check their ranges; errors name the field.
fn checked<T: DisciplineSpec>(params: serde_json::Value) -> Result<T, String> {
    let spec = T::parse(params)?;
    spec.validate().map_err(|(field, msg)| nested_error(field, &msg))?;
    Ok(spec)
}

impl<'de> Deserialize<'de> for QueueSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_tagged(
            d,
            "kind",
            "\"droptail\", \"red\", \"codel\", \"fq_codel\", \"pie\", \"dualpi2\" or { kind = \"step_mark\", threshold = 20 }",
            QueueSpec::from_parts,
        )
    }
}

disciplines! {
    fifo {
        /// A FIFO with the link's packet (`buffer`) and optional byte (`buffer_bytes`) limit.
        "droptail" => Droptail(droptail::DroptailSpec),
    }
    admission {
        /// Random Early Detection, ns-2.35's `Queue/RED`.
        "red" => Red(red::RedSpec),
        /// PIE (RFC 8033).
        "pie" => Pie(pie::PieSpec),
        /// DCTCP's marking switch (RFC 8257 §3.1).
        "step_mark" => StepMark(step_mark::StepMarkSpec),
    }
    dequeue {
        /// CoDel (RFC 8289).
        "codel" => Codel(codel::CodelSpec),
        /// FQ-CoDel (RFC 8290).
        "fq_codel" => FqCodel(fq_codel::FqCodelSpec),
        /// DualPI2, the coupled L4S dual queue (RFC 9332; Linux sch_dualpi2.c).
        "dualpi2" => DualPi2(dualpi2::DualPi2Spec),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A test packet: (flow, bytes, ECT), and CE once marked.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Item {
        flow: u32,
        bytes: u32,
        ect: bool,
        pub ce: bool,
    }

    impl Item {
        pub fn new(flow: u32, bytes: u32, ect: bool) -> Item {
            Item { flow, bytes, ect, ce: false }
        }
    }

    impl QueueItem for Item {
        fn bytes(&self) -> u32 {
            self.bytes
        }
        fn flow_key(&self) -> u32 {
            self.flow
        }
        fn ect(&self) -> bool {
            self.ect
        }
        fn mark_ce(&mut self) {
            self.ce = true;
        }
    }

    fn parse(toml_text: &str) -> Result<QueueSpec, String> {
        #[derive(Deserialize)]
        struct Wrap {
            #[allow(dead_code)]
            queue: QueueSpec,
        }
        toml::from_str::<Wrap>(toml_text).map(|w| w.queue).map_err(|e| e.message().to_string())
    }

    #[test]
    fn specs_parse_with_defaults_and_name_bad_fields() {
        assert_eq!(parse("queue = \"codel\"").unwrap(), QueueSpec::Codel(codel::CodelSpec::default()));
        assert_eq!(parse("queue = \"droptail\"").unwrap(), QueueSpec::default());
        let QueueSpec::FqCodel(fq) = parse("queue = { kind = \"fq_codel\", quantum = \"300B\" }").unwrap() else { panic!() };
        assert_eq!((fq.quantum, fq.flows, fq.ecn, fq.target.ns()), (300, 1024, true, 5_000_000));
        let QueueSpec::Pie(pie) = parse("queue = { kind = \"pie\", target = \"20ms\" }").unwrap() else { panic!() };
        assert_eq!((pie.target.ns(), pie.tupdate.ns()), (20_000_000, 15_000_000));
        assert_eq!(parse("queue = { kind = \"step_mark\", threshold = 20 }").unwrap(),
                   QueueSpec::StepMark(step_mark::StepMarkSpec { threshold: 20 }));
        for (text, needle) in [
            ("queue = \"codle\"", "unknown kind \"codle\""),
            ("queue = { kind = \"droptail\", limit = 5 }", "\"droptail\" has no parameters"),
            ("queue = { kind = \"codel\", target = \"0ms\" }", "target"),
            ("queue = { kind = \"codel\", interval = -1 }", "interval"),
            ("queue = { kind = \"fq_codel\", quantum = 0 }", "quantum"),
            ("queue = { kind = \"fq_codel\", quantum = 1514 }", "1514 has no unit"),
            ("queue = { kind = \"fq_codel\", flows = 100000 }", "flows"),
            ("queue = { kind = \"pie\", alpha = -0.1 }", "alpha"),
            ("queue = { kind = \"pie\", beta = nan }", "beta"),
            ("queue = \"step_mark\"", "threshold"),
            ("queue = { kind = \"step_mark\", threshold = -3 }", "threshold"),
            ("queue = { kind = \"codel\", traget = \"5ms\" }", "traget"),
        ] {
            let error = parse(text).expect_err(text);
            assert!(error.contains(needle), "{text}: {error}");
        }
    }

    #[test]
    fn every_kind_serialises_to_a_table_that_parses_back_to_it() {
        for kind in KINDS {
            let text = if *kind == "step_mark" { "queue = { kind = \"step_mark\", threshold = 7 }".to_string() } else { format!("queue = \"{kind}\"") };
            let spec = parse(&text).unwrap();
            assert_eq!(spec.kind(), *kind);
            let table = serde_json::to_value(spec).unwrap();
            assert_eq!(table["kind"], *kind);
            assert_eq!(serde_json::from_value::<QueueSpec>(table).unwrap(), spec);
        }
    }
}
