//! Rate estimators mined from the ACK stream, shared by the TCP Westwood family: BE
//! (bandwidth estimation from ACK pairs), RE (rate over a fixed interval) and ABSE
//! (adaptive interval and filter) of Wang, Valla, Sanadidi & Gerla, "Adaptive Bandwidth
//! Share Estimation in TCP Westwood" (ICNP 2002). Units: time in seconds (f64) at this
//! interface, data in segments, rates in segments per second.
//!
//! How RE and ABSE read Eqs. 1 and 4–6 ([`Reading`]; the paper's text allows both):
//! - `non_overlapping` [default]. Eq. 4's sample over T_k is taken once T_k has passed
//!   since the previous sample at t_s: s = Σ_{t_s < t_j ≤ t_k} d_j / (t_k − t_s), the rate
//!   over the whole time since t_s, and Eq. 1 weighs it by Δ = t_k − t_s, the time it
//!   covers. Eqs. 5–6: τ_k comes from U_{k−1} and the largest U of the window before it;
//!   U_k takes s_k after the filter has. With T_k = T_min (the last ACK gap) every ACK
//!   closes a sample and this is BE exactly.
//! - `literal`. Each ACK re-reads the trailing window (t_k − T_k, t_k] and Eq. 1 weighs
//!   that by the gap to the previous ACK, Δt_k; τ_k and U_max already include U_k. Two
//!   biases follow, both visible in the tests below: after a long gap the window holds
//!   few ACKs, so the lowest samples get the largest weights (and a low estimate
//!   lengthens ABSE's T_k, which lowers the next samples); and a sample that jumps raises
//!   U_k to U_max, so τ_k = 11·RTT and the jump is filtered away.
//!
//! Choices the paper leaves open, each a named parameter (default in brackets):
//! - ACK accounting (§2; Linux `westwood_acked_count`): a duplicate ACK counts one
//!   segment delivered; the next cumulative ACK of n > 1 segments is reduced by what
//!   duplicates already counted. `AckCounter::cumulative_cap` [none] caps a cumulative
//!   ACK's count, as the UCLA ns-2 code did with 2 ([`AckCounting`]: UCLA's agent also
//!   keeps one duplicate's credit back when a cumulative ACK covers them all).
//! - Δt_k, the time an ACK adds to BE's filter (Eq. 1): the time since the previous ACK
//!   of any kind, duplicates included.
//! - Eq. 1's gain α_k = (2τ_k − Δt_k)/(2τ_k + Δt_k) is negative when Δt_k > 2τ_k (the
//!   filter would overshoot); `RateFilter::clamp_gain` [on] holds it at 0, so a long gap
//!   takes the new sample as the estimate. `tustin` [off] filters (s_k + s_{k−1})/2
//!   instead of s_k, the form of the original Westwood BE filter.
//! - BE: τ [1 s, as UCLA]; `silent_period` [off]: an ACK after a silence longer than p
//!   seconds is preceded by one zero-rate sample per whole p elapsed (the estimate decays
//!   while nothing is acknowledged). [`BandwidthEstimator::ucla`] is UCLA's filter 3.
//! - RE: T [the smoothed RTT], τ [1 s].
//! - ABSE: which RTT Eq. 2 uses [the smoothed RTT, as Eq. 6 says for τ_k]; T_min [the
//!   last ACK inter-arrival, Δt_k]; T_k clamped to [T_min, T_max = RTT] [on: §3.1.2 says
//!   the interval ranges between the two]; β [0.6], N [10], U_max over the 10 most recent
//!   U [§3.2]; U_max = 0 gives τ_k = RTT; the first estimate is the first sample.
//!
//! The paper's own slips, for whoever reads it next to this file: §3.1.1 says "Fig. 2"
//! for the 1 %-loss result that is Fig. 3; the text after Eq. 3 says "In equation (4)"
//! for Eq. 3, and "In (6)" for Eq. 5.
use std::collections::VecDeque;

/// Half a nanosecond, in seconds.
const HALF_NS: f64 = 0.5e-9;

/// How a cumulative ACK that covers segments duplicates already counted is credited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckCounting {
    /// Linux `westwood_acked_count`: it counts 1 and all its segments leave the credit.
    #[default]
    Linux,
    /// UCLA's ns-2 agent (`bwe_computation`): it counts 1 and one segment fewer leaves
    /// the credit (that one is what it counts).
    Ucla,
}

/// Segments each ACK reports delivered (§2; Linux `westwood_acked_count`).
#[derive(Clone, Debug, Default)]
pub struct AckCounter {
    /// Segments counted by duplicates and not yet covered by a cumulative ACK.
    accounted: u32,
    /// Count a cumulative ACK as at most this many segments (UCLA ns-2: 2).
    pub cumulative_cap: Option<u32>,
    pub counting: AckCounting,
}

