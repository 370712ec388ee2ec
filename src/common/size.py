"""Size guards: how much memory this machine offers, and a one-line refusal
for a request that will not fit.

Every command estimates what it is about to allocate *before* allocating it
(the topology from its spec's parameters, the analyses of ``describe``, the
flow problem and its solver, the simulator's tables) and calls
:func:`check_memory`, which raises :class:`SizeError` when the estimate
exceeds :func:`memory_limit`. The limit is the physical memory available now
(``MemAvailable`` of ``/proc/meminfo``; elsewhere free pages times page size
from ``os.sysconf``), or the environment variable ``TOPOSYNTH_MEMORY_LIMIT``
(``4G``, ``500M``, ``1.5T``, plain bytes) when set, which tests and shared
machines use to get the same answer everywhere.

>>> import os
>>> os.environ["TOPOSYNTH_MEMORY_LIMIT"] = "2G"
>>> memory_limit()
2000000000.0
>>> try:
...     check_memory("torus:1000x1000x1000 (1e9 routers)", 4.1e11, "use a smaller shape")
... except SizeError as exc:
...     print(exc)
torus:1000x1000x1000 (1e9 routers) needs about 410 GB but the memory limit is 2.0 GB (TOPOSYNTH_MEMORY_LIMIT); use a smaller shape, or raise TOPOSYNTH_MEMORY_LIMIT
>>> del os.environ["TOPOSYNTH_MEMORY_LIMIT"]
"""

from __future__ import annotations

import math
import os
import re

from .errors import ToposynthError

__all__ = [
    "LIMIT_ENV",
    "SizeError",
    "parse_bytes",
    "available_memory",
    "memory_limit",
    "format_bytes",
    "format_count",
    "format_seconds",
    "check_memory",
]

#: Environment variable overriding the memory limit (``4G``, ``500M``, bytes).
LIMIT_ENV = "TOPOSYNTH_MEMORY_LIMIT"

_UNITS = {"": 1, "B": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
          "KI": 2**10, "MI": 2**20, "GI": 2**30, "TI": 2**40, "PI": 2**50}


class SizeError(ToposynthError):
    """A request whose estimated memory exceeds what this machine has."""


def parse_bytes(text: str) -> float:
    """Bytes in ``4G``, ``500M``, ``1.5T``, ``2GiB`` or a plain number
    (decimal units; ``Ki``/``Mi``/``Gi`` are binary).

    >>> parse_bytes("4G"), parse_bytes("500 MB"), parse_bytes("1Ki")
    (4000000000.0, 500000000.0, 1024.0)
    """
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMgGtTpP][iI]?)?[bB]?\s*", str(text))
    if not m:
        raise SizeError(f"{LIMIT_ENV}={text!r} is not a size; write it like 4G, 500M or 1.5T")
    value = float(m.group(1)) * _UNITS[(m.group(2) or "").upper()]
    if not value > 0:
        raise SizeError(f"{LIMIT_ENV}={text!r} must be a positive size such as 4G")
    return value


def available_memory() -> float:
    """Physical memory available to a new allocation now, in bytes."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024.0
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return math.inf  # no way to tell: refuse nothing


def memory_limit() -> float:
    """The memory a request may use: ``TOPOSYNTH_MEMORY_LIMIT`` if set, else
    :func:`available_memory`."""
    env = os.environ.get(LIMIT_ENV)
    if env is not None and env.strip():
        return parse_bytes(env)
    return available_memory()


def format_bytes(nbytes: float) -> str:
    """``37 GB``, ``3.1 GB``, ``512 MB`` (decimal units, 2-3 significant digits).

    >>> format_bytes(3.1e9), format_bytes(37.4e9), format_bytes(8.8e12), format_bytes(1e30)
    ('3.1 GB', '37 GB', '8.8 TB', '1e+15 PB')
    >>> format_bytes(1e9)
    '1.0 GB'
    """
    x = float(nbytes)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if x < 999.5:
            return f"{x:.1f} {unit}" if x < 10 else f"{x:.0f} {unit}"
        x /= 1000.0
    return f"{x:.1f} PB" if x < 10 else (f"{x:.0f} PB" if x < 1e6 else f"{x:.2g} PB")


def format_count(x: float) -> str:
    """``216,000`` below a billion, ``1.1e+12`` above.

    >>> format_count(216000), format_count(2**40)
    ('216,000', '1.1e+12')
    """
    x = float(x)
    if x < 1e9 and x == int(x):
        return f"{int(x):,}"
    return f"{x:.2g}"


def format_seconds(s: float) -> str:
    """``40 s``, ``12 min``, ``3.5 h``, ``12 days``, ``3e+05 years``.

    >>> format_seconds(40), format_seconds(720), format_seconds(12600), format_seconds(1e7)
    ('40 s', '12 min', '3.5 h', '116 days')
    """
    s = float(s)
    for unit, size, nxt in (("s", 1, 120), ("min", 60, 7200), ("h", 3600, 3 * 86400), ("days", 86400, 3 * 365 * 86400)):
        if s < nxt:
            v = s / size
            return f"{v:.2g} {unit}" if v < 10 else f"{v:.0f} {unit}"
    v = s / (365 * 86400)
    return f"{v:.0f} years" if v < 1e6 else f"{v:.2g} years"


def check_memory(what: str, nbytes: float, hint: str) -> None:
    """Raise :class:`SizeError` when ``nbytes`` exceeds :func:`memory_limit`.

    ``what`` names the request and its size ("torus:1000x1000x1000 (1e9
    routers, 3e9 links)"); ``hint`` says how to make it smaller. The message
    is one line with the estimate and the limit.
    """
    limit = memory_limit()
    if nbytes <= limit:
        return
    env = os.environ.get(LIMIT_ENV)
    if env is not None and env.strip():
        where = f"the memory limit is {format_bytes(limit)} ({LIMIT_ENV})"
        fix = f"raise {LIMIT_ENV}"
    else:
        where = f"this machine has {format_bytes(limit)} available"
        fix = f"set {LIMIT_ENV} if more will be free"
    raise SizeError(f"{what} needs about {format_bytes(nbytes)} but {where}; {hint}, or {fix}")
