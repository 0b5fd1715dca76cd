//! TCP Prague (RFC 9331 §4's requirements for L4S senders; after L4STeam's
//! `net/ipv4/tcp_prague.c`, read, not copied): DCTCP's scalable response on an L4S path.
//!
//! **L4S packets and AccECN.** Prague declares [`EcnUse::L4s`]: its data carries ECT(1)
//! (DualPI2 queues it in the L queue) and its receiver counts CE marks on every ACK,
//! so the sender sees each mark ([`AckSample::ce_marked`]), not RFC 3168's one ECE per
//! window.
//!
//! **α per round** (the kernel's `prague_update_alpha`): once per round trip (the data
//! in flight at its start delivered), α ← (1 − g)·α + g·F with F the fraction of the
//! round's delivered segments that were CE-marked (g = 1/16, α from 1), and only once
//! a mark proved an AQM on the path (`saw_ce`).
//!
//! **The window.** Growth counts only unmarked segments (`acked − ce_marked`): slow
//! start by one per segment, then `ai`/cwnd per segment (`ai_ack_increase`). At most
//! once per window of data with new marks (the sender's reduction, Linux's CWR state),
//! cwnd ← cwnd·(1 − α/2) and ssthresh ← cwnd (`prague_enter_cwr`); a loss halves
//! (`prague_enter_loss`); never below 2 segments.
//!
//! **RTT independence** (`rtt_scaling`, the kernel's `prague_rtt_scaling`, default
//! `"rate"`): after `rtt_transition` rounds out of slow start (500), a flow with
//! SRTT below `rtt_target` (25 ms) grows by (SRTT/target)² per round instead of one
//! segment, so it gains rate as a flow at the target RTT would; α is then updated and
//! cwnd cut at most once per target RTT. `"scalable"` and `"additive"` are the
//! kernel's other heuristics; `"none"` turns it off. SRTTs above 100 ms are not scaled.
//!
//! **Pacing** (`prague_update_pacing_rate`): cwnd/SRTT, doubled while cwnd is below
//! half of ssthresh.
//!
//! **Classic-ECN fallback** (`ecn_fallback`, the kernel's `prague_ecn_fallback = 1`;
//! off by default as there): each round a score moves by ½·log₂(mdev/750 µs) and,
//! when positive, by ½·log₂(queue depth/2 ms) (depth = SRTT − min RTT, both from slow
//! EWMAs of the per-ACK RTT whose gain follows ssthresh), clamped to [0, 17]; above 8
//! the cut uses max(α, 0.625·min(score − 8, 1)), competing with classic flows in a
//! classic ECN queue.
//!
//! Deltas from tcp_prague.c: floating point for α (the kernel's 20-bit fixed point),
//! for the fractional window (`frac_cwnd`, here the sender's f64 cwnd), and for the
//! fallback's logarithms (the kernel's integer logs with carried remainders); the cut is
//! applied at once (the kernel walks cwnd down one segment per ACK); RTTs in ns (the
//! kernel's 128-µs units); no GSO burst sizing (the simulator sends single segments);
//! the round ends by the delivered count (the kernel's by snd_nxt); the increase does not
//! check that the window limits the sender (`tcp_is_cwnd_limited`); AccECN is assumed
//! negotiated (no fall back to `prague-reno`). Under the `linux` profile the same rules
//! run (mainline has no tcp_prague.c), the linux sender's PRR walking cwnd down to the
//! cut; that pairing is less tested (one run: Prague 6.6, CUBIC 12.6 Mb/s on the 20-Mb/s
//! DualPI2 link where the default profile gives 11.1 and 8.1).
use super::{AckSample, Algorithm, CongestionControl, CongestionEvent, CongestionSignal, EcnUse, Reduction, Window};
use crate::schema::Num;
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};

crate::schema::named_choice!(RttScaling, "rtt_scaling", [None => "none", Rate => "rate", Scalable => "scalable", Additive => "additive"]);

