//! Queue disciplines: what a link does with the packets waiting for its transmitter.
//! Every discipline answers what becomes of an arriving packet (admit, mark, drop:
//! [`Verdict`]) and which packet goes next; they come in two kinds:
//!
//! - decided at admission ([`AdmissionDiscipline`]): DropTail, RED (`net::red`),
//!   `step_mark` (DCTCP's switch) and PIE ([`pie`], whose periodic update runs lazily on
//!   arrivals). The queue stays a FIFO of fixed rate, so a packet's transmission times
//!   are known when it is admitted: these links keep the link's fast path and its
//!   pass-through shortcut (`net::link`).
//! - decided at dequeue ([`DequeueDiscipline`]): CoDel ([`codel`]) and FQ-CoDel
//!   ([`fq_codel`]). A link with one holds its waiting packets in the discipline; the
//!   transmitter takes the next when it is free (the engine's transmit-complete event,
//!   `Event::LinkDequeue`), so a drop at dequeue or another flow's turn changes when the
//!   packets behind go.
//!
//! A scenario names one per link direction: [`QueueSpec`]. The link's `buffer` is the
//! limit for every kind, counting the packet being sent (as ns-2's DropTail): a
//! dequeue-time discipline holds at most `buffer − 1` waiting.
pub mod codel;
pub mod fq_codel;
pub mod pie;

use crate::net::red::RedSpec;
use crate::schema::{deserialize_tagged, nested_error, parse_params, unknown_variant, Num};
use crate::sim::rng::RngStream;
use crate::sim::{Duration, Time};
use codel::{Codel, CodelParams};
use fq_codel::FqCodel;
use pie::{Pie, PieParams};
use serde::{Deserialize, Deserializer, Serialize};

/// `queue = "droptail"` (default), `"red"`, `"codel"`, `"fq_codel"`, `"pie"`, or a table
/// naming one with its parameters: `{ kind = "codel", target = "5ms" }`,
/// `{ kind = "step_mark", threshold = 20 }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueSpec {
    #[default]
    Droptail,
    Red(RedSpec),
    Codel(CodelSpec),
    FqCodel(FqCodelSpec),
    Pie(PieSpec),
    StepMark(StepMarkSpec),
}

const KINDS: [&str; 6] = ["droptail", "red", "codel", "fq_codel", "pie", "step_mark"];

impl<'de> Deserialize<'de> for QueueSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_tagged(d, "kind", "\"droptail\", \"red\", \"codel\", \"fq_codel\", \"pie\" or { kind = \"step_mark\", threshold = 20 }", |kind, params| {
            let checked = |result: Result<(), (&str, String)>| result.map_err(|(field, msg)| nested_error(field, &msg));
            match kind {
                "droptail" => crate::schema::no_params(params, "droptail").map(|()| QueueSpec::Droptail),
                "red" => {
                    let spec: RedSpec = parse_params(params)?;
                    checked(spec.validate()).map(|()| QueueSpec::Red(spec))
                }
                "codel" => {
                    let spec: CodelSpec = parse_params(params)?;
                    checked(spec.validate()).map(|()| QueueSpec::Codel(spec))
                }
                "fq_codel" => {
                    let spec: FqCodelSpec = parse_params(params)?;
                    checked(spec.validate()).map(|()| QueueSpec::FqCodel(spec))
                }
                "pie" => {
                    let spec: PieSpec = parse_params(params)?;
                    checked(spec.validate()).map(|()| QueueSpec::Pie(spec))
                }
                "step_mark" => parse_params(params).map(QueueSpec::StepMark),
                other => Err(unknown_variant("kind", other, &KINDS)),
            }
        })
    }
}

impl QueueSpec {
    /// Whether the discipline decides at dequeue (the link needs transmit-complete events).
    pub fn dequeues(&self) -> bool {
        matches!(self, QueueSpec::Codel(_) | QueueSpec::FqCodel(_))
    }
}

/// A positive duration no longer than a day (a discipline's timescale).
fn check_duration(field: &'static str, value: Duration) -> Result<(), (&'static str, String)> {
    if value.ns() == 0 || value.ns() > 86_400_000_000_000 {
        return Err((field, format!("{value} is not a duration in (0s, 86400s]")));
    }
    Ok(())
}

/// CoDel (RFC 8289): `target` and `interval` as RFC 8289 §4.3–4.4 recommend for the
/// Internet (5 ms, 100 ms); `ecn` marks ECN-capable packets instead of dropping them
/// (Linux's codel default: off).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelSpec {
    pub target: Duration,
    pub interval: Duration,
    pub ecn: bool,
}

impl Default for CodelSpec {
    fn default() -> Self {
        CodelSpec { target: Duration::from_millis(5), interval: Duration::from_millis(100), ecn: false }
    }
}

impl CodelSpec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_duration("target", self.target)?;
        check_duration("interval", self.interval)
    }
}

