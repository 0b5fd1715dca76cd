//! HighSpeed TCP (Floyd, RFC 3649), as ns-3.44's TcpHighSpeed (read, not copied): above
//! 38 segments the response function is steeper than Reno's. A window of w whole
//! segments grows by a(w) segments per RTT and a loss cuts it by the fraction b(w), both
//! read off RFC 3649's Appendix B table (a(w) from 1 to 73, b(w) from 0.5 down to 0.09
//! at 94 717 segments); at w ≤ 38 this is Reno.
//!
//! - Slow start is NewReno's (one segment per ACK).
//! - Congestion avoidance counts a(w) per segment acknowledged and adds one whole segment
//!   each time the count reaches w (ns-3's `m_ackCnt`; Linux's `tcp_highspeed.c` does
//!   the same per ACK).
//! - A loss: ssthresh = cwnd = max(2, ⌊w·(1 − b(w))⌋).
//!
//! Deviation from ns-3: the cut is of cwnd, as cclab's Reno cuts (ns-3: of
//! BytesInFlight, its RFC 6675 pipe, which differs from a window-limited sender's cwnd
//! by the segments the duplicate ACKs reported).
use super::kernel::whole;
use super::reno::{cut, slow_start_leftover};
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, Reduction, Window};
use serde::{Deserialize, Serialize};

/// `cc = "highspeed"`: no parameters (ns-3 has none; the table is the RFC's).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HighSpeedConfig {}

impl Algorithm for HighSpeedConfig {
    type Controller = HighSpeed;
    fn build(&self) -> HighSpeed {
        HighSpeed::default()
    }
}

/// RFC 3649 Appendix B: (largest w of the row, a(w), b(w)); windows above the last row
/// take a = 73, b = 0.09.
const TABLE: &[(u32, u32, f64)] = &[
    (38, 1, 0.50), (118, 2, 0.44), (221, 3, 0.41), (347, 4, 0.38), (495, 5, 0.37), (663, 6, 0.35),
    (851, 7, 0.34), (1058, 8, 0.33), (1284, 9, 0.32), (1529, 10, 0.31), (1793, 11, 0.30),
    (2076, 12, 0.29), (2378, 13, 0.28), (2699, 14, 0.28), (3039, 15, 0.27), (3399, 16, 0.27),
    (3778, 17, 0.26), (4177, 18, 0.26), (4596, 19, 0.25), (5036, 20, 0.25), (5497, 21, 0.24),
    (5979, 22, 0.24), (6483, 23, 0.23), (7009, 24, 0.23), (7558, 25, 0.22), (8130, 26, 0.22),
    (8726, 27, 0.22), (9346, 28, 0.21), (9991, 29, 0.21), (10661, 30, 0.21), (11358, 31, 0.20),
    (12082, 32, 0.20), (12834, 33, 0.20), (13614, 34, 0.19), (14424, 35, 0.19), (15265, 36, 0.19),
    (16137, 37, 0.19), (17042, 38, 0.18), (17981, 39, 0.18), (18955, 40, 0.18), (19965, 41, 0.17),
    (21013, 42, 0.17), (22101, 43, 0.17), (23230, 44, 0.17), (24402, 45, 0.16), (25618, 46, 0.16),
    (26881, 47, 0.16), (28193, 48, 0.16), (29557, 49, 0.15), (30975, 50, 0.15), (32450, 51, 0.15),
    (33986, 52, 0.15), (35586, 53, 0.14), (37253, 54, 0.14), (38992, 55, 0.14), (40808, 56, 0.14),
    (42707, 57, 0.13), (44694, 58, 0.13), (46776, 59, 0.13), (48961, 60, 0.13), (51258, 61, 0.13),
    (53667, 62, 0.12), (56230, 63, 0.12), (58932, 64, 0.12), (61799, 65, 0.12), (64851, 66, 0.11),
    (68113, 67, 0.11), (71617, 68, 0.11), (75401, 69, 0.10), (79517, 70, 0.10), (84035, 71, 0.10),
    (89053, 72, 0.10), (94717, 73, 0.09),
];

