//! How Linux's segments leave (tcp_output.c): in GSO packets of about a millisecond of
//! the pacing rate, deferred until a packet's worth of window is open, and — only for
//! algorithms that pace (BBR) — one packet per pacing slot.
//!
//! * `tcp_update_pacing_rate`: for algorithms that do not set it (all but BBR), the
//!   pacing rate is cwnd·mss/SRTT × 200 % in early slow start (cwnd < ssthresh/2), else
//!   × 120 %. It sizes GSO packets (and HyStart's ACK delay) even when nothing is paced.
//! * `tcp_tso_autosize`: a GSO packet carries pacing_rate >> 10 bytes (≈ 1 ms), plus
//!   64 KiB >> (min_rtt_us >> 9) at small RTTs, at most 64 KiB, at least `min_tso_segs`
//!   segments (2, or the algorithm's).
//! * `tcp_tso_should_defer`: outside recovery, a sender with room for less than a full
//!   GSO packet waits, unless it last sent ≥ 1 ms ago, or the room is a third of cwnd, or
//!   the next ACK is not due within min(SRTT/2, 1 ms).
//! * `tcp_update_skb_after_send` (EDT pacing): the next departure moves by the packet's
//!   time at the pacing rate, less up to half of it for time the sender sat idle; the
//!   first 10 segments of a flow are not paced.
use crate::sim::Time;

/// The largest GSO packet, bytes (`sk_gso_max_size`, GSO_LEGACY_MAX_SIZE).
const GSO_MAX_SIZE: u64 = 65_536;
/// `tcp_min_tso_segs`.
pub const MIN_TSO_SEGS: u32 = 2;
/// `tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio` (percent).
const PACING_SS_RATIO: f64 = 200.0;
const PACING_CA_RATIO: f64 = 120.0;
/// `tcp_tso_win_divisor`.
const TSO_WIN_DIVISOR: u32 = 3;
/// Segments sent before pacing starts (sch_fq's habit, kept by TCP's internal pacing).
const UNPACED_SEGMENTS: u64 = 10;

/// `tcp_update_pacing_rate` for algorithms that do not set their own: bytes per second,
/// from cwnd, ssthresh, the segments out, SRTT ×8 in µs (0: none yet) and the MSS.
pub fn pacing_rate(cwnd: u32, ssthresh: f64, packets_out: u32, srtt8_us: i64, mss: u32) -> f64 {
    let ratio = if (cwnd as f64) < ssthresh / 2.0 { PACING_SS_RATIO } else { PACING_CA_RATIO };
    // rate = mss · (USEC_PER_SEC/100 << 3) · ratio · max(cwnd, packets_out) / srtt8
    let rate = mss as f64 * (10_000.0 * 8.0) * ratio * cwnd.max(packets_out) as f64;
    if srtt8_us > 0 {
        (rate / srtt8_us as f64).floor()
    } else {
        rate
    }
}

/// `tcp_tso_autosize`: segments per GSO packet at `pacing_rate` bytes/s.
pub fn tso_segs(pacing_rate: f64, mss: u32, min_tso_segs: u32, min_rtt_us: Option<u64>) -> u32 {
    let mut bytes = (pacing_rate.max(0.0) as u64) >> 10;
    if let Some(min_rtt) = min_rtt_us {
        let r = min_rtt >> 9; // tcp_tso_rtt_log
        if r < 32 {
            bytes += GSO_MAX_SIZE >> r;
        }
    }
    let bytes = bytes.min(GSO_MAX_SIZE);
    ((bytes / mss.max(1) as u64) as u32).max(min_tso_segs).max(1)
}

/// What `tcp_tso_should_defer` reads.
#[derive(Clone, Copy, Debug)]
pub struct DeferCheck {
    pub now: Time,
    /// When the sender last sent (`tcp_wstamp_ns`).
    pub last_send: Time,
    /// cwnd − in flight, segments (> 0).
    pub room: u32,
    pub cwnd: u32,
    /// Segments per GSO packet now.
    pub max_segs: u32,
    /// When the oldest unacknowledged segment was (last) sent, and SRTT ×8 in µs.
    pub head_sent_at: Option<Time>,
    pub srtt8_us: i64,
    /// The sender is in Recovery or Loss (no deferral there).
    pub recovering: bool,
}

