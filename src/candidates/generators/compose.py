"""Cartesian products of small graphs, and the hierarchical composition of
'topology-synthesis-mcf-bgl' with the placement of every router.

The paper (Sec. IV) builds a Blue Gene/L midplane from small graphs: the
32 nodes of a node card sit on an 8 x 4 grid, a *row graph* on 8 nodes is
placed along a row and duplicated to every row, a *column graph* on 4 nodes
along every column, and "the similar method" is applied one level up to the
16 node cards of a midplane. Every such composition is the Cartesian
product of its factor graphs; what the hierarchy adds is where each router
sits (its compute card, node card, midplane and its position on the board),
which the packaging constraints of :mod:`flows` need.

Conventions where the paper is silent (they are ours):

- A grid has ``R`` rows and ``C`` columns. The row graph (``C`` vertices)
  is placed along every row with its vertex ``i`` in column ``i``; the
  column graph (``R`` vertices) along every column with its vertex ``j`` in
  row ``j``. So a Blue Gene/L node card is 4 rows x 8 columns.
- A factor given as a networkx graph on the integers ``0..n-1`` uses the
  integer as the vertex index (its position), whatever the iteration order;
  any other networkx graph uses its iteration order. An enumerated graph
  with a linear placement ``order`` (vertex ``order[i]`` at position ``i``)
  is therefore passed as ``nx.relabel_nodes(G, {v: i for i, v in
  enumerate(order)})``.
- Level ``l`` of a hierarchy is a grid of level-``(l-1)`` boards (level 0:
  of routers); its row and column graphs join the routers at the same
  position of the boards they connect.
- Blue Gene/L compute cards hold the 2 nodes of one column in neighbouring
  rows: a node card carries its 16 compute cards in two rows of eight, so
  along the 8-wide axis each column is one card slot and the 4-high axis is
  two card rows of two nodes each (``card_axis="row"`` gives the other
  reading).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from ..capabilities import Capabilities
from ..errors import SpecError
from ..registry import Family, from_spec, register, spec_size
from ..topology import Placement, Topology

__all__ = ["product", "hierarchical", "bgl_midplane"]

#: What a factor may be: a Topology, a networkx graph, a spec string such as
#: ``"ring:8"``, or an edge list ``[(u, v), ...]`` on vertices ``0..max``
#: (networkx is imported lazily, so the alias cannot name its classes).
Factor = Union[Topology, str, Sequence[Sequence[int]], Any]

CARD_AXES = ("row", "col")

# ---------------------------------------------------------------- factors
def _factor(g: Factor, what: str) -> Topology:
    """A factor as a Topology whose router ``i`` is the factor's vertex ``i``."""
    if isinstance(g, Topology):
        return g
    if isinstance(g, str):
        return from_spec(g)
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    if isinstance(g, nx.Graph):
        return _from_networkx(g, what)
    try:
        edges = np.asarray(g, dtype=np.int64)
    except (TypeError, ValueError):
        edges = None
    if edges is None or edges.ndim != 2 or edges.shape[1] != 2 or edges.size == 0:
        raise SpecError(
            f"{what} must be a Topology, a networkx graph, a spec string such as 'ring:8' or a "
            f"non-empty edge list [(u, v), ...]; got {type(g).__name__}"
        )
    if edges.min() < 0:
        raise SpecError(f"{what}: edge-list vertices must be integers 0..n-1, got {int(edges.min())}")
    if np.any(edges[:, 0] == edges[:, 1]):
        raise SpecError(f"{what}: self-loop at vertex {int(edges[edges[:, 0] == edges[:, 1]][0, 0])}")
    return Topology(int(edges.max()) + 1, edges)


def _from_networkx(G: Any, what: str) -> Topology:
    if G.is_directed():
        raise SpecError(f"{what} is a directed graph; products need undirected graphs (use G.to_undirected())")
    nodes = list(G.nodes())
    if not nodes:
        raise SpecError(f"{what} has no vertices")
    n = len(nodes)
    integral = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in nodes)
    if integral and sorted(int(v) for v in nodes) == list(range(n)):
        # integer labels are positions even if relabel_nodes permuted the iteration order
        index = {v: int(v) for v in nodes}
    else:
        index = {v: i for i, v in enumerate(nodes)}
    links = []
    for u, v in G.edges():  # a MultiGraph yields every parallel edge
        if u == v:
            raise SpecError(f"{what} has a self-loop at node {u!r}")
        links.append((index[u], index[v]))
    return Topology(n, np.asarray(links, dtype=np.int64).reshape(-1, 2))