/// FQ-CoDel (RFC 8290): `flows` hashed queues served by deficit round robin of
/// `quantum` bytes, each under CoDel of `target` / `interval`; `ecn` on as in Linux's
/// fq_codel (RFC 8290 §5.2.7 defaults: 1024 flows, quantum 1514 bytes, one MTU plus the
/// Ethernet header).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelSpec {
    pub target: Duration,
    pub interval: Duration,
    pub ecn: bool,
    /// Bytes served per round; written with its unit (`"1514B"`), like every size.
    #[serde(with = "crate::sim::units::bytes")]
    pub quantum: u32,
    pub flows: u32,
}

impl Default for FqCodelSpec {
    fn default() -> Self {
        let codel = CodelSpec::default();
        FqCodelSpec { target: codel.target, interval: codel.interval, ecn: true, quantum: 1514, flows: 1024 }
    }
}

impl FqCodelSpec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_duration("target", self.target)?;
        check_duration("interval", self.interval)?;
        if !(1..=1_000_000).contains(&self.quantum) {
            return Err(("quantum", format!("{}B is not a size from 1B to 1000000B", self.quantum)));
        }
        if !(1..=65_536).contains(&self.flows) {
            return Err(("flows", format!("{} is not a number of queues from 1 to 65536", self.flows)));
        }
        Ok(())
    }
}

/// PIE (RFC 8033 §4–5 defaults): `target` 15 ms, `tupdate` 15 ms, α 0.125 and β 1.25
/// per second, a 150-ms burst allowance; `ecn` marks while the drop probability is at
/// most 10 % (§5.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PieSpec {
    pub target: Duration,
    pub tupdate: Duration,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Duration,
    pub ecn: bool,
}

impl Default for PieSpec {
    fn default() -> Self {
        PieSpec {
            target: Duration::from_millis(15),
            tupdate: Duration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Duration::from_millis(150),
            ecn: false,
        }
    }
}

impl PieSpec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_duration("target", self.target)?;
        check_duration("tupdate", self.tupdate)?;
        for (field, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value.is_finite() && (0.0..=1000.0).contains(&value)) {
                return Err((field, format!("{} is not a gain in [0, 1000] per second", Num(value))));
            }
        }
        if self.max_burst.ns() > 86_400_000_000_000 {
            return Err(("max_burst", format!("{} is longer than 86400s", self.max_burst)));
        }
        Ok(())
    }
}

/// DCTCP's marking switch (RFC 8257 §3.1): `threshold` (K) in packets, required.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepMarkSpec {
    pub threshold: u32,
}

/// What an admission-time discipline decides for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Admit,
    /// Admit with Congestion Experienced set (the packet is ECN-capable).
    Mark,
    Drop,
}

/// The FIFO an arriving packet finds, as an admission-time discipline sees it.
#[derive(Clone, Copy, Debug)]
pub struct Fifo {
    /// When the transmitter is free of everything admitted so far.
    pub busy_until: Time,
    /// Packets waiting (not counting the one being sent).
    pub waiting: u32,
    /// A packet is being sent.
    pub busy: bool,
}

/// A discipline decided at admission, over a FIFO of fixed rate.
pub trait AdmissionDiscipline {
    fn judge(&mut self, now: Time, queue: Fifo, ect: bool) -> Verdict;
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
}

/// The admission-time disciplines beyond RED, statically dispatched.
#[derive(Clone, Debug)]
pub enum AdmissionAqm {
    StepMark(StepMark),
    Pie(Pie),
}

impl AdmissionAqm {
    /// The discipline of `spec`, if it is one of these; `rng` makes PIE's own stream.
    pub fn of(spec: &QueueSpec, rng: impl FnOnce() -> RngStream) -> Option<AdmissionAqm> {
        match spec {
            QueueSpec::StepMark(step) => Some(AdmissionAqm::StepMark(StepMark { threshold: step.threshold })),
            QueueSpec::Pie(pie) => Some(AdmissionAqm::Pie(Pie::new(
                PieParams {
                    target: pie.target.ns(),
                    tupdate: pie.tupdate.ns(),
                    alpha: pie.alpha,
                    beta: pie.beta,
                    max_burst: pie.max_burst.ns(),
                    ecn: pie.ecn,
                },
                rng(),
            ))),
            _ => None,
        }
    }
}

impl AdmissionDiscipline for AdmissionAqm {
    #[inline]
    fn judge(&mut self, now: Time, queue: Fifo, ect: bool) -> Verdict {
        match self {
            AdmissionAqm::StepMark(step) => step.judge(now, queue, ect),
            AdmissionAqm::Pie(pie) => pie.judge(now, queue, ect),
        }
    }
}

/// The dequeue-time disciplines, statically dispatched.
#[derive(Clone, Debug)]
pub enum DequeueAqm<P> {
    Codel(Codel<P>),
    FqCodel(FqCodel<P>),
}

/// The MTU CoDel's "one packet is never too many" rule assumes (RFC 8289 §5.4's
/// maxpacket; Linux takes the device's, 1500 on Ethernet).
pub const CODEL_MTU: u32 = 1500;

