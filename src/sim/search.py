"""The loads of a sweep or a saturation search, run serially or in parallel.

A :class:`LoadSearch` is the decision rule of :func:`sim.sweep` and
:func:`sim.saturation` as a pure function: which load the serial run
simulates next, given the outcomes (stable, saturated, deadlocked) of the
loads it simulated so far. Because it is a pure function, the loads a
serial run *might* need next can be enumerated ahead of the results
(:meth:`SearchState.wanted`): with ``jobs`` workers the next ``jobs`` loads
run at once, speculatively, and the serial rule then walks the finished
points in its own order, so the result is the serial run's whatever the
number of workers (every point is a deterministic function of its load and
seed). Speculative points the serial run would not have simulated are
discarded.

The same state drives the design flow's simulations (:mod:`synth.runner`
schedules the loads of a study's saturation searches on its workers).

>>> s = LoadSearch.accepted(step=0.25, max_load=1.0)
>>> s.next_load(()), s.next_load((OK,)), s.next_load((SATURATED, SATURATED, SATURATED))
(0.25, 0.5, None)
>>> st = SearchState(s)
>>> st.wanted(3, ())          # the next serial load, then two speculative ones
[0.25, 0.5, 0.75]
"""

from __future__ import annotations

import concurrent.futures as cf
import heapq
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from common import defaults
from common.workers import check_workers, init_worker

from .errors import SimError
from .results import SweepResult, sweep_result

__all__ = ["OK", "SATURATED", "UNSTABLE", "DEADLOCK", "MAX_LOAD_POINTS", "check_load_points", "LoadSearch",
           "SearchState", "SearchSet", "SweepProgress", "check_jobs", "run_search", "run_searches"]

#: outcomes of one point, as the decision rules see them
OK, SATURATED, UNSTABLE, DEADLOCK = 0, 1, 2, 3

#: how many decision-tree nodes :meth:`SearchState.wanted` looks at (it grows like 2^depth; a few
#: levels cover any realistic number of workers)
_TREE_NODES = 512


#: The most loads a sweep or a saturation search may simulate (study files share it)
MAX_LOAD_POINTS = defaults.MAX_LOAD_POINTS


def check_load_points(step: float, max_load: float, what: str = "step") -> None:
    """A search in ``step`` increments up to ``max_load`` runs at most
    :data:`MAX_LOAD_POINTS` loads, and ``step`` moves a load rounded to 10
    decimals (the searches' arithmetic); a one-line error otherwise."""
    if step < 1e-9:
        raise SimError(f"{what} must be at least 1e-9 (loads are rounded to 10 decimals), got {step:g}")
    points = max_load / step
    if points > MAX_LOAD_POINTS:
        raise SimError(f"{what} {step:g} up to load {max_load:g} is {points:.3g} loads, more than {MAX_LOAD_POINTS} "
                       f"(each is a simulation); use a step of at least {max_load / MAX_LOAD_POINTS:.3g}")


