//! A controller an agent drives between steps: `cc = { algorithm = "agent", mode = ... }`.
//! The engine runs in Rust from one monitor interval to the next
//! ([`crate::Simulation::run_until`]); between intervals the environment sets the
//! controller's decision ([`crate::Simulation::act`]), in one of the action forms the
//! learned congestion-control literature uses:
//!
//! - `rate` — Aurora (Jay et al., ICML 2019, PCC-RL `network_sim.py`): a paced sending
//!   rate changed multiplicatively, x ← x·(1 + δa) for a ≥ 0, x ← x/(1 − δa) for a < 0
//!   (δ = `rate_step`, 0.025 as Aurora's `DELTA_SCALE`), clamped to [`min_rate`,
//!   `max_rate`]; the window is `max_cwnd` (no window: the rate alone limits the flow);
//! - `multiplier` — Orca (Abbasloo et al., SIGCOMM 2020): the base algorithm (`base`,
//!   CUBIC by default) runs per ACK; an action a sets cwnd ← 2^a · cwnd once, and the base
//!   goes on from there;
//! - `cwnd` — a window in segments, held until the next action (losses do not cut it;
//!   after a timeout the sender's one-segment loss window holds until the next new ACK,
//!   RFC 5681's rule, which is the sender's, not the algorithm's);
//! - `pacing` — a pacing rate in bits per second (of packets on the wire), held until the
//!   next action; the window is `max_cwnd`.
//!
//! Without actions (a scenario run directly) the controller keeps its initial decision:
//! `cwnd`, `rate`, or the base algorithm unchanged. It also keeps what the environment
//! observes of each interval ([`Interval`]: every ACK's RTT sample, ECN-Echo, what it
//! acknowledged), which [`crate::Simulation::monitor`] reads with the sender's counters.
//! In `multiplier` mode every hook goes to the base algorithm unchanged, so a flow whose
//! multiplier is never set (or set to 0) runs exactly as the base alone does.
use super::{
    AckSample, Algorithm, CcConfig, CongestionControl, CongestionEvent, Controller, RateSample, Reduction, Window,
};
use crate::sim::{Rate, Time};
use serde::{Deserialize, Serialize};

/// How the environment's action sets the decision (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentMode {
    /// Aurora's multiplicative rate change.
    #[default]
    Rate,
    /// Orca's multiplier 2^a on a base algorithm's window.
    Multiplier,
    /// A direct window, segments.
    Cwnd,
    /// A direct pacing rate, bits per second.
    Pacing,
}

crate::schema::named_choice!(AgentMode, "mode", [Rate => "rate", Multiplier => "multiplier", Cwnd => "cwnd", Pacing => "pacing"]);

/// Largest window the agent may set, segments (the sender's `max_window` caps it too).
const CWND_LIMIT: f64 = 1e7;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// What an action sets: "rate" (Aurora's multiplicative change), "multiplier" (Orca's
    /// 2^a on `base`'s window), "cwnd" (a window) or "pacing" (a pacing rate).
    #[serde(default)]
    pub mode: AgentMode,
    /// `multiplier` mode: the algorithm whose window the action multiplies (default
    /// "cubic"); any built-in window-based algorithm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Box<CcConfig>>,
    /// `cwnd` mode: the window until the first action, segments (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd: Option<f64>,
    /// `rate` and `pacing` modes: the rate until the first action (default "1Mbps").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// `rate` mode: Aurora's δ (default 0.025).
    #[serde(default = "default_rate_step")]
    pub rate_step: f64,
    /// Rates are clamped to [min_rate, max_rate] (default 64kbps and 100Gbps).
    #[serde(default = "default_min_rate")]
    pub min_rate: Rate,
    /// See `min_rate`.
    #[serde(default = "default_max_rate")]
    pub max_rate: Rate,
    /// Windows are clamped to [1, max_cwnd]; the window of the rate modes (default 1e6).
    #[serde(default = "default_max_cwnd")]
    pub max_cwnd: f64,
}