impl<P: QueueItem> DequeueAqm<P> {
    /// The discipline of `spec`, if it decides at dequeue, holding at most `limit` packets.
    pub fn of(spec: &QueueSpec, limit: u32) -> Option<DequeueAqm<P>> {
        let params = |target: Duration, interval: Duration, ecn| CodelParams {
            target: target.ns(),
            interval: interval.ns(),
            ecn,
            mtu: CODEL_MTU,
        };
        match spec {
            QueueSpec::Codel(c) => Some(DequeueAqm::Codel(Codel::new(params(c.target, c.interval, c.ecn), limit))),
            QueueSpec::FqCodel(f) => {
                Some(DequeueAqm::FqCodel(FqCodel::new(params(f.target, f.interval, f.ecn), f.flows, f.quantum, limit)))
            }
            _ => None,
        }
    }
}

impl<P: QueueItem> DequeueDiscipline<P> for DequeueAqm<P> {
    fn enqueue(&mut self, now: Time, packet: P, dropped: &mut Vec<P>) {
        match self {
            DequeueAqm::Codel(q) => {
                if let Err(refused) = q.enqueue(now, packet) {
                    dropped.push(refused);
                }
            }
            DequeueAqm::FqCodel(q) => q.enqueue(now, packet, dropped),
        }
    }
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<P>) -> Option<Dequeued<P>> {
        match self {
            DequeueAqm::Codel(q) => q.dequeue(now, dropped),
            DequeueAqm::FqCodel(q) => q.dequeue(now, dropped),
        }
    }
    fn len(&self) -> usize {
        match self {
            DequeueAqm::Codel(q) => q.len(),
            DequeueAqm::FqCodel(q) => q.len(),
        }
    }
    fn bytes(&self) -> u64 {
        match self {
            DequeueAqm::Codel(q) => q.bytes(),
            DequeueAqm::FqCodel(q) => q.bytes(),
        }
    }
    fn law_drops(&self) -> u64 {
        match self {
            DequeueAqm::Codel(q) => q.law_drops(),
            DequeueAqm::FqCodel(q) => q.law_drops(),
        }
    }
    fn marks(&self) -> u64 {
        match self {
            DequeueAqm::Codel(q) => q.marks(),
            DequeueAqm::FqCodel(q) => q.marks(),
        }
    }
    fn packets(&self) -> Box<dyn Iterator<Item = &P> + '_> {
        match self {
            DequeueAqm::Codel(q) => Box::new(q.packets()),
            DequeueAqm::FqCodel(q) => Box::new(q.packets()),
        }
    }
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
}

/// The packet a dequeue-time discipline sends next, whether to mark it, and when it
/// was queued (for the link's queueing delay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequeued<P> {
    pub packet: P,
    pub mark_ce: bool,
    pub enqueued: Time,
}

/// DCTCP's marking switch (RFC 8257 §3.1): an ECN-capable packet arriving when more than
/// `threshold` packets are queued (the one being sent included) is marked; nothing is
/// dropped but by the buffer's limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepMark {
    pub threshold: u32,
}

impl AdmissionDiscipline for StepMark {
    fn judge(&mut self, _now: Time, queue: Fifo, ect: bool) -> Verdict {
        if ect && queue.waiting + queue.busy as u32 > self.threshold {
            Verdict::Mark
        } else {
            Verdict::Admit
        }
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

    #[test]
    fn step_mark_marks_ect_above_the_threshold_only() {
        let mut step = StepMark { threshold: 20 };
        let fifo = |waiting, busy| Fifo { busy_until: 0, waiting, busy };
        assert_eq!(step.judge(0, fifo(19, true), true), Verdict::Admit, "20 with the one being sent");
        assert_eq!(step.judge(0, fifo(20, true), true), Verdict::Mark);
        assert_eq!(step.judge(0, fifo(21, false), true), Verdict::Mark);
        assert_eq!(step.judge(0, fifo(100, true), false), Verdict::Admit, "not ECN-capable");
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
        assert_eq!(parse("queue = \"codel\"").unwrap(), QueueSpec::Codel(CodelSpec::default()));
        let QueueSpec::FqCodel(fq) = parse("queue = { kind = \"fq_codel\", quantum = \"300B\" }").unwrap() else { panic!() };
        assert_eq!((fq.quantum, fq.flows, fq.ecn, fq.target.ns()), (300, 1024, true, 5_000_000));
        let QueueSpec::Pie(pie) = parse("queue = { kind = \"pie\", target = \"20ms\" }").unwrap() else { panic!() };
        assert_eq!((pie.target.ns(), pie.tupdate.ns()), (20_000_000, 15_000_000));
        assert_eq!(parse("queue = { kind = \"step_mark\", threshold = 20 }").unwrap(),
                   QueueSpec::StepMark(StepMarkSpec { threshold: 20 }));
        for (text, needle) in [
            ("queue = \"codle\"", "unknown kind \"codle\""),
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
}