@dataclass(frozen=True)
class LoadSearch:
    """A decision rule: ``kind`` is ``list`` (every load of ``loads`` in
    order), ``accepted`` (raise by ``step`` until ``accepted < tolerance *
    offered`` or a deadlock; stop two points after the first saturated one)
    or ``stable`` (BookSim2's: raise by ``step`` until a run is unstable,
    then bisect to ``resolution``)."""

    kind: str
    loads: tuple[float, ...] = ()
    step: float = defaults.LOAD_STEP
    max_load: float = defaults.MAX_LOAD
    tolerance: float = defaults.SATURATION_TOLERANCE
    resolution: float = defaults.STABLE_RESOLUTION

    @classmethod
    def of_loads(cls, loads: Sequence[float]) -> "LoadSearch":
        return cls("list", tuple(float(x) for x in loads))

    @classmethod
    def accepted(cls, step: float, max_load: float, tolerance: float = defaults.SATURATION_TOLERANCE) -> "LoadSearch":
        return cls("accepted", step=step, max_load=max_load, tolerance=tolerance)

    @classmethod
    def stable(cls, step: float, max_load: float, resolution: float) -> "LoadSearch":
        return cls("stable", step=step, max_load=max_load, resolution=resolution)

    def outcome(self, r: Any) -> int:
        """The outcome of a :class:`~sim.SimResult` (or anything with its
        ``deadlock``, ``stable``, ``accepted`` and ``offered``) under this rule."""
        if r.deadlock:
            return DEADLOCK
        if self.kind == "stable":
            return OK if r.stable else UNSTABLE
        if self.kind == "accepted" and r.accepted < self.tolerance * r.offered:
            return SATURATED
        return OK

    def next_load(self, outcomes: Sequence[int]) -> float | None:
        """The load the serial run simulates after points with these
        outcomes (in its order), or None when it stops there. The arithmetic
        (``round(x + step, 10)``, ``round((lo + hi) / 2, 10)``) is the serial
        loop's, so the loads are the same floats."""
        i, n = 0, len(outcomes)
        if self.kind == "list":
            return self.loads[n] if n < len(self.loads) else None
        x = self.step
        if self.kind == "accepted":
            seen = 0
            while x <= self.max_load + 1e-12:
                if i == n:
                    return x
                o = outcomes[i]
                i += 1
                if o in (SATURATED, DEADLOCK):
                    seen += 1
                    if seen >= 3 or o == DEADLOCK:
                        return None
                x = round(x + self.step, 10)
            return None
        lo, hi = 0.0, None
        while x <= self.max_load + 1e-12:
            if i == n:
                return x
            o = outcomes[i]
            i += 1
            if o != OK:
                hi = x
                break
            lo = x
            x = round(x + self.step, 10)
        if hi is None:
            return None
        while hi - lo > self.resolution + 1e-12:
            mid = round((lo + hi) / 2, 10)
            if i == n:
                return mid
            o = outcomes[i]
            i += 1
            if o == OK:
                lo = mid
            else:
                hi = mid
        return None

    def result(self, path: list[Any]):
        """The :class:`~sim.SweepResult` of the serial run's points (in its order)."""
        if self.kind != "stable":
            return sweep_result(list(path))
        points = sorted(path, key=lambda p: p.load)
        ok = [p for p in path if self.outcome(p) == OK]
        if not ok:
            return SweepResult(points, 0.0, 0.0)
        best = max(ok, key=lambda p: p.load)   # the last load the bisection moved its lower end to
        return SweepResult(points, float(best.accepted), float(best.load))


class SearchState:
    """The progress of one :class:`LoadSearch`: the finished points (by
    load), the serial run's path through them, and which loads to start.

    >>> st = SearchState(LoadSearch.of_loads([0.1, 0.2]))
    >>> st.wanted(1, ()), st.done
    ([0.1], False)
    """

    def __init__(self, search: LoadSearch):
        self.search = search
        self.known: dict[float, Any] = {}
        self.path: list[Any] = []
        self.outcomes: list[int] = []

    @property
    def next_load(self) -> float | None:
        return self.search.next_load(self.outcomes)

    @property
    def done(self) -> bool:
        return self.next_load is None

    def add(self, load: float, result: Any) -> list[Any]:
        """Record a finished point; returns the points that joined the
        serial path because of it (in path order)."""
        self.known[load] = result
        new: list[Any] = []
        while True:
            x = self.next_load
            if x is None or x not in self.known:
                return new
            r = self.known[x]
            self.path.append(r)
            self.outcomes.append(self.search.outcome(r))
            new.append(r)

    def wanted(self, free: int, running: Sequence[float]) -> list[float]:
        """Up to ``free`` loads to start now, neither finished nor in
        ``running``: the serial run's next load first, then the loads it
        may need after the running ones, likeliest first (a best-first walk
        over their possible outcomes: while the load rises a point is
        likelier fine than not, a bisection's halves are even)."""
        out: list[float] = []
        if free <= 0:
            return out
        busy = set(running)
        heap = [(-1.0, 0, tuple(self.outcomes))]
        count = nodes = 0
        while heap and len(out) < free and nodes < _TREE_NODES:
            neg, _, hist = heapq.heappop(heap)
            nodes += 1
            x = self.search.next_load(hist)
            if x is None:
                continue
            if x in self.known:   # finished on a speculative branch: its outcome is known
                branches: tuple = ((self.search.outcome(self.known[x]), 1.0),)
            else:
                if x not in busy and x not in out:
                    out.append(x)
                branches = self._odds(hist)
            for o, p in branches:
                count += 1
                heapq.heappush(heap, (neg * p, count, hist + (o,)))
        return out

    def _odds(self, hist: tuple) -> tuple:
        """The outcomes of the point after ``hist`` with rough odds (they only order the speculation)."""
        kind = self.search.kind
        if kind == "list":
            return ((OK, 1.0),)
        if kind == "accepted":
            return ((OK, 0.8), (SATURATED, 0.15), (DEADLOCK, 0.05))
        if any(o != OK for o in hist):
            return ((OK, 0.5), (UNSTABLE, 0.5))
        return ((OK, 0.8), (UNSTABLE, 0.2))

    def result(self):
        return self.search.result(self.path)


