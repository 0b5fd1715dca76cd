"""Where runs go: an executor is anything with ``submit(fn, arg)`` whose futures have
``result()`` (and ideally ``add_done_callback``): a ``concurrent.futures`` pool, a
``dask.distributed.Client``, :class:`RayExecutor`, or :class:`InlineExecutor` (this
process, ``jobs=1``). By name (:func:`open_executor`): ``local`` (a process pool),
``dask`` (a ``LocalCluster`` of worker processes, or an existing scheduler), ``ray``;
Dask and Ray are optional, imported only when asked for. A pool cclab starts
(:func:`owned_executor`) forks its workers warmed up (:func:`warm_up`) and ends them with
the driver.
"""
from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, Optional

from cclab.errors import SweepError

EXECUTORS = ("local", "dask", "ray")


def submit(executor: Any, fn: Callable, argument: Any) -> Any:
    """``executor.submit(fn, argument)``; to a Dask client as an impure task, which spares
    Dask hashing the argument (a chunk of whole scenarios) for a task key: ~3 ms of the
    driver's CPU per run otherwise."""
    if type(executor).__module__.startswith("distributed"):
        return executor.submit(fn, argument, pure=False)
    return executor.submit(fn, argument)


def worker_count(executor: Any) -> int:
    """How many runs ``executor`` runs at once (a guess for executors it does not know)."""
    if isinstance(executor, InlineExecutor):
        return 1
    count = getattr(executor, "_max_workers", None)  # concurrent.futures pools
    if isinstance(count, int):
        return count
    with contextlib.suppress(Exception):
        if hasattr(executor, "nthreads") and hasattr(executor, "scheduler_info"):  # dask.distributed.Client
            return max(1, sum(executor.nthreads().values()))
    if isinstance(executor, RayExecutor):
        with contextlib.suppress(Exception):
            return max(1, int(executor._ray.cluster_resources().get("CPU", 1)))
    return os.cpu_count() or 1


class InlineExecutor:
    """Runs each submitted call in this process when its result is asked for (``jobs=1``):
    one run at a time (a sweep stores them every :data:`WRITE_EVERY_S`)."""

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> "_Deferred":
        return _Deferred(functools.partial(fn, *args, **kwargs))


class _Deferred:
    """A future that computes on ``result()`` (no ``add_done_callback``: awaited in order)."""

    def __init__(self, call: Callable[[], Any]):
        self._call: Optional[Callable[[], Any]] = call
        self._value: Any = None

    def result(self) -> Any:
        if self._call is not None:
            self._value, self._call = self._call(), None
        return self._value

    def cancel(self) -> bool:
        self._call = None
        return True


@contextlib.contextmanager
def owned_executor(executor: Any, jobs: Optional[int], runs: int):
    """``executor`` itself, this process (``jobs=1``), or a process pool we create and
    shut down."""
    if executor is not None:
        yield executor
        return
    if jobs == 1:
        yield InlineExecutor()
        return
    workers = max(1, min(jobs or os.cpu_count() or 1, max(runs, 1)))
    warm_up()  # the forked workers inherit what a run needs, instead of each importing it
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_exit_with_parent, initargs=(os.getpid(),))
    try:
        pool.submit(os.getpid).result()  # starts the workers now (all of them, with fork)
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def open_executor(name: str, workers: Optional[int] = None, scheduler: Optional[str] = None) -> Iterator[Any]:
    """An executor by name, shut down on exit.

    * ``local``: a process pool of ``workers`` processes (default: one per core).
    * ``dask``: a client of the scheduler at ``scheduler`` (e.g. ``tcp://host:8786``, a
      cluster started by ``dask scheduler`` / ``dask worker`` or dask-jobqueue on SLURM),
      or without one a ``LocalCluster`` of ``workers`` single-threaded worker processes.
    * ``ray``: :class:`RayExecutor` on the Ray cluster at ``scheduler`` (or a local one).
    """
    if name == "local":
        if scheduler is not None:
            raise SweepError("--scheduler needs --executor dask or ray")
        with owned_executor(None, workers, runs=workers or os.cpu_count() or 1) as pool:
            yield pool
    elif name == "dask":
        with _dask_client(workers, scheduler) as client:
            yield client
    elif name == "ray":
        executor = RayExecutor(address=scheduler, num_cpus=workers)
        try:
            yield executor
        finally:
            executor.shutdown()
    else:
        raise SweepError(f"--executor {name}: unknown executor (choose {', '.join(EXECUTORS)})")


@contextlib.contextmanager
def _dask_client(workers: Optional[int], scheduler: Optional[str]):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise SweepError("--executor dask needs dask.distributed: pip install 'cclab[dask]'") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except OSError as error:
            raise SweepError(f"--scheduler {scheduler}: cannot connect ({error})") from None
        with client:
            with contextlib.suppress(Exception):  # workers without cclab fail their runs, with a message
                client.run(warm_up)
            yield client
        return
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    with cluster, Client(cluster) as client:
        client.run(warm_up)
        yield client


def _call(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


class RayExecutor(Executor):
    """A ``concurrent.futures.Executor`` over Ray tasks (``pip install 'cclab[ray]'``)."""

    def __init__(self, address: Optional[str] = None, num_cpus: Optional[int] = None):
        try:
            import ray
        except ImportError:
            raise SweepError("--executor ray needs ray: pip install 'cclab[ray]'") from None
        self._ray = ray
        self._owns_runtime = not ray.is_initialized()
        if self._owns_runtime:
            ray.init(address=address, num_cpus=None if address else num_cpus, log_to_driver=False)
        # One remote function that calls whatever it is given: ray.remote takes only plain
        # functions, and what is submitted is usually a partial (pickled with its task).
        self._remote = self._ray.remote(_call)

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        return self._remote.remote(fn, *args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._owns_runtime and self._ray.is_initialized():
            self._ray.shutdown()


def warm_up() -> None:
    """Import what a worker needs to run and store runs (pandas, pyarrow, the engine):
    done in the driver before a process pool forks, and in each Dask worker once, so no
    run pays for it."""
    import pyarrow.parquet  # noqa: F401

    import cclab.core  # noqa: F401
    import cclab.results  # noqa: F401
    import cclab.store.sweeps  # noqa: F401
    from cclab.analysis import metrics  # noqa: F401


def _exit_with_parent(parent: int) -> None:
    """Pool worker set-up: end when the driver does, however it ends (a SIGKILLed driver
    otherwise leaves its workers running, orphaned). Linux: the kernel's parent-death
    signal; elsewhere a thread that watches the parent."""
    import signal
    import threading

    try:
        import ctypes

        PR_SET_PDEATHSIG = 1
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM) == 0:
            if os.getppid() != parent:  # the driver died before the signal was set
                os._exit(1)
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="cclab-exit-with-parent").start()
