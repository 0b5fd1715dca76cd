//! Retransmission timeout estimation: RFC 6298 (SRTT/RTTVAR with gains 1/8 and 1/4,
//! RTO = SRTT + max(G, 4·RTTVAR) clamped to [min, max], doubled per back-off, Karn) or,
//! with `tcp.ns2.tick_clock`, ns-2.35's integer version of the same on its `tcpTick_`
//! clock (tcp.cc `rtt_update`, `rtt_timeout`, `rtt_backoff`).
use super::TcpConfig;
use crate::sim::Time;

#[derive(Clone, Debug)]
pub enum RtoEstimator {
    Rfc6298(Rfc6298),
    Ns2(Ns2Clock),
    /// The linux profile's (module [`super::linux::rtt`]), fed by its sender.
    Linux(super::linux::rtt::LinuxRtt),
}

impl RtoEstimator {
    /// The estimator `cfg` asks for; ns-2's clock reads `boot_time` (ns, in [0, tick))
    /// as the agent's offset from the tick boundaries.
    pub fn new(cfg: &TcpConfig, boot_time: Time) -> RtoEstimator {
        if cfg.profile() == super::TcpProfile::Linux {
            RtoEstimator::Linux(super::linux::rtt::LinuxRtt::new(cfg))
        } else if cfg.ns2_rules().tick_clock {
            RtoEstimator::Ns2(Ns2Clock::new(cfg, boot_time))
        } else {
            RtoEstimator::Rfc6298(Rfc6298::new(cfg))
        }
    }

    /// A valid RTT sample: the timed segment left at `sent_at` and its ACK came at `now`.
    /// It also ends any back-off (RFC 6298 §5.7 with Karn's rule; ns-2 `newack`).
    /// Returns the RTT as this clock measured it (ns-2: whole ticks, `t_rtt_·tcpTick_`).
    pub fn on_sample(&mut self, sent_at: Time, now: Time) -> Time {
        match self {
            RtoEstimator::Rfc6298(e) => {
                e.on_sample(now - sent_at);
                now - sent_at
            }
            RtoEstimator::Ns2(e) => e.on_sample(sent_at, now),
            RtoEstimator::Linux(e) => {
                let rtt = now - sent_at;
                e.on_sample(super::linux::us_delta(now, sent_at), 0, 0);
                rtt
            }
        }
    }

    /// The linux profile's estimator.
    pub fn linux(&mut self) -> Option<&mut super::linux::rtt::LinuxRtt> {
        match self {
            RtoEstimator::Linux(e) => Some(e),
            _ => None,
        }
    }

    /// Double the timer after it expires (RFC 6298 §5.5).
    pub fn back_off(&mut self) {
        match self {
            RtoEstimator::Rfc6298(e) => e.back_off(),
            RtoEstimator::Ns2(e) => e.back_off(),
            RtoEstimator::Linux(e) => e.back_off(),
        }
    }

    /// End any back-off without a sample (ns-2 Sack1 on a partial ACK).
    pub fn end_backoff(&mut self) {
        match self {
            RtoEstimator::Rfc6298(e) => e.backoff = 1,
            RtoEstimator::Ns2(e) => e.backoff = 1,
            RtoEstimator::Linux(_) => {}
        }
    }

    /// The timer value to arm now, in ns.
    pub fn current(&self) -> Time {
        match self {
            RtoEstimator::Rfc6298(e) => e.current(),
            RtoEstimator::Ns2(e) => e.current(),
            RtoEstimator::Linux(e) => e.current(),
        }
    }

    /// The smoothed RTT in ns, once there is one.
    pub fn srtt(&self) -> Option<f64> {
        match self {
            RtoEstimator::Rfc6298(e) => e.srtt,
            RtoEstimator::Ns2(e) => e.srtt(),
            RtoEstimator::Linux(e) => e.srtt(),
        }
    }
}

/// RFC 6298 in floating point (ns).
#[derive(Clone, Debug)]
pub struct Rfc6298 {
    srtt: Option<f64>,
    rttvar: f64,
    rto: f64,
    backoff: u32,
    min_rto: f64,
    max_rto: f64,
    granularity: f64,
    max_backoff: u32,
}

