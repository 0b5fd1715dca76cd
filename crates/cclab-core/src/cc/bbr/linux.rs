//! BBR v1 as mainline net/ipv4/tcp_bbr.c computes it, for the `linux` profile (read, not
//! copied): the state machine of [`super::Bbr`] in the kernel's units — bandwidth in
//! packets/µs << 24 (`BW_SCALE`), gains in 1/256 (`BBR_SCALE`), min-RTT and PROBE_RTT
//! stamps in jiffies, a whole-segment window — plus what the `rfc` BBR leaves out:
//! ACK-aggregation provisioning (`bbr_update_ack_aggregation`), the long-term
//! (policer) bandwidth estimate (`bbr_lt_bw_sampling`), the quantization budget from
//! the TSO goal, the per-ACK `cwnd −= losses`, recovery through the sender's CA state
//! (`bbr_set_cwnd_to_recover_or_restore`), the Loss-state and undo hooks.
//!
//! What the kernel reads from `tcp_sock` comes from the rate sample (`tp->delivered`,
//! `tp->lost`, packets in flight, `icsk_ca_state`, `tcp_wstamp_ns − now`), from
//! [`AckSample::srtt`] (`tp->srtt_us`) and is mirrored here where it is BBR's own doing
//! (`tp->delivered_mstamp`: the last ACK that delivered; `tp->app_limited`: set at the
//! start and by PROBE_RTT).
use super::BbrConfig;
use crate::cc::kernel::{after, jiffies, msecs_to_jiffies, usecs, usecs_u32, whole, HZ};
use crate::cc::minmax::WindowedMax;
use crate::cc::{AckSample, CaState, RateSample, Window};
use crate::sim::Time;

const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Rounds the bandwidth filter spans (`bbr_bw_rtts` = the cycle + 2).
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
const CYCLE_LEN: u32 = 8;
/// `bbr_pacing_gain`: 1.25, 0.75, then six 1s.
const PACING_GAIN: [u32; CYCLE_LEN as usize] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
/// `bbr_cycle_rand`: PROBE_BW starts at one of 7 phases (not the 0.75 one).
const CYCLE_RAND: u64 = 7;
/// 2/ln 2 (`bbr_high_gain` = 256·2885/1000 + 1 = 739) and its inverse (88).
pub const HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
pub const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// `bbr_cwnd_min_target`.
const CWND_MIN_TARGET: u32 = 4;
/// `TCP_INIT_CWND`.
const INIT_CWND: u32 = 10;
/// `bbr_full_bw_thresh` (1.25) and `bbr_full_bw_cnt` rounds.
const FULL_BW_THRESH: u64 = BBR_UNIT as u64 * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// `bbr_min_tso_rate` 1.2 Mbit/s, in bytes/s.
const MIN_TSO_RATE_BYTES: u64 = 1_200_000 / 8;
/// `bbr_pacing_margin_percent`.
const PACING_MARGIN_PERCENT: u64 = 1;
/// Long-term sampling: intervals of 4..=16 rounds, "lossy" at lost/delivered ≥ 50/256,
/// "consistent" within 1/8 or 4 kbit/s, used for 48 rounds.
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = BBR_UNIT as u64 / 8;
const LT_BW_DIFF_BYTES: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
/// ACK aggregation: gain 1.0, a max over 5–10 rounds, epochs restarted past 2²⁰
/// segments, provisioning capped at 100 ms of bandwidth.
const EXTRA_ACKED_GAIN: u32 = BBR_UNIT;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100 * 1000;
/// `sk_pacing_shift` (≈ 1 ms of data per GSO packet).
const PACING_SHIFT: u32 = 10;
/// GSO_LEGACY_MAX_SIZE − 1 − MAX_TCP_HEADER (MAX_TCP_HEADER = L1_CACHE_ALIGN(128 +
/// MAX_HEADER 176) = 320 on x86-64 distribution kernels): binds only above ≈ 534 Mbit/s.
const TSO_MAX_BYTES: u64 = 65536 - 1 - 320;
/// The most segments the TSO goal asks for.
const TSO_MAX_SEGS: u32 = 0x7f;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Debug)]
pub struct LinuxBbr {
    /// `mss_cache`: payload bytes per segment.
    mss: u64,
    // parameters (the kernel's by default): min-RTT window and PROBE_RTT time in
    // jiffies, PROBE_BW's cwnd gain in 1/256
    min_rtt_win_jiffies: u32,
    probe_rtt_jiffies: u32,
    probe_bw_cwnd_gain: u32,
    rng: u64,
    initialized: bool,
    // struct bbr
    pub min_rtt_us: u32,
    min_rtt_stamp: u32,
    probe_rtt_done_stamp: Option<u32>,
    /// Max filter of bandwidth samples (pkts/µs << 24, held in f64) over 10 rounds.
    bw: WindowedMax,
    pub rtt_cnt: u32,
    next_rtt_delivered: u64,
    cycle_mstamp: u64,
    pub mode: Mode,
    pub prev_ca_state: CaState,
    pub packet_conservation: bool,
    pub round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    pub lt_use_bw: bool,
    pub lt_bw: u32,
    lt_last_delivered: u64,
    lt_last_stamp: u32,
    lt_last_lost: u64,
    pub pacing_gain: u32,
    cwnd_gain: u32,
    pub full_bw_reached: bool,
    pub full_bw_cnt: u32,
    pub cycle_idx: u32,
    has_seen_rtt: bool,
    pub prior_cwnd: u32,
    pub full_bw: u32,
    ack_epoch_mstamp: u64,
    pub extra_acked: [u16; 2],
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    // the socket, as far as BBR sets or reads it
    /// `sk_pacing_rate`, bytes/s.
    pub pacing_rate: u64,
    /// `tp->srtt_us >> 3`, from the latest ACK.
    srtt_us: Option<u32>,
    /// `tp->delivered_mstamp` (µs): when the latest ACK that delivered data arrived.
    delivered_mstamp: u64,
    /// `tp->delivered` and `tp->lost` as of the latest rate sample (or timeout).
    delivered: u64,
    lost: u64,
    /// `tp->app_limited` as far as BBR knows it: u64::MAX for the kernel's initial ~0
    /// (cleared by the first ACK), else delivered + in flight set in PROBE_RTT, 0: none.
    app_limited: u64,
    /// PROBE_RTT marked the flow app-limited on the latest ACK (for the sender).
    marked_app_limited: bool,
}

