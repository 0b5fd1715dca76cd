//! Delivery-rate samples, one per ACK, as Linux's `net/ipv4/tcp_rate.c` computes them
//! (Cheng, Cardwell, Yeganeh & Jacobson, draft-cheng-iccrg-delivery-rate-estimation;
//! read, not copied): each segment remembers, when sent, how much had been delivered and
//! when; an ACK's sample is the data delivered since the most recently sent segment it
//! delivers was sent, over the longer of that segment's send phase and its ACK phase.
//! Only senders whose algorithm asks for samples keep any of this
//! ([`crate::cc::CongestionControl::wants_rate_samples`]).
//!
//! Units: segments and nanoseconds. Differences from Linux: no ACK-compression guard
//! beyond the send/ACK maximum; SACK reneging cannot happen here.
use crate::cc::RateSample;
use crate::sim::Time;
use std::collections::VecDeque;

/// What a segment remembers from its (latest) transmission (Linux `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default)]
struct TxRecord {
    /// Segments delivered when it was sent.
    delivered: u64,
    /// When that delivered count was reached.
    delivered_time: Time,
    /// Delivered already (SACKed, then cumulatively ACKed: counted once).
    counted: bool,
    /// When the flight it went out in began sending.
    first_tx_time: Time,
    sent_at: Time,
    app_limited: bool,
    retransmitted: bool,
}

/// The sample an ACK is building, from the segments it delivers.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    any: bool,
    prior_delivered: u64,
    prior_time: Time,
    /// The send phase: from the flight's first transmission to the newest segment's.
    send_elapsed: Time,
    newest_sent_at: Time,
    app_limited: bool,
    retransmitted: bool,
    acked_sacked: u32,
}

#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// One record per segment in [snd_una, snd_max), in order.
    tx: VecDeque<TxRecord>,
    first_tx_time: Time,
    delivered_time: Time,
    /// Linux `tp->app_limited`: while not 0, samples are app-limited until the delivered
    /// count passes it.
    app_limited_until: u64,
    min_rtt: Option<Time>,
    pending: Pending,
    /// The sender's loss count at the previous sample (for `RateSample::losses`).
    lost_reported: u64,
}

impl RateSampler {
    /// A new segment goes out at `now` with `delivered` segments delivered so far;
    /// `idle`: nothing was in flight before it (a new flight begins).
    pub fn on_send_new(&mut self, now: Time, delivered: u64, idle: bool) {
        let record = self.record(now, delivered, idle, false);
        self.tx.push_back(record);
    }

    /// Segment `index` (from snd_una) goes out again (a segment delivered already, resent
    /// after a timeout forgot it was SACKed, stays counted).
    pub fn on_resend(&mut self, index: usize, now: Time, delivered: u64, idle: bool) {
        let mut record = self.record(now, delivered, idle, true);
        if let Some(slot) = self.tx.get_mut(index) {
            record.counted = slot.counted;
            *slot = record;
        }
    }

