//! Random Early Detection (Floyd & Jacobson 1993) with the "gentle" variant, count-based
//! spreading of drops, idle-time decay of the average and ECN marking (RFC 3168).
//! Defaults follow ns-2.35's `Queue/RED` (read off the binary): `gentle_ true`,
//! `wait_ true`, `linterm_ 10` (max_p = 0.1), `mean_pktsize_ 500`, automatic thresholds
//! and weight (`thresh_ 0`, `maxthresh_ 0`, `q_weight_ -1`, `targetdelay_ 5 ms`), marking
//! only below max_th (`use_mark_p_`), packet-mode thresholds. One difference: ns-2 marks
//! only with `setbit_ true` (default false); here `ecn = true` (the default) marks
//! ECN-capable packets, `ecn = false` drops them like the rest.
//!
//! `mode = "bytes"` is ns-2.35's default byte mode (`bytes_ true`, `queue_in_bytes_ true`,
//! read off `queue/red.cc`): the average is of the bytes waiting (the packet in
//! transmission excluded), the thresholds are the packet thresholds × `mean_pktsize_`;
//! the count that spreads drops is the bytes arrived since the last drop or mark,
//! divided by `mean_pktsize_` in whole packets (`count_bytes / mean_pktsize`, integer
//! division), and the spread probability, when below 1, is scaled by the packet's size ÷
//! `mean_pktsize_`; the idle decay counts whole mean-size packets (`int(ptc · idle)`);
//! there is no forced drop on the average (ns-2's `use_mark_p_ true` skips it: past
//! 2·max_th, or max_th without `gentle`, the probability is 1 and goes through the count);
//! and the queue limit is in bytes, limit × `mean_pktsize_` (`qlim_ · mean_pktsize_`): an
//! arrival that finds that many bytes waiting is dropped and restarts the count. Packet
//! mode is cclab's earlier RED, unchanged: forced drops past the last threshold, the
//! fractional idle decay, and the link's DropTail packet limit (where ns-2's RED in packet
//! mode admits while fewer than limit_ wait, one more than its DropTail, and its limit
//! drops restart the count).
use super::{AdmissionDiscipline, AdmissionSpec, Arrival, DisciplineSpec, LinkContext, Verdict};
use crate::sim::rng::{RngStream, RED_STREAMS};
use crate::sim::{Rate, Time};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::num::NonZeroU32;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    /// Queue measured in packets.
    #[default]
    Packets,
    /// ns-2.35's byte mode: queue, thresholds and limit in bytes (× mean_packet_size),
    /// drops spread by bytes arrived, probability scaled by packet size (module docs).
    Bytes,
}

crate::schema::named_choice!(RedMode, "mode", [Packets => "packets", Bytes => "bytes"]);

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedSpec {
    /// Minimum threshold in packets (None: ns-2's automatic max(5, target queue / 2)).
    pub min_th: Option<f64>,
    /// Maximum threshold in packets (None: 3 × min_th).
    pub max_th: Option<f64>,
    /// Drop probability at max_th (ns-2: 1 / linterm_ = 0.1).
    pub max_p: f64,
    /// EWMA weight w_q (None: ns-2's automatic 1 − exp(−1 / (10 · RTT · C)),
    /// RTT = max(0.1 s, 3 × (delay + 1/C)), C the link rate in packets/s).
    pub weight: Option<f64>,
    /// Gentle RED: between max_th and 2·max_th the probability rises from max_p to 1.
    pub gentle: bool,
    /// ns-2 `wait_`: spread drops as p / (2 − count·p) instead of p / (1 − count·p).
    pub wait: bool,
    pub mode: RedMode,
    /// Packet size the thresholds and idle decay assume (ns-2 `mean_pktsize_`); in byte
    /// mode also the bytes per packet of the queue limit and of the drop count.
    #[serde(with = "crate::sim::units::bytes")]
    pub mean_packet_size: NonZeroU32,
    /// Target queueing delay for the automatic min_th (ns-2 `targetdelay_`).
    pub target_delay_s: f64,
    /// Mark ECN-capable packets instead of dropping them (below max_th).
    pub ecn: bool,
}

impl Default for RedSpec {
    fn default() -> Self {
        RedSpec {
            min_th: None,
            max_th: None,
            max_p: 0.1,
            weight: None,
            gentle: true,
            wait: true,
            mode: RedMode::Packets,
            mean_packet_size: NonZeroU32::new(500).expect("not 0"),
            target_delay_s: 0.005,
            ecn: true,
        }
    }
}

