"""The Moore bound: the least diameter and average distance any graph of
``n`` routers with at most ``d`` links each can have.

Around a router the Moore tree has ``d (d-1)^(r-1)`` routers at distance
``r``; no graph has more. Take the largest ``k`` with
``1 + sum_{r<k} n_r < n``: then every graph has diameter at least ``k``, and
its average shortest-path length (ASPL, over ordered pairs of distinct
routers) is at least ``[sum_{r<k} r n_r + k (n - 1 - sum_{r<k} n_r)] / (n-1)``
(Cerf, Cowan, Mullin, Stanton, Networks 1974; the order/degree problem of
the Graph Golf competition scores graphs by this gap).

A uniform all-to-all load cannot exceed the links' capacity: with every
router sending one unit spread evenly over the others, ``n`` routers of
degree ``d`` carry at most ``d / ASPL`` units per router (one unit per link
direction), so ``d / moore_aspl`` bounds every ``(n, d)`` graph's uniform
capacity.

>>> b = moore_bound(512, 6)
>>> b.diameter, round(b.aspl, 4), round(b.throughput, 4)
(4, 3.5538, 1.6883)
>>> round(moore_bound(1024, 32).aspl, 4), moore_bound(1024, 32).diameter
(1.9687, 2)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import TopologyError

__all__ = ["MooreBound", "moore_bound", "moore_gap"]


@dataclass(frozen=True)
class MooreBound:
    """The Moore bound of ``n`` routers with at most ``degree`` links each.

    diameter, aspl : the least diameter and average distance (ordered pairs
        of distinct routers).
    distribution : routers at distance 0, 1, ... of the bound's ideal tree
        (the last level holds the rest).
    throughput : ``degree / aspl``, the most uniform traffic per router any
        such graph carries (one unit per link direction).

    >>> b = moore_bound(16, 4)           # 1 router, 4 neighbours, the other 11 at distance 2
    >>> b.diameter, b.distribution, round(b.aspl, 4), round(b.throughput, 4)
    (2, (1, 4, 11), 1.7333, 2.3077)
    """

    routers: int
    degree: int
    diameter: int
    aspl: float
    distribution: tuple[int, ...]
    throughput: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def moore_bound(n: int, d: int) -> MooreBound:
    """The Moore bound of ``n`` routers of degree at most ``d`` (``n >= 2``,
    ``d >= 1``; with ``d = 1`` only ``n = 2`` can be connected).

    >>> moore_bound(10, 3).distribution   # the Petersen graph meets it
    (1, 3, 6)
    >>> moore_bound(16, 4).aspl == (4 + 2 * 11) / 15
    True
    """
    n, d = int(n), int(d)
    if n < 2:
        raise TopologyError(f"the Moore bound needs at least 2 routers, got {n}")
    if d < 1:
        raise TopologyError(f"the Moore bound needs degree >= 1, got {d}")
    if d == 1 and n > 2:
        raise TopologyError(f"{n} routers of degree 1 cannot be connected")
    levels = [1]
    reached = 1
    r = 1
    while True:
        layer = d * (d - 1) ** (r - 1)
        if reached + layer >= n:
            levels.append(n - reached)
            break
        levels.append(layer)
        reached += layer
        r += 1
    total = sum(k * c for k, c in enumerate(levels))
    aspl = total / (n - 1)
    return MooreBound(n, d, len(levels) - 1, aspl, tuple(levels), d / aspl)


def moore_gap(aspl: float, n: int, d: int) -> float:
    """Relative gap of ``aspl`` above the Moore bound's (0.0061 = 0.61%).

    >>> round(moore_gap(2.736, 256, 8), 4)   # the Graph Golf record of (256, 8)
    0.0068
    """
    b = moore_bound(n, d)
    return (float(aspl) - b.aspl) / b.aspl