/// How Prague makes its growth independent of its RTT (`prague_rtt_scaling`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RttScaling {
    /// RTT_CONTROL_NONE: one segment per round, as DCTCP.
    None,
    /// RTT_CONTROL_RATE: flows below the target RTT get a target-RTT flow's rate.
    #[default]
    Rate,
    /// RTT_CONTROL_SCALABLE: at least 1/8 segment per round, R0 16.384 ms, R1 1.536 ms.
    Scalable,
    /// RTT_CONTROL_ADDITIVE: behave as if the target were added to the RTT.
    Additive,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PragueConfig {
    /// The EWMA gain g (`PRAGUE_SHIFT_G` 4: 1/16).
    pub g: f64,
    /// α before the first update (the kernel: 1).
    pub initial_alpha: f64,
    /// RTT independence heuristic (`prague_rtt_scaling`, default "rate").
    pub rtt_scaling: RttScaling,
    /// Its target RTT (`prague_rtt_target`, 25 ms).
    pub rtt_target: Duration,
    /// Rounds after slow start before it applies (`prague_rtt_transition`, 500).
    pub rtt_transition: u32,
    /// Classic-ECN detection and fallback (`prague_ecn_fallback` 1; the kernel's default 0).
    pub ecn_fallback: bool,
    /// Pace at cwnd/SRTT (Prague always does; off only for comparison).
    pub pacing: bool,
}

impl Default for PragueConfig {
    fn default() -> Self {
        PragueConfig {
            g: 1.0 / 16.0,
            initial_alpha: 1.0,
            rtt_scaling: RttScaling::Rate,
            rtt_target: Duration::from_millis(25),
            rtt_transition: 500,
            ecn_fallback: false,
            pacing: true,
        }
    }
}

impl Algorithm for PragueConfig {
    /// ns-2.35 predates TCP Prague.
    fn in_ns2(&self) -> bool {
        false
    }
    type Controller = Prague;

    /// ECT(1) and AccECN (RFC 9331 §4.1–4.2).
    fn ecn(&self) -> EcnUse {
        EcnUse::L4s
    }

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", format!("{} is outside (0, 1]", Num(self.g))));
        }
        if !(0.0..=1.0).contains(&self.initial_alpha) {
            return Err(("initial_alpha", format!("{} is outside [0, 1]", Num(self.initial_alpha))));
        }
        let target = self.rtt_target.ns();
        if target == 0 || target > 10_000_000_000 {
            return Err(("rtt_target", format!("{} is not a duration in (0s, 10s]", self.rtt_target)));
        }
        Ok(())
    }

    fn build(&self) -> Prague {
        Prague {
            g: self.g,
            scaling: self.rtt_scaling,
            target: self.rtt_target.ns(),
            transition: self.rtt_transition,
            fallback: self.ecn_fallback,
            pacing: self.pacing,
            alpha: self.initial_alpha,
            saw_ce: false,
            round_end: 0,
            round_acked: 0,
            round_marked: 0,
            round: 0,
            alpha_stamp: 0,
            cwr_stamp: None,
            ai: 1.0,
            window: Window { cwnd: 0.0, ssthresh: f64::INFINITY },
            srtt: None,
            detector: ClassicEcnDetector::default(),
        }
    }
}

/// Reference mdev (750 µs) and queue depth (2 ms) of the classic-ECN score, and its
/// bands (in α units): pure L4S up to 8, classic from 9, at most 17.
const V0_US: f64 = 750.0;
const D0_US: f64 = 2000.0;
const L_STICKY: f64 = 8.0;
const CLASSIC_ECN: f64 = L_STICKY + 1.0;
const C_STICKY: f64 = CLASSIC_ECN + L_STICKY;
/// The kernel's largest shift of the slow RTT averages.
const MAX_SRTT_SHIFT: u32 = 18;
/// SRTTs above this are not scaled (`MAX_SCALED_RTT`).
const MAX_SCALED_RTT: f64 = 0.1;

