//! UDP: a source that sends on its application's schedule whatever the network does,
//! and a sink that counts what arrives (bytes, packets, losses, one-way delay).
use super::{Header, Outbox, Outgoing};
use crate::app::PacketSchedule;
use crate::sim::Time;

pub struct UdpSource {
    schedule: PacketSchedule,
    /// The next send time; None once the application has stopped.
    next: Option<Time>,
    stop_at: Option<Time>,
    packet_bytes: u32,
    pub packets_sent: u64,
}

impl UdpSource {
    /// A source sending `packet_bytes` on the wire per packet on `schedule`, until
    /// `stop_at` (exclusive).
    pub fn new(schedule: PacketSchedule, stop_at: Option<Time>, packet_bytes: u32) -> UdpSource {
        let mut source = UdpSource { next: None, schedule, stop_at, packet_bytes, packets_sent: 0 };
        source.next = source.running(source.schedule.first());
        source
    }

    fn running(&self, at: Time) -> Option<Time> {
        (at < Time::MAX && self.stop_at.map_or(true, |stop| at < stop)).then_some(at)
    }

    pub fn deadline(&self) -> Option<Time> {
        self.next
    }

    /// Send every packet due by `now`; returns whether any was.
    pub fn on_timer(&mut self, now: Time, out: &mut impl Outbox) -> bool {
        let mut sent = false;
        while let Some(at) = self.next.filter(|&at| at <= now) {
            out.send(Outgoing {
                header: Header::Udp { seq: self.packets_sent as u32, sent_at: at },
                size: self.packet_bytes,
                ect: false,
                l4s: false,
            });
            self.packets_sent += 1;
            sent = true;
            let next = self.schedule.next(at);
            self.next = self.running(next);
        }
        sent
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UdpSink {
    pub packets: u64,
    /// The highest datagram number seen plus one (datagrams sent, as far as the sink knows).
    pub expected: u64,
    pub delay_sum_ns: u128,
    pub max_delay_ns: Time,
}

impl UdpSink {
    /// A datagram arrives at `now`; returns the application packets delivered (1).
    pub fn on_datagram(&mut self, now: Time, seq: u32, sent_at: Time) -> u32 {
        self.packets += 1;
        self.expected = self.expected.max(seq as u64 + 1);
        let delay = now - sent_at;
        self.delay_sum_ns += delay as u128;
        self.max_delay_ns = self.max_delay_ns.max(delay);
        1
    }

    /// Datagrams missing below the highest one received (the sink's view of loss).
    pub fn lost(&self) -> u64 {
        self.expected - self.packets
    }

    pub fn mean_delay_ns(&self) -> Option<f64> {
        (self.packets > 0).then(|| self.delay_sum_ns as f64 / self.packets as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::AppSpec;
    use crate::sim::rng::stream;
    use crate::sim::Rate;

    #[test]
    fn source_sends_on_schedule_until_stop() {
        let spec = AppSpec::Cbr { rate: Rate(8_000_000), jitter: 0.0 };
        // 1000 bytes at 8 Mb/s: every 1 ms from 5 ms, stopping at 10 ms.
        let schedule = PacketSchedule::new(&spec, 1000, 5_000_000, stream(1, 1)).unwrap();
        let mut source = UdpSource::new(schedule, Some(10_000_000), 1000);
        let mut out = Vec::new();
        assert_eq!(source.deadline(), Some(5_000_000));
        assert!(!source.on_timer(4_999_999, &mut out));
        while let Some(at) = source.deadline() {
            assert!(source.on_timer(at, &mut out));
        }
        let times: Vec<Time> = out.iter().map(|o| match o.header { Header::Udp { sent_at, .. } => sent_at, _ => 0 }).collect();
        assert_eq!(times, vec![5_000_000, 6_000_000, 7_000_000, 8_000_000, 9_000_000]);
        assert_eq!(source.packets_sent, 5);
    }

    #[test]
    fn sink_counts_gaps_as_losses_and_delays() {
        let mut sink = UdpSink::default();
        for (seq, sent) in [(0, 0), (1, 10), (4, 40)] {
            sink.on_datagram(sent + 100, seq, sent);
        }
        assert_eq!((sink.packets, sink.lost()), (3, 2));
        assert_eq!(sink.mean_delay_ns(), Some(100.0));
    }
}