fn default_rate_step() -> f64 {
    0.025
}
fn default_min_rate() -> Rate {
    Rate(64_000)
}
fn default_max_rate() -> Rate {
    Rate(100_000_000_000)
}
fn default_max_cwnd() -> f64 {
    1e6
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            mode: AgentMode::Rate,
            base: None,
            cwnd: None,
            rate: None,
            rate_step: default_rate_step(),
            min_rate: default_min_rate(),
            max_rate: default_max_rate(),
            max_cwnd: default_max_cwnd(),
        }
    }
}

impl Algorithm for AgentConfig {
    type Controller = Agent;

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let num = crate::schema::Num;
        if let Some(base) = &self.base {
            if self.mode != AgentMode::Multiplier {
                return Err(("base", format!("is for mode = \"multiplier\" only (this agent's mode is {:?})", self.mode_name())));
            }
            if matches!(**base, CcConfig::Agent(_) | CcConfig::External(_)) {
                return Err(("base", format!("{:?} cannot be a base: name a built-in algorithm such as \"cubic\"", base.name())));
            }
        }
        if self.cwnd.is_some() && self.mode != AgentMode::Cwnd {
            return Err(("cwnd", format!("is for mode = \"cwnd\" only (this agent's mode is {:?})", self.mode_name())));
        }
        if self.rate.is_some() && !matches!(self.mode, AgentMode::Rate | AgentMode::Pacing) {
            return Err(("rate", format!("is for mode = \"rate\" or \"pacing\" only (this agent's mode is {:?})", self.mode_name())));
        }
        if !(self.max_cwnd >= 1.0 && self.max_cwnd <= CWND_LIMIT) {
            return Err(("max_cwnd", format!("{} is outside [1, 1e7] segments", num(self.max_cwnd))));
        }
        if let Some(cwnd) = self.cwnd {
            if !(cwnd >= 1.0 && cwnd <= self.max_cwnd) {
                return Err(("cwnd", format!("{} is outside [1, max_cwnd = {}] segments", num(cwnd), num(self.max_cwnd))));
            }
        }
        if !(self.rate_step > 0.0 && self.rate_step <= 1.0) {
            return Err(("rate_step", format!("{} is outside (0, 1]", num(self.rate_step))));
        }
        if self.min_rate > self.max_rate {
            return Err(("min_rate", format!("{} is above max_rate ({})", self.min_rate, self.max_rate)));
        }
        if let Some(rate) = self.rate {
            if rate < self.min_rate || rate > self.max_rate {
                return Err(("rate", format!("{rate} is outside [min_rate, max_rate] = [{}, {}]", self.min_rate, self.max_rate)));
            }
        }
        Ok(())
    }

    fn build(&self) -> Agent {
        let base = match self.mode {
            AgentMode::Multiplier => {
                let base = self.base.as_deref().cloned().unwrap_or(CcConfig::Cubic(Default::default()));
                Some(Box::new(base.build()))
            }
            _ => None,
        };
        Agent {
            mode: self.mode,
            base,
            cwnd: self.cwnd.unwrap_or(10.0),
            rate_bps: self.rate.unwrap_or(Rate(1_000_000)).bps() as f64,
            rate_step: self.rate_step,
            min_bps: self.min_rate.bps() as f64,
            max_bps: self.max_rate.bps() as f64,
            max_cwnd: self.max_cwnd,
            segment_bits: 8.0 * 1500.0,
            interval: Interval::default(),
            actions: 0,
        }
    }
}

impl AgentConfig {
    fn mode_name(&self) -> &'static str {
        match self.mode {
            AgentMode::Rate => "rate",
            AgentMode::Multiplier => "multiplier",
            AgentMode::Cwnd => "cwnd",
            AgentMode::Pacing => "pacing",
        }
    }
}