/// The classic-ECN score and the slow RTT averages it reads
/// (`prague_classic_ecn_detection`, `prague_rtt_estimator`).
#[derive(Clone, Debug)]
pub struct ClassicEcnDetector {
    pub score: f64,
    /// µs; None before the first sample.
    srtt: Option<f64>,
    mdev: f64,
    min_rtt: f64,
    /// The averages' gain is 2^−shift (mdev's 2^−(shift+1)), set from ssthresh.
    shift: u32,
}

impl Default for ClassicEcnDetector {
    fn default() -> Self {
        ClassicEcnDetector { score: 0.0, srtt: None, mdev: 1.0, min_rtt: f64::INFINITY, shift: MAX_SRTT_SHIFT }
    }
}

impl ClassicEcnDetector {
    /// A per-ACK RTT sample, µs.
    pub fn sample(&mut self, rtt_us: f64) {
        self.min_rtt = self.min_rtt.min(rtt_us);
        match self.srtt {
            None => self.srtt = Some(rtt_us),
            Some(srtt) => {
                let error = rtt_us - srtt;
                self.srtt = Some(srtt + error / (1u64 << self.shift) as f64);
                self.mdev += (error.abs() - self.mdev) / (1u64 << (self.shift + 1)) as f64;
            }
        }
    }

    /// The gain follows the window (`prague_update_rtt_scaling`): ⌊log₂ ssthresh⌋·1.5 + 1.
    pub fn set_shift(&mut self, ssthresh: f64) {
        let lg = (ssthresh.max(1.0).min(4e9) as u64).ilog2();
        self.shift = (lg + lg / 2 + 1).min(MAX_SRTT_SHIFT);
    }

    /// Once per round: the score moves with the RTT's variation and the standing queue.
    pub fn update(&mut self) {
        let Some(srtt) = self.srtt else { return };
        let mut score = self.score + 0.5 * (self.mdev.max(1.0) / V0_US).log2();
        if srtt > self.min_rtt {
            let depth = 0.5 * ((srtt - self.min_rtt).max(1.0) / D0_US).log2();
            score += depth.max(0.0);
        }
        self.score = score.clamp(0.0, C_STICKY);
    }

    /// The α a cut uses: no less than 0.625 of how classic the path looks.
    pub fn alpha(&self, alpha: f64) -> f64 {
        if self.score <= L_STICKY {
            return alpha;
        }
        alpha.max((self.score.min(CLASSIC_ECN) - L_STICKY) * 0.625)
    }
}

#[derive(Clone, Debug)]
pub struct Prague {
    g: f64,
    scaling: RttScaling,
    /// The RTT-independence target, ns.
    target: Time,
    transition: u32,
    fallback: bool,
    pacing: bool,
    pub alpha: f64,
    /// A CE mark has been seen (an AQM is on the path): α is updated only then.
    saw_ce: bool,
    /// The delivered count that ends the round, and what it delivered and had marked.
    round_end: u64,
    round_acked: u64,
    round_marked: u64,
    /// Rounds since slow start ended.
    pub round: u32,
    alpha_stamp: Time,
    cwr_stamp: Option<Time>,
    /// The growth per round in segments (1 unscaled; `ai_ack_increase`).
    pub ai: f64,
    /// The window as last seen (for the pacing rate).
    window: Window,
    /// SRTT, ns.
    srtt: Option<f64>,
    pub detector: ClassicEcnDetector,
}

impl Prague {
    fn in_slow_start(&self) -> bool {
        self.window.cwnd < self.window.ssthresh
    }

    /// RTT independence applies (`prague_is_rtt_indep`).
    fn rtt_independent(&self) -> bool {
        self.scaling != RttScaling::None && !self.in_slow_start() && self.round >= self.transition
    }

