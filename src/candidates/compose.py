"""Products of small graphs and the hierarchical composition of
'topology-synthesis-mcf-bgl', with the placement of every router.

The paper builds a Blue Gene/L midplane from small graphs: a *row graph*
(8 nodes) is placed along every row of a node card's 8 x 4 grid and a
*column graph* (4 nodes) along every column; "the similar method" one level
up joins the 16 node cards, arranged here on a 4 x 4 grid, by an upper row
graph and an upper column graph connecting the routers at the same position
of the node cards joined. Every such composition is a Cartesian product of
its factor graphs; what the hierarchy adds is where each router sits.

Conventions (the paper does not fix them; they are ours):

- At every level the row graph's vertex i sits in column i and the column
  graph's vertex j in row j; a factor given as a networkx graph keeps its
  node order, so pass an enumerated graph relabelled by its linear placement.
- Coordinates: ``coords[:, 2l]`` is the column and ``coords[:, 2l + 1]``
  the row at level l (innermost level 0).
- Compute cards (the innermost packaging unit, ``card=(axis, size)``) group
  ``size`` consecutive positions of a level-0 row (``axis="row"``) or column;
  for Blue Gene/L, 2 nodes per compute card along a row (our assumption).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import SpecError
from .topology import Placement, Topology

__all__ = ["product", "hierarchical", "bgl_midplane"]


def _as_topology(g) -> Topology:
    if isinstance(g, Topology):
        return g
    import networkx as nx

    if isinstance(g, nx.Graph):
        return Topology.from_networkx(g)
    if isinstance(g, str):
        from .registry import from_spec

        return from_spec(g)
    raise SpecError(f"a factor must be a Topology, a networkx graph or a spec string, got {type(g).__name__}")


def product(*factors, names: Sequence[str] | None = None) -> Topology:
    """Cartesian product of small graphs.

    Router index = C-order index of the factor coordinates; the link class of
    a link is the factor it comes from.

    >>> t = product("ring:4", "path:3")
    >>> t.n, t.num_links, t.spec
    (12, 20, 'product:ring:4*path:3')
    """
    if not factors:
        raise SpecError("a product needs at least one factor")
    fs = [_as_topology(f) for f in factors]
    k = len(fs)
    if names is None:
        names = tuple(f"f{i}" for i in range(k))
    elif len(names) != k:
        raise SpecError(f"{len(names)} names for {k} factors")
    sizes = tuple(f.n for f in fs)
    N = int(np.prod(sizes))
    coords = np.stack(np.unravel_index(np.arange(N), sizes), axis=1).astype(np.int64)
    stride = np.array([int(np.prod(sizes[i + 1:])) for i in range(k)], dtype=np.int64)
    links = []
    link_dim = []
    for i, f in enumerate(fs):
        if f.num_links == 0:
            continue
        # routers whose coordinate i is 0: one copy of factor i through each
        base = np.flatnonzero(coords[:, i] == 0)
        u = base[:, None] + f.links[None, :, 0] * stride[i]
        v = base[:, None] + f.links[None, :, 1] * stride[i]
        links.append(np.stack([u.reshape(-1), v.reshape(-1)], axis=1))
        link_dim.append(np.full(u.size, i, dtype=np.int64))
    spec = "product:" + "*".join(f.spec for f in fs) if all(f.spec for f in fs) else ""
    return Topology(
        n=N,
        links=np.concatenate(links) if links else np.zeros((0, 2), dtype=np.int64),
        link_dim=np.concatenate(link_dim) if link_dim else np.zeros(0, dtype=np.int64),
        dims=tuple(names),
        coords=coords,
        shape=sizes,
        family="product",
        params={"factors": [f.spec for f in fs]},
        spec=spec,
        vertex_transitive=all(f.vertex_transitive for f in fs),
    )


def hierarchical(levels: Sequence[tuple], *, level_names: Sequence[str] | None = None,
                 card: tuple[str, int] | None = None) -> Topology:
    """The hierarchical composition: a (row graph, column graph) pair per
    packaging level, innermost first.

    ``level_names`` names the packaging units from the innermost outwards:
    the compute card (if ``card`` is given), then one name per level's board.

    >>> import networkx as nx
    >>> t = hierarchical([(nx.cycle_graph(8), nx.path_graph(4))], level_names=("card", "node_card"), card=("row", 2))
    >>> t.n, int(t.placement.unit[:, 0].max()) + 1   # 32 routers on 16 compute cards
    (32, 16)
    """
    if not levels:
        raise SpecError("a hierarchy needs at least one (row graph, column graph) level")
    factors = []
    names = []
    for l, pair in enumerate(levels):
        if len(pair) != 2:
            raise SpecError(f"level {l} must be a (row graph, column graph) pair")
        factors += [_as_topology(pair[0]), _as_topology(pair[1])]
        names += [f"L{l}.row", f"L{l}.col"]
    # product coordinates in the order (L0.row, L0.col, L1.row, ...): the
    # row graph's vertex is the column, the column graph's the row
    t = product(*factors, names=names)
    L = len(levels)
    c = t.coords
    cols = [f.n for f in factors[0::2]]
    rows = [f.n for f in factors[1::2]]
    # boards: a level-l board is identified by the positions at levels > l
    units = []
    unit_names = []
    if card is not None:
        axis, size = card
        size = int(size)
        if axis not in ("row", "col"):
            raise SpecError("card axis must be 'row' (along a row) or 'col' (along a column)")
        along = cols[0] if axis == "row" else rows[0]
        if size < 1 or along % size:
            raise SpecError(f"cards of {size} do not tile a level-0 {axis} of {along} positions")
        board0 = _board_index(c, cols, rows, 1)
        if axis == "row":
            local = c[:, 1] * (cols[0] // size) + c[:, 0] // size
            per_board = rows[0] * (cols[0] // size)
        else:
            local = c[:, 0] * (rows[0] // size) + c[:, 1] // size
            per_board = cols[0] * (rows[0] // size)
        units.append(board0 * per_board + local)
        unit_names.append("card")
    for l in range(L):
        units.append(_board_index(c, cols, rows, l + 1))
        unit_names.append(f"level{l}")
    if level_names is not None:
        if len(level_names) != len(unit_names):
            raise SpecError(f"level_names needs {len(unit_names)} names ({', '.join(unit_names)}), got {len(level_names)}")
        unit_names = list(level_names)
    placement = Placement(tuple(unit_names), np.stack(units, axis=1), np.stack([c[:, 1], c[:, 0]], axis=1))
    spec = ""
    if L == 2 and card == ("row", 2) and all(f.spec for f in factors):
        spec = "bgl:" + "*".join(f.spec for f in factors)
    return t.replace(family="hierarchical", placement=placement, spec=spec,
                     params={"levels": [[f.spec for f in factors[2 * l:2 * l + 2]] for l in range(L)],
                             "card": list(card) if card else None})


def _board_index(c: np.ndarray, cols: list[int], rows: list[int], first_level: int) -> np.ndarray:
    """Global index of the board holding each router: the positions at
    levels >= first_level, in C order (0 when there are none)."""
    idx = np.zeros(len(c), dtype=np.int64)
    for l in range(first_level, len(cols)):
        idx = idx * rows[l] + c[:, 2 * l + 1]
        idx = idx * cols[l] + c[:, 2 * l]
    return idx


def bgl_midplane(row8, col4, upper_row, upper_col) -> Topology:
    """A Blue Gene/L midplane candidate: 16 node cards of 8 x 4 routers.

    ``row8`` (8 vertices) along every row and ``col4`` (4 vertices) along
    every column of a node card; node cards on a 4 x 4 grid joined by
    ``upper_row`` and ``upper_col`` (4 vertices each); 2 routers per compute
    card. Placement levels: compute_card, node_card, midplane.

    >>> t = bgl_midplane("ring:8", "ring:4", "ring:4", "ring:4")
    >>> t.n, sorted(set(t.degree.tolist())), t.spec
    (512, [8], 'bgl:ring:8*ring:4*ring:4*ring:4')
    """
    fs = [_as_topology(g) for g in (row8, col4, upper_row, upper_col)]
    want = (8, 4, 4, 4)
    for f, w, what in zip(fs, want, ("row", "column", "upper row", "upper column")):
        if f.n != w:
            raise SpecError(f"the Blue Gene/L {what} graph needs {w} nodes, got {f.n}")
    return hierarchical([(fs[0], fs[1]), (fs[2], fs[3])], level_names=("compute_card", "node_card", "midplane"),
                        card=("row", 2))
