//! When an emulator's event loop hands packets on: `emulator = { kind = "mahimahi",
//! overshoot = "120us" }` on a link makes each direction release its packets as one of
//! Mahimahi's shells does (`src/packet/packetshell.cc`, `src/util/event_loop.cc`,
//! `src/frontend/link_queue.cc` and `delay_queue.cc`; read, not copied).
//!
//! Each direction of a shell is a process looping on `poll()`: it wakes when a packet
//! arrives from its input, or when its timeout expires. The timeout is computed in whole
//! milliseconds from the millisecond clock (`timestamp()`, the wall clock's milliseconds):
//! until the next delivery opportunity for `mm-link`, until the first queued packet's
//! release millisecond for `mm-delay` (none while it holds nothing). On every wake it
//! hands on everything due by the current millisecond. So a packet due at millisecond
//! `m` leaves at the loop's first wake in or after `m`:
//!
//! - with no arrivals, the loop sleeps a whole millisecond from the instant it went to
//!   sleep, and the kernel wakes it a little late (timer slack, scheduling): each wake
//!   falls `overshoot` later in its millisecond than the one before, a sawtooth that
//!   wraps past the tick (two ticks then leave together);
//! - an arrival wakes the loop at once and restarts the timeout from that instant: a
//!   packet arriving just after a tick releases the tick's packets then; one arriving just
//!   before it pushes the release later.
//!
//! The release times therefore follow the traffic: evenly paced arrivals keep releases
//! close behind the ticks, arrivals clocked by the releases themselves let them drift.
//! Measured on this project's machine (bench/linux/diag/FINDINGS.md, `loop_model.py`), an
//! overshoot of 120 µs puts 85–92 % of the kernel's captured releases within 100 µs of
//! this model (both directions, CUBIC and BBR, 12 to 96 Mb/s). The rest come later: the
//! process was off the CPU. `stall_probability` and `stall_mean` model that: in each millisecond,
//! with that probability, the loop is held off from a uniformly drawn instant for an
//! exponentially distributed time (drawn from the millisecond and the link's stream, so
//! the same whichever way the loop reaches it); a wake that falls in a stall waits for
//! its end. `wake_latency` models a loop whose CPU had gone idle: a packet handed to it is
//! read, and stamped, that long after it arrives (or at the timer's wake if that comes
//! first); on a VM whose idle vCPUs halt, about 50 µs, against 5 when they poll
//! (bench/linux/diag/FINDINGS.md, "Wake latency").
//!
//! The packets a direction holds are the ones not yet released (a link with an emulator
//! has no propagation after its release: `mm-delay`'s delay is its release millisecond),
//! and only the first one's release is fixed when it is scheduled: the others' depend on
//! arrivals still to come. An arrival can move the first one's release either way; the
//! link then schedules it again, and the engine passes over the superseded event.
use super::delivery_trace::DeliveryTrace;
use crate::schema::{deserialize_tagged, nested_error, parse_params, unknown_variant};
use crate::sim::rng::RngStream;
use crate::sim::{Duration, Time};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

const NS_PER_MS: u64 = 1_000_000;
/// The largest overshoot taken (10 ms): beyond it the loop is stalled, not late.
pub const MAX_OVERSHOOT: Duration = Duration(10 * NS_PER_MS);
/// The longest mean stall taken (5 ms; stalls are cut at 8 means).
pub const MAX_STALL_MEAN: Duration = Duration(5 * NS_PER_MS);
pub const EMULATOR_KINDS: &[&str] = &["mahimahi"];

/// `emulator = { kind = "mahimahi", overshoot = "120us" }`, with
/// `stall_probability = 0.03, stall_mean = "600us"` for the loop's stalls.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EmulatorSpec {
    /// The emulator: "mahimahi" (its shells' loops, `src/packet/packetshell.cc`).
    pub kind: &'static str,
    /// How late the loop's timer wakes it after the whole milliseconds it slept (at most
    /// 10ms; 120us on this project's reference machine).
    pub overshoot: Duration,
    /// The chance that the loop stalls in a given millisecond, in [0, 1] (0.03 on the
    /// reference machine).
    #[serde(default)]
    pub stall_probability: f64,
    /// The mean length of a stall, exponentially distributed and cut at 8 means (at most
    /// 5ms; 600us on the reference machine); required with a stall_probability.
    #[serde(default)]
    pub stall_mean: Duration,
    /// How long a packet handed to the sleeping loop takes to wake it (at most 10ms;
    /// 0 by default): the packet is read, and stamped, then, or at the timer's wake if
    /// that comes first.
    #[serde(default)]
    pub wake_latency: Duration,
}

