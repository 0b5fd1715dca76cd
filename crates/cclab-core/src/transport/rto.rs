//! Retransmission timeout estimation, RFC 6298: SRTT/RTTVAR with gains 1/8 and 1/4,
//! RTO = SRTT + max(G, 4·RTTVAR) clamped to [min, max], doubled per back-off (Karn).
use super::TcpConfig;
use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    rto: f64,
    backoff: u32,
    min_rto: f64,
    max_rto: f64,
    granularity: f64,
    max_backoff: u32,
}

impl RtoEstimator {
    pub fn new(cfg: &TcpConfig) -> RtoEstimator {
        RtoEstimator {
            srtt: None,
            rttvar: 0.0,
            rto: cfg.initial_rto.ns() as f64,
            backoff: 1,
            min_rto: cfg.min_rto.ns() as f64,
            max_rto: cfg.max_rto.ns() as f64,
            granularity: cfg.granularity.ns() as f64,
            max_backoff: cfg.max_backoff,
        }
    }

    /// RFC 6298 §2.2–2.3; a valid sample also ends any back-off (§5.7 with Karn's rule).
    pub fn on_sample(&mut self, rtt: Time) {
        let r = rtt as f64;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (srtt - r).abs();
                self.srtt = Some(0.875 * srtt + 0.125 * r);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.rto = (srtt + self.granularity.max(4.0 * self.rttvar)).clamp(self.min_rto, self.max_rto);
        self.backoff = 1;
    }

    /// RFC 6298 §5.5: double the timer after it expires.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff * 2).min(self.max_backoff);
    }

    /// The timer value to arm now, in ns.
    pub fn current(&self) -> Time {
        (self.rto * self.backoff as f64).min(self.max_rto.max(self.rto)) as Time
    }

    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn follows_rfc6298() {
        let cfg = TcpConfig::default();
        let mut rto = RtoEstimator::new(&cfg);
        assert_eq!(rto.current(), 3_000_000_000);
        rto.on_sample(100_000_000); // 100 ms: RTO = 100 + 4·50 = 300 ms
        assert_eq!(rto.current(), 300_000_000);
        for _ in 0..200 {
            rto.on_sample(100_000_000);
        }
        // RTTVAR → 0, so RTO → max(min_rto, SRTT + G) = 200 ms
        assert_eq!(rto.current(), 200_000_000);
        rto.back_off();
        rto.back_off();
        assert_eq!(rto.current(), 800_000_000);
        rto.on_sample(100_000_000);
        assert_eq!(rto.current(), 200_000_000);
    }
}
