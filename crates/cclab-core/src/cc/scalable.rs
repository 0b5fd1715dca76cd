//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 2003), as ns-3.44's TcpScalable (read, not copied): a multiplicative
//! increase and decrease, so that the time to recover from a loss does not grow with
//! the window.
//!
//! - Slow start is NewReno's.
//! - Congestion avoidance adds one segment per min(cwnd, `ai_factor`) segments
//!   acknowledged: Reno below 50 segments, +cwnd/50 per RTT (the paper's a = 0.02 per
//!   ACK) above.
//! - A loss: ssthresh = cwnd = max(2, ⌊cwnd·(1 − `md_factor`)⌋), the paper's b = 0.125.
//!
//! Deviations from ns-3: the count uses the shared [`cong_avoid_ai`] (Linux's
//! `tcp_scalable.c`), which keeps what is left over above a whole step where ns-3 zeroes
//! it (the same with one segment per ACK); the cut is of cwnd (ns-3: BytesInFlight).
use super::kernel::whole;
use super::reno::{cong_avoid_ai, cut, slow_start_leftover};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableConfig {
    /// One segment more per this many acknowledged, once the window is larger (ns-3
    /// `AIFactor`: 50, the paper's a = 1/50).
    pub ai_factor: u32,
    /// The fraction a loss takes off the window (ns-3 `MDFactor`: 0.125).
    pub md_factor: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { ai_factor: 50, md_factor: 0.125 }
    }
}

impl Algorithm for ScalableConfig {
    type Controller = Scalable;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(1..=1_000_000).contains(&self.ai_factor) {
            return Err(("ai_factor", format!("{} is not a segment count in [1, 1000000]", self.ai_factor)));
        }
        if !(self.md_factor > 0.0 && self.md_factor < 1.0) {
            return Err(("md_factor", format!("{} is outside (0, 1) (the fraction a loss takes off)", crate::schema::Num(self.md_factor))));
        }
        Ok(())
    }

    fn build(&self) -> Scalable {
        Scalable { config: self.clone(), ack_cnt: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    config: ScalableConfig,
    /// Segments acknowledged toward the next whole segment.
    ack_cnt: u32,
}

impl Scalable {
    /// Congestion avoidance for `acked` segments (YeAH's fast mode runs it too).
    pub fn congestion_avoidance(window: &mut Window, ack_cnt: &mut u32, ai_factor: u32, acked: u32) {
        let old = whole(window.cwnd).max(1);
        let mut cwnd = old;
        cong_avoid_ai(&mut cwnd, ack_cnt, old.min(ai_factor), acked);
        if cwnd != old {
            window.cwnd = cwnd as f64;
        }
    }
}

impl CongestionControl for Scalable {
    fn label(&self) -> String {
        "scalable".into()
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        let left = slow_start_leftover(window, ack.segments_acked);
        if window.cwnd >= window.ssthresh {
            Scalable::congestion_avoidance(window, &mut self.ack_cnt, self.config.ai_factor, left);
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        cut((whole(window.cwnd) as f64 * (1.0 - self.config.md_factor)).floor(), event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ack_cnt", self.ack_cnt as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::CongestionSignal;

    fn run(s: &mut Scalable, w: &mut Window, n: usize) {
        for _ in 0..n {
            s.on_ack(w, &AckSample { segments_acked: 1, ..Default::default() });
        }
    }

    /// cwnd 20 (< 50): +1 after 20 ACKs (Reno); cwnd 200: +1 per 50 ACKs, so 200 ACKs
    /// (one RTT) give +4 = 2 % of the window.
    #[test]
    fn one_segment_per_min_cwnd_50_acked() {
        let mut s = ScalableConfig::default().build();
        let mut w = Window { cwnd: 20.0, ssthresh: 10.0 };
        run(&mut s, &mut w, 19);
        assert_eq!(w.cwnd, 20.0);
        run(&mut s, &mut w, 1);
        assert_eq!(w.cwnd, 21.0);
        let mut s = ScalableConfig::default().build();
        let mut w = Window { cwnd: 200.0, ssthresh: 10.0 };
        run(&mut s, &mut w, 49);
        assert_eq!(w.cwnd, 200.0);
        run(&mut s, &mut w, 151);
        assert_eq!(w.cwnd, 204.0);
        // ai_factor 100: at cwnd 200, +2 per 200 ACKs
        let mut s = ScalableConfig { ai_factor: 100, ..Default::default() }.build();
        let mut w = Window { cwnd: 200.0, ssthresh: 10.0 };
        run(&mut s, &mut w, 200);
        assert_eq!(w.cwnd, 202.0);
    }

    /// The cut keeps ⌊7/8⌋ of the window: 200 → 175, 9 → 7, 2 → 2.
    #[test]
    fn cut_by_an_eighth() {
        let mut s = ScalableConfig::default().build();
        for (cwnd, after) in [(200.0, 175.0), (9.0, 7.0), (2.0, 2.0), (200.9, 175.0)] {
            let r = s.on_congestion(&Window { cwnd, ssthresh: 1e9 }, &event(CongestionSignal::FastRetransmit));
            assert_eq!((r.ssthresh, r.cwnd), (after, after), "cwnd {cwnd}");
        }
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&ScalableConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&ScalableConfig { ai_factor: 0, ..Default::default() }).unwrap_err().0, "ai_factor");
        assert_eq!(Algorithm::validate(&ScalableConfig { md_factor: 1.0, ..Default::default() }).unwrap_err().0, "md_factor");
        assert_eq!(Algorithm::validate(&ScalableConfig { md_factor: f64::NAN, ..Default::default() }).unwrap_err().0, "md_factor");
    }
}
