//! Links whose capacity follows a recorded trace, exactly as Mahimahi's `mm-link`
//! delivers packets (its `src/frontend/link_queue.cc` is the definition; read, not
//! copied):
//!
//! - a trace is one integer per line: a millisecond at which one delivery opportunity
//!   of [`OPPORTUNITY_BYTES`] occurs (a millisecond repeated = several opportunities in
//!   it); it repeats from its end, the last line's millisecond being its period;
//! - a packet costs its bytes plus [`PACKET_OVERHEAD_BYTES`] (mm-link counts the 4 bytes
//!   of the TUN device's header it reads packets with); bytes are accounted across
//!   opportunities: what a packet leaves of an opportunity serves the next packet, a
//!   packet larger than what is left goes on in the next opportunity, and an opportunity
//!   nothing is queued for is lost;
//! - a packet arriving in millisecond `m` (its arrival time in whole milliseconds) can
//!   only use opportunities after `m`: mm-link spends the opportunities due by now
//!   before it queues an arriving packet; it leaves at the millisecond of the
//!   opportunity that carries its last byte.
//!
//! A link computes each packet's departure from the trace when the packet is admitted
//! (the queue is FIFO and its order fixed then), keeping a cursor on the trace: no event
//! per opportunity, one per packet as on any link.
use std::sync::Arc;

/// Bytes one delivery opportunity carries (mm-link's `PACKET_SIZE`: a 1500-byte IP
/// packet and the 4-byte TUN header).
pub const OPPORTUNITY_BYTES: u32 = 1504;
/// Bytes mm-link counts per packet on top of its IP packet (the TUN header).
pub const PACKET_OVERHEAD_BYTES: u32 = 4;
/// The longest trace period cclab takes: 10 days of milliseconds.
pub const MAX_PERIOD_MS: u64 = 864_000_000;
/// The most opportunities per period: 2^32 (a 10 Gb/s trace of 60 s has 5·10^7).
pub const MAX_OPPORTUNITIES: u64 = 1 << 32;
const NS_PER_MS: u64 = 1_000_000;

/// A trace's delivery opportunities over one period.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryTrace {
    /// (millisecond, opportunities at it), by increasing millisecond.
    runs: Box<[(u64, u32)]>,
    /// Opportunities before each run (prefix sums of the counts).
    before: Box<[u64]>,
    per_period: u64,
    period_ms: u64,
}

impl DeliveryTrace {
    /// The trace of `runs` ((millisecond, count) pairs, as [`parse_mahimahi`] gives
    /// them), checked: milliseconds that do not decrease, counts of at least one, a
    /// period (the last millisecond) above zero and within the limits.
    pub fn new(runs: &[(u64, u32)]) -> Result<DeliveryTrace, String> {
        if runs.is_empty() {
            return Err("has no delivery opportunities".into());
        }
        let mut merged: Vec<(u64, u32)> = Vec::with_capacity(runs.len());
        let mut before = Vec::with_capacity(runs.len());
        let mut total: u64 = 0;
        for (k, &(ms, count)) in runs.iter().enumerate() {
            if count == 0 {
                return Err(format!("[{k}]: a count of 0 opportunities at {ms} ms (at least 1)"));
            }
            match merged.last_mut() {
                Some(last) if ms < last.0 => {
                    return Err(format!("[{k}]: {ms} ms comes after {} ms; the milliseconds must not decrease", last.0))
                }
                Some(last) if ms == last.0 => last.1 = last.1.saturating_add(count),
                _ => {
                    before.push(total);
                    merged.push((ms, count));
                }
            }
            total += count as u64;
        }
        let period_ms = merged.last().expect("not empty").0;
        if period_ms == 0 {
            return Err("lasts 0 ms (its last millisecond is 0): a trace must last a nonzero time".into());
        }
        if period_ms > MAX_PERIOD_MS {
            return Err(format!("lasts {period_ms} ms; at most {MAX_PERIOD_MS} (10 days)"));
        }
        if total > MAX_OPPORTUNITIES {
            return Err(format!("{total} opportunities per period; at most {MAX_OPPORTUNITIES}"));
        }
        Ok(DeliveryTrace { runs: merged.into(), before: before.into(), per_period: total, period_ms })
    }