/// What the ACKs of one monitor interval said (reset when read).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// ACKs the sender accepted (duplicates included), and those carrying ECN-Echo.
    pub acks: u64,
    pub ece_acks: u64,
    /// RTT samples (Karn's rule applied): their count, sum, least and latest, ns.
    pub rtt_samples: u64,
    pub rtt_sum: f64,
    pub rtt_min: Time,
    pub rtt_latest: Option<Time>,
}

impl Default for Interval {
    fn default() -> Self {
        Interval { acks: 0, ece_acks: 0, rtt_samples: 0, rtt_sum: 0.0, rtt_min: Time::MAX, rtt_latest: None }
    }
}

impl Interval {
    #[inline]
    fn record(&mut self, ack: &AckSample) {
        self.acks += 1;
        self.ece_acks += ack.ece as u64;
        if let Some(rtt) = ack.rtt {
            self.rtt_samples += 1;
            self.rtt_sum += rtt as f64;
            self.rtt_min = self.rtt_min.min(rtt);
            self.rtt_latest = Some(rtt);
        }
    }
}

/// The controller (see the module docs).
pub struct Agent {
    mode: AgentMode,
    /// `multiplier` mode's base algorithm.
    base: Option<Box<Controller>>,
    /// `cwnd` mode's window, segments.
    cwnd: f64,
    /// `rate` and `pacing` modes' rate, bits per second on the wire.
    rate_bps: f64,
    rate_step: f64,
    min_bps: f64,
    max_bps: f64,
    max_cwnd: f64,
    /// Bits of a data segment on the wire (its pacing rate is in segments per second).
    segment_bits: f64,
    interval: Interval,
    actions: u64,
}

impl Agent {
    /// Data segments carry `bytes` on the wire (told once, when the sender is made).
    pub fn set_segment_bytes(&mut self, bytes: u32) {
        self.segment_bits = 8.0 * bytes.max(1) as f64;
    }

    pub fn mode(&self) -> AgentMode {
        self.mode
    }

    /// The rate of the rate modes, bits per second.
    pub fn rate_bps(&self) -> Option<f64> {
        matches!(self.mode, AgentMode::Rate | AgentMode::Pacing).then_some(self.rate_bps)
    }

    /// Actions taken so far.
    pub fn actions(&self) -> u64 {
        self.actions
    }

    /// What the interval's ACKs said since the last call; starts the next interval.
    pub fn take_interval(&mut self) -> Interval {
        std::mem::take(&mut self.interval)
    }

    /// The environment's action `value` (its meaning is the mode's: see the module docs),
    /// applied to `window` at once. Returns whether the window grew (the sender should
    /// then try to send), or an error naming what is wrong with the value.
    pub fn act(&mut self, window: &mut Window, value: f64) -> Result<bool, String> {
        if !value.is_finite() {
            return Err(format!("action {value} is not a finite number"));
        }
        let before = window.cwnd;
        match self.mode {
            AgentMode::Rate => {
                let delta = value * self.rate_step;
                let rate = if delta >= 0.0 { self.rate_bps * (1.0 + delta) } else { self.rate_bps / (1.0 - delta) };
                self.rate_bps = rate.clamp(self.min_bps, self.max_bps);
                window.cwnd = self.max_cwnd;
            }
            AgentMode::Pacing => {
                if value <= 0.0 {
                    return Err(format!("pacing rate {value} bits/s is not positive"));
                }
                self.rate_bps = value.clamp(self.min_bps, self.max_bps);
                window.cwnd = self.max_cwnd;
            }
            AgentMode::Cwnd => {
                if value < 1.0 {
                    return Err(format!("window {value} is below one segment"));
                }
                self.cwnd = value.min(self.max_cwnd);
                window.cwnd = self.cwnd;
            }
            AgentMode::Multiplier => {
                if value.abs() > 64.0 {
                    return Err(format!("multiplier exponent {value} is outside [-64, 64]"));
                }
                if value != 0.0 {
                    window.cwnd = (window.cwnd * value.exp2()).clamp(1.0, self.max_cwnd);
                }
            }
        }
        self.actions += 1;
        Ok(window.cwnd > before)
    }

