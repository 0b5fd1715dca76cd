//! `profile = "linux"`: TCP as Linux 6.x runs it on this machine kind (CONFIG_HZ=250),
//! rule by rule, each piece beside the kernel function it follows (read in the kernel's
//! source, not copied; the rules are listed in [`super::profile::RULES`]):
//!
//! * [`receiver`] — when the receiver ACKs (`__tcp_ack_snd_check`): quick ACKs, one ACK per
//!   two full segments, the delayed-ACK timer and its ATO, out-of-order data, SACK blocks
//!   as Linux orders them, D-SACK, SACK compression, receive-window growth;
//! * [`rtt`] — RTT samples on every ACK and the RTO (`tcp_rtt_estimator`, `__tcp_set_rto`);
//! * [`rack`] — RACK loss detection (RFC 8985, `tcp_recovery.c`);
//! * [`gso`] — how segments leave: GSO packet sizes (`tcp_tso_autosize`), deferral
//!   (`tcp_tso_should_defer`), internal pacing (`tcp_update_skb_after_send`);
//! * [`sender`] — the sender's ACK processing in `tcp_ack`'s order, the recovery state
//!   machine (`tcp_fastretrans_alert`), Proportional Rate Reduction, tail loss probes,
//!   the retransmission timeout with F-RTO and undo, window growth per delivered segment.
//!
//! Units: segments (every segment is full-sized, as on the paths the profile is checked
//! on) and ns; the kernel's coarse clock is the jiffy, 4 ms here.
pub mod gso;
pub mod rack;
pub mod receiver;
pub mod rtt;
pub mod sender;

use crate::sim::Time;

/// One jiffy (HZ = 250), ns.
pub const JIFFY: Time = crate::cc::LINUX_JIFFY_NS;

/// The jiffies counter at `t` (the kernel's `jiffies`, taken to tick at multiples of a
/// jiffy from time 0).
#[inline]
pub fn jiffies(t: Time) -> u64 {
    t / JIFFY
}

/// When a jiffies timer armed at `now` for `ticks` jiffies fires: at the tick where the
/// counter reaches `jiffies(now) + ticks`.
#[inline]
pub fn jiffy_timer(now: Time, ticks: u64) -> Time {
    (jiffies(now) + ticks).saturating_mul(JIFFY)
}

/// `usecs_to_jiffies` (and for ns): a duration rounded up to whole jiffies.
#[inline]
pub fn to_jiffies(duration: Time) -> u64 {
    duration.div_ceil(JIFFY)
}

/// The TCP timestamp clock (`tcp_time_stamp_ts`): milliseconds.
#[inline]
pub fn ts_ms(t: Time) -> u32 {
    (t / 1_000_000) as u32
}

/// `tcp_stamp_us_delta`: microseconds between two times (0 if `later` is not later),
/// each taken on the kernel's microsecond clock.
#[inline]
pub fn us_delta(later: Time, earlier: Time) -> i64 {
    ((later / 1000) as i64 - (earlier / 1000) as i64).max(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jiffy_clock() {
        let ms = 1_000_000;
        assert_eq!(jiffies(7 * ms), 1);
        // armed at 7 ms for 10 jiffies (40 ms): the counter is 1, fires when it reaches 11
        assert_eq!(jiffy_timer(7 * ms, 10), 44 * ms);
        assert_eq!(to_jiffies(40 * ms), 10);
        assert_eq!(to_jiffies(40 * ms + 1), 11);
        assert_eq!(us_delta(3_500, 1_999), 2);
        assert_eq!(us_delta(1_000, 5_000), 0);
    }
}
