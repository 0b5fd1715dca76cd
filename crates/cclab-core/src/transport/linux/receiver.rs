//! Linux's data receiver: when it ACKs, and what the ACK says (tcp_input.c,
//! tcp_output.c, tcp_timer.c of Linux 6.x; all segments are full-sized, so "more than one
//! rcv_mss" is "two segments").
//!
//! * An ACK is due (`__tcp_ack_snd_check`) when two segments have arrived since the last
//!   one (rcv_nxt − rcv_wup > rcv_mss), in quick-ACK mode, or when the state asks for one
//!   at once (a hole filled, `ICSK_ACK_NOW`). Otherwise, with nothing held out of order,
//!   the delayed-ACK timer is armed (`tcp_send_delayed_ack`: ATO jiffies, bounded by the
//!   RTT when ATO has grown; an ACK goes at once if the timer armed earlier would fire
//!   within ATO/4); with data held out of order, SACK compression: the first three
//!   ACKs at a given rcv_nxt go at once, later ones wait on a timer of 5 % of the RTT,
//!   at most 1 ms (`tcp_comp_sack_delay_ns`), or until 44 are pending.
//! * Quick-ACK mode (`tcp_incr_quickack`, `tcp_enter_quickack_mode`): 16 immediate ACKs
//!   from the first segment (the initial rcv_mss of 536 bytes makes the budget
//!   rcv_wnd/(2·536) > 16), after a gap longer than the RTO, and after a duplicate; one
//!   immediate ACK for each segment that grows the receive window (`tcp_grow_window`
//!   sets quick |= 1), which it does while the window clamp, raised once per RTT by
//!   receive-buffer autotuning (`tcp_rcv_space_adjust`), is above rcv_ssthresh — so in
//!   slow start nearly every segment is ACKed.
//! * ATO (`tcp_event_data_recv`): 40 ms (TCP_ATO_MIN = HZ/25) at the first segment;
//!   segments ≤ 20 ms apart keep it at ATO/2 + 20 ms; a missed delayed ACK doubles it
//!   (`tcp_delack_timer_handler`); leaving quick-ACK mode resets it.
//! * SACK blocks (`tcp_sack_new_ofo_skb`, `tcp_sack_remove`): at most four remembered,
//!   the one a segment extends (or a new one) moved to the front, touching ones merged;
//!   an ACK carries up to three (timestamps take the rest of the option space), a pending
//!   D-SACK first (RFC 2883: a duplicate segment, `tcp_dsack_set`).
//! * Timestamps (RFC 7323): TS.Recent is the TSval of a segment at rcv_wup (the left edge
//!   the last ACK advertised) or below; every ACK carries the clock (ms) and echoes it.
//!   The receiver's RTT (`tcp_rcv_rtt_measure_ts`) is its clock minus the echo of its own
//!   TSval that data segments carry.
//! * ECN: ECE from a CE mark until CWR (RFC 3168), or DCTCP's exact echo.
//! * Receive coalescing (GRO, `tcp_gro_receive`; the socket backlog, `tcp_add_backlog`):
//!   in-order segments that arrive back to back (each within [`COALESCE_WINDOW`] of the
//!   previous) with the same TSval and ECN bits reach TCP as one buffer, so the
//!   per-buffer decisions — ATO, window growth, quick-ACK accounting, whether to ACK —
//!   are taken once for them all, when the burst ends. Measured on the reference
//!   machine (bench/linux/diag/FINDINGS.md), the kernel's receiver sends about one ACK
//!   per 1-ms tick of Mahimahi's at 48 Mb/s (4 segments), not one per two segments.
//! * PSH (`tcp_measure_rcv_mss` → ICSK_ACK_PUSHED → `tcp_cleanup_rbuf`): a buffer with a
//!   PSH segment — the sender's end of a GSO packet — is ACKed as the application reads
//!   it, one segment or more. Replayed on the reference machine's captured arrivals,
//!   this rule moves the ACKs per data segment from 0.34 to 0.41 for BBR at 48 Mb/s
//!   (the kernel sent 0.40) and the ACKs falling where the kernel's did from 65 to 74 %
//!   (`bench/linux/diag/ack_rules.py`).
use super::{jiffies, to_jiffies, ts_ms, JIFFY};
use crate::net::packet::ecn;
use crate::sim::Time;
use crate::transport::endpoint::SACK_BLOCK_BYTES;
use crate::transport::held::hold;
use crate::transport::{AckInfo, Header, Outbox, Outgoing, SackBlock, Seq, MAX_SACK_BLOCKS};

