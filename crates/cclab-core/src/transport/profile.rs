//! `profile`: whose rules a TCP flow follows — the RFCs (`rfc`, the default), ns-2.35's
//! agents (`ns2`, module [`super::ns2`]) or Linux 6.x's stack (`linux`, module
//! [`super::linux`]). A profile is a set of choices, one per rule, not a fork of the
//! sender: the defaults it gives the parameters below, and the rules in [`RULES`], which
//! the docs' rule-by-rule page is generated from.
use crate::sim::Duration;
use serde::Serialize;

/// `tcp.profile` (and a scenario's top-level `profile`): whose rules the TCP flows follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TcpProfile {
    /// The RFCs: 6298 timers, 6675 SACK recovery, 5681 windows, 3168 ECN.
    #[default]
    Rfc,
    /// ns-2.35's Agent/TCP/Sack1 and its sink, behaviour by behaviour.
    Ns2,
    /// Linux 6.x's TCP as this machine kind runs it (HZ = 250), rule by rule
    /// ([`super::linux`]).
    Linux,
}

crate::schema::named_choice!(TcpProfile, "profile", [Rfc => "rfc", Ns2 => "ns2", Linux => "linux"]);

impl TcpProfile {
    /// Its name in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            TcpProfile::Rfc => "rfc",
            TcpProfile::Ns2 => "ns2",
            TcpProfile::Linux => "linux",
        }
    }
}

/// The parameters whose defaults depend on the profile (a value the scenario gives wins).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileDefaults {
    pub initial_window: f64,
    pub initial_rto: Duration,
    pub max_rto: Duration,
    pub granularity: Duration,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Duration,
}

/// Linux's jiffy on this machine kind (`CONFIG_HZ=250`): the kernel keeps its RTO,
/// delayed-ACK and CUBIC clocks in these steps.
pub const LINUX_JIFFY: Duration = Duration(crate::cc::LINUX_JIFFY_NS);

impl TcpProfile {
    pub fn defaults(self) -> ProfileDefaults {
        match self {
            // ns-2.35's Agent/TCP defaults (docs/ns2-defaults.md), which the RFC profile keeps.
            TcpProfile::Rfc | TcpProfile::Ns2 => ProfileDefaults {
                initial_window: 2.0,
                initial_rto: Duration::from_millis(3000),
                max_rto: Duration::from_millis(60_000),
                granularity: Duration::from_millis(10),
                delayed_ack: false,
                delayed_ack_timeout: Duration::from_millis(100),
            },
            // TCP_INIT_CWND 10, TCP_TIMEOUT_INIT 1 s, TCP_RTO_MAX 120 s, one jiffy, the
            // receiver's delayed ACKs with TCP_ATO_MIN = HZ/25 = 40 ms.
            TcpProfile::Linux => ProfileDefaults {
                initial_window: 10.0,
                initial_rto: Duration::from_millis(1000),
                max_rto: Duration::from_millis(120_000),
                granularity: LINUX_JIFFY,
                delayed_ack: true,
                delayed_ack_timeout: Duration::from_millis(40),
            },
        }
    }
}

/// One rule on which the profiles differ: its name, what each profile does, and where the
/// `linux` choice is implemented (the kernel function it follows).
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub name: &'static str,
    pub rfc: &'static str,
    pub ns2: &'static str,
    pub linux: &'static str,
    pub linux_source: &'static str,
}