impl AckCounter {
    pub fn new(cumulative_cap: Option<u32>) -> AckCounter {
        AckCounter { accounted: 0, cumulative_cap, counting: AckCounting::Linux }
    }

    /// Segments this ACK is credited with: 1 for a duplicate; for a cumulative ACK of
    /// `acked` segments, what the duplicates before it did not already count (at least 1).
    pub fn count(&mut self, acked: u32, duplicate: bool) -> u32 {
        if duplicate {
            self.accounted += 1;
            return 1;
        }
        let mut credited = acked;
        if acked > 1 {
            if self.accounted >= acked {
                self.accounted -= match self.counting {
                    AckCounting::Linux => acked,
                    AckCounting::Ucla => acked - 1,
                };
                credited = 1;
            } else {
                credited = acked - self.accounted;
                self.accounted = 0;
            }
        }
        self.cumulative_cap.map_or(credited, |cap| credited.min(cap))
    }
}

/// Eq. 1: ŝ_k = α_k ŝ_{k−1} + (1 − α_k) s_k with α_k = (2τ_k − Δt_k)/(2τ_k + Δt_k).
#[derive(Clone, Debug)]
pub struct RateFilter {
    estimate: Option<f64>,
    last_sample: f64,
    pub tustin: bool,
    pub clamp_gain: bool,
}

impl Default for RateFilter {
    fn default() -> Self {
        RateFilter { estimate: None, last_sample: 0.0, tustin: false, clamp_gain: true }
    }
}

impl RateFilter {
    /// Filter `sample` arriving `dt` seconds after the previous one with time constant
    /// `tau`; returns the new estimate. The first sample is the first estimate.
    pub fn update(&mut self, sample: f64, dt: f64, tau: f64) -> f64 {
        let input = if self.tustin && self.estimate.is_some() { (sample + self.last_sample) / 2.0 } else { sample };
        self.last_sample = sample;
        let next = match self.estimate {
            None => sample,
            Some(previous) => {
                let mut gain = (2.0 * tau - dt) / (2.0 * tau + dt);
                if self.clamp_gain {
                    gain = gain.max(0.0);
                }
                gain * previous + (1.0 - gain) * input
            }
        };
        self.estimate = Some(next);
        next
    }

    /// A filter that already holds `estimate` (with a previous sample of 0): UCLA's
    /// agent starts from zero rather than from its first sample.
    pub fn starting_at(estimate: f64, tustin: bool) -> RateFilter {
        RateFilter { estimate: Some(estimate), last_sample: 0.0, tustin, clamp_gain: true }
    }

    /// `steps` zero samples, each `dt` after the previous, with time constant `tau`.
    /// After the first the Tustin input is 0 too, so the rest only scale the estimate
    /// (by the gain to the power steps − 1: a long silence costs one step, not millions).
    pub fn zero_samples(&mut self, steps: u64, dt: f64, tau: f64) {
        if steps == 0 {
            return;
        }
        self.update(0.0, dt, tau);
        if steps > 1 {
            let mut gain = (2.0 * tau - dt) / (2.0 * tau + dt);
            if self.clamp_gain {
                gain = gain.max(0.0);
            }
            if let Some(estimate) = self.estimate.as_mut() {
                *estimate *= gain.powf((steps - 1) as f64);
            }
        }
    }

    pub fn estimate(&self) -> f64 {
        self.estimate.unwrap_or(0.0)
    }

    /// The estimate, or None before the first sample.
    pub fn current(&self) -> Option<f64> {
        self.estimate
    }
}

/// Data acknowledged over a trailing interval (Eq. 4): s_k = Σ_{t_j > t_k − T} d_j / T.
#[derive(Clone, Debug, Default)]
pub struct WindowedRate {
    acks: VecDeque<(f64, u32)>,
}

impl WindowedRate {
    pub fn push(&mut self, now: f64, segments: u32) {
        self.acks.push_back((now, segments));
    }

    /// Segments per second over (now − interval, now].
    pub fn rate(&self, now: f64, interval: f64) -> f64 {
        let data: u32 = self.acks.iter().rev().take_while(|&&(t, _)| t > now - interval).map(|&(_, d)| d).sum();
        data as f64 / interval
    }

    /// Forget ACKs at or before now − horizon (the longest interval still asked for).
    pub fn forget_before(&mut self, now: f64, horizon: f64) {
        while self.acks.front().is_some_and(|&(t, _)| t <= now - horizon) {
            self.acks.pop_front();
        }
    }
}

