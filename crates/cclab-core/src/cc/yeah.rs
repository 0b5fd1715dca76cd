//! YeAH-TCP (Baiocchi, Castellani & Vacirca, "YeAH-TCP: Yet Another Highspeed TCP",
//! PFLDnet 2007), as ns-3.44's TcpYeah (read, not copied; it follows Linux's
//! `tcp_yeah.c`). Two modes, chosen once per round trip from the round's smallest RTT
//! and the smallest ever (baseRTT), with Q = ⌊cwnd·(RTT − baseRTT)/RTT⌋ the segments
//! the flow keeps queued and L = (RTT − baseRTT)/baseRTT:
//!
//! - Fast mode (Q ≤ `alpha` = 80 and L ≤ 1/`phy` = 1/8): Scalable TCP's increase (one
//!   segment per min(cwnd, `stcp_ai_factor` = 100) acknowledged).
//! - Slow mode: Reno's increase; when Q > `alpha` and cwnd > the Reno estimate,
//!   precautionary decongestion: cwnd −= min(Q/`gamma`, cwnd/2^`epsilon`), not below the
//!   estimate, and ssthresh = cwnd. The Reno estimate (`reno_count`) tracks what a Reno
//!   flow would hold: half the window on entering slow mode, +1 per slow round, reset to
//!   2 after `zeta` (50) fast rounds; halved at each loss.
//! - A loss: when fewer than `rho` (16) rounds in a row were slow (no Reno competition),
//!   cwnd shrinks by max(last Q, cwnd/2^`delta`), at most by max(cwnd/2, 2); else by half.
//!   ssthresh = cwnd = max(cwnd − reduction, 2).
//!
//! A round with at most 2 RTT samples changes nothing; slow start is NewReno's.
//!
//! Deviation from ns-3.44: it tests L > 1/phy in integers (1/8 = 0), so any queueing
//! delay means slow mode there; here L > 1/8, as Linux (`rtt − base > base >> phy`).
//! The RTT samples are the ACKs' own (ns-3 passes each ACK its smoothed RTT), the
//! round the sender's, the cut of cwnd (ns-3: BytesInFlight).
use super::kernel::whole;
use super::reno::{additive_increase, slow_start};
use super::scalable::Scalable;
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct YeahConfig {
    /// Segments queued above which the round is slow and decongests (ns-3 `Alpha`: 80).
    pub alpha: u32,
    /// Decongestion removes the queue divided by this (ns-3 `Gamma`: 1).
    pub gamma: u32,
    /// log₂ of the smallest fraction a loss takes off (ns-3 `Delta`: 3, 1/8).
    pub delta: u32,
    /// log₂ of the largest fraction decongestion takes off (ns-3 `Epsilon`: 1, 1/2).
    pub epsilon: u32,
    /// The round is slow when the queueing delay exceeds baseRTT/phy (ns-3 `Phy`: 8).
    pub phy: u32,
    /// Slow rounds in a row that mean competing Reno flows (ns-3 `Rho`: 16).
    pub rho: u32,
    /// Fast rounds after which the Reno estimate restarts (ns-3 `Zeta`: 50).
    pub zeta: u32,
    /// Scalable TCP's factor in fast mode (ns-3 `StcpAiFactor`: 100).
    pub stcp_ai_factor: u32,
}

impl Default for YeahConfig {
    fn default() -> Self {
        YeahConfig { alpha: 80, gamma: 1, delta: 3, epsilon: 1, phy: 8, rho: 16, zeta: 50, stcp_ai_factor: 100 }
    }
}

