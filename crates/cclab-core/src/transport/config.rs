//! TCP parameters. Defaults follow ns-2.35's `Agent/TCP/Sack1` + `Agent/TCPSink/Sack1`
//! (see docs/ns2-defaults.md); where cclab differs it says so here. The behaviours follow
//! the RFCs unless `profile = "ns2"` (see [`super::ns2`]).
use super::ns2::{Ns2Rules, Ns2Switches};
use super::profile::{ProfileDefaults, TcpProfile};
use crate::sim::Duration;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// SACK-based loss recovery, RFC 6675 (ns-2 `Sack1` is the closest agent).
    #[default]
    Sack,
    /// NewReno, RFC 6582 (ns-2 `Newreno`); the receiver sends no SACK blocks.
    Newreno,
}

crate::schema::named_choice!(Recovery, "recovery", [Sack => "sack", Newreno => "newreno"]);

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Loss recovery: "sack" (RFC 6675, the default) or "newreno" (RFC 6582).
    pub recovery: Recovery,
    /// Initial congestion window in segments (ns-2 `windowInit_ 2`; linux 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<f64>,
    /// Receiver-advertised window cap in segments. ns-2's default `window_ 20` silently
    /// caps throughput; cclab defaults to effectively unlimited.
    pub max_window: u32,
    /// Initial ssthresh in segments (ns-2 `ssthresh_ 0` = unlimited).
    pub initial_ssthresh: f64,
    /// RFC 6298 initial RTO (ns-2 `rtxcur_init_ 3.0`; linux 1 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Duration>,
    /// Lower bound on the RTO (ns-2 `minrto_ 0.2`).
    pub min_rto: Duration,
    /// Upper bound on the RTO (ns-2 `maxrto_ 60`; linux 120 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Duration>,
    /// Clock granularity G of RFC 6298 (ns-2 `tcpTick_ 0.01`; linux one jiffy, 4 ms,
    /// to which its timers round up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Duration>,
    /// Largest RTO back-off multiplier (ns-2 `maxbackoff_ 64`).
    pub max_backoff: u32,
    /// Duplicate ACKs that trigger fast retransmit (ns-2 `numdupacks_ 3`).
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit: a new segment for each of the first dupacks (ns-2 `singledup_ 1`).
    pub limited_transmit: bool,
    /// Send a 40-byte SYN-like packet first and start data only once it is ACKed
    /// (ns-2 `syn_ true`, `delay_growth_ true`).
    pub syn: bool,
    /// Receiver ACKs every second segment or after `delayed_ack_timeout` (ns-2 DelAck
    /// sink; linux: on, with Linux's quick-ACK and ATO rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// With `delayed_ack`, the longest a receiver holds an ACK back (ns-2 DelAck sink:
    /// 100 ms; linux: the ATO it starts from, TCP_ATO_MIN = 40 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_timeout: Option<Duration>,
    /// Mark data ECT and react to ECN-Echo once per window (RFC 3168).
    pub ecn: bool,
    /// Set from the algorithm (not a scenario field): an L4S flow, ECT(1) and AccECN
    /// ([`crate::cc::EcnUse::L4s`]).
    #[serde(skip)]
    pub l4s: bool,
    /// linux profile: the socket paces whatever its algorithm (Linux's `sk_pacing_status`
    /// set: the fq qdisc, or a socket created under BBR and switched to another algorithm,
    /// as iperf3 does when BBR is the default), at 200 % of cwnd/SRTT in early slow
    /// start and 120 % after; BBR always paces.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pacing: bool,
    /// Whose rules: "rfc" (the default), "ns2" (ns-2.35's Sack1 agent and sink) or
    /// "linux" (Linux 6.x); a scenario's top-level `profile` sets it for groups that do
    /// not. The profile also gives the defaults above marked ns-2/linux.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<TcpProfile>,
    /// The ns-2 behaviours one by one (unset ones follow `profile`).
    pub ns2: Ns2Switches,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            recovery: Recovery::Sack,
            initial_window: None,
            max_window: 1_000_000,
            initial_ssthresh: 1e9,
            initial_rto: None,
            min_rto: Duration::from_millis(200),
            max_rto: None,
            granularity: None,
            max_backoff: 64,
            dupack_threshold: 3,
            limited_transmit: true,
            syn: true,
            delayed_ack: None,
            delayed_ack_timeout: None,
            ecn: false,
            l4s: false,
            pacing: false,
            profile: None,
            ns2: Ns2Switches::default(),
        }
    }
}

