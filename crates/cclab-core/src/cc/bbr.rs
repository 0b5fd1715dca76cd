//! BBR v1 (Cardwell, Cheng, Gunn, Yeganeh & Jacobson, ACM Queue 2016), as Linux's
//! net/ipv4/tcp_bbr.c does it (read, not copied): a model of the path — the bottleneck
//! bandwidth, the windowed maximum of delivery-rate samples over 10 round trips, and the
//! minimum RTT over 10 s — sets the pacing rate (gain × bandwidth) and the window (gain ×
//! bandwidth × min RTT, plus a small allowance). Segments and seconds.
//!
//! - STARTUP: gain 2/ln 2 for both, until three rounds in a row fail to grow the
//!   bandwidth by 25 % (`bbr_check_full_bw_reached`); DRAIN (pacing gain ln 2/2) until in
//!   flight falls to one BDP; then PROBE_BW, cycling the pacing gain through 1.25, 0.75
//!   and six 1s, one phase per min RTT (the 1.25 phase until the window's worth is out or
//!   a loss, the 0.75 phase until in flight is down to a BDP), cwnd gain 2, starting at a
//!   phase drawn from the flow's own seed.
//! - PROBE_RTT: when the min RTT is 10 s old, the window drops to 4 segments for 200 ms
//!   and a round trip, then the mode returns (and the min RTT restarts its 10 s).
//! - Losses: on entering fast recovery the window keeps what is in flight (packet
//!   conservation for a round trip) and the prior window is restored when recovery ends;
//!   the bandwidth model is untouched (the sender's timeout rule still sets cwnd to 1,
//!   from which the model's window regrows).
//!
//! Left out here: the long-term (policer) bandwidth estimate and the ACK-aggregation
//! allowance. Rate samples come from the sender ([`crate::transport::rate`]): they carry
//! no loss count, so in recovery the window is not reduced by each loss beyond packet
//! conservation.
//!
//! Under the `linux` profile ([`CongestionControl::use_linux_rules`]) mainline
//! tcp_bbr.c's arithmetic replaces all of this, with both left-out parts
//! ([`LinuxBbr`], module `linux`).
use super::minmax::WindowedMax;
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, CongestionSignal, RateSample, Reduction, Window};

mod linux;
pub use linux::LinuxBbr;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

const NS: f64 = 1e9;
/// 2/ln 2: the smallest gain that doubles the delivery rate each round (STARTUP).
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927;
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Rounds the bandwidth filter spans (Linux `bbr_bw_rtts`: the cycle + 2).
const BW_ROUNDS: u64 = CYCLE.len() as u64 + 2;
const MIN_CWND: f64 = 4.0;
/// Pacing 1 % below the estimate (Linux `bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.01;

/// Packet-timed round trips (Linux `bbr_update_round_start`): a round ends when an ACK
/// delivers a segment sent after the round began, i.e. whose delivered count at sending
/// reached the count the round began at. Shared by BBR v1 and BBRv3 ([`super::bbr3`]).
#[derive(Clone, Debug, Default)]
pub struct PacketRounds {
    /// The delivered count the current round ends at (Linux `next_rtt_delivered`).
    next_delivered: u64,
    /// Rounds counted so far.
    pub count: u64,
}

impl PacketRounds {
    /// Whether this valid sample (`interval` > 0) starts a new round.
    pub fn update(&mut self, rs: &RateSample) -> bool {
        if rs.interval > 0 && rs.prior_delivered >= self.next_delivered {
            self.next_delivered = rs.delivered_total;
            self.count += 1;
            return true;
        }
        false
    }

    /// Start a round now: it ends once a segment sent after `delivered` was delivered.
    pub fn restart(&mut self, delivered: u64) {
        self.next_delivered = delivered;
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BbrConfig {
    /// How long a min RTT sample stands (Linux: 10 s).
    pub min_rtt_window: crate::sim::Duration,
    /// How long PROBE_RTT holds the window at 4 segments (Linux: 200 ms).
    pub probe_rtt_duration: crate::sim::Duration,
    /// PROBE_BW's window gain (Linux: 2).
    pub cwnd_gain: f64,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            min_rtt_window: crate::sim::Duration::from_secs_f64(10.0),
            probe_rtt_duration: crate::sim::Duration::from_millis(200),
            cwnd_gain: 2.0,
        }
    }
}

