//! BBRv3, as google/bbr's v3 branch (net/ipv4/tcp_bbr.c, BBR_VERSION 3) and
//! draft-ietf-ccwg-bbr describe it (read, not copied). Segments and seconds.
//!
//! The model keeps v1's two numbers — the bottleneck bandwidth (`bw_hi`: the larger of the
//! maxima of the last two PROBE_BW cycles) and the min RTT — and adds bounds learnt from
//! loss and ECN: `inflight_hi` (the in-flight level at which loss or marks went past their
//! thresholds while probing), and `bw_lo` / `inflight_lo` (short-term bounds cut by
//! `beta` = 0.7, or by ECN's `1 − ecn_factor·α`, in each round with loss or marks while not
//! probing). The bandwidth used is min(bw_hi, bw_lo).
//!
//! - STARTUP: pacing gain 2.77, cwnd gain 2, until three rounds in a row fail to raise the
//!   delivery rate by 25 % (`full_bw`), or a round in recovery with at least
//!   `full_loss_count` (6) loss events and a loss rate above `loss_thresh` (2 %), or
//!   `full_ecn_count` (2) rounds with a CE fraction above `ecn_thresh` (50 %); the last two
//!   set inflight_hi to max(BDP, the data delivered in the latest round). DRAIN paces at
//!   1/2.885 until in flight falls to a BDP.
//! - PROBE_BW cycles DOWN (pacing 0.91) → CRUISE (1.0) → REFILL (1.0, one round, the
//!   short-term bounds reset) → UP (1.25, cwnd gain 2.25, inflight_hi raised by 1, 2, 4, …
//!   segments per round while the window is the limit) → DOWN. DOWN ends when in flight
//!   is below both the BDP and inflight_hi less 15 % headroom. A new probe (REFILL) starts
//!   after a wall-clock wait of 2–3 s (drawn per cycle) or once the rounds since the last
//!   probe reach min(63, the BDP in segments) less a draw of 0–1 (the Reno-coexistence
//!   bound). UP ends when inflight_hi is reached after a probe that went too high, when
//!   the bandwidth stops growing (three rounds under 25 % once inflight_hi no longer
//!   limits), or when the loss or CE rate goes past its threshold: inflight_hi is then
//!   cut to max(what was in flight, 0.7 × the target in flight) and DOWN begins.
//! - PROBE_RTT: when no lower RTT has been seen for `probe_rtt_interval` (5 s), the window
//!   is held at `probe_rtt_cwnd_gain` (0.5) × BDP for 200 ms and a round; the min RTT
//!   itself expires after `min_rtt_window` (10 s).
//! - The window: gain × BDP plus the ACK-aggregation allowance (`extra_acked`: the largest
//!   excess of delivered data over bw × time in the last 5–10 rounds, at most 100 ms of
//!   bw), at least 3 send quanta and 4 segments, +2 in UP; then capped by inflight_hi
//!   (outside CRUISE), by inflight_hi less headroom (CRUISE, PROBE_RTT) and by inflight_lo.
//!   Pacing 1 % below gain × bw. No cut at a loss (v3 has no packet conservation): the
//!   model's bounds are the response.
//!
//! Deviations. The kernel reads each lost and each delivered segment's own record
//! (`tx.in_flight`, `tx.lost`, `delivered_ce`); here the sender's rate samples carry
//! per-ACK counts, so "the loss rate is too high" is the share of segments lost among
//! those delivered or lost since the start of the previous round (1–2 round trips, as a
//! segment's flight spans one; the window restarts when REFILL begins a probe, as a
//! segment never counts losses from before it was sent), the CE rate likewise over
//! delivered segments, and a
//! segment's `tx_in_flight` is what was in flight before the ACK (`prior_in_flight` under
//! the `linux` profile, in flight + newly delivered otherwise). Under the rfc/ns2
//! profiles a loss is counted when the segment is retransmitted. "Window-limited" (the
//! kernel's `is_cwnd_limited`) is in flight reaching the window less one segment in this
//! round or the last. The send quantum is max(2, pacing rate × 2⁻¹⁰ s) segments (no
//! RTT-based TSO allowance); no fast path, no PLB, no idle-restart pacing, and the
//! restore of the window after a timeout's Loss state happens only under the `linux`
//! profile (elsewhere the window regrows from one segment by what each ACK delivers).
//! ECN is used only with `ecn = true` (the flow is then ECN-capable with an exact echo,
//! as DCTCP's) and a min RTT ≤ `ecn_max_rtt` (5 ms, the kernel's `ecn_max_rtt_us`; the
//! kernel also needs a route flagged for shallow-threshold marking). Random draws come
//! from the flow's own seed.
use super::bbr::PacketRounds;
use super::{AckSample, Algorithm, CaState, CongestionControl, CongestionEvent, CongestionSignal, EcnUse, RateSample, Reduction, Window};
use crate::schema::Num;
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};