    /// The window the agent holds (not in `multiplier` mode: the base's own).
    #[inline]
    fn held_window(&self) -> f64 {
        match self.mode {
            AgentMode::Cwnd => self.cwnd,
            _ => self.max_cwnd,
        }
    }
}

/// Dispatch to the base algorithm in `multiplier` mode, else do `$own`.
macro_rules! base_or {
    ($self:ident, $base:ident => $call:expr, $own:expr) => {
        match $self.base.as_deref_mut() {
            Some($base) => $call,
            None => $own,
        }
    };
}

impl CongestionControl for Agent {
    fn label(&self) -> String {
        match (&self.mode, &self.base) {
            (AgentMode::Multiplier, Some(base)) => format!("agent:multiplier({})", base.label()),
            (AgentMode::Rate, _) => "agent:rate".into(),
            (AgentMode::Pacing, _) => "agent:pacing".into(),
            _ => "agent:cwnd".into(),
        }
    }

    #[inline]
    fn on_ack_event(&mut self, window: &Window, ack: &AckSample) {
        self.interval.record(ack);
        if let Some(base) = self.base.as_deref_mut() {
            base.on_ack_event(window, ack);
        }
    }

    fn pkts_acked(&mut self, window: &mut Window, ack: &AckSample) {
        self.interval.record(ack);
        if let Some(base) = self.base.as_deref_mut() {
            base.pkts_acked(window, ack);
        }
    }

    #[inline]
    fn on_ack(&mut self, window: &mut Window, ack: &AckSample) {
        base_or!(self, base => base.on_ack(window, ack), window.cwnd = self.held_window())
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        let held = self.held_window();
        base_or!(self, base => base.on_congestion(window, event), Reduction { ssthresh: held, cwnd: held })
    }

    fn on_recovery_end(&mut self, window: &mut Window, now: Time) {
        base_or!(self, base => base.on_recovery_end(window, now), window.cwnd = self.held_window())
    }

