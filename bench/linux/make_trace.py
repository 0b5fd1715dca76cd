#!/usr/bin/env python3
"""A seeded, cellular-like variable-rate Mahimahi trace: a Markov-modulated Poisson link.

    python3 bench/linux/make_trace.py --seed 1 [--seconds 60] [--states 2,6,12,24] [--dwell-ms 500]
        [--out bench/linux/traces/markov-seed1.trace]

The link is in one of a few rate states (default 2, 6, 12 and 24 Mb/s). It stays in a state
for an exponentially distributed time (mean --dwell-ms, at least 1 ms), then moves to one of
the other states, chosen uniformly. The first state is uniform over all of them. In every
millisecond the number of delivery opportunities is Poisson with mean rate/12 (one 1504-byte
opportunity per ms is nominally 12 Mb/s, the convention of harness.py). The output is a
Mahimahi trace: one line per opportunity, the millisecond it falls in (1..seconds·1000,
repeated for several in one ms). The last millisecond always holds at least one opportunity
so that the trace's period (its last line) is exactly the requested length.

Standard library only; the same seed and arguments always give the same file. Prints the
file's mean rate and time in each state.
"""
from __future__ import annotations

import argparse
import math
import random
from pathlib import Path


def poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method (the means here are at most a few)."""
    if mean <= 0:
        return 0
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def markov_trace(seed: int, seconds: float, states: list[float], dwell_ms: float) -> tuple[list[int], dict]:
    rng = random.Random(seed)
    total_ms = int(round(seconds * 1000))
    stamps: list[int] = []
    time_in = {rate: 0 for rate in states}
    state = rng.randrange(len(states))
    left = max(1, round(rng.expovariate(1.0 / dwell_ms)))
    for ms in range(1, total_ms + 1):
        if left == 0:
            state = rng.choice([i for i in range(len(states)) if i != state])
            left = max(1, round(rng.expovariate(1.0 / dwell_ms)))
        rate = states[state]
        time_in[rate] += 1
        count = poisson(rng, rate / 12.0)
        if ms == total_ms:
            count = max(count, 1)
        stamps.extend([ms] * count)
        left -= 1
    return stamps, time_in


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--states", default="2,6,12,24", help="rates of the states, Mb/s (default 2,6,12,24)")
    p.add_argument("--dwell-ms", type=float, default=500.0, help="mean time in a state, ms (default 500)")
    p.add_argument("--out", type=Path, help="default bench/linux/traces/markov-seed<SEED>.trace")
    args = p.parse_args()
    states = [float(x) for x in args.states.split(",")]
    out = args.out or Path(__file__).resolve().parent / "traces" / f"markov-seed{args.seed}.trace"
    stamps, time_in = markov_trace(args.seed, args.seconds, states, args.dwell_ms)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(f"{ms}\n" for ms in stamps))
    mean = len(stamps) / stamps[-1] * 12.0
    shares = ", ".join(f"{rate:g} Mb/s {ms / stamps[-1]:.1%}" for rate, ms in time_in.items())
    print(f"{out}: {len(stamps)} opportunities over {stamps[-1]} ms, mean {mean:.3f} Mb/s; time in states: {shares}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
