//! TFRC, TCP-Friendly Rate Control (RFC 5348), as its own sender and receiver endpoints:
//! a rate-based sender paced at the allowed rate X, and a receiver that measures the
//! loss event rate p and the receive rate and feeds them back once per RTT.
//!
//! Two profiles, chosen with `tfrc.profile`:
//! * `rfc5348` (the default): the RFC as written — NDUPACK = 3, t_RTO = 4R, RTT
//!   smoothing q = 0.9, the nofeedback timer max(4R, 2s/X) with §4.4's limits, the
//!   receive-rate limit over the last two RTTs of reports, slow start doubling once per
//!   RTT up to twice the receive rate, W_init = min(4s, max(2s, 4380 B)).
//! * `ns2`: ns-2.35's `Agent/TFRC` + `Agent/TFRCSink` with their defaults (see
//!   `docs/tfrc-ns2.md` for each, read off ns-2 itself): history discounting on, a gap
//!   is a loss after one later packet, t_RTO from a TCP-style RTO on a 0.1 s clock, the
//!   nofeedback timer max(2R, 2s/X) halving the rate, increases limited per report, the
//!   rate capped at min(2·X_recv, equation), `df_ 0.95` RTT averaging, `ca_ 1` spacing
//!   scaled by √(sample RTT / mean RTT), the first interval after slow start made up
//!   from the receive rate, four packets per RTT after the first report.
//!
//! The RFC is the default because it is the specification a protocol designer cites and
//! the one the project's other defaults follow (TCP is RFC-faithful unless
//! `profile = "ns2"`); the SlowCC reproduction, whose paper used ns-2, asks for `ns2`.
//!
//! TFRC(b) in the SlowCC study is TFRC averaging over b loss intervals: `intervals = b`.
pub mod equation;
pub mod loss_history;
pub mod receiver;
pub mod sender;

pub use receiver::TfrcReceiver;
pub use sender::TfrcSender;

use crate::schema::named_choice;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// What a TFRC data packet carries besides its payload (RFC 5348 §3.2.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TfrcData {
    pub seq: u32,
    /// Reports the sender has acted on (ns-2 `round_id`: a new loss event needs a newer
    /// round than the last one's).
    pub round: u32,
    /// When the sender sent it (echoed back for the RTT measurement).
    pub sent_at: Time,
    /// The sender's RTT estimate in ns (0 before it has one): the receiver groups losses
    /// within one RTT into a loss event and feeds back once per RTT.
    pub rtt: Time,
    /// The sender's t_RTO in ns (ns-2's receiver inverts the equation with it).
    pub t_rto: Time,
    /// Report at once (ns-2 `UrgentFlag`: the first packet, and after a nofeedback expiry).
    pub urgent: bool,
}

/// A receiver report (RFC 5348 §3.2.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// `sent_at` of the newest data packet received.
    pub echo_sent_at: Time,
    /// Time between that packet's arrival and this report.
    pub delay: Time,
    /// X_recv: bytes/s received over the last feedback interval.
    pub receive_rate: f64,
    /// p.
    pub loss_event_rate: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    #[default]
    Rfc5348,
    Ns2,
}

named_choice!(Profile, "profile", [Rfc5348 => "rfc5348", Ns2 => "ns2"]);

/// `tfrc = { ... }` in a flow group. Unset fields take the profile's value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TfrcConfig {
    /// "rfc5348" (default) or "ns2"; a scenario's top-level `profile = "ns2"` sets it for
    /// groups that do not (filled in when the scenario is normalised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// Loss intervals averaged (n of RFC 5348 §5.4; TFRC(b) has b). Default 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<u32>,
    /// History discounting (§5.5). Default: off for rfc5348, on for ns2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discounting: Option<bool>,
    /// Packets that must arrive after a gap before it counts as lost (NDUPACK, §5.1).
    /// Default: 3 for rfc5348, 1 for ns2 (`numPkts_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ndupack: Option<u32>,
    /// Send ECN-capable packets (RED marks instead of dropping); a mark counts as a loss.
    #[serde(default)]
    pub ecn: bool,
}

/// The largest n: the receiver keeps n intervals and sums them per report.
pub const MAX_INTERVALS: u32 = 4096;

impl TfrcConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if let Some(n) = self.intervals {
            if !(1..=MAX_INTERVALS).contains(&n) {
                return Err(("intervals", format!("{n} is outside [1, {MAX_INTERVALS}]")));
            }
        }
        if let Some(n) = self.ndupack {
            if !(1..=100).contains(&n) {
                return Err(("ndupack", format!("{n} is outside [1, 100]")));
            }
        }
        Ok(())
    }

    pub fn intervals(&self) -> u32 {
        self.intervals.unwrap_or(8)
    }

    pub fn profile(&self) -> Profile {
        self.profile.unwrap_or_default()
    }

    pub fn discounting(&self) -> bool {
        self.discounting.unwrap_or(self.profile() == Profile::Ns2)
    }

    pub fn label(&self) -> String {
        let profile = match self.profile() {
            Profile::Rfc5348 => "",
            Profile::Ns2 => ",ns2",
        };
        format!("tfrc({}{profile})", self.intervals())
    }

    pub fn receiver_rules(&self, packet_bytes: u32) -> ReceiverRules {
        let ns2 = self.profile() == Profile::Ns2;
        ReceiverRules {
            intervals: self.intervals() as usize,
            discounting: self.discounting(),
            min_discount: 0.5,
            ndupack: self.ndupack.unwrap_or(if ns2 { 1 } else { 3 }),
            ns2,
            packet_bytes: packet_bytes as f64,
        }
    }

    pub fn sender_rules(&self, packet_bytes: u32) -> SenderRules {
        let ns2 = self.profile() == Profile::Ns2;
        SenderRules { packet_bytes: packet_bytes as f64, ns2, ecn: self.ecn }
    }
}

/// The receiver's parameters, resolved from the profile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReceiverRules {
    pub intervals: usize,
    pub discounting: bool,
    /// The floor of the general discount factor (RFC 5348 §5.5 and ns-2: 0.5).
    pub min_discount: f64,
    pub ndupack: u32,
    /// ns-2's receiver (docs/tfrc-ns2.md §3) instead of RFC 5348 §5–6.
    pub ns2: bool,
    /// s, for the equation's inverse.
    pub packet_bytes: f64,
}

/// The sender's parameters, resolved from the profile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderRules {
    pub packet_bytes: f64,
    pub ns2: bool,
    pub ecn: bool,
}

