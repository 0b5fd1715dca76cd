//! What an endpoint sends: the engine's [`Outbox`], and the hand-off of packets to
//! dequeue-time links.
use super::{Counts, Link, Packet};
use crate::net::link::Admission;
use crate::net::packet::ecn;
use crate::net::LinkId;
use crate::sim::events::MAX_EVENT_ID;
use crate::sim::{Event, EventQueue, Time};
use crate::transport::{Header, Outbox, Outgoing};

/// The engine's [`Outbox`]: what an endpoint sends becomes a packet, counted, and is
/// offered at once to the first link of the endpoint's route. That link is never
/// pass-through (see `Network::pass_through_links`), so an offer there only queues the
/// packet (and may schedule the link's next arrival): nothing reaches another endpoint
/// during the call. The packet is written straight into the link's ring.
pub(super) struct EngineOutbox<'a> {
    pub(super) now: Time,
    pub(super) link: &'a mut Link,
    pub(super) link_id: LinkId,
    pub(super) events: &'a mut EventQueue,
    pub(super) counts: &'a mut Counts,
    pub(super) destination: u32,
    pub(super) route: u32,
    /// When ns-2 would have scheduled what is sent: the event being handled's time.
    pub(super) sched: Time,
}

impl Outbox for EngineOutbox<'_> {
    #[inline(always)]
    fn send(&mut self, out: Outgoing) {
        let class = out.header.class();
        self.counts.sent[class as usize] += 1;
        let ect = if out.ect { ecn::ECT | if out.l4s { ecn::ECT1 } else { 0 } } else { 0 };
        if self.link.dequeues {
            return self.defer(out.size, out.header, ect);
        }
        match self.link.offer(self.now, out.size, out.ect, self.sched) {
            Admission::Admitted { arrives, schedule, mark_ce } => {
                debug_assert!(!self.link.pass_through, "a route's first link is never pass-through");
                // (an emulated link's capture is taken at its release: `on_link_arrival`)
                let captured = self.link.captured && !self.link.emulated;
                let delay = self.link.delay;
                let kept = keep_admitted(self.link, self.link_id, self.events, schedule);
                *kept = Packet {
                    destination: self.destination,
                    size: out.size,
                    route: self.route,
                    hop: 0,
                    ecn: if mark_ce { ect | ecn::CE } else { ect },
                    class,
                    header: out.header,
                };
                if captured {
                    self.counts.captures.record(self.link_id, arrives - delay, kept, kept.ecn);
                }
            }
            Admission::Dropped | Admission::Lost => self.counts.dropped[class as usize] += 1,
        }
    }
}

impl EngineOutbox<'_> {
    /// The first link decides at dequeue: queue the packet there (out of line, as FIFO
    /// links never come here).
    #[cold]
    #[inline(never)]
    fn defer(&mut self, size: u32, header: Header, ect: u8) {
        let packet = Packet {
            destination: self.destination,
            size,
            route: self.route,
            hop: 0,
            ecn: ect,
            class: header.class(),
            header,
        };
        enqueue_deferred(self.link, self.link_id, self.events, self.counts, self.now, packet);
    }
}

/// Hand a packet to a link whose discipline decides at dequeue: past its loss model,
/// queue it, start the transmitter if it is idle, count what was dropped.
#[cold]
#[inline(never)]
pub(super) fn enqueue_deferred(link: &mut Link, id: LinkId, events: &mut EventQueue, counts: &mut Counts, now: Time, packet: Packet) {
    if !link.offer_deferred(now) {
        counts.dropped[packet.class as usize] += 1;
        return;
    }
    if link.enqueue(now, packet) {
        transmit_next(link, id, events, counts, now, false);
    }
    count_dropped(link, counts);
}

/// The transmit-complete event of a dequeue-time link: it rides the timer heap with an
/// id counted down from the top (endpoints count up from 0), so the link events, which
/// carry almost every packet, stay of one kind (`Simulation::on_timer` tells them apart).
pub(super) fn dequeue_event(link: LinkId) -> Event {
    Event::Timer(MAX_EVENT_ID - link)
}

/// A dequeue-time link's transmitter is free at `now`: send the next packet, scheduling
/// when the transmitter is free again and, if the link had nothing in flight, the arrival.
pub(super) fn transmit_next(link: &mut Link, id: LinkId, events: &mut EventQueue, counts: &mut Counts, now: Time, freed: bool) {
    let sent = link.transmit_next(now, freed);
    if let Some(at) = sent.free_at {
        events.schedule(at, dequeue_event(id));
        if link.captured {
            let packet = *link.kept_slot();
            counts.captures.record(id, at, &packet, packet.ecn);
        }
    }
    if let Some(at) = sent.schedule_arrival {
        events.schedule(at, Event::LinkArrival(id));
    }
}

/// Count, by class, the packets a dequeue-time discipline dropped.
pub(super) fn count_dropped(link: &mut Link, counts: &mut Counts) {
    if let Some(dropped) = link.dropped() {
        for packet in dropped.drain(..) {
            counts.dropped[packet.class as usize] += 1;
        }
    }
}

/// A packet admitted to a link that keeps it (not pass-through): the link's next arrival
/// is scheduled if it had nothing in flight, and the caller writes the packet into the
/// returned ring slot (built there in place, not on the stack and copied: a copy of a
/// packet just written field by field stalls).
#[inline(always)]
pub(super) fn keep_admitted<'a>(link: &'a mut Link, id: LinkId, events: &mut EventQueue, schedule: Option<Time>) -> &'a mut Packet {
    if let Some(at) = schedule {
        events.schedule(at, Event::LinkArrival(id));
    }
    link.kept_slot()
}
