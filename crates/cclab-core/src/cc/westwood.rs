//! TCP Westwood (Wang, Valla, Sanadidi & Gerla, ICNP 2002, §2): Reno, except that after a
//! loss the window comes from an eligible-rate estimate (ERE) mined from the ACK stream:
//!
//! ```text
//! 3 DUPACKs:  ssthresh = ERE · RTTmin / seg_size;  if cwin > ssthresh: cwin = ssthresh
//! timeout:    cwin = 1;  ssthresh = max(2, ERE · RTTmin / seg_size)
//! ```
//!
//! The estimators differ (BE, RE, CRB, ABSE: one file each, `westwood_*.rs`); this file is
//! what they share: ACK accounting, RTTmin and the rule above. ERE is in segments per
//! second, so ERE · RTTmin is already in segments.
//!
//! Choices the paper leaves open (cclab's, documented here):
//! - ssthresh after 3 DUPACKs is floored at 2 segments too (RFC 5681's floor; the paper
//!   writes the floor only for timeouts, which would let ssthresh reach 0).
//! - Before the first estimate exists (no ACK pair yet) a loss halves the window as Reno.
//! - An ECN-Echo is treated as a loss signal by duplicate ACKs (the paper has no ECN).
//! - RTTmin is the smallest RTT sample of any ACK (Karn's rule applied by the sender);
//!   the estimators' RTT (RE's T, ABSE's T_max and τ_k) is the sender's SRTT, RTTmin
//!   until the sender has one.
//!
//! [`LossRule::Ucla`] is the rule of UCLA's ns-2 agent instead (Agent/TCP/WestwoodNR
//! v1.3, `tcp-westwood-nr.cc`: `dupack_action`, `slowdown(CLOSE_FASTER)`), which made
//! the paper's BE figures: ssthresh = ⌊ERE·RTTmin⌋ after 3 DUPACKs and ⌊ERE·RTTmin/a⌋
//! after a timeout, at least 2; `a` (`fr_a_`) is 1 after a loss in congestion avoidance
//! and grows after one in slow start (+1 at a timeout, up to 4; +0.25 at 3 DUPACKs,
//! which do not use it themselves); RTTmin is the smallest of the RTO estimator's samples
//! (`t_rtt_·tcpTick_`: whole ticks under `tcp.ns2.tick_clock`), 10 000 s before the first
//! (`min_rtt_estimate`); the estimator sees every ACK, RTT or not; an ECN-Echo halves
//! (ssthresh ⌊cwnd/2⌋), as the agent's `slowdown` does for it.
use super::estimators::{AckCounter, AckInput};
use super::reno::{increase, MIN_SSTHRESH};
use super::{AckSample, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};

const NS: f64 = 1e9;
/// UCLA's `min_rtt_estimate` before any RTT sample (its Tcl default), seconds.
const UCLA_NO_RTT: f64 = 10_000.0;

/// Whose loss rule sizes the window: §2 as printed, or UCLA's ns-2 agent's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossRule {
    Paper,
    /// With the agent's `fr_a_` (the timeout divisor) as it stands.
    Ucla { fr_a: f64 },
}