impl LinuxBbr {
    pub fn new(config: &BbrConfig, mss_bytes: u32, seed: u64) -> LinuxBbr {
        let probe_rtt_ms = (config.probe_rtt_duration.secs_f64() * 1e3).round().min(u32::MAX as f64) as u32;
        LinuxBbr {
            mss: mss_bytes.max(1) as u64,
            min_rtt_win_jiffies: (config.min_rtt_window.secs_f64() * HZ as f64).round().min(i32::MAX as f64) as u32,
            probe_rtt_jiffies: msecs_to_jiffies(probe_rtt_ms),
            probe_bw_cwnd_gain: (config.cwnd_gain * BBR_UNIT as f64).round() as u32,
            rng: seed,
            initialized: false,
            min_rtt_us: u32::MAX,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: None,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            pacing_rate: 0,
            srtt_us: None,
            delivered_mstamp: 0,
            delivered: 0,
            lost: 0,
            app_limited: u64::MAX,
            marked_app_limited: false,
        }
    }

    pub fn set_seed(&mut self, seed: u64) {
        self.rng = seed;
    }

    /// `get_random_u32_below(n)` from the flow's own stream (splitmix64).
    fn random_below(&mut self, n: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }

    /// `bbr_init` when the connection is established: min RTT from the handshake (if
    /// any), pacing rate from its SRTT (1 ms without).
    pub fn established(&mut self, window: &Window, now: Time, rtt: Option<Time>, srtt: Option<f64>) {
        if let Some(srtt) = srtt {
            self.srtt_us = Some((srtt / 1000.0).min(u32::MAX as f64) as u32);
        }
        self.init(window, now, rtt.map_or(u32::MAX, usecs_u32));
    }

    /// `bbr_init` at the first call that brings the time (the first transmission's
    /// `on_tx_start`, else the first ACK) when the sender did not call `established`:
    /// min RTT unset, the first pacing rate from 1 ms unless an SRTT was seen.
    fn ensure_init(&mut self, window: &Window, now: Time) {
        if !self.initialized {
            self.init(window, now, u32::MAX);
        }
    }