impl RedSpec {
    pub(crate) fn validate(&self) -> Result<(), (&'static str, String)> {
        let positive = |v: Option<f64>| v.map_or(true, |x| x > 0.0 && x.is_finite());
        if !positive(self.min_th) {
            return Err(("min_th", format!("{} is not > 0", crate::schema::Num(self.min_th.unwrap_or_default()))));
        }
        if !positive(self.max_th) {
            return Err(("max_th", format!("{} is not > 0", crate::schema::Num(self.max_th.unwrap_or_default()))));
        }
        if let (Some(min), Some(max)) = (self.min_th, self.max_th) {
            if max <= min {
                return Err(("max_th", format!("{} is not above min_th {}", crate::schema::Num(max), crate::schema::Num(min))));
            }
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return Err(("max_p", format!("{} is outside (0, 1]", crate::schema::Num(self.max_p))));
        }
        if let Some(w) = self.weight {
            if !(w > 0.0 && w <= 1.0) {
                return Err(("weight", format!("{} is outside (0, 1]", crate::schema::Num(w))));
            }
        }
        if !(self.target_delay_s > 0.0 && self.target_delay_s <= 1e7) {
            return Err(("target_delay_s", format!("{} is not a number of seconds in (0, 10000000]", crate::schema::Num(self.target_delay_s))));
        }
        Ok(())
    }
}

impl DisciplineSpec for RedSpec {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        RedSpec::validate(self)
    }
}

impl AdmissionSpec for RedSpec {
    type Discipline = Red;
    const STREAMS: u64 = RED_STREAMS;
    fn build(&self, link: &LinkContext, rng: RngStream) -> Red {
        Red::new(self, link.rate, link.delay, link.buffer, rng)
    }
}

/// RED at an arrival: the average updated (decayed over the idle time the arrival ends,
/// if the queue was empty), then the decision — as ns-2's `REDQueue::enque`, which counts
/// every arrival in the average before deciding.
impl AdmissionDiscipline for Red {
    fn judge(&mut self, arrival: &Arrival) -> Verdict {
        let idle_ns = if !arrival.busy && arrival.waiting == 0 { arrival.now - arrival.busy_until.min(arrival.now) } else { 0 };
        let queue = if self.bytes { arrival.waiting_bytes as f64 } else { arrival.waiting as f64 };
        self.update_average(queue, idle_ns);
        match self.decide(arrival.bytes, arrival.ect, queue) {
            RedVerdict::Enqueue => Verdict::Admit,
            RedVerdict::Mark => Verdict::Mark,
            RedVerdict::Drop | RedVerdict::ForcedDrop | RedVerdict::Overflow => Verdict::Drop,
        }
    }
    fn counts_bytes(&self) -> bool {
        self.bytes
    }
    /// In byte mode RED limits the bytes waiting itself (ns-2: limit × mean_pktsize).
    fn packet_limit(&self) -> bool {
        !self.bytes
    }
    fn marks(&self) -> u64 {
        self.stats.marks
    }
    fn drops(&self) -> u64 {
        self.stats.early_drops + self.stats.forced_drops
    }
}

/// What RED decided for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedVerdict {
    Enqueue,
    /// Enqueue with CE set.
    Mark,
    /// Early (probabilistic) drop.
    Drop,
    /// The average is beyond the last threshold: every packet is dropped.
    ForcedDrop,
    /// Byte mode: the bytes waiting reach the byte limit (limit × mean_packet_size), and
    /// the arrival is dropped (counted by the link as a queue drop, not by RED).
    Overflow,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RedStats {
    pub marks: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
}

#[derive(Clone, Debug)]
pub struct Red {
    min_th: f64,
    max_th: f64,
    max_p: f64,
    weight: f64,
    gentle: bool,
    wait: bool,
    bytes: bool,
    mean_packet_size: f64,
    /// Byte mode: the queue limit in bytes, the link's packet limit × mean_packet_size.
    limit_bytes: f64,
    ecn: bool,
    /// Link rate in mean-size packets per ns, for the idle-time decay.
    packets_per_ns: f64,
    /// Average queue (packets, or bytes in byte mode).
    pub average: f64,
    /// Arrivals since the last early drop or mark (ns-2 `count`).
    count: u64,
    /// Bytes of those arrivals (ns-2 `count_bytes`; byte mode spreads drops by it).
    count_bytes: u64,
    /// The previous arrival was in the early-drop region (ns-2 `old`).
    in_region: bool,
    rng: RngStream,
    pub stats: RedStats,
}