impl<'de> Deserialize<'de> for EmulatorSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            overshoot: Duration,
            #[serde(default)]
            stall_probability: f64,
            #[serde(default)]
            stall_mean: Duration,
            #[serde(default)]
            wake_latency: Duration,
        }
        deserialize_tagged(d, "kind", "a table such as { kind = \"mahimahi\", overshoot = \"120us\" }", |kind, params| match kind {
            "mahimahi" => {
                let f: Fields = parse_params(params)?;
                if f.overshoot > MAX_OVERSHOOT {
                    return Err(nested_error("overshoot", &format!("{} is above {MAX_OVERSHOOT}", f.overshoot)));
                }
                if !(0.0..=1.0).contains(&f.stall_probability) {
                    return Err(nested_error("stall_probability", &format!("{} is not a probability in [0, 1]", crate::schema::Num(f.stall_probability))));
                }
                if f.stall_mean > MAX_STALL_MEAN {
                    return Err(nested_error("stall_mean", &format!("{} is above {MAX_STALL_MEAN}", f.stall_mean)));
                }
                if f.stall_probability > 0.0 && f.stall_mean.0 == 0 {
                    return Err(nested_error("stall_mean", "missing or 0 with a stall_probability above 0; give the stalls' mean length"));
                }
                if f.wake_latency > MAX_OVERSHOOT {
                    return Err(nested_error("wake_latency", &format!("{} is above {MAX_OVERSHOOT}", f.wake_latency)));
                }
                Ok(EmulatorSpec { kind: "mahimahi", overshoot: f.overshoot, stall_probability: f.stall_probability, stall_mean: f.stall_mean, wake_latency: f.wake_latency })
            }
            other => Err(unknown_variant("kind", other, EMULATOR_KINDS)),
        })
    }
}

/// One direction's loop: the packets it holds (by the millisecond each is due) and when
/// it last woke.
#[derive(Clone, Debug)]
pub struct EmulatorLoop {
    overshoot: Time,
    wake_latency: Time,
    /// The wake that reads the packets handed to the sleeping loop (with a wake latency).
    read_wake: Time,
    stalls: Option<Stalls>,
    /// `mm-link`'s trace (its timeout runs to the next opportunity); None: `mm-delay`.
    trace: Option<Arc<DeliveryTrace>>,
    /// `mm-delay`'s delay in whole milliseconds (0 for `mm-link`).
    delay_ms: u64,
    last_wake: Time,
    /// The millisecond each held packet is due, oldest first.
    dues: VecDeque<u64>,
}

impl EmulatorLoop {
    /// `mm-link`'s loop: packets due at their trace's ticks, the timeout to the next
    /// delivery opportunity.
    pub fn link(spec: &EmulatorSpec, trace: Arc<DeliveryTrace>, rng: RngStream) -> EmulatorLoop {
        EmulatorLoop::new(spec, Some(trace), 0, rng)
    }

    /// `mm-delay`'s loop for a delay of `delay_ms`: a packet arriving in millisecond `m`
    /// is due at `m + delay_ms`.
    pub fn delay(spec: &EmulatorSpec, delay_ms: u64, rng: RngStream) -> EmulatorLoop {
        EmulatorLoop::new(spec, None, delay_ms, rng)
    }

    fn new(spec: &EmulatorSpec, trace: Option<Arc<DeliveryTrace>>, delay_ms: u64, rng: RngStream) -> EmulatorLoop {
        EmulatorLoop { overshoot: spec.overshoot.ns(), wake_latency: spec.wake_latency.ns(), read_wake: 0, stalls: Stalls::new(spec, rng), trace, delay_ms, last_wake: 0, dues: VecDeque::new() }
    }

    /// The release millisecond of a packet reaching `mm-delay` at `at`.
    pub fn delay_due(&self, at: Time) -> u64 {
        at / NS_PER_MS + self.delay_ms
    }

    /// When the loop reads a packet handed to it at `at`: after its wake latency, or at
    /// the timer's wake if that comes first (it then finds the packet waiting).
    /// Packets handed to it before that wake are read with the first.
    #[inline]
    pub fn reads_at(&mut self, at: Time) -> Time {
        if self.wake_latency == 0 || at <= self.last_wake {
            return at;
        }
        if at <= self.read_wake {
            return self.read_wake;
        }
        let woken = self.runs_at(at.saturating_add(self.wake_latency));
        self.read_wake = match self.timer_wake_after(at) {
            Some(timer) if timer < woken => timer,
            _ => woken,
        };
        self.read_wake
    }