    /// The (millisecond, count) pairs.
    pub fn runs(&self) -> &[(u64, u32)] {
        &self.runs
    }

    pub fn period_ms(&self) -> u64 {
        self.period_ms
    }

    pub fn opportunities_per_period(&self) -> u64 {
        self.per_period
    }

    /// The mean capacity in bits per second (opportunities of [`OPPORTUNITY_BYTES`]).
    pub fn mean_rate_bps(&self) -> f64 {
        self.per_period as f64 * OPPORTUNITY_BYTES as f64 * 8.0 * 1000.0 / self.period_ms as f64
    }

    /// Opportunities whose millisecond is below `until_ms`, from the start. Period p's
    /// lie at p·period + an offset in [0, period]: the periods before the last two are
    /// whole, the last two counted by offset.
    pub fn opportunities_before(&self, until_ms: u64) -> u64 {
        let below = |x: u64| -> u64 {
            if x > self.period_ms {
                return self.per_period;
            }
            let run = self.runs.partition_point(|&(ms, _)| ms < x);
            self.before.get(run).copied().unwrap_or(self.per_period)
        };
        let last = until_ms / self.period_ms;
        let mut count = below(until_ms - last * self.period_ms);
        if last >= 1 {
            count += below(until_ms - (last - 1) * self.period_ms) + (last - 1) * self.per_period;
        }
        count
    }

    /// The millisecond of the first opportunity after millisecond `ms` (where mm-link's
    /// next delivery is once it has spent those due by `ms`).
    pub fn next_opportunity_after(&self, ms: u64) -> u64 {
        let period = ms / self.period_ms;
        let offset = ms - period * self.period_ms;
        let run = self.runs.partition_point(|&(at, _)| at <= offset);
        match self.runs.get(run) {
            Some(&(at, _)) => period * self.period_ms + at,
            None => (period + 1) * self.period_ms + self.runs[0].0,
        }
    }

    /// Bits the link can carry over [0, horizon) ns.
    pub fn capacity_bits(&self, horizon: u64) -> f64 {
        self.opportunities_before(horizon.div_ceil(NS_PER_MS)) as f64 * OPPORTUNITY_BYTES as f64 * 8.0
    }
}

/// Where a link is in its trace: the next opportunity with bytes left, and how many.
#[derive(Clone, Debug)]
pub struct Opportunities {
    trace: Arc<DeliveryTrace>,
    /// The emulator's release lag, if the schedule has one.
    lag: Option<Box<LagState>>,
    /// The opportunity: the period it is in, its run, its place in the run.
    period: u64,
    run: usize,
    within: u32,
    /// Bytes left in it.
    left: u32,
}

/// The release lag's state: the series, where its replay starts, and the last release.
#[derive(Clone, Debug)]
struct LagState {
    series: Arc<Vec<u64>>,
    offset: u64,
    release: u64,
}

/// What a packet's transmission on a trace link is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Service {
    /// When its first opportunity is (it leaves the queue then), ns.
    pub start: u64,
    /// When its last byte goes, ns: it leaves the link then.
    pub end: u64,
}

impl Opportunities {
    pub fn new(trace: Arc<DeliveryTrace>) -> Opportunities {
        Opportunities { trace, lag: None, period: 0, run: 0, within: 0, left: OPPORTUNITY_BYTES }
    }

    /// Release each millisecond's packets late by `series` (ns, one per millisecond,
    /// replayed cyclically from a place drawn on `rng`).
    pub fn with_lag(mut self, series: Arc<Vec<u64>>, mut rng: crate::sim::rng::RngStream) -> Opportunities {
        use rand::Rng;
        let offset = rng.gen_range(0..series.len() as u64);
        self.lag = Some(Box::new(LagState { series, offset, release: 0 }));
        self
    }

