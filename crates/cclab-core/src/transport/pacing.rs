//! Pacing: the sender spaces transmissions at the rate its algorithm asks for
//! ([`crate::cc::CongestionControl::pacing_rate`]), as Linux's TCP internal pacing does
//! (`tcp_update_skb_after_send`: the next departure is the previous one, or now if later,
//! plus the segment's time at the pacing rate). Only senders whose algorithm paces keep one.
use crate::sim::Time;

#[derive(Clone, Debug, Default)]
pub struct Pacer {
    /// The earliest time the next segment may leave.
    next_send: Time,
    /// When the sender must wake to send what pacing held back.
    pub wakeup: Option<Time>,
}

impl Pacer {
    /// May a segment leave now? If not, the sender's timer is set for when it may.
    pub fn ready(&mut self, now: Time) -> bool {
        if now >= self.next_send {
            self.wakeup = None;
            true
        } else {
            self.wakeup = Some(self.next_send);
            false
        }
    }

    /// The earliest time the next segment may leave (Linux's `tcp_wstamp_ns`).
    pub fn next_send(&self) -> Time {
        self.next_send
    }

    /// Set it (Linux's EDT pacing computes it per GSO packet: `linux::gso`).
    pub fn set_next_send(&mut self, at: Time) {
        self.next_send = at;
    }

    /// A segment left at `now`; at `rate` segments per second the next may leave one
    /// segment time after the later of this departure's slot and now.
    pub fn sent(&mut self, now: Time, rate: Option<f64>) {
        match rate {
            Some(rate) if rate > 0.0 && rate.is_finite() => {
                let gap = (1e9 / rate).round().min(1e15) as Time;
                self.next_send = self.next_send.max(now).saturating_add(gap);
            }
            _ => self.next_send = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1000 segments/s: 1 ms apart. Two at 0: the second waits until 1 ms; a segment at
    /// 5 ms (after an idle spell) leaves at once and the next waits until 6 ms. Without a
    /// rate nothing waits.
    #[test]
    fn spaces_segments_by_the_rate() {
        let mut pacer = Pacer::default();
        assert!(pacer.ready(0));
        pacer.sent(0, Some(1000.0));
        assert!(!pacer.ready(0));
        assert_eq!(pacer.wakeup, Some(1_000_000));
        assert!(pacer.ready(1_000_000));
        pacer.sent(1_000_000, Some(1000.0));
        assert!(pacer.ready(5_000_000));
        pacer.sent(5_000_000, Some(1000.0));
        assert!(!pacer.ready(5_500_000) && pacer.wakeup == Some(6_000_000));
        pacer.sent(6_000_000, None);
        assert!(pacer.ready(6_000_000));
        pacer.sent(6_000_000, Some(f64::NAN));
        assert!(pacer.ready(6_000_000), "a bad rate does not stall the sender");
    }
}
