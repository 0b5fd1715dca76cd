//! PIE, proportional integral controller enhanced (RFC 8033; Pan et al. 2013), decided
//! at enqueue: every `tupdate` the drop probability moves by α·(delay − target) +
//! β·(delay − previous delay) (§4.2, with delays in seconds, α 0.125 and β 1.25 per
//! second, both scaled down while p is small: ÷2048 below 10⁻⁶ … ÷2 below 0.1), decays by
//! 2 % per update while the queue is empty, and rises by at most 2 % per update once
//! above 10 % (§4.2's cap); an arriving packet is dropped with probability p, except
//! during the burst allowance (150 ms after the queue was idle), when the delay is under
//! half the target and p under 20 %, or when under two packets wait (§4.1). With `ecn`,
//! ECN-capable packets are marked instead while p ≤ 10 % (§5.1).
//!
//! The queueing delay is the link's own: on a FIFO of fixed rate the delay an arrival at
//! t would see is exactly the transmitter's backlog then, which is also what it was at
//! any instant since the last arrival (RFC 8033 §4.3 estimates it from departures). The
//! periodic update runs lazily, for each whole `tupdate` elapsed, when a packet arrives.
use super::{check_duration, AdmissionDiscipline, AdmissionSpec, Arrival, DisciplineSpec, LinkContext, Verdict};
use crate::schema::Num;
use crate::sim::rng::RngStream;
use crate::sim::{Duration, Time};
use rand::Rng;
use serde::{Deserialize, Serialize};

const NS: f64 = 1e9;

/// PIE (RFC 8033 §4–5 defaults): `target` 15 ms, `tupdate` 15 ms, α 0.125 and β 1.25
/// per second, a 150-ms burst allowance; `ecn` marks while the drop probability is at
/// most 10 % (§5.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PieSpec {
    pub target: Duration,
    pub tupdate: Duration,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Duration,
    pub ecn: bool,
}

impl Default for PieSpec {
    fn default() -> Self {
        PieSpec {
            target: Duration::from_millis(15),
            tupdate: Duration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Duration::from_millis(150),
            ecn: false,
        }
    }
}

impl DisciplineSpec for PieSpec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_duration("target", self.target)?;
        check_duration("tupdate", self.tupdate)?;
        for (field, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value.is_finite() && (0.0..=1000.0).contains(&value)) {
                return Err((field, format!("{} is not a gain in [0, 1000] per second", Num(value))));
            }
        }
        if self.max_burst.ns() > 86_400_000_000_000 {
            return Err(("max_burst", format!("{} is longer than 86400s", self.max_burst)));
        }
        Ok(())
    }
}

impl AdmissionSpec for PieSpec {
    type Discipline = Pie;
    fn build(&self, _link: &LinkContext, rng: RngStream) -> Pie {
        let params = PieParams {
            target: self.target.ns(),
            tupdate: self.tupdate.ns(),
            alpha: self.alpha,
            beta: self.beta,
            max_burst: self.max_burst.ns(),
            ecn: self.ecn,
        };
        Pie::new(params, rng)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    pub target: Time,
    pub tupdate: Time,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Time,
    pub ecn: bool,
}

#[derive(Clone, Debug)]
pub struct Pie {
    pub params: PieParams,
    pub drop_prob: f64,
    qdelay_old: f64,
    burst_allowance: f64,
    /// The last update instant (a multiple of tupdate from the first arrival).
    last_update: Option<Time>,
    rng: RngStream,
    /// Packets it dropped and marked.
    drops: u64,
    marks: u64,
}

impl Pie {
    pub fn new(params: PieParams, rng: RngStream) -> Pie {
        Pie { params, drop_prob: 0.0, qdelay_old: 0.0, burst_allowance: params.max_burst as f64 / NS, last_update: None, rng, drops: 0, marks: 0 }
    }

    /// §4.2 at one update instant, `qdelay` seconds of queue then.
    fn update(&mut self, qdelay: f64) {
        let p = &self.params;
        let target = p.target as f64 / NS;
        let (mut alpha, mut beta) = (p.alpha, p.beta);
        let scale = match self.drop_prob {
            x if x < 1e-6 => 2048.0,
            x if x < 1e-5 => 512.0,
            x if x < 1e-4 => 128.0,
            x if x < 1e-3 => 32.0,
            x if x < 1e-2 => 8.0,
            x if x < 1e-1 => 2.0,
            _ => 1.0,
        };
        alpha /= scale;
        beta /= scale;
        let mut delta = alpha * (qdelay - target) + beta * (qdelay - self.qdelay_old);
        if self.drop_prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.drop_prob += delta;
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // §4.3: the burst allowance runs down; an idle, calm queue earns it back.
        let tupdate = p.tupdate as f64 / NS;
        self.burst_allowance = (self.burst_allowance - tupdate).max(0.0);
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = p.max_burst as f64 / NS;
        }
        self.qdelay_old = qdelay;
    }

