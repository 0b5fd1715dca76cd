//! The kernel's clocks and integer conventions, shared by the `linux` profile's
//! algorithms (CUBIC, BBR): jiffies at `CONFIG_HZ=250`, the microsecond clock
//! (`tcp_mstamp`), the conversions that round as the kernel's do, and the whole-segment
//! window the kernel keeps in `u32`.
use super::LINUX_JIFFY_NS;
use crate::sim::Time;

/// Jiffies per second on the machine the profile follows (`CONFIG_HZ`).
pub const HZ: u32 = 250;

/// `tcp_jiffies32` at `now`: the coarse clock in 4-ms steps (wraps as the kernel's u32).
#[inline]
pub fn jiffies(now: Time) -> u32 {
    (now / LINUX_JIFFY_NS) as u32
}

/// The microsecond clock (`tcp_mstamp`, `tcp_clock_us`) at `now`.
#[inline]
pub fn usecs(now: Time) -> u64 {
    now / 1000
}

/// A duration in whole microseconds, as the kernel's µs stamps give it (saturating in u32).
#[inline]
pub fn usecs_u32(ns: Time) -> u32 {
    (ns / 1000).min(u32::MAX as u64) as u32
}

/// `usecs_to_jiffies` for HZ = 250: rounds up to whole jiffies.
#[inline]
pub fn usecs_to_jiffies(us: u32) -> u32 {
    let per_jiffy = 1_000_000 / HZ;
    ((us as u64 + per_jiffy as u64 - 1) / per_jiffy as u64) as u32
}

/// `msecs_to_jiffies` for HZ = 250: rounds up to whole jiffies.
#[inline]
pub fn msecs_to_jiffies(ms: u32) -> u32 {
    let per_jiffy = 1000 / HZ;
    ((ms as u64 + per_jiffy as u64 - 1) / per_jiffy as u64) as u32
}

/// `after(a, b)` on wrapping u32 stamps: a is later than b.
#[inline]
pub fn after(a: u32, b: u32) -> bool {
    (b.wrapping_sub(a) as i32) < 0
}

/// A window (f64 segments) as the kernel's u32: the `linux` sender keeps cwnd whole;
/// an unbounded ssthresh saturates.
#[inline]
pub fn whole(segments: f64) -> u32 {
    segments as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_as_the_kernel() {
        assert_eq!(jiffies(3_999_999), 0);
        assert_eq!(jiffies(4_000_000), 1);
        assert_eq!(usecs_to_jiffies(0), 0);
        assert_eq!(usecs_to_jiffies(1), 1);
        assert_eq!(usecs_to_jiffies(4000), 1);
        assert_eq!(usecs_to_jiffies(4001), 2);
        assert_eq!(usecs_to_jiffies(40_000), 10);
        assert_eq!(msecs_to_jiffies(200), 50);
        assert_eq!(msecs_to_jiffies(201), 51);
        assert!(after(5, 4) && !after(4, 4) && !after(4, 5));
        assert!(after(1, u32::MAX), "across the wrap");
        assert_eq!(whole(f64::INFINITY), u32::MAX);
        assert_eq!(whole(10.0), 10);
    }
}
