"""Time spent compiling numba kernels, kept apart from run time, and the
one-line notice before a cold compile.

A kernel compiles on its first call in a process unless numba's on-disk
cache holds it: a cold start spends seconds to a minute compiling what then
runs in milliseconds, so a time a command reports must be its run time with
the compile time beside it, not inside it. numba announces every compile
that misses both caches with its public ``"numba:compile"`` event
(:mod:`numba.core.event`: a start and an end around the compile, nested when
a kernel compiles the kernels it calls). :func:`clock` installs, once per
process, a listener recording the outermost of those events as spans; any
caller that noted ``t0 = clock()`` then asks :func:`compile_seconds` how much
of ``[t0, now]`` was compiling. Worker processes measure their own compiles
(the listener is per process); :func:`spans` and :func:`union_seconds` carry
a worker's compile spans to the parent on the wall clock every process on a
machine shares.

numba is imported when the first clock starts, not by this module: every
command imports it, and a command that runs no kernel must not pay for
numba's import (``common.lazy``).

The notice (:func:`announce`) is one stderr line, once per process for each
thing compiled, printed only when the kernels it names have neither
compiled code in this process nor a fresh entry in the on-disk cache, and
never once :func:`set_notices` turned notices off (``--quiet``, ``--json``,
and the worker processes, whose parent announces their compiles).

>>> t0 = clock()
>>> compile_seconds(t0) >= 0.0, union_seconds([(1.0, 3.0), (2.0, 4.0), (10.0, 11.0)], 0.0, 10.5)
(True, 3.5)
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from typing import Any

__all__ = ["clock", "compile_seconds", "compile_cpu_seconds", "spans", "union_seconds", "run_seconds",
           "announce", "set_notices", "notices_enabled", "is_cold", "compile_note"]

#: the outermost compiles of this process, ``(wall start, wall end, CPU start, CPU end)``, on
#: ``time.perf_counter`` and ``time.process_time``; a compile still running has no entry yet
_SPANS: list[tuple[float, float, float, float]] = []
#: the compile running now (its wall and CPU start), or None
_OPEN: list[tuple[float, float]] = []
#: ``time.time() - time.perf_counter()`` when the listener was installed: spans on the shared wall clock
_EPOCH_OFFSET = 0.0
_installed = False
_lock = threading.Lock()

_notices = True
_announced: set[str] = set()


def _install() -> None:
    global _installed, _EPOCH_OFFSET
    with _lock:
        if _installed:
            return
        from numba.core import event  # imported with the first clock: see the module's docstring

        class _Compiles(event.Listener):
            """Records the outermost ``numba:compile`` events. numba compiles under its global
            compiler lock, so one thread at a time emits them and a depth count pairs them."""

            depth = 0

            def on_start(self, ev: Any) -> None:
                if self.depth == 0:
                    _OPEN.append((time.perf_counter(), time.process_time()))
                self.depth += 1

            def on_end(self, ev: Any) -> None:
                self.depth -= 1
                if self.depth == 0 and _OPEN:
                    w0, c0 = _OPEN.pop()
                    _SPANS.append((w0, time.perf_counter(), c0, time.process_time()))

        _EPOCH_OFFSET = time.time() - time.perf_counter()
        event.register("numba:compile", _Compiles())
        _installed = True


def clock(import_numba: bool = True) -> float:
    """``time.perf_counter()``, with compiles recorded from now on: the
    start of a timed region whose compile time :func:`compile_seconds` can
    take out. ``import_numba=False``: record them only if numba is loaded
    already (no import for a region that may run no kernel; whatever loads
    a kernel later in the region must call :func:`clock` before it runs)."""
    if not _installed and (import_numba or "numba" in sys.modules):
        _install()
    return time.perf_counter()


def _all_spans(now: float) -> list[tuple[float, float, float, float]]:
    out = list(_SPANS)
    for w0, c0 in list(_OPEN):  # a compile running now counts up to now
        out.append((w0, now, c0, time.process_time()))
    return out


def compile_seconds(since: float, until: float | None = None) -> float:
    """Wall seconds of ``[since, until]`` (``perf_counter`` times; ``until``
    default now) this process spent compiling kernels, as far as the
    listener saw (it records from the first :func:`clock` on)."""
    end = time.perf_counter() if until is None else until
    return sum(max(0.0, min(w1, end) - max(w0, since)) for w0, w1, _, _ in _all_spans(end))


def compile_cpu_seconds(since: float, until: float | None = None) -> float:
    """CPU seconds (this process's) of the compiles within ``[since, until]``
    (wall times; a compile partly inside counts in proportion)."""
    end = time.perf_counter() if until is None else until
    total = 0.0
    for w0, w1, c0, c1 in _all_spans(end):
        inside = min(w1, end) - max(w0, since)
        if inside > 0:
            total += (c1 - c0) * (inside / (w1 - w0) if w1 > w0 else 1.0)
    return total


def run_seconds(since: float, until: float | None = None) -> tuple[float, float]:
    """``(run seconds, compile seconds)`` of the wall time ``[since, until]``."""
    end = time.perf_counter() if until is None else until
    comp = compile_seconds(since, end)
    return max(0.0, end - since - comp), comp


def spans(since: float) -> list[tuple[float, float]]:
    """The compiles since ``since`` (``perf_counter``) as ``(start, end)`` on
    the wall clock (``time.time()``), which the processes of one machine share:
    what a worker hands its parent."""
    now = time.perf_counter()
    return [(max(w0, since) + _EPOCH_OFFSET, w1 + _EPOCH_OFFSET) for w0, w1, _, _ in _all_spans(now) if w1 > since]


def union_seconds(intervals: Iterable[tuple[float, float]], start: float, end: float) -> float:
    """Length of the union of ``intervals`` within ``[start, end]``: the wall
    time during which at least one process compiled (workers compiling at
    once count once)."""
    total, reach = 0.0, start
    for a, b in sorted(intervals):
        a, b = max(a, reach), min(b, end)
        if b > a:
            total += b - a
            reach = b
    return total


def compile_note(seconds: float, inside: bool = False) -> str:
    """What follows a run time for a person when ``seconds`` of it were spent
    compiling: `` (+41.0 s compiling, first run)``, or ``inside`` parentheses
    already open ``; +41.0 s compiling, first run``; nothing under 0.05 s.

    >>> "1.9 s" + compile_note(41.0), f"(0.14 s{compile_note(9.08, inside=True)})", compile_note(0.0)
    ('1.9 s (+41.0 s compiling, first run)', '(0.14 s; +9.1 s compiling, first run)', '')
    """
    if seconds < 0.05:
        return ""
    return f"; +{seconds:.1f} s compiling, first run" if inside else f" (+{seconds:.1f} s compiling, first run)"


# ----------------------------------------------------------------- the notice
def set_notices(enabled: bool) -> None:
    """Turn the compile notices of this process on or off."""
    global _notices
    _notices = bool(enabled)


def notices_enabled() -> bool:
    return _notices


def is_cold(dispatcher: Any) -> bool:
    """No compiled code for the numba ``dispatcher`` in this process and no
    fresh entry in its on-disk cache (its source changed, or never cached;
    a kernel without ``cache=True`` has none): its first call compiles. Not
    a numba dispatcher: False."""
    if not hasattr(dispatcher, "overloads") or dispatcher.overloads:
        return False
    # numba's dispatcher keeps its cache as ``_cache`` (a NullCache, without a file, when caching is off)
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is None:
        return True
    try:
        # the cache's own index reader: {} when the index is missing, of another numba version, or stale
        return not cache_file._load_index()
    except (AttributeError, OSError, EOFError, ValueError):
        return False


def announce(what: str, seconds: float, kernels: Iterable[Any]) -> bool:
    """Print ``compiling WHAT (first run only, about N s) ...`` on stderr
    if notices are on, ``what`` was not announced in this process yet, and
    any of ``kernels`` (numba dispatchers) is cold (:func:`is_cold`);
    ``seconds``: the measured estimate. Returns whether it printed."""
    if not _notices or what in _announced:
        return False
    if not any(is_cold(k) for k in kernels):
        return False
    _announced.add(what)
    print(f"compiling {what} (first run only, about {seconds:.0f} s) ...", file=sys.stderr, flush=True)
    return True