impl Algorithm for BbrConfig {
    /// ns-2.35 predates BBR.
    fn in_ns2(&self) -> bool {
        false
    }
    type Controller = Bbr;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        super::westwood::validate_seconds("min_rtt_window", self.min_rtt_window.secs_f64())?;
        super::westwood::validate_seconds("probe_rtt_duration", self.probe_rtt_duration.secs_f64())?;
        if !(self.cwnd_gain >= 1.0 && self.cwnd_gain <= 100.0) {
            return Err(("cwnd_gain", format!("{} is not in [1, 100]", crate::schema::Num(self.cwnd_gain))));
        }
        Ok(())
    }

    fn build(&self) -> Bbr {
        Bbr {
            config: self.clone(),
            min_rtt_window: self.min_rtt_window.secs_f64(),
            probe_rtt_duration: self.probe_rtt_duration.secs_f64(),
            probe_bw_cwnd_gain: self.cwnd_gain,
            ..Bbr::default()
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Debug, Default)]
pub struct Bbr {
    min_rtt_window: f64,
    probe_rtt_duration: f64,
    probe_bw_cwnd_gain: f64,
    pub mode: Mode,
    /// Bottleneck bandwidth filter (segments/s) over BW_ROUNDS rounds.
    bw: WindowedMax,
    /// Min RTT (s) and when it was taken.
    pub min_rtt: Option<f64>,
    min_rtt_at: f64,
    rounds: PacketRounds,
    round_start: bool,
    full_bw: f64,
    full_bw_rounds: u32,
    full_bw_reached: bool,
    cycle_index: usize,
    cycle_start: f64,
    pacing_gain: f64,
    cwnd_gain: f64,
    pacing_rate: f64,
    /// PROBE_RTT: when it may end (once a round has also passed).
    probe_rtt_done_at: Option<f64>,
    probe_rtt_round_done: bool,
    /// The window before recovery or PROBE_RTT, restored after.
    prior_cwnd: f64,
    packet_conservation: bool,
    in_recovery: bool,
    /// The phase PROBE_BW starts at, drawn once (Linux: a random phase, not the 0.75 one).
    start_phase: usize,
    started: bool,
    /// The flow's seed and config, for the linux variant.
    seed: u64,
    config: BbrConfig,
    /// tcp_bbr.c's arithmetic, once the sender asks for the linux rules.
    pub linux: Option<Box<LinuxBbr>>,
}

impl Bbr {
    pub fn bandwidth(&self) -> f64 {
        self.bw.get()
    }

