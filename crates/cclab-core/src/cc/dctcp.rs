//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010): the fraction of ECN-marked data in
//! each window of data, smoothed as α ← (1 − g)·α + g·F (§3.3, g = 1/16, α from 1), and a
//! window cut in proportion, cwnd ← cwnd·(1 − α/2), once per window that saw an ECN-Echo
//! (§3.4). Growth and the response to loss are Reno's (§3.4: a loss halves).
//!
//! DCTCP needs ECN marks on its packets and an exact echo of them: a DCTCP flow is
//! ECN-capable (its `tcp.ecn` is turned on), and its receiver echoes the CE state of what
//! it acknowledges, ACKing at once when that state changes (§3.2) rather than RFC 3168's
//! ECE-until-CWR. Queues must mark (`step_mark`, or RED with `ecn = true`).
//! Window of data: from when the window began, until as much as was then in flight has
//! been delivered (counted in the sender's delivered segments; Linux uses snd_nxt).
use super::reno::{cut, increase};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// The EWMA gain g (RFC 8257: 1/16).
    pub g: f64,
    /// α before the first window (Linux `dctcp_alpha_on_init`: 1).
    pub initial_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, initial_alpha: 1.0 }
    }
}

impl Algorithm for DctcpConfig {
    type Controller = Dctcp;

    /// ECN-capable by definition (RFC 8257 §3.1), echoed exactly (§3.2).
    fn ecn(&self) -> super::EcnUse {
        super::EcnUse::ExactEcho
    }

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", format!("{} is outside (0, 1]", num(self.g))));
        }
        if !(0.0..=1.0).contains(&self.initial_alpha) {
            return Err(("initial_alpha", format!("{} is outside [0, 1]", num(self.initial_alpha))));
        }
        Ok(())
    }

    fn build(&self) -> Dctcp {
        Dctcp { g: self.g, alpha: self.initial_alpha, window_end: 0, acked: 0, marked: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    pub alpha: f64,
    /// The delivered count that ends the current window of data.
    window_end: u64,
    /// Segments delivered in the window, and those whose ACK carried ECN-Echo.
    acked: u64,
    marked: u64,
}

impl CongestionControl for Dctcp {
    fn label(&self) -> String {
        "dctcp".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        let newly = (ack.segments_acked + ack.segments_sacked) as u64;
        self.acked += newly;
        if ack.ece {
            self.marked += newly;
        }
        if ack.delivered >= self.window_end {
            // §3.3: α from the fraction of marked data in the window just ended.
            if self.acked > 0 {
                let fraction = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * fraction;
            }
            self.acked = 0;
            self.marked = 0;
            self.window_end = ack.delivered + (ack.in_flight as u64).max(1);
        }
    }

    fn on_ack(&mut self, window: &mut Window, _ack: &AckSample) {
        increase(window, 1.0);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        match event.signal {
            CongestionSignal::EcnEcho => cut(window.cwnd * (1.0 - self.alpha / 2.0), event),
            CongestionSignal::FastRetransmit | CongestionSignal::Timeout => cut(window.cwnd / 2.0, event),
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;

    fn ack(segments: u32, ece: bool, delivered: u64, in_flight: u32) -> AckSample {
        AckSample { segments_acked: segments, ece, delivered, in_flight, ..Default::default() }
    }

    /// Windows of 10 segments: the first ACK starts a window (α untouched: nothing
    /// counted yet); one with 3 of 10 marked gives α = 15/16·1 + 1/16·0.3; a clean one
    /// 15/16 of that. An ECN-Echo then cuts cwnd 40 by α/2; a loss halves.
    #[test]
    fn alpha_is_the_smoothed_marked_fraction() {
        let mut dctcp = DctcpConfig::default().build();
        let w = Window { cwnd: 40.0, ssthresh: 100.0 };
        dctcp.on_ack_event(&w, &ack(0, false, 0, 10)); // window ends at 10
        assert_eq!(dctcp.alpha, 1.0);
        for k in 1..=10u64 {
            dctcp.on_ack_event(&w, &ack(1, k <= 3, k, 10));
        }
        let first = 15.0 / 16.0 + 0.3 / 16.0;
        assert!((dctcp.alpha - first).abs() < 1e-12, "{}", dctcp.alpha);
        for k in 11..=20u64 {
            dctcp.on_ack_event(&w, &ack(1, false, k, 10));
        }
        let second = first * 15.0 / 16.0;
        assert!((dctcp.alpha - second).abs() < 1e-12);
        let r = dctcp.on_congestion(&w, &event(CongestionSignal::EcnEcho));
        assert!((r.cwnd - 40.0 * (1.0 - second / 2.0)).abs() < 1e-9);
        assert_eq!(dctcp.on_congestion(&w, &event(CongestionSignal::FastRetransmit)).cwnd, 20.0);
    }

    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut DctcpConfig, f64);
        let cases: [(&str, Set, &[f64], &[f64]); 2] = [
            ("g", |c, v| c.g = v, &[0.001, 1.0], &[0.0, 1.5, f64::NAN]),
            ("initial_alpha", |c, v| c.initial_alpha = v, &[0.0, 1.0], &[-0.1, 1.1, f64::NAN]),
        ];
        crate::schema::assert_field_bounds(|c: &DctcpConfig| Algorithm::validate(c), &cases);
    }
}