/// ABSE's sampling interval (Eqs. 2–3): T_min when the estimate times RTTmin covers
/// cwnd (no congestion), else RTT·(cwnd − ŝ·RTTmin)/cwnd, clamped to [T_min, RTT] when
/// `clamp` is set.
pub fn abse_interval(cwnd: f64, estimate: f64, rtt_min: f64, rtt: f64, t_min: f64, clamp: bool) -> f64 {
    if estimate * rtt_min >= cwnd {
        return t_min;
    }
    let interval = rtt * (cwnd - estimate * rtt_min) / cwnd;
    if clamp {
        interval.min(rtt).max(t_min)
    } else {
        interval
    }
}

/// Network instability (Eq. 5) and ABSE's filter time constant (Eq. 6):
/// U_k = β U_{k−1} + (1 − β)|s_k − s_{k−1}|, τ_k = RTT + N·RTT·U_k/U_max, U_max the
/// largest of the `window` most recent U.
#[derive(Clone, Debug)]
pub struct Instability {
    pub beta: f64,
    pub gain: f64, // N
    pub window: usize,
    u: f64,
    last_sample: Option<f64>,
    recent: VecDeque<f64>,
}

impl Default for Instability {
    fn default() -> Self {
        Instability { beta: 0.6, gain: 10.0, window: 10, u: 0.0, last_sample: None, recent: VecDeque::new() }
    }
}

impl Instability {
    /// Take rate sample s_k; returns U_k.
    pub fn update(&mut self, sample: f64) -> f64 {
        if let Some(previous) = self.last_sample {
            self.u = self.beta * self.u + (1.0 - self.beta) * (sample - previous).abs();
        }
        self.last_sample = Some(sample);
        if self.recent.len() == self.window {
            self.recent.pop_front();
        }
        self.recent.push_back(self.u);
        self.u
    }

    /// τ_k for round-trip time `rtt` (seconds).
    pub fn tau(&self, rtt: f64) -> f64 {
        let u_max = self.recent.iter().copied().fold(0.0, f64::max);
        if u_max > 0.0 {
            rtt + self.gain * rtt * self.u / u_max
        } else {
            rtt
        }
    }
}

/// What an estimator needs from one ACK (seconds, segments).
#[derive(Clone, Copy, Debug, Default)]
pub struct AckInput {
    pub now: f64,
    /// Segments credited by the [`AckCounter`].
    pub segments: u32,
    pub srtt: f64,
    pub rtt_min: f64,
    pub cwnd: f64,
}

/// BE: a sample from each ACK pair, d_k/Δt_k, filtered with a fixed τ.
#[derive(Clone, Debug)]
pub struct BandwidthEstimator {
    pub tau: f64,
    pub silent_period: Option<f64>,
    /// A silence's remainder shorter than this (after the whole periods) is not a gap of
    /// its own: the last whole period is (UCLA: 10 ms; the paper profile: 0).
    pub min_remainder: f64,
    pub filter: RateFilter,
    last_ack: Option<f64>,
}

impl BandwidthEstimator {
    pub fn new(tau: f64, silent_period: Option<f64>, tustin: bool) -> BandwidthEstimator {
        BandwidthEstimator {
            tau,
            silent_period,
            min_remainder: 0.0,
            filter: RateFilter { tustin, ..RateFilter::default() },
            last_ack: None,
        }
    }

    /// UCLA's filter 3 (`tcp-westwood-nr.cc`, `bwe_computation`): Tustin on the ACK gap,
    /// one zero sample per τ/2 of silence (a remainder under 10 ms folded into the last
    /// half period), from an estimate of 0 and a previous ACK at time 0.
    pub fn ucla(tau: f64) -> BandwidthEstimator {
        BandwidthEstimator {
            tau,
            silent_period: Some(tau / 2.0),
            min_remainder: 0.01,
            filter: RateFilter::starting_at(0.0, true),
            last_ack: Some(0.0),
        }
    }

    pub fn on_ack(&mut self, ack: &AckInput) -> f64 {
        let Some(last) = self.last_ack.replace(ack.now) else { return self.filter.estimate() };
        let mut dt = ack.now - last;
        if let Some(period) = self.silent_period {
            // One zero sample per whole silent period, then the ACK over what remains.
            let mut idle = (dt / period).floor();
            dt -= idle * period;
            if idle >= 1.0 && (dt <= 0.0 || dt < self.min_remainder) {
                dt = period;
                idle -= 1.0;
            }
            self.filter.zero_samples(idle as u64, period, self.tau);
        }
        if dt <= 0.0 {
            return self.filter.estimate(); // a compressed pair: no usable Δt
        }
        self.filter.update(ack.segments as f64 / dt, dt, self.tau)
    }
}

/// How RE and ABSE read Eqs. 1 and 4–6 (the module header says what each does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// One sample per interval, over the time since the previous one; τ_k from U_{k−1}.
    #[default]
    NonOverlapping,
    /// A trailing window re-read at every ACK, weighted by the ACK gap; τ_k from U_k.
    Literal,
}