/// `tcp_tso_should_defer`: whether to wait for more room rather than send a short GSO
/// packet now (a bulk application always has a full packet's data queued).
pub fn should_defer(c: &DeferCheck) -> bool {
    if c.recovering {
        return false;
    }
    // Only when the last send was recent (1 ms): otherwise the sender would stall.
    if c.now > c.last_send + 1_000_000 {
        return false;
    }
    if c.room >= c.max_segs {
        return false; // a full GSO packet fits
    }
    if c.room >= c.cwnd / TSO_WIN_DIVISOR {
        return false; // a good fraction of the window is open
    }
    let Some(head_sent_at) = c.head_sent_at else { return false };
    let srtt_ns = (c.srtt8_us.max(0) as u64) * 1000 / 8;
    let expected_ack = head_sent_at + srtt_ns;
    let threshold = (srtt_ns / 2).min(1_000_000);
    // The next ACK is expected too late to wait for.
    if expected_ack as i128 - c.now as i128 > threshold as i128 {
        return false;
    }
    true
}

/// `tcp_update_skb_after_send` for a paced sender: the earliest next departure after a
/// GSO packet of `segments` left at `now`, given the previous one (`tcp_wstamp_ns`),
/// the rate (segments per second) and the data segments sent so far, this packet's
/// included.
pub fn next_departure(now: Time, previous: Time, segments: u32, rate: f64, segments_sent: u64) -> Time {
    let stamp = previous.max(now); // tcp_wstamp_ns is first raised to now
    if !(rate > 0.0 && rate.is_finite()) || segments_sent < UNPACED_SEGMENTS {
        return stamp;
    }
    let len_ns = (segments as f64 * 1e9 / rate) as Time;
    let credit = stamp - previous; // time the sender sat idle
    stamp + len_ns - (len_ns / 2).min(credit)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// The spec's numbers: CUBIC in congestion avoidance at 12 Mb/s (cwnd 41, SRTT 41 ms:
    /// 1.2 × 1.448 MB/s) gets 2-segment packets; at 48 Mb/s, 4; BBR at 96 Mb/s pacing
    /// 8000 segments/s: 7.
    #[test]
    fn gso_sizes_follow_the_pacing_rate() {
        let rate = pacing_rate(41, 30.0, 41, 41_000 * 8, 1448);
        assert!((rate - 1.2 * 41.0 * 1448.0 / 0.041).abs() < 2.0, "{rate}");
        assert_eq!(tso_segs(rate, 1448, MIN_TSO_SEGS, Some(41_000)), 2);
        let rate48 = pacing_rate(84, 60.0, 84, 21_000 * 8, 1448);
        assert_eq!(tso_segs(rate48, 1448, MIN_TSO_SEGS, Some(21_000)), 4, "6950400 B/s >> 10 = 6787 B");
        assert_eq!(tso_segs(8000.0 * 1448.0, 1448, MIN_TSO_SEGS, Some(21_000)), 7, "(8000·1448) >> 10 = 11312 B");
        // early slow start doubles the ratio
        assert!(pacing_rate(10, 1e9, 10, 41_000 * 8, 1448) > 1.6 * pacing_rate(10, 15.0, 10, 41_000 * 8, 1448));
        // a small RTT adds 64 KiB >> (min_rtt >> 9): 1 ms → r = 1 → +32 KiB
        assert_eq!(tso_segs(0.0, 1448, 2, Some(1_000)), 32768 / 1448);
    }

    #[test]
    fn deferral_waits_for_a_full_packet_while_an_ack_is_due() {
        let base = DeferCheck {
            now: 100 * MS,
            last_send: 100 * MS - 200_000,
            room: 1,
            cwnd: 40,
            max_segs: 2,
            head_sent_at: Some(59 * MS),
            srtt8_us: 41_000 * 8,
            recovering: false,
        };
        assert!(should_defer(&base), "room 1 of 2, ACK due now");
        assert!(!should_defer(&DeferCheck { room: 2, ..base }));
        assert!(!should_defer(&DeferCheck { last_send: 98 * MS, ..base }), "last send over 1 ms ago");
        assert!(!should_defer(&DeferCheck { cwnd: 3, ..base }), "a third of cwnd is open");
        assert!(!should_defer(&DeferCheck { head_sent_at: Some(90 * MS), ..base }), "the next ACK is 31 ms away");
        assert!(!should_defer(&DeferCheck { recovering: true, ..base }));
    }

    #[test]
    fn edt_pacing_per_gso_packet() {
        // 1000 segments/s, 2-segment packets: 2 ms apart once 10 segments are out
        assert_eq!(next_departure(5 * MS, 0, 2, 1000.0, 4), 5 * MS, "first 10 segments unpaced");
        assert_eq!(next_departure(5 * MS, 5 * MS, 2, 1000.0, 12), 7 * MS);
        // idle 1 ms since the last slot: half a packet's time is forgiven at most
        assert_eq!(next_departure(8 * MS, 7 * MS, 2, 1000.0, 14), 8 * MS + 2 * MS - MS);
    }
}