    /// The growth per round for this SRTT (`prague_ai_ack_increase` and the heuristics).
    fn ai_increase(&self) -> f64 {
        let Some(srtt) = self.srtt else { return 1.0 };
        let rtt = srtt / 1e9;
        if self.round < self.transition || rtt <= 0.0 || rtt > MAX_SCALED_RTT {
            return 1.0;
        }
        let target = self.target as f64 / 1e9;
        match self.scaling {
            RttScaling::None => 1.0,
            RttScaling::Rate if rtt >= target => 1.0,
            RttScaling::Rate => (rtt / target).powi(2),
            RttScaling::Additive => (rtt / (target + rtt)).powi(2),
            RttScaling::Scalable => {
                let (r0, r1) = (0.016_384, 0.001_536);
                (r0 / 8.0 + (rtt - r1).clamp(0.0, r0)) * rtt / (r0 * r0)
            }
        }
    }

    /// The round is over: α from its marked fraction (once an AQM showed itself), then a
    /// new round (`prague_update_alpha`, `prague_new_round`).
    fn end_round(&mut self, ack: &AckSample) {
        if self.saw_ce {
            if self.fallback {
                self.detector.update();
            }
            let fraction = self.round_marked as f64 / self.round_acked.max(1) as f64;
            self.alpha = ((1.0 - self.g) * self.alpha + self.g * fraction.min(1.0)).min(1.0);
            self.alpha_stamp = ack.now;
        }
        self.round_end = ack.delivered + (ack.in_flight as u64).max(1);
        self.round_acked = 0;
        self.round_marked = 0;
        if !self.in_slow_start() {
            self.round = self.round.saturating_add(1);
        }
        self.ai = self.ai_increase();
    }
}

impl CongestionControl for Prague {
    fn label(&self) -> String {
        "prague".into()
    }