crate::schema::named_choice!(Reading, "reading", [NonOverlapping => "non_overlapping", Literal => "literal"]);

/// RE (`interval` None) and ABSE (adaptive interval and τ): data acknowledged over an
/// interval, filtered (Eq. 1). RE's interval is fixed (default the smoothed RTT) and its
/// τ too; ABSE chooses T_k (Eqs. 2–4) and τ_k (Eqs. 5–6) at each ACK.
#[derive(Clone, Debug)]
pub struct IntervalEstimator {
    pub mode: IntervalMode,
    pub reading: Reading,
    pub filter: RateFilter,
    pub instability: Instability,
    last_ack: Option<f64>,
    /// `non_overlapping`: when the current sample began (t_s) and the segments
    /// acknowledged since.
    sample_start: f64,
    sample_segments: u64,
    /// `literal`: the ACKs of the trailing window.
    history: WindowedRate,
    /// The last interval T_k and time constant τ_k used (for tracing).
    pub interval: f64,
    pub tau: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IntervalMode {
    /// RE: a fixed interval (None: the smoothed RTT) and a fixed τ.
    Fixed { interval: Option<f64>, tau: f64 },
    /// ABSE, with T_k clamped to [T_min, RTT] or not.
    Adaptive { clamp: bool },
    /// ABSE's adaptive τ_k with T_k fixed to the last ACK pair (the paper's Fig. 7).
    AckPair,
}

impl IntervalEstimator {
    pub fn new(mode: IntervalMode, reading: Reading) -> IntervalEstimator {
        IntervalEstimator {
            mode,
            reading,
            filter: RateFilter::default(),
            instability: Instability::default(),
            last_ack: None,
            sample_start: 0.0,
            sample_segments: 0,
            history: WindowedRate::default(),
            interval: 0.0,
            tau: 0.0,
        }
    }

    /// T_k for this ACK (Eqs. 2–3 for ABSE), `ack_gap` = Δt_k being T_min.
    fn interval_for(&self, ack: &AckInput, ack_gap: f64) -> f64 {
        match self.mode {
            IntervalMode::Fixed { interval, .. } => interval.unwrap_or(ack.srtt),
            IntervalMode::Adaptive { clamp } => {
                abse_interval(ack.cwnd, self.filter.estimate(), ack.rtt_min, ack.srtt, ack_gap, clamp)
            }
            IntervalMode::AckPair => ack_gap,
        }
    }

    pub fn on_ack(&mut self, ack: &AckInput) -> f64 {
        match self.reading {
            Reading::NonOverlapping => self.on_ack_non_overlapping(ack),
            Reading::Literal => self.on_ack_literal(ack),
        }
    }

    fn on_ack_non_overlapping(&mut self, ack: &AckInput) -> f64 {
        let Some(last) = self.last_ack.replace(ack.now) else {
            self.sample_start = ack.now; // the first sample starts here
            return self.filter.estimate();
        };
        self.sample_segments += ack.segments as u64;
        let interval = self.interval_for(ack, ack.now - last);
        let elapsed = ack.now - self.sample_start;
        // Times are whole nanoseconds; their difference in seconds may round a hair below
        // an interval that has in fact passed.
        if !(elapsed > 0.0) || elapsed + HALF_NS < interval {
            return self.filter.estimate(); // T_k has not passed since the last sample
        }
        let sample = self.sample_segments as f64 / elapsed;
        self.tau = match self.mode {
            IntervalMode::Fixed { tau, .. } => tau,
            IntervalMode::Adaptive { .. } | IntervalMode::AckPair => self.instability.tau(ack.srtt), // U_{k−1}
        };
        let estimate = self.filter.update(sample, elapsed, self.tau);
        if !matches!(self.mode, IntervalMode::Fixed { .. }) {
            self.instability.update(sample); // U_k, for the next sample's τ
        }
        self.interval = interval;
        self.sample_start = ack.now;
        self.sample_segments = 0;
        estimate
    }

