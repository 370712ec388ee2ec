"""Demand pairs: uniform, and ``count`` random source-destination pairs with or without locality.

The ``uniform``, ``random`` and ``local`` patterns make their pairs here, and so do
:meth:`flows.Demands.uniform`, :meth:`flows.Demands.random` and
:meth:`flows.Demands.random_local`: one generator, so the flow solvers and
the simulator see the same pairs for the same seed.

>>> s, d = random_pairs(16, 64, seed=1)
>>> len(s), bool((s != d).all())
(64, True)
"""

from __future__ import annotations

import numpy as np

from .errors import TrafficError

__all__ = ["uniform_pairs", "random_pairs", "random_local_pairs"]


def uniform_pairs(n: int, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every router sends one unit in total, spread equally over the ``n - 1``
    others (with ``weights``: router ``s`` sends ``w_s`` units split in
    proportion to ``w_t``, e.g. processing elements per router: every PE sends
    one unit to the PEs of the other routers; routers of weight 0 get no
    demands). ``(src, dst, amount)``.

    >>> s, d, a = uniform_pairs(3, np.array([2, 0, 1]))
    >>> s.tolist(), d.tolist(), a.tolist()
    ([0, 2], [2, 0], [2.0, 1.0])
    """
    n = int(n)
    if n < 2:
        raise TrafficError("uniform traffic needs at least two routers")
    s, d = np.nonzero(~np.eye(n, dtype=bool))
    if weights is None:
        return s, d, np.full(len(s), 1.0 / (n - 1))
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,) or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise TrafficError(f"uniform traffic weights must be {n} non-negative numbers (PEs per router)")
    tot = w.sum() - w
    with np.errstate(divide="ignore", invalid="ignore"):
        amt = w[s] * w[d] / tot[s]
    # routers without PEs (a fat tree's spines) neither send nor receive: no demand at all
    keep = (w[s] > 0) & (w[d] > 0)
    if not keep.any():
        raise TrafficError("uniform traffic needs processing elements on at least two routers")
    return s[keep], d[keep], amt[keep]


def random_pairs(n: int, count: int, *, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` pairs of distinct uniformly random nodes among ``n``.

    >>> s, d = random_pairs(8, 5, seed=1)
    >>> s.tolist(), d.tolist()
    ([3, 4, 6, 7, 0], [5, 2, 5, 1, 3])
    """
    n, count = int(n), int(count)
    if n < 2 or count < 1:
        raise TrafficError("random demands need n >= 2 routers and count >= 1")
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n, size=count)
    d = (s + rng.integers(1, n, size=count)) % n
    return s, d


def random_local_pairs(unit: np.ndarray, count: int, shares, *, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random pairs with controlled locality ('topology-synthesis-mcf-bgl').

    ``unit[v, l]`` is the packaging unit of level ``l`` holding router v
    (a :class:`candidates.Placement`'s ``unit``), innermost level first.
    ``shares[l]`` is the fraction of pairs whose endpoints share a level-``l``
    unit but not a level-``l-1`` one; the last share (index ``L``) is for
    pairs across the outermost units. For Blue Gene/L: levels (compute card,
    node card) and shares (0.4, 0.5, 0.1).

    >>> unit = np.array([[v // 2, v // 8] for v in range(32)])
    >>> s, d = random_local_pairs(unit, 100, [0.4, 0.5, 0.1], seed=0)
    >>> int((unit[s, 0] == unit[d, 0]).sum())
    40
    """
    unit = np.asarray(unit, dtype=np.int64)
    if unit.ndim != 2:
        raise TrafficError("unit must be an (n, levels) array of packaging unit indices")
    n, L = unit.shape
    shares = np.asarray(shares, dtype=np.float64)
    if len(shares) != L + 1 or np.any(shares < 0) or not np.isclose(shares.sum(), 1.0):
        raise TrafficError(f"shares must be {L + 1} non-negative fractions adding up to 1 (one per level plus 'across')")
    rng = np.random.default_rng(seed)
    # largest-remainder apportionment of the pairs to the levels
    exact = shares * count
    counts = np.floor(exact).astype(np.int64)
    rest = np.argsort(-(exact - counts), kind="stable")[: count - int(counts.sum())]
    counts[rest] += 1
    # same[l][v]: routers sharing v's level-l unit (level L: all routers)
    keys = [unit[:, l] for l in range(L)] + [np.zeros(n, dtype=np.int64)]
    src_all: list[int] = []
    dst_all: list[int] = []
    for l in range(L + 1):
        k = int(counts[l])
        if k == 0:
            continue
        inner = keys[l - 1] if l > 0 else np.arange(n)
        ok = np.zeros(n, dtype=bool)
        cand: list[np.ndarray] = []
        for v in range(n):
            c = np.flatnonzero((keys[l] == keys[l][v]) & (inner != inner[v]))
            cand.append(c)
            ok[v] = len(c) > 0
        if not ok.any():
            raise TrafficError(f"no two routers share a level-{l} unit but not a level-{l - 1} one; set share {l} to 0")
        srcs = rng.choice(np.flatnonzero(ok), size=k)
        for v in srcs.tolist():
            src_all.append(v)
            dst_all.append(int(rng.choice(cand[v])))
    return np.asarray(src_all, dtype=np.int64), np.asarray(dst_all, dtype=np.int64)
