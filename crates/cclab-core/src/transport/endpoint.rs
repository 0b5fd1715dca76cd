//! The endpoints of a flow behind one enum: TCP sender and sink, UDP source and sink,
//! TFRC sender and receiver.
//! The engine calls only these methods: a packet arrived, a timer may be due, when is
//! the next deadline, what to trace. Each flow has a source endpoint (sends data) and a
//! sink endpoint (receives it, and for TCP answers with ACKs).
use super::tfrc::{TfrcReceiver, TfrcSender};
use super::{Header, TcpReceiver, TcpSender, UdpSink, UdpSource};
use crate::cc::CongestionControl;
use crate::sim::Time;

/// A packet an endpoint asks the network to carry on its flow's route.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outgoing {
    pub header: Header,
    /// Bytes on the wire.
    pub size: u32,
    /// ECN-capable transport (RFC 3168 ECT): RED may mark it instead of dropping it.
    pub ect: bool,
    /// With `ect`: ECT(1), the L4S identifier (RFC 9331), rather than ECT(0).
    pub l4s: bool,
}

/// Where an endpoint puts the packets it sends. The engine's outbox makes them packets
/// addressed to the flow's other endpoint on the right route; unit tests collect them in
/// a `Vec<Outgoing>`.
pub trait Outbox {
    fn send(&mut self, packet: Outgoing);
}

impl Outbox for Vec<Outgoing> {
    fn send(&mut self, packet: Outgoing) {
        self.push(packet);
    }
}

/// Extra ACK bytes per SACK block (ns-2 TCPSink/Sack1: 8).
pub const SACK_BLOCK_BYTES: u32 = 8;

pub enum Endpoint {
    /// Boxed, as the UDP source: they are several times larger than the sinks.
    TcpSender(Box<TcpSender>),
    TcpSink { receiver: TcpReceiver, ack_bytes: u32 },
    UdpSource(Box<UdpSource>),
    UdpSink(UdpSink),
    TfrcSender { sender: Box<TfrcSender>, data_bytes: u32 },
    TfrcReceiver { receiver: Box<TfrcReceiver>, feedback_bytes: u32 },
}

impl Endpoint {
    /// A packet of this endpoint's flow arrives at `now` with the IP header's ECN bits
    /// `ecn_bits`. Returns the application packets it newly delivered in order (sinks only).
    #[inline]
    pub fn on_packet(&mut self, now: Time, header: &Header, ecn_bits: u8, out: &mut impl Outbox) -> u32 {
        // TCP first, with plain tests rather than a jump table: deliveries alternate
        // between senders and sinks, which an indirect branch predicts poorly.
        if let (Endpoint::TcpSender(sender), Header::TcpAck(ack)) = (&mut *self, header) {
            sender.on_ack(now, ack, out);
            return 0;
        }
        if let (Endpoint::TcpSink { receiver, ack_bytes }, &Header::TcpData { seq, cwr, psh, sent_at, tsecr, .. }) = (&mut *self, header) {
            return receiver.receive_segment(now, seq, sent_at, tsecr, ecn_bits, (cwr, psh), *ack_bytes, out);
        }
        match (self, header) {
            (Endpoint::UdpSink(sink), &Header::Udp { seq, sent_at }) => sink.on_datagram(now, seq, sent_at),
            (Endpoint::TfrcReceiver { receiver, feedback_bytes }, Header::TfrcData(data)) => {
                let ce = ecn_bits & crate::net::packet::ecn::CE != 0;
                let (delivered, feedback) = receiver.on_data(now, data, ce);
                if let Some(feedback) = feedback {
                    out.send(feedback_packet(feedback, *feedback_bytes));
                }
                delivered
            }
            (Endpoint::TfrcSender { sender, data_bytes }, Header::TfrcFeedback(feedback)) => {
                let (size, ect) = (*data_bytes, sender.ecn());
                sender.on_feedback(now, feedback, |data| out.send(Outgoing { header: Header::TfrcData(data), size, ect, l4s: false }));
                0
            }
            (endpoint, header) => {
                // Each flow's packets are routed to its own endpoints only.
                debug_assert!(false, "{header:?} delivered to a {}", endpoint.kind());
                0
            }
        }
    }

    /// A timer may be due at `now` (the engine's timer events can be stale: the
    /// deadlines decide). Returns whether the endpoint acted.
    pub fn on_timer(&mut self, now: Time, out: &mut impl Outbox) -> bool {
        match self {
            Endpoint::TcpSender(sender) => sender.on_timer(now, out),
            Endpoint::TcpSink { receiver, ack_bytes } => receiver.fire_delayed_ack(now, *ack_bytes, out),
            Endpoint::UdpSource(source) => source.on_timer(now, out),
            Endpoint::UdpSink(_) => false,
            Endpoint::TfrcSender { sender, data_bytes } => {
                let (size, ect) = (*data_bytes, sender.ecn());
                sender.on_timer(now, |data| out.send(Outgoing { header: Header::TfrcData(data), size, ect, l4s: false }))
            }
            Endpoint::TfrcReceiver { receiver, feedback_bytes } => match receiver.on_timer(now) {
                Some(feedback) => {
                    out.send(feedback_packet(feedback, *feedback_bytes));
                    true
                }
                None => false,
            },
        }
    }

    /// The next time this endpoint wants `on_timer` called.
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        // Plain tests, TCP first (see `on_packet`).
        if let Endpoint::TcpSender(sender) = self {
            return sender.timer_deadline();
        }
        if let Endpoint::TcpSink { receiver, .. } = self {
            return receiver.delayed_ack_deadline();
        }
        match self {
            Endpoint::UdpSource(source) => source.deadline(),
            Endpoint::TfrcSender { sender, .. } => sender.deadline(),
            Endpoint::TfrcReceiver { receiver, .. } => receiver.deadline(),
            _ => None,
        }
    }

    /// Trace columns of a source: the window and the congestion controller's own state.
    pub fn trace(&self, window: &mut Vec<(&'static str, f64)>, cc_state: &mut Vec<(&'static str, f64)>) {
        if let Endpoint::TcpSender(sender) = self {
            window.push(("cwnd", sender.window().cwnd));
            window.push(("ssthresh", sender.window().ssthresh.min(1e9)));
            window.push(("srtt_ms", sender.srtt_ns().unwrap_or(f64::NAN) / 1e6));
            sender.cc().state(cc_state);
        }
        if let Endpoint::TfrcSender { sender, .. } = self {
            window.push(("rate_mbps", sender.allowed_rate() * 8.0 / 1e6));
            window.push(("loss_event_rate", sender.loss_event_rate()));
            window.push(("rtt_ms", sender.rtt().map_or(f64::NAN, |r| r * 1e3)));
        }
    }

    /// Whether a source's timer actions are traced too: a TCP sender's timers are rare
    /// events (retransmission timeouts); a TFRC sender's timer sends every packet, so
    /// only its reports (arrivals) are traced.
    pub fn traces_timer_actions(&self) -> bool {
        !matches!(self, Endpoint::TfrcSender { .. })
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Endpoint::TcpSender(_) => "TCP sender",
            Endpoint::TcpSink { .. } => "TCP sink",
            Endpoint::UdpSource(_) => "UDP source",
            Endpoint::UdpSink(_) => "UDP sink",
            Endpoint::TfrcSender { .. } => "TFRC sender",
            Endpoint::TfrcReceiver { .. } => "TFRC receiver",
        }
    }
}

fn feedback_packet(feedback: super::tfrc::Feedback, bytes: u32) -> Outgoing {
    Outgoing { header: Header::TfrcFeedback(feedback), size: bytes, ect: false, l4s: false }
}