    fn on_ack_literal(&mut self, ack: &AckInput) -> f64 {
        self.history.push(ack.now, ack.segments);
        let Some(last) = self.last_ack.replace(ack.now) else { return self.filter.estimate() };
        let dt = ack.now - last;
        let interval = self.interval_for(ack, dt);
        let horizon = match self.mode {
            IntervalMode::Adaptive { .. } => ack.srtt.max(interval),
            _ => interval,
        };
        if !(interval > 0.0) {
            return self.filter.estimate();
        }
        let sample = self.history.rate(ack.now, interval);
        self.history.forget_before(ack.now, horizon);
        self.interval = interval;
        self.tau = match self.mode {
            IntervalMode::Fixed { tau, .. } => tau,
            IntervalMode::Adaptive { .. } | IntervalMode::AckPair => {
                self.instability.update(sample);
                self.instability.tau(ack.srtt)
            }
        };
        self.filter.update(sample, dt, self.tau)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn duplicates_count_one_segment_and_the_cumulative_ack_the_rest() {
        let mut counter = AckCounter::new(None);
        // Segment 0 lost, 1–3 arrive (three duplicates), the resend of 0 arrives: ACK of 4.
        let counts: Vec<u32> = [(0, true), (0, true), (0, true), (4, false)].iter().map(|&(n, d)| counter.count(n, d)).collect();
        assert_eq!(counts, vec![1, 1, 1, 1]); // 4 − 3 already counted
        // Two duplicates, then a cumulative ACK of 5: 5 − 2.
        let counts: Vec<u32> = [(0, true), (0, true), (5, false)].iter().map(|&(n, d)| counter.count(n, d)).collect();
        assert_eq!(counts, vec![1, 1, 3]);
        // Three duplicates, a partial ACK of 2 (fully counted: 1, one duplicate left
        // over), then an ACK of 3: 3 − 1.
        let counts: Vec<u32> =
            [(0, true), (0, true), (0, true), (2, false), (3, false)].iter().map(|&(n, d)| counter.count(n, d)).collect();
        assert_eq!(counts, vec![1, 1, 1, 1, 2]);
        // A delayed ACK of one segment leaves the duplicate credit alone.
        assert_eq!((counter.count(0, true), counter.count(1, false), counter.count(2, false)), (1, 1, 1));
        // UCLA's cap: a cumulative ACK of 5 after a loss counts 2.
        let mut capped = AckCounter::new(Some(2));
        assert_eq!((capped.count(5, false), capped.count(1, false)), (2, 1));
    }

    #[test]
    fn equation_1_filter() {
        // τ = 1 s, Δt = 0.1 s: α = 1.9/2.1.
        let alpha = 1.9 / 2.1;
        let mut filter = RateFilter::default();
        assert_eq!(filter.update(10.0, 0.1, 1.0), 10.0); // the first sample is the estimate
        assert!(close(filter.update(20.0, 0.1, 1.0), alpha * 10.0 + (1.0 - alpha) * 20.0)); // 10.952381
        let mut tustin = RateFilter { tustin: true, ..RateFilter::default() };
        tustin.update(10.0, 0.1, 1.0);
        assert!(close(tustin.update(20.0, 0.1, 1.0), alpha * 10.0 + (1.0 - alpha) * 15.0)); // 10.476190
        // Δt = 3 s > 2τ: α = −1/5 would overshoot to 22; clamped, the sample is taken.
        let mut long_gap = RateFilter::default();
        long_gap.update(10.0, 0.1, 1.0);
        assert_eq!(long_gap.update(20.0, 3.0, 1.0), 20.0);
        let mut unclamped = RateFilter { clamp_gain: false, ..RateFilter::default() };
        unclamped.update(10.0, 0.1, 1.0);
        assert!(close(unclamped.update(20.0, 3.0, 1.0), -0.2 * 10.0 + 1.2 * 20.0));
    }

    fn ack(now: f64, segments: u32) -> AckInput {
        AckInput { now, segments, srtt: 0.1, rtt_min: 0.08, cwnd: 20.0 }
    }

    /// A compressed ACK train (three ACKs 1 ms apart after 100 ms of silence): BE samples
    /// 1 segment / 1 ms = 1000 segments/s, RE over T = 100 ms sees 3 / 0.1 = 30.
    #[test]
    fn a_compressed_ack_train_inflates_be_not_re() {
        let train = [ack(0.0, 1), ack(0.1, 1), ack(0.101, 1), ack(0.102, 1)];
        let mut be = BandwidthEstimator::new(1.0, None, false);
        let be_estimates: Vec<f64> = train.iter().map(|a| be.on_ack(a)).collect();
        // samples 10, 1000, 1000 (segments/s); α = (2 − Δt)/(2 + Δt)
        let a2 = 1.999 / 2.001;
        let second = a2 * 10.0 + (1.0 - a2) * 1000.0;
        assert!(close(be_estimates[1], 10.0) && close(be_estimates[2], second), "{be_estimates:?}");
        assert!(close(be_estimates[3], a2 * second + (1.0 - a2) * 1000.0));
        let mut re = IntervalEstimator::new(IntervalMode::Fixed { interval: None, tau: 1.0 }, Reading::Literal);
        let re_estimates: Vec<f64> = train.iter().map(|a| re.on_ack(a)).collect();
        // RE samples: (0.0, 0.1] holds the ACK at 0.1 → 10; then 2 → 20; then 3 → 30.
        let first = 10.0;
        let second = a2 * first + (1.0 - a2) * 20.0;
        assert!(close(re_estimates[1], first) && close(re_estimates[2], second), "{re_estimates:?}");
        assert!(close(re_estimates[3], a2 * second + (1.0 - a2) * 30.0));
        // From the same start (10), BE moved ≈ 66 times further than RE towards the train's rate.
        assert!(be_estimates[3] - 10.0 > 30.0 * (re_estimates[3] - 10.0));
    }

    #[test]
    fn silent_periods_feed_zero_samples() {
        let mut be = BandwidthEstimator::new(1.0, Some(0.5), false);
        be.on_ack(&ack(0.0, 1));
        assert_eq!(be.on_ack(&ack(0.1, 1)), 10.0);
        // 1.2 s of silence: zero samples at 0.5 and 0.5 (α = 0.6 each), then 1/0.2 = 5.
        let after = be.on_ack(&ack(1.3, 1));
        let alpha = |dt: f64| (2.0 - dt) / (2.0 + dt);
        let expected = alpha(0.2) * (alpha(0.5) * alpha(0.5) * 10.0) + (1.0 - alpha(0.2)) * 5.0;
        assert!(close(after, expected), "{after} vs {expected}");
    }

    #[test]
    fn abse_interval_equations_2_and_3() {
        // ŝ·RTTmin = 100 × 0.1 = 10 < cwnd 20: T = 0.12 × (20 − 10)/20 = 0.06.
        assert!(close(abse_interval(20.0, 100.0, 0.1, 0.12, 0.001, true), 0.06));
        // No congestion (ŝ·RTTmin ≥ cwnd): T_min.
        assert_eq!(abse_interval(10.0, 100.0, 0.1, 0.12, 0.001, true), 0.001);
        // Nearly uncongested: 0.12 × 0.1/20 = 0.0006 < T_min 0.001 → clamped to T_min.
        assert_eq!(abse_interval(20.0, 199.0, 0.1, 0.12, 0.001, true), 0.001);
        assert!(close(abse_interval(20.0, 199.0, 0.1, 0.12, 0.001, false), 0.0006));
        // An estimate of 0: the whole RTT.
        assert!(close(abse_interval(20.0, 0.0, 0.1, 0.12, 0.001, true), 0.12));
    }

    #[test]
    fn instability_and_tau_equations_5_and_6() {
        let mut instability = Instability::default();
        assert_eq!(instability.tau(0.1), 0.1); // U_max = 0: τ = RTT
        assert_eq!(instability.update(10.0), 0.0);
        assert!(close(instability.update(20.0), 0.4 * 10.0)); // 4
        assert!(close(instability.update(15.0), 0.6 * 4.0 + 0.4 * 5.0)); // 4.4, the largest so far
        assert!(close(instability.tau(0.1), 0.1 + 10.0 * 0.1)); // U = U_max: τ = 11 RTT
        assert!(close(instability.update(15.0), 0.6 * 4.4)); // 2.64
        assert!(close(instability.tau(0.1), 0.1 + 10.0 * 0.1 * 2.64 / 4.4));
        // U_max covers the 10 most recent U: after 10 more equal samples U = 2.64·0.6^10
        // and U_max = 2.64·0.6 (the 4.4 has left), so τ = RTT + N·RTT·0.6^9.
        for _ in 0..10 {
            instability.update(15.0);
        }
        assert!(close(instability.tau(0.1), 0.1 + 10.0 * 0.1 * 0.6f64.powi(9)));
    }

    /// Fig. 7's estimator: T_k = the last ACK pair, so each sample is BE's d_k/Δt_k, and
    /// τ_k adapts: with steady samples U stays 0 and τ_k = RTT (SRTT 0.12).
    #[test]
    fn ack_pair_sampling_with_adaptive_tau() {
        let mut pair = IntervalEstimator::new(IntervalMode::AckPair, Reading::Literal);
        let stream = [ack(0.0, 1), ack(0.01, 1), ack(0.02, 1), ack(0.03, 2)];
        let estimates: Vec<f64> = stream.iter().map(|a| pair.on_ack(&AckInput { srtt: 0.12, ..*a })).collect();
        assert_eq!(&estimates[..3], &[0.0, 100.0, 100.0]); // samples 1/0.01 = 100
        assert_eq!(pair.tau, 0.12 + 10.0 * 0.12); // then 200: U jumps to its own maximum
        let alpha = (2.0 * pair.tau - 0.01) / (2.0 * pair.tau + 0.01);
        assert!(close(estimates[3], alpha * 100.0 + (1.0 - alpha) * 200.0));
    }

    /// ABSE on a steady stream of 1 segment every 10 ms (100 segments/s) with cwnd = 20,
    /// RTTmin 0.1, SRTT 0.12: the estimate settles at 100; then ŝ·RTTmin = 10 < 20 and
    /// T_k = 0.12 × (20 − 10)/20 = 0.06. Both readings agree on a steady stream.
    #[test]
    fn abse_tracks_a_steady_rate() {
        for reading in [Reading::NonOverlapping, Reading::Literal] {
            let mut abse = IntervalEstimator::new(IntervalMode::Adaptive { clamp: true }, reading);
            let mut estimate = 0.0;
            for k in 0..400 {
                estimate = abse.on_ack(&AckInput { now: k as f64 * 0.01, segments: 1, srtt: 0.12, rtt_min: 0.1, cwnd: 20.0 });
            }
            assert!((estimate - 100.0).abs() < 1.0, "{reading:?}: {estimate}");
            assert!((abse.interval - 0.06).abs() < 0.001, "{reading:?}: {}", abse.interval);
            assert!(abse.tau >= 0.12, "{reading:?}: τ_k ≥ RTT: {}", abse.tau);
        }
    }

    /// Clustered ACKs: a burst of 5 ACKs (1 segment each, 1 ms apart) every 100 ms, i.e.
    /// 50 segments/s, sampled over T = 50 ms with τ = 1 s.
    fn bursts(count: usize) -> Vec<AckInput> {
        (0..count).flat_map(|b| (0..5).map(move |k| ack(b as f64 * 0.1 + k as f64 * 0.001, 1))).collect()
    }

    /// Bias 1, overlapping samples (Eq. 4 re-read at every ACK). Literal: the first ACK
    /// of a burst sees only itself in (t − 50 ms, t]: 1/0.05 = 20 segments/s, weighted by
    /// the 96-ms gap before it, while the burst's 40, 60, 80, 100 weigh 1 ms each; the
    /// estimate settles near (20·0.096 + 280·0.001)/0.1 = 22, under half the true 50.
    /// Non-overlapping: a sample closes at the first ACK 50 ms after the previous one,
    /// i.e. at each burst's first ACK, and holds the 5 segments since: 5/0.1 = 50 exactly.
    #[test]
    fn overlapping_samples_underestimate_clustered_acks() {
        let re = |reading| IntervalEstimator::new(IntervalMode::Fixed { interval: Some(0.05), tau: 1.0 }, reading);
        let stream = bursts(300);
        let mut literal = re(Reading::Literal);
        let literal_estimates: Vec<f64> = stream.iter().map(|a| literal.on_ack(a)).collect();
        // By hand: no sample at the first ACK; then (t − 0.05, t] holds 2 ACKs → 40
        // (the first estimate), then 3 → 60 weighted by α = (2 − 0.001)/(2 + 0.001).
        let alpha = 1.999 / 2.001;
        assert_eq!(literal_estimates[0], 0.0);
        assert!(close(literal_estimates[1], 40.0));
        assert!(close(literal_estimates[2], alpha * 40.0 + (1.0 - alpha) * 60.0));
        let settled = *literal_estimates.last().unwrap();
        assert!(settled > 20.0 && settled < 25.0, "literal: {settled}");
        let mut fixed = re(Reading::NonOverlapping);
        let fixed_estimates: Vec<f64> = stream.iter().map(|a| fixed.on_ack(a)).collect();
        assert_eq!(&fixed_estimates[..5], &[0.0; 5]); // the first burst: no 50 ms yet
        assert!(close(fixed_estimates[5], 50.0)); // at 0.1: 5 segments over 0.1 s
        assert!(fixed_estimates[5..].iter().all(|&e| close(e, 50.0)), "{fixed_estimates:?}");
        assert_eq!(fixed.interval, 0.05);
    }

    /// Bias 2, τ_k seeing the sample it weights (Eqs. 5–6). A steady 128 segments/s (one
    /// per 1/128 s, binary fractions so every sample is exact; T_k the ACK pair) keeps
    /// U = 0 and τ = RTT = 0.1 s; then an ACK 1/256 s later, a jump to 256. The estimate
    /// moves by 128·(1 − α_k) = 128·2Δ/(2τ + Δ) = 1/(2τ + Δ). Literal: U_k = 0.4 × 128 is
    /// its own maximum, τ_k = 0.1 + 10 × 0.1 = 1.1 and it moves 1/2.2039 = 0.454. Non-
    /// overlapping: τ_k = RTT from U_{k−1} = 0, and it moves 1/0.2039 = 4.90, eleven
    /// times as far; U takes the jump after (the next sample's τ is 1.1).
    #[test]
    fn tau_from_past_samples_lets_a_jump_in() {
        let step = 1.0 / 128.0;
        let mut moved = Vec::new();
        for reading in [Reading::Literal, Reading::NonOverlapping] {
            let mut pair = IntervalEstimator::new(IntervalMode::AckPair, reading);
            for k in 0..50 {
                pair.on_ack(&ack(k as f64 * step, 1));
            }
            assert_eq!(pair.filter.estimate(), 128.0, "{reading:?}");
            assert_eq!(pair.instability.tau(0.1), 0.1, "{reading:?}: U = 0, τ = RTT");
            let after = pair.on_ack(&ack(49.5 * step, 1)); // 1 segment 1/256 s later: 256/s
            moved.push(after - 128.0);
            if reading == Reading::NonOverlapping {
                assert_eq!(pair.tau, 0.1);
                assert!(close(pair.instability.tau(0.1), 1.1)); // U_k = U_max now
            } else {
                assert!(close(pair.tau, 1.1));
            }
        }
        let half_step = step / 2.0;
        assert!(close(moved[0], 1.0 / (2.2 + half_step)), "literal {moved:?}");
        assert!(close(moved[1], 1.0 / (0.2 + half_step)), "non-overlapping {moved:?}");
    }

    /// With T_k no longer than any ACK gap, every ACK closes a sample d_k/Δt_k weighted
    /// by Δt_k: the non-overlapping sampler is BE, bit for bit, on any stream.
    #[test]
    fn non_overlapping_sampling_over_every_ack_gap_is_be() {
        let mut re = IntervalEstimator::new(IntervalMode::Fixed { interval: Some(1e-9), tau: 1.0 }, Reading::NonOverlapping);
        let mut be = BandwidthEstimator::new(1.0, None, false);
        let mut now = 0.0;
        for k in 0u32..2000 {
            now += [0.0003, 0.001, 0.0917, 0.004, 0.25][(k % 5) as usize] * (1.0 + (k % 7) as f64 / 10.0);
            let a = ack(now, 1 + k % 3);
            assert_eq!(re.on_ack(&a).to_bits(), be.on_ack(&a).to_bits(), "ACK {k}");
        }
    }

    /// UCLA's accounting keeps one duplicate's credit back: three duplicates and a
    /// cumulative ACK of 3 (all counted) leave 1 (Linux: 0); the cap 2 applies after.
    #[test]
    fn ucla_ack_counting() {
        let mut ucla = AckCounter { counting: AckCounting::Ucla, ..AckCounter::new(Some(2)) };
        let counts: Vec<u32> = [(0, true), (0, true), (0, true), (3, false), (3, false)].iter().map(|&(n, d)| ucla.count(n, d)).collect();
        assert_eq!(counts, vec![1, 1, 1, 1, 2]); // the second ACK of 3: 3 − 1 left = 2
        let mut linux = AckCounter::new(Some(2));
        let counts: Vec<u32> = [(0, true), (0, true), (0, true), (3, false), (3, false)].iter().map(|&(n, d)| linux.count(n, d)).collect();
        assert_eq!(counts, vec![1, 1, 1, 1, 2]); // 3 with nothing left: capped at 2
        let mut linux = AckCounter::new(None);
        let mut ucla = AckCounter { counting: AckCounting::Ucla, ..AckCounter::new(None) };
        for counter in [&mut linux, &mut ucla] {
            for _ in 0..3 {
                counter.count(0, true);
            }
            counter.count(3, false);
        }
        assert_eq!((linux.count(4, false), ucla.count(4, false)), (4, 3));
    }

    /// UCLA's filter 3 by hand (τ = 1 s, Tustin, from 0 with the previous ACK at t = 0):
    /// an ACK at 0.8 s is one idle half period (a zero sample: 0·3/5 + 0/5 = 0) and a
    /// 0.3-s gap: 0 + (1/0.3 + 0)/(2/0.3 + 1); then 10 ms later (2τ/Δ = 200):
    /// e·199/201 + (100 + 1/0.3)/201. A silence of 1.005 s: two half periods, the 5 ms
    /// left is under 10 ms so the last half period is the gap: one zero sample (e·3/5 +
    /// 100/5), then Δ = 0.5: e·3/5 + (2 + 0)/5.
    #[test]
    fn ucla_filter_by_hand() {
        let mut ucla = BandwidthEstimator::ucla(1.0);
        let first = ucla.on_ack(&ack(0.8, 1));
        let e1 = (1.0 / 0.3) / (2.0 / 0.3 + 1.0);
        assert!(close(first, e1), "{first} vs {e1}");
        let second = ucla.on_ack(&ack(0.81, 1));
        let e2 = e1 * 199.0 / 201.0 + (100.0 + 1.0 / 0.3) / 201.0;
        assert!(close(second, e2), "{second} vs {e2}");
        let third = ucla.on_ack(&ack(1.815, 1));
        let e3 = (e2 * 3.0 / 5.0 + 100.0 / 5.0) * 3.0 / 5.0 + 2.0 / 5.0;
        assert!(close(third, e3), "{third} vs {e3}");
    }
}