impl TcpConfig {
    /// The profile this flow follows (rfc until normalisation fills it in).
    pub fn profile(&self) -> TcpProfile {
        self.profile.unwrap_or_default()
    }
    fn defaults(&self) -> ProfileDefaults {
        self.profile().defaults()
    }
    pub fn initial_window(&self) -> f64 {
        self.initial_window.unwrap_or_else(|| self.defaults().initial_window)
    }
    pub fn initial_rto(&self) -> Duration {
        self.initial_rto.unwrap_or_else(|| self.defaults().initial_rto)
    }
    pub fn max_rto(&self) -> Duration {
        self.max_rto.unwrap_or_else(|| self.defaults().max_rto)
    }
    pub fn granularity(&self) -> Duration {
        self.granularity.unwrap_or_else(|| self.defaults().granularity)
    }
    pub fn delayed_ack(&self) -> bool {
        self.delayed_ack.unwrap_or_else(|| self.defaults().delayed_ack)
    }
    pub fn delayed_ack_timeout(&self) -> Duration {
        self.delayed_ack_timeout.unwrap_or_else(|| self.defaults().delayed_ack_timeout)
    }

    /// The ns-2 behaviours this sender and its sink follow.
    pub fn ns2_rules(&self) -> Ns2Rules {
        let mut rules = self.ns2.rules(self.profile.unwrap_or_default());
        // each agent's recovery applies to its own kind only (as `normalize` writes them)
        rules.sack1_recovery &= self.recovery == Recovery::Sack;
        rules.newreno_recovery &= self.recovery == Recovery::Newreno;
        rules
    }

    /// Fill in the profile (the scenario's when the group gives none) and every ns-2
    /// switch from it, so the normalised scenario shows them; Sack1's recovery does not
    /// apply to NewReno, nor Newreno's to SACK.
    pub fn normalize(&mut self, scenario_profile: TcpProfile) -> Result<(), (&'static str, String)> {
        let profile = *self.profile.get_or_insert(scenario_profile);
        // The profile's defaults, written out (normalised scenarios show every value).
        let defaults = profile.defaults();
        self.initial_window.get_or_insert(defaults.initial_window);
        self.initial_rto.get_or_insert(defaults.initial_rto);
        self.max_rto.get_or_insert(defaults.max_rto);
        self.granularity.get_or_insert(defaults.granularity);
        self.delayed_ack.get_or_insert(defaults.delayed_ack);
        self.delayed_ack_timeout.get_or_insert(defaults.delayed_ack_timeout);
        if self.recovery == Recovery::Newreno {
            if self.ns2.sack1_recovery == Some(true) {
                return Err(("ns2.sack1_recovery", "true: Sack1's recovery needs recovery = \"sack\"".into()));
            }
            self.ns2.sack1_recovery = Some(false);
        } else {
            if self.ns2.newreno_recovery == Some(true) {
                return Err(("ns2.newreno_recovery", "true: Newreno's recovery needs recovery = \"newreno\"".into()));
            }
            self.ns2.newreno_recovery = Some(false);
        }
        self.ns2 = self.ns2.resolved(profile);
        Ok(())
    }

