"""The Slim Fly (Besta and Hoefler, "Slim Fly: a cost effective low-diameter
network topology", SC 2014): the McKay-Miller-Siran (MMS) graphs of
diameter 2.

For a prime power ``q = 4w + delta`` (``delta`` in {-1, 0, 1}) with a
primitive element ``xi`` of the field F_q, the routers are ``(0, x, y)`` and
``(1, m, c)`` for ``x, y, m, c`` in F_q (``2 q^2`` routers) and

- ``(0, x, y) ~ (0, x, y')`` iff ``y - y'`` is in ``X``,
- ``(1, m, c) ~ (1, m, c')`` iff ``c - c'`` is in ``X' = xi X``,
- ``(0, x, y) ~ (1, m, c)`` iff ``y = m x + c``,

with the generator set (Besta and Hoefler, Section 2.1)

- ``delta = 1``:  ``X = {1, xi^2, ..., xi^(q-3)}`` (the even powers),
- ``delta = 0``:  ``X = {1, xi^2, ..., xi^(q-2)}``,
- ``delta = -1``: ``X = {1, xi^2, ..., xi^(2w-2), xi^(2w-1), xi^(2w+1), ..., xi^(4w-3)}``.

``|X| = (q - delta)/2``, so every router has network degree
``k' = (3q - delta)/2``; Besta and Hoefler attach ``p = ceil(k'/2)`` PEs to
each router for full global bandwidth. ``q = 5`` is the Hoffman-Singleton
graph.

Prime powers are supported: F_q for ``q = r^e`` is built as F_r[x] modulo a
primitive polynomial of degree ``e`` found by search (the powers of ``x``
then run through all of F_q^*, so ``x`` is the primitive element);
elements are the integers ``0..q-1`` whose base-``r`` digits are the
polynomial's coefficients. For prime ``q`` this is arithmetic mod ``q`` with
the smallest primitive root.

Routers are numbered ``s*q^2 + a*q + b`` for ``(s, a, b)`` = ``(0, x, y)`` or
``(1, m, c)``, which is also ``coords``. Link classes: ``x0`` (inside
subgraph 0), ``x1`` (inside subgraph 1) and ``cross``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..capabilities import Capabilities
from ..errors import SpecError
from ..registry import Family, keyed_fields, register
from ..topology import Topology

__all__ = ["slimfly", "slimfly_size", "slimfly_figures", "SlimFlyFigures", "slimfly_q_values", "GaloisField",
           "galois_field"]

#: the largest q built (2 q^2 routers: 2 million at q = 1021); its field tables are q x q
_Q_MAX = 1024


def _prime_power(q: int) -> tuple[int, int] | None:
    """``(r, e)`` with ``q = r^e`` for a prime ``r``, or None."""
    if q < 2:
        return None
    r = next(d for d in range(2, q + 1) if q % d == 0)
    e, rest = 0, q
    while rest % r == 0:
        rest //= r
        e += 1
    return (r, e) if rest == 1 else None


def slimfly_q_values(limit: int = 50) -> list[int]:
    """The q a Slim Fly exists for (prime powers 4w + delta, delta in {-1, 0, 1}), up to ``limit``.

    >>> slimfly_q_values(20)
    [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19]
    """
    return [q for q in range(3, limit + 1) if _prime_power(q) is not None and q % 4 != 2]


def _check(q: Any, p: Any = None) -> tuple[int, int, int]:
    """Validated ``(q, delta, p)``."""
    try:
        qi = int(q)
    except (TypeError, ValueError):
        raise SpecError(f"slimfly: q must be an integer (a prime power such as 5, 7, 8, 9), got {q!r}") from None
    if qi != q and not isinstance(q, str):
        raise SpecError(f"slimfly: q must be an integer, got {q!r}")
    if qi > _Q_MAX:
        raise SpecError(f"slimfly: q={qi} is beyond the largest q built here ({_Q_MAX}, {2 * _Q_MAX ** 2:,} routers); "
                        "choose a smaller q")
    if _prime_power(qi) is None or qi % 4 == 2:
        near = [v for v in slimfly_q_values(max(qi + 8, 16)) if abs(v - qi) <= 8][:6]
        raise SpecError(f"slimfly: q must be a prime power 4w+delta with delta in -1, 0, 1 (q >= 3); "
                        f"q={qi} is not: use one of {', '.join(map(str, near))}")
    delta = {0: 0, 1: 1, 3: -1}[qi % 4]
    kp = (3 * qi - delta) // 2
    if p is None:
        pi = -(-kp // 2)
    else:
        try:
            pi = int(p)
        except (TypeError, ValueError):
            raise SpecError(f"slimfly: p (PEs per router) must be an integer, got {p!r}") from None
        if pi != p and not isinstance(p, str):
            raise SpecError(f"slimfly: p (PEs per router) must be an integer, got {p!r}")
        if pi < 1:
            raise SpecError(f"slimfly: p (PEs per router) must be at least 1, got p={pi} "
                            f"(Besta and Hoefler use ceil(k'/2) = {-(-kp // 2)})")
    return qi, delta, pi


def slimfly_size(q: int, p: int | None = None) -> tuple[int, int]:
    """(routers, links) of :func:`slimfly` from its parameters alone.

    >>> slimfly_size(5)
    (50, 175)
    """
    q, delta, _ = _check(q, p)
    kp = (3 * q - delta) // 2
    return 2 * q * q, q * q * kp


@dataclass(frozen=True, eq=False)
class GaloisField:
    """The finite field F_q as addition and multiplication tables over ``0..q-1``
    (0 the zero, 1 the one) and its primitive element ``xi``."""

    q: int
    add: np.ndarray
    mul: np.ndarray
    xi: int

    def power(self, k: int) -> int:
        """``xi ** k``."""
        v = 1
        for _ in range(k % (self.q - 1)):
            v = int(self.mul[v, self.xi])
        return v


def _poly_tables(r: int, e: int) -> tuple[np.ndarray, np.ndarray, int]:
    q = r ** e
    digits = np.array([[(v // r ** i) % r for i in range(e)] for v in range(q)], dtype=np.int64)
    weights = r ** np.arange(e, dtype=np.int64)
    add = ((digits[:, None, :] + digits[None, :, :]) % r) @ weights
    if e == 1:
        mul = np.outer(np.arange(q), np.arange(q)) % q
        xi = next(x for x in range(2, q) if len({pow(x, k, q) for k in range(q - 1)}) == q - 1) if q > 2 else 1
        return add, mul, xi
    # a monic primitive polynomial x^e + c_{e-1} x^{e-1} + ... + c_0: the powers of x have order q - 1
    for code in range(r ** e):
        c = [(code // r ** i) % r for i in range(e)]
        if c[0] == 0:
            continue

        def times_x(v: list[int]) -> list[int]:
            top = v[-1]
            shifted = [0] + v[:-1]
            return [(shifted[i] - top * c[i]) % r for i in range(e)]

        powers = [[1] + [0] * (e - 1)]
        for _ in range(q - 2):
            powers.append(times_x(powers[-1]))
        codes = [sum(d * r ** i for i, d in enumerate(v)) for v in powers]
        if len(set(codes)) == q - 1 and 0 not in codes and times_x(powers[-1]) == powers[0]:
            break
    else:  # pragma: no cover - a primitive polynomial exists for every prime power
        raise AssertionError(f"no primitive polynomial of degree {e} over F_{r}")
    log = np.full(q, -1, dtype=np.int64)
    log[np.array(codes)] = np.arange(q - 1)
    exp = np.array(codes, dtype=np.int64)
    la, lb = log[:, None], log[None, :]
    mul = np.where((la >= 0) & (lb >= 0), exp[(la + lb) % (q - 1)], 0)
    return add, mul, r  # the polynomial x is the element coded r


@lru_cache(maxsize=8)
def galois_field(q: int) -> GaloisField:
    """F_q for a prime power ``q`` (tables cached).

    >>> F = galois_field(4)
    >>> int(F.add[2, 3]), int(F.mul[2, 2]), int(F.mul[2, 3])    # x + (x+1) = 1, x*x = x+1, x(x+1) = 1
    (1, 3, 1)
    """
    rp = _prime_power(int(q))
    if rp is None:
        raise SpecError(f"F_q needs a prime power q, got {q}")
    add, mul, xi = _poly_tables(*rp)
    for t in (add, mul):
        t.setflags(write=False)
    return GaloisField(int(q), add.astype(np.int64), mul.astype(np.int64), int(xi))


def _generator_set(F: GaloisField, delta: int) -> list[int]:
    q = F.q
    if delta == 1:
        exps = list(range(0, q - 2, 2))
    elif delta == 0:
        exps = list(range(0, q - 1, 2))
    else:
        w = (q + 1) // 4
        exps = list(range(0, 2 * w - 1, 2)) + list(range(2 * w - 1, 4 * w - 2, 2))
    return [F.power(k) for k in exps]


def slimfly(q: int, p: int | None = None) -> Topology:
    """The Slim Fly MMS graph for the prime power ``q`` (``2 q^2`` routers,
    degree ``(3q - delta)/2``, diameter 2) with ``p`` PEs per router
    (default ``ceil(k'/2)``).

    >>> t = slimfly(5)          # the Hoffman-Singleton graph
    >>> t.n, t.num_links, sorted(set(t.degree.tolist())), int(t.terminals[0])
    (50, 175, [7], 4)
    >>> t.spec
    'slimfly:q=5'
    """
    q, delta, p = _check(q, p)
    F = galois_field(q)
    X = np.array(_generator_set(F, delta), dtype=np.int64)
    Xp = F.mul[X, F.xi]
    n = 2 * q * q
    a = np.arange(q)
    links, dims = [], []
    for s, gen in ((0, X), (1, Xp)):
        # (s, u, v) ~ (s, u, v + d) for d in the generator set; the set is closed under negation,
        # so each link shows up from both ends: keep it from the smaller index
        u, v, d = np.meshgrid(a, a, gen, indexing="ij")
        w = F.add[v, d]
        src = s * q * q + u * q + v
        dst = s * q * q + u * q + w
        keep = src < dst
        links.append(np.stack([src[keep], dst[keep]], axis=1))
        dims.append(np.full(int(keep.sum()), s, dtype=np.int64))
    x, m, c = np.meshgrid(a, a, a, indexing="ij")
    y = F.add[F.mul[m, x], c]
    links.append(np.stack([(x * q + y).ravel(), (q * q + m * q + c).ravel()], axis=1))
    dims.append(np.full(q ** 3, 2, dtype=np.int64))
    coords = np.stack([np.arange(n) // (q * q), (np.arange(n) // q) % q, np.arange(n) % q], axis=1)
    topo = Topology(
        n=n, links=np.concatenate(links), link_dim=np.concatenate(dims), dims=("x0", "x1", "cross"),
        coords=coords.astype(np.int64), terminals=np.full(n, p, dtype=np.int64), family="slimfly",
        params={"q": q, "p": p, "delta": delta, "xi": F.xi, "X": X.tolist()},
        spec=f"slimfly:q={q}" + ("" if p == -(-((3 * q - delta) // 2) // 2) else f":p={p}"),
    )
    kp = (3 * q - delta) // 2
    if topo.num_links != q * q * kp:  # the generator sets are symmetric: a wrong one cannot build silently
        raise AssertionError(f"slimfly q={q}: {topo.num_links} links, expected {q * q * kp}")
    return topo


@dataclass(frozen=True)
class SlimFlyFigures:
    """The figures Besta and Hoefler (SC 2014) state for a Slim Fly MMS graph.

    ``moore_fraction``: routers over the Moore bound ``k'^2 + 1`` of a
    diameter-2 graph of degree ``k'`` (it tends to 8/9). Diameter 2 makes
    every other router at distance 1 (``k'`` of them) or 2, so the average
    distance to the other routers is ``(k' + 2 (n - 1 - k')) / (n - 1)``.
    ``uniform_bound``: with every PE sending ``lam`` spread evenly over the
    PEs of the other routers (``flows.Demands.uniform`` with the PEs as
    weights), the ``2 * links`` channels carry ``N * lam`` times the average
    distance: ``lam <= 2*links / (N*avg)``. The routing-free optimum reaches
    it when all links are loaded alike (q = 5, the edge-transitive
    Hoffman-Singleton graph) and stays below otherwise.
    """

    q: int
    delta: int
    p: int
    routers: int
    terminals: int
    degree: int
    radix: int
    links: int
    diameter: int
    moore_bound: int
    moore_fraction: float
    average_distance: float
    uniform_bound: float

    source: str = "Besta and Hoefler, SC 2014"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def slimfly_figures(q: int, p: int | None = None) -> SlimFlyFigures:
    """The closed forms of the Slim Fly of ``q`` (see :class:`SlimFlyFigures`).

    >>> f = slimfly_figures(5)
    >>> f.routers, f.degree, f.diameter, f.p, f.radix, f.moore_bound, f.moore_fraction
    (50, 7, 2, 4, 11, 50, 1.0)
    """
    q, delta, p = _check(q, p)
    kp = (3 * q - delta) // 2
    n = 2 * q * q
    N = n * p
    m = q * q * kp
    avg = (kp + 2 * (n - 1 - kp)) / (n - 1)
    return SlimFlyFigures(
        q=q, delta=delta, p=p, routers=n, terminals=N, degree=kp, radix=kp + p, links=m, diameter=2,
        moore_bound=kp * kp + 1, moore_fraction=n / (kp * kp + 1), average_distance=avg,
        uniform_bound=2 * m / (N * avg),
    )


# ---------------------------------------------------------------- the Slim Fly family of the registry
_fields = keyed_fields("slimfly", ("q",), ("p",), ("q", "p"))
register(Family("slimfly", "Slim Fly (Besta and Hoefler 2014): the McKay-Miller-Siran graph of a prime power q, "
                "2q^2 routers of degree (3q-delta)/2, diameter 2",
                (("q", "prime power 4w+delta, delta in -1,0,1 (3, 4, 5, 7, 8, 9, 11, ...)"),
                 ("p", "optional: PEs per router (default ceil(degree/2))")),
                "slimfly:q=5",
                lambda pos, kw: slimfly(**_fields(pos, kw)),
                lambda pos, kw: (*slimfly_size(**_fields(pos, kw)), 3),
                Capabilities(coordinates=True, figures=lambda t: slimfly_figures(t.params["q"], int(t.terminals[0])))))