    /// Run the updates due by `now`, the transmitter busy until `busy_until` all the
    /// while (no arrival since the last one).
    fn catch_up(&mut self, now: Time, busy_until: Time) {
        let tupdate = self.params.tupdate.max(1);
        let mut at = match self.last_update {
            Some(last) => last + tupdate,
            None => {
                self.last_update = Some(now);
                return;
            }
        };
        // After a long idle spell the queue is empty at every update: p decays by 2 % each
        // (a few thousand steps take it to nothing), the rest are no-ops.
        let mut steps = 0;
        while at <= now && steps < 4096 {
            self.update(busy_until.saturating_sub(at) as f64 / NS);
            self.last_update = Some(at);
            at += tupdate;
            steps += 1;
        }
        if at <= now {
            self.last_update = Some(now - (now - at) % tupdate);
        }
    }
}

impl AdmissionDiscipline for Pie {
    /// An arrival finding the transmitter busy until `busy_until` (so the queueing delay
    /// since the last arrival is known exactly): drop, mark or admit.
    fn judge(&mut self, arrival: &Arrival) -> Verdict {
        self.catch_up(arrival.now, arrival.busy_until);
        let target = self.params.target as f64 / NS;
        if self.burst_allowance > 0.0
            || (self.qdelay_old < target / 2.0 && self.drop_prob < 0.2)
            || arrival.waiting < 2
            || self.rng.gen::<f64>() >= self.drop_prob
        {
            return Verdict::Admit;
        }
        if self.params.ecn && arrival.ect && self.drop_prob <= 0.1 {
            self.marks += 1;
            Verdict::Mark
        } else {
            self.drops += 1;
            Verdict::Drop
        }
    }
    fn marks(&self) -> u64 {
        self.marks
    }
    fn drops(&self) -> u64 {
        self.drops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn new_pie() -> Pie {
        let params = PieParams { target: 15 * MS, tupdate: 15 * MS, alpha: 0.125, beta: 1.25, max_burst: 150 * MS, ecn: false };
        Pie::new(params, crate::sim::rng::stream(1, 1))
    }

    /// One update by hand: from p = 0 with the queue at 35 ms (old 0): α and β scaled by
    /// 2048 (p < 10⁻⁶): Δ = (0.125·0.020 + 1.25·0.035)/2048 = 2.2583e-5.
    #[test]
    fn update_by_hand() {
        let mut pie = new_pie();
        pie.update(0.035);
        let expected = (0.125 * 0.020 + 1.25 * 0.035) / 2048.0;
        assert!((pie.drop_prob - expected).abs() < 1e-12, "{}", pie.drop_prob);
        // an empty queue twice in a row: the 2 % decay on top of the (negative) step
        let mut calm = new_pie();
        calm.drop_prob = 0.5;
        calm.update(0.0);
        let after_first = 0.5 + 0.125 * (-0.015) + 1.25 * (0.0 - 0.0);
        assert!((calm.drop_prob - after_first * 0.98).abs() < 1e-12, "old delay 0 and now 0: decays");
    }

    /// A standing 50-ms queue drives p up until arrivals are dropped; the burst allowance
    /// spares the first 150 ms; an idle queue (short delay, low p) drops nothing.
    #[test]
    fn a_standing_queue_raises_the_drop_probability() {
        let mut pie = new_pie();
        let mut drops = Vec::new();
        for k in 0..2000u64 {
            let now = k * MS;
            let verdict = pie.judge(&Arrival { now, busy_until: now + 50 * MS, waiting: 40, busy: true, ..Arrival::default() });
            drops.push(verdict == Verdict::Drop);
        }
        assert!(drops[..150].iter().all(|&d| !d), "the burst allowance");
        assert!(pie.drop_prob > 0.05, "{}", pie.drop_prob);
        assert!(drops[1000..].iter().filter(|&&d| d).count() > 50);
        let mut idle = new_pie();
        assert!((0..2000u64).all(|k| idle.judge(&Arrival { now: k * MS, busy_until: k * MS + MS, waiting: 1, busy: true, ..Arrival::default() }) == Verdict::Admit));
    }
}