const NS: f64 = 1e9;
/// Fewest segments in flight (`bbr_cwnd_min_target`).
const MIN_CWND: f64 = 4.0;
/// Pacing 1 % below the estimate (`bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.01;
/// STARTUP / PROBE_UP see the pipe full after `FULL_BW_COUNT` rounds of growth under 25 %.
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_COUNT: u32 = 3;
/// extra_acked's window: 5 rounds (1 in STARTUP), kept as two halves; at most 100 ms of bw.
const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
const EXTRA_ACKED_MAX_S: f64 = 0.1;
const ACK_EPOCH_RESET: f64 = (1u64 << 20) as f64;
/// ECN α's EWMA gain, its start, and the share of inflight_hi re-probed after marks cease.
const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0;
const ECN_REPROBE_GAIN: f64 = 0.5;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Bbr3Config {
    /// STARTUP's pacing gain (v3: 2.77, the draft's 4 ln 2).
    pub startup_pacing_gain: f64,
    /// STARTUP's (and DRAIN's) window gain (v3: 2).
    pub startup_cwnd_gain: f64,
    /// DRAIN's pacing gain (v3: 1/2.885).
    pub drain_pacing_gain: f64,
    /// PROBE_BW's window gain (v3: 2; UP adds `probe_up_cwnd_gain − cwnd_gain`).
    pub cwnd_gain: f64,
    /// PROBE_BW UP's window gain (v3: 2.25).
    pub probe_up_cwnd_gain: f64,
    /// PROBE_BW UP's pacing gain (v3: 1.25).
    pub probe_up_pacing_gain: f64,
    /// PROBE_BW DOWN's pacing gain (v3 kernel: 0.91; the draft: 0.9).
    pub probe_down_pacing_gain: f64,
    /// The loss rate above which probing has gone too far (v3: 2 %).
    pub loss_thresh: f64,
    /// The multiplicative cut of bw_lo / inflight_lo per lossy round, and of inflight_hi
    /// after a probe that went too high (v3: 0.7, i.e. `bbr_beta` = 30 % off).
    pub beta: f64,
    /// Share of inflight_hi left unused in CRUISE and PROBE_RTT (v3: 15 %).
    pub inflight_headroom: f64,
    /// STARTUP ends in a lossy recovery round with this many loss events (v3
    /// `bbr_full_loss_cnt`: 6; 0 turns the loss exit off).
    pub full_loss_count: u32,
    /// React to ECN marks (the flow is then ECN-capable, its receiver echoing each mark).
    pub ecn: bool,
    /// The CE fraction above which probing has gone too far (v3: 50 %).
    pub ecn_thresh: f64,
    /// inflight_lo is cut to (1 − ecn_factor · α) in a round with marks (v3: 1/3).
    pub ecn_factor: f64,
    /// ECN is used only while the min RTT is at most this (v3: 5 ms).
    pub ecn_max_rtt: Duration,
    /// STARTUP ends after this many rounds with a CE fraction above `ecn_thresh` (v3: 2).
    pub full_ecn_count: u32,
    /// PROBE_BW waits at least this long between bandwidth probes (v3: 2 s) ...
    pub probe_wait_base: Duration,
    /// ... plus a uniform draw below this (v3: 1 s).
    pub probe_wait_rand: Duration,
    /// ... or at most this many rounds (Reno coexistence; v3: 63), fewer for a BDP below it.
    pub probe_max_rounds: u32,
    /// The round count starts at a draw below this (v3: 2).
    pub probe_rand_rounds: u32,
    /// PROBE_RTT comes when no lower RTT was seen for this long (v3: 5 s).
    pub probe_rtt_interval: Duration,
    /// PROBE_RTT holds its window this long, and a round (v3: 200 ms).
    pub probe_rtt_duration: Duration,
    /// PROBE_RTT's window, in BDPs (v3: 0.5).
    pub probe_rtt_cwnd_gain: f64,
    /// How long a min RTT sample stands (v3: 10 s).
    pub min_rtt_window: Duration,
    /// Weight of the ACK-aggregation allowance in the window (v3: 1; 0 turns it off).
    pub extra_acked_gain: f64,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            startup_pacing_gain: 2.77,
            startup_cwnd_gain: 2.0,
            drain_pacing_gain: 1.0 / 2.885,
            cwnd_gain: 2.0,
            probe_up_cwnd_gain: 2.25,
            probe_up_pacing_gain: 1.25,
            probe_down_pacing_gain: 0.91,
            loss_thresh: 0.02,
            beta: 0.7,
            inflight_headroom: 0.15,
            full_loss_count: 6,
            ecn: false,
            ecn_thresh: 0.5,
            ecn_factor: 1.0 / 3.0,
            ecn_max_rtt: Duration::from_millis(5),
            full_ecn_count: 2,
            probe_wait_base: Duration::from_secs_f64(2.0),
            probe_wait_rand: Duration::from_secs_f64(1.0),
            probe_max_rounds: 63,
            probe_rand_rounds: 2,
            probe_rtt_interval: Duration::from_secs_f64(5.0),
            probe_rtt_duration: Duration::from_millis(200),
            probe_rtt_cwnd_gain: 0.5,
            min_rtt_window: Duration::from_secs_f64(10.0),
            extra_acked_gain: 1.0,
        }
    }
}

/// Err((field, message with the value)) unless `ok`.
fn within(field: &'static str, message: &'static str, value: f64, ok: bool) -> Result<(), (&'static str, String)> {
    if ok {
        return Ok(());
    }
    Err((field, message.replacen("{}", &Num(value).to_string(), 1)))
}

impl Algorithm for Bbr3Config {
    /// ns-2.35 predates BBR.
    fn in_ns2(&self) -> bool {
        false
    }
    type Controller = Bbr3;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let c = self;
        let gain = |g: f64, lo: f64| g >= lo && g <= 10.0;
        let fraction = |f: f64| f > 0.0 && f < 1.0;
        let secs = |d: Duration| d.secs_f64() > 0.0 && d.secs_f64() <= 3600.0;
        let v = c.startup_pacing_gain;
        within("startup_pacing_gain", "{} is not in (1, 10]", v, v > 1.0 && v <= 10.0)?;
        within("startup_cwnd_gain", "{} is not in [1, 10]", c.startup_cwnd_gain, gain(c.startup_cwnd_gain, 1.0))?;
        within("drain_pacing_gain", "{} is not in (0, 1)", c.drain_pacing_gain, fraction(c.drain_pacing_gain))?;
        within("cwnd_gain", "{} is not in [1, 10]", c.cwnd_gain, gain(c.cwnd_gain, 1.0))?;
        within("probe_up_cwnd_gain", "{} is not in [cwnd_gain, 10]", c.probe_up_cwnd_gain, gain(c.probe_up_cwnd_gain, c.cwnd_gain))?;
        let v = c.probe_up_pacing_gain;
        within("probe_up_pacing_gain", "{} is not in (1, 10]", v, v > 1.0 && v <= 10.0)?;
        within("probe_down_pacing_gain", "{} is not in (0, 1)", c.probe_down_pacing_gain, fraction(c.probe_down_pacing_gain))?;
        within("loss_thresh", "{} is not in (0, 1)", c.loss_thresh, fraction(c.loss_thresh))?;
        within("beta", "{} is not in (0, 1]", c.beta, c.beta > 0.0 && c.beta <= 1.0)?;
        let v = c.inflight_headroom;
        within("inflight_headroom", "{} is not in [0, 1)", v, (0.0..1.0).contains(&v))?;
        within("full_loss_count", "{} is not in [0, 15]", c.full_loss_count as f64, c.full_loss_count <= 15)?;
        within("ecn_thresh", "{} is not in (0, 1]", c.ecn_thresh, c.ecn_thresh > 0.0 && c.ecn_thresh <= 1.0)?;
        within("ecn_factor", "{} is not in [0, 1]", c.ecn_factor, (0.0..=1.0).contains(&c.ecn_factor))?;
        within("ecn_max_rtt", "{} is not in (0, 3600] s", c.ecn_max_rtt.secs_f64(), secs(c.ecn_max_rtt))?;
        let v = c.full_ecn_count;
        within("full_ecn_count", "{} is not in [1, 3]", v as f64, (1..=3).contains(&v))?;
        within("probe_wait_base", "{} is not in (0, 3600] s", c.probe_wait_base.secs_f64(), secs(c.probe_wait_base))?;
        let v = c.probe_wait_rand.secs_f64();
        within("probe_wait_rand", "{} is not in [0, 3600] s", v, (0.0..=3600.0).contains(&v))?;
        let v = c.probe_max_rounds;
        within("probe_max_rounds", "{} is not in [1, 255]", v as f64, (1..=255).contains(&v))?;
        let v = c.probe_rand_rounds;
        within("probe_rand_rounds", "{} is not in [1, probe_max_rounds]", v as f64, v >= 1 && v <= c.probe_max_rounds)?;
        within("min_rtt_window", "{} is not in (0, 3600] s", c.min_rtt_window.secs_f64(), secs(c.min_rtt_window))?;
        let v = c.probe_rtt_interval.secs_f64();
        within("probe_rtt_interval", "{} is not in (0, min_rtt_window] s", v, v > 0.0 && v <= c.min_rtt_window.secs_f64())?;
        within("probe_rtt_duration", "{} is not in (0, 3600] s", c.probe_rtt_duration.secs_f64(), secs(c.probe_rtt_duration))?;
        let v = c.probe_rtt_cwnd_gain;
        within("probe_rtt_cwnd_gain", "{} is not in (0, 1]", v, v > 0.0 && v <= 1.0)?;
        let v = c.extra_acked_gain;
        within("extra_acked_gain", "{} is not in [0, 10]", v, (0.0..=10.0).contains(&v))?;
        Ok(())
    }

    fn build(&self) -> Bbr3 {
        Bbr3 { config: self.clone(), ..Bbr3::default() }
    }

    fn ecn(&self) -> EcnUse {
        if self.ecn {
            EcnUse::ExactEcho
        } else {
            EcnUse::AsConfigured
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

/// PROBE_BW's phases (the kernel's cycle_idx).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    Up,
    #[default]
    Down,
    Cruise,
    Refill,
}

/// What the ACKs now arriving say about bandwidth probing (`bbr_ack_phase`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum AckPhase {
    #[default]
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// Delivered, lost and CE-marked counts at a round's start.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    delivered: u64,
    lost: u64,
    ce: u64,
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    config: Bbr3Config,
    pub mode: Mode,
    pub phase: Phase,
    ack_phase: AckPhase,
    now: f64,
    delivered: u64,
    /// Segments lost (from the samples) and delivered with CE echoed, so far.
    lost_total: u64,
    delivered_ce: u64,
    ece_this_ack: bool,
    rounds: PacketRounds,
    round_start: bool,
    rounds_since_probe: u32,
    /// Counts at the start of the previous and the current round (the loss/CE window).
    counts_prev: Counts,
    counts_now: Counts,
    /// Windowed max bandwidth, one slot per PROBE_BW cycle (segments/s).
    bw_hi: [f64; 2],
    bw_lo: f64,
    bw_latest: f64,
    inflight_latest: f64,
    pub inflight_hi: f64,
    pub inflight_lo: f64,
    pub min_rtt: Option<f64>,
    min_rtt_at: f64,
    probe_rtt_min: Option<f64>,
    probe_rtt_min_at: f64,
    probe_rtt_done_at: Option<f64>,
    probe_rtt_round_done: bool,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    pub full_bw_reached: bool,
    cycle_start: f64,
    probe_wait: f64,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: f64,
    bw_probe_up_acks: f64,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    loss_rounds: PacketRounds,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_in_cycle: bool,
    loss_events_in_round: u32,
    ecn_in_round: bool,
    ecn_in_cycle: bool,
    ecn_eligible: bool,
    ecn_alpha: f64,
    alpha_last: (u64, u64),
    startup_ecn_rounds: u32,
    cwnd_limited_now: bool,
    cwnd_limited_before: bool,
    extra_acked: [f64; 2],
    extra_acked_idx: usize,
    extra_acked_rounds: u32,
    ack_epoch_start: f64,
    ack_epoch_acked: f64,
    prior_cwnd: f64,
    init_cwnd: f64,
    in_recovery: bool,
    undo: (f64, f64, f64),
    pacing_gain: f64,
    cwnd_gain: f64,
    pacing_rate: f64,
    started: bool,
    linux: bool,
    prev_ca_state: CaState,
    rng: u64,
}