impl Rfc6298 {
    pub fn new(cfg: &TcpConfig) -> Rfc6298 {
        Rfc6298 {
            srtt: None,
            rttvar: 0.0,
            rto: cfg.initial_rto().ns() as f64,
            backoff: 1,
            min_rto: cfg.min_rto.ns() as f64,
            max_rto: cfg.max_rto().ns() as f64,
            granularity: cfg.granularity().ns() as f64,
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

    pub fn back_off(&mut self) {
        self.backoff = (self.backoff * 2).min(self.max_backoff);
    }

    pub fn current(&self) -> Time {
        (self.rto * self.backoff as f64).min(self.max_rto.max(self.rto)) as Time
    }
}

/// ns-2.35's estimator: samples are counted in `tcpTick_` boundaries crossed on a clock
/// offset by the agent's random `boot_time_`; SRTT and RTTVAR are integers of ticks with
/// 3 and 2 fractional bits; RTO = SRTT + 4·RTTVAR (no granularity term), floored at
/// `minrto_` before the back-off multiplies it, capped at `maxrto_`, at least two ticks.
#[derive(Clone, Debug)]
pub struct Ns2Clock {
    tick: Time,
    boot: Time,
    /// `t_srtt_`: SRTT × 8, in ticks (0 until the first sample, and after a long back-off).
    srtt8: i32,
    /// `t_rttvar_`: RTTVAR × 4, in ticks.
    rttvar4: i32,
    /// `t_rtxcur_`: SRTT + 4·RTTVAR, in ns (`rtxcur_init_` before any sample).
    rtxcur: f64,
    backoff: u32,
    min_rto: f64,
    max_rto: f64,
}

impl Ns2Clock {
    pub fn new(cfg: &TcpConfig, boot_time: Time) -> Ns2Clock {
        let tick = cfg.granularity().ns().max(1);
        Ns2Clock {
            tick,
            boot: boot_time % tick,
            srtt8: 0,
            rttvar4: 0,
            rtxcur: cfg.initial_rto().ns() as f64,
            backoff: 1,
            min_rto: cfg.min_rto.ns() as f64,
            max_rto: cfg.max_rto().ns() as f64,
        }
    }

    /// `rtt_update`: the tick boundaries crossed between send and ACK (at least one);
    /// returns them as a time (`t_rtt_·tcpTick_`).
    pub fn on_sample(&mut self, sent_at: Time, now: Time) -> Time {
        let ticks = ((now + self.boot) / self.tick - (sent_at + self.boot) / self.tick).max(1) as i32;
        if self.srtt8 != 0 {
            let mut delta = ticks - (self.srtt8 >> 3); // a1 = 7/8 a0 + 1/8 m
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2); // var1 = 3/4 var0 + 1/4 |d|
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            self.srtt8 = ticks << 3;
            self.rttvar4 = ticks << 1; // RTTVAR = RTT / 2
        }
        // (8·(4·RTTVAR) + 8·SRTT) / 8, truncated to whole ticks
        self.rtxcur = (((self.rttvar4 << 3) + self.srtt8) >> 3) as f64 * self.tick as f64;
        self.backoff = 1;
        ticks as Time * self.tick
    }

    /// `rtt_timeout`
    pub fn current(&self) -> Time {
        let base = if self.rtxcur < self.min_rto { self.min_rto } else { self.rtxcur };
        let timeout = (base * self.backoff as f64).min(self.max_rto);
        timeout.max(2.0 * self.tick as f64) as Time
    }

    /// `rtt_backoff`: double while below 64 or below `maxrto_`; past eight back-offs the
    /// SRTT is folded into RTTVAR and forgotten (the next sample starts afresh).
    pub fn back_off(&mut self) {
        if self.backoff < 64 || (self.current() as f64) < self.max_rto {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > 8 {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }

    pub fn srtt(&self) -> Option<f64> {
        (self.srtt8 != 0).then(|| self.srtt8 as f64 / 8.0 * self.tick as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::TcpProfile;

    const MS: Time = 1_000_000;

    #[test]
    fn follows_rfc6298() {
        let cfg = TcpConfig::default();
        let mut rto = RtoEstimator::new(&cfg, 0);
        assert_eq!(rto.current(), 3_000_000_000);
        rto.on_sample(0, 100 * MS); // 100 ms: RTO = 100 + 4·50 = 300 ms
        assert_eq!(rto.current(), 300 * MS);
        for _ in 0..200 {
            rto.on_sample(0, 100 * MS);
        }
        // RTTVAR → 0, so RTO → max(min_rto, SRTT + G) = 200 ms
        assert_eq!(rto.current(), 200 * MS);
        rto.back_off();
        rto.back_off();
        assert_eq!(rto.current(), 800 * MS);
        rto.on_sample(0, 100 * MS);
        assert_eq!(rto.current(), 200 * MS);
    }

    fn ns2_clock(boot: Time) -> RtoEstimator {
        let cfg = TcpConfig { profile: Some(TcpProfile::Ns2), ..Default::default() };
        RtoEstimator::new(&cfg, boot)
    }

    /// Hand-computed from tcp.cc: ticks crossed, the fixed-point averages, the RTO.
    #[test]
    fn ns2_counts_tick_boundaries_on_its_offset_clock() {
        // boot 3 ms: a segment sent at 105 ms (clock 108) and ACKed at 172 ms (clock 175)
        // crosses the boundaries 110..=170: 7 ticks, though 67 ms passed.
        let mut rto = ns2_clock(3 * MS);
        rto.on_sample(105 * MS, 172 * MS);
        // srtt8 = 56, rttvar4 = 14: RTO = (14·8 + 56) >> 3 = 21 ticks = 210 ms
        assert_eq!(rto.srtt(), Some(70.0 * MS as f64));
        assert_eq!(rto.current(), 210 * MS);
        // the same 67 ms with boot 0: sent 105 (tick 10), ACKed 172 (tick 17) → 7; from 101
        // to 168 → 6 ticks
        let mut other = ns2_clock(0);
        other.on_sample(101 * MS, 168 * MS);
        assert_eq!(other.srtt(), Some(60.0 * MS as f64));
        // a second sample of 5 ticks: delta = 5 − 7 = −2 → srtt8 54; |−2| − (14 >> 2) = −1
        // → rttvar4 13; RTO = (104 + 54) >> 3 = 19 ticks (190 ms) → minrto 200 ms
        rto.on_sample(200 * MS, 250 * MS);
        assert_eq!(rto.srtt(), Some(54.0 / 8.0 * 10.0 * MS as f64));
        assert_eq!(rto.current(), 200 * MS);
        // a sample within one tick still counts one
        rto.on_sample(301 * MS, 302 * MS);
        assert!(rto.current() >= 200 * MS);
    }

    #[test]
    fn ns2_backs_off_from_minrto_and_folds_srtt_after_eight() {
        let mut rto = ns2_clock(0);
        rto.on_sample(0, 100 * MS); // 10 ticks: srtt8 80, rttvar4 20 → RTO 10 + 4·5 = 30 ticks
        assert_eq!(rto.current(), 300 * MS);
        for expected in [600, 1200, 2400] {
            rto.back_off();
            assert_eq!(rto.current(), expected * MS);
        }
        rto.back_off(); // backoff 16 > 8: srtt folded into rttvar, srtt forgotten
        assert_eq!(rto.srtt(), None);
        assert_eq!(rto.current(), 4800 * MS, "the RTO itself is not recomputed");
        rto.on_sample(0, 50 * MS); // a fresh start: 5 ticks, RTO 5 + 4·2.5 = 15 ticks → minrto
        assert_eq!((rto.srtt(), rto.current()), (Some(50.0 * MS as f64), 200 * MS));
        for _ in 0..20 {
            rto.back_off();
        }
        assert_eq!(rto.current(), 60_000 * MS, "capped at maxrto");
    }
}