    /// The loop's first timer wake at or after `at`, if its timer is set (mm-delay's is
    /// not while it holds nothing).
    fn timer_wake_after(&self, at: Time) -> Option<Time> {
        let mut wake = self.last_wake;
        while wake < at {
            let ms = wake / NS_PER_MS;
            let next = match &self.trace {
                Some(trace) => trace.next_opportunity_after(ms),
                None => *self.dues.front()?,
            };
            wake = self.runs_at(wake.saturating_add((next.max(ms + 1) - ms) * NS_PER_MS).saturating_add(self.overshoot));
        }
        Some(wake)
    }

    /// The loop runs at `now`: a packet arrived, or packets were handed on.
    #[inline]
    pub fn wake(&mut self, now: Time) {
        self.last_wake = self.last_wake.max(self.runs_at(now));
    }

    /// When the loop can run if woken at `at`: then, or at the end of the stall `at`
    /// falls in.
    #[inline]
    fn runs_at(&self, at: Time) -> Time {
        match &self.stalls {
            None => at,
            Some(stalls) => stalls.after(at),
        }
    }

    /// A packet due at millisecond `due` joins the held ones.
    pub fn hold(&mut self, due: u64) {
        self.dues.push_back(due);
    }

    /// The first held packet was handed on.
    pub fn handed_on(&mut self) {
        self.dues.pop_front();
    }

    /// When the first held packet leaves, as things stand (None if none is held).
    pub fn first_release(&self) -> Option<Time> {
        self.dues.front().map(|&due| self.release(due))
    }

    /// When a packet due at millisecond `due` leaves if nothing arrives before: at the
    /// loop's first wake in or after `due`, following its timeout from its last wake.
    /// (Exact for the first held packet; for `mm-delay` the timeout runs to the first
    /// held packet's millisecond, so it is meant for that one.)
    pub fn release(&self, due: u64) -> Time {
        let mut wake = self.last_wake;
        loop {
            let ms = wake / NS_PER_MS;
            if ms >= due {
                return wake;
            }
            // poll()'s timeout: whole milliseconds from the clock's millisecond to the
            // next thing due (mm-link: its next opportunity; mm-delay: the packet)
            let next = match &self.trace {
                Some(trace) => trace.next_opportunity_after(ms),
                None => due,
            };
            wake = self.runs_at(wake.saturating_add((next - ms) * NS_PER_MS).saturating_add(self.overshoot));
        }
    }

    /// Packets held (not yet handed on).
    pub fn held(&self) -> usize {
        self.dues.len()
    }
}

/// The loop's stalls: at most one starting in each millisecond, drawn from a hash of the
/// millisecond and a key from the link's stream (so a millisecond's stall is the same
/// however often it is looked at).
#[derive(Clone, Debug)]
struct Stalls {
    key: u64,
    /// The chance of a stall in a millisecond, as a threshold on 64 random bits.
    threshold: u64,
    mean: f64,
    longest: Time,
}

impl Stalls {
    fn new(spec: &EmulatorSpec, mut rng: RngStream) -> Option<Stalls> {
        use rand::RngCore;
        if spec.stall_probability <= 0.0 || spec.stall_mean.0 == 0 {
            return None;
        }
        let threshold = if spec.stall_probability >= 1.0 { u64::MAX } else { (spec.stall_probability * u64::MAX as f64) as u64 };
        let mean = spec.stall_mean.0 as f64;
        Some(Stalls { key: rng.next_u64(), threshold, mean, longest: (8.0 * mean) as Time })
    }

    /// The stall starting in millisecond `ms`, if any: (start, end).
    fn in_ms(&self, ms: u64) -> Option<(Time, Time)> {
        let draw = splitmix64(self.key ^ ms.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if draw >= self.threshold {
            return None;
        }
        let second = splitmix64(draw ^ self.key);
        let phase = (second >> 32) * NS_PER_MS >> 32;
        // (0, 1]: never ln 0
        let uniform = ((second & 0xFFFF_FFFF) + 1) as f64 / 4_294_967_296.0;
        let length = ((-uniform.ln() * self.mean) as Time).min(self.longest);
        let start = ms * NS_PER_MS + phase;
        Some((start, start + length))
    }

    /// The first instant at or after `at` outside every stall.
    fn after(&self, mut at: Time) -> Time {
        let lookback = self.longest / NS_PER_MS + 1;
        'again: loop {
            let ms = at / NS_PER_MS;
            for earlier in ms.saturating_sub(lookback)..=ms {
                if let Some((start, end)) = self.in_ms(earlier) {
                    if start <= at && at < end {
                        at = end;
                        continue 'again;
                    }
                }
            }
            return at;
        }
    }
}

