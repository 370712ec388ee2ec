"""Where the design flow's evaluations run: in-process, a loky process pool, or a dask cluster.

One :class:`Executor` serves a whole :func:`synth.run` call (every wave,
every variant of a swept study, the winners' simulations), so a pool or a
cluster is started once, not once per wave:

- ``loky`` with ``jobs=1``: inline, in this process, one task at a time
  (no pool: nothing to start, and a debugger sees the evaluation).
- ``loky`` with ``jobs>1``: joblib's reusable loky process pool.
- ``dask``: one ``distributed.Client`` -- to the scheduler at ``scheduler``
  (``tcp://HOST:PORT``) when one is given, else to a ``LocalCluster`` of
  ``jobs`` single-threaded worker processes without a dashboard.

Worker processes this module starts (loky's, a local dask cluster's) end
within about a second when the process that started them dies, even by
SIGKILL: a watchdog thread in each worker polls its parent pid. Workers of a
remote scheduler are the cluster's, not ours: they are left alone. Workers
ignore SIGINT: Ctrl-C interrupts the parent, which then keeps every result
already finished (:meth:`Executor.finished`) before it exits.

A worker process on this machine also notes when it compiled numba kernels
(:mod:`common.compiletime`), in a folder of the executor's:
:meth:`Executor.compile_seconds` is the wall time during which this process
or any of those workers compiled, so that a run's time can leave it out
(the workers of a remote scheduler, on other machines, are not counted).

A dask cluster losing workers: dask runs the tasks of a lost worker again
on the others; the executor says which (``notify``: one line each time). A
cluster left with no worker at all would wait forever: after
:data:`NO_WORKER_SECONDS` without one the executor raises :class:`NoWorkers`
(the run keeps its records and says how to resume).

The ``distributed`` loggers are set to ERROR unless ``verbose`` (or the
environment variable ``TOPOSYNTH_VERBOSE=1``): a run's stderr is its
progress lines, not cluster chatter.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from common import compiletime
from common.workers import check_workers, init_worker

from .errors import StudyError

__all__ = ["Executor", "BACKENDS", "NoWorkers", "check_scheduler"]

BACKENDS = ("loky", "dask")

#: how long to wait for a remote dask scheduler before giving up (seconds)
CONNECT_TIMEOUT = 10

#: how long a dask cluster may have no worker at all, tasks waiting, before the run stops (seconds): long
#: enough for a batch system to replace a worker it moved, short of the minute a user waits
NO_WORKER_SECONDS = 30.0

#: how often the cluster's workers are checked while tasks wait (seconds): one call to the scheduler each
_WATCH_SECONDS = 1.0


def _handed_over(futures: list[Any], limit: float = 30.0) -> None:
    """Wait until loky's manager thread has taken every one of ``futures`` into its call queue (each is
    then running or done). A task submitted a moment before ``shutdown(kill_workers=True)`` and not yet
    taken makes that thread fail with a KeyError traceback on stderr (it drops the task's record, then
    looks it up); on a busy machine the moment is long. The call queue holds ``2 * jobs + 1`` tasks and
    at most ``jobs + 1`` are ever submitted, so the wait is that thread's next turn; ``limit`` (seconds)
    bounds it all the same."""
    end = time.monotonic() + limit
    while any(not (f.running() or f.done()) for f in futures) and time.monotonic() < end:
        time.sleep(0.005)


class NoWorkers(RuntimeError):
    """A dask cluster has had no worker for :data:`NO_WORKER_SECONDS` while tasks waited."""

#: A local cluster's housekeeping, made less frequent: the event-loop tick monitor (it only logs
#: a blocked loop, and the logs are silenced) and the system monitor (dashboard statistics: there
#: is no dashboard) wake every process every 20 ms and 500 ms by default; on a 2-core machine that
#: is a few per cent of the CPU the evaluations need (measured: benchmarks/bench_dask.py)
_LOCAL_CONFIG = {"distributed.admin.tick.interval": "500ms", "distributed.admin.system-monitor.interval": "2s",
                 # a local cluster's workers forked from one server process that has imported distributed
                 # and the evaluation code once, instead of two fresh interpreters importing both (about
                 # 1.3 s of CPU each): the cluster starts in 0.2-0.5 s instead of 1.5-2 s and stops in
                 # 0.1 s instead of 1 s (measured, benchmarks/bench_dask.py). The server is a fresh
                 # interpreter, not a fork of this multi-threaded process, and it exits when this one does
                 "distributed.worker.multiprocessing-method": "forkserver"}
#: what the fork server imports before forking a local cluster's workers
_FORKSERVER_PRELOAD = ["distributed", "synth.backends", "synth.evaluate"]

_SCHEDULER = re.compile(r"^(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})/?$")


def check_scheduler(address: Any, where: str = "--scheduler") -> str:
    """A dask scheduler address ``[PROTOCOL://]HOST:PORT``, checked (one-line
    :class:`StudyError` naming ``where`` otherwise).

    >>> check_scheduler("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    """
    if not isinstance(address, str) or not address.strip():
        raise StudyError(f"{where}: a dask scheduler address must be a string like tcp://HOST:8786, got {address!r}")
    m = _SCHEDULER.match(address.strip())
    if m is None or not 0 < int(m.group(3)) < 65536:
        raise StudyError(f"{where}: {address!r} is not a dask scheduler address; write tcp://HOST:PORT "
                         "(the address `dask scheduler` prints)")
    return address.strip()


def dask_setup(worker: Any = None) -> None:
    """dask's preload hook (``LocalCluster(preload=["synth.backends"])``): runs in each local worker process."""
    init_worker()


def _verbose(verbose: bool | None) -> bool:
    if verbose is None:
        return os.environ.get("TOPOSYNTH_VERBOSE", "") not in ("", "0")
    return verbose


class _Done:
    """A finished task whose value (or exception) is here, shaped like a future."""

    def __init__(self, value: Any = None, error: BaseException | None = None):
        self.value = value
        self.error = error

    def result(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


class _Timed:
    """Picklable: ``fn(item)`` in a worker, which notes the compiles it made meanwhile
    (:func:`common.compiletime.spans`, on the wall clock a machine's processes share) in the
    executor's folder, one file per worker process. The task's value is ``fn``'s own; a warm cache
    compiles nothing and writes nothing; a folder this worker cannot reach (another machine's) is
    left alone."""

    def __init__(self, fn: Callable, folder: str):
        self.fn = fn
        self.folder = folder

    def __call__(self, item: Any) -> Any:
        t0 = compiletime.clock()
        value = self.fn(item)
        spans = compiletime.spans(t0)
        if spans:
            try:
                with open(os.path.join(self.folder, f"{os.getpid()}.spans"), "a", encoding="ascii") as f:
                    f.write("".join(f"{a!r} {b!r}\n" for a, b in spans))
            except OSError:
                pass
        return value


class Executor:
    """Run ``fn(item)`` tasks on one backend, collecting results as they complete.

    A context manager; the pool or cluster starts at the first
    :meth:`submit` (a fully resumed run starts nothing) and stops on exit.

    >>> with Executor("loky", jobs=1) as ex:
    ...     for x in (3, 1, 2):
    ...         ex.submit(abs, -x)
    ...     sorted(f.result() for f in ex.as_completed())
    [1, 2, 3]
    """

    def __init__(self, backend: str = "loky", jobs: int = 1, scheduler: str | None = None, *,
                 verbose: bool | None = None, notify: Callable[[str], None] | None = None):
        if backend not in BACKENDS:
            raise StudyError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise StudyError(f"jobs must be a positive integer, got {jobs!r}")
        if scheduler is not None:
            if backend != "dask":
                raise StudyError("a dask scheduler address needs the dask backend (--backend dask)")
            scheduler = check_scheduler(scheduler)
        else:
            check_workers(jobs)   # processes of this machine: loky's, or a local dask cluster's
        self.backend = backend
        self.jobs = jobs
        self.scheduler = scheduler
        self.verbose = _verbose(verbose)
        self.notify = notify          # one-line notices (a lost dask worker), None: silent
        self._pool: Any = None        # loky executor
        self._client: Any = None      # dask Client
        self._cluster: Any = None     # dask LocalCluster (ours to close)
        self._queue: deque[tuple[Callable, Any]] = deque()  # tasks not yet handed to loky (or run inline)
        self._pending: list[Any] = []  # submitted futures not yet handed out by as_completed
        self._stopping: threading.Thread | None = None  # a local cluster stopping in the background (release)
        self._stop_error: BaseException | None = None
        self._spans_dir: str | None = None   # where workers note their compiles (_Timed)
        self._spans: list[tuple[float, float]] = []   # read from it when the executor closes
        self._labels: dict[Any, str] = {}            # a dask task's key -> what it computes, for notices
        self._workers: set[str] | None = None        # the dask workers at the last check
        self._processing: dict[str, set[Any]] = {}   # ... and the task keys each was running
        self._no_worker_since: float | None = None
        self._watched = -_WATCH_SECONDS               # time.monotonic() of the last check

    @property
    def inline(self) -> bool:
        return self.backend == "loky" and self.jobs == 1

    @property
    def slots(self) -> int:
        """How many tasks run at once: ``jobs``, or for a remote scheduler
        the threads of its workers now (connecting to it)."""
        if self.backend == "dask" and self.scheduler is not None:
            self._start()
            workers = self._client.scheduler_info().get("workers", {})
            return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))
        return self.jobs

    # ------------------------------------------------------------- lifecycle
    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(abort=exc_type is not None)

    def _start(self) -> None:
        if self.backend == "loky":
            if self._pool is None:
                # imported here: joblib's loky costs every `toposynth` command ~45 ms of start-up
                # (-X importtime), and only runs with --jobs > 1 use it
                from joblib.externals.loky import get_reusable_executor

                # reuse="auto": the same pool across runs of one process (tests, sweeps) while the
                # worker count and initializer match
                self._pool = get_reusable_executor(max_workers=self.jobs, initializer=init_worker)
            return
        if self._client is not None:
            return
        self._join_stopping()
        # distributed takes about a second to import: only runs on dask pay for it
        try:
            # deferred: distributed takes 0.21 s to import (docs/ARCHITECTURE.md)
            from distributed import Client, LocalCluster
        except ImportError:
            raise StudyError("the dask backend needs dask.distributed: pip install 'toposynth[dask]'") from None
        if not self.verbose:
            for name in ("distributed", "distributed.nanny", "distributed.worker", "distributed.scheduler",
                         "distributed.core", "distributed.comm", "distributed.client", "distributed.batched"):
                logging.getLogger(name).setLevel(logging.ERROR)
        if self.scheduler is not None:
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as exc:
                raise StudyError(f"cannot reach the dask scheduler at {self.scheduler} ({type(exc).__name__}); "
                                 "start one with `dask scheduler` or check the address") from None
            return
        import dask  # deferred: dask takes 0.07 s to import (docs/ARCHITECTURE.md)
        # deferred: distributed takes 0.21 s to import (docs/ARCHITECTURE.md)
        from distributed.utils import get_mp_context

        with dask.config.set(_LOCAL_CONFIG):
            # distributed sets its own preload list the first time it makes the context: extend it after
            # (a fork server already running, from an earlier run of this process, keeps its list)
            get_mp_context().set_forkserver_preload(_FORKSERVER_PRELOAD)
            self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                         dashboard_address=None, preload=["synth.backends"],
                                         # the scheduler's HTTP server (health, metrics) starts even without a
                                         # dashboard, on 8787 unless told: on a port the system picks, so a
                                         # second cluster on the machine gives no 'port in use' warning
                                         scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                                         silence_logs=logging.INFO if self.verbose else logging.ERROR)
            self._client = Client(self._cluster)

    def release(self) -> None:
        """No more tasks: start stopping a local dask cluster in a background
        thread, so that it stops while the run writes its report (1-1.5 s of
        waiting for the worker processes to end, measured on this 2-core
        machine); :meth:`close` waits for it. A later :meth:`submit` starts
        a new cluster. Nothing to do for loky (its pool is kept for reuse),
        inline runs, a remote scheduler, or while tasks are pending."""
        if self._cluster is None or self._pending or self._stopping is not None:
            return
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None

        def stop() -> None:
            try:
                client.close()
                cluster.close()
            except BaseException as exc:  # raised again by close(), in the caller's thread
                self._stop_error = exc

        self._stopping = threading.Thread(target=stop, name="toposynth-dask-stop", daemon=True)
        self._stopping.start()

    def _join_stopping(self) -> None:
        if self._stopping is not None:
            self._stopping.join()
            self._stopping = None
            err, self._stop_error = self._stop_error, None
            if err is not None:
                raise err

    def close(self, abort: bool = False) -> None:
        """Stop the cluster (a local one) or disconnect (a remote one). With
        ``abort``, cancel what is still pending and end the loky workers
        now; otherwise the reusable loky pool stays for the next run."""
        self._join_stopping()
        pending, self._pending = self._pending, []
        self._queue.clear()
        if self._spans_dir is not None:
            self._spans = self._worker_spans()
            shutil.rmtree(self._spans_dir, ignore_errors=True)
            self._spans_dir = None
        if self._pool is not None:
            if abort:
                # no f.cancel() first: loky's shutdown then fails setting its error on a cancelled
                # future; wait=False races with its manager thread
                _handed_over(pending)
                self._pool.shutdown(wait=True, kill_workers=True)
            else:
                for f in pending:
                    f.cancel()
            self._pool = None
        if self._client is not None:
            try:
                if pending:
                    self._client.cancel(pending)
                self._client.close()
                if self._cluster is not None:
                    self._cluster.close()
            finally:
                self._client = self._cluster = None

    # ----------------------------------------------------------------- tasks
    def submit(self, fn: Callable, item: Any, label: str | None = None) -> None:
        """Queue ``fn(item)``; its future comes out of :meth:`as_completed`.
        ``label`` names the task in notices (a lost dask worker's tasks run again).

        loky gets at most ``jobs + 1`` tasks at a time (the rest wait here,
        handed over as tasks complete): a task queued inside loky when the
        pool is shut down on Ctrl-C trips a race in loky's manager thread
        (a traceback on stderr), and there is nothing to gain from a longer
        queue. dask gets every task at once: its scheduler balances them.
        """
        if self.inline:
            self._queue.append((fn, item))
            return
        self._start()
        if self._spans_dir is None:
            self._spans_dir = tempfile.mkdtemp(prefix="toposynth-compiles-")
        task = _Timed(fn, self._spans_dir)
        if self._client is not None:
            # pure=False: every call is a task of its own, never merged with an equal-looking one
            fut = self._client.submit(task, item, pure=False)
            self._labels[fut.key] = label if label is not None else "a task"
            self._pending.append(fut)
        else:
            self._queue.append((task, item))
            self._feed()

    def _worker_spans(self) -> list[tuple[float, float]]:
        out = list(self._spans)
        if self._spans_dir is None:
            return out
        for name in os.listdir(self._spans_dir):
            try:
                with open(os.path.join(self._spans_dir, name), encoding="ascii") as f:
                    out += [(float(a), float(b)) for a, b in (line.split() for line in f if line.strip())]
            except (OSError, ValueError):
                continue      # a line being written: a compile still running counts once it ends
        return out

    def compile_seconds(self, since: float) -> float:
        """Wall seconds since ``since`` (``time.perf_counter`` of this process) during which this
        process or a worker of this machine compiled numba kernels (compiles at once count once)."""
        now_epoch, now = time.time(), time.perf_counter()
        start = since + (now_epoch - now)
        return compiletime.union_seconds(compiletime.spans(since) + self._worker_spans(), start, now_epoch)

    def _feed(self) -> None:
        while self._queue and len(self._pending) < self.jobs + 1:
            fn, item = self._queue.popleft()
            self._pending.append(self._pool.submit(fn, item))

    @property
    def pending(self) -> tuple[Any, ...]:
        """The futures submitted to the pool or cluster and not yet handed out."""
        return tuple(self._pending)

    def as_completed(self) -> Iterator[Any]:
        """The futures of everything submitted and not yet handed out, each as
        it completes (inline: computed one by one, in submission order)."""
        if self.inline:
            while self._queue:
                fn, item = self._queue.popleft()
                yield _Done(fn(item))
            return
        if self._client is not None:
            yield from self._dask_completed()
            return
        while self._pending:
            done, _ = concurrent.futures.wait(self._pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in [f for f in self._pending if f in done]:     # in submission order
                self._pending.remove(fut)
                self._feed()
                yield fut

    def _dask_completed(self) -> Iterator[Any]:
        from distributed import as_completed  # imported by _start already

        todo = as_completed(list(self._pending))
        while not todo.is_empty():
            batch = todo.next_batch(block=False)
            for fut in batch:
                done = self._fetch(fut)
                self._pending.remove(fut)
                self._labels.pop(fut.key, None)
                yield done
            if not batch:
                time.sleep(0.02)
            # a result from a cluster whose workers were not seen yet: look now, while the worker that sent it
            # is there, so that losing it later is reported by name (a worker seen by no look is never named)
            if time.monotonic() - self._watched >= _WATCH_SECONDS or (batch and not self._workers):
                self._watch()

    def _fetch(self, fut: Any) -> _Done:
        """A completed dask future's value, brought here. Its data lives on the worker that computed it: a
        worker lost meanwhile makes dask compute it again, and with no worker left that would wait forever,
        so the wait is in slices, the cluster watched between them (:class:`NoWorkers` ends it)."""
        while True:
            try:
                return _Done(fut.result(timeout=_WATCH_SECONDS))
            except TimeoutError:
                self._watch()
            except Exception as exc:     # the task's own exception: raised where the caller asks for it
                return _Done(error=exc)

    def _watch(self) -> None:
        """Compare the cluster's workers with the last check: say what a lost worker was running (dask runs it
        again elsewhere); raise :class:`NoWorkers` once there has been none for :data:`NO_WORKER_SECONDS`."""
        client = self._client
        self._watched = time.monotonic()
        workers = set(client.scheduler_info().get("workers", {}))
        if self._workers is not None:
            for w in sorted(self._workers - workers):
                again = sorted({self._labels[k] for k in self._processing.get(w, ()) if k in self._labels})
                if self.notify is not None:
                    what = (f"its {len(again)} running task(s) run again on the other workers: {', '.join(again)}"
                            if again else "it was running none of this run's tasks")
                    self.notify(f"dask worker {w} lost; {what}")
        self._workers = workers
        self._processing = {w: set(keys) for w, keys in client.processing().items()}
        if workers:
            self._no_worker_since = None
            return
        now = time.monotonic()
        if self._no_worker_since is None:
            self._no_worker_since = now
        elif now - self._no_worker_since >= NO_WORKER_SECONDS:
            where = f"the scheduler at {self.scheduler}" if self.scheduler else "the local cluster"
            raise NoWorkers(f"{where} has had no dask worker for {NO_WORKER_SECONDS:g} s and "
                            f"{len(self._pending)} task(s) wait; start workers (`dask worker ADDRESS`)")

    def finished(self, feed: bool = False) -> list[Any]:
        """Futures already completed successfully but not yet handed out by
        :meth:`as_completed` (without waiting): what an interrupted run still
        keeps. ``feed``: hand the tasks waiting here to loky in the freed
        places (a caller polling until :attr:`busy` is false; not while
        stopping, when a newly queued task would race loky's shutdown)."""
        if self._client is not None:
            done = []
            for f in [f for f in self._pending if f.status == "finished"]:
                try:
                    # its data may have been on a lost worker: kept only if it is still there
                    done.append(_Done(f.result(timeout=_WATCH_SECONDS)))
                except Exception:
                    continue
                self._pending.remove(f)
                self._labels.pop(f.key, None)
            return done
        done = [f for f in self._pending if f.done() and not f.cancelled() and f.exception() is None]
        for f in done:
            self._pending.remove(f)
        if feed and self._client is None and not self.inline:
            self._feed()
        return done

    @property
    def busy(self) -> bool:
        """Tasks are submitted or waiting to be (what :meth:`finished` polls until done)."""
        return bool(self._pending) or bool(self._queue)

    def raise_failed(self) -> None:
        """Raise the exception of a submitted task that failed, if any (polling with :meth:`finished`), or
        :class:`NoWorkers` for a dask cluster left without workers (a polling caller's watch)."""
        if self._client is not None and time.monotonic() - self._watched >= _WATCH_SECONDS:
            self._watch()
        for f in self._pending:
            if self._client is not None:
                if f.status == "error":
                    f.result()
            elif f.done() and not f.cancelled() and f.exception() is not None:
                f.result()
