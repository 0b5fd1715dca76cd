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
//!
//! Under the `linux` profile ([`CongestionControl::use_linux_rules`]) the arithmetic is
//! tcp_dctcp.c's ([`LinuxDctcp`]): α in 1/1024 (`DCTCP_MAX_ALPHA`), g = 2^−`dctcp_shift_g`
//! (4), the cut max(cwnd − cwnd·α/2048, 2), a loss max(cwnd/2, 2), growth and integer
//! windows Reno's ([`super::reno::LinuxReno`]), undo to the window before the last cut.
//! (DCTCP is not built into the kernel the profile follows, and ECN is not negotiated
//! there; this is for completeness.)
use super::kernel::whole;
use super::reno::{cut, increase, LinuxReno};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};
use crate::sim::Time;
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
    /// DCTCP's ns-2 code is a separate patch, not in ns-2.35.
    fn in_ns2(&self) -> bool {
        false
    }
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
        Dctcp { g: self.g, alpha: self.initial_alpha, window_end: 0, acked: 0, marked: 0, linux: None }
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
    /// tcp_dctcp.c's arithmetic, once the sender asks for the linux rules.
    pub linux: Option<Box<LinuxDctcp>>,
}

/// The largest α (1.0) in the kernel's units.
const DCTCP_MAX_ALPHA: u32 = 1024;

/// DCTCP as tcp_dctcp.c computes it. The window of data is the `rfc` variant's (from the
/// delivered count; the kernel's ends when snd_una reaches the snd_nxt it began with).
#[derive(Clone, Debug)]
pub struct LinuxDctcp {
    /// α in 1/1024.
    pub alpha: u32,
    /// g = 2^−shift_g.
    shift_g: u32,
    /// `tp->delivered` and `tp->delivered_ce` (segments delivered by ACKs with ECN-Echo),
    /// now and when the window began.
    delivered: u64,
    delivered_ce: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    window_end: u64,
    /// The window at the last cut (`loss_cwnd`), for undo.
    pub loss_cwnd: u32,
    reno: LinuxReno,
}

impl LinuxDctcp {
    fn new(g: f64, initial_alpha: f64) -> LinuxDctcp {
        LinuxDctcp {
            alpha: ((initial_alpha * DCTCP_MAX_ALPHA as f64).round() as u32).min(DCTCP_MAX_ALPHA),
            shift_g: (-g.log2()).round().clamp(0.0, 10.0) as u32,
            delivered: 0,
            delivered_ce: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            window_end: 0,
            loss_cwnd: 0,
            reno: LinuxReno::default(),
        }
    }

    /// `dctcp_update_alpha`, once a window of data is delivered: α ← α − α·g (all of α
    /// once that rounds to 0, `min_not_zero`) + g · (CE-echoed fraction), at most 1024.
    fn ack_event(&mut self, ack: &AckSample) {
        let newly = ack.delivered.saturating_sub(self.delivered);
        self.delivered = ack.delivered;
        if ack.ece {
            self.delivered_ce += newly;
        }
        if self.delivered < self.window_end {
            return;
        }
        let delivered = self.delivered - self.old_delivered;
        let mut delivered_ce = self.delivered_ce - self.old_delivered_ce;
        let decay = self.alpha >> self.shift_g;
        self.alpha -= if decay == 0 { self.alpha } else { decay };
        if delivered_ce > 0 {
            delivered_ce <<= 10 - self.shift_g;
            delivered_ce /= delivered.max(1);
            self.alpha = (self.alpha as u64 + delivered_ce).min(DCTCP_MAX_ALPHA as u64) as u32;
        }
        self.old_delivered = self.delivered;
        self.old_delivered_ce = self.delivered_ce;
        self.window_end = self.delivered + (ack.in_flight as u64).max(1);
    }

    /// `dctcp_ssthresh` for an ECN-Echo; `dctcp_react_to_loss` (from `dctcp_state`
    /// entering Recovery, or `CA_EVENT_LOSS`) for a loss.
    fn ssthresh(&mut self, window: &Window, signal: CongestionSignal) -> u32 {
        let cwnd = whole(window.cwnd);
        self.loss_cwnd = cwnd;
        self.reno.cwnd_cnt = 0;
        match signal {
            CongestionSignal::EcnEcho => cwnd.wrapping_sub(cwnd.wrapping_mul(self.alpha) >> 11).max(2),
            CongestionSignal::FastRetransmit | CongestionSignal::Timeout => (cwnd >> 1).max(2),
        }
    }
}

