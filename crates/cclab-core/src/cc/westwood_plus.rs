//! TCP Westwood+ as Linux's `net/ipv4/tcp_westwood.c` does it today (Mascolo, Grieco et
//! al.; read, not copied): Reno, with a bandwidth estimate taken once per round trip.
//!
//! - Every ACK adds the segments it reports (duplicates 1, the next cumulative ACK the
//!   rest: [`AckCounter`]) to the current sample; when more than max(RTT, 50 ms) has passed
//!   since the sample began (RTT = the latest RTT sample), the sample bk/Δ enters two
//!   cascaded 7/8 filters (the first sample fills both) and a new one begins. The ACK that
//!   closes a sample counts towards the next, as in Linux.
//! - RTTmin is the smallest RTT sample, restarted from the next sample after an RTO.
//! - Entering loss recovery halves as Reno; when recovery ends (Linux
//!   `CA_EVENT_COMPLETE_CWR`) cwnd = ssthresh = max(2, BWE·RTTmin/MSS); after an RTO
//!   ssthresh = max(2, BWE·RTTmin/MSS) (`CA_EVENT_LOSS`), cwnd 1.
//!
//! `kernel = "2.6.22"` follows instead the older copy that ns-2.35's `Agent/TCP/Linux`
//! carries (tcp/linux/src/tcp_westwood.c, from Linux 2.6.22.6): the RTT and RTTmin are
//! the smoothed RTT (`tp->srtt >> 3`), not the latest sample, and `min_cwnd` keeps cwnd at
//! BWE·RTTmin or above during loss recovery (rate-halving stops there), so recovery
//! starts at max(cwnd/2, BWE·RTTmin) rather than at Reno's half.
//!
//! Differences from Linux, by construction of cclab's sender: an ECN-Echo sets
//! cwnd = ssthresh = max(2, BWE·RTTmin) at once (Linux halves, then sets them when the
//! CWR state ends); Linux's fast path credits the snd_una advance without the duplicate
//! credit, this file always uses the ACK counter; arithmetic is in floating point, not
//! bytes per jiffy.
use super::estimators::AckCounter;
use super::reno::{increase, MIN_SSTHRESH};
use super::westwood::validate_seconds;
use super::{AckSample, CongestionControl, CongestionEvent, CongestionSignal, Reduction, Window};
use crate::sim::{Duration, Time};
use serde::{Deserialize, Serialize};

const NS: f64 = 1e9;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodPlusConfig {
    /// The shortest sample (Linux `TCP_WESTWOOD_RTT_MIN`: 50 ms).
    pub min_sample: Duration,
    /// Which Linux: today's tcp_westwood.c, or the 2.6.22 copy inside ns-2.35.
    pub kernel: Kernel,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Kernel {
    #[default]
    #[serde(rename = "current")]
    Current,
    #[serde(rename = "2.6.22")]
    Linux2622,
}

crate::schema::named_choice!(Kernel, "kernel", [Current => "current", Linux2622 => "2.6.22"]);

impl Default for WestwoodPlusConfig {
    fn default() -> Self {
        WestwoodPlusConfig { min_sample: Duration::from_millis(50), kernel: Kernel::Current }
    }
}

impl WestwoodPlusConfig {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        validate_seconds("min_sample", self.min_sample.secs_f64())
    }

    pub fn build(&self) -> WestwoodPlus {
        WestwoodPlus {
            min_sample: self.min_sample.secs_f64(),
            counter: AckCounter::new(None),
            sample_segments: 0.0,
            sample_start: None,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            rtt: None,
            rtt_min: None,
            reset_rtt_min: true,
            kernel: self.kernel,
        }
    }
}

#[derive(Clone, Debug)]
pub struct WestwoodPlus {
    min_sample: f64,
    counter: AckCounter,
    /// Segments reported since `sample_start` (Linux `bk`).
    sample_segments: f64,
    sample_start: Option<f64>,
    /// First and second filter stages, segments/s.
    pub bw_ns_est: f64,
    pub bw_est: f64,
    /// Latest RTT sample and the smallest since the last reset, seconds.
    rtt: Option<f64>,
    pub rtt_min: Option<f64>,
    reset_rtt_min: bool,
    kernel: Kernel,
}