    /// Cross-field checks; Err((field, message)).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.initial_window() >= 1.0 && self.initial_window().is_finite()) {
            return Err(("initial_window", format!("{} is below 1 segment", crate::schema::Num(self.initial_window()))));
        }
        if self.max_window < 1 {
            return Err(("max_window", "0 is below 1 segment".into()));
        }
        if self.initial_window() > self.max_window as f64 {
            return Err(("initial_window", format!("{} is above max_window ({})", crate::schema::Num(self.initial_window()), self.max_window)));
        }
        if !(self.initial_ssthresh >= 2.0) {
            return Err(("initial_ssthresh", format!("{} is below 2 segments", crate::schema::Num(self.initial_ssthresh))));
        }
        // A timer shorter than this fires again before anything can answer it: the sender
        // would time out continuously (and the run would not end).
        let shortest = Duration::from_millis(1);
        for (field, value) in [("max_rto", self.max_rto()), ("initial_rto", self.initial_rto())] {
            if value < shortest {
                return Err((field, format!("{value} is below 1ms, the shortest retransmission timer cclab takes")));
            }
        }
        if self.min_rto > self.max_rto() {
            return Err(("min_rto", format!("{} is above max_rto {}", self.min_rto, self.max_rto())));
        }
        if self.initial_rto() > self.max_rto() {
            return Err(("initial_rto", format!("{} is above max_rto {}", self.initial_rto(), self.max_rto())));
        }
        if !(1..=1_000_000).contains(&self.max_backoff) {
            return Err(("max_backoff", format!("{} is not in [1, 1000000]", self.max_backoff)));
        }
        if !(1..=1_000_000).contains(&self.dupack_threshold) {
            return Err(("dupack_threshold", format!("{} is not in [1, 1000000]", self.dupack_threshold)));
        }
        if self.pacing && self.profile() != TcpProfile::Linux {
            return Err(("pacing", format!("true: the sender paces every algorithm only under profile = \"linux\", not {:?}", self.profile().name())));
        }
        if self.delayed_ack() && self.delayed_ack_timeout() == Duration::ZERO {
            return Err(("delayed_ack_timeout", "must be > 0".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected_field(config: &TcpConfig) -> Option<&'static str> {
        config.validate().err().map(|(name, _)| name)
    }

    fn with(change: impl FnOnce(&mut TcpConfig)) -> TcpConfig {
        let mut config = TcpConfig::default();
        change(&mut config);
        config
    }

    /// Each check at its boundary: the closed end accepted, one step beyond rejected with
    /// the field named.
    #[test]
    fn validate_takes_each_bound_as_stated() {
        let ms = Duration::from_millis;
        let just_under_1ms = Duration(999_999);
        let cases: Vec<(&str, TcpConfig, TcpConfig)> = vec![
            ("initial_window", with(|c| c.initial_window = Some(1.0)), with(|c| c.initial_window = Some(0.999))),
            ("initial_window", with(|c| c.initial_window = Some(1.0)), with(|c| c.initial_window = Some(f64::NAN))),
            ("max_window", with(|c| (c.max_window, c.initial_window) = (1, Some(1.0))), with(|c| c.max_window = 0)),
            ("initial_window", with(|c| (c.max_window, c.initial_window) = (4, Some(4.0))),
             with(|c| (c.max_window, c.initial_window) = (4, Some(4.5)))),
            ("initial_ssthresh", with(|c| c.initial_ssthresh = 2.0), with(|c| c.initial_ssthresh = 1.999)),
            ("initial_ssthresh", with(|c| c.initial_ssthresh = 2.0), with(|c| c.initial_ssthresh = f64::NAN)),
            ("max_rto", with(|c| (c.max_rto, c.min_rto, c.initial_rto) = (Some(ms(1)), ms(1), Some(ms(1)))),
             with(|c| (c.max_rto, c.min_rto, c.initial_rto) = (Some(just_under_1ms), ms(0), Some(ms(0))))),
            ("initial_rto", with(|c| c.initial_rto = Some(ms(1))), with(|c| c.initial_rto = Some(just_under_1ms))),
            ("min_rto", with(|c| c.min_rto = c.max_rto()), with(|c| c.min_rto = Duration(c.max_rto().0 + 1))),
            ("initial_rto", with(|c| c.initial_rto = Some(c.max_rto())), with(|c| c.initial_rto = Some(Duration(c.max_rto().0 + 1)))),
            ("max_backoff", with(|c| c.max_backoff = 1), with(|c| c.max_backoff = 0)),
            ("max_backoff", with(|c| c.max_backoff = 1_000_000), with(|c| c.max_backoff = 1_000_001)),
            ("dupack_threshold", with(|c| c.dupack_threshold = 1), with(|c| c.dupack_threshold = 0)),
            ("dupack_threshold", with(|c| c.dupack_threshold = 1_000_000), with(|c| c.dupack_threshold = 1_000_001)),
            ("delayed_ack_timeout", with(|c| c.delayed_ack_timeout = Some(Duration::ZERO)),
             with(|c| (c.delayed_ack, c.delayed_ack_timeout) = (Some(true), Some(Duration::ZERO)))),
        ];
        for (field, accepted, rejected) in cases {
            assert_eq!(rejected_field(&accepted), None, "{field}: {accepted:?}");
            assert_eq!(rejected_field(&rejected), Some(field), "{field}: {rejected:?}");
        }
    }
}