impl Default for Bbr3 {
    fn default() -> Self {
        Bbr3 {
            config: Bbr3Config::default(),
            mode: Mode::Startup,
            phase: Phase::Down,
            ack_phase: AckPhase::Init,
            now: 0.0,
            delivered: 0,
            lost_total: 0,
            delivered_ce: 0,
            ece_this_ack: false,
            rounds: PacketRounds::default(),
            round_start: false,
            rounds_since_probe: 0,
            counts_prev: Counts::default(),
            counts_now: Counts::default(),
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            inflight_hi: f64::INFINITY,
            inflight_lo: f64::INFINITY,
            min_rtt: None,
            min_rtt_at: 0.0,
            probe_rtt_min: None,
            probe_rtt_min_at: 0.0,
            probe_rtt_done_at: None,
            probe_rtt_round_done: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            cycle_start: 0.0,
            probe_wait: 0.0,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: f64::INFINITY,
            bw_probe_up_acks: 0.0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            loss_rounds: PacketRounds::default(),
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            loss_events_in_round: 0,
            ecn_in_round: false,
            ecn_in_cycle: false,
            ecn_eligible: false,
            ecn_alpha: 1.0,
            alpha_last: (0, 0),
            startup_ecn_rounds: 0,
            cwnd_limited_now: false,
            cwnd_limited_before: false,
            extra_acked: [0.0; 2],
            extra_acked_idx: 0,
            extra_acked_rounds: 0,
            ack_epoch_start: 0.0,
            ack_epoch_acked: 0.0,
            prior_cwnd: 0.0,
            init_cwnd: 10.0,
            in_recovery: false,
            undo: (f64::INFINITY, f64::INFINITY, f64::INFINITY),
            pacing_gain: 1.0,
            cwnd_gain: 1.0,
            pacing_rate: 0.0,
            started: false,
            linux: false,
            prev_ca_state: CaState::Open,
            rng: 0x9e37_79b9_7f4a_7c15,
        }
    }
}

