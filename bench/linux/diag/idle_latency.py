"""How late this machine wakes a sleeping process, with its vCPUs halting or polling when idle.

Two measurements, each with the CPUs idling as the machine boots (this machine kind: halting
at once, `haltpoll.guest_halt_poll_ns=0`) and then by polling (/dev/cpu_dma_latency held at
0, as `harness.py --idle-poll` does):

- the timer: a process sleeping in poll() for 1 ms, as Mahimahi's loops do between ticks,
  and how much later than 1 ms it runs again (their `overshoot`; the share over 200 µs is
  the short end of their stalls);
- a wake from another CPU: a process on CPU 0 writes to a pipe that a process on CPU 1 is
  sleeping on, as a packet handed from one of Mahimahi's processes to another, and how long
  the reader takes to run (the loops' `wake_latency`).

    python3 idle_latency.py [--samples 3000] [--gap-us 1000]

Needs write access to /dev/cpu_dma_latency (root) for the polling half. Standard library
only; the interpreter adds a few µs to every figure (both modes alike).
"""
import argparse
import os
import select
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import idle_by_polling  # noqa: E402


def quantiles(values_us: list, label: str) -> str:
    xs = sorted(values_us)
    at = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
    over = sum(x > 200 for x in xs) / len(xs)
    return (f"{label}: p10 {at(0.1):.0f}  p50 {at(0.5):.0f}  p90 {at(0.9):.0f}  p99 {at(0.99):.0f}  "
            f"p99.9 {at(0.999):.0f} µs; over 200 µs {100 * over:.2f} %")


def timer_overshoot(samples: int) -> list:
    """How much later than 1 ms a process sleeping in poll(1 ms) runs again, µs."""
    poller = select.poll()
    late = []
    for _ in range(samples):
        start = time.perf_counter_ns()
        poller.poll(1)
        late.append((time.perf_counter_ns() - start) / 1e3 - 1000.0)
    return late


def cross_cpu_wake(samples: int, gap_us: int) -> list:
    """How long a process sleeping on a pipe (CPU 1) takes to run after a process on CPU 0
    writes to it, µs; the writer waits `gap_us` between writes so the reader's CPU goes idle."""
    to_reader, to_writer = os.pipe(), os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.sched_setaffinity(0, {1})
            for _ in range(samples):
                sent = int.from_bytes(os.read(to_reader[0], 8), "little")
                os.write(to_writer[1], (time.monotonic_ns() - sent).to_bytes(8, "little"))
        finally:
            os._exit(0)
    os.sched_setaffinity(0, {0})
    waits = []
    for _ in range(samples):
        time.sleep(gap_us / 1e6)
        os.write(to_reader[1], time.monotonic_ns().to_bytes(8, "little"))
        waits.append(int.from_bytes(os.read(to_writer[0], 8), "little") / 1e3)
    os.waitpid(child, 0)
    return waits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=3000, help="wakes measured each way (default 3000)")
    parser.add_argument("--gap-us", type=int, default=1000, help="µs between the writer's writes (default 1000)")
    args = parser.parse_args()
    if args.samples < 10 or args.gap_us < 0:
        parser.error(f"--samples {args.samples} / --gap-us {args.gap_us}: at least 10 samples, a gap of 0 or more")
    if (os.cpu_count() or 1) < 2:
        parser.error("the wake from another CPU needs two CPUs")
    for mode, polling in (("halting (as booted)", False), ("polling", True)):
        try:
            with idle_by_polling(polling):
                print(f"vCPUs idle {mode}")
                print("  " + quantiles(timer_overshoot(args.samples), "timer, late after 1 ms"))
                print("  " + quantiles(cross_cpu_wake(args.samples, args.gap_us), "wake from another CPU"))
        except PermissionError:
            print("  (polling needs write access to /dev/cpu_dma_latency: run as root)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
