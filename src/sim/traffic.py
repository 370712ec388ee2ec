"""Synthetic traffic patterns, defined once as destination distributions.

A pattern says, for every source terminal (processing element), with which
probability each other terminal is the destination of its next packet, and
how much a terminal injects relative to the average (all 1 except for
demand matrices). The simulator draws destinations from it; ``flows``
gets the very same workload from :meth:`TrafficPattern.demand_matrix`.

Terminals are numbered router by router: the terminals of router ``u`` are
``terminal_offsets(t)[u] .. terminal_offsets(t)[u + 1] - 1``; with one
terminal per router, terminal ``i`` is router ``i``.

Patterns (the BookSim2 / CAMINOS names; ``name:key=value`` sets options):

========================  ====================================================
``uniform``               every other terminal equally likely
``hotregion``             25% of packets to the first 12.5% of the network
                          (the lowest rows/planes of a lattice), the rest
                          uniform (``fraction=0.25:region=0.125``)
``bitcomplement``         ``d = ~s`` on the terminal index (power of 2)
``bitreversal``           ``d`` = the bits of ``s`` reversed (power of 2)
``shuffle``               perfect shuffle: ``s`` rotated left one bit
``butterfly``             the most and least significant bits of ``s``
                          swapped (power of 2)
``transpose``             upper and lower halves of the bits of ``s``
                          swapped (an even number of address bits)
``tornado``               every coordinate ``x -> x + ceil(k/2) - 1 (mod k)``
``neighbor``              uniform over the router's neighbours
``diagonal``              every coordinate ``x -> x + 1 (mod k)``: BookSim2's
                          ``neighbor``
``localglobal``           the local/global mix of 'rtt-mapping-concentration':
                          with probability ``alpha`` a packet goes to one of
                          the 4 neighbours of its process in a logical 2D
                          torus (``grid=AxB``, ``wrap=0`` for a mesh), else
                          to any other process (``alpha=0.5``)
``groupshift``            every PE of group ``i`` to a uniformly random PE of
                          group ``i + 1 (mod g)``: the dragonfly's
                          adversarial pattern (Kim et al., ISCA 2008);
                          families whose routers form groups (``coords[:, 0]``)
``randperm``              a random permutation (``seed=0``)
``permutation``           :func:`permutation` with an explicit array
``matrix``                :func:`demand` with an explicit demand matrix
========================  ====================================================

A terminal whose permutation destination is itself sends nothing.

>>> import candidates as cd
>>> from sim.traffic import traffic
>>> t = cd.from_spec("ring:4")
>>> traffic("bitcomplement").destinations(t).perm.tolist()
[3, 2, 1, 0]
>>> traffic("uniform").demand_matrix(t)[0].round(3).tolist()
[0.0, 0.333, 0.333, 0.333]
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from candidates import Topology
from candidates.capabilities import capabilities, families_with

from .errors import SimError

__all__ = [
    "TrafficPattern",
    "Destinations",
    "traffic",
    "permutation",
    "demand",
    "PATTERNS",
    "Pattern",
    "register_pattern",
    "terminal_offsets",
    "terminal_router",
    "localglobal_matrix",
]

DEST_UNIFORM, DEST_PERM, DEST_TABLE, DEST_HOT = 0, 1, 2, 3


def terminal_offsets(topo: Topology) -> np.ndarray:
    """CSR offsets of the terminals of every router, (n + 1,)."""
    off = np.zeros(topo.n + 1, dtype=np.int64)
    np.cumsum(topo.terminals, out=off[1:])
    return off


def terminal_router(topo: Topology) -> np.ndarray:
    """The router of every terminal, (T,)."""
    return np.repeat(np.arange(topo.n, dtype=np.int64), topo.terminals)


@dataclass(frozen=True, eq=False)
class Destinations:
    """A pattern compiled for one topology (what the kernel consumes).

    ``mode`` is one of uniform / permutation / table / hot region;
    ``perm[s]`` the destination of ``s`` (-1: sends nothing) for
    permutations; ``cdf[s]`` the cumulative destination distribution of
    ``s`` for tables; ``hot_count``/``hot_prob`` for the hot region,
    whose terminals ``perm[:hot_count]`` lists;
    ``weight[s]`` the relative injection rate of terminal ``s``
    (mean 1 over the terminals).
    """

    mode: int
    perm: np.ndarray
    cdf: np.ndarray
    hot_count: int
    hot_prob: float
    weight: np.ndarray

    def matrix(self) -> np.ndarray:
        """Terminal-level destination probabilities times weights, (T, T)."""
        T = len(self.weight)
        if self.mode == DEST_UNIFORM:
            M = np.full((T, T), 1.0 / max(T - 1, 1))
            np.fill_diagonal(M, 0.0)
        elif self.mode == DEST_PERM:
            M = np.zeros((T, T))
            ok = self.perm >= 0
            M[np.flatnonzero(ok), self.perm[ok]] = 1.0
        elif self.mode == DEST_TABLE:
            M = np.diff(np.concatenate([np.zeros((T, 1)), self.cdf], axis=1), axis=1)
            tot = M.sum(axis=1, keepdims=True)
            M = np.divide(M, tot, out=np.zeros_like(M), where=tot > 0)
        else:
            U = np.full((T, T), 1.0 / max(T - 1, 1))
            np.fill_diagonal(U, 0.0)
            H = np.zeros((T, T))
            h = self.hot_count
            hot = self.perm[:h]
            is_hot = np.zeros(T, dtype=bool)
            is_hot[hot] = True
            for s in range(T):
                inside = is_hot[s] and h > 1
                H[s, hot] = 1.0 / (h - 1 if inside else h)
                if inside:
                    H[s, s] = 0.0
            M = self.hot_prob * H + (1.0 - self.hot_prob) * U
        return M * self.weight[:, None]


@dataclass(frozen=True)
class TrafficPattern:
    """A named destination distribution with its options.

    Use :func:`traffic` to build one from a name or a ``name:key=value``
    string, :func:`permutation` and :func:`demand` for explicit ones.
    """

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        simple = {k: v for k, v in self.options.items() if isinstance(v, (int, float, str))}
        return ":".join([self.name] + [f"{k}={v}" for k, v in simple.items()])

    def destinations(self, topo: Topology) -> Destinations:
        """Compile the pattern for ``topo``."""
        try:
            entry = PATTERNS[self.name]
        except KeyError:
            raise SimError(f"unknown traffic pattern {self.name!r}; valid: {', '.join(sorted(PATTERNS))}") from None
        T = topo.num_terminals
        if T < 2:
            raise SimError(f"traffic needs at least two processing elements, {topo!r} has {T}")
        entry.check(topo)
        return entry.build(topo, **self.options)

    def demand_matrix(self, topo: Topology, load: float = 1.0, *, level: str = "router") -> np.ndarray:
        """Average demand in phits/cycle when every terminal offers ``load``.

        ``level="router"`` (default) sums terminals into an (n, n) matrix of
        router-to-router demand (the diagonal holds traffic between
        terminals of the same router); ``level="terminal"`` gives (T, T).

        >>> import candidates as cd
        >>> m = traffic("hotregion").demand_matrix(cd.from_spec("ring:16"), 0.5)
        >>> round(float(m.sum()), 6), round(float(m[:, :2].sum() / m.sum()), 3)  # 25% + 75% x 2/15 (less self)
        (8.0, 0.344)
        """
        M = self.destinations(topo).matrix() * float(load)
        if level == "terminal":
            return M
        if level != "router":
            raise SimError(f"level must be 'router' or 'terminal', got {level!r}")
        tr = terminal_router(topo)
        R = np.zeros((topo.n, topo.n))
        np.add.at(R, (tr[:, None], tr[None, :]), M)
        return R

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **{k: v for k, v in self.options.items() if isinstance(v, (int, float, str))}}


# ----------------------------------------------------------------- builders
def _uniform(topo: Topology) -> Destinations:
    T = topo.num_terminals
    return Destinations(DEST_UNIFORM, np.zeros(1, np.int64), np.zeros((1, 1)), 0, 0.0, np.ones(T))


def _from_perm(perm: np.ndarray) -> Destinations:
    perm = np.asarray(perm, dtype=np.int64)
    T = len(perm)
    perm = np.where(perm == np.arange(T), -1, perm)
    w = (perm >= 0).astype(np.float64)
    if w.sum() == 0:
        raise SimError("the permutation maps every terminal to itself: there is no traffic")
    w *= T / w.sum()
    return Destinations(DEST_PERM, perm, np.zeros((1, 1)), 0, 0.0, w)


def _from_matrix(M: np.ndarray) -> Destinations:
    M = np.asarray(M, dtype=np.float64)
    T = M.shape[0]
    if T > 4096:
        raise SimError(f"demand-matrix traffic is limited to 4096 terminals, got {T}")
    M = M.copy()
    np.fill_diagonal(M, 0.0)
    tot = M.sum(axis=1)
    if tot.sum() <= 0:
        raise SimError("the demand matrix has no traffic between distinct terminals")
    cdf = np.cumsum(M, axis=1)
    w = tot * (T / tot.sum())
    return Destinations(DEST_TABLE, np.zeros(1, np.int64), np.ascontiguousarray(cdf), 0, 0.0, w)


def _bits(topo: Topology, what: str, even: bool = False) -> int:
    T = topo.num_terminals
    b = T.bit_length() - 1
    if T != 1 << b or (even and b % 2):
        need = "a power of 4" if even else "a power of 2"
        raise SimError(f"{what} traffic needs {need} processing elements, {topo!r} has {T}")
    return b


def _bitcomplement(topo: Topology) -> Destinations:
    b = _bits(topo, "bitcomplement")
    s = np.arange(1 << b)
    return _from_perm((~s) & ((1 << b) - 1))


def _bitreversal(topo: Topology) -> Destinations:
    b = _bits(topo, "bitreversal")
    s = np.arange(1 << b)
    d = np.zeros_like(s)
    for i in range(b):
        d |= ((s >> i) & 1) << (b - 1 - i)
    return _from_perm(d)


def _shuffle(topo: Topology) -> Destinations:
    b = _bits(topo, "shuffle")
    s = np.arange(1 << b)
    return _from_perm(((s << 1) | (s >> (b - 1))) & ((1 << b) - 1))


def _butterfly(topo: Topology) -> Destinations:
    b = _bits(topo, "butterfly")
    s = np.arange(1 << b)
    hi, lo = (s >> (b - 1)) & 1, s & 1
    return _from_perm((s & ~((1 << (b - 1)) | 1)) | (lo << (b - 1)) | hi)


def _transpose(topo: Topology) -> Destinations:
    b = _bits(topo, "transpose", even=True)
    h = b // 2
    s = np.arange(1 << b)
    lo = s & ((1 << h) - 1)
    return _from_perm((lo << h) | (s >> h))


def _lift_router_perm(topo: Topology, rperm: np.ndarray) -> np.ndarray:
    """Terminal k of router u -> terminal k of router rperm[u] (if it has one)."""
    off = terminal_offsets(topo)
    tr = terminal_router(topo)
    k = np.arange(topo.num_terminals) - off[tr]
    dst_r = rperm[tr]
    ok = k < topo.terminals[dst_r]
    return np.where(ok, off[dst_r] + k, -1)


def _shift_coords(topo: Topology, what: str, by: np.ndarray) -> Destinations:
    """Every router sends to the router whose coordinates are its own plus
    ``by`` (mod the size of each dimension)."""
    shape = np.asarray(topo.shape)
    dc = (topo.coords + by) % shape
    index = {tuple(c): i for i, c in enumerate(topo.coords.tolist())}
    try:
        rperm = np.array([index[tuple(c)] for c in dc.tolist()], dtype=np.int64)
    except KeyError:
        raise SimError(f"{what} traffic needs every coordinate of the box to be a router; {topo!r} is not") from None
    return _from_perm(_lift_router_perm(topo, rperm))


def _tornado(topo: Topology) -> Destinations:
    shape = np.asarray(topo.shape)
    return _shift_coords(topo, "tornado", (shape + 1) // 2 - 1)


def _diagonal(topo: Topology) -> Destinations:
    return _shift_coords(topo, "diagonal", np.ones(len(topo.shape), dtype=np.int64))


def _neighbor(topo: Topology) -> Destinations:
    T = topo.num_terminals
    if T > 4096:
        raise SimError(f"neighbor traffic is limited to 4096 terminals, got {T}")
    R = np.zeros((topo.n, topo.n))
    for u in range(topo.n):
        nb = np.unique(topo.neighbors(u))
        if len(nb):
            R[u, nb] = 1.0 / len(nb)
    tr = terminal_router(topo)
    M = R[tr][:, tr] / topo.terminals[tr][None, :]
    return _from_matrix(M)


def _hotregion(topo: Topology, fraction: float = 0.25, region: float = 0.125) -> Destinations:
    fraction, region = float(fraction), float(region)
    if not 0.0 <= fraction <= 1.0 or not 0.0 < region <= 1.0:
        raise SimError(f"hotregion needs 0 <= fraction <= 1 and 0 < region <= 1, got {fraction}, {region}")
    T = topo.num_terminals
    h = max(1, int(round(region * T)))
    # the hot region is the lowest rows (2D) / planes (3D): order routers by
    # their last coordinate first
    if topo.coords is not None:
        hot_r = np.lexsort(tuple(topo.coords.T))  # primary key: the last coordinate
    else:
        hot_r = np.arange(topo.n)
    tr_off = terminal_offsets(topo)
    hot_terms = np.concatenate([np.arange(tr_off[u], tr_off[u + 1]) for u in hot_r])[:h]
    return Destinations(DEST_HOT, np.sort(hot_terms).astype(np.int64), np.zeros((1, 1)), h, fraction, np.ones(T))


def _logical_grid(topo: Topology, grid: Any) -> tuple[int, int]:
    T = topo.num_terminals
    if grid is None:
        if topo.shape is not None and len(topo.shape) == 2 and T == topo.n and topo.coords is not None \
                and np.array_equal(topo.coords, np.stack(np.unravel_index(np.arange(topo.n), topo.shape), 1)):
            return int(topo.shape[0]), int(topo.shape[1])
        b = 1 << ((T.bit_length() - 1 + 1) // 2) if T & (T - 1) == 0 else int(round(T ** 0.5))
        if T % b == 0:
            return T // b, b
        raise SimError(f"localglobal traffic: give the logical grid of the {T} processes as grid=AxB")
    try:
        A, B = (int(v) for v in str(grid).lower().split("x"))
    except ValueError:
        raise SimError(f"localglobal grid must look like AxB (e.g. grid=16x8), got {grid!r}") from None
    if A < 1 or B < 1 or A * B != T:
        raise SimError(f"localglobal grid {A}x{B} must hold exactly the {T} processing elements")
    return A, B


def localglobal_matrix(T: int, A: int, B: int, alpha: float, wrap: bool = True) -> np.ndarray:
    """Process-level destination probabilities of the local/global mix.

    Process ``p = i * B + j`` sits at ``(i, j)`` of an ``A x B`` logical
    grid. With probability ``alpha`` it sends to a neighbour: on a torus
    each of the 4 directions with probability ``alpha / 4`` (a direction
    that wraps onto the process itself is dropped and the others share its
    part; in a size-2 dimension both directions reach the same process),
    on a mesh uniformly over the existing neighbours; with probability
    ``1 - alpha`` to any other process.

    >>> M = localglobal_matrix(16, 4, 4, 1.0)
    >>> M[5].nonzero()[0].tolist(), float(M[5, 1])
    ([1, 4, 6, 9], 0.25)
    """
    p = np.arange(T)
    i, j = p // B, p % B
    L = np.zeros((T, T))
    cnt = np.zeros(T)
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        ii, jj = i + di, j + dj
        if wrap:
            ii, jj = ii % A, jj % B
            ok = np.ones(T, dtype=bool)
        else:
            ok = (ii >= 0) & (ii < A) & (jj >= 0) & (jj < B)
        q = np.where(ok, ii * B + jj, p)
        ok &= q != p
        np.add.at(L, (p[ok], q[ok]), 1.0)
        cnt += ok
    L = np.divide(L, cnt[:, None], out=np.zeros_like(L), where=cnt[:, None] > 0)
    G = np.full((T, T), 1.0 / max(T - 1, 1))
    np.fill_diagonal(G, 0.0)
    a = np.where(cnt > 0, alpha, 0.0)[:, None]
    return a * L + (1.0 - a) * G


def _localglobal(topo: Topology, alpha: float = 0.5, grid: Any = None, wrap: int = 1,
                 mapping: Any = None) -> Destinations:
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise SimError(f"localglobal needs 0 <= alpha <= 1, got {alpha}")
    T = topo.num_terminals
    A, B = _logical_grid(topo, grid)
    M = localglobal_matrix(T, A, B, alpha, bool(int(wrap)))
    if mapping is not None:
        mp = np.asarray(mapping, dtype=np.int64)
        if mp.shape != (T,) or not np.array_equal(np.sort(mp), np.arange(T)):
            raise SimError(f"localglobal mapping must be a permutation of the {T} terminals (process -> terminal)")
        Mt = np.zeros_like(M)
        Mt[np.ix_(mp, mp)] = M
        M = Mt
    return _from_matrix(M)


def _groupshift(topo: Topology) -> Destinations:
    """Group ``i``'s PEs to group ``i + 1``'s, uniformly (groups: the first coordinate)."""
    grp = np.asarray(topo.coords[:, 0], dtype=np.int64)
    g = int(grp.max()) + 1
    term_grp = grp[terminal_router(topo)]
    pes = np.bincount(term_grp, minlength=g)
    if g < 2 or (pes == 0).any():
        raise SimError(f"groupshift traffic needs at least two groups, each with processing elements; {topo!r} has "
                       f"{g} group(s), {int((pes == 0).sum())} without PEs")
    M = (term_grp[None, :] == (term_grp[:, None] + 1) % g).astype(np.float64)
    return _from_matrix(M / pes[(term_grp + 1) % g][:, None])


def _randperm(topo: Topology, seed: int = 0) -> Destinations:
    rng = np.random.default_rng(int(seed))
    return _from_perm(rng.permutation(topo.num_terminals))


def _permutation(topo: Topology, perm: Any = None) -> Destinations:
    perm = np.asarray(perm, dtype=np.int64)
    T = topo.num_terminals
    if perm.shape != (T,) or not np.array_equal(np.sort(perm), np.arange(T)):
        raise SimError(f"a permutation must list every terminal 0..{T - 1} once")
    return _from_perm(perm)


def _matrix(topo: Topology, matrix: Any = None) -> Destinations:
    M = np.asarray(matrix, dtype=np.float64)
    T = topo.num_terminals
    if M.shape == (topo.n, topo.n) and T != topo.n:
        tr = terminal_router(topo)
        M = M[tr][:, tr] / (topo.terminals[tr][:, None] * topo.terminals[tr][None, :])
    if M.shape != (T, T):
        raise SimError(f"a demand matrix must be ({T}, {T}) (terminals) or ({topo.n}, {topo.n}) (routers), got {M.shape}")
    if np.any(M < 0) or not np.all(np.isfinite(M)):
        raise SimError("demand matrix entries must be finite and non-negative")
    return _from_matrix(M)


@dataclass(frozen=True)
class Pattern:
    """A registered traffic pattern.

    build : ``build(topo, **options) -> Destinations``; its keyword
        parameters are the pattern's options.
    needs : what the topology must have (one of :data:`PATTERN_NEEDS`), checked
        before ``build`` runs: ``lattice`` coordinates in a box (``coords`` and
        ``shape``), ``groups`` the family's groups capability; None: any.
    aliases : other names accepted by :func:`traffic`.
    """

    name: str
    summary: str
    build: Callable[..., Destinations]
    needs: str | None = None
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.needs is not None and self.needs not in PATTERN_NEEDS:
            raise ValueError(f"pattern {self.name}: unknown need {self.needs!r}; one of {', '.join(PATTERN_NEEDS)}")

    def check(self, topo: Topology) -> None:
        """One error line unless ``topo`` has what the pattern needs."""
        if self.needs == "lattice" and (topo.coords is None or topo.shape is None):
            raise SimError(f"{self.name} traffic needs a lattice topology with coordinates; {topo!r} has none")
        if self.needs == "groups" and not (capabilities(topo).groups and topo.coords is not None):
            raise SimError(f"{self.name} traffic needs a topology whose routers form groups "
                           f"({', '.join(families_with('groups'))}); {topo!r} is family {topo.family!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "summary": self.summary, "needs": self.needs, "aliases": list(self.aliases)}


#: what a pattern may need of a topology (:attr:`Pattern.needs`)
PATTERN_NEEDS = ("lattice", "groups")

#: the registry: name -> :class:`Pattern` (:func:`register_pattern` adds one)
PATTERNS: dict[str, Pattern] = {}
_ALIASES: dict[str, str] = {}


def _key(name: str) -> str:
    return str(name).strip().lower().replace("-", "").replace("_", "")


def register_pattern(entry: Pattern) -> Pattern:
    """Add a traffic pattern; a name or alias already taken is an error."""
    for key in (entry.name, *entry.aliases):
        if _key(key) in PATTERNS or _key(key) in _ALIASES:
            raise ValueError(f"traffic pattern name {key!r} is already registered")
    PATTERNS[entry.name] = entry
    _ALIASES.update({_key(a): entry.name for a in entry.aliases})
    return entry


for _entry in (
    Pattern("uniform", "every other terminal equally likely", _uniform, aliases=("un", "random")),
    Pattern("hotregion", "25% of packets to the first 12.5% of the network, the rest uniform", _hotregion,
            aliases=("hr", "hotspot")),
    Pattern("bitcomplement", "d = ~s (power-of-2 terminals)", _bitcomplement, aliases=("bc",)),
    Pattern("bitreversal", "d = bits of s reversed (power-of-2 terminals)", _bitreversal, aliases=("br",)),
    Pattern("shuffle", "perfect shuffle: s rotated left by one bit", _shuffle, aliases=("ps", "perfectshuffle")),
    Pattern("butterfly", "most and least significant bits of s swapped (power-of-2 terminals)", _butterfly),
    Pattern("transpose", "upper and lower halves of the bits of s swapped", _transpose),
    Pattern("tornado", "every coordinate x -> x + ceil(k/2) - 1 mod k", _tornado, needs="lattice"),
    Pattern("diagonal", "every coordinate x -> x + 1 mod k (BookSim2's 'neighbor')", _diagonal, needs="lattice"),
    Pattern("neighbor", "uniform over the router's neighbours", _neighbor,
            aliases=("nn", "neighbour", "nearestneighbor", "nearestneighbour")),
    Pattern("localglobal", "alpha to a logical-torus neighbour, 1 - alpha uniform (alpha=A:grid=AxB:wrap=1)",
            _localglobal, aliases=("local", "lg", "localmix")),
    Pattern("groupshift", "every PE of group i to a random PE of group i+1 mod g (dragonfly adversarial)",
            _groupshift, needs="groups"),
    Pattern("randperm", "a random permutation (seed=S)", _randperm),
    Pattern("permutation", "an explicit permutation (Python API)", _permutation),
    Pattern("matrix", "an explicit demand matrix (Python API)", _matrix),
):
    register_pattern(_entry)


def _parse_value(v: str) -> Any:
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def traffic(spec: "str | TrafficPattern", **options: Any) -> TrafficPattern:
    """A traffic pattern from a name or ``name:key=value:...`` string.

    >>> traffic("hotregion:fraction=0.5").options
    {'fraction': 0.5}
    >>> traffic("nope")
    Traceback (most recent call last):
    ...
    sim.errors.SimError: unknown traffic pattern 'nope'; valid: bitcomplement, bitreversal, butterfly, diagonal, groupshift, hotregion, localglobal, matrix, neighbor, permutation, randperm, shuffle, tornado, transpose, uniform
    """
    if isinstance(spec, TrafficPattern):
        return TrafficPattern(spec.name, {**spec.options, **options})
    parts = str(spec).strip().split(":")
    name = _key(parts[0])
    name = _ALIASES.get(name, name)
    if name not in PATTERNS:
        raise SimError(f"unknown traffic pattern {parts[0]!r}; valid: {', '.join(sorted(PATTERNS))}")
    opts: dict[str, Any] = {}
    for p in parts[1:]:
        if "=" not in p:
            raise SimError(f"traffic option {p!r} must look like key=value (e.g. hotregion:fraction=0.25)")
        k, v = p.split("=", 1)
        opts[k.strip()] = _parse_value(v.strip())
    opts.update(options)
    allowed = set(inspect.signature(PATTERNS[name].build).parameters) - {"topo"}
    bad = set(opts) - allowed
    if bad:
        raise SimError(f"traffic {name!r} takes options {sorted(allowed) or 'none'}, got {sorted(bad)}")
    return TrafficPattern(name, opts)


def permutation(perm: Any) -> TrafficPattern:
    """Every terminal ``s`` sends to ``perm[s]``.

    >>> import candidates as cd
    >>> permutation([1, 2, 3, 0]).demand_matrix(cd.ring(4))[3].tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    return TrafficPattern("permutation", {"perm": np.asarray(perm, dtype=np.int64)})


def demand(matrix: Any) -> TrafficPattern:
    """Traffic proportional to a demand matrix (terminals or routers).

    Rows set both the destination distribution and the relative injection
    rate of every source; the load stays the average over terminals.

    >>> import candidates as cd
    >>> demand([[0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]]).demand_matrix(cd.ring(4), 1.0)[0].tolist()
    [0.0, 2.0, 0.0, 0.0]
    """
    return TrafficPattern("matrix", {"matrix": np.asarray(matrix, dtype=np.float64)})

