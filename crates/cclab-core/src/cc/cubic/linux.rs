//! CUBIC as Linux 6.x's net/ipv4/tcp_cubic.c computes it (the classic `bictcp_update`,
//! before the 2024 "at least Reno" changes), for the `linux` profile; read, not copied.
//! Whole-segment windows, time in jiffies (4 ms) for the cubic curve and in µs for
//! HyStart, and the module's integer constants: β = 717/1024, C = 410/1024
//! (`bic_scale` 41 × 10), `cube_factor` = 2⁴⁰/410, Reno-friendly slope `beta_scale` 15.
use super::CubicConfig;
use crate::cc::kernel::{after, jiffies, usecs_to_jiffies, usecs_u32, whole, HZ};
use crate::cc::reno::{cong_avoid_ai, linux_slow_start};
use crate::cc::{AckSample, Window};
use crate::sim::Time;

/// `BICTCP_BETA_SCALE`: β in 1/1024.
const BETA_SCALE: u32 = 1024;
/// `BICTCP_HZ`: the curve's time unit is 2⁻¹⁰ s.
const BICTCP_HZ: u32 = 10;
/// `HYSTART_MIN_SAMPLES`: RTT samples a round takes before its delay test.
const HYSTART_MIN_SAMPLES: u8 = 8;
/// The delay test's η = delay_min/8 held within these (µs).
const HYSTART_DELAY_MIN_US: u32 = 4000;
const HYSTART_DELAY_MAX_US: u32 = 16000;
/// `hystart_low_window`: HyStart acts from this window on.
const HYSTART_LOW_WINDOW: u32 = 16;
/// `hystart_ack_delta_us`: ACKs this close (µs) continue a train.
const HYSTART_ACK_DELTA_US: i32 = 2000;
/// `hystart_ack_delay()` = min(1 ms, 4 · gso_max_size (64 KiB) / pacing rate): 1 ms at
/// every pacing rate below 262 MB/s, i.e. on every path the profile is meant for.
const HYSTART_ACK_DELAY_US: u32 = 1000;
/// cnt while no W_max is known (`last_max_cwnd == 0`): at least +5 % per RTT.
const NO_WMAX_CNT: u32 = 20;

/// The integer cube root of `tcp_cubic.c`'s `cubic_root`: a first guess from a table of
/// cube roots indexed by the top six bits of `a` (the kernel's hand-tuned values,
/// v(x) ≈ ∛(x·2¹⁸) − 1, kept as data so that K matches the kernel's to the unit), then
/// one Newton step x ← (2x + a/(x(x − 1)))/3 with the division by 3 as ×341/1024.
/// Within 0.2 % over the range K is taken from (a ≥ 2.7·10⁹).
pub fn cubic_root(a: u64) -> u32 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168, 170, 173, 176,
        179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224,
        225, 227, 229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    // bits in a (fls64)
    let bits = 64 - a.leading_zeros();
    if bits < 7 {
        // a < 64: the table alone
        return (V[a as usize] as u32 + 35) >> 6;
    }
    // a = top · 2^(3·shift) with top in [0, 64): ∛a ≈ ∛top · 2^shift
    let shift = ((bits * 84) >> 8) - 1;
    let top = (a >> (shift * 3)) as usize;
    let x = ((V[top] as u32 + 10) << shift) >> 6;
    let quotient = a / (x as u64 * (x as u64 - 1)).max(1);
    let x = (2 * x).wrapping_add(quotient as u32);
    ((x as u64 * 341) >> 10) as u32
}