/// An estimator of the eligible rate, fed every ACK (segments per second).
pub trait EligibleRate {
    /// Take one ACK (its credited segments, RTTs and the window).
    fn on_ack(&mut self, ack: &AckInput);
    /// The ERE to size the window with at a loss (CRB chooses its estimator here), or
    /// None before any estimate exists.
    fn eligible_rate(&mut self, cwnd: f64, rtt_min: f64) -> Option<f64>;
    /// Estimator state for tracing: at least `ere` (segments/s).
    fn state(&self, out: &mut Vec<(&'static str, f64)>);
}

/// Reno plus the §2 rule, over any [`EligibleRate`].
#[derive(Clone, Debug)]
pub struct Westwood<E> {
    label: &'static str,
    pub estimator: E,
    counter: AckCounter,
    /// Smallest RTT seen, seconds.
    pub rtt_min: Option<f64>,
    /// The ERE used at the last loss (segments/s), for tracing.
    last_loss_ere: f64,
    pub rule: LossRule,
}

impl<E: EligibleRate> Westwood<E> {
    pub fn new(label: &'static str, estimator: E, cumulative_cap: Option<u32>) -> Westwood<E> {
        Westwood {
            label,
            estimator,
            counter: AckCounter::new(cumulative_cap),
            rtt_min: None,
            last_loss_ere: 0.0,
            rule: LossRule::Paper,
        }
    }

    /// UCLA's agent: its loss rule, its ACK accounting (cap 2, see
    /// [`super::estimators::AckCounting`]) around `estimator`.
    pub fn ucla(label: &'static str, estimator: E) -> Westwood<E> {
        let mut westwood = Westwood::new(label, estimator, Some(2));
        westwood.counter.counting = super::estimators::AckCounting::Ucla;
        westwood.rule = LossRule::Ucla { fr_a: 1.0 };
        westwood
    }

    /// UCLA's reduction (see the module header).
    fn ucla_reduction(&mut self, window: &Window, signal: CongestionSignal) -> Reduction {
        let LossRule::Ucla { fr_a } = &mut self.rule else { unreachable!("UCLA rule") };
        if signal == CongestionSignal::EcnEcho {
            let half = window.cwnd / 2.0;
            return Reduction { ssthresh: half.trunc().max(MIN_SSTHRESH), cwnd: half };
        }
        let in_slow_start = window.ssthresh > window.cwnd;
        let timeout = signal == CongestionSignal::Timeout;
        *fr_a = match (in_slow_start, timeout) {
            (false, _) => 1.0,
            (true, true) => (*fr_a + 1.0).min(4.0),
            (true, false) => (*fr_a + 0.25).min(4.0),
        };
        let divisor = if timeout { *fr_a } else { 1.0 };
        let ere = self.estimator.eligible_rate(window.cwnd, self.rtt_min.unwrap_or(UCLA_NO_RTT)).unwrap_or(0.0);
        self.last_loss_ere = ere;
        let ssthresh = (ere * self.rtt_min.unwrap_or(UCLA_NO_RTT) / divisor).trunc().max(MIN_SSTHRESH);
        Reduction { ssthresh, cwnd: window.cwnd.min(ssthresh) }
    }
}

impl<E: EligibleRate> CongestionControl for Westwood<E> {
    fn label(&self) -> String {
        self.label.into()
    }

    fn on_ack_event(&mut self, window: &Window, ack: &AckSample) {
        let segments = self.counter.count(ack.segments_acked, ack.duplicate);
        let ucla = matches!(self.rule, LossRule::Ucla { .. });
        if let Some(rtt) = if ucla { ack.timed_rtt.map(u64::from) } else { ack.rtt } {
            let rtt = rtt as f64 / NS;
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |min| min.min(rtt)));
        }
        // The estimators need an RTT (RE's interval, ABSE's T_max): none until one is
        // measured. (UCLA's BE needs none and sees every ACK.)
        let rtt_min = match self.rtt_min {
            Some(rtt_min) => rtt_min,
            None if ucla => UCLA_NO_RTT,
            None => return,
        };
        let srtt = ack.srtt.map_or(rtt_min, |srtt| srtt / NS);
        self.estimator.on_ack(&AckInput {
            now: ack.now as f64 / NS,
            segments,
            srtt,
            rtt_min,
            cwnd: window.cwnd,
        });
    }