    fn init(&mut self, window: &Window, now: Time, min_rtt_us: u32) {
        self.initialized = true;
        let now_us = usecs(now);
        self.prior_cwnd = 0;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = self.delivered;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt_done_stamp = None;
        self.probe_rtt_round_done = false;
        self.min_rtt_us = min_rtt_us;
        self.min_rtt_stamp = jiffies(now);
        self.bw = WindowedMax::default();
        self.has_seen_rtt = false;
        self.delivered_mstamp = now_us;
        self.init_pacing_rate_from_rtt(window);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = 0;
        self.cycle_idx = 0;
        self.reset_lt_bw_sampling();
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = now_us;
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];
    }

    /// The bandwidth in use: the long-term (policed) rate when detected, else the max
    /// filter (`bbr_bw`).
    fn bbr_bw(&self) -> u32 {
        if self.lt_use_bw { self.lt_bw } else { self.max_bw() }
    }

    fn max_bw(&self) -> u32 {
        self.bw.get() as u32
    }

    /// `bbr_rate_bytes_per_sec`: rate (pkts/µs << 24) × mss × gain, 1 % below, in B/s.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u32) -> u64 {
        let mut rate = rate.wrapping_mul(self.mss);
        rate = rate.wrapping_mul(gain as u64);
        rate >>= BBR_SCALE;
        rate = rate.wrapping_mul(1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT));
        rate >> BW_SCALE
    }

    /// `bbr_init_pacing_rate_from_rtt`: high gain × cwnd / SRTT (1 ms without one).
    fn init_pacing_rate_from_rtt(&mut self, window: &Window) {
        let rtt_us = match self.srtt_us {
            Some(srtt) => {
                self.has_seen_rtt = true;
                srtt.max(1)
            }
            None => 1000,
        };
        let bw = whole(window.cwnd) as u64 * BW_UNIT / rtt_us as u64;
        self.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: lowered only once the pipe is full.
    fn set_pacing_rate(&mut self, window: &Window, bw: u32, gain: u32) {
        let rate = self.rate_bytes_per_sec(bw as u64, gain);
        if !self.has_seen_rtt && self.srtt_us.is_some() {
            self.init_pacing_rate_from_rtt(window);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_min_tso_segs`: 1 below 1.2 Mbit/s of pacing, else 2.
    pub fn min_tso_segs(&self) -> u32 {
        if self.pacing_rate < MIN_TSO_RATE_BYTES { 1 } else { 2 }
    }

    /// `bbr_tso_segs_goal`: ≈ 1 ms of the pacing rate in segments, within
    /// [min_tso_segs, 127].
    pub fn tso_segs_goal(&self) -> u32 {
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(TSO_MAX_BYTES);
        ((bytes / self.mss) as u32).max(self.min_tso_segs()).min(TSO_MAX_SEGS)
    }

    /// `bbr_bdp`: ⌈bw × min_rtt × gain⌉ (the initial window while no RTT is known).
    fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return INIT_CWND;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        ((w.wrapping_mul(gain as u64) >> BBR_SCALE).wrapping_add(BW_UNIT - 1) / BW_UNIT) as u32
    }

    /// `bbr_quantization_budget`: room for three TSO goals (sender qdisc, GSO, receiver
    /// GRO/delayed ACK), rounded up to even, +2 in the 1.25 phase.
    pub fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.wrapping_add(3 * self.tso_segs_goal());
        cwnd = cwnd.wrapping_add(1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`.
    fn inflight(&self, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: of `inflight_now`, what will still be in the network
    /// when the next departure (`ahead` ns from now) leaves, counting that departure's
    /// TSO goal when the gain is raising inflight.
    fn packets_in_net_at_edt(&self, inflight_now: u32, ahead: Time) -> u32 {
        let interval_us = ahead / 1000;
        let interval_delivered = ((self.bbr_bw() as u64).wrapping_mul(interval_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal();
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_ack_aggregation_cwnd`: the extra ACKed segments to provision for, once the
    /// pipe is full, at most 100 ms of bandwidth.
    pub fn ack_aggregation_cwnd(&self) -> u32 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd = (self.bbr_bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT) as u32;
        let aggr_cwnd = (EXTRA_ACKED_GAIN * self.extra_acked()) >> BBR_SCALE;
        aggr_cwnd.min(max_aggr_cwnd)
    }

    /// The larger of the two extra_acked windows (5–10 rounds).
    pub fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1]) as u32
    }

    /// `bbr_save_cwnd`: the window to come back to after recovery or PROBE_RTT.
    fn save_cwnd(&mut self, cwnd: u32) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_main` on every ACK's rate sample.
    pub fn on_rate_sample(&mut self, window: &mut Window, rs: &RateSample) {
        self.ensure_init(window, rs.now);
        // what tcp_rate_gen did to the socket before calling us
        if rs.acked_sacked > 0 {
            self.delivered_mstamp = usecs(rs.now);
        }
        self.delivered = rs.delivered_total;
        self.lost = rs.lost_total;
        if self.app_limited != 0 && (self.app_limited == u64::MAX || self.delivered > self.app_limited) {
            self.app_limited = 0;
        }
        self.marked_app_limited = false;
        self.update_model(window, rs);
        let bw = self.bbr_bw();
        self.set_pacing_rate(window, bw, self.pacing_gain);
        self.set_cwnd(window, rs, rs.acked_sacked, bw, self.cwnd_gain);
    }

    fn update_model(&mut self, window: &mut Window, rs: &RateSample) {
        self.update_bw(rs);
        self.update_ack_aggregation(window, rs);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(window, rs);
        self.update_min_rtt(window, rs);
        self.update_gains();
    }

    /// A valid delivery-rate sample: `rs->delivered ≥ 0` and `rs->interval_us > 0`.
    fn interval_us(rs: &RateSample) -> Option<u64> {
        let us = rs.interval / 1000;
        (rs.interval > 0 && us > 0).then_some(us)
    }

    /// `bbr_update_bw`: round counting, long-term sampling, the max filter.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(interval_us) = Self::interval_us(rs) else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs.losses, rs.app_limited);
        let bw = (rs.delivered.wrapping_mul(BW_UNIT) / interval_us) as u32;
        if !rs.app_limited || bw >= self.max_bw() {
            self.bw.update(BW_RTTS, self.rtt_cnt as u64, bw as f64);
        }
    }

    /// `bbr_update_ack_aggregation`: segments ACKed beyond what the bandwidth explains
    /// since the aggregation epoch began, the max kept over 5–10 rounds.
    fn update_ack_aggregation(&mut self, window: &Window, rs: &RateSample) {
        if EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || Self::interval_us(rs).is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = self.delivered_mstamp.saturating_sub(self.ack_epoch_mstamp) as u32;
        let mut expected_acked = ((self.bbr_bw() as u64 * epoch_us as u64) / BW_UNIT) as u32;
        // a new epoch when ACKs fall behind the rate, or after very many segments
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra = self.ack_epoch_acked.wrapping_sub(expected_acked).min(whole(window.cwnd));
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot as u32 {
            *slot = extra.min(u16::MAX as u32) as u16;
        }
    }

    /// `bbr_update_cycle_phase` / `bbr_is_next_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase();
        }
    }

    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let is_full_length = self.delivered_mstamp.saturating_sub(self.cycle_mstamp) as u32 > self.min_rtt_us;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight, rs.pacing_ahead);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // probing: until the gain's inflight is out, or a loss says it won't fit
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        // draining: until inflight is down to one BDP
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = self.delivered_mstamp;
    }

    /// `bbr_reset_probe_bw_mode`: a random phase (never the 0.75 one).
    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.random_below(CYCLE_RAND) as u32;
        self.advance_cycle_phase();
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self) {
        self.lt_last_stamp = (self.delivered_mstamp / 1000) as u32;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_interval_done`: two lossy intervals at about the same rate mean a
    /// policer: use their mean rate, at gain 1.
    fn lt_bw_interval_done(&mut self, bw: u32) {
        if self.lt_bw != 0 {
            let diff = (bw as i64 - self.lt_bw as i64).unsigned_abs();
            if diff * BBR_UNIT as u64 <= LT_BW_RATIO * self.lt_bw as u64
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF_BYTES
            {
                self.lt_bw = ((bw as u64 + self.lt_bw as u64) >> 1) as u32;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_sampling`: intervals of 4–16 rounds that start at a loss and end at a
    /// loss with ≥ 19.5 % of the interval's segments lost.
    fn lt_bw_sampling(&mut self, losses: u32, app_limited: bool) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // wait for a loss: the policer's tokens are spent
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval();
            self.lt_is_sampling = true;
        }
        if app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling();
            return;
        }
        if losses == 0 {
            return;
        }
        let lost = self.lost.wrapping_sub(self.lt_last_lost);
        let delivered = self.delivered.wrapping_sub(self.lt_last_delivered);
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = ((self.delivered_mstamp / 1000) as u32).wrapping_sub(self.lt_last_stamp);
        if (t as i32) < 1 {
            return; // under a millisecond: wait
        }
        if t >= u32::MAX / 1000 {
            self.reset_lt_bw_sampling();
            return;
        }
        let bw = delivered.wrapping_mul(BW_UNIT) / (t as u64 * 1000);
        self.lt_bw_interval_done(bw as u32);
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25 % more bandwidth.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.app_limited {
            return;
        }
        let bw_thresh = ((self.full_bw as u64 * FULL_BW_THRESH) >> BBR_SCALE) as u32;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, window: &mut Window, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            window.ssthresh = self.inflight(self.max_bw(), BBR_UNIT) as f64;
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(rs.in_flight, rs.pacing_ahead) <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, window: &mut Window, now_j: u32) {
        let Some(done) = self.probe_rtt_done_stamp else { return };
        if !after(now_j, done) {
            return;
        }
        self.min_rtt_stamp = now_j;
        window.cwnd = whole(window.cwnd).max(self.prior_cwnd) as f64;
        self.reset_mode();
    }

    /// `bbr_update_min_rtt`: the 10-s min filter and PROBE_RTT.
    fn update_min_rtt(&mut self, window: &mut Window, rs: &RateSample) {
        let now_j = jiffies(rs.now);
        let filter_expired = after(now_j, self.min_rtt_stamp.wrapping_add(self.min_rtt_win_jiffies));
        // (rs->is_ack_delayed marks ACKs of a lone runt segment: never set for full-sized
        // segments, so not carried by the rate sample)
        if let Some(rtt) = rs.rtt {
            let rtt_us = usecs_u32(rtt);
            if rtt_us < self.min_rtt_us || filter_expired {
                self.min_rtt_us = rtt_us;
                self.min_rtt_stamp = now_j;
            }
        }
        if self.probe_rtt_jiffies > 0 && filter_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(whole(window.cwnd));
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // ignore low-rate samples: the sender marks itself app-limited
            self.app_limited = (self.delivered + rs.in_flight as u64).max(1);
            self.marked_app_limited = true;
            if self.probe_rtt_done_stamp.is_none() && rs.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(now_j.wrapping_add(self.probe_rtt_jiffies));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(window, now_j);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => {
                (if self.lt_use_bw { BBR_UNIT } else { PACING_GAIN[self.cycle_idx as usize] }, self.probe_bw_cwnd_gain)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: updates `cwnd`; true under packet
    /// conservation (the first round of fast recovery), where `cwnd` is final.
    fn recover_or_restore(&mut self, rs: &RateSample, acked: u32, cwnd: &mut u32) -> bool {
        let state = rs.ca_state;
        let prev_state = self.prev_ca_state;
        // an ACK for P segments releases at most 2P: first the lost ones come off
        if rs.losses > 0 {
            *cwnd = (*cwnd as i64 - rs.losses as i64).max(1) as u32;
        }
        if state == CaState::Recovery && prev_state != CaState::Recovery {
            // first round of recovery: packet conservation, a round starts now
            self.packet_conservation = true;
            self.next_rtt_delivered = self.delivered;
            *cwnd = rs.in_flight + acked;
        } else if prev_state >= CaState::Recovery && state < CaState::Recovery {
            // recovery (or Loss) is over: back to the window from before it
            *cwnd = (*cwnd).max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            *cwnd = (*cwnd).max(rs.in_flight + acked);
            return true;
        }
        false
    }

    /// `bbr_set_cwnd`: toward bdp × gain + ACK aggregation, quantized.
    fn set_cwnd(&mut self, window: &mut Window, rs: &RateSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = whole(window.cwnd);
        if acked != 0 && !self.recover_or_restore(rs, acked, &mut cwnd) {
            let mut target = self.bdp(bw, gain);
            target += self.ack_aggregation_cwnd();
            target = self.quantization_budget(target);
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || self.delivered < INIT_CWND as u64 {
                cwnd += acked;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        window.cwnd = cwnd as f64;
    }

    /// `bbr_ssthresh`: save the window for after recovery; ssthresh unchanged.
    pub fn ssthresh(&mut self, window: &Window, now: Time) -> f64 {
        self.ensure_init(window, now);
        self.save_cwnd(whole(window.cwnd));
        window.ssthresh
    }

    /// `bbr_set_state(TCP_CA_Loss)`: the RTO ends a round, restarts full-pipe growth
    /// checks and counts as a loss for long-term sampling.
    pub fn loss_state(&mut self, window: &Window, now: Time) {
        self.ensure_init(window, now);
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.lt_bw_sampling(1, false);
    }

    /// The sender's totals at the Loss state (before [`Self::loss_state`]).
    pub fn loss_totals(&mut self, delivered: u64, lost: u64) {
        self.delivered = delivered;
        self.lost = lost;
    }

    /// `bbr_undo_cwnd`: a spurious reduction restarts full-pipe detection and long-term
    /// sampling; the window stays.
    pub fn undo_cwnd(&mut self, window: &Window) -> f64 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling();
        window.cwnd
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)`: sending resumes from nothing in flight; if
    /// app-limited, restart the aggregation epoch and pace at the estimate (PROBE_BW).
    pub fn tx_start(&mut self, window: &mut Window, now: Time) {
        self.ensure_init(window, now);
        if self.app_limited == 0 {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_mstamp = usecs(now);
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(window, self.bbr_bw(), BBR_UNIT),
            Mode::ProbeRtt => self.check_probe_rtt_done(window, jiffies(now)),
            _ => {}
        }
    }

    /// Every ACK (`pkts_acked` has no BBR twin): the sender's SRTT, for the pacing rate.
    pub fn pkts_acked(&mut self, window: &Window, ack: &AckSample) {
        self.ensure_init(window, ack.now);
        if let Some(srtt) = ack.srtt {
            self.srtt_us = Some((srtt / 1000.0).min(u32::MAX as f64) as u32);
        }
    }

    pub fn marks_app_limited(&self) -> bool {
        self.marked_app_limited
    }

    /// Segments per second (the rate in bytes/s over the segment's payload).
    pub fn pacing_rate_segments(&self) -> Option<f64> {
        (self.pacing_rate > 0).then(|| self.pacing_rate as f64 / self.mss as f64)
    }

    pub fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("mode", self.mode as u8 as f64));
        out.push(("btl_bw_pps", self.bbr_bw() as f64 * 1e6 / BW_UNIT as f64));
        out.push(("min_rtt_s", if self.min_rtt_us == u32::MAX { 0.0 } else { self.min_rtt_us as f64 / 1e6 }));
        out.push(("pacing_gain", self.pacing_gain as f64 / BBR_UNIT as f64));
        out.push(("pacing_rate_pps", self.pacing_rate_segments().unwrap_or(0.0)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::{Algorithm, CongestionControl, CongestionSignal};

    const MS: Time = 1_000_000;
    /// 1 segment per ms in BW units: 2²⁴/1000.
    const ONE_PER_MS: u32 = 16_777;

    fn bbr() -> super::super::Bbr {
        let mut bbr = BbrConfig::default().build();
        bbr.set_seed(3);
        bbr.use_linux_rules(crate::cc::LinuxSocket { mss_bytes: 1448, paced: false });
        bbr
    }

    fn inner(bbr: &mut super::super::Bbr) -> &mut LinuxBbr {
        bbr.linux.as_deref_mut().unwrap()
    }

    /// A flow started at 0 and put in PROBE_BW phase 2 (gain 1) with the pipe full, a
    /// bandwidth of 1 segment/ms and a min RTT of 50 ms: BDP 50, cwnd target ⌈2·BDP⌉ =
    /// 100 + 3 × TSO goal 2 = 106 (pacing 1.43 MB/s: goal max(0, 2) = 2).
    fn primed() -> (super::super::Bbr, Window) {
        let mut bbr = bbr();
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        bbr.on_tx_start(&mut w, 0, 0);
        let l = inner(&mut bbr);
        l.bw.reset(0, ONE_PER_MS as f64);
        l.min_rtt_us = 50_000;
        l.full_bw_reached = true;
        l.mode = Mode::ProbeBw;
        l.cycle_idx = 2;
        l.update_gains();
        l.pacing_rate = l.rate_bytes_per_sec(ONE_PER_MS as u64, BBR_UNIT);
        l.app_limited = 0;
        l.idle_restart = false;
        w.cwnd = 100.0;
        (bbr, w)
    }

    /// A rate sample at `now` ms: `acked` newly delivered, `delivered` over `interval` ms
    /// (0: invalid), totals and state as given.
    fn sample(now_ms: u64, acked: u32, delivered: u64, interval_ms: u64) -> RateSample {
        RateSample {
            now: now_ms * MS,
            acked_sacked: acked,
            delivered,
            interval: interval_ms * MS,
            ..RateSample::default()
        }
    }

    #[test]
    fn gains_and_rates_in_the_kernels_units() {
        assert_eq!((HIGH_GAIN, DRAIN_GAIN), (739, 88));
        let l = LinuxBbr::new(&BbrConfig::default(), 1448, 0);
        assert_eq!((l.min_rtt_win_jiffies, l.probe_rtt_jiffies, l.probe_bw_cwnd_gain), (2500, 50, 512));
        // 1 segment/ms × 1448 B × 0.99: 1 433 501 B/s at gain 1, 4 138 115 at 739/256
        assert_eq!(l.rate_bytes_per_sec(ONE_PER_MS as u64, BBR_UNIT), 1_433_501);
        assert_eq!(l.rate_bytes_per_sec(ONE_PER_MS as u64, HIGH_GAIN), 4_138_115);
    }

    /// bbr_tso_segs_goal at 12, 48 and 96 Mbit/s of pacing (mss 1448): ⌊rate/1024/1448⌋
    /// at least 2 → 2, 4, 8; below 1.2 Mbit/s min_tso_segs is 1; at 1 Gbit/s the GSO size
    /// caps it at ⌊65215/1448⌋ = 45. The quantization budget adds three goals, rounds up
    /// to even and adds 2 in PROBE_BW's 1.25 phase.
    #[test]
    fn tso_goal_and_quantization_budget() {
        let mut bbr = bbr();
        let l = inner(&mut bbr);
        let mut goal = |rate_bps: u64| {
            l.pacing_rate = rate_bps / 8;
            (l.tso_segs_goal(), l.min_tso_segs())
        };
        assert_eq!(goal(12_000_000), (2, 2));
        assert_eq!(goal(48_000_000), (4, 2));
        assert_eq!(goal(96_000_000), (8, 2));
        assert_eq!(goal(1_000_000), (1, 1));
        assert_eq!(goal(1_000_000_000), (45, 2));
        l.pacing_rate = 6_000_000;
        assert_eq!(l.quantization_budget(84), 96);
        assert_eq!(l.quantization_budget(85), 98);
        l.mode = Mode::ProbeBw;
        l.cycle_idx = 0;
        assert_eq!(l.quantization_budget(84), 98);
        l.cycle_idx = 1;
        assert_eq!(l.quantization_budget(84), 96);
        assert_eq!(bbr.min_tso_segs(), Some(2));
        assert_eq!(BbrConfig::default().build().min_tso_segs(), None, "rfc: the sysctl's");
    }

    /// bbr_bdp rounds up: 12 Mbit/s of 1448-B segments is ⌊1035.9/s · 2²⁴/10⁶⌋ = 17379
    /// in BW units; over 41 ms that is 42.47 → 43 segments, 84.9 → 85 at gain 2.
    #[test]
    fn bdp_rounds_up() {
        let mut bbr = bbr();
        let l = inner(&mut bbr);
        assert_eq!(l.bdp(17_379, BBR_UNIT), 10, "no RTT yet: the initial window");
        l.min_rtt_us = 41_000;
        assert_eq!((l.bdp(17_379, BBR_UNIT), l.bdp(17_379, 2 * BBR_UNIT)), (43, 85));
    }

    /// bbr_update_ack_aggregation on a hand-made ACK sequence at 1 segment/ms (expected
    /// = ⌊16777·epoch µs/2²⁴⌋, just under epoch ms):
    ///   10 ms, 2 acked: epoch 10 ms, expected 9 ≥ 0 acked → new epoch at 10 ms; extra 2
    ///   12 ms, 2: expected 1 < 2 → acked 4, extra 3
    ///   14 ms, 6: expected 3 < 4 → acked 10, extra 7
    ///   21 ms, 1: expected 10 ≥ 10 acked → new epoch at 21 ms; extra 1 (max stays 7)
    ///   22 ms, 8: expected 0 < 1 → acked 9, extra 9
    /// Five round starts later the other slot takes over (the max still 9), five more and
    /// the 9 is forgotten. It enters cwnd only once the pipe is full, capped at 100 ms of
    /// bandwidth.
    #[test]
    fn extra_acked_by_hand() {
        let mut bbr = bbr();
        let mut w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
        bbr.on_tx_start(&mut w, 0, 0);
        inner(&mut bbr).bw.reset(0, ONE_PER_MS as f64);
        let mut seen = Vec::new();
        let mut total = 0;
        for (now, acked) in [(10, 2), (12, 2), (14, 6), (21, 1), (22, 8)] {
            w.cwnd = 100.0;
            // one segment per ms: the filter keeps 16777; only the first ACK starts a round
            let mut rs = sample(now, acked, 1, 1);
            total += acked as u64;
            rs.delivered_total = total;
            bbr.on_rate_sample(&mut w, &rs);
            let l = inner(&mut bbr);
            seen.push((l.extra_acked[l.extra_acked_win_idx], l.ack_epoch_acked, l.ack_epoch_mstamp / 1000));
        }
        assert_eq!(seen, [(2, 2, 10), (3, 4, 10), (7, 10, 10), (7, 1, 21), (9, 9, 21)]);
        let l = inner(&mut bbr);
        assert_eq!(l.max_bw(), ONE_PER_MS);
        assert_eq!(l.ack_aggregation_cwnd(), 0, "not before the pipe is full");
        l.full_bw_reached = true;
        assert_eq!(l.ack_aggregation_cwnd(), 9);
        l.extra_acked = [500, 0];
        assert_eq!(l.ack_aggregation_cwnd(), 99, "at most 100 ms of bandwidth");
        l.extra_acked = [9, 0];
        // the window of 5–10 rounds (the first sample was a round start: 1 of 5)
        let mut delivered = 100;
        let mut round = |bbr: &mut super::super::Bbr, now: u64| {
            let mut rs = sample(now, 1, 1, 1);
            rs.prior_delivered = delivered;
            delivered += 10;
            rs.delivered_total = delivered;
            let mut w = Window { cwnd: 100.0, ssthresh: f64::INFINITY };
            bbr.on_rate_sample(&mut w, &rs);
            inner(bbr).round_start
        };
        for k in 0..4 {
            assert!(round(&mut bbr, 1000 + k));
        }
        let l = inner(&mut bbr);
        assert_eq!((l.extra_acked_win_idx, l.extra_acked()), (1, 9));
        for k in 0..5 {
            assert!(round(&mut bbr, 2000 + k));
        }
        let l = inner(&mut bbr);
        assert_eq!(l.extra_acked_win_idx, 0);
        assert!(l.extra_acked() < 9, "forgotten after 10 rounds: {}", l.extra_acked());
    }

    /// Every ACK that marks losses takes them off cwnd before growth: cwnd 100, 3 lost, 2
    /// delivered → 99 (target 106); without losses 102.
    #[test]
    fn cwnd_less_losses_on_every_ack() {
        for (losses, expect) in [(3, 99.0), (0, 102.0)] {
            let (mut bbr, mut w) = primed();
            let mut rs = sample(100, 2, 0, 0);
            rs.losses = losses;
            rs.in_flight = 90;
            bbr.on_rate_sample(&mut w, &rs);
            assert_eq!(w.cwnd, expect, "losses {losses}");
        }
        // the target: ⌈2 × 50⌉ + 3 × 2 = 106
        let (mut bbr, mut w) = primed();
        w.cwnd = 105.0;
        bbr.on_rate_sample(&mut w, &sample(100, 5, 0, 0));
        assert_eq!(w.cwnd, 106.0);
    }

    /// Fast recovery: ssthresh() saves cwnd 100. The first Recovery ACK (2 delivered, 1
    /// lost, 60 in flight) starts packet conservation: cwnd = in flight + delivered =
    /// 62 and a round starts now; while it lasts cwnd = max(cwnd, in flight + delivered)
    /// (62, then 64); the next round ends it and growth resumes toward the target (66);
    /// leaving Recovery restores the saved 100 (then + 2, below the target 108: the
    /// round's ACK also left extra_acked 2).
    #[test]
    fn packet_conservation_for_the_first_round_of_recovery() {
        let (mut bbr, mut w) = primed();
        let r = bbr.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert_eq!((r.ssthresh, r.cwnd), (w.ssthresh, 100.0), "BBR's ssthresh leaves both");
        assert_eq!(inner(&mut bbr).prior_cwnd, 100);
        let at = |now: u64, acked: u32, in_flight: u32, losses: u32, state: CaState, valid: bool, prior: u64, total: u64| {
            let mut rs = if valid { sample(now, acked, 50, 50) } else { sample(now, acked, 0, 0) };
            rs.in_flight = in_flight;
            rs.losses = losses;
            rs.ca_state = state;
            rs.prior_delivered = prior;
            rs.delivered_total = total;
            rs
        };
        bbr.on_rate_sample(&mut w, &at(1000, 2, 60, 1, CaState::Recovery, false, 0, 500));
        assert_eq!(w.cwnd, 62.0);
        let l = inner(&mut bbr);
        assert!(l.packet_conservation);
        assert_eq!(l.next_rtt_delivered, 500);
        bbr.on_rate_sample(&mut w, &at(1001, 3, 58, 0, CaState::Recovery, true, 450, 503));
        assert_eq!(w.cwnd, 62.0);
        bbr.on_rate_sample(&mut w, &at(1002, 3, 61, 0, CaState::Recovery, true, 460, 506));
        assert_eq!(w.cwnd, 64.0);
        // a segment sent after recovery began is delivered: the round ends
        bbr.on_rate_sample(&mut w, &at(1050, 2, 61, 0, CaState::Recovery, true, 500, 508));
        assert!(!inner(&mut bbr).packet_conservation);
        assert_eq!(w.cwnd, 66.0);
        bbr.on_rate_sample(&mut w, &at(1060, 2, 61, 0, CaState::Open, false, 0, 510));
        assert_eq!(w.cwnd, 102.0);
        assert_eq!(inner(&mut bbr).prev_ca_state, CaState::Open);
    }

    /// A policer: every round (50 ms) delivers 50 segments and loses 12 (24 % ≥ 19.5 %).
    /// The first lossy round starts an interval; after 4 rounds it ends at 1 segment/ms;
    /// the next 4-round interval at the same rate confirms it: lt_bw = that rate, used
    /// from then on, at gain 1 in PROBE_BW. With 15 % loss nothing happens.
    #[test]
    fn long_term_bandwidth_finds_a_policer() {
        for (lost_per_round, policed) in [(12u64, true), (7, false)] {
            let (mut bbr, mut w) = primed();
            let (mut delivered, mut lost) = (1000u64, 0u64);
            let mut detected_at = None;
            for k in 0..12u64 {
                let mut rs = sample(1000 + 50 * k, 50, 50, 50);
                rs.prior_delivered = delivered;
                delivered += 50;
                lost += lost_per_round;
                rs.delivered_total = delivered;
                rs.lost_total = lost;
                rs.losses = lost_per_round as u32;
                rs.in_flight = 50;
                bbr.on_rate_sample(&mut w, &rs);
                let l = inner(&mut bbr);
                assert!(l.round_start);
                if detected_at.is_none() && l.lt_use_bw {
                    detected_at = Some(k);
                }
            }
            let l = inner(&mut bbr);
            if policed {
                // k = 0 starts (rounds 1..4 at k = 0..3), k = 4..7 the second interval
                assert_eq!(detected_at, Some(7));
                assert_eq!(l.lt_bw, ONE_PER_MS);
                assert_eq!(l.bbr_bw(), ONE_PER_MS);
                assert_eq!(l.pacing_gain, BBR_UNIT);
            } else {
                assert_eq!((detected_at, l.lt_bw), (None, 0));
            }
        }
    }

    /// Two lossy intervals at different rates (beyond 1/8 and 4 kbit/s) do not agree: the
    /// second becomes the reference instead.
    #[test]
    fn long_term_intervals_must_agree() {
        let (mut bbr, _) = primed();
        let l = inner(&mut bbr);
        l.lt_is_sampling = true;
        l.lt_bw_interval_done(ONE_PER_MS);
        assert_eq!((l.lt_bw, l.lt_use_bw), (ONE_PER_MS, false));
        l.lt_bw_interval_done(ONE_PER_MS * 5 / 4);
        assert_eq!((l.lt_bw, l.lt_use_bw), (ONE_PER_MS * 5 / 4, false));
        l.lt_bw_interval_done(ONE_PER_MS * 5 / 4 + ONE_PER_MS / 16);
        assert!(l.lt_use_bw, "within 1/8");
        assert_eq!(l.lt_bw, (ONE_PER_MS * 5 / 4 + ONE_PER_MS * 5 / 4 + ONE_PER_MS / 16) / 2, "the two intervals' mean");
    }

    /// bbr_is_next_cycle_phase with bw 1 segment/ms and min RTT 50 ms. Phase 0 (1.25):
    /// not before a min RTT has passed; then until in flight at the next departure
    /// (prior in flight + the TSO goal 2, less what leaves before it: 2 ms ahead is 1
    /// segment) reaches bbr_inflight(bw, 1.25) = ⌈62.5⌉ + 6 → 70 + 2 = 72, or a loss.
    /// Phase 1 (0.75): at a min RTT, or as soon as in flight is down to 50 + 6 = 56.
    #[test]
    fn gain_cycle_phases_end_by_inflight_at_the_next_departure() {
        let next = |phase: u32, prior_in_flight: u32, ahead_ms: u64, losses: u32, elapsed_ms: u64| {
            let (mut bbr, mut w) = primed();
            let l = inner(&mut bbr);
            l.cycle_idx = phase;
            l.update_gains();
            l.cycle_mstamp = 1_000_000;
            let mut rs = sample(1000 + elapsed_ms, 1, 0, 0);
            rs.prior_in_flight = prior_in_flight;
            rs.pacing_ahead = ahead_ms * MS;
            rs.losses = losses;
            rs.in_flight = prior_in_flight;
            bbr.on_rate_sample(&mut w, &rs);
            inner(&mut bbr).cycle_idx != phase
        };
        assert!(!next(0, 90, 0, 0, 50), "a min RTT has not passed (50 ms is not more)");
        assert!(next(0, 70, 0, 0, 51));
        assert!(!next(0, 69, 0, 0, 51));
        assert!(!next(0, 70, 2, 0, 51), "one segment leaves before the next departure");
        assert!(next(0, 10, 0, 1, 51), "a loss ends probing");
        assert!(next(1, 56, 0, 0, 10));
        assert!(!next(1, 57, 0, 0, 10));
        assert!(next(1, 90, 0, 0, 51));
        assert!(!next(2, 10, 0, 0, 50) && next(2, 10, 0, 0, 51), "gain 1: time only");
    }

    /// Undo restarts full-pipe detection and long-term sampling and keeps cwnd; the Loss
    /// state ends a round, forgets full_bw and counts as a loss for long-term sampling.
    #[test]
    fn undo_and_loss_state() {
        let (mut bbr, mut w) = primed();
        let l = inner(&mut bbr);
        l.full_bw = 5000;
        l.full_bw_cnt = 2;
        l.lt_use_bw = true;
        l.lt_bw = 123;
        assert_eq!(bbr.undo_cwnd(&w, 300.0), 100.0);
        let l = inner(&mut bbr);
        assert_eq!((l.full_bw, l.full_bw_cnt, l.lt_use_bw, l.lt_bw, l.lt_is_sampling), (0, 0, false, 0, false));
        assert!(l.full_bw_reached, "full_bw_reached itself stays");
        l.full_bw = 5000;
        bbr.on_loss_totals(700, 40);
        bbr.on_loss_state(&mut w, 2000 * MS);
        let l = inner(&mut bbr);
        assert_eq!((l.prev_ca_state, l.full_bw, l.round_start, l.lt_is_sampling), (CaState::Loss, 0, true, true));
        assert_eq!((l.lt_last_delivered, l.lt_last_lost), (700, 40));
        // the first ACK after the timeout (cwnd = in flight + 1 = 3 set by the sender):
        // slow start toward the target; leaving Loss restores prior_cwnd
        w.cwnd = 3.0;
        let mut rs = sample(2100, 2, 0, 0);
        rs.ca_state = CaState::Loss;
        bbr.on_rate_sample(&mut w, &rs);
        assert_eq!(w.cwnd, 5.0);
        rs.ca_state = CaState::Open;
        rs.now += MS;
        inner(&mut bbr).prior_cwnd = 80;
        bbr.on_rate_sample(&mut w, &rs);
        assert_eq!(w.cwnd, 82.0);
    }

    /// PROBE_RTT: 10 s (2500 jiffies) after the min RTT was taken the window drops to 4
    /// and the flow marks itself app-limited; once in flight ≤ 4, 200 ms (50 jiffies,
    /// then `after`) and a round later it returns to PROBE_BW with the saved window.
    #[test]
    fn probe_rtt_by_jiffies() {
        let (mut bbr, mut w) = primed();
        inner(&mut bbr).min_rtt_stamp = 0;
        let mut rs = sample(10_000, 2, 0, 0); // jiffy 2500: not after 0 + 2500
        rs.in_flight = 90;
        bbr.on_rate_sample(&mut w, &rs);
        assert_eq!(inner(&mut bbr).mode, Mode::ProbeBw);
        assert!(!bbr.marks_app_limited());
        rs.now = 10_004 * MS;
        rs.delivered_total = 1000;
        bbr.on_rate_sample(&mut w, &rs);
        assert_eq!(inner(&mut bbr).mode, Mode::ProbeRtt);
        assert!(bbr.marks_app_limited());
        assert_eq!(inner(&mut bbr).app_limited, 1090);
        assert_eq!((w.cwnd, inner(&mut bbr).prior_cwnd), (4.0, 102));
        rs.in_flight = 4;
        rs.now = 10_100 * MS; // jiffy 2525: done after jiffy 2575
        bbr.on_rate_sample(&mut w, &rs);
        assert_eq!(inner(&mut bbr).probe_rtt_done_stamp, Some(2575));
        let mut round = sample(10_200, 2, 4, 100); // a round ends, but at jiffy 2550
        round.prior_delivered = 1000;
        round.delivered_total = 1004;
        round.in_flight = 4;
        bbr.on_rate_sample(&mut w, &round);
        assert_eq!(inner(&mut bbr).mode, Mode::ProbeRtt);
        rs.now = 10_300 * MS; // jiffy 2575: not after
        bbr.on_rate_sample(&mut w, &rs);
        assert_eq!(inner(&mut bbr).mode, Mode::ProbeRtt);
        rs.now = 10_304 * MS;
        rs.delivered_total = 1006;
        bbr.on_rate_sample(&mut w, &rs);
        let l = inner(&mut bbr);
        assert_eq!(l.mode, Mode::ProbeBw);
        assert_eq!(l.min_rtt_stamp, 2576);
        assert_ne!(l.cycle_idx, 1, "never starts at the 0.75 phase");
        assert!(w.cwnd >= 102.0, "{}", w.cwnd);
    }

    /// Established with a handshake RTT of 40 ms: min RTT 40 ms (BDP from it at once),
    /// stamped at the establishment's jiffy, pacing 739/256 × 10 segments / 40 ms.
    #[test]
    fn established_with_the_handshake_rtt() {
        let mut bbr = bbr();
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        bbr.on_established(&mut w, 1000 * MS, Some(40 * MS), Some(40e6));
        bbr.on_tx_start(&mut w, 1000 * MS, 0);
        let l = inner(&mut bbr);
        assert_eq!((l.min_rtt_us, l.min_rtt_stamp, l.pacing_rate, l.has_seen_rtt), (40_000, 250, 1_034_467, true));
        assert_eq!(l.bdp(ONE_PER_MS, BBR_UNIT), 40);
        assert!(l.idle_restart, "the first transmission starts app-limited (tcp_init_sock)");
    }

    /// The pacing rate starts at high gain × cwnd / SRTT (1 ms before an SRTT), is
    /// re-initialised from the first SRTT, and is only lowered once the pipe is full.
    #[test]
    fn pacing_rate_rules() {
        let mut bbr = bbr();
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        bbr.on_tx_start(&mut w, 0, 0);
        // 10 segments/ms · 2²⁴ = 167772 → 41 381 651 B/s
        assert_eq!(inner(&mut bbr).pacing_rate, 41_381_651);
        bbr.pkts_acked(&mut w, &AckSample { now: 40 * MS, srtt: Some(40e6), ..Default::default() });
        bbr.on_rate_sample(&mut w, &sample(40, 1, 0, 0));
        // 10 segments / 40 ms: 4194 → 1 034 467 B/s, no bandwidth sample to raise it
        assert_eq!(inner(&mut bbr).pacing_rate, 1_034_467);
        assert_eq!(bbr.pacing_rate(), Some(1_034_467.0 / 1448.0));
        let l = inner(&mut bbr);
        l.bw.reset(1, ONE_PER_MS as f64 / 4.0);
        bbr.on_rate_sample(&mut w, &sample(41, 1, 0, 0));
        assert_eq!(inner(&mut bbr).pacing_rate, 1_034_467, "not lowered before the pipe is full");
        inner(&mut bbr).full_bw_reached = true;
        bbr.on_rate_sample(&mut w, &sample(42, 1, 0, 0));
        assert!(inner(&mut bbr).pacing_rate < 1_034_467);
    }
}
