//! Standard TCP congestion avoidance (RFC 5681) as TCP(1, 1/2), and the shared Reno
//! helpers every window-based algorithm builds on (as Linux's `tcp_slow_start` /
//! `tcp_cong_avoid_ai`).
//!
//! Under the `linux` profile ([`CongestionControl::use_linux_rules`]) Reno computes as
//! tcp_cong.c does ([`LinuxReno`]): a whole-segment window that grows per delivered
//! segment, [`linux_slow_start`] handing what is left over above ssthresh to
//! [`cong_avoid_ai`] (+1 per cwnd segments, counted in `snd_cwnd_cnt`), ssthresh =
//! max(cwnd/2, 2) in integers.
use super::kernel::whole;
use super::{AckSample, Aimd, CongestionControl, CongestionEvent, Reduction, Window};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// `cc = "reno"`: no parameters; it is TCP(α = 1, β = 0.5).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RenoConfig {}

impl RenoConfig {
    pub fn build(&self) -> Reno {
        Reno::Rfc(Aimd::with_label(1.0, 0.5, "reno".into()))
    }
}

impl super::Algorithm for RenoConfig {
    type Controller = Reno;
    fn build(&self) -> Reno {
        RenoConfig::build(self)
    }
}

/// Reno: TCP(1, ½) as the `rfc` and `ns2` profiles compute it, or tcp_cong.c's integer
/// arithmetic once the sender asks for the `linux` rules (the variant is chosen once,
/// when the sender is made).
#[derive(Clone, Debug)]
pub enum Reno {
    Rfc(Aimd),
    Linux(LinuxReno),
}

impl CongestionControl for Reno {
    fn label(&self) -> String {
        match self {
            Reno::Rfc(aimd) => aimd.label(),
            Reno::Linux(_) => "reno".into(),
        }
    }

    #[inline]
    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        match self {
            Reno::Rfc(aimd) => aimd.on_ack(window, ack),
            Reno::Linux(linux) => linux.cong_avoid(window, ack.segments_acked),
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        match self {
            Reno::Rfc(aimd) => aimd.on_congestion(window, event),
            Reno::Linux(linux) => {
                let ssthresh = linux.ssthresh(window) as f64;
                Reduction { ssthresh, cwnd: ssthresh }
            }
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        match self {
            Reno::Rfc(aimd) => aimd.state(out),
            Reno::Linux(_) => {
                out.push(("alpha", 1.0));
                out.push(("beta", 0.5));
            }
        }
    }

    fn use_linux_rules(&mut self, _socket: super::LinuxSocket) {
        *self = Reno::Linux(LinuxReno::default());
    }

    fn on_loss_state(&mut self, _window: &mut Window, _now: Time) {
        if let Reno::Linux(linux) = self {
            linux.loss_state();
        }
    }
}

/// `tcp_slow_start`: cwnd += acked up to ssthresh (no ABC cap: a stretch ACK of N grows
/// it by N); returns the segments left over above ssthresh, for congestion avoidance.
#[inline]
pub fn linux_slow_start(cwnd: &mut u32, ssthresh: u32, acked: u32) -> u32 {
    let grown = cwnd.saturating_add(acked).min(ssthresh);
    let left = acked.wrapping_sub(grown.wrapping_sub(*cwnd));
    *cwnd = grown;
    left
}

/// `tcp_cong_avoid_ai(w, acked)`: +1 segment per `w` delivered segments, counted in
/// `cwnd_cnt` (the kernel's `snd_cwnd_cnt`). A count already at `w` (left from a larger
/// `w`) first gives its +1 and restarts; then `acked` is added and every whole `w` in
/// the count becomes one more segment. Reno passes w = cwnd, CUBIC its `cnt`. (The
/// kernel's `snd_cwnd_clamp` is unbounded on this path.)
#[inline]
pub fn cong_avoid_ai(cwnd: &mut u32, cwnd_cnt: &mut u32, w: u32, acked: u32) {
    let w = w.max(1);
    if *cwnd_cnt >= w {
        *cwnd_cnt = 0;
        *cwnd = cwnd.saturating_add(1);
    }
    *cwnd_cnt = cwnd_cnt.wrapping_add(acked);
    if *cwnd_cnt >= w {
        let whole_ws = *cwnd_cnt / w;
        *cwnd_cnt -= whole_ws * w;
        *cwnd = cwnd.saturating_add(whole_ws);
    }
}

/// Reno as tcp_cong.c computes it (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh`; undo is
/// the trait's default, `tcp_reno_undo_cwnd` = max(cwnd, prior cwnd)). The sender calls
/// `cong_avoid` only where Linux does (snd_una advanced, outside CWR/Recovery, while
/// `tcp_is_cwnd_limited`), with the segments the ACK newly delivered.
#[derive(Clone, Debug, Default)]
pub struct LinuxReno {
    /// `snd_cwnd_cnt`: segments delivered toward the next +1 in congestion avoidance.
    pub cwnd_cnt: u32,
}

impl LinuxReno {
    /// `tcp_reno_cong_avoid(acked)`.
    pub fn cong_avoid(&mut self, window: &mut Window, acked: u32) {
        let mut cwnd = whole(window.cwnd);
        let mut acked = acked;
        if cwnd < whole(window.ssthresh) {
            acked = linux_slow_start(&mut cwnd, whole(window.ssthresh), acked);
            if acked == 0 {
                window.cwnd = cwnd as f64;
                return;
            }
        }
        let w = cwnd;
        cong_avoid_ai(&mut cwnd, &mut self.cwnd_cnt, w, acked);
        window.cwnd = cwnd as f64;
    }