    fn on_round(&mut self, window: &mut Window, now: Time) {
        if let Some(base) = self.base.as_deref_mut() {
            base.on_round(window, now);
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        match &self.base {
            Some(base) => base.state(out),
            None if self.mode == AgentMode::Cwnd => out.push(("agent_cwnd", self.cwnd)),
            None => out.push(("agent_rate_bps", self.rate_bps)),
        }
    }

    fn wants_rate_samples(&self) -> bool {
        self.base.as_ref().is_some_and(|b| b.wants_rate_samples())
    }

    fn on_rate_sample(&mut self, window: &mut Window, sample: &RateSample) {
        if let Some(base) = self.base.as_deref_mut() {
            base.on_rate_sample(window, sample);
        }
    }

    fn controls_window(&self) -> bool {
        self.base.as_ref().map_or(true, |b| b.controls_window())
    }

    fn paces(&self) -> bool {
        match &self.base {
            Some(base) => base.paces(),
            None => matches!(self.mode, AgentMode::Rate | AgentMode::Pacing),
        }
    }

    fn pacing_rate(&self) -> Option<f64> {
        match &self.base {
            Some(base) => base.pacing_rate(),
            None => self.rate_bps().map(|bps| bps / self.segment_bits),
        }
    }

    fn set_seed(&mut self, seed: u64) {
        if let Some(base) = self.base.as_deref_mut() {
            base.set_seed(seed);
        }
    }

    fn use_linux_rules(&mut self, linux: super::LinuxSocket) {
        if let Some(base) = self.base.as_deref_mut() {
            base.use_linux_rules(linux);
        }
    }

    fn on_loss_state(&mut self, window: &mut Window, now: Time) {
        if let Some(base) = self.base.as_deref_mut() {
            base.on_loss_state(window, now);
        }
    }

    fn undo_cwnd(&mut self, window: &Window, prior_cwnd: f64) -> f64 {
        let held = self.held_window();
        base_or!(self, base => base.undo_cwnd(window, prior_cwnd), held)
    }

    fn on_tx_start(&mut self, window: &mut Window, now: Time, idle: Time) {
        if let Some(base) = self.base.as_deref_mut() {
            base.on_tx_start(window, now, idle);
        }
    }

    fn min_tso_segs(&self) -> Option<u32> {
        self.base.as_ref().and_then(|b| b.min_tso_segs())
    }

    fn marks_app_limited(&self) -> bool {
        self.base.as_ref().is_some_and(|b| b.marks_app_limited())
    }

    fn on_loss_totals(&mut self, delivered: u64, lost: u64) {
        if let Some(base) = self.base.as_deref_mut() {
            base.on_loss_totals(delivered, lost);
        }
    }

    fn on_established(&mut self, window: &mut Window, now: Time, rtt: Option<Time>, srtt: Option<f64>) {
        if let Some(base) = self.base.as_deref_mut() {
            base.on_established(window, now, rtt, srtt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcConfig;

    fn parse(json: &str) -> Result<CcConfig, String> {
        crate::schema::deserialize_with_path::<CcConfig, _>(serde_json::from_str::<serde_json::Value>(json).unwrap())
    }

    fn agent(json: &str) -> Agent {
        match parse(json).unwrap().build() {
            Controller::Agent(agent) => agent,
            _ => panic!("not an agent"),
        }
    }

    #[test]
    fn declarations_parse_and_bad_ones_name_the_field() {
        let config = parse(r#"{"algorithm": "agent", "mode": "multiplier", "base": "reno"}"#).unwrap();
        assert_eq!(config.label(), "agent:multiplier(reno)");
        assert_eq!(parse(r#"{"algorithm": "agent"}"#).unwrap().label(), "agent:rate");
        for (json, needle) in [
            (r#"{"algorithm": "agent", "mode": "window"}"#, "mode"),
            (r#"{"algorithm": "agent", "mode": "cwnd", "base": "reno"}"#, "base"),
            (r#"{"algorithm": "agent", "mode": "multiplier", "base": {"algorithm": "agent"}}"#, "base"),
            (r#"{"algorithm": "agent", "mode": "cwnd", "cwnd": 0.5}"#, "cwnd"),
            (r#"{"algorithm": "agent", "mode": "rate", "cwnd": 5}"#, "cwnd"),
            (r#"{"algorithm": "agent", "mode": "cwnd", "rate": "1Mbps"}"#, "rate"),
            (r#"{"algorithm": "agent", "rate_step": 0}"#, "rate_step"),
            (r#"{"algorithm": "agent", "min_rate": "2Mbps", "max_rate": "1Mbps"}"#, "min_rate"),
            (r#"{"algorithm": "agent", "rate": "1kbps"}"#, "rate"),
            (r#"{"algorithm": "agent", "max_cwnd": 0}"#, "max_cwnd"),
            (r#"{"algorithm": "agent", "speed": 3}"#, "speed"),
        ] {
            let error = parse(json).expect_err(json);
            assert!(error.contains(needle), "{json}: {error}");
        }
    }

    /// Aurora's rule: +δa multiplies, −δa divides, so a and −a undo each other; rates
    /// stay within their bounds; the window is max_cwnd.
    #[test]
    fn aurora_rate_change_is_multiplicative_and_clamped() {
        let mut a = agent(r#"{"algorithm": "agent", "mode": "rate", "rate": "10Mbps", "max_rate": "20Mbps"}"#);
        a.set_segment_bytes(1250); // 10 kbit a segment
        let mut window = Window { cwnd: 2.0, ssthresh: 1e9 };
        assert_eq!(a.pacing_rate(), Some(1000.0));
        assert!(a.act(&mut window, 4.0).unwrap(), "the window opens to max_cwnd");
        assert_eq!(window.cwnd, 1e6);
        assert!((a.rate_bps().unwrap() - 11e6).abs() < 1e-6); // × (1 + 0.025·4)
        a.act(&mut window, -4.0).unwrap();
        assert!((a.rate_bps().unwrap() - 10e6).abs() < 1e-6); // ÷ (1 + 0.1)
        for _ in 0..100 {
            a.act(&mut window, 40.0).unwrap();
        }
        assert_eq!(a.rate_bps(), Some(20e6));
        for _ in 0..1000 {
            a.act(&mut window, -40.0).unwrap();
        }
        assert_eq!(a.rate_bps(), Some(64e3));
        assert!(a.act(&mut window, f64::NAN).unwrap_err().contains("finite"));
    }

    /// Orca's rule: cwnd × 2^a once; the base algorithm then grows it per ACK as usual.
    #[test]
    fn multiplier_scales_the_base_window_once() {
        let mut a = agent(r#"{"algorithm": "agent", "mode": "multiplier", "base": "reno"}"#);
        let mut window = Window { cwnd: 10.0, ssthresh: 5.0 };
        assert!(a.act(&mut window, 1.0).unwrap());
        assert_eq!(window.cwnd, 20.0);
        assert!(!a.act(&mut window, -2.0).unwrap());
        assert_eq!(window.cwnd, 5.0);
        // Reno's congestion avoidance: +1/cwnd per segment acknowledged.
        a.on_ack(&mut window, &AckSample { segments_acked: 1, ..Default::default() });
        assert!((window.cwnd - 5.2).abs() < 1e-12, "{}", window.cwnd);
        assert!(!a.act(&mut window, 0.0).unwrap());
        assert!((window.cwnd - 5.2).abs() < 1e-12);
        assert!(a.act(&mut window, 65.0).is_err());
    }

    /// A direct window holds through ACKs, losses and the end of recovery.
    #[test]
    fn direct_window_holds() {
        let mut a = agent(r#"{"algorithm": "agent", "mode": "cwnd", "cwnd": 12}"#);
        let mut window = Window { cwnd: 2.0, ssthresh: 1e9 };
        a.on_ack(&mut window, &AckSample { segments_acked: 1, ..Default::default() });
        assert_eq!(window.cwnd, 12.0);
        a.act(&mut window, 30.0).unwrap();
        let event = CongestionEvent {
            now: 0,
            signal: crate::cc::CongestionSignal::FastRetransmit,
            flight_size: 30,
            in_slow_start: false,
            first_reduction: true,
            integer_ssthresh: false,
        };
        assert_eq!(a.on_congestion(&window, &event), Reduction { ssthresh: 30.0, cwnd: 30.0 });
        window.cwnd = 1.0; // a timeout's loss window
        a.on_recovery_end(&mut window, 0);
        assert_eq!(window.cwnd, 30.0);
        assert!(a.controls_window() && !a.paces());
        assert!(a.act(&mut window, 0.5).is_err());
    }

    /// The interval keeps ACK and RTT statistics until read.
    #[test]
    fn interval_counts_acks_rtts_and_marks() {
        let mut a = agent(r#"{"algorithm": "agent", "mode": "pacing", "rate": "5Mbps"}"#);
        let window = Window { cwnd: 2.0, ssthresh: 1e9 };
        for (rtt, ece) in [(Some(30), false), (None, true), (Some(10), false), (Some(20), true)] {
            a.on_ack_event(&window, &AckSample { rtt, ece, ..Default::default() });
        }
        let interval = a.take_interval();
        assert_eq!((interval.acks, interval.ece_acks, interval.rtt_samples), (4, 2, 3));
        assert_eq!((interval.rtt_sum, interval.rtt_min, interval.rtt_latest), (60.0, 10, Some(20)));
        assert_eq!(a.take_interval(), Interval::default());
    }
}