    fn record(&mut self, now: Time, delivered: u64, idle: bool, retransmitted: bool) -> TxRecord {
        if idle {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxRecord {
            delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            sent_at: now,
            app_limited: self.app_limited_until != 0,
            retransmitted,
            counted: false,
        }
    }

    /// Segment `index` (from snd_una) is delivered by this ACK (cumulatively or by SACK):
    /// the most recently sent of these sets the sample (Linux `tcp_rate_skb_delivered`).
    pub fn on_delivered(&mut self, index: usize) {
        let Some(record) = self.tx.get_mut(index) else { return };
        if record.counted {
            return; // counted when SACKed
        }
        let pending = &mut self.pending;
        pending.acked_sacked += 1;
        if !pending.any || record.sent_at > pending.newest_sent_at
            || (record.sent_at == pending.newest_sent_at && record.delivered > pending.prior_delivered)
        {
            pending.any = true;
            pending.prior_delivered = record.delivered;
            pending.prior_time = record.delivered_time;
            pending.send_elapsed = record.sent_at.saturating_sub(record.first_tx_time);
            pending.newest_sent_at = record.sent_at;
            pending.app_limited = record.app_limited;
            pending.retransmitted = record.retransmitted;
            self.first_tx_time = record.sent_at;
        }
        record.counted = true;
    }

    /// The cumulative ACK passed `count` segments: forget their records.
    pub fn forget_front(&mut self, count: usize) {
        let count = count.min(self.tx.len());
        self.tx.drain(..count);
    }

    /// After a timeout every segment may be resent: nothing sent before is in flight.
    pub fn restart(&mut self) {
        self.pending = Pending::default();
    }

    /// Linux's start (`tcp_init_sock` sets app_limited to ~0): what is sent before the
    /// first ACK is app-limited.
    pub fn start_app_limited(&mut self) {
        self.app_limited_until = u64::MAX;
    }

    /// The application, not the window, stopped the sender with `in_flight` out:
    /// samples are app-limited until what is out now has been delivered.
    pub fn mark_app_limited(&mut self, delivered: u64, in_flight: u32) {
        self.app_limited_until = (delivered + in_flight as u64).max(1);
    }

    /// Segments lost since the previous call, given the sender's running count of them
    /// (`RateSample::losses` from `tp->lost`).
    pub fn new_losses(&mut self, lost_total: u64) -> u32 {
        let losses = lost_total.saturating_sub(self.lost_reported);
        self.lost_reported = lost_total;
        losses.min(u32::MAX as u64) as u32
    }

    /// This ACK's sample (Linux `tcp_rate_gen`), `delivered` the sender's total after it,
    /// `rtt` the ACK's RTT sample (kept for the minimum RTT a valid interval must reach).
    pub fn sample(&mut self, now: Time, delivered: u64, in_flight: u32, rtt: Option<Time>) -> RateSample {
        if let Some(rtt) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |min| min.min(rtt)));
        }
        if self.app_limited_until != 0 && (delivered > self.app_limited_until || self.app_limited_until == u64::MAX) {
            self.app_limited_until = 0;
        }
        let pending = std::mem::take(&mut self.pending);
        let mut sample = RateSample {
            now,
            acked_sacked: pending.acked_sacked,
            delivered_total: delivered,
            in_flight,
            rtt,
            ..RateSample::default()
        };
        if !pending.any {
            return sample;
        }
        self.delivered_time = now;
        sample.prior_delivered = pending.prior_delivered;
        sample.app_limited = pending.app_limited;
        sample.delivered = delivered.saturating_sub(pending.prior_delivered);
        let interval = pending.send_elapsed.max(now.saturating_sub(pending.prior_time));
        // An interval shorter than the path's minimum RTT is ACK compression, not a rate.
        if self.min_rtt.is_some_and(|min| interval < min) {
            return sample;
        }
        sample.interval = interval;
        sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// A flight of 4 segments sent 1 ms apart from an idle start at 10 ms; the first two
    /// are ACKed at 110 and 111 ms (RTT 100 ms). The first ACK delivers segment 0, sent
    /// with 0 delivered when delivery was last at 10 ms: 1 segment over max(send phase
    /// 0, ACK phase 100 ms) = 10 segments/s. The second delivers segment 1 (sent at 11 ms
    /// with 0 delivered at 10 ms): 2 segments (delivered is 2 now) over max(1, 101) ms.
    #[test]
    fn samples_by_hand() {
        let mut rate = RateSampler::default();
        for k in 0..4u64 {
            rate.on_send_new((10 + k) * MS, 0, k == 0);
        }
        rate.on_delivered(0);
        rate.forget_front(1);
        let first = rate.sample(110 * MS, 1, 3, Some(100 * MS));
        assert_eq!((first.delivered, first.interval, first.acked_sacked), (1, 100 * MS, 1));
        assert_eq!(first.rate(), Some(10.0));
        rate.on_delivered(0);
        rate.forget_front(1);
        let second = rate.sample(111 * MS, 2, 2, Some(100 * MS));
        assert_eq!((second.delivered, second.interval, second.prior_delivered), (2, 101 * MS, 0));
        // A segment sent after the first delivery (at 112 ms, with 2 delivered at 111 ms)
        // and ACKed at 212 ms: 1 segment over 101 ms... the ACK phase from 111 ms.
        rate.on_send_new(112 * MS, 2, false);
        rate.on_delivered(2); // the newest of the records: index 2 from snd_una
        let third = rate.sample(212 * MS, 3, 2, Some(100 * MS));
        assert_eq!((third.delivered, third.interval, third.prior_delivered), (1, 101 * MS, 2));
        // No delivery: no sample (a duplicate ACK that SACKs nothing).
        assert_eq!(rate.sample(213 * MS, 3, 2, None).interval, 0);
    }

    /// A segment SACKed and later covered by the cumulative ACK counts once; an interval
    /// under the minimum RTT (compressed ACKs) gives no rate; app-limited marks last until
    /// what was in flight is delivered.
    #[test]
    fn counts_once_rejects_compression_and_tracks_app_limits() {
        let mut rate = RateSampler::default();
        rate.on_send_new(0, 0, true);
        rate.on_send_new(MS, 0, false);
        rate.on_delivered(1); // SACKed at 100 ms
        let sacked = rate.sample(100 * MS, 1, 1, Some(99 * MS));
        assert_eq!(sacked.delivered, 1);
        rate.on_delivered(0);
        rate.on_delivered(1); // covered again: not counted
        rate.forget_front(2);
        let cumulative = rate.sample(101 * MS, 2, 0, None);
        assert_eq!(cumulative.acked_sacked, 1);
        // compressed: sent at 200 ms after delivery at 101 ms, ACKed 1 ms later, min RTT 99 ms
        rate.on_send_new(200 * MS, 2, true);
        rate.on_delivered(0);
        rate.forget_front(1);
        assert_eq!(rate.sample(201 * MS, 3, 0, None).interval, 0);
        rate.mark_app_limited(3, 2);
        rate.on_send_new(300 * MS, 3, true);
        rate.on_delivered(0);
        rate.forget_front(1);
        let limited = rate.sample(400 * MS, 4, 1, Some(100 * MS));
        assert!(limited.app_limited);
        assert_eq!(rate.app_limited_until, 5, "until 3 + 2 are delivered");
        rate.on_send_new(401 * MS, 4, false);
        rate.on_delivered(1);
        let _ = rate.sample(500 * MS, 6, 0, None);
        assert_eq!(rate.app_limited_until, 0, "passed");
    }
}