/// a(w) and b(w) for a window of `w` whole segments.
pub fn response(w: u32) -> (u32, f64) {
    TABLE.iter().find(|row| w <= row.0).map_or((73, 0.09), |row| (row.1, row.2))
}

#[derive(Clone, Debug, Default)]
pub struct HighSpeed {
    /// a(w)-weighted segments acknowledged toward the next whole segment.
    ack_cnt: u64,
}

impl CongestionControl for HighSpeed {
    fn label(&self) -> String {
        "highspeed".into()
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        let left = slow_start_leftover(window, ack.segments_acked);
        if window.cwnd < window.ssthresh {
            return;
        }
        let old = whole(window.cwnd).max(1);
        let mut w = old;
        self.ack_cnt += left as u64 * response(w).0 as u64;
        while self.ack_cnt >= w as u64 {
            self.ack_cnt -= w as u64;
            w += 1;
        }
        if w != old {
            window.cwnd = w as f64;
        }
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let w = whole(window.cwnd);
        let b = response(w).1;
        cut((w as f64 * (1.0 - b)).floor(), event)
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

    fn acks(hs: &mut HighSpeed, w: &mut Window, n: usize) {
        for _ in 0..n {
            hs.on_ack(w, &AckSample { segments_acked: 1, ..Default::default() });
        }
    }

    /// The table's edges: w ≤ 38 is Reno; 39 → a 2, b 0.44; 1000 → 8, 0.33; beyond the
    /// last row 73, 0.09.
    #[test]
    fn table_lookup() {
        for (w, a, b) in [(1, 1, 0.5), (38, 1, 0.5), (39, 2, 0.44), (118, 2, 0.44), (119, 3, 0.41), (1000, 8, 0.33), (94717, 73, 0.09), (200000, 73, 0.09)] {
            assert_eq!(response(w), (a, b), "w = {w}");
        }
    }

    /// Congestion avoidance by hand: at cwnd 30 (a = 1) the 30th ACK adds one segment; at
    /// cwnd 100 (a = 2) the 50th ACK does (2·50 = 100), and at 200 (a = 3) the 67th
    /// (3·67 = 201 ≥ 200, 1 left over).
    #[test]
    fn grows_a_w_segments_per_window() {
        for (cwnd, acks_needed, left) in [(30.0, 30, 0), (100.0, 50, 0), (200.0, 67, 1)] {
            let mut hs = HighSpeedConfig::default().build();
            let mut w = Window { cwnd, ssthresh: 10.0 };
            acks(&mut hs, &mut w, acks_needed - 1);
            assert_eq!(w.cwnd, cwnd, "cwnd {cwnd}: not yet");
            acks(&mut hs, &mut w, 1);
            assert_eq!((w.cwnd, hs.ack_cnt), (cwnd + 1.0, left));
        }
        // slow start: one segment per ACK, nothing counted
        let mut hs = HighSpeedConfig::default().build();
        let mut w = Window { cwnd: 10.0, ssthresh: 100.0 };
        acks(&mut hs, &mut w, 3);
        assert_eq!((w.cwnd, hs.ack_cnt), (13.0, 0));
    }

    /// The cut: 30 → 15 (b 0.5); 100 → ⌊100·0.56⌋ = 56; 1000 → ⌊1000·(1 − 0.33)⌋ = 669
    /// (1 − 0.33 is 0.6699… in binary, as in ns-3's double arithmetic); 3 → 2.
    #[test]
    fn cut_by_b_w() {
        let mut hs = HighSpeedConfig::default().build();
        for (cwnd, after) in [(30.0, 15.0), (100.0, 56.0), (1000.0, 669.0), (3.0, 2.0)] {
            let r = hs.on_congestion(&Window { cwnd, ssthresh: 1e9 }, &event(CongestionSignal::FastRetransmit));
            assert_eq!((r.ssthresh, r.cwnd), (after, after), "cwnd {cwnd}");
        }
    }
}
