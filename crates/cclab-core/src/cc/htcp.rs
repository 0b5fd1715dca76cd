//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004; draft-leith-tcp-htcp-06), as ns-3.44's TcpHtcp (read, not copied). The
//! increase grows with the time since the last congestion event, the decrease adapts to
//! the queue the flow saw.
//!
//! - Slow start is NewReno's.
//! - Congestion avoidance: cwnd += α/cwnd per ACK, with Δ the time since the last
//!   congestion event, α(Δ) = 1 for Δ ≤ Δ_L (`delta_l`, 1 s), else
//!   1 + 10(Δ − Δ_L) + ¼(Δ − Δ_L)²; α = max(1, 2(1 − β)·α(Δ)), Δ read at every ACK.
//! - A congestion event: β = RTT_min/RTT_max over the RTT samples since the last one,
//!   held in [0.5, 0.8], unless the throughput of the period (segments acknowledged
//!   outside recovery over its length) moved by more than `throughput_ratio` (0.2)
//!   from the previous period's, or there is no earlier period: then
//!   β = `default_backoff` (0.5). ssthresh = cwnd = max(2, β·cwnd).
//!
//! Deviations from ns-3.44, each where ns-3 departs from the draft: ns-3 adds α *bytes*
//! per ACK (its adder is (MSS² + cwnd·α)/cwnd, i.e. Reno's MSS²/cwnd plus α), so its
//! H-TCP grows barely faster than Reno however long Δ; here α/cwnd segments, as the
//! draft and Linux's `tcp_htcp.c`. ns-3 compares the throughputs in integers (the change
//! counts as small whenever the throughput rose by less than 100 %, and never when it
//! fell) and does not bound β; here |B − B′|/B′ ≤ 0.2 and β ∈ [0.5, 0.8] as the draft.
//! ns-3 starts β at 0 (α = 2·α(Δ) before the first loss) and Δ at the simulation's
//! start; here β starts at `default_backoff` and Δ at the flow's first ACK. The cut is
//! of cwnd (ns-3: BytesInFlight). No RTT scaling (neither does ns-3; Linux's
//! `use_rtt_scaling`).
use super::reno::{additive_increase, cut, slow_start_leftover};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};

/// β's bounds (draft-leith-tcp-htcp-06 §3.2; Linux `BETA_MIN`, `BETA_MAX`).
const BETA_MIN: f64 = 0.5;
const BETA_MAX: f64 = 0.8;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HtcpConfig {
    /// β when the throughput changed or is unknown (ns-3 `DefaultBackoff`: 0.5).
    pub default_backoff: f64,
    /// The relative throughput change above which β is `default_backoff` (ns-3
    /// `ThroughputRatio`: 0.2).
    pub throughput_ratio: f64,
    /// Δ_L: for this long after a congestion event the increase is Reno's (ns-3
    /// `DeltaL`: 1 s).
    pub delta_l: Duration,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        HtcpConfig { default_backoff: 0.5, throughput_ratio: 0.2, delta_l: Duration::from_secs_f64(1.0) }
    }
}