    /// When a packet whose last byte goes at `end` (a millisecond tick) leaves the
    /// emulator: `end` itself without a lag; with one, the tick plus the series' lag for
    /// that millisecond, and never before the packets of earlier ticks (the emulator's
    /// loop wakes late and works through what is due in order: a stall releases several
    /// ticks' packets together).
    #[inline]
    pub fn release(&mut self, end: u64) -> u64 {
        let Some(lag) = self.lag.as_deref_mut() else { return end };
        let index = (lag.offset + end / NS_PER_MS) % lag.series.len() as u64;
        lag.release = lag.release.max(end.saturating_add(lag.series[index as usize]));
        lag.release
    }

    pub fn trace(&self) -> &DeliveryTrace {
        &self.trace
    }

    /// The current opportunity's millisecond.
    fn ms(&self) -> u64 {
        self.period * self.trace.period_ms + self.trace.runs[self.run].0
    }

    /// On to the next opportunity, whole.
    fn advance(&mut self) {
        self.left = OPPORTUNITY_BYTES;
        self.within += 1;
        if self.within == self.trace.runs[self.run].1 {
            self.within = 0;
            self.run += 1;
            if self.run == self.trace.runs.len() {
                self.run = 0;
                self.period += 1;
            }
        }
    }

    /// Skip to the first opportunity after millisecond `ms`, whole.
    fn skip_past(&mut self, ms: u64) {
        let period_ms = self.trace.period_ms;
        // opportunities of period p lie in [p·period, (p + 1)·period]
        let mut period = (ms / period_ms).saturating_sub(1);
        loop {
            let offset = ms.saturating_sub(period * period_ms);
            let run = self.trace.runs.partition_point(|&(at, _)| at <= offset);
            if period * period_ms > ms || run < self.trace.runs.len() {
                let run = if period * period_ms > ms { 0 } else { run };
                (self.period, self.run, self.within, self.left) = (period, run, 0, OPPORTUNITY_BYTES);
                return;
            }
            period += 1;
        }
    }

    /// Serve a packet of `bytes` (its size on the wire) arriving at `now` ns: it uses the
    /// opportunities after its arrival millisecond, from where the last packet left off
    /// (or, `continuing`, a packet taken by the transmitter at the instant the last one
    /// left, which may use what that one left of its opportunity).
    pub fn serve(&mut self, now: u64, bytes: u32, continuing: bool) -> Service {
        let arrived_ms = now / NS_PER_MS;
        let current = self.ms();
        let stale = if continuing { current < arrived_ms } else { current <= arrived_ms };
        if stale {
            self.skip_past(if continuing { arrived_ms - 1 } else { arrived_ms });
        }
        let start = self.ms() * NS_PER_MS;
        let mut remaining = bytes.saturating_add(PACKET_OVERHEAD_BYTES);
        loop {
            let used = remaining.min(self.left);
            remaining -= used;
            self.left -= used;
            let at_ms = self.ms();
            if self.left == 0 {
                self.advance();
            }
            if remaining == 0 {
                return Service { start, end: at_ms * NS_PER_MS };
            }
        }
    }
}

/// The delivery opportunities of a Mahimahi trace's text (one millisecond per line, as
/// mm-link reads it), as (millisecond, count) pairs; an error names the line. As mm-link:
/// a line must hold a whole number (an empty line is refused; so is a line of spaces),
/// the milliseconds must not decrease, and the last must be above 0. A final line break
/// (or CRLF line ends) is not an empty line.
pub fn parse_mahimahi(text: &str) -> Result<Vec<(u64, u32)>, String> {
    let mut runs: Vec<(u64, u32)> = Vec::new();
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Err("is empty: a trace has one millisecond per line".into());
    }
    for (index, line) in body.split('\n').enumerate() {
        let number = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            return Err(format!("line {number}: empty (every line is a millisecond)"));
        }
        let Ok(ms) = line.trim().parse::<u64>() else {
            return Err(format!("line {number}: {} is not a whole number of milliseconds", crate::schema::quoted(line)));
        };
        match runs.last_mut() {
            Some(last) if ms < last.0 => {
                return Err(format!("line {number}: {ms} comes after {}; the milliseconds must not decrease", last.0))
            }
            Some(last) if ms == last.0 => last.1 = last.1.saturating_add(1),
            _ => runs.push((ms, 1)),
        }
        if ms > MAX_PERIOD_MS {
            return Err(format!("line {number}: {ms} ms is past the longest trace cclab takes ({MAX_PERIOD_MS} ms, 10 days)"));
        }
    }
    if runs.last().map_or(true, |&(ms, _)| ms == 0) {
        return Err("lasts 0 ms (its last line is 0): a trace must last a nonzero time".into());
    }
    Ok(runs)
}