    /// `tcp_reno_ssthresh`: max(cwnd/2, 2), integer halving; the reduction that asks for
    /// it restarts the count (`tcp_init_cwnd_reduction`).
    pub fn ssthresh(&mut self, window: &Window) -> u32 {
        self.cwnd_cnt = 0;
        (whole(window.cwnd) >> 1).max(2)
    }

    /// `tcp_enter_loss` restarts the count whether or not it reduced ssthresh.
    pub fn loss_state(&mut self) {
        self.cwnd_cnt = 0;
    }
}

/// Slow start, as ns-2's `opencwnd`: one segment per new ACK.
#[inline]
pub fn slow_start(window: &mut Window) {
    window.cwnd += 1.0;
}

/// Congestion avoidance: `alpha` segments per window's worth of ACKs, i.e. α per RTT
/// with one ACK per segment (ns-2 `windowOption_ 1`: cwnd += increase_num_ / cwnd).
#[inline]
pub fn additive_increase(window: &mut Window, alpha: f64) {
    window.cwnd += alpha / window.cwnd;
}

/// The increase side of every window-based algorithm here: slow start below ssthresh,
/// else `alpha` segments per RTT (Reno: α = 1).
#[inline]
pub fn increase(window: &mut Window, alpha: f64) {
    if window.cwnd < window.ssthresh {
        slow_start(window);
    } else {
        additive_increase(window, alpha);
    }
}

/// ns-3's `TcpNewReno::SlowStart` as the ns-3 catalogue's algorithms run it: below
/// ssthresh one segment for the ACK ([`slow_start`]), its other segments returned for
/// congestion avoidance (at or above ssthresh, all of them are).
#[inline]
pub fn slow_start_leftover(window: &mut Window, segments_acked: u32) -> u32 {
    if window.cwnd < window.ssthresh {
        slow_start(window);
        segments_acked.saturating_sub(1)
    } else {
        segments_acked
    }
}

/// The lowest ssthresh any decrease may set (RFC 5681: 2 segments).
pub const MIN_SSTHRESH: f64 = 2.0;

/// The window after a cut to `target` segments. RFC 5681 keeps ssthresh and cwnd at 2
/// segments or more (cwnd = ssthresh); ns-2's `slowdown` (`tcp.ns2.integer_ssthresh`)
/// sets ssthresh to the integer part of `target` (at least 2) and cwnd to `target` itself
/// (at least 1), so a small window can fall below two segments. After a timeout the
/// sender restarts from one segment whatever `cwnd` says.
pub fn cut(target: f64, event: &CongestionEvent) -> Reduction {
    if event.integer_ssthresh {
        Reduction { ssthresh: target.floor().max(MIN_SSTHRESH), cwnd: target.max(1.0) }
    } else {
        let ssthresh = target.max(MIN_SSTHRESH);
        Reduction { ssthresh, cwnd: ssthresh }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::CongestionSignal;

    fn linux_reno() -> Reno {
        let mut reno = RenoConfig::default().build();
        reno.use_linux_rules(crate::cc::LinuxSocket { mss_bytes: 1448, paced: false });
        reno
    }

    fn acked(segments: u32) -> AckSample {
        AckSample { segments_acked: segments, ..Default::default() }
    }

    /// tcp_cong_avoid_ai by hand: w = 10, counts of 4 → +1 at the third call (12 ≥ 10,
    /// 2 left); a count already at w (credit from a larger w) first gives +1 and
    /// restarts; a stretch count of 3·w gives +3 at once.
    #[test]
    fn cong_avoid_ai_counts_whole_ws() {
        let (mut cwnd, mut cnt) = (10, 0);
        cong_avoid_ai(&mut cwnd, &mut cnt, 10, 4);
        cong_avoid_ai(&mut cwnd, &mut cnt, 10, 4);
        assert_eq!((cwnd, cnt), (10, 8));
        cong_avoid_ai(&mut cwnd, &mut cnt, 10, 4);
        assert_eq!((cwnd, cnt), (11, 2));
        let (mut cwnd, mut cnt) = (50, 25);
        cong_avoid_ai(&mut cwnd, &mut cnt, 20, 3);
        assert_eq!((cwnd, cnt), (51, 3), "the credit of 25 ≥ 20 gives +1 first, then restarts");
        let (mut cwnd, mut cnt) = (50, 5);
        cong_avoid_ai(&mut cwnd, &mut cnt, 20, 60);
        assert_eq!((cwnd, cnt), (53, 5));
        // acked 0: only the credit rule can act
        let (mut cwnd, mut cnt) = (50, 5);
        cong_avoid_ai(&mut cwnd, &mut cnt, 20, 0);
        assert_eq!((cwnd, cnt), (50, 5));
    }

    /// tcp_slow_start: up to ssthresh, the rest returned; no cap on a stretch ACK.
    #[test]
    fn slow_start_returns_what_is_left_above_ssthresh() {
        let mut cwnd = 8;
        assert_eq!(linux_slow_start(&mut cwnd, 10, 5), 3);
        assert_eq!(cwnd, 10);
        let mut cwnd = 10;
        assert_eq!(linux_slow_start(&mut cwnd, u32::MAX, 7), 0);
        assert_eq!(cwnd, 17);
    }

    /// Reno under the linux rules with ACKs of 2 segments (delayed ACKs): +1 per cwnd
    /// segments delivered, i.e. one per RTT, not one per cwnd ACKs. From cwnd 10 in
    /// congestion avoidance: 5 ACKs (10 segments) → 11, count 0; 6 more (12 ≥ 11) → 12,
    /// count 1; 6 more (1 + 12 ≥ 12) → 13, count 1; 6 more (1 + 12 ≥ 13) → 14, count 0.
    #[test]
    fn integer_increase_per_delivered_segment() {
        let mut reno = linux_reno();
        let mut w = Window { cwnd: 10.0, ssthresh: 10.0 };
        let mut cwnd_after = Vec::new();
        for _ in 0..23 {
            reno.on_ack(&mut w, &acked(2));
            cwnd_after.push(w.cwnd);
        }
        assert_eq!(cwnd_after[4], 11.0);
        assert_eq!(cwnd_after[3], 10.0);
        assert_eq!((cwnd_after[9], cwnd_after[10]), (11.0, 12.0));
        assert_eq!((cwnd_after[15], cwnd_after[16]), (12.0, 13.0));
        assert_eq!((cwnd_after[21], cwnd_after[22]), (13.0, 14.0));
        let Reno::Linux(linux) = &reno else { panic!() };
        assert_eq!(linux.cwnd_cnt, 0);
        assert!(cwnd_after.iter().all(|c| c.fract() == 0.0), "whole segments");
        // slow start: ACKs of 2 add 2 each, the overshoot above ssthresh goes to the count
        let mut w = Window { cwnd: 10.0, ssthresh: 15.0 };
        reno.on_ack(&mut w, &acked(2));
        reno.on_ack(&mut w, &acked(2));
        assert_eq!(w.cwnd, 14.0);
        reno.on_ack(&mut w, &acked(2)); // 1 to reach 15, 1 left for the count
        let Reno::Linux(linux) = &reno else { panic!() };
        assert_eq!((w.cwnd, linux.cwnd_cnt), (15.0, 1));
    }

    /// ssthresh = max(cwnd >> 1, 2) and the count restarts; the rfc Reno is untouched.
    #[test]
    fn linux_ssthresh_halves_in_integers() {
        let mut reno = linux_reno();
        let mut w = Window { cwnd: 11.0, ssthresh: 5.0 };
        reno.on_ack(&mut w, &acked(3));
        let r = reno.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert_eq!(r.ssthresh, 5.0);
        let Reno::Linux(linux) = &reno else { panic!() };
        assert_eq!(linux.cwnd_cnt, 0);
        assert_eq!(reno.on_congestion(&Window { cwnd: 3.0, ssthresh: 3.0 }, &event(CongestionSignal::Timeout)).ssthresh, 2.0);
        assert_eq!(reno.undo_cwnd(&Window { cwnd: 5.0, ssthresh: 5.0 }, 11.0), 11.0);
        let mut rfc = RenoConfig::default().build();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        rfc.on_ack(&mut w, &acked(2));
        assert_eq!(w.cwnd, 10.1, "rfc: 1/cwnd per ACK");
    }
}
