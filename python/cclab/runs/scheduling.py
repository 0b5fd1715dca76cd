"""Which run goes when: the costliest first (:func:`estimated_cost`), to keep every
worker busy to the end; many runs submitted at once and taken as each finishes
(:class:`in_completion_order`), or fed in chunks that shrink towards the end
(:class:`chunk_feeder`, a stored sweep's)."""
from __future__ import annotations

import functools
import queue
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Optional, TypeVar, Union

from cclab.core import duration_s, rate_bps
from cclab.runs.executors import submit
from cclab.runs.plan import Run

# The workers' chunks of runs: at most this much work each (at the run time measured so
# far) and this many runs, with this many chunks per worker in flight. A killed sweep
# loses at most the chunks in flight: about 2 × WORK_PER_CHUNK_S of each worker's time.
WORK_PER_CHUNK_S = 2.0
# ... and at least this much (once measured): a chunk's part costs its worker a fixed
# ~10–20 ms of Parquet writing, which single-run chunks of 10-ms runs would double.
MIN_WORK_PER_CHUNK_S = 0.25
MAX_CHUNK = 200
CHUNKS_PER_WORKER = 2
# How often a cluster is asked how many workers it has.
WORKERS_EVERY_S = 2.0
Item = TypeVar("Item")


def estimated_cost(scenario: Mapping[str, Any]) -> float:
    """Rough relative cost of a run, to start the costliest first: the fastest link's
    rate × duration (packets), ×5 when traced."""
    try:
        topology = scenario.get("topology") or {}
        links = [value for value in topology.values() if isinstance(value, Mapping) and "rate" in value]
        links += [link for link in topology.get("links") or [] if isinstance(link, Mapping) and "rate" in link]
        rate = max((_rate_bps(str(link["rate"])) for link in links), default=1e8)
        traced = 5 if any((scenario.get("trace") or {}).values()) else 1
        return rate * _duration_s(str(scenario.get("duration", "10s"))) * traced
    except Exception:  # the order is only a hint; validation reports bad values
        return 0.0


@functools.lru_cache(maxsize=4096)
def _rate_bps(text: str) -> int:
    return rate_bps(text)


@functools.lru_cache(maxsize=4096)
def _duration_s(text: str) -> float:
    return duration_s(text)


class in_completion_order:
    """Submit ``fn(payload(item))`` for every item (the costliest first, when ``cost``
    is given); iterating yields ``(item, future)`` as each finishes, and :meth:`waiting`
    tells how many more have finished and not been yielded yet.

    Works with any futures that have ``add_done_callback`` (concurrent.futures, Dask);
    others are awaited in submission order. Leaving early cancels what has not started.
    """

    def __init__(self, executor: Any, fn: Callable[[Any], Any], items: Iterable[Item],
                 payload: Callable[[Item], Any] = lambda item: item, cost: Optional[Callable[[Item], float]] = None):
        self._items = list(items)
        if cost is not None:
            self._items.sort(key=cost, reverse=True)  # stable: equal costs keep their order
        self._futures = [submit(executor, fn, payload(item)) for item in self._items]
        self._finished: Optional[queue.Queue] = None
        self._yielded = 0
        if all(hasattr(future, "add_done_callback") for future in self._futures):
            self._finished = queue.Queue()
            for index, future in enumerate(self._futures):
                future.add_done_callback(functools.partial(_put_index, self._finished, index))

    def waiting(self) -> int:
        if self._finished is None:  # futures that run when asked: all the rest are ready
            return len(self._futures) - self._yielded
        return self._finished.qsize()

    def __iter__(self) -> Iterator[tuple[Item, Any]]:
        try:
            for position in range(len(self._futures)):
                # Without callbacks, in submission order: the caller's future.result() waits.
                index = position if self._finished is None else self._finished.get()
                self._yielded += 1
                yield self._items[index], self._futures[index]
        finally:
            for future in self._futures:
                future.cancel()