impl Bbr3 {
    /// The bandwidth model's upper bound: the max of the last two cycles' maxima.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// The bandwidth the flow uses: min(bw_hi, bw_lo).
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    /// A uniform draw in [0, 1) from the flow's stream (splitmix64).
    fn draw(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// ceil(gain × bw × min RTT); the initial window before any RTT sample (`bbr_bdp`).
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            Some(min_rtt) => (gain * bw * min_rtt).ceil(),
            None => self.init_cwnd,
        }
    }

    /// Segments per send burst: about 1 ms at the pacing rate, at least 2.
    fn send_quantum(&self) -> f64 {
        (self.pacing_rate / 1024.0).floor().max(2.0)
    }

    /// `bbr_quantization_budget`: room for three send quanta, at least 4, +2 in UP.
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let mut cwnd = cwnd.max(3.0 * self.send_quantum()).max(MIN_CWND);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd += 2.0;
        }
        cwnd
    }

    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    fn extra_acked(&self) -> f64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    fn ack_aggregation_cwnd(&self) -> f64 {
        if self.config.extra_acked_gain <= 0.0 {
            return 0.0;
        }
        (self.config.extra_acked_gain * self.extra_acked()).floor().min((self.bw() * EXTRA_ACKED_MAX_S).floor())
    }

    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp(self.bw(), self.config.probe_rtt_cwnd_gain).max(MIN_CWND)
    }

    /// The BDP, unless congestion cut the window below it (`bbr_target_inflight`).
    fn target_inflight(&self, cwnd: f64) -> f64 {
        self.inflight(self.bw(), 1.0).min(cwnd)
    }

    fn is_probing_bw(&self) -> bool {
        self.mode == Mode::Startup || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// inflight_hi less the headroom left for other flows (`bbr_inflight_with_headroom`).
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_hi.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (self.inflight_hi * self.config.inflight_headroom).floor().max(1.0);
        (self.inflight_hi - headroom).max(MIN_CWND)
    }

    /// Loss (and CE) counts over the previous and the current round: the stand-in for the
    /// kernel's per-segment `rs->lost` / `rs->tx_in_flight`. True when the share lost of
    /// what was delivered or lost passes `loss_thresh`, or the CE share of what was
    /// delivered passes `ecn_thresh` (ECN-eligible flows).
    fn is_inflight_too_high(&self) -> bool {
        let lost = self.lost_total - self.counts_prev.lost;
        let delivered = self.delivered - self.counts_prev.delivered;
        if lost > 0 && (lost as f64) > self.config.loss_thresh * (delivered + lost) as f64 {
            return true;
        }
        let ce = self.delivered_ce - self.counts_prev.ce;
        self.ecn_eligible && ce > 0 && delivered > 0 && (ce as f64) > self.config.ecn_thresh * delivered as f64
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = f64::INFINITY;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// `bbr_save_cwnd`: the window before recovery or PROBE_RTT cut it.
    fn save_cwnd(&mut self, cwnd: f64) {
        let cut = self.in_recovery || (self.linux && self.prev_ca_state >= CaState::Recovery) || self.mode == Mode::ProbeRtt;
        self.prior_cwnd = if cut { self.prior_cwnd.max(cwnd) } else { cwnd };
    }

    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.inflight_hi = self.inflight(self.max_bw(), 1.0).max(self.inflight_latest);
    }

    /// Too much loss or marking while probing: inflight_hi to what was in flight (at
    /// least beta × the target), and UP ends (`bbr_handle_inflight_too_high`).
    fn handle_inflight_too_high(&mut self, app_limited: bool, tx_in_flight: f64, cwnd: f64) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !app_limited {
            self.inflight_hi = tx_in_flight.max((self.target_inflight(cwnd) * self.config.beta).floor());
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_probe_down();
        }
    }

    /// The in-flight level at which the loss rate crossed the threshold, the lost segment
    /// being the last one out (`bbr_inflight_hi_from_lost_skb`, one segment each).
    fn inflight_hi_from_loss(&self, tx_in_flight: f64, lost: f64) -> f64 {
        let thresh = self.config.loss_thresh;
        let inflight_prev = (tx_in_flight - 1.0).max(0.0);
        let lost_prev = (lost - 1.0).max(0.0);
        let budget = (inflight_prev * thresh).ceil();
        let prefix = if lost_prev >= budget { 0.0 } else { ((budget - lost_prev) / (1.0 - thresh)).floor() };
        inflight_prev + prefix
    }

    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = (self.draw() * self.config.probe_rand_rounds as f64) as u32;
        self.probe_wait = self.config.probe_wait_base.secs_f64() + self.draw() * self.config.probe_wait_rand.secs_f64();
    }

    fn raise_inflight_hi_slope(&mut self, cwnd: f64) {
        let growth = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (cwnd / growth).floor().max(1.0);
    }

    /// The loss/CE window starts afresh: what the probe's own segments see (the kernel's
    /// per-segment counts never include losses from before the segment was sent).
    fn restart_loss_window(&mut self) {
        self.counts_now = Counts { delivered: self.delivered, lost: self.lost_total, ce: self.delivered_ce };
        self.counts_prev = self.counts_now;
    }

    fn start_probe_refill(&mut self, up_rounds: u32) {
        self.reset_lower_bounds();
        self.restart_loss_window();
        self.bw_probe_up_rounds = up_rounds.min(30);
        self.bw_probe_up_acks = 0.0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.rounds.restart(self.delivered);
        self.phase = Phase::Refill;
    }

    fn start_probe_up(&mut self, sample_bw: f64, cwnd: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.rounds.restart(self.delivered);
        self.cycle_start = self.now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope(cwnd);
    }

    fn start_probe_down(&mut self) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_start = self.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.rounds.restart(self.delivered);
        self.phase = Phase::Down;
    }

    fn start_probe_cruise(&mut self) {
        if self.inflight_lo.is_finite() {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// What will be in the network when the next segment leaves (`bbr_packets_in_net_at_edt`).
    fn in_net_at_edt(&self, inflight: f64, pacing_ahead: Time) -> f64 {
        let mut at_edt = inflight;
        if self.pacing_gain > 1.0 {
            at_edt += self.send_quantum();
        }
        let delivered_meanwhile = (self.bw() * pacing_ahead as f64 / NS).floor();
        (at_edt - delivered_meanwhile).max(0.0)
    }

    fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited_now || self.cwnd_limited_before
    }

    fn ca_open(&self, rs: &RateSample) -> bool {
        if self.linux {
            rs.ca_state == CaState::Open
        } else {
            !self.in_recovery
        }
    }

    fn in_fast_recovery(&self, rs: &RateSample) -> bool {
        if self.linux {
            rs.ca_state == CaState::Recovery
        } else {
            self.in_recovery
        }
    }

    /// One ACK's rate sample through the model and the controls (`bbr_main`).
    fn main(&mut self, window: &mut Window, rs: &RateSample) {
        self.now = rs.now as f64 / NS;
        self.delivered = rs.delivered_total;
        let tx_in_flight = if self.linux { rs.prior_in_flight } else { rs.in_flight + rs.acked_sacked } as f64;
        if rs.losses > 0 {
            self.lost_total += rs.losses as u64;
            self.on_losses(rs, window.cwnd, tx_in_flight);
        }
        let limited = tx_in_flight + 1.0 >= window.cwnd;
        self.round_start = self.rounds.update(rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(255);
            self.cwnd_limited_before = self.cwnd_limited_now;
            self.cwnd_limited_now = false;
            self.counts_prev = self.counts_now;
            self.counts_now = Counts { delivered: self.delivered, lost: self.lost_total, ce: self.delivered_ce };
            self.update_ecn_alpha();
        }
        self.cwnd_limited_now |= limited;
        self.ecn_in_round |= self.ecn_eligible && self.ece_this_ack;
        let sample_bw = rs.rate().unwrap_or(0.0);
        let valid = rs.interval > 0 && rs.acked_sacked > 0;
        // bbr_update_latest_delivery_signals
        self.loss_round_start = false;
        if valid {
            self.bw_latest = self.bw_latest.max(sample_bw);
            self.inflight_latest = self.inflight_latest.max(rs.delivered as f64);
            self.loss_round_start = self.loss_rounds.update(rs);
        }
        self.update_model(window, rs, sample_bw, valid, tx_in_flight);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(window, bw, rs);
        self.set_cwnd(window, rs, bw);
        self.bound_cwnd_for_inflight_model(window);
        // bbr_advance_latest_delivery_signals
        if self.loss_round_start {
            self.bw_latest = sample_bw;
            self.inflight_latest = rs.delivered as f64;
        }
        if self.linux {
            self.prev_ca_state = rs.ca_state;
        }
        self.loss_in_cycle |= rs.losses > 0;
        self.ecn_in_cycle |= self.ecn_eligible && self.ece_this_ack;
        self.ece_this_ack = false;
    }

    /// Segments were taken for lost (the kernel's `bbr_skb_marked_lost`, once per ACK
    /// that reports losses).
    fn on_losses(&mut self, rs: &RateSample, cwnd: f64, tx_in_flight: f64) {
        if !self.loss_in_round {
            self.loss_rounds.restart(self.delivered);
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
        if self.bw_probe_samples && self.is_inflight_too_high() {
            let lost = (self.lost_total - self.counts_prev.lost) as f64;
            let inflight_hi = self.inflight_hi_from_loss(tx_in_flight, lost);
            self.handle_inflight_too_high(rs.app_limited, inflight_hi, cwnd);
        }
    }

    fn update_ecn_alpha(&mut self) {
        if !self.ecn_eligible && self.config.ecn && self.config.ecn_factor > 0.0
            && self.min_rtt.is_some_and(|rtt| rtt <= self.config.ecn_max_rtt.secs_f64())
        {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return;
        }
        let delivered = self.delivered - self.alpha_last.0;
        let ce = self.delivered_ce - self.alpha_last.1;
        if delivered == 0 {
            return;
        }
        let ce_ratio = ce as f64 / delivered as f64;
        self.ecn_alpha = ((1.0 - ECN_ALPHA_GAIN) * self.ecn_alpha + ECN_ALPHA_GAIN * ce_ratio).min(1.0);
        self.alpha_last = (self.delivered, self.delivered_ce);
        // bbr_check_ecn_too_high_in_startup
        if !self.full_bw_reached && self.config.ecn_thresh > 0.0 {
            if ce_ratio >= self.config.ecn_thresh {
                self.startup_ecn_rounds += 1;
            } else {
                self.startup_ecn_rounds = 0;
            }
            if self.startup_ecn_rounds >= self.config.full_ecn_count {
                self.handle_queue_too_high_in_startup();
            }
        }
    }

    fn update_model(&mut self, window: &mut Window, rs: &RateSample, sample_bw: f64, valid: bool, tx_in_flight: f64) {
        // bbr_update_congestion_signals
        if valid {
            if !rs.app_limited || sample_bw >= self.max_bw() {
                self.bw_hi[1] = self.bw_hi[1].max(sample_bw);
            }
            self.loss_in_round |= rs.losses > 0;
            if self.loss_round_start {
                self.adapt_lower_bounds(window.cwnd);
                self.loss_in_round = false;
                self.ecn_in_round = false;
            }
        }
        self.update_ack_aggregation(rs, window.cwnd);
        self.check_loss_too_high_in_startup(rs);
        self.check_full_bw_reached(rs, sample_bw);
        self.check_drain(window, rs);
        self.update_cycle_phase(window, rs, sample_bw, tx_in_flight);
        self.update_min_rtt(window, rs);
    }

    /// Cut bw_lo / inflight_lo after a round with loss or marks while not probing.
    fn adapt_lower_bounds(&mut self, cwnd: f64) {
        if self.is_probing_bw() {
            return;
        }
        let mut ecn_inflight_lo = f64::INFINITY;
        if self.ecn_in_round && self.config.ecn_factor > 0.0 {
            if self.inflight_lo.is_infinite() {
                self.inflight_lo = cwnd;
            }
            ecn_inflight_lo = (self.inflight_lo * (1.0 - self.ecn_alpha * self.config.ecn_factor)).floor();
        }
        if self.loss_in_round {
            if self.bw_lo.is_infinite() {
                self.bw_lo = self.max_bw();
            }
            if self.inflight_lo.is_infinite() {
                self.inflight_lo = cwnd;
            }
            self.bw_lo = self.bw_latest.max(self.bw_lo * self.config.beta);
            self.inflight_lo = self.inflight_latest.max((self.inflight_lo * self.config.beta).floor());
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
    }

    fn update_ack_aggregation(&mut self, rs: &RateSample, cwnd: f64) {
        if self.config.extra_acked_gain <= 0.0 || rs.acked_sacked == 0 || rs.interval == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            let window = if self.full_bw_reached { EXTRA_ACKED_WIN_ROUNDS } else { 1 };
            if self.extra_acked_rounds >= window {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        let mut expected = (self.bw() * (self.now - self.ack_epoch_start)).floor();
        let acked = rs.acked_sacked as f64;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET {
            self.ack_epoch_acked = 0.0;
            self.ack_epoch_start = self.now;
            expected = 0.0;
        }
        self.ack_epoch_acked += acked;
        let extra = (self.ack_epoch_acked - expected).min(cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = slot.max(extra);
    }

    fn check_loss_too_high_in_startup(&mut self, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 15 {
            self.loss_events_in_round += 1;
        }
        if self.config.full_loss_count > 0 && self.loss_round_start && self.in_fast_recovery(rs)
            && self.loss_events_in_round >= self.config.full_loss_count && self.is_inflight_too_high()
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample, sample_bw: f64) {
        if self.full_bw_now || rs.app_limited {
            return;
        }
        if sample_bw >= self.full_bw * FULL_BW_THRESH && sample_bw > 0.0 {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    fn check_drain(&mut self, window: &mut Window, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            window.ssthresh = self.inflight(self.max_bw(), 1.0);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain && self.in_net_at_edt(rs.in_flight as f64, rs.pacing_ahead) <= self.inflight(self.max_bw(), 1.0) {
            self.mode = Mode::ProbeBw;
            self.start_probe_down();
        }
    }

    /// Upper bounds from the probing's feedback (`bbr_adapt_upper_bounds`); true when it
    /// decided a phase change.
    fn adapt_upper_bounds(&mut self, rs: &RateSample, cwnd: f64, tx_in_flight: f64) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.app_limited && self.bw_hi[1] > 0.0 {
                self.bw_hi[0] = self.bw_hi[1];
                self.bw_hi[1] = 0.0;
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_probe_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high() {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(rs.app_limited, tx_in_flight, cwnd);
            }
        } else {
            if self.inflight_hi.is_infinite() {
                return false;
            }
            if tx_in_flight > self.inflight_hi {
                self.inflight_hi = tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(rs, cwnd);
            }
        }
        false
    }

    fn probe_inflight_hi_upward(&mut self, rs: &RateSample, cwnd: f64) {
        if !self.is_cwnd_limited() || cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += rs.acked_sacked as f64;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = (self.bw_probe_up_acks / self.bw_probe_up_cnt).floor();
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(cwnd);
        }
    }

    /// Time for REFILL? After marks without loss end, or the wall-clock wait, or the
    /// Reno-coexistence round count (`bbr_check_time_to_probe_bw`).
    fn check_time_to_probe_bw(&mut self, rs: &RateSample, cwnd: f64) -> bool {
        if self.ecn_eligible && self.ecn_in_cycle && !self.loss_in_cycle && self.ca_open(rs) && self.inflight_hi.is_finite() {
            let volume = (self.inflight_hi * ECN_REPROBE_GAIN).floor().max(1.0);
            self.start_probe_refill(volume.log2().floor() as u32);
            return true;
        }
        let rounds = (self.config.probe_max_rounds as f64).min(self.target_inflight(cwnd));
        if self.now - self.cycle_start > self.probe_wait || self.rounds_since_probe as f64 >= rounds {
            self.start_probe_refill(0);
            return true;
        }
        false
    }

    fn update_cycle_phase(&mut self, window: &Window, rs: &RateSample, sample_bw: f64, tx_in_flight: f64) {
        if !self.full_bw_reached {
            return;
        }
        let cwnd = window.cwnd;
        if self.adapt_upper_bounds(rs, cwnd, tx_in_flight) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.in_net_at_edt(tx_in_flight, rs.pacing_ahead);
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(rs, cwnd);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(sample_bw, cwnd);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if self.is_cwnd_limited() && cwnd >= self.inflight_hi {
                    // inflight_hi, not the path, limits growth: keep probing
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down();
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(rs, cwnd) {
                    return;
                }
                if inflight <= self.inflight_with_headroom() && inflight <= self.inflight(self.max_bw(), 1.0) {
                    self.start_probe_cruise();
                }
            }
        }
    }

    fn exit_probe_rtt(&mut self) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_probe_down();
            self.start_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn update_min_rtt(&mut self, window: &mut Window, rs: &RateSample) {
        let probe_rtt_expired = self.now > self.probe_rtt_min_at + self.config.probe_rtt_interval.secs_f64();
        if let Some(rtt) = rs.rtt.map(|t| t as f64 / NS) {
            if self.probe_rtt_min.map_or(true, |min| rtt < min) || probe_rtt_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_at = self.now;
            }
        }
        let min_rtt_expired = self.now > self.min_rtt_at + self.config.min_rtt_window.secs_f64();
        if let Some(probe_min) = self.probe_rtt_min {
            if self.min_rtt.map_or(true, |min| probe_min <= min) || min_rtt_expired {
                self.min_rtt = Some(probe_min);
                self.min_rtt_at = self.probe_rtt_min_at;
            }
        }
        if probe_rtt_expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.save_cwnd(window.cwnd);
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done_at = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.rounds.restart(self.delivered);
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done_at {
                None if (rs.in_flight as f64) <= self.probe_rtt_cwnd() => {
                    self.probe_rtt_done_at = Some(self.now + self.config.probe_rtt_duration.secs_f64());
                    self.probe_rtt_round_done = false;
                    self.rounds.restart(self.delivered);
                }
                Some(done_at) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done && self.now > done_at {
                        self.probe_rtt_min_at = self.now;
                        window.cwnd = window.cwnd.max(self.prior_cwnd);
                        self.exit_probe_rtt();
                    }
                }
                None => {}
            }
        }
    }

    fn update_gains(&mut self) {
        let c = &self.config;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (c.startup_pacing_gain, c.startup_cwnd_gain),
            Mode::Drain => (c.drain_pacing_gain, c.startup_cwnd_gain),
            Mode::ProbeBw => match self.phase {
                Phase::Up => (c.probe_up_pacing_gain, c.probe_up_cwnd_gain),
                Phase::Down => (c.probe_down_pacing_gain, c.cwnd_gain),
                Phase::Cruise | Phase::Refill => (1.0, c.cwnd_gain),
            },
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn set_pacing_rate(&mut self, window: &Window, bw: f64, rs: &RateSample) {
        let rate = if bw <= 0.0 {
            // before any bandwidth sample: STARTUP's gain × the window over the RTT (or 1 ms)
            let rtt = self.min_rtt.or(rs.rtt.map(|t| t as f64 / NS)).unwrap_or(0.001).max(1e-6);
            self.config.startup_pacing_gain * window.cwnd / rtt
        } else {
            self.pacing_gain * bw * (1.0 - PACING_MARGIN)
        };
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn set_cwnd(&mut self, window: &mut Window, rs: &RateSample, bw: f64) {
        let acked = rs.acked_sacked as f64;
        if acked > 0.0 {
            let target = self.quantization_budget(self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd());
            let mut cwnd = window.cwnd;
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || cwnd < 2.0 * self.init_cwnd {
                cwnd += acked;
            }
            window.cwnd = cwnd.max(MIN_CWND);
        }
        if self.mode == Mode::ProbeRtt {
            window.cwnd = window.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    fn bound_cwnd_for_inflight_model(&self, window: &mut Window) {
        let mut cap = f64::INFINITY;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || (self.mode == Mode::ProbeBw && self.phase == Phase::Cruise) {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(MIN_CWND);
        window.cwnd = window.cwnd.min(cap);
    }

    /// A timeout put the sender in the Loss state (`bbr_set_state(TCP_CA_Loss)`).
    fn enter_loss(&mut self, cwnd: f64) {
        self.reset_full_bw();
        if !self.is_probing_bw() && self.inflight_lo.is_infinite() {
            self.inflight_lo = cwnd.max(self.prior_cwnd);
        }
    }
}

impl CongestionControl for Bbr3 {
    fn label(&self) -> String {
        "bbr3".into()
    }

    fn on_ack(&mut self, _window: &mut Window, _ack: &AckSample) {}

    /// CE marks echoed on the ACK (exact echo: each ACK covers segments of one CE state).
    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        self.ece_this_ack = ack.ece;
        if ack.ece {
            self.delivered_ce += (ack.segments_acked + ack.segments_sacked) as u64;
        }
    }

    fn set_seed(&mut self, seed: u64) {
        self.rng ^= seed;
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
        (self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }

    fn on_rate_sample(&mut self, window: &mut Window, rs: &RateSample) {
        if !self.started {
            self.started = true;
            self.init_cwnd = window.cwnd.clamp(1.0, 127.0);
            self.loss_rounds.restart(rs.delivered_total.saturating_sub(rs.acked_sacked as u64) + 1);
            self.update_gains();
        }
        if self.linux && self.prev_ca_state == CaState::Loss && rs.ca_state != CaState::Loss {
            window.cwnd = window.cwnd.max(self.prior_cwnd); // bbr_exit_loss_recovery
        }
        self.main(window, rs);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        // bbr_ssthresh: note the window and the bounds (for undo); no cut
        self.save_cwnd(window.cwnd);
        self.undo = (self.bw_lo, self.inflight_lo, self.inflight_hi);
        match event.signal {
            CongestionSignal::FastRetransmit => self.in_recovery = true,
            CongestionSignal::Timeout if !self.linux => {
                self.in_recovery = true;
                self.enter_loss(window.cwnd);
            }
            _ => {}
        }
        Reduction { ssthresh: window.ssthresh, cwnd: window.cwnd }
    }

    fn on_recovery_end(&mut self, _window: &mut Window, _now: Time) {
        self.in_recovery = false;
    }

    fn on_loss_state(&mut self, window: &mut Window, _now: Time) {
        self.prev_ca_state = CaState::Loss;
        self.enter_loss(window.cwnd);
    }

    /// A spurious reduction: the bounds before the loss episode, and the saved window.
    fn undo_cwnd(&mut self, _window: &Window, _prior_cwnd: f64) -> f64 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo.0);
        self.inflight_lo = self.inflight_lo.max(self.undo.1);
        self.inflight_hi = self.inflight_hi.max(self.undo.2);
        self.prior_cwnd.max(MIN_CWND)
    }

    fn use_linux_rules(&mut self, _linux: super::LinuxSocket) {
        self.linux = true;
    }

    fn marks_app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("mode", self.mode as u8 as f64));
        out.push(("phase", self.phase as u8 as f64));
        out.push(("bw_pps", self.bw()));
        out.push(("bw_hi_pps", self.max_bw()));
        out.push(("bw_lo_pps", if self.bw_lo.is_finite() { self.bw_lo } else { -1.0 }));
        out.push(("inflight_hi", if self.inflight_hi.is_finite() { self.inflight_hi } else { -1.0 }));
        out.push(("inflight_lo", if self.inflight_lo.is_finite() { self.inflight_lo } else { -1.0 }));
        out.push(("min_rtt_s", self.min_rtt.unwrap_or(0.0)));
        out.push(("pacing_gain", self.pacing_gain));
        out.push(("pacing_rate_pps", self.pacing_rate));
        out.push(("extra_acked", self.extra_acked()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// A steady sender at `rate` segments/s with `rtt` ms: the sample one ACK of one
    /// segment gives, `delivered` segments delivered so far.
    fn sample(now_ms: f64, delivered: u64, rate: f64, rtt_ms: u64, in_flight: u32) -> RateSample {
        let interval = (rtt_ms * MS) as f64;
        let over = (rate * interval / 1e9).round() as u64;
        RateSample {
            now: (now_ms * 1e6) as Time,
            delivered: over,
            interval: interval as Time,
            prior_delivered: delivered.saturating_sub(over),
            app_limited: false,
            acked_sacked: 1,
            delivered_total: delivered,
            in_flight,
            rtt: Some(rtt_ms * MS),
            ..RateSample::default()
        }
    }

    /// What a 100 ms path holds in flight: the window, or a round trip at the pacing rate.
    fn in_flight(bbr: &Bbr3, window: &Window, bdp: f64) -> u32 {
        let paced = if bbr.pacing_rate > 0.0 { bbr.pacing_rate * 0.1 } else { bdp };
        window.cwnd.min(paced).max(1.0) as u32 - 1
    }

    /// Drive a flow at a fixed delivery rate (1000 segments/s, 100 ms RTT: BDP 100);
    /// `loss_every` > 0 loses one segment in that many. Returns the phases visited, in
    /// order.
    fn drive(bbr: &mut Bbr3, window: &mut Window, from_ms: f64, to_ms: f64, delivered: &mut u64, loss_every: u64) -> Vec<(Mode, Phase)> {
        let mut seen = vec![];
        let mut t = from_ms;
        while t < to_ms {
            *delivered += 1;
            let mut rs = sample(t, *delivered, 1000.0, 100, in_flight(bbr, window, 100.0));
            if loss_every > 0 && *delivered % loss_every == 0 {
                rs.losses = 1;
            }
            bbr.on_rate_sample(window, &rs);
            let now = (bbr.mode, bbr.phase);
            if seen.last() != Some(&now) {
                seen.push(now);
            }
            t += 1.0;
        }
        seen
    }

    fn flow() -> (Bbr3, Window) {
        let mut bbr = Bbr3Config::default().build();
        bbr.set_seed(7);
        (bbr, Window { cwnd: 10.0, ssthresh: f64::INFINITY })
    }

    /// STARTUP ends on the bandwidth plateau, DRAIN passes, then PROBE_BW goes DOWN →
    /// CRUISE, waits 2–3 s (or the Reno bound: 63 rounds here = 6.3 s, so the clock
    /// wins), REFILLs for a round, probes UP and returns DOWN once the bandwidth stops
    /// growing; the gains follow the phase.
    #[test]
    fn probe_bw_state_machine() {
        let (mut bbr, mut window) = flow();
        let mut delivered = 0;
        let seen = drive(&mut bbr, &mut window, 0.0, 8000.0, &mut delivered, 0);
        assert_eq!(seen[0], (Mode::Startup, Phase::Down));
        assert!(bbr.full_bw_reached);
        let bw: Vec<Phase> = seen.iter().filter(|(m, _)| *m == Mode::ProbeBw).map(|(_, p)| *p).collect();
        // DRAIN hands over to DOWN, which may pass to CRUISE on the same ACK
        assert_eq!(seen[1], (Mode::Drain, Phase::Down), "{seen:?}");
        let from = if bw[0] == Phase::Down { 1 } else { 0 };
        assert_eq!(&bw[from..from + 5], &[Phase::Cruise, Phase::Refill, Phase::Up, Phase::Down, Phase::Cruise], "{seen:?}");
        for (mode, _) in &seen[..4] {
            assert_ne!(*mode, Mode::ProbeRtt);
        }
        // bandwidth model: 1000 segments/s, min RTT 100 ms
        assert!((bbr.max_bw() - 1000.0).abs() < 1.0, "{}", bbr.max_bw());
        assert_eq!(bbr.min_rtt, Some(0.1));
    }

    /// The wall-clock probe wait: each REFILL the clock starts comes 2–3 s after DOWN
    /// began (the Reno bound, 63 rounds = 6.3 s here, comes later), the wait drawn anew.
    #[test]
    fn probe_wait_is_two_to_three_seconds() {
        let mut waits = vec![];
        for seed in 0..10 {
            let (mut bbr, mut window) = flow();
            bbr.set_seed(seed);
            let mut delivered = 0;
            for t in 0..20000 {
                let (phase, since) = (bbr.phase, bbr.now - bbr.cycle_start);
                drive(&mut bbr, &mut window, t as f64, t as f64 + 1.0, &mut delivered, 0);
                if bbr.mode == Mode::ProbeBw && bbr.phase == Phase::Refill && phase != Phase::Refill {
                    waits.push(since);
                }
            }
        }
        assert!(waits.len() >= 40, "{waits:?}");
        assert!(waits.iter().all(|w| (2.0..3.01).contains(w)), "{waits:?}");
        let spread = waits.iter().cloned().fold(f64::INFINITY, f64::min) - waits.iter().cloned().fold(0.0, f64::max);
        assert!(spread < -0.5, "the waits are not drawn: {waits:?}");
    }

    /// The Reno-coexistence bound: with a BDP of 20 segments the probe comes after about
    /// 20 rounds (2 s at 100 ms) even with a long wall-clock wait.
    #[test]
    fn reno_round_bound() {
        let mut config = Bbr3Config::default();
        config.probe_wait_base = Duration::from_secs_f64(100.0);
        let mut bbr = config.build();
        let mut window = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        let mut delivered = 0;
        let mut t = 0.0;
        let rate = 200.0; // 200 segments/s × 100 ms = BDP 20
        let mut refill_at = vec![];
        while t < 20000.0 {
            delivered += 1;
            let rs = sample(t, delivered, rate, 100, in_flight(&bbr, &window, 20.0));
            let before = bbr.phase;
            bbr.on_rate_sample(&mut window, &rs);
            if bbr.phase == Phase::Refill && before != Phase::Refill {
                refill_at.push(t);
            }
            t += 1000.0 / rate;
        }
        assert!(refill_at.len() >= 3, "{refill_at:?}");
        let gap = (refill_at[2] - refill_at[1]) / 1000.0;
        // ~20 rounds of 100 ms plus REFILL, UP and DOWN's rounds
        assert!(gap > 1.5 && gap < 3.5, "{refill_at:?}");
    }

    /// Loss above 2 % while probing UP cuts inflight_hi and ends the probe; inflight_hi
    /// then caps the window outside CRUISE.
    #[test]
    fn loss_while_probing_sets_inflight_hi() {
        let (mut bbr, mut window) = flow();
        let mut delivered = 0;
        drive(&mut bbr, &mut window, 0.0, 3000.0, &mut delivered, 0);
        let mut t = 3000.0;
        while bbr.phase != Phase::Up && t < 12000.0 {
            drive(&mut bbr, &mut window, t, t + 1.0, &mut delivered, 0);
            t += 1.0;
        }
        assert_eq!(bbr.phase, Phase::Up);
        assert!(bbr.inflight_hi.is_infinite());
        // 10 % loss: too high
        drive(&mut bbr, &mut window, t, t + 300.0, &mut delivered, 10);
        assert!(bbr.inflight_hi.is_finite(), "inflight_hi {}", bbr.inflight_hi);
        assert_ne!(bbr.phase, Phase::Up);
        assert!(window.cwnd <= bbr.inflight_hi.max(MIN_CWND) + 1e-9);
    }

    /// Loss under the threshold (1 in 100 = 1 %) while probing leaves inflight_hi unset.
    #[test]
    fn loss_below_threshold_is_tolerated_while_probing() {
        let (mut bbr, mut window) = flow();
        let mut delivered = 0;
        drive(&mut bbr, &mut window, 0.0, 3000.0, &mut delivered, 0);
        let mut t = 3000.0;
        while bbr.phase != Phase::Up && t < 12000.0 {
            drive(&mut bbr, &mut window, t, t + 1.0, &mut delivered, 0);
            t += 1.0;
        }
        drive(&mut bbr, &mut window, t, t + 300.0, &mut delivered, 100);
        assert!(bbr.inflight_hi.is_infinite());
    }

    /// Loss while cruising cuts the short-term bounds by beta each lossy round, not below
    /// what the latest round delivered.
    #[test]
    fn loss_while_cruising_cuts_lower_bounds() {
        let (mut bbr, mut window) = flow();
        let mut delivered = 0;
        drive(&mut bbr, &mut window, 0.0, 2000.0, &mut delivered, 0);
        assert_eq!(bbr.phase, Phase::Cruise);
        assert!(bbr.inflight_lo.is_infinite() && bbr.bw_lo.is_infinite());
        drive(&mut bbr, &mut window, 2000.0, 2400.0, &mut delivered, 50);
        assert!(bbr.inflight_lo.is_finite() && bbr.bw_lo.is_finite());
        assert!(bbr.bw_lo <= bbr.max_bw());
    }

    /// STARTUP leaves on loss: six loss events in a recovery round at > 2 % loss, before
    /// the bandwidth plateaus; inflight_hi is set from the BDP.
    #[test]
    fn startup_exits_on_loss() {
        let (mut bbr, mut window) = flow();
        bbr.on_congestion(&window, &CongestionEvent {
            now: 0,
            signal: CongestionSignal::FastRetransmit,
            flight_size: 10,
            in_slow_start: true,
            first_reduction: true,
            integer_ssthresh: false,
        });
        // 1 segment in 5 lost from the start: the loss exit comes before the plateau's
        // three rounds (which would leave inflight_hi unset)
        let mut delivered = 0u64;
        for k in 0..400u64 {
            delivered += 1;
            let mut rs = sample(k as f64, delivered, 1000.0, 100, 50);
            rs.losses = (k % 5 == 0) as u32;
            bbr.on_rate_sample(&mut window, &rs);
            if bbr.full_bw_reached {
                assert!(k < 250, "{k}");
                break;
            }
        }
        assert!(bbr.full_bw_reached);
        assert!(bbr.inflight_hi.is_finite());
        assert_ne!(bbr.mode, Mode::Startup);
    }

    /// PROBE_RTT after 5 s without a lower RTT: the window drops to half the BDP (50 of
    /// 100), then comes back.
    #[test]
    fn probe_rtt_every_five_seconds_at_half_bdp() {
        let (mut bbr, mut window) = flow();
        let mut delivered = 0;
        let mut t = 0.0;
        let mut probe_rtt_at = vec![];
        let mut min_window: f64 = f64::INFINITY;
        while t < 12000.0 {
            delivered += 1;
            // the RTT never falls below the first sample's: queueing 1 ms
            let mut rs = sample(t, delivered, 1000.0, 100, in_flight(&bbr, &window, 100.0));
            if t > 100.0 {
                rs.rtt = Some(101 * MS);
            }
            let before = bbr.mode;
            bbr.on_rate_sample(&mut window, &rs);
            if bbr.mode == Mode::ProbeRtt {
                min_window = min_window.min(window.cwnd);
                if before != Mode::ProbeRtt {
                    probe_rtt_at.push(t);
                }
            }
            t += 1.0;
        }
        assert!(!probe_rtt_at.is_empty(), "no PROBE_RTT");
        assert!(probe_rtt_at[0] > 5000.0 && probe_rtt_at[0] < 5200.0, "{probe_rtt_at:?}");
        assert_eq!(min_window, 50.0);
        assert_ne!(bbr.mode, Mode::ProbeRtt);
    }

    fn err(config: Bbr3Config) -> String {
        let (field, msg) = config.validate().unwrap_err();
        format!("{field}: {msg}")
    }

    #[test]
    fn bad_parameters_rejected() {
        let base = Bbr3Config::default();
        assert!(base.validate().is_ok());
        assert_eq!(err(Bbr3Config { loss_thresh: 0.0, ..base.clone() }), "loss_thresh: 0 is not in (0, 1)");
        assert_eq!(err(Bbr3Config { beta: 1.5, ..base.clone() }), "beta: 1.5 is not in (0, 1]");
        assert_eq!(err(Bbr3Config { ecn_thresh: f64::NAN, ..base.clone() }).split(':').next(), Some("ecn_thresh"));
        assert_eq!(err(Bbr3Config { startup_pacing_gain: 1.0, ..base.clone() }), "startup_pacing_gain: 1 is not in (1, 10]");
        assert_eq!(err(Bbr3Config { probe_down_pacing_gain: 1.0, ..base.clone() }), "probe_down_pacing_gain: 1 is not in (0, 1)");
        assert_eq!(err(Bbr3Config { probe_rtt_interval: Duration::from_secs_f64(20.0), ..base.clone() }), "probe_rtt_interval: 20 is not in (0, min_rtt_window] s");
        assert_eq!(err(Bbr3Config { probe_up_cwnd_gain: 1.5, ..base.clone() }), "probe_up_cwnd_gain: 1.5 is not in [cwnd_gain, 10]");
        assert_eq!(err(Bbr3Config { full_loss_count: 99, ..base.clone() }), "full_loss_count: 99 is not in [0, 15]");
        assert_eq!(err(Bbr3Config { probe_rand_rounds: 0, ..base.clone() }), "probe_rand_rounds: 0 is not in [1, probe_max_rounds]");
    }
}