/// TCP_MAX_QUICKACKS.
const MAX_QUICKACKS: u32 = 16;
/// TCP_ATO_MIN = HZ/25, jiffies.
const ATO_MIN: u64 = 10;
/// HZ/2 (delayed ACKs at most 500 ms), jiffies.
const ATO_MAX: u64 = 125;
/// `tcp_delack_max()`: min(TCP_DELACK_MAX, rto_min − 1 jiffy), jiffies.
const DELACK_MAX: u64 = 49;
/// TCP_FASTRETRANS_THRESH: immediate duplicate ACKs per hole before compression.
const FASTRETRANS_THRESH: u32 = 3;
/// `tcp_comp_sack_nr`.
const COMP_SACK_NR: u32 = 44;
/// `tcp_comp_sack_delay_ns`.
const COMP_SACK_DELAY: Time = 1_000_000;
/// TCP_NUM_SACKS: blocks remembered.
const NUM_SACKS: usize = 4;
/// The option bytes the first SACK block adds beyond its 8 (kind, length, two NOPs).
const SACK_OPTION_BYTES: u32 = 4;
/// The receive window at the start, segments (`tcp_rmem[1]` = 128 KiB at a 50 % ratio:
/// 64 KiB, 45 segments of 1448 bytes).
const INITIAL_WINDOW_SEGMENTS: u32 = 45;
/// The largest window autotuning reaches (`tcp_rmem[2]` = 32 MiB at ~50 %), segments.
const MAX_WINDOW_SEGMENTS: u32 = 11_586;
/// The RTO floor the receiver's own RTO (used to bound ATO) rests on.
const RTO_MIN: Time = 200_000_000;
/// Segments arriving within this of the previous one join its receive buffer (one
/// NAPI poll's worth: GRO flushes at the end of a poll).
pub const COALESCE_WINDOW: Time = 20_000;
/// GRO's limit: 64 KiB, 44 segments of 1448 bytes (`gro_max_size`, `MAX_GSO_SIZE`).
const COALESCE_MAX_SEGMENTS: u32 = 44;

/// In-order segments coalesced into one receive buffer, not yet handed to TCP's
/// per-buffer decisions.
#[derive(Clone, Copy, Debug)]
struct Burst {
    tsval: u32,
    ecn_bits: u8,
    segments: u32,
    /// A segment of it carried PSH (the flags of coalesced segments add up).
    push: bool,
    /// When the burst ends if no segment joins it.
    ends: Time,
}

pub struct LinuxReceiver {
    rcv_nxt: Seq,
    /// rcv_nxt when the last ACK went out (`rcv_wup`).
    rcv_wup: Seq,
    /// Out-of-order segments held, sorted disjoint [start, end) ranges above rcv_nxt.
    held: Vec<SackBlock>,
    /// The SACK blocks remembered, most recent first (`selective_acks`).
    sacks: [SackBlock; NUM_SACKS],
    num_sacks: usize,
    /// A D-SACK to report with the next ACK.
    dsack: Option<SackBlock>,
    /// Immediate ACKs left (`icsk_ack.quick`).
    quick: u32,
    /// Delayed-ACK timeout, jiffies (0: no data yet).
    ato: u64,
    /// Jiffies of the last in-order data (`lrcvtime`).
    last_data_jiffies: u64,
    /// An ACK is scheduled (ICSK_ACK_SCHED) / must go at once (ICSK_ACK_NOW).
    ack_scheduled: bool,
    ack_now: bool,
    /// The delayed-ACK timer (ICSK_ACK_TIMER), as the jiffy it fires at.
    delack_jiffy: Option<u64>,
    /// SACK compression: ACKs held, the rcv_nxt they are for, duplicates sent at once,
    /// and the timer.
    compressed_ack: u32,
    compressed_ack_rcv_nxt: Seq,
    dup_ack_counter: u32,
    compressed_deadline: Option<Time>,
    /// Receive-window growth: rcv_ssthresh and window_clamp (segments), and autotuning's
    /// last measurement (`rcvq_space`: segments read per RTT, from when, from which seq).
    rcv_ssthresh: u32,
    window_clamp: u32,
    rcvq_space: u32,
    rcvq_time: Time,
    rcvq_seq: Seq,
    /// The receiver's RTT estimate (`rcv_rtt_est.rtt_us`, µs × 8; 0 until measured) and
    /// the echo it was last taken from.
    rcv_rtt8: u64,
    rcv_rtt_last_tsecr: u32,
    /// RFC 7323 TS.Recent: the sender's TSval to echo.
    ts_recent: u32,
    /// ECN: echo CE until CWR; or DCTCP's exact echo (the CE state of the last segment).
    echo_ce: bool,
    dctcp: bool,
    /// AccECN's count of CE-marked segments received (on every ACK, `ce_count`), and
    /// an L4S flow's receiver, which then sets no classic ECE.
    ce_count: u32,
    accecn: bool,
    sack: bool,
    first_data: Seq,
    /// Receive coalescing: the window (0: off) and the burst being coalesced.
    coalesce: Time,
    burst: Option<Burst>,
}