    /// gain × BDP, in segments, with Linux's allowance for segments held in queues and
    /// offload (3 × 2 segments here), rounded up to even, +2 in the probing phase.
    fn inflight(&self, gain: f64) -> f64 {
        let Some(min_rtt) = self.min_rtt else { return MIN_CWND };
        let bdp = self.bandwidth() * min_rtt;
        let mut cwnd = (gain * bdp).ceil() + 3.0 * 2.0;
        cwnd = (cwnd / 2.0).ceil() * 2.0;
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            cwnd += 2.0;
        }
        cwnd
    }

    fn set_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (1.0 / HIGH_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (CYCLE[self.cycle_index], self.probe_bw_cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn enter_probe_bw(&mut self, now: f64) {
        self.mode = Mode::ProbeBw;
        self.cycle_index = self.start_phase;
        self.cycle_start = now;
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        self.prior_cwnd = if self.in_recovery || self.mode == Mode::ProbeRtt { self.prior_cwnd.max(cwnd) } else { cwnd };
    }

    /// The model: rounds, bandwidth, gain cycle, full pipe, drain, min RTT (`bbr_update_model`).
    fn update_model(&mut self, window: &mut Window, rs: &RateSample, now: f64) {
        // rounds
        self.round_start = self.rounds.update(rs);
        if self.round_start {
            self.packet_conservation = false;
        }
        // bandwidth
        if let Some(rate) = rs.rate() {
            if !rs.app_limited || rate >= self.bandwidth() {
                self.bw.update(BW_ROUNDS, self.rounds.count, rate);
            }
        }
        // gain cycling
        if self.mode == Mode::ProbeBw && self.next_phase_due(rs, now) {
            self.cycle_index = (self.cycle_index + 1) % CYCLE.len();
            self.cycle_start = now;
        }
        // full pipe
        if !self.full_bw_reached && self.round_start && !rs.app_limited {
            if self.bandwidth() >= self.full_bw * 1.25 {
                self.full_bw = self.bandwidth();
                self.full_bw_rounds = 0;
            } else {
                self.full_bw_rounds += 1;
                self.full_bw_reached = self.full_bw_rounds >= 3;
            }
        }
        // drain
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            window.ssthresh = self.inflight(1.0);
        }
        if self.mode == Mode::Drain && (rs.in_flight as f64) <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
        // min RTT and PROBE_RTT
        let expired = now > self.min_rtt_at + self.min_rtt_window;
        if let Some(rtt) = rs.rtt.map(|t| t as f64 / NS) {
            if self.min_rtt.map_or(true, |min| rtt < min) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_at = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.save_cwnd(window.cwnd);
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done_at = None;
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done_at {
                None if (rs.in_flight as f64) <= MIN_CWND => {
                    self.probe_rtt_done_at = Some(now + self.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.rounds.restart(rs.delivered_total);
                }
                Some(done_at) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done && now > done_at {
                        self.min_rtt_at = now;
                        window.cwnd = window.cwnd.max(self.prior_cwnd);
                        if self.full_bw_reached {
                            self.enter_probe_bw(now);
                        } else {
                            self.mode = Mode::Startup;
                        }
                    }
                }
                None => {}
            }
        }
        self.set_gains();
    }

    /// `bbr_is_next_cycle_phase`.
    fn next_phase_due(&self, rs: &RateSample, now: f64) -> bool {
        let full_length = now - self.cycle_start > self.min_rtt.unwrap_or(0.0);
        let gain = CYCLE[self.cycle_index];
        // in flight before this ACK delivered what it did
        let prior_in_flight = (rs.in_flight + rs.acked_sacked) as f64;
        if gain > 1.0 {
            full_length && prior_in_flight >= self.inflight(gain)
        } else if gain < 1.0 {
            full_length || prior_in_flight <= self.inflight(1.0)
        } else {
            full_length
        }
    }

    fn set_pacing_rate(&mut self, window: &Window) {
        let rate = match self.min_rtt {
            // before any bandwidth sample: the initial window over the RTT (or 1 ms)
            _ if self.bandwidth() <= 0.0 => HIGH_GAIN * window.cwnd / self.min_rtt.unwrap_or(0.001),
            _ => self.pacing_gain * self.bandwidth() * (1.0 - PACING_MARGIN),
        };
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn set_cwnd(&mut self, window: &mut Window, rs: &RateSample) {
        let acked = rs.acked_sacked as f64;
        if acked > 0.0 {
            let in_flight = rs.in_flight as f64;
            if self.packet_conservation {
                window.cwnd = window.cwnd.max(in_flight + acked);
            } else {
                let target = self.inflight(self.cwnd_gain);
                if self.full_bw_reached {
                    window.cwnd = (window.cwnd + acked).min(target);
                } else if window.cwnd < target || rs.delivered_total < 10 {
                    window.cwnd += acked;
                }
                window.cwnd = window.cwnd.max(MIN_CWND);
            }
        }
        if self.mode == Mode::ProbeRtt {
            window.cwnd = window.cwnd.min(MIN_CWND);
        }
    }

}

impl CongestionControl for Bbr {
    fn label(&self) -> String {
        "bbr".into()
    }

    fn on_ack(&mut self, _window: &mut Window, _ack: &super::AckSample) {}

    /// The PROBE_BW phase this flow starts at: any but the 0.75 one (Linux: random).
    fn set_seed(&mut self, seed: u64) {
        let choices = [0usize, 2, 3, 4, 5, 6, 7];
        self.start_phase = choices[(seed % choices.len() as u64) as usize];
        self.seed = seed;
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.set_seed(seed);
        }
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn controls_window(&self) -> bool {
        true
    }

    fn paces(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        if let Some(linux) = self.linux.as_deref() {
            return linux.pacing_rate_segments();
        }
        (self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }

    fn on_rate_sample(&mut self, window: &mut Window, rs: &RateSample) {
        if let Some(linux) = self.linux.as_deref_mut() {
            return linux.on_rate_sample(window, rs);
        }
        if !self.started {
            self.started = true;
            self.set_gains();
        }
        let now = rs.now as f64 / NS;
        self.update_model(window, rs, now);
        self.set_pacing_rate(window);
        self.set_cwnd(window, rs);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        if let Some(linux) = self.linux.as_deref_mut() {
            return Reduction { ssthresh: linux.ssthresh(window, event.now), cwnd: window.cwnd };
        }
        self.save_cwnd(window.cwnd);
        if event.signal == CongestionSignal::FastRetransmit {
            self.in_recovery = true;
            self.packet_conservation = true;
            // a round starts now (Linux: next_rtt_delivered = delivered)
            self.rounds.restart(0);
        }
        // BBR keeps its model; the window holds what is in flight (a timeout's 1 is the sender's)
        Reduction { ssthresh: window.ssthresh, cwnd: (event.flight_size as f64).max(MIN_CWND).min(window.cwnd.max(MIN_CWND)) }
    }

    fn on_recovery_end(&mut self, window: &mut Window, _now: Time) {
        if self.linux.is_some() {
            return; // recovery ends through the rate samples' CA state
        }
        self.in_recovery = false;
        self.packet_conservation = false;
        window.cwnd = window.cwnd.max(self.prior_cwnd);
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        if let Some(linux) = self.linux.as_deref() {
            return linux.state(out);
        }
        out.push(("mode", self.mode as u8 as f64));
        out.push(("btl_bw_pps", self.bandwidth()));
        out.push(("min_rtt_s", self.min_rtt.unwrap_or(0.0)));
        out.push(("pacing_gain", self.pacing_gain));
        out.push(("pacing_rate_pps", self.pacing_rate));
    }

    fn use_linux_rules(&mut self, socket: super::LinuxSocket) {
        self.linux = Some(Box::new(LinuxBbr::new(&self.config, socket.mss_bytes, self.seed)));
    }

    fn pkts_acked(&mut self, window: &mut Window, ack: &AckSample) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.pkts_acked(window, ack);
        }
    }

    fn on_loss_totals(&mut self, delivered: u64, lost: u64) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.loss_totals(delivered, lost);
        }
    }

    fn on_loss_state(&mut self, window: &mut Window, now: Time) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.loss_state(window, now);
        }
    }

    fn undo_cwnd(&mut self, window: &Window, prior_cwnd: f64) -> f64 {
        match self.linux.as_deref_mut() {
            Some(linux) => linux.undo_cwnd(window),
            None => window.cwnd.max(prior_cwnd),
        }
    }

    fn on_tx_start(&mut self, window: &mut Window, now: Time, _idle: Time) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.tx_start(window, now);
        }
    }

    fn on_established(&mut self, window: &mut Window, now: Time, rtt: Option<Time>, srtt: Option<f64>) {
        if let Some(linux) = self.linux.as_deref_mut() {
            linux.established(window, now, rtt, srtt);
        }
    }

    fn min_tso_segs(&self) -> Option<u32> {
        self.linux.as_deref().map(LinuxBbr::min_tso_segs)
    }

    fn marks_app_limited(&self) -> bool {
        self.linux.as_deref().is_some_and(LinuxBbr::marks_app_limited)
    }
}
