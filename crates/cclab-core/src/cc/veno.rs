//! TCP Veno (Fu & Liew, "TCP Veno: TCP enhancement for transmission over wireless access
//! networks", JSAC 2003), with ns-3.44's TcpVeno defaults (read, not copied) and Linux's
//! `tcp_veno.c` round structure. Vegas's queue estimate tells a congestive loss from a
//! random one: once per round trip, N = cwnd·(RTT − baseRTT)/RTT segments queued (RTT
//! the smallest sample of the round, baseRTT the smallest ever).
//!
//! - Slow start is NewReno's.
//! - Congestion avoidance: N < β (3): Reno's one segment per RTT; N ≥ β: one segment
//!   every other RTT. A round with at most 2 RTT samples grows as Reno.
//! - A loss with N < β is taken for a random one: ssthresh = cwnd = 4/5·cwnd; else
//!   cwnd/2 (NewReno). At least 2.
//!
//! Deviation from ns-3.44: its TcpVeno restarts its RTT count at every ACK, so it holds
//! the 3 samples its Veno branch needs only on the first ACK after a recovery and
//! otherwise grows as NewReno, and its N is the last ACK's (from that ACK's sample, in
//! whole segments). Here the
//! count and N are per round trip, as the paper and Linux. The cut is of cwnd (ns-3:
//! BytesInFlight).
use super::reno::{additive_increase, cut, slow_start_leftover};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VenoConfig {
    /// Segments queued from which a loss is congestive and growth halves (ns-3 `Beta`:
    /// 3; Linux 3).
    pub beta: f64,
}

impl Default for VenoConfig {
    fn default() -> Self {
        VenoConfig { beta: 3.0 }
    }
}

impl Algorithm for VenoConfig {
    type Controller = Veno;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.beta >= 0.0 && self.beta <= 10_000.0) {
            return Err(("beta", format!("{} is not a segment count in [0, 10000]", crate::schema::Num(self.beta))));
        }
        Ok(())
    }

    fn build(&self) -> Veno {
        Veno { beta: self.beta, base_rtt: None, round_min_rtt: None, round_samples: 0, diff: 0.0, reno_round: true, grow: true }
    }
}

#[derive(Clone, Debug)]
pub struct Veno {
    beta: f64,
    base_rtt: Option<Time>,
    round_min_rtt: Option<Time>,
    round_samples: u32,
    /// N, the last round's estimate of the segments queued.
    pub diff: f64,
    /// The last round had too few samples: grow as Reno.
    reno_round: bool,
    /// This round grows (with N ≥ β, every other round does).
    grow: bool,
}

impl CongestionControl for Veno {
    fn label(&self) -> String {
        "veno".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt.filter(|&r| r > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.round_samples += 1;
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        let left = slow_start_leftover(window, ack.segments_acked);
        if window.cwnd >= window.ssthresh && left > 0 && (self.reno_round || self.diff < self.beta || self.grow) {
            additive_increase(window, 1.0);
        }
    }

    fn on_round(&mut self, window: &mut Window, _now: Time) {
        let (samples, min) = (self.round_samples, self.round_min_rtt.take());
        self.round_samples = 0;
        self.reno_round = samples <= 2;
        if let (false, Some(base), Some(rtt)) = (self.reno_round, self.base_rtt, min) {
            self.diff = window.cwnd * (rtt - base) as f64 / rtt as f64;
        }
        self.grow = !self.grow || self.reno_round || self.diff < self.beta;
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let factor = if self.diff < self.beta { 0.8 } else { 0.5 };
        cut(window.cwnd * factor, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("diff", self.diff));
        out.push(("base_rtt_ms", self.base_rtt.map_or(0.0, |t| t as f64 / 1e6)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::CongestionSignal;

    fn round(cc: &mut Veno, w: &mut Window, rtt_ms: u64, acks: usize) {
        crate::cc::westwood::tests::round_at(cc, w, rtt_ms, acks);
    }

    /// baseRTT 100 ms, cwnd 20 in congestion avoidance. A round at 110 ms: N = 20·10/110
    /// = 1.82 < 3: Reno's +1 per RTT next round and a loss cuts to 4/5. At 150 ms, N =
    /// 21·50/150 = 7 ≥ 3: the rounds after grow every other time, a loss halves.
    #[test]
    fn queue_estimate_picks_growth_and_cut() {
        let mut v = VenoConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        round(&mut v, &mut w, 100, 20); // ≈ +1
        round(&mut v, &mut w, 110, 20);
        let n = w.cwnd * 10.0 / 110.0;
        assert!((v.diff - n).abs() < 1e-9, "N {}", v.diff);
        let fr = event(CongestionSignal::FastRetransmit);
        let r = v.on_congestion(&Window { cwnd: 20.0, ssthresh: 1e9 }, &fr);
        assert_eq!(r.cwnd, 16.0);
        let mut w = Window { cwnd: 21.0, ssthresh: 10.0 };
        round(&mut v, &mut w, 150, 21);
        assert!((v.diff - w.cwnd * 50.0 / 150.0).abs() < 1e-9);
        assert!(v.diff >= 3.0);
        let r = v.on_congestion(&Window { cwnd: 20.0, ssthresh: 1e9 }, &fr);
        assert_eq!(r.cwnd, 10.0);
        // N ≥ β from here on: the next round does not grow, the one after does
        let c = w.cwnd;
        round(&mut v, &mut w, 150, 30);
        assert_eq!(w.cwnd, c, "a round without growth");
        round(&mut v, &mut w, 150, 30);
        assert!(w.cwnd > c + 1.0, "a Reno round: {}", w.cwnd);
        // a round with ≤ 2 samples grows as Reno whatever N
        let c = w.cwnd;
        round(&mut v, &mut w, 150, 2); // a no-growth round, too few samples for N
        assert_eq!(w.cwnd, c);
        round(&mut v, &mut w, 150, 10);
        assert!(w.cwnd > c + 0.4, "the round after grows as Reno: {}", w.cwnd);
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&VenoConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&VenoConfig { beta: -1.0 }).unwrap_err().0, "beta");
    }
}
