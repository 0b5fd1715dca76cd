//! `tcp.profile = "ns2"`: what makes ns-2.35's `Agent/TCP/Sack1` + `Agent/TCPSink/Sack1`
//! (and `Agent/TCP/Newreno` + `Agent/TCPSink` with `recovery = "newreno"`)
//! differ from the RFCs cclab's TCP follows by default, as six behaviours that can be
//! switched one by one (`tcp.ns2 = { tick_clock = false, ... }`). Read off ns-2.35's
//! sources (tcp.cc, tcp-sack1.cc, scoreboard-rq.cc, tcp-sink.cc); docs/ns2-defaults.md has
//! the file and function of each rule.
//!
//! * `tick_clock` — RTT samples count 10-ms `tcpTick_` boundaries on a clock offset by a
//!   per-agent random `boot_time_`; SRTT and RTTVAR are fixed-point integers of ticks
//!   (×8, ×4); RTO = SRTT + 4·RTTVAR with no clock-granularity term, at least two ticks;
//!   past eight back-offs SRTT is folded into RTTVAR (`rtt_update`, `rtt_timeout`,
//!   `rtt_backoff`). And ns-2's clock is a double: a timer that falls due at the same
//!   instant as another event in exact arithmetic (common when the RTO floor, 200 ms, is
//!   a whole number of packet times) fires before or after it as rounding falls, so each
//!   expiry moves by ±1 ns, a seeded coin flip per arming (cclab's integer clock would
//!   always break such ties one way: 29 % fewer timeouts in the mixed case of issue 14).
//! * `integer_ssthresh` — a cut sets ssthresh to the integer part of the new window (at
//!   least 2) and cwnd to the new window itself, which may fall below 2 segments (at least
//!   1); the window is not set to ssthresh when recovery ends (`slowdown`).
//! * `go_back_n` — after a timeout the sender ignores duplicate ACKs and their SACK
//!   blocks until the cumulative ACK advances, and resends from the first unacknowledged
//!   segment whatever the receiver holds (`Sack1TcpAgent::timeout`, `timeout_`).
//! * `sack1_recovery` — Sack1's own fast recovery: a duplicate ACK counts only if its
//!   SACK blocks tell something new; pipe is a counter (outstanding − 3 at entry, −1 per
//!   ACK, −2 per partial ACK, +1 per packet sent, the first retransmission not counted)
//!   and the sender sends while pipe < ⌊cwnd⌋; a hole is resent once it has SACKed data
//!   above it, each hole once per recovery (`ScoreBoardRQ`); limited transmit sends while
//!   the next segment is below snd_una + cwnd + dupacks and nothing else goes out until
//!   the third duplicate; a partial ACK restarts the timer and ends any back-off;
//!   entering recovery stops RTT timing; after a timeout or an ECN reaction no fast
//!   retransmit until the cumulative ACK passes what had been sent then.
//! * `newreno_recovery` — with `recovery = "newreno"`, ns-2's Newreno recovery
//!   (tcp-newreno.cc `recv`, `dupack_action`, `partialnewack`; tcp-reno.cc `window`): the
//!   inflation by duplicate ACKs is kept apart from cwnd (`dupwnd_`, +1 per duplicate
//!   after the third), so the window a cut left is what remains when recovery ends, and
//!   the ACK that ends it opens the window as any new ACK does; while duplicates last at
//!   most two new segments go out per ACK (`send_much(0, 0, 2)`); no fast retransmit
//!   until the cumulative ACK passes the point the last one recovered to (`bug_fix_`,
//!   RFC 2582's careful variant: duplicates of the first segment sent after a recovery
//!   wait for the timer, as after a timeout); after a timeout
//!   duplicates are counted but neither inflate the window (`exitFastRetrans_ true`) nor
//!   are ignored as Sack1 ignores them. Three parameters come from the agent's Tcl
//!   defaults ([`NewrenoAgent`](super::NewrenoAgent), with the recovery in
//!   `recovery/newreno.rs`): Agent/TCP/Newreno sets `dupwnd_` to 3 at the third
//!   duplicate, deflates partially at a partial ACK (`partial_window_deflation_ 1`: by
//!   what it acknowledges but one, from dupwnd_ first) and restarts the timer only at the
//!   first partial ACK (`newreno_changes1_ 1`); UCLA's Agent/TCP/WestwoodNR starts
//!   `dupwnd_` at 0, takes it all back at a partial ACK and restarts the timer at each.
//! * `ecn` — the sink sets ECN-Echo only on ACKs of ECN-capable packets; retransmissions
//!   are ECN-capable; ACKs that carry ECN-Echo do not open the window; an ECN reaction
//!   at cwnd ≤ 1 backs the timer off (`TcpSink::ack`, `TcpAgent::output`, `ecn`,
//!   `recv_newack_helper`).
use serde::{Deserialize, Serialize};

pub use super::profile::TcpProfile;

/// `tcp.ns2 = { ... }`: each ns-2 behaviour on or off; unset ones follow `profile`
/// (normalised scenarios show all of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ns2Switches {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_clock: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integer_ssthresh: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go_back_n: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack1_recovery: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newreno_recovery: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
}

/// The switches resolved: which ns-2 behaviours a sender and its sink follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Rules {
    pub tick_clock: bool,
    pub integer_ssthresh: bool,
    pub go_back_n: bool,
    pub sack1_recovery: bool,
    pub newreno_recovery: bool,
    pub ecn: bool,
}

impl Ns2Switches {
    /// Every unset switch set to what `profile` does.
    pub fn resolved(&self, profile: TcpProfile) -> Ns2Switches {
        let default = Some(profile == TcpProfile::Ns2);
        Ns2Switches {
            tick_clock: self.tick_clock.or(default),
            integer_ssthresh: self.integer_ssthresh.or(default),
            go_back_n: self.go_back_n.or(default),
            sack1_recovery: self.sack1_recovery.or(default),
            newreno_recovery: self.newreno_recovery.or(default),
            ecn: self.ecn.or(default),
        }
    }

    pub fn rules(&self, profile: TcpProfile) -> Ns2Rules {
        let s = self.resolved(profile);
        Ns2Rules {
            tick_clock: s.tick_clock == Some(true),
            integer_ssthresh: s.integer_ssthresh == Some(true),
            go_back_n: s.go_back_n == Some(true),
            sack1_recovery: s.sack1_recovery == Some(true),
            newreno_recovery: s.newreno_recovery == Some(true),
            ecn: s.ecn == Some(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_switches_follow_the_profile_and_set_ones_stay() {
        let some = Ns2Switches { go_back_n: Some(false), ecn: Some(true), ..Default::default() };
        let ns2 = some.rules(TcpProfile::Ns2);
        assert_eq!(
            ns2,
            Ns2Rules { tick_clock: true, integer_ssthresh: true, go_back_n: false, sack1_recovery: true, newreno_recovery: true, ecn: true }
        );
        let rfc = some.rules(TcpProfile::Rfc);
        assert_eq!(rfc, Ns2Rules { ecn: true, ..Default::default() });
        let read = |text: &str| serde_json::from_str::<Ns2Switches>(text).map_err(|e| e.to_string());
        assert!(read(r#"{"tick_clok": true}"#).unwrap_err().contains("tick_clok"));
        assert_eq!(read(r#"{"sack1_recovery": false}"#).unwrap().sack1_recovery, Some(false));
    }
}