impl LinuxReceiver {
    pub fn new(sack: bool, first_data: Seq) -> LinuxReceiver {
        LinuxReceiver {
            rcv_nxt: 0,
            rcv_wup: 0,
            held: Vec::new(),
            sacks: [(0, 0); NUM_SACKS],
            num_sacks: 0,
            dsack: None,
            quick: 0,
            ato: 0,
            last_data_jiffies: 0,
            ack_scheduled: false,
            ack_now: false,
            delack_jiffy: None,
            compressed_ack: 0,
            compressed_ack_rcv_nxt: 0,
            dup_ack_counter: 0,
            compressed_deadline: None,
            rcv_ssthresh: INITIAL_WINDOW_SEGMENTS,
            window_clamp: INITIAL_WINDOW_SEGMENTS,
            rcvq_space: 10,
            rcvq_time: 0,
            rcvq_seq: first_data,
            rcv_rtt8: 0,
            rcv_rtt_last_tsecr: 0,
            ts_recent: 0,
            echo_ce: false,
            dctcp: false,
            ce_count: 0,
            accecn: false,
            sack,
            first_data,
            coalesce: 0,
            burst: None,
        }
    }

    /// Coalesce back-to-back in-order segments (GRO) within `window` of each other.
    pub fn with_coalescing(mut self, window: Time) -> LinuxReceiver {
        self.coalesce = window;
        self
    }

    pub fn with_accecn(mut self) -> LinuxReceiver {
        self.accecn = true;
        self
    }

    pub fn with_dctcp_echo(mut self) -> LinuxReceiver {
        self.dctcp = true;
        self
    }

    pub fn next_expected(&self) -> Seq {
        self.rcv_nxt
    }

    /// The next timer: the end of a coalesced burst, the delayed-ACK timer or the
    /// compressed-ACK timer.
    pub fn deadline(&self) -> Option<Time> {
        let delack = self.delack_jiffy.map(|j| j.saturating_mul(JIFFY));
        [delack, self.compressed_deadline, self.burst.map(|b| b.ends)].into_iter().flatten().min()
    }

    /// The receiver's RTO, which bounds ATO: its RTT (from the handshake in Linux; here
    /// its own estimate) plus the 200-ms floor, 1 s before it has one.
    fn rto_jiffies(&self) -> u64 {
        match self.rcv_rtt8 {
            0 => to_jiffies(1_000_000_000),
            rtt8 => to_jiffies((rtt8 / 8) * 1000 + RTO_MIN),
        }
    }

    /// `tcp_incr_quickack`: the budget is rcv_wnd/(2·rcv_mss), well above 16 here.
    fn incr_quickack(&mut self) {
        self.quick = self.quick.max(MAX_QUICKACKS);
    }

