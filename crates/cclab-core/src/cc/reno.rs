//! Standard TCP congestion avoidance (RFC 5681) as TCP(1, 1/2), and the shared Reno
//! helpers every window-based algorithm builds on (as Linux's `tcp_slow_start` /
//! `tcp_cong_avoid_ai`).
use super::{Aimd, Window};
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