impl Algorithm for HtcpConfig {
    type Controller = Htcp;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        if !(self.default_backoff > 0.0 && self.default_backoff < 1.0) {
            return Err(("default_backoff", format!("{} is outside (0, 1)", num(self.default_backoff))));
        }
        if !(self.throughput_ratio >= 0.0 && self.throughput_ratio <= 100.0) {
            return Err(("throughput_ratio", format!("{} is not in [0, 100]", num(self.throughput_ratio))));
        }
        super::westwood::validate_seconds("delta_l", self.delta_l.secs_f64())
    }

    fn build(&self) -> Htcp {
        Htcp {
            config: self.clone(),
            alpha: 1.0,
            beta: self.default_backoff,
            last_con: None,
            min_rtt: None,
            max_rtt: None,
            acked: 0,
            throughput: 0.0,
            last_throughput: 0.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Htcp {
    config: HtcpConfig,
    pub alpha: f64,
    pub beta: f64,
    /// The last congestion event (the first ACK before any).
    last_con: Option<Time>,
    /// The period's smallest and largest RTT samples (ns).
    min_rtt: Option<Time>,
    max_rtt: Option<Time>,
    /// Segments acknowledged outside recovery in the period; its throughput (segments/s)
    /// and the previous period's.
    acked: u64,
    throughput: f64,
    last_throughput: f64,
}

impl Htcp {
    /// α from the time since the last congestion event (ns-3 `UpdateAlpha`).
    fn update_alpha(&mut self, now: Time) {
        let delta = now.saturating_sub(self.last_con.unwrap_or(now)) as f64 / 1e9;
        let over = delta - self.config.delta_l.secs_f64();
        let a = if over <= 0.0 { 1.0 } else { 1.0 + 10.0 * over + 0.25 * over * over };
        self.alpha = (2.0 * (1.0 - self.beta) * a).max(1.0);
    }

    /// β at a congestion event (ns-3 `UpdateBeta`, with the draft's test).
    fn update_beta(&mut self) {
        self.beta = self.config.default_backoff;
        if self.last_throughput > 0.0 && (self.throughput - self.last_throughput).abs() / self.last_throughput <= self.config.throughput_ratio {
            if let (Some(min), Some(max)) = (self.min_rtt, self.max_rtt) {
                self.beta = (min as f64 / max as f64).clamp(BETA_MIN, BETA_MAX);
            }
        }
    }
}

impl CongestionControl for Htcp {
    fn label(&self) -> String {
        "htcp".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        let start = *self.last_con.get_or_insert(ack.now);
        if let Some(rtt) = ack.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.max_rtt = Some(self.max_rtt.map_or(rtt, |m| m.max(rtt)));
        }
        if !ack.in_recovery {
            self.acked += ack.segments_acked as u64;
        }
        if ack.now > start {
            self.throughput = self.acked as f64 * 1e9 / (ack.now - start) as f64;
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        let left = slow_start_leftover(window, ack.segments_acked);
        self.update_alpha(ack.now);
        if window.cwnd >= window.ssthresh && left > 0 {
            additive_increase(window, self.alpha);
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        self.update_beta();
        self.last_con = Some(event.now);
        self.update_alpha(event.now);
        self.min_rtt = None;
        self.max_rtt = None;
        self.last_throughput = self.throughput;
        self.throughput = 0.0;
        self.acked = 0;
        cut(self.beta * window.cwnd, event)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("beta", self.beta));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionSignal;

    const S: Time = 1_000_000_000;

    fn ack(now: Time, rtt_ms: u64) -> AckSample {
        AckSample { now, segments_acked: 1, rtt: Some(rtt_ms * 1_000_000), ..Default::default() }
    }

    fn loss(now: Time) -> CongestionEvent {
        CongestionEvent { now, ..crate::cc::westwood::tests::event(CongestionSignal::FastRetransmit) }
    }

    /// α(Δ) by hand with β = 0.5: Δ = 0.5 s → 1; Δ = 3 s → 1 + 10·2 + ¼·4 = 22; with
    /// β = 0.8, 2·0.2·22 = 8.8; the increase per ACK is α/cwnd.
    #[test]
    fn alpha_grows_with_time_since_congestion() {
        let mut h = HtcpConfig::default().build();
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        h.on_ack_event(&w, &ack(0, 50));
        h.on_ack(&mut w, &ack(S / 2, 50));
        assert_eq!(h.alpha, 1.0);
        assert!((w.cwnd - 100.01).abs() < 1e-12);
        h.on_ack(&mut w, &ack(3 * S, 50));
        assert!((h.alpha - 22.0).abs() < 1e-12);
        assert!((w.cwnd - (100.01 + 22.0 / 100.01)).abs() < 1e-12);
        h.beta = 0.8;
        h.update_alpha(3 * S);
        assert!((h.alpha - 8.8).abs() < 1e-12);
        // α never below 1: β 0.8 right after a loss gives 0.4 → 1
        h.update_alpha(0);
        assert_eq!(h.alpha, 1.0);
    }

    /// β: the first event has no earlier throughput → 0.5. Then a period with RTTs 40–50 ms
    /// and the same throughput (10 segments/s twice) → 40/50 = 0.8; RTTs 20–80 ms → 0.25,
    /// held at 0.5; a throughput 50 % higher → 0.5.
    #[test]
    fn beta_from_rtt_ratio_when_throughput_is_steady() {
        let mut h = HtcpConfig::default().build();
        let w = Window { cwnd: 100.0, ssthresh: 50.0 };
        let period = |h: &mut Htcp, start: Time, acks: u64, rtts: (u64, u64)| {
            for i in 1..=acks {
                let rtt = if i == 1 { rtts.0 } else { rtts.1 };
                h.on_ack_event(&w, &ack(start + i * S / acks, rtt));
            }
            h.on_congestion(&w, &loss(start + S))
        };
        h.on_ack_event(&w, &ack(0, 40));
        let r = period(&mut h, 0, 10, (40, 50));
        assert_eq!((h.beta, r.cwnd), (0.5, 50.0), "no earlier period");
        let r = period(&mut h, S, 10, (40, 50));
        assert!((h.beta - 0.8).abs() < 1e-12 && (r.cwnd - 80.0).abs() < 1e-9, "β {}", h.beta);
        period(&mut h, 2 * S, 10, (20, 80));
        assert_eq!(h.beta, 0.5, "0.25 held at 0.5");
        period(&mut h, 3 * S, 15, (40, 50));
        assert_eq!(h.beta, 0.5, "throughput +50 %");
    }

    #[test]
    fn validate_names_the_field() {
        assert_eq!(Algorithm::validate(&HtcpConfig::default()), Ok(()));
        assert_eq!(Algorithm::validate(&HtcpConfig { default_backoff: 0.0, ..Default::default() }).unwrap_err().0, "default_backoff");
        assert_eq!(Algorithm::validate(&HtcpConfig { throughput_ratio: -1.0, ..Default::default() }).unwrap_err().0, "throughput_ratio");
        assert_eq!(Algorithm::validate(&HtcpConfig { delta_l: Duration(0), ..Default::default() }).unwrap_err().0, "delta_l");
    }
}