#[derive(Clone, Debug)]
pub struct LinuxCubic {
    /// The socket paces: HyStart's ACK-train threshold is not halved.
    paced: bool,
    // module parameters, from the scenario's config (defaults: the kernel's)
    beta: u32,
    fast_convergence: bool,
    tcp_friendliness: bool,
    hystart: bool,
    /// 8·(1024 + β)/3/(1024 − β): delivered segments per +1 of the Reno estimate, ×8.
    beta_scale: u32,
    /// C in 1/1024 (`bic_scale`·10).
    cube_rtt_scale: u32,
    /// 2⁴⁰/cube_rtt_scale: K³ per segment of W_max − cwnd.
    cube_factor: u64,
    // struct bictcp
    /// Delivered segments per +1 (the `w` of `tcp_cong_avoid_ai`).
    pub cnt: u32,
    /// W_max (segments).
    pub last_max_cwnd: u32,
    last_cwnd: u32,
    /// Jiffies when cnt was last computed.
    last_time: u32,
    origin_point: u32,
    /// K in 2⁻¹⁰ s.
    pub k: u32,
    /// The smallest RTT of the epoch (µs; 0: none).
    pub delay_min: u32,
    /// Jiffies when the epoch began (the kernel's 0: none).
    pub epoch_start: Option<u32>,
    ack_cnt: u32,
    /// The Reno-friendly estimate (segments).
    tcp_cwnd: u32,
    // HyStart
    pub found: bool,
    sample_cnt: u8,
    round_start: u32,
    last_ack: u32,
    curr_rtt: u32,
    /// snd_una passed the round's end (the sender's `on_round`): the next HyStart update
    /// starts a new round (`bictcp_hystart_reset`).
    round_ended: bool,
    /// `snd_cwnd_cnt`.
    pub cwnd_cnt: u32,
}

impl LinuxCubic {
    pub fn new(config: &CubicConfig, paced: bool) -> LinuxCubic {
        // the module's integer parameters: beta 717 and bic_scale 41 for β = 0.7, C = 0.4
        let beta = ((config.beta * BETA_SCALE as f64).round() as u32).clamp(1, BETA_SCALE - 1);
        let bic_scale = ((config.c * BETA_SCALE as f64 / 10.0).round() as u32).max(1);
        let cube_rtt_scale = bic_scale * 10;
        LinuxCubic {
            paced,
            beta,
            fast_convergence: config.fast_convergence,
            tcp_friendliness: config.tcp_friendliness,
            hystart: config.hystart,
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / cube_rtt_scale as u64,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin_point: 0,
            k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            found: false,
            sample_cnt: 0,
            round_start: 0,
            last_ack: 0,
            curr_rtt: u32::MAX,
            // `cubictcp_init` ends its round at snd_nxt before any data: the first ACK
            // starts the first round.
            round_ended: true,
            cwnd_cnt: 0,
        }
    }

    /// `cubictcp_init` when the connection is established: all zero, HyStart's clock
    /// from now, its round ending at the snd_nxt before any data (the first ACK starts
    /// the first round).
    pub fn init(&mut self, now: Time) {
        self.reset();
        self.hystart_reset(usecs_u32(now));
        self.round_ended = true;
        self.cwnd_cnt = 0;
    }