impl Algorithm for YeahConfig {
    type Controller = Yeah;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        for (field, value, min, max) in [
            ("alpha", self.alpha, 0, 1_000_000),
            ("gamma", self.gamma, 1, 1_000_000),
            ("delta", self.delta, 0, 31),
            ("epsilon", self.epsilon, 0, 31),
            ("phy", self.phy, 1, 1_000_000),
            ("rho", self.rho, 0, 1_000_000),
            ("zeta", self.zeta, 0, 1_000_000),
            ("stcp_ai_factor", self.stcp_ai_factor, 1, 1_000_000),
        ] {
            if !(min..=max).contains(&value) {
                return Err((field, format!("{value} is not an integer in [{min}, {max}]")));
            }
        }
        Ok(())
    }

    fn build(&self) -> Yeah {
        Yeah { config: self.clone(), base_rtt: None, round_min_rtt: None, round_samples: 0, slow_rounds: 0, reno_count: 2, fast_count: 0, last_q: 0, stcp_cnt: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Yeah {
    config: YeahConfig,
    base_rtt: Option<Time>,
    round_min_rtt: Option<Time>,
    round_samples: u32,
    /// Slow rounds in a row (0: fast mode; ns-3 `m_doingRenoNow`).
    pub slow_rounds: u32,
    /// The Reno estimate, segments.
    pub reno_count: u32,
    fast_count: u32,
    /// The last round's Q.
    pub last_q: u32,
    /// Scalable TCP's count in fast mode.
    stcp_cnt: u32,
}

impl CongestionControl for Yeah {
    fn label(&self) -> String {
        "yeah".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt.filter(|&r| r > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.round_samples += 1;
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        if window.cwnd < window.ssthresh {
            slow_start(window);
        } else if self.slow_rounds == 0 {
            Scalable::congestion_avoidance(window, &mut self.stcp_cnt, self.config.stcp_ai_factor, ack.segments_acked);
        } else {
            additive_increase(window, 1.0);
        }
    }

    fn on_round(&mut self, window: &mut Window, _now: Time) {
        let (samples, min) = (self.round_samples, self.round_min_rtt.take());
        self.round_samples = 0;
        let (Some(base), Some(rtt), true) = (self.base_rtt, min, samples > 2) else { return };
        let c = &self.config;
        let mut cwnd = whole(window.cwnd);
        let queue_delay = (rtt - base) as f64;
        let q = (cwnd as f64 * queue_delay / rtt as f64) as u32;
        if q > c.alpha || queue_delay > base as f64 / c.phy as f64 {
            if q > c.alpha && cwnd > self.reno_count {
                cwnd -= (q / c.gamma).min(cwnd >> c.epsilon);
                cwnd = cwnd.max(self.reno_count);
                window.cwnd = cwnd as f64;
                window.ssthresh = window.cwnd;
            }
            self.reno_count = if self.reno_count <= 2 { (cwnd >> 1).max(2) } else { self.reno_count + 1 };
            self.slow_rounds += 1;
        } else {
            self.fast_count += 1;
            if self.fast_count > c.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_q = q;
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let cwnd = whole(window.cwnd);
        let half = (cwnd >> 1).max(2);
        let reduction = if self.slow_rounds < self.config.rho { self.last_q.max(cwnd >> self.config.delta).min(half) } else { half };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        super::reno::cut(cwnd.saturating_sub(reduction) as f64, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("queue", self.last_q as f64));
        out.push(("slow_rounds", self.slow_rounds as f64));
        out.push(("reno_count", self.reno_count as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::CongestionSignal;

    fn round(cc: &mut Yeah, w: &mut Window, rtt_ms: u64, acks: usize) {
        crate::cc::westwood::tests::round_at(cc, w, rtt_ms, acks);
    }

    /// baseRTT 100 ms. From cwnd 300 a round of 300 ACKs at 105 ms grows +3 (Scalable,
    /// one per 100 ACKs); Q = ⌊303·5/105⌋ = 14, L = 0.05: fast. At 120 ms: L = 0.2 > 1/8, Q = ⌊303·20/120⌋ = 50
    /// ≤ 80: slow without decongestion, Reno estimate ⌊303/2⌋ = 151. At 200 ms, Q =
    /// ⌊cwnd·100/200⌋ > 80: decongestion by min(Q, cwnd/2).
    #[test]
    fn modes_and_decongestion() {
        let mut y = YeahConfig::default().build();
        let mut w = Window { cwnd: 300.0, ssthresh: 10.0 };
        round(&mut y, &mut w, 100, 3);
        assert_eq!(y.slow_rounds, 0);
        round(&mut y, &mut w, 105, 300);
        assert_eq!(w.cwnd, 303.0);
        assert_eq!((y.last_q, y.slow_rounds), (14, 0));
        round(&mut y, &mut w, 120, 3); // Scalable still: 3 ACKs < 100
        assert_eq!(w.cwnd, 303.0);
        assert_eq!((y.last_q, y.slow_rounds, y.reno_count), (50, 1, 151));
        let before = w.cwnd;
        round(&mut y, &mut w, 200, 10); // Reno: +10/303 in all
        let grown = whole(before + 10.0 / 303.0 + 1e-9);
        let q = grown / 2;
        assert_eq!(y.last_q, q);
        assert_eq!(w.cwnd, (grown - q.min(grown >> 1)).max(152) as f64);
        assert_eq!(w.ssthresh, w.cwnd);
        assert_eq!(y.reno_count, 152);
    }

    /// The loss: not competing (slow_rounds < 16): reduction = min(max(Q, cwnd/8),
    /// max(cwnd/2, 2)). Q 14 at 300: max(14, 37) = 37 → 263; Q 200: 150 → 150. After 16
    /// slow rounds: half.
    #[test]
    fn loss_reduction() {
        let mut y = YeahConfig::default().build();
        let fr = event(CongestionSignal::FastRetransmit);
        let w = Window { cwnd: 300.0, ssthresh: 1e9 };
        y.last_q = 14;
        assert_eq!(y.on_congestion(&w, &fr).cwnd, 263.0);
        y.last_q = 200;
        assert_eq!(y.on_congestion(&w, &fr).cwnd, 150.0);
        y.last_q = 14;
        y.slow_rounds = 16;
        assert_eq!(y.on_congestion(&w, &fr).cwnd, 150.0);
        y.reno_count = 40;
        y.on_congestion(&w, &fr);
        assert_eq!(y.reno_count, 20);
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&YeahConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&YeahConfig { gamma: 0, ..Default::default() }).unwrap_err().0, "gamma");
        assert_eq!(Algorithm::validate(&YeahConfig { delta: 40, ..Default::default() }).unwrap_err().0, "delta");
    }
}
