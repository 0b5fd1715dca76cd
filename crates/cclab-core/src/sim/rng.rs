//! Seeded random streams: every component that draws random numbers owns its own
//! stream, derived from (scenario seed, stream id), so adding a random component to a
//! scenario never perturbs the draws of the others.
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub type RngStream = ChaCha8Rng;

/// Stream-id spaces, kept apart so ids never collide.
pub const LINK_LOSS_STREAMS: u64 = 1 << 32;
pub const FLOW_START_STREAMS: u64 = 2 << 32;
pub const RED_STREAMS: u64 = 3 << 32;
pub const APP_STREAMS: u64 = 4 << 32;
/// ns-2's per-agent clock offsets (`boot_time_`), with `tcp.ns2.tick_clock`.
pub const TCP_CLOCK_STREAMS: u64 = 5 << 32;
/// A congestion control's own draws (BBR's first gain phase), one stream per flow.
pub const CC_STREAMS: u64 = 6 << 32;
/// An admission-time queue discipline's draws (PIE), one stream per link direction.
pub const AQM_STREAMS: u64 = 7 << 32;
/// One stream per group with flow arrivals: gaps and sizes.
pub const ARRIVAL_STREAMS: u64 = 8 << 32;
/// A trace link's release lag (its emulator's late wake-ups), by link direction.
pub const LINK_LAG_STREAMS: u64 = 9 << 32;

pub fn stream(seed: u64, stream_id: u64) -> RngStream {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream_id);
    rng
}