    /// `bictcp_reset`: everything but HyStart's round.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin_point = 0;
        self.k = 0;
        self.delay_min = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.found = false;
    }

    /// `bictcp_hystart_reset` at `now_us`.
    fn hystart_reset(&mut self, now_us: u32) {
        self.round_start = now_us;
        self.last_ack = now_us;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
        self.round_ended = false;
    }

    /// `cubictcp_cong_avoid(acked)`: slow start up to ssthresh, then the cubic cnt.
    pub fn cong_avoid(&mut self, window: &mut Window, acked: u32, now: Time) {
        let mut cwnd = whole(window.cwnd);
        let ssthresh = whole(window.ssthresh);
        let mut acked = acked;
        if cwnd < ssthresh {
            acked = linux_slow_start(&mut cwnd, ssthresh, acked);
            if acked == 0 {
                window.cwnd = cwnd as f64;
                return;
            }
        }
        self.update(cwnd, acked, jiffies(now));
        cong_avoid_ai(&mut cwnd, &mut self.cwnd_cnt, self.cnt, acked);
        window.cwnd = cwnd as f64;
    }

    /// `bictcp_update(cwnd, acked)` at jiffy `now`: cnt = segments to deliver per +1.
    pub fn update(&mut self, cwnd: u32, acked: u32, now: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        // unchanged cwnd: cnt stands for HZ/32 (7 jiffies, 28 ms)
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        // at most once per jiffy, bar a new epoch
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let epoch_start = match self.epoch_start {
                Some(start) => start,
                None => {
                    self.epoch_start = Some(now);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.k = 0;
                        self.origin_point = cwnd;
                    } else {
                        let gap = (self.last_max_cwnd - cwnd) as u64;
                        self.k = cubic_root(self.cube_factor.wrapping_mul(gap));
                        self.origin_point = self.last_max_cwnd;
                    }
                    now
                }
            };
            // time since the epoch began, one min RTT ahead, in 2⁻¹⁰ s
            let elapsed = (now.wrapping_sub(epoch_start) as i32).max(0) as u64;
            let t = ((elapsed + usecs_to_jiffies(self.delay_min) as u64) << BICTCP_HZ) / HZ as u64;
            let k = self.k as u64;
            let offs = if t < k { k - t } else { t - k };
            let delta = (self.cube_rtt_scale as u64).wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs)
                >> (10 + 3 * BICTCP_HZ);
            let delta = delta as u32;
            let target =
                if t < k { self.origin_point.wrapping_sub(delta) } else { self.origin_point.wrapping_add(delta) };
            self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { cwnd.wrapping_mul(100) };
            if self.last_max_cwnd == 0 && self.cnt > NO_WMAX_CNT {
                self.cnt = NO_WMAX_CNT;
            }
        }
        // the Reno-friendly estimate: +1 per 1.875·cwnd delivered segments (β = 0.7)
        if self.tcp_friendliness {
            let per_segment = (cwnd.wrapping_mul(self.beta_scale) >> 3).max(1);
            while self.ack_cnt > per_segment {
                self.ack_cnt -= per_segment;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        // at most +1 per 2 delivered segments (×1.5 per RTT)
        self.cnt = self.cnt.max(2);
    }

    /// `cubictcp_recalc_ssthresh`: the epoch ends, W_max (lowered by fast convergence
    /// when the window fell short of the last one), ssthresh = max(β·cwnd, 2).
    pub fn ssthresh(&mut self, window: &Window) -> u32 {
        let cwnd = whole(window.cwnd);
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.fast_convergence {
            cwnd.wrapping_mul(BETA_SCALE + self.beta) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        // tcp_init_cwnd_reduction restarts the count
        self.cwnd_cnt = 0;
        (cwnd.wrapping_mul(self.beta) / BETA_SCALE).max(2)
    }

    /// `cubictcp_state(TCP_CA_Loss)`: every CUBIC and HyStart variable starts afresh
    /// (W_max and delay_min forgotten); `tcp_enter_loss` restarts the count.
    pub fn loss_state(&mut self, now: Time) {
        self.reset();
        self.hystart_reset(usecs_u32(now));
        self.cwnd_cnt = 0;
    }

    /// `cubictcp_cwnd_event(CA_EVENT_TX_START)`: after `idle` ns without sending, the
    /// epoch moves on by the idle jiffies (not past now), so the curve resumes where it
    /// stopped.
    pub fn tx_start(&mut self, now: Time, idle: Time) {
        let now_j = jiffies(now);
        let delta = now_j.wrapping_sub(jiffies(now.saturating_sub(idle))) as i32;
        if let Some(start) = self.epoch_start {
            if delta > 0 {
                let mut start = start.wrapping_add(delta as u32);
                if after(start, now_j) {
                    start = now_j;
                }
                self.epoch_start = Some(start);
            }
        }
    }

    /// The sender's round ended (snd_una passed the round's snd_nxt).
    pub fn round(&mut self) {
        self.round_ended = true;
    }

    /// `cubictcp_acked` on every ACK with its RTT sample (`rs->rtt_us`).
    pub fn pkts_acked(&mut self, window: &mut Window, ack: &AckSample) {
        let Some(rtt) = ack.rtt else { return };
        // no samples within a second (HZ) of a reduction's epoch start
        if let Some(start) = self.epoch_start {
            if (jiffies(ack.now).wrapping_sub(start) as i32) < HZ as i32 {
                return;
            }
        }
        let delay = usecs_u32(rtt).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if !self.found && whole(window.cwnd) < whole(window.ssthresh) && self.hystart {
            self.hystart_update(window, usecs_u32(ack.now), delay);
        }
    }

    /// `hystart_update(delay)` (`hystart_detect` = 3: ACK train and delay).
    fn hystart_update(&mut self, window: &mut Window, now_us: u32, delay: u32) {
        if self.round_ended {
            self.hystart_reset(now_us);
        }
        let cwnd = whole(window.cwnd);
        if cwnd < HYSTART_LOW_WINDOW {
            return;
        }
        // ACK train: ACKs ≤ 2 ms apart since the round began, for delay_min + 1 ms —
        // halved unless the socket paces (`sk_pacing_status == SK_PACING_NONE`)
        if (now_us.wrapping_sub(self.last_ack) as i32) <= HYSTART_ACK_DELTA_US {
            self.last_ack = now_us;
            let mut threshold = self.delay_min + HYSTART_ACK_DELAY_US;
            if !self.paced {
                threshold >>= 1;
            }
            if now_us.wrapping_sub(self.round_start) > threshold {
                self.found = true;
                window.ssthresh = cwnd as f64;
            }
        }
        // delay: the round's running minimum, from its 9th sample on, above delay_min + η
        self.curr_rtt = self.curr_rtt.min(delay);
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let eta = (self.delay_min >> 3).clamp(HYSTART_DELAY_MIN_US, HYSTART_DELAY_MAX_US);
            if self.curr_rtt > self.delay_min + eta {
                self.found = true;
                window.ssthresh = cwnd as f64;
            }
        }
    }

    pub fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("w_max", self.last_max_cwnd as f64));
        out.push(("k_s", self.k as f64 / 1024.0));
        out.push(("w_est", self.tcp_cwnd as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::event;
    use crate::cc::{Algorithm, CongestionControl, CongestionSignal};

    const MS: Time = 1_000_000;

    fn linux_cubic() -> super::super::Cubic {
        let mut cubic = CubicConfig::default().build();
        cubic.use_linux_rules(crate::cc::LinuxSocket { mss_bytes: 1448, paced: false });
        cubic
    }

    fn inner(cubic: &super::super::Cubic) -> &LinuxCubic {
        cubic.linux.as_deref().unwrap()
    }

    fn ack(now: Time, rtt: Option<Time>, segments: u32) -> AckSample {
        AckSample { now, rtt, segments_acked: segments, ..Default::default() }
    }

    /// The module's constants from β = 0.7 and C = 0.4.
    #[test]
    fn module_constants() {
        let l = LinuxCubic::new(&CubicConfig::default(), false);
        assert_eq!((l.beta, l.beta_scale, l.cube_rtt_scale, l.cube_factor), (717, 15, 410, 2_681_735_677));
    }

    /// cubic_root against exact cube roots: within 0.2 % (+1 for rounding) over the
    /// range K is taken from (cube_factor·(W_max − cwnd) ≥ 2.7·10⁹), and the values
    /// the kernel's table and Newton step give at a few points.
    #[test]
    fn cubic_root_is_within_the_kernels_error() {
        let mut a: u64 = 1 << 31;
        while a < 1 << 62 {
            for m in [1u64, 3, 5, 7] {
                let x = a / 8 * m + 12_345;
                let exact = (x as f64).cbrt();
                let got = cubic_root(x) as f64;
                assert!((got - exact).abs() <= 0.002 * exact + 1.0, "∛{x} = {exact}, got {got}");
            }
            a = a / 4 * 5;
        }
        assert_eq!([cubic_root(0), cubic_root(1), cubic_root(8), cubic_root(27), cubic_root(63)], [0, 1, 2, 3, 4]);
        assert_eq!([cubic_root(64), cubic_root(1000), cubic_root(1_000_000), cubic_root(1_000_000_000)], [4, 10, 100, 1000]);
        // K for W_max − cwnd = 1, 30 and 1000 segments (exact: 1389.3, 4317.0, 13893.3)
        assert_eq!([cubic_root(2_681_735_677), cubic_root(2_681_735_677 * 30), cubic_root(2_681_735_677 * 1000)], [1388, 4316, 13897]);
    }

    /// An epoch after a loss at cwnd 100 (delay_min 40 ms, i.e. 10 jiffies ahead): W_max
    /// 100, ssthresh ⌊100·717/1024⌋ = 70, K = 4316 (4.215 s). bictcp_update at given
    /// jiffies (epoch from jiffy 1000), by hand: t = (j − 1000 + 10)·1024/250,
    /// δ = 410·|t − K|³ >> 40, target = 100 ∓ δ, cnt = cwnd/(target − cwnd):
    ///   j 1000 cwnd 70: t 40, δ 29, target 71 → cnt 70
    ///   j 1003, 1007 cwnd 70: unchanged cwnd within HZ/32 = 7 jiffies → kept, 70
    ///   j 1008 cwnd 70: t 73, δ 28, target 72 → 35
    ///   j 1008 cwnd 71: same jiffy → kept, 35
    ///   j 1100 cwnd 75: t 450, δ 21, target 79 → 18
    ///   j 1300 cwnd 85: t 1269, δ 10, target 90 → 17
    ///   j 2060 cwnd 100: t 4382 (past K by 66), δ 0, target 100 → 100·100
    ///   j 3000 cwnd 101: t 8232, δ 22, target 122 → 4
    ///   j 3008 cwnd 50: t 8265, δ 22, target 122 → 50/72 = 0, at least 2
    #[test]
    fn an_epoch_after_a_loss_gives_the_kernels_cnt() {
        let mut cubic = linux_cubic();
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cubic.pkts_acked(&mut w, &ack(3000 * MS, Some(40 * MS), 1));
        let r = cubic.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        assert_eq!(r.ssthresh, 70.0);
        let l = cubic.linux.as_deref_mut().unwrap();
        assert_eq!((l.last_max_cwnd, l.delay_min, l.epoch_start), (100, 40_000, None));
        let mut got = Vec::new();
        for (j, cwnd) in [(1000, 70), (1003, 70), (1007, 70), (1008, 70), (1008, 71), (1100, 75), (1300, 85), (2060, 100), (3000, 101), (3008, 50)] {
            l.update(cwnd, 1, j);
            got.push(l.cnt);
        }
        assert_eq!(l.k, 4316);
        assert_eq!(got, [70, 70, 70, 35, 35, 18, 17, 10_000, 4, 2]);
        // the Reno-friendly estimate: a new epoch with 500 segments delivered at once
        // counts 3 × ⌊70·15/8⌋ = 3 × 131 of them: tcp_cwnd 73 > 70 ⇒ cnt ≤ 70/3 = 23
        l.epoch_start = None;
        l.update(70, 500, 4000);
        assert_eq!((l.tcp_cwnd, l.cnt), (73, 23));
        // fast convergence: a loss at 80 < W_max 100 remembers ⌊80·1741/2048⌋ = 68
        let r = cubic.on_congestion(&Window { cwnd: 80.0, ssthresh: 70.0 }, &event(CongestionSignal::FastRetransmit));
        assert_eq!((r.ssthresh, inner(&cubic).last_max_cwnd), (56.0, 68));
    }

    /// The same epoch driven through on_ack, one ACK of 2 segments at a time: the window
    /// grows by whole segments, +1 per cnt delivered, and after K is past W_max. (At a
    /// 40-ms RTT the Reno-friendly estimate, +1 per 131 segments, would overtake the
    /// curve before K: with it on, the window follows that estimate instead.)
    #[test]
    fn on_ack_grows_by_whole_segments_along_the_curve() {
        let mut cubic = CubicConfig { tcp_friendliness: false, ..CubicConfig::default() }.build();
        cubic.use_linux_rules(crate::cc::LinuxSocket { mss_bytes: 1448, paced: false });
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        cubic.pkts_acked(&mut w, &ack(3000 * MS, Some(40 * MS), 1));
        let r = cubic.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        w = Window { cwnd: r.ssthresh, ssthresh: r.ssthresh };
        let start = 4000 * MS;
        let mut now = start;
        let mut at_k = None;
        // one RTT (40 ms) delivers a window; ACKs of 2
        while now < start + 8000 * MS {
            let acks = (w.cwnd as u64 / 2).max(1);
            for i in 0..acks {
                cubic.on_ack(&mut w, &ack(now + 40 * MS * i / acks, None, 2));
                assert_eq!(w.cwnd.fract(), 0.0);
            }
            now += 40 * MS;
            if at_k.is_none() && now >= start + 4215 * MS {
                at_k = Some(w.cwnd);
            }
        }
        // W(K) = W_max; the target runs one min RTT ahead, so near K the window is at
        // W_max within a few segments; 4 s after K it is well above
        let at_k = at_k.unwrap();
        assert!((97.0..=103.0).contains(&at_k), "at K: {at_k}");
        assert!(w.cwnd > 110.0, "{}", w.cwnd);
        // the Reno-friendly region: 4.2 s of ACKs (≈ 8000 segments) give the estimate
        // ≈ +60, and the window keeps up with it
        let mut cubic = linux_cubic();
        let mut w = Window { cwnd: 100.0, ssthresh: 50.0 };
        let r = cubic.on_congestion(&w, &event(CongestionSignal::FastRetransmit));
        w = Window { cwnd: r.ssthresh, ssthresh: r.ssthresh };
        let mut now = start;
        while now < start + 4215 * MS {
            let acks = (w.cwnd as u64 / 2).max(1);
            for i in 0..acks {
                cubic.on_ack(&mut w, &ack(now + 40 * MS * i / acks, None, 2));
            }
            now += 40 * MS;
        }
        let estimate = inner(&cubic).tcp_cwnd as f64;
        assert!(estimate > 120.0 && (w.cwnd - estimate).abs() <= 2.0, "cwnd {} vs Reno estimate {estimate}", w.cwnd);
    }

    /// After HyStart (or an RTO) no W_max is known: cnt is capped at 20 (+5 %/RTT),
    /// where the curve alone (K = 0, target ≈ cwnd) would give 100·cwnd.
    #[test]
    fn without_w_max_cnt_is_at_most_20() {
        let mut cubic = linux_cubic();
        let mut w = Window { cwnd: 50.0, ssthresh: 50.0 };
        cubic.on_ack(&mut w, &ack(1000 * MS, None, 1));
        assert_eq!(inner(&cubic).cnt, 20);
        for _ in 0..19 {
            cubic.on_ack(&mut w, &ack(1000 * MS, None, 1));
        }
        assert_eq!(w.cwnd, 51.0, "+1 per 20 delivered");
    }

    /// HyStart's ACK train (unpaced: threshold (delay_min + 1 ms)/2 = 20.5 ms at 40 ms):
    /// ACKs 0.5 ms apart from the round's first end slow start at the one 21 ms after the
    /// round began, not at 20.5 ms (which half of delay_min alone would); one gap over
    /// 2 ms ends the train for the round.
    #[test]
    fn hystart_ack_train_at_half_delay_min_plus_1ms() {
        for gap_at in [None, Some(20)] {
            let mut cubic = linux_cubic();
            let mut w = Window { cwnd: 20.0, ssthresh: f64::INFINITY };
            let t0 = 1000 * MS;
            let mut found_at = None;
            let mut extra = 0;
            for k in 0..=60u64 {
                if gap_at == Some(k) {
                    extra = 5 * MS / 2; // this ACK comes 3 ms after the last
                }
                cubic.pkts_acked(&mut w, &ack(t0 + k * MS / 2 + extra, Some(40 * MS), 2));
                if found_at.is_none() && inner(&cubic).found {
                    found_at = Some(k);
                }
            }
            match gap_at {
                None => {
                    assert_eq!(found_at, Some(42));
                    assert_eq!(w.ssthresh, 20.0, "ssthresh = cwnd");
                }
                Some(_) => assert_eq!(found_at, None),
            }
        }
        // below the low window (16) nothing is detected
        let mut cubic = linux_cubic();
        let mut w = Window { cwnd: 15.0, ssthresh: f64::INFINITY };
        for k in 0..=30u64 {
            cubic.pkts_acked(&mut w, &ack(1000 * MS + k * MS, Some(40 * MS), 2));
        }
        assert!(!inner(&cubic).found);
    }

    /// HyStart's delay test: η = clamp(40/8, 4, 16) = 5 ms over delay_min 40 ms. A round
    /// of 46-ms samples, 3 ms apart (no train): the first 8 only count, the 9th tests
    /// the round's minimum and ends slow start; 45-ms samples never do.
    #[test]
    fn hystart_delay_test_from_the_ninth_sample() {
        for (rtt_ms, expect) in [(46, Some(9)), (45, None)] {
            let mut cubic = linux_cubic();
            let mut w = Window { cwnd: 20.0, ssthresh: f64::INFINITY };
            cubic.pkts_acked(&mut w, &ack(1000 * MS, Some(40 * MS), 2));
            cubic.on_round(&mut w, 1001 * MS);
            let mut found_at = None;
            for k in 1..=12u64 {
                cubic.pkts_acked(&mut w, &ack(1000 * MS + 3 * k * MS, Some(rtt_ms * MS), 2));
                if found_at.is_none() && inner(&cubic).found {
                    found_at = Some(k);
                }
            }
            assert_eq!(found_at, expect, "rtt {rtt_ms} ms");
        }
    }

    /// A timeout's Loss state forgets everything, HyStart included; a second after an
    /// epoch starts RTT samples are ignored; a transmit start after idle moves the epoch.
    #[test]
    fn loss_state_resets_and_epoch_rules() {
        let mut cubic = linux_cubic();
        let mut w = Window { cwnd: 40.0, ssthresh: f64::INFINITY };
        cubic.pkts_acked(&mut w, &ack(1000 * MS, Some(30 * MS), 1));
        cubic.on_ack(&mut w, &ack(1001 * MS, None, 5));
        let r = cubic.on_congestion(&w, &event(CongestionSignal::Timeout));
        w.ssthresh = r.ssthresh;
        w.cwnd = 1.0;
        cubic.on_loss_state(&mut w, 1200 * MS);
        let l = inner(&cubic);
        assert_eq!((l.last_max_cwnd, l.delay_min, l.epoch_start, l.cnt, l.found, l.cwnd_cnt), (0, 0, None, 0, false, 0));
        assert_eq!((l.round_start, l.last_ack, l.sample_cnt, l.curr_rtt), (1_200_000, 1_200_000, 0, u32::MAX));
        // an epoch at jiffy 500 (2 s): samples before jiffy 750 are skipped
        let mut w = Window { cwnd: 30.0, ssthresh: 30.0 };
        cubic.on_ack(&mut w, &ack(2000 * MS, None, 1));
        assert_eq!(inner(&cubic).epoch_start, Some(500));
        cubic.pkts_acked(&mut w, &ack(2996 * MS, Some(25 * MS), 1));
        assert_eq!(inner(&cubic).delay_min, 0);
        cubic.pkts_acked(&mut w, &ack(3000 * MS, Some(25 * MS), 1));
        assert_eq!(inner(&cubic).delay_min, 25_000);
        // 100 ms (25 jiffies) idle: the epoch moves 25 jiffies on
        cubic.on_tx_start(&mut w, 3200 * MS, 100 * MS);
        assert_eq!(inner(&cubic).epoch_start, Some(525));
    }
}