class chunk_feeder:
    """Submit ``fn(chunk)`` for chunks of ``runs`` and yield ``(chunk, future)`` as each
    finishes, keeping :data:`CHUNKS_PER_WORKER` chunks per worker in flight (so a worker
    never waits for the driver, and a killed sweep loses at most those).

    Runs go costliest first (``cost``). A chunk is a quarter of the remaining runs' share
    of one worker (guided self-scheduling: large chunks first, small ones at the end, so
    the workers end together), at least :data:`MIN_WORK_PER_CHUNK_S` (a part's writing
    stays a small share of its chunk) and at most :data:`WORK_PER_CHUNK_S` of work at the run
    time measured so far (``elapsed_s`` of the replies; before the first reply, one run
    per chunk) and :data:`MAX_CHUNK` runs. :meth:`waiting` tells how many chunks have
    finished and not been yielded yet. Futures without ``add_done_callback`` (those that
    compute when asked, :class:`InlineExecutor`) are yielded in submission order. Leaving
    early cancels what has not started.
    """

    def __init__(self, executor: Any, fn: Callable[[list], Any], runs: Sequence[Run],
                 workers: Union[int, Callable[[], int]], cost: Optional[Callable[[Run], float]] = None):
        self._executor, self._fn = executor, fn
        # A callable is asked again every few seconds: a cluster's workers may come (or go)
        # during the sweep (dask-jobqueue jobs start when the batch system says so).
        self._count_workers = workers if callable(workers) else None
        self._workers = max(1, workers() if callable(workers) else workers)
        self._counted = time.perf_counter()
        self._runs = sorted(runs, key=cost, reverse=True) if cost is not None else list(runs)
        self._next = 0
        self._in_flight: dict[int, tuple[list, Any]] = {}
        self._order: list[int] = []  # submission order, for futures without callbacks
        self._finished: "queue.Queue[int]" = queue.Queue()
        self._callbacks: Optional[bool] = None
        self._submitted = 0
        self._measured_runs = 0
        self._measured_s = 0.0

    def chunk_size(self) -> int:
        remaining = len(self._runs) - self._next
        size = max(1, remaining // (4 * self._workers))
        if self._measured_runs:
            run_s = max(self._measured_s, 1e-9) / self._measured_runs
            size = max(size, int(MIN_WORK_PER_CHUNK_S / run_s))
            size = min(size, max(1, int(WORK_PER_CHUNK_S / run_s)))
        elif self._submitted < self._workers * CHUNKS_PER_WORKER:
            size = 1  # nothing measured yet: single runs until the first replies say how long a run takes
        return min(size, MAX_CHUNK, remaining)

    def observe(self, runs: int, elapsed_s: Optional[float]) -> None:
        """A chunk of ``runs`` took ``elapsed_s`` in its worker (the driver tells, from the reply)."""
        if elapsed_s is not None and runs:
            self._measured_runs += runs
            self._measured_s += elapsed_s

    def waiting(self) -> int:
        if not self._callbacks:
            return 0
        return self._finished.qsize()

    def _fill(self) -> None:
        if self._count_workers is not None and time.perf_counter() - self._counted >= WORKERS_EVERY_S:
            self._workers = max(1, self._count_workers())
            self._counted = time.perf_counter()
        while self._next < len(self._runs) and len(self._in_flight) < self._workers * CHUNKS_PER_WORKER:
            size = self.chunk_size()
            chunk = self._runs[self._next:self._next + size]
            self._next += size
            key = self._submitted
            self._submitted += 1
            future = submit(self._executor, self._fn, chunk)
            self._in_flight[key] = (chunk, future)
            self._order.append(key)
            if self._callbacks is None:
                self._callbacks = hasattr(future, "add_done_callback")
            if self._callbacks:
                future.add_done_callback(functools.partial(_put_index, self._finished, key))

    def __iter__(self) -> Iterator[tuple[list, Any]]:
        try:
            self._fill()
            while self._in_flight:
                key = self._finished.get() if self._callbacks else self._order[len(self._order) - len(self._in_flight)]
                chunk, future = self._in_flight.pop(key)
                yield chunk, future
                self._fill()
        finally:
            for _, future in self._in_flight.values():
                future.cancel()


def _put_index(finished: queue.Queue, index: int, _future: Any) -> None:
    finished.put(index)