    /// A data segment `seq` arrived: its TSval (its send time, ms), the echo it carries,
    /// the IP header's ECN bits, its CWR and PSH flags. Returns the segments newly
    /// delivered in order.
    #[allow(clippy::too_many_arguments)]
    pub fn receive(
        &mut self,
        now: Time,
        seq: Seq,
        tsval: u32,
        tsecr: u32,
        ecn_bits: u8,
        (cwr, psh): (bool, bool),
        ack_bytes: u32,
        out: &mut impl Outbox,
    ) -> u32 {
        let ce = ecn_bits & ecn::CE != 0;
        if let Some(burst) = self.burst.as_mut() {
            // GRO merges only what TCP would see as one segment: the next in order, with
            // identical options (TSval) and IP ECN field, and no CWR (`tcp_gro_receive`).
            if seq == self.rcv_nxt && tsval == burst.tsval && ecn_bits == burst.ecn_bits && !cwr
                && burst.segments < COALESCE_MAX_SEGMENTS
            {
                burst.segments += 1;
                burst.push |= psh;
                burst.ends = now + self.coalesce;
                self.ce_count = self.ce_count.wrapping_add(ce as u32);
                self.rcv_nxt += 1;
                return 1;
            }
            self.end_burst(now, ack_bytes, out);
        }
        self.ce_count = self.ce_count.wrapping_add(ce as u32);
        if self.accecn {
            // AccECN: the count on every ACK says it all.
        } else if self.dctcp {
            // `dctcp_ece_ack_update`: a change of CE state first ACKs what came before
            // with the old state (if an ACK was being delayed), then ACKs at once.
            if ce != self.echo_ce {
                if self.ack_scheduled {
                    self.send_ack(now, ack_bytes, out);
                }
                self.echo_ce = ce;
                self.ack_now = true;
            }
        } else {
            if cwr {
                self.echo_ce = false;
            }
            if ce {
                self.echo_ce = true;
                // `tcp_ecn_check_ce`: CE puts the receiver in quick-ACK mode (two ACKs).
                self.quick = self.quick.max(2);
            }
        }
        // RFC 7323 TS.Recent (`tcp_replace_ts_recent`): a segment at or below rcv_wup.
        if seq <= self.rcv_wup && tsval >= self.ts_recent {
            self.ts_recent = tsval;
        }
        self.measure_rcv_rtt(now, tsecr);

        let before = self.rcv_nxt;
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            self.data_received(now);
            if let Some(&(start, end)) = self.held.first() {
                if start == self.rcv_nxt {
                    self.rcv_nxt = end;
                    self.held.remove(0);
                    if self.held.is_empty() {
                        self.ack_now = true; // RFC 5681 §4.2: the gap is filled
                    }
                }
            }
            self.remove_covered_sacks();
        } else if seq < self.rcv_nxt {
            // Old data (a spurious retransmission): D-SACK it, ACK at once, quick-ACKs.
            self.dsack = Some((seq, seq + 1));
            self.incr_quickack(); // `tcp_enter_quickack_mode`
            self.ato = ATO_MIN;
            self.ack_scheduled = true;
        } else {
            // Out of order (`tcp_data_queue_ofo`).
            self.ack_scheduled = true;
            if hold(&mut self.held, seq) {
                self.new_ofo_block(now, seq, ack_bytes, out);
                self.grow_window();
            } else {
                self.dsack = Some((seq, seq + 1));
            }
        }
        let delivered = self.rcv_nxt.max(self.first_data) - before.max(self.first_data);
        if delivered > 0 {
            self.space_adjust(now);
        }
        // The SYN-like first packet is answered at once.
        if seq < self.first_data {
            self.ack_now = true;
        }
        if self.coalesce > 0 && seq == before && self.held.is_empty() && !self.ack_now {
            // In order: later segments of the same burst may join this one's buffer;
            // TCP decides whether to ACK when the burst ends.
            self.burst = Some(Burst { tsval, ecn_bits, segments: 1, push: psh, ends: now + self.coalesce });
            return delivered;
        }
        self.ack_snd_check(now, ack_bytes, out);
        delivered
    }

    /// The coalesced burst reaches TCP as one buffer: whether to ACK it.
    fn end_burst(&mut self, now: Time, ack_bytes: u32, out: &mut impl Outbox) {
        let Some(burst) = self.burst.take() else {
            return self.ack_snd_check(now, ack_bytes, out);
        };
        if burst.segments > 1 {
            self.space_adjust(now);
        }
        self.ack_snd_check(now, ack_bytes, out);
        // A buffer with PSH sets ICSK_ACK_PUSHED (`tcp_measure_rcv_mss`, as of the 2023
        // fix "tcp: fix delayed ACKs for MSS boundary condition"); the application, reading
        // it at once and emptying the queue, then ACKs even a single segment
        // (`tcp_cleanup_rbuf`). Not with data held out of order: the queue is not empty.
        if burst.push && self.ack_scheduled && self.held.is_empty() {
            self.send_ack(now, ack_bytes, out);
        }
    }

    /// `tcp_event_data_recv` for an in-order segment: ATO, quick-ACKs, window growth.
    fn data_received(&mut self, now: Time) {
        self.ack_scheduled = true;
        let now_j = jiffies(now);
        if self.ato == 0 {
            // The first data segment: quick-ACK mode, ATO from its minimum.
            self.incr_quickack();
            self.ato = ATO_MIN;
        } else {
            let gap = now_j - self.last_data_jiffies;
            let rto = self.rto_jiffies();
            if gap <= ATO_MIN / 2 {
                self.ato = self.ato / 2 + ATO_MIN / 2;
            } else if gap < self.ato {
                self.ato = (self.ato / 2 + gap).min(rto);
            } else if gap > rto {
                self.incr_quickack(); // the sender was idle: ACK quickly again
            }
        }
        self.last_data_jiffies = now_j;
        self.grow_window();
    }

    /// `tcp_grow_window`: while the window clamp is above rcv_ssthresh, each segment
    /// raises it by two segments and is ACKed at once (quick |= 1).
    fn grow_window(&mut self) {
        let room = self.window_clamp.saturating_sub(self.rcv_ssthresh);
        if room > 0 {
            self.rcv_ssthresh += room.min(2);
            self.quick |= 1;
        }
    }

    /// `tcp_rcv_space_adjust` (the application reads what arrives at once): once per
    /// receiver RTT, if more was read than in the last, the window clamp grows to twice
    /// that plus 16 segments, plus twice the growth (slow start).
    fn space_adjust(&mut self, now: Time) {
        let rtt = (self.rcv_rtt8 / 8) * 1000;
        if self.rcv_rtt8 == 0 || now.saturating_sub(self.rcvq_time) < rtt {
            return;
        }
        let copied = self.rcv_nxt.saturating_sub(self.rcvq_seq);
        if copied > self.rcvq_space {
            let mut window = 2 * copied as u64 + 16;
            let space = self.rcvq_space.max(1) as u64;
            let grow = window * (copied as u64 - space) / space;
            window += 2 * grow;
            let window = window.min(MAX_WINDOW_SEGMENTS as u64) as u32;
            self.window_clamp = self.window_clamp.max(window);
            self.rcvq_space = copied;
        }
        self.rcvq_seq = self.rcv_nxt;
        self.rcvq_time = now;
    }

    /// `tcp_rcv_rtt_measure_ts`: the time since the ACK whose TSval this segment echoes,
    /// smoothed towards larger samples (7/8) and taken at once when smaller.
    fn measure_rcv_rtt(&mut self, now: Time, tsecr: u32) {
        if tsecr == 0 || tsecr == self.rcv_rtt_last_tsecr {
            return;
        }
        self.rcv_rtt_last_tsecr = tsecr;
        let delta_ms = ts_ms(now).saturating_sub(tsecr);
        if delta_ms == 0 {
            return;
        }
        let sample8 = delta_ms as u64 * 1000 * 8;
        self.rcv_rtt8 = if self.rcv_rtt8 == 0 || sample8 < self.rcv_rtt8 {
            sample8
        } else {
            self.rcv_rtt8 - self.rcv_rtt8 / 8 + sample8 / 8
        };
    }

    /// `tcp_sack_new_ofo_skb`: the block segment `seq` extends moves to the front (touching
    /// blocks merge), or a new block goes in front, forgetting the oldest of four. A
    /// segment that extends a block beyond the first two flushes compressed ACKs first.
    fn new_ofo_block(&mut self, now: Time, seq: Seq, ack_bytes: u32, out: &mut impl Outbox) {
        let (start, end) = (seq, seq + 1);
        let found = (0..self.num_sacks).find(|&i| {
            let (s, e) = self.sacks[i];
            start <= e && end >= s
        });
        let index = found.unwrap_or(self.num_sacks);
        if index >= 2 {
            self.flush_compressed(now, ack_bytes, out);
        }
        match found {
            Some(i) => {
                let (s, e) = self.sacks[i];
                self.sacks[i] = (s.min(start), e.max(end));
                self.sacks[..=i].rotate_right(1);
                // `tcp_sack_maybe_coalesce`: the front block swallows any it now touches.
                let mut j = 1;
                while j < self.num_sacks {
                    let (s, e) = self.sacks[j];
                    let (fs, fe) = self.sacks[0];
                    if s <= fe && e >= fs {
                        self.sacks[0] = (fs.min(s), fe.max(e));
                        self.sacks.copy_within(j + 1..self.num_sacks, j);
                        self.num_sacks -= 1;
                    } else {
                        j += 1;
                    }
                }
            }
            None => {
                if self.num_sacks == NUM_SACKS {
                    self.num_sacks -= 1;
                }
                self.sacks.copy_within(0..self.num_sacks, 1);
                self.sacks[0] = (start, end);
                self.num_sacks += 1;
            }
        }
    }

    /// `tcp_sack_remove`: blocks rcv_nxt now covers go; none are left once nothing is held.
    fn remove_covered_sacks(&mut self) {
        if self.held.is_empty() {
            self.num_sacks = 0;
            return;
        }
        let rcv_nxt = self.rcv_nxt;
        let mut kept = 0;
        for i in 0..self.num_sacks {
            if self.sacks[i].0 > rcv_nxt {
                self.sacks[kept] = self.sacks[i];
                kept += 1;
            }
        }
        self.num_sacks = kept;
    }

    fn in_quickack_mode(&self) -> bool {
        self.quick > 0
    }

    /// `__tcp_ack_snd_check`.
    fn ack_snd_check(&mut self, now: Time, ack_bytes: u32, out: &mut impl Outbox) {
        if !self.ack_scheduled {
            return;
        }
        if self.rcv_nxt - self.rcv_wup > 1 || self.in_quickack_mode() || self.ack_now {
            return self.send_ack(now, ack_bytes, out);
        }
        if self.held.is_empty() {
            return self.send_delayed_ack(now, ack_bytes, out);
        }
        if !self.sack || self.compressed_ack >= COMP_SACK_NR {
            return self.send_ack(now, ack_bytes, out);
        }
        if self.compressed_ack_rcv_nxt != self.rcv_nxt {
            self.compressed_ack_rcv_nxt = self.rcv_nxt;
            self.dup_ack_counter = 0;
        }
        if self.dup_ack_counter < FASTRETRANS_THRESH {
            self.dup_ack_counter += 1;
            return self.send_ack(now, ack_bytes, out);
        }
        self.compressed_ack += 1;
        if self.compressed_deadline.is_none() {
            // 5 % of the RTT (the smaller of the receiver's and the handshake's), ≤ 1 ms.
            let rtt_ns = (self.rcv_rtt8 / 8) * 1000;
            let delay = if rtt_ns == 0 { COMP_SACK_DELAY } else { COMP_SACK_DELAY.min(rtt_ns / 20) };
            self.compressed_deadline = Some(now + delay);
        }
    }

    /// `tcp_send_delayed_ack`.
    fn send_delayed_ack(&mut self, now: Time, ack_bytes: u32, out: &mut impl Outbox) {
        let mut ato = self.ato;
        if ato > ATO_MIN {
            // ATO has grown: at most 500 ms, and no longer than the RTT (≥ 40 ms).
            let mut max_ato = ATO_MAX;
            if self.rcv_rtt8 != 0 {
                max_ato = max_ato.min(to_jiffies((self.rcv_rtt8 / 8) * 1000).max(ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        ato = ato.min(DELACK_MAX);
        let now_j = jiffies(now);
        let mut timeout = now_j + ato;
        if let Some(armed) = self.delack_jiffy {
            // The armed timer is about to fire: send now.
            if armed <= now_j + ato / 4 {
                return self.send_ack(now, ack_bytes, out);
            }
            timeout = timeout.min(armed);
        }
        self.delack_jiffy = Some(timeout);
    }

    /// A timer may be due: the compressed-ACK timer sends the held ACK; the delayed-ACK
    /// timer sends the scheduled one and, as it was missed, doubles ATO. Whether an ACK
    /// went out.
    pub fn on_timer(&mut self, now: Time, ack_bytes: u32, out: &mut impl Outbox) -> bool {
        if self.burst.is_some_and(|burst| burst.ends <= now) {
            // the burst's data scheduled an ACK; sending it clears the flag
            self.end_burst(now, ack_bytes, out);
            if !self.ack_scheduled {
                return true;
            }
        }
        if self.compressed_deadline.is_some_and(|t| t <= now) {
            self.compressed_deadline = None;
            if self.compressed_ack > 0 {
                self.compressed_ack -= 1;
                self.send_ack(now, ack_bytes, out);
                return true;
            }
        }
        match self.delack_jiffy {
            Some(j) if j.saturating_mul(JIFFY) <= now => {
                self.delack_jiffy = None;
                if self.ack_scheduled {
                    self.ato = (self.ato * 2).min(self.rto_jiffies());
                    self.send_ack(now, ack_bytes, out);
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    /// `tcp_sack_compress_send_ack`: send the compressed ACK now.
    fn flush_compressed(&mut self, now: Time, ack_bytes: u32, out: &mut impl Outbox) {
        if self.compressed_ack == 0 {
            return;
        }
        self.compressed_deadline = None;
        self.compressed_ack -= 1;
        self.send_ack(now, ack_bytes, out);
    }

    /// `tcp_send_ack` and `tcp_event_ack_sent`: the ACK, with a pending D-SACK first and
    /// up to three blocks; quick-ACK mode counts it; the timers and flags clear.
    fn send_ack(&mut self, now: Time, ack_bytes: u32, out: &mut impl Outbox) {
        let mut ack = AckInfo {
            cumulative: self.rcv_nxt,
            ece: self.echo_ce,
            ce_count: self.ce_count,
            tsval: ts_ms(now),
            tsecr: self.ts_recent,
            ..Default::default()
        };
        if self.sack {
            let mut count = 0;
            if let Some(block) = self.dsack.take() {
                ack.sack[0] = block;
                count = 1;
            }
            for &block in &self.sacks[..self.num_sacks] {
                if count == MAX_SACK_BLOCKS {
                    break;
                }
                ack.sack[count] = block;
                count += 1;
            }
            ack.sack_count = count as u8;
        }
        self.compressed_ack = 0;
        self.compressed_deadline = None;
        if self.quick > 0 && self.ack_scheduled {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN; // leaving quick-ACK mode deflates ATO
            }
        }
        self.ack_scheduled = false;
        self.ack_now = false;
        self.delack_jiffy = None;
        self.rcv_wup = self.rcv_nxt;
        let blocks = ack.sack_count as u32;
        let size = ack_bytes + if blocks > 0 { SACK_OPTION_BYTES + SACK_BLOCK_BYTES * blocks } else { 0 };
        out.send(Outgoing { header: Header::TcpAck(ack), size, ect: false, l4s: false });
    }

    #[cfg(test)]
    pub(crate) fn quick_left(&self) -> u32 {
        self.quick
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn acks(out: &[Outgoing]) -> Vec<AckInfo> {
        out.iter()
            .filter_map(|p| match p.header {
                Header::TcpAck(ack) => Some(ack),
                _ => None,
            })
            .collect()
    }

    /// A receiver past its quick-ACK start: the window stops growing, so no more
    /// immediate ACKs.
    fn settled() -> (LinuxReceiver, Vec<Outgoing>) {
        let mut rx = LinuxReceiver::new(true, 0);
        let mut out = Vec::new();
        for seq in 0..40 {
            rx.receive(seq as Time * MS, seq, 0, 0, 0, (false, false), 52, &mut out);
        }
        out.clear();
        (rx, out)
    }

    /// The first 16 segments are ACKed one by one (quick-ACK mode; the window also
    /// grows), then every second segment once the window clamp is reached.
    #[test]
    fn quick_acks_then_every_second_segment() {
        let mut rx = LinuxReceiver::new(true, 0);
        let mut out = Vec::new();
        for seq in 0..16 {
            rx.receive(seq as Time * MS, seq, 0, 0, 0, (false, false), 52, &mut out);
        }
        assert_eq!(acks(&out).len(), 16);
        let (mut rx, mut out) = settled();
        assert_eq!(rx.quick_left(), 0);
        for seq in 40..50 {
            rx.receive(seq as Time * MS, seq, 0, 0, 0, (false, false), 52, &mut out);
        }
        let cumulative: Vec<Seq> = acks(&out).iter().map(|a| a.cumulative).collect();
        assert_eq!(cumulative, vec![42, 44, 46, 48, 50]);
    }

    /// A lone segment waits for the delayed-ACK timer: ATO 40 ms (10 jiffies from the
    /// jiffy it arrived in); the missed timer doubles ATO.
    #[test]
    fn delayed_ack_timer_in_jiffies() {
        let (mut rx, mut out) = settled();
        rx.receive(1001 * MS, 40, 0, 0, 0, (false, false), 52, &mut out);
        assert!(out.is_empty());
        // arrived in jiffy 250 (1000..1004 ms); ATO: the gap is long, so ATO is the
        // converged value ~40 ms (10 jiffies): fires at jiffy 260 = 1040 ms
        assert_eq!(rx.deadline(), Some(1040 * MS));
        assert!(!rx.on_timer(1039 * MS, 52, &mut out));
        assert!(rx.on_timer(1040 * MS, 52, &mut out));
        assert_eq!(acks(&out)[0].cumulative, 41);
        assert_eq!(rx.ato, 20, "a missed delayed ACK doubles ATO");
    }

    /// Receive coalescing: a tick's back-to-back segments sent in the same millisecond
    /// (one TSval) reach TCP as one buffer, ACKed once when the burst ends; segments of
    /// different milliseconds are separate buffers (an ACK per two); an out-of-order
    /// segment ends the burst at once (its ACK, then the duplicate).
    #[test]
    fn back_to_back_segments_coalesce_into_one_ack() {
        let settled_coalescing = || {
            let (rx, out) = settled();
            (rx.with_coalescing(COALESCE_WINDOW), out)
        };
        let (mut rx, mut out) = settled_coalescing();
        let t0 = 40 * MS; // straight after settled()'s segments (a long gap would restart quick ACKs)
        for (k, seq) in (40..44).enumerate() {
            rx.receive(t0 + k as Time * 120, seq, 7, 0, 0, (false, false), 52, &mut out);
        }
        assert!(out.is_empty(), "nothing before the burst ends");
        let end = t0 + 3 * 120 + COALESCE_WINDOW;
        assert_eq!(rx.deadline(), Some(end));
        assert!(!rx.on_timer(end - 1, 52, &mut out));
        assert!(rx.on_timer(end, 52, &mut out));
        assert_eq!(acks(&out).iter().map(|a| a.cumulative).collect::<Vec<_>>(), vec![44], "one ACK for four");

        // the same four segments, each from its own millisecond: an ACK per two
        let (mut rx, mut out) = settled_coalescing();
        for (k, seq) in (40..44).enumerate() {
            rx.receive(t0 + k as Time * 120, seq, 7 + k as u32, 0, 0, (false, false), 52, &mut out);
        }
        rx.on_timer(t0 + 3 * 120 + COALESCE_WINDOW, 52, &mut out);
        assert_eq!(acks(&out).iter().map(|a| a.cumulative).collect::<Vec<_>>(), vec![42, 44]);

        // 40, 41 in a burst, 43 out of order: the burst's ACK, then the duplicate
        let (mut rx, mut out) = settled_coalescing();
        rx.receive(t0, 40, 7, 0, 0, (false, false), 52, &mut out);
        rx.receive(t0 + 120, 41, 7, 0, 0, (false, false), 52, &mut out);
        assert!(out.is_empty());
        rx.receive(t0 + 240, 43, 7, 0, 0, (false, false), 52, &mut out);
        let sent = acks(&out);
        assert_eq!((sent.len(), sent[0].cumulative, sent[1].cumulative), (2, 42, 42));
        assert_eq!(sent[1].sack_blocks(), &[(43, 44)]);
    }

    /// A buffer with PSH is ACKed as the application reads it, even one segment
    /// (`tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED, `tcp_cleanup_rbuf` sends): the lone
    /// segment that would wait for a second (or the delayed-ACK timer) goes at once if
    /// it ends a GSO packet; a burst of two is ACKed once, PSH or not.
    #[test]
    fn a_pushed_buffer_is_acked_at_once() {
        let settled_coalescing = || {
            let (rx, out) = settled();
            (rx.with_coalescing(COALESCE_WINDOW), out)
        };
        let t0 = 40 * MS;
        let end = t0 + COALESCE_WINDOW;
        for (psh, expected) in [(false, vec![]), (true, vec![41])] {
            let (mut rx, mut out) = settled_coalescing();
            rx.receive(t0, 40, 7, 0, 0, (false, psh), 52, &mut out);
            rx.on_timer(end, 52, &mut out);
            assert_eq!(acks(&out).iter().map(|a| a.cumulative).collect::<Vec<_>>(), expected, "PSH {psh}");
        }
        for psh in [false, true] {
            let (mut rx, mut out) = settled_coalescing();
            rx.receive(t0, 40, 7, 0, 0, (false, false), 52, &mut out);
            rx.receive(t0 + 120, 41, 7, 0, 0, (false, psh), 52, &mut out);
            rx.on_timer(end + 120, 52, &mut out);
            assert_eq!(acks(&out).iter().map(|a| a.cumulative).collect::<Vec<_>>(), vec![42], "PSH {psh}");
        }
    }

    /// Out-of-order data: three duplicate ACKs at once, then compressed to one per
    /// 1 ms timer; the block of the newest segment first; the hole's filling ACKed at
    /// once with no blocks; a duplicate is D-SACKed at once.
    #[test]
    fn out_of_order_compression_and_dsack() {
        let (mut rx, mut out) = settled();
        // 40 lost; 41..47 arrive at 100 µs steps
        for (k, seq) in (41..47).enumerate() {
            rx.receive(2000 * MS + k as Time * 100_000, seq, 0, 0, 0, (false, false), 52, &mut out);
        }
        let sent = acks(&out);
        assert_eq!(sent.len(), 3, "three duplicates at once, then compression");
        assert_eq!(sent[2].sack_blocks(), &[(41, 44)]);
        assert_eq!(out[0].size, 52 + 4 + 8);
        assert_eq!(rx.deadline(), Some(2000 * MS + 300_000 + COMP_SACK_DELAY));
        out.clear();
        assert!(rx.on_timer(2001 * MS + 300_000, 52, &mut out));
        assert_eq!(acks(&out)[0].sack_blocks(), &[(41, 47)]);
        out.clear();
        rx.receive(2010 * MS, 40, 0, 0, 0, (false, false), 52, &mut out);
        let fill = acks(&out)[0];
        assert_eq!((fill.cumulative, fill.sack_count), (47, 0));
        out.clear();
        rx.receive(2011 * MS, 45, 0, 0, 0, (false, false), 52, &mut out);
        let dup = acks(&out)[0];
        assert_eq!((dup.cumulative, dup.sack_blocks()), (47, &[(45, 46)][..]), "D-SACK below the cumulative ACK");
    }

    /// Four blocks are remembered, three reported, most recent first; a segment extending
    /// an older block moves it to the front.
    #[test]
    fn sack_blocks_in_linux_order() {
        let (mut rx, mut out) = settled();
        for seq in [42, 44, 46, 48, 50] {
            rx.receive(3000 * MS, seq, 0, 0, 0, (false, false), 52, &mut out);
        }
        assert_eq!(rx.sacks[..rx.num_sacks], [(50, 51), (48, 49), (46, 47), (44, 45)]);
        rx.receive(3000 * MS, 45, 0, 0, 0, (false, false), 52, &mut out);
        // 45 extends 46-47 (the third): it moves to the front and swallows 44-45
        assert_eq!(&rx.sacks[..rx.num_sacks], &[(44, 47), (50, 51), (48, 49)]);
    }

    /// The receive window grows once per RTT as more is read; each segment that raises
    /// rcv_ssthresh is ACKed at once.
    #[test]
    fn window_growth_acks_each_segment() {
        let mut rx = LinuxReceiver::new(true, 0);
        let mut out = Vec::new();
        // RTT 40 ms measured from echoes: ACKs' TSval come back 40 ms later
        let mut t = 0;
        for seq in 0..200u32 {
            t += MS / 2;
            let tsecr = if t > 40 * MS { ts_ms(t - 40 * MS).max(1) } else { 0 };
            rx.receive(t, seq, ts_ms(t), tsecr, 0, (false, false), 52, &mut out);
        }
        assert!(rx.window_clamp > INITIAL_WINDOW_SEGMENTS, "autotuning raised the clamp: {}", rx.window_clamp);
        assert!(acks(&out).len() > 150, "mostly one ACK per segment while the window grows: {}", acks(&out).len());
    }
}
