//! Linux's RTT estimator and retransmission timeout (`tcp_rtt_estimator`, `tcp_set_rto`,
//! `__tcp_set_rto`, `tcp_bound_rto` in tcp_input.c / tcp.h), in the kernel's integer
//! microseconds:
//!
//! * SRTT is kept ×8 and moves by 1/8 of each sample's error; the mean deviation `mdev`
//!   (×4) by 1/4 of it — but only by 1/32 when the RTT falls, so a falling RTT does not
//!   inflate the RTO;
//! * the RTO uses `rttvar`, the largest mdev seen over the last RTT (and not less than
//!   rto_min, 200 ms): it rises at once, and falls by a quarter of the gap once per RTT
//!   (when snd_una passes the segment that was snd_nxt at the last such step);
//! * RTO = SRTT + rttvar rounded up to whole jiffies (4 ms), at most TCP_RTO_MAX; each
//!   timeout doubles it, each valid sample recomputes it (ending the back-off).
use super::{to_jiffies, JIFFY};
use crate::sim::Time;
use crate::transport::{Seq, TcpConfig};

#[derive(Clone, Debug)]
pub struct LinuxRtt {
    /// SRTT × 8, µs (0: no sample yet).
    srtt8: i64,
    /// Mean deviation × 4, µs.
    mdev: i64,
    /// The largest `mdev` in the current RTT, µs.
    mdev_max: i64,
    /// What the RTO adds to SRTT, µs.
    rttvar: i64,
    /// The RTT ends when snd_una passes this (`rtt_seq`).
    rtt_seq: Seq,
    /// The timer value, jiffies (`icsk_rto`).
    rto: u64,
    rto_min_us: i64,
    rto_max: u64,
}

impl LinuxRtt {
    pub fn new(cfg: &TcpConfig) -> LinuxRtt {
        LinuxRtt {
            srtt8: 0,
            mdev: 0,
            mdev_max: 0,
            rttvar: 0,
            rtt_seq: 0,
            rto: to_jiffies(cfg.initial_rto().ns()),
            rto_min_us: (cfg.min_rto.ns() / 1000) as i64,
            rto_max: to_jiffies(cfg.max_rto().ns()),
        }
    }

    /// A sample of `rtt_us` (the oldest segment the ACK newly acknowledged), with snd_una
    /// after the ACK and snd_nxt; recomputes the RTO and ends any back-off.
    pub fn on_sample(&mut self, rtt_us: i64, snd_una: Seq, snd_nxt: Seq) {
        let mut m = rtt_us.max(1);
        if self.srtt8 != 0 {
            m -= self.srtt8 >> 3; // the error
            self.srtt8 += m;
            if m < 0 {
                m = -m - (self.mdev >> 2);
                if m > 0 {
                    m >>= 3; // a falling RTT moves mdev by 1/32 only
                }
            } else {
                m -= self.mdev >> 2;
            }
            self.mdev += m;
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                if self.mdev_max > self.rttvar {
                    self.rttvar = self.mdev_max;
                }
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = self.rto_min_us;
            }
        } else {
            self.srtt8 = m << 3;
            self.mdev = m << 1;
            self.rttvar = self.mdev.max(self.rto_min_us);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        }
        self.srtt8 = self.srtt8.max(1);
        let rto_us = (self.srtt8 >> 3) + self.rttvar;
        self.rto = to_jiffies(rto_us as u64 * 1000).min(self.rto_max);
    }

    /// A timeout: the RTO doubles (at most TCP_RTO_MAX).
    pub fn back_off(&mut self) {
        self.rto = (self.rto * 2).min(self.rto_max);
    }

    /// The timer value, ns (whole jiffies).
    pub fn current(&self) -> Time {
        self.rto * JIFFY
    }

    /// SRTT in ns, once there is a sample.
    pub fn srtt(&self) -> Option<f64> {
        (self.srtt8 != 0).then(|| self.srtt8 as f64 / 8.0 * 1000.0)
    }

    /// SRTT × 8 in µs, as the kernel keeps it (0 before a sample).
    pub fn srtt8_us(&self) -> i64 {
        self.srtt8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux() -> LinuxRtt {
        let cfg = TcpConfig { profile: Some(crate::transport::TcpProfile::Linux), ..Default::default() };
        LinuxRtt::new(&cfg)
    }

    /// Hand-computed: the first sample of 41 ms gives SRTT 41 ms, rttvar max(82, 200) =
    /// 200 ms, RTO 241 ms → 61 jiffies (244 ms). A steady RTT keeps rttvar at 200 ms: the
    /// RTO never falls below SRTT + 200 ms.
    #[test]
    fn rto_is_srtt_plus_at_least_rto_min() {
        let mut rtt = linux();
        assert_eq!(rtt.current(), 1_000_000_000, "1 s before a sample");
        rtt.on_sample(41_000, 1, 10);
        assert_eq!(rtt.srtt(), Some(41e6));
        assert_eq!(rtt.current(), 244_000_000);
        for k in 0..100 {
            rtt.on_sample(41_000, 10 + k * 10, 20 + k * 10);
        }
        assert_eq!(rtt.current(), 244_000_000);
        rtt.back_off();
        assert_eq!(rtt.current(), 488_000_000);
        rtt.on_sample(41_000, 2000, 2010);
        assert_eq!(rtt.current(), 244_000_000, "a sample ends the back-off");
    }

    /// A rising RTT raises mdev by a quarter of the error, and rttvar with it at once; a
    /// falling one moves mdev by 1/32 only.
    #[test]
    fn rising_and_falling_rtt() {
        let mut rtt = linux();
        rtt.on_sample(40_000, 1, 10); // srtt8 320000, mdev 80000, rttvar 200000
        rtt.on_sample(440_000, 5, 20); // error +400000 µs (in SRTT units: 440000 − 40000)
        // srtt8 = 320000 + 400000 = 720000 → SRTT 90 ms; mdev = 80000 + (400000 − 20000) =
        // 460000 > rttvar → rttvar 460000; RTO = 90 + 460 = 550 ms (138 jiffies, 552 ms)
        assert_eq!(rtt.srtt(), Some(90e6));
        assert_eq!(rtt.rttvar, 460_000);
        assert_eq!(rtt.current(), 552_000_000);
        rtt.on_sample(40_000, 6, 21); // error −50000: |e| − mdev/4 = 50000 − 115000 < 0 → mdev −65000
        assert_eq!(rtt.mdev, 460_000 - 65_000);
        let mut falling = linux();
        falling.on_sample(400_000, 1, 10); // mdev 800000
        falling.on_sample(40_000, 2, 11); // error −360000: 360000 − 200000 = 160000 → /8 = 20000
        assert_eq!(falling.mdev, 820_000);
    }
}