/// The delivery opportunities that carry a per-second (or any interval) rate log: lines
/// `time_s, rate_mbps` (comma or blank separated; `#` comments and a header line
/// allowed), times increasing from 0, each rate holding until the next time (the last
/// for as long as the interval before it, or 1 s alone). Each millisecond gets the
/// opportunities its rate carries, whole ones as they accrue (a running remainder), so
/// the trace delivers the log's bytes within one opportunity; the period is the log's
/// length. An error names the line.
pub fn opportunities_of_rate_log(text: &str) -> Result<Vec<(u64, u32)>, String> {
    let mut points: Vec<(usize, f64, f64)> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.split(|c: char| c == ',' || c.is_whitespace()).filter(|c| !c.is_empty()).collect();
        let parsed: Option<(f64, f64)> = match cells.as_slice() {
            [time, rate] => time.parse().ok().zip(rate.parse().ok()),
            _ => return Err(format!("line {number}: expected time_s, rate_mbps, got {}", crate::schema::quoted(line))),
        };
        let Some((time, rate)) = parsed else {
            if points.is_empty() {
                continue; // a header
            }
            return Err(format!("line {number}: {} is not two numbers", crate::schema::quoted(line)));
        };
        if !(time.is_finite() && time >= 0.0 && time <= MAX_PERIOD_MS as f64 / 1000.0) {
            return Err(format!("line {number}: time {} is not a number of seconds in [0, 864000]", crate::schema::Num(time)));
        }
        if !(rate.is_finite() && (0.0..=crate::sim::units::MAX_RATE_BPS as f64 / 1e6).contains(&rate)) {
            return Err(format!("line {number}: rate {} is not a number of Mb/s in [0, 10000000]", crate::schema::Num(rate)));
        }
        if let Some(&(_, before, _)) = points.last() {
            if time <= before {
                return Err(format!("line {number}: time {} is not after the line before's {}", crate::schema::Num(time), crate::schema::Num(before)));
            }
        }
        points.push((number, time, rate));
    }
    if points.is_empty() {
        return Err("has no time_s, rate_mbps lines".into());
    }
    let ms = |seconds: f64| (seconds * 1000.0).round() as u64;
    let last_span = if points.len() > 1 { points[points.len() - 1].1 - points[points.len() - 2].1 } else { 1.0 };
    let end_ms = ms(points[points.len() - 1].1 + last_span);
    let per_ms_at = |rate_mbps: f64| rate_mbps * 1e6 / (OPPORTUNITY_BYTES as f64 * 8.0 * 1000.0);
    let mut runs = Vec::new();
    let mut owed = 0.0;
    for (k, &(_, time, rate)) in points.iter().enumerate() {
        let until = points.get(k + 1).map_or(end_ms, |&(_, next, _)| ms(next));
        for millisecond in ms(time)..until {
            owed += per_ms_at(rate);
            // (a rate of exactly k opportunities a millisecond is not short by a rounding)
            let whole = (owed + 1e-9).floor();
            if whole >= 1.0 {
                owed -= whole;
                // delivered at the end of the millisecond (mm-link's ticks)
                runs.push((millisecond + 1, whole.min(u32::MAX as f64) as u32));
            }
        }
    }
    if runs.is_empty() {
        return Err("carries nothing: its rates are too small to make one opportunity over the whole log".into());
    }
    // The period is the log's length, which a Mahimahi trace marks by an opportunity at
    // its end: one more there if the log's bytes did not end exactly then (within one
    // opportunity of the log).
    if runs.last().expect("not empty").0 < end_ms {
        runs.push((end_ms, 1));
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NS_PER_MS;

    fn trace(text: &str) -> Opportunities {
        Opportunities::new(Arc::new(DeliveryTrace::new(&parse_mahimahi(text).unwrap()).unwrap()))
    }

    #[test]
    fn one_opportunity_carries_several_small_packets_and_the_rest_is_lost() {
        // one opportunity each ms: 1504 bytes = three 496-byte packets (+4 each = 1500)
        let mut link = trace("1\n");
        let served: Vec<Service> = (0..4).map(|_| link.serve(300_000, 496, false)).collect();
        assert_eq!(served[0], Service { start: MS, end: MS });
        assert_eq!(served[1].end, MS);
        assert_eq!(served[2].end, MS, "1500 of the first opportunity's 1504 bytes");
        assert_eq!(served[3], Service { start: MS, end: 2 * MS }, "4 bytes left in ms 1, the rest in ms 2");
        // the queue empties; what was left of ms 2 is lost once ms 2 has passed
        assert_eq!(link.serve(2 * MS + 10, 100, false), Service { start: 3 * MS, end: 3 * MS });
    }

    #[test]
    fn a_packet_spans_opportunities() {
        // 1504 bytes per opportunity: 3000 + 4 take the one at 1 ms and 1500 of the one at 3 ms
        let mut link = trace("1\n3\n");
        let big = link.serve(0, 3000, false);
        assert_eq!(big, Service { start: MS, end: 3 * MS }, "opportunities at 1 ms and 3 ms (period 3 ms)");
        // the next period: 4 (= 3 + 1) and 6 ms
        assert_eq!(link.serve(0, 1500, false).end, 4 * MS);
        assert_eq!(link.serve(0, 1500, false).end, 6 * MS);
    }

    #[test]
    fn an_arrival_cannot_use_an_opportunity_of_its_own_millisecond() {
        let mut link = trace("1\n");
        assert_eq!(link.serve(5 * MS, 1500, false).end, 6 * MS, "arrived in ms 5: the opportunity of ms 5 is spent");
        assert_eq!(link.serve(5 * MS + 999_999, 1500, false).end, 7 * MS, "queued behind it");
        // the transmitter taking the next packet as one leaves may use what it left
        let mut link = trace("1\n");
        let first = link.serve(0, 100, false);
        assert_eq!(link.serve(first.end, 100, true).end / MS, first.end / MS);
        assert_eq!(link.serve(first.end, 100, false).end, first.end + MS, "an arrival then cannot");
    }

    #[test]
    fn the_trace_repeats_from_its_end_and_lost_opportunities_are_skipped() {
        // two at 5 ms, one at 10: period 10 ms
        let mut link = trace("5\n5\n10\n");
        let mut ms = |now: u64| link.serve(now, 1500, false).end / MS;
        assert_eq!([ms(0), ms(0), ms(0), ms(0)], [5, 5, 10, 15], "the second period starts at 10");
        // idle past 20 ms: the next is 25 (wrap-around, skipping 15, 20)
        assert_eq!(ms(21 * MS), 25);
        // a trace starting at 0 ms: its 0 and its period fall on the same millisecond
        let mut link = trace("0\n2\n");
        let ends: Vec<u64> = (0..4).map(|_| link.serve(0, 1500, false).end / MS).collect();
        assert_eq!(ends, [2, 2, 4, 4], "0 is spent by an arrival at 0; then 2, 2 (0 + period), 4, 4");
    }

    #[test]
    fn the_next_opportunity_after_a_millisecond() {
        let t = DeliveryTrace::new(&parse_mahimahi("3\n3\n10\n").unwrap()).unwrap();
        let next: Vec<u64> = [0, 2, 3, 9, 10, 12, 13, 25].iter().map(|&ms| t.next_opportunity_after(ms)).collect();
        assert_eq!(next, [3, 3, 10, 10, 13, 13, 20, 30]);
        let t = DeliveryTrace::new(&parse_mahimahi("0\n2\n").unwrap()).unwrap();
        assert_eq!([0, 1, 2, 3].map(|ms| t.next_opportunity_after(ms)), [2, 2, 4, 4]);
    }

    #[test]
    fn capacity_and_mean_rate_count_the_opportunities() {
        let t = DeliveryTrace::new(&parse_mahimahi("1\n1\n").unwrap()).unwrap();
        assert_eq!(t.mean_rate_bps(), 2.0 * 1504.0 * 8.0 * 1000.0);
        assert_eq!(t.opportunities_before(1), 0);
        assert_eq!(t.opportunities_before(2), 2);
        assert_eq!(t.capacity_bits(10 * MS), 18.0 * 1504.0 * 8.0, "ms 1 … 9");
    }

    #[test]
    fn bad_traces_name_the_line() {
        let err = |text: &str| parse_mahimahi(text).unwrap_err();
        assert_eq!(err(""), "is empty: a trace has one millisecond per line");
        assert_eq!(err("1\n\n2\n"), "line 2: empty (every line is a millisecond)");
        assert!(err("1\nx\n").starts_with("line 2: \"x\" is not a whole number"));
        assert!(err("1\n-3\n").starts_with("line 2: \"-3\""));
        assert!(err("5\n3\n").starts_with("line 2: 3 comes after 5"));
        assert!(err("0\n0\n").contains("lasts 0 ms"));
        assert_eq!(parse_mahimahi("1\r\n2\r\n").unwrap(), [(1, 1), (2, 1)]);
        assert!(DeliveryTrace::new(&[(3, 1), (2, 1)]).unwrap_err().contains("must not decrease"));
        assert!(DeliveryTrace::new(&[(3, 0)]).unwrap_err().contains("a count of 0"));
    }

    #[test]
    fn a_rate_log_becomes_the_opportunities_that_carry_it() {
        // 12.032 Mb/s is one opportunity a millisecond; 24.064 two
        let runs = opportunities_of_rate_log("time,rate\n0, 12.032\n1, 24.064\n").unwrap();
        let t = DeliveryTrace::new(&runs).unwrap();
        assert_eq!(t.period_ms(), 2000);
        assert_eq!(t.opportunities_per_period(), 1000 + 2000);
        assert!(opportunities_of_rate_log("0 1\n0 2\n").unwrap_err().starts_with("line 2: time 0 is not after"));
        assert!(opportunities_of_rate_log("0 -1\n").unwrap_err().starts_with("line 1: rate -1"));
        // an outage at the end: the period is still the log's length (2 s)
        let runs = opportunities_of_rate_log("0 12.032\n1 0\n").unwrap();
        assert_eq!(DeliveryTrace::new(&runs).unwrap().period_ms(), 2000);
    }

    /// The release lag replays its series by the millisecond from its offset: a tick's
    /// packets leave at tick + lag, never before an earlier tick's (a 3-ms stall at tick 2
    /// holds ticks 3 and 4 until 5 ms, then the series goes on).
    #[test]
    fn release_lag_replays_its_series_in_order() {
        let series: Vec<u64> = [100, 200, 3000, 400, 0, 250].iter().map(|us| us * 1000).collect();
        let mut opportunities = trace("1\n");
        opportunities.lag = Some(Box::new(LagState { series: Arc::new(series), offset: 0, release: 0 }));
        let us = 1000;
        let releases: Vec<u64> = (0..7).map(|ms| opportunities.release(ms * MS)).collect();
        assert_eq!(
            releases,
            vec![100 * us, MS + 200 * us, 5 * MS, 5 * MS, 5 * MS, 5 * MS + 250 * us, 6 * MS + 100 * us]
        );
        // the same tick twice (two packets in one millisecond) leaves together
        assert_eq!(opportunities.release(6 * MS), 6 * MS + 100 * us);
        // no lag: a packet leaves at its tick
        assert_eq!(trace("1\n").release(7 * MS), 7 * MS);
    }
}
