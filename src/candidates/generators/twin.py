"""The n-dimensional twin torus nDT of '5d-twin-torus-extoll'.

Every node of an n-D torus (n odd, n >= 3) is two (n+1)-port cards joined
by an *internal* link, with one processing element (PE0, PE1) per card.
Each card is a router. The port configuration is the paper's Definition
2.2: with ``m = (n - 1) / 2`` the middle dimension,

- both ports of dimensions ``d0 .. d(m-1)`` are on card 0,
- both ports of dimensions ``d(m+1) .. d(n-1)`` are on card 1,
- of ``d_m`` the minus port is on card 0 and the plus port on card 1,

so every card has ``n + 1`` ports, the internal one included. The link of
dimension ``k`` between node ``x`` and node ``x + e_k`` (mod the shape)
joins the card of ``x`` holding port ``d_k^+`` to the card of ``x + e_k``
holding port ``d_k^-``. In a dimension of size 2 the plus and the minus
neighbour are the same node, reached through two distinct links, one per
port: the plus link of ``x`` and the plus link of ``x + e_k``.

Numbering (part of the API, used by :func:`twin_route`):

- router ``2 * node + card``, ``node`` the C-order index of the node
  coordinate, so ``coords`` is (node coordinate, card) and the router index
  is the C-order index of ``coords`` in the box ``shape + (2,)``;
- link ``k * N + node`` is the link of dimension ``k`` leaving ``node``
  through its plus port (its arc ``2 * link`` runs plus port -> minus port);
- link ``n * N + node`` is the internal link of ``node``, arc ``2 * link``
  from card 0 to card 1.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from ..capabilities import Capabilities
from ..errors import SpecError, TopologyError
from ..registry import Family, parse_shape, register, shape_family, take_field
from ..topology import INTERNAL, Topology

__all__ = ["twin_torus", "twin_size", "card_of_port", "twin_route", "twin_shape"]

ALGORITHMS = ("tsdor", "dort")


def _check_n(n: int) -> int:
    try:
        n = operator.index(n)
    except TypeError:
        raise SpecError(f"nDT needs an odd number of dimensions >= 3 (e.g. ndt:4x4x2x2x2), got {n!r}") from None
    if n < 3 or n % 2 == 0:
        raise SpecError(f"nDT needs an odd number of dimensions >= 3 (e.g. ndt:4x4x2x2x2), got {n}")
    return n


def _check_shape(shape: Sequence[int]) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)):
        raise SpecError(f"nDT shape must be a sequence of integers such as (4, 4, 2, 2, 2), got {shape!r}")
    try:
        s = tuple(operator.index(x) for x in shape)
    except TypeError:
        raise SpecError(f"nDT shape must be a sequence of integers such as (4, 4, 2, 2, 2), got {shape!r}") from None
    _check_n(len(s))
    if any(x < 2 for x in s):
        raise SpecError(f"nDT sizes must be integers >= 2, got {'x'.join(map(str, s))}")
    return s


def card_of_port(n: int, dim: int, sign: int) -> int:
    """The card (0 or 1) of an nDT node that holds port ``d_dim^sign``.

    Parameters
    ----------
    n : int
        Number of torus dimensions (odd, >= 3).
    dim : int
        The dimension, ``0 <= dim < n``.
    sign : int
        ``+1`` for the plus port, ``-1`` for the minus port.

    Returns
    -------
    int
        0 for dimensions below the middle one ``m = (n - 1) / 2`` and for
        ``d_m^-``; 1 for dimensions above it and for ``d_m^+``.

    Raises
    ------
    SpecError
        If ``n`` is not odd and >= 3, ``dim`` is out of range or ``sign``
        is not +1 or -1.

    Examples
    --------
    The 5DT node of the paper's Fig. 2b: d0, d1 and d2^- on card 0.

    >>> [card_of_port(5, k, +1) for k in range(5)]
    [0, 0, 1, 1, 1]
    >>> [card_of_port(5, k, -1) for k in range(5)]
    [0, 0, 0, 1, 1]
    """
    n = _check_n(n)
    if not 0 <= dim < n:
        raise SpecError(f"dimension {dim} is out of range for an {n}DT (dimensions 0..{n - 1})")
    if sign not in (1, -1):
        raise SpecError(f"port sign must be +1 or -1, got {sign!r}")
    m = (n - 1) // 2
    if dim != m:
        return 0 if dim < m else 1
    return 1 if sign > 0 else 0


def twin_size(shape: Sequence[int]) -> tuple[int, int]:
    """(routers, links) of :func:`twin_torus` from the shape alone.

    >>> twin_size((4, 4, 2, 2, 2))
    (256, 768)
    """
    s = _check_shape(shape)
    N = math.prod(s)
    return 2 * N, (len(s) + 1) * N


def twin_torus(shape: Sequence[int]) -> Topology:
    """The nDT twin torus whose nodes form an n-D torus of the given shape.

    Parameters
    ----------
    shape : sequence of int
        Node counts per dimension; an odd number (>= 3) of sizes, each >= 2.

    Returns
    -------
    Topology
        ``2 * prod(shape)`` routers (cards), one terminal each; router
        ``2 * node + card``; ``coords`` (2N, n+1) = node coordinate then
        card; ``shape`` = ``tuple(shape) + (2,)``; link classes
        ``d0 .. d(n-1)`` and ``internal``; family ``"ndt"``, spec
        ``"ndt:4x4x2x2x2"``, params ``{"shape": [...], "n": n}``. The link
        numbering is given in the module docstring.

    Raises
    ------
    SpecError
        If the number of dimensions is even or below 3, or a size is not an
        integer >= 2.

    Examples
    --------
    The 256-PE 5DT of '5d-twin-torus-extoll': 6-port cards, 5 per-dimension
    link classes of one link per node, and one internal link per node.

    >>> t = twin_torus((4, 4, 2, 2, 2))
    >>> t.n, t.num_terminals, sorted(set(t.degree.tolist()))
    (256, 256, [6])
    >>> np.bincount(t.link_dim).tolist()
    [128, 128, 128, 128, 128, 128]
    """
    s = _check_shape(shape)
    n = len(s)
    N = int(np.prod(s))
    node = np.arange(N, dtype=np.int64)
    node_coords = np.stack(np.unravel_index(node, s), axis=1).astype(np.int64)
    links = []
    for k in range(n):
        nxt = node_coords.copy()
        nxt[:, k] = (nxt[:, k] + 1) % s[k]
        y = np.ravel_multi_index(tuple(nxt.T), s)
        links.append(np.stack([2 * node + card_of_port(n, k, +1), 2 * y + card_of_port(n, k, -1)], axis=1))
    links.append(np.stack([2 * node, 2 * node + 1], axis=1))
    link_dim = np.repeat(np.arange(n + 1, dtype=np.int64), N)
    coords = np.concatenate([np.repeat(node_coords, 2, axis=0), np.tile([0, 1], N)[:, None]], axis=1)
    return Topology(
        n=2 * N,
        links=np.concatenate(links),
        link_dim=link_dim,
        dims=tuple(f"d{k}" for k in range(n)) + (INTERNAL,),
        coords=coords,
        shape=s + (2,),
        family="ndt",
        params={"shape": list(s), "n": n},
        spec="ndt:" + "x".join(map(str, s)),
    )


def twin_shape(topo: Topology) -> tuple[int, ...]:
    """The node shape of a topology built by :func:`twin_torus`, checked."""
    if not isinstance(topo, Topology) or topo.family != "ndt" or "shape" not in topo.params:
        what = topo.spec or topo.family if isinstance(topo, Topology) else type(topo).__name__
        raise TopologyError(f"twin_route needs an nDT twin torus built by twin_torus (ndt:...), got {what}")
    s = _check_shape(topo.params["shape"])
    N = int(np.prod(s))
    # the arcs are computed from the link numbering, so it must be intact
    if topo.n != 2 * N or topo.num_links != (len(s) + 1) * N or topo.shape != s + (2,):
        raise TopologyError(
            f"this ndt topology does not have the link layout of twin_torus({'x'.join(map(str, s))}); rebuild it"
        )
    return s


def twin_route(topo: Topology, src: int, dst: int, algorithm: str = "tsdor") -> list[int]:
    """The channels the deterministic DORT or TS-DOR path takes from ``src`` to ``dst``.

    Parameters
    ----------
    topo : Topology
        An nDT built by :func:`twin_torus`.
    src, dst : int
        Source and destination routers (cards); the source card is the
        injecting PE (router ``2 * node + 0`` is PE0).
    algorithm : {"tsdor", "dort"}
        ``"dort"`` routes the dimensions in ascending order ``d0 -> d(n-1)``
        for every packet. ``"tsdor"`` (Twin Source DOR) routes packets
        injected by PE0 ``d0 -> d(n-1)`` and packets injected by PE1
        ``d(n-1) -> d0``.

    Returns
    -------
    list of int
        Channel numbers (arc ``2*i`` is link ``i`` forwards, ``2*i + 1``
        backwards), in path order; ``[]`` when ``src == dst``.

    Raises
    ------
    TopologyError
        If ``topo`` is not an nDT from :func:`twin_torus` or a router index
        is out of range.
    SpecError
        If ``algorithm`` is not ``"tsdor"`` or ``"dort"``.

    Notes
    -----
    In each dimension the packet takes the minimal direction; when the port
    it needs is on the other card it first crosses the internal link, and
    at the destination node it crosses the internal link once more if the
    destination is the other card. Hops of the middle dimension ``m``
    alternate cards (``d_m^+`` leaves card 1 and enters card 0), which is
    the paper's case iii) of internal-link use.

    Ties (the offset is exactly half of an even ring):

    - middle dimension: the port on the card the packet is on, i.e.
      ``d_m^-`` on card 0 and ``d_m^+`` on card 1. Under TS-DOR a PE0
      packet always reaches ``d_m`` on card 0 and a PE1 packet on card 1,
      so this *is* the paper's rule (PE0-sourced packets ``d_m^-``,
      PE1-sourced ``d_m^+``). The paper states the rule for TS-DOR only;
      under DORT a PE1 packet that crossed to card 0 for ``d0`` takes
      ``d_m^-`` here rather than paying an internal hop to reach ``d_m^+``
      and another after it (the rule's stated purpose is to avoid the
      internal link).
    - other dimensions (the paper is silent): the plus direction. Both
      ports are on the same card and reach the same card of the
      destination, so the choice costs nothing.

    A size-2 dimension is always a tie: both ports reach the same neighbour
    node, so the rules above pick the port on the current card, which saves
    an internal hop in the middle dimension.

    Examples
    --------
    The tie of the paper's Fig. 4: a PE0 packet in a 3DT with 2 nodes in Y
    reaches card 1 of the other node in one Y^- hop (Y^+ would take three).

    >>> t = twin_torus((2, 2, 2))
    >>> src, dst = t.node_index((0, 0, 0, 0)), t.node_index((0, 1, 0, 1))
    >>> path = twin_route(t, src, dst)
    >>> [t.dims[t.arc_dim[a]] for a in path], int(t.arc_dst[path[-1]]) == dst
    (['d1'], True)
    """
    s = twin_shape(topo)
    if algorithm not in ALGORITHMS:
        raise SpecError(f"unknown nDT routing {algorithm!r}; use 'tsdor' or 'dort'")
    R = topo.n
    try:
        src, dst = operator.index(src), operator.index(dst)
    except TypeError:
        raise TopologyError(f"src and dst must be router indices 0..{R - 1}, got {src!r} and {dst!r}") from None
    if not (0 <= src < R and 0 <= dst < R):
        raise TopologyError(f"src and dst must be router indices 0..{R - 1}, got {src} and {dst}")
    if src == dst:
        return []
    n = len(s)
    m = (n - 1) // 2
    N = R // 2
    stride = [int(np.prod(s[k + 1:])) for k in range(n)]
    x = [int(c) for c in np.unravel_index(src // 2, s)]
    target = list(np.unravel_index(dst // 2, s))
    card = src % 2
    pe = card
    order = range(n - 1, -1, -1) if (algorithm == "tsdor" and pe == 1) else range(n)
    path: list[int] = []

    def node_of(coord: list[int]) -> int:
        return sum(int(c) * st for c, st in zip(coord, stride))

    def cross_internal() -> None:
        nonlocal card
        path.append(2 * (n * N + node_of(x)) + card)
        card = 1 - card

    for k in order:
        off = (int(target[k]) - int(x[k])) % s[k]
        if off == 0:
            continue
        back = s[k] - off
        if off != back:
            sign = 1 if off < back else -1
        elif k == m:
            sign = 1 if card == 1 else -1
        else:
            sign = 1
        for _ in range(min(off, back)):
            if card != card_of_port(n, k, sign):
                cross_internal()
            if sign > 0:
                path.append(2 * (k * N + node_of(x)))
                x[k] = (x[k] + 1) % s[k]
            else:
                # the minus port's link is the plus link of the node below
                x[k] = (x[k] - 1) % s[k]
                path.append(2 * (k * N + node_of(x)) + 1)
            card = card_of_port(n, k, -sign)
    if card != dst % 2:
        cross_internal()
    return path


# ---------------------------------------------------------------- the twin-torus family of the registry
def _size_ndt(pos: list[str], kw: dict[str, str]):
    shape = parse_shape("ndt", take_field("ndt", pos, kw, "shape", {"shape"}))
    n, m = twin_size(shape)
    return n, m, len(shape) + 1


register(Family("ndt", "n-dimensional twin torus (n odd >= 3): two (n+1)-port cards per node, each card a router",
                (("shape", "node sizes joined by x, each >= 2"),), "ndt:4x4x2x2x2",
                shape_family("ndt", twin_torus), _size_ndt, Capabilities(coordinates=True, twin=True)))