impl CongestionControl for Dctcp {
    fn label(&self) -> String {
        "dctcp".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        if let Some(linux) = self.linux.as_deref_mut() {
            return linux.ack_event(ack);
        }
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

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        if let Some(linux) = self.linux.as_deref_mut() {
            return linux.reno.cong_avoid(window, ack.segments_acked);
        }
        increase(window, 1.0);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        if let Some(linux) = self.linux.as_deref_mut() {
            let ssthresh = linux.ssthresh(window, event.signal) as f64;
            return Reduction { ssthresh, cwnd: ssthresh };
        }
        match event.signal {
            CongestionSignal::EcnEcho => cut(window.cwnd * (1.0 - self.alpha / 2.0), event),
            CongestionSignal::FastRetransmit | CongestionSignal::Timeout => cut(window.cwnd / 2.0, event),
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        match self.linux.as_deref() {
            Some(linux) => out.push(("alpha", linux.alpha as f64 / DCTCP_MAX_ALPHA as f64)),
            None => out.push(("alpha", self.alpha)),
        }
    }

    fn use_linux_rules(&mut self, _socket: super::LinuxSocket) {
        self.linux = Some(Box::new(LinuxDctcp::new(self.g, self.alpha)));
    }

    fn on_loss_state(&mut self, _window: &mut Window, _now: Time) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.reno.loss_state();
        }
    }

    /// `dctcp_cwnd_undo`: max(cwnd, the window at the last cut).
    fn undo_cwnd(&mut self, window: &Window, prior_cwnd: f64) -> f64 {
        match self.linux.as_deref() {
            Some(linux) => window.cwnd.max(linux.loss_cwnd as f64),
            None => window.cwnd.max(prior_cwnd),
        }
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

    /// tcp_dctcp.c's integers: α from 1024 with g = 1/16. The first ACK ends the empty
    /// first window (α − 1024/16 = 960); a window of 10 segments, 3 of them echoed CE:
    /// 960 − 60 + ⌊(3 << 6)/10⌋ = 919; a clean one: 919 − 57 = 862. An ECN-Echo cuts
    /// cwnd 40 to 40 − ⌊40·862/2048⌋ = 24, a loss to 20; undo returns to 40. Once α/16
    /// rounds to 0 the whole of α goes (min_not_zero).
    #[test]
    fn linux_alpha_in_1024ths() {
        let mut dctcp = DctcpConfig::default().build();
        dctcp.use_linux_rules(crate::cc::LinuxSocket { mss_bytes: 1448, paced: false });
        let w = Window { cwnd: 40.0, ssthresh: 100.0 };
        let alpha = |d: &Dctcp| d.linux.as_deref().unwrap().alpha;
        dctcp.on_ack_event(&w, &ack(0, false, 0, 10));
        assert_eq!(alpha(&dctcp), 960);
        for k in 1..=10u64 {
            dctcp.on_ack_event(&w, &ack(1, k <= 3, k, 10));
        }
        assert_eq!(alpha(&dctcp), 919);
        for k in 11..=20u64 {
            dctcp.on_ack_event(&w, &ack(1, false, k, 10));
        }
        assert_eq!(alpha(&dctcp), 862);
        let r = dctcp.on_congestion(&w, &event(CongestionSignal::EcnEcho));
        assert_eq!((r.ssthresh, r.cwnd), (24.0, 24.0));
        assert_eq!(dctcp.undo_cwnd(&Window { cwnd: 24.0, ssthresh: 24.0 }, 0.0), 40.0);
        assert_eq!(dctcp.on_congestion(&w, &event(CongestionSignal::FastRetransmit)).ssthresh, 20.0);
        assert_eq!(dctcp.on_congestion(&Window { cwnd: 3.0, ssthresh: 3.0 }, &event(CongestionSignal::Timeout)).ssthresh, 2.0);
        dctcp.linux.as_deref_mut().unwrap().alpha = 15;
        for k in 21..=30u64 {
            dctcp.on_ack_event(&w, &ack(1, false, k, 10));
        }
        assert_eq!(alpha(&dctcp), 0);
        // growth is Reno's under the linux rules: ACKs of 2 in slow start add 2
        let mut w = Window { cwnd: 10.0, ssthresh: 100.0 };
        dctcp.on_ack(&mut w, &ack(2, false, 32, 10));
        assert_eq!(w.cwnd, 12.0);
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
