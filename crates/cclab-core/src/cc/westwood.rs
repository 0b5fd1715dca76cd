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
use super::estimators::{AckCounter, AckInput};
use super::reno::{increase, MIN_SSTHRESH};
use super::{AckSample, CongestionControl, CongestionEvent, Reduction, Window};

const NS: f64 = 1e9;

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
}

impl<E: EligibleRate> Westwood<E> {
    pub fn new(label: &'static str, estimator: E, cumulative_cap: Option<u32>) -> Westwood<E> {
        Westwood {
            label,
            estimator,
            counter: AckCounter::new(cumulative_cap),
            rtt_min: None,
            last_loss_ere: 0.0,
        }
    }
}

impl<E: EligibleRate> CongestionControl for Westwood<E> {
    fn label(&self) -> String {
        self.label.into()
    }

    fn on_ack_event(&mut self, window: &Window, ack: &AckSample) {
        let segments = self.counter.count(ack.segments_acked, ack.duplicate);
        if let Some(rtt) = ack.rtt {
            let rtt = rtt as f64 / NS;
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |min| min.min(rtt)));
        }
        // The estimators need an RTT (RE's interval, ABSE's T_max): none until one is measured.
        let Some(rtt_min) = self.rtt_min else { return };
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

    fn on_congestion(&mut self, window: &Window, _event: &CongestionEvent) -> Reduction {
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
        out.push(("rtt_min", self.rtt_min.unwrap_or(0.0)));
        out.push(("loss_ere", self.last_loss_ere));
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
            out.push(("ere", self.0.unwrap_or(0.0)));
        }
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