impl WestwoodPlus {
    fn filter(&mut self, sample: f64) {
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// max(2, BWE·RTTmin) in segments (Linux `tcp_westwood_bw_rttmin`).
    fn bw_rttmin(&self) -> f64 {
        (self.bw_est * self.rtt_min.unwrap_or(0.0)).max(MIN_SSTHRESH)
    }
}

impl CongestionControl for WestwoodPlus {
    fn label(&self) -> String {
        "westwood-plus".into()
    }

    fn on_ack_event(&mut self, _window: &Window, ack: &AckSample) {
        let now = ack.now as f64 / NS;
        let rtt = match self.kernel {
            Kernel::Current => ack.rtt.map(|rtt| rtt as f64),
            Kernel::Linux2622 => ack.srtt.filter(|_| ack.segments_acked > 0), // pkts_acked: srtt >> 3
        };
        if let Some(rtt) = rtt {
            self.rtt = Some(rtt / NS);
        }
        let start = *self.sample_start.get_or_insert(now);
        let elapsed = now - start;
        if let Some(rtt) = self.rtt {
            if elapsed > rtt.max(self.min_sample) {
                self.filter(self.sample_segments / elapsed);
                self.sample_segments = 0.0;
                self.sample_start = Some(now);
            }
        }
        self.sample_segments += self.counter.count(ack.segments_acked, ack.duplicate) as f64;
        if let Some(rtt) = self.rtt {
            self.rtt_min = Some(match self.rtt_min {
                Some(min) if !self.reset_rtt_min => min.min(rtt),
                _ => rtt,
            });
            self.reset_rtt_min = false;
        }
    }

    #[inline]
    fn on_ack(&mut self, window: &mut Window, _ack: &AckSample) {
        increase(window, 1.0);
    }

    fn on_congestion(&mut self, window: &Window, event: &CongestionEvent) -> Reduction {
        match event.signal {
            CongestionSignal::FastRetransmit => {
                let half = (window.cwnd / 2.0).max(MIN_SSTHRESH); // tcp_reno_ssthresh
                let cwnd = match self.kernel {
                    Kernel::Current => half,
                    Kernel::Linux2622 => half.max(self.bw_rttmin()).min(window.cwnd), // min_cwnd
                };
                Reduction {
                    ssthresh: half,
                    cwnd,
                }
            }
            CongestionSignal::Timeout => {
                self.reset_rtt_min = true;
                let ssthresh = self.bw_rttmin();
                Reduction {
                    ssthresh,
                    cwnd: ssthresh,
                } // the sender restarts from cwnd 1
            }
            CongestionSignal::EcnEcho => {
                let target = self.bw_rttmin();
                Reduction {
                    ssthresh: target,
                    cwnd: target,
                }
            }
        }
    }

    fn on_recovery_end(&mut self, window: &mut Window, _now: Time) {
        let target = self.bw_rttmin();
        *window = Window {
            cwnd: target,
            ssthresh: target,
        };
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ere_pps", self.bw_est));
        out.push(("rtt_min_s", self.rtt_min.unwrap_or(0.0)));
    }
}

impl super::Algorithm for WestwoodPlusConfig {
    type Controller = WestwoodPlus;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        WestwoodPlusConfig::validate(self)
    }
    fn build(&self) -> WestwoodPlus {
        WestwoodPlusConfig::build(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::westwood::tests::{ack_with_rtt, event};

    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut WestwoodPlusConfig, f64);
        let cases: [(&str, Set, &[f64], &[f64]); 1] = [(
            "min_sample",
            |c, v| c.min_sample = Duration::from_secs_f64(v),
            &[1e-6, 1000.0],
            &[0.0, 1000.5],
        )];
        crate::schema::assert_field_bounds(WestwoodPlusConfig::validate, &cases);
    }