/// Every rule on which the profiles differ, in the order an ACK meets them.
pub const RULES: &[Rule] = &[
    Rule {
        name: "initial window",
        rfc: "2 segments (`initial_window`)",
        ns2: "2 segments (`windowInit_`)",
        linux: "10 segments",
        linux_source: "TCP_INIT_CWND (tcp_init_sock)",
    },
    Rule {
        name: "receiver's ACKs",
        rfc: "every segment; every second one or after 100 ms with `delayed_ack`",
        ns2: "as rfc (TCPSink/Sack1, DelAck sink)",
        linux: "16 quick ACKs at the start, then one per two full segments or after the delayed-ACK timer (ATO from 40 ms); at once for out-of-order data and a filled hole; D-SACK for duplicates; while data is held out of order, three duplicate ACKs at once and then at most one per millisecond; in-order segments arriving back to back (within 20 µs of each other) with the same TSval and ECN bits are coalesced into one buffer and decided on together when the burst ends (so a burst of four gets one ACK); a buffer with PSH (which ends every GSO packet of two or more) is ACKed as the application reads it, even a single segment",
        linux_source: "__tcp_ack_snd_check, tcp_event_data_recv, tcp_send_delayed_ack, tcp_sack_compress_send_ack, tcp_measure_rcv_mss (tcp_input.c, tcp_output.c); tcp_cleanup_rbuf (tcp.c); tcp_gro_receive (tcp_offload.c), tcp_add_backlog (tcp_ipv4.c)",
    },
    Rule {
        name: "window growth",
        rfc: "slow start +1 per ACK, congestion avoidance α/cwnd per ACK",
        ns2: "as rfc (`opencwnd`)",
        linux: "per segment delivered (cumulatively or by SACK) on ACKs that advance snd_una, integer cwnd with a counter, only while cwnd-limited",
        linux_source: "tcp_cong_control, tcp_slow_start, tcp_cong_avoid_ai, tcp_is_cwnd_limited",
    },
    Rule {
        name: "RTT samples and RTO",
        rfc: "one timed segment per RTT; RTO = max(200 ms, SRTT + max(G, 4·RTTVAR)), initial 3 s",
        ns2: "one per RTT counted in 10-ms ticks, integer SRTT/RTTVAR (`tick_clock`)",
        linux: "every ACK (oldest segment it acknowledges); RTO = SRTT + max(200 ms, the RTT's largest 4·mdev), in 4-ms jiffies, initial 1 s, at most 120 s",
        linux_source: "tcp_ack_update_rtt, tcp_rtt_estimator, __tcp_set_rto",
    },
    Rule {
        name: "loss detection",
        rfc: "three duplicate ACKs, RFC 6675 IsLost (three segments SACKed above)",
        ns2: "three duplicate ACKs; Sack1 counts only those with new SACK information",
        linux: "RACK-TLP (RFC 8985): a segment is lost once one sent after it is delivered and its RTT plus a reordering window (min RTT/4, 0 once three are SACKed or in recovery) has passed; lost retransmissions found the same way; a tail loss probe after 2·SRTT",
        linux_source: "tcp_rack_detect_loss, tcp_rack_reo_timeout, tcp_schedule_loss_probe (tcp_recovery.c, tcp_output.c)",
    },
    Rule {
        name: "window in recovery",
        rfc: "RFC 6675: cwnd = ssthresh, send while pipe < cwnd",
        ns2: "Sack1's pipe counter (`sack1_recovery`)",
        linux: "Proportional Rate Reduction (RFC 6937); cwnd = ssthresh at the end",
        linux_source: "tcp_init_cwnd_reduction, tcp_cwnd_reduction, tcp_end_cwnd_reduction",
    },
    Rule {
        name: "retransmission timeout",
        rfc: "cut again, cwnd 1, SACK information forgotten (RFC 6675 §5.1)",
        ns2: "as rfc, and duplicates ignored until a new ACK, go-back-N (`go_back_n`)",
        linux: "no second cut inside an unfinished recovery; the SACK scoreboard kept, what was not SACKed and not sent within the last RTT marked lost; cwnd = in flight + 1; F-RTO and undo of spurious timeouts",
        linux_source: "tcp_enter_loss, tcp_timeout_mark_lost, tcp_process_loss, tcp_try_undo_loss",
    },
    Rule {
        name: "sending",
        rfc: "segment by segment as the window opens; paced only by algorithms that pace",
        ns2: "as rfc",
        linux: "GSO packets of ≈1 ms of the pacing rate (at least 2 segments) leave back to back, deferred until a packet's worth of window is open or 1 ms has passed; BBR is paced, and every algorithm with `tcp.pacing` (the fq qdisc, or a socket created under BBR, as iperf3 does where BBR is the default), one GSO packet per slot at the pacing rate (200 % of cwnd/SRTT in early slow start, 120 % after, for algorithms without their own), the first 10 segments unpaced; the last segment of a GSO packet of two or more carries PSH; a bulk writer's 4-MiB send buffer (each GSO packet's buffer costing 1032 bytes beyond its payload) bounds what is unacknowledged, refilled once two thirds empty",
        linux_source: "tcp_write_xmit, tcp_tso_autosize, tcp_tso_should_defer, tcp_update_skb_after_send, __tcp_transmit_skb; sk_stream_write_space, sk_stream_min_wspace",
    },
    Rule {
        name: "congestion-control modules",
        rfc: "the algorithms as their papers and RFCs state them, in real numbers",
        ns2: "as rfc (ns-2's agents)",
        linux: "as tcp_cong.c, tcp_cubic.c and tcp_bbr.c compute them (integer windows, jiffies, HyStart's constants, BBR's ACK-aggregation and policer estimates)",
        linux_source: "tcp_reno_cong_avoid, bictcp_update, bbr_main",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_says_what_each_profile_does() {
        for rule in RULES {
            for text in [rule.name, rule.rfc, rule.ns2, rule.linux, rule.linux_source] {
                assert!(!text.trim().is_empty(), "{rule:?}");
            }
        }
        assert_eq!(TcpProfile::Linux.defaults().initial_window, 10.0);
        assert_eq!(TcpProfile::Rfc.defaults(), TcpProfile::Ns2.defaults());
    }
}
