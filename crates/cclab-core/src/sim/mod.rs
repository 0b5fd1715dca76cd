//! Simulation substrate: integer time, the event queue and seeded RNG streams.
pub mod events;
pub mod rng;
pub mod units;

pub use events::{Event, EventQueue};
pub use units::{Duration, Rate, Time, NS_PER_SEC};

/// Ask the CPU to bring `value`'s cache line in ahead of its use. A hint only: it
/// changes no result, and on other architectures it does nothing.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program observes and cannot fault; `value`
    // is a valid reference in any case.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
