//! TCP Hybla (Caini & Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", Int. J. Satell. Commun. Netw. 2004), as ns-3.44's TcpHybla (read, not
//! copied): a long-RTT flow grows per ACK as a flow of the reference RTT RTT₀ would per
//! unit of time. With ρ = max(RTT_min/RTT₀, 1):
//!
//! - slow start: cwnd += 2^ρ − 1 per ACK, never past ssthresh;
//! - congestion avoidance: ρ²/cwnd per segment acknowledged, added to the window in whole
//!   segments (the fraction carried in a counter);
//! - losses are NewReno's (ssthresh = cwnd = cwnd/2).
//!
//! Slow start jumps by 2^ρ − 1 segments per ACK (4095 at ρ = 12, a 600-ms path): give
//! such a flow a receiver window (`tcp.max_window`), as a real receiver's bounds it;
//! under cclab's default of 10⁶ segments its first slow start overshoots the path by
//! orders of magnitude and the halvings that follow take many round trips.
//!
//! ρ is recomputed whenever an RTT sample sets a new minimum; as ns-3, from the minimum
//! RTT and RTT₀ in whole milliseconds. Deviations from ns-3: its slow-start step adds to
//! a whole-byte window (here the exact 2^ρ − 1 segments), and its exponent is unbounded
//! (here at most 16, as Linux's `tcp_hybla.c`, so a path of over 16·RTT₀ does not jump
//! to ssthresh at the first ACK); the cut is of cwnd (ns-3: BytesInFlight).
use super::reno::cut;
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};

/// The largest ρ slow start raises 2 to (Linux: `min(ca->rho, 16U)`).
const MAX_SLOW_START_EXPONENT: f64 = 16.0;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HyblaConfig {
    /// RTT₀, the reference round-trip time (ns-3 `RRTT`: 50 ms; whole milliseconds).
    pub reference_rtt: Duration,
}

impl Default for HyblaConfig {
    fn default() -> Self {
        HyblaConfig { reference_rtt: Duration::from_millis(50) }
    }
}

impl Algorithm for HyblaConfig {
    type Controller = Hybla;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let s = self.reference_rtt.secs_f64();
        if !(s >= 0.001 && s <= 100.0) {
            return Err(("reference_rtt", format!("{} s is not in [0.001, 100] s (whole milliseconds)", crate::schema::Num(s))));
        }
        Ok(())
    }

    fn build(&self) -> Hybla {
        Hybla { reference_ms: (self.reference_rtt.ns() / 1_000_000) as f64, min_rtt: None, rho: 1.0, cwnd_cnt: 0.0 }
    }
}

#[derive(Clone, Debug)]
pub struct Hybla {
    /// RTT₀ in whole milliseconds.
    reference_ms: f64,
    min_rtt: Option<Time>,
    pub rho: f64,
    /// The fraction of a segment congestion avoidance has earned so far.
    cwnd_cnt: f64,
}

impl CongestionControl for Hybla {
    fn label(&self) -> String {
        "hybla".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            if self.min_rtt.map_or(true, |min| rtt <= min) {
                self.min_rtt = Some(rtt);
                self.rho = ((rtt / 1_000_000) as f64 / self.reference_ms).max(1.0);
            }
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        let mut left = ack.segments_acked;
        if window.cwnd < window.ssthresh {
            window.cwnd = (window.cwnd + self.rho.min(MAX_SLOW_START_EXPONENT).exp2() - 1.0).min(window.ssthresh);
            left = left.saturating_sub(1);
        }
        if window.cwnd >= window.ssthresh {
            for _ in 0..left {
                self.cwnd_cnt += self.rho * self.rho / window.cwnd.floor().max(1.0);
            }
            if self.cwnd_cnt >= 1.0 {
                let whole = self.cwnd_cnt.floor();
                self.cwnd_cnt -= whole;
                window.cwnd += whole;
            }
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        cut(window.cwnd / 2.0, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("rho", self.rho));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(rtt_ms: u64) -> AckSample {
        AckSample { segments_acked: 1, rtt: Some(rtt_ms * 1_000_000 + 400_000), ..Default::default() }
    }

    fn step(h: &mut Hybla, w: &mut Window, rtt_ms: u64) {
        let a = ack(rtt_ms);
        h.on_ack_event(w, &a);
        h.on_ack(w, &a);
    }

    /// A 200-ms path (ρ = 200/50 = 4; the 0.4 ms beyond whole milliseconds ignored): slow
    /// start adds 2⁴ − 1 = 15 per ACK up to ssthresh; congestion avoidance at cwnd 40
    /// earns 16/40 per ACK, a whole segment at the third ACK (1.2, 0.2 left).
    #[test]
    fn rho_scales_both_phases() {
        let mut h = HyblaConfig::default().build();
        let mut w = Window { cwnd: 2.0, ssthresh: 40.0 };
        step(&mut h, &mut w, 200);
        assert_eq!((h.rho, w.cwnd), (4.0, 17.0));
        step(&mut h, &mut w, 200);
        assert_eq!(w.cwnd, 32.0);
        step(&mut h, &mut w, 200);
        assert_eq!(w.cwnd, 40.0, "capped at ssthresh");
        step(&mut h, &mut w, 200);
        step(&mut h, &mut w, 200);
        assert_eq!(w.cwnd, 40.0);
        step(&mut h, &mut w, 200);
        assert_eq!(w.cwnd, 41.0);
        assert!((h.cwnd_cnt - 0.2).abs() < 1e-9);
        // a shorter path than RTT₀ is Reno (ρ = 1): one segment per ACK in slow start
        let mut h = HyblaConfig::default().build();
        let mut w = Window { cwnd: 2.0, ssthresh: 40.0 };
        step(&mut h, &mut w, 20);
        assert_eq!((h.rho, w.cwnd), (1.0, 3.0));
        // a later 100-ms sample is no new minimum: ρ stays 1
        step(&mut h, &mut w, 100);
        assert_eq!(h.rho, 1.0, "not a new minimum");
        // ρ = 2000/50 = 40: slow start adds 2¹⁶ − 1, not 2⁴⁰ − 1
        let mut h = HyblaConfig::default().build();
        let mut w = Window { cwnd: 2.0, ssthresh: 1e9 };
        step(&mut h, &mut w, 2000);
        assert_eq!((h.rho, w.cwnd), (40.0, 2.0 + 65535.0));
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&HyblaConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&HyblaConfig { reference_rtt: Duration(0) }).unwrap_err().0, "reference_rtt");
    }
}