    /// One segment per 10 ms, RTT 75 ms: a sample closes when more than 75 ms have passed
    /// since it began, i.e. at the 8th ACK after its start (80 ms), holding the 8 segments
    /// of the ACKs before it: 8/0.08 = 100/s. The first sample fills both stages. Then 2
    /// segments per ACK: the next sample closes at 160 ms with the 1 of the closing ACK at
    /// 80 ms and 7 × 2: 15/0.08 = 187.5/s, which moves the stages by 1/8 and 1/64.
    #[test]
    fn samples_once_per_rtt_through_two_filters() {
        let mut plus = WestwoodPlusConfig::default().build();
        let w = Window {
            cwnd: 10.0,
            ssthresh: 100.0,
        };
        for k in 0..=8u64 {
            plus.on_ack_event(&w, &ack_with_rtt(10 * k, 75));
        }
        assert!(
            (plus.bw_est - 100.0).abs() < 1e-9 && plus.bw_ns_est == plus.bw_est,
            "{}",
            plus.bw_est
        );
        for k in 9..=16u64 {
            let mut ack = ack_with_rtt(10 * k, 75);
            ack.segments_acked = 2;
            plus.on_ack_event(&w, &ack);
        }
        let ns = (7.0 * 100.0 + 187.5) / 8.0;
        assert!(
            (plus.bw_ns_est - ns).abs() < 1e-6,
            "{} vs {ns}",
            plus.bw_ns_est
        );
        assert!((plus.bw_est - (7.0 * 100.0 + ns) / 8.0).abs() < 1e-6);
    }

    /// The ns-2.35 (Linux 2.6.22) copy: RTT from the SRTT; recovery starts no lower than
    /// BWE·RTTmin.
    #[test]
    fn linux_2_6_22_profile() {
        let mut plus = WestwoodPlusConfig { kernel: Kernel::Linux2622, ..Default::default() }.build();
        let w = Window { cwnd: 40.0, ssthresh: 100.0 };
        for k in 0..=9u64 {
            let mut ack = ack_with_rtt(10 * k, 10); // samples of 10 ms are ignored: SRTT 300 ms
            ack.srtt = Some(300e6);
            plus.on_ack_event(&w, &ack);
        }
        assert_eq!(plus.rtt_min, Some(0.3));
        assert_eq!(plus.bw_est, 0.0, "no sample closes before 300 ms");
        plus.bw_est = 100.0; // 100/s × 0.3 s = 30 segments > half of 40
        assert_eq!(plus.on_congestion(&w, &event(CongestionSignal::FastRetransmit)), Reduction { ssthresh: 20.0, cwnd: 30.0 });
    }

    /// Recovery: Reno's half on entry, BWE·RTTmin when it ends; an RTO takes BWE·RTTmin as
    /// ssthresh and restarts RTTmin from the next sample; with no estimate, 2.
    #[test]
    fn linux_window_rules() {
        let mut plus = WestwoodPlusConfig::default().build();
        let w = Window {
            cwnd: 40.0,
            ssthresh: 100.0,
        };
        assert_eq!(
            plus.on_congestion(&w, &event(CongestionSignal::Timeout))
                .ssthresh,
            2.0
        );
        for k in 0..=9u64 {
            plus.on_ack_event(&w, &ack_with_rtt(10 * k, 75));
        }
        assert_eq!(
            plus.on_congestion(&w, &event(CongestionSignal::FastRetransmit)),
            Reduction {
                ssthresh: 20.0,
                cwnd: 20.0
            }
        );
        let mut after = Window {
            cwnd: 20.0,
            ssthresh: 20.0,
        };
        plus.on_recovery_end(&mut after, 0);
        assert!(
            (after.cwnd - 7.5).abs() < 1e-9 && after.ssthresh == after.cwnd,
            "100/s × 75 ms: {after:?}"
        );
        assert!(
            (plus
                .on_congestion(&w, &event(CongestionSignal::Timeout))
                .ssthresh
                - 7.5)
                .abs()
                < 1e-9
        );
        // RTTmin restarts: a 120-ms sample after the RTO becomes RTTmin.
        plus.on_ack_event(&w, &ack_with_rtt(200, 120));
        assert_eq!(plus.rtt_min, Some(0.12));
        plus.on_ack_event(&w, &ack_with_rtt(210, 130));
        assert_eq!(plus.rtt_min, Some(0.12));
    }
}