def _spec_of(fs: Sequence[Topology]) -> list[str] | None:
    """Factor specs that rebuild the factors inside a ``*``-joined spec, or None."""
    specs = [f.spec for f in fs]
    # '*' would split a nested product, and a trailing ':c=' would be read
    # as the concentration of the whole product
    if all(s and "*" not in s and ":c=" not in s for s in specs):
        return specs
    return None


# ---------------------------------------------------------------- product
def product(*factors: Factor, names: Sequence[str] | None = None) -> Topology:
    """Cartesian product of small graphs.

    Two routers are joined when their coordinates differ in one factor only
    and are joined there, once per link of that factor (parallel links are
    kept).

    Parameters
    ----------
    *factors : Topology, networkx graph, spec string or edge list
        The factor graphs, in order. A networkx graph on the integers
        ``0..n-1`` has vertex ``i`` = node ``i``; other networkx graphs
        their iteration order. An edge list ``[(u, v), ...]`` has vertices
        ``0..max``.
    names : sequence of str, optional
        Link class names, one per factor; default ``("f0", "f1", ...)``.

    Returns
    -------
    Topology
        ``prod(n_i)`` routers; router index = C-order index of the factor
        coordinates, ``coords`` (N, k) = the factor vertex indices and
        ``shape`` the factor sizes; the link class of a link is the index
        of its factor. One terminal per router (the factors' terminals are
        ignored; use :meth:`Topology.with_concentration`). Family
        ``"product"``; spec ``"product:" + "*".join(factor specs)`` when
        every factor has a spec that survives the join, else ``""``.
        Vertex-transitive when every factor is.

    Raises
    ------
    SpecError
        If there is no factor, a factor is not a graph, or ``names`` does
        not give one distinct name per factor.

    Examples
    --------
    >>> import networkx as nx
    >>> t = product("ring:4", nx.path_graph(3), names=("x", "y"))
    >>> t.n, t.num_links, t.shape, t.dims
    (12, 20, (4, 3), ('x', 'y'))
    >>> t.coords[t.links[t.link_dim == 1][0]].tolist()  # a y link: same x, y 0 -> 1
    [[0, 0], [0, 1]]
    >>> product("ring:4", "path:3").spec
    'product:ring:4*path:3'
    """
    if not factors:
        raise SpecError("a product needs at least one factor, e.g. product('ring:8', 'path:4')")
    fs = [_factor(f, f"factor {i}") for i, f in enumerate(factors)]
    k = len(fs)
    if names is None:
        names = tuple(f"f{i}" for i in range(k))
    else:
        if isinstance(names, str) or len(names) != k:
            raise SpecError(f"names must give one link class name per factor ({k}), got {names!r}")
        names = tuple(str(x) for x in names)
        if len(set(names)) != k or not all(names):
            raise SpecError(f"link class names must be distinct and non-empty, got {names}")
    sizes = tuple(f.n for f in fs)
    N = int(np.prod(sizes))
    coords = np.stack(np.unravel_index(np.arange(N), sizes), axis=1).astype(np.int64)
    stride = [int(np.prod(sizes[i + 1:])) for i in range(k)]
    links = []
    for i, f in enumerate(fs):
        # one copy of factor i through every router whose coordinate i is 0
        base = np.flatnonzero(coords[:, i] == 0)
        ends = base[:, None, None] + f.links[None, :, :] * stride[i]
        links.append(ends.reshape(-1, 2))
    link_dim = np.repeat(np.arange(k, dtype=np.int64), [len(x) for x in links])
    specs = _spec_of(fs)
    return Topology(
        n=N,
        links=np.concatenate(links),
        link_dim=link_dim,
        dims=names,
        coords=coords,
        shape=sizes,
        family="product",
        params={"factors": [f.spec for f in fs], "sizes": list(sizes)},
        spec="product:" + "*".join(specs) if specs else "",
        vertex_transitive=all(f.vertex_transitive for f in fs),
    )