class SearchSet:
    """Several searches sharing one pool of workers: their states by key
    (a seed, a candidate), the ``(key, load)`` tasks running, and which
    tasks to start next. Each search's points and result are its serial
    run's, whatever the number of workers.

    :meth:`tasks` fills the free workers round robin by depth: every
    unfinished search's next serial load first, then (workers left over)
    each one's first speculative load, and so on -- so a few searches with
    many workers still keep every worker busy, and many searches never wait
    on one search's speculation.

    >>> ss = SearchSet({0: LoadSearch.of_loads([0.1, 0.2]), 1: LoadSearch.of_loads([0.1])})
    >>> ss.tasks(3)
    [(0, 0.1), (1, 0.1), (0, 0.2)]
    >>> from types import SimpleNamespace as R
    >>> done = R(deadlock=False, stable=True, accepted=0.1, offered=0.1)
    >>> ss.add(1, 0.1, done) == [done], ss.states[1].done, ss.done
    (True, True, False)
    """

    def __init__(self, searches: "dict[Any, LoadSearch]"):
        self.states: dict[Any, SearchState] = {k: SearchState(s) for k, s in searches.items()}
        self.running: list[tuple[Any, float]] = []

    @property
    def done(self) -> bool:
        return all(st.done for st in self.states.values())

    def tasks(self, slots: int) -> list[tuple[Any, float]]:
        """The ``(key, load)`` tasks to start so that ``slots`` run at once
        (counted as running from now on)."""
        new: list[tuple[Any, float]] = []
        live = [k for k, st in self.states.items() if not st.done]
        for depth in range(1, slots + 1):
            for k in live:
                free = slots - len(self.running)
                if free <= 0:
                    return new
                busy = [x for (key, x) in self.running if key == k]
                for x in self.states[k].wanted(min(depth - len(busy), free), busy):
                    self.running.append((k, x))
                    new.append((k, x))
        return new

    def add(self, key: Any, load: float, result: Any) -> list[Any]:
        """A finished task: the points that joined ``key``'s serial path
        because of it (none for a speculative point no longer needed)."""
        self.running.remove((key, load))
        st = self.states.get(key)
        if st is None or st.done:
            return []
        return st.add(load, result)

    def drop(self, key: Any) -> None:
        """Give up a search (its point failed): its running tasks are let finish, unused."""
        del self.states[key]

    @property
    def finished(self) -> int:
        return sum(len(st.path) for st in self.states.values())

    def running_loads(self) -> tuple[float, ...]:
        return tuple(sorted(x for _, x in self.running))


@dataclass(frozen=True)
class SweepProgress:
    """What a sweep reports while it runs: ``point``, a point that joined
    the result (in the serial run's order: load order for sweeps and the
    ``accepted`` search), or None when only ``running`` (the loads being
    simulated now) changed; ``finished`` points of the result so far."""

    point: Any
    running: tuple[float, ...]
    finished: int
    #: the search ``point`` belongs to (a seed of a replicated sweep; None for one search) and the running
    #: ``(key, load)`` tasks
    key: Any = None
    tasks: tuple[tuple[Any, float], ...] = ()