/// SplitMix64's finaliser: 64 well-mixed bits from any 64.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::delivery_trace::parse_mahimahi;

    const MS: u64 = NS_PER_MS;
    const US: u64 = 1000;

    fn spec(overshoot_us: u64) -> EmulatorSpec {
        EmulatorSpec { kind: "mahimahi", overshoot: Duration(overshoot_us * US), stall_probability: 0.0, stall_mean: Duration(0), wake_latency: Duration(0) }
    }

    fn rng() -> RngStream {
        crate::sim::rng::stream(1, 0)
    }

    fn every_ms() -> DeliveryTrace {
        DeliveryTrace::new(&parse_mahimahi("1\n").unwrap()).unwrap()
    }

    /// With nothing arriving, each wake of mm-link's loop falls one overshoot later in
    /// its millisecond: the release lag climbs by the overshoot a tick and wraps once it
    /// passes the next tick (that tick's packets then leave with the one after).
    #[test]
    fn the_timer_alone_makes_a_sawtooth() {
        let mut lp = EmulatorLoop::link(&spec(300), Arc::new(every_ms()), rng());
        lp.wake(10 * MS + 100 * US);
        let mut lags = Vec::new();
        for tick in 11..17 {
            let release = lp.release(tick);
            lags.push((release - tick * MS) / US);
            lp.wake(release);
        }
        // wakes at 11.4, 12.7, 14.0 (for 13 and 14), 15.3, 16.6
        assert_eq!(lags, [400, 700, 1000, 0, 300, 600]);
    }

    /// An arrival wakes the loop: after the tick it releases the tick's packets at once;
    /// before the tick it restarts the timeout, pushing the release later.
    #[test]
    fn an_arrival_moves_the_release_either_way() {
        let mut lp = EmulatorLoop::link(&spec(100), Arc::new(every_ms()), rng());
        lp.wake(4 * MS + 200 * US);
        assert_eq!(lp.release(5), 5 * MS + 300 * US, "the timer from 4.2 ms");
        let mut later = lp.clone();
        later.wake(4 * MS + 900 * US);
        assert_eq!(later.release(5), 6 * MS, "an arrival at 4.9 ms: 1 ms + 100 µs from it");
        lp.wake(5 * MS + 50 * US);
        assert_eq!(lp.release(5), 5 * MS + 50 * US, "an arrival at 5.05 ms releases tick 5 then");
    }

    /// The timeout runs to the next opportunity of the trace, however far.
    #[test]
    fn the_timeout_runs_to_the_next_opportunity() {
        let trace = DeliveryTrace::new(&parse_mahimahi("3\n10\n").unwrap()).unwrap();
        let mut lp = EmulatorLoop::link(&spec(100), Arc::new(trace), rng());
        lp.wake(3 * MS + 500 * US);
        // from 3.5 ms: asleep until 10 ms + 0.5 + overshoot
        assert_eq!(lp.release(10), 10 * MS + 600 * US);
        // the next period: 13, 20
        lp.wake(10 * MS + 600 * US);
        assert_eq!(lp.release(13), 13 * MS + 700 * US);
    }

    /// mm-delay: due at the arrival's millisecond plus the delay, released by the timeout
    /// set from the last wake, or by an arrival after that millisecond.
    #[test]
    fn mm_delay_releases_at_its_loops_wake() {
        let mut lp = EmulatorLoop::delay(&spec(100), 20, rng());
        let arrival = 7 * MS + 400 * US;
        lp.wake(arrival);
        assert_eq!(lp.delay_due(arrival), 27);
        lp.hold(27);
        assert_eq!(lp.first_release(), Some(27 * MS + 500 * US));
        lp.wake(27 * MS + 200 * US);
        assert_eq!(lp.first_release(), Some(27 * MS + 200 * US), "an arrival after the millisecond");
        lp.handed_on();
        assert_eq!((lp.held(), lp.first_release()), (0, None));
    }

    /// Stalls come in the given share of milliseconds with the given mean length, are the
    /// same however often they are looked at, and hold off any wake that falls in one.
    #[test]
    fn stalls_hold_the_loop_off() {
        let stalled = EmulatorSpec { stall_probability: 0.05, stall_mean: Duration(600 * US), ..spec(100) };
        let stalls = Stalls::new(&stalled, rng()).unwrap();
        let found: Vec<(Time, Time)> = (0..100_000).filter_map(|ms| stalls.in_ms(ms)).collect();
        let share = found.len() as f64 / 100_000.0;
        let mean = found.iter().map(|(a, b)| (b - a) as f64).sum::<f64>() / found.len() as f64;
        assert!((0.045..0.055).contains(&share), "{share}");
        assert!((550e3..650e3).contains(&mean), "{mean}");
        assert_eq!(stalls.in_ms(1234), stalls.in_ms(1234));
        // a wake inside a stall waits for its end; the timer's wake too
        let (start, end) = found[0];
        assert_eq!(stalls.after(start), stalls.after(end));
        assert!(stalls.after(start) >= end);
        assert_eq!(stalls.after(start - 1), start - 1, "just before it");
        let mut lp = EmulatorLoop::link(&stalled, Arc::new(every_ms()), rng());
        lp.wake(start - 50 * US);
        assert_eq!(lp.last_wake, start - 50 * US);
        lp.wake(start + 1);
        assert_eq!(lp.last_wake, stalls.after(end), "woken in the stall: runs at its end");
        let tick = lp.last_wake / MS + 1;
        let timer = lp.last_wake + MS + 100 * US;
        assert_eq!(lp.release(tick), stalls.after(timer));
        // no stalls without a probability
        assert!(Stalls::new(&spec(100), rng()).is_none());
    }

    /// A packet handed to the sleeping loop is read a wake latency later, or at the
    /// timer's wake if that comes first; packets handed over before that wake are read
    /// with the first; a loop already awake reads at once.
    #[test]
    fn a_wake_latency_delays_the_read() {
        let latent = EmulatorSpec { wake_latency: Duration(50 * US), ..spec(100) };
        let mut lp = EmulatorLoop::delay(&latent, 20, rng());
        lp.wake(3 * MS);
        assert_eq!(lp.reads_at(7 * MS + 400 * US), 7 * MS + 450 * US, "mm-delay holds nothing: no timer");
        assert_eq!(lp.reads_at(7 * MS + 420 * US), 7 * MS + 450 * US, "read with the first");
        lp.wake(7 * MS + 450 * US);
        assert_eq!(lp.reads_at(7 * MS + 450 * US), 7 * MS + 450 * US, "awake: at once");
        let read = lp.reads_at(7 * MS + 980 * US);
        assert_eq!(lp.delay_due(read), 28, "stamped in the next millisecond");
        // mm-link: its timer, 1 ms + 100 µs after the last wake, comes before the latency ends
        let mut link = EmulatorLoop::link(&latent, Arc::new(every_ms()), rng());
        link.wake(4 * MS + 200 * US);
        assert_eq!(link.reads_at(5 * MS + 280 * US), 5 * MS + 300 * US, "the timer's wake at 5.3 ms");
        assert_eq!(link.reads_at(5 * MS + 310 * US), 5 * MS + 360 * US);
        // without a latency, the read is the arrival
        let mut prompt = EmulatorLoop::link(&spec(100), Arc::new(every_ms()), rng());
        prompt.wake(4 * MS + 200 * US);
        assert_eq!(prompt.reads_at(5 * MS + 280 * US), 5 * MS + 280 * US);
    }

    #[test]
    fn bad_specs_say_what_is_allowed() {
        let parse = |text: &str| toml::from_str::<toml::Table>(text).unwrap()["e"].clone().try_into::<EmulatorSpec>();
        assert_eq!(parse("e = { kind = \"mahimahi\", overshoot = \"120us\" }").unwrap(), spec(120));
        assert!(parse("e = { kind = \"ns3\", overshoot = \"1us\" }").unwrap_err().to_string().contains("mahimahi"));
        assert!(parse("e = { kind = \"mahimahi\", overshoot = \"11ms\" }").unwrap_err().to_string().contains("above 10ms"));
        assert!(parse("e = { kind = \"mahimahi\", overshot = \"1us\" }").unwrap_err().to_string().contains("overshot"));
        assert!(parse("e = { kind = \"mahimahi\", overshoot = \"1us\", stall_probability = 1.5 }").unwrap_err().to_string().contains("[0, 1]"));
        assert!(parse("e = { kind = \"mahimahi\", overshoot = \"1us\", stall_probability = 0.1 }").unwrap_err().to_string().contains("stall_mean"));
        assert!(parse("e = { kind = \"mahimahi\", overshoot = \"1us\", wake_latency = \"20ms\" }").unwrap_err().to_string().contains("wake_latency"));
        assert!(parse("e = { kind = \"mahimahi\", overshoot = \"1us\", wake_latency = \"-1us\" }").is_err());
    }
}