    fn on_ack_event(&mut self, window: &Window, ack: &AckSample) {
        self.window = *window;
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        if let (true, Some(rtt)) = (self.fallback, ack.rtt) {
            self.detector.sample(rtt as f64 / 1e3);
        }
        self.saw_ce |= ack.ce_marked > 0;
        self.round_acked += (ack.segments_acked + ack.segments_sacked) as u64;
        self.round_marked += ack.ce_marked as u64;
        let elapsed = ack.delivered >= self.round_end;
        let may_update = !self.rtt_independent() || ack.now.saturating_sub(self.alpha_stamp) >= self.target;
        if elapsed && may_update {
            self.end_round(ack);
        }
    }

    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        // Only unmarked segments grow the window (`prague_update_cwnd`).
        let mut acked = (ack.segments_acked + ack.segments_sacked) as f64 - ack.ce_marked as f64;
        if acked > 0.0 && window.cwnd < window.ssthresh {
            let room = window.ssthresh - window.cwnd;
            let step = acked.min(room);
            window.cwnd += step;
            acked -= step;
        }
        if acked > 0.0 {
            window.cwnd += acked * self.ai / window.cwnd.max(1.0);
        }
        self.window = *window;
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let cwnd = window.cwnd;
        let reduction = match event.signal {
            CongestionSignal::EcnEcho => {
                let held = self.cwr_stamp.is_some_and(|at| event.now.saturating_sub(at) < self.target);
                if self.rtt_independent() && held {
                    // At most one cut per target RTT.
                    return Reduction { ssthresh: window.ssthresh, cwnd };
                }
                self.cwr_stamp = Some(event.now);
                let alpha = if self.fallback { self.detector.alpha(self.alpha) } else { self.alpha };
                let cut = (cwnd * (1.0 - alpha / 2.0)).max(2.0);
                Reduction { ssthresh: cut, cwnd: cut }
            }
            CongestionSignal::FastRetransmit | CongestionSignal::Timeout => {
                let half = (cwnd / 2.0).max(2.0);
                Reduction { ssthresh: half, cwnd: half }
            }
        };
        if self.fallback {
            self.detector.set_shift(reduction.ssthresh);
        }
        self.window = Window { cwnd: reduction.cwnd, ssthresh: reduction.ssthresh };
        reduction
    }

    fn paces(&self) -> bool {
        self.pacing
    }

    /// cwnd/SRTT segments per second, twice that while cwnd < ssthresh/2.
    fn pacing_rate(&self) -> Option<f64> {
        let srtt = self.srtt.filter(|&s| s > 0.0)?;
        let gain = if self.window.cwnd < self.window.ssthresh / 2.0 { 2.0 } else { 1.0 };
        Some(gain * self.window.cwnd.max(1.0) / (srtt / 1e9))
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("ai", self.ai));
        out.push(("round", self.round as f64));
        if self.fallback {
            out.push(("classic_ecn", self.detector.score));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now: Time, acked: u32, marked: u32, delivered: u64, in_flight: u32) -> AckSample {
        AckSample { now, segments_acked: acked, ce_marked: marked, delivered, in_flight, srtt: Some(20e6), ..Default::default() }
    }

    fn ecn_event(now: Time) -> CongestionEvent {
        CongestionEvent {
            now,
            signal: CongestionSignal::EcnEcho,
            flight_size: 10,
            in_slow_start: false,
            first_reduction: false,
            integer_ssthresh: false,
        }
    }

    /// α stays at 1 until a mark is seen; a round of 10 with 4 marked gives
    /// 15/16 + 0.4/16; the next clean round 15/16 of that. A cut by α/2 follows.
    #[test]
    fn alpha_is_the_per_round_marked_fraction() {
        let mut prague = PragueConfig::default().build();
        let w = Window { cwnd: 40.0, ssthresh: 20.0 };
        prague.on_ack_event(&w, &ack(0, 0, 0, 0, 10)); // first round ends at 10; no CE yet
        assert_eq!(prague.alpha, 1.0);
        for k in 1..=10u64 {
            prague.on_ack_event(&w, &ack(k, 1, (k <= 4) as u32, k, 10));
        }
        let after = 15.0 / 16.0 + 0.4 / 16.0;
        assert!((prague.alpha - after).abs() < 1e-12, "{}", prague.alpha);
        for k in 11..=20u64 {
            prague.on_ack_event(&w, &ack(k, 1, 0, k, 10));
        }
        assert!((prague.alpha - after * 15.0 / 16.0).abs() < 1e-12);
        let r = prague.on_congestion(&w, &ecn_event(100));
        assert!((r.cwnd - 40.0 * (1.0 - prague.alpha / 2.0)).abs() < 1e-9 && r.ssthresh == r.cwnd);
        let loss = CongestionEvent { signal: CongestionSignal::FastRetransmit, ..ecn_event(200) };
        assert_eq!(prague.on_congestion(&w, &loss).cwnd, 20.0);
    }

    /// Marked segments do not grow the window; unmarked grow it by ai/cwnd each, and
    /// RTT independence (after the transition) scales ai by (SRTT/target)².
    #[test]
    fn growth_counts_unmarked_segments_and_scales_with_rtt() {
        let mut prague = PragueConfig { rtt_transition: 0, ..Default::default() }.build();
        let mut w = Window { cwnd: 10.0, ssthresh: 5.0 };
        prague.on_ack(&mut w, &ack(0, 2, 2, 0, 0));
        assert_eq!(w.cwnd, 10.0);
        prague.on_ack(&mut w, &ack(0, 2, 1, 0, 0));
        assert!((w.cwnd - 10.1).abs() < 1e-12);
        // a round ends out of slow start: ai = (20 ms / 25 ms)² = 0.64
        prague.on_ack_event(&w, &ack(1_000_000_000, 1, 0, 1, 10));
        assert!((prague.ai - 0.64).abs() < 1e-12, "{}", prague.ai);
        let none = PragueConfig { rtt_scaling: RttScaling::None, rtt_transition: 0, ..Default::default() }.build();
        assert_eq!(none.ai_increase(), 1.0);
    }

    /// Once RTT-independent (out of slow start, after the transition), a second CE
    /// reduction within the target RTT (25 ms) of the last is skipped; before, every
    /// reduction the sender asks for cuts.
    #[test]
    fn rtt_independence_spaces_the_cuts() {
        let w = Window { cwnd: 40.0, ssthresh: 20.0 };
        let mut early = PragueConfig::default().build(); // round 0 < 500
        early.window = w;
        early.alpha = 0.5;
        assert_eq!(early.on_congestion(&w, &ecn_event(0)).cwnd, 30.0);
        assert_eq!(early.on_congestion(&w, &ecn_event(10_000_000)).cwnd, 30.0);
        let mut late = PragueConfig { rtt_transition: 0, ..Default::default() }.build();
        late.window = w;
        late.alpha = 0.5;
        assert_eq!(late.on_congestion(&w, &ecn_event(0)).cwnd, 30.0);
        late.window = w;
        let held = late.on_congestion(&w, &ecn_event(10_000_000));
        assert_eq!((held.cwnd, held.ssthresh), (40.0, 20.0), "within 25 ms: no cut");
        late.window = w;
        assert_eq!(late.on_congestion(&w, &ecn_event(25_000_000)).cwnd, 30.0);
    }

    /// The pacing rate is cwnd/SRTT, doubled below half of ssthresh.
    #[test]
    fn pacing_rate_follows_the_window() {
        let mut prague = PragueConfig::default().build();
        prague.on_ack_event(&Window { cwnd: 20.0, ssthresh: 10.0 }, &ack(0, 0, 0, 0, 1));
        assert_eq!(prague.pacing_rate(), Some(1000.0)); // 20 segments / 20 ms
        prague.on_ack_event(&Window { cwnd: 20.0, ssthresh: 100.0 }, &ack(0, 0, 0, 0, 1));
        assert_eq!(prague.pacing_rate(), Some(2000.0));
    }

    /// A jittery, deep queue drives the classic-ECN score up past 8, after which cuts use
    /// at least 0.625·min(score − 8, 1); a smooth, shallow one keeps it at 0.
    #[test]
    fn classic_ecn_detection_raises_the_cut() {
        let mut classic = ClassicEcnDetector::default();
        classic.set_shift(16.0); // ⌊log₂16⌋ = 4: shift 4 + 2 + 1 = 7
        assert_eq!(classic.shift, 7);
        for k in 0..20_000u32 {
            // 20 ms base, a 15-ms queue that swings by ±5 ms
            classic.sample(20_000.0 + 15_000.0 + if k % 2 == 0 { 5_000.0 } else { -5_000.0 });
            if k == 0 {
                classic.sample(20_000.0);
            }
            if k % 50 == 0 {
                classic.update();
            }
        }
        assert!(classic.score > CLASSIC_ECN, "{}", classic.score);
        assert_eq!(classic.alpha(0.1), 0.625);
        let mut l4s = ClassicEcnDetector::default();
        l4s.set_shift(16.0);
        for k in 0..20_000u32 {
            l4s.sample(20_000.0 + (k % 3) as f64 * 100.0);
            if k % 50 == 0 {
                l4s.update();
            }
        }
        assert_eq!(l4s.score, 0.0);
        assert_eq!(l4s.alpha(0.1), 0.1);
    }

    #[test]
    fn bad_parameters_are_named() {
        for (config, field) in [
            (PragueConfig { g: 0.0, ..Default::default() }, "g"),
            (PragueConfig { initial_alpha: 1.5, ..Default::default() }, "initial_alpha"),
            (PragueConfig { rtt_target: Duration::from_millis(0), ..Default::default() }, "rtt_target"),
        ] {
            assert_eq!(config.validate().unwrap_err().0, field);
        }
    }
}