impl Red {
    /// RED for a link of `rate` and `delay` whose queue limit is `limit` packets (in
    /// byte mode, limit × mean_packet_size bytes).
    pub fn new(spec: &RedSpec, rate: Rate, delay: Time, limit: u32, rng: RngStream) -> Red {
        let mean_packet_size = spec.mean_packet_size.get() as f64;
        let packets_per_s = rate.bps() as f64 / (8.0 * mean_packet_size);
        let min_th = spec.min_th.unwrap_or_else(|| (spec.target_delay_s * packets_per_s / 2.0).max(5.0));
        let max_th = spec.max_th.unwrap_or(3.0 * min_th);
        let weight = spec.weight.unwrap_or_else(|| {
            let rtt = (3.0 * (delay as f64 / 1e9 + 1.0 / packets_per_s)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * packets_per_s)).exp()
        });
        let scale = if spec.mode == RedMode::Bytes { mean_packet_size } else { 1.0 };
        Red {
            min_th: min_th * scale,
            max_th: max_th * scale,
            max_p: spec.max_p,
            weight,
            gentle: spec.gentle,
            wait: spec.wait,
            bytes: spec.mode == RedMode::Bytes,
            mean_packet_size,
            limit_bytes: limit as f64 * mean_packet_size,
            ecn: spec.ecn,
            packets_per_ns: packets_per_s / 1e9,
            average: 0.0,
            count: 0,
            count_bytes: 0,
            in_region: false,
            rng,
            stats: RedStats::default(),
        }
    }

    /// Whether the queue is measured in bytes.
    pub fn parameters_in_bytes(&self) -> bool {
        self.bytes
    }

    /// The thresholds in queue units (packets, or bytes in byte mode) and the weight.
    pub fn parameters(&self) -> (f64, f64, f64) {
        (self.min_th, self.max_th, self.weight)
    }

    /// Update the average for an arrival that finds `queue` (packets or bytes) waiting;
    /// `idle_ns` is how long the link has been idle with an empty queue (0 if busy).
    pub fn update_average(&mut self, queue: f64, idle_ns: u64) {
        if idle_ns > 0 {
            // As if m mean-size packets had arrived to an empty queue (Floyd & Jacobson §11);
            // byte mode as ns-2, whole packets: m = int(ptc · idle).
            let mut m = idle_ns as f64 * self.packets_per_ns;
            if self.bytes {
                m = m.floor();
            }
            self.average *= (1.0 - self.weight).powf(m);
        }
        self.average = (1.0 - self.weight) * self.average + self.weight * queue;
    }

    /// The initial drop probability p_b for the current average (before count spreading).
    pub fn base_probability(&self) -> Option<f64> {
        let avg = self.average;
        if avg < self.min_th {
            Some(0.0)
        } else if avg < self.max_th {
            Some(self.max_p * (avg - self.min_th) / (self.max_th - self.min_th))
        } else if self.gentle && avg < 2.0 * self.max_th {
            Some(self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th)
        } else {
            None // forced drop
        }
    }

    /// Decide for one arriving packet of `bytes` that finds `queue` (packets, or bytes
    /// in byte mode) waiting, after `update_average` — ns-2.35 `REDQueue::enque` and
    /// `drop_early`: no early action while at most one packet waits; entering the region
    /// restarts the count; the count spreads drops (Floyd & Jacobson §7, `wait_` variant).
    pub fn decide(&mut self, bytes: u32, ect: bool, queue: f64) -> RedVerdict {
        if self.bytes {
            return self.decide_bytes(bytes, ect, queue);
        }
        self.count += 1;
        // ns-2: no early action while at most one packet waits.
        if self.average < self.min_th || queue <= 1.0 {
            self.in_region = false;
            return RedVerdict::Enqueue;
        }
        let Some(p) = self.base_probability() else {
            self.count = 0;
            self.stats.forced_drops += 1;
            return RedVerdict::ForcedDrop;
        };
        if !self.in_region {
            self.in_region = true;
            self.count = 1;
            return RedVerdict::Enqueue;
        }
        let p = self.spread(p, self.count as f64);
        if self.rng.gen::<f64>() > p {
            return RedVerdict::Enqueue;
        }
        self.count = 0;
        let verdict = self.mark_or_drop(ect);
        self.count_verdict(verdict);
        verdict
    }

    /// Spread drops evenly (Floyd & Jacobson §7) for `count` arrivals since the last;
    /// ns-2's wait_ variant waits longer.
    fn spread(&self, p: f64, count: f64) -> f64 {
        if self.wait {
            if count * p < 1.0 {
                0.0
            } else if count * p < 2.0 {
                p / (2.0 - count * p)
            } else {
                1.0
            }
        } else if count * p < 1.0 {
            p / (1.0 - count * p)
        } else {
            1.0
        }
    }

    /// RFC 3168 §7: mark instead of dropping, but only below max_th (ns-2 use_mark_p_).
    fn mark_or_drop(&self, ect: bool) -> RedVerdict {
        if self.ecn && ect && self.average < self.max_th {
            RedVerdict::Mark
        } else {
            RedVerdict::Drop
        }
    }

    fn count_verdict(&mut self, verdict: RedVerdict) {
        match verdict {
            RedVerdict::Mark => self.stats.marks += 1,
            RedVerdict::Drop => self.stats.early_drops += 1,
            RedVerdict::ForcedDrop => self.stats.forced_drops += 1,
            RedVerdict::Enqueue | RedVerdict::Overflow => {}
        }
    }

    /// The probability before count spreading as ns-2.35 computes it with `use_mark_p_`
    /// (byte mode): linear to max_p at max_th, gentle on to 1 at 2·max_th, and 1 beyond
    /// (without `gentle`, 1 from max_th).
    pub fn byte_mode_probability(&self) -> f64 {
        let avg = self.average;
        let p = if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// Byte mode: the probability of dropping (or marking) an arrival of `bytes` in the
    /// region, its bytes already counted — ns-2's `modify_p`: the count is the bytes
    /// arrived since the last drop in whole mean-size packets (integer division), and a
    /// spread probability below 1 is scaled by bytes ÷ mean_packet_size (at most 1).
    pub fn byte_mode_drop_probability(&self, bytes: u32) -> f64 {
        let count = (self.count_bytes / self.mean_packet_size as u64) as f64;
        let p = self.spread(self.byte_mode_probability(), count);
        if p < 1.0 {
            (p * bytes as f64 / self.mean_packet_size).min(1.0)
        } else {
            p
        }
    }

    /// Byte mode, ns-2.35's `REDQueue::enque` with `bytes_` and `queue_in_bytes_` (see
    /// the module docs): `queue` is the bytes waiting.
    fn decide_bytes(&mut self, bytes: u32, ect: bool, queue: f64) -> RedVerdict {
        self.count += 1;
        self.count_bytes += bytes as u64;
        let mut verdict = RedVerdict::Enqueue;
        if self.average >= self.min_th && queue > 1.0 {
            if !self.in_region {
                // Entering the region restarts the count with this packet.
                self.in_region = true;
                self.count = 1;
                self.count_bytes = bytes as u64;
            } else {
                let p = self.byte_mode_drop_probability(bytes);
                if self.rng.gen::<f64>() <= p {
                    self.count = 0;
                    self.count_bytes = 0;
                    verdict = self.mark_or_drop(ect);
                }
            }
        } else {
            self.in_region = false;
        }
        if queue >= self.limit_bytes {
            // The byte limit: a forced drop, whatever RED decided; the count restarts.
            self.count = 0;
            self.count_bytes = 0;
            return RedVerdict::Overflow;
        }
        self.count_verdict(verdict);
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    fn red(spec: RedSpec) -> Red {
        Red::new(&spec, Rate(10_000_000), 20_000_000, 100, stream(1, 1))
    }

    /// Each field at the bounds its message states: closed ends accepted, open ends and
    /// just beyond rejected, naming that field.
    #[test]
    fn validate_takes_each_range_as_stated() {
        type Set = fn(&mut RedSpec, f64);
        let nan = f64::NAN;
        let cases: [(&str, Set, &[f64], &[f64]); 5] = [
            ("min_th", |s, v| s.min_th = Some(v), &[1e-9, 5.0], &[0.0, -1.0, nan, f64::INFINITY]),
            ("max_th", |s, v| s.max_th = Some(v), &[1e-9, 50.0], &[0.0, -1.0, nan, f64::INFINITY]),
            ("max_p", |s, v| s.max_p = v, &[1e-9, 1.0], &[0.0, 1.0 + 1e-9, nan]),
            ("weight", |s, v| s.weight = Some(v), &[1e-9, 1.0], &[0.0, 1.5, nan]),
            ("target_delay_s", |s, v| s.target_delay_s = v, &[1e-9, 1e7], &[0.0, 1e7 + 1.0, nan]),
        ];
        crate::schema::assert_field_bounds(RedSpec::validate, &cases);
        let thresholds = |min: f64, max: f64| RedSpec { min_th: Some(min), max_th: Some(max), ..RedSpec::default() };
        assert_eq!(thresholds(5.0, 5.000_001).validate(), Ok(()));
        assert_eq!(thresholds(5.0, 5.0).validate().map_err(|(name, _)| name), Err("max_th"));
    }

    #[test]
    fn automatic_parameters_follow_ns2() {
        // 10 Mb/s, 500-byte packets: C = 2500 pkt/s; target queue 12.5 → min_th 6.25
        let r = red(RedSpec::default());
        let (min, max, w) = r.parameters();
        assert!((min - 6.25).abs() < 1e-9 && (max - 18.75).abs() < 1e-9);
        // RTT = max(0.1, 3 × (0.02 + 0.0004)) = 0.1 → w = 1 − exp(−1/2500)
        assert!((w - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-12);
    }

    /// The drop/mark probability against the formula, driven by a synthetic average.
    #[test]
    fn probability_matches_the_formula() {
        let spec = RedSpec { min_th: Some(5.0), max_th: Some(15.0), max_p: 0.1, ..Default::default() };
        let mut r = red(spec);
        for (avg, expected) in [(4.9, Some(0.0)), (5.0, Some(0.0)), (10.0, Some(0.05)), (15.0, Some(0.1)), (22.5, Some(0.55)), (30.0, None)] {
            r.average = avg;
            match (r.base_probability(), expected) {
                (Some(p), Some(e)) => assert!((p - e).abs() < 1e-12, "avg {avg}: {p} vs {e}"),
                (got, want) => assert_eq!(got, want, "avg {avg}"),
            }
        }
        // Measured drop frequency at a fixed average against the renewal mean of the
        // count-spread process: ns-2's wait_ rule p / (2 − count·p) from count·p ≥ 1, and
        // Floyd & Jacobson's p / (1 − count·p) (§7) without it.
        for (wait, avg, p) in [(true, 10.0, 0.05), (true, 14.0, 0.09), (false, 10.0, 0.05), (false, 14.0, 0.09)] {
            let mut r = red(RedSpec { ecn: false, wait, ..spec });
            let n = 400_000;
            let mut drops = 0;
            for _ in 0..n {
                r.average = avg;
                if r.decide(1000, false, 10.0) == RedVerdict::Drop {
                    drops += 1;
                }
            }
            // Mean gap between drops: E[X] = Σ_{k≥0} P(X > k), with P(no drop at count c)
            // = 1 − p_a(c).
            let mut survive = 1.0;
            let mut mean_gap = 0.0;
            for c in 1..10_000 {
                mean_gap += survive;
                let cp = c as f64 * p;
                let p_a = match (wait, cp) {
                    (true, cp) if cp < 1.0 => 0.0,
                    (true, cp) if cp < 2.0 => p / (2.0 - cp),
                    (false, cp) if cp < 1.0 => p / (1.0 - cp),
                    _ => 1.0,
                };
                survive *= 1.0 - p_a;
            }
            let expected_rate = 1.0 / mean_gap;
            let rate = drops as f64 / n as f64;
            assert!((rate - expected_rate).abs() < 0.03 * expected_rate, "wait {wait}, avg {avg}: {rate} vs {expected_rate}");
        }
    }

    #[test]
    fn marks_ect_below_max_th_and_drops_above() {
        let spec = RedSpec { min_th: Some(5.0), max_th: Some(15.0), ..Default::default() };
        let mut r = red(spec);
        let verdicts: Vec<_> = (0..10_000)
            .map(|_| {
                r.average = 12.0;
                r.decide(1000, true, 10.0)
            })
            .collect();
        assert!(verdicts.contains(&RedVerdict::Mark) && !verdicts.contains(&RedVerdict::Drop));
        let verdicts: Vec<_> = (0..10_000)
            .map(|_| {
                r.average = 20.0;
                r.decide(1000, true, 10.0)
            })
            .collect();
        assert!(verdicts.contains(&RedVerdict::Drop) && !verdicts.contains(&RedVerdict::Mark));
        r.average = 31.0;
        assert_eq!(r.decide(1000, true, 10.0), RedVerdict::ForcedDrop);
    }

    fn bytes_red(spec: RedSpec) -> Red {
        red(RedSpec { mode: RedMode::Bytes, ..spec })
    }

    #[test]
    fn byte_mode_automatic_parameters_are_the_packet_ones_times_mean_size() {
        // ns-2 reset(): th_min = th_min_pkts · mean_pktsize; the weight is the packet
        // mode's (ptc in mean-size packets either way). 10 Mb/s, 500 B: 6.25 → 3125 B.
        let r = bytes_red(RedSpec::default());
        let (min, max, w) = r.parameters();
        assert!((min - 3125.0).abs() < 1e-9 && (max - 9375.0).abs() < 1e-9, "{min} {max}");
        assert!((w - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-12);
        // given thresholds: 5 and 15 packets of 1000 B
        let r = bytes_red(RedSpec { min_th: Some(5.0), max_th: Some(15.0), mean_packet_size: NonZeroU32::new(1000).unwrap(), ..Default::default() });
        assert_eq!((r.parameters().0, r.parameters().1), (5000.0, 15000.0));
        assert_eq!(r.limit_bytes, 100_000.0); // the link's 100 packets × 1000 B
    }

    /// ns-2's modify_p in byte mode, by hand: min_th 5, max_th 15 packets of 500 B (2500,
    /// 7500 B), max_p 0.1, wait_; the average 5000 B gives p_b = 0.1 · 2500/5000 = 0.05.
    #[test]
    fn byte_mode_spreads_by_bytes_arrived_and_scales_by_size() {
        let mut r = bytes_red(RedSpec { min_th: Some(5.0), max_th: Some(15.0), ..Default::default() });
        r.average = 5000.0;
        assert!((r.byte_mode_probability() - 0.05).abs() < 1e-12);
        // (count_bytes, packet bytes, p): count = ⌊count_bytes / 500⌋; 0 while count·p < 1,
        // p/(2 − count·p) up to 2, then 1; below 1 scaled by bytes/500.
        for (count_bytes, bytes, expected) in [
            (9_999, 1000, 0.0),             // count 19: 0.95 < 1
            (10_000, 1000, 0.1),            // count 20: 0.05/(2 − 1) = 0.05, × 2
            (10_499, 1000, 0.1),            // still count 20 (integer division)
            (10_000, 40, 0.004),            // 0.05 × 40/500
            (10_000, 500, 0.05),            // a mean-size packet: unscaled
            (15_000, 1000, 0.2),            // count 30: 0.05/0.5 = 0.1, × 2
            (17_500, 1000, 0.4),            // count 35: 0.05/0.25 = 0.2, × 2
            (19_000, 1000, 1.0),            // count 38: 0.05/0.1 = 0.5, × 2 = 1
            (20_000, 40, 1.0),              // count 40: count·p = 2 → 1, not scaled
        ] {
            r.count_bytes = count_bytes;
            let p = r.byte_mode_drop_probability(bytes);
            assert!((p - expected).abs() < 1e-12, "count_bytes {count_bytes}, {bytes} B: {p} vs {expected}");
        }
        // Packets of 1000 B after entering the region (count_bytes 1000 at entry): no drop
        // before the 10th arrival (count 20), a certain one by the 19th (count 38).
        let mut firsts = Vec::new();
        for _ in 0..2000 {
            r.in_region = false;
            let mut first = None;
            for n in 1..=40 {
                r.average = 5000.0;
                if r.decide(1000, false, 5000.0) == RedVerdict::Drop {
                    first = Some(n);
                    break;
                }
            }
            firsts.push(first.expect("a drop by the 19th arrival"));
        }
        assert!(firsts.iter().all(|&n| (10..=19).contains(&n)), "{firsts:?}");
        // the mean against the hand-computed renewal: P(drop at n) from p(n) above
        let mut survive = 1.0;
        let mut mean = 0.0;
        for n in 10..=19 {
            let count = 2.0 * n as f64;
            let p = (0.05 / (2.0 - count * 0.05) * 2.0f64).min(1.0);
            mean += n as f64 * survive * p;
            survive *= 1.0 - p;
        }
        let measured = firsts.iter().sum::<usize>() as f64 / firsts.len() as f64;
        assert!((measured - mean).abs() < 0.15, "{measured} vs {mean}");
        assert_eq!(r.stats.early_drops, 2000);
    }

    /// Past 2·max_th ns-2 (use_mark_p_) has no forced drop: p is 1 and goes through the
    /// count — an arrival entering the region is let in, the next dropped as an early drop.
    #[test]
    fn byte_mode_has_no_forced_drop_on_the_average() {
        let spec = RedSpec { min_th: Some(5.0), max_th: Some(15.0), ..Default::default() };
        let mut r = bytes_red(spec);
        for (avg, expected) in [(10_000.0, 0.4), (15_000.0, 1.0), (20_000.0, 1.0)] {
            r.average = avg; // 0.1 + 0.9 · (avg − 7500)/7500, at most 1
            assert!((r.byte_mode_probability() - expected).abs() < 1e-12, "{avg}");
        }
        r.average = 20_000.0;
        assert_eq!(r.decide(1000, true, 5000.0), RedVerdict::Enqueue, "entering the region");
        assert_eq!(r.decide(1000, true, 5000.0), RedVerdict::Drop, "p = 1, above max_th: no mark");
        assert_eq!((r.stats.early_drops, r.stats.forced_drops, r.stats.marks), (1, 0, 0));
        // without gentle, p = 1 from max_th
        let mut r = bytes_red(RedSpec { gentle: false, ..spec });
        r.average = 7500.0;
        assert_eq!(r.byte_mode_probability(), 1.0);
        // below max_th an ECN-capable packet is marked
        let mut r = bytes_red(spec);
        r.average = 7000.0;
        r.decide(1000, true, 5000.0);
        r.count_bytes = 100_000;
        assert_eq!(r.decide(1000, true, 5000.0), RedVerdict::Mark);
        assert_eq!(r.count_bytes, 0);
    }

    /// The byte limit: 100 packets × 500 B = 50000 B waiting drops the arrival, whatever
    /// the average, and restarts the count.
    #[test]
    fn byte_mode_limits_the_bytes_waiting() {
        let mut r = bytes_red(RedSpec::default());
        assert_eq!(r.decide(1000, false, 49_999.0), RedVerdict::Enqueue);
        r.count_bytes = 7000;
        r.count = 7;
        assert_eq!(r.decide(1000, false, 50_000.0), RedVerdict::Overflow);
        assert_eq!((r.count, r.count_bytes), (0, 0));
        assert_eq!(r.stats, RedStats::default(), "a queue drop, not RED's");
    }

    #[test]
    fn byte_mode_idle_decay_counts_whole_packets() {
        // 10 Mb/s, 500 B: 2500 packets/s. 0.6 ms idle is 1.5 packet times: ns-2's
        // m = int(1.5) = 1, then the arrival's own step: 10000 · 0.99 · 0.99 = 9801.
        let mut r = bytes_red(RedSpec { weight: Some(0.01), ..Default::default() });
        r.average = 10_000.0;
        r.update_average(0.0, 600_000);
        assert!((r.average - 9801.0).abs() < 1e-9, "{}", r.average);
        // packet mode keeps the fractional m: 10 · 0.99^1.5 · 0.99
        let mut r = red(RedSpec { weight: Some(0.01), ..Default::default() });
        r.average = 10.0;
        r.update_average(0.0, 600_000);
        assert!((r.average - 10.0 * 0.99f64.powf(1.5) * 0.99).abs() < 1e-12);
    }

    #[test]
    fn idle_time_decays_the_average() {
        let mut r = red(RedSpec { weight: Some(0.01), ..Default::default() });
        r.average = 10.0;
        // 1 s idle at 2500 pkt/s: × 0.99^2500, then one arrival to an empty queue
        r.update_average(0.0, 1_000_000_000);
        assert!((r.average - 10.0 * 0.99f64.powf(2500.0) * 0.99).abs() < 1e-9);
    }
}
