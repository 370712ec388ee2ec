"""What the simulator derives from a topology and keeps: routing tables.

Building a topology's tables costs seconds at thousands of routers, and a
sweep asks for the same ones at every load, in every worker. They are kept
here, by the topology's fingerprint (so a pickled copy of the topology that
reaches a worker finds what an earlier task of that worker built), not on
the topology itself: the candidates' records stay what they are, and the
simulator owns -- and bounds -- its caches.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from candidates.topology import Topology

__all__ = ["cached", "holds", "clear", "MAX_ENTRIES"]

#: tables kept per process, the least recently used dropped first (a sweep uses a handful)
MAX_ENTRIES = 16

_CACHE: "OrderedDict[tuple[str, str], Any]" = OrderedDict()


def cached(topo: Topology, key: str, build: Callable[[], Any]) -> Any:
    """``build()``'s value for ``topo`` and ``key``, built once per process.

    >>> from candidates import torus
    >>> calls = []
    >>> f = lambda: calls.append(1) or len(calls)
    >>> cached(torus((4, 4)), "doc", f), cached(torus((4, 4)), "doc", f), len(calls)
    (1, 1, 1)
    """
    k = (topo.fingerprint, key)
    if k in _CACHE:
        _CACHE.move_to_end(k)
        return _CACHE[k]
    value = build()
    _CACHE[k] = value
    while len(_CACHE) > MAX_ENTRIES:
        _CACHE.popitem(last=False)
    return value


def holds(topo: Topology, prefix: str = "") -> bool:
    """Whether something of ``topo`` whose key starts with ``prefix`` is kept
    (a refused simulation must have built nothing)."""
    fp = topo.fingerprint
    return any(f == fp and k.startswith(prefix) for f, k in _CACHE)


def clear() -> None:
    """Forget every kept table (tests that count builds)."""
    _CACHE.clear()
