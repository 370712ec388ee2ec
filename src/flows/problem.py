"""The flow problem: channels, demands, resources, latencies.

A :class:`FlowProblem` is what both solvers (the PTAS and the exact LP)
take. It is plain arrays:

- directed channels ``arc_src``/``arc_dst`` (the channel numbering of
  :class:`candidates.Topology`: arc ``2i`` is link ``i`` forwards);
- demands ``(src, dst, amount)``;
- resource constraints ``R @ flow <= capacity`` with ``R`` a sparse
  (resources x channels) matrix: how much of resource ``r`` one unit of flow
  on channel ``a`` uses. Plain link capacities are ``R = I``;
- ``latency[a]``: the delay one unit of flow incurs on channel ``a`` (router
  delay of its tail plus wire delay), for the minimum-latency objective.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from candidates.analytics.hops import hop_distances
from candidates.topology import Topology
from common import defaults
from common.errors import ToposynthError
from common.textfile import read_text
from traffic import TrafficPattern
from traffic import traffic as traffic_pattern
from traffic.errors import TrafficError
from traffic.pairs import random_local_pairs, random_pairs, uniform_pairs

__all__ = ["FlowError", "Demands", "FlowProblem", "DEFAULT_EPS"]

#: the certified relative gap every solver, the flow command and a study's ranking aim for unless told
DEFAULT_EPS = defaults.EPS


class FlowError(ToposynthError):
    """A flow problem or demand set is invalid.

    >>> import candidates as cd
    >>> FlowProblem.from_topology(cd.ring(4), Demands([0], [5], [1.0]))
    Traceback (most recent call last):
    ...
    flows.problem.FlowError: demand endpoints must be router indices 0..3
    """


#: the largest router index a demand file may name (no machine this size could be allocated)
_MAX_ROUTER_INDEX = 2**31 - 1
#: the range of a demand file's positive amounts the solvers resolve correctly
_MIN_AMOUNT, _MAX_AMOUNT = 1e-6, 1e6


@dataclass(frozen=True, eq=False)
class Demands:
    """Point-to-point demands: ``amount[k]`` units from ``src[k]`` to ``dst[k]``.

    >>> d = Demands.uniform(4)
    >>> len(d), float(d.amount.sum())
    (12, 4.0)
    """

    src: np.ndarray
    dst: np.ndarray
    amount: np.ndarray

    def __post_init__(self) -> None:
        src = np.asarray(self.src, dtype=np.int64).reshape(-1)
        dst = np.asarray(self.dst, dtype=np.int64).reshape(-1)
        amt = np.asarray(self.amount, dtype=np.float64).reshape(-1)
        if not (len(src) == len(dst) == len(amt)):
            raise FlowError(f"demand arrays differ in length: src {len(src)}, dst {len(dst)}, amount {len(amt)}")
        if not np.all(np.isfinite(amt)):
            raise FlowError("a demand amount is NaN or infinite; amounts must be finite positive numbers")
        if np.any(amt < 0):
            k = int(np.flatnonzero(amt < 0)[0])
            raise FlowError(f"demand {src[k]} -> {dst[k]} has negative amount {amt[k]}; amounts must be positive")
        for a in (src, dst, amt):
            a.setflags(write=False)
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "dst", dst)
        object.__setattr__(self, "amount", amt)

    def __len__(self) -> int:
        return len(self.src)

    @property
    def total(self) -> float:
        return float(self.amount.sum())

    def scaled(self, factor: float) -> "Demands":
        return Demands(self.src, self.dst, self.amount * float(factor))

    def merged(self) -> "Demands":
        """Drop zero and self demands and add up repeated (src, dst) pairs."""
        keep = (self.amount > 0) & (self.src != self.dst)
        s, d, a = self.src[keep], self.dst[keep], self.amount[keep]
        if len(s) == 0:
            return Demands(s, d, a)
        key = s * (max(int(d.max()), int(s.max())) + 1) + d
        uniq, inv = np.unique(key, return_inverse=True)
        amt = np.bincount(inv, weights=a)
        first = np.zeros(len(uniq), dtype=np.int64)
        first[inv[::-1]] = np.arange(len(s))[::-1]
        return Demands(s[first], d[first], amt)

    def to_dict(self) -> dict[str, Any]:
        return {"src": self.src.tolist(), "dst": self.dst.tolist(), "amount": self.amount.tolist()}

    # -------------------------------------------------------- constructors
    @classmethod
    def uniform(cls, n: int, weights: np.ndarray | None = None) -> "Demands":
        """Every router sends one unit in total, spread equally over the
        ``n - 1`` others (with ``weights``: router ``s`` sends ``w_s`` units
        split in proportion to ``w_t``, e.g. processing elements per router:
        every PE sends one unit to the PEs of the other routers; routers of
        weight 0 get no demands).

        Then the max concurrent flow lambda is the per-router injection rate
        the network sustains under uniform traffic.

        >>> d = Demands.uniform(3, np.array([2, 0, 1]))
        >>> d.src.tolist(), d.dst.tolist(), d.amount.tolist()
        ([0, 2], [2, 0], [2.0, 1.0])
        """
        try:
            return cls(*uniform_pairs(n, weights))
        except TrafficError as exc:
            raise FlowError(str(exc)) from None

    @classmethod
    def from_pattern(cls, topo: Topology, pattern: "str | TrafficPattern") -> "Demands":
        """A pattern of the :mod:`traffic` registry as demands on ``topo``'s
        routers, one unit offered per PE (what the simulator draws packet
        destinations from, by the same name).

        >>> import candidates as cd
        >>> d = Demands.from_pattern(cd.ring(4), "bitcomplement")
        >>> d.src.tolist(), d.dst.tolist(), d.amount.tolist()
        ([0, 1, 2, 3], [3, 2, 1, 0], [1.0, 1.0, 1.0, 1.0])
        >>> len(Demands.from_pattern(cd.torus((4, 4)), "random:64:seed=1")) == len(Demands.random(16, 64, seed=1))
        True
        """
        return cls(*traffic_pattern(pattern).demand_pairs(topo))

    @classmethod
    def permutation(cls, perm, amount: float = 1.0) -> "Demands":
        """Router ``i`` sends ``amount`` to ``perm[i]`` (fixed points dropped)."""
        p = np.asarray(perm, dtype=np.int64)
        if sorted(p.tolist()) != list(range(len(p))):
            raise FlowError("a permutation must list every router 0..n-1 exactly once")
        s = np.flatnonzero(p != np.arange(len(p)))
        return cls(s, p[s], np.full(len(s), float(amount)))

    @classmethod
    def from_matrix(cls, M) -> "Demands":
        """Demands from a dense (n, n) matrix, ``M[s, t]`` units s -> t."""
        M = np.asarray(M, dtype=np.float64)
        if M.ndim != 2 or M.shape[0] != M.shape[1]:
            raise FlowError(f"a demand matrix must be square, got shape {M.shape}")
        off = M.copy()
        np.fill_diagonal(off, 0.0)
        s, d = np.nonzero(off)
        return cls(s, d, off[s, d])

    @classmethod
    def random(cls, n: int, count: int, *, seed: int, amount: float = 1.0) -> "Demands":
        """``count`` demands of ``amount`` between uniformly random distinct routers.

        >>> d = Demands.random(16, 64, seed=1)
        >>> len(d), bool((d.src != d.dst).all())
        (64, True)
        """
        try:
            s, d = random_pairs(n, count, seed=seed)
        except TrafficError as exc:
            raise FlowError(str(exc)) from None
        return cls(s, d, np.full(len(s), float(amount)))

    @classmethod
    def random_local(cls, unit: np.ndarray, count: int, shares, *, seed: int, amount: float = 1.0) -> "Demands":
        """Random demands with controlled locality ('topology-synthesis-mcf-bgl').

        ``unit[v, l]`` is the packaging unit of level ``l`` holding router v
        (a :class:`candidates.Placement`'s ``unit``), innermost level first.
        ``shares[l]`` is the fraction of demands whose endpoints share a
        level-``l`` unit but not a level-``l-1`` one; the last share (index
        ``L``) is for demands across the outermost units. For Blue Gene/L:
        levels (compute card, node card) and shares (0.4, 0.5, 0.1).

        >>> unit = np.array([[v // 2, v // 8] for v in range(32)])
        >>> d = Demands.random_local(unit, 100, [0.4, 0.5, 0.1], seed=0)
        >>> int((unit[d.src, 0] == unit[d.dst, 0]).sum())
        40
        """
        try:
            s, d = random_local_pairs(unit, count, shares, seed=seed)
        except TrafficError as exc:
            raise FlowError(str(exc)) from None
        return cls(s, d, np.full(len(s), float(amount)))

    @classmethod
    def read_csv(cls, path: str | os.PathLike) -> "Demands":
        """Read a CSV file with the header ``src,dst,amount`` (UTF-8; router
        indices from 0, amounts finite and >= 0)."""
        p = Path(path)
        if not p.is_file():
            raise FlowError(f"{p}: no such demand file")
        src, dst, amt = [], [], []
        reader = csv.reader(read_text(p, "demand file", FlowError).splitlines())
        header = next(reader, None)
        if header is None or [h.strip().lower() for h in header] != ["src", "dst", "amount"]:
            raise FlowError(f"{p}: the first line must be the header src,dst,amount")
        for lineno, row in enumerate(reader, 2):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != 3:
                raise FlowError(f"{p}:{lineno}: expected 3 fields src,dst,amount, got {len(row)}")
            try:
                s, d, a = int(row[0]), int(row[1]), float(row[2])
            except ValueError:
                raise FlowError(f"{p}:{lineno}: src and dst must be router indices and amount a number") from None
            if s < 0 or d < 0:
                raise FlowError(f"{p}:{lineno}: router indices start at 0, got {s} -> {d}")
            if max(s, d) > _MAX_ROUTER_INDEX:
                # checked here: numpy's int64 would overflow on it before the topology's size is known
                raise FlowError(f"{p}:{lineno}: router index {max(s, d)} is out of range; a demand file names "
                                f"routers 0..n-1 of a machine of n routers")
            if not (math.isfinite(a) and a >= 0):
                raise FlowError(f"{p}:{lineno}: amount {row[2].strip()} must be a finite number >= 0")
            if a and not _MIN_AMOUNT <= a <= _MAX_AMOUNT:
                # the LP's tolerances are absolute: outside this range HiGHS certifies wrong lambdas
                # (2 amounts of 1e9 on torus:4x4: half the true lambda; 1e-9: "unbounded")
                raise FlowError(f"{p}:{lineno}: amount {row[2].strip()} is outside [{_MIN_AMOUNT:g}, {_MAX_AMOUNT:g}], "
                                f"where the solvers' tolerances hold; rescale the file's amounts (lambda is "
                                f"relative to them)")
            src.append(s)
            dst.append(d)
            amt.append(a)
        return cls(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), np.asarray(amt))

    def write_csv(self, path: str | os.PathLike) -> None:
        with Path(path).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["src", "dst", "amount"])
            for s, d, a in zip(self.src.tolist(), self.dst.tolist(), self.amount.tolist()):
                w.writerow([s, d, repr(a)])


@dataclass(frozen=True, eq=False)
class FlowProblem:
    """A multicommodity flow problem on directed channels.

    >>> import candidates as cd
    >>> p = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4))
    >>> p.num_arcs, p.num_resources, len(p.demands)
    (8, 8, 12)
    """

    n: int
    arc_src: np.ndarray
    arc_dst: np.ndarray
    demands: Demands
    R: sp.csr_matrix
    capacity: np.ndarray
    latency: np.ndarray
    resource_names: tuple[str, ...] = ()
    name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = int(self.n)
        src = np.asarray(self.arc_src, dtype=np.int64)
        dst = np.asarray(self.arc_dst, dtype=np.int64)
        A = len(src)
        if len(dst) != A:
            raise FlowError("arc_src and arc_dst differ in length")
        if A and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
            raise FlowError(f"channel endpoints must be router indices 0..{n - 1}")
        R = sp.csr_matrix(self.R, dtype=np.float64)
        if R.shape[1] != A:
            raise FlowError(f"the resource matrix has {R.shape[1]} columns for {A} channels")
        if R.nnz and (not np.all(np.isfinite(R.data)) or R.data.min() < 0):
            raise FlowError("resource coefficients must be finite and non-negative")
        cap = np.asarray(self.capacity, dtype=np.float64).reshape(-1)
        if len(cap) != R.shape[0]:
            raise FlowError(f"{len(cap)} capacities for {R.shape[0]} resources")
        if not np.all(np.isfinite(cap)):
            raise FlowError("a capacity is NaN or infinite; capacities must be finite positive numbers")
        if np.any(cap <= 0):
            r = int(np.flatnonzero(cap <= 0)[0])
            name = self.resource_names[r] if r < len(self.resource_names) else f"resource {r}"
            raise FlowError(f"{name} has capacity {cap[r]}; capacities must be positive (remove the resource instead)")
        lat = np.zeros(A) if self.latency is None else np.asarray(self.latency, dtype=np.float64).reshape(-1)
        if len(lat) != A:
            raise FlowError(f"{len(lat)} channel latencies for {A} channels")
        if not np.all(np.isfinite(lat)) or np.any(lat < 0):
            raise FlowError("channel latencies must be finite and non-negative")
        # every channel must be limited by something, or the LP is unbounded
        used = np.asarray((R > 0).sum(axis=0)).reshape(-1)
        if A and np.any(used == 0):
            a = int(np.flatnonzero(used == 0)[0])
            raise FlowError(f"channel {a} ({src[a]} -> {dst[a]}) uses no resource; give every channel a capacity")
        dem = self.demands.merged()
        if len(dem) == 0:
            raise FlowError("no demands: give at least one demand with src != dst and a positive amount")
        if min(dem.src.min(), dem.dst.min()) < 0 or max(dem.src.max(), dem.dst.max()) >= n:
            raise FlowError(f"demand endpoints must be router indices 0..{n - 1}")
        _check_routable(n, src, dst, dem)
        for arr in (src, dst, cap, lat):
            arr.setflags(write=False)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "arc_src", src)
        object.__setattr__(self, "arc_dst", dst)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "capacity", cap)
        object.__setattr__(self, "latency", lat)
        object.__setattr__(self, "demands", dem)
        names = tuple(self.resource_names) or tuple(f"r{r}" for r in range(len(cap)))
        object.__setattr__(self, "resource_names", names)

    @property
    def num_arcs(self) -> int:
        return len(self.arc_src)

    @property
    def num_resources(self) -> int:
        return len(self.capacity)

    def with_demands(self, demands: Demands) -> "FlowProblem":
        return FlowProblem(self.n, self.arc_src, self.arc_dst, demands, self.R, self.capacity, self.latency,
                           self.resource_names, self.name, dict(self.meta))

    def scaled(self, factor: float) -> "FlowProblem":
        """The same problem with every demand multiplied by ``factor``."""
        return self.with_demands(self.demands.scaled(factor))

    @classmethod
    def from_topology(
        cls,
        topo: Topology,
        demands: Demands,
        *,
        capacity: float | np.ndarray = 1.0,
        latency: np.ndarray | None = None,
        R: sp.spmatrix | None = None,
        resource_names: tuple[str, ...] | None = None,
    ) -> "FlowProblem":
        """A problem on a topology's channels.

        Without ``R`` every channel is its own resource with the given
        capacity (one phit per cycle per link direction by default). Without
        ``latency`` every channel costs one hop.
        """
        A = topo.num_arcs
        if R is None:
            R = sp.identity(A, format="csr")
            cap = np.broadcast_to(np.asarray(capacity, dtype=np.float64), (A,)).copy()
            names = tuple(f"{topo.arc_src[a]}->{topo.arc_dst[a]}" for a in range(A))
        else:
            cap = np.asarray(capacity, dtype=np.float64)
            names = resource_names or ()
        lat = np.ones(A) if latency is None else latency
        # the routers' PE counts: what the queueing model's terminal channels need
        return cls(topo.n, topo.arc_src, topo.arc_dst, demands, R, cap, lat, names, topo.spec,
                   {"terminals": np.asarray(topo.terminals, dtype=np.int64)})


def _check_routable(n: int, src: np.ndarray, dst: np.ndarray, dem: Demands) -> None:
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    indices = dst[order]
    if _symmetric(n, src, dst):
        # every channel has its reverse (any topology's channels): reachable
        # = same connected component, one O(n + channels) pass instead of a
        # BFS per source (216,000 BFS on a 60x60x60 torus took minutes). A
        # connected network (the usual case) is told by one BFS; scipy's
        # components only for a disconnected one (scipy.sparse.csgraph costs
        # 40 ms of every `toposynth flow`'s start-up to import)
        if (hop_distances(indptr, indices, 0) >= 0).all():
            return
        # deferred: scipy.sparse.csgraph pulls in scipy.sparse.linalg and scipy.linalg, ~40 ms of
        # every process that solves (a joblib worker's start-up included; measured, -X importtime)
        from scipy.sparse.csgraph import connected_components

        comp = connected_components(sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)),
                                    directed=False)[1]
        bad = comp[dem.src] != comp[dem.dst]
        if not bad.any():
            return
        s = int(dem.src[bad].min())
        t = int(dem.dst[bad & (dem.src == s)][0])
        raise FlowError(
            f"demand {s} -> {t} cannot be routed: no path from router {s} to router "
            f"{t} (the topology is disconnected); remove the demand or connect the routers"
        )
    for s in np.unique(dem.src):
        d = hop_distances(indptr, indices, int(s))
        bad = dem.dst[(dem.src == s) & (d[dem.dst] < 0)]
        if len(bad):
            raise FlowError(
                f"demand {int(s)} -> {int(bad[0])} cannot be routed: no path from router {int(s)} to router "
                f"{int(bad[0])} (the topology is disconnected); remove the demand or connect the routers"
            )


def _symmetric(n: int, src: np.ndarray, dst: np.ndarray) -> bool:
    """Does every channel u -> v have a reverse v -> u (with multiplicity)?"""
    fwd = np.sort(src * np.int64(n) + dst)
    bwd = np.sort(dst * np.int64(n) + src)
    return bool(np.array_equal(fwd, bwd))