    #[inline]
    fn on_ack(&mut self, window: &mut Window, _ack: &AckSample) {
        increase(window, 1.0);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        if matches!(self.rule, LossRule::Ucla { .. }) {
            return self.ucla_reduction(window, event.signal);
        }
        let rate = self.rtt_min.and_then(|rtt_min| Some((self.estimator.eligible_rate(window.cwnd, rtt_min)?, rtt_min)));
        let ssthresh = match rate {
            Some((ere, rtt_min)) => {
                self.last_loss_ere = ere;
                (ere * rtt_min).max(MIN_SSTHRESH)
            }
            None => (window.cwnd / 2.0).max(MIN_SSTHRESH), // no estimate or no RTT yet: Reno
        };
        // 3 DUPACKs (and ECN): cwin = min(cwin, ssthresh); a timeout's cwin = 1 is the sender's.
        Reduction {
            ssthresh,
            cwnd: window.cwnd.min(ssthresh),
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.estimator.state(out);
        out.push(("rtt_min_s", self.rtt_min.unwrap_or(0.0)));
        out.push(("loss_ere_pps", self.last_loss_ere));
        if let LossRule::Ucla { fr_a } = self.rule {
            out.push(("fr_a", fr_a));
        }
    }
}

/// `cumulative_cap` as the scenario gives it: a count ≥ 1, at most 1 000 000.
pub(crate) fn validate_cap(cap: Option<u32>) -> Result<(), (&'static str, String)> {
    match cap {
        Some(n) if n == 0 || n > 1_000_000 => Err((
            "cumulative_cap",
            format!("{n} is not a segment count in [1, 1000000]"),
        )),
        _ => Ok(()),
    }
}

/// A time constant or interval in seconds: finite, in (0, 1000].
pub(crate) fn validate_seconds(
    field: &'static str,
    seconds: f64,
) -> Result<(), (&'static str, String)> {
    if seconds > 0.0 && seconds <= 1000.0 {
        Ok(())
    } else {
        Err((
            field,
            format!("{} s is not in (0, 1000] s", crate::schema::Num(seconds)),
        ))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cc::CongestionSignal;

    /// A fixed estimate, to test the §2 rule alone.
    pub struct Fixed(pub Option<f64>);
    impl EligibleRate for Fixed {
        fn on_ack(&mut self, _ack: &AckInput) {}
        fn eligible_rate(&mut self, _cwnd: f64, _rtt_min: f64) -> Option<f64> {
            self.0
        }
        fn state(&self, out: &mut Vec<(&'static str, f64)>) {
            out.push(("ere_pps", self.0.unwrap_or(0.0)));
        }
    }

    /// One round of `acks` single-segment ACKs, each with an RTT sample of `rtt_ms`, fed
    /// as the sender feeds them (`on_ack_event`, then `on_ack`), then the round's end.
    pub fn round_at(cc: &mut impl CongestionControl, w: &mut Window, rtt_ms: u64, acks: usize) {
        for _ in 0..acks {
            let ack = AckSample { segments_acked: 1, rtt: Some(rtt_ms * 1_000_000), ..Default::default() };
            cc.on_ack_event(w, &ack);
            cc.on_ack(w, &ack);
        }
        cc.on_round(w, 0);
    }

    pub fn event(signal: CongestionSignal) -> CongestionEvent {
        CongestionEvent {
            now: 0,
            signal,
            flight_size: 40,
            in_slow_start: false,
            first_reduction: false,
            integer_ssthresh: false,
        }
    }

    pub fn ack_with_rtt(now_ms: u64, rtt_ms: u64) -> AckSample {
        AckSample {
            now: now_ms * 1_000_000,
            segments_acked: 1,
            rtt: Some(rtt_ms * 1_000_000),
            ..Default::default()
        }
    }

    /// §2 with ERE = 300 segments/s and RTTmin = 70 ms: ssthresh = 21 segments; a window
    /// of 40 drops to 21, one of 10 stays; a timeout takes ssthresh 21 (cwnd 1 is the
    /// sender's); an ERE of 10/s gives ssthresh 0.7, floored at 2.
    #[test]
    fn paper_rule_section_2() {
        let mut westwood = Westwood::new("w", Fixed(Some(300.0)), None);
        let w = Window {
            cwnd: 40.0,
            ssthresh: 100.0,
        };
        // RTTmin is the smallest sample: 90 then 70 then 80 ms.
        for (t, rtt) in [(100, 90), (110, 70), (120, 80)] {
            westwood.on_ack_event(&w, &ack_with_rtt(t, rtt));
        }
        assert_eq!(westwood.rtt_min, Some(0.07));
        let r = westwood.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert!(
            (r.ssthresh - 21.0).abs() < 1e-9 && r.cwnd == r.ssthresh,
            "{r:?}"
        );
        let small = Window {
            cwnd: 10.0,
            ssthresh: 100.0,
        };
        assert_eq!(
            westwood
                .on_congestion(&small, &event(CongestionSignal::FastRetransmit))
                .cwnd,
            10.0
        );
        let r = westwood.on_congestion(&w, &event(CongestionSignal::Timeout));
        assert!((r.ssthresh - 21.0).abs() < 1e-9);
        westwood.estimator.0 = Some(10.0);
        assert_eq!(
            westwood
                .on_congestion(&w, &event(CongestionSignal::Timeout))
                .ssthresh,
            2.0
        );
        assert_eq!(
            westwood
                .on_congestion(&w, &event(CongestionSignal::FastRetransmit))
                .ssthresh,
            2.0
        );
        // No estimate yet: Reno's half.
        westwood.estimator.0 = None;
        assert_eq!(
            westwood
                .on_congestion(&w, &event(CongestionSignal::FastRetransmit))
                .ssthresh,
            20.0
        );
    }

    /// UCLA's rule by hand, ERE = 310 segments/s: RTTmin comes from the RTO estimator's
    /// samples (70 ms; the per-ACK 50 ms is not one), so ERE·RTTmin = 21.7 → ssthresh 21.
    /// fr_a: 1 after a loss in congestion avoidance; in slow start +1 per timeout (2, 3,
    /// 4, then held at 4: ⌊21.7/a⌋ = 10, 7, 5, 5) and +0.25 per 3 DUPACKs, which are not
    /// divided (21) and keep a smaller cwnd; an ECN-Echo halves.
    #[test]
    fn ucla_rule_by_hand() {
        let mut ucla = Westwood::ucla("u", Fixed(Some(310.0)));
        let w = |cwnd, ssthresh| Window { cwnd, ssthresh };
        // No RTT yet: min_rtt_estimate is 10 000 s, so the window is left as it is.
        let r = ucla.on_congestion(&w(40.0, 30.0), &event(CongestionSignal::FastRetransmit));
        assert_eq!((r.ssthresh, r.cwnd), (3_100_000.0, 40.0));
        ucla.on_ack_event(&w(40.0, 30.0), &AckSample { rtt: Some(50_000_000), timed_rtt: std::num::NonZeroU64::new(70_000_000), ..Default::default() });
        ucla.on_ack_event(&w(40.0, 30.0), &AckSample { rtt: Some(50_000_000), timed_rtt: std::num::NonZeroU64::new(80_000_000), ..Default::default() });
        assert_eq!(ucla.rtt_min, Some(0.07));
        let in_ca = w(40.0, 30.0);
        let in_ss = w(10.0, 30.0);
        let r = ucla.on_congestion(&in_ca, &event(CongestionSignal::FastRetransmit));
        assert_eq!((r.ssthresh, r.cwnd, ucla.rule), (21.0, 21.0, LossRule::Ucla { fr_a: 1.0 }));
        for (expected_fr_a, expected_ssthresh) in [(2.0, 10.0), (3.0, 7.0), (4.0, 5.0), (4.0, 5.0)] {
            let r = ucla.on_congestion(&in_ss, &event(CongestionSignal::Timeout));
            assert_eq!((r.ssthresh, ucla.rule), (expected_ssthresh, LossRule::Ucla { fr_a: expected_fr_a }));
        }
        let r = ucla.on_congestion(&in_ss, &event(CongestionSignal::FastRetransmit));
        assert_eq!((r.ssthresh, r.cwnd, ucla.rule), (21.0, 10.0, LossRule::Ucla { fr_a: 4.0 }));
        ucla.on_congestion(&in_ca, &event(CongestionSignal::Timeout));
        assert_eq!(ucla.rule, LossRule::Ucla { fr_a: 1.0 });
        ucla.on_congestion(&in_ss, &event(CongestionSignal::FastRetransmit)); // 1.25
        let r = ucla.on_congestion(&in_ss, &event(CongestionSignal::Timeout)); // 2.25: 21.7/2.25 = 9.6
        assert_eq!((r.ssthresh, ucla.rule), (9.0, LossRule::Ucla { fr_a: 2.25 }));
        let r = ucla.on_congestion(&w(41.0, 30.0), &event(CongestionSignal::EcnEcho));
        assert_eq!((r.ssthresh, r.cwnd), (20.0, 20.5));
        ucla.estimator.0 = Some(10.0); // 0.7 segments: floored at 2
        assert_eq!(ucla.on_congestion(&in_ca, &event(CongestionSignal::FastRetransmit)).ssthresh, 2.0);
        let mut state = Vec::new();
        ucla.state(&mut state);
        assert_eq!(state.last(), Some(&("fr_a", 1.0)));
    }

    /// Before any RTT sample there is no RTTmin: Reno's half, whatever the estimator says.
    #[test]
    fn no_rtt_no_estimate() {
        let mut westwood = Westwood::new("w", Fixed(Some(300.0)), None);
        let w = Window {
            cwnd: 40.0,
            ssthresh: 100.0,
        };
        assert_eq!(
            westwood
                .on_congestion(&w, &event(CongestionSignal::FastRetransmit))
                .ssthresh,
            20.0
        );
    }
}
