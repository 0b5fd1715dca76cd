//! Standard TCP congestion avoidance (RFC 5681) as TCP(1, 1/2), and the shared Reno
//! helpers every window-based algorithm builds on (as Linux's `tcp_slow_start` /
//! `tcp_cong_avoid_ai`).
use super::{Aimd, CongestionEvent, Reduction, Window};
use serde::{Deserialize, Serialize};

/// `cc = "reno"`: no parameters; it is TCP(α = 1, β = 0.5).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RenoConfig {}

impl RenoConfig {
    pub fn build(&self) -> Aimd {
        Aimd::with_label(1.0, 0.5, "reno".into())
    }
}

impl super::Algorithm for RenoConfig {
    type Controller = Aimd;
    fn build(&self) -> Aimd {
        RenoConfig::build(self)
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