def check_jobs(jobs: Any, where: str = "jobs") -> int:
    """``jobs`` as a worker count (0: every core), or a one-line error.

    >>> check_jobs(2), check_jobs(0) >= 1
    (2, True)
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise SimError(f"{where} must be an integer >= 0 (0: every core), got {jobs!r}")
    if jobs == 0:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not Linux
            return max(1, os.cpu_count() or 1)
    check_workers(jobs, where)   # before a pool of them is started
    return jobs


@dataclass
class _Pool:
    """A loky pool of ``jobs`` workers (joblib's reusable executor)."""

    jobs: int
    ex: Any = field(default=None)

    def __post_init__(self) -> None:
        # imported here: only runs with jobs > 1 pay for joblib's loky (~45 ms, -X importtime)
        from joblib.externals.loky import get_reusable_executor

        self.ex = get_reusable_executor(max_workers=self.jobs, initializer=init_worker)

    def kill(self) -> None:
        self.ex.shutdown(wait=True, kill_workers=True)


def run_search(search: LoadSearch, simulate_at: Callable[[float], Any], jobs: int = 1,
               progress: Callable[[SweepProgress], None] | None = None):
    """Run ``search`` with ``simulate_at(load) -> SimResult`` (picklable
    with ``jobs > 1``); the :class:`~sim.SweepResult` is the serial run's.
    See :func:`run_searches`."""
    return run_searches({None: search}, _OneSearch(simulate_at), jobs, progress)[None]


class _OneSearch:
    """Picklable ``(key, load) -> simulate_at(load)``."""

    def __init__(self, simulate_at: Callable[[float], Any]):
        self.simulate_at = simulate_at

    def __call__(self, key: Any, load: float) -> Any:
        return self.simulate_at(load)


def run_searches(searches: "dict[Any, LoadSearch]", simulate_at: Callable[[Any, float], Any], jobs: int = 1,
                 progress: Callable[[SweepProgress], None] | None = None) -> dict[Any, Any]:
    """Run several searches with ``simulate_at(key, load) -> SimResult``
    (picklable with ``jobs > 1``); returns each key's
    :class:`~sim.SweepResult`, the serial run's.

    Serially the searches run one after the other, in the order given. With
    ``jobs > 1`` their loads run in one loky pool (:class:`SearchSet`).
    Ctrl-C (or any error) stops the pool's workers before the exception goes
    on; speculative points still running when every search is decided are
    not waited for (their workers are stopped).
    """
    ss = SearchSet(searches)

    def say(point: Any, key: Any) -> None:
        if progress is not None:
            progress(SweepProgress(point, ss.running_loads(), ss.finished, key, tuple(ss.running)))

    if jobs <= 1:
        for key, st in ss.states.items():
            while not st.done:
                x = st.next_load
                assert x is not None  # not done: there is a load to run
                ss.running.append((key, x))
                say(None, key)
                for p in ss.add(key, x, simulate_at(key, x)):
                    say(p, key)
        return {k: st.result() for k, st in ss.states.items()}

    pool = _Pool(jobs)
    futures: dict[Any, tuple[Any, float]] = {}
    try:
        while not ss.done:
            for key, x in ss.tasks(jobs):
                futures[pool.ex.submit(simulate_at, key, x)] = (key, x)
            say(None, None)
            finished, _ = cf.wait(list(futures), return_when=cf.FIRST_COMPLETED)
            for fut in [f for f in futures if f in finished]:   # submission order: nearest load first
                key, x = futures.pop(fut)
                for p in ss.add(key, x, fut.result()):
                    say(p, key)
    except BaseException:
        pool.kill()
        raise
    if futures:
        # speculative loads no search needs, possibly far beyond saturation: stop them rather than wait
        # (the next parallel sweep starts new workers)
        pool.kill()
    return {k: st.result() for k, st in ss.states.items()}