# ------------------------------------------------------------ hierarchical
def hierarchical(
    levels: Sequence[tuple[Factor, Factor]],
    *,
    level_names: Sequence[str] | None = None,
    card: tuple[str, int] | None = None,
) -> Topology:
    """The hierarchical composition of 'topology-synthesis-mcf-bgl'.

    Level 0 is a board of ``R0 x C0`` routers: the row graph of level 0
    (``C0`` vertices) is placed along every row, vertex ``i`` in column
    ``i``, and the column graph (``R0`` vertices) along every column,
    vertex ``j`` in row ``j``. Level ``l`` arranges ``R_l x C_l`` boards of
    level ``l - 1`` on a grid with its own row and column graphs, each
    joining the routers at the same position of the boards it connects.
    The result is the Cartesian product of all the factor graphs.

    Parameters
    ----------
    levels : sequence of (row graph, column graph)
        One pair per level, innermost first; each graph a Topology, a
        networkx graph, a spec string or an edge list (see :func:`product`).
    level_names : sequence of str, optional
        Names of the packaging units, innermost first: the card (when
        ``card`` is given), then the board of each level. Default
        ``("card",)`` (with ``card``) ``+ ("board0", "board1", ...)``; for
        Blue Gene/L ``("compute_card", "node_card", "midplane")``.
    card : (axis, size), optional
        Innermost packaging unit: ``size`` consecutive positions of a
        level-0 row (``axis="row"``) or column (``axis="col"``).

    Returns
    -------
    Topology
        Family ``"hierarchical"``. Coordinates, shape and link classes are
        ordered outermost level first and, within level ``l``, (row,
        column): ``coords[:, 2*(L-1-l)]`` is the row on the level-``l``
        grid (link class ``"L{l}.col"``, the column graph moves along it)
        and ``coords[:, 2*(L-1-l) + 1]`` the column (class ``"L{l}.row"``).
        The router index is the C-order index of ``coords``: each level-0
        board is a block of ``R0 * C0`` consecutive routers, row-major.
        ``placement.unit[v]`` = (card, board of level 0, ..., board of level
        L-1), each numbered globally (the level-``l`` board of ``v`` is
        ``v // prod_{j<=l} R_j C_j``; cards row-major within their board);
        ``placement.position[v]`` = (row, column) on its level-0 board.

    Raises
    ------
    SpecError
        If a level is not a pair of graphs, ``card`` does not tile a
        level-0 row or column, or ``level_names`` has the wrong length.

    Examples
    --------
    One 4 x 8 board (a ring along each row, a path along each column) with
    cards of 2 routers along the rows:

    >>> import networkx as nx
    >>> t = hierarchical([(nx.cycle_graph(8), nx.path_graph(4))], card=("row", 2))
    >>> t.n, t.dims, t.placement.levels
    (32, ('L0.col', 'L0.row'), ('card', 'board0'))
    >>> t.placement.unit[:4, 0].tolist(), t.placement.position[9].tolist()
    ([0, 0, 1, 1], [1.0, 1.0])
    """
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence) or len(levels) == 0:
        raise SpecError("a hierarchy needs a list of (row graph, column graph) pairs, innermost level first")
    L = len(levels)
    rows_g: list[Topology] = []
    cols_g: list[Topology] = []
    for l, pair in enumerate(levels):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise SpecError(f"level {l} must be a (row graph, column graph) pair, got {type(pair).__name__}")
        rows_g.append(_factor(pair[0], f"the row graph of level {l}"))
        cols_g.append(_factor(pair[1], f"the column graph of level {l}"))
    R = [g.n for g in cols_g]  # rows of each grid = vertices of its column graph
    C = [g.n for g in rows_g]
    factors: list[Topology] = []
    names: list[str] = []
    for l in reversed(range(L)):
        factors += [cols_g[l], rows_g[l]]
        names += [f"L{l}.col", f"L{l}.row"]

    unit_names = ["board%d" % l for l in range(L)]
    if card is not None:
        if isinstance(card, (str, bytes)) or not isinstance(card, Sequence) or len(card) != 2:
            raise SpecError(f"card must be (axis, size) with axis 'row' or 'col', got {card!r}")
        axis, size = card
        if axis not in CARD_AXES:
            raise SpecError(f"card axis must be 'row' (along a row) or 'col' (along a column), got {axis!r}")
        try:
            size = operator.index(size)
        except TypeError:
            raise SpecError(f"card size must be a positive integer, got {size!r}") from None
        along = C[0] if axis == "row" else R[0]
        if size < 1 or along % size:
            raise SpecError(
                f"cards of {size} do not tile a level-0 {'row' if axis == 'row' else 'column'} of {along} positions"
            )
        unit_names.insert(0, "card")
    if level_names is not None:
        if isinstance(level_names, str) or len(level_names) != len(unit_names):
            raise SpecError(
                f"level_names needs {len(unit_names)} names, innermost first ({', '.join(unit_names)}), "
                f"got {level_names!r}"
            )
        unit_names = [str(x) for x in level_names]
        if len(set(unit_names)) != len(unit_names):
            raise SpecError(f"level_names must be distinct, got {tuple(unit_names)}")

    t = product(*factors, names=names)
    coords = t.coords
    assert coords is not None  # a product always has coordinates
    v = np.arange(t.n, dtype=np.int64)
    row, col = coords[:, 2 * L - 2], coords[:, 2 * L - 1]
    units = []
    block = 1
    for l in range(L):
        block *= R[l] * C[l]
        units.append(v // block)
    if card is not None:
        board = units[0]
        if axis == "row":
            per_board, local = R[0] * (C[0] // size), row * (C[0] // size) + col // size
        else:
            per_board, local = (R[0] // size) * C[0], (row // size) * C[0] + col
        units.insert(0, board * per_board + local)
    # slot of what holds v on the board of each level: routers (or cards) on
    # level 0, the level-(l-1) boards on the level-l grid
    slots = [np.stack([coords[:, 2 * (L - 1 - l)], coords[:, 2 * (L - 1 - l) + 1]], axis=1) for l in range(1, L)]
    if card is None:
        slots.insert(0, np.stack([row, col], axis=1))
    elif axis == "row":
        slots[:0] = [np.stack([np.zeros_like(col), col % size], axis=1), np.stack([row, col // size], axis=1)]
    else:
        slots[:0] = [np.stack([row % size, np.zeros_like(row)], axis=1), np.stack([row // size, col], axis=1)]
    placement = Placement(tuple(unit_names), np.stack(units, axis=1), np.stack([row, col], axis=1),
                          np.stack(slots, axis=1))
    return t.replace(
        family="hierarchical",
        spec="",
        placement=placement,
        params={
            "levels": [[rows_g[l].spec, cols_g[l].spec] for l in range(L)],
            "grid": [[R[l], C[l]] for l in range(L)],
            "card": [axis, size] if card is not None else None,
        },
    )


def bgl_midplane(
    row8: Factor, col4: Factor, upper_row: Factor, upper_col: Factor, *, card_axis: str = "col"
) -> Topology:
    """A Blue Gene/L midplane candidate of 512 routers.

    A node card is a grid of 4 rows x 8 columns: ``row8`` (8 vertices)
    along every row, ``col4`` (4 vertices) along every column. The 16 node
    cards of the midplane sit on a 4 x 4 grid joined by ``upper_row`` and
    ``upper_col`` (4 vertices each). Compute cards hold 2 routers.

    Parameters
    ----------
    row8, col4, upper_row, upper_col : Topology, networkx graph, spec string or edge list
        The four factor graphs (see :func:`product` for how vertices are
        numbered).
    card_axis : {"col", "row"}
        The 2 routers of a compute card are neighbours in a column (default,
        the physical node card: two rows of eight compute cards) or in a
        row.

    Returns
    -------
    Topology
        :func:`hierarchical` of ``[(row8, col4), (upper_row, upper_col)]``
        with placement levels ``("compute_card", "node_card", "midplane")``
        and family ``"bgl"``: router ``v`` is on node card ``v // 32`` at
        row ``v % 32 // 8``, column ``v % 8``. Spec
        ``"bgl:ROW8*COL4*UPROW4*UPCOL4"`` when the factors have specs and
        ``card_axis`` is the default, else ``""``.

    Raises
    ------
    SpecError
        If a factor graph has the wrong number of vertices.

    Examples
    --------
    Rings everywhere: 512 routers of degree 2 + 2 + 2 + 2.

    >>> t = bgl_midplane("ring:8", "ring:4", "ring:4", "ring:4")
    >>> t.n, sorted(set(t.degree.tolist())), t.spec
    (512, [8], 'bgl:ring:8*ring:4*ring:4*ring:4')
    >>> t.placement.levels, t.placement.unit[[0, 8, 32]].tolist()
    (('compute_card', 'node_card', 'midplane'), [[0, 0, 0], [0, 0, 0], [16, 1, 0]])
    """
    if card_axis not in CARD_AXES:
        raise SpecError(f"card_axis must be 'col' or 'row', got {card_axis!r}")
    fs = [_factor(g, what) for g, what in zip((row8, col4, upper_row, upper_col),
                                               ("row graph", "column graph", "upper row graph", "upper column graph"))]
    for f, want, what in zip(fs, (8, 4, 4, 4), ("row", "column", "upper row", "upper column")):
        if f.n != want:
            raise SpecError(f"the Blue Gene/L {what} graph needs {want} nodes, got {f.n}")
    t = hierarchical([(fs[0], fs[1]), (fs[2], fs[3])], level_names=("compute_card", "node_card", "midplane"),
                     card=(card_axis, 2))
    specs = _spec_of(fs)
    spec = "bgl:" + "*".join(specs) if specs and card_axis == "col" else ""
    return t.replace(family="bgl", spec=spec)


# ---------------------------------------------------------------- the composed families of the registry
def _factors(family: str, text: str, count: int | None = None) -> list[Topology]:
    parts = text.split("*")
    if any(not p for p in parts):
        raise SpecError(f"{family}: empty factor in {text!r}; join factor specs with single '*'")
    if count is not None and len(parts) != count:
        raise SpecError(f"{family} needs {count} factor specs joined by '*', got {len(parts)}")
    return [from_spec(p) for p in parts]


def _factor_sizes(family: str, text: str, count: int | None = None) -> tuple[int, int, int] | None:
    """Size of the Cartesian product of the factor specs (None if a factor's
    size is unknown until built)."""
    parts = text.split("*")
    if any(not p for p in parts):
        raise SpecError(f"{family}: empty factor in {text!r}; join factor specs with single '*'")
    if count is not None and len(parts) != count:
        raise SpecError(f"{family} needs {count} factor specs joined by '*', got {len(parts)}")
    maybe = [spec_size(p) for p in parts]
    sizes = [z for z in maybe if z is not None]
    if len(sizes) < len(maybe):
        return None
    N = 1
    for z in sizes:
        N *= z.routers
    # factor i is copied once per router of the other factors
    return N, sum(z.links * (N // z.routers) for z in sizes), len(sizes)


register(Family("product", "Cartesian product of small graphs given as specs joined by *",
                (("factors", "specs joined by *"),), "product:ring:8*path:4",
                lambda pos, kw: product(*_factors("product", pos[0])),
                lambda pos, kw: _factor_sizes("product", pos[0]), Capabilities(coordinates=True, whole_argument=True)))
register(Family("bgl", "Blue Gene/L midplane: row graph (8) and column graph (4) on each 8 x 4 node card, "
                "upper row and column graphs (4 each) joining 16 node cards; 2 routers per compute card",
                (("factors", "ROW8*COL4*UPROW4*UPCOL4 as specs"),), "bgl:ring:8*ring:4*ring:4*ring:4",
                lambda pos, kw: bgl_midplane(*_factors("bgl", pos[0], 4)),
                lambda pos, kw: _factor_sizes("bgl", pos[0], 4), Capabilities(coordinates=True, whole_argument=True)))
